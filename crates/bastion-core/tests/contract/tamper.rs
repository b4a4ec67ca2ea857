//! Every tamper kind of issue 7 fails closed with a clear reason; reordered keys verify.

use super::{golden, golden_bytes, reviewed};
use bastion_core::contract::{
    self, ApprovalReceipt, LastAccepted, PublicKey, ReviewedManifest, SecretKey, TrustedApprovers,
    Verification,
};
use serde_json::{Map, Value, json};

pub(crate) fn key(seed: u8, name: &str) -> (SecretKey, PublicKey) {
    let (secret, public) = contract::generate_key([seed; 32], Some(name.to_owned()));
    (
        contract::parse_secret_key(&contract::artifact_bytes(&secret)).unwrap(),
        contract::parse_public_key(&contract::artifact_bytes(&public)).unwrap(),
    )
}

fn publisher() -> (SecretKey, PublicKey) {
    key(1, "release")
}

fn bytes_of(m: &ReviewedManifest) -> Vec<u8> {
    contract::reviewed_bytes(m)
}

fn verify(bytes: &[u8], last: Option<&LastAccepted>) -> Verification {
    let (sk, pk) = publisher();
    let envelope = contract::sign_manifest(&golden_bytes(), &sk).unwrap();
    contract::verify_manifest(bytes, &envelope, &pk, last).unwrap()
}

fn reasons(v: &Verification) -> Vec<&'static str> {
    v.refusals.iter().map(contract::Refusal::reason).collect()
}

/// The tamper table: (name, edit of the signed manifest, reasons that must all appear).
type Edit = fn(&mut ReviewedManifest);

const TAMPERS: &[(&str, Edit, &[&str])] = &[
    (
        "changed description",
        |m| {
            m.source.tools[0].description = Some("Return the text of any note.".into());
        },
        &["tampered", "manifest_changed"],
    ),
    (
        "changed schema",
        |m| {
            m.source.tools[1].input_schema["properties"]["reason"]["maxLength"] = json!(100_000);
        },
        &["tampered", "manifest_changed"],
    ),
    (
        "changed governance field",
        |m| {
            m.source.tools[1].requires_human_approval = false;
        },
        &["tampered", "manifest_changed"],
    ),
    (
        "extra tool, entries not updated",
        |m| {
            let mut t = m.source.tools[0].clone();
            t.name = "export_all_notes".into();
            m.source.tools.push(t);
        },
        &["tampered", "manifest_changed"],
    ),
    (
        "extra tool with its hash recomputed",
        |m| {
            let mut t = m.source.tools[0].clone();
            t.name = "export_all_notes".into();
            m.source.tools.push(t);
            m.entries = contract::entry_hashes(&m.source).unwrap();
        },
        &["manifest_changed"],
    ),
    (
        "missing tool",
        |m| {
            m.source.tools.remove(1);
            m.entries = contract::entry_hashes(&m.source).unwrap();
        },
        &["manifest_changed"],
    ),
    (
        "entry omitted from entries",
        |m| {
            m.entries.retain(|e| e.key != "delete_note");
        },
        &["tampered", "manifest_changed"],
    ),
    (
        "extra recorded entry",
        |m| {
            let mut e = m.entries[0].clone();
            e.key = "ghost".into();
            m.entries.push(e);
            m.entries.sort();
        },
        &["tampered", "manifest_changed"],
    ),
    (
        "version raised after signing",
        |m| {
            m.source.contract_version += 1;
        },
        &["manifest_changed", "envelope_mismatch"],
    ),
    (
        "handler commit swapped",
        |m| {
            m.handler_commit = "0".repeat(40);
        },
        &["manifest_changed"],
    ),
];

/// Ed25519 signatures are deterministic (RFC 8032): the envelope of the golden manifest
/// under the test key (seed 01…01) is a golden file, with that key's public file.
#[test]
fn golden_signature_envelope() {
    let (sk, pk) = publisher();
    let envelope = contract::sign_manifest(&golden_bytes(), &sk).unwrap();
    golden(
        "notes.reviewed.sig.json",
        &contract::artifact_bytes(&envelope),
    );
    golden("release.pub.json", &contract::artifact_bytes(&pk.to_file()));
    let parsed = contract::parse_signature(&super::read("notes.reviewed.sig.json")).unwrap();
    assert_eq!(parsed, envelope);
}

#[test]
fn every_tamper_kind_fails_closed() {
    let untouched = verify(&golden_bytes(), None);
    assert!(untouched.is_verified(), "{:?}", untouched.refusals);
    for (name, edit, expected) in TAMPERS {
        let mut m = reviewed();
        edit(&mut m);
        let v = verify(&bytes_of(&m), None);
        let got = reasons(&v);
        assert!(!v.is_verified(), "{name}: verified");
        for reason in *expected {
            assert!(got.contains(reason), "{name}: {got:?} lacks {reason}");
        }
        for r in &v.refusals {
            let text = r.to_string();
            assert!(text.len() > 30, "{name}: message too terse: {text}");
        }
    }
}

