//! Field-level diff of two versions of a descriptor over their canonical JSON (issue 3
//! §3): raw entries per JSON Pointer plus semantic highlights (see [`super::highlights`]).

use super::canonical::{canonical_eq, canonical_json};
use super::highlights::highlights;
use crate::finding::pointer_push;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// What happened at one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryChange {
    /// Present in the new version only.
    Added,
    /// Present in the old version only.
    Removed,
    /// Present in both with different canonical values.
    Changed,
}

/// One differing leaf or subtree. JSON: `{"path": "/inputSchema/properties/x", "change":
/// "added", "new": {...}}` (`old` for removed, both for changed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffEntry {
    /// RFC 6901 JSON Pointer (into the new version for added and changed entries, into
    /// the old one for removed entries; array indexes follow the same rule).
    pub path: String,
    /// What happened.
    pub change: EntryChange,
    /// The old value (removed, changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The new value (added, changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

/// Which semantic change a [`Highlight`] reports. Stable `snake_case` names in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HighlightKind {
    /// `description` text changed, added or removed (old and new text attached).
    DescriptionChanged,
    /// `title` changed.
    TitleChanged,
    /// The key member (`name`, `uri`, `uriTemplate`) changed.
    NameChanged,
    /// Server `instructions` text changed.
    InstructionsChanged,
    /// A property was added to a `properties` map of `inputSchema`/`outputSchema`.
    SchemaPropertyAdded,
    /// A property was removed from a `properties` map.
    SchemaPropertyRemoved,
    /// A name was added to a `required` list: callers must now supply it (escalation).
    NewRequiredParameter,
    /// A name was removed from a `required` list.
    RequiredParameterRemoved,
    /// Any other change under `inputSchema`/`outputSchema` (types, enums, property
    /// descriptions, defaults, a whole schema added or removed).
    SchemaChanged,
    /// A prompt argument was added (escalation when it is required).
    PromptArgumentAdded,
    /// A prompt argument was removed.
    PromptArgumentRemoved,
    /// A prompt argument's description or `required` changed (escalation when it became
    /// required).
    PromptArgumentChanged,
    /// A member of `annotations` changed; escalations as listed on [`diff`].
    AnnotationChanged,
    /// `_meta` changed.
    MetaChanged,
    /// `icons` changed.
    IconsChanged,
    /// Another top-level member changed (`mimeType`, `size`, `execution`, ...).
    FieldChanged,
}

impl HighlightKind {
    /// The stable `snake_case` name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::DescriptionChanged => "description_changed",
            Self::TitleChanged => "title_changed",
            Self::NameChanged => "name_changed",
            Self::InstructionsChanged => "instructions_changed",
            Self::SchemaPropertyAdded => "schema_property_added",
            Self::SchemaPropertyRemoved => "schema_property_removed",
            Self::NewRequiredParameter => "new_required_parameter",
            Self::RequiredParameterRemoved => "required_parameter_removed",
            Self::SchemaChanged => "schema_changed",
            Self::PromptArgumentAdded => "prompt_argument_added",
            Self::PromptArgumentRemoved => "prompt_argument_removed",
            Self::PromptArgumentChanged => "prompt_argument_changed",
            Self::AnnotationChanged => "annotation_changed",
            Self::MetaChanged => "meta_changed",
            Self::IconsChanged => "icons_changed",
            Self::FieldChanged => "field_changed",
        }
    }
}

/// One semantic change a reviewer should see first. JSON: `{"kind":
/// "new_required_parameter", "path": "/inputSchema/required", "escalation": true,
/// "message": "...", "old"?, "new"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Highlight {
    /// What kind of change.
    pub kind: HighlightKind,
    /// RFC 6901 JSON Pointer of the changed member (as for [`DiffEntry::path`]).
    pub path: String,
    /// The change widens what the descriptor may do or claims about itself in the unsafe
    /// direction (a new required parameter, `readOnlyHint` true → false, ...).
    pub escalation: bool,
    /// One line for people: names the member, old and new values escaped for display
    /// and shortened.
    pub message: String,
    /// The old value, when one member changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The new value, when one member changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

/// A readable diff of two versions of one descriptor (issue 3 §3). Empty when the two
/// have the same canonical form. JSON (`--json`): `{"highlights": [...], "entries": [...]}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Diff {
    /// Semantic changes, in the order of the members they concern.
    pub highlights: Vec<Highlight>,
    /// Every differing path, object members in canonical (RFC 8785) order.
    pub entries: Vec<DiffEntry>,
}

