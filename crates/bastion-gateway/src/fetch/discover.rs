//! OAuth discovery for a protected MCP server through the [`SafeFetcher`]: RFC 9728
//! protected-resource metadata, then RFC 8414 authorization-server metadata, each
//! document judged by the core (`judge_resource_metadata`, `judge_as_metadata`) before
//! anything in it is used. Redirects are not followed during discovery (a 3xx counts as
//! "not here"). The OAuth code flow itself is not part of this module.

use super::{FetchError, FetchRequest, SafeFetcher};
use bastion_core::finding::{Finding, Verdict};
use bastion_core::url_gate::{
    as_metadata_urls, judge_as_metadata, judge_resource_metadata, resource_metadata_urls,
};
use reqwest::header::{ACCEPT, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::{Map, Value};

/// What discovery found: both metadata documents, vetted.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// The protected-resource metadata URL that answered.
    pub resource_metadata_url: Url,
    /// The RFC 9728 document (its `resource` identifies the requested URL).
    pub resource_metadata: Map<String, Value>,
    /// The issuer identifier used: the first entry of `authorization_servers`.
    pub issuer: String,
    /// The RFC 8414 / OIDC metadata URL that answered.
    pub as_metadata_url: Url,
    /// The authorization-server document (its `issuer` equals [`Discovery::issuer`]).
    pub as_metadata: Map<String, Value>,
    /// Findings below `high` on either document and the URLs fetched (audit detail).
    pub findings: Vec<Finding>,
}

/// Why discovery produced no usable metadata.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// A metadata URL could not be fetched, or was refused by the fetcher (SSRF guard:
    /// a `resource_metadata` URL or issuer on a non-public address, ...).
    #[error("OAuth discovery: {0}")]
    Fetch(#[from] FetchError),
    /// A document was fetched but the core refused it (`oauth_resource_mismatch`,
    /// `oauth_issuer_mismatch`, `oauth_issuer_missing`, `private_address` of an
    /// endpoint or issuer, ...); nothing in it is used.
    #[error(
        "OAuth discovery: the {document} at `{url}` is refused: {}",
        first_high(findings)
    )]
    Refused {
        /// `protected-resource metadata` or `authorization-server metadata`.
        document: &'static str,
        /// Where it came from.
        url: String,
        /// The core's findings.
        findings: Vec<Finding>,
    },
    /// No candidate URL answered 200 with a JSON object.
    #[error("OAuth discovery: no {document} found (tried {}); the server may not support OAuth", tried.join(", "))]
    NotFound {
        /// Which document.
        document: &'static str,
        /// Each URL tried, with what it answered.
        tried: Vec<String>,
    },
    /// The protected-resource metadata names no authorization server.
    #[error(
        "OAuth discovery: the protected-resource metadata at `{url}` lists no `authorization_servers`"
    )]
    NoAuthorizationServer {
        /// Where the metadata came from.
        url: String,
    },
}

fn first_high(findings: &[Finding]) -> String {
    use bastion_core::finding::Severity;
    findings
        .iter()
        .find(|f| f.severity >= Severity::High)
        .map_or_else(
            || "refused".to_owned(),
            |f| format!("{} ({})", f.message, f.code.as_str()),
        )
}

impl DiscoveryError {
    /// Stable reason: `oauth_discovery_refused` for [`DiscoveryError::Refused`], the
    /// fetcher's reason ([`FetchError::reason`]) for a fetch failure,
    /// `oauth_metadata_not_found`, `oauth_no_authorization_server`.
    pub const fn reason(&self) -> &'static str {
        match self {
            Self::Fetch(e) => e.reason(),
            Self::Refused { .. } => "oauth_discovery_refused",
            Self::NotFound { .. } => "oauth_metadata_not_found",
            Self::NoAuthorizationServer { .. } => "oauth_no_authorization_server",
        }
    }

    /// The core findings behind a refusal (empty for the other variants).
    pub fn findings(&self) -> &[Finding] {
        match self {
            Self::Fetch(e) => e.findings(),
            Self::Refused { findings, .. } => findings,
            _ => &[],
        }
    }
}

/// The `resource_metadata` parameter of the first challenge carrying one in a
/// `WWW-Authenticate` value (RFC 9728 §5.1; challenge syntax RFC 9110 §11.6.1, parsed by
/// the `http-auth` crate). `None` when absent or the header does not parse.
pub fn resource_metadata_param(www_authenticate: &str) -> Option<String> {
    http_auth::parser::ChallengeParser::new(www_authenticate)
        .filter_map(Result::ok)
        .find_map(|c| {
            c.params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("resource_metadata"))
                .map(|(_, v)| v.to_unescaped())
        })
}

