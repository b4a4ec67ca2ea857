//! # bastion-core
//!
//! The pure security core of MCP Bastion: everything that decides, nothing that does I/O.
//!
//! What it owns (DESIGN §2): newline framing with enforced limits ([`frame`]), a strict
//! JSON parser ([`json`]), JSON-RPC 2.0 envelope checks ([`envelope`]), era and method
//! classification ([`era`], [`methods`]), hidden-Unicode detection ([`unicode`]),
//! terminal/text/HTML/markdown sanitizers ([`sanitize`]), descriptor detectors
//! ([`detect`]), result inspection ([`result`]), the URL gate ([`url_gate`]), the HTTP
//! listener gate ([`http_gate`]), elicitation mediation ([`elicit`]), publisher reviews
//! ([`publish`]) and the `check` entry points ([`check`]).
//!
//! What it does not do: read files, sockets or processes, spawn anything, or read the
//! clock. Time, when needed, is passed in by the caller.

pub mod check;
pub mod confirm;
pub mod contract;
pub mod detect;
pub mod elicit;
pub mod envelope;
pub mod era;
pub mod finding;
pub mod frame;
pub mod http_gate;
pub mod json;
pub mod limits;
pub mod lists;
pub mod methods;
pub mod pins;
pub mod publish;
pub mod result;
pub mod sanitize;
pub mod schema;
pub mod unicode;
pub mod uri;
pub mod uri_template;
pub mod url_gate;

pub use finding::{Code, Finding, Report, Severity, Verdict};
pub use limits::Limits;

/// Which way a message travels through the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the MCP host (client) to the wrapped server.
    HostToServer,
    /// From the wrapped server to the MCP host.
    ServerToHost,
}

impl Direction {
    /// Stable name used in the audit log: `host_to_server` / `server_to_host`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::HostToServer => "host_to_server",
            Self::ServerToHost => "server_to_host",
        }
    }
}

/// Builds every lazily compiled detector and sanitizer (anchor automata, regexes, the HTML
/// policy, Unicode data) now: some 60–90 ms of CPU and about 10 MiB of memory.
/// Idempotent; pure (no I/O). A gateway calls [`warm_up_common`] instead.
pub fn warm_up() {
    warm_up_common();
    detect::warm_up();
}

/// Builds what ordinary traffic needs (the anchor automaton, folding, the parameter-name
/// patterns, the sanitizers: about a third of [`warm_up`]'s CPU and half its memory), so
/// that a benign server's first `tools/list` and results do not pay for it. The phrase
/// patterns that only instruction-like text reaches are left to be built when a message
/// first needs one (each takes 1–11 ms, once per process): a gateway that never sees
/// such text never holds them. Idempotent; pure (no I/O).
pub fn warm_up_common() {
    detect::warm_up_plain_descriptors();
    warm_up_sanitizers();
}

/// The sanitizer part of [`warm_up`] (HTML and markdown sanitizers, terminal parser), so
/// a caller can build it on another thread than the detectors.
pub fn warm_up_sanitizers() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(warm_up_sanitizers_now);
}

fn warm_up_sanitizers_now() {
    let policy = sanitize::ContentPolicy::default();
    let html = "<p onclick=\"x()\">Hi <img src=\"https://t.example/p.gif?d=1\"> \u{202e}</p>";
    let _ = sanitize::sanitize_markup(html, Some("text/html"), &policy, "");
    let md =
        "See [docs](https://a.example/?token=abcdef0123456789) and ![i](https://b.example/x.png)";
    let _ = sanitize::sanitize_markup(md, None, &policy, "");
    let _ = sanitize::sanitize_text("\u{1b}[2Jx\u{200b}\u{e0041}");
}
