//! Unit tests of [`super::decide`]: one rule per test, the status and the reason.

use super::*;
use crate::Limits;

const TOKEN: &str = "s3cr3t-T0ken_value";

fn policy() -> ListenerPolicy {
    ListenerPolicy::new(
        "127.0.0.1:8931".parse().unwrap(),
        token_digest(TOKEN),
        &Limits::default(),
    )
}

/// A clean POST's headers with `changes` applied (`None` value removes the field).
fn headers(changes: &[(&'static str, Option<&'static str>)]) -> Vec<(&'static str, Vec<u8>)> {
    let mut h: Vec<(&'static str, Vec<u8>)> = vec![
        ("Host", b"127.0.0.1:8931".to_vec()),
        ("Content-Type", b"application/json".to_vec()),
        ("Accept", b"application/json, text/event-stream".to_vec()),
        ("Authorization", format!("Bearer {TOKEN}").into_bytes()),
        ("Content-Length", b"2".to_vec()),
    ];
    for (name, value) in changes {
        h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            h.push((name, v.as_bytes().to_vec()));
        }
    }
    h
}

fn run(
    method: &str,
    target: &str,
    h: &[(&'static str, Vec<u8>)],
    body: BodySeen<'_>,
) -> HttpDecision {
    let lines: Vec<(&str, &[u8])> = h.iter().map(|(n, v)| (*n, v.as_slice())).collect();
    decide(
        &policy(),
        &HttpRequestView {
            method,
            target,
            headers: &lines,
            body,
        },
    )
}

fn status(d: &HttpDecision) -> Option<(u16, &'static str)> {
    d.refusal.map(|r| (r.status.code(), r.reason.as_str()))
}

#[test]
fn a_clean_post_passes_on_headers_and_body() {
    let h = headers(&[]);
    assert_eq!(status(&run("POST", "/mcp", &h, BodySeen::NotRead)), None);
    assert_eq!(
        status(&run("POST", "/mcp", &h, BodySeen::Complete(b"{}"))),
        None
    );
    let d = run("POST", "/mcp?x=1", &h, BodySeen::Prefix(b"{"));
    assert!(d.is_allowed() && d.verdict() == Verdict::Allow, "{d:?}");
}

#[test]
fn loopback_spellings_of_the_port_pass() {
    for host in [
        "localhost:8931",
        "[::1]:8931",
        "LOCALHOST:8931",
        "127.0.0.1:8931",
    ] {
        let h = headers(&[("Host", Some(host))]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            None,
            "{host}"
        );
    }
}

#[test]
fn foreign_hosts_are_refused() {
    for host in [
        "localhost.attacker.example:8931",
        "rebind.attacker.example:8931",
        "127.0.0.1:8932",
        "127.0.0.1",
        "[::1]:80",
        "0.0.0.0:8931",
    ] {
        let h = headers(&[("Host", Some(host))]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((403, "http_host_not_allowed")),
            "{host}"
        );
    }
    for host in [Some("user@127.0.0.1:8931"), Some(""), None] {
        let h = headers(&[("Host", host)]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((400, "http_host_not_allowed")),
            "{host:?}"
        );
    }
}

#[test]
fn origins_are_refused_unless_allowed() {
    // A rebound name on the listener's port, another local port, another scheme, opaque.
    for origin in [
        "https://evil.example",
        "http://evil.example:8931",
        "null",
        "http://127.0.0.1:8932",
        "https://127.0.0.1:8931",
        "http://localhost",
        "http://127.0.0.2:8931",
    ] {
        let h = headers(&[("Origin", Some(origin))]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((403, "http_origin_not_allowed")),
            "{origin}"
        );
    }
    // The listener's own loopback origins pass (any case of the name).
    for origin in [
        "http://127.0.0.1:8931",
        "http://LOCALHOST:8931",
        "http://[::1]:8931",
    ] {
        let h = headers(&[("Origin", Some(origin))]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            None,
            "{origin}"
        );
    }
    let p = policy().allow_origin("http://localhost:3000").unwrap();
    let h = headers(&[("Origin", Some("http://LOCALHOST:3000"))]);
    let lines: Vec<(&str, &[u8])> = h.iter().map(|(n, v)| (*n, v.as_slice())).collect();
    let view = HttpRequestView {
        method: "POST",
        target: "/mcp",
        headers: &lines,
        body: BodySeen::NotRead,
    };
    assert!(decide(&p, &view).is_allowed());
}

#[test]
fn csrf_shape_is_refused_on_both_counts() {
    let h = headers(&[
        ("Origin", Some("https://evil.example")),
        ("Content-Type", Some("text/plain")),
    ]);
    let d = run("POST", "/mcp", &h, BodySeen::NotRead);
    assert_eq!(status(&d), Some((403, "http_origin_not_allowed")));
    let codes: Vec<&str> = d.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["http_origin_not_allowed", "http_content_type"]);
}

#[test]
fn token_is_required_and_compared() {
    for auth in [
        None,
        Some("Bearer wrong-token"),
        Some("Basic czNjcjN0"),
        Some("Bearer"),
        Some("Bearer s3cr3t-T0ken_valu"),
    ] {
        let h = headers(&[("Authorization", auth)]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((401, "http_unauthorized")),
            "{auth:?}"
        );
    }
    let h = headers(&[("Authorization", Some("bearer s3cr3t-T0ken_value"))]);
    assert!(run("POST", "/mcp", &h, BodySeen::NotRead).is_allowed());
    let d = run(
        "POST",
        "/mcp",
        &headers(&[("Authorization", Some("Bearer nope"))]),
        BodySeen::NotRead,
    );
    assert!(!format!("{d:?}").contains(TOKEN));
}

#[test]
fn path_and_method() {
    let h = headers(&[]);
    for target in [
        "/",
        "/mcp/",
        "/MCP",
        "//evil.example/mcp",
        "http://x/mcp",
        "/mcpx",
    ] {
        assert_eq!(
            status(&run("POST", target, &h, BodySeen::NotRead)),
            Some((404, "http_not_found")),
            "{target}"
        );
    }
    for method in ["PUT", "PATCH", "OPTIONS", "HEAD", "post", "TRACE"] {
        assert_eq!(
            status(&run(method, "/mcp", &h, BodySeen::NotRead)),
            Some((405, "http_method")),
            "{method}"
        );
    }
    let get = headers(&[
        ("Accept", Some("text/event-stream")),
        ("Content-Length", None),
        ("Content-Type", None),
    ]);
    assert!(run("GET", "/mcp", &get, BodySeen::NotRead).is_allowed());
    assert!(run("DELETE", "/mcp", &get, BodySeen::NotRead).is_allowed());
    let get_json = headers(&[
        ("Accept", Some("application/json")),
        ("Content-Length", None),
    ]);
    assert_eq!(
        status(&run("GET", "/mcp", &get_json, BodySeen::NotRead)),
        Some((406, "http_accept"))
    );
}

#[test]
fn size_is_refused_before_the_body_and_on_the_prefix() {
    let big = headers(&[("Content-Length", Some("4294967296"))]);
    let d = run("POST", "/mcp", &big, BodySeen::NotRead);
    assert_eq!(status(&d), Some((413, "http_body_too_large")));
    let chunked = headers(&[
        ("Content-Length", None),
        ("Transfer-Encoding", Some("chunked")),
    ]);
    assert!(run("POST", "/mcp", &chunked, BodySeen::NotRead).is_allowed());
    let prefix = vec![b'A'; 1024 * 1024 + 1];
    assert_eq!(
        status(&run("POST", "/mcp", &chunked, BodySeen::Prefix(&prefix))),
        Some((413, "http_body_too_large"))
    );
    assert!(
        run(
            "POST",
            "/mcp",
            &chunked,
            BodySeen::Prefix(&prefix[..1024 * 1024])
        )
        .is_allowed()
    );
    // Exactly at the cap passes.
    let at = headers(&[("Content-Length", Some("1048576"))]);
    assert!(run("POST", "/mcp", &at, BodySeen::NotRead).is_allowed());
}

#[test]
fn framing_is_unambiguous() {
    for (changes, want) in [
        (
            vec![("Content-Length", None)],
            (411, "http_length_required"),
        ),
        (
            vec![("Content-Length", Some("12, 12"))],
            (400, "http_malformed_header"),
        ),
        (
            vec![("Content-Length", Some("+2"))],
            (400, "http_malformed_header"),
        ),
        (
            vec![("Transfer-Encoding", Some("chunked"))],
            (400, "http_malformed_header"),
        ),
        (
            vec![
                ("Content-Length", None),
                ("Transfer-Encoding", Some("gzip, chunked")),
            ],
            (400, "http_malformed_header"),
        ),
    ] {
        let h = headers(&changes);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some(want),
            "{changes:?}"
        );
    }
    let mut dup = headers(&[]);
    dup.push(("content-length", b"200".to_vec()));
    let d = run("POST", "/mcp", &dup, BodySeen::NotRead);
    assert_eq!(status(&d), Some((400, "http_duplicate_header")));
    let h = headers(&[]);
    assert_eq!(
        status(&run("POST", "/mcp", &h, BodySeen::Complete(b"{}  "))),
        Some((400, "http_malformed_header"))
    );
    assert_eq!(
        status(&run("POST", "/mcp", &h, BodySeen::Complete(b"{"))),
        Some((400, "http_malformed_header"))
    );
}

