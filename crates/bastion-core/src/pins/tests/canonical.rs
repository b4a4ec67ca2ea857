//! RFC 8785 test vectors and the canonical hash.

use crate::pins::{
    CanonicalError, MAX_CANONICAL_DEPTH, canonical_json, descriptor_hash, sha256_hex,
};
use serde_json::{Value, json};

fn canon(text: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap();
    canonical_json(&v).unwrap()
}

/// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical number text.
#[test]
fn rfc8785_appendix_b_numbers() {
    let vectors: &[(u64, &str)] = &[
        (0x0000_0000_0000_0000, "0"),
        (0x8000_0000_0000_0000, "0"),
        (0x0000_0000_0000_0001, "5e-324"),
        (0x8000_0000_0000_0001, "-5e-324"),
        (0x7fef_ffff_ffff_ffff, "1.7976931348623157e+308"),
        (0xffef_ffff_ffff_ffff, "-1.7976931348623157e+308"),
        (0x4340_0000_0000_0000, "9007199254740992"),
        (0xc340_0000_0000_0000, "-9007199254740992"),
        (0x4430_0000_0000_0000, "295147905179352830000"),
        (0x44b5_2d02_c7e1_4af5, "9.999999999999997e+22"),
        (0x44b5_2d02_c7e1_4af6, "1e+23"),
        (0x44b5_2d02_c7e1_4af7, "1.0000000000000001e+23"),
        (0x444b_1ae4_d6e2_ef4e, "999999999999999700000"),
        (0x444b_1ae4_d6e2_ef4f, "999999999999999900000"),
        (0x444b_1ae4_d6e2_ef50, "1e+21"),
        (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"),
        (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
        (0x41b3_de43_5555_5553, "333333333.3333332"),
        (0x41b3_de43_5555_5554, "333333333.33333325"),
        (0x41b3_de43_5555_5555, "333333333.3333333"),
        (0x41b3_de43_5555_5556, "333333333.3333334"),
        (0x41b3_de43_5555_5557, "333333333.33333343"),
        (0xbecb_f647_612f_3696, "-0.0000033333333333333333"),
        // Round to even.
        (0x4314_3ff3_c1cb_0959, "1424953923781206.2"),
    ];
    for (bits, want) in vectors {
        let v = Value::from(f64::from_bits(*bits));
        assert_eq!(canonical_json(&v).unwrap(), *want, "{bits:#018x}");
    }
    // NaN and Infinity (also in Appendix B) cannot be a serde_json::Value at all.
    assert!(serde_json::Number::from_f64(f64::NAN).is_none());
    assert!(serde_json::Number::from_f64(f64::INFINITY).is_none());
}

/// Number texts as they appear in JSON input (RFC 8785 §3.2.2.3 and Appendix B).
#[test]
fn number_texts() {
    for (text, want) in [
        ("1e+30", "1e+30"),
        ("1E30", "1e+30"),
        ("4.50", "4.5"),
        ("2e-3", "0.002"),
        ("0.000001", "0.000001"),
        ("1e-7", "1e-7"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("0.000000000000000000000000001", "1e-27"),
        ("333333333.33333329", "333333333.3333333"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("100", "100"),
        ("1.0", "1"),
        ("-1.5E-7", "-1.5e-7"),
        // Beyond 2^53 integers are IEEE doubles too (I-JSON, RFC 7493 §2.2).
        ("9007199254740993", "9007199254740992"),
        ("18446744073709551615", "18446744073709552000"),
    ] {
        assert_eq!(canon(text), want, "{text}");
    }
}

/// RFC 8785 §3.2.2 example (also cyberphone testdata `values.json`).
#[test]
fn rfc8785_section_3_2_2_example() {
    let input = r#"{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }"#;
    assert_eq!(
        canon(input),
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\
         \"string\":\"\u{20ac}$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
    );
}

/// RFC 8785 §3.2.3: members sorted by UTF-16 code units, not code points or locale.
#[test]
fn rfc8785_section_3_2_3_sorting() {
    let input = r#"{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }"#;
    let want = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\
        \"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\
        \"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}";
    assert_eq!(canon(input), want);
    // U+1F600 (D83D DE00) sorts before U+FB33 in UTF-16 though after it in code points.
    let text = canon(input);
    assert!(text.find('\u{1f600}').unwrap() < text.find('\u{fb33}').unwrap());
}

/// The reference implementation's test data (cyberphone/json-canonicalization `testdata`).
#[test]
fn reference_testdata() {
    let cases = [
        (
            r#"[56, {"d": true, "10": null, "1": [ ]}]"#,
            r#"[56,{"1":[],"10":null,"d":true}]"#.to_owned(),
        ),
        (
            r#"{"peach": "a", "p\u00e9ch\u00e9": "b", "p\u00eache": "c", "sin": "d"}"#,
            "{\"peach\":\"a\",\"p\u{e9}ch\u{e9}\":\"b\",\"p\u{ea}che\":\"c\",\"sin\":\"d\"}".to_owned(),
        ),
        (
            r#"{"1": {"f": {"f": "hi","F": 5} ,"\n": 56.0}, "10": { }, "": "empty", "a": { },
                "111": [ {"e": "yes","E": "no" } ], "A": { }}"#,
            r#"{"":"empty","1":{"\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}"#.to_owned(),
        ),
        // No Unicode normalization: A + COMBINING RING stays two code points.
        (
            r#"{"Unnormalized Unicode":"A\u030a"}"#,
            "{\"Unnormalized Unicode\":\"A\u{30a}\"}".to_owned(),
        ),
        (
            r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\u000a": "Newline", "1": "One",
                "\u0080": "Control\u007f", "\ud83d\ude02": "Smiley",
                "\u00f6": "Latin Small Letter O With Diaeresis",
                "\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"}"#,
            "{\"\\n\":\"Newline\",\"\\r\":\"Carriage Return\",\"1\":\"One\",\
             \"</script>\":\"Browser Challenge\",\"\u{80}\":\"Control\u{7f}\",\
             \"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\
             \"\u{1f602}\":\"Smiley\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}"
                .to_owned(),
        ),
    ];
    for (input, want) in cases {
        assert_eq!(canon(input), want, "{input}");
    }
}

/// RFC 8785 §3.2.2.2: only `"`, `\` and C0 controls are escaped, with the short forms
/// where JSON has them and lowercase `\u00xx` otherwise; `/`, DEL and non-ASCII are not.
#[test]
fn string_escapes() {
    let v = json!("\u{0}\u{8}\t\n\u{c}\r\u{1f}\"\\/\u{7f}\u{2028}\u{202e}");
    assert_eq!(
        canonical_json(&v).unwrap(),
        "\"\\u0000\\b\\t\\n\\f\\r\\u001f\\\"\\\\/\u{7f}\u{2028}\u{202e}\""
    );
}

#[test]
fn descriptor_hash_is_sha256_of_canonical_text() {
    let v = json!({"name": "t", "description": "d"});
    assert_eq!(
        canonical_json(&v).unwrap(),
        r#"{"description":"d","name":"t"}"#
    );
    assert_eq!(
        descriptor_hash(&v).unwrap(),
        sha256_hex(br#"{"description":"d","name":"t"}"#)
    );
    // Known SHA-256 of the empty string, lowercase hex.
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    let h = descriptor_hash(&v).unwrap();
    assert_eq!(h.len(), 64);
    assert!(
        h.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
}

#[test]
fn every_member_counts() {
    let base = json!({
        "name": "get_invoice",
        "title": "Invoice",
        "description": "Fetches an invoice by id.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true},
        "icons": [{"src": "https://example.com/i.png"}],
        "_meta": {"example.com/x": 1}
    });
    let h = descriptor_hash(&base).unwrap();
    for member in [
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "_meta",
    ] {
        let mut v = base.clone();
        v.as_object_mut().unwrap().remove(member);
        assert_ne!(descriptor_hash(&v).unwrap(), h, "{member}");
    }
    // Numerically equal spellings hash alike.
    let a = json!({"maximum": 1});
    let b: Value = serde_json::from_str(r#"{"maximum": 1.0e0}"#).unwrap();
    assert_eq!(descriptor_hash(&a).unwrap(), descriptor_hash(&b).unwrap());
}

#[test]
fn too_deep_is_a_typed_error() {
    let mut v = json!(1);
    for _ in 0..=MAX_CANONICAL_DEPTH {
        v = json!([v]);
    }
    let err = canonical_json(&v).unwrap_err();
    assert!(matches!(err, CanonicalError::TooDeep { limit, .. } if limit == MAX_CANONICAL_DEPTH));
    assert!(err.to_string().contains("256 levels"), "{err}");
    let mut ok = json!(1);
    for _ in 0..MAX_CANONICAL_DEPTH {
        ok = json!({"a": ok});
    }
    assert!(canonical_json(&ok).is_ok());
}

#[test]
fn error_display() {
    let e = CanonicalError::NonFiniteNumber {
        path: "/a/0".into(),
    };
    assert_eq!(
        e.to_string(),
        "number at `/a/0` is not finite; RFC 8785 canonical JSON has no NaN or Infinity"
    );
    let e = CanonicalError::Serializer("duplicate object key".into());
    assert_eq!(
        e.to_string(),
        "value cannot be canonicalized (RFC 8785): duplicate object key"
    );
}
