//! Text folding for phrase matching: one canonical form in which look-alike spellings of
//! the same words compare equal.
//!
//! Steps, in order: NFKC (fullwidth and compatibility forms become ASCII), full Unicode
//! case folding (`ß` → `ss`), canonical decomposition with every nonspacing/enclosing
//! mark and invisible format character dropped (accents, zero-width and tag characters,
//! variation selectors), typographic quotes and dashes mapped to ASCII, whitespace runs
//! collapsed (a run containing a line break becomes `\n`, any other run one space), and
//! finally, per word, the UTS #39 confusable prototype of each non-ASCII character: a word
//! whose every character has an ASCII prototype (Cyrillic `іgnоrе`) is replaced by that
//! ASCII word. Words in real non-Latin text keep their letters, because they contain
//! characters without an ASCII prototype.
//!
//! The folded text is only ever matched against patterns, never shown to anyone.
//!
//! # Whole-Cyrillic (and other non-Latin) words
//! The confusable step rewrites a word only when *every* non-ASCII character in it has an
//! ASCII prototype. That is what defeats `іgnоrе` spelled with Cyrillic letters, but it
//! applies to genuine words too: a pure Russian word made only of look-alike letters
//! (`а е о р с у х`, `г` → `r`, `б` → `6`) becomes ASCII (`его` → `ero`, `сор` → `cop`),
//! while a word with any other letter (`и л п в д т н к м …`) keeps its letters, lower
//! case and without marks (`й` → `и`, `ё` → `е`). The same holds for single Hangul
//! jamo and a few CJK characters (`〇` → `o`). Hangul syllables come out decomposed into
//! jamo (NFD), and Japanese voiced kana lose their voicing mark (`が` → `か`, `プ` → `フ`).
//!
//! Patterns for such scripts are therefore written in natural spelling and compiled
//! through [`fold_pattern`], which folds every non-ASCII run of a pattern exactly as the
//! text is folded and, where a run would be rewritten to ASCII, accepts both forms (the
//! run may stand in a text word with other letters that keep it unrewritten). Prefilter
//! anchors go through [`fold_anchor`] for the same reason.
//!
//! # Identifiers
//! [`identifier_words`] reads an identifier (`ignoreAllPreviousInstructions`,
//! `do_not_tell_the_user`, `read-ssh-key2`) as words, split at `_`, `-`, `.`, at
//! `camelCase` and `PascalCase` boundaries (`HTMLParser` → `HTML Parser`) and between letters
//! and digits. Descriptor member names and string values that are one identifier are
//! scanned in that form, so that no spelling of an identifier hides its words.
//!
//! # How it stays fast
//! The steps above are defined on the whole text, but all of them are local, so the
//! implementation only pays for Unicode where there is Unicode:
//! * ASCII is folded straight into the output buffer: NFKC, case folding and NFD map
//!   ASCII to (lowercase) ASCII one to one. Stretches of words separated by single
//!   spaces are found 32 bytes at a time, copied and lowercased in bulk; only other
//!   separator runs (line breaks, tabs, double spaces, controls) are handled one by one.
//! * Non-ASCII text is cut into *clusters* before every stable starter (a character with
//!   canonical combining class 0 and `NFKC_Quick_Check=Yes`, which never composes with
//!   what precedes it; every ASCII character is one). Normalization never reaches across
//!   such a cut, so each cluster is normalized, case folded and decomposed on its own.
//!   A cluster of one character that all three steps leave alone and that is neither a
//!   mark, a separator nor typographic punctuation (most CJK, Arabic, lowercase Cyrillic)
//!   is copied as is (runs of them at once). The per-character facts are computed once
//!   per process and cached; the folded form of a changing one-character cluster (`ü`,
//!   `Ж`, `が`) is cached per thread.
//! * A word is checked for an ASCII confusable prototype only when it holds non-ASCII
//!   characters, and rewritten only when every one of them has one (cached per
//!   character); no word is copied into a buffer of its own.
//!
//! A test compares this implementation with the straightforward whole-text one
//! (`reference_fold`) on random text rich in marks, compatibility forms and look-alikes.

use icu_casemap::CaseMapper;
use std::sync::atomic::{AtomicU8, Ordering};
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Folds `input` into the matching form described in the module docs.
pub(crate) fn fold(input: &str) -> String {
    let mut out = String::new();
    fold_into(input, &mut out);
    out
}

