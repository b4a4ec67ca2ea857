//! The source manifest (`mcp-bastion-contract/1`): what a publisher writes and reviews in
//! version control (issue 7 §1). Member names of published descriptor fields are the MCP
//! ones (`inputSchema`, `outputSchema`, `mimeType`, `uriTemplate`, `_meta`, MCP
//! specification 2025-11-25, Server Features → Tools / Prompts / Resources); governance
//! fields that a server never publishes are `snake_case` (`risk_tier`, `side_effects`,
//! `read_only`, `destructive`, `requires_human_approval`). Unknown members are refused, so
//! a misspelt governance field cannot silently fall out of review.

use super::cache::CachePolicy;
use super::hash::EntryKind;
use super::ui::UiResource;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `format` value of a source manifest.
pub const SOURCE_FORMAT: &str = "mcp-bastion-contract/1";

/// A whole source manifest. JSON: `{"format": "mcp-bastion-contract/1", "server_id",
/// "contract_version": 3, "protocol_version": "2025-11-25", "owner", "tools": [...],
/// "prompts": [...], "resources": [...], "resource_templates": [...], "ui_resources":
/// [...], "cache"?: {...}}` (see `docs/contract.md`, `docs/contract.schema.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceManifest {
    /// Always [`SOURCE_FORMAT`].
    pub format: String,
    /// The server this contract describes: 1–200 characters of `[A-Za-z0-9._/-]`, starting
    /// with a letter or digit (a registry name such as `io.example/payments` fits). Rollback
    /// protection is per server id.
    pub server_id: String,
    /// Contract version: an integer ≥ 1 that the publisher raises with every release.
    /// Integers rather than semver so "older than the last accepted" has one meaning; a
    /// verifier refuses a version below the last one it accepted for `server_id`.
    pub contract_version: u64,
    /// MCP protocol version the descriptors are published under (`YYYY-MM-DD`, e.g.
    /// `2025-11-25`, `2026-07-28`).
    pub protocol_version: String,
    /// Team or person accountable for the contract (free text, non-empty).
    pub owner: String,
    /// Tools, as published by `tools/list` plus their governance fields.
    #[serde(default)]
    pub tools: Vec<ToolEntry>,
    /// Prompts, as published by `prompts/list`.
    #[serde(default)]
    pub prompts: Vec<PromptEntry>,
    /// Resources, as published by `resources/list`.
    #[serde(default)]
    pub resources: Vec<ResourceEntry>,
    /// Resource templates, as published by `resources/templates/list`.
    #[serde(default)]
    pub resource_templates: Vec<ResourceTemplateEntry>,
    /// MCP Apps UI resources (`ui://`), issue 7 §6.
    #[serde(default)]
    pub ui_resources: Vec<UiResource>,
    /// Cache hints for 2026-07-28 cacheable results (`ttlMs`, `cacheScope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CachePolicy>,
}

/// How much harm a tool can do, as reviewed: the confirmation policy's tier scale
/// (`low` < `medium` < `high` < `critical`; a raised tier is an escalation in
/// `contract diff`).
pub use crate::confirm::RiskTier;

/// One tool. The published part (`name`, `title`, `description`, `inputSchema`,
/// `outputSchema`, `annotations`, `icons`, `execution`, `_meta`) is exactly what
/// `tools/list` must return for it ([`ContractEntry::published`]); the rest is governance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolEntry {
    /// Tool name: `[A-Za-z][A-Za-z0-9_.-]{0,127}`, unique among tools.
    pub name: String,
    /// Optional display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The model-visible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; root `type: object` with `additionalProperties: false`.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`, when the tool returns structured output.
    #[serde(
        rename = "outputSchema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub output_schema: Option<Value>,
    /// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`, `title`); `readOnlyHint` and `destructiveHint` must agree with
    /// `read_only` and `destructive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Map<String, Value>>,
    /// Published `icons`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// Published `execution` (task support), verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    /// Published `_meta` (e.g. `_meta.ui.resourceUri` of MCP Apps), verbatim.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Reviewed risk tier.
    pub risk_tier: RiskTier,
    /// Side effects in words (`"creates a payment refund"`); empty when the tool has none.
    #[serde(default)]
    pub side_effects: Vec<String>,
    /// The tool only reads.
    pub read_only: bool,
    /// The tool can destroy or irreversibly change data.
    pub destructive: bool,
    /// A person must confirm each call.
    pub requires_human_approval: bool,
}

/// One prompt argument as `prompts/list` publishes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptArgument {
    /// Argument name.
    pub name: String,
    /// Optional display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Model-visible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The argument must be supplied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// One prompt: published fields only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptEntry {
    /// Prompt name: `[A-Za-z][A-Za-z0-9_.-]{0,127}`, unique among prompts.
    pub name: String,
    /// Optional display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Model-visible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Published `icons`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// Published `_meta`, verbatim.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// One resource: published fields only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceEntry {
    /// Resource URI, unique among resources.
    pub uri: String,
    /// Display name.
    pub name: String,
    /// Optional display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Model-visible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, when published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Published `annotations` (`audience`, `priority`, `lastModified`), verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Published `icons`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// Published `_meta` (e.g. `_meta.ui` of an MCP Apps resource), verbatim.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// One resource template: published fields only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceTemplateEntry {
    /// RFC 6570 URI template, unique among templates.
    #[serde(rename = "uriTemplate")]
    pub uri_template: String,
    /// Display name.
    pub name: String,
    /// Optional display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Model-visible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of the resources it yields.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Published `annotations`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Published `icons`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Value>,
    /// Published `_meta`, verbatim.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A kind of contract entry: how to name it and which of its members are published.
pub trait ContractEntry: Serialize {
    /// The entry kind.
    const KIND: EntryKind;
    /// Members the server never publishes (removed by [`ContractEntry::published`]).
    const GOVERNANCE: &'static [&'static str] = &[];

    /// The entry's key: name, URI or URI template.
    fn key(&self) -> &str;

    /// The descriptor exactly as the server must publish it: the entry serialized, its
    /// governance members removed.
    fn published(&self) -> Value {
        // Serializing these plain structs (strings, bools, integers, Values) cannot fail.
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            for name in Self::GOVERNANCE {
                map.shift_remove(*name);
            }
        }
        value
    }
}

impl ContractEntry for ToolEntry {
    const KIND: EntryKind = EntryKind::Tool;
    const GOVERNANCE: &'static [&'static str] = &[
        "risk_tier",
        "side_effects",
        "read_only",
        "destructive",
        "requires_human_approval",
    ];
    fn key(&self) -> &str {
        &self.name
    }
}

impl ContractEntry for PromptEntry {
    const KIND: EntryKind = EntryKind::Prompt;
    fn key(&self) -> &str {
        &self.name
    }
}

impl ContractEntry for ResourceEntry {
    const KIND: EntryKind = EntryKind::Resource;
    fn key(&self) -> &str {
        &self.uri
    }
}

impl ContractEntry for ResourceTemplateEntry {
    const KIND: EntryKind = EntryKind::ResourceTemplate;
    fn key(&self) -> &str {
        &self.uri_template
    }
}
