//! Semantic highlights of a descriptor diff (issue 3 §3).
//!
//! Annotation escalations follow the MCP `ToolAnnotations` defaults (spec 2025-06-18
//! onwards: `readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
//! `openWorldHint` true), so removing a hint moves it to its default:
//!
//! | hint | escalation when the effective value goes |
//! |---|---|
//! | `readOnlyHint` | true → false (or removed) |
//! | `destructiveHint` | false → true (or removed) |
//! | `openWorldHint` | false → true (or removed) |
//! | `idempotentHint` | true → false (or removed) |

use super::canonical::canonical_eq;
use super::diff::{Highlight, HighlightKind, show, show_pair, sorted_union};
use crate::finding::pointer_push;
use serde_json::{Map, Value};

/// Collects the highlights of `old` → `new` (two versions of one descriptor).
pub(crate) fn highlights(old: &Value, new: &Value) -> Vec<Highlight> {
    let mut out = Vec::new();
    match (old, new) {
        (Value::String(_), Value::String(_)) => out.push(hl(
            HighlightKind::InstructionsChanged,
            "",
            false,
            format!("instructions changed: {} → {}", show(old), show(new)),
            Some(old),
            Some(new),
        )),
        (Value::Object(a), Value::Object(b)) => members(a, b, &mut out),
        _ => out.push(hl(
            HighlightKind::FieldChanged,
            "",
            false,
            format!("descriptor replaced: {} → {}", show(old), show(new)),
            Some(old),
            Some(new),
        )),
    }
    out
}

fn hl(
    kind: HighlightKind,
    path: &str,
    escalation: bool,
    message: String,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Highlight {
    Highlight {
        kind,
        path: path.to_owned(),
        escalation,
        message,
        old: old.cloned(),
        new: new.cloned(),
    }
}

/// `a → b`, `absent → b`, `a → absent` for messages.
fn arrow(old: Option<&Value>, new: Option<&Value>) -> String {
    if let (Some(o), Some(n)) = (old, new) {
        let (o, n) = show_pair(o, n);
        return format!("{o} → {n}");
    }
    let side = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_owned(), show);
    format!("{} → {}", side(old), side(new))
}

fn members(a: &Map<String, Value>, b: &Map<String, Value>, out: &mut Vec<Highlight>) {
    for k in sorted_union(a, b) {
        let (x, y) = (a.get(k), b.get(k));
        if let (Some(x), Some(y)) = (x, y)
            && canonical_eq(x, y)
        {
            continue;
        }
        let path = pointer_push("", k);
        let simple = |kind, label: &str| {
            hl(
                kind,
                &path,
                false,
                format!("{label} changed: {}", arrow(x, y)),
                x,
                y,
            )
        };
        match k {
            "description" => out.push(simple(HighlightKind::DescriptionChanged, "description")),
            "title" => out.push(simple(HighlightKind::TitleChanged, "title")),
            "name" | "uri" | "uriTemplate" => out.push(simple(HighlightKind::NameChanged, k)),
            "inputSchema" | "outputSchema" => schema(x, y, &path, out),
            "annotations" => annotations(x, y, &path, out),
            "arguments" => prompt_arguments(x, y, &path, out),
            "_meta" => out.push(simple(HighlightKind::MetaChanged, "_meta")),
            "icons" => out.push(simple(HighlightKind::IconsChanged, "icons")),
            other => {
                let label = format!("`{}`", crate::unicode::escape_for_display(other));
                out.push(simple(HighlightKind::FieldChanged, &label));
            }
        }
    }
}

/// Schema paths added, removed, changed; `required` additions are escalations.
fn schema(old: Option<&Value>, new: Option<&Value>, path: &str, out: &mut Vec<Highlight>) {
    match (old, new) {
        (Some(Value::Object(old_map)), Some(Value::Object(new_map))) => {
            for key in sorted_union(old_map, new_map) {
                let (x, y) = (old_map.get(key), new_map.get(key));
                if let (Some(x), Some(y)) = (x, y)
                    && canonical_eq(x, y)
                {
                    continue;
                }
                let at = pointer_push(path, key);
                match (key, x, y) {
                    ("properties", Some(Value::Object(pa)), Some(Value::Object(pb))) => {
                        properties(pa, pb, &at, out);
                    }
                    ("required", _, _) => required(x, y, &at, out),
                    _ => schema(x, y, &at, out),
                }
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if !canonical_eq(x, y) {
                    schema(Some(x), Some(y), &pointer_push(path, &i.to_string()), out);
                }
            }
        }
        _ => out.push(hl(
            HighlightKind::SchemaChanged,
            path,
            false,
            format!("schema changed: {}", arrow(old, new)),
            old,
            new,
        )),
    }
}

fn properties(
    old_props: &Map<String, Value>,
    new_props: &Map<String, Value>,
    path: &str,
    out: &mut Vec<Highlight>,
) {
    for key in sorted_union(old_props, new_props) {
        let p = pointer_push(path, key);
        let name = crate::unicode::escape_for_display(key);
        match (old_props.get(key), new_props.get(key)) {
            (Some(x), Some(y)) => {
                if !canonical_eq(x, y) {
                    schema(Some(x), Some(y), &p, out);
                }
            }
            (None, Some(y)) => out.push(hl(
                HighlightKind::SchemaPropertyAdded,
                &p,
                false,
                format!("property `{name}` added: {}", show(y)),
                None,
                Some(y),
            )),
            (Some(x), None) => out.push(hl(
                HighlightKind::SchemaPropertyRemoved,
                &p,
                false,
                format!("property `{name}` removed: {}", show(x)),
                Some(x),
                None,
            )),
            (None, None) => {}
        }
    }
}

