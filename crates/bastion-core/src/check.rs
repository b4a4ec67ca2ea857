//! `mcp-bastion check KIND`: one detector family on one input, as a [`Report`]
//! (DESIGN §3). Input shapes follow the corpus README:
//!
//! | kind | input |
//! |---|---|
//! | `message` | `{"raw": "<wire text>"}`, `{"raw_hex": "<bytes in hex>"}` or `{"generate": {"template", "fill_char", "fill_bytes"}}`, optional `"direction": "host_to_server" \| "server_to_host"` (default host → server) and `"method"` (the request a response answers) |
//! | `descriptor` | `{"kind": "tool" \| "prompt" \| "resource" \| "resource_template" \| "server_instructions", "descriptor": {...}}` |
//! | `confirmation` | `{"server_trust": "trusted" \| "untrusted", "tool"?, "call", "history"?, "server"?, "server_launch_hash"?, "policy"?}` ([`crate::confirm::check_confirmation`]): `allow` may run without asking, `flag` must ask, `block` refused by policy; output the confirmation view with its digest |
//! | `url` | `{"context", "url", "dns_answers_in_order"?, "redirect_chain"?, "policy"?}`, `{"context": "as_metadata", "issuer_identifier", "metadata_url", "metadata"}` or `{"context": "authorization_response", "expected_issuer", "callback_query", "iss_required"?}` ([`crate::url_gate::check_url`]) |
//! | `http-request` | `{"transport"?: "http", "method", "path", "headers", "raw"? \| "raw_prefix"?, "policy"?}` ([`crate::http_gate::check_http_request`]): the listener's decision (default policy: `127.0.0.1:8931`, body cap `max_host_frame_bytes`, token checked only when `policy.token` is given); output `{action, status?, status_text?, reason?, stage?, policy}` |
//! | `elicitation` | a whole `elicitation/create` request (form or url mode) ([`crate::elicit::check_elicitation`]) |
//! | `server-json` | a registry `server.json` document ([`crate::publish::check_server_json`]): name, package registry types, identifiers, exact versions, `fileSha256`, OCI tag or digest, shell metacharacters, https remotes |
//! | `ui-resources` | `{"manifest": <contract source manifest>, "policy"?, "files"?}` ([`crate::publish::check_ui_input`]): `ui://` URI and MIME, tool links, visibility, CSP origins, sensitive permissions, content confinement and hash |
//! | `result` | a `tools/call` result (`content`, ...), a `resources/read` result (`contents`) or a `prompts/get` result (`messages`); or `{"outputSchema": {...}, "result": {...}, "era"?: "legacy" \| "stateless" \| "<protocol version>"}` (default legacy): the result is inspected and its `structuredContent` validated ([`crate::schema::check_structured`]); schema findings have paths under `/outputSchema`, result findings paths relative to the result |

use crate::detect::{DescriptorKind, scan_descriptor};
use crate::envelope::{self, Kind, codes};
use crate::era::Era;
use crate::finding::{Code, Finding, Report, Severity, Verdict};
use crate::frame::{FrameDecoder, FrameEvent};
use crate::result::{ResultOptions, inspect_result};
use crate::{Direction, Limits, json, methods};
use serde_json::{Value, json};

/// The kinds `check` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckKind {
    /// One wire frame.
    Message,
    /// One descriptor.
    Descriptor,
    /// One result.
    Result,
    /// Two versions of a descriptor, a descriptor list or a launch config.
    Drift,
    /// One `tools/call` against the confirmation policy ([`crate::confirm`]).
    Confirmation,
    /// One URL (with simulated DNS answers and redirects) or an OAuth issuer check
    /// ([`crate::url_gate::check_url`]).
    Url,
    /// A whole `elicitation/create` request ([`crate::elicit::check_elicitation`]).
    Elicitation,
    /// A registry `server.json` before publication ([`crate::publish::check_server_json`]).
    ServerJson,
    /// UI resources of a contract source manifest ([`crate::publish::check_ui_input`]).
    UiResources,
    /// One request to the Streamable HTTP listener ([`crate::http_gate::check_http_request`]).
    HttpRequest,
}

