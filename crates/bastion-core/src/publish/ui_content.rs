//! The content file of a UI resource: confinement of its path to the UI root and the
//! facts the I/O layer found there (issue 7 §6: "hashed, size-limited, and confined to a
//! root folder (no absolute paths, no `..`, no symlinks)").
//!
//! The split: [`content_path_problem`] judges the path text (pure); the caller resolves
//! it below the root without following symlinks (`O_NOFOLLOW` on every component, as the
//! CLI's `contract build` does) and passes [`UiFileFacts`]; `check_content` decides.

use super::ui_policy::UiPolicy;
use crate::contract::UiResource;
use crate::finding::{Code, Finding, Severity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the I/O layer found at a content path below the UI root. JSON (for
/// `check ui-resources`): `{"symlink": false, "regular": true, "size": 2048, "sha256":
/// "<64 hex>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiFileFacts {
    /// The path or one of its folders is a symbolic link (not followed).
    #[serde(default)]
    pub symlink: bool,
    /// The final component is a regular file.
    #[serde(default = "yes")]
    pub regular: bool,
    /// The file has other hard links (a link count above 1): the same bytes are
    /// reachable under another name, possibly outside the UI root.
    #[serde(default)]
    pub hard_linked: bool,
    /// Size in bytes (as read, up to one byte past the limit).
    pub size: u64,
    /// SHA-256 of the bytes, 64 lowercase hex; `None` when the file was not read whole
    /// (over the limit, not regular, a symlink).
    #[serde(default)]
    pub sha256: Option<String>,
}

fn yes() -> bool {
    true
}

/// Why `path` cannot name a file inside the UI root, or `None`: empty, absolute (`/…`,
/// `\…`, a drive letter `C:`), a `..` component, a backslash (a separator on Windows),
/// or a control character.
pub fn content_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Some("is absolute");
    }
    let bytes = path.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("starts with a drive letter");
    }
    if path.contains('\\') {
        return Some("contains a backslash");
    }
    if path.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    if path.split('/').any(|c| c == "..") {
        return Some("contains a `..` component");
    }
    None
}

/// 64 lowercase hex digits (a SHA-256 as `server.json` and contracts write it).
pub(crate) fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Judges the content of `ui` at `at` (`/ui_resources/N/content`).
pub(crate) fn check_content(
    ui: &UiResource,
    policy: &UiPolicy,
    files: Option<&BTreeMap<String, UiFileFacts>>,
    at: &str,
    findings: &mut Vec<Finding>,
) {
    let mut refuse = |sub: &str, why: String| {
        findings.push(Finding::new(
            Code::UiContentRefused,
            Severity::High,
            format!("{at}{sub}"),
            format!("content of `{}` {why}", ui.uri),
        ));
    };
    let path = &ui.content.path;
    if let Some(why) = content_path_problem(path) {
        refuse(
            "/path",
            format!(
                "is refused: path `{}` {why}; give a path relative to the UI root",
                path.escape_debug()
            ),
        );
        return;
    }
    if let Some(declared) = &ui.content.sha256
        && !is_sha256(declared)
    {
        refuse(
            "/sha256",
            "has a sha256 that is not 64 lowercase hex digits".into(),
        );
    }
    let Some(files) = files else { return };
    let Some(facts) = files.get(path) else {
        refuse(
            "/path",
            format!("is missing: no file `{path}` below the UI root"),
        );
        return;
    };
    if facts.symlink {
        refuse(
            "/path",
            format!("is refused: `{path}` is or passes through a symbolic link"),
        );
        return;
    }
    if !facts.regular {
        refuse(
            "/path",
            format!("is refused: `{path}` is not a regular file"),
        );
        return;
    }
    if facts.hard_linked {
        refuse(
            "/path",
            format!(
                "is refused: `{path}` has other hard links, so a file outside the UI root may share its bytes; copy it into the root instead"
            ),
        );
        return;
    }
    if facts.size > policy.max_ui_bytes {
        refuse(
            "/path",
            format!(
                "is {} bytes, over the UI policy's max_ui_bytes of {}",
                facts.size, policy.max_ui_bytes
            ),
        );
        return;
    }
    if let (Some(declared), Some(actual)) = (&ui.content.sha256, &facts.sha256)
        && declared != actual
    {
        refuse(
            "/sha256",
            "changed: the file's SHA-256 differs from the reviewed one".into(),
        );
    }
    if let Some(size) = ui.content.size
        && size != facts.size
    {
        refuse(
            "/size",
            format!(
                "changed: the file has {} bytes, the reviewed size is {size}",
                facts.size
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::content_path_problem;

    #[test]
    fn paths() {
        for ok in [
            "index.html",
            "delete-confirm/index.html",
            "a/b..c/x.html",
            "./a.html",
        ] {
            assert_eq!(content_path_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "\\\\server\\share",
            "C:/ui/x.html",
            "a/../../x",
            "..",
            "a\\b.html",
            "a\u{0}b",
        ] {
            assert!(content_path_problem(bad).is_some(), "{bad:?}");
        }
    }
}
