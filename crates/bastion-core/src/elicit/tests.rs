//! Unit tests of form schema rules, answer validation and URL-mode rewriting.

use super::*;
use serde_json::json;

fn review(params: &Value) -> ElicitationReview {
    review_request(params, &ElicitPolicy::default(), "/params")
}

fn codes(r: &ElicitationReview) -> Vec<&'static str> {
    r.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn every_allowed_kind_passes() {
    let params = json!({"message": "Tell us about the release", "requestedSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50},
            "contact": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10},
            "ratio": {"type": "number"},
            "ok": {"type": "boolean", "default": true},
            "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2},
            "langs": {"type": "array", "items": {"anyOf": [{"const": "en", "title": "English"}]}}
        },
        "required": ["name"]
    }});
    let r = review(&params);
    assert_eq!(r.verdict, Verdict::Allow, "{:?}", r.findings);
    let form = r.form.expect("schema usable");
    assert_eq!(form.fields.len(), 12);
    assert_eq!(form.required, vec!["name"]);
}

#[test]
fn schema_refusals() {
    for schema in [
        json!({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "hostname"}}}),
        json!({"type": "object", "properties": {}, "additionalProperties": true}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}),
        json!({"type": "array"}),
        json!({"type": "object", "properties": {"a": {"type": "string", "enum": []}}}),
    ] {
        let r = review(&json!({"message": "m", "requestedSchema": schema}));
        assert_eq!(r.verdict, Verdict::Block, "{schema}");
        assert!(
            codes(&r).contains(&"elicitation_schema_refused"),
            "{schema}"
        );
        assert!(r.form.is_none());
    }
    let many: serde_json::Map<String, Value> = (0..40)
        .map(|i| (format!("f{i}"), json!({"type": "boolean"})))
        .collect();
    let r =
        review(&json!({"message": "m", "requestedSchema": {"type": "object", "properties": many}}));
    assert!(codes(&r).contains(&"elicitation_schema_refused"));
}

#[test]
fn answers_are_validated() {
    let r = review(
        &json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
        "email": {"type": "string", "format": "email"},
        "n": {"type": "integer", "minimum": 1, "maximum": 3},
        "day": {"type": "string", "format": "date"},
        "c": {"type": "string", "enum": ["x", "y"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1}
    }, "required": ["email"]}}),
    );
    let form = r.form.unwrap();
    let ok = json!({"action": "accept", "content": {"email": "a@b.example.org", "n": 2, "day": "2026-11-30", "c": "x", "tags": ["a"]}});
    assert_eq!(validate_answer(&form, &ok), Ok(()));
    assert_eq!(
        validate_answer(&form, &json!({"action": "decline"})),
        Ok(())
    );
    for (bad, want) in [
        (json!({"action": "maybe"}), AnswerError::BadAction),
        (
            json!({"action": "decline", "content": {}}),
            AnswerError::BadContent,
        ),
        (
            json!({"action": "accept", "content": {}}),
            AnswerError::MissingRequired("email".into()),
        ),
        (
            json!({"action": "accept", "content": {"email": "a@b.example.org", "pw": "x"}}),
            AnswerError::UnknownField("pw".into()),
        ),
        (
            json!({"action": "accept", "content": {"email": "not-an-email"}}),
            AnswerError::Format {
                field: "email".into(),
                format: "email",
            },
        ),
        (
            json!({"action": "accept", "content": {"email": "a@b.example.org", "n": 7}}),
            AnswerError::OutOfBounds("n".into()),
        ),
        (
            json!({"action": "accept", "content": {"email": "a@b.example.org", "n": 1.5}}),
            AnswerError::WrongType {
                field: "n".into(),
                expected: "an integer",
            },
        ),
        (
            json!({"action": "accept", "content": {"email": "a@b.example.org", "day": "30.11.2026"}}),
            AnswerError::Format {
                field: "day".into(),
                format: "date",
            },
        ),
        (
            json!({"action": "accept", "content": {"email": "a@b.example.org", "c": "z"}}),
            AnswerError::NotAChoice("c".into()),
        ),
        (
            json!({"action": "accept", "content": {"email": "a@b.example.org", "tags": ["a", "b"]}}),
            AnswerError::OutOfBounds("tags".into()),
        ),
    ] {
        assert_eq!(validate_answer(&form, &bad), Err(want), "{bad}");
    }
    assert_eq!(
        AnswerError::MissingRequired("email".into()).to_string(),
        "required field `email` is missing"
    );
}

#[test]
fn declared_modes() {
    assert_eq!(
        DeclaredModes::from_capability(Some(&json!({}))),
        DeclaredModes {
            form: true,
            url: false
        }
    );
    assert_eq!(
        DeclaredModes::from_capability(Some(&json!({"url": {}}))),
        DeclaredModes {
            form: false,
            url: true
        }
    );
    let policy = ElicitPolicy {
        modes: DeclaredModes::from_capability(Some(&json!({}))),
        ..ElicitPolicy::default()
    };
    let r = review_request(
        &json!({"mode": "url", "elicitationId": "e", "url": "https://docs.example.com/", "message": "m"}),
        &policy,
        "/params",
    );
    assert_eq!(r.verdict, Verdict::Block);
    assert!(codes(&r).contains(&"elicitation_mode_not_declared"));
}

#[test]
fn url_mode_message_is_rewritten() {
    let params = json!({"mode": "url", "elicitationId": "e-1", "url": "https://xn--exmple-cua.com/Login", "message": "Sign in please", "_meta": {"k": 1}});
    let r = review(&params);
    assert_eq!(r.verdict, Verdict::Flag);
    let out = url_mode::rewrite_params(&params, "billing", r.url.as_ref().unwrap());
    let msg = out["message"].as_str().unwrap();
    let mut lines = msg.lines();
    let first = lines.next().unwrap();
    assert!(
        first.contains("\"billing\"")
            && first.contains("ex\u{e4}mple.com")
            && first.contains("xn--exmple-cua.com"),
        "{first}"
    );
    assert!(lines.next().unwrap().starts_with("Warning: "));
    assert!(msg.ends_with("\n\nMessage from the server:\nSign in please"));
    assert_eq!(out["url"], "https://xn--exmple-cua.com/Login");
    assert_eq!(out["_meta"], json!({"k": 1}));
    assert_eq!(out["elicitationId"], "e-1");
}

#[test]
fn hidden_text_in_labels_is_reported() {
    let r = review(
        &json!({"message": "Choose\u{202e}", "requestedSchema": {"type": "object", "properties": {
            "c": {"type": "string", "title": "Col\u{200b}or", "enum": ["a"], "enumNames": ["A\u{e0041}"]}
        }}}),
    );
    let c = codes(&r);
    assert!(
        c.contains(&"bidi_control")
            && c.contains(&"zero_width")
            && c.contains(&"hidden_unicode_tag"),
        "{c:?}"
    );
    assert!(
        r.findings
            .iter()
            .any(|f| f.path == "/params/requestedSchema/properties/c/enumNames/0")
    );
}
