"""The typed values a results document's runs are read into, once (ResultsFile.runs).

A run and its metrics reach the stages as frozen values whose fields are typed here, at the
border, instead of each stage asking the document's dicts again (`run.get("status")`,
`metrics.get(name) or {}`). The record as written stays beside each value (`record`), for
the fields one stage alone reads (a metric's min and mad: disturbance.py, rule.py; a run's
repeats and disturbance evidence: disturbance.py; a plan's size, count, api and params) and for
the kind tables and claims that still read the records (kind_results.py). Every value is built
from a checked document (load.py), so the typing is a reading, not a second check: a field the
document lacks is None here, as `.get` gave.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

_new_tuple = tuple.__new__
_NUMBERS = (int, float)


class Metric(NamedTuple):
    """One metric of a run: its summary over the ok repeats and, from results schema 4 on, the
    value in each (None: an older file's metric the harness could not rebuild, shown, never judged).
    An immutable record like the other values here, a NamedTuple rather than a frozen dataclass
    because it is the one read by the hundred thousand (a store's nights): a third of the cost."""

    name: str
    unit: str  # "" when the record has none
    median: float | None
    granule: int | None  # the quantum of a byte metric; None when unknown
    samples: tuple[float, ...] | None
    record: dict[str, Any]

    @classmethod
    def from_json(cls, name: str, m: Any) -> "Metric":
        """A number is an int or a float, never a bool; a granule an int. The classes are asked
        exactly (a JSON value's class is dict, str, int, float or list; a bool's is bool): built
        for every metric compare judges and the charts read, of every night, this costs half
        what isinstance and a helper call per field did."""
        if m.__class__ is not dict:
            m = {}
        unit, median, granule, samples = m.get("unit", ""), m.get("median"), m.get("granule"), m.get("samples")
        return _new_tuple(
            cls,
            (
                name,
                unit if unit.__class__ is str else "",
                float(median) if median.__class__ in _NUMBERS else None,
                granule if granule.__class__ is int else None,
                tuple(map(float, samples)) if samples.__class__ is list else None,
                m,
            ),
        )


class Metrics(Mapping[str, Metric]):
    """A run's metrics by name, in the file's order, each read into a Metric when it is asked
    for. Not kept: compare asks a stored night once for each metric it judges, and a release of
    nights holds 10^5 of them; kept, they would only outlive the comparison."""

    __slots__ = ("_raw",)

    def __init__(self, raw: dict[str, Any]) -> None:
        self._raw = raw

    def __getitem__(self, name: str) -> Metric:
        return Metric.from_json(name, self._raw[name])

    def __contains__(self, name: object) -> bool:
        return name in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __eq__(self, other: object) -> bool:
        return dict(self.items()) == dict(other.items()) if isinstance(other, Mapping) else NotImplemented

    def records(self) -> Iterator[tuple[str, Any]]:
        """(name, record as written) of every metric, no Metric built: for the one pass over every
        metric of every baseline run (disturbance.disturbed_metrics), which reads a flag and a
        sign of each and builds a Metric only for the few that need one."""
        return iter(self._raw.items())


@dataclass(frozen=True)
class Plan:
    """What a run was planned as (the scenario file multiplied out)."""

    id: str
    scenario: str
    kind: str | None
    record: dict[str, Any]  # the plan as written: api, size_bytes, gpus, params ...

    @classmethod
    def from_json(cls, plan: Any) -> "Plan":
        plan = plan if isinstance(plan, dict) else {}
        kind = plan.get("kind")
        return cls(
            id=str(plan.get("id", "")),
            scenario=str(plan.get("scenario", "")),
            kind=kind if isinstance(kind, str) else None,
            record=plan,
        )


@dataclass(frozen=True)
class Run:
    """One planned run of a results file, with its end (status) and its metrics."""

    id: str
    status: str | None  # "ok", "waived", "failed", "timeout", "disturbed"
    reason: str  # why it was waived, failed or disturbed ("" for an ok run)
    plan: Plan
    metrics: Metrics  # in the file's order
    record: dict[str, Any]  # the run as written

    @classmethod
    def from_json(cls, run: Any) -> "Run":
        run = run if isinstance(run, dict) else {}
        metrics = run.get("metrics")
        status = run.get("status")
        return cls(
            id=run.get("id", "?") if isinstance(run.get("id"), str) else "?",
            status=status if isinstance(status, str) else None,
            reason=run.get("reason") if isinstance(run.get("reason"), str) else "",
            plan=Plan.from_json(run.get("plan")),
            metrics=Metrics(metrics if isinstance(metrics, dict) else {}),
            record=run,
        )
