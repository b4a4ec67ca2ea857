//! The contextual pass: turns [`Kind`]s into [`Class`] hits, keeping legitimate uses.
//!
//! Legitimate contexts, each from its standard:
//! - ZWJ between emoji (UTS #51 §2.3 emoji ZWJ sequences): the left side is
//!   `Extended_Pictographic`, an `Emoji_Modifier`, or an emoji followed by VS16; the right
//!   side is `Extended_Pictographic`.
//! - ZWJ or ZWNJ right after a virama (RFC 5892 Appendix A.1/A.2 rule 1), and ZWJ between
//!   a letter and a following virama (Bengali ya-phalaa after ra, Sinhala yansaya and
//!   touching letters; Unicode §12.2, §13.2).
//! - ZWNJ in a cursive joining context (RFC 5892 Appendix A.1 rule 2):
//!   `(Joining_Type:{L,D})(Joining_Type:T)* ZWNJ (Joining_Type:T)*(Joining_Type:{R,D})`,
//!   as in Persian and Urdu.
//! - One variation selector right after a base it is registered for
//!   ([`super::variation`]): VS15/VS16 after an `Emoji=Yes` character (a keycap base
//!   only inside a keycap sequence), VS1..VS14 in a standardized variation sequence,
//!   a Mongolian free variation selector after a Mongolian letter, an ideographic
//!   variation selector after a unified ideograph when the string's ideographic
//!   variation sequences are sparse. Two or more selectors in a row are a run and all of
//!   them count.
//! - Tag characters forming one of the RGI emoji subdivision flags (UTS #51 §2.2,
//!   Annex C): U+1F3F4 followed by the tags of `gbeng`, `gbsct` or `gbwls` and U+E007F.
//!   Any other tag payload, including one after U+1F3F4, is hidden text.

use super::Class;
use super::classes::{
    Kind, is_emoji, is_emoji_modifier, is_letter, is_pictographic, is_virama, joining_type, kind,
};
use super::variation::{Sequence, ivs_sparse, sequence};
use icu_properties::props::JoiningType;

/// U+1F3F4 WAVING BLACK FLAG, the base of emoji tag sequences.
const BLACK_FLAG: char = '\u{1F3F4}';
/// U+E007F CANCEL TAG, the terminator of emoji tag sequences.
const CANCEL_TAG: char = '\u{E007F}';
/// The RGI emoji subdivision flags (UTS #51 Annex C, `emoji-sequences.txt`
/// `RGI_Emoji_Tag_Sequence`), as the ASCII the tag characters spell.
const RGI_SUBDIVISIONS: [&str; 3] = ["gbeng", "gbsct", "gbwls"];

/// One character that belongs to a flagged class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Byte offset of the character in the text.
    pub(crate) start: usize,
    /// The character.
    pub(crate) ch: char,
    /// Its class in context.
    pub(crate) class: Class,
}

