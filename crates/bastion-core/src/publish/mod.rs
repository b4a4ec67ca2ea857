//! Publisher-side reviews (issue 7): what a server publisher checks before releasing its
//! published surface.
//!
//! * [`server_json`]: a registry `server.json` (`mcp-bastion check server-json`).
//!
//! Pure like the rest of the core: callers read the files and pass values in.

pub mod package;
pub mod server_json;
pub mod shell;
pub mod versions;

pub use server_json::{ServerJsonError, check_server_json};
