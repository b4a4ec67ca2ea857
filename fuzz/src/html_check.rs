//! What a browser would run in sanitized HTML, read with html5ever's tokenizer (the
//! WHATWG HTML tokenizer the core's sanitizer uses): active elements, comments, event
//! handler attributes and script URLs in link/source attributes.

use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use std::cell::RefCell;

/// Elements that must never survive sanitizing (scripts, frames, plugins, styles,
/// forms, beacons, document-level elements).
pub const ACTIVE: &[&str] = &[
    "script", "iframe", "frame", "svg", "img", "object", "embed", "style", "form", "math", "base",
    "meta", "link",
];

struct Sink(RefCell<Vec<String>>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut found = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                let name: &str = &tag.name;
                if ACTIVE.contains(&name) {
                    found.push(format!("element <{name}>"));
                }
                for attr in &tag.attrs {
                    let key: &str = &attr.name.local;
                    // A handler attribute without a value runs nothing.
                    if key.starts_with("on") && !attr.value.trim().is_empty() {
                        found.push(format!("handler {key} on <{name}>"));
                    }
                    // The URL parser skips leading controls and spaces and drops tabs and
                    // newlines anywhere.
                    let value: String = attr
                        .value
                        .trim_start_matches(|c: char| c <= ' ')
                        .chars()
                        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                        .collect::<String>()
                        .to_ascii_lowercase();
                    if matches!(key, "href" | "src" | "action" | "formaction" | "xlink:href")
                        && (value.starts_with("javascript:") || value.starts_with("vbscript:"))
                    {
                        found.push(format!("script URL in {key} of <{name}>"));
                    }
                }
            }
            Token::CommentToken(c)
                if !c
                    .trim_matches(|ch: char| ch == '-' || ch.is_whitespace())
                    .is_empty() =>
            {
                found.push("comment".to_owned());
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// Everything active in `html`, one description each; empty when it is inert.
pub fn active_parts(html: &str) -> Vec<String> {
    let tokenizer = Tokenizer::new(Sink(RefCell::new(Vec::new())), TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer.sink.0.take()
}

/// What is active in the HTML a markdown renderer produced from sanitized markdown:
/// everything [`active_parts`] reports, except `<img>` with a relative `src` (the
/// sanitizer keeps those: they load from the host's own origin) or one the URL parser
/// refuses (it loads nothing).
pub fn active_in_rendering(html: &str) -> Vec<String> {
    let tokenizer = Tokenizer::new(Rendered(RefCell::new(Vec::new())), TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    let mut found = tokenizer.sink.0.take();
    found.extend(
        active_parts(html)
            .into_iter()
            .filter(|part| part != "element <img>"),
    );
    found
}

/// Reports `<img>` elements whose `src` loads from another origin (absolute, or
/// protocol-relative).
struct Rendered(RefCell<Vec<String>>);

impl TokenSink for Rendered {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if let Token::TagToken(tag) = token
            && tag.kind == TagKind::StartTag
            && &*tag.name == "img"
        {
            let src = tag
                .attrs
                .iter()
                .find(|a| &*a.name.local == "src")
                .map(|a| a.value.to_string())
                .unwrap_or_default();
            // What a browser loads: an absolute URL with a host, or a protocol-relative
            // one; a source the URL parser refuses loads nothing.
            let base = url::Url::parse("https://relative.invalid/").expect("constant URL");
            let loads_elsewhere = match base.join(&src) {
                Ok(url) => url.host_str() != base.host_str(),
                Err(_) => false,
            };
            if loads_elsewhere {
                self.0.borrow_mut().push(format!("image {src:?}"));
            }
        }
        TokenSinkResult::Continue
    }
}
