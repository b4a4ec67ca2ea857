//! Parameters that ask for secrets without reason (`secret_parameter`).
//!
//! A tool parameter is filled by the model, from what it knows: the conversation, files it
//! read, what it asks the user. A weather tool with a `password` or `ssh_key` parameter
//! gets the model to collect a secret and hand it to a server that has no use for it
//! (MCP 2025-11-25, Server Features → Tools → Security Considerations; poisoning by
//! schema, issue 3 §5).
//!
//! # What is a secret parameter
//! Every input-schema property (nested objects, array items, `allOf`/`anyOf`/`oneOf`,
//! `$defs` included) and every prompt argument is read as words: its name split at
//! `_`/`-`/`.`, `camelCase` and digits, folded (NFKC, case folding, accents, UTS #39
//! confusables: `pаssword` with a Cyrillic `а` is `password`). Its kind of secret is
//! taken from, in order:
//! 1. the name: passwords/passphrases/PINs, API keys/tokens/client secrets/credentials,
//!    private/SSH/signing keys, seed/recovery phrases, one-time/2FA codes, card numbers
//!    and CVV, bank credentials, government ids (SSN, passport/national id numbers, tax
//!    ids), in English, German, French, Spanish, Russian, Chinese and Japanese;
//! 2. when the name says nothing (`value`, `k`), the `title`, or the start of the
//!    `description` ("Your API key …");
//! 3. `"format": "password"` or `"writeOnly": true` (a value meant to be written, not
//!    shown) mark a secret even under an opaque name.
//!
//! A word next to the secret word that makes the value *about* the secret rather than
//! the secret itself cancels it: `max_tokens`, `token_count`, `otp_length`,
//! `password_policy_url`, `password_reminder_date`, `public_key_fingerprint`, `key_name`,
//! `page_token`, `passport_photo_url` (a photo URL is no secret; `passport_number` is a
//! government id). Booleans and `enum`/`const` values cannot carry a secret and are
//! skipped; `seed` alone is a random seed, `tokens` alone a list of tokens, `key` alone a
//! map key.
//!
//! # Without reason
//! The tool's own name and title, and the first sentence of its description, state its
//! purpose. A purpose that deals with that kind of secret — logging in, managing
//! credentials (`set_api_key`, `rotate_token`, `vault_store_secret`), connecting to a
//! database or host, paying (cards), banking, identity checks (government ids), wallets
//! (seed phrases), second-factor verification (codes), signing and SSH (private keys) —
//! explains it: `info`. Otherwise `warn`. Either becomes `high` when the descriptor also
//! routes data elsewhere, changes other tools' use, hides something from the user or
//! reads local secrets (the instruction detector's `exfiltration_sink`,
//! `tool_shadowing`, `concealment_phrase`, `credential_access` findings).

use super::fold::{fold, identifier_words};
use super::phrases::alternation;
use super::secret_words::{
    ABOUT_WORDS, AMBIGUOUS_NAMES, AUTH_PURPOSE, SOMETHING_ELSE, noun_source, purpose_source,
};
use crate::finding::{Code, Finding, Severity, pointer_push};
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// The kinds of secret a parameter can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Password,
    ApiToken,
    PrivateKey,
    SeedPhrase,
    OneTimeCode,
    PaymentCard,
    BankCredential,
    GovernmentId,
}

impl Kind {
    const ALL: [Kind; 8] = [
        // Most specific first: "secret recovery phrase" is a seed phrase, "one-time
        // password" a code, "bank password" a bank credential, "secret key file" a key.
        Kind::SeedPhrase,
        Kind::OneTimeCode,
        Kind::BankCredential,
        Kind::PaymentCard,
        Kind::GovernmentId,
        Kind::PrivateKey,
        Kind::Password,
        Kind::ApiToken,
    ];

