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
use bastion_core::json::Member;
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
        Some(Value::Object(modes)) => modes.is_empty() || modes.has_member("form"),
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
            && params.member("requestState").is_none()
            && params.member("inputResponses").is_none()
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
        if self.withdrawn(&held).await {
            return;
        }
        let n = self.own_seq.fetch_add(1, Ordering::Relaxed);
        let pending = format!("{OWN_ID_PREFIX}{:x}-{n}", self.own_nonce);
        let expires = crate::now_ms().unsigned_abs() + setup.policy.confirmation().timeout_ms;
        let token = bastion_core::confirm::seal(
            &self.state_key,
            bastion_core::confirm::Purpose::Approval,
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
            self.refuse_held_recorded(
                &held,
                "mcp-bastion refused the call: too many confirmations are waiting for an answer",
                "approval_unavailable",
            )
            .await;
            return;
        }
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
        let token = held.params.member("requestState")?.as_str()?.to_owned();
        let mut original = held.params.clone();
        let responses = original.as_object_mut().map(|o| {
            o.remove("requestState");
            o.remove("inputResponses")
        })?;
        let binding_digest = |relay: &Self| {
            let tool = relay
                .state()
                .tools
                .get(original.member("name")?.as_str()?)
                .cloned();
            let name = original.member("name")?.as_str()?;
            let binding = Binding {
                server: identity_of(relay),
                tool_pin: tool.as_ref().and_then(|t| relay.tool_pin(name, t)),
            };
            bastion_core::confirm::call_digest(&binding, &original).ok()
        };
        let digest = binding_digest(self)?;
        let now = crate::now_ms().unsigned_abs();
        let claims = match bastion_core::confirm::open(
            &self.state_key,
            bastion_core::confirm::Purpose::Approval,
            &token,
            now,
            &digest,
        ) {
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
        self.set_held_params(held, original);
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
        let name = base.member("name").and_then(Value::as_str)?;
        let tool = self.state().tools.get(name).cloned();
        let binding = Binding {
            server: identity_of(self),
            tool_pin: tool.as_deref().and_then(|t| self.tool_pin(name, t)),
        };
        bastion_core::confirm::call_digest(&binding, &base).ok()
    }

    /// The server answered an approved call (request `params`) with its own
    /// `input_required` carrying `request_state` (or none): returns the `requestState`
    /// the host gets instead, `mcp-bastion-round:` + a token sealed with this gateway's
    /// key for the call digest and a one-time round id (+ `:` + the server's own state).
    /// Only the host this answer goes to holds it, so another host of a shared relay
    /// cannot run the round by guessing the server's state (or by sending none);
    /// [`Relay::approved_round`] gives the server its own state back. `None` (the
    /// server's state goes to the host as it is, and the next round is asked like a new
    /// call): the call was not approved or its approval has expired, the state is not a
    /// string, or [`MAX_ROUND_STATES`] rounds are already waiting.
    pub(super) fn server_asked_round(
        &self,
        params: Option<&Value>,
        request_state: Option<&Value>,
    ) -> Option<String> {
        let server_state = match request_state {
            None => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return None,
        };
        let digest = params.and_then(|p| self.round_digest(p))?;
        let t = crate::now_ms().unsigned_abs();
        let n = self.own_seq.fetch_add(1, Ordering::Relaxed);
        let round_id = format!("{OWN_ID_PREFIX}{:x}-round-{n}", self.own_nonce);
        let expires_at_ms = {
            let mut st = self.state();
            let round = st
                .approved_rounds
                .get_mut(&digest)
                .filter(|r| r.is_live(t))?;
            if round.issued.len() >= MAX_ROUND_STATES {
                return None;
            }
            round
                .issued
                .push((round_id.clone(), server_state.map(state_digest)));
            round.expires_ms
        };
        let token = bastion_core::confirm::seal(
            &self.state_key,
            bastion_core::confirm::Purpose::Round,
            &bastion_core::confirm::Claims {
                pending: round_id,
                digest,
                expires_at_ms,
            },
        );
        Some(match server_state {
            Some(state) => format!("{ROUND_PREFIX}{token}:{state}"),
            None => format!("{ROUND_PREFIX}{token}"),
        })
    }

    /// Whether `held` is a round the server asked for of a call approved within
    /// `[confirmation] timeout_ms`: its `requestState` is one [`Relay::server_asked_round`]
    /// gave out for the digest of these params without `requestState` and
    /// `inputResponses`, unexpired and unused (each is used once), carrying the server's
    /// state unaltered. Then the held call is rewritten to carry the server's own
    /// `requestState` (none when it issued none) and `true` is returned. Anything else
    /// (a made-up or altered token, the server's raw state, none at all, another call's
    /// round) is asked like a new call.
    pub(super) fn approved_round(&self, held: &mut HeldCall) -> bool {
        // A round answers the server's question: without answers it would be the
        // approved call run afresh.
        if !held
            .params
            .member("inputResponses")
            .is_some_and(Value::is_object)
        {
            return false;
        }
        let Some((token, server_state)) = round_parts(&held.params) else {
            return false;
        };
        let Some(digest) = self.round_digest(&held.params) else {
            return false;
        };
        let t = crate::now_ms().unsigned_abs();
        let Ok(claims) = bastion_core::confirm::open(
            &self.state_key,
            bastion_core::confirm::Purpose::Round,
            &token,
            t,
            &digest,
        ) else {
            return false;
        };
        {
            let mut st = self.state();
            let Some(round) = st.approved_rounds.get_mut(&digest).filter(|r| r.is_live(t)) else {
                return false;
            };
            let want = server_state.as_deref().map(state_digest);
            let Some(i) = round
                .issued
                .iter()
                .position(|(id, state)| *id == claims.pending && *state == want)
            else {
                return false;
            };
            round.issued.swap_remove(i);
        }
        self.restore_server_state(held, server_state);
        true
    }

    /// A held call that carries a round `requestState` of this gateway's which
    /// [`Relay::approved_round`] did not accept (expired, used, another call's): the
    /// server's own state goes back in its place (none when it issued none) before the
    /// call is decided like a new one, so the server never gets Bastion's wrapping. A
    /// state that only looks like one (its seal does not verify) is left as the host
    /// sent it.
    pub(super) fn unwrap_round_state(&self, held: &mut HeldCall) {
        let Some((token, server_state)) = round_parts(&held.params) else {
            return;
        };
        let sealed_here = !matches!(
            bastion_core::confirm::open(
                &self.state_key,
                bastion_core::confirm::Purpose::Round,
                &token,
                0,
                ""
            ),
            Err(bastion_core::confirm::StateError::Malformed(_)
                | bastion_core::confirm::StateError::BadMac)
        );
        if !sealed_here {
            return;
        }
        self.restore_server_state(held, server_state);
    }

    /// Puts the server's own `requestState` (none when it issued none) in place of
    /// Bastion's round state in a held call.
    fn restore_server_state(&self, held: &mut HeldCall, server_state: Option<String>) {
        let mut params = held.params.clone();
        if let Some(obj) = params.as_object_mut() {
            match server_state {
                Some(state) => {
                    obj.insert("requestState".into(), Value::String(state));
                }
                None => {
                    obj.remove("requestState");
                }
            }
        }
        self.set_held_params(held, params);
    }

    /// Rewrites a held call's `params` (and its frame, what the server gets).
    fn set_held_params(&self, held: &mut HeldCall, params: Value) {
        if let Ok(mut map) = json::parse_frame(&held.frame, self.limits.max_depth) {
            map.insert("params".into(), params.clone());
            held.frame = serde_json::to_vec(&map).unwrap_or_default();
        }
        held.params = params;
    }
}

