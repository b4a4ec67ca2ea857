#!/usr/bin/env python3
"""A small server built with the official Python SDK (`mcp` on PyPI). It speaks both
eras on stdio: the legacy initialize handshake and stateless 2026-07-28
(server/discover, per-request _meta). One resource returns terminal escapes so the
tests can see the gateway clean a stateless-era result."""
from mcp.server.mcpserver import MCPServer

app = MCPServer("py-dual-era")


@app.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@app.tool()
def shout(text: str) -> str:
    """Returns the text in upper case."""
    return text.upper()


@app.resource("memo://greeting")
def greeting() -> str:
    """A greeting with colour codes."""
    return "hello \x1b[31mred\x1b[0m world"


@app.prompt()
def review(code: str) -> str:
    """Review some code."""
    return f"Please review: {code}"


if __name__ == "__main__":
    app.run()
