//! Text runs of the markdown sanitizer (`super`): bare URLs as GFM autolinkers find
//! them (in the decoded text and in the source), `<img` tags in text, and `<` that
//! another `CommonMark` reading takes as markup.

use super::super::html;
use super::super::markup::{self, ContentPolicy, Findings, Target};
use super::bare_url::{
    Trigger, autolink_trigger, bare_url_candidates, bare_url_edit, trim_autolink,
};
use super::{Edit, MAX_TEXT_TAG, markdown_it_tag};
use crate::finding::Code;
use pulldown_cmark::Event;
use std::ops::Range;

/// A run of adjacent text events: their decoded text and where each came from.
pub(super) struct TextRun {
    decoded: String,
    /// `(offset in decoded, source range, source equals decoded text)`.
    pieces: Vec<(usize, Range<usize>, bool)>,
    /// The whole text holds a character only JavaScript's `\s` takes for a space
    /// ([`markdown_it_tag::has_js_only_space`]).
    js_spaces: bool,
}

impl TextRun {
    /// `js_spaces`: [`markdown_it_tag::has_js_only_space`] of the whole `text`.
    pub(super) fn new(text: &str, events: &[(Event<'_>, Range<usize>)], js_spaces: bool) -> Self {
        let mut decoded = String::new();
        let mut pieces = Vec::with_capacity(events.len());
        for (event, range) in events {
            if let Event::Text(t) = event {
                pieces.push((decoded.len(), range.clone(), text[range.clone()] == **t));
                decoded.push_str(t);
            }
        }
        Self {
            decoded,
            pieces,
            js_spaces,
        }
    }

    /// The piece holding decoded offset `d`.
    fn piece(&self, d: usize) -> &(usize, Range<usize>, bool) {
        let i = self.pieces.partition_point(|p| p.0 <= d).saturating_sub(1);
        &self.pieces[i]
    }

    /// Source offset of decoded offset `d` when it lies in text copied from the source.
    fn exact_source(&self, d: usize) -> Option<usize> {
        let (start, range, exact) = self.piece(d);
        (*exact).then(|| range.start + (d - start))
    }

    /// Source offset of decoded offset `d`: inside a decoded piece (an entity or escape),
    /// the piece's start (`end == false`) or end.
    fn source(&self, d: usize, end: bool) -> usize {
        if d >= self.decoded.len() {
            return self.pieces.last().map_or(0, |p| p.1.end);
        }
        let (start, range, exact) = self.piece(d);
        match (exact, end && d > *start) {
            (true, _) => range.start + (d - start),
            (false, false) => range.start,
            (false, true) => range.end,
        }
    }

    /// Decoded offset of source offset `s` (inside a decoded piece: its end).
    fn decoded_at(&self, s: usize) -> usize {
        let i = self
            .pieces
            .partition_point(|p| p.1.start <= s)
            .saturating_sub(1);
        let (start, range, exact) = &self.pieces[i];
        let len = self.pieces.get(i + 1).map_or(self.decoded.len(), |p| p.0) - start;
        if *exact {
            start + (s - range.start).min(len)
        } else {
            start + len
        }
    }

    /// Edits for this run and its plain text (with replacements). `bare_urls`: whether
    /// bare URLs are looked at (not inside a link, where a host would not autolink).
    pub(super) fn sanitize(
        &self,
        text: &str,
        policy: &ContentPolicy,
        findings: &mut Findings<'_>,
        bare_urls: bool,
    ) -> (Vec<Edit>, String) {
        let decoded = self.decoded.as_str();
        let lower = decoded.to_ascii_lowercase();
        let source_end = self.pieces.last().map_or(0, |p| p.1.end);
        // (decoded range, edit, plain replacement)
        let mut found: Vec<(Range<usize>, Edit, String)> = Vec::new();
        let mut skip = 0;
        for (d, _) in lower.match_indices("<im") {
            if d < skip || !(lower[d..].starts_with("<img") || lower[d..].starts_with("<image")) {
                continue;
            }
            let name_len = if lower[d..].starts_with("<image") {
                6
            } else {
                4
            };
            if lower[d + name_len..]
                .chars()
                .next()
                .is_some_and(|c| !c.is_ascii_whitespace() && c != '/' && c != '>')
            {
                continue;
            }
            let Some(start) = self.exact_source(d) else {
                continue;
            };
            let (read, loads) = html::loading_image(&text[start..source_end], policy, MAX_TEXT_TAG);
            skip = self.decoded_at(start + read);
            if !loads {
                continue;
            }
            let tag_source = &text[start..start + read];
            if let Some(tag) = html::sanitize_tag(tag_source, policy, findings) {
                found.push((
                    d..skip,
                    Edit {
                        range: start..start + read,
                        with: tag.source,
                    },
                    tag.plain,
                ));
            }
        }
        self.ambiguous_lt(text, &lower, findings, &mut found);
        self.definition_like(text, policy, findings, &mut found);
        if self.js_spaces || decoded.contains('\u{131}') {
            self.markdown_it_labels(text, findings, &mut found);
        }
        if bare_urls {
            self.bare_urls(text, &lower, policy, findings, &mut found);
            self.crossing_autolinks(text, findings, &mut found);
        }
        // Where a source candidate and a decoded one overlap, the longer one wins.
        found.sort_by_key(|f| (f.0.start, std::cmp::Reverse(f.0.end)));
        let mut plain = String::with_capacity(decoded.len());
        let mut edits = Vec::with_capacity(found.len());
        let mut at = 0;
        for (range, edit, replacement) in found {
            if range.start < at {
                continue;
            }
            plain.push_str(&decoded[at..range.start]);
            plain.push_str(&replacement);
            at = range.end;
            edits.push(edit);
        }
        plain.push_str(&decoded[at.min(decoded.len())..]);
        (edits, plain)
    }

    /// cmark-gfm's autolinker takes a bare URL from the source up to the next whitespace
    /// or `<`, whatever markup lies in between: in ``www.`<img src=x onerror=…>` `` it
    /// takes the backtick that opens the code span, and the tag after it is live HTML;
    /// in ``https://a.example/```![x](p?token=…)`` it takes an image's syntax, data
    /// included, into the link. Where a candidate runs on past the end of this text run
    /// (into a code span, a link, emphasis, an entity), its trigger is written as a
    /// character reference (`www&#46;`, `https&#58;//`): the same text for every parser,
    /// and no autolink for cmark-gfm.
    fn crossing_autolinks(
        &self,
        text: &str,
        findings: &mut Findings<'_>,
        found: &mut Vec<(Range<usize>, Edit, String)>,
    ) {
        let source_start = self.pieces.first().map_or(0, |p| p.1.start);
        let source_end = self.pieces.last().map_or(0, |p| p.1.end);
        let raw = &text[source_start..source_end];
        let lower = raw.to_ascii_lowercase();
        // (end of the token, end of the candidate without GFM's trailing punctuation),
        // shared by every trigger in one token.
        let mut token = (0, 0);
        let before = found.len();
        let mut d = 0;
        while let Some(k) = lower[d..].find(['h', 'w', 'f', 'x']) {
            let start = d + k;
            d = start + 1;
            let (offset, reference) =
                match autolink_trigger(&lower[start..], raw[..start].chars().next_back()) {
                    Some(Trigger::Www) => (3, "&#46;"),
                    Some(Trigger::Scheme(colon)) => (colon, "&#58;"),
                    None => continue,
                };
            let at = source_start + start;
            if at >= token.0 {
                let end = at
                    + text[at..]
                        .find(|c: char| c.is_whitespace() || c == '<')
                        .unwrap_or(text.len() - at);
                token = (end, at + trim_autolink(&text[at..end]).len());
            }
            // Emphasis closers and punctuation at the end stay out of the link (`**URL**`).
            if token.1 <= source_end {
                continue;
            }
            let edit = Edit {
                range: at + offset..at + offset + 1,
                with: reference.to_owned(),
            };
            let decoded = self.decoded_at(at + offset);
            let plain = text[at + offset..=at + offset].to_owned();
            found.push((decoded..decoded + 1, edit, plain));
        }
        if found.len() > before {
            findings.push(
                Code::HtmlSanitized,
                "a bare URL ran on into other markdown, which cmark-gfm's autolinker would take into the link; the URL was written so that it is not autolinked".to_owned(),
            );
        }
    }

    /// A `[` in text opening a bracketed label that markdown-it's `normalizeReference`
    /// reads unlike `CommonMark`: it trims and collapses with JavaScript's `trim` and `\s`,
    /// which take Unicode spaces (U+00A0, U+3000, …) for spaces, and compares the
    /// upper case of the lower case, where `ı` (U+0131) meets `i`. So `![x][\u{a0}a]` uses
    /// a definition `[a]: …` for markdown-it only (an external image `CommonMark` never
    /// loads). Such a `[` is escaped: text for every reader. Definitions with such labels
    /// are escaped where they are found (see `super::sanitize_reading`).
    fn markdown_it_labels(
        &self,
        text: &str,
        findings: &mut Findings<'_>,
        found: &mut Vec<(Range<usize>, Edit, String)>,
    ) {
        let before = found.len();
        for (d, _) in self.decoded.match_indices('[') {
            let Some(at) = self.exact_source(d) else {
                continue;
            };
            let Some(escape) = escaped_bracket(text, at, d) else {
                continue;
            };
            // The label runs to the next unescaped bracket (a label holds none) and has
            // at most 999 characters: each scan stops where the next may start.
            let mut end = text.len().min(at + 1 + 4 * 1000);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let window = &text[at + 1..end];
            let mut escaped = false;
            let close = window.char_indices().find(|&(_, c)| {
                let bracket = !escaped && matches!(c, '[' | ']');
                escaped = !escaped && c == '\\';
                bracket
            });
            if let Some((close, ']')) = close
                && markdown_it_tag::label_read_apart(&window[..close])
            {
                found.push(escape);
            }
        }
        if found.len() > before {
            findings.push(
                Code::HtmlSanitized,
                "a [ opening a label that markdown-it matches unlike CommonMark (Unicode spaces, dotless i) was escaped".to_owned(),
            );
        }
    }

    /// Text that reads like a link reference definition to a destination no link may have
    /// (`[x]: javascript:…`, or data to an untrusted host) gets its `[` escaped. This
    /// parser took it for text, but the parsers disagree on what a definition is (which
    /// destinations are valid, where a container ends, what an HTML block before it
    /// leaves), and a reader that takes it for a definition makes every `[x]` a live link.
    fn definition_like(
        &self,
        text: &str,
        policy: &ContentPolicy,
        findings: &mut Findings<'_>,
        found: &mut Vec<(Range<usize>, Edit, String)>,
    ) {
        let decoded = self.decoded.as_str();
        let before = found.len();
        let mut searched_to = 0;
        // End of the last destination looked at: a `]:` inside it belongs to it (and
        // skipping it keeps the work linear).
        let mut dest_end = 0;
        for (colon, _) in decoded.match_indices("]:") {
            if colon < dest_end {
                continue;
            }
            // A label holds no unescaped `[` or `]` and at most 999 characters.
            let mut from = colon.saturating_sub(1000).max(searched_to);
            while !decoded.is_char_boundary(from) {
                from += 1;
            }
            searched_to = colon;
            let Some(open) = decoded[from..colon].rfind('[').map(|i| from + i) else {
                continue;
            };
            if decoded[open + 1..colon].contains(']') {
                continue;
            }
            let rest = decoded[colon + 2..].trim_start();
            let dest = rest.split(char::is_whitespace).next().unwrap_or_default();
            dest_end = decoded.len() - rest.len() + dest.len();
            let dest = dest
                .strip_prefix('<')
                .map_or(dest, |d| d.split('>').next().unwrap_or_default());
            let harmful = match markup::classify(dest) {
                Target::Disallowed(_) | Target::TwoReadings { .. } => true,
                Target::Web(url) => {
                    !policy.is_trusted(url.host_str().unwrap_or_default())
                        && !markup::data_carriers(&url).is_empty()
                }
                Target::Mailto | Target::Relative | Target::Invalid => false,
            };
            let Some(at) = self.exact_source(open).filter(|_| harmful) else {
                continue;
            };
            found.extend(escaped_bracket(text, at, open));
        }
        if found.len() > before {
            findings.push(
                Code::DangerousUrlScheme,
                "text that other markdown readers take for a link reference definition to a harmful destination had its [ escaped".to_owned(),
            );
        }
    }

    /// `<` in text that another reading would take as markup becomes `&lt;` (text for
    /// every parser):
    /// - an escaped `\\<`: cmark-gfm's autolinker takes a bare URL up to the next `<`
    ///   from the source, so in `www.\\<img …>` the backslash goes into the link and the
    ///   tag is live;
    /// - a literal `<` opening `source` or `search` (as a tag name): `CommonMark` 0.29
    ///   (cmark-gfm) starts an HTML block at a line's `<source`, 0.31 (`pulldown-cmark`)
    ///   at `<search`, and an HTML block's lines are raw HTML, unchecked as markdown;
    /// - a literal `<` that markdown-it reads as a tag or an HTML block start because
    ///   JavaScript's `\s` takes U+00A0, U+3000 and the like for spaces
    ///   ([`markdown_it_tag`]): `<img\u{a0}src=x onerror=…>` is live for it.
    fn ambiguous_lt(
        &self,
        text: &str,
        lower: &str,
        findings: &mut Findings<'_>,
        found: &mut Vec<(Range<usize>, Edit, String)>,
    ) {
        let before = found.len();
        let source_start = self.pieces.first().map_or(0, |p| p.1.start);
        let source_end = self.pieces.last().map_or(0, |p| p.1.end);
        let raw = &text[source_start..source_end];
        for (i, _) in raw.match_indices("\\<") {
            let backslashes = raw[..=i].bytes().rev().take_while(|&b| b == b'\\').count();
            if backslashes % 2 == 1 {
                let at = source_start + i;
                // The decoded `<` ends where the source after `\\<` starts.
                let d = self.decoded_at(at + 2).saturating_sub(1);
                let edit = Edit {
                    range: at..at + 2,
                    with: markup::LT.to_owned(),
                };
                found.push((d..d + 1, edit, "<".to_owned()));
            }
        }
        // markdown-it's tags differ from `CommonMark`'s only where JavaScript's `\s` matches
        // and `CommonMark`'s whitespace does not; a text without such a character is read
        // alike. A tag may run on past this run's end: it is matched on the source.
        let js_spaces = self.js_spaces;
        let mut cache = None;
        for (d, _) in lower.match_indices('<') {
            let Some(at) = self.exact_source(d) else {
                continue;
            };
            if super::version_dependent_block_tag(&lower[d..])
                || (js_spaces && markdown_it_tag::reads_as_html(&text[at..], &mut cache))
            {
                let edit = Edit {
                    range: at..at + 1,
                    with: markup::LT.to_owned(),
                };
                found.push((d..d + 1, edit, "<".to_owned()));
            }
        }
        if found.len() > before {
            findings.push(
                Code::HtmlSanitized,
                "a `<` that another markdown reading takes as markup (after an escape next to a bare URL, opening source/search, or a tag whose spaces only markdown-it counts) is now written &lt;".to_owned(),
            );
        }
    }

    /// Bare `http://`, `https://` and `www.` URLs (GFM extended autolinks) that carry data
    /// to an untrusted host become `URL (link removed)`, the URL defanged
    /// ([`markup::defanged_url`]). They are looked for twice: in the decoded text, and, when
    /// the run holds escapes or entities, in its source as well, because cmark-gfm's
    /// autolinker reads the source (`https://a.example/\\>?token=…` is one link for it,
    /// backslash included, while the decoded text has a `>` that ends the URL).
    fn bare_urls(
        &self,
        text: &str,
        lower: &str,
        policy: &ContentPolicy,
        findings: &mut Findings<'_>,
        found: &mut Vec<(Range<usize>, Edit, String)>,
    ) {
        let verbatim = self.pieces.iter().all(|p| p.2)
            && self.pieces.windows(2).all(|w| w[0].1.end == w[1].1.start);
        // markdown-it's linkify reads text tokens, which end at an escape or entity: its
        // schemeless links are looked for in the source (below) when the run has any.
        for candidate in bare_url_candidates(&self.decoded, lower, false, verbatim) {
            if let Some((with, plain)) = bare_url_edit(&candidate, policy, findings) {
                let range = candidate.range;
                let source = self.source(range.start, false)..self.source(range.end, true);
                found.push((
                    range,
                    Edit {
                        range: source,
                        with,
                    },
                    plain,
                ));
            }
        }
        let source_start = self.pieces.first().map_or(0, |p| p.1.start);
        // A run that starts with an escaped character (pulldown-cmark leaves the
        // backslash out of the run): markdown-it starts a new text token, and so may
        // start a link, right after it.
        let lead_escaped = text[..source_start].ends_with('\\');
        if verbatim && !lead_escaped {
            return;
        }
        let source_end = self.pieces.last().map_or(0, |p| p.1.end);
        let raw = &text[source_start..source_end];
        for candidate in bare_url_candidates(raw, &raw.to_ascii_lowercase(), lead_escaped, true) {
            if let Some((with, plain)) = bare_url_edit(&candidate, policy, findings) {
                let range = candidate.range;
                let source = source_start + range.start..source_start + range.end;
                let decoded = self.decoded_at(source.start)..self.decoded_at(source.end);
                found.push((
                    decoded,
                    Edit {
                        range: source,
                        with,
                    },
                    plain,
                ));
            }
        }
    }
}

/// The edit escaping the literal `[` at source offset `at` (decoded offset `d`), unless a
/// backslash already escapes it (the parser leaves the backslash out of the decoded text
/// and reports the `[` as source text).
fn escaped_bracket(text: &str, at: usize, d: usize) -> Option<(Range<usize>, Edit, String)> {
    let backslashes = text[..at].bytes().rev().take_while(|&b| b == b'\\').count();
    (backslashes % 2 == 0).then(|| {
        let edit = Edit {
            range: at..at + 1,
            with: "\\[".to_owned(),
        };
        (d..d + 1, edit, "[".to_owned())
    })
}
