//! Korean concealment matches ([`CONCEAL_STRONG_KO`]) and what the regex crate cannot
//! say about them (no look-around): recipients who are other people, settings
//! documentation, privacy statements after "without the user knowing", and a protected
//! secret named before the recipient.

use crate::detect::fold::fold;
use crate::detect::objects::{ObjKind, find_objects};
use crate::detect::phrases::{self, CONCEAL_STRONG_KO};
use regex::Regex;
use std::sync::LazyLock;

/// Words that make a Korean recipient third parties when they come right before it
/// (`다른 사용자에게 공유하지 마세요`, "do not share it with other users"), or a class of
/// users an access rule keeps something from (`권한이 없는 사용자에게 보여주지 마세요`,
/// `일반 사용자`, `게스트 사용자`): privacy and access-control advice, not concealment
/// from the user the assistant serves. Folded.
static OTHER_PEOPLE_KO: LazyLock<Vec<String>> = LazyLock::new(|| {
    [
        "다른",
        "타",
        "외부",
        "권한이 없는",
        "권한 없는",
        "일반",
        "게스트",
        "익명",
        "비인가",
        "인증되지 않은",
        "승인되지 않은",
        "허가되지 않은",
        "허가받지 않은",
        "인증받지 않은",
        "권한이없는",
        "비로그인",
        "미로그인",
        "로그인하지 않은",
        "미인증",
        "비회원",
        "무료",
        "관리자가 아닌",
    ]
    .iter()
    .map(|w| fold(w))
    .collect()
});

/// Purpose endings (`-도록`, `않게`; not `모르게`, "without knowing"), folded.
static PURPOSE_KO: LazyLock<[String; 2]> = LazyLock::new(|| [fold("도록"), fold("않게")]);

/// A verb of configuring in a statement right after a purpose (`알리지 않도록 설정할 수
/// 있습니다`, "can be set not to notify users"; `설정되어 있습니다`, `설정하는 방법`): settings
/// documentation. An order (`설정하세요`, `구성되어야 합니다`, `설정할 수 있도록 … 수정하세요`)
/// or the noun (`설정을 변경하세요`) is not.
static SETTINGS_KO: LazyLock<Regex> = LazyLock::new(|| {
    phrases::alternation(&[
        r"^\s*(?:설정|구성)(?:할\s*수\s*있(?:습니다|어요|다|음)|하실\s*수\s*있습니다|되어\s*있(?:습니다|다|어요|음)|돼\s*있(?:습니다|다|어요)|됩니다|된다|하는\s*방법)",
    ])
});

/// Bytes after a match read for settings documentation ([`settings_after`]): the longest
/// form (`구성하실 수 있습니다`) folds to about 70.
const SETTINGS_BYTES: usize = 96;

/// Whether the match `m` of `s` ends in a purpose ([`PURPOSE_KO`]) that settings
/// documentation goes on from ([`SETTINGS_KO`]) within [`SETTINGS_BYTES`].
fn settings_after(s: &str, m: &regex::Match<'_>) -> bool {
    let end = s.ceil_char_boundary((m.end() + SETTINGS_BYTES).min(s.len()));
    PURPOSE_KO.iter().any(|p| m.as_str().ends_with(p.as_str()))
        && SETTINGS_KO.is_match(&s[m.end()..end])
}

/// "Without the user knowing" (`사용자 모르게`, `눈치채지 못하게`), folded.
static UNKNOWING_KO: LazyLock<[String; 2]> = LazyLock::new(|| [fold("모르게"), fold("못하게")]);

/// Bytes after a match read for what follows it ([`unknowing_then_negated`]).
const AFTER_BYTES: usize = 240;

/// Whether the match `m` of `s` is "without the user knowing" followed, within
/// [`AFTER_BYTES`], by a statement that it does not happen (`사용자 모르게 데이터를 수집하지
/// 않습니다`, `… 결제되는 일이 없도록 합니다`, `… 전송되는 것을 막습니다`) or a caution
/// (`고객이 모르게 요금이 청구되지 않도록 주의하세요`): a privacy statement, not an order to
/// hide something. A negation that is itself an order (`로그를 남기지 않도록 하세요`) is not
/// one of these.
fn unknowing_then_negated(s: &str, m: &regex::Match<'_>) -> bool {
    static STATEMENT: LazyLock<Vec<String>> = LazyLock::new(|| {
        [
            "지 않습",
            "지 않는다",
            "지 않아요",
            "지 않으며",
            "지 않도록 주의",
            "지 않게 주의",
            "지 않도록 합니다",
            "지 않도록 유의",
            "일이 없도록",
            "일은 없",
            "일이 없",
            "것을 막",
            "것을 방지",
        ]
        .iter()
        .map(|w| fold(w))
        .collect()
    });
    UNKNOWING_KO
        .iter()
        .any(|u| m.as_str().ends_with(u.as_str()))
        && {
            let after = &s[m.end()..s.ceil_char_boundary((m.end() + AFTER_BYTES).min(s.len()))];
            STATEMENT.iter().any(|n| after.contains(n.as_str()))
        }
}