#[test]
fn media_types() {
    for ct in [
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/json;charset=\"UTF-8\"",
    ] {
        let h = headers(&[("Content-Type", Some(ct))]);
        assert!(
            run("POST", "/mcp", &h, BodySeen::NotRead).is_allowed(),
            "{ct}"
        );
    }
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/json; charset=iso-8859-1"),
        Some("application/json-seq"),
        Some("application/jsonx"),
        None,
    ] {
        let h = headers(&[("Content-Type", ct)]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((415, "http_content_type")),
            "{ct:?}"
        );
    }
    for accept in [
        Some("application/json"),
        Some("text/event-stream"),
        None,
        Some("text/event-stream, application/json;q=0"),
    ] {
        let h = headers(&[("Accept", accept)]);
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((406, "http_accept")),
            "{accept:?}"
        );
    }
    let h = headers(&[("Accept", Some("*/*"))]);
    assert!(run("POST", "/mcp", &h, BodySeen::NotRead).is_allowed());
}

#[test]
fn protocol_version_header_agrees_with_the_body() {
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let len = body.len().to_string().leak() as &'static str;
    let ok = headers(&[
        ("Content-Length", Some(len)),
        ("MCP-Protocol-Version", Some("2026-07-28")),
        ("Mcp-Method", Some("tools/call")),
        ("Mcp-Name", Some("echo")),
    ]);
    assert!(run("POST", "/mcp", &ok, BodySeen::Complete(body)).is_allowed());
    for (changes, want) in [
        (
            vec![("MCP-Protocol-Version", Some("2025-11-25"))],
            "http_protocol_version_mismatch",
        ),
        (
            vec![("MCP-Protocol-Version", None)],
            "http_protocol_version_mismatch",
        ),
        (
            vec![("MCP-Protocol-Version", Some("1900-01-01"))],
            "http_protocol_version_mismatch",
        ),
        (
            vec![("Mcp-Method", Some("tools/list"))],
            "http_header_mismatch",
        ),
        (
            vec![("Mcp-Name", Some("delete_all"))],
            "http_header_mismatch",
        ),
    ] {
        let mut h = ok.clone();
        for (name, value) in changes.clone() {
            h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            if let Some(v) = value {
                h.push((name, v.as_bytes().to_vec()));
            }
        }
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::Complete(body))),
            Some((400, want)),
            "{changes:?}"
        );
    }
    // An unsupported header value is refused on the headers alone.
    let h = headers(&[("MCP-Protocol-Version", Some("not-a-version"))]);
    assert_eq!(
        status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
        Some((400, "http_protocol_version_mismatch"))
    );
    // So is one that is not text (obs-text, a control): present, so not the default of
    // an absent header either.
    for bad in [&b"2025-11-25\xe9"[..], b"\xff", b"2025-11-25\x01"] {
        let mut h = headers(&[]);
        h.push(("MCP-Protocol-Version", bad.to_vec()));
        assert_eq!(
            status(&run("POST", "/mcp", &h, BodySeen::NotRead)),
            Some((400, "http_protocol_version_mismatch")),
            "{bad:?}"
        );
    }
}

