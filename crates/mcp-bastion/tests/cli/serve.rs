//! `mcp-bastion serve` end to end (issue 8 §2): the official Python SDK's Streamable
//! HTTP client against `@modelcontextprotocol/server-everything` behind the listener, and
//! the listener's refusals over real HTTP/1.1 (requests written byte for byte, so
//! duplicate and lying headers can be sent).

use super::{
    allow_tools_of, bin, everything, json_lines, names, py_server, rug_server, run, run_at,
    session, testdb,
};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// A running `serve`: its URL, token and stderr lines.
pub(super) struct Served {
    child: Child,
    pub(super) url: String,
    pub(super) addr: String,
    pub(super) token: String,
    err: Receiver<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// Starts `serve --name NAME` on an ephemeral loopback port around `server`, with the
    /// store and config in `dir`; waits for its "serving … at URL" line.
    pub(super) fn start(dir: &Path, name: &str, server: &[String]) -> Self {
        let store = format!("sqlite://{}", dir.join("bastion.db").display());
        Self::start_at(dir, &store, name, server)
    }

    /// [`Served::start`] on the store at `store_url`.
    fn start_at(dir: &Path, store_url: &str, name: &str, server: &[String]) -> Self {
        let tail: Vec<String> = std::iter::once("--".to_owned())
            .chain(server.iter().cloned())
            .collect();
        Self::start_with(dir, store_url, name, &tail, &[])
    }

    /// `serve --name NAME … TAIL` (`TAIL`: `-- CMD…` or `--upstream URL …`) with extra
    /// environment variables.
    pub(super) fn start_with(
        dir: &Path,
        store_url: &str,
        name: &str,
        tail: &[String],
        env: &[(&str, &str)],
    ) -> Self {
        Self::listen_on(dir, store_url, name, "127.0.0.1:0", tail, env)
    }

    /// [`Served::start_with`] on `listen` (`127.0.0.1:0`: an ephemeral port).
    pub(super) fn listen_on(
        dir: &Path,
        store_url: &str,
        name: &str,
        listen: &str,
        tail: &[String],
        env: &[(&str, &str)],
    ) -> Self {
        let token_file = dir.join("serve-token");
        let mut child = Command::new(bin())
            .args(["serve", "--listen", listen, "--name", name])
            .arg("--token-file")
            .arg(&token_file)
            .args(tail)
            .envs(env.iter().copied())
            .env("MCP_BASTION_STORE", store_url)
            .env("XDG_CONFIG_HOME", dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, err) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let line = loop {
            let line = err
                .recv_timeout(Duration::from_secs(30))
                .expect("serve printed no `serving` line");
            if line.contains("serving") {
                break line;
            }
        };
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("a URL in the serving line")
            .to_owned();
        let addr = url["http://".len()..url.len() - "/mcp".len()].to_owned();
        let token = std::fs::read_to_string(&token_file)
            .unwrap()
            .trim()
            .to_owned();
        Self {
            child,
            url,
            addr,
            token,
            err,
        }
    }

    /// Sends `head` (request line and fields, CRLF-separated, without the final empty
    /// line) and `body`; returns the status code and the response text.
    fn raw(&self, head: &str, body: &[u8]) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(head.replace('\n', "\r\n").as_bytes()).unwrap();
        s.write_all(b"\r\n\r\n").unwrap();
        // The listener may answer (and close) before reading a refused body.
        let _ = s.write_all(body);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        (status, text)
    }

    /// A well-formed POST of `body` with the token, plus `extra` field lines.
    fn post(&self, body: &str, extra: &str) -> (u16, String) {
        let head = format!(
            "POST /mcp HTTP/1.1\nHost: {}\nAuthorization: Bearer {}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: {}\nConnection: close{extra}",
            self.addr,
            self.token,
            body.len()
        );
        self.raw(&head, body.as_bytes())
    }

    pub(super) fn stop(mut self) -> (Option<i32>, Vec<String>) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let code = self.child.wait().unwrap().code();
        let err =
            std::iter::from_fn(|| self.err.recv_timeout(Duration::from_millis(500)).ok()).collect();
        (code, err)
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// The `Mcp-Session-Id` of a raw HTTP response (as [`Served::raw`] returns it).
fn session_id(text: &str) -> String {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("mcp-session-id: ")
                .or_else(|| l.strip_prefix("Mcp-Session-Id: "))
        })
        .unwrap_or_else(|| panic!("no session id: {text}"))
        .trim()
        .to_owned()
}

/// The JSON-RPC messages of a raw HTTP response (head and body, as [`Served::raw`]
/// returns it): the body itself when it is `application/json`, else the `data:` lines of
/// its event stream. The second value is `true` for an event stream.
fn messages(text: &str) -> (Vec<Value>, bool) {
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let head = head.to_ascii_lowercase();
    if head.contains("\ncontent-type: application/json") {
        let one = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"));
        return (vec![one], false);
    }
    assert!(
        head.contains("\ncontent-type: text/event-stream"),
        "neither JSON nor an event stream: {text}"
    );
    let events = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect();
    (events, true)
}

