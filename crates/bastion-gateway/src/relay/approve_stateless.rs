//! Confirmation in the stateless era (MCP 2026-07-28, issue 5 §3): the approval form
//! travels in an `input_required` result with an HMAC-sealed `requestState` bound to the
//! call digest; the host's retry is matched back to the pending approval (used once,
//! TTL). Later rounds of an approved call (the server's own `input_required`) run under
//! that approval while it lasts.

use super::approve::{HeldCall, OWN_ID_PREFIX, identity_of};
use super::{Ev, Relay, audit_target};
use crate::confirm::ConfirmSetup;
use bastion_core::confirm::{Answer, Binding, Channel, ConfirmationRequest, DenyReason};
use bastion_core::era::Era;
use bastion_core::finding::Verdict;
use bastion_core::json;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;

/// The key of Bastion's approval form inside `inputRequests`/`inputResponses`.
const INPUT_KEY: &str = "mcp-bastion-approval";
/// Stateless approvals awaiting their retry, at most.
const MAX_STATELESS_PENDING: usize = 1024;

/// Whether a stateless-era request's `_meta` declares form elicitation for this request
/// (MCP 2026-07-28: capabilities are per request, `io.modelcontextprotocol/clientCapabilities`).
fn request_allows_form_elicitation(params: &Value) -> bool {
    match params.pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/elicitation") {
        Some(Value::Object(modes)) => modes.is_empty() || modes.contains_key("form"),
        _ => false,
    }
}

impl Relay {
    /// Whether this call can be confirmed by answering the host with an
    /// `input_required` result: stateless era, form elicitation declared in this
    /// request, the channel enabled, and no server `requestState` already in the params
    /// (a server's own multi-round flow is not mixed with Bastion's).
    pub(super) fn stateless_form(&self, params: &Value, setup: &ConfirmSetup) -> bool {
        setup
            .policy
            .confirmation()
            .channels
            .contains(&Channel::Elicitation)
            && self.state().era == Some(Era::Stateless)
            && request_allows_form_elicitation(params)
            && params.get("requestState").is_none()
            && params.get("inputResponses").is_none()
    }

