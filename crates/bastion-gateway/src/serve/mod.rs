//! `mcp-bastion serve`: a Streamable HTTP listener for many hosts in front of one
//! server command (issue 8 §2; MCP 2025-11-25 Transports §Streamable HTTP).
//!
//! Every request first passes [`bastion_core::http_gate::decide`] on its head (Host
//! anti-rebinding, Origin, bearer token, endpoint, method, media types, declared size:
//! nothing of a refused request's body is read), then on each body chunk while reading
//! (a chunked or lying body stops at the cap, 413) and on the complete body. Refusals are
//! answered with the gate's status and reason and recorded in the audit log (method,
//! reason, codes, size; never header values or the body).
//!
//! Sessions (legacy era, ≤ 2025-11-25): an `initialize` `POST` without `Mcp-Session-Id`
//! starts a session — a relay of its own ([`crate::wrap::wrap`], the same inspection
//! pipeline as stdio) with its own server process, pending requests, elicitations and
//! approvals — and the answer carries its `Mcp-Session-Id`. Pins, grants and the consent
//! ledger live in the store and are shared by every session of the server name. A
//! request `POST` is answered with an event stream that ends with its answer (with
//! [`ServeConfig::json_answers`], an answer that comes first goes as `application/json`);
//! a notification or response `POST` with 202; `GET` opens the session's stream of server
//! requests and notifications; `DELETE` ends the session (its server is stopped). An
//! unknown or ended session id is 404 (the host starts a new session). Sessions idle for
//! [`ServeConfig::idle_timeout`] are ended; beyond [`ServeConfig::max_sessions`] a new
//! `initialize` gets 503.
//!
//! Stateless 2026-07-28 era: a request `POST` without `Mcp-Session-Id` that is
//! `server/discover` or names 2026-07-28 in `params._meta` goes to one relay (one server
//! process) shared by every host: the listener renumbers its id (`bastion-N`, unique
//! across hosts) and gives the answer the host's id back; messages of that relay that
//! answer no request are dropped, never routed to another host. Any other `POST` without
//! a session is 400 (`session_required`).
//!
//! With an HTTP upstream (`--upstream URL`) each relay talks Streamable HTTP to the
//! remote server instead of starting a process. The server command or URL comes from
//! the command line only; nothing in a request starts a process.
//!
//! A panic while a request is handled (a bug in Bastion) is contained to that request:
//! it gets 500 with a JSON-RPC error -32055, reason `inspection_failed`, the audit
//! records it, stderr says so once per panic, and the listener goes on.

mod listen;
mod respond;
mod session;
mod stream;
mod tally;
pub mod token;

use crate::audit::AuditSink;
use crate::wrap::WrapConfig;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use bastion_core::envelope::{self, Id, Kind};
use bastion_core::http_gate::{self, BodySeen, HttpRequestView, ListenerPolicy};
use futures_util::FutureExt as _;
use http_body_util::BodyExt;
use listen::accept_loop;
use respond::{
    Refused, empty, event_stream, json_response, jsonrpc_refusal, plain, record, refuse,
    unknown_session, with_session_header,
};
use serde_json::{Value, json};
use session::{SendError, Session};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The session header (MCP 2025-11-25 Transports §Session Management).
const SESSION_HEADER: &str = "mcp-session-id";

/// What `serve` needs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The relay of every session: server name, exact argv, limits, pinning,
    /// confirmation and elicitation setup (as for `wrap`).
    pub wrap: WrapConfig,
    /// The gate: bound address, token digest, allowed hosts and origins, body cap.
    pub policy: ListenerPolicy,
    /// Most concurrent sessions (each runs one server process); default 32.
    pub max_sessions: usize,
    /// A session nobody used for this long, with no open stream, is ended; default 30
    /// minutes.
    pub idle_timeout: Duration,
    /// Answer a request `POST` with `application/json` when its answer is the first
    /// message for it and comes within 1 s, instead of always with an event stream (MCP
    /// 2025-11-25 Transports §Streamable HTTP lets the server choose; clients must take
    /// both). One write per answer, no chunked framing: about 10–15% more calls/s in the
    /// load benchmark. Off by default: clients that test for event streams (the
    /// conformance suite's `server-sse-streams-functional`) then see none.
    pub json_answers: bool,
    /// Open HTTP connections at most; default 512. At the cap a new connection takes the
    /// slot of the one idle the longest (no request in flight); when each has a request
    /// in flight, the new one is closed at once.
    pub max_connections: usize,
}