#[test]
fn server_everything_through_serve_matches_direct() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "everything");
    let served = Served::start(dir.path(), "everything", &everything());
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "echo", "arguments": {"message": "hello over http"}},
        {"op": "get_prompt", "name": "simple-prompt", "arguments": {}},
        {"op": "read_resource", "uri": "demo://resource/static/document/architecture.md"}
    ]);
    let direct = session("legacy", &script, &everything(), &store);
    let through = super::session_with_env(
        "legacy",
        &script,
        std::slice::from_ref(&served.url),
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    assert_eq!(direct["protocol_version"], through["protocol_version"]);
    let (d, t) = (&direct["steps"], &through["steps"]);
    assert_eq!(names(&d[0], "tools", "name"), names(&t[0], "tools", "name"));
    assert_eq!(d[1], t[1], "tools/call echo differs");
    assert_eq!(t[1]["content"][0]["text"], "Echo: hello over http");
    assert_eq!(d[2], t[2], "prompts/get differs");
    assert_eq!(d[3], t[3], "resources/read differs");
    // A second host gets a session (and a server process) of its own.
    let again = super::session_with_env(
        "legacy",
        &json!([
            {"op": "list_tools"},
            {"op": "call_tool", "name": "get-sum", "arguments": {"a": 1, "b": 2}}
        ]),
        std::slice::from_ref(&served.url),
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    assert!(
        again["steps"][1]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains('3')),
        "{again}"
    );
    // A client probing the stateless era first: the probe reaches the shared stateless
    // relay, this server (legacy only over stdio) refuses it, the client falls back to a
    // session.
    let auto = super::session_with_env(
        "auto",
        &json!([{"op": "list_tools"}]),
        std::slice::from_ref(&served.url),
        &store,
        &[("MCP_TEST_BEARER", served.token.as_str())],
    );
    assert_eq!(auto["protocol_version"], "2025-11-25", "{auto}");
    assert_eq!(
        names(&auto["steps"][0], "tools", "name"),
        names(&d[0], "tools", "name")
    );
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    let started = err.iter().filter(|l| l.contains("started")).count();
    assert!(started >= 3, "one session per host: {err:?}");
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
    let raw = serde_json::to_string(&events).unwrap();
    assert!(!raw.contains("hello over http"), "argument values leaked");
}

