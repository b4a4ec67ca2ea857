//! `wrap --url`: the server is a remote MCP server over Streamable HTTP (MCP 2025-11-25
//! Transports §Streamable HTTP; 2026-07-28 header rules), seen by the relay as a pipe of
//! newline-delimited messages like a local server's stdout and stdin.
//!
//! Each message the relay sends is `POST`ed on its own (concurrently, at most
//! [`MAX_IN_FLIGHT`]) with `Accept: application/json, text/event-stream`; the answer —
//! a JSON body or an event stream — is written back as lines, where the relay applies
//! every check it applies to a local server (the strict parser sees the bytes the server
//! sent: raw CR/LF, which valid JSON holds only as whitespace, become spaces; in invalid
//! JSON they become a control character so the frame stays invalid). Legacy era: the
//! `Mcp-Session-Id` of the `initialize` answer goes on every later request, the
//! negotiated version in `MCP-Protocol-Version`, and a `GET` event stream carries the
//! server's own requests and notifications; the session is ended with `DELETE` when the
//! host goes away. 2026-07-28: `MCP-Protocol-Version` is the request's `_meta` version,
//! `Mcp-Method`/`Mcp-Name` mirror the body. Every connection goes through the
//! [`crate::fetch::SafeFetcher`] (URL gate, vetting resolver, no proxy, no redirects).
//! A request the server cannot be reached for is answered with a JSON-RPC error
//! (-32054, reason `upstream_unavailable`).

mod post;
mod refuse;
mod renew;
mod resume;

use crate::fetch::{FetchRequest, SafeFetcher};
use bastion_core::era::META_PROTOCOL_VERSION;
use bastion_core::http_gate::encode_header_value;
use futures_util::FutureExt as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::Semaphore;

/// Requests in flight to the upstream at most (more wait: back-pressure on the relay).
const MAX_IN_FLIGHT: usize = 64;

/// What the pump knows about the upstream session.
#[derive(Default)]
struct SessionState {
    /// `Mcp-Session-Id` from the `initialize` answer (legacy era).
    id: Option<String>,
    /// The negotiated legacy protocol version.
    version: Option<String>,
    /// The `GET` stream's task, once started (under the same lock as `id`, so a renewal
    /// and a start cannot leave two streams running).
    listener: Option<tokio::task::JoinHandle<()>>,
    /// The host's `initialize` that opened the session, to open a new one with when the
    /// server ends it (404).
    initialize: Option<Vec<u8>>,
}

struct Pump {
    fetcher: SafeFetcher,
    oauth: Option<crate::oauth::OAuthClient>,
    url: String,
    extra: HeaderMap,
    max_frame_bytes: usize,
    /// JSON nesting limit for the answers the pump reads itself (`limits.max_depth`).
    max_depth: usize,
    /// Whole lines for the relay, written by one task: a writer cancelled mid-message
    /// (an aborted stream, a request's deadline) can never leave half a line.
    to_relay: tokio::sync::mpsc::Sender<Vec<u8>>,
    state: Mutex<SessionState>,
    name: String,
    /// The session's secret mark of the pump's own errors (the relay turns it into
    /// `data.gateway = "mcp-bastion"`; see `Relay::with_http_upstream`).
    own_mark: String,
    /// Held while a lost session is re-initialized (one renewal at a time); counts them.
    renewals: tokio::sync::Mutex<u64>,
    /// Requests whose answer is being polled for (`Id` as JSON text) → answer seen on
    /// any stream.
    polled: Mutex<std::collections::HashMap<String, bool>>,
    /// Where the gateway's own refusals of an unreachable server are recorded (the relay
    /// records the answer it forwards like any server error; this says who wrote it).
    audit: crate::audit::AuditSink,
}

