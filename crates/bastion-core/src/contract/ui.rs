//! MCP Apps UI resources (`ui://`) as declared in a contract (issue 7 §6). This module
//! only holds the declared shape; the publication checks (MIME, linkage, CSP origins,
//! sensitive permissions, content confinement) are issue 7 §6's own module.
//!
//! Source: MCP Apps extension (SEP-1865): a tool links its UI with
//! `_meta.ui.resourceUri` and `_meta.ui.visibility`, the `ui://` resource declares
//! `_meta.ui.csp` and `_meta.ui.permissions`; the host enforces them.

use serde::{Deserialize, Serialize};

/// MIME type every UI resource must declare.
pub const UI_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Who may see a UI resource's tool (`_meta.ui.visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiVisibility {
    /// Shown to and callable by the app (the rendered UI).
    App,
    /// Shown to the model.
    Model,
}

/// Declared Content-Security-Policy domains (`_meta.ui.csp`): each a canonical `https`
/// origin (`https://host[:port]`, no path) inside the publisher's policy allowlist.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiCsp {
    /// Origins the UI may connect to (`connect-src`).
    #[serde(rename = "connectDomains", default)]
    pub connect_domains: Vec<String>,
    /// Origins the UI may load images, scripts, styles and fonts from.
    #[serde(rename = "resourceDomains", default)]
    pub resource_domains: Vec<String>,
    /// Origins the UI may frame (`frame-src`).
    #[serde(rename = "frameDomains", default)]
    pub frame_domains: Vec<String>,
}

/// The human approval a sensitive permission (`camera`, `microphone`, `geolocation`,
/// `clipboard-write`) needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionApproval {
    /// Who approved (name or key id).
    pub approved_by: String,
    /// Why, or a ticket reference.
    pub reason: String,
}

/// The HTML content file of a UI resource. `path` is relative to the UI root folder given
/// at build time (no absolute path, no `..`, no symlinks); `sha256` (64 lowercase hex)
/// and `size` (bytes) are filled by `contract build` from the file and checked against
/// it, so they are absent in a freshly written source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiContent {
    /// Relative path of the HTML file below the UI root.
    pub path: String,
    /// SHA-256 of the file's bytes, 64 lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Size of the file in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// One declared UI resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiResource {
    /// `ui://…` URI, unique among UI resources.
    pub uri: String,
    /// Must be [`UI_MIME_TYPE`].
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// Tools whose `_meta.ui.resourceUri` points at this resource (at least one).
    #[serde(default)]
    pub linked_tools: Vec<String>,
    /// `_meta.ui.visibility` of the linked tools (at least one value).
    #[serde(default)]
    pub visibility: Vec<UiVisibility>,
    /// Declared CSP domains.
    #[serde(default)]
    pub csp: UiCsp,
    /// Declared permissions (`camera`, `microphone`, `geolocation`, `clipboard-write`, …).
    #[serde(default)]
    pub permissions: Vec<String>,
    /// Approval for sensitive permissions; required when one is declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_approval: Option<PermissionApproval>,
    /// The HTML file.
    pub content: UiContent,
}
