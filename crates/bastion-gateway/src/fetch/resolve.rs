//! The vetting DNS resolver: hickory-resolver lookups whose every answer passes the
//! core's `judge_resolved` before reqwest may connect to any of them.
//!
//! reqwest connects only to the addresses this resolver hands it, so the vetted
//! address is the one connected to: there is no second lookup a rebinding DNS server
//! could answer differently (issue 8 item 4; `bastion_core::url_gate` module docs,
//! "Gateway integration").

use super::FetchError;
use bastion_core::finding::{Finding, Verdict};
use bastion_core::url_gate::{UrlPolicy, assess, judge_resolved};
use hickory_resolver::TokioResolver;
use hickory_resolver::config::{
    ConnectionConfig, LookupIpStrategy, NameServerConfig, ResolveHosts, ResolverConfig,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

/// Which DNS servers the fetcher asks.
///
/// # Defaults
/// [`Nameservers::System`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Nameservers {
    /// The operating system's configuration (`/etc/resolv.conf`, and the hosts file).
    #[default]
    System,
    /// These servers only, over UDP then TCP at the given ports; the hosts file is not
    /// read. For tests (a local DNS server on loopback) and for pinned resolvers.
    Custom(Vec<SocketAddr>),
}

/// A refusal raised inside reqwest's connector: found again in the error's source
/// chain and turned into [`FetchError::AddressRefused`] / [`FetchError::Resolve`].
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum VetError {
    /// Some answer is not a public address.
    #[error("`{host}` resolves to an address no request may reach")]
    Refused {
        /// The host.
        host: String,
        /// Findings of `judge_resolved`.
        findings: Vec<Finding>,
    },
    /// The lookup failed or returned nothing.
    #[error("cannot resolve `{host}`: {message}")]
    Failed {
        /// The host.
        host: String,
        /// Why.
        message: String,
    },
}

impl From<VetError> for FetchError {
    fn from(e: VetError) -> Self {
        match e {
            VetError::Refused { host, findings } => Self::AddressRefused { host, findings },
            VetError::Failed { host, message } => Self::Resolve { host, message },
        }
    }
}

/// A hickory resolver plus the URL policy its answers are judged under.
#[derive(Clone)]
pub(crate) struct VettingResolver {
    inner: TokioResolver,
    policy: UrlPolicy,
    /// The findings (below `high`) of the latest accepted lookup per host, for the
    /// fetch that connected there to report (a lookup runs inside reqwest's connector).
    accepted: Arc<Mutex<HashMap<String, Vec<Finding>>>>,
}

impl VettingResolver {
    /// Builds the resolver; both address families are asked for, so every answer the
    /// name has is judged.
    pub(crate) fn new(servers: &Nameservers, policy: UrlPolicy) -> Result<Self, FetchError> {
        let setup = |e: &dyn std::fmt::Display| FetchError::Setup {
            message: format!("DNS resolver: {e}"),
        };
        let mut builder = match servers {
            Nameservers::System => TokioResolver::builder_tokio().map_err(|e| setup(&e))?,
            Nameservers::Custom(list) => {
                let name_servers = list
                    .iter()
                    .map(|addr| {
                        let mut udp = ConnectionConfig::udp();
                        udp.port = addr.port();
                        let mut tcp = ConnectionConfig::tcp();
                        tcp.port = addr.port();
                        NameServerConfig::new(addr.ip(), true, vec![udp, tcp])
                    })
                    .collect();
                let config = ResolverConfig::from_parts(None, Vec::new(), name_servers);
                let mut b =
                    TokioResolver::builder_with_config(config, TokioRuntimeProvider::default());
                b.options_mut().use_hosts_file = ResolveHosts::Never;
                b
            }
        };
        builder.options_mut().ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
        let inner = builder.build().map_err(|e| setup(&e))?;
        Ok(Self {
            inner,
            policy,
            accepted: Arc::default(),
        })
    }

    /// Resolves `host` (an ASCII host name, as in a normalized URL) and returns its
    /// addresses when every one passes `judge_resolved` under the policy; the findings
    /// below `high` (loopback under `allow_loopback_http`) are returned too.
    ///
    /// # Errors
    /// [`VetError::Refused`] when an answer is refused (no address is returned then, not
    /// even the public ones), [`VetError::Failed`] when the lookup fails or is empty.
    pub(crate) async fn vet(&self, host: &str) -> Result<(Vec<IpAddr>, Vec<Finding>), VetError> {
        let failed = |message: String| VetError::Failed {
            host: host.to_owned(),
            message,
        };
        let lookup = self
            .inner
            .lookup_ip(host)
            .await
            .map_err(|e| failed(e.to_string()))?;
        let answers: Vec<IpAddr> = lookup.iter().collect();
        if answers.is_empty() {
            return Err(failed("no address records".to_owned()));
        }
        let url = assess(&format!("https://{host}/"), &self.policy, "");
        let findings = judge_resolved(&url, &answers, &self.policy, "/dns_answers_in_order");
        if Verdict::from_findings(&findings, false) == Verdict::Block {
            return Err(VetError::Refused {
                host: host.to_owned(),
                findings,
            });
        }
        if let Ok(mut map) = self.accepted.lock() {
            if map.len() >= 256 {
                map.clear();
            }
            map.insert(host.to_owned(), findings.clone());
        }
        Ok((answers, findings))
    }
}

impl VettingResolver {
    /// The findings of the latest accepted lookup of `host` (empty if none).
    pub(crate) fn accepted_findings(&self, host: &str) -> Vec<Finding> {
        self.accepted
            .lock()
            .ok()
            .and_then(|map| map.get(host).cloned())
            .unwrap_or_default()
    }
}

impl reqwest::dns::Resolve for VettingResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let this = self.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let (ips, _) = this.vet(&host).await?;
            let addrs: reqwest::dns::Addrs =
                Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// Finds a [`VetError`] in the source chain of a transport error.
pub(crate) fn vet_error_in<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a VetError> {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(v) = err.downcast_ref::<VetError>() {
            return Some(v);
        }
        cur = err.source();
    }
    None
}
