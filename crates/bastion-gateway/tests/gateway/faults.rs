//! Fault injection through `wrap` (issue 9 §3, §4; `docs/failure-modes.md` names each
//! test): a server that crashes mid-frame, exits with requests pending or dribbles; a
//! host that disconnects mid-request, dribbles or sends a 64 MiB line; a locked audit
//! store and an unreachable `PostgreSQL` store; 10,000 tools in one list; deeply nested
//! schemas. The server is
//! `tests/servers/fault_server.py`.

use super::procs::{alive, lock_store, server_pid, unlock_store};
use super::{Host, reason};
use bastion_core::Limits;
use bastion_store::{AuditQuery, Store};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// The fault server, with `env` (`NAME=value`) set for it.
fn fault_server(env: &[String]) -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/fault_server.py");
    let mut argv = vec!["env".to_owned()];
    argv.extend(env.iter().cloned());
    argv.extend(["python3".to_owned(), script.display().to_string()]);
    argv
}

async fn init(h: &mut Host) {
    let r = h
        .request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))
        .await;
    assert_eq!(r["result"]["serverInfo"]["name"], "fault", "{r}");
    h.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
}

fn call_frame(id: i64, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"text": tool}}}).to_string()
}

/// Receives until every id of `ids` has its answer; returns them by id. Panics after
/// `within` or on a second answer to one id.
async fn answers(h: &mut Host, ids: &[i64], within: Duration) -> Vec<(i64, Value)> {
    let started = Instant::now();
    let mut got: Vec<(i64, Value)> = Vec::new();
    while got.len() < ids.len() {
        let m = h.recv().await;
        let Some(id) = m["id"].as_i64() else {
            assert!(m.get("method").is_some(), "{m}");
            continue;
        };
        assert!(ids.contains(&id), "answer to an unknown id: {m}");
        assert!(
            got.iter().all(|(i, _)| *i != id),
            "two answers to {id}: {m}"
        );
        got.push((id, m));
    }
    assert!(
        started.elapsed() < within,
        "answers took {:?}",
        started.elapsed()
    );
    got.sort_by_key(|(id, _)| *id);
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_crash_mid_frame_answers_every_pending_request_at_once() {
    let mut h = Host::start(fault_server(&[]), Limits::default()).await;
    init(&mut h).await;
    h.send_raw(&call_frame(10, "slow")).await;
    h.send_raw(&call_frame(11, "crash_mid_frame")).await;
    let got = answers(&mut h, &[10, 11], Duration::from_secs(10)).await;
    for (id, m) in &got {
        assert!(
            matches!(reason(m), "upstream_exited" | "upstream_message_rejected"),
            "{id}: {m}"
        );
    }
    let (code, store) = h.finish().await;
    assert_eq!(code, 3, "wrap exits with the server's code");
    let events = store.audit_events(&AuditQuery::default()).await.unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.reason.as_deref() == Some("upstream_exited")),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_exit_with_requests_pending_answers_each_at_once() {
    let mut h = Host::start(fault_server(&[]), Limits::default()).await;
    init(&mut h).await;
    for id in 20..23 {
        h.send_raw(&call_frame(id, "slow")).await;
    }
    h.send_raw(&call_frame(23, "exit_now")).await;
    let got = answers(&mut h, &[20, 21, 22, 23], Duration::from_secs(10)).await;
    for (id, m) in &got {
        assert_eq!(reason(m), "upstream_exited", "{id}: {m}");
        assert_eq!(m["error"]["code"], -32054, "{m}");
    }
    let (code, _) = h.finish().await;
    assert_eq!(code, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_disconnect_mid_request_cancels_upstream_and_leaves_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fault.log");
    let mut h = Host::start(
        fault_server(&[format!("FAULT_LOG={}", log.display())]),
        Limits::default(),
    )
    .await;
    init(&mut h).await;
    h.send_raw(&call_frame(30, "slow")).await;
    // Answered after `slow` was forwarded: the server reads in order.
    let ping = h.request("ping", json!({})).await;
    assert!(ping.get("result").is_some(), "{ping}");
    let pid = server_pid(&log);
    let started = Instant::now();
    let (code, _) = h.finish().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code, 0, "the server exits on stdin EOF");
    let seen = std::fs::read_to_string(&log).unwrap();
    let cancelled: Vec<Value> = seen
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "notifications/cancelled")
        .collect();
    assert_eq!(cancelled.len(), 1, "{seen}");
    assert_eq!(cancelled[0]["params"]["requestId"], 30, "{seen}");
    assert!(!alive(pid), "server process {pid} outlived the gateway");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dribbling_server_hits_the_read_timeout() {
    let limits = Limits {
        read_timeout_ms: 500,
        tool_call_timeout_ms: 20_000,
        ..Limits::default()
    };
    let mut h = Host::start(fault_server(&["FAULT_DRIBBLE_MS=50".into()]), limits).await;
    init(&mut h).await;
    let started = Instant::now();
    let r = h.call("dribble", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    assert_eq!(r["error"]["data"]["finding"], "read_timeout", "{r}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dribbling_host_hits_the_read_timeout() {
    let limits = Limits {
        read_timeout_ms: 300,
        ..Limits::default()
    };
    let mut h = Host::start(fault_server(&[]), limits).await;
    init(&mut h).await;
    // The id first, at once; then a byte every 20 ms.
    let frame = r#"{"id":40,"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}"#;
    let started = Instant::now();
    h.tx.write_all(&frame.as_bytes()[..9]).await.unwrap();
    for b in frame.as_bytes().iter().skip(9).take(40) {
        h.tx.write_all(&[*b]).await.unwrap();
        h.tx.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // 40 more bytes at 50 per second: the frame is cut off by the read timeout.
    let r = h.recv().await;
    assert_eq!(r["id"], 40, "the id was read before the timeout: {r}");
    assert_eq!(reason(&r), "read_timeout", "{r}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The rest of that line is discarded up to its newline; the next frame is served.
    h.send_raw("").await;
    let r = h.call("echo", json!({"text": "after"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "after", "{r}");
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_64_mib_host_line_is_refused_while_reading() {
    let mut h = Host::start(fault_server(&[]), Limits::default()).await;
    init(&mut h).await;
    let head = br#"{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"echo","arguments":{"text":""#;
    h.tx.write_all(head).await.unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..64 {
        h.tx.write_all(&chunk).await.unwrap();
    }
    h.tx.write_all(b"\"}}}\n").await.unwrap();
    h.tx.flush().await.unwrap();
    let r = h.recv().await;
    assert_eq!(r["id"], 50, "{r}");
    assert_eq!(reason(&r), "frame_too_large", "{r}");
    let r = h.call("echo", json!({"text": "still here"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "still here", "{r}");
    h.finish().await;
}

/// A server that stops reading while a large host request waits for it, and meanwhile
/// sends a request Bastion refuses and then a lot of output: the refusal must not wait
/// behind the queued request (the server, blocked writing, would never read it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_to_a_server_that_is_not_reading_does_not_stop_the_relay() {
    let mut h = Host::start(fault_server(&[]), Limits::default()).await;
    init(&mut h).await;
    h.send_raw(&call_frame(60, "stall_reading")).await;
    // More than the server's 1 MiB outbox, in a request the server answers briefly.
    let pad = "b".repeat(700_000);
    for id in [61, 62] {
        h.send_raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "padded", "pad": pad}}})
                .to_string(),
        )
        .await;
    }
    let got = answers(&mut h, &[60, 61, 62], Duration::from_secs(20)).await;
    assert_eq!(
        got[0].1["result"]["content"][0]["text"], "stalled",
        "{}",
        got[0].1
    );
    for (_, m) in &got[1..] {
        assert_eq!(m["result"]["content"][0]["text"], "padded", "{m}");
    }
    let (_, store) = h.finish().await;
    let events = store
        .audit_events(&AuditQuery {
            limit: Some(10_000),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    let refused: Vec<_> = events
        .iter()
        .filter(|e| e.request_id.as_deref() == Some("\"mcp-bastion-stall\""))
        .map(|e| (e.direction.as_str(), e.reason.as_deref()))
        .collect();
    assert_eq!(
        refused,
        [("server_to_host", Some("invalid_envelope"))],
        "the reserved-id request was refused, and its refusal delivered, not dropped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_to_a_server_that_pauses_reading_are_all_delivered() {
    let mut h = Host::start(fault_server(&[]), Limits::default()).await;
    init(&mut h).await;
    // 2,000 refused requests (about 500 KiB of refusals, more than the answers' own share)
    // while the server does not read: they wait in the server's queue, none is dropped.
    let r = h.call("burst_reserved", json!({"count": 2000})).await;
    assert_eq!(r["result"]["content"][0]["text"], "sent", "{r}");
    let r = h.call("burst_count", json!({})).await;
    assert_eq!(r["result"]["content"][0]["text"], "2000", "{r}");
    let (_, store) = h.finish().await;
    let dropped = store
        .audit_events(&AuditQuery {
            limit: Some(10_000),
            ..AuditQuery::default()
        })
        .await
        .unwrap()
        .iter()
        .filter(|e| e.reason.as_deref() == Some("upstream_not_reading"))
        .count();
    assert_eq!(dropped, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_64_mib_server_line_is_refused_while_reading() {
    let mut h = Host::start(fault_server(&[]), Limits::default()).await;
    init(&mut h).await;
    let r = h.call("huge", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    assert_eq!(r["error"]["data"]["finding"], "frame_too_large", "{r}");
    let r = h.call("echo", json!({"text": "still here"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "still here", "{r}");
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_tools_are_listed_sorted() {
    let mut h = Host::start(
        fault_server(&["FAULT_TOOLS=10000".into()]),
        Limits::default(),
    )
    .await;
    init(&mut h).await;
    let r = h.request("tools/list", json!({})).await;
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10_009, "10,000 + the nine fault tools");
    assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted by name");
    let r = h.call("t09999", json!({})).await;
    assert!(r.get("result").is_some(), "{r}");
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deeply_nested_schemas_are_refused_without_recursion() {
    let mut h = Host::start(
        fault_server(&["FAULT_SCHEMA_DEPTH=100000".into()]),
        Limits::default(),
    )
    .await;
    init(&mut h).await;
    let r = h.request("tools/list", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    assert_eq!(r["error"]["data"]["finding"], "max_depth_exceeded", "{r}");
    let r = h.call("echo", json!({"text": "still here"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "still here", "{r}");
    h.finish().await;
}

/// Calls `echo` until `done` holds for an answer; returns it. Panics after 30 s.
async fn call_until(h: &mut Host, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let r = h.call("echo", json!({"text": "probe"})).await;
        if done(&r) {
            return r;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "last answer {r}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `ALLOW_CONNECTIONS` of test database `name` on the admin server; when `false`, its
/// open connections are terminated too: an outage of that database alone, other tests
/// on the server go on.
async fn set_postgres_reachable(admin: &str, name: &str, reachable: bool) {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(admin).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE {name} ALLOW_CONNECTIONS {reachable}"
    )))
    .execute(&mut conn)
    .await
    .unwrap();
    if !reachable {
        sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1")
            .bind(name)
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn.close().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_postgres_store_fails_tool_calls_closed_until_back() {
    let Some(db) = super::testdb::postgres().await else {
        return;
    };
    let (admin, name) = db.postgres_admin().unwrap();
    let store = Store::open(&db.url).await.unwrap();
    let mut h = Host::start_audited(fault_server(&[]), Limits::default(), store);
    init(&mut h).await;
    let r = h.call("echo", json!({"text": "before"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "before", "{r}");
    set_postgres_reachable(&admin, &name, false).await;
    let down = Instant::now();
    let refused = call_until(&mut h, |r| r.get("error").is_some()).await;
    eprintln!("calls refused {:?} after the outage began", down.elapsed());
    assert_eq!(reason(&refused), "audit_unavailable", "{refused}");
    let ping = h.request("ping", json!({})).await;
    assert!(ping.get("result").is_some(), "{ping}");
    set_postgres_reachable(&admin, &name, true).await;
    let ok = call_until(&mut h, |r| r.get("result").is_some()).await;
    assert_eq!(ok["result"]["content"][0]["text"], "probe", "{ok}");
    h.finish().await;
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_audit_store_fails_tool_calls_closed_until_writable() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("audit.db");
    let store = Store::open(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    let mut h = Host::start_audited(fault_server(&[]), Limits::default(), store);
    init(&mut h).await;
    let r = h.call("echo", json!({"text": "before"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "before", "{r}");
    let locker = lock_store(&db);
    // The audit writer fails after the store's busy timeout; from then on calls are
    // refused without reaching the server.
    let refused = call_until(&mut h, |r| r.get("error").is_some()).await;
    assert_eq!(reason(&refused), "audit_unavailable", "{refused}");
    assert_eq!(refused["error"]["code"], -32051, "{refused}");
    // Other requests are not tool calls: they still pass.
    let ping = h.request("ping", json!({})).await;
    assert!(ping.get("result").is_some(), "{ping}");
    unlock_store(locker);
    let ok = call_until(&mut h, |r| r.get("result").is_some()).await;
    assert_eq!(ok["result"]["content"][0]["text"], "probe", "{ok}");
    h.finish().await;
}

/// A forwarded request the host cancels is owed nothing: when its deadline passes the
/// host gets no `request_timeout` for it and the server no second
/// `notifications/cancelled`, nor a third when the host leaves; an uncancelled request
/// beside it times out as usual. The audit still names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_host_cancelled_is_neither_answered_nor_cancelled_again() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fault.log");
    let limits = Limits {
        tool_call_timeout_ms: 300,
        ..Limits::default()
    };
    let mut h = Host::start(
        fault_server(&[format!("FAULT_LOG={}", log.display())]),
        limits,
    )
    .await;
    init(&mut h).await;
    h.send_raw(&call_frame(40, "slow")).await;
    h.send_raw(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 40, "reason": "the user gave up"}})
        .to_string(),
    )
    .await;
    h.send_raw(&call_frame(41, "slow")).await;
    // 41's deadline comes after 40's: once 41 is answered, 40's has passed too.
    let got = answers(&mut h, &[41], Duration::from_secs(10)).await;
    assert_eq!(reason(&got[0].1), "request_timeout", "{:?}", got[0].1);
    let ping = h.request("ping", json!({})).await;
    assert!(
        ping.get("result").is_some(),
        "no answer to 40 came first: {ping}"
    );
    let (_, store) = h.finish().await;
    let seen = std::fs::read_to_string(&log).unwrap();
    let mut cancelled: Vec<i64> = seen
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "notifications/cancelled")
        .filter_map(|m| m["params"]["requestId"].as_i64())
        .collect();
    cancelled.sort_unstable();
    assert_eq!(cancelled, [40, 41], "{seen}");
    // The audit still names 40, which reached the server: verdict `allow`, reason
    // `cancelled_by_host`.
    let events = store.audit_events(&AuditQuery::default()).await.unwrap();
    let rows = |id: &str| -> Vec<(String, String, String)> {
        events
            .iter()
            .filter(|e| e.request_id.as_deref() == Some(id))
            .map(|e| {
                let reason = e.reason.clone().unwrap_or_default();
                (
                    e.tool.clone().unwrap_or_default(),
                    e.verdict.clone(),
                    reason,
                )
            })
            .collect()
    };
    let row =
        |verdict: &str, reason: &str| ("slow".to_owned(), verdict.to_owned(), reason.to_owned());
    assert_eq!(rows("40"), [row("allow", "cancelled_by_host")]);
    assert_eq!(rows("41"), [row("block", "request_timeout")]);
}