/// Starts the pump for `url`; returns the relay's side of the pipe (read: what the server
/// sent; write: what the relay sends) and the pump task, which ends when the relay
/// closes its side (after ending the upstream session).
pub(crate) fn start(
    name: &str,
    audit: crate::audit::AuditSink,
    remote: &crate::wrap::RemoteServer,
    limits: &bastion_core::Limits,
    own_mark: &str,
) -> (DuplexStream, tokio::task::JoinHandle<()>) {
    let max_frame_bytes = limits.max_frame_bytes;
    // A POST lives no longer than the relay waits for its answer (then the host already
    // got `request_timeout`), plus a second: a server that never answers, drips, or
    // streams without end cannot hold the in-flight slots.
    let (request_ms, tool_call_ms) = (limits.request_timeout_ms, limits.tool_call_timeout_ms);
    let deadline_for = move |frame: &[u8]| {
        let tool_call = memchr::memmem::find(frame, b"\"tools/call\"").is_some();
        let ms = if tool_call { tool_call_ms } else { request_ms };
        std::time::Duration::from_millis(ms.saturating_add(1_000))
    };
    let (relay_side, pump_side) = tokio::io::duplex(256 * 1024);
    let (from_relay, to_relay) = tokio::io::split(pump_side);
    let (lines, writer) = tokio::sync::mpsc::channel(16);
    tokio::spawn(write_lines(writer, to_relay));
    let pump = Arc::new(Pump {
        fetcher: remote.fetcher.clone(),
        oauth: remote.oauth.clone(),
        url: remote.url.clone(),
        extra: remote.headers.clone(),
        max_frame_bytes,
        max_depth: limits.max_depth,
        to_relay: lines,
        state: Mutex::new(SessionState::default()),
        name: name.to_owned(),
        own_mark: own_mark.to_owned(),
        renewals: tokio::sync::Mutex::new(0),
        polled: Mutex::new(std::collections::HashMap::new()),
        audit,
    });
    let task = tokio::spawn(async move {
        let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
        let mut reader = BufReader::new(from_relay);
        let mut line = Vec::new();
        let mut posts = tokio::task::JoinSet::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            #[cfg(feature = "failpoints")]
            fail::fail_point!("upstream::relay");
            let Ok(permit) = permits.clone().acquire_owned().await else {
                break;
            };
            let (pump, frame) = (pump.clone(), std::mem::take(&mut line));
            let deadline = deadline_for(&frame);
            posts.spawn(async move {
                // A panic in one POST (a bug in Bastion) answers its request at once
                // instead of leaving it to its deadline; the other POSTs go on.
                let posted = AssertUnwindSafe(pump.clone().post(&frame)).catch_unwind();
                if let Ok(Err(_)) = tokio::time::timeout(deadline, posted).await {
                    pump.failed_inside(&frame).await;
                }
                drop(permit);
            });
            while posts.try_join_next().is_some() {}
        }
        // The host is gone: answers still on their way get a short while to arrive (a
        // one-shot `initialize | wrap --url` still gets its answer), then the rest stops.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), async {
            while posts.join_next().await.is_some() {}
        })
        .await;
        posts.abort_all();
        if let Some(task) = pump.state().listener.take() {
            task.abort();
        }
        pump.end_session().await;
    });
    (relay_side, task)
}

/// The 2026-07-28 routing headers mirroring a request's body (SEP-2243): `Mcp-Method`,
/// and `Mcp-Name` for `tools/call`/`prompts/get` (`params.name`) and `resources/read`
/// (`params.uri`), in the header value encoding (a non-ASCII name or URI goes as
/// `=?base64?…?=`, so it is neither dropped nor sent raw).
fn mirrored(msg: &Value) -> Vec<(&'static str, String)> {
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    let params = msg.get("params");
    let named = match method {
        "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
        "resources/read" => params.and_then(|p| p.get("uri")),
        _ => None,
    };
    let mut out = vec![("mcp-method", encode_header_value(method).into_owned())];
    if let Some(name) = named.and_then(Value::as_str) {
        out.push(("mcp-name", encode_header_value(name).into_owned()));
    }
    out
}

