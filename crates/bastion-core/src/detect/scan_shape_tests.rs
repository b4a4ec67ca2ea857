//! Search shape of the detector patterns that are searched more than once per sentence
//! (`find_iter` and `captures_iter` loops): a guard against adding the shape behind the
//! quadratic scans found on 2026-12-05.
//!
//! Each of those scans came from one shape: a long repeat (`+`, `*`, `{n,}`, or bounded
//! above [`LONG_REPEAT`]) inside a choice (a branch of an alternation, an optional part,
//! or an iteration past a repeat's minimum). On a long run that the repeat accepts, a
//! search started before a short match keeps reading until the repeat fails at the end of
//! the run, reports the short match, and the next search starts just after it and reads
//! the run again. Whether a repeat of that shape can be driven that way depends on what
//! else can match inside its run, which this test does not decide; it counts them. A
//! pattern edit that adds one fails here: bound the repeat, search the alternative on its
//! own (see `objects::CRED_PATHS`), or read words only after a space (the Korean
//! concealment patterns), then measure the worst input (bench `injection_scan`, 64 KiB
//! against 256 KiB) and raise the count. A repeat of whitespace is not counted: folded
//! text has no run of two whitespace characters ([`super::fold`] collapses them).
//!
//! Only the patterns listed in [`searched_repeatedly`] are checked: a new `find_iter`
//! loop over another pattern must be added there.

use regex::Regex;
use regex_syntax::hir::{Class, Hir, HirKind};

/// Appends to `out` the long repeats of `hir` that sit inside a choice, printed as their
/// own pattern.
fn repeats_in_choice(hir: &Hir, in_choice: bool, out: &mut Vec<String>) {
    match hir.kind() {
        HirKind::Repetition(rep) => {
            let long = rep.max.is_none_or(|max| max > LONG_REPEAT);
            if long && in_choice && !is_whitespace_class(&rep.sub) {
                out.push(hir.to_string());
            }
            // Every iteration past the minimum is optional.
            repeats_in_choice(&rep.sub, in_choice || rep.max != Some(rep.min), out);
        }
        HirKind::Capture(cap) => repeats_in_choice(&cap.sub, in_choice, out),
        HirKind::Concat(parts) => {
            for p in parts {
                repeats_in_choice(p, in_choice, out);
            }
        }
        HirKind::Alternation(branches) => {
            for b in branches {
                repeats_in_choice(b, in_choice || branches.len() > 1, out);
            }
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
    }
}

/// A bounded repeat longer than this reads like an unbounded one on a long run.
const LONG_REPEAT: u32 = 255;

/// A class of whitespace characters only (`\s`, `[ \t]`).
fn is_whitespace_class(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => c.ranges().iter().all(|r| {
            u32::from(r.end()) - u32::from(r.start()) < 64
                && (r.start()..=r.end()).all(char::is_whitespace)
        }),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .all(|r| (r.start()..=r.end()).all(|b| b.is_ascii_whitespace())),
        _ => false,
    }
}

/// The long repeats inside a choice of the compiled pattern `re`.
fn repeats_in_choices(re: &Regex) -> Vec<String> {
    let hir = regex_syntax::parse(re.as_str())
        .unwrap_or_else(|e| panic!("a built-in pattern does not parse: {e}"));
    let mut out = Vec::new();
    repeats_in_choice(&hir, false, &mut out);
    out
}

/// Every pattern a detector searches repeatedly over one sentence or text, by name.
fn searched_repeatedly() -> Vec<(&'static str, &'static Regex)> {
    use super::phrases as p;
    let mut v: Vec<(&'static str, &'static Regex)> = vec![
        ("COERCION", &p::COERCION),
        ("PRECONDITION", &p::PRECONDITION),
        ("TOOL_CALL", &p::TOOL_CALL),
        ("CONCEAL_STRONG", &p::CONCEAL_STRONG),
        ("CONCEAL_STRONG_KO", &p::CONCEAL_STRONG_KO),
        ("READ_VERB", &p::READ_VERB),
        ("TRANSFER_VERB", &p::TRANSFER_VERB),
        ("NAMED_TOOL", &p::NAMED_TOOL),
    ];
    v.extend(
        super::objects::patterns()
            .into_iter()
            // Searched once per sentence (`find`, `captures`).
            .filter(|(name, _)| !matches!(*name, "URL" | "EMAIL" | "ENCODING_SINK")),
    );
    let demand = super::cred_demand::patterns();
    // The last one is the frame pattern, searched once.
    v.extend(
        demand[..demand.len() - 1]
            .iter()
            .map(|re| ("CRED_DEMAND", *re)),
    );
    v.extend(super::signals::shape_patterns());
    v.extend(super::secret_params::shape_patterns());
    v.extend(super::result_text::shape_patterns());
    v
}

