//! One host session of the listener (legacy era, `Mcp-Session-Id`): a relay of its own
//! — the same [`crate::wrap::wrap`] pipeline as stdio, with its own server process,
//! pending requests, elicitations and approvals — whose host side is an in-memory pipe.
//!
//! What the relay writes to the host is routed by JSON-RPC id: the answer to a request
//! goes to the `POST` that carried it (its event stream ends with the answer); anything
//! else (server requests, notifications) goes to the session's `GET` stream, else to an
//! open `POST` stream, else to a backlog of [`BACKLOG`] messages handed to the next `GET`
//! stream (MCP 2025-11-25 Transports §Streamable HTTP, "Sending Messages to the Server",
//! "Listening for Messages from the Server").

use crate::audit::AuditSink;
use crate::wrap::WrapConfig;
use bastion_core::envelope::Id;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};

use super::stream::{Budget, Outlet, STREAM_BUFFER, sse_event, stream_channel};
pub(super) use super::stream::{Event, Inlet};

/// Unsolicited messages kept for a `GET` stream that is not open yet; older ones are
/// dropped beyond it (reported on stderr).
pub(super) const BACKLOG: usize = 256;
/// Bytes of unsolicited messages kept in the backlog at most (a server's messages may be
/// up to `max_frame_bytes` each: the count alone would allow gigabytes per session).
const BACKLOG_BYTES: usize = 8 * 1024 * 1024;
/// Bytes buffered in each direction of the in-memory pipe to the relay (back-pressure
/// beyond it).
const PIPE_BYTES: usize = 256 * 1024;

/// A `POST` stream waiting for the answer to its request.
struct Waiter {
    out: Outlet,
    /// The host's own id when the listener renumbered the request (the shared stateless
    /// relay): the answer gets it back.
    original: Option<Value>,
}

#[derive(Default)]
struct Routes {
    /// `POST` streams waiting for the answer to their request, by id.
    waiters: HashMap<Id, Waiter>,
    /// The session's `GET` stream.
    stream: Option<Outlet>,
    /// Unsolicited messages no stream could take yet, and their bytes.
    backlog: VecDeque<Event>,
    backlog_bytes: usize,
    /// What all of the session's streams may hold of unsolicited messages.
    budget: Budget,
    /// The relay has ended (server exited, session deleted).
    ended: bool,
}

impl Routes {
    /// Removes the `POST` streams whose client left (the connection closed before the
    /// answer) and returns their request ids: their answers would be dropped anyway.
    fn take_abandoned(&mut self) -> Vec<Id> {
        let gone: Vec<Id> = self
            .waiters
            .iter()
            .filter(|(_, w)| w.out.is_closed())
            .map(|(id, _)| id.clone())
            .collect();
        for id in &gone {
            self.waiters.remove(id);
        }
        gone
    }

    /// Puts an unsolicited message on the `GET` stream, else on an open `POST` stream,
    /// else in the backlog (oldest dropped beyond [`BACKLOG`] messages or
    /// [`BACKLOG_BYTES`]); returns how many messages were dropped.
    fn push_unsolicited(&mut self, event: Event) -> usize {
        // The streams draw on the session's budget (`stream::Budget`): all of them
        // together, answered or replaced ones whose reader has not taken their messages
        // included, hold at most `STREAM_BYTES`; beyond it the message waits in the
        // bounded backlog.
        if self.stream.as_ref().is_some_and(|out| out.try_push(&event)) {
            return 0;
        }
        if self.waiters.values().any(|w| w.out.try_push(&event)) {
            return 0;
        }
        let mut dropped = 0usize;
        while !self.backlog.is_empty()
            && (self.backlog.len() >= BACKLOG || self.backlog_bytes + event.len() > BACKLOG_BYTES)
        {
            if let Some(old) = self.backlog.pop_front() {
                self.backlog_bytes -= old.len();
                dropped += 1;
            }
        }
        if event.len() > BACKLOG_BYTES {
            dropped += 1;
        } else {
            self.backlog_bytes += event.len();
            self.backlog.push_back(event);
        }
        dropped
    }
}

/// A live session.
pub(super) struct Session {
    /// The session itself, for the hooks of its request streams.
    me: std::sync::Weak<Session>,
    /// The `Mcp-Session-Id` (16 random bytes, hex), or `stateless` for the shared relay of
    /// the 2026-07-28 era.
    pub(super) id: String,
    /// Shared by many hosts (the stateless relay): messages that answer no request are
    /// dropped instead of routed, since they could reach another host.
    shared: bool,
    name: String,
    input: tokio::sync::Mutex<Option<WriteHalf<DuplexStream>>>,
    /// Set by [`Session::close`]: a write blocked on a relay that stopped reading (its
    /// server stopped reading) gives up, so closing never waits behind it.
    closing: std::sync::atomic::AtomicBool,
    closed: tokio::sync::Notify,
    routes: Mutex<Routes>,
    last_seen: Mutex<Instant>,
}

