//! Strict JSON for the wire: RFC 8259 text, parsed with `serde_json`'s tokenizer through
//! our own `serde` visitor that refuses what a lenient decoder would silently accept.
//!
//! Refused, each with its own [`ParseError`] and finding code:
//! - bytes that are not UTF-8 (RFC 8259 §8.1);
//! - `\u` escapes of unpaired UTF-16 surrogates (RFC 8259 §8.2);
//! - anything but whitespace after the value (a NUL and a second object included);
//! - nesting deeper than `max_depth` (the top-level object is depth 1), refused while
//!   descending so hostile depth never reaches the stack;
//! - duplicate member names (RFC 8259 §4 leaves them undefined; RFC 7493 I-JSON forbids
//!   them), and in the envelope and in `params`/`result`/`error` names equal up to
//!   NFKC + Unicode case folding (`name`/`Name`) (deeper, the objects MCP defines are
//!   checked for such twins by [`crate::methods`], which knows where they are);
//! - member names that are not a JSON-RPC/MCP protocol member but fold onto one
//!   (`Method`, `param` + U+017F LATIN SMALL LONG S), and non-ASCII names in protocol
//!   objects that fold to ASCII (U+212A KELVIN SIGN + `ind`);
//! - top-level arrays (JSON-RPC batches, not used by MCP) and non-objects.
//!
//! The parse also remembers the top-level `id` as soon as it has been read, so a frame
//! that fails later (too deep, duplicate key further on, truncated) can still be
//! answered: see [`Rejected::id`]. When the failure comes before the `id` in a frame
//! that is still well-formed JSON (a duplicate or look-alike member name), the `id` is
//! read from the rest of the frame without any of these rules.

mod fold;
mod member;
mod visitor;

pub use fold::{PROTOCOL_MEMBERS, fold_key};
pub use member::Member;

use crate::finding::Code;
use serde::de::DeserializeSeed;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Why a frame was refused by the strict parser.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseError {
    /// The bytes are not UTF-8; `offset` is the first bad byte.
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// Not a JSON text (or truncated).
    Syntax {
        /// What the tokenizer reported (line and column included).
        detail: String,
    },
    /// Something other than whitespace follows the value.
    TrailingData {
        /// What the tokenizer reported.
        detail: String,
    },
    /// A `\u` escape encodes an unpaired surrogate.
    InvalidSurrogate {
        /// What the tokenizer reported.
        detail: String,
    },
    /// Nesting deeper than the limit.
    MaxDepth {
        /// The configured limit.
        limit: usize,
    },
    /// An object repeats a member name, exactly or up to case folding.
    DuplicateKey {
        /// JSON Pointer of the object.
        path: String,
        /// The repeated (second) name.
        name: String,
        /// The earlier name it collides with.
        earlier: String,
    },
    /// A member name is a look-alike of a protocol member.
    ConfusableMember {
        /// JSON Pointer of the object.
        path: String,
        /// The offending name.
        name: String,
        /// What it folds to.
        folds_to: String,
    },
    /// A member name contains a control character (e.g. NUL).
    ControlInMemberName {
        /// JSON Pointer of the object.
        path: String,
        /// The offending name.
        name: String,
    },
    /// The top-level value is an array (a JSON-RPC batch).
    Batch,
    /// The top-level value is not an object.
    NotAnObject,
}

impl ParseError {
    /// The finding code for this error.
    pub const fn code(&self) -> Code {
        match self {
            Self::InvalidUtf8 { .. } => Code::InvalidUtf8,
            Self::Syntax { .. } => Code::InvalidJson,
            Self::TrailingData { .. } => Code::TrailingData,
            Self::InvalidSurrogate { .. } => Code::InvalidSurrogate,
            Self::MaxDepth { .. } => Code::MaxDepthExceeded,
            Self::DuplicateKey { .. } => Code::DuplicateKey,
            Self::ConfusableMember { .. } | Self::ControlInMemberName { .. } => {
                Code::ConfusableMember
            }
            Self::Batch => Code::BatchNotSupported,
            Self::NotAnObject => Code::NotAnObject,
        }
    }

    /// JSON Pointer of the offending place, when known.
    pub fn path(&self) -> &str {
        match self {
            Self::DuplicateKey { path, .. }
            | Self::ConfusableMember { path, .. }
            | Self::ControlInMemberName { path, .. } => path,
            _ => "",
        }
    }

