//! `mcp-bastion auth login|logout`: the OAuth client of `wrap --url … --oauth`, run
//! ahead of time (login) or to forget a server's tokens (logout). Exit codes: 0 done,
//! 2 usage (a refused URL, an unsafe key file), 3 the authorization failed.

use crate::wrap_remote::{OAuthSettings, checked_fetcher};
use crate::{Failure, input, internal, runtime};
use bastion_gateway::oauth::{OAuthClient, OAuthError};
use bastion_store::Store;
use std::path::Path;

/// `auth` subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum AuthCommand {
    /// Authorize access to a remote MCP server now (discovery, browser, token stored
    /// encrypted); `wrap --url URL --oauth` then starts without a browser.
    Login {
        /// The remote server's MCP endpoint (`https://host/mcp`).
        #[arg(long)]
        url: String,
        /// Development only: allow `http://` to a loopback address.
        #[arg(long)]
        allow_http_loopback: bool,
        #[command(flatten)]
        settings: OAuthSettings,
    },
    /// Delete every stored token of a remote MCP server.
    Logout {
        /// The remote server's MCP endpoint.
        #[arg(long)]
        url: String,
    },
}

/// Runs an `auth` subcommand.
pub(crate) fn run(
    store_url: &str,
    config: Option<&Path>,
    command: &AuthCommand,
    json: bool,
) -> Result<i32, Failure> {
    let rt = runtime()?;
    rt.block_on(async {
        let store = Store::open(store_url).await.map_err(internal)?;
        let code = match command {
            AuthCommand::Login {
                url,
                allow_http_loopback,
                settings,
            } => {
                let fetcher = checked_fetcher(url, *allow_http_loopback).map_err(input)?;
                let client =
                    OAuthClient::new(fetcher, url, store.clone(), settings.options(config))
                        .map_err(input)?;
                match client.login(None).await {
                    Ok(done) => {
                        if json {
                            println!(
                                "{}",
                                serde_json::json!({
                                    "resource": client.resource(),
                                    "issuer": done.issuer,
                                    "client_id": done.client_id,
                                    "scope": done.scope,
                                    "expires_in_s": done.expires_in_s,
                                    "refreshable": done.refreshable,
                                })
                            );
                        } else {
                            eprintln!(
                                "mcp-bastion: authorized for {} by {} (client {}{}{}; refresh token: {})",
                                client.resource(),
                                done.issuer,
                                done.client_id,
                                done.scope
                                    .as_deref()
                                    .map(|s| format!(", scope {s}"))
                                    .unwrap_or_default(),
                                done.expires_in_s
                                    .map(|s| format!(", expires in {s} s"))
                                    .unwrap_or_default(),
                                if done.refreshable { "yes" } else { "no" }
                            );
                        }
                        0
                    }
                    Err(e @ OAuthError::Vault(_)) => return Err(input(e)),
                    Err(e) => {
                        eprintln!("mcp-bastion: authorization failed ({}): {e}", e.reason());
                        3
                    }
                }
            }
            AuthCommand::Logout { url } => {
                let resource = bastion_gateway::oauth::canonical_resource(url).map_err(input)?;
                let n = store.delete_oauth_tokens(&resource).await.map_err(internal)?;
                if json {
                    println!("{}", serde_json::json!({"resource": resource, "deleted": n}));
                } else {
                    eprintln!("mcp-bastion: deleted {n} stored token set(s) for {resource}");
                }
                0
            }
        };
        store.close().await;
        Ok(code)
    })
}
