//! The URL gate: one judgement for every URL Bastion shows, opens or would fetch
//! (issue 6 §3; DESIGN §2 "URL gate, IP classification").
//!
//! [`assess`] takes the URL text exactly as the server sent it and a [`UrlPolicy`], and
//! returns a [`UrlAssessment`]: a [`Verdict`], the [`Finding`]s, the normalized URL
//! (WHATWG URL Standard serialization by the `url` crate: lowercase scheme and host,
//! IDNA/punycode host, numeric IPv4 spellings made dotted-decimal, default port dropped,
//! unsafe characters percent-encoded), the host in ASCII and Unicode form and its
//! registrable domain (Public Suffix List). Bastion never fetches the URL.
//!
//! What is judged, in order (finding codes in `docs/finding-codes.md`):
//!
//! | check | code | severity |
//! |---|---|---|
//! | longer than [`UrlPolicy::max_len`] bytes | `url_too_long` | high |
//! | C0/C1 controls, any Unicode whitespace, invisible format characters, `\` | `url_invalid_character` | high |
//! | not an absolute URL (WHATWG basic URL parser), no host | `url_malformed` | high |
//! | scheme other than `https` (`http` only to a loopback host with [`UrlPolicy::allow_loopback_http`]) | `url_scheme_not_allowed` | high |
//! | user information (`user:pass@`) | `url_userinfo` | high |
//! | query/fragment key naming a credential, or a JWT anywhere in query, fragment or path ([`query`]) | `url_preauth_param` | high |
//! | email address in path, query or fragment | `url_personal_data` | warn |
//! | raw IP literal host | `url_ip_literal` | warn |
//! | non-public address (loopback, private, link-local, CGNAT, reserved, ... incl. IPv4 embedded in IPv6; [`address`]) or `localhost` | `private_address` | warn to navigate, high to fetch |
//! | name that is not public (single label, `.internal`, `.local`, unlisted suffix) | `url_internal_host` | warn to navigate, high to fetch |
//! | punycode label (both forms shown) | `url_punycode_host` | warn |
//! | mixed-script label, non-ASCII label that reads as ASCII, or skeleton equal to a trusted/consented host (UTS #39) | `url_confusable_host` | warn |
//! | a domain name left of the registrable domain (`example.com.attacker.example`) | `url_embedded_domain` | warn |
//!
//! [`check_url`] is `mcp-bastion check url`: the same gate plus simulated DNS answers,
//! redirect chains and the OAuth issuer checks (RFC 8414 §3.3, RFC 9207).
//!
//! # Gateway integration
//! * Showing or opening a URL (URL-mode elicitation, links): [`assess`] with
//!   [`UrlPolicy::navigate`] plus `[urls]` config (`allow_loopback_http`,
//!   `trusted_domains`) and the hosts of the consent ledger (`consented_hosts`); show
//!   [`UrlAssessment::normalized`] and the registrable domain, never the original text.
//! * Fetching (OAuth discovery, metadata, token/registration endpoints): [`assess`] with
//!   [`UrlPolicy::default`] (purpose fetch); after resolving the host, [`judge_resolved`]
//!   on every answer, and connect only to an answer judged there (pin it for the
//!   connection); follow no redirect without running [`assess`] on the new URL again.
//! * The finding list is the audit detail; the verdict decides (`block` refuses).

pub mod address;
mod check;
mod gate;
pub mod host;
pub mod oauth;
pub mod query;
#[cfg(test)]
mod tests;

pub use address::{AddressClass, Classified, classify};
pub use check::{
    NAVIGATE_CONTEXTS, UrlInputError, check_url, judge_redirect, judge_resolved, purpose_of,
};
pub use gate::assess;
pub use oauth::{
    as_metadata_urls, judge_as_metadata, judge_authorization_response, judge_code_flow_support,
    judge_resource_metadata, resource_metadata_urls,
};

use crate::finding::{Finding, Verdict};
use serde_json::{Value, json};
use std::net::IpAddr;

/// Default for [`UrlPolicy::max_len`]: 4096 bytes, room for OAuth authorization URLs with
/// long scopes and PKCE parameters, far below what hides a second URL.
pub const DEFAULT_MAX_URL_LEN: usize = 4096;

/// What the URL is for, which decides how hard non-public destinations are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum UrlPurpose {
    /// The user opens it in a browser (URL-mode elicitation, an OAuth authorization
    /// endpoint): an intranet address is a warning, the user decides.
    Navigate,
    /// Software would request it (OAuth discovery, metadata, token and registration
    /// endpoints, redirects followed by a client): a non-public destination is refused
    /// (SSRF). The default, being the stricter.
    #[default]
    Fetch,
}

impl UrlPurpose {
    /// Stable name: `navigate` / `fetch`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Navigate => "navigate",
            Self::Fetch => "fetch",
        }
    }
}

