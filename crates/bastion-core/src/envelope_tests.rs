//! Tests of `envelope.rs`: classification, refusals, ids and error frames.

use super::*;
use serde_json::json;

fn kind(v: &Value) -> Result<Kind, EnvelopeError> {
    classify(v.as_object().unwrap())
}

#[test]
fn classifies() {
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})).unwrap(),
        Kind::Request {
            id: Id::Int(1),
            method: "ping".into()
        }
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})).unwrap(),
        Kind::Notification {
            method: "notifications/initialized".into()
        }
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":"a","result":{}})).unwrap(),
        Kind::Result {
            id: Id::Str("a".into())
        }
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})).unwrap(),
        Kind::Error {
            id: None,
            code: -32700
        }
    );
}

#[test]
fn rejects() {
    assert_eq!(
        kind(&json!({"jsonrpc":"1.0","id":42,"method":"tools/list"})),
        Err(EnvelopeError::Version)
    );
    assert_eq!(
        kind(&json!({"id":42,"method":"tools/list"})),
        Err(EnvelopeError::Version)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":null,"method":"x"})),
        Err(EnvelopeError::RequestId)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1.5,"method":"x"})),
        Err(EnvelopeError::RequestId)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":true,"method":"x"})),
        Err(EnvelopeError::RequestId)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"method":""})),
        Err(EnvelopeError::Method)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})),
        Err(EnvelopeError::Params)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}})),
        Err(EnvelopeError::Outcome)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1})),
        Err(EnvelopeError::Outcome)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":null,"result":{}})),
        Err(EnvelopeError::ResponseId)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"result":[]})),
        Err(EnvelopeError::ResultNotObject)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})),
        Err(EnvelopeError::ErrorObject)
    );
    assert_eq!(
        kind(&json!({"jsonrpc":"2.0","id":1,"method":"x","result":{}})),
        Err(EnvelopeError::RequestWithOutcome)
    );
}

#[test]
fn ids() {
    assert_eq!(
        Id::from_value(&json!(u64::MAX)),
        Some(Id::Int(i128::from(u64::MAX)))
    );
    assert_eq!(Id::Int(i128::from(u64::MAX)).to_value(), json!(u64::MAX));
    assert_ne!(Id::from_value(&json!("1")), Id::from_value(&json!(1)));
}

#[test]
fn error_frame_shape() {
    let f = error_response(
        Some(&json!(3)),
        codes::REQUEST_TIMEOUT,
        "timed out",
        json!({"reason":"request_timeout"}),
    );
    let v: Value = serde_json::from_slice(&f).unwrap();
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32053,"message":"timed out","data":{"reason":"request_timeout","gateway":"mcp-bastion"}}})
    );
}

#[test]
fn error_messages_and_data_never_carry_what_a_terminal_or_reader_would_not_show() {
    // What a schema library quotes from a hostile value: an OSC 52 clipboard write,
    // a screen clear, a right-to-left override, a tag character, a C1 CSI.
    let quoted = "\u{1b}]52;c;Y3VybA==\u{7}\u{1b}[2J\u{202e}\u{e0041}\u{9b}31m";
    let f = error_response(
        Some(&json!(1)),
        codes::UPSTREAM_REJECTED,
        &format!("unknown variant `{quoted}`, expected `text`"),
        json!({"reason": "upstream_message_rejected", "finding": quoted, "list": [quoted], "nested": {quoted: 1}}),
    );
    let text = String::from_utf8(f.clone()).unwrap();
    for c in ['\u{1b}', '\u{7}', '\u{202e}', '\u{e0041}', '\u{9b}'] {
        assert!(!text.contains(c), "{c:?} in {text}");
    }
    let v: Value = serde_json::from_slice(&f).unwrap();
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("unknown variant `<U+001B>]52;c;Y3VybA==<U+0007><U+001B>[2J<U+202E><U+E0041><U+009B>31m`"), "{message}");
    assert_eq!(v["error"]["data"]["reason"], "upstream_message_rejected");
    assert_eq!(v["error"]["data"]["list"][0], v["error"]["data"]["finding"]);
    assert!(
        v["error"]["data"]["nested"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| k.starts_with("<U+001B>"))
    );
    // Legitimate text in any script stays as it is.
    let f = error_response(
        None,
        -32000,
        "\u{6771}\u{4eac} \u{645}\u{631}\u{62d}\u{628}\u{627} \u{1f468}\u{200d}\u{1f469}",
        Value::Null,
    );
    let v: Value = serde_json::from_slice(&f).unwrap();
    assert_eq!(
        v["error"]["message"],
        "\u{6771}\u{4eac} \u{645}\u{631}\u{62d}\u{628}\u{627} \u{1f468}\u{200d}\u{1f469}"
    );
}

