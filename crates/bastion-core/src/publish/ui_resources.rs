//! Publication checks of MCP Apps UI resources (`ui://`) declared in a contract source
//! manifest (issue 7 §6; seed AID-H-034.004-G006; MCP Apps extension SEP-1865: a tool
//! links its UI with `_meta.ui.resourceUri` and `_meta.ui.visibility`, the resource
//! declares `_meta.ui.csp` and `_meta.ui.permissions`, the host enforces them).
//!
//! | rule | code | severity |
//! |---|---|---|
//! | URI not `ui://…`, duplicate, MIME not `text/html;profile=mcp-app`, not published under `resources` (or published with another MIME) | `ui_resource_invalid` | high |
//! | no linked tool, a linked tool that does not exist or whose `_meta.ui.resourceUri` does not point back, a tool pointing at an undeclared `ui://` resource, published `_meta.ui` (csp, permissions, visibility) that differs from the declaration | `ui_link_mismatch` | high |
//! | visibility empty, or a published value other than `app`/`model` | `ui_visibility_invalid` | high |
//! | CSP domain not a canonical `https` origin (WHATWG URL origin serialization), wildcard, or outside [`UiPolicy::allowed_csp_origins`] | `ui_csp_origin_not_allowed` | high |
//! | sensitive permission (`camera`, `microphone`, `geolocation`, `clipboard-write`) without `permission_approval` or not in [`UiPolicy::allowed_sensitive_permissions`] | `ui_sensitive_permission_unapproved` | high |
//! | content path absolute, with `..`, a backslash or controls ([`content_path_problem`]); on the facts the I/O layer passes in ([`UiFileFacts`]): missing, a symlink, not a regular file, larger than [`UiPolicy::max_ui_bytes`], or bytes different from the declared `sha256`/`size` | `ui_content_refused` | high |
//!
//! Pure: the caller (the CLI's `contract build`, `check ui-resources`) reads the files and
//! passes what it found; this module only decides.

use super::high;
use crate::contract::{SourceManifest, UI_MIME_TYPE, UiCsp, UiResource, UiVisibility};
use crate::finding::{Code, Finding, pointer_push};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

pub use super::ui_content::{UiFileFacts, content_path_problem};
pub use super::ui_policy::{
    DEFAULT_MAX_UI_BYTES, SENSITIVE_PERMISSIONS, UiPolicy, UiPolicyError, canonical_origin,
};
use super::ui_policy::{check_csp, check_permissions};

/// Checks every declared UI resource of `source` against `policy`. `files` maps each
/// `content.path` to what the I/O layer found there; `None` judges only the path text and
/// the declared hash form (no files were read).
pub fn check_ui_resources(
    source: &SourceManifest,
    policy: &UiPolicy,
    files: Option<&BTreeMap<String, UiFileFacts>>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, ui) in source.ui_resources.iter().enumerate() {
        let at = format!("/ui_resources/{i}");
        if !ui.uri.starts_with("ui://") || ui.uri.len() <= "ui://".len() {
            findings.push(high(
                Code::UiResourceInvalid,
                &pointer_push(&at, "uri"),
                format!(
                    "UI resource URI `{}` is not a `ui://` URI",
                    ui.uri.escape_debug()
                ),
            ));
        } else if !seen.insert(ui.uri.as_str()) {
            findings.push(high(
                Code::UiResourceInvalid,
                &pointer_push(&at, "uri"),
                format!("UI resource `{}` is declared twice", ui.uri),
            ));
        }
        if ui.mime_type != UI_MIME_TYPE {
            findings.push(high(
                Code::UiResourceInvalid,
                &pointer_push(&at, "mimeType"),
                format!(
                    "UI resource MIME type is `{}`; it must be `{UI_MIME_TYPE}`",
                    ui.mime_type.escape_debug()
                ),
            ));
        }
        check_published_resource(source, ui, &at, &mut findings);
        check_links(source, ui, &at, &mut findings);
        check_csp(&ui.csp, policy, &pointer_push(&at, "csp"), &mut findings);
        check_permissions(ui, policy, &at, &mut findings);
        super::ui_content::check_content(
            ui,
            policy,
            files,
            &pointer_push(&at, "content"),
            &mut findings,
        );
    }
    // A tool pointing at a ui:// resource nobody declared.
    for (j, tool) in source.tools.iter().enumerate() {
        if let Some(uri) = tool_ui(tool.meta.as_ref())
            .and_then(|u| u.get("resourceUri"))
            .and_then(Value::as_str)
            && !source.ui_resources.iter().any(|ui| ui.uri == uri)
        {
            findings.push(high(
                Code::UiLinkMismatch,
                &format!("/tools/{j}/_meta/ui/resourceUri"),
                format!(
                    "tool `{}` links UI resource `{}`, which is not declared in ui_resources",
                    tool.name,
                    uri.escape_debug()
                ),
            ));
        }
    }
    findings
}

fn tool_ui(meta: Option<&serde_json::Map<String, Value>>) -> Option<&Value> {
    meta.and_then(|m| m.get("ui"))
}

