//! Token sets: what is stored (sealed) per issuer, resource and client, the refresh
//! grant, and the token endpoint's errors as [`OAuthError`]s.

use super::flow::{endpoint, unsupported};
use super::http::SafeHttp;
use super::{OAuthClient, OAuthError, error, register};
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenType};
use oauth2::{
    AuthType, ClientId, ClientSecret, RefreshToken, RequestTokenError, TokenResponse, TokenUrl,
};
use reqwest::header::HeaderValue;
use serde::{Deserialize, Serialize};

/// An access token this close to its expiry (ms) counts as expired: refreshed first.
pub(super) const EXPIRY_MARGIN_MS: i64 = 60_000;

/// A token set as stored (sealed). No `Debug`: it would show the tokens.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct TokenSet {
    pub(super) access_token: String,
    pub(super) refresh_token: Option<String>,
    /// Unix ms; `None` when the server gave no `expires_in`.
    pub(super) expires_at_ms: Option<i64>,
    pub(super) scope: Option<String>,
}

impl TokenSet {
    pub(super) fn expired(&self, now_ms: i64) -> bool {
        self.expires_at_ms
            .is_some_and(|t| t <= now_ms.saturating_add(EXPIRY_MARGIN_MS))
    }
}

/// The token set in use and where it came from.
#[derive(Clone)]
pub(super) struct Held {
    pub(super) issuer: String,
    pub(super) client_id: String,
    pub(super) tokens: TokenSet,
}

type TokenError = RequestTokenError<crate::fetch::FetchError, BasicErrorResponse>;

pub(super) fn token_error(grant: &'static str) -> impl Fn(TokenError) -> OAuthError {
    move |e| match e {
        RequestTokenError::ServerResponse(r) => OAuthError::TokenRefused {
            grant,
            error: error::clip_ascii(r.error().as_ref()),
        },
        RequestTokenError::Request(e) => OAuthError::Fetch(e),
        // The parser's message may quote the body: never shown.
        RequestTokenError::Parse(..) => {
            OAuthError::BadTokenResponse("not a token response (RFC 6749 §5.1)".into())
        }
        RequestTokenError::Other(s) => OAuthError::BadTokenResponse(error::clip_ascii(&s)),
    }
}

impl OAuthClient {
    pub(super) fn token_set(
        token: &oauth2::basic::BasicTokenResponse,
        previous_refresh: Option<String>,
    ) -> Result<TokenSet, OAuthError> {
        if *token.token_type() != BasicTokenType::Bearer {
            return Err(OAuthError::BadTokenResponse(
                "the token type is not Bearer".into(),
            ));
        }
        let access = token.access_token().secret().clone();
        if HeaderValue::from_str(&access).is_err() || access.is_empty() {
            return Err(OAuthError::BadTokenResponse(
                "the access token cannot be sent in a header".into(),
            ));
        }
        Ok(TokenSet {
            access_token: access,
            refresh_token: token
                .refresh_token()
                .map(|r| r.secret().clone())
                .or(previous_refresh),
            expires_at_ms: token.expires_in().map(|d| {
                crate::now_ms().saturating_add(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            }),
            scope: token.scopes().map(|s| {
                s.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
        })
    }

    /// Exchanges the refresh token of `held`, after re-running discovery (the issuer
    /// must still be the one that issued it).
    pub(super) async fn refresh(&self, held: &Held) -> Result<(), OAuthError> {
        let Some(refresh) = held.tokens.refresh_token.clone() else {
            return Err(OAuthError::TokenRefused {
                grant: "refresh token",
                error: "no refresh token".into(),
            });
        };
        let discovery = self
            .inner
            .fetcher
            .discover(&self.inner.resource, None)
            .await?;
        if discovery.issuer != held.issuer {
            return Err(OAuthError::Unsupported {
                issuer: discovery.issuer,
                why: format!("the server now names another issuer than `{}`", held.issuer),
                findings: Vec::new(),
            });
        }
        let identity = register::client_for(
            self.inner.options.client_id.as_deref(),
            &held.issuer,
            &discovery.as_metadata,
            &self.inner.fetcher,
            &self.inner.store,
            &self.inner.vault,
        )
        .await?;
        if identity.client_id != held.client_id {
            return Err(OAuthError::TokenRefused {
                grant: "refresh token",
                error: "the token belongs to another client".into(),
            });
        }
        let token_url = endpoint(&discovery.as_metadata, "token_endpoint", &held.issuer)?;
        let mut client = BasicClient::new(ClientId::new(identity.client_id.clone()))
            .set_token_uri(TokenUrl::new(token_url).map_err(|e| unsupported(&held.issuer, &e))?);
        if let Some(secret) = &identity.client_secret {
            client = client.set_client_secret(ClientSecret::new(secret.clone()));
        }
        if identity.auth_method.as_deref() == Some("client_secret_post") {
            client = client.set_auth_type(AuthType::RequestBody);
        }
        let http = SafeHttp(&self.inner.fetcher);
        let token = client
            .exchange_refresh_token(&RefreshToken::new(refresh.clone()))
            .add_extra_param("resource", self.inner.resource.clone())
            .request_async(&http)
            .await
            .map_err(token_error("refresh token"))?;
        let tokens = Self::token_set(&token, Some(refresh))?;
        self.save(Held {
            issuer: held.issuer.clone(),
            client_id: held.client_id.clone(),
            tokens,
        })
        .await
    }
}
