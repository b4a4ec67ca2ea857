//! How the markup sanitizer writes what it neutralizes: inert markdown and HTML text,
//! defanged URLs and image markers.

use url::Url;

/// The URL as shown to the user inside a code span: its WHATWG serialization, with the
/// two characters that could end a code span or split a GFM table cell percent-encoded.
pub(crate) fn display_url(url: &Url) -> String {
    url.as_str().replace('`', "%60").replace('|', "%7C")
}

/// A link target that was removed for carrying data, as inert inline markdown: `://`
/// shown as `[://]`, every other `:` as `[:]` and every `.` as `[.]` (the "defanged"
/// form of threat reports), brackets escaped. Returns `(source, plain)`: the markdown
/// and the text it renders. The `//` stays behind a `:`, where linkify-it starts no
/// `//` link: `http[:]//localhost/…` would still hold one (`localhost` needs no dot),
/// for markdown-it before 13 and for any reader that does not end a text run at the
/// bracket.
///
/// Not a code span: cmark-gfm (GitHub's renderer) leaves a code span unformed after an
/// unmatched longer backtick run earlier in the paragraph (its closing-backtick cache),
/// and its autolinker then makes the URL a live link again. With no `://`, `www.`,
/// domain or `@host.tld` left in the text, no autolinker (GFM extended autolinks,
/// linkify-it's fuzzy links) finds anything in it, code span or not.
pub(crate) fn defanged_url(url: &Url) -> (String, String) {
    let defang = |part: &str| part.replace('.', "[.]").replace(':', "[:]");
    let plain = match url.as_str().split_once("://") {
        Some((scheme, rest)) => format!("{}[://]{}", defang(scheme), defang(rest)),
        None => defang(url.as_str()),
    };
    (escape_inline(&plain), plain)
}

/// A code span holding `text` (which must not contain a backtick or a line break).
pub(crate) fn code_span(text: &str) -> String {
    format!("`{text}`")
}

/// `text` as inert markdown inline text: line breaks and runs of whitespace become one
/// space, and every character that could open or close an inline construct (link, image,
/// autolink, code span, emphasis, entity, table cell) is backslash-escaped (`CommonMark`
/// §2.4: any ASCII punctuation may be escaped), except `<`, which becomes `&lt;`
/// ([`LT`]).
pub(crate) fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        if ch == '<' {
            out.push_str(LT);
            continue;
        }
        if matches!(
            ch,
            '\\' | '`' | '*' | '_' | '[' | ']' | '>' | '!' | '&' | '~' | '|' | '$'
        ) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// How escaped markdown writes `<`: as a character reference, never as `\<`. cmark-gfm's
/// autolinker takes a bare URL up to the next `<` straight from the source, so in
/// `https://a.example/\<img src=x onerror=…>` it takes the backslash into the link and
/// the `<img` after it is live HTML. A reference is read as text by every parser, and the
/// autolinker only takes it into the URL.
pub(crate) const LT: &str = "&lt;";

/// Escapes every ASCII punctuation character of markdown text (fallback when the
/// sanitizer does not settle, or when a second reading finds something active), `<` as
/// [`LT`], and defangs what GFM autolinkers start a link at: `://` becomes `[://]`,
/// `xmpp:` becomes `xmpp[:]` and `www.` becomes `www[.]`. Escaping alone does not stop
/// an autolink (cmark-gfm takes the backslashes into the URL), and the URL rules of the
/// parsers differ in corners (what ends a `www.` domain), so the fallback leaves no
/// autolink to find at all. Every `.` is escaped too: markdown-it's linkify reads text
/// tokens, which end at an escape, so `attacker\.com/c?…` holds no schemeless link for
/// it; and so is the second `/` of any other `//`, which would start its `//` links
/// (`//localhost/…` needs no dot).
pub(super) fn escape_markdown_all(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let bytes = text.as_bytes();
    let mut skip_to = 0;
    for (i, ch) in text.char_indices() {
        if i < skip_to {
            continue;
        }
        if ch == '<' {
            out.push_str(LT);
            continue;
        }
        if ch == ':' && bytes[i + 1..].starts_with(b"//") {
            out.push_str("\\[://\\]");
            skip_to = i + 3;
            continue;
        }
        if ch == ':' && i >= 4 && bytes[i - 4..i].eq_ignore_ascii_case(b"xmpp") {
            out.push_str("\\[:\\]");
            continue;
        }
        if ch == '/' && i >= 1 && bytes[i - 1] == b'/' {
            out.push_str("\\/");
            continue;
        }
        if ch == '.' && i >= 3 && bytes[i - 3..i].eq_ignore_ascii_case(b"www") {
            out.push_str("\\[.\\]");
            continue;
        }
        if ch.is_ascii_punctuation()
            && !matches!(ch, ',' | ':' | ';' | '/' | '?' | '=' | '%' | '\'' | '"')
        {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// Escapes HTML text so that it holds no markup at all (fallback when the sanitizer does
/// not settle).
pub(crate) fn escape_html_all(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            c => out.push(c),
        }
    }
    out
}

/// The plain-text marker that replaces an image: `[image: ALT (HOST)]`, with the parts
/// that are unknown left out.
pub(crate) fn image_marker(alt: &str, host: Option<&str>) -> String {
    let alt = alt.split_whitespace().collect::<Vec<_>>().join(" ");
    match (alt.is_empty(), host) {
        (true, None) => "[image]".to_owned(),
        (true, Some(h)) => format!("[image ({h})]"),
        (false, None) => format!("[image: {alt}]"),
        (false, Some(h)) => format!("[image: {alt} ({h})]"),
    }
}
