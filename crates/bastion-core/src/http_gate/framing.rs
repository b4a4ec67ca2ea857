//! Body framing and size: `Content-Length`, `Transfer-Encoding`, the body cap. Decided
//! on the headers alone (a declared length above the cap is refused before one body byte
//! is buffered) and again on every prefix the listener has read (a chunked body, or one
//! longer than declared, is refused as soon as it passes the cap).
//!
//! Sources: RFC 9112 §6.1-§6.3 (message body length; `Transfer-Encoding` with
//! `Content-Length` is a smuggling shape), RFC 9110 §8.6, §15.5.12 (411), §15.5.14 (413).

use super::request::{BodySeen, HttpRequestView, Lookup};
use super::{RefusalStatus, Rejection};
use crate::finding::Code;

/// Refuses (413) a declared length or a body seen so far above the cap `max` (bytes):
/// the first rule, so an oversize request is refused before anything else is read.
pub(crate) fn check_size(view: &HttpRequestView<'_>, max: u64) -> Option<Rejection> {
    if let Some(n) = view.declared_length().filter(|n| *n > max) {
        return Some(Rejection::new(
            RefusalStatus::PayloadTooLarge,
            Code::HttpBodyTooLarge,
            "/headers/Content-Length",
            format!(
                "the declared body of {n} bytes exceeds the limit of {max} bytes (max_host_frame_bytes); refused before reading it"
            ),
        ));
    }
    let seen = view.body.len() as u64;
    (seen > max).then(|| {
        Rejection::new(
            RefusalStatus::PayloadTooLarge,
            Code::HttpBodyTooLarge,
            body_path(view.body),
            format!(
                "the body grew past the limit of {max} bytes (max_host_frame_bytes) after {seen} bytes; refused without reading the rest"
            ),
        )
    })
}

fn body_path(body: BodySeen<'_>) -> &'static str {
    match body {
        BodySeen::Complete(_) => "/raw",
        _ => "/raw_prefix",
    }
}

/// Appends the framing refusals of `view` (400, 411): transfer coding, a malformed
/// `Content-Length`, a body that disagrees with it, a POST whose length is unknowable.
pub(crate) fn check_framing(view: &HttpRequestView<'_>, out: &mut Vec<Rejection>) {
    let length = view.header("content-length");
    let chunked = match view.header("transfer-encoding") {
        Lookup::Absent => false,
        Lookup::Many => return, // reported as a duplicate header
        Lookup::One(_) => {
            let ok = view
                .header_text("transfer-encoding")
                .is_some_and(|t| t.eq_ignore_ascii_case("chunked"));
            if !ok {
                out.push(Rejection::new(
                    RefusalStatus::BadRequest,
                    Code::HttpMalformedHeader,
                    "/headers/Transfer-Encoding",
                    "Transfer-Encoding other than a single `chunked` is not accepted; refused"
                        .into(),
                ));
                return;
            }
            true
        }
    };
    let declared = view.declared_length();
    match length {
        Lookup::Many => return,
        Lookup::One(_) if chunked => {
            out.push(Rejection::new(
                RefusalStatus::BadRequest,
                Code::HttpMalformedHeader,
                "/headers/Content-Length",
                "both Content-Length and Transfer-Encoding are present (RFC 9112 §6.3; request smuggling shape); refused".into(),
            ));
            return;
        }
        Lookup::One(value) if declared.is_none() => {
            out.push(Rejection::new(
                RefusalStatus::BadRequest,
                Code::HttpMalformedHeader,
                "/headers/Content-Length",
                format!(
                    "Content-Length `{}` is not a decimal number of bytes; refused",
                    super::request::shown(value)
                ),
            ));
            return;
        }
        // HTTP/1.1 (RFC 9112 §6.3): without either field a request body has length 0, so
        // a POST cannot carry its message; a listener that has the whole body (HTTP/2
        // END_STREAM) passes it complete and is not asked for a length.
        Lookup::Absent
            if !chunked && view.method == "POST" && !matches!(view.body, BodySeen::Complete(_)) =>
        {
            out.push(Rejection::new(
                RefusalStatus::LengthRequired,
                Code::HttpLengthRequired,
                "/headers/Content-Length",
                "a POST without Content-Length or chunked Transfer-Encoding has no delimited body; refused".into(),
            ));
            return;
        }
        _ => {}
    }
    let seen = view.body.len() as u64;
    let path = body_path(view.body);
    if let Some(n) = declared.filter(|n| seen > *n) {
        out.push(Rejection::new(
            RefusalStatus::BadRequest,
            Code::HttpMalformedHeader,
            path,
            format!(
                "the body has {seen} bytes, more than the declared Content-Length of {n}; refused"
            ),
        ));
    } else if let (Some(n), BodySeen::Complete(_)) = (declared, view.body)
        && seen < n
    {
        out.push(Rejection::new(
            RefusalStatus::BadRequest,
            Code::HttpMalformedHeader,
            path,
            format!("the body ended after {seen} bytes, short of the declared Content-Length of {n}; refused"),
        ));
    }
}
