//! Every string of a JSON value, member names included, through [`sanitize_text`]: the
//! catch-all for text that reaches the host outside the fields the result inspection
//! treats specially (`serverInfo`, `_meta`, `error.data`, completion values, sampling
//! messages, URIs and MIME types, ...; DESIGN §4 "Text that reaches the host contains no
//! terminal control sequences ...").

use super::text::sanitize_text;
use crate::finding::Code;
use serde_json::{Map, Value};

/// The member of a result whose string value is opaque to clients and must be relayed
/// unchanged (MCP 2026-07-28 `InputRequiredResult.requestState`: "Clients MUST NOT
/// inspect, parse, modify ..."). Only there: a member of that name anywhere else (a
/// content block, `_meta`, a notification's data) is text like any other.
const OPAQUE_STATE: &str = "requestState";

/// What [`sanitize_value`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueOutcome {
    /// Characters removed, over all strings and member names.
    pub removed: usize,
    /// Classes removed, each once.
    pub codes: Vec<Code>,
}

impl ValueOutcome {
    fn absorb(&mut self, removed: usize, codes: Vec<Code>) {
        self.removed += removed;
        for c in codes {
            if !self.codes.contains(&c) {
                self.codes.push(c);
            }
        }
    }
}

/// Sanitizes every string and member name in `value` in place; member order is kept.
/// A member name that had characters removed gets a visible `<removed>` suffix (once
/// more for each collision): cleaning must never turn a name into another one that
/// means something (`content` + U+E0001 becoming `content` after the result inspection
/// skipped it as unknown, or taking the place of the real `content`).
pub fn sanitize_value(value: &mut Value) -> ValueOutcome {
    let mut outcome = ValueOutcome::default();
    walk(value, &mut outcome, false);
    outcome
}

/// [`sanitize_value`] for a response's `result` object: the same, except that in an
/// `InputRequiredResult` (MCP 2026-07-28: `resultType` is `"input_required"`) a string
/// `requestState` member of `result` itself is relayed byte for byte. Every other
/// string is cleaned: a `requestState` deeper down, of another type, or in any other
/// result included.
pub fn sanitize_result(result: &mut Value) -> ValueOutcome {
    let exempt = result.get("resultType").and_then(Value::as_str) == Some("input_required");
    let mut outcome = ValueOutcome::default();
    walk(result, &mut outcome, exempt);
    outcome
}

/// Cleans `value`; `state_exempt`: `value` is a result, whose string `requestState`
/// member stays as it is.
fn walk(value: &mut Value, out: &mut ValueOutcome, state_exempt: bool) {
    match value {
        Value::String(s) => {
            let clean = sanitize_text(s);
            if clean.removed > 0 {
                let (text, removed, codes) = (clean.text.into_owned(), clean.removed, clean.codes);
                *s = text;
                out.absorb(removed, codes);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| walk(v, out, false)),
        Value::Object(map) => {
            let dirty_keys = map.keys().any(|k| sanitize_text(k).removed > 0);
            if dirty_keys {
                let old = std::mem::take(map);
                let mut fresh = Map::with_capacity(old.len());
                for (k, v) in old {
                    let clean = sanitize_text(&k);
                    let mut key = clean.text.into_owned();
                    if clean.removed > 0 {
                        key.push_str("<removed>");
                    }
                    out.absorb(clean.removed, clean.codes);
                    while fresh.contains_key(&key) {
                        key.push_str("<removed>");
                    }
                    fresh.insert(key, v);
                }
                *map = fresh;
            }
            for (k, v) in map.iter_mut() {
                if !(state_exempt && k == OPAQUE_STATE && v.is_string()) {
                    walk(v, out, false);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cleans_strings_and_names_everywhere_but_the_results_opaque_state() {
        let v = json!({
            "resultType": "input_required",
            "serverInfo": {"name": "ev\u{1b}[2Jil", "version": "1\u{202e}0"},
            "_meta": {"note\u{200b}": "x\u{9b}2Jy", "requestState": "m\u{1b}[2Jm"},
            "requestState": "opaque\u{1b}state",
            "content": [{"type": "text", "text": "t", "requestState": "c\u{1b}]52;c;eA==\u{7}c"}],
            "list": ["a\u{7}b", 3, null]
        });
        let mut result = v.clone();
        let o = sanitize_result(&mut result);
        assert_eq!(result["serverInfo"]["name"], "evil");
        assert_eq!(result["serverInfo"]["version"], "10");
        assert_eq!(result["_meta"]["note<removed>"], "xy");
        assert_eq!(result["requestState"], "opaque\u{1b}state");
        assert_eq!(result["_meta"]["requestState"], "mm");
        assert_eq!(result["content"][0]["requestState"], "cc");
        assert_eq!(result["list"][0], "ab");
        assert!(o.removed >= 5);
        assert!(o.codes.contains(&Code::TerminalEscape));
        // Anything that is not a result (a notification's params, error data) has no
        // opaque member at all.
        let mut other = v.clone();
        sanitize_value(&mut other);
        assert_eq!(
            other["requestState"], "opaquetate",
            "ESC s is one escape sequence"
        );
        // Nor has a result of another kind.
        let mut complete = v;
        complete["resultType"] = json!("complete");
        sanitize_result(&mut complete);
        assert_eq!(complete["requestState"], "opaquetate");
        let mut legacy = json!({"content": [], "requestState": "a\u{1b}[2Jb"});
        sanitize_result(&mut legacy);
        assert_eq!(legacy["requestState"], "ab");
        // Nor is a `requestState` that is not a string.
        let mut odd = json!({"resultType": "input_required", "requestState": {"x": "a\u{1b}[2Jb"}});
        sanitize_result(&mut odd);
        assert_eq!(odd["requestState"]["x"], "ab");
    }

    #[test]
    fn clean_values_are_untouched_and_key_order_is_kept() {
        let mut v = json!({"b": 1, "a\u{200b}": 2, "c": "Tōkyō 東京 👩‍💻"});
        let before: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        sanitize_value(&mut v);
        let after: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(before.len(), after.len());
        assert_eq!(after, ["b", "a<removed>", "c"]);
        assert_eq!(v["c"], "Tōkyō 東京 👩‍💻");
    }

    #[test]
    fn names_that_collide_after_cleaning_stay_apart() {
        let mut v = json!({"a": 1, "a\u{200b}": 2, "a\u{200c}": 3});
        sanitize_value(&mut v);
        assert_eq!(v["a"], 1);
        assert_eq!(v["a<removed>"], 2);
        assert_eq!(v["a<removed><removed>"], 3);
    }

    /// Found by the `result` fuzz target: `content` + U+E0001 is no member the result
    /// inspection knows, so its markup was not sanitized; cleaning the name must not
    /// turn it into `content` (or push the real `content` aside when it comes first).
    #[test]
    fn a_cleaned_name_never_becomes_a_protocol_member() {
        let mut v = json!({"content\u{e0001}": [{"type": "text", "text": "<javascript:x()>"}]});
        sanitize_value(&mut v);
        assert!(v.get("content").is_none(), "{v}");
        assert!(v.get("content<removed>").is_some(), "{v}");
        let mut v = json!({"content\u{200b}": "smuggled", "content": "real"});
        sanitize_value(&mut v);
        assert_eq!(v["content"], "real");
        assert_eq!(v["content<removed>"], "smuggled");
    }
}
