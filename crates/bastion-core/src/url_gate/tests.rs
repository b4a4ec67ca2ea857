//! Unit tests of the URL gate over hand-picked inputs (fixtures cover the corpus).

use super::*;
use crate::finding::Code;

fn codes(raw: &str, policy: &UrlPolicy) -> (Verdict, Vec<Code>) {
    let a = assess(raw, policy, "/url");
    (a.verdict, a.findings.iter().map(|f| f.code).collect())
}

#[test]
fn numeric_ipv4_spellings_are_normalized_then_classified() {
    for raw in [
        "https://2130706433/",
        "https://0177.0.0.1/",
        "https://017700000001/",
        "https://0x7f.1/",
        "https://127.1/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
    ] {
        let a = assess(raw, &UrlPolicy::default(), "/url");
        assert_eq!(a.address_class, Some(AddressClass::Loopback), "{raw}");
        assert_eq!(a.verdict, Verdict::Block, "{raw}");
    }
    let a = assess("https://0xA9FEA9FE/x", &UrlPolicy::default(), "/url");
    assert_eq!(a.normalized.as_deref(), Some("https://169.254.169.254/x"));
    assert_eq!(a.address_class, Some(AddressClass::LinkLocal));
}

#[test]
fn navigation_warns_where_fetch_refuses() {
    let (v, c) = codes("https://192.168.1.20/setup", &UrlPolicy::navigate());
    assert_eq!(v, Verdict::Flag);
    assert!(c.contains(&Code::PrivateAddress) && c.contains(&Code::UrlIpLiteral));
    let (v, _) = codes("https://192.168.1.20/setup", &UrlPolicy::default());
    assert_eq!(v, Verdict::Block);
}

#[test]
fn loopback_http_only_when_allowed() {
    let (v, c) = codes("http://127.0.0.1:33418/callback", &UrlPolicy::navigate());
    assert_eq!(v, Verdict::Block);
    assert!(c.contains(&Code::UrlSchemeNotAllowed));
    let p = UrlPolicy::navigate().with_loopback_http(true);
    let (v, c) = codes("http://127.0.0.1:33418/callback", &p);
    assert_eq!(v, Verdict::Flag, "{c:?}");
    let (v, _) = codes("http://localhost:8080/", &p);
    assert_eq!(v, Verdict::Flag);
    // Not loopback: still refused.
    let (v, _) = codes("http://10.0.0.1/", &p);
    assert_eq!(v, Verdict::Block);
    let (v, _) = codes("http://example.com/", &p);
    assert_eq!(v, Verdict::Block);
    // The refusal points at the setting only where the setting would help.
    let message = |raw: &str| {
        assess(raw, &UrlPolicy::default(), "/url")
            .findings
            .iter()
            .find(|f| f.code == Code::UrlSchemeNotAllowed)
            .map(|f| f.message.clone())
            .unwrap_or_default()
    };
    assert!(message("http://127.0.0.1:8080/").contains("allow_loopback_http"));
    for raw in ["http://169.254.169.254/latest", "http://example.com/"] {
        let m = message(raw);
        assert!(m.contains("only to a loopback host"), "{raw}: {m}");
        assert!(!m.contains("allow_loopback_http"), "{raw}: {m}");
    }
}

#[test]
fn ordinary_urls_pass_unchanged() {
    for raw in [
        "https://docs.rs/serde/latest/serde/?search=Deserialize",
        "https://crates.io/crates/url?page=2&q=rust",
        "https://accounts.google.com/o/oauth2/v2/auth?response_type=code&client_id=x&scope=openid&state=abc&code_challenge=xyz&code_challenge_method=S256",
        "https://github.com/login/oauth/authorize?client_id=abc&redirect_uri=http%3A%2F%2F127.0.0.1%3A8000%2Fcb",
    ] {
        let a = assess(raw, &UrlPolicy::navigate(), "/url");
        assert_eq!(a.verdict, Verdict::Allow, "{raw}: {:?}", a.findings);
    }
}

#[test]
fn display_forms_and_registrable_domain() {
    let a = assess(
        "HTTPS://Billing.Example.CO.UK:443/a/../b?x=1",
        &UrlPolicy::navigate(),
        "/url",
    );
    assert_eq!(
        a.normalized.as_deref(),
        Some("https://billing.example.co.uk/b?x=1")
    );
    assert_eq!(a.registrable_domain.as_deref(), Some("example.co.uk"));
    let a = assess(
        "https://xn--exmple-cua.com/login",
        &UrlPolicy::navigate(),
        "/url",
    );
    assert_eq!(a.host_unicode.as_deref(), Some("ex\u{e4}mple.com"));
    assert_eq!(a.host_ascii.as_deref(), Some("xn--exmple-cua.com"));
    assert_eq!(a.verdict, Verdict::Flag);
    let m = &a.findings[0].message;
    assert!(
        m.contains("ex\u{e4}mple.com") && m.contains("xn--exmple-cua.com"),
        "{m}"
    );
}

#[test]
fn confusable_with_trusted_and_consented() {
    let p = UrlPolicy::navigate().with_trusted_domains(vec!["paypal.com".into()]);
    let (v, c) = codes("https://paypa1.com/", &p);
    assert_eq!(v, Verdict::Flag);
    assert!(c.contains(&Code::UrlConfusableHost));
    let a = assess("https://www.paypal.com/", &p, "/url");
    assert!(a.trusted && a.verdict == Verdict::Allow, "{:?}", a.findings);
    let p = UrlPolicy::navigate().with_consented_hosts(vec!["login.example.org".into()]);
    let (_, c) = codes("https://1ogin.example.org.evil.net/", &p);
    assert!(c.contains(&Code::UrlEmbeddedDomain), "{c:?}");
    let (_, c) = codes("https://rn.example.org/", &p);
    assert!(!c.contains(&Code::UrlConfusableHost), "same site: {c:?}");
}

