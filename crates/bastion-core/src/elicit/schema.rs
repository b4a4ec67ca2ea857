//! `requestedSchema` of a form-mode elicitation: the flat object of primitive kinds that
//! MCP 2025-11-25 "Elicitation §Requested Schema" allows, within [`FormLimits`].
//!
//! Allowed property definitions (schema.ts `PrimitiveSchemaDefinition`):
//! * string: `type`, `title`, `description`, `minLength`, `maxLength`, `format`
//!   (`email`, `uri`, `date`, `date-time`), `default`;
//! * number / integer: `type`, `title`, `description`, `minimum`, `maximum`, `default`;
//! * boolean: `type`, `title`, `description`, `default`;
//! * single-select enum: string with `enum` (optional legacy `enumNames`) or `oneOf` of
//!   `{const, title}`;
//! * multi-select enum: `type: "array"`, `minItems`, `maxItems`, `items` either
//!   `{type: "string", enum}` or `{anyOf | oneOf: [{const, title}]}`.
//!
//! The root holds `type: "object"`, `properties`, optional `required`, `title`,
//! `description`, `$schema`. Anything else (nested objects, `$ref`, `allOf`,
//! `additionalProperties`, `pattern`, an unknown `format`, ...) changes what the form
//! means or how it validates and is refused (`elicitation_schema_refused`, high).
//! Members starting with `x-` are vendor annotations and ignored.

use crate::finding::{Code, Finding, Severity, pointer_push};
use serde_json::{Map, Value};

pub use super::form::{FieldKind, FormField, FormLimits, FormSchema, TextFormat};

struct Ctx<'a> {
    limits: &'a FormLimits,
    findings: Vec<Finding>,
}

impl Ctx<'_> {
    fn refuse(&mut self, path: &str, why: impl std::fmt::Display) {
        self.findings.push(Finding::new(
            Code::ElicitationSchemaRefused,
            Severity::High,
            path,
            format!("the form's requestedSchema is refused: {why}"),
        ));
    }

    fn only_keys(&mut self, obj: &Map<String, Value>, allowed: &[&str], path: &str) {
        for key in obj.keys() {
            if !allowed.contains(&key.as_str()) && !key.starts_with("x-") {
                self.refuse(
                    &pointer_push(path, key),
                    format!(
                        "`{}` is not allowed here (flat primitive fields only)",
                        shown(key)
                    ),
                );
            }
        }
    }

    fn label(&mut self, obj: &Map<String, Value>, key: &str, path: &str) {
        match obj.get(key) {
            None => {}
            Some(Value::String(s)) if s.chars().count() <= self.limits.max_label_chars => {}
            Some(Value::String(_)) => self.refuse(
                &pointer_push(path, key),
                format!(
                    "`{key}` is longer than {} characters",
                    self.limits.max_label_chars
                ),
            ),
            Some(_) => self.refuse(
                &pointer_push(path, key),
                format!("`{key}` must be a string"),
            ),
        }
    }

    fn count(&mut self, obj: &Map<String, Value>, key: &str, path: &str) -> Option<u64> {
        let v = obj.get(key)?;
        let n = v.as_u64();
        if n.is_none() {
            self.refuse(
                &pointer_push(path, key),
                format!("`{key}` must be a non-negative integer"),
            );
        }
        n
    }

    fn number(&mut self, obj: &Map<String, Value>, key: &str, path: &str) -> Option<f64> {
        let v = obj.get(key)?;
        let n = v.as_f64();
        if n.is_none() {
            self.refuse(
                &pointer_push(path, key),
                format!("`{key}` must be a number"),
            );
        }
        n
    }

    fn choices(&mut self, v: Option<&Value>, path: &str, titled: bool) -> Vec<String> {
        let Some(items) = v.and_then(Value::as_array) else {
            self.refuse(path, "the choices must be an array".to_owned());
            return Vec::new();
        };
        if items.is_empty() || items.len() > self.limits.max_choices {
            self.refuse(
                path,
                format!(
                    "an enum needs 1 to {} choices, not {}",
                    self.limits.max_choices,
                    items.len()
                ),
            );
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = pointer_push(path, &i.to_string());
            let value = if titled {
                match item.as_object() {
                    Some(o) => {
                        self.only_keys(o, &["const", "title"], &at);
                        self.label(o, "title", &at);
                        o.get("const").and_then(Value::as_str)
                    }
                    None => None,
                }
            } else {
                item.as_str()
            };
            match value {
                Some(s) if s.chars().count() <= self.limits.max_label_chars => out.push(s.to_owned()),
                _ => self.refuse(&at, "each choice must be a string (titled: `{const, title}`) within the label limit".to_owned()),
            }
        }
        out
    }
}

