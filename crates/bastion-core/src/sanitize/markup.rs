//! HTML and markdown sanitizing of result text (DESIGN §4: "HTML is sanitized").
//!
//! [`sanitize_markup`] runs on every text content item of `tools/call` results,
//! `resources/read` text contents and `prompts/get` messages, after terminal and
//! hidden-character sanitizing. What it does depends on the content's MIME type:
//!
//! | `mime` (essence, case-insensitive) | treatment |
//! |---|---|
//! | `text/html`, `application/xhtml+xml`, `image/svg+xml` (unless [`ContentPolicy::allow_svg`]) | the whole text is cleaned by an [`ammonia`] allowlist ([`super::html`]) |
//! | absent, `text/markdown`, `text/x-markdown`, `text/plain` | parsed as `CommonMark` with GFM tables, strikethrough, task lists and footnotes ([`super::markdown`]); raw HTML in it is cleaned by the same allowlist, or shown as escaped text when [`ContentPolicy::html_in_text`] is `escape` |
//! | anything else (`application/json`, `text/csv`, source code, …) | returned unchanged: it is not rendered as markup |
//!
//! Markdown is rewritten by replacing source byte ranges reported by the parser, never by
//! re-rendering, so text that is not changed stays byte-identical. Code spans and code
//! blocks are never changed. Whatever is neutralized becomes inert text that still shows
//! what it was: `[image: ALT (HOST)]`, `TEXT (link removed: `URL`)`, `TEXT (link target:
//! `URL`)`, `[hidden comment: TEXT]`. The result is idempotent: the sanitizer is re-run on
//! its own output until nothing changes (at most [`MAX_PASSES`] passes; if markup still
//! changes after that, every markup character is escaped).
//!
//! # Cost
//! Every pass is linear in the length of the text. HTML tree construction is not linear
//! on hostile input (nesting, unclosed formatting elements, attribute lists), so every
//! HTML document or block is first metered with html5ever's own tokenizer and tree
//! builder ([`guard`]) and escaped as text from the point where it would stop being
//! linear (`html_sanitized`); link texts are compared with their targets by registrable
//! domain (Public Suffix List), and findings are kept in a set.
//!
//! # Findings and severities
//! Every finding carries the `path` given by the caller (the pointer of the text value).
//! Findings about content that the rewrite made harmless (`html_sanitized`,
//! `external_image`, `link_exfiltration`, `link_text_mismatch`, `dangerous_url_scheme`)
//! are `info`: the text that reaches the host is safe, so the verdict is `sanitize`.
//! `hidden_comment` is `warn` (verdict `flag`): the hidden text is shown to the user, who
//! should know that the server tried to address the model out of view.
//!
//! Sources: `CommonMark` 0.31.2 (links §6.3, images §6.4, autolinks §6.5, raw HTML §6.6,
//! HTML blocks §4.6, backslash escapes §2.4), the WHATWG URL Standard (via the `url`
//! crate), the HTML Living Standard parsing algorithm (via `html5ever` inside `ammonia`),
//! and the OWASP XSS Prevention Cheat Sheet (allowlist of elements, attributes and URL
//! schemes).

use crate::finding::{Code, Finding, Severity};
use std::borrow::Cow;
use std::collections::HashSet;

#[path = "markup_guard.rs"]
pub(crate) mod guard;

#[path = "markup_escape.rs"]
mod escape;
#[path = "markup_policy.rs"]
mod policy;
#[path = "markup_target.rs"]
mod target;
#[cfg(test)]
#[path = "markup_tests.rs"]
mod tests;
#[path = "markup_urls.rs"]
mod urls;

use escape::escape_markdown_all;
pub(crate) use escape::{
    LT, code_span, defanged_url, display_url, escape_html_all, escape_inline, image_marker,
};
pub use policy::{ContentPolicy, HtmlInText, InjectionMode};
pub(crate) use target::{Target, classify};
pub(crate) use urls::{data_carriers, mismatched_hosts};

/// Result of [`sanitize_markup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkupOutcome<'a> {
    /// The sanitized text (borrowed when nothing changed).
    pub text: Cow<'a, str>,
    /// Findings; each carries the caller's `path` (the JSON Pointer of the text value).
    pub findings: Vec<Finding>,
}

/// How many times the sanitizer is re-run on its own output before it gives up and
/// escapes every markup character (see the module docs).
pub const MAX_PASSES: usize = 6;

