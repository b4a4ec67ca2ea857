//! [`assess`]: the URL gate itself (the table in the module docs of [`super`]).

use super::address::{AddressClass, classify};
use super::host::{self, HostForms};
use super::query::{
    has_email, has_known_token, inspect_pairs, is_value_context, looks_like_jwt, looks_random,
};
use super::{UrlAssessment, UrlPolicy, UrlPurpose};
use crate::finding::{Code, Finding, Severity, Verdict};
use std::net::IpAddr;
use url::{Host, Url};

/// At most this many characters of a hostile URL are quoted in a finding message.
const SHOWN: usize = 120;

fn shown(s: &str) -> String {
    let mut out: String = crate::unicode::escape_for_display(s)
        .chars()
        .take(SHOWN)
        .collect();
    if s.chars().count() > SHOWN {
        out.push('…');
    }
    out
}

/// Judges one URL, `raw` exactly as received, under `policy`; finding paths are `path`
/// (an RFC 6901 pointer to the URL in the inspected value). Pure, no I/O, never fetches.
///
/// The returned [`UrlAssessment::verdict`] is `block` for any `high` finding, `flag` for
/// any `warn`, otherwise `allow` (see the table in [`super`]).
pub fn assess(raw: &str, policy: &UrlPolicy, path: &str) -> UrlAssessment {
    let mut out = UrlAssessment {
        verdict: Verdict::Allow,
        findings: Vec::new(),
        normalized: None,
        host_ascii: None,
        host_unicode: None,
        registrable_domain: None,
        registrable_domain_unicode: None,
        ip: None,
        address_class: None,
        trusted: false,
    };
    judge(raw, policy, path, &mut out);
    out.verdict = Verdict::from_findings(&out.findings, false);
    out
}

fn judge(raw: &str, policy: &UrlPolicy, path: &str, out: &mut UrlAssessment) {
    let mut push = |code, severity, message: String| {
        out.findings
            .push(Finding::new(code, severity, path, message));
    };
    if raw.len() > policy.max_len {
        push(
            Code::UrlTooLong,
            Severity::High,
            format!(
                "the URL is {} bytes long, over the limit of {} bytes; refused",
                raw.len(),
                policy.max_len
            ),
        );
        return;
    }
    let hidden = crate::unicode::strip_hidden(raw).1;
    if let Some(bad) = raw
        .chars()
        .find(|c| c.is_control() || c.is_whitespace() || *c == '\\')
        .or_else(|| (hidden > 0).then_some('\u{200b}'))
    {
        let what = match bad {
            '\\' => "a backslash (browsers read it as `/`, other parsers do not)".to_owned(),
            c if c.is_whitespace() => format!(
                "whitespace (U+{:04X}); a URL handed to an opener or shell must be one token",
                u32::from(c)
            ),
            _ => "a control or invisible character".to_owned(),
        };
        push(
            Code::UrlInvalidCharacter,
            Severity::High,
            format!("the URL `{}` contains {what}; refused", shown(raw)),
        );
    }
    let url = match Url::parse(raw) {
        Ok(u) => u,
        Err(e) => {
            push(
                Code::UrlMalformed,
                Severity::High,
                format!(
                    "`{}` is not an absolute URL ({e}); only absolute https URLs are accepted",
                    shown(raw)
                ),
            );
            return;
        }
    };
    // The WHATWG serialization is not always a fixed point (rust-url issue #1101: a
    // `file:` host followed by an empty segment and a drive letter reparses without its
    // host). A URL whose normalized form reads differently a second time names two
    // destinations: refused, and no normalized form is reported for it (the other checks
    // still run on the first reading).
    match Url::parse(url.as_str()) {
        Ok(again) if again.as_str() == url.as_str() => {
            out.normalized = Some(url.as_str().to_owned());
        }
        again => {
            let reads_as = again.map_or_else(
                |e| format!("does not parse at all ({e})"),
                |a| format!("reads as `{}`", shown(a.as_str())),
            );
            push(
                Code::UrlMalformed,
                Severity::High,
                format!(
                    "`{}` normalizes to `{}`, which {reads_as} when parsed again: parsers disagree about where it leads; refused",
                    shown(raw),
                    shown(url.as_str())
                ),
            );
        }
    }
    let loopback_host = match url.host() {
        Some(Host::Domain(d)) => {
            let d = d.trim_end_matches('.');
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v| v.is_loopback())
        }
        None => false,
    };
    let scheme_ok = match url.scheme() {
        "https" => true,
        "http" => policy.allow_loopback_http && loopback_host,
        _ => false,
    };
    if !scheme_ok {
        let why = if url.scheme() == "http" {
            if policy.allow_loopback_http || !loopback_host {
                // The setting would not help: it opens plain http to loopback hosts only.
                "plain http is allowed only to a loopback host"
            } else {
                "plain http is not allowed (set [urls] allow_loopback_http for local development)"
            }
        } else {
            "only https URLs are accepted"
        };
        push(
            Code::UrlSchemeNotAllowed,
            Severity::High,
            format!("the scheme `{}:` is refused: {why}", url.scheme()),
        );
        if !matches!(url.scheme(), "http" | "https") {
            return;
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        push(
            Code::UrlUserinfo,
            Severity::High,
            "the URL carries user information (`user:password@`); it may leak a credential or hide the real host; refused".to_owned(),
        );
    }
    let Some(host) = url.host() else {
        push(
            Code::UrlMalformed,
            Severity::High,
            "the URL has no host".to_owned(),
        );
        return;
    };
    match host {
        Host::Ipv4(v4) => judge_ip(IpAddr::V4(v4), policy, path, loopback_host, out),
        Host::Ipv6(v6) => judge_ip(IpAddr::V6(v6), policy, path, loopback_host, out),
        Host::Domain(d) => judge_domain(d, policy, path, loopback_host, out),
    }
    judge_parts(&url, path, &mut out.findings);
}

