//! `wrap --contract` (issue 7 item 8) in front of `tests/servers/contract_server.py`, a
//! server that lists an unsigned tool, a changed tool, an unsigned resource and omits a
//! signed tool: only the signed entries reach the host, calls to the others are refused
//! without reaching the server (`contract_mismatch`), the missing entry is audited.
//! `publish` (item 9) in front of the same server: sorted contract entries only, the
//! contract's cache hints on 2026-07-28 results (none on `input_required`, private data
//! never public), `list_changed` withheld unless the contract is the active one.

use super::{Host, audit_reasons, reason};
use bastion_core::contract::{parse_source, reviewed_manifest};
use bastion_core::publish::ContractIndex;
use bastion_gateway::{PublishSetup, WrapConfig};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

fn contract_server() -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/contract_server.py");
    vec!["python3".into(), script.display().to_string()]
}

fn order_schema() -> Value {
    json!({"type": "object", "properties": {"order_id": {"type": "string"}},
           "required": ["order_id"], "additionalProperties": false})
}

/// The contract the publisher signed: the descriptors as reviewed (members in another
/// order than the server writes them: RFC 8785 hashing ignores order).
fn signed_source() -> Value {
    json!({
        "format": "mcp-bastion-contract/1",
        "server_id": "io.example/orders",
        "contract_version": 3,
        "protocol_version": "2025-11-25",
        "owner": "orders team",
        "tools": [
            {"annotations": {"destructiveHint": false, "readOnlyHint": true},
             "inputSchema": order_schema(), "description": "Look up the status of one order.",
             "name": "lookup_order", "risk_tier": "low", "side_effects": [],
             "read_only": true, "destructive": false, "requires_human_approval": false},
            {"name": "cancel_order", "description": "Cancel one order.",
             "inputSchema": order_schema(),
             "annotations": {"readOnlyHint": false, "destructiveHint": true},
             "risk_tier": "high", "side_effects": ["cancels the order"],
             "read_only": false, "destructive": true, "requires_human_approval": true},
            {"name": "archive_order", "description": "Archive one delivered order.",
             "inputSchema": order_schema(),
             "annotations": {"readOnlyHint": false, "destructiveHint": false},
             "risk_tier": "medium", "side_effects": ["moves the order to the archive"],
             "read_only": false, "destructive": false, "requires_human_approval": false}
        ],
        "prompts": [{"name": "order_summary", "description": "Summarize recent orders."}],
        "resources": [{"uri": "orders://index", "name": "Order index", "mimeType": "application/json"}],
        "resource_templates": [],
        "ui_resources": []
    })
}

fn index() -> Arc<ContractIndex> {
    let bytes = serde_json::to_vec(&signed_source()).unwrap();
    let source = parse_source(&bytes).unwrap();
    let reviewed = reviewed_manifest(source, &bytes, &"a".repeat(40), 1_780_000_000).unwrap();
    Arc::new(ContractIndex::from_reviewed(&reviewed).unwrap())
}

