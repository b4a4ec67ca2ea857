//! The decision for one `tools/call` (issue 5 §1): allow, ask or deny, a risk tier and
//! the reasons, as findings.
//!
//! Order of the rules (each documented on [`decide`]):
//! 1. a tool rule with `action = "deny"` denies (`policy_denied`, high);
//! 2. a violated argument rule denies (`argument_rule_violated`, high);
//! 3. the base action: an explicit `allow`/`ask` rule; otherwise, for an untrusted
//!    server, `[confirmation] default` (`ask`; `deny` denies with `policy_denied`); for a
//!    trusted server, `allow` only when the pinned descriptor says `readOnlyHint: true`
//!    and neither `destructiveHint: true` nor `openWorldHint: true` (no descriptor, or
//!    any other annotations, ask: `destructiveHint` defaults to true, MCP 2025-11-25
//!    `ToolAnnotations`). Annotations only tighten: on an untrusted server whose default
//!    is `allow`, `destructiveHint` (explicit or by default) and `openWorldHint: true` ask,
//!    and `readOnlyHint` changes nothing;
//! 4. signals that turn any `allow` (even an explicit one) into `ask`:
//!    annotation contradictions (`annotation_contradiction`), name vs title/description
//!    disagreement (`tool_intent_mismatch`), hidden characters in the called tool name
//!    or in argument names or values (the [`crate::unicode`] codes), and a toxic flow from the history
//!    (`toxic_flow`). All are `warn`.
//!
//! Finding paths point into the `check confirmation` input shape:
//! `/tool/...` (the pinned descriptor), `/call/params/arguments/...`, `/history/N`.

use super::call::ToolCall;
use super::facts::{Hints, ToolFacts};
use super::flow::{HistoryEntry, toxic_flow};
use super::hidden::{hidden_in_arguments, scan};
use super::intent::Effect;
use super::policy::{Action, Policy};
use crate::finding::{Code, Finding, Severity};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// JSON Pointer of the pinned descriptor in the confirmation input.
pub const TOOL_PATH: &str = "/tool";
/// JSON Pointer of the call's arguments in the confirmation input.
pub const ARGUMENTS_PATH: &str = "/call/params/arguments";

/// How much harm a call could do, for the confirmation view and the audit log.
/// Ordered `Low < Medium < High < Critical`.
///
/// - `low`: a read-only tool (pinned `readOnlyHint: true` on a trusted server) with a
///   closed world;
/// - `medium`: a read-only tool with `openWorldHint: true`, a non-destructive modifying
///   tool (`destructiveHint: false`), or any tool of an untrusted server without a
///   stronger signal;
/// - `high`: destructive (explicitly or by default), no pinned descriptor, a name that
///   runs or destroys, hidden characters in arguments;
/// - `critical`: denied by policy, Unicode tag characters in arguments, a toxic flow, or
///   a name that disagrees with its title/description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskTier {
    /// Reads, closed world.
    Low,
    /// Reads the open world, or changes without destroying.
    Medium,
    /// May destroy, run code, or hides characters.
    High,
    /// Refused or an active attack pattern.
    Critical,
}

impl RiskTier {
    /// Stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

/// The outcome of [`decide`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// Run, ask the user, or refuse.
    pub action: Action,
    /// The risk tier shown to the user.
    pub tier: RiskTier,
    /// Why: at least one finding for every `ask` and `deny`; an `allow` carries an
    /// `auto_approved` (info) finding saying why no one is asked.
    pub reasons: Vec<Finding>,
}

impl Decision {
    /// The `check confirmation` verdict: `allow` → `allow`, `ask` → `flag`, `deny` →
    /// `block`.
    pub const fn verdict(&self) -> crate::Verdict {
        match self.action {
            Action::Allow => crate::Verdict::Allow,
            Action::Ask => crate::Verdict::Flag,
            Action::Deny => crate::Verdict::Block,
        }
    }
}

/// Decides one call (module docs for the rule order).
///
/// - `policy`: the compiled policy; `server`: the server's name (`--name`);
/// - `trusted`: whether the server is trusted (normally [`Policy::trusted`]);
/// - `tool`: the pinned descriptor of the called tool, `None` when there is none;
/// - `call`: the call; `history`: earlier calls of the session, oldest first.
///
/// Pure and total: any input yields a [`Decision`].
pub fn decide(
    policy: &Policy,
    server: &str,
    trusted: bool,
    tool: Option<&Value>,
    call: &ToolCall,
    history: &[HistoryEntry],
) -> Decision {
    let facts = ToolFacts::of(tool, &call.name);
    decide_with(policy, server, trusted, &facts, call, history)
}

