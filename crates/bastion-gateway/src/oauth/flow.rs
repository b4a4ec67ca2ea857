//! The interactive flow: discovery, client, authorization request through the browser,
//! the loopback listener, and the code exchange (module docs of [`super`], steps 1–6).

use super::callback;
use super::http::SafeHttp;
use super::tokens::{Held, token_error};
use super::{
    Authorized, Browser, OAuthClient, OAuthError, bearer_param, opener, random_token, register,
};
use bastion_core::finding::Verdict;
use bastion_core::url_gate::{UrlPurpose, assess, judge_code_flow_support};
use oauth2::basic::BasicClient;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use serde_json::Value;

impl OAuthClient {
    /// The interactive flow (module docs), with the flow lock held.
    pub(super) async fn login_locked(
        &self,
        www_authenticate: Option<&str>,
    ) -> Result<Authorized, OAuthError> {
        let inner = &self.inner;
        let discovery = inner
            .fetcher
            .discover(&inner.resource, www_authenticate)
            .await?;
        let issuer = discovery.issuer.clone();
        let meta = &discovery.as_metadata;
        let findings = judge_code_flow_support(meta);
        if !findings.is_empty() {
            return Err(OAuthError::Unsupported {
                issuer,
                why: findings[0].message.clone(),
                findings,
            });
        }
        let auth_url = endpoint(meta, "authorization_endpoint", &issuer)?;
        let token_url = endpoint(meta, "token_endpoint", &issuer)?;
        let iss_required = meta
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let identity = register::client_for(
            inner.options.client_id.as_deref(),
            &issuer,
            meta,
            &inner.fetcher,
            &inner.store,
            &inner.vault,
        )
        .await?;
        let segment = match &identity.redirect_segment {
            Some(s) => s.clone(),
            None => random_token(16)?,
        };
        let state = random_token(32)?;
        let listener = callback::Listener::start(
            &segment,
            callback::Expected {
                state: state.clone(),
                issuer: issuer.clone(),
                iss_required,
            },
        )
        .await?;
        let mut client = BasicClient::new(ClientId::new(identity.client_id.clone()))
            .set_auth_uri(AuthUrl::new(auth_url).map_err(|e| unsupported(&issuer, &e))?)
            .set_token_uri(TokenUrl::new(token_url).map_err(|e| unsupported(&issuer, &e))?)
            .set_redirect_uri(
                RedirectUrl::new(listener.redirect_uri().to_owned())
                    .map_err(|e| unsupported(&issuer, &e))?,
            );
        if let Some(secret) = &identity.client_secret {
            client = client.set_client_secret(ClientSecret::new(secret.clone()));
        }
        if identity.auth_method.as_deref() == Some("client_secret_post") {
            client = client.set_auth_type(AuthType::RequestBody);
        }
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(|| CsrfToken::new(state.clone()))
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", inner.resource.clone());
        for scope in scopes(www_authenticate, &discovery.resource_metadata) {
            request = request.add_scope(Scope::new(scope));
        }
        let (url, _) = request.url();
        self.gate_authorization_url(url.as_str(), &issuer)?;
        eprintln!(
            "mcp-bastion: OAuth: authorize access to {} at {issuer} by opening this URL in a browser:\n{url}",
            inner.resource
        );
        if inner.options.browser == Browser::Open
            && let Err(e) = opener::open_browser(url.as_str())
        {
            eprintln!("mcp-bastion: OAuth: {}", OAuthError::Browser(e));
        }
        let code = listener.wait(inner.options.callback_timeout).await?;
        let http = SafeHttp(&inner.fetcher);
        let token = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .add_extra_param("resource", inner.resource.clone())
            .request_async(&http)
            .await
            .map_err(token_error("authorization code"))?;
        let tokens = Self::token_set(&token, None)?;
        let authorized = Authorized {
            issuer: issuer.clone(),
            client_id: identity.client_id.clone(),
            scope: tokens.scope.clone(),
            expires_in_s: token.expires_in().map(|d| d.as_secs()),
            refreshable: tokens.refresh_token.is_some(),
        };
        self.save(Held {
            issuer,
            client_id: identity.client_id,
            tokens,
        })
        .await?;
        Ok(authorized)
    }

    /// The authorization URL must pass [`authorization_url_allowed`] under this
    /// client's URL policy.
    fn gate_authorization_url(&self, url: &str, issuer: &str) -> Result<(), OAuthError> {
        authorization_url_allowed(url, self.inner.fetcher.policy()).map_err(|findings| {
            OAuthError::Unsupported {
                issuer: issuer.to_owned(),
                why: "its authorization URL is refused by the URL gate (https only; http only to loopback with --allow-http-loopback)".into(),
                findings,
            }
        })
    }
}

