//! Binary result content: `image` and `audio` content blocks (`{type, data, mimeType}`,
//! MCP 2025-11-25 "Tools §Tool Result") and `BlobResourceContents` (`{uri, mimeType?,
//! blob}`, "Resources §Resource Contents"), alone or embedded in a `resource` block.
//!
//! Checks, cheapest first: the declared MIME type (present for image/audio, a valid
//! RFC 9110 §8.3.1 `type/subtype`, of the block's top-level type, allowlisted, SVG only
//! when [`ContentPolicy::allow_svg`]); the decoded size, computed from the encoded length
//! (`len / 4 * 3 - padding`), against `max_binary_bytes`; then the data is validated as
//! standard base64 with required, canonical padding (RFC 4648 §4, §3.2, §3.5) by decoding
//! it in chunks into one small stack buffer, never into a copy of the whole; only its
//! first 16 bytes are kept and matched against the image signatures of the
//! WHATWG MIME Sniffing Standard §6.1 (PNG, JPEG, GIF, WebP) and its markup patterns
//! (§7.1: HTML, XML and SVG start with `<` after optional whitespace or a byte-order
//! mark). `text/*` blobs are decoded whole (they are text for the host, and get the full
//! text treatment in the caller) and must be UTF-8.

use crate::sanitize::ContentPolicy;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use base64::{DecodeError, DecodeSliceError};

/// MIME types (essence, case-insensitive) that image, audio and blob content may declare
/// when [`ContentPolicy::mime_allowlist`] is empty. `text/*` matches every `text/`
/// subtype. Image blocks must declare an `image/` type and audio blocks an `audio/` type
/// of this list; blobs may declare any of them (a blob without `mimeType` counts as
/// `application/octet-stream`). `image/svg+xml` is governed by
/// [`ContentPolicy::allow_svg`], not by this list.
pub const DEFAULT_MIME_ALLOWLIST: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "audio/wav",
    "audio/x-wav",
    "audio/mpeg",
    "audio/mp3",
    "audio/ogg",
    "audio/webm",
    "application/octet-stream",
    "application/pdf",
    "application/gzip",
    "application/zip",
    "text/*",
];

/// How many decoded bytes are kept for sniffing.
pub(crate) const SNIFF_BYTES: usize = 16;

/// Encoded characters decoded per step (a multiple of 4): 12 KiB of output on the stack.
const CHUNK: usize = 16 * 1024;

/// The MIME type of SVG, which renders like HTML (scripts, event handlers).
const SVG: &str = "image/svg+xml";

/// Which kind of binary content is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An `image` content block.
    Image,
    /// An `audio` content block.
    Audio,
    /// `BlobResourceContents`.
    Blob,
}

impl Kind {
    /// The noun used in markers and findings (`removed an image`).
    pub(crate) const fn noun(self) -> &'static str {
        match self {
            Self::Image => "an image",
            Self::Audio => "an audio clip",
            Self::Blob => "a binary resource",
        }
    }
}

/// Content that passed.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Accepted {
    /// Worth recording, but harmless: an image whose bytes are another raster format than
    /// declared.
    pub(crate) note: Option<String>,
    /// A `text/*` blob, decoded: the caller sanitizes it as text of MIME type `mime`.
    pub(crate) text: Option<String>,
    /// The essence of the declared (or implied) MIME type, lowercase.
    pub(crate) mime: String,
}

