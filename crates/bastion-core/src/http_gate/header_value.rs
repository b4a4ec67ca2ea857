//! The value encoding of the 2026-07-28 mirrored headers (`Mcp-Name`, `Mcp-Param-*`).
//!
//! Source: MCP 2026-07-28 Streamable HTTP, SEP-2243 "Value Encoding": a value made only
//! of printable ASCII (0x20–0x7E), without leading or trailing whitespace, is sent as it
//! is; any other value — non-ASCII, a control character, leading/trailing whitespace
//! (which HTTP would strip, RFC 9110 §5.5), or a plain value that itself looks like the
//! sentinel — is sent as `=?base64?{standard Base64 of its UTF-8 bytes}?=`. A receiver
//! that compares the header with the body decodes the sentinel form first.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::borrow::Cow;

/// Opening marker of the encoded form (lowercase, case-sensitive).
pub const SENTINEL_PREFIX: &str = "=?base64?";
/// Closing marker of the encoded form.
pub const SENTINEL_SUFFIX: &str = "?=";

/// Why an encoded header value could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderValueError {
    /// The text between the markers is not canonical, padded standard Base64.
    #[error("the =?base64?…?= value is not standard padded Base64")]
    Base64,
    /// The decoded bytes are not UTF-8.
    #[error("the =?base64?…?= value does not decode to UTF-8 text")]
    Utf8,
}

fn is_sentinel(value: &str) -> bool {
    value.len() >= SENTINEL_PREFIX.len() + SENTINEL_SUFFIX.len()
        && value.starts_with(SENTINEL_PREFIX)
        && value.ends_with(SENTINEL_SUFFIX)
}

/// `value` as an HTTP field value: borrowed when it may go as it is, else the sentinel
/// form. The result is always printable ASCII without surrounding whitespace, so it is a
/// valid field value and cannot inject CR/LF.
#[must_use]
pub fn encode_header_value(value: &str) -> Cow<'_, str> {
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !is_sentinel(value);
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            STANDARD.encode(value.as_bytes())
        ))
    }
}

/// The value a received field carries: the decoded text of the sentinel form, else the
/// field as it is.
///
/// # Errors
/// [`HeaderValueError`] when the field has the sentinel form but its payload is not
/// padded standard Base64 or not UTF-8 (a receiver refuses such a request rather than
/// compare the raw text).
pub fn decode_header_value(field: &str) -> Result<Cow<'_, str>, HeaderValueError> {
    if !is_sentinel(field) {
        return Ok(Cow::Borrowed(field));
    }
    let payload = &field[SENTINEL_PREFIX.len()..field.len() - SENTINEL_SUFFIX.len()];
    let bytes = STANDARD
        .decode(payload)
        .map_err(|_| HeaderValueError::Base64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| HeaderValueError::Utf8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_values_go_as_they_are_and_others_are_wrapped() {
        for plain in ["get_weather", "file:///tmp/a b.txt", "a?b=c", "=?base64?"] {
            assert_eq!(encode_header_value(plain), plain);
        }
        for (value, encoded) in [
            ("天気", "=?base64?5aSp5rCX?="),
            (" lead", "=?base64?IGxlYWQ=?="),
            ("trail ", "=?base64?dHJhaWwg?="),
            ("a\r\nX-Injected: 1", "=?base64?YQ0KWC1JbmplY3RlZDogMQ==?="),
            ("tab\there", "=?base64?dGFiCWhlcmU=?="),
            // A plain value wearing the markers is encoded, so decoding is unambiguous.
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(encode_header_value(value), encoded, "{value:?}");
            assert_eq!(decode_header_value(encoded).unwrap(), value);
        }
    }

    #[test]
    fn broken_sentinels_are_errors() {
        assert_eq!(
            decode_header_value("=?base64?not base64?="),
            Err(HeaderValueError::Base64)
        );
        // Unpadded and URL-safe forms are not the standard alphabet with padding.
        assert_eq!(
            decode_header_value("=?base64?IGxlYWQ?="),
            Err(HeaderValueError::Base64)
        );
        assert_eq!(
            decode_header_value("=?base64?_-8=?="),
            Err(HeaderValueError::Base64)
        );
        assert_eq!(
            decode_header_value("=?base64?/w==?="),
            Err(HeaderValueError::Utf8)
        );
        assert_eq!(decode_header_value("=?base64??=").unwrap(), "");
        // Markers of another case are not the sentinel.
        assert_eq!(
            decode_header_value("=?BASE64?YQ==?=").unwrap(),
            "=?BASE64?YQ==?="
        );
    }

    proptest! {
        #[test]
        fn encoding_round_trips_and_is_a_safe_field_value(value in any::<String>()) {
            let encoded = encode_header_value(&value);
            prop_assert!(encoded.bytes().all(|b| (0x20..=0x7e).contains(&b)));
            prop_assert_eq!(encoded.trim(), encoded.as_ref());
            prop_assert_eq!(decode_header_value(&encoded).unwrap(), value.as_str());
        }
    }
}
