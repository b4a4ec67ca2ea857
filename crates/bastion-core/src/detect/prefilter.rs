//! The sentence prefilter: one Aho-Corasick pass over the folded text finds the sentences
//! that can produce a signal at all, and only those get the full analysis of
//! [`super::signals`].
//!
//! # Soundness
//! Every pattern of [`super::phrases`] and [`super::objects`] that can make
//! [`super::signals`] record a hit needs some literal text in the sentence. The tables
//! below list, for every alternative of those patterns, *anchors*: literals of which a
//! match must contain at least one, in the folded form the pattern itself is matched
//! against. A sentence whose anchors cannot satisfy [`needs_analysis`] produces no hit on
//! the full path either, so skipping it changes nothing: the signals (and their
//! evidence, and its order) are exactly those of analyzing every sentence.
//!
//! An anchor may ask for the word boundaries the pattern has around it (`\b`); a
//! boundary is refuted only by an ASCII letter, digit or `_` next to the anchor, which is
//! a word character for the pattern too, so the check never rejects a real match.
//!
//! # Look-alikes
//! The prefilter never looks at the raw text. It runs on exactly the text the patterns
//! see: after NFKC, case folding, mark and invisible-character removal and per-word UTS
//! #39 confusable folding ([`super::fold`]). A Cyrillic `о`, a fullwidth `ｉ`, an accent,
//! a zero-width space or tag characters inside `ignore` are gone before the anchors are
//! looked for, so a look-alike spelling that would still match a pattern also contains
//! the anchor, and a spelling that defeats the anchors defeats the pattern as well.
//!
//! Tests check the anchors against strings generated from every pattern, and the fast
//! path against the full path on text built from trigger phrases and look-alikes.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use std::sync::LazyLock;

/// The boundaries an anchor needs around it in the folded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Bound {
    /// Anywhere.
    Any,
    /// At the start of a word (`\b` before it).
    Prefix,
    /// A whole word (`\b` on both sides).
    Word,
    /// A segment of an identifier: no ASCII letter or digit on either side (`_` is fine).
    Segment,
}

/// The anchor groups a sentence's hits fall into (bit flags).
mod group {
    /// Enough on its own: a pattern that records a signal by itself.
    pub(crate) const ALONE: u16 = 1;
    /// A user word, for English concealment ("… the user").
    pub(crate) const USER: u16 = 1 << 1;
    /// A negation or `without`/`from`, for English concealment.
    pub(crate) const CONCEAL_NEG: u16 = 1 << 2;
    /// An e-mail address or URL (a reroute target).
    pub(crate) const ADDRESS: u16 = 1 << 3;
    /// A reroute verb phrase (`REROUTE`).
    pub(crate) const REROUTE: u16 = 1 << 4;
    /// A named tool, function or command (`NAMED_TOOL`).
    pub(crate) const NAMED: u16 = 1 << 5;
    /// A reference to other tools or servers (`OTHER_REF`).
    pub(crate) const OTHER: u16 = 1 << 6;
    /// A shadowing action (`SHADOW_ACTION`, `FIRST_RUN`).
    pub(crate) const ACTION: u16 = 1 << 7;
}

use group::{ACTION, ADDRESS, ALONE, CONCEAL_NEG, NAMED, OTHER, REROUTE, USER};

/// Whether a sentence whose anchors fall into `mask` can produce a signal: every way
/// [`super::signals`] records a hit needs one of these combinations.
pub(crate) fn needs_analysis(mask: u16) -> bool {
    let has = |g: u16| mask & g != 0;
    has(ALONE)
        || (has(USER) && has(CONCEAL_NEG))
        || (has(REROUTE) && has(ADDRESS | NAMED | OTHER))
        || (has(OTHER) && has(ACTION))
}

/// The anchor table under construction.
#[derive(Default)]
struct Table {
    anchors: Vec<(String, Bound, u16)>,
}

impl Table {
    fn add(&mut self, bound: Bound, group: u16, words: &[&str]) {
        for w in words {
            self.anchors.push(((*w).to_owned(), bound, group));
        }
    }

