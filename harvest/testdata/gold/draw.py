"""Draw the gold sessions: seed 18, sessions of 10 to 400 messages, a quota per agent.

    lore sessions ../shared/corpus-projects --json | python3 harvest/testdata/gold/draw.py
"""
import json
import random
import sys

ss = [json.loads(line) for line in sys.stdin if line.strip()]
ss = [s for s in ss if 10 <= s["messages"] <= 400]
ss.sort(key=lambda s: s["path"])
rng = random.Random(18)
quota = {"claude-code": 8, "codex": 4, "opencode": 5, "copilot": 2, "gemini-cli": 1}
for agent, n in quota.items():
    pool = [s for s in ss if s["agent"].startswith(agent)]
    for s in rng.sample(pool, min(n, len(pool))):
        print(s["path"].split("corpus-projects/")[1], s["agent"], s["messages"], sep="\t")
