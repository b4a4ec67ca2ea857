//! Link reference definitions markdown-it (14.x and 15.x, `rules_block/reference`) reads
//! unlike `CommonMark`: the edits of [`definitions_read_alike`]. Used by
//! [`super::sanitize`]; nothing here is public.

use super::Edit;
use super::line_starts::{container_prefix, first_block_start};
use pulldown_cmark::{Event, Tag};
use std::ops::Range;

/// The characters a markdown-it block (other than a paragraph) can begin with: HTML,
/// list markers and ordered-list digits, headings, fences, block quotes, rules, tables,
/// setext underlines and link reference definitions.
const BLOCK_STARTS: [char; 22] = [
    '<', '-', '+', '*', '#', '`', '~', '>', '_', '|', '=', '[', '0', '1', '2', '3', '4', '5', '6',
    '7', '8', '9',
];

/// Definitions markdown-it reads unlike `CommonMark`: the edits of
/// [`definitions_read_alike`], each with what it is.
#[derive(Debug, Default)]
pub(super) struct DefinitionEdits {
    /// An empty line before, or the container prefix on, the line after a run of
    /// definitions.
    pub(super) after: Vec<Edit>,
    /// A `\` before a definition's `[`: text for every reader.
    pub(super) escaped: Vec<Edit>,
}

