"""What changed between the environment of the current file and those of its baseline files,
besides the driver release (compare.py names it beside each verdict; the report's environment
table shows every compared field)."""

from dataclasses import dataclass
from typing import Any

# The driver release is what is being compared; the replay flag is shown as REPLAYED anyway.
_NOT_DIFFED = {"driver.release", "driver.release_source", "replayed"}


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        if set(value) == {"unavailable"}:
            out[prefix] = f"unavailable ({value['unavailable']})"
            return
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list):
        if not value:
            out[prefix] = "[]"
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}[{i}]", out)
    else:
        out[prefix] = value


def comparable_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """Environment (and tool) fields of a results document, flattened to dotted paths.

    Other compute processes are summarised by their count: their pids change every night,
    their presence is what matters."""
    env = dict(doc.get("environment") or {})
    others = env.pop("other_compute_processes", None)
    out: dict[str, Any] = {}
    _flatten(env, "", out)
    if isinstance(others, list):
        out["other_compute_processes"] = f"{len(others)} process(es)"
    tool = doc.get("tool")
    if isinstance(tool, dict):
        _flatten(tool, "tool", out)
    for field in _NOT_DIFFED:
        out.pop(field, None)
    return out


@dataclass(frozen=True)
class EnvironmentChange:
    field: str
    baseline: tuple[Any, ...]  # the distinct values among the baseline files
    current: Any

    def describe(self) -> str:
        before = " | ".join(str(v) for v in self.baseline)
        return f"{self.field}: {before} -> {self.current}"


ABSENT = "(absent)"


def environment_changes(current: dict[str, Any], baselines: list[dict[str, Any]]) -> list[EnvironmentChange]:
    """Every environment field (except the driver release) whose value in the current
    document differs from its value in any of the baseline documents.

    The tool record of a replayed document (backend "replay") is the replaying binary's (its
    version, its compiler), not the measurement's: when the current file is replayed, tool.*
    is left out on both sides, so a rebuilt pinbench never reads as a change of the machine."""
    cur = comparable_fields(current)
    bases = [comparable_fields(b) for b in baselines]
    if current.get("backend") == "replay":
        cur = {k: v for k, v in cur.items() if not k.startswith("tool.")}
        bases = [{k: v for k, v in b.items() if not k.startswith("tool.")} for b in bases]
    changes = []
    for field in sorted(set(cur).union(*[set(b) for b in bases])):
        now = cur.get(field, ABSENT)
        before: list[Any] = []
        for b in bases:
            v = b.get(field, ABSENT)
            if v not in before:
                before.append(v)
        if any(v != now for v in before):
            changes.append(EnvironmentChange(field, tuple(before), now))
    return changes
