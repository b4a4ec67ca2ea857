//! Keys, identities and change classification.

use crate::detect::DescriptorKind;
use crate::pins::{
    Change, CurrentItem, DescriptorKey, KeyError, LaunchConfig, PinnedItem, ServerIdentity,
    body_hash, compare, descriptor_hash, env_digest,
};
use serde_json::{Value, json};

fn tool(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "inputSchema": {"type": "object"}})
}

fn item(d: &Value) -> CurrentItem {
    CurrentItem::of(DescriptorKind::Tool, d).unwrap()
}

fn pins(ds: &[Value]) -> Vec<PinnedItem> {
    ds.iter().map(|d| item(d).pin()).collect()
}

#[test]
fn keys_by_kind() {
    let k = |kind, v: Value| DescriptorKey::of(kind, &v);
    assert_eq!(
        k(DescriptorKind::Tool, json!({"name": "a"})).unwrap().key,
        "a"
    );
    assert_eq!(
        k(DescriptorKind::Prompt, json!({"name": "p"})).unwrap().key,
        "p"
    );
    assert_eq!(
        k(
            DescriptorKind::Resource,
            json!({"uri": "file:///x", "name": "n"})
        )
        .unwrap()
        .key,
        "file:///x"
    );
    assert_eq!(
        k(
            DescriptorKind::ResourceTemplate,
            json!({"uriTemplate": "db://{t}", "name": "n"})
        )
        .unwrap()
        .key,
        "db://{t}"
    );
    assert_eq!(
        k(DescriptorKind::ServerInstructions, json!("Use me."))
            .unwrap()
            .key,
        DescriptorKey::INSTRUCTIONS
    );
    assert_eq!(
        k(DescriptorKind::Resource, json!({"name": "n"})).unwrap_err(),
        KeyError::MissingKey {
            kind: DescriptorKind::Resource,
            member: "uri"
        }
    );
    assert_eq!(
        k(DescriptorKind::Resource, json!({"name": "n"}))
            .unwrap_err()
            .to_string(),
        "resource has no string `uri`"
    );
    assert_eq!(
        k(DescriptorKind::ServerInstructions, json!(1)).unwrap_err(),
        KeyError::InstructionsNotString
    );
    let key = DescriptorKey::new(DescriptorKind::ResourceTemplate, "a\u{202e}b");
    assert_eq!(key.to_string(), "resource template `a<U+202E>b`");
    assert_eq!(
        serde_json::to_value(&key).unwrap(),
        json!({"kind": "resource_template", "key": "a\u{202e}b"})
    );
}

#[test]
fn key_order_is_kind_then_key() {
    let mut keys = [
        DescriptorKey::new(DescriptorKind::Resource, "a"),
        DescriptorKey::new(DescriptorKind::Tool, "b"),
        DescriptorKey::new(DescriptorKind::Tool, "a"),
    ];
    keys.sort();
    let names: Vec<_> = keys.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["tool `a`", "tool `b`", "resource `a`"]);
}

#[test]
fn body_hash_ignores_the_key_member_only() {
    let a = tool("a", "same");
    let b = tool("b", "same");
    let kind = DescriptorKind::Tool;
    assert_ne!(descriptor_hash(&a).unwrap(), descriptor_hash(&b).unwrap());
    assert_eq!(body_hash(kind, &a).unwrap(), body_hash(kind, &b).unwrap());
    assert_ne!(
        body_hash(kind, &a).unwrap(),
        body_hash(kind, &tool("a", "other")).unwrap()
    );
    let r1 = json!({"uri": "file:///a", "name": "x"});
    let r2 = json!({"uri": "file:///b", "name": "x"});
    let kind = DescriptorKind::Resource;
    assert_eq!(body_hash(kind, &r1).unwrap(), body_hash(kind, &r2).unwrap());
}

#[test]
fn classification() {
    let pinned = pins(&[
        tool("keep", "k"),
        tool("edit", "v1"),
        tool("old_name", "moved"),
        tool("gone", "g"),
    ]);
    let current = [
        tool("keep", "k"),
        tool("edit", "v2"),
        tool("new_name", "moved"),
        tool("fresh", "f"),
    ]
    .iter()
    .map(item)
    .collect::<Vec<_>>();
    let changes = compare(&pinned, &current);
    let kinds: Vec<&str> = changes
        .iter()
        .map(|c| match c {
            Change::New { .. } => "new",
            Change::Unchanged { .. } => "unchanged",
            Change::Changed { .. } => "changed",
            Change::Renamed { .. } => "renamed",
            Change::Removed { .. } => "removed",
        })
        .collect();
    assert_eq!(kinds, ["unchanged", "changed", "renamed", "new", "removed"]);
    let Change::Renamed { from, to, .. } = &changes[2] else {
        panic!()
    };
    assert_eq!(
        (from.key.as_str(), to.key.as_str()),
        ("old_name", "new_name")
    );
    assert_eq!(changes[4].key().key, "gone");
    assert!(changes[1].needs_review() && changes[2].needs_review());
    assert!(!changes[0].needs_review() && !changes[3].needs_review() && !changes[4].needs_review());
    let json = serde_json::to_value(&changes[1]).unwrap();
    assert_eq!(json["change"], "changed");
    assert_eq!(json["key"], json!({"kind": "tool", "key": "edit"}));
    assert_eq!(json["old_hash"], pinned[1].hash.as_str());
}