fn names(r: &Value, member: &str, key: &str) -> Vec<String> {
    r["result"][member]
        .as_array()
        .unwrap_or_else(|| panic!("no {member}: {r}"))
        .iter()
        .map(|d| d[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_signed_entries_reach_the_host() {
    let mut cfg = WrapConfig::new("orders", contract_server());
    cfg.contract = Some(index());
    let mut h = Host::start_with(cfg).await;
    let r = h
        .request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))
        .await;
    assert_eq!(r["result"]["serverInfo"]["name"], "orders", "{r}");
    h.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;

    // The unsigned tool and the changed one are withheld; the signed one is shown.
    let tools = h.request("tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools", "name"), ["lookup_order"], "{tools}");
    let prompts = h.request("prompts/list", json!({})).await;
    assert_eq!(names(&prompts, "prompts", "name"), ["order_summary"]);
    let resources = h.request("resources/list", json!({})).await;
    assert_eq!(names(&resources, "resources", "uri"), ["orders://index"]);

    // The signed tool runs; the others are refused without reaching the server,
    // including a signed tool the server did not list in the signed form.
    let ok = h.call("lookup_order", json!({"order_id": "o-1"})).await;
    assert_eq!(
        ok["result"]["content"][0]["text"], "ran lookup_order",
        "{ok}"
    );
    for tool in ["debug_dump", "cancel_order", "never_listed"] {
        let r = h.call(tool, json!({"order_id": "o-1"})).await;
        assert_eq!(reason(&r), "contract_mismatch", "{tool}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("signed contract"),
            "{r}"
        );
    }
    let read = h
        .request("resources/read", json!({"uri": "orders://internal-notes"}))
        .await;
    assert_eq!(reason(&read), "contract_mismatch", "{read}");
    let read = h
        .request("resources/read", json!({"uri": "orders://index"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "contents of orders://index",
        "{read}"
    );
    let (_, store) = h.finish().await;
    let reasons = audit_reasons(&store).await;
    let count = |r: &str| reasons.iter().filter(|x| *x == r).count();
    // Listing: debug_dump, cancel_order, orders://internal-notes withheld; calls: 4
    // refused.
    assert!(count("contract_mismatch") >= 7, "{reasons:?}");
    assert_eq!(count("contract_missing"), 1, "{reasons:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_contract_the_same_server_is_relayed_as_before() {
    let mut h = Host::start_with(WrapConfig::new("orders", contract_server())).await;
    h.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))
        .await;
    let tools = h.request("tools/list", json!({})).await;
    assert_eq!(
        names(&tools, "tools", "name"),
        ["announce", "cancel_order", "debug_dump", "lookup_order"]
    );
    let r = h.call("debug_dump", json!({})).await;
    assert_eq!(r["result"]["content"][0]["text"], "ran debug_dump", "{r}");
    h.finish().await;
}

/// The publisher's contract for `publish`: the tools the server lists as they are
/// (including `announce`), a template covering `orders://…`, and a cache policy.
fn publish_index() -> (Arc<ContractIndex>, bastion_core::contract::CachePolicy) {
    let mut src = signed_source();
    let tools = src["tools"].as_array_mut().unwrap();
    tools.retain(|t| t["name"] == "lookup_order");
    tools.push(
        json!({"name": "announce", "description": "Tell clients the tool list changed.",
        "inputSchema": {"type": "object", "additionalProperties": false},
        "risk_tier": "low", "side_effects": ["notifies clients"], "read_only": false,
        "destructive": false, "requires_human_approval": false}),
    );
    src["resource_templates"] = json!([{"uriTemplate": "orders://{page}", "name": "Order pages"}]);
    src["cache"] = json!({
        "methods": {"tools/list": {"ttlMs": 300_000, "cacheScope": "public"},
                    "resources/read": {"ttlMs": 30_000, "cacheScope": "public"}},
        "resources": {"orders://index": {"ttlMs": 60_000, "cacheScope": "private", "private": true}}
    });
    let bytes = serde_json::to_vec(&src).unwrap();
    let source = parse_source(&bytes).unwrap();
    let cache = source.cache.clone().unwrap();
    let reviewed = reviewed_manifest(source, &bytes, &"b".repeat(40), 1_780_000_000).unwrap();
    (
        Arc::new(ContractIndex::from_reviewed(&reviewed).unwrap()),
        cache,
    )
}

async fn publisher(active: bool) -> Host {
    publisher_of(active, contract_server()).await
}

async fn publisher_of(active: bool, command: Vec<String>) -> Host {
    let (index, cache) = publish_index();
    let mut cfg = WrapConfig::new("orders", command);
    cfg.contract = Some(index);
    cfg.publish = Some(PublishSetup { cache, active });
    Host::start_with(cfg).await
}

/// `params` with the 2026-07-28 per-request `_meta` (form elicitation declared).
fn stateless(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}});
    params
}

