//! One tag read with html5ever's tokenizer: the first tag of a piece of text
//! ([`first_tag`], under the attribute-separator bound of [`super`]) and an attribute
//! value decoded as a browser decodes it ([`attribute_decoded`]).

use super::{chunk_end, count_separators, separator_limit};
use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{Tag, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use std::cell::Cell;

/// Keeps the first token html5ever's tokenizer emits, when it is a tag.
struct First(std::cell::RefCell<Option<Tag>>, Cell<bool>);

impl TokenSink for First {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(tag) if !self.1.get() => *self.0.borrow_mut() = Some(tag),
            Token::ParseError(_) | Token::EOFToken => return TokenSinkResult::Continue,
            _ => {}
        }
        self.1.set(true);
        TokenSinkResult::Continue
    }
}

/// A tokenizer (default options: the data state) that keeps its first token if a tag.
fn first_tokenizer() -> Tokenizer<First> {
    Tokenizer::new(
        First(std::cell::RefCell::new(None), Cell::new(false)),
        TokenizerOpts::default(),
    )
}

/// `value` as a browser reads it from a double-quoted attribute value: its character
/// references decoded by html5ever's tokenizer, with or without their `;` (HTML Living
/// Standard §13.2.5.72), a `"` in it taken as written. Linear in the length of `value`:
/// the tag read has one attribute whatever `value` holds, so no separator bound applies.
pub(crate) fn attribute_decoded(value: &str) -> String {
    let html = format!("<a href=\"{}\">", value.replace('"', "&quot;"));
    let tokenizer = first_tokenizer();
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(&html));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer
        .sink
        .0
        .take()
        .and_then(|tag| tag.attrs.into_iter().next())
        .map_or_else(|| value.to_owned(), |attr| attr.value.to_string())
}

/// The first tag html5ever's tokenizer reads from `html` (which starts with `<`), with
/// the length of its source: the tag is emitted at a `>` and every chunk fed ends at one.
/// Returns the bytes read and the tag: `None` when the first token is not a tag, when no
/// tag ends within `max_len` bytes, or when the tag has too many attribute separators (see
/// [`super::too_many_attributes`]). Whatever starts within the bytes read belongs to that first
/// construct.
pub(crate) fn first_tag(html: &str, max_len: usize) -> (usize, Option<Tag>) {
    let html = &html[..html.floor_char_boundary(max_len.min(html.len()))];
    let tokenizer = first_tokenizer();
    let queue = BufferQueue::default();
    let mut at = 0;
    let mut separators = 0;
    while at < html.len() {
        let end = chunk_end(html, at);
        separators += count_separators(&html[at..end]);
        if separators > separator_limit(end) {
            return (end, None);
        }
        queue.push_back(StrTendril::from_slice(&html[at..end]));
        let _ = tokenizer.feed(&queue);
        if tokenizer.sink.1.get() {
            return (end, tokenizer.sink.0.take());
        }
        at = end;
    }
    (html.len(), None)
}

#[cfg(test)]
mod tests {
    use super::super::tests::numbered;
    use super::*;

    #[test]
    fn first_tag_reads_unquoted_values() {
        let (len, tag) = first_tag("<IMG SRC=https://a.example/x.png?d=abc> rest", 100);
        let tag = tag.unwrap();
        assert_eq!(len, "<IMG SRC=https://a.example/x.png?d=abc>".len());
        assert_eq!(&*tag.name, "img");
        assert_eq!(&*tag.attrs[0].value, "https://a.example/x.png?d=abc");
        assert!(first_tag("<img src=x", 100).1.is_none());
        let attrs: String = numbered(2000, " x", "");
        assert!(first_tag(&format!("<img{attrs}>"), 100_000).1.is_none());
    }
}
