//! Tool-call confirmation in the relay (issue 5 §1–§5): decide with the core policy,
//! honour grants, ask through the configured channels (the host's own UI through
//! `elicitation/create`, then the terminal), verify the digest right before forwarding,
//! fail closed, and record every decision.
//!
//! A call that needs asking is held (not pending at the server) while a task waits for
//! the answer, so the relay keeps serving other traffic, including the host's answer to
//! Bastion's own `elicitation/create`. Bastion's requests to the host carry ids
//! `mcp-bastion-<nonce>-<n>`; server requests using that prefix are refused so a server
//! cannot collect the user's answer to one of them.

use super::boundary::Debt;
use super::{Ev, Relay, audit_target};
use crate::confirm::{ConfirmSetup, TtyError, ask_on_tty};
use bastion_core::confirm::{
    Action, Answer, Binding, Channel, ConfirmationRequest, Decision, DenyReason, DigestCheck,
    Fallback, HistoryEntry, Remember, ToolCall, ToolFacts, apply_grant, decide_with,
};
use bastion_core::envelope::{Id, codes};
use bastion_core::era::Era;
use bastion_core::finding::Verdict;
use bastion_core::json;
use bastion_core::json::Member;
use bastion_core::pins::ServerIdentity;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Prefix of the ids of requests Bastion itself sends to the host.
pub(crate) const OWN_ID_PREFIX: &str = "mcp-bastion-";
/// Earlier calls kept for toxic-flow detection, per session.
const HISTORY: usize = 64;
/// The oldest calls leave the history this many at a time: dropping one per call shifted
/// the whole history on every call (about 1,600 instructions per call). Decisions read
/// only the newest [`HISTORY`] entries.
const HISTORY_SLACK: usize = 16;

/// A `tools/call` waiting for a decision.
pub(super) struct HeldCall {
    /// The -32042 requirement this call is the one retry of.
    pub(super) requirement: Option<String>,
    pub(super) frame: Vec<u8>,
    pub(super) id: Id,
    pub(super) raw_id: Value,
    pub(super) params: Value,
    pub(super) shown: Option<String>,
}

impl HeldCall {
    /// A `gateway` audit event about this call (method `tools/call`, its tool, id and
    /// the frame's size in bytes) with `verdict` and `reason`.
    pub(super) fn event(&self, verdict: Verdict, reason: &str) -> Ev {
        Ev::new("gateway", "request", verdict, self.frame.len())
            .method("tools/call")
            .target(audit_target("tools/call", self.shown.as_deref()).as_deref())
            .id(&self.raw_id)
            .reason(reason)
    }
}

/// How the answer came about, for the decision record.
pub(super) struct Outcome {
    pub(super) approved: bool,
    pub(super) channel: &'static str,
    pub(super) answer: String,
    pub(super) remember: Remember,
}

impl Outcome {
    fn denied(channel: &'static str, answer: impl Into<String>) -> Self {
        Self {
            approved: false,
            channel,
            answer: answer.into(),
            remember: Remember::Once,
        }
    }
}

/// Whether an `initialize` request's capabilities let Bastion ask through form-mode
/// elicitation (MCP 2025-11-25 "Elicitation §Capabilities": `{}` means form only).
pub(super) fn host_allows_form_elicitation(params: Option<&Value>) -> bool {
    match params.and_then(|p| p.pointer("/capabilities/elicitation")) {
        Some(Value::Object(modes)) => modes.is_empty() || modes.has_member("form"),
        _ => false,
    }
}

pub(super) fn identity_of(relay: &Relay) -> ServerIdentity {
    let launch_hash = relay
        .pinning
        .as_ref()
        .and_then(|p| p.identity().rsplit_once(':').map(|(_, h)| h.to_owned()))
        .unwrap_or_default();
    ServerIdentity {
        name: relay.name.clone(),
        launch_hash,
    }
}

pub(super) fn identity_text(identity: &ServerIdentity) -> String {
    format!("{}:{}", identity.name, identity.launch_hash)
}