/// [`fold`] into `out` (cleared first), reusing its allocation.
pub(crate) fn fold_into(input: &str, out: &mut String) {
    out.clear();
    out.reserve(input.len());
    let mut f = Folder {
        out,
        pending: 0,
        word_start: 0,
        word_ascii: true,
        scratch: String::new(),
    };
    if input.is_ascii() {
        f.plain_ascii(input);
    } else {
        f.mixed(input);
    }
    f.flush_word();
}

/// The folding state machine: separators pending, and where the current word starts in
/// the output.
struct Folder<'a> {
    out: &'a mut String,
    /// 0 = no pending separator, 1 = space, 2 = line break.
    pending: u8,
    /// Byte offset in `out` of the word being built.
    word_start: usize,
    /// Whether the word being built is ASCII so far.
    word_ascii: bool,
    /// NFKC of one cluster.
    scratch: String,
}

/// ASCII bytes that separate words: controls, space and DEL.
const fn is_ascii_separator(b: u8) -> bool {
    b <= b' ' || b == 0x7F
}

/// Whether `b` followed by `next` starts a separator run that folding changes: a
/// control or DEL, or a space followed by another separator.
const fn is_irregular(b: u8, next: u8) -> bool {
    b < b' ' || b == 0x7F || (b == b' ' && is_ascii_separator(next))
}

/// The first index at or after `from` where the ASCII text stops folding to itself
/// (lowercase aside): an irregular separator run (see [`is_irregular`]), a final space,
/// or the end. Checks 32 bytes per step without branching so that it vectorizes.
fn irregular_from(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(w) = bytes.get(i..i + 33) {
        let mut any = 0u8;
        for k in 0..32 {
            let (b, next) = (w[k], w[k + 1]);
            any |= u8::from(b < b' ')
                | u8::from(b == 0x7F)
                | (u8::from(b == b' ') & (u8::from(next <= b' ') | u8::from(next == 0x7F)));
        }
        if any != 0 {
            break;
        }
        i += 32;
    }
    while i < bytes.len() {
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        if is_irregular(bytes[i], next) {
            return i;
        }
        i += 1;
    }
    i
}

