"""The right memory through the official MCP Python SDK (issue 23): the trial's gate cases
decided right, every search item marked with where it stands, a superseded memory shown only
as history and after its replacement.

Run by tests/mcp.rs: `test_right_memory.py stdio BIN` with MEMSTR_DIR and MEMSTR_NSEC set.
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


async def remember(s, content):
    r = await call(s, "remember", {"content": content})
    return r.structured_content


CORRECTIONS = [
    ("I live in Berlin, in a flat in Kreuzberg", "Actually, I moved from Berlin to Lisbon"),
    ("I drink two coffees every morning", "I no longer drink coffee"),
    ("Login uses Auth0", "We moved login from Auth0 to WorkOS"),
    ("I run 5 km three times a week", "I stopped running"),
    ("My phone is an iPhone 13", "I replaced my iPhone 13 with a Pixel 9"),
]


async def right_memory(s):
    for line in ["Never deploy to production on Friday afternoons", "My blood type is A positive",
                 "The team standup is at 9:30 every weekday"]:
        await remember(s, line)
    # Another attribute of the same person or product: related, never a correction.
    for old, new in [("Ben Carter is the ops lead at Acme", "Ben Carter's team works from Rotterdam"),
                     ("Beacon is the driver app", "Beacon has about 1,100 daily active drivers")]:
        first = await remember(s, old)
        got = await remember(s, new)
        check(got["decision"] != "supersede", f"{new!r} superseded {old!r}: {got}")
        r = await call(s, "recall", {"key": first["address"]})
        check(r.structured_content["memory"]["state"] != "superseded", f"{old!r}: {r.structured_content}")
    # Corrections without a cue word supersede the memory they correct.
    olds = {}
    for old, _ in CORRECTIONS:
        olds[old] = (await remember(s, old))["address"]
    for old, new in CORRECTIONS:
        got = await remember(s, new)
        check(got["decision"] == "supersede" and got["existing_path"] == olds[old],
              f"{new!r} should supersede {olds[old]}: {got}")
        r = await call(s, "recall", {"key": olds[old]})
        m = r.structured_content["memory"]
        check(m["state"] == "superseded" and m["superseded_by"] == got["address"], f"recall old: {m}")

    # Search: the current truth only, each item saying where it stands...
    r = await call(s, "search", {"query": "login Auth0", "min_strength": 0})
    items = r.structured_content["results"]
    check(items, f"nothing found: {text(r)}")
    check(all(i.get("state") for i in items), f"an item without a state: {items}")
    check(not any(i["content"] == "Login uses Auth0" for i in items), f"the old login shown: {items}")
    check(any("WorkOS" in i["content"] for i in items), f"the replacement missing: {items}")
    # ...and history when asked, each old memory after the one that replaced it.
    r = await call(s, "search", {"query": "login Auth0", "min_strength": 0, "history": True})
    items = r.structured_content["results"]
    contents = [i["content"] for i in items]
    check("Login uses Auth0" in contents, f"history missing the old memory: {contents}")
    old = contents.index("Login uses Auth0")
    new = next(k for k, c in enumerate(contents) if "WorkOS" in c)
    check(new < old, f"the old memory ranks above its replacement: {contents}")
    check(items[old]["state"] == "superseded" and items[old]["superseded_by"], f"old item: {items[old]}")
    check("superseded" in text(r), f"the text does not say superseded: {text(r)}")

    # The agent's own phrasings and a hypothetical answer are searched and fused.
    await remember(s, "Bob's birthday is on 14 March")
    r = await call(s, "search", {"query": "when should we buy a present?",
                                 "hypothetical": "Bob's birthday is coming up", "phrasings": ["gift for a birthday"]})
    contents = [i["content"] for i in r.structured_content["results"]]
    check(contents and contents[0] == "Bob's birthday is on 14 March", f"hypothetical: {contents}")
    res = await s.call_tool("search", {"query": "present", "phrasings": ["a", "b", "c", "d", "e"]})
    check(res.is_error and "at most 4" in text(res), f"five phrasings: {text(res)}")


async def stdio_mode(bin_path):
    env = {k: v for k, v in os.environ.items() if k.startswith("MEMSTR_") or k in ("PATH", "HOME")}
    params = StdioServerParameters(command=bin_path, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await right_memory(s)


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
