//! One message to the upstream: the `POST`, the OAuth retry on a 401 and the relaying
//! of the JSON or event-stream answer (MCP Streamable HTTP, both eras).

use super::Pump;
use super::resume::is_event_stream;
use crate::fetch::FetchRequest;
use serde_json::Value;
use std::sync::Arc;

impl Pump {
    /// `POST`s one message and relays what comes back. With OAuth, a 401 carrying a
    /// `Bearer` challenge runs the authorization (or waits for the one running) and the
    /// message is sent once more with the new token. A 404 to a message sent in a legacy
    /// session means the server ended the session (MCP 2025-11-25 Transports §Session
    /// Management: the client MUST start a new one): the session is re-initialized with
    /// the host's own `initialize` and the message sent once more.
    pub(super) async fn post(self: Arc<Self>, frame: &[u8]) {
        let msg: Value = serde_json::from_slice(frame).unwrap_or(Value::Null);
        #[cfg(feature = "failpoints")]
        fail::fail_point!("upstream::post");
        let request_id = msg
            .get("method")
            .and_then(|_| msg.get("id"))
            .filter(|id| !id.is_null())
            .cloned();
        let is_initialize = msg.get("method").and_then(Value::as_str) == Some("initialize");
        let Some((mut response, sent_session)) = self.send(frame, &msg, request_id.as_ref()).await
        else {
            return;
        };
        if response.status() == reqwest::StatusCode::NOT_FOUND
            && !is_initialize
            && let Some(stale) = sent_session
        {
            drop(response);
            if let Err(detail) = self.renew_session(&stale).await {
                self.unavailable(request_id.as_ref(), &detail).await;
                return;
            }
            if request_id.is_none() {
                // A notification or the host's answer to the ended session's request:
                // it means nothing in the new session (an answer could even meet another
                // request there with the same id). Dropped, and recorded.
                self.audit
                    .record(bastion_store::AuditEvent {
                        direction: "host_to_server".into(),
                        message_kind: Some("session".into()),
                        method: msg.get("method").and_then(Value::as_str).map(str::to_owned),
                        verdict: "block".into(),
                        reason: Some("upstream_session_renewed".into()),
                        bytes: i64::try_from(frame.len()).unwrap_or(i64::MAX),
                        ..bastion_store::AuditEvent::default()
                    })
                    .await;
                return;
            }
            let Some((again, _)) = self.send(frame, &msg, request_id.as_ref()).await else {
                return;
            };
            response = again;
        }
        let status = response.status();
        if is_initialize
            && status.is_success()
            && let Some(sid) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            let mut state = self.state();
            state.id = Some(sid.to_owned());
            state.initialize = Some(frame.to_vec());
        }
        self.relay_answer(response, request_id.as_ref(), is_initialize)
            .await;
    }

    /// Sends one message (with the OAuth retry of [`Pump::post`]); `None` when the host
    /// was already answered with the gateway's error. Also gives the session id the
    /// message went with.
    pub(super) async fn send(
        &self,
        frame: &[u8],
        msg: &Value,
        request_id: Option<&Value>,
    ) -> Option<(reqwest::Response, Option<String>)> {
        let mut retried = false;
        loop {
            let mut request =
                FetchRequest::post(self.url.clone(), "application/json", frame.to_vec());
            request.headers = self.headers_for(msg);
            let sent_session = request
                .headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let (generation, bearer) = self.bearer_for(retried).await;
            if let Some(value) = bearer {
                request
                    .headers
                    .insert(reqwest::header::AUTHORIZATION, value);
            }
            let response = match self.fetcher.open(request).await {
                Ok(r) => r,
                Err(e) => {
                    self.unavailable(request_id, &e.to_string()).await;
                    return None;
                }
            };
            if response.status() != reqwest::StatusCode::UNAUTHORIZED || retried {
                return Some((response, sent_session));
            }
            let challenge = response
                .headers()
                .get(reqwest::header::WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .filter(|w| crate::oauth::is_bearer_challenge(w))
                .map(str::to_owned);
            let (Some(oauth), Some(challenge)) = (&self.oauth, challenge) else {
                return Some((response, sent_session));
            };
            drop(response);
            match oauth.reauthorize(generation, Some(challenge)).await {
                Ok(done) => {
                    if let Some(done) = done {
                        self.audit_oauth("oauth_authorized", Some(&done.issuer))
                            .await;
                    }
                    retried = true;
                }
                Err(e) => {
                    eprintln!("mcp-bastion[{}]: OAuth: {e}", self.name);
                    self.audit_oauth(e.reason(), None).await;
                    self.refuse(
                        request_id,
                        "upstream_unauthorized",
                        &format!("the server requires authorization and it failed: {e}"),
                        Some(e.reason()),
                    )
                    .await;
                    return None;
                }
            }
        }
    }

    /// Relays the server's answer to one message: nothing for 202, the gateway's error
    /// for a refusal, else the JSON body or the event stream.
    pub(super) async fn relay_answer(
        self: &Arc<Self>,
        response: reqwest::Response,
        request_id: Option<&Value>,
        is_initialize: bool,
    ) {
        let status = response.status();
        if status == reqwest::StatusCode::ACCEPTED {
            return;
        }
        if status == reqwest::StatusCode::UNAUTHORIZED {
            let detail = if self.oauth.is_some() {
                "the server answered HTTP 401 again with a fresh token".to_owned()
            } else {
                "the server answered HTTP 401 Unauthorized (it asks for authorization: run with --oauth, or give a token with --bearer-env)".to_owned()
            };
            self.refuse(request_id, "upstream_unauthorized", &detail, None)
                .await;
            return;
        }
        if !status.is_success() {
            let detail = format!("the server answered HTTP {status}");
            self.unavailable(request_id, &detail).await;
            return;
        }
        let event_stream = is_event_stream(&response);
        let answered = if event_stream {
            let mut parser = crate::sse::EventParser::new(self.max_frame_bytes);
            // Watched from the start: the answer may come on the session's own stream.
            let key = request_id.map(Value::to_string);
            if let Some(k) = &key {
                self.polled().insert(k.clone(), false);
            }
            let got = self
                .relay_events_with(response, &mut parser, request_id)
                .await;
            let answered = match request_id {
                Some(want) if !got.answer && parser.last_event_id().is_some() => {
                    self.poll_for_answer(&mut parser, want).await
                }
                _ => got.any,
            };
            if let Some(k) = &key {
                self.polled().remove(k);
            }
            answered
        } else {
            self.relay_body(response).await
        };
        if is_initialize {
            Self::after_initialize(self);
        }
        if !answered && let Some(id) = request_id {
            self.unavailable(Some(id), "the server's answer ended without a message")
                .await;
        }
    }

    /// A JSON body: one message. Returns `true` when something was relayed.
    pub(super) async fn relay_body(&self, mut response: reqwest::Response) -> bool {
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > self.max_frame_bytes {
                        // The relay refuses it as too large: hand it an over-limit line.
                        body.extend_from_slice(&chunk);
                        break;
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(_) => return false,
            }
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return false;
        }
        self.to_host(&body).await;
        true
    }
}
