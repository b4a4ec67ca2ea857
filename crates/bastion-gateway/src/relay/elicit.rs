//! Elicitation mediation in the relay (issue 6): the server's `elicitation/create`
//! requests are judged by `bastion_core::elicit` before the host sees them; the host's
//! answers are validated before the server sees them; URL-mode decisions go to the
//! consent ledger and the URL flow state machine; completion notifications advance only
//! known flows of this server and session.
//!
//! Fail closed: a refused request is answered to the server with a policy error (never a
//! fake user decline) and never shown; an answer that does not fit the form, or a URL
//! decision the ledger cannot record faithfully, is not forwarded (the server gets an
//! error instead).

use super::{Ev, Relay, S2H};
use bastion_core::elicit::flow::{HostAction, UrlFlow, judge_completion};
use bastion_core::elicit::{
    DeclaredModes, ElicitMode, ElicitPolicy, FormSchema, refusal_error, review_request, url_mode,
    validate_answer,
};
use bastion_core::envelope::{Id, codes};
use bastion_core::finding::{Code, Verdict};
use bastion_store::{ConsentRecord, FlowRecord, Store};
use serde_json::{Map, Value};

/// How long a URL flow may wait for its completion, ms.
pub(super) const FLOW_TTL_MS: u64 = 15 * 60 * 1000;
/// URL flows kept per session, at most (the oldest finished ones go first).
pub(super) const MAX_FLOWS: usize = 1024;

/// What `wrap` needs to mediate elicitation.
#[derive(Debug, Clone)]
pub struct ElicitSetup {
    /// URL gate policy and form limits; the modes are replaced by what the host declares.
    pub policy: ElicitPolicy,
    /// Where the consent ledger and flows live; `None`: URL-mode requests are refused
    /// (no ledger, no consent).
    pub store: Option<Store>,
    /// Policy narrowing of the host's capability: `false` hides URL mode from the server
    /// (and refuses URL-mode requests) even when the host declared it.
    pub url_mode: bool,
    /// The same for form mode.
    pub form_mode: bool,
}

impl Default for ElicitSetup {
    fn default() -> Self {
        Self {
            policy: ElicitPolicy::default(),
            store: None,
            url_mode: true,
            form_mode: true,
        }
    }
}

/// What Bastion remembers of a forwarded `elicitation/create` until the host answers.
#[derive(Debug)]
pub(super) enum Asked {
    /// A form: the answer is validated against it.
    Form(FormSchema),
    /// A URL: the answer is a consent decision.
    Url(UrlAsk),
}

/// A URL-mode request shown to the user.
#[derive(Debug)]
pub(super) struct UrlAsk {
    elicitation_id: String,
    normalized: String,
    domain: Option<String>,
    verdict: Verdict,
    reasons: String,
    digest: String,
    created_ms: i64,
}

pub(super) fn now() -> u64 {
    crate::now_ms().unsigned_abs()
}

fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Relay {
    /// The elicitation policy with the modes the host declared.
    pub(super) fn elicit_policy(&self) -> ElicitPolicy {
        let mut p = self.elicit.policy.clone();
        p.modes = self.state().host_modes.unwrap_or(DeclaredModes {
            form: false,
            url: false,
        });
        p
    }

    fn server_identity_text(&self) -> String {
        self.pinning
            .as_ref()
            .map_or_else(|| self.name.clone(), |p| p.identity().to_owned())
    }

    /// Judges a server `elicitation/create` (already registered as pending at the host).
    /// Returns the params to forward (rewritten for URL mode), or `None` when it was
    /// refused: the server was answered and the pending entry removed.
    pub(super) async fn review_server_elicitation(
        &self,
        id: &Id,
        raw_id: &Value,
        params: &Value,
        bytes: usize,
    ) -> Option<Value> {
        let review = review_request(params, &self.elicit_policy(), "/params");
        let mut rewritten = None;
        let mut refused = review.verdict == Verdict::Block;
        let mut no_ledger = false;
        let mut url_ask = None;
        if !refused && review.mode == Some(ElicitMode::Url) {
            if let (Some(url), Some(_)) = (&review.url, &self.elicit.store) {
                let elicitation_id = params
                    .get("elicitationId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                rewritten = Some(url_mode::rewrite_params(params, &self.name, url));
                url_ask = Some(UrlAsk {
                    elicitation_id,
                    normalized: url.normalized.clone().unwrap_or_default(),
                    domain: url.registrable_domain.clone(),
                    verdict: url.verdict,
                    reasons: codes_of(&url.findings),
                    digest: bastion_core::elicit::required::request_digest(
                        "elicitation/create",
                        Some(params),
                    )
                    .unwrap_or_default(),
                    created_ms: crate::now_ms(),
                });
            } else {
                // No store: no consent ledger, so no URL is shown.
                refused = true;
                no_ledger = true;
            }
        }
        let mut ev = Ev::new(S2H, "request", review.verdict, bytes)
            .method("elicitation/create")
            .id(raw_id)
            .codes(&review.findings);
        if refused {
            self.state().pending.take_server(id);
            let undeclared = review
                .findings
                .iter()
                .any(|f| f.code == Code::ElicitationModeNotDeclared);
            let frame = if no_ledger {
                bastion_core::envelope::error_response(
                    Some(raw_id),
                    codes::POLICY_REFUSED,
                    "mcp-bastion refused the URL elicitation: there is no consent ledger to record the decision in",
                    serde_json::json!({"reason": "policy_denied", "finding": "consent_ledger_unavailable", "server": self.name}),
                )
            } else if undeclared {
                bastion_core::envelope::error_response(
                    Some(raw_id),
                    codes::INVALID_PARAMS,
                    "Invalid params: the client did not declare this elicitation mode; mcp-bastion did not show the request",
                    serde_json::json!({"reason": "elicitation_mode_not_declared", "server": self.name}),
                )
            } else {
                serde_json::to_vec(&refusal_error(Some(raw_id), &self.name, &review))
                    .unwrap_or_default()
            };
            ev = ev.reason("elicitation_refused");
            // Past the refusal rate (a flood), the refusal is counted in a folded audit
            // row, without a consent-ledger record or a stderr line of its own.
            if self.record_unrequested(ev.0).await {
                if review.mode == Some(ElicitMode::Url) {
                    self.ledger_refusal(params, &review).await;
                }
                eprintln!(
                    "mcp-bastion[{}]: refused an elicitation request ({}); it was not shown",
                    self.name,
                    codes_of(&review.findings)
                );
            }
            self.reply_to_server(frame, Some(raw_id)).await;
            return None;
        }
        let asked = match (review.form, url_ask) {
            (_, Some(u)) => {
                self.start_flow(&u).await;
                Some(Asked::Url(u))
            }
            (Some(form), None) => Some(Asked::Form(form)),
            (None, None) => None,
        };
        if let Some(asked) = asked {
            self.state().asked.insert(id_key(id), asked);
        }
        self.audit.record(ev.0).await;
        Some(rewritten.unwrap_or_else(|| params.clone()))
    }

    /// The host answered a forwarded `elicitation/create`: `true` when the answer may be
    /// forwarded; `false` when it was refused (the server has been answered).
    pub(super) async fn check_elicitation_answer(
        &self,
        id: &Id,
        raw_id: &Value,
        map: &Map<String, Value>,
    ) -> bool {
        let asked = self.state().asked.remove(&id_key(id));
        let Some(result) = map.get("result") else {
            // An error answer: nothing to validate; a URL flow ends as cancelled.
            if let Some(Asked::Url(u)) = asked {
                self.decide_url(&u, HostAction::Cancel, "cancelled").await;
            }
            return true;
        };
        match asked {
            Some(Asked::Form(form)) => {
                if let Err(e) = validate_answer(&form, result) {
                    let ev = Ev::new("host_to_server", "result", Verdict::Block, 0)
                        .method("elicitation/create")
                        .id(raw_id)
                        .reason("elicitation_answer_invalid");
                    self.audit.record(ev.0).await;
                    let message = format!(
                        "The client's answer to the elicitation does not match its requestedSchema ({e}); mcp-bastion did not forward it"
                    );
                    self.answer_server(
                        Some(raw_id),
                        codes::INVALID_PARAMS,
                        &message,
                        "elicitation_answer_invalid",
                    )
                    .await;
                    return false;
                }
                true
            }
            Some(Asked::Url(u)) => {
                let (action, decision) = match result.get("action").and_then(Value::as_str) {
                    Some("accept") => (HostAction::Accept, "accepted"),
                    Some("decline") => (HostAction::Decline, "declined"),
                    _ => (HostAction::Cancel, "cancelled"),
                };
                if self.decide_url(&u, action, decision).await {
                    return true;
                }
                let message = "mcp-bastion could not record the URL consent decision; the answer was not forwarded";
                self.answer_server(
                    Some(raw_id),
                    codes::INTERNAL_ERROR,
                    message,
                    "consent_not_recorded",
                )
                .await;
                false
            }
            None => true,
        }
    }

    /// Records the host's decision on a URL request in the ledger (write, read back,
    /// compare) and advances its flow; `false` when the ledger failed.
    async fn decide_url(&self, u: &UrlAsk, action: HostAction, decision: &str) -> bool {
        let Some(store) = &self.elicit.store else {
            return false;
        };
        let record = ConsentRecord {
            consent_id: self.random_id(),
            server_identity: self.server_identity_text(),
            server_name: self.name.clone(),
            session: self.session.clone(),
            elicitation_id: Some(u.elicitation_id.clone()),
            normalized_url: u.normalized.clone(),
            registrable_domain: u.domain.clone(),
            request_digest: u.digest.clone(),
            verdict: u.verdict.as_str().into(),
            decision: decision.into(),
            reason: (!u.reasons.is_empty()).then(|| u.reasons.clone()),
            created_ms: u.created_ms,
            decided_ms: crate::now_ms(),
            ..ConsentRecord::default()
        };
        if let Err(e) = store.record_consent(&record).await {
            eprintln!(
                "mcp-bastion[{}]: consent ledger write failed ({e})",
                self.name
            );
            return false;
        }
        let t = now();
        let flow = {
            let mut st = self.state();
            st.flows.get_mut(&u.elicitation_id).map(|f| {
                let _ = f.answer(action, t);
                if action == HostAction::Accept {
                    let _ = f.await_out_of_band(t);
                }
                f.clone()
            })
        };
        if let Some(f) = flow {
            self.persist_flow(&f).await;
        }
        true
    }

    async fn ledger_refusal(
        &self,
        params: &Value,
        review: &bastion_core::elicit::ElicitationReview,
    ) {
        let Some(store) = &self.elicit.store else {
            return;
        };
        let url = review.url.as_ref();
        let record = ConsentRecord {
            consent_id: self.random_id(),
            server_identity: self.server_identity_text(),
            server_name: self.name.clone(),
            session: self.session.clone(),
            elicitation_id: params
                .get("elicitationId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            normalized_url: url
                .and_then(|u| u.normalized.clone())
                .unwrap_or_else(|| "(no normalized form)".into()),
            registrable_domain: url.and_then(|u| u.registrable_domain.clone()),
            request_digest: bastion_core::elicit::required::request_digest(
                "elicitation/create",
                Some(params),
            )
            .unwrap_or_default(),
            verdict: "block".into(),
            decision: "refused".into(),
            reason: Some(codes_of(&review.findings)),
            created_ms: crate::now_ms(),
            decided_ms: crate::now_ms(),
            ..ConsentRecord::default()
        };
        if let Err(e) = store.record_consent(&record).await {
            eprintln!(
                "mcp-bastion[{}]: consent ledger write failed ({e})",
                self.name
            );
        }
    }

    async fn start_flow(&self, u: &UrlAsk) {
        let t = now();
        let mut flow = UrlFlow::new(
            u.elicitation_id.clone(),
            self.name.clone(),
            self.session.clone(),
            u.normalized.clone(),
            t,
            FLOW_TTL_MS,
        );
        let _ = flow.show(t);
        {
            let mut st = self.state();
            if st.flows.len() >= MAX_FLOWS {
                let oldest = st
                    .flows
                    .iter()
                    .min_by_key(|(_, f)| f.updated_ms)
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    st.flows.remove(&k);
                }
            }
            st.flows.insert(u.elicitation_id.clone(), flow.clone());
        }
        self.persist_flow(&flow).await;
    }

    pub(super) async fn persist_flow(&self, f: &UrlFlow) {
        let Some(store) = &self.elicit.store else {
            return;
        };
        let record = FlowRecord {
            server_name: self.name.clone(),
            session: self.session.clone(),
            elicitation_id: f.elicitation_id.clone(),
            url: f.url.clone(),
            state: f.state.as_str().into(),
            created_ms: i64_of(f.created_ms),
            updated_ms: i64_of(f.updated_ms),
            expires_ms: i64_of(f.expires_ms),
        };
        if let Err(e) = store.put_flow(&record).await {
            eprintln!(
                "mcp-bastion[{}]: cannot persist elicitation flow ({e})",
                self.name
            );
        }
    }

    /// A server `notifications/elicitation/complete`: `true` when it names a flow of
    /// this server and session waiting out of band (it is then forwarded); otherwise it
    /// is dropped and audited with the reason.
    pub(super) async fn check_completion(&self, params: Option<&Value>, bytes: usize) -> bool {
        let eid = params
            .and_then(|p| p.get("elicitationId"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let t = now();
        let judged = {
            let mut st = self.state();
            let flow = st.flows.get_mut(&eid);
            let judged = judge_completion(flow, &self.name, &self.session, t);
            if judged.is_ok() {
                for r in st.requirements.values_mut() {
                    r.completed(&eid);
                }
            }
            judged.map(|_| st.flows.get(&eid).cloned())
        };
        let reason = match judged {
            Ok(flow) => {
                if let Some(f) = flow {
                    self.persist_flow(&f).await;
                }
                return true;
            }
            Err(e) => {
                // An id of another session of this server is worth naming as such.
                let other = match &self.elicit.store {
                    Some(store) if !eid.is_empty() => store
                        .flows_with_id(&self.name, &eid)
                        .await
                        .is_ok_and(|v| v.iter().any(|f| f.session != self.session)),
                    _ => false,
                };
                if other && matches!(e, bastion_core::elicit::flow::FlowError::UnknownId) {
                    "completion_other_session"
                } else {
                    e.reason()
                }
            }
        };
        let ev = Ev::new(S2H, "notification", Verdict::Block, bytes)
            .method("notifications/elicitation/complete")
            .reason(reason);
        if self.record_unrequested(ev.0).await {
            eprintln!(
                "mcp-bastion[{}]: dropped an elicitation completion ({reason})",
                self.name
            );
        }
        false
    }

    fn random_id(&self) -> String {
        use std::hash::{BuildHasher, Hasher};
        let n = self
            .own_seq
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(n);
        h.write_u64(self.own_nonce);
        format!("{:016x}{:016x}{n:x}", self.own_nonce, h.finish())
    }
}

fn codes_of(findings: &[bastion_core::finding::Finding]) -> String {
    let mut codes: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
    codes.dedup();
    codes.join(",")
}

fn id_key(id: &Id) -> String {
    match id {
        Id::Int(n) => format!("i{n}"),
        Id::Str(s) => format!("s{s}"),
    }
}

impl Relay {
    /// The modes a host declared in `initialize`, narrowed by policy (issue 6 §1).
    pub(super) fn host_modes(&self, params: Option<&Value>) -> DeclaredModes {
        let declared = DeclaredModes::from_capability(
            params.and_then(|p| p.pointer("/capabilities/elicitation")),
        );
        DeclaredModes {
            form: declared.form && self.elicit.form_mode,
            url: declared.url && self.elicit.url_mode,
        }
    }

    /// The `initialize` frame as the server gets it: the host's `elicitation` capability
    /// replaced by the narrowed modes when policy took one away (`None`: unchanged).
    pub(super) fn narrow_initialize(&self, map: &Map<String, Value>) -> Option<Vec<u8>> {
        let params = map.get("params");
        let declared = DeclaredModes::from_capability(
            params.and_then(|p| p.pointer("/capabilities/elicitation")),
        );
        let narrowed = self.host_modes(params);
        if narrowed == declared {
            return None;
        }
        let mut map = map.clone();
        let caps = map
            .get_mut("params")?
            .get_mut("capabilities")?
            .as_object_mut()?;
        match (narrowed.form, narrowed.url) {
            (false, false) => {
                caps.remove("elicitation");
            }
            (true, false) => {
                caps.insert("elicitation".into(), serde_json::json!({"form": {}}));
            }
            (false, true) => {
                caps.insert("elicitation".into(), serde_json::json!({"url": {}}));
            }
            (true, true) => {}
        }
        Some(serde_json::to_vec(&map).unwrap_or_default())
    }
}