    /// Answers the host with an `input_required` result carrying Bastion's approval
    /// form and a sealed `requestState` bound to the call digest (issue 5 §3); the retry
    /// is matched in [`Relay::take_retry`].
    pub(super) async fn ask_stateless(
        &self,
        setup: &ConfirmSetup,
        held: HeldCall,
        request: &ConfirmationRequest,
    ) {
        let n = self.own_seq.fetch_add(1, Ordering::Relaxed);
        let pending = format!("{OWN_ID_PREFIX}{:x}-{n}", self.own_nonce);
        let expires = crate::now_ms().unsigned_abs() + setup.policy.confirmation().timeout_ms;
        let token = bastion_core::confirm::seal(
            &self.state_key,
            &bastion_core::confirm::Claims {
                pending: pending.clone(),
                digest: request.digest.clone(),
                expires_at_ms: expires,
            },
        );
        let full = {
            let mut st = self.state();
            st.stateless_pending
                .retain(|_, exp| *exp > crate::now_ms().unsigned_abs());
            let full = st.stateless_pending.len() >= MAX_STATELESS_PENDING;
            if !full {
                st.stateless_pending.insert(pending, expires);
            }
            full
        };
        if full {
            self.release(&held.id);
            self.refuse_held_recorded(
                &held,
                "mcp-bastion refused the call: too many confirmations are waiting for an answer",
                "approval_unavailable",
            )
            .await;
            return;
        }
        self.release(&held.id);
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {INPUT_KEY: {"method": "elicitation/create", "params": request.elicitation_params()}},
            "requestState": token,
        });
        let frame = json!({"jsonrpc": "2.0", "id": held.raw_id, "result": result});
        let mut ev = Ev::new("gateway", "result", Verdict::Flag, 0)
            .method("tools/call")
            .target(audit_target("tools/call", held.shown.as_deref()).as_deref())
            .id(&held.raw_id)
            .reason("confirmation_asked");
        ev.0.digest = Some(request.digest.clone());
        self.audit.record(ev.0).await;
        self.to_host
            .send(serde_json::to_vec(&frame).unwrap_or_default())
            .await;
    }

    /// Recognizes the retry of a call Bastion answered with `input_required`: its
    /// `requestState` opens with this gateway's key for the digest of the params without
    /// `requestState`/`inputResponses`, names a pending approval (used once), and
    /// `inputResponses` holds the answer. The held call is rewritten to the original
    /// params (what the user approved and what the server will get).
    ///
    /// `None`: not a retry of Bastion's (no token, or a token of someone else: the
    /// server's own state passes through). `Some(Err(why))`: Bastion's token but
    /// expired, replayed or bound to other params: the call is denied.
    pub(super) fn take_retry(&self, held: &mut HeldCall) -> Option<Result<Answer, &'static str>> {
        let token = held.params.get("requestState")?.as_str()?.to_owned();
        let mut original = held.params.clone();
        let responses = original.as_object_mut().map(|o| {
            o.remove("requestState");
            o.remove("inputResponses")
        })?;
        let binding_digest = |relay: &Self| {
            let tool = relay
                .state()
                .tools
                .get(original.get("name")?.as_str()?)
                .cloned();
            let name = original.get("name")?.as_str()?;
            let binding = Binding {
                server: identity_of(relay),
                tool_pin: tool.as_ref().and_then(|t| relay.tool_pin(name, t)),
            };
            bastion_core::confirm::call_digest(&binding, &original).ok()
        };
        let digest = binding_digest(self)?;
        let now = crate::now_ms().unsigned_abs();
        let claims = match bastion_core::confirm::open(&self.state_key, &token, now, &digest) {
            Ok(c) => c,
            Err(
                bastion_core::confirm::StateError::Malformed(_)
                | bastion_core::confirm::StateError::BadMac,
            ) => return None,
            Err(bastion_core::confirm::StateError::Expired { .. }) => return Some(Err("expired")),
            Err(_) => return Some(Err("digest_mismatch")),
        };
        if self
            .state()
            .stateless_pending
            .remove(&claims.pending)
            .is_none()
        {
            return Some(Err("replayed"));
        }
        // What the server gets: the params the user approved.
        if let Ok(mut map) = json::parse_frame(&held.frame, self.limits.max_depth) {
            map.insert("params".into(), original.clone());
            held.frame = serde_json::to_vec(&map).unwrap_or_default();
        }
        held.params = original;
        let answer = responses
            .as_ref()
            .and_then(|r| r.get(INPUT_KEY))
            .map_or_else(
                || Answer::Deny {
                    why: DenyReason::Invalid("no answer to the approval form".into()),
                },
                bastion_core::confirm::parse_answer,
            );
        Some(Ok(answer))
    }

    /// The digest a round of `params` is approved under: the call digest of the params
    /// without `requestState` and `inputResponses` (what the human was shown).
    fn round_digest(&self, params: &Value) -> Option<String> {
        let mut base = params.as_object()?.clone();
        base.remove("requestState");
        base.remove("inputResponses");
        let base = Value::Object(base);
        let name = base.get("name").and_then(Value::as_str)?;
        let tool = self.state().tools.get(name).cloned();
        let binding = Binding {
            server: identity_of(self),
            tool_pin: tool.as_deref().and_then(|t| self.tool_pin(name, t)),
        };
        bastion_core::confirm::call_digest(&binding, &base).ok()
    }

    /// The server answered an approved call (request `params`) with its own
    /// `input_required`: the host's next round with the `requestState` it issued (or,
    /// when it issued none, one round without) runs without a second question.
    pub(super) fn server_asked_round(&self, params: Option<&Value>, request_state: Option<&Value>) {
        let Some(digest) = params.and_then(|p| self.round_digest(p)) else {
            return;
        };
        let t = crate::now_ms().unsigned_abs();
        let mut st = self.state();
        let Some(round) = st.approved_rounds.get_mut(&digest).filter(|r| r.is_live(t)) else {
            return;
        };
        match request_state.and_then(Value::as_str) {
            Some(state) => {
                if round.states.len() < MAX_ROUND_STATES {
                    round.states.push(state_digest(state));
                }
            }
            None => round.without_state = (round.without_state + 1).min(MAX_ROUND_STATES),
        }
    }

    /// Whether `params` (carrying `requestState` or `inputResponses`) are a round the
    /// server asked for of a call approved within `[confirmation] timeout_ms`: the digest
    /// of the params without those members is an approval's, and the `requestState` is
    /// one the server issued for it since (each is used once; without `requestState`,
    /// one of the rounds the server asked for without one). A `requestState` the server
    /// never issued (made up by a host, or another host's on a shared relay) is asked
    /// like a new call.
    pub(super) fn approved_round(&self, params: &Value) -> bool {
        let Some(obj) = params.as_object() else {
            return false;
        };
        if !obj.contains_key("requestState") && !obj.contains_key("inputResponses") {
            return false;
        }
        let Some(digest) = self.round_digest(params) else {
            return false;
        };
        let t = crate::now_ms().unsigned_abs();
        let mut st = self.state();
        let Some(round) = st.approved_rounds.get_mut(&digest).filter(|r| r.is_live(t)) else {
            return false;
        };
        match obj.get("requestState") {
            Some(state) => {
                let Some(state) = state.as_str() else {
                    return false;
                };
                let want = state_digest(state);
                let Some(i) = round.states.iter().position(|s| *s == want) else {
                    return false;
                };
                round.states.swap_remove(i);
                true
            }
            None if round.without_state > 0 => {
                round.without_state -= 1;
                true
            }
            None => false,
        }
    }
}

/// `requestState`s (and rounds without one) remembered per approved call at most.
const MAX_ROUND_STATES: usize = 16;

/// A call a human approved: until when later rounds may run without a second question,
/// and the rounds the server has asked for since.
#[derive(Debug)]
pub(super) struct ApprovedRound {
    /// Unix time (ms) after which no round runs without asking.
    expires_ms: u64,
    /// SHA-256 (hex) of each `requestState` the server issued for this call, unused.
    states: Vec<String>,
    /// Rounds the server asked for without a `requestState`, unused.
    without_state: usize,
}

impl ApprovedRound {
    /// An approval valid until `expires_ms` (unix ms) that no round has been asked for yet.
    pub(super) fn until(expires_ms: u64) -> Self {
        Self {
            expires_ms,
            states: Vec::new(),
            without_state: 0,
        }
    }

    /// `true` before the expiry.
    pub(super) fn is_live(&self, now_ms: u64) -> bool {
        self.expires_ms > now_ms
    }
}

/// A `requestState` as remembered: SHA-256, hex (the state itself may be large).
fn state_digest(state: &str) -> String {
    bastion_core::pins::sha256_hex(state.as_bytes())
}
