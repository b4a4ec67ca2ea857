//! `wrap --url` event streams that end early (MCP 2025-11-25 Transports §Resumability
//! and Redelivery): the session's `GET` stream reopened with `Last-Event-ID`, a `POST`
//! stream closed before its answer polled for it, and the reading of event streams.

use super::Pump;
use crate::fetch::FetchRequest;
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;
use std::sync::Arc;

impl Pump {
    /// The session's `GET` stream, resumed when it drops (MCP 2025-11-25 Transports
    /// §Resumability and Redelivery): a new `GET` with `Last-Event-ID` set to the last
    /// event ID the server gave, after its `retry` time (default 1 s, 100 ms to 30 s,
    /// doubled per failed attempt). Ends when the server refuses the stream (405: it has
    /// none; 404: the session is gone, the next `POST` renews it and starts a new
    /// stream), after 5 connection failures in a row, or when the session changed.
    pub(super) async fn listen(self: Arc<Self>) {
        let session = self.state().id.clone();
        let mut parser = crate::sse::EventParser::new(self.max_frame_bytes);
        let mut failures: u32 = 0;
        loop {
            parser.reset_stream();
            match self.fetcher.open(self.stream_request(&parser).await).await {
                Ok(response) if response.status().is_success() && is_event_stream(&response) => {
                    let opened = std::time::Instant::now();
                    let got = self.relay_events_with(response, &mut parser, None).await;
                    // A stream that ends at once with nothing in it counts as a failure:
                    // a server cannot keep the gateway reconnecting forever.
                    if got.any || opened.elapsed() >= std::time::Duration::from_secs(5) {
                        failures = 0;
                    } else {
                        failures += 1;
                    }
                }
                Ok(response) if response.status().is_success() => failures += 1,
                Ok(_) => return,
                Err(_) => failures += 1,
            }
            if failures >= 5 {
                eprintln!(
                    "mcp-bastion[{}]: upstream: the server's event stream could not be reopened",
                    self.name
                );
                return;
            }
            if self.state().id != session {
                return;
            }
            let base = parser.retry_ms().unwrap_or(1_000).clamp(100, 30_000);
            let wait = base.saturating_mul(1 << failures.min(5)).min(30_000);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        }
    }

    /// A `GET` for an event stream of the session, resuming after the last event id
    /// `parser` saw (`Last-Event-ID`), if any.
    async fn stream_request(&self, parser: &crate::sse::EventParser) -> FetchRequest {
        let mut request = FetchRequest::get(self.url.clone()).follow_redirects(false);
        let mut headers = self.headers_for(&Value::Null);
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        headers.remove(reqwest::header::CONTENT_TYPE);
        if let Some(id) = parser
            .last_event_id()
            .and_then(|id| HeaderValue::from_str(id).ok())
        {
            headers.insert(HeaderName::from_static("last-event-id"), id);
        }
        if let (_, Some(value)) = self.bearer().await {
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        request.headers = headers;
        request
    }

    /// A `POST`'s event stream ended before the answer to request `want` (registered in
    /// `polled` by the caller), after giving
    /// an event id (MCP 2025-11-25 Transports §Resumability: a server may close it and
    /// the client polls): `GET`s with `Last-Event-ID` after the server's `retry` time
    /// (default 1 s, 50 ms to 30 s), relaying what comes, until the answer arrives (`true`),
    /// the server refuses (`false`), or 5 attempts in a row bring nothing. The `POST`'s
    /// deadline bounds it all.
    /// An answer that arrives on another stream (the session's `GET` stream) ends the
    /// polling too, and is not followed by an error of the gateway's own.
    pub(super) async fn poll_for_answer(
        &self,
        parser: &mut crate::sse::EventParser,
        want: &Value,
    ) -> bool {
        let key = want.to_string();
        let answered_elsewhere = || self.polled().get(&key).copied().unwrap_or(false);
        let mut idle: u32 = 0;
        let mut answered = false;
        while idle < 5 && !answered {
            let wait = parser.retry_ms().unwrap_or(1_000).clamp(50, 30_000);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            if answered_elsewhere() {
                answered = true;
                break;
            }
            parser.reset_stream();
            match self.fetcher.open(self.stream_request(parser).await).await {
                Ok(response) if response.status().is_success() => {
                    let got = self.relay_events_with(response, parser, Some(want)).await;
                    answered = got.answer || answered_elsewhere();
                    idle = if got.any { 0 } else { idle + 1 };
                }
                Ok(_) => break,
                Err(_) => idle += 1,
            }
        }
        answered || answered_elsewhere()
    }

    pub(super) fn polled(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, bool>> {
        self.polled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An event stream: each event's data is one message (WHATWG HTML §9.2.6), relayed
    /// as it comes; `parser` keeps the stream's last event ID and reconnection time for a
    /// resume. `want`: the id of the request whose answer is awaited, if any.
    pub(super) async fn relay_events_with(
        &self,
        mut response: reqwest::Response,
        parser: &mut crate::sse::EventParser,
        want: Option<&Value>,
    ) -> Relayed {
        let mut relayed = Relayed::default();
        loop {
            let Ok(Some(chunk)) = response.chunk().await else {
                break;
            };
            for event in parser.push(&chunk) {
                match event {
                    crate::sse::Event::Data(data) => {
                        if data.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        if want.is_some_and(|w| answers(&data, w)) {
                            relayed.answer = true;
                        }
                        self.note_polled_answer(&data);
                        self.to_host(&data).await;
                        relayed.any = true;
                    }
                    crate::sse::Event::TooLarge(prefix) => {
                        // Hand the relay an over-limit line: it refuses it and answers
                        // the pending request (its id is read from the prefix).
                        let mut line = prefix;
                        line.resize(self.max_frame_bytes + 1, b' ');
                        self.to_host(&line).await;
                        // The relay answers the request from the prefix (or it times out).
                        relayed = Relayed {
                            any: true,
                            answer: want.is_some(),
                        };
                    }
                }
            }
        }
        relayed
    }

    /// Marks a polled request answered when `data` is its answer (whatever stream
    /// brought it).
    fn note_polled_answer(&self, data: &[u8]) {
        let mut polled = self.polled();
        if polled.is_empty() {
            return;
        }
        if let Ok(v) = serde_json::from_slice::<Value>(data)
            && v.get("method").is_none()
            && let Some(seen) = v.get("id").and_then(|id| polled.get_mut(&id.to_string()))
        {
            *seen = true;
        }
    }
}

/// `true` for a `text/event-stream` response.
pub(super) fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.trim_start()
                .get(..17)
                .is_some_and(|t| t.eq_ignore_ascii_case("text/event-stream"))
        })
}

/// What an event stream brought.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Relayed {
    /// At least one message was relayed.
    pub(super) any: bool,
    /// The awaited request's answer was among them.
    pub(super) answer: bool,
}

/// `true` when `data` is a response (no `method`) to request `id`.
fn answers(data: &[u8], id: &Value) -> bool {
    serde_json::from_slice::<Value>(data)
        .is_ok_and(|v| v.get("method").is_none() && v.get("id") == Some(id))
}
