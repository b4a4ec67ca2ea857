//! [`SafeFetcherBuilder`] and [`FetchLimits`]: how a [`SafeFetcher`] is configured, and
//! the one reqwest client it wraps (rustls with `ring`, platform verifier, no proxy,
//! no automatic redirect, the vetting resolver).

use super::resolve::{Nameservers, VettingResolver};
use super::{FetchError, SafeFetcher};
use bastion_core::url_gate::{UrlPolicy, UrlPurpose};
use rustls::pki_types::CertificateDer;
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
/// https only, system DNS configuration, platform root certificates only, no trusted
/// domains, [`FetchLimits::default`].
#[derive(Debug, Clone, Default)]
pub struct SafeFetcherBuilder {
    policy: UrlPolicy,
    limits: FetchLimits,
    nameservers: Nameservers,
    extra_roots: Vec<CertificateDer<'static>>,
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

    /// The whole URL policy, as the gateway builds it from config `[urls]` and the
    /// consent ledger; its purpose is forced to fetch.
    #[must_use]
    pub fn url_policy(mut self, policy: UrlPolicy) -> Self {
        self.policy = policy;
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

    /// Trusts these root certificates in addition to the platform's (a private or
    /// corporate CA; the tests' own root). Host names and addresses are judged exactly
    /// as without them.
    #[must_use]
    pub fn add_root_certificates(
        mut self,
        roots: impl IntoIterator<Item = CertificateDer<'static>>,
    ) -> Self {
        self.extra_roots.extend(roots);
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
            .tls_backend_preconfigured(tls_config(self.extra_roots)?)
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
        Ok(SafeFetcher::from_parts(
            client,
            resolver,
            policy,
            self.limits,
        ))
    }
}

/// rustls with the `ring` provider, safe default protocol versions and the platform
/// certificate verifier (system roots plus `extra_roots`), HTTP/1.1 ALPN.
fn tls_config(
    extra_roots: Vec<CertificateDer<'static>>,
) -> Result<rustls::ClientConfig, FetchError> {
    let setup = |e: rustls::Error| FetchError::Setup {
        message: format!("TLS: {e}"),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        rustls_platform_verifier::Verifier::new_with_extra_roots(extra_roots, provider.clone())
            .map_err(setup)?;
    // `dangerous()` is rustls' only door for a verifier of one's own; this one is the
    // platform verifier, as `BuilderVerifierExt::with_platform_verifier` installs it.
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(setup)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_policy_is_always_the_fetch_policy() {
        let f = SafeFetcher::builder()
            .url_policy(UrlPolicy::navigate().with_loopback_http(true))
            .nameservers(Nameservers::Custom(vec!["127.0.0.1:53".parse().unwrap()]))
            .build()
            .unwrap();
        assert_eq!(f.policy().purpose, UrlPurpose::Fetch);
        assert!(f.policy().allow_loopback_http);
        let safe = SafeFetcher::builder()
            .nameservers(Nameservers::Custom(vec!["127.0.0.1:53".parse().unwrap()]))
            .build()
            .unwrap();
        assert!(!safe.policy().allow_loopback_http);
        let limits = safe.limits();
        assert_eq!(
            (limits.max_body_bytes, limits.timeout, limits.max_redirects),
            (1_048_576, Duration::from_secs(10), 5)
        );
    }
}