impl Pump {
    fn state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Headers for one message: session, protocol version, 2026-07-28 mirrors.
    fn headers_for(&self, msg: &Value) -> HeaderMap {
        let mut h = self.extra.clone();
        h.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        h.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let params = msg.get("params");
        let meta_version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str);
        let state = self.state();
        let version = meta_version.or(state.version.as_deref());
        let mut put = |name: &'static str, value: &str| {
            if let Ok(v) = HeaderValue::from_str(value) {
                h.insert(HeaderName::from_static(name), v);
            }
        };
        if let Some(v) = version {
            put("mcp-protocol-version", v);
        }
        if let Some(id) = &state.id {
            put("mcp-session-id", id);
        }
        if meta_version.is_some() {
            for (name, value) in mirrored(msg) {
                put(name, &value);
            }
        }
        h
    }

    /// The OAuth token to send now (with its generation), when OAuth is on; `fresh`:
    /// the one just obtained, as it is.
    async fn bearer_for(&self, fresh: bool) -> (u64, Option<HeaderValue>) {
        match &self.oauth {
            Some(oauth) if fresh => oauth.bearer_now(),
            Some(oauth) => oauth.bearer().await,
            None => (0, None),
        }
    }

    async fn bearer(&self) -> (u64, Option<HeaderValue>) {
        self.bearer_for(false).await
    }

    /// Legacy era: opens the session's `GET` stream (the server's own requests and
    /// notifications); a server without one (405) simply has none.
    fn after_initialize(this: &Arc<Self>) {
        let mut st = this.state();
        if st.listener.is_some() || st.id.is_none() {
            return;
        }
        let pump = this.clone();
        st.listener = Some(tokio::spawn(async move { pump.listen().await }));
    }

    /// Hands one message to the line writer for the relay.
    async fn to_host(&self, data: &[u8]) {
        let mut line = one_line(data);
        self.note_version(&line);
        line.push(b'\n');
        let _ = self.to_relay.send(line).await;
    }

    /// Legacy era: the version an `initialize` answer negotiated goes in
    /// `MCP-Protocol-Version` from then on.
    fn note_version(&self, line: &[u8]) {
        if self.state().version.is_some()
            || memchr::memmem::find(line, b"\"protocolVersion\"").is_none()
        {
            return;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        if msg.get("method").is_none()
            && let Some(v) = msg
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
        {
            self.state().version = Some(v.to_owned());
        }
    }

    /// Ends the legacy session with `DELETE` (best effort, 2 s).
    async fn end_session(&self) {
        let id = self.state().id.clone();
        if id.is_none() {
            return;
        }
        let mut request = FetchRequest::get(self.url.clone()).follow_redirects(false);
        request.method = reqwest::Method::DELETE;
        request.headers = self.headers_for(&Value::Null);
        request.headers.remove(reqwest::header::CONTENT_TYPE);
        if let (_, Some(value)) = self.bearer().await {
            request
                .headers
                .insert(reqwest::header::AUTHORIZATION, value);
        }
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            self.fetcher.open(request),
        )
        .await;
    }
}

/// Writes whole lines for the relay until every sender is gone.
async fn write_lines(
    mut lines: tokio::sync::mpsc::Receiver<Vec<u8>>,
    mut out: WriteHalf<DuplexStream>,
) {
    while let Some(line) = lines.recv().await {
        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
            break;
        }
    }
}

/// `data` as one line for the relay: raw CR/LF are JSON whitespace in valid JSON
/// (spaces then), and in anything else become a control character (U+0001), which keeps
/// the frame invalid so the relay refuses it.
fn one_line(data: &[u8]) -> Vec<u8> {
    if !data.iter().any(|&b| b == b'\n' || b == b'\r') {
        return data.to_vec();
    }
    let valid = serde_json::from_slice::<serde::de::IgnoredAny>(data).is_ok();
    let fill = if valid { b' ' } else { 0x01 };
    data.iter()
        .map(|&b| if b == b'\n' || b == b'\r' { fill } else { b })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{mirrored, one_line};
    use serde_json::json;

    #[test]
    fn routing_headers_mirror_the_body_in_the_header_value_encoding() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "天気", "arguments": {}}});
        assert_eq!(
            mirrored(&call),
            [
                ("mcp-method", "tools/call".to_owned()),
                ("mcp-name", "=?base64?5aSp5rCX?=".to_owned())
            ]
        );
        let read = json!({"method": "resources/read", "params": {"uri": "memo://a b "}});
        assert_eq!(
            mirrored(&read)[1],
            ("mcp-name", "=?base64?bWVtbzovL2EgYiA=?=".to_owned())
        );
        // Only the three naming methods carry Mcp-Name.
        let sub = json!({"method": "resources/subscribe", "params": {"uri": "memo://a"}});
        assert_eq!(
            mirrored(&sub),
            [("mcp-method", "resources/subscribe".to_owned())]
        );
        assert!(mirrored(&json!({"id": 1, "result": {}})).is_empty());
    }

    #[test]
    fn line_breaks_become_whitespace_only_in_valid_json() {
        assert_eq!(one_line(b"{\"a\":\r\n1}"), b"{\"a\":  1}");
        assert_eq!(one_line(b"{\"a\":1}"), b"{\"a\":1}");
        // A raw line break inside a string is invalid JSON: it stays invalid.
        assert_eq!(one_line(b"{\"a\":\"x\ny\"}"), b"{\"a\":\"x\x01y\"}");
        assert!(
            serde_json::from_slice::<serde_json::Value>(&one_line(b"{\"a\":\"x\ny\"}")).is_err()
        );
    }
}
