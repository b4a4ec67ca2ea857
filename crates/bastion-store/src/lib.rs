//! # bastion-store
//!
//! Persistent state of MCP Bastion behind one async API: the audit log, descriptor pins
//! and server launch configs, approval grants and confirmation decisions, the URL consent
//! ledger, elicitation flows, accepted and activated contract manifests, and sealed
//! OAuth tokens and client registrations of remote upstreams.
//!
//! Backends: [`sqlx`] with `SQLite` as the embedded default (file in WAL mode, created
//! with its parent directory) and `PostgreSQL` as the shared store of several gateway
//! instances (`postgres://user@host/db`). `sqlx` was chosen over `rusqlite` because one
//! async API covers both, queries run on the tokio runtime the gateway already uses
//! without blocking its workers, and migrations are versioned by the same tool for both
//! backends (same numbers, same meaning: `migrations/sqlite/` and `migrations/postgres/`).
//! Every query is written once in the SQL both accept (`$N` placeholders, `ON CONFLICT`,
//! `RETURNING`) and compiled for each backend's typed pool; see `backend.rs` for why
//! not `sqlx::Any`.
//!
//! Concurrency: every check-and-change is one statement or one transaction, so it holds
//! across processes and instances sharing a database, not just within one process: a
//! consent id is consumed by a single `INSERT … ON CONFLICT DO NOTHING` on its primary
//! key; a pin approval is one `UPDATE … RETURNING` plus the `pins_version` bump in the
//! same transaction; a gateway's pin write is a compare-and-set ([`Store::put_pin_if`])
//! that loses, rather than overwrites, when the row changed since the gateway read it.
//!
//! `PostgreSQL` connections are plain TCP or Unix-socket connections: this build has no
//! TLS support (sqlx's TLS features would add rustls and ring to a build that has
//! neither), so `sslmode=require` (and stricter) fails to connect; use a loopback or
//! Unix-socket server, or a TLS-terminating tunnel.
//!
//! The store holds data only; what to record and what it means is decided by the core
//! and the gateway.

#[macro_use]
mod backend;
mod approvals;
mod audit;
mod consent;
mod contracts;
mod oauth;
mod pins;

pub use approvals::{ApprovalDecision, Grant, GrantFilter};
pub use audit::{AuditEvent, AuditQuery};
pub use consent::{ConsentError, ConsentRecord, FlowRecord};
pub use contracts::{AcceptedContract, ContractActivation};
pub use oauth::{OAuthClientRow, OAuthTokenRow};
pub use pins::{PinFilter, PinRecord, PinState, ServerRecord};

use backend::Backend;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Errors of the store. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store URL is not one this build understands.
    #[error(
        "unsupported store URL `{0}`: use sqlite:///absolute/path.db, sqlite://relative.db, sqlite::memory: or postgres://user@host:port/database"
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
    /// The `PostgreSQL` server could not be reached or refused the connection.
    #[error(
        "cannot connect to the PostgreSQL store at {location} (is the server running and reachable, the database created, the user and password right? TLS is not supported by this build: use sslmode=disable or prefer)"
    )]
    Connect {
        /// The URL without its password.
        location: String,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// A read-only command was pointed at a store that does not exist.
    #[error("no store at {}: nothing has been recorded there yet (check --store / MCP_BASTION_STORE)", .0.display())]
    Missing(PathBuf),
    /// A read-only command was pointed at a `PostgreSQL` database without a store in it.
    #[error(
        "no store in the PostgreSQL database at {0}: nothing has been recorded there yet (check --store / MCP_BASTION_STORE)"
    )]
    MissingSchema(String),
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
    #[error("cannot migrate the store schema (was the store written by a newer mcp-bastion?)")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A query failed (locked, read-only, disk full, ...).
    #[error(
        "store query failed (the database may be locked, read-only or full, or its PostgreSQL server unreachable)"
    )]
    Query(#[from] sqlx::Error),
}

/// Handle to the store; cheap to clone (a connection pool of either backend).
#[derive(Debug, Clone)]
pub struct Store {
    backend: Backend,
    location: String,
}

