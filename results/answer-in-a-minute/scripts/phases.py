"""Where a results file's repeat time went: per phase (results schema 5's phases_ms), the
child's context and settle waits, and what the stopping rule saved. Python 3 standard library.

    python3 results/answer-in-a-minute/scripts/phases.py RESULTS.json [...]
"""

import json
import sys
from collections import defaultdict


def summary(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    phases: dict[str, float] = defaultdict(float)
    wall = context = settle = 0.0
    attempts = planned = measured = saved = 0
    for run in doc["runs"]:
        stopping = run.get("stopping")
        if stopping:
            planned += stopping["planned"]
            measured += stopping["stopped_at"]
            if stopping["why"].startswith("agreed"):
                saved += stopping["planned"] - stopping["stopped_at"]
        for r in run["repeats"]:
            attempts += 1
            wall += r["wall_ms"]
            context += r.get("timings_ms", {}).get("context", 0.0)
            settle += sum(s.get("settle_ms", 0.0) for s in r.get("snapshots", []))
            for name, ms in r.get("phases_ms", {}).items():
                phases[name] += ms
    lines = [
        f"{path}: schema {doc['schema_version']}, {len(doc['runs'])} runs, {attempts} attempts, "
        f"started {doc['started_at']} finished {doc['finished_at']}",
        f"  child wall {wall / 1000:.1f} s (context {context / 1000:.1f} s, settle waits {settle / 1000:.1f} s)",
    ]
    if phases:
        lines.append("  phases: " + ", ".join(f"{k} {v / 1000:.1f} s" for k, v in sorted(phases.items())))
    if planned:
        lines.append(f"  repeats: planned {planned}, measured {measured}, saved by the stopping rule {saved}")
    return "\n".join(lines)


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(summary(p))