/// Checks one binary content item: `data` is the `data`/`blob` member, `mime` the
/// `mimeType` member (absent is allowed for blobs only). `Err` holds the reason for the
/// marker that replaces the item (`invalid base64 …`, `… exceeds max_binary_bytes`).
pub(crate) fn inspect(
    kind: Kind,
    data: Option<&serde_json::Value>,
    mime: Option<&serde_json::Value>,
    policy: &ContentPolicy,
    max_bytes: usize,
) -> Result<Accepted, String> {
    let essence = match (mime, kind) {
        (None, Kind::Blob) => "application/octet-stream".to_owned(),
        (None, _) => return Err("no mimeType".to_owned()),
        (Some(m), _) => {
            let m = m.as_str().ok_or("mimeType is not a string")?;
            essence(m).ok_or("mimeType is not a MIME type (type/subtype)")?
        }
    };
    let top = essence.split('/').next().unwrap_or_default();
    match kind {
        Kind::Image if top != "image" => return Err(format!("declared {essence}, not image/…")),
        Kind::Audio if top != "audio" => return Err(format!("declared {essence}, not audio/…")),
        _ => {}
    }
    let svg = essence == SVG;
    if svg && !policy.allow_svg {
        return Err(format!(
            "{essence} can carry scripts and event handlers (allow_svg = false)"
        ));
    }
    if !svg && !allowed(&essence, policy) {
        return Err(format!("{essence} is not in the MIME allowlist"));
    }
    let data = data
        .ok_or("no base64 data")?
        .as_str()
        .ok_or("the base64 data is not a string")?
        .as_bytes();
    let padding = data
        .iter()
        .rev()
        .take(2)
        .take_while(|&&b| b == b'=')
        .count();
    let decoded = (data.len() / 4 * 3).saturating_sub(padding);
    if decoded > max_bytes {
        return Err(format!(
            "{decoded} bytes exceed max_binary_bytes ({max_bytes})"
        ));
    }
    if data.len() % 4 != 0 {
        return Err(format!(
            "invalid base64 (RFC 4648 §4): {} characters, not a multiple of 4 (padding is required)",
            data.len()
        ));
    }
    let text = kind == Kind::Blob && top == "text";
    let mut accepted = Accepted {
        mime: essence,
        ..Accepted::default()
    };
    let mut head = [0u8; SNIFF_BYTES];
    let head_len = if text {
        let bytes = STANDARD
            .decode(data)
            .map_err(|e| describe(&DecodeSliceError::DecodeError(e), 0))?;
        let n = bytes.len().min(SNIFF_BYTES);
        head[..n].copy_from_slice(&bytes[..n]);
        accepted.text = Some(
            String::from_utf8(bytes)
                .map_err(|_| format!("the {} blob is not valid UTF-8", accepted.mime))?,
        );
        n
    } else {
        validate(data, &mut head)?
    };
    let head = &head[..head_len];
    if svg || text || kind == Kind::Blob {
        return Ok(accepted);
    }
    if looks_like_markup(head) {
        return Err(format!(
            "declared {} but the data is markup (HTML, XML or SVG)",
            accepted.mime
        ));
    }
    if let Some(declared) = Raster::of_mime(&accepted.mime) {
        match Raster::of_bytes(head) {
            None => {
                return Err(format!(
                    "declared {} but the data is not a PNG, JPEG, GIF or WebP image",
                    accepted.mime
                ));
            }
            Some(actual) if actual != declared => {
                accepted.note = Some(format!(
                    "declared {} but the data is a {} image; passed (it is an inert raster image)",
                    accepted.mime,
                    actual.name()
                ));
            }
            Some(_) => {}
        }
    }
    Ok(accepted)
}

/// The lowercase essence (`type/subtype`, parameters dropped) of a MIME type, when both
/// parts are RFC 9110 tokens.
fn essence(mime: &str) -> Option<String> {
    let e = mime.split(';').next().unwrap_or_default().trim();
    let (t, sub) = e.split_once('/')?;
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    (token(t) && token(sub)).then(|| e.to_ascii_lowercase())
}

/// Whether `essence` (lowercase) is in the policy's allowlist, or the default one.
fn allowed(essence: &str, policy: &ContentPolicy) -> bool {
    let hit = |entry: &str| {
        let entry = entry.trim();
        entry.eq_ignore_ascii_case(essence)
            || entry.strip_suffix("/*").is_some_and(|top| {
                essence
                    .split_once('/')
                    .is_some_and(|(t, _)| t.eq_ignore_ascii_case(top))
            })
    };
    if policy.mime_allowlist.is_empty() {
        DEFAULT_MIME_ALLOWLIST.iter().any(|e| hit(e))
    } else {
        policy.mime_allowlist.iter().any(|e| hit(e))
    }
}

