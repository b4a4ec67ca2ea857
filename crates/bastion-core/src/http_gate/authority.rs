//! `Host` and `Origin` judgement (anti DNS rebinding, anti CSRF). Parsing is the `url`
//! crate's (WHATWG URL Standard host parser: IPv4/IPv6 literals, IDNA); nothing here
//! splits hosts or addresses by hand.
//!
//! Sources: RFC 9110 §7.2 (`Host = uri-host [":" port]`), RFC 6454 §7 (`Origin`
//! serialization, `null`), MCP 2025-11-25 Transports §Streamable HTTP "Security Warning"
//! (servers MUST validate `Origin`, 403 when present and invalid; bind to localhost).

use super::request::{HttpRequestView, Lookup};
use super::{RefusalStatus, Rejection};
use crate::finding::Code;
use std::fmt;
use std::net::IpAddr;
use url::{Host, Url};

/// A `Host` value reduced to what it designates: the parsed host and the port (80 when
/// absent, the `http` default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostPort {
    host: Host<String>,
    port: u16,
}

impl HostPort {
    pub(crate) fn ip(ip: IpAddr, port: u16) -> Self {
        let host = match ip {
            IpAddr::V4(v4) => Host::Ipv4(v4),
            IpAddr::V6(v6) => Host::Ipv6(v6),
        };
        Self { host, port }
    }

    pub(crate) fn domain(name: &str, port: u16) -> Self {
        Self {
            host: Host::Domain(name.to_owned()),
            port,
        }
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // url::Host displays IPv6 in brackets.
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// Characters that cannot appear in `uri-host [":" port]` (or that would make the URL
/// parser read a different authority: userinfo, path, query, fragment, escapes).
fn foreign_authority_byte(b: u8) -> bool {
    b <= b' ' || b >= 0x7f || matches!(b, b'/' | b'?' | b'#' | b'@' | b'\\' | b'%')
}

/// Parses `uri-host [":" port]` with the WHATWG host parser; `None` when it is not one.
pub(crate) fn parse_authority(value: &str) -> Option<HostPort> {
    if value.is_empty() || value.bytes().any(foreign_authority_byte) {
        return None;
    }
    let url = Url::parse(&format!("http://{value}/")).ok()?;
    let host = url.host()?.to_owned();
    if matches!(&host, Host::Domain(d) if d.is_empty()) {
        return None;
    }
    Some(HostPort {
        host,
        port: url.port_or_known_default()?,
    })
}

/// Parses a serialized origin (`scheme://host[:port]`); `None` for `null`, opaque origins
/// and anything with userinfo, a path other than `/`, a query or a fragment.
pub(crate) fn parse_origin(value: &str) -> Option<url::Origin> {
    if value
        .bytes()
        .any(|b| b <= b' ' || b >= 0x7f || b"@?#\\%".contains(&b))
    {
        return None;
    }
    let url = Url::parse(value).ok()?;
    if url.path() != "/" || !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    let origin = url.origin();
    origin.is_tuple().then_some(origin)
}

/// `Host` must be present once and designate one of the allowed host/port pairs; a
/// foreign name is refused even when the connection came from loopback (DNS rebinding).
pub(crate) fn check_host(view: &HttpRequestView<'_>, allowed: &[HostPort]) -> Option<Rejection> {
    let value = match view.header("host") {
        Lookup::Many => return None, // reported as a duplicate header
        Lookup::Absent => {
            return Some(Rejection::at_header(
                RefusalStatus::BadRequest,
                Code::HttpHostNotAllowed,
                "Host",
                "the request has no Host header (RFC 9112 §3.2 requires one); refused".into(),
            ));
        }
        Lookup::One(v) => v,
    };
    // The exact serialization of an allowed pair parses to that pair: no parse needed.
    if allowed.iter().any(|hp| hp.to_string().as_bytes() == value) {
        return None;
    }
    let shown = super::request::shown(value);
    let parsed = std::str::from_utf8(value).ok().and_then(parse_authority);
    match parsed {
        None => Some(Rejection::at_header(
            RefusalStatus::BadRequest,
            Code::HttpHostNotAllowed,
            "Host",
            format!("Host `{shown}` is not a host with an optional port; refused"),
        )),
        Some(hp) if allowed.contains(&hp) => None,
        Some(hp) => Some(Rejection::at_header(
            RefusalStatus::Forbidden,
            Code::HttpHostNotAllowed,
            "Host",
            format!(
                "Host `{hp}` is not one this listener answers to ({}); a page whose name was rebound to this address sends such a Host (DNS rebinding); refused",
                allowed
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// `Origin`, when present, must be one of the allowed origins; absent passes (hosts that
/// are not browsers send none).
pub(crate) fn check_origin(
    view: &HttpRequestView<'_>,
    allowed: &[url::Origin],
) -> Option<Rejection> {
    let value = match view.header("origin") {
        Lookup::Absent | Lookup::Many => return None,
        Lookup::One(v) => v,
    };
    // The ASCII serialization of an allowed origin parses to that origin.
    if allowed
        .iter()
        .any(|o| o.ascii_serialization().as_bytes() == value)
    {
        return None;
    }
    let shown = super::request::shown(value);
    let parsed = std::str::from_utf8(value).ok().and_then(parse_origin);
    if parsed.as_ref().is_some_and(|o| allowed.contains(o)) {
        return None;
    }
    let why = if parsed.is_none() {
        "is opaque (`null`, sent by sandboxed frames, files and redirects) or not a serialized origin"
    } else {
        "is not an allowed origin"
    };
    Some(Rejection::at_header(
        RefusalStatus::Forbidden,
        Code::HttpOriginNotAllowed,
        "Origin",
        format!(
            "Origin `{shown}` {why}; a web page may not drive this listener (CSRF, DNS rebinding); refused"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorities_parse_by_the_url_standard() {
        let hp = parse_authority("LocalHost:8931").unwrap();
        assert_eq!(hp, HostPort::domain("localhost", 8931));
        assert_eq!(
            parse_authority("[::1]:8931").unwrap(),
            HostPort::ip("::1".parse().unwrap(), 8931)
        );
        assert_eq!(
            parse_authority("127.1:8931").unwrap(),
            HostPort::ip("127.0.0.1".parse().unwrap(), 8931)
        );
        assert_eq!(parse_authority("example.com").unwrap().port, 80);
        for bad in [
            "",
            ":8931",
            "a@127.0.0.1:8931",
            "127.0.0.1:8931/x",
            "127.0.0.1:8931#",
            "%6cocalhost:8931",
            "h:70000",
            "h:x",
            "[::1",
            "l\u{f6}calhost:1",
        ] {
            assert!(parse_authority(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn origins_are_tuples() {
        assert_eq!(
            parse_origin("http://127.0.0.1:8931").unwrap(),
            parse_origin("HTTP://127.0.0.1:8931/").unwrap()
        );
        for bad in [
            "null",
            "file:///etc/passwd",
            "https://a.example/x",
            "https://u@a.example",
            "data:text/html,x",
            "",
        ] {
            assert!(parse_origin(bad).is_none(), "{bad}");
        }
    }
}
