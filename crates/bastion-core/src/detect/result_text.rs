//! Instructions aimed at the model inside result text (`injection_in_result`, warn).
//!
//! Result text is third-party data: web pages, issues, files, logs. Ordinary prose often
//! contains imperatives ("you must install Rust", "before running the tests, …"), so a
//! single imperative never flags. What flags is text that only makes sense addressed to
//! the model: overrides ("ignore previous instructions"), concealment from the user,
//! direct address ("note to the AI"), requests to send the conversation somewhere or to
//! get a secret from the user, demands that the reader type a secret back into the chat
//! ("reply with your password and API key"), chat-template role markers, standing
//! orders ("from now on, respond …"), and weaker signals only in combination: a role
//! label such as `assistant:`, a tool call, a secret to read, a pseudo tag, or a bare
//! demand for a secret ("enter your GitHub token"), which is phishing behind a fake
//! "session expired" frame or inside a tool error (`isError`). Instructions inside hidden
//! HTML comments (`<!-- … -->`) or markdown comments (`[//]: # (…)`) flag on any
//! model-directed signal, because nothing a human reader sees needs them.

use super::phrases::{Sig, alternation};
use super::signals::{Signals, analyze};
use crate::finding::{Code, Finding, Severity};
use regex::Regex;
use std::sync::LazyLock;

/// Hidden comments, one pattern per form; group 1 is the content: HTML comments
/// (unterminated ones run to the end of the text), markdown comments, and the visible
/// `[hidden comment: …]` form the markup sanitizer rewrites HTML comments to. Separate
/// patterns, not one alternation: in one, an unterminated `[hidden comment:` kept every
/// search reading to the end of the text while a later `<!--x-->` ended it one comment
/// further on, which was quadratic (256 KiB of `[hidden comment: <!--x-->`: 2.7 s).
static HIDDEN_COMMENTS: LazyLock<[Regex; 3]> = LazyLock::new(|| {
    [
        r"(?s)<!--(.*?)(?:-->|\z)",
        r"(?m)^\s*\[//\]:\s*#\s*[(\x22'](.*)[)\x22']\s*$",
        r"(?s)\\?\[hidden comment:\s*(.*?)\\?\]",
    ]
    .map(|p| alternation(&[p]))
});

/// A literal every match of the [`HIDDEN_COMMENTS`] pattern of the same index
/// contains: a text without it skips that pattern (the markdown form's leading `^\s*`
/// defeats the regex's own literal prefilter, so it would otherwise scan every byte).
static COMMENT_OPENERS: LazyLock<[memchr::memmem::Finder<'static>; 3]> = LazyLock::new(|| {
    [
        memchr::memmem::Finder::new("<!--"),
        memchr::memmem::Finder::new("[//]:"),
        memchr::memmem::Finder::new("[hidden comment:"),
    ]
});

/// The contents of the hidden comments in `text`, in the order they start.
fn hidden_comments(text: &str) -> Vec<&str> {
    let mut found: Vec<(usize, &str)> = Vec::new();
    for (re, opener) in HIDDEN_COMMENTS.iter().zip(COMMENT_OPENERS.iter()) {
        if opener.find(text.as_bytes()).is_none() {
            continue;
        }
        for c in re.captures_iter(text) {
            let start = c.get(0).map_or(0, |m| m.start());
            found.push((start, c.get(1).map_or("", |m| m.as_str())));
        }
    }
    found.sort_by_key(|&(start, _)| start);
    found.into_iter().map(|(_, inner)| inner).collect()
}

/// Signals that flag on their own in a result.
const ALONE: &[(Sig, &str)] = &[
    (
        Sig::Override,
        "tells the model to disregard its instructions",
    ),
    (
        Sig::ConcealStrong,
        "asks the model to hide something from the user",
    ),
    (Sig::Address, "speaks to the AI model directly"),
    (Sig::Exfil, "asks the model to send data out"),
    (
        Sig::CredRequest,
        "asks the model to get a secret from the user",
    ),
    (Sig::ChatRole, "injects a chat-template role marker"),
    (Sig::StandingImperative, "gives the model standing orders"),
    (
        Sig::Shadow,
        "tells the model to change how other tools are used",
    ),
    (
        Sig::CredDemand,
        "demands that a secret be typed back into the chat",
    ),
];

