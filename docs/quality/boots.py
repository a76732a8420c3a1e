#!/usr/bin/env python3
"""Draw the seeded random sample of replayed boots that QUALITY.md judges.

usage: boots.py REPLAY_JSON SEED N LORE TRANSCRIPTS

REPLAY_JSON is `lore measure --replay TRANSCRIPTS --json`: every session
replayed in time order, with the boot it would have started with (its
repository and agent, its first user message as the task, from what the
sessions before it taught). Of the boots that held a note, N are drawn
with SEED. For each, it prints on stdout the session, its notes and why
each is in, its first message, and the shell commands the session then
ran (LORE sessions show), to judge whether the session would have used a
note and whether one misleads.
"""
import json
import random
import subprocess
import sys


def main():
    replay, seed, n, lore, transcripts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    boots = [b for b in json.load(open(replay))["boots"]["by_session"] if b["notes"]]
    boots.sort(key=lambda b: b["session"])
    for k, b in enumerate(random.Random(seed).sample(boots, min(n, len(boots))), 1):
        print(f"##### {k} {b['session']} {b['repo']} {b['agent']} {b['tokens']} tokens")
        for note in b["notes"]:
            print(f"  note ({note['why']}) {note['text']}")
        shown = subprocess.run([lore, "sessions", "show", b["session"], "--in", transcripts, "--json"],
                               capture_output=True, text=True)
        try:
            session = json.loads(shown.stdout)
        except ValueError:
            print("  (the session could not be shown)")
            continue
        first = next((m.get("text", "") for m in session.get("transcript", [])
                      if m.get("role") == "user" and (m.get("text") or "").strip()), "")
        print("  first message:", " ".join(first.split())[:300])
        commands = []
        for m in session.get("transcript", []):
            for call in m.get("tool_calls") or []:
                args = call.get("input")
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except ValueError:
                        args = {}
                if isinstance(args, dict) and args.get("command"):
                    commands.append(" ".join(str(args["command"]).split())[:160])
        print(f"  {len(commands)} commands:")
        for c in commands[:30]:
            print("    $", c)


if __name__ == "__main__":
    main()
