#!/usr/bin/env python3
"""Soak test of `mcp-bastion serve` (issue 9 §5): DURATION seconds (default 1800) of mixed
HTTP traffic from several hosts through one listener around the fault server, sampling
the listener's resident memory (VmRSS, VmHWM), its open file descriptors and how many
server processes it runs every INTERVAL seconds.

Each round is one host session from `initialize` to `DELETE` (its own server process):
echo calls with small and 200 KiB texts, tools/list, ping, a strict-parse refusal
(duplicate key), an unknown tool, and every tenth round a call that times out upstream
(tool `slow`, 2 s timeout) so cancellations flow. Between sessions the listener also
gets the refusals a hostile page or client produces: a missing token (401), a foreign
Host (DNS rebinding, 403), a declared body over the 1 MiB host frame limit (413) and a
request for a session that was ended (404). One session stays open for the whole run
and takes a call every round, so a long-lived session is soaked too.

Usage: scripts/soak_serve.py [--binary PATH] [--duration SECS] [--interval SECS]
Output: CSV lines `elapsed_s,rss_kib,hwm_kib,fds,servers,requests`, then a summary of
the first sample after warm-up (60 s) and the last one. Python 3 standard library only.
"""
import http.client
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time

from bastion_drive import FAULT_SERVER, proc_status, soak, soak_args

INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "soak", "version": "1"}}


