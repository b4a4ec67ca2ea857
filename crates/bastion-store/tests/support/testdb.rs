//! Fresh store databases for tests, on both backends.
//!
//! `SQLite`: a file in a new temporary directory. `PostgreSQL`: a new database in the
//! server named by `BASTION_TEST_POSTGRES` (an admin URL, e.g.
//! `postgres://bastion@127.0.0.1:54329/postgres`; `.ci/run` starts a throwaway cluster
//! with `scripts/test-postgres.sh` and sets it), so tests run in parallel without
//! seeing each other's rows.
//!
//! Rule: without `BASTION_TEST_POSTGRES` the `PostgreSQL` tests are skipped (with a
//! note on stderr) on a developer machine, and FAIL when `CI` is set: CI must never
//! pass them silently.

#![allow(dead_code, unreachable_pub)]

use sqlx::Connection;
use std::sync::atomic::{AtomicU32, Ordering};

/// A test database; dropped (`PostgreSQL`) by [`TestDb::remove`], deleted with its
/// directory (`SQLite`) when the value is dropped.
pub struct TestDb {
    /// The store URL to pass to `Store::open` / `--store`.
    pub url: String,
    dir: Option<tempfile::TempDir>,
    /// `(admin URL, database name)` of a `PostgreSQL` database.
    pg: Option<(String, String)>,
}

/// A fresh `SQLite` store file.
pub fn sqlite() -> TestDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    TestDb {
        url,
        dir: Some(dir),
        pg: None,
    }
}

/// The admin URL of the test `PostgreSQL` server, or `None` (skip) on a developer
/// machine without one.
///
/// # Panics
/// When `CI` is set and `BASTION_TEST_POSTGRES` is not.
pub fn postgres_admin_url() -> Option<String> {
    if let Some(url) = std::env::var("BASTION_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    {
        return Some(url);
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(
        !ci,
        "BASTION_TEST_POSTGRES is not set but CI is: the PostgreSQL store tests must run in CI \
         (.ci/run starts a cluster with scripts/test-postgres.sh)"
    );
    eprintln!(
        "skipping a PostgreSQL store test: BASTION_TEST_POSTGRES is not set \
         (eval \"$(scripts/test-postgres.sh start)\" starts a local cluster)"
    );
    None
}

/// A fresh, empty `PostgreSQL` database, or `None` (skip; see [`postgres_admin_url`]).
///
/// # Panics
/// When the server cannot be reached or the database cannot be created.
pub async fn postgres() -> Option<TestDb> {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let admin = postgres_admin_url()?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = format!(
        "bastion_t_{}_{}_{nanos}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to BASTION_TEST_POSTGRES={admin}: {e}"));
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .expect("CREATE DATABASE");
    conn.close().await.ok();
    let mut url = url::Url::parse(&admin).expect("BASTION_TEST_POSTGRES is a URL");
    url.set_path(&format!("/{name}"));
    Some(TestDb {
        url: url.into(),
        dir: None,
        pg: Some((admin, name)),
    })
}

impl TestDb {
    /// `true` for a `PostgreSQL` database.
    pub fn is_postgres(&self) -> bool {
        self.pg.is_some()
    }

    /// `(admin URL, database name)` of a `PostgreSQL` database.
    pub fn postgres_admin(&self) -> Option<(String, String)> {
        self.pg.clone()
    }

    /// The `SQLite` file's directory.
    pub fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_ref().map(tempfile::TempDir::path)
    }

    /// Drops the `PostgreSQL` database (connections still open are terminated).
    pub async fn remove(self) {
        if let Some((admin, name)) = &self.pg
            && let Ok(mut conn) = sqlx::PgConnection::connect(admin).await
        {
            let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&mut conn)
            .await;
            conn.close().await.ok();
        }
    }
}
