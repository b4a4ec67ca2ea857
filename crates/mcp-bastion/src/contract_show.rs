//! Human rendering of `contract diff`.

use bastion_core::contract::ContractDiff;
use bastion_core::unicode::escape_for_display;
use std::fmt::Write as _;

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
