//! Descriptor pins and server launch configs.
//!
//! A pin is the approved RFC 8785 canonical form of one descriptor (tool, prompt,
//! resource, resource template, server instructions) of one server identity, with its
//! SHA-256; when the server publishes something else, the new version waits beside it as
//! `pending` until a user approves or revokes it. What counts as a change and what to do
//! about it is decided by the core (`bastion_core::pins`); the store keeps the rows.

use crate::backend::Cols;
use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};

/// The state of a pin row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PinState {
    /// The approved version is what the server publishes: shown to hosts.
    Approved,
    /// The server publishes a version nobody approved yet: withheld (`pending_review`).
    Pending,
    /// A user revoked the pin: withheld until approved again.
    Revoked,
    /// The server no longer publishes it (recorded, nothing to show).
    Removed,
}

impl PinState {
    /// Stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Pending => "pending",
            Self::Revoked => "revoked",
            Self::Removed => "removed",
        }
    }

    /// Parses a stored name; unknown names read as `Revoked` (fail closed).
    pub fn parse(s: &str) -> Self {
        match s {
            "approved" => Self::Approved,
            "pending" => Self::Pending,
            "removed" => Self::Removed,
            _ => Self::Revoked,
        }
    }
}

/// One server identity: a `--name` and the hash of its launch config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    /// `<name>:<config_hash>`.
    pub identity: String,
    /// The `--name`.
    pub name: String,
    /// SHA-256 (hex) of the canonical launch config.
    pub config_hash: String,
    /// Canonical JSON of the launch config, env values replaced by their SHA-256.
    pub launch_config: String,
    /// `true` once a user approved this launch config (or it was trusted on first use).
    pub approved: bool,
    /// First time seen, unix ms.
    pub first_seen_ms: i64,
    /// Last time seen, unix ms.
    pub last_seen_ms: i64,
}

/// One pin row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinRecord {
    /// Row id (0 before insertion); `pins approve ID` uses it.
    pub id: i64,
    /// Server identity (`<name>:<config hash>`).
    pub server_identity: String,
    /// Server name.
    pub server_name: String,
    /// `tool`, `prompt`, `resource`, `resource_template` or `server_instructions`.
    pub kind: String,
    /// Name, uri, uriTemplate or `instructions`.
    pub item_key: String,
    /// State.
    pub state: PinState,
    /// SHA-256 of the approved canonical form, if any version was approved.
    pub approved_hash: Option<String>,
    /// The approved canonical JSON.
    pub approved_descriptor: Option<String>,
    /// SHA-256 of the version awaiting review.
    pub pending_hash: Option<String>,
    /// The canonical JSON awaiting review.
    pub pending_descriptor: Option<String>,
    /// Why it waits: `new`, `changed` or `renamed:<old key>`.
    pub pending_reason: Option<String>,
    /// First seen, unix ms.
    pub first_seen_ms: i64,
    /// Last change, unix ms.
    pub updated_ms: i64,
}

/// Filter for [`Store::pins`]; empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinFilter {
    /// Only this server name.
    pub server_name: Option<String>,
    /// Only this server identity.
    pub server_identity: Option<String>,
    /// Only this state.
    pub state: Option<PinState>,
}

fn pin_from_row(r: &impl Cols) -> PinRecord {
    PinRecord {
        id: r.col("id"),
        server_identity: r.col("server_identity"),
        server_name: r.col("server_name"),
        kind: r.col("kind"),
        item_key: r.col("item_key"),
        state: PinState::parse(r.col::<String>("state").as_str()),
        approved_hash: r.col("approved_hash"),
        approved_descriptor: r.col("approved_descriptor"),
        pending_hash: r.col("pending_hash"),
        pending_descriptor: r.col("pending_descriptor"),
        pending_reason: r.col("pending_reason"),
        first_seen_ms: r.col("first_seen_ms"),
        updated_ms: r.col("updated_ms"),
    }
}

fn server_from_row(r: &impl Cols) -> ServerRecord {
    ServerRecord {
        identity: r.col("identity"),
        name: r.col("name"),
        config_hash: r.col("config_hash"),
        launch_config: r.col("launch_config"),
        approved: r.col::<i64>("approved") != 0,
        first_seen_ms: r.col("first_seen_ms"),
        last_seen_ms: r.col("last_seen_ms"),
    }
}

const PIN_COLUMNS: &str = "id, server_identity, server_name, kind, item_key, state, approved_hash, \
    approved_descriptor, pending_hash, pending_descriptor, pending_reason, first_seen_ms, updated_ms";