fn reorder(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, x) in map.iter().rev() {
                out.insert(k.clone(), reorder(x));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(reorder).collect()),
        other => other.clone(),
    }
}

/// Member order and whitespace are not content: a re-serialized manifest verifies and
/// has the same manifest hash.
#[test]
fn reordered_keys_still_verify() {
    let value: Value = serde_json::from_slice(&golden_bytes()).unwrap();
    let reordered = serde_json::to_vec(&reorder(&value)).unwrap();
    assert_ne!(reordered, golden_bytes());
    let v = verify(&reordered, None);
    assert!(v.is_verified(), "{:?}", v.refusals);
    assert_eq!(
        contract::manifest_sha256(&reordered).unwrap(),
        contract::manifest_sha256(&golden_bytes()).unwrap()
    );
}

/// A duplicated member is refused before hashing (two parsers could read it apart).
#[test]
fn duplicate_member_is_refused() {
    let text = String::from_utf8(golden_bytes()).unwrap();
    let dup = text.replacen("\"built_at\"", "\"built_at\": 1,\n  \"built_at\"", 1);
    let err = contract::manifest_sha256(dup.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("not strict JSON"), "{err}");
}

#[test]
fn wrong_key_and_forged_envelope() {
    let (sk, _) = publisher();
    let (_, other) = key(2, "someone else");
    let envelope = contract::sign_manifest(&golden_bytes(), &sk).unwrap();
    let v = contract::verify_manifest(&golden_bytes(), &envelope, &other, None).unwrap();
    assert_eq!(reasons(&v), ["wrong_key"]);
    assert!(v.refusals[0].to_string().contains("wrong key"));
    // The envelope claims the other key: the signature does not verify under it.
    let mut forged = envelope.clone();
    forged.key_id = other.key_id().to_owned();
    let v = contract::verify_manifest(&golden_bytes(), &forged, &other, None).unwrap();
    assert_eq!(reasons(&v), ["bad_signature"]);
    // Envelope fields are signed: changing the version in it breaks the signature.
    let (_, pk) = publisher();
    let mut bumped = envelope;
    bumped.contract_version = 9;
    let v = contract::verify_manifest(&golden_bytes(), &bumped, &pk, None).unwrap();
    assert!(reasons(&v).contains(&"bad_signature"), "{:?}", reasons(&v));
}

#[test]
fn rolled_back_version_is_refused() {
    let hash = contract::manifest_sha256(&golden_bytes()).unwrap();
    let newer = LastAccepted {
        contract_version: 5,
        manifest_sha256: "ab".repeat(32),
    };
    let v = verify(&golden_bytes(), Some(&newer));
    assert_eq!(reasons(&v), ["rollback"]);
    assert!(v.refusals[0].to_string().contains("rollback refused"));
    let same = LastAccepted {
        contract_version: 4,
        manifest_sha256: hash.clone(),
    };
    assert!(verify(&golden_bytes(), Some(&same)).is_verified());
    let reused = LastAccepted {
        contract_version: 4,
        manifest_sha256: "cd".repeat(32),
    };
    assert_eq!(
        reasons(&verify(&golden_bytes(), Some(&reused))),
        ["version_reused"]
    );
    let older = LastAccepted {
        contract_version: 3,
        manifest_sha256: "ef".repeat(32),
    };
    assert!(verify(&golden_bytes(), Some(&older)).is_verified());
}

const NOW: u64 = 1_767_300_000;

fn approvers(keys: &[&PublicKey], max_age: u64) -> TrustedApprovers {
    let approvers: Vec<Value> = keys
        .iter()
        .map(|k| {
            let file = k.to_file();
            json!({"name": file.name, "key_id": file.key_id, "public_key": file.public_key})
        })
        .collect();
    let file = json!({"format": "mcp-bastion-approvers/1", "threshold": 2,
                      "max_age_secs": max_age, "approvers": approvers});
    contract::parse_approvers(&serde_json::to_vec(&file).unwrap()).unwrap()
}

fn receipt(sk: &SecretKey, id: &str, issued: u64, expires: u64) -> ApprovalReceipt {
    let m = reviewed();
    let hash = contract::manifest_sha256(&golden_bytes()).unwrap();
    contract::approve_manifest(&m, &hash, sk, id, issued, expires).unwrap()
}