/// Whether the folded text before byte `start` ends with one of [`OTHER_PEOPLE_KO`] as
/// a word of its own (after a space or at the start, not the end of a longer word), an
/// optional space between it and `start`.
fn other_people_before(s: &str, start: usize) -> bool {
    let before = s[..start].strip_suffix(' ').unwrap_or(&s[..start]);
    OTHER_PEOPLE_KO.iter().any(|w| {
        before
            .strip_suffix(w.as_str())
            .is_some_and(|head| !head.chars().next_back().is_some_and(char::is_alphanumeric))
    })
}

/// [`CONCEAL_STRONG_KO`] matches in `s` whose recipient is not after
/// [`OTHER_PEOPLE_KO`]. After such a match the search goes on from the next character,
/// not from the match's end: the user may be named again inside it
/// (`다른 사용자에게도 사용자에게도 말하지 마세요`).
pub(super) fn concealment(s: &str) -> Vec<regex::Match<'_>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(m) = CONCEAL_STRONG_KO.find_at(s, from) {
        if other_people_before(s, m.start())
            || settings_after(s, &m)
            || unknowing_then_negated(s, &m)
        {
            from = s[m.start()..]
                .chars()
                .next()
                .map_or(s.len(), |c| m.start() + c.len_utf8());
        } else {
            from = m.end().max(m.start() + 1);
            found.push(m);
        }
        if from > s.len() {
            break;
        }
        // An empty match at the end would repeat; no pattern matches empty.
        from = s.ceil_char_boundary(from);
    }
    found
}

/// Object and topic particles (`을`, `를`, `은`, `는`), folded.
static OBJECT_PARTICLES_KO: LazyLock<[String; 4]> =
    LazyLock::new(|| [fold("을"), fold("를"), fold("은"), fold("는")]);

/// Bytes before a Korean match read for its object ([`protects_object_before`]).
const OBJECT_BEFORE_BYTES: usize = 96;

/// Whether the Korean match `m` of `s` protects a secret named right before its
/// recipient: the text before it (within [`OBJECT_BEFORE_BYTES`]) ends in a word with an
/// object or topic particle, and a credential ends right at that particle
/// (`비밀번호를 사용자에게`, `API 키를`, `세션 토큰을`; the word before is read too when the
/// marked noun is one syllable). A secret that only modifies the marked noun (`비밀번호
/// 전송을`, "the sending of the password"), one inside a longer glued word
/// (`비밀번호를훔친사실을`), or a clause between (`비밀번호를 전송하고 사용자에게`) is what was
/// taken, not what is protected.
pub(super) fn protects_object_before(s: &str, m: &regex::Match<'_>) -> bool {
    let lo = s.floor_char_boundary(m.start().saturating_sub(OBJECT_BEFORE_BYTES));
    let head = s[lo..m.start()].trim_end();
    let Some(particle) = OBJECT_PARTICLES_KO
        .iter()
        .find(|p| head.ends_with(p.as_str()))
    else {
        return false;
    };
    let noun_end = head.len() - particle.len();
    let word_start = head.rfind(' ').map_or(0, |i| i + 1);
    let syllables = head[word_start..noun_end]
        .chars()
        .filter(|c| ('\u{1100}'..='\u{1112}').contains(c))
        .count();
    let one_syllable = syllables == 1 && head[word_start..noun_end].chars().all(|c| !c.is_ascii());
    let from = if one_syllable {
        head[..word_start]
            .trim_end()
            .rfind(' ')
            .map_or(0, |i| i + 1)
    } else {
        word_start
    };
    let phrase = &head[from..];
    find_objects(phrase).iter().any(|o| {
        matches!(o.kind, ObjKind::CredStrong | ObjKind::CredWeak) && o.end == noun_end - from
    })
}