impl ServeConfig {
    /// A config with the defaults above.
    pub fn new(wrap: WrapConfig, policy: ListenerPolicy) -> Self {
        Self {
            wrap,
            policy,
            max_sessions: 32,
            idle_timeout: Duration::from_mins(30),
            json_answers: false,
            max_connections: listen::MAX_CONNECTIONS,
        }
    }
}

struct Shared {
    cfg: ServeConfig,
    audit: AuditSink,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The relay of the stateless 2026-07-28 era, shared by every host (started on its
    /// first request, restarted when its server exited).
    stateless: Mutex<Option<Arc<Session>>>,
    /// Ids the listener gives stateless requests (`bastion-N`), unique across hosts.
    next_id: std::sync::atomic::AtomicU64,
    /// The gate's refusals past the audit rate, folded per second.
    refusals: Mutex<crate::tally::Tally>,
    /// Set when the listener stops, before its sessions are ended: no session or
    /// stateless relay starts after it (read under the lock that guards each, so one
    /// started just before is among those ended).
    stopping: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn refusals(&self) -> std::sync::MutexGuard<'_, crate::tally::Tally> {
        self.refusals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The shared stateless relay, started when absent or ended.
    /// The stateless relay, started when there is none (or it ended); `None` once the
    /// listener is stopping.
    fn stateless_relay(&self) -> Option<Arc<Session>> {
        let mut slot = self
            .stateless
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.stopping.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        Some(match slot.as_ref() {
            Some(s) if !s.has_ended() => s.clone(),
            _ => {
                let s = Session::start_shared(self.cfg.wrap.clone(), self.audit.clone());
                eprintln!(
                    "mcp-bastion[{}]: stateless relay started",
                    self.cfg.wrap.name
                );
                *slot = Some(s.clone());
                s
            }
        })
    }

    fn stateless_relay_take(&self) -> Option<Arc<Session>> {
        self.stateless
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// The live session `id`, if any (an ended one is forgotten).
    fn session(&self, id: &str) -> Option<Arc<Session>> {
        let mut sessions = self.sessions();
        match sessions.get(id) {
            Some(s) if s.has_ended() => {
                sessions.remove(id);
                None
            }
            Some(s) => Some(s.clone()),
            None => None,
        }
    }
}

/// Serves `listener` until SIGTERM or SIGINT, then stops accepting, ends every session
/// (their servers get the stop sequence of `wrap`; requests still waiting are answered
/// -32054 `upstream_exited` on their streams) and closes every connection once its
/// response in flight is sent, within the relays' grace period plus 6 s. A failed
/// `accept` (too many open files, ...) is reported on stderr and retried after 100 ms;
/// nothing ends the listener but the signal.
pub async fn serve(listener: tokio::net::TcpListener, cfg: ServeConfig, audit: AuditSink) {
    #[cfg(feature = "failpoints")]
    crate::wrap::set_failpoints();
    let shared = Arc::new(Shared {
        cfg,
        audit,
        sessions: Mutex::new(HashMap::new()),
        stateless: Mutex::new(None),
        next_id: std::sync::atomic::AtomicU64::new(1),
        refusals: Mutex::new(crate::tally::Tally::default()),
        stopping: std::sync::atomic::AtomicBool::new(false),
    });
    let reaper = tokio::spawn(reap_idle(shared.clone()));
    let stop_folder = Arc::new(Notify::new());
    let folder = tokio::spawn(tally::flush_refusals(
        Arc::downgrade(&shared),
        stop_folder.clone(),
    ));
    let app = axum::Router::new()
        .fallback(handle)
        .with_state(shared.clone());
    let draining = accept_loop(listener, app, shared.cfg.max_connections).await;
    reaper.abort();
    // The ticker records what it holds and ends (awaited: aborting it could drop rows
    // it had taken out).
    stop_folder.notify_one();
    drop(folder.await);
    // Connections still draining may be handling an `initialize` or a first stateless
    // request: from here on, neither starts anything.
    shared
        .stopping
        .store(true, std::sync::atomic::Ordering::Release);
    let mut sessions: Vec<Arc<Session>> = shared.sessions().drain().map(|(_, s)| s).collect();
    sessions.extend(shared.stateless_relay_take());
    for s in &sessions {
        s.close().await;
    }
    // Each relay stops its server (grace, SIGTERM, SIGKILL): wait for them, bounded.
    let deadline = Instant::now() + shared.cfg.wrap_grace() + Duration::from_secs(5);
    while sessions.iter().any(|s| !s.has_ended()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The answers the ended sessions gave their streams go out; then every connection
    // is closed, sent or not.
    draining
        .finish((Instant::now() + Duration::from_secs(1)).into())
        .await;
    // Refusals folded by requests that were still running when the ticker stopped.
    tally::flush_at_shutdown(&shared).await;
}

impl ServeConfig {
    fn wrap_grace(&self) -> Duration {
        Duration::from_millis(self.wrap.grace_ms)
    }
}

/// Ends sessions idle past the timeout, every 15 s (or the timeout, if shorter).
async fn reap_idle(shared: Arc<Shared>) {
    let idle = shared.cfg.idle_timeout;
    let mut tick = tokio::time::interval(idle.min(Duration::from_secs(15)));
    loop {
        tick.tick().await;
        let now = Instant::now();
        let stale: Vec<Arc<Session>> = {
            let mut sessions = shared.sessions();
            let ids: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.has_ended() || s.is_idle(now, idle))
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for s in stale {
            s.close().await;
        }
    }
}

tokio::task_local! {
    /// The JSON-RPC id of the request [`handle`] is handling, once its body is parsed
    /// (the host's own id, before any renumbering): the 500 answer to a panic carries it.
    static REQUEST_ID: std::cell::RefCell<Option<Value>>;
}

/// Every request, whatever its path or method: the gate decides 404 and 405 too.
/// Session-layer refusals are audited here (method, reason; never the session id).
async fn handle(State(shared): State<Arc<Shared>>, req: Request<Body>) -> Response<Body> {
    let method = req.method().as_str().to_owned();
    let (handled, id) = REQUEST_ID
        .scope(std::cell::RefCell::new(None), async {
            let handled = AssertUnwindSafe(dispatch(&shared, req))
                .catch_unwind()
                .await;
            (handled, REQUEST_ID.with(|id| id.borrow_mut().take()))
        })
        .await;
    let Ok(response) = handled else {
        return respond::failed_inside(&shared, &method, id.as_ref()).await;
    };
    if let Some(Refused(reason)) = response.extensions().get::<Refused>().copied() {
        record(&shared, &method, "session", reason, 0).await;
    }
    response
}

async fn dispatch(shared: &Arc<Shared>, req: Request<Body>) -> Response<Body> {
    let shared = shared.clone();
    let (parts, body) = req.into_parts();
    let method = parts.method.as_str().to_owned();
    // Absolute-form targets (`POST http://other/mcp`, RFC 9112 §3.2.2) go to the gate as
    // written, which serves origin-form only.
    let target = if parts.uri.scheme().is_some() || parts.uri.authority().is_some() {
        parts.uri.to_string()
    } else {
        parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned())
    };
    let headers: Vec<(&str, &[u8])> = parts
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_bytes()))
        .collect();
    let policy = &shared.cfg.policy;
    // The head once; each body chunk and the complete body then only go through the
    // body's rules (`decide_body` = `decide` once the head passed).
    let decision = http_gate::decide(
        policy,
        &request_view(&method, &target, &headers, BodySeen::NotRead),
    );
    if !decision.is_allowed() {
        return refuse(&shared, &method, &decision, 0).await;
    }
    let session_id = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match method.as_str() {
        "POST" => {
            let mut buf = Vec::new();
            let mut body = body;
            // The body must keep coming: each chunk within `read_timeout_ms`.
            let read_timeout = Duration::from_millis(shared.cfg.wrap.limits.read_timeout_ms);
            loop {
                let Ok(next) = tokio::time::timeout(read_timeout, body.frame()).await else {
                    record(&shared, &method, "http", "read_timeout", buf.len()).await;
                    let mut response = plain(
                        StatusCode::REQUEST_TIMEOUT,
                        "the request body stopped arriving (read_timeout_ms)",
                    );
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                    return response;
                };
                let Some(frame) = next else { break };
                let Ok(frame) = frame else {
                    return plain(
                        StatusCode::BAD_REQUEST,
                        "the request body could not be read",
                    );
                };
                if let Ok(data) = frame.into_data() {
                    buf.extend_from_slice(&data);
                    let d = http_gate::decide_body(
                        policy,
                        &request_view(&method, &target, &headers, BodySeen::Prefix(&buf)),
                        None,
                    );
                    if !d.is_allowed() {
                        return refuse(&shared, &method, &d, buf.len()).await;
                    }
                }
            }
            // One strict parse serves the gate's header/body comparison and the message.
            let parsed = bastion_core::json::parse_frame(&buf, shared.cfg.wrap.limits.max_depth);
            if let Some(id) = parsed.as_ref().ok().and_then(|m| m.get("id")) {
                let _ = REQUEST_ID.try_with(|slot| *slot.borrow_mut() = Some(id.clone()));
            }
            #[cfg(feature = "failpoints")]
            fail::fail_point!("serve::post");
            let d = http_gate::decide_body(
                policy,
                &request_view(&method, &target, &headers, BodySeen::Complete(&buf)),
                parsed.as_ref().ok(),
            );
            if !d.is_allowed() {
                return refuse(&shared, &method, &d, buf.len()).await;
            }
            post(&shared, session_id.as_deref(), buf, parsed).await
        }
        "GET" => {
            let Some(session) = session_id.as_deref().and_then(|id| shared.session(id)) else {
                return unknown_session(session_id.is_some());
            };
            match session.open_stream() {
                Ok(rx) => event_stream(rx, None),
                Err(_) => unknown_session(true),
            }
        }
        _ => {
            // DELETE (the gate allows nothing else).
            let Some(id) = session_id else {
                return unknown_session(false);
            };
            let removed = shared.sessions().remove(&id);
            match removed {
                Some(session) => {
                    session.close().await;
                    empty(StatusCode::NO_CONTENT)
                }
                None => unknown_session(true),
            }
        }
    }
}

