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
mod flow;
mod http;
pub mod opener;
mod register;
mod tokens;
pub mod vault;

pub use error::OAuthError;
pub use flow::authorization_url_allowed;
pub use vault::{Vault, VaultError};

use tokens::{Held, TokenSet};

use crate::fetch::SafeFetcher;
use reqwest::header::HeaderValue;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
}

#[cfg(test)]
mod tests {
    use super::*;

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
