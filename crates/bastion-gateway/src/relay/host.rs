//! Host → server: refuse what fails the checks (answering the host, or the server when
//! the refused frame was the host's answer to a server request), refuse calls to
//! withheld descriptors, correlate requests, forward the rest byte for byte.

use super::boundary::{Debt, Owe};
use super::{Ev, H2S, MAX_ID_BYTES, MAX_PENDING, Relay, audit_target, target_of};
use crate::io::Sent;
use crate::pending::RequestExtra;
use bastion_core::envelope::{self, Id, Kind, codes};
use bastion_core::era;
use bastion_core::finding::{Code, Verdict};
use bastion_core::json::Member;
use bastion_core::json::{self, Recovered};
use bastion_core::methods;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// A host frame the checks refused.
struct Refused<'a> {
    code: Code,
    detail: String,
    id: Option<&'a Value>,
    /// A top-level `method` was read: the frame was a request or notification.
    method_seen: bool,
    /// Not JSON at all (-32700) rather than refused JSON (-32600).
    parse: bool,
    /// JSON Pointer of the offending place, if known.
    path: String,
}

impl Relay {
    pub(crate) async fn on_host_frame(self: &Arc<Self>, frame: Vec<u8>) {
        let map = match json::parse_frame(&frame, self.limits.max_depth) {
            Ok(m) => m,
            Err(rej) => {
                let r = Refused {
                    code: rej.error.code(),
                    detail: rej.error.to_string(),
                    id: rej.id.as_ref(),
                    method_seen: rej.method_seen,
                    parse: rej.error.is_parse_error(),
                    path: rej.error.path().to_owned(),
                };
                self.host_rejected(r, frame.len()).await;
                return;
            }
        };
        let kind = match envelope::classify(&map) {
            Ok(k) => k,
            Err(e) => {
                let r = Refused {
                    code: Code::InvalidEnvelope,
                    detail: e.to_string(),
                    id: map.member("id"),
                    method_seen: map.has_member("method"),
                    parse: false,
                    path: String::new(),
                };
                self.host_rejected(r, frame.len()).await;
                return;
            }
        };
        match kind {
            Kind::Request { id, method } => self.host_request(frame, map, id, method).await,
            Kind::Notification { method } => self.host_notification(frame, &map, &method).await,
            Kind::Result { id } | Kind::Error { id: Some(id), .. } => {
                self.host_answer(frame, &map, &id).await;
            }
            Kind::Error { id: None, .. } => {
                // The host could not read something: nothing to correlate; record it.
                let ev = Ev::new(H2S, "error", Verdict::Block, frame.len())
                    .reason(Code::UnknownResponseId.as_str());
                self.audit.record(ev.0).await;
            }
        }
    }

    /// A host frame exceeded `max_host_frame_bytes` and was discarded while reading.
    pub(crate) async fn host_oversized(&self, bytes: usize, rec: Recovered) {
        let detail = format!(
            "a frame of {bytes} bytes exceeds the limit of {} bytes",
            self.limits.max_host_frame_bytes
        );
        let r = Refused {
            code: Code::FrameTooLarge,
            detail,
            id: rec.id.as_ref(),
            method_seen: rec.method_seen,
            parse: false,
            path: String::new(),
        };
        self.host_rejected(r, bytes).await;
    }

    /// A host frame stayed incomplete beyond `read_timeout_ms` and was discarded.
    pub(crate) async fn host_read_timeout(&self, bytes: usize, rec: Recovered) {
        let detail = format!(
            "a frame stayed incomplete ({bytes} bytes) for more than {} ms",
            self.limits.read_timeout_ms
        );
        let r = Refused {
            code: Code::ReadTimeout,
            detail,
            id: rec.id.as_ref(),
            method_seen: rec.method_seen,
            parse: false,
            path: String::new(),
        };
        self.host_rejected(r, bytes).await;
    }

