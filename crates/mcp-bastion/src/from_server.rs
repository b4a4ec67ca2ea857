//! `mcp-bastion contract from-server -o SOURCE -- CMD…` (issue 7 item 10): list a live
//! server the way `scan` does ([`bastion_gateway::scan`]) and write a contract source
//! manifest (`mcp-bastion-contract/1`, `docs/contract.md`) as a starting point for
//! review.
//!
//! What is copied verbatim: every published member the contract format carries (tools:
//! `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `icons`,
//! `execution`, `_meta`; prompts, resources and templates likewise). Members the format
//! does not carry are dropped and named on stderr (a live server that keeps publishing
//! them will not match the contract). What is *derived* and must be reviewed: each
//! tool's governance fields, taken from its annotations with the MCP defaults
//! (`readOnlyHint` false, `destructiveHint` true): `read_only`, `destructive`,
//! `requires_human_approval` (= not read-only), `risk_tier` (`high` unless read-only,
//! then `medium`), `side_effects` (empty for read-only tools, otherwise one line asking
//! for the description); and `ui_resources` declarations for `ui://` resources, whose
//! `content.path` names a file the publisher still has to provide (and a sensitive
//! permission still needs its `permission_approval`). Descriptor findings
//! of the scan are printed, never silently copied.

use anyhow::{Context, bail};
use bastion_core::Severity;
use bastion_core::contract::{SOURCE_FORMAT, SourceManifest, UI_MIME_TYPE};
use bastion_core::detect::DescriptorKind;
use bastion_gateway::scan::{ScanItem, ScanReport};
use clap::Subcommand;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// `contract …`: `from-server` here, the publisher commands of
/// [`crate::contract_cmd::ContractCommand`] flattened beside it.
#[derive(Debug, Subcommand)]
pub(crate) enum ContractCli {
    /// Write a source manifest from a live server's lists (a starting point to review).
    FromServer {
        /// Where to write the source manifest.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// `server_id` of the manifest (default: the server's `serverInfo.name`).
        #[arg(long)]
        server_id: Option<String>,
        /// `owner` of the manifest (the accountable team or person).
        #[arg(long)]
        owner: String,
        /// Server name for messages (default: the command's file name).
        #[arg(long)]
        name: Option<String>,
        /// The server command and its arguments, after `--`.
        #[arg(last = true, required = true, num_args = 1..)]
        command: Vec<String>,
    },
    #[command(flatten)]
    Publisher(crate::contract_cmd::ContractCommand),
}

/// Published members the contract format carries, per kind.
const TOOL_MEMBERS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "execution",
    "_meta",
];
const PROMPT_MEMBERS: &[&str] = &[
    "name",
    "title",
    "description",
    "arguments",
    "icons",
    "_meta",
];
const RESOURCE_MEMBERS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mimeType",
    "size",
    "annotations",
    "icons",
    "_meta",
];
const TEMPLATE_MEMBERS: &[&str] = &[
    "uriTemplate",
    "name",
    "title",
    "description",
    "mimeType",
    "annotations",
    "icons",
    "_meta",
];

