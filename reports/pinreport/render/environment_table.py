"""The environment table: every compared field of the current file beside its baseline's."""

import json
from typing import Any

from pinreport.analysis.environment_changes import comparable_fields


def _show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, (bool, type(None))) else str(v)


def environment_rows(current: dict[str, Any], baselines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every compared environment field, the changed ones first (the driver release is what is
    compared, so it is not among them: environment.comparable_fields)."""
    cur = comparable_fields(current)
    bases = [comparable_fields(b) for b in baselines]
    rows = []
    for name in sorted(set(cur).union(*[set(b) for b in bases])):
        now = cur.get(name, "(absent)")
        before: list[Any] = []
        for b in bases:
            v = b.get(name, "(absent)")
            if v not in before:
                before.append(v)
        changed = bool(bases) and any(v != now for v in before)
        rows.append(
            {"field": name, "current": _show(now), "baseline": " | ".join(_show(v) for v in before), "changed": changed}
        )
    rows.sort(key=lambda r: not r["changed"])
    return rows
