//! Descriptor lists (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`) and server instructions (`initialize`,
//! `server/discover`): run every descriptor detector, withhold what must not reach the
//! host, and return the list sorted deterministically (DESIGN §4).
//!
//! Two checks look at the list as a whole, because a host shows the items side by side
//! and a model picks among them by name:
//! * `duplicate_name` (high): two items with the same key (`name`, `uri`,
//!   `uriTemplate`) are ambiguous, all copies are withheld;
//! * `confusable_identifier` (high): two items whose `name`s differ but have the same
//!   UTS #39 confusable skeleton (`read_file` / `read_fiIe`, `rn` / `m`, `0` / `O`,
//!   `pay_invoice` / Cyrillic `рay_invoice`) cannot be told apart by the user; both are
//!   withheld, since nothing says which is the real one. Resources and resource
//!   templates are compared by `name` too (what the host shows), not by URI.
//!   Names that stay apart, by the UTS #39 skeleton itself: `get_user` / `get_users`
//!   (different text), `list-files` / `list_files` (`-` and `_` are not confusable),
//!   and case variants such as `Echo` / `echo` (the skeleton keeps case; a case
//!   difference is visible, and MCP names are case-sensitive). Only one page of a
//!   paginated list is compared at a time.

use crate::detect::{DescriptorKind, scan_descriptor};
use crate::finding::{Code, Finding, Severity, Verdict, pointer_push};
use crate::unicode::{MAX_NAME_SHOWN, escape_non_ascii};
use serde_json::{Map, Value};
use std::collections::HashMap;
use unicode_security::skeleton;

/// The list member and sort key of a list method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListShape {
    /// Member of the result holding the array (`tools`, `prompts`, ...).
    pub member: &'static str,
    /// Member of each item used as its identity and sort key (`name`, `uri`, `uriTemplate`).
    pub key: &'static str,
    /// Detector kind for the items.
    pub kind: DescriptorKind,
}

/// The list shape of `method`, if it is a descriptor list method.
pub fn shape_of(method: &str) -> Option<ListShape> {
    let (member, key, kind) = match method {
        "tools/list" => ("tools", "name", DescriptorKind::Tool),
        "prompts/list" => ("prompts", "name", DescriptorKind::Prompt),
        "resources/list" => ("resources", "uri", DescriptorKind::Resource),
        "resources/templates/list" => (
            "resourceTemplates",
            "uriTemplate",
            DescriptorKind::ResourceTemplate,
        ),
        _ => return None,
    };
    Some(ListShape { member, key, kind })
}

/// One descriptor's outcome within a list.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemOutcome {
    /// The item's identity (`name`, `uri` or `uriTemplate` value).
    pub key: String,
    /// Its verdict: `block` means withheld.
    pub verdict: Verdict,
    /// Its findings, paths relative to the result (`/tools/3/description`).
    pub findings: Vec<Finding>,
}

/// Outcome of [`inspect_list`].
#[derive(Debug, Clone, PartialEq)]
pub struct ListOutcome {
    /// The result to send to the host when it differs from the server's (items
    /// withheld or order changed); `None` means forward the original bytes.
    pub rewritten: Option<Value>,
    /// Every item, in the server's order.
    pub items: Vec<ItemOutcome>,
}

impl ListOutcome {
    /// Keys of the withheld items.
    pub fn withheld(&self) -> impl Iterator<Item = &str> {
        self.items
            .iter()
            .filter(|i| i.verdict == Verdict::Block)
            .map(|i| i.key.as_str())
    }

    /// Keys of items passed with a warning.
    pub fn flagged(&self) -> impl Iterator<Item = &str> {
        self.items
            .iter()
            .filter(|i| i.verdict == Verdict::Flag)
            .map(|i| i.key.as_str())
    }

    /// The list's overall verdict (the worst item).
    pub fn verdict(&self) -> Verdict {
        self.items
            .iter()
            .map(|i| i.verdict)
            .max()
            .unwrap_or(Verdict::Allow)
    }
}

/// Scans every descriptor of a list result, withholds blocked items, items sharing a
/// key (ambiguous) and items whose names look alike (module docs), and sorts the rest by
/// key (byte order). `result` must have passed [`crate::methods::check_result`].
pub fn inspect_list(shape: ListShape, result: &Value) -> ListOutcome {
    inspect_list_with(shape, result, None)
}