/// What the gate allows. `UrlPolicy::default()` is the safe default (DESIGN §5 `[urls]`):
/// https only, no trusted domains, no consented hosts, 4096-byte URLs, purpose
/// [`UrlPurpose::Fetch`].
///
/// # Defaults
/// `allow_loopback_http = false`, `trusted_domains = []`, `consented_hosts = []`,
/// `max_len = 4096`, `purpose = Fetch`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UrlPolicy {
    /// Config `[urls] allow_loopback_http`: `http://` is accepted when the host is a
    /// loopback address or `localhost` (native-app and local development servers,
    /// RFC 8252 §7.3); such a destination is then only a warning even to fetch.
    pub allow_loopback_http: bool,
    /// Config `[urls] trusted_domains`: domains (ASCII or Unicode) the user trusts. A host
    /// within one is reported `trusted`, is not warned about as an internal name, and a
    /// different host whose UTS #39 skeleton equals one is `url_confusable_host`.
    pub trusted_domains: Vec<String>,
    /// Hosts the user consented to before (consent ledger, filled by the gateway): compared
    /// by skeleton like `trusted_domains`.
    pub consented_hosts: Vec<String>,
    /// Longest URL accepted, in bytes of the original text.
    pub max_len: usize,
    /// What the URL is for.
    pub purpose: UrlPurpose,
}

impl Default for UrlPolicy {
    fn default() -> Self {
        Self {
            allow_loopback_http: false,
            trusted_domains: Vec::new(),
            consented_hosts: Vec::new(),
            max_len: DEFAULT_MAX_URL_LEN,
            purpose: UrlPurpose::Fetch,
        }
    }
}

impl UrlPolicy {
    /// The default policy for URLs a user navigates to ([`UrlPurpose::Navigate`]).
    pub fn navigate() -> Self {
        Self {
            purpose: UrlPurpose::Navigate,
            ..Self::default()
        }
    }

    /// This policy with another purpose.
    #[must_use]
    pub fn with_purpose(mut self, purpose: UrlPurpose) -> Self {
        self.purpose = purpose;
        self
    }

    /// This policy with `allow_loopback_http` set.
    #[must_use]
    pub fn with_loopback_http(mut self, allow: bool) -> Self {
        self.allow_loopback_http = allow;
        self
    }

    /// This policy with these trusted domains (config `[urls] trusted_domains`).
    #[must_use]
    pub fn with_trusted_domains(mut self, domains: Vec<String>) -> Self {
        self.trusted_domains = domains;
        self
    }

    /// This policy with these consented hosts (consent ledger).
    #[must_use]
    pub fn with_consented_hosts(mut self, hosts: Vec<String>) -> Self {
        self.consented_hosts = hosts;
        self
    }

    /// This policy with another length limit (bytes).
    #[must_use]
    pub fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    /// Trusted domains then consented hosts: the references for confusable checks.
    pub(crate) fn references(&self) -> impl Iterator<Item = &str> + Clone {
        self.trusted_domains
            .iter()
            .chain(&self.consented_hosts)
            .map(String::as_str)
    }
}

/// The gate's judgement of one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlAssessment {
    /// `allow`, `flag` (shown with warnings) or `block` (refused).
    pub verdict: Verdict,
    /// Every finding; paths are under the `path` given to [`assess`].
    pub findings: Vec<Finding>,
    /// The WHATWG serialization of the URL, when it parsed. The one to display and use.
    pub normalized: Option<String>,
    /// Host, ASCII form (punycode for IDNs; `[v6]` or dotted IPv4 for IP literals).
    pub host_ascii: Option<String>,
    /// Host, Unicode form (IDNA `ToUnicode`); equal to `host_ascii` for ASCII names and IPs.
    pub host_unicode: Option<String>,
    /// Registrable domain (eTLD+1, Public Suffix List), ASCII; `None` for IPs and single
    /// labels.
    pub registrable_domain: Option<String>,
    /// Registrable domain in Unicode form, for display.
    pub registrable_domain_unicode: Option<String>,
    /// The IP address when the host is an IP literal.
    pub ip: Option<IpAddr>,
    /// Its class.
    pub address_class: Option<AddressClass>,
    /// The host is within a trusted domain of the policy.
    pub trusted: bool,
}

impl UrlAssessment {
    /// The JSON view used as `check url` output: `{normalized, host_ascii, host_unicode,
    /// registrable_domain, registrable_domain_unicode, ip, address_class, trusted}`
    /// (absent parts are `null`).
    pub fn to_json(&self) -> Value {
        json!({
            "normalized": self.normalized,
            "host_ascii": self.host_ascii,
            "host_unicode": self.host_unicode,
            "registrable_domain": self.registrable_domain,
            "registrable_domain_unicode": self.registrable_domain_unicode,
            "ip": self.ip.map(|i| i.to_string()),
            "address_class": self.address_class.map(AddressClass::as_str),
            "trusted": self.trusted,
        })
    }
}
