//! [`ListenerPolicy`]: what the Streamable HTTP listener accepts (bound address, allowed
//! `Host` and `Origin` values, bearer token digest, body cap, endpoint path).

use super::authority::{HostPort, parse_authority, parse_origin};
use crate::Limits;
use sha2::{Digest, Sha256};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The port `check http-request` assumes when the input names no listener: 8931.
pub const DEFAULT_CHECK_PORT: u16 = 8931;

/// The MCP endpoint path of the listener unless configured otherwise: `/mcp`.
pub const DEFAULT_ENDPOINT: &str = "/mcp";

/// Why a [`ListenerPolicy`] setting was refused (configuration error, exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ListenerPolicyError {
    /// An allowed-host entry is not `host:port` (RFC 9110 §7.2 `uri-host [":" port]`).
    #[error(
        "allowed host `{0}` is not a host with an optional port such as `127.0.0.1:8931` or `mcp.example.com:443`"
    )]
    Host(String),
    /// An allowed-origin entry is not a serialized origin (RFC 6454 §6.2).
    #[error(
        "allowed origin `{0}` is not a serialized origin such as `https://app.example.com` (scheme, host and optional port; no path, `null` is never allowed)"
    )]
    Origin(String),
    /// The endpoint path is not an absolute path.
    #[error("endpoint `{0}` must be an absolute path such as `/mcp` (no query, fragment or `..`)")]
    Endpoint(String),
    /// The bearer token is empty or not a token68 (RFC 9110 §11.2).
    #[error(
        "the bearer token must be 1 or more characters of A-Z a-z 0-9 - . _ ~ + / (optionally ending in =)"
    )]
    Token,
}

/// How hosts authenticate to the listener.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// Not checked: only for `check http-request` without a token and for tests.
    NotChecked,
    /// `Authorization: Bearer <token>` whose SHA-256 equals this digest.
    Bearer([u8; 32]),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotChecked => f.write_str("NotChecked"),
            // Never print the digest: it identifies the token.
            Self::Bearer(_) => f.write_str("Bearer(<sha-256>)"),
        }
    }
}

/// What the listener accepts: compile once at start-up, then [`super::decide`] every
/// request against it.
///
/// # Defaults
/// | setting | default |
/// |---|---|
/// | allowed `Host` values | `127.0.0.1:P`, `localhost:P`, `[::1]:P` for the bound port `P`, plus the bound address itself when it is neither loopback nor unspecified |
/// | allowed `Origin`s | only the listener's own loopback origins `http://127.0.0.1:P`, `http://localhost:P`, `http://[::1]:P` (no page can come from them but one this listener served, and it serves none); any other `Origin` is refused (403) unless added with [`ListenerPolicy::allow_origin`]; a request without `Origin` (non-browser host) passes |
/// | bearer token | required when built with [`ListenerPolicy::new`]; [`ListenerPolicy::without_auth`] is the explicit escape hatch |
/// | body cap | `[limits] max_host_frame_bytes` (1 MiB) |
/// | endpoint | `/mcp` |
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerPolicy {
    pub(crate) bind: SocketAddr,
    pub(crate) hosts: Vec<HostPort>,
    pub(crate) origins: Vec<url::Origin>,
    pub(crate) auth: Auth,
    pub(crate) max_body_bytes: u64,
    pub(crate) max_depth: usize,
    pub(crate) endpoint: String,
}

