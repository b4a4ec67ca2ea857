//! `wrap --contract`: the live server's listings must be the signed contract's entries
//! (issue 7 item 8). The core judges ([`bastion_core::publish::ContractIndex`]); this
//! module withholds what does not match (reason `contract_mismatch`), refuses calls to
//! anything outside the contract, and reports signed entries a complete listing lacks
//! (audit reason `contract_missing`, and stderr).

use super::{Ev, Relay, S2H, State, guarded_key};
use crate::pending::HostRequest;
use bastion_core::contract::EntryKind;
use bastion_core::finding::Verdict;
use bastion_core::lists::{ItemOutcome, ListShape};
use bastion_core::publish::{ContractIndex, LiveMatch};
use bastion_core::uri;
use bastion_core::uri_template::UriTemplate;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Refusal reason for descriptors and calls outside the signed contract.
pub(crate) const CONTRACT_MISMATCH: &str = "contract_mismatch";

/// The contract as the relay guards calls with it.
#[derive(Debug)]
pub(crate) struct ContractGuard {
    index: Arc<ContractIndex>,
    /// Contract resource URIs as [`uri::resource_key`]s.
    resources: HashSet<String>,
    /// The contract's resource templates, compiled strictly ([`UriTemplate`]); templates
    /// that cannot be compiled (no literal scheme) cover nothing.
    templates: Vec<UriTemplate>,
    /// Keys listed but withheld for not matching, per list member (resources as
    /// resource keys), as of the latest listing.
    held: HashMap<&'static str, HashSet<String>>,
    /// Keys seen in the current (possibly paginated) listing, per list member.
    seen: HashMap<&'static str, BTreeSet<String>>,
}

impl ContractGuard {
    pub(crate) fn new(index: Arc<ContractIndex>) -> Self {
        let resources = index
            .keys(EntryKind::Resource)
            .map(uri::resource_key)
            .collect();
        let templates = index
            .keys(EntryKind::ResourceTemplate)
            .filter_map(|t| UriTemplate::new(t).ok())
            .collect();
        Self {
            index,
            resources,
            templates,
            held: HashMap::new(),
            seen: HashMap::new(),
        }
    }

    /// Whether a request to `key` (a resource key for `resources`) under list `list` is
    /// outside the contract: not a contract entry (for resources: no contract resource
    /// and no contract template it may instantiate), or listed in a form that did not
    /// match.
    ///
    /// `raw` is the target as the host sent it: a resource must instantiate a template
    /// both as sent (what the server receives) and as its key.
    pub(crate) fn refuses(&self, list: &str, key: &str, raw: &str) -> bool {
        if self.held.get(list).is_some_and(|h| h.contains(key)) {
            return true;
        }
        match list {
            "tools" => !self.index.contains(EntryKind::Tool, key),
            "prompts" => !self.index.contains(EntryKind::Prompt, key),
            "resources" => {
                !self.resources.contains(key)
                    && !self
                        .templates
                        .iter()
                        .any(|t| t.matches(raw) && t.matches(key))
            }
            _ => false,
        }
    }
}

/// A listed item judged against the contract.
struct Judged {
    key: String,
    outcome: LiveMatch,
}

impl Relay {
    /// Judges one listing page against the contract; returns the keys to withhold.
    /// Items the detectors already withheld are left to them.
    pub(super) async fn contract_review(
        &self,
        req: &HostRequest,
        shape: ListShape,
        result: &Value,
        items: &[ItemOutcome],
    ) -> HashSet<String> {
        let Some(kind) = ContractIndex::kind_of_member(shape.member) else {
            return HashSet::new();
        };
        let listed = result
            .get(shape.member)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let (judged, missing, contract) = {
            let mut st = self.state();
            let Some(guard) = st.contract.as_mut() else {
                return HashSet::new();
            };
            let mut judged = Vec::new();
            let norm = |k: &str| guarded_key(shape.member, k);
            let held = guard.held.entry(shape.member).or_default();
            if !req.continuation {
                held.clear();
            }
            for (descriptor, item) in listed.iter().zip(items) {
                if item.verdict == Verdict::Block {
                    continue;
                }
                let outcome = guard.index.judge(kind, descriptor);
                if !outcome.is_match() {
                    held.insert(norm(&item.key));
                    judged.push(Judged {
                        key: item.key.clone(),
                        outcome,
                    });
                }
            }
            let seen = guard.seen.entry(shape.member).or_default();
            if !req.continuation {
                seen.clear();
            }
            seen.extend(items.iter().map(|i| i.key.clone()));
            let missing: Vec<String> = if result.get("nextCursor").is_none() {
                guard
                    .index
                    .missing(kind, seen)
                    .into_iter()
                    .map(str::to_owned)
                    .collect()
            } else {
                Vec::new()
            };
            let contract = format!(
                "{} v{}",
                guard.index.server_id, guard.index.contract_version
            );
            (judged, missing, contract)
        };
        let noun = match shape.member {
            "tools" => "tool",
            "prompts" => "prompt",
            "resources" => "resource",
            _ => "resource template",
        };
        let shown = |key: &str| {
            if shape.member.starts_with("resource") {
                uri::redacted(key)
            } else {
                key.to_owned()
            }
        };
        for j in &judged {
            let ev = Ev::new(S2H, "descriptor", Verdict::Block, 0)
                .method(&req.method)
                .target(Some(&shown(&j.key)))
                .id(&req.raw_id)
                .reason(CONTRACT_MISMATCH);
            self.audit.record(ev.0).await;
            let hint = if j.outcome == LiveMatch::Different {
                "; the server publishes it with other members than the signed entry (write the live form with `mcp-bastion contract from-server` and `contract diff` it against the signed source)"
            } else {
                ""
            };
            eprintln!(
                "mcp-bastion[{}]: withheld {noun} {:?}: {} ({contract}){hint}",
                self.name,
                shown(&j.key),
                j.outcome.as_str()
            );
        }
        for key in &missing {
            let ev = Ev::new(S2H, "descriptor", Verdict::Flag, 0)
                .method(&req.method)
                .target(Some(&shown(key)))
                .id(&req.raw_id)
                .reason("contract_missing");
            self.audit.record(ev.0).await;
            eprintln!(
                "mcp-bastion[{}]: the server does not list the signed {noun} {:?} ({contract})",
                self.name,
                shown(key)
            );
        }
        judged.into_iter().map(|j| j.key).collect()
    }
}

impl State {
    /// `contract_mismatch` when a contract is enforced and `key` of `list` is outside it.
    pub(super) fn contract_refuses(&self, list: &str, key: &str, raw: &str) -> bool {
        self.contract
            .as_ref()
            .is_some_and(|g| g.refuses(list, key, raw))
    }
}
