//! Linear-time bound on the HTML handed to [`ammonia`] (security review: algorithmic
//! denial of service).
//!
//! The HTML Living Standard tree-construction algorithm, as html5ever implements it, does
//! work proportional to the depth of the stack of open elements for many tokens ("has an
//! element in scope", "generate implied end tags", looking up an end tag's element), to
//! the length of the list of active formatting elements (reconstructing them, the Noah's
//! Ark clause) and to the number of siblings before a node (`RcDom` scans children to
//! insert before a table or remove a node). Nested blocks (`<div>` × 64 Ki) make parsing
//! quadratic; unclosed formatting elements reopened after every block make the *output*
//! quadratic; html5ever's tokenizer also checks each attribute name against every earlier
//! one of the same tag.
//!
//! [`bound`] runs html5ever's own tokenizer and tree builder, exactly as ammonia
//! configures them (fragment parsing in a `div` context), over the input and meters them:
//!
//! * the stack of open elements plus the active formatting elements may hold at most
//!   [`MAX_DEPTH`] elements after any token;
//! * the tree builder and the DOM may do at most [`WORK_PER_TOKEN`] units of work per token
//!   on average (each element visited by a scope check, each node created, each sibling
//!   scanned, each attribute merged), plus [`WORK_SLACK`];
//! * at most [`MAX_MARKERS`] elements that push a marker which an ancestor's end tag can
//!   leave behind (`applet`, `object`, `marquee`, `template`);
//! * a tag still open after `n` bytes may have seen at most
//!   `max(`[`MIN_SEPARATORS`]`, √(`[`SEPARATOR_FACTOR`]` · n))` attribute separators
//!   (whitespace, `/`, quotes: every attribute after the first follows one), which keeps
//!   the tokenizer's duplicate-attribute check linear.
//!
//! The input is fed in chunks that end before every `<` and after every `>`, so that each
//! tag is emitted at the end of a chunk and the start of every markup construct is the
//! start of a chunk. When a limit is exceeded, [`bound`] returns the byte offset where the
//! offending construct (or the chunk of text being processed) starts: everything before it
//! is parsed with the metered work, everything from it on is to be escaped as text. The
//! metering itself stops there, so it is linear too.

use html5ever::buffer_queue::BufferQueue;
use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, Tracer, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, create_element};
use html5ever::{Attribute, ExpandedName, QualName, TokenizerResult, local_name, ns};
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

#[path = "markup_tag.rs"]
mod tag;
pub(crate) use tag::{attribute_decoded, first_tag};

/// Most elements on the stack of open elements plus the list of active formatting
/// elements (beyond the document, the fragment's root and its context element).
pub(crate) const MAX_DEPTH: usize = 64;

/// Average tree-building work allowed per token.
pub(crate) const WORK_PER_TOKEN: u64 = 128;

/// Tree-building work allowed on top of [`WORK_PER_TOKEN`].
pub(crate) const WORK_SLACK: u64 = 1 << 16;

/// Most start tags of elements whose formatting marker can outlive them.
pub(crate) const MAX_MARKERS: u32 = 64;

/// Attribute separators a pending tag may always contain.
pub(crate) const MIN_SEPARATORS: usize = 512;

/// Separators beyond [`MIN_SEPARATORS`] grow with the square root of this times the
/// construct's length (so the tokenizer's quadratic duplicate check stays linear).
pub(crate) const SEPARATOR_FACTOR: usize = 256;

/// Longest chunk fed to the tokenizer at once.
const MAX_CHUNK: usize = 1024;

/// Handles the stack of open elements and the list of active formatting elements hold
/// besides the user's elements: the document, the fragment's `html` root, the context.
const BASE_HANDLES: usize = 3;

/// What [`bound`] found.
pub(crate) struct Bounded {
    /// Byte offset from which the input must be escaped, when a limit was exceeded.
    pub(crate) cut: Option<usize>,
    /// Which limit, for the finding's message.
    pub(crate) reason: &'static str,
    /// The document parsed (up to the cut), as ammonia would build it.
    pub(crate) dom: RcDom,
    /// Metering totals (tests compare them across input sizes).
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub(crate) meter: Meter,
}

/// Metering totals of one [`bound`] run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Meter {
    /// Tokens processed by the tree builder.
    pub(crate) tokens: u64,
    /// Units of tree-building work (see the module docs).
    pub(crate) work: u64,
    /// Largest number of open plus active formatting elements seen after a token.
    pub(crate) max_depth: usize,
}