#[test]
fn the_listener_refuses_rebinding_csrf_missing_tokens_and_oversized_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "everything");
    let served = Served::start(dir.path(), "everything", &everything());
    let addr = served.addr.clone();
    let token = served.token.clone();
    let expect = |(status, text): (u16, String), want: u16, reason: &str| {
        assert_eq!(status, want, "{text}");
        assert!(text.contains(reason), "{reason}: {text}");
    };
    // DNS rebinding: a page whose name now points at 127.0.0.1 sends its own Host.
    expect(
        served.raw(
            &format!("POST /mcp HTTP/1.1\nHost: attacker.example:{}\nAuthorization: Bearer {token}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: {}", addr.rsplit(':').next().unwrap(), INIT.len()),
            INIT.as_bytes(),
        ),
        403,
        "http_host_not_allowed",
    );
    expect(
        served.post(INIT, "\nOrigin: http://attacker.example"),
        403,
        "http_origin_not_allowed",
    );
    // CSRF-shaped: a form post (text/plain, no preflight) from a foreign page.
    expect(
        served.raw(
            &format!("POST /mcp HTTP/1.1\nHost: {addr}\nOrigin: https://attacker.example\nContent-Type: text/plain\nContent-Length: {}", INIT.len()),
            INIT.as_bytes(),
        ),
        403,
        "http_origin_not_allowed",
    );
    // No token, a wrong token.
    let (status, text) = served.raw(
        &format!("POST /mcp HTTP/1.1\nHost: {addr}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: {}", INIT.len()),
        INIT.as_bytes(),
    );
    assert_eq!(status, 401, "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{text}"
    );
    expect(
        served.raw(
            &format!("POST /mcp HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: {}", "0".repeat(64), INIT.len()),
            INIT.as_bytes(),
        ),
        401,
        "http_unauthorized",
    );
    // Declared too large: answered from the head alone (no body is sent at all).
    expect(
        served.raw(
            &format!("POST /mcp HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {token}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: 104857600"),
            b"",
        ),
        413,
        "http_body_too_large",
    );
    // A chunked body that grows past the cap (1 MiB) is cut off while reading.
    let chunk = format!("{:x}\r\n{}\r\n", 256 * 1024, "x".repeat(256 * 1024));
    expect(
        served.raw(
            &format!("POST /mcp HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {token}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nTransfer-Encoding: chunked"),
            chunk.repeat(6).as_bytes(),
        ),
        413,
        "http_body_too_large",
    );
    // Two Host fields (routing confusion) and another path.
    expect(
        served.post(INIT, &format!("\nHost: {addr}")),
        400,
        "http_duplicate_header",
    );
    expect(
        served.raw(
            &format!("GET /admin HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {token}"),
            b"",
        ),
        404,
        "http_not_found",
    );
    // Sessions: none without initialize, 404 for an unknown one, a real one works.
    expect(
        served.post(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, ""),
        400,
        "session_required",
    );
    expect(
        served.post(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            "\nMcp-Session-Id: 0123456789abcdef",
        ),
        404,
        "session_not_found",
    );
    let (status, text) = served.post(INIT, "");
    assert_eq!(status, 200, "{text}");
    let sid = text
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .expect("a session id");
    assert!(text.contains("\"serverInfo\""), "{text}");
    // A strict-parse refusal inside the session: duplicate member names.
    expect(
        served.post(
            r#"{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}"#,
            &format!("\nMcp-Session-Id: {sid}"),
        ),
        400,
        "duplicate_key",
    );
    let (status, text) = served.post(
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        &format!("\nMcp-Session-Id: {sid}"),
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or_else(|| panic!("no event in {text}"));
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    // A pretty-printed body is one message (the relay reads lines: it gets the compact
    // form), not several smuggled past the checks made on the body.
    let pretty = "{\n \"jsonrpc\": \"2.0\",\n \"id\": 9,\n \"method\": \"ping\"\n}";
    let (status, text) = served.post(pretty, &format!("\nMcp-Session-Id: {sid}"));
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains(r#""id":9"#) && !text.contains("-32700"),
        "{text}"
    );
    let smuggle = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":\n{\"x\":[\n{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"initialize\",\"params\":{}}\n]}}";
    let (status, text) = served.post(smuggle, &format!("\nMcp-Session-Id: {sid}"));
    assert_eq!(status, 202, "{text}");
    // Absolute-form targets are not the endpoint, whatever their authority.
    expect(
        served.raw(
            &format!("POST http://attacker.example/mcp HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {token}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: {}", INIT.len()),
            INIT.as_bytes(),
        ),
        404,
        "http_not_found",
    );
    // DELETE ends it.
    let (status, _) = served.raw(
        &format!("DELETE /mcp HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {token}\nMcp-Session-Id: {sid}\nConnection: close"),
        b"",
    );
    assert_eq!(status, 204);
    expect(
        served.post(
            r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
            &format!("\nMcp-Session-Id: {sid}"),
        ),
        404,
        "session_not_found",
    );
    // A flood without a token: every refusal is counted, past 50 a second in folded
    // rows (`count`), so it cannot write a row per request.
    let flood = 600;
    let started = std::time::Instant::now();
    for _ in 0..flood {
        let (status, _) = served.raw(
            &format!("POST /mcp HTTP/1.1\nHost: {addr}\nAuthorization: Bearer {}\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: {}", "1".repeat(64), INIT.len()),
            INIT.as_bytes(),
        );
        assert_eq!(status, 401);
    }
    let flood_secs = started.elapsed().as_secs();
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    let unauthorized: Vec<Value> = json_lines(&["--json", "audit", "--limit", "100000"], &store)
        .into_iter()
        .filter(|e| e["reason"] == "http_unauthorized")
        .collect();
    let counted: i64 = unauthorized
        .iter()
        .map(|e| e["count"].as_i64().unwrap())
        .sum();
    // The two refusals above, and every one of the flood.
    assert_eq!(counted, flood + 2, "{unauthorized:?}");
    if flood_secs <= 3 {
        // At most 4 windows: 50 rows each plus one folded row.
        assert!(unauthorized.len() <= 4 * 51, "{} rows", unauthorized.len());
        // The table says how many refusals a folded row stands for.
        let table = run(&["audit", "--limit", "100000"], "", &store);
        let text = String::from_utf8_lossy(&table.stdout);
        assert!(text.contains("http_unauthorized (x"), "{text}");
    }
    // Every refusal is in the audit log, without header values.
    let events: Vec<Value> = json_lines(&["--json", "audit", "--limit", "1000"], &store);
    let http: Vec<&Value> = events
        .iter()
        .filter(|e| e["message_kind"] == "http")
        .collect();
    for reason in [
        "http_host_not_allowed",
        "http_origin_not_allowed",
        "http_unauthorized",
        "http_body_too_large",
        "http_duplicate_header",
        "http_not_found",
    ] {
        assert!(
            http.iter().any(|e| e["reason"] == reason),
            "{reason} not audited"
        );
    }
    // Session-layer refusals too (never the session id itself).
    for reason in ["session_required", "session_not_found"] {
        assert!(
            events
                .iter()
                .any(|e| e["message_kind"] == "session" && e["reason"] == reason),
            "{reason} not audited"
        );
    }
    // The smuggled `initialize` never reached the server.
    assert!(
        !events
            .iter()
            .any(|e| e["method"] == "initialize" && e["request_id"] == "77"),
        "a message inside another was relayed"
    );
    let raw = serde_json::to_string(&events).unwrap();
    assert!(
        !raw.contains(&token) && !raw.contains("attacker.example"),
        "header values leaked"
    );
    assert!(!raw.contains(&sid), "the session id leaked into the audit");
}

