//! Cross-server tool-name shadowing (`tool_name_collision`): a tool whose name is the
//! name of another wrapped server's tool, or imitates it.
//!
//! A host shows the model every wrapped server's tools side by side. Hosts usually
//! prefix names with the server, but the model still reads the bare name, and a second
//! `send_email` competes with the first for the model's choice. A name that is not
//! identical but *looks* identical (`sеnd_email` with a Cyrillic `е`, `Send_Email`,
//! `read_fiIe`) has no innocent reason: it is made to be taken for the other.
//!
//! | relation to another server's tool name | severity |
//! |---|---|
//! | identical | warn |
//! | same after separator spelling only (`send-email` / `send_email`) | warn |
//! | equal after NFKC, full case folding or the UTS #39 confusable skeleton, not identical | high |
//!
//! Keys: the UTS #39 skeleton (Unicode Technical Standard #39 §4 "Confusable
//! Detection", via `unicode-security`) of the NFKC form, taken both before and after full
//! case folding (Unicode §3.13 `toCasefold`, via `icu_casemap`), so that `READ_FILE`
//! (whose `I` has the skeleton `l`) and `read_file` still meet.
//!
//! [`ShadowIndex`] is built once from the other servers' tool names (a store lookup,
//! done by the gateway) and answers each name in O(1) map look-ups.

use crate::finding::{Code, Finding, Severity};
use icu_casemap::CaseMapper;
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;

/// The other servers' tool names, indexed by their look-alike keys.
#[derive(Debug, Clone, Default)]
pub struct ShadowIndex {
    /// `(server, tool name)` as given.
    entries: Vec<(String, String)>,
    /// Exact name → entry indexes.
    exact: HashMap<String, Vec<usize>>,
    /// Look-alike key → entry indexes.
    lookalike: HashMap<String, Vec<usize>>,
    /// Key without `_`, `-`, `.`, space → entry indexes.
    separators: HashMap<String, Vec<usize>>,
}

/// The look-alike keys of a name: skeleton of NFKC, then case folded; case folded NFKC,
/// then skeleton (each case folded once more, so both orders land in one key space).
fn lookalike_keys(name: &str) -> [String; 2] {
    let mapper = CaseMapper::new();
    let nfkc: String = name.nfkc().collect();
    let skeleton_first: String = unicode_security::skeleton(&nfkc).collect();
    let a = mapper.fold_string(&skeleton_first).into_owned();
    let folded = mapper.fold_string(&nfkc).into_owned();
    let skeleton_second: String = unicode_security::skeleton(&folded).collect();
    let b = mapper.fold_string(&skeleton_second).into_owned();
    [a, b]
}

/// A look-alike key without identifier separators.
fn separator_key(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .collect()
}