impl SafeFetcher {
    /// Discovers the OAuth metadata of the protected resource `resource_url` (the MCP
    /// server URL the client requested), optionally from the `WWW-Authenticate` value of
    /// its 401 answer:
    ///
    /// 1. protected-resource metadata from the header's `resource_metadata` URL, else
    ///    from `resource_metadata_urls(resource_url)` (RFC 9728 §3.1, then the root);
    ///    judged by `judge_resource_metadata`;
    /// 2. the first `authorization_servers` entry is the issuer; its metadata from
    ///    `as_metadata_urls(issuer)` in order (RFC 8414 §3.1, OIDC Discovery §4),
    ///    judged by `judge_as_metadata` (issuer identical, RFC 8414 §3.3).
    ///
    /// Every request goes through [`SafeFetcher::fetch`] with redirects off. A
    /// candidate answering anything but 200 with a JSON object is skipped; a document
    /// the core refuses stops discovery.
    ///
    /// # Errors
    /// [`DiscoveryError`]: a refused URL or document, nothing found, no issuer.
    pub async fn discover(
        &self,
        resource_url: &str,
        www_authenticate: Option<&str>,
    ) -> Result<Discovery, DiscoveryError> {
        let candidates = match www_authenticate.and_then(resource_metadata_param) {
            Some(url) => vec![url],
            None => resource_metadata_urls(resource_url),
        };
        let (prm_url, prm, mut findings) = self
            .first_document("protected-resource metadata", &candidates, |url, doc| {
                judge_resource_metadata(resource_url, url, doc, self.policy())
            })
            .await?;
        let issuer = prm
            .get("authorization_servers")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .ok_or_else(|| DiscoveryError::NoAuthorizationServer {
                url: prm_url.to_string(),
            })?
            .to_owned();
        let (as_url, as_doc, more) = self
            .first_document(
                "authorization-server metadata",
                &as_metadata_urls(&issuer),
                |url, doc| judge_as_metadata(&issuer, url, doc, self.policy()),
            )
            .await?;
        findings.extend(more);
        Ok(Discovery {
            resource_metadata_url: prm_url,
            resource_metadata: prm,
            issuer,
            as_metadata_url: as_url,
            as_metadata: as_doc,
            findings,
        })
    }

    /// Fetches the candidates in order; the first 200 JSON object is judged by
    /// `judge` and returned unless refused.
    async fn first_document(
        &self,
        document: &'static str,
        candidates: &[String],
        judge: impl Fn(&str, &Map<String, Value>) -> Vec<Finding>,
    ) -> Result<(Url, Map<String, Value>, Vec<Finding>), DiscoveryError> {
        let mut tried = Vec::new();
        for candidate in candidates {
            let request = FetchRequest::get(candidate.as_str())
                .follow_redirects(false)
                .header(ACCEPT, HeaderValue::from_static("application/json"));
            let response = self.fetch(request).await?;
            if response.status != StatusCode::OK {
                tried.push(format!("{candidate} ({})", response.status.as_u16()));
                continue;
            }
            let Ok(Value::Object(doc)) = serde_json::from_slice::<Value>(&response.body) else {
                tried.push(format!("{candidate} (not a JSON object)"));
                continue;
            };
            let mut findings = response.findings;
            findings.extend(judge(response.url.as_str(), &doc));
            if Verdict::from_findings(&findings, false) == Verdict::Block {
                return Err(DiscoveryError::Refused {
                    document,
                    url: response.url.to_string(),
                    findings,
                });
            }
            return Ok((response.url, doc, findings));
        }
        Err(DiscoveryError::NotFound { document, tried })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_from_challenges() {
        assert_eq!(
            resource_metadata_param(
                r#"Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#
            )
            .as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(
            resource_metadata_param(
                r#"Basic realm="x", Bearer scope="a b", Resource_Metadata="https://m.example/p\"q""#
            )
            .as_deref(),
            Some("https://m.example/p\"q")
        );
        assert_eq!(resource_metadata_param(r#"Bearer realm="api""#), None);
        assert_eq!(resource_metadata_param("Bearer =broken"), None);
    }

    #[test]
    fn discovery_errors_have_reasons() {
        let e = DiscoveryError::NotFound {
            document: "protected-resource metadata",
            tried: vec!["https://a.example/.well-known/oauth-protected-resource (404)".into()],
        };
        assert_eq!(
            e.to_string(),
            "OAuth discovery: no protected-resource metadata found (tried https://a.example/.well-known/oauth-protected-resource (404)); the server may not support OAuth"
        );
        assert_eq!(e.reason(), "oauth_metadata_not_found");
        let e = DiscoveryError::NoAuthorizationServer {
            url: "https://a.example/x".into(),
        };
        assert_eq!(e.reason(), "oauth_no_authorization_server");
        assert!(e.findings().is_empty());
    }
}
