//! Fuzz target bodies for MCP Bastion (issue 9 §1), one plain function per target.
//!
//! Each `fuzz_targets/<name>.rs` is a two-line libFuzzer wrapper around the function of
//! the same name in [`TARGETS`]; `tests/replay.rs` runs the same functions on stable over
//! the seeds ([`seeds`]), the committed regression inputs (`regressions/<name>/`) and
//! deterministic mutations of both, so CI needs no nightly toolchain.
//!
//! Every target asserts properties, not only "no panic": the strict parser agrees with
//! `serde_json` but for duplicates and depth, frames do not depend on read boundaries,
//! sanitized text is free of terminal controls and hidden characters and sanitizing is
//! idempotent, canonical JSON is a fixed point, URL normalization is idempotent, and
//! decisions are deterministic.

pub mod checks;
pub mod html_check;
pub mod mutate;
pub mod seeds;
mod targets;

pub use targets::{
    canonical_json, confirmation, contract, descriptor, elicitation, envelope, frame_reader,
    markdown, output_schema, result, sanitize_html, strict_json, terminal, url_gate,
};

/// A fuzz target body: any bytes in, a panic on a broken property.
pub type Target = fn(&[u8]);

/// Every target, by the name of its `fuzz_targets/<name>.rs` file.
pub const TARGETS: &[(&str, Target)] = &[
    ("frame_reader", frame_reader),
    ("strict_json", strict_json),
    ("envelope", envelope),
    ("descriptor", descriptor),
    ("terminal", terminal),
    ("sanitize_html", sanitize_html),
    ("markdown", markdown),
    ("result", result),
    ("output_schema", output_schema),
    ("url_gate", url_gate),
    ("canonical_json", canonical_json),
    ("elicitation", elicitation),
    ("confirmation", confirmation),
    ("contract", contract),
];
