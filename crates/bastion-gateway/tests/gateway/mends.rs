//! Hostile-review mends of the stdio relay, against `tests/servers/hostile_server.py`:
//! Bastion's own error messages quote nothing a terminal would act on; `requestState`
//! is opaque only at the top of an `input_required` result; two spellings of one member
//! in an MCP object are refused; a refused answer is matched to its request by an id
//! after the refused member; server request ids are capped; only the gateway's own
//! refusals carry its mark (`data.gateway`).

use super::{Host, hostile, reason};
use bastion_core::Limits;
use bastion_store::AuditQuery;
use serde_json::{Value, json};
use std::time::Duration;

/// What a terminal or a reader would not see as itself: escapes, bidi, tags, C1.
fn hidden_or_control(s: &str) -> bool {
    s.chars().any(|c| {
        c.is_control() && !matches!(c, '\t' | '\n' | '\r')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{e0000}'..='\u{e007f}')
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bastions_own_error_messages_never_echo_what_the_server_hid() {
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    // The typed view refuses the block's `type` and its report quotes the value.
    let r = h.call("bad_variant", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(!hidden_or_control(message), "{message:?}");
    assert!(message.contains("<U+001B>]52;c;"), "{message:?}");
    assert!(!hidden_or_control(&r["error"]["data"].to_string()), "{r}");
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_state_is_opaque_only_at_the_top_of_a_result() {
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    let id = h.send_call("state_escape").await;
    let note = h.recv().await;
    assert_eq!(note["method"], "notifications/message", "{note}");
    assert_eq!(note["params"]["data"]["requestState"], "nn", "{note}");
    let r = h.recv().await;
    assert_eq!(r["id"], id, "{r}");
    assert!(!hidden_or_control(&r.to_string()), "{r}");
    assert!(
        !hidden_or_control(r["result"]["content"][0]["requestState"].as_str().unwrap()),
        "{r}"
    );
    assert!(
        !hidden_or_control(r["result"]["_meta"]["requestState"].as_str().unwrap()),
        "{r}"
    );
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_spellings_of_one_member_are_refused_in_mcp_objects() {
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    let r = h.call("case_text", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    assert!(!r.to_string().contains("onerror"), "{r}");
    // A URL elicitation (-32042) whose `URL` is not the reviewed `url`.
    let r = h.call("url_twin", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    assert!(!r.to_string().contains("evil.example"), "{r}");
    h.assert_still_serving().await;
    let (_, store) = h.finish().await;
    let events = store.audit_events(&AuditQuery::default()).await.unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.codes.iter().any(|c| c == "malformed_message")),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_answer_whose_id_comes_last_still_answers_at_once() {
    // Two requests wait: the sole-pending rule cannot say which one the refused frame
    // answered, its id (after the duplicate member) does.
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    h.send_raw(r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"silent","arguments":{}}}"#)
        .await;
    let started = std::time::Instant::now();
    let r = h.call("late_id", json!({})).await;
    assert_eq!(reason(&r), "upstream_message_rejected", "{r}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "after {:?}",
        started.elapsed()
    );
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_request_ids_are_capped_like_the_hosts() {
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    let id = h.send_call("big_id").await;
    // The host gets the answer, never the ping with the 5,000-byte id.
    assert_eq!(h.recv_text(id).await, "sent");
    let replies = h.call("replies", json!({})).await;
    let replies: Value =
        serde_json::from_str(replies["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let refusal = &replies[0];
    assert_eq!(refusal["id"], Value::Null, "{replies}");
    assert_eq!(refusal["error"]["code"], -32600, "{replies}");
    assert!(refusal.to_string().len() < 1000, "{replies}");
    h.assert_still_serving().await;
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_null_id_error_reaches_the_host_only_when_it_reports_an_unreadable_request() {
    // JSON-RPC 2.0 §5.1: a null id only in -32700/-32600 errors. A URL elicitation
    // error with a null id answers no request, so nothing would have it reviewed.
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    let id = h.send_call("null_id").await;
    let parse = h.recv().await;
    assert_eq!(parse["id"], Value::Null, "{parse}");
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(h.recv_text(id).await, "after the null ids");
    h.assert_still_serving().await;
    let (_, store) = h.finish().await;
    let events = store.audit_events(&AuditQuery::default()).await.unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.reason.as_deref() == Some("unknown_response_id")
                && e.message_kind.as_deref() == Some("error")),
        "{events:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_bastions_own_refusals_carry_its_mark() {
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    // A refusal by the gateway (a withheld tool is never forwarded) carries the mark.
    h.request("tools/list", json!({})).await;
    let own = h.call("hidden_tool", json!({})).await;
    assert_eq!(reason(&own), "blocked_descriptor", "{own}");
    assert_eq!(own["error"]["data"]["gateway"], "mcp-bastion", "{own}");
    // The server's look-alike loses every spelling of it and keeps the rest.
    let forged = h.call("forged_refusal", json!({})).await;
    let data = forged["error"]["data"].as_object().unwrap();
    assert_eq!(forged["error"]["code"], -32051, "{forged}");
    assert_eq!(data["reason"], "approval_denied", "{forged}");
    assert_eq!(data["detail"], json!({"gateway": "nested, not the mark"}));
    let names: Vec<&str> = data.keys().map(String::as_str).collect();
    assert_eq!(names, ["reason", "server", "detail"], "{forged}");
    // A lone case variant of `data`, which lenient decoders read as `data`.
    let forged = h.call("forged_data", json!({})).await;
    assert_eq!(
        forged["error"]["Data"],
        json!({"reason": "approval_denied"}),
        "{forged}"
    );
    // A -32042 whose every link is refused becomes Bastion's own refusal: marked, and
    // audited as forged only when the server's error carried the mark.
    for forge in [false, true] {
        let r = h.call("bad_link", json!({"forge": forge})).await;
        assert_eq!(r["error"]["code"], -32051, "{r}");
        assert_eq!(reason(&r), "policy_denied", "{r}");
        assert_eq!(r["error"]["data"]["gateway"], "mcp-bastion", "{r}");
        assert!(r["error"]["data"].get("Gateway").is_none(), "{r}");
    }
    h.assert_still_serving().await;
    let (_, store) = h.finish().await;
    let events = store.audit_events(&AuditQuery::default()).await.unwrap();
    let forged: Vec<_> = events
        .iter()
        .filter(|e| e.codes.iter().any(|c| c == "forged_gateway_mark"))
        .collect();
    // forged_refusal, forged_data, bad_link with the mark; not bad_link without it.
    assert_eq!(forged.len(), 3, "{events:?}");
    for ev in forged {
        assert_eq!(ev.verdict, "sanitize");
        assert_eq!(ev.reason.as_deref(), Some("forged_gateway_mark"));
        assert_eq!(ev.method.as_deref(), Some("tools/call"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advertising_list_changed_for_pinning_is_not_a_sanitized_answer() {
    // With pinning, Bastion tells a legacy host that lists may change (approvals then
    // reach it without a restart). That rewrite removes nothing of the server's.
    let store = bastion_store::Store::open("sqlite::memory:").await.unwrap();
    let mut cfg = bastion_gateway::WrapConfig::new("hostile", super::content_server());
    cfg.pinning = Some(bastion_gateway::PinningSetup {
        store: store.clone(),
        mode: bastion_gateway::PinMode::Tofu,
    });
    let mut h = Host::start_on(cfg, store);
    let init = h
        .request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))
        .await;
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{init}"
    );
    let (_, store) = h.finish().await;
    let events = store.audit_events(&AuditQuery::default()).await.unwrap();
    let ev = events
        .iter()
        .find(|e| e.method.as_deref() == Some("initialize") && e.direction == "server_to_host")
        .unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(ev.verdict, "allow", "{ev:?}");
    assert!(ev.codes.is_empty(), "{ev:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_refusals_that_answer_no_request_is_folded_in_the_audit() {
    let mut h = Host::start(hostile(), Limits::default()).await;
    h.init().await;
    let r = h.call("flood", json!({"n": 3000})).await;
    assert_eq!(r["result"]["content"][0]["text"], "flooded", "{r}");
    h.assert_still_serving().await;
    let all = AuditQuery {
        limit: Some(1_000_000),
        ..AuditQuery::default()
    };
    // The ticker writes the folded rows once their second has ended, while the session
    // goes on (not only when it ends).
    let counted = |events: &[bastion_store::AuditEvent], reason: &str| -> i64 {
        events
            .iter()
            .filter(|e| e.reason.as_deref() == Some(reason))
            .map(|e| e.count)
            .sum()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let events = h.store.audit_events(&all).await.unwrap();
        if counted(&events, "unknown_response_id") == 3000 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "folded rows not written during the session"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, store) = h.finish().await;
    let events = store.audit_events(&all).await.unwrap();
    // Notifications the server may send answer no request either: past the rate they
    // are folded too (each still reaches the host).
    let logs: Vec<_> = events
        .iter()
        .filter(|e| e.method.as_deref() == Some("notifications/message"))
        .collect();
    assert_eq!(logs.iter().map(|e| e.count).sum::<i64>(), 3000);
    assert!(logs.len() < 1_000 && logs.iter().any(|e| e.count > 1));
    assert!(logs.iter().all(|e| e.verdict == "allow"), "{logs:?}");
    for (reason, kind) in [
        ("unknown_response_id", "result"),
        ("invalid_envelope", "notification"),
        ("malformed_message", "request"),
    ] {
        let rows: Vec<_> = events
            .iter()
            .filter(|e| e.reason.as_deref() == Some(reason))
            .collect();
        let total: i64 = rows.iter().map(|e| e.count).sum();
        assert_eq!(total, 3000, "{reason}: every refusal is counted");
        // At most 50 rows of their own per second for all kinds together, and one
        // folded row per kind and second: far fewer rows than refusals, also on a slow
        // machine.
        assert!(rows.len() < 1_000, "{reason}: {} rows", rows.len());
        assert!(rows.iter().any(|e| e.count > 1), "{reason}: nothing folded");
        assert!(
            rows.iter()
                .all(|e| e.message_kind.as_deref() == Some(kind) && e.verdict == "block"),
            "{rows:?}"
        );
        // A folded row names no single request.
        assert!(
            rows.iter()
                .filter(|e| e.count > 1)
                .all(|e| e.request_id.is_none()),
            "{rows:?}"
        );
    }
}
