//! Toxic flows (`toxic_flow`, issue 5 §1, corpus c142): earlier calls of the session
//! read from one place (a repository, project, bucket, channel, URL host, ...) and this
//! call writes to a different place, so data read from the first may be carried to the
//! second (the "lethal trifecta": private data, untrusted input, an outward channel).
//!
//! Places are the values of place-naming arguments ([`PLACE_KEYS`]; `owner` + `repo` form
//! `owner/repo`; URL arguments give their host; recipients of messages count for the
//! write). Which calls read and which write is read from the tool name
//! ([`super::intent::name_effect`]). Whether a place is private is not known to the core,
//! so every read place that is not also the write target counts: reading `owner/site` and
//! then writing to `owner/site` is no flow; reading `owner/payroll` and then writing to
//! `owner/site` is. A flow only asks (never denies): the user sees both places.

use super::intent::{Effect, name_effect};
use crate::finding::{Code, Finding, Severity, pointer_push};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// Argument names (lowercase, `_`/`-` removed) that name a place data lives in.
const PLACE_KEYS: &[&str] = &[
    "repo",
    "repository",
    "reponame",
    "fullname",
    "project",
    "projectid",
    "bucket",
    "channel",
    "channelid",
    "database",
    "db",
    "table",
    "collection",
    "space",
    "spacekey",
    "workspace",
    "org",
    "organization",
    "drive",
    "driveid",
    "folder",
    "folderid",
    "site",
    "team",
    "namespace",
    "index",
    "board",
    "list",
    "calendar",
    "mailbox",
];
/// Argument names whose value is a URL; the host is the place.
const URL_KEYS: &[&str] = &["url", "uri", "endpoint", "webhook", "webhookurl", "link"];
/// Argument names of message recipients: places a write sends to.
const RECIPIENT_KEYS: &[&str] = &[
    "to",
    "cc",
    "bcc",
    "recipient",
    "recipients",
    "email",
    "address",
];

/// One earlier tool call of the session, for [`super::decide`]. Deserializes from
/// `{"tool": NAME, "arguments": {...}, "server"?: NAME}` or the corpus shape
/// `{"call": NAME, <argument>: <value>, ...}` (members other than `call`/`tool`/`name`/
/// `server` are the arguments).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(try_from = "Value")]
pub struct HistoryEntry {
    /// The tool name.
    pub tool: String,
    /// The server it was called on, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The call's arguments.
    pub arguments: Map<String, Value>,
}

/// Why a history entry could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// Not an object with a string `tool` (or `call`/`name`).
    #[error(
        "a history entry must be an object with a string `tool` (or `call`) and optional `arguments`"
    )]
    Shape,
}

impl TryFrom<Value> for HistoryEntry {
    type Error = HistoryError;

    fn try_from(value: Value) -> Result<Self, Self::Error> {
        let Value::Object(mut map) = value else {
            return Err(HistoryError::Shape);
        };
        let tool = ["tool", "call", "name"]
            .iter()
            .find_map(|k| match map.remove(*k) {
                Some(Value::String(s)) => Some(s),
                _ => None,
            })
            .ok_or(HistoryError::Shape)?;
        let server = match map.remove("server") {
            Some(Value::String(s)) => Some(s),
            None => None,
            Some(_) => return Err(HistoryError::Shape),
        };
        let arguments = match map.remove("arguments") {
            Some(Value::Object(args)) => args,
            Some(_) => return Err(HistoryError::Shape),
            None => map,
        };
        Ok(Self {
            tool,
            server,
            arguments,
        })
    }
}

