//! # bastion-store
//!
//! Persistent state of MCP Bastion behind one async API: the audit log, descriptor pins
//! and server launch configs, approval grants and confirmation decisions, the URL consent
//! ledger, elicitation flows, and accepted and activated contract manifests.
//!
//! Backend: [`sqlx`] with `SQLite` as the embedded default (file in WAL mode, created with
//! its parent directory). `sqlx` was chosen over `rusqlite` because one async API covers
//! both `SQLite` and `PostgreSQL` (the shared multi-instance store), queries run on the
//! tokio runtime the gateway already uses without blocking its workers, and migrations
//! are versioned by the same tool for both backends. Queries use `$N` placeholders,
//! which both `SQLite` and `PostgreSQL` accept.
//!
//! The store holds data only; what to record and what it means is decided by the core
//! and the gateway.

mod approvals;
mod audit;
mod consent;
mod contracts;
mod pins;

pub use approvals::{ApprovalDecision, Grant, GrantFilter};
pub use audit::{AuditEvent, AuditQuery};
pub use consent::{ConsentError, ConsentRecord, FlowRecord};
pub use contracts::{AcceptedContract, ContractActivation};
pub use pins::{PinFilter, PinRecord, PinState, ServerRecord};

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Errors of the store. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store URL is not one this build understands.
    #[error(
        "unsupported store URL `{0}`: use sqlite:///absolute/path.db, sqlite://relative.db or sqlite::memory:"
    )]
    UnsupportedUrl(String),
    /// The database could not be opened or created.
    #[error(
        "cannot open the store at {location} (check the path, its permissions and free disk space)"
    )]
    Open {
        /// Where.
        location: String,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// A read-only command was pointed at a store that does not exist.
    #[error("no store at {}: nothing has been recorded there yet (check --store / MCP_BASTION_STORE)", .0.display())]
    Missing(PathBuf),
    /// The parent directory could not be created.
    #[error("cannot create the store file or directory {}", .path.display())]
    CreateDir {
        /// Which directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Migrations failed (a newer or damaged database).
    #[error("cannot migrate the store schema (was the file written by a newer mcp-bastion?)")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A query failed (locked, read-only, disk full, ...).
    #[error("store query failed (the database may be locked, read-only or full)")]
    Query(#[from] sqlx::Error),
}

/// Handle to the store; cheap to clone (a connection pool).
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    location: String,
}

fn migrator() -> Migrator {
    Migrator::with_migrations(vec![
        Migration::new(
            1,
            "audit".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0001_audit.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            2,
            "pins".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0002_pins.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            3,
            "approvals".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0003_approvals.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            4,
            "elicitation".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0004_elicitation.sql").into_sql_str(),
            false,
        ),
        Migration::new(
            5,
            "contracts".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0005_contracts.sql").into_sql_str(),
            false,
        ),
    ])
}

impl Store {
    /// Opens (creating when missing) the store at `url` and applies migrations.
    ///
    /// Accepted URLs: `sqlite:///abs/path.db`, `sqlite://rel/path.db`, `sqlite:path.db`,
    /// `sqlite::memory:` (tests), or a plain filesystem path. The file is created with
    /// its parent directory; journal mode WAL, `synchronous = NORMAL`, busy timeout 5 s.
    ///
    /// # Errors
    /// [`StoreError::UnsupportedUrl`] for other schemes (`PostgreSQL` arrives with the
    /// shared-store issue), [`StoreError::Open`]/[`StoreError::CreateDir`] when the file
    /// cannot be created, [`StoreError::Migrate`] when the schema cannot be applied.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, true).await
    }

    /// Opens an existing store (for commands that only read it, such as `audit`).
    ///
    /// # Errors
    /// [`StoreError::Missing`] when there is no store at `url`; otherwise as
    /// [`Store::open`].
    pub async fn open_existing(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, false).await
    }

    async fn open_with(url: &str, create: bool) -> Result<Self, StoreError> {
        let (options, location) = if url == "sqlite::memory:" {
            (
                SqliteConnectOptions::from_str(url).map_err(|source| StoreError::Open {
                    location: url.into(),
                    source,
                })?,
                url.to_owned(),
            )
        } else {
            let path = sqlite_path(url)?;
            if !create && !path.is_file() {
                return Err(StoreError::Missing(path));
            }
            if create {
                prepare_file(&path)?;
            }
            let opts = SqliteConnectOptions::new()
                .filename(&path)
                .create_if_missing(create)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(5));
            (opts, path.display().to_string())
        };
        let max = if url == "sqlite::memory:" { 1 } else { 4 };
        let pool = SqlitePoolOptions::new()
            .max_connections(max)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        migrator().run(&pool).await?;
        Ok(Self { pool, location })
    }

    /// Where the store lives (a path, or `sqlite::memory:`).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Closes the pool, flushing WAL to the main file when possible.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The filesystem path of a `sqlite:` URL or plain path.
fn sqlite_path(url: &str) -> Result<PathBuf, StoreError> {
    if let Some(rest) = url.strip_prefix("sqlite://") {
        return Ok(PathBuf::from(rest));
    }
    if let Some(rest) = url.strip_prefix("sqlite:") {
        return Ok(PathBuf::from(rest));
    }
    if url.contains("://") {
        return Err(StoreError::UnsupportedUrl(url.to_owned()));
    }
    Ok(PathBuf::from(url))
}

/// Creates the store's directory (mode 0700) and an empty database file (mode 0600)
/// before `SQLite` opens it: `SQLite` gives its `-wal` and `-shm` files the mode of the
/// database file, so the audit log is never readable by other users, not even during
/// the first session.
fn prepare_file(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(parent) = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty() && !p.exists())
    {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|source| StoreError::CreateDir {
                path: parent.to_owned(),
                source,
            })?;
    }
    if !path.exists() {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|source| StoreError::CreateDir {
                path: path.to_owned(),
                source,
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            sqlite_path("sqlite:///tmp/x.db").unwrap(),
            PathBuf::from("/tmp/x.db")
        );
        assert_eq!(
            sqlite_path("sqlite://rel/x.db").unwrap(),
            PathBuf::from("rel/x.db")
        );
        assert_eq!(sqlite_path("sqlite:x.db").unwrap(), PathBuf::from("x.db"));
        assert_eq!(
            sqlite_path("/tmp/y.db").unwrap(),
            PathBuf::from("/tmp/y.db")
        );
        assert!(matches!(
            sqlite_path("postgres://h/db"),
            Err(StoreError::UnsupportedUrl(_))
        ));
    }
}
