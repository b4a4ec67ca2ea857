//! [`SchemaLimits`] and the pre-walk that enforces them before anything is compiled.

use super::error::{Refusal, shown};
use crate::finding::pointer_push;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Bounds on a tool's `outputSchema`, checked by a walk over the schema before it is
/// compiled. A schema over any bound is refused ([`Refusal`]) and not used.
///
/// # Defaults
/// | field | default |
/// |---|---|
/// | `max_depth` | 32 nested subschemas (the root is level 1) |
/// | `max_nodes` | 10 000 subschemas (objects and booleans in schema positions) |
/// | `max_bytes` | 256 KiB, compact JSON |
/// | `max_compositions` | 256 `allOf`/`anyOf`/`oneOf`/`not`/`if` keywords |
/// | `max_refs` | 512 `$ref`/`$dynamicRef`/`$recursiveRef` keywords |
/// | `max_pattern_bytes` | 1 KiB per `pattern` / `patternProperties` regex |
/// | `max_patterns` | 64 distinct regexes |
/// | `regex_size_limit` | 4 MiB compiled program per regex (`regex` crate `size_limit`; `^[\p{L}\p{N}_-]{1,64}$` needs about 3) |
/// | `regex_dfa_size_limit` | 512 KiB lazy-DFA cache per regex (`regex` crate `dfa_size_limit`) |
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaLimits {
    /// Deepest nesting of subschemas; the root schema is level 1.
    pub max_depth: usize,
    /// Most subschemas in total, the root included.
    pub max_nodes: usize,
    /// Largest compact serialization, bytes.
    pub max_bytes: usize,
    /// Most composition keywords (`allOf`, `anyOf`, `oneOf`, `not`, `if`; `then`/`else`
    /// belong to their `if`), counted over all subschemas.
    pub max_compositions: usize,
    /// Most reference keywords (`$ref`, `$dynamicRef`, `$recursiveRef`).
    pub max_refs: usize,
    /// Longest `pattern` or `patternProperties` regex, bytes.
    pub max_pattern_bytes: usize,
    /// Most distinct regexes. Each may compile to up to `regex_size_limit` bytes, so this
    /// bounds the memory (and compile time) one schema can claim.
    pub max_patterns: usize,
    /// Largest compiled regex program, bytes; a regex over it is refused.
    pub regex_size_limit: usize,
    /// Lazy-DFA transition cache per regex, bytes; matching stays linear when it fills.
    pub regex_dfa_size_limit: usize,
}

impl Default for SchemaLimits {
    fn default() -> Self {
        Self {
            max_depth: 32,
            max_nodes: 10_000,
            max_bytes: 256 * 1024,
            max_compositions: 256,
            max_refs: 512,
            max_pattern_bytes: 1024,
            max_patterns: 64,
            regex_size_limit: 4 * 1024 * 1024,
            regex_dfa_size_limit: 512 * 1024,
        }
    }
}

