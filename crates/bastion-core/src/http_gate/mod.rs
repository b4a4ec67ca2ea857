//! The HTTP listener gate: the pure decision the Streamable HTTP listener (`serve`)
//! makes for every request before any JSON-RPC processing (issue 8 §2; DESIGN §2).
//!
//! [`decide`] takes a [`ListenerPolicy`] and an [`HttpRequestView`] (method, target,
//! field lines with duplicates kept, body bytes seen so far) and returns an
//! [`HttpDecision`]: allow, or refuse with an HTTP status, a stable reason (a finding
//! [`Code`]) and the findings. It is called once on the request line and headers
//! ([`BodySeen::NotRead`], nothing buffered yet), then on each body prefix while reading
//! and on the complete body; a refusal on any call ends the request.
//!
//! Every rule is evaluated and reported; the status is that of the first refusal in
//! this order:
//!
//! | # | rule | status | code |
//! |---|---|---|---|
//! | 1 | declared length, or bytes seen, above the cap (`max_host_frame_bytes`): first, so nothing more of an oversize request is read | 413 | `http_body_too_large` |
//! | 2 | a single-valued field (`Host`, `Origin`, `Content-Length`, `Transfer-Encoding`, `Content-Type`, `Authorization`, `MCP-Protocol-Version`, `Mcp-Session-Id`, `Mcp-Method`, `Mcp-Name`) repeated | 400 | `http_duplicate_header` |
//! | 3 | `Host` absent or malformed (400), or not an allowed host/port (403; DNS rebinding: a foreign name is refused even from loopback) | 400/403 | `http_host_not_allowed` |
//! | 4 | `Origin` present and not an allowed origin (`null` never is) | 403 | `http_origin_not_allowed` |
//! | 5 | bearer token missing or wrong (SHA-256, constant-time compare) | 401 | `http_unauthorized` |
//! | 6 | target path is not the MCP endpoint | 404 | `http_not_found` |
//! | 7 | method other than `POST`, `GET`, `DELETE` | 405 | `http_method` |
//! | 8 | `Mcp-Session-Id` not 1-256 visible ASCII characters; `Transfer-Encoding` other than `chunked`, or with `Content-Length`; a malformed `Content-Length`; a body longer or (complete) shorter than declared | 400 | `http_malformed_header` |
//! | 9 | POST with neither `Content-Length` nor chunked coding, body not yet complete (HTTP/1.1) | 411 | `http_length_required` |
//! | 10 | POST `Content-Type` not `application/json` (charset UTF-8 if given) | 415 | `http_content_type` |
//! | 11 | POST `Accept` not allowing `application/json` and `text/event-stream`; GET not allowing `text/event-stream` | 406 | `http_accept` |
//! | 12 | `MCP-Protocol-Version` unsupported, or not equal to the body's `_meta` protocol version (or `initialize` `protocolVersion`) | 400 | `http_protocol_version_mismatch` |
//! | 13 | `Mcp-Method` / `Mcp-Name` not mirroring the body's `method` / `params.name` (`params.uri`) | 400 | `http_header_mismatch` |
//!
//! Sources: MCP 2025-11-25 Transports §Streamable HTTP (Security Warning: validate
//! `Origin`, 403 when invalid; bind to localhost; authenticate; Sending Messages;
//! Listening; Session Management: `DELETE` ends a session; Protocol Version Header); MCP
//! 2026-07-28 Streamable HTTP (header/body agreement); RFC 9110, RFC 9112, RFC 6454,
//! RFC 6750. What this does not do: CORS preflight (`OPTIONS` is 405), session-id
//! validity (the session layer's), and JSON-RPC checks of the body (the `message`
//! pipeline's, after this gate).
//!
//! # Listener integration (`serve`)
//! 1. Build the [`ListenerPolicy`] once: [`ListenerPolicy::new`] with the bound address,
//!    the stored token's digest ([`token_digest`]) and `[limits]`; add configured hosts
//!    and origins.
//! 2. On each request, after the head is parsed and before reading the body: [`decide`]
//!    with [`BodySeen::NotRead`]. A refusal is answered with its status (and `Connection:
//!    close`, the body unread).
//! 3. Read the body in chunks into one buffer; after each chunk call [`decide_body`]
//!    (the body's rules only: the head already passed) with [`BodySeen::Prefix`] (stops a
//!    chunked or lying body at the cap), then once with [`BodySeen::Complete`]. Only then
//!    hand the body to the JSON-RPC pipeline.
//! 4. Record the refusal reason and findings in the audit log (no header values).