/// The gate's view of one request: its line, its headers and how much of its body was read.
fn request_view<'a>(
    method: &'a str,
    target: &'a str,
    headers: &'a [(&'a str, &'a [u8])],
    body: BodySeen<'a>,
) -> HttpRequestView<'a> {
    HttpRequestView {
        method,
        target,
        headers,
        body,
    }
}

/// A `POST` whose body passed the gate: one JSON-RPC message, `parsed` its strict parse
/// (`json::parse_frame` of `frame`).
async fn post(
    shared: &Arc<Shared>,
    session_id: Option<&str>,
    frame: Vec<u8>,
    parsed: Result<serde_json::Map<String, Value>, bastion_core::json::Rejected>,
) -> Response<Body> {
    let map = match parsed {
        Ok(m) => m,
        Err(rej) => {
            let code = rej.error.code();
            record(shared, "POST", "refused", code.as_str(), frame.len()).await;
            let body = envelope::error_response(
                rej.id.as_ref().filter(|v| Id::from_value(v).is_some()),
                envelope::codes::PARSE_ERROR,
                &format!(
                    "Parse error: mcp-bastion refused the message ({})",
                    rej.error
                ),
                json!({"reason": code.as_str()}),
            );
            return json_response(StatusCode::BAD_REQUEST, body);
        }
    };
    // The relay reads one message per line. A body without CR or LF is one line: its
    // bytes go on as sent (like a stdio frame). Otherwise those bytes can only be
    // whitespace between tokens (JSON strings cannot hold raw controls), and the body
    // goes on as the compact serialization of what was parsed: a pretty-printed body
    // would otherwise split into several messages, each escaping the checks made on it.
    let frame = if frame.iter().any(|&b| b == b'\n' || b == b'\r') {
        let Ok(compact) = serde_json::to_vec(&map) else {
            return plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot serialize the message",
            );
        };
        compact
    } else {
        frame
    };
    let kind = match envelope::classify(&map) {
        Ok(k) => k,
        Err(e) => {
            let code = bastion_core::finding::Code::InvalidEnvelope;
            record(shared, "POST", "refused", code.as_str(), frame.len()).await;
            let body = envelope::error_response(
                map.get("id").filter(|v| Id::from_value(v).is_some()),
                envelope::codes::INVALID_REQUEST,
                &format!("Invalid request: {e}"),
                json!({"reason": code.as_str()}),
            );
            return json_response(StatusCode::BAD_REQUEST, body);
        }
    };
    if let Kind::Request { .. } = &kind
        && map
            .get("id")
            .is_some_and(|id| id.to_string().len() > crate::relay::MAX_ID_BYTES)
    {
        // The relay refuses such an id without echoing it: the answer could not be routed
        // back to this request, whose stream would then wait for the session to end.
        record(shared, "POST", "refused", "invalid_envelope", frame.len()).await;
        return jsonrpc_refusal(
            StatusCode::BAD_REQUEST,
            None,
            &format!(
                "Invalid request: request ids longer than {} bytes are refused",
                crate::relay::MAX_ID_BYTES
            ),
            "invalid_envelope",
        );
    }
    match (&kind, session_id) {
        (Kind::Request { method, .. }, Some(_)) if method == "initialize" => jsonrpc_refusal(
            StatusCode::BAD_REQUEST,
            map.get("id"),
            "initialize inside a session: send it without Mcp-Session-Id to start a new session",
            "session_reinitialize",
        ),
        (Kind::Request { id, method }, None) if method == "initialize" => {
            let Some(session) = start_session(shared) else {
                if shared.stopping.load(std::sync::atomic::Ordering::Acquire) {
                    return shutting_down(map.get("id"));
                }
                return jsonrpc_refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    map.get("id"),
                    &format!(
                        "mcp-bastion serves at most {} sessions at once; end one (HTTP DELETE) or try later",
                        shared.cfg.max_sessions
                    ),
                    "too_many_sessions",
                );
            };
            let sid = session.id.clone();
            let response = request(shared, &session, id.clone(), frame, map.get("id")).await;
            with_session_header(response, &sid)
        }
        (Kind::Request { method, .. }, None)
            if matches!(
                bastion_core::era::from_host_request(method, map.get("params")),
                Some((bastion_core::era::Era::Stateless, _))
            ) =>
        {
            stateless(shared, map, frame.len()).await
        }
        (_, None) => jsonrpc_refusal(
            StatusCode::BAD_REQUEST,
            map.get("id"),
            "no Mcp-Session-Id: start a session with initialize first, or send a stateless 2026-07-28 request (`server/discover`, or `_meta` naming the protocol version)",
            "session_required",
        ),
        (kind, Some(sid)) => {
            let Some(session) = shared.session(sid) else {
                return unknown_session(true);
            };
            match kind {
                Kind::Request { id, .. } => {
                    request(shared, &session, id.clone(), frame, map.get("id")).await
                }
                _ => match hand_on_message(session.clone(), frame).await {
                    Ok(()) => {
                        // The host withdrew one of its requests: no answer is due (MCP
                        // 2025-11-25 "Cancellation"), so its stream ends now instead of
                        // waiting for an answer that will not come.
                        if matches!(kind, Kind::Notification { method } if method == "notifications/cancelled")
                            && let Some(id) = map
                                .get("params")
                                .and_then(|p| p.get("requestId"))
                                .and_then(Id::from_value)
                        {
                            session.end_stream(&id);
                        }
                        empty(StatusCode::ACCEPTED)
                    }
                    Err(_) => unknown_session(true),
                },
            }
        }
    }
}

