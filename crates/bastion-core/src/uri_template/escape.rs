//! Whether the part of a URI after its template's literal prefix may lead a server out of
//! the template: dot pieces, encoded separators, look-alikes, absolute paths, drive
//! letters (see [`escapes`]).

use unicode_normalization::UnicodeNormalization;

/// Rounds of percent-decoding [`escapes`] applies: a server that decodes a path twice
/// reads `%252e` as `.`; one that decodes three times is not worth more rounds.
const DECODE_ROUNDS: usize = 3;

/// Byte sequences that lenient decoders read as `.`, `/` or `\`: overlong UTF-8 forms
/// (two and three bytes; RFC 3629 §3 forbids them) and the fullwidth forms, which Unicode
/// normalization (NFKC) maps to ASCII.
const LOOK_ALIKES: &[(&[u8], u8)] = &[
    (b"\xC0\xAE", b'.'),
    (b"\xE0\x80\xAE", b'.'),
    (b"\xEF\xBC\x8E", b'.'),
    (b"\xC0\xAF", b'/'),
    (b"\xE0\x80\xAF", b'/'),
    (b"\xEF\xBC\x8F", b'/'),
    (b"\xC1\x9C", b'\\'),
    (b"\xE0\x81\x9C", b'\\'),
    (b"\xEF\xBC\xBC", b'\\'),
];

/// `bytes` with every [`LOOK_ALIKES`] sequence replaced by its ASCII character.
fn ascii_look_alikes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    'outer: while i < bytes.len() {
        if bytes[i] >= 0xC0 {
            for (seq, ascii) in LOOK_ALIKES {
                if bytes[i..].starts_with(seq) {
                    out.push(*ascii);
                    i += seq.len();
                    continue 'outer;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn is_separator(b: u8) -> bool {
    matches!(b, b'/' | b'\\')
}

/// `bytes` as a lenient server may read them: [`LOOK_ALIKES`] as ASCII, and text in
/// Unicode compatibility form (NFKC, UAX #15: `‥` U+2025 is `..`, `﹨` U+FE68 is `\\`).
fn readable(bytes: &[u8]) -> Vec<u8> {
    let ascii = ascii_look_alikes(bytes);
    if ascii.is_ascii() {
        return ascii;
    }
    // Invalid bytes as U+FFFD, as lenient decoders read them (Python's `unquote`), so one
    // stray byte does not switch the normalization off for the whole text.
    String::from_utf8_lossy(&ascii)
        .nfkc()
        .collect::<String>()
        .into_bytes()
}

/// Whether `text` (a URI part as [`readable`] gives it) holds a piece a server may read
/// as leading out of a directory. Pieces are split at `/ \ ? # & = ,` (so that query
/// values and list items count); a `;` parameter and trailing controls and spaces are
/// ignored. Refused: `.` and `..` anywhere; a piece that starts with a drive letter
/// (`C:`, `D:win.ini`, drive-relative on Windows); a value that starts with a separator
/// (`q=/etc/passwd`).
fn pieces_escape(text: &[u8]) -> bool {
    if text.windows(2).any(|w| w[0] == b'=' && is_separator(w[1])) {
        return true;
    }
    text.split(|&b| is_separator(b) || matches!(b, b'?' | b'#' | b'&' | b'=' | b','))
        .any(|piece| {
            let bare = piece.split(|&b| b == b';').next().unwrap_or_default();
            let bare = bare
                .iter()
                .rposition(|&b| b > 0x20)
                .map_or(&bare[..0], |end| &bare[..=end]);
            let drive = bare.len() >= 2 && bare[0].is_ascii_alphabetic() && bare[1] == b':';
            bare == b"." || bare == b".." || drive
        })
}

/// Whether `rest` (a URI after its template's literal prefix, query and fragment
/// included: all of it reaches the server) may take a server outside the template:
/// [`pieces_escape`] on it as sent and after each of up to [`DECODE_ROUNDS`] rounds of
/// percent-decoding (`%2e`, `.%2E`, `%252e` for servers that decode twice), each read as
/// [`readable`]; a decoded path with a separator the raw one did not have
/// (`..%2f..%2fetc`, `%2Fetc%2Fpasswd`, `..%5c`), which a server decoding the value would
/// split on; and, when the literal prefix ends where a path starts (with `:` or `/`), a
/// rest that starts with a separator (`docs:///etc/passwd` for `docs://{+path}`,
/// `file:///data/%2Fetc`: an absolute path).
pub(super) fn escapes(rest: &str, at_path_start: bool) -> bool {
    let separators = |bytes: &[u8]| bytes.iter().filter(|&&b| is_separator(b)).count();
    let raw = rest.as_bytes();
    // Encoded separators count in the path only: a query value may hold `a%2Fb`.
    let path_len = raw
        .iter()
        .position(|&b| matches!(b, b'?' | b'#'))
        .unwrap_or(raw.len());
    let raw_separators = separators(&raw[..path_len]);
    let mut text = raw.to_vec();
    let mut path = raw[..path_len].to_vec();
    for round in 0..=DECODE_ROUNDS {
        if round > 0 {
            let decoded: Vec<u8> = percent_encoding::percent_decode(&text).collect();
            if decoded == text {
                return false;
            }
            text = decoded;
            path = percent_encoding::percent_decode(&path).collect();
        }
        let seen = readable(&text);
        let seen_path = readable(&path);
        if pieces_escape(&seen)
            || (round > 0 && separators(&seen_path) > raw_separators)
            || (at_path_start && seen_path.first().is_some_and(|&b| is_separator(b)))
        {
            return true;
        }
    }
    false
}

/// Whether the path of `uri` (parsed by the `url` crate, WHATWG URL Standard) has an
/// empty segment (`file:///data//etc/passwd`): joined to a base directory, the rest reads
/// as an absolute path. A URI that does not parse counts as escaping.
pub(super) fn empty_segment(uri: &str) -> bool {
    url::Url::parse(uri).map_or(true, |u| u.path().contains("//"))
}