    /// A host frame failed the limits, the strict parse or the envelope checks: it is not
    /// forwarded. A refused request is answered to the host; a refused answer to a server
    /// request (no `method`, id of a pending server request) is answered to the server.
    async fn host_rejected(&self, r: Refused<'_>, bytes: usize) {
        let parsed_id = r.id.and_then(Id::from_value);
        let answers_server = match (&parsed_id, r.method_seen) {
            (Some(i), false) => self.state().pending.take_server(i),
            _ => None,
        };
        // Taken from the pending map: a panic below still answers the server.
        let _owe = answers_server.as_ref().zip(r.id).map(|(method, id)| {
            Owe::new(Debt::ServerAnswer {
                raw_id: id.clone(),
                method: method.clone(),
            })
        });
        let ev = Ev::new(H2S, "unknown", Verdict::Block, bytes)
            .reason(r.code.as_str())
            .code(r.code);
        if let (Some(method), Some(id)) = (answers_server, r.id) {
            self.audit.record(ev.method(&method).id(id).0).await;
            let message = format!(
                "The client's answer was refused by mcp-bastion ({})",
                r.detail
            );
            self.answer_server(Some(id), codes::INTERNAL_ERROR, &message, r.code.as_str())
                .await;
            return;
        }
        self.audit
            .record(
                match r.id {
                    Some(i) => ev.id(i),
                    None => ev,
                }
                .0,
            )
            .await;
        let (rpc_code, what) = if r.parse {
            (codes::PARSE_ERROR, "Parse error")
        } else {
            (codes::INVALID_REQUEST, "Invalid request")
        };
        let extra = if r.path.is_empty() {
            Value::Null
        } else {
            json!({"path": r.path})
        };
        let id = r.id.filter(|_| parsed_id.is_some());
        let message = format!("{what}: mcp-bastion refused the message ({})", r.detail);
        self.answer_host(id, rpc_code, &message, r.code.as_str(), extra)
            .await;
    }

