//! `MCP-Protocol-Version` and the mirrored routing headers against the body.
//!
//! Sources: MCP 2025-11-25 Transports §"Protocol Version Header" (an invalid or
//! unsupported `MCP-Protocol-Version` MUST be answered 400 Bad Request); MCP 2026-07-28
//! Streamable HTTP (SEP-2243/SEP-2575: `MCP-Protocol-Version` MUST equal the body's
//! `params._meta["io.modelcontextprotocol/protocolVersion"]`, `Mcp-Method` mirrors
//! `method`, `Mcp-Name` mirrors `params.name` / `params.uri`; servers reject requests
//! whose headers and body disagree with 400 and JSON-RPC -32020 `HeaderMismatch`). A
//! gateway routes and authorizes on what it reads, the upstream executes the body: a
//! disagreement is a confused-deputy shape.

use super::header_value::decode_header_value;
use super::request::{BodySeen, HttpRequestView, Lookup};
use super::{RefusalStatus, Rejection};
use crate::era::{HANDSHAKE_VERSIONS, META_PROTOCOL_VERSION, STATELESS_VERSIONS};
use crate::finding::Code;
use serde_json::Value;

fn clip(s: &str) -> String {
    crate::unicode::escape_for_display(&s.chars().take(80).collect::<String>()).into_owned()
}

/// Appends version and mirrored-header refusals; the body comparison runs only on a
/// complete body that is one JSON object (anything else is for the JSON-RPC pipeline).
pub(crate) fn check_version(
    view: &HttpRequestView<'_>,
    max_depth: usize,
    parsed: Option<&serde_json::Map<String, Value>>,
    out: &mut Vec<Rejection>,
) {
    let header = view.header_text("mcp-protocol-version");
    // Present but not visible ASCII text: not a version, and not absent either (absent
    // means the 2025-03-26 default in a session).
    if header.is_none() && matches!(view.header("mcp-protocol-version"), Lookup::One(_)) {
        out.push(Rejection::new(
            RefusalStatus::BadRequest,
            Code::HttpProtocolVersionMismatch,
            "/headers/MCP-Protocol-Version",
            "MCP-Protocol-Version is not visible ASCII text; refused".to_owned(),
        ));
        return;
    }
    if let Some(v) = header
        && !HANDSHAKE_VERSIONS.contains(&v)
        && !STATELESS_VERSIONS.contains(&v)
    {
        out.push(Rejection::new(
            RefusalStatus::BadRequest,
            Code::HttpProtocolVersionMismatch,
            "/headers/MCP-Protocol-Version",
            format!(
                "MCP-Protocol-Version `{}` is not a protocol version this gateway speaks ({}, {}); refused",
                clip(v),
                HANDSHAKE_VERSIONS.join(", "),
                STATELESS_VERSIONS.join(", ")
            ),
        ));
        return;
    }
    let BodySeen::Complete(body) = view.body else {
        return;
    };
    let owned;
    let msg = if let Some(m) = parsed {
        m
    } else {
        let Ok(Value::Object(m)) = crate::json::parse_value(body, max_depth) else {
            return;
        };
        owned = m;
        &owned
    };
    let params = msg.get("params");
    let meta_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let method = msg.get("method").and_then(Value::as_str);
    let init_version = params
        .filter(|_| method == Some("initialize"))
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str);
    for (body_version, field) in [
        (
            meta_version,
            "params._meta[\"io.modelcontextprotocol/protocolVersion\"]",
        ),
        (init_version, "params.protocolVersion"),
    ] {
        let Some(body_version) = body_version else {
            continue;
        };
        // The 2026-07-28 header is mandatory with a _meta version; on initialize it is
        // optional but must agree when sent.
        let agrees = match header {
            Some(h) => h == body_version,
            None => field.starts_with("params.protocolVersion"),
        };
        if !agrees {
            out.push(Rejection::new(
                RefusalStatus::BadRequest,
                Code::HttpProtocolVersionMismatch,
                "/headers/MCP-Protocol-Version",
                format!(
                    "MCP-Protocol-Version {} but the body's {field} is `{}`; header and body must agree; refused",
                    header.map_or_else(|| "is absent".to_owned(), |h| format!("is `{}`", clip(h))),
                    clip(body_version)
                ),
            ));
        }
    }
    // A field that is present but not visible ASCII text cannot agree with the body; it
    // must not count as absent either. A TAB, valid in field values (RFC 9110 §5.5), is
    // refused inside these two: SEP-2243 sends such values in the `=?base64?…?=` form.
    let param_text = |name| view.header_text(name).filter(|t| !t.contains('\t'));
    for name in ["mcp-method", "mcp-name"] {
        if matches!(view.header(name), Lookup::One(_)) && param_text(name).is_none() {
            out.push(Rejection::new(
                RefusalStatus::BadRequest,
                Code::HttpHeaderMismatch,
                if name == "mcp-method" {
                    "/headers/Mcp-Method"
                } else {
                    "/headers/Mcp-Name"
                },
                "the header is not visible ASCII text (a value with non-ASCII characters or a TAB goes as =?base64?…?=); refused".to_owned(),
            ));
        }
    }
    // Decoded like Mcp-Name (a broken `=?base64?…?=` decodes to nothing and so differs).
    if let Some(h) = param_text("mcp-method")
        && method != decode_header_value(h).ok().as_deref()
    {
        out.push(Rejection::new(
            RefusalStatus::BadRequest,
            Code::HttpHeaderMismatch,
            "/headers/Mcp-Method",
            format!(
                "Mcp-Method `{}` but the body's method is {}; refused",
                clip(h),
                method.map_or_else(|| "absent".to_owned(), |m| format!("`{}`", clip(m)))
            ),
        ));
    }
    if let Some(field) = param_text("mcp-name") {
        let named = params.and_then(|p| match method {
            Some("resources/read") => p.get("uri"),
            _ => p.get("name"),
        });
        let named = named.and_then(Value::as_str);
        // The sentinel form carries the name's UTF-8 bytes (SEP-2243 value encoding).
        let h = match decode_header_value(field) {
            Ok(h) => h,
            Err(e) => {
                out.push(Rejection::new(
                    RefusalStatus::BadRequest,
                    Code::HttpHeaderMismatch,
                    "/headers/Mcp-Name",
                    format!("Mcp-Name: {e}; refused"),
                ));
                return;
            }
        };
        let h = h.as_ref();
        if named != Some(h) {
            out.push(Rejection::new(
                RefusalStatus::BadRequest,
                Code::HttpHeaderMismatch,
                "/headers/Mcp-Name",
                format!(
                    "Mcp-Name `{}` but the body names {}; refused",
                    clip(h),
                    named.map_or_else(|| "nothing".to_owned(), |n| format!("`{}`", clip(n)))
                ),
            ));
        }
    }
}
