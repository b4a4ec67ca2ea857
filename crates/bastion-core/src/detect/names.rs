//! Identifier checks on descriptor names.
//!
//! * Tool names must match `[A-Za-z0-9_.-]{1,128}` (MCP 2025-11-25, Server Features →
//!   Tools → "Tool names"), else `invalid_name` (high).
//! * Tool names, prompt names and prompt argument names that contain non-ASCII letters are
//!   checked with UTS #39: a mixed-script name (`verify_սser`, Latin + Armenian) is
//!   `mixed_script_identifier` (high); a name whose confusable prototype is a different
//!   pure-ASCII string (`рay_invoice` → `pay_invoice`) is `confusable_identifier` (high).
//! * Resource and resource-template `name`s are display names: any script is fine
//!   (`報告書.pdf`, `Отчёт.txt`). Only a word mixing scripts with look-alike letters, or a
//!   whole name that is a mixed-script look-alike of an ASCII name, is high; a name in one
//!   non-Latin script that reads as ASCII is a warning.
//! * Every such name, and every member name in the descriptor (schema property names
//!   included), holding a line or paragraph separator (U+2028/U+2029) or a braille blank
//!   (U+2800) is `invisible_format` (high): fine in prose, but in a one-line name they
//!   show as a line break or blank space ([`crate::unicode`] module docs).
//!
//! Look-alike names *across* the items of one list (`read_file` and `read_fiIe`) are
//! compared in [`crate::lists::inspect_list`].

use super::DescriptorKind;
use super::fold::ascii_prototype;
use crate::finding::{Code, Finding, Severity, pointer_push};
use crate::unicode::{MAX_NAME_SHOWN, escape_non_ascii, has_name_blank, scan_name_blanks};
use serde_json::Value;
use unicode_script::{Script, UnicodeScript};
use unicode_security::MixedScript;

/// Longest tool name (MCP 2025-11-25 §Tool names).
const MAX_TOOL_NAME: usize = 128;

/// Appends name findings for a descriptor of `kind` at `path`.
pub(crate) fn scan_names(
    kind: DescriptorKind,
    descriptor: &Value,
    path: &str,
    findings: &mut Vec<Finding>,
) {
    let name_path = pointer_push(path, "name");
    let name = descriptor.get("name").and_then(Value::as_str);
    let what = match kind {
        DescriptorKind::Tool => "tool name",
        DescriptorKind::Prompt => "prompt name",
        _ => "name",
    };
    if kind != DescriptorKind::ServerInstructions
        && let Some(n) = name
    {
        scan_name_blanks(n, what, &name_path, findings);
    }
    match kind {
        DescriptorKind::Tool => {
            match name {
                Some(n) if is_valid_tool_name(n) => {}
                Some(n) => findings.push(Finding::new(
                    Code::InvalidName,
                    Severity::High,
                    &name_path,
                    format!(
                        "tool name \"{}\" is not 1-128 characters of A-Z, a-z, 0-9, '_', '-', '.' (MCP tool naming); rename it.",
                        display(n)
                    ),
                )),
                None => findings.push(Finding::new(
                    Code::InvalidName,
                    Severity::High,
                    &name_path,
                    "the tool has no string name; a tool must be named with 1-128 characters of A-Z, a-z, 0-9, '_', '-', '.'.",
                )),
            }
            if let Some(n) = name {
                identifier(n, "tool name", &name_path, findings);
            }
        }
        DescriptorKind::Prompt => {
            if let Some(n) = name {
                identifier(n, "prompt name", &name_path, findings);
            }
            let args = descriptor
                .get("arguments")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for (i, arg) in args.iter().enumerate() {
                if let Some(n) = arg.get("name").and_then(Value::as_str) {
                    let p = pointer_push(
                        &pointer_push(&pointer_push(path, "arguments"), &i.to_string()),
                        "name",
                    );
                    identifier(n, "prompt argument name", &p, findings);
                    scan_name_blanks(n, "prompt argument name", &p, findings);
                }
            }
        }
        DescriptorKind::Resource | DescriptorKind::ResourceTemplate => {
            if let Some(n) = name {
                display_name(n, &name_path, findings);
            }
        }
        DescriptorKind::ServerInstructions => {}
    }
    member_names(descriptor, path, &mut Vec::new(), 0, findings);
}

/// One step of a JSON Pointer below the descriptor.
#[derive(Clone, Copy)]
enum Step<'a> {
    Member(&'a str),
    Index(usize),
}

/// Deepest nesting looked at (as in the descriptor walk).
const MAX_DEPTH: usize = 128;

