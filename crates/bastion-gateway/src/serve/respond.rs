//! The listener's answers: event streams, JSON-RPC refusals of the session layer, the
//! gate's HTTP refusals, and their audit records (method, reason, codes, size; never
//! header values, bodies or session ids).

use super::{SESSION_HEADER, Shared, session};
use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use bastion_core::envelope::{self, Id};
use bastion_core::http_gate::HttpDecision;
use bastion_store::AuditEvent;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A refusal of the session layer (unknown session, duplicate id, too many sessions,
/// ...): carried on the response so [`handle`] audits it in one place.
#[derive(Debug, Clone, Copy)]
pub(super) struct Refused(pub(super) &'static str);

/// How long the listener holds back the head of its response to a request `POST` for
/// the first event of its stream. An event that comes within it goes out with the head
/// in one write (for an answer: head, event and the end of the body together), instead
/// of the head alone and the event in a second segment the client wakes up for again.
/// With [`super::ServeConfig::json_answers`], an answer that comes first within it is
/// sent as one `application/json` message. An event that comes later, and the rest of
/// the stream, follow the head as they come.
const FIRST_EVENT_WAIT: Duration = Duration::from_secs(1);

/// The response to a request `POST` whose events come from `rx` (MCP 2025-11-25
/// Transports §Streamable HTTP, "Sending Messages to the Server": the server returns
/// either `application/json` with one JSON object or `text/event-stream`, and the client
/// must support both): a `text/event-stream` whose head waits up to [`FIRST_EVENT_WAIT`]
/// for the first event, so both go in one write. With `json`, the answer alone as
/// `application/json` when it is the first event and comes within that wait (one write,
/// no chunked framing), else a `text/event-stream` starting with what came so far.
pub(super) async fn answer(mut rx: session::Inlet, json: bool) -> Response<Body> {
    match tokio::time::timeout(FIRST_EVENT_WAIT, rx.recv()).await {
        Ok(Some(event)) => match event.answer_json().filter(|_| json) {
            Some(answer) => {
                let mut response = Response::new(Body::from(answer));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
            None => event_stream_after(Some(event), rx, None),
        },
        // The stream ended without an answer (the session's relay ended): empty.
        Ok(None) => event_stream_after(None, rx, None),
        // `recv` is cancel safe: nothing was taken from `rx`.
        Err(_) => event_stream(rx, None),
    }
}

/// A `text/event-stream` response whose events come from `rx` until it closes.
pub(super) fn event_stream(rx: session::Inlet, session_id: Option<&str>) -> Response<Body> {
    event_stream_after(None, rx, session_id)
}

/// [`event_stream`] that sends `first` before the events of `rx`.
fn event_stream_after(
    first: Option<session::Event>,
    rx: session::Inlet,
    session_id: Option<&str>,
) -> Response<Body> {
    let first = futures_util::stream::iter(first.map(|e| Ok(e.into_sse())));
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|event| (Ok::<_, std::convert::Infallible>(event.into_sse()), rx))
    });
    let stream = futures_util::StreamExt::chain(first, rest);
    let mut response = Response::new(Body::from_stream(stream));
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    match session_id {
        Some(sid) => with_session_header(response, sid),
        None => response,
    }
}

