"""`pinreport drivers --json`: the driver table as one JSON document, schema pinreport.drivers
(reports/pinreport/data/drivers.schema.json; the tests validate what this writes against it).
Numbers are bytes; a value not measured is null, never 0."""

import json
from typing import Any

from pinreport.base.atomic_write import write_text
from pinreport.base.labels import GiB
from pinreport.base.schema import DRIVERS_SCHEMA_NAME, DRIVERS_SCHEMA_VERSION
from pinreport.formats import drivers_cells as cells
from pinreport.pipeline.answer import CostRow
from pinreport.pipeline.drivers import BudgetCell, DriverTable, Night, ReleaseRow


def _api(night: Night, row: CostRow) -> dict[str, Any]:
    reserve = cells.reserve_at(row)
    bound = night.bound_of(row)
    return {
        "api": row.api,
        "gpus": row.gpus,
        "probe": row.family,
        "below_resolution": row.fit.below_resolution,
        "per_gib": None if row.fit.below_resolution else row.per_gib,
        "per_gib_bound": None if bound is None else bound * GiB,
        "rule": row.rule or None,
        "rule_counts": {v: n for v, n in row.rule_counts},
        "reserve_16gib": None if reserve is None else reserve.per_gpu,
        "reserve_notes": list(reserve.notes) if reserve is not None else [],
    }


def _budget(b: BudgetCell | None) -> dict[str, Any] | None:
    if b is None:
        return None
    return {
        "path": b.path,
        "started_at": b.started_at,
        "safe_budget": b.safe_budget,
        "family": b.family,
        "limit_found": b.limit_found,
        "stopped_by": b.words,
        "vram_cost": b.vram_cost,
        "vram_disturbed": b.vram_disturbed,
    }


def _release(r: ReleaseRow) -> dict[str, Any]:
    v = r.verdict
    d = v.decided_by
    return {
        "release": r.key.release,
        "replayed": r.replayed,
        "nights": r.nights,
        "first": r.first,
        "last": r.last,
        "newest_night": r.newest.path,
        "apis": [_api(r.newest, x) for x in r.newest.rows],
        "budget": _budget(r.budget),
        "budget_verdicts": [
            {"family": b.family, "verdict": b.verdict, "old": b.old, "new": b.new, "why": b.why}
            for b in r.budget_verdicts
        ],
        "claims_changed": [{"n": c.n, "old": c.old, "new": c.new} for c in r.claims_changed],
        "verdict": {
            "verdict": v.verdict,
            "against": v.against,
            "decided_by": None if d is None else {"what": d.what, "change": d.change},
            "counts": {name: n for name, n in v.counts},
        },
    }


def drivers_document(table: DriverTable) -> dict[str, Any]:
    groups = []
    for group in table.groups:
        platform, model, gpu, count = group
        groups.append(
            {
                "platform": platform,
                "driver_model": model,
                "gpu": gpu,
                "gpu_count": count,
                "releases": [_release(r) for r in table.rows_of(group)],
            }
        )
    return {
        "schema": DRIVERS_SCHEMA_NAME,
        "version": DRIVERS_SCHEMA_VERSION,
        "store": table.store,
        "replay_shown": table.replay_shown,
        "groups": groups,
        "problems": [str(p) for p in table.problems],
    }


def write_drivers_json(table: DriverTable, path: str) -> None:
    write_text(path, json.dumps(drivers_document(table), indent=1, ensure_ascii=False) + "\n")
