//! Context-free character kinds and the Unicode properties the context rules need.
//!
//! A [`Kind`] says what a character *could* be a problem as; whether it is one can depend
//! on its neighbours (a ZWJ inside an emoji sequence, a variation selector after its base,
//! a tag sequence that spells a subdivision flag). Those rules live in
//! [`super::walk`]. Property data comes from ICU4X (`icu_properties`, compiled data:
//! `General_Category`, `Default_Ignorable_Code_Point`, `Prepended_Concatenation_Mark`,
//! `Extended_Pictographic`, `Emoji_Modifier`, `Unified_Ideograph`, `Joining_Type`),
//! `unicode-properties` (Emoji), `unicode-script` (Script) and `unicode-normalization`
//! (`Canonical_Combining_Class`).

use icu_properties::props::{
    DefaultIgnorableCodePoint, EmojiModifier, ExtendedPictographic, GeneralCategory,
    GeneralCategoryGroup, JoiningType, PrependedConcatenationMark, UnifiedIdeograph,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use unicode_properties::UnicodeEmoji;
use unicode_script::{Script, UnicodeScript};

/// What a character is, before its context is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Ordinary visible text (any script, symbols, emoji, combining marks) and spaces.
    Plain,
    /// TAB, LF, CR: allowed layout controls (escaped only for display).
    Layout,
    /// Any other C0 control, DEL, or a C1 control that does not introduce a sequence.
    Control,
    /// U+001B ESCAPE.
    Escape,
    /// An 8-bit C1 sequence introducer (ECMA-48 §5.3): DCS U+0090, SOS U+0098,
    /// CSI U+009B, OSC U+009D, PM U+009E, APC U+009F.
    C1Introducer,
    /// Unicode tag characters U+E0000..U+E007F.
    Tag,
    /// Bidi formatting characters (UAX #9 §2): LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI,
    /// PDI, LRM, RLM, ALM.
    Bidi,
    /// U+200D ZERO WIDTH JOINER.
    Zwj,
    /// U+200C ZERO WIDTH NON-JOINER.
    Zwnj,
    /// Other zero-width characters: U+200B, U+2060, U+FEFF, U+180E.
    ZeroWidth,
    /// Variation selectors U+FE00..FE0F, U+E0100..E01EF and the Mongolian free variation
    /// selectors U+180B..180D, U+180F.
    Selector,
    /// Other invisible format (Cf) or default-ignorable characters and Hangul fillers.
    Format,
    /// Private use: U+E000..F8FF, planes 15 and 16.
    PrivateUse,
    /// Noncharacters (U+FDD0..FDEF and U+xFFFE/U+xFFFF) and unassigned code points.
    Noncharacter,
}

/// Classifies `c` without looking at its neighbours.
#[inline]
pub(crate) fn kind(c: char) -> Kind {
    let cp = u32::from(c);
    if cp < 0xA0 {
        return match c {
            ' '..='~' => Kind::Plain,
            '\t' | '\n' | '\r' => Kind::Layout,
            '\u{1B}' => Kind::Escape,
            '\u{90}' | '\u{98}' | '\u{9B}' | '\u{9D}' | '\u{9E}' | '\u{9F}' => Kind::C1Introducer,
            _ => Kind::Control,
        };
    }
    if cp < 0xAD {
        return Kind::Plain;
    }
    match c {
        '\u{E0000}'..='\u{E007F}' => Kind::Tag,
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => Kind::Bidi,
        '\u{200D}' => Kind::Zwj,
        '\u{200C}' => Kind::Zwnj,
        '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' => Kind::ZeroWidth,
        '\u{FE00}'..='\u{FE0F}'
        | '\u{E0100}'..='\u{E01EF}'
        | '\u{180B}'..='\u{180D}'
        | '\u{180F}' => Kind::Selector,
        '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}' => {
            Kind::PrivateUse
        }
        '\u{FDD0}'..='\u{FDEF}' => Kind::Noncharacter,
        _ if cp & 0xFFFE == 0xFFFE => Kind::Noncharacter,
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' => Kind::Format,
        _ => by_properties(c),
    }
}

