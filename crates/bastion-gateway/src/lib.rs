//! # bastion-gateway
//!
//! The I/O edge of MCP Bastion: a tokio stdio gateway (`wrap`) that spawns an untrusted
//! MCP server without a shell, relays both directions concurrently through the pure
//! inspection pipeline of `bastion-core`, and audits every decision to
//! `bastion-store`; the one-shot client behind `scan`; and the SSRF-safe HTTP client
//! ([`fetch::SafeFetcher`]) for every URL Bastion itself fetches.
//!
//! The gateway decides nothing itself: every verdict comes from the core. It owns
//! processes, pipes, timers, request correlation and back-pressure.

pub mod audit;
pub mod child;
pub mod confirm;
pub mod fetch;
mod io;
mod pending;
pub mod pinning;
mod relay;
pub mod scan;
pub mod serve;
pub mod stdio;
pub mod wrap;

pub use audit::AuditSink;
pub use pinning::PinMode;
pub use relay::{ElicitSetup, PublishSetup};
pub use wrap::{PinningSetup, WrapConfig, launch_config, wrap};

/// Errors that stop the gateway (as opposed to refused messages, which are values and
/// keep it running).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GatewayError {
    /// The server command is empty.
    #[error("no server command given: use `mcp-bastion wrap --name NAME -- COMMAND [ARGS...]`")]
    NoCommand,
    /// The server could not be started.
    #[error("cannot start server command `{command}` (is it installed and on PATH?)")]
    Spawn {
        /// The program.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error on the gateway's own pipes.
    #[error("gateway I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The server did not complete the handshake or a listing (scan).
    #[error("server did not answer as an MCP server: {0}")]
    Protocol(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] bastion_store::StoreError),
    /// Strict pinning: the server's launch config is new, changed or revoked.
    #[error(
        "the launch config of server `{name}` is not approved ({why}); review it with `mcp-bastion pins diff {pin_id}` and approve it with `mcp-bastion pins approve {pin_id}`"
    )]
    LaunchNotApproved {
        /// Server name.
        name: String,
        /// Pin row to review.
        pin_id: i64,
        /// What changed, one sentence per finding.
        why: String,
    },
}

/// Unix time now, milliseconds (the core never reads the clock; the edge does).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
