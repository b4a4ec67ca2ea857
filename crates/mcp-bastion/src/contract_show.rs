//! `contract diff`: reading either manifest kind, JSON and human output.

use crate::contract_cmd::print;
use crate::contract_io::{self as io, ContractInputError};
use anyhow::Result;
use bastion_core::contract::{self as core, ContractDiff};
use bastion_core::unicode::escape_for_display;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;

/// Each item on its own line after `prefix`.
pub(crate) fn prefixed<T: std::fmt::Display>(
    items: impl IntoIterator<Item = T>,
    prefix: &str,
) -> String {
    items.into_iter().fold(String::new(), |mut out, item| {
        let _ = writeln!(out, "{prefix}{item}");
        out
    })
}

fn indent(text: &str, by: &str) -> String {
    prefixed(text.lines(), by)
}

/// `contract diff` for people: manifest-level changes, then `+` added, `-` removed and
/// `~` changed entries; `!` marks an escalation; field-level lines follow each change.
pub(crate) fn render_diff(d: &ContractDiff) -> String {
    let mut out = String::new();
    if d.is_empty() {
        return "no differences\n".to_owned();
    }
    if !d.header.is_empty() {
        out.push_str("manifest:\n");
        out.push_str(&indent(&d.header.render(), "    "));
    }
    for e in &d.added {
        let _ = writeln!(out, "+ {} {}", e.kind.as_str(), escape_for_display(&e.key));
    }
    for e in &d.added_escalations {
        let _ = writeln!(
            out,
            "    ! {}: {}",
            e.kind_name(),
            escape_for_display(&e.message)
        );
    }
    for e in &d.removed {
        let _ = writeln!(out, "- {} {}", e.kind.as_str(), escape_for_display(&e.key));
    }
    for c in &d.changed {
        let _ = writeln!(out, "~ {} {}", c.kind.as_str(), escape_for_display(&c.key));
        for e in &c.escalations {
            let _ = writeln!(
                out,
                "    ! {} at {}: {}",
                e.kind_name(),
                e.path,
                escape_for_display(&e.message)
            );
        }
        out.push_str(&indent(&c.diff.render(), "    "));
    }
    let _ = writeln!(out, "escalations: {}", d.escalations().count());
    out
}

/// A source manifest, or the source of a reviewed one.
fn any_source(path: &Path) -> Result<core::SourceManifest> {
    let bytes = io::read(path)?;
    let value = bastion_core::json::parse_value(&bytes, core::MAX_ARTIFACT_DEPTH)
        .map_err(|e| ContractInputError(format!("{}: not strict JSON: {e}", path.display())))?;
    let result = if value.get("format").and_then(Value::as_str) == Some(core::REVIEWED_FORMAT) {
        core::parse_reviewed(&bytes).map(|r| r.source)
    } else {
        core::parse_source(&bytes)
    };
    result.map_err(|e| ContractInputError(format!("{}: {e}", path.display())).into())
}

pub(crate) fn diff(old: &Path, new: &Path, json: bool) -> Result<i32> {
    let d = core::diff_manifests(&any_source(old)?, &any_source(new)?);
    let count = d.escalations().count();
    if json {
        let mut value = serde_json::to_value(&d)?;
        value["escalation_count"] = json!(count);
        print(true, &value, "")?;
    } else {
        print(false, &Value::Null, &render_diff(&d))?;
    }
    Ok(i32::from(count > 0))
}
