#!/usr/bin/env python3
"""A Streamable HTTP MCP server (legacy era, no sessions) that never answers the first
HANG `tools/call` requests (it holds their connections open) and answers everything else
at once. Prints `listening on PORT` to stderr.

    hanging_http_server.py HANG
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HANG = int(sys.argv[1])
hung = 0
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        global hung
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        msg = json.loads(body)
        if "id" not in msg or "method" not in msg:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        method = msg["method"]
        if method == "tools/call":
            with lock:
                hang = hung < HANG
                hung += 1
            if hang:
                time.sleep(3600)
                return
        if method == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"],
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "hang", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "work", "description": "Does work.",
                                 "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "done"}]}
        else:
            result = {}
        out = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


class Server(ThreadingHTTPServer):
    # Room for every connection of a burst (the default backlog of 5 would make the
    # kernel drop SYNs and the client retry a second later).
    request_queue_size = 512


server = Server(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("listening on %d" % server.server_address[1], file=sys.stderr, flush=True)
server.serve_forever()
