//! JSON-RPC 2.0 envelope checks and classification (JSON-RPC 2.0 §4-§5; MCP 2025-11-25
//! "Base Protocol §Messages": ids are strings or integers and never null, requests and
//! notifications carry an object `params`, responses carry exactly one of
//! `result`/`error`).

use crate::json::Member;
use serde_json::{Map, Value};
use std::fmt;

/// A JSON-RPC request id: a string or an integer (MCP forbids `null` and fractions).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// Integer id (JSON numbers without fraction or exponent that fit in 128 bits).
    Int(i128),
    /// String id.
    Str(String),
}

impl Id {
    /// Reads an id from a JSON value; `None` for null, fractions, booleans, containers.
    pub fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::String(s) => Some(Self::Str(s.clone())),
            Value::Number(n) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
                .map(Self::Int),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Str(s) => Value::String(s.clone()),
            Self::Int(i) => i64::try_from(*i)
                .map(Value::from)
                .or_else(|_| u64::try_from(*i).map(Value::from))
                .unwrap_or(Value::Null),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// What kind of JSON-RPC message a frame is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A request: expects exactly one response with the same id.
    Request {
        /// Its id.
        id: Id,
        /// Its method.
        method: String,
    },
    /// A notification: no id, no response.
    Notification {
        /// Its method.
        method: String,
    },
    /// A successful response.
    Result {
        /// The id it answers.
        id: Id,
    },
    /// An error response. `id` is `None` for `"id": null` (the peer could not read ours).
    Error {
        /// The id it answers.
        id: Option<Id>,
        /// The error's `code`.
        code: i64,
    },
}

/// A JSON-RPC envelope violation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// `jsonrpc` missing or not exactly `"2.0"`.
    #[error("member \"jsonrpc\" must be exactly \"2.0\"")]
    Version,
    /// `method` not a non-empty string.
    #[error("member \"method\" must be a non-empty string")]
    Method,
    /// A request id is null, fractional or not a string/integer.
    #[error("request id must be a string or an integer")]
    RequestId,
    /// `params` present but not an object.
    #[error("member \"params\" must be an object")]
    Params,
    /// A request carries `result` or `error`.
    #[error("a request or notification must not carry \"result\" or \"error\"")]
    RequestWithOutcome,
    /// A response has neither or both of `result`/`error`.
    #[error("a response must carry exactly one of \"result\" and \"error\"")]
    Outcome,
    /// A response has no usable id.
    #[error("a response id must be a string, an integer or (for errors only) null")]
    ResponseId,
    /// `result` is not an object.
    #[error("member \"result\" must be an object")]
    ResultNotObject,
    /// `error` is not `{code: integer, message: string, data?}`.
    #[error("member \"error\" must be an object with an integer \"code\" and a string \"message\"")]
    ErrorObject,
}

/// Checks the envelope of a strictly parsed frame and classifies it.
///
/// # Errors
/// [`EnvelopeError`] for any violation of JSON-RPC 2.0 / MCP base-protocol rules.
pub fn classify(msg: &Map<String, Value>) -> Result<Kind, EnvelopeError> {
    if msg.member("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(EnvelopeError::Version);
    }
    if let Some(method) = msg.member("method") {
        let method = method
            .as_str()
            .filter(|m| !m.is_empty())
            .ok_or(EnvelopeError::Method)?;
        if msg.has_member("result") || msg.has_member("error") {
            return Err(EnvelopeError::RequestWithOutcome);
        }
        if msg.member("params").is_some_and(|p| !p.is_object()) {
            return Err(EnvelopeError::Params);
        }
        return match msg.member("id") {
            None => Ok(Kind::Notification {
                method: method.to_owned(),
            }),
            Some(id) => Ok(Kind::Request {
                id: Id::from_value(id).ok_or(EnvelopeError::RequestId)?,
                method: method.to_owned(),
            }),
        };
    }
    match (msg.member("result"), msg.member("error")) {
        (Some(result), None) => {
            let id = msg
                .member("id")
                .and_then(Id::from_value)
                .ok_or(EnvelopeError::ResponseId)?;
            if !result.is_object() {
                return Err(EnvelopeError::ResultNotObject);
            }
            Ok(Kind::Result { id })
        }
        (None, Some(error)) => {
            let id = match msg.member("id") {
                Some(Value::Null) => None,
                Some(v) => Some(Id::from_value(v).ok_or(EnvelopeError::ResponseId)?),
                None => return Err(EnvelopeError::ResponseId),
            };
            let code = error
                .member("code")
                .and_then(Value::as_i64)
                .filter(|_| error.member("message").is_some_and(Value::is_string))
                .ok_or(EnvelopeError::ErrorObject)?;
            Ok(Kind::Error { id, code })
        }
        _ => Err(EnvelopeError::Outcome),
    }
}

/// JSON-RPC 2.0 error codes used by Bastion (JSON-RPC 2.0 §5.1; DESIGN §4 for the
/// implementation-defined range -32099..-32000).
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Bastion refused by policy (`blocked_descriptor`, `pending_review`, `policy_denied`,
    /// `approval_*`). Not reserved by MCP in either era.
    pub const POLICY_REFUSED: i64 = -32051;
    /// The server's answer was rejected (`upstream_message_rejected`,
    /// `output_schema_mismatch`).
    pub const UPSTREAM_REJECTED: i64 = -32052;
    /// No answer in time (`request_timeout`).
    pub const REQUEST_TIMEOUT: i64 = -32053;
    /// The server is gone (`upstream_exited`).
    pub const UPSTREAM_UNAVAILABLE: i64 = -32054;
}

