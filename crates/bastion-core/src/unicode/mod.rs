//! Hidden and deceptive Unicode: classification per character class (not per script),
//! so legitimate text in any script stays allowed.
//!
//! OWNER: helper "unicode+terminal". API contract (keep these signatures):

use crate::finding::Finding;
use std::borrow::Cow;

/// Escapes every invisible, control, bidi, tag, private-use and variation-selector
/// character of `s` as `<U+XXXX>` so a user sees exactly what is there.
pub fn escape_for_display(s: &str) -> Cow<'_, str> {
    todo!("{s}")
}

/// Appends descriptor-baseline findings for hidden characters in `text` (found at JSON
/// Pointer `path`) to `findings`.
pub fn scan_hidden(text: &str, path: &str, findings: &mut Vec<Finding>) {
    todo!("{text}{path}{}", findings.len())
}

/// Removes hidden characters (tag, bidi, zero-width outside legitimate joins, other
/// invisible format, private use, variation-selector runs); returns the text and how
/// many characters went.
pub fn strip_hidden(text: &str) -> (Cow<'_, str>, usize) {
    todo!("{text}")
}
