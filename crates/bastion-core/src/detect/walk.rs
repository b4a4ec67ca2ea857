//! Walks a descriptor and visits every string: each string value and each object member
//! name, recursively (input/output schema property names, enum values, defaults, titles,
//! examples, `$comment`, annotations, `_meta`, icons), with its JSON Pointer and the role
//! the string plays.

use crate::finding::pointer_push;
use serde_json::Value;

/// What a visited string is, by its position in the descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// An object member name (property names included).
    MemberName,
    /// A `name` value.
    Name,
    /// A `title` value.
    Title,
    /// A `description` value, or the server instructions text.
    Description,
    /// An element of an `enum` array.
    EnumValue,
    /// A `default` or `const` value.
    Default,
    /// An `examples` element or `example` value.
    Example,
    /// Anything below a `_meta` member.
    Meta,
    /// Any other string.
    Other,
}

/// One visited string.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Visit<'a> {
    /// The string.
    pub text: &'a str,
    /// JSON Pointer of the string (for member names: of the member's value).
    pub path: &'a str,
    /// Its role.
    pub role: Role,
}

/// Deepest nesting walked; the strict parser refuses deeper input long before this.
const MAX_DEPTH: usize = 128;

/// Calls `visit` for every string value and member name below `value` (at `path`).
pub(crate) fn walk(value: &Value, path: &str, visit: &mut impl FnMut(Visit<'_>)) {
    walk_inner(value, path, None, false, 0, visit);
}

fn walk_inner(
    value: &Value,
    path: &str,
    key: Option<&str>,
    in_meta: bool,
    depth: usize,
    visit: &mut impl FnMut(Visit<'_>),
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::String(text) => {
            let role = if in_meta {
                Role::Meta
            } else {
                match key {
                    Some("name") => Role::Name,
                    Some("title") => Role::Title,
                    Some("description") => Role::Description,
                    Some("enum") => Role::EnumValue,
                    Some("default" | "const") => Role::Default,
                    Some("examples" | "example") => Role::Example,
                    None if depth == 0 => Role::Description,
                    _ => Role::Other,
                }
            };
            visit(Visit { text, path, role });
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let child = pointer_push(path, &i.to_string());
                // Array elements inherit the array's key: enum[2] is an enum value.
                walk_inner(item, &child, key, in_meta, depth + 1, visit);
            }
        }
        Value::Object(members) => {
            for (name, member) in members {
                let child = pointer_push(path, name);
                let role = if in_meta {
                    Role::Meta
                } else {
                    Role::MemberName
                };
                visit(Visit {
                    text: name,
                    path: &child,
                    role,
                });
                // Below "properties" the member names are property names, not keywords.
                let child_key = if key == Some("properties") {
                    None
                } else {
                    Some(name.as_str())
                };
                walk_inner(
                    member,
                    &child,
                    child_key,
                    in_meta || name == "_meta",
                    depth + 1,
                    visit,
                );
            }
        }
        _ => {}
    }
}

/// A short human label for the field at `path` below `base`: `description`,
/// `inputSchema.properties.region.enum[2]`; `whole` when `path` is `base` itself.
pub(crate) fn field_label(base: &str, path: &str, whole: &str) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    let mut out = String::new();
    for token in rel.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&token);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        }
    }
    if out.is_empty() {
        whole.to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visits_every_string_with_pointer_and_role() {
        let d = json!({
            "name": "t",
            "inputSchema": {"properties": {"a/b": {"enum": ["x"], "default": "d", "description": "p"}}},
            "_meta": {"k": "v"},
            "n": 1
        });
        let mut seen = Vec::new();
        walk(&d, "/tools/0", &mut |v| {
            seen.push((v.text.to_owned(), v.path.to_owned(), v.role));
        });
        let want = [
            ("name", "/tools/0/name", Role::MemberName),
            ("t", "/tools/0/name", Role::Name),
            (
                "a/b",
                "/tools/0/inputSchema/properties/a~1b",
                Role::MemberName,
            ),
            (
                "x",
                "/tools/0/inputSchema/properties/a~1b/enum/0",
                Role::EnumValue,
            ),
            (
                "d",
                "/tools/0/inputSchema/properties/a~1b/default",
                Role::Default,
            ),
            (
                "p",
                "/tools/0/inputSchema/properties/a~1b/description",
                Role::Description,
            ),
            ("_meta", "/tools/0/_meta", Role::MemberName),
            ("k", "/tools/0/_meta/k", Role::Meta),
            ("v", "/tools/0/_meta/k", Role::Meta),
        ];
        for (text, path, role) in want {
            assert!(
                seen.iter()
                    .any(|(t, p, r)| t == text && p == path && *r == role),
                "{text} {path} {role:?} not in {seen:?}"
            );
        }
        assert_eq!(seen.len(), 15);
    }

    #[test]
    fn property_named_like_a_keyword_is_a_member_name() {
        let d = json!({"properties": {"description": {"type": "string"}}});
        let mut roles = Vec::new();
        walk(&d, "", &mut |v| roles.push((v.text.to_owned(), v.role)));
        assert!(roles.contains(&("string".to_owned(), Role::Other)));
    }

    #[test]
    fn labels() {
        assert_eq!(field_label("/t", "/t/description", "x"), "description");
        assert_eq!(
            field_label("", "/inputSchema/properties/region/enum/2", "x"),
            "inputSchema.properties.region.enum[2]"
        );
        assert_eq!(
            field_label("/t", "/t", "server instructions"),
            "server instructions"
        );
        assert_eq!(field_label("", "/a~1b", "x"), "a/b");
    }
}
