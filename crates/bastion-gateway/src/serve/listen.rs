//! The listener's accept loop: hyper's HTTP/1.1 per connection with a header read
//! timeout, a cap on open connections, `TCP_NODELAY`, and a shutdown no slow client holds.

use std::sync::Arc;
use std::time::Duration;

/// Open connections at most; more are closed at once (a local client could otherwise
/// hold every file descriptor).
const MAX_CONNECTIONS: usize = 512;
/// A client must send a request's head within this time, from the connection's start or
/// the previous answer (slowloris).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Accepts connections until SIGTERM or SIGINT, each served by hyper's HTTP/1.1 with
/// [`HEADER_READ_TIMEOUT`], at most [`MAX_CONNECTIONS`] at once; then drops them all
/// (a slow client cannot hold the shutdown).
pub(super) async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: axum::Router,
) -> std::io::Result<()> {
    let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut connections = tokio::task::JoinSet::new();
    let shutdown = crate::wrap::shutdown_signal();
    tokio::pin!(shutdown);
    let mut refused = 0u64;
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
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            refused += 1;
            if refused.is_power_of_two() {
                eprintln!(
                    "mcp-bastion: {MAX_CONNECTIONS} connections are open; closed {refused} more so far"
                );
            }
            continue;
        };
        // Answers are small writes (the event, then the end of the chunked body): without
        // TCP_NODELAY, Nagle's algorithm holds the last one until the client's delayed
        // ACK (~40 ms per request, measured with a Python load driver).
        let _ = tcp.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        connections.spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                .await;
            drop(permit);
        });
    }
    connections.abort_all();
    Ok(())
}
