//! The listener's connection cap (`serve --max-connections`, issue 8 §2): at the cap a
//! new connection takes the slot of the connection idle the longest, so clients that
//! open connections and send nothing cannot lock hosts out; connections with a request
//! in flight are never closed for it.

use super::serve::{HttpSession, Served};
use super::{allow_tools_of, faults::fault_server};
use serde_json::json;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Writes a `POST` of `message` in session `sid` on the keep-alive connection `conn`.
fn post_on(conn: &mut TcpStream, served: &Served, sid: &str, message: &serde_json::Value) {
    let body = message.to_string();
    write!(
        conn,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        served.addr,
        served.token,
        body.len()
    )
    .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
}

/// `POST`s a `tools/call` of the fault server's `slow` tool (never answered) in session
/// `sid` on a connection of its own, and returns the connection once the response head
/// (an event stream that stays open) has arrived.
fn call_never_answered(served: &Served, sid: &str, id: i64) -> TcpStream {
    let mut conn = TcpStream::connect(&served.addr).unwrap();
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "slow", "arguments": {}}});
    post_on(&mut conn, served, sid, &call);
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(conn.read(&mut byte).unwrap(), 1, "closed before the head");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    conn
}

/// Sends `tools/list` in session `sid` on the keep-alive connection `conn` and reads its
/// whole answer (an event stream in chunked encoding), leaving the connection open.
fn list_on(conn: &mut TcpStream, served: &Served, sid: &str, id: i64) -> String {
    post_on(
        conn,
        served,
        sid,
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
    );
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    while !answer.ends_with(b"\r\n0\r\n\r\n") {
        let n = conn.read(&mut chunk).unwrap();
        assert!(
            n > 0,
            "closed mid-answer: {}",
            String::from_utf8_lossy(&answer)
        );
        answer.extend_from_slice(&chunk[..n]);
    }
    let answer = String::from_utf8_lossy(&answer).into_owned();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(&format!("\"id\":{id}")), "{answer}");
    answer
}

/// `true` when the listener closed `conn` within `wait` (end of stream or reset), with
/// nothing sent on it.
fn closed_within(conn: &mut TcpStream, wait: Duration) -> bool {
    conn.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 256];
    match conn.read(&mut buf) {
        Ok(0) => true,
        Ok(n) => panic!("the listener sent {:?}", String::from_utf8_lossy(&buf[..n])),
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    }
}

/// `serve --max-connections 3` around the fault server (every tool allowed), with its
/// store and config in `dir`.
fn serve_fault_with_three_connections(dir: &std::path::Path) -> Served {
    allow_tools_of(dir, "fault");
    let tail: Vec<String> = ["--max-connections", "3", "--", "python3"]
        .iter()
        .map(|s| (*s).to_owned())
        .chain(std::iter::once(fault_server().display().to_string()))
        .collect();
    let store = format!("sqlite://{}", dir.join("bastion.db").display());
    Served::start_with(dir, &store, "fault", &tail, &[])
}

#[test]
fn at_the_connection_cap_the_longest_idle_connection_makes_room() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve_fault_with_three_connections(dir.path());
    let mut host = HttpSession::open(&served);
    host.request("tools/list", &json!({}));
    // Two connections with a request in flight, and two without one: the older sends
    // half a request head and stops (slowloris), the younger nothing. One more than the
    // cap, so the older has already made room for the younger, at once (not after its
    // head timeout: a half-sent head is no request in flight).
    let mut busy = vec![
        call_never_answered(&served, &host.sid, 7),
        call_never_answered(&served, &host.sid, 8),
    ];
    let mut older = TcpStream::connect(&served.addr).unwrap();
    write!(older, "GET /mcp HTTP/1.1\r\nHost: {}\r\n", served.addr).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let mut younger = TcpStream::connect(&served.addr).unwrap();
    assert!(
        closed_within(&mut older, Duration::from_secs(2)),
        "the connection idle the longest was kept at the cap"
    );
    // At the cap again: a host's request still gets through, in the silent one's slot.
    let answer = host.request("tools/list", &json!({}));
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    assert!(closed_within(&mut younger, Duration::from_secs(5)));
    // Every slot with a request in flight: a new connection is closed at once, unanswered,
    // and none of the busy ones is touched.
    busy.push(call_never_answered(&served, &host.sid, 9));
    let mut refused = TcpStream::connect(&served.addr).unwrap();
    let _ = write!(
        refused,
        "GET /mcp HTTP/1.1\r\nHost: {}\r\n\r\n",
        served.addr
    );
    assert!(closed_within(&mut refused, Duration::from_secs(5)));
    for conn in &mut busy {
        assert!(
            !closed_within(conn, Duration::from_millis(300)),
            "a connection with a request in flight was closed"
        );
    }
    // Once a call's client leaves, its slot is free again.
    drop(busy.pop());
    std::thread::sleep(Duration::from_millis(300));
    let answer = host.request("tools/list", &json!({}));
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    assert!(
        err.iter().any(|l| l.contains("closed 1 idle ones")),
        "{err:?}"
    );
}

#[test]
fn connections_that_never_sent_a_request_make_room_before_a_hosts_keep_alive_one() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve_fault_with_three_connections(dir.path());
    let host = HttpSession::open(&served);
    // A host's keep-alive connection, idle the longest after its answer; a silent
    // connection (all a client without the token can hold) opened later; one call in
    // flight. At the cap, the next connection takes the silent one's slot, although the
    // host's connection has been idle longer: the host loses nothing.
    let mut keep_alive = TcpStream::connect(&served.addr).unwrap();
    list_on(&mut keep_alive, &served, &host.sid, 1);
    std::thread::sleep(Duration::from_millis(200));
    let mut silent = TcpStream::connect(&served.addr).unwrap();
    let _busy = call_never_answered(&served, &host.sid, 2);
    let (status, text) = host.post(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    assert_eq!(status, 200, "{text}");
    assert!(closed_within(&mut silent, Duration::from_secs(2)));
    list_on(&mut keep_alive, &served, &host.sid, 4);
    // With no silent connection left (a second call fills the third slot), the host's
    // idle one is closed, gracefully (after what it was sending), to make room.
    let _busy_too = call_never_answered(&served, &host.sid, 6);
    let (status, text) = host.post(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    assert_eq!(status, 200, "{text}");
    assert!(closed_within(&mut keep_alive, Duration::from_secs(7)));
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
}
