//! Elicitation carried inside answers (issue 6 §7, §8): a -32042
//! `URLElicitationRequiredError` (URL elicitations gated, the requirement recorded by the
//! original request's digest, one retry after completion or expiry) and 2026-07-28
//! `input_required` results (entries judged with their own request's capabilities; the
//! retry's `inputResponses` validated against the forms shown).

use super::elicit::{FLOW_TTL_MS, MAX_FLOWS, now};
use super::{Ev, Relay, S2H};
use bastion_core::elicit::flow::{HostAction, UrlFlow};
use bastion_core::elicit::{DeclaredModes, validate_answer};
use bastion_core::finding::{Code, Verdict};
use serde_json::Value;

impl Relay {
    /// Judges the `inputRequests` of a 2026-07-28 `input_required` result (issue 6 §8):
    /// `Ok(result as the host gets it)` (URL entries rewritten, forms remembered under
    /// the result's `requestState` to validate the retry's `inputResponses`), or
    /// `Err(findings)` when an entry is refused and the whole result becomes an error.
    /// The modes are the ones the original request declared in
    /// `_meta["io.modelcontextprotocol/clientCapabilities"].elicitation` (2026-07-28:
    /// capabilities are per request), narrowed by policy; a request without that `_meta`
    /// (a legacy-era host) counts with the modes it declared in `initialize`.
    pub(super) fn review_input_required(
        &self,
        result: &Value,
        request_params: Option<&Value>,
    ) -> Result<Value, Vec<bastion_core::finding::Finding>> {
        // Bastion's own approval form uses this key: a server must not imitate it.
        if let Some(key) = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .and_then(|o| o.keys().find(|k| k.starts_with("mcp-bastion")))
        {
            return Err(vec![bastion_core::finding::Finding::new(
                Code::MalformedMessage,
                bastion_core::finding::Severity::High,
                bastion_core::finding::pointer_push("/inputRequests", key),
                "input request keys starting with \"mcp-bastion\" are reserved for mcp-bastion's own questions",
            )]);
        }
        let caps = request_params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
        let mut policy = self.elicit.policy.clone();
        policy.modes = match caps {
            Some(c) => {
                let declared = DeclaredModes::from_capability(c.get("elicitation"));
                DeclaredModes {
                    form: declared.form && self.elicit.form_mode,
                    url: declared.url && self.elicit.url_mode,
                }
            }
            None => self.elicit_policy().modes,
        };
        let review =
            bastion_core::elicit::stateless::review_input_requests(result, &policy, &self.name);
        if review.verdict == Verdict::Block {
            return Err(review.findings);
        }
        if let Some(state) = result.get("requestState").and_then(Value::as_str)
            && !review.forms.is_empty()
        {
            let t = now();
            let mut st = self.state();
            st.stateless_forms.retain(|_, (expires, _)| *expires > t);
            if st.stateless_forms.len() >= MAX_FLOWS {
                // Full of live entries: the oldest answer goes unvalidated rather than
                // memory growing; refuse new forms instead would block the server.
                let oldest = st
                    .stateless_forms
                    .iter()
                    .min_by_key(|(_, (e, _))| *e)
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    st.stateless_forms.remove(&k);
                }
            }
            st.stateless_forms.insert(
                state.to_owned(),
                (t.saturating_add(FLOW_TTL_MS), review.forms.clone()),
            );
        }
        Ok(review.rewritten)
    }

    /// A stateless-era retry answering a server's `input_required`: every `inputResponses`
    /// entry answering a remembered form must fit it. `Err(message)` when one does not
    /// (the retry is refused, not forwarded).
    pub(super) fn check_input_responses(&self, params: &Value) -> Result<(), String> {
        // A round of an approved call carries the server's state inside Bastion's.
        let Some(state) = params
            .get("requestState")
            .and_then(Value::as_str)
            .and_then(super::approve_stateless::server_state_of)
        else {
            return Ok(());
        };
        let Some((_, forms)) = self.state().stateless_forms.get(state).cloned() else {
            return Ok(());
        };
        let responses = params.get("inputResponses");
        for (key, form) in &forms {
            let Some(answer) = responses.and_then(|r| r.get(key)) else {
                continue;
            };
            if let Err(e) = validate_answer(form, answer) {
                return Err(format!(
                    "the answer to input request {key:?} does not match its requestedSchema ({e})"
                ));
            }
        }
        self.state().stateless_forms.remove(state);
        Ok(())
    }

    /// The retry gate of -32042 requirements (issue 6 §7): `Ok(Some(digest))` when this
    /// request is the one allowed retry of a requirement (now in flight), `Ok(None)` when
    /// it is not a requirement's request, `Err(why)` when it is one that may not run now
    /// (before completion or expiry, while the retry is in flight, or after it).
    pub(super) fn gate_retry(
        &self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Option<String>, String> {
        if self.state().requirements.is_empty() {
            return Ok(None);
        }
        let Ok(digest) = bastion_core::elicit::required::request_digest(method, params) else {
            return Ok(None);
        };
        let mut st = self.state();
        let Some(req) = st.requirements.get_mut(&digest) else {
            return Ok(None);
        };
        req.begin_retry(&digest, now())
            .map(|()| Some(digest))
            .map_err(|e| e.to_string())
    }

    /// The answer to a requirement's retry arrived: nothing more may run for it.
    pub(super) fn finish_retry(&self, digest: &str) {
        if let Some(r) = self.state().requirements.get_mut(digest) {
            r.finish_retry();
        }
    }

    /// A -32042 `URLElicitationRequiredError` answering `method` with `params`: its URL
    /// elicitations go through the URL gate (refused ones removed; none left → a plain
    /// policy error), the requirement is recorded with the request's digest, and a flow
    /// waiting out of band is started for each kept elicitation. Returns the error object
    /// to send to the host.
    pub(super) async fn review_required(
        &self,
        error: &Value,
        method: &str,
        params: Option<&Value>,
    ) -> Value {
        let review = bastion_core::elicit::required::review_required_error(
            error,
            &self.elicit.policy,
            &self.name,
        );
        if !review.findings.is_empty() {
            let ev = Ev::new(S2H, "error", Verdict::Flag, 0)
                .method(method)
                .reason("url_elicitation_required_reviewed")
                .codes(&review.findings);
            self.audit.record(ev.0).await;
        }
        if review.kept_ids.is_empty() {
            return review.error;
        }
        if let Ok(digest) = bastion_core::elicit::required::request_digest(method, params) {
            let requirement = bastion_core::elicit::required::Requirement::new(
                digest.clone(),
                review.kept_ids.clone(),
                now(),
                FLOW_TTL_MS,
            );
            let mut st = self.state();
            if st.requirements.len() >= MAX_FLOWS {
                st.requirements.clear();
            }
            st.requirements.insert(digest, requirement);
        }
        let urls: Vec<(String, String)> = review
            .error
            .pointer("/data/elicitations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                Some((
                    e.get("elicitationId")?.as_str()?.to_owned(),
                    e.get("url")?.as_str()?.to_owned(),
                ))
            })
            .collect();
        for (eid, url) in urls {
            let t = now();
            let mut flow = UrlFlow::new(
                eid.clone(),
                self.name.clone(),
                self.session.clone(),
                url,
                t,
                FLOW_TTL_MS,
            );
            // The client opens the URL itself in this flow: it waits out of band at once.
            let _ = flow.show(t);
            let _ = flow.answer(HostAction::Accept, t);
            let _ = flow.await_out_of_band(t);
            self.state().flows.insert(eid, flow.clone());
            self.persist_flow(&flow).await;
        }
        review.error
    }
}
