#!/usr/bin/env python3
"""A stdio MCP server (legacy era) whose tools declare `x-mcp-header` parameters, one
valid and two breaking the 2026-07-28 rules (a `number` parameter; the same header name
twice, in different case). Used by the `wrap --url` test: behind an HTTP server, the
gateway must withhold the two broken tools."""
import json
import sys

TOOLS = [
    {"name": "good_region", "description": "Looks up a region.",
     "inputSchema": {"type": "object", "properties": {
         "region": {"type": "string", "x-mcp-header": "Region"}}}},
    {"name": "bad_number", "description": "Prices something.",
     "inputSchema": {"type": "object", "properties": {
         "price": {"type": "number", "x-mcp-header": "Price"}}}},
    {"name": "bad_duplicate", "description": "Routes something.",
     "inputSchema": {"type": "object", "properties": {
         "a": {"type": "string", "x-mcp-header": "Route"},
         "b": {"type": "string", "x-mcp-header": "ROUTE"}}}},
]


def answer(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    if method == "initialize":
        answer(msg_id, {"protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "headers", "version": "1"}})
    elif method == "tools/list":
        answer(msg_id, {"tools": TOOLS})
    elif method == "tools/call":
        name = msg["params"]["name"]
        answer(msg_id, {"content": [{"type": "text", "text": "called " + name}]})
    else:
        answer(msg_id, {})
