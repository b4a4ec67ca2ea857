//! OAuth discovery decisions (pure): which metadata URLs belong to a resource or an
//! issuer, and whether a fetched metadata document may be used.
//!
//! * RFC 9728 (OAuth 2.0 Protected Resource Metadata) §3.1 well-known URL, §3.3
//!   `resource` validation; MCP authorization (2025-11-25) "Protected Resource Metadata
//!   Discovery" root fallback.
//! * RFC 8414 (OAuth 2.0 Authorization Server Metadata) §3.1 well-known URLs and
//!   `OpenID` Connect Discovery 1.0 §4, §3.3 `issuer` validation.
//!
//! The gateway's discovery fetches these URLs with the SSRF-safe fetcher and uses a
//! document only when the judgement here has no `high` finding; `check url` runs the
//! same functions on simulated documents (`context: "as_metadata"` and
//! `"resource_metadata"`).

use super::{UrlPolicy, UrlPurpose, assess};
use crate::finding::{Code, Finding, Severity, pointer_push};
use serde_json::{Map, Value};

/// RFC 9207 §2.4, the mix-up defence: `callback_query` (the query of the authorization
/// response at the client's redirect URI, with or without the leading `?`) must carry
/// exactly one `iss` equal to `expected_issuer` (the issuer the request went to, compared
/// as strings, no normalization), and must carry one when `iss_required` (the issuer's
/// metadata says `authorization_response_iss_parameter_supported: true`). Findings
/// (path `/callback_query`): `oauth_issuer_missing`, `oauth_issuer_mismatch`, both
/// `high`: the code must not be exchanged. Also returns the `iss` values found.
pub fn judge_authorization_response(
    expected_issuer: &str,
    callback_query: &str,
    iss_required: bool,
) -> (Vec<Finding>, Vec<String>) {
    let query = callback_query.strip_prefix('?').unwrap_or(callback_query);
    let iss: Vec<String> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| k == "iss")
        .map(|(_, v)| v.into_owned())
        .collect();
    let mut findings = Vec::new();
    match iss.as_slice() {
        [] if iss_required => findings.push(Finding::new(
            Code::OauthIssuerMissing,
            Severity::High,
            "/callback_query",
            "the authorization response has no `iss` although the server promised one (RFC 9207 §2.4); the code is not exchanged".to_owned(),
        )),
        [] => {}
        [one] if one == expected_issuer => {}
        _ => findings.push(Finding::new(
            Code::OauthIssuerMismatch,
            Severity::High,
            "/callback_query",
            format!(
                "the authorization response comes from issuer `{}`, not `{}` the request went to (RFC 9207 mix-up defence); the code is not exchanged",
                iss.join("`, `").chars().take(160).collect::<String>(),
                clip(expected_issuer)
            ),
        )),
    }
    (findings, iss)
}

/// Whether an authorization server's metadata allows the flow MCP clients must use
/// (MCP authorization 2025-11-25 "Authorization Code Protection"; RFC 7636 §4.2,
/// RFC 8414 §2): `code_challenge_methods_supported` must list `S256` (absent or without
/// it: `oauth_pkce_unsupported`, `high`, path `/metadata/code_challenge_methods_supported`:
/// do not start the flow), and `response_types_supported`, when present, must list
/// `code` (`oauth_pkce_unsupported` too: no code flow).
pub fn judge_code_flow_support(metadata: &Map<String, Value>) -> Vec<Finding> {
    let lists = |key: &str, want: &str| {
        metadata
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(want)))
    };
    let mut findings = Vec::new();
    if !lists("code_challenge_methods_supported", "S256") {
        findings.push(Finding::new(
            Code::OauthPkceUnsupported,
            Severity::High,
            "/metadata/code_challenge_methods_supported",
            "the authorization server does not advertise PKCE with S256 (RFC 7636); MCP clients must refuse it, no authorization is attempted".to_owned(),
        ));
    }
    if metadata.contains_key("response_types_supported")
        && !lists("response_types_supported", "code")
    {
        findings.push(Finding::new(
            Code::OauthPkceUnsupported,
            Severity::High,
            "/metadata/response_types_supported",
            "the authorization server does not support the authorization code flow (`response_types_supported` lacks `code`)".to_owned(),
        ));
    }
    findings
}

