"""Hand-made results documents and stores for the tests.

results_doc() builds a complete, schema-valid results document whose runs carry exactly the
per-repeat costs and timings asked for: the snapshots are made so that the harness's metric
definitions (cost relative to after_context) give back those numbers, and every metric
carries those numbers as its samples. Documents are schema version 4 (the current one) unless
an older one is asked for: version 3 and older have no samples (pinreport has the harness
upgrade them when read), version 1 no plan.params or repeats[].data.

kind_run() builds a run of a scenario kind (docs/kinds.md) from per-repeat metric values;
churn_run() also writes the cycle snapshots the churn trace is drawn from; kinds_doc() is one
document with a run of every kind.
"""

import json
import statistics
from pathlib import Path
from typing import Any

from pinreport.base.probe_keys import describe_key
from pinreport.base.schema import REPLAY_NOTE, RESULTS_SCHEMA_VERSION
from pinreport.readers.environment import store_key
from pinreport.store.files import (
    REAL,
    REPLAY,
    compressed_bytes,
    content_hash,
    entry_path,
    read_stored_bytes,
    store_marker,
)

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
        "samples": list(values),
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
                "phases_ms": {},
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
        "stopping": None,  # results schema 5; results_doc drops it for older versions
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
    schema_version: int = RESULTS_SCHEMA_VERSION,
) -> dict[str, Any]:
    """A complete results document around `runs` (see run_doc); version 1 drops plan.params
    and repeats[].data, version 2 adds empty ones where a run has none, version 3 and older
    drop the metrics' samples, version 5 adds a null stopping record and empty phases where a
    run has none (version 4 and older drop them)."""
    for run in runs:
        if schema_version < 4:
            for m in run["metrics"].values():
                m.pop("samples", None)
        if schema_version >= 5:
            run.setdefault("stopping", None)
        else:
            run.pop("stopping", None)
        for r in run["repeats"]:
            if schema_version >= 5:
                r.setdefault("phases_ms", {})
            else:
                r.pop("phases_ms", None)
            if schema_version >= 2:
                r.setdefault("data", {})
            else:
                r.pop("data", None)
        if schema_version >= 2:
            run["plan"].setdefault("params", {})
        else:
            run["plan"].pop("params", None)
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
        "schema_version": schema_version,
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
    if schema_version >= 3:
        # "": no identity of its own, so the store derives one from the nonces (store.md).
        doc.update(measurement_id="", interrupted=None, resumed=[])
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


def add_to_store(root: Path, doc: dict[str, Any], namespace: str | None = None, *, compressed: bool = True) -> Path:
    """Files `doc` as the harness would: under its key, named by start time and the hash of its
    bytes, gzip-compressed (store version 3); compressed=False: plain, as versions 1 and 2 did."""
    data = json.dumps(doc, indent=1).encode()
    ns = namespace or (REPLAY if doc["backend"] == "replay" else REAL)
    key = store_key(doc["environment"])
    path = entry_path(root, key, doc["started_at"], content_hash(data), ns, compressed=compressed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(compressed_bytes(data) if compressed else data)
    return path


def stored_text(path: Path) -> str:
    """A stored file's text, decompressed where it is .json.gz (store version 3)."""
    return read_stored_bytes(path).decode()


def rewrite_stored(path: Path, text: str) -> None:
    """Replaces a stored file's contents by hand (a test's edit), compressed where its name says so."""
    data = text.encode()
    path.write_bytes(compressed_bytes(data) if path.name.endswith(".gz") else data)


def document(f: Any) -> dict[str, Any]:
    """The document a results reader read (a ResultsFile, or a store entry's), as the tests look
    at it, store it or edit it: pinreport itself reads only the typed values."""
    results = getattr(f, "results", f)
    return results._doc


def write_json(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc, indent=1))
    return path


# --- scenario kinds (schema version 2) ---------------------------------------------------------


def _unit_of(name: str) -> str:
    if name.endswith("_ms_per_transfer") or name.startswith("time."):
        return "ms"
    if name in ("capacity.read_ratio", "sweep.small_after_failure_ok", "register_window.time_ratio"):
        return "ratio"
    if name in ("capacity.pin_failed",) or name.startswith("sweep.steps."):
        return "count"
    return "bytes"


