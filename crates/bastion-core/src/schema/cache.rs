//! [`OutputSchemaCache`]: compile each `(tool, schema)` once.

use super::bounds::{SchemaLimits, check_size};
use super::error::Refusal;
use super::validator::{OutputValidator, check_root};
use crate::era::Era;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// SHA-256 of the canonical form of `schema`: compact JSON with the members of every
/// object sorted by their UTF-16 code units (as RFC 8785 orders them), strings escaped as
/// `serde_json` escapes them, numbers as `serde_json` prints them. Two schemas that differ
/// only in member order or whitespace hash alike. Used as a cache key, not as a pin (pins
/// use the contract's RFC 8785 hash).
pub fn schema_hash(schema: &Value) -> [u8; 32] {
    let mut hasher = Sha256::new();
    canonical(schema, &mut hasher);
    hasher.finalize().into()
}

fn canonical(value: &Value, out: &mut Sha256) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.update(b"{");
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.update(b",");
                }
                string(k, out);
                out.update(b":");
                canonical(v, out);
            }
            out.update(b"}");
        }
        Value::Array(items) => {
            out.update(b"[");
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.update(b",");
                }
                canonical(v, out);
            }
            out.update(b"]");
        }
        Value::String(s) => string(s, out),
        other => out.update(other.to_string().as_bytes()),
    }
}

fn string(s: &str, out: &mut Sha256) {
    // Serializing a `str` cannot fail.
    out.update(serde_json::to_string(s).unwrap_or_default().as_bytes());
}

type Key = (String, [u8; 32]);

struct Entry {
    compiled: Result<Arc<OutputValidator>, Refusal>,
    last_used: u64,
}

#[derive(Default)]
struct Inner {
    map: HashMap<Key, Entry>,
    tick: u64,
}

/// Compiled output schemas keyed by `(tool name, schema_hash)`, least recently used out
/// once `capacity` entries are held. Refusals are cached too, so a refused schema costs
/// one pre-walk, not one per call. Shared between threads (`&self` methods, one mutex
/// held only for look-ups; compiling happens outside it).
///
/// # Defaults
/// 256 entries, [`SchemaLimits::default`].
pub struct OutputSchemaCache {
    inner: Mutex<Inner>,
    capacity: usize,
    limits: SchemaLimits,
}

impl std::fmt::Debug for OutputSchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchemaCache")
            .field("len", &self.len())
            .field("capacity", &self.capacity)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for OutputSchemaCache {
    fn default() -> Self {
        Self::new(256)
    }
}

impl OutputSchemaCache {
    /// A cache of at most `capacity` schemas (at least 1) with the default limits.
    pub fn new(capacity: usize) -> Self {
        Self::with_limits(capacity, SchemaLimits::default())
    }

    /// A cache of at most `capacity` schemas (at least 1) bounded by `limits`.
    pub fn with_limits(capacity: usize, limits: SchemaLimits) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            capacity: capacity.max(1),
            limits,
        }
    }

    /// The validator for `tool`'s `schema` under `era`, compiled on first use.
    ///
    /// The era rule ([`super::check_root`]) and the size bound are checked on every call
    /// (both stop early); the schema is then hashed ([`schema_hash`]) and looked up. The
    /// same `(tool, schema)` returns the same `Arc` while it stays cached.
    ///
    /// # Errors
    /// The [`Refusal`] of the schema: era rule, a bound, or a compile failure.
    pub fn get_or_compile(
        &self,
        tool: &str,
        era: Era,
        schema: &Value,
    ) -> Result<Arc<OutputValidator>, Refusal> {
        check_root(era, schema)?;
        check_size(schema, self.limits.max_bytes)?;
        let key = (tool.to_owned(), schema_hash(schema));
        {
            let mut inner = self.lock();
            inner.tick += 1;
            let tick = inner.tick;
            if let Some(entry) = inner.map.get_mut(&key) {
                entry.last_used = tick;
                return entry.compiled.clone();
            }
        }
        let compiled = OutputValidator::compile_unchecked_root(schema, &self.limits).map(Arc::new);
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        if let Some(entry) = inner.map.get_mut(&key) {
            // Another thread compiled it meanwhile: keep one Arc.
            entry.last_used = tick;
            return entry.compiled.clone();
        }
        if inner.map.len() >= self.capacity
            && let Some(oldest) = inner
                .map
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone())
        {
            inner.map.remove(&oldest);
        }
        inner.map.insert(
            key,
            Entry {
                compiled: compiled.clone(),
                last_used: tick,
            },
        );
        compiled
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    /// `true` when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every entry (e.g. when a server's tool list changes).
    pub fn clear(&self) {
        self.lock().map.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The map stays consistent at every await-free step: a panic elsewhere cannot
        // leave it half-updated, so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn weather() -> Value {
        json!({"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]})
    }

    #[test]
    fn hit_returns_the_same_arc() {
        let cache = OutputSchemaCache::default();
        let a = cache.get_or_compile("w", Era::Legacy, &weather()).unwrap();
        // Member order does not matter.
        let reordered =
            json!({"required": ["t"], "properties": {"t": {"type": "number"}}, "type": "object"});
        let b = cache.get_or_compile("w", Era::Legacy, &reordered).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(cache.len(), 1);
        let c = cache
            .get_or_compile("other", Era::Legacy, &weather())
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(cache.len(), 2);
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn least_recently_used_goes_first() {
        let cache = OutputSchemaCache::new(2);
        let a = cache.get_or_compile("a", Era::Legacy, &weather()).unwrap();
        let _b = cache.get_or_compile("b", Era::Legacy, &weather()).unwrap();
        // Touch `a`, so `b` is the oldest when `c` arrives.
        let a2 = cache.get_or_compile("a", Era::Legacy, &weather()).unwrap();
        assert!(Arc::ptr_eq(&a, &a2));
        let _c = cache.get_or_compile("c", Era::Legacy, &weather()).unwrap();
        assert_eq!(cache.len(), 2);
        let a3 = cache.get_or_compile("a", Era::Legacy, &weather()).unwrap();
        assert!(Arc::ptr_eq(&a, &a3));
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn refusals_are_cached_and_era_is_checked_per_call() {
        let cache = OutputSchemaCache::default();
        let remote = json!({"type": "object", "$ref": "https://evil.example/s.json"});
        let first = cache.get_or_compile("t", Era::Legacy, &remote).unwrap_err();
        assert!(matches!(first, Refusal::NonLocalRef { .. }));
        assert_eq!(cache.len(), 1);
        assert_eq!(
            cache.get_or_compile("t", Era::Legacy, &remote).unwrap_err(),
            first
        );
        let array = json!({"type": "array", "items": {"type": "number"}});
        assert_eq!(
            cache.get_or_compile("t", Era::Legacy, &array).unwrap_err(),
            Refusal::RootNotObject
        );
        assert!(cache.get_or_compile("t", Era::Stateless, &array).is_ok());
    }

    #[test]
    fn hash_ignores_order_not_content() {
        assert_eq!(
            schema_hash(&json!({"a": 1, "b": [true, null, "x"]})),
            schema_hash(&json!({"b": [true, null, "x"], "a": 1}))
        );
        assert_ne!(schema_hash(&json!({"a": 1})), schema_hash(&json!({"a": 2})));
        assert_ne!(schema_hash(&json!([1, 2])), schema_hash(&json!([2, 1])));
    }
}
