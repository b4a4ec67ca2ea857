//! The confirmation policy (DESIGN §5, issue 5 §1): the `[confirmation]` section, the
//! per-server `[servers.NAME]` sections with their tool rules, compiled once into a
//! [`Policy`] that answers "which rule applies to tool T of server S".
//!
//! ```toml
//! [confirmation]
//! default = "ask"                  # allow | ask | deny: tools of untrusted servers
//! fallback = "deny"                # deny | allow: when no approval channel can ask
//! channels = ["elicitation", "tty"] # tried in this order
//! timeout_ms = 120000              # how long to wait for a human, ms
//!
//! [servers.github]
//! trusted = true
//! [servers.github.tools."delete_*"]
//! action = "deny"
//! [servers.github.tools."write_*"]
//! action = "ask"
//! [[servers.github.tools."write_*".args]]
//! name = "path"                    # the argument (or a JSON Pointer into the arguments)
//! under = ["/home/me/project"]     # must stay under one of these after normalization
//! [servers.github.tools."fetch_url"]
//! action = "allow"
//! [[servers.github.tools."fetch_url".args]]
//! name = "url"
//! host_in = ["example.com", "*.docs.example.com"]
//! ```
//!
//! # Which rule applies (documented semantics)
//! TOML tables are unordered, so "first match" would depend on an implementation detail;
//! instead the patterns of a server are matched all at once ([`globset::GlobSet`],
//! compiled in [`Policy::new`]) and:
//! - **action**: the most specific matching rule that sets `action` wins. An exact name
//!   (no glob syntax) beats any glob; among globs, the one with more literal (non-glob)
//!   characters wins; on a tie the strictest action wins (`deny` > `ask` > `allow`).
//!   So `"*" = deny` with `"read_*" = allow` allows `read_file` and denies the rest.
//! - **argument rules accumulate**: every matching rule's `args` apply. They only restrict,
//!   so a broad `"*"` path rule cannot be escaped by a more specific `allow`.
//!
//! Patterns use `globset` syntax (`*`, `?`, `[a-z]`, `{a,b}`), case-sensitive, matched
//! against the whole tool name; `*` also matches `/` (tool names are not paths, and a
//! `"*" = deny` must cover `ns/tool`).

use super::args::{ArgRule, ArgRuleError};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What to do with a tool call (DESIGN §5 `action`). Ordered by strictness:
/// `Allow < Ask < Deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Run without asking.
    Allow,
    /// Ask the user first (through an approval channel); deny when nobody answers.
    Ask,
    /// Refuse without asking (JSON-RPC error reason `policy_denied`).
    Deny,
}

impl Action {
    /// Stable lowercase name: `allow`, `ask`, `deny`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// What happens to a call that needs asking when no approval channel can ask
/// (`[confirmation] fallback`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// Refuse the call (reason `approval_unavailable`). The default.
    #[default]
    Deny,
    /// Run the call unconfirmed. An explicit escape hatch for headless setups; never
    /// the default.
    Allow,
}

/// An approval channel the gateway can ask through (issue 5 §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// The host's own UI: `elicitation/create` (legacy era) or an `input_required` result
    /// with a sealed `requestState` (stateless era).
    Elicitation,
    /// A prompt on `/dev/tty` when one is attached (never stdin/stdout: they carry MCP).
    Tty,
}

/// The `[confirmation]` section (DESIGN §5).
///
/// # Defaults
/// `default = "ask"`, `fallback = "deny"`, `channels = ["elicitation", "tty"]`,
/// `timeout_ms = 120000`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfirmationConfig {
    /// The action for tools of untrusted servers that no rule names.
    pub default: Action,
    /// What a call needing approval gets when no channel can ask.
    pub fallback: Fallback,
    /// Approval channels, tried in this order; empty means always the fallback.
    pub channels: Vec<Channel>,
    /// How long to wait for a human answer, milliseconds; then the call is denied.
    pub timeout_ms: u64,
}

impl Default for ConfirmationConfig {
    fn default() -> Self {
        Self {
            default: Action::Ask,
            fallback: Fallback::Deny,
            channels: vec![Channel::Elicitation, Channel::Tty],
            timeout_ms: 120_000,
        }
    }
}

/// One `[servers.NAME.tools."PATTERN"]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolRuleConfig {
    /// The action for matching tools; absent leaves it to the server default.
    pub action: Option<Action>,
    /// Argument rules (`[[servers.NAME.tools."PATTERN".args]]`); every one must hold.
    pub args: Vec<ArgRule>,
}

/// One `[servers.NAME]` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Whether the server's pinned annotations may loosen decisions (`readOnlyHint`).
    /// Default `false`: every tool asks.
    pub trusted: bool,
    /// Tool rules keyed by glob pattern.
    pub tools: BTreeMap<String, ToolRuleConfig>,
}

/// The policy as written: `[confirmation]` plus `[servers.*]`. Deserialize it from the
/// config file (or JSON), then compile it with [`Policy::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// `[confirmation]`.
    pub confirmation: ConfirmationConfig,
    /// `[servers.NAME]`, keyed by server name (the `--name` of `wrap`).
    pub servers: BTreeMap<String, ServerConfig>,
}