/// Whether [`bound`] enforces the limits or only measures (tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Enforce,
    #[cfg(test)]
    Measure,
}

/// Bounds `html` (see the module docs).
pub(crate) fn bound(html: &str, mode: Mode) -> Bounded {
    let dom = RcDom::default();
    let context = create_element(
        &dom,
        QualName::new(None, ns!(html), local_name!("div")),
        Vec::new(),
    );
    let sink = Metered {
        dom,
        work: Cell::new(0),
        tokens: Cell::new(0),
        over: Cell::new(false),
        enforce: mode == Mode::Enforce,
    };
    let builder = TreeBuilder::new_for_fragment(sink, context, None, TreeBuilderOpts::default());
    let opts = TokenizerOpts {
        initial_state: Some(builder.tokenizer_state_for_context_elem(false)),
        ..TokenizerOpts::default()
    };
    let guard = Guard {
        builder,
        markers: Cell::new(0),
        max_depth: Cell::new(0),
        reason: Cell::new(""),
        emitted_markup: Cell::new(false),
        emitted_text: Cell::new(false),
    };
    let tokenizer = Tokenizer::new(guard, opts);
    let queue = BufferQueue::default();
    let bytes = html.as_bytes();
    let mut cut = None;
    // Start of the markup construct that may still be open in the tokenizer.
    let mut pending: Option<usize> = None;
    // Attribute separators since `counted_from` (a construct starting with `<!` is a
    // comment, doctype or CDATA section, which has no attributes: counting starts at the
    // next `<` inside it, in case the tokenizer was not where it seemed).
    let mut separators = 0usize;
    let mut counted_from: Option<usize> = None;
    let mut at = 0;
    while at < html.len() {
        let end = chunk_end(html, at);
        let chunk = &html[at..end];
        let guard = &tokenizer.sink;
        guard.emitted_markup.set(false);
        guard.emitted_text.set(false);
        if bytes[at] == b'<' {
            if pending.is_none() {
                pending = Some(at);
                separators = 0;
                counted_from = (bytes.get(at + 1) != Some(&b'!')).then_some(at);
            } else if counted_from.is_none() {
                counted_from = Some(at);
            }
        }
        queue.push_back(StrTendril::from_slice(chunk));
        while let TokenizerResult::Script(_) = tokenizer.feed(&queue) {}
        if guard.over() {
            cut = Some(pending.unwrap_or(at));
            break;
        }
        if guard.emitted_markup.get() || (guard.emitted_text.get() && bytes[at] != b'<') {
            // A tag, comment or doctype ended at this chunk's `>`, or text was emitted
            // outside any construct: nothing is pending.
            pending = None;
        } else if let (Some(start), Some(from)) = (pending, counted_from) {
            separators += count_separators(chunk);
            if mode == Mode::Enforce && separators > separator_limit(end - from) {
                guard.reason.set("a tag with too many attributes");
                cut = Some(start);
                break;
            }
        }
        at = end;
    }
    let guard = tokenizer.sink;
    let reason = guard.reason.get();
    let max_depth = guard.max_depth.get();
    let sink = guard.builder.sink;
    Bounded {
        cut,
        reason,
        meter: Meter {
            tokens: sink.tokens.get(),
            work: sink.work.get(),
            max_depth,
        },
        dom: sink.dom,
    }
}

/// Separators a construct of `len` bytes may contain (see the module docs).
pub(crate) fn separator_limit(len: usize) -> usize {
    MIN_SEPARATORS.max((SEPARATOR_FACTOR * len).isqrt())
}

/// Attribute separators in a single tag exceed [`separator_limit`].
pub(crate) fn too_many_attributes(tag: &str) -> bool {
    count_separators(tag) > separator_limit(tag.len())
}

/// Bytes of `s` that can separate two attributes of a tag.
fn count_separators(s: &str) -> usize {
    s.bytes()
        .filter(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c | b'/' | b'"' | b'\''))
        .count()
}

/// End of the chunk starting at `at`: before the next `<`, after the next `>`, or after
/// [`MAX_CHUNK`] bytes (at a character boundary), whichever comes first.
fn chunk_end(html: &str, at: usize) -> usize {
    let bytes = html.as_bytes();
    if bytes[at] == b'>' {
        return at + 1;
    }
    let from = at + 1;
    let limit = html.ceil_char_boundary((at + MAX_CHUNK).min(html.len()));
    match memchr::memchr2(b'<', b'>', &bytes[from.min(limit)..limit]) {
        Some(i) if bytes[from + i] == b'<' => from + i,
        Some(i) => from + i + 1,
        None => limit,
    }
}

