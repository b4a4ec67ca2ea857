//! `mcp-bastion pins list|show|diff|approve|revoke`: review descriptor and launch-config
//! pins. Approvals reach running gateways within a second (they watch the store).

use anyhow::{Context, Result, bail};
use bastion_core::pins::{self, LaunchFingerprint};
use bastion_core::unicode::escape_for_display;
use bastion_store::{PinFilter, PinRecord, PinState, Store};
use clap::Subcommand;
use serde_json::{Value, json};
use std::io::Write;

/// The `pins` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum PinsCommand {
    /// List pins (default: all servers, all states).
    List {
        /// Only this server.
        #[arg(long)]
        server: Option<String>,
        /// Only this state: approved, pending, revoked, removed.
        #[arg(long)]
        state: Option<String>,
    },
    /// Show the approved and pending versions of one pin.
    Show {
        /// Pin id (from `pins list`).
        id: i64,
    },
    /// Field-level difference between the approved and the pending version.
    Diff {
        /// Pin id (from `pins list`).
        id: i64,
    },
    /// Approve pending versions: by id, or every pending pin of a server with `--all`.
    Approve {
        /// Pin ids.
        ids: Vec<i64>,
        /// With `--all`: the server whose pending pins to approve.
        #[arg(long)]
        server: Option<String>,
        /// Approve every pending pin of `--server`.
        #[arg(long, requires = "server")]
        all: bool,
    },
    /// Revoke pins: withheld until approved again.
    Revoke {
        /// Pin ids.
        #[arg(required = true)]
        ids: Vec<i64>,
    },
}

/// An input error (exit 2) rather than an internal one.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PinInputError(pub(crate) String);

fn state_of(name: &str) -> Result<PinState> {
    Ok(match name {
        "approved" => PinState::Approved,
        "pending" => PinState::Pending,
        "revoked" => PinState::Revoked,
        "removed" => PinState::Removed,
        other => bail!(PinInputError(format!(
            "unknown state `{other}`: use approved, pending, revoked or removed"
        ))),
    })
}

fn summary(p: &PinRecord) -> Value {
    json!({
        "id": p.id, "server": p.server_name, "identity": p.server_identity, "kind": p.kind,
        "key": p.item_key, "state": p.state, "reason": p.pending_reason,
        "approved_hash": p.approved_hash, "pending_hash": p.pending_hash,
        "first_seen_ms": p.first_seen_ms, "updated_ms": p.updated_ms,
    })
}

async fn pin(store: &Store, id: i64) -> Result<PinRecord> {
    store.pin_by_id(id).await?.ok_or_else(|| {
        PinInputError(format!("no pin with id {id} (see `mcp-bastion pins list`)")).into()
    })
}

fn parse(d: Option<&str>) -> Option<Value> {
    d.and_then(|d| serde_json::from_str(d).ok())
}

