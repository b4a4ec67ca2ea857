#!/usr/bin/env python3
"""A stdio MCP server (legacy era) that answers `initialize` and then stops reading its
input for good (it sleeps), so whatever is written to it backs up."""
import json
import sys
import time

msg = json.loads(sys.stdin.readline())
sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {
    "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
    "serverInfo": {"name": "deaf", "version": "1"}}}) + "\n")
sys.stdout.flush()
time.sleep(3600)
