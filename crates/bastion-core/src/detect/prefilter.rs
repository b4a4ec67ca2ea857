//! The sentence prefilter: one Aho-Corasick pass over the folded text finds the sentences
//! that can produce a signal at all, and which pattern families can match in each; only
//! those sentences, and only those families, get the regex analysis of
//! [`super::signals`].
//!
//! # Soundness
//! Every pattern of [`super::phrases`] and [`super::objects`] that can make
//! [`super::signals`] record a hit needs some literal text in the sentence. The tables
//! below list, for every alternative of those patterns, *anchors*: literals of which a
//! match must contain at least one, in the folded form the pattern itself is matched
//! against. Some patterns need two anchors (a verb and an object, `user` and a
//! negation): those are groups that count only together. [`families`] turns the anchors
//! of a sentence into the signal families (patterns, pairing steps) that can possibly
//! record a hit there. Only those run; a sentence without any is skipped. A pattern that
//! is skipped could not have matched, so the signals (and their evidence, and its
//! order) are exactly those of running every pattern on every sentence.
//!
//! An anchor may ask for the word boundaries the pattern has around it (`\b`); a
//! boundary is refuted only by an ASCII letter, digit or `_` next to the anchor, which is
//! a word character for the pattern too (ASCII patterns use ASCII word boundaries, see
//! [`super::phrases::boundaries`]; Cyrillic and CJK anchors are never refuted), so the
//! check never rejects a real match. No anchor contains a sentence end, so every anchor
//! occurrence lies in one sentence. Anchors of other scripts are folded like the text
//! ([`super::fold::fold_anchor`]); those of Chinese, Japanese and Korean, which have no
//! spaces between words, ask for no boundary.
//!
//! A pattern edit needs its anchors edited too: `anchors_cover_every_pattern` generates
//! strings from every pattern and fails on a match whose anchors are missing.
//!
//! # Look-alikes
//! The prefilter never looks at the raw text. It runs on exactly the text the patterns
//! see: after NFKC, case folding, mark and invisible-character removal and per-word UTS
//! #39 confusable folding ([`super::fold`]). A Cyrillic `о`, a fullwidth `ｉ`, an accent,
//! a zero-width space or tag characters inside `ignore` are gone before the anchors are
//! looked for, so a look-alike spelling that would still match a pattern also contains
//! the anchor, and a spelling that defeats the anchors defeats the pattern as well.
//!
//! Tests check the anchors against strings generated from every pattern (folded, as
//! they would arrive), and the fast path against the full path (reference folding,
//! every pattern on every sentence) on text built from trigger phrases disguised with
//! look-alike letters, accents, zero-width and tag characters, odd spaces and case.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use std::sync::LazyLock;

/// The boundaries an anchor needs around it in the folded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Bound {
    /// Anywhere.
    Any,
    /// At the start of a word (`\b` before it).
    Prefix,
    /// A whole word (`\b` on both sides).
    Word,
    /// A segment of an identifier: no ASCII letter or digit on either side (`_` is fine).
    Segment,
}

