//! `wrap --url`: the flags naming a remote server over Streamable HTTP, and the
//! SSRF-safe client and headers built from them (the URL is judged by the URL gate before
//! anything starts); the OAuth flags shared with `auth login`.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How the OAuth client behaves (`wrap --url … --oauth`, `auth login`). The field names
/// are the flag names.
#[derive(Debug, Clone, clap::Args)]
#[allow(clippy::struct_field_names)]
pub(crate) struct OAuthSettings {
    /// OAuth: a client id registered beforehand at the authorization server (else one is
    /// registered by RFC 7591 Dynamic Client Registration and remembered per issuer).
    #[arg(long, value_name = "ID")]
    pub(crate) oauth_client_id: Option<String>,
    /// OAuth: print the authorization URL on stderr instead of opening a browser.
    #[arg(long)]
    pub(crate) oauth_no_browser: bool,
    /// OAuth: how long to wait for the browser to come back to the loopback listener
    /// (`90s`, `5m`).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = humantime::parse_duration)]
    pub(crate) oauth_callback_timeout: Duration,
}

impl OAuthSettings {
    /// Whether any OAuth setting differs from its default.
    fn any(&self) -> bool {
        self.oauth_client_id.is_some()
            || self.oauth_no_browser
            || self.oauth_callback_timeout != Duration::from_mins(5)
    }

    /// The gateway's options, the key file beside the configuration.
    pub(crate) fn options(&self, config: Option<&Path>) -> bastion_gateway::oauth::OAuthOptions {
        let mut o = bastion_gateway::oauth::OAuthOptions::new(key_file(config));
        o.client_id.clone_from(&self.oauth_client_id);
        if self.oauth_no_browser {
            o.browser = bastion_gateway::oauth::Browser::Print;
        }
        o.callback_timeout = self.oauth_callback_timeout;
        o
    }
}

/// The OAuth key file: `oauth.key` in the configuration's directory
/// (`$XDG_CONFIG_HOME/mcp-bastion/`, or beside `--config FILE`).
pub(crate) fn key_file(config: Option<&Path>) -> PathBuf {
    let config = config
        .map(Path::to_owned)
        .or_else(crate::config::default_config_path)
        .unwrap_or_else(|| PathBuf::from("config.toml"));
    config
        .parent()
        .map_or_else(|| PathBuf::from("oauth.key"), |d| d.join("oauth.key"))
}

/// The remote server of `wrap --url` and, with `--oauth`, the OAuth options (the client
/// itself needs the store, opened later).
pub(crate) struct Remote {
    /// The server (its `oauth` is filled in once the store is open).
    pub(crate) server: bastion_gateway::RemoteServer,
    /// `--oauth`: the options of its OAuth client.
    pub(crate) oauth: Option<bastion_gateway::oauth::OAuthOptions>,
}

/// `wrap --url`: a remote server over Streamable HTTP instead of a command.
#[derive(Debug, clap::Args)]
pub(crate) struct RemoteFlags {
    /// The remote server's MCP endpoint (`https://host/mcp`); every connection goes
    /// through the URL gate and a resolver that refuses private addresses. `serve`
    /// spells it `--upstream`.
    #[arg(long, visible_alias = "upstream", conflicts_with = "command")]
    url: Option<String>,
    /// A header sent with every request (`Name: value`). Repeatable. Not for secrets
    /// (the command line is visible to other users): see `--bearer-env`.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    headers: Vec<String>,
    /// Send `Authorization: Bearer <value of this environment variable>`.
    #[arg(long, value_name = "VAR", requires = "url", conflicts_with = "oauth")]
    bearer_env: Option<String>,
    /// Authorize with OAuth when the server answers 401 with a `Bearer` challenge:
    /// discovery, authorization code + PKCE in the browser, tokens stored encrypted
    /// (see `mcp-bastion auth login`).
    #[arg(long, requires = "url")]
    oauth: bool,
    #[command(flatten)]
    oauth_settings: OAuthSettings,
    /// Development only: allow `http://` to a loopback address (a server on this
    /// machine); anything else must be `https://` to a public address.
    #[arg(long, requires = "url")]
    allow_http_loopback: bool,
}

