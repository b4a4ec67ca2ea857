//! Contract manifests (issue 7 §1–§5) against the fixtures in `tests/fixtures/contract/`:
//! golden canonical forms and hashes, live descriptors hashing to their entries, and
//! every tamper kind failing closed.
//!
//! Golden files are compared byte for byte; after an intended format change, rewrite
//! them with `BASTION_BLESS=1 cargo test -p bastion-core --test core contract` and review
//! the diff.

use bastion_core::contract::{
    self, ContractEntry, EntryKind, ReviewedManifest, SourceManifest, live_contract_hash, live_key,
};
use bastion_core::pins::canonical_json;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

mod build;
mod diff;
mod tamper;

/// Fixed build inputs of the golden reviewed manifest.
pub(crate) const COMMIT: &str = "3f9c1e0b7a5d2c4e6f8091a2b3c4d5e6f7a8b9c0";
pub(crate) const BUILT_AT: u64 = 1_767_225_600;

pub(crate) fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/contract")
}

pub(crate) fn read(name: &str) -> Vec<u8> {
    let path = dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Compares `actual` with the golden file `name`, or rewrites it under `BASTION_BLESS=1`.
pub(crate) fn golden(name: &str, actual: &[u8]) {
    let path = dir().join(name);
    if std::env::var_os("BASTION_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; expected:\n{}\nactual:\n{}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(actual)
    );
}

pub(crate) fn source() -> (SourceManifest, Vec<u8>) {
    let bytes = read("notes.source.json");
    (contract::parse_source(&bytes).unwrap(), bytes)
}

/// The golden reviewed manifest's bytes.
pub(crate) fn golden_bytes() -> Vec<u8> {
    read("notes.reviewed.json")
}

pub(crate) fn reviewed() -> ReviewedManifest {
    let (src, bytes) = source();
    contract::reviewed_manifest(src, &bytes, COMMIT, BUILT_AT).unwrap()
}

/// The published form of every entry, its RFC 8785 text and both hashes, plus the
/// manifest hash: one golden file a second implementation can be checked against.
#[test]
fn golden_canonical_forms_and_hashes() {
    let (src, _) = source();
    let reviewed = reviewed();
    let bytes = contract::reviewed_bytes(&reviewed);
    golden("notes.reviewed.json", &bytes);
    let mut lines = Vec::new();
    let published: Vec<(EntryKind, String, Value)> = src
        .tools
        .iter()
        .map(|t| (EntryKind::Tool, t.name.clone(), t.published()))
        .chain(
            src.prompts
                .iter()
                .map(|p| (EntryKind::Prompt, p.name.clone(), p.published())),
        )
        .chain(
            src.resources
                .iter()
                .map(|r| (EntryKind::Resource, r.uri.clone(), r.published())),
        )
        .chain(src.resource_templates.iter().map(|t| {
            (
                EntryKind::ResourceTemplate,
                t.uri_template.clone(),
                t.published(),
            )
        }))
        .collect();
    for (kind, key, value) in &published {
        let entry = reviewed
            .entries
            .iter()
            .find(|e| e.kind == *kind && &e.key == key)
            .unwrap();
        lines.push(json!({
            "kind": kind.as_str(), "key": key,
            "canonical": canonical_json(value).unwrap(),
            "contract_hash": entry.contract_hash, "review_hash": entry.review_hash,
        }));
    }
    lines.push(json!({"manifest_sha256": contract::manifest_sha256(&bytes).unwrap()}));
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(&line).unwrap());
        text.push('\n');
    }
    golden("notes.hashes.jsonl", text.as_bytes());
}

/// A known SHA-256 pins the hash function itself, not only self-consistency.
#[test]
fn contract_hash_is_sha256_of_rfc8785_text() {
    let v = json!({"name": "t", "inputSchema": {"type": "object", "additionalProperties": false}});
    // sha256('{"inputSchema":{"additionalProperties":false,"type":"object"},"name":"t"}')
    let text = canonical_json(&v).unwrap();
    assert_eq!(
        text,
        r#"{"inputSchema":{"additionalProperties":false,"type":"object"},"name":"t"}"#
    );
    assert_eq!(
        live_contract_hash(&v).unwrap(),
        bastion_core::pins::sha256_hex(text.as_bytes())
    );
}

fn live(list: &str, kind: EntryKind) -> Vec<Value> {
    let all: Value = serde_json::from_slice(&read("notes.live-lists.json")).unwrap();
    let items = all[list].as_array().unwrap().clone();
    assert!(!items.is_empty(), "{list}");
    let _ = kind;
    items
}

const LISTS: [(&str, EntryKind); 4] = [
    ("tools", EntryKind::Tool),
    ("prompts", EntryKind::Prompt),
    ("resources", EntryKind::Resource),
    ("resourceTemplates", EntryKind::ResourceTemplate),
];

