//! `mcp-bastion contract build|check|keygen|sign|verify|approve|activate|diff`: publisher
//! contract manifests (issue 7 §1–§5; format in `docs/contract.md`).
//!
//! Exit codes (DESIGN §3): `0` success; `1` the manifest breaks an invariant, a hash does
//! not match, verification or activation is refused, or `diff` found an escalation; `2`
//! an unreadable or malformed input; `3` an internal or store failure. Files are written
//! atomically with mode 0600.

use crate::contract_io::{self as io, ContractInputError};
use anyhow::{Result, bail};
use bastion_core::contract::{self as core, Refusal};
use bastion_core::unicode::escape_for_display;
use bastion_core::{Report, Verdict};
use clap::Subcommand;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `contract` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum ContractCommand {
    /// Check a source manifest's invariants and write the reviewed manifest (hashes added).
    Build {
        /// Source manifest (`mcp-bastion-contract/1`).
        source: PathBuf,
        /// Reviewed manifest to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Reviewed handler revision (40/64 hex; default: `git rev-parse HEAD` here).
        #[arg(long)]
        handler_commit: Option<String>,
        /// Build even when detectors only warn (findings of severity `warn`).
        #[arg(long)]
        accept_warnings: bool,
        /// Folder the `ui_resources` content paths are relative to: the files are read
        /// without following symlinks, size-checked and their SHA-256 and size recorded.
        /// Without it only the declarations and content paths are judged.
        #[arg(long)]
        ui_root: Option<PathBuf>,
        /// UI policy (JSON: `allowed_csp_origins`, `allowed_sensitive_permissions`,
        /// `max_ui_bytes`); default: no CSP origin, no sensitive permission, 1 MiB.
        #[arg(long)]
        ui_policy: Option<PathBuf>,
    },
    /// Recompute every hash of a reviewed manifest; fail on any mismatch.
    Check {
        /// Reviewed manifest.
        reviewed: PathBuf,
    },
    /// Make an Ed25519 key pair: KEY (secret, 0600) and KEY.pub.
    Keygen {
        /// Secret key file to write (the public key goes to `<file>.pub`).
        #[arg(short, long)]
        output: PathBuf,
        /// Holder name recorded in both files (shown in approvals).
        #[arg(long)]
        name: Option<String>,
        /// Overwrite existing key files.
        #[arg(long)]
        force: bool,
    },
    /// Sign a reviewed manifest: a detached signature envelope.
    Sign {
        /// Reviewed manifest.
        reviewed: PathBuf,
        /// Secret key file.
        #[arg(long)]
        key: PathBuf,
        /// Signature envelope to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Verify a reviewed manifest, its signature and its version; record it as accepted.
    Verify {
        /// Reviewed manifest.
        reviewed: PathBuf,
        /// Signature envelope.
        #[arg(long)]
        sig: PathBuf,
        /// Public key file of the signer.
        #[arg(long)]
        pubkey: PathBuf,
    },
    /// Approve a reviewed manifest: a signed approval receipt.
    Approve {
        /// Reviewed manifest.
        reviewed: PathBuf,
        /// The approver's secret key file.
        #[arg(long)]
        key: PathBuf,
        /// Receipt to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Validity (`72h`, `7d`, ...).
        #[arg(long, default_value = "72h")]
        expires_in: humantime::Duration,
        /// Issue time in Unix seconds instead of the clock.
        #[arg(long)]
        at: Option<u64>,
    },
    /// Activate a verified manifest on approvals from distinct trusted approvers.
    Activate {
        /// Reviewed manifest.
        reviewed: PathBuf,
        /// Signature envelope.
        #[arg(long)]
        sig: PathBuf,
        /// Public key file of the signer.
        #[arg(long)]
        pubkey: PathBuf,
        /// Trusted-approvers file (`mcp-bastion-approvers/1`).
        #[arg(long)]
        approvers: PathBuf,
        /// Approval receipts (repeat the option).
        #[arg(long = "receipt", required = true)]
        receipts: Vec<PathBuf>,
        /// Evaluate freshness at this later Unix time (a time before the clock's is
        /// ignored: expired approvals stay expired).
        #[arg(long)]
        at: Option<u64>,
    },
    /// Added, removed and changed entries of two manifests (source or reviewed), with
    /// escalations; exit 1 when there is an escalation.
    Diff {
        /// The older manifest.
        old: PathBuf,
        /// The newer manifest.
        new: PathBuf,
    },
}

pub(crate) fn input_err(e: &core::ContractError) -> anyhow::Error {
    ContractInputError(e.to_string()).into()
}

/// Prints `value` (`--json`) or the human lines, each escaped for the terminal: keys,
/// ids and messages may come from a hostile manifest.
pub(crate) fn print(json: bool, value: &Value, human: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{value}")?;
    } else {
        for line in human.lines() {
            writeln!(out, "{}", escape_for_display(line))?;
        }
    }
    Ok(())
}

