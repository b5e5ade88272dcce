"""Dream insights through the official MCP Python SDK (issue 27, point 6): `consolidate`
finds them, `introspect` returns them with the memories they rest on, quoted inside the
report's JSON and bounded by max_tokens.

Run by tests/mcp.rs: `test_dreams.py stdio BIN` with MEMSTR_DIR and MEMSTR_NSEC set, on a
store holding five memories of the theme "running" written on five days.
Exits non-zero with a message on the first failed check.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from test_mcp import Failed, check, text


async def call(s, name, args):
    res = await s.call_tool(name, args)
    check(not res.is_error, f"{name}({args}) failed: {text(res)}")
    return res


async def dreams(s):
    tools = {t.name: t for t in (await s.list_tools()).tools}
    check("insights" in tools["introspect"].description, "introspect does not say it shows insights")
    r = await call(s, "consolidate", {})
    check(r.structured_content["insights"] >= 1, f"consolidate found no insight: {text(r)}")
    r = await call(s, "introspect", {})
    insights = r.structured_content.get("insights", [])
    pattern = [i for i in insights if i["kind"] == "recurring-pattern"]
    check(len(pattern) == 1, f"no recurring pattern: {insights}")
    check(len(pattern[0]["evidence"]) == 5, f"evidence: {pattern[0]}")
    check(pattern[0]["evidence"][0] == "sense-memory/persona/self/facts/run-4", f"newest first: {pattern[0]}")
    body = text(r)
    check("insight(s) from consolidation" in body, f"reply does not count the insights: {body}")
    # Stored text only as JSON string literals: the escape in the theme never comes raw.
    check("\x1b" not in body and "\\u001b" in body, f"theme not quoted: {body!r}")
    # Bounded: a small budget leaves lists out and says so.
    r = await call(s, "introspect", {"max_tokens": 120})
    check(r.structured_content["omitted"] > 0 and len(text(r)) < 120 * 6 + 400, f"budget: {text(r)}")
    # A second cycle with nothing new writes nothing.
    r = await call(s, "consolidate", {})
    check(r.structured_content["insights_written"] == 0, f"second cycle wrote: {text(r)}")


async def stdio_mode(bin_path):
    env = {k: v for k, v in os.environ.items() if k.startswith("MEMSTR_") or k in ("PATH", "HOME")}
    params = StdioServerParameters(command=bin_path, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await dreams(s)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        if mode != "stdio":
            raise Failed(f"unknown mode {mode}")
        asyncio.run(stdio_mode(args[0]))
    except Failed as e:
        print(f"FAILED ({mode}): {e}", file=sys.stderr)
        sys.exit(1)
    print(f"ok ({mode})")


if __name__ == "__main__":
    main()
