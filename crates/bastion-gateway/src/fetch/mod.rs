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
mod config;
mod discover;
mod error;
mod redirect;
mod resolve;

pub use config::{FetchLimits, SafeFetcherBuilder};
pub use discover::{Discovery, DiscoveryError, resource_metadata_param};
pub use error::FetchError;
pub use resolve::Nameservers;

use bastion_core::finding::{Finding, Verdict};
use bastion_core::url_gate::{UrlAssessment, UrlPolicy, assess};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode, Url};
use resolve::{VettingResolver, vet_error_in};
use std::net::IpAddr;

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
    /// Findings below `high` from the gate on every URL and the resolver on every host
    /// (e.g. `url_ip_literal`, `redirect_cross_site`, a loopback answer under the
    /// development flag), for the audit log.
    pub findings: Vec<Finding>,
}

/// The SSRF-safe HTTP client (module docs). Cheap to clone; one per process is enough.
#[derive(Clone)]
pub struct SafeFetcher {
    client: reqwest::Client,
    resolver: VettingResolver,
    policy: UrlPolicy,
    limits: FetchLimits,
    /// The last URL [`SafeFetcher::open`] let through, as given and as normalized by the
    /// gate: an MCP upstream POSTs every message to the same URL, and the gate's verdict
    /// on a URL under a fixed policy never changes (about 2% of `serve`'s CPU per call
    /// before). Addresses are still vetted on every connection.
    opened: std::sync::Arc<std::sync::Mutex<Option<(String, Url)>>>,
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
    fn from_parts(
        client: reqwest::Client,
        resolver: VettingResolver,
        policy: UrlPolicy,
        limits: FetchLimits,
    ) -> Self {
        Self {
            client,
            resolver,
            policy,
            limits,
            opened: std::sync::Arc::default(),
        }
    }

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

    /// Sends `request` once (no redirects, no overall deadline: the connect timeout
    /// applies) under the same gate and vetting resolver as [`SafeFetcher::fetch`], and
    /// returns the response with its body unread, for a caller that streams it (an MCP
    /// upstream's event stream) under its own size limits.
    ///
    /// # Errors
    /// [`FetchError::UrlRefused`], [`FetchError::AddressRefused`],
    /// [`FetchError::Resolve`], [`FetchError::Transport`].
    pub async fn open(&self, request: FetchRequest) -> Result<reqwest::Response, FetchError> {
        let url = self.gate_memo(&request.url)?;
        let mut builder = self
            .client
            .request(request.method.clone(), url.clone())
            .headers(request.headers.clone());
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        builder.send().await.map_err(|e| transport(&url, e))
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
            if let Some(url::Host::Domain(host)) = url.host() {
                findings.extend(self.resolver.accepted_findings(host));
            }
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

    /// [`SafeFetcher::gate`] for [`SafeFetcher::open`], answered from the last URL let
    /// through when `raw` is that URL again (the policy never changes).
    fn gate_memo(&self, raw: &str) -> Result<Url, FetchError> {
        let lock = || {
            self.opened
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some((seen, url)) = lock().as_ref()
            && seen == raw
        {
            return Ok(url.clone());
        }
        let (url, _) = self.gate(raw, 0, "/url")?;
        *lock() = Some((raw.to_owned(), url.clone()));
        Ok(url)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::resolve::Nameservers;

    #[tokio::test]
    async fn the_remembered_url_of_open_never_lets_another_url_past_the_gate() {
        let f = SafeFetcher::builder()
            .nameservers(Nameservers::Custom(vec!["127.0.0.1:53".parse().unwrap()]))
            .build()
            .unwrap();
        let good = "https://mcp.example.com/mcp";
        assert_eq!(f.gate_memo(good).unwrap().as_str(), good);
        // A refused URL after an allowed one, and again: refused both times, never
        // remembered.
        for bad in [
            "http://169.254.169.254/latest/meta-data",
            "https://mcp.example.com.evil@169.254.169.254/mcp",
            "http://mcp.example.com/mcp",
        ] {
            for _ in 0..2 {
                assert!(
                    matches!(f.gate_memo(bad), Err(FetchError::UrlRefused { .. })),
                    "{bad}"
                );
            }
        }
        // The remembered URL is the normalized one of exactly the raw text given.
        assert_eq!(
            f.gate_memo("HTTPS://MCP.example.com:443/mcp")
                .unwrap()
                .as_str(),
            good
        );
        assert_eq!(f.gate_memo(good).unwrap().as_str(), good);
    }
}