def kind_run(
    kind: str,
    metrics: dict[str, list[float]],
    params: dict[str, Any] | None = None,
    scenario: str | None = None,
    api: str = "cudaMallocHost",
    size: int = 1 * GiB,
    count: int = 1,
    gpus: int = 1,
    granules: dict[str, int | None] | None = None,
    snapshots: list[list[dict[str, Any]]] | None = None,
    data: list[dict[str, Any]] | None = None,
    status: str = "ok",
    reason: str = "",
) -> dict[str, Any]:
    """A run of `kind` whose metric `name` has the per-repeat values `metrics[name]` (unit from
    the name as docs/kinds.md gives it; byte metrics get granule GRANULE unless `granules` says
    otherwise). The run id ends with the params, as the harness writes axis parameters."""
    params = dict(params or {})
    granules = granules or {}
    n = max([len(v) for v in metrics.values()] + [7 if status == "ok" else 1])
    size_text = f"{size // GiB}GiB" if size % GiB == 0 else f"{size // MiB}MiB"
    run_id = f"{scenario or kind}/{api}/{size_text}/x{count}/g{gpus}" + "".join(f"/{k}={v}" for k, v in params.items())
    repeats = []
    for i in range(n):
        snaps = (
            snapshots[i]
            if snapshots
            else [
                {
                    "label": "after_context",
                    "t_ms": 0.0,
                    "settle_ms": 1,
                    "stable": True,
                    "readings": {"cuda.free": 140 * GiB, "cuda.total": 141 * GiB},
                }
            ]
        )
        repeats.append(
            {
                "index": i,
                "status": "ok",
                "error": "",
                "pid": 2000 + i,
                "nonce": f"n-{run_id}-{i}",
                "wall_ms": 900.0,
                "parent_wait_ms": 0,
                "parent_settled": True,
                "timings_ms": {},
                "snapshots": snaps,
                "output_tail": "",
                "data": data[i] if data else {},
            }
        )
    out_metrics = {}
    if status == "ok":
        for name, values in metrics.items():
            unit = _unit_of(name)
            out_metrics[name] = _summary([float(v) for v in values], unit, granules.get(name, GRANULE))
    else:
        repeats = [] if status == "waived" else repeats
        if repeats:
            repeats[-1]["status"] = status
            repeats[-1]["error"] = reason
    return {
        "id": run_id,
        "plan": {
            "id": run_id,
            "scenario": scenario or kind,
            "kind": kind,
            "api": api,
            "size_bytes": size,
            "count": count,
            "gpus": gpus,
            "repeats": n,
            "timeout_s": 120,
            "driver_models": [],
            "params": params,
        },
        "status": status,
        "reason": reason if status != "ok" else "",
        "repeats": repeats,
        "metrics": out_metrics,
    }


def churn_run(
    trace_mib: list[float],
    final_mib: float,
    settle: str = "settled",
    key: str = "cuda.free",
    repeats: int = 7,
    size: int = 256 * MiB,
) -> dict[str, Any]:
    """A churn run whose every repeat has cost trace_mib[i] after cycle i+1 and final_mib after
    the wait, as snapshots (cycle_<i>, final) and as the churn.* metrics."""
    base = 140 * GiB

    def snap(label: str, cost_mib: float, t: float) -> dict[str, Any]:
        return {
            "label": label,
            "t_ms": t,
            "settle_ms": 1,
            "stable": True,
            "readings": {key: base - int(cost_mib * MiB), "cuda.total": 141 * GiB},
        }

    snaps = [snap("after_context", 0, 0)]
    snaps += [snap(f"cycle_{i + 1}", c, 10.0 * (i + 1)) for i, c in enumerate(trace_mib)]
    snaps.append(snap("final", final_mib, 10.0 * (len(trace_mib) + 2)))
    metrics = {
        f"churn.creep.{key}": [(trace_mib[-1] - trace_mib[0]) * MiB] * repeats,
        f"churn.max.{key}": [max(trace_mib) * MiB] * repeats,
        f"churn.residual_after_wait.{key}": [final_mib * MiB] * repeats,
    }
    return kind_run(
        "churn",
        metrics,
        {"settle": settle},
        size=size,
        snapshots=[[dict(s) for s in snaps] for _ in range(repeats)],
    )


