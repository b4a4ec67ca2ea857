//! Ed25519 keys for contract signatures and approval receipts (RFC 8032).
//!
//! Key files are JSON (pretty-printed, final newline):
//!
//! - secret `KEY`: `{"format": "mcp-bastion-key/1", "algorithm": "ed25519", "key_id",
//!   "name"?, "secret_key": "<base64 of the 32-byte seed>"}`; written mode 0600.
//! - public `KEY.pub`: `{"format": "mcp-bastion-pubkey/1", "algorithm": "ed25519",
//!   "key_id", "name"?, "public_key": "<base64 of the 32-byte key>"}`.
//!
//! The key id is the first 16 hex digits of SHA-256 over the 32 public-key bytes; a file
//! whose `key_id` does not match its key is refused. Key generation is pure: the caller
//! passes 32 random bytes (the CLI reads them from the operating system).
//!
//! What is signed is always the RFC 8785 canonical JSON of a payload object whose
//! `format` names the artifact (`mcp-bastion-signature/1`, `mcp-bastion-approval/1`), so a
//! signature over one kind of artifact is never valid for another.

use super::error::ContractError;
use super::reviewed::parse_artifact;
use crate::pins::{canonical_json, sha256_hex};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use std::fmt;

/// `format` of a secret key file.
pub const SECRET_KEY_FORMAT: &str = "mcp-bastion-key/1";
/// `format` of a public key file.
pub const PUBLIC_KEY_FORMAT: &str = "mcp-bastion-pubkey/1";
/// The only signature algorithm.
pub const ALGORITHM: &str = "ed25519";

/// A secret key file (see the module docs).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretKeyFile {
    /// [`SECRET_KEY_FORMAT`].
    pub format: String,
    /// [`ALGORITHM`].
    pub algorithm: String,
    /// 16 hex digits, see [`key_id`].
    pub key_id: String,
    /// Who holds the key (shown in approvals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Base64 (RFC 4648 §4, padded) of the 32-byte Ed25519 seed.
    pub secret_key: String,
}

impl fmt::Debug for SecretKeyFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKeyFile")
            .field("key_id", &self.key_id)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A public key file (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublicKeyFile {
    /// [`PUBLIC_KEY_FORMAT`].
    pub format: String,
    /// [`ALGORITHM`].
    pub algorithm: String,
    /// 16 hex digits, see [`key_id`].
    pub key_id: String,
    /// Who holds the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Base64 of the 32-byte Ed25519 public key.
    pub public_key: String,
}

/// A loaded secret key. `Debug` shows the key id only.
#[derive(Clone)]
pub struct SecretKey {
    signing: SigningKey,
    key_id: String,
    name: Option<String>,
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// A loaded public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    verifying: VerifyingKey,
    key_id: String,
    name: Option<String>,
}

/// The key id of a public key: the first 16 hex digits of SHA-256 over its 32 bytes.
pub fn key_id(public: &[u8; 32]) -> String {
    sha256_hex(public)[..16].to_owned()
}

/// A new key pair from 32 random bytes (`seed`, the Ed25519 secret key of RFC 8032
/// §5.1.5), with an optional holder name.
pub fn generate_key(seed: [u8; 32], name: Option<String>) -> (SecretKeyFile, PublicKeyFile) {
    let signing = SigningKey::from_bytes(&seed);
    let public = signing.verifying_key().to_bytes();
    let id = key_id(&public);
    (
        SecretKeyFile {
            format: SECRET_KEY_FORMAT.to_owned(),
            algorithm: ALGORITHM.to_owned(),
            key_id: id.clone(),
            name: name.clone(),
            secret_key: B64.encode(seed),
        },
        PublicKeyFile {
            format: PUBLIC_KEY_FORMAT.to_owned(),
            algorithm: ALGORITHM.to_owned(),
            key_id: id,
            name,
            public_key: B64.encode(public),
        },
    )
}

/// Pretty JSON with a final newline: how key files, envelopes and receipts are written.
pub fn artifact_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and integers: serializing cannot fail.
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
}

fn decode32(text: &str, what: &'static str) -> Result<[u8; 32], ContractError> {
    let bytes = B64.decode(text).map_err(|e| ContractError::Invalid {
        what,
        detail: format!("not base64: {e}"),
    })?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| ContractError::Invalid {
        what,
        detail: format!("an Ed25519 key is 32 bytes, this one is {}", bytes.len()),
    })
}

fn check_id(claimed: &str, public: &[u8; 32], what: &'static str) -> Result<String, ContractError> {
    let id = key_id(public);
    if claimed == id {
        Ok(id)
    } else {
        Err(ContractError::Invalid {
            what,
            detail: format!("key_id {claimed:?} does not belong to this key (its id is {id})"),
        })
    }
}

fn check_algorithm(algorithm: &str, what: &'static str) -> Result<(), ContractError> {
    if algorithm == ALGORITHM {
        Ok(())
    } else {
        Err(ContractError::Invalid {
            what,
            detail: format!("algorithm {algorithm:?} is not supported; only \"{ALGORITHM}\""),
        })
    }
}