/// [`inspect_list`], and for `tools` lists also every name against the tools of other
/// servers in `shadow` ([`crate::detect::ShadowIndex`], `tool_name_collision`: an
/// identical name flags, a look-alike withholds).
pub fn inspect_list_with(
    shape: ListShape,
    result: &Value,
    shadow: Option<&crate::detect::ShadowIndex>,
) -> ListOutcome {
    let Some(list) = result.get(shape.member).and_then(Value::as_array) else {
        return ListOutcome {
            rewritten: None,
            items: Vec::new(),
        };
    };
    let base = pointer_push("", shape.member);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for item in list {
        *counts
            .entry(item.get(shape.key).and_then(Value::as_str).unwrap_or(""))
            .or_default() += 1;
    }
    let mut lookalikes = lookalike_names(list);
    let mut items = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let path = pointer_push(&base, &index.to_string());
        let key = item
            .get(shape.key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let mut findings = scan_descriptor(shape.kind, item, &path);
        if counts.get(key.as_str()).copied().unwrap_or(0) > 1 {
            findings.push(Finding::new(
                Code::DuplicateName,
                Severity::High,
                pointer_push(&path, shape.key),
                format!(
                    "{} {key:?} appears more than once in the list; all copies are withheld",
                    shape.key
                ),
            ));
        }
        if let Some(other) = lookalikes[index].take() {
            let name = item.get("name").and_then(Value::as_str).unwrap_or("");
            findings.push(Finding::new(
                Code::ConfusableIdentifier,
                Severity::High,
                pointer_push(&path, "name"),
                format!(
                    "name \"{}\" looks the same as \"{}\", the name of another item in this list (same UTS #39 confusable skeleton); both are withheld, since the host cannot tell which is which",
                    escape_non_ascii(name, MAX_NAME_SHOWN),
                    escape_non_ascii(other, MAX_NAME_SHOWN),
                ),
            ));
        }
        if let Some(index) = shadow.filter(|_| shape.member == "tools") {
            findings.extend(index.check(&key, &pointer_push(&path, "name")));
        }
        let verdict = Verdict::from_findings(&findings, false);
        items.push(ItemOutcome {
            key,
            verdict,
            findings,
        });
    }
    let kept: Vec<(&str, &Value)> = list
        .iter()
        .zip(&items)
        .filter(|(_, o)| o.verdict != Verdict::Block)
        .map(|(v, o)| (o.key.as_str(), v))
        .collect();
    let mut sorted = kept.clone();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let unchanged = kept.len() == list.len()
        && sorted
            .iter()
            .zip(&kept)
            .all(|(a, b)| std::ptr::eq(a.1, b.1));
    let rewritten = (!unchanged).then(|| {
        let mut out: Map<String, Value> = result.as_object().cloned().unwrap_or_default();
        out.insert(
            shape.member.to_owned(),
            Value::Array(sorted.into_iter().map(|(_, v)| v.clone()).collect()),
        );
        Value::Object(out)
    });
    ListOutcome { rewritten, items }
}

/// For each item of `list`, a different `name` of another item with the same UTS #39
/// confusable skeleton, if any (module docs). Linear in the total length of the names.
fn lookalike_names(list: &[Value]) -> Vec<Option<&str>> {
    let names: Vec<Option<&str>> = list
        .iter()
        .map(|item| item.get("name").and_then(Value::as_str))
        .collect();
    let skeletons: Vec<Option<String>> = names
        .iter()
        .map(|n| n.map(|n| skeleton(n).collect()))
        .collect();
    // Per skeleton: the first name seen, and the first name differing from it.
    let mut groups: HashMap<&str, (&str, Option<&str>)> = HashMap::new();
    for (name, skel) in names.iter().zip(&skeletons) {
        let (Some(name), Some(skel)) = (name, skel) else {
            continue;
        };
        let group = groups.entry(skel.as_str()).or_insert((name, None));
        if group.1.is_none() && group.0 != *name {
            group.1 = Some(name);
        }
    }
    names
        .iter()
        .zip(&skeletons)
        .map(|(name, skel)| {
            let (first, differing) = *groups.get(skel.as_deref()?)?;
            let differing = differing?;
            Some(if *name == Some(first) {
                differing
            } else {
                first
            })
        })
        .collect()
}

/// Outcome of [`inspect_instructions`].
#[derive(Debug, Clone, PartialEq)]
pub struct InstructionsOutcome {
    /// Findings on `/instructions`.
    pub findings: Vec<Finding>,
    /// The result without `instructions` when they are withheld.
    pub rewritten: Option<Value>,
}

