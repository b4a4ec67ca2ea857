//! The OAuth client end to end: `auth login` and `wrap --url … --oauth` against a
//! protected MCP server with its own authorization server (`tests/e2e/oauth_server.py`,
//! loopback only). The test plays the browser: it reads the authorization URL the
//! gateway prints (`--oauth-no-browser`), fetches it with a plain HTTP client and takes
//! the redirect to the gateway's loopback listener.

use super::{allow_tools_of, bin, json_lines, workspace};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// `oauth_server.py MODES` on a free loopback port; killed on drop.
struct AuthServer {
    child: Child,
    base: String,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn auth_server(modes: &str) -> AuthServer {
    let mut child = Command::new("python3")
        .arg(workspace().join("crates/mcp-bastion/tests/e2e/oauth_server.py"))
        .arg(modes)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port = first.trim().rsplit(' ').next().unwrap().to_owned();
    AuthServer {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

impl AuthServer {
    fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    fn stats(&self) -> Value {
        let (status, _, body) = http(&format!("{}/stats", self.base), None);
        assert_eq!(status, 200);
        serde_json::from_str(&body).unwrap()
    }
}

/// One HTTP/1.1 request to a loopback URL (GET, or POST of a form body): status,
/// `Location`, body. This is the test's "browser", not product code.
fn http(url: &str, form: Option<&str>) -> (u16, Option<String>, String) {
    let u = url::Url::parse(url).unwrap();
    assert_eq!(
        u.host_str(),
        Some("127.0.0.1"),
        "tests talk to loopback only"
    );
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", u.port().unwrap())).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let target = match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_owned(),
    };
    let host = format!("127.0.0.1:{}", u.port().unwrap());
    let request = match form {
        None => format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        Some(body) => format!(
            "POST {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    };
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    let location = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("location")
            .then(|| v.trim().to_owned())
    });
    (status, location, body.to_owned())
}

/// Plays the browser on `authorize_url`: the authorization server redirects straight
/// back; the redirect is followed to the gateway's listener. Returns the listener's
/// status.
fn play_browser(authorize_url: &str) -> u16 {
    let (status, location, _) = http(authorize_url, None);
    assert_eq!(status, 302, "the authorization server did not redirect");
    http(&location.unwrap(), None).0
}

/// A running `mcp-bastion` whose stdout and stderr lines arrive on channels; stderr
/// lines are also kept for the leak checks.
struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    out: Receiver<String>,
    err: Receiver<String>,
    seen_err: Vec<String>,
    seen_out: Vec<String>,
}

fn lines_of(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn spawn(dir: &Path, args: &[&str]) -> Proc {
    let mut child = Command::new(bin())
        .args(args)
        .env(
            "MCP_BASTION_STORE",
            format!("sqlite://{}", store(dir).display()),
        )
        .env("XDG_CONFIG_HOME", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Proc {
        stdin: child.stdin.take(),
        out: lines_of(child.stdout.take().unwrap()),
        err: lines_of(child.stderr.take().unwrap()),
        child,
        seen_err: Vec::new(),
        seen_out: Vec::new(),
    }
}

fn store(dir: &Path) -> PathBuf {
    dir.join("bastion.db")
}

impl Proc {
    /// The authorization URL printed on stderr (waits up to 20 s).
    fn authorize_url(&mut self) -> String {
        loop {
            let line = self
                .err
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no authorization URL; stderr: {:?}", self.seen_err));
            self.seen_err.push(line.clone());
            if line.starts_with("http://") {
                return line;
            }
        }
    }

    fn send(&mut self, v: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// The answer to `id` (one that arrived earlier is found too).
    fn answer(&mut self, id: i64) -> Value {
        if let Some(v) = self
            .seen_out
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["id"] == id)
        {
            return v;
        }
        loop {
            let line = self
                .out
                .recv_timeout(Duration::from_secs(20))
                .expect("no answer from the gateway within 20 s");
            self.seen_out.push(line.clone());
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    fn request(&mut self, id: i64, method: &str, params: &Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(id)
    }

    fn initialize(&mut self) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
    }

    /// Closes stdin, waits for the exit; the exit code and all of stderr.
    fn finish(mut self) -> (i32, String, Vec<String>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        self.seen_err.extend(self.err.try_iter());
        self.seen_out.extend(self.out.try_iter());
        (
            status.code().unwrap_or(-1),
            self.seen_err.join("\n"),
            self.seen_out,
        )
    }
}

fn login(dir: &Path, server: &AuthServer, extra: &[&str]) -> Proc {
    let url = server.mcp_url();
    let mut args = vec![
        "auth",
        "login",
        "--url",
        &url,
        "--allow-http-loopback",
        "--oauth-no-browser",
    ];
    args.extend_from_slice(extra);
    spawn(dir, &args)
}

fn wrap_oauth(dir: &Path, server: &AuthServer) -> Proc {
    allow_tools_of(dir, "guarded");
    let url = server.mcp_url();
    spawn(
        dir,
        &[
            "wrap",
            "--name",
            "guarded",
            "--url",
            &url,
            "--allow-http-loopback",
            "--oauth",
            "--oauth-no-browser",
        ],
    )
}

/// `auth login` through the browser; asserts it succeeded.
fn logged_in(dir: &Path, server: &AuthServer, extra: &[&str]) -> String {
    let mut p = login(dir, server, extra);
    let url = p.authorize_url();
    assert_eq!(play_browser(&url), 200);
    let (code, err, _) = p.finish();
    assert_eq!(code, 0, "{err}");
    err
}

#[test]
fn oauth_end_to_end_through_wrap_then_the_stored_token_is_reused_and_never_leaks() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    let url = gw.authorize_url();
    let q: std::collections::HashMap<String, String> = url::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["resource"], server.mcp_url());
    // The challenge's scope wins over the metadata's scopes_supported.
    assert_eq!(q["scope"], "mcp:tools");
    assert!(q["redirect_uri"].starts_with("http://127.0.0.1:"));
    assert!(q["state"].len() >= 43);
    assert_eq!(play_browser(&url), 200);
    let init = gw.answer(1);
    assert_eq!(init["result"]["serverInfo"]["name"], "guarded", "{init}");
    gw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let list = gw.request(2, "tools/list", &json!({}));
    assert_eq!(list["result"]["tools"][0]["name"], "whoami", "{list}");
    let call = gw.request(3, "tools/call", &json!({"name": "whoami", "arguments": {}}));
    let text = call["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.starts_with("authorized client dyn-"), "{call}");
    let (code, err1, out1) = gw.finish();
    assert_eq!(code, 0, "{err1}");
    let stats = server.stats();
    assert_eq!(
        (
            stats["registrations"].as_i64(),
            stats["authorizations"].as_i64(),
            stats["code_grants"].as_i64()
        ),
        (Some(1), Some(1), Some(1)),
        "{stats}"
    );

    // A second run uses the stored token: no browser.
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    let init = gw.answer(1);
    assert_eq!(init["result"]["serverInfo"]["name"], "guarded", "{init}");
    let (code, err2, out2) = gw.finish();
    assert_eq!(code, 0, "{err2}");
    assert!(
        !err2.contains("http://127.0.0.1"),
        "a browser was needed again: {err2}"
    );
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["registrations"], 1, "{stats}");

    // No token or code anywhere the host, the terminal, the audit log or the store's
    // bytes could show it.
    let audit = json_lines(
        &["--json", "audit", "--server", "guarded", "--limit", "1000"],
        &store(dir.path()),
    );
    assert!(
        audit.iter().any(|e| e["reason"] == "oauth_authorized"),
        "{audit:?}"
    );
    let mut db = Vec::new();
    for suffix in ["", "-wal"] {
        if let Ok(bytes) = std::fs::read(format!("{}{suffix}", store(dir.path()).display())) {
            db.extend(bytes);
        }
    }
    let db = String::from_utf8_lossy(&db);
    let everything = format!(
        "{}\n{err1}\n{}\n{err2}\n{audit:?}",
        out1.join("\n"),
        out2.join("\n")
    );
    let issued = stats["issued"].as_array().unwrap();
    assert!(issued.len() >= 3);
    for secret in issued {
        let secret = secret.as_str().unwrap();
        assert!(!everything.contains(secret), "{secret} leaked");
        assert!(!db.contains(secret), "{secret} is stored in the clear");
    }
}

#[test]
fn the_authorization_server_checks_pkce_and_the_client_sends_the_right_verifier() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    let mut p = login(dir.path(), &server, &[]);
    let url = p.authorize_url();
    let (status, location, _) = http(&url, None);
    assert_eq!(status, 302);
    let location = location.unwrap();
    let q: std::collections::HashMap<String, String> = url::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    let code = url::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned();
    // An attacker holding the code but not the verifier gets nothing.
    let form: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "authorization_code")
        .append_pair("code", &code)
        .append_pair("client_id", &q["client_id"])
        .append_pair("redirect_uri", &q["redirect_uri"])
        .append_pair("resource", &q["resource"])
        .append_pair(
            "code_verifier",
            "a-guessed-verifier-that-is-long-enough-to-be-valid-000",
        )
        .finish();
    let (status, _, body) = http(&format!("{}/as/token", server.base), Some(&form));
    assert_eq!(status, 400, "{body}");
    assert_eq!(server.stats()["pkce_failures"], 1);
    // The gateway's own exchange carries the verifier and succeeds.
    assert_eq!(http(&location, None).0, 200);
    let (code, err, _) = p.finish();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("refresh token: yes"), "{err}");
    let stats = server.stats();
    assert_eq!(stats["code_grants"], 1, "{stats}");
    assert_eq!(stats["pkce_failures"], 1, "{stats}");
}

