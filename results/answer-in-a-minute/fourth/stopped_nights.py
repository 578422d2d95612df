"""What the committed nights would have held had the stopping rule been on: every run whose
first 3 repeats agree to the byte on all its bytes and count metrics keeps only those 3
(docs/scenario-format.md, "Stopping early"); the others keep every repeat.

    pinbench results upgrade NIGHT.json -o UPGRADED.json   # schema 4+: per-repeat samples
    python3 stopped_nights.py UPGRADED.json STOPPED.json
"""

import json
import sys

STOP_AT = 3


def agreed(run: dict) -> bool:
    metrics = run.get("metrics") or {}
    for m in metrics.values():
        samples = m.get("samples")
        if m.get("unit") in ("bytes", "count") and samples is not None and len(set(samples[:STOP_AT])) != 1:
            return False
    return run.get("status") == "ok"


def stop(doc: dict) -> tuple[int, int]:
    stopped = saved = 0
    for run in doc["runs"]:
        n = len(run.get("repeats") or [])
        if n <= STOP_AT or not agreed(run):
            continue
        stopped += 1
        saved += n - STOP_AT
        run["repeats"] = run["repeats"][:STOP_AT]
        for m in run["metrics"].values():
            if m.get("samples") is not None:
                m["samples"] = m["samples"][:STOP_AT]
                m["n"] = len(m["samples"])
    return stopped, saved


if __name__ == "__main__":
    src, dst = sys.argv[1:3]
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    stopped, saved = stop(doc)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    print(f"{src}: {stopped} runs stopped at {STOP_AT}, {saved} repeats saved")
