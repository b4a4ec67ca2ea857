//! Human in the loop, the pure part (issue 5): which tool calls run, which ask the user
//! and which are refused; what the user is shown; what the answer is bound to.
//!
//! The gateway (approval channels, grants, audit) builds on this API:
//!
//! 1. Load the policy once: deserialize [`PolicyConfig`] from the config's
//!    `[confirmation]` and `[servers.*]` sections, compile it with [`Policy::new`].
//! 2. Per `tools/call`: [`ToolCall::from_params`], then [`decide`] with the server's
//!    trust ([`Policy::trusted`]), the pinned descriptor and the session's earlier calls
//!    ([`HistoryEntry`]). `Deny` → JSON-RPC error reason `policy_denied`; `Allow` →
//!    forward; `Ask` → step 3 (unless a stored grant for the tool's current pin exists).
//! 3. Build the view: [`Binding::of`] (server identity + pinned descriptor), then
//!    [`ConfirmationRequest::new`]; show [`ConfirmationRequest::message`] or send
//!    [`ConfirmationRequest::elicitation_params`] (legacy era: `elicitation/create`;
//!    stateless era: inside an `input_required` result, with a [`seal`]ed
//!    `requestState` carrying the pending id, [`ConfirmationRequest::digest`] and an
//!    expiry; the retry is matched with [`open`]). Channels, order, timeout and
//!    fallback: [`ConfirmationConfig`].
//!    A stored [`Grant`] whose pin still matches turns a plain `ask` into `allow`
//!    ([`apply_grant`]; signals such as a toxic flow still ask).
//! 4. Read the answer with [`parse_answer`] (elicitation) or [`parse_tty_answer`]; an
//!    [`Answer::Approve`] with [`Remember::AlwaysForThisTool`] becomes a grant
//!    ([`Grant::from_approval`], bound to the tool's pin hash; none for unpinned tools).
//! 5. Right before forwarding, [`ConfirmationRequest::verify`] (or [`verify`] with a
//!    stored digest and binding) on the outgoing params: anything but
//!    [`DigestCheck::Match`] denies (`approval_denied`).
//! 6. Audit: decision, tier, reasons and digest; argument values only when
//!    `audit.log_arguments = true`, through [`redact_arguments`].
//!
//! Files: `policy.rs` (config model, rule matching), `args.rs` (argument rules),
//! `decide.rs` (the decision), `intent.rs` (name vs description), `flow.rs` (toxic
//! flows), `grant.rs` (grants), `digest.rs`, `request.rs` (the view), `answer.rs` (form and answers),
//! `state.rs` (requestState tokens), `redact.rs` (audit redaction), `check.rs`
//! (`check confirmation`).

mod answer;
mod args;
mod call;
mod check;
mod decide;
#[cfg(test)]
mod decide_tests;
mod digest;
mod facts;
mod flow;
mod grant;
mod hidden;
mod intent;
mod policy;
mod redact;
mod request;
mod state;

pub use answer::{Answer, DenyReason, Remember, parse_answer, parse_tty_answer, requested_schema};
pub use args::{ArgRule, ArgRuleError};
pub use call::{CallError, ToolCall};
pub use check::{ConfirmationInputError, check_confirmation};
pub use decide::{ARGUMENTS_PATH, Decision, RiskTier, TOOL_PATH, decide, decide_with};
pub use digest::{Binding, DigestCheck, DigestError, call_digest, canonical_params, verify};
pub use facts::ToolFacts;
pub use flow::{HistoryEntry, HistoryError};
pub use grant::{Grant, apply_grant};
pub use policy::{
    Action, Channel, ConfirmationConfig, Fallback, Policy, PolicyConfig, PolicyError, RuleMatch,
    ServerConfig, ToolRuleConfig,
};
pub use redact::redact_arguments;
pub use request::{ConfirmationRequest, MAX_SHOWN_CHARS, MAX_TEXT_CHARS, ShownValue};
pub use state::{
    Claims, KeyError, MAX_TOKEN_BYTES, MIN_KEY_BYTES, Purpose, StateError, StateKey, open, seal,
};
