//! Resource URIs as identities (RFC 3986 via the `url` crate, WHATWG URL Standard
//! normalization): what counts as "the same resource" when a withheld resource is read,
//! and what of a URI may be written to the audit log.

use std::borrow::Cow;
use url::Url;

/// The identity of a resource URI: parsed and normalized (scheme and host lowercased,
/// `.`/`..` segments resolved, default port dropped), without its fragment (which never
/// reaches the server) or an empty query (`?` alone), with percent-encoded unreserved
/// characters decoded and other percent-encodings in uppercase hex (RFC 3986 §6.2.2.2).
/// `FILE:///./s#x`, `file:///%73` and `file:///s?` have the same key as `file:///s`. A
/// string that does not parse as an absolute URI is its own key.
pub fn resource_key(uri: &str) -> String {
    match Url::parse(uri) {
        Ok(u) => normalized(u).into(),
        Err(_) => uri.to_owned(),
    }
}

/// A second identity of `uri` for the withheld checks, when its path holds an encoded
/// `/` or `\` (`%2F`, `%5C`): the key of the URI with those decoded to `/` in the path
/// (not in the host or query) and runs of `/` in the path made one. Many servers decode
/// the whole path before using it (`file:///logs%2Ftoday` read as `/logs/today`,
/// `file:///%2Fsecret.txt` as `//secret.txt`), so a withheld resource is refused under
/// either identity. `None` when the path has no such escape or `uri` does not parse.
pub fn separator_decoded_key(uri: &str) -> Option<String> {
    let mut u = normalized(Url::parse(uri).ok()?);
    // The other escapes are uppercase already: the path changes only where a separator
    // is decoded.
    let Cow::Owned(decoded) =
        rewrite_escapes(u.path(), |b| matches!(b, b'/' | b'\\').then_some('/'))
    else {
        return None;
    };
    let mut path = String::with_capacity(decoded.len());
    for c in decoded.chars() {
        if !(c == '/' && path.ends_with('/')) {
            path.push(c);
        }
    }
    // Setting the path resolves the `..` and `.` segments the decoding revealed.
    u.set_path(&path);
    Some(normalized(u).into())
}

/// `u` without fragment or empty query, its host (of a scheme the URL Standard does not
/// know, whose host it keeps as written) lowercased, its host, path and query
/// percent-normalized.
fn normalized(mut u: Url) -> Url {
    u.set_fragment(None);
    if let Some(host) = u.host_str()
        && matches!(u.host(), Some(url::Host::Domain(_)))
    {
        // Decoded first (`%4E` is `N`), then lowercased, then the remaining escapes in
        // uppercase hex again.
        let lower = normalize_percent(&normalize_percent(host).to_ascii_lowercase()).into_owned();
        if lower != host {
            let _ = u.set_host(Some(&lower));
        }
    }
    if let Some(q) = u.query() {
        if q.is_empty() {
            u.set_query(None);
        } else if let Cow::Owned(q) = normalize_percent(q) {
            u.set_query(Some(&q));
        }
    }
    if let Cow::Owned(p) = normalize_percent(u.path()) {
        u.set_path(&p);
    }
    u
}

/// RFC 3986 §6.2.2.2 percent-encoding normalization of an already parsed component:
/// `%XX` of an unreserved character (`ALPHA / DIGIT / "-" / "." / "_" / "~"`, §2.3)
/// becomes the character, every other `%XX` gets uppercase hex digits. Borrowed when
/// nothing changes.
fn normalize_percent(s: &str) -> Cow<'_, str> {
    rewrite_escapes(s, |b| {
        (b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
            .then_some(char::from(b))
    })
}

/// `s` with every `%XX` escape (two hex digits) replaced by `decode(byte)` when that
/// gives a character, and otherwise written with uppercase hex digits; a `%` without two
/// hex digits after it stays as it is. Borrowed when nothing changes.
fn rewrite_escapes(s: &str, decode: impl Fn(u8) -> Option<char>) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !b.contains(&b'%') {
        return Cow::Borrowed(s);
    }
    let hex = |c: u8| char::from(c).to_digit(16);
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            // Two hex digits: at most 0xFF.
            let byte = u8::try_from(h * 16 + l).unwrap_or(u8::MAX);
            out.push_str(&s[last..i]);
            if let Some(c) = decode(byte) {
                out.push(c);
            } else {
                out.push('%');
                out.push_str(&s[i + 1..i + 3].to_ascii_uppercase());
            }
            i += 3;
            last = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[last..]);
    if out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out)
    }
}

