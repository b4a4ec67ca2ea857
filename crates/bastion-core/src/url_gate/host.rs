//! Host classification for the URL gate: IDNA display forms, punycode labels,
//! mixed-script and confusable labels (UTS #39), names that are not on the public
//! Internet, and subdomain spoofing (`billing.example.com.attacker.example`).
//!
//! Inputs are hosts as the WHATWG URL parser leaves them: lowercase ASCII, IDNA-encoded
//! (UTS #46 `ToASCII`). The Unicode form comes from [`idna::domain_to_unicode`]; the
//! registrable domain from the Public Suffix List ([`psl`]); skeletons from
//! [`unicode_security::skeleton`] (UTS #39 §4).

use unicode_security::MixedScript;

/// Top-level labels that never resolve on the public Internet (RFC 6761 special-use
/// names, RFC 6762 `.local`, RFC 8375 `home.arpa`, ICANN `.internal`, and private-use
/// names in wide use). A host ending in one of them, or with a single label, is internal.
const INTERNAL_TLDS: &[&str] = &[
    "localhost",
    "local",
    "internal",
    "intranet",
    "lan",
    "home",
    "corp",
    "private",
    "localdomain",
    "test",
    "invalid",
    "example",
    "onion",
    "arpa",
];

/// Labels that read as the end of a domain name when they appear left of the registrable
/// domain (`example.com.attacker.example`): the original generic TLDs and `io`/`co`.
const SPOOF_TLDS: &[&str] = &["com", "net", "org", "edu", "gov", "mil", "int", "io", "co"];

/// Display forms of a domain host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostForms {
    /// ASCII (punycode) form, lowercase, no trailing dot.
    pub ascii: String,
    /// Unicode form (IDNA `ToUnicode`); equal to `ascii` for an all-ASCII name.
    pub unicode: String,
    /// Registrable domain (eTLD+1 by the Public Suffix List algorithm, whose default rule
    /// `*` makes an unlisted last label the suffix: `attacker.example`), ASCII; `None` for a
    /// name with no label left of its suffix.
    pub registrable: Option<String>,
}

/// Builds the display forms of an ASCII domain host.
pub fn forms(ascii_host: &str) -> HostForms {
    let ascii = ascii_host.trim_end_matches('.').to_ascii_lowercase();
    let (unicode, _) = idna::domain_to_unicode(&ascii);
    let registrable = psl::domain(ascii.as_bytes())
        .and_then(|d| std::str::from_utf8(d.as_bytes()).ok())
        .map(str::to_owned);
    HostForms {
        ascii,
        unicode,
        registrable,
    }
}

/// Labels of `ascii` that are punycode (`xn--`, RFC 3492 / RFC 5891 A-labels).
pub fn punycode_labels(ascii: &str) -> Vec<&str> {
    ascii.split('.').filter(|l| l.starts_with("xn--")).collect()
}

/// `true` when the host cannot be a public Internet name: a single label, or a last
/// label among the special-use and private-use names (see `INTERNAL_TLDS`), and no
/// known public suffix.
pub fn is_internal_name(ascii: &str) -> bool {
    let ascii = ascii.trim_end_matches('.');
    let last = ascii.rsplit('.').next().unwrap_or(ascii);
    if !ascii.contains('.') || INTERNAL_TLDS.contains(&last) {
        return true;
    }
    !psl::suffix(ascii.as_bytes()).is_some_and(|s| s.is_known())
}

/// Unicode labels of the host that mix scripts (UTS #39 §5.1 "single script" test fails).
pub fn mixed_script_labels(unicode: &str) -> Vec<&str> {
    unicode
        .split('.')
        .filter(|l| !l.is_ascii() && !l.is_single_script())
        .collect()
}

fn skeleton(s: &str) -> String {
    unicode_security::skeleton(s).collect()
}

/// Non-ASCII labels whose UTS #39 skeleton is plain ASCII: they read as an ASCII word
/// (whole-script confusables such as Cyrillic `раура1`).
pub fn ascii_lookalike_labels(unicode: &str) -> Vec<&str> {
    unicode
        .split('.')
        .filter(|l| !l.is_ascii() && skeleton(l).is_ascii())
        .collect()
}

/// The reference host `unicode` imitates: a different entry of `references` (trusted
/// domains and consented hosts, any form) whose skeleton equals the host's, or whose
/// registrable domain's skeleton equals the host's registrable domain's skeleton.
pub fn confusable_with<'a>(
    host: &HostForms,
    references: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let own = skeleton(&host.unicode);
    let own_site = host
        .registrable
        .as_deref()
        .map(|r| skeleton(&idna::domain_to_unicode(r).0));
    for reference in references {
        let r = forms(&to_ascii(reference));
        if r.ascii == host.ascii || host.registrable.is_some() && r.registrable == host.registrable
        {
            continue;
        }
        if skeleton(&r.unicode) == own {
            return Some(reference);
        }
        let r_site = r
            .registrable
            .as_deref()
            .map(|d| skeleton(&idna::domain_to_unicode(d).0));
        if own_site.is_some() && r_site == own_site {
            return Some(reference);
        }
    }
    None
}

