//! The listener's accept loop: hyper's HTTP/1.1 per connection with a header read
//! timeout, a cap on open connections (an idle one makes room for a new one),
//! `TCP_NODELAY`, and a bounded, graceful shutdown: requests in flight get their answers,
//! then every connection closes.

use axum::body::Body;
use axum::http::{Request, Response};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Open connections at most by default ([`super::ServeConfig::max_connections`]).
pub(super) const MAX_CONNECTIONS: usize = 512;
/// A client must send a request's head within this time, from the connection's start or
/// the previous answer (slowloris).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a new connection at the cap waits for the idle connection closed for it to
/// let go of its slot.
const EVICTION_WAIT: Duration = Duration::from_secs(1);
/// How long a connection chosen to make room that has answered requests may take to
/// finish sending (hyper's buffer) before it is dropped.
const GRACEFUL_CLOSE: Duration = Duration::from_secs(5);

/// What the accept loop knows of one open connection.
struct Entry {
    /// Requests whose response (body included) is not finished yet.
    busy: usize,
    /// When the connection last had no request in flight (its start, or the end of its
    /// last response).
    idle_since: Instant,
    /// Requests it has had (`0`: it never sent a whole request head).
    requests: u64,
    /// Chosen to make room: no new request of it is let through.
    closing: bool,
    /// Told to close the connection (the accept loop's task for it does).
    close: Arc<Notify>,
}

/// The open connections, by number, and whether the listener is stopping.
#[derive(Default)]
struct Table(Mutex<HashMap<u64, Entry>>, AtomicBool);

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Entry>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks a connection with no request in flight (and not already chosen) as closing
    /// and tells it to close: one that never had a request first (all a client without
    /// the token can hold: the gate's refusals close their connection), the one idle
    /// the longest among those; `false` when every connection has a request in flight.
    fn evict_idlest(&self) -> bool {
        let mut table = self.lock();
        let idlest = table
            .values_mut()
            .filter(|e| e.busy == 0 && !e.closing)
            .min_by_key(|e| (e.requests > 0, e.idle_since));
        idlest.is_some_and(|e| {
            e.closing = true;
            e.close.notify_one();
            true
        })
    }

    /// Marks a request of connection `key` in flight until the returned guard drops;
    /// `None` when the connection was chosen to make room (the request is not let
    /// through).
    fn start_request(self: &Arc<Self>, key: u64) -> Option<Busy> {
        let mut table = self.lock();
        let entry = table.get_mut(&key).filter(|e| !e.closing)?;
        entry.busy += 1;
        entry.requests += 1;
        Some(Busy {
            table: self.clone(),
            key,
        })
    }

    /// The listener stops: every connection is told to close (gracefully, as one chosen
    /// to make room) and lets no new request through.
    fn close_all(&self) {
        self.1.store(true, Ordering::Release);
        for e in self.lock().values_mut() {
            e.closing = true;
            e.close.notify_one();
        }
    }

    /// `true` once [`Table::close_all`] ran.
    fn stopping(&self) -> bool {
        self.1.load(Ordering::Acquire)
    }

    /// `true` when connection `key` was chosen to make room and never had a request:
    /// nothing of it is in flight or still being sent, so it may be dropped at once.
    fn never_used(&self, key: u64) -> bool {
        self.lock()
            .get(&key)
            .is_some_and(|e| e.closing && e.busy == 0 && e.requests == 0)
    }
}

/// Removes a connection's entry when its task ends, however it ends (a panic, the abort
/// at shutdown): a stale entry would look idle forever.
struct Registered {
    table: Arc<Table>,
    key: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.table.lock().remove(&self.key);
    }
}

/// One request in flight on a connection, held by its response body until hyper has
/// taken all of it (or dropped it). Taken is not yet written: the end of the body may
/// still sit in hyper's buffer, which is why a connection that answered requests is only
/// ever closed gracefully to make room.
struct Busy {
    table: Arc<Table>,
    key: u64,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(e) = self.table.lock().get_mut(&self.key) {
            e.busy = e.busy.saturating_sub(1);
            if e.busy == 0 {
                e.idle_since = Instant::now();
            }
        }
    }
}

/// A response body that keeps its request counted as in flight.
struct Tracked {
    inner: Body,
    _busy: Busy,
}

