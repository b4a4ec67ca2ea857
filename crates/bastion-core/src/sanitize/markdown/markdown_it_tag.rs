//! Where markdown-it reads raw HTML that `CommonMark` reads as text: markdown-it's tag
//! patterns (`lib/common/html_re.mjs`, `lib/rules_block/html_block.mjs`, versions 13–15)
//! separate a tag's name and attributes with JavaScript's `\s`, which also matches
//! Unicode spaces (U+00A0, U+3000, …), U+FEFF, VT and FF, while `CommonMark` 0.31.2 §6.6
//! takes only spaces, tabs and line endings. So `<img\u{a0}src=x onerror=…>` is live HTML
//! for markdown-it and text for `CommonMark`, and `<div\u{a0}` at a line's start opens an
//! HTML block for markdown-it that turns the code spans of the lines after it into raw
//! HTML. The sanitizer reads with a `CommonMark` parser, so such a `<` reaches it as
//! text; [`reads_as_html`] says when it must be written `&lt;` instead.

use regex_automata::Input;
use regex_automata::hybrid::dfa::{Cache, DFA};
use std::sync::OnceLock;

/// Bytes of source a tag check reads at most; a tag still open after that many bytes
/// counts as HTML (the `<` is escaped, which changes nothing for a `CommonMark` reader).
const MAX_TAG_BYTES: usize = 4096;

/// JavaScript's `\s` (ECMA-262 `WhiteSpace` and `LineTerminator`).
const JS_SPACE: &str = r"[\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";

