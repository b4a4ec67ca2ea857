//! What a link or image destination is, read as the WHATWG URL Standard reads it, as
//! markdown renderers percent-encode it into `href`/`src`, trimmed of the whitespace
//! lenient renderers trim, and with its character references decoded as a browser
//! decodes them in an attribute; the reading that reaches furthest decides.

use super::data_carriers;
use url::Url;

/// What a link or image destination is, per the WHATWG URL Standard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// No scheme and no host of its own (`page.html`, `#top`, `/docs`): resolved against
    /// the host application's own origin, so it cannot reach a third party.
    Relative,
    /// `http:` or `https:` with a host (protocol-relative `//host/…` included).
    Web(Url),
    /// `mailto:`.
    Mailto,
    /// Any other scheme (`javascript:`, `data:`, `vbscript:`, `file:`, custom handlers),
    /// lowercase, without the colon.
    Disallowed(String),
    /// Not a URL even relative to a base: a browser would not follow it.
    Invalid,
    /// A web URL whose origin depends on who reads it: `written` is the destination as
    /// written (a browser reading raw HTML, where `\\` is a path separator), `encoded`
    /// as markdown renderers write it into `href`/`src` (percent-encoded, cmark's
    /// `houdini_escape_href`: `\\` becomes `%5C`, so `https://a.example\\@b.example/`
    /// reaches `b.example`); or `written` one lenient reading and `encoded` another
    /// (trimmed, character references decoded: see [`classify`]). Either may be refused
    /// (`None`) but not both; where both parse their hosts (or origins) differ. Callers
    /// make it inert (WHATWG URL §4.4; fails closed).
    TwoReadings {
        /// The reading as written, when it parses to a web URL with a host.
        written: Option<Url>,
        /// The other reading: as a renderer percent-encodes it, or its character
        /// references decoded.
        encoded: Option<Url>,
    },
}

impl Target {
    /// The hosts of a [`Target::TwoReadings`], for messages (`"a.example or b.example"`).
    pub(crate) fn hosts(&self) -> String {
        let Self::TwoReadings { written, encoded } = self else {
            return String::new();
        };
        [written, encoded]
            .into_iter()
            .flatten()
            .map(|u| u.host_str().unwrap_or_default().to_owned())
            .fold(Vec::new(), |mut hosts, host| {
                if !hosts.contains(&host) {
                    hosts.push(host);
                }
                hosts
            })
            .join(" or ")
    }
}

/// Base used to tell relative references from protocol-relative ones.
const PROBE_BASE: &str = "https://relative.invalid/";

/// Classifies a destination. `dest` is the decoded value (entities and backslash escapes
/// already resolved by the markdown or HTML parser); the URL parser strips leading and
/// trailing C0 controls and spaces and removes tabs and newlines, as browsers do, so
/// `" JaVa\tScRiPt:…"` is `Disallowed("javascript")`.
///
/// A renderer that writes the destination into `href`/`src` without escaping `&`
/// (marked does) hands the browser character references to decode, with or without
/// their `;` (HTML Living Standard §13.2.5.72, character reference state in an
/// attribute value): `&#104ttps://evil.example/` is then `https://evil.example/`, which
/// `CommonMark` readers take for a relative path. That reading, decoded by html5ever's
/// tokenizer, counts too, and the one that reaches further decides ([`further`]).
///
/// Lenient renderers also trim the destination of every kind of whitespace
/// (JavaScript's `trim`, Python's `strip`), where the URL parser strips only C0 controls
/// and spaces: `\u{a0}javascript:…` is a relative path for a browser but a script URL
/// once trimmed. The trimmed reading counts too.
pub(crate) fn classify(dest: &str) -> Target {
    let target = classify_trimmed(dest);
    if memchr::memchr(b'&', dest.as_bytes()).is_none() {
        return target;
    }
    // Decoded once, as a browser decodes an attribute value once.
    let decoded = super::guard::attribute_decoded(dest);
    if decoded == dest {
        target
    } else {
        further(target, classify_trimmed(&decoded))
    }
}

/// [`classify_encoded`] of the destination as it is and, when it has any, without the
/// whitespace, controls and byte order marks a lenient renderer trims.
fn classify_trimmed(dest: &str) -> Target {
    let target = classify_encoded(dest);
    let trimmed =
        dest.trim_matches(|c: char| c.is_whitespace() || c.is_control() || c == '\u{feff}');
    if trimmed.len() == dest.len() {
        target
    } else {
        further(target, classify_encoded(trimmed))
    }
}