/// Why a frame could not be handed to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SendError {
    /// The session's relay has ended.
    Ended,
    /// Another request with this id is still waiting for its answer.
    DuplicateId,
}

impl Session {
    /// Starts the relay (and so the server) of a new session with id `id`.
    pub(super) fn start(id: String, cfg: WrapConfig, audit: AuditSink) -> Arc<Self> {
        Self::start_with(id, false, cfg, audit)
    }

    /// Starts the relay the stateless 2026-07-28 requests of every host share (requests
    /// renumbered by [`Session::request_as`]; unsolicited messages dropped).
    pub(super) fn start_shared(cfg: WrapConfig, audit: AuditSink) -> Arc<Self> {
        Self::start_with("stateless".into(), true, cfg, audit)
    }

    fn start_with(id: String, shared: bool, mut cfg: WrapConfig, audit: AuditSink) -> Arc<Self> {
        // The listener caps each body at `max_host_frame_bytes` before it reaches the
        // relay. What it hands on may be longer: a renumbered id (`bastion-N`), or a
        // re-serialized body whose numbers serde_json writes longer (`1e9` as
        // `1000000000.0`, at most about four times). The relay must not refuse a body
        // the gate took for that.
        cfg.limits.max_host_frame_bytes = cfg
            .limits
            .max_host_frame_bytes
            .saturating_mul(4)
            .saturating_add(64);
        let (host_side, relay_side) = tokio::io::duplex(PIPE_BYTES);
        let (relay_in, relay_out) = tokio::io::split(relay_side);
        let (from_relay, to_relay) = tokio::io::split(host_side);
        let session = Arc::new_cyclic(|me| Self {
            me: me.clone(),
            id,
            shared,
            name: cfg.name.clone(),
            input: tokio::sync::Mutex::new(Some(to_relay)),
            closing: std::sync::atomic::AtomicBool::new(false),
            closed: tokio::sync::Notify::new(),
            routes: Mutex::new(Routes::default()),
            last_seen: Mutex::new(Instant::now()),
        });
        let relay = tokio::spawn(crate::wrap::wrap(cfg, relay_in, relay_out, audit));
        tokio::spawn(route(session.clone(), from_relay, relay));
        session
    }

    fn routes(&self) -> MutexGuard<'_, Routes> {
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn touch(&self) {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
    }

    /// Hands one host request (`frame`, request id `id`) to the relay; the returned
    /// receiver yields the events of its `POST` stream, the last one being the answer.
    /// `original`: the host's id when the listener replaced it with `id`; the answer
    /// gets it back.
    pub(super) async fn request_as(
        &self,
        id: Id,
        frame: &[u8],
        original: Option<Value>,
    ) -> Result<Inlet, SendError> {
        let inlet = {
            let mut routes = self.routes();
            let (out, inlet) = stream_channel(STREAM_BUFFER, &routes.budget);
            if routes.ended {
                return Err(SendError::Ended);
            }
            let abandoned = routes.take_abandoned();
            if routes.waiters.contains_key(&id) {
                return Err(SendError::DuplicateId);
            }
            routes.waiters.insert(id.clone(), Waiter { out, original });
            (inlet, abandoned)
        };
        let (mut inlet, abandoned) = inlet;
        // A client that leaves before the answer: the server is told at once (not when
        // the session's next request comes, which may be never).
        let me = self.me.clone();
        inlet.on_abandon(move || {
            if let (Some(session), Ok(runtime)) =
                (me.upgrade(), tokio::runtime::Handle::try_current())
            {
                runtime.spawn(async move { session.cancel_abandoned().await });
            }
        });
        self.cancel(abandoned).await;
        // Decided under the relay pipe's lock, right before the frame is written: a host
        // cancellation of this request sent on another connection may have reached the
        // relay first (which ignores a cancellation of a request it has not seen) and
        // ended the stream meanwhile ([`Session::end_stream`]). The relay is then told
        // again right after the request, so it never runs uncancelled.
        let sent = self
            .send_with(|| {
                let mut frames = vec![Cow::Borrowed(frame)];
                if !self.routes().waiters.contains_key(&id) {
                    frames.push(Cow::Owned(cancel_frame(&id, "cancelled by the client")));
                }
                frames
            })
            .await;
        if let Err(e) = sent {
            self.routes().waiters.remove(&id);
            return Err(e);
        }
        Ok(inlet)
    }

