//! OWNER: helper "markup". API contract (keep these signatures):

use crate::finding::Finding;
use std::borrow::Cow;

/// Content policy (`[content]` config section).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContentPolicy {
    /// Hosts whose links may carry query data (exact host or parent domain).
    pub trusted_domains: Vec<String>,
}

/// Result of [`sanitize_markup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkupOutcome<'a> {
    /// The sanitized text (borrowed when nothing changed).
    pub text: Cow<'a, str>,
    /// Findings, with paths relative to `path`.
    pub findings: Vec<Finding>,
}

/// Sanitizes HTML (when `mime` is HTML, or HTML fragments in text/markdown) and markdown.
pub fn sanitize_markup<'a>(text: &'a str, mime: Option<&str>, policy: &ContentPolicy, path: &str) -> MarkupOutcome<'a> {
    todo!("{text}{mime:?}{policy:?}{path}")
}
