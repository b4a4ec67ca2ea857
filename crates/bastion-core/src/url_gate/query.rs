//! Credential-bearing query keys and fragments (pre-authenticated URLs) and personal data
//! in a URL.
//!
//! A URL that carries a bearer credential lets whoever opens it act as its owner:
//! OAuth `code` / `access_token` / `id_token` (RFC 6749 §4.1.2, §4.2.2; `OpenID` Connect
//! Core §3.2.2.5), signed-URL signatures (`X-Amz-Signature`, `X-Goog-Signature`, Azure
//! SAS `sig`), session ids (`JSESSIONID`, `PHPSESSID`), API keys, passwords. MCP
//! 2025-11-25 "Elicitation §URL Mode" forbids credentials and pre-authenticated URLs
//! there. Query strings and fragments are split with the `application/x-www-form-urlencoded`
//! parser of the `url` crate (WHATWG URL Standard §5.1); keys are split into words at
//! `_`, `-`, `.`, `[`, `]` and camel-case humps and judged by their words, so
//! `apiKey`, `api_key`, `X-Amz-Signature`, `sessionid` and `access_token` match while
//! `page_token`, `code_challenge`, `response_type=code`, `sort_key` and `session_state`
//! do not.
//!
//! Values are judged too, whatever the key: vendor token formats (`ghp_…`,
//! `github_pat_…`, `xoxb-…`, `sk-…`, `AKIA…`, CAS `ST-…` tickets) and JWTs count in any
//! key or as a bare query; a long random value (base64/hex/UUID alphabet, letters and
//! digits, ≥ 3.3 bits of entropy per character) counts under a key or path segment of
//! credential context (`t`, `access`, `invite`, `magic`, `login`, `otp`, `ticket`,
//! `reset`) but not under a neutral one (`id`, `page`, `/issues/`), so resource ids and
//! pagination cursors pass.

use std::sync::LazyLock;

/// Keys that are credentials on their own (lowercase, separators removed).
const EXACT: &[&str] = &[
    "token",
    "code",
    "session",
    "sessionid",
    "sessid",
    "jsessionid",
    "phpsessid",
    "aspsessionid",
    "sid",
    "auth",
    "authorization",
    "sig",
    "signature",
    "key",
    "apikey",
    "jwt",
    "sso",
    "accesstoken",
    "idtoken",
    "refreshtoken",
    "authtoken",
    "password",
    "passwd",
    "pwd",
    "pass",
    "passcode",
    "secret",
    "clientsecret",
    "bearer",
    "credential",
    "credentials",
    "otp",
    "samlresponse",
    "samlart",
    "assertion",
    "privatekey",
];

/// Final words that make a compound key a credential (`access_token`, `X-Amz-Signature`).
const LAST_WORDS: &[&str] = &[
    "token",
    "signature",
    "sig",
    "secret",
    "password",
    "passwd",
    "pwd",
    "key",
    "apikey",
    "jwt",
    "credential",
    "credentials",
    "sessionid",
    "otp",
    "assertion",
];

/// Words anywhere in a key that make it a credential (`jwt_payload`, `sso_ticket`).
const ANY_WORDS: &[&str] = &["jwt", "sso", "bearer", "password", "passwd"];

/// Words that turn a `…token` / `…key` key into something that is not a credential:
/// pagination cursors, sort/lookup keys, public keys, anti-CSRF tokens.
const BENIGN_QUALIFIERS: &[&str] = &[
    "page",
    "next",
    "prev",
    "previous",
    "continuation",
    "cursor",
    "sync",
    "pagination",
    "sort",
    "group",
    "partition",
    "cache",
    "lookup",
    "primary",
    "foreign",
    "public",
    "search",
    "idempotency",
    "csrf",
    "xsrf",
    "max",
    "min",
    "policy",
    "length",
    "reset",
    "forgot",
    "hint",
];

/// Qualifiers that make a `…code` key an authorization or one-time code.
const CODE_QUALIFIERS: &[&str] = &[
    "auth",
    "authorization",
    "verification",
    "verify",
    "otp",
    "mfa",
    "totp",
    "login",
    "access",
    "sms",
    "security",
    "confirmation",
    "device",
];

/// Splits a key into lowercase words at separators and camel-case humps
/// (`X-Amz-Signature` → `x amz signature`, `apiKey` → `api key`).
pub(crate) fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in key.chars() {
        if !ch.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        cur.extend(ch.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// `true` when a query or fragment key names a credential (module docs).
pub fn is_credential_key(key: &str) -> bool {
    let words = key_words(key);
    if words.is_empty() {
        return false;
    }
    let joined: String = words.concat();
    if EXACT.contains(&joined.as_str()) {
        return true;
    }
    if words
        .iter()
        .any(|w| BENIGN_QUALIFIERS.contains(&w.as_str()))
    {
        return false;
    }
    let last = words.last().map_or("", String::as_str);
    if LAST_WORDS.contains(&last) || words.iter().any(|w| ANY_WORDS.contains(&w.as_str())) {
        return true;
    }
    if words.iter().any(|w| w == "session") && matches!(last, "id" | "key" | "token" | "session") {
        return true;
    }
    last == "code"
        && words[..words.len() - 1]
            .iter()
            .any(|w| CODE_QUALIFIERS.contains(&w.as_str()))
}

static JWT: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*").expect("static")
});

