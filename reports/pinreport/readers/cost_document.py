"""What the driver table keeps of a night (docs/drivers.md): its VRAM cost metrics as a small
results document, read from the night's checked document once, as the history index reads it
(pipeline/drivers.py's Derive), so compare.compare can judge the next release against it without
the night being read again. About a twentieth of a nightly file."""

from typing import Any

from pinreport.base.catalog import HELD_STAGES, RULE_KINDS
from pinreport.base.probe_keys import CAPACITY_LOSS, is_dedicated_key, split_metric

# A metric record's members the comparison, the rule and the disturbance check read.
_METRIC_FIELDS = ("unit", "median", "granule", "mad", "min", "max", "samples", "disturbed")
_PLAN_FIELDS = ("id", "scenario", "kind", "api", "size_bytes", "count", "gpus", "params")


def is_cost_metric(name: str) -> bool:
    """A VRAM cost metric: the held cost of a dedicated-memory key (the rule's, rule.py), or the
    capacity a pinned buffer took (capacity.loss). The verdict between releases is theirs."""
    parts = split_metric(name)
    return name == CAPACITY_LOSS or (parts is not None and parts[0] in HELD_STAGES and is_dedicated_key(parts[1]))


def _kept_metric(name: str, m: Any) -> bool:
    """A VRAM cost metric, or a metric the disturbance check reads (marked disturbed, or below
    zero in a repeat: disturbance.py), so a run is as clean, and a key as disturbed, in the kept
    document as in the night's file."""
    if not isinstance(m, dict):
        return False
    low = m.get("min")
    negative = isinstance(low, (int, float)) and not isinstance(low, bool) and low < 0
    return is_cost_metric(name) or m.get("disturbed") is True or negative


def _run(run: dict[str, Any]) -> dict[str, Any]:
    plan = run.get("plan") or {}
    metrics = {
        name: {k: m[k] for k in _METRIC_FIELDS if k in m}
        for name, m in (run.get("metrics") or {}).items()
        if _kept_metric(name, m)
    }
    kept: dict[str, Any] = {
        "id": run.get("id"),
        "status": "ok",
        "plan": {k: plan[k] for k in _PLAN_FIELDS if k in plan},
    }
    kept["metrics"] = metrics
    if isinstance(run.get("disturbance"), dict):
        kept["disturbance"] = run["disturbance"]
    repeats = [
        {k: r[k] for k in ("index", "status", "disturbance") if k in r}
        for r in run.get("repeats") or []
        if isinstance(r, dict) and isinstance(r.get("disturbance"), dict)
    ]
    if repeats:
        kept["repeats"] = repeats
    return kept


def cost_document(doc: dict[str, Any], measurement_id: str) -> dict[str, Any]:
    """The night's VRAM cost metrics as a results document: its ok runs of the rule kinds, each with
    its plan, its kept metrics (with their samples) and the disturbance evidence; the environment
    record (the key, what else changed); the scenarios' relative floors; its identity."""
    runs = [
        _run(run)
        for run in doc.get("runs", [])
        if run.get("status") == "ok" and (run.get("plan") or {}).get("kind") in RULE_KINDS
    ]
    scenarios = [
        {"name": s["name"], "options": s.get("options") or {}}
        for s in (doc.get("scenario") or {}).get("scenarios") or []
        if isinstance(s, dict) and isinstance(s.get("name"), str)
    ]
    return {
        "schema": doc.get("schema"),
        "schema_version": doc.get("schema_version"),
        "backend": doc.get("backend", "cuda"),
        "started_at": doc.get("started_at", ""),
        "measurement_id": measurement_id,
        "complete": doc.get("complete"),
        "environment": doc.get("environment") or {},
        "scenario": {"scenarios": scenarios},
        "runs": runs,
    }