#[test]
fn slow_clients_time_out_and_cannot_hold_the_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    allow_tools_of(dir.path(), "py");
    let served = Served::start(dir.path(), "py", &py_server());
    // A head that never ends (slowloris): the listener hangs up after its header timeout.
    let mut slow = TcpStream::connect(&served.addr).unwrap();
    slow.write_all(format!("GET /mcp HTTP/1.1\r\nHost: {}\r\n", served.addr).as_bytes())
        .unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(15),
        "an unfinished head held the connection for {waited:?}"
    );
    // A body that stops arriving: 408 after read_timeout_ms.
    let mut stalled = TcpStream::connect(&served.addr).unwrap();
    stalled
        .write_all(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
                served.addr, served.token
            )
            .as_bytes(),
        )
        .unwrap();
    // Shutdown is not held by connections that send nothing more.
    let holders: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut c = TcpStream::connect(&served.addr).unwrap();
            c.write_all(b"GET /mcp HTTP/1.1\r\n").unwrap();
            c
        })
        .collect();
    let stopping = std::time::Instant::now();
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    assert!(
        stopping.elapsed() < Duration::from_secs(8),
        "slow clients held the shutdown for {:?}",
        stopping.elapsed()
    );
    drop(holders);
    // Cut off, or refused: 408 when its body timed out first, 503 when the listener was
    // already stopping when its head was read.
    let mut answer = String::new();
    let _ = stalled.read_to_string(&mut answer);
    assert!(
        answer.is_empty()
            || answer.starts_with("HTTP/1.1 408")
            || (answer.starts_with("HTTP/1.1 503") && answer.ends_with("shutting down\n")),
        "{answer}"
    );
}

#[test]
fn delete_ends_a_session_whose_server_stopped_reading_at_once() {
    // The server answers `initialize`, then never reads again: large requests back up
    // from its stdin through the relay into the listener's write to the session. A
    // DELETE must not wait behind that write.
    let dir = tempfile::tempdir().unwrap();
    let deaf = vec![
        "python3".to_owned(),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/e2e/deaf_server.py")
            .display()
            .to_string(),
    ];
    let served = Served::start(dir.path(), "deaf", &deaf);
    let (status, text) = served.post(INIT, "");
    assert_eq!(status, 200, "{text}");
    let session = session_id(&text);
    // Eight ~900 KiB requests on connections of their own: far more than the pipes hold.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":ID,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "a".repeat(900 * 1024)
    );
    let writers: Vec<_> = (0..8)
        .map(|i| {
            let (addr, token, session) = (served.addr.clone(), served.token.clone(), session.clone());
            let body = big.replace("ID", &(100 + i).to_string());
            std::thread::spawn(move || {
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let Ok(mut s) = TcpStream::connect(&addr) else { return };
                let _ = s.set_read_timeout(Some(Duration::from_mins(1)));
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(body.as_bytes());
                let mut out = Vec::new();
                let _ = s.read_to_end(&mut out);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let started = std::time::Instant::now();
    let head = format!(
        "DELETE /mcp HTTP/1.1\nHost: {}\nAuthorization: Bearer {}\nMcp-Session-Id: {session}\nMCP-Protocol-Version: 2025-11-25\nConnection: close",
        served.addr, served.token
    );
    let (status, text) = served.raw(&head, b"");
    let took = started.elapsed();
    assert_eq!(status, 204, "{text}");
    // Liveness, not speed: before the fix the DELETE waited for the blocked write
    // (the relay's request timeout, ~30 s).
    assert!(took < Duration::from_secs(10), "DELETE took {took:?}");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    for w in writers {
        w.join().unwrap();
    }
}

#[test]
fn requests_whose_answer_cannot_reach_them_do_not_keep_the_session() {
    // The server answers `initialize`, then never reads: every request waits for the
    // relay's deadline (30 s), longer than the session's idle timeout.
    let dir = tempfile::tempdir().unwrap();
    let deaf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/e2e/deaf_server.py")
        .display()
        .to_string();
    let tail: Vec<String> = ["--idle-timeout", "2s", "--", "python3", &deaf]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let store = format!("sqlite://{}", dir.path().join("bastion.db").display());
    let served = Served::start_with(dir.path(), &store, "deaf", &tail, &[]);
    let (status, text) = served.post(INIT, "");
    assert_eq!(status, 200, "{text}");
    let session = session_id(&text);
    let in_session = format!("\nMcp-Session-Id: {session}\nMCP-Protocol-Version: 2025-11-25");
    // An id longer than the relay takes: refused at once (the relay's refusal cannot
    // name it, so it would never end this request's stream).
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
        "a".repeat(2000)
    );
    let (status, text) = served.post(&long, &in_session);
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("invalid_envelope"), "{text}");
    // A request whose client leaves before the answer: the session no longer waits for it.
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}{}\r\n\r\n{body}",
        served.addr,
        served.token,
        body.len(),
        in_session.replace('\n', "\r\n")
    );
    let mut client = TcpStream::connect(&served.addr).unwrap();
    client.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(client);
    // Idle for 2 s, checked every 2 s: ended well before the relay's 30 s deadline.
    std::thread::sleep(Duration::from_secs(5));
    let note = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
    let (status, text) = served.post(note, &in_session);
    assert_eq!(status, 404, "the idle session was ended: {text}");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
}

/// `serve` of the fault server (its tools allowed, `config` put first in the config
/// file).
fn serve_fault_server(dir: &Path, config: &str) -> Served {
    allow_tools_of(dir, "fault");
    let file = dir.join("mcp-bastion/config.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{config}\n{text}")).unwrap();
    let tail: Vec<String> = ["--", "python3"]
        .into_iter()
        .map(str::to_owned)
        .chain([super::faults::fault_server().display().to_string()])
        .collect();
    let store = format!("sqlite://{}", dir.join("bastion.db").display());
    Served::start_with(dir, &store, "fault", &tail, &[])
}

