//! `contract diff`: notes v4 → v5 (`notes.v5.source.json`) lists every change and marks
//! each escalation kind of issue 7 §5.

use super::source;
use bastion_core::contract::{self, EntryKind, EscalationKind};

#[test]
fn v4_to_v5_changes_and_escalations() {
    let (old, _) = source();
    let new = contract::parse_source(&super::read("notes.v5.source.json")).unwrap();
    assert!(
        contract::check_invariants(&new).is_empty(),
        "{:#?}",
        contract::check_invariants(&new)
    );
    let d = contract::diff_manifests(&old, &new);
    let keys = |list: &[contract::EntryRef]| -> Vec<(EntryKind, String)> {
        list.iter().map(|e| (e.kind, e.key.clone())).collect()
    };
    assert_eq!(
        keys(&d.added),
        [(EntryKind::Tool, "archive_note".to_owned())]
    );
    assert_eq!(
        keys(&d.removed),
        [(EntryKind::Prompt, "summarize_notes".to_owned())]
    );
    let changed: Vec<_> = d.changed.iter().map(|c| (c.kind, c.key.as_str())).collect();
    assert_eq!(
        changed,
        [
            (EntryKind::Tool, "delete_note"),
            (EntryKind::Tool, "read_note"),
            (EntryKind::Resource, "notes://index")
        ]
    );
    assert!(
        d.header
            .entries
            .iter()
            .any(|e| e.path == "/contract_version")
    );
    let read = &d.changed[1];
    assert!(read.diff.entries.iter().any(|e| e.path == "/description"));
    assert!(read.diff.entries.iter().any(|e| e.path == "/read_only"));
    let kinds: Vec<EscalationKind> = d.escalations().map(|e| e.kind).collect();
    for k in [
        EscalationKind::NewTool,
        EscalationKind::ReadOnlyRemoved,
        EscalationKind::HumanApprovalRemoved,
        EscalationKind::NewRequiredInput,
        EscalationKind::WiderSchema,
        EscalationKind::NewSideEffect,
        EscalationKind::RiskTierRaised,
        EscalationKind::AnnotationEscalation,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing in {kinds:?}");
    }
    // The resource's description change is listed but is no escalation.
    assert!(d.changed[2].escalations.is_empty());
    assert!(!kinds.contains(&EscalationKind::DestructiveAdded));
    // Reverse direction: narrowing and removals are no escalations.
    let back = contract::diff_manifests(&new, &old);
    let back_kinds: Vec<EscalationKind> = back.escalations().map(|e| e.kind).collect();
    assert!(
        !back_kinds.contains(&EscalationKind::ReadOnlyRemoved),
        "{back_kinds:?}"
    );
    assert!(
        !back_kinds.contains(&EscalationKind::WiderSchema),
        "{back_kinds:?}"
    );
    assert!(!back_kinds.contains(&EscalationKind::DestructiveAdded));
    assert!(contract::diff_manifests(&old, &old).is_empty());
}

#[test]
fn destructive_added_is_an_escalation() {
    let (old, _) = source();
    let mut new = old.clone();
    let t = &mut new.tools[0];
    t.read_only = false;
    t.destructive = true;
    let d = contract::diff_manifests(&old, &new);
    let kinds: Vec<EscalationKind> = d.escalations().map(|e| e.kind).collect();
    assert!(
        kinds.contains(&EscalationKind::DestructiveAdded),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&EscalationKind::ReadOnlyRemoved),
        "{kinds:?}"
    );
}
