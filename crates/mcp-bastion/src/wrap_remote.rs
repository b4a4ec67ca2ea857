//! `wrap --url`: the flags naming a remote server over Streamable HTTP, and the
//! SSRF-safe client and headers built from them (the URL is judged by the URL gate before
//! anything starts).

use anyhow::{Context, Result};

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
    #[arg(long, value_name = "VAR", requires = "url")]
    bearer_env: Option<String>,
    /// Development only: allow `http://` to a loopback address (a server on this
    /// machine); anything else must be `https://` to a public address.
    #[arg(long, requires = "url")]
    allow_http_loopback: bool,
}

/// The remote server of `wrap --url`, if given: its URL, headers and the SSRF-safe
/// client every request goes through.
pub(crate) fn remote_server(flags: &RemoteFlags) -> Result<Option<bastion_gateway::RemoteServer>> {
    let Some(url) = &flags.url else {
        return Ok(None);
    };
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
    let fetcher = bastion_gateway::fetch::SafeFetcher::builder()
        .allow_loopback_http(flags.allow_http_loopback)
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
    Ok(Some(bastion_gateway::RemoteServer {
        url: url.clone(),
        fetcher,
        headers,
    }))
}
