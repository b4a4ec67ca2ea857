use super::*;
use serde_json::json;
use std::fmt::Write as _;

fn err(text: &str) -> Rejected {
    parse_frame(text.as_bytes(), 64).expect_err(text)
}

#[test]
fn accepts_plain_request() {
    let map = parse_frame(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 64).unwrap();
    assert_eq!(map["method"], json!("ping"));
    assert_eq!(map.keys().collect::<Vec<_>>(), ["jsonrpc", "id", "method"]);
}

#[test]
fn accepts_non_ascii_values_and_case_distinct_data_keys() {
    let map = parse_frame(
        "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"Name\":\"\u{6771}\u{4eac}\",\"Stra\u{df}e\":1}}}"
            .as_bytes(),
        64,
    )
    .unwrap();
    assert_eq!(
        map["params"]["arguments"]["Name"],
        json!("\u{6771}\u{4eac}")
    );
}

#[test]
fn exact_duplicate_anywhere() {
    let r = err(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"b":1,"b":2}}}"#);
    assert_eq!(r.error.code(), Code::DuplicateKey);
    assert_eq!(r.error.path(), "/params/a");
    assert_eq!(r.id, Some(json!(1)));
}

#[test]
fn case_variant_duplicate() {
    let r = err(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"a","Name":"b"}}"#);
    assert_eq!(r.error.code(), Code::DuplicateKey);
    let r = err(r#"{"jsonrpc":"2.0","id":1,"Id":2,"method":"x"}"#);
    assert_eq!(r.error.code(), Code::DuplicateKey);
}

#[test]
fn case_variant_duplicate_in_small_and_large_protocol_objects() {
    // `params` with `before` distinct names, then `name` and a case variant of it: the
    // duplicate is found whether the object is still scanned name by name (fewer than 8
    // members) or indexed, and whichever spelling comes first.
    for before in [0, 1, 6, 7, 8, 9, 30] {
        for (first, second) in [("name", "Name"), ("Name", "name"), ("nAme", "NAME")] {
            let mut params = String::new();
            for i in 0..before {
                let _ = write!(params, "\"m{i}\":{i},");
            }
            let _ = write!(params, "\"{first}\":1,");
            for i in 0..before {
                let _ = write!(params, "\"k{i}\":{i},");
            }
            let _ = write!(params, "\"{second}\":2");
            let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{{params}}}}}"#);
            let r = err(&text);
            assert_eq!(r.error.code(), Code::DuplicateKey, "{text}");
            assert_eq!(r.error.path(), "/params", "{text}");
            let shown = r.error.to_string();
            assert!(shown.contains(&format!("\"{first}\"")), "{shown}");
            // Distinct names of the same length pass.
            let fine = text.replace(&format!("\"{second}\""), "\"xyzw\"");
            assert!(parse_frame(fine.as_bytes(), 64).is_ok(), "{fine}");
        }
    }
}

#[test]
fn fold_duplicates_between_ascii_and_non_ascii_names() {
    // A non-ASCII name that folds onto an earlier ASCII one (fullwidth `ｆｏｏ` onto
    // `Foo`) and an ASCII name after a non-ASCII one folding onto it, in `result`.
    for members in [
        "\"Foo\":1,\"\u{ff46}\u{ff4f}\u{ff4f}\":2",
        "\"\u{ff46}\u{ff4f}\u{ff4f}\":1,\"FOO\":2",
        "\"a\":0,\"\u{ff46}\u{ff4f}\u{ff4f}\":1,\"b\":0,\"foo\":2",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{{members}}}}}"#);
        let r = err(&text);
        assert_eq!(r.error.code(), Code::DuplicateKey, "{text}");
        assert_eq!(r.error.path(), "/result", "{text}");
    }
}

#[test]
fn case_distinct_data_keys_are_data() {
    // Deeper than params/result, data may hold keys that differ only by case or folding
    // (a case-sensitive schema with `id` and `ID`, German `Maße` and `Masse`).
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"Path":"a","path":"b"}}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"structuredContent\":{\"Ma\u{df}e\":1,\"Masse\":2}}}",
        r#"{"jsonrpc":"2.0","id":1,"method":"acme/lookup","params":{"ID":7,"URL":"u","Data":{}}}"#,
    ] {
        assert!(parse_frame(text.as_bytes(), 64).is_ok(), "{text}");
    }
}

