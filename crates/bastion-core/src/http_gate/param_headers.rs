//! `x-mcp-header` declarations in a tool's `inputSchema` (MCP 2026-07-28 Streamable HTTP,
//! SEP-2243 "HTTP Header Standardization", as clarified: a parameter so marked is mirrored
//! by the client into an `Mcp-Param-{name}` request header). The value MUST be a
//! non-empty HTTP field-name token (`1*tchar`, RFC 9110 §5.1, so no controls, CR or LF),
//! case-insensitively unique within the schema, and MUST only mark parameters of type
//! `string`, `integer` or `boolean` (not `number`), at any nesting depth. Clients MUST
//! exclude a tool whose declarations break these rules from `tools/list`: a gateway in
//! front of an HTTP server withholds it.

use crate::finding::{Code, Finding, Severity};
use serde_json::Value;

/// Deepest property nesting walked (deeper declarations are reported as too deep).
const MAX_DEPTH: usize = 64;

/// Findings (`mcp_header_invalid`, high) for every `x-mcp-header` declaration in
/// `input_schema` that breaks the rules above; empty when all are valid or there are
/// none. `path` is the JSON Pointer of the schema in its message.
pub fn param_header_findings(input_schema: &Value, path: &str) -> Vec<Finding> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    walk(input_schema, path, 0, &mut seen, &mut out);
    out
}

/// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one subschema (or, for `items`, possibly a list).
const SCHEMA_ONE: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a list of subschemas.
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Every subschema of `schema` (wherever JSON Schema allows one: `properties`,
/// `patternProperties`, `$defs`, `items`, `anyOf`, ...), each checked for a declaration:
/// a server cannot hide one where a client that resolves the schema would still find it.
fn walk(schema: &Value, path: &str, depth: usize, seen: &mut Vec<String>, out: &mut Vec<Finding>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    let mut subs: Vec<(String, String, &Value)> = Vec::new();
    for &key in SCHEMA_MAPS {
        if let Some(map) = obj.get(key).and_then(Value::as_object) {
            let base = crate::finding::pointer_push(path, key);
            for (name, sub) in map {
                subs.push((name.clone(), crate::finding::pointer_push(&base, name), sub));
            }
        }
    }
    for &key in SCHEMA_ONE {
        match obj.get(key) {
            Some(sub @ Value::Object(_)) => {
                subs.push((key.to_owned(), crate::finding::pointer_push(path, key), sub));
            }
            Some(Value::Array(list)) => {
                let base = crate::finding::pointer_push(path, key);
                for (i, sub) in list.iter().enumerate() {
                    let at = crate::finding::pointer_push(&base, &i.to_string());
                    subs.push((format!("{key}[{i}]"), at, sub));
                }
            }
            _ => {}
        }
    }
    for &key in SCHEMA_LISTS {
        if let Some(list) = obj.get(key).and_then(Value::as_array) {
            let base = crate::finding::pointer_push(path, key);
            for (i, sub) in list.iter().enumerate() {
                let at = crate::finding::pointer_push(&base, &i.to_string());
                subs.push((format!("{key}[{i}]"), at, sub));
            }
        }
    }
    for (name, here, sub) in subs {
        check_declaration(sub, &name, &here, seen, out);
        if depth + 1 >= MAX_DEPTH {
            out.push(Finding::new(
                Code::McpHeaderInvalid,
                Severity::High,
                &here,
                format!("subschemas nested deeper than {MAX_DEPTH} levels: x-mcp-header declarations cannot be checked"),
            ));
            continue;
        }
        walk(sub, &here, depth + 1, seen, out);
    }
}

/// The rules for the `x-mcp-header` declaration of the parameter `prop`, if it has one.
fn check_declaration(
    prop: &Value,
    name: &str,
    here: &str,
    seen: &mut Vec<String>,
    out: &mut Vec<Finding>,
) {
    let Some(decl) = prop.get("x-mcp-header") else {
        return;
    };
    let shown = crate::unicode::escape_for_display(name).into_owned();
    let mut bad = |why: String| {
        out.push(Finding::new(
            Code::McpHeaderInvalid,
            Severity::High,
            crate::finding::pointer_push(here, "x-mcp-header"),
            format!("parameter `{shown}`: {why}; a client must not list this tool (MCP 2026-07-28, x-mcp-header)"),
        ));
    };
    match decl.as_str() {
        None => bad("the x-mcp-header value is not a string".into()),
        Some("") => bad("the x-mcp-header value is empty".into()),
        Some(v) if !v.bytes().all(is_tchar) => bad(format!(
            "the x-mcp-header value `{}` is not an HTTP header-name token",
            crate::unicode::escape_for_display(v)
        )),
        Some(v) => {
            let folded = v.to_ascii_lowercase();
            if seen.contains(&folded) {
                bad(format!(
                    "the x-mcp-header value `{v}` is declared twice (names compare case-insensitively)"
                ));
            } else {
                seen.push(folded);
            }
        }
    }
    match prop.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => {}
        Some(t) => bad(format!(
            "x-mcp-header marks a parameter of type `{}`; only string, integer and boolean are allowed",
            crate::unicode::escape_for_display(t)
        )),
        None => {
            bad("x-mcp-header marks a parameter without a single primitive type".into());
        }
    }
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(schema: &Value) -> usize {
        param_header_findings(schema, "/inputSchema").len()
    }

    #[test]
    fn valid_declarations_pass() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
            "nested": {"type": "object", "properties": {
                "tenant": {"type": "string", "x-mcp-header": "Tenant_ID"}}},
            "plain": {"type": "number"}}});
        assert_eq!(
            codes(&schema),
            0,
            "{:?}",
            param_header_findings(&schema, "")
        );
        assert_eq!(codes(&json!({"type": "object"})), 0);
    }

    #[test]
    fn each_broken_rule_is_reported() {
        for (why, prop) in [
            (
                "number type",
                json!({"type": "number", "x-mcp-header": "Price"}),
            ),
            (
                "array type",
                json!({"type": "array", "x-mcp-header": "Ids"}),
            ),
            ("no type", json!({"x-mcp-header": "Any"})),
            (
                "type list",
                json!({"type": ["string", "null"], "x-mcp-header": "Maybe"}),
            ),
            ("empty", json!({"type": "string", "x-mcp-header": ""})),
            (
                "space",
                json!({"type": "string", "x-mcp-header": "Two Words"}),
            ),
            ("colon", json!({"type": "string", "x-mcp-header": "A:B"})),
            (
                "crlf",
                json!({"type": "string", "x-mcp-header": "A\r\nX-Injected: 1"}),
            ),
            (
                "non-ascii",
                json!({"type": "string", "x-mcp-header": "Régión"}),
            ),
            (
                "not a string",
                json!({"type": "string", "x-mcp-header": true}),
            ),
        ] {
            let schema = json!({"type": "object", "properties": {"p": prop}});
            assert!(codes(&schema) >= 1, "{why}");
        }
        // Case-insensitive duplicates, also across nesting levels.
        let dup = json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "o": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "REGION"}}}}});
        assert_eq!(codes(&dup), 1);
    }

    #[test]
    fn declarations_anywhere_in_the_schema_are_checked() {
        let bad = json!({"type": "number", "x-mcp-header": "Bad"});
        for (why, schema) in [
            (
                "items",
                json!({"type": "object", "properties": {"l": {"type": "array", "items": bad}}}),
            ),
            (
                "anyOf",
                json!({"anyOf": [{"type": "object", "properties": {"p": bad}}]}),
            ),
            (
                "$defs",
                json!({"$defs": {"x": bad}, "properties": {"p": {"$ref": "#/$defs/x"}}}),
            ),
            ("additionalProperties", json!({"additionalProperties": bad})),
            (
                "patternProperties",
                json!({"patternProperties": {"^a": bad}}),
            ),
            (
                "prefixItems",
                json!({"properties": {"t": {"prefixItems": [bad]}}}),
            ),
        ] {
            assert_eq!(codes(&schema), 1, "{why}");
        }
    }
}
