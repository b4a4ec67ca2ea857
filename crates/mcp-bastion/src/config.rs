//! Configuration discovery and the TOML file (DESIGN §3 global options, §5 keys).

use anyhow::{Context, Result, bail};
use bastion_core::Limits;
use bastion_core::confirm::{ConfirmationConfig, Policy, PolicyConfig, ServerConfig};
use bastion_core::sanitize::ContentPolicy;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The configuration file. Sections not listed here are refused with a clear error
/// rather than silently ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Config {
    /// `[limits]`: sizes (bytes), depth, timeouts (ms).
    pub(crate) limits: Limits,
    /// `[content]`: link and HTML policy for results.
    pub(crate) content: ContentPolicy,
    /// `[gateway]`: process handling.
    pub(crate) gateway: GatewaySection,
    /// `[pinning]`: descriptor and launch-config pinning.
    pub(crate) pinning: PinningSection,
    /// `[confirmation]`: when and how a human confirms tool calls (issue 5).
    pub(crate) confirmation: ConfirmationConfig,
    /// `[servers.NAME]`: per-server trust and tool rules, keyed by the `--name`.
    pub(crate) servers: BTreeMap<String, ServerConfig>,
    /// `[audit]`: what the audit log may contain.
    pub(crate) audit: AuditSection,
    /// `[urls]`: the URL gate (elicitation URLs).
    pub(crate) urls: UrlsSection,
    /// `[elicitation]`: which elicitation modes servers may use at all.
    pub(crate) elicitation: ElicitationSection,
    /// The compiled confirmation policy (`[confirmation]` + `[servers.*]`), built by
    /// [`Config::from_toml`].
    #[serde(skip)]
    pub(crate) policy: Policy,
}

impl Config {
    /// Parses and validates a config file's text: unknown sections and keys, bad values,
    /// invalid tool globs and argument rules are errors (exit code 2).
    pub(crate) fn from_toml(text: &str) -> Result<Self> {
        let mut config: Config = toml::from_str(text)?;
        if config.limits.max_depth == 0
            || config.limits.max_frame_bytes == 0
            || config.limits.max_host_frame_bytes == 0
        {
            bail!("limits must be greater than zero");
        }
        config.policy = Policy::new(PolicyConfig {
            confirmation: config.confirmation.clone(),
            servers: config.servers.clone(),
        })?;
        Ok(config)
    }

    /// A `check confirmation` input that names no `policy` gets the configured one
    /// (`[confirmation]` and `[servers.*]`), so `check confirmation` answers as `wrap`
    /// would for that server.
    pub(crate) fn with_confirmation_policy(
        &self,
        mut input: serde_json::Value,
    ) -> serde_json::Value {
        if let Some(obj) = input.as_object_mut()
            && !obj.contains_key("policy")
        {
            let policy = PolicyConfig {
                confirmation: self.confirmation.clone(),
                servers: self.servers.clone(),
            };
            if let Ok(v) = serde_json::to_value(policy) {
                obj.insert("policy".into(), v);
            }
        }
        input
    }
}

/// `[urls]` section (DESIGN §5).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct UrlsSection {
    /// Accept `http://` to loopback hosts (local development servers).
    pub(crate) allow_loopback_http: bool,
    /// Registrable domains the user trusts: look-alikes of them are flagged.
    pub(crate) trusted_domains: Vec<String>,
}

impl UrlsSection {
    /// The elicitation policy for `wrap`: the URL gate for URLs a user opens.
    pub(crate) fn elicit_policy(&self) -> bastion_core::elicit::ElicitPolicy {
        let mut policy = bastion_core::elicit::ElicitPolicy::default();
        policy.url = bastion_core::url_gate::UrlPolicy::navigate()
            .with_loopback_http(self.allow_loopback_http)
            .with_trusted_domains(self.trusted_domains.clone());
        policy
    }
}

/// `[elicitation]` section: policy narrowing of the host's elicitation capability.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ElicitationSection {
    /// Let servers ask through URL mode (when the host declared it). Default `true`.
    pub(crate) url_mode: bool,
    /// Let servers ask through form mode (when the host declared it). Default `true`.
    pub(crate) form_mode: bool,
}

impl Default for ElicitationSection {
    fn default() -> Self {
        Self {
            url_mode: true,
            form_mode: true,
        }
    }
}

/// `[audit]` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct AuditSection {
    /// Record tool-call argument values with each confirmation decision, secret-looking
    /// values redacted (DESIGN §4). Default `false`: sizes and digests only.
    pub(crate) log_arguments: bool,
    /// Refuse `tools/call` with reason `audit_unavailable` while the audit store cannot
    /// be written (locked, read-only, disk full). Default `true`; `false` keeps
    /// forwarding calls during the outage (still reported on stderr).
    pub(crate) fail_closed: bool,
}

impl Default for AuditSection {
    fn default() -> Self {
        Self {
            log_arguments: false,
            fail_closed: true,
        }
    }
}

/// `[pinning]` section.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct PinningSection {
    /// `tofu` (default) or `strict`.
    pub(crate) mode: bastion_gateway::PinMode,
}

/// `[gateway]` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct GatewaySection {
    /// Time the server gets to exit after its stdin closes, ms.
    pub(crate) shutdown_grace_ms: u64,
}

impl Default for GatewaySection {
    fn default() -> Self {
        Self {
            shutdown_grace_ms: 2000,
        }
    }
}

