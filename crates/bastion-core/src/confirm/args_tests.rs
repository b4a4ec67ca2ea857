//! Unit tests of `args.rs`.

use super::*;
use serde_json::json;

fn violated(rule: &ArgRule, args: &Value) -> bool {
    !rule.violations(args.as_object().unwrap()).is_empty()
}

#[test]
fn path_prefix_and_traversal_tricks() {
    let r = ArgRule::new("path", &["/home/me/project"], &[]).unwrap();
    for ok in [
        "/home/me/project",
        "/home/me/project/src/main.rs",
        "/home/me/project/./a//b",
        "/home/me/project/a/../b",
        "//home//me/project/x",
        "file:///home/me/project/readme.md",
        "/home/me/project/%41.txt",
    ] {
        assert!(!violated(&r, &json!({"path": ok})), "{ok}");
    }
    for bad in [
        "/home/me/project/../../etc/passwd",
        "/home/me/project-evil/x",
        "/home/me/projectx",
        "/home/me",
        "/etc/passwd",
        "project/file",
        "../project/file",
        "./x",
        "~/project",
        "C:\\Users\\me",
        "/home/me/project\\..\\..\\etc",
        "/home/me/project/%2e%2e/%2e%2e/etc",
        "/home/me/project/..%2F..%2Fetc",
        "file:///home/me/project/%2e%2e/%2e%2e/etc",
        "file://evil.example/home/me/project/x",
        "/home/me/project/x\u{0}",
        "/../../home/me/project-evil",
    ] {
        assert!(violated(&r, &json!({"path": bad})), "{bad}");
    }
    // "/.." at the root stays at the root.
    assert!(!violated(&r, &json!({"path": "/../home/me/project/x"})));
    // Arrays: every element checked; other types cannot be checked.
    assert!(!violated(
        &r,
        &json!({"path": ["/home/me/project/a", "/home/me/project/b"]})
    ));
    assert!(violated(
        &r,
        &json!({"path": ["/home/me/project/a", "/tmp/b"]})
    ));
    assert!(violated(&r, &json!({"path": 7})));
    assert!(violated(&r, &json!({"path": {"p": "/home/me/project"}})));
    // Absent: nothing sent, nothing to check.
    assert!(!violated(&r, &json!({"other": "/etc"})));
    // Root prefix accepts every absolute path.
    let root = ArgRule::new("path", &["/"], &[]).unwrap();
    assert!(!violated(&root, &json!({"path": "/etc"})));
}

/// Found by the `confirmation` fuzz target: a path whose fifth byte falls inside a
/// multi-byte character (here a tag character at bytes 3..7) panicked while testing for
/// a `file:` prefix. Such paths are judged like any other: outside the root, refused.
#[test]
fn multibyte_character_across_the_scheme_prefix_does_not_panic() {
    let r = ArgRule::new("path", &["/home/me/project"], &[]).unwrap();
    for bad in [
        "/ho\u{e0001}e/project/x",
        "fi\u{e9}:x/y",
        "file\u{2028}/home/me/project",
        "\u{4e2d}\u{6587}",
    ] {
        assert!(violated(&r, &json!({"path": bad})), "{bad:?}");
    }
    assert!(!violated(
        &r,
        &json!({"path": "/home/me/project/\u{e9}t\u{e9}.txt"})
    ));
}

#[test]
fn pointer_names_nested_arguments() {
    let r = ArgRule::new("/options/target", &["/srv/data"], &[]).unwrap();
    assert!(violated(&r, &json!({"options": {"target": "/srv/other"}})));
    assert!(!violated(
        &r,
        &json!({"options": {"target": "/srv/data/x"}})
    ));
    let v = r.violations(json!({"options": {"target": "/x"}}).as_object().unwrap());
    assert_eq!(v[0].pointer, "/options/target");
}

#[test]
fn hosts() {
    let r = ArgRule::new(
        "url",
        &[],
        &[
            "example.com",
            "*.docs.example.org",
            "127.0.0.1",
            "[::1]",
            "bücher.example",
        ],
    )
    .unwrap();
    for ok in [
        "https://example.com/a",
        "https://EXAMPLE.com./a",
        "http://example.com:8080",
        "https://api.docs.example.org/x",
        "http://127.0.0.1:3000/",
        "http://[::1]/",
        "https://xn--bcher-kva.example/",
        "https://bücher.example/",
    ] {
        assert!(!violated(&r, &json!({"url": ok})), "{ok}");
    }
    for bad in [
        "https://www.example.com/",
        "https://example.com.evil.example/",
        "https://evilexample.com/",
        "https://example.com@evil.example/",
        "https://evil.example\\@example.com/",
        "https://docs.example.org/",
        "https://xdocs.example.org/",
        "example.com/path",
        "mailto:a@example.com",
        "http://2130706434/",
        "http://0x7f.0.0.2/",
    ] {
        assert!(violated(&r, &json!({"url": bad})), "{bad}");
    }
    // 2130706433 is 127.0.0.1 in the URL Standard's IPv4 parser.
    let ip = ArgRule::new("url", &[], &["127.0.0.1"]).unwrap();
    assert!(!violated(&ip, &json!({"url": "http://2130706433/"})));
}

#[test]
fn rule_errors() {
    assert_eq!(ArgRule::new("", &["/a"], &[]), Err(ArgRuleError::EmptyName));
    assert!(matches!(
        ArgRule::new("p", &[], &[]),
        Err(ArgRuleError::NoConstraint(_))
    ));
    assert!(matches!(
        ArgRule::new("p", &["rel"], &[]),
        Err(ArgRuleError::RelativePrefix { .. })
    ));
    assert!(matches!(
        ArgRule::new("p", &[], &["exa mple.com"]),
        Err(ArgRuleError::BadHost { .. })
    ));
    let e = ArgRule::new("p", &["rel"], &[]).unwrap_err();
    assert!(e.to_string().contains("absolute path"), "{e}");
}
