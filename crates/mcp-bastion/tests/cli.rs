//! End-to-end tests of the `mcp-bastion` binary: `check`, `scan`, `audit`, and `wrap`
//! between real MCP peers — the reference server `@modelcontextprotocol/server-everything`
//! (npm) and the official Python SDK (`mcp` on `PyPI`) as client and as a dual-era server.
//! The peers are installed by `scripts/test-deps.sh` into `.ci/deps` (or
//! `$BASTION_TEST_DEPS`).

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-bastion")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn deps() -> PathBuf {
    let dir = std::env::var_os("BASTION_TEST_DEPS")
        .map_or_else(|| workspace().join(".ci/deps"), PathBuf::from);
    assert!(
        dir.join("venv/bin/python").exists()
            && dir
                .join("node/node_modules/.bin/mcp-server-everything")
                .exists(),
        "test peers missing in {}: run scripts/test-deps.sh first",
        dir.display()
    );
    dir
}

fn python() -> String {
    deps().join("venv/bin/python").display().to_string()
}

fn everything() -> Vec<String> {
    vec![
        deps()
            .join("node/node_modules/.bin/mcp-server-everything")
            .display()
            .to_string(),
    ]
}

pub(crate) fn py_server() -> Vec<String> {
    vec![
        python(),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/e2e/py_server.py")
            .display()
            .to_string(),
    ]
}

fn hostile_server() -> Vec<String> {
    vec![
        "python3".into(),
        workspace()
            .join("crates/bastion-gateway/tests/servers/hostile_server.py")
            .display()
            .to_string(),
    ]
}

/// Writes the config of the isolated config home `dir` (`XDG_CONFIG_HOME` of [`run`]):
/// every tool of server `name` runs without asking. Tests of other features use it;
/// confirmation itself is tested with its own policies.
fn allow_tools_of(dir: &Path, name: &str) {
    let config = dir.join("mcp-bastion/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        config,
        format!("[servers.{name}.tools.\"*\"]\naction = \"allow\"\n"),
    )
    .unwrap();
}

/// Runs the binary with `args`, feeding `stdin`; isolated config and store.
fn run(args: &[&str], stdin: &str, store: &Path) -> Output {
    run_at(
        args,
        stdin,
        &format!("sqlite://{}", store.display()),
        store.parent().unwrap(),
    )
}

/// [`run`] on the store at `store_url` with the config home `config_home`.
fn run_at(args: &[&str], stdin: &str, store_url: &str, config_home: &Path) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .env("MCP_BASTION_STORE", store_url)
        .env("XDG_CONFIG_HOME", config_home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails before reading stdin (unknown kind) may close it first.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn json_out(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn check_exit_codes_and_json_shape() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    let dup = json!({"raw": r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"a","Name":"b"}}"#});
    let out = run(
        &["--json", "check", "message", "-"],
        &dup.to_string(),
        &store,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "block");
    assert_eq!(v["findings"][0]["code"], "duplicate_key");
    assert_eq!(v["findings"][0]["severity"], "high");
    assert_eq!(v["findings"][0]["path"], "/params");
    assert_eq!(v["output"]["answer"]["error"]["code"], -32600);

    let ok = json!({"raw": r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#});
    let out = run(&["--json", "check", "message"], &ok.to_string(), &store);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_out(&out)["verdict"], "allow");

    let ansi =
        json!({"content": [{"type": "text", "text": "\u{1b}[2J\u{1b}[HAll 212 tests passed.\n"}]});
    let file = dir.path().join("result.json");
    std::fs::write(&file, ansi.to_string()).unwrap();
    let out = run(
        &["--json", "check", "result", file.to_str().unwrap()],
        "",
        &store,
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "sanitize");
    assert_eq!(v["output"]["content"][0]["text"], "All 212 tests passed.\n");

    // Input errors exit 2 with a message.
    let out = run(&["check", "message"], "not json", &store);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("input is not valid JSON"));
    let out = run(&["check", "nonsense"], "{}", &store);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "descriptor", "/nonexistent/x.json"], "", &store);
    assert_eq!(out.status.code(), Some(2));
}

