//! URI schemes of `resource_link` blocks and embedded resources (MCP 2025-11-25 "Tools
//! §Resource Links", "§Embedded Resources"). A host may render either as a link or open
//! it; `javascript:` and `vbscript:` run script, `data:` inlines arbitrary content as a
//! link target. Custom MCP schemes (`memo://`, `demo://`, `file://`, `git://`, …) pass.
//!
//! The scheme is read as a browser reads it (WHATWG URL Standard, basic URL parser):
//! leading C0 controls and spaces are skipped and ASCII tab and newlines are ignored, so
//! `" java\tscript:…"` has the scheme `javascript`; RFC 3986 §3.1 gives its syntax
//! (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`) and case-insensitivity.

use crate::sanitize::ContentPolicy;

/// Schemes refused in resource URIs whatever the policy (lowercase, no colon);
/// [`ContentPolicy::denied_uri_schemes`] adds to them.
pub const DANGEROUS_URI_SCHEMES: &[&str] = &["javascript", "vbscript", "data"];

/// The scheme of `uri`, lowercase, or `None` for a reference without one.
pub(crate) fn scheme(uri: &str) -> Option<String> {
    let mut out = String::new();
    for ch in uri
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
    {
        match ch {
            ':' if !out.is_empty() => return Some(out),
            c if c.is_ascii_alphabetic() => out.push(c.to_ascii_lowercase()),
            c if !out.is_empty() && (c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) => {
                out.push(c);
            }
            _ => return None,
        }
    }
    None
}

/// The scheme of `uri` when the policy refuses it. The URI is judged both as received
/// and as it reaches the host after hidden characters and controls are removed
/// ([`crate::sanitize::sanitize_text`], applied to every string later): a zero-width
/// space inside `java​script:` must not hide the scheme from this check and then vanish.
pub(crate) fn refused(uri: &str, policy: &ContentPolicy) -> Option<String> {
    let cleaned = crate::sanitize::sanitize_text(uri);
    [scheme(uri), scheme(&cleaned.text)]
        .into_iter()
        .flatten()
        .find(|scheme| {
            DANGEROUS_URI_SCHEMES.contains(&scheme.as_str())
                || policy
                    .denied_uri_schemes
                    .iter()
                    .any(|d| d.trim().trim_end_matches(':').eq_ignore_ascii_case(scheme))
        })
}

/// `uri` as inert text for a marker: at most 80 characters, backticks percent-encoded so
/// that it stays inside a code span.
pub(crate) fn shown(uri: &str) -> String {
    let mut out: String = uri.chars().take(80).collect();
    if out.len() < uri.len() {
        out.push('…');
    }
    out.replace('`', "%60")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_are_read_like_a_browser() {
        for (uri, want) in [
            ("javascript:alert(1)", Some("javascript")),
            (" \u{0}JaVa\tScRiPt:alert(1)", Some("javascript")),
            ("java\nscript:x", Some("javascript")),
            ("data:text/html;base64,PHNjcmlwdD4=", Some("data")),
            ("VBScript:msgbox", Some("vbscript")),
            ("memo://greeting", Some("memo")),
            ("git+ssh://host/repo", Some("git+ssh")),
            ("file:///tmp/x", Some("file")),
            ("relative/path", None),
            ("/abs:colon", None),
            ("1abc:x", None),
            ("", None),
        ] {
            assert_eq!(scheme(uri).as_deref(), want, "{uri:?}");
        }
    }

    #[test]
    fn builtin_and_policy_denials() {
        let policy = ContentPolicy {
            denied_uri_schemes: vec!["FTP:".into(), " smb ".into()],
            ..ContentPolicy::default()
        };
        for uri in [
            "javascript:x",
            "data:,x",
            "vbscript:x",
            "ftp://h/x",
            "SMB://h/s",
        ] {
            assert!(refused(uri, &policy).is_some(), "{uri}");
        }
        for uri in [
            "memo://a",
            "demo://resource/1",
            "file:///a",
            "https://e.example/",
            "git://h/r",
        ] {
            assert_eq!(refused(uri, &policy), None, "{uri}");
        }
    }

    /// Found by the `result` fuzz target: a hidden character inside the scheme hid it
    /// from this check, and the text sanitizer then removed it on the way to the host.
    #[test]
    fn hidden_characters_cannot_hide_a_refused_scheme() {
        let policy = ContentPolicy::default();
        for uri in [
            "java\u{200b}script:alert(1)",
            "Java\u{e0001}\tScript:fetch(x)",
            "vb\u{202e}script:msgbox",
            "da\u{feff}ta:text/html,x",
            "java\u{1b}[0mscript:x",
        ] {
            assert!(refused(uri, &policy).is_some(), "{uri:?}");
        }
        assert_eq!(refused("memo\u{200b}://a", &policy), None);
    }

    #[test]
    fn shown_uris_are_short_and_stay_in_code() {
        assert_eq!(shown("javascript:`x`"), "javascript:%60x%60");
        let long = format!("data:text/html,{}", "a".repeat(200));
        assert_eq!(shown(&long).chars().count(), 81);
    }
}