fn shown(s: &str) -> String {
    crate::unicode::escape_for_display(s)
        .chars()
        .take(80)
        .collect()
}

/// Validates `schema` (the `requestedSchema` of a form elicitation, at `path`) and
/// returns the parsed [`FormSchema`] with the refusals (`elicitation_schema_refused`,
/// high). The schema is usable only when the finding list is empty.
pub fn parse_form(schema: &Value, limits: &FormLimits, path: &str) -> (FormSchema, Vec<Finding>) {
    let mut cx = Ctx {
        limits,
        findings: Vec::new(),
    };
    let mut form = FormSchema::default();
    let Some(root) = schema.as_object() else {
        cx.refuse(path, "it must be a JSON object".to_owned());
        return (form, cx.findings);
    };
    let bytes = serde_json::to_vec(schema).map_or(usize::MAX, |v| v.len());
    if bytes > limits.max_schema_bytes {
        cx.refuse(
            path,
            format!(
                "it is {bytes} bytes, over the limit of {}",
                limits.max_schema_bytes
            ),
        );
        return (form, cx.findings);
    }
    cx.only_keys(
        root,
        &[
            "$schema",
            "type",
            "properties",
            "required",
            "title",
            "description",
        ],
        path,
    );
    cx.label(root, "title", path);
    cx.label(root, "description", path);
    if root.get("type").and_then(Value::as_str) != Some("object") {
        cx.refuse(
            &pointer_push(path, "type"),
            "`type` must be \"object\"".to_owned(),
        );
    }
    let props_path = pointer_push(path, "properties");
    let Some(props) = root.get("properties").and_then(Value::as_object) else {
        cx.refuse(&props_path, "`properties` must be an object".to_owned());
        return (form, cx.findings);
    };
    if props.len() > limits.max_properties {
        cx.refuse(
            &props_path,
            format!(
                "{} properties, over the limit of {}",
                props.len(),
                limits.max_properties
            ),
        );
        return (form, cx.findings);
    }
    for (name, def) in props {
        let at = pointer_push(&props_path, name);
        if name.is_empty() || name.chars().count() > 128 || name.chars().any(char::is_control) {
            cx.refuse(
                &at,
                "a property name must be 1 to 128 characters without controls".to_owned(),
            );
        }
        if let Some(kind) = field(&mut cx, def, &at) {
            form.fields.push(FormField {
                name: name.clone(),
                kind,
            });
        }
    }
    if let Some(req) = root.get("required") {
        let at = pointer_push(path, "required");
        match req.as_array() {
            Some(names) => {
                for (i, n) in names.iter().enumerate() {
                    match n.as_str() {
                        Some(s) if props.contains_key(s) => form.required.push(s.to_owned()),
                        _ => cx.refuse(
                            &pointer_push(&at, &i.to_string()),
                            "`required` may only name properties of the form".to_owned(),
                        ),
                    }
                }
            }
            None => cx.refuse(&at, "`required` must be an array of names".to_owned()),
        }
    }
    (form, cx.findings)
}

