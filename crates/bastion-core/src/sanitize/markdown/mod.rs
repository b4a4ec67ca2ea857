//! Markdown sanitizing for result text. Used by [`super::markup::sanitize_markup`];
//! nothing here is public.
//!
//! The text is parsed as `CommonMark` 0.31.2 with the GFM extensions hosts render (tables,
//! strikethrough, task lists, footnotes) by `pulldown-cmark`; math and metadata blocks
//! are *not* enabled, so their content is checked like any other text. The output is
//! the input with some source byte ranges (reported by the parser's offset iterator)
//! replaced; everything else stays byte-identical, code spans and code blocks included.
//! Text with a CR that no LF follows is sanitized, and handed on, with LF there
//! ([`super::markup::sanitize_markup`]): `CommonMark` renderers end a line at a lone CR,
//! `pulldown-cmark` keeps it as text inside code blocks.
//!
//! A destination's scheme and host are what [`markup::classify`] finds in the reading
//! that reaches furthest: as written, as cmark-gfm percent-encodes it, trimmed of the
//! whitespace lenient renderers trim, and with character references decoded as a browser
//! decodes an attribute that a renderer wrote without escaping `&`.
//!
//! | construct | when | becomes | finding |
//! |---|---|---|---|
//! | image (inline, reference, in a link) | `http(s)` host not trusted | `[image: ALT (HOST)]` | `external_image` |
//! | image | any scheme but `http(s)` | `[image: ALT]` | `dangerous_url_scheme` |
//! | link, autolink | scheme other than `http`, `https`, `mailto` | its text | `dangerous_url_scheme` |
//! | link, autolink | data in query/fragment, host not trusted | `TEXT (link removed: URL)`, the URL defanged (`https[://]host[.]example/…`) | `link_exfiltration` |
//! | link, inline HTML `<a href>`…`</a>` | text shows another site than the target ([`markup::mismatched_hosts`]) | ``TEXT (link target: `URL`)`` | `link_text_mismatch` |
//! | bare `http(s)://` (after anything but an ASCII letter) or `www.` URL in text or in its source (GFM autolinks it) | data in query/fragment, host not trusted | `URL (link removed)`, defanged | `link_exfiltration` |
//! | link reference definition | destination with a disallowed scheme, or data to an untrusted host | the same definition leading to `#` | `dangerous_url_scheme`, `link_exfiltration` |
//! | `<img`/`<image` tag in text (not raw HTML for `CommonMark`, e.g. an unquoted value with `=`) | `src`, `lowsrc`, `dynsrc` or a `srcset` word external or not `http(s)` | `[image (HOST)]` | `external_image`, … |
//! | HTML comment, declaration, processing instruction | not blank | `[hidden comment: TEXT]` | `hidden_comment` |
//! | raw HTML block or inline tag | anything the allowlist removes | cleaned HTML, image markers | `html_sanitized`, … |
//! | raw HTML block | parsing it would not be linear (nesting past 64 elements, …) | the rest escaped as text | `html_sanitized` |
//! | inline tag | too many attributes for the HTML tokenizer's duplicate check | escaped text | `html_sanitized` |
//! | indented code block right after a block quote, first character `>` | markdown-it continues the quote there ([`line_starts::quote_continued_by_code`]) | the same, after an empty line with the quote's `>` prefix | `html_sanitized` |
//! | paragraph line whose text begins with `>` (lazy, or indented 4+ columns) | markdown-it continues a quote there ([`line_starts::LineStarts`]) | the `>` escaped | `html_sanitized` |
//! | tab in a line's container prefix after a marker, or on a line inside a container | markdown-it counts its width from another column ([`line_starts::LineStarts`]) | the spaces `CommonMark` reads it as | `html_sanitized` |
//! | line right after a link reference definition, beginning like a markdown-it block (`<`, a list marker, …) or indented 4+ columns | markdown-it reads blocks again after a definition ([`definition_runs::definitions_read_alike`]) | the same, after an empty line with the `>` prefix | `html_sanitized` |
//! | line right after a link reference definition, lazy inside a list item or block quote | markdown-it ends the container there ([`definition_runs::definitions_read_alike`]) | the same, with the container's prefix | `html_sanitized` |
//! | table body row of Unicode blanks only (`\u{a0}`) | markdown-it trims it away, ends the table and reads a paragraph ([`unicode_spaces::blank_table_rows`]) | the row with a leading `\|` | `html_sanitized` |
//! | line with a `\|` beginning or ending with Unicode spaces | markdown-it's `trim` drops them and an edge cell: a table for one reader only, whose cells split code spans, or shifted cells ([`unicode_spaces::trimmed_table_rows`]) | those spaces as character references (`&#xA0;`) | `html_sanitized` |
//! | line beginning with `<`, with a Unicode space after the tag name (`<div\u{a0}`) or ending in them (`<a href=x>\u{a0}`), even inside a code span | markdown-it opens an HTML block there (types 1, 6, 7) ([`unicode_spaces::tag_lines`]) | those spaces as character references | `html_sanitized` |
//! | line with a `\|` (a list item, a heading, a fence, an HTML block's first line, …) before a delimiter-shaped line, where `CommonMark` reads no table | markdown-it tries tables before every other block: a table for it only ([`table_first::markdown_it_tables`]) | the delimiter row's first character escaped (`\-\|-`); on a fence's or HTML block's first line, its `\|` written `&#124;` | `html_sanitized` |
//! | `<` in text opening a tag whose spaces are Unicode spaces (`<img\u{a0}src=x onerror=…>`), or a tag name and such a space | markdown-it's tag pattern takes JavaScript's `\s` ([`markdown_it_tag`]) | `&lt;` | `html_sanitized` |
//! | link reference definition: a duplicate label, a blank label, a later line starting like a block or indented 4+; a setext heading whose text starts `[x]:` | markdown-it reads a paragraph (raw HTML from a label or title live) or a definition where `CommonMark` does not ([`definition_runs::definitions_read_alike`]) | its `[` escaped: text for every reader | `html_sanitized` |
//!
//! Text is looked at as runs of adjacent text events (one source span, so a URL split by
//! an entity or escape is seen whole); bare URLs and `<img` tags are found in the decoded
//! text, an `<img` only where its `<` is a literal source character, and the extent of a
//! tag is what html5ever's tokenizer reads. Work is linear in the text: one parse, a set
//! for reference labels, and each text run scanned once.
//!
//! Replacement text is escaped (`CommonMark` §2.4 backslash escapes, `<` as `&lt;`), and
//! removed targets are shown defanged rather than in code spans, so a replacement never
//! parses as a link, image, HTML or comment again, and no GFM autolinker turns the shown
//! URL back into a link, even where cmark-gfm leaves a code span unformed.
//!
//! The settled text is then read a second time the way cmark-gfm reads it
//! ([`super::second_reading`]); where that reading finds something active, the parsers
//! disagree about the text's structure and the whole text is escaped.