/// `check confirmation` answers with the configured `[confirmation]`/`[servers.*]` policy
/// when the input carries none; a bad policy in the config exits 2 with a clear message.
#[test]
fn check_confirmation_uses_the_config_policy() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    std::fs::create_dir_all(dir.path().join("mcp-bastion")).unwrap();
    let config = dir.path().join("mcp-bastion/config.toml");
    std::fs::write(
        &config,
        "[servers.gh]\ntrusted = true\n[servers.gh.tools.\"delete_*\"]\naction = \"deny\"\n[servers.gh.tools.\"get_*\"]\naction = \"allow\"\n",
    )
    .unwrap();
    let call = |server: &str, tool: &str| {
        json!({"server_trust": "trusted", "server": server,
               "call": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": tool, "arguments": {"repo": "o/r"}}}})
        .to_string()
    };
    let out = run(
        &["--json", "check", "confirmation"],
        &call("gh", "delete_repo"),
        &store,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "block");
    assert_eq!(v["findings"][0]["code"], "policy_denied");
    let out = run(
        &["--json", "check", "confirmation"],
        &call("gh", "get_repo"),
        &store,
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "allow");
    assert_eq!(v["output"]["digest"].as_str().unwrap().len(), 64);
    // Another server: no rules, so a call without a pinned descriptor asks.
    let out = run(
        &["--json", "check", "confirmation"],
        &call("other", "get_repo"),
        &store,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_out(&out)["verdict"], "flag");

    std::fs::write(
        &config,
        "[confirmation]\nchannels = [\"tty\", \"carrier-pigeon\"]\n",
    )
    .unwrap();
    let out = run(&["check", "confirmation"], &call("gh", "get_repo"), &store);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid config file") && err.contains("carrier-pigeon"),
        "{err}"
    );
}

/// `check http-request`: DESIGN §3 JSON shape, exit codes, and the body cap from the
/// configured `[limits] max_host_frame_bytes`.
#[test]
fn check_http_request() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let request = |host: &str, length: &str| {
        json!({"transport": "http", "method": "POST", "path": "/mcp",
               "headers": {"Host": host, "Content-Type": "application/json",
                           "Accept": "application/json, text/event-stream",
                           "Content-Length": length}})
        .to_string()
    };
    let len = body.len().to_string();
    let out = run(
        &["--json", "check", "http-request"],
        &request("rebind.attacker.example:8931", &len),
        &store,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "block");
    assert_eq!(v["findings"][0]["code"], "http_host_not_allowed");
    assert_eq!(v["findings"][0]["severity"], "high");
    assert_eq!(v["findings"][0]["path"], "/headers/Host");
    assert_eq!(v["output"]["status"], 403);
    assert_eq!(v["output"]["stage"], "headers");

    let out = run(
        &["--json", "check", "http-request"],
        &request("localhost:8931", &len),
        &store,
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "allow");
    assert_eq!(v["findings"], json!([]));
    assert_eq!(v["output"]["action"], "allow");
    assert_eq!(v["output"]["policy"]["max_body_bytes"], 1_048_576);

    std::fs::create_dir_all(dir.path().join("mcp-bastion")).unwrap();
    std::fs::write(
        dir.path().join("mcp-bastion/config.toml"),
        "[limits]\nmax_host_frame_bytes = 1000\n",
    )
    .unwrap();
    let out = run(
        &["--json", "check", "http-request"],
        &request("localhost:8931", "1001"),
        &store,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_out(&out)["output"]["status"], 413);

    let out = run(
        &["check", "http-request"],
        &json!({"transport": "stdio", "method": "POST", "path": "/mcp"}).to_string(),
        &store,
    );
    assert_eq!(out.status.code(), Some(2), "stdio input is an input error");
}

