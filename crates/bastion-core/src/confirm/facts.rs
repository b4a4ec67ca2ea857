//! What a call's decision reads from the pinned descriptor and the tool name alone
//! (MCP 2025-11-25 `ToolAnnotations`, the name's intent, the descriptor's signals),
//! computed once per descriptor.

use super::decide::TOOL_PATH;
use super::intent::{Effect, intent_mismatch, name_effect};
use crate::finding::Finding;
use crate::json::Member;
use serde_json::Value;

/// `readOnlyHint`, `destructiveHint`, `openWorldHint` of a descriptor, as given.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Hints {
    pub(super) read_only: Option<bool>,
    pub(super) destructive: Option<bool>,
    pub(super) open_world: Option<bool>,
}

impl Hints {
    fn of(tool: Option<&Value>) -> Self {
        let get = |k: &str| {
            tool.and_then(|t| t.member("annotations"))
                .and_then(|a| a.member(k))
                .and_then(Value::as_bool)
        };
        Self {
            read_only: get("readOnlyHint"),
            destructive: get("destructiveHint"),
            open_world: get("openWorldHint"),
        }
    }

    /// Why these annotations make a call ask (tightening only; `readOnlyHint` is not
    /// consulted for loosening here).
    pub(super) fn tightening(self) -> Option<&'static str> {
        if self.destructive == Some(true) {
            Some("the tool declares destructiveHint: true")
        } else if self.open_world == Some(true) {
            Some("the tool declares openWorldHint: true (it reaches external systems)")
        } else if self.read_only != Some(true) && self.destructive.is_none() {
            Some(
                "the tool is not declared read-only and destructiveHint defaults to true (MCP ToolAnnotations)",
            )
        } else {
            None
        }
    }
}

/// What [`super::decide`] reads from a pinned descriptor and the tool name alone, computed once
/// per descriptor so that repeated calls of one tool do not re-run the description
/// scans: the annotations as given, what the name says it does, and the call-independent
/// signals (annotation contradictions, name vs title/description disagreement).
///
/// Build it with [`ToolFacts::of`] for the descriptor and the name the calls use; a
/// gateway keeps one per listed tool and rebuilds it when the descriptor changes.
#[derive(Debug, Clone)]
pub struct ToolFacts {
    pub(super) pinned: bool,
    pub(super) hints: Hints,
    pub(super) named: Option<Effect>,
    pub(super) signals: Vec<Finding>,
}

impl ToolFacts {
    /// The facts of `tool` (the pinned descriptor, `None` when there is none) called by
    /// `name` (the `tools/call` `params.name`).
    pub fn of(tool: Option<&Value>, name: &str) -> Self {
        let mut signals = Vec::new();
        if let Some(t) = tool {
            crate::detect::annotations::scan_annotations(t, TOOL_PATH, &mut signals);
            signals.extend(intent_mismatch(t, TOOL_PATH));
        }
        Self {
            pinned: tool.is_some(),
            hints: Hints::of(tool),
            named: name_effect(name).map(|(e, _)| e),
            signals,
        }
    }
}
