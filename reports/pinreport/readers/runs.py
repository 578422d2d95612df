"""The typed values a results document's runs are read into, once (ResultsFile.runs).

A run, its plan, its metrics and its repeats reach the stages as frozen values whose fields are
typed here, at the border: no stage asks a document's dicts again (`run.get("status")`,
`metrics.get(name) or {}`). Every value is built from a checked document (results.py), so the
typing is a reading, not a second check: a field the document lacks is None here (or empty).
A run's repeats and metrics are read when first asked for: compare reads one metric of each of
10^5 stored runs, the charts none of their repeats.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

_new_tuple = tuple.__new__
_NUMBERS = (int, float)

# A plan parameter's value as a scenario file gives it: a scalar, or a list of scalars (a
# command's arguments, its environment), kept as a tuple.
Scalar = str | int | float | bool | None
ParamValue = Scalar | tuple[Scalar, ...]


def _int(value: Any) -> int | None:
    return value if value.__class__ is int else None


def _number(value: Any) -> float | None:
    return float(value) if value.__class__ in _NUMBERS else None


def _text(value: Any) -> str | None:
    return value if value.__class__ is str else None


def _object(value: Any) -> dict[str, Any]:
    return value if value.__class__ is dict else {}


def _list(value: Any) -> list[Any]:
    return value if value.__class__ is list else []


def evidence_texts(disturbance: Any) -> tuple[str, ...]:
    """The evidence texts of a disturbance record (a run's or a repeat's), in order."""
    out = []
    for e in _list(_object(disturbance).get("evidence")):
        text = e.get("text") if isinstance(e, dict) else e
        if isinstance(text, str) and text:
            out.append(text)
    return tuple(out)


class Metric(NamedTuple):
    """One metric of a run: its summary over the ok repeats and the value in each (None: a metric
    the harness's upgrade of an older file could not rebuild: shown, never judged). A NamedTuple
    rather than a frozen dataclass because it is the one read by the hundred thousand (a store's
    nights): a third of the cost."""

    name: str
    unit: str  # "" when the record has none
    median: float | None
    granule: int | None  # the quantum of a byte metric; None when unknown
    samples: tuple[float, ...] | None
    low: float | None  # the smallest repeat's value (the record's "min")
    high: float | None  # the largest (its "max")
    mad: float  # the median absolute deviation over the repeats; 0 when none is recorded
    disturbed: bool  # pinbench marked its probe disturbed

    @classmethod
    def from_json(cls, name: str, m: Any) -> "Metric":
        """A number is an int or a float, never a bool; a granule an int. The classes are asked
        exactly (a JSON value's class is dict, str, int, float or list; a bool's is bool): built
        for every metric compare judges and the charts read, of every night, this costs half
        what isinstance and a helper call per field did."""
        if m.__class__ is not dict:
            m = {}
        get = m.get
        unit, median, granule, samples = get("unit", ""), get("median"), get("granule"), get("samples")
        low, high, mad = get("min"), get("max"), get("mad")
        return _new_tuple(
            cls,
            (
                name,
                unit if unit.__class__ is str else "",
                float(median) if median.__class__ in _NUMBERS else None,
                granule if granule.__class__ is int else None,
                tuple(map(float, samples)) if samples.__class__ is list else None,
                float(low) if low.__class__ in _NUMBERS else None,
                float(high) if high.__class__ in _NUMBERS else None,
                float(mad) if mad.__class__ in _NUMBERS and mad > 0 else 0.0,
                get("disturbed") is True,
            ),
        )


class MetricFlags(NamedTuple):
    """What disturbance.disturbed_metrics reads of every metric of every baseline run: built
    without a Metric (Metrics.flags)."""

    name: str
    disturbed: bool
    low: float | None


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

    def flags(self) -> Iterator[MetricFlags]:
        """(name, disturbed, smallest repeat) of every metric, no Metric built: for the one pass
        over every metric of every baseline run (disturbance.disturbed_metrics), which builds a
        Metric only for the few whose smallest repeat is below zero."""
        for name, m in self._raw.items():
            if m.__class__ is dict:
                low = m.get("min")
                yield MetricFlags(name, m.get("disturbed") is True, float(low) if low.__class__ in _NUMBERS else None)


class Params(Mapping[str, ParamValue]):
    """A plan's kind parameters (docs/kinds.md), typed at the border: each a scalar or a tuple of
    scalars, asked for by name with the type the asker needs."""

    __slots__ = ("_values",)

    def __init__(self, raw: Any) -> None:
        values: dict[str, ParamValue] = {}
        for name, v in _object(raw).items():
            if isinstance(v, list):
                values[name] = tuple(x if isinstance(x, (str, int, float, bool)) or x is None else str(x) for x in v)
            elif isinstance(v, (str, int, float, bool)) or v is None:
                values[name] = v
            else:
                values[name] = str(v)
        self._values = values

    def __getitem__(self, name: str) -> ParamValue:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        return dict(self.items()) == dict(other.items()) if isinstance(other, Mapping) else NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def integer(self, name: str) -> int | None:
        """The parameter as a whole number; None when absent or of another type."""
        v = self._values.get(name)
        return v if v.__class__ is int else None

    def text(self, name: str) -> str | None:
        v = self._values.get(name)
        return v if isinstance(v, str) else None

    def shown(self, name: str) -> str:
        """The value as the report shows it (a list as a scenario file writes it: [a, b])."""
        return shown(self._values.get(name))


def shown(value: ParamValue) -> str:
    """A parameter's value as text: a list is shown as a list, as it was written."""
    return str(list(value)) if isinstance(value, tuple) else str(value)


@dataclass(frozen=True)
class Plan:
    """What a run was planned as (the scenario file multiplied out). A field the plan lacks is
    None (the results schema requires each; a hand-made or summarised document may lack one)."""

    id: str
    scenario: str
    kind: str | None
    api: str | None
    size: int | None  # size_bytes: the bytes of one buffer
    count: int | None  # buffers held at once
    gpus: int | None
    params: Params = field(default_factory=lambda: Params({}))

    @property
    def pinned(self) -> int | None:
        """The bytes pinned at once (size x count); None where either is unknown or not positive."""
        if self.size is None or self.count is None or self.size <= 0 or self.count <= 0:
            return None
        return self.size * self.count

    @property
    def gpu_count(self) -> int:
        """The GPUs the run used: the plan's, one where it has none."""
        return self.gpus if self.gpus is not None else 1

    @classmethod
    def from_json(cls, plan: Any) -> "Plan":
        plan = _object(plan)
        return cls(
            id=str(plan.get("id", "")),
            scenario=str(plan.get("scenario", "")),
            kind=_text(plan.get("kind")),
            api=_text(plan.get("api")),
            size=_int(plan.get("size_bytes")),
            count=_int(plan.get("count")),
            gpus=_int(plan.get("gpus")),
            params=Params(plan.get("params")),
        )


@dataclass(frozen=True)
class Snapshot:
    label: str
    readings: dict[str, int]  # probe key -> its reading; a key that was unavailable is absent

    @classmethod
    def from_json(cls, s: Any) -> "Snapshot":
        s = _object(s)
        readings = {k: v for k, v in _object(s.get("readings")).items() if v.__class__ is int}
        return cls(str(s.get("label")), readings)


class RepeatData:
    """What a kind recorded in one repeat (`data`, docs/kinds.md), asked for by name with the
    type the asker needs: a number, a flag, a text, or a member of a nested record."""

    __slots__ = ("_raw",)

    def __init__(self, raw: Any) -> None:
        self._raw = _object(raw)

    def number(self, name: str) -> float | None:
        v = self._raw.get(name)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def flag(self, name: str) -> bool | None:
        v = self._raw.get(name)
        return v if isinstance(v, bool) else None

    def text(self, name: str) -> str | None:
        v = self._raw.get(name)
        return v if isinstance(v, str) else None

    def part(self, name: str) -> "RepeatData":
        """A nested record (an empty one when absent)."""
        return RepeatData(self._raw.get(name))


@dataclass(frozen=True)
class Repeat:
    """One repeat of a run: its end, its snapshots, what its kind recorded, and the probes another
    process disturbed in it with the evidence."""

    index: int
    status: str  # "ok" where the record has none
    nonce: str
    snapshots: tuple[Snapshot, ...]
    data: RepeatData
    disturbed_probes: tuple[str, ...]
    evidence: tuple[str, ...]

    def snapshot(self, label: str) -> Snapshot | None:
        """The first snapshot with this label."""
        return next((s for s in self.snapshots if s.label == label), None)

    @classmethod
    def from_json(cls, r: Any) -> "Repeat":
        r = _object(r)
        d = r.get("disturbance")
        return cls(
            index=_int(r.get("index")) or 0,
            status=_text(r.get("status")) or "ok",
            nonce=_text(r.get("nonce")) or "",
            snapshots=tuple(Snapshot.from_json(s) for s in _list(r.get("snapshots"))),
            data=RepeatData(r.get("data")),
            disturbed_probes=tuple(p for p in _list(_object(d).get("probes")) if isinstance(p, str)),
            evidence=evidence_texts(d) if isinstance(d, dict) else (),
        )


@dataclass(frozen=True)
class Run:
    """One planned run of a results file, with its end (status) and its metrics."""

    id: str
    status: str | None  # "ok", "waived", "failed", "timeout", "disturbed"
    reason: str  # why it was waived, failed or disturbed ("" for an ok run)
    plan: Plan
    metrics: Metrics  # in the file's order
    _raw: dict[str, Any] = field(repr=False, compare=False)  # read here only: repeats, disturbance

    @classmethod
    def from_json(cls, run: Any) -> "Run":
        run = _object(run)
        status = run.get("status")
        return cls(
            id=run.get("id", "?") if isinstance(run.get("id"), str) else "?",
            status=status if isinstance(status, str) else None,
            reason=run.get("reason") if isinstance(run.get("reason"), str) else "",
            plan=Plan.from_json(run.get("plan")),
            metrics=Metrics(_object(run.get("metrics"))),
            _raw=run,
        )

    @cached_property
    def repeats(self) -> tuple[Repeat, ...]:
        """Every repeat, in the file's order (a stored night compare keeps holds only each
        repeat's index, status and nonce: results.without_repeat_data)."""
        return tuple(Repeat.from_json(r) for r in _list(self._raw.get("repeats")))

    @property
    def ok_repeats(self) -> tuple[Repeat, ...]:
        return tuple(r for r in self.repeats if r.status == "ok")

    @cached_property
    def evidence(self) -> tuple[str, ...]:
        """The evidence texts of the run's own disturbance record (a run that ended disturbed, or
        the attempts an ok run retried)."""
        return evidence_texts(self._raw.get("disturbance"))

    @property
    def attempts(self) -> int | None:
        """How many attempts its disturbance record counts; None when it has none."""
        return _int(_object(self._raw.get("disturbance")).get("attempts"))

    @cached_property
    def nonces(self) -> tuple[str, ...]:
        """Every repeat's nonce (its measurement identity), "" where one has none."""
        return tuple(_text(_object(r).get("nonce")) or "" for r in _list(self._raw.get("repeats")))