#[test]
fn check_url_and_elicitation() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    let ssrf = json!({"context": "token_endpoint", "url": "https://0x7f.1/token"});
    let out = run(&["--json", "check", "url", "-"], &ssrf.to_string(), &store);
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["verdict"], "block");
    assert_eq!(v["output"]["normalized"], "https://127.0.0.1/token");
    assert_eq!(v["output"]["address_class"], "loopback");

    let docs = json!({"context": "oauth_authorization_endpoint", "url": "https://docs.rs/url/?search=Host"});
    let out = run(&["--json", "check", "url"], &docs.to_string(), &store);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_out(&out)["output"]["registrable_domain"], "docs.rs");

    let out = run(
        &["check", "url"],
        &json!({"context": "x"}).to_string(),
        &store,
    );
    assert_eq!(out.status.code(), Some(2), "missing url is an input error");

    let form = json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": {
        "message": "Sign in again", "requestedSchema": {"type": "object", "properties": {
            "pw": {"type": "string", "title": "Passwort"}}}}});
    let out = run(
        &["--json", "check", "elicitation"],
        &form.to_string(),
        &store,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert_eq!(v["findings"][0]["code"], "sensitive_form_field");
    assert_eq!(v["output"]["answer"]["id"], 9);
    assert_eq!(
        v["output"]["answer"]["error"]["data"]["reason"],
        "policy_denied"
    );

    let url_mode = json!({"jsonrpc": "2.0", "id": 10, "method": "elicitation/create", "params": {
        "mode": "url", "elicitationId": "e1", "url": "https://Docs.Example.com/a/../setup",
        "message": "Open the setup page"}});
    let out = run(
        &["--json", "check", "elicitation"],
        &url_mode.to_string(),
        &store,
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json_out(&out);
    let params = &v["output"]["request"]["params"];
    assert_eq!(params["url"], "https://docs.example.com/setup");
    assert!(
        params["message"]
            .as_str()
            .unwrap()
            .starts_with("mcp-bastion: the server")
    );

    let out = run(
        &["check", "elicitation"],
        &json!({"method": "ping"}).to_string(),
        &store,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_human_output_escapes_hidden_text() {
    let dir = tempfile::tempdir().unwrap();
    let input = json!({"kind": "resource", "descriptor": {"uri": "file:///r.txt", "name": "report\u{202e}txt.exe"}});
    let out = run(
        &["check", "descriptor"],
        &input.to_string(),
        &dir.path().join("b.db"),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bidi_control"), "{text}");
    assert!(
        !text.contains('\u{202e}'),
        "raw bidi override printed: {text}"
    );
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn codes_table_matches_docs() {
    let out = Command::new(bin()).arg("codes").output().unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    let doc = std::fs::read_to_string(workspace().join("docs/finding-codes.md")).unwrap();
    assert!(
        doc.contains(&table),
        "docs/finding-codes.md is out of date: run `mcp-bastion codes` and paste the table"
    );
}

/// One Python SDK session against `server` (direct or wrapped).
fn session(mode: &str, script: &Value, server: &[String], store: &Path) -> Value {
    session_with_env(mode, script, server, store, &[])
}

/// [`session`] with extra environment variables for the session script (a Streamable
/// HTTP session reads its bearer token from `MCP_TEST_BEARER`).
fn session_with_env(
    mode: &str,
    script: &Value,
    server: &[String],
    store: &Path,
    env: &[(&str, &str)],
) -> Value {
    let out = Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/session.py"))
        .arg(mode)
        .arg(script.to_string())
        .arg("--")
        .args(server)
        .env("MCP_BASTION_STORE", format!("sqlite://{}", store.display()))
        .env("XDG_CONFIG_HOME", store.parent().unwrap())
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "session failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn wrapped(name: &str, server: Vec<String>) -> Vec<String> {
    let mut argv = vec![
        bin().to_owned(),
        "wrap".into(),
        "--name".into(),
        name.into(),
        "--".into(),
    ];
    argv.extend(server);
    argv
}

fn names(list: &Value, member: &str, key: &str) -> Vec<String> {
    let mut v: Vec<String> = list[member]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[key].as_str().unwrap().to_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn server_everything_through_wrap_matches_direct() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "everything");
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "echo", "arguments": {"message": "hello from the test"}},
        {"op": "call_tool", "name": "get-sum", "arguments": {"a": 2, "b": 40}},
        {"op": "list_prompts"},
        {"op": "get_prompt", "name": "simple-prompt", "arguments": {}},
        {"op": "list_resources"},
        {"op": "list_resource_templates"},
        {"op": "read_resource", "uri": "demo://resource/static/document/architecture.md"}
    ]);
    for mode in ["legacy", "auto"] {
        let direct = session(mode, &script, &everything(), &store);
        let through = session(mode, &script, &wrapped("everything", everything()), &store);
        assert_eq!(
            direct["protocol_version"], through["protocol_version"],
            "{mode}"
        );
        let (d, t) = (&direct["steps"], &through["steps"]);
        assert_eq!(
            names(&d[0], "tools", "name"),
            names(&t[0], "tools", "name"),
            "{mode}: tools/list differs"
        );
        assert_eq!(d[0]["tools"].as_array().unwrap().len(), 13);
        assert_eq!(d[1], t[1], "{mode}: tools/call echo differs");
        assert_eq!(t[1]["content"][0]["text"], "Echo: hello from the test");
        assert_eq!(d[2], t[2], "{mode}: tools/call get-sum differs");
        assert_eq!(
            names(&d[3], "prompts", "name"),
            names(&t[3], "prompts", "name")
        );
        assert_eq!(d[4], t[4], "{mode}: prompts/get differs");
        assert_eq!(
            names(&d[5], "resources", "uri"),
            names(&t[5], "resources", "uri")
        );
        assert_eq!(
            names(&d[6], "resourceTemplates", "uriTemplate"),
            names(&t[6], "resourceTemplates", "uriTemplate")
        );
        assert_eq!(d[7], t[7], "{mode}: resources/read differs");
        assert!(d[7]["contents"][0]["text"].as_str().unwrap().len() > 100);
    }
    // The gateway audited what it relayed.
    let out = run(
        &[
            "--json",
            "audit",
            "--server",
            "everything",
            "--limit",
            "1000",
        ],
        "",
        &store,
    );
    assert_eq!(out.status.code(), Some(0));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.iter().any(|e| e["method"] == "tools/call"
        && e["tool"] == "echo"
        && e["direction"] == "server_to_host"));
    assert!(
        events
            .iter()
            .any(|e| e["method"] == "resources/read" && e["direction"] == "server_to_host")
    );
    // Never payload text.
    let raw = String::from_utf8_lossy(&out.stdout);
    assert!(
        !raw.contains("hello from the test"),
        "argument values leaked into the audit log"
    );
    // `pins list` keeps its columns aligned, `server_instructions` (the longest kind)
    // included: each row's state starts under STATE.
    let out = run(&["pins", "list", "--server", "everything"], "", &store);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let column = lines
        .next()
        .and_then(|h| h.find("STATE"))
        .expect("a header");
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.iter().any(|r| r.contains("server_instructions")),
        "{text}"
    );
    for row in rows {
        assert!(
            ["approved", "pending", "revoked"]
                .iter()
                .any(|state| row.get(column..).is_some_and(|r| r.starts_with(state))),
            "misaligned: {row:?}\n{text}"
        );
    }
}

