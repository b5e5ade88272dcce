"""Episodes through the official MCP Python SDK (issue 27, points 1 and 7): episode_start,
observe and episode_end with good and bad input, journal and remember in the open episode's
context, search's context and with_context arguments.

Run by tests/mcp.rs: `test_episodes.py stdio BIN` with MEMSTR_DIR and MEMSTR_NSEC set.
Exits non-zero with a message on the first failed check.
"""

import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from test_mcp import Failed, call, check, text


async def episodes(s):
    tools = {t.name: t for t in (await s.list_tools()).tools}
    for name in ["episode_start", "observe", "episode_end"]:
        check(name in tools and len(tools[name].description) > 40, f"no {name} tool")
    check("with_context" in tools["search"].input_schema["properties"], "search has no with_context")
    for name in ["search", "journal", "remember"]:
        check("context" in tools[name].input_schema["properties"], f"{name} has no context")

    # Nothing open: observe and episode_end say what to do.
    await call(s, "observe", {"content": "nothing is open"}, ok=False)
    await call(s, "episode_end", {}, ok=False)
    await call(s, "episode_start", {"title": ""}, ok=False)

    r = await call(s, "episode_start", {"title": "Fix the billing deploy", "context": "project:billing"})
    ep = r.structured_content["id"]
    check(ep.startswith("ep-") and ep in text(r), f"episode_start: {text(r)}")
    r = await call(s, "observe", {"content": "The staging deploy of billing timed out on the migration.",
                                  "action": "deploy billing", "outcome": "failure"})
    check(r.structured_content["trajectory"] == 0 and r.structured_content["episode"] == ep, f"observe: {r.structured_content}")
    r = await call(s, "observe", {"content": "Raised the billing migration timeout to 120 seconds.", "episode": ep})
    check(r.structured_content["trajectory"] == 0, f"same subject, same trajectory: {r.structured_content}")
    await call(s, "observe", {"content": "x", "episode": "ep-unknown"}, ok=False)
    await call(s, "observe", {"content": "x", "episode": "../etc"}, ok=False)

    # Writes in the open episode carry its context.
    await call(s, "journal", {"content": "Asked Dana to review the billing migration."})
    await call(s, "remember", {"content": "The billing migration needs a 120 second timeout on staging"})

    r = await call(s, "search", {"query": "timeout 120 seconds", "kinds": ["journal"], "with_context": True})
    items = r.structured_content["results"]
    check(items, f"nothing found: {text(r)}")
    episode = items[0].get("episode")
    check(episode and episode["title"] == "Fix the billing deploy", f"no episode context: {items[0]}")
    check("Fix the billing deploy" in text(r), f"the context is not in the text: {text(r)}")
    r = await call(s, "search", {"query": "timeout 120 seconds", "kinds": ["journal"]})
    check("episode" not in r.structured_content["results"][0], "context without with_context")

    r = await call(s, "episode_end", {"outcome": "success"})
    check(r.structured_content["outcome"] == "success" and r.structured_content["ended_at"], f"end: {r.structured_content}")
    err = await call(s, "observe", {"content": "too late", "episode": ep}, ok=False)
    check("ended" in text(err), f"ended episode: {text(err)}")
    await call(s, "episode_end", {"episode": ep}, ok=False)


async def main_stdio(bin_path):
    env = {k: v for k, v in os.environ.items() if k.startswith("MEMSTR_") or k in ("PATH", "HOME")}
    params = StdioServerParameters(command=bin_path, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await episodes(s)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        if mode == "stdio":
            asyncio.run(main_stdio(args[0]))
        else:
            raise Failed(f"unknown mode {mode}")
    except Failed as e:
        print(f"FAILED ({mode}): {e}", file=sys.stderr)
        sys.exit(1)
    print(f"ok ({mode})")


if __name__ == "__main__":
    main()