/// Reads a secret key file.
///
/// # Errors
/// [`ContractError`] for malformed JSON, another format, a key that is not 32 base64
/// bytes, another algorithm, or a `key_id` that is not this key's.
pub fn parse_secret_key(bytes: &[u8]) -> Result<SecretKey, ContractError> {
    let what = "secret key file";
    let (file, _): (SecretKeyFile, _) = parse_artifact(bytes, what, SECRET_KEY_FORMAT)?;
    check_algorithm(&file.algorithm, what)?;
    let signing = SigningKey::from_bytes(&decode32(&file.secret_key, what)?);
    let key_id = check_id(&file.key_id, &signing.verifying_key().to_bytes(), what)?;
    Ok(SecretKey {
        signing,
        key_id,
        name: file.name,
    })
}

/// A public key from its file form (also used for the entries of a trusted-approvers
/// file).
///
/// # Errors
/// As [`parse_public_key`].
pub fn public_key_from(file: &PublicKeyFile) -> Result<PublicKey, ContractError> {
    let what = "public key";
    check_algorithm(&file.algorithm, what)?;
    let raw = decode32(&file.public_key, what)?;
    let verifying = VerifyingKey::from_bytes(&raw).map_err(|e| ContractError::Invalid {
        what,
        detail: format!("not an Ed25519 public key: {e}"),
    })?;
    let key_id = check_id(&file.key_id, &raw, what)?;
    Ok(PublicKey {
        verifying,
        key_id,
        name: file.name.clone(),
    })
}

/// Reads a public key file.
///
/// # Errors
/// [`ContractError`] for malformed JSON, another format or algorithm, a key that is not
/// a valid 32-byte Ed25519 point, or a `key_id` that is not this key's.
pub fn parse_public_key(bytes: &[u8]) -> Result<PublicKey, ContractError> {
    let (file, _): (PublicKeyFile, _) =
        parse_artifact(bytes, "public key file", PUBLIC_KEY_FORMAT)?;
    public_key_from(&file)
}

/// The RFC 8785 canonical bytes of a payload: what is signed.
pub(crate) fn signing_input<T: Serialize>(payload: &T) -> Result<Vec<u8>, ContractError> {
    let what = "signed payload";
    let value = serde_json::to_value(payload).map_err(|e| ContractError::Shape {
        what,
        detail: e.to_string(),
    })?;
    canonical_json(&value)
        .map(String::into_bytes)
        .map_err(|source| ContractError::Canonical { what, source })
}

impl SecretKey {
    /// The key id.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The holder's name, when the key file has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The matching public key.
    pub fn public(&self) -> PublicKey {
        PublicKey {
            verifying: self.signing.verifying_key(),
            key_id: self.key_id.clone(),
            name: self.name.clone(),
        }
    }

    /// Base64 of the Ed25519 signature of `message`.
    pub(crate) fn sign(&self, message: &[u8]) -> String {
        B64.encode(self.signing.sign(message).to_bytes())
    }
}

impl PublicKey {
    /// The key id.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The holder's name, when known.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The public key file of this key.
    pub fn to_file(&self) -> PublicKeyFile {
        PublicKeyFile {
            format: PUBLIC_KEY_FORMAT.to_owned(),
            algorithm: ALGORITHM.to_owned(),
            key_id: self.key_id.clone(),
            name: self.name.clone(),
            public_key: B64.encode(self.verifying.to_bytes()),
        }
    }

    /// Whether `signature` (base64 of 64 bytes) is a valid strict Ed25519 signature of
    /// `message` under this key (RFC 8032 §5.1.7 with small-order and malleability
    /// checks, `verify_strict`).
    pub(crate) fn verifies(&self, message: &[u8], signature: &str) -> bool {
        let Ok(raw) = B64.decode(signature) else {
            return false;
        };
        let Ok(raw) = <[u8; 64]>::try_from(raw.as_slice()) else {
            return false;
        };
        self.verifying
            .verify_strict(message, &Signature::from_bytes(&raw))
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8032 §7.1, test 1: the seed gives the published key and signature.
    #[test]
    fn rfc8032_test_vector_1() {
        let seed: [u8; 32] =
            hex::decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
                .unwrap()
                .try_into()
                .unwrap();
        let (secret, public) = generate_key(seed, None);
        assert_eq!(
            hex::encode(B64.decode(&public.public_key).unwrap()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        let sk = parse_secret_key(&artifact_bytes(&secret)).unwrap();
        assert_eq!(
            hex::encode(B64.decode(sk.sign(b"")).unwrap()),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        );
    }

    #[test]
    fn key_files_round_trip_and_ids_are_checked() {
        let (secret, public) = generate_key([7; 32], Some("alice".into()));
        assert_eq!(secret.key_id.len(), 16);
        let sk = parse_secret_key(&artifact_bytes(&secret)).unwrap();
        let pk = parse_public_key(&artifact_bytes(&public)).unwrap();
        assert_eq!(sk.public(), pk);
        assert_eq!(pk.to_file(), public);
        assert_eq!(pk.name(), Some("alice"));
        let sig = sk.sign(b"m");
        assert!(pk.verifies(b"m", &sig));
        assert!(!pk.verifies(b"n", &sig));
        assert!(!pk.verifies(b"m", "not base64"));
        let mut forged = public.clone();
        forged.key_id = "0000000000000000".into();
        let err = parse_public_key(&artifact_bytes(&forged)).unwrap_err();
        assert!(
            err.to_string().contains("does not belong to this key"),
            "{err}"
        );
        let mut short = secret;
        short.secret_key = B64.encode([1; 16]);
        let err = parse_secret_key(&artifact_bytes(&short)).unwrap_err();
        assert!(err.to_string().contains("32 bytes"), "{err}");
        assert!(!format!("{sk:?}").contains(&B64.encode([7; 32])));
    }
}
