#!/usr/bin/env python3
"""An MCP stdio server (legacy era, standard library only) whose listings differ from the
contract its publisher signed: `wrap --contract` must show only the signed entries.

What it lists, against the contract in tests/gateway/contract.rs:

tools      lookup_order   as signed
           cancel_order   signed with another description (changed after review)
           debug_dump     not in the contract (an unsigned tool added later)
           archive_order  signed, but this server does not list it (missing)
prompts    order_summary  as signed
resources  orders://index as signed;  orders://internal-notes not in the contract

Every tool answers its name, so a test can tell whether a call reached the server.
It speaks both eras: `server/discover` (2026-07-28) answers with `resultType` and cache
hints of its own that overstate what may be cached (`publish` must replace them), and
`resources/read` of orders://ask answers `input_required`. The tool `announce` sends
notifications/tools/list_changed. With CONTRACT_SERVER_PAGES=1 in its environment,
tools/list answers in pages of two (cursor "2").
"""
import json
import os
import sys

SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}},
          "required": ["order_id"], "additionalProperties": False}
TOOLS = [
    {"name": "lookup_order", "description": "Look up the status of one order.",
     "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True, "destructiveHint": False}},
    {"name": "cancel_order", "description": "Cancel one order and refund it to any card on file.",
     "inputSchema": SCHEMA, "annotations": {"readOnlyHint": False, "destructiveHint": True}},
    {"name": "debug_dump", "description": "Dump the order database.",
     "inputSchema": {"type": "object", "additionalProperties": False}},
    {"name": "announce", "description": "Tell clients the tool list changed.",
     "inputSchema": {"type": "object", "additionalProperties": False}},
]
PROMPTS = [{"name": "order_summary", "description": "Summarize recent orders."}]
RESOURCES = [
    {"uri": "orders://index", "name": "Order index", "mimeType": "application/json"},
    {"uri": "orders://internal-notes", "name": "Internal notes", "mimeType": "text/plain"},
]

out = sys.stdout.buffer


def send(obj):
    out.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")
    out.flush()


for line in sys.stdin.buffer:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method, mid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if mid is None:
        continue
    stateless = method == "server/discover" or "io.modelcontextprotocol/protocolVersion" in (params.get("_meta") or {})

    def answer(result):
        if stateless:
            # Over-generous hints of the server's own: a publisher gateway replaces them.
            result = dict(result, resultType="complete", ttlMs=86400000, cacheScope="public")
        send({"jsonrpc": "2.0", "id": mid, "result": result})

    if method == "server/discover":
        answer({"supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": True}, "prompts": {}, "resources": {}},
                "serverInfo": {"name": "orders", "version": "1.0"}})
    elif method == "resources/read" and params.get("uri") == "orders://ask" and stateless:
        send({"jsonrpc": "2.0", "id": mid, "result": {"resultType": "input_required", "ttlMs": 5000,
              "cacheScope": "public", "inputRequests": {"q": {"method": "elicitation/create", "params": {
                  "mode": "form", "message": "Which order?", "requestedSchema": {"type": "object",
                  "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}}}}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
              "serverInfo": {"name": "orders", "version": "1.0"}}})
    elif method == "tools/list" and os.environ.get("CONTRACT_SERVER_PAGES") == "1":
        start = int(params.get("cursor") or 0)
        page = {"tools": TOOLS[start:start + 2]}
        if start + 2 < len(TOOLS):
            page["nextCursor"] = str(start + 2)
        answer(page)
    elif method == "tools/list":
        answer({"tools": TOOLS})
    elif method == "prompts/list":
        answer({"prompts": PROMPTS})
    elif method == "resources/list":
        answer({"resources": RESOURCES})
    elif method == "resources/read":
        uri = params.get("uri")
        answer({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "contents of " + str(uri)}]})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": mid, "result": dict({"content": [
            {"type": "text", "text": "ran " + str(params.get("name"))}]}, **({"resultType": "complete"} if stateless else {}))})
        if params.get("name") == "announce":
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})