impl hyper::body::Body for Tracked {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// The answer (503, `Connection: close`) to a request that arrived on a connection
/// chosen to make room, or while the listener stops (`stopping`).
fn make_room_refusal(stopping: bool) -> Response<Body> {
    let text = if stopping {
        "the listener is shutting down\n"
    } else {
        "the listener is at its connection cap\n"
    };
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = axum::http::StatusCode::SERVICE_UNAVAILABLE;
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

/// Accepts connections until SIGTERM or SIGINT, each served by hyper's HTTP/1.1 with
/// [`HEADER_READ_TIMEOUT`], at most `max` at once. At the cap a new connection takes the
/// slot of one with no request in flight ([`Table::evict_idlest`]: one that never sent a
/// request first, dropped at once; else the one idle the longest, closed gracefully), so
/// a client that opens connections and sends nothing, or keeps them between requests,
/// cannot lock others out; when every connection has a request in flight (open event
/// streams) the new one is closed at once. On SIGTERM or SIGINT it stops accepting, tells
/// every connection to close gracefully (one with a request in flight finishes that
/// response first) and returns them as [`Draining`], which the caller ends once the
/// sessions have answered what was in flight.
pub(super) async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    max: usize,
) -> Draining {
    let permits = Arc::new(tokio::sync::Semaphore::new(max.max(1)));
    let table = Arc::new(Table::default());
    let mut connections = tokio::task::JoinSet::new();
    let shutdown = crate::wrap::shutdown_signal();
    tokio::pin!(shutdown);
    let (mut refused, mut evicted, mut next) = (0u64, 0u64, 0u64);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                // EMFILE and friends: back off instead of spinning.
                eprintln!("mcp-bastion: cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(p) => Some(p),
            Err(_) if table.evict_idlest() => {
                evicted += 1;
                if evicted.is_power_of_two() {
                    eprintln!(
                        "mcp-bastion: {max} connections are open; closed {evicted} idle ones for new ones so far"
                    );
                }
                // The closed connection's task ends at once (nothing in flight) and
                // frees its slot; finished tasks are reaped meanwhile.
                let wait = tokio::time::timeout(EVICTION_WAIT, permits.clone().acquire_owned());
                tokio::pin!(wait);
                loop {
                    tokio::select! {
                        got = &mut wait => break got.ok().and_then(Result::ok),
                        Some(_) = connections.join_next(), if !connections.is_empty() => {}
                    }
                }
            }
            Err(_) => None,
        };
        let Some(permit) = permit else {
            refused += 1;
            if refused.is_power_of_two() {
                eprintln!(
                    "mcp-bastion: {max} connections are open, each with a request in flight; closed {refused} more so far"
                );
            }
            continue;
        };
        // Answers are small writes (the event, then the end of the chunked body): without
        // TCP_NODELAY, Nagle's algorithm holds the last one until the client's delayed
        // ACK (~40 ms per request, measured with a Python load driver).
        let _ = tcp.set_nodelay(true);
        next += 1;
        let key = next;
        let close = Arc::new(Notify::new());
        table.lock().insert(
            key,
            Entry {
                busy: 0,
                idle_since: Instant::now(),
                requests: 0,
                closing: false,
                close: close.clone(),
            },
        );
        let app = hyper_util::service::TowerToHyperService::new(app.clone());
        let (requests, table, table_now) = (table.clone(), table.clone(), table.clone());
        let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
            let busy = requests.start_request(key);
            // A request on a connection chosen to make room is never dispatched (it came
            // in the moment the connection was chosen): 503, and the connection closes.
            let answered = busy
                .is_some()
                .then(|| hyper::service::Service::call(&app, req));
            let stopping = table_now.stopping();
            async move {
                let (Some(answered), Some(busy)) = (answered, busy) else {
                    return Ok(make_room_refusal(stopping));
                };
                answered.await.map(|r: Response<Body>| {
                    r.map(|inner| Body::new(Tracked { inner, _busy: busy }))
                })
            }
        });
        connections.spawn(async move {
            let registered = Registered { table, key };
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                // Chosen to make room. One that never had a request is dropped at once
                // (none can start any more; a partly sent head is the client's to send
                // again). One that answered requests is closed gracefully: the end of
                // its last response may still sit in hyper's buffer (hyper takes the
                // body's last frame before writing it), and dropping it would cut the
                // response short; hyper sends what it holds, then closes. When the
                // listener stops, a response in flight waits for its session's answer
                // (the caller's deadline bounds it, `Draining::finish`).
                () = close.notified() => {
                    if !registered.table.never_used(key) {
                        conn.as_mut().graceful_shutdown();
                        if registered.table.stopping() {
                            let _ = conn.await;
                        } else {
                            let _ = tokio::time::timeout(GRACEFUL_CLOSE, conn).await;
                        }
                    }
                }
            }
            drop(permit);
        });
    }
    table.close_all();
    drop(listener);
    Draining(connections)
}

/// The connections still open when the listener stopped, each closing gracefully
/// ([`accept_loop`]).
pub(super) struct Draining(tokio::task::JoinSet<()>);

impl Draining {
    /// Waits until every connection has closed or `deadline` passed, then drops the
    /// rest (a slow or stalled client cannot hold the shutdown).
    pub(super) async fn finish(mut self, deadline: tokio::time::Instant) {
        let _ = tokio::time::timeout_at(deadline, async {
            while self.0.join_next().await.is_some() {}
        })
        .await;
        self.0.abort_all();
    }
}