/// Longest rendered value, in characters, before it is shortened.
const MAX_SHOWN_CHARS: usize = 120;
/// Characters kept from a shortened value.
const KEPT_CHARS: usize = 100;

impl Diff {
    /// No differences.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Any highlight is an escalation.
    pub fn has_escalation(&self) -> bool {
        self.highlights.iter().any(|h| h.escalation)
    }

    /// Every difference is under `/annotations`.
    pub fn annotations_only(&self) -> bool {
        !self.entries.is_empty()
            && self
                .entries
                .iter()
                .all(|e| e.path == "/annotations" || e.path.starts_with("/annotations/"))
    }

    /// Plain text, one line per highlight then one per entry:
    /// `! <path>: <message>` (escalation), `* <path>: <message>`, then `+ <path>: <new>`,
    /// `- <path>: <old>`, `~ <path>: <old> → <new>`. Values are canonical JSON escaped with
    /// [`crate::unicode::escape_for_display`] (so each line is one line) and values
    /// longer than 120 characters are cut to 100 with their size in bytes appended.
    /// Paths are shown escaped too; the whole value is `/`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for h in &self.highlights {
            let mark = if h.escalation { '!' } else { '*' };
            let _ = writeln!(out, "{mark} {}: {}", show_path(&h.path), h.message);
        }
        for e in &self.entries {
            let path = show_path(&e.path);
            let _ = match (e.change, &e.old, &e.new) {
                (EntryChange::Added, _, Some(new)) => writeln!(out, "+ {path}: {}", show(new)),
                (EntryChange::Removed, Some(old), _) => writeln!(out, "- {path}: {}", show(old)),
                (_, old, new) => {
                    let (o, n) = match (old, new) {
                        (Some(o), Some(n)) => show_pair(o, n),
                        _ => (
                            old.as_ref().map_or_else(String::new, show),
                            new.as_ref().map_or_else(String::new, show),
                        ),
                    };
                    writeln!(out, "~ {path}: {o} → {n}")
                }
            };
        }
        out
    }
}

fn show_path(path: &str) -> String {
    if path.is_empty() {
        "/".to_owned()
    } else {
        crate::unicode::escape_for_display(path).into_owned()
    }
}

/// A value for display: canonical JSON, shortened to [`KEPT_CHARS`] characters plus its
/// size when longer than [`MAX_SHOWN_CHARS`], escaped for display.
pub(crate) fn show(value: &Value) -> String {
    let text = canonical_json(value).unwrap_or_else(|_| value.to_string());
    show_text(&text)
}

/// Characters of unchanged context kept around the changed part of a long string.
const CONTEXT_CHARS: usize = 24;

/// Two versions of a value for display. When both are strings and one is longer than
/// [`MAX_SHOWN_CHARS`], each is shown as a window around the part that differs (common
/// prefix and suffix cut to [`CONTEXT_CHARS`] with `…`) and its size, so an instruction
/// appended to a long description is what the reviewer sees; otherwise as [`show`].
pub(crate) fn show_pair(old: &Value, new: &Value) -> (String, String) {
    if let (Value::String(a), Value::String(b)) = (old, new)
        && (a.chars().count() > MAX_SHOWN_CHARS || b.chars().count() > MAX_SHOWN_CHARS)
    {
        let prefix = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
        let room = a.chars().count().min(b.chars().count()) - prefix;
        let suffix = a
            .chars()
            .rev()
            .zip(b.chars().rev())
            .take(room)
            .take_while(|(x, y)| x == y)
            .count();
        return (window(a, prefix, suffix), window(b, prefix, suffix));
    }
    (show(old), show(new))
}

/// `"…context CHANGED context…" (N bytes)` (size only when cut): the part of `s` between its first `prefix`
/// and last `suffix` characters, with [`CONTEXT_CHARS`] of context, JSON-escaped,
/// shortened to [`KEPT_CHARS`] and escaped for display.
fn window(s: &str, prefix: usize, suffix: usize) -> String {
    let n = s.chars().count();
    let start = prefix.saturating_sub(CONTEXT_CHARS);
    let end = (n - suffix + CONTEXT_CHARS).min(n).max(start);
    let mut cut_tail = end < n;
    let mut mid: String = s.chars().skip(start).take(end - start).collect();
    if mid.chars().count() > KEPT_CHARS {
        mid = mid.chars().take(KEPT_CHARS).collect();
        cut_tail = true;
    }
    let quoted = serde_json::to_string(&mid).unwrap_or_default();
    let inner = quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(&quoted);
    let shown = crate::unicode::escape_for_display(inner);
    if start == 0 && !cut_tail {
        return format!("\"{shown}\"");
    }
    format!(
        "\"{}{shown}{}\" ({} bytes)",
        if start > 0 { "…" } else { "" },
        if cut_tail { "…" } else { "" },
        s.len()
    )
}