impl Store {
    /// Opens (creating when missing) the store at `url` and applies migrations.
    ///
    /// Accepted URLs:
    /// - `SQLite`: `sqlite:///abs/path.db`, `sqlite://rel/path.db`, `sqlite:path.db`,
    ///   `sqlite::memory:` (tests), or a plain filesystem path. The file is created with
    ///   its parent directory; journal mode WAL, `synchronous = NORMAL`, busy timeout 5 s.
    /// - `PostgreSQL`: `postgres://user:password@host:port/database` or `postgresql://…`
    ///   (libpq URL syntax, `?host=/run/postgresql` for a Unix socket). The database must
    ///   exist; its tables are created by the migrations. Up to 4 connections per
    ///   handle, 10 s to get one. No TLS in this build.
    ///
    /// # Errors
    /// [`StoreError::UnsupportedUrl`] for other schemes, [`StoreError::Open`] /
    /// [`StoreError::CreateDir`] when the `SQLite` file cannot be created,
    /// [`StoreError::Connect`] when the `PostgreSQL` server cannot be reached or refuses
    /// the login, [`StoreError::Migrate`] when the schema cannot be applied.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, true).await
    }

    /// `true` when `url` names a `SQLite` file store of which nothing exists yet: no
    /// database file, and no `-wal` or `-journal` file that `SQLite` would recover into a
    /// new one. (A store being created by another process already has its database file:
    /// [`Store::open`] creates it before anything else.) [`Store::open`] then creates an
    /// empty store, which holds no pin, grant or revocation: `wrap` uses this to start a
    /// server under `tofu` pinning while the new store is being created. `false` for
    /// `PostgreSQL`, in-memory stores, `file:` URIs (`SQLite` resolves those itself), an
    /// unsupported URL, or when the path cannot be examined.
    pub fn is_absent(url: &str) -> bool {
        if is_postgres_url(url) {
            return false;
        }
        let Ok(path) = sqlite_path(url) else {
            return false;
        };
        let text = path.to_string_lossy();
        if text.starts_with("file:") || text.starts_with(':') || text.is_empty() {
            return false;
        }
        let with_suffix = |suffix: &str| {
            let mut p = path.clone().into_os_string();
            p.push(suffix);
            PathBuf::from(p)
        };
        let missing = |suffix: &str| {
            matches!(
                std::fs::symlink_metadata(with_suffix(suffix)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound
            )
        };
        ["", "-wal", "-journal"].into_iter().all(missing)
    }

    /// Opens an existing store (for commands that only read it, such as `audit`).
    ///
    /// For `PostgreSQL` the database must hold a store already (migrations applied by an
    /// earlier [`Store::open`]); pending newer migrations are applied.
    ///
    /// # Errors
    /// [`StoreError::Missing`] when there is no `SQLite` store at `url`,
    /// [`StoreError::MissingSchema`] when the `PostgreSQL` database has none; otherwise
    /// as [`Store::open`].
    pub async fn open_existing(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, false).await
    }

    async fn open_with(url: &str, create: bool) -> Result<Self, StoreError> {
        if is_postgres_url(url) {
            return Self::open_postgres(url, create).await;
        }
        let mut file = None;
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
                .busy_timeout(Duration::from_secs(5))
                // Page cache per connection, KiB (negative: KiB, SQLite `cache_size`).
                // The store's working set is small (audit appends, pin lookups); the
                // default of 2 MiB per connection is resident memory for nothing.
                .pragma("cache_size", "-256");
            let location = path.display().to_string();
            file = Some(path);
            (opts, location)
        };
        // Two connections: the audit writer and one reader (pins, grants, consents)
        // never wait for each other; more only add resident memory and threads.
        let max = if url == "sqlite::memory:" { 1 } else { 2 };
        // Held from before the first connection: switching a new file to WAL mode (done
        // on connect) can fail with `SQLITE_BUSY` without waiting when another process
        // does the same at that moment.
        let lock = match &file {
            Some(path) => migration_lock(path).await,
            None => None,
        };
        let pool = SqlitePoolOptions::new()
            .max_connections(max)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        backend::migrator(false).run(&pool).await?;
        drop(lock);
        Ok(Self {
            backend: Backend::Sqlite(pool),
            location,
        })
    }

    async fn open_postgres(url: &str, create: bool) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url).map_err(|source| StoreError::Connect {
            location: redacted(url),
            source,
        })?;
        let location = pg_location(&options);
        let connect_error = |source| StoreError::Connect {
            location: location.clone(),
            source,
        };
        // One direct connection first: a wrong host, port or password fails at once
        // (a pool would retry until its acquire timeout), and it applies the migrations.
        let mut first = PgConnection::connect_with(&options)
            .await
            .map_err(connect_error)?;
        if !create {
            let initialized: bool =
                sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
                    .fetch_one(&mut first)
                    .await?;
            if !initialized {
                first.close().await.ok();
                return Err(StoreError::MissingSchema(location));
            }
        }
        backend::migrator(true).run(&mut first).await?;
        first.close().await.map_err(connect_error)?;
        // Four connections: the audit writer, the pins poller and two for requests
        // (grants, consents, flows); the server is shared, so each instance stays small.
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy_with(options);
        Ok(Self {
            backend: Backend::Postgres(pool),
            location,
        })
    }

    /// Where the store lives: a path, `sqlite::memory:`, or a `postgres://` URL without
    /// its password.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// `true` for a `PostgreSQL` store.
    pub fn is_postgres(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }

    /// Closes the pool (for `SQLite`, flushing WAL to the main file when possible).
    pub async fn close(&self) {
        with_pool!(self, pool => pool.close().await);
    }
}