static EMAIL: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
        .expect("static")
});

/// `true` when `value` holds a JSON Web Token (RFC 7519 compact form: a base64url JOSE
/// header starting `eyJ`, then two more dot-separated base64url parts).
pub fn looks_like_jwt(value: &str) -> bool {
    JWT.is_match(value)
}

/// `true` when `text` holds an email address.
pub fn has_email(text: &str) -> bool {
    EMAIL.is_match(text)
}

/// What one query string or fragment carries.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Carried {
    /// Keys naming credentials, in order (`access_token`, `X-Amz-Signature`).
    pub credential_keys: Vec<String>,
    /// Keys whose value is a JWT although the key is neutral.
    pub jwt_keys: Vec<String>,
    /// `true` when some key or value holds an email address.
    pub email: bool,
}

/// Splits `part` (a query string or fragment, without `?`/`#`) as
/// `application/x-www-form-urlencoded` and reports what it carries.
///
/// A value that is itself an absolute URL (`?redirect=https://…?token=…`) is inspected
/// one level deep; its credential keys are reported as `outer>inner`.
pub fn inspect_pairs(part: &str) -> Carried {
    inspect_at(part, 0)
}

/// Vendor token formats recognisable in any value: GitHub (`ghp_`, `gho_`, `ghu_`,
/// `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), Slack (`xoxb-`, `xoxp-`, …),
/// OpenAI/Anthropic/Stripe-style secret keys (`sk-…`, `sk_live_…`), AWS access key ids
/// (`AKIA…`, `ASIA…`) and CAS service/proxy tickets (`ST-…`, `PT-…`).
static KNOWN_TOKEN: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?:^|[^A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-(?:proj-|ant-|live-|svcacct-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}|(?:ST|PT|PGT)-\d+-[A-Za-z0-9._-]{10,})",
    )
    .expect("static")
});

/// Key or path-segment words after which a long random value is a credential: magic
/// links, invitations, one-time logins, password resets, CAS tickets, short token keys.
const VALUE_CONTEXT_WORDS: &[&str] = &[
    "t",
    "tk",
    "tok",
    "k",
    "access",
    "invite",
    "invitation",
    "magic",
    "login",
    "signin",
    "logon",
    "otp",
    "ticket",
    "st",
    "activation",
    "activate",
    "verify",
    "verification",
    "confirm",
    "confirmation",
    "reset",
    "unlock",
    "recovery",
    "onetime",
    "auth",
    "token",
    "session",
];

/// `true` when `value` holds a vendor token format (see [`KNOWN_TOKEN`]) or a JWT.
pub fn has_known_token(value: &str) -> bool {
    KNOWN_TOKEN.is_match(value) || looks_like_jwt(value)
}

/// Shannon entropy of `s` in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::<char, u32>::new();
    let mut n = 0_u32;
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
        n += 1;
    }
    let n = f64::from(n.max(1));
    counts
        .values()
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// `true` when `value` looks like a random secret of at least `min_len` characters:
/// only token characters (base64/base64url/hex/UUID alphabet), letters and digits mixed,
/// few separators (not a hyphenated slug) and at least 3.3 bits of entropy per character.
pub fn looks_random(value: &str, min_len: usize) -> bool {
    let len = value.chars().count();
    if len < min_len || len > 4096 {
        return false;
    }
    if !value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '='))
    {
        return false;
    }
    let digits = value.chars().filter(char::is_ascii_digit).count();
    let letters = value.chars().filter(char::is_ascii_alphabetic).count();
    let seps = len - digits - letters;
    digits > 0 && letters > 0 && seps * 8 <= len && entropy(value) >= 3.3
}

/// `true` when some word of `key` (a query key or a path segment) puts a long random
/// value after it in credential context (`invite`, `magic-login`, `t`, `ticket`).
/// Pagination cursors, search and anti-CSRF keys (`pageToken`, `csrf_token`) are not.
pub fn is_value_context(key: &str) -> bool {
    const NOT_CONTEXT: &[&str] = &[
        "page",
        "next",
        "prev",
        "previous",
        "continuation",
        "cursor",
        "sync",
        "pagination",
        "sort",
        "search",
        "cache",
        "public",
        "idempotency",
        "csrf",
        "xsrf",
    ];
    let words = key_words(key);
    !words.iter().any(|w| NOT_CONTEXT.contains(&w.as_str()))
        && words
            .iter()
            .any(|w| VALUE_CONTEXT_WORDS.contains(&w.as_str()))
}

