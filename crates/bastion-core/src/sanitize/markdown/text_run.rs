//! Text runs of the markdown sanitizer (`super`): bare URLs as GFM autolinkers find
//! them (in the decoded text and in the source), `<img` tags in text, and `<` that
//! another `CommonMark` reading takes as markup.

use super::super::html;
use super::super::markup::{self, ContentPolicy, Findings, Target};
use super::{Edit, MAX_TEXT_TAG};
use crate::finding::Code;
use pulldown_cmark::Event;
use std::ops::Range;

/// A run of adjacent text events: their decoded text and where each came from.
pub(super) struct TextRun {
    decoded: String,
    /// `(offset in decoded, source range, source equals decoded text)`.
    pieces: Vec<(usize, Range<usize>, bool)>,
}

impl TextRun {
    pub(super) fn new(text: &str, events: &[(Event<'_>, Range<usize>)]) -> Self {
        let mut decoded = String::new();
        let mut pieces = Vec::with_capacity(events.len());
        for (event, range) in events {
            if let Event::Text(t) = event {
                pieces.push((decoded.len(), range.clone(), text[range.clone()] == **t));
                decoded.push_str(t);
            }
        }
        Self { decoded, pieces }
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
            // Already escaped (the backslash is left out of the decoded text).
            let backslashes = text[..at].bytes().rev().take_while(|&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                let edit = Edit {
                    range: at..at + 1,
                    with: "\\[".to_owned(),
                };
                found.push((open..open + 1, edit, "[".to_owned()));
            }
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
    ///   at `<search`, and an HTML block's lines are raw HTML, unchecked as markdown.
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
        for (d, _) in lower.match_indices('<') {
            if let (true, Some(at)) = (
                super::version_dependent_block_tag(&lower[d..]),
                self.exact_source(d),
            ) {
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
                "a `<` that another markdown reading takes as markup (after an escape next to a bare URL, or opening source/search) is now written &lt;".to_owned(),
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

/// Bare URL candidates of `text` (`lower` is its ASCII lowercase) as GFM extended
/// autolinks find them, with their range in `text`. A `www.` link starts at the start of
/// the text, after whitespace or after `*`, `_`, `~`, `(` (the GFM spec); an
/// `http(s)://` link (and cmark-gfm's `ftp://` and `xmpp:` ones) after anything but an
/// ASCII letter, because that is what cmark-gfm,
/// the renderer GitHub runs, links (after `"`, `-`, `.`, `<`, `` ` ``, `]` too). The
/// candidate runs up to whitespace or `<` with trailing punctuation and unbalanced `)`
/// left out, as GFM does; the URL parser decides the rest. Schemeless ones too
/// ([`fuzzy_url_candidates`]) when `schemeless` (`lead_escaped`: the first character of
/// `text` was escaped).
/// The `bool` of a candidate: it was cut short of where the link may end (see
/// [`fuzzy_url_candidates`]).
fn bare_url_candidates(
    text: &str,
    lower: &str,
    lead_escaped: bool,
    schemeless: bool,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    // End of the current whitespace-delimited token, and how many candidates in it were
    // looked at. Every trigger in a token is looked at, not only the first: cmark-gfm
    // validates a domain more strictly than the URL parser, moves on past one it refuses
    // and links a later one (`https://[**xmpp:a@b.c` is a valid URL with user info for
    // the URL parser; cmark-gfm links the `xmpp:`), and linkify-it starts a new link
    // after a `>`. Past [`MAX_CANDIDATES_IN_TOKEN`] in one token, a candidate is read
    // for [`CAPPED_READ_BYTES`] only and marked cut (see [`Candidate::cut`]).
    let mut token_end = 0;
    let mut looked_at = 0;
    // The same for the wider stretch linkify-it reads past a `<` (see below).
    let mut wide_end = 0;
    let mut wide_looked_at = 0;
    let mut marks = NextMark::default();
    let mut d = 0;
    while let Some(k) = lower[d..].find(['h', 'w', 'f', 'x']) {
        let start = d + k;
        d = start + 1;
        let Some(trigger) = autolink_trigger(&lower[start..], text[..start].chars().next_back())
        else {
            continue;
        };
        let www = matches!(trigger, Trigger::Www);
        if start >= token_end {
            token_end = start
                + text[start..]
                    .find(|c: char| c.is_whitespace() || c == '<')
                    .unwrap_or(text.len() - start);
            looked_at = 0;
        }
        looked_at += 1;
        let mut end = token_end;
        // In source, a backslash right before the `<` escapes it (it becomes `&lt;`,
        // [`TextRun::ambiguous_lt`]); it is not part of the URL shown.
        if text[end..].starts_with('<') && text[..end].ends_with('\\') {
            end -= 1;
        }
        let mut cut = false;
        if looked_at > MAX_CANDIDATES_IN_TOKEN && end - start > CAPPED_READ_BYTES {
            end = floor_boundary(text, start + CAPPED_READ_BYTES);
            cut = marks.within(text, start, token_end);
        }
        let prefix = if www { "http://" } else { "" };
        if let Some(candidate) = Candidate::read(text, start..end, prefix, cut) {
            out.push(candidate);
        }
        // linkify-it's user info takes a `<` (`https://trusted.example<@attacker.example/`
        // is one link for it, up to whitespace, `>` or a fullwidth bar): read that too.
        // Bounded like the tokens above, per stretch up to linkify-it's end.
        if !cut && text[token_end..].starts_with('<') {
            if start >= wide_end {
                wide_end = start
                    + text[start..]
                        .find(|c: char| c.is_whitespace() || matches!(c, '>' | '\u{ff5c}'))
                        .unwrap_or(text.len() - start);
                wide_looked_at = 0;
            }
            wide_looked_at += 1;
            let read = if wide_looked_at > MAX_CANDIDATES_IN_TOKEN {
                CAPPED_READ_BYTES
            } else {
                MAX_FUZZY_BYTES
            };
            let far = floor_boundary(text, (start + read).min(wide_end));
            let cut = far < wide_end && marks.within(text, start, wide_end);
            if far > token_end
                && let Some(candidate) = Candidate::read(text, start..far, prefix, cut)
            {
                out.push(candidate);
            }
        }
    }
    if schemeless {
        out.extend(fuzzy_url_candidates(text, lead_escaped));
    }
    out
}

/// A bare URL candidate: where it is in the text read, the URL it makes, and how it is
/// judged ([`bare_url_edit`]).
struct Candidate {
    /// Byte range in the text read.
    range: Range<usize>,
    /// The URL as the URL parser reads it.
    url: url::Url,
    /// Read only in part (a length limit) while the link may go on with a query or
    /// fragment: made inert whenever its host is untrusted.
    cut: bool,
    /// Its host depends on the reader (`\\` before `@`, see [`Target::TwoReadings`]):
    /// always made inert.
    two_readings: bool,
}

impl Candidate {
    /// The candidate in `text[range]` (with `prefix` before it, `http://` for `www.`),
    /// without GFM's trailing punctuation unless `cut`; `None` when no URL parses.
    fn read(text: &str, range: Range<usize>, prefix: &str, cut: bool) -> Option<Self> {
        let written = &text[range.clone()];
        let written = if cut { written } else { trim_autolink(written) };
        let full = format!("{prefix}{written}");
        let url = url::Url::parse(&full).ok()?;
        Some(Self {
            range: range.start..range.start + written.len(),
            url,
            cut,
            two_readings: matches!(markup::classify(&full), Target::TwoReadings { .. }),
        })
    }
}

/// The next `?` or `#` at or after a position, for positions that only grow (linear).
#[derive(Default)]
struct NextMark {
    /// Position of the next mark after the last query (`usize::MAX`: not looked yet).
    at: Option<usize>,
}

impl NextMark {
    /// Whether a `?` or `#` lies in `text[from..to]` (`from` never smaller than before):
    /// without one, a link cut short there carries no query or fragment.
    fn within(&mut self, text: &str, from: usize, to: usize) -> bool {
        let at = match self.at {
            Some(at) if at >= from => at,
            _ => text[from..]
                .find(['?', '#'])
                .map_or(text.len(), |n| from + n),
        };
        self.at = Some(at);
        at < to
    }
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Bytes read of a candidate past [`MAX_CANDIDATES_IN_TOKEN`] in one token.
const CAPPED_READ_BYTES: usize = 256;

/// Schemeless links as markdown-it's `linkify` option finds them (linkify-it's
/// `fuzzyLink`, on by default there, and its `//` links): a host name ending in a
/// suffix the Public Suffix List knows (`attacker.com/c?d=…`, `s3.amazonaws.com/…`)
/// where linkify-it can start one (see [`fuzzy_start`]), then a port, path, query or
/// fragment; and after `//`, whatever the URL parser reads as an authority (user info,
/// an IPv4 address, any host). A link ends at whitespace, a control, `<`, `>` or `｜`
/// (linkify-it takes `"` and `|` into a path). Where a host does not parse (an emoji or
/// a combining mark in its first label), the host from each later label on is tried,
/// since linkify-it would link a subdomain of it. Candidates may overlap the `www.` and
/// scheme ones and each other (a trusted link can hold an untrusted one after a `)`,
/// where linkify-it ends the first); the caller keeps the earliest edit. Wider than
/// linkify-it, which knows fewer suffixes: a wrongly taken candidate only gets inert
/// text, and only when it carries data to an untrusted host. Starts inside a host
/// already looked at are skipped, later ones in its path are not.
///
/// Bounded: each candidate is read for at most [`MAX_FUZZY_BYTES`], only the first
/// [`MAX_CANDIDATES_IN_TOKEN`] of a whitespace-delimited token are read past their
/// host's first following character, and at most [`MAX_LABEL_TRIES`] hosts of each are
/// parsed, so a token with many starts costs linear time. A candidate cut short by either
/// limit while a `?` or `#` follows in its token is marked cut ([`Candidate::cut`]) and
/// covers only its host and the character after it, so that making it inert leaves the
/// text after it as written. `lead_escaped`: the first character of `text` was escaped
/// in the source (a link may start right after it).
fn fuzzy_url_candidates(text: &str, lead_escaped: bool) -> Vec<Candidate> {
    let label_char = |c: char| {
        c.is_alphanumeric()
            || c == '-'
            || !(c.is_ascii() || c.is_whitespace() || c.is_control() || is_wide_punct(c))
    };
    let link_end = |from: usize, limit: usize| {
        text[from..limit]
            .find(|c: char| {
                c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '\u{ff5c}')
            })
            .map_or(limit, |n| from + n)
    };
    let mut out = Vec::new();
    let mut resume = 0;
    // End of the current whitespace-delimited token and the candidates read in it.
    let mut token_end = 0;
    let mut read_in_token = 0;
    let mut marks = NextMark::default();
    let escaped_end = if lead_escaped {
        text.chars().next().map_or(0, char::len_utf8)
    } else {
        0
    };
    for (start, c) in text.char_indices() {
        let after_escape = lead_escaped && start == escaped_end;
        if start < resume
            || c == '-'
            || !label_char(c)
            || !(after_escape || fuzzy_start(&text[..start]))
        {
            continue;
        }
        if start >= token_end {
            token_end = text[start..]
                .find(char::is_whitespace)
                .map_or(text.len(), |n| start + n);
            read_in_token = 0;
        }
        // linkify-it's `//` links: any authority, user info and IPv4 hosts included.
        if !after_escape && text[..start].ends_with("//") {
            read_in_token += 1;
            let read = if read_in_token > MAX_CANDIDATES_IN_TOKEN {
                CAPPED_READ_BYTES
            } else {
                MAX_FUZZY_BYTES
            };
            let limit = floor_boundary(text, (start + read).min(text.len()));
            let end = link_end(start, limit);
            let cut = end == limit && marks.within(text, start, token_end);
            // linkify-it wants a dotted host there (an IPv4 address is one), or localhost.
            if let Some(candidate) =
                Candidate::read(text, start - 2..end, "http:", cut).filter(|c| {
                    c.url
                        .host_str()
                        .is_some_and(|h| h.contains('.') || h == "localhost")
                })
            {
                out.push(candidate);
            }
        }
        let run = text[start..]
            .find(|c: char| !label_char(c) && c != '.')
            .map_or(&text[start..], |n| &text[start..start + n]);
        // The whole run is looked at from here; no later start inside it.
        resume = start + run.len();
        let host = run.trim_end_matches(['.', '-']);
        let after = &text[start + host.len()..];
        if !host.contains('.') || !after.starts_with(['/', '?', '#', ':']) {
            continue;
        }
        read_in_token += 1;
        // The rest of the link, and past the budget of this token only the character
        // after the host. Only up to the limit: a search to the token's end from every
        // start in a long token would be quadratic.
        let budget = if read_in_token > MAX_CANDIDATES_IN_TOKEN {
            host.len() + 1
        } else {
            MAX_FUZZY_BYTES
        };
        let limit = floor_boundary(text, (start + budget).min(text.len()));
        // A host that leaves no room for a path within the limit is longer than any
        // name DNS resolves (253 bytes).
        if start + host.len() >= limit {
            continue;
        }
        let mut end = link_end(start, limit);
        let cut = end == limit && limit < token_end && marks.within(text, start, token_end);
        if cut {
            end = start + host.len() + 1;
        }
        // The host from its first label, then from each later one.
        let label_starts = std::iter::once(0)
            .chain(host.match_indices('.').map(|(i, _)| i + 1))
            .take(MAX_LABEL_TRIES);
        for from in label_starts {
            let sub = &host[from..];
            if !sub.contains('.') || !known_suffix(&sub.to_lowercase()) {
                continue;
            }
            if let Some(candidate) = Candidate::read(text, start + from..end, "http://", cut)
                .filter(|c| c.range.len() > sub.len())
            {
                out.push(candidate);
                break;
            }
        }
    }
    out
}

/// Host suffixes tried per schemeless candidate, from its first label on (each may cost
/// a URL parse of up to [`MAX_FUZZY_BYTES`]).
const MAX_LABEL_TRIES: usize = 8;

/// Longest schemeless candidate [`fuzzy_url_candidates`] parses, bytes. A longer link is
/// made inert from its host on, which breaks the whole link.
const MAX_FUZZY_BYTES: usize = 2048;

/// Punctuation outside ASCII that ends a host name for linkify-it (fullwidth bar, CJK
/// full stop and quotes).
fn is_wide_punct(c: char) -> bool {
    matches!(
        c,
        '\u{ff5c}'
            | '\u{3002}'
            | '\u{ff0e}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{ff08}'
            | '\u{ff09}'
    )
}

/// Whether linkify-it can start a schemeless link right after `before`: at the start of
/// the text, after a character other than a letter, digit, `.`, `:`, `/`, `-`, `_` or
/// `@`, after a backslash escape (markdown-it starts a new text token there, whatever
/// was escaped), and after `//` not preceded by `:` or a word character (its `//host`
/// links).
fn fuzzy_start(before: &str) -> bool {
    let mut back = before.chars().rev();
    let Some(b) = back.next() else {
        return true;
    };
    let b2 = back.next();
    if b.is_ascii_punctuation() && b2 == Some('\\') {
        return true;
    }
    if b == '/' && b2 == Some('/') {
        return back
            .next()
            .is_none_or(|c| !(c == ':' || c.is_alphanumeric() || c == '_'));
    }
    !(b.is_alphanumeric() || matches!(b, '.' | ':' | '/' | '-' | '_' | '@'))
}

/// `domain` (lowercase, two labels or more) ends in a suffix the Public Suffix List
/// knows. A host that is itself a listed suffix counts (`s3.amazonaws.com/bucket/…`
/// serves anyone's bucket).
fn known_suffix(domain: &str) -> bool {
    psl::suffix(domain.as_bytes()).is_some_and(|s| s.is_known())
}

/// What starts a GFM extended autolink (cmark-gfm's `autolink` extension).
enum Trigger {
    /// `www.`
    Www,
    /// `http://`, `https://`, `ftp://` or `xmpp:`, with the byte offset of its `:`.
    Scheme(usize),
}

/// The autolink trigger at the start of `rest` (ASCII-lowercased), given the character
/// before it (`None` at the start of the text): `www.` after whitespace, `*`, `_`, `~`,
/// `(` or nothing; a scheme after anything but an ASCII letter (cmark-gfm's rules).
fn autolink_trigger(rest: &str, before: Option<char>) -> Option<Trigger> {
    if rest.starts_with("www.") {
        return before
            .is_none_or(|c| c.is_whitespace() || matches!(c, '*' | '_' | '~' | '('))
            .then_some(Trigger::Www);
    }
    let scheme = ["http://", "https://", "ftp://", "xmpp:"]
        .into_iter()
        .find(|p| rest.starts_with(p))?;
    (!before.is_some_and(|c| c.is_ascii_alphabetic()))
        .then(|| Trigger::Scheme(scheme.find(':').unwrap_or_default()))
}

/// How many URL candidates of one token are read in full (each costs a parse of up to
/// the rest of the token); later ones are read in part ([`CAPPED_READ_BYTES`]).
const MAX_CANDIDATES_IN_TOKEN: usize = 64;

/// The replacement of a bare URL (markdown source, plain text) when it carries data to an
/// untrusted host, when its host depends on the reader, or when it was cut short and
/// its host is untrusted ([`Candidate`]), with its finding; `None` when it may stay.
fn bare_url_edit(
    candidate: &Candidate,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<(String, String)> {
    let url = &candidate.url;
    if candidate.two_readings {
        findings.push(
            Code::UrlInvalidCharacter,
            format!(
                "a bare URL whose host depends on who reads it (the URL parser reads {}) was made inert and is shown",
                url.host_str().unwrap_or_default()
            ),
        );
        let (source, plain) = markup::defanged_url(url);
        return Some((
            format!("{source} (link removed)"),
            format!("{plain} (link removed)"),
        ));
    }
    let url = match markup::classify(url.as_str()) {
        Target::Web(url) => url,
        Target::Disallowed(scheme) => {
            findings.push(
                Code::DangerousUrlScheme,
                format!(
                    "a bare {scheme}: URL (cmark-gfm autolinks it) was made inert and is shown"
                ),
            );
            let (source, plain) = markup::defanged_url(url);
            return Some((
                format!("{source} (link removed)"),
                format!("{plain} (link removed)"),
            ));
        }
        // The serialization of a parsed URL: two readings were looked at in the text.
        Target::Mailto | Target::Relative | Target::Invalid | Target::TwoReadings { .. } => {
            return None;
        }
    };
    let host = url.host_str().unwrap_or_default();
    let mut carriers = policy.untrusted_carriers(&url);
    if candidate.cut && carriers.is_empty() && !policy.is_trusted(host) {
        carriers.push("more than the sanitizer reads of one link".to_owned());
    }
    if carriers.is_empty() {
        return None;
    }
    findings.push(
        Code::LinkExfiltration,
        format!(
            "a bare URL to {host} carried data ({}); hosts that autolink bare URLs would make it a link, so it was made inert and its full target is shown",
            carriers.join(", ")
        ),
    );
    let (source, plain) = markup::defanged_url(&url);
    Some((
        format!("{source} (link removed)"),
        format!("{plain} (link removed)"),
    ))
}

/// A GFM extended autolink candidate without trailing punctuation (`?!.,:*_~'"`), an
/// unbalanced closing parenthesis or a trailing entity-like `&name;`. Linear in the
/// length: the parentheses are counted once and every step looks only at what it cuts.
fn trim_autolink(candidate: &str) -> &str {
    let mut s = candidate;
    // Parentheses of `s`, counted once (the other steps cut none).
    let open = s.matches('(').count();
    let mut close = s.matches(')').count();
    loop {
        let before = s.len();
        s = s.trim_end_matches(['?', '!', '.', ',', ':', '*', '_', '~', '\'', '"']);
        if s.ends_with(')') && open < close {
            s = &s[..s.len() - 1];
            close -= 1;
        }
        if let Some(body) = s.strip_suffix(';') {
            let name = body.len()
                - body
                    .trim_end_matches(|c: char| c.is_ascii_alphanumeric())
                    .len();
            if body[..body.len() - name].ends_with('&') {
                s = &s[..body.len() - name - 1];
            }
        }
        if s.len() == before {
            return s;
        }
    }
}
