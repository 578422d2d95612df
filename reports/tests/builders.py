"""Hand-made results documents and stores for the tests.

results_doc() builds a complete, schema-valid results document whose runs carry exactly the
per-repeat costs and timings asked for: the snapshots are made so that the harness's metric
definitions (cost relative to after_context) give back those numbers.
"""

import json
import statistics
from pathlib import Path
from typing import Any

from pinreport.environment import store_key
from pinreport.samples import describe_key
from pinreport.schema import REPLAY_NOTE
from pinreport.store import REAL, REPLAY, content_hash, entry_path, store_marker

KiB, MiB, GiB = 1024, 1024**2, 1024**3
GRANULE = 2 * MiB
_BASE_READING = {"available": 140 * GiB, "usage": 1 * GiB}


def _summary(values: list[float], unit: str, granule: int | None) -> dict[str, Any]:
    med = statistics.median(values)
    return {
        "unit": unit,
        "n": len(values),
        "median": med,
        "min": min(values),
        "max": max(values),
        "mad": statistics.median([abs(v - med) for v in values]),
        "granule": granule if unit == "bytes" else None,
    }


def run_doc(
    scenario: str = "quick-overhead",
    api: str = "cudaMallocHost",
    size: int = 64 * MiB,
    count: int = 1,
    gpus: int = 1,
    costs: dict[str, list[int]] | None = None,
    timings: dict[str, list[float]] | None = None,
    residuals: dict[str, list[int]] | None = None,
    granules: dict[str, int | None] | None = None,
    status: str = "ok",
    kind: str = "overhead",
    reason: str = "",
    nonce: str = "n",
) -> dict[str, Any]:
    """One run; `costs[key][i]` is repeat i's cost on probe key `key` (bytes, both held
    stages), `timings[name][i]` its timing, `residuals` what is left after freeing (0)."""
    costs = costs if costs is not None else {"cuda.free": [2 * MiB] * 7}
    timings = timings or {}
    residuals = residuals or {}
    granules = granules or {}
    n = max([len(v) for v in costs.values()] + [len(v) for v in timings.values()] + [1])
    size_text = f"{size // GiB}GiB" if size % GiB == 0 else f"{size // MiB}MiB"
    run_id = f"{scenario}/{api}/{size_text}/x{count}/g{gpus}"
    repeats = []
    for i in range(n):
        snaps = []
        for label in ("after_context", "after_alloc", "after_first_use", "after_free"):
            readings = {}
            for key, values in costs.items():
                d = describe_key(key).direction
                base = _BASE_READING[d]
                if label == "after_context":
                    c = 0
                elif label == "after_free":
                    c = residuals.get(key, [0] * n)[i]
                else:
                    c = values[i]
                readings[key] = base - c if d == "available" else base + c
            readings["cuda.total"] = 141 * GiB
            snaps.append(
                {"label": label, "t_ms": 10.0 * len(snaps), "settle_ms": 1, "stable": True, "readings": readings}
            )
        repeats.append(
            {
                "index": i,
                "status": "ok",
                "error": "",
                "pid": 1000 + i,
                "nonce": f"{nonce}-{run_id}-{i}",
                "wall_ms": 500.0,
                "parent_wait_ms": 0,
                "parent_settled": True,
                "timings_ms": {name: values[i] for name, values in timings.items()},
                "snapshots": snaps,
                "output_tail": "",
            }
        )
    metrics = {}
    if status == "ok":
        for key, values in costs.items():
            g = granules.get(key, GRANULE)
            for stage in ("cost.after_alloc", "cost.after_first_use"):
                metrics[f"{stage}.{key}"] = _summary([float(v) for v in values], "bytes", g)
            metrics[f"residual.after_free.{key}"] = _summary(
                [float(v) for v in residuals.get(key, [0] * n)], "bytes", g
            )
        for name, values in timings.items():
            metrics[f"time.{name}_ms"] = _summary([float(v) for v in values], "ms", None)
    else:
        repeats[-1]["status"] = status
        repeats[-1]["error"] = reason or "cudaErrorIllegalAddress"
    return {
        "id": run_id,
        "plan": {
            "id": run_id,
            "scenario": scenario,
            "kind": kind,
            "api": api,
            "size_bytes": size,
            "count": count,
            "gpus": gpus,
            "repeats": n,
            "timeout_s": 120,
            "driver_models": [],
        },
        "status": status,
        "reason": reason if status != "ok" else "",
        "repeats": repeats,
        "metrics": metrics,
    }


def results_doc(
    runs: list[dict[str, Any]],
    release: str = "580.65.06",
    platform: str = "linux",
    driver_model: str = "linux",
    gpu: str = "NVIDIA H200",
    gpu_count: int = 1,
    os_build: str = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0-1",
    started_at: str = "2025-06-01T10:00:00Z",
    controls: dict[str, Any] | None = None,
    scenarios: list[dict[str, Any]] | None = None,
    complete: bool = True,
    replay_of: str | None = None,
) -> dict[str, Any]:
    """A complete results document around `runs` (see run_doc)."""
    env = {
        "platform": platform,
        "os": {
            "platform": platform,
            "os_name": "Debian GNU/Linux 12",
            "kernel": "6.1.0-1-amd64",
            "os_build": os_build,
            "hostname": "gpu-host",
            "host_ram_bytes": 256 * GiB,
            "cpu_count": 16,
        },
        "driver": {
            "release": release,
            "release_source": "nvmlSystemGetDriverVersion",
            "cuda_driver_version": 12080,
            "cuda_runtime_version": 12080,
            "cuda_runtime_built": 12080,
        },
        "cuda_module_loading": {"unavailable": "not set (driver default)"},
        "cuda_device_count": gpu_count,
        "devices": [
            {
                "name": gpu,
                "driver_model": {"current": driver_model, "pending": driver_model},
                "nvml": {"persistence_mode": "enabled", "display_active": "disabled"},
            }
            for _ in range(gpu_count)
        ],
        "other_compute_processes": [],
    }
    doc = {
        "schema": "pinbench.results",
        "schema_version": 1,
        "backend": "cuda",
        "replay": None,
        "tool": {"name": "pinbench", "version": "0.1.0"},
        "command": ["pinbench", "run", "scenarios/quick.yaml"],
        "started_at": started_at,
        "finished_at": started_at if complete else "",
        "complete": complete,
        "environment": env,
        "controls": controls if controls is not None else {"null": {"verdict": "PASS"}},
        "scenario": {"path": "scenarios/quick.yaml", "scenarios": scenarios or []},
        "runs": runs,
    }
    # Unique nonces per document: they identify one measurement (store.measurement_id).
    for run in runs:
        for r in run["repeats"]:
            r["nonce"] = f"{started_at}/{r['nonce']}"
    if replay_of is not None:
        doc["backend"] = "replay"
        doc["replay"] = {"source": replay_of, "source_backend": "cuda", "script": "", "note": REPLAY_NOTE}
        env["replayed"] = True
    return doc


def make_store(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "store.json").write_text(json.dumps(store_marker()))
    return root


def add_to_store(root: Path, doc: dict[str, Any], namespace: str | None = None) -> Path:
    """Files `doc` as the harness would: under its key, named by start time and content hash."""
    data = json.dumps(doc, indent=1).encode()
    ns = namespace or (REPLAY if doc["backend"] == "replay" else REAL)
    path = entry_path(root, store_key(doc["environment"]), doc["started_at"], content_hash(data), ns)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def write_json(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc, indent=1))
    return path