    /// Cancels in the relay every request whose client left
    /// ([`Routes::take_abandoned`]).
    async fn cancel_abandoned(&self) {
        // Taken under the relay pipe's lock and written before it is let go: a request
        // that reuses an abandoned id can never reach the relay ahead of the old one's
        // cancellation (which would then cancel the new request).
        let _ = self
            .send_with(|| {
                let ids = self.routes().take_abandoned();
                ids.into_iter()
                    .map(|id| Cow::Owned(cancel_frame(&id, LEFT)))
                    .collect()
            })
            .await;
    }

    /// Cancels in the relay the requests `ids` whose client left
    /// ([`Routes::take_abandoned`]): the server gets `notifications/cancelled`, and the
    /// relay lets go of the frame it kept for each.
    async fn cancel(&self, ids: Vec<Id>) {
        for id in ids {
            if self.send(&cancel_frame(&id, LEFT)).await.is_err() {
                break;
            }
        }
    }

    /// Hands one host notification or response to the relay.
    pub(super) async fn send(&self, frame: &[u8]) -> Result<(), SendError> {
        self.send_with(|| vec![Cow::Borrowed(frame)]).await
    }

    /// Hands the frames `frames` gives to the relay, one per line; `frames` runs once the
    /// relay pipe's lock is held, and nothing else is written in between.
    async fn send_with<'f>(
        &self,
        frames: impl FnOnce() -> Vec<Cow<'f, [u8]>>,
    ) -> Result<(), SendError> {
        self.touch();
        // Registered before the flag is read, so a close in between is not missed.
        let closed = self.closed.notified();
        tokio::pin!(closed);
        closed.as_mut().enable();
        if self.closing.load(Ordering::Acquire) {
            return Err(SendError::Ended);
        }
        let mut input = tokio::select! {
            input = self.input.lock() => input,
            () = &mut closed => return Err(SendError::Ended),
        };
        let Some(pipe) = input.as_mut() else {
            return Err(SendError::Ended);
        };
        let frames = frames();
        if frames.is_empty() {
            return Ok(());
        }
        let written = async {
            for frame in &frames {
                pipe.write_all(frame).await?;
                pipe.write_all(b"\n").await?;
            }
            pipe.flush().await
        };
        tokio::select! {
            written = written => written.map_err(|_| SendError::Ended),
            // Closing: the frame may be cut off; the relay drops a partial last line.
            () = &mut closed => Err(SendError::Ended),
        }
    }

    /// Opens the session's `GET` stream (replacing an earlier one, which ends), first
    /// with the backlog.
    pub(super) fn open_stream(&self) -> Result<Inlet, SendError> {
        self.touch();
        let mut routes = self.routes();
        let (out, inlet) = stream_channel(BACKLOG + STREAM_BUFFER, &routes.budget);
        if routes.ended {
            return Err(SendError::Ended);
        }
        while let Some(event) = routes.backlog.pop_front() {
            routes.backlog_bytes -= event.len();
            if !out.try_push(&event) {
                break;
            }
        }
        routes.stream = Some(out);
        Ok(inlet)
    }

    /// Ends the session: the relay sees the host close its side (the server gets
    /// `notifications/cancelled` for pending requests, then EOF, then the stop sequence).
    pub(super) async fn close(&self) {
        self.closing.store(true, Ordering::Release);
        self.closed.notify_waiters();
        if let Some(mut pipe) = self.input.lock().await.take() {
            let _ = pipe.shutdown().await;
        }
    }

    /// Ends the `POST` stream of request `id` without an answer (its host cancelled it):
    /// the relay answers nothing for a cancelled request, and the stream would otherwise
    /// stay open, holding the id, the session and the connection.
    pub(super) fn end_stream(&self, id: &Id) {
        let waiter = self.routes().waiters.remove(id);
        drop(waiter);
    }

    /// `true` once the relay has ended.
    pub(super) fn has_ended(&self) -> bool {
        self.routes().ended
    }

    /// `true` when no client waits on the session (an open `POST` or `GET` stream) and it
    /// was last used `idle` ago or earlier; a `POST` whose client left counts as none.
    pub(super) fn is_idle(&self, now: Instant, idle: Duration) -> bool {
        let last = *self
            .last_seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let routes = self.routes();
        routes.waiters.values().all(|w| w.out.is_closed())
            && routes.stream.as_ref().is_none_or(Outlet::is_closed)
            && now.duration_since(last) >= idle
    }

    /// Routes one message the relay wrote for the host.
    fn deliver(&self, line: &[u8]) {
        let mut routes = self.routes();
        if let Some(id) = answered_id(line) {
            // The answer ends its `POST` stream; a stream whose client left takes nothing
            // (the relay audited the answer already).
            if let Some(waiter) = routes.waiters.remove(&id) {
                drop(routes);
                let event = match waiter.original {
                    Some(original) => sse_event(&with_id(line, original)),
                    None => sse_event(line),
                }
                .answering();
                // The answer bypasses the unsolicited budget: it always goes out.
                waiter.out.send_answer(event);
            }
            return;
        }
        if self.shared {
            eprintln!(
                "mcp-bastion[{}]: dropped a message of the stateless relay that answers no request ({} bytes)",
                self.name,
                line.len()
            );
            return;
        }
        let dropped = routes.push_unsolicited(sse_event(line));
        if dropped > 0 {
            eprintln!(
                "mcp-bastion[{}]: session {}: no event stream took them; dropped {dropped} unsolicited message(s) (at most {BACKLOG} and {} MiB kept)",
                self.name,
                short(&self.id),
                BACKLOG_BYTES >> 20
            );
        }
    }
}

