//! Tool-call confirmation through `wrap` (issue 5): a test host that answers Bastion's
//! `elicitation/create` (accept / decline / cancel / nothing / nonsense), a host
//! without elicitation, grants across restarts and their voiding by a descriptor
//! change. The server (`tests/servers/confirm_server.py`) reports every call it got.

use bastion_core::confirm::{Policy, PolicyConfig};
use bastion_gateway::confirm::ConfirmSetup;
use bastion_gateway::{AuditSink, PinMode, PinningSetup, WrapConfig, wrap};
use bastion_store::{PinFilter, PinState, Store};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;

fn confirm_server(variant_file: &Path) -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/confirm_server.py");
    vec![
        "python3".into(),
        script.display().to_string(),
        variant_file.display().to_string(),
    ]
}

/// The policy of these tests: the `calls` probe always runs; the rest is `policy`.
pub(super) fn policy(extra: &Value) -> Policy {
    let mut base = json!({
        "confirmation": {"timeout_ms": 600, "channels": ["elicitation", "tty"]},
        "servers": {"c": {"tools": {"calls": {"action": "allow"}}}}
    });
    if let (Some(b), Some(e)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    Policy::new(serde_json::from_value::<PolicyConfig>(base).unwrap()).unwrap()
}

/// How the test host answers an `elicitation/create` (Bastion's approval form or a
/// server's request).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Answer {
    Accept,
    AcceptAlways,
    Decline,
    Cancel,
    Nothing,
    Nonsense,
    /// `accept` with this content.
    With(Value),
    /// This whole result.
    Raw(Value),
}

pub(super) struct TestHost {
    tx: DuplexStream,
    rx: Lines<BufReader<DuplexStream>>,
    gateway: JoinHandle<Result<i32, bastion_gateway::GatewayError>>,
    writer: JoinHandle<()>,
    next_id: i64,
    /// Approval forms seen (their params).
    pub(super) asked: Vec<Value>,
    /// Notifications seen.
    pub(super) notes: Vec<Value>,
}

impl TestHost {
    pub(super) async fn start(
        store: &Store,
        policy: Policy,
        server: Vec<String>,
        elicitation: bool,
    ) -> Self {
        let caps = if elicitation {
            json!({"elicitation": {}})
        } else {
            json!({})
        };
        let mut host = Self::start_bare(store, policy, server);
        let init = host
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "t", "version": "1"}}),
                Answer::Nothing,
            )
            .await;
        assert!(init.get("result").is_some(), "{init}");
        host.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        host
    }

    /// The gateway and a host that has sent nothing yet (a stateless-era host sends no
    /// `initialize`).
    fn start_bare(store: &Store, policy: Policy, server: Vec<String>) -> Self {
        Self::start_named(store, policy, server, "c")
    }

    /// The gateway for server `name`, a host that has sent nothing yet.
    pub(super) fn start_named(
        store: &Store,
        policy: Policy,
        server: Vec<String>,
        name: &str,
    ) -> Self {
        Self::start_with(store, policy, server, name, true)
    }

    /// [`TestHost::start_named`]; `url_mode: false` narrows the host's elicitation
    /// capability by policy.
    pub(super) fn start_with(
        store: &Store,
        policy: Policy,
        server: Vec<String>,
        name: &str,
        url_mode: bool,
    ) -> Self {
        let (sink, writer) = AuditSink::start(store.clone(), name);
        let (host_w, gw_r) = tokio::io::duplex(1 << 16);
        let (gw_w, host_r) = tokio::io::duplex(1 << 16);
        let mut cfg = WrapConfig::new(name, server);
        cfg.grace_ms = 500;
        cfg.pinning = Some(PinningSetup {
            store: store.clone(),
            mode: PinMode::Tofu,
        });
        cfg.elicitation = bastion_gateway::ElicitSetup {
            store: Some(store.clone()),
            url_mode,
            ..bastion_gateway::ElicitSetup::default()
        };
        cfg.confirmation = Some(ConfirmSetup {
            store: Some(store.clone()),
            // No terminal in tests: the tty channel is skipped.
            tty_path: None,
            ..ConfirmSetup::new(policy)
        });
        let gateway = tokio::spawn(wrap(cfg, gw_r, gw_w, sink));
        Self {
            tx: host_w,
            rx: BufReader::new(host_r).lines(),
            gateway,
            writer,
            next_id: 0,
            asked: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub(super) async fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        self.tx.write_all(&line).await.unwrap();
    }

    pub(super) async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.rx.next_line())
            .await
            .expect("no message from the gateway within 20 s")
            .unwrap()
            .expect("gateway closed its output");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends a request, answering approval forms with `answer` meanwhile.
    #[allow(clippy::needless_pass_by_value)]
    pub(super) async fn request(&mut self, method: &str, params: Value, answer: Answer) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let m = self.recv().await;
            if m["id"] == id && m.get("method").is_none() {
                return m;
            }
            if m["method"] == "elicitation/create" {
                self.asked.push(m["params"].clone());
                let result = match &answer {
                    Answer::Accept => json!({"action": "accept", "content": {"approve": true}}),
                    Answer::AcceptAlways => {
                        json!({"action": "accept", "content": {"approve": true, "remember": "always_for_this_tool"}})
                    }
                    Answer::Decline => json!({"action": "decline"}),
                    Answer::Cancel => json!({"action": "cancel"}),
                    Answer::Nonsense => json!({"action": "accept", "content": {"approve": "yes"}}),
                    Answer::With(content) => json!({"action": "accept", "content": content}),
                    Answer::Raw(result) => result.clone(),
                    Answer::Nothing => continue,
                };
                self.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": result}))
                    .await;
            } else if m.get("id").is_none() {
                self.notes.push(m);
            }
        }
    }

    pub(super) async fn call(&mut self, tool: &str, arguments: Value, answer: Answer) -> Value {
        self.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            answer,
        )
        .await
    }

    /// What the server received so far.
    async fn received(&mut self) -> Vec<Value> {
        let r = self.call("calls", json!({}), Answer::Nothing).await;
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("calls probe failed: {r}"));
        serde_json::from_str(text).unwrap()
    }

    pub(super) async fn finish(self) {
        drop(self.tx);
        tokio::time::timeout(Duration::from_secs(20), self.gateway)
            .await
            .expect("gateway did not exit")
            .unwrap()
            .unwrap();
        tokio::time::timeout(Duration::from_secs(10), self.writer)
            .await
            .expect("audit writer did not finish")
            .unwrap();
    }
}

