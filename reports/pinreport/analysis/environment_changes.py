"""What changed between the environment of the current file and those of its baseline files,
besides the driver release (compare.py names it beside each verdict; the report's environment
table shows every compared field: ResultsFile.compared_fields)."""

from collections.abc import Sequence
from dataclasses import dataclass

from pinreport.readers.environment import FieldValue
from pinreport.readers.results import ResultsFile


@dataclass(frozen=True)
class EnvironmentChange:
    field: str
    baseline: tuple[FieldValue, ...]  # the distinct values among the baseline files
    current: FieldValue

    def describe(self) -> str:
        before = " | ".join(str(v) for v in self.baseline)
        return f"{self.field}: {before} -> {self.current}"


ABSENT = "(absent)"


def _fields(f: ResultsFile, replayed: bool) -> dict[str, FieldValue]:
    """The file's compared fields; without the tool record where the current file is replayed:
    a replayed file's tool record is the replaying binary's (its version, its compiler), not the
    measurement's, so a rebuilt pinbench never reads as a change of the machine."""
    fields = f.compared_fields
    return {k: v for k, v in fields.items() if not k.startswith("tool.")} if replayed else dict(fields)


def environment_changes(current: ResultsFile, baselines: Sequence[ResultsFile]) -> list[EnvironmentChange]:
    """Every environment field (except the driver release) whose value in the current file
    differs from its value in any of the baseline files."""
    replayed = current.backend == "replay"
    cur = _fields(current, replayed)
    bases = [_fields(b, replayed) for b in baselines]
    changes = []
    for name in sorted(set(cur).union(*[set(b) for b in bases])):
        now = cur.get(name, ABSENT)
        before: list[FieldValue] = []
        for b in bases:
            v = b.get(name, ABSENT)
            if v not in before:
                before.append(v)
        if any(v != now for v in before):
            changes.append(EnvironmentChange(name, tuple(before), now))
    return changes
