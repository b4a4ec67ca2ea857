//! Which variation sequences are legitimate, so that a variation selector outside one
//! can be reported (`variation_selector_run`).
//!
//! A variation selector only means something right after a base it is registered for;
//! anywhere else it renders as nothing, and a string of them can carry bytes (one of 16
//! selectors U+FE00..FE0F after each letter carries 4 bits, one of 240 ideographic
//! selectors 8 bits: "emoji smuggling"). Accepted sequences, one selector each:
//!
//! | selectors | base | source |
//! |---|---|---|
//! | VS15/VS16 U+FE0E/FE0F | `Emoji=Yes`; for the keycap bases `#`, `*`, `0`..`9` only when U+20E3 follows (keycap sequence) | UTS #51 ED-8a, ED-9a (presentation sequences), ED-14c (keycap) |
//! | VS1..VS14 U+FE00..FE0D | the pairs of `StandardizedVariants.txt` (Unicode 16.0.0): [`STANDARDIZED`] plus the CJK compatibility ideograph sequences | Unicode §23.4 |
//! | Mongolian FVS U+180B..180D, U+180F | a letter of the Mongolian script (Mongolian, Todo, Sibe, Manchu, Ali Gali) | Unicode core specification, Mongolian section |
//! | IVS U+E0100..E01EF | a `Unified_Ideograph`, when the string's ideographic variation sequences are sparse ([`ivs_sparse`]) | UTS #37, Ideographic Variation Database |
//!
//! The CJK compatibility sequences of `StandardizedVariants.txt` (1002 of its 1306
//! entries) are not copied: the file gives each CJK compatibility ideograph
//! (U+F900..FAD9, U+2F800..2FA1D) the sequence "its canonical decomposition + VS1" for
//! the first compatibility ideograph of that unified ideograph, VS2 for the second, VS3
//! for the third, so they are derived from the canonical decompositions
//! ([`cjk_compatibility_variant`]); checked against the file (same 1002 pairs) when this
//! was written. The file's Mongolian entries are covered by the broader Mongolian rule.

use super::classes::{is_emoji, is_mongolian_letter, is_unified_ideograph};
use std::sync::OnceLock;