/// `true` for the characters JavaScript's `\s` matches and `CommonMark`'s tag whitespace
/// (space, tab, line ending) does not.
pub(super) fn js_only_space(c: char) -> bool {
    matches!(
        c,
        '\u{0B}' | '\u{0C}' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `true` when `text` holds a character that markdown-it, unlike `CommonMark`, takes
/// for whitespace inside a tag: without one, both read the same tags.
pub(super) fn has_js_only_space(text: &str) -> bool {
    text.chars().any(js_only_space)
}

/// markdown-it's open and close tag (`HTML_OPEN_CLOSE_TAG_RE`), anchored at a `<`.
fn tag_dfa() -> Option<&'static DFA> {
    static DFA_CELL: OnceLock<Option<DFA>> = OnceLock::new();
    DFA_CELL
        .get_or_init(|| {
            let s = JS_SPACE;
            let attr_name = "[a-zA-Z_:][a-zA-Z0-9:._-]*";
            let value = r#"(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*")"#;
            let attribute = format!("(?:{s}+{attr_name}(?:{s}*={s}*{value})?)");
            let open = format!("<[A-Za-z][A-Za-z0-9-]*{attribute}*{s}*/?>");
            let close = format!("</[A-Za-z][A-Za-z0-9-]*{s}*>");
            DFA::new(&format!("(?:{open}|{close})")).ok()
        })
        .as_ref()
}

/// Whether markdown-it reads raw HTML starting at the `<` that begins `source` (the
/// source text from that `<` to the end): an open or close tag by markdown-it's pattern,
/// or a tag name followed by a character only JavaScript takes for a space (where
/// markdown-it starts an HTML block at a line's start, complete tag or not). Only
/// `<` + ASCII letter and `</` + ASCII letter can begin either.
///
/// Reads at most [`MAX_TAG_BYTES`]; longer, or when the automaton gives up, the answer
/// is `true` (escaping a text `<` is always safe). `cache` belongs to [`new_cache`].
pub(super) fn reads_as_html(source: &str, cache: &mut Option<Cache>) -> bool {
    let name_at = if source.starts_with("</") { 2 } else { 1 };
    let name_len = source[name_at.min(source.len())..]
        .bytes()
        .take_while(u8::is_ascii_alphanumeric)
        .count();
    let opens_with_letter = source
        .as_bytes()
        .get(name_at)
        .is_some_and(u8::is_ascii_alphabetic);
    if !source.starts_with('<') || !opens_with_letter {
        return false;
    }
    // An HTML block start (types 1 and 6): the name, then a JavaScript-only space.
    if source[name_at + name_len..]
        .chars()
        .next()
        .is_some_and(js_only_space)
    {
        return true;
    }
    let Some(dfa) = tag_dfa() else {
        return true;
    };
    let cache = cache.get_or_insert_with(|| dfa.create_cache());
    tag_matches(dfa, cache, source).unwrap_or(true)
}

/// Steps `dfa` over `source` from its start: `Some(true)` at the first match, `Some(false)`
/// when no match can follow, `None` when undecided within [`MAX_TAG_BYTES`] or the lazy
/// DFA gave up.
fn tag_matches(dfa: &DFA, cache: &mut Cache, source: &str) -> Option<bool> {
    let input = Input::new(source).anchored(regex_automata::Anchored::Yes);
    let mut sid = dfa.start_state_forward(cache, &input).ok()?;
    let window = &source.as_bytes()[..source.len().min(MAX_TAG_BYTES)];
    for &b in window {
        sid = dfa.next_state(cache, sid, b).ok()?;
        if sid.is_tagged() {
            if sid.is_match() {
                return Some(true);
            }
            if sid.is_dead() {
                return Some(false);
            }
            if sid.is_quit() || sid.is_unknown() {
                return None;
            }
        }
    }
    if window.len() < source.len() {
        return None;
    }
    let sid = dfa.next_eoi_state(cache, sid).ok()?;
    Some(sid.is_match())
}

/// Whether markdown-it's label normalization (`normalizeReference`: JavaScript `trim`,
/// `\s+` collapsed, `toLowerCase().toUpperCase()`) may match `label` with another label
/// that `CommonMark`'s (spaces, tabs and line endings; Unicode case fold) does not: it
/// holds a character only JavaScript takes for a space, or a dotless `ı`, whose upper
/// case is `I`.
pub(super) fn label_read_apart(label: &str) -> bool {
    label.chars().any(|c| js_only_space(c) || c == '\u{131}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(s: &str) -> bool {
        reads_as_html(s, &mut None)
    }

    #[test]
    fn unicode_spaces_inside_tags_read_as_html() {
        assert!(html("<img\u{a0}src=x onerror=alert(1)> after"));
        assert!(html("<x a=1\u{a0}onmouseover=alert(1)>"));
        assert!(html("<x\u{3000}/>"));
        assert!(html("</div\u{2003}>"));
        assert!(html("<span title=\"a\"\u{feff}>"));
        // A block start: the name and a JavaScript-only space suffice.
        assert!(html("<div\u{a0}"));
        assert!(html("<pre\u{202f}and text"));
        assert!(html("</section\u{a0}"));
    }

    #[test]
    fn text_and_ordinary_tags() {
        // Tags CommonMark reads too are not this check's business, but markdown-it
        // reads them as tags as well.
        assert!(html("<b>"));
        assert!(html("<a href=\"x\">"));
        assert!(!html("<b c, d"));
        assert!(!html("< b>"));
        assert!(!html("<1a>"));
        assert!(!html("<a b=\"c\"\u{a0}"));
        assert!(!html("<a b=<"));
        assert!(!html("a<b>"));
        assert!(!html("<"));
        assert!(!html("</"));
    }

    #[test]
    fn a_tag_past_the_window_counts_as_html() {
        let long = format!("<a\u{a0}b=\"{}\"", "x".repeat(MAX_TAG_BYTES));
        assert!(html(&long));
        let dies = format!("<a b c, {}", "x ".repeat(MAX_TAG_BYTES));
        assert!(!html(&dies));
    }

    #[test]
    fn only_javascript_spaces_are_looked_for() {
        assert!(has_js_only_space("a\u{a0}b"));
        assert!(has_js_only_space("\u{feff}"));
        assert!(!has_js_only_space("a b\tc\nd\u{85}"));
    }
}