/// Severity of a non-public destination for this policy.
pub(super) fn non_public_severity(policy: &UrlPolicy, loopback: bool) -> Severity {
    match policy.purpose {
        UrlPurpose::Navigate => Severity::Warn,
        UrlPurpose::Fetch if loopback && policy.allow_loopback_http => Severity::Warn,
        UrlPurpose::Fetch => Severity::High,
    }
}

fn judge_ip(ip: IpAddr, policy: &UrlPolicy, path: &str, loopback: bool, out: &mut UrlAssessment) {
    let c = classify(ip);
    let text = match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    };
    out.ip = Some(ip);
    out.address_class = Some(c.class);
    out.host_ascii = Some(text.clone());
    out.host_unicode = Some(text.clone());
    out.findings.push(Finding::new(
        Code::UrlIpLiteral,
        Severity::Warn,
        path,
        format!("the host is a raw IP address ({text}), not a name; check where it leads"),
    ));
    if c.class.is_non_public() {
        let via = c
            .embedded_v4
            .map(|v| format!(" (it embeds the IPv4 address {v})"))
            .unwrap_or_default();
        out.findings.push(Finding::new(
            Code::PrivateAddress,
            non_public_severity(policy, loopback),
            path,
            format!(
                "the host {text} is a {} address{via}, not a public Internet destination",
                c.class.as_str()
            ),
        ));
    }
}

