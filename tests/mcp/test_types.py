"""Memory types, goals, procedures' outcomes and feedback through the official MCP Python SDK
(issue 27, points 2 and 3): remember's type and goal_status, search's type and tier filters,
the feedback, outcome and goal tools, introspect's counts and open goals, bad input refused
with a message that says what to give.

Run by tests/mcp.rs: `test_types.py stdio BIN` with MEMSTR_DIR and MEMSTR_NSEC set.
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


async def refused(s, name, args, words):
    res = await s.call_tool(name, args)
    check(res.is_error and words in text(res), f"{name}({args}) should be refused with {words!r}: {text(res)}")


async def types(s):
    tools = {t.name: t for t in (await s.list_tools()).tools}
    for name in ["feedback", "outcome", "goal"]:
        check(name in tools, f"no {name} tool")
    check("type" in tools["remember"].input_schema["properties"], "remember has no type")
    check("goal_status" in tools["remember"].input_schema["properties"], "remember has no goal_status")
    check("type" in tools["search"].input_schema["properties"], "search has no type")
    check("tier" in tools["search"].input_schema["properties"], "search has no tier")

    proc = (await call(s, "remember", {"content": "To deploy the relay run make deploy-relay from the ops folder",
                                       "type": "procedure", "key": "deploy-relay"})).structured_content
    check(proc["address"] == "notes/procedures/deploy-relay", f"a procedure lands in procedures: {proc}")
    goal = (await call(s, "remember", {"content": "Ship the relay dashboard before the summer",
                                       "key": "ship-dashboard", "goal_status": "open"})).structured_content
    check(goal["address"] == "notes/goals/ship-dashboard", f"a status alone makes a goal: {goal}")
    await call(s, "remember", {"content": "The relay dashboard uses Grafana", "key": "dashboard-grafana"})
    await refused(s, "remember", {"content": "x y z", "type": "chore"}, "unknown type")
    await refused(s, "remember", {"content": "x y z", "type": "fact", "goal_status": "done"}, "goal_status is for goals")

    # The type filter keeps to procedures; each item says its type, tier and reliability.
    for ok in [True, True, False]:
        await call(s, "outcome", {"key": "deploy-relay", "success": ok})
    r = await call(s, "search", {"query": "relay", "type": ["procedure"], "min_strength": 0})
    items = r.structured_content["results"]
    check([i["address"] for i in items] == ["notes/procedures/deploy-relay"], f"type filter: {items}")
    rel = items[0]["reliability"]
    check(rel["successes"] == 2 and rel["failures"] == 1 and abs(rel["mean"] - 0.6) < 1e-9, f"reliability: {rel}")
    check(items[0]["type"] == "procedure" and items[0]["tier"] in ("working", "episodic"), f"item: {items[0]}")
    check("reliability 0.60 over 3 outcomes" in text(r), f"the text does not say how reliable: {text(r)}")
    r = await call(s, "search", {"query": "relay", "tier": ["semantic"], "min_strength": 0})
    check(not r.structured_content["results"], f"nothing is semantic yet: {r.structured_content}")
    await refused(s, "search", {"query": "relay", "type": ["chore"]}, "unknown type")
    await refused(s, "search", {"query": "relay", "tier": ["cold"]}, "unknown tier")
    await refused(s, "outcome", {"key": "dashboard-grafana", "success": True}, "procedure")

    # Feedback is counted; a goal's status changes; introspect counts and lists.
    r = await call(s, "feedback", {"key": "dashboard-grafana", "useful": False})
    check(r.structured_content["feedback"]["failures"] == 1, f"feedback: {r.structured_content}")
    r = await call(s, "introspect", {})
    rep = r.structured_content
    check(rep["open_goals"] == ["ship-dashboard"], f"open goals: {rep}")
    check(rep["by_type"].get("procedure") == 1 and rep["by_type"].get("goal") == 1, f"by type: {rep}")
    await call(s, "goal", {"key": "ship-dashboard", "status": "done"})
    rep = (await call(s, "introspect", {})).structured_content
    check(not rep.get("open_goals"), f"a done goal is not open: {rep}")
    await refused(s, "goal", {"key": "ship-dashboard", "status": "someday"}, "open, done or dropped")
    await refused(s, "goal", {"key": "dashboard-grafana", "status": "done"}, "goal")


async def stdio_mode(bin_path):
    env = {k: v for k, v in os.environ.items() if k.startswith("MEMSTR_") or k in ("PATH", "HOME")}
    params = StdioServerParameters(command=bin_path, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await types(s)


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
