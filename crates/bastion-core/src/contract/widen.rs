//! Does a new JSON Schema accept more than the old one? A conservative, structural
//! comparison of two versions of a tool's `inputSchema` (or `outputSchema`) for
//! `contract diff` (issue 7 §5): it reports each keyword change that can only widen what
//! validates (JSON Schema 2020-12 Validation §6: `type`, `enum`, `const`, numeric and
//! length bounds, `pattern`, `format`; Core §10.3.2: `properties`,
//! `additionalProperties`, `items`; Validation §6.5.3 `required`). A changed `pattern` is
//! reported too, since whether one regular expression accepts more than another is not
//! decided here. Narrowing changes are not reported.

use crate::finding::pointer_push;
use serde_json::{Map, Value};

/// One widening: where (JSON Pointer into the new schema) and what, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Widening {
    pub(crate) path: String,
    pub(crate) what: String,
}

/// Upper bounds: a larger value or removal widens.
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];
/// Lower bounds: a smaller value or removal widens.
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];
/// Deepest schema nesting compared (schemas passed the strict parser's depth limit).
const MAX_DEPTH: usize = 32;

/// Every widening from `old` to `new`, both schemas at `path`.
pub(crate) fn widenings(old: &Value, new: &Value, path: &str) -> Vec<Widening> {
    let mut out = Vec::new();
    compare(old, new, path, 0, &mut out);
    out
}

fn push(out: &mut Vec<Widening>, path: &str, what: String) {
    out.push(Widening {
        path: path.to_owned(),
        what,
    });
}

fn compare(old: &Value, new: &Value, path: &str, depth: usize, out: &mut Vec<Widening>) {
    if depth > MAX_DEPTH {
        return;
    }
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => objects(o, n, path, depth, out),
        (Value::Bool(false), n) if n != &Value::Bool(false) => {
            push(
                out,
                path,
                "a schema that accepted nothing now accepts values".into(),
            );
        }
        (o, Value::Bool(true)) if o != &Value::Bool(true) => {
            push(out, path, "the schema now accepts any value".into());
        }
        _ => {}
    }
}

