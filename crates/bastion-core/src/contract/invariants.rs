//! Build invariants of a source manifest (issue 7 §2), as findings with JSON Pointer
//! paths into the source:
//!
//! | rule | code |
//! |---|---|
//! | tool and prompt names match `[A-Za-z][A-Za-z0-9_.-]{0,127}` | `contract_name_invalid` |
//! | names (tools, prompts, prompt arguments) and URIs (resources, templates, UI resources) are unique per kind | `duplicate_name` |
//! | `inputSchema` root has `type: "object"` and `additionalProperties: false` | `contract_schema_open` |
//! | `readOnlyHint` is stated and equals `read_only`; for a tool that is not read-only `destructiveHint` is stated and equals `destructive`; a read-only tool is not destructive | `contract_annotation_mismatch` |
//! | `server_id` `[A-Za-z0-9][A-Za-z0-9._/-]{0,199}`, `protocol_version` `YYYY-MM-DD`, non-empty `owner`, `contract_version` ≥ 1, non-empty side effects and none on a read-only tool, cache hints only for cacheable methods and never `public` for `private` data, UI URIs under `ui://` | `contract_field_invalid` |
//! | every string of every published descriptor passes the descriptor detectors ([`crate::detect::scan_descriptor`]); governance and UI strings pass the string detectors ([`crate::detect::scan_schema_strings`]) | the detectors' codes |
//!
//! Contract rules are `high`; detector findings keep their severity. `contract build`
//! refuses a manifest whose verdict is `block` (and `flag` unless told to accept
//! warnings).

use super::cache::{CACHEABLE_METHODS, CacheHint};
use super::source::{ContractEntry, SourceManifest, ToolEntry};
use crate::detect::{DescriptorKind, scan_descriptor, scan_schema_strings};
use crate::finding::{Code, Finding, Severity, pointer_push};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// `[A-Za-z][A-Za-z0-9_.-]{0,127}`: the contract's tool and prompt name rule.
pub fn is_contract_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && name.len() <= 128
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn is_server_id(id: &str) -> bool {
    let mut bytes = id.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && id.len() <= 200
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}

