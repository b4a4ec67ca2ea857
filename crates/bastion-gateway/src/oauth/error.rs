//! [`OAuthError`]: why no token could be obtained for a remote upstream. Messages never
//! carry a token, code, verifier or client secret.

use super::vault::VaultError;
use crate::fetch::{DiscoveryError, FetchError};
use bastion_core::finding::Finding;

/// Why the OAuth client could not authorize. [`OAuthError::reason`] gives a stable
/// `snake_case` reason for audit events and JSON-RPC error data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// Discovery failed or a metadata document was refused (SSRF guard, foreign
    /// issuer, resource mismatch, ...).
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// The authorization server cannot be used: no PKCE S256, no code flow, an
    /// authorization URL the URL gate refuses, no endpoint needed.
    #[error("the authorization server `{issuer}` cannot be used: {why}")]
    Unsupported {
        /// Its issuer.
        issuer: String,
        /// What is missing or refused.
        why: String,
        /// The core's findings, when the refusal came from one.
        findings: Vec<Finding>,
    },
    /// A request to the token or registration endpoint was refused by the SSRF guard
    /// or failed.
    #[error("OAuth request failed: {0}")]
    Fetch(#[from] FetchError),
    /// Dynamic Client Registration (RFC 7591) was refused or answered nonsense.
    #[error(
        "client registration at `{endpoint}` failed: {why} (pass --oauth-client-id to use a pre-registered client)"
    )]
    Registration {
        /// The registration endpoint.
        endpoint: String,
        /// What went wrong (HTTP status, error code, missing field).
        why: String,
    },
    /// No issuer offers a registration endpoint and no client id was given.
    #[error(
        "the authorization server `{issuer}` has no registration endpoint: pass --oauth-client-id"
    )]
    NoClientId {
        /// The issuer.
        issuer: String,
    },
    /// The loopback redirect listener could not start.
    #[error("cannot listen for the OAuth redirect on 127.0.0.1: {0}")]
    Listener(#[source] std::io::Error),
    /// No authorization response arrived in time.
    #[error("no authorization response arrived within {} s; run `mcp-bastion auth login --url …` to try again", .0.as_secs())]
    CallbackTimeout(std::time::Duration),
    /// The authorization response carried another `state` than the request (CSRF).
    #[error(
        "the authorization response carries another state than the request sent (oauth_state_mismatch); the code is not exchanged"
    )]
    StateMismatch,
    /// RFC 9207: `iss` missing although promised, or another issuer than the request
    /// went to (mix-up attack).
    #[error("the authorization response is refused: {}", first_message(findings))]
    IssuerRefused {
        /// The core's findings (`oauth_issuer_mismatch`, `oauth_issuer_missing`).
        findings: Vec<Finding>,
    },
    /// The authorization server answered with `error=` (RFC 6749 §4.1.2.1).
    #[error("the authorization server refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Denied {
        /// The `error` code (`access_denied`, ...), clipped to printable ASCII.
        error: String,
        /// `error_description`, clipped to printable ASCII.
        description: Option<String>,
    },
    /// The authorization response had no code.
    #[error("the authorization response has no code")]
    NoCode,
    /// The token endpoint refused the grant (RFC 6749 §5.2).
    #[error("the token endpoint refused the {grant}: {error}")]
    TokenRefused {
        /// `authorization code` or `refresh token`.
        grant: &'static str,
        /// The `error` code, clipped to printable ASCII.
        error: String,
    },
    /// The token endpoint's answer could not be used.
    #[error("the token endpoint's answer cannot be used: {0}")]
    BadTokenResponse(String),
    /// The key file or a sealed value.
    #[error(transparent)]
    Vault(#[from] VaultError),
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] bastion_store::StoreError),
    /// The server refused the tokens of too many browser flows already.
    #[error(
        "the server keeps refusing the tokens it is given; {0} browser authorizations were tried already (run `mcp-bastion auth login --url …` to try again)"
    )]
    TooManyAttempts(u32),
    /// The browser could not be started.
    #[error("cannot open a browser ({0}); use --oauth-no-browser to print the URL instead")]
    Browser(String),
}

fn first_message(findings: &[Finding]) -> String {
    findings.first().map_or_else(
        || "refused".to_owned(),
        |f| format!("{} ({})", f.message, f.code.as_str()),
    )
}

impl OAuthError {
    /// Stable reason: the deciding finding code of a refused discovery document
    /// (`oauth_issuer_mismatch`, `private_address`, ...) or else the discovery or fetch
    /// reason, `oauth_unsupported` (or the deciding finding, `oauth_pkce_unsupported`),
    /// `oauth_registration_failed`, `oauth_no_client_id`, `oauth_listener_failed`,
    /// `oauth_callback_timeout`, `oauth_state_mismatch`, the deciding finding code of an
    /// RFC 9207 refusal (`oauth_issuer_mismatch`, `oauth_issuer_missing`),
    /// `oauth_denied`, `oauth_no_code`, `oauth_token_refused`, `oauth_bad_token_response`,
    /// `oauth_key_file`, `store_error`, `oauth_browser_failed`, `oauth_too_many_attempts`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Discovery(e) => e
                .findings()
                .iter()
                .find(|f| f.severity >= bastion_core::finding::Severity::High)
                .map_or(e.reason(), |f| f.code.as_str()),
            Self::Unsupported { findings, .. } => findings
                .first()
                .map_or("oauth_unsupported", |f| f.code.as_str()),
            Self::Fetch(e) => e.reason(),
            Self::Registration { .. } => "oauth_registration_failed",
            Self::NoClientId { .. } => "oauth_no_client_id",
            Self::Listener(_) => "oauth_listener_failed",
            Self::CallbackTimeout(_) => "oauth_callback_timeout",
            Self::StateMismatch => "oauth_state_mismatch",
            Self::IssuerRefused { findings } => findings
                .first()
                .map_or("oauth_issuer_mismatch", |f| f.code.as_str()),
            Self::Denied { .. } => "oauth_denied",
            Self::NoCode => "oauth_no_code",
            Self::TokenRefused { .. } => "oauth_token_refused",
            Self::BadTokenResponse(_) => "oauth_bad_token_response",
            Self::Vault(_) => "oauth_key_file",
            Self::Store(_) => "store_error",
            Self::Browser(_) => "oauth_browser_failed",
            Self::TooManyAttempts(_) => "oauth_too_many_attempts",
        }
    }
}

/// `text` reduced to at most 120 printable ASCII characters (what an authorization
/// server says is shown, never trusted as markup or terminal input).
pub(crate) fn clip_ascii(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .take(120)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bastion_core::finding::{Code, Severity};

    #[test]
    fn reasons_and_messages() {
        let e = OAuthError::IssuerRefused {
            findings: vec![Finding::new(
                Code::OauthIssuerMismatch,
                Severity::High,
                "/callback_query",
                "another issuer",
            )],
        };
        assert_eq!(e.reason(), "oauth_issuer_mismatch");
        assert_eq!(
            e.to_string(),
            "the authorization response is refused: another issuer (oauth_issuer_mismatch)"
        );
        assert_eq!(OAuthError::StateMismatch.reason(), "oauth_state_mismatch");
        let e = OAuthError::Denied {
            error: clip_ascii("access_denied\u{1b}[31m"),
            description: Some("user said no".into()),
        };
        assert_eq!(
            e.to_string(),
            "the authorization server refused: access_denied[31m (user said no)"
        );
        assert_eq!(
            OAuthError::CallbackTimeout(std::time::Duration::from_mins(5)).to_string(),
            "no authorization response arrived within 300 s; run `mcp-bastion auth login --url …` to try again"
        );
    }
}