/// As [`show`] for text that is shown as it is (no JSON quoting).
pub(crate) fn show_text(text: &str) -> String {
    if text.chars().count() <= MAX_SHOWN_CHARS {
        return crate::unicode::escape_for_display(text).into_owned();
    }
    let cut = text
        .char_indices()
        .nth(KEPT_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}… ({} bytes)",
        crate::unicode::escape_for_display(&text[..cut]),
        text.len()
    )
}

/// The field-level diff of `old` and `new` (two versions of one descriptor, or of any
/// JSON value): raw entries over their canonical JSON plus semantic highlights for MCP
/// descriptors (description, `inputSchema`/`outputSchema` paths, `required` additions,
/// annotation escalations, prompt arguments, `title`, `_meta`, `icons`). Numbers compare
/// as IEEE 754 doubles and member order is ignored, as in the canonical form. Pure.
///
/// Annotation escalations follow the MCP `ToolAnnotations` defaults (`readOnlyHint`
/// false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true), so a
/// removed hint takes its default:
///
/// | hint | escalation when the effective value goes |
/// |---|---|
/// | `readOnlyHint` | true → false (or removed) |
/// | `destructiveHint` | false → true (or removed) |
/// | `openWorldHint` | false → true (or removed) |
/// | `idempotentHint` | true → false (or removed) |
///
/// A new name in a `required` list of `inputSchema`/`outputSchema`, and a new required
/// prompt argument (or one that became required), are escalations too.
pub fn diff(old: &Value, new: &Value) -> Diff {
    let mut entries = Vec::new();
    diff_values(old, new, "", &mut entries);
    if entries.is_empty() {
        return Diff::default();
    }
    Diff {
        highlights: highlights(old, new),
        entries,
    }
}

/// UTF-16 order of member names, as RFC 8785 §3.2.3 sorts them.
pub(crate) fn sorted_union<'a>(
    a: &'a Map<String, Value>,
    b: &'a Map<String, Value>,
) -> Vec<&'a str> {
    let mut keys: Vec<&str> = a.keys().chain(b.keys()).map(String::as_str).collect();
    keys.sort_by(|x, y| x.encode_utf16().cmp(y.encode_utf16()));
    keys.dedup();
    keys
}

fn diff_values(old: &Value, new: &Value, path: &str, out: &mut Vec<DiffEntry>) {
    match (old, new) {
        (Value::Object(old_map), Value::Object(new_map)) => {
            for key in sorted_union(old_map, new_map) {
                let at = pointer_push(path, key);
                match (old_map.get(key), new_map.get(key)) {
                    (Some(x), Some(y)) => diff_values(x, y, &at, out),
                    (Some(x), None) => out.push(entry(at, EntryChange::Removed, Some(x), None)),
                    (None, Some(y)) => out.push(entry(at, EntryChange::Added, None, Some(y))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => diff_arrays(a, b, path, out),
        _ if canonical_eq(old, new) => {}
        _ => out.push(entry(
            path.to_owned(),
            EntryChange::Changed,
            Some(old),
            Some(new),
        )),
    }
}

/// Common prefix and suffix are skipped; of the middle, equally long runs are compared
/// pairwise, otherwise old elements are removed and new ones added.
fn diff_arrays(a: &[Value], b: &[Value], path: &str, out: &mut Vec<DiffEntry>) {
    let prefix = a
        .iter()
        .zip(b)
        .take_while(|(x, y)| canonical_eq(x, y))
        .count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| canonical_eq(x, y))
        .count();
    let (mid_a, mid_b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if mid_a.len() == mid_b.len() {
        for (i, (x, y)) in mid_a.iter().zip(mid_b).enumerate() {
            diff_values(x, y, &pointer_push(path, &(prefix + i).to_string()), out);
        }
        return;
    }
    for (i, x) in mid_a.iter().enumerate() {
        let p = pointer_push(path, &(prefix + i).to_string());
        out.push(entry(p, EntryChange::Removed, Some(x), None));
    }
    for (i, y) in mid_b.iter().enumerate() {
        let p = pointer_push(path, &(prefix + i).to_string());
        out.push(entry(p, EntryChange::Added, None, Some(y)));
    }
}

fn entry(path: String, change: EntryChange, old: Option<&Value>, new: Option<&Value>) -> DiffEntry {
    DiffEntry {
        path,
        change,
        old: old.cloned(),
        new: new.cloned(),
    }
}