fn types(v: Option<&Value>) -> Option<Vec<&str>> {
    match v? {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(a) => Some(a.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn objects(
    o: &Map<String, Value>,
    n: &Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Vec<Widening>,
) {
    if let Some(old_types) = types(o.get("type")) {
        match types(n.get("type")) {
            None => push(
                out,
                &pointer_push(path, "type"),
                "the type restriction was removed".into(),
            ),
            Some(new_types) => {
                // `integer` is a subset of `number`.
                let covered = |t: &str| {
                    old_types.contains(&t) || (t == "integer" && old_types.contains(&"number"))
                };
                let added: Vec<&str> = new_types.into_iter().filter(|t| !covered(t)).collect();
                if !added.is_empty() {
                    push(
                        out,
                        &pointer_push(path, "type"),
                        format!("now also accepts type {}", added.join(", ")),
                    );
                }
            }
        }
    }
    if let Some(Value::Array(old_enum)) = o.get("enum") {
        match n.get("enum") {
            Some(Value::Array(new_enum)) => {
                let added: Vec<String> = new_enum
                    .iter()
                    .filter(|v| !old_enum.contains(v))
                    .map(Value::to_string)
                    .collect();
                if !added.is_empty() {
                    push(
                        out,
                        &pointer_push(path, "enum"),
                        format!("new allowed values {}", added.join(", ")),
                    );
                }
            }
            _ => push(
                out,
                &pointer_push(path, "enum"),
                "the enum restriction was removed".into(),
            ),
        }
    }
    if let Some(c) = o.get("const")
        && n.get("const") != Some(c)
    {
        push(
            out,
            &pointer_push(path, "const"),
            "the const restriction was removed or changed".into(),
        );
    }
    bounds(o, n, path, out);
    for key in ["pattern", "format"] {
        match (o.get(key), n.get(key)) {
            (Some(_), None) => push(out, &pointer_push(path, key), format!("{key} was removed")),
            (Some(a), Some(b)) if a != b => {
                push(
                    out,
                    &pointer_push(path, key),
                    format!("{key} changed from {a} to {b}; it may accept more"),
                );
            }
            _ => {}
        }
    }
    object_members(o, n, path, depth, out);
    if let (Some(a), Some(b)) = (o.get("items"), n.get("items")) {
        compare(a, b, &pointer_push(path, "items"), depth + 1, out);
    } else if o.contains_key("items") {
        push(
            out,
            &pointer_push(path, "items"),
            "the items restriction was removed".into(),
        );
    }
}

fn bounds(o: &Map<String, Value>, n: &Map<String, Value>, path: &str, out: &mut Vec<Widening>) {
    for (keys, upper) in [(UPPER, true), (LOWER, false)] {
        for key in keys {
            let Some(old) = o.get(*key).and_then(Value::as_f64) else {
                continue;
            };
            match n.get(*key).and_then(Value::as_f64) {
                None => push(
                    out,
                    &pointer_push(path, key),
                    format!("{key} {old} was removed"),
                ),
                Some(new) if (upper && new > old) || (!upper && new < old) => {
                    push(
                        out,
                        &pointer_push(path, key),
                        format!("{key} went from {old} to {new}"),
                    );
                }
                Some(_) => {}
            }
        }
    }
}

/// Object-schema keywords that admit members `properties` does not declare, or defer
/// that decision to other schemas (JSON Schema 2020-12 Core §10.2, §10.3.2, §11.3): a
/// closed `inputSchema` root has none of them (build invariant), and one added or
/// changed is a wider schema (`contract diff`).
pub(crate) const OPEN_MEMBER_KEYWORDS: [&str; 6] = [
    "patternProperties",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
];

fn object_members(
    o: &Map<String, Value>,
    n: &Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Vec<Widening>,
) {
    let closed =
        |m: &Map<String, Value>| m.get("additionalProperties") == Some(&Value::Bool(false));
    if closed(o) && !closed(n) {
        push(
            out,
            &pointer_push(path, "additionalProperties"),
            "additionalProperties is no longer false: undeclared arguments are accepted".into(),
        );
    }
    // One of these added, or changed, may widen what is accepted.
    for keyword in OPEN_MEMBER_KEYWORDS.into_iter().chain(["dependentSchemas"]) {
        if n.get(keyword).is_some() && o.get(keyword) != n.get(keyword) {
            push(
                out,
                &pointer_push(path, keyword),
                format!(
                    "{keyword} was added or changed: it may accept arguments the properties do not declare"
                ),
            );
        }
    }
    let props = |m: &Map<String, Value>| {
        m.get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (op, np) = (props(o), props(n));
    let required = |m: &Map<String, Value>| -> Vec<String> {
        m.get("required")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let props_path = pointer_push(path, "properties");
    for (name, schema) in &np {
        let at = pointer_push(&props_path, name);
        match op.get(name) {
            Some(old) => compare(old, schema, &at, depth + 1, out),
            // A new required property is a new required input, reported as such.
            None if !required(n).contains(name) => {
                push(
                    out,
                    &at,
                    format!("new optional property {name:?} is accepted"),
                );
            }
            None => {}
        }
    }
    let new_required = required(n);
    for name in required(o) {
        // Dropping a property together with its requirement from a closed schema
        // narrows: the name is no longer accepted at all.
        let accepted = np.contains_key(&name) || !closed(n);
        if accepted && !new_required.contains(&name) {
            push(
                out,
                &pointer_push(path, "required"),
                format!("{name:?} is no longer required"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn whats(old: &Value, new: &Value) -> Vec<String> {
        widenings(old, new, "")
            .into_iter()
            .map(|w| format!("{} {}", w.path, w.what))
            .collect()
    }

    #[test]
    fn widening_keywords() {
        let base = json!({"type": "object", "additionalProperties": false, "required": ["id"],
            "properties": {"id": {"type": "string", "maxLength": 10, "pattern": "^[a-z]+$"},
                           "n": {"type": "integer", "minimum": 1, "maximum": 5},
                           "mode": {"enum": ["a", "b"]}}});
        assert!(whats(&base, &base).is_empty());
        let mut wider = base.clone();
        wider["additionalProperties"] = json!(true);
        wider["required"] = json!([]);
        wider["properties"]["id"]["maxLength"] = json!(100);
        wider["properties"]["id"]
            .as_object_mut()
            .unwrap()
            .remove("pattern");
        wider["properties"]["n"]["type"] = json!(["integer", "string"]);
        wider["properties"]["n"]["minimum"] = json!(0);
        wider["properties"]["mode"]["enum"] = json!(["a", "b", "c"]);
        wider["properties"]["extra"] = json!({"type": "string"});
        wider["patternProperties"] = json!({"^": {}});
        let got = whats(&base, &wider);
        for needle in [
            "/additionalProperties",
            "\"id\" is no longer required",
            "/properties/id/maxLength",
            "/properties/id/pattern",
            "/properties/n/type",
            "/properties/n/minimum",
            "/properties/mode/enum",
            "new optional property \"extra\"",
            "/patternProperties",
        ] {
            assert!(got.iter().any(|g| g.contains(needle)), "{needle}: {got:#?}");
        }
        // Narrowing is not widening.
        let mut narrower = base.clone();
        narrower["properties"]["id"]["maxLength"] = json!(5);
        narrower["required"] = json!(["id", "n"]);
        narrower["properties"]["n"]["type"] = json!("integer");
        assert!(whats(&base, &narrower).is_empty());
    }
}
