//! Consumer enforcement of a signed contract (issue 7 item 8, `wrap --contract`): what a
//! live server lists must hash to the contract's entries (seed AID-H-034.004-G001
//! "compares live server/discover and list results with the signed manifest").
//!
//! [`ContractIndex`] holds the `contract_hash` of every tool, prompt, resource and
//! resource template of a reviewed manifest, after recomputing them all
//! ([`crate::contract::check_reviewed`]): an index is never built from hashes that do
//! not match their entries. Verifying the manifest's signature is the caller's part (the
//! CLI runs `contract verify` first); this module then judges each live descriptor:
//!
//! | live descriptor | [`LiveMatch`] | the gateway |
//! |---|---|---|
//! | same JSON value as the entry of its kind and key | `Match` | shows it |
//! | key not in the contract | `Extra` | withholds it, refuses calls (`contract_mismatch`) |
//! | key in the contract, different value | `Different` | withholds it, refuses calls (`contract_mismatch`) |
//! | no canonical form (too deep, non-finite number) | `Unhashable` | withholds it |
//!
//! Entries the server did not list in a complete listing are [`ContractIndex::missing`]
//! (reported, not fatal: the host simply does not see them).

use crate::contract::{EntryKind, ReviewedManifest, check_reviewed, live_contract_hash, live_key};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// How a live descriptor compares with the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveMatch {
    /// It is the signed entry.
    Match,
    /// The contract has no entry of this kind and key.
    Extra,
    /// The contract's entry of this kind and key has another hash.
    Different,
    /// It has no canonical form, so it cannot be compared.
    Unhashable,
}

impl LiveMatch {
    /// `true` for [`LiveMatch::Match`].
    pub const fn is_match(self) -> bool {
        matches!(self, Self::Match)
    }

    /// One phrase for messages: `extra`, `different`, `unhashable`, `signed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Match => "signed",
            Self::Extra => "not in the signed contract",
            Self::Different => "different from the signed contract",
            Self::Unhashable => "not comparable with the signed contract",
        }
    }
}

/// Why a reviewed manifest cannot be enforced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnforceError {
    /// A recorded hash does not match its entry (or an entry is omitted or extra).
    #[error(
        "the reviewed contract does not match its own entries ({0}); rebuild it with `mcp-bastion contract build` and sign it again"
    )]
    Inconsistent(String),
}

/// The signed entries of one contract, by kind and key.
#[derive(Debug, Clone, Default)]
pub struct ContractIndex {
    /// `server_id` of the manifest.
    pub server_id: String,
    /// `contract_version` of the manifest.
    pub contract_version: u64,
    hashes: HashMap<EntryKind, HashMap<String, String>>,
}

impl ContractIndex {
    /// Indexes `manifest` after recomputing every hash.
    ///
    /// # Errors
    /// [`EnforceError::Inconsistent`] when any recorded hash, entry or field disagrees
    /// with the source (the first few problems are named).
    pub fn from_reviewed(manifest: &ReviewedManifest) -> Result<Self, EnforceError> {
        let problems =
            check_reviewed(manifest).map_err(|e| EnforceError::Inconsistent(e.to_string()))?;
        if !problems.is_empty() {
            let shown: Vec<String> = problems.iter().take(3).map(ToString::to_string).collect();
            return Err(EnforceError::Inconsistent(shown.join("; ")));
        }
        let mut hashes: HashMap<EntryKind, HashMap<String, String>> = HashMap::new();
        for e in &manifest.entries {
            if e.kind.list_method().is_some() {
                hashes
                    .entry(e.kind)
                    .or_default()
                    .insert(e.key.clone(), e.contract_hash.clone());
            }
        }
        Ok(Self {
            server_id: manifest.source.server_id.clone(),
            contract_version: manifest.source.contract_version,
            hashes,
        })
    }