#[test]
fn forged_authorization_responses_are_refused_and_no_code_is_exchanged() {
    for (mode, reason) in [
        ("wrong_iss", "oauth_issuer_mismatch"),
        ("no_iss", "oauth_issuer_missing"),
        ("wrong_state", "oauth_state_mismatch"),
        ("deny", "oauth_denied"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let server = auth_server(mode);
        let mut p = login(dir.path(), &server, &[]);
        let url = p.authorize_url();
        assert_eq!(play_browser(&url), 400, "{mode}");
        let (code, err, _) = p.finish();
        assert_eq!(code, 3, "{mode}: {err}");
        assert!(err.contains(reason), "{mode}: {err}");
        let stats = server.stats();
        assert_eq!(stats["code_grants"], 0, "{mode}: {stats}");
        let secrets = stats["issued"].as_array().unwrap();
        for s in secrets {
            assert!(
                !err.contains(s.as_str().unwrap()),
                "{mode}: the code is printed"
            );
        }
    }
}

#[test]
fn unusable_authorization_servers_are_refused_before_any_browser_or_registration() {
    for (mode, reason) in [
        ("foreign_issuer", "oauth_issuer_mismatch"),
        ("no_s256", "oauth_pkce_unsupported"),
        ("private_token", "private_address"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let server = auth_server(mode);
        let (code, err, _) = login(dir.path(), &server, &[]).finish();
        assert_eq!(code, 3, "{mode}: {err}");
        assert!(err.contains(reason), "{mode}: {err}");
        assert!(
            !err.contains("/as/authorize?"),
            "{mode}: a browser was sent: {err}"
        );
        let stats = server.stats();
        assert_eq!(stats["registrations"], 0, "{mode}: {stats}");
        assert_eq!(stats["authorizations"], 0, "{mode}: {stats}");
    }
}

#[test]
fn an_unsafe_key_file_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let server = auth_server("");
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("mcp-bastion/oauth.key");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(&key, [7u8; 32]).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (code, err, _) = login(dir.path(), &server, &[]).finish();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("chmod 600"), "{err}");
    // A symbolic link to a private key file is refused too.
    let real = dir.path().join("real.key");
    std::fs::write(&real, [7u8; 32]).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_file(&key).unwrap();
    std::os::unix::fs::symlink(&real, &key).unwrap();
    let (code, err, _) = login(dir.path(), &server, &[]).finish();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(server.stats()["authorizations"], 0);
}