    const fn noun(self) -> &'static str {
        match self {
            Kind::Password => "a password",
            Kind::ApiToken => "an API key, token or other credential",
            Kind::PrivateKey => "a private key",
            Kind::SeedPhrase => "a wallet seed or recovery phrase",
            Kind::OneTimeCode => "a one-time or second-factor code",
            Kind::PaymentCard => "payment card data",
            Kind::BankCredential => "bank login credentials",
            Kind::GovernmentId => "a government id number",
        }
    }

    /// The noun pattern of this kind, over folded words.
    fn pattern(self) -> &'static Regex {
        static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
            Kind::ALL
                .iter()
                .map(|k| alternation(noun_source(*k)))
                .collect()
        });
        let i = Kind::ALL.iter().position(|k| *k == self).unwrap_or(0);
        &PATTERNS[i]
    }

    /// The purpose pattern that explains asking for this kind of secret.
    fn purpose(self) -> &'static Regex {
        static PURPOSES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
            Kind::ALL
                .iter()
                .map(|k| {
                    let mut parts: Vec<&str> = purpose_source(*k).to_vec();
                    parts.extend_from_slice(AUTH_PURPOSE);
                    alternation(&parts)
                })
                .collect()
        });
        let i = Kind::ALL.iter().position(|k| *k == self).unwrap_or(0);
        &PURPOSES[i]
    }
}

/// Tokens of a folded word string.
fn tokens(words: &str) -> Vec<&str> {
    words
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect()
}

/// What a name or title says about its value.
enum Named {
    /// The value is this kind of secret.
    Secret(Kind),
    /// The value is *about* a secret or something else (an about-word is present), so
    /// the opaque-name fallbacks are skipped too.
    About,
    /// Nothing either way.
    Nothing,
}

/// What a piece of folded words (a property name, a title) names: a secret, unless a
/// word outside the secret noun makes it about the secret (see [`ABOUT_WORDS`]).
fn classify_words(words: &str) -> Named {
    // One pass over every kind's nouns first: most names name no secret.
    static ANY: LazyLock<Regex> = LazyLock::new(|| {
        let all: Vec<&str> = Kind::ALL
            .iter()
            .flat_map(|k| noun_source(*k).iter().copied())
            .collect();
        alternation(&all)
    });
    let kinds: &[Kind] = if ANY.is_match(words) { &Kind::ALL } else { &[] };
    for &kind in kinds {
        let mut about = false;
        let mut found = false;
        for m in kind.pattern().find_iter(words) {
            found = true;
            let rest = format!("{} {}", &words[..m.start()], &words[m.end()..]);
            if tokens(&rest).iter().any(|t| ABOUT_WORDS.contains(t)) {
                about = true;
            }
        }
        if found {
            return if about {
                Named::About
            } else {
                Named::Secret(kind)
            };
        }
    }
    if tokens(words).iter().any(|t| ABOUT_WORDS.contains(t)) {
        return Named::About;
    }
    Named::Nothing
}

/// Builds the patterns every parameter check runs (the noun patterns of every kind, their
/// union, the leading determiners): most tool lists have parameters with descriptions,
/// so [`super::warm_up_plain_descriptors`] builds them ahead of the first list.
pub(crate) fn warm() {
    let _ = classify_words("");
    for kind in Kind::ALL {
        let _ = kind.pattern();
    }
    LazyLock::force(&LEADING_NOUN_PHRASE);
}

/// An identifier or short label as folded words (`sshPrivateKey` → `ssh private key`).
fn as_words(text: &str) -> String {
    fold(identifier_words(text, false).as_deref().unwrap_or(text))
}

/// Leading determiners and possessives a description may open with.
static LEADING_NOUN_PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    alternation(&[
        r"^(?:(?:the|your|a|an|user's|users'|their|his|her|ihr|ihre|ihren|dein|deine|deinen|der|die|das|votre|vos|ton|ta|le|la|les|l'|tu|su|sus|el|los|las|ваш|ваша|ваши|ваше|свой|свою|ваш\w*)\s+)?",
    ])
});

/// The kind named by the start of a description (its first clause opens with the
/// secret noun), with no about-word anywhere in that clause.
fn classify_description(text: &str) -> Option<Kind> {
    let folded = fold(text);
    let sentence = folded
        .split(['.', '\n', ';', ':', '(', ',', '\u{3002}'])
        .next()
        .unwrap_or("");
    if tokens(sentence).iter().any(|t| ABOUT_WORDS.contains(t)) {
        return None;
    }
    let body = LEADING_NOUN_PHRASE
        .find(sentence)
        .map_or(sentence, |m| &sentence[m.end()..]);
    // The secret noun must open the phrase: within its first three words (CJK text,
    // without spaces: its first twelve characters).
    let cjk = body.chars().any(super::langs::is_cjk);
    Kind::ALL.into_iter().find(|k| {
        k.pattern().find(body).is_some_and(|m| {
            let before = body[..m.start()].trim_start();
            let opens = if cjk {
                before.chars().count() <= 12
            } else {
                before.split_whitespace().count() <= 2
            };
            opens && !used_as_modifier(m.as_str(), &body[m.end()..])
        })
    })
}

