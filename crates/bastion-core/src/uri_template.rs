//! Which URIs instantiate an RFC 6570 URI template, strictly: the answer a signed
//! contract's resource templates give when a host reads a resource that no contract
//! resource names (issue 7 §8).
//!
//! A template is compiled to an anchored regular expression: literal text must match
//! exactly, and each expression only what its operator can expand to (RFC 6570 §3.2):
//! simple `{x}` and label `{.x}` values are unreserved characters and percent-encodings
//! (reserved characters are encoded, so no `/`, `?` or `#` of their own); path `{/x}`
//! adds one segment per variable (any number when exploded); `{;x}`, `{?x}`, `{&x}`
//! their parameters; reserved `{+x}` and fragment `{#x}` also reserved characters. A
//! template whose text before the first expression is not an absolute URI prefix with a
//! scheme (`{+path}`, `x{/y}`) instantiates nothing: it would cover every URI. A
//! requested URI with `.` or `..` path segments instantiates nothing either: the server
//! may resolve them to a resource the template does not cover.

use regex::Regex;

/// Unreserved characters and percent-encodings (RFC 3986 §2.3, §2.1).
const UNRESERVED: &str = r"(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})";
/// Also the reserved characters (RFC 3986 §2.2), for `{+x}` and `{#x}`.
const RESERVED: &str = r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})";

/// A compiled template; see the module docs.
#[derive(Debug, Clone)]
pub struct UriTemplate {
    template: String,
    matcher: Option<Regex>,
}

/// Why a template cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// `{` without `}`, `}` without `{`, or an empty or nested expression.
    #[error("URI template {0:?} has an unbalanced or empty expression (RFC 6570 §2.2)")]
    Unbalanced(String),
    /// The text before the first expression does not fix a scheme (`scheme:`): the
    /// template would cover URIs of every kind.
    #[error(
        "URI template {0:?} does not start with a literal scheme (such as `file:///` or `app://`), so it would cover every URI"
    )]
    NoLiteralScheme(String),
}

impl UriTemplate {
    /// Compiles `template`.
    ///
    /// # Errors
    /// [`TemplateError`] when it is malformed or starts without a literal scheme.
    pub fn new(template: &str) -> Result<Self, TemplateError> {
        // The literal prefix must itself be an absolute URI (RFC 3986 §4.3, parsed by the
        // `url` crate): then it fixes the scheme.
        let literal = template.split('{').next().unwrap_or_default();
        if url::Url::parse(literal).is_err() {
            return Err(TemplateError::NoLiteralScheme(template.to_owned()));
        }
        let mut pattern = String::from("^");
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let (lit, after) = rest.split_at(open);
            if lit.contains('}') {
                return Err(TemplateError::Unbalanced(template.to_owned()));
            }
            pattern.push_str(&regex::escape(lit));
            let close = after
                .find('}')
                .ok_or_else(|| TemplateError::Unbalanced(template.to_owned()))?;
            let expr = &after[1..close];
            if expr.is_empty() || expr.contains('{') {
                return Err(TemplateError::Unbalanced(template.to_owned()));
            }
            pattern.push_str(&expression(expr));
            rest = &after[close + 1..];
        }
        if rest.contains('}') {
            return Err(TemplateError::Unbalanced(template.to_owned()));
        }
        pattern.push_str(&regex::escape(rest));
        pattern.push('$');
        let matcher = Regex::new(&pattern).ok();
        Ok(Self {
            template: template.to_owned(),
            matcher,
        })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.template
    }

    /// Whether `uri` (its fragment ignored) is an expansion of this template and has no
    /// `.`/`..` path segments.
    pub fn matches(&self, uri: &str) -> bool {
        let Some(m) = &self.matcher else {
            return false;
        };
        let without_fragment = uri.split('#').next().unwrap_or(uri);
        let path_end = without_fragment
            .find(['?'])
            .unwrap_or(without_fragment.len());
        let dot_segment = without_fragment[..path_end].split('/').any(is_dot_segment);
        !dot_segment && m.is_match(without_fragment)
    }
}

/// Rounds of percent-decoding [`is_dot_segment`] applies: a server that decodes a path
/// twice reads `%252e` as `.`; one that decodes three times is not worth more rounds.
const DECODE_ROUNDS: usize = 3;

/// Whether a path segment is, or may be read by the server as, `.` or `..` (RFC 3986
/// §5.2.4): compared after percent-decoding (`%2e`, `.%2E`, and up to [`DECODE_ROUNDS`]
/// rounds for servers that decode twice), and without a path parameter (`..;x`, which
/// servlet containers resolve as `..`). WHATWG URL's "double-dot segment" lists the same
/// encoded forms.
fn is_dot_segment(segment: &str) -> bool {
    let mut seg = std::borrow::Cow::Borrowed(segment.as_bytes());
    for round in 0..=DECODE_ROUNDS {
        let bare = seg.split(|&b| b == b';').next().unwrap_or_default();
        if bare == b"." || bare == b".." {
            return true;
        }
        if round == DECODE_ROUNDS || !seg.contains(&b'%') {
            return false;
        }
        let decoded: Vec<u8> = percent_encoding::percent_decode(&seg).collect();
        if decoded == *seg {
            return false;
        }
        seg = std::borrow::Cow::Owned(decoded);
    }
    false
}

