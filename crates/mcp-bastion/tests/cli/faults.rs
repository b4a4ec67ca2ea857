//! Process-level fault injection on `mcp-bastion wrap` (issue 9 §3;
//! `docs/failure-modes.md` names each test): SIGTERM and SIGINT, SIGKILL while the
//! audit log is being written, and an audit store that cannot be written (reported on
//! stderr once; `[audit] fail_closed`). The server is the gateway's fault server.

use super::procs::{alive, lock_store, server_pid, unlock_store};
use super::{allow_tools_of, bin, json_lines, workspace};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

pub(super) fn fault_server() -> PathBuf {
    workspace().join("crates/bastion-gateway/tests/servers/fault_server.py")
}

/// `mcp-bastion wrap --name fault` over real pipes; stdout and stderr lines are
/// collected by threads.
pub(super) struct Gateway {
    child: Child,
    pub(super) stdin: Option<ChildStdin>,
    out: Receiver<String>,
    err: Receiver<String>,
    next_id: i64,
}

fn lines_of(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

impl Gateway {
    /// Starts the gateway on store `db` (every tool of `fault` allowed, then `config`
    /// appended to the config file); the server logs its pid and the notifications it
    /// gets to `log`.
    fn start(db: &Path, log: &Path, config: &str) -> Self {
        Self::start_under(&[], db, log, config)
    }

    /// [`Gateway::start`] with the gateway started through `launcher` (a command that
    /// execs its arguments, e.g. one that sets a resource limit first).
    pub(super) fn start_under(launcher: &[String], db: &Path, log: &Path, config: &str) -> Self {
        let mut g = Self::start_unlisted(launcher, db, log, config);
        let list = g.request("tools/list", &json!({}));
        assert!(list["result"]["tools"].is_array(), "{list}");
        g
    }

    /// [`Gateway::start_under`] without the host's `tools/list`: Bastion lists the tools
    /// itself on the first call.
    fn start_unlisted(launcher: &[String], db: &Path, log: &Path, config: &str) -> Self {
        let home = db.parent().unwrap();
        allow_tools_of(home, "fault");
        let file = home.join("mcp-bastion/config.toml");
        let mut text = std::fs::read_to_string(&file).unwrap();
        text.push_str(config);
        std::fs::write(&file, text).unwrap();
        let mut argv: Vec<String> = launcher.to_vec();
        argv.push(bin().to_owned());
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .args(["wrap", "--name", "fault", "--", "env"])
            .arg(format!("FAULT_LOG={}", log.display()))
            .args(["python3", &fault_server().display().to_string()])
            .env("MCP_BASTION_STORE", format!("sqlite://{}", db.display()))
            .env("XDG_CONFIG_HOME", db.parent().unwrap())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let out = lines_of(child.stdout.take().unwrap());
        let err = lines_of(child.stderr.take().unwrap());
        let mut g = Self {
            child,
            stdin,
            out,
            err,
            next_id: 0,
        };
        let r = g.request("initialize", &json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert_eq!(r["result"]["serverInfo"]["name"], "fault", "{r}");
        g.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        g
    }

    pub(super) fn send(&mut self, v: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    pub(super) fn recv(&mut self) -> Value {
        let line = self
            .out
            .recv_timeout(Duration::from_secs(20))
            .expect("no message from the gateway within 20 s");
        serde_json::from_str(&line).unwrap()
    }

    pub(super) fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.recv();
            if m["id"] == id {
                return m;
            }
        }
    }

    pub(super) fn call(&mut self, tool: &str) -> Value {
        self.request(
            "tools/call",
            &json!({"name": tool, "arguments": {"text": tool}}),
        )
    }

    fn signal(&self, sig: &str) {
        let status = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the exit (at most `within`); returns the exit code and stderr.
    pub(super) fn wait(mut self, within: Duration) -> (Option<i32>, Vec<String>) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let err: Vec<String> =
                    std::iter::from_fn(|| self.err.recv_timeout(Duration::from_millis(500)).ok())
                        .collect();
                return (status.code(), err);
            }
            assert!(started.elapsed() < within, "the gateway did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

pub(super) fn audit(db: &Path) -> Vec<Value> {
    json_lines(&["--json", "audit", "--limit", "100000"], db)
}

/// The audit events of the store at `db` whose reason is `reason`.
pub(super) fn events_with(db: &Path, reason: &str) -> Vec<Value> {
    audit(db)
        .into_iter()
        .filter(|e| e["reason"] == reason)
        .collect()
}

fn integrity(db: &Path) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys;print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
            &db.display().to_string(),
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn sigterm_and_sigint_shut_wrap_down_gracefully() {
    for sig in ["-TERM", "-INT"] {
        let dir = tempfile::tempdir().unwrap();
        let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
        let mut g = Gateway::start(&db, &log, "");
        g.send(&json!({"jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}));
        let ping = g.request("ping", &json!({}));
        assert!(ping.get("result").is_some(), "{ping}");
        let pid = server_pid(&log);
        g.signal(sig);
        // The pending call is answered before the gateway exits.
        let answer = g.recv();
        assert_eq!(answer["id"], 100, "{sig}: {answer}");
        assert_eq!(
            answer["error"]["data"]["reason"], "upstream_exited",
            "{sig}: {answer}"
        );
        let (code, err) = g.wait(Duration::from_secs(10));
        assert!(
            code.is_some(),
            "{sig}: killed by the signal instead of exiting"
        );
        assert!(
            err.iter().any(|l| l.contains("signal received")),
            "{sig}: {err:?}"
        );
        assert!(!alive(pid), "{sig}: server {pid} outlived the gateway");
        let seen = std::fs::read_to_string(&log).unwrap();
        assert!(seen.contains("notifications/cancelled"), "{sig}: {seen}");
        // The audit was flushed: the refused-by-exit call is recorded.
        let events = audit(&db);
        assert!(
            events.iter().any(|e| e["reason"] == "upstream_exited"),
            "{sig}: {events:?}"
        );
    }
}

#[test]
fn sigkill_while_writing_the_audit_log_leaves_a_consistent_store() {
    let dir = tempfile::tempdir().unwrap();
    let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
    let mut g = Gateway::start(&db, &log, "");
    let pid = server_pid(&log);
    let n = 3000;
    let stdin = g.stdin.as_mut().unwrap();
    for i in 0..n {
        let m = json!({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": format!("m{i}")}}});
        writeln!(stdin, "{m}").unwrap();
    }
    stdin.flush().unwrap();
    for _ in 0..n / 2 {
        g.recv();
    }
    g.signal("-KILL");
    let (code, _) = g.wait(Duration::from_secs(10));
    assert_eq!(code, None, "killed");
    // The server sees EOF on its stdin and exits by itself.
    let started = Instant::now();
    while alive(pid) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "server {pid} kept running"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(integrity(&db), "ok");
    let before = audit(&db).len();
    assert!(before > 0, "batches committed before the kill are kept");
    // A restart on the same store works and keeps auditing.
    let mut g = Gateway::start(&db, &dir.path().join("fault2.log"), "");
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    drop(g.stdin.take());
    let (code, _) = g.wait(Duration::from_secs(10));
    assert_eq!(code, Some(0));
    assert!(audit(&db).len() > before);
    assert_eq!(integrity(&db), "ok");
}

/// Calls `echo` until `done` holds; returns that answer. Panics after 30 s.
fn call_until(g: &mut Gateway, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let r = g.call("echo");
        if done(&r) {
            return r;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "last answer {r}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Calls until one is refused for the audit outage, then three more, all refused.
fn expect_audit_outage(g: &mut Gateway) {
    let refused = call_until(g, |r| r.get("error").is_some());
    assert_eq!(
        refused["error"]["data"]["reason"], "audit_unavailable",
        "{refused}"
    );
    for _ in 0..3 {
        let r = g.call("echo");
        assert_eq!(r["error"]["data"]["reason"], "audit_unavailable", "{r}");
    }
}

#[test]
fn an_unwritable_audit_store_is_reported_once_and_fails_calls_closed() {
    let dir = tempfile::tempdir().unwrap();
    let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
    let mut g = Gateway::start(&db, &log, "");
    let locker = lock_store(&db);
    // More refused calls during the outage: still one report.
    expect_audit_outage(&mut g);
    unlock_store(locker);
    let ok = call_until(&mut g, |r| r.get("result").is_some());
    assert_eq!(ok["result"]["content"][0]["text"], "echo", "{ok}");
    drop(g.stdin.take());
    let (code, err) = g.wait(Duration::from_secs(10));
    assert_eq!(code, Some(0));
    let reports = err
        .iter()
        .filter(|l| l.contains("cannot write the audit log"))
        .count();
    assert_eq!(reports, 1, "{err:?}");
    assert!(err.iter().any(|l| l.contains("writable again")), "{err:?}");
}

#[test]
fn audit_fail_closed_false_keeps_calls_running_during_an_outage() {
    let dir = tempfile::tempdir().unwrap();
    let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
    let mut g = Gateway::start(&db, &log, "\n[audit]\nfail_closed = false\n");
    let locker = lock_store(&db);
    // Through the busy timeout and past the first failed write: every call answers.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(8) {
        let r = g.call("echo");
        assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
        std::thread::sleep(Duration::from_millis(300));
    }
    unlock_store(locker);
    drop(g.stdin.take());
    let (_, err) = g.wait(Duration::from_secs(15));
    assert!(
        err.iter().any(|l| l.contains("cannot write the audit log")),
        "the outage is still reported: {err:?}"
    );
}

#[test]
fn an_unopenable_store_stops_wrap_before_the_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    // A store below a regular file: its directory cannot be created, even by root.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let db = blocker.join("b.db");
    let log = dir.path().join("fault.log");
    let out = Command::new(bin())
        .args(["wrap", "--name", "fault", "--", "env"])
        .arg(format!("FAULT_LOG={}", log.display()))
        .args(["python3", &fault_server().display().to_string()])
        .env("MCP_BASTION_STORE", format!("sqlite://{}", db.display()))
        .env("XDG_CONFIG_HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!log.exists(), "the server was started");
}

/// Runs its arguments with `RLIMIT_FSIZE` set to `argv[1]` bytes and `SIGXFSZ` ignored:
/// a write that would grow a file past the limit then fails with `EFBIG`, the
/// per-process form of a full disk (a real full disk needs a size-limited mount, which
/// the test machines cannot make).
const FSIZE_LAUNCHER: &str = "import os, resource, signal, sys\n\
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n\
limit = int(sys.argv[1])\n\
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n\
os.execvp(sys.argv[2], sys.argv[2:])\n";

/// Writes a store with history in `dir` without a limit (schema, pins, one call's
/// audit), then returns the launcher that runs the gateway with `RLIMIT_FSIZE` set to
/// the largest store file plus `room` bytes, and the audit events written so far.
/// Measured from the store, so a test does not depend on how much the schema or the
/// server's tools take.
fn store_then_fsize_launcher(db: &Path, log: &Path, room: u64) -> ([String; 4], usize) {
    let mut g = Gateway::start(db, log, "");
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    drop(g.stdin.take());
    assert_eq!(g.wait(Duration::from_secs(10)).0, Some(0));
    let largest = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|f| f.unwrap().metadata().unwrap().len())
        .max()
        .unwrap();
    let launcher = [
        "python3".to_owned(),
        "-c".to_owned(),
        FSIZE_LAUNCHER.to_owned(),
        (largest + room).to_string(),
    ];
    (launcher, audit(db).len())
}

#[test]
fn a_full_disk_fails_tool_calls_closed_and_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
    // Room for the restart's pin review and a few more audit transactions (the WAL
    // grows by at least a page with each commit), then every write of the store fails
    // (with no room at all the listing itself is withheld:
    // `a_pin_store_that_cannot_be_written_withholds_with_its_own_reason`).
    let (launcher, before) = store_then_fsize_launcher(&db, &log, 256 * 1024);
    let mut g = Gateway::start_under(&launcher, &db, &log, "");
    expect_audit_outage(&mut g);
    // The gateway keeps serving what does not need the audit to run.
    let ping = g.request("ping", &json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
    drop(g.stdin.take());
    let (code, err) = g.wait(Duration::from_secs(20));
    assert_eq!(code, Some(0), "{err:?}");
    let reports: Vec<&String> = err
        .iter()
        .filter(|l| l.contains("cannot write the audit log"))
        .collect();
    assert_eq!(reports.len(), 1, "{err:?}");
    assert!(
        reports[0].contains("disk"),
        "SQLite's cause is named: {err:?}"
    );
    // What was committed is intact (the kernel kept every file within the limit).
    assert_eq!(integrity(&db), "ok");
    let after = audit(&db).len();
    assert!(
        after > before,
        "nothing was committed under the limit: {before} then {after}"
    );
}

#[test]
fn a_pin_store_that_cannot_be_written_withholds_with_its_own_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
    // No file of the store may grow: the listing's pin review cannot write.
    let (launcher, _) = store_then_fsize_launcher(&db, &log, 0);
    let mut g = Gateway::start_under(&launcher, &db, &log, "");
    let r = g.call("echo");
    assert_eq!(r["error"]["data"]["reason"], "pin_store_unavailable", "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("could not be read or written"), "{r}");
    drop(g.stdin.take());
    let (code, err) = g.wait(Duration::from_secs(20));
    assert_eq!(code, Some(0), "{err:?}");
    assert!(
        err.iter().any(|l| l.contains("cannot read or write pins")),
        "{err:?}"
    );
}

/// `true` when this test process runs as root (file modes do not bind it).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe");
    std::fs::write(&probe, "").unwrap();
    std::fs::metadata(&probe).unwrap().uid() == 0
}

#[test]
fn a_read_only_store_stops_wrap_before_the_server_starts() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let (db, log) = (home.join("b.db"), home.join("fault.log"));
    // A store with history: one session through the gateway.
    let mut g = Gateway::start(&db, &log, "");
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    drop(g.stdin.take());
    let (code, _) = g.wait(Duration::from_secs(10));
    assert_eq!(code, Some(0));
    let events = audit(&db).len();
    // Read-only for the gateway: modes 0444/0555 (root ignores modes, so as root the
    // gateway runs as `nobody`, from a copy of the binary it may execute).
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    let root = running_as_root();
    let mut argv: Vec<String> = Vec::new();
    let exe = dir.path().join("mcp-bastion");
    if root {
        if std::fs::hard_link(bin(), &exe).is_err() {
            std::fs::copy(bin(), &exe).unwrap();
        }
        mode(dir.path(), 0o755).unwrap();
        argv.extend(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--",
            ]
            .map(String::from),
        );
        argv.push(exe.display().to_string());
    } else {
        argv.push(bin().to_owned());
    }
    mode(&db, 0o444).unwrap();
    mode(&home, 0o555).unwrap();
    let marker = tempfile::tempdir().unwrap();
    mode(marker.path(), 0o777).unwrap();
    let started = marker.path().join("started");
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .args(["wrap", "--name", "fault", "--", "env"])
        .arg(format!("FAULT_LOG={}", started.display()))
        .args(["python3", &fault_server().display().to_string()])
        .env("MCP_BASTION_STORE", format!("sqlite://{}", db.display()))
        .env("XDG_CONFIG_HOME", &home)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    mode(&home, 0o755).unwrap();
    mode(&db, 0o644).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    // SQLite's words depend on whether the last session left its WAL behind
    // (`attempt to write a readonly database` or `unable to open database file`); the
    // gateway's own part says where to look.
    assert!(
        err.contains("cannot open the store") && err.contains("permissions"),
        "the message says what to check: {err}"
    );
    assert!(!started.exists(), "the server was started");
    // Nothing was lost or changed.
    assert_eq!(audit(&db).len(), events);
    assert_eq!(integrity(&db), "ok");
}

/// A call the host cancels while Bastion is about to forward it from a task of its own
/// (here after listing the tools itself, and held 400 ms at that point by the test
/// build's fail point `relay::forward_held`) never reaches the server ahead of its
/// cancellation: it is dropped, or the server gets the cancellation after it. (Before:
/// the hold ended first, so the cancellation went out alone, the server ignored it as
/// naming no request, then ran the call.)
#[test]
fn a_call_cancelled_while_it_is_forwarded_never_runs_uncancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (db, log) = (dir.path().join("b.db"), dir.path().join("fault.log"));
    let launcher = [
        "env".to_owned(),
        "FAILPOINTS=relay::forward_held=return(400)".to_owned(),
    ];
    let mut g = Gateway::start_unlisted(&launcher, &db, &log, "");
    g.send(&json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
                   "params": {"name": "slow", "arguments": {}}}));
    std::thread::sleep(Duration::from_millis(100));
    g.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 50, "reason": "the user gave up"}}),
    );
    // Answered after call 50 was dropped or forwarded (the server reads in order).
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    let seen = std::fs::read_to_string(&log).unwrap();
    let about_50: Vec<String> = seen
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["id"] == 50 || m["params"]["requestId"] == 50)
        .map(|m| m["method"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        about_50.is_empty() || about_50 == ["tools/call", "notifications/cancelled"],
        "the server saw, in order: {about_50:?}"
    );
    drop(g.stdin.take());
    let (code, err) = g.wait(Duration::from_secs(15));
    assert_eq!(code, Some(0), "{err:?}");
}