impl Relay {
    /// Decides a held `tools/call` and, when it must ask, asks on a task of its own.
    pub(super) async fn confirm_call(self: &Arc<Self>, setup: &ConfirmSetup, mut held: HeldCall) {
        // A stateless-era retry carrying Bastion's own requestState and the user's answer.
        let retry = self.take_retry(&mut held);
        // A later round of a call the user approved: the server answered it with its own
        // `input_required` and the host now retries with the `requestState` Bastion gave
        // it for that round and its `inputResponses`. Same tool, same arguments: no second
        // question (the server gets its own `requestState` back).
        if retry.is_none() && self.approved_round(&mut held) {
            // Withheld since the approval (its pin revoked by `mcp-bastion pins`, or
            // waiting for review): the approval no longer covers it.
            let name = held
                .params
                .member("name")
                .and_then(Value::as_str)
                .unwrap_or("");
            if self.refused_as_withheld(&held, name).await {
                return;
            }
            let ev = held.event(Verdict::Allow, "confirmation_earlier_round");
            if self.forward_held(held).await {
                self.audit.record(ev.0).await;
            }
            return;
        }
        if retry.is_none() {
            self.unwrap_round_state(&mut held);
        }
        // The arguments move into the call (and, if it is allowed, into the history); the
        // paths that ask or refuse put them back into `held.params` first.
        let call = match ToolCall::take_from_params(&mut held.params) {
            Ok(c) => c,
            Err(e) => {
                if self.withdrawn(&held).await {
                    return;
                }
                let message = format!("Invalid params: {e}");
                self.answer_host(
                    Some(&held.raw_id),
                    codes::INVALID_PARAMS,
                    &message,
                    "malformed_message",
                    Value::Null,
                )
                .await;
                return;
            }
        };
        // Withheld since the call arrived (Bastion's own listing found it bad, or it now
        // waits for review): refused like a call of a withheld tool.
        if self.refused_as_withheld(&held, &call.name).await {
            return;
        }
        let (tool, facts, history) = {
            let st = self.state();
            (
                st.tools.get(&call.name).cloned(),
                st.tool_facts.get(&call.name).cloned(),
                st.history.clone(),
            )
        };
        let facts = facts.unwrap_or_else(|| self.tool_facts(&call.name, tool.as_ref()));
        let trusted = setup.policy.trusted(&self.name);
        let recent = &history[history.len().saturating_sub(HISTORY)..];
        let mut decision = decide_with(&setup.policy, &self.name, trusted, &facts, &call, recent);
        // Release the snapshot: recording this call must not copy the history.
        drop(history);
        if decision.action == Action::Allow && tool.is_some() && retry.is_none() {
            // The policy lets a listed tool run: no binding, no view, no digest, no extra
            // records (the exchange itself is audited with its answer). Keeps allowed
            // calls at relay speed. Remembered before it is forwarded, so a call decided
            // meanwhile on another task sees it; if it is then withdrawn, the history
            // holds one call more, which can only make later decisions ask.
            self.remember_call(call);
            self.forward_held(held).await;
            return;
        }
        call.restore_arguments(&mut held.params);
        let identity = identity_of(self);
        let binding = Binding {
            server: identity.clone(),
            tool_pin: tool.as_ref().and_then(|t| self.tool_pin(&call.name, t)),
        };
        let mut via_grant = false;
        if decision.action == Action::Ask
            && let (Some(store), Some(pin)) = (&setup.store, &binding.tool_pin)
            && let Ok(Some(g)) = store
                .grant_for(&identity_text(&identity), &call.name, pin)
                .await
        {
            let grant = bastion_core::confirm::Grant {
                server: identity.clone(),
                tool: g.tool,
                tool_pin: g.pin_hash,
            };
            decision = apply_grant(decision, Some(&grant), &binding, &call.name);
            via_grant = decision.action == Action::Allow;
        }
        if tool.is_none() && decision.action == Action::Allow {
            // Never listed in this session: not pinned, not checked by the detectors.
            decision.action = Action::Ask;
            decision.reasons.push(bastion_core::finding::Finding::new(
                bastion_core::finding::Code::ConfirmationRequired,
                bastion_core::finding::Severity::Warn,
                "",
                format!(
                    "tool {:?} was not listed by the server in this session, so no checked descriptor backs it",
                    call.name
                ),
            ));
        }
        let request = match ConfirmationRequest::new(
            &binding,
            trusted,
            tool.as_deref(),
            &held.params,
            &decision,
        ) {
            Ok(r) => r,
            Err(e) => {
                if self.withdrawn(&held).await {
                    return;
                }
                let message = format!("mcp-bastion cannot show this call for confirmation: {e}");
                self.refuse_held_recorded(&held, &message, "approval_denied")
                    .await;
                return;
            }
        };
        match decision.action {
            Action::Allow => {
                let (channel, answer) = if via_grant {
                    ("grant", "granted")
                } else {
                    ("policy", "policy")
                };
                let outcome = Outcome {
                    approved: true,
                    channel,
                    answer: answer.into(),
                    remember: Remember::Once,
                };
                self.finish(setup, held, &call, &decision, &request, outcome, 0)
                    .await;
            }
            Action::Deny => {
                let outcome = Outcome::denied("policy", "policy");
                self.finish(setup, held, &call, &decision, &request, outcome, 0)
                    .await;
            }
            Action::Ask if retry.is_some() => {
                let outcome = match retry {
                    Some(Ok(answer)) => outcome_of("input_required", answer),
                    Some(Err(why)) => Outcome::denied("input_required", why),
                    None => Outcome::denied("input_required", "invalid"),
                };
                self.finish(setup, held, &call, &decision, &request, outcome, 0)
                    .await;
            }
            Action::Ask if self.stateless_form(&held.params, setup) => {
                self.ask_stateless(setup, held, &request).await;
            }
            Action::Ask => {
                let setup = setup.clone();
                // Held until answered: a panic in the approval still answers the host.
                let debt = Debt::HostRequest {
                    id: held.id.clone(),
                    raw_id: held.raw_id.clone(),
                    method: "tools/call".to_owned(),
                    registered: true,
                };
                self.spawn_contained(held.frame.len(), debt, move |relay| async move {
                    let started = Instant::now();
                    let outcome = relay.ask(&setup, &request).await;
                    let latency = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
                    relay
                        .finish(&setup, held, &call, &decision, &request, outcome, latency)
                        .await;
                });
            }
        }
    }