use super::html;
use super::markup::{self, ContentPolicy, Findings, HtmlInText, Target};
use crate::finding::Code;
use definition_runs::definitions_read_alike;
use definitions::{Definition, definition_after_task_marker, definition_edit, normalize_label};
use line_starts::{line_starts, quote_continued_by_code};
use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use std::collections::HashSet;
use std::ops::Range;
use table_first::markdown_it_tables;
use text_run::TextRun;
use unicode_spaces::{blank_table_rows, tag_lines, trimmed_table_rows};

mod bare_url;
mod definition_runs;
mod definitions;
mod line_starts;
mod markdown_it_tag;
mod table_first;
mod text_run;
mod unicode_spaces;

/// The parser extensions: what common hosts render, minus constructs whose content a
/// host without the extension would render as markdown or HTML (math, metadata).
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

/// Replace `range` of the source with `with`.
#[derive(Debug)]
struct Edit {
    range: Range<usize>,
    with: String,
}

/// An open link or image, collecting its text and the edits inside it.
#[derive(Debug)]
struct Frame {
    kind: Kind,
    range: Range<usize>,
    dest: String,
    link_type: LinkType,
    /// Visible text (link) or alt text (image), plain.
    plain: String,
    edits: Vec<Edit>,
}

/// What a [`Frame`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A markdown link or autolink.
    Link,
    /// A markdown image.
    Image,
    /// An inline raw-HTML `<a href>` (up to its `</a>` in the same block).
    HtmlLink,
}

/// Longest source looked at for the end of an `<img` tag found in text.
const MAX_TEXT_TAG: usize = 2048;