impl CheckKind {
    /// Parses a kind name.
    ///
    /// # Errors
    /// [`CheckError::UnknownKind`] for names this build does not check.
    pub fn parse(name: &str) -> Result<Self, CheckError> {
        match name {
            "message" => Ok(Self::Message),
            "descriptor" => Ok(Self::Descriptor),
            "result" => Ok(Self::Result),
            "drift" => Ok(Self::Drift),
            "confirmation" => Ok(Self::Confirmation),
            "url" => Ok(Self::Url),
            "elicitation" => Ok(Self::Elicitation),
            "server-json" => Ok(Self::ServerJson),
            "ui-resources" => Ok(Self::UiResources),
            "http-request" => Ok(Self::HttpRequest),
            other => Err(CheckError::UnknownKind(other.to_owned())),
        }
    }
}

/// Why a check could not run (exit code 2: the input, not the checked thing, is wrong).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// Unknown kind name.
    #[error(
        "unknown check kind `{0}`; expected one of: message, http-request, descriptor, result, drift, confirmation, url, elicitation, server-json, ui-resources"
    )]
    UnknownKind(String),
    /// The input does not have the shape the kind needs.
    #[error("input for `check {kind}` is malformed: {detail}")]
    BadInput {
        /// The kind.
        kind: &'static str,
        /// What is wrong.
        detail: String,
    },
}

fn bad(kind: &'static str, detail: impl Into<String>) -> CheckError {
    CheckError::BadInput {
        kind,
        detail: detail.into(),
    }
}

/// Runs one check.
///
/// # Errors
/// [`CheckError::BadInput`] when `input` lacks what the kind needs.
pub fn run(kind: CheckKind, input: &Value, limits: &Limits) -> Result<Report, CheckError> {
    match kind {
        CheckKind::Message => check_message(input, limits),
        CheckKind::Descriptor => check_descriptor(input),
        CheckKind::Result
            if input.get("outputSchema").is_some() && input.get("result").is_some() =>
        {
            check_result_with_schema(input, limits)
        }
        CheckKind::Result => {
            // The structural check the gateway applies to a server's answer (MCP schema
            // via rmcp views): an input that is no result of these methods is bad input.
            let method = result_method(input);
            methods::check_result(method, input).map_err(|e| {
                bad(
                    "result",
                    format!(
                        "not a {method} result ({e}); give `content`, `contents` or `messages`"
                    ),
                )
            })?;
            Ok(check_result(input, limits))
        }
        CheckKind::Drift => {
            crate::pins::check_drift(input).map_err(|e| bad("drift", e.to_string()))
        }
        CheckKind::Confirmation => crate::confirm::check_confirmation(input)
            .map_err(|e| bad("confirmation", e.to_string())),
        CheckKind::Url => crate::url_gate::check_url(input).map_err(|e| bad("url", e.to_string())),
        CheckKind::Elicitation => crate::elicit::check_elicitation(
            input,
            &crate::elicit::ElicitPolicy::default(),
            "server",
        )
        .map_err(|e| bad("elicitation", e.to_string())),
        CheckKind::ServerJson => {
            crate::publish::check_server_json(input).map_err(|e| bad("server-json", e.to_string()))
        }
        CheckKind::UiResources => {
            crate::publish::check_ui_input(input).map_err(|e| bad("ui-resources", e.to_string()))
        }
        CheckKind::HttpRequest => crate::http_gate::check_http_request(input, limits)
            .map_err(|e| bad("http-request", e.to_string())),
    }
}

