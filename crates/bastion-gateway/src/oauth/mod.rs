//! The OAuth client for remote upstreams (`wrap --url`, `auth login`; issue 8 item 3),
//! following MCP authorization 2025-11-25:
//!
//! 1. discovery through the [`SafeFetcher`]: RFC 9728 protected-resource metadata (from
//!    the 401's `WWW-Authenticate: Bearer resource_metadata=…` or the well-known URLs),
//!    then RFC 8414 / OIDC metadata of its first authorization server, whose `issuer`
//!    must equal the identifier the well-known URL was built from
//!    ([`SafeFetcher::discover`]);
//! 2. the server must offer the code flow with PKCE `S256`
//!    (`bastion_core::url_gate::judge_code_flow_support`, else `oauth_pkce_unsupported`);
//! 3. the client: `--oauth-client-id`, else one registered by RFC 7591 and remembered
//!    per issuer ([`register`]);
//! 4. authorization code + PKCE S256 (RFC 7636) with the `oauth2` crate: a random
//!    `state` (256 bits), the RFC 8707 `resource` parameter = the MCP server URL, scopes
//!    from the challenge's `scope` or the metadata's `scopes_supported`; the
//!    authorization URL passes the core URL gate (https only; http only to loopback
//!    under the development flag) and is opened without a shell ([`opener`]) or printed
//!    on stderr (`--oauth-no-browser`);
//! 5. one response on the loopback redirect listener ([`callback`]): state, RFC 9207
//!    `iss` (required when the metadata says `authorization_response_iss_parameter_supported`),
//!    `error=`;
//! 6. the code is exchanged at the token endpoint through the [`SafeFetcher`] (the SSRF
//!    guard covers the token and registration endpoints too) with the PKCE verifier and
//!    `resource`; the token set is sealed ([`vault`]) and stored per issuer, resource and
//!    client id. An expired access token is refreshed with the refresh token; a refresh
//!    failure falls back to the interactive flow.
//!
//! Tokens, codes, verifiers and client secrets are never printed, logged or audited,
//! and never sent anywhere but the token endpoint and (the access token) the MCP server
//! they were issued for.

mod callback;
mod error;
mod http;
pub mod opener;
mod register;
pub mod vault;

pub use error::OAuthError;
pub use vault::{Vault, VaultError};

use crate::fetch::SafeFetcher;
use bastion_core::finding::Verdict;
use bastion_core::url_gate::{UrlPurpose, assess, judge_code_flow_support};
use http::SafeHttp;
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenType};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use reqwest::header::HeaderValue;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An access token this close to its expiry (ms) counts as expired: refreshed first.
const EXPIRY_MARGIN_MS: i64 = 60_000;

/// Browser flows a server's 401 answers may start in one process: a server that refuses
/// every token it gets cannot send the user to the browser again and again.
pub const MAX_INTERACTIVE_FLOWS: u32 = 3;

/// How the authorization URL reaches the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Browser {
    /// Open it in the default browser ([`opener`]); it is also printed on stderr.
    Open,
    /// Only print it on stderr (`--oauth-no-browser`).
    Print,
}

/// Settings of the OAuth client.
///
/// # Defaults
/// No client id (Dynamic Client Registration), [`Browser::Open`], 300 s to complete the
/// authorization in the browser.
#[derive(Debug, Clone)]
pub struct OAuthOptions {
    /// A client id registered beforehand at the authorization server
    /// (`--oauth-client-id`); `None` registers one (RFC 7591).
    pub client_id: Option<String>,
    /// How the authorization URL reaches the user.
    pub browser: Browser,
    /// How long the loopback listener waits for the authorization response.
    pub callback_timeout: Duration,
    /// The key file that seals tokens at rest ([`Vault`]).
    pub key_file: PathBuf,
}

impl OAuthOptions {
    /// The defaults with the key file at `key_file`.
    pub fn new(key_file: PathBuf) -> Self {
        Self {
            client_id: None,
            browser: Browser::Open,
            callback_timeout: Duration::from_mins(5),
            key_file,
        }
    }
}