fn judge_domain(
    domain: &str,
    policy: &UrlPolicy,
    path: &str,
    loopback: bool,
    out: &mut UrlAssessment,
) {
    let forms: HostForms = host::forms(domain);
    out.trusted = policy
        .trusted_domains
        .iter()
        .any(|t| host::within(&forms.ascii, &host::to_ascii(t)));
    out.host_ascii = Some(forms.ascii.clone());
    out.host_unicode = Some(forms.unicode.clone());
    out.registrable_domain.clone_from(&forms.registrable);
    out.registrable_domain_unicode = forms
        .registrable
        .as_deref()
        .map(|r| idna::domain_to_unicode(r).0);
    let mut push = |code, severity, message: String| {
        out.findings
            .push(Finding::new(code, severity, path, message));
    };
    if loopback {
        out.address_class = Some(AddressClass::Loopback);
        push(
            Code::PrivateAddress,
            non_public_severity(policy, true),
            format!("the host `{}` names this machine (loopback)", forms.ascii),
        );
    } else if !out.trusted && host::is_internal_name(&forms.ascii) {
        push(
            Code::UrlInternalHost,
            non_public_severity(policy, false),
            format!(
                "the host `{}` is not a public Internet name (single label, special-use or unlisted suffix); it can only resolve inside a private network",
                shown(&forms.unicode)
            ),
        );
    }
    let puny = host::punycode_labels(&forms.ascii);
    if !puny.is_empty() {
        push(
            Code::UrlPunycodeHost,
            Severity::Warn,
            format!(
                "the host is an internationalized name: it displays as `{}` and is really `{}`",
                shown(&forms.unicode),
                forms.ascii
            ),
        );
    }
    let mixed = host::mixed_script_labels(&forms.unicode);
    let lookalike = host::ascii_lookalike_labels(&forms.unicode);
    if let Some(reference) = host::confusable_with(&forms, policy.references()) {
        push(
            Code::UrlConfusableHost,
            Severity::Warn,
            format!(
                "the host `{}` ({}) looks like `{}` (same UTS #39 confusable skeleton) but is a different site",
                shown(&forms.unicode),
                forms.ascii,
                shown(reference)
            ),
        );
    } else if let Some(label) = mixed.first().or(lookalike.first()) {
        let what = if mixed.is_empty() {
            "is written in another script but reads as ASCII letters"
        } else {
            "mixes scripts"
        };
        push(
            Code::UrlConfusableHost,
            Severity::Warn,
            format!(
                "the host label `{}` {what} (UTS #39); the host is really `{}`",
                shown(label),
                forms.ascii
            ),
        );
    }
    if let Some(sub) = host::embedded_domain(&forms, policy.references()) {
        push(
            Code::UrlEmbeddedDomain,
            Severity::Warn,
            format!(
                "the host starts with `{sub}`, which looks like a site of its own; the site is really `{}`",
                forms.registrable.as_deref().unwrap_or(&forms.ascii)
            ),
        );
    }
}

fn judge_parts(url: &Url, path: &str, findings: &mut Vec<Finding>) {
    let mut credential = Vec::new();
    let mut email = false;
    for (part, text) in [("query", url.query()), ("fragment", url.fragment())] {
        let Some(text) = text else { continue };
        let carried = inspect_pairs(text);
        for k in carried.credential_keys.iter().chain(&carried.jwt_keys) {
            credential.push(format!("{part} `{}`", shown(k)));
        }
        if carried.credential_keys.is_empty() && carried.jwt_keys.is_empty() && looks_like_jwt(text)
        {
            credential.push(format!("{part} (a JSON Web Token)"));
        }
        email |= carried.email;
    }
    let decoded_path = percent_decoded(url.path());
    if looks_like_jwt(&decoded_path) {
        credential.push("path (a JSON Web Token)".to_owned());
    } else if let Some(what) = path_credential(url) {
        credential.push(what);
    }
    email |= has_email(&decoded_path);
    if !credential.is_empty() {
        findings.push(Finding::new(
            Code::UrlPreauthParam,
            Severity::High,
            path,
            format!(
                "the URL is pre-authenticated: it carries a credential in {}; whoever opens it acts as its owner; refused",
                credential.join(", ")
            ),
        ));
    }
    if email {
        findings.push(Finding::new(
            Code::UrlPersonalData,
            Severity::Warn,
            path,
            "the URL carries an email address (personal data is sent to the site and kept in its logs)".to_owned(),
        ));
    }
}

/// A credential carried by the path: a `;name=value` path parameter whose name is a
/// credential key (`;jsessionid=…`), a segment holding a vendor token format, or a long
/// random segment within two segments after a magic-link word (`/magic/<token>`,
/// `/invite/<token>`, `/reset/<uid>/<token>`). Ordinary ids (`/issues/123`, UUIDs under
/// `/docs/`) are not in such a context and pass.
fn path_credential(url: &Url) -> Option<String> {
    let segments: Vec<String> = url.path_segments()?.map(percent_decoded).collect();
    for (i, seg) in segments.iter().enumerate() {
        let (name, params) = seg.split_once(';').unwrap_or((seg, ""));
        if !params.is_empty() {
            let carried = inspect_pairs(&params.replace(';', "&"));
            if let Some(k) = carried
                .credential_keys
                .iter()
                .chain(&carried.jwt_keys)
                .next()
            {
                return Some(format!("path parameter `{}`", shown(k)));
            }
        }
        if has_known_token(name) {
            return Some("path (a token format)".to_owned());
        }
        let context = segments[i.saturating_sub(2)..i]
            .iter()
            .any(|prev| is_value_context(prev.split(';').next().unwrap_or(prev)));
        if context && looks_random(name, 16) {
            return Some("path (a magic-link token)".to_owned());
        }
    }
    None
}

fn percent_decoded(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
