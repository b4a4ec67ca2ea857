//! The reviewed manifest (`mcp-bastion-contract-reviewed/1`): the source manifest plus
//! what `contract build` derives from it (issue 7 §2). JSON:
//!
//! ```json
//! {"format": "mcp-bastion-contract-reviewed/1",
//!  "source": { ...the source manifest... },
//!  "source_sha256": "<64 hex: SHA-256 of the source file's exact bytes>",
//!  "handler_commit": "<40 or 64 lowercase hex: the reviewed handler revision>",
//!  "built_at": 1767225600,
//!  "entries": [{"kind": "tool", "key": "…", "contract_hash": "…", "review_hash": "…"}]}
//! ```
//!
//! `built_at` is Unix seconds, passed in by the caller. `entries` is sorted by kind, then
//! key ([`super::entry_hashes`]). The manifest's own identity, which signatures and
//! approvals bind, is [`manifest_sha256`].

use super::error::ContractError;
use super::hash::{EntryHash, EntryKind, entry_hashes};
use super::source::{SOURCE_FORMAT, SourceManifest};
use crate::json::parse_value;
use crate::pins::{MAX_CANONICAL_DEPTH, canonical_json, sha256_hex};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// The `format` value of a reviewed manifest.
pub const REVIEWED_FORMAT: &str = "mcp-bastion-contract-reviewed/1";

/// Deepest JSON nesting a contract artifact may have (schemas nest; the top-level object
/// is depth 1). 127 is the deepest `serde_json`, under the strict parser, reads at all
/// (its recursion limit refuses a 128th nested container).
pub const MAX_ARTIFACT_DEPTH: usize = 127;

// Every parsed artifact canonicalizes.
const _: () = assert!(MAX_ARTIFACT_DEPTH < MAX_CANONICAL_DEPTH);

/// A reviewed manifest (see the module docs for the JSON shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewedManifest {
    /// Always [`REVIEWED_FORMAT`].
    pub format: String,
    /// The source manifest.
    pub source: SourceManifest,
    /// SHA-256 of the source file's exact bytes, 64 lowercase hex.
    pub source_sha256: String,
    /// The handler revision reviewed with this contract: 40 (SHA-1) or 64 (SHA-256)
    /// lowercase hex digits, as `git rev-parse HEAD` prints.
    pub handler_commit: String,
    /// When it was built, Unix seconds.
    pub built_at: u64,
    /// Per-entry hashes, sorted by kind then key.
    pub entries: Vec<EntryHash>,
}

/// Strictly parses `bytes` (UTF-8, no duplicate members, depth ≤ [`MAX_ARTIFACT_DEPTH`])
/// and checks its `format` member before deserializing into `T`.
pub(crate) fn parse_artifact<T: DeserializeOwned>(
    bytes: &[u8],
    what: &'static str,
    expected: &'static str,
) -> Result<(T, Value), ContractError> {
    parse_artifact_within(bytes, what, expected, MAX_ARTIFACT_DEPTH)
}

/// [`parse_artifact`] with nesting deeper than `max_depth` refused.
fn parse_artifact_within<T: DeserializeOwned>(
    bytes: &[u8],
    what: &'static str,
    expected: &'static str,
    max_depth: usize,
) -> Result<(T, Value), ContractError> {
    let value =
        parse_value(bytes, max_depth).map_err(|source| ContractError::Json { what, source })?;
    if let Some(at) = imprecise_number(&value, String::new()) {
        return Err(ContractError::Shape {
            what,
            detail: format!(
                "the number at {at:?} is an integer beyond ±2^53, which RFC 8785 canonical JSON (IEEE 754 binary64) cannot carry exactly: two different values would share one hash and one signature"
            ),
        });
    }
    let found = value.get("format").and_then(Value::as_str);
    if found != Some(expected) {
        return Err(ContractError::Format {
            what,
            expected,
            found: found.map(str::to_owned),
        });
    }
    let typed = serde_json::from_value(value.clone()).map_err(|e| ContractError::Shape {
        what,
        detail: e.to_string(),
    })?;
    Ok((typed, value))
}

