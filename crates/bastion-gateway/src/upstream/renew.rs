//! `wrap --url`: a new legacy session when the server ended the old one (404; MCP
//! 2025-11-25 Transports §Session Management: the client MUST start a new one).

use super::Pump;
use crate::fetch::FetchRequest;
use reqwest::header::HeaderValue;
use serde_json::{Value, json};
use std::sync::Arc;

impl Pump {
    /// Opens a new legacy session after the server answered 404 to a message sent in
    /// session `stale`: the host's `initialize` again (with the gateway's own id; its
    /// answer is read here, not relayed), then `notifications/initialized` and the `GET`
    /// stream. Concurrent 404s of one session renew it once. The new session must keep the
    /// negotiated protocol version. Audited as `upstream_session_renewed`.
    ///
    /// # Errors
    /// A sentence for the host's -32054 answer when no new session could be opened.
    pub(super) async fn renew_session(self: &Arc<Self>, stale: &str) -> Result<(), String> {
        let mut renewals = self.renewals.lock().await;
        // The stale id stays until the new session is ready: messages sent meanwhile get
        // their own 404 and wait here, and a renewal that fails or is cut short (the
        // request's deadline) leaves the next message to try again.
        let init = {
            let state = self.state();
            if state.id.as_deref() != Some(stale) {
                // Another message renewed it meanwhile: just send again.
                return Ok(());
            }
            state.initialize.clone()
        };
        let lost = "the server ended the session (HTTP 404)";
        let Some(Ok(Value::Object(mut init))) = init.map(|f| serde_json::from_slice::<Value>(&f))
        else {
            return Err(format!("{lost} and there is no initialize to open another"));
        };
        *renewals += 1;
        init.insert(
            "id".into(),
            json!(format!("mcp-bastion-renew-{}", *renewals)),
        );
        let init = Value::Object(init);
        let frame = serde_json::to_vec(&init).map_err(|e| e.to_string())?;
        let (answer, sid) = self.exchange(&init, frame, None).await?;
        let negotiated = answer
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str);
        let expected = self.state().version.clone();
        if negotiated.is_none() || negotiated != expected.as_deref() {
            return Err(format!(
                "{lost} and the new one did not negotiate protocol version {}",
                expected.as_deref().unwrap_or("(none)")
            ));
        }
        let Some(sid) = sid else {
            return Err(format!("{lost} and the new one has no Mcp-Session-Id"));
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let frame = serde_json::to_vec(&initialized).map_err(|e| e.to_string())?;
        // Its 202 carries nothing to read.
        drop(self.exchange(&initialized, frame, Some(&sid)).await);
        {
            let mut state = self.state();
            state.id = Some(sid);
            if let Some(task) = state.listener.take() {
                task.abort();
            }
        }
        Self::after_initialize(self);
        eprintln!(
            "mcp-bastion[{}]: upstream: {lost}; a new session was opened",
            self.name
        );
        self.audit
            .record(bastion_store::AuditEvent {
                direction: "gateway".into(),
                message_kind: Some("session".into()),
                method: Some("initialize".into()),
                verdict: "allow".into(),
                reason: Some("upstream_session_renewed".into()),
                ..bastion_store::AuditEvent::default()
            })
            .await;
        Ok(())
    }

    /// `POST`s one message of the gateway's own in session `session` (none: without
    /// `Mcp-Session-Id`) and reads the first message of the answer (JSON body or event
    /// stream, within `max_frame_bytes`) with the answer's `Mcp-Session-Id`; nothing
    /// reaches the host.
    async fn exchange(
        &self,
        msg: &Value,
        frame: Vec<u8>,
        session: Option<&str>,
    ) -> Result<(Value, Option<String>), String> {
        let mut request = FetchRequest::post(self.url.clone(), "application/json", frame);
        request.headers = self.headers_for(msg);
        request.headers.remove("mcp-session-id");
        if let Some(v) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
            request.headers.insert("mcp-session-id", v);
        }
        if msg.get("method").and_then(Value::as_str) == Some("initialize") {
            // As the host's first initialize went: the body names the version it asks for.
            request.headers.remove("mcp-protocol-version");
        }
        if let (_, Some(value)) = self.bearer().await {
            request
                .headers
                .insert(reqwest::header::AUTHORIZATION, value);
        }
        let mut response = self
            .fetcher
            .open(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!(
                "the server answered HTTP {status} to a new initialize"
            ));
        }
        let sid = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut parser = crate::sse::EventParser::new(self.max_frame_bytes);
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            for event in parser.push(&chunk) {
                if let crate::sse::Event::Data(data) = event
                    && let Ok(v) = bastion_core::json::parse_value(&data, self.max_depth)
                {
                    return Ok((v, sid));
                }
            }
            body.extend_from_slice(&chunk);
            if body.len() > self.max_frame_bytes {
                break;
            }
        }
        let answer = bastion_core::json::parse_value(&body, self.max_depth).unwrap_or(Value::Null);
        Ok((answer, sid))
    }
}