fn field(cx: &mut Ctx<'_>, def: &Value, at: &str) -> Option<FieldKind> {
    let Some(obj) = def.as_object() else {
        cx.refuse(at, "a property definition must be an object".to_owned());
        return None;
    };
    cx.label(obj, "title", at);
    cx.label(obj, "description", at);
    let common = ["type", "title", "description", "default"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        common
            .iter()
            .copied()
            .chain(extra.iter().copied())
            .collect()
    };
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some("string") if obj.contains_key("enum") => {
            cx.only_keys(obj, &with(&["enum", "enumNames"]), at);
            let values = cx.choices(obj.get("enum"), &pointer_push(at, "enum"), false);
            if obj.contains_key("enumNames") {
                let names = cx.choices(obj.get("enumNames"), &pointer_push(at, "enumNames"), false);
                if names.len() != values.len() {
                    cx.refuse(
                        &pointer_push(at, "enumNames"),
                        "`enumNames` must label every `enum` value".to_owned(),
                    );
                }
            }
            FieldKind::SingleChoice { values }
        }
        Some("string") if obj.contains_key("oneOf") => {
            cx.only_keys(obj, &with(&["oneOf"]), at);
            FieldKind::SingleChoice {
                values: cx.choices(obj.get("oneOf"), &pointer_push(at, "oneOf"), true),
            }
        }
        Some("string") => {
            cx.only_keys(obj, &with(&["minLength", "maxLength", "format"]), at);
            let format = match obj.get("format") {
                None => None,
                Some(f) => match f.as_str() {
                    Some("email") => Some(TextFormat::Email),
                    Some("uri") => Some(TextFormat::Uri),
                    Some("date") => Some(TextFormat::Date),
                    Some("date-time") => Some(TextFormat::DateTime),
                    _ => {
                        cx.refuse(
                            &pointer_push(at, "format"),
                            format!(
                                "format `{}` is not one of email, uri, date, date-time",
                                shown(&f.to_string())
                            ),
                        );
                        None
                    }
                },
            };
            FieldKind::Text {
                min_len: cx.count(obj, "minLength", at),
                max_len: cx.count(obj, "maxLength", at),
                format,
            }
        }
        Some(t @ ("number" | "integer")) => {
            cx.only_keys(obj, &with(&["minimum", "maximum"]), at);
            FieldKind::Number {
                integer: t == "integer",
                minimum: cx.number(obj, "minimum", at),
                maximum: cx.number(obj, "maximum", at),
            }
        }
        Some("boolean") => {
            cx.only_keys(obj, &common, at);
            FieldKind::Boolean
        }
        Some("array") => {
            cx.only_keys(obj, &with(&["items", "minItems", "maxItems"]), at);
            let items_at = pointer_push(at, "items");
            let values = match obj.get("items").and_then(Value::as_object) {
                Some(items) if items.contains_key("enum") => {
                    cx.only_keys(items, &["type", "enum"], &items_at);
                    if items.get("type").and_then(Value::as_str) != Some("string") {
                        cx.refuse(&items_at, "multi-select items must be strings".to_owned());
                    }
                    cx.choices(items.get("enum"), &pointer_push(&items_at, "enum"), false)
                }
                Some(items) => {
                    let key = if items.contains_key("anyOf") {
                        "anyOf"
                    } else {
                        "oneOf"
                    };
                    cx.only_keys(items, &["anyOf", "oneOf", "type"], &items_at);
                    cx.choices(items.get(key), &pointer_push(&items_at, key), true)
                }
                None => {
                    cx.refuse(
                        &items_at,
                        "an array field needs `items` with the choices".to_owned(),
                    );
                    Vec::new()
                }
            };
            FieldKind::MultiChoice {
                values,
                min_items: cx.count(obj, "minItems", at),
                max_items: cx.count(obj, "maxItems", at),
            }
        }
        Some("object") => {
            cx.refuse(
                at,
                "nested objects are not allowed (the form must be flat)".to_owned(),
            );
            return None;
        }
        other => {
            cx.refuse(at, format!("type {} is not a form kind (string, number, integer, boolean, array of choices)", other.map_or_else(|| "(missing)".to_owned(), shown)));
            return None;
        }
    };
    Some(kind)
}