#[test]
fn stateless_era_through_wrap() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bastion.db");
    allow_tools_of(dir.path(), "py");
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "add", "arguments": {"a": 2, "b": 3}},
        {"op": "read_resource", "uri": "memo://greeting"},
        {"op": "get_prompt", "name": "review", "arguments": {"code": "x = 1"}}
    ]);
    let direct = session("auto", &script, &py_server(), &store);
    let through = session("auto", &script, &wrapped("py", py_server()), &store);
    assert_eq!(direct["protocol_version"], "2026-07-28");
    assert_eq!(through["protocol_version"], "2026-07-28");
    let (d, t) = (&direct["steps"], &through["steps"]);
    assert_eq!(names(&d[0], "tools", "name"), names(&t[0], "tools", "name"));
    assert_eq!(d[1], t[1]);
    assert_eq!(t[1]["structuredContent"]["result"], 5);
    assert_eq!(d[3], t[3]);
    // The resource text carries colour codes: direct shows them, the gateway removes them.
    assert_eq!(
        d[2]["contents"][0]["text"],
        "hello \u{1b}[31mred\u{1b}[0m world"
    );
    assert_eq!(t[2]["contents"][0]["text"], "hello red world");
    assert_eq!(t[2]["resultType"], "complete");
}

#[test]
fn scan_reports_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    let mut args = vec!["--json", "scan", "--name", "hostile", "--"];
    let hostile = hostile_server();
    args.extend(hostile.iter().map(String::as_str));
    let out = run(&args, "", &store);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_out(&out);
    assert_eq!(v["verdict"], "block");
    let items = v["output"]["items"].as_array().unwrap();
    let hidden = items.iter().find(|i| i["key"] == "hidden_tool").unwrap();
    assert_eq!(hidden["verdict"], "block");
    assert!(
        hidden["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "hidden_unicode_tag")
    );
    assert_eq!(v["output"]["era"], "legacy");
    // Each recorded descriptor has its size (compact JSON bytes), never 0.
    let recorded = json_lines(&["--json", "audit", "--server", "hostile"], &store);
    assert!(!recorded.is_empty());
    assert!(
        recorded
            .iter()
            .all(|e| e["reason"] == "scan" && e["bytes"].as_i64() > Some(0)),
        "{recorded:?}"
    );

    let mut args = vec!["scan", "--name", "everything", "--"];
    let every = everything();
    args.extend(every.iter().map(String::as_str));
    let out = run(&args, "", &store);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("echo"), "{text}");
    assert!(text.contains("items:"), "{text}");
    assert!(
        !text.contains(" block "),
        "server-everything must not have blocked items:\n{text}"
    );

    let mut args = vec!["--json", "scan", "--"];
    let py = py_server();
    args.extend(py.iter().map(String::as_str));
    let out = run(&args, "", &store);
    let v = json_out(&out);
    assert_eq!(v["output"]["era"], "stateless", "{v}");
    assert!(
        v["output"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["key"] == "add")
    );
}

