//! Hidden and deceptive Unicode: classification per character class (not per script),
//! so legitimate text in any script stays allowed.
//!
//! Every character falls in one class or none; whether a ZWJ, ZWNJ, variation selector
//! or tag character is hidden depends on its neighbours (see the table). Sources:
//! UAX #9 (bidi controls), UTS #39 §3 (identifier security), UTS #51 (emoji sequences),
//! RFC 5892 Appendix A (CONTEXTJ), ECMA-48 §5.3 and §8.3.89 (escape sequences, C1).
//!
//! | class ([`Code`]) | characters | severity | legitimate uses kept |
//! |---|---|---|---|
//! | `hidden_unicode_tag` | U+E0000..E007F | critical | RGI subdivision flags: U+1F3F4 + tags of `gbeng`/`gbsct`/`gbwls` + U+E007F |
//! | `bidi_control` | U+061C, U+200E/200F, U+202A..202E, U+2066..2069 | high | none |
//! | `zero_width` | U+200B, U+200C, U+200D, U+2060, U+FEFF, U+180E | high | ZWJ in emoji ZWJ sequences; ZWJ/ZWNJ after a virama; ZWNJ in Arabic-script joining context |
//! | `invisible_format` | other Cf and `Default_Ignorable_Code_Point`, Hangul fillers, U+FFF9..FFFB | high | prepended concatenation marks (visible) |
//! | `variation_selector_run` | U+FE00..FE0F, U+E0100..E01EF, Mongolian FVS | high | one selector in a registered sequence (`variation.rs`): VS15/VS16 after an emoji (keycap bases only in a keycap), VS1..VS14 in a `StandardizedVariants.txt` sequence, FVS after a Mongolian letter, IVS after a unified ideograph while IVS are sparse in the string |
//! | `private_use` | U+E000..F8FF, planes 15-16 | high | none |
//! | `noncharacter` | U+FDD0..FDEF, U+xFFFE/xFFFF, other unassigned code points (Cn) | warn | none |
//! | `control_character` | C0 except TAB/LF/CR, DEL, C1 | high | none |
//! | `terminal_escape` | ESC starting a sequence, 8-bit DCS/SOS/CSI/OSC/PM/APC | high | none |
//!
//! Regional-indicator flags, skin-tone modifiers and keycaps contain none of these
//! classes, or only in legitimate positions, and pass.
//!
//! Characters that are visible in prose but not in a name are checked only in names
//! ([`scan_name_blanks`], called by the descriptor name checks): U+2800 BRAILLE PATTERN
//! BLANK renders as an empty cell, a filler like U+3164, but is real braille in text;
//! U+2028/U+2029 (LINE/PARAGRAPH SEPARATOR, Zl/Zp) break the line in some hosts and
//! render as nothing or a box in others. In prose both stay (stripping them from a
//! single-line result field is left to the result sanitizers); in a one-line name they
//! make the name look like something else, so they are `invisible_format` (high) there.

mod classes;
mod variation;
mod walk;

#[cfg(test)]
mod tests;

use crate::finding::{Code, Finding, Severity};
use std::borrow::Cow;
use std::fmt::Write as _;

/// A hidden-character class; one finding code each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// Unicode tag characters outside an RGI subdivision flag.
    Tag,
    /// Bidi formatting characters.
    Bidi,
    /// Zero-width characters outside legitimate joins.
    ZeroWidth,
    /// Other invisible format characters and fillers.
    InvisibleFormat,
    /// Variation selectors outside registered sequences (runs included).
    VariationSelectorRun,
    /// Private-use code points.
    PrivateUse,
    /// Noncharacters and unassigned code points.
    Noncharacter,
    /// C0/C1 controls (and, for display only, TAB/LF/CR).
    Control,
    /// ESC or an 8-bit C1 introducer starting a terminal sequence.
    TerminalEscape,
}

impl Class {
    /// Every class, in finding order.
    const ALL: [Class; 9] = [
        Class::Tag,
        Class::TerminalEscape,
        Class::Control,
        Class::Bidi,
        Class::ZeroWidth,
        Class::InvisibleFormat,
        Class::VariationSelectorRun,
        Class::PrivateUse,
        Class::Noncharacter,
    ];

    /// The finding code.
    pub(crate) const fn code(self) -> Code {
        match self {
            Class::Tag => Code::HiddenUnicodeTag,
            Class::Bidi => Code::BidiControl,
            Class::ZeroWidth => Code::ZeroWidth,
            Class::InvisibleFormat => Code::InvisibleFormat,
            Class::VariationSelectorRun => Code::VariationSelectorRun,
            Class::PrivateUse => Code::PrivateUse,
            Class::Noncharacter => Code::Noncharacter,
            Class::Control => Code::ControlCharacter,
            Class::TerminalEscape => Code::TerminalEscape,
        }
    }

