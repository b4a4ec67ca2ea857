//! Cache hints a publisher attaches in front of its own server (`mcp-bastion publish`,
//! issue 7 item 9; seed AID-H-034.004-G004; MCP 2026-07-28: complete results of
//! `server/discover`, the four list methods and `resources/read` carry `ttlMs` ≥ 0 and
//! `cacheScope` `public` or `private`; `input_required` results are not cacheable).
//!
//! The contract's [`CachePolicy`] is the only source: what the server itself wrote in
//! `ttlMs`/`cacheScope` is replaced (the server cannot widen it), and:
//! * a result of another method, or of another era, is left alone;
//! * an `input_required` result gets no hint (any the server put there is removed);
//! * a hint marked `private` (user-private data) is always `private`, never `public`;
//! * without a hint for the method the result is marked not reusable (`ttlMs` 0,
//!   `private`): truthful, and still a valid complete result;
//! * every page of one list gets the same hint (the lookup depends on the method only;
//!   per-URI hints apply to `resources/read`).

use crate::contract::{CACHEABLE_METHODS, CachePolicy, CacheScope};
use serde_json::{Value, json};

/// The `ttlMs` and `cacheScope` a complete result of `method` (for `resources/read`, of
/// `uri`) gets from `policy`; `None` for a method that is not cacheable.
pub fn cache_hint(
    policy: &CachePolicy,
    method: &str,
    uri: Option<&str>,
) -> Option<(u64, CacheScope)> {
    if !CACHEABLE_METHODS.contains(&method) {
        return None;
    }
    Some(
        policy
            .hint_for(method, uri)
            .map_or((0, CacheScope::Private), |h| {
                let scope = if h.private {
                    CacheScope::Private
                } else {
                    h.cache_scope
                };
                (h.ttl_ms, scope)
            }),
    )
}

/// Sets (or, for `input_required`, removes) the cache hint members of one 2026-07-28
/// `result` of `method`. Returns whether the result changed.
pub fn apply_cache_hint(
    policy: &CachePolicy,
    method: &str,
    uri: Option<&str>,
    result: &mut Value,
) -> bool {
    let Some((ttl, scope)) = cache_hint(policy, method, uri) else {
        return false;
    };
    let Some(obj) = result.as_object_mut() else {
        return false;
    };
    let before = (obj.get("ttlMs").cloned(), obj.get("cacheScope").cloned());
    if obj.get("resultType").and_then(Value::as_str) == Some("input_required") {
        obj.shift_remove("ttlMs");
        obj.shift_remove("cacheScope");
    } else {
        obj.insert("ttlMs".into(), json!(ttl));
        obj.insert("cacheScope".into(), json!(scope));
    }
    before != (obj.get("ttlMs").cloned(), obj.get("cacheScope").cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::CacheHint;
    use std::collections::BTreeMap;

    fn policy() -> CachePolicy {
        let hint = |ttl, scope, private| CacheHint {
            ttl_ms: ttl,
            cache_scope: scope,
            private,
        };
        CachePolicy {
            default: None,
            methods: BTreeMap::from([
                (
                    "tools/list".to_owned(),
                    hint(300_000, CacheScope::Public, false),
                ),
                (
                    "resources/read".to_owned(),
                    hint(60_000, CacheScope::Public, false),
                ),
            ]),
            // A private hint that (wrongly) says public: still private.
            resources: BTreeMap::from([(
                "notes://mine".to_owned(),
                hint(5_000, CacheScope::Public, true),
            )]),
        }
    }

    #[test]
    fn hints_come_from_the_contract_only() {
        let p = policy();
        let mut r = json!({"tools": [], "ttlMs": 999_999_999, "cacheScope": "public"});
        assert!(apply_cache_hint(&p, "tools/list", None, &mut r));
        assert_eq!(r["ttlMs"], 300_000);
        assert_eq!(r["cacheScope"], "public");
        let mut r = json!({"contents": []});
        assert!(apply_cache_hint(
            &p,
            "resources/read",
            Some("notes://mine"),
            &mut r
        ));
        assert_eq!(
            (r["ttlMs"].clone(), r["cacheScope"].clone()),
            (json!(5_000), json!("private"))
        );
        let mut r = json!({"prompts": [], "ttlMs": 60_000, "cacheScope": "public"});
        apply_cache_hint(&p, "prompts/list", None, &mut r);
        assert_eq!(
            (r["ttlMs"].clone(), r["cacheScope"].clone()),
            (json!(0), json!("private"))
        );
    }

    #[test]
    fn input_required_and_other_methods_get_no_hint() {
        let p = policy();
        let mut r = json!({"resultType": "input_required", "inputRequests": {}, "ttlMs": 1, "cacheScope": "public"});
        assert!(apply_cache_hint(&p, "resources/read", None, &mut r));
        assert!(r.get("ttlMs").is_none() && r.get("cacheScope").is_none());
        let mut r = json!({"content": []});
        assert!(!apply_cache_hint(&p, "tools/call", None, &mut r));
        assert!(r.get("ttlMs").is_none());
        // Unchanged when already exact.
        let mut r = json!({"tools": [], "ttlMs": 300_000, "cacheScope": "public"});
        assert!(!apply_cache_hint(&p, "tools/list", None, &mut r));
    }
}