/// Calls `on_hit` for every character of `text` that belongs to a [`Class`] in its
/// context, in text order. With `layout` set, TAB/LF/CR count as [`Class::Control`]
/// too (for display escaping). Linear in the length of `text`.
pub(crate) fn walk(text: &str, layout: bool, mut on_hit: impl FnMut(Hit)) {
    let mut prev: Option<char> = None;
    let mut prev_kind = Kind::Plain;
    // The last two characters that were kept (no hit): what a joiner joins once the
    // removed characters are gone. Judging a ZWJ by a removed neighbour (an unassigned
    // pictographic code point) would leave it dangling in the output.
    let mut kept: Option<char> = None;
    let mut kept2: Option<char> = None;
    // Tag run being inside: end byte offset and whether it is an RGI subdivision flag.
    let mut tag_run_end = 0usize;
    let mut tag_run_legit = false;
    // Whether the ideographic variation sequences of `text` are sparse: computed at the
    // first one (one more pass over the text, once).
    let mut ivs_ok: Option<bool> = None;
    let bytes = text.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        // Runs of printable ASCII are plain and need no per-character work.
        let run = bytes[start..]
            .iter()
            .take_while(|b| matches!(b, 0x20..=0x7E))
            .count();
        if run > 0 {
            let end = start + run;
            kept2 = if run > 1 {
                Some(char::from(bytes[end - 2]))
            } else {
                kept
            };
            prev = Some(char::from(bytes[end - 1]));
            kept = prev;
            prev_kind = Kind::Plain;
            start = end;
            continue;
        }
        let Some(ch) = text[start..].chars().next() else {
            break;
        };
        let k = kind(ch);
        let after = start + ch.len_utf8();
        let class = match k {
            Kind::Plain => None,
            Kind::Layout => layout.then_some(Class::Control),
            Kind::Control => Some(Class::Control),
            Kind::C1Introducer => Some(Class::TerminalEscape),
            Kind::Escape => {
                // ECMA-48 §5.3: ESC followed by an intermediate (02/00..02/15) or final
                // (03/00..07/14) byte is an escape sequence.
                let starts_sequence = matches!(text.as_bytes().get(after), Some(0x20..=0x7E));
                Some(if starts_sequence {
                    Class::TerminalEscape
                } else {
                    Class::Control
                })
            }
            Kind::Tag => {
                if start >= tag_run_end {
                    (tag_run_end, tag_run_legit) = tag_run(text, start, prev);
                }
                (!tag_run_legit).then_some(Class::Tag)
            }
            Kind::Bidi => Some(Class::Bidi),
            Kind::ZeroWidth => Some(Class::ZeroWidth),
            Kind::Zwj => {
                // Both neighbours must stay: the next one is kept when it is plain.
                let next = text[after..]
                    .chars()
                    .next()
                    .filter(|n| kind(*n) == Kind::Plain);
                let legit = kept.is_some_and(is_virama)
                    || (kept.is_some_and(is_letter) && next.is_some_and(is_virama))
                    || emoji_join(kept, kept2, next);
                (!legit).then_some(Class::ZeroWidth)
            }
            Kind::Zwnj => {
                let legit =
                    kept.is_some_and(is_virama) || cursive_context(&text[..start], &text[after..]);
                (!legit).then_some(Class::ZeroWidth)
            }
            Kind::Selector => {
                let next = text[after..].chars().next();
                let legit = prev_kind != Kind::Selector
                    && !next.is_some_and(|n| kind(n) == Kind::Selector)
                    && prev.is_some_and(|b| match sequence(b, ch, next) {
                        Sequence::Registered => true,
                        Sequence::Ideographic => *ivs_ok.get_or_insert_with(|| ivs_sparse(text)),
                        Sequence::Unregistered => false,
                    });
                (!legit).then_some(Class::VariationSelectorRun)
            }
            Kind::Format => Some(Class::InvisibleFormat),
            Kind::PrivateUse => Some(Class::PrivateUse),
            Kind::Noncharacter => Some(Class::Noncharacter),
        };
        if let Some(class) = class {
            on_hit(Hit { start, ch, class });
        } else {
            kept2 = kept;
            kept = Some(ch);
        }
        prev = Some(ch);
        prev_kind = k;
        start = after;
    }
}

/// The tag run starting at byte `start`: it ends after the first CANCEL TAG or before
/// the first non-tag character. Returns its end and whether it is an RGI subdivision
/// flag (preceded by U+1F3F4, spelling one of [`RGI_SUBDIVISIONS`], cancel-terminated).
fn tag_run(text: &str, start: usize, before: Option<char>) -> (usize, bool) {
    let mut end = start;
    let mut spelled = [0u8; 5];
    let mut letters = 0usize;
    let mut valid_letters = true;
    let mut cancelled = false;
    for ch in text[start..].chars() {
        if kind(ch) != Kind::Tag {
            break;
        }
        end += ch.len_utf8();
        if ch == CANCEL_TAG {
            cancelled = true;
            break;
        }
        match u8::try_from(u32::from(ch) - 0xE0000) {
            Ok(b) if b.is_ascii_lowercase() && letters < spelled.len() => {
                spelled[letters] = b;
                letters += 1;
            }
            _ => valid_letters = false,
        }
    }
    let legit = before == Some(BLACK_FLAG)
        && cancelled
        && valid_letters
        && letters == spelled.len()
        && RGI_SUBDIVISIONS.iter().any(|s| s.as_bytes() == spelled);
    (end, legit)
}

/// UTS #51 emoji ZWJ element on both sides of a ZWJ.
fn emoji_join(prev: Option<char>, prev2: Option<char>, next: Option<char>) -> bool {
    let left = match prev {
        Some('\u{FE0F}') => prev2.is_some_and(is_emoji),
        Some(p) => is_pictographic(p) || is_emoji_modifier(p),
        None => false,
    };
    left && next.is_some_and(is_pictographic)
}

/// RFC 5892 Appendix A.1 rule 2: a left-joining or dual-joining character before the
/// ZWNJ and a right-joining or dual-joining one after it, transparent characters
/// (combining marks) skipped on both sides.
fn cursive_context(before: &str, after: &str) -> bool {
    let left = before
        .chars()
        .rev()
        .map(joining_type)
        .find(|t| *t != JoiningType::Transparent);
    let right = after
        .chars()
        .map(joining_type)
        .find(|t| *t != JoiningType::Transparent);
    matches!(
        left,
        Some(JoiningType::LeftJoining | JoiningType::DualJoining)
    ) && matches!(
        right,
        Some(JoiningType::RightJoining | JoiningType::DualJoining)
    )
}
