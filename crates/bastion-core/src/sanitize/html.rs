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

#[path = "html_inline.rs"]
mod inline;
#[path = "html_lists.rs"]
mod lists;
#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;

pub(crate) use inline::{InlineTag, link_href, loading_image, sanitize_tag};
pub(super) use lists::{ACTIVE_ATTRIBUTES, ACTIVE_TAGS, URL_ATTRIBUTES};
use lists::{
    ALLOWED_TAGS, CLEAN_CONTENT_TAGS, GENERIC_ATTRIBUTES, PROBE_SCHEMES, TAG_ATTRIBUTES,
    URL_SCHEMES,
};

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
            // The first source that loads anything names the image (`src`, then
            // `srcset`: a browser may pick either).
            let src = inline::image_sources(|name| el.attr(name))
                .into_iter()
                .map(markup::classify)
                .find(|t| !matches!(t, Target::Relative | Target::Invalid | Target::Mailto));
            match src {
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
                    // Also when only a lenient reading names the scheme (trimmed, or its
                    // character references decoded again), which the allowlist keeps.
                    a.drop_hrefs.push(value.clone());
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
