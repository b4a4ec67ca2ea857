//! Descriptor pinning, the pure part (issue 3 §1–§4): canonical hashes, identities,
//! change classification, readable diffs and launch-config drift. No I/O: the store keeps
//! the pins, the gateway decides what to withhold; this module only computes.
//!
//! - [`canonical_json`] / [`descriptor_hash`]: RFC 8785 (JCS) canonical JSON of a whole
//!   descriptor and its SHA-256, the value a pin stores.
//! - [`DescriptorKey`] (kind + name/uri/uriTemplate) and [`ServerIdentity`] (server name +
//!   hash of the launch config, env values digested).
//! - [`compare`]: pinned vs current items → [`Change`] (`new`, `unchanged`, `changed`,
//!   `renamed`, `removed`).
//! - [`diff`]: field-level [`Diff`] with highlights and escalations, rendered for people
//!   ([`Diff::render`]) or serialized for `--json`.
//! - [`drift`]: launch-config changes as `descriptor_changed` findings.
//! - [`check_drift`]: `mcp-bastion check drift` on the corpus `rug_pull` shapes.

mod canonical;
mod check;
mod compare;
mod diff;
mod drift;
mod highlights;
mod identity;

#[cfg(test)]
mod tests;

pub use canonical::{
    CanonicalError, MAX_CANONICAL_DEPTH, canonical_json, descriptor_hash, sha256_hex,
};
pub use check::{DriftInputError, check_drift};
pub use compare::{Change, CurrentItem, PinError, PinnedItem, compare};
pub use diff::{Diff, DiffEntry, EntryChange, Highlight, HighlightKind, diff};
pub use drift::{LOADER_VARIABLES, drift, drift_fingerprints, is_loader_variable};
pub use identity::{
    DescriptorKey, KeyError, LaunchConfig, LaunchFingerprint, ServerIdentity, body_hash,
    env_digest, key_member, kind_name,
};
