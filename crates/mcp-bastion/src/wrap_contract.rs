//! `wrap --contract REVIEWED --contract-sig SIG --contract-pubkey KEY.pub` (issue 7 item
//! 8): before the server starts, the reviewed contract is verified exactly as `contract
//! verify` does (signature over the manifest's bytes, every hash recomputed, rollback
//! against the last version accepted for its server id, recorded in the store); the
//! gateway then shows only descriptors that hash to its entries
//! ([`bastion_core::publish::ContractIndex`]).

use crate::contract_cmd::refusal_lines;
use bastion_core::contract::CachePolicy;
use bastion_core::publish::ContractIndex;
use std::path::PathBuf;
use std::sync::Arc;

/// The `wrap` options of a consumer-enforced contract.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ContractFlags {
    /// Signed reviewed contract (`mcp-bastion-contract-reviewed/1`): descriptors that do
    /// not hash to its entries are withheld (`contract_mismatch`).
    #[arg(long, requires_all = ["contract_sig", "contract_pubkey"])]
    contract: Option<PathBuf>,
    /// Detached signature envelope of `--contract` (`contract sign`).
    #[arg(long, requires = "contract")]
    contract_sig: Option<PathBuf>,
    /// Public key of the contract's signer (`KEY.pub` of `contract keygen`).
    #[arg(long, requires = "contract")]
    contract_pubkey: Option<PathBuf>,
}

/// The `publish` options: the same contract, required.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PublishFlags {
    /// Signed reviewed contract to publish: only its entries reach clients.
    #[arg(long)]
    contract: PathBuf,
    /// Detached signature envelope of `--contract`.
    #[arg(long)]
    contract_sig: PathBuf,
    /// Public key of the contract's signer.
    #[arg(long)]
    contract_pubkey: PathBuf,
}

impl From<PublishFlags> for ContractFlags {
    fn from(p: PublishFlags) -> Self {
        Self {
            contract: Some(p.contract),
            contract_sig: Some(p.contract_sig),
            contract_pubkey: Some(p.contract_pubkey),
        }
    }
}

/// A verified contract, ready to enforce.
pub(crate) struct Verified {
    /// Its entries.
    pub(crate) index: Arc<ContractIndex>,
    /// Its cache policy (default: none).
    pub(crate) cache: CachePolicy,
    /// Its manifest hash (what activations record).
    pub(crate) manifest_sha256: String,
}

/// What the flags amount to.
pub(crate) enum Loaded {
    /// No contract given.
    Absent,
    /// Verified: enforce it.
    Enforce(Verified),
    /// Refused (the lines say why): the server is not started.
    Refused(String),
}

/// Verifies the contract of `flags` (if any) against the store at `store_url`.
///
/// # Errors
/// Unreadable or malformed files (`ContractInputError`, exit 2), store failures.
pub(crate) fn load(flags: &ContractFlags, store_url: &str) -> anyhow::Result<Loaded> {
    let (Some(reviewed), Some(sig), Some(pubkey)) = (
        flags.contract.as_deref(),
        flags.contract_sig.as_deref(),
        flags.contract_pubkey.as_deref(),
    ) else {
        return Ok(Loaded::Absent);
    };
    let v = crate::contract_gate::verified(reviewed, sig, pubkey, store_url, None)?;
    if !v.is_verified() {
        return Ok(Loaded::Refused(refusal_lines(&v.refusals)));
    }
    match ContractIndex::from_reviewed(&v.manifest) {
        Ok(index) => Ok(Loaded::Enforce(Verified {
            index: Arc::new(index),
            cache: v.manifest.source.cache.clone().unwrap_or_default(),
            manifest_sha256: v.manifest_sha256,
        })),
        Err(e) => Ok(Loaded::Refused(format!("  refused: {e}\n"))),
    }
}