    /// Tries the configured channels in order; the first that can ask answers.
    async fn ask(&self, setup: &ConfirmSetup, request: &ConfirmationRequest) -> Outcome {
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::approval");
        let cfg = setup.policy.confirmation();
        let timeout = Duration::from_millis(cfg.timeout_ms);
        for channel in &cfg.channels {
            match channel {
                Channel::Elicitation => {
                    let usable = {
                        let st = self.state();
                        st.host_elicitation && st.era != Some(Era::Stateless)
                    };
                    if !usable {
                        continue;
                    }
                    return match self
                        .ask_host("elicitation/create", request.elicitation_params(), timeout)
                        .await
                    {
                        Some(response) => match response.member("result") {
                            Some(result) => outcome_of(
                                "elicitation",
                                bastion_core::confirm::parse_answer(result),
                            ),
                            None => Outcome::denied("elicitation", "error"),
                        },
                        None => Outcome::denied("elicitation", "timeout"),
                    };
                }
                Channel::Tty => {
                    let Some(path) = &setup.tty_path else {
                        continue;
                    };
                    let offer = request.binding.tool_pin.is_some() && setup.store.is_some();
                    match ask_on_tty(path, &request.message(), offer, timeout).await {
                        Ok(answer) => return outcome_of("tty", answer),
                        Err(TtyError::Timeout(_)) => return Outcome::denied("tty", "timeout"),
                        Err(TtyError::Unavailable(_)) => {}
                    }
                }
            }
        }
        match cfg.fallback {
            Fallback::Deny => Outcome::denied("fallback", "unavailable"),
            Fallback::Allow => Outcome {
                approved: true,
                channel: "fallback",
                answer: "unavailable".into(),
                remember: Remember::Once,
            },
        }
    }

