//! Elicitation mediation through `wrap` (issue 6), fault injection with
//! `tests/servers/elicit_server.py`: a form asking for a password, a URL with a token, a
//! confusable domain, an invalid answer, completion notifications for an unknown id, a
//! duplicate, and one from an old session. Counts asserted as the issue demands:
//! sensitive fields passed through = 0, unknown completions advancing state = 0,
//! cross-session completions accepted = 0.

use super::confirm::{Answer, TestHost, policy};
use bastion_store::Store;
use serde_json::{Value, json};
use std::path::PathBuf;

fn elicit_server() -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/elicit_server.py");
    vec!["python3".into(), script.display().to_string()]
}

/// A host that declares both elicitation modes; every tool of the test server runs
/// without confirmation.
async fn host(store: &Store) -> TestHost {
    host_with(store, true).await
}

/// [`host`], with URL mode allowed or taken away by policy.
async fn host_with(store: &Store, url_mode: bool) -> TestHost {
    let rules = json!({"servers": {"c": {"tools": {"*": {"action": "allow"}}}}});
    let mut h = TestHost::start_with(store, policy(&rules), elicit_server(), "c", url_mode);
    let init = h
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}, "url": {}}}, "clientInfo": {"name": "t", "version": "1"}}),
            Answer::Nothing,
        )
        .await;
    assert!(init.get("result").is_some(), "{init}");
    h.request("tools/list", json!({}), Answer::Nothing).await;
    h
}