/// One markdown pass: `None` when nothing needs to change.
///
/// The text is read twice, with footnotes and without: hosts differ on the extension
/// (GitHub has it; cmark-gfm's default GFM rendering and markdown-it have not), and a
/// `[^n]:` line is a footnote holding an HTML block for one and a paragraph with live
/// links for the other. Each reading's edits are applied before the next one reads.
pub(crate) fn sanitize(
    text: &str,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<String> {
    let with_footnotes = sanitize_reading(text, options(), policy, findings);
    let current = with_footnotes.as_deref().unwrap_or(text);
    // Without `[^` there is no footnote syntax: both readings are the same.
    if memchr::memmem::find(current.as_bytes(), b"[^").is_none() {
        return with_footnotes;
    }
    let without = sanitize_reading(
        with_footnotes.as_deref().unwrap_or(text),
        options() - Options::ENABLE_FOOTNOTES,
        policy,
        findings,
    );
    without.or(with_footnotes)
}

/// One reading of [`sanitize`] with the given parser options.
fn sanitize_reading(
    text: &str,
    options: Options,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<String> {
    let mut edits: Vec<Edit> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut block: Option<HtmlBlock> = None;
    let mut used_labels: HashSet<String> = HashSet::new();
    let mut parser = Parser::new_ext(text, options).into_offset_iter();
    let events: Vec<(Event<'_>, Range<usize>)> = parser.by_ref().collect();
    let mut code_blocks = 0usize;
    let js_spaces = markdown_it_tag::has_js_only_space(text);
    // Where the last block quote ended (the start of the line after it).
    let mut quote_end = None;
    let mut i = 0;
    while i < events.len() {
        let (event, range) = &events[i];
        let range = range.clone();
        match event {
            Event::Start(
                Tag::Link {
                    link_type,
                    dest_url,
                    id,
                    ..
                }
                | Tag::Image {
                    link_type,
                    dest_url,
                    id,
                    ..
                },
            ) => {
                if !id.is_empty() {
                    used_labels.insert(normalize_label(id));
                }
                let kind = if text[range.clone()].starts_with('!') {
                    Kind::Image
                } else {
                    Kind::Link
                };
                stack.push(frame(kind, range, dest_url, *link_type));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                while stack.last().is_some_and(|f| f.kind == Kind::HtmlLink) {
                    flush(&mut stack, &mut edits);
                }
                let Some(done) = stack.pop() else {
                    i += 1;
                    continue;
                };
                let (done_edits, plain) = finish(done, policy, findings);
                deliver(&mut stack, &mut edits, done_edits, &plain);
            }
            Event::TaskListMarker(_) => {
                if let Some(edit) = definition_after_task_marker(text, range.end) {
                    findings.push(
                        Code::DangerousUrlScheme,
                        "a task list item began with a link reference definition, which cmark-gfm reads as one; its bracket was escaped".to_owned(),
                    );
                    edits.push(edit);
                }
            }
            Event::End(TagEnd::BlockQuote(_)) => quote_end = Some(range.end),
            Event::Start(Tag::CodeBlock(kind)) => {
                code_blocks += 1;
                if matches!(kind, CodeBlockKind::Indented)
                    && let Some(edit) = quote_continued_by_code(text, range.start, quote_end)
                {
                    findings.push(
                        Code::HtmlSanitized,
                        "an indented code block starting with > followed a block quote, which markdown-it continues (live markdown there); a line ending the quote was put before it".to_owned(),
                    );
                    edits.push(edit);
                }
            }
            Event::End(TagEnd::CodeBlock) => code_blocks = code_blocks.saturating_sub(1),
            Event::Text(_) if code_blocks == 0 => {
                // A run of adjacent text events (one source span, or apart only by the
                // backslash of an escape, which pulldown-cmark leaves out of both): bare
                // URLs and `<img` tags a lenient renderer would act on.
                let mut j = i + 1;
                while j < events.len()
                    && matches!(events[j].0, Event::Text(_))
                    && events[j - 1].1.end <= events[j].1.start
                    && text[events[j - 1].1.end..events[j].1.start]
                        .bytes()
                        .all(|b| b == b'\\')
                {
                    j += 1;
                }
                let run = TextRun::new(text, &events[i..j], js_spaces);
                let (run_edits, plain) = run.sanitize(text, policy, findings, stack.is_empty());
                deliver(&mut stack, &mut edits, run_edits, &plain);
                i = j;
                continue;
            }
            Event::Code(_) if code_blocks == 0 => {
                if let Some(edit) = block_tag_in_code_span(text, range.clone()) {
                    findings.push(
                        Code::HtmlSanitized,
                        "a code span had a line starting with <source or <search, which starts an HTML block for some readers; its < is now &lt;".to_owned(),
                    );
                    edits.push(edit);
                }
                if let (Event::Code(t), Some(top)) = (event, stack.last_mut()) {
                    top.plain.push_str(t);
                }
            }
            Event::Text(t) | Event::Code(t) | Event::FootnoteReference(t) => {
                if let Some(top) = stack.last_mut() {
                    top.plain.push_str(t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(top) = stack.last_mut() {
                    top.plain.push(' ');
                }
            }
            Event::InlineHtml(t) => {
                inline_event(t, range, policy, findings, &mut stack, &mut edits);
            }
            Event::Start(Tag::HtmlBlock) => {
                block = Some(HtmlBlock {
                    range,
                    html: String::new(),
                    lines: Vec::new(),
                });
            }
            Event::Html(t) => {
                if let Some(b) = block.as_mut() {
                    b.html.push_str(t);
                    b.lines.push(range.start);
                }
            }
            Event::End(TagEnd::HtmlBlock) => {
                if let Some(b) = block.take()
                    && let Some(with) = html_block(&b, text, policy, findings)
                {
                    edits.push(Edit {
                        range: b.range,
                        with,
                    });
                }
            }
            Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript,
            ) => {}
            Event::End(_) => {
                // An inline `<a>` does not outlive its block.
                while stack.last().is_some_and(|f| f.kind == Kind::HtmlLink) {
                    flush(&mut stack, &mut edits);
                }
            }
            _ => {}
        }
        i += 1;
    }
    while !stack.is_empty() {
        flush(&mut stack, &mut edits);
    }
    let mut reported = Vec::new();
    for (label, def) in parser.reference_definitions().iter() {
        // A label of Unicode blanks is no label for markdown-it: the definition is left
        // out, and so escaped below like an unreported one.
        // A label markdown-it may match with another one than `CommonMark` does
        // ([`markdown_it_tag::label_read_apart`]) is escaped too.
        if !label.chars().all(char::is_whitespace) && !markdown_it_tag::label_read_apart(label) {
            reported.push(def.span.clone());
        }
        let used = used_labels.contains(&normalize_label(label));
        let definition = Definition {
            span: def.span.clone(),
            dest: &def.dest,
            title: def.title.as_deref().filter(|_| !used),
        };
        if let Some(edit) = definition_edit(text, &definition, policy, findings) {
            edits.push(edit);
        }
    }
    let alike = definitions_read_alike(text, &events, &reported);
    flag_edits(
        &mut edits,
        findings,
        alike.after,
        "a line right after a link reference definition, which markdown-it reads as a new block (or, lazy, outside the list item or block quote), got an empty line before it or the container's prefix",
    );
    flag_edits(
        &mut edits,
        findings,
        alike.escaped,
        "a link reference definition that markdown-it reads differently (a duplicate label, a blank label, a line inside it starting a block, or a setext heading shaped like one) had its [ escaped",
    );
    let rows = blank_table_rows(text, &events);
    flag_edits(
        &mut edits,
        findings,
        rows,
        "a table row of Unicode blanks only, where markdown-it ends the table and starts a paragraph, got a leading |",
    );
    flag_edits(
        &mut edits,
        findings,
        trimmed_table_rows(text, &events),
        "a table line beginning or ending with Unicode spaces, which markdown-it trims (counting its cells unlike GFM), had them written as character references",
    );
    flag_edits(
        &mut edits,
        findings,
        tag_lines(text, &events),
        "a line beginning with a tag, with Unicode spaces after its name or at its end, where markdown-it starts an HTML block and CommonMark reads text, had them written as character references",
    );
    flag_edits(
        &mut edits,
        findings,
        markdown_it_tables(text, &events),
        "a line with a | before a delimiter-shaped line, which markdown-it reads as a table (it tries tables before every other block) and CommonMark does not, had the delimiter escaped (or, on a fence's or HTML block's first line, its | written &#124;)",
    );
    let starts = line_starts(text, &events);
    flag_edits(
        &mut edits,
        findings,
        starts.tabs,
        "tabs after block quote or list markers, which markdown-it measures unlike CommonMark (so code for one is markdown for the other), became the spaces they stand for",
    );
    flag_edits(
        &mut edits,
        findings,
        starts.quote_markers,
        "a paragraph line began with > (or, lazy in a block quote, with other block markup) where CommonMark reads no block, and markdown-it a block quote or a block; its first marker character was escaped",
    );
    if edits.is_empty() {
        return None;
    }
    // An edit that writes what is there changes nothing, but would keep out an edit
    // starting at the same place (an inline tag rewritten to itself on every pass kept out
    // the empty quote line a definition's next line needs, for good).
    edits.retain(|e| text[e.range.clone()] != *e.with);
    edits.sort_by_key(|e| e.range.start);
    // Two rules may make the same edit (a lazy `|-|` in a block quote: a line start and a
    // delimiter row); made twice, an inserted escape would escape the other one.
    edits.dedup_by(|b, a| a.range == b.range && a.with == b.with);
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for edit in edits {
        if edit.range.start < at {
            continue; // nested in an edit already applied; cannot happen with a well-formed event stream
        }
        out.push_str(&text[at..edit.range.start]);
        out.push_str(&edit.with);
        at = edit.range.end;
    }
    out.push_str(&text[at..]);
    (out != text).then_some(out)
}

/// Hands edits and plain text to the enclosing frame, or to the document.
fn deliver(stack: &mut [Frame], edits: &mut Vec<Edit>, done: Vec<Edit>, plain: &str) {
    match stack.last_mut() {
        Some(parent) => {
            parent.edits.extend(done);
            parent.plain.push_str(plain);
        }
        None => edits.extend(done),
    }
}

/// Closes the innermost frame without a decision: its edits and text go up.
fn flush(stack: &mut Vec<Frame>, edits: &mut Vec<Edit>) {
    if let Some(frame) = stack.pop() {
        deliver(stack, edits, frame.edits, &frame.plain);
    }
}

/// One inline raw-HTML event: the tag's own replacement, and `<a href>` … `</a>` pairs
/// whose text shows another site than the `href`.
fn inline_event(
    t: &str,
    range: Range<usize>,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
    stack: &mut Vec<Frame>,
    edits: &mut Vec<Edit>,
) {
    if policy.html_in_text == HtmlInText::Escape {
        let (tag_edits, plain) = match hidden_marker(t, findings) {
            Hidden::Tag => {
                findings.push(Code::HtmlSanitized, ESCAPED.to_owned());
                (
                    vec![Edit {
                        range,
                        with: escape_tags(t),
                    }],
                    t.to_owned(),
                )
            }
            Hidden::Blank => (Vec::new(), String::new()),
            Hidden::Marker(plain) => (
                vec![Edit {
                    range,
                    with: markup::escape_inline(&plain),
                }],
                plain,
            ),
        };
        deliver(stack, edits, tag_edits, &plain);
        return;
    }
    let tag = inline_html(t, policy, findings);
    let (tag_edits, plain) = match tag {
        Some(tag) => (
            vec![Edit {
                range: range.clone(),
                with: tag.source,
            }],
            tag.plain,
        ),
        None => (Vec::new(), String::new()),
    };
    if t.starts_with("</")
        && t.as_bytes()
            .get(2)
            .is_some_and(|b| b.eq_ignore_ascii_case(&b'a'))
        && !t[3..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
        && stack.last().is_some_and(|f| f.kind == Kind::HtmlLink)
        && let Some(mut done) = stack.pop()
    {
        done.edits.extend(tag_edits);
        done.range.end = range.end;
        let (done_edits, plain) = match html_link(&done, findings) {
            Some((source, plain)) => (
                vec![Edit {
                    range: done.range,
                    with: source,
                }],
                plain,
            ),
            None => (done.edits, done.plain),
        };
        deliver(stack, edits, done_edits, &plain);
        return;
    }
    // A kept `href` (not dropped as data-carrying) opens a frame up to `</a>`.
    let kept = html::link_href(t).filter(|href| match markup::classify(href) {
        Target::Web(url) => {
            policy.is_trusted(url.host_str().unwrap_or_default())
                || markup::data_carriers(&url).is_empty()
        }
        _ => false,
    });
    match kept {
        Some(dest) => stack.push(Frame {
            kind: Kind::HtmlLink,
            range,
            dest,
            link_type: LinkType::Inline,
            plain: String::new(),
            edits: tag_edits,
        }),
        None => deliver(stack, edits, tag_edits, &plain),
    }
}

/// `(source, plain)` replacing an inline HTML link whose text shows another site.
fn html_link(frame: &Frame, findings: &mut Findings<'_>) -> Option<(String, String)> {
    let Target::Web(url) = markup::classify(&frame.dest) else {
        return None;
    };
    let text = frame.plain.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = markup::mismatched_hosts(&text, &url);
    if shown.is_empty() {
        return None;
    }
    let host = url.host_str().unwrap_or_default();
    findings.push(
        Code::LinkTextMismatch,
        format!(
            "an HTML link's text shows {} but it leads to {host}; it was made inert and its real target is shown",
            shown.join(", ")
        ),
    );
    let target = markup::display_url(&url);
    let source = format!(
        "{} (link target: {})",
        markup::escape_inline(&text),
        markup::code_span(&target)
    );
    Some((source, format!("{text} (link target: {target})")))
}

fn frame(kind: Kind, range: Range<usize>, dest: &CowStr<'_>, link_type: LinkType) -> Frame {
    Frame {
        kind,
        range,
        dest: dest.to_string(),
        link_type,
        plain: String::new(),
        edits: Vec::new(),
    }
}

/// Decides a finished link or image: its edits (kept: the edits inside it; replaced: one
/// edit for its whole range) and its plain text for an enclosing link or image.
fn finish(
    frame: Frame,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> (Vec<Edit>, String) {
    let replacement = match frame.kind {
        Kind::Image => image(&frame, policy, findings),
        Kind::Link => link(&frame, policy, findings),
        Kind::HtmlLink => html_link(&frame, findings),
    };
    match replacement {
        None => (frame.edits, frame.plain),
        Some((source, plain)) => (
            vec![Edit {
                range: frame.range,
                with: source,
            }],
            plain,
        ),
    }
}

/// `(source, plain)` replacing an image, or `None` to keep it.
fn image(
    frame: &Frame,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<(String, String)> {
    let marker = match markup::classify(&frame.dest) {
        Target::Web(url) => {
            let host = url.host_str().unwrap_or_default();
            if policy.is_trusted(host) {
                return None;
            }
            let carriers = markup::data_carriers(&url);
            let data = if carriers.is_empty() {
                String::new()
            } else {
                format!(" (its URL carries data: {})", carriers.join(", "))
            };
            findings.push(
                Code::ExternalImage,
                format!(
                    "an image from {host} would load automatically{data}; it was replaced by text"
                ),
            );
            markup::image_marker(&frame.plain, Some(host))
        }
        Target::Disallowed(scheme) => {
            findings.push(
                Code::DangerousUrlScheme,
                format!("an image used a {scheme}: source; it was replaced by text"),
            );
            markup::image_marker(&frame.plain, None)
        }
        two @ Target::TwoReadings { .. } => {
            findings.push(
                Code::UrlInvalidCharacter,
                format!(
                    "an image's source reaches {} depending on who reads it; it was replaced by text",
                    two.hosts()
                ),
            );
            markup::image_marker(&frame.plain, None)
        }
        Target::Mailto => {
            findings.push(
                Code::DangerousUrlScheme,
                "an image used a mailto: source; it was replaced by text".to_owned(),
            );
            markup::image_marker(&frame.plain, None)
        }
        Target::Relative | Target::Invalid => return None,
    };
    Some((markup::escape_inline(&marker), marker))
}

/// `(source, plain)` replacing a link, or `None` to keep it.
fn link(
    frame: &Frame,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<(String, String)> {
    let autolink = matches!(frame.link_type, LinkType::Autolink | LinkType::Email);
    let text = frame.plain.split_whitespace().collect::<Vec<_>>().join(" ");
    match markup::classify(&frame.dest) {
        Target::Disallowed(scheme) => {
            findings.push(
                Code::DangerousUrlScheme,
                format!("a link to a {scheme}: URL was removed; its text is kept"),
            );
            Some((markup::escape_inline(&text), text))
        }
        two @ Target::TwoReadings { .. } => {
            findings.push(
                Code::UrlInvalidCharacter,
                format!(
                    "a link reaching {} depending on who reads it was removed; its text is kept",
                    two.hosts()
                ),
            );
            Some((markup::escape_inline(&text), text))
        }
        Target::Web(url) => {
            let host = url.host_str().unwrap_or_default().to_owned();
            let shown = markup::mismatched_hosts(&text, &url);
            let carriers = policy.untrusted_carriers(&url);
            if shown.is_empty() && carriers.is_empty() {
                return None;
            }
            let (target_source, target) = if carriers.is_empty() {
                let target = markup::display_url(&url);
                (markup::code_span(&target), target)
            } else {
                markup::defanged_url(&url)
            };
            if !shown.is_empty() {
                findings.push(
                    Code::LinkTextMismatch,
                    format!(
                        "a link's text shows {} but it leads to {host}; it was made inert and its real target is shown",
                        shown.join(", ")
                    ),
                );
            }
            let label = if carriers.is_empty() {
                "link target"
            } else {
                findings.push(
                    Code::LinkExfiltration,
                    format!(
                        "a link to {host} carried data ({}); it was made inert and its full target is shown",
                        carriers.join(", ")
                    ),
                );
                "link removed"
            };
            if autolink {
                let source = format!("{target_source} ({label})");
                Some((source, format!("{target} ({label})")))
            } else {
                let text = if text.is_empty() {
                    "link".to_owned()
                } else {
                    text
                };
                let source = format!(
                    "{} ({label}: {target_source})",
                    markup::escape_inline(&text)
                );
                Some((source, format!("{text} ({label}: {target})")))
            }
        }
        Target::Mailto | Target::Relative | Target::Invalid => None,
    }
}

/// A code span (source `range`) that runs over lines, one of which starts (after
/// indentation and `>`) with a `source` or `search` tag: an HTML block start for
/// `CommonMark` 0.29 (cmark-gfm) or 0.31 that interrupts the paragraph, so the rest of the
/// "code" is raw HTML for that reader. The edit rewrites the first such `<` as `&lt;`;
/// the code span then shows `&lt;` there, which only such contrived text has.
fn block_tag_in_code_span(text: &str, range: Range<usize>) -> Option<Edit> {
    let source = &text[range.clone()];
    let mut at = 0;
    for line in source.split_inclusive('\n').skip(1) {
        at += source[at..].find('\n')? + 1;
        let lead = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
        if version_dependent_block_tag(&line[lead..].to_ascii_lowercase()) {
            let lt = range.start + at + lead;
            return Some(Edit {
                range: lt..lt + 1,
                with: markup::LT.to_owned(),
            });
        }
    }
    None
}

/// `true` when `tag` (ASCII-lowercased, starting at its `<`) opens or closes a `source` or
/// `search` element: an HTML block start for one `CommonMark` version and not the other
/// (`source` in 0.29, which cmark-gfm follows; `search` in 0.31, which pulldown-cmark
/// follows).
fn version_dependent_block_tag(tag: &str) -> bool {
    let Some(name) = tag.strip_prefix("</").or_else(|| tag.strip_prefix('<')) else {
        return false;
    };
    ["source", "search"].iter().any(|t| {
        name.strip_prefix(t).is_some_and(|after| {
            after.is_empty()
                || after.starts_with(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
        })
    })
}

/// Comments, declarations, processing instructions and CDATA (`CommonMark` §6.6) are
/// invisible when rendered: shown as a marker. Tags go to [`html::sanitize_tag`].
fn inline_html(
    t: &str,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<html::InlineTag> {
    match hidden_marker(t, findings) {
        Hidden::Tag => html::sanitize_tag(t, policy, findings),
        Hidden::Blank => None,
        Hidden::Marker(plain) => Some(html::InlineTag {
            source: markup::escape_inline(&plain),
            plain,
        }),
    }
}

/// Classification of raw HTML that may hide text.
enum Hidden {
    /// A tag: not hidden text.
    Tag,
    /// A comment with nothing in it (`<!-- -->` separating lists): kept.
    Blank,
    /// Hidden text, as a plain marker.
    Marker(String),
}

/// For raw HTML starting with `<!--`, `<!` or `<?`: the marker showing what it hid
/// (and a `hidden_comment` finding). The comment text ends at the first `-->`.
fn hidden_marker(t: &str, findings: &mut Findings<'_>) -> Hidden {
    let (kind, content) = if let Some(inner) = t.strip_prefix("<!--") {
        let inner = inner.trim_end();
        let content = inner
            .strip_suffix("-->")
            .or_else(|| inner.strip_suffix('>'))
            .unwrap_or(inner);
        ("comment", content)
    } else if t.starts_with("<!") || t.starts_with("<?") {
        ("markup", t.trim())
    } else {
        return Hidden::Tag;
    };
    let content = content.split_whitespace().collect::<Vec<_>>().join(" ");
    if content.trim_matches('-').is_empty() {
        return Hidden::Blank;
    }
    findings.push(
        Code::HiddenComment,
        format!(
            "an HTML {kind} hid text from the rendered view; it is now shown as [hidden {kind}: …]"
        ),
    );
    Hidden::Marker(format!("[hidden {kind}: {content}]"))
}

/// The finding message for tags shown as text (`html_in_text = "escape"`).
const ESCAPED: &str = "HTML tags were shown as escaped text (html_in_text = escape)";

/// Raw HTML made visible text: every `<` becomes `&lt;` ([`markup::LT`]), so no tag,
/// comment or declaration starts in it.
fn escape_tags(html: &str) -> String {
    html.replace('<', markup::LT)
}

/// A raw HTML block: its source range, its HTML (container prefixes removed) and the
/// source offset of each of its lines' HTML.
#[derive(Debug)]
struct HtmlBlock {
    range: Range<usize>,
    html: String,
    lines: Vec<usize>,
}

/// Replacement source for an HTML block, or `None` to keep it.
fn html_block(
    block: &HtmlBlock,
    text: &str,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<String> {
    let html = block.html.as_str();
    let mut markers: Vec<String> = Vec::new();
    let mut changed = false;
    let rest = if let Some(inner) = html.strip_prefix("<!--") {
        // CommonMark §4.6 type 2: the comment ends at the first `-->`; the rest of that
        // line is more HTML.
        let (comment, rest) = if let Some(r) = inner.strip_prefix('>') {
            ("", Some(r))
        } else if let Some(r) = inner.strip_prefix("->") {
            ("", Some(r))
        } else {
            inner
                .find("-->")
                .map_or((inner, None), |i| (&inner[..i], Some(&inner[i + 3..])))
        };
        if let Hidden::Marker(m) = hidden_marker(&format!("<!--{comment}-->"), findings) {
            markers.push(m);
            changed = true;
        }
        // An unterminated comment would hide whatever a host renders after this text.
        changed |= rest.is_none();
        rest.unwrap_or_default()
    } else if html.starts_with("<!") || html.starts_with("<?") {
        if let Hidden::Marker(m) = hidden_marker(html, findings) {
            markers.push(m);
            changed = true;
        }
        ""
    } else {
        html
    };
    let body = if rest.trim().is_empty() {
        String::new()
    } else if policy.html_in_text == HtmlInText::Escape {
        changed = true;
        findings.push(Code::HtmlSanitized, ESCAPED.to_owned());
        escape_tags(rest)
    } else if let Some(cleaned) = html::clean(rest, policy, findings) {
        changed = true;
        markers.extend(cleaned.image_markers);
        cleaned.html
    } else {
        rest.to_owned()
    };
    if !changed {
        return None;
    }
    let prefix = continuation_prefix(block, text);
    let mut lines: Vec<String> = body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    if !markers.is_empty() {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(
            markers
                .iter()
                .map(|m| markup::escape_inline(m))
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(if line.is_empty() {
                prefix.trim_end()
            } else {
                &prefix
            });
        }
        out.push_str(line);
    }
    if text[block.range.clone()].ends_with(['\n', '\r']) {
        // A blank line keeps what follows from becoming part of the replacement (an
        // indented code block after it would otherwise turn into paragraph text).
        if !out.is_empty() {
            out.push('\n');
            out.push_str(prefix.trim_end());
        }
        out.push('\n');
    }
    Some(out)
}

/// Byte offset of the start of the line holding byte `at`: after the last line ending
/// before it, which is LF, CR or CR LF (`CommonMark` §2.1).
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// The container prefix (`> `, list indentation) to put before each line of a block
/// replacement after the first: taken from the block's second line, or derived from the
/// first line's prefix with list markers turned into spaces.
fn continuation_prefix(block: &HtmlBlock, text: &str) -> String {
    if let Some(&second) = block.lines.get(1) {
        return text[line_start(text, second)..second].to_owned();
    }
    let first = block.lines.first().copied().unwrap_or(block.range.start);
    blank_prefix(&text[line_start(text, first)..first])
}

/// The prefix of a first line (`>` markers, list markers, indentation) for the lines after
/// it: every `>` becomes `> `, and everything else blank columns of the width it had, so
/// the content keeps its column inside each container. Widths count tabs to the next
/// multiple of 4 and the optional space (or tab column) after a `>` (`CommonMark` §2.2,
/// §5.1). Keeping a `>` as it was would let the optional space take one of the new blank
/// columns, and `>- x` would continue as `>  x`, one column short of the list item's
/// content: out of the item, and a new line on every pass.
/// Adds `group` (edits of one markdown-it reading, [`line_starts`] and
/// [`definition_runs`]) to `edits` with one `html_sanitized` finding saying `why`, when
/// it holds any.
fn flag_edits(edits: &mut Vec<Edit>, findings: &mut Findings<'_>, group: Vec<Edit>, why: &str) {
    if !group.is_empty() {
        findings.push(Code::HtmlSanitized, why.to_owned());
        edits.extend(group);
    }
}

fn blank_prefix(prefix: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + 4);
    let mut col = 0usize;
    let mut blank = 0usize;
    let next_stop = |col: usize| (col / 4 + 1) * 4;
    let mut chars = prefix.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '>' => {
                out.extend(std::iter::repeat_n(' ', blank));
                blank = 0;
                out.push_str("> ");
                col += 1;
                match chars.peek() {
                    Some(' ') => {
                        chars.next();
                        col += 1;
                    }
                    Some('\t') => {
                        chars.next();
                        let stop = next_stop(col);
                        blank += stop - col - 1;
                        col = stop;
                    }
                    _ => {}
                }
            }
            '\t' => {
                let stop = next_stop(col);
                blank += stop - col;
                col = stop;
            }
            _ => {
                col += 1;
                blank += 1;
            }
        }
    }
    out.extend(std::iter::repeat_n(' ', blank));
    out
}

#[cfg(test)]
mod tests;
