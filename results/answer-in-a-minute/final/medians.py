# Every run both files measured: its bytes metrics' medians side by side (python3 medians.py OLD NEW).
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


old, new = (load(p) for p in sys.argv[1:3])
runs = {r["id"]: r for r in old["runs"]}
same = differ = runs_common = 0
for r in new["runs"]:
    o = runs.get(r["id"])
    if o is None or not o["repeats"] or not r["repeats"]:
        continue
    runs_common += 1
    for name, m in r["metrics"].items():
        if m["unit"] != "bytes" or name not in o["metrics"]:
            continue
        if m["median"] == o["metrics"][name]["median"]:
            same += 1
        else:
            differ += 1
            print(f"DIFFERS {r['id']} {name}: old {o['metrics'][name]['median']:.0f} new {m['median']:.0f}")
print(f"{runs_common} runs in both; bytes metrics, median per run: {same} identical, {differ} different")
