//! Result hardening for `tools/call`, `resources/read` and `prompts/get` (DESIGN §4,
//! MCP 2025-11-25 "Tools §Tool Result", "Resources §Reading Resources",
//! "Prompts §Getting a Prompt").
//!
//! Every text that reaches the host loses terminal control sequences, controls and hidden
//! characters ([`crate::sanitize::sanitize_text`]), then HTML/markdown is neutralized
//! ([`crate::sanitize::sanitize_markup`]); text beyond `max_text_bytes` is truncated on a
//! UTF-8 boundary with a visible marker, and a text whose neutralized form outgrows the
//! limit goes through the markup pass shorter, so the host gets at most `max_text_bytes`
//! of it plus the marker; instruction-like text is flagged
//! ([`crate::detect::scan_result_text`]), or refuses the whole result when
//! [`ContentPolicy::injection_blocks`]. `structuredContent` strings get the text
//! sanitizer only (their meaning is data, not markup).
//!
//! Binary content (`image` and `audio` blocks, blobs) is checked without being decoded
//! whole: base64, size, MIME allowlist, sniffed first bytes ([`binary`]); `text/*` blobs
//! are decoded, get the text treatment above and are encoded again. The URIs of
//! `resource_link` blocks and embedded resources are checked for dangerous schemes
//! ([`links`]). A content block that fails either check is replaced by a text block
//! saying what was removed and why (`[mcp-bastion removed an image: …]`), a
//! `resources/read` item by a `text/plain` item of the same `uri`; the rest of the result
//! passes.
//!
//! # Findings
//! Removed binary content: `malformed_message` (until a dedicated code exists), `info`,
//! path of the `data`/`blob` member. Refused URI: `dangerous_url_scheme`, `info`, path of
//! the `uri` member. Both are neutralizations: verdict `sanitize`.

use crate::finding::{Code, Finding, Severity, Verdict};
use crate::json::Member;
use crate::sanitize::ContentPolicy;
use serde_json::Value;
use walk::Walk;

pub mod binary;
pub mod links;
mod plain;
#[cfg(test)]
mod tests;
mod walk;

pub use binary::DEFAULT_MIME_ALLOWLIST;
pub use links::DANGEROUS_URI_SCHEMES;

/// The finding code for removed binary content (invalid base64, oversize, MIME type not
/// allowed or not matching the bytes). Severity `info`: the block was replaced.
const BINARY_REFUSED: Code = Code::BinaryRefused;

/// Options for [`inspect_result`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultOptions {
    /// Text per content item before truncation, bytes (DESIGN §5 `max_text_bytes`).
    pub max_text_bytes: usize,
    /// Decoded size of one image, audio or blob item, bytes (DESIGN §5
    /// `max_binary_bytes`); larger items are removed.
    pub max_binary_bytes: usize,
    /// Link, HTML, MIME and injection policy (`[content]`).
    pub content: ContentPolicy,
    /// Run the instruction detector on result texts here (default). A caller that only
    /// audits those findings may set `false` and call [`injection_findings`] later, off
    /// the latency path, with the sanitized result. Ignored (the detector runs here)
    /// when [`ContentPolicy::injection_blocks`]: the verdict depends on it.
    pub scan_injection: bool,
}

impl ResultOptions {
    /// Default options with the sizes of `limits` (`max_text_bytes`, `max_binary_bytes`)
    /// and `content` as the content policy.
    pub fn new(limits: &crate::Limits, content: ContentPolicy) -> Self {
        Self {
            max_text_bytes: limits.max_text_bytes,
            max_binary_bytes: limits.max_binary_bytes,
            content,
            scan_injection: true,
        }
    }
}

impl Default for ResultOptions {
    fn default() -> Self {
        Self::new(&crate::Limits::default(), ContentPolicy::default())
    }
}

/// Outcome of [`inspect_result`].
#[derive(Debug, Clone, PartialEq)]
pub struct ResultOutcome {
    /// The sanitized result when anything changed; `None` means forward the original.
    pub rewritten: Option<Value>,
    /// Findings, paths relative to the result.
    pub findings: Vec<Finding>,
    /// Characters removed by the text sanitizer, over all strings.
    pub removed_chars: usize,
    /// The verdict: `sanitize` when rewritten, `flag` for instruction-like text,
    /// `block` for a finding of severity `high` or more.
    pub verdict: Verdict,
}

/// Codes that document a neutralization already applied to the text: they explain a
/// rewrite and do not by themselves warn the user.
const NEUTRALIZED: &[Code] = &[
    Code::TerminalEscape,
    Code::ControlCharacter,
    Code::HiddenUnicodeTag,
    Code::BidiControl,
    Code::ZeroWidth,
    Code::InvisibleFormat,
    Code::VariationSelectorRun,
    Code::PrivateUse,
    Code::Noncharacter,
    Code::HtmlSanitized,
    Code::ExternalImage,
    Code::LinkExfiltration,
    Code::LinkTextMismatch,
    Code::DangerousUrlScheme,
    Code::TextTruncated,
];

