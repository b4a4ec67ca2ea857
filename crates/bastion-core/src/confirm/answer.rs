//! The approval form and the user's answer (issue 5 §3).
//!
//! The form is an MCP elicitation `requestedSchema` (MCP 2025-11-25, Client Features →
//! Elicitation: a flat object of primitive properties): `approve` (boolean) and
//! `remember` (`once` | `always_for_this_tool`). The host answers with an `ElicitResult`
//! `{"action": "accept" | "decline" | "cancel", "content"?: {...}}`; [`parse_answer`]
//! turns it into an [`Answer`]. Fail closed: anything but an `accept` whose content is
//! exactly `approve: true` (plus an optional valid `remember`) denies.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Whether an approval is for this call only or becomes a grant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This call only. The default.
    #[default]
    Once,
    /// Store a grant for this tool, bound to its pin hash (voided by any descriptor
    /// change; issue 5 §4).
    AlwaysForThisTool,
}

/// Why an answer denies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum DenyReason {
    /// The user declined (`action: "decline"`).
    Declined,
    /// The user dismissed the form (`action: "cancel"`).
    Cancelled,
    /// The user accepted the form with `approve: false`.
    NotApproved,
    /// The answer does not have the expected shape; carries what is wrong.
    Invalid(String),
}

impl DenyReason {
    /// Stable name for the audit log: `declined`, `cancelled`, `not_approved`,
    /// `invalid_answer`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Self::Declined => "declined",
            Self::Cancelled => "cancelled",
            Self::NotApproved => "not_approved",
            Self::Invalid(_) => "invalid_answer",
        }
    }
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "answer")]
pub enum Answer {
    /// Run the call (after the digest is verified).
    Approve {
        /// Once, or always for this tool.
        remember: Remember,
    },
    /// Refuse it (JSON-RPC error reason `approval_denied`).
    Deny {
        /// Why.
        why: DenyReason,
    },
}

/// The `requestedSchema` of the approval form. `offer_always` adds the `remember` field
/// (only for pinned tools: a grant is bound to the pin, see [`super::Grant`]).
pub fn requested_schema(offer_always: bool) -> Value {
    if !offer_always {
        return json!({
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve this tool call",
                    "description": "Yes runs the call with exactly the arguments shown; no refuses it.",
                    "default": false
                }
            },
            "required": ["approve"]
        });
    }
    json!({
        "type": "object",
        "properties": {
            "approve": {
                "type": "boolean",
                "title": "Approve this tool call",
                "description": "Yes runs the call with exactly the arguments shown; no refuses it.",
                "default": false
            },
            "remember": {
                "type": "string",
                "title": "Remember",
                "description": "once: only this call. always_for_this_tool: allow this tool without asking until its description changes.",
                "enum": ["once", "always_for_this_tool"],
                "default": "once"
            }
        },
        "required": ["approve"]
    })
}

fn invalid(why: impl Into<String>) -> Answer {
    Answer::Deny {
        why: DenyReason::Invalid(why.into()),
    }
}

/// Parses an elicitation result (`ElicitResult`) into an [`Answer`]; every invalid
/// answer denies: unknown `action`, `accept` without an object `content`, `approve`
/// missing or not a boolean, `remember` not one of the enum, or any other member in
/// `content`. Members of the result other than `action` and `content` (`_meta`) are
/// ignored.
pub fn parse_answer(result: &Value) -> Answer {
    let action = result.get("action").and_then(Value::as_str);
    match action {
        Some("decline") => {
            return Answer::Deny {
                why: DenyReason::Declined,
            };
        }
        Some("cancel") => {
            return Answer::Deny {
                why: DenyReason::Cancelled,
            };
        }
        Some("accept") => {}
        Some(other) => {
            return invalid(format!(
                "unknown action `{}`",
                other.chars().take(40).collect::<String>()
            ));
        }
        None => return invalid("no string `action`"),
    }
    let Some(content) = result.get("content").and_then(Value::as_object) else {
        return invalid("`accept` without an object `content`");
    };
    if let Some(extra) = content.keys().find(|k| *k != "approve" && *k != "remember") {
        return invalid(format!(
            "unexpected field `{}` in the answer",
            extra.chars().take(40).collect::<String>()
        ));
    }
    let remember = match content.get("remember") {
        None => Remember::Once,
        Some(Value::String(s)) if s == "once" => Remember::Once,
        Some(Value::String(s)) if s == "always_for_this_tool" => Remember::AlwaysForThisTool,
        Some(_) => return invalid("`remember` must be \"once\" or \"always_for_this_tool\""),
    };
    match content.get("approve") {
        Some(Value::Bool(true)) => Answer::Approve { remember },
        Some(Value::Bool(false)) => Answer::Deny {
            why: DenyReason::NotApproved,
        },
        _ => invalid("`approve` must be a boolean"),
    }
}