/// How many long repeats inside a choice each pattern has. Not a safety proof: when the
/// table was first written (`b46da89`), `CONCEAL_STRONG`'s 43 included the Korean `\S+`
/// that scanned 256 KiB in 8 s, fixed in `3344c46` without changing the count. A
/// count that stays the same can hide a harmful repeat swapped for a harmless one; the
/// test only makes an added repeat visible. The Korean patterns' count went up by two
/// with their punctuation runs after the recipient (45 in one table entry, then split
/// into `CONCEAL_STRONG` 41 and `CONCEAL_STRONG_KO` 4): they read punctuation only, so
/// a search from a recipient ends at most twelve characters after the run (timed on
/// runs of commas and recipients glued by commas: linear).
const COUNTED: &[(&str, usize)] = &[
    ("COERCION", 0),
    ("PRECONDITION", 2),
    ("TOOL_CALL", 7),
    ("CONCEAL_STRONG", 41),
    ("CONCEAL_STRONG_KO", 4),
    ("READ_VERB", 0),
    ("TRANSFER_VERB", 0),
    ("NAMED_TOOL", 1),
    ("CRED_STRONG", 5),
    ("CRED_PATHS ~/.ssh", 0),
    ("CRED_PATHS .ssh/", 0),
    ("CRED_PATHS home", 2),
    ("CRED_PATHS key file", 0),
    ("CRED_WEAK", 4),
    ("IDENT", 4),
    ("DATA_STRONG", 3),
    ("DATA_MEDIUM", 0),
    ("PARAM_SINK", 9),
    ("CRED_DEMAND", 10),
    ("PREREQUISITE", 21),
    ("SECRET_NOUNS", 32),
    ("HIDDEN_COMMENTS", 0),
];

#[test]
fn patterns_searched_repeatedly_add_no_unbounded_repeat_inside_a_choice() {
    let mut found: Vec<(&str, usize)> = Vec::new();
    for (name, re) in searched_repeatedly() {
        let n = repeats_in_choices(re).len();
        match found.iter_mut().find(|(f, _)| *f == name) {
            Some((_, total)) => *total += n,
            None => found.push((name, n)),
        }
    }
    for (name, n) in &found {
        let counted = COUNTED
            .iter()
            .find(|(c, _)| c == name)
            .map_or_else(|| panic!("pattern {name} is not in COUNTED"), |(_, c)| *c);
        assert_eq!(
            *n, counted,
            "{name}: {n} unbounded repeats inside a choice, {counted} counted; see the module docs"
        );
    }
    assert_eq!(
        found.len(),
        COUNTED.len(),
        "COUNTED names a pattern no longer searched"
    );
}

#[test]
fn the_shape_that_was_quadratic_is_counted() {
    // The key-file alternative inside the credential alternation (before `3713428`) and
    // the hidden-comment alternation (before `5815d2e`).
    let old_cred = Regex::new(r"\bid_rsa\b|\b[a-z0-9_.-]+\.(?:pem|key)\b").unwrap();
    assert_eq!(repeats_in_choices(&old_cred), ["[\\-\\.0-9_a-z]+"]);
    let old_comments = Regex::new(r"(?s)<!--(.*?)-->|\[hidden comment:\s*(.*?)\]").unwrap();
    assert_eq!(repeats_in_choices(&old_comments).len(), 2);
    // Alone, bounded, or whitespace: not counted.
    for fine in [
        r"\b[a-z0-9_.-]+\.(?:pem|key)\b",
        r"\bid_rsa\b|\b[a-z0-9_.-]{1,64}\.(?:pem|key)\b",
        r"\bignore\s+all|\bdisregard\s*previous",
        r"(?s)<!--(.*?)(?:-->|\z)",
    ] {
        assert!(
            repeats_in_choices(&Regex::new(fine).unwrap()).is_empty(),
            "{fine}"
        );
    }
    // An optional part is a choice too, and so is an iteration past a repeat's minimum;
    // a bounded repeat longer than `LONG_REPEAT` counts as long.
    let optional = Regex::new(r"\bsend(?: to [a-z]+)?").unwrap();
    assert_eq!(repeats_in_choices(&optional), ["[a-z]+"]);
    let iterated = Regex::new(r"\bx(?:_[a-z]+)+").unwrap();
    assert_eq!(repeats_in_choices(&iterated), ["[a-z]+"]);
    let wide = Regex::new(r"\bkey|\bsend\S{0,4096}x").unwrap();
    assert_eq!(repeats_in_choices(&wide).len(), 1);
}