#[test]
fn stored_tokens_do_not_open_under_another_issuer_or_without_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    logged_in(dir.path(), &server, &[]);
    // The row moved to another issuer: its associated data no longer matches.
    let db = store(dir.path());
    let moved = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE oauth_tokens SET issuer='http://127.0.0.1:9/other'\"); c.commit()")
        .arg(&db)
        .status()
        .unwrap();
    assert!(moved.success());
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    let url = gw.authorize_url();
    assert_eq!(play_browser(&url), 200);
    assert!(gw.answer(1)["result"].is_object());
    let (_, err, _) = gw.finish();
    assert!(err.contains("does not decrypt"), "{err}");
    // The client registration was untouched: reused, not registered again.
    assert_eq!(server.stats()["registrations"], 1);
    // Without the key (a new one is made), the stored token does not open either.
    std::fs::remove_file(dir.path().join("mcp-bastion/oauth.key")).unwrap();
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    let url = gw.authorize_url();
    assert_eq!(play_browser(&url), 200);
    assert!(gw.answer(1)["result"].is_object());
    let (_, err, _) = gw.finish();
    assert!(err.contains("does not decrypt"), "{err}");
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 3, "{stats}");
    // The sealed registration did not open under the new key either: a new client.
    assert_eq!(stats["registrations"], 2, "{stats}");
}