/// `--oauth`: gives `remote` its OAuth client over `store` (the key file is opened, or
/// created, here).
///
/// # Errors
/// The key file is unsafe or unreadable.
pub(crate) fn attach_oauth(
    remote: Option<&mut bastion_gateway::RemoteServer>,
    options: Option<bastion_gateway::oauth::OAuthOptions>,
    store: &bastion_store::Store,
) -> Result<(), bastion_gateway::oauth::OAuthError> {
    if let (Some(options), Some(remote)) = (options, remote) {
        remote.oauth = Some(bastion_gateway::oauth::OAuthClient::new(
            remote.fetcher.clone(),
            &remote.url,
            store.clone(),
            options,
        )?);
    }
    Ok(())
}

/// The remote server of `wrap --url`, if given: its URL, headers and the SSRF-safe
/// client every request goes through.
pub(crate) fn remote_server(flags: &RemoteFlags, config: Option<&Path>) -> Result<Option<Remote>> {
    let Some(url) = &flags.url else {
        return Ok(None);
    };
    if !flags.oauth && flags.oauth_settings.any() {
        anyhow::bail!(
            "--oauth-client-id, --oauth-no-browser and --oauth-callback-timeout need --oauth"
        );
    }
    let mut headers = reqwest::header::HeaderMap::new();
    for h in &flags.headers {
        let (name, value) = h
            .split_once(':')
            .with_context(|| format!("--header {h:?}: expected `Name: value`"))?;
        let name = reqwest::header::HeaderName::from_bytes(name.trim().as_bytes())
            .with_context(|| format!("--header {h:?}: not a header name"))?;
        let value = reqwest::header::HeaderValue::from_str(value.trim())
            .with_context(|| format!("--header {h:?}: not a header value"))?;
        headers.append(name, value);
    }
    if let Some(var) = &flags.bearer_env {
        let token = std::env::var(var)
            .with_context(|| format!("--bearer-env {var}: the variable is not set"))?;
        let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", token.trim()))
            .with_context(|| format!("--bearer-env {var}: not a token"))?;
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    if flags.oauth && headers.contains_key(reqwest::header::AUTHORIZATION) {
        anyhow::bail!("--header Authorization and --oauth exclude each other");
    }
    let fetcher = checked_fetcher(url, flags.allow_http_loopback)?;
    Ok(Some(Remote {
        server: bastion_gateway::RemoteServer {
            url: url.clone(),
            fetcher,
            headers,
            oauth: None,
        },
        oauth: flags.oauth.then(|| flags.oauth_settings.options(config)),
    }))
}

/// The SSRF-safe client for the server at `url`, after the URL gate accepted `url`.
///
/// # Errors
/// The URL is refused, or the client cannot be set up.
pub(crate) fn checked_fetcher(
    url: &str,
    allow_http_loopback: bool,
) -> Result<bastion_gateway::fetch::SafeFetcher> {
    let fetcher = bastion_gateway::fetch::SafeFetcher::builder()
        .allow_loopback_http(allow_http_loopback)
        .build()
        .context("cannot set up the HTTP client")?;
    // The URL itself first (scheme, IP literals, credentials, ...): a refused one stops
    // here, before anything starts; names are vetted again on every connection.
    let assessment = bastion_core::url_gate::assess(url, fetcher.policy(), "/url");
    if assessment.verdict == bastion_core::Verdict::Block {
        let why: Vec<&str> = assessment
            .findings
            .iter()
            .filter(|f| f.severity >= bastion_core::finding::Severity::High)
            .map(|f| f.message.as_str())
            .collect();
        anyhow::bail!("--url is refused: {}", why.join("; "));
    }
    Ok(fetcher)
}