    /// `true` when the text is not JSON at all (JSON-RPC -32700 Parse error); `false`
    /// when it is JSON we refuse (JSON-RPC -32600 Invalid Request).
    pub const fn is_parse_error(&self) -> bool {
        matches!(
            self,
            Self::InvalidUtf8 { .. }
                | Self::Syntax { .. }
                | Self::TrailingData { .. }
                | Self::InvalidSurrogate { .. }
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUtf8 { offset } => write!(
                f,
                "frame is not valid UTF-8 (first bad byte at offset {offset})"
            ),
            Self::Syntax { detail } => write!(f, "frame is not valid JSON: {detail}"),
            Self::TrailingData { detail } => {
                write!(f, "data follows the JSON value in the frame: {detail}")
            }
            Self::InvalidSurrogate { detail } => {
                write!(f, "a \\u escape encodes an unpaired surrogate: {detail}")
            }
            Self::MaxDepth { limit } => {
                write!(f, "JSON nesting is deeper than the limit of {limit}")
            }
            Self::DuplicateKey {
                path,
                name,
                earlier,
            } => {
                if name == earlier {
                    write!(f, "object at '{path}' repeats member name {name:?}")
                } else {
                    write!(
                        f,
                        "object at '{path}' has member names {earlier:?} and {name:?} that differ only by case"
                    )
                }
            }
            Self::ConfusableMember {
                path,
                name,
                folds_to,
            } => write!(
                f,
                "member name {} at '{path}' is a look-alike of protocol member {folds_to:?}",
                crate::unicode::escape_for_display(name)
            ),
            Self::ControlInMemberName { path, name } => write!(
                f,
                "member name {} at '{path}' contains a control character",
                crate::unicode::escape_for_display(name)
            ),
            Self::Batch => f.write_str("JSON-RPC batches (top-level arrays) are not accepted"),
            Self::NotAnObject => f.write_str("a JSON-RPC message must be a JSON object"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A refused frame: the error and, when it was read before the failure, the top-level
/// `id` (so the sender can still be answered).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// Why.
    pub error: ParseError,
    /// The top-level `id` member, if it was parsed before the failure.
    pub id: Option<Value>,
    /// `true` when a top-level `method` member was read before the failure (the frame
    /// is a request or notification, not a response).
    pub method_seen: bool,
}

/// Strict parse of one frame into its top-level object.
///
/// `max_depth` counts the top-level object as 1 (DESIGN §5 `max_depth`).
///
/// # Errors
/// [`Rejected`] for every input the module docs list as refused.
// The error path is the rare one (a refused frame): keep `Ok` unboxed and cheap.
#[allow(clippy::result_large_err)]
pub fn parse_frame(bytes: &[u8], max_depth: usize) -> Result<Map<String, Value>, Rejected> {
    let text = std::str::from_utf8(bytes).map_err(|e| Rejected {
        error: ParseError::InvalidUtf8 {
            offset: e.valid_up_to(),
        },
        id: None,
        method_seen: false,
    })?;
    let ctx = RefCell::new(visitor::Ctx::new(max_depth));
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = visitor::ValueSeed::envelope(&ctx);
    let result = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    let ctx = ctx.into_inner();
    match result {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Rejected {
            error: ParseError::NotAnObject,
            id: None,
            method_seen: false,
        }),
        Err(e) => {
            let error = ctx.error.unwrap_or_else(|| classify(&e, max_depth));
            let (id, method_seen) = match (ctx.top_id, &error) {
                (Some(id), _) => (Some(id), ctx.method_seen),
                (None, ParseError::DuplicateKey { .. } | ParseError::ConfusableMember { .. }) => {
                    let top = lenient_top(text);
                    (top.id, ctx.method_seen || top.method_seen)
                }
                (None, _) => (None, ctx.method_seen),
            };
            Err(Rejected {
                error,
                id,
                method_seen,
            })
        }
    }
}

/// The top-level `id` and `method` presence of a well-formed JSON object, read without
/// the strict rules (for a frame refused before its `id`): `id` only when the object has
/// exactly one member named `id`, holding neither an object nor an array. Nothing when
/// `text` is not a well-formed JSON object.
fn lenient_top(text: &str) -> Recovered {
    struct Top;
    impl<'de> serde::de::Visitor<'de> for Top {
        type Value = Recovered;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Recovered, A::Error> {
            let mut found = Recovered::default();
            let mut ids = 0usize;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match key.as_ref() {
                    "id" => {
                        ids += 1;
                        let v: Value = map.next_value()?;
                        found.id = Some(v).filter(|v| !v.is_object() && !v.is_array());
                    }
                    "method" => {
                        found.method_seen = true;
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                    _ => {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
            }
            if ids != 1 {
                found.id = None;
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserializer::deserialize_map(&mut de, Top)
        .ok()
        .filter(|_| de.end().is_ok())
        .unwrap_or_default()
}

/// Strict parse of any JSON text (not only envelopes), with the same duplicate, depth
/// and UTF-8 rules but no protocol-member rules. Used for `check` inputs and fixtures.
///
/// # Errors
/// [`ParseError`] as for [`parse_frame`], except `Batch`/`NotAnObject`.
pub fn parse_value(bytes: &[u8], max_depth: usize) -> Result<Value, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::InvalidUtf8 {
        offset: e.valid_up_to(),
    })?;
    let ctx = RefCell::new(visitor::Ctx::new(max_depth));
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = visitor::ValueSeed::data(&ctx);
    let result = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    let ctx = ctx.into_inner();
    result.map_err(|e| ctx.error.unwrap_or_else(|| classify(&e, max_depth)))
}

/// What can be read from a refused frame or from the first bytes of one (an oversized or
/// truncated frame): its top-level `id`, and whether a top-level `method` member was
/// seen (then it is a request or notification, not a response).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recovered {
    /// The top-level `id` (a string or number), when it could be read.
    pub id: Option<Value>,
    /// `true` when a top-level `method` member name was read.
    pub method_seen: bool,
}

/// Recovers the `id` and the presence of `method` from `prefix` (see [`Recovered`]).
pub fn recover(prefix: &[u8]) -> Recovered {
    match parse_frame(prefix, usize::MAX) {
        Ok(map) => Recovered {
            id: map
                .get("id")
                .filter(|v| !v.is_object() && !v.is_array())
                .cloned(),
            method_seen: map.contains_key("method"),
        },
        Err(rejected) => Recovered {
            id: rejected.id,
            method_seen: rejected.method_seen,
        },
    }
}

fn classify(e: &serde_json::Error, max_depth: usize) -> ParseError {
    let detail = e.to_string();
    if detail.contains("recursion limit") {
        ParseError::MaxDepth { limit: max_depth }
    } else if detail.contains("surrogate") || detail.contains("end of hex escape") {
        ParseError::InvalidSurrogate { detail }
    } else if detail.contains("trailing characters") {
        ParseError::TrailingData { detail }
    } else {
        ParseError::Syntax { detail }
    }
}

#[cfg(test)]
mod tests;
