//! Resource URIs as identities (RFC 3986 via the `url` crate, WHATWG URL Standard
//! normalization): what counts as "the same resource" when a withheld resource is read,
//! and what of a URI may be written to the audit log.

use url::Url;

/// The identity of a resource URI: parsed and normalized (scheme and host lowercased,
/// `.`/`..` segments resolved, default port dropped), without its fragment (which never
/// reaches the server). `FILE:///./s#x` and `file:///s` have the same key. A string
/// that does not parse as an absolute URI is its own key.
pub fn resource_key(uri: &str) -> String {
    match Url::parse(uri) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.into()
        }
        Err(_) => uri.to_owned(),
    }
}

/// The literal prefix of an RFC 6570 URI template (everything before the first
/// expression `{`), normalized like [`resource_key`] when it parses. A URI whose key
/// starts with this prefix may be an instance of the template.
pub fn template_prefix(template: &str) -> String {
    let literal = template.split('{').next().unwrap_or(template);
    match Url::parse(literal) {
        Ok(u) if !literal.is_empty() => u.into(),
        _ => literal.to_owned(),
    }
}

/// A URI as the audit log may record it: scheme, host and path only (no user
/// information, query or fragment, which may carry tokens). Unparseable input is
/// replaced by a placeholder with its length.
pub fn redacted(uri: &str) -> String {
    match Url::parse(uri) {
        Ok(mut u) => {
            let had_secret_parts =
                u.query().is_some() || u.fragment().is_some() || !u.username().is_empty();
            u.set_query(None);
            u.set_fragment(None);
            let _ = u.set_username("");
            let _ = u.set_password(None);
            let mut s: String = u.into();
            if had_secret_parts {
                s.push_str("?…");
            }
            s
        }
        Err(_) => format!("<unparseable uri, {} bytes>", uri.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_normalize_spellings_of_one_resource() {
        let k = resource_key("file:///s");
        for same in [
            "FILE:///s",
            "file:///./s",
            "file:///s#frag",
            "file:///a/../s",
        ] {
            assert_eq!(resource_key(same), k, "{same}");
        }
        assert_ne!(resource_key("file:///t"), k);
        assert_eq!(
            resource_key("HTTPS://Docs.Example.COM:443/a"),
            "https://docs.example.com/a"
        );
        assert_eq!(resource_key("not a uri"), "not a uri");
    }

    #[test]
    fn template_prefixes() {
        assert_eq!(template_prefix("file:///logs/{name}"), "file:///logs/");
        assert!(
            resource_key("file:///logs/./today.txt")
                .starts_with(&template_prefix("file:///logs/{name}"))
        );
        assert_eq!(
            template_prefix("demo://resource/dynamic/text/{resourceId}"),
            "demo://resource/dynamic/text/"
        );
        assert_eq!(template_prefix("{+path}"), "");
    }

    #[test]
    fn audit_form_drops_secrets() {
        assert_eq!(redacted("file:///SECRET?token=abc#x"), "file:///SECRET?…");
        assert_eq!(
            redacted("https://user:pw@h.example/p"),
            "https://h.example/p?…"
        );
        assert_eq!(redacted("memo://greeting"), "memo://greeting");
        assert_eq!(redacted("::"), "<unparseable uri, 2 bytes>");
    }
}