/// [`decide`] with the descriptor's [`ToolFacts`] computed beforehand (they must be the
/// facts of the pinned descriptor of `call.name`). Same rules, same result.
pub fn decide_with(
    policy: &Policy,
    server: &str,
    trusted: bool,
    facts: &ToolFacts,
    call: &ToolCall,
    history: &[HistoryEntry],
) -> Decision {
    let empty = Map::new();
    let arguments = call.arguments.as_ref().unwrap_or(&empty);
    let rule = policy.rule_for(server, &call.name);
    let tool_name = crate::unicode::escape_non_ascii(&call.name, crate::unicode::MAX_NAME_SHOWN);
    let server = &crate::unicode::escape_non_ascii(server, crate::unicode::MAX_NAME_SHOWN);
    let deny = |reasons| Decision {
        action: Action::Deny,
        tier: RiskTier::Critical,
        reasons,
    };

    if let Some((Action::Deny, pattern)) = rule.action {
        return deny(vec![Finding::new(
            Code::PolicyDenied,
            Severity::High,
            "",
            format!(
                "tool \"{tool_name}\" of server \"{server}\" is denied by the rule [servers.{server}.tools.\"{pattern}\"]."
            ),
        )]);
    }
    let mut violations = Vec::new();
    for (arg_rule, pattern) in &rule.args {
        for v in arg_rule.violations(arguments) {
            violations.push(Finding::new(
                Code::ArgumentRuleViolated,
                Severity::High,
                format!("{ARGUMENTS_PATH}{}", v.pointer),
                format!(
                    "{} (rule [servers.{server}.tools.\"{pattern}\"]); the call is refused.",
                    v.why
                ),
            ));
        }
    }
    if !violations.is_empty() {
        return deny(violations);
    }

    let hints = facts.hints;
    let named = facts.named;
    let pinned = facts.pinned;
    let mut tier = base_tier(trusted, pinned, hints, named);
    let mut reasons = Vec::new();

    // Base action.
    let (mut action, base_reason) = match rule.action {
        Some((a, pattern)) => (
            a,
            format!(
                "the rule [servers.{server}.tools.\"{pattern}\"] says {}",
                a.as_str()
            ),
        ),
        None if !trusted => {
            let d = policy.confirmation().default;
            let why = format!(
                "server \"{server}\" is not trusted, so its annotations are hints only; [confirmation] default = \"{}\"",
                d.as_str()
            );
            if d == Action::Allow
                && let Some(tightened) = hints.tightening()
            {
                (Action::Ask, format!("{why}, but {tightened}"))
            } else {
                (d, why)
            }
        }
        None if !pinned => (
            Action::Ask,
            format!(
                "tool \"{tool_name}\" has no pinned descriptor, so nothing says it is read-only"
            ),
        ),
        None if hints.read_only != Some(true) => (
            Action::Ask,
            format!(
                "server \"{server}\" is trusted but {}",
                hints
                    .tightening()
                    .unwrap_or("the tool is not declared read-only")
            ),
        ),
        None => match hints.tightening() {
            Some(t) => (
                Action::Ask,
                format!("server \"{server}\" is trusted and the tool is read-only, but {t}"),
            ),
            None => (
                Action::Allow,
                format!(
                    "server \"{server}\" is trusted and the pinned descriptor declares readOnlyHint: true"
                ),
            ),
        },
    };
    if action == Action::Deny {
        return deny(vec![Finding::new(
            Code::PolicyDenied,
            Severity::High,
            "",
            format!("{base_reason}; the call is refused."),
        )]);
    }
    if action == Action::Ask {
        reasons.push(Finding::new(
            Code::ConfirmationRequired,
            Severity::Warn,
            "",
            format!("{base_reason}; the user must confirm tool \"{tool_name}\"."),
        ));
    }

    // Signals that make any allow ask.
    let mut signals = facts.signals.clone();
    let mut hidden = Vec::new();
    scan(
        &call.name,
        "/call/params/name",
        "the called tool name",
        &mut hidden,
    );
    hidden.extend(hidden_in_arguments(arguments));
    if hidden.iter().any(|f| f.code == Code::HiddenUnicodeTag) {
        tier = RiskTier::Critical;
    } else if !hidden.is_empty() {
        tier = tier.max(RiskTier::High);
    }
    signals.extend(hidden);
    if let Some(f) = toxic_flow(named, arguments, history, ARGUMENTS_PATH) {
        signals.push(f);
    }
    if signals
        .iter()
        .any(|f| matches!(f.code, Code::ToxicFlow | Code::ToolIntentMismatch))
    {
        tier = RiskTier::Critical;
    }
    if !signals.is_empty() && action == Action::Allow {
        action = Action::Ask;
    }
    reasons.extend(signals);
    // A human is asked to approve exactly what will be sent: a number that JSON peers
    // cannot carry exactly cannot be shown exactly, so such a call is refused.
    if action == Action::Ask {
        let imprecise = imprecise_numbers(arguments);
        if !imprecise.is_empty() {
            return deny(imprecise);
        }
    }
    if action == Action::Allow {
        reasons.push(Finding::new(
            Code::AutoApproved,
            Severity::Info,
            "",
            format!("{base_reason}; tool \"{tool_name}\" may run without asking."),
        ));
    }
    Decision {
        action,
        tier,
        reasons,
    }
}

