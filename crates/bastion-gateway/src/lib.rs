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
pub mod oauth;
mod pending;
pub mod pinning;
mod relay;
pub mod scan;
pub mod serve;
mod server_process;
mod sse;
pub mod stdio;
mod tally;
mod upstream;
pub mod wrap;

pub use audit::AuditSink;
pub use pinning::PinMode;
pub use relay::{ElicitSetup, PublishSetup};
pub use wrap::{
    EarlyServer, PinningSetup, RemoteServer, WrapConfig, launch_config, wrap, wrap_early,
};

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
    /// A server was started before its launch check ([`wrap::EarlyServer`]) under a
    /// configuration whose check can refuse it (strict pinning, no pinning, a remote
    /// server): it was killed. A bug in the caller.
    #[error(
        "a server may start before its launch check only under tofu pinning of a local server; it was stopped"
    )]
    EarlyStart,
}

/// Starts building what ordinary traffic needs (`bastion_core::warm_up_common`: the
/// anchor automaton, the parameter-name patterns, the sanitizers; some 25 ms of CPU) on
/// a thread of its own, once per process; later calls return at once.
///
/// A gateway calls this first thing, before it opens the store and starts the server, so
/// the building overlaps with both and a benign server's first `tools/list` does not
/// wait for it. The phrase patterns only instruction-like text reaches are built when a
/// message first needs one (1–11 ms each, once per process), so a gateway that never
/// sees such text does not hold them (about 5 MiB).
///
/// Nothing waits for the thread as a whole: a message that arrives earlier builds the
/// parts it needs itself, or waits only for a part the thread is building at that moment
/// (each part is built once per process). When no thread can be started, every part is
/// built on first use.
pub fn start_warm_up() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        drop(
            std::thread::Builder::new()
                .name("bastion-warm-up".into())
                .spawn(bastion_core::warm_up_common),
        );
    });
}

/// Unix time now, milliseconds (the core never reads the clock; the edge does).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `N` random bytes from the OS (`/dev/urandom`). Should that fail, bytes derived from
/// `RandomState` seeds (also OS-seeded) and the clock are used.
pub(crate) fn os_random<const N: usize>() -> [u8; N] {
    use std::hash::{BuildHasher, Hasher};
    use std::io::Read;
    let mut bytes = [0u8; N];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(now_ms().unsigned_abs());
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes
}

/// The id of this gateway process in the audit log (column `instance`, issue 8 item 5):
/// `<host>-<pid>-<8 hex random>`, fixed for the life of the process, so the events of
/// several gateways sharing one `PostgreSQL` store stay apart even when pids repeat
/// across hosts or restarts.
///
/// `<host>` is `MCP_BASTION_INSTANCE` when set (an operator-chosen name; then the whole
/// id is that value), else the kernel's host name (`/proc/sys/kernel/hostname`, falling
/// back to `HOSTNAME`, then `host`), reduced to `[A-Za-z0-9.-]`, at most 64 characters.
pub fn instance_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        if let Some(id) = std::env::var("MCP_BASTION_INSTANCE")
            .ok()
            .map(|v| clean_host(&v))
            .filter(|v| !v.is_empty())
        {
            return id;
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|h| clean_host(&h))
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "host".to_owned());
        format!(
            "{host}-{}-{}",
            std::process::id(),
            hex::encode(os_random::<4>())
        )
    })
}

/// `s` without surrounding whitespace, keeping only `[A-Za-z0-9.-]`, at most 64 chars.
fn clean_host(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        .take(64)
        .collect()
}

#[cfg(test)]
mod instance_tests {
    use super::*;

    #[test]
    fn instance_id_is_stable_and_shaped() {
        let id = instance_id();
        assert_eq!(id, instance_id());
        if std::env::var_os("MCP_BASTION_INSTANCE").is_none() {
            let pid = format!("-{}-", std::process::id());
            assert!(id.contains(&pid), "{id}");
            let random = id.rsplit('-').next().unwrap();
            assert_eq!(random.len(), 8, "{id}");
        }
        assert!(
            id.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-')),
            "{id}"
        );
    }

    #[test]
    fn host_names_are_reduced_to_a_safe_alphabet() {
        assert_eq!(clean_host(" web-1.example\n"), "web-1.example");
        assert_eq!(clean_host("a\u{1b}[31mb c"), "a31mbc");
        assert_eq!(clean_host(&"x".repeat(100)).len(), 64);
    }
}
