//! The signed tool-contract target (issue 7's manifests; issue 9 §1 "contract
//! verification"): the artifact parsers, building a reviewed manifest, signing and
//! verifying it, the change gate's receipts, and the index a gateway enforces with.

use bastion_core::contract::{
    self, ContractEntry, LastAccepted, Refusal, ReviewedManifest, SecretKey, TrustedApprovers,
};
use bastion_core::publish::{ContractIndex, LiveMatch};
use serde_json::{Value, json};

/// A 40-hex git commit id for the manifests built here.
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
/// The build time of those manifests, Unix seconds.
const BUILT_AT: u64 = 1_767_225_600;

/// A fixed key made from `seed` (one byte repeated): fuzzing is deterministic.
fn key(seed: u8) -> SecretKey {
    let (secret, _) = contract::generate_key([seed; 32], Some(format!("key-{seed}")));
    contract::parse_secret_key(&contract::artifact_bytes(&secret)).expect("a generated key reads")
}

/// A trusted-approvers file listing `keys`, read back.
fn approvers(keys: &[&SecretKey]) -> TrustedApprovers {
    let list: Vec<Value> = keys
        .iter()
        .map(|k| {
            let public = k.public().to_file();
            json!({"name": k.name(), "key_id": public.key_id, "public_key": public.public_key})
        })
        .collect();
    let file = json!({"format": contract::APPROVERS_FORMAT, "threshold": 2, "approvers": list});
    contract::parse_approvers(&serde_json::to_vec(&file).unwrap_or_default())
        .expect("an approvers file of generated keys reads")
}

/// Every artifact parser on any bytes; then, for bytes that are a source manifest, the
/// whole publish-and-verify cycle, and for bytes that are a reviewed manifest, verifying
/// it as it came. Properties:
///
/// - a reviewed manifest built from a source checks clean (but for two entries under one
///   key, which `contract build` refuses first), its written bytes read back as the same
///   manifest, and its hash does not change when those bytes are re-indented;
/// - signed with one key it verifies under that key with no refusal; another key gives
///   `WrongKey`, a changed signature `BadSignature`, a later accepted version `Rollback`,
///   the same version accepted with another hash `VersionReused`; an envelope reads back
///   as written;
/// - two distinct trusted approvers' receipts pass the change gate, one does not, and a
///   receipt for another manifest hash is refused;
/// - the index built from it matches each published entry, refuses the same entry with
///   one more member (`Different`) and an unknown key (`Extra`);
/// - a reviewed manifest as it came verifies under its own signature with exactly the
///   refusals `check_reviewed` finds, deterministically, and an index is built from it
///   exactly when there are none; with one value changed after signing it is refused
///   (`ManifestChanged`).
///
/// # Panics
/// When a property fails.
pub fn contract(data: &[u8]) {
    // Each parser refuses or accepts; none may panic.
    let _ = contract::parse_signature(data);
    let _ = contract::parse_public_key(data);
    let _ = contract::parse_secret_key(data);
    let _ = contract::parse_receipt(data);
    let _ = contract::parse_approvers(data);
    if let Ok(source) = contract::parse_source(data) {
        publish_cycle(source, data);
    }
    if let Ok((manifest, hash)) = contract::read_reviewed(data) {
        verify_as_it_came(data, &manifest, &hash);
    }
}

