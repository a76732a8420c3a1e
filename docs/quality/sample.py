#!/usr/bin/env python3
"""Draw the seeded random sample of active items that QUALITY.md judges.

usage: sample.py [--tag=TAG] INDEX_JSON SEED N [LORE TRANSCRIPTS]

With --tag, the items drawn are those with the tag, whatever their status
(findings are candidates: --tag=finding).

Prints the sample as a TSV (id, category, repo, sessions, evidence, text)
on stdout. With LORE (a lore binary) and TRANSCRIPTS (the folder that was
harvested), it also prints to stderr the messages around each item's first
evidence, to judge it by.
"""
import json
import random
import subprocess
import sys


def main():
    tag = None
    if sys.argv[1].startswith("--tag="):
        tag = sys.argv.pop(1)[len("--tag="):]
    index, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    wanted = (lambda i: tag in (i.get("tags") or [])) if tag else (lambda i: i["status"] == "active")
    items = sorted((i for i in json.load(open(index))["facts"] if wanted(i)), key=lambda i: i["id"])
    sample = random.Random(seed).sample(items, min(n, len(items)))
    print("id\tcategory\trepo\tsessions\tevidence\ttext")
    for it in sample:
        ev = it["evidence"][0]
        print(f'{it["id"]}\t{it["category"]}\t{it["repo"] or "-"}\t{it["source_count"]}\t{ev["session"]}@{ev["position"]}\t{it["text"]}')
    if len(sys.argv) < 6:
        return
    lore, folder = sys.argv[4], sys.argv[5]
    cache = {}
    for k, it in enumerate(sample, 1):
        ev = it["evidence"][0]
        sid, pos = ev["session"], ev["position"]
        if sid not in cache:
            out = subprocess.run([lore, "sessions", "show", sid, "--in", folder, "--json"], capture_output=True, text=True).stdout
            cache[sid] = json.loads(out)["transcript"] if out else []
        print(f'\n##### {k}. {it["id"]} {it["category"]} [{it["repo"]}] x{it["source_count"]}: {it["text"]}', file=sys.stderr)
        for m in cache[sid]:
            if pos - 6 <= m["index"] <= pos + 1:
                line = m.get("text", "")[:300]
                for tc in m.get("tool_calls", []) or []:
                    line += f' CALL {tc["name"]}: {tc["input"][:300]}'
                for tr in m.get("tool_results", []) or []:
                    line += f' RESULT{" ERR" if tr.get("is_error") else ""}: {tr["output"][:300]}'
                print(f'  [{m["index"]} {m["role"]}] ' + line.replace("\n", " | "), file=sys.stderr)


main()
