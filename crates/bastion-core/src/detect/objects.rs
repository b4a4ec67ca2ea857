//! The objects of instruction verbs, in folded text: local secrets (credential files, key
//! files, secret-named environment variables), conversation data, and sinks (URLs,
//! e-mail addresses, tool parameters) that data could be sent to.

use super::langs;
use super::phrases::{alternation, alternation_with};
use regex::Regex;
use std::sync::LazyLock;

/// What an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ObjKind {
    /// A specific secret: key or credential file, secret-named variable.
    CredStrong,
    /// A generic secret word: "password", "api key", "environment variables".
    CredWeak,
    /// The conversation itself: "the full chat history", "all previous messages".
    DataStrong,
    /// User or file data that is only suspicious with a sink: "the user's last message".
    DataMedium,
}

/// One object found in a sentence (byte range into the sentence).
#[derive(Debug, Clone)]
pub(crate) struct Obj {
    pub start: usize,
    /// End (exclusive) of the match, in bytes into the sentence.
    pub end: usize,
    pub kind: ObjKind,
    /// Short text naming the object, for messages.
    pub label: String,
}

static CRED_STRONG: LazyLock<Regex> = LazyLock::new(|| {
    alternation_with(
        &[
            r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?:\.pub\b)?",
            // An identifier read as words (`readSshIdRsa`).
            r"\bid (?:rsa|dsa|ecdsa|ed ?25519)\b",
            r"(?:^|[\s'`(=/])\.env(?:\.[a-z0-9_]+)?\b",
            r"\.aws/(?:credentials|config)\b",
            r"\.(?:npmrc|netrc|pgpass|pypirc|git-credentials|gnupg|password-store)\b",
            r"\.docker/config\.json\b",
            r"\.kube/config\b",
            r"/etc/(?:shadow|gshadow|sudoers)\b",
            r"\bcredentials?\.(?:json|ya?ml|toml|ini|txt|xml|csv|db|env)\b",
            r"\b(?:private|secret|signing|ssh|gpg|pgp) keys?\b",
            r"\b(?:seed|recovery|mnemonic) phrases?\b",
            r"\bwallet\.dat\b|\bkeychain\b|\bkeystore\b",
            r"\b(?:bash|zsh|fish)_history\b",
            r"\bcookies?(?:\.sqlite| database| jar| store)\b",
            r"\b(?:saved|stored|browser) passwords\b|\blogin data\b",
        ],
        langs::CRED_STRONG,
    )
});

/// The credential-path patterns with an unbounded run of path characters, each searched
/// on its own, in the order a match at the same place wins: `~/.ssh…`, `.ssh/…`, a
/// secret under a home directory, then (after [`CRED_STRONG`]) a key file name. In one
/// alternation with the other objects they were quadratic: such a run read to the end
/// of a text without spaces and failed, while a short pattern matched a few bytes on
/// (`read -id_rsa-id_rsa…`: 9.4 s for 256 KiB), and the next search began there.
static CRED_PATHS: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    [
            r#"~/\.ssh\b[^\s'"`,;)\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}]*"#,
            r#"\.ssh/[^\s'"`,;)\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}]*"#,
            r#"(?:~|\$home|%userprofile%|/home/[^/\s]+|/root|/users/[^/\s]+)/[^\s'"`,;)\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}]*(?:credential|secret|token|passw|\.env|keys?\b|\.aws|\.kube|\.docker|\.npmrc|\.netrc|\.pgpass|\.gnupg|wallet|cookie)[^\s'"`,;)\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}]*"#,
            r"\b[a-z0-9_.-]+\.(?:pem|p12|pfx|jks|ppk|key)\b",
    ]
    .map(|p| alternation(&[p]))
});

