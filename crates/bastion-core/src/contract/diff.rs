//! `contract diff OLD NEW` (issue 7 §5): added, removed and changed entries, each change
//! field by field ([`crate::pins::diff`] over the whole entry, governance included), and
//! the escalations a reviewer must see first:
//!
//! | escalation | when |
//! |---|---|
//! | `read_only_removed` | a tool's `read_only` went true → false |
//! | `destructive_added` | a tool's `destructive` went false → true |
//! | `human_approval_removed` | a tool's `requires_human_approval` went true → false |
//! | `new_required_input` | a name was added to a tool's `inputSchema` `required` list, or a prompt argument became required / was added required |
//! | `wider_schema` | a tool's `inputSchema` or `outputSchema` accepts more (see `widen.rs`) |
//! | `new_side_effect` | a tool lists a side effect it did not list before |
//! | `risk_tier_raised` | a tool's `risk_tier` went up |
//! | `new_tool` | a tool was added |
//! | `annotation_escalation` | an annotation hint moved in the unsafe direction ([`crate::pins::diff`]) |

use super::hash::EntryKind;
use super::source::{ContractEntry, SourceManifest, ToolEntry};
use super::widen::widenings;
use crate::finding::pointer_push;
use crate::pins::{self, Diff, HighlightKind};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Which escalation. Stable `snake_case` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EscalationKind {
    /// `read_only` true → false.
    ReadOnlyRemoved,
    /// `destructive` false → true.
    DestructiveAdded,
    /// `requires_human_approval` true → false.
    HumanApprovalRemoved,
    /// A new required input.
    NewRequiredInput,
    /// A schema accepts more.
    WiderSchema,
    /// A new side effect.
    NewSideEffect,
    /// `risk_tier` raised.
    RiskTierRaised,
    /// A tool was added.
    NewTool,
    /// An annotation hint moved in the unsafe direction.
    AnnotationEscalation,
}

impl EscalationKind {
    /// The stable `snake_case` name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnlyRemoved => "read_only_removed",
            Self::DestructiveAdded => "destructive_added",
            Self::HumanApprovalRemoved => "human_approval_removed",
            Self::NewRequiredInput => "new_required_input",
            Self::WiderSchema => "wider_schema",
            Self::NewSideEffect => "new_side_effect",
            Self::RiskTierRaised => "risk_tier_raised",
            Self::NewTool => "new_tool",
            Self::AnnotationEscalation => "annotation_escalation",
        }
    }
}

/// One escalation. JSON: `{"kind", "path", "message"}`; `path` is a JSON Pointer into
/// the new entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Escalation {
    /// What kind.
    pub kind: EscalationKind,
    /// Where, in the new entry.
    pub path: String,
    /// One line for people.
    pub message: String,
}

impl Escalation {
    /// The stable name of its kind.
    pub const fn kind_name(&self) -> &'static str {
        self.kind.as_str()
    }
}

/// An added or removed entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryRef {
    /// Entry kind.
    pub kind: EntryKind,
    /// Entry key.
    pub key: String,
    /// The whole entry as written in the manifest.
    pub entry: Value,
}

/// A changed entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedEntry {
    /// Entry kind.
    pub kind: EntryKind,
    /// Entry key.
    pub key: String,
    /// Field-by-field differences (`entries`) and semantic highlights.
    pub diff: Diff,
    /// Escalations of this entry.
    pub escalations: Vec<Escalation>,
}

/// The difference of two manifests. JSON (`--json`): `{"header": Diff, "added": [...],
/// "removed": [...], "changed": [...], "escalations": <count>}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractDiff {
    /// Differences of the manifest-level members (`server_id`, `contract_version`,
    /// `protocol_version`, `owner`, `cache`).
    pub header: Diff,
    /// Entries only in the new manifest.
    pub added: Vec<EntryRef>,
    /// Entries only in the old manifest.
    pub removed: Vec<EntryRef>,
    /// Entries in both with different content.
    pub changed: Vec<ChangedEntry>,
    /// Escalations of added entries (`new_tool`).
    pub added_escalations: Vec<Escalation>,
}

impl ContractDiff {
    /// Nothing differs.
    pub fn is_empty(&self) -> bool {
        self.header.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
    }