/// Parses one line typed at the terminal prompt: `y`/`yes` approves once, `a`/`always`
/// approves always for this tool (case-insensitive, surrounding whitespace ignored);
/// `n`/`no`/empty declines; anything else is invalid (and denies).
pub fn parse_tty_answer(line: &str) -> Answer {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Answer::Approve {
            remember: Remember::Once,
        },
        "a" | "always" => Answer::Approve {
            remember: Remember::AlwaysForThisTool,
        },
        "" | "n" | "no" => Answer::Deny {
            why: DenyReason::Declined,
        },
        _ => invalid("the terminal answer was not y, a or n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        let ok = |v: Value| parse_answer(&v);
        assert_eq!(
            ok(json!({"action": "accept", "content": {"approve": true}})),
            Answer::Approve {
                remember: Remember::Once
            }
        );
        assert_eq!(
            ok(
                json!({"action": "accept", "content": {"approve": true, "remember": "always_for_this_tool"}, "_meta": {}})
            ),
            Answer::Approve {
                remember: Remember::AlwaysForThisTool
            }
        );
        assert_eq!(
            ok(json!({"action": "accept", "content": {"approve": false, "remember": "once"}})),
            Answer::Deny {
                why: DenyReason::NotApproved
            }
        );
        assert_eq!(
            ok(json!({"action": "decline"})),
            Answer::Deny {
                why: DenyReason::Declined
            }
        );
        assert_eq!(
            ok(json!({"action": "cancel", "content": {"approve": true}})),
            Answer::Deny {
                why: DenyReason::Cancelled
            }
        );
        for bad in [
            json!({}),
            json!({"action": "ACCEPT", "content": {"approve": true}}),
            json!({"action": "accept"}),
            json!({"action": "accept", "content": {}}),
            json!({"action": "accept", "content": {"approve": "true"}}),
            json!({"action": "accept", "content": {"approve": 1}}),
            json!({"action": "accept", "content": {"approve": true, "remember": "forever"}}),
            json!({"action": "accept", "content": {"approve": true, "arguments": {"path": "/etc"}}}),
            json!({"action": "accept", "content": [true]}),
            json!("accept"),
        ] {
            let a = parse_answer(&bad);
            assert!(
                matches!(
                    a,
                    Answer::Deny {
                        why: DenyReason::Invalid(_)
                    }
                ),
                "{bad}: {a:?}"
            );
        }
    }

    #[test]
    fn schema_is_a_flat_elicitation_form() {
        assert!(
            requested_schema(false)["properties"]
                .get("remember")
                .is_none()
        );
        let s = requested_schema(true);
        assert_eq!(s["type"], "object");
        for (_, p) in s["properties"].as_object().unwrap() {
            assert!(matches!(p["type"].as_str(), Some("boolean" | "string")));
        }
        assert_eq!(
            s["properties"]["remember"]["enum"],
            json!(["once", "always_for_this_tool"])
        );
        assert_eq!(
            serde_json::to_value(Remember::AlwaysForThisTool).unwrap(),
            json!("always_for_this_tool")
        );
    }

    fn arb_answer() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i8>().prop_map(|n| json!(n)),
            prop_oneof![
                Just("accept"),
                Just("decline"),
                Just("cancel"),
                Just("once"),
                Just("always_for_this_tool"),
                Just("true"),
                Just("")
            ]
            .prop_map(|s| json!(s)),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop::collection::btree_map(
                prop_oneof![
                    Just("action".to_owned()),
                    Just("content".to_owned()),
                    Just("approve".to_owned()),
                    Just("remember".to_owned()),
                    "[a-z]{1,3}"
                ],
                inner,
                0..4,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect()))
        })
    }

    proptest::proptest! {
        /// Only an `accept` whose content says exactly `approve: true` ever approves.
        #[test]
        fn approval_needs_an_explicit_yes(v in arb_answer()) {
            if let Answer::Approve { .. } = parse_answer(&v) {
                proptest::prop_assert_eq!(v["action"].as_str(), Some("accept"));
                proptest::prop_assert_eq!(&v["content"]["approve"], &json!(true));
                let keys = v["content"].as_object().unwrap().keys().filter(|k| *k != "approve" && *k != "remember").count();
                proptest::prop_assert_eq!(keys, 0);
            }
        }
    }

    #[test]
    fn tty() {
        assert_eq!(
            parse_tty_answer(" Y\n"),
            Answer::Approve {
                remember: Remember::Once
            }
        );
        assert_eq!(
            parse_tty_answer("always"),
            Answer::Approve {
                remember: Remember::AlwaysForThisTool
            }
        );
        assert_eq!(
            parse_tty_answer(""),
            Answer::Deny {
                why: DenyReason::Declined
            }
        );
        assert!(matches!(
            parse_tty_answer("yes please"),
            Answer::Deny {
                why: DenyReason::Invalid(_)
            }
        ));
        assert_eq!(
            DenyReason::Invalid(String::new()).as_str(),
            "invalid_answer"
        );
    }
}