/// `contract from-server` lists the reference server and writes a source manifest that
/// the strict contract parser accepts, with every listed descriptor copied verbatim and
/// governance derived from the annotations.
#[test]
fn contract_from_server_writes_a_parseable_source() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    let source = dir.path().join("contract.source.json");
    let mut args = vec![
        "contract",
        "from-server",
        "-o",
        source.to_str().unwrap(),
        "--owner",
        "reference-servers team",
        "--",
    ];
    let server = everything();
    args.extend(server.iter().map(String::as_str));
    let out = run(&args, "", &store);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&source).unwrap();
    let manifest = bastion_core::contract::parse_source(&bytes).unwrap();
    assert_eq!(manifest.owner, "reference-servers team");
    assert_eq!(manifest.contract_version, 1);
    assert!(!manifest.server_id.is_empty());

    // The same descriptors `scan` lists, verbatim.
    let mut scan_args = vec!["--json", "scan", "--"];
    scan_args.extend(server.iter().map(String::as_str));
    let scanned = json_out(&run(&scan_args, "", &store));
    let listed_tools = scanned["output"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "tool")
        .count();
    assert_eq!(manifest.tools.len(), listed_tools);
    assert!(!manifest.resources.is_empty() && !manifest.prompts.is_empty());
    let echo = manifest.tools.iter().find(|t| t.name == "echo").unwrap();
    assert!(echo.read_only && !echo.destructive && !echo.requires_human_approval);
    assert!(echo.input_schema.get("properties").is_some());
    // A tool that is not read-only asks for approval and for its side effects; its
    // destructive flag follows its destructiveHint.
    let writer = manifest
        .tools
        .iter()
        .find(|t| t.name == "toggle-simulated-logging")
        .unwrap();
    assert!(!writer.read_only && !writer.destructive && writer.requires_human_approval);
    assert_eq!(writer.side_effects.len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&source).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn wrap_reports_missing_server_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &["wrap", "--name", "x", "--", "/nonexistent/server"],
        "",
        &dir.path().join("b.db"),
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start server command"));
    let out = run(&["wrap"], "", &dir.path().join("b.db"));
    assert_eq!(out.status.code(), Some(2));
}

/// `mcp-bastion … | head`: a reader that closed our stdout is normal use, not a failure,
/// and `scan` still records what it found.
#[test]
fn closed_stdout_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("b.db");
    for args in [vec!["codes"], vec!["--json", "check", "message"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut child = Command::new(bin())
            .args(&args)
            .env("MCP_BASTION_STORE", format!("sqlite://{}", store.display()))
            .stdin(Stdio::piped())
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // `codes` does not read its input and may exit first: a failed write is fine.
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}"#);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(bin())
        .args(["scan", "--name", "hostile", "--"])
        .args(hostile_server())
        .env("MCP_BASTION_STORE", format!("sqlite://{}", store.display()))
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let audit = run(&["--json", "audit", "--server", "hostile"], "", &store);
    assert!(String::from_utf8_lossy(&audit.stdout).contains("hidden_tool"));
}

#[test]
fn audit_of_a_missing_store_is_an_error_not_an_empty_log() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["audit"], "", &dir.path().join("nothing/here.db"));
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing has been recorded there yet"));
    assert!(!dir.path().join("nothing").exists());
}

/// A host driving `mcp-bastion wrap` over real pipes, with read timeouts.
struct WrapHost {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: i64,
}

impl WrapHost {
    fn start(args: &[&str], store: &Path) -> Self {
        Self::start_at(
            args,
            &format!("sqlite://{}", store.display()),
            store.parent().unwrap(),
        )
    }

    /// [`WrapHost::start`] on the store at `store_url` with the config home `config_home`.
    fn start_at(args: &[&str], store_url: &str, config_home: &Path) -> Self {
        Self::start_env(args, store_url, config_home, &[])
    }

