//! Deadlines and shutdown: requests the server did not answer in time, and requests
//! still pending when it exits, are answered by the gateway itself.

use super::boundary::{GATEWAY, HeldAnswer};
use super::{Ev, Relay};
use crate::pending::HostRequest;
use bastion_core::envelope::codes;
use bastion_core::finding::Verdict;
use serde_json::{Value, json};
use tokio::time::Instant;

impl Relay {
    /// Answers host requests whose deadline passed with `request_timeout` and tells the
    /// server with `notifications/cancelled` (never for `initialize`, which MCP forbids
    /// cancelling). Runs until the relay is dropped. The cancellation is sent only if the
    /// server's queue has room: a server that does not read its input must not stop the
    /// timers of every other request.
    pub(crate) async fn run_timers(&self) {
        loop {
            let next = self.state().pending.next_deadline();
            if let Some(t) = next {
                tokio::select! {
                    () = tokio::time::sleep_until(t) => {}
                    () = self.timer_wake.notified() => continue,
                }
            } else {
                self.timer_wake.notified().await;
                continue;
            }
            #[cfg(feature = "failpoints")]
            fail::fail_point!("relay::timers");
            let expired = self.state().pending.expire(Instant::now());
            for req in expired {
                // Each answer behind the panic boundary: a bug while answering one
                // request answers it with `inspection_failed` and the others go on.
                self.contain(GATEWAY, 0, self.time_out(HeldAnswer::new(req)))
                    .await;
            }
        }
    }

    /// Answers `req` (its deadline passed) with `request_timeout` and tells the server
    /// with `notifications/cancelled`, as far as the server's queue has room.
    async fn time_out(&self, mut req: HeldAnswer) {
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::time_out");
        if req.cancelled {
            // The host withdrew it and the server was told: nothing is due to either.
            // The audit still names the request that reached the server.
            self.record_withdrawn(&req).await;
            req.paid();
            return;
        }
        let ms = self.limits.timeout_for(&req.method);
        let message = format!(
            "The server did not answer {} within {ms} ms; mcp-bastion cancelled the request",
            req.method
        );
        self.fail_request(
            &req,
            codes::REQUEST_TIMEOUT,
            &message,
            "request_timeout",
            json!({"timeout_ms": ms}),
        )
        .await;
        req.paid();
        if req.method != "initialize" {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": req.raw_id, "reason": format!("mcp-bastion: no answer within {ms} ms")}});
            let _ = self
                .to_server
                .try_send(serde_json::to_vec(&cancel).unwrap_or_default());
        }
    }

    /// The host went away: tells the server that every request still pending is
    /// abandoned, one `notifications/cancelled` each (never for `initialize`), so it can
    /// stop the work before its stdin closes. Sent only as far as the server's queue has
    /// room; returns how many were queued.
    pub(crate) fn cancel_all_upstream(&self, why: &str) -> usize {
        let ids: Vec<Value> = self
            .state()
            .pending
            .host_requests()
            .filter(|r| r.method != "initialize" && !r.cancelled)
            .map(|r| r.raw_id.clone())
            .collect();
        ids.into_iter()
            .filter(|id| {
                let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": id, "reason": format!("mcp-bastion: {why}")}});
                self.to_server
                    .try_send(serde_json::to_vec(&cancel).unwrap_or_default())
            })
            .count()
    }

    /// Answers every pending host request with `upstream_exited` (the server is gone).
    pub(crate) async fn fail_all_pending(&self) {
        let all = self.state().pending.drain_host();
        for req in all {
            if req.cancelled {
                self.record_withdrawn(&req).await;
                continue;
            }
            let message = format!("The server exited before answering {}", req.method);
            self.fail_request(
                &req,
                codes::UPSTREAM_UNAVAILABLE,
                &message,
                "upstream_exited",
                Value::Null,
            )
            .await;
        }
    }

    /// Audits a forwarded request the host cancelled that goes without an answer (its
    /// deadline passed, or the server exited): direction `gateway`, verdict `allow` (it
    /// reached the server), reason `cancelled_by_host`, method, target and id. A request
    /// whose answer still came is audited with that answer instead.
    async fn record_withdrawn(&self, req: &HostRequest) {
        let ev = Ev::new("gateway", "request", Verdict::Allow, 0)
            .method(&req.method)
            .target(req.target.as_deref())
            .id(&req.raw_id)
            .reason("cancelled_by_host");
        self.audit.record(ev.0).await;
    }

    /// Audits a host request the gateway answers itself and sends the host the error.
    async fn fail_request(
        &self,
        req: &HostRequest,
        code: i64,
        message: &str,
        reason: &str,
        extra: Value,
    ) {
        if req.own {
            self.own_page_failed(req, reason, 0).await;
            return;
        }
        let ev = Ev::new("gateway", "request", Verdict::Block, 0)
            .method(&req.method)
            .target(req.target.as_deref())
            .id(&req.raw_id)
            .reason(reason);
        self.audit.record(ev.0).await;
        self.answer_host(Some(&req.raw_id), code, message, reason, extra)
            .await;
    }
}