/// Largest integer every JSON implementation carries exactly (RFC 8259 §6: IEEE 754
/// binary64 has 53 bits of precision).
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Findings for numbers in `arguments` beyond ±2^53 (RFC 8259 §6): parsed, displayed and
/// canonicalized (RFC 8785 uses binary64) they may differ from the bytes sent, so two
/// different calls could share one view and one digest.
fn imprecise_numbers(arguments: &Map<String, Value>) -> Vec<Finding> {
    let mut found = Vec::new();
    let mut stack: Vec<(String, &Value)> = arguments
        .iter()
        .map(|(k, v)| (crate::finding::pointer_push(ARGUMENTS_PATH, k), v))
        .collect();
    while let Some((path, v)) = stack.pop() {
        match v {
            Value::Number(n) => {
                let beyond = n.as_i64().map_or_else(
                    || {
                        n.as_u64().map_or_else(
                            || {
                                n.as_f64().is_some_and(|f| {
                                    f.abs() >= EXACT_INTEGER_LIMIT && f.fract() == 0.0
                                })
                            },
                            |u| u > 1 << 53,
                        )
                    },
                    |i| i.unsigned_abs() > 1 << 53,
                );
                if beyond && found.len() < 8 {
                    found.push(Finding::new(
                        Code::ImpreciseNumber,
                        Severity::High,
                        &path,
                        "the argument holds an integer beyond ±2^53, which JSON implementations do not carry exactly (RFC 8259 §6): what you would approve could differ from what is sent, so the call is refused; send it as a string",
                    ));
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    stack.push((crate::finding::pointer_push(&path, &i.to_string()), item));
                }
            }
            Value::Object(o) => {
                for (k, item) in o {
                    stack.push((crate::finding::pointer_push(&path, k), item));
                }
            }
            _ => {}
        }
    }
    found
}

/// The tier from trust, annotations and the name (see [`RiskTier`]).
fn base_tier(trusted: bool, pinned: bool, hints: Hints, named: Option<Effect>) -> RiskTier {
    let from_hints = if !pinned {
        RiskTier::High
    } else if trusted && hints.read_only == Some(true) {
        if hints.open_world == Some(true) || hints.destructive == Some(true) {
            RiskTier::Medium
        } else {
            RiskTier::Low
        }
    } else if hints.destructive == Some(false) {
        RiskTier::Medium
    } else if trusted || hints.destructive == Some(true) || hints.read_only != Some(true) {
        RiskTier::High
    } else {
        // Untrusted, claims read-only: the claim does not lower the tier below medium.
        RiskTier::Medium
    };
    let from_name = match named {
        Some(Effect::Destroys | Effect::Executes) => RiskTier::High,
        Some(Effect::Modifies) => RiskTier::Medium,
        _ => RiskTier::Low,
    };
    let floor = if trusted {
        RiskTier::Low
    } else {
        RiskTier::Medium
    };
    from_hints.max(from_name).max(floor)
}