fn inspect_at(part: &str, depth: u8) -> Carried {
    let mut out = Carried::default();
    for (key, value) in url::form_urlencoded::parse(part.as_bytes()) {
        if depth == 0
            && let Ok(inner) = url::Url::parse(&value)
        {
            for nested in [inner.query(), inner.fragment()].into_iter().flatten() {
                let c = inspect_at(nested, 1);
                for k in c.credential_keys.iter().chain(&c.jwt_keys) {
                    out.credential_keys.push(format!("{key}>{k}"));
                }
            }
        }
        if has_email(&key) || has_email(&value) {
            out.email = true;
        }
        if is_credential_key(&key) && !value.is_empty() {
            out.credential_keys.push(key.into_owned());
        } else if looks_like_jwt(&value) || (value.is_empty() && looks_like_jwt(&key)) {
            out.jwt_keys.push(key.into_owned());
        } else if value.is_empty() && (KNOWN_TOKEN.is_match(&key) || looks_random(&key, 32)) {
            out.credential_keys.push("(a bare token)".to_owned());
        } else if KNOWN_TOKEN.is_match(&value)
            || (is_value_context(&key) && looks_random(&value, 16))
        {
            out.credential_keys.push(key.into_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_keys() {
        for k in [
            "token",
            "code",
            "session",
            "auth",
            "sig",
            "signature",
            "key",
            "jwt",
            "sso",
            "access_token",
            "id_token",
            "password",
            "X-Amz-Signature",
            "X-Amz-Credential",
            "X-Amz-Security-Token",
            "X-Goog-Signature",
            "api_key",
            "apiKey",
            "APIKEY",
            "sessionid",
            "JSESSIONID",
            "session_id",
            "refreshToken",
            "client_secret",
            "auth_code",
            "sso_ticket",
            "user.password",
            "Token",
        ] {
            assert!(is_credential_key(k), "{k}");
        }
    }

    #[test]
    fn benign_keys() {
        for k in [
            "page",
            "q",
            "page_token",
            "pageToken",
            "nextPageToken",
            "continuation_token",
            "code_challenge",
            "code_challenge_method",
            "response_type",
            "state",
            "session_state",
            "sort_key",
            "keyword",
            "keywords",
            "author",
            "authuser",
            "zip_code",
            "country_code",
            "promo_code",
            "lang",
            "redirect_uri",
            "client_id",
            "scope",
            "public_key",
            "csrf_token",
            "max_tokens",
            "password_reset",
            "ticket",
        ] {
            assert!(!is_credential_key(k), "{k}");
        }
    }

    #[test]
    fn token_formats_and_context_values() {
        for part in [
            "state=ghp_1234567890abcdefghijklmnopqrstuvwxyz",
            "ghp_1234567890abcdefghijklmnopqrstuvwxyz",
            "x=github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "x=xoxb-1234567890-abcdefghijklmn",
            "x=sk-proj-abcdefghijklmnopqrstuvwx",
            "x=AKIAIOSFODNN7EXAMPLE",
            "ticket=ST-1234-abcdefghijklmnop",
            "t=Z2hwXzEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5eg",
            "access=8f14e45fceea167a5a36dedd4bea2543",
            "invite=8f14e45fceea167a5a36dedd4bea2543",
            "magic=Vt8kQ2zL9xRw4mYp7cBn3sJd",
            "login=Vt8kQ2zL9xRw4mYp7cBn3sJd",
            "otp=Vt8kQ2zL9xRw4mYp7cBn3sJd",
        ] {
            assert!(!inspect_pairs(part).credential_keys.is_empty(), "{part}");
        }
        for part in [
            "page=2&per_page=50",
            "q=how+to+reset+a+password",
            "ticket=48213",
            "pageToken=CAoQAQ8f14e45fceea167a5a36dedd4bea",
            "id=6f1c2e3a-8b9d-4c7e-a1f0-2d3b4c5e6f70",
            "access_type=offline&prompt=login",
            "t=42s",
            "invite=rust-lang",
        ] {
            assert!(inspect_pairs(part).credential_keys.is_empty(), "{part}");
        }
    }

    #[test]
    fn pairs() {
        let c = inspect_pairs("page=2&access_token=abc&q=rust");
        assert_eq!(c.credential_keys, vec!["access_token"]);
        let c = inspect_pairs("x=eyJhbGciOi.eyJzdWIi.c2ln");
        assert_eq!(c.jwt_keys, vec!["x"]);
        assert!(inspect_pairs("u=alice%40mail.example.org").email);
        assert!(!inspect_pairs("page=2&lang=ja").email);
        // An empty credential-named key is not a credential.
        assert!(inspect_pairs("token=").credential_keys.is_empty());
        let c = inspect_pairs("next=https%3A%2F%2Fa.example%2Fcb%3Faccess_token%3Dxyz&page=1");
        assert_eq!(c.credential_keys, vec!["next>access_token"]);
        let c = inspect_pairs("redirect_uri=http%3A%2F%2F127.0.0.1%3A8000%2Fcb%3Fstate%3Dq");
        assert!(c.credential_keys.is_empty());
    }
}
