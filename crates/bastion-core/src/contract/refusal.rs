//! Why a signed manifest or an activation is refused: values, not errors (exit code 1).
//! Every variant's message names what was found, what was expected and what it means.

use super::reviewed::Mismatch;
use serde::Serialize;

/// One reason to refuse a manifest (`contract verify`) or an activation (`contract
/// activate`). JSON: `{"reason": "<snake_case>", ...fields}`; [`Refusal::reason`] is the
/// stable name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Refusal {
    /// An entry disagrees with its recorded hash, or entries were added or omitted.
    #[error("manifest tampered: {0}")]
    Tampered(Mismatch),
    /// The manifest is not the one that was signed.
    #[error(
        "the manifest hashes to {actual} but the signature is for {signed}: it was changed after signing, or the signature belongs to another manifest"
    )]
    ManifestChanged {
        /// `manifest_sha256` in the envelope.
        signed: String,
        /// The manifest's [`super::manifest_sha256`].
        actual: String,
    },
    /// The envelope names another key than the public key given.
    #[error(
        "the signature was made with key {signed_by}, not with the given public key {given}: wrong key"
    )]
    WrongKey {
        /// Key id in the envelope.
        signed_by: String,
        /// Key id of the public key given.
        given: String,
    },
    /// The signature does not verify.
    #[error("the signature does not verify under key {key_id}: the envelope was altered or forged")]
    BadSignature {
        /// Key id used.
        key_id: String,
    },
    /// The envelope's `server_id` or `contract_version` differs from the manifest's.
    #[error("the signature is for {field} {signed} but the manifest has {manifest}")]
    EnvelopeMismatch {
        /// `server_id` or `contract_version`.
        field: &'static str,
        /// In the envelope.
        signed: String,
        /// In the manifest.
        manifest: String,
    },
    /// The version is older than one accepted before.
    #[error(
        "contract version {version} of {server_id} is older than version {accepted} accepted before: rollback refused"
    )]
    Rollback {
        /// The manifest's server id.
        server_id: String,
        /// The manifest's version.
        version: u64,
        /// The highest accepted version.
        accepted: u64,
    },
    /// The same version was accepted before with other content.
    #[error(
        "contract version {version} of {server_id} was accepted before with manifest {accepted_sha256}; this one is {sha256}: a release must raise contract_version"
    )]
    VersionReused {
        /// The manifest's server id.
        server_id: String,
        /// The version.
        version: u64,
        /// Hash accepted before.
        accepted_sha256: String,
        /// This manifest's hash.
        sha256: String,
    },
    /// A receipt's approver is not in the trusted-approvers file.
    #[error("approval {approval_id}: key {key_id} is not a trusted approver")]
    UnknownApprover {
        /// Receipt id.
        approval_id: String,
        /// Its key id.
        key_id: String,
    },
    /// A receipt's signature does not verify under its approver's trusted key.
    #[error(
        "approval {approval_id}: the signature does not verify under approver key {key_id}: the receipt was altered or forged"
    )]
    ReceiptSignature {
        /// Receipt id.
        approval_id: String,
        /// Its key id.
        key_id: String,
    },
    /// A receipt approves another manifest.
    #[error(
        "approval {approval_id} is for manifest {approved} ({what}), not for this manifest {manifest}"
    )]
    ReceiptNotBound {
        /// Receipt id.
        approval_id: String,
        /// What it approves (hash, or server id and version).
        approved: String,
        /// What this manifest is.
        manifest: String,
        /// Which binding differs.
        what: &'static str,
    },
    /// A receipt is issued in the future (beyond the allowed clock skew).
    #[error(
        "approval {approval_id} is issued at {issued_at}, after now ({now}): check the approver's clock"
    )]
    ReceiptNotYetValid {
        /// Receipt id.
        approval_id: String,
        /// Issued, Unix seconds.
        issued_at: u64,
        /// Now, Unix seconds.
        now: u64,
    },
    /// A receipt has expired.
    #[error("approval {approval_id} expired at {expires_at} (now {now}): ask for a new approval")]
    ReceiptExpired {
        /// Receipt id.
        approval_id: String,
        /// Expiry, Unix seconds.
        expires_at: u64,
        /// Now, Unix seconds.
        now: u64,
    },
    /// A receipt is older than the approvers file's `max_age_secs`.
    #[error(
        "approval {approval_id} is stale: issued {age} s ago, more than the {max_age} s allowed: ask for a new approval"
    )]
    ReceiptStale {
        /// Receipt id.
        approval_id: String,
        /// Age in seconds.
        age: u64,
        /// Allowed age in seconds.
        max_age: u64,
    },
    /// One approver key signed more than one receipt; it counts once.
    #[error(
        "approver key {key_id} signed {count} of the receipts; one approver counts once, however often it approves"
    )]
    DuplicateApprover {
        /// The key id.
        key_id: String,
        /// How many valid receipts it signed.
        count: usize,
    },
    /// Two receipts carry the same approval id.
    #[error("approval id {approval_id} occurs more than once")]
    DuplicateApprovalId {
        /// The id.
        approval_id: String,
    },
    /// Fewer distinct valid approvers than required.
    #[error(
        "activation needs fresh approvals from {required} distinct trusted approver keys bound to this manifest; {distinct} given"
    )]
    TooFewApprovers {
        /// Distinct approver keys with a valid, fresh, bound receipt.
        distinct: usize,
        /// The trusted-approvers threshold.
        required: usize,
    },
}