/// The JSON Pointer of the first number in `value` that binary64 cannot hold exactly
/// (an integer beyond ±2^53, RFC 8259 §6), if any.
fn imprecise_number(value: &Value, at: String) -> Option<String> {
    const LIMIT: u64 = 1 << 53;
    match value {
        Value::Number(n) => {
            let beyond = match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => u > LIMIT,
                (None, Some(i)) => i.unsigned_abs() > LIMIT,
                (None, None) => n
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() > 9_007_199_254_740_992.0),
            };
            beyond.then_some(at)
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(i, v)| {
            imprecise_number(v, crate::finding::pointer_push(&at, &i.to_string()))
        }),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| imprecise_number(v, crate::finding::pointer_push(&at, k))),
        _ => None,
    }
}

/// Reads a source manifest. Its nesting may be at most [`MAX_ARTIFACT_DEPTH`] − 1: the
/// reviewed manifest built from it holds it one level deeper (its `source` member), and
/// must itself stay within [`MAX_ARTIFACT_DEPTH`] to be signed and verified.
///
/// # Errors
/// [`ContractError::Json`] (also for nesting deeper than that), [`ContractError::Format`]
/// (not `mcp-bastion-contract/1`), [`ContractError::Shape`] (missing, unknown or
/// mistyped member).
pub fn parse_source(bytes: &[u8]) -> Result<SourceManifest, ContractError> {
    parse_artifact_within(
        bytes,
        "source manifest",
        SOURCE_FORMAT,
        MAX_ARTIFACT_DEPTH - 1,
    )
    .map(|(s, _)| s)
}

/// Reads a reviewed manifest.
///
/// # Errors
/// As [`parse_source`], for `mcp-bastion-contract-reviewed/1`.
pub fn parse_reviewed(bytes: &[u8]) -> Result<ReviewedManifest, ContractError> {
    parse_artifact(bytes, "reviewed manifest", REVIEWED_FORMAT).map(|(r, _)| r)
}

/// The identity of a reviewed manifest that signatures, approvals and activations bind:
/// SHA-256 (64 lowercase hex) of the RFC 8785 canonical form of the strictly parsed
/// bytes. The file is read once and both the manifest and this hash derive from those
/// bytes; member order and whitespace do not change it, any value does, and bytes a
/// strict parser refuses (duplicate members, invalid UTF-8, lone surrogates) have none.
///
/// # Errors
/// As [`parse_reviewed`], and [`ContractError::Canonical`].
pub fn manifest_sha256(bytes: &[u8]) -> Result<String, ContractError> {
    let what = "reviewed manifest";
    let (_, value): (ReviewedManifest, Value) = parse_artifact(bytes, what, REVIEWED_FORMAT)?;
    manifest_hash_of(&value, what)
}

/// SHA-256 of the canonical form of an already parsed artifact.
pub(crate) fn manifest_hash_of(value: &Value, what: &'static str) -> Result<String, ContractError> {
    let text = canonical_json(value).map_err(|source| ContractError::Canonical { what, source })?;
    Ok(sha256_hex(text.as_bytes()))
}

/// `true` for 40 or 64 lowercase hex digits (a git object id).
pub fn is_commit_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Derives the reviewed manifest of `source` (parsed from `source_bytes`). Invariants are
/// not checked here: `contract build` runs [`super::check_invariants`] first.
///
/// # Errors
/// [`ContractError::Invalid`] for a `handler_commit` that is not 40/64 lowercase hex;
/// [`ContractError::Canonical`] when an entry has no canonical form.
pub fn reviewed_manifest(
    source: SourceManifest,
    source_bytes: &[u8],
    handler_commit: &str,
    built_at: u64,
) -> Result<ReviewedManifest, ContractError> {
    if !is_commit_id(handler_commit) {
        return Err(ContractError::Invalid {
            what: "handler commit",
            detail: format!(
                "{handler_commit:?} is not a git commit id (40 or 64 lowercase hex digits)"
            ),
        });
    }
    let entries = entry_hashes(&source).map_err(|source| ContractError::Canonical {
        what: "source manifest",
        source,
    })?;
    Ok(ReviewedManifest {
        format: REVIEWED_FORMAT.to_owned(),
        source,
        source_sha256: sha256_hex(source_bytes),
        handler_commit: handler_commit.to_owned(),
        built_at,
        entries,
    })
}