/// [`CRED_STRONG`] and [`CRED_PATHS`] matches in `sentence` in text order, none inside
/// another: at one start the earlier pattern wins, as in one leftmost-first alternation.
fn cred_strong_matches(sentence: &str) -> Vec<regex::Match<'_>> {
    let [ssh_home, ssh, home, key_file] = &*CRED_PATHS;
    let mut all: Vec<(usize, regex::Match<'_>)> = Vec::new();
    for (rank, re) in [ssh_home, ssh, home, &*CRED_STRONG, key_file]
        .into_iter()
        .enumerate()
    {
        all.extend(re.find_iter(sentence).map(|m| (rank, m)));
    }
    all.sort_by_key(|&(rank, m)| (m.start(), rank));
    let mut end = 0;
    let mut out = Vec::new();
    for (_, m) in all {
        if m.start() >= end {
            end = m.end();
            out.push(m);
        }
    }
    out
}

static CRED_WEAK: LazyLock<Regex> = LazyLock::new(|| {
    alternation_with(
        &[
            r"\b(?:passwords?|passphrases?|passcodes?|api[ -]?keys?|apikeys?|access tokens?|auth tokens?|bearer tokens?|refresh tokens?|session tokens?|secrets?|tokens?|credentials|environment variables?|env vars?|env variables?|cookies|passworter|passwort|mot de passe|mots de passe|contrasenas?|claves?)\b",
            r"\bprocess\.env\b|\bos\.environ\b|\bprintenv\b|/proc/self/environ\b",
        ],
        langs::CRED_WEAK,
    )
});

/// Identifier-like tokens; secret-named ones are strong credential objects.
static IDENT: LazyLock<Regex> = LazyLock::new(|| {
    alternation(&[
        r"\$\{?[a-z_][a-z0-9_]*\}?",
        r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b",
    ])
});

static DATA_STRONG: LazyLock<Regex> = LazyLock::new(|| {
    alternation_with(
        &[
            r"\b(?:the |this |our |your |their |my )?(?:(?:full|entire|complete|whole|current|previous|prior|raw|ongoing) )*(?:conversation|chat|dialog|dialogue)(?: (?:history|log|logs|transcript|so far|context|thread|messages?))*\b",
            r"\b(?:chat|message|prompt|conversation|session) (?:history|log|logs|transcripts?)\b",
            r"\b(?:all|every|each)(?: of the| the| of your| your| of the user's| the user's)? (?:(?:previous|prior|earlier|past|other|user|user's) )?(?:messages|prompts|replies|turns)\b",
            r"\b(?:previous|prior|earlier|past) (?:messages|prompts|turns|exchanges)\b",
            r"\b(?:the |your )?system prompt\b",
            r"\byour (?:instructions|system instructions|context window|memory|memories)\b",
            r"\beverything (?:the user|you) (?:said|wrote|typed|asked|shared)\b",
            r"\bthe user's (?:full |entire |complete |whole )(?:message|messages|input|prompt|request)s?\b",
            r"\bthe user's (?:messages|prompts|inputs)\b",
            r"\b(?:the )?(?:results?|outputs?|responses?) of (?:every|all|each|any|the other|other) (?:other )?(?:tools?|calls?|tool calls?)\b",
            r"\b(?:den |die )?(?:gesamten |ganzen |kompletten )?(?:chatverlauf|gesprachsverlauf|verlauf|unterhaltung)\b",
            r"\b(?:l'|l )?(?:historique|integralite) de (?:la )?(?:conversation|discussion)\b",
            r"\btoute la (?:conversation|discussion)\b",
            r"\b(?:el )?historial (?:del chat|de (?:la )?conversacion)\b",
            r"\btoda la conversacion\b",
        ],
        langs::DATA_STRONG,
    )
});

static DATA_MEDIUM: LazyLock<Regex> = LazyLock::new(|| {
    alternation(&[
        r"\b(?:the )?user's (?:(?:last|latest|previous|most recent|current|original|next) )?(?:message|prompt|query|question|request|input|reply|answer|text)\b",
        r"\b(?:the )?(?:last|latest|previous|most recent) (?:user )?(?:message|prompt|question|request)\b",
        r"\bits (?:(?:full|entire|whole|complete|raw) )?(?:text|contents?)\b",
        r"\bthe (?:(?:full|entire|whole|complete|raw) )?(?:text|contents?) of\b",
        r"\b(?:file|their) contents\b",
    ])
});

