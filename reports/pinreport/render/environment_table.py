"""The environment table: every compared field of the current file beside its baseline's."""

import json
from typing import TypedDict

from pinreport.pipeline.values import FieldValue, ResultsFile


class EnvironmentRow(TypedDict):
    field: str
    current: str
    baseline: str  # the distinct values of the baseline files, " | " between them
    changed: bool


def _show(v: FieldValue) -> str:
    return json.dumps(v) if isinstance(v, (bool, type(None))) else str(v)


def environment_rows(current: ResultsFile, baselines: list[ResultsFile]) -> list[EnvironmentRow]:
    """Every compared environment field, the changed ones first (the driver release is what is
    compared, so it is not among them: ResultsFile.compared_fields)."""
    cur = current.compared_fields
    bases = [b.compared_fields for b in baselines]
    rows: list[EnvironmentRow] = []
    for name in sorted(set(cur).union(*[set(b) for b in bases])):
        now = cur.get(name, "(absent)")
        before: list[FieldValue] = []
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
