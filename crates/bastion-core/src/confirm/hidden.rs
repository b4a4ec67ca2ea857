//! Hidden characters in a call (issue 5 §1): every member name and string value of the
//! arguments, and the called tool name, scanned with [`crate::unicode::scan_hidden`]
//! (bidi, zero-width, tag, invisible format, variation selectors, private use, controls;
//! legitimate emoji, Indic and Arabic-script joins pass). Findings are downgraded to
//! `warn`: they make the call ask, and the confirmation view shows the characters as
//! escaped code points.

use super::decide::ARGUMENTS_PATH;
use crate::finding::{Finding, Severity, pointer_push};
use serde_json::{Map, Value};

/// Hidden-character findings (downgraded to `warn`: they ask, the view shows them
/// escaped) for every member name and string value of `arguments`.
pub(crate) fn hidden_in_arguments(arguments: &Map<String, Value>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, &Value)> = arguments
        .iter()
        .rev()
        .map(|(k, v)| {
            let path = pointer_push(ARGUMENTS_PATH, k);
            scan(k, &path, "argument name", &mut out);
            (path, v)
        })
        .collect();
    while let Some((path, value)) = stack.pop() {
        match value {
            Value::String(s) => scan(s, &path, "argument value", &mut out),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((pointer_push(&path, &i.to_string()), item));
                }
            }
            Value::Object(map) => {
                for (k, v) in map.iter().rev() {
                    let p = pointer_push(&path, k);
                    scan(k, &p, "argument name", &mut out);
                    stack.push((p, v));
                }
            }
            _ => {}
        }
    }
    out
}

pub(crate) fn scan(text: &str, path: &str, what: &str, out: &mut Vec<Finding>) {
    if text.is_ascii()
        && !text
            .bytes()
            .any(|b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r') || b == 0x7f)
    {
        return;
    }
    let start = out.len();
    crate::unicode::scan_hidden(text, path, out);
    for f in &mut out[start..] {
        f.severity = Severity::Warn;
        f.message = format!(
            "{what} holds characters the user would not see: {}; the confirmation shows them as escaped code points.",
            f.message
        );
    }
}