/// Reads `c` to its end (at most 20 s) on a thread of its own: how the read ended (the
/// byte count, or the error's kind) and what came.
fn read_all(
    mut c: TcpStream,
) -> std::thread::JoinHandle<(Result<usize, std::io::ErrorKind>, String)> {
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let end = c.read_to_end(&mut got);
        (
            end.map_err(|e| e.kind()),
            String::from_utf8_lossy(&got).into_owned(),
        )
    })
}

/// A whole HTTP request (head and body) calling the fault server's `slow` tool, which
/// never answers, with id `id` in session `sid`.
fn slow_call(served: &Served, sid: &str, id: i64) -> String {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "slow", "arguments": {}}})
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        served.addr,
        served.token,
        body.len()
    )
}

#[test]
fn a_request_whose_client_left_is_cancelled_in_the_relay() {
    let dir = tempfile::tempdir().unwrap();
    allow_tools_of(dir.path(), "fault");
    let log = dir.path().join("fault.log");
    let server = vec![
        "python3".to_owned(),
        super::faults::fault_server().display().to_string(),
    ];
    let tail: Vec<String> = std::iter::once("--".to_owned()).chain(server).collect();
    let store = format!("sqlite://{}", dir.path().join("bastion.db").display());
    let served = Served::start_with(
        dir.path(),
        &store,
        "fault",
        &tail,
        &[
            ("FAULT_LOG", log.to_str().unwrap()),
            ("FAULT_LIST_DELAY_MS", "2500"),
        ],
    );
    let mut host = HttpSession::open(&served);
    host.request("tools/list", &json!({}));
    // A call the server never answers, on a connection the client closes `linger` ms
    // after sending it.
    let abandon = |sid: &str, id: i64, linger: u64| {
        let mut client = TcpStream::connect(&served.addr).unwrap();
        client
            .write_all(slow_call(&served, sid, id).as_bytes())
            .unwrap();
        std::thread::sleep(Duration::from_millis(linger));
        drop(client);
        std::thread::sleep(Duration::from_millis(200));
    };
    let cancelled = |id: i64| {
        (0..60).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .any(|l| {
                    serde_json::from_str::<Value>(l).is_ok_and(|m| {
                        m["method"] == "notifications/cancelled" && m["params"]["requestId"] == id
                    })
                })
        })
    };
    // The server is told as soon as the stream is gone, long before the call's 120 s
    // deadline, without waiting for another request of the session (a host that left
    // may never send one).
    abandon(&host.sid, 7, 500);
    assert!(
        cancelled(7),
        "{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // The session goes on, and a second abandoned call is cancelled the same way.
    host.request("tools/list", &json!({}));
    abandon(&host.sid, 8, 500);
    assert!(
        cancelled(8),
        "{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // The server's log, read once a session's own listing (2.5 s here) is over: whether
    // call `id` reached the server.
    let ran = |id: i64| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .any(|l| {
                serde_json::from_str::<Value>(l)
                    .is_ok_and(|m| m["method"] == "tools/call" && m["id"] == id)
            })
    };
    let db = dir.path().join("bastion.db");
    let dropped = |id: i64| {
        std::thread::sleep(Duration::from_millis(100));
        json_lines(&["--json", "audit", "--limit", "1000"], &db)
            .iter()
            .any(|e| {
                e["reason"] == "cancelled_by_host"
                    && e["tool"] == "slow"
                    && e["request_id"] == id.to_string().as_str()
            })
    };
    // A client that leaves while its call is held, on a session that never listed: the
    // call waits while Bastion lists the tools itself (2.5 s here), the cancellation
    // drops it there, it never reaches the server, and the audit says why.
    let fresh = HttpSession::open(&served);
    abandon(&fresh.sid, 9, 300);
    assert!(
        (0..60).any(|_| dropped(9)),
        "no audit event of call 9 dropped: {:#?}",
        json_lines(&["--json", "audit", "--limit", "1000"], &db)
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !ran(9),
        "call 9 reached the server: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // A client that closes right after sending: the HTTP layer may drop the connection
    // before the listener has the whole request (then nothing ran), or the call is held
    // and dropped as above, or it went on and the server was told. It never runs
    // uncancelled.
    let other = HttpSession::open(&served);
    abandon(&other.sid, 10, 0);
    std::thread::sleep(Duration::from_secs(3));
    // Checked before the listener stops (stopping cancels whatever is still pending).
    assert!(
        !ran(10) || cancelled(10),
        "call 10 ran and was never cancelled: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
}

/// SIGTERM while a call waits for the server: the call is answered on its stream with
/// -32054 `upstream_exited` before the connection closes (not cut off without an HTTP
/// response), an idle connection is closed, and the listener exits 0.
#[test]
fn a_request_in_flight_at_shutdown_is_answered_before_its_connection_closes() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve_fault_server(dir.path(), "");
    let mut host = HttpSession::open(&served);
    host.request("tools/list", &json!({}));
    let mut call = TcpStream::connect(&served.addr).unwrap();
    call.write_all(slow_call(&served, &host.sid, 5).as_bytes())
        .unwrap();
    let call = read_all(call);
    let idle = read_all(TcpStream::connect(&served.addr).unwrap());
    std::thread::sleep(Duration::from_millis(300));
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    let (end, text) = call.join().unwrap();
    assert_eq!(end, Ok(text.len()), "{text}");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let (answers, _) = messages(&text);
    assert_eq!(answers.len(), 1, "{text}");
    assert_eq!(answers[0]["id"], 5, "{text}");
    assert_eq!(
        answers[0]["error"]["data"]["reason"], "upstream_exited",
        "{text}"
    );
    let (end, text) = idle.join().unwrap();
    assert_eq!(
        (end, text.as_str()),
        (Ok(0), ""),
        "the idle connection is closed"
    );
}

/// A host that cancels a call (`notifications/cancelled`, as the MCP SDKs do) and keeps
/// reading its stream: the stream ends at once without an answer (none is due), while an
/// uncancelled call beside it times out as usual. (Before: the cancelled call's stream
/// stayed open, holding its id, its session and its connection.)
#[test]
fn a_cancelled_calls_stream_ends_without_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve_fault_server(
        dir.path(),
        "[limits]
tool_call_timeout_ms = 1000
",
    );
    let mut host = HttpSession::open(&served);
    host.request("tools/list", &json!({}));
    let mut c5 = TcpStream::connect(&served.addr).unwrap();
    c5.write_all(slow_call(&served, &host.sid, 5).as_bytes())
        .unwrap();
    let mut c6 = TcpStream::connect(&served.addr).unwrap();
    c6.write_all(slow_call(&served, &host.sid, 6).as_bytes())
        .unwrap();
    let (r5, r6) = (read_all(c5), read_all(c6));
    std::thread::sleep(Duration::from_millis(200));
    let (status, _) = host.post(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user gave up"}}"#,
    );
    assert_eq!(status, 202);
    let (end5, text5) = r5.join().unwrap();
    let (end6, text6) = r6.join().unwrap();
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    assert_eq!(end5, Ok(text5.len()), "{text5}");
    assert!(text5.ends_with("0\r\n\r\n"), "{text5}");
    assert!(
        messages(&text5).0.is_empty(),
        "an answer to a cancelled call: {text5}"
    );
    assert_eq!(end6, Ok(text6.len()), "{text6}");
    assert!(text6.contains("request_timeout"), "{text6}");
}