/// Scans the `instructions` of an `initialize` or `server/discover` result; blocked
/// instructions are removed from the result (the rest of the handshake is kept).
pub fn inspect_instructions(result: &Value) -> InstructionsOutcome {
    let Some(text) = result.get("instructions") else {
        return InstructionsOutcome {
            findings: Vec::new(),
            rewritten: None,
        };
    };
    let findings = scan_descriptor(DescriptorKind::ServerInstructions, text, "/instructions");
    let rewritten = (Verdict::from_findings(&findings, false) == Verdict::Block).then(|| {
        let mut out = result.as_object().cloned().unwrap_or_default();
        out.shift_remove("instructions");
        Value::Object(out)
    });
    InstructionsOutcome {
        findings,
        rewritten,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "Does one thing.", "inputSchema": {"type": "object"}})
    }

    /// (key, confusable finding on /tools/i/name?) per item, and the kept names.
    fn confusables(names: &[&str]) -> (Vec<(String, bool)>, Vec<String>) {
        let result = json!({"tools": names.iter().map(|n| tool(n)).collect::<Vec<_>>()});
        let outcome = inspect_list(shape_of("tools/list").unwrap(), &result);
        let items = outcome
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let hit = item.findings.iter().any(|f| {
                    f.code == Code::ConfusableIdentifier
                        && f.severity == Severity::High
                        && f.path == format!("/tools/{i}/name")
                });
                (item.key.clone(), hit)
            })
            .collect();
        let kept = outcome
            .rewritten
            .as_ref()
            .unwrap_or(&result)
            .get("tools")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        (items, kept)
    }

    #[test]
    fn ascii_look_alikes_in_one_list_are_both_withheld() {
        let pairs: &[(&str, &str)] = &[
            ("read_file", "read_fiIe"),
            ("list_items", "list_iterns"),
            ("get_orders_0", "get_orders_O"),
            ("fetch_v1", "fetch_vl"),
            ("pay_invoice", "\u{440}ay_invoice"),
        ];
        for (a, b) in pairs {
            let (items, kept) = confusables(&[a, "echo", b]);
            assert_eq!(
                items,
                [
                    ((*a).to_owned(), true),
                    ("echo".to_owned(), false),
                    ((*b).to_owned(), true)
                ],
                "{a} / {b}"
            );
            assert_eq!(kept, ["echo"], "{a} / {b}");
        }
    }

    #[test]
    fn look_alike_message_names_the_other_item() {
        let result = json!({"tools": [tool("read_file"), tool("read_fiIe")]});
        let outcome = inspect_list(shape_of("tools/list").unwrap(), &result);
        let message = |i: usize| {
            outcome.items[i]
                .findings
                .iter()
                .find(|f| f.code == Code::ConfusableIdentifier)
                .unwrap()
                .message
                .clone()
        };
        assert!(
            message(0).starts_with("name \"read_file\" looks the same as \"read_fiIe\""),
            "{}",
            message(0)
        );
        assert!(message(1).contains("\"read_fiIe\" looks the same as \"read_file\""));
        assert_eq!(outcome.verdict(), Verdict::Block);
    }

    #[test]
    fn distinct_names_stay_allowed() {
        // Different text, `-` vs `_` (not confusable in UTS #39), and case variants
        // (the skeleton keeps case; MCP names are case-sensitive and the case shows).
        let names = [
            "get_user",
            "get_users",
            "list-files",
            "list_files",
            "Echo",
            "echo",
            "add",
            "long_running_operation",
        ];
        let (items, kept) = confusables(&names);
        assert!(items.iter().all(|(_, hit)| !hit), "{items:?}");
        assert_eq!(kept.len(), names.len());
    }

    #[test]
    fn identical_names_are_duplicates_not_look_alikes() {
        let result = json!({"tools": [tool("echo"), tool("echo"), tool("ech0")]});
        let outcome = inspect_list(shape_of("tools/list").unwrap(), &result);
        let codes: Vec<Vec<Code>> = outcome
            .items
            .iter()
            .map(|i| i.findings.iter().map(|f| f.code).collect())
            .collect();
        // `ech0` is no look-alike of `echo` in UTS #39 (`0` is confusable with `O`, not
        // with `o`), so only the duplicates are withheld.
        assert_eq!(
            codes,
            [vec![Code::DuplicateName], vec![Code::DuplicateName], vec![]]
        );
        let result = json!({"tools": [tool("tool_l"), tool("tool_l"), tool("tool_1")]});
        let outcome = inspect_list(shape_of("tools/list").unwrap(), &result);
        let codes: Vec<Vec<Code>> = outcome
            .items
            .iter()
            .map(|i| i.findings.iter().map(|f| f.code).collect())
            .collect();
        assert_eq!(
            codes,
            [
                vec![Code::DuplicateName, Code::ConfusableIdentifier],
                vec![Code::DuplicateName, Code::ConfusableIdentifier],
                vec![Code::ConfusableIdentifier]
            ]
        );
    }

    #[test]
    fn resources_and_prompts_are_compared_by_name() {
        let result = json!({"resources": [
            {"uri": "file:///a", "name": "report_1"},
            {"uri": "file:///b", "name": "report_l"},
            {"uri": "file:///c", "name": "Report 2"},
        ]});
        let outcome = inspect_list(shape_of("resources/list").unwrap(), &result);
        let withheld: Vec<&str> = outcome.withheld().collect();
        assert_eq!(withheld, ["file:///a", "file:///b"]);
        assert_eq!(
            outcome.items[1].findings[0].path, "/resources/1/name",
            "{:?}",
            outcome.items[1].findings
        );
        let result = json!({"prompts": [{"name": "summarize"}, {"name": "surnmarize"}]});
        let outcome = inspect_list(shape_of("prompts/list").unwrap(), &result);
        assert_eq!(outcome.withheld().count(), 2);
    }
}