/// The non-CJK, non-Mongolian standardized variation sequences of
/// `StandardizedVariants.txt`, Unicode 16.0.0
/// (<https://www.unicode.org/Public/16.0.0/ucd/StandardizedVariants.txt>),
/// as `base << 4 | (selector - U+FE00)`, sorted (all use VS1..VS7). Data, not parsed at
/// run time; update it with the file. In code point order: DIGIT ZERO (short diagonal
/// stroke); Myanmar (dotted forms); quotation marks U+2018..201D (East Asian positional
/// forms, new in 16.0); letterlike script capitals (chancery and roundhand styles);
/// mathematical operators; ideographic comma and full stop (positional forms);
/// Phags-pa; Myanmar Khamti (dotted forms); fullwidth punctuation (positional forms) and
/// FULLWIDTH DIGIT ZERO; Manichaean; Egyptian hieroglyphs (rotations, expanded forms);
/// mathematical script capitals (chancery and roundhand styles).
#[allow(clippy::unusual_byte_groupings)] // `0xBASE_S`: code point, then selector offset
const STANDARDIZED: [u32; 244] = [
    0x0030_0, 0x1000_0, 0x1002_0, 0x1004_0, 0x1010_0, 0x1011_0, 0x1015_0, 0x1019_0, 0x101A_0,
    0x101C_0, 0x101D_0, 0x1022_0, 0x1031_0, 0x1075_0, 0x1078_0, 0x107A_0, 0x1080_0, 0x2018_0,
    0x2018_1, 0x2019_0, 0x2019_1, 0x201C_0, 0x201C_1, 0x201D_0, 0x201D_1, 0x210B_0, 0x210B_1,
    0x2110_0, 0x2110_1, 0x2112_0, 0x2112_1, 0x211B_0, 0x211B_1, 0x212C_0, 0x212C_1, 0x2130_0,
    0x2130_1, 0x2131_0, 0x2131_1, 0x2133_0, 0x2133_1, 0x2205_0, 0x2229_0, 0x222A_0, 0x2268_0,
    0x2269_0, 0x2272_0, 0x2273_0, 0x228A_0, 0x228B_0, 0x2293_0, 0x2294_0, 0x2295_0, 0x2297_0,
    0x229C_0, 0x22DA_0, 0x22DB_0, 0x2A3C_0, 0x2A3D_0, 0x2A9D_0, 0x2A9E_0, 0x2AAC_0, 0x2AAD_0,
    0x2ACB_0, 0x2ACC_0, 0x3001_0, 0x3001_1, 0x3002_0, 0x3002_1, 0xA856_0, 0xA85C_0, 0xA85E_0,
    0xA85F_0, 0xA860_0, 0xA868_0, 0xAA60_0, 0xAA61_0, 0xAA62_0, 0xAA63_0, 0xAA64_0, 0xAA65_0,
    0xAA66_0, 0xAA6B_0, 0xAA6C_0, 0xAA6F_0, 0xAA7A_0, 0xFF01_0, 0xFF01_1, 0xFF0C_0, 0xFF0C_1,
    0xFF0E_0, 0xFF0E_1, 0xFF10_0, 0xFF1A_0, 0xFF1A_1, 0xFF1B_0, 0xFF1B_1, 0xFF1F_0, 0xFF1F_1,
    0x10AC5_0, 0x10AC6_0, 0x10AD6_0, 0x10AD7_0, 0x10AE1_0, 0x13091_0, 0x13093_1, 0x1310F_0,
    0x13117_2, 0x1311C_0, 0x13121_0, 0x13127_0, 0x13132_1, 0x13139_0, 0x13139_1, 0x13139_2,
    0x13183_2, 0x13187_1, 0x131A0_0, 0x131A0_2, 0x131B1_0, 0x131B1_1, 0x131B8_0, 0x131B9_0,
    0x131BA_2, 0x131CB_0, 0x131E0_0, 0x131EE_1, 0x131EE_2, 0x131F8_1, 0x131F9_0, 0x131F9_1,
    0x131FA_0, 0x131FA_1, 0x13216_2, 0x13257_1, 0x1327B_0, 0x1327B_2, 0x1327F_0, 0x1327F_1,
    0x13285_0, 0x1328C_0, 0x132A4_1, 0x132A4_2, 0x132AA_0, 0x132CB_0, 0x132DC_0, 0x132E7_0,
    0x132E7_2, 0x132E9_2, 0x132F8_2, 0x132FD_2, 0x13302_2, 0x13303_2, 0x13307_0, 0x13308_1,
    0x13310_2, 0x13311_2, 0x13312_1, 0x13312_2, 0x13313_1, 0x13313_2, 0x13314_1, 0x13314_2,
    0x1331B_0, 0x1331B_1, 0x1331C_2, 0x13321_1, 0x13321_2, 0x13322_0, 0x13322_1, 0x13331_1,
    0x13331_2, 0x13338_3, 0x13338_6, 0x1333C_0, 0x1334A_2, 0x13361_2, 0x13373_2, 0x13377_0,
    0x13378_0, 0x1337D_2, 0x13385_2, 0x13399_0, 0x1339A_0, 0x133AF_2, 0x133B0_2, 0x133BF_2,
    0x133D3_0, 0x133DB_2, 0x133DD_2, 0x133E5_0, 0x133E7_0, 0x133E8_1, 0x133F2_0, 0x133F5_0,
    0x133F6_0, 0x13416_0, 0x13419_0, 0x13419_1, 0x13419_2, 0x1341A_0, 0x13423_0, 0x1342C_2,
    0x1342E_2, 0x13443_0, 0x13444_0, 0x13445_0, 0x13446_0, 0x1D49C_0, 0x1D49C_1, 0x1D49E_0,
    0x1D49E_1, 0x1D49F_0, 0x1D49F_1, 0x1D4A2_0, 0x1D4A2_1, 0x1D4A5_0, 0x1D4A5_1, 0x1D4A6_0,
    0x1D4A6_1, 0x1D4A9_0, 0x1D4A9_1, 0x1D4AA_0, 0x1D4AA_1, 0x1D4AB_0, 0x1D4AB_1, 0x1D4AC_0,
    0x1D4AC_1, 0x1D4AE_0, 0x1D4AE_1, 0x1D4AF_0, 0x1D4AF_1, 0x1D4B0_0, 0x1D4B0_1, 0x1D4B1_0,
    0x1D4B1_1, 0x1D4B2_0, 0x1D4B2_1, 0x1D4B3_0, 0x1D4B3_1, 0x1D4B4_0, 0x1D4B4_1, 0x1D4B5_0,
    0x1D4B5_1,
];

/// Whether a variation selector after its base is legitimate, and on what condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sequence {
    /// A registered sequence: always fine.
    Registered,
    /// An ideographic variation sequence: fine when the string's ideographic variation
    /// sequences are sparse ([`ivs_sparse`]).
    Ideographic,
    /// Not a sequence any standard defines.
    Unregistered,
}

