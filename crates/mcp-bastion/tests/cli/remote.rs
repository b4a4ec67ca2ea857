//! `wrap --url` end to end: a real remote MCP server (`@modelcontextprotocol/server-everything`
//! in Streamable HTTP mode) through the gateway, compared with a direct HTTP session, and
//! the URL gate refusing targets before anything starts.

use super::{allow_tools_of, bin, everything, json_lines, names, run, session, workspace};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

/// `mcp-server-everything streamableHttp` on a free loopback port; killed on drop.
pub(super) struct HttpEverything {
    child: std::process::Child,
    pub(super) url: String,
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn http_everything() -> HttpEverything {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(&everything()[0])
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("server-everything did not start listening");
        if line.contains("listening") {
            break;
        }
    }
    HttpEverything {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[test]
fn remote_server_through_wrap_url_matches_direct() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "everything");
    let remote = http_everything();
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "echo", "arguments": {"message": "hello remote"}},
        {"op": "get_prompt", "name": "simple-prompt", "arguments": {}},
        {"op": "read_resource", "uri": "demo://resource/static/document/architecture.md"}
    ]);
    let direct = session("legacy", &script, std::slice::from_ref(&remote.url), &store);
    let wrapped = vec![
        bin().to_owned(),
        "wrap".into(),
        "--name".into(),
        "everything".into(),
        "--url".into(),
        remote.url.clone(),
        "--allow-http-loopback".into(),
    ];
    let through = session("legacy", &script, &wrapped, &store);
    assert_eq!(direct["protocol_version"], through["protocol_version"]);
    let (d, t) = (&direct["steps"], &through["steps"]);
    assert_eq!(names(&d[0], "tools", "name"), names(&t[0], "tools", "name"));
    assert_eq!(d[1], t[1], "tools/call echo differs");
    assert_eq!(t[1]["content"][0]["text"], "Echo: hello remote");
    assert_eq!(d[2], t[2], "prompts/get differs");
    assert_eq!(d[3], t[3], "resources/read differs");
    let events = json_lines(
        &[
            "--json",
            "audit",
            "--server",
            "everything",
            "--limit",
            "1000",
        ],
        &store,
    );
    assert!(events.iter().any(|e| e["method"] == "tools/call"
        && e["tool"] == "echo"
        && e["direction"] == "server_to_host"));
}

#[test]
fn wrap_url_refuses_private_and_plain_http_targets_before_starting() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    for url in [
        "https://10.0.0.1/mcp",
        "https://169.254.169.254/latest/meta-data/",
        "http://127.0.0.1:9/mcp",
        "https://user:secret@example.com/mcp",
    ] {
        let out = run(&["wrap", "--url", url], "", &store);
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is refused"), "{url}: {err}");
        assert!(!err.contains("secret"), "the credential is repeated: {err}");
    }
}