/// A stateless 2026-07-28 request (no session, `bytes` long): renumbered (`bastion-N`,
/// so hosts' ids never collide in the shared relay), relayed, answered with the host's id
/// back. `tasks/*` and task-augmented requests are refused (400, reason
/// `tasks_need_session`): on the shared relay any host could read another's tasks.
async fn stateless(
    shared: &Arc<Shared>,
    mut map: serde_json::Map<String, Value>,
    bytes: usize,
) -> Response<Body> {
    let original = map.get("id").cloned();
    // Every stateless host shares one server connection (and one token), so the server
    // cannot tell whose task is whose: one host could list and read another's task
    // results. Tasks need a session of their own.
    let method = map
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let task_augmented = map.get("params").and_then(|p| p.get("task")).is_some();
    // Case-blind: a server matching method names loosely must not see `Tasks/list`.
    let tasks_method = method
        .get(..6)
        .is_some_and(|p| p.eq_ignore_ascii_case("tasks/"));
    if tasks_method || task_augmented {
        record(shared, "POST", "refused", "tasks_need_session", bytes).await;
        return jsonrpc_refusal(
            StatusCode::BAD_REQUEST,
            original.as_ref(),
            "tasks are not available on the shared stateless connection, where other clients could read them; start a session (initialize) to use tasks",
            "tasks_need_session",
        );
    }
    let n = shared
        .next_id
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = format!("bastion-{n}");
    map.insert("id".into(), Value::String(id.clone()));
    let Ok(frame) = serde_json::to_vec(&map) else {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "cannot renumber the request",
        );
    };
    let Some(relay) = shared.stateless_relay() else {
        return shutting_down(original.as_ref());
    };
    match hand_on(relay, Id::Str(id), frame, original.clone()).await {
        Ok(rx) => respond::answer(rx, shared.cfg.json_answers).await,
        Err(_) => jsonrpc_refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            original.as_ref(),
            "the server is not running; retry",
            "upstream_exited",
        ),
    }
}