impl ShadowIndex {
    /// Indexes `(server name, tool name)` pairs: the tools of every *other* wrapped
    /// server (the caller leaves out the server whose list is being checked). Empty
    /// names are ignored.
    pub fn new<'a>(others: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut index = Self::default();
        for (server, tool) in others {
            if tool.is_empty() {
                continue;
            }
            let i = index.entries.len();
            index.entries.push((server.to_owned(), tool.to_owned()));
            index.exact.entry(tool.to_owned()).or_default().push(i);
            let keys = lookalike_keys(tool);
            for key in &keys {
                let list = index.lookalike.entry(key.clone()).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
                let list = index.separators.entry(separator_key(key)).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
        index
    }

    /// Number of indexed tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `tool_name_collision` findings for the tool `name` whose name is at JSON Pointer
    /// `path`: at most one `high` (look-alike of another server's tool name) and one
    /// `warn` (identical name, or the same name spelled with other separators); each
    /// lists the servers and names concerned. Empty when the name collides with nothing.
    pub fn check(&self, name: &str, path: &str) -> Vec<Finding> {
        if name.is_empty() || self.entries.is_empty() {
            return Vec::new();
        }
        let exact: Vec<usize> = self.exact.get(name).cloned().unwrap_or_default();
        let keys = lookalike_keys(name);
        let mut lookalike: Vec<usize> = Vec::new();
        let mut spelling: Vec<usize> = Vec::new();
        for key in &keys {
            for &i in self.lookalike.get(key).into_iter().flatten() {
                if self.entries[i].1 != name && !lookalike.contains(&i) {
                    lookalike.push(i);
                }
            }
        }
        for key in &keys {
            for &i in self
                .separators
                .get(&separator_key(key))
                .into_iter()
                .flatten()
            {
                if self.entries[i].1 != name && !lookalike.contains(&i) && !spelling.contains(&i) {
                    spelling.push(i);
                }
            }
        }
        let shown = crate::unicode::escape_non_ascii(name, crate::unicode::MAX_NAME_SHOWN);
        let mut findings = Vec::new();
        if !lookalike.is_empty() {
            findings.push(Finding::new(
                Code::ToolNameCollision,
                Severity::High,
                path,
                format!(
                    "tool name \"{shown}\" looks like {} but is spelled differently (case or look-alike characters); the model cannot tell them apart. Rename or remove one.",
                    self.describe(&lookalike)
                ),
            ));
        }
        if !exact.is_empty() || !spelling.is_empty() {
            let mut what = Vec::new();
            if !exact.is_empty() {
                what.push(format!("is also {}", self.describe(&exact)));
            }
            if !spelling.is_empty() {
                what.push(format!(
                    "differs only in separators from {}",
                    self.describe(&spelling)
                ));
            }
            findings.push(Finding::new(
                Code::ToolNameCollision,
                Severity::Warn,
                path,
                format!(
                    "tool name \"{shown}\" {}; the model sees both and may call the wrong one.",
                    what.join(" and ")
                ),
            ));
        }
        findings
    }

    /// "the tool \"x\" of server \"a\"" (and up to two more, then a count).
    fn describe(&self, ids: &[usize]) -> String {
        let mut parts: Vec<String> = ids
            .iter()
            .take(3)
            .map(|&i| {
                let (server, tool) = &self.entries[i];
                format!(
                    "the tool \"{}\" of server \"{}\"",
                    crate::unicode::escape_non_ascii(tool, crate::unicode::MAX_NAME_SHOWN),
                    crate::unicode::escape_non_ascii(server, crate::unicode::MAX_NAME_SHOWN)
                )
            })
            .collect();
        if ids.len() > 3 {
            parts.push(format!("{} more", ids.len() - 3));
        }
        parts.join(", ")
    }
}

/// [`ShadowIndex::check`] against an index built from `others` (`(server, tool name)`
/// pairs) for this one name; build a [`ShadowIndex`] once to check a whole list.
pub fn name_shadowing(name: &str, path: &str, others: &[(&str, &str)]) -> Vec<Finding> {
    ShadowIndex::new(others.iter().copied()).check(name, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> ShadowIndex {
        ShadowIndex::new([
            ("mail", "send_email"),
            ("fs", "read_file"),
            ("fs", "list_directory"),
            ("gh", "create_issue"),
            ("gh2", "create_issue"),
        ])
    }

    fn sevs(name: &str) -> Vec<Severity> {
        index()
            .check(name, "/tools/0/name")
            .iter()
            .map(|f| {
                assert_eq!(f.code, Code::ToolNameCollision);
                assert_eq!(f.path, "/tools/0/name");
                f.severity
            })
            .collect()
    }

    #[test]
    fn identical_name_warns_and_names_the_servers() {
        assert_eq!(sevs("send_email"), vec![Severity::Warn]);
        let f = index().check("create_issue", "/n");
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("server \"gh\""), "{}", f[0].message);
        assert!(f[0].message.contains("server \"gh2\""), "{}", f[0].message);
    }

    #[test]
    fn lookalikes_are_high() {
        // Cyrillic е, Greek ο, fullwidth, case, capital I for l.
        for name in [
            "s\u{435}nd_email",
            "read_fil\u{435}",
            "list_direct\u{3BF}ry",
            "\u{FF53}end_email",
            "Send_Email",
            "SEND_EMAIL",
            "read_fiIe",
            "READ_FILE",
        ] {
            assert_eq!(sevs(name), vec![Severity::High], "{name}");
        }
    }

    #[test]
    fn separator_spelling_warns() {
        assert_eq!(sevs("send-email"), vec![Severity::Warn]);
        let f = index().check("read.file", "/n");
        assert!(f[0].message.contains("differs only in separators"));
    }

    #[test]
    fn unrelated_names_pass() {
        for name in ["send_emails", "read_files", "get_weather", "email_send", ""] {
            assert!(sevs(name).is_empty(), "{name}");
        }
        assert!(ShadowIndex::new([]).check("send_email", "").is_empty());
        assert!(ShadowIndex::new([]).is_empty());
        assert_eq!(index().len(), 5);
    }

    #[test]
    fn one_shot_function() {
        let f = name_shadowing("send_email", "/p", &[("mail", "send_email")]);
        assert_eq!(f.len(), 1);
        assert!(name_shadowing("x", "/p", &[("mail", "send_email")]).is_empty());
    }

    #[test]
    fn many_tools_index_once() {
        let names: Vec<String> = (0..100).map(|i| format!("tool_{i}")).collect();
        let idx = ShadowIndex::new(names.iter().map(|n| ("big", n.as_str())));
        assert_eq!(idx.check("tool_42", "").len(), 1);
        assert_eq!(idx.check("TOOL_42", "")[0].severity, Severity::High);
        assert!(idx.check("tool_420", "").is_empty());
    }
}