fn recorded(reviewed: &ReviewedManifest, kind: EntryKind, key: &str) -> String {
    reviewed
        .entries
        .iter()
        .find(|e| e.kind == kind && e.key == key)
        .unwrap_or_else(|| panic!("no entry {kind:?} {key}"))
        .contract_hash
        .clone()
}

/// Live descriptors with other member order, whitespace and `200.0` for `200` hash to
/// the signed entries; every entry of the contract is matched.
#[test]
fn live_descriptors_hash_to_their_entries() {
    let reviewed = reviewed();
    let mut matched = 0;
    for (list, kind) in LISTS {
        for item in live(list, kind) {
            let key = live_key(kind, &item).unwrap();
            assert_eq!(
                live_contract_hash(&item).unwrap(),
                recorded(&reviewed, kind, key),
                "{list} {key}"
            );
            matched += 1;
        }
    }
    let listed = reviewed
        .entries
        .iter()
        .filter(|e| e.kind != EntryKind::UiResource)
        .count();
    assert_eq!(matched, listed);
}

/// One changed word, an extra member, a missing member or a changed schema bound
/// gives another hash.
#[test]
fn live_descriptor_changes_change_the_hash() {
    let reviewed = reviewed();
    let tool = live("tools", EntryKind::Tool)[1].clone();
    let signed = recorded(&reviewed, EntryKind::Tool, "delete_note");
    let mut variants = Vec::new();
    let mut v = tool.clone();
    v["description"] = json!("Permanently delete one note. The note can be restored.");
    variants.push(("description", v));
    let mut v = tool.clone();
    v["inputSchema"]["properties"]["reason"]["maxLength"] = json!(2000);
    variants.push(("schema bound", v));
    let mut v = tool.clone();
    v["annotations"]["destructiveHint"] = json!(false);
    variants.push(("annotation", v));
    let mut v = tool.clone();
    v["x-extra"] = json!("unsigned member");
    variants.push(("extra member", v));
    let mut v = tool.clone();
    v.as_object_mut().unwrap().remove("_meta");
    variants.push(("missing member", v));
    let mut v = tool;
    v["inputSchema"]["additionalProperties"] = json!(true);
    variants.push(("open schema", v));
    for (what, v) in variants {
        assert_ne!(live_contract_hash(&v).unwrap(), signed, "{what}");
    }
}

/// Governance fields are not published but still bound by `review_hash`.
#[test]
fn governance_changes_change_the_review_hash_only() {
    let (mut src, bytes) = source();
    let before = contract::entry_hash(&src.tools[1]).unwrap();
    src.tools[1].requires_human_approval = false;
    let after = contract::entry_hash(&src.tools[1]).unwrap();
    assert_eq!(before.contract_hash, after.contract_hash);
    assert_ne!(before.review_hash, after.review_hash);
    let r = contract::reviewed_manifest(src, &bytes, COMMIT, BUILT_AT).unwrap();
    assert_ne!(r, reviewed());
}

/// The golden source satisfies every build invariant.
#[test]
fn golden_source_passes_the_invariants() {
    let (src, _) = source();
    let findings = contract::check_invariants(&src);
    assert!(findings.is_empty(), "{findings:#?}");
}

/// An edit of a manifest value.
type Edit = fn(&mut Value);

/// `docs/contract.schema.json` describes what the parser accepts: every source fixture
/// and the golden reviewed manifest validate, and each kind of breach is rejected.
#[test]
fn documented_json_schema_matches_the_format() {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/contract.schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(schema_path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut docs: Vec<(String, Value)> = [
        "notes.source.json",
        "notes.v5.source.json",
        "notes.reviewed.json",
    ]
    .iter()
    .map(|n| ((*n).to_owned(), serde_json::from_slice(&read(n)).unwrap()))
    .collect();
    for entry in std::fs::read_dir(dir().join("build")).unwrap() {
        let path = entry.unwrap().path();
        let fx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        // Sources the parser reads (invariant breaches are findings, not format errors);
        // the schema's own pattern rules are stricter for names and versions.
        if contract::parse_source(&serde_json::to_vec(&fx["source"]).unwrap()).is_ok()
            && fx["expect"] == "allow"
        {
            docs.push((path.display().to_string(), fx["source"].clone()));
        }
    }
    for (name, doc) in &docs {
        let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
    let (_, golden) = &docs[0];
    let breaches: [(&str, Edit); 4] = [
        ("unknown member", |v| {
            v["tools"][0]["readonly"] = json!(true);
        }),
        ("version zero", |v| v["contract_version"] = json!(0)),
        ("open schema", |v| {
            v["tools"][0]["inputSchema"]["additionalProperties"] = json!(true);
        }),
        ("bad risk tier", |v| {
            v["tools"][0]["risk_tier"] = json!("extreme");
        }),
    ];
    for (what, edit) in breaches {
        let mut v = golden.clone();
        edit(&mut v);
        assert!(!validator.is_valid(&v), "{what} validates");
    }
}
