"""Retroactive importance and retrieval-induced forgetting through the official MCP Python
SDK: `important`, `clusters`, `strength`, and a `search` whose winner's
near duplicate loses a recall. One server with both behaviours on, one with them off.

Run by tests/mcp.rs: `test_strength.py stdio BIN` with MEMSTR_DIR and MEMSTR_NSEC set.
Exits non-zero with a message on the first failed check.
"""

import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from test_mcp import Failed, check, text


async def call(s, name, args):
    res = await s.call_tool(name, args)
    check(not res.is_error, f"{name}({args}) failed: {text(res)}")
    return res


async def remember(s, key, content, facet="log"):
    r = await call(s, "remember", {"content": content, "key": key, "domain": "work", "facet": facet})
    return r.structured_content["address"]


async def behaviours_on(s):
    beside = await remember(s, "beside", "The quarterly budget review moved to Thursday")
    news = await remember(s, "news", "Dana is leaving the company at the end of the month")
    r = await call(s, "important", {"key": news})
    c = r.structured_content
    check(c["enabled"] and c["cluster"]["kind"] == "flag", f"mark_important: {c}")
    check(beside in c["cluster"]["captured"], f"a memory written seconds before is captured: {c}")
    check('"work/log/beside"' in text(r), f"captured addresses are quoted: {text(r)}")
    r = await call(s, "clusters", {})
    clusters = r.structured_content["clusters"]
    check(clusters and clusters[0]["source"] == news, f"importance_clusters: {clusters}")
    r = await call(s, "strength", {"key": beside})
    st = r.structured_content
    check(st["captured_importance"] == 0.5 and st["captured_by"][0]["source"] == news, f"memory_strength: {st}")
    res = await s.call_tool("strength", {"key": "no-such-memory"})
    check(res.is_error and "search" in text(res), f"a missing memory: {text(res)}")
    res = await s.call_tool("clusters", {"max_tokens": 5})
    check(res.is_error and "max_tokens" in text(res), f"a tiny budget: {text(res)}")

    winner = await remember(s, "winner", "Alice drinks green tea every morning at the office in Lisbon")
    # Another facet, so the gate keeps both (it merges near duplicates within a facet).
    rival = await remember(s, "rival", "Alice drinks green tea every morning at the office in Porto", "diary")
    check(rival != winner, f"two memories: {rival}")
    r = await call(s, "search", {"query": "Alice green tea every morning office Lisbon"})
    results = r.structured_content["results"]
    check(results and results[0]["address"] == winner, f"the winner first: {results}")
    check(any(i["address"] == rival for i in results), f"the rival is a hit below the winner: {results}")
    st = (await call(s, "strength", {"key": rival})).structured_content
    check(st["losses"] == 1 and st["competition_factor"] == 0.95, f"the rival lost a recall: {st}")
    st = (await call(s, "strength", {"key": winner})).structured_content
    check(st["losses"] == 0, f"the winner lost nothing: {st}")


async def behaviours_off(s):
    news = await remember(s, "other-news", "The office moves to the harbour in May")
    r = await call(s, "important", {"key": news})
    check(r.structured_content == {"enabled": False} and "off" in text(r), f"off: {text(r)}")
    r = await call(s, "clusters", {})
    check(all(c["source"] != news for c in r.structured_content["clusters"]), f"off: {r.structured_content}")


async def run(bin_path, behaviours, body):
    env = {k: v for k, v in os.environ.items() if k.startswith("MEMSTR_") or k in ("PATH", "HOME")}
    env["MEMSTR_BEHAVIOURS"] = behaviours
    params = StdioServerParameters(command=bin_path, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await body(s)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        if mode != "stdio":
            raise Failed(f"unknown mode {mode}")
        asyncio.run(run(args[0], "retroactive-importance=on,retrieval-forgetting=on", behaviours_on))
        asyncio.run(run(args[0], "retroactive-importance=off,retrieval-forgetting=off", behaviours_off))
    except Failed as e:
        print(f"FAILED ({mode}): {e}", file=sys.stderr)
        sys.exit(1)
    print(f"ok ({mode})")


if __name__ == "__main__":
    main()