fn key_norm(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The places named by `arguments` (lowercased), with the argument each came from.
fn places(arguments: &Map<String, Value>, recipients: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let owner = arguments
        .iter()
        .find(|(k, _)| {
            matches!(
                key_norm(k).as_str(),
                "owner" | "org" | "organization" | "user"
            )
        })
        .and_then(|(_, v)| v.as_str());
    for (key, value) in arguments {
        let k = key_norm(key);
        let strings: Vec<&str> = match value {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        for s in strings {
            let s = s.trim();
            if s.is_empty() {
                continue;
            }
            let place = if PLACE_KEYS.contains(&k.as_str()) {
                match owner {
                    Some(o) if (k == "repo" || k == "repository") && !s.contains('/') => {
                        format!("{o}/{s}")
                    }
                    _ => s.to_owned(),
                }
            } else if URL_KEYS.contains(&k.as_str()) {
                match url::Url::parse(s)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                {
                    Some(h) => h,
                    None => continue,
                }
            } else if recipients && RECIPIENT_KEYS.contains(&k.as_str()) {
                s.to_owned()
            } else {
                continue;
            };
            out.push((place.to_lowercase(), key.clone()));
        }
    }
    out
}

/// A `toxic_flow` (warn) finding when the call `tool(arguments)` writes to a place other
/// than one an earlier reading call of `history` read from. `args_path` is the JSON
/// Pointer of the call's arguments (the finding points at the write target).
pub(crate) fn toxic_flow(
    effect: Option<Effect>,
    arguments: &Map<String, Value>,
    history: &[HistoryEntry],
    args_path: &str,
) -> Option<Finding> {
    let writes = matches!(
        effect,
        Some(Effect::Modifies | Effect::Destroys | Effect::Executes)
    );
    if !writes {
        return None;
    }
    let targets = places(arguments, true);
    let (target, target_key) = targets.first()?;
    let target_set: Vec<&str> = targets.iter().map(|(p, _)| p.as_str()).collect();
    let mut sources = Vec::new();
    let mut read_target = None;
    for (i, entry) in history.iter().enumerate() {
        if !matches!(name_effect(&entry.tool), Some((Effect::Reads, _))) {
            continue;
        }
        for (place, _) in places(&entry.arguments, false) {
            if target_set.contains(&place.as_str()) {
                read_target.get_or_insert((i, entry.tool.clone()));
            } else if !sources.iter().any(|(p, _, _)| *p == place) {
                sources.push((place, i, entry.tool.clone()));
            }
        }
    }
    let (source, index, source_tool) = sources.first()?;
    let shown = |s: &str| crate::unicode::escape_non_ascii(s, 120);
    let mut message = format!(
        "earlier call {} (history #{index}) read from \"{}\"; this call writes to \"{}\": data from one place may be carried to another",
        shown(source_tool),
        shown(source),
        shown(target),
    );
    if sources.len() > 1 {
        let _ = write!(message, " (and from {} more places)", sources.len() - 1);
    }
    if let Some((i, t)) = read_target {
        let _ = write!(
            message,
            "; content read earlier from the target itself ({}, history #{i}) may carry instructions that asked for this",
            shown(&t)
        );
    }
    message.push_str("; confirm the cross-place data flow before it runs.");
    Some(Finding::new(
        Code::ToxicFlow,
        Severity::Warn,
        pointer_push(args_path, target_key),
        message,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history(v: Value) -> Vec<HistoryEntry> {
        serde_json::from_value(v).unwrap()
    }

    fn flow(tool: &str, args: &Value, h: &[HistoryEntry]) -> Option<Finding> {
        toxic_flow(
            name_effect(tool).map(|(e, _)| e),
            args.as_object().unwrap(),
            h,
            "/a",
        )
    }

    #[test]
    fn history_shapes() {
        let h = history(json!([
            {"call": "get_issue", "repo": "o/site"},
            {"tool": "read_file", "arguments": {"path": "/x"}, "server": "fs"}
        ]));
        assert_eq!(h[0].tool, "get_issue");
        assert_eq!(h[0].arguments["repo"], "o/site");
        assert_eq!(h[1].server.as_deref(), Some("fs"));
        assert!(serde_json::from_value::<Vec<HistoryEntry>>(json!([{"repo": "x"}])).is_err());
        assert!(serde_json::from_value::<Vec<HistoryEntry>>(json!(["get"])).is_err());
    }

    #[test]
    fn cross_place_write_flows() {
        let h = history(json!([
            {"call": "get_issue", "repo": "owner/public-site"},
            {"call": "get_file_contents", "repo": "owner/private-payroll"}
        ]));
        let f = flow(
            "create_pull_request",
            &json!({"repo": "owner/public-site", "body": "x"}),
            &h,
        )
        .unwrap();
        assert_eq!(f.code, Code::ToxicFlow);
        assert_eq!(f.path, "/a/repo");
        assert!(f.message.contains("owner/private-payroll"), "{}", f.message);
        assert!(f.message.contains("target itself"), "{}", f.message);
        // owner + repo split, other verbs and places.
        let h =
            history(json!([{"tool": "list_objects", "arguments": {"bucket": "Finance-Private"}}]));
        assert!(flow("upload_file", &json!({"bucket": "public-assets"}), &h).is_some());
        let h = history(json!([{"call": "read_messages", "channel": "hr-confidential"}]));
        assert!(flow("send_email", &json!({"to": "someone@example.net"}), &h).is_some());
        let h = history(json!([{"call": "get_file_contents", "owner": "acme", "repo": "payroll"}]));
        assert!(
            flow(
                "createIssue",
                &json!({"owner": "acme", "repo": "website"}),
                &h
            )
            .is_some()
        );
        let h = history(json!([{"call": "fetch_page", "url": "https://intranet.example/hr"}]));
        assert!(
            flow(
                "post_webhook",
                &json!({"url": "https://hooks.example.org/x"}),
                &h
            )
            .is_some()
        );
    }

    #[test]
    fn same_place_and_reads_do_not_flow() {
        let h = history(json!([
            {"call": "get_issue", "repo": "owner/site"},
            {"call": "get_file_contents", "repo": "OWNER/site"}
        ]));
        assert!(flow("create_pull_request", &json!({"repo": "owner/site"}), &h).is_none());
        let h = history(json!([{"call": "get_file_contents", "owner": "acme", "repo": "site"}]));
        assert!(flow("create_pull_request", &json!({"repo": "acme/site"}), &h).is_none());
        // A read after reads is not a write.
        let h = history(json!([{"call": "get_file_contents", "repo": "owner/payroll"}]));
        assert!(flow("get_issue", &json!({"repo": "owner/site"}), &h).is_none());
        // Writes in history are not sources; no place in the write, no flow.
        let h = history(json!([{"call": "delete_branch", "repo": "owner/payroll"}]));
        assert!(flow("create_pull_request", &json!({"repo": "owner/site"}), &h).is_none());
        let h = history(json!([{"call": "get_file_contents", "repo": "owner/payroll"}]));
        assert!(flow("create_note", &json!({"text": "hi"}), &h).is_none());
        assert!(flow("create_pull_request", &json!({"repo": "owner/site"}), &[]).is_none());
    }
}