/// The `ui://` resource as published under `resources`: same MIME, same CSP and
/// permissions as declared.
fn check_published_resource(
    source: &SourceManifest,
    ui: &UiResource,
    at: &str,
    findings: &mut Vec<Finding>,
) {
    let Some((k, res)) = source
        .resources
        .iter()
        .enumerate()
        .find(|(_, r)| r.uri == ui.uri)
    else {
        findings.push(high(
            Code::UiResourceInvalid,
            &pointer_push(at, "uri"),
            format!("UI resource `{}` is not published under resources; list it there as the server serves it", ui.uri),
        ));
        return;
    };
    let res_at = format!("/resources/{k}");
    if res.mime_type.as_deref() != Some(UI_MIME_TYPE) {
        findings.push(high(
            Code::UiResourceInvalid,
            &pointer_push(&res_at, "mimeType"),
            format!(
                "resource `{}` is published without MIME type `{UI_MIME_TYPE}`",
                ui.uri
            ),
        ));
    }
    let published = tool_ui(res.meta.as_ref());
    let csp: Option<UiCsp> = match published.and_then(|u| u.get("csp")) {
        None => Some(UiCsp::default()),
        Some(v) => serde_json::from_value(v.clone()).ok(),
    };
    if csp.as_ref().map(csp_sets) != Some(csp_sets(&ui.csp)) {
        findings.push(high(
            Code::UiLinkMismatch,
            &format!("{res_at}/_meta/ui/csp"),
            format!(
                "resource `{}` publishes a CSP that differs from the declared one",
                ui.uri
            ),
        ));
    }
    let perms = published.and_then(|u| u.get("permissions")).map_or_else(
        || Some(BTreeSet::new()),
        |v| match v {
            Value::Array(a) => a.iter().map(|p| p.as_str().map(str::to_owned)).collect(),
            Value::Object(o) => Some(o.keys().cloned().collect()),
            _ => None,
        },
    );
    if perms != Some(ui.permissions.iter().cloned().collect()) {
        findings.push(high(
            Code::UiLinkMismatch,
            &format!("{res_at}/_meta/ui/permissions"),
            format!(
                "resource `{}` publishes permissions that differ from the declared ones",
                ui.uri
            ),
        ));
    }
}

fn csp_sets(csp: &UiCsp) -> [BTreeSet<&str>; 3] {
    fn set(v: &[String]) -> BTreeSet<&str> {
        v.iter().map(String::as_str).collect()
    }
    [
        set(&csp.connect_domains),
        set(&csp.resource_domains),
        set(&csp.frame_domains),
    ]
}

/// Linked tools exist and point back; their published visibility is the declared one.
fn check_links(source: &SourceManifest, ui: &UiResource, at: &str, findings: &mut Vec<Finding>) {
    if ui.linked_tools.is_empty() {
        findings.push(high(
            Code::UiLinkMismatch,
            &pointer_push(at, "linked_tools"),
            format!("UI resource `{}` names no linked tool", ui.uri),
        ));
    }
    if ui.visibility.is_empty() {
        findings.push(high(
            Code::UiVisibilityInvalid,
            &pointer_push(at, "visibility"),
            format!(
                "UI resource `{}` declares no visibility; give `app`, `model` or both",
                ui.uri
            ),
        ));
    }
    let declared: BTreeSet<UiVisibility> = ui.visibility.iter().copied().collect();
    for (n, name) in ui.linked_tools.iter().enumerate() {
        let link_at = format!("{at}/linked_tools/{n}");
        let Some((j, tool)) = source
            .tools
            .iter()
            .enumerate()
            .find(|(_, t)| &t.name == name)
        else {
            findings.push(high(
                Code::UiLinkMismatch,
                &link_at,
                format!(
                    "linked tool `{}` is not in the contract",
                    name.escape_debug()
                ),
            ));
            continue;
        };
        let tui = tool_ui(tool.meta.as_ref());
        if tui
            .and_then(|u| u.get("resourceUri"))
            .and_then(Value::as_str)
            != Some(ui.uri.as_str())
        {
            findings.push(high(
                Code::UiLinkMismatch,
                &format!("/tools/{j}/_meta/ui/resourceUri"),
                format!("tool `{name}` is linked to `{}` but its _meta.ui.resourceUri does not point back to it", ui.uri),
            ));
        }
        // MCP Apps default visibility when a tool publishes none: model and app.
        let published = match tui.and_then(|u| u.get("visibility")) {
            None => Some(BTreeSet::from([UiVisibility::Model, UiVisibility::App])),
            Some(v) => serde_json::from_value::<Vec<UiVisibility>>(v.clone())
                .ok()
                .map(|v| v.into_iter().collect()),
        };
        match published {
            None => findings.push(high(
                Code::UiVisibilityInvalid,
                &format!("/tools/{j}/_meta/ui/visibility"),
                format!("tool `{name}` publishes a visibility other than a list of `app` and `model`"),
            )),
            Some(p) if p != declared && !declared.is_empty() => findings.push(high(
                Code::UiLinkMismatch,
                &format!("/tools/{j}/_meta/ui/visibility"),
                format!("tool `{name}` publishes a visibility that differs from the one declared for `{}`", ui.uri),
            )),
            Some(_) => {}
        }
    }
    // A tool pointing at this resource without being listed as linked.
    for (j, tool) in source.tools.iter().enumerate() {
        let points = tool_ui(tool.meta.as_ref())
            .and_then(|u| u.get("resourceUri"))
            .and_then(Value::as_str)
            == Some(ui.uri.as_str());
        if points && !ui.linked_tools.contains(&tool.name) {
            findings.push(high(
                Code::UiLinkMismatch,
                &format!("/tools/{j}/_meta/ui/resourceUri"),
                format!(
                    "tool `{}` points at `{}` but is not among its linked_tools",
                    tool.name, ui.uri
                ),
            ));
        }
    }
}
