//! Change gate: signed approval receipts and the activation rule (issue 7 §4).
//!
//! Receipt JSON (`contract approve REVIEWED --key K -o RECEIPT`):
//!
//! ```json
//! {"format": "mcp-bastion-approval/1", "approval_id": "<32 hex>",
//!  "approver_key_id": "<16 hex>", "approver_name": "alice",
//!  "server_id": "io.example/notes", "contract_version": 4,
//!  "manifest_sha256": "<64 hex>", "decision": "approve",
//!  "issued_at": 1767225600, "expires_at": 1767484800, "signature": "<base64>"}
//! ```
//!
//! Times are Unix seconds, passed in by the caller. `signature` is Ed25519 over the RFC
//! 8785 form of the receipt without `signature`.
//!
//! Trusted-approvers file (JSON, kept by whoever may activate):
//!
//! ```json
//! {"format": "mcp-bastion-approvers/1", "threshold": 2, "max_age_secs": 604800,
//!  "approvers": [{"name": "alice", "key_id": "<16 hex>", "public_key": "<base64>"}]}
//! ```
//!
//! `threshold` (default and minimum 2) distinct approver keys must each have a receipt
//! that verifies under the trusted key of its `approver_key_id`, approves this exact
//! manifest hash (and its server id and version), is issued no later than now (plus
//! [`MAX_CLOCK_SKEW_SECS`]), has not expired, and is at most `max_age_secs` (default
//! [`DEFAULT_MAX_AGE_SECS`]) old. One key counts once however many receipts it signed.

use super::error::ContractError;
use super::keys::{
    ALGORITHM, PUBLIC_KEY_FORMAT, PublicKey, PublicKeyFile, SecretKey, public_key_from,
    signing_input,
};
use super::refusal::Refusal;
use super::reviewed::{ReviewedManifest, parse_artifact};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// `format` of an approval receipt.
pub const APPROVAL_FORMAT: &str = "mcp-bastion-approval/1";
/// `format` of a trusted-approvers file.
pub const APPROVERS_FORMAT: &str = "mcp-bastion-approvers/1";
/// Default and minimum number of distinct approvers.
pub const MIN_APPROVERS: usize = 2;
/// Default `max_age_secs`: 7 days.
pub const DEFAULT_MAX_AGE_SECS: u64 = 7 * 24 * 3600;
/// How far in the future `issued_at` may be (clock skew between machines).
pub const MAX_CLOCK_SKEW_SECS: u64 = 300;

/// The only decision a receipt can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The approver approves this manifest.
    Approve,
}

/// A signed approval receipt (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalReceipt {
    /// [`APPROVAL_FORMAT`].
    pub format: String,
    /// Unique id of this approval (random, 32 hex from the CLI).
    pub approval_id: String,
    /// Approver key id.
    pub approver_key_id: String,
    /// Approver name from the key file, informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver_name: Option<String>,
    /// Approved manifest's `server_id`.
    pub server_id: String,
    /// Approved manifest's `contract_version`.
    pub contract_version: u64,
    /// Approved manifest's [`super::manifest_sha256`].
    pub manifest_sha256: String,
    /// Always `approve`.
    pub decision: Decision,
    /// Issued, Unix seconds.
    pub issued_at: u64,
    /// Expires, Unix seconds (exclusive).
    pub expires_at: u64,
    /// Base64 Ed25519 signature.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
}

impl ApprovalReceipt {
    fn payload(&self) -> Self {
        Self {
            signature: String::new(),
            ..self.clone()
        }
    }
}