/// Whether an authorization URL may be opened in the user's browser: the core URL gate
/// (purpose navigate, `policy` otherwise as given) must not block it, and its scheme must
/// be `https`, or `http` to a loopback IP when `policy.allow_loopback_http` (the
/// development flag). Anything else (`javascript:`, `file:`, `data:`, custom schemes,
/// plain `http` to another host) is refused.
///
/// # Errors
/// The gate's findings (possibly empty when only the scheme rule refused).
pub fn authorization_url_allowed(
    url: &str,
    policy: &bastion_core::url_gate::UrlPolicy,
) -> Result<(), Vec<bastion_core::finding::Finding>> {
    let policy = policy.clone().with_purpose(UrlPurpose::Navigate);
    let a = assess(url, &policy, "/authorization_url");
    let parsed = a
        .normalized
        .as_deref()
        .and_then(|n| url::Url::parse(n).ok());
    let scheme_ok = parsed.as_ref().is_some_and(|u| match u.scheme() {
        "https" => true,
        "http" => {
            policy.allow_loopback_http
                && matches!(
                    a.address_class,
                    Some(bastion_core::url_gate::AddressClass::Loopback)
                )
        }
        _ => false,
    });
    if a.verdict == Verdict::Block || !scheme_ok {
        return Err(a.findings);
    }
    Ok(())
}

pub(super) fn unsupported(issuer: &str, e: &dyn std::fmt::Display) -> OAuthError {
    OAuthError::Unsupported {
        issuer: issuer.to_owned(),
        why: format!("an endpoint URL does not parse: {e}"),
        findings: Vec::new(),
    }
}

/// Metadata endpoint `key`, which must be present.
pub(super) fn endpoint(
    meta: &serde_json::Map<String, Value>,
    key: &str,
    issuer: &str,
) -> Result<String, OAuthError> {
    meta.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| OAuthError::Unsupported {
            issuer: issuer.to_owned(),
            why: format!("its metadata has no `{key}`"),
            findings: Vec::new(),
        })
}

/// The scopes to request (MCP authorization 2025-11-25 "Scope Selection Strategy"): the
/// challenge's `scope`, else the protected-resource metadata's `scopes_supported`, else
/// none.
fn scopes(
    www_authenticate: Option<&str>,
    resource_metadata: &serde_json::Map<String, Value>,
) -> Vec<String> {
    if let Some(scope) = www_authenticate.and_then(|w| bearer_param(w, "scope")) {
        return scope.split_whitespace().map(str::to_owned).collect();
    }
    resource_metadata
        .get("scopes_supported")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::is_bearer_challenge;
    use super::*;
    use serde_json::json;

    #[test]
    fn challenge_parameters_and_scope_selection() {
        let w = r#"Basic realm="x", Bearer resource_metadata="https://m.example/.well-known/oauth-protected-resource", scope="files:read files:write""#;
        assert!(is_bearer_challenge(w));
        assert!(!is_bearer_challenge(r#"Basic realm="x""#));
        assert_eq!(
            bearer_param(w, "scope").as_deref(),
            Some("files:read files:write")
        );
        let prm = json!({"scopes_supported": ["a", "b"]});
        let prm = prm.as_object().unwrap();
        assert_eq!(scopes(Some(w), prm), ["files:read", "files:write"]);
        assert_eq!(scopes(Some("Bearer realm=\"x\""), prm), ["a", "b"]);
        assert!(scopes(None, &serde_json::Map::new()).is_empty());
    }

    #[test]
    fn only_https_authorization_urls_are_opened() {
        use bastion_core::url_gate::UrlPolicy;
        let safe = UrlPolicy::default();
        let dev = UrlPolicy::default().with_loopback_http(true);
        let ok = "https://as.example.com/authorize?response_type=code&client_id=c&state=s&code_challenge=x&code_challenge_method=S256";
        assert!(authorization_url_allowed(ok, &safe).is_ok());
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,<script>x</script>",
            "vscode://x/authorize",
            "http://as.example.com/authorize",
            "http://127.0.0.1:8080/authorize",
            "https://user:pw@as.example.com/authorize",
        ] {
            assert!(authorization_url_allowed(bad, &safe).is_err(), "{bad}");
        }
        assert!(authorization_url_allowed("http://127.0.0.1:8080/authorize", &dev).is_ok());
        assert!(authorization_url_allowed("http://as.example.com/authorize", &dev).is_err());
    }
}
