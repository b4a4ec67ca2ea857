//! The plain-text part of a result walk: the text sanitizer over structured data
//! (`structuredContent`, annotations, descriptions) and over the names quoted in markers,
//! with findings at their RFC 6901 JSON Pointers.

use super::walk::Walk;
use crate::finding::pointer_push_onto;
use crate::sanitize::sanitize_text;
use crate::sanitize::text::TextOutcome;
use serde_json::Value;
use std::fmt::Write as _;

impl Walk<'_> {
    /// Text sanitizer only, for structured data strings and names: every string in
    /// `value` (at JSON Pointer `path`), at any depth.
    pub(super) fn plain(&mut self, value: &Value, path: &str) {
        if self.only_injection {
            return;
        }
        if let Value::String(s) = value {
            self.plain_string(s, path);
            return;
        }
        // One buffer for the pointers of the whole tree: each member's token is pushed
        // before its value is walked and cut off after, so a large `structuredContent`
        // costs no allocation per value.
        let mut at = String::with_capacity(path.len() + 64);
        at.push_str(path);
        self.plain_tree(value, &mut at);
    }

    /// [`Walk::plain`] of `value` at pointer `path`, leaving `path` as it was.
    fn plain_tree(&mut self, value: &Value, path: &mut String) {
        match value {
            Value::String(s) => self.plain_string(s, path),
            Value::Array(items) => {
                let len = path.len();
                for (i, v) in items.iter().enumerate() {
                    let _ = write!(path, "/{i}");
                    self.plain_tree(v, path);
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                let len = path.len();
                for (k, v) in map {
                    pointer_push_onto(path, k);
                    self.plain_tree(v, path);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// Counts what the text sanitizer removed from a plain string or a name at `path`,
    /// with one finding per character class.
    fn removed_chars(&mut self, cleaned: &TextOutcome<'_>, path: &str) {
        self.count_removed(cleaned, path, |code| {
            format!("removed characters of class {code}")
        });
    }

    /// The text sanitizer on one string at pointer `path`.
    fn plain_string(&mut self, s: &str, path: &str) {
        let cleaned = sanitize_text(s);
        if cleaned.removed > 0 {
            self.removed_chars(&cleaned, path);
            self.edits
                .push((path.to_owned(), Value::String(cleaned.text.into_owned())));
        }
    }

    /// A server-chosen name as inert marker text: hidden characters removed (recorded at
    /// `path`), markdown punctuation escaped, whitespace collapsed.
    pub(super) fn label(&mut self, name: &str, path: &str) -> String {
        let cleaned = sanitize_text(name);
        if cleaned.removed > 0 {
            self.removed_chars(&cleaned, path);
        }
        crate::sanitize::markup::escape_inline(&cleaned.text)
    }
}
