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

/// `POST`s a `tools/call` of the fault server's `slow` tool (never answered) in session
/// `sid` on a connection of its own, and returns the connection once the response head
/// (an event stream that stays open) has arrived.
fn call_never_answered(served: &Served, sid: &str, id: i64) -> TcpStream {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "slow", "arguments": {}}})
    .to_string();
    let mut conn = TcpStream::connect(&served.addr).unwrap();
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

#[test]
fn at_the_connection_cap_the_longest_idle_connection_makes_room() {
    let dir = tempfile::tempdir().unwrap();
    allow_tools_of(dir.path(), "fault");
    let tail: Vec<String> = ["--max-connections", "3", "--", "python3"]
        .iter()
        .map(|s| (*s).to_owned())
        .chain(std::iter::once(fault_server().display().to_string()))
        .collect();
    let store = format!("sqlite://{}", dir.path().join("bastion.db").display());
    let served = Served::start_with(dir.path(), &store, "fault", &tail, &[]);
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