pub(crate) fn refusals_json(refusals: &[Refusal]) -> Value {
    Value::Array(
        refusals
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or_else(|_| json!({}));
                if !v.is_object() {
                    v = json!({"reason": r.reason()});
                }
                v["message"] = Value::String(r.to_string());
                v
            })
            .collect(),
    )
}

pub(crate) fn refusal_lines(refusals: &[Refusal]) -> String {
    crate::contract_show::prefixed(refusals, "  refused: ")
}

/// Runs one `contract` subcommand; `store_url` for verify and activate.
pub(crate) fn run(cmd: ContractCommand, json: bool, store_url: &str) -> Result<i32> {
    match cmd {
        ContractCommand::Build {
            source,
            output,
            handler_commit,
            accept_warnings,
            ui_root,
            ui_policy,
        } => {
            let ui = (ui_root, ui_policy);
            build(&source, &output, handler_commit, accept_warnings, &ui, json)
        }
        ContractCommand::Check { reviewed } => check(&reviewed, json),
        ContractCommand::Keygen {
            output,
            name,
            force,
        } => keygen(&output, name, force, json),
        ContractCommand::Sign {
            reviewed,
            key,
            output,
        } => {
            let key = core::parse_secret_key(&io::read_secret(&key)?).map_err(|e| input_err(&e))?;
            let envelope =
                core::sign_manifest(&io::read(&reviewed)?, &key).map_err(|e| input_err(&e))?;
            io::write_atomic(&output, &core::artifact_bytes(&envelope))?;
            let human = format!(
                "signed {} v{} ({}) with key {} -> {}\n",
                envelope.server_id,
                envelope.contract_version,
                envelope.manifest_sha256,
                envelope.key_id,
                output.display()
            );
            let value = json!({"key_id": envelope.key_id, "manifest_sha256": envelope.manifest_sha256,
                "server_id": envelope.server_id, "contract_version": envelope.contract_version,
                "signature": output});
            print(json, &value, &human)?;
            Ok(0)
        }
        ContractCommand::Verify {
            reviewed,
            sig,
            pubkey,
        } => {
            let v = crate::contract_gate::verified(&reviewed, &sig, &pubkey, store_url, None)?;
            let m = &v.manifest.source;
            let human = if v.is_verified() {
                format!(
                    "verified {} v{} ({})\n",
                    m.server_id, m.contract_version, v.manifest_sha256
                )
            } else {
                format!(
                    "REFUSED {} v{}\n{}",
                    m.server_id,
                    m.contract_version,
                    refusal_lines(&v.refusals)
                )
            };
            let value = json!({"verified": v.is_verified(), "server_id": m.server_id,
                "contract_version": m.contract_version, "manifest_sha256": v.manifest_sha256,
                "refusals": refusals_json(&v.refusals)});
            print(json, &value, &human)?;
            Ok(i32::from(!v.is_verified()))
        }
        ContractCommand::Approve {
            reviewed,
            key,
            output,
            expires_in,
            at,
        } => {
            let key = core::parse_secret_key(&io::read_secret(&key)?).map_err(|e| input_err(&e))?;
            let (manifest, hash) =
                core::read_reviewed(&io::read(&reviewed)?).map_err(|e| input_err(&e))?;
            let mismatches = core::check_reviewed(&manifest).map_err(|e| input_err(&e))?;
            if let Some(m) = mismatches.first() {
                bail!(ContractInputError(format!(
                    "refusing to approve {}: {m} (see `mcp-bastion contract check`)",
                    reviewed.display()
                )));
            }
            let issued = io::now_secs(at)?;
            let expires = issued.saturating_add(expires_in.as_secs());
            let id = io::random::<16>()?.iter().fold(String::new(), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            });
            let receipt = core::approve_manifest(&manifest, &hash, &key, &id, issued, expires)
                .map_err(|e| input_err(&e))?;
            io::write_atomic(&output, &core::artifact_bytes(&receipt))?;
            let human = format!(
                "approval {id} by key {} for {} v{} ({hash}), expires at {expires} -> {}\n",
                receipt.approver_key_id,
                receipt.server_id,
                receipt.contract_version,
                output.display()
            );
            let value = json!({"approval_id": id, "approver_key_id": receipt.approver_key_id,
                "manifest_sha256": hash, "issued_at": issued, "expires_at": expires, "receipt": output});
            print(json, &value, &human)?;
            Ok(0)
        }
        ContractCommand::Activate {
            reviewed,
            sig,
            pubkey,
            approvers,
            receipts,
            at,
        } => crate::contract_gate::activate(
            &reviewed, &sig, &pubkey, &approvers, &receipts, at, store_url, json,
        ),
        ContractCommand::Diff { old, new } => crate::contract_show::diff(&old, &new, json),
    }
}