fn hint(r: &Value) -> (Value, Value) {
    (
        r["result"]["ttlMs"].clone(),
        r["result"]["cacheScope"].clone(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_attaches_truthful_cache_hints_and_sorted_entries() {
    let mut h = publisher(false).await;
    let d = h.request("server/discover", stateless(json!({}))).await;
    assert_eq!(d["result"]["serverInfo"]["name"], "orders", "{d}");
    // No hint in the contract for server/discover: not reusable, whatever the server said.
    assert_eq!(hint(&d), (json!(0), json!("private")), "{d}");
    let tools = h.request("tools/list", stateless(json!({}))).await;
    assert_eq!(
        names(&tools, "tools", "name"),
        ["announce", "lookup_order"],
        "{tools}"
    );
    assert_eq!(hint(&tools), (json!(300_000), json!("public")), "{tools}");
    // The same listing again: the same bytes (deterministic order and hints).
    let again = h.request("tools/list", stateless(json!({}))).await;
    assert_eq!(again["result"], tools["result"]);
    let prompts = h.request("prompts/list", stateless(json!({}))).await;
    assert_eq!(hint(&prompts), (json!(0), json!("private")), "{prompts}");
    // User-private data is never public, even where the method's hint is.
    let index = h
        .request(
            "resources/read",
            stateless(json!({"uri": "orders://index"})),
        )
        .await;
    assert_eq!(hint(&index), (json!(60_000), json!("private")), "{index}");
    let page = h
        .request(
            "resources/read",
            stateless(json!({"uri": "orders://page-2"})),
        )
        .await;
    assert_eq!(hint(&page), (json!(30_000), json!("public")), "{page}");
    // input_required is not cacheable: the server's own hints are removed.
    let ask = h
        .request("resources/read", stateless(json!({"uri": "orders://ask"})))
        .await;
    assert_eq!(ask["result"]["resultType"], "input_required", "{ask}");
    assert!(
        ask["result"].get("ttlMs").is_none() && ask["result"].get("cacheScope").is_none(),
        "{ask}"
    );
    // A tool result is not a cacheable result.
    let call = h
        .request(
            "tools/call",
            stateless(json!({"name": "lookup_order", "arguments": {"order_id": "o-1"}})),
        )
        .await;
    assert_eq!(
        call["result"]["content"][0]["text"], "ran lookup_order",
        "{call}"
    );
    assert!(call["result"].get("ttlMs").is_none(), "{call}");
    h.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_withholds_list_changed_unless_the_contract_is_active() {
    for active in [false, true] {
        let mut h = publisher(active).await;
        h.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))
            .await;
        let tools = h.request("tools/list", json!({})).await;
        // Legacy era: no cache hints are added.
        assert!(tools["result"].get("ttlMs").is_none(), "{tools}");
        // The server answers the call, then notifies; a ping after it marks the point by
        // which a forwarded notification must have arrived (frames keep their order).
        let mut saw_list_changed = false;
        for (method, params) in [
            ("tools/call", json!({"name": "announce", "arguments": {}})),
            ("ping", json!({})),
        ] {
            h.next_id += 1;
            let id = h.next_id;
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            h.send_raw(&msg.to_string()).await;
            loop {
                let m = h.recv().await;
                if m.get("method") == Some(&json!("notifications/tools/list_changed")) {
                    saw_list_changed = true;
                }
                if m.get("id") == Some(&json!(id)) {
                    break;
                }
            }
        }
        let (_, store) = h.finish().await;
        let reasons = audit_reasons(&store).await;
        let withheld = reasons.iter().any(|r| r == "list_changed_withheld");
        assert_eq!(withheld, !active, "active {active}: {reasons:?}");
        assert_eq!(saw_list_changed, active, "active {active}");
    }
}

/// A paginated listing: every page gets the same hint, and a signed entry on a later
/// page is not reported missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_hints_every_page_alike() {
    let mut paged = vec!["env".to_owned(), "CONTRACT_SERVER_PAGES=1".to_owned()];
    paged.extend(contract_server());
    let mut h = publisher_of(false, paged).await;
    h.request("server/discover", stateless(json!({}))).await;
    let mut names_seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = h.request("tools/list", stateless(params)).await;
        pages += 1;
        assert_eq!(hint(&page), (json!(300_000), json!("public")), "{page}");
        names_seen.extend(names(&page, "tools", "name"));
        match page["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 2);
    names_seen.sort();
    assert_eq!(names_seen, ["announce", "lookup_order"]);
    let (_, store) = h.finish().await;
    let reasons = audit_reasons(&store).await;
    assert!(
        !reasons.iter().any(|r| r == "contract_missing"),
        "{reasons:?}"
    );
    assert_eq!(
        reasons.iter().filter(|r| *r == "contract_mismatch").count(),
        2,
        "cancel_order and debug_dump: {reasons:?}"
    );
}
