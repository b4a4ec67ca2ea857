//! Interop (issue 8): the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, installed by `scripts/test-deps.sh`) run as
//! `conformance server --url` against server-everything's own Streamable HTTP transport,
//! and against `mcp-bastion serve -- <server-everything in stdio mode>`. Every check that
//! passes directly must pass through `serve`, with one documented class of exception.
//!
//! The exception: the suite calls tools its own reference server has (`test_simple_text`,
//! `test_error_handling`, ...). server-everything has none of them and answers such a
//! call with an `isError` result, which the two lenient checks `tools-call-simple-text`
//! and `tools-call-error` count as a pass. Bastion lists the server's tools itself when a
//! host calls a tool it never listed, finds the tool missing and refuses the call
//! (`tool_not_listed`, MCP 2025-11-25 "Tools §Error Handling": an unknown tool is a
//! protocol error): a server's unlisted tools were never checked. Those two checks must
//! fail for exactly that reason.

use super::remote::http_everything;
use super::serve::Served;
use super::{allow_tools_of, deps, everything};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Checks (`scenario/check-id`) whose pass directly is server-everything answering a
/// tool it does not have; through Bastion they fail with `tool_not_listed`.
const UNLISTED_TOOL_CHECKS: [&str; 2] = [
    "tools-call-simple-text/tools-call-simple-text",
    "tools-call-error/tools-call-error",
];

/// Outcome of every check of one suite run: `scenario/check-id` → (status, error message).
type Checks = BTreeMap<String, (String, String)>;

/// Runs the active suite against `url` (with the listener's token when `bearer` is
/// given) and reads the per-scenario `checks.json` files it writes.
fn run_suite(url: &str, bearer: Option<&str>, out: &Path) -> Checks {
    let node_modules = deps().join("node/node_modules");
    let mut cmd = Command::new(node_modules.join(".bin/conformance"));
    cmd.args(["server", "--url", url, "-o"]).arg(out);
    if let Some(token) = bearer {
        let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/bearer_preload.cjs");
        cmd.env("CONFORMANCE_BEARER", token)
            .env("NODE_PATH", &node_modules)
            .env("NODE_OPTIONS", format!("--require {}", preload.display()));
    }
    let run = cmd.output().expect("the conformance suite runs");
    let printed = String::from_utf8_lossy(&run.stdout);
    assert!(
        printed.contains("Total:"),
        "the suite did not finish against {url}: {printed}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut checks = Checks::new();
    for dir in std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()) {
        // `server-<scenario>-<YYYY-MM-DDTHH-MM-SS-mmmZ>`: six dash-separated parts of
        // timestamp after the scenario.
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let scenario = name
            .strip_prefix("server-")
            .and_then(|n| n.rsplitn(7, '-').nth(6))
            .unwrap_or_else(|| panic!("unexpected result directory {name}"))
            .to_owned();
        let text = std::fs::read_to_string(dir.join("checks.json")).unwrap();
        let list: Vec<Value> = serde_json::from_str(&text).unwrap();
        for c in list {
            let id = c["id"].as_str().unwrap_or_default();
            let status = c["status"].as_str().unwrap_or_default().to_owned();
            let message = c["errorMessage"].as_str().unwrap_or_default().to_owned();
            checks.insert(format!("{scenario}/{id}"), (status, message));
        }
    }
    assert!(!checks.is_empty(), "no checks.json under {}", out.display());
    checks
}

fn passed(checks: &Checks) -> BTreeSet<&str> {
    checks
        .iter()
        .filter(|(_, (status, _))| status == "SUCCESS")
        .map(|(k, _)| k.as_str())
        .collect()
}

#[test]
fn conformance_suite_through_serve_passes_what_direct_passes() {
    let dir = tempfile::tempdir().unwrap();
    let direct = {
        let server = http_everything();
        run_suite(&server.url, None, &dir.path().join("direct"))
    };
    // The user trusts server-everything's tools: the suite measures the protocol, not
    // the approval prompts (confirmation has its own tests).
    allow_tools_of(dir.path(), "everything");
    let served = Served::start(dir.path(), "everything", &everything());
    let bastion = run_suite(
        &served.url.replace("127.0.0.1", "localhost"),
        Some(&served.token),
        &dir.path().join("serve"),
    );
    drop(served);

    let direct_pass = passed(&direct);
    let bastion_pass = passed(&bastion);
    eprintln!(
        "conformance: direct {} of {} checks passed, through serve {} of {}",
        direct_pass.len(),
        direct.len(),
        bastion_pass.len(),
        bastion.len()
    );
    assert!(
        direct_pass.len() >= 10,
        "the direct run passed too little to compare: {direct:#?}"
    );
    for check in &direct_pass {
        if UNLISTED_TOOL_CHECKS.contains(check) {
            let (status, message) = &bastion[*check];
            assert!(
                status == "FAILURE" && message.contains("not among the tools"),
                "{check}: expected the tool_not_listed refusal, got {status} {message}"
            );
            continue;
        }
        assert!(
            bastion_pass.contains(check),
            "{check} passes directly but not through serve: {:?}",
            bastion.get(*check)
        );
    }
    // The listener's own protection: a rebound Host is refused, its own origin accepted.
    for check in [
        "dns-rebinding-protection/localhost-host-rebinding-rejected",
        "dns-rebinding-protection/localhost-host-valid-accepted",
    ] {
        assert!(
            bastion_pass.contains(check),
            "{check}: {:?}",
            bastion.get(check)
        );
    }
}
