//! Who is pinned: descriptor keys within a server, and the server's own identity.

use super::canonical::{CanonicalError, descriptor_hash, sha256_hex};
use crate::detect::DescriptorKind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;

/// The stable name of a descriptor kind, as in JSON (`tool`, `prompt`, `resource`,
/// `resource_template`, `server_instructions`).
pub const fn kind_name(kind: DescriptorKind) -> &'static str {
    match kind {
        DescriptorKind::Tool => "tool",
        DescriptorKind::Prompt => "prompt",
        DescriptorKind::Resource => "resource",
        DescriptorKind::ResourceTemplate => "resource_template",
        DescriptorKind::ServerInstructions => "server_instructions",
    }
}

/// The member that names a descriptor of `kind` within its list (MCP schema): `name` for
/// tools and prompts, `uri` for resources, `uriTemplate` for resource templates; `None` for
/// server instructions (one per server, key [`DescriptorKey::INSTRUCTIONS`]).
pub const fn key_member(kind: DescriptorKind) -> Option<&'static str> {
    match kind {
        DescriptorKind::Tool | DescriptorKind::Prompt => Some("name"),
        DescriptorKind::Resource => Some("uri"),
        DescriptorKind::ResourceTemplate => Some("uriTemplate"),
        DescriptorKind::ServerInstructions => None,
    }
}

/// Why a descriptor has no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key member is missing or not a string.
    #[error("{} has no string `{member}`", kind_name(*kind))]
    MissingKey {
        /// The descriptor kind.
        kind: DescriptorKind,
        /// The member that should name it (`name`, `uri`, `uriTemplate`).
        member: &'static str,
    },
    /// Server instructions are not a JSON string.
    #[error("server instructions are not a JSON string")]
    InstructionsNotString,
}

/// Identifies one descriptor within one server: its kind plus its name (tools, prompts),
/// `uri` (resources) or `uriTemplate` (resource templates); server instructions use the
/// fixed key [`DescriptorKey::INSTRUCTIONS`].
///
/// JSON: `{"kind": "tool", "key": "get_invoice"}`. Ordered by kind (declaration order of
/// [`kind_name`]'s list), then key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DescriptorKey {
    /// What kind of descriptor.
    pub kind: DescriptorKind,
    /// Its name, `uri` or `uriTemplate`.
    pub key: String,
}

impl DescriptorKey {
    /// The key of a server's `instructions` (one per server).
    pub const INSTRUCTIONS: &'static str = "instructions";

    /// Builds a key.
    pub fn new(kind: DescriptorKind, key: impl Into<String>) -> Self {
        Self {
            kind,
            key: key.into(),
        }
    }

    /// The key of `descriptor` as published (for server instructions, the JSON string).
    ///
    /// # Errors
    /// [`KeyError::MissingKey`] when the key member is absent or not a string,
    /// [`KeyError::InstructionsNotString`] for instructions that are not a string.
    pub fn of(kind: DescriptorKind, descriptor: &Value) -> Result<Self, KeyError> {
        match key_member(kind) {
            Some(member) => descriptor
                .get(member)
                .and_then(Value::as_str)
                .map(|k| Self::new(kind, k))
                .ok_or(KeyError::MissingKey { kind, member }),
            None if descriptor.is_string() => Ok(Self::new(kind, Self::INSTRUCTIONS)),
            None => Err(KeyError::InstructionsNotString),
        }
    }

    fn rank(&self) -> u8 {
        match self.kind {
            DescriptorKind::Tool => 0,
            DescriptorKind::Prompt => 1,
            DescriptorKind::Resource => 2,
            DescriptorKind::ResourceTemplate => 3,
            DescriptorKind::ServerInstructions => 4,
        }
    }
}

impl PartialOrd for DescriptorKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DescriptorKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.rank(), &self.key).cmp(&(other.rank(), &other.key))
    }
}

impl fmt::Display for DescriptorKey {
    /// `tool "get_invoice"` (key escaped for display).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = match self.kind {
            DescriptorKind::Tool => "tool",
            DescriptorKind::Prompt => "prompt",
            DescriptorKind::Resource => "resource",
            DescriptorKind::ResourceTemplate => "resource template",
            DescriptorKind::ServerInstructions => return f.write_str("server instructions"),
        };
        write!(
            f,
            "{noun} `{}`",
            crate::unicode::escape_for_display(&self.key)
        )
    }
}