/// Builds the source manifest for `report`. Returns it with the notes for stderr.
///
/// # Errors
/// The report has list errors (the manifest would be incomplete), or the result is not
/// a valid source manifest.
pub(crate) fn manifest_from_scan(
    report: &ScanReport,
    server_id: Option<&str>,
    owner: &str,
) -> anyhow::Result<(Value, Vec<String>)> {
    if !report.errors.is_empty() {
        bail!(
            "the server's lists could not be read completely: {}",
            report.errors.join("; ")
        );
    }
    let mut notes = Vec::new();
    let server_id = match server_id {
        Some(id) => id.to_owned(),
        None => report
            .server_info
            .as_ref()
            .and_then(|i| i.get("name"))
            .and_then(Value::as_str)
            .map(sanitize_id)
            .filter(|id| !id.is_empty())
            .context("the server reports no serverInfo.name; give --server-id")?,
    };
    let mut lists: [Vec<Value>; 4] = Default::default();
    for item in &report.items {
        if item.findings.iter().any(|f| f.severity >= Severity::Warn) {
            notes.push(format!(
                "{} `{}` has findings ({}); review them before signing",
                kind_name(item.kind),
                item.key,
                item.findings
                    .iter()
                    .map(|f| f.code.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let (slot, members) = match item.kind {
            DescriptorKind::Tool => (0, TOOL_MEMBERS),
            DescriptorKind::Prompt => (1, PROMPT_MEMBERS),
            DescriptorKind::Resource => (2, RESOURCE_MEMBERS),
            DescriptorKind::ResourceTemplate => (3, TEMPLATE_MEMBERS),
            DescriptorKind::ServerInstructions => continue,
        };
        let mut entry = published_members(item, members, &mut notes);
        if slot == 0 {
            add_governance(&mut entry);
        }
        lists[slot].push(Value::Object(entry));
    }
    let [tools, prompts, resources, resource_templates] = lists;
    let ui_resources = ui_declarations(&tools, &resources);
    if !ui_resources.is_empty() {
        notes.push("ui_resources: put each UI's HTML at its content.path below the UI root".into());
    }
    let manifest = json!({
        "format": SOURCE_FORMAT,
        "server_id": server_id,
        "contract_version": 1,
        "protocol_version": report.protocol_version.clone().unwrap_or_else(|| "2025-11-25".into()),
        "owner": owner,
        "tools": tools,
        "prompts": prompts,
        "resources": resources,
        "resource_templates": resource_templates,
        "ui_resources": ui_resources,
    });
    serde_json::from_value::<SourceManifest>(manifest.clone())
        .context("the listed descriptors do not fit the source manifest format")?;
    Ok((manifest, notes))
}

fn kind_name(kind: DescriptorKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// `[A-Za-z0-9._/-]` of `name`, other characters as `-`, trimmed of leading
/// non-alphanumerics.
fn sanitize_id(name: &str) -> String {
    let mapped: String = name
        .chars()
        .take(200)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    mapped
        .trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
        .to_owned()
}

fn published_members(
    item: &ScanItem,
    members: &[&str],
    notes: &mut Vec<String>,
) -> Map<String, Value> {
    let mut entry = Map::new();
    if let Some(obj) = item.descriptor.as_object() {
        for (k, v) in obj {
            if members.contains(&k.as_str()) {
                entry.insert(k.clone(), v.clone());
            } else {
                notes.push(format!(
                    "{} `{}`: member `{k}` is not part of the contract format and was dropped",
                    kind_name(item.kind),
                    item.key
                ));
            }
        }
    }
    entry
}

/// Governance fields from the tool's annotations, MCP defaults where absent.
fn add_governance(tool: &mut Map<String, Value>) {
    let hint = |name: &str| {
        tool.get("annotations")
            .and_then(|a| a.get(name))
            .and_then(Value::as_bool)
    };
    let read_only = hint("readOnlyHint").unwrap_or(false);
    let destructive = !read_only && hint("destructiveHint").unwrap_or(true);
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let side_effects: Vec<String> = if read_only {
        Vec::new()
    } else {
        vec![format!(
            "review: describe what `{name}` changes outside the model's context"
        )]
    };
    tool.insert(
        "risk_tier".into(),
        json!(if read_only { "medium" } else { "high" }),
    );
    tool.insert("side_effects".into(), json!(side_effects));
    tool.insert("read_only".into(), json!(read_only));
    tool.insert("destructive".into(), json!(destructive));
    tool.insert("requires_human_approval".into(), json!(!read_only));
}

/// One declaration per `ui://` resource with the MCP App MIME type: linked tools and
/// visibility from the tools' `_meta.ui`, CSP and permissions from the resource's.
fn ui_declarations(tools: &[Value], resources: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for res in resources {
        let Some(uri) = res.get("uri").and_then(Value::as_str) else {
            continue;
        };
        if !uri.starts_with("ui://")
            || res.get("mimeType").and_then(Value::as_str) != Some(UI_MIME_TYPE)
        {
            continue;
        }
        let linked: Vec<&Value> = tools
            .iter()
            .filter(|t| t.pointer("/_meta/ui/resourceUri").and_then(Value::as_str) == Some(uri))
            .collect();
        let visibility = linked
            .first()
            .and_then(|t| t.pointer("/_meta/ui/visibility"))
            .cloned()
            .unwrap_or_else(|| json!(["model", "app"]));
        let ui = res.pointer("/_meta/ui");
        let decl = json!({
            "uri": uri,
            "mimeType": UI_MIME_TYPE,
            "linked_tools": linked.iter().filter_map(|t| t.get("name")).collect::<Vec<_>>(),
            "visibility": visibility,
            "csp": ui.and_then(|u| u.get("csp")).cloned().unwrap_or_else(|| json!({})),
            "permissions": ui.and_then(|u| u.get("permissions")).filter(|p| p.is_array()).cloned().unwrap_or_else(|| json!([])),
            "content": {"path": format!("{}.html", sanitize_id(uri.trim_start_matches("ui://")))},
        });
        out.push(decl);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn governance_follows_annotations_with_mcp_defaults() {
        let mut bare = json!({"name": "send", "inputSchema": {"type": "object"}})
            .as_object()
            .cloned()
            .unwrap();
        add_governance(&mut bare);
        assert_eq!(bare["read_only"], false);
        assert_eq!(bare["destructive"], true);
        assert_eq!(bare["requires_human_approval"], true);
        assert_eq!(bare["risk_tier"], "high");
        let mut reader =
            json!({"name": "get", "annotations": {"readOnlyHint": true, "destructiveHint": true}})
                .as_object()
                .cloned()
                .unwrap();
        add_governance(&mut reader);
        assert_eq!(reader["read_only"], true);
        assert_eq!(reader["destructive"], false);
        assert_eq!(reader["side_effects"], json!([]));
    }

    #[test]
    fn ui_resources_are_declared_from_their_links() {
        let tools = vec![
            json!({"name": "pick", "_meta": {"ui": {"resourceUri": "ui://app/pick", "visibility": ["app"]}}}),
        ];
        let resources = vec![
            json!({"uri": "ui://app/pick", "name": "Picker", "mimeType": UI_MIME_TYPE,
                   "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": ["camera"]}}}),
            json!({"uri": "ui://app/plain", "name": "Plain", "mimeType": "text/html"}),
        ];
        let decl = ui_declarations(&tools, &resources);
        assert_eq!(decl.len(), 1);
        assert_eq!(decl[0]["linked_tools"], json!(["pick"]));
        assert_eq!(decl[0]["visibility"], json!(["app"]));
        assert_eq!(
            decl[0]["csp"]["connectDomains"][0],
            "https://api.example.com"
        );
        assert_eq!(decl[0]["content"]["path"], "app/pick.html");
    }

    #[test]
    fn ids_are_sanitized() {
        assert_eq!(sanitize_id("My Server!"), "My-Server-");
        assert_eq!(sanitize_id("--io.example/x"), "io.example/x");
    }
}
