//! The panic boundary of `mcp-bastion wrap` (issue 9 §3, fail closed;
//! `docs/failure-modes.md`): a check that panics (a bug) refuses the message it was
//! checking, answers whoever waits for it with reason `inspection_failed`, records the
//! event in the audit log, keeps the hostile text out of stderr, and the gateway goes on.
//! The panics are made by the gateway's fail points (`FAILPOINTS`, the `fail` crate; the
//! tests' build has them, what users build does not).

use super::faults::{Gateway, audit, events_with, fault_server};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// Text the fault server echoes, which must not reach stderr. (Arguments with control
/// characters are asked about first, whatever the rules say.)
const CANARY: &str = "canary-5d1e the result text";

/// `env FAILPOINTS=<spec>`, the launcher of a gateway whose fail points `spec` sets.
fn with_failpoints(spec: &str) -> [String; 2] {
    ["env".to_owned(), format!("FAILPOINTS={spec}")]
}

fn start(spec: &str, dir: &Path) -> Gateway {
    start_with(spec, dir, "")
}

/// [`start`] with `config` appended to the gateway's config file.
fn start_with(spec: &str, dir: &Path, config: &str) -> Gateway {
    let (db, log) = (dir.join("b.db"), dir.join("fault.log"));
    Gateway::start_under(&with_failpoints(spec), &db, &log, config)
}

/// Closes the host side and returns the gateway's stderr lines.
fn finish(mut g: Gateway) -> Vec<String> {
    drop(g.stdin.take());
    let (code, err) = g.wait(Duration::from_secs(15));
    assert_eq!(code, Some(0), "{err:?}");
    err
}

/// Calls `echo` with [`CANARY`]; returns the answer.
fn echo_canary(g: &mut Gateway) -> Value {
    g.request(
        "tools/call",
        &json!({"name": "echo", "arguments": {"text": CANARY}}),
    )
}

fn assert_refused(r: &Value) {
    assert_eq!(r["error"]["code"], -32055, "{r}");
    assert_eq!(r["error"]["data"]["reason"], "inspection_failed", "{r}");
    assert_eq!(r["error"]["data"]["server"], "fault", "{r}");
}

fn assert_stderr_says_where_not_what(err: &[String], side: &str) {
    assert!(
        err.iter().any(|l| l.contains("internal error (a bug) at")),
        "the panic's location is reported: {err:?}"
    );
    assert!(
        err.iter().any(|l| l.contains(&format!(
            "a check failed inside mcp-bastion on a {side} message"
        ))),
        "the refusal is reported: {err:?}"
    );
    assert!(
        !err.iter()
            .any(|l| l.contains("canary-5d1e") || l.contains('\u{1b}')),
        "stderr quotes the message: {err:?}"
    );
}

/// The answers the fault server logged to its requests whose ids start with `prefix`;
/// asserts each is the boundary's refusal (-32603, reason `inspection_failed`).
fn refusals_the_server_got(dir: &Path, prefix: &str) -> Vec<Value> {
    let log = std::fs::read_to_string(dir.join("fault.log")).unwrap();
    let answers: Vec<Value> = log
        .lines()
        .filter(|l| l.contains(prefix))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for a in &answers {
        assert_eq!(a["error"]["code"], -32603, "{a}");
        assert_eq!(a["error"]["data"]["reason"], "inspection_failed", "{a}");
    }
    answers
}

/// Asserts the audit holds exactly `count` `inspection_failed` events, each of `method`
/// in `direction`.
fn assert_refusals_audited(dir: &Path, count: usize, method: &str, direction: &str) {
    let events = events_with(&dir.join("b.db"), "inspection_failed");
    assert_eq!(events.len(), count, "{events:?}");
    assert!(
        events
            .iter()
            .all(|e| e["direction"] == direction && e["method"] == method),
        "{events:?}"
    );
}

#[test]
fn a_check_that_panics_on_a_result_refuses_that_result_and_the_gateway_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // The first result inspection panics (initialize and tools/list take other checks),
    // with a message that quotes the text, as a string slice's panic would.
    let mut g = start("relay::inspect=1*panic(canary-5d1e quoted)", dir.path());
    let r = echo_canary(&mut g);
    assert_refused(&r);
    assert!(!r.to_string().contains("canary-5d1e"), "{r}");
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    let err = finish(g);
    assert_stderr_says_where_not_what(&err, "server");
    let events = events_with(&dir.path().join("b.db"), "inspection_failed");
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(e["direction"], "server_to_host", "{e}");
    assert_eq!(e["method"], "tools/call", "{e}");
    assert_eq!(e["tool"], "echo", "{e}");
    assert_eq!(e["verdict"], "block", "{e}");
    assert_eq!(e["codes"], json!(["inspection_failed"]), "{e}");
    assert!(!e.to_string().contains("canary"), "{e}");
}