/// `true` for a `postgres://` or `postgresql://` URL (the schemes libpq accepts).
fn is_postgres_url(url: &str) -> bool {
    let lower = url.get(..13).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// `postgres://user@host:port/database` of parsed options: what messages and
/// [`Store::location`] show (never the password).
fn pg_location(o: &PgConnectOptions) -> String {
    let host = o
        .get_socket()
        .map_or_else(|| o.get_host().to_owned(), |s| s.display().to_string());
    format!(
        "postgres://{}@{}:{}/{}",
        o.get_username(),
        host,
        o.get_port(),
        o.get_database().unwrap_or("")
    )
}

/// A URL that did not parse, for an error message: its scheme only, since the rest may
/// hold a password.
fn redacted(url: &str) -> String {
    let scheme = url.split_once("://").map_or("postgres", |(s, _)| s);
    format!("{scheme}://… (unparsable URL)")
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

/// An exclusive advisory lock (`flock`) on `<store file>-migrate.lock` (mode 0600,
/// created once and kept), held while the connections open and the migrations run: sqlx's `SQLite` migrator does
/// not lock, so two processes opening one new (or older) store file at once would both
/// apply a migration and one of them fail. Best effort: `None` when the lock file cannot
/// be created or locked (a read-only directory, where nothing can be migrated anyway).
async fn migration_lock(db: &Path) -> Option<std::fs::File> {
    let mut name = db.file_name()?.to_owned();
    name.push("-migrate.lock");
    let path = db.with_file_name(name);
    tokio::task::spawn_blocking(move || {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(path)
            .ok()?;
        file.lock().ok()?;
        Some(file)
    })
    .await
    .ok()
    .flatten()
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
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            // Another gateway starting at the same moment created it first.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => {
                return Err(StoreError::CreateDir {
                    path: path.to_owned(),
                    source,
                });
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_absent_only_when_nothing_sqlite_would_read_exists() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let url = format!("sqlite://{}", db.display());
        assert!(Store::is_absent(&url));
        assert!(Store::is_absent(db.to_str().unwrap()));
        // A WAL or rollback journal left behind would be recovered into a new file.
        for leftover in ["s.db-wal", "s.db-journal", "s.db"] {
            let path = dir.path().join(leftover);
            std::fs::write(&path, b"").unwrap();
            assert!(!Store::is_absent(&url), "{leftover}");
            std::fs::remove_file(&path).unwrap();
        }
        // A dangling symlink is something at the path, not an absent store.
        std::os::unix::fs::symlink(dir.path().join("elsewhere.db"), &db).unwrap();
        assert!(!Store::is_absent(&url));
        assert!(!Store::is_absent("sqlite::memory:"));
        assert!(!Store::is_absent("sqlite://:memory:"));
        // `file:` names are URIs to SQLite: this one is `/…/s.db`, not `./file:/…/s.db`.
        assert!(!Store::is_absent(&format!("sqlite:file:{}", db.display())));
        assert!(!Store::is_absent(&format!("file:{}", db.display())));
        assert!(!Store::is_absent("postgres://u@localhost/db"));
        assert!(!Store::is_absent("mysql://u@localhost/db"));
        // A path that cannot be examined (a file as a directory) is not "absent".
        std::fs::write(dir.path().join("file"), b"").unwrap();
        let under_file = format!("sqlite://{}/file/s.db", dir.path().display());
        assert!(!Store::is_absent(&under_file));
    }

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
            sqlite_path("mysql://h/db"),
            Err(StoreError::UnsupportedUrl(_))
        ));
        assert!(is_postgres_url("postgres://h/db"));
        assert!(is_postgres_url("PostgreSQL://u@h:5433/db"));
        assert!(!is_postgres_url("postgres:/h/db"));
        assert!(!is_postgres_url("sqlite:///tmp/postgres://x"));
    }

    #[test]
    fn postgres_locations_never_show_the_password() {
        let o =
            PgConnectOptions::from_str("postgres://alice:s3cret@db.internal:5433/bastion").unwrap();
        assert_eq!(pg_location(&o), "postgres://alice@db.internal:5433/bastion");
        let r = redacted("postgres://alice:s3cret@[::1");
        assert!(!r.contains("s3cret"), "{r}");
    }
}