/// 503 with a JSON-RPC error (reason `shutting_down`) for a request that would start a
/// session or the stateless relay while the listener stops.
fn shutting_down(raw_id: Option<&Value>) -> Response<Body> {
    jsonrpc_refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        raw_id,
        "mcp-bastion is shutting down; retry with another instance",
        "shutting_down",
    )
}

/// Starts a session unless [`ServeConfig::max_sessions`] are live or the listener is
/// stopping.
fn start_session(shared: &Arc<Shared>) -> Option<Arc<Session>> {
    let mut sessions = shared.sessions();
    if shared.stopping.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    sessions.retain(|_, s| !s.has_ended());
    if sessions.len() >= shared.cfg.max_sessions {
        return None;
    }
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let id = hex::encode(bytes);
    let session = Session::start(id.clone(), shared.cfg.wrap.clone(), shared.audit.clone());
    eprintln!(
        "mcp-bastion[{}]: session {} started",
        shared.cfg.wrap.name,
        session::short(&id)
    );
    sessions.insert(id, session.clone());
    Some(session)
}

/// Hands a request to its session; answers with the `POST`'s event stream.
async fn request(
    shared: &Arc<Shared>,
    session: &Arc<Session>,
    id: Id,
    frame: Vec<u8>,
    raw_id: Option<&Value>,
) -> Response<Body> {
    let json_answers = shared.cfg.json_answers;
    match hand_on(session.clone(), id, frame, None).await {
        Ok(rx) => respond::answer(rx, json_answers).await,
        Err(SendError::DuplicateId) => jsonrpc_refusal(
            StatusCode::CONFLICT,
            raw_id,
            "Invalid request: this id is already used by a request of this session still waiting for its answer",
            bastion_core::finding::Code::DuplicateRequestId.as_str(),
        ),
        Err(SendError::Ended) => unknown_session(true),
    }
}

