//! Tabs in the container prefix of a line (after `>`, a bullet or an ordered-list
//! marker) written as the spaces they stand for.
//!
//! `CommonMark` §2.2 reads a tab in block structure as advancing to the next multiple of
//! four columns, and a tab that a marker's space or a code block's indentation takes only
//! part of leaves its remaining columns as spaces. Readers that do not follow §2.2
//! read such lines otherwise. marked 18 reads `- * \t<!-- x` as an HTML comment where
//! every `CommonMark` reader sees an indented code block. markdown-it has had similar cases
//! (`fuzz/regressions/markdown/tab-*`). Writing those tabs as spaces gives every reader the
//! same columns, and `CommonMark` readers the same document.
//!
//! Only tabs that start within the five columns after a marker are written (the marker's
//! space and a code block's four columns of indentation). A tab further on is code
//! content and stays. The text is handed on with its tabs only if `pulldown-cmark` and
//! cmark-gfm both read it exactly as before. A marker or tab that `pulldown-cmark` reads as text (a `- \tx` line
//! inside a fence, a tab opening a fenced line in a quote, `10)\tx` continuing a
//! paragraph) is content, and so is everything after it on its line: it stays. So does
//! the prefix of a line that starts an HTML block, whose leading whitespace is written
//! out as it is.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::ops::Range;

/// Columns after a container marker in which a tab is structure: the marker's optional
/// space plus an indented code block's four columns (`CommonMark` §4.4, §5.1, §5.2).
const STRUCTURAL: usize = 5;

/// `text` with the tabs of its lines' container prefixes written as spaces, or `None`
/// when it has none. Byte offsets outside the rewritten prefixes keep their text.
pub(crate) fn structural_tabs_as_spaces(text: &str) -> Option<String> {
    memchr::memchr(b'\t', text.as_bytes())?;
    let mut lines: Vec<(usize, Vec<Marker>, usize)> = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if let Some((found, content_at)) = prefix_tabs(line) {
            lines.push((start, found, start + content_at));
        }
        start += line.len();
    }
    if lines.is_empty() {
        return None;
    }
    let (code, html) = content_ranges(text);
    let inside = |at: usize| code.iter().chain(&html).any(|r| r.contains(&at));
    let mut out = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    for (line_start, markers, content_at) in lines {
        // An HTML block is written out with the whitespace before it as it is.
        if html.iter().any(|r| r.contains(&content_at)) {
            continue;
        }
        'line: for marker in markers {
            if inside(line_start + marker.at) {
                break;
            }
            for (at, width) in marker.tabs {
                let at = line_start + at;
                // Text: a fenced code block's content starts right after its
                // container's prefix, and a paragraph continues through a marker that
                // cannot interrupt it.
                if inside(at) {
                    break 'line;
                }
                out.push_str(&text[copied..at]);
                out.extend(std::iter::repeat_n(' ', width));
                copied = at + 1;
            }
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    // Where pulldown-cmark and cmark-gfm read the text apart (a lazy line, an HTML
    // block), a column count above may not hold for both: the text is handed on as it
    // came unless both read the new one exactly as the old.
    same_document(text, &out).then_some(out)
}

/// Whether `pulldown-cmark` (its events) and cmark-gfm (comrak's HTML, raw HTML kept)
/// each read `a` and `b` alike.
fn same_document(a: &str, b: &str) -> bool {
    // Adjacent text events joined: a tab's leftover columns come as a text event of
    // their own.
    let events = |t| {
        let mut out: Vec<Event<'_>> = Vec::new();
        for event in Parser::new_ext(t, super::options()) {
            match (out.last_mut(), event) {
                (Some(Event::Text(prev)), Event::Text(next)) => {
                    *prev = format!("{prev}{next}").into();
                }
                (_, event) => out.push(event),
            }
        }
        out
    };
    if events(a) != events(b) {
        return false;
    }
    let mut options = crate::sanitize::second_reading::options();
    options.render.r#unsafe = true;
    comrak::markdown_to_html(a, &options) == comrak::markdown_to_html(b, &options)
}

/// A container marker of a line and the tabs after it that [`STRUCTURAL`] covers.
struct Marker {
    /// Byte offset of the marker in its line.
    at: usize,
    /// (byte offset in the line, columns it stands for) of each such tab.
    tabs: Vec<(usize, usize)>,
}

/// The container markers of `line`'s prefix, each with the tabs after it that start
/// within [`STRUCTURAL`] columns of it, up to the last marker followed by such a tab, and
/// the byte offset where the prefix ends; `None` when there is no such tab.
fn prefix_tabs(line: &str) -> Option<(Vec<Marker>, usize)> {
    let bytes = line.as_bytes();
    let (mut i, mut col) = (0usize, 0usize);
    // Up to three spaces before the first marker (a tab there makes four columns or
    // more: an indented code block or a continuation, not a marker).
    while i < bytes.len() && bytes[i] == b' ' && i < 3 {
        i += 1;
        col += 1;
    }
    let mut found: Vec<Marker> = Vec::new();
    while let Some(len) = marker_len(&bytes[i..]) {
        found.push(Marker {
            at: i,
            tabs: Vec::new(),
        });
        i += len;
        col += len;
        let marker_end = col;
        // The whitespace run after the marker.
        let run_start = col;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            if bytes[i] == b'\t' {
                let width = 4 - col % 4;
                if col < marker_end + STRUCTURAL
                    && let Some(marker) = found.last_mut()
                {
                    marker.tabs.push((i, width));
                }
                col += width;
            } else {
                col += 1;
            }
            i += 1;
        }
        // Five columns or more start an indented code block, where no further marker
        // can be.
        if col - run_start >= STRUCTURAL {
            break;
        }
    }
    while found.last().is_some_and(|m| m.tabs.is_empty()) {
        found.pop();
    }
    (!found.is_empty()).then_some((found, i))
}