/// Sanitizes HTML (when `mime` is HTML, or HTML fragments in text/markdown) and markdown.
///
/// `text` is one text value; `mime` its MIME type when the protocol gives one (`mimeType`
/// of a resource content; `None` for tool results and prompt messages); `policy` the
/// `[content]` policy; `path` the JSON Pointer of the text value, copied into every
/// finding. Returns the sanitized text, borrowed when nothing changed (always the case
/// for text with neither `<` nor `[` nor a URL with a query or fragment, which is
/// returned without parsing), and the findings. Never fails: hostile input yields findings, not errors.
///
/// See the module documentation for what is rewritten and how.
pub fn sanitize_markup<'a>(
    text: &'a str,
    mime: Option<&str>,
    policy: &ContentPolicy,
    path: &str,
) -> MarkupOutcome<'a> {
    let mut findings = Findings::new(path);
    // A pass's output has no lone CR either: an edit can write one (an HTML block shown as
    // text decodes `&#xd` in it), and the next pass must see the text as it is handed on.
    let markdown_pass = |t: &str, f: &mut Findings<'_>| {
        super::markdown::sanitize(t, policy, f).map(|out| lone_cr_as_lf(&out).unwrap_or(out))
    };
    let out = match Flavor::of(mime, policy) {
        Flavor::Opaque => Cow::Borrowed(text),
        Flavor::Html if memchr::memchr(b'<', text.as_bytes()).is_none() => Cow::Borrowed(text),
        Flavor::Markdown if !may_hold_markdown(text.as_bytes()) => Cow::Borrowed(text),
        Flavor::Html => settle(
            text,
            &mut findings,
            |t, f| super::html::sanitize_document(t, policy, f),
            escape_html_all,
        ),
        Flavor::Markdown => {
            let settled = match lone_cr_as_lf(text) {
                // A lone CR ends a line (`CommonMark` §2.1) for the renderers hosts use,
                // but pulldown-cmark keeps it as text inside a code block, where
                // everything after it would go unchecked: such text is checked, and
                // handed on, with LF.
                Some(lf) => Cow::Owned(
                    settle(&lf, &mut findings, markdown_pass, escape_markdown_all).into_owned(),
                ),
                None => settle(text, &mut findings, markdown_pass, escape_markdown_all),
            };
            read_again(settled, policy, &mut findings, markdown_pass)
        }
    };
    MarkupOutcome {
        text: out,
        findings: findings.into_vec(),
    }
}

/// `text` with every CR that no LF follows replaced by LF, or `None` when it has no such
/// CR (CR LF stays: every parser reads it as one line end).
fn lone_cr_as_lf(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let lone = |i: usize| bytes.get(i + 1) != Some(&b'\n');
    memchr::memchr_iter(b'\r', bytes).find(|&i| lone(i))?;
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for i in memchr::memchr_iter(b'\r', bytes).filter(|&i| lone(i)) {
        out.push_str(&text[at..i]);
        out.push('\n');
        at = i + 1;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// Whether markdown text can hold anything the markdown sanitizer changes: a link, image
/// or HTML (`<`, `[`), a bare URL that can carry data (`://` or `www.`, with `?` or
/// `#`; or a schemeless one, [`may_hold_schemeless_url`]), or a bare `ftp://` or
/// `xmpp:` URL.
fn may_hold_markdown(text: &[u8]) -> bool {
    memchr::memchr2(b'<', b'[', text).is_some()
        || (memchr::memchr2(b'?', b'#', text).is_some()
            && (memchr::memmem::find(text, b"://").is_some()
                || memchr::memmem::find(text, b"www.").is_some()
                || memchr::memmem::find(text, b"WWW.").is_some()
                || may_hold_schemeless_url(text)))
        || memchr::memchr_iter(b':', text).any(|i| {
            // cmark-gfm also autolinks `ftp://` and `xmpp:`, any letter case.
            let before = &text[..i];
            (before.len() >= 3
                && before[i - 3..].eq_ignore_ascii_case(b"ftp")
                && text[i..].starts_with(b"://"))
                || (before.len() >= 4 && before[i - 4..].eq_ignore_ascii_case(b"xmpp"))
        })
}

/// Whether some whitespace-delimited token of `text` has a `.` followed by a letter or
/// digit (or a non-ASCII byte), or a `//`, and after it a `?` or `#`: the shape of a
/// schemeless link carrying data (`attacker.com/c?d=…`) that markdown-it's linkify makes,
/// `//` links included, whose user info may come before the dot
/// (`//1249767200?token=…@x.com/` goes to the IPv4 address 1249767200). One pass.
fn may_hold_schemeless_url(text: &[u8]) -> bool {
    let mut dotted = false;
    let mut prev = 0u8;
    for &b in text {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b'<' => dotted = false,
            b'?' | b'#' if dotted => return true,
            b'/' if prev == b'/' => dotted = true,
            _ if prev == b'.' && (b.is_ascii_alphanumeric() || !b.is_ascii()) => dotted = true,
            _ => {}
        }
        prev = b;
    }
    false
}

/// Which sanitizer a MIME type gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Html,
    Markdown,
    Opaque,
}