/// The token sink between the tokenizer and the tree builder: counts and checks.
struct Guard {
    builder: TreeBuilder<Handle, Metered>,
    markers: Cell<u32>,
    max_depth: Cell<usize>,
    reason: Cell<&'static str>,
    emitted_markup: Cell<bool>,
    emitted_text: Cell<bool>,
}

impl Guard {
    fn over(&self) -> bool {
        self.builder.sink.over.get()
    }

    fn stop(&self, reason: &'static str) {
        if self.builder.sink.enforce && !self.over() {
            self.reason.set(reason);
            self.builder.sink.over.set(true);
        }
    }
}

/// Counts the handles the tree builder holds.
struct Count(Cell<usize>);

impl Tracer for Count {
    type Handle = Handle;
    fn trace_handle(&self, _node: &Handle) {
        self.0.set(self.0.get() + 1);
    }
}

impl TokenSink for Guard {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        if self.over() {
            return TokenSinkResult::Continue;
        }
        match &token {
            Token::CharacterTokens(_) | Token::NullCharacterToken => self.emitted_text.set(true),
            Token::TagToken(Tag { kind, name, .. }) => {
                self.emitted_markup.set(true);
                if *kind == TagKind::StartTag
                    && matches!(
                        *name,
                        local_name!("applet")
                            | local_name!("object")
                            | local_name!("marquee")
                            | local_name!("template")
                    )
                {
                    self.markers.set(self.markers.get() + 1);
                    if self.markers.get() > MAX_MARKERS {
                        self.stop("too many applet, object, marquee or template elements");
                        return TokenSinkResult::Continue;
                    }
                }
            }
            Token::CommentToken(_) | Token::DoctypeToken(_) => self.emitted_markup.set(true),
            Token::EOFToken | Token::ParseError(_) => {}
        }
        let sink = &self.builder.sink;
        sink.tokens.set(sink.tokens.get() + 1);
        let result = self.builder.process_token(token, line_number);
        let count = Count(Cell::new(0));
        self.builder.trace_handles(&count);
        let depth = count.0.get().saturating_sub(BASE_HANDLES);
        self.max_depth.set(self.max_depth.get().max(depth));
        if depth > MAX_DEPTH {
            self.stop("elements nested too deeply");
        }
        result
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// ammonia's `RcDom`, metered: every call that costs more than constant time adds its
/// cost to `work`; once `over`, nothing is changed any more.
struct Metered {
    dom: RcDom,
    work: Cell<u64>,
    tokens: Cell<u64>,
    over: Cell<bool>,
    enforce: bool,
}

impl Metered {
    /// Adds `cost`; `false` (and `over`) when the budget is exceeded.
    fn spend(&self, cost: usize) -> bool {
        let work = self
            .work
            .get()
            .saturating_add(u64::try_from(cost).unwrap_or(u64::MAX));
        self.work.set(work);
        if self.enforce
            && work
                > WORK_PER_TOKEN
                    .saturating_mul(self.tokens.get())
                    .saturating_add(WORK_SLACK)
        {
            self.over.set(true);
        }
        !self.over.get()
    }

    /// Position of `node` among its parent's children (what `RcDom` scans for).
    fn index(node: &Handle) -> usize {
        let Some(weak) = node.parent.take() else {
            return 0;
        };
        node.parent.set(Some(weak.clone()));
        weak.upgrade().map_or(0, |parent| {
            parent
                .children
                .borrow()
                .iter()
                .position(|c| Rc::ptr_eq(c, node))
                .unwrap_or(0)
        })
    }