class Listener:
    """One `mcp-bastion serve --name fault` on an ephemeral loopback port."""

    def __init__(self, binary):
        self.dir = tempfile.TemporaryDirectory(prefix="bastion-soak-serve-")
        home = self.dir.name
        os.makedirs(os.path.join(home, "mcp-bastion"))
        with open(os.path.join(home, "mcp-bastion/config.toml"), "w", encoding="utf-8") as f:
            f.write('[servers.fault.tools."*"]\naction = "allow"\n\n'
                    "[limits]\ntool_call_timeout_ms = 2000\n")
        token_file = os.path.join(home, "serve-token")
        env = dict(os.environ, XDG_CONFIG_HOME=home,
                   MCP_BASTION_STORE="sqlite://" + os.path.join(home, "bastion.db"))
        argv = [binary, "serve", "--listen", "127.0.0.1:0", "--name", "fault",
                "--token-file", token_file, "--", sys.executable, FAULT_SERVER]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env=env)
        lines = queue.Queue()
        threading.Thread(target=self._pump, args=(lines,), daemon=True).start()
        deadline = time.monotonic() + 60
        while True:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError("serve exited before listening")
            if "serving" in line:
                break
        url = next(w for w in line.split() if w.startswith("http://"))
        self.hostport = url[len("http://"):-len("/mcp")]
        host, port = self.hostport.rsplit(":", 1)
        self.host, self.port = host, int(port)
        with open(token_file, encoding="ascii") as f:
            self.token = f.read().strip()

    def _pump(self, lines):
        for raw in self.proc.stderr:
            lines.put(raw.decode("utf-8", "replace"))
        lines.put(None)

    def http(self, method, body=None, session=None, headers=None, token=True):
        """One request on a fresh connection; returns (status, headers, body bytes)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        h = {"Host": self.hostport, "Content-Type": "application/json",
             "Accept": "application/json, text/event-stream"}
        if token:
            h["Authorization"] = "Bearer " + self.token
        if session:
            h["Mcp-Session-Id"] = session
        h.update(headers or {})
        data = body if isinstance(body, bytes) or body is None else \
            json.dumps(body, separators=(",", ":")).encode()
        try:
            conn.request(method, "/mcp", body=data, headers=h)
            resp = conn.getresponse()
            return resp.status, resp.headers, resp.read()
        finally:
            conn.close()

    def oversized(self, session):
        """A POST declaring a body over the host frame limit; returns the status. The
        listener may answer and close before the body is written."""
        body = b"{" + b" " * (2 << 20) + b"}"
        head = ("POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
                "Content-Type: application/json\r\nAccept: application/json, "
                "text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n"
                "Connection: close\r\n\r\n" % (self.hostport, self.token, session, len(body)))
        with socket.create_connection((self.host, self.port), timeout=60) as sock:
            sock.sendall(head.encode("ascii"))
            try:
                sock.sendall(body)
            except OSError:
                pass
            reply = b""
            while b"\r\n" not in reply:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
        return int(reply.split()[1]) if reply else 0

    def servers(self):
        """Server processes the listener runs (its direct children)."""
        # Each thread lists the children it forked: sum over the listener's threads.
        base = "/proc/%d/task" % self.proc.pid
        count = 0
        for tid in os.listdir(base):
            try:
                with open("%s/%s/children" % (base, tid), encoding="ascii") as f:
                    count += len(f.read().split())
            except OSError:
                pass
        return count

    def stop(self):
        self.proc.terminate()
        code = self.proc.wait(timeout=60)
        self.dir.cleanup()
        return code


def answer_of(body, rid):
    """The JSON-RPC answer with id `rid` in a JSON or event-stream body."""
    text = body.decode("utf-8")
    if text.lstrip().startswith("{"):
        return json.loads(text)
    for line in text.splitlines():
        if line.startswith("data:"):
            msg = json.loads(line[5:])
            if msg.get("id") == rid:
                return msg
    raise AssertionError("no answer to %r in %r" % (rid, text[:200]))


class Session:
    """One legacy-era host session on the listener."""

    def __init__(self, listener):
        self.l = listener
        self.next_id = 0
        status, headers, body = listener.http(
            "POST", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        assert status == 200, (status, body[:200])
        assert answer_of(body, 0)["result"]["serverInfo"]["name"] == "fault"
        self.id = headers["Mcp-Session-Id"]
        status, _, _ = listener.http(
            "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.id)
        assert status == 202, status

    def request(self, method, params=None):
        self.next_id += 1
        rid = self.next_id
        status, _, body = self.l.http(
            "POST", {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}},
            self.id)
        assert status == 200, (method, status, body[:200])
        return answer_of(body, rid)

    def call(self, tool, text="x"):
        return self.request("tools/call", {"name": tool, "arguments": {"text": text}})

    def end(self):
        status, _, _ = self.l.http("DELETE", session=self.id)
        assert status in (200, 202, 204), status


def round_of_traffic(l, keeper, n):
    """One session's life plus the listener's refusals; returns the requests sent."""
    s = Session(l)
    sent = 2
    assert s.request("tools/list")["result"]["tools"]
    for i in range(10):
        r = s.call("echo", "m%d-%d" % (n, i))
        assert r["result"]["content"][0]["text"] == "m%d-%d" % (n, i), r
    r = s.call("echo", "b" * (200 * 1024))
    assert "result" in r, str(r)[:200]
    s.request("ping")
    status, _, body = l.http("POST", b'{"jsonrpc":"2.0","id":"dup","id":"dup2","method":"ping"}',
                             s.id)
    assert status in (200, 400), status
    r = s.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert "error" in r, r
    sent += 15
    if n % 10 == 0:
        r = s.call("slow")
        assert r["error"]["data"]["reason"] == "request_timeout", r
        sent += 1
    ended = s.id
    s.end()
    # Refusals: no token, a rebound Host, an over-limit body, an ended session.
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert l.http("POST", ping, token=False)[0] == 401
    assert l.http("POST", ping, ended, headers={"Host": "attacker.example:80"})[0] == 403
    status = l.oversized(ended)
    assert status == 413, status
    assert l.http("POST", ping, ended)[0] == 404
    r = keeper.call("echo", "keep-%d" % n)
    assert r["result"]["content"][0]["text"] == "keep-%d" % n, r
    return sent + 6


def main():
    args = soak_args(__doc__)
    l = Listener(args.binary)
    keeper = Session(l)
    def sample():
        st = proc_status(l.proc.pid)
        return st["VmRSS"], st["VmHWM"], st["fds"], l.servers()

    samples, n = soak(args.duration, args.interval, ("rss_kib", "hwm_kib", "fds", "servers"),
                      sample, lambda n: round_of_traffic(l, keeper, n))
    keeper.end()
    code = l.stop()
    warm = next((s for s in samples if s[0] >= 60), samples[0])
    last = samples[-1]
    print("# after warm-up: t=%.0fs rss=%d KiB fds=%d servers=%d; end: t=%.0fs rss=%d KiB "
          "fds=%d servers=%d; peak %d KiB; %d sessions, %d requests; listener exit %d"
          % (warm[0], warm[1], warm[3], warm[4], last[0], last[1], last[3], last[4], last[2],
             n, last[5], code))


if __name__ == "__main__":
    main()