fn is_protocol_version(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

fn high(code: Code, path: impl Into<String>, message: String) -> Finding {
    Finding::new(code, Severity::High, path, message)
}

/// Every invariant finding of `source` (empty when the manifest may be built).
pub fn check_invariants(source: &SourceManifest) -> Vec<Finding> {
    let mut out = Vec::new();
    header(source, &mut out);
    let tools = &source.tools;
    unique(
        tools.iter().map(ContractEntry::key),
        "/tools",
        "tool name",
        &mut out,
    );
    for (i, tool) in tools.iter().enumerate() {
        let path = format!("/tools/{i}");
        name_rule(&tool.name, &path, "tool", &mut out);
        tool_rules(tool, &path, &mut out);
        scan(DescriptorKind::Tool, tool, &path, &mut out);
        let governance = serde_json::json!({"side_effects": tool.side_effects});
        out.extend(scan_schema_strings(&governance, &path));
    }
    let prompts = &source.prompts;
    unique(
        prompts.iter().map(ContractEntry::key),
        "/prompts",
        "prompt name",
        &mut out,
    );
    for (i, prompt) in prompts.iter().enumerate() {
        let path = format!("/prompts/{i}");
        name_rule(&prompt.name, &path, "prompt", &mut out);
        if let Some(args) = &prompt.arguments {
            let at = pointer_push(&path, "arguments");
            unique(
                args.iter().map(|a| a.name.as_str()),
                &at,
                "prompt argument",
                &mut out,
            );
        }
        scan(DescriptorKind::Prompt, prompt, &path, &mut out);
    }
    let resources = &source.resources;
    unique(
        resources.iter().map(ContractEntry::key),
        "/resources",
        "resource URI",
        &mut out,
    );
    for (i, r) in resources.iter().enumerate() {
        scan(
            DescriptorKind::Resource,
            r,
            &format!("/resources/{i}"),
            &mut out,
        );
    }
    let templates = &source.resource_templates;
    let at = "/resource_templates";
    unique(
        templates.iter().map(ContractEntry::key),
        at,
        "URI template",
        &mut out,
    );
    for (i, t) in templates.iter().enumerate() {
        scan(
            DescriptorKind::ResourceTemplate,
            t,
            &format!("{at}/{i}"),
            &mut out,
        );
        // The gateway lets a read through when its URI instantiates a contract template
        // ([`crate::uri_template`]); a template it cannot compile would cover nothing or,
        // written loosely, every URI.
        if let Err(e) = crate::uri_template::UriTemplate::new(ContractEntry::key(t)) {
            out.push(Finding::new(
                Code::ContractFieldInvalid,
                Severity::High,
                format!("{at}/{i}/uriTemplate"),
                format!("{e}; write the template with its literal scheme and prefix"),
            ));
        }
    }
    let uis = &source.ui_resources;
    unique(
        uis.iter().map(|u| u.uri.as_str()),
        "/ui_resources",
        "UI resource URI",
        &mut out,
    );
    for (i, ui) in uis.iter().enumerate() {
        let path = format!("/ui_resources/{i}");
        if !ui.uri.starts_with("ui://") {
            let msg = format!("UI resource URI {:?} does not start with ui://", ui.uri);
            out.push(high(
                Code::ContractFieldInvalid,
                pointer_push(&path, "uri"),
                msg,
            ));
        }
        out.extend(scan_schema_strings(&to_value(ui), &path));
    }
    cache_rules(source, &mut out);
    out
}

fn to_value<T: Serialize>(entry: &T) -> Value {
    serde_json::to_value(entry).unwrap_or(Value::Null)
}

fn scan<E: ContractEntry>(kind: DescriptorKind, entry: &E, path: &str, out: &mut Vec<Finding>) {
    out.extend(scan_descriptor(kind, &entry.published(), path));
}

fn header(s: &SourceManifest, out: &mut Vec<Finding>) {
    let mut bad = |field: &str, msg: String| {
        out.push(high(
            Code::ContractFieldInvalid,
            pointer_push("", field),
            msg,
        ));
    };
    if !is_server_id(&s.server_id) {
        bad(
            "server_id",
            format!(
                "server_id {:?} is not 1-200 characters of [A-Za-z0-9._/-] starting with a letter or digit",
                s.server_id
            ),
        );
    }
    if s.contract_version == 0 {
        bad(
            "contract_version",
            "contract_version must be 1 or higher".to_owned(),
        );
    }
    if !is_protocol_version(&s.protocol_version) {
        bad(
            "protocol_version",
            format!(
                "protocol_version {:?} is not an MCP protocol version (YYYY-MM-DD)",
                s.protocol_version
            ),
        );
    }
    if s.owner.trim().is_empty() {
        bad(
            "owner",
            "owner is empty; name the team or person accountable".to_owned(),
        );
    }
    out.extend(scan_schema_strings(
        &Value::String(s.owner.clone()),
        "/owner",
    ));
}

fn name_rule(name: &str, path: &str, noun: &str, out: &mut Vec<Finding>) {
    if !is_contract_name(name) {
        out.push(high(
            Code::ContractNameInvalid,
            pointer_push(path, "name"),
            format!("{noun} name {name:?} does not match [A-Za-z][A-Za-z0-9_.-]{{0,127}}"),
        ));
    }
}

fn unique<'a>(keys: impl Iterator<Item = &'a str>, path: &str, noun: &str, out: &mut Vec<Finding>) {
    let mut seen = BTreeSet::new();
    for (i, key) in keys.enumerate() {
        if !seen.insert(key) {
            out.push(high(
                Code::DuplicateName,
                pointer_push(path, &i.to_string()),
                format!("{noun} {key:?} occurs more than once"),
            ));
        }
    }
}

fn tool_rules(tool: &ToolEntry, path: &str, out: &mut Vec<Finding>) {
    let schema = &tool.input_schema;
    let at = pointer_push(path, "inputSchema");
    if schema.get("type") != Some(&Value::from("object")) {
        let msg = format!(
            "tool {:?}: inputSchema root must have \"type\": \"object\"",
            tool.name
        );
        out.push(high(Code::ContractSchemaOpen, at.clone(), msg));
    }
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        out.push(high(
            Code::ContractSchemaOpen,
            at,
            format!(
                "tool {:?}: inputSchema root must have \"additionalProperties\": false so callers cannot pass undeclared arguments",
                tool.name
            ),
        ));
    }
    // These admit names `additionalProperties` does not see.
    for open in super::widen::OPEN_MEMBER_KEYWORDS {
        if schema.get(open).is_some() {
            out.push(high(
                Code::ContractSchemaOpen,
                pointer_push(&pointer_push(path, "inputSchema"), open),
                format!(
                    "tool {:?}: inputSchema root must not use {open:?}: with it the schema may accept arguments its properties do not declare",
                    tool.name
                ),
            ));
        }
    }
    annotation_rules(tool, path, out);
    for (i, effect) in tool.side_effects.iter().enumerate() {
        if effect.trim_start().starts_with("review:") {
            out.push(high(
                Code::ContractFieldInvalid,
                format!("{path}/side_effects/{i}"),
                format!(
                    "tool {:?}: side effect {effect:?} is the placeholder `contract from-server` wrote; describe the real effect (or remove it) before building",
                    tool.name
                ),
            ));
        }
        if effect.trim().is_empty() {
            out.push(high(
                Code::ContractFieldInvalid,
                format!("{path}/side_effects/{i}"),
                format!("tool {:?}: a side effect is empty", tool.name),
            ));
        }
    }
    if tool.read_only && !tool.side_effects.is_empty() {
        out.push(high(
            Code::ContractFieldInvalid,
            pointer_push(path, "side_effects"),
            format!("tool {:?} is read_only but lists side effects", tool.name),
        ));
    }
}