impl Refusal {
    /// The stable `snake_case` name of the reason (as in the JSON `reason` member).
    pub const fn reason(&self) -> &'static str {
        match self {
            Self::Tampered(_) => "tampered",
            Self::ManifestChanged { .. } => "manifest_changed",
            Self::WrongKey { .. } => "wrong_key",
            Self::BadSignature { .. } => "bad_signature",
            Self::EnvelopeMismatch { .. } => "envelope_mismatch",
            Self::Rollback { .. } => "rollback",
            Self::VersionReused { .. } => "version_reused",
            Self::UnknownApprover { .. } => "unknown_approver",
            Self::ReceiptSignature { .. } => "receipt_signature",
            Self::ReceiptNotBound { .. } => "receipt_not_bound",
            Self::ReceiptNotYetValid { .. } => "receipt_not_yet_valid",
            Self::ReceiptExpired { .. } => "receipt_expired",
            Self::ReceiptStale { .. } => "receipt_stale",
            Self::DuplicateApprover { .. } => "duplicate_approver",
            Self::DuplicateApprovalId { .. } => "duplicate_approval_id",
            Self::TooFewApprovers { .. } => "too_few_approvers",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::EntryKind;

    #[test]
    fn messages_name_what_was_found_and_what_it_means() {
        let cases = [
            (
                Refusal::Rollback {
                    server_id: "io.example/notes".into(),
                    version: 3,
                    accepted: 4,
                },
                "rollback",
                "contract version 3 of io.example/notes is older than version 4 accepted before: rollback refused",
            ),
            (
                Refusal::WrongKey {
                    signed_by: "aaaa".into(),
                    given: "bbbb".into(),
                },
                "wrong_key",
                "the signature was made with key aaaa, not with the given public key bbbb: wrong key",
            ),
            (
                Refusal::DuplicateApprover {
                    key_id: "cccc".into(),
                    count: 2,
                },
                "duplicate_approver",
                "approver key cccc signed 2 of the receipts; one approver counts once, however often it approves",
            ),
            (
                Refusal::ReceiptStale {
                    approval_id: "a1".into(),
                    age: 90,
                    max_age: 60,
                },
                "receipt_stale",
                "approval a1 is stale: issued 90 s ago, more than the 60 s allowed: ask for a new approval",
            ),
            (
                Refusal::Tampered(Mismatch::Unrecorded {
                    kind: EntryKind::Tool,
                    key: "t".into(),
                }),
                "tampered",
                "manifest tampered: tool `t` is in the source but has no recorded hash (entry omitted from `entries`)",
            ),
        ];
        for (refusal, reason, message) in cases {
            assert_eq!(refusal.reason(), reason);
            assert_eq!(refusal.to_string(), message);
            let json = serde_json::to_value(&refusal).unwrap();
            assert_eq!(json["reason"], reason);
        }
    }
}
