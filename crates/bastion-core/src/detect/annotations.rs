//! Tool annotations that claim more safety than the tool's own name or description admit
//! (`annotation_contradiction`, warn).
//!
//! MCP 2025-11-25 (Server Features → Tools → Tool annotations; schema `ToolAnnotations`):
//! `readOnlyHint: true` means the tool does not modify its environment;
//! `destructiveHint` (meaningful when not read-only) says whether updates may be
//! destructive. Annotations are untrusted hints, so they may only tighten decisions:
//! a contradiction is reported, never used to loosen anything.
//!
//! Checks: `readOnlyHint: true` with `destructiveHint: true`; `readOnlyHint: true` on a
//! tool whose name or description says it modifies something (deletes, writes, moves,
//! sends, executes, uploads, pays…); `destructiveHint: false` on one whose name or
//! description says it destroys or irreversibly spends (deletes, drops, empties,
//! executes, pays, transfers…). Name words are split at `_`, `-`, `.` and camelCase;
//! description verbs are matched as verbs (`drops`, `delete`, `emptying`, not the
//! adjective `deleted`) and skipped when a negation opens their clause ("does not delete").

use crate::finding::{Code, Finding, Severity, pointer_push};
use serde_json::Value;

/// Verb stems that destroy data or spend irreversibly: contradict `destructiveHint: false`
/// and `readOnlyHint: true`.
pub(crate) const DESTRUCTIVE: &[&str] = &[
    "delete",
    "del",
    "rm",
    "drop",
    "remove",
    "erase",
    "purge",
    "wipe",
    "destroy",
    "truncate",
    "overwrite",
    "empty",
    "kill",
    "terminate",
    "execute",
    "exec",
    "pay",
    "transfer",
    "purchase",
    "buy",
    "revoke",
];
/// Verb stems that modify state: contradict `readOnlyHint: true`.
pub(crate) const MODIFYING: &[&str] = &[
    "write",
    "move",
    "mv",
    "send",
    "upload",
    "publish",
    "submit",
    "rename",
    "insert",
    "commit",
    "deploy",
    "install",
    "uninstall",
];
/// First words of names that read: `get_transfer`, `list_deleted` name what is read.
pub(crate) const READING: &[&str] = &[
    "get", "list", "read", "fetch", "show", "search", "find", "query", "describe", "view", "check",
    "count", "preview", "lookup", "inspect", "validate", "explain", "diff", "status",
];
/// Words after which a description's base-form verb is a verb ("to delete", "and drop").
const VERB_CONTEXT: &[&str] = &[
    "to",
    "will",
    "and",
    "or",
    "then",
    "also",
    "can",
    "may",
    "must",
    "permanently",
];

/// Inflected forms of `stem` counted as the verb: base, third person, gerund.
fn verb_forms(stem: &str) -> Vec<String> {
    let mut forms = vec![stem.to_owned(), format!("{stem}s")];
    if let Some(root) = stem.strip_suffix('y') {
        forms.push(format!("{root}ies"));
        forms.push(format!("{stem}ing"));
    } else if let Some(root) = stem.strip_suffix('e') {
        forms.push(format!("{root}ing"));
    } else if stem.ends_with(['h', 's', 'x']) {
        forms.push(format!("{stem}es"));
        forms.push(format!("{stem}ing"));
    } else {
        forms.push(format!("{stem}ing"));
        // drop → dropping, set → setting
        if let Some(last) = stem.chars().last() {
            forms.push(format!("{stem}{last}ing"));
        }
    }
    forms
}

/// [`verb_forms`] of every stem of [`DESTRUCTIVE`] and [`MODIFYING`], built once.
static FORMS: std::sync::LazyLock<std::collections::HashMap<&'static str, Vec<String>>> =
    std::sync::LazyLock::new(|| {
        DESTRUCTIVE
            .iter()
            .chain(MODIFYING)
            .map(|s| (*s, verb_forms(s)))
            .collect()
    });

/// Forms of stems outside [`FORMS`] (other detectors' verb tables), computed once each.
/// Bounded: past [`MAX_EXTRA_STEMS`] stems, forms are computed per call instead.
static EXTRA_FORMS: std::sync::LazyLock<
    std::sync::RwLock<std::collections::HashMap<String, &'static [String]>>,
> = std::sync::LazyLock::new(Default::default);
const MAX_EXTRA_STEMS: usize = 4096;

/// The inflected forms of `stem` (from [`FORMS`] for the known stems; other stems are
/// computed on first use and kept).
pub(crate) fn forms_of(stem: &str) -> std::borrow::Cow<'static, [String]> {
    if let Some(forms) = FORMS.get(stem) {
        return std::borrow::Cow::Borrowed(forms.as_slice());
    }
    let cache = &*EXTRA_FORMS;
    if let Some(forms) = cache
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(stem)
    {
        return std::borrow::Cow::Borrowed(forms);
    }
    let forms = verb_forms(stem);
    let mut w = cache
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if w.len() >= MAX_EXTRA_STEMS {
        return std::borrow::Cow::Owned(forms);
    }
    // Leaked once per distinct stem (the stems are the detectors' static tables).
    let leaked: &'static [String] = Box::leak(forms.into_boxed_slice());
    w.insert(stem.to_owned(), leaked);
    std::borrow::Cow::Borrowed(leaked)
}

