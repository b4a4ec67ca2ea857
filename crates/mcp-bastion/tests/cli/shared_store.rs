//! Several gateways on one store (issue 8 item 5): two `mcp-bastion wrap` processes in
//! front of the rug-pull server, on one `SQLite` file and on one `PostgreSQL` database.
//! A pin approved with `mcp-bastion pins approve` on the shared store is enforced by
//! both running gateways within one second, a revocation too, and the audit events of
//! both land in one table, each with its own instance id.
//!
//! The consent race (20 concurrent consumptions through two store handles, exactly one
//! wins) is in `bastion-store`'s tests, on both backends.

use super::{WrapHost, allow_tools_of, rug_server, run_at, testdb};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// How soon a decision made on the shared store must reach every running gateway.
const PROPAGATION: Duration = Duration::from_secs(1);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn two_gateways_share_pins_and_audit_on_sqlite() {
    two_gateways_share_pins_and_audit(&testdb::sqlite());
}

#[test]
fn two_gateways_share_pins_and_audit_on_postgres() {
    let rt = runtime();
    let Some(db) = rt.block_on(testdb::postgres()) else {
        return;
    };
    two_gateways_share_pins_and_audit(&db);
    rt.block_on(db.remove());
}

/// A `wrap --name rug` gateway on `url`, started (not yet initialized).
fn gateway(url: &str, home: &Path) -> WrapHost {
    let server = rug_server();
    let mut args = vec!["wrap", "--name", "rug", "--"];
    args.extend(server.iter().map(String::as_str));
    WrapHost::start_at(&args, url, home)
}

/// Sends `tools/list` to every host first, then reads the answers: the gateways pin
/// what they see concurrently.
fn list_concurrently(hosts: [&mut WrapHost; 2]) -> Vec<Vec<String>> {
    let frame = json!({"jsonrpc": "2.0", "id": "concurrent-list", "method": "tools/list"});
    let mut hosts = hosts;
    for host in &mut hosts {
        host.send(&frame);
    }
    hosts
        .into_iter()
        .map(|host| {
            loop {
                let m = host.recv();
                if m["id"] == "concurrent-list" {
                    let mut names: Vec<String> = m["result"]["tools"]
                        .as_array()
                        .unwrap_or_else(|| panic!("{m}"))
                        .iter()
                        .map(|t| t["name"].as_str().unwrap().to_owned())
                        .collect();
                    names.sort();
                    break names;
                }
            }
        })
        .collect()
}

/// Makes the gateway's server change `get_invoice` (and add `export_all`), and waits
/// until the gateway relayed the server's `list_changed`.
fn rug_pull(host: &mut WrapHost) {
    let (_, mut notes) = host.request("tools/call", json!({"name": "rug_pull", "arguments": {}}));
    while !notes
        .iter()
        .any(|n| n["method"] == "notifications/tools/list_changed")
    {
        notes.push(host.recv());
    }
}

/// Waits for the gateway's next `notifications/tools/list_changed`; returns how long
/// after `since` it arrived.
fn list_changed_after(host: &mut WrapHost, since: Instant) -> Duration {
    loop {
        if host.recv()["method"] == "notifications/tools/list_changed" {
            return since.elapsed();
        }
    }
}

fn call_invoice(host: &mut WrapHost) -> Value {
    host.request(
        "tools/call",
        json!({"name": "get_invoice", "arguments": {"id": "7"}}),
    )
    .0
}

/// Runs a CLI command on the shared store; it must exit 0. Returns its stdout.
fn cli(args: &[&str], url: &str, home: &Path) -> String {
    let out = run_at(args, "", url, home);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn two_gateways_share_pins_and_audit(db: &testdb::TestDb) {
    let home = tempfile::tempdir().unwrap();
    allow_tools_of(home.path(), "rug");
    let url = db.url.as_str();

    // Both start at once on a fresh store (the launch config is pinned by whichever
    // writes first; the other finds it) and list at once: the server's tools are pinned
    // on first sight (tofu) by one, found approved by the other (same launch config,
    // same identity), shown by both.
    let mut a = gateway(url, home.path());
    let mut b = gateway(url, home.path());
    a.initialize();
    b.initialize();
    for names in list_concurrently([&mut a, &mut b]) {
        assert_eq!(names, ["get_invoice", "rug_pull"]);
    }
    let pids = [a.child.id(), b.child.id()];

    // Both servers change get_invoice: withheld by both until someone approves.
    for host in [&mut a, &mut b] {
        rug_pull(host);
        assert_eq!(host.tool_names(), ["export_all", "rug_pull"]);
        let refused = call_invoice(host);
        assert_eq!(
            refused["error"]["data"]["reason"], "pending_review",
            "{refused}"
        );
    }
    let pending: Vec<Value> = cli(
        &[
            "--json", "pins", "list", "--server", "rug", "--state", "pending",
        ],
        url,
        home.path(),
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!(pending.len(), 1, "{pending:?}");
    let id = pending[0]["id"].as_i64().unwrap().to_string();

    // Approved on the shared store: both gateways release it within one second.
    cli(&["pins", "approve", &id], url, home.path());
    let approved = Instant::now();
    for host in [&mut a, &mut b] {
        let took = list_changed_after(host, approved);
        eprintln!("approval reached a gateway after {took:?}");
        assert!(took <= PROPAGATION, "approval took {took:?}");
    }
    for host in [&mut a, &mut b] {
        assert_eq!(host.tool_names(), ["export_all", "get_invoice", "rug_pull"]);
        let answer = call_invoice(host);
        assert_eq!(
            answer["result"]["content"][0]["text"], "invoice 7",
            "{answer}"
        );
    }

    // Revoked on the shared store: both withhold it again within one second.
    cli(&["pins", "revoke", &id], url, home.path());
    let revoked = Instant::now();
    for host in [&mut a, &mut b] {
        let took = list_changed_after(host, revoked);
        eprintln!("revocation reached a gateway after {took:?}");
        assert!(took <= PROPAGATION, "revocation took {took:?}");
    }
    for host in [&mut a, &mut b] {
        assert_eq!(host.tool_names(), ["export_all", "rug_pull"]);
        assert!(call_invoice(host).get("error").is_some());
    }
    a.close();
    b.close();

    // One audit table, both instances, each event with the id of the process that
    // recorded it (`<host>-<pid>-<random>`).
    let events: Vec<Value> = cli(
        &["--json", "audit", "--server", "rug", "--limit", "10000"],
        url,
        home.path(),
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let mut instances: Vec<&str> = events
        .iter()
        .map(|e| e["instance"].as_str().expect("every event has an instance"))
        .collect();
    instances.sort_unstable();
    instances.dedup();
    assert_eq!(instances.len(), 2, "{instances:?}");
    for pid in pids {
        let marker = format!("-{pid}-");
        let of_pid = instances.iter().filter(|i| i.contains(&marker)).count();
        assert_eq!(of_pid, 1, "pid {pid} in {instances:?}");
        let recorded = events
            .iter()
            .filter(|e| e["instance"].as_str().is_some_and(|i| i.contains(&marker)))
            .count();
        assert!(recorded >= 5, "pid {pid}: {recorded} events");
        let instance = instances.iter().find(|i| i.contains(&marker)).unwrap();
        let only: Vec<Value> = cli(
            &[
                "--json",
                "audit",
                "--instance",
                instance,
                "--limit",
                "10000",
            ],
            url,
            home.path(),
        )
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        assert_eq!(only.len(), recorded, "audit --instance {instance}");
        assert!(only.iter().all(|e| e["instance"] == *instance));
    }
}