mod auth;
mod authority;
mod check;
mod framing;
mod header_value;
mod media;
mod param_headers;
mod policy;
mod request;

#[cfg(test)]
mod tests;
mod version;

pub use check::{HttpInputError, check_http_request};
pub use header_value::{
    HeaderValueError, SENTINEL_PREFIX, SENTINEL_SUFFIX, decode_header_value, encode_header_value,
};
pub use param_headers::param_header_findings;
pub use policy::{
    DEFAULT_CHECK_PORT, DEFAULT_ENDPOINT, ListenerPolicy, ListenerPolicyError, token_digest,
};
pub use request::{BodySeen, HttpRequestView};

use crate::finding::{Code, Finding, Severity, Verdict};

/// The HTTP status of a refusal (RFC 9110 §15.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RefusalStatus {
    /// 400: malformed, ambiguous or inconsistent request.
    BadRequest,
    /// 401: no or wrong bearer token.
    Unauthorized,
    /// 403: foreign `Host` or `Origin`.
    Forbidden,
    /// 404: not the MCP endpoint.
    NotFound,
    /// 405: method not served.
    MethodNotAllowed,
    /// 406: `Accept` does not allow the response types.
    NotAcceptable,
    /// 411: POST without a delimited body.
    LengthRequired,
    /// 413: body above the cap.
    PayloadTooLarge,
    /// 415: body not `application/json`.
    UnsupportedMediaType,
}

impl RefusalStatus {
    /// The status code (400 ... 415).
    pub const fn code(self) -> u16 {
        match self {
            Self::BadRequest => 400,
            Self::Unauthorized => 401,
            Self::Forbidden => 403,
            Self::NotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::NotAcceptable => 406,
            Self::LengthRequired => 411,
            Self::PayloadTooLarge => 413,
            Self::UnsupportedMediaType => 415,
        }
    }

    /// The reason phrase (RFC 9110 §15.5).
    pub const fn reason_phrase(self) -> &'static str {
        match self {
            Self::BadRequest => "Bad Request",
            Self::Unauthorized => "Unauthorized",
            Self::Forbidden => "Forbidden",
            Self::NotFound => "Not Found",
            Self::MethodNotAllowed => "Method Not Allowed",
            Self::NotAcceptable => "Not Acceptable",
            Self::LengthRequired => "Length Required",
            Self::PayloadTooLarge => "Content Too Large",
            Self::UnsupportedMediaType => "Unsupported Media Type",
        }
    }
}

/// One refused rule: its status and finding.
#[derive(Debug, Clone)]
pub(crate) struct Rejection {
    pub(crate) status: RefusalStatus,
    pub(crate) finding: Finding,
}

impl Rejection {
    /// A `high` finding at `path` (a JSON Pointer into the `check http-request` input).
    pub(crate) fn new(status: RefusalStatus, code: Code, path: &str, message: String) -> Self {
        Self {
            status,
            finding: Finding::new(code, Severity::High, path, message),
        }
    }

    /// A `high` finding about the field `header` (path `/headers/<name>`).
    pub(crate) fn at_header(
        status: RefusalStatus,
        code: Code,
        header: &str,
        message: String,
    ) -> Self {
        Self::new(
            status,
            code,
            &crate::finding::pointer_push("/headers", header),
            message,
        )
    }
}

/// Why a request is refused: the status to answer and the stable reason (the code of the
/// first refused rule in the table of [`crate::http_gate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status to answer.
    pub status: RefusalStatus,
    /// The stable reason code.
    pub reason: Code,
}

/// The gate's answer for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpDecision {
    /// `None`: allowed (so far: a later call with more body may still refuse).
    pub refusal: Option<Refusal>,
    /// Every refused rule, in table order (each `high`).
    pub findings: Vec<Finding>,
}

impl HttpDecision {
    /// `true` when nothing was refused.
    pub const fn is_allowed(&self) -> bool {
        self.refusal.is_none()
    }