#[test]
fn a_panic_while_handling_a_request_answers_it_with_500_and_the_listener_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    let tail: Vec<String> = std::iter::once("--".to_owned())
        .chain(py_server())
        .collect();
    // The test build's fail point: the second POST panics after its body was read.
    let served = Served::start_with(
        dir.path(),
        &format!("sqlite://{}", store.display()),
        "py",
        &tail,
        &[("FAILPOINTS", "serve::post=1*off->1*panic->off")],
    );
    let (status, text) = served.post(INIT, "");
    assert_eq!(status, 200, "{text}");
    let session = session_id(&text);
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let extra = format!("\nMcp-Session-Id: {session}\nMCP-Protocol-Version: 2025-11-25");
    let (status, text) = served.post(list, &extra);
    assert_eq!(status, 500, "{text}");
    let body: Value = serde_json::from_str(text.split("\r\n\r\n").nth(1).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(body["error"]["code"], -32055, "{body}");
    assert_eq!(body["id"], 2, "the request's own id: {body}");
    assert_eq!(
        body["error"]["data"]["reason"], "inspection_failed",
        "{body}"
    );
    // The listener and the session go on.
    let (status, text) = served.post(list, &extra);
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("\"tools\""), "{text}");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    assert_eq!(
        err.iter().filter(|l| l.contains("This is a bug")).count(),
        1,
        "{err:?}"
    );
    let failed = super::faults::events_with(&store, "inspection_failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["method"], "POST", "{failed:?}");
}