/// Validates `data` (length a multiple of 4) as padded standard base64, chunk by chunk;
/// copies the first decoded bytes into `head` and returns how many.
fn validate(data: &[u8], head: &mut [u8; SNIFF_BYTES]) -> Result<usize, String> {
    // Padding may only end the data (RFC 4648 §3.2): a chunk boundary must not accept it.
    if let Some(at) = memchr::memchr(b'=', data)
        && at + 2 < data.len()
    {
        return Err(format!(
            "invalid base64 (RFC 4648 §4): padding '=' inside the data at offset {at}"
        ));
    }
    let mut buf = [0u8; CHUNK / 4 * 3];
    let mut head_len = 0;
    for (n, chunk) in data.chunks(CHUNK).enumerate() {
        let len = STANDARD
            .decode_slice(chunk, &mut buf)
            .map_err(|e| describe(&e, n * CHUNK))?;
        if n == 0 {
            head_len = len.min(SNIFF_BYTES);
            head[..head_len].copy_from_slice(&buf[..head_len]);
        }
    }
    Ok(head_len)
}

/// The marker reason for a decoding error at chunk offset `base`.
fn describe(e: &DecodeSliceError, base: usize) -> String {
    let what = match e {
        DecodeSliceError::DecodeError(DecodeError::InvalidByte(i, b'=')) => {
            format!("padding '=' inside the data at offset {}", base + i)
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidByte(i, b)) => {
            if b.is_ascii_graphic() {
                format!(
                    "'{}' at offset {} is not in the base64 alphabet",
                    char::from(*b),
                    base + i
                )
            } else {
                format!(
                    "byte 0x{b:02x} at offset {} is not in the base64 alphabet",
                    base + i
                )
            }
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidLastSymbol(i, _)) => format!(
            "the last symbol at offset {} has non-zero unused bits (not canonical)",
            base + i
        ),
        DecodeSliceError::DecodeError(DecodeError::InvalidLength(_)) => {
            "the last group has a wrong length".to_owned()
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidPadding) => {
            "wrong or missing padding".to_owned()
        }
        DecodeSliceError::OutputSliceTooSmall => "the data does not decode".to_owned(),
    };
    format!("invalid base64 (RFC 4648 §4): {what}")
}

/// Raster image formats whose signatures are sniffed (WHATWG MIME Sniffing §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Raster {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl Raster {
    fn of_mime(essence: &str) -> Option<Self> {
        match essence {
            "image/png" => Some(Self::Png),
            "image/jpeg" => Some(Self::Jpeg),
            "image/gif" => Some(Self::Gif),
            "image/webp" => Some(Self::Webp),
            _ => None,
        }
    }

    fn of_bytes(head: &[u8]) -> Option<Self> {
        if head.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if head.starts_with(b"\xff\xd8\xff") {
            Some(Self::Jpeg)
        } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::Gif => "GIF",
            Self::Webp => "WebP",
        }
    }
}