impl Folder<'_> {
    /// A separator of `kind` (1 = space, 2 = line break) ends the current word.
    fn separator(&mut self, kind: u8) {
        self.flush_word();
        self.pending = self.pending.max(kind);
    }

    /// Called before a word character is appended: emits the pending separator.
    fn begin_word_char(&mut self) {
        if self.pending > 0 {
            if !self.out.is_empty() {
                self.out.push(if self.pending == 2 { '\n' } else { ' ' });
            }
            self.pending = 0;
            self.word_start = self.out.len();
        }
    }

    /// Ends the current word: a non-ASCII word whose every non-ASCII character has an
    /// ASCII confusable prototype is replaced by that prototype.
    fn flush_word(&mut self) {
        if self.word_ascii {
            return;
        }
        self.word_ascii = true;
        let word = &self.out[self.word_start..];
        if !word.chars().all(|c| c.is_ascii() || has_ascii_prototype(c)) {
            return;
        }
        if let Some(ascii) = ascii_prototype(word) {
            let ascii = ascii.to_ascii_lowercase();
            self.out.truncate(self.word_start);
            self.out.push_str(&ascii);
        }
    }

    /// Folds a whole text that is ASCII, from the initial state: stretches of words
    /// separated by single spaces are copied and lowercased in bulk; only longer
    /// separator runs, line breaks and controls are handled one by one.
    fn plain_ascii(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = bytes
            .iter()
            .position(|&b| !is_ascii_separator(b))
            .unwrap_or(bytes.len());
        while i < bytes.len() {
            let j = irregular_from(bytes, i);
            let start = self.out.len();
            self.out.push_str(&text[i..j]);
            self.out[start..].make_ascii_lowercase();
            let mut k = j;
            let mut line = false;
            while k < bytes.len() && is_ascii_separator(bytes[k]) {
                line |= bytes[k] == b'\n' || bytes[k] == b'\r';
                k += 1;
            }
            if k < bytes.len() {
                self.out.push(if line { '\n' } else { ' ' });
            }
            i = k;
        }
    }

    /// Folds ASCII in any state: lowercase, separator runs collapsed. Stretches of words
    /// separated by single spaces are copied in bulk; the first word may continue a word
    /// begun before, and the last one may be continued after.
    fn ascii(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if is_ascii_separator(b) {
                self.separator(if b == b'\n' || b == b'\r' { 2 } else { 1 });
                i += 1;
                continue;
            }
            // `i..j` is words separated by single spaces, starting and ending on a word.
            let j = irregular_from(bytes, i);
            self.begin_word_char();
            let region = &text[i..j];
            match memchr::memchr(b' ', region.as_bytes()) {
                None => self.push_lower(region),
                Some(first) => {
                    self.push_lower(&region[..first]);
                    self.flush_word();
                    let start = self.out.len();
                    self.push_lower(&region[first..]);
                    let last = memchr::memrchr(b' ', region.as_bytes()).unwrap_or(first);
                    self.word_start = start + (last - first) + 1;
                }
            }
            i = j;
        }
    }

    /// Appends ASCII lowercased.
    fn push_lower(&mut self, ascii: &str) {
        let start = self.out.len();
        self.out.push_str(ascii);
        self.out[start..].make_ascii_lowercase();
    }

    /// Folds text with non-ASCII characters, cluster by cluster (see the module docs).
    fn mixed(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii() {
                let run_end = bytes[i..]
                    .iter()
                    .position(|b| !b.is_ascii())
                    .map_or(bytes.len(), |p| i + p);
                // The last ASCII character joins the next cluster when what follows it
                // may combine with it (`e` + U+0301).
                let end = if cut_at(text, run_end) {
                    run_end
                } else {
                    run_end - 1
                };
                self.ascii(&text[i..end]);
                i = end;
                if end == run_end {
                    continue;
                }
            }
            // A run of inert characters, each followed by a cut, is copied as is.
            let mut j = i;
            while let Some(c) = text[j..].chars().next()
                && !c.is_ascii()
                && class(c) == INERT
                && cut_at(text, j + c.len_utf8())
            {
                j += c.len_utf8();
            }
            if j > i {
                self.begin_word_char();
                self.word_ascii = false;
                self.out.push_str(&text[i..j]);
                i = j;
                continue;
            }
            let start = i;
            let mut chars = text[i..].chars();
            let first = chars.next().unwrap_or_default();
            i += first.len_utf8();
            for c in chars {
                if is_cut(c) {
                    break;
                }
                i += c.len_utf8();
            }
            self.cluster(&text[start..i]);
        }
    }

    /// The full treatment of one cluster: NFKC, case folding, NFD, then per character.
    /// Single characters are looked up in (and added to) a per-thread cache.
    fn cluster(&mut self, cluster: &str) {
        let mut chars = cluster.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            let cached = SINGLE.with_borrow_mut(|cache| {
                if cache.len() >= SINGLE_CACHED {
                    cache.clear();
                }
                cache
                    .entry(c)
                    .or_insert_with(|| {
                        let mut buf = [0u8; 4];
                        let s: &str = c.encode_utf8(&mut buf);
                        let nfkc: String = s.nfkc().collect();
                        CaseMapper::new().fold_string(&nfkc).nfd().collect()
                    })
                    .clone()
            });
            for &c in cached.iter() {
                self.char(c);
            }
            return;
        }
        let mut nfkc = std::mem::take(&mut self.scratch);
        nfkc.clear();
        nfkc.extend(cluster.nfkc());
        let folded = CaseMapper::new().fold_string(&nfkc);
        for c in folded.nfd() {
            self.char(c);
        }
        drop(folded);
        self.scratch = nfkc;
    }

    /// One character of normalized, case-folded, decomposed text.
    fn char(&mut self, c: char) {
        if is_dropped(c) {
            return;
        }
        let sep = match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => 2,
            c if c.is_whitespace() || c.is_control() => 1,
            _ => 0,
        };
        if sep > 0 {
            self.separator(sep);
            return;
        }
        self.begin_word_char();
        let m = map_punctuation(c);
        if !m.is_ascii() {
            self.word_ascii = false;
        }
        self.out.push(m);
    }
}

/// Character classes cached in [`CLASSES`]: not yet computed.
const UNKNOWN: u8 = 0;
/// A stable starter that folding leaves unchanged on its own.
const INERT: u8 = 1;
/// A stable starter that folding changes (`É`, `Ж`, `が`).
const STARTER: u8 = 2;
/// Not a stable starter: a cut before it would change normalization.
const NON_STARTER: u8 = 3;
/// Prototype facts cached in [`PROTOTYPES`]: the character has a non-empty ASCII one.
const HAS_PROTOTYPE: u8 = 1;
/// The character has no (or an empty or non-ASCII) prototype.
const NO_PROTOTYPE: u8 = 2;

/// Characters below this are cached (the BMP and the SMP: scripts, symbols, emoji).
const CACHED: usize = 0x2_0000;
static CLASSES: [AtomicU8; CACHED] = [const { AtomicU8::new(UNKNOWN) }; CACHED];
static PROTOTYPES: [AtomicU8; CACHED] = [const { AtomicU8::new(UNKNOWN) }; CACHED];

