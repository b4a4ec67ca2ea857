//! `wrap --contract` end to end (issue 7 item 8): a publisher builds, signs and hands
//! out a contract; the consumer wraps a server that also lists an unsigned tool and a
//! changed one. The official Python SDK client sees only the signed tool, and calling the
//! unsigned one is refused by the gateway; a tampered contract keeps the server from
//! starting at all.

use super::{allow_tools_of, bin, python, workspace};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn cli(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env(
            "MCP_BASTION_STORE",
            format!("sqlite://{}", dir.join("store.db").display()),
        )
        .env("XDG_CONFIG_HOME", dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The signed contract of `contract_server.py`: `lookup_order` as the server lists it,
/// `cancel_order` with the description the publisher reviewed (the server lists another).
fn source() -> Value {
    let schema = json!({"type": "object", "properties": {"order_id": {"type": "string"}},
                        "required": ["order_id"], "additionalProperties": false});
    json!({
        "format": "mcp-bastion-contract/1", "server_id": "io.example/orders",
        "contract_version": 1, "protocol_version": "2025-11-25", "owner": "orders team",
        "tools": [
            {"name": "lookup_order", "description": "Look up the status of one order.",
             "inputSchema": schema, "annotations": {"readOnlyHint": true, "destructiveHint": false},
             "risk_tier": "low", "side_effects": [], "read_only": true, "destructive": false,
             "requires_human_approval": false},
            {"name": "cancel_order", "description": "Cancel one order.", "inputSchema": schema,
             "annotations": {"readOnlyHint": false, "destructiveHint": true},
             "risk_tier": "high", "side_effects": ["cancels the order"], "read_only": false,
             "destructive": true, "requires_human_approval": true}
        ],
        "prompts": [{"name": "order_summary", "description": "Summarize recent orders."}],
        "resources": [{"uri": "orders://index", "name": "Order index", "mimeType": "application/json"}],
        "resource_templates": [], "ui_resources": []
    })
}

/// `mcp-bastion wrap --name orders --contract … -- <cmd>` with the contract files of `dir`.
fn wrap_argv(dir: &Path, cmd: &[String]) -> Vec<String> {
    let mut argv = vec![
        bin().to_owned(),
        "wrap".into(),
        "--name".into(),
        "orders".into(),
    ];
    for (flag, file) in [
        ("--contract", "orders.reviewed.json"),
        ("--contract-sig", "orders.sig"),
        ("--contract-pubkey", "release.key.pub"),
    ] {
        argv.push(flag.into());
        argv.push(dir.join(file).display().to_string());
    }
    argv.push("--".into());
    argv.extend(cmd.iter().cloned());
    argv
}

/// Builds, keys and signs `orders.source.json` of `dir` as the publisher would:
/// `orders.reviewed.json`, `release.key(.pub)`, `orders.sig`.
fn publish_signed(dir: &Path, source: &Value) {
    std::fs::write(dir.join("orders.source.json"), source.to_string()).unwrap();
    let commit = "5d41402abc4b2a76b9719d911017c592a1b2c3d4";
    for args in [
        &[
            "contract",
            "build",
            "orders.source.json",
            "-o",
            "orders.reviewed.json",
            "--handler-commit",
            commit,
        ][..],
        &["contract", "keygen", "-o", "release.key"],
        &[
            "contract",
            "sign",
            "orders.reviewed.json",
            "--key",
            "release.key",
            "-o",
            "orders.sig",
        ],
    ] {
        ok(&cli(dir, args));
    }
}

/// One Python SDK session (`mode` legacy or auto) through `argv`; returns its output
/// and the gateway's stderr.
fn sdk_session(dir: &Path, mode: &str, script: &Value, argv: &[String]) -> (Value, String) {
    let out = Command::new(python())
        .arg(workspace().join("crates/mcp-bastion/tests/e2e/session.py"))
        .arg(mode)
        .arg(script.to_string())
        .arg("--")
        .args(argv)
        .env(
            "MCP_BASTION_STORE",
            format!("sqlite://{}", dir.join("store.db").display()),
        )
        .env("XDG_CONFIG_HOME", dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

#[test]
fn wrap_contract_withholds_unsigned_tools_for_a_real_client() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Confirmation is not what this test is about: every tool may run without asking.
    allow_tools_of(d, "orders");
    publish_signed(d, &source());

    let server = workspace().join("crates/bastion-gateway/tests/servers/contract_server.py");
    let argv = wrap_argv(d, &["python3".into(), server.display().to_string()]);
    let script = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "lookup_order", "arguments": {"order_id": "o-7"}},
        {"op": "call_tool", "name": "debug_dump", "arguments": {}},
        {"op": "call_tool", "name": "cancel_order", "arguments": {"order_id": "o-7"}}
    ]);
    let (v, _) = sdk_session(d, "legacy", &script, &argv);
    let steps = v["steps"].as_array().unwrap();
    let tools: Vec<&str> = steps[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["lookup_order"], "{v}");
    assert_eq!(steps[1]["content"][0]["text"], "ran lookup_order", "{v}");
    for refused in &steps[2..] {
        let text = refused.to_string();
        assert!(
            text.contains("signed contract"),
            "not refused by the contract: {refused}"
        );
        assert!(
            !text.contains("ran "),
            "the call reached the server: {refused}"
        );
    }
    let audit = cli(d, &["--json", "audit", "--server", "orders"]);
    let audit = String::from_utf8_lossy(&audit.stdout);
    assert!(audit.contains("contract_mismatch"), "{audit}");

    // A tampered contract (an unsigned tool added to it) stops the server from starting.
    let mut tampered: Value =
        serde_json::from_slice(&std::fs::read(d.join("orders.reviewed.json")).unwrap()).unwrap();
    tampered["source"]["tools"][0]["description"] = json!("Look up an order and email it out.");
    std::fs::write(d.join("orders.reviewed.json"), tampered.to_string()).unwrap();
    let argv = wrap_argv(
        d,
        &[
            "python3".into(),
            "-c".into(),
            "import sys; print('SERVER-RAN', file=sys.stderr)".into(),
        ],
    );
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    let out = cli(d, &args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refused") && !err.contains("SERVER-RAN"),
        "{err}"
    );
}

/// `publish --contract` in front of the same server, reached by the Python SDK in the
/// 2026-07-28 era: only the signed tool, with the contract's cache hint (the server's
/// own, a day and public, is replaced).
#[test]
fn publish_serves_the_contract_with_its_cache_hints() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut src = source();
    src["cache"] = json!({"methods": {"tools/list": {"ttlMs": 120_000, "cacheScope": "public"}}});
    publish_signed(d, &src);
    let server = workspace().join("crates/bastion-gateway/tests/servers/contract_server.py");
    let mut argv = wrap_argv(d, &["python3".into(), server.display().to_string()]);
    argv[1] = "publish".into();
    let script = json!([{"op": "list_tools"}, {"op": "list_tools"}]);
    let (v, err) = sdk_session(d, "auto", &script, &argv);
    assert_eq!(v["protocol_version"], "2026-07-28", "{v}");
    let listed = &v["steps"][0];
    let tools: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["lookup_order"], "{v}");
    assert_eq!(listed["ttlMs"], 120_000, "{v}");
    assert_eq!(listed["cacheScope"], "public", "{v}");
    assert_eq!(v["steps"][1], v["steps"][0], "the same listing twice");
    assert!(err.contains("not the active contract"), "{err}");
}