/// What a `requestState` Bastion gives out for a server's round starts with.
const ROUND_PREFIX: &str = "mcp-bastion-round:";

/// The parts of a round state of Bastion's in `params.requestState`: the sealed token
/// and the server's own state (`None` when it issued none); `None` when the state is not
/// one (no `mcp-bastion-round:` prefix). Not verified.
fn round_parts(params: &Value) -> Option<(String, Option<String>)> {
    let (token, state) = split_round(params.member("requestState")?.as_str()?)?;
    Some((token.to_owned(), state.map(str::to_owned)))
}

/// `mcp-bastion-round:TOKEN[:STATE]` cut into the token and the server's state; `None`
/// without the prefix. The token (`v1.` + base64url parts) holds no `:`, so the server's
/// state is everything after the first one, `:` included.
fn split_round(host_state: &str) -> Option<(&str, Option<&str>)> {
    let rest = host_state.strip_prefix(ROUND_PREFIX)?;
    Some(match rest.split_once(':') {
        Some((token, state)) => (token, Some(state)),
        None => (rest, None),
    })
}

/// The server's own `requestState` inside a state a host sent: the part after the
/// round token when it is Bastion's wrapping (`None` when the server issued none), the
/// state itself otherwise. Not verified: for looking up what the server asked.
pub(super) fn server_state_of(host_state: &str) -> Option<&str> {
    match split_round(host_state) {
        Some((_, state)) => state,
        None => Some(host_state),
    }
}

/// Rounds given out per approved call and not yet used, at most.
const MAX_ROUND_STATES: usize = 16;

/// A call a human approved: until when later rounds may run without a second question,
/// and the rounds the server has asked for since.
#[derive(Debug)]
pub(super) struct ApprovedRound {
    /// Unix time (ms) after which no round runs without asking.
    expires_ms: u64,
    /// Each round given out and unused: its one-time id (sealed in the host's token) and
    /// the SHA-256 (hex) of the server's `requestState`, `None` when it issued none.
    issued: Vec<(String, Option<String>)>,
}

impl ApprovedRound {
    /// An approval valid until `expires_ms` (unix ms) that no round has been asked for yet.
    pub(super) fn until(expires_ms: u64) -> Self {
        Self {
            expires_ms,
            issued: Vec::new(),
        }
    }

    /// Approved again (another host, the same call): valid until the later expiry; the
    /// rounds given out stay usable.
    pub(super) fn renew(&mut self, expires_ms: u64) {
        self.expires_ms = self.expires_ms.max(expires_ms);
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