/// Whether `word` is one of the [`verb_forms`] of `stem` (base form included). Every form
/// starts with the stem minus its last character, so most words are ruled out without
/// looking at the forms.
pub(crate) fn is_form_of(word: &str, stem: &str) -> bool {
    let root = &stem[..stem.char_indices().last().map_or(0, |(i, _)| i)];
    word.starts_with(root) && forms_of(stem).iter().any(|f| f == word)
}

/// Splits an identifier into lowercase words at `_`, `-`, `.`, spaces and camelCase.
pub(crate) fn split_name(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

pub(crate) const NEGATIONS: &[&str] =
    &["not", "never", "no", "without", "nor", "cannot", "neither"];

/// The first verb of `stems` the description uses outside a negated clause. Third-person
/// and gerund forms always count; the base form only opens a clause or follows a word of
/// [`VERB_CONTEXT`] ("an empty list" and "transfer history" are not verbs).
pub(crate) fn description_verb(description: &str, stems: &[&str]) -> Option<String> {
    for (words, live) in clause_words(description, false) {
        for (i, w) in words.iter().enumerate() {
            if !live[i] {
                continue;
            }
            let base_ok = i == 0 || VERB_CONTEXT.contains(&words[i - 1].as_str());
            let hit = stems
                .iter()
                .any(|s| if w == s { base_ok } else { is_form_of(w, s) });
            if hit {
                return Some(w.clone());
            }
        }
    }
    None
}

/// The clauses of `text` (split at `. ; : ! ?` and line breaks) as lowercase words, each
/// with a flag saying whether it is live: not a negation word, not `but`, and not inside
/// a stretch a negation opened ("does not delete"; `but` ends the stretch). With
/// `keep_commas`, commas are words of their own (callers that read them as boundaries).
pub(crate) fn clause_words(
    text: &str,
    keep_commas: bool,
) -> impl Iterator<Item = (Vec<String>, Vec<bool>)> + '_ {
    text.split(['.', ';', ':', '!', '?', '\n'])
        .map(move |clause| {
            let spaced;
            let clause = if keep_commas {
                spaced = clause.replace(',', " , ");
                spaced.as_str()
            } else {
                clause
            };
            let words: Vec<String> = clause
                .split(|c: char| !(c.is_alphanumeric() || c == '\'' || (keep_commas && c == ',')))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            let mut negated = false;
            let live = words
                .iter()
                .map(|w| {
                    if NEGATIONS.contains(&w.as_str()) || w.ends_with("n't") {
                        negated = true;
                        false
                    } else if w == "but" {
                        negated = false;
                        false
                    } else {
                        !negated
                    }
                })
                .collect();
            (words, live)
        })
}

/// The first name word that is one of `stems`: the leading word in any form
/// (`drop_table`, `deletes_all`), or a later word in base form unless the name starts with
/// a reading verb (`user_delete` yes, `get_transfer` no).
pub(crate) fn name_verb(name: &str, stems: &[&str]) -> Option<String> {
    let words = split_name(name);
    let first = words.first()?;
    if stems.iter().any(|s| is_form_of(first, s)) {
        return Some(first.clone());
    }
    if READING.contains(&first.as_str()) {
        return None;
    }
    words
        .iter()
        .skip(1)
        .find(|w| stems.contains(&w.as_str()))
        .cloned()
}

/// Appends contradiction findings for the tool descriptor at `path`.
pub(crate) fn scan_annotations(tool: &Value, path: &str, findings: &mut Vec<Finding>) {
    let Some(ann) = tool.get("annotations").and_then(Value::as_object) else {
        return;
    };
    let ann_path = pointer_push(path, "annotations");
    let read_only = ann.get("readOnlyHint").and_then(Value::as_bool);
    let destructive = ann.get("destructiveHint").and_then(Value::as_bool);
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");

    if read_only == Some(true) && destructive == Some(true) {
        findings.push(Finding::new(
            Code::AnnotationContradiction,
            Severity::Warn,
            &ann_path,
            "annotations claim readOnlyHint: true and destructiveHint: true at once; treat the tool as destructive.",
        ));
    }
    let all: Vec<&str> = DESTRUCTIVE.iter().chain(MODIFYING).copied().collect();
    if read_only == Some(true)
        && let Some(evidence) = evidence(name, description, &all)
    {
        findings.push(Finding::new(
            Code::AnnotationContradiction,
            Severity::Warn,
            pointer_push(&ann_path, "readOnlyHint"),
            format!(
                "annotations claim readOnlyHint: true but {evidence}; treat the tool as modifying."
            ),
        ));
    }
    if destructive == Some(false)
        && read_only != Some(true)
        && let Some(evidence) = evidence(name, description, DESTRUCTIVE)
    {
        findings.push(Finding::new(
            Code::AnnotationContradiction,
            Severity::Warn,
            pointer_push(&ann_path, "destructiveHint"),
            format!("annotations claim destructiveHint: false but {evidence}; treat the tool as destructive."),
        ));
    }
    if destructive == Some(false)
        && read_only == Some(true)
        && let Some(evidence) = evidence(name, description, DESTRUCTIVE)
    {
        findings.push(Finding::new(
            Code::AnnotationContradiction,
            Severity::Warn,
            pointer_push(&ann_path, "destructiveHint"),
            format!("annotations claim destructiveHint: false but {evidence}; treat the tool as destructive."),
        ));
    }
}

