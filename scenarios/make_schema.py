#!/usr/bin/env python3
"""Writes the kind-dependent parts of scenarios/schema.json from the harness's kind registry.

The registry (harness/src/kinds/registry.cpp, each kind's parameter table in its own file) is
exported by `pinbench metrics --json` into reports/pinreport/data/metric_catalog.json (kept equal
to the binary's by reports/tests/test_catalog.py). From it this script writes the list of kinds
(the `kind` enum), the kinds of schema version 1, and which `$defs/params/<kind>` each kind's
`params` must match (required where the kind has a parameter required everywhere). Each kind's
`$defs/params/<kind>` (descriptions for editors) is written by hand, and this script refuses a
schema whose blocks name other parameters than the table, or miss a kind.

  scenarios/make_schema.py          rewrite scenarios/schema.json
  scenarios/make_schema.py --check  exit 1 where the committed file is not what it would write
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "scenarios" / "schema.json"
CATALOG = ROOT / "reports" / "pinreport" / "data" / "metric_catalog.json"


def _is_kind_dispatch(entry: dict) -> bool:
    ref = entry.get("then", {}).get("properties", {}).get("params", {}).get("$ref", "")
    return ref.startswith("#/$defs/params/")


def generate(schema: dict, kinds: list[dict]) -> dict:
    names = [k["name"] for k in kinds]
    version_1 = [k["name"] for k in kinds if k["since_version"] <= 1]
    only_v1 = {"const": version_1[0]} if len(version_1) == 1 else {"enum": version_1}
    v1_then = schema["allOf"][0]["then"]["properties"]
    v1_then["scenarios"]["items"]["properties"]["kind"] = only_v1
    v1_then["defaults"]["properties"]["kind"] = only_v1
    schema["$defs"]["scenario_keys"]["properties"]["kind"]["enum"] = names

    dispatch = []
    for k in kinds:
        then: dict = {"properties": {"params": {"$ref": f"#/$defs/params/{k['name']}"}}}
        if any(p["required"] and "when" not in p for p in k["params"]):
            then["required"] = ["params"]
        dispatch.append({"if": {"required": ["kind"], "properties": {"kind": {"const": k["name"]}}}, "then": then})
    rules = schema["$defs"]["scenario"]["allOf"]
    schema["$defs"]["scenario"]["allOf"] = dispatch + [e for e in rules if not _is_kind_dispatch(e)]
    return schema


def mismatches(schema: dict, kinds: list[dict]) -> list[str]:
    """The hand-written parameter blocks against the parameter tables."""
    blocks = schema["$defs"]["params"]
    out = []
    for k in kinds:
        block = blocks.get(k["name"])
        if block is None:
            out.append(f"$defs/params has no block for kind {k['name']}")
            continue
        declared = sorted(block.get("properties", {}))
        table = sorted(p["name"] for p in k["params"])
        if declared != table:
            out.append(f"$defs/params/{k['name']} names {declared}, the kind's table {table}")
    extra = sorted(set(blocks) - {"description"} - {k["name"] for k in kinds})
    out += [f"$defs/params/{name}: no such kind in the registry" for name in extra]
    return out


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    check = parser.parse_args().check
    committed = SCHEMA.read_text(encoding="utf-8")
    kinds = json.loads(CATALOG.read_text(encoding="utf-8"))["kinds"]
    schema = generate(json.loads(committed), kinds)
    problems = mismatches(schema, kinds)
    for p in problems:
        print(f"scenarios/schema.json: {p}", file=sys.stderr)
    if problems:
        return 1
    text = render(schema)
    if check:
        if text != committed:
            print("scenarios/schema.json is not what scenarios/make_schema.py writes: run it", file=sys.stderr)
            return 1
        return 0
    SCHEMA.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
