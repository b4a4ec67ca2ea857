//! Properties of the terminal sanitizer, RFC 8785 canonical JSON and URL normalization
//! (issue 9 §2). The frame reader's (frames do not depend on read boundaries) is the
//! `frame_reader` fuzz target, replayed on stable by `fuzz/tests/replay.rs`. The HTML,
//! markdown and text sanitizers have theirs beside the code
//! (`src/sanitize/markup_tests.rs`, `src/sanitize/text.rs`), as does the canonical
//! hash's key-order and whitespace invariance (`src/pins/tests/props.rs`).

use bastion_core::json::parse_value;
use bastion_core::pins::canonical_json;
use bastion_core::sanitize::terminal::strip_terminal;
use bastion_core::url_gate::{UrlPolicy, assess};
use proptest::prelude::*;
use serde_json::Value;
use std::borrow::Cow;

/// `cases` unless `PROPTEST_CASES` asks for another count (for long local runs); no
/// regression files are written.
pub(crate) fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Terminal-hostile text: CSI, OSC (BEL- and ST-terminated), DCS, 8-bit C1 introducers,
/// lone controls, and ordinary text in several scripts.
fn terminal_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z0-9 .]{0,8}",
        1 => Just("\u{1b}[31m".to_owned()),
        1 => Just("\u{1b}[2J\u{1b}[H".to_owned()),
        1 => Just("\u{1b}]8;;https://evil.example/\u{7}label\u{1b}]8;;\u{7}".to_owned()),
        1 => Just("\u{1b}]52;c;cm0gLXJmIH4=\u{1b}\\".to_owned()),
        1 => Just("\u{1b}P1$r0m\u{1b}\\".to_owned()),
        1 => Just("\u{9b}31m\u{9d}0;title\u{9c}".to_owned()),
        1 => Just("\u{90}payload\u{9c}".to_owned()),
        1 => Just("\u{1b}".to_owned()),
        1 => Just("\u{1b}[".to_owned()),
        1 => prop::sample::select(vec!['\u{0}', '\u{7}', '\u{8}', '\u{b}', '\u{7f}', '\u{85}', '\u{9f}', '\t', '\n', '\r'])
            .prop_map(String::from),
        1 => Just("\u{645}\u{631}\u{62d}\u{628}\u{627} \u{4f60}\u{597d} \u{1f600}".to_owned()),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|p| p.concat())
}

fn url() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "https",
        "HTTPS",
        "http",
        "hTTp",
        "ftp",
        "javascript",
        "data",
    ]);
    let user = prop::sample::select(vec!["", "user@", "u:p@", "%40@"]);
    let host = prop::sample::select(vec![
        "example.com",
        "EXAMPLE.com.",
        "m\u{fc}nchen.example",
        "xn--mnchen-3ya.example",
        "\u{440}\u{430}\u{443}\u{440}\u{430}l.com",
        "127.0.0.1",
        "0x7f.1",
        "2130706433",
        "[::ffff:10.0.0.1]",
        "[0:0:0:0:0:0:0:1]",
        "localhost",
        "a.b.c.example.co.uk",
        "ex%41mple.com",
        "\u{ff45}xample.com",
        "",
    ]);
    let port = prop::sample::select(vec!["", ":443", ":80", ":8080", ":0"]);
    let path = "(/[a-zA-Z0-9%. \u{e9}\u{4e2d}-]{0,6}){0,4}";
    let query = prop::option::of("[a-z=&%+ \u{e9}]{0,12}");
    let fragment = prop::option::of("[a-z#?/ ]{0,6}");
    (scheme, user, host, port, path, query, fragment).prop_map(|(s, u, h, p, path, q, f)| {
        let mut out = format!("{s}://{u}{h}{p}{path}");
        if let Some(q) = q {
            out.push('?');
            out.push_str(&q);
        }
        if let Some(f) = f {
            out.push('#');
            out.push_str(&f);
        }
        out
    })
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,6})?([eE][+-]?[0-9]{1,2})?",
        "\"([a-z\\u{e9}\\u{1f600}\\u{2028}]|\\\\u00[01][0-9a-f]|\\\\[nrt\"/\\\\]){0,6}\"",
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5)
                .prop_map(|v| format!("[ {} ]", v.join(" ,\n"))),
            prop::collection::btree_map("[a-zA-Z\\u{e9}\\u{ff21}]{0,4}", inner, 0..5).prop_map(
                |m| {
                    let members: Vec<String> = m
                        .into_iter()
                        .map(|(k, v)| format!("{}\t:{v}", serde_json::to_string(&k).unwrap()))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }
            ),
        ]
    })
}

proptest! {
    #![proptest_config(config(1024))]

    /// Terminal stripping leaves no ESC, no C0 but TAB/LF/CR, no DEL or C1, and a second
    /// pass changes nothing (and borrows).
    #[test]
    fn terminal_strip_is_clean_and_idempotent(text in terminal_text()) {
        let once = strip_terminal(&text);
        for c in once.text.chars() {
            prop_assert!(c >= ' ' || matches!(c, '\t' | '\n' | '\r'), "C0 {:?} in {:?}", c, once.text);
            prop_assert!(!('\u{7f}'..='\u{9f}').contains(&c), "DEL/C1 {:?} in {:?}", c, once.text);
        }
        let twice = strip_terminal(&once.text);
        prop_assert!(matches!(twice.text, Cow::Borrowed(_)));
        prop_assert_eq!(twice.removed, 0);
        prop_assert_eq!(once.removed == 0, once.codes.is_empty());
    }

    /// RFC 8785 text is a fixed point: it parses strictly and canonicalizes to itself.
    #[test]
    fn canonical_json_is_a_fixed_point(text in json_text()) {
        // Names repeat at most up to case (allowed in data) and exponents stay below
        // 100, so every generated text is strict JSON.
        let v = parse_value(text.as_bytes(), 64).unwrap();
        let once = canonical_json(&v).unwrap();
        let again: Value = parse_value(once.as_bytes(), 64).unwrap();
        prop_assert_eq!(canonical_json(&again).unwrap(), once);
    }

    /// The normalized URL is a fixed point of the gate and names the same host, address
    /// and registrable domain as the original. The gate withholds a normalized form that
    /// reads differently when parsed again (a `file:` quirk of the URL parser); none of
    /// these schemes may ever need that, or the fixed-point check would pass vacuously.
    #[test]
    fn url_normalization_is_idempotent(raw in url()) {
        let policy = UrlPolicy::navigate();
        let first = assess(&raw, &policy, "/u");
        prop_assert!(
            !first.findings.iter().any(|f| f.message.contains("when parsed again")),
            "{:?}: {:?}", raw, first.findings
        );
        if let Some(norm) = &first.normalized {
            let second = assess(norm, &policy, "/u");
            prop_assert_eq!(second.normalized.as_ref(), Some(norm), "from {:?}", raw);
            prop_assert_eq!(&second.host_ascii, &first.host_ascii);
            prop_assert_eq!(&second.registrable_domain, &first.registrable_domain);
            prop_assert_eq!(second.ip, first.ip);
            prop_assert_eq!(second.address_class, first.address_class);
        }
    }
}