/// What the variation selector `vs` after `base`, followed by `next`, is (module table).
pub(crate) fn sequence(base: char, vs: char, next: Option<char>) -> Sequence {
    let registered = match vs {
        '\u{FE0E}' | '\u{FE0F}' => {
            if matches!(base, '#' | '*' | '0'..='9') {
                // A digit, `#` or `*` with VS15/VS16 alone is not shown differently;
                // only the keycap sequence (UTS #51 ED-14c) is.
                next == Some('\u{20E3}')
            } else {
                is_emoji(base)
            }
        }
        '\u{FE00}'..='\u{FE0D}' => {
            let key = u32::from(base) << 4 | (u32::from(vs) - 0xFE00);
            STANDARDIZED.binary_search(&key).is_ok() || cjk_compatibility_variant(base, vs)
        }
        '\u{180B}'..='\u{180D}' | '\u{180F}' => is_mongolian_letter(base),
        '\u{E0100}'..='\u{E01EF}' => {
            return if is_unified_ideograph(base) {
                Sequence::Ideographic
            } else {
                Sequence::Unregistered
            };
        }
        _ => false,
    };
    if registered {
        Sequence::Registered
    } else {
        Sequence::Unregistered
    }
}

/// Whether `base` + `vs` is one of the CJK compatibility ideograph sequences of
/// `StandardizedVariants.txt`: `base` is the canonical decomposition of at least
/// `vs - U+FE00 + 1` CJK compatibility ideographs (at most three share a base, so only
/// VS1..VS3 occur). The per-base counts are built once per process, on the first
/// selector after a CJK ideograph.
fn cjk_compatibility_variant(base: char, vs: char) -> bool {
    static COUNTS: OnceLock<Vec<(char, u32)>> = OnceLock::new();
    if !is_unified_ideograph(base) {
        return false;
    }
    let counts = COUNTS.get_or_init(|| {
        let mut bases: Vec<char> = ('\u{F900}'..='\u{FAFF}')
            .chain('\u{2F800}'..='\u{2FA1F}')
            .filter_map(|c| {
                let mut single = None;
                let mut parts = 0;
                unicode_normalization::char::decompose_canonical(c, |d| {
                    single = Some(d);
                    parts += 1;
                });
                // Characters without a decomposition decompose to themselves.
                single.filter(|d| parts == 1 && *d != c)
            })
            .collect();
        bases.sort_unstable();
        let mut counts: Vec<(char, u32)> = Vec::new();
        for b in bases {
            match counts.last_mut() {
                Some((last, n)) if *last == b => *n += 1,
                _ => counts.push((b, 1)),
            }
        }
        counts
    });
    counts
        .binary_search_by_key(&base, |(b, _)| *b)
        .is_ok_and(|i| u32::from(vs) - 0xFE00 < counts[i].1)
}

/// Ideographic variation sequences every string may hold, however few ideographs it has
/// (a name with two variant kanji, such as 葛󠄀城 or 辻󠄀).
const IVS_FREE: usize = 3;
/// Beyond [`IVS_FREE`], at most one unified ideograph in this many may carry an
/// ideographic variation selector.
const IVS_RATIO: usize = 8;

