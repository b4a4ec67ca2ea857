//! "Always allow" grants, the pure part (issue 5 §4): a grant is only ever created from an
//! explicit user answer ([`super::Remember::AlwaysForThisTool`]) or `mcp-bastion approvals
//! grant`; it names the server identity, the tool and the tool's pin hash, so any change
//! of the descriptor or of the server's launch config voids it. Tools without a pin
//! cannot be granted. The store keeps grants; this module says whether one applies.
//!
//! A grant answers only the question "may this tool run without asking": it turns an
//! `ask` whose every reason is `confirmation_required` into `allow`. Calls that ask
//! because of a signal (hidden characters, toxic flow, name/description mismatch,
//! annotation contradiction) and calls the policy denies are not changed.

use super::decide::Decision;
use super::digest::Binding;
use super::policy::Action;
use crate::finding::{Code, Finding, Severity};
use crate::pins::ServerIdentity;
use serde::{Deserialize, Serialize};

/// One stored grant. JSON: `{"server": {"name", "launch_hash"}, "tool", "tool_pin"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Grant {
    /// The server identity the grant was given for.
    pub server: ServerIdentity,
    /// The tool name (raw).
    pub tool: String,
    /// SHA-256 hex of the tool descriptor as pinned when the grant was given.
    pub tool_pin: String,
}

impl Grant {
    /// The grant an "always for this tool" answer creates for a call of `tool` bound to
    /// `binding`; `None` when the tool has no pin (nothing to bind the grant to).
    pub fn from_approval(binding: &Binding, tool: &str) -> Option<Self> {
        Some(Self {
            server: binding.server.clone(),
            tool: tool.to_owned(),
            tool_pin: binding.tool_pin.clone()?,
        })
    }

    /// Whether this grant covers a call of `tool` bound to `binding`: same server name and
    /// launch hash, same tool name, and the tool's current pin equals the granted one.
    pub fn covers(&self, binding: &Binding, tool: &str) -> bool {
        self.server == binding.server
            && self.tool == tool
            && binding.tool_pin.as_deref() == Some(self.tool_pin.as_str())
    }
}

/// `decision` with `grant` applied (module docs): an `ask` whose reasons are all
/// `confirmation_required` becomes `allow` with an `auto_approved` (info) reason naming
/// the grant, when `grant` covers the call; anything else is returned unchanged.
pub fn apply_grant(
    decision: Decision,
    grant: Option<&Grant>,
    binding: &Binding,
    tool: &str,
) -> Decision {
    let Some(grant) = grant else {
        return decision;
    };
    let only_base = decision
        .reasons
        .iter()
        .all(|f| f.code == Code::ConfirmationRequired);
    if decision.action != Action::Ask || !only_base || !grant.covers(binding, tool) {
        return decision;
    }
    let shown = crate::unicode::escape_non_ascii(tool, crate::unicode::MAX_NAME_SHOWN);
    Decision {
        action: Action::Allow,
        tier: decision.tier,
        reasons: vec![Finding::new(
            Code::AutoApproved,
            Severity::Info,
            "",
            format!(
                "an explicit grant allows tool \"{shown}\" while its descriptor stays as pinned ({}…); it runs without asking.",
                &grant.tool_pin[..grant.tool_pin.len().min(12)]
            ),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confirm::RiskTier;

    fn binding(pin: Option<&str>) -> Binding {
        Binding {
            server: ServerIdentity {
                name: "gh".into(),
                launch_hash: "l1".into(),
            },
            tool_pin: pin.map(str::to_owned),
        }
    }

    fn ask(codes: &[Code]) -> Decision {
        Decision {
            action: Action::Ask,
            tier: RiskTier::High,
            reasons: codes
                .iter()
                .map(|c| Finding::new(*c, Severity::Warn, "", "m"))
                .collect(),
        }
    }

    #[test]
    fn grants_bind_to_server_tool_and_pin() {
        assert_eq!(Grant::from_approval(&binding(None), "t"), None);
        let g = Grant::from_approval(&binding(Some("p1")), "t").unwrap();
        assert!(g.covers(&binding(Some("p1")), "t"));
        assert!(!g.covers(&binding(Some("p2")), "t"), "descriptor changed");
        assert!(!g.covers(&binding(None), "t"));
        assert!(!g.covers(&binding(Some("p1")), "u"));
        let mut other = binding(Some("p1"));
        other.server.launch_hash = "l2".into();
        assert!(!g.covers(&other, "t"), "launch config changed");
    }

    #[test]
    fn only_plain_asks_are_granted() {
        let b = binding(Some("p1"));
        let g = Grant::from_approval(&b, "t").unwrap();
        let d = apply_grant(ask(&[Code::ConfirmationRequired]), Some(&g), &b, "t");
        assert_eq!(d.action, Action::Allow);
        assert_eq!(d.reasons[0].code, Code::AutoApproved);
        for signal in [
            Code::ToxicFlow,
            Code::BidiControl,
            Code::ToolIntentMismatch,
            Code::AnnotationContradiction,
        ] {
            let d = apply_grant(
                ask(&[Code::ConfirmationRequired, signal]),
                Some(&g),
                &b,
                "t",
            );
            assert_eq!(d.action, Action::Ask, "{signal}");
        }
        let mut deny = ask(&[Code::PolicyDenied]);
        deny.action = Action::Deny;
        assert_eq!(apply_grant(deny, Some(&g), &b, "t").action, Action::Deny);
        assert_eq!(
            apply_grant(ask(&[Code::ConfirmationRequired]), None, &b, "t").action,
            Action::Ask
        );
        let changed = binding(Some("p2"));
        assert_eq!(
            apply_grant(ask(&[Code::ConfirmationRequired]), Some(&g), &changed, "t").action,
            Action::Ask
        );
    }
}