    async fn host_request(
        self: &Arc<Self>,
        frame: Vec<u8>,
        mut map: Map<String, Value>,
        id: Id,
        method: String,
    ) {
        let raw_id = map.member("id").cloned().unwrap_or(Value::Null);
        // Until the request is forwarded or refused, a panic below answers the host.
        let mut owe = Owe::new(Debt::HostRequest {
            id: id.clone(),
            raw_id: raw_id.clone(),
            method: method.clone(),
            registered: false,
        });
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::host_request");
        let params = map.member("params");
        let target = target_of(&method, params);
        let shown = audit_target(&method, target.as_deref());
        let bytes = frame.len();
        let ev = |verdict| {
            Ev::new(H2S, "request", verdict, bytes)
                .method(&method)
                .target(shown.as_deref())
                .id(&raw_id)
        };
        if raw_id.to_string().len() > MAX_ID_BYTES {
            self.audit
                .record(ev(Verdict::Block).reason(Code::InvalidEnvelope.as_str()).0)
                .await;
            let message = format!(
                "Invalid request: request ids longer than {MAX_ID_BYTES} bytes are refused"
            );
            self.answer_host(
                None,
                codes::INVALID_REQUEST,
                &message,
                Code::InvalidEnvelope.as_str(),
                Value::Null,
            )
            .await;
            return;
        }
        if let Err(e) = methods::check_request_params(&method, params) {
            self.audit
                .record(ev(Verdict::Block).reason(Code::MalformedMessage.as_str()).0)
                .await;
            let message = format!("Invalid params: {e}");
            self.answer_host(
                Some(&raw_id),
                codes::INVALID_PARAMS,
                &message,
                Code::MalformedMessage.as_str(),
                Value::Null,
            )
            .await;
            return;
        }
        if let Some(Err(detail)) = params
            .filter(|p| p.member("inputResponses").is_some())
            .map(|p| self.check_input_responses(p))
        {
            self.audit
                .record(ev(Verdict::Block).reason("elicitation_answer_invalid").0)
                .await;
            let message = format!("Invalid params: {detail}; mcp-bastion did not forward it");
            self.answer_host(
                Some(&raw_id),
                codes::INVALID_PARAMS,
                &message,
                "elicitation_answer_invalid",
                Value::Null,
            )
            .await;
            return;
        }
        // A -32042 requirement allows its original request one retry.
        let requirement = match self.gate_retry(&method, params) {
            Ok(r) => r,
            Err(why) => {
                self.audit
                    .record(ev(Verdict::Block).reason("retry_not_eligible").0)
                    .await;
                let message = format!(
                    "mcp-bastion refused the retry: {why}; the operation may run at most once per URL elicitation requirement"
                );
                self.answer_host(
                    Some(&raw_id),
                    codes::POLICY_REFUSED,
                    &message,
                    "retry_not_eligible",
                    Value::Null,
                )
                .await;
                return;
            }
        };
        let frame = match (method == "initialize")
            .then(|| self.narrow_initialize(&map))
            .flatten()
        {
            Some(narrowed) => narrowed,
            None => frame,
        };
        let confirm = self.confirm.as_ref().filter(|_| method == "tools/call");
        let refusal = {
            let mut st = self.state();
            if let Some((era, _version)) = era::from_host_request(&method, params) {
                st.era = Some(era);
            }
            if method == "initialize" {
                st.host_elicitation = super::approve::host_allows_form_elicitation(params);
                st.host_modes = Some(self.host_modes(params));
            }
            if st.pending.host_contains(&id) || st.held.contains(&id) {
                let m =
                    format!("Invalid request: id {id} is already used by a request still pending");
                Some((Code::DuplicateRequestId.as_str(), codes::INVALID_REQUEST, m))
            } else if let Some((t, why)) = target
                .as_deref()
                .and_then(|t| st.withheld_reason(&method, t).map(|w| (t, w)))
            {
                let shown = audit_target(&method, Some(t)).unwrap_or_default();
                let m = if why == super::contract::CONTRACT_MISMATCH {
                    format!(
                        "mcp-bastion withheld {shown:?} from server {:?}: it is not in the signed contract, or the server publishes it differently from the signed entry; the publisher must sign what the server publishes (or change the server to publish what was signed)",
                        self.name
                    )
                } else if why == super::PIN_STORE_UNAVAILABLE {
                    format!(
                        "mcp-bastion withheld {shown:?} from server {:?}: its pin could not be read or written (the store is locked, read-only or full), so it cannot be checked; it is offered again with the next listing once the store works",
                        self.name
                    )
                } else if why == "pending_review" {
                    format!(
                        "mcp-bastion withheld {shown:?} from server {:?}: it is new, changed or revoked since it was approved and waits for review; run `mcp-bastion pins list --server {}` and `mcp-bastion pins diff ID`",
                        self.name, self.name
                    )
                } else {
                    format!(
                        "mcp-bastion withheld {shown:?} from server {:?} because its descriptor failed security checks; run `mcp-bastion audit --server {}` to see why",
                        self.name, self.name
                    )
                };
                Some((why, codes::POLICY_REFUSED, m))
            } else if method == "tools/call" && self.audit.refuses_calls() {
                let m = format!(
                    "mcp-bastion refused the tool call: the audit log of server {:?} cannot be written (store locked, read-only or disk full), and calls that cannot be audited do not run",
                    self.name
                );
                Some(("audit_unavailable", codes::POLICY_REFUSED, m))
            } else if st.pending.host_len() >= MAX_PENDING {
                let m = format!(
                    "mcp-bastion refused the request: {MAX_PENDING} requests are already waiting for the server"
                );
                Some(("too_many_pending", codes::POLICY_REFUSED, m))
            } else {
                if confirm.is_some() {
                    st.held.insert(id.clone());
                }
                None
            }
        };
        if let Some((reason, code, message)) = refusal {
            self.audit.record(ev(Verdict::Block).reason(reason).0).await;
            self.answer_host(Some(&raw_id), code, &message, reason, Value::Null)
                .await;
            return;
        }
        // Held (confirmation) or about to be pending at the server from here on.
        owe.registered();
        if let Some(setup) = confirm {
            let held = super::approve::HeldCall {
                requirement,
                // The parsed frame is not needed past here: its params move, uncopied.
                params: map.remove("params").unwrap_or(Value::Null),
                frame,
                id,
                raw_id,
                shown,
            };
            // A tool the host never listed in this session: Bastion lists the server's
            // tools itself first (on a task of its own, so the host's other traffic goes
            // on), then decides against what that listing kept.
            let unlisted = held
                .params
                .member("name")
                .and_then(Value::as_str)
                .and_then(|name| self.needs_own_listing(name));
            if let Some(seen) = unlisted {
                let setup = setup.clone();
                // The task owes the host the answer now, behind a boundary of its own.
                let debt = Debt::HostRequest {
                    id: held.id.clone(),
                    raw_id: held.raw_id.clone(),
                    method: method.clone(),
                    registered: true,
                };
                owe.paid();
                self.spawn_contained(bytes, debt, move |relay| async move {
                    let meta = held.params.member("_meta").cloned();
                    let complete = relay.list_tools_on_own_behalf(seen, meta.as_ref()).await;
                    if complete && relay.refuse_unlisted(&held).await {
                        return;
                    }
                    relay.confirm_call(&setup, held).await;
                });
                return;
            }
            self.confirm_call(setup, held).await;
            return;
        }
        let extra = RequestExtra {
            continuation: params.and_then(|p| p.member("cursor")).is_some(),
            requirement,
            frame: None,
            own: false,
        };
        self.forward_request(frame, id, raw_id, method, shown, extra)
            .await;
        owe.paid();
    }