impl Flavor {
    fn of(mime: Option<&str>, policy: &ContentPolicy) -> Self {
        let Some(mime) = mime else {
            return Self::Markdown;
        };
        let essence = mime.split(';').next().unwrap_or_default().trim();
        if essence.eq_ignore_ascii_case("text/html")
            || essence.eq_ignore_ascii_case("application/xhtml+xml")
            // SVG renders like HTML in a browser context (scripts, handlers).
            || (essence.eq_ignore_ascii_case("image/svg+xml") && !policy.allow_svg)
        {
            Self::Html
        } else if ["text/markdown", "text/x-markdown", "text/plain"]
            .iter()
            .any(|m| essence.eq_ignore_ascii_case(m))
        {
            Self::Markdown
        } else {
            Self::Opaque
        }
    }
}

/// How far the passes of [`settle`] may grow a text: to this many times its size plus
/// [`GROWTH_SLACK`] bytes. Each pass grows it by a bounded factor (a removed URL is shown
/// defanged, escapes are added), but passes that re-read what the last one wrote can
/// compound that (a hostile review saw 1 MB of nested data-carrying URLs become 65 MB
/// and 10.7 GB of memory within the six passes).
const MAX_GROWTH: usize = 8;

/// Bytes every text may grow by in [`settle`] whatever its size.
const GROWTH_SLACK: usize = 16 * 1024;

/// Runs `pass` until it reports no change; `pass` returns `None` when its input is clean.
/// After [`MAX_PASSES`] changing passes, or as soon as a pass's output outgrows
/// [`MAX_GROWTH`], the text is made `inert` (every markup character escaped: the last
/// pass's output, or the text as given when it outgrew the bound) and given one more
/// pass.
fn settle<'a>(
    text: &'a str,
    findings: &mut Findings<'_>,
    pass: impl Fn(&str, &mut Findings<'_>) -> Option<String>,
    inert: fn(&str) -> String,
) -> Cow<'a, str> {
    let before = findings.len();
    let Some(mut current) = pass(text, findings) else {
        findings.truncate(before); // nothing was rewritten: nothing to report
        return Cow::Borrowed(text);
    };
    let bound = text
        .len()
        .saturating_mul(MAX_GROWTH)
        .saturating_add(GROWTH_SLACK);
    let mut passes = 1;
    while passes < MAX_PASSES && current.len() <= bound {
        match pass(&current, findings) {
            None => return Cow::Owned(current),
            Some(next) => current = next,
        }
        passes += 1;
    }
    let escaped = if current.len() > bound {
        findings.push(
            Code::HtmlSanitized,
            format!(
                "sanitizing grew the markup past {MAX_GROWTH} times its size ({} bytes to {}); every markup character of the original was escaped",
                text.len(),
                current.len()
            ),
        );
        inert(text)
    } else {
        findings.push(
            Code::HtmlSanitized,
            format!("markup kept changing after {MAX_PASSES} sanitizing passes; every markup character was escaped"),
        );
        inert(&current)
    };
    // Escaped text has no markup left, but what a host finds in plain text still counts:
    // a bare URL (GFM autolinks it) gets the pass's treatment once more, so the result is
    // as inert, and as stable under another pass, as a settled one.
    match pass(&escaped, findings) {
        Some(out) => Cow::Owned(out),
        None => Cow::Owned(escaped),
    }
}

/// The settled markdown, read again as cmark-gfm reads it
/// ([`super::second_reading`]). When that reading finds something active that the
/// sanitizer's parser did not (the two parsers disagree on the text's structure), the
/// whole text is escaped as in [`settle`]'s fallback, bare URLs get one more `pass`, and a
/// finding names what was found.
fn read_again<'a>(
    settled: Cow<'a, str>,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
    pass: impl Fn(&str, &mut Findings<'_>) -> Option<String>,
) -> Cow<'a, str> {
    let Some((code, what)) = super::second_reading::first_active(&settled, policy) else {
        return settled;
    };
    findings.push(
        code,
        format!(
            "cmark-gfm reads {what} in this markdown where the sanitizer's parser does not; every markup character was escaped"
        ),
    );
    let escaped = escape_markdown_all(&settled);
    match pass(&escaped, findings) {
        Some(out) => Cow::Owned(out),
        None => Cow::Owned(escaped),
    }
}

/// Collects findings for one text value, without duplicates (a set keeps adding linear).
#[derive(Debug)]
pub(crate) struct Findings<'p> {
    path: &'p str,
    list: Vec<Finding>,
    seen: HashSet<(Code, String)>,
}

impl<'p> Findings<'p> {
    pub(crate) fn new(path: &'p str) -> Self {
        Self {
            path,
            list: Vec::new(),
            seen: HashSet::new(),
        }
    }

    /// Adds a finding with the severity this module gives `code` (see the module docs).
    pub(crate) fn push(&mut self, code: Code, message: String) {
        let severity = if code == Code::HiddenComment {
            Severity::Warn
        } else {
            Severity::Info
        };
        if self.seen.insert((code, message.clone())) {
            self.list
                .push(Finding::new(code, severity, self.path, message));
        }
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    fn truncate(&mut self, len: usize) {
        for f in self.list.drain(len..) {
            self.seen.remove(&(f.code, f.message));
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}