/// Whether a one-word secret noun in a description modifies the noun after it ("secret
/// message to encrypt", "token symbol", "pin color") instead of being the value.
fn used_as_modifier(noun: &str, rest: &str) -> bool {
    if !AMBIGUOUS_NAMES.contains(&noun.trim()) {
        return false;
    }
    let next = tokens(rest).first().copied().unwrap_or("");
    !matches!(
        next,
        "" | "for"
            | "of"
            | "used"
            | "to"
            | "that"
            | "which"
            | "from"
            | "with"
            | "issued"
            | "generated"
            | "provided"
            | "given"
            | "obtained"
            | "you"
            | "your"
            | "is"
            | "must"
    )
}

/// One parameter: where it is, what it is called, its schema (if any).
struct Param<'a> {
    path: String,
    name: &'a str,
    title: Option<&'a str>,
    description: Option<&'a str>,
    schema: Option<&'a Value>,
}

/// Deepest schema nesting looked at.
const MAX_DEPTH: usize = 64;

/// Collects every property below `schema` (at `path`).
fn collect<'a>(schema: &'a Value, path: &str, depth: usize, out: &mut Vec<Param<'a>>) {
    let Value::Object(map) = schema else {
        if let Value::Array(items) = schema {
            for (i, s) in items.iter().enumerate() {
                collect(s, &pointer_push(path, &i.to_string()), depth + 1, out);
            }
        }
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = map.get(key) {
            let base = pointer_push(path, key);
            for (name, sub) in props {
                let p = pointer_push(&base, name);
                out.push(Param {
                    path: p.clone(),
                    name,
                    title: sub.get("title").and_then(Value::as_str),
                    description: sub.get("description").and_then(Value::as_str),
                    schema: Some(sub),
                });
                collect(sub, &p, depth + 1, out);
            }
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "prefixItems",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
    ] {
        if let Some(sub) = map.get(key) {
            collect(sub, &pointer_push(path, key), depth + 1, out);
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get(key) {
            let base = pointer_push(path, key);
            for (name, sub) in defs {
                collect(sub, &pointer_push(&base, name), depth + 1, out);
            }
        }
    }
}

/// Whether a schema cannot hold a secret typed by the user: a boolean, a fixed value
/// (`enum`, `const`), or an object with properties of its own (its members are looked
/// at one by one).
fn cannot_hold_secret(schema: &Value) -> bool {
    let ty = schema.get("type");
    let only = |t: &str| match ty {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => !a.is_empty() && a.iter().all(|x| x.as_str() == Some(t)),
        _ => false,
    };
    only("boolean")
        || only("null")
        || schema.get("enum").is_some()
        || schema.get("const").is_some()
        || (only("object") && schema.get("properties").is_some())
}

/// Whether the field's title or the first clause of its description names something
/// other than a secret (see [`SOMETHING_ELSE`]).
fn names_something_else(p: &Param<'_>) -> bool {
    [p.title, p.description].into_iter().flatten().any(|t| {
        let folded = fold(t);
        let clause = folded
            .split(['.', '\n', ';', ':', '(', ',', '\u{3002}'])
            .next()
            .unwrap_or("");
        tokens(clause).iter().any(|w| SOMETHING_ELSE.contains(w))
    })
}

/// The kind of secret one parameter asks for, and what said so.
fn classify(p: &Param<'_>) -> Option<(Kind, &'static str)> {
    if p.schema.is_some_and(cannot_hold_secret) {
        return None;
    }
    let name = as_words(p.name);
    match classify_words(&name) {
        // A bare `token` or `pin` may be a crypto token or a map pin: the field's own
        // title or description settles it ("token symbol, e.g. ETH").
        Named::Secret(_) if AMBIGUOUS_NAMES.contains(&name.trim()) && names_something_else(p) => {
            return None;
        }
        Named::Secret(k) => return Some((k, "its name")),
        Named::About => return None,
        Named::Nothing => {}
    }
    if let Some(title) = p.title {
        match classify_words(&as_words(title)) {
            Named::Secret(k) => return Some((k, "its title")),
            Named::About => return None,
            Named::Nothing => {}
        }
    }
    if let Some(k) = p.description.and_then(classify_description) {
        return Some((k, "its description"));
    }
    let schema = p.schema?;
    if schema.get("format").and_then(Value::as_str) == Some("password") {
        return Some((Kind::Password, "its \"format\": \"password\""));
    }
    if schema.get("writeOnly") == Some(&Value::Bool(true)) {
        return Some((Kind::ApiToken, "its \"writeOnly\": true"));
    }
    None
}

/// The stated purpose of a tool or prompt: name and title as words, and the first
/// sentence of the description (at most 300 bytes).
fn purpose_text(descriptor: &Value) -> String {
    let get = |k: &str| descriptor.get(k).and_then(Value::as_str).unwrap_or("");
    let description = fold(get("description"));
    let mut end = description
        .find(['.', '\n', '\u{3002}'])
        .unwrap_or(description.len())
        .min(300);
    while !description.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n{}\n{}",
        as_words(get("name")),
        as_words(get("title")),
        &description[..end]
    )
}