fn check_descriptor(input: &Value) -> Result<Report, CheckError> {
    let kind_name = input
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("descriptor", "missing string `kind`"))?;
    let kind: DescriptorKind = serde_json::from_value(Value::String(kind_name.to_owned())).map_err(|_| {
        bad("descriptor", format!("unknown descriptor kind `{kind_name}` (tool, prompt, resource, resource_template, server_instructions)"))
    })?;
    let descriptor = input
        .get("descriptor")
        .ok_or_else(|| bad("descriptor", "missing `descriptor`"))?;
    let findings = scan_descriptor(kind, descriptor, "/descriptor");
    Ok(Report::from_findings(findings, false, None))
}

/// The method whose result `input` is: `resources/read` (`contents`), `prompts/get`
/// (`messages`), else `tools/call`.
fn result_method(input: &Value) -> &'static str {
    if input.get("contents").is_some() {
        "resources/read"
    } else if input.get("messages").is_some() {
        "prompts/get"
    } else {
        "tools/call"
    }
}

fn check_result(input: &Value, limits: &Limits) -> Report {
    let method = result_method(input);
    let opts = ResultOptions::new(limits, crate::sanitize::ContentPolicy::default());
    let outcome = inspect_result(method, input, &opts);
    let output = outcome.rewritten.unwrap_or_else(|| input.clone());
    Report {
        verdict: outcome.verdict,
        findings: outcome.findings,
        output: Some(output),
    }
}

/// `{outputSchema, result, era?}`: the result inspected and sanitized as by
/// [`check_result`], then its (sanitized) `structuredContent` validated against
/// `outputSchema` ([`crate::schema::check_structured`]). A mismatch blocks, and the output
/// is the tool error the gateway sends instead ([`crate::schema::mismatch_result`]);
/// otherwise the output is the sanitized result.
fn check_result_with_schema(input: &Value, limits: &Limits) -> Result<Report, CheckError> {
    let era = match input.get("era") {
        None => Era::Legacy,
        Some(Value::String(name)) => match name.as_str() {
            "legacy" => Era::Legacy,
            "stateless" => Era::Stateless,
            version => Era::of_version(version).ok_or_else(|| {
                bad(
                    "result",
                    format!("unknown era `{version}`; expected legacy, stateless or a protocol version such as 2025-11-25"),
                )
            })?,
        },
        Some(_) => return Err(bad("result", "`era` must be a string")),
    };
    let result = &input["result"];
    let inspected = check_result(result, limits);
    let output = inspected.output.unwrap_or_else(|| result.clone());
    let mut findings = crate::schema::check_structured(era, &input["outputSchema"], &output);
    let mismatch = findings
        .iter()
        .any(|f| f.code == Code::OutputSchemaMismatch);
    let verdict = inspected
        .verdict
        .max(Verdict::from_findings(&findings, false));
    findings.extend(inspected.findings);
    let output = if mismatch {
        crate::schema::mismatch_result(&findings)
    } else {
        output
    };
    Ok(Report {
        verdict,
        findings,
        output: Some(output),
    })
}