/// Paths and URLs end where Han, kana or Hangul text begins (`~/.ssh/id_rsaを読んで`).
static URL: LazyLock<Regex> = LazyLock::new(|| {
    alternation(&[
        r#"\bhttps?://([^\s'"`)>\]/?#\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}]+)[^\s'"`)>\]\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}]*"#,
    ])
});
static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| alternation(&[r"\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b"]));
static PARAM_SINK: LazyLock<Regex> = LazyLock::new(|| {
    alternation_with(
        &[
            r#"\b(?:into|in|to|as|inside|under) (?:the |this |a |its )?['"`]?[a-z0-9_.-]+['"`]? (?:argument|parameter|param|field|property|variable|arg|input|key)\b"#,
            r"\b(?:to|into|onto|at the end of|with) (?:this|the|that) (?:default|url|link|endpoint|address|webhook|query string|query|request|uri)\b",
            r#"\bto ['"`]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+['"`]?"#,
        ],
        langs::PARAM_SINK,
    )
});
static ENCODING_SINK: LazyLock<Regex> = LazyLock::new(|| {
    alternation(&[r"\burl-?encoded\b|\bbase64(?:-encoded)?\b|\bwebhook\b|\bquery string\b"])
});

/// Segments that make an identifier name a secret.
const SECRET_SEGMENTS: &[&str] = &[
    "secret",
    "secrets",
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "token",
    "apikey",
    "credential",
    "credentials",
    "privatekey",
    "pat",
];
/// Segment pairs that name a secret (`api_key`, `access_key`, `client_secret` is above).
const SECRET_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("secret", "key"),
    ("signing", "key"),
    ("session", "key"),
    ("master", "key"),
    ("encryption", "key"),
];
/// Segments that make an identifier a counter, cursor or limit rather than a secret.
const NOT_SECRET_SEGMENTS: &[&str] = &[
    "page",
    "next",
    "cursor",
    "max",
    "min",
    "continuation",
    "csrf",
    "sync",
    "count",
    "limit",
    "num",
    "total",
    "length",
    "type",
    "name",
    "id",
    "expiry",
    "expires",
    "ttl",
    "url",
    "usage",
    "budget",
    "input",
    "output",
    "estimate",
    "prompt",
    "completion",
    "reset",
    "format",
    "field",
];

/// Whether an identifier (`aws_secret_access_key`, `$GITHUB_TOKEN`) names a secret.
pub(crate) fn is_secret_name(token: &str) -> bool {
    let bare = token.trim_start_matches('$').trim_matches(['{', '}']);
    let segments: Vec<&str> = bare.split('_').filter(|s| !s.is_empty()).collect();
    if segments.len() < 2 && !token.starts_with('$') {
        return false;
    }
    if segments.iter().any(|s| NOT_SECRET_SEGMENTS.contains(s)) {
        return false;
    }
    segments.iter().any(|s| SECRET_SEGMENTS.contains(s))
        || segments
            .windows(2)
            .any(|w| SECRET_PAIRS.contains(&(w[0], w[1])))
}