#[test]
fn tools_with_broken_mcp_header_declarations_are_withheld_behind_http() {
    // The HTTP server is `serve` in front of a stdio server whose tools declare
    // `x-mcp-header` parameters; `wrap --url` reaches it over HTTP.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "headers");
    let server = vec![
        "python3".to_owned(),
        workspace()
            .join("crates/mcp-bastion/tests/e2e/header_server.py")
            .display()
            .to_string(),
    ];
    let served = super::serve::Served::start(dir.path(), "headers", &server);
    let wrapped = wrap_served("headers", &served.url);
    let through = super::session_with_env(
        "legacy",
        &json!([
            {"op": "list_tools"},
            {"op": "call_tool", "name": "good_region", "arguments": {"region": "eu"}},
            {"op": "call_tool", "name": "bad_number", "arguments": {"price": 1.5}}
        ]),
        &wrapped,
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    let t = &through["steps"];
    assert_eq!(names(&t[0], "tools", "name"), ["good_region"], "{through}");
    assert_eq!(t[1]["content"][0]["text"], "called good_region");
    assert_eq!(
        t[2]["error"]["data"]["reason"], "blocked_descriptor",
        "{through}"
    );
    let events = json_lines(
        &["--json", "audit", "--server", "headers", "--limit", "1000"],
        &store,
    );
    for tool in ["bad_number", "bad_duplicate"] {
        assert!(
            events
                .iter()
                .any(|e| e["tool"] == tool && e["reason"] == "mcp_header_invalid"),
            "{tool} not audited"
        );
    }
}

#[test]
fn requests_a_remote_server_never_answers_do_not_wedge_the_gateway() {
    // 70 calls the server never answers (more than the 64 requests in flight allowed):
    // each times out for the host, and the gateway then still reaches the server.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "hang");
    let config = dir.path().join("mcp-bastion/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[limits]\ntool_call_timeout_ms = 1000\n");
    std::fs::write(&config, text).unwrap();
    let (_server, url) = python_http_server("hanging_http_server.py", &["70"]);
    let (mut gw, init) = wrap_url("hang", &url, &store, dir.path());
    assert!(init.get("result").is_some(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(gw.tool_names(), ["work"]);
    for i in 0..70 {
        gw.send(
            &json!({"jsonrpc": "2.0", "id": format!("h{i}"), "method": "tools/call",
                        "params": {"name": "work", "arguments": {}}}),
        );
    }
    let mut timed_out = 0;
    while timed_out < 70 {
        let m = gw.recv();
        if m["id"].as_str().is_some_and(|id| id.starts_with('h')) {
            assert_eq!(m["error"]["data"]["reason"], "request_timeout", "{m}");
            timed_out += 1;
        }
    }
    // The in-flight slots free up once the hung POSTs pass their deadline (the call
    // timeout plus a second): a call then reaches the server again.
    let started = std::time::Instant::now();
    loop {
        let (answer, _) = gw.request("tools/call", json!({"name": "work", "arguments": {}}));
        if answer["result"]["content"][0]["text"] == "done" {
            break;
        }
        assert_eq!(
            answer["error"]["data"]["reason"], "request_timeout",
            "{answer}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the gateway stayed wedged"
        );
    }
    gw.close();
}

#[test]
fn a_panic_in_the_http_upstream_ends_the_session_answered_with_exit_code_3() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let (_server, url) = python_http_server("hanging_http_server.py", &["0"]);
    // The test build's fail point: the upstream task panics on the third frame it
    // relays (after `initialize` and `notifications/initialized`).
    let (mut gw, init) = wrap_url_env(
        "gone",
        &url,
        &store,
        dir.path(),
        &[("FAILPOINTS", "upstream::relay=2*off->panic")],
    );
    assert!(init.get("result").is_some(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (answer, _) = gw.request("tools/list", json!({}));
    assert_eq!(
        answer["error"]["data"]["reason"], "upstream_exited",
        "{answer}"
    );
    drop(gw.stdin);
    let status = gw.child.wait().unwrap();
    assert_eq!(status.code(), Some(3), "an internal failure is exit code 3");
}

#[test]
fn a_panic_in_one_post_to_the_http_upstream_answers_that_request_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let (_server, url) = python_http_server("hanging_http_server.py", &["0"]);
    // The test build's fail point: the third POST (after `initialize` and
    // `notifications/initialized`) panics, the ones after it do not.
    let (mut gw, init) = wrap_url_env(
        "post",
        &url,
        &store,
        dir.path(),
        &[("FAILPOINTS", "upstream::post=2*off->1*panic->off")],
    );
    assert!(init.get("result").is_some(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let started = std::time::Instant::now();
    let (answer, _) = gw.request("tools/list", json!({}));
    assert_eq!(answer["error"]["code"], -32055, "{answer}");
    assert_eq!(
        answer["error"]["data"]["reason"], "inspection_failed",
        "{answer}"
    );
    assert_eq!(
        answer["error"]["data"]["gateway"], "mcp-bastion",
        "{answer}"
    );
    // At once, not at the request's deadline (`request_timeout_ms` + 1 s).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let (again, _) = gw.request("tools/list", json!({}));
    assert!(again["result"]["tools"].is_array(), "{again}");
    gw.close();
    let failed = super::faults::events_with(&store, "inspection_failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["direction"], "gateway", "{failed:?}");
    assert_eq!(failed[0]["method"], "tools/list", "{failed:?}");
    assert!(failed[0]["bytes"].as_i64() > Some(0), "{failed:?}");
}

/// A child process killed (and reaped) when the test ends, even on a failed assertion.
struct Killed(std::process::Child);

/// `tests/e2e/SCRIPT ARGS…`, a Python HTTP server that prints `listening on PORT` first
/// on stderr; killed when the first value drops. The second is its `/mcp` URL.
fn python_http_server(script: &str, args: &[&str]) -> (Killed, String) {
    let mut server = Killed(
        Command::new("python3")
            .arg(
                workspace()
                    .join("crates/mcp-bastion/tests/e2e")
                    .join(script),
            )
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut first = String::new();
    BufReader::new(server.0.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port = first.trim().rsplit(' ').next().unwrap().to_owned();
    (server, format!("http://127.0.0.1:{port}/mcp"))
}

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_unreachable_remote_server_is_answered_and_audited_as_the_gateways_doing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    // A loopback port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (gw, init) = wrap_url("gone", &url, &store, dir.path());
    assert_eq!(init["error"]["code"], -32054, "{init}");
    assert_eq!(
        init["error"]["data"]["reason"], "upstream_unavailable",
        "{init}"
    );
    // Bastion's own refusal, though it reaches the relay on the server's path: marked
    // as Bastion's (and the session's secret mark that carried it there is gone).
    assert_eq!(init["error"]["data"]["gateway"], "mcp-bastion", "{init}");
    gw.close();
    let events = json_lines(
        &["--json", "audit", "--server", "gone", "--limit", "100"],
        &store,
    );
    assert!(
        events
            .iter()
            .any(|e| e["direction"] == "gateway" && e["reason"] == "upstream_unavailable"),
        "{events:?}"
    );
    assert!(
        !events.iter().any(|e| e["reason"] == "forged_gateway_mark"),
        "{events:?}"
    );
}

/// `wrap --name NAME --url URL --allow-http-loopback` on `store`, after `initialize`:
/// the gateway and the answer to `initialize`.
fn wrap_url(
    name: &str,
    url: &str,
    store: &std::path::Path,
    home: &std::path::Path,
) -> (super::WrapHost, serde_json::Value) {
    wrap_url_env(name, url, store, home, &[])
}

/// [`wrap_url`] with extra environment variables for the gateway.
fn wrap_url_env(
    name: &str,
    url: &str,
    store: &std::path::Path,
    home: &std::path::Path,
    env: &[(&str, &str)],
) -> (super::WrapHost, serde_json::Value) {
    let mut gw = super::WrapHost::start_env(
        &wrap_url_args(name, url),
        &format!("sqlite://{}", store.display()),
        home,
        env,
    );
    let (init, _) = gw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    (gw, init)
}

/// `headers_http_server.py` on a free loopback port; killed on drop.
fn headers_http_server() -> HttpEverything {
    let script = workspace().join("crates/mcp-bastion/tests/e2e/headers_http_server.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let port = line.trim_start_matches("listening on ").trim().to_owned();
    HttpEverything {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[test]
fn serve_upstream_relays_a_remote_server_and_keeps_tokens_apart() {
    // server-everything over Streamable HTTP behind `serve --upstream`: what the Python
    // SDK sees through the listener equals what it sees talking to the server directly.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let store_url = format!("sqlite://{}", store.display());
    allow_tools_of(dir.path(), "everything");
    let remote = http_everything();
    let upstream = |url: &str| -> Vec<String> {
        ["--upstream", url, "--allow-http-loopback"]
            .map(str::to_owned)
            .to_vec()
    };
    let served = super::serve::Served::start_with(
        dir.path(),
        &store_url,
        "everything",
        &upstream(&remote.url),
        &[],
    );
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "echo", "arguments": {"message": "hello upstream"}},
        {"op": "get_prompt", "name": "simple-prompt", "arguments": {}}
    ]);
    let direct = session("legacy", &script, std::slice::from_ref(&remote.url), &store);
    let through = super::session_with_env(
        "legacy",
        &script,
        std::slice::from_ref(&served.url),
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    let (d, t) = (&direct["steps"], &through["steps"]);
    assert_eq!(names(&d[0], "tools", "name"), names(&t[0], "tools", "name"));
    assert_eq!(d[1], t[1], "tools/call echo differs");
    assert_eq!(t[1]["content"][0]["text"], "Echo: hello upstream");
    assert_eq!(d[2], t[2], "prompts/get differs");
    drop(served);

    // The hosts' token for the listener never reaches the upstream; the upstream's own
    // credential (`--bearer-env`) is sent to it and to nothing else.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let store_url = format!("sqlite://{}", store.display());
    allow_tools_of(dir.path(), "headers");
    let remote = headers_http_server();
    let mut tail = upstream(&remote.url);
    tail.extend(["--bearer-env".to_owned(), "UPSTREAM_TOKEN".to_owned()]);
    let served = super::serve::Served::start_with(
        dir.path(),
        &store_url,
        "headers",
        &tail,
        &[("UPSTREAM_TOKEN", "upstream-credential-7f3a")],
    );
    let out = super::session_with_env(
        "legacy",
        &json!([{"op": "list_tools"}, {"op": "call_tool", "name": "seen_headers", "arguments": {}}]),
        std::slice::from_ref(&served.url),
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    let seen: serde_json::Value = serde_json::from_str(
        out["steps"][1]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{out}")),
    )
    .unwrap();
    assert_eq!(seen["authorization"], "Bearer upstream-credential-7f3a");
    let raw = seen.to_string();
    assert!(
        !raw.contains(&served.token),
        "the listener's token reached the upstream: {raw}"
    );
    assert!(
        seen.get("mcp-session-id").is_some(),
        "an upstream session of its own"
    );
    drop(served);
    let events = json_lines(&["--json", "audit", "--limit", "1000"], &store);
    let audit = serde_json::to_string(&events).unwrap();
    assert!(!audit.contains("upstream-credential-7f3a"), "{audit}");
}

#[test]
fn stateless_era_through_wrap_url_matches_direct() {
    // A 2026-07-28 server over HTTP: `serve` in front of the dual-era Python SDK server,
    // `wrap --url` in front of that. Every POST carries MCP-Protocol-Version equal to the
    // body's `_meta` version and the Mcp-Method/Mcp-Name mirrors, which the listener's gate
    // compares with the body (a missing version header or a mismatch would be a 400).
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "py");
    let served = super::serve::Served::start(dir.path(), "py", &super::py_server());
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "add", "arguments": {"a": 2, "b": 3}},
        {"op": "read_resource", "uri": "memo://greeting"},
        {"op": "get_prompt", "name": "review", "arguments": {"code": "x = 1"}}
    ]);
    let direct = session("auto", &script, &super::py_server(), &store);
    assert_eq!(direct["protocol_version"], "2026-07-28");
    let wrapped = wrap_served("py", &served.url);
    let through = super::session_with_env(
        "auto",
        &script,
        &wrapped,
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    assert_eq!(through["protocol_version"], "2026-07-28", "{through}");
    let (d, t) = (&direct["steps"], &through["steps"]);
    assert_eq!(names(&d[0], "tools", "name"), names(&t[0], "tools", "name"));
    assert_eq!(d[1], t[1], "{through}");
    assert_eq!(t[1]["structuredContent"]["result"], 5);
    assert_eq!(t[2]["contents"][0]["text"], "hello red world");
    assert_eq!(d[3], t[3]);
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    let events = json_lines(
        &["--json", "audit", "--server", "py", "--limit", "1000"],
        &store,
    );
    assert!(
        !events
            .iter()
            .any(|e| e["reason"].as_str().is_some_and(|r| r.starts_with("http_"))),
        "the listener refused none of wrap's requests: {events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["method"] == "tools/call" && e["tool"] == "add"),
        "{events:?}"
    );
}

/// `wrap --name NAME --url URL` for a `serve` listener on loopback, its token read from
/// `MCP_TEST_BEARER`.
fn wrap_served(name: &str, url: &str) -> Vec<String> {
    let mut args = vec![bin()];
    args.extend(wrap_url_args(name, url));
    args.extend(["--bearer-env", "MCP_TEST_BEARER"]);
    args.into_iter().map(str::to_owned).collect()
}

/// `wrap --name NAME --url URL --allow-http-loopback`.
fn wrap_url_args<'a>(name: &'a str, url: &'a str) -> [&'a str; 6] {
    [
        "wrap",
        "--name",
        name,
        "--url",
        url,
        "--allow-http-loopback",
    ]
}

#[test]
fn a_session_the_server_ended_is_reopened_with_the_hosts_initialize() {
    // The listener restarts on the same address: the old Mcp-Session-Id is unknown there
    // (404). The gateway opens a new session with the host's initialize and sends the call
    // again; the host sees only the answer.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let store_url = format!("sqlite://{}", store.display());
    allow_tools_of(dir.path(), "py");
    let tail: Vec<String> = std::iter::once("--".to_owned())
        .chain(super::py_server())
        .collect();
    let first = super::serve::Served::start_with(dir.path(), &store_url, "py", &tail, &[]);
    let url = first.url.clone();
    let mut args = wrap_url_args("py", &url).to_vec();
    args.extend(["--bearer-env", "MCP_TEST_BEARER"]);
    let mut gw = super::WrapHost::start_env(
        &args,
        &store_url,
        dir.path(),
        &[("MCP_TEST_BEARER", first.token.as_str())],
    );
    let (init, _) = gw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init["result"]["protocolVersion"].is_string(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(gw.tool_names().contains(&"add".to_owned()));
    let add = |gw: &mut super::WrapHost, a: i64| {
        gw.request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": a, "b": 1}}),
        )
        .0
    };
    assert_eq!(add(&mut gw, 1)["result"]["structuredContent"]["result"], 2);
    let (code, _) = first.stop();
    assert_eq!(code, Some(0));
    let listen = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let second = super::serve::Served::listen_on(dir.path(), &store_url, "py", &listen, &tail, &[]);
    assert_eq!(second.url, url);
    // A notification first: it meant something only in the ended session, so after the
    // renewal it is dropped (recorded), not replayed.
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    std::thread::sleep(Duration::from_millis(500));
    let answer = add(&mut gw, 41);
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 42,
        "{answer}"
    );
    // Later calls go in the new session without another renewal.
    assert_eq!(add(&mut gw, 2)["result"]["structuredContent"]["result"], 3);
    gw.close();
    let (_, err) = second.stop();
    let sessions = err
        .iter()
        .filter(|l| l.contains("session") && l.contains("started"))
        .count();
    assert_eq!(
        sessions, 1,
        "one new session on the second listener: {err:?}"
    );
    let events = json_lines(
        &["--json", "audit", "--server", "py", "--limit", "1000"],
        &store,
    );
    let renewed = |direction: &str| {
        events
            .iter()
            .filter(|e| e["reason"] == "upstream_session_renewed" && e["direction"] == direction)
            .count()
    };
    assert_eq!(renewed("gateway"), 1, "{events:?}");
    assert_eq!(
        renewed("host_to_server"),
        1,
        "the dropped notification: {events:?}"
    );
}

#[test]
fn a_dropped_event_stream_is_resumed_with_last_event_id() {
    // The server's GET stream closes after each event; the gateway reopens it with the
    // last event id, so no server message is lost and none comes twice.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let (_server, url) = python_http_server("resume_http_server.py", &[]);
    let (mut gw, init) = wrap_url("resume", &url, &store, dir.path());
    assert!(init.get("result").is_some(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let seen: Vec<String> = (0..3)
        .map(|_| {
            let m = gw.recv();
            assert_eq!(m["method"], "notifications/message", "{m}");
            m["params"]["data"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        seen,
        [
            "stream 1 after first",
            "stream 2 after e1",
            "stream 3 after e2"
        ]
    );
    gw.close();
}

#[test]
fn an_answer_the_server_sends_after_closing_the_post_stream_is_polled_for() {
    // The server ends each tools/call stream after a priming event id; the answer is
    // fetched with GET + Last-Event-ID (2025-11-25 resumability), not lost or refused.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "poll");
    let (_server, url) = python_http_server("resume_http_server.py", &["poll"]);
    let (mut gw, init) = wrap_url("poll", &url, &store, dir.path());
    assert!(init.get("result").is_some(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(gw.tool_names(), ["slow"]);
    for _ in 0..2 {
        let (answer, _) = gw.request("tools/call", json!({"name": "slow", "arguments": {}}));
        assert_eq!(
            answer["result"]["content"][0]["text"], "polled slow",
            "{answer}"
        );
    }
    gw.close();
}

#[test]
fn an_answer_that_comes_on_the_session_stream_ends_the_polling_without_a_second_answer() {
    // The POST stream closes after its event id, the resumed GETs bring nothing, and the
    // answer arrives on the session's own GET stream: the host gets it once, and no
    // -32054 of the gateway's own follows when the polling gives up.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "poll");
    let (_server, url) = python_http_server("resume_http_server.py", &["elsewhere"]);
    let (mut gw, init) = wrap_url("poll", &url, &store, dir.path());
    assert!(init.get("result").is_some(), "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(gw.tool_names(), ["slow"]);
    let (answer, _) = gw.request("tools/call", json!({"name": "slow", "arguments": {}}));
    assert_eq!(
        answer["result"]["content"][0]["text"], "polled slow",
        "{answer}"
    );
    // Longer than five empty polls (50 ms each plus the GET): anything extra would be here.
    std::thread::sleep(Duration::from_millis(1500));
    let (next, notes) = gw.request("tools/list", json!({}));
    assert!(next.get("result").is_some(), "{next}");
    assert!(notes.is_empty(), "no second answer: {notes:?}");
    gw.close();
    // Not even one the relay would drop as unsolicited: the gateway wrote no error.
    let events = json_lines(
        &["--json", "audit", "--server", "poll", "--limit", "1000"],
        &store,
    );
    assert!(
        !events.iter().any(|e| e["reason"] == "upstream_unavailable"),
        "{events:?}"
    );
}
