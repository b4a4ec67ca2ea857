#!/usr/bin/env python3
"""One MCP client session with the official Python SDK (`mcp` on PyPI), used by the
end-to-end tests to compare a server reached directly with the same server behind
`mcp-bastion wrap`.

    session.py MODE SCRIPT -- COMMAND [ARGS...]
    session.py MODE SCRIPT -- URL     (Streamable HTTP; bearer token from MCP_TEST_BEARER)

MODE is "legacy" (initialize handshake) or "auto" (server/discover probe, 2026-07-28
when the server speaks it). SCRIPT is a JSON list of steps:
    {"op": "list_tools"} | {"op": "call_tool", "name": ..., "arguments": {...}}
    {"op": "read_resource", "uri": ...} | {"op": "get_prompt", "name": ..., "arguments": {...}}
    {"op": "list_prompts"} | {"op": "list_resources"} | {"op": "list_resource_templates"}
Prints one JSON object: {"protocol_version": ..., "steps": [<result or {"error": ...}>...]}.
"""
import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def run(mode, steps, argv):
    # The SDK passes only a minimal environment to the server by default; the tests
    # point the gateway at a temporary store through MCP_BASTION_STORE.
    if argv[0].startswith(("http://", "https://")):
        bearer = os.environ.get("MCP_TEST_BEARER")
        headers = {"Authorization": "Bearer " + bearer} if bearer else {}
        params = streamable_http_client(argv[0], http_client=create_mcp_http_client(headers=headers))
    else:
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    out = {"steps": []}
    async with Client(params, mode=mode, cache=None) as client:
        out["protocol_version"] = client.protocol_version
        out["server_info"] = dump(client.server_info) if client.server_info else None
        for step in steps:
            op = step["op"]
            try:
                if op == "list_tools":
                    res = await client.list_tools()
                elif op == "list_prompts":
                    res = await client.list_prompts()
                elif op == "list_resources":
                    res = await client.list_resources()
                elif op == "list_resource_templates":
                    res = await client.list_resource_templates()
                elif op == "call_tool":
                    res = await client.call_tool(step["name"], step.get("arguments") or {})
                elif op == "read_resource":
                    res = await client.read_resource(step["uri"])
                elif op == "get_prompt":
                    res = await client.get_prompt(step["name"], step.get("arguments") or {})
                else:
                    raise SystemExit("unknown op " + op)
                out["steps"].append(dump(res))
            except MCPError as e:
                out["steps"].append({"error": {"code": e.error.code, "message": e.error.message,
                                               "data": e.error.data}})
    return out


def main():
    mode, script = sys.argv[1], json.loads(sys.argv[2])
    argv = sys.argv[3:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    print(json.dumps(asyncio.run(run(mode, script, argv)), sort_keys=True))


if __name__ == "__main__":
    main()