fn evidence(name: &str, description: &str, stems: &[&str]) -> Option<String> {
    if let Some(w) = name_verb(name, stems) {
        return Some(format!(
            "its name \"{}\" says \"{w}\"",
            name.chars().take(128).collect::<String>()
        ));
    }
    description_verb(description, stems).map(|w| format!("its description says \"{w}\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(tool: &Value) -> Vec<String> {
        let mut f = Vec::new();
        scan_annotations(tool, "", &mut f);
        assert!(
            f.iter()
                .all(|f| f.code == Code::AnnotationContradiction && f.severity == Severity::Warn)
        );
        f.into_iter().map(|f| f.path).collect()
    }

    #[test]
    fn contradictions() {
        let ro = json!({"readOnlyHint": true});
        let nd = json!({"readOnlyHint": false, "destructiveHint": false});
        let table: &[(&str, &str, &Value, &[&str])] = &[
            (
                "drop_table",
                "Drops a database table.",
                &json!({"readOnlyHint": true, "destructiveHint": false}),
                &["/annotations/readOnlyHint", "/annotations/destructiveHint"],
            ),
            (
                "archive_mailbox",
                "Moves all messages to archive and empties the inbox.",
                &json!({"readOnlyHint": true, "destructiveHint": true}),
                &["/annotations", "/annotations/readOnlyHint"],
            ),
            (
                "deleteUserFiles",
                "Cleans up.",
                &ro,
                &["/annotations/readOnlyHint"],
            ),
            (
                "cleanup",
                "Removes temporary files.",
                &ro,
                &["/annotations/readOnlyHint"],
            ),
            (
                "notify",
                "Sends an e-mail to the team.",
                &ro,
                &["/annotations/readOnlyHint"],
            ),
            (
                "wire",
                "Transfers money between accounts.",
                &nd,
                &["/annotations/destructiveHint"],
            ),
            (
                "run_sql",
                "Executes arbitrary SQL.",
                &nd,
                &["/annotations/destructiveHint"],
            ),
            (
                "echo",
                "Echoes back the input string",
                &json!({"readOnlyHint": true, "destructiveHint": false}),
                &[],
            ),
            ("list_trash", "Lists deleted files.", &ro, &[]),
            (
                "schedule_password_reminder",
                "Schedules the reminder. Does not read, store, delete or change any password.",
                &ro,
                &[],
            ),
            (
                "sync",
                "Copies files; it never deletes, moves or overwrites anything.",
                &ro,
                &[],
            ),
            (
                "trigger-long-running-operation",
                "Demonstrates a long running operation with progress updates.",
                &ro,
                &[],
            ),
            ("notify", "Sends a message.", &nd, &[]),
            (
                "search",
                "Returns an empty list when nothing matches.",
                &ro,
                &[],
            ),
            ("get_transfer", "Shows transfer history.", &ro, &[]),
            (
                "user_delete",
                "Cleans up.",
                &ro,
                &["/annotations/readOnlyHint"],
            ),
            (
                "cleanup",
                "Use it to delete stale rows, but never the index.",
                &ro,
                &["/annotations/readOnlyHint"],
            ),
            (
                "toggle",
                "Toggles logging.",
                &json!({"destructiveHint": false}),
                &[],
            ),
            ("delete_row", "Deletes a row.", &json!({}), &[]),
        ];
        for (name, description, ann, want) in table {
            let tool = json!({"name": name, "description": description, "annotations": ann});
            assert_eq!(paths(&tool), want.to_vec(), "{name}: {description}");
        }
        assert!(paths(&json!({"name": "x"})).is_empty());
    }

    #[test]
    fn splitting_and_forms() {
        assert_eq!(
            split_name("deleteUserFiles"),
            vec!["delete", "user", "files"]
        );
        assert_eq!(
            split_name("drop_table.v2-x"),
            vec!["drop", "table", "v2", "x"]
        );
        assert!(verb_forms("empty").contains(&"empties".to_owned()));
        assert!(verb_forms("drop").contains(&"dropping".to_owned()));
        assert!(verb_forms("push").contains(&"pushes".to_owned()));
        assert!(verb_forms("delete").contains(&"deleting".to_owned()));
    }

    #[test]
    fn message_names_the_evidence() {
        let mut f = Vec::new();
        scan_annotations(
            &json!({"name": "drop_table", "annotations": {"readOnlyHint": true}}),
            "/tools/0",
            &mut f,
        );
        assert_eq!(f[0].path, "/tools/0/annotations/readOnlyHint");
        assert!(f[0].message.contains("\"drop\""), "{}", f[0].message);
    }
}
