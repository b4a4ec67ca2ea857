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

use icu_casemap::CaseMapper;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Folds `input` into the matching form described in the module docs.
pub(crate) fn fold(input: &str) -> String {
    let nfkc: String = input.nfkc().collect();
    let folded = CaseMapper::new().fold_string(&nfkc).into_owned();
    let mut out = String::with_capacity(folded.len());
    let mut word = String::new();
    // 0 = no pending separator, 1 = space, 2 = line break.
    let mut pending = 0u8;
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
            flush_word(&mut out, &mut word);
            pending = pending.max(sep);
            continue;
        }
        if pending > 0 {
            flush_word(&mut out, &mut word);
            if !out.is_empty() {
                out.push(if pending == 2 { '\n' } else { ' ' });
            }
            pending = 0;
        }
        word.push(map_punctuation(c));
    }
    flush_word(&mut out, &mut word);
    out
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

/// Appends `word` to `out`, replaced by its ASCII confusable prototype when every
/// non-ASCII character of it has one (UTS #39 `skeleton`, applied per character so that
/// ASCII letters such as `m` are not themselves rewritten).
fn flush_word(out: &mut String, word: &mut String) {
    if word.is_ascii() {
        out.push_str(word);
    } else if let Some(ascii) = ascii_prototype(word) {
        out.push_str(&ascii.to_ascii_lowercase());
    } else {
        out.push_str(word);
    }
    word.clear();
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

/// Splits folded text into sentences: at line breaks and at `.`, `!`, `?`, `;` followed by
/// a space (so paths such as `~/.ssh/id_rsa` and URLs stay whole).
pub(crate) fn sentences(folded: &str) -> Vec<&str> {
    let bytes = folded.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let end_here = match b {
            b'\n' => true,
            b'.' | b'!' | b'?' | b';' => bytes.get(i + 1).is_none_or(|&n| n == b' ' || n == b'\n'),
            _ => false,
        };
        if end_here {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn splits_sentences_but_not_paths() {
        let f = fold("Reads ~/.ssh/id_rsa. Then stop!\nNext; last");
        assert_eq!(
            sentences(&f),
            vec!["reads ~/.ssh/id_rsa.", "then stop!", "next;", "last"]
        );
        assert!(sentences("").is_empty());
    }
}
