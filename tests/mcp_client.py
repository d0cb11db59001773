"""Drives an MCP server with the official Python SDK's client (PyPI `mcp`), for tests/tests/mcp.rs.

Reads a plan as JSON on stdin: {"url": ..., "headers": {...}, "calls": [[tool, arguments], ...]}. Connects over
Streamable HTTP (the SDK negotiates the protocol revision), lists the tools, makes the calls in order, and prints
one JSON object: the negotiated protocol, the server's name and instructions, the tools (name, description, input
and output schemas), and per call either the result (structured content, text, isError) or the JSON-RPC error
(code, message). A connection that fails prints {"connect_error": ...} instead.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


def leaf_errors(e):
    """The innermost exceptions of an exception group."""
    if isinstance(e, BaseExceptionGroup):
        for inner in e.exceptions:
            yield from leaf_errors(inner)
    else:
        yield e


async def run(plan):
    out = {"calls": []}
    http = httpx2.AsyncClient(headers=plan.get("headers") or {}, timeout=120)
    transport = streamable_http_client(plan["url"], http_client=http)
    try:
        async with Client(transport) as client:
            out["protocol"] = client.protocol_version
            info = client.server_info
            out["server"] = info.name if info else None
            out["instructions"] = client.instructions
            tools = await client.list_tools()
            out["tools"] = [
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.input_schema,
                    "output_schema": t.output_schema,
                }
                for t in tools.tools
            ]
            for name, arguments in plan.get("calls", []):
                try:
                    r = await client.call_tool(name, arguments)
                    out["calls"].append(
                        {
                            "tool": name,
                            "is_error": bool(r.is_error),
                            "structured": r.structured_content,
                            "text": "".join(getattr(c, "text", "") for c in r.content),
                        }
                    )
                except MCPError as e:
                    out["calls"].append(
                        {"tool": name, "error": {"code": e.error.code, "message": e.error.message}}
                    )
    except BaseException as e:  # noqa: BLE001 - reported to the test, which decides
        errors = [f"{type(x).__name__}: {x}" for x in leaf_errors(e)]
        if not out.get("tools"):
            return {"connect_error": errors}
        out["failure"] = errors
    return out


def main():
    plan = json.load(sys.stdin)
    print(json.dumps(asyncio.run(run(plan))))


if __name__ == "__main__":
    main()
