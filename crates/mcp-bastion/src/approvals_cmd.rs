//! `mcp-bastion approvals list|grant|revoke|decisions`: explicit "always allow" grants
//! (issue 5 §4) and the log of confirmation decisions (§5).
//!
//! A grant is bound to the tool's approved pin hash: `grant` refuses a tool that has no
//! approved pin (nothing to bind to), and a later descriptor change voids it because the
//! gateway looks grants up by the current pin hash.

use crate::pins_cmd::PinInputError;
use anyhow::{Result, bail};
use bastion_core::unicode::escape_for_display;
use bastion_store::{Grant, GrantFilter, PinFilter, PinState, Store};
use clap::Subcommand;
use serde_json::json;
use std::io::Write;

/// The `approvals` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum ApprovalsCommand {
    /// List grants in force (with `--all`, revoked ones too).
    List {
        /// Only this server.
        #[arg(long)]
        server: Option<String>,
        /// Include revoked grants.
        #[arg(long)]
        all: bool,
    },
    /// Always allow TOOL of server `--server` while its approved descriptor stays the same.
    Grant {
        /// The server's `--name`.
        #[arg(long)]
        server: String,
        /// The tool name.
        tool: String,
    },
    /// Revoke grants by id (from `approvals list`).
    Revoke {
        /// Grant ids.
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// Print recent confirmation decisions (asked or not, channel, answer, latency).
    Decisions {
        /// Only this server.
        #[arg(long)]
        server: Option<String>,
        /// At most this many (the newest).
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
}

fn grant_json(g: &Grant) -> serde_json::Value {
    json!({
        "id": g.id, "server": g.server_name, "identity": g.server_identity, "tool": g.tool,
        "pin_hash": g.pin_hash, "source": g.source, "created_ms": g.created_ms,
        "revoked_ms": g.revoked_ms,
    })
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Runs one subcommand; returns the exit code.
pub(crate) async fn run(store: &Store, cmd: ApprovalsCommand, json_out: bool) -> Result<i32> {
    let mut out = std::io::stdout().lock();
    match cmd {
        ApprovalsCommand::List { server, all } => {
            let grants = store
                .grants(&GrantFilter {
                    server_name: server,
                    include_revoked: all,
                })
                .await?;
            if json_out {
                for g in &grants {
                    writeln!(out, "{}", grant_json(g))?;
                }
            } else if grants.is_empty() {
                writeln!(out, "no grants")?;
            } else {
                writeln!(
                    out,
                    "{:>5}  {:<20} {:<32} {:<13} {:<12} state",
                    "id", "server", "tool", "pin", "source"
                )?;
                for g in &grants {
                    let state = if g.revoked_ms.is_some() {
                        "revoked"
                    } else {
                        "in force"
                    };
                    writeln!(
                        out,
                        "{:>5}  {:<20} {:<32} {:<13} {:<12} {state}",
                        g.id,
                        escape_for_display(&g.server_name),
                        escape_for_display(&g.tool),
                        &g.pin_hash[..g.pin_hash.len().min(12)],
                        g.source
                    )?;
                }
            }
            Ok(0)
        }
        ApprovalsCommand::Grant { server, tool } => {
            let Some(latest) = store.servers_named(&server).await?.into_iter().next() else {
                bail!(PinInputError(format!(
                    "no server named {server:?} is known to the store; run it once through `mcp-bastion wrap --name {server}`"
                )));
            };
            let pin = store
                .pins(&PinFilter {
                    server_identity: Some(latest.identity.clone()),
                    ..PinFilter::default()
                })
                .await?
                .into_iter()
                .find(|p| p.kind == "tool" && p.item_key == tool);
            let Some(pin) = pin else {
                bail!(PinInputError(format!(
                    "server {server:?} has no pinned tool {tool:?}; list its tools once through `mcp-bastion wrap` (see `mcp-bastion pins list --server {server}`)"
                )));
            };
            let (PinState::Approved, Some(hash)) = (pin.state, pin.approved_hash.clone()) else {
                bail!(PinInputError(format!(
                    "tool {tool:?} of server {server:?} is {} (pin {}); approve its descriptor first with `mcp-bastion pins approve {}`",
                    pin.state.as_str(),
                    pin.id,
                    pin.id
                )));
            };
            let grant = store
                .put_grant(&Grant {
                    id: 0,
                    server_identity: latest.identity,
                    server_name: server,
                    tool,
                    pin_hash: hash,
                    source: "cli".into(),
                    created_ms: now_ms(),
                    revoked_ms: None,
                })
                .await?;
            if json_out {
                writeln!(out, "{}", grant_json(&grant))?;
            } else {
                writeln!(
                    out,
                    "granted {}: tool {:?} of server {:?} runs without asking while its descriptor stays {}",
                    grant.id,
                    grant.tool,
                    grant.server_name,
                    &grant.pin_hash[..12]
                )?;
            }
            Ok(0)
        }
        ApprovalsCommand::Revoke { ids } => {
            let mut missing = Vec::new();
            for id in ids {
                match store.revoke_grant(id, now_ms()).await? {
                    Some(g) if json_out => writeln!(out, "{}", grant_json(&g))?,
                    Some(g) => writeln!(
                        out,
                        "revoked {}: tool {:?} of server {:?}",
                        g.id, g.tool, g.server_name
                    )?,
                    None => missing.push(id),
                }
            }
            if !missing.is_empty() {
                bail!(PinInputError(format!(
                    "no grant in force with id {missing:?}; see `mcp-bastion approvals list`"
                )));
            }
            Ok(0)
        }
        ApprovalsCommand::Decisions { server, limit } => {
            let decisions = store.decisions(server.as_deref(), limit).await?;
            if !json_out {
                if decisions.is_empty() {
                    writeln!(out, "no confirmation decisions recorded")?;
                } else {
                    writeln!(
                        out,
                        "{:<24} {:<16} {:<28} {:<5} {:<8} {:<14} {:<10} {:>10}  DIGEST",
                        "TIME",
                        "SERVER",
                        "TOOL",
                        "ASKED",
                        "OUTCOME",
                        "CHANNEL",
                        "ANSWER",
                        "LATENCY"
                    )?;
                }
            }
            for d in &decisions {
                if json_out {
                    writeln!(out, "{}", serde_json::to_string(d)?)?;
                } else {
                    writeln!(
                        out,
                        "{}  {:<16} {:<28} {:<5} {:<8} {:<14} {:<10} {:>7} ms  {}",
                        crate::output::format_time(d.time_ms),
                        escape_for_display(&d.server_name),
                        escape_for_display(&d.tool),
                        d.action,
                        d.outcome,
                        d.channel.as_deref().unwrap_or("-"),
                        d.answer.as_deref().unwrap_or("-"),
                        d.latency_ms,
                        &d.digest[..d.digest.len().min(16)]
                    )?;
                }
            }
            Ok(0)
        }
    }
}