/// The bytes `contract build` writes: pretty JSON with a final newline.
pub fn reviewed_bytes(manifest: &ReviewedManifest) -> Vec<u8> {
    // A ReviewedManifest holds only strings, integers, bools and Values: serializing
    // cannot fail.
    let mut out = serde_json::to_vec_pretty(manifest).unwrap_or_default();
    out.push(b'\n');
    out
}

/// One way a reviewed manifest disagrees with its own source (`contract check`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Mismatch {
    /// A recorded hash differs from the recomputed one: the entry was edited after build.
    HashMismatch {
        /// Entry kind.
        kind: EntryKind,
        /// Entry key.
        key: String,
        /// `contract_hash` or `review_hash`.
        field: &'static str,
        /// What the manifest records.
        recorded: String,
        /// What the source entry hashes to.
        computed: String,
    },
    /// An entry in the source has no recorded hash (omitted).
    Unrecorded {
        /// Entry kind.
        kind: EntryKind,
        /// Entry key.
        key: String,
    },
    /// A recorded hash names no entry in the source (extra).
    NotInSource {
        /// Entry kind.
        kind: EntryKind,
        /// Entry key.
        key: String,
    },
    /// The same kind and key occur twice (in the source or in the recorded entries).
    Duplicate {
        /// Entry kind.
        kind: EntryKind,
        /// Entry key.
        key: String,
    },
    /// `entries` is not sorted by kind then key.
    Unsorted,
    /// `handler_commit` is not 40/64 lowercase hex, or `source_sha256` not 64 hex.
    BadField {
        /// Member name.
        field: &'static str,
        /// Its value.
        value: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::HashMismatch {
                kind,
                key,
                field,
                recorded,
                computed,
            } => write!(
                f,
                "{} `{key}`: {field} is {recorded} in the manifest but the entry hashes to {computed}; the entry was changed after `contract build`",
                kind.as_str()
            ),
            Self::Unrecorded { kind, key } => write!(
                f,
                "{} `{key}` is in the source but has no recorded hash (entry omitted from `entries`)",
                kind.as_str()
            ),
            Self::NotInSource { kind, key } => write!(
                f,
                "`entries` records {} `{key}`, which is not in the source (extra entry)",
                kind.as_str()
            ),
            Self::Duplicate { kind, key } => {
                write!(f, "{} `{key}` occurs more than once", kind.as_str())
            }
            Self::Unsorted => f.write_str("`entries` is not sorted by kind, then key"),
            Self::BadField { field, value } => {
                write!(f, "`{field}` has an invalid value {value:?}")
            }
        }
    }
}

type Key = (EntryKind, String);

fn index(list: &[EntryHash], out: &mut Vec<Mismatch>) -> BTreeMap<Key, EntryHash> {
    let mut map = BTreeMap::new();
    for e in list {
        let key = (e.kind, e.key.clone());
        if map.insert(key, e.clone()).is_some() {
            out.push(Mismatch::Duplicate {
                kind: e.kind,
                key: e.key.clone(),
            });
        }
    }
    map
}