#[test]
fn case_variant_protocol_member_alone() {
    assert_eq!(
        err(r#"{"jsonrpc":"2.0","id":1,"Method":"x"}"#).error.code(),
        Code::ConfusableMember
    );
    assert_eq!(
        err(r#"{"jsonrpc":"2.0","id":1,"method":"x","PARAMS":{}}"#)
            .error
            .code(),
        Code::ConfusableMember
    );
    assert_eq!(
        err(r#"{"jsonrpc":"2.0","ID":1,"method":"x"}"#).error.code(),
        Code::ConfusableMember
    );
}

#[test]
fn control_characters_in_member_names() {
    let r = err(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name\u0000":"evil","name":"echo"}}"#,
    );
    assert_eq!(r.error.code(), Code::ConfusableMember);
    assert_eq!(r.error.path(), "/params");
    assert!(r.method_seen);
    let r = err(
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a\u001bb":1}}}"#,
    );
    assert_eq!(r.error.code(), Code::ConfusableMember);
    assert!(!r.method_seen);
}

#[test]
fn unicode_fold_look_alikes() {
    let r = err("{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"param\u{17f}\":{}}");
    assert_eq!(r.error.code(), Code::ConfusableMember);
    assert_eq!(r.id, Some(json!(14)));
    let r = err(
        "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"\u{212a}ind\":\"x\"}}",
    );
    assert_eq!(r.error.code(), Code::ConfusableMember);
    assert_eq!(r.error.path(), "/params");
    // Deep in data, a non-ASCII look-alike of a protocol member is refused too.
    let r = err(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"arguments\":{\"\u{ff4e}ame\":1}}}",
    );
    assert_eq!(r.error.code(), Code::ConfusableMember);
}

#[test]
fn depth_limit_counts_top_level_as_one() {
    let mut ok = String::from(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":"#);
    // envelope (1), params object (2), 62 more objects (3..=64), then `{}` at 65
    for _ in 0..63 {
        ok.push_str(r#"{"a":"#);
    }
    ok.push_str("{}");
    for _ in 0..63 {
        ok.push('}');
    }
    ok.push('}');
    assert!(parse_frame(ok.as_bytes(), 64).is_err());
    assert!(parse_frame(ok.as_bytes(), 65).is_ok());
    let deep = format!(
        "{}{}{}",
        r#"{"jsonrpc":"2.0","id":9,"method":"x","params":"#,
        "[".repeat(5000),
        "]".repeat(5000) + "}"
    );
    let r = parse_frame(deep.as_bytes(), 64).unwrap_err();
    assert_eq!(r.error.code(), Code::MaxDepthExceeded);
    assert_eq!(r.id, Some(json!(9)));
}

#[test]
fn depth_beyond_serde_recursion_limit_still_typed() {
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    assert_eq!(
        parse_value(deep.as_bytes(), 64).unwrap_err().code(),
        Code::MaxDepthExceeded
    );
    assert_eq!(
        parse_value(deep.as_bytes(), 100_000).unwrap_err().code(),
        Code::MaxDepthExceeded
    );
}

#[test]
fn utf8_surrogates_trailing() {
    assert_eq!(
        parse_frame(b"{\"a\":\"\xff\"}", 64)
            .unwrap_err()
            .error
            .code(),
        Code::InvalidUtf8
    );
    assert_eq!(
        err(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"\ud800"}}"#)
            .error
            .code(),
        Code::InvalidSurrogate
    );
    assert_eq!(
        err(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"\udc00x"}}"#)
            .error
            .code(),
        Code::InvalidSurrogate
    );
    // A correctly paired surrogate is fine.
    assert!(
        parse_frame(
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"\ud83d\ude00"}}"#,
            64
        )
        .is_ok()
    );
    assert_eq!(
        err("{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"tools/list\"}\u{0}{}")
            .error
            .code(),
        Code::TrailingData
    );
    assert_eq!(err("{} {}").error.code(), Code::TrailingData);
    assert_eq!(err("{\"a\":").error.code(), Code::InvalidJson);
    assert_eq!(err("hello").error.code(), Code::InvalidJson);
}

#[test]
fn batches_and_non_objects() {
    assert_eq!(
        err(r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#)
            .error
            .code(),
        Code::BatchNotSupported
    );
    assert_eq!(err("42").error.code(), Code::NotAnObject);
    assert_eq!(err("\"x\"").error.code(), Code::NotAnObject);
    assert_eq!(err("null").error.code(), Code::NotAnObject);
}

#[test]
fn plain_values_allow_case_distinct_keys() {
    let v = parse_value(br#"{"Name":1,"name":2}"#, 64).unwrap();
    assert_eq!(v["Name"], json!(1));
    assert_eq!(
        parse_value(br#"{"a":1,"a":2}"#, 64).unwrap_err().code(),
        Code::DuplicateKey
    );
}

#[test]
fn display_messages_are_actionable() {
    let r = err(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"a","Name":"b"}}"#);
    assert_eq!(
        r.error.to_string(),
        "object at '/params' has member names \"name\" and \"Name\" that differ only by case"
    );
    assert_eq!(
        ParseError::MaxDepth { limit: 64 }.to_string(),
        "JSON nesting is deeper than the limit of 64"
    );
}

#[test]
fn the_id_after_a_refused_member_name_is_still_recovered() {
    for (text, id, method) in [
        (
            r#"{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":7}"#,
            Some(json!(7)),
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","Result":{},"result":{},"id":"x"}"#,
            Some(json!("x")),
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"a","text":"b"}]},"id":9}"#,
            Some(json!(9)),
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","params":{"n":1,"N":2},"method":"x","id":4}"#,
            Some(json!(4)),
            true,
        ),
        // Two ids, or an id that is no id: nothing to answer.
        (
            r#"{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":7,"id":8}"#,
            None,
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":{"x":1}}"#,
            None,
            false,
        ),
        // Not well-formed after the refused name: nothing more is read.
        (
            r#"{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":7"#,
            None,
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":7} {}"#,
            None,
            false,
        ),
    ] {
        let r = err(text);
        assert!(
            matches!(r.error.code(), Code::DuplicateKey | Code::ConfusableMember),
            "{text}: {:?}",
            r.error
        );
        assert_eq!(r.id, id, "{text}");
        assert_eq!(r.method_seen, method, "{text}");
    }
    // An id read before the failure is the one kept.
    let r = err(r#"{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2},"id":2}"#);
    assert_eq!(r.id, Some(json!(1)));
    // Other failures are not read further (a frame too deep, not UTF-8, truncated).
    let deep = format!(
        r#"{{"jsonrpc":"2.0","result":{}1{},"id":3}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    assert_eq!(err(&deep).id, None);
}
