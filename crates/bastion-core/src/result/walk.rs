//! The walk over a result's content: which member of which block gets which treatment
//! (text pipeline, plain text sanitizer, binary checks, URI checks), collected as edits
//! and findings for [`super::inspect_result`].

use super::{BINARY_REFUSED, ResultOptions, binary, links};
use crate::detect::scan_result_text_in;
use crate::finding::{Code, Finding, Severity, pointer_push};
use crate::json::Member;
use crate::sanitize::text::TextOutcome;
use crate::sanitize::{sanitize_markup, sanitize_text};
use base64::Engine as _;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Rounds of markup pass + text cleanup per text value at most (see `Walk::clean`).
const MARKUP_ROUNDS: usize = 4;
/// How the marker after a truncated text begins; the whole marker is
/// `\n\n(truncated by mcp-bastion: N bytes in total, M shown)`, N and M in bytes, a
/// paragraph of its own. The blank line ends whatever the text left open where it was
/// cut that a line ending would continue (the `CommonMark` spec 0.31: a link reference
/// definition taking the next line as its title, §4.7; an HTML block, §4.6; a
/// paragraph, a list item, a block quote). It holds no square brackets, so no link
/// reference definition in the text (whose label the attacker can predict: N is the
/// text's length, M is `max_text_bytes`) turns it into a link.
pub(super) const MARKER_START: &str = "\n\n(truncated by mcp-bastion: ";

/// Tries of a shorter text, aimed at the limit, before [`Walk::clean`] halves the part of
/// a text it puts through the markup pass.
const SHRINK_ROUNDS: usize = 2;

/// What the markup rounds of one try found and removed (see `Walk::markup_rounds`).
#[derive(Default)]
struct MarkupReport {
    findings: Vec<Finding>,
    removed: usize,
}

/// The largest char boundary of `s` at or below `at` bytes.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One pass over a result: the options, and what the pass found and would change.
pub(super) struct Walk<'o> {
    pub(super) opts: &'o ResultOptions,
    /// Only collect instruction findings; change nothing.
    pub(super) only_injection: bool,
    /// Replacements: JSON Pointer into the result, new value; applied in order.
    pub(super) edits: Vec<(String, Value)>,
    pub(super) findings: Vec<Finding>,
    pub(super) removed: usize,
    /// The result is a tool error (`isError: true`).
    pub(super) is_error: bool,
}