/// Looks `c` up in `table`, computing and caching it on first use.
fn cached(table: &[AtomicU8; CACHED], c: char, compute: fn(char) -> u8) -> u8 {
    let Some(slot) = table.get(c as usize) else {
        return compute(c);
    };
    match slot.load(Ordering::Relaxed) {
        UNKNOWN => {
            let v = compute(c);
            slot.store(v, Ordering::Relaxed);
            v
        }
        v => v,
    }
}

/// The class of a non-ASCII character ([`INERT`], [`STARTER`] or [`NON_STARTER`]).
fn class(c: char) -> u8 {
    cached(&CLASSES, c, compute_class)
}

fn compute_class(c: char) -> u8 {
    let stable =
        canonical_combining_class(c) == 0 && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes;
    if !stable {
        return NON_STARTER;
    }
    let mut buf = [0u8; 4];
    let s: &str = c.encode_utf8(&mut buf);
    let unchanged = !is_dropped(c)
        && !c.is_whitespace()
        && !c.is_control()
        && map_punctuation(c) == c
        && s.nfkc().eq(std::iter::once(c))
        && s.nfd().eq(std::iter::once(c))
        && CaseMapper::new().fold_string(s) == s;
    if unchanged { INERT } else { STARTER }
}

thread_local! {
    /// Folded forms of single-character clusters (`ü`, `Ж`, `が`).
    static SINGLE: std::cell::RefCell<std::collections::HashMap<char, std::rc::Rc<[char]>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Most entries kept in [`SINGLE`] per thread.
const SINGLE_CACHED: usize = 4096;

/// Whether normalization may be cut at byte `at` of `text` (a character boundary): the
/// end, or before a stable starter.
fn cut_at(text: &str, at: usize) -> bool {
    match text.as_bytes().get(at) {
        None => true,
        Some(b) if b.is_ascii() => true,
        Some(_) => text[at..].chars().next().is_none_or(is_cut),
    }
}

/// Whether normalization may be cut before `c` (every ASCII character qualifies).
fn is_cut(c: char) -> bool {
    c.is_ascii() || class(c) != NON_STARTER
}

/// Whether the non-ASCII `c` has a non-empty ASCII confusable prototype.
fn has_ascii_prototype(c: char) -> bool {
    cached(&PROTOTYPES, c, |c| {
        let mut buf = [0u8; 4];
        match ascii_prototype(c.encode_utf8(&mut buf)) {
            Some(p) if !p.is_empty() => HAS_PROTOTYPE,
            _ => NO_PROTOTYPE,
        }
    }) == HAS_PROTOTYPE
}

/// Marks, invisible format characters and fillers carry no visible letter.
fn is_dropped(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark | GeneralCategory::Format
    ) || matches!(
        c,
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{180B}'..='\u{180F}'
    )
}

fn map_punctuation(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        c => c,
    }
}

/// The word with every non-ASCII character replaced by its UTS #39 confusable prototype,
/// or `None` when some character has no (non-empty) ASCII prototype.
pub(crate) fn ascii_prototype(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let mut buf = [0u8; 4];
        let proto: String = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
        // Invisible characters have an empty prototype: they hide, they do not imitate
        // (the hidden-character detector reports them).
        if proto.is_empty() || !proto.is_ascii() {
            return None;
        }
        out.push_str(&proto);
    }
    Some(out)
}

/// [`fold`] of `run` with every step but the confusable one: NFKC, case folding, marks
/// and invisible characters dropped, typographic punctuation mapped. Lets patterns match
/// letters that stay unrewritten in a word with other letters.
pub(crate) fn fold_letters(run: &str) -> String {
    let nfkc: String = run.nfkc().collect();
    CaseMapper::new()
        .fold_string(&nfkc)
        .nfd()
        .filter(|&c| !is_dropped(c))
        .map(map_punctuation)
        .collect()
}