pub(super) fn reason(r: &Value) -> &str {
    r["error"]["data"]["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("not a Bastion refusal: {r}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_accepted_form_lets_the_call_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let variant = dir.path().join("variant");
    let args = json!({"path": "/tmp/report.txt", "content": "quarterly numbers"});
    for answer in [
        Answer::Accept,
        Answer::Decline,
        Answer::Cancel,
        Answer::Nothing,
        Answer::Nonsense,
    ] {
        let store = Store::open("sqlite::memory:").await.unwrap();
        let mut host =
            TestHost::start(&store, policy(&json!({})), confirm_server(&variant), true).await;
        let list = host.request("tools/list", json!({}), Answer::Nothing).await;
        assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 3);
        let r = host.call("write_file", args.clone(), answer.clone()).await;
        assert_eq!(host.asked.len(), 1, "{answer:?}: asked once");
        let message = host.asked[0]["message"].as_str().unwrap();
        for shown in [
            "server \"c\"",
            "write_file",
            "/tmp/report.txt",
            "quarterly numbers",
        ] {
            assert!(
                message.contains(shown),
                "{answer:?}: {shown} not in {message}"
            );
        }
        assert!(host.asked[0]["requestedSchema"]["properties"]["approve"].is_object());
        let received = host.received().await;
        if answer == Answer::Accept {
            assert_eq!(
                r["result"]["content"][0]["text"], "wrote /tmp/report.txt",
                "{r}"
            );
            assert_eq!(
                received,
                vec![json!({"name": "write_file", "arguments": args})],
                "exactly the approved arguments reach the server"
            );
        } else {
            assert_eq!(reason(&r), "approval_denied", "{answer:?}: {r}");
            assert!(r.get("result").is_none(), "a denial is never a result: {r}");
            assert!(
                received.is_empty(),
                "{answer:?}: the server got {received:?}"
            );
        }
        if answer == Answer::Nothing {
            assert_eq!(r["error"]["data"]["answer"], "timeout", "{r}");
            assert!(
                host.notes
                    .iter()
                    .any(|n| n["method"] == "notifications/cancelled"),
                "the host is told to drop the unanswered form: {:?}",
                host.notes
            );
        }
        let decisions = store.decisions(Some("c"), 10).await.unwrap();
        let d = decisions
            .iter()
            .find(|d| d.tool == "write_file")
            .expect("decision recorded");
        assert_eq!(d.action, "ask");
        assert_eq!(d.channel.as_deref(), Some("elicitation"));
        assert_eq!(
            d.outcome,
            if answer == Answer::Accept {
                "approved"
            } else {
                "denied"
            }
        );
        assert_eq!(d.digest.len(), 64);
        assert!(
            d.arguments.is_none(),
            "argument values are not logged by default"
        );
        host.finish().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_elicitation_or_terminal_calls_are_unavailable_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut host = TestHost::start(
        &store,
        policy(&json!({})),
        confirm_server(&dir.path().join("variant")),
        false,
    )
    .await;
    host.request("tools/list", json!({}), Answer::Nothing).await;
    let r = host
        .call(
            "write_file",
            json!({"path": "/etc/passwd", "content": "x"}),
            Answer::Accept,
        )
        .await;
    assert_eq!(reason(&r), "approval_unavailable", "{r}");
    assert!(
        host.asked.is_empty(),
        "no form for a host without elicitation"
    );
    // The server's readOnlyHint does not help an untrusted server either.
    let r = host
        .call("read_file", json!({"path": "/etc/hosts"}), Answer::Accept)
        .await;
    assert_eq!(reason(&r), "approval_unavailable", "{r}");
    assert!(host.received().await.is_empty());
    host.finish().await;
    // The audit log carries the reason the host got, so the error can be looked up.
    assert_eq!(
        refusals(&store).await,
        [
            ("write_file".to_owned(), "approval_unavailable".to_owned()),
            ("read_file".to_owned(), "approval_unavailable".to_owned())
        ]
    );
}

/// (tool, reason) of each refused `tools/call` the audit log recorded, oldest first.
async fn refusals(store: &Store) -> Vec<(String, String)> {
    let events = store
        .audit_events(&bastion_store::AuditQuery {
            limit: Some(1000),
            ..bastion_store::AuditQuery::default()
        })
        .await
        .unwrap();
    events
        .into_iter()
        .filter(|e| e.direction == "gateway" && e.verdict == "block")
        .filter(|e| e.method.as_deref() == Some("tools/call"))
        .map(|e| (e.tool.unwrap_or_default(), e.reason.unwrap_or_default()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_rules_deny_and_trusted_read_only_tools_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let rules = json!({"servers": {"c": {"trusted": true, "tools": {
        "calls": {"action": "allow"},
        "write_*": {"action": "deny"}
    }}}});
    let mut host = TestHost::start(
        &store,
        policy(&rules),
        confirm_server(&dir.path().join("variant")),
        true,
    )
    .await;
    host.request("tools/list", json!({}), Answer::Nothing).await;
    let r = host
        .call(
            "write_file",
            json!({"path": "/tmp/a", "content": "x"}),
            Answer::Accept,
        )
        .await;
    assert_eq!(reason(&r), "policy_denied", "{r}");
    let r = host
        .call("read_file", json!({"path": "/tmp/a"}), Answer::Decline)
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "read /tmp/a", "{r}");
    assert!(
        host.asked.is_empty(),
        "nothing needed asking: {:?}",
        host.asked
    );
    // A hidden bidi override in an argument asks even here.
    let r = host
        .call(
            "read_file",
            json!({"path": "/tmp/invoice_\u{202e}gpj.exe"}),
            Answer::Decline,
        )
        .await;
    assert_eq!(reason(&r), "approval_denied", "{r}");
    assert_eq!(host.asked.len(), 1);
    assert!(
        host.asked[0]["message"]
            .as_str()
            .unwrap()
            .contains("\\u{202E}")
            || host.asked[0]["message"]
                .as_str()
                .unwrap()
                .contains("U+202E"),
        "the hidden character is shown escaped: {}",
        host.asked[0]["message"]
    );
    assert_eq!(
        host.received().await,
        vec![json!({"name": "read_file", "arguments": {"path": "/tmp/a"}})]
    );
    host.finish().await;
    assert_eq!(
        refusals(&store).await,
        [
            ("write_file".to_owned(), "policy_denied".to_owned()),
            ("read_file".to_owned(), "approval_denied".to_owned())
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_survives_a_restart_and_a_descriptor_change_voids_it() {
    let dir = tempfile::tempdir().unwrap();
    let variant = dir.path().join("variant");
    let db = dir.path().join("grants.db");
    let store = Store::open(db.to_str().unwrap()).await.unwrap();
    let args = json!({"path": "/tmp/g", "content": "1"});

    // 1. The user approves "always for this tool".
    let mut host =
        TestHost::start(&store, policy(&json!({})), confirm_server(&variant), true).await;
    host.request("tools/list", json!({}), Answer::Nothing).await;
    let r = host
        .call("write_file", args.clone(), Answer::AcceptAlways)
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "wrote /tmp/g", "{r}");
    host.finish().await;
    let grants = store
        .grants(&bastion_store::GrantFilter::default())
        .await
        .unwrap();
    assert_eq!(grants.len(), 1, "{grants:?}");
    assert_eq!(grants[0].tool, "write_file");
    assert_eq!(grants[0].source, "elicitation");

    // 2. After a restart, with a host that cannot even ask, the grant runs the call.
    let mut host =
        TestHost::start(&store, policy(&json!({})), confirm_server(&variant), false).await;
    host.request("tools/list", json!({}), Answer::Nothing).await;
    let r = host.call("write_file", args.clone(), Answer::Nothing).await;
    assert_eq!(r["result"]["content"][0]["text"], "wrote /tmp/g", "{r}");
    host.finish().await;

    // 3. The server changes the tool's description: withheld until reviewed.
    std::fs::write(&variant, "2").unwrap();
    let mut host =
        TestHost::start(&store, policy(&json!({})), confirm_server(&variant), false).await;
    let list = host.request("tools/list", json!({}), Answer::Nothing).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(!names.contains(&"write_file"), "{names:?}");
    host.finish().await;
    let pending = store
        .pins(&PinFilter {
            state: Some(PinState::Pending),
            ..PinFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    store.approve_pin(pending[0].id, 1).await.unwrap().unwrap();

    // 4. The new description is approved, but the grant was for the old one: ask again.
    let mut host =
        TestHost::start(&store, policy(&json!({})), confirm_server(&variant), false).await;
    host.request("tools/list", json!({}), Answer::Nothing).await;
    let r = host.call("write_file", args.clone(), Answer::Nothing).await;
    assert_eq!(reason(&r), "approval_unavailable", "{r}");
    host.finish().await;
    store.close().await;
}

/// `_meta` of a 2026-07-28 request whose client declares form elicitation.
fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_hosts_confirm_through_input_required_and_a_sealed_request_state() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut host = TestHost::start_bare(
        &store,
        policy(&json!({})),
        confirm_server(&dir.path().join("variant")),
    );
    let list = host
        .request(
            "tools/list",
            json!({"_meta": stateless_meta()}),
            Answer::Nothing,
        )
        .await;
    assert_eq!(
        list["result"]["tools"].as_array().unwrap().len(),
        3,
        "{list}"
    );
    let params = json!({"name": "write_file", "arguments": {"path": "/tmp/s", "content": "v"}, "_meta": stateless_meta()});

    // Round 1: Bastion answers with its approval form instead of calling the server.
    let r = host
        .request("tools/call", params.clone(), Answer::Nothing)
        .await;
    let result = &r["result"];
    assert_eq!(result["resultType"], "input_required", "{r}");
    let form = &result["inputRequests"]["mcp-bastion-approval"];
    assert_eq!(form["method"], "elicitation/create");
    assert!(
        form["params"]["message"]
            .as_str()
            .unwrap()
            .contains("/tmp/s")
    );
    let token = result["requestState"].as_str().unwrap().to_owned();
    let retry = |answer: Value, token: &str, params: &Value| {
        let mut p = params.clone();
        p["inputResponses"] = json!({"mcp-bastion-approval": answer});
        p["requestState"] = json!(token);
        p
    };
    let accept = json!({"action": "accept", "content": {"approve": true}});

    // A retry whose arguments changed is bound to other params: denied.
    let mut changed = params.clone();
    changed["arguments"]["path"] = json!("/etc/shadow");
    let r = host
        .request(
            "tools/call",
            retry(accept.clone(), &token, &changed),
            Answer::Nothing,
        )
        .await;
    assert_eq!(reason(&r), "approval_denied", "{r}");
    assert_eq!(r["error"]["data"]["answer"], "digest_mismatch", "{r}");
    // A forged token is not Bastion's: the call is asked again, not run.
    let r = host
        .request(
            "tools/call",
            retry(accept.clone(), "v1.e30.AAAA", &params),
            Answer::Nothing,
        )
        .await;
    assert!(
        r["error"].is_object() || r["result"]["resultType"] == "input_required",
        "{r}"
    );
    assert!(host.received().await.is_empty());

    // Round 2: the accepted retry runs with exactly the approved params.
    let r = host
        .request(
            "tools/call",
            retry(accept.clone(), &token, &params),
            Answer::Nothing,
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "wrote /tmp/s", "{r}");
    let received = host.received().await;
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0]["arguments"], params["arguments"]);
    assert!(
        received[0].get("requestState").is_none() && received[0].get("inputResponses").is_none()
    );
    // The same token again: used once only.
    let r = host
        .request(
            "tools/call",
            retry(accept, &token, &params),
            Answer::Nothing,
        )
        .await;
    assert_eq!(r["error"]["data"]["answer"], "replayed", "{r}");

    // A declined round: denied, never sent.
    let r = host
        .request("tools/call", params.clone(), Answer::Nothing)
        .await;
    let token = r["result"]["requestState"].as_str().unwrap().to_owned();
    let r = host
        .request(
            "tools/call",
            retry(json!({"action": "decline"}), &token, &params),
            Answer::Nothing,
        )
        .await;
    assert_eq!(reason(&r), "approval_denied", "{r}");
    assert_eq!(host.received().await.len(), 1);
    host.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_covers_only_the_rounds_the_server_asked_for_each_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = stateless_host(&dir).await;
    let params = json!({"name": "write_file", "arguments": {"path": "/tmp/r", "content": "ask"}, "_meta": stateless_meta()});
    let with = |state: Option<&str>, responses: Value| {
        let mut p = params.clone();
        if let Some(state) = state {
            p["requestState"] = json!(state);
        }
        p["inputResponses"] = responses;
        p
    };
    // The user approves the call; the server then asks for input of its own.
    let round = approve_then_server_round(&mut host, &params).await;
    let round_state = round["result"]["requestState"].as_str().unwrap().to_owned();
    // The host gets a state of Bastion's wrapping the server's, not the server's alone.
    assert!(
        round_state.starts_with("mcp-bastion-round:") && round_state.ends_with(":srv-round-1"),
        "{round}"
    );
    assert!(
        round["result"]["inputRequests"].get("enc").is_some(),
        "{round}"
    );
    let answer = json!({"enc": {"action": "accept", "content": {"encoding": "utf-8"}}});
    // A round the server never asked for is a new call, never run without a question: a
    // made-up requestState, none at all, a state of another call, the server's own state
    // (guessable by another host of a shared relay), Bastion's wrapping with the server's
    // part or the seal altered. (With a requestState that is not Bastion's approval
    // token, Bastion cannot ask through its own and refuses.)
    let token_part = round_state.rsplit_once(':').unwrap().0.to_owned();
    let mut altered_seal = round_state.clone().into_bytes();
    let at = "mcp-bastion-round:v1.".len() + 2;
    altered_seal[at] = if altered_seal[at] == b'A' { b'B' } else { b'A' };
    let altered_seal = String::from_utf8(altered_seal).unwrap();
    let other_server_part = format!("{token_part}:srv-round-2");
    for state in [
        Some("made-up-by-another-host"),
        None,
        Some("srv-round-2"),
        Some("srv-round-1"),
        Some(token_part.as_str()),
        Some(other_server_part.as_str()),
        Some(altered_seal.as_str()),
    ] {
        let r = host
            .request("tools/call", with(state, answer.clone()), Answer::Nothing)
            .await;
        assert!(asked_or_refused(&r), "{state:?}: {r}");
    }
    // Bastion's round state without answers would be the approved call run afresh.
    let mut unanswered = params.clone();
    unanswered["requestState"] = json!(round_state);
    let r = host
        .request("tools/call", unanswered, Answer::Nothing)
        .await;
    assert!(asked_or_refused(&r), "no inputResponses: {r}");
    assert!(host.received().await.is_empty());
    // The round the server asked for runs without a second question, once, and the
    // server gets its own requestState back.
    let r = host
        .request(
            "tools/call",
            with(Some(&round_state), answer.clone()),
            Answer::Nothing,
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "wrote /tmp/r", "{r}");
    let r = host
        .request(
            "tools/call",
            with(Some(&round_state), answer.clone()),
            Answer::Nothing,
        )
        .await;
    assert!(asked_or_refused(&r), "a replayed round is not run: {r}");
    let received = host.received().await;
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0]["requestState"], "srv-round-1", "{received:?}");
    assert_eq!(received[0]["inputResponses"], answer);
    host.finish().await;
}

/// A 2026-07-28 host (form elicitation declared) of the confirmation server under the
/// default policy (every call asks), its tools listed.
async fn stateless_host(dir: &tempfile::TempDir) -> TestHost {
    let store = Store::open("sqlite::memory:").await.unwrap();
    stateless_host_on(&store, dir).await
}

/// [`stateless_host`] on `store`.
async fn stateless_host_on(store: &Store, dir: &tempfile::TempDir) -> TestHost {
    let mut host = TestHost::start_bare(
        store,
        policy(&json!({})),
        confirm_server(&dir.path().join("variant")),
    );
    host.request(
        "tools/list",
        json!({"_meta": stateless_meta()}),
        Answer::Nothing,
    )
    .await;
    host
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_state_no_longer_accepted_reaches_the_server_as_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = stateless_host(&dir).await;
    let params = json!({"name": "write_file", "arguments": {"path": "/tmp/g", "content": "ask"}, "_meta": stateless_meta()});
    // Approved for good: later calls of the tool run under the grant.
    let always = json!({"approve": true, "remember": "always_for_this_tool"});
    let round = approve_then_server_round_with(&mut host, &params, always).await;
    let round_state = round["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(round_state.starts_with("mcp-bastion-round:"), "{round}");
    let mut answered = params.clone();
    answered["requestState"] = json!(round_state);
    answered["inputResponses"] =
        json!({"enc": {"action": "accept", "content": {"encoding": "utf-8"}}});
    for _ in 0..2 {
        // The first time as the round; the second (the round used up) under the grant.
        let r = host
            .request("tools/call", answered.clone(), Answer::Nothing)
            .await;
        assert_eq!(r["result"]["content"][0]["text"], "wrote /tmp/g", "{r}");
    }
    let received = host.received().await;
    assert_eq!(received.len(), 2, "{received:?}");
    for got in &received {
        assert_eq!(got["requestState"], "srv-round-1", "{received:?}");
    }
    host.finish().await;
}

/// A tool whose pin is revoked (`mcp-bastion pins revoke`, here through the store) after
/// the user approved a call of it: the server's later round of that call is refused
/// like any call of a withheld tool, not run under the earlier approval.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_of_an_approved_call_is_refused_once_the_tool_is_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("revoke.db").to_str().unwrap())
        .await
        .unwrap();
    let mut host = stateless_host_on(&store, &dir).await;
    let params = json!({"name": "write_file", "arguments": {"path": "/tmp/v", "content": "ask"}, "_meta": stateless_meta()});
    let round = approve_then_server_round(&mut host, &params).await;
    let mut answered = params.clone();
    answered["requestState"] = round["result"]["requestState"].clone();
    answered["inputResponses"] =
        json!({"enc": {"action": "accept", "content": {"encoding": "utf-8"}}});
    let pins = store.pins(&PinFilter::default()).await.unwrap();
    let pin = pins
        .iter()
        .find(|p| p.kind == "tool" && p.item_key == "write_file")
        .expect("write_file pinned on first sight");
    store
        .revoke_pin(pin.id, bastion_gateway::now_ms())
        .await
        .unwrap()
        .unwrap();
    // The relay re-reads the pins every 500 ms.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let r = host.request("tools/call", answered, Answer::Nothing).await;
    assert_eq!(r["error"]["data"]["reason"], "pending_review", "{r}");
    assert!(host.received().await.is_empty());
    host.finish().await;
}

/// Sends `params` (a `write_file` the server answers with its own `input_required`),
/// approves Bastion's question and returns the server's round as the host gets it.
async fn approve_then_server_round(host: &mut TestHost, params: &Value) -> Value {
    approve_then_server_round_with(host, params, json!({"approve": true})).await
}

/// [`approve_then_server_round`] with the approval form answered with `content`.
async fn approve_then_server_round_with(
    host: &mut TestHost,
    params: &Value,
    content: Value,
) -> Value {
    let r = host
        .request("tools/call", params.clone(), Answer::Nothing)
        .await;
    assert!(asked_by_bastion(&r), "{r}");
    let mut retry = params.clone();
    retry["requestState"] = r["result"]["requestState"].clone();
    retry["inputResponses"] =
        json!({"mcp-bastion-approval": {"action": "accept", "content": content}});
    let round = host.request("tools/call", retry, Answer::Nothing).await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    round
}

/// Whether a stateless-era answer is Bastion's own approval question.
fn asked_by_bastion(r: &Value) -> bool {
    r["result"]["resultType"] == "input_required"
        && r["result"]["inputRequests"]
            .get("mcp-bastion-approval")
            .is_some()
}

/// Whether a call was not run: asked again, or refused for want of a way to ask.
fn asked_or_refused(r: &Value) -> bool {
    asked_by_bastion(r) || r["error"]["data"]["reason"] == "approval_unavailable"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_round_without_request_state_runs_only_with_the_state_bastion_gave() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = stateless_host(&dir).await;
    let params = json!({"name": "write_file", "arguments": {"path": "/tmp/s", "content": "ask-stateless"}, "_meta": stateless_meta()});
    let round = approve_then_server_round(&mut host, &params).await;
    let round_state = round["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(round_state.starts_with("mcp-bastion-round:v1."), "{round}");
    assert!(
        !round_state["mcp-bastion-round:".len()..].contains(':'),
        "{round}"
    );
    let answer = json!({"enc": {"action": "accept", "content": {"encoding": "latin1"}}});
    let mut without = params.clone();
    without["inputResponses"] = answer.clone();
    // Without a requestState (what another host could send), the round is a new call.
    let r = host
        .request("tools/call", without.clone(), Answer::Nothing)
        .await;
    assert!(asked_or_refused(&r), "{r}");
    assert!(host.received().await.is_empty());
    let mut with = without;
    with["requestState"] = json!(round_state);
    let r = host.request("tools/call", with, Answer::Nothing).await;
    assert_eq!(r["result"]["content"][0]["text"], "wrote /tmp/s", "{r}");
    // The server, which issued no requestState, gets none.
    let received = host.received().await;
    assert_eq!(received.len(), 1, "{received:?}");
    assert!(received[0].get("requestState").is_none(), "{received:?}");
    assert_eq!(received[0]["inputResponses"], answer);
    host.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_that_shadow_another_wrapped_server_are_flagged_or_withheld() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("shadow.db").to_str().unwrap())
        .await
        .unwrap();
    let plain = dir.path().join("plain");
    let mut first = TestHost::start(&store, policy(&json!({})), confirm_server(&plain), true).await;
    first
        .request("tools/list", json!({}), Answer::Nothing)
        .await;
    first.finish().await;

    // A second server copies `write_file` and imitates `read_file` as `Read_File`.
    let copycat = dir.path().join("copycat");
    std::fs::write(&copycat, "shadow").unwrap();
    let mut second = TestHost::start_named(
        &store,
        policy(&json!({})),
        confirm_server(&copycat),
        "copycat",
    );
    let list = second
        .request(
            "tools/list",
            json!({"_meta": stateless_meta()}),
            Answer::Nothing,
        )
        .await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"write_file"),
        "an identical name is flagged, not withheld: {names:?}"
    );
    assert!(
        !names.contains(&"Read_File"),
        "a look-alike of another server's tool is withheld: {names:?}"
    );
    second.finish().await;
    let events = store
        .audit_events(&bastion_store::AuditQuery {
            server: Some("copycat".into()),
            limit: Some(1000),
            ..bastion_store::AuditQuery::default()
        })
        .await
        .unwrap();
    let flagged: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e.codes.iter().any(|c| c == "tool_name_collision"))
        .map(|e| (e.tool.as_deref().unwrap_or(""), e.verdict.as_str()))
        .collect();
    assert!(flagged.contains(&("write_file", "flag")), "{flagged:?}");
    assert!(flagged.contains(&("Read_File", "block")), "{flagged:?}");
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlisted_tools_are_listed_by_bastion_first_and_cancelled_calls_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let allow_all = json!({"servers": {"c": {"tools": {"*": {"action": "allow"}}}}});
    let variant = dir.path().join("variant");
    std::fs::write(&variant, "hidden").unwrap();
    let mut host =
        TestHost::start(&store, policy(&allow_all), confirm_server(&variant), true).await;
    // No tools/list from the host: Bastion lists the tools itself, the descriptor passes
    // the pipeline and the rule lets the call run without asking.
    let r = host
        .call("read_file", json!({"path": "/etc/hosts"}), Answer::Decline)
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "read /etc/hosts", "{r}");
    assert!(host.asked.is_empty(), "{:?}", host.asked);
    // A tool the server answers but does not list is refused without reaching it.
    let r = host.call("ghost", json!({}), Answer::Accept).await;
    assert_eq!(reason(&r), "tool_not_listed", "{r}");
    // A tool whose descriptor the own listing found hiding text is withheld.
    let r = host.call("notes", json!({}), Answer::Accept).await;
    assert_eq!(reason(&r), "blocked_descriptor", "{r}");
    assert!(host.asked.is_empty(), "{:?}", host.asked);
    let names: Vec<String> = host
        .received()
        .await
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["read_file"]);
    // The host never saw Bastion's own listing: no answer to an id it did not send.
    let stray = tokio::time::timeout(Duration::from_millis(300), host.recv()).await;
    assert!(stray.is_err(), "unexpected frame: {stray:?}");
    host.finish().await;
    let events = store
        .audit_events(&bastion_store::AuditQuery::default())
        .await
        .unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.reason.as_deref() == Some("gateway_tools_list")),
        "the own listing is audited"
    );

    // A server whose listing fails: nothing backs the tool, so the allow rule does not
    // apply alone and the call is asked (here declined).
    std::fs::write(&variant, "nolist").unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut host =
        TestHost::start(&store, policy(&allow_all), confirm_server(&variant), true).await;
    let r = host
        .call("read_file", json!({"path": "/etc/hosts"}), Answer::Decline)
        .await;
    assert_eq!(reason(&r), "approval_denied", "{r}");
    assert_eq!(host.asked.len(), 1);
    host.finish().await;
    std::fs::write(&variant, "1").unwrap();

    // A held call the host cancels is dropped, even if the form is then accepted.

    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut host = TestHost::start(
        &store,
        policy(&json!({})),
        confirm_server(&dir.path().join("variant")),
        true,
    )
    .await;
    host.request("tools/list", json!({}), Answer::Nothing).await;
    cancel_then_accept(&mut host, 88, "/tmp/c", Duration::ZERO).await;
    let received = host.received().await;
    assert!(received.is_empty(), "a cancelled call ran: {received:?}");
    let stray = tokio::time::timeout(Duration::from_millis(500), host.recv()).await;
    assert!(
        stray.is_err(),
        "an answer to the cancelled call arrived: {stray:?}"
    );
    host.finish().await;
}

