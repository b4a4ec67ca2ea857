//! Unit tests of [`super::decide`].

use super::call::ToolCall;
use super::decide::{Decision, RiskTier, decide};
use super::flow::HistoryEntry;
use super::policy::{Action, Policy, PolicyConfig};
use crate::finding::{Code, Severity};
use serde_json::{Value, json};

fn policy(toml_text: &str) -> Policy {
    Policy::new(toml::from_str::<PolicyConfig>(toml_text).unwrap()).unwrap()
}

#[allow(clippy::needless_pass_by_value)] // table-style calls with json! literals
fn run(p: &Policy, trusted: bool, tool: Option<Value>, params: Value, history: Value) -> Decision {
    let call = ToolCall::from_params(&params).unwrap();
    let history: Vec<HistoryEntry> = serde_json::from_value(history).unwrap();
    decide(p, "srv", trusted, tool.as_ref(), &call, &history)
}

fn codes(d: &Decision) -> Vec<&'static str> {
    d.reasons.iter().map(|f| f.code.as_str()).collect()
}

fn ro(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "annotations": {"readOnlyHint": true}})
}

#[test]
fn untrusted_asks_even_when_read_only() {
    let p = Policy::default();
    let d = run(
        &p,
        false,
        Some(ro("get_weather", "Gets the weather.")),
        json!({"name": "get_weather", "arguments": {"city": "Oslo"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
    assert_eq!(codes(&d), ["confirmation_required"]);
    assert!(d.tier >= RiskTier::Medium);
    // readOnlyHint on a destructive name: also the contradiction.
    let d = run(
        &p,
        false,
        Some(ro("delete_branch", "Deletes a git branch.")),
        json!({"name": "delete_branch", "arguments": {"branch": "main"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
    assert!(
        codes(&d).contains(&"annotation_contradiction"),
        "{:?}",
        d.reasons
    );
    assert_eq!(d.tier, RiskTier::High);
}

#[test]
fn trusted_read_only_runs_and_hints_tighten() {
    let p = Policy::default();
    let d = run(
        &p,
        true,
        Some(ro("get_weather", "Gets the weather.")),
        json!({"name": "get_weather", "arguments": {"city": "Oslo"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Allow, "{:?}", d.reasons);
    assert_eq!(codes(&d), ["auto_approved"]);
    assert_eq!(d.reasons[0].severity, Severity::Info);
    assert_eq!(d.tier, RiskTier::Low);
    for ann in [
        json!({"readOnlyHint": true, "openWorldHint": true}),
        json!({"readOnlyHint": true, "destructiveHint": true}),
        json!({"readOnlyHint": false}),
        json!({"destructiveHint": false}),
        json!({}),
    ] {
        let tool =
            json!({"name": "get_weather", "description": "Gets the weather.", "annotations": ann});
        let d = run(
            &p,
            true,
            Some(tool),
            json!({"name": "get_weather"}),
            json!([]),
        );
        assert_eq!(d.action, Action::Ask, "{ann}");
        assert!(codes(&d).contains(&"confirmation_required"));
    }
    // No pinned descriptor.
    let d = run(&p, true, None, json!({"name": "get_weather"}), json!([]));
    assert_eq!(d.action, Action::Ask);
    assert_eq!(d.tier, RiskTier::High);
}

#[test]
fn explicit_rules() {
    let p = policy(
        r#"
        [servers.srv.tools."delete_*"]
        action = "deny"
        [servers.srv.tools."write_*"]
        action = "allow"
        [[servers.srv.tools."write_*".args]]
        name = "path"
        under = ["/home/me/project"]
        "#,
    );
    let d = run(
        &p,
        true,
        None,
        json!({"name": "delete_repo", "arguments": {}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Deny);
    assert_eq!(codes(&d), ["policy_denied"]);
    assert_eq!(d.tier, RiskTier::Critical);
    let d = run(
        &p,
        false,
        None,
        json!({"name": "write_file", "arguments": {"path": "/home/me/project/../../etc/passwd"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Deny);
    assert_eq!(codes(&d), ["argument_rule_violated"]);
    assert_eq!(d.reasons[0].path, "/call/params/arguments/path");
    // Explicit allow wins over missing annotations, even on an untrusted server.
    let d = run(
        &p,
        false,
        None,
        json!({"name": "write_file", "arguments": {"path": "/home/me/project/a.txt"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Allow, "{:?}", d.reasons);
    // ... but not over hidden characters.
    let d = run(
        &p,
        false,
        None,
        json!({"name": "write_file", "arguments": {"path": "/home/me/project/a\u{202e}txt.exe"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
    assert_eq!(codes(&d), ["bidi_control"]);
    assert_eq!(d.reasons[0].severity, Severity::Warn);
}

#[test]
fn config_default_deny_and_allow() {
    let deny = policy("[confirmation]\ndefault = \"deny\"\n");
    let d = run(&deny, false, None, json!({"name": "anything"}), json!([]));
    assert_eq!(d.action, Action::Deny);
    assert_eq!(codes(&d), ["policy_denied"]);
    let allow = policy("[confirmation]\ndefault = \"allow\"\n");
    // Untrusted + default allow: annotations still tighten, readOnlyHint does not loosen.
    let closed = json!({"name": "note", "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}});
    assert_eq!(
        run(
            &allow,
            false,
            Some(closed),
            json!({"name": "note"}),
            json!([])
        )
        .action,
        Action::Allow
    );
    let d = run(
        &allow,
        false,
        Some(json!({"name": "note"})),
        json!({"name": "note"}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask, "destructiveHint defaults to true");
    let d = run(
        &allow,
        false,
        Some(json!({"name": "note", "annotations": {"readOnlyHint": true, "openWorldHint": true}})),
        json!({"name": "note"}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
}

#[test]
fn intent_mismatch_and_toxic_flow_ask_on_trusted_servers() {
    let p = policy("[servers.srv.tools.\"create_*\"]\naction = \"allow\"\n");
    let tool =
        json!({"name": "exec", "title": "Read README", "annotations": {"readOnlyHint": true}});
    let d = run(
        &p,
        true,
        Some(tool),
        json!({"name": "exec", "arguments": {"cmd": "cat README"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
    assert!(
        codes(&d).contains(&"tool_intent_mismatch"),
        "{:?}",
        d.reasons
    );
    assert_eq!(d.tier, RiskTier::Critical);
    let history = json!([
        {"call": "get_issue", "repo": "o/public"},
        {"call": "get_file_contents", "repo": "o/payroll"}
    ]);
    let d = run(
        &p,
        true,
        None,
        json!({"name": "create_pull_request", "arguments": {"repo": "o/public"}}),
        history,
    );
    assert_eq!(d.action, Action::Ask);
    assert_eq!(codes(&d), ["toxic_flow"]);
    let same = json!([{"call": "get_file_contents", "repo": "o/public"}]);
    let d = run(
        &p,
        true,
        None,
        json!({"name": "create_pull_request", "arguments": {"repo": "o/public"}}),
        same,
    );
    assert_eq!(d.action, Action::Allow);
}

#[test]
fn hidden_characters_in_names_and_nested_values() {
    let p = Policy::default();
    let tool = ro("get_file", "Gets a file.");
    let d = run(
        &p,
        true,
        Some(tool.clone()),
        json!({"name": "get_file", "arguments": {"opts": {"na\u{200b}me": ["ok", "x\u{e0041}"]}}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
    let paths: Vec<&str> = d.reasons.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths.contains(&"/call/params/arguments/opts/na\u{200b}me"),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/call/params/arguments/opts/na\u{200b}me/1"),
        "{paths:?}"
    );
    assert_eq!(d.tier, RiskTier::Critical);
    // In the called name too.
    let d = run(
        &p,
        true,
        Some(ro("get_file", "Gets a file.")),
        json!({"name": "get_file\u{2060}"}),
        json!([]),
    );
    assert_eq!(d.action, Action::Ask);
    assert!(
        d.reasons.iter().any(|f| f.path == "/call/params/name"),
        "{:?}",
        d.reasons
    );
    // Legitimate non-ASCII text stays allowed.
    let d = run(
        &p,
        true,
        Some(tool),
        json!({"name": "get_file", "arguments": {"path": "/docs/Привет-世界-👩‍💻.md"}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Allow, "{:?}", d.reasons);
}

#[test]
fn call_params_errors() {
    assert!(ToolCall::from_params(&json!({"arguments": {}})).is_err());
    assert!(ToolCall::from_params(&json!({"name": "x", "arguments": [1]})).is_err());
    assert_eq!(
        ToolCall::from_params(&json!({"name": "x"}))
            .unwrap()
            .arguments,
        None
    );
    assert!(Code::from_name("auto_approved").is_some());
}

#[test]
fn taking_the_arguments_reads_what_copying_reads_and_restoring_gives_the_params_back() {
    let sent = json!({
        "name": "write_file",
        "arguments": {"path": "/tmp/a", "content": "x".repeat(10_000), "mode": 420},
        "_meta": {"progressToken": 7}
    });
    let mut params = sent.clone();
    let taken = ToolCall::take_from_params(&mut params).unwrap();
    assert_eq!(taken, ToolCall::from_params(&sent).unwrap());
    // Taken: the member stays in its place, empty.
    assert_eq!(params["arguments"], json!({}));
    assert_eq!(
        params.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["name", "arguments", "_meta"]
    );
    taken.restore_arguments(&mut params);
    assert_eq!(params, sent);
    assert_eq!(
        serde_json::to_string(&params).unwrap(),
        serde_json::to_string(&sent).unwrap(),
        "members back in their order"
    );
    // Without arguments: nothing taken, nothing restored.
    let mut bare = json!({"name": "ping"});
    let call = ToolCall::take_from_params(&mut bare).unwrap();
    assert_eq!(call.arguments, None);
    call.restore_arguments(&mut bare);
    assert_eq!(bare, json!({"name": "ping"}));
    // Refused params are left as they were.
    for bad in [
        json!({"arguments": {"a": 1}}),
        json!({"name": "x", "arguments": [1]}),
        json!({"name": 3, "arguments": {"a": 1}}),
    ] {
        let mut params = bad.clone();
        assert!(ToolCall::take_from_params(&mut params).is_err());
        assert_eq!(params, bad);
    }
}

#[test]
fn error_messages_say_what_to_do() {
    use super::{ArgRuleError, CallError, DigestError, HistoryError, PolicyError};
    let table: Vec<(String, &str)> = vec![
        (CallError::NoName.to_string(), "string `name`"),
        (
            CallError::ArgumentsNotObject.to_string(),
            "must be an object",
        ),
        (HistoryError::Shape.to_string(), "string `tool`"),
        (DigestError::NotAnObject.to_string(), "JSON object"),
        (PolicyError::ZeroTimeout.to_string(), "greater than zero"),
        (
            PolicyError::DuplicateChannel("tty".into()).to_string(),
            "list each channel once",
        ),
        (
            ArgRuleError::NoConstraint("p".into()).to_string(),
            "give `under` and/or `host_in`",
        ),
    ];
    for (message, says) in table {
        assert!(message.contains(says), "{message}");
    }
}

#[test]
fn numbers_that_cannot_be_shown_exactly_refuse_a_call_that_asks() {
    let p = Policy::default();
    let tool = json!({"name": "transfer", "description": "Sends money."});
    for (amount, denied) in [
        (json!(42), false),
        (json!(9_007_199_254_740_992_u64), false),
        (json!(9_007_199_254_740_993_u64), true),
        (json!(-9_007_199_254_740_993_i64), true),
        (json!(1e20), true),
        (json!(0.1), false),
        (json!("100000000000000000001"), false),
    ] {
        let d = run(
            &p,
            false,
            Some(tool.clone()),
            json!({"name": "transfer", "arguments": {"order": {"amounts": [amount.clone()]}}}),
            json!([]),
        );
        if denied {
            assert_eq!(d.action, Action::Deny, "{amount}");
            assert_eq!(codes(&d), ["imprecise_number"], "{amount}");
            assert_eq!(d.reasons[0].path, "/call/params/arguments/order/amounts/0");
        } else {
            assert_eq!(d.action, Action::Ask, "{amount}: {:?}", d.reasons);
        }
    }
    // A call nobody is asked about is not affected (nothing is shown).
    let allow = policy("[servers.srv.tools.transfer]\naction = \"allow\"\n");
    let d = run(
        &allow,
        false,
        Some(tool),
        json!({"name": "transfer", "arguments": {"amount": 1e20}}),
        json!([]),
    );
    assert_eq!(d.action, Action::Allow);
}