    /// Registers `id` as pending at the server (deadline per method) and forwards the
    /// request; answers the host at once when the server cannot take it.
    pub(super) async fn forward_request(
        &self,
        frame: Vec<u8>,
        id: Id,
        raw_id: Value,
        method: String,
        shown: Option<String>,
        extra: RequestExtra,
    ) {
        let bytes = frame.len();
        let ev = |verdict| {
            Ev::new(H2S, "request", verdict, bytes)
                .method(&method)
                .target(shown.as_deref())
                .id(&raw_id)
        };
        let mut extra = extra;
        let own = extra.own;
        // Requests whose answer may be a -32042 error or a 2026-07-28 `input_required`
        // result keep their frame: its digest and its per-request capabilities are needed then.
        if matches!(
            method.as_str(),
            "tools/call" | "prompts/get" | "resources/read"
        ) {
            extra.frame = Some(Arc::from(frame.as_slice()));
        }
        {
            let mut st = self.state();
            let timeout = Duration::from_millis(self.limits.timeout_for(&method));
            let before = st.pending.next_deadline();
            let next = st.pending.add_host(
                id.clone(),
                method.clone(),
                shown.clone(),
                raw_id.clone(),
                Instant::now() + timeout,
                extra,
            );
            if next != before {
                self.timer_wake.notify_one();
            }
        }
        // An allowed request is audited once, with its answer (method, target, id, verdict);
        // one row per exchange keeps the audit cheap under load.
        let wait = Duration::from_millis(self.limits.timeout_for(&method));
        let (reason, message) = match self.forward_to_server(frame, wait).await {
            Sent::Queued => return,
            Sent::Closed => (
                "upstream_exited",
                "The server is no longer running".to_owned(),
            ),
            Sent::Full => (
                "upstream_not_reading",
                format!(
                    "The server has not read its input for {} ms; mcp-bastion refused the request",
                    wait.as_millis()
                ),
            ),
        };
        let (taken, withdrawn) = {
            let mut st = self.state();
            // A held call the host cancelled while it waited for room (`forward_held`
            // still holds it) is owed no answer.
            (st.pending.take_host(&id), st.cancelled.contains(&id))
        };
        if let Some(req) = taken.as_ref().filter(|_| own) {
            self.own_page_failed(req, reason, bytes).await;
        } else if taken.is_some() {
            self.audit.record(ev(Verdict::Block).reason(reason).0).await;
            if withdrawn {
                return;
            }
            self.answer_host(
                Some(&raw_id),
                codes::UPSTREAM_UNAVAILABLE,
                &message,
                reason,
                Value::Null,
            )
            .await;
        }
    }

