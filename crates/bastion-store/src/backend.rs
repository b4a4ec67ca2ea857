//! The two backends behind [`crate::Store`]: the connection pools, the migration sets and
//! a column reader that maps rows of either backend into the store's records.
//!
//! Why an enum of typed pools rather than `sqlx::Any`: `Any` maps every value through a
//! small common type set at run time, cannot carry `SQLite` connect options (WAL, busy
//! timeout, file modes) or `PostgreSQL` ones, and surfaces type mismatches only when a
//! row is read. With one typed pool per backend, each query is compiled once per backend
//! (the `with_pool!` macro expands the same source for both), binds
//! and decodes through the backend's own types (`INTEGER` / `BIGINT` as `i64`, `TEXT` as
//! `String`), and the SQL itself is written in the dialect both accept: `$N`
//! placeholders, `ON CONFLICT … DO UPDATE`/`DO NOTHING`, `RETURNING`, sub-queries with
//! an alias, `CASE` instead of the two-argument `MAX` (`SQLite`) / `GREATEST`
//! (`PostgreSQL`). Booleans are stored as integers 0/1 on both.

use sqlx::Row;
use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgPool, PgRow};
use sqlx::sqlite::{SqlitePool, SqliteRow};

/// A connection pool of one backend.
#[derive(Debug, Clone)]
pub(crate) enum Backend {
    /// Embedded file (or in-memory) database.
    Sqlite(SqlitePool),
    /// Shared server database (`postgres://…`).
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the store's pool, whichever backend it is: the
/// body is written once and type-checked (and compiled) once per backend.
macro_rules! with_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.backend {
            $crate::backend::Backend::Sqlite($pool) => $body,
            $crate::backend::Backend::Postgres($pool) => $body,
        }
    };
}

/// A value a record field is read as; implemented for the column types the store uses.
pub(crate) trait Column: Sized {
    fn sqlite(row: &SqliteRow, name: &str) -> Self;
    fn pg(row: &PgRow, name: &str) -> Self;
}

macro_rules! column {
    ($($t:ty),*) => {$(
        impl Column for $t {
            fn sqlite(row: &SqliteRow, name: &str) -> Self {
                row.get(name)
            }
            fn pg(row: &PgRow, name: &str) -> Self {
                row.get(name)
            }
        }
    )*};
}
column!(String, Option<String>, i64, Option<i64>);

/// A row of either backend, read by column name.
///
/// # Panics
/// [`Cols::col`] panics when a column is missing or of another type: the schema is the
/// store's own migrations, so that is a programming error, as with [`Row::get`].
pub(crate) trait Cols {
    /// The value of column `name`.
    fn col<T: Column>(&self, name: &str) -> T;
}

impl Cols for SqliteRow {
    fn col<T: Column>(&self, name: &str) -> T {
        T::sqlite(self, name)
    }
}

impl Cols for PgRow {
    fn col<T: Column>(&self, name: &str) -> T {
        T::pg(self, name)
    }
}

/// The store's migrations: `(version, description, SQLite SQL, PostgreSQL SQL)`. The same
/// version means the same schema change on both backends.
const MIGRATIONS: [(i64, &str, &str, &str); 9] = [
    (
        1,
        "audit",
        include_str!("../migrations/sqlite/0001_audit.sql"),
        include_str!("../migrations/postgres/0001_audit.sql"),
    ),
    (
        2,
        "pins",
        include_str!("../migrations/sqlite/0002_pins.sql"),
        include_str!("../migrations/postgres/0002_pins.sql"),
    ),
    (
        3,
        "approvals",
        include_str!("../migrations/sqlite/0003_approvals.sql"),
        include_str!("../migrations/postgres/0003_approvals.sql"),
    ),
    (
        4,
        "elicitation",
        include_str!("../migrations/sqlite/0004_elicitation.sql"),
        include_str!("../migrations/postgres/0004_elicitation.sql"),
    ),
    (
        5,
        "contracts",
        include_str!("../migrations/sqlite/0005_contracts.sql"),
        include_str!("../migrations/postgres/0005_contracts.sql"),
    ),
    (
        6,
        "audit instance",
        include_str!("../migrations/sqlite/0006_audit_instance.sql"),
        include_str!("../migrations/postgres/0006_audit_instance.sql"),
    ),
    (
        7,
        "oauth",
        include_str!("../migrations/sqlite/0007_oauth.sql"),
        include_str!("../migrations/postgres/0007_oauth.sql"),
    ),
    (
        8,
        "audit count",
        include_str!("../migrations/sqlite/0008_audit_count.sql"),
        include_str!("../migrations/postgres/0008_audit_count.sql"),
    ),
    (
        9,
        "audit indexes",
        include_str!("../migrations/sqlite/0009_audit_indexes.sql"),
        include_str!("../migrations/postgres/0009_audit_indexes.sql"),
    ),
];

/// The migrator of one backend (`postgres = true` for `PostgreSQL`). `PostgreSQL`
/// migrations run under an advisory lock, so instances starting together on one
/// database apply each migration once.
pub(crate) fn migrator(postgres: bool) -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|&(version, description, sqlite, pg)| {
                let sql = if postgres { pg } else { sqlite };
                Migration::new(
                    version,
                    description.into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;

    #[test]
    fn both_backends_have_every_migration_in_order() {
        for (i, (version, _, sqlite, pg)) in MIGRATIONS.iter().enumerate() {
            assert_eq!(*version, i64::try_from(i).unwrap() + 1);
            assert!(!sqlite.trim().is_empty() && !pg.trim().is_empty());
            // Same tables on both sides.
            let tables = |sql: &str| {
                sql.split("CREATE TABLE IF NOT EXISTS ")
                    .skip(1)
                    .map(|s| s.split_whitespace().next().unwrap_or("").to_owned())
                    .collect::<Vec<_>>()
            };
            assert_eq!(tables(sqlite), tables(pg), "migration {version}");
        }
    }
}