impl Walk<'_> {
    /// Full treatment of one text field: text sanitizer, markup, size, injection.
    pub(super) fn text(&mut self, text: &str, path: &str, mime: Option<&str>) {
        if let Some(out) = self.clean(text, path, mime) {
            self.edits.push((path.to_owned(), Value::String(out)));
        }
    }

    /// The instruction detector, with the policy's severity.
    fn scan(&mut self, text: &str, path: &str) {
        let mut found = scan_result_text_in(text, path, self.is_error);
        if self.opts.content.injection_blocks() {
            for f in &mut found {
                f.severity = f.severity.max(Severity::High);
            }
        }
        self.findings.extend(found);
    }

    /// The text that replaces `text` (text sanitizer, markup, size, injection), or `None`
    /// when it passes unchanged.
    fn clean(&mut self, text: &str, path: &str, mime: Option<&str>) -> Option<String> {
        if self.only_injection {
            self.scan(text, path);
            return None;
        }
        let cleaned = sanitize_text(text);
        self.removed_from_text(&cleaned, path);
        // Truncate before the markup pass: its cost grows with the input, and what is cut
        // off never reaches the host anyway. The markup pass escapes what it does not
        // keep (`<` becomes `&lt;`, `&lt;` becomes `&amp;lt;`), so its output can be
        // longer than its input: when it outgrows `max_text_bytes`, a shorter part of the
        // text goes through it again, so that what the host gets stays within the limit
        // and is always a whole output of the pass (never markup cut in the middle).
        let body: std::borrow::Cow<'_, str> = cleaned.text;
        let original = body.len();
        let max = self.opts.max_text_bytes;
        let mut cut = floor_char_boundary(&body, max);
        let mut rounds = 0;
        let (mut out, markup) = loop {
            let (out, markup) = self.markup_rounds(&body[..cut], mime, path);
            if out.len() <= max || cut == 0 {
                break (out, markup);
            }
            rounds += 1;
            // The output grows about in proportion to the input: aim at the limit, and
            // halve from the third try on, so the loop ends (an empty text fits).
            let mut next = cut.saturating_mul(max) / out.len();
            if rounds >= SHRINK_ROUNDS {
                next /= 2;
            }
            cut = floor_char_boundary(&body, next.min(cut - 1));
        };
        self.findings.extend(markup.findings);
        self.removed += markup.removed;
        let truncated = (cut < original).then_some((original, cut));
        if truncated.is_some() {
            // The cut may have left part of a sequence (a flag's tag characters, a
            // dangling joiner): removed, and reported like the rest.
            let again = sanitize_text(&out);
            if again.removed > 0 {
                self.removed_from_text(&again, path);
                out = std::borrow::Cow::Owned(again.text.into_owned());
            }
        }
        if let Some((original, cut)) = truncated {
            let mut t = out.into_owned();
            let _ = write!(t, "{MARKER_START}{original} bytes in total, {cut} shown)");
            out = t.into();
            self.findings.push(Finding::new(
                Code::TextTruncated,
                Severity::Info,
                path,
                format!("text of {original} bytes truncated to {cut} bytes (max_text_bytes)"),
            ));
        }
        if self.opts.scan_injection || self.opts.content.injection_blocks() {
            self.scan(&out, path);
        }
        // Text that passed every step untouched is still `text` itself: no need to
        // compare it byte for byte (a 1 MiB text took ~40 µs to compare).
        let untouched = matches!(&out, std::borrow::Cow::Borrowed(b) if std::ptr::eq(*b, text));
        (!untouched && out != text).then(|| out.into_owned())
    }

    /// Counts what the text sanitizer removed from the text at `path`, with a finding
    /// per class of character removed.
    fn removed_from_text(&mut self, cleaned: &TextOutcome<'_>, path: &str) {
        let n = cleaned.removed;
        self.count_removed(cleaned, path, |code| {
            format!("removed {n} character(s) of class {code} from the text")
        });
    }

    /// Adds what the text sanitizer removed (`cleaned`) to the count and one finding per
    /// character class at `path`, worded by `message`.
    pub(super) fn count_removed(
        &mut self,
        cleaned: &TextOutcome<'_>,
        path: &str,
        message: impl Fn(Code) -> String,
    ) {
        self.removed += cleaned.removed;
        for code in &cleaned.codes {
            self.findings
                .push(Finding::new(*code, Severity::Info, path, message(*code)));
        }
    }

    /// The markup pass and the text cleanup after it, repeated until neither changes
    /// anything (at most [`MARKUP_ROUNDS`]): the output, and what the rounds found and
    /// removed (kept apart, so that a try [`Walk::clean`] discards reports nothing).
    fn markup_rounds<'t>(
        &self,
        body: &'t str,
        mime: Option<&str>,
        path: &str,
    ) -> (std::borrow::Cow<'t, str>, MarkupReport) {
        let mut report = MarkupReport::default();
        let mut out = std::borrow::Cow::Borrowed(body);
        for _ in 0..MARKUP_ROUNDS {
            let markup = sanitize_markup(&out, mime, &self.opts.content, path);
            report.findings.extend(markup.findings);
            let std::borrow::Cow::Owned(m) = markup.text else {
                break;
            };
            let again = sanitize_text(&m);
            report.removed += again.removed;
            let removed = again.removed;
            out = std::borrow::Cow::Owned(again.text.into_owned());
            if removed == 0 {
                break;
            }
        }
        (out, report)
    }

    /// A content block (`text`, `image`, `audio`, `resource_link`, `resource`).
    pub(super) fn content_block(&mut self, block: &Value, path: &str) {
        match block.member("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = block.member("text").and_then(Value::as_str) {
                    self.text(t, &pointer_push(path, "text"), None);
                }
            }
            Some(kind @ ("image" | "audio")) => {
                let kind = if kind == "image" {
                    binary::Kind::Image
                } else {
                    binary::Kind::Audio
                };
                let data = pointer_push(path, "data");
                if let Some(reason) = self.binary(kind, block, &data) {
                    let marker = format!("[mcp-bastion removed {}: {reason}]", kind.noun());
                    self.replace_block(path, &marker);
                    return;
                }
            }
            Some("resource") => {
                if let Some(res) = block.member("resource") {
                    let rpath = pointer_push(path, "resource");
                    if let Some(shown) = self.refused_uri(res, &rpath, "an embedded resource") {
                        let marker = format!("[mcp-bastion removed an embedded resource: {shown}]");
                        self.replace_block(path, &marker);
                        return;
                    }
                    if let Some(marker) = self.resource_contents(res, &rpath) {
                        self.replace_block(path, &marker);
                        return;
                    }
                }
            }
            Some("resource_link") => {
                if let Some(shown) = self.refused_uri(block, path, "a resource link") {
                    let label = ["title", "name"]
                        .iter()
                        .find_map(|k| {
                            let v = block.get(*k)?.as_str()?;
                            Some(self.label(v, &pointer_push(path, k)))
                        })
                        .unwrap_or_else(|| "link".to_owned());
                    let marker = format!("[mcp-bastion removed a link: {label}, {shown}]");
                    self.replace_block(path, &marker);
                    return;
                }
                for field in ["name", "title", "description"] {
                    if let Some(v) = block.get(field) {
                        self.plain(v, &pointer_push(path, field));
                    }
                }
            }
            _ => {}
        }
        if let Some(ann) = block.member("annotations") {
            self.plain(ann, &pointer_push(path, "annotations"));
        }
    }

    /// `TextResourceContents` / `BlobResourceContents`. Returns the marker text when a
    /// blob was refused (the caller replaces the item).
    pub(super) fn resource_contents(&mut self, res: &Value, path: &str) -> Option<String> {
        let mime = res.member("mimeType").and_then(Value::as_str);
        if let Some(t) = res.member("text").and_then(Value::as_str) {
            self.text(t, &pointer_push(path, "text"), mime);
        }
        if res.member("blob").is_some() {
            let kind = binary::Kind::Blob;
            let blob = pointer_push(path, "blob");
            if let Some(reason) = self.binary(kind, res, &blob) {
                return Some(format!("[mcp-bastion removed {}: {reason}]", kind.noun()));
            }
        }
        None
    }

    /// Checks the binary content of `item` (`data` or `blob` at `path`, `mimeType`). On
    /// refusal records the finding and returns the reason; a `text/*` blob is sanitized as
    /// text and encoded again.
    fn binary(&mut self, kind: binary::Kind, item: &Value, path: &str) -> Option<String> {
        let field = if kind == binary::Kind::Blob {
            "blob"
        } else {
            "data"
        };
        let checked = binary::inspect(
            kind,
            item.member(field),
            item.member("mimeType"),
            &self.opts.content,
            self.opts.max_binary_bytes,
        );
        match checked {
            Err(reason) => {
                if self.only_injection {
                    return None;
                }
                self.findings.push(Finding::new(
                    BINARY_REFUSED,
                    Severity::Info,
                    path,
                    format!("removed {}: {reason}", kind.noun()),
                ));
                Some(reason)
            }
            Ok(ok) => {
                if let Some(note) = ok.note
                    && !self.only_injection
                {
                    self.findings
                        .push(Finding::new(BINARY_REFUSED, Severity::Info, path, note));
                }
                if let Some(text) = ok.text
                    && let Some(out) = self.clean(&text, path, Some(&ok.mime))
                {
                    let encoded = base64::engine::general_purpose::STANDARD.encode(out);
                    self.edits.push((path.to_owned(), Value::String(encoded)));
                }
                None
            }
        }
    }

    /// The URI of `item` (a `resource_link` block or resource contents at `path`) as
    /// marker text when its scheme is refused; records the finding.
    fn refused_uri(&mut self, item: &Value, path: &str, what: &str) -> Option<String> {
        if self.only_injection {
            return None;
        }
        let uri = item.member("uri").and_then(Value::as_str)?;
        let scheme = links::refused(uri, &self.opts.content)?;
        let path = pointer_push(path, "uri");
        self.findings.push(Finding::new(
            Code::DangerousUrlScheme,
            Severity::Info,
            &path,
            format!("{what} with a {scheme}: URI was replaced by text"),
        ));
        Some(format!(
            "`{}` (the {scheme}: scheme is not allowed)",
            links::shown(uri)
        ))
    }

    /// Replaces the content block at `path` by a text block holding `marker` (sanitized
    /// like any text: it may quote server-chosen names).
    fn replace_block(&mut self, path: &str, marker: &str) {
        let text_path = pointer_push(path, "text");
        let text = self
            .clean(marker, &text_path, None)
            .unwrap_or_else(|| marker.to_owned());
        self.edits
            .push((path.to_owned(), json!({"type": "text", "text": text})));
    }

    /// Replaces the `resources/read` contents item `res` at `path` by a `text/plain`
    /// item of the same `uri` holding `marker`.
    pub(super) fn replace_contents(&mut self, res: &Value, path: &str, marker: &str) {
        let text_path = pointer_push(path, "text");
        let text = self
            .clean(marker, &text_path, Some("text/plain"))
            .unwrap_or_else(|| marker.to_owned());
        let uri = res.member("uri").cloned().unwrap_or_else(|| json!(""));
        self.edits.push((
            path.to_owned(),
            json!({"uri": uri, "mimeType": "text/plain", "text": text}),
        ));
    }
}