fn xdg(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(fallback)))
}

/// Default config path: `$XDG_CONFIG_HOME/mcp-bastion/config.toml`.
pub(crate) fn default_config_path() -> Option<PathBuf> {
    xdg("XDG_CONFIG_HOME", ".config").map(|d| d.join("mcp-bastion/config.toml"))
}

/// Default store URL: `sqlite://$XDG_DATA_HOME/mcp-bastion/bastion.db`.
pub(crate) fn default_store_url() -> String {
    let dir = xdg("XDG_DATA_HOME", ".local/share").unwrap_or_else(|| PathBuf::from("."));
    format!("sqlite://{}", dir.join("mcp-bastion/bastion.db").display())
}

/// Loads the config: an explicit path must exist; the default path may be absent.
pub(crate) fn load(explicit: Option<&Path>) -> Result<Config> {
    let (path, required) = match explicit {
        Some(p) => (p.to_owned(), true),
        None => match default_config_path() {
            Some(p) => (p, false),
            None => return Ok(Config::default()),
        },
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Config::default());
        }
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read config file {}", path.display()));
        }
    };
    Config::from_toml(&text).with_context(|| format!("invalid config file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_limits_and_refuses_unknown() {
        let c: Config = toml::from_str("[limits]\nmax_depth = 32\n").unwrap();
        assert_eq!(c.limits.max_depth, 32);
        assert_eq!(c.limits.max_frame_bytes, Limits::default().max_frame_bytes);
        let e = toml::from_str::<Config>("[limitz]\nx = 1\n").unwrap_err();
        assert!(e.to_string().contains("limitz"), "{e}");
        let e = toml::from_str::<Config>("[limits]\nmax_dept = 1\n").unwrap_err();
        assert!(e.to_string().contains("max_dept"), "{e}");
    }

    /// DESIGN §5's example, every section, plus the confirmation keys of issue 5.
    const DESIGN_EXAMPLE: &str = r#"
[limits]
max_frame_bytes = 4194304
max_host_frame_bytes = 1048576
max_binary_bytes = 16777216
max_depth = 64
read_timeout_ms = 30000
request_timeout_ms = 30000
tool_call_timeout_ms = 120000
max_text_bytes = 262144

[pinning]
mode = "tofu"

[confirmation]
default = "ask"
fallback = "deny"
channels = ["elicitation", "tty"]
timeout_ms = 120000

[urls]
allow_loopback_http = false
trusted_domains = []

[elicitation]
url_mode = true
form_mode = true

[servers.NAME]
trusted = false
[servers.NAME.tools."glob*"]
action = "ask"
[[servers.NAME.tools."write_*".args]]
name = "path"
under = ["/home/me/project"]
[[servers.NAME.tools."fetch".args]]
name = "url"
host_in = ["example.com"]
"#;

    #[test]
    fn design_example_parses() {
        use bastion_core::confirm::{Action, Channel, Fallback};
        let c = Config::from_toml(DESIGN_EXAMPLE).unwrap();
        assert_eq!(c.confirmation.default, Action::Ask);
        assert_eq!(c.confirmation.fallback, Fallback::Deny);
        assert_eq!(
            c.confirmation.channels,
            [Channel::Elicitation, Channel::Tty]
        );
        assert_eq!(c.confirmation.timeout_ms, 120_000);
        assert!(!c.policy.trusted("NAME"));
        assert_eq!(
            c.policy.rule_for("NAME", "globber").action.map(|a| a.0),
            Some(Action::Ask)
        );
        assert_eq!(c.policy.rule_for("NAME", "write_file").args.len(), 1);
        // An empty file is the defaults.
        let d = Config::from_toml("").unwrap();
        assert_eq!(d.confirmation, ConfirmationConfig::default());
        assert!(d.servers.is_empty());
    }

    #[test]
    fn bad_confirmation_config_is_refused_clearly() {
        for (text, says) in [
            ("[confirmation]\ndefault = \"sometimes\"\n", "sometimes"),
            ("[confirmation]\nchannels = [\"tty\", \"tty\"]\n", "twice"),
            ("[confirmation]\ntimeout_ms = 0\n", "timeout_ms"),
            ("[servers.gh]\ntrusted = \"yes\"\n", "trusted"),
            (
                "[servers.gh.tools.\"[x\"]\naction = \"ask\"\n",
                "invalid glob",
            ),
            (
                "[[servers.gh.tools.\"w\".args]]\nname = \"path\"\nunder = [\"relative\"]\n",
                "absolute",
            ),
            (
                "[[servers.gh.tools.\"w\".args]]\nname = \"path\"\n",
                "no constraint",
            ),
            ("[servers.gh.tools.\"w\"]\nacton = \"ask\"\n", "acton"),
        ] {
            let e = Config::from_toml(text).unwrap_err();
            assert!(format!("{e:#}").contains(says), "{text}: {e:#}");
        }
    }

    #[test]
    fn load_reports_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[confirmation]\nfallback = \"maybe\"\n").unwrap();
        let e = load(Some(&path)).unwrap_err();
        let text = format!("{e:#}");
        assert!(
            text.contains("invalid config file") && text.contains("maybe"),
            "{text}"
        );
    }

    #[test]
    fn missing_default_is_fine_missing_explicit_is_not() {
        assert!(load(Some(Path::new("/nonexistent/mcp-bastion.toml"))).is_err());
    }
}