/// The signal families of [`super::signals`]: one bit per pattern (or pair of patterns,
/// or pairing step) that records hits. A sentence is analyzed only for the families its
/// anchors allow.
pub(crate) mod family {
    /// `ADDRESS`.
    pub(crate) const ADDRESS: u64 = 1;
    /// `ADDRESS_THIRD`.
    pub(crate) const ADDRESS_THIRD: u64 = 1 << 1;
    /// `ROLE_PREFIX`.
    pub(crate) const ROLE_PREFIX: u64 = 1 << 2;
    /// `PRECONDITION`.
    pub(crate) const PRECONDITION: u64 = 1 << 3;
    /// `STANDING` and `STANDING_IMPERATIVE`.
    pub(crate) const STANDING: u64 = 1 << 4;
    /// `TRIGGER`.
    pub(crate) const TRIGGER: u64 = 1 << 5;
    /// `OVERRIDE`.
    pub(crate) const OVERRIDE: u64 = 1 << 6;
    /// `CONCEAL_WEAK`.
    pub(crate) const CONCEAL_WEAK: u64 = 1 << 7;
    /// `PSEUDO_TAG` and `CHAT_ROLE`.
    pub(crate) const TAG: u64 = 1 << 8;
    /// `CRED_REQUEST`.
    pub(crate) const CRED_REQUEST: u64 = 1 << 9;
    /// `TOOL_CALL`.
    pub(crate) const TOOL_CALL: u64 = 1 << 10;
    /// `RUN_COMMAND`.
    pub(crate) const RUN_COMMAND: u64 = 1 << 11;
    /// `COERCION`.
    pub(crate) const COERCION: u64 = 1 << 12;
    /// `CONCEAL_STRONG`.
    pub(crate) const CONCEAL_STRONG: u64 = 1 << 13;
    /// Verbs paired with objects, and reroutes to an address (`pair_verbs`).
    pub(crate) const PAIR: u64 = 1 << 14;
    /// References to other tools with an action that changes their use (`shadowing`).
    pub(crate) const SHADOW: u64 = 1 << 15;
    /// `cred_demand::DEMAND` (bit above the anchor groups).
    pub(crate) const CRED_DEMAND: u64 = 1 << 40;
    /// `cred_demand::FRAME`.
    pub(crate) const AUTH_FRAME: u64 = 1 << 41;
    /// Every family: the full path.
    pub(crate) const ALL: u64 = ((1 << 16) - 1) | CRED_DEMAND | AUTH_FRAME;
}

/// Anchor groups that only count together with another one (bit flags above the
/// families).
pub(super) mod group {
    /// A user word, for English concealment ("… the user").
    pub(crate) const USER: u64 = 1 << 16;
    /// A negation or `without`/`from`, for English concealment.
    pub(crate) const CONCEAL_NEG: u64 = 1 << 17;
    /// An e-mail address or URL (a reroute target).
    pub(crate) const TARGET: u64 = 1 << 18;
    /// A reroute verb phrase (`REROUTE`).
    pub(crate) const REROUTE: u64 = 1 << 19;
    /// A named tool, function or command (`NAMED_TOOL`).
    pub(crate) const NAMED: u64 = 1 << 20;
    /// A reference to other tools or servers (`OTHER_REF`).
    pub(crate) const OTHER: u64 = 1 << 21;
    /// A shadowing action (`SHADOW_ACTION`, `FIRST_RUN`).
    pub(crate) const ACTION: u64 = 1 << 22;
    /// The word `tool` of `TOOL_CALL`.
    pub(crate) const TOOL: u64 = 1 << 23;
    /// A verb of `TOOL_CALL` (`call`, `invoke`, `use`…).
    pub(crate) const CALL_VERB: u64 = 1 << 24;
    /// An object of [`super::super::objects`] (a secret, the conversation, user data).
    pub(crate) const OBJECT: u64 = 1 << 25;
    /// A verb of `READ_VERB` or `TRANSFER_VERB`, which objects pair with.
    pub(crate) const VERB: u64 = 1 << 26;
    /// A command name of `RUN_COMMAND` (`curl`, `rm`…).
    pub(crate) const COMMAND: u64 = 1 << 27;
    /// A verb of `RUN_COMMAND` (`run`, `paste`…).
    pub(crate) const RUN_VERB: u64 = 1 << 28;
    /// A verb of the English and French `OVERRIDE` (`ignore`, `skip`…).
    pub(crate) const OVERRIDE_VERB: u64 = 1 << 29;
    /// What those overrides disregard (`instructions`, `rules`…).
    pub(crate) const OVERRIDE_NOUN: u64 = 1 << 30;
    /// A user then `for` or `to` (`CRED_REQUEST`).
    pub(crate) const USER_FOR: u64 = 1 << 31;
    /// A secret a user is asked for (`CRED_REQUEST`).
    pub(crate) const SECRET_NOUN: u64 = 1 << 32;
    /// An article and a user word, for German concealment (`dem benutzer`).
    pub(crate) const DE_USER: u64 = 1 << 33;
    /// A German negation (`nicht`, `nichts`, `niemals`).
    pub(crate) const DE_NEG: u64 = 1 << 34;
    /// A demand verb of `cred_demand` (`reply`, `enter`, `gib`…).
    pub(crate) const DEMAND_VERB: u64 = 1 << 35;
    /// A secret noun of `cred_demand`.
    pub(crate) const DEMAND_NOUN: u64 = 1 << 36;
}