/// Recomputes every hash of `manifest` and compares it with what is recorded (`contract
/// check`). Empty when everything matches.
///
/// # Errors
/// [`ContractError::Canonical`] when an entry has no canonical form.
pub fn check_reviewed(manifest: &ReviewedManifest) -> Result<Vec<Mismatch>, ContractError> {
    let mut out = Vec::new();
    if !is_commit_id(&manifest.handler_commit) {
        out.push(Mismatch::BadField {
            field: "handler_commit",
            value: manifest.handler_commit.clone(),
        });
    }
    let sha = &manifest.source_sha256;
    if sha.len() != 64 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        out.push(Mismatch::BadField {
            field: "source_sha256",
            value: sha.clone(),
        });
    }
    let computed = entry_hashes(&manifest.source).map_err(|source| ContractError::Canonical {
        what: "reviewed manifest",
        source,
    })?;
    let mut sorted = manifest.entries.clone();
    sorted.sort();
    if sorted != manifest.entries {
        out.push(Mismatch::Unsorted);
    }
    let computed = index(&computed, &mut out);
    let recorded = index(&manifest.entries, &mut out);
    for ((kind, key), c) in &computed {
        match recorded.get(&(*kind, key.clone())) {
            None => out.push(Mismatch::Unrecorded {
                kind: *kind,
                key: key.clone(),
            }),
            Some(r) => {
                for (field, rec, comp) in [
                    ("contract_hash", &r.contract_hash, &c.contract_hash),
                    ("review_hash", &r.review_hash, &c.review_hash),
                ] {
                    if rec != comp {
                        out.push(Mismatch::HashMismatch {
                            kind: *kind,
                            key: key.clone(),
                            field,
                            recorded: rec.clone(),
                            computed: comp.clone(),
                        });
                    }
                }
            }
        }
    }
    for (kind, key) in recorded.keys() {
        if !computed.contains_key(&(*kind, key.clone())) {
            out.push(Mismatch::NotInSource {
                kind: *kind,
                key: key.clone(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_beyond_2_pow_53_are_refused() {
        let ok = br#"{"format": "mcp-bastion-contract/1", "n": 9007199254740992}"#;
        assert!(imprecise_number(&parse_value(ok, 16).unwrap(), String::new()).is_none());
        for bad in [
            &br#"{"format": "mcp-bastion-contract/1", "contract_version": 9007199254740993}"#[..],
            br#"{"format": "mcp-bastion-contract/1", "a": [1, {"b": -9007199254740993}]}"#,
            br#"{"format": "mcp-bastion-contract/1", "c": 1e300}"#,
        ] {
            let err = parse_source(bad).unwrap_err();
            assert!(err.to_string().contains("beyond ±2^53"), "{err}");
        }
    }

    /// A source whose nesting is `depth` levels: a tool whose input schema nests
    /// `properties`/`a` objects down to that depth.
    fn source_nested_to(depth: usize) -> Vec<u8> {
        // Levels 1-4: the source, `tools`, the tool, `inputSchema`. Each
        // `{"properties": {"a": ...}}` around the schema adds two levels, a `default`
        // object in the innermost one adds one.
        let extra = depth - 4;
        let mut schema = if extra % 2 == 1 {
            json!({"type": "object", "default": {}})
        } else {
            json!({"type": "object"})
        };
        for _ in 0..extra / 2 {
            schema = json!({"type": "object", "properties": {"a": schema}});
        }
        let source = json!({
            "format": crate::contract::SOURCE_FORMAT, "server_id": "io.example/deep",
            "contract_version": 1, "protocol_version": "2025-11-25", "owner": "o",
            "tools": [{"name": "deep", "description": "d", "inputSchema": schema,
                       "risk_tier": "low", "side_effects": [], "read_only": true,
                       "destructive": false, "requires_human_approval": false}],
        });
        serde_json::to_vec(&source).unwrap()
    }

    #[test]
    fn a_source_may_nest_only_as_deep_as_its_reviewed_manifest_can_be_read() {
        let commit = "0".repeat(40);
        let fits = source_nested_to(MAX_ARTIFACT_DEPTH - 1);
        let source = parse_source(&fits).unwrap();
        let reviewed = reviewed_manifest(source, &fits, &commit, 1).unwrap();
        let bytes = reviewed_bytes(&reviewed);
        assert_eq!(parse_reviewed(&bytes).unwrap(), reviewed);
        // One level more would build a reviewed manifest that nothing could read, sign or
        // verify: the source is refused instead.
        let deep = source_nested_to(MAX_ARTIFACT_DEPTH);
        assert!(parse_value(&deep, MAX_ARTIFACT_DEPTH).is_ok());
        // Nothing deeper reads at all, whatever the limit asked for.
        let deeper = source_nested_to(MAX_ARTIFACT_DEPTH + 1);
        assert!(parse_value(&deeper, 1000).is_err());
        let err = parse_source(&deep).unwrap_err();
        assert!(matches!(err, ContractError::Json { .. }), "{err}");
    }
}