/// Why a policy could not be compiled (a config error: exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A tool pattern is not a valid glob.
    #[error("[servers.{server}.tools.\"{pattern}\"]: invalid glob pattern: {detail}")]
    BadPattern {
        /// Server name.
        server: String,
        /// The pattern.
        pattern: String,
        /// The glob parser's message.
        detail: String,
    },
    /// An argument rule is invalid.
    #[error("[servers.{server}.tools.\"{pattern}\"] args: {source}")]
    BadArgRule {
        /// Server name.
        server: String,
        /// The pattern.
        pattern: String,
        /// What is wrong.
        source: ArgRuleError,
    },
    /// A channel is listed twice.
    #[error(
        "[confirmation] channels lists `{0}` twice; list each channel once, in the order to try"
    )]
    DuplicateChannel(String),
    /// `timeout_ms` is zero.
    #[error(
        "[confirmation] timeout_ms must be greater than zero (milliseconds to wait for a human)"
    )]
    ZeroTimeout,
}

/// One compiled tool rule.
#[derive(Debug, Clone)]
struct CompiledRule {
    pattern: String,
    exact: bool,
    literal_chars: usize,
    rule: ToolRuleConfig,
}

/// A compiled `[servers.NAME]`.
#[derive(Debug, Clone)]
struct CompiledServer {
    trusted: bool,
    set: GlobSet,
    rules: Vec<CompiledRule>,
}

/// What the policy says about one tool of one server ([`Policy::rule_for`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch<'p> {
    /// The action of the most specific matching rule that sets one, with its pattern.
    pub action: Option<(Action, &'p str)>,
    /// The argument rules of every matching rule, with their patterns.
    pub args: Vec<(&'p ArgRule, &'p str)>,
}

/// A compiled policy: globs built once, argument rules validated. Cheap to share.
/// `Policy::default()` is the policy of an empty config (DESIGN §5 defaults).
#[derive(Debug, Clone, Default)]
pub struct Policy {
    confirmation: ConfirmationConfig,
    servers: BTreeMap<String, CompiledServer>,
}

/// Characters with a meaning in `globset` syntax.
const GLOB_SYNTAX: &[char] = &['*', '?', '[', ']', '{', '}', ',', '!', '\\'];

impl Policy {
    /// Compiles `config`.
    ///
    /// # Errors
    /// [`PolicyError`] for an invalid glob, an invalid argument rule (relative `under`
    /// prefix, unparsable `host_in` entry, rule with no constraint), a duplicate channel or
    /// a zero timeout.
    pub fn new(config: PolicyConfig) -> Result<Self, PolicyError> {
        let mut seen = Vec::new();
        for c in &config.confirmation.channels {
            if seen.contains(c) {
                let name = serde_json::to_value(c)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                return Err(PolicyError::DuplicateChannel(name));
            }
            seen.push(*c);
        }
        if config.confirmation.timeout_ms == 0 {
            return Err(PolicyError::ZeroTimeout);
        }
        let mut servers = BTreeMap::new();
        for (name, server) in config.servers {
            let mut builder = GlobSetBuilder::new();
            let mut rules = Vec::new();
            for (pattern, mut rule) in server.tools {
                let glob = GlobBuilder::new(&pattern)
                    .literal_separator(false)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| PolicyError::BadPattern {
                        server: name.clone(),
                        pattern: pattern.clone(),
                        detail: e.kind().to_string(),
                    })?;
                builder.add(glob);
                for arg in &mut rule.args {
                    arg.compile().map_err(|source| PolicyError::BadArgRule {
                        server: name.clone(),
                        pattern: pattern.clone(),
                        source,
                    })?;
                }
                rules.push(CompiledRule {
                    exact: !pattern.contains(GLOB_SYNTAX),
                    literal_chars: pattern.chars().filter(|c| !GLOB_SYNTAX.contains(c)).count(),
                    pattern,
                    rule,
                });
            }
            let set = builder.build().map_err(|e| PolicyError::BadPattern {
                server: name.clone(),
                pattern: String::new(),
                detail: e.to_string(),
            })?;
            servers.insert(
                name,
                CompiledServer {
                    trusted: server.trusted,
                    set,
                    rules,
                },
            );
        }
        Ok(Self {
            confirmation: config.confirmation,
            servers,
        })
    }

    /// The `[confirmation]` section.
    pub fn confirmation(&self) -> &ConfirmationConfig {
        &self.confirmation
    }

    /// Whether `[servers.NAME] trusted = true`. Unknown servers are untrusted.
    pub fn trusted(&self, server: &str) -> bool {
        self.servers.get(server).is_some_and(|s| s.trusted)
    }

    /// The rules for tool `tool` of server `server` (module docs: most specific action,
    /// accumulated argument rules). Nothing matches for unknown servers.
    pub fn rule_for(&self, server: &str, tool: &str) -> RuleMatch<'_> {
        let mut out = RuleMatch {
            action: None,
            args: Vec::new(),
        };
        let Some(s) = self.servers.get(server) else {
            return out;
        };
        let mut best: Option<(&CompiledRule, Action)> = None;
        for i in s.set.matches(tool) {
            let r = &s.rules[i];
            out.args
                .extend(r.rule.args.iter().map(|a| (a, r.pattern.as_str())));
            let Some(action) = r.rule.action else {
                continue;
            };
            let better = match best {
                None => true,
                Some((b, b_action)) => {
                    (
                        r.exact,
                        r.literal_chars,
                        action,
                        std::cmp::Reverse(&r.pattern),
                    ) > (
                        b.exact,
                        b.literal_chars,
                        b_action,
                        std::cmp::Reverse(&b.pattern),
                    )
                }
            };
            if better {
                best = Some((r, action));
            }
        }
        out.action = best.map(|(r, a)| (a, r.pattern.as_str()));
        out
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