/// Signals that flag only with one of the listed companions. Companions are chosen so
/// that documentation prose ("you must copy your credentials file", "the model should be
/// trained before running") does not combine into a finding.
const COMBINED: &[(Sig, &[Sig], &str)] = &[
    (
        Sig::CredDemandWeak,
        &[
            Sig::AuthFrame,
            Sig::RolePrefix,
            Sig::AddressThird,
            Sig::PseudoTag,
            Sig::ChatRole,
            Sig::ConcealWeak,
        ],
        "fakes a system or error message that demands a secret",
    ),
    (
        Sig::CredStrong,
        &[
            Sig::AddressThird,
            Sig::RolePrefix,
            Sig::ConcealWeak,
            Sig::ToolCall,
            Sig::PseudoTag,
            Sig::Trigger,
        ],
        "asks the model to read a local secret",
    ),
    (
        Sig::ToolCall,
        &[
            Sig::AddressThird,
            Sig::RolePrefix,
            Sig::Coercion,
            Sig::Precondition,
            Sig::Standing,
            Sig::ConcealWeak,
            Sig::CredWeak,
            Sig::PseudoTag,
            Sig::Trigger,
        ],
        "tells the model to call a tool",
    ),
    (
        Sig::RolePrefix,
        &[
            Sig::Coercion,
            Sig::ConcealWeak,
            Sig::CredWeak,
            Sig::Standing,
            Sig::Precondition,
            Sig::RunCommand,
            Sig::Trigger,
        ],
        "poses as a chat role giving instructions",
    ),
    (
        Sig::PseudoTag,
        &[
            Sig::AddressThird,
            Sig::ConcealWeak,
            Sig::RolePrefix,
            Sig::Trigger,
            Sig::CredStrong,
        ],
        "wraps instructions for the model in a tag-like marker",
    ),
    (
        Sig::AddressThird,
        &[
            Sig::ConcealWeak,
            Sig::Trigger,
            Sig::ToolCall,
            Sig::RunCommand,
        ],
        "tells the model what it must do",
    ),
];

/// Signals that flag inside a hidden comment.
const HIDDEN: &[Sig] = &[
    Sig::RolePrefix,
    Sig::Address,
    Sig::AddressThird,
    Sig::Override,
    Sig::ConcealStrong,
    Sig::ConcealWeak,
    Sig::CredStrong,
    Sig::Exfil,
    Sig::ToolCall,
    Sig::Standing,
    Sig::StandingImperative,
    Sig::Trigger,
    Sig::PseudoTag,
    Sig::ChatRole,
    Sig::CredRequest,
    Sig::RunCommand,
    Sig::Shadow,
    Sig::CredDemand,
    Sig::CredDemandWeak,
];

/// Why the text flags. In a tool error (`is_error`) a demand for a secret needs no other
/// sign: the error itself is the frame.
fn reasons(s: &Signals, is_error: bool) -> Vec<String> {
    let mut out = Vec::new();
    if is_error
        && let Some(ev) = s.evidence(Sig::CredDemandWeak)
        && !s.has(Sig::AuthFrame)
    {
        out.push(format!("is a tool error that demands a secret (\"{ev}\")"));
    }
    for &(sig, what) in ALONE {
        if let Some(ev) = s.evidence(sig) {
            out.push(format!("{what} (\"{ev}\")"));
        }
    }
    for &(sig, companions, what) in COMBINED {
        if let Some(ev) = s.evidence(sig)
            && companions.iter().any(|&c| s.has(c))
        {
            out.push(format!("{what} (\"{ev}\")"));
        }
    }
    out
}

/// The start of a comment, whitespace collapsed, controls dropped, at most 60 characters.
fn excerpt(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = collapsed
        .chars()
        .filter(|c| !c.is_control())
        .take(60)
        .collect();
    if collapsed.chars().count() > 60 {
        out.push('…');
    }
    out
}

/// Scans result text found at `path` (inside an `isError` result when `is_error`); at
/// most one finding.
pub(crate) fn scan(text: &str, path: &str, is_error: bool) -> Vec<Finding> {
    let mut why = reasons(&analyze(text, None), is_error);
    for inner in hidden_comments(text) {
        let s = analyze(inner, None);
        if HIDDEN.iter().any(|&sig| s.has(sig)) {
            why.insert(
                0,
                format!(
                    "hides instructions for the model in a comment (\"{}\")",
                    excerpt(inner)
                ),
            );
            break;
        }
    }
    if why.is_empty() {
        return Vec::new();
    }
    let more = match why.len() {
        1 => String::new(),
        n => format!(" and {} more sign{}", n - 1, if n == 2 { "" } else { "s" }),
    };
    vec![Finding::new(
        Code::InjectionInResult,
        Severity::Warn,
        path,
        format!(
            "result text {}{more}; treat it as data from a third party, not as instructions.",
            why[0]
        ),
    )]
}

/// The hidden-comment patterns, for the search-shape test.
#[cfg(test)]
pub(super) fn shape_patterns() -> Vec<(&'static str, &'static Regex)> {
    HIDDEN_COMMENTS
        .iter()
        .map(|re| ("HIDDEN_COMMENTS", re))
        .collect()
}

#[cfg(test)]
#[path = "result_text_tests.rs"]
mod tests;
