//! Terminal control sequences and control characters, removed with a real VT parser.
//!
//! Text is run through [`vte::Parser`] (Paul Williams' DEC ANSI parser state machine, the
//! one Alacritty uses) with a [`vte::Perform`] that keeps only what a terminal would print
//! plus TAB, LF and CR. Everything else goes: CSI, OSC (the OSC 8 hyperlink target and
//! OSC 52 clipboard payload with it; the OSC 8 link label is ordinary printed text and
//! stays), DCS/SOS/PM/APC strings with their payload, other ESC sequences (ECMA-48 §5.3),
//! BEL, backspace and every other C0/C1 control and DEL.
//!
//! vte parses 7-bit sequences only: in UTF-8 input an 8-bit C1 control (U+0080..U+009F,
//! bytes `C2 80..C2 9F`) is merely "executed" in the ground state and ignored inside a
//! sequence, so the payload after U+009D (OSC) or U+009B (CSI) would be printed. ECMA-48
//! §5.3 defines each C1 control as equivalent to `ESC Fe` (Fe = C1 − 0x40), so the
//! sequence introducers and the string terminator (U+0090 DCS, U+0098 SOS, U+009B CSI,
//! U+009C ST, U+009D OSC, U+009E PM, U+009F APC) are fed to vte in their 7-bit form and
//! removed together with the payload they introduce. The other C1 controls are removed
//! as single characters.
//!
//! An unterminated string (OSC, DCS, SOS/PM/APC) swallows the rest of the text, as it
//! would in a terminal.

use super::text::TextOutcome;
use crate::finding::Code;
use std::borrow::Cow;

/// Collects what a terminal would print.
struct Printable<'o> {
    out: &'o mut String,
    /// Characters written to `out`.
    kept: usize,
    /// Control characters removed one by one (not as part of a sequence).
    controls: usize,
}

impl vte::Perform for Printable<'_> {
    fn print(&mut self, c: char) {
        // vte prints DEL in the ground state.
        if c == '\u{7F}' {
            self.controls += 1;
        } else {
            self.out.push(c);
            self.kept += 1;
        }
    }

    fn execute(&mut self, byte: u8) {
        if matches!(byte, b'\t' | b'\n' | b'\r') {
            self.out.push(char::from(byte));
            self.kept += 1;
        } else {
            self.controls += 1;
        }
    }

    // csi_dispatch, esc_dispatch, osc_dispatch, hook/put/unhook: the sequence and its
    // payload are dropped (the default no-op implementations).
}

/// Whether `text` holds anything [`strip_terminal`] removes: a byte below 0x20 other
/// than TAB/LF/CR, DEL, or a C1 control (UTF-8 `C2 80..C2 9F`).
pub(crate) fn has_controls(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(off) = bytes[from..]
        .iter()
        .position(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7F || b == 0xC2)
    {
        let at = from + off;
        if bytes[at] != 0xC2 || matches!(bytes.get(at + 1), Some(0x80..=0x9F)) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Removes terminal control sequences and C0/C1 controls except TAB, LF and CR (module
/// docs). `codes` holds `terminal_escape` when a sequence was removed and
/// `control_character` when a lone control was; `removed` counts removed characters
/// (Unicode scalar values). Hidden Unicode (bidi, zero-width, tags) is left to
/// [`crate::unicode::strip_hidden`]; [`super::text::sanitize_text`] does both.
/// Returns `Cow::Borrowed` without running the parser when there is no control.
pub fn strip_terminal(text: &str) -> TextOutcome<'_> {
    if !has_controls(text) {
        return TextOutcome {
            text: Cow::Borrowed(text),
            removed: 0,
            codes: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut sink = Printable {
        out: &mut out,
        kept: 0,
        controls: 0,
    };
    let mut parser = vte::Parser::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    let mut scan = 0;
    while let Some(off) = memchr::memchr(0xC2, &bytes[scan..]) {
        let at = scan + off;
        scan = at + 1;
        let Some(&c1) = bytes.get(at + 1) else { break };
        if matches!(c1, 0x90 | 0x98 | 0x9B | 0x9C | 0x9D | 0x9E | 0x9F) {
            parser.advance(&mut sink, &bytes[from..at]);
            parser.advance(&mut sink, &[0x1B, c1 - 0x40]);
            from = at + 2;
            scan = from;
        }
    }
    parser.advance(&mut sink, &bytes[from..]);
    let Printable { kept, controls, .. } = sink;
    let removed = text.chars().count().saturating_sub(kept);
    let mut codes = Vec::with_capacity(2);
    // Every removed character that was not a lone control belonged to a sequence.
    if removed > controls {
        codes.push(Code::TerminalEscape);
    }
    if controls > 0 {
        codes.push(Code::ControlCharacter);
    }
    TextOutcome {
        text: Cow::Owned(out),
        removed,
        codes,
    }
}
