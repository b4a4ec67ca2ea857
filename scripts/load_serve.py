#!/usr/bin/env python3
"""Load benchmark of `mcp-bastion serve` (issue 8 §6), Python 3 standard library only.

    scripts/load_serve.py [--binary PATH] [--sessions 200] [--calls 20000]

Runs the bench echo server (../shared/bench/echo_server.py, or --server) two ways with
SESSIONS concurrent hosts and CALLS `tools/call echo` in total (CALLS / SESSIONS per host,
each host sequential, all hosts at once):

  direct  each host starts its own echo server over stdio (what `wrap` replaces);
  serve   one `mcp-bastion serve` on loopback, each host a session of its own (which
          starts its own echo server behind the listener), over HTTP/1.1 keep-alive.

Reports per mode: calls/s, p50 and p99 round-trip latency (ms), and for `serve` the
listener's resident memory (VmRSS, without its server processes) before any session,
with every session open and idle, and the difference per idle session. Prints one
JSON object. The driver itself (threads in one Python process) costs latency in both
modes alike; compare the modes, not the absolute figures.
"""
import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SERVER = os.path.join(os.path.dirname(ROOT), "shared", "bench", "echo_server.py")
INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "load", "version": "1"}}


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else None


def rss_kib(pid):
    with open("/proc/%d/status" % pid, encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class StdioHost:
    def __init__(self, server):
        self.p = subprocess.Popen([sys.executable, server], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0

    def request(self, method, params):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n:
                return m

    def notify(self, method):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class HttpHost:
    def __init__(self, port, token):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.port, self.token, self.sid, self.n = port, token, None, 0

    def _post(self, body):
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "Authorization": "Bearer " + self.token,
                   "MCP-Protocol-Version": "2025-11-25"}
        if self.sid:
            headers["Mcp-Session-Id"] = self.sid
        self.c.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        r = self.c.getresponse()
        data = r.read().decode()
        if r.getheader("Mcp-Session-Id"):
            self.sid = r.getheader("Mcp-Session-Id")
        return r.status, data

    def request(self, method, params):
        self.n += 1
        status, data = self._post({"jsonrpc": "2.0", "id": self.n, "method": method,
                                   "params": params})
        for line in data.splitlines():
            if line.startswith("data: "):
                m = json.loads(line[6:])
                if m.get("id") == self.n:
                    return m
        raise RuntimeError("no answer (HTTP %d): %s" % (status, data[:200]))

    def notify(self, method):
        self._post({"jsonrpc": "2.0", "method": method})

    def close(self):
        self.c.close()


def run_hosts(make, sessions, per_host, ready=None):
    lat, errors, lock = [], [], threading.Lock()
    opened = threading.Barrier(sessions + 1)
    go = threading.Event()

    def host():
        h = None
        try:
            h = make()
            h.request("initialize", INIT)
            h.notify("notifications/initialized")
            h.request("tools/list", {})
        except Exception as e:  # noqa: BLE001 - reported, the run goes on
            with lock:
                errors.append(repr(e))
        opened.wait()
        go.wait()
        mine = []
        try:
            for i in range(per_host if h else 0):
                t0 = time.perf_counter()
                m = h.request("tools/call", {"name": "echo", "arguments": {"n": 100, "text": "x%d" % i}})
                mine.append(time.perf_counter() - t0)
                if "result" not in m:
                    raise RuntimeError(json.dumps(m)[:200])
        except Exception as e:  # noqa: BLE001
            with lock:
                errors.append(repr(e))
        with lock:
            lat.extend(mine)
        if h:
            h.close()

    threads = [threading.Thread(target=host) for _ in range(sessions)]
    for t in threads:
        t.start()
    opened.wait()
    idle = ready() if ready else None
    t0 = time.perf_counter()
    go.set()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"calls": len(lat), "errors": len(errors), "first_error": errors[:1],
            "calls_per_s": round(len(lat) / wall, 1) if wall else None,
            "p50_ms": round(pct(lat, 0.5) * 1000, 3) if lat else None,
            "p99_ms": round(pct(lat, 0.99) * 1000, 3) if lat else None,
            "idle": idle}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "mcp-bastion"))
    ap.add_argument("--server", default=DEFAULT_SERVER)
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--calls", type=int, default=20000)
    a = ap.parse_args()
    per_host = max(1, a.calls // a.sessions)
    out = {"sessions": a.sessions, "calls_per_host": per_host}
    out["direct"] = run_hosts(lambda: StdioHost(a.server), a.sessions, per_host)

    home = tempfile.mkdtemp(prefix="bastion-load-")
    os.makedirs(os.path.join(home, "mcp-bastion"))
    with open(os.path.join(home, "mcp-bastion", "config.toml"), "w", encoding="utf-8") as f:
        f.write('[servers.load.tools."*"]\naction = "allow"\n')
    env = dict(os.environ, XDG_CONFIG_HOME=home,
               MCP_BASTION_STORE="sqlite://" + os.path.join(home, "bastion.db"))
    serve = subprocess.Popen(
        [a.binary, "serve", "--listen", "127.0.0.1:0", "--name", "load",
         "--max-sessions", str(a.sessions), "--token-file", os.path.join(home, "token"),
         "--", sys.executable, a.server],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    port = None
    for raw in serve.stderr:
        line = raw.decode(errors="replace")
        m = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
        if m:
            port = int(m.group(1))
            break
    threading.Thread(target=lambda: [None for _ in serve.stderr], daemon=True).start()
    token = open(os.path.join(home, "token"), encoding="ascii").read().strip()
    time.sleep(0.5)
    base = rss_kib(serve.pid)

    def idle_rss():
        time.sleep(1.0)
        return rss_kib(serve.pid)

    out["serve"] = run_hosts(lambda: HttpHost(port, token), a.sessions, per_host, ready=idle_rss)
    with_sessions = out["serve"].pop("idle")
    out["serve"]["rss_kib_before_sessions"] = base
    out["serve"]["rss_kib_sessions_idle"] = with_sessions
    out["serve"]["kib_per_idle_session"] = round((with_sessions - base) / a.sessions, 1)
    out["serve"]["rss_kib_after_load"] = rss_kib(serve.pid)
    serve.terminate()
    serve.wait(timeout=60)
    d, s = out["direct"], out["serve"]
    if d["p50_ms"] and s["p50_ms"]:
        out["added_p50_ms"] = round(s["p50_ms"] - d["p50_ms"], 3)
        out["added_p99_ms"] = round(s["p99_ms"] - d["p99_ms"], 3)
        out["throughput_ratio"] = round(s["calls_per_s"] / d["calls_per_s"], 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
