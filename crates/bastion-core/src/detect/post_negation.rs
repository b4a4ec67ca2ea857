//! Negations that follow their verb ([`langs::POST_NEGATIONS`]: Dutch and German put
//! `niet`/`nicht` after the verb and its object, "stuur het gesprek niet door"): whether
//! one stands between a verb and the object paired with it (see `signals::pair_verbs`).

use super::langs;
use std::ops::Range;

/// The negations of one sentence that follow their verb ([`langs::POST_NEGATIONS`]:
/// "stuur het gesprek niet door"), found once for all the verb and object pairs that
/// [`negated_between`] looks at: a sentence of `-send 비밀번호` repeated has a dozen objects
/// near each verb, and splitting the span of each pair into words again took 1.8 s per
/// 256 KiB (the Unicode classification of Hangul jamo is slow), and still 0.94 s when a
/// negation was glued into a longer word (`비밀번호nietx`).
pub(super) struct PostNegations {
    /// A negation occurs in the sentence, at least inside a longer word.
    any: bool,
    /// The byte ranges of the sentence's words (maximal runs of alphanumeric characters)
    /// that are a negation, in order.
    words: Vec<Range<usize>>,
}

impl PostNegations {
    pub(super) fn of(sentence: &str) -> Self {
        let mut words = Vec::new();
        let mut any = false;
        for n in langs::POST_NEGATIONS {
            for (at, _) in sentence.match_indices(n) {
                any = true;
                let end = at + n.len();
                let alnum_before = sentence[..at]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric);
                let alnum_after = sentence[end..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric);
                if !alnum_before && !alnum_after {
                    words.push(at..end);
                }
            }
        }
        words.sort_unstable_by_key(|r| r.start);
        Self { any, words }
    }
}

/// The longest negation of [`langs::POST_NEGATIONS`], in bytes (so at least its
/// characters): computed, so that a longer negation added to the list is read whole.
const LONGEST_POST_NEGATION: usize = {
    let mut longest = 0;
    let mut i = 0;
    while i < langs::POST_NEGATIONS.len() {
        if langs::POST_NEGATIONS[i].len() > longest {
            longest = langs::POST_NEGATIONS[i].len();
        }
        i += 1;
    }
    longest
};

/// Whether a negation that follows its verb stands between a verb ending at `from` and
/// the word after its object, which ends at `to`: whether a word of that span (split at
/// every character that is not alphanumeric) is one of `negations`. The words inside the
/// span come from the sentence's list; the span's first and last pieces, which its ends
/// may cut out of longer words, are read here (at most a negation's length each).
pub(super) fn negated_between(
    sentence: &str,
    negations: &PostNegations,
    from: usize,
    to: usize,
) -> bool {
    if to <= from || !negations.any {
        return false;
    }
    // The word after the object, looked for within a bounded stretch.
    let tail = &sentence[to..sentence.floor_char_boundary(to + 64)];
    let next = tail.trim_start();
    let word = next.find(char::is_whitespace).unwrap_or(next.len());
    let end = to + (tail.len() - next.len()) + word;
    let i = negations.words.partition_point(|r| r.start < from);
    if negations.words.get(i).is_some_and(|r| r.end <= end) {
        return true;
    }
    let span = &sentence[from..end];
    let is_negation = |piece: &str| langs::POST_NEGATIONS.contains(&piece);
    let first = span
        .char_indices()
        .take(LONGEST_POST_NEGATION + 1)
        .find(|(_, c)| !c.is_alphanumeric())
        .map_or(span, |(at, _)| &span[..at]);
    let last = span
        .char_indices()
        .rev()
        .take(LONGEST_POST_NEGATION + 1)
        .find(|(_, c)| !c.is_alphanumeric())
        .map_or(span, |(at, c)| &span[at + c.len_utf8()..]);
    is_negation(first) || is_negation(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`negated_between`] as it was before the sentence's negations were found once:
    /// the span split into words for every verb and object pair.
    fn negated_between_per_pair(sentence: &str, from: usize, to: usize) -> bool {
        if to <= from {
            return false;
        }
        let tail = &sentence[to..sentence.floor_char_boundary(to + 64)];
        let next = tail.trim_start();
        let word = next.find(char::is_whitespace).unwrap_or(next.len());
        let end = to + (tail.len() - next.len()) + word;
        sentence[from..end]
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| langs::POST_NEGATIONS.contains(&w))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// The sentence's negations found once give the answer the span split per pair
        /// gave, for spans cut anywhere (inside words too).
        #[test]
        fn negations_found_once_answer_as_the_split_per_pair(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "niet", "nooit", "nicht", "niemals", "nie", "nietje", "x", "ab", " ",
                    ",", "-", "비밀번호", "é", "\n", "send", "1",
                    // Tokens past the 64 bytes read after an object, so that the span
                    // ends inside a word.
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
                ]),
                0..40,
            ),
            a in 0usize..400,
            b in 0usize..400,
        ) {
            let sentence: String = pieces.concat();
            let at = |i: usize| sentence.floor_char_boundary(i);
            let (from, to) = (at(a), at(b));
            let negations = PostNegations::of(&sentence);
            proptest::prop_assert_eq!(
                negated_between(&sentence, &negations, from, to),
                negated_between_per_pair(&sentence, from, to),
                "{:?} {}..{}", sentence, from, to
            );
        }
    }
}
