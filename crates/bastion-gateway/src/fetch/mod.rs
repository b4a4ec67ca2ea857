//! SSRF-safe HTTP fetching for every URL Bastion itself requests (issue 8 item 4):
//! OAuth discovery, authorization-server metadata, later token and registration
//! endpoints. Never used for traffic a host sends through the relay.
//!
//! [`SafeFetcher`] wraps a reqwest client (rustls with the `ring` provider, platform
//! certificate verification, HTTP/1.1) so that every decision comes from the core URL
//! gate, the same code `mcp-bastion check url` runs:
//!
//! * every URL, the requested one and every redirect target, passes
//!   `bastion_core::url_gate::assess` with purpose fetch before anything is sent:
//!   `https` only (`http` only to a loopback host when the development flag
//!   [`SafeFetcherBuilder::allow_loopback_http`] is set, config `[urls]
//!   allow_loopback_http`), no user information, no credential in the query, no
//!   non-public IP literal in any spelling (`2130706433`, `[::ffff:127.0.0.1]`, ...);
//! * a host name is resolved by hickory-resolver and EVERY answer is judged by
//!   `bastion_core::url_gate::judge_resolved` (loopback, private, link-local incl. the
//!   cloud metadata address, CGNAT, multicast, reserved, documentation, and IPv4
//!   embedded in IPv6: mapped, NAT64, 6to4, Teredo); one refused answer refuses the
//!   name, and reqwest connects only to the vetted addresses: no second lookup;
//! * environment proxies are ignored (`no_proxy`), reqwest follows no redirect
//!   itself; [`FetchRequest::follow_redirects`] follows up to
//!   [`FetchLimits::max_redirects`] by hand with every hop through the gate and the
//!   resolver (`redirect_cross_site` is reported, credentials are dropped on a cross-origin
//!   hop); discovery switches following off;
//! * the body is streamed under [`FetchLimits::max_body_bytes`] (exceeding it is an
//!   error, never a truncation) and the whole fetch runs under
//!   [`FetchLimits::timeout`]; no decompression, no cookies.
//!
//! [`SafeFetcher::discover`] runs OAuth discovery (RFC 9728, RFC 8414) through it, with
//! each document judged by the core before use.

mod body;
mod discover;
mod error;
mod redirect;
mod resolve;

pub use discover::{Discovery, DiscoveryError, resource_metadata_param};
pub use error::FetchError;
pub use resolve::Nameservers;

use bastion_core::finding::{Finding, Verdict};
use bastion_core::url_gate::{UrlAssessment, UrlPolicy, UrlPurpose, assess};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode, Url};
use resolve::{VettingResolver, vet_error_in};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

/// Size and time limits of one fetch.
///
/// # Defaults
/// `max_body_bytes = 1048576` (1 MiB, far above any OAuth metadata document),
/// `timeout = 10 s` (whole fetch: lookups, connections, redirects, body),
/// `connect_timeout = 5 s` (per connection attempt), `max_redirects = 5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchLimits {
    /// Longest accepted response body, bytes.
    pub max_body_bytes: u64,
    /// Deadline for the whole fetch.
    pub timeout: Duration,
    /// Deadline for one TCP connection (and TLS handshake).
    pub connect_timeout: Duration,
    /// Most redirects followed when following is on.
    pub max_redirects: usize,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self {
            max_body_bytes: 1024 * 1024,
            timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            max_redirects: 5,
        }
    }
}

impl FetchLimits {
    /// These limits with another body limit (bytes).
    #[must_use]
    pub fn with_max_body_bytes(mut self, bytes: u64) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// These limits with another overall deadline.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// These limits with another redirect limit.
    #[must_use]
    pub fn with_max_redirects(mut self, max: usize) -> Self {
        self.max_redirects = max;
        self
    }
}

/// Builds a [`SafeFetcher`]; `SafeFetcher::builder()` starts from the safe defaults.
///
/// # Defaults
/// https only, system DNS configuration, no trusted domains, [`FetchLimits::default`].
#[derive(Debug, Clone, Default)]
pub struct SafeFetcherBuilder {
    policy: UrlPolicy,
    limits: FetchLimits,
    nameservers: Nameservers,
}

impl SafeFetcherBuilder {
    /// Development flag (config `[urls] allow_loopback_http`): plain `http` to a loopback
    /// host (`127.0.0.0/8`, `[::1]`, `localhost`) is accepted, and loopback answers are
    /// warnings instead of refusals. Every other non-public address stays refused.
    #[must_use]
    pub fn allow_loopback_http(mut self, allow: bool) -> Self {
        self.policy = self.policy.with_loopback_http(allow);
        self
    }