/// SHA-256 of the canonical JSON of `descriptor` without its key member (`name`, `uri`,
/// `uriTemplate`): equal for a descriptor republished under another name. For server
/// instructions, the same as [`descriptor_hash`].
///
/// # Errors
/// As [`descriptor_hash`].
pub fn body_hash(kind: DescriptorKind, descriptor: &Value) -> Result<String, CanonicalError> {
    match (key_member(kind), descriptor) {
        (Some(member), Value::Object(map)) if map.contains_key(member) => {
            let body: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| k.as_str() != member)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            descriptor_hash(&Value::Object(body))
        }
        _ => descriptor_hash(descriptor),
    }
}

/// How a server was launched, as a host config's `mcpServers` entry has it (corpus
/// `rug_pull` shape): `{"name", "command", "args": [...], "env": {NAME: value}}` for a
/// stdio server, `{"name", "url"}` for a remote one. `env` values may be secrets: they are
/// hashed ([`LaunchConfig::fingerprint`]) and never shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchConfig {
    /// The server name (`--name`, the `mcpServers` key).
    #[serde(default)]
    pub name: String,
    /// Program to run (stdio servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments, in order.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables set for it (name → value).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Streamable HTTP endpoint (remote servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl LaunchConfig {
    /// The pinned form: same command, args and URL, env values replaced by
    /// [`env_digest`]s.
    pub fn fingerprint(&self) -> LaunchFingerprint {
        LaunchFingerprint {
            command: self.command.clone(),
            args: self.args.clone(),
            env: self
                .env
                .iter()
                .map(|(k, v)| (k.clone(), env_digest(v)))
                .collect(),
            url: self.url.clone(),
        }
    }
}

/// SHA-256 (lowercase hex) of an environment value's UTF-8 bytes. A digest of a
/// low-entropy value (`1`, `true`, a short password) can be guessed by trying values, so
/// stores should treat digests as sensitive, not as public.
pub fn env_digest(value: &str) -> String {
    sha256_hex(value.as_bytes())
}

/// A launch config without its name and with env values digested ([`env_digest`]): what
/// the store keeps per server and what [`super::drift_fingerprints`] compares.
///
/// JSON: `{"command", "args", "env": {NAME: "<sha256 hex>"}}` for stdio servers,
/// `{"url"}` for remote ones (see [`LaunchFingerprint::to_value`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchFingerprint {
    /// Program to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Env names → value digests.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Remote endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl LaunchFingerprint {
    /// The JSON that is hashed: `{"url"}` for a remote server without a command,
    /// otherwise `{"command", "args", "env"}` (plus `"url"` when both are set).
    pub fn to_value(&self) -> Value {
        if let (None, Some(url)) = (&self.command, &self.url) {
            return json!({ "url": url });
        }
        let mut v = json!({
            "command": self.command.clone().unwrap_or_default(),
            "args": self.args,
            "env": self.env,
        });
        if let Some(url) = &self.url {
            v["url"] = Value::String(url.clone());
        }
        v
    }

    /// SHA-256 of the canonical JSON of [`LaunchFingerprint::to_value`].
    ///
    /// # Errors
    /// None in practice (the value is strings only); typed as [`descriptor_hash`].
    pub fn hash(&self) -> Result<String, CanonicalError> {
        descriptor_hash(&self.to_value())
    }
}

/// The identity pins are stored under (issue 3 §1): the server's name plus the hash of
/// its launch config ([`LaunchFingerprint::hash`]). Env values are hashed, never stored in
/// clear. JSON: `{"name": "mail", "launch_hash": "<64 hex>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ServerIdentity {
    /// The server name (`--name`).
    pub name: String,
    /// SHA-256 (lowercase hex) of the canonical launch fingerprint.
    pub launch_hash: String,
}

impl ServerIdentity {
    /// The identity of a server launched with `config`.
    ///
    /// # Errors
    /// None in practice; typed as [`descriptor_hash`].
    pub fn of(config: &LaunchConfig) -> Result<Self, CanonicalError> {
        Self::from_fingerprint(&config.name, &config.fingerprint())
    }

    /// The identity of server `name` from a stored fingerprint.
    ///
    /// # Errors
    /// None in practice; typed as [`descriptor_hash`].
    pub fn from_fingerprint(
        name: &str,
        fingerprint: &LaunchFingerprint,
    ) -> Result<Self, CanonicalError> {
        Ok(Self {
            name: name.to_owned(),
            launch_hash: fingerprint.hash()?,
        })
    }
}