    /// Severity of the class in a descriptor (module table).
    const fn severity(self) -> Severity {
        match self {
            Class::Tag => Severity::Critical,
            Class::Noncharacter => Severity::Warn,
            _ => Severity::High,
        }
    }

    /// Whether [`strip_hidden`] removes this class (controls belong to the terminal
    /// sanitizer).
    const fn strippable(self) -> bool {
        !matches!(self, Class::Control | Class::TerminalEscape)
    }

    /// Bit for [`ClassSet`].
    const fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// What the characters are and do, for finding messages.
    const fn describe(self) -> &'static str {
        match self {
            Class::Tag => "Unicode tag characters hide ASCII text",
            Class::Bidi => "bidirectional control characters reorder the displayed text",
            Class::ZeroWidth => {
                "zero-width characters outside an emoji, virama or Arabic-script joining context hide or split text"
            }
            Class::InvisibleFormat => "invisible format or filler characters do not render",
            Class::VariationSelectorRun => {
                "variation selectors outside registered sequences (emoji, standardized, Mongolian or sparse ideographic variation sequences) can smuggle bytes"
            }
            Class::PrivateUse => {
                "private-use characters render unpredictably and can carry hidden data"
            }
            Class::Noncharacter => {
                "noncharacter and unassigned code points are not meant for interchange"
            }
            Class::Control => {
                "control characters other than TAB, LF and CR can rewrite what is shown"
            }
            Class::TerminalEscape => "terminal escape sequences rewrite what a terminal shows",
        }
    }
}

/// A set of [`Class`]es.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClassSet(u16);

impl ClassSet {
    /// Adds a class.
    pub(crate) fn insert(&mut self, class: Class) {
        self.0 |= class.bit();
    }

    /// The finding codes of the classes in the set, in [`Class::ALL`] order.
    pub(crate) fn codes(self) -> impl Iterator<Item = Code> {
        Class::ALL
            .into_iter()
            .filter(move |c| self.0 & c.bit() != 0)
            .map(Class::code)
    }
}

/// Escapes every character a user would not see as itself: all controls (including
/// TAB, LF and CR, so the result is one line), bidi, zero-width (outside legitimate
/// joins), tag (outside RGI subdivision flags), other invisible format, private-use,
/// noncharacter, unassigned and misplaced variation-selector characters of `s`, each as
/// `<U+XXXX>` (uppercase hex, at least four digits). Legitimate emoji, Indic and Arabic-script
/// joins stay as they are. Returns `Cow::Borrowed` when nothing needs escaping.
pub fn escape_for_display(s: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut last = 0;
    walk::walk(s, true, |hit| {
        let o = out.get_or_insert_with(|| String::with_capacity(s.len() + 16));
        o.push_str(&s[last..hit.start]);
        push_code_point(o, hit.ch);
        last = hit.start + hit.ch.len_utf8();
    });
    match out {
        None => Cow::Borrowed(s),
        Some(mut o) => {
            o.push_str(&s[last..]);
            Cow::Owned(o)
        }
    }
}

/// Appends `<U+XXXX>` for `ch`.
fn push_code_point(out: &mut String, ch: char) {
    // Writing to a String cannot fail.
    let _ = write!(out, "<U+{:04X}>", u32::from(ch));
}

/// Most distinct code points listed in one finding message.
const MAX_LISTED: usize = 8;
/// Most decoded tag characters shown in one finding message.
const MAX_PAYLOAD: usize = 256;

/// Per-class tally for [`scan_hidden`].
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    count: usize,
    listed: [u32; MAX_LISTED],
    distinct: usize,
    more: bool,
}

impl Tally {
    fn add(&mut self, ch: char) {
        self.count += 1;
        let cp = u32::from(ch);
        if self.listed[..self.distinct].contains(&cp) {
            return;
        }
        if self.distinct < MAX_LISTED {
            self.listed[self.distinct] = cp;
            self.distinct += 1;
        } else {
            self.more = true;
        }
    }

    /// Appends `<count> found (U+XXXX, ...)`.
    fn write_summary(&self, out: &mut String) {
        let _ = write!(out, "{} found (", self.count);
        for (i, cp) in self.listed[..self.distinct].iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "U+{cp:04X}");
        }
        if self.more {
            out.push_str(", ...");
        }
        out.push(')');
    }
}