/// [`scan_name_blanks`] on every object member name below `value`; the pointer of the
/// member (its value) is built only for a finding.
fn member_names<'a>(
    value: &'a Value,
    path: &str,
    steps: &mut Vec<Step<'a>>,
    depth: usize,
    findings: &mut Vec<Finding>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                steps.push(Step::Member(key));
                if has_name_blank(key) {
                    let mut pointer = path.to_owned();
                    for step in steps.iter() {
                        pointer = match step {
                            Step::Member(k) => pointer_push(&pointer, k),
                            Step::Index(i) => pointer_push(&pointer, &i.to_string()),
                        };
                    }
                    scan_name_blanks(key, "member name", &pointer, findings);
                }
                member_names(child, path, steps, depth + 1, findings);
                steps.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                steps.push(Step::Index(i));
                member_names(child, path, steps, depth + 1, findings);
                steps.pop();
            }
        }
        _ => {}
    }
}

/// `[A-Za-z0-9_.-]{1,128}`.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Strict identifier: any mixing of scripts or any ASCII look-alike is high.
fn identifier(name: &str, what: &str, path: &str, findings: &mut Vec<Finding>) {
    if name.is_ascii() {
        return;
    }
    if !name.is_single_script() {
        findings.push(Finding::new(
            Code::MixedScriptIdentifier,
            Severity::High,
            path,
            format!(
                "{what} \"{}\" mixes {} scripts (UTS #39) and can impersonate another name.",
                display(name),
                scripts(name)
            ),
        ));
    }
    if let Some(target) = lookalike(name) {
        findings.push(Finding::new(
            Code::ConfusableIdentifier,
            Severity::High,
            path,
            format!("{what} \"{}\" is a look-alike of \"{target}\" (UTS #39 confusable); do not trust it.", display(name)),
        ));
    }
}

/// Display name: other scripts are fine, look-alikes are not.
fn display_name(name: &str, path: &str, findings: &mut Vec<Finding>) {
    if name.is_ascii() {
        return;
    }
    let mixed_word = name.split(|c: char| !c.is_alphanumeric()).find(|w| {
        !w.is_ascii()
            && !w.is_single_script()
            && w.chars().any(|c| !c.is_ascii() && has_ascii_prototype(c))
    });
    if let Some(word) = mixed_word {
        findings.push(Finding::new(
            Code::MixedScriptIdentifier,
            Severity::High,
            path,
            format!(
                "name \"{}\" has a word mixing {} letters that look alike (UTS #39).",
                display(name),
                scripts(word)
            ),
        ));
    }
    if let Some(target) = lookalike(name) {
        let severity = if name.is_single_script() {
            Severity::Warn
        } else {
            Severity::High
        };
        findings.push(Finding::new(
            Code::ConfusableIdentifier,
            severity,
            path,
            format!(
                "name \"{}\" reads as the ASCII name \"{target}\" (UTS #39 confusable).",
                display(name)
            ),
        ));
    }
}

fn has_ascii_prototype(c: char) -> bool {
    let mut buf = [0u8; 4];
    ascii_prototype(c.encode_utf8(&mut buf)).is_some_and(|p| !p.is_empty())
}

/// The different pure-ASCII string `name` is confusable with, if any.
fn lookalike(name: &str) -> Option<String> {
    ascii_prototype(name).filter(|t| t != name && !t.is_empty())
}