/// Reads what the relay writes for the host until it ends, then closes every stream.
async fn route(
    session: Arc<Session>,
    from_relay: tokio::io::ReadHalf<DuplexStream>,
    relay: tokio::task::JoinHandle<Result<i32, crate::GatewayError>>,
) {
    let mut reader = BufReader::new(from_relay);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if !line.is_empty() {
                    session.deliver(&line);
                }
            }
        }
    }
    let orphaned: Vec<(Id, Waiter)> = {
        let mut routes = session.routes();
        routes.ended = true;
        routes.stream = None;
        routes.backlog.clear();
        routes.backlog_bytes = 0;
        routes.waiters.drain().collect()
    };
    // Requests the relay never answered (the server could not start, or the session was
    // deleted meanwhile): each stream ends with an error, not empty.
    for (id, waiter) in orphaned {
        let raw_id = waiter.original.unwrap_or_else(|| id.to_value());
        let frame = bastion_core::envelope::error_response(
            Some(&raw_id),
            bastion_core::envelope::codes::UPSTREAM_UNAVAILABLE,
            "The server is no longer running (the session ended)",
            serde_json::json!({"reason": "upstream_exited"}),
        );
        waiter.out.send_answer(sse_event(&frame).answering());
    }
    session.close().await;
    let how = match relay.await {
        Ok(Ok(code)) => format!("server exited with code {code}"),
        Ok(Err(e)) => e.to_string(),
        // A panic's message may quote untrusted input: never printed (the hook printed
        // where it happened).
        Err(e) if e.is_panic() => "the relay failed inside mcp-bastion (a bug)".to_owned(),
        Err(e) => format!("relay task failed: {e}"),
    };
    eprintln!(
        "mcp-bastion[{}]: session {} ended ({how})",
        session.name,
        short(&session.id)
    );
}

/// The `reason` of a cancellation sent for a client that left.
const LEFT: &str = "the client closed the connection";

/// `notifications/cancelled` for the request `id` (MCP 2025-11-25 Utilities
/// §Cancellation), saying why (`reason`).
fn cancel_frame(id: &Id, reason: &str) -> Vec<u8> {
    let cancel = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id.to_value(), "reason": reason}});
    serde_json::to_vec(&cancel).unwrap_or_default()
}

/// The id a response answers (`result` or `error`, no `method`); `None` for requests
/// and notifications.
///
/// Reads only the members that decide it: the rest of the message (a result can be
/// megabytes) is skipped without building values. The relay wrote the line after its
/// strict parse, so it is one JSON object without duplicate members.
fn answered_id(line: &[u8]) -> Option<Id> {
    /// Whether a member is there, whatever its value (`"result": null` included).
    #[derive(Default)]
    struct Present(bool);
    impl<'de> serde::Deserialize<'de> for Present {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            serde::de::IgnoredAny::deserialize(d).map(|_| Self(true))
        }
    }
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        id: Option<Value>,
        #[serde(default)]
        method: Present,
        #[serde(default)]
        result: Present,
        #[serde(default)]
        error: Present,
    }
    let head: Head = serde_json::from_slice(line).ok()?;
    if head.method.0 || !(head.result.0 || head.error.0) {
        return None;
    }
    Id::from_value(&head.id?)
}

/// `line` (a JSON-RPC answer the relay wrote) with its `id` replaced by `original`.
fn with_id(line: &[u8], original: Value) -> Vec<u8> {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(mut map)) => {
            map.insert("id".into(), original);
            serde_json::to_vec(&map).unwrap_or_else(|_| line.to_vec())
        }
        _ => line.to_vec(),
    }
}

/// The first 8 characters of a session id, for logs (the id itself is a capability).
pub(super) fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
