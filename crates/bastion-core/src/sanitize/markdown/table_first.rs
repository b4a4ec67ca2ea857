//! markdown-it (14.x, 15.x) tries its table rule before every other block rule
//! (`parser_block`: table, code, fence, blockquote, hr, list, reference, `html_block`,
//! heading, …), at every line where a block may start: a line holding a `|` followed by
//! a line shaped like a delimiter row is a table header for it, whatever else the line
//! is. GFM reads a table only where a paragraph's last line meets a delimiter row that
//! counts its cells; elsewhere it reads a list item, a heading, a fence, an HTML block
//! or a block quote, and the next line as text or as that block's content. Where
//! markdown-it alone sees the table, its cells split the code spans `CommonMark` reads
//! across a `|` (``- `x|<img src=x onerror=…>|y` `` then `-|-|-`), and the lines GFM keeps
//! as code or raw HTML (a fence or a `<div>` whose first line holds a `|`) become table
//! rows and then markdown. Used by [`super::sanitize`].

use super::Edit;
use super::unicode_spaces::line_ranges;
use pulldown_cmark::{CodeBlockKind, Event, Tag};
use std::ops::Range;

/// Edits so that markdown-it sees no table where the parser (reading like GFM) sees none:
///
/// - when the delimiter-shaped line is text for the parser (a paragraph's line, a lazy
///   continuation, a setext underline), its first character gets a backslash escape
///   (`\-|-`): the same text for every reader, and no delimiter row for markdown-it;
/// - when it is the content of a fenced code block or an HTML block whose first line is
///   the would-be header, that line's `|` are written `&#124;` (a fence's info string and
///   HTML decode the reference): no `|`, no header.
///
/// Lines inside indented code (markdown-it reads no table indented four columns) and the
/// headers of tables the parser reports are left alone.
pub(super) fn markdown_it_tables(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    if !text.contains('|') {
        return out;
    }
    // Blocks whose lines are no markdown: (range, is a fenced code block, is indented code).
    let opaque: Vec<(Range<usize>, bool, bool)> = events
        .iter()
        .filter_map(|(e, r)| match e {
            Event::Start(Tag::CodeBlock(kind)) => Some((
                r.clone(),
                matches!(kind, CodeBlockKind::Fenced(_)),
                matches!(kind, CodeBlockKind::Indented),
            )),
            Event::Start(Tag::HtmlBlock) => Some((r.clone(), false, false)),
            _ => None,
        })
        .collect();
    let block_at = |line: &Range<usize>| {
        let i = opaque.partition_point(|(r, ..)| r.start < line.end);
        (i > 0 && opaque[i - 1].0.end > line.start).then(|| &opaque[i - 1])
    };
    let tables: Vec<usize> = events
        .iter()
        .filter(|(e, _)| matches!(e, Event::Start(Tag::Table(_))))
        .map(|(_, r)| r.start)
        .collect();
    let lines = line_ranges(text);
    for pair in lines.windows(2) {
        let (head, delim) = (&pair[0], &pair[1]);
        let head_text = &text[head.clone()];
        if !head_text.contains('|') || delimiter_offset(&text[delim.clone()]).is_none() {
            continue;
        }
        // A table the parser reads too (its range begins on the header line), or a line
        // indented four columns from the line's start (no header for markdown-it, which
        // tries the table first at the outermost level, where the line's start counts).
        let t = tables.partition_point(|&s| s < head.start);
        let indent = head_text
            .chars()
            .take_while(|c| matches!(c, ' ' | '\t'))
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum::<usize>();
        if tables.get(t).is_some_and(|&s| s < head.end) || indent >= 4 {
            continue;
        }
        match block_at(delim) {
            None => {
                let offset = delimiter_offset(&text[delim.clone()]).unwrap_or_default();
                out.push(Edit {
                    range: delim.start + offset..delim.start + offset,
                    with: "\\".to_owned(),
                });
            }
            Some((block, fenced, indented)) if !indented && head.contains(&block.start) => {
                // A fence's `|` can only be in its info string; an HTML block's anywhere.
                let from = if *fenced {
                    head_text.find(['`', '~']).map_or(0, |f| {
                        f + head_text[f..].find(|c| c != '`' && c != '~').unwrap_or(0)
                    })
                } else {
                    0
                };
                for (i, _) in head_text[from..].match_indices('|') {
                    let at = head.start + from + i;
                    out.push(Edit {
                        range: at..at + 1,
                        with: "&#124;".to_owned(),
                    });
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// Where the delimiter row begins in `line` when markdown-it may take it for one
/// (`rules_block/table`, after container markers and indentation): a first character `|`,
/// `-` or `:`, a second one of those or a space or tab (not `-` and a space: a list
/// item), nothing but those, spaces and tabs after them, and each cell between the
/// `|` an alignment (`-`, `:-`, `-:`, `:-:`; an empty cell only at either end).
fn delimiter_offset(line: &str) -> Option<usize> {
    let row = line
        .trim_end_matches(['\n', '\r'])
        .trim_start_matches([' ', '\t', '>']);
    let offset = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
    let mut chars = row.chars();
    let first = chars.next()?;
    let second = chars.next()?;
    let shaped = |c: char| matches!(c, '|' | '-' | ':');
    if !shaped(first)
        || !(shaped(second) || matches!(second, ' ' | '\t'))
        || (first == '-' && matches!(second, ' ' | '\t'))
        || !row.chars().all(|c| shaped(c) || matches!(c, ' ' | '\t'))
    {
        return None;
    }
    let cells: Vec<&str> = row
        .split('|')
        .map(|c| c.trim_matches([' ', '\t']))
        .collect();
    let last = cells.len() - 1;
    let aligned = cells.iter().enumerate().all(|(i, c)| {
        if c.is_empty() {
            return i == 0 || i == last;
        }
        let inner = c.strip_prefix(':').unwrap_or(c);
        let inner = inner.strip_suffix(':').unwrap_or(inner);
        !inner.is_empty() && inner.bytes().all(|b| b == b'-')
    });
    aligned.then_some(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiter_rows_as_markdown_it_reads_them() {
        assert_eq!(delimiter_offset("-|-\n"), Some(0));
        assert_eq!(delimiter_offset("> :-|-:\n"), Some(2));
        assert_eq!(delimiter_offset("  |---|:-:|\n"), Some(2));
        assert_eq!(delimiter_offset("---\n"), Some(0));
        assert_eq!(delimiter_offset("- -|-\n"), None);
        assert_eq!(delimiter_offset("-|x\n"), None);
        assert_eq!(delimiter_offset("|-||-|\n"), None);
        assert_eq!(delimiter_offset("|\n"), None);
        assert_eq!(delimiter_offset("\\-|-\n"), None);
    }
}
