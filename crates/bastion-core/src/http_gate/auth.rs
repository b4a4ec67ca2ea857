//! Bearer authentication of hosts: `Authorization: Bearer <token>` (RFC 6750 §2.1), the
//! token's SHA-256 compared with the configured digest in constant time (`subtle`), so
//! neither the comparison time nor a log line reveals the token.

use super::policy::{Auth, token_digest};
use super::request::{HttpRequestView, Lookup};
use super::{RefusalStatus, Rejection};
use crate::finding::Code;
use subtle::ConstantTimeEq;

/// `token68` (RFC 9110 §11.2): `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
pub(crate) fn is_token68(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// Refuses (401) a request without the configured bearer token.
pub(crate) fn check_auth(view: &HttpRequestView<'_>, auth: &Auth) -> Option<Rejection> {
    let Auth::Bearer(want) = auth else {
        return None;
    };
    let why = match view.header("authorization") {
        Lookup::Many => return None, // reported as a duplicate header
        Lookup::Absent => "the request carries no Authorization header",
        Lookup::One(_) => {
            let presented = view
                .header_text("authorization")
                .and_then(|v| v.split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, token)| token.trim())
                .filter(|t| is_token68(t));
            match presented {
                None => "the Authorization header is not `Bearer <token>`",
                Some(token) if bool::from(token_digest(token).ct_eq(want)) => return None,
                Some(_) => "the bearer token is not this listener's",
            }
        }
    };
    Some(Rejection::at_header(
        RefusalStatus::Unauthorized,
        Code::HttpUnauthorized,
        "Authorization",
        format!("{why}; hosts authenticate with the listener's bearer token; refused"),
    ))
}
