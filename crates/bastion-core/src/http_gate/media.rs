//! `Content-Type` and `Accept` of MCP requests. Media types are parsed by the `mime`
//! crate (RFC 9110 §8.3.1 `type/subtype *(; parameter)`), `Accept` ranges ranked by
//! specificity with `q=0` meaning "not acceptable" (RFC 9110 §12.5.1).
//!
//! Rules (MCP 2025-11-25 Transports §Streamable HTTP "Sending Messages to the Server"
//! and "Listening for Messages from the Server"; unchanged in 2026-07-28):
//! * POST bodies are one JSON-RPC message: `Content-Type: application/json`, parameters
//!   allowed, `charset` if given must be UTF-8 (JSON-RPC messages MUST be UTF-8). A
//!   CORS-simple type such as `text/plain` (what a cross-site form or `fetch` can send
//!   without a preflight) is refused: 415.
//! * POST `Accept` must allow both `application/json` and `text/event-stream`; GET
//!   `Accept` must allow `text/event-stream`: else 406.

use super::request::{HttpRequestView, Lookup};
use super::{RefusalStatus, Rejection};
use crate::finding::Code;
use mime::Mime;

fn q_of(range: &Mime) -> f32 {
    range
        .get_param("q")
        .and_then(|q| q.as_str().parse::<f32>().ok())
        .unwrap_or(1.0)
}

/// Whether the `Accept` ranges allow `want` (the most specific matching range decides).
fn accepts(ranges: &[Mime], want: &Mime) -> bool {
    let mut best: Option<(u8, f32)> = None;
    for range in ranges {
        let specificity = if range.type_() == want.type_() && range.subtype() == want.subtype() {
            2
        } else if range.type_() == want.type_() && range.subtype() == mime::STAR {
            1
        } else if range.type_() == mime::STAR && range.subtype() == mime::STAR {
            0
        } else {
            continue;
        };
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q_of(range)));
        }
    }
    best.is_some_and(|(_, q)| q > 0.0)
}

/// The ranges of an `Accept` value; `None` when an element is not a media range.
fn ranges(value: &str) -> Option<Vec<Mime>> {
    value
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| e.parse::<Mime>().ok())
        .collect()
}

/// POST: the body must be declared `application/json` (UTF-8).
pub(crate) fn check_content_type(view: &HttpRequestView<'_>) -> Option<Rejection> {
    if view.method != "POST" || view.header("content-type") == Lookup::Many {
        return None;
    }
    let Some(text) = view.header_text("content-type") else {
        return Some(Rejection::at_header(
            RefusalStatus::UnsupportedMediaType,
            Code::HttpContentType,
            "Content-Type",
            "a POST to the MCP endpoint must declare Content-Type: application/json; refused"
                .into(),
        ));
    };
    let parsed = text.parse::<Mime>().ok();
    let json = parsed.as_ref().is_some_and(|m| {
        m.type_() == mime::APPLICATION && m.subtype() == mime::JSON && m.suffix().is_none()
    });
    let utf8 = parsed.as_ref().is_none_or(|m| {
        m.get_param(mime::CHARSET)
            .is_none_or(|c| c.as_str().eq_ignore_ascii_case("utf-8"))
    });
    if json && utf8 {
        return None;
    }
    let shown: String = text.chars().take(80).collect();
    let why = if json {
        "declares a charset other than UTF-8 (JSON-RPC messages are UTF-8)"
    } else {
        "is not application/json (a text/plain or form body is what a cross-site page can send without a CORS preflight)"
    };
    Some(Rejection::at_header(
        RefusalStatus::UnsupportedMediaType,
        Code::HttpContentType,
        "Content-Type",
        format!("Content-Type `{shown}` {why}; refused"),
    ))
}

/// POST must accept JSON and an event stream; GET must accept an event stream.
pub(crate) fn check_accept(view: &HttpRequestView<'_>) -> Option<Rejection> {
    let wanted: &[Mime] = match view.method {
        "POST" => &[mime::APPLICATION_JSON, mime::TEXT_EVENT_STREAM],
        "GET" => &[mime::TEXT_EVENT_STREAM],
        _ => return None,
    };
    let ranges = view
        .header_text("accept")
        .and_then(ranges)
        .unwrap_or_default();
    let missing: Vec<String> = wanted
        .iter()
        .filter(|w| !accepts(&ranges, w))
        .map(ToString::to_string)
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some(Rejection::at_header(
        RefusalStatus::NotAcceptable,
        Code::HttpAccept,
        "Accept",
        format!(
            "a {} to the MCP endpoint must accept {}; the Accept header (absent, malformed or too narrow) does not allow {}; refused",
            view.method,
            wanted
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" and "),
            missing.join(" and ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_ranges_rank_by_specificity() {
        let json = mime::APPLICATION_JSON;
        let sse = mime::TEXT_EVENT_STREAM;
        let r = |s: &str| ranges(s).unwrap();
        assert!(accepts(&r("application/json, text/event-stream"), &sse));
        assert!(accepts(&r("*/*"), &json));
        assert!(accepts(&r("application/*;q=0.5"), &json));
        assert!(!accepts(&r("application/json;q=0, */*"), &json));
        assert!(accepts(&r("application/json;q=0, */*"), &sse));
        assert!(!accepts(&r("text/html"), &sse));
        assert!(!accepts(&[], &sse));
        assert!(ranges("application/json, ???").is_none());
    }
}
