//! Lines markdown-it (14.x, 15.x) reads unlike `CommonMark` because JavaScript's
//! `String.prototype.trim` and `\s` take Unicode spaces (U+00A0, U+3000, …), U+FEFF, VT
//! and FF for spaces, where `CommonMark` and GFM take only spaces and tabs: table rows
//! (`rules_block/table`) and lines that are one tag (`rules_block/html_block`, type 7).
//! Used by [`super::sanitize`].

use super::Edit;
use super::markdown_it_tag::js_only_space;
use pulldown_cmark::{Event, Tag, TagEnd};
use std::ops::Range;

/// GFM table body rows made of Unicode blanks only (`\u{a0}`): markdown-it trims rows with
/// JavaScript's `trim`, which removes them, and so ends the table there and reads the
/// row as the start of a paragraph that the following lines continue (`10.      <img
/// onerror=…>` after it is paragraph text with live HTML for markdown-it and indented
/// code in an ordered list for `CommonMark`). Such a row gets a leading `|` (the same
/// row for GFM, whose leading pipe is optional): a row for both.
pub(super) fn blank_table_rows(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut in_head = false;
    for (e, r) in events {
        match e {
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) if !in_head => {
                // The row's range may begin with the container prefix (`> `).
                let line = text[r.clone()].split('\n').next().unwrap_or_default();
                let cells = line.trim_start_matches([' ', '\t', '>']);
                let blank = |c: char| matches!(c, ' ' | '\t' | '\r') || js_only_space(c);
                if !cells.trim_matches([' ', '\t', '\r']).is_empty()
                    && cells.trim_matches(blank).is_empty()
                {
                    let at = r.start + line.len() - cells.len();
                    out.push(Edit {
                        range: at..at,
                        with: "|".to_owned(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A would-be table header whose JavaScript `trim` differs from GFM's: a line with a `|`,
/// followed by a line shaped like a delimiter row, that begins or ends with a Unicode
/// space. markdown-it trims it away, and with it a leading or trailing empty cell, so its
/// header has one cell fewer than GFM's: the two disagree on whether a table starts,
/// and where markdown-it alone sees one, its cells split the code spans `CommonMark`
/// reads across the `|` (``|`x|<img src=x onerror=…>|y`|`` is live HTML in the middle
/// cell). Those edge Unicode spaces (and any in the run of spaces and container or list
/// markers before the first cell, or in the trailing run) are written as character
/// references (`&#xA0;`): the same character in a cell for every reader, and nothing
/// JavaScript's `trim` removes, so both count the same cells. Lines inside code blocks and
/// HTML blocks are left alone.
pub(super) fn trimmed_table_headers(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    for (start, body, next) in markdown_lines(text, events) {
        if !body.contains('|') || !next.is_some_and(delimiter_row) {
            continue;
        }
        let head_end = body
            .find(|c: char| !(js_only_space(c) || lead_char(c)))
            .unwrap_or(body.len());
        let tail = tail_start(body).max(head_end);
        let edges = body[..head_end]
            .char_indices()
            .chain(body[tail..].char_indices().map(|(i, c)| (i + tail, c)));
        out.extend(edges.filter_map(|(i, c)| reference(start + i, c)));
    }
    out
}

/// A line that begins with a complete tag and ends with Unicode spaces (`<a href=x>\u{a0}`):
/// markdown-it's type 7 HTML block start (the tag, then JavaScript's `\s*` to the line's
/// end) holds, `CommonMark`'s (the tag, then spaces or tabs) does not. For markdown-it the
/// line and the ones after it, to a blank line, are raw HTML (a code span there is a
/// live tag); for `CommonMark` a paragraph. The trailing Unicode spaces of a line whose
/// first character after its container and list markers is `<` are written as
/// character references: no HTML block for either reader. Lines inside code blocks and
/// HTML blocks are left alone.
pub(super) fn tag_line_ends(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    for (start, body, _) in markdown_lines(text, events) {
        let first = body.find(|c: char| !lead_char(c));
        if first.is_none_or(|i| !body[i..].starts_with('<')) {
            continue;
        }
        let tail = tail_start(body);
        out.extend(
            body[tail..]
                .char_indices()
                .filter_map(|(i, c)| reference(start + tail + i, c)),
        );
    }
    out
}

/// The lines of `text` outside code and HTML blocks, when it holds a Unicode space at all
/// (else none): `(start offset, the line without its line ending, the next line)`.
fn markdown_lines<'t>(
    text: &'t str,
    events: &[(Event<'_>, Range<usize>)],
) -> Vec<(usize, &'t str, Option<&'t str>)> {
    if !text.chars().any(js_only_space) {
        return Vec::new();
    }
    let opaque = Opaque::new(events);
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0usize, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, (start, line))| !opaque.meets(*start..start + line.len()))
        .map(|(i, (start, line))| {
            let body = line.trim_end_matches(['\n', '\r']);
            (*start, body, lines.get(i + 1).map(|next| next.1))
        })
        .collect()
}

/// Characters of a line's container prefix and list marker (`> `, `- `, `10. `).
fn lead_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '>' | '-' | '+' | '*' | '.' | ')') || c.is_ascii_digit()
}

/// Where the trailing run of spaces, tabs and Unicode spaces of `body` begins.
fn tail_start(body: &str) -> usize {
    body.rfind(|c: char| !(js_only_space(c) || matches!(c, ' ' | '\t')))
        .map_or(0, |i| {
            i + body[i..].chars().next().map_or(1, char::len_utf8)
        })
}

/// The edit writing `c` at `at` as a character reference, when it is a Unicode space.
fn reference(at: usize, c: char) -> Option<Edit> {
    js_only_space(c).then(|| Edit {
        range: at..at + c.len_utf8(),
        with: format!("&#x{:X};", u32::from(c)),
    })
}

/// Code and HTML blocks of one reading, in source order: their lines are no markdown.
struct Opaque(Vec<Range<usize>>);

impl Opaque {
    fn new(events: &[(Event<'_>, Range<usize>)]) -> Self {
        Self(
            events
                .iter()
                .filter(|(e, _)| matches!(e, Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock)))
                .map(|(_, r)| r.clone())
                .collect(),
        )
    }

    /// Whether `line` overlaps one. They neither nest nor overlap: the last one starting
    /// before the line's end is the only candidate (an indented code block's range begins
    /// after its indentation, so a line's start can lie before it).
    fn meets(&self, line: Range<usize>) -> bool {
        let i = self.0.partition_point(|r| r.start < line.end);
        i > 0 && self.0[i - 1].end > line.start
    }
}

/// A line markdown-it may take for a table's delimiter row (`|---|:-:|`), container
/// markers before it allowed: only `|`, `-`, `:`, spaces and tabs, with a `-`.
fn delimiter_row(line: &str) -> bool {
    let row = line
        .trim_end_matches(['\n', '\r'])
        .trim_start_matches([' ', '\t', '>']);
    row.contains('-')
        && row
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Options, Parser};

    fn header_edits(text: &str) -> String {
        let events: Vec<_> = Parser::new_ext(text, Options::ENABLE_TABLES)
            .into_offset_iter()
            .collect();
        let mut edits = trimmed_table_headers(text, &events);
        edits.sort_by_key(|e| e.range.start);
        let mut out = String::new();
        let mut at = 0;
        for e in edits {
            out.push_str(&text[at..e.range.start]);
            out.push_str(&e.with);
            at = e.range.end;
        }
        out.push_str(&text[at..]);
        out
    }

    #[test]
    fn edge_unicode_spaces_of_header_lines_become_references() {
        assert_eq!(
            header_edits("\u{a0}|a|b|\n|---|---|\n"),
            "&#xA0;|a|b|\n|---|---|\n"
        );
        assert_eq!(header_edits("a|\u{3000}\n-|-\n"), "a|&#x3000;\n-|-\n");
        assert_eq!(
            header_edits("> - \u{2003} \u{a0}a|b \u{feff}\n> ---|---\n"),
            "> - &#x2003; &#xA0;a|b &#xFEFF;\n> ---|---\n"
        );
        // Inside the header's cells the character stays: only the edges are trimmed.
        assert_eq!(header_edits("a\u{a0}b|c\n-|-\n"), "a\u{a0}b|c\n-|-\n");
    }

    #[test]
    fn other_lines_stay() {
        // No delimiter row after it, no `|` in it, or inside a code block.
        for text in [
            "\u{a0}|a|b|\nplain\n",
            "\u{a0}ab\n|---|---|\n",
            "```\n\u{a0}|a|b|\n|---|---|\n```\n",
            "    \u{a0}|a|b|\n    |---|---|\n",
            "a|b\n---|---\n\u{a0}|c\n",
        ] {
            assert_eq!(header_edits(text), text, "{text:?}");
        }
    }
}
