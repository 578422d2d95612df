"""How the fresh-start night differs from the other three, per time metric family (the figures
in this folder's README and NOTES.md, and reports/README.md "A/A: measured"):

    python3 results/h200-aa-fresh/scripts/compare_nights.py

For each time.* metric, over the runs all four nights measured: the fresh night's median over
the median of the other three nights' medians; printed per family as the geometric mean, the
range and the number of runs, for the overhead runs and for every run."""

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OTHERS = [
    "results/h200-kinds-nightly/results.json",
    "results/h200-watch-cost/nightly-watch-on.json",
    "results/h200-watch-cost/nightly-watch-off.json",
]
FRESH = "results/h200-aa-fresh/results.json"


def medians(path: str) -> dict[tuple[str, str], float]:
    out = {}
    for run in json.loads((ROOT / path).read_text())["runs"]:
        for name, m in run.get("metrics", {}).items():
            if name.startswith("time.") and isinstance(m, dict) and run.get("status") == "ok":
                out[(run["id"], name)] = float(m["median"])
    return out


def main() -> int:
    others = [medians(p) for p in OTHERS]
    fresh = medians(FRESH)
    for scope, keep in (
        ("overhead runs", lambda rid: rid.startswith("nightly-overhead")),
        ("every run", lambda rid: True),
    ):
        ratios = defaultdict(list)
        for (rid, name), v in fresh.items():
            base = [o.get((rid, name)) for o in others]
            if not keep(rid) or None in base or min(base) <= 0 or v <= 0:
                continue
            ratios[name].append(v / sorted(base)[1])
        print(f"fresh night / median of the other three, {scope}:")
        for name, r in sorted(ratios.items()):
            geo = math.exp(sum(map(math.log, r)) / len(r))
            print(f"  {name:32s} geometric mean {geo:.2f}x, {min(r):.2f}x to {max(r):.2f}x, {len(r)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
