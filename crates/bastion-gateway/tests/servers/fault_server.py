#!/usr/bin/env python3
"""An MCP stdio server (legacy era) that fails in the ways issue 9 lists, for the
fault-injection tests in tests/gateway/faults.rs. Python 3 standard library only.

tools/call name   what the server does
---------------   ------------------------------------------------------------------
echo              answers {"content":[{"type":"text","text": <arguments.text>}]}
crash_mid_frame   writes the first half of its answer (no newline) and exits with code 3
exit_now          exits with code 5 without answering (other requests stay pending)
slow              never answers (the request stays pending)
dribble           writes its answer one byte every FAULT_DRIBBLE_MS (default 200) ms
huge              answers with one text of FAULT_HUGE_BYTES (default 64 MiB) bytes
stall_reading     stops reading its input for 0.5 s, then sends a request whose id uses
                  the prefix Bastion reserves (so Bastion refuses it back), then writes
                  2 MiB of notifications/message, then answers; only then reads again
burst_reserved    sends arguments.count (default 600) ping requests with reserved ids
                  (mcp-bastion-burst-N, each refused back by Bastion), answers, then
                  stops reading for 1 s; with arguments.prefix "host-ask-" the ids are
                  host-ask-N instead, which Bastion passes on to the host
burst_count       answers with the number of answers to those requests received so far

tools/list answers FAULT_TOOLS (default 3) tools named t00000, t00001, ... in reverse
order, then the eight tools above; with FAULT_SCHEMA_DEPTH set, one more tool "deep" whose inputSchema nests that
many "properties" levels. With FAULT_LIST_DELAY_MS set, each tools/list is answered
that many ms late.

Every notification the server receives, every answer to a burst_reserved request (either
prefix) and every call of `slow` (as {"method": "tools/call", "id": ...}) is appended,
one JSON line each, to the file FAULT_LOG names (when set), and the server writes
"pid <its pid>" there at start, so a test can see the calls that reached it, the
notifications/cancelled it got and their order, and check that the process is gone.
"""
import json
import os
import sys
import time

LOG = os.environ.get("FAULT_LOG")
TOOLS = int(os.environ.get("FAULT_TOOLS", "3"))
DEPTH = int(os.environ.get("FAULT_SCHEMA_DEPTH", "0"))
DRIBBLE = int(os.environ.get("FAULT_DRIBBLE_MS", "200")) / 1000.0
HUGE = int(os.environ.get("FAULT_HUGE_BYTES", str(64 * 1024 * 1024)))
LIST_DELAY = int(os.environ.get("FAULT_LIST_DELAY_MS", "0")) / 1000.0
out = sys.stdout.buffer
# The id prefixes of burst_reserved's requests: Bastion's reserved one, and one it passes on.
BURST_PREFIXES = ("mcp-bastion-burst-", "host-ask-")
# Answers received to the burst_reserved requests.
BURST_ANSWERS = [0]


def log(line):
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def send(msg):
    out.write(json.dumps(msg, separators=(",", ":")).encode("utf-8") + b"\n")
    out.flush()


def tools():
    listed = [{"name": "t%05d" % i, "description": "Tool number %d." % i,
               "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
              for i in reversed(range(TOOLS))]
    listed.append({"name": "echo", "description": "Echoes the text argument.",
                   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
    for name in ("crash_mid_frame", "exit_now", "slow", "dribble", "huge", "stall_reading",
                 "burst_reserved", "burst_count"):
        listed.append({"name": name, "description": "Fault: %s." % name.replace("_", " "),
                       "inputSchema": {"type": "object"}})
    if DEPTH:
        listed.append({"name": "deep", "description": "Nested input.", "inputSchema": "DEEP"})
    return listed


def deep_schema():
    """The nested schema as text (json.dumps would recurse DEPTH levels deep)."""
    return '{"type":"object","properties":{"a":' * DEPTH + '{"type":"string"}' + "}}" * DEPTH


def call(rid, name, args):
    if name == "crash_mid_frame":
        text = json.dumps({"jsonrpc": "2.0", "id": rid,
                           "result": {"content": [{"type": "text", "text": "x" * 4096}]}})
        out.write(text[: len(text) // 2].encode("utf-8"))
        out.flush()
        os._exit(3)
    if name == "exit_now":
        os._exit(5)
    if name == "slow":
        log(json.dumps({"method": "tools/call", "id": rid}))
        return
    if name == "dribble":
        text = json.dumps({"jsonrpc": "2.0", "id": rid,
                           "result": {"content": [{"type": "text", "text": "dribbled"}]}}) + "\n"
        for b in text.encode("utf-8"):
            out.write(bytes([b]))
            out.flush()
            time.sleep(DRIBBLE)
        return
    if name == "stall_reading":
        time.sleep(0.5)
        send({"jsonrpc": "2.0", "id": "mcp-bastion-stall", "method": "ping"})
        for i in range(256):
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": "%d %s" % (i, "n" * 8192)}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "stalled"}]}})
        return
    if name == "burst_reserved":
        prefix = BURST_PREFIXES[1] if args.get("prefix") == BURST_PREFIXES[1] else BURST_PREFIXES[0]
        for i in range(int(args.get("count", 600))):
            send({"jsonrpc": "2.0", "id": "%s%d" % (prefix, i), "method": "ping"})
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "sent"}]}})
        time.sleep(1.0)
        return
    if name == "burst_count":
        send({"jsonrpc": "2.0", "id": rid,
              "result": {"content": [{"type": "text", "text": str(BURST_ANSWERS[0])}]}})
        return
    if name == "huge":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "a" * HUGE}]}})
        return
    send({"jsonrpc": "2.0", "id": rid,
          "result": {"content": [{"type": "text", "text": str(args.get("text", ""))}]}})


def main():
    log("pid %d" % os.getpid())
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method = msg.get("method")
        rid = msg.get("id")
        if rid is None:
            log(json.dumps(msg, separators=(",", ":")))
            continue
        if method is None:
            # An answer to one of the server's own requests.
            if str(rid).startswith(BURST_PREFIXES):
                BURST_ANSWERS[0] += 1
                log(json.dumps(msg, separators=(",", ":")))
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "fault", "version": "1"}}})
        elif method == "tools/list":
            time.sleep(LIST_DELAY)
            text = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools()}},
                              separators=(",", ":"))
            if DEPTH:
                text = text.replace('"inputSchema":"DEEP"', '"inputSchema":' + deep_schema())
            out.write(text.encode("utf-8") + b"\n")
            out.flush()
        elif method == "tools/call":
            params = msg.get("params") or {}
            call(rid, params.get("name"), params.get("arguments") or {})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})


main()
