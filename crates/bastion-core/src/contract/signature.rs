//! Detached manifest signatures (issue 7 §3).
//!
//! Envelope JSON (`contract sign -o SIG`):
//!
//! ```json
//! {"format": "mcp-bastion-signature/1", "algorithm": "ed25519", "key_id": "<16 hex>",
//!  "server_id": "io.example/notes", "contract_version": 4,
//!  "manifest_sha256": "<64 hex>", "signature": "<base64 of 64 bytes>"}
//! ```
//!
//! `signature` is Ed25519 over the RFC 8785 canonical JSON of the envelope without its
//! `signature` member. `manifest_sha256` is [`super::manifest_sha256`] of the manifest
//! bytes read once for signing, so the signature binds every value of the manifest;
//! re-indenting or reordering members keeps it valid, changing anything else does not.
//!
//! [`verify_manifest`] refuses, all reasons reported together: entries that disagree with
//! their hashes and entries added or omitted ([`super::check_reviewed`]), a manifest hash
//! other than the signed one, a signature by another key or one that does not verify, an
//! envelope for another server id or version, and a version below the last one accepted
//! for the server id (or the same version with other content).

use super::error::ContractError;
use super::keys::{ALGORITHM, PublicKey, SecretKey, signing_input};
use super::refusal::Refusal;
use super::reviewed::{
    REVIEWED_FORMAT, ReviewedManifest, check_reviewed, manifest_hash_of, parse_artifact,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `format` of a signature envelope.
pub const SIGNATURE_FORMAT: &str = "mcp-bastion-signature/1";

/// A detached signature envelope (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureEnvelope {
    /// [`SIGNATURE_FORMAT`].
    pub format: String,
    /// `ed25519`.
    pub algorithm: String,
    /// Signing key id.
    pub key_id: String,
    /// The manifest's `server_id`.
    pub server_id: String,
    /// The manifest's `contract_version`.
    pub contract_version: u64,
    /// [`super::manifest_sha256`] of the signed manifest.
    pub manifest_sha256: String,
    /// Base64 of the Ed25519 signature.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
}

impl SignatureEnvelope {
    /// The envelope without its signature: what is signed.
    fn payload(&self) -> Self {
        Self {
            signature: String::new(),
            ..self.clone()
        }
    }
}

/// The highest version accepted before for a server id, from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastAccepted {
    /// Its `contract_version`.
    pub contract_version: u64,
    /// Its manifest hash.
    pub manifest_sha256: String,
}

/// The outcome of [`verify_manifest`]: the manifest as read, its hash, and every reason
/// to refuse it (empty: verified).
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    /// The manifest.
    pub manifest: ReviewedManifest,
    /// Its [`super::manifest_sha256`].
    pub manifest_sha256: String,
    /// Why it is refused; empty when it verified.
    pub refusals: Vec<Refusal>,
}