fn clip(s: &str) -> String {
    s.chars().take(120).collect()
}

/// The metadata URLs of an authorization-server issuer identifier, in the order a
/// client tries them (MCP authorization 2025-11-25 "Authorization Server Metadata
/// Discovery"): RFC 8414 §3.1 `/.well-known/oauth-authorization-server` inserted
/// between host and path, `OpenID` Connect `/.well-known/openid-configuration` inserted,
/// then appended to the path (OIDC Discovery §4), then `oauth-authorization-server`
/// appended. Duplicates (an issuer without a path) are listed once. Empty when
/// `issuer` is not an absolute URL.
pub fn as_metadata_urls(issuer: &str) -> Vec<String> {
    let Ok(u) = url::Url::parse(issuer) else {
        return Vec::new();
    };
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/');
    let mut out: Vec<String> = Vec::with_capacity(4);
    for candidate in [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
        format!("{origin}{path}/.well-known/oauth-authorization-server"),
    ] {
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

/// RFC 8414 authorization-server metadata fetched from `metadata_url` for `issuer`:
/// `issuer` and `metadata_url` pass the gate under `policy` (paths `/issuer_identifier`,
/// `/metadata_url`); `metadata_url` must be one of [`as_metadata_urls`] (§3.1, else
/// `oauth_metadata_url_mismatch`); `metadata.issuer` must be identical to `issuer`
/// (§3.3, else `oauth_issuer_mismatch`, or `oauth_issuer_missing`); every endpoint URL
/// (`*_endpoint`, `*_uri`) passes the gate (`authorization_endpoint` to navigate, the
/// rest to fetch; paths `/metadata/<key>`). A `high` finding means: discard the
/// document, send no token, code or client secret to its endpoints.
pub fn judge_as_metadata(
    issuer: &str,
    metadata_url: &str,
    metadata: &Map<String, Value>,
    policy: &UrlPolicy,
) -> Vec<Finding> {
    let fetch = policy.clone().with_purpose(UrlPurpose::Fetch);
    let mut findings = assess(issuer, &fetch, "/issuer_identifier").findings;
    let fetched = assess(metadata_url, &fetch, "/metadata_url");
    findings.extend(fetched.findings.iter().cloned());
    let normalized = fetched.normalized.as_deref().unwrap_or(metadata_url);
    if !as_metadata_urls(issuer).iter().any(|w| w == normalized) {
        findings.push(Finding::new(
            Code::OauthMetadataUrlMismatch,
            Severity::High,
            "/metadata_url",
            format!(
                "the metadata URL is not the well-known URL of the issuer `{}` (RFC 8414 §3.1); metadata from elsewhere is not used",
                clip(issuer)
            ),
        ));
    }
    match metadata.get("issuer").and_then(Value::as_str) {
        None => findings.push(Finding::new(
            Code::OauthIssuerMissing,
            Severity::High,
            "/metadata/issuer",
            "the authorization-server metadata has no `issuer` (RFC 8414 §2 requires it); discarded".to_owned(),
        )),
        Some(got) if got != issuer => findings.push(Finding::new(
            Code::OauthIssuerMismatch,
            Severity::High,
            "/metadata/issuer",
            format!(
                "the metadata names the issuer `{}`, not `{}` whose well-known URL was fetched (RFC 8414 §3.3); discarded: no token, code or client secret may be sent to its endpoints",
                clip(got),
                clip(issuer)
            ),
        )),
        Some(_) => {}
    }
    let navigate = fetch.clone().with_purpose(UrlPurpose::Navigate);
    for (key, value) in metadata {
        let is_url = key.ends_with("_endpoint") || key.ends_with("_uri");
        let (true, Some(u)) = (is_url, value.as_str()) else {
            continue;
        };
        let p = if key == "authorization_endpoint" {
            &navigate
        } else {
            &fetch
        };
        findings.extend(assess(u, p, &pointer_push("/metadata", key)).findings);
    }
    findings
}

/// The protected-resource metadata URLs of a resource URL, in the order a client tries
/// them: RFC 9728 §3.1 `/.well-known/oauth-protected-resource` inserted between host
/// and path (query and fragment dropped), then at the root (MCP authorization
/// 2025-11-25 fallback). Listed once when the resource has no path. Empty when
/// `resource` is not an absolute URL.
pub fn resource_metadata_urls(resource: &str) -> Vec<String> {
    let Ok(u) = url::Url::parse(resource) else {
        return Vec::new();
    };
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/');
    let inserted = format!("{origin}/.well-known/oauth-protected-resource{path}");
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if inserted == root {
        vec![root]
    } else {
        vec![inserted, root]
    }
}

/// `true` when the metadata's `resource` identifies `requested`: the same origin and a
/// path equal to, or a segment-wise prefix of, the requested path (RFC 9728 §3.3 asks
/// for identity; MCP servers publish their base URL, so a resource at `/` covers
/// `/mcp`, as the MCP SDKs accept). Both are compared after WHATWG normalization.
fn covers(declared: &str, requested: &str) -> bool {
    let (Ok(d), Ok(r)) = (url::Url::parse(declared), url::Url::parse(requested)) else {
        return false;
    };
    if d.origin() != r.origin() || d.query().is_some() || d.fragment().is_some() {
        return false;
    }
    let dp = d.path().trim_end_matches('/');
    let rp = r.path().trim_end_matches('/');
    rp == dp || rp.starts_with(&format!("{dp}/"))
}

/// RFC 9728 protected-resource metadata fetched from `metadata_url` for the resource
/// the client requested (`resource`): both URLs pass the gate under `policy` (paths
/// `/resource`, `/metadata_url`); `metadata.resource` must be present and identify
/// `resource` (§3.3: same origin, and the same path or a parent path segment, after
/// WHATWG normalization; else `oauth_resource_mismatch`); each entry of
/// `authorization_servers` must be a URL string passing the gate (to fetch; paths
/// `/metadata/authorization_servers/N`), so a loopback or metadata-address issuer is
/// refused before its metadata is requested. A `high` finding means: discard.
pub fn judge_resource_metadata(
    resource: &str,
    metadata_url: &str,
    metadata: &Map<String, Value>,
    policy: &UrlPolicy,
) -> Vec<Finding> {
    let fetch = policy.clone().with_purpose(UrlPurpose::Fetch);
    let mut findings = assess(resource, &fetch, "/resource").findings;
    findings.extend(assess(metadata_url, &fetch, "/metadata_url").findings);
    match metadata.get("resource").and_then(Value::as_str) {
        None => findings.push(Finding::new(
            Code::OauthResourceMismatch,
            Severity::High,
            "/metadata/resource",
            "the protected-resource metadata has no `resource` (RFC 9728 §2 requires it); discarded".to_owned(),
        )),
        Some(declared) if !covers(declared, resource) => findings.push(Finding::new(
            Code::OauthResourceMismatch,
            Severity::High,
            "/metadata/resource",
            format!(
                "the protected-resource metadata describes `{}`, not `{}` (RFC 9728 §3.3); discarded: its authorization servers are not used",
                clip(declared),
                clip(resource)
            ),
        )),
        Some(_) => {}
    }
    if let Some(servers) = metadata.get("authorization_servers") {
        let list = servers.as_array().map_or(&[][..], Vec::as_slice);
        if !servers.is_array() {
            findings.push(Finding::new(
                Code::UrlMalformed,
                Severity::High,
                "/metadata/authorization_servers",
                "`authorization_servers` must be an array of issuer URLs (RFC 9728 §2)".to_owned(),
            ));
        }
        for (i, s) in list.iter().enumerate() {
            let path = pointer_push("/metadata/authorization_servers", &i.to_string());
            match s.as_str() {
                Some(u) => findings.extend(assess(u, &fetch, &path).findings),
                None => findings.push(Finding::new(
                    Code::UrlMalformed,
                    Severity::High,
                    path,
                    "an authorization server entry is not a URL string".to_owned(),
                )),
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_flow_needs_pkce_s256() {
        let judge = |v: serde_json::Value| {
            judge_code_flow_support(v.as_object().unwrap())
                .iter()
                .map(|f| (f.code, f.path.clone()))
                .collect::<Vec<_>>()
        };
        assert!(judge(serde_json::json!({"code_challenge_methods_supported": ["plain", "S256"], "response_types_supported": ["code"]})).is_empty());
        assert_eq!(
            judge(serde_json::json!({"code_challenge_methods_supported": ["plain"]})),
            [(
                Code::OauthPkceUnsupported,
                "/metadata/code_challenge_methods_supported".to_owned()
            )]
        );
        assert_eq!(judge(serde_json::json!({})).len(), 1);
        assert_eq!(
            judge(
                serde_json::json!({"code_challenge_methods_supported": ["S256"], "response_types_supported": ["token"]})
            ),
            [(
                Code::OauthPkceUnsupported,
                "/metadata/response_types_supported".to_owned()
            )]
        );
        let (f, iss) = judge_authorization_response(
            "https://as.example",
            "?code=c&iss=https%3A%2F%2Fas.example",
            true,
        );
        assert!(f.is_empty());
        assert_eq!(iss, ["https://as.example"]);
    }
    use serde_json::json;

    #[test]
    fn metadata_url_orders() {
        assert_eq!(
            as_metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
                "https://auth.example.com/tenant1/.well-known/oauth-authorization-server",
            ]
        );
        assert_eq!(as_metadata_urls("https://auth.example.com").len(), 2);
        assert!(as_metadata_urls("not a url").is_empty());
        assert_eq!(
            resource_metadata_urls("https://mcp.example.com/public/mcp?x=1"),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(resource_metadata_urls("https://mcp.example.com/").len(), 1);
    }

    #[test]
    fn resource_must_identify_the_requested_url() {
        assert!(covers(
            "https://mcp.example.com",
            "https://mcp.example.com/mcp"
        ));
        assert!(covers(
            "https://mcp.example.com/mcp/",
            "https://mcp.example.com/mcp"
        ));
        assert!(covers(
            "https://MCP.example.com:443/a",
            "https://mcp.example.com/a/b"
        ));
        assert!(!covers(
            "https://mcp.example.com/ab",
            "https://mcp.example.com/abc"
        ));
        assert!(!covers(
            "https://other.example.com",
            "https://mcp.example.com/mcp"
        ));
        assert!(!covers(
            "http://mcp.example.com",
            "https://mcp.example.com/mcp"
        ));
        assert!(!covers(
            "https://mcp.example.com:8443",
            "https://mcp.example.com/"
        ));
    }

    #[test]
    fn resource_metadata_judgement() {
        let p = UrlPolicy::default();
        let url = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
        let ok = json!({"resource": "https://mcp.example.com/mcp",
            "authorization_servers": ["https://auth.example.com"]});
        let f = judge_resource_metadata(
            "https://mcp.example.com/mcp",
            url,
            ok.as_object().unwrap(),
            &p,
        );
        assert!(f.is_empty(), "{f:?}");
        let bad = json!({"resource": "https://evil.example.net/",
            "authorization_servers": ["http://127.0.0.1:8080/", 7]});
        let f = judge_resource_metadata(
            "https://mcp.example.com/mcp",
            url,
            bad.as_object().unwrap(),
            &p,
        );
        let codes: Vec<Code> = f.iter().map(|f| f.code).collect();
        assert!(codes.contains(&Code::OauthResourceMismatch));
        assert!(codes.contains(&Code::PrivateAddress));
        assert!(codes.contains(&Code::UrlMalformed));
        let none = json!({"authorization_servers": "https://auth.example.com"});
        let f = judge_resource_metadata(
            "https://mcp.example.com/mcp",
            url,
            none.as_object().unwrap(),
            &p,
        );
        assert_eq!(f.len(), 2, "{f:?}");
    }
}