/// The literal prefix of an RFC 6570 URI template (everything before the first
/// expression `{`), normalized like [`resource_key`] when it parses. A URI whose key
/// starts with this prefix may be an instance of the template.
pub fn template_prefix(template: &str) -> String {
    let literal = template.split('{').next().unwrap_or(template);
    match Url::parse(literal) {
        Ok(u) if !literal.is_empty() => normalized(u).into(),
        _ => literal.to_owned(),
    }
}

/// A URI as the audit log may record it: scheme, host and path only (no user
/// information, query or fragment, which may carry tokens). A `data:` URI is its content
/// (RFC 2397), so only the scheme and its length remain (`data:<N bytes>`). Unparseable
/// input is replaced by a placeholder with its length.
pub fn redacted(uri: &str) -> String {
    match Url::parse(uri) {
        Ok(u) if u.scheme() == "data" => format!("data:<{} bytes>", uri.len()),
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
        // Percent-encoded unreserved characters and an empty query (RFC 3986 §6.2.2.2).
        let k = resource_key("file:///secret.txt");
        for same in [
            "file:///%73ecret.txt",
            "file:///secret%2Etxt",
            "file:///secret%2etxt",
            "file:///secret.txt?",
            "file:///%73%65cret.txt#x",
        ] {
            assert_eq!(resource_key(same), k, "{same}");
        }
        // Reserved and other characters stay encoded, in uppercase hex.
        assert_eq!(resource_key("file:///a%2fb"), "file:///a%2Fb");
        assert_ne!(resource_key("file:///a%2fb"), resource_key("file:///a/b"));
        assert_eq!(resource_key("file:///%e6%9d%b1"), "file:///%E6%9D%B1");
        assert_eq!(resource_key("memo://x?q=%41%7e&r"), "memo://x?q=A~&r");
        // The host of a scheme the URL Standard does not know is lowercased and
        // percent-normalized too (RFC 3986 §6.2.2.1).
        assert_eq!(resource_key("memo://NOTES/secret"), "memo://notes/secret");
        assert_eq!(resource_key("memo://not%65s/secret"), "memo://notes/secret");
        assert_eq!(resource_key("memo://N%C3%A9/x"), "memo://n%C3%A9/x");
        assert_eq!(
            resource_key("memo://%4E%4F%54%45%53/secret"),
            "memo://notes/secret"
        );
        // A lone or broken escape is left as it is.
        assert_eq!(resource_key("memo://x/%"), "memo://x/%");
        assert_eq!(resource_key("memo://x/%4"), "memo://x/%4");
        assert_eq!(resource_key("memo://x/%zz1"), "memo://x/%zz1");
        assert_eq!(
            resource_key("HTTPS://Docs.Example.COM:443/a"),
            "https://docs.example.com/a"
        );
        assert_eq!(resource_key("not a uri"), "not a uri");
    }

    #[test]
    fn encoded_separators_give_a_second_identity() {
        assert_eq!(separator_decoded_key("file:///secret.txt"), None);
        assert_eq!(
            separator_decoded_key("file:///logs%2Ftoday").as_deref(),
            Some("file:///logs/today")
        );
        assert_eq!(
            separator_decoded_key("file:///%2Fsecret.txt").as_deref(),
            Some("file:///secret.txt")
        );
        assert_eq!(
            separator_decoded_key("file:///x/..%2fsecret.txt").as_deref(),
            Some("file:///secret.txt")
        );
        assert_eq!(
            separator_decoded_key("file:///a%5Cb%2F%2F%2Fc").as_deref(),
            Some("file:///a/b/c")
        );
        // Other escapes stay (and are normalized as in the first key); the host and the
        // query are not decoded.
        assert_eq!(
            separator_decoded_key("memo://h/a%2Fb%41%25").as_deref(),
            Some("memo://h/a/bA%25")
        );
        assert_eq!(
            separator_decoded_key("repo://octo%2Fhello/x%2Fy?q=%2F").as_deref(),
            Some("repo://octo%2Fhello/x/y?q=%2F")
        );
        assert_eq!(separator_decoded_key("repo://octo%2Fhello/README.md"), None);
        assert_eq!(separator_decoded_key("%2F"), None);
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
        let data = "data:text/plain;charset=utf-8,API_KEY=sk-live-1234";
        assert_eq!(redacted(data), format!("data:<{} bytes>", data.len()));
        assert_eq!(redacted("DATA:,secret"), "data:<12 bytes>");
        assert_eq!(redacted("::"), "<unparseable uri, 2 bytes>");
    }
}
