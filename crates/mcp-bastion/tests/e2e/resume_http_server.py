#!/usr/bin/env python3
"""A Streamable HTTP MCP server (legacy era, one session) whose GET event stream drops
after each event and expects the client to resume with Last-Event-ID. Each stream sends
one `notifications/message` naming what it resumed after (`first` when it had no
Last-Event-ID), with an event id and `retry: 100`, then closes; the third stream stays
open. Prints `listening on PORT` to stderr.

With `poll` as its argument it tests resuming a POST's stream instead: a `tools/call`
is answered with an event stream holding only a priming event (an id, `retry: 50`, empty
data) and then closed; the answer comes on a GET carrying that id as Last-Event-ID. The
session's own GET stream (no Last-Event-ID) stays open and silent.

With `elsewhere` the answers of such calls come on the session's own GET stream instead,
and a GET with Last-Event-ID gets an empty stream.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SESSION = "resume-session-1"
POLL = sys.argv[1:2] in (["poll"], ["elsewhere"])
ELSEWHERE = sys.argv[1:2] == ["elsewhere"]
streams = 0
pending = {}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", ctype="application/json", extra=()):
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        method = msg.get("method")
        if method == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"],
                      "capabilities": {"logging": {}}, "serverInfo": {"name": "resume", "version": "1"}}
            out = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
            self.answer(200, out, extra=[("Mcp-Session-Id", SESSION)])
            return
        if self.headers.get("Mcp-Session-Id") != SESSION:
            self.answer(404)
            return
        if "id" not in msg:
            self.answer(202)
            return
        if POLL and method == "tools/call":
            with lock:
                event_id = "p%d" % (len(pending) + 1)
                text = "polled %s" % msg["params"]["name"]
                pending[event_id] = {"jsonrpc": "2.0", "id": msg["id"],
                                     "result": {"content": [{"type": "text", "text": text}]}}
            self.answer(200, ("id: %s\nretry: 50\ndata: \n\n" % event_id).encode(),
                        ctype="text/event-stream", extra=[("Connection", "close")])
            self.close_connection = True
            return
        if method == "tools/list":
            result = {"tools": [{"name": "slow", "description": "Answers later.",
                                 "inputSchema": {"type": "object"}}]}
        else:
            result = {}
        out = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
        self.answer(200, out)

    def do_GET(self):
        global streams
        if self.headers.get("Mcp-Session-Id") != SESSION:
            self.answer(404)
            return
        if ELSEWHERE:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            if self.headers.get("Last-Event-ID"):
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.end_headers()
            self.wfile.flush()
            for _ in range(36000):
                with lock:
                    answers = list(pending.values())
                    pending.clear()
                for answer in answers:
                    self.wfile.write(("data: %s\n\n" % json.dumps(answer)).encode())
                    self.wfile.flush()
                time.sleep(0.1)
            return
        if POLL:
            answer = pending.pop(self.headers.get("Last-Event-ID", ""), None)
            if answer is None:
                # The session's own stream: open and silent.
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.flush()
                time.sleep(3600)
                return
            body = ("id: done\ndata: %s\n\n" % json.dumps(answer)).encode()
            self.answer(200, body, ctype="text/event-stream", extra=[("Connection", "close")])
            self.close_connection = True
            return
        with lock:
            streams += 1
            n = streams
        after = self.headers.get("Last-Event-ID") or "first"
        note = {"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "stream %d after %s" % (n, after)}}
        event = "retry: 100\nid: e%d\ndata: %s\n\n" % (n, json.dumps(note))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if n >= 3:
            self.end_headers()
            self.wfile.write(event.encode())
            self.wfile.flush()
            time.sleep(3600)
            return
        body = event.encode()
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("listening on %d" % server.server_address[1], file=sys.stderr, flush=True)
server.serve_forever()
