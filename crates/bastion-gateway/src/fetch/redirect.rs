//! Following one redirect by hand (RFC 9110 §15.4): which statuses are followed, where
//! they lead, and how the next request changes. The target is judged by the caller
//! (gate, resolver) before anything is sent to it.

use super::{FetchError, FetchRequest};
use reqwest::header::{self, HeaderMap};
use reqwest::{Method, StatusCode, Url};

/// `true` for the redirect statuses a client follows: 301, 302, 303, 307, 308
/// (RFC 9110 §15.4.2-§15.4.9; 300 and 304 are not redirects to follow).
pub(super) fn is_followed(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// The redirect target: `Location` resolved against the current URL (RFC 9110 §10.2.2,
/// by the WHATWG URL parser); a fragment-less `Location` keeps no fragment.
///
/// # Errors
/// [`FetchError::BadRedirect`] when `Location` is missing, not visible ASCII, or not a
/// URL reference.
pub(super) fn target(
    current: &Url,
    status: StatusCode,
    headers: &HeaderMap,
) -> Result<Url, FetchError> {
    let bad = |why| FetchError::BadRedirect {
        url: current.to_string(),
        status: status.as_u16(),
        why,
    };
    let location = headers
        .get(header::LOCATION)
        .ok_or_else(|| bad("no `Location` header"))?
        .to_str()
        .map_err(|_| bad("a `Location` header that is not visible ASCII"))?;
    current
        .join(location)
        .map_err(|_| bad("a `Location` that is not a URL"))
}

/// Adjusts `request` for the next hop: 303 turns any method but `HEAD` into `GET`, and
/// 301/302 turn `POST` into `GET` (RFC 9110 §15.4.2-§15.4.4, as browsers do), dropping
/// the body and its headers; a hop to another origin drops `Authorization`, `Cookie`
/// and `Proxy-Authorization` so no credential follows a redirect elsewhere.
pub(super) fn rewrite(request: &mut FetchRequest, status: StatusCode, from: &Url, to: &Url) {
    let to_get = match status.as_u16() {
        303 => request.method != Method::HEAD,
        301 | 302 => request.method == Method::POST,
        _ => false,
    };
    if to_get {
        request.method = Method::GET;
        request.body = None;
        for h in [
            header::CONTENT_TYPE,
            header::CONTENT_LENGTH,
            header::CONTENT_ENCODING,
        ] {
            request.headers.remove(h);
        }
    }
    if from.origin() != to.origin() {
        for h in [
            header::AUTHORIZATION,
            header::COOKIE,
            header::PROXY_AUTHORIZATION,
        ] {
            request.headers.remove(h);
        }
    }
    request.url = to.to_string();
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn followed_statuses() {
        for s in [301, 302, 303, 307, 308] {
            assert!(is_followed(StatusCode::from_u16(s).unwrap()), "{s}");
        }
        for s in [200, 300, 304, 305, 400] {
            assert!(!is_followed(StatusCode::from_u16(s).unwrap()), "{s}");
        }
    }

    #[test]
    fn target_resolves_relative_and_refuses_missing() {
        let cur = url("https://a.example/x/y?q=1");
        let mut h = HeaderMap::new();
        h.insert(header::LOCATION, HeaderValue::from_static("../z"));
        assert_eq!(
            target(&cur, StatusCode::FOUND, &h).unwrap().as_str(),
            "https://a.example/z"
        );
        h.insert(header::LOCATION, HeaderValue::from_static("//b.example/p"));
        assert_eq!(
            target(&cur, StatusCode::FOUND, &h).unwrap().as_str(),
            "https://b.example/p"
        );
        let e = target(&cur, StatusCode::FOUND, &HeaderMap::new()).unwrap_err();
        assert_eq!(e.reason(), "bad_redirect");
        h.insert(header::LOCATION, HeaderValue::from_static("http://[::1"));
        assert_eq!(
            target(&cur, StatusCode::FOUND, &h).unwrap_err().reason(),
            "bad_redirect"
        );
    }

    #[test]
    fn rewrite_method_and_credentials() {
        let mut r = FetchRequest::post("https://a.example/t", "application/json", b"{}".to_vec())
            .header(header::AUTHORIZATION, HeaderValue::from_static("Bearer x"));
        rewrite(
            &mut r,
            StatusCode::TEMPORARY_REDIRECT,
            &url("https://a.example/t"),
            &url("https://a.example/u"),
        );
        assert_eq!(r.method, Method::POST);
        assert!(r.body.is_some());
        assert!(r.headers.contains_key(header::AUTHORIZATION));
        rewrite(
            &mut r,
            StatusCode::FOUND,
            &url("https://a.example/u"),
            &url("https://b.example/v"),
        );
        assert_eq!(r.method, Method::GET);
        assert!(r.body.is_none());
        assert!(!r.headers.contains_key(header::CONTENT_TYPE));
        assert!(!r.headers.contains_key(header::AUTHORIZATION));
        assert_eq!(r.url, "https://b.example/v");
    }
}
