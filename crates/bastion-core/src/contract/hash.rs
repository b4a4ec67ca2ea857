//! Per-entry contract hashes (issue 7 §1–§2).
//!
//! Two SHA-256 digests per entry, each over RFC 8785 (JCS) canonical JSON
//! ([`crate::pins::canonical_json`]), written as 64 lowercase hex digits:
//!
//! - `contract_hash`: over the entry's *published* descriptor, every member the server
//!   must publish for it and nothing else ([`ContractEntry::published`]). A live
//!   descriptor from `tools/list`, `prompts/list`, `resources/list` or
//!   `resources/templates/list` hashes into the same value with [`live_contract_hash`],
//!   so a gateway compares live and signed by equality. Member order and insignificant
//!   whitespace do not matter; any other difference, including an extra or missing member,
//!   does. This equals the descriptor pin of issue 3 ([`crate::pins::descriptor_hash`]).
//! - `review_hash`: over the whole source entry, governance included (`risk_tier`,
//!   `side_effects`, `read_only`, `destructive`, `requires_human_approval`), so a change
//!   of reviewed meaning that the server never publishes still changes a hash.
//!
//! A UI resource has no descriptor of its own in a list (its `ui://` resource is listed
//! under `resources`): both of its hashes are over the declaration.

use super::source::{ContractEntry, SourceManifest};
use super::ui::UiResource;
use crate::pins::{CanonicalError, canonical_json, sha256_hex};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of a contract entry. Stable `snake_case` names in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A tool (key: `name`).
    Tool,
    /// A prompt (key: `name`).
    Prompt,
    /// A resource (key: `uri`).
    Resource,
    /// A resource template (key: `uriTemplate`).
    ResourceTemplate,
    /// A UI resource declaration (key: `uri`).
    UiResource,
}

impl EntryKind {
    /// Stable `snake_case` name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
            Self::ResourceTemplate => "resource_template",
            Self::UiResource => "ui_resource",
        }
    }

    /// The member that identifies a descriptor of this kind (`name`, `uri`,
    /// `uriTemplate`).
    pub const fn key_member(self) -> &'static str {
        match self {
            Self::Tool | Self::Prompt => "name",
            Self::Resource | Self::UiResource => "uri",
            Self::ResourceTemplate => "uriTemplate",
        }
    }

    /// The list method that publishes descriptors of this kind (`None` for UI
    /// declarations, which are listed as resources).
    pub const fn list_method(self) -> Option<&'static str> {
        match self {
            Self::Tool => Some("tools/list"),
            Self::Prompt => Some("prompts/list"),
            Self::Resource => Some("resources/list"),
            Self::ResourceTemplate => Some("resources/templates/list"),
            Self::UiResource => None,
        }
    }
}

/// The hashes of one entry. JSON: `{"kind": "tool", "key": "refund_payment",
/// "contract_hash": "<64 hex>", "review_hash": "<64 hex>"}`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryHash {
    /// Entry kind.
    pub kind: EntryKind,
    /// Entry key (name, URI or URI template).
    pub key: String,
    /// SHA-256 of the canonical published descriptor (see the module docs).
    pub contract_hash: String,
    /// SHA-256 of the canonical whole entry, governance included.
    pub review_hash: String,
}

fn hash_value(value: &Value) -> Result<String, CanonicalError> {
    canonical_json(value).map(|text| sha256_hex(text.as_bytes()))
}

fn hash_serialized<T: Serialize>(entry: &T) -> Result<String, CanonicalError> {
    let value =
        serde_json::to_value(entry).map_err(|e| CanonicalError::Serializer(e.to_string()))?;
    hash_value(&value)
}

/// The contract hash of a live descriptor as a server publishes it (one element of
/// `tools`, `prompts`, `resources` or `resourceTemplates` of a list result): SHA-256 of
/// its RFC 8785 canonical JSON, 64 lowercase hex. Equal to the `contract_hash` of the
/// manifest entry it should match exactly when the two are the same JSON value.
///
/// # Errors
/// [`CanonicalError`] when the value has no canonical form (too deep, non-finite number).
pub fn live_contract_hash(descriptor: &Value) -> Result<String, CanonicalError> {
    hash_value(descriptor)
}

/// The key of a live descriptor of `kind` (its `name`, `uri` or `uriTemplate` string).
pub fn live_key(kind: EntryKind, descriptor: &Value) -> Option<&str> {
    descriptor.get(kind.key_member()).and_then(Value::as_str)
}

/// Hashes of one tool, prompt, resource or resource template entry.
///
/// # Errors
/// [`CanonicalError`] when a schema or other value has no canonical form.
pub fn entry_hash<E: ContractEntry>(entry: &E) -> Result<EntryHash, CanonicalError> {
    Ok(EntryHash {
        kind: E::KIND,
        key: entry.key().to_owned(),
        contract_hash: hash_value(&entry.published())?,
        review_hash: hash_serialized(entry)?,
    })
}

/// Hashes of one UI resource declaration (both over the declaration).
///
/// # Errors
/// As [`entry_hash`].
pub fn ui_hash(ui: &UiResource) -> Result<EntryHash, CanonicalError> {
    let whole = hash_serialized(ui)?;
    Ok(EntryHash {
        kind: EntryKind::UiResource,
        key: ui.uri.clone(),
        contract_hash: whole.clone(),
        review_hash: whole,
    })
}

/// Hashes of every entry of `source`, sorted by kind (tools, prompts, resources,
/// templates, UI resources) and then by key: the `entries` of a reviewed manifest.
///
/// # Errors
/// [`CanonicalError`] when an entry has no canonical form.
pub fn entry_hashes(source: &SourceManifest) -> Result<Vec<EntryHash>, CanonicalError> {
    let mut out = Vec::new();
    for t in &source.tools {
        out.push(entry_hash(t)?);
    }
    for p in &source.prompts {
        out.push(entry_hash(p)?);
    }
    for r in &source.resources {
        out.push(entry_hash(r)?);
    }
    for t in &source.resource_templates {
        out.push(entry_hash(t)?);
    }
    for u in &source.ui_resources {
        out.push(ui_hash(u)?);
    }
    out.sort();
    Ok(out)
}