fn names(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn required(old: Option<&Value>, new: Option<&Value>, path: &str, out: &mut Vec<Highlight>) {
    let (a, b) = (names(old), names(new));
    let mut any = false;
    for n in b.iter().filter(|n| !a.contains(n)) {
        any = true;
        out.push(hl(
            HighlightKind::NewRequiredParameter,
            path,
            true,
            format!(
                "new required parameter `{}`",
                crate::unicode::escape_for_display(n)
            ),
            None,
            Some(&Value::String((*n).to_owned())),
        ));
    }
    for n in a.iter().filter(|n| !b.contains(n)) {
        any = true;
        out.push(hl(
            HighlightKind::RequiredParameterRemoved,
            path,
            false,
            format!(
                "parameter `{}` no longer required",
                crate::unicode::escape_for_display(n)
            ),
            Some(&Value::String((*n).to_owned())),
            None,
        ));
    }
    if !any {
        // Reordered, or not a list of names.
        out.push(hl(
            HighlightKind::SchemaChanged,
            path,
            false,
            format!("`required` changed: {}", arrow(old, new)),
            old,
            new,
        ));
    }
}

/// Effective value of a hint given the MCP default, `None` for non-hint members.
fn hint_default(name: &str) -> Option<bool> {
    match name {
        "readOnlyHint" | "idempotentHint" => Some(false),
        "destructiveHint" | "openWorldHint" => Some(true),
        _ => None,
    }
}

fn annotations(old: Option<&Value>, new: Option<&Value>, path: &str, out: &mut Vec<Highlight>) {
    let empty = Map::new();
    let a = old.and_then(Value::as_object).unwrap_or(&empty);
    let b = new.and_then(Value::as_object).unwrap_or(&empty);
    if (old.is_some() && !old.is_some_and(Value::is_object))
        || (new.is_some() && !new.is_some_and(Value::is_object))
    {
        out.push(hl(
            HighlightKind::AnnotationChanged,
            path,
            false,
            format!("annotations changed: {}", arrow(old, new)),
            old,
            new,
        ));
    }
    for k in sorted_union(a, b) {
        let (x, y) = (a.get(k), b.get(k));
        if let (Some(x), Some(y)) = (x, y)
            && canonical_eq(x, y)
        {
            continue;
        }
        let escalation = hint_default(k).is_some_and(|default| {
            let eff = |v: Option<&Value>| v.and_then(Value::as_bool).unwrap_or(default);
            let (before, after) = (eff(x), eff(y));
            // Safe direction: readOnly/idempotent true, destructive/openWorld false.
            let safe = !default;
            before == safe && after != safe
        });
        let name = crate::unicode::escape_for_display(k);
        let note = if escalation { " (escalation)" } else { "" };
        out.push(hl(
            HighlightKind::AnnotationChanged,
            &pointer_push(path, k),
            escalation,
            format!("annotation `{name}`: {}{note}", arrow(x, y)),
            x,
            y,
        ));
    }
}

/// Prompt `arguments`, matched by `name`.
fn prompt_arguments(
    old: Option<&Value>,
    new: Option<&Value>,
    path: &str,
    out: &mut Vec<Highlight>,
) {
    let by_name = |v: Option<&Value>| -> Option<Vec<(String, usize, Value)>> {
        let arr = match v {
            None => return Some(Vec::new()),
            Some(v) => v.as_array()?,
        };
        arr.iter()
            .enumerate()
            .map(|(i, a)| Some((a.get("name")?.as_str()?.to_owned(), i, a.clone())))
            .collect()
    };
    let (Some(a), Some(b)) = (by_name(old), by_name(new)) else {
        out.push(hl(
            HighlightKind::FieldChanged,
            path,
            false,
            format!("`arguments` changed: {}", arrow(old, new)),
            old,
            new,
        ));
        return;
    };
    let required = |v: &Value| v.get("required").and_then(Value::as_bool) == Some(true);
    let before = out.len();
    for (name, i, y) in &b {
        let p = pointer_push(path, &i.to_string());
        let shown = crate::unicode::escape_for_display(name);
        match a.iter().find(|(n, _, _)| n == name) {
            None => out.push(hl(
                HighlightKind::PromptArgumentAdded,
                &p,
                required(y),
                format!(
                    "prompt argument `{shown}` added{}: {}",
                    if required(y) { " (required)" } else { "" },
                    show(y)
                ),
                None,
                Some(y),
            )),
            Some((_, _, x)) if !canonical_eq(x, y) => out.push(hl(
                HighlightKind::PromptArgumentChanged,
                &p,
                !required(x) && required(y),
                format!(
                    "prompt argument `{shown}` changed: {}",
                    arrow(Some(x), Some(y))
                ),
                Some(x),
                Some(y),
            )),
            Some(_) => {}
        }
    }
    for (name, i, x) in &a {
        if !b.iter().any(|(n, _, _)| n == name) {
            out.push(hl(
                HighlightKind::PromptArgumentRemoved,
                &pointer_push(path, &i.to_string()),
                false,
                format!(
                    "prompt argument `{}` removed",
                    crate::unicode::escape_for_display(name)
                ),
                Some(x),
                None,
            ));
        }
    }
    if out.len() == before {
        out.push(hl(
            HighlightKind::FieldChanged,
            path,
            false,
            "prompt arguments reordered".to_owned(),
            old,
            new,
        ));
    }
}