#[test]
fn rename_needs_the_old_key_to_vanish_and_the_same_kind() {
    // Same body under a new name while the old one stays: a new item, not a rename.
    let pinned = pins(&[tool("a", "x")]);
    let current = vec![item(&tool("a", "x")), item(&tool("b", "x"))];
    let changes = compare(&pinned, &current);
    assert!(matches!(changes[1], Change::New { .. }));
    // A prompt with the same body as a vanished tool is not a rename of it.
    let prompt = CurrentItem::of(DescriptorKind::Prompt, &tool("p", "x")).unwrap();
    let changes = compare(&pinned, &[prompt]);
    assert!(matches!(changes[0], Change::New { .. }));
    assert!(matches!(changes[1], Change::Removed { .. }));
    // Two vanished twins, one renamed: the first pin is taken, the other is removed.
    let pinned = pins(&[tool("t1", "twin"), tool("t2", "twin")]);
    let changes = compare(&pinned, &[item(&tool("t3", "twin"))]);
    assert!(matches!(&changes[0], Change::Renamed { from, .. } if from.key == "t1"));
    assert!(matches!(&changes[1], Change::Removed { key, .. } if key.key == "t2"));
    assert_eq!(changes.len(), 2);
}

#[test]
fn empty_sides() {
    assert!(compare(&[], &[]).is_empty());
    let all_new = compare(&[], &[item(&tool("a", "x"))]);
    assert!(matches!(all_new[0], Change::New { .. }));
    let all_removed = compare(&pins(&[tool("a", "x")]), &[]);
    assert!(matches!(all_removed[0], Change::Removed { .. }));
}

#[test]
fn instructions_are_one_item() {
    let a = CurrentItem::of(DescriptorKind::ServerInstructions, &json!("v1")).unwrap();
    let b = CurrentItem::of(DescriptorKind::ServerInstructions, &json!("v2")).unwrap();
    let changes = compare(&[a.pin()], &[b]);
    assert!(matches!(changes[0], Change::Changed { .. }));
    assert_eq!(changes.len(), 1);
}

#[test]
fn server_identity_hashes_env_values() {
    let mut cfg = LaunchConfig {
        name: "mail".into(),
        command: Some("npx".into()),
        args: vec!["-y".into(), "postmark-mcp@1.0.15".into()],
        ..LaunchConfig::default()
    };
    cfg.env.insert("API_TOKEN".into(), "s3cr3t-value".into());
    let fp = cfg.fingerprint();
    assert_eq!(fp.env["API_TOKEN"], env_digest("s3cr3t-value"));
    let text = serde_json::to_string(&fp.to_value()).unwrap();
    assert!(!text.contains("s3cr3t"), "{text}");
    assert_eq!(
        fp.to_value(),
        json!({"command": "npx", "args": ["-y", "postmark-mcp@1.0.15"], "env": {"API_TOKEN": env_digest("s3cr3t-value")}})
    );
    let id = ServerIdentity::of(&cfg).unwrap();
    assert_eq!(id.name, "mail");
    assert_eq!(id.launch_hash, descriptor_hash(&fp.to_value()).unwrap());
    // Any change of command, args or env value changes the identity.
    let mut other = cfg.clone();
    other.env.insert("API_TOKEN".into(), "rotated".into());
    assert_ne!(ServerIdentity::of(&other).unwrap(), id);
    let mut other = cfg.clone();
    other.args.swap(0, 1);
    assert_ne!(ServerIdentity::of(&other).unwrap(), id);
    // Remote servers: {url} only.
    let remote = LaunchConfig {
        name: "r".into(),
        url: Some("https://mcp.example.com/mcp".into()),
        ..LaunchConfig::default()
    };
    assert_eq!(
        remote.fingerprint().to_value(),
        json!({"url": "https://mcp.example.com/mcp"})
    );
    // Parsing the corpus shape.
    let parsed: LaunchConfig = serde_json::from_value(json!({
        "name": "lint-server", "command": "node", "args": ["./tools/lint-mcp.js"], "env": {}
    }))
    .unwrap();
    assert_eq!(parsed.command.as_deref(), Some("node"));
}
