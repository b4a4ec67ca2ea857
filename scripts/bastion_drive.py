"""Drives `mcp-bastion wrap` around the fault server over real pipes and samples the
gateway process (/proc/PID/status VmHWM, VmRSS; /proc/PID/fd). Shared by
scripts/measure-bounds.py (resource bounds of docs/failure-modes.md) and scripts/soak.py.
Python 3 standard library only.
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAULT_SERVER = os.path.join(ROOT, "crates/bastion-gateway/tests/servers/fault_server.py")


def default_binary():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    # The build users install (`cargo build --profile dist -p mcp-bastion`).
    return os.path.join(target, "dist", "mcp-bastion")


def proc_status(pid):
    """VmHWM and VmRSS of `pid` in KiB, and its open file descriptors."""
    fields = {}
    with open("/proc/%d/status" % pid, encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                fields[key] = int(value.split()[0])
    fields["fds"] = len(os.listdir("/proc/%d/fd" % pid))
    return fields


def soak_args(doc):
    """The soak scripts' command line: --binary PATH, --duration SECS (default 1800),
    --interval SECS (default 30)."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--binary", default=default_binary())
    ap.add_argument("--duration", type=float, default=1800)
    ap.add_argument("--interval", type=float, default=30)
    return ap.parse_args()


def soak(duration, interval, columns, sample, traffic):
    """Runs `traffic(n)` (one round, returns the requests it sent) for `duration`
    seconds; every `interval` seconds appends `(elapsed_s, *sample(), requests)` to the
    samples and prints it as a CSV line under the header `elapsed_s,COLUMNS,requests`.
    Returns the samples and the number of rounds."""
    started = time.monotonic()
    next_sample = started
    samples = []
    requests = n = 0
    print("elapsed_s,%s,requests" % ",".join(columns), flush=True)
    while True:
        now = time.monotonic()
        if now >= next_sample:
            samples.append((now - started, *sample(), requests))
            print(",".join("%.0f" % v if i == 0 else "%d" % v
                           for i, v in enumerate(samples[-1])), flush=True)
            next_sample += interval
            if now - started >= duration:
                return samples, n
        requests += traffic(n)
        n += 1


class Gateway:
    """One `mcp-bastion wrap --name fault` with its own store and config."""

    def __init__(self, binary, server_env=(), config=""):
        self.dir = tempfile.TemporaryDirectory(prefix="bastion-drive-")
        home = self.dir.name
        os.makedirs(os.path.join(home, "mcp-bastion"))
        with open(os.path.join(home, "mcp-bastion/config.toml"), "w", encoding="utf-8") as f:
            f.write('[servers.fault.tools."*"]\naction = "allow"\n' + config)
        env = dict(os.environ, XDG_CONFIG_HOME=home,
                   MCP_BASTION_STORE="sqlite://" + os.path.join(home, "bastion.db"))
        argv = [binary, "wrap", "--name", "fault", "--", "env", *server_env,
                sys.executable, FAULT_SERVER]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        self.write_lock = threading.Lock()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_bytes(self, data):
        with self.write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, msg):
        self.send_bytes(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def recv(self, timeout=60):
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError("the gateway closed its output")
        return json.loads(line)

    def request(self, method, params=None, timeout=60):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        while True:
            m = self.recv(timeout)
            if m.get("id") == rid:
                return m

    def call(self, tool, text="x", timeout=60):
        return self.request("tools/call", {"name": tool, "arguments": {"text": text}}, timeout)

    def init(self):
        r = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                        "clientInfo": {"name": "drive", "version": "1"}})
        assert r["result"]["serverInfo"]["name"] == "fault", r
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self.request("tools/list")

    def status(self):
        return proc_status(self.proc.pid)

    def close(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        code = self.proc.wait(timeout=30)
        self.dir.cleanup()
        return code
