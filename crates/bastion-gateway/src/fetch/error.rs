//! [`FetchError`]: why a fetch by the [`super::SafeFetcher`] did not produce a response.
//!
//! A URL or address the core URL gate refuses is an error here (the fetch did not
//! happen), carrying the core's [`Finding`]s so the caller can audit or show them.

use bastion_core::finding::Finding;
use std::time::Duration;

/// Why a fetch failed. Every variant names the URL (the normalized form where the gate
/// parsed it) and, through [`FetchError::reason`], a stable `snake_case` reason for audit
/// events and JSON-RPC error data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL gate (`bastion_core::url_gate::assess`, purpose fetch) blocked the URL
    /// before any lookup or connection: scheme, user information, a non-public IP
    /// literal, an internal name, ... `findings` holds every finding (the `high` ones
    /// decided). `hop` is 0 for the requested URL, N for the N-th redirect target.
    #[error("refused to fetch `{url}`{}: {}", hop_text(*hop), summary(findings))]
    UrlRefused {
        /// The URL as received (request) or as resolved against the previous URL (redirect).
        url: String,
        /// Redirect hop: 0 is the requested URL.
        hop: usize,
        /// The gate's findings.
        findings: Vec<Finding>,
    },
    /// The host name resolved to an address no request may reach
    /// (`bastion_core::url_gate::judge_resolved`: `private_address`, `dns_rebinding`);
    /// no connection was made to any of its addresses.
    #[error("refused to connect to `{host}`: {}", summary(findings))]
    AddressRefused {
        /// The host name that was resolved.
        host: String,
        /// The findings on its answers.
        findings: Vec<Finding>,
    },
    /// The host name could not be resolved, or had no address.
    #[error("cannot resolve `{host}`: {message}; check the name and the DNS configuration")]
    Resolve {
        /// The host name.
        host: String,
        /// The resolver's explanation.
        message: String,
    },
    /// More redirects than [`super::FetchLimits::max_redirects`].
    #[error("`{url}` redirected more than {max} times; stopped following")]
    TooManyRedirects {
        /// The URL that asked for one redirect too many.
        url: String,
        /// The limit.
        max: usize,
    },
    /// A redirect status without a usable `Location` (missing, not text, not a URL).
    #[error("`{url}` answered {status} with {why}; cannot follow the redirect")]
    BadRedirect {
        /// The URL that answered.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// What is wrong with `Location`.
        why: &'static str,
    },
    /// The response body is longer than [`super::FetchLimits::max_body_bytes`] (by
    /// `Content-Length` or while streaming); nothing of it is returned.
    #[error(
        "the response from `{url}` is larger than the limit of {limit} bytes; refused (raise the limit only for a trusted endpoint)"
    )]
    TooLarge {
        /// The URL that answered.
        url: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The whole fetch (every hop, lookup, connection and body) took longer than
    /// [`super::FetchLimits::timeout`].
    #[error("fetching `{url}` took longer than {} ms; abandoned", limit.as_millis())]
    Timeout {
        /// The URL requested.
        url: String,
        /// The limit.
        limit: Duration,
    },
    /// Connection, TLS or HTTP failure.
    #[error("fetching `{url}` failed: {source}")]
    Transport {
        /// The URL being fetched.
        url: String,
        /// The HTTP client's error.
        #[source]
        source: reqwest::Error,
    },
    /// The fetcher could not be built (TLS roots, resolver configuration).
    #[error("cannot set up the HTTP client: {message}")]
    Setup {
        /// What failed.
        message: String,
    },
}

fn hop_text(hop: usize) -> String {
    if hop == 0 {
        String::new()
    } else {
        format!(" (redirect {hop})")
    }
}

/// The codes of the deciding (`high` and above) findings, then the first such message.
fn summary(findings: &[Finding]) -> String {
    use bastion_core::finding::Severity;
    let deciding: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.severity >= Severity::High)
        .collect();
    let shown = if deciding.is_empty() {
        findings.iter().collect()
    } else {
        deciding
    };
    let mut codes: Vec<&str> = shown.iter().map(|f| f.code.as_str()).collect();
    codes.dedup();
    match shown.first() {
        Some(f) => format!("{} ({})", f.message, codes.join(", ")),
        None => "refused".to_owned(),
    }
}

impl FetchError {
    /// Stable reason: `url_refused`, `address_refused`, `dns_failure`,
    /// `too_many_redirects`, `bad_redirect`, `response_too_large`, `fetch_timeout`,
    /// `transport_error`, `setup_error`.
    pub const fn reason(&self) -> &'static str {
        match self {
            Self::UrlRefused { .. } => "url_refused",
            Self::AddressRefused { .. } => "address_refused",
            Self::Resolve { .. } => "dns_failure",
            Self::TooManyRedirects { .. } => "too_many_redirects",
            Self::BadRedirect { .. } => "bad_redirect",
            Self::TooLarge { .. } => "response_too_large",
            Self::Timeout { .. } => "fetch_timeout",
            Self::Transport { .. } => "transport_error",
            Self::Setup { .. } => "setup_error",
        }
    }

    /// The core findings behind a refusal (empty for the other variants).
    pub fn findings(&self) -> &[Finding] {
        match self {
            Self::UrlRefused { findings, .. } | Self::AddressRefused { findings, .. } => findings,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bastion_core::finding::{Code, Severity};

    fn finding(code: Code, severity: Severity, message: &str) -> Finding {
        Finding::new(code, severity, "/url", message)
    }

    #[test]
    fn display_names_the_deciding_finding() {
        let e = FetchError::UrlRefused {
            url: "http://169.254.169.254/".into(),
            hop: 2,
            findings: vec![
                finding(Code::UrlIpLiteral, Severity::Warn, "a raw IP"),
                finding(Code::PrivateAddress, Severity::High, "a link-local address"),
            ],
        };
        assert_eq!(
            e.to_string(),
            "refused to fetch `http://169.254.169.254/` (redirect 2): a link-local address (private_address)"
        );
        assert_eq!(e.reason(), "url_refused");
        assert_eq!(e.findings().len(), 2);
        let e = FetchError::AddressRefused {
            host: "a.example".into(),
            findings: vec![
                finding(Code::PrivateAddress, Severity::High, "resolves to 10.0.0.5"),
                finding(Code::DnsRebinding, Severity::High, "rebinding"),
            ],
        };
        assert_eq!(
            e.to_string(),
            "refused to connect to `a.example`: resolves to 10.0.0.5 (private_address, dns_rebinding)"
        );
        assert_eq!(e.reason(), "address_refused");
    }

    #[test]
    fn display_of_limits() {
        let e = FetchError::TooLarge {
            url: "https://a.example/".into(),
            limit: 10,
        };
        assert!(e.to_string().contains("larger than the limit of 10 bytes"));
        assert_eq!(e.reason(), "response_too_large");
        let e = FetchError::Timeout {
            url: "https://a.example/".into(),
            limit: Duration::from_millis(1500),
        };
        assert_eq!(
            e.to_string(),
            "fetching `https://a.example/` took longer than 1500 ms; abandoned"
        );
        let e = FetchError::TooManyRedirects {
            url: "https://a.example/".into(),
            max: 3,
        };
        assert_eq!(e.reason(), "too_many_redirects");
        assert!(e.findings().is_empty());
        let e = FetchError::BadRedirect {
            url: "https://a.example/".into(),
            status: 302,
            why: "no `Location` header",
        };
        assert_eq!(
            e.to_string(),
            "`https://a.example/` answered 302 with no `Location` header; cannot follow the redirect"
        );
    }
}