use family as F;
use group::{
    ACTION, CALL_VERB, COMMAND, CONCEAL_NEG, DE_NEG, DE_USER, NAMED, OBJECT, OTHER, OVERRIDE_NOUN,
    OVERRIDE_VERB, REROUTE, RUN_VERB, SECRET_NOUN, TARGET, TOOL, USER, USER_FOR, VERB,
};

/// The families a sentence whose anchors fall into `mask` can produce hits of: a family
/// anchor on its own, or two anchors that one pattern needs both of.
pub(crate) fn families(mask: u64) -> u64 {
    let has = |g: u64| mask & g != 0;
    let mut f = mask & F::ALL;
    let mut add = |family: u64, yes: bool| {
        if yes {
            f |= family;
        }
    };
    add(
        F::CONCEAL_STRONG,
        (has(USER) && has(CONCEAL_NEG)) || (has(DE_USER) && has(DE_NEG)),
    );
    add(F::OVERRIDE, has(OVERRIDE_VERB) && has(OVERRIDE_NOUN));
    add(F::CRED_REQUEST, has(USER_FOR) && has(SECRET_NOUN));
    add(
        F::CRED_DEMAND,
        has(group::DEMAND_VERB) && has(group::DEMAND_NOUN),
    );
    add(F::TOOL_CALL, has(TOOL) && has(CALL_VERB));
    add(F::RUN_COMMAND, has(COMMAND) && has(RUN_VERB));
    add(
        F::PAIR,
        (has(OBJECT) && has(VERB)) || (has(REROUTE) && has(TARGET)),
    );
    add(
        F::SHADOW,
        (has(REROUTE) && has(NAMED | OTHER)) || (has(OTHER) && has(ACTION)),
    );
    f
}

/// The anchor table under construction.
#[derive(Default)]
pub(super) struct Table {
    anchors: Vec<(String, Bound, u64)>,
}

impl Table {
    /// Adds `words` as anchors. Non-ASCII words are written in natural spelling and
    /// added in every form folding gives them ([`super::fold::fold_anchor`]).
    pub(super) fn add(&mut self, bound: Bound, group: u64, words: &[&str]) {
        for w in words {
            self.push(w, bound, group);
        }
    }

    fn push(&mut self, word: &str, bound: Bound, group: u64) {
        if word.is_ascii() {
            self.anchors.push((word.to_owned(), bound, group));
        } else {
            for form in super::fold::fold_anchor(word) {
                self.anchors.push((form, bound, group));
            }
        }
    }

    /// Every concatenation of one item from each part, in order.
    pub(super) fn product(&mut self, bound: Bound, group: u64, parts: &[&[&str]]) {
        let mut acc = vec![String::new()];
        for part in parts {
            acc = acc
                .iter()
                .flat_map(|a| part.iter().map(move |p| format!("{a}{p}")))
                .collect();
        }
        for w in acc {
            self.push(&w, bound, group);
        }
    }
}

