//! `contract build --ui-root` (issue 7 §6): UI content files are read below the root
//! without following symlinks, hashed into the reviewed manifest, and refused when they
//! escape the root, are symlinks or exceed the policy's size.

use super::workspace;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn build(dir: &Path, extra: &[&str]) -> Output {
    let source = workspace().join("crates/bastion-core/tests/fixtures/contract/notes.source.json");
    Command::new(env!("CARGO_BIN_EXE_mcp-bastion"))
        .args(["--json", "contract", "build"])
        .arg(&source)
        .args(["-o", "r.json", "--handler-commit", &"c".repeat(40)])
        .args(extra)
        .current_dir(dir)
        .env(
            "MCP_BASTION_STORE",
            format!("sqlite://{}", dir.join("s.db").display()),
        )
        .env("XDG_CONFIG_HOME", dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn codes(out: &Output) -> Vec<String> {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn ui_content_is_hashed_and_confined() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = d.join("ui");
    std::fs::create_dir_all(root.join("delete-confirm")).unwrap();
    let html = b"<!doctype html><p>Delete this note?</p>";
    std::fs::write(root.join("delete-confirm/index.html"), html).unwrap();
    let out = build(d, &["--ui-root", root.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let reviewed: Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    let content = &reviewed["source"]["ui_resources"][0]["content"];
    assert_eq!(content["size"], html.len());
    assert_eq!(content["sha256"].as_str().unwrap().len(), 64);

    // Over the policy's size limit.
    std::fs::write(d.join("policy.json"), br#"{"max_ui_bytes": 16}"#).unwrap();
    let out = build(
        d,
        &[
            "--ui-root",
            root.to_str().unwrap(),
            "--ui-policy",
            "policy.json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(codes(&out).contains(&"ui_content_refused".to_owned()));

    // A symlinked folder pointing out of the root.
    let outside = d.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("index.html"), html).unwrap();
    std::fs::remove_dir_all(root.join("delete-confirm")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("delete-confirm")).unwrap();
    let out = build(d, &["--ui-root", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(codes(&out).contains(&"ui_content_refused".to_owned()));

    // An unusable root is an input error.
    let out = build(d, &["--ui-root", d.join("missing").to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
