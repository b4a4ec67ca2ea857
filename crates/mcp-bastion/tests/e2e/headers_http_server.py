#!/usr/bin/env python3
"""A Streamable HTTP MCP server (legacy era, one session per `initialize`, JSON answers)
whose one tool `seen_headers` answers with the request headers it received, so a test
can see what a gateway in front of it forwards. Prints `listening on PORT` to stderr.

    headers_http_server.py
"""
import json
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOLS = [{"name": "seen_headers", "description": "Returns the request's headers.",
          "inputSchema": {"type": "object"},
          "annotations": {"readOnlyHint": True, "openWorldHint": False}}]
SESSIONS = set()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, session=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        if session:
            self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer(405)

    def do_DELETE(self):
        SESSIONS.discard(self.headers.get("Mcp-Session-Id"))
        self.answer(200)

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        method, mid = msg.get("method"), msg.get("id")
        if mid is None:
            self.answer(202)
            return
        if method == "initialize":
            session = uuid.uuid4().hex
            SESSIONS.add(session)
            self.answer(200, {"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "headers-http", "version": "1"}}}, session)
            return
        if self.headers.get("Mcp-Session-Id") not in SESSIONS:
            self.answer(404, {"jsonrpc": "2.0", "id": mid,
                              "error": {"code": -32001, "message": "unknown session"}})
            return
        if method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            seen = {k.lower(): v for k, v in self.headers.items()}
            result = {"content": [{"type": "text", "text": json.dumps(seen, sort_keys=True)}]}
        else:
            result = {}
        self.answer(200, {"jsonrpc": "2.0", "id": mid, "result": result})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on %d" % server.server_address[1], file=sys.stderr, flush=True)
server.serve_forever()
