//! What a tool's words say it does, and tools whose name and title/description disagree
//! (`tool_intent_mismatch`, issue 5 §1: a tool titled "Read README" but named `exec`
//! asks).
//!
//! The verb tables are those of the annotation-contradiction detector
//! (`detect/annotations.rs`: destroying, modifying and reading verbs, inflections and
//! negated clauses handled there), plus the words below for executing and for changing
//! state in ways the descriptor detector does not need (`create`, `update`, `post`, ...).

use crate::detect::annotations::{
    DESTRUCTIVE, MODIFYING, READING, clause_words, description_verb, is_form_of, name_verb,
    split_name,
};
use crate::finding::{Code, Finding, Severity, pointer_push};
use serde_json::Value;

/// Name words that run code or commands.
const EXECUTING: &[&str] = &[
    "exec",
    "execute",
    "run",
    "shell",
    "sh",
    "bash",
    "zsh",
    "cmd",
    "command",
    "eval",
    "spawn",
    "system",
    "powershell",
    "pwsh",
    "terminal",
    "subprocess",
    "popen",
    "invoke",
];
/// Verbs of descriptions that run code or commands.
const EXECUTING_VERBS: &[&str] = &["run", "execute", "exec", "eval", "spawn", "invoke"];
/// Verbs that change state, beyond [`MODIFYING`].
pub(crate) const CHANGING: &[&str] = &[
    "create", "update", "post", "push", "comment", "add", "put", "merge", "share", "reply", "edit",
    "patch", "append", "set", "save", "modify", "change", "replace", "approve", "close", "assign",
    "fork", "star", "invite", "email", "mail", "message", "notify", "tweet",
];
/// Description verbs that change state, beyond [`MODIFYING`]: the stems of [`CHANGING`]
/// that are rarely plural nouns ("posts", "messages", "changes" are left out).
const CHANGING_VERBS: &[&str] = &[
    "create",
    "update",
    "modify",
    "edit",
    "append",
    "replace",
    "merge",
    "approve",
    "invite",
    "save",
    "notify",
    "assign",
    "overwrite",
];
/// Description verbs that read, beyond [`READING`].
const READING_VERBS: &[&str] = &["return", "display", "print", "summarize", "open", "load"];

/// What a tool's words say it does, from least to most dangerous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Effect {
    /// Reads or looks something up.
    Reads,
    /// Changes state (writes, sends, creates).
    Modifies,
    /// Destroys data or spends irreversibly.
    Destroys,
    /// Runs code or commands.
    Executes,
}

impl Effect {
    fn says(self) -> &'static str {
        match self {
            Effect::Reads => "reads",
            Effect::Modifies => "changes something",
            Effect::Destroys => "destroys or irreversibly spends",
            Effect::Executes => "runs code or commands",
        }
    }
}

/// What the tool name says (words split at `_`, `-`, `.`, camelCase): a leading reading
/// verb reads (`get_transfer`); otherwise executing words anywhere, then destroying, then
/// changing verbs (leading in any form, later in base form).
pub(crate) fn name_effect(name: &str) -> Option<(Effect, String)> {
    let words = split_name(name);
    let first = words.first()?;
    if READING.contains(&first.as_str()) {
        return Some((Effect::Reads, first.clone()));
    }
    if let Some(w) = words.iter().find(|w| EXECUTING.contains(&w.as_str())) {
        return Some((Effect::Executes, w.clone()));
    }
    if let Some(w) = name_verb(name, DESTRUCTIVE) {
        return Some((Effect::Destroys, w));
    }
    let changing: Vec<&str> = MODIFYING.iter().chain(CHANGING).copied().collect();
    name_verb(name, &changing).map(|w| (Effect::Modifies, w))
}

/// Words after which a change word is a verb of its own ("reads the file, then deletes
/// it", "this tool deletes", "and uploads"), not the object of an earlier verb ("lists
/// workflow runs", "searches messages").
const CONNECTORS: &[&str] = &[
    ",",
    "and",
    "then",
    "also",
    "or",
    "permanently",
    "irreversibly",
    "to",
    "will",
    "can",
    "may",
    "must",
    "it",
    "tool",
    "this",
    "which",
    "that",
    "afterwards",
    "finally",
];

/// Whether `word` is an inflected form of one of `stems` (base form included).
fn is_form(word: &str, stems: &[&str]) -> bool {
    stems.iter().any(|s| is_form_of(word, s))
}

/// What change a word names, if it is a form of a changing, destroying or executing verb.
fn change_of(word: &str) -> Option<Effect> {
    if is_form(word, EXECUTING_VERBS) {
        Some(Effect::Executes)
    } else if is_form(word, DESTRUCTIVE) {
        Some(Effect::Destroys)
    } else if is_form(word, MODIFYING) || is_form(word, CHANGING_VERBS) {
        Some(Effect::Modifies)
    } else {
        None
    }
}