/// The length in bytes of the container marker `bytes` starts with: `>`, a bullet
/// (`-`, `+`, `*`) or an ordered-list marker (1–9 digits and `.` or `)`), the list
/// markers followed by whitespace or the end of the line (`CommonMark` §5.1, §5.2).
fn marker_len(bytes: &[u8]) -> Option<usize> {
    let ends = |at: usize| {
        bytes
            .get(at)
            .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    };
    match bytes.first()? {
        b'>' => Some(1),
        b'-' | b'+' | b'*' if ends(1) => Some(1),
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            (digits <= 9 && matches!(bytes.get(digits), Some(b'.' | b')')) && ends(digits + 1))
                .then_some(digits + 1)
        }
        _ => None,
    }
}

/// The byte ranges of what `pulldown-cmark` reads as text (inline text, code, inline and
/// block HTML), and those of HTML blocks.
fn content_ranges(text: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let (mut leaves, mut html) = (Vec::new(), Vec::new());
    let mut in_html = 0usize;
    for (event, range) in Parser::new_ext(text, super::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::HtmlBlock) => in_html += 1,
            Event::End(TagEnd::HtmlBlock) => in_html = in_html.saturating_sub(1),
            Event::Html(_) | Event::Text(_) if in_html > 0 => html.push(range),
            Event::Text(_)
            | Event::Code(_)
            | Event::InlineHtml(_)
            | Event::FootnoteReference(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_) => leaves.push(range),
            _ => {}
        }
    }
    (leaves, html)
}

#[cfg(test)]
mod tests {
    use super::structural_tabs_as_spaces as expand;
    use proptest::prelude::*;

    #[test]
    fn tabs_after_markers_become_the_columns_they_stand_for() {
        let cases = [
            ("- * \t<!-- x\n", "- *     <!-- x\n"),
            (">\t\tfoo\n", ">       foo\n"),
            ("-\tfoo\n", "-   foo\n"),
            ("10.\tfoo\n", "10. foo\n"),
            ("1)\t> \tx\n", "1)  >   x\n"),
            ("> -\t[a](b)\n", "> - [a](b)\n"),
            // The tab starting one column before code content: partly indentation.
            ("-    \tx\n", "-       x\n"),
        ];
        for (text, want) in cases {
            assert_eq!(expand(text).as_deref(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn other_tabs_stay() {
        for text in [
            "\tcode\n",
            "a\tb\tc\n",
            "   \t- x\n",
            "-x\ty\n",
            "--\tx\n",
            "1234567890.\tx\n",
            // Code content after the five structural columns.
            "-     \tx\n",
            // Inside a fenced code block and an HTML block.
            "```\n-\tx\n```\n",
            "<pre>\n-\tx\n</pre>\n",
            // A marker that is code content, after the quote's own marker.
            "> ```x\n> >\tx\n",
            "no tab at all\n",
        ] {
            assert_eq!(expand(text), None, "{text:?}");
        }
    }

    /// Renders `text` as cmark-gfm does (comrak, raw HTML kept).
    fn render(text: &str) -> String {
        let mut options = crate::sanitize::second_reading::options();
        options.render.r#unsafe = true;
        comrak::markdown_to_html(text, &options)
    }

    fn line() -> impl Strategy<Value = String> {
        let prefix = prop::sample::select(vec![
            "", "> ", ">\t", "-\t", "- \t", "*\t\t", "1.\t", "10)\t", "  -\t", "\t", " \t",
            "-   \t", "> >\t", "-\t>\t", "+ ", "```", "<pre>",
        ]);
        let body = prop::sample::select(vec![
            "x",
            "<!-- c",
            "<img src=x>",
            "- y",
            "\tz",
            "",
            "[a](b)",
            "# h",
            "---",
        ]);
        (prop::collection::vec(prefix, 1..4), body)
            .prop_map(|(p, b)| format!("{}{b}\n", p.concat()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// A `CommonMark` reader (cmark-gfm's rules) makes the same document of the text
        /// before and after, and a second pass changes nothing.
        #[test]
        fn commonmark_readers_see_the_same_document(lines in prop::collection::vec(line(), 1..6)) {
            let text = lines.concat();
            if let Some(out) = expand(&text) {
                prop_assert_eq!(render(&out), render(&text), "{:?} -> {:?}", text, out);
                prop_assert_eq!(expand(&out), None);
            }
        }
    }
}