    /// [`WrapHost::start_at`] with extra environment variables.
    fn start_env(args: &[&str], store_url: &str, config_home: &Path, env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(bin())
            .args(args)
            .envs(env.iter().copied())
            .env("MCP_BASTION_STORE", store_url)
            .env("XDG_CONFIG_HOME", config_home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// The legacy handshake: `initialize` (asserted answered) and
    /// `notifications/initialized`.
    fn initialize(&mut self) {
        let (init, _) = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("no message from the gateway within 20 s");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends a request; returns its answer and the notifications seen meanwhile.
    #[allow(clippy::needless_pass_by_value)] // `json!` literals read best inline
    fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut notes = Vec::new();
        loop {
            let m = self.recv();
            if m["id"] == id {
                return (m, notes);
            }
            notes.push(m);
        }
    }

    fn tool_names(&mut self) -> Vec<String> {
        let (r, _) = self.request("tools/list", json!({}));
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    fn close(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn rug_server() -> Vec<String> {
    vec![
        "python3".into(),
        workspace()
            .join("crates/bastion-gateway/tests/servers/rugpull_server.py")
            .display()
            .to_string(),
    ]
}

fn pins_json(store: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--json", "pins", "list"];
    args.extend_from_slice(extra);
    json_lines(&args, store)
}

/// Runs a `--json` listing command that must succeed; one JSON value per output line.
fn json_lines(args: &[&str], store: &Path) -> Vec<Value> {
    let out = run(args, "", store);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_changed_tool_is_withheld_until_approved_and_the_host_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("pins.db");
    allow_tools_of(dir.path(), "rug");
    let server = rug_server();
    let mut args = vec!["wrap", "--name", "rug", "--"];
    args.extend(server.iter().map(String::as_str));
    let mut host = WrapHost::start(&args, &store);
    let (init, _) = host.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
    // Bastion advertises listChanged so that approvals can reach the host without a restart.
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{init}"
    );
    host.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(host.tool_names(), ["get_invoice", "rug_pull"]);
    let (r, _) = host.request(
        "tools/call",
        json!({"name": "get_invoice", "arguments": {"id": "7"}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "invoice 7");

    // The server changes get_invoice and adds export_all, then says so.
    let (_, notes) = host.request("tools/call", json!({"name": "rug_pull", "arguments": {}}));
    let mut notes = notes;
    while !notes
        .iter()
        .any(|n| n["method"] == "notifications/tools/list_changed")
    {
        notes.push(host.recv());
    }
    // The changed tool is withheld; the new one is trusted on first use (tofu).
    assert_eq!(host.tool_names(), ["export_all", "rug_pull"]);
    let (r, _) = host.request(
        "tools/call",
        json!({"name": "get_invoice", "arguments": {"id": "7"}}),
    );
    assert_eq!(r["error"]["data"]["reason"], "pending_review", "{r}");

    // Review: the pending pin, its diff, approval.
    let pending = pins_json(&store, &["--server", "rug", "--state", "pending"]);
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0]["key"], "get_invoice");
    assert_eq!(pending[0]["reason"], "changed");
    let id = pending[0]["id"].as_i64().unwrap().to_string();
    let diff = run(&["pins", "diff", &id], "", &store);
    let text = String::from_utf8_lossy(&diff.stdout);
    assert!(text.contains("forward_to"), "{text}");
    assert!(text.contains("keeps a copy for auditing"), "{text}");
    let approve = run(&["pins", "approve", &id], "", &store);
    assert_eq!(
        approve.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&approve.stderr)
    );

    // The running gateway notices and tells the host to re-list.
    let note = loop {
        let m = host.recv();
        if m["method"] == "notifications/tools/list_changed" {
            break m;
        }
    };
    assert!(note.get("id").is_none());
    assert_eq!(host.tool_names(), ["export_all", "get_invoice", "rug_pull"]);
    let (r, _) = host.request(
        "tools/call",
        json!({"name": "get_invoice", "arguments": {"id": "8"}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "invoice 8");

    // Revoking withholds it again.
    let revoke = run(&["pins", "revoke", &id], "", &store);
    assert_eq!(revoke.status.code(), Some(0));
    loop {
        if host.recv()["method"] == "notifications/tools/list_changed" {
            break;
        }
    }
    assert_eq!(host.tool_names(), ["export_all", "rug_pull"]);
    host.close();

    let all = pins_json(&store, &["--server", "rug"]);
    assert!(
        all.iter()
            .any(|p| p["kind"] == "launch_config" && p["state"] == "approved"),
        "{all:?}"
    );
    let bad = run(&["pins", "approve", "99999"], "", &store);
    assert_eq!(bad.status.code(), Some(2));
}

/// A config file in `dir` that turns on strict pinning.
fn strict_pinning_config(dir: &Path) -> PathBuf {
    let config = dir.join("strict.toml");
    std::fs::write(&config, "[pinning]\nmode = \"strict\"\n").unwrap();
    config
}

/// Revokes pin `id`, then runs `args` (a `wrap` of a command that appends a line to
/// `marker`): the gateway must exit 3 without the command running again.
fn revoke_and_assert_it_never_runs(args: &[&str], store: &Path, id: &str, marker: &Path) {
    let before = std::fs::read_to_string(marker).unwrap();
    assert_eq!(
        run(&["pins", "revoke", id], "", store).status.code(),
        Some(0)
    );
    let out = run(args, "", store);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(marker).unwrap(),
        before,
        "a revoked command ran"
    );
}

/// The launch check runs before the server starts, and the rest of pinning (server
/// identity, pins) after: a refused launch config never runs, a revoked one neither, and
/// an approved one runs once.
#[test]
fn a_refused_launch_config_never_starts_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("pins.db");
    let config = strict_pinning_config(dir.path());
    let marker = dir.path().join("started");
    let script = format!("echo x >> '{}'", marker.display());
    let args = [
        "--config",
        config.to_str().unwrap(),
        "wrap",
        "--name",
        "marker",
        "--",
        "/bin/sh",
        "-c",
        &script,
    ];
    let out = run(&args, "", &store);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(!marker.exists(), "a never approved command ran");
    let pending = pins_json(&store, &["--state", "pending"]);
    assert_eq!(pending.len(), 1, "{pending:?}");
    let id = pending[0]["id"].as_i64().unwrap().to_string();
    assert_eq!(
        run(&["pins", "approve", &id], "", &store).status.code(),
        Some(0)
    );
    let out = run(&args, "", &store);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "x\n");
    revoke_and_assert_it_never_runs(&args, &store, &id, &marker);
}

/// The path of a store `name` in `dir` that does not exist yet, and its migration lock,
/// held: until the lock is dropped, no process can open that store.
fn locked_new_store(dir: &Path, name: &str) -> (PathBuf, std::fs::File) {
    let lock = std::fs::File::create(dir.join(format!("{name}-migrate.lock"))).unwrap();
    lock.lock().unwrap();
    (dir.join(name), lock)
}

/// Starts `mcp-bastion ARGS` on the `SQLite` store `store` (whose migration lock the
/// caller holds, so the store cannot open yet), with no host input, and waits up to 10 s
/// for every path of `wait_for` to exist.
fn spawn_on_locked_new_store(args: &[&str], store: &Path, wait_for: &[&Path]) -> Child {
    let gateway = Command::new(bin())
        .args(args)
        .env("MCP_BASTION_STORE", format!("sqlite://{}", store.display()))
        .env("XDG_CONFIG_HOME", store.parent().unwrap())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !wait_for.iter().all(|p| p.exists()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    gateway
}

#[test]
fn a_first_run_starts_the_server_while_the_store_is_created_and_later_runs_check_first() {
    // Tofu pinning and no store yet: the server starts while the store is created (an
    // empty store cannot refuse it). Holding the store's migration lock keeps the store
    // from opening, so the server visibly runs before it; its launch config is pinned as
    // approved all the same.
    let dir = tempfile::tempdir().unwrap();
    let (store, lock) = locked_new_store(dir.path(), "new.db");
    let marker = dir.path().join("started");
    let script = format!("echo x >> '{}'", marker.display());
    let args = ["wrap", "--name", "first", "--", "/bin/sh", "-c", &script];
    let gateway = spawn_on_locked_new_store(&args, &store, &[&marker]);
    assert!(
        marker.exists(),
        "the server did not start while the store was being created"
    );
    drop(lock);
    let out = gateway.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "x\n");
    let launch: Vec<Value> = pins_json(&store, &[])
        .into_iter()
        .filter(|p| p["kind"] == "launch_config")
        .collect();
    assert_eq!(launch.len(), 1, "{launch:?}");
    assert_eq!(launch[0]["state"], "approved", "{launch:?}");
    // The store exists now: a revoked launch config is refused before anything starts.
    let id = launch[0]["id"].as_i64().unwrap().to_string();
    revoke_and_assert_it_never_runs(&args, &store, &id, &marker);
}

/// A `wrap` of a shell that writes its pid to `started` and starts a background child
/// (pid in `bg`) that would write `late` after 30 s: a command whose whole process
/// group must be stopped. Returns the args and the three paths.
fn group_server(dir: &Path, name: &str) -> (Vec<String>, PathBuf, PathBuf, PathBuf) {
    let (started, bg, late) = (dir.join("started"), dir.join("bg"), dir.join("late"));
    let script = format!(
        "echo $$ > '{}'; (sleep 30; echo x > '{}') & echo $! > '{}'; wait",
        started.display(),
        late.display(),
        bg.display()
    );
    let args = ["wrap", "--name", name, "--", "/bin/sh", "-c", &script];
    (args.map(str::to_owned).to_vec(), started, bg, late)
}

/// Waits up to 10 s for the process whose pid `pid_file` holds to be gone (or a zombie).
fn assert_process_ends(pid_file: &Path) {
    let pid = std::fs::read_to_string(pid_file).unwrap();
    let stat = PathBuf::from(format!("/proc/{}/stat", pid.trim()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let alive = || {
        std::fs::read_to_string(&stat).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        })
    };
    while alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        !alive(),
        "the server's background child outlived the gateway"
    );
}

#[test]
fn a_server_started_with_a_new_store_is_killed_with_its_group_when_the_store_fails() {
    // No store yet: the server starts at once. The test holds the store's migration lock
    // until the server runs, then puts a directory where the database file goes, so the
    // store fails to open: the gateway must stop the server's whole process group.
    let dir = tempfile::tempdir().unwrap();
    let (store, lock) = locked_new_store(dir.path(), "doomed.db");
    let (args, started, bg, late) = group_server(dir.path(), "doomed");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = spawn_on_locked_new_store(&args, &store, &[&started, &bg, &store]);
    assert!(bg.exists(), "the server did not start");
    std::fs::remove_file(&store).unwrap();
    std::fs::create_dir(&store).unwrap();
    drop(lock);
    let out = gateway.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_process_ends(&bg);
    assert!(!late.exists());
}

#[test]
fn a_server_started_with_a_new_store_is_killed_when_its_launch_check_refuses() {
    // A store with this server's launch config revoked, made beforehand elsewhere.
    let dir = tempfile::tempdir().unwrap();
    let (args, started, bg, _) = group_server(dir.path(), "refused");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let made = tempfile::tempdir().unwrap();
    let revoked = made.path().join("revoked.db");
    let once = ["wrap", "--name", "refused", "--", "/bin/true"];
    assert_eq!(run(&once, "", &revoked).status.code(), Some(0));
    let pin = pins_json(&revoked, &[])
        .into_iter()
        .find(|p| p["kind"] == "launch_config")
        .unwrap();
    let id = pin["id"].as_i64().unwrap().to_string();
    assert_eq!(
        run(&["pins", "revoke", &id], "", &revoked).status.code(),
        Some(0)
    );
    // Nothing at the store path when the gateway starts (so the server starts at once);
    // the revoked store takes its place before the store opens.
    let (store, lock) = locked_new_store(dir.path(), "late.db");
    let gateway = spawn_on_locked_new_store(&args, &store, &[&started, &bg, &store]);
    assert!(bg.exists(), "the server did not start");
    std::fs::copy(&revoked, &store).unwrap();
    if made.path().join("revoked.db-wal").exists() {
        std::fs::copy(
            made.path().join("revoked.db-wal"),
            dir.path().join("late.db-wal"),
        )
        .unwrap();
    }
    drop(lock);
    let out = gateway.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not approved"),
        "{out:?}"
    );
    assert_process_ends(&bg);
}

