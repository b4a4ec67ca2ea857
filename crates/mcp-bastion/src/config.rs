//! Configuration discovery and the TOML file (DESIGN §3 global options, §5 keys).

use anyhow::{Context, Result, bail};
use bastion_core::Limits;
use bastion_core::sanitize::ContentPolicy;
use serde::Deserialize;
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
    let config: Config =
        toml::from_str(&text).with_context(|| format!("invalid config file {}", path.display()))?;
    if config.limits.max_depth == 0
        || config.limits.max_frame_bytes == 0
        || config.limits.max_host_frame_bytes == 0
    {
        bail!(
            "invalid config file {}: limits must be greater than zero",
            path.display()
        );
    }
    Ok(config)
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

    #[test]
    fn missing_default_is_fine_missing_explicit_is_not() {
        assert!(load(Some(Path::new("/nonexistent/mcp-bastion.toml"))).is_err());
    }
}