/// ASCII form of a configured domain (Unicode or ASCII input, UTS #46 `ToASCII`);
/// unconvertible input is lowercased as is.
pub fn to_ascii(domain: &str) -> String {
    let d = domain.trim().trim_end_matches('.');
    idna::domain_to_ascii(d).unwrap_or_else(|_| d.to_lowercase())
}

/// `true` when `host` equals `domain` or is a subdomain of it (ASCII, dot-aligned).
pub fn within(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// The part left of the registrable domain when it itself ends like a domain name
/// (`billing.example.com` in `billing.example.com.attacker.example`), or contains a
/// trusted/consented domain: the host imitates another site.
pub fn embedded_domain<'a>(
    host: &HostForms,
    references: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let site = host.registrable.as_deref()?;
    let sub = host.ascii.strip_suffix(site)?.strip_suffix('.')?;
    let labels: Vec<&str> = sub.split('.').collect();
    if labels.len() >= 2 && SPOOF_TLDS.contains(labels.last()?) {
        return Some(sub.to_owned());
    }
    for reference in references {
        let r = forms(&to_ascii(reference));
        let target = r.registrable.unwrap_or(r.ascii);
        if target.contains('.') && target != site && within(sub, &target)
            || sub.contains(&format!("{target}."))
        {
            return Some(sub.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_forms() {
        let f = forms("xn--exmple-cua.com");
        assert_eq!(f.unicode, "exämple.com");
        assert_eq!(f.registrable.as_deref(), Some("xn--exmple-cua.com"));
        assert_eq!(punycode_labels(&f.ascii), vec!["xn--exmple-cua"]);
        let f = forms("billing.example.co.uk");
        assert_eq!(f.registrable.as_deref(), Some("example.co.uk"));
        assert_eq!(
            forms("metadata.google.internal").registrable.as_deref(),
            Some("google.internal")
        );
        assert!(forms("localhost").registrable.is_none());
    }

    #[test]
    fn internal_names() {
        for h in [
            "localhost",
            "metadata.google.internal",
            "printer.local",
            "intranet",
            "router.home.arpa",
            "db.corp",
            "x.notatld",
        ] {
            assert!(is_internal_name(h), "{h}");
        }
        for h in ["docs.rs", "github.com", "example.co.uk", "pkg.go.dev"] {
            assert!(!is_internal_name(h), "{h}");
        }
    }

    #[test]
    fn scripts_and_confusables() {
        // Latin "ex" + Cyrillic "а" + Latin "mple".
        let mixed = "ex\u{430}mple.com";
        assert_eq!(mixed_script_labels(mixed), vec!["ex\u{430}mple"]);
        assert!(mixed_script_labels("m\u{fc}nchen.de").is_empty());
        // Whole-script Cyrillic look-alike of "paypal".
        let cyr = "\u{440}\u{430}\u{443}\u{440}\u{430}\u{04cf}.com";
        assert_eq!(ascii_lookalike_labels(cyr).len(), 1);
        assert!(ascii_lookalike_labels("m\u{fc}nchen.de").is_empty());
        let host = forms("paypa1.com");
        assert_eq!(confusable_with(&host, ["paypal.com"]), Some("paypal.com"));
        let host = forms("www.paypal.com");
        assert_eq!(confusable_with(&host, ["paypal.com"]), None);
        let host = forms("rnicrosoft.com");
        assert_eq!(
            confusable_with(&host, ["microsoft.com"]),
            Some("microsoft.com")
        );
    }

    #[test]
    fn embedded_domains() {
        let f = forms("billing.example.com.attacker.example");
        assert_eq!(f.registrable.as_deref(), Some("attacker.example"));
        assert!(embedded_domain(&f, []).is_some());
        let f = forms("billing.example.com.attacker.net");
        assert_eq!(
            embedded_domain(&f, []).as_deref(),
            Some("billing.example.com")
        );
        let f = forms("login.github.com.evil.io");
        assert!(embedded_domain(&f, []).is_some());
        let f = forms("github.evil.io");
        assert_eq!(embedded_domain(&f, ["github.com"]), None);
        let f = forms("github.com-login.evil.io");
        assert!(embedded_domain(&f, ["github.com"]).is_none());
        for ok in ["docs.aws.amazon.com", "www.npmjs.com", "api.github.com"] {
            assert_eq!(embedded_domain(&forms(ok), []), None, "{ok}");
        }
    }
}
