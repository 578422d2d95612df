"""Committed data the advice tests share (results/: the H200 traces, stores, benchmark files and
the H100 budget), and the variants of a committed trace a test needs (written to tmp_path)."""

import copy
import json
from functools import cache
from pathlib import Path

from builders import document
from conftest import upgraded
from pinreport.advice.evidence import StoredRun
from pinreport.readers.results import ResultsFile, load_results
from pinreport.readers.trace import TraceFile, load_trace

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "results" / "h200-trace"
BENCH = REPO / "results" / "h200-bench"
TRANSFER = BENCH / "transfer_bench.json"
STAGING = BENCH / "staging_bench.json"
# The store's evidence for the traces' driver and GPU (as test_trace.py): the nightly (fits,
# register-window runs) and the API run.
H200_FILES = (REPO / "results/h200-nightly-free-vram/results.json", REPO / "results/h200-apis/results.json")
H200X2 = REPO / "results/h200x2-multi-gpu/results.json"
H100_BUDGET = REPO / "results/h100-budget/budget-default.json"
MIB = 1024 * 1024
GIB = 1024 * MIB


@cache
def _doc(path: Path) -> dict:
    return document(load_results(upgraded(path)))


def h200_runs(replayed: bool = False) -> list[StoredRun]:
    return [StoredRun(str(p), ResultsFile.of(str(p), copy.deepcopy(_doc(p))), replayed) for p in H200_FILES]


def relabelled(runs: list[StoredRun], environment: dict) -> list[StoredRun]:
    """The runs filed as another machine's (its environment record): a store of that group."""
    out = []
    for r in runs:
        doc = copy.deepcopy(document(r))
        doc["environment"] = copy.deepcopy(environment)
        out.append(StoredRun(r.path, ResultsFile.of(r.path, doc), r.in_replay_namespace))
    return out


def h200x2_environment() -> dict:
    return copy.deepcopy(_doc(H200X2)["environment"])


def trace(name: str) -> TraceFile:
    return load_trace(TRACES / name)


def variant(tmp_path: Path, name: str, change) -> TraceFile:
    """A committed trace changed by `change(doc)`, written and read back through the strict reader."""
    doc = json.loads((TRACES / name).read_text())
    change(doc)
    out = tmp_path / f"variant-{name}"
    out.write_text(json.dumps(doc))
    return load_trace(out)


def two_gpus(doc: dict) -> None:
    """The DataLoader trace as if its program had held a context on two GPUs of the 2-GPU H200
    machine: each sample and the cost at the peak get a second device like the first."""
    doc["environment"] = h200x2_environment()
    for s in doc["device"]["samples"]:
        first = s["devices"][0]
        s["devices"].append({**copy.deepcopy(first), "nvml_index": 1})
    first = doc["cost_at_peak"]["devices"][0]
    doc["cost_at_peak"]["devices"].append({**copy.deepcopy(first), "nvml_index": 1})


def no_samples(doc: dict) -> None:
    """A peak too short for any device sample (CuPy's lasted 0.4 ms): no samples, no figure."""
    doc["device"]["samples"] = []
    for d in doc["cost_at_peak"]["devices"]:
        d["cost_bytes"] = None
        d["why"] = "the peak was held for less than one sampling interval"
