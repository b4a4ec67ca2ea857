//! Link reference definitions (`CommonMark` §4.7): the ones that lead somewhere no link
//! may, or hide text in an unused title, are rewritten; a task marker followed by
//! something shaped like a definition is escaped (cmark-gfm reads a definition there).

use super::markup::{self, ContentPolicy, Findings, Target};
use super::{Edit, blank_prefix, line_start};
use crate::finding::Code;
use std::ops::Range;

/// The byte offset in `label` (the text right after a link label's `[`) of the `]` that
/// closes it: the first one not escaped, within the 999 characters a label may hold
/// (`CommonMark` §4.7); `None` when there is none.
fn label_close(label: &str) -> Option<usize> {
    let mut escaped = false;
    label.char_indices().take(1000).find_map(|(i, c)| {
        let end = c == ']' && !escaped;
        escaped = c == '\\' && !escaped;
        end.then_some(i)
    })
}

/// cmark-gfm takes a task list item's marker (`- [ ] `) off and reads the rest of the item
/// as blocks again, so `- [ ] [x]: javascript:alert(1)` defines `[x]` for the whole
/// document there, while `pulldown-cmark` reads the rest as paragraph text. When the text
/// after the marker at `at` starts like a definition (`[label]:`), its `[` gets a
/// backslash: text for both.
pub(super) fn definition_after_task_marker(text: &str, at: usize) -> Option<Edit> {
    let rest = &text[at..];
    let open = at + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
    let label = text[open..].strip_prefix('[')?;
    let close = label_close(label)?;
    label[close + 1..].starts_with(':').then(|| Edit {
        range: open..open,
        with: "\\".to_owned(),
    })
}

/// A link label compared as `CommonMark` matches them: case-insensitive, whitespace runs
/// collapsed.
pub(super) fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A link reference definition (`CommonMark` §4.7) as the parser reported it.
pub(super) struct Definition<'d> {
    /// Its source bytes, container prefixes of continuation lines included.
    pub(super) span: Range<usize>,
    /// The destination, decoded.
    pub(super) dest: &'d str,
    /// Its title when no link of the text used the definition (`None` otherwise).
    pub(super) title: Option<&'d str>,
}

/// Rewrites a link reference definition that is harmful whether or not this parser saw
/// it used:
///
/// - a destination no link may have (`javascript:`, … or a data-carrying URL to an
///   untrusted host) becomes `#`. Every use this parser sees is made inert anyway
///   ([`super::link`], [`super::image`]); the definition itself must go too, because
///   renderers read some constructs as links that this parser does not (a list item's
///   `[x]` is a task marker here and a reference link for cmark-gfm), so a use may be
///   unseen;
/// - the title of an unused definition (`[//]: # (text)`, the markdown "comment" idiom)
///   renders nothing: it is hidden text, shown as a `[hidden comment: …]` line after the
///   definition, which keeps its label and destination.
///
/// `None` when the definition stays as it is.
pub(super) fn definition_edit(
    text: &str,
    definition: &Definition<'_>,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<Edit> {
    let inert = match markup::classify(definition.dest) {
        Target::Disallowed(scheme) => {
            findings.push(
                Code::DangerousUrlScheme,
                format!("a link reference definition to a {scheme}: URL now leads to #"),
            );
            true
        }
        Target::Web(url) => {
            let host = url.host_str().unwrap_or_default();
            let carriers = policy.untrusted_carriers(&url);
            if !carriers.is_empty() {
                findings.push(
                    Code::LinkExfiltration,
                    format!(
                        "a link reference definition to {host} carried data ({}); it now leads to #",
                        carriers.join(", ")
                    ),
                );
            }
            !carriers.is_empty()
        }
        two @ Target::TwoReadings { .. } => {
            findings.push(
                Code::UrlInvalidCharacter,
                format!(
                    "a link reference definition's destination reaches {} depending on who reads it; it now leads to #",
                    two.hosts()
                ),
            );
            true
        }
        Target::Mailto | Target::Relative | Target::Invalid => false,
    };
    let title = definition
        .title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    if !inert && title.is_none() {
        return None;
    }
    let span = definition.span.clone();
    let source = &text[span.clone()];
    // The label is `[` … up to the first unescaped `]` (`CommonMark` §4.7: a label holds
    // no unescaped brackets).
    let label_end = 1 + label_close(source.get(1..)?)?;
    let mut dest = String::with_capacity(definition.dest.len() + 2);
    if inert {
        dest.push('#');
    } else {
        for c in definition.dest.chars() {
            if matches!(c, '\\' | '<' | '>' | '&') {
                dest.push('\\');
            }
            dest.push(c);
        }
    }
    let mut with = format!("{}: <{dest}>", &source[..=label_end]);
    if let Some(title) = title {
        findings.push(
            Code::HiddenComment,
            "an unused link reference definition hid text in its title; it is now shown as [hidden comment: …]"
                .to_owned(),
        );
        let prefix = blank_prefix(&text[line_start(text, span.start)..span.start]);
        let marker = markup::escape_inline(&format!("[hidden comment: {title}]"));
        with.push('\n');
        with.push_str(&prefix);
        with.push_str(&marker);
    }
    Some(Edit { range: span, with })
}