/// Keywords whose value is one subschema (all drafts 4 to 2020-12).
const ONE: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is an array of subschemas (`items` in its draft ≤ 2019-09 form).
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas (`dependencies` values may also be
/// arrays of names, which are skipped).
const MAP: &[&str] = &[
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "properties",
];
/// Composition keywords counted against `max_compositions`.
const COMPOSITION: &[&str] = &["allOf", "anyOf", "oneOf", "not", "if"];
/// Reference keywords: local only, counted against `max_refs`.
const REFS: &[&str] = &["$ref", "$dynamicRef", "$recursiveRef"];

/// Counts bytes of a serialization and stops it past a limit.
struct Counter {
    bytes: usize,
    limit: usize,
}

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len();
        if self.bytes > self.limit {
            return Err(std::io::Error::other("limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Checks the serialized size alone: `Err` when the compact JSON of `schema` is longer
/// than `limit` bytes. Stops writing at the limit, so the cost is bounded by it.
///
/// # Errors
/// [`Refusal::TooLarge`].
pub(super) fn check_size(schema: &Value, limit: usize) -> Result<(), Refusal> {
    let mut counter = Counter { bytes: 0, limit };
    serde_json::to_writer(&mut counter, schema).map_err(|_| Refusal::TooLarge { limit })
}

/// Walks `schema` and checks every bound of `limits` except the compiled regex size
/// (which only the regex compiler knows): size, depth, node count, compositions,
/// references (count and locality), `$schema` dialects, pattern lengths and count.
///
/// # Errors
/// The first bound exceeded, as a [`Refusal`].
pub fn prewalk(schema: &Value, limits: &SchemaLimits) -> Result<(), Refusal> {
    match schema {
        Value::Object(_) | Value::Bool(_) => {}
        _ => return Err(Refusal::NotASchema),
    }
    check_size(schema, limits.max_bytes)?;
    let mut walk = Walk {
        limits,
        nodes: 0,
        compositions: 0,
        refs: 0,
        patterns: HashSet::new(),
    };
    walk.schema(schema, "", 1)
}

struct Walk<'a> {
    limits: &'a SchemaLimits,
    nodes: usize,
    compositions: usize,
    refs: usize,
    patterns: HashSet<&'a str>,
}

impl<'a> Walk<'a> {
    /// One value in a schema position at nesting `depth`.
    fn schema(&mut self, value: &'a Value, path: &str, depth: usize) -> Result<(), Refusal> {
        let map = match value {
            Value::Object(map) => map,
            // A boolean schema is a node; anything else in a schema position is left to the
            // compiler, which rejects it against the meta-schema.
            Value::Bool(_) => return self.node(path, depth),
            _ => return Ok(()),
        };
        self.node(path, depth)?;
        self.keywords(map, path)?;
        for (key, sub) in map {
            let key = key.as_str();
            let here = || pointer_push(path, key);
            if ONE.contains(&key) && (sub.is_object() || sub.is_boolean()) {
                self.schema(sub, &here(), depth + 1)?;
            } else if MANY.contains(&key) {
                if let Value::Array(items) = sub {
                    let base = here();
                    for (i, item) in items.iter().enumerate() {
                        self.schema(item, &pointer_push(&base, &i.to_string()), depth + 1)?;
                    }
                }
            } else if MAP.contains(&key)
                && let Value::Object(members) = sub
            {
                let base = here();
                for (name, item) in members {
                    self.schema(item, &pointer_push(&base, name), depth + 1)?;
                }
            }
        }
        Ok(())
    }

    fn node(&mut self, path: &str, depth: usize) -> Result<(), Refusal> {
        if depth > self.limits.max_depth {
            return Err(Refusal::TooDeep {
                path: path.to_owned(),
                limit: self.limits.max_depth,
            });
        }
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(Refusal::TooManyNodes {
                limit: self.limits.max_nodes,
            });
        }
        Ok(())
    }

    /// The keywords of one schema object that need a look of their own.
    fn keywords(&mut self, map: &'a Map<String, Value>, path: &str) -> Result<(), Refusal> {
        for (key, value) in map {
            let key = key.as_str();
            if COMPOSITION.contains(&key) {
                self.compositions += 1;
                if self.compositions > self.limits.max_compositions {
                    return Err(Refusal::TooManyCompositions {
                        limit: self.limits.max_compositions,
                    });
                }
            } else if REFS.contains(&key) {
                self.refs += 1;
                if self.refs > self.limits.max_refs {
                    return Err(Refusal::TooManyRefs {
                        limit: self.limits.max_refs,
                    });
                }
                if let Value::String(reference) = value
                    && !reference.starts_with('#')
                {
                    return Err(Refusal::NonLocalRef {
                        path: pointer_push(path, key),
                        reference: shown(reference, 80),
                    });
                }
            } else if key == "$schema"
                && let Value::String(uri) = value
                && matches!(
                    jsonschema::Draft::from_schema_uri(uri),
                    jsonschema::Draft::Unknown
                )
            {
                return Err(Refusal::UnsupportedDialect {
                    path: pointer_push(path, key),
                    uri: shown(uri, 80),
                });
            } else if key == "pattern"
                && let Value::String(pattern) = value
            {
                self.pattern(pattern, &pointer_push(path, key))?;
            } else if key == "patternProperties"
                && let Value::Object(members) = value
            {
                let base = pointer_push(path, key);
                for name in members.keys() {
                    self.pattern(name, &pointer_push(&base, name))?;
                }
            }
        }
        Ok(())
    }

    fn pattern(&mut self, pattern: &'a str, path: &str) -> Result<(), Refusal> {
        if pattern.len() > self.limits.max_pattern_bytes {
            return Err(Refusal::PatternTooLong {
                path: path.to_owned(),
                bytes: pattern.len(),
                limit: self.limits.max_pattern_bytes,
            });
        }
        self.patterns.insert(pattern);
        if self.patterns.len() > self.limits.max_patterns {
            return Err(Refusal::TooManyPatterns {
                limit: self.limits.max_patterns,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: &Value) -> Result<(), Refusal> {
        prewalk(schema, &SchemaLimits::default())
    }

    /// `{"type": "object", "properties": {"p0": item(0), ...}}` with `n` members.
    fn with_properties(n: usize, item: impl Fn(usize) -> Value) -> Value {
        let props: Map<String, Value> = (0..n).map(|i| (format!("p{i}"), item(i))).collect();
        json!({"type": "object", "properties": props})
    }

    /// Subschemas nested `levels` deep through `properties` (the root is level 1).
    fn nested(levels: usize) -> Value {
        let mut s = json!({"type": "string"});
        for _ in 1..levels {
            s = json!({"type": "object", "properties": {"a": s}});
        }
        s
    }

    #[test]
    fn depth_limit() {
        assert_eq!(check(&nested(32)), Ok(()));
        let err = check(&nested(33)).unwrap_err();
        assert!(
            matches!(&err, Refusal::TooDeep { limit: 32, path } if path.matches("/properties/a").count() == 32),
            "{err:?}"
        );
        // Depth counts subschemas, not JSON objects: map containers are not levels.
        let items = (1..32).fold(json!({}), |s, _| json!({"items": s}));
        assert_eq!(check(&items), Ok(()));
        let items = json!({"items": items});
        assert!(matches!(check(&items), Err(Refusal::TooDeep { .. })));
    }

    #[test]
    fn node_limit() {
        // The root plus 9 999 properties is 10 000 nodes.
        assert_eq!(check(&with_properties(9_999, |_| json!({}))), Ok(()));
        assert_eq!(
            check(&with_properties(10_000, |_| json!({}))),
            Err(Refusal::TooManyNodes { limit: 10_000 })
        );
        // Boolean subschemas count too.
        assert_eq!(
            check(&with_properties(10_000, |_| json!(true))),
            Err(Refusal::TooManyNodes { limit: 10_000 })
        );
    }

    #[test]
    fn size_limit() {
        let base = json!({"type": "object", "description": ""});
        let overhead = serde_json::to_vec(&base).unwrap().len();
        let fill = |n: usize| json!({"type": "object", "description": "x".repeat(n)});
        let exact = fill(256 * 1024 - overhead);
        assert_eq!(serde_json::to_vec(&exact).unwrap().len(), 256 * 1024);
        assert_eq!(check(&exact), Ok(()));
        assert_eq!(
            check(&fill(256 * 1024 - overhead + 1)),
            Err(Refusal::TooLarge { limit: 256 * 1024 })
        );
    }

    #[test]
    fn composition_limit() {
        let mixed = |i: usize| match i % 5 {
            0 => json!({"not": {"type": "null"}}),
            1 => json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
            2 => json!({"oneOf": [{"type": "string"}]}),
            3 => json!({"allOf": [{}]}),
            _ => json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": {}}),
        };
        assert_eq!(check(&with_properties(256, mixed)), Ok(()));
        assert_eq!(
            check(&with_properties(257, mixed)),
            Err(Refusal::TooManyCompositions { limit: 256 })
        );
    }

    #[test]
    fn ref_limit() {
        let with_refs = |n: usize| {
            let mut s = with_properties(n, |_| json!({"$ref": "#/$defs/t"}));
            s["$defs"] = json!({"t": {"type": "string"}});
            s
        };
        assert_eq!(check(&with_refs(512)), Ok(()));
        assert_eq!(
            check(&with_refs(513)),
            Err(Refusal::TooManyRefs { limit: 512 })
        );
    }

    #[test]
    fn only_local_refs() {
        for local in ["#", "#/$defs/a", "#/definitions/a~1b", "#anchor"] {
            let s = json!({"type": "object", "properties": {"a": {"$ref": local}}});
            assert_eq!(check(&s), Ok(()), "{local}");
        }
        for remote in [
            "https://evil.example/schema.json",
            "http://169.254.169.254/latest/meta-data",
            "file:///etc/passwd",
            "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66",
            "other.json#/a",
            "//evil.example/x",
            "",
        ] {
            let s = json!({"type": "object", "$defs": {"x": {"items": {"$ref": remote}}}});
            let err = check(&s).unwrap_err();
            assert!(
                matches!(&err, Refusal::NonLocalRef { path, .. } if path == "/$defs/x/items/$ref"),
                "{remote}: {err:?}"
            );
        }
        let dynamic = json!({"$dynamicRef": "https://evil.example/s#meta"});
        assert!(matches!(check(&dynamic), Err(Refusal::NonLocalRef { .. })));
    }

    #[test]
    fn pattern_length_and_count() {
        let pat = |n: usize| json!({"type": "string", "pattern": "a".repeat(n)});
        assert_eq!(check(&pat(1024)), Ok(()));
        assert_eq!(
            check(&pat(1025)),
            Err(Refusal::PatternTooLong {
                path: "/pattern".into(),
                bytes: 1025,
                limit: 1024
            })
        );
        let key = "b".repeat(1025);
        let s = json!({"type": "object", "patternProperties": {key.clone(): {}}});
        assert!(
            matches!(check(&s), Err(Refusal::PatternTooLong { path, .. }) if path == format!("/patternProperties/{key}"))
        );
        let distinct = |n: usize| with_properties(n, |i| json!({"pattern": format!("^x{i}$")}));
        assert_eq!(check(&distinct(64)), Ok(()));
        assert_eq!(
            check(&distinct(65)),
            Err(Refusal::TooManyPatterns { limit: 64 })
        );
        // The same regex repeated counts once.
        let same = with_properties(1000, |_| json!({"pattern": "^x$"}));
        assert_eq!(check(&same), Ok(()));
    }

    #[test]
    fn dialects() {
        for ok in [
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-04/schema#",
        ] {
            assert_eq!(check(&json!({"$schema": ok, "type": "object"})), Ok(()));
        }
        let custom = json!({"type": "object", "$schema": "https://evil.example/meta"});
        assert!(matches!(
            check(&custom),
            Err(Refusal::UnsupportedDialect { .. })
        ));
    }

    #[test]
    fn non_schema_positions_are_not_walked() {
        // `enum`, `const`, `default`, `examples` hold data: a `$ref` or `pattern` member
        // there is not a keyword.
        let s = json!({"type": "object", "default": {"$ref": "https://x.example/"},
            "enum": [{"pattern": "x".repeat(2000)}]});
        assert_eq!(check(&s), Ok(()));
        assert_eq!(check(&json!("string")), Err(Refusal::NotASchema));
        assert_eq!(check(&json!(true)), Ok(()));
    }
}