/// A token set as stored (sealed). `Debug` shows no token.
#[derive(Clone, Serialize, Deserialize)]
struct TokenSet {
    access_token: String,
    refresh_token: Option<String>,
    /// Unix ms; `None` when the server gave no `expires_in`.
    expires_at_ms: Option<i64>,
    scope: Option<String>,
}

impl TokenSet {
    fn expired(&self, now_ms: i64) -> bool {
        self.expires_at_ms
            .is_some_and(|t| t <= now_ms.saturating_add(EXPIRY_MARGIN_MS))
    }
}

/// The token set in use and where it came from.
#[derive(Clone)]
struct Held {
    issuer: String,
    client_id: String,
    tokens: TokenSet,
}

/// What a completed authorization obtained (no secret in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorized {
    /// The issuer that granted it.
    pub issuer: String,
    /// The client id used.
    pub client_id: String,
    /// The scope granted, when the server said.
    pub scope: Option<String>,
    /// The access token's lifetime in seconds, when the server said.
    pub expires_in_s: Option<u64>,
    /// A refresh token was issued.
    pub refreshable: bool,
}

/// The OAuth client of one remote MCP server (module docs). Cheap to clone.
#[derive(Clone)]
pub struct OAuthClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("resource", &self.inner.resource)
            .finish_non_exhaustive()
    }
}

struct Inner {
    fetcher: SafeFetcher,
    resource: String,
    store: bastion_store::Store,
    vault: Vault,
    options: OAuthOptions,
    current: Mutex<Option<Held>>,
    /// Bumped whenever a new token set is taken into use.
    generation: AtomicU64,
    /// One authorization or refresh at a time.
    flow: tokio::sync::Mutex<()>,
    /// Browser flows started by [`OAuthClient::reauthorize`] so far.
    interactive: std::sync::atomic::AtomicU32,
}

/// `n` random bytes from the OS, base64url without padding.
pub(crate) fn random_token(n: usize) -> Result<String, OAuthError> {
    use base64::Engine as _;
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| VaultError::Random(e.to_string()))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The canonical form of an MCP server URL used as RFC 8707 `resource` and as the
/// storage key: the URL as parsed by WHATWG rules (lowercase scheme and host, default
/// port dropped), without fragment.
///
/// # Errors
/// [`OAuthError::Unsupported`] when `url` does not parse.
pub fn canonical_resource(url: &str) -> Result<String, OAuthError> {
    let mut u = url::Url::parse(url).map_err(|e| OAuthError::Unsupported {
        issuer: String::new(),
        why: format!("the server URL does not parse: {e}"),
        findings: Vec::new(),
    })?;
    u.set_fragment(None);
    Ok(u.to_string())
}

/// The value of parameter `name` in the first `Bearer` challenge of a
/// `WWW-Authenticate` value (RFC 9110 §11.6.1, RFC 6750 §3).
pub fn bearer_param(www_authenticate: &str, name: &str) -> Option<String> {
    http_auth::parser::ChallengeParser::new(www_authenticate)
        .filter_map(Result::ok)
        .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
        .and_then(|c| {
            c.params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.to_unescaped())
        })
}

/// Whether a `WWW-Authenticate` value carries a `Bearer` challenge.
pub fn is_bearer_challenge(www_authenticate: &str) -> bool {
    http_auth::parser::ChallengeParser::new(www_authenticate)
        .filter_map(Result::ok)
        .any(|c| c.scheme.eq_ignore_ascii_case("bearer"))
}

fn token_row_key(issuer: &str, resource: &str, client_id: &str) -> Vec<u8> {
    vault::row_key("mcp-bastion oauth token v1", &[issuer, resource, client_id])
}

type TokenError = RequestTokenError<crate::fetch::FetchError, BasicErrorResponse>;