/// The scripts of `s` (Common and Inherited left out), e.g. `Latin and Armenian`.
fn scripts(s: &str) -> String {
    let mut seen: Vec<Script> = Vec::new();
    for c in s.chars() {
        let sc = c.script();
        if !matches!(sc, Script::Common | Script::Inherited | Script::Unknown)
            && !seen.contains(&sc)
        {
            seen.push(sc);
        }
    }
    let names: Vec<&str> = seen.iter().map(|s| s.full_name()).collect();
    match names.as_slice() {
        [] => "no".to_owned(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The name with every non-ASCII or non-printable character shown as `<U+XXXX>`, clipped.
fn display(name: &str) -> String {
    escape_non_ascii(name, MAX_NAME_SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(kind: DescriptorKind, d: &Value) -> Vec<(Code, Severity)> {
        let mut f = Vec::new();
        scan_names(kind, d, "", &mut f);
        f.into_iter().map(|f| (f.code, f.severity)).collect()
    }

    #[test]
    fn tool_names() {
        use Code::{ConfusableIdentifier as C, InvalidName as I, MixedScriptIdentifier as M};
        use Severity::High as H;
        let table: &[(&str, &[(Code, Severity)])] = &[
            ("get-sum", &[]),
            ("a.b_c-1", &[]),
            ("verify_\u{57D}ser", &[(I, H), (M, H), (C, H)]),
            ("\u{440}ay_invoice", &[(I, H), (M, H), (C, H)]),
            ("\u{440}\u{430}\u{443}", &[(I, H), (C, H)]),
            ("\u{FF52}ead_file", &[(I, H), (C, H)]),
            ("has space", &[(I, H)]),
            ("", &[(I, H)]),
            ("\u{7FFB}\u{8A33}", &[(I, H)]),
        ];
        for (name, want) in table {
            assert_eq!(
                codes(DescriptorKind::Tool, &json!({"name": name})),
                want.to_vec(),
                "{name}"
            );
        }
        let long = "a".repeat(129);
        assert_eq!(
            codes(DescriptorKind::Tool, &json!({"name": long})),
            vec![(I, H)]
        );
        assert_eq!(
            codes(DescriptorKind::Tool, &json!({"title": "x"})),
            vec![(I, H)]
        );
    }

    #[test]
    fn prompt_names_and_arguments() {
        let d = json!({"name": "summ\u{430}rize", "arguments": [{"name": "t\u{435}xt"}, {"name": "\u{6587}\u{66F8}"}]});
        let mut f = Vec::new();
        scan_names(DescriptorKind::Prompt, &d, "/prompts/0", &mut f);
        let got: Vec<(Code, &str)> = f.iter().map(|f| (f.code, f.path.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (Code::MixedScriptIdentifier, "/prompts/0/name"),
                (Code::ConfusableIdentifier, "/prompts/0/name"),
                (Code::MixedScriptIdentifier, "/prompts/0/arguments/0/name"),
                (Code::ConfusableIdentifier, "/prompts/0/arguments/0/name"),
            ]
        );
        assert!(f[1].message.contains("\"summarize\""), "{}", f[1].message);
        assert!(
            f[0].message.contains("Latin and Cyrillic"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn resource_display_names() {
        let table: &[(&str, &[(Code, Severity)])] = &[
            ("\u{5831}\u{544A}\u{66F8}.pdf", &[]),
            ("\u{30EC}\u{30DD}\u{30FC}\u{30C8} report.txt", &[]),
            ("\u{41E}\u{442}\u{447}\u{451}\u{442}.txt", &[]),
            ("r\u{e9}sum\u{e9}.pdf", &[]),
            ("Dynamic Text Resource", &[]),
            (
                "r\u{435}p\u{43E}rt.txt",
                &[
                    (Code::MixedScriptIdentifier, Severity::High),
                    (Code::ConfusableIdentifier, Severity::High),
                ],
            ),
            (
                "\u{440}\u{435}\u{440}\u{43E}",
                &[(Code::ConfusableIdentifier, Severity::Warn)],
            ),
        ];
        for (name, want) in table {
            assert_eq!(
                codes(DescriptorKind::Resource, &json!({"name": name})),
                want.to_vec(),
                "{name}"
            );
            assert_eq!(
                codes(DescriptorKind::ResourceTemplate, &json!({"name": name})),
                want.to_vec(),
                "{name}"
            );
        }
    }

    #[test]
    fn line_separators_and_braille_blanks_in_names() {
        use Code::InvisibleFormat as F;
        let blank = |kind, d: &Value| -> Vec<String> {
            let mut f = Vec::new();
            scan_names(kind, d, "/d", &mut f);
            f.into_iter()
                .filter(|f| f.code == F)
                .map(|f| {
                    assert_eq!(f.severity, Severity::High);
                    f.path
                })
                .collect()
        };
        let resource = json!({"uri": "file:///r", "name": "Quarterly report\u{2028}(verified)"});
        assert_eq!(blank(DescriptorKind::Resource, &resource), ["/d/name"]);
        let prompt = json!({"name": "summarize\u{2800}", "arguments": [{"name": "text\u{2029}"}]});
        assert_eq!(
            blank(DescriptorKind::Prompt, &prompt),
            ["/d/name", "/d/arguments/0/name"]
        );
        let tool = json!({
            "name": "read\u{2800}file",
            "description": "Braille \u{2800}\u{2801} and a\u{2028}break in prose are fine.",
            "inputSchema": {"type": "object", "properties": {
                "path\u{2800}": {"type": "string"},
                "\u{8def}\u{5f84}": {"type": "string"},
                "nested": {"type": "array", "items": [{"properties": {"a\u{2028}": {}}}]}
            }}
        });
        assert_eq!(
            blank(DescriptorKind::Tool, &tool),
            [
                "/d/name",
                "/d/inputSchema/properties/path\u{2800}",
                "/d/inputSchema/properties/nested/items/0/properties/a\u{2028}"
            ]
        );
        // Prose and names in other scripts: nothing.
        let clean =
            json!({"name": "\u{5831}\u{544a}\u{66f8}.pdf", "description": "\u{2800}\u{2028}"});
        assert!(blank(DescriptorKind::Resource, &clean).is_empty());
    }

    #[test]
    fn messages_escape_non_ascii() {
        let mut f = Vec::new();
        scan_names(
            DescriptorKind::Tool,
            &json!({"name": "verify_\u{57D}ser"}),
            "",
            &mut f,
        );
        assert!(
            f[0].message.contains("verify_<U+057D>ser"),
            "{}",
            f[0].message
        );
        assert!(
            f[1].message.contains("Latin and Armenian"),
            "{}",
            f[1].message
        );
        assert!(f[2].message.contains("\"verify_user\""), "{}", f[2].message);
    }
}