/// Hands a host notification or response (`frame`) to `session` on a task of its own,
/// for the reason [`hand_on`] gives: a client that leaves cannot cut the frame off halfway
/// into the relay's pipe, where its rest would run into the next message.
///
/// # Errors
/// As [`Session::send`].
async fn hand_on_message(session: Arc<Session>, frame: Vec<u8>) -> Result<(), SendError> {
    to_the_end(async move { session.send(&frame).await }).await
}

/// Hands request `id` (`frame`; `original`: the host's id when the listener renumbered
/// it) to `session` on a task of its own, and waits for it there. hyper drops a handler
/// when its client closes the connection, at whatever point the handler waits; a request
/// the listener has read whole still reaches the relay whole, which then cancels it for
/// the client that left and audits it (reason `cancelled_by_host`), instead of it
/// vanishing at the hand-off without a trace.
///
/// # Errors
/// As [`Session::request_as`].
async fn hand_on(
    session: Arc<Session>,
    id: Id,
    frame: Vec<u8>,
    original: Option<Value>,
) -> Result<stream::Inlet, SendError> {
    to_the_end(async move { session.request_as(id, &frame, original).await }).await
}

/// Runs a hand-off to the relay on a task of its own, so that it completes even when the
/// handler waiting for it is dropped. A panic in it is raised again here, inside the
/// handler's panic boundary; a runtime shutting down reads as the session ended.
async fn to_the_end<T: Send + 'static>(
    handing: impl Future<Output = Result<T, SendError>> + Send + 'static,
) -> Result<T, SendError> {
    match tokio::spawn(handing).await {
        Ok(done) => done,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(SendError::Ended),
    }
}