/// markdown-it (14.x and 15.x, `rules_block/reference`) reads link reference definitions
/// unlike `CommonMark` (§4.7) in several ways, and each shifts the blocks after them:
///
/// - it takes a definition out of the paragraph and reads blocks again on the next line,
///   which `CommonMark` reads as a continuation of the paragraph the definition began:
///   a line that cannot interrupt a paragraph but starts a block of its own (an HTML
///   block of type 7: `[x]: /u`, `</pre>`, then a fence line holding `<svg onload=…>` is
///   raw HTML for markdown-it and an inert fence for `CommonMark`; an ordered list not
///   starting at 1; indented code; a setext heading's text; a table), and a lazy line
///   inside a list item or block quote, which then ends the container (`- [x]: /u`,
///   `lazy`, then `10.      <img onerror=…>` is indented code in an ordered list for
///   `CommonMark` and a paragraph with live HTML for markdown-it);
/// - inside a definition, a line starting like a block (`2. y`, indented code) ends it,
///   and the rest is a paragraph whose raw HTML (from a label or title) is live;
/// - it refuses some definitions `CommonMark` takes (a `javascript:` destination, a
///   label of Unicode blanks), which are then paragraphs;
/// - duplicates of a label (and labels `pulldown-cmark` case-folds together where
///   cmark-gfm does not) are never reported by the parser, so no other check sees them.
///
/// Definitions are found as the lines no event covers: a run of them whose first line is
/// container markers, then `[`. What Bastion does:
///
/// - a run with a later line starting like a markdown-it block (other than the next
///   definition's `[`) or indented four or more columns, and every definition line the
///   parser did not report (duplicates) or whose label is blank, gets its `[` escaped:
///   text for every reader, which the next pass sanitizes;
/// - the line right after a run gets an empty line before it (carrying the run's `>`
///   markers) when it starts like a markdown-it block ([`BLOCK_STARTS`]) or is indented
///   four or more columns past the container, so both readers start a block there;
///   otherwise, when it is lazy inside a container, it gets the container prefix of the
///   run's first line ([`super::blank_prefix`]: `>` markers as `> `, list markers as
///   blanks), as do the run's own later lines: no line is lazy for any reader then, and
///   `CommonMark` reads the same definitions and paragraph as before;
/// - a setext heading, paragraph or tight list item whose text starts like a definition
///   the parser did not take (`[x]:` over `=`: `pulldown-cmark` reads a heading or text,
///   cmark-gfm and markdown-it a definition) gets its `[` escaped: the same text.
///
/// `reported` holds the spans of the definitions the parser reported with a label that is
/// not blank.
pub(super) fn definitions_read_alike(
    text: &str,
    events: &[(Event<'_>, Range<usize>)],
    reported: &[Range<usize>],
) -> DefinitionEdits {
    let lines: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|n| n + 1))
        .filter(|&n| n < text.len())
        .collect();
    let line_of = |at: usize| lines.partition_point(|&l| l <= at) - 1;
    let mut out = DefinitionEdits::default();
    // Per line: how many non-container events cover it (difference array), and the first
    // non-container event starting on it (position, and whether it continues a paragraph
    // there: text, or a setext heading or table made of the paragraph's lines).
    let mut cover = vec![0i64; lines.len() + 1];
    let mut first: Vec<Option<(usize, bool)>> = vec![None; lines.len()];
    // List items and block quotes, by start, with the furthest end so far: a position
    // lies inside one of them when a container starting at or before it ends after it.
    let mut containers: Vec<(usize, usize)> = Vec::new();
    let mut after_item = false;
    for (e, r) in events {
        // A paragraph (or a tight item's text) that begins like a definition the parser
        // did not take (`[x]:` over `=`: cmark-gfm and markdown-it read a definition with
        // the destination `=`, then blocks again): its `[` escaped, the same text.
        let block_text = matches!(e, Event::Start(Tag::Paragraph))
            || (after_item && matches!(e, Event::Text(_)));
        after_item = matches!(e, Event::Start(Tag::Item));
        if block_text
            && !text[..r.start].ends_with('\\')
            && let Some(edit) = super::definition_after_task_marker(text, r.start)
        {
            out.escaped.push(edit);
        }
        match e {
            Event::Start(Tag::BlockQuote(_) | Tag::Item | Tag::List(_)) => {
                containers.push((r.start, r.end));
                continue;
            }
            Event::Start(Tag::FootnoteDefinition(_)) | Event::End(_) => continue,
            _ => {}
        }
        if r.start >= text.len() {
            continue;
        }
        let (a, b) = (line_of(r.start), line_of(r.end.max(r.start + 1) - 1) + 1);
        cover[a] += 1;
        cover[b] -= 1;
        let setext = matches!(e, Event::Start(Tag::Heading { .. })) && b > a + 1;
        let continues = setext
            || matches!(
                e,
                Event::Start(
                    Tag::Paragraph
                        | Tag::Table(_)
                        | Tag::Emphasis
                        | Tag::Strong
                        | Tag::Strikethrough
                        | Tag::Link { .. }
                        | Tag::Image { .. },
                ) | Event::Text(_)
                    | Event::Code(_)
                    | Event::InlineHtml(_)
                    | Event::FootnoteReference(_)
                    | Event::HardBreak
                    | Event::SoftBreak
            );
        if first[a].is_none_or(|(s, _)| r.start < s) {
            first[a] = Some((r.start, continues));
        }
        if setext && let Some(edit) = super::definition_after_task_marker(text, r.start) {
            out.escaped.push(edit);
        }
    }
    containers.sort_unstable();
    let mut reach = Vec::with_capacity(containers.len());
    let mut furthest = 0usize;
    for &(_, end) in &containers {
        furthest = furthest.max(end);
        reach.push(furthest);
    }
    let inside = |at: usize| {
        let n = containers.partition_point(|&(s, _)| s <= at);
        n > 0 && reach[n - 1] > at
    };
    let opens_within = |range: Range<usize>| {
        let n = containers.partition_point(|&(s, _)| s < range.start);
        containers.get(n).is_some_and(|&(s, _)| s <= range.end)
    };
    let mut reported = reported.to_vec();
    reported.sort_unstable_by_key(|r| r.start);
    let reported_at = |at: usize| {
        let n = reported.partition_point(|r| r.start <= at);
        n > 0 && reported[n - 1].end > at
    };
    let mut run: Option<Run> = None;
    let mut covered = 0i64;
    for (k, &start) in lines.iter().enumerate() {
        covered += cover[k];
        let end = lines.get(k + 1).map_or(text.len(), |&n| n - 1);
        let line = &text[start..end];
        let markers = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
        let rest = line[markers..].trim_matches([' ', '\t', '\r']);
        let prefix = start..start + markers;
        // A `>` beyond the run's quote markers is content (a destination), not a marker,
        // and so is one after four columns of blanks (which markdown-it still reads as a
        // quote marker).
        let quotes = |p: &str| p.bytes().filter(|&b| b == b'>').count();
        let textual_quote =
            first_block_start(line).is_some_and(|i| line.as_bytes().get(i) == Some(&b'>'));
        let blank = rest.is_empty()
            && !textual_quote
            && run
                .as_ref()
                .is_none_or(|r| quotes(&text[prefix.clone()]) <= quotes(&r.prefix));
        if covered > 0 || blank {
            if let Some(r) = run.take()
                && !blank
                && first[k].is_some_and(|(_, continues)| continues)
                && !opens_within(prefix.clone())
            {
                let have = super::blank_prefix(&text[prefix.clone()]);
                let reaches = have.starts_with(&r.prefix);
                if (reaches && have.len() >= r.base + 4) || rest.starts_with(BLOCK_STARTS) {
                    out.after.push(Edit {
                        range: start..start,
                        with: format!("{}\n", r.prefix.trim_end()),
                    });
                } else if r.contained && !reaches {
                    out.after.push(Edit {
                        range: prefix,
                        with: r.prefix,
                    });
                }
            }
            continue;
        }
        if let Some(mut r) = run.take()
            && !opens_within(prefix.clone())
        {
            let have = super::blank_prefix(&text[prefix.clone()]);
            let reaches = have.starts_with(&r.prefix);
            let unreported = rest.starts_with('[') && !reported_at(start + markers);
            let starts_block =
                textual_quote || (rest.starts_with(BLOCK_STARTS) && !rest.starts_with('['));
            if unreported {
                out.escaped
                    .push(escape_at(start + line.len() - line[markers..].len()));
            } else if (reaches && have.len() >= r.base + 4) || starts_block {
                if !r.escaped {
                    out.escaped.push(escape_at(r.open));
                    r.escaped = true;
                }
            } else if r.contained && !reaches {
                out.after.push(Edit {
                    range: prefix,
                    with: r.prefix.clone(),
                });
            }
            run = Some(r);
            continue;
        }
        // A run's first line: container markers, then the definition's `[`.
        run = line
            .find('[')
            .filter(|&o| container_prefix(&line[..o]))
            .map(|o| {
                let open = start + o;
                let lead = &line[..o];
                let prefix = super::blank_prefix(lead);
                let escaped = !reported_at(open);
                if escaped {
                    out.escaped.push(escape_at(open));
                }
                Run {
                    base: container_base(lead, &prefix),
                    prefix,
                    contained: inside(open),
                    open,
                    escaped,
                }
            });
    }
    out
}

/// A run of definition lines ([`definitions_read_alike`]).
struct Run {
    /// The prefix its lines need ([`super::blank_prefix`] of the first line's).
    prefix: String,
    /// Columns of `prefix` that belong to containers (the rest is the definition's own
    /// indentation of up to three columns).
    base: usize,
    /// Inside a list item or block quote.
    contained: bool,
    /// Where the first definition's `[` is.
    open: usize,
    /// Whether that `[` is escaped already.
    escaped: bool,
}

/// A `\` inserted at `at`.
fn escape_at(at: usize) -> Edit {
    Edit {
        range: at..at,
        with: "\\".to_owned(),
    }
}

/// The columns of the blank prefix `blank` (of the first-line prefix `lead`) that belong
/// to containers: up to a list marker's content (all of its width, the spaces after the
/// marker included), or a `>` and its optional space; without either, none.
fn container_base(lead: &str, blank: &str) -> usize {
    let trimmed = lead.trim_end_matches([' ', '\t']);
    if trimmed.ends_with(['-', '+', '*', '.', ')']) {
        blank.len()
    } else if let Some(q) = blank.rfind('>') {
        q + 2
    } else {
        0
    }
}