#[test]
fn json_answers_answer_at_once_as_json_and_after_server_messages_as_an_event_stream() {
    let dir = tempfile::tempdir().unwrap();
    allow_tools_of(dir.path(), "fault");
    let store = format!("sqlite://{}", dir.path().join("bastion.db").display());
    let server = super::faults::fault_server().display().to_string();
    let call = |id: i64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    // By default every answer is an event stream.
    let tail = |flags: &[&str]| -> Vec<String> {
        flags
            .iter()
            .map(|f| (*f).to_owned())
            .chain(["--".to_owned(), "python3".to_owned(), server.clone()])
            .collect()
    };
    // The same on one thread (the default) and on a pool of two.
    for threads in [&[][..], &["--threads", "2"][..]] {
        let plain = Served::start_with(dir.path(), &store, "fault", &tail(threads), &[]);
        let mut host = HttpSession::open(&plain);
        host.request("tools/list", &json!({}));
        let (_, text) = host.post(&call(7, "echo", json!({"text": "hi"})));
        let (answer, streamed) = messages(&text);
        assert!(streamed, "{threads:?}: {text}");
        assert_eq!(
            answer[0]["result"]["content"][0]["text"], "hi",
            "{threads:?}: {text}"
        );
    }
    let served = Served::start_with(dir.path(), &store, "fault", &tail(&["--json-answers"]), &[]);
    let mut host = HttpSession::open(&served);
    host.request("tools/list", &json!({}));
    let (status, text) = host.post(&call(7, "echo", json!({"text": "hi"})));
    assert_eq!(status, 200, "{text}");
    let (answer, streamed) = messages(&text);
    assert!(
        !streamed,
        "an answer with nothing before it is JSON: {text}"
    );
    assert_eq!(answer[0]["id"], 7, "{text}");
    assert_eq!(answer[0]["result"]["content"][0]["text"], "hi", "{text}");
    // The server sends two requests of its own before it answers: with no GET stream
    // open they go on this request's stream, then the answer ends it.
    let (status, text) = host.post(&call(
        8,
        "burst_reserved",
        json!({"count": 2, "prefix": "host-ask-"}),
    ));
    assert_eq!(status, 200, "{text}");
    let (events, streamed) = messages(&text);
    assert!(streamed, "{text}");
    let methods: Vec<_> = events.iter().map(|m| m["method"].clone()).collect();
    assert_eq!(
        methods,
        [json!("ping"), json!("ping"), Value::Null],
        "{text}"
    );
    assert_eq!(events[2]["id"], 8, "{text}");
    assert!(events[2].get("result").is_some(), "{text}");
}

#[test]
fn a_server_that_cannot_start_answers_initialize_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    allow_tools_of(dir.path(), "gone");
    let served = Served::start(
        dir.path(),
        "gone",
        &[
            "python3".to_owned(),
            "-c".to_owned(),
            "import sys; sys.exit(3)".to_owned(),
        ],
    );
    let (status, text) = served.post(INIT, "");
    assert_eq!(status, 200, "{text}");
    let answer: Value = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or_else(|| panic!("an empty stream: {text}"));
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer.get("error").is_some(), "{answer}");
}

#[test]
fn stateless_era_through_serve_matches_direct() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "py");
    let served = Served::start(dir.path(), "py", &py_server());
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "add", "arguments": {"a": 2, "b": 3}},
        {"op": "read_resource", "uri": "memo://greeting"},
        {"op": "get_prompt", "name": "review", "arguments": {"code": "x = 1"}}
    ]);
    let direct = session("auto", &script, &py_server(), &store);
    assert_eq!(direct["protocol_version"], "2026-07-28");
    // Two hosts at once, both numbering their requests from 1: the listener renumbers
    // them in the shared relay and gives each answer its host's id back.
    let hosts: Vec<_> = (0..2)
        .map(|_| {
            let (url, token, store, script) = (
                served.url.clone(),
                served.token.clone(),
                store.clone(),
                script.clone(),
            );
            std::thread::spawn(move || {
                super::session_with_env(
                    "auto",
                    &script,
                    std::slice::from_ref(&url),
                    &store,
                    &[("MCP_TEST_BEARER", token.as_str())],
                )
            })
        })
        .collect();
    for host in hosts {
        let through = host.join().unwrap();
        assert_eq!(through["protocol_version"], "2026-07-28", "{through}");
        let (d, t) = (&direct["steps"], &through["steps"]);
        assert_eq!(names(&d[0], "tools", "name"), names(&t[0], "tools", "name"));
        assert_eq!(d[1], t[1]);
        assert_eq!(t[1]["structuredContent"]["result"], 5);
        assert_eq!(d[3], t[3]);
        // The same inspection as `wrap`: the colour codes are gone.
        assert_eq!(t[2]["contents"][0]["text"], "hello red world");
    }
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    // A body of exactly the cap (1 MiB) is taken, although the renumbered id makes the
    // frame the relay gets longer.
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{meta},"pad":""#
    );
    let tail = r#""}}"#;
    let body = format!(
        "{head}{}{tail}",
        "x".repeat(1 << 20).get(head.len() + tail.len()..).unwrap()
    );
    assert_eq!(body.len(), 1 << 20);
    let (status, text) = served.post(
        &body,
        "\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: add",
    );
    assert_eq!(status, 200, "{}", &text[..text.len().min(600)]);
    assert!(
        !text.contains("frame_too_large"),
        "{}",
        &text[..text.len().min(600)]
    );
    // Tasks on the shared relay would be every host's: refused, never sent.
    for (body, headers) in [
        (
            format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tasks/list","params":{{{meta}}}}}"#),
            "\nMcp-Method: tasks/list",
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"TASKS/result","params":{{"taskId":"t",{meta}}}}}"#
            ),
            "\nMcp-Method: TASKS/result",
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},"task":{{"ttl":60000}},{meta}}}}}"#
            ),
            "\nMcp-Method: tools/call\nMcp-Name: add",
        ),
    ] {
        let (status, text) = served.post(
            &body,
            &format!("\nMCP-Protocol-Version: 2026-07-28{headers}"),
        );
        assert_eq!(status, 400, "{text}");
        assert!(text.contains("tasks_need_session"), "{text}");
    }
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err:?}");
    let relays = err
        .iter()
        .filter(|l| l.contains("stateless relay started"))
        .count();
    assert_eq!(relays, 1, "one shared relay: {err:?}");
    assert!(
        !err.iter()
            .any(|l| l.contains("session") && l.contains("started")),
        "no sessions in the stateless era: {err:?}"
    );
}