impl Store {
    /// Records a server identity, or refreshes `last_seen_ms` (and `approved` when it is
    /// set) of a known one.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn upsert_server(&self, s: &ServerRecord) -> Result<(), StoreError> {
        // `approved` only ever goes 0 -> 1 here (a CASE: SQLite's two-argument MAX is
        // PostgreSQL's GREATEST).
        with_pool!(self, pool => sqlx::query(
            "INSERT INTO servers (identity, name, config_hash, launch_config, approved, first_seen_ms, last_seen_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (identity) DO UPDATE SET last_seen_ms = excluded.last_seen_ms, \
             approved = CASE WHEN excluded.approved > servers.approved THEN excluded.approved \
             ELSE servers.approved END",
        )
        .bind(&s.identity)
        .bind(&s.name)
        .bind(&s.config_hash)
        .bind(&s.launch_config)
        .bind(i64::from(s.approved))
        .bind(s.first_seen_ms)
        .bind(s.last_seen_ms)
        .execute(pool)
        .await
        .map(drop)?);
        Ok(())
    }

    /// Every identity recorded under `name`, most recently seen first.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn servers_named(&self, name: &str) -> Result<Vec<ServerRecord>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT identity, name, config_hash, launch_config, approved, first_seen_ms, last_seen_ms \
             FROM servers WHERE name = $1 ORDER BY last_seen_ms DESC, identity",
        )
        .bind(name)
        .fetch_all(pool)
        .await?
        .iter()
        .map(server_from_row)
        .collect()))
    }

    /// Marks a launch config approved; returns `false` when the identity is unknown.
    /// The approval and the `pins_version` bump are one transaction.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn approve_server(&self, identity: &str) -> Result<bool, StoreError> {
        Ok(with_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let done = sqlx::query("UPDATE servers SET approved = 1 WHERE identity = $1")
                .bind(identity)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                > 0;
            if done {
                sqlx::query(BUMP_PINS_VERSION).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            done
        }))
    }

    /// Pin rows matching `filter`, ordered by server, kind and key.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn pins(&self, filter: &PinFilter) -> Result<Vec<PinRecord>, StoreError> {
        let sql = format!(
            "SELECT {PIN_COLUMNS} FROM pins WHERE ($1 IS NULL OR server_name = $1) \
             AND ($2 IS NULL OR server_identity = $2) AND ($3 IS NULL OR state = $3) \
             ORDER BY server_name, server_identity, kind, item_key"
        );
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&filter.server_name)
            .bind(&filter.server_identity)
            .bind(filter.state.map(PinState::as_str))
            .fetch_all(pool)
            .await?
            .iter()
            .map(pin_from_row)
            .collect()),
        )
    }

    /// One pin by row id.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn pin_by_id(&self, id: i64) -> Result<Option<PinRecord>, StoreError> {
        let sql = format!("SELECT {PIN_COLUMNS} FROM pins WHERE id = $1");
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(pool)
            .await?
            .as_ref()
            .map(pin_from_row)),
        )
    }

    /// Inserts or replaces the row of `(server_identity, kind, item_key)` (the `id` of
    /// `pin` is ignored), whatever the row holds now. Gateways use
    /// [`Store::put_pin_if`]; this is for tools and tests that own the store.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_pin(&self, pin: &PinRecord) -> Result<(), StoreError> {
        self.upsert_pin(pin, Guard::Always).await.map(drop)
    }

    /// Compare-and-set of the row of `(server_identity, kind, item_key)`: writes `pin`
    /// only if the row is still what the caller based it on, `seen` (`None`: there was
    /// no row). "The same" means the same `state`, `approved_hash` and `pending_hash`.
    /// Returns `false`, writing nothing, when the row changed meanwhile: another
    /// process approved, revoked or recorded a version (`mcp-bastion pins`, or another
    /// gateway on a shared store); the caller re-reads and decides again. One statement
    /// (`INSERT … ON CONFLICT DO UPDATE … WHERE`), so it holds across processes.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_pin_if(
        &self,
        pin: &PinRecord,
        seen: Option<&PinRecord>,
    ) -> Result<bool, StoreError> {
        let guard = seen.map_or(Guard::Absent, Guard::Unchanged);
        Ok(self.upsert_pin(pin, guard).await? > 0)
    }

    async fn upsert_pin(&self, pin: &PinRecord, guard: Guard<'_>) -> Result<u64, StoreError> {
        // $13: 0 = never replace, 1 = replace only if unchanged, 2 = always replace.
        let (mode, seen) = match guard {
            Guard::Absent => (0_i64, None),
            Guard::Unchanged(seen) => (1, Some(seen)),
            Guard::Always => (2, None),
        };
        Ok(with_pool!(self, pool => sqlx::query(
            "INSERT INTO pins (server_identity, server_name, kind, item_key, state, approved_hash, \
             approved_descriptor, pending_hash, pending_descriptor, pending_reason, first_seen_ms, updated_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (server_identity, kind, item_key) DO UPDATE SET state = excluded.state, \
             approved_hash = excluded.approved_hash, approved_descriptor = excluded.approved_descriptor, \
             pending_hash = excluded.pending_hash, pending_descriptor = excluded.pending_descriptor, \
             pending_reason = excluded.pending_reason, updated_ms = excluded.updated_ms \
             WHERE $13 = 2 OR ($13 = 1 AND pins.state = $14 \
             AND pins.approved_hash IS NOT DISTINCT FROM $15 \
             AND pins.pending_hash IS NOT DISTINCT FROM $16)",
        )
        .bind(&pin.server_identity)
        .bind(&pin.server_name)
        .bind(&pin.kind)
        .bind(&pin.item_key)
        .bind(pin.state.as_str())
        .bind(&pin.approved_hash)
        .bind(&pin.approved_descriptor)
        .bind(&pin.pending_hash)
        .bind(&pin.pending_descriptor)
        .bind(&pin.pending_reason)
        .bind(pin.first_seen_ms)
        .bind(pin.updated_ms)
        .bind(mode)
        .bind(seen.map(|p| p.state.as_str()))
        .bind(seen.and_then(|p| p.approved_hash.as_deref()))
        .bind(seen.and_then(|p| p.pending_hash.as_deref()))
        .execute(pool)
        .await?
        .rows_affected()))
    }

    /// Approves pin `id`: its pending version (if any) becomes the approved one and the
    /// state `approved`. Returns the updated row, `None` when there is no such pin (or
    /// it is `removed`).
    ///
    /// One `UPDATE … RETURNING` and the `pins_version` bump in one transaction: the row
    /// returned is exactly what was approved, and gateways sharing the store see the
    /// new version only together with the approved row.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn approve_pin(&self, id: i64, now_ms: i64) -> Result<Option<PinRecord>, StoreError> {
        let sql = format!(
            "UPDATE pins SET approved_hash = COALESCE(pending_hash, approved_hash), \
             approved_descriptor = COALESCE(pending_descriptor, approved_descriptor), \
             pending_hash = NULL, pending_descriptor = NULL, pending_reason = NULL, \
             state = 'approved', updated_ms = $2 WHERE id = $1 AND state != 'removed' \
             RETURNING {PIN_COLUMNS}"
        );
        self.change_pin(sql, id, now_ms).await
    }

    /// Revokes pin `id` (withheld until approved again). Returns the updated row; as
    /// [`Store::approve_pin`], one statement and the version bump in one transaction.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn revoke_pin(&self, id: i64, now_ms: i64) -> Result<Option<PinRecord>, StoreError> {
        let sql = format!(
            "UPDATE pins SET state = 'revoked', updated_ms = $2 WHERE id = $1 RETURNING {PIN_COLUMNS}"
        );
        self.change_pin(sql, id, now_ms).await
    }

    /// Runs `sql` (an `UPDATE pins … WHERE id = $1 … RETURNING` with `$2` = now) and,
    /// when it changed a row, bumps `pins_version`, in one transaction.
    async fn change_pin(
        &self,
        sql: String,
        id: i64,
        now_ms: i64,
    ) -> Result<Option<PinRecord>, StoreError> {
        Ok(with_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let row = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(id)
                .bind(now_ms)
                .fetch_optional(&mut *tx)
                .await?;
            let pin = row.as_ref().map(pin_from_row);
            if pin.is_some() {
                sqlx::query(BUMP_PINS_VERSION).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            pin
        }))
    }

    /// `(server name, tool name)` of every tool pinned (approved or pending review) under
    /// another server name than `name`: what a new tool of `name` must not shadow.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn tools_of_other_servers(
        &self,
        name: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT DISTINCT server_name, item_key FROM pins WHERE kind = 'tool' \
             AND server_name != $1 AND state IN ('approved', 'pending') \
             ORDER BY server_name, item_key",
        )
        .bind(name)
        .fetch_all(pool)
        .await?
        .iter()
        .map(|r| (r.col("server_name"), r.col("item_key")))
        .collect()))
    }

    /// A counter bumped by every approval or revocation: a running gateway compares it
    /// to notice decisions made by `mcp-bastion pins` in another process (or another
    /// gateway instance sharing a `PostgreSQL` store).
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn pins_version(&self) -> Result<i64, StoreError> {
        let v: Option<i64> = with_pool!(self, pool => sqlx::query_scalar(
            "SELECT value FROM store_meta WHERE key = 'pins_version'"
        )
        .fetch_optional(pool)
        .await?);
        Ok(v.unwrap_or(0))
    }
}

/// When [`Store::upsert_pin`] may replace an existing row.
#[derive(Clone, Copy)]
enum Guard<'a> {
    /// Only insert: the writer saw no row.
    Absent,
    /// Replace only while `state`, `approved_hash` and `pending_hash` are as seen.
    Unchanged(&'a PinRecord),
    /// Replace unconditionally.
    Always,
}

/// Bumps the counter of [`Store::pins_version`] (inside the caller's transaction).
const BUMP_PINS_VERSION: &str =
    "UPDATE store_meta SET value = value + 1 WHERE key = 'pins_version'";
