//! Server → host descriptor lists (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`): run the detectors, withhold what they block or what is off
//! the active contract, pin what is left (trust on first use, review of changes), audit
//! each withheld or flagged item, and return the list sorted; plus the pins of the
//! server's `instructions` and the watcher that applies reviews made while the gateway
//! runs.

use super::boundary::{Debt, Owe, withhold};
use super::server::Inspected;
use super::{Ev, Relay, S2H, guarded_key};
use crate::pending::HostRequest;
use crate::pinning::{Decision, Pinning};
use bastion_core::detect::DescriptorKind;
use bastion_core::finding::{Code, Severity, Verdict};
use bastion_core::lists::{self, ListShape};
use bastion_core::uri;
use serde_json::Value;
use std::collections::HashSet;

impl Relay {
    /// A descriptor list: withhold what the detectors block (for the rest of the session),
    /// audit flagged and withheld items, return the sorted list.
    pub(super) async fn inspect_list(
        &self,
        req: &HostRequest,
        shape: ListShape,
        result: &Value,
    ) -> Inspected {
        // Until every review below is done, a panic withholds every item of the listing
        // for the session (`boundary`): none was checked.
        let mut review = Owe::new(Debt::Listing {
            member: shape.member,
            keys: listed_keys(shape, result),
        });
        let shadow = self.pinning.as_ref().map(|p| p.shadow_index());
        let outcome = lists::inspect_list_with(shape, result, shadow.as_deref());
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::list_review");
        {
            let mut st = self.state();
            withhold(&mut st, shape.member, outcome.withheld().map(str::to_owned));
            if shape.member == "tools" {
                let tools = result
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                for (tool, item) in tools.zip(&outcome.items) {
                    if item.verdict == Verdict::Block {
                        st.tools.remove(&item.key);
                        st.tool_pins.remove(&item.key);
                        st.tool_facts.remove(&item.key);
                    } else if st.tools.get(&item.key).is_none_or(|t| **t != *tool) {
                        st.tools
                            .insert(item.key.clone(), std::sync::Arc::new(tool.clone()));
                        st.tool_pins.remove(&item.key);
                        st.tool_facts.remove(&item.key);
                    }
                    match tool.get("outputSchema") {
                        Some(schema) if item.verdict != Verdict::Block => {
                            let unchanged = st
                                .output_schemas
                                .get(&item.key)
                                .is_some_and(|slot| slot.schema == *schema);
                            if !unchanged {
                                st.output_schemas.insert(
                                    item.key.clone(),
                                    super::SchemaSlot {
                                        schema: schema.clone(),
                                        compiled: None,
                                    },
                                );
                            }
                        }
                        _ => {
                            st.output_schemas.remove(&item.key);
                        }
                    }
                }
            }
        }
        for item in outcome.items.iter().filter(|i| i.verdict >= Verdict::Flag) {
            let reason = if item.verdict == Verdict::Block {
                Code::BlockedDescriptor.as_str()
            } else {
                "flagged_descriptor"
            };
            let shown = if shape.member.starts_with("resource") {
                uri::redacted(&item.key)
            } else {
                item.key.clone()
            };
            let ev = Ev::new(S2H, "descriptor", item.verdict, 0)
                .method(&req.method)
                .target(Some(&shown))
                .id(&req.raw_id)
                .reason(reason)
                .codes(&item.findings);
            self.audit.record(ev.0).await;
            if item.verdict == Verdict::Block {
                let codes: Vec<&str> = item
                    .findings
                    .iter()
                    .filter(|f| f.severity >= Severity::High)
                    .map(|f| f.code.as_str())
                    .collect();
                eprintln!(
                    "mcp-bastion[{}]: withheld {} {:?} ({})",
                    self.name,
                    shape.key,
                    shown,
                    codes.join(", ")
                );
            }
        }
        // Withholding items rewrites the list (sanitize); sorting alone does not.
        let mut verdict = match outcome.verdict() {
            Verdict::Block => Verdict::Sanitize,
            v => v,
        };
        let mut rewritten = outcome.rewritten;
        let bad_headers = self.header_review(req, shape, result, &outcome.items).await;
        if !bad_headers.is_empty() {
            let base = rewritten.take().unwrap_or_else(|| result.clone());
            rewritten = Some(without_keys(base, shape, &bad_headers));
            verdict = verdict.max(Verdict::Sanitize);
        }
        let off_contract = self
            .contract_review(req, shape, result, &outcome.items)
            .await;
        if !off_contract.is_empty() {
            let base = rewritten.take().unwrap_or_else(|| result.clone());
            rewritten = Some(without_keys(base, shape, &off_contract));
            verdict = verdict.max(Verdict::Sanitize);
        }
        if let Some(pinning) = &self.pinning {
            let listed: Vec<&Value> = result
                .get(shape.member)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .zip(&outcome.items)
                .filter(|(_, item)| {
                    item.verdict != Verdict::Block && !off_contract.contains(&item.key)
                })
                .map(|(d, _)| d)
                .collect();
            let complete = !req.continuation && result.get("nextCursor").is_none();
            let held = self
                .pin_review(req, pinning, shape, &listed, complete)
                .await;
            if !held.is_empty() {
                let base = rewritten.take().unwrap_or_else(|| result.clone());
                rewritten = Some(without_keys(base, shape, &held));
                verdict = verdict.max(Verdict::Sanitize);
            }
        }
        // Items withheld earlier in the session stay out of the list, clean or not now:
        // calls to them are refused (DESIGN §4, withheld items are not listed).
        let earlier: HashSet<String> = {
            let st = self.state();
            let withheld = st.withheld.get(shape.member);
            outcome
                .items
                .iter()
                .filter(|i| {
                    withheld.is_some_and(|w| w.contains(&guarded_key(shape.member, &i.key)))
                })
                .map(|i| i.key.clone())
                .collect()
        };
        if !earlier.is_empty() {
            let base = rewritten.take().unwrap_or_else(|| result.clone());
            rewritten = Some(without_keys(base, shape, &earlier));
            verdict = verdict.max(Verdict::Sanitize);
        }
        review.paid();
        let findings = outcome.items.into_iter().flat_map(|i| i.findings).collect();
        Inspected {
            rewritten,
            verdict,
            findings,
            removed: 0,
        }
    }
}