fn gate(receipts: &[ApprovalReceipt], trusted: &TrustedApprovers) -> Vec<&'static str> {
    let hash = contract::manifest_sha256(&golden_bytes()).unwrap();
    let check = contract::check_approvals(&reviewed(), &hash, receipts, trusted, NOW);
    let mut r: Vec<_> = check
        .refusals
        .iter()
        .map(contract::Refusal::reason)
        .collect();
    r.sort_unstable();
    r
}

#[test]
fn change_gate() {
    let (alice, alice_pub) = key(10, "alice");
    let (bob, bob_pub) = key(11, "bob");
    let (mallory, _) = key(12, "mallory");
    let trusted = approvers(&[&alice_pub, &bob_pub], 86_400);
    let fresh = |sk: &SecretKey, id: &str| receipt(sk, id, NOW - 3600, NOW + 86_400);

    let ok = [fresh(&alice, "a1"), fresh(&bob, "b1")];
    assert!(gate(&ok, &trusted).is_empty());
    let hash = contract::manifest_sha256(&golden_bytes()).unwrap();
    let check = contract::check_approvals(&reviewed(), &hash, &ok, &trusted, NOW);
    assert_eq!(check.approver_key_ids.len(), 2);
    assert_eq!(check.approval_ids, ["a1", "b1"]);

    // One approver twice.
    let twice = [fresh(&alice, "a1"), fresh(&alice, "a2")];
    assert_eq!(
        gate(&twice, &trusted),
        ["duplicate_approver", "too_few_approvers"]
    );
    // The same receipt twice.
    let copied = [fresh(&alice, "a1"), fresh(&alice, "a1")];
    assert_eq!(
        gate(&copied, &trusted),
        ["duplicate_approval_id", "too_few_approvers"]
    );
    // Stale (older than max_age), expired, issued in the future.
    let stale = [
        receipt(&alice, "a1", NOW - 2 * 86_400, NOW + 86_400),
        fresh(&bob, "b1"),
    ];
    assert_eq!(
        gate(&stale, &trusted),
        ["receipt_stale", "too_few_approvers"]
    );
    let expired = [
        receipt(&alice, "a1", NOW - 7200, NOW - 60),
        fresh(&bob, "b1"),
    ];
    assert_eq!(
        gate(&expired, &trusted),
        ["receipt_expired", "too_few_approvers"]
    );
    let future = [
        receipt(&alice, "a1", NOW + 3600, NOW + 7200),
        fresh(&bob, "b1"),
    ];
    assert_eq!(
        gate(&future, &trusted),
        ["receipt_not_yet_valid", "too_few_approvers"]
    );
    // Untrusted approver; a receipt edited after signing; one for another manifest.
    let untrusted = [fresh(&mallory, "m1"), fresh(&bob, "b1")];
    assert_eq!(
        gate(&untrusted, &trusted),
        ["too_few_approvers", "unknown_approver"]
    );
    let mut edited = fresh(&alice, "a1");
    edited.expires_at += 365 * 86_400;
    assert_eq!(
        gate(&[edited, fresh(&bob, "b1")], &trusted),
        ["receipt_signature", "too_few_approvers"]
    );
    let mut other = reviewed();
    other.source.contract_version = 5;
    let other_hash = contract::manifest_sha256(&contract::reviewed_bytes(&other)).unwrap();
    let elsewhere =
        contract::approve_manifest(&other, &other_hash, &alice, "a9", NOW - 60, NOW + 60).unwrap();
    assert_eq!(
        gate(&[elsewhere, fresh(&bob, "b1")], &trusted),
        ["receipt_not_bound", "too_few_approvers"]
    );
    // A threshold below two is refused in the file itself.
    let file = json!({"format": "mcp-bastion-approvers/1", "threshold": 1, "approvers": []});
    let err = contract::parse_approvers(&serde_json::to_vec(&file).unwrap()).unwrap_err();
    assert!(err.to_string().contains("below the minimum"), "{err}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    /// Any one-byte change of the signed manifest is either unreadable (an input error),
    /// refused, or leaves its canonical content, hence its hash, unchanged (whitespace).
    #[test]
    fn one_byte_changes_fail_closed(pos in 0usize..6000, byte in proptest::prelude::any::<u8>()) {
        let golden = golden_bytes();
        let mut bytes = golden.clone();
        let pos = pos % bytes.len();
        bytes[pos] = byte;
        let (sk, pk) = publisher();
        let envelope = contract::sign_manifest(&golden, &sk).unwrap();
        if let Ok(v) = contract::verify_manifest(&bytes, &envelope, &pk, None)
            && v.is_verified()
        {
            proptest::prop_assert_eq!(
                contract::manifest_sha256(&bytes).unwrap(),
                contract::manifest_sha256(&golden).unwrap()
            );
            proptest::prop_assert_eq!(v.manifest, reviewed());
        }
    }
}