/// A pattern (regex source) written in natural spelling, with every run of non-ASCII
/// characters replaced by a non-capturing group of the forms that run takes in folded
/// text: its [`fold`], and its [`fold_letters`] when that differs (see the module docs).
/// ASCII is left alone, so regex syntax and ASCII patterns pass through unchanged.
///
/// # Panics
/// On a non-ASCII run inside a character class that folding changes (a class cannot
/// hold a folded run of several characters): built-in patterns only, found by tests.
pub(crate) fn fold_pattern(pattern: &str) -> String {
    if pattern.is_ascii() {
        return pattern.to_owned();
    }
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut in_class = false;
    let mut escaped = false;
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String, in_class: bool| {
        if run.is_empty() {
            return;
        }
        let folded = fold(run);
        if in_class {
            assert!(
                folded == *run,
                "built-in pattern folds {run:?} inside a character class"
            );
            out.push_str(run);
        } else {
            let letters = fold_letters(run);
            out.push_str("(?:");
            out.push_str(&regex::escape(&folded));
            if letters != folded {
                out.push('|');
                out.push_str(&regex::escape(&letters));
            }
            out.push(')');
        }
        run.clear();
    };
    for c in pattern.chars() {
        if !c.is_ascii() {
            run.push(c);
            continue;
        }
        flush(&mut run, &mut out, in_class);
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '[' {
            in_class = true;
        } else if c == ']' {
            in_class = false;
        }
        out.push(c);
    }
    flush(&mut run, &mut out, in_class);
    out
}

/// The forms a prefilter anchor takes in folded text: its [`fold`] and, for a word that
/// folding would rewrite to ASCII, its [`fold_letters`] too (see the module docs).
pub(crate) fn fold_anchor(anchor: &str) -> Vec<String> {
    let folded = fold(anchor);
    let letters = fold_letters(anchor);
    if letters == folded || anchor.is_ascii() {
        vec![folded]
    } else {
        vec![folded, letters]
    }
}

/// Identifier separators: `_`, `-`, `.`.
const fn is_identifier_separator(c: char) -> bool {
    matches!(c, '_' | '-' | '.')
}

/// `text` with every identifier-like token (letters, digits, `_`, `-`, `.` and characters
/// that folding drops) read as words: separators become spaces, and `camelCase`,
/// `PascalCase` (`HTMLParser` → `HTML Parser`) and letter/digit boundaries are split.
/// `None` when nothing was split. With `whole`, `text` must be one such token (string
/// values); otherwise every whitespace-separated token is looked at (member names).
pub(crate) fn identifier_words(text: &str, whole: bool) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut tokens = 0;
    for (i, token) in text.split(char::is_whitespace).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if token.is_empty() {
            continue;
        }
        tokens += 1;
        if whole && tokens > 1 {
            return None;
        }
        let identifier = token
            .chars()
            .all(|c| c.is_alphanumeric() || is_identifier_separator(c) || is_dropped(c));
        if identifier && split_identifier(token, &mut out) {
            changed = true;
        } else if whole {
            return None;
        } else {
            out.push_str(token);
        }
    }
    changed.then_some(out)
}

/// Appends `token` split into words (see [`identifier_words`]); whether it split.
fn split_identifier(token: &str, out: &mut String) -> bool {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum K {
        Lower,
        Upper,
        Digit,
        Other,
    }
    let kind = |c: char| {
        if c.is_numeric() {
            K::Digit
        } else if c.is_uppercase() {
            K::Upper
        } else if c.is_lowercase() {
            K::Lower
        } else {
            K::Other
        }
    };
    let start = out.len();
    let mut split = false;
    // The previous character that is not dropped, and whether a space is pending.
    let mut prev: Option<K> = None;
    let mut space = false;
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        if is_dropped(c) {
            out.push(c);
            continue;
        }
        if is_identifier_separator(c) {
            space = prev.is_some();
            continue;
        }
        let k = kind(c);
        let boundary = match (prev, k) {
            (Some(K::Lower | K::Digit), K::Upper)
            | (Some(K::Lower | K::Upper), K::Digit)
            | (Some(K::Digit), K::Lower) => true,
            // `HTMLParser`: the last capital of a run starts the next word when two
            // lower-case letters follow (`IDs` stays whole).
            (Some(K::Upper), K::Upper) => {
                let mut rest = chars.clone().filter(|&n| !is_dropped(n)).map(kind);
                rest.next() == Some(K::Lower) && rest.next() == Some(K::Lower)
            }
            _ => false,
        };
        if (space || boundary) && out.len() > start {
            out.push(' ');
            split = true;
        }
        space = false;
        out.push(c);
        prev = Some(k);
    }
    if split || token.chars().any(is_identifier_separator) {
        true
    } else {
        out.truncate(start);
        false
    }
}

/// Whether the byte at `i` of folded text ends a sentence: a line break, or `.`, `!`,
/// `?`, `;` followed by a space, a line break or the end (so paths such as
/// `~/.ssh/id_rsa` and URLs stay whole).
fn ends_sentence(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        b'\n' => true,
        b'.' | b'!' | b'?' | b';' => bytes.get(i + 1).is_none_or(|&n| n == b' ' || n == b'\n'),
        _ => false,
    }
}

