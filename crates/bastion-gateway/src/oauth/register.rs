//! The OAuth client identity at an issuer: `--oauth-client-id` when given, else a client
//! registered once by Dynamic Client Registration (RFC 7591 §3) through the
//! [`SafeFetcher`] and remembered per issuer in the store, its details sealed.

use super::error::{OAuthError, clip_ascii};
use super::vault::{Vault, row_key};
use crate::fetch::{FetchRequest, SafeFetcher};
use bastion_store::{OAuthClientRow, Store};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A client usable at one issuer. `Debug` shows no secret.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct ClientIdentity {
    /// The client id.
    pub(crate) client_id: String,
    /// The client secret, when the server issued one (a confidential registration).
    pub(crate) client_secret: Option<String>,
    /// `client_secret_post` or `client_secret_basic` when a secret is used.
    pub(crate) auth_method: Option<String>,
    /// The redirect path segment registered (`/callback/{segment}`); `None` for a
    /// pre-registered client (a fresh random segment per flow).
    pub(crate) redirect_segment: Option<String>,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientIdentity")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .finish_non_exhaustive()
    }
}

/// The associated data of a sealed registration.
fn client_row_key(issuer: &str, client_id: &str) -> Vec<u8> {
    row_key("mcp-bastion oauth client v1", &[issuer, client_id])
}

/// The client to use at `issuer`: `given` (a pre-registered id), else the one
/// registered earlier, else a new registration at the metadata's
/// `registration_endpoint`.
///
/// # Errors
/// [`OAuthError::NoClientId`] when no id is given and the issuer has no registration
/// endpoint; [`OAuthError::Registration`], [`OAuthError::Fetch`] (the SSRF guard refused
/// the endpoint), [`OAuthError::Store`], [`OAuthError::Vault`].
pub(crate) async fn client_for(
    given: Option<&str>,
    issuer: &str,
    as_metadata: &serde_json::Map<String, Value>,
    fetcher: &SafeFetcher,
    store: &Store,
    vault: &Vault,
) -> Result<ClientIdentity, OAuthError> {
    if let Some(id) = given {
        return Ok(ClientIdentity {
            client_id: id.to_owned(),
            client_secret: None,
            auth_method: None,
            redirect_segment: None,
        });
    }
    if let Some(row) = store.oauth_client(issuer).await? {
        // A row that does not open (moved, other key) is ignored: register anew.
        if let Ok(plain) = vault.open(&client_row_key(issuer, &row.client_id), &row.sealed)
            && let Ok(identity) = serde_json::from_slice::<ClientIdentity>(&plain)
            && identity.client_id == row.client_id
        {
            return Ok(identity);
        }
    }
    let endpoint = as_metadata
        .get("registration_endpoint")
        .and_then(Value::as_str)
        .ok_or_else(|| OAuthError::NoClientId {
            issuer: issuer.to_owned(),
        })?;
    let segment = super::random_token(16)?;
    let body = json!({
        "client_name": "MCP Bastion",
        // RFC 8252 §7.3: the server must accept any port on a loopback redirect URI.
        "redirect_uris": [format!("http://127.0.0.1/callback/{segment}")],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    let request = FetchRequest::post(
        endpoint,
        "application/json",
        serde_json::to_vec(&body).unwrap_or_default(),
    )
    .follow_redirects(false)
    .header(
        reqwest::header::ACCEPT,
        reqwest::header::HeaderValue::from_static("application/json"),
    );
    let response = fetcher.fetch(request).await?;
    let fail = |why: String| OAuthError::Registration {
        endpoint: endpoint.chars().take(200).collect(),
        why,
    };
    let doc: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
    if !response.status.is_success() {
        let error = doc.get("error").and_then(Value::as_str).unwrap_or("");
        return Err(fail(format!(
            "HTTP {} {}",
            response.status.as_u16(),
            clip_ascii(error)
        )));
    }
    let client_id = doc
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| fail("the answer has no client_id".into()))?;
    let identity = ClientIdentity {
        client_id: client_id.to_owned(),
        client_secret: doc
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned),
        auth_method: doc
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .filter(|m| *m != "none")
            .map(str::to_owned),
        redirect_segment: Some(segment),
    };
    let plain = serde_json::to_vec(&identity).unwrap_or_default();
    store
        .put_oauth_client(&OAuthClientRow {
            issuer: issuer.to_owned(),
            client_id: identity.client_id.clone(),
            sealed: vault.seal(&client_row_key(issuer, &identity.client_id), &plain)?,
            registered_ms: crate::now_ms(),
        })
        .await?;
    Ok(identity)
}
