//! Protocol era detection (DESIGN §1 "era").
//!
//! - `legacy`: revisions reached through the `initialize` handshake, up to 2025-11-25
//!   (MCP 2025-11-25 "Lifecycle").
//! - `stateless`: 2026-07-28, where every request carries
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` and clients may call
//!   `server/discover` (MCP 2026-07-28 "Base Protocol", SEP-2575).

use crate::json::Member;
use serde_json::Value;

/// Revisions negotiated with `initialize`, oldest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Revisions using the per-request envelope.
pub const STATELESS_VERSIONS: &[&str] = &["2026-07-28"];
/// The `_meta` key carrying the protocol version of a 2026-07-28 request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// A protocol era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// `initialize` handshake, server → client requests, versions ≤ 2025-11-25.
    Legacy,
    /// Stateless 2026-07-28: `server/discover`, `_meta` per request, `resultType`.
    Stateless,
}

impl Era {
    /// Stable name: `legacy` / `stateless`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Legacy => "legacy",
            Self::Stateless => "stateless",
        }
    }

    /// The era of a protocol version string. Unknown strings are compared as dates
    /// only when date-shaped (`YYYY-MM-DD`): later than 2025-11-25 means stateless.
    pub fn of_version(version: &str) -> Option<Self> {
        if HANDSHAKE_VERSIONS.contains(&version) {
            return Some(Self::Legacy);
        }
        if STATELESS_VERSIONS.contains(&version) {
            return Some(Self::Stateless);
        }
        let date_shaped = version.len() == 10
            && version.bytes().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            });
        date_shaped.then(|| {
            if version > "2025-11-25" {
                Self::Stateless
            } else {
                Self::Legacy
            }
        })
    }
}

/// What a host request tells about the era: `(era, version)`.
///
/// `initialize` → legacy with its `protocolVersion`; `server/discover` → stateless;
/// any request whose `params._meta` names a protocol version → that version's era.
pub fn from_host_request(method: &str, params: Option<&Value>) -> Option<(Era, Option<String>)> {
    let meta_version = params
        .and_then(|p| p.member("_meta"))
        .and_then(|m| m.member(META_PROTOCOL_VERSION))
        .and_then(Value::as_str);
    match method {
        "initialize" => {
            let v = params
                .and_then(|p| p.member("protocolVersion"))
                .and_then(Value::as_str);
            Some((Era::Legacy, v.map(str::to_owned)))
        }
        "server/discover" => Some((Era::Stateless, meta_version.map(str::to_owned))),
        _ => meta_version.and_then(|v| Era::of_version(v).map(|e| (e, Some(v.to_owned())))),
    }
}

/// `true` when a result declares a 2026-07-28 `resultType`.
pub fn result_is_stateless(result: &Value) -> bool {
    result.member("resultType").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn versions() {
        assert_eq!(Era::of_version("2025-11-25"), Some(Era::Legacy));
        assert_eq!(Era::of_version("2024-11-05"), Some(Era::Legacy));
        assert_eq!(Era::of_version("2026-07-28"), Some(Era::Stateless));
        assert_eq!(Era::of_version("2027-01-01"), Some(Era::Stateless));
        assert_eq!(Era::of_version("zzz"), None);
    }

    #[test]
    fn from_requests() {
        let init = json!({"protocolVersion":"2025-06-18","capabilities":{}});
        assert_eq!(
            from_host_request("initialize", Some(&init)),
            Some((Era::Legacy, Some("2025-06-18".into())))
        );
        let call =
            json!({"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}});
        assert_eq!(
            from_host_request("tools/call", Some(&call)),
            Some((Era::Stateless, Some("2026-07-28".into())))
        );
        assert_eq!(
            from_host_request("server/discover", None),
            Some((Era::Stateless, None))
        );
        assert_eq!(from_host_request("tools/list", None), None);
    }
}