pub(super) fn with_session_header(mut response: Response<Body>, sid: &str) -> Response<Body> {
    if let Ok(v) = HeaderValue::from_str(sid) {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
    response
}

/// 404 for an unknown or ended session (the host starts a new one), 400 when the header
/// is missing.
pub(super) fn unknown_session(had_header: bool) -> Response<Body> {
    if had_header {
        jsonrpc_refusal(
            StatusCode::NOT_FOUND,
            None,
            "unknown or ended session: start a new one with initialize",
            "session_not_found",
        )
    } else {
        jsonrpc_refusal(
            StatusCode::BAD_REQUEST,
            None,
            "no Mcp-Session-Id: start a session with initialize first",
            "session_required",
        )
    }
}

/// A JSON-RPC error object as an HTTP answer with `status`, marked [`Refused`] for the
/// audit.
pub(super) fn jsonrpc_refusal(
    status: StatusCode,
    raw_id: Option<&Value>,
    message: &str,
    reason: &'static str,
) -> Response<Body> {
    let body = envelope::error_response(
        raw_id.filter(|v| Id::from_value(v).is_some()),
        envelope::codes::INVALID_REQUEST,
        message,
        json!({"reason": reason}),
    );
    let mut response = json_response(status, body);
    response.extensions_mut().insert(Refused(reason));
    response
}

/// The gate's refusal: its status, `{"error": reason, "message": …}`, `Connection:
/// close` (the body is not read), `WWW-Authenticate` on 401 (RFC 6750 §3); audited.
pub(super) async fn refuse(
    shared: &Arc<Shared>,
    method: &str,
    decision: &HttpDecision,
    seen: usize,
) -> Response<Body> {
    let Some(refusal) = decision.refusal else {
        return plain(StatusCode::INTERNAL_SERVER_ERROR, "no refusal");
    };
    let reason = refusal.reason.as_str();
    let message = decision
        .findings
        .iter()
        .find(|f| f.code == refusal.reason)
        .map_or_else(|| reason.to_owned(), |f| f.message.clone());
    record_findings(shared, method, decision, seen);
    let status = StatusCode::from_u16(refusal.status.code()).unwrap_or(StatusCode::BAD_REQUEST);
    let body =
        serde_json::to_vec(&json!({"error": reason, "message": message})).unwrap_or_default();
    let mut response = json_response(status, body);
    let h = response.headers_mut();
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    if status == StatusCode::UNAUTHORIZED {
        h.insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(r#"Bearer realm="mcp-bastion""#),
        );
    }
    response
}

/// The HTTP method as the audit records it: a method of RFC 9110 §9 as sent, anything
/// else (hyper accepts any token, hundreds of KiB long) as `other`, so a client cannot
/// write its own text, or make rows large, through the method.
fn audit_method(method: &str) -> &str {
    const KNOWN: [&str; 9] = [
        "GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS", "CONNECT", "TRACE",
    ];
    KNOWN
        .iter()
        .find(|m| **m == method)
        .copied()
        .unwrap_or("other")
}

pub(super) fn record_findings(shared: &Arc<Shared>, method: &str, d: &HttpDecision, seen: usize) {
    let reason = d.refusal.map(|r| r.reason.as_str()).unwrap_or_default();
    let mut codes: Vec<String> = d
        .findings
        .iter()
        .map(|f| f.code.as_str().to_owned())
        .collect();
    codes.dedup();
    let event = AuditEvent {
        direction: "host_to_server".into(),
        message_kind: Some("http".into()),
        method: Some(audit_method(method).to_owned()),
        verdict: d.verdict().as_str().into(),
        reason: Some(reason.to_owned()),
        codes,
        bytes: i64::try_from(seen).unwrap_or(i64::MAX),
        ..AuditEvent::default()
    };
    // Past the rate, refusals are folded (`tally`): a flood from anyone who can reach
    // the port, token or not, costs a bounded number of rows per second. Folded rows
    // are recorded by the ticker only. This handler's own row goes without waiting: a
    // handler waiting for room in a full audit queue is dropped when its client leaves,
    // and the row with it; a full queue leaves the row to the ticker instead.
    let own = shared.refusals().take(event, crate::now_ms());
    if let Some(row) = own
        && let Err(row) = shared.audit.try_record(row)
    {
        shared.refusals().defer(row);
    }
}

pub(super) async fn record(
    shared: &Arc<Shared>,
    method: &str,
    kind: &str,
    reason: &str,
    bytes: usize,
) {
    let event = AuditEvent {
        direction: "host_to_server".into(),
        message_kind: Some(kind.to_owned()),
        method: Some(audit_method(method).to_owned()),
        verdict: "block".into(),
        reason: Some(reason.to_owned()),
        codes: vec![reason.to_owned()],
        bytes: i64::try_from(bytes).unwrap_or(i64::MAX),
        ..AuditEvent::default()
    };
    shared.audit.record(event).await;
}

/// A panic while `method` was handled (a bug in Bastion; the panic hook printed where,
/// without its message): 500 with a JSON-RPC error -32055, reason `inspection_failed`,
/// with the request's `id` when its body was parsed (else `null`), `Connection: close`
/// (its body may be partly unread); audited (method, reason; no content) and said on
/// stderr.
pub(super) async fn failed_inside(
    shared: &Arc<Shared>,
    method: &str,
    id: Option<&Value>,
) -> Response<Body> {
    let reason = crate::relay::INSPECTION_FAILED_REASON;
    eprintln!(
        "mcp-bastion: handling an HTTP {method} request failed inside mcp-bastion; it was answered with 500 ({reason}) and the listener goes on. This is a bug: please report it with the location printed above."
    );
    record(shared, method, "http", reason, 0).await;
    let body = envelope::error_response(
        id.filter(|v| Id::from_value(v).is_some()),
        crate::relay::INSPECTION_FAILED,
        "mcp-bastion failed while handling this request (a bug: see its stderr)",
        json!({"reason": reason}),
    );
    let mut response = json_response(StatusCode::INTERNAL_SERVER_ERROR, body);
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

pub(super) fn json_response(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

pub(super) fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

pub(super) fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod method_tests {
    use super::audit_method;

    #[test]
    fn the_audit_keeps_known_methods_and_names_the_rest_other() {
        assert_eq!(audit_method("POST"), "POST");
        assert_eq!(audit_method("DELETE"), "DELETE");
        assert_eq!(audit_method("post"), "other");
        assert_eq!(audit_method(&"A".repeat(400_000)), "other");
    }
}

#[cfg(test)]
mod answer_tests {
    use super::super::stream::{Budget, sse_event, stream_channel};
    use super::answer;
    use futures_util::FutureExt;
    use http_body_util::BodyExt;
    use std::time::Duration;

    /// The answer every test's request gets.
    const ANSWER: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

    /// An answer that comes after the request was handed on (the usual case: the server
    /// takes a while) is in the body as soon as the head is returned, and the body ends
    /// with it: hyper writes head, event and end of body in one go. (Paused time: the
    /// answer's 30 ms always come before the 1 s wait ends, however loaded the machine.)
    #[tokio::test(start_paused = true)]
    async fn a_late_answer_is_ready_with_the_head_and_ends_the_body() {
        for json in [false, true] {
            let (out, inlet) = stream_channel(8, &Budget::default());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                out.send_answer(sse_event(ANSWER).answering());
            });
            let response = answer(inlet, json).await;
            let kind = response.headers()[axum::http::header::CONTENT_TYPE].clone();
            let mut body = response.into_body();
            let first = body
                .frame()
                .now_or_never()
                .expect("the event waits in the body");
            let data = first
                .expect("an event")
                .expect("no error")
                .into_data()
                .unwrap();
            if json {
                assert_eq!(kind, "application/json");
                assert_eq!(&data[..], ANSWER);
            } else {
                assert_eq!(kind, "text/event-stream");
                assert_eq!(
                    &data[..],
                    b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
                );
            }
            assert!(
                body.frame()
                    .now_or_never()
                    .expect("the end is known at once")
                    .is_none(),
                "the answer ends the body"
            );
        }
    }

    /// A stream whose first event is not the answer (a progress notification) starts
    /// with it, and the answer follows when it comes.
    #[tokio::test(start_paused = true)]
    async fn a_notification_first_starts_an_event_stream_and_the_answer_follows() {
        let budget = Budget::default();
        let (out, inlet) = stream_channel(8, &budget);
        assert!(out.try_push(&sse_event(
            br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#
        )));
        let response = answer(inlet, true).await;
        assert_eq!(
            response.headers()[axum::http::header::CONTENT_TYPE],
            "text/event-stream"
        );
        let mut body = response.into_body();
        let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(first.starts_with(b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\""));
        assert!(
            body.frame().now_or_never().is_none(),
            "the answer is not there yet"
        );
        out.send_answer(sse_event(ANSWER).answering());
        let second = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(second.ends_with(b"\"result\":{}}\n\n"));
        assert!(body.frame().await.is_none());
    }

    /// Nothing within the wait: the head goes out alone, and the answer follows it.
    #[tokio::test(start_paused = true)]
    async fn a_slow_answer_gets_the_head_after_the_wait_and_then_the_event() {
        let (out, inlet) = stream_channel(8, &Budget::default());
        let response = answer(inlet, false).await;
        assert_eq!(
            response.headers()[axum::http::header::CONTENT_TYPE],
            "text/event-stream"
        );
        let mut body = response.into_body();
        assert!(body.frame().now_or_never().is_none());
        out.send_answer(sse_event(ANSWER).answering());
        let data = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(data.ends_with(b"\"result\":{}}\n\n"));
        assert!(body.frame().await.is_none());
    }
}