/// Codes of the instruction detector that make a secret parameter part of an attack.
const ESCALATING: &[Code] = &[
    Code::ExfiltrationSink,
    Code::ToolShadowing,
    Code::ConcealmentPhrase,
    Code::CredentialAccess,
];

/// Appends `secret_parameter` findings for a tool's input schema or a prompt's arguments
/// (`descriptor` at `path`); `earlier` are the findings already made on it (severity
/// escalation, see the module docs).
pub(crate) fn scan_secret_params(
    kind: super::DescriptorKind,
    descriptor: &Value,
    path: &str,
    findings: &mut Vec<Finding>,
) {
    let mut params = Vec::new();
    match kind {
        super::DescriptorKind::Tool => {
            if let Some(schema) = descriptor.get("inputSchema") {
                collect(schema, &pointer_push(path, "inputSchema"), 0, &mut params);
            }
        }
        super::DescriptorKind::Prompt => {
            let args = descriptor.get("arguments").and_then(Value::as_array);
            for (i, arg) in args.into_iter().flatten().enumerate() {
                if let Some(name) = arg.get("name").and_then(Value::as_str) {
                    params.push(Param {
                        path: pointer_push(&pointer_push(path, "arguments"), &i.to_string()),
                        name,
                        title: arg.get("title").and_then(Value::as_str),
                        description: arg.get("description").and_then(Value::as_str),
                        schema: None,
                    });
                }
            }
        }
        _ => return,
    }
    let found: Vec<(&Param<'_>, Kind, &str)> = params
        .iter()
        .filter_map(|p| classify(p).map(|(k, why)| (p, k, why)))
        .collect();
    if found.is_empty() {
        return;
    }
    let purpose = purpose_text(descriptor);
    let attack = findings.iter().any(|f| ESCALATING.contains(&f.code));
    let what = kind.noun();
    for (p, k, why) in found {
        let label = super::walk::field_label(path, &p.path, what);
        let explained = k.purpose().is_match(&purpose);
        let (severity, message) = match (attack, explained) {
            (true, _) => (
                Severity::High,
                format!(
                    "{label} asks for {} ({why}) while the {what} also routes data elsewhere, hides something or reads local secrets; do not use it.",
                    k.noun()
                ),
            ),
            (false, true) => (
                Severity::Info,
                format!(
                    "{label} asks for {} ({why}); the {what}'s stated purpose needs one.",
                    k.noun()
                ),
            ),
            (false, false) => (
                Severity::Warn,
                format!(
                    "{label} asks for {} ({why}), which the {what}'s stated purpose does not need; the model may fill it from the conversation or ask the user for it. Check why before using it.",
                    k.noun()
                ),
            ),
        };
        findings.push(Finding::new(
            Code::SecretParameter,
            severity,
            &p.path,
            message,
        ));
    }
}

/// The noun patterns searched repeatedly over a name's words, for the search-shape test.
#[cfg(test)]
pub(super) fn shape_patterns() -> Vec<(&'static str, &'static Regex)> {
    Kind::ALL
        .iter()
        .map(|k| ("SECRET_NOUNS", k.pattern()))
        .collect()
}

#[cfg(test)]
#[path = "secret_params_tests.rs"]
mod tests;
