//! The gateway's own answers for the upstream: a POST that failed inside Bastion, an
//! unreachable or unauthorized server, and the audit rows they leave.

use super::Pump;
use serde_json::{Value, json};

impl Pump {
    /// A POST of `frame` panicked (a bug in Bastion; the panic hook printed where): a
    /// request gets -32055 `inspection_failed` at once, as the relay's boundary answers
    /// (`relay::boundary`), and the audit records it (direction `gateway`, size, never
    /// content); a notification or answer is lost, and stderr says so.
    pub(super) async fn failed_inside(&self, frame: &[u8]) {
        let msg: Value = serde_json::from_slice(frame).unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str);
        let id = method.and(msg.get("id")).filter(|id| !id.is_null());
        let what = if id.is_some() {
            "the request was answered with that reason instead"
        } else {
            "the message was not delivered"
        };
        eprintln!(
            "mcp-bastion[{}]: upstream: sending a message of {} bytes to the server failed inside mcp-bastion; {what} (inspection_failed). This is a bug: please report it with the location printed above.",
            self.name,
            frame.len()
        );
        self.audit
            .record(bastion_store::AuditEvent {
                direction: "gateway".into(),
                message_kind: Some(if id.is_some() { "request" } else { "message" }.into()),
                method: method.map(str::to_owned),
                request_id: id.map(Value::to_string),
                verdict: "block".into(),
                reason: Some(crate::relay::INSPECTION_FAILED_REASON.to_owned()),
                codes: vec![crate::relay::INSPECTION_FAILED_REASON.to_owned()],
                bytes: i64::try_from(frame.len()).unwrap_or(i64::MAX),
                ..bastion_store::AuditEvent::default()
            })
            .await;
        if let Some(id) = id {
            let answer = self.own_error(
                id,
                crate::relay::INSPECTION_FAILED,
                "mcp-bastion failed while sending this request to the server (a bug: see its stderr)",
                json!({"reason": crate::relay::INSPECTION_FAILED_REASON, "server": self.name}),
            );
            self.to_host(&answer).await;
        }
    }

    /// Answers request `id` (when there is one) with -32054 `upstream_unavailable`.
    pub(super) async fn unavailable(&self, id: Option<&Value>, detail: &str) {
        self.refuse(id, "upstream_unavailable", detail, None).await;
    }

    /// Records an OAuth outcome (`oauth_authorized` or the failure reason; never a
    /// token) in the audit log; the issuer goes to stderr.
    pub(super) async fn audit_oauth(&self, reason: &str, issuer: Option<&str>) {
        if let Some(issuer) = issuer {
            eprintln!("mcp-bastion[{}]: OAuth: authorized by {issuer}", self.name);
        }
        self.audit
            .record(bastion_store::AuditEvent {
                direction: "gateway".into(),
                message_kind: Some("oauth".into()),
                verdict: if reason == "oauth_authorized" {
                    "allow"
                } else {
                    "block"
                }
                .into(),
                reason: Some(reason.to_owned()),
                ..bastion_store::AuditEvent::default()
            })
            .await;
    }

    /// Answers request `id` (when there is one) with the gateway's own -32054 error of
    /// `reason` (`upstream_unavailable`, `upstream_unauthorized`; `oauth_reason` says why
    /// an authorization failed), and audits it.
    pub(super) async fn refuse(
        &self,
        id: Option<&Value>,
        reason: &str,
        detail: &str,
        oauth_reason: Option<&str>,
    ) {
        eprintln!("mcp-bastion[{}]: upstream: {detail}", self.name);
        self.audit
            .record(bastion_store::AuditEvent {
                direction: "gateway".into(),
                message_kind: Some("error".into()),
                request_id: id.map(Value::to_string),
                verdict: "block".into(),
                reason: Some(reason.to_owned()),
                ..bastion_store::AuditEvent::default()
            })
            .await;
        if let Some(id) = id {
            let mut data = json!({"reason": reason, "server": self.name});
            if let Some(r) = oauth_reason {
                data["oauth_reason"] = json!(r);
            }
            let message = if reason == "upstream_unauthorized" {
                format!("The server refused access: {detail}")
            } else {
                format!("The server could not be reached: {detail}")
            };
            let answer = self.own_error(
                id,
                bastion_core::envelope::codes::UPSTREAM_UNAVAILABLE,
                &message,
                data,
            );
            self.to_host(&answer).await;
        }
    }

    /// One of the pump's own error answers: built as Bastion's errors are
    /// ([`bastion_core::envelope::error_response`]: escaped for display, `message` cut),
    /// with this session's secret in `data.gateway`, which the relay turns into Bastion's
    /// mark (the answer reaches it on the server's path).
    fn own_error(&self, id: &Value, code: i64, message: &str, data: Value) -> Vec<u8> {
        let frame = bastion_core::envelope::error_response(Some(id), code, message, data);
        let Ok(mut answer) = serde_json::from_slice::<Value>(&frame) else {
            return frame;
        };
        if let Some(data) = answer
            .pointer_mut("/error/data")
            .and_then(Value::as_object_mut)
        {
            data.insert(
                bastion_core::envelope::GATEWAY_MARK_MEMBER.into(),
                self.own_mark.clone().into(),
            );
        }
        serde_json::to_vec(&answer).unwrap_or(frame)
    }
}