#[test]
fn a_check_that_panics_on_a_host_request_answers_it_and_never_forwards_it() {
    let dir = tempfile::tempdir().unwrap();
    // initialize and tools/list pass; the third host request's check panics.
    let mut g = start("relay::host_request=2*off->1*panic", dir.path());
    let r = echo_canary(&mut g);
    assert_refused(&r);
    let refused_id = r["id"].clone();
    // The server never got it: no second answer to that id arrives before the next one.
    g.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}));
    loop {
        let m = g.recv();
        assert_ne!(m["id"], refused_id, "a second answer: {m}");
        if m["id"] == "after" {
            assert!(m.get("result").is_some(), "{m}");
            break;
        }
    }
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    let err = finish(g);
    assert_stderr_says_where_not_what(&err, "client");
    // Had the call reached the server, its answer would have come back to an id no
    // longer pending.
    assert!(
        events_with(&dir.path().join("b.db"), "unknown_response_id").is_empty(),
        "the refused call was forwarded"
    );
    assert_refusals_audited(dir.path(), 1, "tools/call", "host_to_server");
}

#[test]
fn a_check_that_panics_on_server_requests_answers_each_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = start("relay::server_request=panic", dir.path());
    let r = g.request(
        "tools/call",
        &json!({"name": "burst_reserved", "arguments": {"count": 40}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "sent", "{r}");
    let r = g.request(
        "tools/call",
        &json!({"name": "burst_count", "arguments": {}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "40", "{r}");
    finish(g);
    // What the server got back: an error with the reason, for every one of its requests.
    let answers = refusals_the_server_got(dir.path(), "mcp-bastion-burst-");
    assert_eq!(answers.len(), 40, "{answers:?}");
    assert_refusals_audited(dir.path(), 40, "ping", "server_to_host");
    // None of them reached the host: every ping event is one of those refusals.
    let pings = audit(&dir.path().join("b.db"))
        .into_iter()
        .filter(|e| e["method"] == "ping" && e["direction"] == "server_to_host")
        .count();
    assert_eq!(pings, 40);
}

#[test]
fn a_check_that_panics_on_the_hosts_answers_answers_the_server_instead() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = start("relay::host_answer=panic", dir.path());
    // The server asks the host three times (ids it may use: they reach the host).
    g.send(&json!({"jsonrpc": "2.0", "id": 500, "method": "tools/call",
        "params": {"name": "burst_reserved", "arguments": {"count": 3, "prefix": "host-ask-"}}}));
    let (mut asked, mut answered) = (Vec::new(), None);
    while asked.len() < 3 || answered.is_none() {
        let m = g.recv();
        if m["method"] == "ping" {
            let id = m["id"].clone();
            g.send(&json!({"jsonrpc": "2.0", "id": id, "result": {}}));
            asked.push(id);
        } else if m["id"] == 500 {
            answered = Some(m);
        }
    }
    let r = answered.unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "sent", "{r}");
    // The server got an answer to each request, from the boundary: the host's answers
    // were not passed on unchecked. The gateway goes on serving.
    let r = g.request(
        "tools/call",
        &json!({"name": "burst_count", "arguments": {}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "3", "{r}");
    assert_eq!(echo_canary(&mut g)["result"]["content"][0]["text"], CANARY);
    let err = finish(g);
    assert_stderr_says_where_not_what(&err, "client");
    let answers = refusals_the_server_got(dir.path(), "host-ask-");
    assert_eq!(answers.len(), 3, "{answers:?}");
    for a in &answers {
        assert!(asked.contains(&a["id"]), "{a}");
    }
    assert_refusals_audited(dir.path(), 3, "ping", "host_to_server");
}

#[test]
fn a_check_that_panics_during_a_listing_withholds_every_item_of_it() {
    let dir = tempfile::tempdir().unwrap();
    // The gateway's start-up listing passes; the next listing's review panics.
    let mut g = start("relay::list_review=1*off->1*panic", dir.path());
    let r = g.request("tools/list", &json!({}));
    assert_refused(&r);
    // None of the listed tools was checked this time: each is withheld for the session.
    let r = g.call("echo");
    assert_eq!(r["error"]["data"]["reason"], "blocked_descriptor", "{r}");
    let r = g.request("tools/list", &json!({}));
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.is_empty(), "{names:?}");
    finish(g);
}

#[test]
fn a_panic_in_the_audit_only_scan_keeps_the_answer_and_its_audit_event() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = start("relay::injection_scan=1*panic", dir.path());
    let r = g.call("echo");
    // The scan runs after forwarding (audit only): the answer is unchanged.
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    let r = g.call("echo");
    assert_eq!(r["result"]["content"][0]["text"], "echo", "{r}");
    finish(g);
    let calls: Vec<Value> = audit(&dir.path().join("b.db"))
        .into_iter()
        .filter(|e| e["method"] == "tools/call" && e["direction"] == "server_to_host")
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let failed: Vec<&Value> = calls
        .iter()
        .filter(|e| e["codes"] == json!(["inspection_failed"]))
        .collect();
    assert_eq!(failed.len(), 1, "{calls:?}");
    assert_eq!(failed[0]["verdict"], "flag", "{calls:?}");
    assert_eq!(failed[0]["reason"], "inspection_failed", "{calls:?}");
}

#[test]
fn a_check_that_panics_in_an_approval_answers_the_held_call_and_releases_its_id() {
    let dir = tempfile::tempdir().unwrap();
    // `echo` needs approval; no channel can ask here, so the approval task would deny
    // it (`approval_unavailable`). Its first run panics instead.
    let config = "\n[servers.fault.tools.echo]\naction = \"ask\"\n";
    let mut g = start_with("relay::approval=1*panic", dir.path(), config);
    let call = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": CANARY}}});
    g.send(&call);
    let r = g.recv();
    assert_eq!(r["id"], 77, "{r}");
    assert_refused(&r);
    // The id was released: the same call again is asked about, not refused as a
    // duplicate, and ends as the approval would have.
    g.send(&call);
    let r = g.recv();
    assert_eq!(r["id"], 77, "{r}");
    assert_eq!(r["error"]["data"]["reason"], "approval_unavailable", "{r}");
    let err = finish(g);
    assert_stderr_says_where_not_what(&err, "client");
    let events = events_with(&dir.path().join("b.db"), "inspection_failed");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["method"], "tools/call", "{events:?}");
}

