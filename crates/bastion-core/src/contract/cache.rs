//! Cache policy of a contract: the `ttlMs` / `cacheScope` hints a 2026-07-28 server
//! attaches to cacheable results (`server/discover`, `tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`, `resources/read`; never to
//! `input_required` results). Used by `mcp-bastion publish` (issue 7 §9).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Methods whose complete results carry cache hints (MCP 2026-07-28).
pub const CACHEABLE_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// `cacheScope`: who may reuse a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client or shared cache may reuse it.
    Public,
    /// Only the requesting user's client may reuse it.
    Private,
}

/// One cache hint. JSON: `{"ttlMs": 60000, "cacheScope": "public", "private"?: false}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheHint {
    /// Time to live in milliseconds (≥ 0; 0 = do not reuse).
    #[serde(rename = "ttlMs")]
    pub ttl_ms: u64,
    /// Scope.
    #[serde(rename = "cacheScope")]
    pub cache_scope: CacheScope,
    /// The result holds user-private data: it must never be given `public` scope
    /// (`cacheScope` must then be `private`; `contract build` refuses otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

/// The contract's cache policy. JSON: `{"default"?: hint, "methods": {"tools/list": hint,
/// ...}, "resources": {"<uri>": hint, ...}}`. Lookup order for a `resources/read` of a
/// URI: `resources[uri]`, then `methods["resources/read"]`, then `default`; for a list
/// method: `methods[method]`, then `default`. No hint: the result is not marked cacheable.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CachePolicy {
    /// Hint for cacheable methods without their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<CacheHint>,
    /// Per method (keys from [`CACHEABLE_METHODS`]).
    #[serde(default)]
    pub methods: BTreeMap<String, CacheHint>,
    /// Per resource URI (for `resources/read`).
    #[serde(default)]
    pub resources: BTreeMap<String, CacheHint>,
}

impl CachePolicy {
    /// The hint for a result of `method` (for `resources/read`, of resource `uri`), by the
    /// lookup order above; `None` when the method is not cacheable or nothing applies.
    pub fn hint_for(&self, method: &str, uri: Option<&str>) -> Option<CacheHint> {
        if !CACHEABLE_METHODS.contains(&method) {
            return None;
        }
        // Resources are found by identity ([`crate::uri::resource_key`]): a fragment, a
        // dot segment or another spelling of a private resource's URI must not fall
        // back to the method's (perhaps public) hint.
        if method == "resources/read"
            && let Some(key) = uri.map(crate::uri::resource_key)
            && let Some(hint) = self
                .resources
                .iter()
                .find(|(k, _)| crate::uri::resource_key(k) == key)
                .map(|(_, h)| h)
        {
            return Some(*hint);
        }
        self.methods.get(method).copied().or(self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_order_and_non_cacheable_methods() {
        let hint = |ttl, scope| CacheHint {
            ttl_ms: ttl,
            cache_scope: scope,
            private: false,
        };
        let policy = CachePolicy {
            default: Some(hint(1, CacheScope::Public)),
            methods: BTreeMap::from([("resources/read".to_owned(), hint(2, CacheScope::Public))]),
            resources: BTreeMap::from([("file:///a".to_owned(), hint(3, CacheScope::Private))]),
        };
        assert_eq!(
            policy
                .hint_for("resources/read", Some("file:///a"))
                .unwrap()
                .ttl_ms,
            3
        );
        assert_eq!(
            policy
                .hint_for("resources/read", Some("file:///b"))
                .unwrap()
                .ttl_ms,
            2
        );
        assert_eq!(policy.hint_for("tools/list", None).unwrap().ttl_ms, 1);
        assert!(policy.hint_for("tools/call", None).is_none());
        // Other spellings of a resource's URI get that resource's hint.
        for spelling in ["file:///a#x", "FILE:///a", "file:///./a", "file:///b/../a"] {
            assert_eq!(
                policy.hint_for("resources/read", Some(spelling)),
                policy.hint_for("resources/read", Some("file:///a")),
                "{spelling}"
            );
        }
    }
}
