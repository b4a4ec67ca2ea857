//! [`HttpRequestView`]: the parts of one HTTP request the gate judges, as the listener
//! has them before (and while) reading the body.

use super::{RefusalStatus, Rejection};
use crate::finding::Code;
use std::fmt::Write as _;

/// How much of the body the listener has read when it asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BodySeen<'a> {
    /// Nothing yet: decide on the request line and headers alone (first call, before any
    /// body byte is buffered).
    NotRead,
    /// The first bytes, the rest still unread (e.g. a chunked body growing past the cap).
    Prefix(&'a [u8]),
    /// The whole body.
    Complete(&'a [u8]),
}

impl BodySeen<'_> {
    /// Bytes seen so far.
    pub const fn len(&self) -> usize {
        match self {
            Self::NotRead => 0,
            Self::Prefix(b) | Self::Complete(b) => b.len(),
        }
    }

    /// `true` when no byte was seen.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One request as the listener sees it (RFC 9110 §9 method, RFC 9112 §3.2 request
/// target, §5 fields).
///
/// `headers` keeps every field line in arrival order: names compare ASCII
/// case-insensitively, duplicates are kept (the gate refuses a repeated `Host`,
/// `Content-Length` and the other single-valued fields it reads); values are raw bytes
/// (a value that is not visible ASCII is judged malformed where it matters). The declared
/// body length is the `Content-Length` field ([`HttpRequestView::declared_length`]).
#[derive(Debug, Clone, Copy)]
pub struct HttpRequestView<'a> {
    /// The method token, case-sensitive (`POST`, not `post`).
    pub method: &'a str,
    /// The request target (origin form: `/mcp` or `/mcp?x=1`).
    pub target: &'a str,
    /// Field lines `(name, value)` in arrival order.
    pub headers: &'a [(&'a str, &'a [u8])],
    /// The body bytes seen so far.
    pub body: BodySeen<'a>,
}

/// A header looked up by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    Absent,
    One(&'a [u8]),
    Many,
}

/// Fields the gate reads that must occur at most once (RFC 9110 §5.3: a repeated
/// singleton field is an error; two `Content-Length` or `Host` lines are the classic
/// request-smuggling and routing-confusion shapes).
pub(crate) const SINGLE_FIELDS: &[&str] = &[
    "Host",
    "Origin",
    "Content-Length",
    "Transfer-Encoding",
    "Content-Type",
    "Authorization",
    "MCP-Protocol-Version",
    "Mcp-Session-Id",
    "Mcp-Method",
    "Mcp-Name",
];

impl<'a> HttpRequestView<'a> {
    /// The value of the field `name` (ASCII case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Lookup<'a> {
        let mut found = Lookup::Absent;
        for (n, v) in self.headers {
            if n.eq_ignore_ascii_case(name) {
                if found != Lookup::Absent {
                    return Lookup::Many;
                }
                found = Lookup::One(v);
            }
        }
        found
    }

    /// The value of `name` as trimmed text, when present once and visible ASCII.
    pub(crate) fn header_text(&self, name: &str) -> Option<&'a str> {
        match self.header(name) {
            Lookup::One(v) => std::str::from_utf8(v)
                .ok()
                .filter(|s| s.bytes().all(|b| b == b'\t' || (b' '..0x7f).contains(&b)))
                .map(str::trim),
            _ => None,
        }
    }

    /// The declared body length: `Some(n)` for one `Content-Length` of digits (saturating
    /// at `u64::MAX` for longer numbers), `None` when absent, repeated or malformed.
    pub fn declared_length(&self) -> Option<u64> {
        let text = self.header_text("content-length")?;
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(text.parse::<u64>().unwrap_or(u64::MAX))
    }
}

/// A header value for messages: at most 80 characters, controls and non-ASCII escaped.
pub(crate) fn shown(value: &[u8]) -> String {
    let mut out = String::new();
    for &b in value.iter().take(80) {
        if (b' '..0x7f).contains(&b) && b != b'`' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    if value.len() > 80 {
        out.push('…');
    }
    out
}

/// Refuses every single-valued field that occurs more than once (400).
pub(crate) fn check_duplicates(view: &HttpRequestView<'_>, out: &mut Vec<Rejection>) {
    for name in SINGLE_FIELDS {
        if view.header(name) == Lookup::Many {
            out.push(Rejection::at_header(
                RefusalStatus::BadRequest,
                Code::HttpDuplicateHeader,
                name,
                format!(
                    "the request repeats the {name} header; which one counts is ambiguous (request smuggling, routing confusion); refused"
                ),
            ));
        }
    }
}

/// `Mcp-Session-Id`, when present, must be 1 to 256 visible ASCII characters (0x21-0x7E,
/// the only IDs a server may issue: MCP 2025-11-25 Transports §Session Management); any
/// other value was not issued by this gateway (400).
pub(crate) fn check_session_id(view: &HttpRequestView<'_>) -> Option<Rejection> {
    let Lookup::One(value) = view.header("mcp-session-id") else {
        return None;
    };
    let ok = (1..=256).contains(&value.len()) && value.iter().all(|b| (0x21..=0x7e).contains(b));
    (!ok).then(|| {
        Rejection::at_header(
            RefusalStatus::BadRequest,
            Code::HttpMalformedHeader,
            "Mcp-Session-Id",
            format!(
                "Mcp-Session-Id `{}` is not 1 to 256 visible ASCII characters, so no server issued it; refused",
                shown(value)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_sees_duplicates() {
        let headers: &[(&str, &[u8])] =
            &[("content-length", b"12"), ("Host", b"a"), ("HOST", b"a")];
        let view = HttpRequestView {
            method: "POST",
            target: "/mcp",
            headers,
            body: BodySeen::NotRead,
        };
        assert_eq!(view.header("Content-Length"), Lookup::One(b"12"));
        assert_eq!(view.header("host"), Lookup::Many);
        assert_eq!(view.header("origin"), Lookup::Absent);
        assert_eq!(view.declared_length(), Some(12));
        let mut out = Vec::new();
        check_duplicates(&view, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].finding.path, "/headers/Host");
    }

    #[test]
    fn declared_length_is_digits_only() {
        for (value, want) in [
            (&b"+5"[..], None),
            (b"5 ", Some(5)),
            (b"-1", None),
            (b"0x10", None),
            (b"", None),
            (b"99999999999999999999999", Some(u64::MAX)),
        ] {
            let headers: &[(&str, &[u8])] = &[("Content-Length", value)];
            let view = HttpRequestView {
                method: "POST",
                target: "/",
                headers,
                body: BodySeen::NotRead,
            };
            assert_eq!(view.declared_length(), want, "{value:?}");
        }
        assert_eq!(shown(b"a\x1bb`"), "a\\x1bb\\x60");
        for (id, ok) in [
            (&b"a1-B2_c3.d4"[..], true),
            (b"", false),
            (b"a b", false),
            (b"a\r\nX-Evil: 1", false),
            (&[b'x'; 257][..], false),
        ] {
            let headers: &[(&str, &[u8])] = &[("Mcp-Session-Id", id)];
            let view = HttpRequestView {
                method: "GET",
                target: "/mcp",
                headers,
                body: BodySeen::NotRead,
            };
            assert_eq!(check_session_id(&view).is_none(), ok, "{id:?}");
        }
    }
}