/// What the server got back for its elicitation (the ask_* tools echo it).
fn server_got(r: &Value) -> Value {
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no tool text: {r}"));
    serde_json::from_str(text).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_asking_for_secrets_never_reach_the_host_and_answers_are_validated() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut h = host(&store).await;

    let r = h
        .call(
            "ask_password",
            json!({}),
            Answer::With(json!({"password": "hunter2"})),
        )
        .await;
    let got = server_got(&r);
    assert_eq!(got["error"]["code"], -32051, "{got}");
    assert_eq!(got["error"]["data"]["reason"], "policy_denied", "{got}");
    assert_eq!(
        got["error"]["data"]["finding"], "sensitive_form_field",
        "{got}"
    );
    assert!(got.get("result").is_none(), "never a fake decline: {got}");
    let sensitive_shown = h
        .asked
        .iter()
        .filter(|p| p.to_string().to_lowercase().contains("password"))
        .count();
    assert_eq!(
        sensitive_shown, 0,
        "sensitive fields passed through: {:?}",
        h.asked
    );

    // An ordinary form reaches the host; a fitting answer reaches the server.
    let r = h
        .call("ask_name", json!({}), Answer::With(json!({"name": "Ada"})))
        .await;
    assert_eq!(h.asked.len(), 1);
    assert_eq!(server_got(&r)["result"]["content"]["name"], "Ada");
    // An answer that does not fit the schema is not forwarded.
    let r = h
        .call("ask_name", json!({}), Answer::With(json!({"name": 42})))
        .await;
    let got = server_got(&r);
    assert_eq!(
        got["error"]["data"]["reason"], "elicitation_answer_invalid",
        "{got}"
    );
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_requests_are_gated_recorded_and_completions_checked() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("ledger.db").to_str().unwrap())
        .await
        .unwrap();
    let mut h = host(&store).await;

    // A pre-authenticated URL is refused and never shown.
    let r = h.call("ask_url_token", json!({}), Answer::Accept).await;
    let got = server_got(&r);
    assert_eq!(
        got["error"]["data"]["finding"], "url_preauth_param",
        "{got}"
    );
    assert!(h.asked.is_empty(), "{:?}", h.asked);

    // A look-alike domain is shown in its ASCII form, with warnings naming it.
    let r = h
        .call(
            "ask_url_confusable",
            json!({}),
            Answer::Raw(json!({"action": "decline"})),
        )
        .await;
    let got = server_got(&r);
    assert_eq!(got["result"]["action"], "decline", "{got} {:?}", h.asked);
    let shown = h.asked.last().unwrap().clone();
    assert_eq!(shown["url"], "https://xn--pypal-4ve.com/signin", "{shown}");
    let message = shown["message"].as_str().unwrap();
    assert!(
        message.starts_with("mcp-bastion: the server \"c\""),
        "{message}"
    );
    assert!(
        message.contains("Warning:") && message.contains("xn--pypal-4ve.com"),
        "{message}"
    );

    // An ordinary URL: accepted, recorded, then completed exactly once.
    let r = h
        .call("ask_url", json!({"id": "flow-1"}), Answer::Accept)
        .await;
    assert_eq!(server_got(&r)["result"]["action"], "accept");
    let before = h.notes.len();
    for id in ["no-such-flow", "flow-1", "flow-1"] {
        let r = h.call("complete", json!({"id": id}), Answer::Nothing).await;
        assert_eq!(r["result"]["content"][0]["text"], "sent");
    }
    let completions: Vec<&Value> = h.notes[before..]
        .iter()
        .filter(|n| n["method"] == "notifications/elicitation/complete")
        .collect();
    assert_eq!(
        completions.len(),
        1,
        "only the known, pending flow completes, once: {completions:?}"
    );
    assert_eq!(completions[0]["params"]["elicitationId"], "flow-1");
    // Accepted, and the server never completes it: it stays waiting out of band.
    h.call("ask_url", json!({"id": "flow-2"}), Answer::Accept)
        .await;
    h.finish().await;

    // A new session: the old session's flow id does not complete anything here.
    let mut h2 = host(&store).await;
    let before = h2.notes.len();
    h2.call("complete", json!({"id": "flow-1"}), Answer::Nothing)
        .await;
    assert!(
        h2.notes[before..]
            .iter()
            .all(|n| n["method"] != "notifications/elicitation/complete"),
        "cross-session completion accepted: {:?}",
        h2.notes
    );
    h2.finish().await;

    let ledger = store.consents(Some("c"), 100).await.unwrap();
    let decisions: Vec<(&str, &str)> = ledger
        .iter()
        .map(|c| {
            (
                c.elicitation_id.as_deref().unwrap_or(""),
                c.decision.as_str(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        vec![
            ("tok-1", "refused"),
            ("conf-1", "declined"),
            ("flow-1", "accepted"),
            ("flow-2", "accepted")
        ]
    );
    for (id, state) in [("conf-1", "DECLINED"), ("flow-2", "OUT_OF_BAND_PENDING")] {
        let flows = store.flows_with_id("c", id).await.unwrap();
        assert_eq!(flows.len(), 1, "{id}");
        assert_eq!(flows[0].state, state, "{id}");
    }
    assert!(
        ledger
            .iter()
            .all(|c| c.consent_id.len() >= 32 && c.request_digest.len() == 64)
    );
    let flows = store.flows_with_id("c", "flow-1").await.unwrap();
    assert_eq!(flows.len(), 1);
    assert_eq!(flows[0].state, "COMPLETION_NOTIFIED");
    let reasons: Vec<String> = store
        .audit_events(&bastion_store::AuditQuery {
            limit: Some(1000),
            ..bastion_store::AuditQuery::default()
        })
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| e.reason)
        .collect();
    for expected in [
        "completion_unknown_id",
        "completion_duplicate",
        "completion_other_session",
    ] {
        assert!(
            reasons.iter().any(|r| r == expected),
            "{expected} not audited: {reasons:?}"
        );
    }
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_input_requests_are_judged_and_their_answers_validated() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut h = host(&store).await;
    let r = h
        .call("stateless_password", json!({}), Answer::Nothing)
        .await;
    assert_eq!(r["error"]["data"]["reason"], "policy_denied", "{r}");
    assert_eq!(r["error"]["data"]["finding"], "sensitive_form_field", "{r}");

    let r = h.call("stateless_spoof", json!({}), Answer::Nothing).await;
    assert_eq!(r["error"]["data"]["reason"], "policy_denied", "{r}");
    let r = h.call("stateless_name", json!({}), Answer::Nothing).await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert!(r["result"]["inputRequests"]["q"]["params"]["requestedSchema"].is_object());
    let state = r["result"]["requestState"].as_str().unwrap().to_owned();
    assert_eq!(
        state, "srv-state-stateless_name",
        "requestState passes byte for byte"
    );
    let retry = |content: Value| {
        json!({"name": "stateless_name", "arguments": {}, "requestState": state,
               "inputResponses": {"q": {"action": "accept", "content": content}}})
    };
    let r = h
        .request("tools/call", retry(json!({"name": 42})), Answer::Nothing)
        .await;
    assert_eq!(
        r["error"]["data"]["reason"], "elicitation_answer_invalid",
        "{r}"
    );
    let r = h
        .request("tools/call", retry(json!({"name": "Ada"})), Answer::Nothing)
        .await;
    let got = server_got(&r);
    assert_eq!(got["q"]["content"]["name"], "Ada", "{got}");
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_elicitation_requirement_allows_exactly_one_retry_after_completion() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("req.db").to_str().unwrap())
        .await
        .unwrap();
    let mut h = host(&store).await;
    let pay = json!({"amount": 25, "to": "ACME"});
    let r = h.call("pay", pay.clone(), Answer::Nothing).await;
    assert_eq!(r["error"]["code"], -32042, "{r}");
    let kept: Vec<&str> = r["error"]["data"]["elicitations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["elicitationId"].as_str())
        .collect();
    assert_eq!(kept, ["pay-1"], "the token-carrying URL is removed: {r}");
    // Before the browser step completes, the operation may not run.
    let r = h.call("pay", pay.clone(), Answer::Nothing).await;
    assert_eq!(r["error"]["data"]["reason"], "retry_not_eligible", "{r}");
    h.call("complete", json!({"id": "pay-1"}), Answer::Nothing)
        .await;
    assert!(
        h.notes
            .iter()
            .any(|n| n["params"]["elicitationId"] == "pay-1"),
        "the completion of the requirement reaches the host"
    );
    let r = h.call("pay", pay.clone(), Answer::Nothing).await;
    assert_eq!(r["result"]["content"][0]["text"], "paid 1", "{r}");
    // The one retry was used: a second would pay twice.
    let r = h.call("pay", pay.clone(), Answer::Nothing).await;
    assert_eq!(r["error"]["data"]["reason"], "retry_not_eligible", "{r}");
    // Another request (other arguments) is not held by this requirement.
    let r = h
        .call("pay", json!({"amount": 1, "to": "ACME"}), Answer::Nothing)
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "paid 2", "{r}");
    h.finish().await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_can_take_url_mode_away_from_the_server() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    let mut h = host_with(&store, false).await;
    let r = h.call("caps", json!({}), Answer::Nothing).await;
    let caps: Value =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        caps["elicitation"],
        json!({"form": {}}),
        "the server sees form mode only: {caps}"
    );
    let r = h
        .call("ask_url", json!({"id": "u-9"}), Answer::Accept)
        .await;
    let got = server_got(&r);
    assert_eq!(got["error"]["code"], -32602, "{got}");
    assert_eq!(
        got["error"]["data"]["reason"], "elicitation_mode_not_declared",
        "{got}"
    );
    assert!(h.asked.is_empty());
    // With URL mode allowed, the server sees what the host declared, unchanged.
    h.finish().await;
    let mut h = host(&store).await;
    let r = h.call("caps", json!({}), Answer::Nothing).await;
    let caps: Value =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_input_requests_respect_the_capabilities_of_their_request() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    let rules = json!({"servers": {"c": {"tools": {"*": {"action": "allow"}}}}});
    // A 2026-07-28 host: no initialize; capabilities travel with each request.
    let mut h = TestHost::start_with(&store, policy(&rules), elicit_server(), "c", true);
    let meta = |elicitation: Value| {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"elicitation": elicitation}})
    };
    h.request(
        "tools/list",
        json!({"_meta": meta(json!({}))}),
        Answer::Nothing,
    )
    .await;
    let call = |elicitation: Value| json!({"name": "stateless_url", "arguments": {}, "_meta": meta(elicitation)});
    // Form only: a URL-mode input request is refused.
    let r = h
        .request("tools/call", call(json!({})), Answer::Nothing)
        .await;
    assert_eq!(
        r["error"]["data"]["finding"], "elicitation_mode_not_declared",
        "{r}"
    );
    // URL declared for this request: shown, with Bastion's header.
    let r = h
        .request(
            "tools/call",
            call(json!({"form": {}, "url": {}})),
            Answer::Nothing,
        )
        .await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    let message = r["result"]["inputRequests"]["open"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("mcp-bastion: the server \"c\""),
        "{message}"
    );
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_call_is_not_asked_again_for_the_servers_own_input_rounds() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    // Default policy: every call of this untrusted server asks.
    let mut h = TestHost::start_with(&store, policy(&json!({})), elicit_server(), "c", true);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    h.request("tools/list", json!({"_meta": meta}), Answer::Nothing)
        .await;
    let call = json!({"name": "stateless_name", "arguments": {}, "_meta": meta});
    // Round 1: Bastion asks.
    let r = h.request("tools/call", call.clone(), Answer::Nothing).await;
    let token = r["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(
        r["result"]["inputRequests"]["mcp-bastion-approval"].is_object(),
        "{r}"
    );
    let mut approved = call.clone();
    approved["requestState"] = json!(token);
    approved["inputResponses"] =
        json!({"mcp-bastion-approval": {"action": "accept", "content": {"approve": true}}});
    // Round 2: the server itself asks for a name.
    let r = h.request("tools/call", approved, Answer::Nothing).await;
    // The host holds the server's state wrapped in a round token of Bastion's.
    let round = r["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(
        round.starts_with("mcp-bastion-round:") && round.ends_with(":srv-state-stateless_name"),
        "{r}"
    );
    assert!(r["result"]["inputRequests"]["q"].is_object(), "{r}");
    // An answer that does not fit the server's form is refused in that round too.
    let mut misfit = call.clone();
    misfit["requestState"] = json!(round);
    misfit["inputResponses"] = json!({"q": {"action": "accept", "content": {"name": 42}}});
    let r = h.request("tools/call", misfit, Answer::Nothing).await;
    assert_eq!(
        r["error"]["data"]["reason"], "elicitation_answer_invalid",
        "{r}"
    );
    // Round 3: the host answers the server; the user is not asked again.
    let mut answered = call.clone();
    answered["requestState"] = json!(round);
    answered["inputResponses"] = json!({"q": {"action": "accept", "content": {"name": "Ada"}}});
    let r = h.request("tools/call", answered, Answer::Nothing).await;
    assert_eq!(server_got(&r)["q"]["content"]["name"], "Ada", "{r}");
    // Another call (other arguments) is asked again.
    let other = json!({"name": "stateless_name", "arguments": {"x": 1}, "_meta": meta,
        "requestState": "srv-state-stateless_name",
        "inputResponses": {"q": {"action": "accept", "content": {"name": "Eve"}}}});
    let r = h.request("tools/call", other, Answer::Nothing).await;
    assert!(r.get("error").is_some(), "{r}");
    h.finish().await;
}
