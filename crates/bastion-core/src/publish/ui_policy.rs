//! The publisher's UI policy and the rules that depend on it: CSP domains as canonical
//! `https` origins inside an allowlist, sensitive permissions only with an approval
//! (issue 7 §6; seed AID-H-034.004-G006). Used by [`super::ui_resources`].

use super::high;
use crate::contract::{UiCsp, UiResource};
use crate::finding::{Code, Finding};
use serde::Deserialize;

/// Permissions that reach the user's devices or clipboard and need a human approval.
pub const SENSITIVE_PERMISSIONS: &[&str] =
    &["camera", "microphone", "geolocation", "clipboard-write"];

/// Default for [`UiPolicy::max_ui_bytes`]: 1 MiB.
pub const DEFAULT_MAX_UI_BYTES: u64 = 1024 * 1024;

/// The publisher's UI policy. JSON: `{"allowed_csp_origins": ["https://cdn.example.com"],
/// "allowed_sensitive_permissions": ["clipboard-write"], "max_ui_bytes": 1048576}`.
///
/// # Defaults
/// No CSP origin and no sensitive permission allowed; `max_ui_bytes` =
/// [`DEFAULT_MAX_UI_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiPolicy {
    /// Canonical `https` origins a UI may name in its CSP domains.
    #[serde(default)]
    pub allowed_csp_origins: Vec<String>,
    /// Sensitive permissions a UI may request (each still needs `permission_approval`).
    #[serde(default)]
    pub allowed_sensitive_permissions: Vec<String>,
    /// Largest content file, bytes.
    #[serde(default = "default_max")]
    pub max_ui_bytes: u64,
}

fn default_max() -> u64 {
    DEFAULT_MAX_UI_BYTES
}

impl Default for UiPolicy {
    fn default() -> Self {
        Self {
            allowed_csp_origins: Vec::new(),
            allowed_sensitive_permissions: Vec::new(),
            max_ui_bytes: DEFAULT_MAX_UI_BYTES,
        }
    }
}

/// A policy that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UiPolicyError {
    /// An allowlisted origin is not a canonical `https` origin.
    #[error("UI policy origin `{origin}` is not usable: {why}; write it as `https://host[:port]`")]
    BadOrigin {
        /// The entry.
        origin: String,
        /// What is wrong.
        why: String,
    },
}

impl UiPolicy {
    /// Checks that every allowlisted origin is canonical.
    ///
    /// # Errors
    /// [`UiPolicyError::BadOrigin`] for the first entry that is not.
    pub fn validate(&self) -> Result<(), UiPolicyError> {
        for origin in &self.allowed_csp_origins {
            canonical_origin(origin).map_err(|why| UiPolicyError::BadOrigin {
                origin: origin.clone(),
                why,
            })?;
        }
        Ok(())
    }
}

/// `Ok(())` when `text` is a canonical `https` origin: it parses as a URL (WHATWG, `url`
/// crate) with scheme `https`, no user information, no wildcard in the host, and equals
/// its own origin serialization (lowercase host, no default port, no path, query or
/// fragment, no trailing slash).
///
/// # Errors
/// A sentence saying what is wrong.
pub fn canonical_origin(text: &str) -> Result<(), String> {
    let url = url::Url::parse(text).map_err(|e| format!("not a URL ({e})"))?;
    if url.scheme() != "https" {
        return Err(format!("scheme `{}` is not https", url.scheme()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("it carries user information".into());
    }
    if url.host_str().is_some_and(|h| h.contains('*')) {
        return Err("wildcard hosts are not allowed".into());
    }
    let origin = url.origin().ascii_serialization();
    if origin != text {
        return Err(format!("not in canonical origin form (`{origin}`)"));
    }
    Ok(())
}

pub(crate) fn check_csp(csp: &UiCsp, policy: &UiPolicy, at: &str, findings: &mut Vec<Finding>) {
    let lists = [
        ("connectDomains", &csp.connect_domains),
        ("resourceDomains", &csp.resource_domains),
        ("frameDomains", &csp.frame_domains),
    ];
    for (member, list) in lists {
        for (n, origin) in list.iter().enumerate() {
            let path = format!("{at}/{member}/{n}");
            let message = match canonical_origin(origin) {
                Err(why) => format!(
                    "CSP {member} entry `{}` is refused: {why}",
                    origin.escape_debug()
                ),
                Ok(()) if !policy.allowed_csp_origins.contains(origin) => {
                    format!(
                        "CSP {member} origin `{origin}` is not in the UI policy's allowed_csp_origins"
                    )
                }
                Ok(()) => continue,
            };
            findings.push(high(Code::UiCspOriginNotAllowed, &path, message));
        }
    }
}

pub(crate) fn check_permissions(
    ui: &UiResource,
    policy: &UiPolicy,
    at: &str,
    findings: &mut Vec<Finding>,
) {
    let approved = ui
        .permission_approval
        .as_ref()
        .is_some_and(|a| !a.approved_by.trim().is_empty() && !a.reason.trim().is_empty());
    for (n, perm) in ui.permissions.iter().enumerate() {
        if !SENSITIVE_PERMISSIONS.contains(&perm.as_str()) {
            continue;
        }
        let why = if !policy.allowed_sensitive_permissions.contains(perm) {
            "is not in the UI policy's allowed_sensitive_permissions"
        } else if !approved {
            "has no permission_approval (approved_by and reason)"
        } else {
            continue;
        };
        findings.push(high(
            Code::UiSensitivePermissionUnapproved,
            &format!("{at}/permissions/{n}"),
            format!("sensitive permission `{perm}` of `{}` {why}", ui.uri),
        ));
    }
}