/// A session on a [`Served`] listener over raw HTTP/1.1, one connection per request.
pub(super) struct HttpSession<'a> {
    served: &'a Served,
    pub(super) sid: String,
    next: i64,
}

impl<'a> HttpSession<'a> {
    pub(super) fn open(served: &'a Served) -> Self {
        let (status, text) = served.post(INIT, "");
        assert_eq!(status, 200, "{text}");
        let sid = text
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("mcp-session-id: ")
                    .map(str::to_owned)
            })
            .expect("a session id");
        let s = Self {
            served,
            sid,
            next: 100,
        };
        let (status, _) = s.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(status, 202);
        s
    }

    pub(super) fn post(&self, body: &str) -> (u16, String) {
        self.served
            .post(body, &format!("\nMcp-Session-Id: {}", self.sid))
    }

    pub(super) fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let (status, text) = self.post(&body.to_string());
        assert_eq!(status, 200, "{text}");
        messages(&text)
            .0
            .into_iter()
            .find(|m| m["id"] == self.next)
            .unwrap_or_else(|| panic!("no answer in {text}"))
    }

    fn tool_names(&mut self) -> Vec<String> {
        let list = self.request("tools/list", &json!({}));
        names(&list["result"], "tools", "name")
    }
}

#[test]
fn two_listeners_share_pins_and_audit_on_sqlite() {
    two_listeners_share_pins_and_audit(&testdb::sqlite());
}

#[test]
fn two_listeners_share_pins_and_audit_on_postgres() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let Some(db) = rt.block_on(testdb::postgres()) else {
        return;
    };
    two_listeners_share_pins_and_audit(&db);
    rt.block_on(db.remove());
}

/// Two `serve` instances on one store (issue 8 §5): a pin approved with `pins approve`
/// is enforced by both within one second, and both instances' audit events land in one
/// table with their instance ids.
fn two_listeners_share_pins_and_audit(db: &testdb::TestDb) {
    let homes = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    for h in &homes {
        allow_tools_of(h.path(), "rug");
    }
    let url = db.url.as_str();
    let a = Served::start_at(homes[0].path(), url, "rug", &rug_server());
    let b = Served::start_at(homes[1].path(), url, "rug", &rug_server());
    let mut sa = HttpSession::open(&a);
    let mut sb = HttpSession::open(&b);
    for s in [&mut sa, &mut sb] {
        assert_eq!(s.tool_names(), ["get_invoice", "rug_pull"]);
    }
    // Each session's server changes get_invoice: withheld by both listeners.
    for s in [&mut sa, &mut sb] {
        let pulled = s.request("tools/call", &json!({"name": "rug_pull", "arguments": {}}));
        assert!(pulled.get("result").is_some(), "{pulled}");
        assert_eq!(s.tool_names(), ["export_all", "rug_pull"]);
        let refused = s.request(
            "tools/call",
            &json!({"name": "get_invoice", "arguments": {"id": "7"}}),
        );
        assert_eq!(
            refused["error"]["data"]["reason"], "pending_review",
            "{refused}"
        );
    }
    let out = run_at(
        &[
            "--json", "pins", "list", "--server", "rug", "--state", "pending",
        ],
        "",
        url,
        homes[0].path(),
    );
    let pending: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(pending.len(), 1, "{pending:?}");
    let id = pending[0]["id"].as_i64().unwrap().to_string();
    let out = run_at(&["pins", "approve", &id], "", url, homes[1].path());
    assert_eq!(out.status.code(), Some(0));
    let approved = std::time::Instant::now();
    for s in [&mut sa, &mut sb] {
        while !s.tool_names().contains(&"get_invoice".to_owned()) {
            assert!(
                approved.elapsed() <= Duration::from_secs(1),
                "the approval did not reach a listener within 1 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let answer = s.request(
            "tools/call",
            &json!({"name": "get_invoice", "arguments": {"id": "7"}}),
        );
        assert_eq!(
            answer["result"]["content"][0]["text"], "invoice 7",
            "{answer}"
        );
    }
    let pids = [a.child.id(), b.child.id()];
    drop((sa, sb));
    assert_eq!(a.stop().0, Some(0));
    assert_eq!(b.stop().0, Some(0));
    let out = run_at(
        &["--json", "audit", "--server", "rug", "--limit", "10000"],
        "",
        url,
        homes[0].path(),
    );
    let instances: std::collections::BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| e["instance"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(instances.len(), 2, "{instances:?}");
    for pid in pids {
        assert!(
            instances.iter().any(|i| i.contains(&format!("-{pid}-"))),
            "{pid}: {instances:?}"
        );
    }
}

#[test]
fn serve_refuses_a_thread_count_of_zero_before_starting_anything() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    for n in ["0", "257", "many"] {
        let out = super::run(
            &["serve", "--threads", n, "--", "python3", "-c", "pass"],
            "",
            &store,
        );
        assert_eq!(out.status.code(), Some(2), "{n}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--threads"), "{n}: {err}");
        assert!(!store.exists(), "{n}: the store was opened");
    }
}