/// Makes a signed receipt approving `manifest` (whose hash is `manifest_sha256`).
///
/// # Errors
/// [`ContractError::Invalid`] when `expires_at` is not after `issued_at`.
pub fn approve_manifest(
    manifest: &ReviewedManifest,
    manifest_sha256: &str,
    key: &SecretKey,
    approval_id: &str,
    issued_at: u64,
    expires_at: u64,
) -> Result<ApprovalReceipt, ContractError> {
    if expires_at <= issued_at {
        return Err(ContractError::Invalid {
            what: "approval",
            detail: "the expiry must be after the issue time".to_owned(),
        });
    }
    let mut receipt = ApprovalReceipt {
        format: APPROVAL_FORMAT.to_owned(),
        approval_id: approval_id.to_owned(),
        approver_key_id: key.key_id().to_owned(),
        approver_name: key.name().map(str::to_owned),
        server_id: manifest.source.server_id.clone(),
        contract_version: manifest.source.contract_version,
        manifest_sha256: manifest_sha256.to_owned(),
        decision: Decision::Approve,
        issued_at,
        expires_at,
        signature: String::new(),
    };
    receipt.signature = key.sign(&signing_input(&receipt.payload())?);
    Ok(receipt)
}

/// Reads a receipt.
///
/// # Errors
/// [`ContractError`] for malformed JSON, another format, missing or unknown members.
pub fn parse_receipt(bytes: &[u8]) -> Result<ApprovalReceipt, ContractError> {
    parse_artifact(bytes, "approval receipt", APPROVAL_FORMAT).map(|(r, _)| r)
}

/// One trusted approver in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedApprover {
    /// Who.
    pub name: String,
    /// Key id (must be the key's).
    pub key_id: String,
    /// Base64 Ed25519 public key.
    pub public_key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproversFile {
    #[allow(dead_code)]
    format: String,
    #[serde(default)]
    threshold: Option<usize>,
    #[serde(default)]
    max_age_secs: Option<u64>,
    approvers: Vec<TrustedApprover>,
}

/// A loaded trusted-approvers file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedApprovers {
    /// Distinct approvers needed (≥ [`MIN_APPROVERS`]).
    pub threshold: usize,
    /// Oldest acceptable receipt, seconds.
    pub max_age_secs: u64,
    keys: BTreeMap<String, PublicKey>,
}

impl TrustedApprovers {
    /// The trusted key with this id.
    pub fn key(&self, key_id: &str) -> Option<&PublicKey> {
        self.keys.get(key_id)
    }
}

/// Reads a trusted-approvers file.
///
/// # Errors
/// [`ContractError`] for malformed JSON, another format, a `threshold` below 2 or above
/// the number of approvers, a key that is invalid or whose `key_id` is not its own, or the
/// same key listed twice.
pub fn parse_approvers(bytes: &[u8]) -> Result<TrustedApprovers, ContractError> {
    let what = "trusted-approvers file";
    let (file, _): (ApproversFile, _) = parse_artifact(bytes, what, APPROVERS_FORMAT)?;
    let invalid = |detail: String| ContractError::Invalid { what, detail };
    let threshold = file.threshold.unwrap_or(MIN_APPROVERS);
    if threshold < MIN_APPROVERS {
        return Err(invalid(format!(
            "threshold {threshold} is below the minimum of {MIN_APPROVERS} distinct approvers"
        )));
    }
    let mut keys = BTreeMap::new();
    for a in &file.approvers {
        let key = public_key_from(&PublicKeyFile {
            format: PUBLIC_KEY_FORMAT.to_owned(),
            algorithm: ALGORITHM.to_owned(),
            key_id: a.key_id.clone(),
            name: Some(a.name.clone()),
            public_key: a.public_key.clone(),
        })
        .map_err(|e| invalid(format!("approver {:?}: {e}", a.name)))?;
        if keys.insert(a.key_id.clone(), key).is_some() {
            return Err(invalid(format!("key {} is listed twice", a.key_id)));
        }
    }
    if threshold > keys.len() {
        return Err(invalid(format!(
            "threshold {threshold} exceeds the {} approvers listed",
            keys.len()
        )));
    }
    Ok(TrustedApprovers {
        threshold,
        max_age_secs: file.max_age_secs.unwrap_or(DEFAULT_MAX_AGE_SECS),
        keys,
    })
}