/// Most bytes of an error `message` Bastion writes; a longer one is cut on a character
/// boundary and ends with `…`. Messages quote what a peer sent (a schema library's report
/// of a bad value, a member name), and a peer chooses that length.
pub const MAX_ERROR_MESSAGE_BYTES: usize = 2048;

/// The member of an error's `data` that marks the error as one of mcp-bastion's own
/// refusals: [`error_response`] sets it to [`GATEWAY_MARK`] in every object `data`, and
/// the relay removes it (and every member name that folds onto it, see
/// [`strip_gateway_mark`]) from the errors servers send, so a host can tell a refusal by
/// its gateway from a server's error written to look like one (`-32051`,
/// `data.reason: "approval_denied"`).
pub const GATEWAY_MARK_MEMBER: &str = "gateway";

/// The value of [`GATEWAY_MARK_MEMBER`] in mcp-bastion's own errors.
pub const GATEWAY_MARK: &str = "mcp-bastion";

/// Removes from a JSON-RPC `error` object (the member's value, not the whole frame) every
/// member named [`GATEWAY_MARK_MEMBER`], or a name that folds onto it
/// ([`crate::json::fold_key`]: `Gateway`, `GATEWAY`, a fullwidth or accented spelling),
/// from every object member of `error` whose name is `data` or folds onto it (`Data`:
/// the strict parser lets a lone case variant of `data` through, and lenient decoders
/// read it as `data`). Returns how many were removed; `error` is unchanged when it has
/// no such member.
pub fn strip_gateway_mark(error: &mut Value) -> usize {
    let Some(error) = error.as_object_mut() else {
        return 0;
    };
    let mut removed = 0;
    for (name, data) in error.iter_mut() {
        if crate::json::fold_key(name) != "data" {
            continue;
        }
        if let Some(data) = data.as_object_mut() {
            let before = data.len();
            data.retain(|member, _| crate::json::fold_key(member) != GATEWAY_MARK_MEMBER);
            removed += before - data.len();
        }
    }
    removed
}

/// Marks `data` as the data of one of mcp-bastion's own errors: an object gets
/// [`GATEWAY_MARK_MEMBER`]: [`GATEWAY_MARK`] (replacing any member of that name); other
/// values are left as they are. [`error_response`] does this for every error it builds;
/// errors Bastion builds another way (an error object that replaces a server's) call it.
pub fn mark_data(data: &mut Value) {
    if let Some(obj) = data.as_object_mut() {
        obj.insert(GATEWAY_MARK_MEMBER.into(), GATEWAY_MARK.into());
    }
}

/// Builds a JSON-RPC error response frame (no trailing newline). `data` carries
/// `{"reason": ..., "server": ..., ...}` per DESIGN §4; an object `data` is also marked
/// as Bastion's ([`mark_data`]).
///
/// Bastion's own messages often quote what a peer sent (the value a typed view or a
/// schema rejected, a member name), and hosts show error messages to the user, so
/// `message` and every string in `data` are passed through
/// [`crate::unicode::escape_for_display`]: terminal escapes, other controls, bidi,
/// zero-width, tag and private-use characters become `<U+XXXX>`; `message` is then cut
/// to [`MAX_ERROR_MESSAGE_BYTES`].
pub fn error_response(id: Option<&Value>, code: i64, message: &str, mut data: Value) -> Vec<u8> {
    let mut err = Map::new();
    err.insert("code".into(), code.into());
    err.insert("message".into(), shown_message(message).into());
    if !data.is_null() {
        escape_strings(&mut data);
        mark_data(&mut data);
        err.insert("data".into(), data);
    }
    let mut out = Map::new();
    out.insert("jsonrpc".into(), "2.0".into());
    out.insert("id".into(), id.cloned().unwrap_or(Value::Null));
    out.insert("error".into(), Value::Object(err));
    serde_json::to_vec(&Value::Object(out)).unwrap_or_default()
}

/// `message` as [`error_response`] writes it: escaped for display, cut to
/// [`MAX_ERROR_MESSAGE_BYTES`].
fn shown_message(message: &str) -> String {
    let shown = crate::unicode::escape_for_display(message);
    if shown.len() <= MAX_ERROR_MESSAGE_BYTES {
        return shown.into_owned();
    }
    let mut cut = MAX_ERROR_MESSAGE_BYTES - '…'.len_utf8();
    while !shown.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &shown[..cut])
}

/// Escapes every string in `v` (member names included) for display.
fn escape_strings(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(e) = crate::unicode::escape_for_display(s) {
                *s = e;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(escape_strings),
        Value::Object(map) => {
            let dirty = map.keys().any(|k| {
                matches!(
                    crate::unicode::escape_for_display(k),
                    std::borrow::Cow::Owned(_)
                )
            });
            if dirty {
                let old = std::mem::take(map);
                for (k, mut item) in old {
                    escape_strings(&mut item);
                    map.insert(crate::unicode::escape_for_display(&k).into_owned(), item);
                }
            } else {
                map.values_mut().for_each(escape_strings);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