/// Whether decoded bytes start like markup: after a UTF-8 byte-order mark and whitespace
/// bytes (WHATWG MIME Sniffing §7.1: TAB, LF, FF, CR, SPACE), a `<`; or a UTF-16
/// byte-order mark (text, not media).
fn looks_like_markup(head: &[u8]) -> bool {
    if head.starts_with(b"\xfe\xff") || head.starts_with(b"\xff\xfe") {
        return true;
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    head.iter()
        .find(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .is_some_and(|&b| b == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A real 1x1 PNG.
    const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    fn check(kind: Kind, data: &str, mime: Option<&str>) -> Result<Accepted, String> {
        let mime = mime.map(|m| Value::String(m.to_owned()));
        inspect(
            kind,
            Some(&json!(data)),
            mime.as_ref(),
            &ContentPolicy::default(),
            1 << 20,
        )
    }

    #[test]
    fn a_real_png_passes() {
        let ok = check(Kind::Image, PNG_1X1, Some("image/png")).unwrap();
        assert_eq!(ok.mime, "image/png");
        assert_eq!(ok.note, None);
        let ok = check(Kind::Image, PNG_1X1, Some("IMAGE/PNG; name=x")).unwrap();
        assert_eq!(ok.mime, "image/png");
    }

    #[test]
    fn base64_must_be_canonical_and_padded() {
        for (data, want) in [
            ("iVBORw0KGgo", "not a multiple of 4"),
            ("iVBO Rw0K", "not a multiple of 4"),
            ("iVBORw0KGgo=AAAA", "padding '=' inside"),
            ("iVBO\nRw0KGg=", "byte 0x0a at offset 4"),
            ("iVBORw0KGg-_", "'-' at offset 10"),
            ("iVBORw0KGh==", "non-zero unused bits"),
            ("iVBORw0KG===", "padding '=' inside"),
        ] {
            let err = check(Kind::Image, data, Some("image/png")).unwrap_err();
            assert!(err.contains(want), "{data}: {err}");
        }
    }

    #[test]
    fn padding_is_refused_at_a_chunk_boundary() {
        // 16 KiB of valid groups ending with padding, then more data.
        let mut data = "AAAA".repeat(CHUNK / 4 - 1);
        data.push_str("AA==");
        data.push_str("AAAA");
        let err = validate(data.as_bytes(), &mut [0; SNIFF_BYTES]).unwrap_err();
        assert!(err.contains("padding '=' inside"), "{err}");
        // Long valid data spanning several chunks, and an error in a later chunk.
        let good = STANDARD.encode(vec![7u8; 100_000]);
        assert_eq!(validate(good.as_bytes(), &mut [0; SNIFF_BYTES]), Ok(16));
        let mut bad = good.into_bytes();
        bad[50_000] = b'!';
        let err = validate(&bad, &mut [0; SNIFF_BYTES]).unwrap_err();
        assert!(err.contains("offset 50000"), "{err}");
    }

    #[test]
    fn size_is_measured_before_decoding() {
        let data = "A".repeat(4 * 1000); // 3000 bytes
        let err = inspect(
            Kind::Audio,
            Some(&json!(data)),
            Some(&json!("audio/wav")),
            &ContentPolicy::default(),
            2999,
        )
        .unwrap_err();
        assert!(
            err.contains("3000 bytes exceed max_binary_bytes (2999)"),
            "{err}"
        );
        let padded = format!("{}AA==", "A".repeat(4 * 999)); // 2998 bytes
        assert!(
            inspect(
                Kind::Audio,
                Some(&json!(padded)),
                Some(&json!("audio/wav")),
                &ContentPolicy::default(),
                2998,
            )
            .is_ok()
        );
        assert!(
            inspect(
                Kind::Audio,
                Some(&json!(data)),
                Some(&json!("audio/wav")),
                &ContentPolicy::default(),
                3000,
            )
            .is_ok()
        );
    }

    #[test]
    fn mime_types_are_checked() {
        let wav = STANDARD.encode(b"RIFF\x24\0\0\0WAVEfmt ");
        assert!(check(Kind::Audio, &wav, Some("audio/wav")).is_ok());
        for (kind, mime, want) in [
            (Kind::Image, None, "no mimeType"),
            (Kind::Audio, None, "no mimeType"),
            (Kind::Image, Some("image/bmp"), "not in the MIME allowlist"),
            (Kind::Image, Some("audio/wav"), "not image/"),
            (Kind::Audio, Some("image/png"), "not audio/"),
            (Kind::Image, Some("png"), "not a MIME type"),
            (Kind::Image, Some("image/png\u{1b}[2J"), "not a MIME type"),
            (
                Kind::Blob,
                Some("application/x-msdownload"),
                "not in the MIME allowlist",
            ),
            (Kind::Image, Some("image/svg+xml"), "allow_svg = false"),
            (Kind::Blob, Some("image/svg+xml"), "allow_svg = false"),
        ] {
            let err = check(kind, &wav, mime).unwrap_err();
            assert!(err.contains(want), "{kind:?} {mime:?}: {err}");
        }
        // A blob without a type is opaque bytes.
        let ok = check(Kind::Blob, &wav, None).unwrap();
        assert_eq!(ok.mime, "application/octet-stream");
    }

    #[test]
    fn policy_allowlist_replaces_the_defaults() {
        let policy = ContentPolicy {
            mime_allowlist: vec!["image/*".into(), "Application/PDF".into()],
            ..ContentPolicy::default()
        };
        let run = |kind, mime: &str| {
            inspect(
                kind,
                Some(&json!(PNG_1X1)),
                Some(&json!(mime)),
                &policy,
                1 << 20,
            )
        };
        assert!(run(Kind::Image, "image/png").is_ok());
        assert!(run(Kind::Image, "image/avif").is_ok());
        assert!(run(Kind::Blob, "application/pdf").is_ok());
        assert!(run(Kind::Audio, "audio/wav").is_err());
        assert!(run(Kind::Blob, "text/plain").is_err());
    }

    #[test]
    fn svg_passes_only_when_allowed() {
        let svg = STANDARD.encode(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        let policy = ContentPolicy {
            allow_svg: true,
            ..ContentPolicy::default()
        };
        let ok = inspect(
            Kind::Image,
            Some(&json!(svg)),
            Some(&json!("image/svg+xml")),
            &policy,
            1 << 20,
        );
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn image_bytes_are_sniffed() {
        let html = STANDARD.encode(b"\xef\xbb\xbf \n<html><script>alert(1)</script>");
        let err = check(Kind::Image, &html, Some("image/png")).unwrap_err();
        assert!(err.contains("markup"), "{err}");
        let svg = STANDARD.encode(b"<svg onload=alert(1)>");
        let err = check(Kind::Image, &svg, Some("image/gif")).unwrap_err();
        assert!(err.contains("markup"), "{err}");
        let err = check(Kind::Audio, &svg, Some("audio/mpeg")).unwrap_err();
        assert!(err.contains("markup"), "{err}");
        let junk = STANDARD.encode(b"MZ\x90\0\x03\0\0\0");
        let err = check(Kind::Image, &junk, Some("image/webp")).unwrap_err();
        assert!(err.contains("not a PNG, JPEG, GIF or WebP"), "{err}");
        let err = check(Kind::Image, "", Some("image/png")).unwrap_err();
        assert!(err.contains("not a PNG"), "{err}");
        // Another raster format than declared: inert, passed with a note.
        let jpeg = STANDARD.encode(b"\xff\xd8\xff\xe0\0\x10JFIF\0");
        let ok = check(Kind::Image, &jpeg, Some("image/png")).unwrap();
        assert!(ok.note.unwrap().contains("JPEG"));
        let gif = STANDARD.encode(b"GIF89a\x01\0\x01\0");
        assert!(check(Kind::Image, &gif, Some("image/gif")).is_ok());
        let webp = STANDARD.encode(b"RIFF\x1a\0\0\0WEBPVP8L");
        assert!(check(Kind::Image, &webp, Some("image/webp")).is_ok());
    }

    #[test]
    fn text_blobs_are_decoded_for_the_text_pipeline() {
        let b = STANDARD.encode("hello \u{1b}[2J world");
        let ok = check(Kind::Blob, &b, Some("text/plain; charset=utf-8")).unwrap();
        assert_eq!(ok.text.as_deref(), Some("hello \u{1b}[2J world"));
        assert_eq!(ok.mime, "text/plain");
        let latin1 = STANDARD.encode(b"caf\xe9");
        let err = check(Kind::Blob, &latin1, Some("text/plain")).unwrap_err();
        assert!(err.contains("not valid UTF-8"), "{err}");
        // Binary blobs are not sniffed: a PDF is whatever its reader makes of it.
        let pdf = STANDARD.encode(b"%PDF-1.7\n");
        assert!(
            check(Kind::Blob, &pdf, Some("application/pdf"))
                .unwrap()
                .text
                .is_none()
        );
    }
}