    /// Config `[urls] trusted_domains` (used by the gate's confusable-host check).
    #[must_use]
    pub fn trusted_domains(mut self, domains: Vec<String>) -> Self {
        self.policy = self.policy.with_trusted_domains(domains);
        self
    }

    /// Size and time limits.
    #[must_use]
    pub fn limits(mut self, limits: FetchLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The DNS servers to ask (tests point this at a server on loopback).
    #[must_use]
    pub fn nameservers(mut self, nameservers: Nameservers) -> Self {
        self.nameservers = nameservers;
        self
    }

    /// Builds the fetcher.
    ///
    /// # Errors
    /// [`FetchError::Setup`] when the system DNS configuration cannot be read, the
    /// platform certificate verifier cannot be set up, or the client cannot be built.
    pub fn build(self) -> Result<SafeFetcher, FetchError> {
        let policy = self.policy.with_purpose(UrlPurpose::Fetch);
        let resolver = VettingResolver::new(&self.nameservers, policy.clone())?;
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls_config()?)
            .dns_resolver(Arc::new(resolver.clone()))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .http1_only()
            .connect_timeout(self.limits.connect_timeout)
            .user_agent(concat!("mcp-bastion/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| FetchError::Setup {
                message: e.to_string(),
            })?;
        Ok(SafeFetcher {
            client,
            resolver,
            policy,
            limits: self.limits,
        })
    }
}

/// rustls with the `ring` provider, safe default protocol versions and the platform
/// certificate verifier (system roots), HTTP/1.1 ALPN.
fn tls_config() -> Result<rustls::ClientConfig, FetchError> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let setup = |e: rustls::Error| FetchError::Setup {
        message: format!("TLS: {e}"),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(setup)?
        .with_platform_verifier()
        .map_err(setup)?
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// One request for the [`SafeFetcher`].
#[derive(Debug, Clone)]
pub struct FetchRequest {
    /// HTTP method.
    pub method: Method,
    /// The URL, exactly as received (the gate normalizes it).
    pub url: String,
    /// Request headers.
    pub headers: HeaderMap,
    /// Request body.
    pub body: Option<Vec<u8>>,
    /// Follow redirects (each hop vetted); `false` returns a 3xx response as it is.
    pub follow_redirects: bool,
}

impl FetchRequest {
    /// A `GET` of `url` that follows redirects.
    pub fn get(url: impl Into<String>) -> Self {
        Self {
            method: Method::GET,
            url: url.into(),
            headers: HeaderMap::new(),
            body: None,
            follow_redirects: true,
        }
    }

    /// A `POST` of `body` with `content_type` to `url` that follows redirects.
    pub fn post(url: impl Into<String>, content_type: &'static str, body: Vec<u8>) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static(content_type),
        );
        Self {
            method: Method::POST,
            url: url.into(),
            headers,
            body: Some(body),
            follow_redirects: true,
        }
    }

    /// This request with redirect following on or off.
    #[must_use]
    pub fn follow_redirects(mut self, follow: bool) -> Self {
        self.follow_redirects = follow;
        self
    }

    /// This request with one more header.
    #[must_use]
    pub fn header(
        mut self,
        name: reqwest::header::HeaderName,
        value: reqwest::header::HeaderValue,
    ) -> Self {
        self.headers.append(name, value);
        self
    }
}

/// A response read in full (within [`FetchLimits::max_body_bytes`]).
#[derive(Debug, Clone)]
pub struct FetchResponse {
    /// The URL that answered (the last redirect target).
    pub url: Url,
    /// Its status; a 3xx only when following was off.
    pub status: StatusCode,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body.
    pub body: Vec<u8>,
    /// Redirect targets followed, in order (normalized URLs).
    pub redirects: Vec<Url>,
    /// Findings below `high` from the gate on every URL (e.g. `url_ip_literal`,
    /// `redirect_cross_site`, loopback under the development flag), for the audit log.
    pub findings: Vec<Finding>,
}

/// The SSRF-safe HTTP client (module docs). Cheap to clone; one per process is enough.
#[derive(Clone)]
pub struct SafeFetcher {
    client: reqwest::Client,
    resolver: VettingResolver,
    policy: UrlPolicy,
    limits: FetchLimits,
}