/// The regex of one expression (`expr` without braces).
fn expression(expr: &str) -> String {
    let (op, vars) = match expr.chars().next() {
        Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &expr[1..]),
        _ => (None, expr),
    };
    let names: Vec<&str> = vars.split(',').collect();
    let explode = names.iter().any(|n| n.ends_with('*'));
    let many = explode || names.len() > 1;
    let list = |item: &str, sep: &str| {
        if many {
            format!("(?:{item}(?:{sep}{item})*)?")
        } else {
            format!("{item}?")
        }
    };
    let value = format!("{UNRESERVED}*");
    let reserved = format!("{RESERVED}*");
    match op {
        None => list(&value, ","),
        Some('+') => reserved,
        Some('#') => format!("(?:#{reserved})?"),
        Some('.') => {
            if many {
                format!(r"(?:\.{value})*")
            } else {
                format!(r"(?:\.{value})?")
            }
        }
        Some('/') => {
            if many {
                format!("(?:/{value})*")
            } else {
                format!("(?:/{value})?")
            }
        }
        Some(';') => format!("(?:;{}(?:={value})?)*", param_names(&names, explode)),
        Some('?') => {
            let name = param_names(&names, explode);
            format!(r"(?:\?{name}={value}(?:&{name}={value})*)?")
        }
        Some('&') => format!("(?:&{}={value})*", param_names(&names, explode)),
        Some(_) => String::from("(?!)"),
    }
}

/// The parameter names a form-style expression may expand to: its variables (without
/// `*` or `:n` modifiers), or any name when one is exploded (an associative array).
fn param_names(names: &[&str], explode: bool) -> String {
    if explode {
        return format!("{UNRESERVED}+");
    }
    let alternatives: Vec<String> = names
        .iter()
        .map(|n| regex::escape(n.split(':').next().unwrap_or(n)))
        .collect();
    format!("(?:{})", alternatives.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> UriTemplate {
        UriTemplate::new(s).unwrap()
    }

    #[test]
    fn instances_match() {
        assert!(t("orders://index{?page}").matches("orders://index"));
        assert!(t("orders://index{?page}").matches("orders://index?page=2"));
        assert!(t("orders://notes{/id}").matches("orders://notes/42"));
        assert!(t("file:///logs/{name}.txt").matches("file:///logs/app%20one.txt"));
        assert!(t("docs://{+path}").matches("docs://a/b/c.md"));
        assert!(t("orders://notes{/id}").matches("orders://notes/42#frag"));
        assert!(t("db://{table}/{id}").matches("db://users/7"));
    }

    #[test]
    fn look_alikes_do_not_match() {
        let index = t("orders://index{?page}");
        for uri in [
            "orders://index-internal-notes",
            "orders://indexX",
            "orders://index/../internal-notes",
            "orders://index/x",
            "orders://index?page=1&admin=1/../x",
        ] {
            assert!(!index.matches(uri), "{uri}");
        }
        let notes = t("orders://notes{/id}");
        assert!(!notes.matches("orders://notes-private/x"));
        assert!(!notes.matches("orders://notes.evil/x"));
        assert!(!notes.matches("orders://notes/a/b"));
        assert!(!notes.matches("orders://notes/.."));
        let simple = t("file:///logs/{name}.txt");
        assert!(!simple.matches("file:///logs/../etc/passwd.txt"));
        assert!(!simple.matches("file:///logs/a/b.txt"));
        assert!(!t("docs://{+path}").matches("docs://a/../../etc/passwd"));
        assert!(!t("docs://{+path}").matches("docs://a/%2E%2E/etc"));
        assert!(!index.matches("orders://index?admin=1"));
        assert!(t("orders://q{?a,b}").matches("orders://q?b=2&a=1"));
    }

    #[test]
    fn encoded_and_parameterised_dot_segments_do_not_match() {
        let path = t("docs://{+path}");
        let notes = t("orders://notes{/id}");
        for seg in [
            "..",
            ".",
            "%2e%2e",
            "%2E%2e",
            ".%2e",
            "%2e.",
            "%2E",
            "..;x",
            "%2e%2e;jsessionid=1",
            "%252e%252e",
            "%25252e%25252e",
            ".;",
            "%2e;",
        ] {
            assert!(
                !path.matches(&format!("docs://a/{seg}/etc/passwd")),
                "{seg}"
            );
            assert!(!notes.matches(&format!("orders://notes/{seg}")), "{seg}");
        }
        // Dots inside a name, and encodings of other characters, are ordinary segments.
        for seg in [
            "...",
            "a..",
            "..a",
            "%2e%2e%2e",
            "v1.2",
            "%41",
            ".hidden",
            "%2e%2ex",
        ] {
            assert!(path.matches(&format!("docs://a/{seg}/b")), "{seg}");
            assert!(notes.matches(&format!("orders://notes/{seg}")), "{seg}");
        }
    }

    #[test]
    fn templates_without_a_literal_scheme_are_refused() {
        assert!(matches!(
            UriTemplate::new("{+path}"),
            Err(TemplateError::NoLiteralScheme(_))
        ));
        assert!(matches!(
            UriTemplate::new("x{/y}"),
            Err(TemplateError::NoLiteralScheme(_))
        ));
        assert!(matches!(
            UriTemplate::new("a://{x"),
            Err(TemplateError::Unbalanced(_))
        ));
        assert!(matches!(
            UriTemplate::new("a://x}"),
            Err(TemplateError::Unbalanced(_))
        ));
        assert!(matches!(
            UriTemplate::new("a://{}"),
            Err(TemplateError::Unbalanced(_))
        ));
    }
}