    /// The entry kind published under list member `member` (`tools`, `prompts`,
    /// `resources`, `resourceTemplates`).
    pub fn kind_of_member(member: &str) -> Option<EntryKind> {
        match member {
            "tools" => Some(EntryKind::Tool),
            "prompts" => Some(EntryKind::Prompt),
            "resources" => Some(EntryKind::Resource),
            "resourceTemplates" => Some(EntryKind::ResourceTemplate),
            _ => None,
        }
    }

    /// The contract's keys of `kind` (no order).
    pub fn keys(&self, kind: EntryKind) -> impl Iterator<Item = &str> {
        self.hashes
            .get(&kind)
            .into_iter()
            .flat_map(HashMap::keys)
            .map(String::as_str)
    }

    /// Whether the contract has an entry of `kind` named `key`.
    pub fn contains(&self, kind: EntryKind, key: &str) -> bool {
        self.hashes.get(&kind).is_some_and(|m| m.contains_key(key))
    }

    /// Judges one live descriptor of `kind`.
    pub fn judge(&self, kind: EntryKind, descriptor: &Value) -> LiveMatch {
        let Some(key) = live_key(kind, descriptor) else {
            return LiveMatch::Extra;
        };
        let Some(signed) = self.hashes.get(&kind).and_then(|m| m.get(key)) else {
            return LiveMatch::Extra;
        };
        match live_contract_hash(descriptor) {
            Ok(h) if h == *signed => LiveMatch::Match,
            Ok(_) => LiveMatch::Different,
            Err(_) => LiveMatch::Unhashable,
        }
    }

    /// The contract's keys of `kind` that are not among `listed` (sorted).
    pub fn missing<'a>(&'a self, kind: EntryKind, listed: &BTreeSet<String>) -> Vec<&'a str> {
        let mut out: Vec<&str> = self
            .hashes
            .get(&kind)
            .into_iter()
            .flat_map(HashMap::keys)
            .filter(|k| !listed.contains(*k))
            .map(String::as_str)
            .collect();
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::parse_reviewed;

    fn reviewed() -> ReviewedManifest {
        let bytes = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/contract/notes.reviewed.json"),
        )
        .unwrap();
        parse_reviewed(&bytes).unwrap()
    }

    #[test]
    fn live_descriptors_are_judged_against_the_entries() {
        let m = reviewed();
        let index = ContractIndex::from_reviewed(&m).unwrap();
        let tool = crate::contract::ContractEntry::published(&m.source.tools[0]);
        assert_eq!(index.judge(EntryKind::Tool, &tool), LiveMatch::Match);
        // Member order does not matter (RFC 8785).
        let mut reordered = serde_json::Map::new();
        for (k, v) in tool.as_object().unwrap().iter().rev() {
            reordered.insert(k.clone(), v.clone());
        }
        assert_eq!(
            index.judge(EntryKind::Tool, &Value::Object(reordered)),
            LiveMatch::Match
        );
        let mut changed = tool.clone();
        changed["description"] = Value::String("Also deletes everything.".into());
        assert_eq!(index.judge(EntryKind::Tool, &changed), LiveMatch::Different);
        let mut extra = tool.clone();
        extra["name"] = Value::String("exfiltrate".into());
        assert_eq!(index.judge(EntryKind::Tool, &extra), LiveMatch::Extra);
        assert_eq!(index.judge(EntryKind::Prompt, &tool), LiveMatch::Extra);
        let listed: BTreeSet<String> = [m.source.tools[0].name.clone()].into();
        assert_eq!(
            index.missing(EntryKind::Tool, &listed),
            vec![m.source.tools[1].name.as_str()]
        );
    }

    #[test]
    fn a_tampered_manifest_is_not_indexed() {
        let mut m = reviewed();
        m.source.tools[0].description = Some("Reads and also sends the note.".into());
        let err = ContractIndex::from_reviewed(&m).unwrap_err();
        assert!(err.to_string().contains("contract_hash"), "{err}");
    }
}
