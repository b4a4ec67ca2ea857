//! Reserved `_meta` key prefixes in server-published descriptors (`reserved_meta_prefix`,
//! warn).
//!
//! MCP 2025-11-25, Basic → General fields → `_meta`: a key is an optional prefix (dot-
//! separated labels followed by `/`) and a name; "any prefix where the second label is
//! `modelcontextprotocol` or `mcp` is reserved for MCP use" (`io.modelcontextprotocol/`,
//! `dev.mcp/`, `org.modelcontextprotocol.api/`, `com.mcp.tools/`; not `com.example.mcp/`).
//! Servers legitimately use some documented reserved keys (`io.modelcontextprotocol/ui`),
//! so this is a warning that lets a reviewer see which protocol-level keys a server sets.

use crate::finding::{Code, Finding, Severity, pointer_push};
use serde_json::Value;

/// Deepest nesting searched for `_meta` objects.
const MAX_DEPTH: usize = 128;

/// Whether `key`'s prefix is reserved for MCP.
pub(crate) fn is_reserved_key(key: &str) -> bool {
    let Some((prefix, _name)) = key.split_once('/') else {
        return false;
    };
    prefix.split('.').nth(1).is_some_and(|l| {
        l.eq_ignore_ascii_case("modelcontextprotocol") || l.eq_ignore_ascii_case("mcp")
    })
}

/// Appends a finding for every reserved key of every `_meta` object below `value`.
pub(crate) fn scan_meta(value: &Value, path: &str, findings: &mut Vec<Finding>) {
    walk(value, path, 0, findings);
}

fn walk(value: &Value, path: &str, depth: usize, findings: &mut Vec<Finding>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                let child = pointer_push(path, name);
                if name == "_meta"
                    && let Some(meta) = member.as_object()
                {
                    for key in meta.keys().filter(|k| is_reserved_key(k)) {
                        let shown: String =
                            key.chars().take(80).filter(|c| !c.is_control()).collect();
                        findings.push(Finding::new(
                            Code::ReservedMetaPrefix,
                            Severity::Warn,
                            pointer_push(&child, key),
                            format!("_meta key \"{shown}\" uses a prefix reserved for the MCP specification; check that the server is entitled to set it."),
                        ));
                    }
                }
                walk(member, &child, depth + 1, findings);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(
                    item,
                    &pointer_push(path, &i.to_string()),
                    depth + 1,
                    findings,
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reserved_prefixes() {
        for yes in [
            "io.modelcontextprotocol/ui",
            "dev.mcp/x",
            "org.modelcontextprotocol.api/y",
            "com.mcp.tools/z",
            "IO.MCP/a",
        ] {
            assert!(is_reserved_key(yes), "{yes}");
        }
        for no in [
            "com.example.mcp/x",
            "mcp/x",
            "modelcontextprotocol.io/x",
            "progressToken",
            "com.example/mcp",
            "ai.emiliaprotocol/x",
        ] {
            assert!(!is_reserved_key(no), "{no}");
        }
    }

    #[test]
    fn finds_meta_anywhere() {
        let d = json!({
            "_meta": {"io.modelcontextprotocol/ui": {}, "com.example/x": 1},
            "icons": [{"_meta": {"dev.mcp/a/b": 1}}],
            "inputSchema": {"properties": {"_meta": {"type": "string"}}}
        });
        let mut f = Vec::new();
        scan_meta(&d, "/tools/0", &mut f);
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/tools/0/_meta/io.modelcontextprotocol~1ui",
                "/tools/0/icons/0/_meta/dev.mcp~1a~1b"
            ]
        );
        assert!(
            f.iter()
                .all(|f| f.code == Code::ReservedMetaPrefix && f.severity == Severity::Warn)
        );
    }
}