/// Appends descriptor-baseline findings for hidden characters in `text` (found at JSON
/// Pointer `path`) to `findings`: at most one finding per class (see the module table
/// for classes, codes and severities), in the order tag, terminal escape, control, bidi,
/// zero-width, invisible format, variation selector, private use, noncharacter. Each
/// message reads `<what the class does>: <count> found (U+XXXX, ...)`, listing the
/// first eight distinct code points;
/// a `hidden_unicode_tag` message also shows the ASCII the tags spell (tags
/// U+E0020..E007E decode to U+0020..007E; the first 256 are shown). Legitimate joins,
/// variation selectors in registered sequences and RGI subdivision flags produce
/// nothing. Linear in the length of `text`; allocates only when something is found.
pub fn scan_hidden(text: &str, path: &str, findings: &mut Vec<Finding>) {
    let mut tallies = [Tally::default(); Class::ALL.len()];
    let mut payload = String::new();
    let mut payload_chars = 0usize;
    walk::walk(text, false, |hit| {
        tallies[hit.class as usize].add(hit.ch);
        if hit.class == Class::Tag
            && let Ok(ascii @ 0x20..=0x7E) = u8::try_from(u32::from(hit.ch) - 0xE0000)
        {
            if payload_chars < MAX_PAYLOAD {
                payload.push(char::from(ascii));
            }
            payload_chars += 1;
        }
    });
    for class in Class::ALL {
        let tally = &tallies[class as usize];
        if tally.count == 0 {
            continue;
        }
        let mut message = format!("{}: ", class.describe());
        tally.write_summary(&mut message);
        if class == Class::Tag && payload_chars > 0 {
            message.push_str("; decoded: \"");
            message.push_str(&payload);
            message.push('"');
            if payload_chars > MAX_PAYLOAD {
                let _ = write!(
                    message,
                    " (first {MAX_PAYLOAD} of {payload_chars} characters)"
                );
            }
        }
        findings.push(Finding::new(class.code(), class.severity(), path, message));
    }
}

/// Removes hidden characters (tag, bidi, zero-width outside legitimate joins, other
/// invisible format, private use, variation selectors outside registered sequences,
/// noncharacters and unassigned code points); returns the text and how many characters
/// (Unicode scalar values) went. C0/C1 controls and escape sequences are left to
/// [`crate::sanitize::terminal`]. Legitimate joins, flags and registered variation
/// sequences stay. Returns `Cow::Borrowed` when nothing was removed; allocates once,
/// at the first character to remove. Idempotent.
pub fn strip_hidden(text: &str) -> (Cow<'_, str>, usize) {
    let (out, removed, _) = strip_hidden_classes(text);
    (out, removed)
}

/// [`strip_hidden`] that also reports which classes were removed.
pub(crate) fn strip_hidden_classes(text: &str) -> (Cow<'_, str>, usize, ClassSet) {
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut removed = 0;
    let mut classes = ClassSet::default();
    walk::walk(text, false, |hit| {
        if !hit.class.strippable() {
            return;
        }
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[last..hit.start]);
        last = hit.start + hit.ch.len_utf8();
        removed += 1;
        classes.insert(hit.class);
    });
    match out {
        None => (Cow::Borrowed(text), 0, classes),
        Some(mut o) => {
            o.push_str(&text[last..]);
            (Cow::Owned(o), removed, classes)
        }
    }
}

/// Whether `c` shows as a line break or blank space rather than as itself, and so is
/// hidden in a name though fine in prose (module docs): U+2028 LINE SEPARATOR, U+2029
/// PARAGRAPH SEPARATOR, U+2800 BRAILLE PATTERN BLANK.
fn is_name_blank(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}' | '\u{2800}')
}

/// Whether `name` holds a character [`scan_name_blanks`] reports.
pub(crate) fn has_name_blank(name: &str) -> bool {
    !name.is_ascii() && name.chars().any(is_name_blank)
}

/// Appends an `invisible_format` (high) finding at `path` when the name `name` (`what`
/// says which: "prompt name", "member name", ...) holds a character that is fine in
/// prose but shows as a line break or blank space in a one-line name (module docs).
/// The classes of [`scan_hidden`] are not repeated here.
pub(crate) fn scan_name_blanks(name: &str, what: &str, path: &str, findings: &mut Vec<Finding>) {
    if !has_name_blank(name) {
        return;
    }
    let mut tally = Tally::default();
    for c in name.chars().filter(|c| is_name_blank(*c)) {
        tally.add(c);
    }
    let mut message = format!(
        "{what} \"{}\" holds line separators or blank braille cells, which show as a line break or as blank space, not as a name: ",
        escape_non_ascii(name, MAX_NAME_SHOWN)
    );
    tally.write_summary(&mut message);
    findings.push(Finding::new(
        Code::InvisibleFormat,
        Severity::High,
        path,
        message,
    ));
}

/// Most characters of a name shown in a finding message.
pub(crate) const MAX_NAME_SHOWN: usize = 140;

/// `s` for a finding message: printable ASCII as is, every other character as
/// `<U+XXXX>`, clipped to `max` characters (`…` marks the cut). Unlike
/// [`escape_for_display`] this also spells out visible non-ASCII letters, so a
/// look-alike (Cyrillic `р` for `p`) shows as what it is.
pub(crate) fn escape_non_ascii(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max));
    let mut chars = s.chars();
    for c in chars.by_ref().take(max) {
        if c.is_ascii_graphic() || c == ' ' {
            out.push(c);
        } else {
            push_code_point(&mut out, c);
        }
    }
    if chars.next().is_some() {
        out.push('…');
    }
    out
}
