#!/usr/bin/env python3
"""A protected MCP server and its own OAuth authorization server, on one loopback port,
for the OAuth client tests. No UI: /as/authorize redirects straight back.

    oauth_server.py [MODE[,MODE...]]

Prints `listening on PORT` to stderr. Paths (BASE = http://127.0.0.1:PORT):
  /mcp                                         MCP (legacy era, JSON answers); 401 with
                                               `WWW-Authenticate: Bearer resource_metadata=…`
                                               unless a valid access token is sent
  /.well-known/oauth-protected-resource/mcp    RFC 9728 metadata (issuer BASE/as)
  /.well-known/oauth-authorization-server/as   RFC 8414 metadata
  /as/register  /as/authorize  /as/token       RFC 7591, RFC 6749 + PKCE (S256 checked),
                                               RFC 8707 resource checked, RFC 9207 iss sent
  /stats                                       what happened, and every token and code
                                               issued (so the test can look for leaks)
Modes: foreign_issuer (metadata names another issuer), no_s256, private_token (token
endpoint on a private address), wrong_iss, no_iss (iss promised but not sent),
wrong_state, deny (error=access_denied), short (access tokens expire in 5 s), refresh_fail (refresh grants refused),
reject_tokens (/mcp refuses every token).
"""
import base64
import hashlib
import json
import secrets
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = set(filter(None, (sys.argv[1] if len(sys.argv) > 1 else "").split(",")))
PRE_REGISTERED = "pre-registered-client"
lock = threading.Lock()
state = {
    "clients": {PRE_REGISTERED: None},  # client_id -> registered redirect URIs (None: any loopback)
    "codes": {},  # code -> grant
    "access": {},  # access token -> client_id
    "refresh": {},  # refresh token -> grant
    "stats": {"registrations": 0, "authorizations": 0, "code_grants": 0, "refresh_grants": 0,
              "pkce_failures": 0, "mcp_unauthorized": 0, "mcp_authorized": 0,
              "resource_seen": [], "scopes_seen": []},
    "issued": [],  # every code and token handed out
}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def redirect_ok(client_id, uri):
    """RFC 8252 §7.3: a loopback redirect URI matches a registered one in any port."""
    allowed = state["clients"].get(client_id, "unknown")
    if allowed == "unknown":
        return False
    parsed = urllib.parse.urlsplit(uri)
    if parsed.scheme != "http" or parsed.hostname != "127.0.0.1":
        return False
    if allowed is None:
        return True
    portless = urllib.parse.urlunsplit(("http", "127.0.0.1", parsed.path, parsed.query, ""))
    return portless in allowed


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def send(self, status, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        base = self.base
        issuer = base + "/as"
        if url.path in ("/.well-known/oauth-protected-resource/mcp",
                        "/.well-known/oauth-protected-resource"):
            return self.send(200, {"resource": base + "/mcp", "authorization_servers": [issuer],
                                   "scopes_supported": ["mcp:tools", "mcp:read"]})
        if url.path == "/.well-known/oauth-authorization-server/as":
            meta = {"issuer": issuer,
                    "authorization_endpoint": issuer + "/authorize",
                    "token_endpoint": issuer + "/token",
                    "registration_endpoint": issuer + "/register",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "authorization_response_iss_parameter_supported": True}
            if "foreign_issuer" in MODES:
                meta["issuer"] = "http://127.0.0.1:9/someone-else"
            if "no_s256" in MODES:
                meta["code_challenge_methods_supported"] = ["plain"]
            if "private_token" in MODES:
                meta["token_endpoint"] = "https://10.0.0.7/token"
            return self.send(200, meta)
        if url.path == "/as/authorize":
            return self.authorize(q, issuer, base)
        if url.path == "/stats":
            with lock:
                return self.send(200, {**state["stats"], "issued": state["issued"],
                                       "clients": [c for c in state["clients"] if c != PRE_REGISTERED]})
        return self.send(404, {"error": "not_found"})

    def authorize(self, q, issuer, base):
        client_id, redirect_uri = q.get("client_id", ""), q.get("redirect_uri", "")
        with lock:
            if not redirect_ok(client_id, redirect_uri):
                return self.send(400, "unknown client or redirect_uri", "text/plain")
            if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" \
                    or not q.get("code_challenge") or not q.get("state"):
                return self.send(400, "PKCE S256, response_type=code and state are required",
                                 "text/plain")
            if q.get("resource") != base + "/mcp":
                return self.send(400, "resource must be the MCP server URL", "text/plain")
            state["stats"]["authorizations"] += 1
            state["stats"]["resource_seen"].append(q.get("resource"))
            state["stats"]["scopes_seen"].append(q.get("scope", ""))
            code = "code_" + secrets.token_urlsafe(16)
            state["issued"].append(code)
            state["codes"][code] = {"client_id": client_id, "redirect_uri": redirect_uri,
                                    "challenge": q["code_challenge"], "resource": q["resource"],
                                    "scope": q.get("scope", "")}
        back = {"code": code, "state": q["state"], "iss": issuer}
        if "wrong_iss" in MODES:
            back["iss"] = "http://127.0.0.1:9/evil-as"
        if "no_iss" in MODES:
            del back["iss"]
        if "wrong_state" in MODES:
            back["state"] = "forged-" + q["state"]
        if "deny" in MODES:
            del back["code"]
            back["error"] = "access_denied"
            back["error_description"] = "the user said no"
        location = redirect_uri + "?" + urllib.parse.urlencode(back)
        return self.send(302, b"", "text/plain", [("Location", location)])

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/as/register":
            doc = json.loads(self.body() or b"{}")
            uris = doc.get("redirect_uris") or []
            if not uris or doc.get("token_endpoint_auth_method") != "none":
                return self.send(400, {"error": "invalid_client_metadata"})
            with lock:
                client_id = "dyn-" + secrets.token_hex(4)
                state["clients"][client_id] = uris
                state["stats"]["registrations"] += 1
            return self.send(201, {"client_id": client_id, "redirect_uris": uris,
                                   "token_endpoint_auth_method": "none"})
        if url.path == "/as/token":
            return self.token(dict(urllib.parse.parse_qsl(self.body().decode())))
        if url.path == "/mcp":
            return self.mcp()
        return self.send(404, {"error": "not_found"})

    def issue(self, client_id, resource, scope):
        access = "at_" + secrets.token_urlsafe(24)
        refresh = "rt_" + secrets.token_urlsafe(24)
        state["access"][access] = client_id
        state["refresh"][refresh] = {"client_id": client_id, "resource": resource, "scope": scope}
        state["issued"] += [access, refresh]
        return {"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
                "expires_in": 5 if "short" in MODES else 3600, "scope": scope}

    def token(self, form):
        grant = form.get("grant_type")
        with lock:
            if grant == "authorization_code":
                g = state["codes"].get(form.get("code", ""))
                if g is None or g["client_id"] != form.get("client_id") \
                        or g["redirect_uri"] != form.get("redirect_uri") \
                        or g["resource"] != form.get("resource"):
                    return self.send(400, {"error": "invalid_grant"})
                verifier = form.get("code_verifier", "")
                if b64url(hashlib.sha256(verifier.encode()).digest()) != g["challenge"]:
                    state["stats"]["pkce_failures"] += 1
                    return self.send(400, {"error": "invalid_grant",
                                           "error_description": "PKCE verification failed"})
                del state["codes"][form["code"]]
                state["stats"]["code_grants"] += 1
                return self.send(200, self.issue(g["client_id"], g["resource"], g["scope"]))
            if grant == "refresh_token":
                g = state["refresh"].get(form.get("refresh_token", ""))
                if "refresh_fail" in MODES or g is None or g["client_id"] != form.get("client_id"):
                    return self.send(400, {"error": "invalid_grant"})
                del state["refresh"][form["refresh_token"]]
                state["stats"]["refresh_grants"] += 1
                return self.send(200, self.issue(g["client_id"], g["resource"], g["scope"]))
        return self.send(400, {"error": "unsupported_grant_type"})

    def mcp(self):
        body = self.body()
        auth = self.headers.get("Authorization", "")
        with lock:
            client = state["access"].get(auth[len("Bearer "):]) if auth.startswith("Bearer ") else None
            if client is None:
                state["stats"]["mcp_unauthorized"] += 1
            else:
                state["stats"]["mcp_authorized"] += 1
        if "reject_tokens" in MODES:
            client = None
        if client is None:
            challenge = 'Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", ' \
                        'scope="mcp:tools"' % self.base
            return self.send(401, {"error": "invalid_token"},
                             headers=[("WWW-Authenticate", challenge)])
        msg = json.loads(body)
        if "id" not in msg or "method" not in msg:
            return self.send(202)
        method = msg["method"]
        if method == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"],
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "guarded", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "description": "Says who is calling.",
                                 "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "authorized client " + client}]}
        else:
            result = {}
        return self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("listening on %d" % server.server_address[1], file=sys.stderr, flush=True)
server.serve_forever()
