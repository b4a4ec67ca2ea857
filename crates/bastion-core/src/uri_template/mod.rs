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
//! scheme (`{+path}`, `x{/y}`) instantiates nothing: it would cover every URI. The URI
//! is matched whole, as the server receives it (a fragment only where the template has a
//! `{#x}` expression), and one that may take the server outside the template
//! instantiates nothing either: `.`/`..` pieces (also percent-encoded, up to three
//! rounds, or as overlong UTF-8 or fullwidth look-alikes), separators encoded inside a
//! path segment, empty path segments and drive letters.

use regex::Regex;
mod escape;

use escape::{empty_segment, escapes};

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

    /// Whether `uri` is an expansion of this template that stays inside it: the whole
    /// URI as the server will receive it (a fragment only where the template has a
    /// `{#x}` expression) matches, and the part after the template's literal prefix
    /// does not lead out of it: no `.`/`..` piece (also encoded or as a look-alike), no
    /// separator encoded inside a path segment, no empty path segment, no drive letter.
    pub fn matches(&self, uri: &str) -> bool {
        let Some(m) = &self.matcher else {
            return false;
        };
        let literal = self.template.split('{').next().unwrap_or_default();
        m.is_match(uri)
            && !uri.strip_prefix(literal).is_none_or(|rest| {
                escapes(rest, literal.ends_with([':', '/'])) || empty_segment(uri)
            })
    }
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
    fn what_reaches_the_server_is_checked_whole() {
        let notes = t("orders://notes{/id}");
        let path = t("docs://{+path}");
        let data = t("file:///data/{name}");
        let deep = t("file:///data/{+path}");
        let db = t("db://{table}/{id}");
        for (tpl, uri) in [
            // A fragment the template does not provide for reaches the server too.
            (&notes, "orders://notes/42#/../../secret"),
            (&notes, "orders://notes/42#frag"),
            // A reserved expansion may hold `?`: the pieces after it count.
            (&path, "docs://a?/../../etc/passwd"),
            // Separators encoded inside a segment, once or twice, or as look-alikes.
            (&path, "docs://a/..%2f..%2fetc%2fpasswd"),
            (&path, "docs://a/%2e%2e%2f%2e%2e/etc/passwd"),
            (&data, "file:///data/..%2f..%2fetc%2fpasswd"),
            (&data, "file:///data/%2Fetc%2Fpasswd"),
            (&data, "file:///data/a%252Fb"),
            (&db, "db://users/..%2fadmin"),
            (&notes, "orders://notes/..%5csecret"),
            (&path, "docs://a/..%5c..%5cetc%5cpasswd"),
            (&path, "docs://a/%c0%ae%c0%ae/etc"),
            (&path, "docs://a/%e0%80%ae%e0%80%ae/etc"),
            (&path, "docs://a/%ef%bc%8e%ef%bc%8e/etc"),
            (&data, "file:///data/a%c0%afb"),
            // Trailing controls and spaces, absolute paths, drive letters.
            (&path, "docs://a/..%00/etc"),
            (&path, "docs://a/..%20/etc"),
            (&path, "docs://a/..%09/etc"),
            (&deep, "file:///data//etc/passwd"),
            (&deep, "file:///data/C:/Windows/win.ini"),
            // A second review: an absolute rest, query values read as paths,
            // drive-relative names, compatibility look-alikes (NFKC).
            (&path, "docs:///etc/passwd"),
            (&t("files://read{?q}"), "files://read?q=%2Fetc%2Fpasswd"),
            (&t("files://read{?q}"), "files://read?q=..%2Fsecret"),
            (&t("files://read{?q}"), "files://read?q=.."),
            (&t("files://read{?q}"), "files://read?q=%2e%2e"),
            (&t("files://read{?a,q}"), "files://read?a=1&q=..%2Fsecret"),
            (&data, "file:///data/D%3Awin.ini"),
            (&deep, "file:///data/D:x/y"),
            (&data, "file:///data/%E2%80%A5"),
            (&path, "docs://a/%E2%80%A5/%E2%80%A5/etc/passwd"),
            (&path, "docs://a/%EF%B9%92%EF%B9%92/etc/passwd"),
            (&path, "docs://a/%E2%80%A4%E2%80%A4/etc/passwd"),
            (&data, "file:///data/..%EF%B9%A8win.ini"),
            // A third review: `://` after the path, drive letters in a query value, a stray
            // invalid byte beside a look-alike.
            (&t("app:/data{+path}"), "app:/data//etc/passwd?x=://"),
            (&t("file:/data{+path}"), "file:/data//etc/passwd#://"),
            (&t("file:///data/{+path}{?f}"), "file:///data/x?f=C%3A.."),
            (&t("file:///data/{x}{?f}"), "file:///data/x?f=C%3Awin.ini"),
            (&deep, "file:///data/%E2%80%A5/%FF"),
        ] {
            assert!(!tpl.matches(uri), "{uri}");
        }
        for (tpl, uri) in [
            (&notes, "orders://notes/42"),
            (&path, "docs://a/b/c.md"),
            (&data, "file:///data/report%202024.txt"),
            (&deep, "file:///data/a/b"),
            (&path, "docs://a/..txt"),
            (&path, "docs://a/.well-known/b;v=1"),
            (&t("files://read{?q}"), "files://read?q=a%2Fb"),
            (&t("files://read{?q}"), "files://read?q=..x"),
            (&t("docs://page{#section}"), "docs://page#intro"),
            (
                &t("file:///home/u/{+path}"),
                "file:///home/u/My%20Docs/a.txt",
            ),
            (
                &t("github://repo/issues{?state,page}"),
                "github://repo/issues?state=open&page=2",
            ),
            (&path, "docs://a/user@host:8080/x"),
            (&path, "docs://a/v1.2.3/.env"),
            (&t("files://read{?q}"), "files://read?q=50%25"),
            (
                &t("files://read{?redirect}"),
                "files://read?redirect=https%3A%2F%2Fx.y%2Fz",
            ),
            (&t("files://read{?sort}"), "files://read?sort=asc%3A1"),
            (&data, "file:///data/%EA%B0%80%EB%82%98.txt"),
        ] {
            assert!(tpl.matches(uri), "{uri}");
        }
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
