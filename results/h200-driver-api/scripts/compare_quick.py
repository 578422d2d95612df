"""Compares two results files of scenarios/quick.yaml as data: every non-timing metric median, run by run.

    python3 results/h200-driver-api/scripts/compare_quick.py results/h200-main-answer/quick.json \
        results/h200-driver-api/results.json
"""

import json
import sys


def median(metric):
    if isinstance(metric, dict):
        if "median" in metric:
            return metric["median"]
        if "stats" in metric:
            return metric["stats"].get("median")
    return None


def is_timing(name: str) -> bool:
    last = name.split(".")[-1]
    return name.startswith("time.") or "ms" in last or "gbps" in name or "seconds" in name


def main() -> None:
    with open(sys.argv[1]) as f:
        a = json.load(f)
    with open(sys.argv[2]) as f:
        b = json.load(f)
    print("schema", a.get("schema_version"), b.get("schema_version"), "runs", len(a["runs"]), len(b["runs"]))
    runs_a = {r["id"]: r for r in a["runs"]}
    runs_b = {r["id"]: r for r in b["runs"]}
    print("ids equal:", set(runs_a) == set(runs_b))
    same = 0
    different = []
    for run_id in sorted(set(runs_a) & set(runs_b)):
        ma = runs_a[run_id].get("metrics", {})
        mb = runs_b[run_id].get("metrics", {})
        for name in sorted(set(ma) & set(mb)):
            if is_timing(name):
                continue
            va, vb = median(ma[name]), median(mb[name])
            if va == vb:
                same += 1
            else:
                different.append((run_id, name, va, vb))
    print("byte-equal medians:", same, "different:", len(different))
    for row in different:
        print("  ", *row)


if __name__ == "__main__":
    main()