    /// Sends a request of Bastion's own to the host and waits for its answer (the whole
    /// response object) at most `timeout`; on timeout the host is told to cancel it.
    async fn ask_host(&self, method: &str, params: Value, timeout: Duration) -> Option<Value> {
        let n = self.own_seq.fetch_add(1, Ordering::Relaxed);
        let id = format!("{OWN_ID_PREFIX}{:x}-{n}", self.own_nonce);
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.state().own_requests.insert(id.clone(), tx);
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.to_host
            .send(serde_json::to_vec(&frame).unwrap_or_default())
            .await;
        if let Ok(Ok(answer)) = tokio::time::timeout(timeout, rx).await {
            return Some(answer);
        }
        self.state().own_requests.remove(&id);
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "mcp-bastion stopped waiting for an answer"}});
        self.to_host
            .try_send(serde_json::to_vec(&cancel).unwrap_or_default());
        None
    }

    /// Routes the host's answer to one of Bastion's own requests; `false` when `id` is
    /// not one of them.
    pub(super) fn take_own_answer(&self, id: &Id, response: &Map<String, Value>) -> bool {
        let Id::Str(text) = id else { return false };
        let Some(tx) = self.state().own_requests.remove(text.as_str()) else {
            return false;
        };
        let _ = tx.send(Value::Object(response.clone()));
        true
    }

    /// Forwards an approved call (after verifying its digest) or refuses it; records
    /// the decision.
    #[allow(clippy::too_many_arguments)]
    async fn finish(
        &self,
        setup: &ConfirmSetup,
        held: HeldCall,
        call: &ToolCall,
        decision: &Decision,
        request: &ConfirmationRequest,
        mut outcome: Outcome,
        latency_ms: i64,
    ) {
        // Right before forwarding: the params of the frame that will be sent must be
        // exactly the ones shown (issue 5 §2).
        if outcome.approved {
            let outgoing = json::parse_frame(&held.frame, self.limits.max_depth)
                .ok()
                .and_then(|m| m.member("params").cloned());
            let same = outgoing
                .as_ref()
                .and_then(|p| request.verify(p).ok())
                .is_some_and(|c| c == DigestCheck::Match);
            if !same {
                outcome = Outcome::denied(outcome.channel, "digest_mismatch");
            }
        }
        if outcome.approved && outcome.remember == Remember::AlwaysForThisTool {
            self.store_grant(setup, request, &call.name, outcome.channel)
                .await;
        }
        // The host withdrew the call while it was asked about: whatever the answer, it does
        // not run, and the decision is recorded so (reason `cancelled_by_host`).
        let cancelled = self.state().cancelled.contains(&held.id);
        if cancelled {
            outcome = Outcome::denied(outcome.channel, "cancelled_by_host");
        }
        if outcome.approved && outcome.channel != "policy" {
            // The server may answer with its own `input_required`; the host's next round
            // of this same call is covered by this approval (see `approved_round`).
            let ttl = setup.policy.confirmation().timeout_ms;
            let mut st = self.state();
            let t = crate::now_ms().unsigned_abs();
            st.approved_rounds.retain(|_, round| round.is_live(t));
            let until = t.saturating_add(ttl);
            if let Some(round) = st.approved_rounds.get_mut(&request.digest) {
                round.renew(until);
            } else if st.approved_rounds.len() < 1024 {
                st.approved_rounds.insert(
                    request.digest.clone(),
                    super::approve_stateless::ApprovedRound::until(until),
                );
            }
        }
        let refused = if cancelled {
            Some("cancelled_by_host")
        } else {
            (!outcome.approved).then(|| self.refusal(request, call, decision, &outcome).0)
        };
        self.record_decision(
            setup, &held, call, decision, request, &outcome, refused, latency_ms,
        )
        .await;
        if outcome.approved {
            // A cancellation that came after the check above still wins.
            self.remember_call(call.clone());
            self.forward_held(held).await;
            return;
        }
        if self.release(&held.id) {
            // The host withdrew the request: no answer is due (MCP "Cancellation").
            return;
        }
        let (reason, message) = self.refusal(request, call, decision, &outcome);
        let extra = json!({"tool": call.name, "digest": request.digest, "answer": outcome.answer});
        self.answer_host(
            Some(&held.raw_id),
            codes::POLICY_REFUSED,
            &message,
            reason,
            extra,
        )
        .await;
    }

    /// The reason and message a refused call is answered with (-32050, DESIGN §4):
    /// `policy_denied` when the policy refused it, `approval_unavailable` when no channel
    /// could ask and `fallback = "deny"`, else `approval_denied`. The decision's audit
    /// event carries the same reason, so the host's error can be found in the audit log.
    fn refusal(
        &self,
        request: &ConfirmationRequest,
        call: &ToolCall,
        decision: &Decision,
        outcome: &Outcome,
    ) -> (&'static str, String) {
        let tool = request.tool.as_str();
        match (outcome.channel, outcome.answer.as_str()) {
            ("policy", _) => (
                "policy_denied",
                format!(
                    "mcp-bastion refused tool {tool:?} of server {:?}: {}",
                    self.name,
                    decision
                        .reasons
                        .first()
                        .map_or("the policy denies it", |f| f.message.as_str())
                ),
            ),
            ("fallback", _) => (
                "approval_unavailable",
                format!(
                    "mcp-bastion could not ask you to confirm tool {tool:?} of server {:?} (the client offers no elicitation and no terminal is available), so the call was refused; allow it with `mcp-bastion approvals grant --server {} {}` or a [servers.{}] rule",
                    self.name, self.name, call.name, self.name
                ),
            ),
            (_, "digest_mismatch") => (
                "approval_denied",
                format!(
                    "mcp-bastion refused tool {tool:?}: the call to send differs from the one approved"
                ),
            ),
            (channel, answer) => (
                "approval_denied",
                format!(
                    "The call of tool {tool:?} of server {:?} was not approved ({answer} via {channel}); it was not sent to the server",
                    self.name
                ),
            ),
        }
    }

    /// Releases and refuses `held` (a call of tool `name`) and returns `true` when the
    /// tool is withheld now (blocked descriptor, contract mismatch, pin waiting for
    /// review or revoked, pin store unavailable), with that reason.
    async fn refused_as_withheld(&self, held: &HeldCall, name: &str) -> bool {
        let withheld = self.state().withheld_reason("tools/call", name);
        let Some(why) = withheld else {
            return false;
        };
        if self.withdrawn(held).await {
            return true;
        }
        let message = format!(
            "mcp-bastion withheld tool {name:?} of server {:?} ({why}); run `mcp-bastion audit --server {}` to see why",
            self.name, self.name
        );
        self.refuse_held_recorded(held, &message, why).await;
        true
    }

    /// [`Relay::refuse_held`] after recording a `gateway` audit event (verdict `block`)
    /// with the same `reason`, for refusals no decision event records.
    pub(super) async fn refuse_held_recorded(&self, held: &HeldCall, message: &str, reason: &str) {
        self.audit
            .record(held.event(Verdict::Block, reason).0)
            .await;
        self.refuse_held(held, message, reason).await;
    }

    pub(super) async fn refuse_held(&self, held: &HeldCall, message: &str, reason: &str) {
        self.answer_host(
            Some(&held.raw_id),
            codes::POLICY_REFUSED,
            message,
            reason,
            Value::Null,
        )
        .await;
    }

    /// The [`ToolFacts`] of tool `name` (its listed `descriptor`, if any), kept for later
    /// calls while that descriptor stays the listed one.
    fn tool_facts(&self, name: &str, descriptor: Option<&Arc<Value>>) -> Arc<ToolFacts> {
        let facts = Arc::new(ToolFacts::of(descriptor.map(AsRef::as_ref), name));
        if let Some(d) = descriptor {
            let mut st = self.state();
            if st.tools.get(name).is_some_and(|t| Arc::ptr_eq(t, d)) {
                st.tool_facts.insert(name.to_owned(), facts.clone());
            }
        }
        facts
    }

    /// The pin hash of listed tool `name` (`descriptor`), computed once per listing.
    pub(super) fn tool_pin(&self, name: &str, descriptor: &Value) -> Option<String> {
        if let Some(hash) = self.state().tool_pins.get(name) {
            return Some(hash.clone());
        }
        let hash = bastion_core::pins::descriptor_hash(descriptor).ok()?;
        let mut st = self.state();
        if st.tools.get(name).is_some_and(|t| **t == *descriptor) {
            st.tool_pins.insert(name.to_owned(), hash.clone());
        }
        Some(hash)
    }

    /// Ends the hold of `held` ([`Relay::release`]) and returns `true` when the host
    /// cancelled the call meanwhile: it is then dropped, never sent to the server and
    /// never answered, and the audit records a `gateway` event (verdict `block`, reason
    /// `cancelled_by_host`, the frame's size). The caller must return at once on `true`.
    pub(super) async fn withdrawn(&self, held: &HeldCall) -> bool {
        if !self.release(&held.id) {
            return false;
        }
        let ev = held.event(Verdict::Block, "cancelled_by_host");
        self.audit.record(ev.0).await;
        true
    }

    /// Forwards a held call as it came (registered as pending at the server) unless the
    /// host cancelled it ([`Relay::withdrawn`]); `true` when it was forwarded. The hold
    /// ends only once the call is queued for the server: a cancellation that arrives
    /// while it is being forwarded is kept by the hold, and the server gets it after the
    /// call, never before it (a server ignores a cancellation of a request it has not
    /// seen, then runs the request).
    pub(super) async fn forward_held(&self, held: HeldCall) -> bool {
        #[cfg(feature = "failpoints")]
        crate::wrap::failpoint_delay("relay::forward_held").await;
        if self.state().cancelled.contains(&held.id) {
            return !self.withdrawn(&held).await;
        }
        let (id, raw_id) = (held.id.clone(), held.raw_id.clone());
        self.forward_request(
            held.frame,
            held.id,
            held.raw_id,
            "tools/call".into(),
            held.shown,
            crate::pending::RequestExtra {
                requirement: held.requirement,
                ..crate::pending::RequestExtra::default()
            },
        )
        .await;
        if self.release(&id) && self.state().pending.host_contains(&id) {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": raw_id, "reason": "cancelled by the client"}});
            let wait = Duration::from_millis(self.limits.request_timeout_ms);
            let cancel = serde_json::to_vec(&cancel).unwrap_or_default();
            // Marked only once the server has it coming: otherwise its deadline still
            // cancels it there.
            if self.forward_to_server(cancel, wait).await == crate::io::Sent::Queued {
                self.state().pending.cancel_host(&id);
            }
        }
        true
    }

    /// Adds a forwarded call to the session history (bounded, oldest dropped); takes the
    /// call, so its arguments move into the history instead of being copied.
    pub(super) fn remember_call(&self, call: ToolCall) {
        let mut st = self.state();
        let history = Arc::make_mut(&mut st.history);
        if history.len() >= HISTORY + HISTORY_SLACK - 1 {
            history.drain(..=history.len() - HISTORY);
        }
        history.push(HistoryEntry {
            tool: call.name,
            server: Some(self.name.clone()),
            arguments: call.arguments.unwrap_or_default(),
        });
    }

    /// Ends the hold of `id`; `true` when the host cancelled it meanwhile (then nothing
    /// may be sent for it, to the server or the host: MCP 2025-11-25 "Cancellation").
    /// Every path that ends a hold must act on the answer; [`Relay::withdrawn`] does and
    /// records it.
    #[must_use]
    pub(super) fn release(&self, id: &Id) -> bool {
        let mut st = self.state();
        st.held.remove(id);
        st.cancelled.remove(id)
    }
}

pub(super) fn outcome_of(channel: &'static str, answer: Answer) -> Outcome {
    match answer {
        Answer::Approve { remember } => Outcome {
            approved: true,
            channel,
            answer: "accept".into(),
            remember,
        },
        Answer::Deny { why } => Outcome::denied(
            channel,
            match why {
                DenyReason::Declined => "decline",
                DenyReason::Cancelled => "cancel",
                DenyReason::NotApproved => "not_approved",
                DenyReason::Invalid(_) => "invalid",
            },
        ),
    }
}