#[test]
fn statuses_have_phrases() {
    assert_eq!(RefusalStatus::PayloadTooLarge.code(), 413);
    assert_eq!(RefusalStatus::Forbidden.reason_phrase(), "Forbidden");
    assert_eq!(RefusalStatus::LengthRequired.code(), 411);
}

proptest::proptest! {
    /// Any request line, field lines and body: no panic, and a refusal exactly when
    /// there are findings, whose first code is the reason.
    #[test]
    fn decide_is_total(
        method in "[A-Za-z]{0,8}",
        target in "[ -~]{0,24}",
        lines in proptest::collection::vec(("[A-Za-z-]{1,20}", proptest::collection::vec(proptest::num::u8::ANY, 0..40)), 0..8),
        body in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        complete in proptest::bool::ANY,
    ) {
        let headers: Vec<(&str, &[u8])> = lines.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
        let body = if complete { BodySeen::Complete(&body) } else { BodySeen::Prefix(&body) };
        let d = decide(&policy(), &HttpRequestView { method: &method, target: &target, headers: &headers, body });
        proptest::prop_assert_eq!(d.refusal.is_some(), !d.findings.is_empty());
        if let Some(r) = d.refusal {
            proptest::prop_assert_eq!(r.reason, d.findings[0].code);
        }
    }
}

