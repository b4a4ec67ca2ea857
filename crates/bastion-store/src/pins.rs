//! Descriptor pins and server launch configs.
//!
//! A pin is the approved RFC 8785 canonical form of one descriptor (tool, prompt,
//! resource, resource template, server instructions) of one server identity, with its
//! SHA-256; when the server publishes something else, the new version waits beside it as
//! `pending` until a user approves or revokes it. What counts as a change and what to do
//! about it is decided by the core (`bastion_core::pins`); the store keeps the rows.

use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

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

fn pin_from_row(r: &SqliteRow) -> PinRecord {
    PinRecord {
        id: r.get("id"),
        server_identity: r.get("server_identity"),
        server_name: r.get("server_name"),
        kind: r.get("kind"),
        item_key: r.get("item_key"),
        state: PinState::parse(r.get::<String, _>("state").as_str()),
        approved_hash: r.get("approved_hash"),
        approved_descriptor: r.get("approved_descriptor"),
        pending_hash: r.get("pending_hash"),
        pending_descriptor: r.get("pending_descriptor"),
        pending_reason: r.get("pending_reason"),
        first_seen_ms: r.get("first_seen_ms"),
        updated_ms: r.get("updated_ms"),
    }
}

fn server_from_row(r: &SqliteRow) -> ServerRecord {
    ServerRecord {
        identity: r.get("identity"),
        name: r.get("name"),
        config_hash: r.get("config_hash"),
        launch_config: r.get("launch_config"),
        approved: r.get::<i64, _>("approved") != 0,
        first_seen_ms: r.get("first_seen_ms"),
        last_seen_ms: r.get("last_seen_ms"),
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
        sqlx::query(
            "INSERT INTO servers (identity, name, config_hash, launch_config, approved, first_seen_ms, last_seen_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (identity) DO UPDATE SET last_seen_ms = excluded.last_seen_ms, \
             approved = MAX(servers.approved, excluded.approved)",
        )
        .bind(&s.identity)
        .bind(&s.name)
        .bind(&s.config_hash)
        .bind(&s.launch_config)
        .bind(i64::from(s.approved))
        .bind(s.first_seen_ms)
        .bind(s.last_seen_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every identity recorded under `name`, most recently seen first.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn servers_named(&self, name: &str) -> Result<Vec<ServerRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT identity, name, config_hash, launch_config, approved, first_seen_ms, last_seen_ms \
             FROM servers WHERE name = $1 ORDER BY last_seen_ms DESC, identity",
        )
        .bind(name)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(server_from_row).collect())
    }

    /// Marks a launch config approved; returns `false` when the identity is unknown.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn approve_server(&self, identity: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE servers SET approved = 1 WHERE identity = $1")
            .bind(identity)
            .execute(&self.pool)
            .await?
            .rows_affected()
            > 0;
        if done {
            self.bump_pins_version().await?;
        }
        Ok(done)
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
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&filter.server_name)
            .bind(&filter.server_identity)
            .bind(filter.state.map(PinState::as_str))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(pin_from_row).collect())
    }

    /// One pin by row id.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn pin_by_id(&self, id: i64) -> Result<Option<PinRecord>, StoreError> {
        let sql = format!("SELECT {PIN_COLUMNS} FROM pins WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(pin_from_row))
    }

    /// Inserts or replaces the row of `(server_identity, kind, item_key)` (the `id` of
    /// `pin` is ignored).
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_pin(&self, pin: &PinRecord) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO pins (server_identity, server_name, kind, item_key, state, approved_hash, \
             approved_descriptor, pending_hash, pending_descriptor, pending_reason, first_seen_ms, updated_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (server_identity, kind, item_key) DO UPDATE SET state = excluded.state, \
             approved_hash = excluded.approved_hash, approved_descriptor = excluded.approved_descriptor, \
             pending_hash = excluded.pending_hash, pending_descriptor = excluded.pending_descriptor, \
             pending_reason = excluded.pending_reason, updated_ms = excluded.updated_ms",
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
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Approves pin `id`: its pending version (if any) becomes the approved one and the
    /// state `approved`. Returns the updated row, `None` when there is no such pin.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn approve_pin(&self, id: i64, now_ms: i64) -> Result<Option<PinRecord>, StoreError> {
        let done = sqlx::query(
            "UPDATE pins SET approved_hash = COALESCE(pending_hash, approved_hash), \
             approved_descriptor = COALESCE(pending_descriptor, approved_descriptor), \
             pending_hash = NULL, pending_descriptor = NULL, pending_reason = NULL, \
             state = 'approved', updated_ms = $2 WHERE id = $1 AND state != 'removed'",
        )
        .bind(id)
        .bind(now_ms)
        .execute(&self.pool)
        .await?
        .rows_affected()
            > 0;
        if !done {
            return Ok(None);
        }
        self.bump_pins_version().await?;
        self.pin_by_id(id).await
    }

    /// Revokes pin `id` (withheld until approved again). Returns the updated row.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn revoke_pin(&self, id: i64, now_ms: i64) -> Result<Option<PinRecord>, StoreError> {
        let done = sqlx::query("UPDATE pins SET state = 'revoked', updated_ms = $2 WHERE id = $1")
            .bind(id)
            .bind(now_ms)
            .execute(&self.pool)
            .await?
            .rows_affected()
            > 0;
        if !done {
            return Ok(None);
        }
        self.bump_pins_version().await?;
        self.pin_by_id(id).await
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
        let rows = sqlx::query(
            "SELECT DISTINCT server_name, item_key FROM pins WHERE kind = 'tool' \
             AND server_name != $1 AND state IN ('approved', 'pending') \
             ORDER BY server_name, item_key",
        )
        .bind(name)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| (r.get("server_name"), r.get("item_key")))
            .collect())
    }

    /// A counter bumped by every approval or revocation: a running gateway compares it
    /// to notice decisions made by `mcp-bastion pins` in another process.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn pins_version(&self) -> Result<i64, StoreError> {
        let v: Option<i64> =
            sqlx::query_scalar("SELECT value FROM store_meta WHERE key = 'pins_version'")
                .fetch_optional(&self.pool)
                .await?;
        Ok(v.unwrap_or(0))
    }

    async fn bump_pins_version(&self) -> Result<(), StoreError> {
        sqlx::query("UPDATE store_meta SET value = value + 1 WHERE key = 'pins_version'")
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