fn build(
    source: &Path,
    output: &Path,
    commit: Option<String>,
    accept_warnings: bool,
    ui: &(Option<PathBuf>, Option<PathBuf>),
    json: bool,
) -> Result<i32> {
    let bytes = io::read(source)?;
    let mut manifest = core::parse_source(&bytes).map_err(|e| input_err(&e))?;
    let mut findings = core::check_invariants(&manifest);
    if !manifest.ui_resources.is_empty() {
        // Issue 7 §6: with --ui-root the UI content is read (no symlinks), size-limited and
        // hashed into the manifest; without it only the declarations and paths are judged.
        if ui.0.is_none() {
            eprintln!(
                "mcp-bastion: ui_resources are declared but no --ui-root was given: their content files are not hashed into the manifest"
            );
        }
        let ui_findings = crate::ui_files::review(&mut manifest, ui.0.as_deref(), ui.1.as_deref())
            .map_err(|e| ContractInputError(format!("{e:#}")))?;
        findings.extend(ui_findings);
    }
    let report = Report::from_findings(findings, false, None);
    let refused =
        report.verdict == Verdict::Block || (report.verdict == Verdict::Flag && !accept_warnings);
    let mut written = None;
    if !refused {
        let commit = match commit {
            Some(c) => c,
            None => io::git_head()?,
        };
        let reviewed = core::reviewed_manifest(manifest, &bytes, &commit, io::build_time()?)
            .map_err(|e| input_err(&e))?;
        let out = core::reviewed_bytes(&reviewed);
        io::write_atomic(output, &out)?;
        written = Some((
            reviewed,
            core::manifest_sha256(&out).map_err(|e| input_err(&e))?,
        ));
    }
    if json {
        let (entries, hash) = written
            .as_ref()
            .map_or((Value::Null, Value::Null), |(r, h)| {
                (json!(r.entries.len()), json!(h))
            });
        let value = json!({"verdict": report.verdict, "findings": report.findings,
            "output": {"written": written.is_some().then_some(output), "entries": entries, "manifest_sha256": hash}});
        print(true, &value, "")?;
    } else {
        crate::output::print_report(&report)?;
        let line = match &written {
            Some((r, h)) => format!("wrote {} ({} entries, manifest {h})\n", output.display(), r.entries.len()),
            None if report.verdict == Verdict::Flag => {
                "not built: detectors warn; review the findings, then rebuild with --accept-warnings\n".to_owned()
            }
            None => "not built: fix the findings above\n".to_owned(),
        };
        print(false, &Value::Null, &line)?;
    }
    Ok(i32::from(
        written.is_none() || report.verdict != Verdict::Allow,
    ))
}

fn check(reviewed: &Path, json: bool) -> Result<i32> {
    let (manifest, hash) = core::read_reviewed(&io::read(reviewed)?).map_err(|e| input_err(&e))?;
    let mismatches = core::check_reviewed(&manifest).map_err(|e| input_err(&e))?;
    let human = if mismatches.is_empty() {
        format!(
            "ok: {} entries match their hashes (manifest {hash})\n",
            manifest.entries.len()
        )
    } else {
        crate::contract_show::prefixed(&mismatches, "  mismatch: ")
    };
    let list: Vec<Value> = mismatches
        .iter()
        .map(|m| {
            let mut v = serde_json::to_value(m).unwrap_or_else(|_| json!({}));
            v["message"] = Value::String(m.to_string());
            v
        })
        .collect();
    let value = json!({"ok": mismatches.is_empty(), "manifest_sha256": hash, "mismatches": list});
    print(json, &value, &human)?;
    Ok(i32::from(!mismatches.is_empty()))
}

fn keygen(output: &Path, name: Option<String>, force: bool, json: bool) -> Result<i32> {
    let public_path = io::pub_path(output);
    for p in [output, public_path.as_path()] {
        if p.exists() && !force {
            bail!(ContractInputError(format!(
                "{} exists; refusing to overwrite a key (use --force to replace it)",
                p.display()
            )));
        }
    }
    let (secret, public) = core::generate_key(io::random::<32>()?, name);
    io::write_atomic(output, &core::artifact_bytes(&secret))?;
    io::write_atomic(&public_path, &core::artifact_bytes(&public))?;
    let human = format!(
        "key {} -> {} (secret, keep it private) and {}\n",
        public.key_id,
        output.display(),
        public_path.display()
    );
    let value = json!({"key_id": public.key_id, "key": output, "pubkey": public_path});
    print(json, &value, &human)?;
    Ok(0)
}