/// A call held while Bastion lists the server's tools itself, which the host cancels
/// before that listing ends, is dropped on every path out of the hold: a tool the rule
/// lets run, a tool the server does not list, a withheld tool. None reaches the server,
/// none is answered, and the audit records each as `cancelled_by_host`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_cancelled_during_bastions_own_listing_never_run_on_any_path() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let allow_all = json!({"servers": {"c": {"tools": {"*": {"action": "allow"}}}}});
    let variant = dir.path().join("variant");
    std::fs::write(&variant, "hidden slowlist").unwrap();
    let mut host =
        TestHost::start(&store, policy(&allow_all), confirm_server(&variant), true).await;
    // The server takes 1 s to answer Bastion's own tools/list; each call and its
    // cancellation arrive well within it.
    for (id, tool) in [(91, "read_file"), (92, "ghost"), (93, "notes")] {
        host.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"path": "/etc/hosts"}}}))
            .await;
        host.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the user gave up"}}),
        )
        .await;
    }
    let received = host.received().await;
    assert!(received.is_empty(), "a cancelled call ran: {received:?}");
    let stray = tokio::time::timeout(Duration::from_millis(500), host.recv()).await;
    assert!(stray.is_err(), "a cancelled call was answered: {stray:?}");
    // The session goes on: the same tool runs when not cancelled.
    let r = host
        .call("read_file", json!({"path": "/etc/hosts"}), Answer::Decline)
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "read /etc/hosts", "{r}");
    host.finish().await;
    let events = store
        .audit_events(&bastion_store::AuditQuery::default())
        .await
        .unwrap();
    let mut dropped: Vec<&str> = events
        .iter()
        .filter(|e| e.reason.as_deref() == Some("cancelled_by_host"))
        .map(|e| {
            assert_eq!(
                (e.direction.as_str(), e.verdict.as_str()),
                ("gateway", "block")
            );
            e.tool.as_deref().unwrap_or_default()
        })
        .collect();
    dropped.sort_unstable();
    assert_eq!(dropped, ["ghost", "notes", "read_file"]);
}