    fn node_index(child: &NodeOrText<Handle>) -> usize {
        match child {
            NodeOrText::AppendNode(node) => Self::index(node),
            NodeOrText::AppendText(_) => 0,
        }
    }
}

impl TreeSink for Metered {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a> = ExpandedName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        self.dom.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> ExpandedName<'a> {
        self.spend(1);
        self.dom.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        self.spend(1 + attrs.len());
        self.dom.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        self.spend(1);
        self.dom.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.spend(1);
        self.dom.create_pi(target, data)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        if self.spend(1) {
            self.dom.append(parent, child);
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let cost = 1 + Self::index(element) + Self::node_index(&child);
        if self.spend(cost) {
            self.dom
                .append_based_on_parent_node(element, prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        if self.spend(1) {
            self.dom
                .append_doctype_to_document(name, public_id, system_id);
        }
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        self.dom.get_template_contents(target)
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        self.spend(1);
        Rc::ptr_eq(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.dom.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        let cost = 1 + Self::index(sibling) + Self::node_index(&new_node);
        if self.spend(cost) {
            self.dom.append_before_sibling(sibling, new_node);
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let existing = match &target.data {
            NodeData::Element { attrs, .. } => attrs.borrow().len(),
            _ => 0,
        };
        if self.spend(1 + existing + attrs.len()) {
            self.dom.add_attrs_if_missing(target, attrs);
        }
    }

    fn remove_from_parent(&self, target: &Handle) {
        if self.spend(1 + Self::index(target)) {
            self.dom.remove_from_parent(target);
        }
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        if self.spend(1 + node.children.borrow().len()) {
            self.dom.reparent_children(node, new_parent);
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.dom.is_mathml_annotation_xml_integration_point(handle)
    }

    fn allow_declarative_shadow_roots(&self, intended_parent: &Handle) -> bool {
        self.dom.allow_declarative_shadow_roots(intended_parent)
    }

    fn attach_declarative_shadow(
        &self,
        location: &Handle,
        template: &Handle,
        attrs: &[Attribute],
    ) -> bool {
        self.dom
            .attach_declarative_shadow(location, template, attrs)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &Handle) {
        if self.spend(1) {
            self.dom.maybe_clone_an_option_into_selectedcontent(option);
        }
    }
}

/// The children of the fragment's root element (what ammonia serializes).
pub(crate) fn fragment_root(dom: &RcDom) -> Option<Handle> {
    dom.document.children.borrow().first().cloned()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::{ContentPolicy, sanitize_markup};
    use super::*;
    use crate::finding::Code;

    /// `before{i}after` for `i` in `0..n`, concatenated.
    pub(crate) fn numbered(n: usize, before: &str, after: &str) -> String {
        use std::fmt::Write as _;
        (0..n).fold(String::new(), |mut s, i| {
            let _ = write!(s, "{before}{i}{after}");
            s
        })
    }

    /// Tree-building work html5ever (and so ammonia) does on `html`, unbounded.
    fn work(html: &str) -> Meter {
        let b = bound(html, Mode::Measure);
        assert!(b.cut.is_none());
        b.meter
    }

    fn sanitized(text: &str, mime: Option<&str>) -> (String, Vec<Code>) {
        let out = sanitize_markup(text, mime, &ContentPolicy::default(), "/t");
        (
            out.text.into_owned(),
            out.findings.iter().map(|f| f.code).collect(),
        )
    }

    /// The meter sees the quadratic cost of nested blocks: 4× the input, ~16× the work.
    #[test]
    fn meter_sees_quadratic_nesting() {
        let small = work(&"<div>".repeat(500)).work;
        let large = work(&"<div>".repeat(2000)).work;
        assert!(large > 12 * small, "{small} → {large}");
    }

    /// Sanitizing nested blocks does work linear in the input: the work html5ever does on
    /// the output of 32 Ki nested `<div>` is about 16× that on the output of 2 Ki (a
    /// quadratic cost would be 256×); every other kind is checked at 1 Ki against 4 Ki
    /// (about 4×, not 16×). The guard itself stops after the limit.
    #[test]
    fn nested_blocks_cost_linear_work() {
        let kinds = [
            ("div", 2 * 1024, 32 * 1024),
            ("ul", 1024, 4096),
            ("blockquote", 1024, 4096),
            ("section", 1024, 4096),
            ("details", 1024, 4096),
            ("pre", 1024, 4096),
            ("span", 1024, 4096),
            ("b", 1024, 4096),
        ];
        for (tag, small_n, large_n) in kinds {
            let ratio = (large_n / small_n) as u64;
            for mime in [Some("text/html"), None] {
                if mime.is_none() && matches!(tag, "span" | "b") {
                    // Inline tags in markdown are checked one by one, never parsed as a
                    // document (each is cleaned on its own by `html::sanitize_tag`).
                    continue;
                }
                let unit = format!("<{tag}>");
                let (out_small, codes_small) = sanitized(&unit.repeat(small_n), mime);
                let (out_large, codes_large) = sanitized(&unit.repeat(large_n), mime);
                let small = work(&out_small);
                let large = work(&out_large);
                assert!(
                    large.work <= (ratio + 1) * small.work + 1024,
                    "<{tag}> {mime:?}: work {} → {}",
                    small.work,
                    large.work
                );
                assert!(large.max_depth <= MAX_DEPTH + 4, "<{tag}> {mime:?}");
                assert_eq!(codes_small, codes_large, "<{tag}> {mime:?}");
                assert_eq!(codes_large, [Code::HtmlSanitized], "<{tag}> {mime:?}");
                let guard = bound(&unit.repeat(large_n), Mode::Enforce).meter;
                assert!(
                    guard.work <= WORK_PER_TOKEN * guard.tokens + WORK_SLACK + 4096,
                    "<{tag}>: guard work {guard:?}"
                );
            }
        }
        let (out, codes) = sanitized(&"<div>".repeat(8000), None);
        assert_eq!(codes, [Code::HtmlSanitized]);
        assert!(out.starts_with(&"<div>".repeat(MAX_DEPTH - 1)));
        assert!(out.contains("&lt;div&gt;&lt;div&gt;"));
    }

    /// Shapes that are quadratic for other reasons than plain nesting are cut too, and
    /// their output costs linear work.
    #[test]
    fn other_superlinear_shapes_are_bounded() {
        let attrs: String = numbered(20_000, " x", "");
        let cases = [
            // html5ever checks each attribute against all earlier ones.
            format!("<p>ok</p><a{attrs}>t</a>"),
            // Attributes of repeated <html> tags are merged into the root one by one.
            numbered(5000, "<html x", ">"),
            // Formatting elements reopened after every block (quadratic output).
            numbered(3000, "<div><b id=", "></div>"),
            // End tags that look through the whole stack.
            format!("{}{}", "<span>".repeat(5000), "</zz>".repeat(5000)),
            // Markers left behind by <object> inside closed blocks.
            (0..2000).map(|_| "<div><object></div>").collect::<String>() + &"<b></b>".repeat(2000),
            // Foster parenting before a table with many siblings.
            format!("{}<table>{}", "<br>".repeat(5000), "x<br>".repeat(5000)),
        ];
        for case in &cases {
            let (out, codes) = sanitized(case, Some("text/html"));
            let meter = work(&out);
            assert!(
                meter.work <= 64 * out.len() as u64 + WORK_SLACK,
                "{} bytes: {meter:?} for {} output bytes",
                case.len(),
                out.len()
            );
            assert!(out.len() < 4 * case.len() + 1024);
            let _ = codes;
        }
        let (_, codes) = sanitized(&format!("<a{attrs}>t</a>"), Some("text/html"));
        assert!(codes.contains(&Code::HtmlSanitized));
    }

    /// Ordinary documents are not cut.
    #[test]
    fn ordinary_documents_are_not_cut() {
        let nested_list = format!("{}x{}", "<ul><li>".repeat(20), "</li></ul>".repeat(20));
        let table = "<table><tr><td>a<td>b<tr><td>c</table>".repeat(200);
        let sloppy = "<p>one<p>two<li>three<b>bold<p>four</b>".repeat(500);
        let page = "<h1>T</h1><p>Some <b>text</b> with <a href=\"https://docs.example.com/a\">a link</a>.</p><ul><li>one</li><li>two</li></ul>\n".repeat(1500);
        let comment = format!("<p>x</p><!--{}--><p>y</p>", "a b c d ".repeat(4000));
        let base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let data_uri = format!(
            "<img src=\"data:image/png;base64,{}\"><p>after</p>",
            base64.repeat(2500)
        );
        for doc in [nested_list, table, sloppy, page, comment, data_uri] {
            let b = bound(&doc, Mode::Enforce);
            assert!(b.cut.is_none(), "cut at {:?} ({})", b.cut, b.reason);
        }
    }

    #[test]
    fn chunks_end_before_lt_and_after_gt() {
        let html = "ab<c d=\"e>f\">g<<h>é";
        let mut at = 0;
        let mut chunks = Vec::new();
        while at < html.len() {
            let end = chunk_end(html, at);
            chunks.push(&html[at..end]);
            at = end;
        }
        assert_eq!(chunks, ["ab", "<c d=\"e>", "f\">", "g", "<", "<h>", "é"]);
        let long = "é".repeat(MAX_CHUNK);
        assert!(long.is_char_boundary(chunk_end(&long, 0)));
    }
}