/// The [`Kind`] of a character none of the fixed ranges of [`kind`] covers, from its
/// properties (one `General_Category` lookup, plus one set lookup for most characters):
/// - `General_Category=Cf` or `Default_Ignorable_Code_Point` is [`Kind::Format`], except
///   the prepended concatenation marks (U+0600..0605, U+06DD, U+070F, U+0890..0891,
///   U+08E2, U+110BD, U+110CD): those are Cf but render visibly over the digits that
///   follow them. Unassigned default-ignorable code points (U+2065, U+FFF0..FFF8,
///   U+E0080..E0FFF) stay here: they are reserved to be invisible.
/// - Any other unassigned code point (`General_Category=Cn`, e.g. U+0378) is
///   [`Kind::Noncharacter`]: it has no glyph and no meaning for the host yet, so it can
///   only render as a box or not at all, and may carry data (docs/finding-codes.md:
///   `noncharacter` covers "unassigned"). The ICU4X data this build compiles in decides
///   what is assigned; text using characters from a newer Unicode version than that is
///   flagged (a warning in descriptors) and loses them in results until the data is
///   updated.
fn by_properties(c: char) -> Kind {
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    if gc == GeneralCategory::Format {
        if CodePointSetData::new::<PrependedConcatenationMark>().contains(c) {
            Kind::Plain
        } else {
            Kind::Format
        }
    } else if CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c) {
        Kind::Format
    } else if gc == GeneralCategory::Unassigned {
        Kind::Noncharacter
    } else {
        Kind::Plain
    }
}

/// `Extended_Pictographic` (UTS #51 §1.4.9 / UAX #29): what an emoji ZWJ sequence joins.
pub(crate) fn is_pictographic(c: char) -> bool {
    CodePointSetData::new::<ExtendedPictographic>().contains(c)
}

/// `Emoji_Modifier`: the five Fitzpatrick skin-tone modifiers U+1F3FB..1F3FF (UTS #51 §1.4.4).
pub(crate) fn is_emoji_modifier(c: char) -> bool {
    CodePointSetData::new::<EmojiModifier>().contains(c)
}

/// `Emoji=Yes` (UTS #51 §1.4.1): the bases of emoji/text presentation sequences.
pub(crate) fn is_emoji(c: char) -> bool {
    c.is_emoji_char()
}

/// `Unified_Ideograph`: the bases of ideographic variation sequences (UTS #37 §2: the
/// IVD registers sequences for unified ideographs only) and of the CJK compatibility
/// standardized variation sequences.
pub(crate) fn is_unified_ideograph(c: char) -> bool {
    CodePointSetData::new::<UnifiedIdeograph>().contains(c)
}

/// A letter of the Mongolian script (Mongolian, Todo, Sibe, Manchu, Ali Gali): the bases
/// of Mongolian free variation selectors (Unicode core specification, Mongolian).
pub(crate) fn is_mongolian_letter(c: char) -> bool {
    c.script() == Script::Mongolian && is_letter(c)
}

/// `Canonical_Combining_Class=9` (Virama), the left context of RFC 5892 CONTEXTJ rules.
pub(crate) fn is_virama(c: char) -> bool {
    unicode_normalization::char::canonical_combining_class(c) == 9
}

/// A letter (`General_Category` L*).
pub(crate) fn is_letter(c: char) -> bool {
    GeneralCategoryGroup::Letter.contains(CodePointMapData::<GeneralCategory>::new().get(c))
}

/// The `Joining_Type` of `c` (Unicode §9.2, `ArabicShaping.txt`), as RFC 5892 A.1 uses it.
pub(crate) fn joining_type(c: char) -> JoiningType {
    CodePointMapData::<JoiningType>::new().get(c)
}
