"""The Advice as JSON (`pinreport advise --json`): every number in bytes or as a ratio, each
option with its evidence and what is missing. Schema "pinbench-advice", version 1 (docs/advise.md)."""

import json
from typing import Any

from pinreport.advice.build import Advice, ScopeAdvice
from pinreport.advice.options import Option

ADVICE_SCHEMA = "pinbench-advice"
ADVICE_VERSION = 1


def _num(v: float | None) -> float | None:
    return None if v is None else round(float(v), 6)


def option_json(o: Option) -> dict[str, Any]:
    return {
        "name": o.name,
        "change": o.change,
        "applies": o.applies,
        "complete": o.complete,
        "bytes_after": o.bytes_after,
        "bytes_saved": o.bytes_saved,
        "vram_saved": _num(o.vram_saved),
        "vram_after": _num(o.vram_after),
        "vram_after_bound": _num(o.vram_after_bound),
        "vram_basis": o.vram_basis,
        "speed_ratio": _num(o.speed),
        "speed_detail": o.speed_detail,
        "evidence": [s.as_json() for s in o.evidence],
        "missing": [m.as_json() for m in o.missing],
        "notes": list(o.notes),
    }


def scope_json(s: ScopeAdvice) -> dict[str, Any]:
    c = s.cost
    return {
        "scope": c.scope,
        "cost": {
            "held_bytes": c.held,
            "by_family": c.by_family,
            "blocks": [{"bytes": b, "count": n} for b, n in c.blocks.items()],
            "apis": list(c.apis),
            "gpus": c.gpus,
            "vram_predicted": _num(c.predicted),
            "vram_bound": _num(c.bound),
            "vram_observed": c.observed.bytes if c.observed else None,
            "observed_why": c.observed.why if c.observed else None,
            "budget_share": _num(c.budget_share),
            "fits": [f.as_json() for f in c.fit_sources],
            "notes": list(c.notes),
        },
        "verdict": {
            "kind": s.verdict.kind,
            "words": s.verdict.words,
            "threshold": s.verdict.threshold,
            "best": s.verdict.best.name if s.verdict.best else None,
            "ranked": [o.name for o in s.verdict.ranked],
            "ranked_by": s.verdict.ranked_by,
        },
        "options": [option_json(o) for o in s.options],
    }


def advice_json(a: Advice) -> dict[str, Any]:
    return {
        "schema": ADVICE_SCHEMA,
        "version": ADVICE_VERSION,
        "trace": a.trace_path,
        "machine": {"gpu": a.machine.gpu, "driver_release": a.machine.release},
        "gpus": a.gpus,
        "gpu_memory": a.gpu_memory,
        "cost_step": a.step,
        "store_given": a.store_given,
        "replayed": a.replayed,
        "budget": a.budget.as_json() if a.budget else None,
        "notes": list(a.notes),
        "missing": [m.as_json() for m in a.missing],
        "exit_code": a.exit_code,
        "program": scope_json(a.program),
        "sites": [scope_json(s) for s in a.sites],
    }


def format_advice_json(a: Advice) -> str:
    return json.dumps(advice_json(a), indent=1, sort_keys=False) + "\n"
