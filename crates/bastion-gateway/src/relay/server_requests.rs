//! Server → host requests (sampling, elicitation, roots, ping) and notifications:
//! refuse what fails the checks (answering the server), keep requests pending until the
//! host answers, clean every string, forward, audit.

use super::boundary::{Debt, Owe};
use super::{Ev, Relay, S2H, serialize};
use bastion_core::envelope::{Id, codes};
use bastion_core::finding::{Code, Verdict};
use bastion_core::json::Member;
use bastion_core::methods;
use bastion_core::sanitize::{ValueOutcome, sanitize_value};
use serde_json::{Map, Value};

impl Relay {
    pub(super) async fn server_request(
        &self,
        frame: Vec<u8>,
        mut map: Map<String, Value>,
        id: Id,
        method: &str,
    ) {
        let raw_id = map.member("id").cloned().unwrap_or(Value::Null);
        let ev = |v| {
            Ev::new(S2H, "request", v, frame.len())
                .method(method)
                .id(&raw_id)
        };
        // A pending server request keeps its id until the host answers (and there is no
        // deadline for that): an id of megabytes, 65,536 times, would be gigabytes. The
        // same limit as for the host's ids; the answer carries a null id, not the id.
        if raw_id.to_string().len() > super::MAX_ID_BYTES {
            let reason = Code::InvalidEnvelope.as_str();
            self.record_unrequested(ev(Verdict::Block).reason(reason).0)
                .await;
            let message = format!(
                "Invalid request: request ids longer than {} bytes are refused",
                super::MAX_ID_BYTES
            );
            self.answer_server(None, codes::INVALID_REQUEST, &message, reason)
                .await;
            return;
        }
        // Until the request is forwarded or refused, a panic below answers the server.
        let mut owe = Owe::new(Debt::ServerRequest {
            id: id.clone(),
            raw_id: raw_id.clone(),
            method: method.to_owned(),
            registered: false,
        });
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::server_request");
        let own_prefix = matches!(&id, Id::Str(s) if s.starts_with(super::OWN_ID_PREFIX));
        let problem = match methods::check_request_params(method, map.member("params")) {
            Ok(()) if own_prefix => Some((
                codes::INVALID_REQUEST,
                format!(
                    "Invalid request: ids starting with {:?} are reserved for mcp-bastion's own requests",
                    super::OWN_ID_PREFIX
                ),
                Code::InvalidEnvelope.as_str(),
            )),
            Err(e) => Some((
                codes::INVALID_PARAMS,
                format!("Invalid params: {e}"),
                Code::MalformedMessage.as_str(),
            )),
            Ok(()) if self.state().pending.server_len() >= super::MAX_PENDING => Some((
                codes::POLICY_REFUSED,
                format!(
                    "mcp-bastion refused the request: {} requests of the server already wait for the client",
                    super::MAX_PENDING
                ),
                "too_many_pending",
            )),
            Ok(())
                if !self
                    .state()
                    .pending
                    .add_server(id.clone(), method.to_owned()) =>
            {
                Some((
                    codes::INVALID_REQUEST,
                    "Invalid request: this id is already used by a request still pending"
                        .to_owned(),
                    Code::DuplicateRequestId.as_str(),
                ))
            }
            Ok(()) => None,
        };
        if let Some((code, message, reason)) = problem {
            self.record_unrequested(ev(Verdict::Block).reason(reason).0)
                .await;
            self.answer_server(Some(&raw_id), code, &message, reason)
                .await;
            return;
        }
        owe.registered();
        let mut rewritten = false;
        if method == "elicitation/create" {
            let params = map.member("params").cloned().unwrap_or(Value::Null);
            let Some(shown) = self
                .review_server_elicitation(&id, &raw_id, &params, frame.len())
                .await
            else {
                return;
            };
            if shown != params {
                map.insert("params".into(), shown);
                rewritten = true;
            }
        }
        let (cleaned, e) = clean_params(&mut map, ev);
        if method != "elicitation/create" {
            self.audit.record(e.0).await;
        }
        self.to_host
            .send(if cleaned.removed > 0 || rewritten {
                serialize(&map)
            } else {
                frame
            })
            .await;
        owe.paid();
    }

    pub(super) async fn server_notification(
        &self,
        frame: Vec<u8>,
        mut map: Map<String, Value>,
        method: &str,
    ) {
        if self.withhold_list_changed(method, frame.len()).await {
            return;
        }
        let ev = |v| Ev::new(S2H, "notification", v, frame.len()).method(method);
        if !method.starts_with("notifications/") {
            // A request method without an id: no answer is expected, none can be checked.
            let own = self
                .record_unrequested(
                    ev(Verdict::Block)
                        .reason(Code::InvalidEnvelope.as_str())
                        .code(Code::InvalidEnvelope)
                        .0,
                )
                .await;
            if own {
                eprintln!(
                    "mcp-bastion[{}]: dropped a server notification: `{}` is not a notification method",
                    self.name,
                    super::shown_method(method)
                );
            }
            return;
        }
        if method == "notifications/elicitation/complete"
            && !self
                .check_completion(map.member("params"), frame.len())
                .await
        {
            return;
        }
        // Notification texts (log messages, progress messages) reach the host as well.
        let (cleaned, e) = clean_params(&mut map, ev);
        // Notifications answer no request: a flood of them is folded like refusals.
        self.record_unrequested(e.0).await;
        self.to_host
            .send(if cleaned.removed > 0 {
                serialize(&map)
            } else {
                frame
            })
            .await;
    }
}

/// Cleans every string of the frame's `params` ([`sanitize_value`]); returns what was
/// removed and the frame's audit event made by `ev`: verdict `sanitize` with reason
/// `sanitized` and the removed classes as codes, or `allow` when nothing was removed.
fn clean_params(map: &mut Map<String, Value>, ev: impl Fn(Verdict) -> Ev) -> (ValueOutcome, Ev) {
    let cleaned = map
        .get_mut("params")
        .map(sanitize_value)
        .unwrap_or_default();
    let verdict = if cleaned.removed > 0 {
        Verdict::Sanitize
    } else {
        Verdict::Allow
    };
    let mut e = ev(verdict).removed(cleaned.removed);
    for code in &cleaned.codes {
        e = e.code(*code).reason("sanitized");
    }
    (cleaned, e)
}