/// Of two readings of one destination, the one that reaches further: a disallowed
/// scheme before two web readings, a web URL before `mailto:`, anything before a
/// relative or invalid one. Two web URLs of different origins are
/// [`Target::TwoReadings`]; of one origin, the one that carries data
/// ([`data_carriers`]) if only one does, else the first (`?a=1&reg_id=5` also reads as
/// `?a=1®_id=5`, which is no reason to distrust the link).
fn further(a: Target, b: Target) -> Target {
    fn reach(t: &Target) -> u8 {
        match t {
            Target::Relative | Target::Invalid => 0,
            Target::Mailto => 1,
            Target::Web(_) => 2,
            Target::TwoReadings { .. } => 3,
            Target::Disallowed(_) => 4,
        }
    }
    match (a, b) {
        (Target::Web(a), Target::Web(b)) if a.origin() != b.origin() => Target::TwoReadings {
            written: Some(a),
            encoded: Some(b),
        },
        (Target::Web(a), Target::Web(b)) => {
            if data_carriers(&a).is_empty() && !data_carriers(&b).is_empty() {
                Target::Web(b)
            } else {
                Target::Web(a)
            }
        }
        (a, b) if reach(&b) > reach(&a) => b,
        (a, _) => a,
    }
}

/// [`classify`] of the destination as written and as a renderer percent-encodes it.
fn classify_encoded(dest: &str) -> Target {
    let target = classify_written(dest);
    // Where no `\\` or non-ASCII is there to be encoded, both readings are one.
    if !dest.bytes().any(|b| b == b'\\' || !b.is_ascii()) {
        return target;
    }
    let web_of = |t: Target| match t {
        Target::Web(url) => Some(url),
        _ => None,
    };
    let encoded = percent_encoding::utf8_percent_encode(dest, HREF_ENCODED).to_string();
    match (target, web_of(classify_written(&encoded))) {
        (Target::Web(written), Some(encoded)) if written.host() != encoded.host() => {
            Target::TwoReadings {
                written: Some(written),
                encoded: Some(encoded),
            }
        }
        // Refused as written, a web URL as a renderer writes it: the renderer's reading
        // is what a browser follows.
        (Target::Invalid, Some(encoded)) => Target::TwoReadings {
            written: None,
            encoded: Some(encoded),
        },
        (target, _) => target,
    }
}

/// [`classify`] of the destination as written (relative ones are read both ways).
fn classify_written(dest: &str) -> Target {
    match Url::parse(dest) {
        Ok(url) => match url.scheme() {
            "http" | "https" if url.host_str().is_some_and(|h| !h.is_empty()) => Target::Web(url),
            "http" | "https" => Target::Invalid,
            "mailto" => Target::Mailto,
            other => Target::Disallowed(other.to_owned()),
        },
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let base = Url::parse(PROBE_BASE).expect("constant base URL parses");
            let join = |dest: &str| match base.join(dest) {
                Ok(url) if url.host_str() == base.host_str() => Target::Relative,
                Ok(url) if url.host_str().is_some() => Target::Web(url),
                _ => Target::Invalid,
            };
            // Read as written and as a renderer writes it (percent-encoded: a `\` is then
            // `%5C`, no longer a path separator, so `//x\y@host/` reaches `host`); the
            // reading that leaves the host application's origin decides.
            let encoded = percent_encoding::utf8_percent_encode(dest, HREF_ENCODED).to_string();
            match (join(dest), join(&encoded)) {
                (web @ Target::Web(_), _) | (_, web @ Target::Web(_)) => web,
                (Target::Relative, _) | (_, Target::Relative) => Target::Relative,
                _ => Target::Invalid,
            }
        }
        // A renderer percent-encodes what the URL parser refused (`[` in a host:
        // `ttpr://a[b` becomes `ttpr://a%5Bb`, which parses), so the destination is also
        // read as a renderer writes it: another scheme than the web's is refused then
        // too, and a `mailto:` one is `Mailto` (an image loading it is active), not
        // `Invalid` (found by the markdown fuzz target: a `mailto://` image whose opaque
        // host held `>` until cmark-gfm wrote it as `%3E`).
        Err(_) => {
            match Url::parse(&percent_encoding::utf8_percent_encode(dest, HREF_ENCODED).to_string())
            {
                Ok(url) if url.scheme() == "mailto" => Target::Mailto,
                Ok(url) if !matches!(url.scheme(), "http" | "https") => {
                    Target::Disallowed(url.scheme().to_owned())
                }
                // Refused either way, but naming another scheme (`data://:`): inert for
                // a browser, yet a more lenient client may still follow it, so it is
                // treated as that scheme (fails closed).
                _ => match named_scheme(dest).as_deref() {
                    None | Some("http" | "https") => Target::Invalid,
                    Some("mailto") => Target::Mailto,
                    Some(scheme) => Target::Disallowed(scheme.to_owned()),
                },
            }
        }
    }
}

/// The scheme a destination the URL parser refused still names, lowercase: the part
/// before its first `:`, when the URL parser accepts it as a scheme on its own (WHATWG
/// URL §4.4 scheme state; RFC 3986 §3.1 syntax; tabs and newlines dropped as the parser
/// drops them). Only [`classify`]'s fallback uses it.
fn named_scheme(dest: &str) -> Option<String> {
    let (candidate, _) = dest.split_once(':')?;
    Url::parse(&format!("{candidate}:"))
        .ok()
        .map(|url| url.scheme().to_owned())
}

/// What markdown renderers percent-encode in an `href` or `src` (cmark's
/// `houdini_escape_href`): controls, space, non-ASCII, the backtick and `"<>[\]^{|}`.
const HREF_ENCODED: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');