/// Members whose string value decides how a block is inspected. The host receives
/// every string cleaned ([`crate::sanitize::sanitize_result`]); when one of these holds a
/// hidden character or control, the result is cleaned first and the clean form inspected,
/// so `resou` + U+202E + `rce_link` cannot pass as an unknown block and reach the host as
/// a `resource_link` (found by the `result` fuzz target).
const STEERING: &[&str] = &["type", "mimeType", "uri"];

fn steering_is_dirty(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(steering_is_dirty),
        Value::Object(map) => map.iter().any(|(k, v)| {
            let dirty = match v {
                Value::String(s) if STEERING.contains(&k.as_str()) => {
                    crate::sanitize::sanitize_text(s).removed > 0
                }
                _ => false,
            };
            dirty || steering_is_dirty(v)
        }),
        _ => false,
    }
}

/// Inspects and sanitizes the result of `method`. Methods other than `tools/call`,
/// `resources/read` and `prompts/get` pass unchanged. `isError` results are inspected
/// like any other. A result whose block `type`, `mimeType` or `uri` strings hold hidden
/// characters or controls is cleaned as a whole first and that form inspected (the
/// outcome is then always rewritten).
pub fn inspect_result(method: &str, result: &Value, opts: &ResultOptions) -> ResultOutcome {
    if steering_is_dirty(result) {
        let mut clean = result.clone();
        let pre = crate::sanitize::sanitize_result(&mut clean);
        let mut outcome = inspect_clean(method, &clean, opts);
        outcome.removed_chars += pre.removed;
        for code in pre.codes {
            outcome.findings.push(Finding::new(
                code,
                Severity::Info,
                "",
                format!("removed characters of class {code} before inspection"),
            ));
        }
        outcome.rewritten.get_or_insert(clean);
        outcome.verdict = Verdict::from_findings(&outcome.findings, true);
        return outcome;
    }
    inspect_clean(method, result, opts)
}

fn inspect_clean(method: &str, result: &Value, opts: &ResultOptions) -> ResultOutcome {
    let mut walk = Walk {
        opts,
        only_injection: false,
        edits: Vec::new(),
        findings: Vec::new(),
        removed: 0,
        is_error: is_error(result),
    };
    walk_result(&mut walk, method, result);
    let Walk {
        edits,
        mut findings,
        removed,
        ..
    } = walk;
    let rewritten = (!edits.is_empty()).then(|| {
        let mut out = result.clone();
        for (path, value) in edits {
            if let Some(slot) = out.pointer_mut(&path) {
                *slot = value;
            }
        }
        out
    });
    for f in &mut findings {
        if NEUTRALIZED.contains(&f.code) && f.severity < Severity::High {
            f.severity = Severity::Info;
        }
    }
    let verdict = Verdict::from_findings(&findings, rewritten.is_some());
    ResultOutcome {
        rewritten,
        findings,
        removed_chars: removed,
        verdict,
    }
}

/// Visits every text field of a `method` result with `walk`.
/// Whether a result is a tool error (`isError: true`).
fn is_error(result: &Value) -> bool {
    result.member("isError") == Some(&Value::Bool(true))
}

fn walk_result(walk: &mut Walk<'_>, method: &str, result: &Value) {
    match method {
        "tools/call" => {
            if let Some(items) = result.member("content").and_then(Value::as_array) {
                for (i, block) in items.iter().enumerate() {
                    walk.content_block(block, &format!("/content/{i}"));
                }
            }
            if let Some(sc) = result.member("structuredContent") {
                walk.plain(sc, "/structuredContent");
            }
        }
        "resources/read" => {
            if let Some(items) = result.member("contents").and_then(Value::as_array) {
                for (i, res) in items.iter().enumerate() {
                    let path = format!("/contents/{i}");
                    if let Some(marker) = walk.resource_contents(res, &path) {
                        walk.replace_contents(res, &path, &marker);
                    }
                }
            }
        }
        "prompts/get" => {
            if let Some(d) = result.member("description") {
                walk.plain(d, "/description");
            }
            if let Some(messages) = result.member("messages").and_then(Value::as_array) {
                for (i, m) in messages.iter().enumerate() {
                    let path = format!("/messages/{i}/content");
                    match m.member("content") {
                        Some(Value::Array(blocks)) => {
                            for (j, b) in blocks.iter().enumerate() {
                                walk.content_block(b, &format!("{path}/{j}"));
                            }
                        }
                        Some(block) => walk.content_block(block, &path),
                        None => {}
                    }
                }
            }
        }
        _ => {}
    }
}

/// Instruction-like text in the texts of a (sanitized) result: the findings
/// [`inspect_result`] adds when [`ResultOptions::scan_injection`] is on, for callers that
/// run them after forwarding.
pub fn injection_findings(method: &str, result: &Value, opts: &ResultOptions) -> Vec<Finding> {
    let mut walk = Walk {
        opts,
        only_injection: true,
        edits: Vec::new(),
        findings: Vec::new(),
        removed: 0,
        is_error: is_error(result),
    };
    walk_result(&mut walk, method, result);
    walk.findings
}
