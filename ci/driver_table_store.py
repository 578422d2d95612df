#!/usr/bin/env python3
"""Builds the baseline store the driver table is shown and tested on (docs/drivers.md), from the
committed real nights and budgets, plus replayed releases, all through the built pinbench.

    .venv/bin/python ci/driver_table_store.py STORE [--pinbench PATH] [--replay-only GLOB ...]

1. The real nights: every complete results file under results/ of scenarios/nightly.yaml or
   scenarios/quick.yaml measured by the cuda backend (the H200 and H100 nights). A file of an
   older results schema is upgraded first by `pinbench results upgrade` (the store keeps what
   the harness writes now); then `pinbench store add`.
2. The real budgets: every complete `pinbench budget` document under results/ (the H100's),
   `pinbench store add` (store version 4).
3. Replayed releases of each group's newest real nightly (`pinbench run --backend replay`,
   filed under replay/, labelled REPLAYED everywhere, never a baseline): driver 585.05 costing
   the same (scenarios/replay/driver-same-cost.yaml), driver 590.10 costing one granule more per
   pinned GiB (driver-costs-more.yaml), and, for the H200, the same night as a WDDM driver
   (driver-wddm.yaml). --replay-only limits the replays to the runs of these globs (the tests:
   a replay runs a child per repeat).
4. A budget made smaller: the H100's budget that found the driver's limit, relabelled as driver
   590.10 with every safe budget 2 GiB smaller (environment.replayed: filed under replay/).

Prints one line per file it stored; exit 0, or the failing command's exit code.
"""

import argparse
import copy
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ("scenarios/nightly.yaml", "scenarios/quick.yaml")
REPLAYS = {
    "driver-same-cost.yaml": "every group",
    "driver-costs-more.yaml": "every group",
    "driver-wddm.yaml": "nvidia-h200",
}
SMALLER_BY = 2 * 1024**3  # the budget made smaller: 8 chunks of 256 MiB, well beyond one
SMALLER_RELEASE = "590.10"


def _run(cmd: list[str]) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(f"driver_table_store: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
        sys.exit(p.returncode)
    return p.stdout


def _documents(schema: str) -> list[tuple[Path, dict]]:
    out = []
    for path in sorted((ROOT / "results").rglob("*.json")):
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("schema") == schema:
            out.append((path, doc))
    return out


def real_nights() -> list[tuple[Path, dict]]:
    """The committed real nights: complete, measured (cuda), of the nightly or quick scenario."""
    return [
        (p, d)
        for p, d in _documents("pinbench.results")
        if d.get("complete") is True
        and d.get("backend") == "cuda"
        and str((d.get("scenario") or {}).get("path", "")).endswith(SCENARIOS)
    ]


def real_budgets() -> list[tuple[Path, dict]]:
    return [(p, d) for p, d in _documents("pinbench.budget") if d.get("complete") is True]


def _group(doc: dict) -> tuple:
    env = doc.get("environment") or {}
    names = tuple(d.get("name") for d in env.get("devices") or [])
    return env.get("platform"), names, env.get("cuda_device_count")


def smaller_budget(doc: dict, release: str, by: int) -> dict:
    """A budget document relabelled as `release`, every safe budget `by` bytes smaller, a day
    later, and marked replayed (environment.replayed): never a measurement, never a baseline."""
    out = copy.deepcopy(doc)
    env = out["environment"]
    env["driver"]["release"] = release
    env["replayed"] = True
    start = dt.datetime.strptime(doc["started_at"], "%Y-%m-%dT%H:%M:%SZ") + dt.timedelta(days=1)
    out["started_at"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    for f in out["families"]:
        if f.get("status") == "ok" and isinstance(f.get("safe_budget"), int):
            f["safe_budget"] = max(0, f["safe_budget"] - by)
    if isinstance(out.get("safe_budget"), dict):
        out["safe_budget"]["bytes"] = max(0, out["safe_budget"]["bytes"] - by)
    return out


def build(store: Path, pinbench: str, replay_only: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="driver-table-") as tmp:
        work = Path(tmp)
        newest: dict[tuple, tuple[str, Path]] = {}  # group -> the newest real nightly
        for i, (path, doc) in enumerate(real_nights()):
            upgraded = work / f"upgraded-{i}.json"  # the current schema; a current file stays as it is
            _run([pinbench, "results", "upgrade", str(path), "-o", str(upgraded)])
            print(_run([pinbench, "store", "add", str(upgraded), "--store", str(store)]).strip())
            if str(doc["scenario"]["path"]).endswith("nightly.yaml"):
                key = _group(doc)
                if key not in newest or doc["started_at"] > newest[key][0]:
                    newest[key] = (doc["started_at"], path)
        for path, _ in real_budgets():
            print(_run([pinbench, "store", "add", str(path), "--store", str(store)]).strip())
        only = [a for g in replay_only for a in ("--only", g)]
        jobs = []
        for key, (_, source) in sorted(newest.items(), key=lambda kv: str(kv[1][1])):
            gpu_names = " ".join(n for n in key[1] if isinstance(n, str)).lower()
            for script, which in REPLAYS.items():
                if which != "every group" and which.replace("-", " ") not in gpu_names:
                    continue
                out = work / f"replay-{len(jobs)}-{script.removesuffix('.yaml')}.json"
                cmd = [pinbench, "run", "--backend", "replay", "--from", str(source), "--script"]
                cmd += [str(ROOT / "scenarios/replay" / script), "-o", str(out), "--no-summary", *only]
                jobs.append((out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)))
        for out, proc in jobs:  # the replays wait on their children, not the CPU: all at once
            log = proc.communicate()[0]
            if proc.returncode != 0:
                sys.stderr.write(log.decode(errors="replace"))
                sys.exit(proc.returncode)
            print(_run([pinbench, "store", "add", str(out), "--store", str(store)]).strip())
        limits = [(p, d) for p, d in real_budgets() if (d.get("safe_budget") or {}).get("limit_found")]
        for _, doc in limits[:1]:
            smaller = work / "budget-smaller.json"
            smaller.write_text(json.dumps(smaller_budget(doc, SMALLER_RELEASE, SMALLER_BY), indent=2) + "\n")
            print(_run([pinbench, "store", "add", str(smaller), "--store", str(store)]).strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path, help="the store to build (a new directory)")
    ap.add_argument(
        "--pinbench", default=os.environ.get("PINBENCH_EXE") or str(ROOT / "build/ci-nogpu/harness/pinbench")
    )
    ap.add_argument("--replay-only", action="append", default=[], metavar="GLOB", help="replay only these runs")
    args = ap.parse_args()
    if args.store.exists() and any(args.store.iterdir()):
        sys.exit(f"driver_table_store: {args.store} is not empty (give a new directory)")
    build(args.store, args.pinbench, args.replay_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
