//! Redaction of argument values for the audit log (issue 5 §5, DESIGN §4: "argument
//! values only when policy says so, with secret-looking values redacted").
//!
//! A value is replaced with `"[redacted: N bytes]"` (N = UTF-8 bytes of a string, or of
//! the canonical JSON of any other value) when:
//! - its member name says it is a secret: one of the words `password`, `passwd`, `pwd`,
//!   `passphrase`, `secret`, `token`, `credential(s)`, `cookie`, `authorization`,
//!   `bearer`, `otp`, `pin`, `cvv`, `ssn`, or a compound such as `api_key`, `apiKey`,
//!   `access_key`, `private_key`, `client_secret`, `session_id` (words split at `_`, `-`,
//!   `.` and camelCase; `max_tokens` is not `token`);
//! - or its value looks like one: a JWT (`eyJ…` three base64url parts), a known token
//!   prefix (GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`, OpenAI/Stripe-style
//!   `sk-`/`sk_live_`/`rk_live_`, Slack `xox?-`, AWS `AKIA`/`ASIA` key ids, Google `AIza`,
//!   GitLab `glpat-`), a PEM block (`-----BEGIN … KEY-----`), an HTTP `Bearer`/`Basic`
//!   credential, or a long high-entropy word (24+ characters of one token with letters and
//!   digits and Shannon entropy of at least 4.3 bits per character; plain hex such as a
//!   commit hash stays, as it tops out at 4 bits).
//!
//! A string holding a secret anywhere is redacted whole. Objects and arrays are walked;
//! member names are kept.

use crate::detect::annotations::split_name;
use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// Member-name words that mark a secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "credentials",
    "cookie",
    "authorization",
    "bearer",
    "otp",
    "pin",
    "cvv",
    "ssn",
    "apikey",
    "privatekey",
];
/// Adjacent word pairs that mark a secret (`api_key`, `accessKey`, `session_id`).
const SECRET_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("secret", "key"),
    ("signing", "key"),
    ("client", "secret"),
    ("session", "id"),
    ("auth", "header"),
    ("card", "number"),
];

static SHAPES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
        r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}",
        r"|\bgithub_pat_[A-Za-z0-9_]{20,}",
        r"|\b(?:sk|rk)[-_](?:live_|test_|proj-)?[A-Za-z0-9_-]{16,}",
        r"|\bxox[abprs]-[A-Za-z0-9-]{10,}",
        r"|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",
        r"|\bAIza[A-Za-z0-9_-]{30,}",
        r"|\bglpat-[A-Za-z0-9_-]{16,}",
        r"|-----BEGIN [A-Z ]*(?:PRIVATE KEY|CERTIFICATE|PGP PRIVATE KEY BLOCK)-----",
        r"|(?i:\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,})",
    ))
    .unwrap_or_else(|e| unreachable!("static pattern: {e}"))
});

fn is_secret_key(key: &str) -> bool {
    let words = split_name(key);
    words.iter().any(|w| SECRET_WORDS.contains(&w.as_str()))
        || words
            .windows(2)
            .any(|p| SECRET_PAIRS.contains(&(p[0].as_str(), p[1].as_str())))
}

/// Shannon entropy of `s` in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0u32;
    for c in s.chars() {
        *counts.entry(c).or_insert(0u32) += 1;
        n += 1;
    }
    let n = f64::from(n);
    counts
        .values()
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

fn high_entropy_word(word: &str) -> bool {
    let word = word.trim_matches(|c: char| "\"'`,;:()[]{}<>".contains(c));
    word.chars().count() >= 24
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+/=_-.".contains(c))
        && word.chars().any(|c| c.is_ascii_alphabetic())
        && word.chars().any(|c| c.is_ascii_digit())
        && entropy(word) >= 4.3
}

/// Whether a string value looks like a secret (module docs).
pub(crate) fn looks_secret(s: &str) -> bool {
    SHAPES.is_match(s) || s.split_whitespace().any(high_entropy_word)
}

fn redacted(bytes: usize) -> Value {
    Value::String(format!("[redacted: {bytes} bytes]"))
}

fn redact_whole(value: &Value) -> Value {
    let bytes = match value {
        Value::String(s) => s.len(),
        other => crate::pins::canonical_json(other).map_or(0, |t| t.len()),
    };
    redacted(bytes)
}

/// `value` with every secret-looking value replaced by `"[redacted: N bytes]"` (module
/// docs for what counts). Member names and non-secret values are kept as they are.
pub fn redact_arguments(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_secret_key(k) && !v.is_null() {
                        redact_whole(v)
                    } else {
                        redact_arguments(v)
                    };
                    (k.clone(), v)
                })
                .collect::<Map<_, _>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_arguments).collect()),
        Value::String(s) if looks_secret(s) => redacted(s.len()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn by_key_name() {
        let v = json!({
            "password": "hunter2", "apiKey": "abc", "api_key": 12345, "client_secret": {"a": 1},
            "X-Auth-Token": "t", "sessionId": "s1", "max_tokens": 100, "tokenizer": "bpe",
            "path": "/tmp/x", "keyboard": "us", "creds": null
        });
        let r = redact_arguments(&v);
        assert_eq!(r["password"], "[redacted: 7 bytes]");
        assert_eq!(r["apiKey"], "[redacted: 3 bytes]");
        assert_eq!(r["api_key"], "[redacted: 5 bytes]");
        assert_eq!(r["client_secret"], "[redacted: 7 bytes]");
        assert_eq!(r["X-Auth-Token"], "[redacted: 1 bytes]");
        assert_eq!(r["sessionId"], "[redacted: 2 bytes]");
        for kept in ["max_tokens", "tokenizer", "path", "keyboard", "creds"] {
            assert_eq!(r[kept], v[kept], "{kept}");
        }
    }

    #[test]
    fn by_value_shape() {
        let secrets = [
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "sk-proj-abcdefghijklmnop0123456789",
            "sk_live_51Habcdefghijklmnop",
            "xoxb-123456789012-abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
            "glpat-abcdefghij0123456789",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "Authorization: Bearer abcdefghijklmnop0123456789",
            "please use 9fK2mQx7Lr4TzW8bN1cVy6HdPs3GaJe5 for the login",
        ];
        for s in secrets {
            let r = redact_arguments(&json!({"body": s, "list": [s]}));
            assert_eq!(
                r["body"],
                json!(format!("[redacted: {} bytes]", s.len())),
                "{s}"
            );
            assert_eq!(r["list"][0], r["body"]);
        }
        let plain = [
            "The quick brown fox jumps over the lazy dog, twice.",
            "0123456789abcdef0123456789abcdef01234567",
            "550e8400-e29b-41d4-a716-446655440000",
            "/home/me/project/src/some_long_module_name_here.rs",
            "https://example.com/docs/getting-started",
            "skip-this-step",
            "antidisestablishmentarianism-is-long",
            "",
        ];
        for s in plain {
            assert_eq!(redact_arguments(&json!(s)), json!(s), "{s}");
        }
        assert_eq!(redact_arguments(&json!(42)), json!(42));
    }
}
