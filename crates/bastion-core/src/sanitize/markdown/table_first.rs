//! markdown-it (14.x, 15.x) tries its table rule before lists and headings
//! (`parser_block`: table, code, fence, blockquote, hr, list, reference, `html_block`,
//! heading, …), so a line that begins with a list marker or an ATX heading marker and
//! holds a `|`, followed by a line shaped like a delimiter row, is a table header for it,
//! marker included in the first cell. GFM reads a list item or a heading there, and the
//! next line as text. Where markdown-it alone sees the table, its cells split the code
//! spans `CommonMark` reads across the `|`: ``- `x|<img src=x onerror=…>|y` `` then
//! `-|-|-` is a live tag in the middle cell for markdown-it. Used by [`super::sanitize`].

use super::Edit;
use super::unicode_spaces::{all_markdown_lines, delimiter_row};
use pulldown_cmark::Event;
use std::ops::Range;

/// The marker of such a line gets a backslash escape (`\-`, `\#`, `1\.`): the line is
/// text for every reader, so GFM reads the table markdown-it reads (and the sanitizer,
/// reading like GFM, then sees its cells). Container prefixes (`> `, indentation) stay;
/// lines inside code blocks and HTML blocks are left alone.
pub(super) fn marker_table_headers(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    if !text.contains('|') {
        return out;
    }
    for (start, body, next) in all_markdown_lines(text, events) {
        if !body.contains('|') || !next.is_some_and(delimiter_row) {
            continue;
        }
        let content = body.trim_start_matches([' ', '\t', '>']);
        let at = body.len() - content.len();
        if let Some(offset) = block_marker(content) {
            out.push(Edit {
                range: start + at + offset..start + at + offset,
                with: "\\".to_owned(),
            });
        }
    }
    out
}

/// Where to put the backslash when `line` begins with a bullet (`-`, `+`, `*`), an ordered
/// list marker (up to nine digits, `.` or `)`) or an ATX heading marker (one to six `#`),
/// followed by a space, a tab or the line's end (`CommonMark` §4.2, §5.2, §5.3): before
/// the bullet or the first `#`, or before the ordered marker's `.`/`)`.
fn block_marker(line: &str) -> Option<usize> {
    let spaced = |rest: &str| rest.is_empty() || rest.starts_with([' ', '\t']);
    let bytes = line.as_bytes();
    match bytes.first()? {
        b'-' | b'+' | b'*' if spaced(&line[1..]) => Some(0),
        b'#' => {
            let hashes = bytes.iter().take_while(|&&b| b == b'#').count();
            (hashes <= 6 && spaced(&line[hashes..])).then_some(0)
        }
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            (digits <= 9
                && matches!(bytes.get(digits), Some(b'.' | b')'))
                && spaced(&line[digits + 1..]))
            .then_some(digits)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_markers() {
        assert_eq!(block_marker("- a|b"), Some(0));
        assert_eq!(block_marker("-\ta|b"), Some(0));
        assert_eq!(block_marker("## a|b"), Some(0));
        assert_eq!(block_marker("10. a|b"), Some(2));
        assert_eq!(block_marker("1) a|b"), Some(1));
        assert_eq!(block_marker("-a|b"), None);
        assert_eq!(block_marker("####### a|b"), None);
        assert_eq!(block_marker("1234567890. a|b"), None);
        assert_eq!(block_marker("a|b"), None);
    }
}