/// The first change a text (title or description) names as a verb of its own, if any:
/// a change word that opens a clause or follows a [`CONNECTORS`] word, outside a negated
/// stretch ("does not delete"; `but` ends it). A change word right after a noun or a
/// reading verb is an object ("lists workflow runs") and does not count.
fn text_change(text: &str) -> Option<(Effect, String)> {
    for (words, live) in clause_words(text, true) {
        for (i, w) in words.iter().enumerate() {
            let verb_position = i == 0 || CONNECTORS.contains(&words[i - 1].as_str());
            if !live[i] || !verb_position {
                continue;
            }
            if let Some(effect) = change_of(w) {
                return Some((effect, w.clone()));
            }
        }
    }
    None
}

/// Whether a text names a reading verb.
fn text_reads(text: &str) -> Option<String> {
    let reading: Vec<&str> = READING.iter().chain(READING_VERBS).copied().collect();
    description_verb(text, &reading)
}

/// A `tool_intent_mismatch` (warn) finding at `path` when the tool's name and one of its
/// texts (`title`, `annotations.title`, `description`) disagree: the name runs, destroys
/// or changes while the text only reads ("Read README" named `exec`), or the name reads
/// while the text runs, destroys or changes (`get_file`: "Deletes the file after
/// reading").
pub(crate) fn intent_mismatch(tool: &Value, path: &str) -> Option<Finding> {
    let name = tool.get("name").and_then(Value::as_str)?;
    let (name_says, name_word) = name_effect(name)?;
    let texts = [
        ("title", tool.get("title"), pointer_push(path, "title")),
        (
            "annotations.title",
            tool.pointer("/annotations/title"),
            pointer_push(&pointer_push(path, "annotations"), "title"),
        ),
        (
            "description",
            tool.get("description"),
            pointer_push(path, "description"),
        ),
    ];
    let shown_name = crate::unicode::escape_non_ascii(name, crate::unicode::MAX_NAME_SHOWN);
    for (label, text, at) in texts {
        let Some(text) = text.and_then(Value::as_str) else {
            continue;
        };
        let change = text_change(text);
        let mismatch = match (name_says, &change) {
            (Effect::Reads, Some((effect, word))) => Some(format!(
                "its name \"{shown_name}\" says it reads (\"{name_word}\") but its {label} says it {} (\"{word}\")",
                effect.says()
            )),
            (Effect::Reads, None) | (_, Some(_)) => None,
            (_, None) => text_reads(text).map(|word| {
                format!(
                    "its {label} says it reads (\"{word}\") but its name \"{shown_name}\" says it {} (\"{name_word}\")",
                    name_says.says()
                )
            }),
        };
        if let Some(m) = mismatch {
            return Some(Finding::new(
                Code::ToolIntentMismatch,
                Severity::Warn,
                at,
                format!(
                    "the tool's name and {label} disagree about what it does: {m}; confirm before it runs."
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn name_effects() {
        let e = |n: &str| name_effect(n).map(|(e, _)| e);
        assert_eq!(e("exec"), Some(Effect::Executes));
        assert_eq!(e("run_command"), Some(Effect::Executes));
        assert_eq!(e("shellExec"), Some(Effect::Executes));
        assert_eq!(e("delete_branch"), Some(Effect::Destroys));
        assert_eq!(e("create_pull_request"), Some(Effect::Modifies));
        assert_eq!(e("upload_file"), Some(Effect::Modifies));
        assert_eq!(e("get_issue"), Some(Effect::Reads));
        assert_eq!(e("get_run_status"), Some(Effect::Reads));
        assert_eq!(e("list_deleted"), Some(Effect::Reads));
        assert_eq!(e("weather"), None);
    }

    #[test]
    fn mismatches() {
        let table: &[(&Value, bool)] = &[
            (
                &json!({"name": "exec", "title": "Read README", "description": "Shows the project readme."}),
                true,
            ),
            (
                &json!({"name": "run_command", "description": "Reads the README file."}),
                true,
            ),
            (
                &json!({"name": "cleanup", "annotations": {"title": "View logs"}}),
                false,
            ),
            (
                &json!({"name": "purge_cache", "annotations": {"title": "View cache"}}),
                true,
            ),
            (
                &json!({"name": "get_file", "description": "Deletes the file after reading it."}),
                true,
            ),
            (
                &json!({"name": "read_notes", "description": "Lädt Notizen. Sends them to the team."}),
                true,
            ),
            (
                &json!({"name": "delete_branch", "description": "Deletes a git branch."}),
                false,
            ),
            (
                &json!({"name": "run_tests", "description": "Runs the test suite and reads the report."}),
                false,
            ),
            (
                &json!({"name": "get_transfer", "description": "Shows transfer history."}),
                false,
            ),
            (
                &json!({"name": "list_trash", "description": "Lists deleted files."}),
                false,
            ),
            (
                &json!({"name": "search", "description": "Returns an empty list when nothing matches."}),
                false,
            ),
            (
                &json!({"name": "weather", "description": "Reads the forecast."}),
                false,
            ),
            (
                &json!({"name": "exec", "description": "Does not read anything; executes the given command."}),
                false,
            ),
        ];
        for (tool, want) in table {
            let got = intent_mismatch(tool, "/tool");
            assert_eq!(got.is_some(), *want, "{tool}: {got:?}");
            if let Some(f) = got {
                assert_eq!(f.code, Code::ToolIntentMismatch);
                assert!(f.path.starts_with("/tool/"), "{}", f.path);
            }
        }
    }
}
