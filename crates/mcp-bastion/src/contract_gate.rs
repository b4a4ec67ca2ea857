//! The store-backed half of `mcp-bastion contract`: `verify` (rollback protection,
//! accepted versions) and `activate` (the two-approver gate, activations).

use crate::contract_cmd::{input_err, print, refusal_lines, refusals_json};
use crate::contract_io::{self as io, ContractInputError};
use anyhow::{Result, bail};
use bastion_core::contract::{self as core, LastAccepted, Refusal, ReviewedManifest, Verification};
use bastion_store::{AcceptedContract, ContractActivation, Store};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Verifies against the store's last accepted version; records acceptance on success.
pub(crate) fn verified(
    reviewed: &Path,
    sig: &Path,
    pubkey: &Path,
    store_url: &str,
    extra: Option<&mut Vec<Refusal>>,
) -> Result<Verification> {
    verified_bytes(&io::read(reviewed)?, sig, pubkey, store_url, extra)
}

/// [`verified`] for manifest bytes already read (so that what is verified is exactly
/// what the caller judged: a file read twice may change in between).
fn verified_bytes(
    bytes: &[u8],
    sig: &Path,
    pubkey: &Path,
    store_url: &str,
    extra: Option<&mut Vec<Refusal>>,
) -> Result<Verification> {
    let envelope = core::parse_signature(&io::read(sig)?).map_err(|e| input_err(&e))?;
    let key = core::parse_public_key(&io::read(pubkey)?).map_err(|e| input_err(&e))?;
    let (manifest, _) = core::read_reviewed(bytes).map_err(|e| input_err(&e))?;
    with_store(store_url, async |store| {
        let server_id = &manifest.source.server_id;
        let last = store
            .latest_accepted_contract(server_id)
            .await?
            .map(|a| LastAccepted {
                contract_version: u64::try_from(a.contract_version).unwrap_or(0),
                manifest_sha256: a.manifest_sha256,
            });
        let mut v = core::verify_manifest(bytes, &envelope, &key, last.as_ref())
            .map_err(|e| input_err(&e))?;
        if let Some(extra) = extra {
            v.refusals.append(extra);
        }
        if v.is_verified() {
            record_accepted(store, &v, key.key_id()).await?;
        }
        Ok(v)
    })
}

async fn record_accepted(store: &Store, v: &Verification, key_id: &str) -> Result<()> {
    let source = &v.manifest.source;
    let Ok(version) = i64::try_from(source.contract_version) else {
        bail!(ContractInputError(format!(
            "contract_version {} is too large",
            source.contract_version
        )));
    };
    let row = store
        .record_accepted_contract(&AcceptedContract {
            server_id: source.server_id.clone(),
            contract_version: version,
            manifest_sha256: v.manifest_sha256.clone(),
            key_id: key_id.to_owned(),
            accepted_ms: crate::contract_io::now_secs(None)
                .map_or(0, |s| i64::try_from(s).unwrap_or(0) * 1000),
        })
        .await?;
    if row.manifest_sha256 != v.manifest_sha256 {
        // Another process accepted other content for this version meanwhile.
        bail!(ContractInputError(
            core::rollback(
                &source.server_id,
                source.contract_version,
                &v.manifest_sha256,
                &LastAccepted {
                    contract_version: source.contract_version,
                    manifest_sha256: row.manifest_sha256,
                }
            )
            .map_or_else(String::new, |r| r.to_string())
        ));
    }
    Ok(())
}

fn with_store<T>(store_url: &str, f: impl AsyncFnOnce(&Store) -> Result<T>) -> Result<T> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let store = Store::open(store_url).await?;
        let result = f(&store).await;
        store.close().await;
        result
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn activate(
    reviewed: &Path,
    sig: &Path,
    pubkey: &Path,
    approvers: &Path,
    receipts: &[PathBuf],
    at: Option<u64>,
    store_url: &str,
    json: bool,
) -> Result<i32> {
    let trusted = core::parse_approvers(&io::read(approvers)?).map_err(|e| input_err(&e))?;
    let mut parsed = Vec::new();
    for r in receipts {
        parsed.push(core::parse_receipt(&io::read(r)?).map_err(|e| {
            anyhow::Error::from(ContractInputError(format!("{}: {e}", r.display())))
        })?);
    }
    let bytes = io::read(reviewed)?;
    let (manifest, hash) = core::read_reviewed(&bytes).map_err(|e| input_err(&e))?;
    // `--at` may only move the clock forward ("are these approvals still fresh then?"):
    // an earlier time would bring expired approvals back.
    let now = io::now_secs(None)?.max(at.unwrap_or(0));
    let gate = core::check_approvals(&manifest, &hash, &parsed, &trusted, now);
    // Verification records acceptance only when the gate passed too. The bytes verified
    // are the bytes the gate judged.
    let mut gate_refusals = gate.refusals.clone();
    let v = verified_bytes(&bytes, sig, pubkey, store_url, Some(&mut gate_refusals))?;
    let mut activation = None;
    if v.is_verified() {
        activation = Some(with_store(store_url, async |store| {
            Ok(store
                .record_contract_activation(&activation_row(&manifest, &hash, &gate, now))
                .await?)
        })?);
    }
    let m = &manifest.source;
    let human = match &activation {
        Some(a) => format!(
            "activated {} v{} ({hash}) on approvals by {} (activation {})\n",
            m.server_id,
            m.contract_version,
            a.approver_key_ids.join(", "),
            a.id
        ),
        None => format!(
            "NOT activated {} v{}\n{}",
            m.server_id,
            m.contract_version,
            refusal_lines(&v.refusals)
        ),
    };
    let value = json!({"activated": activation.is_some(), "server_id": m.server_id,
        "contract_version": m.contract_version, "manifest_sha256": hash,
        "approver_key_ids": gate.approver_key_ids, "approval_ids": gate.approval_ids,
        "refusals": refusals_json(&v.refusals)});
    print(json, &value, &human)?;
    Ok(i32::from(activation.is_none()))
}

fn activation_row(
    m: &ReviewedManifest,
    hash: &str,
    gate: &core::ApprovalCheck,
    now: u64,
) -> ContractActivation {
    ContractActivation {
        id: 0,
        server_id: m.source.server_id.clone(),
        contract_version: i64::try_from(m.source.contract_version).unwrap_or(i64::MAX),
        manifest_sha256: hash.to_owned(),
        approver_key_ids: gate.approver_key_ids.clone(),
        approval_ids: gate.approval_ids.clone(),
        activated_ms: i64::try_from(now).unwrap_or(i64::MAX).saturating_mul(1000),
    }
}
