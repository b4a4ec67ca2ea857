//! RFC 8785 (JSON Canonicalization Scheme, JCS) canonical form and SHA-256 digests.
//!
//! The canonical text is what a pin hashes: object members sorted by the UTF-16 code
//! units of their names (RFC 8785 §3.2.3), no insignificant whitespace (§3.2.1), strings
//! escaped with the minimal JSON escapes and `\u00xx` for other C0 controls (§3.2.2.2),
//! numbers written as ECMAScript `Number.prototype.toString` writes an IEEE 754 double
//! (§3.2.2.3: `1E30` → `1e+30`, `4.50` → `4.5`, `-0` → `0`).
//!
//! The serializer is the `serde_json_canonicalizer` crate; the RFC's test vectors are pinned
//! in this module's tests. Numbers are IEEE 754 doubles by definition (RFC 8785 §3.2.2.3,
//! I-JSON, RFC 7493 §2.2): integers beyond ±2^53 are written as the nearest double, so
//! `9007199254740993` and `9007199254740992` canonicalize alike.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Deepest nesting [`canonical_json`] accepts (arrays and objects; a scalar at the top is
/// depth 0). Four times the default strict-parser limit (`Limits::max_depth`, 64), so
/// any message that passed the parser canonicalizes; deeper values are refused rather than
/// risking the serializer's recursion.
pub const MAX_CANONICAL_DEPTH: usize = 256;

/// Why a value has no RFC 8785 canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CanonicalError {
    /// A number is NaN or infinite: JSON and I-JSON have no such numbers (RFC 8785
    /// §3.2.2.3). A `serde_json::Value` only holds one when the `serde_json`
    /// feature `arbitrary_precision` is on (e.g. `1e400`).
    #[error("number at `{path}` is not finite; RFC 8785 canonical JSON has no NaN or Infinity")]
    NonFiniteNumber {
        /// RFC 6901 JSON Pointer to the number.
        path: String,
    },
    /// Nesting exceeds [`MAX_CANONICAL_DEPTH`].
    #[error("JSON nesting exceeds {limit} levels at `{path}`; refusing to canonicalize")]
    TooDeep {
        /// The limit that was exceeded.
        limit: usize,
        /// RFC 6901 JSON Pointer to the first value beyond the limit.
        path: String,
    },
    /// The serializer refused the value for another reason (duplicate member names or a
    /// raw value); carries its message.
    #[error("value cannot be canonicalized (RFC 8785): {0}")]
    Serializer(String),
}

/// The RFC 8785 canonical JSON text of `value` (UTF-8, no trailing newline).
///
/// Key order and whitespace of the text `value` was parsed from do not matter; every
/// member of every object is kept (nothing is dropped or defaulted).
///
/// # Errors
/// [`CanonicalError::TooDeep`] beyond [`MAX_CANONICAL_DEPTH`] levels,
/// [`CanonicalError::NonFiniteNumber`] for NaN or infinite numbers.
///
/// # Examples
/// ```
/// use bastion_core::pins::canonical_json;
/// let v: serde_json::Value = serde_json::from_str(r#"{ "b": 4.50, "a": [1E30, 2e-3] }"#).unwrap();
/// assert_eq!(canonical_json(&v).unwrap(), r#"{"a":[1e+30,0.002],"b":4.5}"#);
/// ```
pub fn canonical_json(value: &Value) -> Result<String, CanonicalError> {
    let mut path = Vec::new();
    check(value, 0, &mut path)?;
    serde_json_canonicalizer::to_string(value)
        .map_err(|e| CanonicalError::Serializer(e.to_string()))
}

/// SHA-256 of the RFC 8785 canonical JSON of a whole descriptor (every member:
/// `annotations`, `inputSchema`, `outputSchema`, `_meta`, `icons`, `title`, ...), as 64
/// lowercase hex digits. This is the pin of a tool, prompt, resource, resource template,
/// or (for a JSON string) the server's `instructions` (issue 3 §1).
///
/// # Errors
/// As [`canonical_json`].
pub fn descriptor_hash(value: &Value) -> Result<String, CanonicalError> {
    canonical_json(value).map(|text| sha256_hex(text.as_bytes()))
}

/// SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    // Encoded into a fixed buffer: `hex::encode` collects the digits one `char` at a
    // time, which cost more than hashing a small frame with SHA extensions.
    let digest = Sha256::digest(bytes);
    let mut out = [0u8; 64];
    hex::encode_to_slice(digest, &mut out)
        .ok()
        .and_then(|()| String::from_utf8(out.to_vec()).ok())
        .unwrap_or_else(|| hex::encode(digest))
}

/// Path segments of the value being checked, for error pointers.
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn pointer(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => out = crate::finding::pointer_push(&out, k),
            Seg::Index(i) => out = crate::finding::pointer_push(&out, &i.to_string()),
        }
    }
    out
}

/// Depth and number checks before serializing; recursion is bounded by the depth limit.
fn check<'a>(
    value: &'a Value,
    depth: usize,
    path: &mut Vec<Seg<'a>>,
) -> Result<(), CanonicalError> {
    match value {
        Value::Number(n) => {
            if n.as_f64().is_some_and(f64::is_finite) {
                Ok(())
            } else {
                Err(CanonicalError::NonFiniteNumber {
                    path: pointer(path),
                })
            }
        }
        Value::Array(items) => {
            enter(depth, path)?;
            for (i, item) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                check(item, depth + 1, path)?;
                path.pop();
            }
            Ok(())
        }
        Value::Object(map) => {
            enter(depth, path)?;
            for (k, item) in map {
                path.push(Seg::Key(k));
                check(item, depth + 1, path)?;
                path.pop();
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::String(_) => Ok(()),
    }
}

fn enter(depth: usize, path: &[Seg<'_>]) -> Result<(), CanonicalError> {
    if depth >= MAX_CANONICAL_DEPTH {
        Err(CanonicalError::TooDeep {
            limit: MAX_CANONICAL_DEPTH,
            path: pointer(path),
        })
    } else {
        Ok(())
    }
}

/// Equality of two values as their canonical forms would compare: numbers by their IEEE
/// 754 double value (`1`, `1.0` and `1e0` are equal), objects regardless of member order.
pub(crate) fn canonical_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| canonical_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| canonical_eq(v, w)))
        }
        _ => a == b,
    }
}
