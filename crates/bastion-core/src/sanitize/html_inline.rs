//! Inline raw-HTML tags of markdown: what replaces each one, the `href` of a link tag,
//! and whether an `<img` tag loads an image.

use super::{
    ACTIVE_TAGS, ALLOWED_TAGS, ContentPolicy, Findings, STRICT, Target, analyze, guard, markup,
    probe, with_drops,
};
use crate::finding::Code;

/// Replacement for one inline raw-HTML tag of markdown.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct InlineTag {
    /// Markdown source to put in place of the tag (markers escaped, cleaned tag).
    pub(crate) source: String,
    /// The replacement as plain text (markers), for link and image texts around it.
    pub(crate) plain: String,
}

/// The element name of a `CommonMark` raw-HTML open or closing tag (§6.6: an ASCII
/// letter followed by letters, digits and hyphens), lowercase.
fn tag_name(tag: &str) -> String {
    tag.trim_start_matches('<')
        .trim_start_matches('/')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Decides what to do with one inline raw-HTML tag (an open or closing tag as reported
/// by the markdown parser; comments, declarations and processing instructions are
/// handled by the caller). `None` keeps the tag byte-identical.
///
/// Open tags of allowed elements are kept when all their attributes are allowed and
/// safe (checked in a table-cell context, so that table elements are seen too);
/// otherwise they are replaced by the strict serialization of the open tag. Active
/// elements are removed (images leave a marker). Unknown elements are kept when they
/// carry no attribute value (`Option<String>` in prose), removed otherwise. Closing tags
/// are removed only for active elements.
pub(crate) fn sanitize_tag(
    tag: &str,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<InlineTag> {
    let name = tag_name(tag);
    let allowed = ALLOWED_TAGS.contains(&name.as_str());
    let active = ACTIVE_TAGS.contains(&name.as_str());
    if tag.starts_with("</") {
        return active.then(|| InlineTag {
            source: String::new(),
            plain: String::new(),
        });
    }
    let valued = tag.contains('=');
    if !valued && !active {
        return None;
    }
    if guard::too_many_attributes(tag) {
        // html5ever compares each attribute name with every earlier one: such a tag is
        // shown as text instead of being parsed.
        findings.push(
            Code::HtmlSanitized,
            format!("an HTML <{name}> tag with too many attributes was shown as text"),
        );
        let plain = tag.split_whitespace().collect::<Vec<_>>().join(" ");
        return Some(InlineTag {
            source: markup::escape_inline(tag),
            plain,
        });
    }
    let analysis = analyze(&probe(&format!("<table><tr><td>{tag}")), policy);
    if allowed && !analysis.removes_something && analysis.saw_attributes {
        return None;
    }
    let open = if allowed {
        let out = with_drops(&analysis.drop_hrefs, || STRICT.clean(tag).to_string());
        match out.strip_suffix(&format!("</{name}>")) {
            Some(open) => open.to_owned(),
            None => out,
        }
    } else {
        String::new()
    };
    if !allowed && !active {
        findings.push(
            Code::HtmlSanitized,
            format!("an unknown HTML element <{name}> with attributes was removed"),
        );
    }
    for (code, message) in analysis.findings {
        findings.push(code, message);
    }
    let plain = analysis.images.join(" ");
    let mut source = analysis
        .images
        .iter()
        .map(|m| markup::escape_inline(m))
        .collect::<Vec<_>>()
        .join(" ");
    source.push_str(&open);
    Some(InlineTag { source, plain })
}

/// The `href` of an inline `<a …>` open tag, as the HTML tokenizer reads it.
pub(crate) fn link_href(tag: &str) -> Option<String> {
    if tag_name(tag) != "a" || tag.starts_with("</") {
        return None;
    }
    let (_, tag) = guard::first_tag(tag, tag.len());
    tag?.attrs
        .iter()
        .find(|a| &*a.name.local == "href")
        .map(|a| a.value.to_string())
}

/// For text that starts with `<img` or `<image`: the length of the tag as the HTML
/// tokenizer reads it (at most `max_len` bytes) and whether one of its sources is
/// external (an `http(s)` host not trusted) or uses another scheme than `http(s)` — an
/// image a lenient renderer would load. Every source counts: `src`, the legacy
/// `lowsrc` and `dynsrc`, and each word of `srcset` ([`image_sources`]; descriptors such
/// as `2x` are relative paths), since a browser picks from `srcset` before `src`.
/// Returns the bytes read even
/// when the answer is no: any other `<img` in them is part of the same construct.
pub(crate) fn loading_image(text: &str, policy: &ContentPolicy, max_len: usize) -> (usize, bool) {
    let (read, tag) = guard::first_tag(text, max_len);
    let Some(tag) = tag else {
        return (read, false);
    };
    if !matches!(&*tag.name, "img" | "image") || tag.kind != html5ever::tokenizer::TagKind::StartTag
    {
        return (read, false);
    }
    let attr = |name: &str| {
        tag.attrs
            .iter()
            .find(|a| &*a.name.local == name)
            .map(|a| &*a.value)
    };
    let loads = image_sources(attr)
        .into_iter()
        .any(|src| match markup::classify(src) {
            Target::Web(url) => !policy.is_trusted(url.host_str().unwrap_or_default()),
            Target::Disallowed(_) | Target::Mailto | Target::TwoReadings { .. } => true,
            Target::Relative | Target::Invalid => false,
        });
    (read, loads)
}

/// The sources an image element may load, in the order a report names them: `src`,
/// `lowsrc`, `dynsrc`, then each whitespace-separated word of `srcset` without its
/// leading and trailing commas, and each piece of it between commas (a URL may hold a
/// comma: `https://trusted.example,@evil.example/x.png` reaches `evil.example`). `attr`
/// looks an attribute up by name.
pub(super) fn image_sources<'a>(attr: impl Fn(&str) -> Option<&'a str>) -> Vec<&'a str> {
    let mut sources: Vec<&str> = ["src", "lowsrc", "dynsrc"]
        .into_iter()
        .filter_map(&attr)
        .collect();
    if let Some(set) = attr("srcset") {
        // A browser reads a candidate's URL up to whitespace, commas inside it included
        // (HTML Living Standard §4.8.4.3.10); each comma piece is read too, in case a
        // reader splits there.
        for word in set.split_ascii_whitespace() {
            sources.push(word.trim_matches(','));
            sources.extend(word.split(',').filter(|piece| !piece.is_empty()));
        }
    }
    sources
}
