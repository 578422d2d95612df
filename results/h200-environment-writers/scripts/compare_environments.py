"""Compares the environment record of a results file written by this tree with one written on
the same kind of machine before the record had one home: keys only in one, and the values that
differ (a fresh machine's hostname, RAM and pids differ by nature; every difference is listed).
Usage: python3 compare_environments.py OLD.json NEW.json"""

import json
import sys


def flatten(value, prefix, out):
    if isinstance(value, dict):
        if not value:
            out[prefix] = "{}"
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else k, out)
    elif isinstance(value, list):
        if not value:
            out[prefix] = "[]"
        for i, v in enumerate(value):
            flatten(v, f"{prefix}[{i}]", out)
    else:
        out[prefix] = value


def env_of(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        flatten(json.load(f)["environment"], "", out)
    return out


old, new = env_of(sys.argv[1]), env_of(sys.argv[2])
print(f"old {sys.argv[1]}: {len(old)} leaves; new {sys.argv[2]}: {len(new)} leaves")
print("only in old:", sorted(set(old) - set(new)) or "none")
print("only in new:", sorted(set(new) - set(old)) or "none")
print("same key, another type:", [k for k in old if k in new and type(old[k]) is not type(new[k])] or "none")
diff = [k for k in sorted(set(old) & set(new)) if old[k] != new[k]]
print(f"same key, another value ({len(diff)}):")
for k in diff:
    print(f"  {k}: {old[k]!r} -> {new[k]!r}")