/// Feeds the frame text to a decoder with the direction's limit, in chunks, so a
/// generated input is never materialized whole.
fn decode(input: &Value, limit: usize) -> Result<Vec<FrameEvent>, CheckError> {
    let mut dec = FrameDecoder::new(limit);
    let mut events = Vec::new();
    if let Some(raw) = input.get("raw") {
        let raw = raw
            .as_str()
            .ok_or_else(|| bad("message", "`raw` must be a string"))?;
        // A frame ends at its newline: embedded newlines split it, as on the wire.
        dec.push(raw.as_bytes(), &mut events);
    } else if let Some(hexed) = input.get("raw_hex") {
        let bytes = hexed
            .as_str()
            .and_then(|h| hex::decode(h).ok())
            .ok_or_else(|| bad("message", "`raw_hex` must be a string of hex digits"))?;
        dec.push(&bytes, &mut events);
    } else if let Some(g) = input.get("generate") {
        let template = g
            .get("template")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("message", "generate.template"))?;
        let fill = g
            .get("fill_char")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("message", "generate.fill_char"))?;
        let count = g
            .get("fill_bytes")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("message", "generate.fill_bytes"))?;
        let (head, tail) = template
            .split_once("<FILL>")
            .ok_or_else(|| bad("message", "template lacks <FILL>"))?;
        // A generated frame is streamed, never held; still, bound the work (1 GiB).
        let count = usize::try_from(count)
            .ok()
            .filter(|c| *c <= 1 << 30)
            .ok_or_else(|| {
                bad(
                    "message",
                    "generate.fill_bytes must be at most 1073741824 (1 GiB)",
                )
            })?;
        dec.push(head.as_bytes(), &mut events);
        let block = fill.repeat((64 * 1024 / fill.len().max(1)).max(1));
        let mut left = count;
        while left > 0 {
            let n = left.min(block.len());
            let mut end = n;
            while !block.is_char_boundary(end) {
                end -= 1;
            }
            if end == 0 {
                break;
            }
            dec.push(&block.as_bytes()[..end], &mut events);
            left -= end;
        }
        dec.push(tail.as_bytes(), &mut events);
    } else {
        return Err(bad("message", "expected `raw`, `raw_hex` or `generate`"));
    }
    events.extend(dec.finish());
    Ok(events)
}

fn check_message(input: &Value, limits: &Limits) -> Result<Report, CheckError> {
    let direction = match input.get("direction").and_then(Value::as_str) {
        None | Some("host_to_server") => Direction::HostToServer,
        Some("server_to_host") => Direction::ServerToHost,
        Some(other) => return Err(bad("message", format!("unknown direction `{other}`"))),
    };
    let limit = limits.frame_limit(direction);
    let events = decode(input, limit)?;
    let mut findings = Vec::new();
    let mut outputs = Vec::new();
    for event in events {
        let index = outputs.len();
        let (finding, output) = match event {
            FrameEvent::Oversized { bytes, prefix } => {
                let recovered = json::recover(&prefix);
                let detail = format!(
                    "frame of {bytes} bytes exceeds the limit of {limit} bytes; discarded while reading"
                );
                let f = Finding::new(Code::FrameTooLarge, Severity::High, "", detail.clone());
                let out = refusal(
                    direction,
                    Code::FrameTooLarge,
                    &detail,
                    recovered.id.as_ref(),
                    recovered.method_seen,
                    false,
                );
                (Some(f), out)
            }
            FrameEvent::Frame(bytes) => one_frame(
                &bytes,
                direction,
                input.get("method").and_then(Value::as_str),
                limits,
            ),
        };
        if let Some(mut f) = finding {
            if index > 0 {
                f.message = format!("frame {}: {}", index + 1, f.message);
            }
            findings.push(f);
        }
        outputs.push(output);
    }
    if outputs.is_empty() {
        return Err(bad("message", "no frame in input"));
    }
    let output = if outputs.len() == 1 {
        outputs.pop()
    } else {
        Some(Value::Array(outputs))
    };
    Ok(Report::from_findings(findings, false, output))
}

/// What the gateway answers for a refused frame, and to whom: a refused host frame is
/// answered to the host (-32700 not JSON, -32602 bad params, -32600 otherwise); a refused
/// server answer becomes `upstream_message_rejected` for the host request it answers; a
/// refused server request is answered to the server.
fn refusal(
    direction: Direction,
    code: Code,
    detail: &str,
    id: Option<&Value>,
    method_seen: bool,
    parse: bool,
) -> Value {
    let id = id.filter(|v| envelope::Id::from_value(v).is_some());
    let (to, answer) = match direction {
        Direction::ServerToHost if !method_seen => (
            "host",
            envelope::error_response(
                id,
                codes::UPSTREAM_REJECTED,
                &format!("The server's answer was refused by mcp-bastion ({detail})"),
                json!({"reason": "upstream_message_rejected", "finding": code.as_str()}),
            ),
        ),
        _ => {
            let (rpc, what) = if parse {
                (codes::PARSE_ERROR, "Parse error")
            } else if code == Code::MalformedMessage {
                (codes::INVALID_PARAMS, "Invalid params")
            } else {
                (codes::INVALID_REQUEST, "Invalid request")
            };
            let to = if direction == Direction::ServerToHost {
                "server"
            } else {
                "host"
            };
            let answer = envelope::error_response(
                id,
                rpc,
                &format!("{what}: mcp-bastion refused the message ({detail})"),
                json!({"reason": code.as_str()}),
            );
            (to, answer)
        }
    };
    json!({"action": "refuse", "to": to, "answer": serde_json::from_slice::<Value>(&answer).unwrap_or(Value::Null)})
}