fn publish_cycle(source: contract::SourceManifest, data: &[u8]) {
    let Ok(reviewed) = contract::reviewed_manifest(source, data, COMMIT, BUILT_AT) else {
        // No canonical form for an entry (too deep, a non-finite number).
        return;
    };
    let problems = contract::check_reviewed(&reviewed).expect("hashed once, hashes again");
    // Two entries under one key are the only thing a fresh build can disagree on
    // (`contract build` refuses such a source with its invariants first).
    for p in &problems {
        assert!(
            matches!(p, contract::Mismatch::Duplicate { .. }),
            "a fresh build disagrees: {p:?}"
        );
    }
    if !problems.is_empty() {
        return;
    }
    let bytes = contract::reviewed_bytes(&reviewed);
    let (read, hash) = contract::read_reviewed(&bytes).expect("written bytes read back");
    assert_eq!(read, reviewed, "written and read back differ");
    // Indentation and member order do not change the hash.
    let compact = serde_json::to_vec(&serde_json::from_slice::<Value>(&bytes).unwrap_or_default())
        .unwrap_or_default();
    assert_eq!(
        contract::manifest_sha256(&compact).ok().as_deref(),
        Some(hash.as_str()),
        "re-indented bytes hash differently"
    );

    let signer = key(1);
    let other = key(2);
    let envelope = contract::sign_manifest(&bytes, &signer).expect("a reviewed manifest signs");
    let written = contract::artifact_bytes(&envelope);
    assert_eq!(
        contract::parse_signature(&written).ok().as_ref(),
        Some(&envelope),
        "the envelope does not read back"
    );
    let verify =
        |envelope: &contract::SignatureEnvelope, key: &SecretKey, last: Option<&LastAccepted>| {
            contract::verify_manifest(&bytes, envelope, &key.public(), last)
                .expect("a reviewed manifest verifies or is refused")
        };
    let good = verify(&envelope, &signer, None);
    assert!(good.is_verified(), "refused: {:?}", good.refusals);
    assert_eq!(good.manifest_sha256, hash);
    let refused = |envelope, key, last: Option<LastAccepted>, why: fn(&Refusal) -> bool| {
        verify(envelope, key, last.as_ref())
            .refusals
            .iter()
            .any(why)
    };
    let accepted = |contract_version, manifest_sha256: &str| {
        Some(LastAccepted {
            contract_version,
            manifest_sha256: manifest_sha256.to_owned(),
        })
    };
    assert!(
        refused(&envelope, &other, None, |r| matches!(
            r,
            Refusal::WrongKey { .. }
        )),
        "another key was not refused"
    );
    let mut forged = envelope.clone();
    forged.signature = flip_first_char(&forged.signature);
    assert!(
        refused(&forged, &signer, None, |r| matches!(
            r,
            Refusal::BadSignature { .. }
        )),
        "a changed signature verified"
    );
    let version = reviewed.source.contract_version;
    if let Some(next) = version.checked_add(1) {
        assert!(
            refused(&envelope, &signer, accepted(next, &hash), |r| matches!(
                r,
                Refusal::Rollback { .. }
            )),
            "a rollback was accepted"
        );
    }
    assert!(
        refused(
            &envelope,
            &signer,
            accepted(version, &"0".repeat(64)),
            |r| matches!(r, Refusal::VersionReused { .. })
        ),
        "a reused version was accepted"
    );
    assert!(
        verify(&envelope, &signer, accepted(version, &hash).as_ref()).is_verified(),
        "the accepted manifest itself was refused"
    );

    change_gate(&reviewed, &hash, &signer, &other);
    enforce(&reviewed);
}

/// Receipts of `a` and `b` for `manifest` pass the gate; one alone or one bound to
/// another hash do not.
fn change_gate(manifest: &ReviewedManifest, hash: &str, a: &SecretKey, b: &SecretKey) {
    let trusted = approvers(&[a, b]);
    let now = BUILT_AT + 60;
    let receipt = |key: &SecretKey, id: &str, hash: &str| {
        contract::approve_manifest(manifest, hash, key, id, BUILT_AT, BUILT_AT + 3600)
            .expect("a receipt is made")
    };
    let both = [receipt(a, "ra", hash), receipt(b, "rb", hash)];
    let gate = contract::check_approvals(manifest, hash, &both, &trusted, now);
    assert!(gate.refusals.is_empty(), "{:?}", gate.refusals);
    for r in &both {
        let read = contract::parse_receipt(&contract::artifact_bytes(r)).ok();
        assert_eq!(read.as_ref(), Some(r), "a receipt does not read back");
    }
    let alone = contract::check_approvals(manifest, hash, &both[..1], &trusted, now);
    assert!(
        alone
            .refusals
            .iter()
            .any(|r| matches!(r, Refusal::TooFewApprovers { .. })),
        "one approver sufficed"
    );
    let elsewhere = [receipt(a, "ra", &"f".repeat(64)), both[1].clone()];
    let unbound = contract::check_approvals(manifest, hash, &elsewhere, &trusted, now);
    assert!(
        unbound
            .refusals
            .iter()
            .any(|r| matches!(r, Refusal::ReceiptNotBound { .. })),
        "a receipt for another manifest counted"
    );
}