fn token_error(grant: &'static str) -> impl Fn(TokenError) -> OAuthError {
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
    /// The client of the MCP server at `resource_url`, opening (creating) the key file.
    ///
    /// # Errors
    /// [`OAuthError::Vault`] when the key file is unsafe or unreadable;
    /// [`OAuthError::Unsupported`] when the URL does not parse.
    pub fn new(
        fetcher: SafeFetcher,
        resource_url: &str,
        store: bastion_store::Store,
        options: OAuthOptions,
    ) -> Result<Self, OAuthError> {
        let vault = Vault::open_or_create(&options.key_file)?;
        Ok(Self {
            inner: Arc::new(Inner {
                fetcher,
                resource: canonical_resource(resource_url)?,
                store,
                vault,
                options,
                current: Mutex::new(None),
                generation: AtomicU64::new(0),
                flow: tokio::sync::Mutex::new(()),
                interactive: std::sync::atomic::AtomicU32::new(0),
            }),
        })
    }

    /// The canonical server URL (RFC 8707 resource).
    pub fn resource(&self) -> &str {
        &self.inner.resource
    }

    fn held(&self) -> Option<Held> {
        self.inner
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn set_held(&self, held: Option<Held>) {
        *self
            .inner
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = held;
        self.inner.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The generation of the token set in use (compare with [`OAuthClient::reauthorize`]).
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::SeqCst)
    }

    /// The `Authorization` value to send now, if a token is known: the one in memory,
    /// else the newest stored one for this server that opens with the key. An expired
    /// one is refreshed first (one refresh at a time); when that fails, `None` (the
    /// server's 401 then starts the interactive flow). Returns the generation too.
    pub async fn bearer(&self) -> (u64, Option<HeaderValue>) {
        if self.held().is_none() {
            let _guard = self.inner.flow.lock().await;
            if self.held().is_none()
                && let Some(held) = self.load_stored().await
            {
                self.set_held(Some(held));
            }
        }
        if self
            .held()
            .is_some_and(|h| h.tokens.expired(crate::now_ms()))
        {
            let _guard = self.inner.flow.lock().await;
            if let Some(held) = self.held()
                && held.tokens.expired(crate::now_ms())
                && let Err(e) = self.refresh(&held).await
            {
                eprintln!(
                    "mcp-bastion: OAuth: refreshing the token for {} failed: {e}",
                    self.inner.resource
                );
                self.set_held(None);
            }
        }
        self.bearer_now()
    }

    /// The `Authorization` value of the token set in use, as it is (no store lookup, no
    /// refresh): for the retry right after an authorization, whose token is used even
    /// when its lifetime is shorter than the expiry margin.
    pub fn bearer_now(&self) -> (u64, Option<HeaderValue>) {
        let generation = self.generation();
        let value = self.held().and_then(|h| {
            let mut v = HeaderValue::from_str(&format!("Bearer {}", h.tokens.access_token)).ok()?;
            v.set_sensitive(true);
            Some(v)
        });
        (generation, value)
    }

    /// After the server refused the token of generation `seen` (401): unless another
    /// request already replaced it, try the refresh token, then the interactive flow.
    /// Runs in its own task, so a caller that stops waiting does not abort a flow the
    /// user is completing; callers wait one at a time. At most
    /// [`MAX_INTERACTIVE_FLOWS`] browser flows per client.
    ///
    /// # Errors
    /// [`OAuthError`] when no new token could be obtained.
    pub async fn reauthorize(
        &self,
        seen: u64,
        www_authenticate: Option<String>,
    ) -> Result<Option<Authorized>, OAuthError> {
        let this = self.clone();
        let task = tokio::spawn(async move {
            let _guard = this.inner.flow.lock().await;
            if this.generation() != seen {
                return Ok(None);
            }
            if let Some(held) = this.held() {
                if held.tokens.refresh_token.is_some() && this.refresh(&held).await.is_ok() {
                    return Ok(None);
                }
                this.set_held(None);
            }
            if this.inner.interactive.fetch_add(1, Ordering::SeqCst) >= MAX_INTERACTIVE_FLOWS {
                return Err(OAuthError::TooManyAttempts(MAX_INTERACTIVE_FLOWS));
            }
            this.login_locked(www_authenticate.as_deref())
                .await
                .map(Some)
        });
        task.await.unwrap_or_else(|e| {
            Err(OAuthError::BadTokenResponse(format!(
                "the authorization task ended: {e}"
            )))
        })
    }

    /// Runs the interactive flow now (`mcp-bastion auth login`), whatever is stored.
    ///
    /// # Errors
    /// [`OAuthError`] for every way the flow can fail (module docs).
    pub async fn login(&self, www_authenticate: Option<&str>) -> Result<Authorized, OAuthError> {
        let _guard = self.inner.flow.lock().await;
        self.login_locked(www_authenticate).await
    }

    /// Deletes every stored token set of this server; how many there were.
    ///
    /// # Errors
    /// [`OAuthError::Store`].
    pub async fn logout(&self) -> Result<u64, OAuthError> {
        self.set_held(None);
        Ok(self
            .inner
            .store
            .delete_oauth_tokens(&self.inner.resource)
            .await?)
    }

    /// The newest stored token set of this server that opens; rows that do not open
    /// (another key, a row moved to another issuer or client) are reported and skipped.
    async fn load_stored(&self) -> Option<Held> {
        let rows = match self
            .inner
            .store
            .oauth_tokens_for(&self.inner.resource)
            .await
        {
            Ok(rows) => rows,
            Err(e) => {
                eprintln!("mcp-bastion: OAuth: cannot read stored tokens: {e}");
                return None;
            }
        };
        for row in rows {
            let key = token_row_key(&row.issuer, &row.resource, &row.client_id);
            match self.inner.vault.open(&key, &row.sealed) {
                Ok(plain) => {
                    if let Ok(tokens) = serde_json::from_slice::<TokenSet>(&plain) {
                        return Some(Held {
                            issuer: row.issuer,
                            client_id: row.client_id,
                            tokens,
                        });
                    }
                }
                Err(e) => eprintln!(
                    "mcp-bastion: OAuth: the stored token of issuer {} for {} is ignored: {e}",
                    row.issuer, row.resource
                ),
            }
        }
        None
    }

    async fn save(&self, held: Held) -> Result<(), OAuthError> {
        let plain = serde_json::to_vec(&held.tokens).unwrap_or_default();
        let key = token_row_key(&held.issuer, &self.inner.resource, &held.client_id);
        self.inner
            .store
            .put_oauth_token(&bastion_store::OAuthTokenRow {
                issuer: held.issuer.clone(),
                resource: self.inner.resource.clone(),
                client_id: held.client_id.clone(),
                sealed: self.inner.vault.seal(&key, &plain)?,
                updated_ms: crate::now_ms(),
            })
            .await?;
        self.set_held(Some(held));
        Ok(())
    }

    fn token_set(
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
    async fn refresh(&self, held: &Held) -> Result<(), OAuthError> {
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

    /// The interactive flow (module docs), with the flow lock held.
    async fn login_locked(&self, www_authenticate: Option<&str>) -> Result<Authorized, OAuthError> {
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

fn unsupported(issuer: &str, e: &dyn std::fmt::Display) -> OAuthError {
    OAuthError::Unsupported {
        issuer: issuer.to_owned(),
        why: format!("an endpoint URL does not parse: {e}"),
        findings: Vec::new(),
    }
}

/// Metadata endpoint `key`, which must be present.
fn endpoint(
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

    #[test]
    fn resources_are_canonical() {
        assert_eq!(
            canonical_resource("HTTPS://MCP.Example.com:443/mcp#frag").unwrap(),
            "https://mcp.example.com/mcp"
        );
        assert!(canonical_resource("not a url").is_err());
    }

    #[test]
    fn token_sets_expire_with_a_margin_and_never_show_in_debug() {
        let t = TokenSet {
            access_token: "at".into(),
            refresh_token: None,
            expires_at_ms: Some(100_000),
            scope: None,
        };
        assert!(t.expired(50_000));
        assert!(!t.expired(30_000));
        assert!(random_token(32).unwrap().len() >= 43);
        assert_ne!(random_token(16).unwrap(), random_token(16).unwrap());
    }
}