fn one_frame(
    bytes: &[u8],
    direction: Direction,
    answered_method: Option<&str>,
    limits: &Limits,
) -> (Option<Finding>, Value) {
    let map = match json::parse_frame(bytes, limits.max_depth) {
        Ok(map) => map,
        Err(rejected) => {
            let e = &rejected.error;
            let f = Finding::new(e.code(), Severity::High, e.path(), e.to_string());
            let out = refusal(
                direction,
                e.code(),
                &e.to_string(),
                rejected.id.as_ref(),
                rejected.method_seen,
                e.is_parse_error(),
            );
            return (Some(f), out);
        }
    };
    let id = map.get("id").cloned();
    let method_seen = map.contains_key("method");
    let refuse = |code: Code, message: String| {
        let out = refusal(direction, code, &message, id.as_ref(), method_seen, false);
        (Some(Finding::new(code, Severity::High, "", message)), out)
    };
    let kind = match envelope::classify(&map) {
        Ok(k) => k,
        Err(e) => return refuse(Code::InvalidEnvelope, e.to_string()),
    };
    let structure = match &kind {
        Kind::Request { method, .. } | Kind::Notification { method } => {
            methods::check_request_params(method, map.get("params"))
        }
        Kind::Result { .. } => {
            answered_method.map_or(Ok(()), |m| methods::check_result(m, &map["result"]))
        }
        Kind::Error { .. } => answered_method.map_or(Ok(()), |m| {
            methods::check_error(m, map.get("error").unwrap_or(&Value::Null))
        }),
    };
    if let Err(e) = structure {
        return refuse(Code::MalformedMessage, e.to_string());
    }
    let described = match kind {
        Kind::Request { id, method } => {
            json!({"kind": "request", "id": id.to_value(), "method": method})
        }
        Kind::Notification { method } => json!({"kind": "notification", "method": method}),
        Kind::Result { id } => json!({"kind": "result", "id": id.to_value()}),
        Kind::Error { id, code } => {
            json!({"kind": "error", "id": id.map(|i| i.to_value()), "code": code})
        }
    };
    (None, json!({"action": "forward", "message": described}))
}

/// The verdict of a report, for exit codes: `0` for allow/sanitize, `1` for flag/block
/// (DESIGN §3).
pub const fn exit_code(verdict: Verdict) -> i32 {
    match verdict {
        Verdict::Allow | Verdict::Sanitize => 0,
        Verdict::Flag | Verdict::Block => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_that_are_no_result_are_bad_input() {
        let limits = Limits::default();
        for input in [
            json!({"foo": 1}),
            json!({"content": "text"}),
            json!({"contents": 5}),
            json!("hello"),
        ] {
            let e = run(CheckKind::Result, &input, &limits).unwrap_err();
            assert!(
                matches!(e, CheckError::BadInput { kind: "result", .. }),
                "{input}: {e}"
            );
        }
        let ok = json!({"content": [{"type": "text", "text": "hi"}]});
        assert_eq!(
            run(CheckKind::Result, &ok, &limits).unwrap().verdict,
            Verdict::Allow
        );
    }
}
