//! Shared property checks of the fuzz targets.

use bastion_core::unicode::strip_hidden;
use serde_json::Value;

/// Panics unless `text` is what may reach a host (DESIGN §4): no ESC or other C0 control
/// but TAB/LF/CR, no DEL or C1 control, and nothing [`strip_hidden`] removes (tag, bidi,
/// zero-width outside legitimate joins, invisible format, private use, noncharacters).
///
/// # Panics
/// On the first forbidden character, naming it and `context`.
pub fn assert_clean_text(text: &str, context: &str) {
    if let Some(c) = text.chars().find(|&c| {
        (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || ('\u{7f}'..='\u{9f}').contains(&c)
    }) {
        panic!(
            "control U+{:04X} left in {text:?} ({context})",
            u32::from(c)
        );
    }
    let (_, hidden) = strip_hidden(text);
    assert_eq!(hidden, 0, "hidden characters left in {text:?} ({context})");
}

/// Calls `f` on every string of `value` (member names included) with its JSON Pointer.
pub fn for_each_string(value: &Value, path: &str, f: &mut dyn FnMut(&str, &str)) {
    match value {
        Value::String(s) => f(s, path),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                for_each_string(item, &format!("{path}/{i}"), f);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                f(k, &here);
                for_each_string(v, &here, f);
            }
        }
        _ => {}
    }
}

/// The input as strict JSON (depth 64, the default `max_depth`), if it is.
pub fn json(data: &[u8]) -> Option<Value> {
    bastion_core::json::parse_value(data, 64).ok()
}

/// The input as text: UTF-8 with invalid sequences replaced (U+FFFD).
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// SHA-256 of `bytes`, lowercase hex (file names of seeds).
pub fn digest(bytes: &[u8]) -> String {
    bastion_core::pins::sha256_hex(bytes)
}