/// A short `tools/call` deadline, so a call of the fault server's `slow` tool times out.
const SHORT_DEADLINE: &str = "\n[limits]\ntool_call_timeout_ms = 400\n";

/// Calls `slow`, which the server never answers: the answer is the gateway's own.
fn call_slow(g: &mut Gateway) -> Value {
    g.request("tools/call", &json!({"name": "slow", "arguments": {}}))
}

#[test]
fn a_panic_while_answering_a_timed_out_request_answers_it_with_inspection_failed() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = start_with("relay::time_out=1*panic", dir.path(), SHORT_DEADLINE);
    assert_refused(&call_slow(&mut g));
    // The deadlines still work: the next slow call times out as usual.
    let r = call_slow(&mut g);
    assert_eq!(r["error"]["data"]["reason"], "request_timeout", "{r}");
    assert_eq!(echo_canary(&mut g)["result"]["content"][0]["text"], CANARY);
    let err = finish(g);
    assert_stderr_has(&err, &["failed while answering a request itself"]);
    assert_refusals_audited(dir.path(), 1, "tools/call", "gateway");
}

/// Starts a gateway with fail points `spec` and [`SHORT_DEADLINE`], calls `slow` and
/// asserts the answer's reason; returns the gateway.
fn slow_call_answered(spec: &str, dir: &Path, reason: &str) -> Gateway {
    let mut g = start_with(spec, dir, SHORT_DEADLINE);
    let r = call_slow(&mut g);
    assert_eq!(r["error"]["data"]["reason"], reason, "{r}");
    g
}

/// Asserts some line of `err` holds every one of `parts`.
fn assert_stderr_has(err: &[String], parts: &[&str]) {
    assert!(
        err.iter().any(|l| parts.iter().all(|p| l.contains(p))),
        "{parts:?} not in {err:?}"
    );
}

#[test]
fn the_deadline_task_is_started_again_after_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let g = slow_call_answered("relay::timers=1*panic", dir.path(), "request_timeout");
    let err = finish(g);
    assert_stderr_has(
        &err,
        &[
            "the deadline task failed inside mcp-bastion",
            "started again (1 of 3)",
        ],
    );
}

#[test]
fn a_deadline_task_that_keeps_failing_ends_the_session_and_answers_what_waits() {
    let dir = tempfile::tempdir().unwrap();
    // Nobody keeps deadlines any more: the session ends rather than let this call wait.
    let g = slow_call_answered("relay::timers=panic", dir.path(), "upstream_exited");
    let (code, err) = g.wait(Duration::from_secs(15));
    assert_eq!(code, Some(3), "{err:?}");
    assert_stderr_has(
        &err,
        &["failed inside mcp-bastion 4 times; stopping the server"],
    );
}

#[test]
fn a_panic_in_bastions_own_listing_answers_the_call_that_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    super::allow_tools_of(dir.path(), "fault");
    let server = fault_server().display().to_string();
    let mut gw = super::WrapHost::start_env(
        &["wrap", "--name", "fault", "--", "python3", &server],
        &format!("sqlite://{}", dir.path().join("b.db").display()),
        dir.path(),
        &[("FAILPOINTS", "relay::own_listing=1*panic")],
    );
    gw.initialize();
    // The host never listed the tools: Bastion lists them itself before the call, on a
    // task of its own, and that listing panics once.
    let call = json!({"name": "echo", "arguments": {"text": "listed"}});
    let (r, _) = gw.request("tools/call", call.clone());
    assert_refused(&r);
    let (r, _) = gw.request("tools/call", call);
    assert_eq!(r["result"]["content"][0]["text"], "listed", "{r}");
    gw.close();
    assert_refusals_audited(dir.path(), 1, "tools/call", "host_to_server");
}