/// Whether the ideographic variation sequences of `text` are sparse enough to be
/// typography rather than a payload: at most [`IVS_FREE`] of them, or at most one per
/// [`IVS_RATIO`] unified ideographs of the string.
///
/// Why a density rule: the Ideographic Variation Database registers tens of thousands of
/// sequences (collections `Adobe-Japan1`, `Hanyo-Denshi`, `Moji_Joho`, `KRName`, ...), and
/// ideographs with many variants (`Moji_Joho`) use selectors beyond U+E010F, so neither a
/// short selector range nor an embedded copy of the database is a good test. Real text
/// uses an IVS where a name must keep its exact glyph (Japanese family and place names):
/// one or two per name, rare in prose. A payload needs a selector after (nearly) every
/// ideograph. With this rule a hidden payload is bounded by 3 bytes plus one byte per 8
/// visible ideographs of the same string, which then has to be real, visible CJK text;
/// a CJK descriptor or result that really uses many IVS (a register of names) loses
/// them in results (the glyphs fall back to their default forms) and is withheld as a
/// descriptor.
pub(crate) fn ivs_sparse(text: &str) -> bool {
    let mut ideographs = 0usize;
    let mut sequences = 0usize;
    let mut prev_ideograph = false;
    for c in text.chars() {
        if c.is_ascii() {
            prev_ideograph = false;
        } else if matches!(c, '\u{E0100}'..='\u{E01EF}') {
            sequences += usize::from(prev_ideograph);
            prev_ideograph = false;
        } else {
            prev_ideograph = is_unified_ideograph(c);
            ideographs += usize::from(prev_ideograph);
        }
    }
    sequences <= IVS_FREE || sequences * IVS_RATIO <= ideographs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standardized_table_is_sorted_and_unique() {
        assert!(STANDARDIZED.windows(2).all(|w| w[0] < w[1]));
        assert!(STANDARDIZED.iter().all(|k| k & 0xF <= 0xD));
    }

    #[test]
    fn cjk_compatibility_sequences_are_derived() {
        // StandardizedVariants.txt: 349E FE00 (U+2F80C), 8C48 FE00 (U+F900), 5207
        // FE00/FE01 (U+FA00, U+2F850), 9F9C FE00..FE02 (U+F907, U+F908, U+FACE).
        let registered = |b: char, vs: char| cjk_compatibility_variant(b, vs);
        assert!(registered('\u{349E}', '\u{FE00}'));
        assert!(registered('\u{8C48}', '\u{FE00}'));
        assert!(!registered('\u{8C48}', '\u{FE01}'));
        assert!(registered('\u{5207}', '\u{FE01}'));
        assert!(!registered('\u{5207}', '\u{FE02}'));
        assert!(registered('\u{9F9C}', '\u{FE02}'));
        assert!(!registered('\u{4E00}', '\u{FE00}'));
        assert!(!registered('a', '\u{FE00}'));
        // 1002 sequences in the file: the counts add up to the compatibility ideographs
        // with a canonical decomposition.
        let total: usize = ('\u{3400}'..='\u{2FFFF}')
            .filter(|c| is_unified_ideograph(*c))
            .map(|c| {
                ('\u{FE00}'..='\u{FE02}')
                    .filter(|vs| cjk_compatibility_variant(c, *vs))
                    .count()
            })
            .sum();
        assert_eq!(total, 1002);
    }

    #[test]
    fn sequences() {
        use Sequence::{Ideographic, Registered, Unregistered};
        let cases: &[(char, char, Option<char>, Sequence)] = &[
            ('\u{2764}', '\u{FE0F}', None, Registered),
            ('\u{A9}', '\u{FE0F}', None, Registered),
            ('#', '\u{FE0F}', Some('\u{20E3}'), Registered),
            ('1', '\u{FE0F}', None, Unregistered),
            ('1', '\u{FE0E}', Some('x'), Unregistered),
            ('a', '\u{FE0F}', None, Unregistered),
            ('0', '\u{FE00}', None, Registered),
            ('0', '\u{FE01}', None, Unregistered),
            ('a', '\u{FE00}', None, Unregistered),
            ('\u{2229}', '\u{FE00}', None, Registered),
            ('\u{1D49C}', '\u{FE01}', None, Registered),
            ('\u{1D49C}', '\u{FE02}', None, Unregistered),
            ('\u{13338}', '\u{FE06}', None, Registered),
            ('\u{1000}', '\u{FE00}', None, Registered),
            ('\u{1820}', '\u{180B}', None, Registered),
            ('\u{1820}', '\u{180F}', None, Registered),
            ('a', '\u{180B}', None, Unregistered),
            ('\u{845B}', '\u{E0100}', None, Ideographic),
            ('\u{3005}', '\u{E0100}', None, Unregistered),
            ('a', '\u{E0100}', None, Unregistered),
        ];
        for (base, vs, next, want) in cases {
            assert_eq!(sequence(*base, *vs, *next), *want, "{base:?} {vs:?}");
        }
    }

    #[test]
    fn ivs_density() {
        assert!(ivs_sparse("\u{845B}\u{E0100}\u{57CE} \u{8FBB}\u{E0101}"));
        assert!(ivs_sparse("a\u{E0100}b\u{E0100}c\u{E0100}d\u{E0100}"));
        let payload: String = "\u{6771}\u{4EAC}\u{306E}\u{5929}\u{6C17}"
            .chars()
            .flat_map(|c| [c, '\u{E0142}'])
            .collect();
        assert!(!ivs_sparse(&payload));
        let prose = "\u{6771}\u{4EAC}\u{90FD}\u{845B}\u{E0100}\u{98FE}\u{533A}".repeat(4);
        assert!(ivs_sparse(&format!("{prose}{}", "\u{5C71}".repeat(8))));
        assert!(!ivs_sparse(&prose));
    }
}
