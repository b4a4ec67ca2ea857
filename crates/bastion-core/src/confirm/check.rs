//! `mcp-bastion check confirmation` (corpus README, `confirmation` category): must this
//! call be confirmed (`flag`), may it run (`allow`), or is it refused (`block`)?
//!
//! Input: `{"server_trust": "trusted" | "untrusted", "tool"?: <pinned tool descriptor>,
//! "call": <a tools/call request, or just its params>, "history"?: [HistoryEntry],
//! "server"?: NAME (default "server"), "server_launch_hash"?: HEX (default ""),
//! "policy"?: <the [confirmation] and [servers.*] config as JSON>}`.
//! `server_trust` decides trust (the policy's `[servers.NAME] trusted` is not consulted
//! here; the gateway passes [`super::Policy::trusted`]).
//! Output: the [`ConfirmationRequest`] view with its `digest`, plus `"message"`, the text
//! the user would see. Findings are the decision's reasons.

use super::call::ToolCall;
use super::decide::decide;
use super::digest::Binding;
use super::flow::HistoryEntry;
use super::policy::{Policy, PolicyConfig};
use super::request::ConfirmationRequest;
use crate::finding::Report;
use crate::pins::ServerIdentity;
use serde_json::Value;

/// Why a `check confirmation` input is unusable (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfirmationInputError {
    /// A member is missing or has the wrong type or value.
    #[error("{0}")]
    Shape(String),
    /// The embedded policy does not compile.
    #[error("policy: {0}")]
    Policy(String),
}

fn shape(detail: impl Into<String>) -> ConfirmationInputError {
    ConfirmationInputError::Shape(detail.into())
}

const MEMBERS: &[&str] = &[
    "server_trust",
    "tool",
    "call",
    "history",
    "server",
    "server_launch_hash",
    "policy",
];

/// Runs the confirmation decision on one input (module docs for the shape).
///
/// # Errors
/// [`ConfirmationInputError`] for an input of the wrong shape.
pub fn check_confirmation(input: &Value) -> Result<Report, ConfirmationInputError> {
    let obj = input
        .as_object()
        .ok_or_else(|| shape("input must be an object"))?;
    if let Some(k) = obj.keys().find(|k| !MEMBERS.contains(&k.as_str())) {
        return Err(shape(format!(
            "unknown member `{k}`; expected {}",
            MEMBERS.join(", ")
        )));
    }
    let trusted = match obj.get("server_trust").and_then(Value::as_str) {
        Some("trusted") => true,
        Some("untrusted") => false,
        _ => return Err(shape("`server_trust` must be \"trusted\" or \"untrusted\"")),
    };
    let tool = match obj.get("tool") {
        None | Some(Value::Null) => None,
        Some(t @ Value::Object(_)) => Some(t),
        Some(_) => return Err(shape("`tool` must be a tool descriptor object")),
    };
    let call = obj.get("call").ok_or_else(|| shape("missing `call`"))?;
    let params = if call.get("method").is_some() {
        if call.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Err(shape("`call.method` must be \"tools/call\""));
        }
        call.get("params")
            .ok_or_else(|| shape("`call` has no `params`"))?
    } else {
        call
    };
    let parsed = ToolCall::from_params(params).map_err(|e| shape(e.to_string()))?;
    let history: Vec<HistoryEntry> = match obj.get("history") {
        None | Some(Value::Null) => Vec::new(),
        Some(h) => {
            serde_json::from_value(h.clone()).map_err(|e| shape(format!("`history`: {e}")))?
        }
    };
    let string = |k: &str, default: &str| match obj.get(k) {
        None => Ok(default.to_owned()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(shape(format!("`{k}` must be a string"))),
    };
    let server = string("server", "server")?;
    let launch_hash = string("server_launch_hash", "")?;
    let policy = match obj.get("policy") {
        None => Policy::default(),
        Some(p) => {
            let config: PolicyConfig = serde_json::from_value(p.clone())
                .map_err(|e| ConfirmationInputError::Policy(e.to_string()))?;
            Policy::new(config).map_err(|e| ConfirmationInputError::Policy(e.to_string()))?
        }
    };
    let decision = decide(&policy, &server, trusted, tool, &parsed, &history);
    let binding = Binding::of(
        ServerIdentity {
            name: server,
            launch_hash,
        },
        tool,
    )
    .map_err(|e| shape(format!("`tool`: {e}")))?;
    let view = ConfirmationRequest::new(&binding, trusted, tool, params, &decision)
        .map_err(|e| shape(format!("`call.params`: {e}")))?;
    let mut output = serde_json::to_value(&view).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut output {
        o.insert("message".into(), Value::String(view.message()));
    }
    Ok(Report {
        verdict: decision.verdict(),
        findings: decision.reasons,
        output: Some(output),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;
    use serde_json::json;

    #[test]
    fn input_errors() {
        let call = json!({"name": "t"});
        for bad in [
            json!([]),
            json!({"call": call}),
            json!({"server_trust": "maybe", "call": call}),
            json!({"server_trust": "trusted"}),
            json!({"server_trust": "trusted", "call": {"method": "tools/list", "params": {}}}),
            json!({"server_trust": "trusted", "call": {"arguments": {}}}),
            json!({"server_trust": "trusted", "call": call, "tool": "x"}),
            json!({"server_trust": "trusted", "call": call, "history": [1]}),
            json!({"server_trust": "trusted", "call": call, "extra": 1}),
            json!({"server_trust": "trusted", "call": call, "policy": {"servers": {"s": {"tools": {"[": {"action": "ask"}}}}}}),
        ] {
            assert!(check_confirmation(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn params_only_and_policy() {
        let input = json!({
            "server_trust": "untrusted", "server": "fs",
            "call": {"name": "write_file", "arguments": {"path": "/etc/passwd"}},
            "policy": {"servers": {"fs": {"tools": {"write_*": {"action": "allow", "args": [{"name": "path", "under": ["/srv"]}]}}}}}
        });
        let r = check_confirmation(&input).unwrap();
        assert_eq!(r.verdict, Verdict::Block);
        let out = r.output.unwrap();
        assert_eq!(out["digest"].as_str().unwrap().len(), 64);
        assert!(out["message"].as_str().unwrap().contains("\"/etc/passwd\""));
    }
}