/// Bodies for the `decide_body` equivalence: messages that agree or disagree with the
/// mirrored headers, pretty-printed, invalid, empty.
const BODIES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
    "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}",
    r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x"}}"#,
    r#"{"a":1,"a":2}"#,
    "[1,2]",
    "not json",
    "",
];

proptest::proptest! {
    /// For a request whose headers `decide` allowed, `decide_body` on any body seen so
    /// far gives exactly what `decide` gives, with or without the caller's parse.
    #[test]
    fn decide_body_equals_decide_once_the_headers_passed(
        version in proptest::option::of(proptest::sample::select(vec!["2025-11-25", "2026-07-28", "2025-06-18", "1999-01-01"])),
        method_header in proptest::option::of(proptest::sample::select(vec!["tools/call", "tools/list", "initialize"])),
        name_header in proptest::option::of(proptest::sample::select(vec!["echo", "file:///x", "other"])),
        length in proptest::option::of(0usize..300),
        chunked in proptest::bool::ANY,
        body_index in 0..BODIES.len(),
        cut in 0usize..300,
        complete in proptest::bool::ANY,
    ) {
        let full = BODIES[body_index].as_bytes();
        let body_bytes = if complete { full } else { &full[..cut.min(full.len())] };
        let length_text = length.map(|n| n.to_string());
        let mut lines: Vec<(&str, Vec<u8>)> = headers(&[("Content-Length", None)]);
        if let Some(n) = &length_text {
            lines.push(("Content-Length", n.clone().into_bytes()));
        }
        if chunked {
            lines.push(("Transfer-Encoding", b"chunked".to_vec()));
        }
        for (name, value) in [("MCP-Protocol-Version", version), ("Mcp-Method", method_header), ("Mcp-Name", name_header)] {
            if let Some(v) = value {
                lines.push((name, v.as_bytes().to_vec()));
            }
        }
        let headers_only: Vec<(&str, &[u8])> = lines.iter().map(|(n, v)| (*n, v.as_slice())).collect();
        let view = |body| HttpRequestView { method: "POST", target: "/mcp", headers: &headers_only, body };
        let p = policy();
        if decide(&p, &view(BodySeen::NotRead)).is_allowed() {
            let seen = if complete { BodySeen::Complete(body_bytes) } else { BodySeen::Prefix(body_bytes) };
            let whole = decide(&p, &view(seen));
            let part = decide_body(&p, &view(seen), None);
            proptest::prop_assert_eq!(&whole.findings, &part.findings);
            proptest::prop_assert_eq!(whole.refusal, part.refusal);
            if complete && let Ok(map) = crate::json::parse_frame(body_bytes, Limits::default().max_depth) {
                let reused = decide_body(&p, &view(seen), Some(&map));
                proptest::prop_assert_eq!(&whole.findings, &reused.findings);
            }
        }
    }
}

#[test]
fn exact_serializations_of_allowed_hosts_and_origins_pass_and_near_misses_are_parsed() {
    for (host, origin, ok) in [
        ("127.0.0.1:8931", Some("http://127.0.0.1:8931"), true),
        ("[::1]:8931", Some("http://[::1]:8931"), true),
        ("LocalHost:8931", Some("HTTP://LOCALHOST:8931"), true),
        ("127.0.0.1:08931", None, true),
        ("127.0.0.1:8931.", None, false),
        ("127.0.0.1", None, false),
        ("127.0.0.1:8931", Some("http://127.0.0.1:8931/"), true),
        ("127.0.0.1:8931", Some("http://127.0.0.1:89310"), false),
    ] {
        let mut h = headers(&[("Host", None)]);
        h.push(("Host", host.as_bytes().to_vec()));
        if let Some(o) = origin {
            h.push(("Origin", o.as_bytes().to_vec()));
        }
        let d = run("POST", "/mcp", &h, BodySeen::NotRead);
        assert_eq!(d.is_allowed(), ok, "{host} {origin:?}: {:?}", d.findings);
    }
}