    /// MCP notifications are `notifications/*` (2025-11-25 "Base Protocol"); a
    /// "notification" with a request method (`tools/call` without an id) would run a
    /// request with no answer and no checks, so it is dropped.
    async fn host_notification(&self, frame: Vec<u8>, map: &Map<String, Value>, method: &str) {
        let bytes = frame.len();
        let ev = |v| Ev::new(H2S, "notification", v, bytes).method(method);
        let problem = if method.starts_with("notifications/") {
            methods::check_request_params(method, map.member("params"))
                .err()
                .map(|e| (Code::MalformedMessage, e.to_string()))
        } else {
            Some((
                Code::InvalidEnvelope,
                format!("`{method}` is not a notification method"),
            ))
        };
        if let Some((code, detail)) = problem {
            self.audit
                .record(ev(Verdict::Block).reason(code.as_str()).code(code).0)
                .await;
            eprintln!(
                "mcp-bastion[{}]: dropped a client notification: {detail}",
                self.name
            );
            return;
        }
        // The host cancels a call held for approval: the server never saw it, so the
        // cancellation stays here and the call is dropped once the approval ends.
        if method == "notifications/cancelled"
            && let Some(held) = map
                .member("params")
                .and_then(|p| p.member("requestId"))
                .and_then(Id::from_value)
        {
            let was_held = {
                let mut st = self.state();
                let was_held = st.held.contains(&held);
                if was_held {
                    st.cancelled.insert(held.clone());
                }
                was_held
            };
            if was_held {
                self.audit
                    .record(ev(Verdict::Allow).reason("held_call_cancelled").0)
                    .await;
                return;
            }
            self.audit.record(ev(Verdict::Allow).0).await;
            // Forwarded: the server may still answer (routed as usual), but once it has
            // the cancellation coming no answer is due from Bastion any more, and the
            // frame kept for the request (up to `max_host_frame_bytes`) is not needed.
            // A cancellation the server's full queue refused leaves the request as it
            // was: its deadline still answers the host and cancels it there.
            if self.forward_notification(frame, method).await {
                self.state().pending.cancel_host(&held);
            }
            return;
        }
        self.audit.record(ev(Verdict::Allow).0).await;
        self.forward_notification(frame, method).await;
    }

    /// Forwards a host notification (`method`) to the server, waiting up to
    /// `request_timeout_ms` for room; `false` (audited `upstream_not_reading`) when it
    /// could not be queued.
    async fn forward_notification(&self, frame: Vec<u8>, method: &str) -> bool {
        let bytes = frame.len();
        let wait = Duration::from_millis(self.limits.request_timeout_ms);
        if self.forward_to_server(frame, wait).await == Sent::Queued {
            return true;
        }
        let ev = Ev::new(H2S, "notification", Verdict::Block, bytes)
            .method(method)
            .reason("upstream_not_reading");
        self.audit.record(ev.0).await;
        false
    }

    /// The host answers a server request.
    async fn host_answer(&self, frame: Vec<u8>, map: &Map<String, Value>, id: &Id) {
        let raw_id = map.member("id").cloned().unwrap_or(Value::Null);
        let kind = if map.has_member("result") {
            "result"
        } else {
            "error"
        };
        let bytes = frame.len();
        let ev = |v| Ev::new(H2S, kind, v, bytes).id(&raw_id);
        if self.take_own_answer(id, map) {
            return;
        }
        let taken = self.state().pending.take_server(id);
        let Some(method) = taken else {
            self.audit
                .record(
                    ev(Verdict::Block)
                        .reason(Code::UnknownResponseId.as_str())
                        .0,
                )
                .await;
            return;
        };
        // Until the answer is forwarded or refused, a panic below answers the server.
        let mut owe = Owe::new(Debt::ServerAnswer {
            raw_id: raw_id.clone(),
            method: method.clone(),
        });
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::host_answer");
        if let Some(result) = map.member("result")
            && let Err(e) = methods::check_result(&method, result)
        {
            self.audit
                .record(
                    ev(Verdict::Block)
                        .method(&method)
                        .reason(Code::MalformedMessage.as_str())
                        .0,
                )
                .await;
            let message = format!("The client's answer was refused by mcp-bastion: {e}");
            self.answer_server(
                Some(&raw_id),
                codes::INTERNAL_ERROR,
                &message,
                Code::MalformedMessage.as_str(),
            )
            .await;
            return;
        }
        if method == "elicitation/create" && !self.check_elicitation_answer(id, &raw_id, map).await
        {
            return;
        }
        self.audit
            .record(ev(Verdict::Allow).method(&method).0)
            .await;
        self.to_server.send(frame).await;
        owe.paid();
    }
}