#[test]
fn limits_and_characters() {
    let long = format!("https://example.com/?q={}", "a".repeat(5000));
    assert_eq!(
        codes(&long, &UrlPolicy::default()).1,
        vec![Code::UrlTooLong]
    );
    let p = UrlPolicy::default().with_max_len(10_000);
    assert_eq!(codes(&long, &p).0, Verdict::Allow);
    for raw in [
        "https://example.com/a b",
        "https://example.com/\u{7}",
        "https://example.com\\@evil.net/",
        "https://exa\u{200b}mple.com/",
        " https://example.com/",
    ] {
        let (v, c) = codes(raw, &UrlPolicy::navigate());
        assert_eq!(v, Verdict::Block, "{raw}");
        assert!(c.contains(&Code::UrlInvalidCharacter), "{raw}: {c:?}");
    }
}

#[test]
fn preauth_and_personal_data() {
    for raw in [
        "https://x.example.com/?X-Amz-Signature=abc&X-Amz-Credential=def",
        "https://x.example.com/#access_token=abc&token_type=bearer",
        "https://x.example.com/reset/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
        "https://x.example.com/?apiKey=k",
        "https://x.example.com/?sessionid=s",
        "https://x.example.com/?next=%2Fhome&sso=1",
    ] {
        let (v, c) = codes(raw, &UrlPolicy::navigate());
        assert_eq!(v, Verdict::Block, "{raw}");
        assert!(c.contains(&Code::UrlPreauthParam), "{raw}");
    }
    let (v, c) = codes(
        "https://x.example.com/invite?email=alice%40mail.example.org",
        &UrlPolicy::navigate(),
    );
    assert_eq!((v, c), (Verdict::Flag, vec![Code::UrlPersonalData]));
}

proptest::proptest! {
    /// Every IPv4 spelling the WHATWG parser accepts (decimal, hex and octal dwords;
    /// dotted decimal, hex and octal; two-part shorthand; IPv4-mapped IPv6) is the same
    /// address to the gate, and the verdict to fetch blocks exactly the non-public ones.
    #[test]
    fn every_ipv4_spelling_classifies_alike(n in proptest::prelude::any::<u32>()) {
        use std::net::{IpAddr, Ipv4Addr};
        let ip = Ipv4Addr::from(n);
        let want = address::classify_v4(ip);
        let [a, b, c, d] = ip.octets();
        let tail = n & 0x00ff_ffff;
        let spellings = [
            n.to_string(),
            format!("0x{n:x}"),
            format!("0{n:o}"),
            format!("{a}.{b}.{c}.{d}"),
            format!("0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}"),
            format!("0{a:o}.0{b:o}.0{c:o}.0{d:o}"),
            format!("{a}.{tail}"),
            format!("{a}.{b}.{c}.{d}."),
        ];
        for host in spellings {
            let got = assess(&format!("https://{host}/x"), &UrlPolicy::default(), "/url");
            proptest::prop_assert_eq!(got.ip, Some(IpAddr::V4(ip)), "{}", host);
            proptest::prop_assert_eq!(got.address_class, Some(want), "{}", host);
            proptest::prop_assert_eq!(got.verdict == Verdict::Block, want.is_non_public(), "{}", host);
        }
        let mapped = assess(&format!("https://[::ffff:{a}.{b}.{c}.{d}]/"), &UrlPolicy::default(), "/url");
        proptest::prop_assert_eq!(mapped.address_class, Some(want));
    }
}

#[test]
fn redirect_hops_to_another_site_are_reported() {
    let p = UrlPolicy::default();
    let from = assess("https://auth.example.com/a", &p, "/url");
    let same = assess("https://login.example.com/b", &p, "/r");
    assert_eq!(judge_redirect(&from, &same, "/r"), None);
    let other = assess("https://login.example.org/b", &p, "/r");
    let f = judge_redirect(&from, &other, "/r").unwrap();
    assert_eq!((f.code, f.path.as_str()), (Code::RedirectCrossSite, "/r"));
    let literal = assess("https://93.184.215.14/", &p, "/r");
    assert!(judge_redirect(&from, &literal, "/r").is_some());
    let broken = assess("not a url", &p, "/r");
    assert_eq!(judge_redirect(&from, &broken, "/r"), None);
}

#[test]
fn a_normalized_form_that_reads_differently_when_parsed_again_is_refused() {
    for raw in [
        "file://h//c:/x",
        "file://h//c|/x",
        "file://h/x/..//c:/",
        "file://samlrespo\t\t//s\t:/payq.example",
    ] {
        for policy in [UrlPolicy::default(), UrlPolicy::navigate()] {
            let a = assess(raw, &policy, "/url");
            assert_eq!(a.normalized, None, "{raw:?}");
            assert_eq!(a.verdict, Verdict::Block, "{raw:?}");
            assert!(
                a.findings.iter().any(
                    |f| f.code == Code::UrlMalformed && f.message.contains("when parsed again")
                ),
                "{raw:?}: {:?}",
                a.findings
            );
        }
    }
    // A stable form keeps its normalized text; only its scheme is refused.
    let a = assess("file:///c:/x", &UrlPolicy::default(), "/url");
    assert_eq!(a.normalized.as_deref(), Some("file:///c:/x"));
    assert!(a.findings.iter().all(|f| f.code != Code::UrlMalformed));
}
