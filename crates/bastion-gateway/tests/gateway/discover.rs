//! OAuth discovery (RFC 9728, RFC 8414) through the SSRF-safe fetcher, against
//! loopback servers only (development flag: http to 127.0.0.1).

use crate::loopback::{HttpServer, Reply, dns_server};
use bastion_core::finding::Code;
use bastion_gateway::fetch::{FetchLimits, Nameservers, SafeFetcher};
use serde_json::json;
use std::net::SocketAddr;

async fn fetcher() -> SafeFetcher {
    let dns = dns_server(&[("auth.example-public.net", &["10.0.0.5"])]).await;
    SafeFetcher::builder()
        .nameservers(Nameservers::Custom(vec![dns]))
        .allow_loopback_http(true)
        .limits(FetchLimits::default())
        .build()
        .unwrap()
}

fn base(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

/// An authorization server on loopback whose metadata names `issuer` (its own base URL
/// unless `foreign` is given), served at the RFC 8414 path-insert URL for tenant `/t1`.
async fn auth_server(foreign: Option<&'static str>) -> HttpServer {
    HttpServer::start_with(move |addr| {
        let issuer = format!("{}/t1", base(addr));
        let named = foreign.map_or_else(|| issuer.clone(), str::to_owned);
        Reply::Routes(vec![(
            "/.well-known/oauth-authorization-server/t1".into(),
            Reply::json(&json!({
                "issuer": named,
                "authorization_endpoint": format!("{named}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
                "code_challenge_methods_supported": ["S256"],
            })),
        )])
    })
    .await
}

/// A protected MCP resource at `/mcp` whose RFC 9728 metadata lists `servers`.
async fn resource_server(
    servers: Vec<String>,
    resource_override: Option<&'static str>,
) -> HttpServer {
    HttpServer::start_with(move |addr| {
        let resource =
            resource_override.map_or_else(|| format!("{}/mcp", base(addr)), str::to_owned);
        let doc = Reply::json(&json!({"resource": resource, "authorization_servers": servers}));
        Reply::Routes(vec![
            (
                "/.well-known/oauth-protected-resource/mcp".into(),
                doc.clone(),
            ),
            ("/custom/prm".into(), doc),
            (
                "/moved".into(),
                Reply::redirect("/.well-known/oauth-protected-resource/mcp"),
            ),
        ])
    })
    .await
}

#[tokio::test]
async fn discovery_finds_and_vets_both_documents() {
    let f = fetcher().await;
    let auth = auth_server(None).await;
    let issuer = format!("{}/t1", base(auth.addr));
    let rs = resource_server(vec![issuer.clone()], None).await;
    let d = f
        .discover(&format!("{}/mcp", base(rs.addr)), None)
        .await
        .unwrap();
    assert_eq!(d.issuer, issuer);
    assert_eq!(d.as_metadata["issuer"], json!(issuer));
    assert_eq!(
        d.resource_metadata_url.path(),
        "/.well-known/oauth-protected-resource/mcp"
    );
    // The header's resource_metadata URL is used when given.
    let header = format!(
        r#"Bearer error="invalid_token", resource_metadata="{}/custom/prm""#,
        base(rs.addr)
    );
    let d = f
        .discover(&format!("{}/mcp", base(rs.addr)), Some(&header))
        .await
        .unwrap();
    assert_eq!(d.resource_metadata_url.path(), "/custom/prm");
}

#[tokio::test]
async fn a_foreign_issuer_is_refused() {
    let f = fetcher().await;
    let auth = auth_server(Some("https://login.attacker.example.com")).await;
    let rs = resource_server(vec![format!("{}/t1", base(auth.addr))], None).await;
    let e = f
        .discover(&format!("{}/mcp", base(rs.addr)), None)
        .await
        .unwrap_err();
    assert_eq!(e.reason(), "oauth_discovery_refused", "{e}");
    assert!(
        e.findings()
            .iter()
            .any(|f| f.code == Code::OauthIssuerMismatch),
        "{e}"
    );
}

#[tokio::test]
async fn metadata_for_another_resource_is_refused_before_asking_its_issuer() {
    let f = fetcher().await;
    let auth = auth_server(None).await;
    let rs = resource_server(
        vec![format!("{}/t1", base(auth.addr))],
        Some("https://mcp.attacker.example.com/mcp"),
    )
    .await;
    let e = f
        .discover(&format!("{}/mcp", base(rs.addr)), None)
        .await
        .unwrap_err();
    assert!(
        e.findings()
            .iter()
            .any(|f| f.code == Code::OauthResourceMismatch),
        "{e}"
    );
    assert_eq!(auth.hits(), 0);
}

#[tokio::test]
async fn ssrf_targets_in_discovery_are_refused_without_a_request() {
    let f = fetcher().await;
    // A server-controlled header pointing at the cloud metadata address (corpus c107).
    let rs = resource_server(vec![], None).await;
    let e = f
        .discover(
            &format!("{}/mcp", base(rs.addr)),
            Some(r#"Bearer resource_metadata="http://169.254.169.254/latest/meta-data/iam/""#),
        )
        .await
        .unwrap_err();
    assert_eq!(e.reason(), "url_refused", "{e}");
    assert_eq!(rs.hits(), 0);
    // Issuers on private addresses or names resolving privately (corpus c108, c110).
    for issuer in [
        "http://10.1.2.3/",
        "https://[::ffff:a9fe:a9fe]/",
        "https://auth.example-public.net/",
    ] {
        let rs = resource_server(vec![issuer.to_owned()], None).await;
        let e = f
            .discover(&format!("{}/mcp", base(rs.addr)), None)
            .await
            .unwrap_err();
        assert!(
            e.findings().iter().any(|f| f.code == Code::PrivateAddress)
                || e.reason() == "address_refused",
            "{issuer}: {e}"
        );
    }
}

#[tokio::test]
async fn discovery_follows_no_redirect() {
    let f = fetcher().await;
    let rs = resource_server(vec![], None).await;
    let header = format!(r#"Bearer resource_metadata="{}/moved""#, base(rs.addr));
    let e = f
        .discover(&format!("{}/mcp", base(rs.addr)), Some(&header))
        .await
        .unwrap_err();
    assert_eq!(e.reason(), "oauth_metadata_not_found", "{e}");
    assert!(e.to_string().contains("(302)"), "{e}");
    assert_eq!(rs.hits(), 1, "the redirect target was not requested");
}