/// The keys (`name`, `uri` or `uriTemplate`) of the items of a listing, as listed.
fn listed_keys(shape: ListShape, result: &Value) -> Vec<String> {
    result
        .get(shape.member)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| item.get(shape.key).and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// `list` without the items whose key is in `keys`.
fn without_keys(mut list: Value, shape: ListShape, keys: &HashSet<String>) -> Value {
    if let Some(items) = list.get_mut(shape.member).and_then(Value::as_array_mut) {
        items.retain(|d| {
            d.get(shape.key)
                .and_then(Value::as_str)
                .is_none_or(|k| !keys.contains(k))
        });
    }
    list
}

/// The list member of a descriptor kind (`tools`, ...).
fn member_of(kind: DescriptorKind) -> &'static str {
    match kind {
        DescriptorKind::Tool => "tools",
        DescriptorKind::Prompt => "prompts",
        DescriptorKind::Resource => "resources",
        DescriptorKind::ResourceTemplate => "resourceTemplates",
        DescriptorKind::ServerInstructions => "instructions",
    }
}

impl Relay {
    /// Pins (or withholds) the descriptors of one listing; returns the keys withheld
    /// for review. A store failure withholds everything listed (fail closed).
    async fn pin_review(
        &self,
        req: &HostRequest,
        pinning: &Pinning,
        shape: ListShape,
        listed: &[&Value],
        complete: bool,
    ) -> HashSet<String> {
        let keys: Vec<String> = listed
            .iter()
            .filter_map(|d| d.get(shape.key).and_then(Value::as_str))
            .map(str::to_owned)
            .collect();
        let decisions = match pinning
            .review(shape.kind, listed, complete, crate::now_ms())
            .await
        {
            Ok(d) => d,
            Err(e) => {
                eprintln!(
                    "mcp-bastion[{}]: cannot read or write pins ({e}); withholding the listing",
                    self.name
                );
                keys.iter()
                    .map(|k| {
                        (
                            k.clone(),
                            Decision::Withhold {
                                why: super::PIN_STORE_UNAVAILABLE.into(),
                            },
                        )
                    })
                    .collect()
            }
        };
        let mut held = HashSet::new();
        {
            let mut st = self.state();
            let norm = |k: &str| guarded_key(shape.member, k);
            let shown = st.shown.entry(shape.member).or_default();
            if !req.continuation {
                shown.clear();
            }
            for (key, decision) in &decisions {
                let entry = st.pending_review.entry(shape.member).or_default();
                match decision {
                    Decision::Show => {
                        entry.remove(&norm(key));
                        st.shown
                            .entry(shape.member)
                            .or_default()
                            .insert(key.clone());
                    }
                    Decision::Withhold { .. } => {
                        entry.insert(norm(key));
                        held.insert(key.clone());
                    }
                }
                let unavailable = st.pin_unavailable.entry(shape.member).or_default();
                if matches!(decision, Decision::Withhold { why } if why == super::PIN_STORE_UNAVAILABLE)
                {
                    unavailable.insert(norm(key));
                } else {
                    unavailable.remove(&norm(key));
                }
            }
        }
        for (key, decision) in &decisions {
            if let Decision::Withhold { why } = decision {
                let shown = if shape.member.starts_with("resource") {
                    uri::redacted(key)
                } else {
                    key.clone()
                };
                let ev = Ev::new(S2H, "descriptor", Verdict::Block, 0)
                    .method(&req.method)
                    .target(Some(&shown))
                    .id(&req.raw_id);
                if why == super::PIN_STORE_UNAVAILABLE {
                    // Reported once for the listing above; the audit names each item.
                    self.audit.record(ev.reason(why).0).await;
                    continue;
                }
                let ev = ev.reason("pending_review").code(Code::DescriptorChanged);
                self.audit.record(ev.0).await;
                eprintln!(
                    "mcp-bastion[{}]: withheld {} {shown:?} for review ({why}); see `mcp-bastion pins list --server {}`",
                    self.name, shape.key, self.name
                );
            }
        }
        held
    }

