//! Descriptor detectors. OWNER: helper "detectors". API contract (keep these signatures):

use crate::finding::Finding;
use serde_json::Value;

/// What kind of descriptor is scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DescriptorKind {
    /// A tool (`tools/list`).
    Tool,
    /// A prompt (`prompts/list`).
    Prompt,
    /// A resource (`resources/list`).
    Resource,
    /// A resource template (`resources/templates/list`).
    ResourceTemplate,
    /// The server's `instructions` string.
    ServerInstructions,
}

/// Every finding for one descriptor; paths are JSON Pointers below `path`.
pub fn scan_descriptor(kind: DescriptorKind, descriptor: &Value, path: &str) -> Vec<Finding> {
    todo!("{kind:?}{descriptor}{path}")
}

/// Instruction-like text aimed at the model inside result text.
pub fn scan_result_text(text: &str, path: &str) -> Vec<Finding> {
    todo!("{text}{path}")
}
