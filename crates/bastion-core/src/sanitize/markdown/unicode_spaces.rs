//! Lines markdown-it (14.x, 15.x) reads unlike `CommonMark` because JavaScript's
//! `String.prototype.trim` and `\s` take Unicode spaces (U+00A0, U+3000, …), U+FEFF, VT
//! and FF for spaces, where `CommonMark` and GFM take only spaces and tabs: table rows
//! (`rules_block/table`) and lines that are one tag (`rules_block/html_block`, type 7).
//! Used by [`super::sanitize`].

use super::Edit;
use super::markdown_it_tag::{has_js_only_space, js_only_space};
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

/// A table row whose JavaScript `trim` differs from GFM's: a line with a `|` that begins or
/// ends with a Unicode space. markdown-it trims it away, and with it a leading or trailing
/// empty cell, so it counts one cell fewer than GFM: for a header line the two disagree on
/// whether a table starts, and where markdown-it alone sees one, its cells split the code
/// spans `CommonMark` reads across the `|` (``|`x|<img src=x onerror=…>|y`|`` is live
/// HTML in the middle cell); for a body row the cells shift, and a cell GFM drops as one
/// too many (never reported, so never sanitized) becomes one markdown-it shows. Those
/// edge Unicode spaces (and any in the run of spaces and container or list markers before
/// the first cell, or in the trailing run) are written as character references
/// (`&#xA0;`): the same character in a cell for every reader, and nothing JavaScript's
/// `trim` removes, so both count the same cells. Lines inside code blocks and HTML blocks
/// are left alone.
pub(super) fn trimmed_table_rows(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    for (start, body, _) in markdown_lines(text, events) {
        if !body.contains('|') {
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

/// A line that begins with a tag, or a tag's name, and has Unicode spaces where markdown-it's
/// HTML block starts take JavaScript's `\s` (`rules_block/html_block`): right after the
/// name (`<div\u{a0}`, types 1 and 6: the name, then `\s`, `>` or the line's end) or in
/// the run that ends the line (`<a href=x>\u{a0}`, type 7: a complete tag, then `\s*`).
/// markdown-it opens an HTML block there, and the line and the ones after it, to a blank
/// line (types 6, 7) or the closing tag (type 1), are raw HTML: a code span there is a live
/// tag. `CommonMark` reads text there, even inside a code span, a link title or an
/// attribute value that runs over several lines, where markdown-it still starts the block.
/// Those Unicode spaces are written as character references: no HTML block for either
/// reader. Lines inside code blocks and HTML blocks are left alone.
pub(super) fn tag_lines(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    for (start, body, _) in markdown_lines(text, events) {
        let Some(lt) = body.find(|c: char| !lead_char(c)) else {
            continue;
        };
        if !body[lt..].starts_with('<') {
            continue;
        }
        let name_at = lt + if body[lt..].starts_with("</") { 2 } else { 1 };
        let name_end = name_at
            + body[name_at..]
                .bytes()
                .take_while(u8::is_ascii_alphanumeric)
                .count();
        let after_name = body[name_end..].chars().next();
        if name_end > name_at
            && let Some(c) = after_name
        {
            out.extend(reference(start + name_end, c));
        }
        // The trailing run, past the character after the name (already looked at).
        let tail = tail_start(body).max(name_end + after_name.map_or(0, char::len_utf8));
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
    if !has_js_only_space(text) {
        return Vec::new();
    }
    let opaque = Opaque::new(events);
    let lines = line_ranges(text);
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !opaque.meets((*line).clone()))
        .map(|(i, line)| {
            let body = text[line.clone()].trim_end_matches(['\n', '\r']);
            (
                line.start,
                body,
                lines.get(i + 1).map(|next| &text[next.clone()]),
            )
        })
        .collect()
}

/// The byte ranges of `text`'s lines, each with its line ending.
pub(super) fn line_ranges(text: &str) -> Vec<Range<usize>> {
    text.split_inclusive('\n')
        .scan(0usize, |at, line| {
            let start = *at;
            *at += line.len();
            Some(start..*at)
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

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::{Options, Parser};

    fn row_edits(text: &str) -> String {
        let events: Vec<_> = Parser::new_ext(text, Options::ENABLE_TABLES)
            .into_offset_iter()
            .collect();
        let mut edits = trimmed_table_rows(text, &events);
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
    fn edge_unicode_spaces_of_table_lines_become_references() {
        assert_eq!(
            row_edits("\u{a0}|a|b|\n|---|---|\n"),
            "&#xA0;|a|b|\n|---|---|\n"
        );
        assert_eq!(row_edits("a|\u{3000}\n-|-\n"), "a|&#x3000;\n-|-\n");
        assert_eq!(
            row_edits("> - \u{2003} \u{a0}a|b \u{feff}\n> ---|---\n"),
            "> - &#x2003; &#xA0;a|b &#xFEFF;\n> ---|---\n"
        );
        // Inside the header's cells the character stays: only the edges are trimmed.
        assert_eq!(row_edits("a\u{a0}b|c\n-|-\n"), "a\u{a0}b|c\n-|-\n");
    }

    #[test]
    fn other_lines_stay() {
        // No `|` in it, Unicode spaces inside the cells only, or inside a code block.
        for text in [
            "\u{a0}ab\n|---|---|\n",
            "a\u{a0}b|c\u{3000}d\n",
            "```\n\u{a0}|a|b|\n|---|---|\n```\n",
            "    \u{a0}|a|b|\n    |---|---|\n",
        ] {
            assert_eq!(row_edits(text), text, "{text:?}");
        }
        // A body row's edges count too.
        assert_eq!(
            row_edits("a|b\n---|---\n\u{a0}|c\n"),
            "a|b\n---|---\n&#xA0;|c\n"
        );
    }
}