    /// Every escalation, added entries first.
    pub fn escalations(&self) -> impl Iterator<Item = &Escalation> {
        self.added_escalations
            .iter()
            .chain(self.changed.iter().flat_map(|c| c.escalations.iter()))
    }
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

type Entries = BTreeMap<(EntryKind, String), Value>;

fn collect<E: ContractEntry>(list: &[E], out: &mut Entries) {
    for e in list {
        out.insert((E::KIND, e.key().to_owned()), to_value(e));
    }
}

fn entries(s: &SourceManifest) -> Entries {
    let mut out = Entries::new();
    collect(&s.tools, &mut out);
    collect(&s.prompts, &mut out);
    collect(&s.resources, &mut out);
    collect(&s.resource_templates, &mut out);
    for u in &s.ui_resources {
        out.insert((EntryKind::UiResource, u.uri.clone()), to_value(u));
    }
    out
}

fn header(s: &SourceManifest) -> Value {
    serde_json::json!({
        "server_id": s.server_id, "contract_version": s.contract_version,
        "protocol_version": s.protocol_version, "owner": s.owner, "cache": s.cache,
    })
}

/// Compares two source manifests (of a reviewed manifest: its `source`).
pub fn diff_manifests(old: &SourceManifest, new: &SourceManifest) -> ContractDiff {
    let (a, b) = (entries(old), entries(new));
    let mut out = ContractDiff {
        header: pins::diff(&header(old), &header(new)),
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
        added_escalations: Vec::new(),
    };
    for ((kind, key), value) in &b {
        match a.get(&(*kind, key.clone())) {
            None => {
                if *kind == EntryKind::Tool {
                    out.added_escalations.push(Escalation {
                        kind: EscalationKind::NewTool,
                        path: String::new(),
                        message: format!("new tool {key:?}"),
                    });
                }
                out.added.push(EntryRef {
                    kind: *kind,
                    key: key.clone(),
                    entry: value.clone(),
                });
            }
            Some(old_value) => {
                let diff = pins::diff(old_value, value);
                if diff.is_empty() {
                    continue;
                }
                let mut escalations = highlight_escalations(&diff);
                if *kind == EntryKind::Tool
                    && let (Some(o), Some(n)) = (find_tool(old, key), find_tool(new, key))
                {
                    escalations.extend(tool_escalations(o, n));
                }
                out.changed.push(ChangedEntry {
                    kind: *kind,
                    key: key.clone(),
                    diff,
                    escalations,
                });
            }
        }
    }
    for ((kind, key), value) in &a {
        if !b.contains_key(&(*kind, key.clone())) {
            out.removed.push(EntryRef {
                kind: *kind,
                key: key.clone(),
                entry: value.clone(),
            });
        }
    }
    out
}

fn find_tool<'a>(s: &'a SourceManifest, name: &str) -> Option<&'a ToolEntry> {
    s.tools.iter().find(|t| t.name == name)
}

/// Escalations the descriptor diff already recognizes: new required parameters and
/// prompt arguments, annotation hints in the unsafe direction.
fn highlight_escalations(diff: &Diff) -> Vec<Escalation> {
    diff.highlights
        .iter()
        .filter(|h| h.escalation)
        .map(|h| Escalation {
            kind: match h.kind {
                HighlightKind::AnnotationChanged => EscalationKind::AnnotationEscalation,
                HighlightKind::NewRequiredParameter
                | HighlightKind::PromptArgumentAdded
                | HighlightKind::PromptArgumentChanged => EscalationKind::NewRequiredInput,
                _ => EscalationKind::WiderSchema,
            },
            path: h.path.clone(),
            message: h.message.clone(),
        })
        .collect()
}

fn flag(out: &mut Vec<Escalation>, kind: EscalationKind, path: &str, message: String) {
    out.push(Escalation {
        kind,
        path: path.to_owned(),
        message,
    });
}

fn tool_escalations(o: &ToolEntry, n: &ToolEntry) -> Vec<Escalation> {
    let mut out = Vec::new();
    let name = &n.name;
    if o.read_only && !n.read_only {
        flag(
            &mut out,
            EscalationKind::ReadOnlyRemoved,
            "/read_only",
            format!("tool {name:?} is no longer read-only"),
        );
    }
    if !o.destructive && n.destructive {
        flag(
            &mut out,
            EscalationKind::DestructiveAdded,
            "/destructive",
            format!("tool {name:?} is now destructive"),
        );
    }
    if o.requires_human_approval && !n.requires_human_approval {
        let msg = format!("tool {name:?} no longer requires human approval");
        flag(
            &mut out,
            EscalationKind::HumanApprovalRemoved,
            "/requires_human_approval",
            msg,
        );
    }
    if n.risk_tier > o.risk_tier {
        let msg = format!(
            "tool {name:?} risk tier {} → {}",
            o.risk_tier.as_str(),
            n.risk_tier.as_str()
        );
        flag(&mut out, EscalationKind::RiskTierRaised, "/risk_tier", msg);
    }
    for (i, effect) in n.side_effects.iter().enumerate() {
        if !o.side_effects.contains(effect) {
            let msg = format!("tool {name:?} has a new side effect: {effect:?}");
            flag(
                &mut out,
                EscalationKind::NewSideEffect,
                &format!("/side_effects/{i}"),
                msg,
            );
        }
    }
    for w in widenings(&o.input_schema, &n.input_schema, "/inputSchema") {
        flag(
            &mut out,
            EscalationKind::WiderSchema,
            &w.path,
            format!("tool {name:?} input: {}", w.what),
        );
    }
    if let (Some(a), Some(b)) = (&o.output_schema, &n.output_schema) {
        for w in widenings(a, b, "/outputSchema") {
            flag(
                &mut out,
                EscalationKind::WiderSchema,
                &w.path,
                format!("tool {name:?} output: {}", w.what),
            );
        }
    } else if o.output_schema.is_some() {
        let msg = format!("tool {name:?} no longer declares an outputSchema");
        flag(
            &mut out,
            EscalationKind::WiderSchema,
            &pointer_push("", "outputSchema"),
            msg,
        );
    }
    out
}
