//! Publisher contract manifests, the pure part (issue 7 §1–§5): the source and reviewed
//! manifest formats, per-entry contract hashes, and (in later modules) build invariants,
//! signatures, approvals and diffs. No I/O and no clock: the CLI reads and writes files,
//! passes time in as Unix seconds and random bytes in as arrays.
//!
//! - [`SourceManifest`] (`mcp-bastion-contract/1`): what a publisher writes; tools with
//!   their governance fields, prompts, resources, resource templates, UI resources
//!   ([`UiResource`]) and a cache policy ([`CachePolicy`]).
//! - [`ReviewedManifest`] (`mcp-bastion-contract-reviewed/1`): the source plus
//!   `source_sha256`, `handler_commit`, `built_at` and per-entry [`EntryHash`]es;
//!   [`check_reviewed`] recomputes them.
//! - [`live_contract_hash`]: hashes a descriptor as a live server publishes it into the
//!   `contract_hash` of the manifest entry it must equal.
//! - [`manifest_sha256`]: the manifest identity signatures and approvals bind.
//!
//! The format is documented in `docs/contract.md` and `docs/contract.schema.json`.

mod approval;
mod cache;
mod diff;
mod error;
mod hash;
mod invariants;
mod keys;
mod refusal;
mod reviewed;
mod signature;
mod source;
mod ui;
mod widen;

pub use approval::{
    APPROVAL_FORMAT, APPROVERS_FORMAT, ApprovalCheck, ApprovalReceipt, DEFAULT_MAX_AGE_SECS,
    Decision, MAX_CLOCK_SKEW_SECS, MIN_APPROVERS, TrustedApprover, TrustedApprovers,
    approve_manifest, check_approvals, parse_approvers, parse_receipt,
};
pub use cache::{CACHEABLE_METHODS, CacheHint, CachePolicy, CacheScope};
pub use diff::{ChangedEntry, ContractDiff, EntryRef, Escalation, EscalationKind, diff_manifests};
pub use error::ContractError;
pub use hash::{
    EntryHash, EntryKind, entry_hash, entry_hashes, live_contract_hash, live_key, ui_hash,
};
pub use invariants::{check_invariants, is_contract_name};
pub use keys::{
    ALGORITHM, PUBLIC_KEY_FORMAT, PublicKey, PublicKeyFile, SECRET_KEY_FORMAT, SecretKey,
    SecretKeyFile, artifact_bytes, generate_key, key_id, parse_public_key, parse_secret_key,
    public_key_from,
};
pub use refusal::Refusal;
pub use reviewed::{
    MAX_ARTIFACT_DEPTH, Mismatch, REVIEWED_FORMAT, ReviewedManifest, check_reviewed, is_commit_id,
    manifest_sha256, parse_reviewed, parse_source, reviewed_bytes, reviewed_manifest,
};
pub use signature::{
    LastAccepted, SIGNATURE_FORMAT, SignatureEnvelope, Verification, parse_signature,
    read_reviewed, rollback, sign_manifest, verify_manifest,
};
pub use source::{
    ContractEntry, PromptArgument, PromptEntry, ResourceEntry, ResourceTemplateEntry, RiskTier,
    SOURCE_FORMAT, SourceManifest, ToolEntry,
};
pub use ui::{PermissionApproval, UI_MIME_TYPE, UiContent, UiCsp, UiResource, UiVisibility};
