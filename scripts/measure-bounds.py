#!/usr/bin/env python3
"""Peak memory of `mcp-bastion wrap` under the resource-bound rows of
docs/failure-modes.md: a 64 MiB line each way, 100,000 pipelined host requests, 10,000
tools in one list, a 100,000-deep schema, a server dribbling one byte per 50 ms.

Usage: scripts/measure-bounds.py [PATH/TO/mcp-bastion]   (default: the dist build)
Prints one row per scenario: gateway VmHWM (peak RSS) in MiB, wall time, outcome.
"""
import sys
import threading
import time

from bastion_drive import Gateway, default_binary


def baseline(g):
    for i in range(10):
        assert g.call("echo", "m%d" % i)["result"]["content"][0]["text"] == "m%d" % i
    return "10 echo calls"


def host_line(g):
    head = b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"text":"'
    g.send_bytes(head)
    chunk = b"a" * (1 << 20)
    for _ in range(64):
        g.send_bytes(chunk)
    g.send_bytes(b'"}}}\n')
    r = g.recv()
    return "host 64 MiB line: %s" % r["error"]["data"]["reason"]


def server_line(g):
    r = g.call("huge")
    return "server 64 MiB line: %s/%s" % (r["error"]["data"]["reason"], r["error"]["data"].get("finding"))


def pipelined(g, n=100_000):
    def writer():
        buf = []
        for i in range(n):
            buf.append(('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m%d"}}}\n' % (10_000 + i, i)).encode())
            if len(buf) >= 512:
                g.send_bytes(b"".join(buf))
                buf = []
        g.send_bytes(b"".join(buf))

    t = threading.Thread(target=writer)
    t.start()
    ok = refused = 0
    for _ in range(n):
        m = g.recv(timeout=120)
        if "result" in m:
            ok += 1
        else:
            refused += 1
    t.join()
    return "%d pipelined: %d answered, %d refused" % (n, ok, refused)


def many_tools(g):
    r = g.request("tools/list")
    return "tools/list: %d tools" % len(r["result"]["tools"])


def deep_schema(g):
    r = g.request("tools/list")
    return "deep schema list: %s/%s" % (r["error"]["data"]["reason"], r["error"]["data"].get("finding"))


def dribble(g):
    r = g.call("dribble")
    return "dribble: %s/%s" % (r["error"]["data"]["reason"], r["error"]["data"].get("finding"))


SCENARIOS = [
    ("baseline", (), "", baseline),
    ("host_64mib_line", (), "", host_line),
    ("server_64mib_line", (), "", server_line),
    ("pipelined_100k", (), "", pipelined),
    ("tools_10k", ("FAULT_TOOLS=10000",), "", many_tools),
    ("deep_schema_100k", ("FAULT_SCHEMA_DEPTH=100000",), "", deep_schema),
    ("dribble_1_per_50ms", ("FAULT_DRIBBLE_MS=50",), "\n[limits]\nread_timeout_ms = 2000\n", dribble),
]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else default_binary()
    only = sys.argv[2:] or None
    print("%-20s %10s %8s  %s" % ("scenario", "VmHWM MiB", "secs", "outcome"))
    for name, env, config, run in SCENARIOS:
        if only and name not in only:
            continue
        g = Gateway(binary, env, config)
        g.init()
        started = time.monotonic()
        outcome = run(g)
        secs = time.monotonic() - started
        hwm = g.status()["VmHWM"] / 1024
        g.close()
        print("%-20s %10.1f %8.1f  %s" % (name, hwm, secs, outcome), flush=True)


if __name__ == "__main__":
    main()
