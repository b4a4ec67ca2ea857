//! Human in the loop, the pure part (issue 5): policy, decision, confirmation view and
//! digest, sealed `requestState` tokens, audit redaction.
mod args;
mod decide;
#[cfg(test)]
mod decide_tests;
mod flow;
mod intent;
mod policy;

pub use args::{ArgRule, ArgRuleError};
pub use decide::{ARGUMENTS_PATH, CallError, Decision, RiskTier, TOOL_PATH, ToolCall, decide};
pub use flow::{HistoryEntry, HistoryError};
pub use policy::{
    Action, Channel, ConfirmationConfig, Fallback, Policy, PolicyConfig, PolicyError, RuleMatch,
    ServerConfig, ToolRuleConfig,
};