/// Splits folded text into sentences (trimmed, empty ones left out) where
/// [`ends_sentence`]: the full path's split, which [`piece_around`] must agree with.
#[cfg(test)]
pub(crate) fn sentences(folded: &str) -> Vec<&str> {
    let bytes = folded.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..bytes.len() {
        if ends_sentence(bytes, i) {
            let piece = folded[start..=i].trim();
            if !piece.is_empty() {
                out.push(piece);
            }
            start = i + 1;
        }
    }
    let rest = folded[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Longest word, in bytes, that [`leading_word`] reads: past every word the detectors
/// compare a following word with.
pub(crate) const LEADING_WORD_BYTES: usize = 64;

/// The first whitespace-separated word of `rest` (empty when `rest` is blank), or `None`
/// when that word does not end within the first [`LEADING_WORD_BYTES`] bytes after the
/// leading whitespace (fewer when a character straddles that point). Callers treat `None`
/// as "no word of theirs": a word that long, even one a caller would have trimmed of
/// punctuation down to a word it looks for (`id))))…`), keeps the finding it would have
/// cancelled, which errs toward flagging. Reading at most that far keeps a check made
/// after each of a sentence's matches linear: a sentence without spaces (CJK text) would
/// otherwise be read to its end once per match.
pub(crate) fn leading_word(rest: &str) -> Option<&str> {
    let rest = rest.trim_start();
    let window = &rest[..rest.floor_char_boundary(LEADING_WORD_BYTES)];
    match window.find(char::is_whitespace) {
        Some(end) => Some(&window[..end]),
        None => (window.len() == rest.len()).then_some(window),
    }
}

/// The end (exclusive) of the untrimmed piece of folded text, between sentence ends,
/// that contains byte `at`: just past the next sentence end, or the end of the text.
pub(crate) fn piece_end(folded: &str, at: usize) -> usize {
    let bytes = folded.as_bytes();
    let mut i = at;
    while i < bytes.len() {
        if matches!(bytes[i], b'\n' | b'.' | b'!' | b'?' | b';') && ends_sentence(bytes, i) {
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// The start of the piece that contains byte `at`, looking back no further than `floor`
/// (a known piece start at or before `at`), so that visiting pieces left to right stays
/// linear.
pub(crate) fn piece_start(folded: &str, at: usize, floor: usize) -> usize {
    let bytes = folded.as_bytes();
    let mut start = at;
    while start > floor && !ends_sentence(bytes, start - 1) {
        start -= 1;
    }
    start
}

/// The whole-text folding the fast one must equal: the original definition.
#[cfg(test)]
pub(crate) fn reference_fold(input: &str) -> String {
    let nfkc: String = input.nfkc().collect();
    let folded = CaseMapper::new().fold_string(&nfkc).into_owned();
    let mut out = String::with_capacity(folded.len());
    let mut word = String::new();
    let mut pending = 0u8;
    let flush = |out: &mut String, word: &mut String| {
        if word.is_ascii() {
            out.push_str(word);
        } else if let Some(ascii) = ascii_prototype(word) {
            out.push_str(&ascii.to_ascii_lowercase());
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in folded.nfd() {
        if is_dropped(c) {
            continue;
        }
        let sep = match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => 2,
            c if c.is_whitespace() || c.is_control() => 1,
            _ => 0,
        };
        if sep > 0 {
            flush(&mut out, &mut word);
            pending = pending.max(sep);
            continue;
        }
        if pending > 0 {
            flush(&mut out, &mut word);
            if !out.is_empty() {
                out.push(if pending == 2 { '\n' } else { ' ' });
            }
            pending = 0;
        }
        word.push(map_punctuation(c));
    }
    flush(&mut out, &mut word);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn leading_word_reads_one_bounded_word() {
        assert_eq!(leading_word("  id of the chat"), Some("id"));
        assert_eq!(leading_word("\u{3000}title"), Some("title"));
        assert_eq!(leading_word(""), Some(""));
        assert_eq!(leading_word("   "), Some(""));
        let long = "x".repeat(LEADING_WORD_BYTES);
        assert_eq!(leading_word(&format!(" {long} id")), None);
        assert_eq!(leading_word(&long[1..]), Some(&long[1..]));
        // A word that runs on (CJK text has no spaces) is not read to its end.
        let unspaced = "\u{4f1a}\u{8a71}".repeat(10_000);
        assert_eq!(leading_word(&unspaced), None);
        assert_eq!(leading_word(&format!("id{unspaced}")), None);
    }

    #[test]
    fn folds_case_width_accents_and_space() {
        let cases = [
            ("Do  NOT\ttell", "do not tell"),
            (
                "\u{FF29}\u{FF27}\u{FF2E}\u{FF2F}\u{FF32}\u{FF25} previous",
                "ignore previous",
            ),
            ("Pr\u{E9}c\u{E9}dentes R\u{E8}gles", "precedentes regles"),
            ("Stra\u{DF}e", "strasse"),
            ("ig\u{200B}nore\u{E0041}", "ignore"),
            ("line one\r\n\r\n  line two", "line one\nline two"),
            ("don\u{2019}t \u{201C}x\u{201D} \u{2014}", "don't \"x\" -"),
        ];
        for (input, want) in cases {
            assert_eq!(fold(input), want, "{input:?}");
            assert_eq!(reference_fold(input), want, "{input:?}");
        }
    }

    #[test]
    fn maps_whole_confusable_words_to_ascii() {
        // Cyrillic і, о, е inside an otherwise Latin word; a wholly Cyrillic look-alike.
        assert_eq!(fold("\u{456}gn\u{43E}r\u{435} all"), "ignore all");
        assert_eq!(fold("\u{455}\u{443}\u{455}t\u{435}m"), "system");
        // Real Russian keeps its letters ("user" = пользователь has no ASCII prototype).
        let ru = fold(
            "\u{43F}\u{43E}\u{43B}\u{44C}\u{437}\u{43E}\u{432}\u{430}\u{442}\u{435}\u{43B}\u{44C}",
        );
        assert!(!ru.is_ascii(), "{ru}");
        // ASCII letters are never rewritten by their own prototypes (m -> rn, l -> I).
        assert_eq!(fold("small 1 l"), "small 1 l");
    }

    /// Pure Cyrillic words made only of letters with ASCII prototypes fold to ASCII like
    /// look-alike spoofs; other Russian words keep their letters (lower case, no marks).
    /// Patterns written with [`fold_pattern`] match both, wherever the word stands.
    #[test]
    fn whole_cyrillic_words_and_patterns() {
        assert_eq!(fold("\u{441}\u{43E}\u{440}"), "cop");
        assert_eq!(fold("\u{435}\u{433}\u{43E}"), "ero");
        assert_eq!(
            fold("\u{418}\u{433}\u{43D}\u{43E}\u{440}\u{438}\u{440}\u{443}\u{439}"),
            "игнорируи"
        );
        assert_eq!(fold("\u{451}\u{436}"), "еж");
        assert_eq!(fold_letters("\u{41E}\u{431}"), "об");
        let re = regex::Regex::new(&fold_pattern(r"\bоб этом\b")).unwrap();
        assert!(re.is_match(&fold("Не говори об этом")), "{re}");
        assert!(re.is_match(&fold("об\u{FE0F} этом")), "{re}");
        // The ASCII form is accepted only where the text has it: the word on its own.
        assert_eq!(fold_pattern("об"), "(?:o6|об)");
        assert_eq!(fold_pattern("ab[^\\x{3002}]"), "ab[^\\x{3002}]");
        // Hangul folds to jamo, voiced kana lose their mark.
        assert_eq!(fold_pattern("무시"), format!("(?:{})", fold("무시")));
        assert_eq!(fold("무시").chars().count(), 4);
        assert_eq!(fold_pattern("ください"), "(?:くたさい)");
        assert_eq!(fold_anchor("об"), vec!["o6".to_owned(), "об".to_owned()]);
        assert_eq!(fold_anchor("ignore"), vec!["ignore".to_owned()]);
    }

    #[test]
    fn identifiers_split_into_words() {
        let cases = [
            (
                "ignoreAllPreviousInstructions",
                Some("ignore All Previous Instructions"),
            ),
            ("IgnorePrevious", Some("Ignore Previous")),
            ("do_not-tell.theUser", Some("do not tell the User")),
            ("HTMLParser", Some("HTML Parser")),
            ("userIDs", Some("user IDs")),
            ("readIdEd25519", Some("read Id Ed 25519")),
            ("__proto__", Some("proto")),
            ("ign\u{43E}reAll", Some("ign\u{43E}re All")),
            ("a\u{200B}B", Some("a\u{200B} B")),
            ("ignore", None),
            ("ignore previous", None),
            ("~/.ssh/id_rsa", None),
        ];
        for (input, want) in cases {
            assert_eq!(identifier_words(input, true).as_deref(), want, "{input:?}");
        }
        // Member names: token by token.
        assert_eq!(
            identifier_words("ignoreAll previous_rules x", false).as_deref(),
            Some("ignore All previous rules x")
        );
        assert_eq!(identifier_words("plain words", false), None);
    }

    #[test]
    fn splits_sentences_but_not_paths() {
        let f = fold("Reads ~/.ssh/id_rsa. Then stop!\nNext; last");
        assert_eq!(
            sentences(&f),
            vec!["reads ~/.ssh/id_rsa.", "then stop!", "next;", "last"]
        );
        assert!(sentences("").is_empty());
    }

    /// Inputs where cluster cuts matter: combining marks after ASCII and after other
    /// marks, halfwidth voiced marks that compose under NFKC, Hangul jamo, ligatures,
    /// compatibility spaces, look-alikes next to separators.
    #[test]
    fn fast_fold_equals_reference_on_tricky_inputs() {
        let cases = [
            "e\u{301}cole \u{301}x \u{300}\u{301}",
            "\u{FF76}\u{FF9E}\u{FF8A}\u{FF9F} \u{304B}\u{3099}",
            "\u{1100}\u{1161}\u{11A8} \u{AC00}\u{11A8}",
            "\u{FB01}le \u{FB03} \u{2126}\u{212A}",
            "a\u{A0}b\u{3000}c\u{2028}d\u{85}e",
            "I\u{307} \u{130} \u{3A3}\u{391}\u{3A3} \u{1E9E}",
            "<\u{338} =\u{338}",
            "\u{456}gn\u{43E}r\u{435}\u{200B} \u{FF49}gnore \u{410}\u{412}",
            "\u{5831}\u{544A}\u{66F8}\u{3092}\u{8AAD}\u{3080}\u{3002}\u{FF08}x\u{FF09}",
            "\u{627}\u{653} \u{644}\u{64E}\u{627} \u{FEFB}",
            "\u{E0049}\u{E0067} x\u{FE0F}\u{1F600}\u{1F1E9}\u{1F1EA}",
            "\u{F73} \u{F71}\u{F72} \u{0344}",
            "  \t lead and trail \r\n ",
            "\u{301}",
            "\u{2019}\u{201C}\u{2014}\u{2212}\u{AB}",
        ];
        for input in cases {
            assert_eq!(fold(input), reference_fold(input), "{input:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The fast folding equals the whole-text definition on arbitrary text.
        #[test]
        fn fast_fold_equals_reference(text in "[ a-zA-Z.!?;'\t\r\n\u{7F}\u{A0}-\u{17F}\u{300}-\u{36F}\u{370}-\u{3FF}\u{400}-\u{4FF}\u{1100}-\u{11FF}\u{2000}-\u{206F}\u{2100}-\u{214F}\u{3000}-\u{30FF}\u{AC00}-\u{AC10}\u{FB00}-\u{FB06}\u{FF01}-\u{FFEE}\u{E0000}-\u{E007F}\u{1D400}-\u{1D4FF}\u{1F600}-\u{1F64F}]{0,60}") {
            prop_assert_eq!(fold(&text), reference_fold(&text));
        }

        /// Pure ASCII, long enough for the bulk paths, with every kind of separator run.
        #[test]
        fn fast_fold_equals_reference_ascii(text in "([a-zA-Z.,;!?'\"]{1,12}|[ ]|[ \t\r\n\x00-\x1f\x7f]{1,3}){0,60}") {
            prop_assert_eq!(fold(&text), reference_fold(&text));
        }

        /// Long ASCII stretches with look-alikes, accents and marks in between.
        #[test]
        fn fast_fold_equals_reference_mostly_ascii(text in "([a-zA-Z ]{0,50}|[ \t\n]|\u{e9}|\u{301}|\u{456}|\u{43E}|\u{DF}|\u{200B}|\u{FF49}|\u{3000}){0,20}") {
            prop_assert_eq!(fold(&text), reference_fold(&text));
        }

        /// Any Unicode at all.
        #[test]
        fn fast_fold_equals_reference_any(text in any::<String>()) {
            prop_assert_eq!(fold(&text), reference_fold(&text));
        }

        /// Every piece found around a byte is the sentence `sentences` yields there.
        #[test]
        fn pieces_agree_with_sentences(text in "[a-c .;!?\n]{0,40}") {
            let folded = fold(&text);
            let all = sentences(&folded);
            for at in 0..folded.len() {
                let (s, e) = (piece_start(&folded, at, 0), piece_end(&folded, at));
                let piece = folded[s..e].trim();
                if !piece.is_empty() {
                    prop_assert!(all.contains(&piece), "{:?} {}", piece, at);
                }
                prop_assert!(s <= at && at < e);
            }
        }
    }
}