/// The outcome of [`check_approvals`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApprovalCheck {
    /// Distinct approver key ids with a valid receipt, sorted.
    pub approver_key_ids: Vec<String>,
    /// Ids of the valid receipts, in input order.
    pub approval_ids: Vec<String>,
    /// Why the activation is refused; empty when it may proceed.
    pub refusals: Vec<Refusal>,
}

/// Checks `receipts` for activating `manifest` (hash `manifest_sha256`) at `now` (Unix
/// seconds) against `approvers` (rules in the module docs).
pub fn check_approvals(
    manifest: &ReviewedManifest,
    manifest_sha256: &str,
    receipts: &[ApprovalReceipt],
    approvers: &TrustedApprovers,
    now: u64,
) -> ApprovalCheck {
    let mut out = ApprovalCheck::default();
    let mut ids = BTreeSet::new();
    let mut per_key: BTreeMap<&str, usize> = BTreeMap::new();
    for r in receipts {
        if !ids.insert(r.approval_id.as_str()) {
            out.refusals.push(Refusal::DuplicateApprovalId {
                approval_id: r.approval_id.clone(),
            });
            continue;
        }
        if let Some(refusal) = receipt_refusal(manifest, manifest_sha256, r, approvers, now) {
            out.refusals.push(refusal);
            continue;
        }
        *per_key.entry(r.approver_key_id.as_str()).or_default() += 1;
        out.approval_ids.push(r.approval_id.clone());
    }
    for (key, count) in &per_key {
        if *count > 1 {
            out.refusals.push(Refusal::DuplicateApprover {
                key_id: (*key).to_owned(),
                count: *count,
            });
        }
    }
    out.approver_key_ids = per_key.keys().map(|k| (*k).to_owned()).collect();
    if per_key.len() < approvers.threshold {
        out.refusals.push(Refusal::TooFewApprovers {
            distinct: per_key.len(),
            required: approvers.threshold,
        });
    }
    out
}

fn receipt_refusal(
    manifest: &ReviewedManifest,
    manifest_sha256: &str,
    r: &ApprovalReceipt,
    approvers: &TrustedApprovers,
    now: u64,
) -> Option<Refusal> {
    let approval_id = r.approval_id.clone();
    let Some(key) = approvers.key(&r.approver_key_id) else {
        return Some(Refusal::UnknownApprover {
            approval_id,
            key_id: r.approver_key_id.clone(),
        });
    };
    let signed = signing_input(&r.payload()).is_ok_and(|input| key.verifies(&input, &r.signature));
    if r.format != APPROVAL_FORMAT || !signed {
        return Some(Refusal::ReceiptSignature {
            approval_id,
            key_id: r.approver_key_id.clone(),
        });
    }
    if r.manifest_sha256 != manifest_sha256 {
        return Some(Refusal::ReceiptNotBound {
            approval_id,
            approved: r.manifest_sha256.clone(),
            manifest: manifest_sha256.to_owned(),
            what: "manifest hash",
        });
    }
    let source = &manifest.source;
    if r.server_id != source.server_id || r.contract_version != source.contract_version {
        return Some(Refusal::ReceiptNotBound {
            approval_id,
            approved: format!("{} v{}", r.server_id, r.contract_version),
            manifest: format!("{} v{}", source.server_id, source.contract_version),
            what: "server id and version",
        });
    }
    if r.issued_at > now.saturating_add(MAX_CLOCK_SKEW_SECS) {
        return Some(Refusal::ReceiptNotYetValid {
            approval_id,
            issued_at: r.issued_at,
            now,
        });
    }
    if r.expires_at <= now {
        return Some(Refusal::ReceiptExpired {
            approval_id,
            expires_at: r.expires_at,
            now,
        });
    }
    let age = now.saturating_sub(r.issued_at);
    if age > approvers.max_age_secs {
        return Some(Refusal::ReceiptStale {
            approval_id,
            age,
            max_age: approvers.max_age_secs,
        });
    }
    None
}