    /// Pins the server instructions of an `initialize`/`server/discover` result and, for
    /// a legacy-era host, advertises `listChanged` so approvals can reach it without a
    /// restart. Returns the rewritten result when anything changed.
    pub(super) async fn pin_instructions(
        &self,
        req: &HostRequest,
        result: &Value,
    ) -> Option<Value> {
        let pinning = self.pinning.as_ref()?;
        let mut out = result.clone();
        let mut changed = false;
        if req.method == "initialize" {
            self.state().notify_list_changed = true;
            if let Some(caps) = out.get_mut("capabilities").and_then(Value::as_object_mut) {
                for member in ["tools", "prompts", "resources"] {
                    if let Some(Value::Object(cap)) = caps.get_mut(member)
                        && cap.get("listChanged") != Some(&Value::Bool(true))
                    {
                        cap.insert("listChanged".into(), Value::Bool(true));
                        changed = true;
                    }
                }
            }
        }
        if let Some(instructions) = result.get("instructions") {
            let decisions = pinning
                .review(
                    DescriptorKind::ServerInstructions,
                    &[instructions],
                    true,
                    crate::now_ms(),
                )
                .await
                .unwrap_or_default();
            if decisions
                .values()
                .any(|d| matches!(d, Decision::Withhold { .. }))
            {
                if let Some(obj) = out.as_object_mut() {
                    obj.shift_remove("instructions");
                }
                changed = true;
                eprintln!(
                    "mcp-bastion[{}]: withheld the server's instructions for review (they changed since approved)",
                    self.name
                );
            }
        }
        changed.then_some(out)
    }

    /// Applies approvals and revocations made while running (by `mcp-bastion pins` in
    /// another process): withheld items that are now approved are released, shown items
    /// that were revoked are withheld, and a legacy-era host is told to re-list.
    pub(crate) async fn watch_pins(&self) {
        let Some(pinning) = self.pinning.clone() else {
            return;
        };
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            if !matches!(pinning.refresh().await, Ok(true)) {
                continue;
            }
            let mut changed: Vec<&'static str> = Vec::new();
            let notify = {
                let mut st = self.state();
                for kind in [
                    DescriptorKind::Tool,
                    DescriptorKind::Prompt,
                    DescriptorKind::Resource,
                    DescriptorKind::ResourceTemplate,
                ] {
                    let member = member_of(kind);
                    let before = st.pending_review.get(member).map_or(0, HashSet::len);
                    if let Some(set) = st.pending_review.get_mut(member) {
                        set.retain(|k| {
                            pinning.state(kind, k) != Some(bastion_store::PinState::Approved)
                        });
                    }
                    let revoked: Vec<String> = st
                        .shown
                        .get(member)
                        .into_iter()
                        .flatten()
                        .filter(|k| {
                            pinning.state(kind, k) == Some(bastion_store::PinState::Revoked)
                        })
                        .cloned()
                        .collect();
                    let set = st.pending_review.entry(member).or_default();
                    for k in revoked {
                        set.insert(if member == "resources" {
                            uri::resource_key(&k)
                        } else {
                            k
                        });
                    }
                    if st.pending_review.get(member).map_or(0, HashSet::len) != before {
                        changed.push(member);
                    }
                }
                st.notify_list_changed
            };
            if notify {
                for member in changed {
                    let note = format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/{member}/list_changed"}}"#
                    );
                    let note = if member == "resourceTemplates" {
                        note.replace("resourceTemplates", "resources")
                    } else {
                        note
                    };
                    self.to_host.send(note.into_bytes()).await;
                }
            }
        }
    }
}