/// Runs one `pins` subcommand.
pub(crate) async fn run(store: &Store, cmd: PinsCommand, json: bool) -> Result<i32> {
    let mut out = std::io::stdout().lock();
    match cmd {
        PinsCommand::List { server, state } => {
            let state = state.as_deref().map(state_of).transpose()?;
            let pins = store
                .pins(&PinFilter {
                    server_name: server,
                    state,
                    ..PinFilter::default()
                })
                .await?;
            if json {
                for p in &pins {
                    writeln!(out, "{}", summary(p))?;
                }
                return Ok(0);
            }
            if pins.is_empty() {
                writeln!(out, "no pins match")?;
                return Ok(0);
            }
            // As wide as the longest kind (`server_instructions`), so rows stay aligned.
            let kind_width = pins.iter().map(|p| p.kind.len()).max().unwrap_or(0).max(4);
            writeln!(
                out,
                "{:>5}  {:<16} {:<kind_width$} {:<9} {:<16} KEY",
                "ID", "SERVER", "KIND", "STATE", "REASON"
            )?;
            for p in &pins {
                writeln!(
                    out,
                    "{:>5}  {:<16} {:<kind_width$} {:<9} {:<16} {}",
                    p.id,
                    escape_for_display(&p.server_name),
                    p.kind,
                    p.state.as_str(),
                    p.pending_reason.as_deref().unwrap_or("-"),
                    escape_for_display(&p.item_key)
                )?;
            }
            Ok(0)
        }
        PinsCommand::Show { id } => {
            let p = pin(store, id).await?;
            let approved = parse(p.approved_descriptor.as_deref());
            let pending = parse(p.pending_descriptor.as_deref());
            if json {
                writeln!(
                    out,
                    "{}",
                    json!({"pin": summary(&p), "approved": approved, "pending": pending})
                )?;
                return Ok(0);
            }
            writeln!(
                out,
                "pin {} — {} {} of server {} ({})",
                p.id,
                p.kind,
                escape_for_display(&p.item_key),
                p.server_name,
                p.state.as_str()
            )?;
            for (label, hash, value) in [
                ("approved", &p.approved_hash, approved),
                ("pending", &p.pending_hash, pending),
            ] {
                if let Some(v) = value {
                    writeln!(
                        out,
                        "\n{label} (sha256 {}):",
                        hash.as_deref().unwrap_or("-")
                    )?;
                    writeln!(
                        out,
                        "{}",
                        escape_for_display(&serde_json::to_string_pretty(&v)?)
                    )?;
                }
            }
            Ok(0)
        }
        PinsCommand::Diff { id } => {
            let p = pin(store, id).await?;
            let (Some(old), Some(new)) = (
                parse(p.approved_descriptor.as_deref()),
                parse(p.pending_descriptor.as_deref()),
            ) else {
                let what = if p.pending_descriptor.is_some() {
                    "nothing was approved before: it is new"
                } else {
                    "no pending version"
                };
                if json {
                    writeln!(
                        out,
                        "{}",
                        json!({"pin": summary(&p), "diff": null, "note": what})
                    )?;
                } else {
                    writeln!(
                        out,
                        "pin {id}: {what}; `mcp-bastion pins show {id}` prints it"
                    )?;
                }
                return Ok(0);
            };
            if p.kind == bastion_gateway::pinning::LAUNCH_KIND {
                let old: LaunchFingerprint =
                    serde_json::from_value(old).context("stored launch config is unreadable")?;
                let new: LaunchFingerprint =
                    serde_json::from_value(new).context("stored launch config is unreadable")?;
                let findings = pins::drift_fingerprints(&old, &new);
                if json {
                    writeln!(out, "{}", json!({"pin": summary(&p), "findings": findings}))?;
                } else {
                    writeln!(out, "launch config of {} (pin {id}):", p.server_name)?;
                    for f in &findings {
                        writeln!(
                            out,
                            "  {:<8} {}",
                            f.severity.as_str(),
                            escape_for_display(&f.message)
                        )?;
                    }
                }
                return Ok(0);
            }
            let diff = pins::diff(&old, &new);
            if json {
                writeln!(out, "{}", json!({"pin": summary(&p), "diff": diff}))?;
            } else {
                writeln!(
                    out,
                    "{} {} of server {} (pin {id}, {}):",
                    p.kind,
                    escape_for_display(&p.item_key),
                    p.server_name,
                    p.pending_reason.as_deref().unwrap_or("changed")
                )?;
                write!(out, "{}", diff.render())?;
            }
            Ok(0)
        }
        PinsCommand::Approve {
            mut ids,
            server,
            all,
        } => {
            if all {
                let pending = store
                    .pins(&PinFilter {
                        server_name: server.clone(),
                        state: Some(PinState::Pending),
                        ..PinFilter::default()
                    })
                    .await?;
                ids.extend(pending.iter().map(|p| p.id));
            }
            if ids.is_empty() {
                let why = match (&server, all) {
                    (Some(s), true) => format!(
                        "nothing to approve: server {s:?} has no pin waiting for review (see `mcp-bastion pins list --server {s}`)"
                    ),
                    _ => "nothing to approve: give pin ids, or --server NAME --all".into(),
                };
                bail!(PinInputError(why));
            }
            for id in ids {
                let p = pin(store, id).await?;
                let done = store.approve_pin(id, bastion_gateway::now_ms()).await?;
                if p.kind == bastion_gateway::pinning::LAUNCH_KIND
                    && let Some(d) = &done
                    && let Some(hash) = &d.approved_hash
                {
                    store
                        .approve_server(&format!("{}:{hash}", d.server_name))
                        .await?;
                }
                match done {
                    Some(d) if json => writeln!(out, "{}", summary(&d))?,
                    Some(d) => writeln!(
                        out,
                        "approved pin {id}: {} {} of server {}",
                        d.kind,
                        escape_for_display(&d.item_key),
                        d.server_name
                    )?,
                    None => bail!(PinInputError(format!(
                        "pin {id} cannot be approved (removed)"
                    ))),
                }
            }
            Ok(0)
        }
        PinsCommand::Revoke { ids } => {
            for id in ids {
                pin(store, id).await?;
                if let Some(d) = store.revoke_pin(id, bastion_gateway::now_ms()).await? {
                    if json {
                        writeln!(out, "{}", summary(&d))?;
                    } else {
                        writeln!(
                            out,
                            "revoked pin {id}: {} {} of server {}",
                            d.kind,
                            escape_for_display(&d.item_key),
                            d.server_name
                        )?;
                    }
                }
            }
            Ok(0)
        }
    }
}