/// The SHA-256 of a bearer token, the form a [`ListenerPolicy`] keeps (so the token
/// itself need not stay in memory, and comparison is over fixed-length digests).
pub fn token_digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl ListenerPolicy {
    /// The policy of a listener bound to `bind` whose hosts must present the bearer token
    /// with SHA-256 `token_sha256` ([`token_digest`]); body cap and JSON depth from
    /// `limits` (`max_host_frame_bytes`, `max_depth`). Allowed hosts and origins as in the
    /// table above.
    pub fn new(bind: SocketAddr, token_sha256: [u8; 32], limits: &Limits) -> Self {
        let port = bind.port();
        let mut hosts = vec![
            HostPort::ip(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
            HostPort::domain("localhost", port),
            HostPort::ip(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
        ];
        // The listener's own loopback origins (RFC 6454 §4: scheme, host, port): a
        // page at one of them would have to be served by whatever holds this port, and
        // the listener serves no pages. A rebound name (`http://evil.example:P`) or another
        // local port is a different origin and stays refused.
        let origins = hosts
            .iter()
            .filter_map(|h| parse_origin(&format!("http://{h}")))
            .collect();
        let ip = bind.ip();
        if !ip.is_loopback() && !ip.is_unspecified() {
            hosts.push(HostPort::ip(ip, port));
        }
        Self {
            bind,
            hosts,
            origins,
            auth: Auth::Bearer(token_sha256),
            max_body_bytes: u64::try_from(limits.max_host_frame_bytes).unwrap_or(u64::MAX),
            max_depth: limits.max_depth,
            endpoint: DEFAULT_ENDPOINT.to_owned(),
        }
    }

    /// Dangerous: accept requests without checking `Authorization`. For `check
    /// http-request` inputs that name no token, and for tests; a listener must not use it.
    #[must_use]
    pub fn without_auth(mut self) -> Self {
        self.auth = Auth::NotChecked;
        self
    }

    /// Requires `Authorization: Bearer <token>` (the digest of `token` is kept).
    ///
    /// # Errors
    /// [`ListenerPolicyError::Token`] when `token` is not a non-empty token68.
    pub fn with_bearer_token(mut self, token: &str) -> Result<Self, ListenerPolicyError> {
        if !super::auth::is_token68(token) {
            return Err(ListenerPolicyError::Token);
        }
        self.auth = Auth::Bearer(token_digest(token));
        Ok(self)
    }

    /// Adds an allowed `Host` value (`name[:port]`; without a port, 80).
    ///
    /// # Errors
    /// [`ListenerPolicyError::Host`] when `host` is not `uri-host [":" port]`.
    pub fn allow_host(mut self, host: &str) -> Result<Self, ListenerPolicyError> {
        let parsed = parse_authority(host).ok_or_else(|| ListenerPolicyError::Host(host.into()))?;
        if !self.hosts.contains(&parsed) {
            self.hosts.push(parsed);
        }
        Ok(self)
    }

    /// Adds an allowed origin (`scheme://host[:port]`, compared as an origin tuple, so
    /// `https://App.Example:443` equals `https://app.example`).
    ///
    /// # Errors
    /// [`ListenerPolicyError::Origin`] for anything but a tuple origin (`null` included).
    pub fn allow_origin(mut self, origin: &str) -> Result<Self, ListenerPolicyError> {
        let parsed =
            parse_origin(origin).ok_or_else(|| ListenerPolicyError::Origin(origin.into()))?;
        if !self.origins.contains(&parsed) {
            self.origins.push(parsed);
        }
        Ok(self)
    }

    /// Sets the MCP endpoint path (default `/mcp`).
    ///
    /// # Errors
    /// [`ListenerPolicyError::Endpoint`] unless `path` is an absolute path without query,
    /// fragment, dot segments or percent-escapes.
    pub fn with_endpoint(mut self, path: &str) -> Result<Self, ListenerPolicyError> {
        let ok = path.starts_with('/')
            && !path.starts_with("//")
            && path
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/-._~".contains(&b))
            && !path.split('/').any(|seg| seg == "." || seg == "..");
        if !ok {
            return Err(ListenerPolicyError::Endpoint(path.into()));
        }
        path.clone_into(&mut self.endpoint);
        Ok(self)
    }

    /// Sets the body cap in bytes (default `max_host_frame_bytes`).
    #[must_use]
    pub const fn with_max_body_bytes(mut self, bytes: u64) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// The address the listener binds.
    pub const fn bind(&self) -> SocketAddr {
        self.bind
    }

    /// The body cap, bytes.
    pub const fn max_body_bytes(&self) -> u64 {
        self.max_body_bytes
    }

    /// The MCP endpoint path.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Whether a bearer token is required.
    pub const fn requires_token(&self) -> bool {
        matches!(self.auth, Auth::Bearer(_))
    }

    /// The allowed `Host` values, serialized (`127.0.0.1:8931`, `[::1]:8931`, ...).
    pub fn allowed_hosts(&self) -> Vec<String> {
        self.hosts.iter().map(ToString::to_string).collect()
    }

    /// The allowed origins, serialized (`https://app.example`).
    pub fn allowed_origins(&self) -> Vec<String> {
        self.origins
            .iter()
            .map(url::Origin::ascii_serialization)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> ListenerPolicy {
        ListenerPolicy::new(
            "127.0.0.1:8931".parse().unwrap(),
            token_digest("t0ken"),
            &Limits::default(),
        )
    }

    #[test]
    fn defaults_are_the_loopback_names_of_the_port() {
        let p = policy();
        assert_eq!(
            p.allowed_hosts(),
            ["127.0.0.1:8931", "localhost:8931", "[::1]:8931"]
        );
        assert_eq!(
            p.allowed_origins(),
            [
                "http://127.0.0.1:8931",
                "http://localhost:8931",
                "http://[::1]:8931"
            ]
        );
        assert!(p.requires_token());
        assert_eq!(p.max_body_bytes(), 1024 * 1024);
        assert_eq!(p.endpoint(), "/mcp");
        let lan = ListenerPolicy::new(
            "192.0.2.7:9000".parse().unwrap(),
            token_digest("x"),
            &Limits::default(),
        );
        assert!(lan.allowed_hosts().contains(&"192.0.2.7:9000".to_owned()));
    }

    #[test]
    fn settings_are_validated() {
        let p = policy()
            .allow_origin("HTTPS://App.Example:443")
            .unwrap()
            .allow_host("mcp.example.com")
            .unwrap();
        assert_eq!(p.allowed_origins().last().unwrap(), "https://app.example");
        assert!(p.allowed_hosts().contains(&"mcp.example.com:80".to_owned()));
        for bad in ["null", "https://a.example/path", "file:///x", "a.example"] {
            assert_eq!(
                policy().allow_origin(bad).unwrap_err(),
                ListenerPolicyError::Origin(bad.into())
            );
        }
        for bad in ["", "a b:1", "user@h:1", "h:1/x", "h:99999"] {
            assert!(policy().allow_host(bad).is_err(), "{bad}");
        }
        for bad in ["mcp", "/a/../b", "/a?x", "//h/mcp"] {
            assert!(policy().with_endpoint(bad).is_err(), "{bad}");
        }
        assert!(policy().with_bearer_token("").is_err());
        assert!(policy().with_bearer_token("a b").is_err());
        let msg = ListenerPolicyError::Token.to_string();
        assert!(msg.contains("token68") || msg.contains("A-Z"), "{msg}");
    }

    #[test]
    fn debug_never_shows_the_digest() {
        let shown = format!("{:?}", policy());
        assert!(shown.contains("Bearer(<sha-256>)"), "{shown}");
        let digest = token_digest("t0ken");
        assert!(!shown.contains(&hex::encode(digest)));
        assert!(
            !shown.contains(
                &format!("{:?}", &digest[..4])
                    .trim_end_matches(']')
                    .to_owned()
            )
        );
    }
}
