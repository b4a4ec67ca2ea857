//! `mcp-bastion check ui-resources`: the UI-resource rules of [`super::ui_resources`] on
//! one JSON input, and the build-time helper that records content hashes.
//!
//! Input: `{"manifest": <source manifest, mcp-bastion-contract/1>, "policy"?: <UiPolicy>,
//! "files"?: {"<content.path>": <UiFileFacts>}}`. Without `files` the content is judged by
//! its path text and declared hash form only.

use super::ui_resources::{UiFileFacts, UiPolicy, UiPolicyError, check_ui_resources};
use crate::contract::SourceManifest;
use crate::finding::Report;
use serde_json::Value;
use std::collections::BTreeMap;

/// Why a `check ui-resources` input cannot be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UiInputError {
    /// A member is missing or has the wrong shape.
    #[error("`{member}` is malformed: {detail}")]
    Malformed {
        /// Which member.
        member: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The policy is unusable.
    #[error(transparent)]
    Policy(#[from] UiPolicyError),
}

/// Runs the UI-resource checks on a `check ui-resources` input (no output value).
///
/// # Errors
/// [`UiInputError`] when `manifest`, `policy` or `files` do not have their shapes.
pub fn check_ui_input(input: &Value) -> Result<Report, UiInputError> {
    fn member<T: serde::de::DeserializeOwned>(
        input: &Value,
        name: &'static str,
    ) -> Result<Option<T>, UiInputError> {
        input
            .get(name)
            .map(|v| serde_json::from_value(v.clone()))
            .transpose()
            .map_err(|e| UiInputError::Malformed {
                member: name,
                detail: e.to_string(),
            })
    }
    let manifest: SourceManifest =
        member(input, "manifest")?.ok_or_else(|| UiInputError::Malformed {
            member: "manifest",
            detail: "missing".into(),
        })?;
    let policy: UiPolicy = member(input, "policy")?.unwrap_or_default();
    policy.validate()?;
    let files: Option<BTreeMap<String, UiFileFacts>> = member(input, "files")?;
    let findings = check_ui_resources(&manifest, &policy, files.as_ref());
    Ok(Report::from_findings(findings, false, None))
}

/// Records each UI resource's content `sha256` and `size` from `files` (what
/// `contract build` does after [`check_ui_resources`] found nothing to refuse). Resources
/// whose file is missing or was not read whole are left as they are.
pub fn fill_ui_content(source: &mut SourceManifest, files: &BTreeMap<String, UiFileFacts>) {
    for ui in &mut source.ui_resources {
        if let Some(facts) = files.get(&ui.content.path)
            && let Some(sha) = &facts.sha256
            && facts.regular
            && !facts.symlink
            && !facts.hard_linked
        {
            ui.content.sha256 = Some(sha.clone());
            ui.content.size = Some(facts.size);
        }
    }
}