#[test]
fn expired_tokens_are_refreshed_and_a_refused_refresh_falls_back_to_the_browser() {
    // Access tokens live 5 s, inside the client's 60 s margin: the next use refreshes.
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("short");
    logged_in(dir.path(), &server, &[]);
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    assert!(gw.answer(1)["result"].is_object());
    let (_, err, _) = gw.finish();
    assert!(!err.contains("/as/authorize?"), "{err}");
    let stats = server.stats();
    assert_eq!(stats["refresh_grants"], 1, "{stats}");
    assert_eq!(stats["authorizations"], 1, "{stats}");

    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("short,refresh_fail");
    logged_in(dir.path(), &server, &[]);
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    let url = gw.authorize_url();
    assert_eq!(play_browser(&url), 200);
    assert!(gw.answer(1)["result"].is_object());
    let (_, err, _) = gw.finish();
    assert!(err.contains("refreshing the token"), "{err}");
    assert_eq!(server.stats()["authorizations"], 2);
}

#[test]
fn a_preregistered_client_and_logout() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    let err = logged_in(
        dir.path(),
        &server,
        &["--oauth-client-id", "pre-registered-client"],
    );
    assert!(err.contains("client pre-registered-client"), "{err}");
    assert_eq!(server.stats()["registrations"], 0);
    let url = server.mcp_url();
    let (code, err, _) = spawn(dir.path(), &["auth", "logout", "--url", &url]).finish();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("deleted 1 stored token set"), "{err}");
}

#[test]
fn a_401_without_oauth_is_explained_and_oauth_excludes_bearer_env() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    allow_tools_of(dir.path(), "guarded");
    let url = server.mcp_url();
    let mut gw = spawn(
        dir.path(),
        &[
            "wrap",
            "--name",
            "guarded",
            "--url",
            &url,
            "--allow-http-loopback",
        ],
    );
    gw.initialize();
    let init = gw.answer(1);
    assert_eq!(init["error"]["data"]["gateway"], "mcp-bastion", "{init}");
    assert_eq!(
        init["error"]["data"]["reason"], "upstream_unauthorized",
        "{init}"
    );
    assert!(
        init["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--oauth"),
        "{init}"
    );
    gw.finish();
    let (code, err, _) = spawn(
        dir.path(),
        &["wrap", "--url", &url, "--oauth", "--bearer-env", "X"],
    )
    .finish();
    assert_eq!(code, 2, "{err}");
}