def kinds_doc(**kw: Any) -> dict[str, Any]:
    """A version 2 document with a run of every kind (numbers as in the tests' comments)."""
    r7 = [0] * 7
    runs = [
        run_doc(costs={"cuda.free": [2 * MiB] * 7}),
        # capacity: 1 GiB pinned, the largest block shrinks by 150 MiB (ratio 0.146)
        kind_run(
            "capacity",
            {
                "capacity.largest_without": [10 * GiB] * 7,
                "capacity.largest_with": [10 * GiB - 150 * MiB] * 7,
                "capacity.loss": [150 * MiB] * 7,
                "capacity.loss_per_gib": [150 * MiB] * 7,
                "capacity.read_ratio": [0.98] * 7,
                "capacity.pin_failed": [0],
            },
            {"free_target": 12 * GiB},
        ),
        # size curve 64 MiB .. 256 MiB: 4, 8, 16 MiB on cuda.free
        kind_run(
            "sweep",
            {
                f"sweep.cost.{64 * MiB}.cuda.free": [4 * MiB] * 7,
                f"sweep.cost.{128 * MiB}.cuda.free": [8 * MiB] * 7,
                f"sweep.cost.{256 * MiB}.cuda.free": [16 * MiB] * 7,
                "sweep.slope_per_gib.cuda.free": [64 * MiB] * 7,
                "sweep.base.cuda.free": r7,
            },
            {"mode": "size_curve"},
        ),
        # 2 GPUs: 300 MiB on each
        kind_run(
            "multi_gpu",
            {
                "cost.after_first_use.nvml.0.used": [300 * MiB] * 7,
                "cost.after_first_use.nvml.1.used": [300 * MiB] * 7,
                "multi_gpu.cost_sum.nvml.used": [600 * MiB] * 7,
                "multi_gpu.cost_per_device.nvml.used": [300 * MiB] * 7,
            },
            {"order": "after", "peer_access": "off"},
            size=2 * GiB,
            gpus=2,
        ),
        # per worker: 500 MiB context, 20 MiB pinned, at 1 and 4 workers
        *[
            kind_run(
                "workers",
                {
                    "workers.context_per_worker.cuda.free": [500 * MiB] * 7,
                    "workers.pinned_per_worker.cuda.free": [20 * MiB] * 7,
                },
                {"workers": w, "variant": "per_process"},
                size=256 * MiB,
            )
            for w in (1, 4)
        ],
        churn_run([2, 4, 6, 8], 2),
        kind_run(
            "fragmentation",
            {
                "fragmentation.largest_before": [8 * GiB] * 7,
                "fragmentation.largest_after": [7 * GiB] * 7,
                "fragmentation.largest_loss": [1 * GiB] * 7,
                "fragmentation.free_loss": [0] * 7,
            },
            {"cycles": 10},
            size=256 * MiB,
            count=4,
        ),
        *[
            kind_run(
                "shared",
                {"shared.device_cost.cuda.free": [c * MiB] * 7, "shared.per_process_cost.cuda.free": [c / 2 * MiB] * 7},
                {"processes": 2, "variant": v},
                api="cudaHostRegister",
                size=256 * MiB,
            )
            for v, c in (("shared", 60), ("private", 40))
        ],
        kind_run(
            "register_window",
            {
                "register_window.peak.cuda.free": [4 * MiB] * 7,
                "time.kept_per_transfer_ms": [2.0] * 7,
                "time.windowed_per_transfer_ms": [5.0] * 7,
                "register_window.time_ratio": [2.5] * 7,
            },
            {"transfers": 16},
            api="cudaHostRegister",
            size=256 * MiB,
        ),
    ]
    return results_doc(runs, **kw)


# --- disturbance (results schema 3: docs/results-schema.md) ------------------------------------


def disturb_run(run: dict[str, Any], texts: list[str], attempts: int = 3) -> dict[str, Any]:
    """The run as pinbench writes one that could not collect clean repeats: status "disturbed",
    run["disturbance"] with one evidence item per text, the repeats marked disturbed."""
    run["status"] = "disturbed"
    run["reason"] = f"disturbed in {attempts} attempts"
    run["disturbance"] = {
        "evidence": [{"probe": "nvml.0.used", "pid": 4242, "bytes": 256 * MiB, "text": t} for t in texts],
        "attempts": attempts,
    }
    for r in run["repeats"]:
        r["status"] = "disturbed"
    return run