    /// `block` when refused, else `allow`.
    pub fn verdict(&self) -> Verdict {
        Verdict::from_findings(&self.findings, false)
    }
}

/// The methods of the MCP endpoint: POST (messages), GET (the server's event stream),
/// DELETE (session end).
pub const ALLOWED_METHODS: &[&str] = &["POST", "GET", "DELETE"];

fn check_target(view: &HttpRequestView<'_>, endpoint: &str) -> Option<Rejection> {
    // The endpoint is a normalized path (`ListenerPolicy::with_endpoint`: no dot
    // segments, no escapes), so a target equal to it resolves to it: no parse needed.
    if view.target == endpoint {
        return None;
    }
    // Origin-form only (RFC 9112 §3.2.1); the path is read by the URL parser against a
    // fixed base, so dot segments and escapes resolve as any URL user would read them.
    let base = url::Url::parse("http://listener.invalid/").ok()?;
    let path_ok = view.target.starts_with('/')
        && !view.target.starts_with("//")
        && base
            .join(view.target)
            .is_ok_and(|u| u.path() == endpoint && u.host_str() == Some("listener.invalid"));
    if path_ok {
        return None;
    }
    let shown = request::shown(view.target.as_bytes());
    Some(Rejection::new(
        RefusalStatus::NotFound,
        Code::HttpNotFound,
        "/path",
        format!("`{shown}` is not the MCP endpoint `{endpoint}`; refused"),
    ))
}

fn check_method(view: &HttpRequestView<'_>) -> Option<Rejection> {
    if ALLOWED_METHODS.contains(&view.method) {
        return None;
    }
    let shown = request::shown(view.method.as_bytes());
    Some(Rejection::new(
        RefusalStatus::MethodNotAllowed,
        Code::HttpMethod,
        "/method",
        format!("method `{shown}` is not served at the MCP endpoint (POST, GET, DELETE); refused"),
    ))
}

/// Decides one request (see the module table). Pure and cheap: call it on the headers
/// before reading the body, and again on every prefix and on the complete body.
pub fn decide(policy: &ListenerPolicy, view: &HttpRequestView<'_>) -> HttpDecision {
    let mut rejections = Vec::new();
    rejections.extend(framing::check_size(view, policy.max_body_bytes));
    request::check_duplicates(view, &mut rejections);
    rejections.extend(authority::check_host(view, &policy.hosts));
    rejections.extend(authority::check_origin(view, &policy.origins));
    rejections.extend(auth::check_auth(view, &policy.auth));
    rejections.extend(check_target(view, &policy.endpoint));
    rejections.extend(check_method(view));
    rejections.extend(request::check_session_id(view));
    framing::check_framing(view, &mut rejections);
    rejections.extend(media::check_content_type(view));
    rejections.extend(media::check_accept(view));
    version::check_version(view, policy.max_depth, None, &mut rejections);
    decision_of(rejections)
}

/// The rules of [`decide`] that read the body, for a request whose headers
/// [`decide`] already allowed (with [`BodySeen::NotRead`]): the declared and seen size,
/// the framing, and the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` comparison with
/// a complete body. Every other rule reads only the request line and the headers, so
/// for such a request this gives exactly what [`decide`] gives — without parsing
/// `Host`, `Origin`, the target or the media types again on every body chunk.
/// `parsed` is the complete body's strict parse (`json::parse_frame`) when the caller
/// already has it (it is then not parsed again); `None` parses it here when needed.
pub fn decide_body(
    policy: &ListenerPolicy,
    view: &HttpRequestView<'_>,
    parsed: Option<&serde_json::Map<String, serde_json::Value>>,
) -> HttpDecision {
    let mut rejections = Vec::new();
    rejections.extend(framing::check_size(view, policy.max_body_bytes));
    framing::check_framing(view, &mut rejections);
    version::check_version(view, policy.max_depth, parsed, &mut rejections);
    decision_of(rejections)
}

fn decision_of(rejections: Vec<Rejection>) -> HttpDecision {
    let refusal = rejections.first().map(|r| Refusal {
        status: r.status,
        reason: r.finding.code,
    });
    HttpDecision {
        refusal,
        findings: rejections.into_iter().map(|r| r.finding).collect(),
    }
}