    /// Every concatenation of one item from each part, in order.
    fn product(&mut self, bound: Bound, group: u16, parts: &[&[&str]]) {
        let mut acc = vec![String::new()];
        for part in parts {
            acc = acc
                .iter()
                .flat_map(|a| part.iter().map(move |p| format!("{a}{p}")))
                .collect();
        }
        for w in acc {
            self.anchors.push((w, bound, group));
        }
    }
}

/// The addressee words of `AI` in [`super::phrases`].
fn ai_words(t: &mut Table) {
    t.add(
        Bound::Word,
        ALONE,
        &[
            "ai", "ais", "ki", "kis", "ia", "ias", "bot", "bots", "llm", "llms", "gpt", "gpts",
        ],
    );
    t.add(
        Bound::Prefix,
        ALONE,
        &[
            "a.i.",
            "assist",
            "model",
            "agent",
            "chatbot",
            "claude",
            "chatgpt",
            "gemini",
            "copilot",
            "asistente",
            "sprachmodell",
        ],
    );
}

/// Anchors of the simple signal patterns of [`super::phrases`].
fn phrases(t: &mut Table) {
    use Bound::{Any, Prefix, Word};
    // ADDRESS, ADDRESS_THIRD: the addressee; `l'?\s?ia doit` may glue the article on.
    ai_words(t);
    t.add(Word, ALONE, &["doit", "devra"]);
    // ROLE_PREFIX: a role word then `\s*:`.
    t.product(
        Prefix,
        ALONE,
        &[
            &[
                "assistant",
                "system",
                "ai",
                "llm",
                "agent",
                "developer",
                "model",
            ],
            &[":", " :"],
        ],
    );
    // PRECONDITION.
    t.product(
        Prefix,
        ALONE,
        &[
            &["before "],
            &[
                "",
                "you ",
                "the assistant ",
                "the model ",
                "the ai ",
                "the agent ",
            ],
            &[
                "call", "us", "run", "invok", "execut", "answer", "respond", "repl", "return",
                "choos", "select", "proceed", "continu", "do", "perform", "send", "summariz",
                "complet",
            ],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["first ", "first, "],
            &["", "you must ", "you should ", "you need to "],
            &[
                "call", "run", "read", "open", "execute", "invoke", "send", "copy", "print",
                "fetch",
            ],
        ],
    );
    t.add(
        Prefix,
        ALONE,
        &["bevor du", "bevor sie", "avant d", "antes de"],
    );
    // STANDING, STANDING_IMPERATIVE.
    t.add(
        Prefix,
        ALONE,
        &[
            "from now on",
            "for the rest of",
            "for the remainder of",
            "in all future",
            "in all subsequent",
            "in every future",
            "in every subsequent",
            "a partir de",
            "de ahora en adelante",
        ],
    );
    t.add(
        Word,
        ALONE,
        &[
            "whenever",
            "every time",
            "each time",
            "any time",
            "anytime",
            "ab jetzt",
            "ab sofort",
            "desormais",
            "dorenavant",
        ],
    );
    // TRIGGER.
    t.add(
        Prefix,
        ALONE,
        &[
            "user writes",
            "user says",
            "user types",
            "user sends",
            "user enters",
            "user mentions",
            "user uses the word",
            "user asks for",
            "user ever",
            "usuario escribe",
            "usuario dice",
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[&["benutzer ", "nutzer ", "anwender "], &["'", "\""]],
    );
    t.add(
        Any,
        ALONE,
        &["utilisateur ecrit", "utilisateur dit", "utilisateur tape"],
    );
    // OVERRIDE.
    t.add(
        Prefix,
        ALONE,
        &[
            "ignore",
            "disregard",
            "forget",
            "override",
            "bypass",
            "skip",
            "you are now",
            "new instruction",
            "new system instruction",
            "enable developer mode",
            "enable god mode",
            "enable admin mode",
            "enable debug mode",
            "ignorier",
            "vergiss alle",
            "oublie",
            "ignora",
            "olvida",
        ],
    );
    // CONCEAL_WEAK.
    let conceal_verbs: &[&str] = &[
        "mention",
        "reveal",
        "disclose",
        "acknowledge",
        "discuss",
        "explain",
        "report",
        "show",
        "display",
        "log",
    ];
    t.product(
        Prefix,
        ALONE,
        &[&["not ", "dont ", "never "], conceal_verbs],
    );
    t.product(Any, ALONE, &[&["n't "], conceal_verbs]);
    t.product(
        Prefix,
        ALONE,
        &[
            &["this "],
            &["", "is "],
            &["", "a ", "an "],
            &["internal", "secret", "confidential", "hidden"],
        ],
    );
    t.add(
        Word,
        ALONE,
        &[
            "secretly",
            "silently",
            "covertly",
            "quietly",
            "discreetly",
            "invisibly",
            "stealthily",
            "heimlich",
            "unbemerkt",
            "stillschweigend",
            "secretement",
            "discretement",
            "menciones",
            "mencione",
            "digas",
            "reveles",
            "secretamente",
            "sigilosamente",
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["keep "],
            &["this", "it", "that"],
            &[" ", " a "],
            &["secret", "hidden", "confidential", "between us"],
        ],
    );
    t.add(Prefix, ALONE, &["erwahne ", "en secret"]);
    t.product(
        Prefix,
        ALONE,
        &[
            &[
                "mentionne",
                "mentionnez",
                "mentionner",
                "dis",
                "dites",
                "revele",
                "revelez",
            ],
            &[" pas", " jamais"],
        ],
    );
    // PSEUDO_TAG, CHAT_ROLE.
    t.product(
        Any,
        ALONE,
        &[
            &[
                "important",
                "system",
                "system_prompt",
                "system-prompt",
                "instruction",
                "instructions",
                "admin",
                "administrator",
                "hidden",
                "assistant",
                "sys",
                "critical",
                "override",
                "developer",
                "internal",
                "priority",
                "ai_instructions",
                "tool_instructions",
                "secret_instructions",
                "urgent",
            ],
            &[">", " >"],
        ],
    );
    t.add(Any, ALONE, &["<|", "<<"]);
    t.product(
        Any,
        ALONE,
        &[
            &["[", "[/"],
            &["inst", "sys", "system", "important", "admin", "assistant"],
            &["]"],
        ],
    );
    // CRED_REQUEST.
    t.product(
        Prefix,
        ALONE,
        &[
            &[
                "user",
                "users",
                "human",
                "customer",
                "operator",
                "owner",
                "requester",
            ],
            &[" for ", " to "],
        ],
    );
    // TOOL_CALL.
    t.add(Word, ALONE, &["tool"]);
    // RUN_COMMAND.
    t.add(
        Word,
        ALONE,
        &[
            "sudo",
            "curl",
            "wget",
            "chmod",
            "chown",
            "rm",
            "bash",
            "sh",
            "zsh",
            "powershell",
            "pwsh",
            "nc",
            "ncat",
            "scp",
            "ssh",
            "eval",
            "iex",
            "base64",
            "dd",
            "mkfs",
        ],
    );
    t.add(Prefix, ALONE, &["python -c"]);
    t.add(Any, ALONE, &["|python", "| python"]);
    // COERCION.
    t.add(
        Prefix,
        ALONE,
        &[
            "you must",
            "you should always",
            "you are required to",
            "you shall",
            "you are instructed to",
            "you are obligated to",
            "must always",
            "make sure",
            "under no circumstances",
            "not skip",
            "right now",
            "without delay",
            "right away",
            "du musst",
            "sie mussen",
            "ihr musst",
            "du sollst",
            "sie sollen",
            "du solltest",
            "sie sollten immer",
            "wichtig",
            "tu dois",
            "vous devez",
            "il faut que",
            "tu devras",
            "vous devrez",
            "debes",
            "tienes que",
            "usted debe",
            "debera",
            "tiene que",
        ],
    );
    t.add(Word, ALONE, &["immediately"]);
    t.product(
        Prefix,
        ALONE,
        &[
            &["in your "],
            &[
                "response",
                "reply",
                "answer",
                "summary",
                "output",
                "next message",
                "final answer",
            ],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["always ", "never "],
            &[
                "call", "run", "invoke", "execute", "send", "include", "append", "pass", "read",
                "open", "print", "copy", "ask", "tell", "respond", "reply", "prefix", "mention",
                "say", "output", "answer", "forward", "attach", "put",
            ],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &[
                "important",
                "critical",
                "crucial",
                "essential",
                "mandatory",
                "vital",
                "imperative",
            ],
            &[" that", " to"],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["will ", "would "],
            &[
                "be wrong",
                "be incorrect",
                "fail",
                "break",
                "not work",
                "be invalid",
                "crash",
                "be rejected",
            ],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[&["mandatory ", "required "], &["step", "instruction"]],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["important", "essentiel", "crucial"],
            &[" de", " que", " d'"],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[&["importante", "esencial", "crucial"], &[" que"]],
    );
    // CONCEAL_STRONG: English needs a user word and a negation, `without` or `from`.
    t.add(
        Word,
        USER,
        &[
            "user",
            "users",
            "human",
            "customer",
            "operator",
            "owner",
            "requester",
        ],
    );
    t.add(
        Word,
        CONCEAL_NEG,
        &["not", "dont", "never", "without", "from"],
    );
    t.add(Any, CONCEAL_NEG, &["n't"]);
    t.add(Prefix, CONCEAL_NEG, &["no need"]);
    t.product(
        Prefix,
        ALONE,
        &[
            &["dem ", "den ", "der "],
            &["benutzer", "nutzer", "anwender", "user", "kunden"],
        ],
    );
    t.add(
        Prefix,
        ALONE,
        &[
            "ohne dass",
            "al usuario",
            "a los usuario",
            "a el usuario",
            "sin que el usuario",
        ],
    );
    t.add(Any, ALONE, &["utilisat"]);
}

/// Anchors of the objects of [`super::objects`] and of what pairs with them.
fn objects(t: &mut Table) {
    use Bound::{Any, Prefix, Segment, Word};
    // CRED_STRONG.
    t.add(
        Any,
        ALONE,
        &[
            ".ssh",
            "~/",
            "$home/",
            "%userprofile%/",
            "/home/",
            "/root/",
            "/users/",
            ".env",
            ".aws/",
            ".npmrc",
            ".netrc",
            ".pgpass",
            ".pypirc",
            ".git-credentials",
            ".gnupg",
            ".password-store",
            ".docker/config",
            ".kube/config",
            "/etc/shadow",
            "/etc/gshadow",
            "/etc/sudoers",
            "_history",
            ".pem",
            ".p12",
            ".pfx",
            ".jks",
            ".ppk",
            ".key",
        ],
    );
    t.add(
        Prefix,
        ALONE,
        &[
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
            "credential",
            "private key",
            "secret key",
            "signing key",
            "ssh key",
            "gpg key",
            "pgp key",
            "seed phrase",
            "recovery phrase",
            "mnemonic phrase",
            "wallet.dat",
            "keychain",
            "keystore",
            "cookie",
            "password",
            "login data",
        ],
    );
    // IDENT named like a secret (`is_secret_name`): a secret segment, or a pair whose
    // second half `key` follows an underscore.
    t.add(
        Segment,
        ALONE,
        &[
            "secret",
            "secrets",
            "password",
            "passwd",
            "pwd",
            "passphrase",
            "token",
            "apikey",
            "credential",
            "credentials",
            "privatekey",
            "pat",
        ],
    );
    t.add(Any, ALONE, &["_key"]);
    // CRED_WEAK.
    t.add(
        Prefix,
        ALONE,
        &[
            "passphrase",
            "passcode",
            "api key",
            "api-key",
            "apikey",
            "token",
            "secret",
            "environment variable",
            "env var",
            "passwort",
            "mot de passe",
            "mots de passe",
            "contrasena",
            "clave",
            "printenv",
        ],
    );
    t.add(Any, ALONE, &["/proc/self/environ"]);
    // DATA_STRONG.
    t.add(
        Prefix,
        ALONE,
        &[
            "conversation",
            "dialog",
            "system prompt",
            "your instructions",
            "your system instructions",
            "your context window",
            "your memor",
            "everything the user",
            "everything you",
            "user's",
            "chatverlauf",
            "gesprachsverlauf",
            "unterhaltung",
            "historique",
            "integralite",
            "toute la discussion",
            "historial",
            "conversacion",
        ],
    );
    t.add(
        Word,
        ALONE,
        &[
            "chat",
            "messages",
            "prompts",
            "replies",
            "turns",
            "exchanges",
            "verlauf",
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["message", "prompt", "session"],
            &[" history", " log", " transcript"],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &[
                "result",
                "results",
                "output",
                "outputs",
                "response",
                "responses",
            ],
            &[" of "],
            &["every", "all", "each", "any", "the other", "other"],
        ],
    );
    // DATA_MEDIUM.
    t.product(
        Prefix,
        ALONE,
        &[
            &["last ", "latest ", "previous ", "recent "],
            &["", "user "],
            &["message", "prompt", "question", "request"],
        ],
    );
    t.product(
        Prefix,
        ALONE,
        &[
            &["its "],
            &["", "full ", "entire ", "whole ", "complete ", "raw "],
            &["text", "content"],
        ],
    );
    t.add(
        Prefix,
        ALONE,
        &[
            "text of",
            "content of",
            "contents of",
            "file contents",
            "their contents",
        ],
    );
    // address_target: EMAIL, URL.
    t.add(Any, ADDRESS, &["@", "http://", "https://"]);
    // REROUTE.
    t.add(
        Word,
        REROUTE,
        &[
            "set", "change", "replace", "switch", "redirect", "reroute", "override", "point",
            "rewrite", "forward", "divert", "bcc", "cc",
        ],
    );
    t.add(
        Prefix,
        REROUTE,
        &["put the", "send a copy", "send copies", "instead of"],
    );
    // OTHER_REF and NAMED_TOOL.
    t.add(
        Prefix,
        OTHER,
        &[
            "tool",
            "server",
            "command",
            "function",
            "plugin",
            "extension",
            "integration",
        ],
    );
    t.add(Word, NAMED, &["tool", "function", "command"]);
    // SHADOW_ACTION, FIRST_RUN.
    t.add(
        Word,
        ACTION,
        &[
            "first",
            "whenever",
            "every time",
            "each time",
            "any time",
            "anytime",
            "before",
        ],
    );
    let shadow_verbs: &[&str] = &["use", "call", "run", "invoke", "trust"];
    t.product(Prefix, ACTION, &[&["not ", "never "], shadow_verbs]);
    t.product(Any, ACTION, &[&["n't "], shadow_verbs]);
    t.add(Prefix, ACTION, &["instead of", "from now on"]);
    t.product(
        Prefix,
        ACTION,
        &[
            &["always "],
            &["use", "call", "run", "prefer", "route", "send"],
        ],
    );
}

/// The compiled anchors: one automaton, and per pattern its boundary and groups.
struct Anchors {
    automaton: AhoCorasick,
    meta: Vec<(Bound, u16)>,
}

fn table() -> Vec<(String, Bound, u16)> {
    let mut t = Table::default();
    phrases(&mut t);
    objects(&mut t);
    // One pattern per (text, boundary), groups merged.
    let mut merged: Vec<(String, Bound, u16)> = Vec::with_capacity(t.anchors.len());
    for (text, bound, g) in t.anchors {
        if let Some(m) = merged.iter_mut().find(|m| m.0 == text && m.1 == bound) {
            m.2 |= g;
        } else {
            merged.push((text, bound, g));
        }
    }
    merged
}

static ANCHORS: LazyLock<Anchors> = LazyLock::new(|| {
    let table = table();
    let automaton = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(table.iter().map(|a| a.0.as_bytes()))
        .unwrap_or_else(|e| panic!("built-in anchors do not compile: {e}"));
    Anchors {
        automaton,
        meta: table.iter().map(|a| (a.1, a.2)).collect(),
    }
});

/// A word character for the patterns' `\b` that is certainly one: ASCII letters, digits
/// and `_` (anything non-ASCII counts as a possible boundary).
const fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// An identifier segment character of `IDENT` (`[a-z0-9]`).
const fn is_segment_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn bound_ok(bytes: &[u8], start: usize, end: usize, bound: Bound) -> bool {
    let before = start.checked_sub(1).map(|i| bytes[i]);
    let after = bytes.get(end).copied();
    match bound {
        Bound::Any => true,
        Bound::Prefix => !before.is_some_and(is_word_byte),
        Bound::Word => !before.is_some_and(is_word_byte) && !after.is_some_and(is_word_byte),
        Bound::Segment => {
            !before.is_some_and(is_segment_byte) && !after.is_some_and(is_segment_byte)
        }
    }
}

/// The anchor groups found in `text` (tests and sentence-level checks).
#[cfg(test)]
pub(crate) fn groups_in(text: &str) -> u16 {
    let a = &*ANCHORS;
    let bytes = text.as_bytes();
    a.automaton
        .find_overlapping_iter(text)
        .filter(|m| bound_ok(bytes, m.start(), m.end(), a.meta[m.pattern()].0))
        .fold(0, |acc, m| acc | a.meta[m.pattern()].1)
}

/// Calls `visit` with every sentence of `folded` (as [`super::fold::sentences`] yields
/// it) that [`needs_analysis`], in text order.
pub(crate) fn candidate_sentences(folded: &str, mut visit: impl FnMut(&str)) {
    let a = &*ANCHORS;
    let bytes = folded.as_bytes();
    // The current piece, its groups, and whether it was already visited.
    let mut piece = (0usize, 0usize);
    let mut mask = 0u16;
    let mut done = false;
    for m in a.automaton.find_overlapping_iter(folded) {
        let (bound, groups) = a.meta[m.pattern()];
        if m.start() >= piece.1 {
            piece = super::fold::piece_around(folded, m.start(), piece.1);
            mask = 0;
            done = false;
        }
        if done || mask & groups == groups || !bound_ok(bytes, m.start(), m.end(), bound) {
            continue;
        }
        mask |= groups;
        if needs_analysis(mask) {
            done = true;
            visit(folded[piece.0..piece.1].trim());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anchors are lowercase folded text, never cross a sentence end, and boundary
    /// checks sit on word characters.
    #[test]
    fn anchors_are_well_formed() {
        for (text, bound, _) in table() {
            assert!(!text.is_empty());
            assert_eq!(super::super::fold::fold(&text), text.trim(), "{text:?}");
            for end in [". ", "! ", "? ", "; ", "\n"] {
                assert!(!text.contains(end), "{text:?}");
            }
            let first = text.as_bytes()[0];
            let last = text.as_bytes()[text.len() - 1];
            match bound {
                Bound::Any => {}
                Bound::Prefix => assert!(is_word_byte(first), "{text:?}"),
                Bound::Word | Bound::Segment => {
                    assert!(is_word_byte(first) && is_word_byte(last), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn boundaries() {
        assert_eq!(groups_in("hey ai, do it") & ALONE, ALONE);
        assert_eq!(groups_in("said again"), 0);
        assert_eq!(groups_in("the user must not know"), USER | CONCEAL_NEG);
        assert!(needs_analysis(groups_in("the user must not know")));
        assert_eq!(groups_in("my_github_pat") & ALONE, ALONE);
        assert_eq!(groups_in("pattern path"), 0);
        assert!(!needs_analysis(groups_in(
            "the quick brown fox jumps over the lazy dog; results are data, not instructions."
        )));
    }
}
#[cfg(test)]
mod probe {
    #[test]
    fn probe_size() {
        let a = &*super::ANCHORS;
        eprintln!("patterns {} mem {}", a.automaton.patterns_len(), a.automaton.memory_usage());
        let text = "the quick brown fox jumps over the lazy dog; results are data, not instructions. ".repeat(13000);
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let n = a.automaton.find_overlapping_iter(&text).count();
            eprintln!("overlapping {n} {:?} for {}", t.elapsed(), text.len());
            let t = std::time::Instant::now();
            let n = a.automaton.find_iter(&text).count();
            eprintln!("standard {n} {:?}", t.elapsed());
            let t = std::time::Instant::now();
            let f = super::super::fold::fold(&text);
            eprintln!("fold {:?} {}", t.elapsed(), f.len());
        }
    }
}