fn clip(s: &str, max: usize) -> String {
    let s = s
        .trim_start_matches(|c: char| c.is_whitespace() || "'\"`(=".contains(c))
        .trim_end_matches(|c: char| c.is_whitespace() || "'\"`),.;:".contains(c));
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

/// Where an object starts: past the separator a pattern's word boundary consumed
/// (see [`super::phrases::boundaries`]), so that it never starts inside the verb before it.
fn start_of(m: &regex::Match<'_>) -> usize {
    m.end() - m.as_str().trim_start().len()
}

/// Every credential and data object in `sentence`, in order of position.
pub(crate) fn find_objects(sentence: &str) -> Vec<Obj> {
    let mut out = Vec::new();
    for m in cred_strong_matches(sentence) {
        // A `.pub` key file is the public half.
        if m.as_str().to_ascii_lowercase().ends_with(".pub") {
            continue;
        }
        out.push(Obj {
            start: start_of(&m),
            end: m.end(),
            kind: ObjKind::CredStrong,
            label: clip(m.as_str(), 60),
        });
    }
    for m in IDENT.find_iter(sentence) {
        if is_secret_name(m.as_str()) {
            let label = clip(m.as_str(), 60).to_ascii_uppercase();
            out.push(Obj {
                start: start_of(&m),
                end: m.end(),
                kind: ObjKind::CredStrong,
                label,
            });
        }
    }
    for m in CRED_WEAK.find_iter(sentence) {
        out.push(Obj {
            start: start_of(&m),
            end: m.end(),
            kind: ObjKind::CredWeak,
            label: clip(m.as_str(), 40),
        });
    }
    for m in DATA_STRONG.find_iter(sentence) {
        if names_an_attribute(&sentence[m.end()..]) {
            continue;
        }
        out.push(Obj {
            start: start_of(&m),
            end: m.end(),
            kind: ObjKind::DataStrong,
            label: clip(m.as_str(), 60),
        });
    }
    for m in DATA_MEDIUM.find_iter(sentence) {
        out.push(Obj {
            start: start_of(&m),
            end: m.end(),
            kind: ObjKind::DataMedium,
            label: clip(m.as_str(), 60),
        });
    }
    out.sort_by_key(|o| (o.start, o.kind));
    out
}

/// "the conversation id", "the chat title": the noun is an attribute, not the data.
fn names_an_attribute(rest: &str) -> bool {
    let Some(next) = super::fold::leading_word(rest) else {
        return false;
    };
    let next = next.trim_matches(|c: char| !c.is_alphanumeric());
    matches!(
        next,
        "id" | "ids"
            | "identifier"
            | "name"
            | "title"
            | "key"
            | "number"
            | "url"
            | "link"
            | "type"
            | "count"
            | "topic"
            | "summary"
            | "summaries"
            | "starter"
            | "starters"
            | "mode"
            | "model"
            | "settings"
            | "format"
    )
}

/// A sink in `sentence`: where data would go (URL host, e-mail address, parameter), as a
/// short label that reads after a verb and its object ("to a URL on x.example").
pub(crate) fn find_sink(sentence: &str) -> Option<String> {
    if let Some(target) = address_target(sentence) {
        return Some(format!("to {target}"));
    }
    // "in the environment variable FOO" keeps a secret where it belongs: no sink.
    if let Some(m) = PARAM_SINK.find_iter(sentence).find(|m| {
        !m.as_str()
            .split_whitespace()
            .any(|w| matches!(w, "environment" | "env" | "shell" | "system"))
    }) {
        return Some(clip(m.as_str(), 60));
    }
    ENCODING_SINK
        .find(sentence)
        .map(|m| format!("({})", clip(m.as_str(), 30)))
}

/// The first e-mail address in `sentence`, else the host of its first URL.
pub(crate) fn address_target(sentence: &str) -> Option<String> {
    if let Some(m) = EMAIL.find(sentence) {
        return Some(clip(m.as_str(), 60));
    }
    URL.captures(sentence)
        .map(|c| format!("a URL on {}", clip(&c[1], 60)))
}

/// The object and sink patterns with their names, for the prefilter's anchor tests.
#[cfg(test)]
pub(crate) fn patterns() -> [(&'static str, &'static Regex); 13] {
    let [ssh_home, ssh, home, key_file] = &*CRED_PATHS;
    [
        ("CRED_STRONG", &CRED_STRONG),
        ("CRED_PATHS ~/.ssh", ssh_home),
        ("CRED_PATHS .ssh/", ssh),
        ("CRED_PATHS home", home),
        ("CRED_PATHS key file", key_file),
        ("CRED_WEAK", &CRED_WEAK),
        ("IDENT", &IDENT),
        ("DATA_STRONG", &DATA_STRONG),
        ("DATA_MEDIUM", &DATA_MEDIUM),
        ("URL", &URL),
        ("EMAIL", &EMAIL),
        ("PARAM_SINK", &PARAM_SINK),
        ("ENCODING_SINK", &ENCODING_SINK),
    ]
}

#[cfg(test)]
#[path = "objects_tests.rs"]
mod tests;
