//! Publisher-side reviews (issue 7): what a server publisher checks before releasing its
//! published surface.
//!
//! * [`server_json`]: a registry `server.json` (`mcp-bastion check server-json`).
//! * [`ui_resources`]: MCP Apps `ui://` resources declared in a contract source manifest
//!   (`mcp-bastion check ui-resources`, `contract build`), with the content-file rules in
//!   [`ui_content`] and the `check` entry point in [`ui_check`].
//!
//! * [`enforce`]: a signed contract's entries as the gateway enforces them
//!   (`wrap --contract`), and [`cache_hints`]: the contract's `ttlMs`/`cacheScope` on
//!   2026-07-28 results (`publish`).
//!
//! Pure like the rest of the core: callers read the files and pass values in.

pub mod cache_hints;
pub mod enforce;
pub mod package;
pub mod server_json;
pub mod shell;
pub mod ui_check;
pub mod ui_content;
pub mod ui_policy;
pub mod ui_resources;
pub mod versions;

pub use cache_hints::{apply_cache_hint, cache_hint};
pub use enforce::{ContractIndex, EnforceError, LiveMatch};
pub use server_json::{ServerJsonError, check_server_json};
pub use ui_check::{UiInputError, check_ui_input, fill_ui_content};
pub use ui_resources::{
    DEFAULT_MAX_UI_BYTES, SENSITIVE_PERMISSIONS, UiFileFacts, UiPolicy, UiPolicyError,
    canonical_origin, check_ui_resources, content_path_problem,
};

/// A `high` finding (the publisher reviews refuse what they report).
pub(crate) fn high(code: crate::Code, path: &str, message: String) -> crate::Finding {
    crate::Finding::new(code, crate::Severity::High, path, message)
}