fn annotation_rules(tool: &ToolEntry, path: &str, out: &mut Vec<Finding>) {
    let name = &tool.name;
    let hint = |h: &str| tool.annotations.as_ref().and_then(|a| a.get(h));
    let mut bad = |member: &str, msg: String| {
        let p = if member.is_empty() {
            path.to_owned()
        } else {
            format!("{path}/annotations/{member}")
        };
        out.push(high(Code::ContractAnnotationMismatch, p, msg));
    };
    if tool.read_only && tool.destructive {
        bad(
            "",
            format!("tool {name:?} is both read_only and destructive"),
        );
    }
    match hint("readOnlyHint") {
        Some(Value::Bool(b)) if *b == tool.read_only => {}
        Some(v) => bad(
            "readOnlyHint",
            format!(
                "tool {name:?}: annotations.readOnlyHint is {v} but read_only is {}",
                tool.read_only
            ),
        ),
        None => bad(
            "readOnlyHint",
            format!(
                "tool {name:?}: annotations.readOnlyHint must be stated ({}) to match read_only",
                tool.read_only
            ),
        ),
    }
    match hint("destructiveHint") {
        Some(Value::Bool(b)) if *b == tool.destructive => {}
        // MCP: destructiveHint is meaningful only when readOnlyHint is false.
        None if tool.read_only => {}
        Some(v) => bad(
            "destructiveHint",
            format!(
                "tool {name:?}: annotations.destructiveHint is {v} but destructive is {}",
                tool.destructive
            ),
        ),
        None => bad(
            "destructiveHint",
            format!(
                "tool {name:?}: annotations.destructiveHint must be stated ({}) for a tool that is not read-only (absent means true)",
                tool.destructive
            ),
        ),
    }
}

fn hint_rule(hint: &CacheHint, path: &str, out: &mut Vec<Finding>) {
    if hint.private && hint.cache_scope != super::cache::CacheScope::Private {
        out.push(high(
            Code::ContractFieldInvalid,
            pointer_push(path, "cacheScope"),
            "a result marked private must have cacheScope \"private\"".to_owned(),
        ));
    }
}

fn cache_rules(source: &SourceManifest, out: &mut Vec<Finding>) {
    let Some(cache) = &source.cache else { return };
    if let Some(hint) = &cache.default {
        hint_rule(hint, "/cache/default", out);
    }
    for (method, hint) in &cache.methods {
        let path = pointer_push("/cache/methods", method);
        if !CACHEABLE_METHODS.contains(&method.as_str()) {
            out.push(high(
                Code::ContractFieldInvalid,
                path.clone(),
                format!(
                    "{method:?} results are not cacheable (only {})",
                    CACHEABLE_METHODS.join(", ")
                ),
            ));
        }
        hint_rule(hint, &path, out);
    }
    for (uri, hint) in &cache.resources {
        hint_rule(hint, &pointer_push("/cache/resources", uri), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_rule_matches_the_issue_regex() {
        for ok in ["a", "read_note", "A.b-c_9", &"x".repeat(128)] {
            assert!(is_contract_name(ok), "{ok}");
        }
        for bad in [
            "",
            "9lives",
            "_x",
            "-x",
            "a b",
            "a/b",
            "ä",
            &"x".repeat(129),
            "tool\u{200b}",
        ] {
            assert!(!is_contract_name(bad), "{bad}");
        }
    }

    #[test]
    fn header_formats() {
        assert!(is_server_id("io.example/notes") && !is_server_id("/x") && !is_server_id(""));
        assert!(is_protocol_version("2026-07-28") && !is_protocol_version("2026-7-28"));
    }
}