#[test]
fn requests_during_an_authorization_wait_for_it_and_share_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    for id in 2..5 {
        gw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
    }
    let url = gw.authorize_url();
    assert_eq!(play_browser(&url), 200);
    assert!(gw.answer(1)["result"].is_object());
    for id in 2..5 {
        let a = gw.answer(id);
        assert!(a["result"].is_object(), "{a}");
    }
    let (code, err, _) = gw.finish();
    assert_eq!(code, 0, "{err}");
    // One authorization (one browser visit) served every waiting request.
    assert_eq!(err.matches("/as/authorize?").count(), 1, "{err}");
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["code_grants"], 1, "{stats}");
}

#[test]
fn no_browser_response_within_the_deadline_ends_the_login() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    let mut p = login(dir.path(), &server, &["--oauth-callback-timeout", "1s"]);
    let url = p.authorize_url();
    let (code, err, _) = p.finish();
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("oauth_callback_timeout"), "{err}");
    // The listener is gone: the late browser gets nowhere.
    let (status, location, _) = http(&url, None);
    assert_eq!(status, 302);
    let port = url::Url::parse(&location.unwrap()).unwrap().port().unwrap();
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    assert_eq!(server.stats()["code_grants"], 0);
}

#[test]
fn a_server_refusing_every_token_cannot_send_the_user_to_the_browser_forever() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("reject_tokens,refresh_fail");
    let mut gw = wrap_oauth(dir.path(), &server);
    gw.initialize();
    for id in 1..=3 {
        if id > 1 {
            gw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        }
        let url = gw.authorize_url();
        assert_eq!(play_browser(&url), 200);
        let a = gw.answer(id);
        assert_eq!(a["error"]["data"]["reason"], "upstream_unauthorized", "{a}");
    }
    let a = gw.request(4, "ping", &json!({}));
    assert_eq!(
        a["error"]["data"]["oauth_reason"], "oauth_too_many_attempts",
        "{a}"
    );
    let (_, err, _) = gw.finish();
    assert_eq!(err.matches("/as/authorize?").count(), 3, "{err}");
    assert_eq!(server.stats()["authorizations"], 3);
}

#[test]
fn serve_upstream_shares_one_oauth_token_between_hosts_and_shows_it_to_none() {
    let dir = tempfile::tempdir().unwrap();
    let server = auth_server("");
    logged_in(dir.path(), &server, &[]);
    allow_tools_of(dir.path(), "guarded");
    let tail: Vec<String> = [
        "--upstream",
        &server.mcp_url(),
        "--allow-http-loopback",
        "--oauth",
        "--oauth-no-browser",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let served = super::serve::Served::start_with(
        dir.path(),
        &format!("sqlite://{}", store(dir.path()).display()),
        "guarded",
        &tail,
        &[],
    );
    let mut seen = String::new();
    for _ in 0..2 {
        let mut host = super::serve::HttpSession::open(&served);
        let call = host.request("tools/call", &json!({"name": "whoami", "arguments": {}}));
        let text = call["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.starts_with("authorized client dyn-"), "{call}");
        seen.push_str(&call.to_string());
        let (_, raw) = host.post(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        seen.push_str(&raw);
    }
    let stats = server.stats();
    // The stored token served both host sessions: no browser, and the hosts' listener
    // token never replaced it upstream (the server would have answered 401).
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert_eq!(stats["mcp_unauthorized"], 0, "{stats}");
    for secret in stats["issued"].as_array().unwrap() {
        assert!(
            !seen.contains(secret.as_str().unwrap()),
            "a token reached a host"
        );
    }
}