/// The addressee words of `AI` in [`super::phrases`].
fn ai_words(t: &mut Table) {
    t.add(
        Bound::Word,
        F::ADDRESS | F::ADDRESS_THIRD,
        &[
            "ai", "ais", "ki", "kis", "ia", "ias", "bot", "bots", "llm", "llms", "gpt", "gpts",
        ],
    );
    t.add(
        Bound::Prefix,
        F::ADDRESS | F::ADDRESS_THIRD,
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
    t.add(Word, F::ADDRESS_THIRD, &["doit", "devra"]);
    // ROLE_PREFIX: a role word then `\s*:`.
    t.product(
        Prefix,
        F::ROLE_PREFIX,
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
        F::PRECONDITION,
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
        F::PRECONDITION,
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
        F::PRECONDITION,
        &["bevor du", "bevor sie", "avant d", "antes de"],
    );
    // STANDING, STANDING_IMPERATIVE.
    t.add(
        Prefix,
        F::STANDING,
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
        F::STANDING,
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
        F::TRIGGER,
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
        F::TRIGGER,
        &[&["benutzer ", "nutzer ", "anwender "], &["'", "\""]],
    );
    t.add(
        Any,
        F::TRIGGER,
        &["utilisateur ecrit", "utilisateur dit", "utilisateur tape"],
    );
    // OVERRIDE: English (and French `ignore[rz]? … les instructions precedentes`) needs a
    // verb and what it disregards.
    t.add(
        Prefix,
        OVERRIDE_VERB,
        &[
            "ignore",
            "disregard",
            "forget",
            "override",
            "bypass",
            "skip",
        ],
    );
    t.add(
        Prefix,
        OVERRIDE_NOUN,
        &[
            "instruction",
            "prompt",
            "rules",
            "direction",
            "guideline",
            "directive",
            "guardrail",
            "restriction",
            "constraint",
            "policies",
            "programming",
            "messages",
            "orders",
            "consignes",
            "regles",
        ],
    );
    t.add(
        Prefix,
        F::OVERRIDE,
        &[
            "forget everything",
            "forget all",
            "system override",
            "developer override",
            "admin override",
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
        F::CONCEAL_WEAK,
        &[&["not ", "dont ", "never "], conceal_verbs],
    );
    t.product(Any, F::CONCEAL_WEAK, &[&["n't "], conceal_verbs]);
    t.product(
        Prefix,
        F::CONCEAL_WEAK,
        &[
            &["this "],
            &["", "is "],
            &["", "a ", "an "],
            &["internal", "secret", "confidential", "hidden"],
        ],
    );
    t.add(
        Word,
        F::CONCEAL_WEAK,
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
        F::CONCEAL_WEAK,
        &[
            &["keep "],
            &["this", "it", "that"],
            &[" ", " a "],
            &["secret", "hidden", "confidential", "between us"],
        ],
    );
    t.add(Prefix, F::CONCEAL_WEAK, &["erwahne ", "en secret"]);
    t.product(
        Prefix,
        F::CONCEAL_WEAK,
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
        F::TAG,
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
    t.add(Any, F::TAG, &["<|", "<<"]);
    t.product(
        Any,
        F::TAG,
        &[
            &["[", "[/"],
            &["inst", "sys", "system", "important", "admin", "assistant"],
            &["]"],
        ],
    );
    // CRED_REQUEST: a user asked for a secret.
    t.add(
        Word,
        SECRET_NOUN,
        &[
            "password",
            "passphrase",
            "passcode",
            "api key",
            "api token",
            "access token",
            "token",
            "credentials",
            "2fa code",
            "otp",
            "one-time code",
            "verification code",
            "seed phrase",
            "recovery phrase",
            "private key",
            "ssh key",
            "pin",
            "credit card",
            "card number",
            "cvv",
            "social security number",
            "login",
        ],
    );
    t.product(
        Prefix,
        USER_FOR,
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
    // TOOL_CALL: a verb and `tool`.
    t.add(Word, TOOL, &["tool"]);
    t.add(
        Word,
        CALL_VERB,
        &["call", "invoke", "trigger", "activate", "use", "run"],
    );
    // RUN_COMMAND: a verb and a command, or a pipe into a shell.
    t.add(
        Word,
        RUN_VERB,
        &["run", "execute", "exec", "type", "enter", "paste"],
    );
    t.product(
        Any,
        F::RUN_COMMAND,
        &[&["|", "| "], &["sh", "bash", "zsh", "python", "iex"]],
    );
    t.add(
        Word,
        COMMAND,
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
    t.add(Prefix, COMMAND, &["python -c"]);
    // COERCION.
    t.add(
        Prefix,
        F::COERCION,
        &[
            "you must",
            "you should always",
            "you are required to",
            "you shall",
            "you are instructed to",
            "you are obligated to",
            "must always",
            "make sure to",
            "make sure that you",
            "make sure you",
            "under no circumstances",
            "not skip",
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
    t.product(
        Prefix,
        F::COERCION,
        &[
            &["immediately", "right now", "without delay", "right away"],
            &[" ", ", "],
            &[
                "call", "run", "send", "read", "execute", "invoke", "open", "print", "copy",
            ],
        ],
    );
    t.product(
        Prefix,
        F::COERCION,
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
        F::COERCION,
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
        F::COERCION,
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
        F::COERCION,
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
        F::COERCION,
        &[&["mandatory ", "required "], &["step", "instruction"]],
    );
    t.product(
        Prefix,
        F::COERCION,
        &[
            &["important", "essentiel", "crucial"],
            &[" de", " que", " d'"],
        ],
    );
    t.product(
        Prefix,
        F::COERCION,
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
    // German concealment: `dem benutzer … nicht`.
    t.product(
        Prefix,
        DE_USER,
        &[
            &["dem ", "den ", "der "],
            &["benutzer", "nutzer", "anwender", "user", "kunden"],
        ],
    );
    t.add(Word, DE_NEG, &["nicht", "nichts", "niemals"]);
    t.add(
        Prefix,
        F::CONCEAL_STRONG,
        &[
            "ohne dass",
            "al usuario",
            "a los usuario",
            "a el usuario",
            "sin que el usuario",
        ],
    );
    t.add(Any, F::CONCEAL_STRONG, &["utilisat"]);
}

/// Anchors of the objects of [`super::objects`] and of what pairs with them.
fn objects(t: &mut Table) {
    use Bound::{Any, Prefix, Segment, Word};
    // Objects only produce a signal paired with a verb of READ_VERB or TRANSFER_VERB.
    t.add(
        Word,
        VERB,
        &[
            "read",
            "open",
            "cat",
            "print",
            "output",
            "echo",
            "dump",
            "display",
            "show",
            "reveal",
            "copy",
            "paste",
            "include",
            "attach",
            "send",
            "upload",
            "leak",
            "exfiltrate",
            "fetch",
            "get",
            "retrieve",
            "extract",
            "grab",
            "collect",
            "access",
            "load",
            "return",
            "give",
            "share",
            "export",
            "encode",
            "list",
            "type out",
            "look up",
            "write out",
            "lies",
            "lese",
            "offne",
            "zeige",
            "gib",
            "kopiere",
            "sende",
            "schicke",
            "lis",
            "lisez",
            "ouvre",
            "ouvrez",
            "affiche",
            "affichez",
            "copie",
            "copiez",
            "envoie",
            "envoyez",
            "imprime",
            "lee",
            "lea",
            "abre",
            "abra",
            "muestra",
            "muestre",
            "copia",
            "envia",
            "envie",
            "append",
            "put",
            "add",
            "post",
            "forward",
            "pass",
            "embed",
            "set",
            "insert",
            "write",
            "submit",
            "transmit",
            "email",
            "report",
            "fill",
            "place",
            "store",
            "log",
            "prepend",
            "fuge",
            "hange",
            "ubermittle",
            "ajoute",
            "ajoutez",
            "transmets",
            "transmettez",
            "agrega",
            "agregue",
            "anade",
            "incluye",
            "incluya",
        ],
    );
    // CRED_STRONG.
    t.add(
        Any,
        OBJECT,
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
        OBJECT,
        &[
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
            "id rsa",
            "id dsa",
            "id ecdsa",
            "id ed",
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
        OBJECT,
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
    t.add(Any, OBJECT, &["_key"]);
    // CRED_WEAK.
    t.add(
        Prefix,
        OBJECT,
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
    t.add(Any, OBJECT, &["/proc/self/environ"]);
    // DATA_STRONG.
    t.add(
        Prefix,
        OBJECT,
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
        OBJECT,
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
        OBJECT,
        &[
            &["message", "prompt", "session"],
            &[" history", " log", " transcript"],
        ],
    );
    t.product(
        Prefix,
        OBJECT,
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
        OBJECT,
        &[
            &["last ", "latest ", "previous ", "recent "],
            &["", "user "],
            &["message", "prompt", "question", "request"],
        ],
    );
    t.product(
        Prefix,
        OBJECT,
        &[
            &["its "],
            &["", "full ", "entire ", "whole ", "complete ", "raw "],
            &["text", "content"],
        ],
    );
    t.add(
        Prefix,
        OBJECT,
        &[
            "text of",
            "content of",
            "contents of",
            "file contents",
            "their contents",
        ],
    );
    // address_target: EMAIL, URL.
    t.add(Any, TARGET, &["@", "http://", "https://"]);
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
    meta: Vec<(Bound, u64)>,
}

fn table() -> Vec<(String, Bound, u64)> {
    let mut t = Table::default();
    phrases(&mut t);
    objects(&mut t);
    super::langs::anchors(&mut t);
    super::cred_demand::anchors(&mut t);
    // One pattern per (text, boundary), groups merged.
    let mut merged: Vec<(String, Bound, u64)> = Vec::with_capacity(t.anchors.len());
    for (text, bound, g) in t.anchors {
        if let Some(m) = merged.iter_mut().find(|m| m.0 == text && m.1 == bound) {
            m.2 |= g;
        } else {
            merged.push((text, bound, g));
        }
    }
    merged
}

/// Builds the anchor automaton now rather than on the first scan.
pub(crate) fn warm() {
    LazyLock::force(&ANCHORS);
}

static ANCHORS: LazyLock<Anchors> = LazyLock::new(|| {
    let table = table();
    let automaton = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        // A contiguous NFA: about 1 MiB instead of the DFA's 9 MiB, for roughly a third
        // more time per byte (~350 MiB/s on prose).
        .kind(Some(AhoCorasickKind::ContiguousNFA))
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
pub(crate) fn groups_in(text: &str) -> u64 {
    let a = &*ANCHORS;
    let bytes = text.as_bytes();
    a.automaton
        .find_overlapping_iter(text)
        .filter(|m| bound_ok(bytes, m.start(), m.end(), a.meta[m.pattern()].0))
        .fold(0, |acc, m| acc | a.meta[m.pattern()].1)
}

/// Calls `visit` with every sentence of `folded` (as the full path splits it) whose
/// anchors allow some signal family, and with those [`families`], in text order.
pub(crate) fn candidate_sentences(folded: &str, mut visit: impl FnMut(&str, u64)) {
    let a = &*ANCHORS;
    let bytes = folded.as_bytes();
    // The current piece: where an anchor in it starts, where it ends, where the piece
    // before it ended (its start is looked for only when it is visited), its groups.
    let (mut inside, mut end, mut floor) = (0usize, 0usize, 0usize);
    let mut mask = 0u64;
    let mut finish = |inside: usize, end: usize, floor: usize, mask: u64| {
        let f = families(mask);
        if f != 0 {
            let start = super::fold::piece_start(folded, inside, floor);
            visit(folded[start..end].trim(), f);
        }
    };
    // Overlapping matches come in order of their ends. No anchor spans a sentence end,
    // so their sentences never go backwards.
    for m in a.automaton.find_overlapping_iter(folded) {
        let (bound, groups) = a.meta[m.pattern()];
        if m.start() >= end {
            finish(inside, end, floor, mask);
            floor = end;
            inside = m.start();
            end = super::fold::piece_end(folded, inside);
            mask = 0;
        }
        if mask & groups != groups && bound_ok(bytes, m.start(), m.end(), bound) {
            mask |= groups;
        }
    }
    finish(inside, end, floor, mask);
}

#[cfg(test)]
#[path = "prefilter_tests.rs"]
mod tests;