def disturb_metrics(run: dict[str, Any], names: list[str], texts: list[str]) -> dict[str, Any]:
    """An ok run whose metrics `names` were disturbed ("disturbed": true) with this evidence."""
    for name in names:
        run["metrics"][name]["disturbed"] = True
    run["disturbance"] = {"evidence": [{"text": t} for t in texts], "attempts": 1}
    return run


def disturb_probe_in_ok_repeats(run: dict[str, Any], probe: str, texts: list[str]) -> dict[str, Any]:
    """An ok run as pinbench writes one whose probe a neighbour moved while the run was judged on
    per-process probes (harness/src/results/run_metrics.cpp): every metric of the probe marked
    disturbed, each ok repeat carrying its own evidence, no disturbed attempt (run disturbance
    null): what the test double gave."""
    for name, m in run["metrics"].items():
        if name.endswith("." + probe):
            m["disturbed"] = True
    for i, r in enumerate(run["repeats"]):
        r["disturbance"] = {
            "probes": [probe],
            "evidence": [{"what": "neighbour", "text": f"{t} (repeat {i})"} for t in texts],
        }
    run["disturbance"] = None
    return run


# --- max pinnable against free VRAM (sweep mode max_pinnable with free_target) ---------

_PINNABLE_RATIOS = ("sweep.capped", "sweep.max_pinnable_over_host_ram", "sweep.small_after_failure_ok")


def pinnable_run(
    free_target: int | str,
    free_before: int,
    max_pinnable: int,
    capped: bool,
    cap: int = 8 * GiB,
    api: str = "cudaMallocHost",
    host_ram: int = 64 * GiB,
    vram_total: int = 24 * GiB,
    stopped_by: str = "cudaErrorMemoryAllocation: out of memory",
    small_ok: bool = True,
    repeats: int = 7,
    omit: tuple[str, ...] = (),
    scenario: str = "pinnable-free-vram",
) -> dict[str, Any]:
    """A sweep run of mode max_pinnable with the free_target axis, every repeat alike: the
    repeats' data as docs/kinds.md gives it (a capped search stops at once, with no error and
    no small pin after a failure) and the sweep.* metrics the harness writes; metrics named in
    `omit` are left out (to exercise the fallback to the repeats' data). kind_run makes at least
    7 repeats."""
    failed = not capped
    data = {
        "mode": "max_pinnable",
        "free_target": free_target,
        "filled_bytes": 0 if free_target == "all" else max(0, vram_total - free_before),
        "free_before": free_before,
        "free_after": free_before,
        "cap": cap,
        "host_limit": host_ram,
        "cap_effective": min(cap, host_ram),
        "host_ram_total": host_ram,
        "max_pinnable": max_pinnable,
        "capped": capped,
        "timed_out": False,
        "stopped_by": stopped_by if failed else "",
        "tried": [{"bytes": min(cap, host_ram), "error": stopped_by if failed else ""}]
        + ([{"bytes": max_pinnable, "error": ""}] if failed else []),
    }
    if failed:
        data["small_after_failure"] = {"bytes": 64 * MiB, "ok": small_ok, "error": "" if small_ok else stopped_by}
    metrics = {
        "sweep.max_pinnable": [max_pinnable] * repeats,
        "sweep.free_before": [free_before] * repeats,
        "sweep.capped": [1.0 if capped else 0.0] * repeats,
        "sweep.max_pinnable_over_host_ram": [max_pinnable / host_ram] * repeats,
    }
    if failed:
        metrics["sweep.small_after_failure_ok"] = [1.0 if small_ok else 0.0] * repeats
    params = {"mode": "max_pinnable", "cap": cap, "free_target": free_target}
    run = kind_run(
        "sweep",
        {k: v for k, v in metrics.items() if k not in omit},
        params,
        scenario=scenario,
        api=api,
        size=cap,
        data=[dict(data) for _ in range(max(repeats, 7))],
    )
    for name in _PINNABLE_RATIOS:
        if name in run["metrics"]:
            run["metrics"][name].update(unit="ratio", granule=None)
    return run