impl Verification {
    /// No refusal.
    pub fn is_verified(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Reads a reviewed manifest once: the typed manifest and its hash from the same bytes.
///
/// # Errors
/// As [`super::parse_reviewed`] and [`super::manifest_sha256`].
pub fn read_reviewed(bytes: &[u8]) -> Result<(ReviewedManifest, String), ContractError> {
    let what = "reviewed manifest";
    let (manifest, value): (ReviewedManifest, Value) =
        parse_artifact(bytes, what, REVIEWED_FORMAT)?;
    Ok((manifest, manifest_hash_of(&value, what)?))
}

/// Signs the reviewed manifest `manifest_bytes` with `key`.
///
/// # Errors
/// [`ContractError`] when the bytes are not a reviewed manifest.
pub fn sign_manifest(
    manifest_bytes: &[u8],
    key: &SecretKey,
) -> Result<SignatureEnvelope, ContractError> {
    let (manifest, hash) = read_reviewed(manifest_bytes)?;
    let mut envelope = SignatureEnvelope {
        format: SIGNATURE_FORMAT.to_owned(),
        algorithm: ALGORITHM.to_owned(),
        key_id: key.key_id().to_owned(),
        server_id: manifest.source.server_id.clone(),
        contract_version: manifest.source.contract_version,
        manifest_sha256: hash,
        signature: String::new(),
    };
    envelope.signature = key.sign(&signing_input(&envelope.payload())?);
    Ok(envelope)
}

/// Reads a signature envelope.
///
/// # Errors
/// [`ContractError`] for malformed JSON, another format, a missing or unknown member, or
/// an algorithm other than `ed25519`.
pub fn parse_signature(bytes: &[u8]) -> Result<SignatureEnvelope, ContractError> {
    let what = "signature envelope";
    let (envelope, _): (SignatureEnvelope, _) = parse_artifact(bytes, what, SIGNATURE_FORMAT)?;
    if envelope.algorithm != ALGORITHM {
        return Err(ContractError::Invalid {
            what,
            detail: format!(
                "algorithm {:?} is not supported; only \"{ALGORITHM}\"",
                envelope.algorithm
            ),
        });
    }
    Ok(envelope)
}

/// Verifies the reviewed manifest `manifest_bytes` against `envelope` and `key`, and
/// against `last`, the highest version accepted before for its server id (see the module
/// docs for every refusal).
///
/// # Errors
/// [`ContractError`] when the bytes are not a reviewed manifest at all (exit 2); a
/// manifest that parses but fails is a [`Verification`] with refusals.
pub fn verify_manifest(
    manifest_bytes: &[u8],
    envelope: &SignatureEnvelope,
    key: &PublicKey,
    last: Option<&LastAccepted>,
) -> Result<Verification, ContractError> {
    let (manifest, hash) = read_reviewed(manifest_bytes)?;
    let mut refusals: Vec<Refusal> = check_reviewed(&manifest)?
        .into_iter()
        .map(Refusal::Tampered)
        .collect();
    if envelope.key_id == key.key_id() {
        if !key.verifies(&signing_input(&envelope.payload())?, &envelope.signature) {
            refusals.push(Refusal::BadSignature {
                key_id: key.key_id().to_owned(),
            });
        }
    } else {
        refusals.push(Refusal::WrongKey {
            signed_by: envelope.key_id.clone(),
            given: key.key_id().to_owned(),
        });
    }
    if envelope.manifest_sha256 != hash {
        refusals.push(Refusal::ManifestChanged {
            signed: envelope.manifest_sha256.clone(),
            actual: hash.clone(),
        });
    }
    let source = &manifest.source;
    if envelope.server_id != source.server_id {
        refusals.push(Refusal::EnvelopeMismatch {
            field: "server_id",
            signed: envelope.server_id.clone(),
            manifest: source.server_id.clone(),
        });
    }
    if envelope.contract_version != source.contract_version {
        refusals.push(Refusal::EnvelopeMismatch {
            field: "contract_version",
            signed: envelope.contract_version.to_string(),
            manifest: source.contract_version.to_string(),
        });
    }
    if let Some(last) = last {
        refusals.extend(rollback(
            &source.server_id,
            source.contract_version,
            &hash,
            last,
        ));
    }
    Ok(Verification {
        manifest,
        manifest_sha256: hash,
        refusals,
    })
}

/// The rollback rule alone: `version` (with manifest hash `sha256`) of `server_id`
/// against the last accepted one.
pub fn rollback(
    server_id: &str,
    version: u64,
    sha256: &str,
    last: &LastAccepted,
) -> Option<Refusal> {
    if version < last.contract_version {
        Some(Refusal::Rollback {
            server_id: server_id.to_owned(),
            version,
            accepted: last.contract_version,
        })
    } else if version == last.contract_version && sha256 != last.manifest_sha256 {
        Some(Refusal::VersionReused {
            server_id: server_id.to_owned(),
            version,
            accepted_sha256: last.manifest_sha256.clone(),
            sha256: sha256.to_owned(),
        })
    } else {
        None
    }
}
