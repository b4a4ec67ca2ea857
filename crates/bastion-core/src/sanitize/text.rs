//! OWNER: helper "unicode+terminal". API contract (keep these signatures):

use crate::finding::Code;
use std::borrow::Cow;

/// Result of [`sanitize_text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOutcome<'a> {
    /// The cleaned text (borrowed when nothing changed).
    pub text: Cow<'a, str>,
    /// How many characters were removed.
    pub removed: usize,
    /// Which classes were removed (each at most once), e.g. `terminal_escape`.
    pub codes: Vec<Code>,
}

/// Removes terminal control sequences, C0/C1 controls except TAB/LF/CR, and hidden
/// characters from result text.
pub fn sanitize_text(text: &str) -> TextOutcome<'_> {
    todo!("{text}")
}