/// The index of a clean manifest matches each published entry and nothing altered.
fn enforce(manifest: &ReviewedManifest) {
    let index = ContractIndex::from_reviewed(manifest).expect("a clean manifest indexes");
    let source = &manifest.source;
    let published = source
        .tools
        .iter()
        .map(|t| (contract::EntryKind::Tool, t.published()))
        .chain(
            source
                .prompts
                .iter()
                .map(|p| (contract::EntryKind::Prompt, p.published())),
        )
        .chain(
            source
                .resources
                .iter()
                .map(|r| (contract::EntryKind::Resource, r.published())),
        )
        .chain(
            source
                .resource_templates
                .iter()
                .map(|t| (contract::EntryKind::ResourceTemplate, t.published())),
        );
    for (kind, descriptor) in published {
        assert_eq!(
            index.judge(kind, &descriptor),
            LiveMatch::Match,
            "{kind:?} {descriptor}"
        );
        let mut grown = descriptor.clone();
        if let Some(map) = grown.as_object_mut()
            && !map.contains_key("x-bastion-fuzz")
        {
            map.insert("x-bastion-fuzz".into(), Value::Bool(true));
            assert_eq!(index.judge(kind, &grown), LiveMatch::Different, "{grown}");
        }
        let mut renamed = descriptor;
        if let Some(map) = renamed.as_object_mut() {
            let member = kind.key_member();
            let key = map.get(member).and_then(Value::as_str).unwrap_or("");
            let unknown = format!("{key}\u{1}fuzz");
            if !index.contains(kind, &unknown) {
                map.insert(member.into(), Value::String(unknown));
                assert_eq!(index.judge(kind, &renamed), LiveMatch::Extra, "{renamed}");
            }
        }
    }
}

/// A reviewed manifest as it came, signed as it is: only its own inconsistencies
/// (`Tampered`) may refuse it.
fn verify_as_it_came(data: &[u8], manifest: &ReviewedManifest, hash: &str) {
    let Ok(problems) = contract::check_reviewed(manifest) else {
        return;
    };
    let signer = key(3);
    let envelope = contract::sign_manifest(data, &signer).expect("a reviewed manifest signs");
    let v = contract::verify_manifest(data, &envelope, &signer.public(), None)
        .expect("a reviewed manifest verifies or is refused");
    assert_eq!(v.manifest_sha256, hash);
    let tampered: Vec<_> = v
        .refusals
        .iter()
        .map(|r| match r {
            Refusal::Tampered(m) => m.clone(),
            other => panic!("refused for {other:?}"),
        })
        .collect();
    assert_eq!(tampered, problems, "refusals differ from check_reviewed");
    let again = contract::verify_manifest(data, &envelope, &signer.public(), None).ok();
    assert_eq!(again.as_ref(), Some(&v), "not deterministic");
    // One value changed after signing: refused under the envelope of the original.
    let mut changed = manifest.clone();
    changed.built_at = if changed.built_at > 0 {
        changed.built_at - 1
    } else {
        1
    };
    let changed_bytes = contract::reviewed_bytes(&changed);
    if let Ok(w) = contract::verify_manifest(&changed_bytes, &envelope, &signer.public(), None) {
        assert!(
            w.refusals
                .iter()
                .any(|r| matches!(r, Refusal::ManifestChanged { .. })),
            "a manifest changed after signing verified"
        );
    }
    assert_eq!(
        ContractIndex::from_reviewed(manifest).is_ok(),
        problems.is_empty(),
        "index built from an inconsistent manifest, or refused for a clean one"
    );
}

/// `signature` with its first base64 character replaced by another: its first byte
/// changes, so no valid signature can become another valid one this way.
fn flip_first_char(signature: &str) -> String {
    let mut chars = signature.chars();
    let first = match chars.next() {
        Some('A') => 'B',
        Some(_) => 'A',
        None => return "A".to_owned(),
    };
    std::iter::once(first).chain(chars).collect()
}