/// Sends call `id` of `write_file` (to `path`), waits for Bastion's approval form,
/// cancels the call, waits `pause`, then accepts the form.
async fn cancel_then_accept(host: &mut TestHost, id: u64, path: &str, pause: Duration) {
    host.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": path, "content": "x"}}}))
        .await;
    let form = host.recv().await;
    assert_eq!(form["method"], "elicitation/create", "{form}");
    host.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "the user gave up"}}),
    )
    .await;
    tokio::time::sleep(pause).await;
    host.send(&json!({"jsonrpc": "2.0", "id": form["id"],
        "result": {"action": "accept", "content": {"approve": true}}}))
        .await;
}

/// A call the host cancels while its approval form is open, then approves: it does not
/// run, gets no answer, and the audit says `cancelled_by_host`, never `allow`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_while_asked_about_is_audited_as_cancelled_even_if_approved() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open("sqlite::memory:").await.unwrap();
    let variant = dir.path().join("variant");
    let mut host =
        TestHost::start(&store, policy(&json!({})), confirm_server(&variant), true).await;
    let list = host.request("tools/list", json!({}), Answer::Nothing).await;
    assert!(list["result"]["tools"].is_array(), "{list}");
    cancel_then_accept(&mut host, 500, "/tmp/x", Duration::from_millis(100)).await;
    let stray = tokio::time::timeout(Duration::from_millis(500), host.recv()).await;
    assert!(stray.is_err(), "the cancelled call was answered: {stray:?}");
    let received = host.received().await;
    assert!(received.is_empty(), "the cancelled call ran: {received:?}");
    host.finish().await;
    let events = store
        .audit_events(&bastion_store::AuditQuery::default())
        .await
        .unwrap();
    let rows: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e.request_id.as_deref() == Some("500"))
        .map(|e| (e.verdict.as_str(), e.reason.as_deref().unwrap_or_default()))
        .collect();
    assert_eq!(rows, [("block", "cancelled_by_host")]);
}