#[test]
fn strict_pinning_refuses_an_unapproved_launch_config() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("pins.db");
    let config = strict_pinning_config(dir.path());
    let server = rug_server();
    let mut args = vec![
        "--config",
        config.to_str().unwrap(),
        "wrap",
        "--name",
        "rug",
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let out = run(&args, "", &store);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not approved"), "{err}");
    let pending = pins_json(&store, &["--state", "pending"]);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["kind"], "launch_config");
    let id = pending[0]["id"].as_i64().unwrap().to_string();
    assert_eq!(
        run(&["pins", "approve", &id], "", &store).status.code(),
        Some(0)
    );

    // Approved: it starts; a new tool is withheld until approved (strict).
    let mut host = WrapHost::start(&args, &store);
    host.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
    assert!(host.tool_names().is_empty());
    host.close();
    let pending = pins_json(&store, &["--state", "pending"]);
    assert_eq!(
        pending.iter().filter(|p| p["kind"] == "tool").count(),
        2,
        "{pending:?}"
    );

    // A changed command is refused again, with the change named.
    let mut changed = vec![
        "--config",
        config.to_str().unwrap(),
        "wrap",
        "--name",
        "rug",
        "--",
        "python3",
        "-u",
    ];
    let script = rug_server()[1].clone();
    changed.push(&script);
    let out = run(&changed, "", &store);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("argument"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[path = "cli/contract.rs"]
mod contract;

#[path = "cli/wrap_contract.rs"]
mod wrap_contract;

#[path = "cli/ui_build.rs"]
mod ui_build;

#[path = "cli/faults.rs"]
mod faults;

#[path = "cli/panic_boundary.rs"]
mod panic_boundary;

#[path = "cli/serve.rs"]
mod serve;

#[path = "cli/remote.rs"]
mod remote;

#[path = "cli/oauth.rs"]
mod oauth;

#[path = "../../bastion-gateway/tests/support/procs.rs"]
mod procs;

#[path = "cli/shared_store.rs"]
mod shared_store;

#[path = "../../bastion-store/tests/support/testdb.rs"]
mod testdb;

#[path = "cli/conformance.rs"]
mod conformance;

#[path = "cli/build_layout.rs"]
mod build_layout;

#[path = "cli/connections.rs"]
mod connections;