impl std::fmt::Debug for SafeFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeFetcher")
            .field("policy", &self.policy)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl SafeFetcher {
    /// A builder with the safe defaults ([`SafeFetcherBuilder`]).
    pub fn builder() -> SafeFetcherBuilder {
        SafeFetcherBuilder::default()
    }

    /// The URL policy every URL is judged under (purpose fetch).
    pub fn policy(&self) -> &UrlPolicy {
        &self.policy
    }

    /// The limits.
    pub fn limits(&self) -> FetchLimits {
        self.limits
    }

    /// `GET url`, following redirects.
    ///
    /// # Errors
    /// As [`SafeFetcher::fetch`].
    pub async fn get(&self, url: &str) -> Result<FetchResponse, FetchError> {
        self.fetch(FetchRequest::get(url)).await
    }

    /// Resolves `host` and returns its addresses if every one passes the core's
    /// `judge_resolved` (the check each connection goes through). Sends nothing to the
    /// host.
    ///
    /// # Errors
    /// [`FetchError::AddressRefused`] when any answer is not public,
    /// [`FetchError::Resolve`] when the name does not resolve.
    pub async fn resolve_vetted(&self, host: &str) -> Result<Vec<IpAddr>, FetchError> {
        Ok(self.resolver.vet(host).await?.0)
    }

    /// Performs `request` under the gate, the vetting resolver and the limits (module
    /// docs).
    ///
    /// # Errors
    /// [`FetchError::UrlRefused`] (the URL or a redirect target fails the gate),
    /// [`FetchError::AddressRefused`] (a host resolves to a non-public address),
    /// [`FetchError::Resolve`], [`FetchError::TooManyRedirects`],
    /// [`FetchError::BadRedirect`], [`FetchError::TooLarge`], [`FetchError::Timeout`],
    /// [`FetchError::Transport`]. A non-2xx status is a response, not an error.
    pub async fn fetch(&self, request: FetchRequest) -> Result<FetchResponse, FetchError> {
        let url = request.url.clone();
        let limit = self.limits.timeout;
        tokio::time::timeout(limit, self.fetch_within(request))
            .await
            .unwrap_or_else(|_| {
                Err(FetchError::Timeout {
                    url: url.chars().take(200).collect(),
                    limit,
                })
            })
    }

    async fn fetch_within(&self, mut request: FetchRequest) -> Result<FetchResponse, FetchError> {
        let (mut url, mut assessment) = self.gate(&request.url, 0, "/url")?;
        let mut findings = assessment.findings.clone();
        let mut redirects = Vec::new();
        loop {
            let mut builder = self
                .client
                .request(request.method.clone(), url.clone())
                .headers(request.headers.clone());
            if let Some(body) = &request.body {
                builder = builder.body(body.clone());
            }
            let response = builder.send().await.map_err(|e| transport(&url, e))?;
            let status = response.status();
            if !(request.follow_redirects && redirect::is_followed(status)) {
                let headers = response.headers().clone();
                let body = body::read_capped(response, self.limits.max_body_bytes, &url).await?;
                return Ok(FetchResponse {
                    url,
                    status,
                    headers,
                    body,
                    redirects,
                    findings,
                });
            }
            if redirects.len() >= self.limits.max_redirects {
                return Err(FetchError::TooManyRedirects {
                    url: url.to_string(),
                    max: self.limits.max_redirects,
                });
            }
            let target = redirect::target(&url, status, response.headers())?;
            let hop = redirects.len() + 1;
            let path =
                bastion_core::finding::pointer_push("/redirect_chain", &(hop - 1).to_string());
            let (next, next_assessment) = self.gate(target.as_str(), hop, &path)?;
            findings.extend(next_assessment.findings.iter().cloned());
            findings.extend(bastion_core::url_gate::judge_redirect(
                &assessment,
                &next_assessment,
                &path,
            ));
            redirect::rewrite(&mut request, status, &url, &next);
            redirects.push(next.clone());
            (url, assessment) = (next, next_assessment);
        }
    }

    /// The core gate on one URL: refused on `block`, else the normalized URL.
    fn gate(&self, raw: &str, hop: usize, path: &str) -> Result<(Url, UrlAssessment), FetchError> {
        let a = assess(raw, &self.policy, path);
        let parsed = a.normalized.as_deref().map(Url::parse);
        match (a.verdict, parsed) {
            (Verdict::Block, _) | (_, None | Some(Err(_))) => Err(FetchError::UrlRefused {
                url: a
                    .normalized
                    .clone()
                    .unwrap_or_else(|| raw.chars().take(200).collect()),
                hop,
                findings: a.findings,
            }),
            (_, Some(Ok(url))) => Ok((url, a)),
        }
    }
}

/// A reqwest error as a [`FetchError`]: a refusal raised by the vetting resolver inside
/// the connector comes back as [`FetchError::AddressRefused`] / [`FetchError::Resolve`].
fn transport(url: &Url, e: reqwest::Error) -> FetchError {
    if let Some(v) = vet_error_in(&e) {
        return v.clone().into();
    }
    FetchError::Transport {
        url: url.to_string(),
        source: e,
    }
}