#[test]
fn long_error_messages_are_cut_on_a_character_boundary() {
    let long = format!("unknown variant `{}`", "\u{e9}".repeat(1_000_000));
    let f = error_response(Some(&json!(1)), -32000, &long, Value::Null);
    let v: Value = serde_json::from_slice(&f).unwrap();
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.len() <= MAX_ERROR_MESSAGE_BYTES,
        "{}",
        message.len()
    );
    assert!(
        message.len() > MAX_ERROR_MESSAGE_BYTES - 8,
        "{}",
        message.len()
    );
    assert!(message.ends_with('\u{2026}'));
    assert!(message.starts_with("unknown variant `\u{e9}"));
    // One exactly at the limit is kept whole.
    let exact = "a".repeat(MAX_ERROR_MESSAGE_BYTES);
    let v: Value =
        serde_json::from_slice(&error_response(None, -32000, &exact, Value::Null)).unwrap();
    assert_eq!(v["error"]["message"], exact);
}

#[test]
fn bastions_own_errors_carry_the_gateway_mark() {
    let f = error_response(
        Some(&json!(3)),
        -32051,
        "denied",
        json!({"reason": "approval_denied", "server": "s", "gateway": "someone else"}),
    );
    let v: Value = serde_json::from_slice(&f).unwrap();
    assert_eq!(v["error"]["data"]["gateway"], GATEWAY_MARK);
    // No data, or data that is not an object, gets no member.
    let f = error_response(None, -32700, "bad", Value::Null);
    let v: Value = serde_json::from_slice(&f).unwrap();
    assert!(v["error"].get("data").is_none(), "{v}");
    let f = error_response(None, -32700, "bad", json!("text"));
    let v: Value = serde_json::from_slice(&f).unwrap();
    assert_eq!(v["error"]["data"], "text");
}

#[test]
fn the_gateway_mark_is_stripped_in_every_spelling_a_lenient_decoder_reads() {
    let mut e = json!({"code": -32051, "message": "m", "data": {
        "reason": "approval_denied",
        "gateway": "mcp-bastion",
        "GATEWAY": "mcp-bastion",
        "Gateway": 1,
        "\u{ff47}ateway": "mcp-bastion",
        "gatewa\u{0301}y": "mcp-bastion",
        "gateways": "kept",
        "nested": {"gateway": "kept"}
    }});
    assert_eq!(strip_gateway_mark(&mut e), 5);
    assert_eq!(
        e["data"],
        json!({"reason": "approval_denied", "gateways": "kept", "nested": {"gateway": "kept"}})
    );
    // Inside a lone case variant of `data` too; other members are not data.
    let mut e = json!({"code": 1, "message": "m",
        "Data": {"gateway": "mcp-bastion", "reason": "x"},
        "extra": {"gateway": "kept"}});
    assert_eq!(strip_gateway_mark(&mut e), 1);
    assert_eq!(e["Data"], json!({"reason": "x"}));
    assert_eq!(e["extra"], json!({"gateway": "kept"}));
    // Nothing to strip: unchanged.
    for mut unchanged in [
        json!({"code": 1, "message": "m"}),
        json!({"code": 1, "message": "m", "data": "gateway"}),
        json!({"code": 1, "message": "m", "data": ["gateway"]}),
        json!({"code": 1, "message": "m", "data": {"reason": "x"}}),
    ] {
        let before = unchanged.clone();
        assert_eq!(strip_gateway_mark(&mut unchanged), 0);
        assert_eq!(unchanged, before);
    }
}
