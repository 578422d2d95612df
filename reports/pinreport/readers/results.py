"""Reading one results file: the bounded read, strict JSON (strict_json.py), the schema name and
version (the current one only: an older file is refused with the command that upgrades it, as the
harness alone upgrades), then the JSON Schema and the rules beyond it (validate.py); the value
every stage reads, ResultsFile: the file's facts typed once (its runs: runs.py; its environment:
environment.py; its controls, scenario record, interruption and replay source here).

Every rejection is a BadInputError whose message names the file and, for schema problems,
the JSON path of the first problem, in the style of the C++ reader (docs/results-schema.md).
"""

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import xxhash

from pinreport.base.catalog import HELD_STAGES, RULE_KINDS
from pinreport.base.errors import BadInputError, OlderResultsError
from pinreport.base.input_file import RESULTS_LIMIT, read_bounded
from pinreport.base.probe_keys import split_metric
from pinreport.base.schema import RESULTS_SCHEMA_NAME, RESULTS_SCHEMA_VERSION
from pinreport.readers.environment import Environment, FieldValue, flattened
from pinreport.readers.runs import Run
from pinreport.readers.strict_json import parse_json
from pinreport.readers.validate import check_results


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _text(holder: Any, key: str) -> str:
    """As string_or_empty() in the harness: the member's text, "" unless a string."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, str) else ""


# A control's measured quantities, in the order the controls table shows them (samples is a count).
CONTROL_QUANTITIES = ("bytes", "tolerance", "difference", "samples", "cuda_measuring_delta", "nvml_observer_delta")


@dataclass(frozen=True)
class Control:
    """One control `pinbench run` made before measuring (docs/results-schema.md, "controls")."""

    name: str
    verdict: str | None  # "PASS", "FAIL", ...; None when it records none
    quantities: tuple[tuple[str, int | float], ...]  # CONTROL_QUANTITIES it recorded, in that order, as written
    why: str  # "" when it says nothing
    error: str | None  # None when it records no error

    def quantity(self, name: str) -> int | float | None:
        return next((v for k, v in self.quantities if k == name), None)

    @classmethod
    def from_json(cls, name: str, c: dict[str, Any]) -> "Control":
        verdict, why, error = c.get("verdict"), c.get("why"), c.get("error")
        return cls(
            name=name,
            verdict=None if verdict is None else str(verdict),
            quantities=tuple((k, c[k]) for k in CONTROL_QUANTITIES if _number(c.get(k)) is not None),
            why=str(why) if why else "",
            error=None if "error" not in c else str(error),
        )


@dataclass(frozen=True)
class Controls:
    """The controls, the null control's granule per probe key, and why nothing was measured."""

    controls: tuple[Control, ...] = ()  # by name
    granules: tuple[tuple[str, float | None, str], ...] = ()  # (probe key, bytes or None, as written)
    skipped: str | None = None  # "no CUDA device ...": nothing was measured

    def granule(self, key: str) -> float | None:
        return next((g for k, g, _ in self.granules if k == key), None)

    def named(self, name: str) -> Control | None:
        return next((c for c in self.controls if c.name == name), None)

    @classmethod
    def from_json(cls, raw: Any) -> "Controls":
        raw = _object(raw)
        granules = _object(raw.get("granules"))
        skipped = raw.get("skipped")
        return cls(
            controls=tuple(
                Control.from_json(name, c)
                for name, c in sorted(raw.items())
                if name != "granules" and isinstance(c, dict)
            ),
            granules=tuple((k, _number(v), str(v)) for k, v in sorted(granules.items())),
            skipped=skipped if isinstance(skipped, str) and skipped else None,
        )


@dataclass(frozen=True)
class Expectation:
    """A scenario's `expect` claims for one driver model (analysis/expect.py judges them)."""

    driver_model: str
    limits: tuple[tuple[str, float], ...]  # (max_overhead_ratio ..., bound), as written
    metrics: tuple[tuple[str, float | None, float | None], ...]  # (metric, min, max)


@dataclass(frozen=True)
class ScenarioRecord:
    """One scenario of the file's scenario record: its name, its relative floor, its claims."""

    name: str
    relative_floor: float | None  # options.relative_floor, where it is a number >= 0
    expectations: tuple[Expectation, ...]  # by driver model

    @classmethod
    def from_json(cls, s: dict[str, Any]) -> "ScenarioRecord":
        floor = _number(_object(s.get("options")).get("relative_floor"))
        expectations = []
        expect = s.get("expect")
        for model, limits in sorted(_object(expect).items()):
            if not isinstance(limits, dict):
                continue
            metrics = tuple(
                (name, _number(bounds.get("min")), _number(bounds.get("max")))
                for name, bounds in sorted(_object(limits.get("metrics")).items())
                if isinstance(bounds, dict)
            )
            values = tuple((k, float(v)) for k, v in limits.items() if k != "metrics" and _number(v) is not None)
            expectations.append(Expectation(model, values, metrics))
        return cls(
            name=s["name"],
            relative_floor=floor if floor is not None and floor >= 0 else None,
            expectations=tuple(expectations) if isinstance(expect, dict) else (),
        )


def measurement_id(doc: Any) -> str:
    """What identifies one measurement however its file was copied or re-saved (store.md): its
    measurement_id (results schema 3, kept across --resume), else "derived-" + XXH3-64 of
    started_at, backend and the sorted repeat nonces, one per line. Equals the C++
    measurement_identity()."""
    given = _text(doc, "measurement_id")
    if given:
        return given
    runs = doc.get("runs") if isinstance(doc, dict) else None
    nonces = sorted(
        _text(r, "nonce")
        for run in (runs if isinstance(runs, list) else [])
        if isinstance(run, dict) and isinstance(run.get("repeats"), list)
        for r in run["repeats"]
    )
    text = "\n".join([_text(doc, "started_at"), _text(doc, "backend") or "cuda", *nonces])
    return "derived-" + xxhash.xxh3_64_hexdigest(text.encode("utf-8"))


# What the history index keeps of a night's metrics (night_summary).
_SUMMARY_FIELDS = ("unit", "median", "granule", "disturbed")
# What compare keeps of each repeat of a stored night (without_repeat_data).
_REPEAT_IDENTITY = ("index", "status", "nonce")


@dataclass(frozen=True)
class ResultsFile:
    """One results file, read once: every stage reads these values, never the document (_doc is
    this module's, for the runs read on first use and the copies made of the file)."""

    path: str
    _doc: dict[str, Any] = field(repr=False)

    @classmethod
    def of(cls, path: str, doc: dict[str, Any]) -> "ResultsFile":
        """A document read and checked elsewhere (the tests' hand-made documents), as it is."""
        return cls(path, doc)

    # --- the file's facts ------------------------------------------------------------------

    @property
    def backend(self) -> str:
        """ "cuda", or "replay" for a replayed file ("cuda" where an older writer wrote none)."""
        return _text(self._doc, "backend") or "cuda"

    @property
    def replayed(self) -> bool:
        """Replayed data is never a measurement (docs/replay.md); callers label it REPLAYED."""
        return self._doc.get("backend") == "replay" or self.environment.replayed

    @property
    def replay_source(self) -> str | None:
        """The real file a replayed one was derived from; None when it names none."""
        source = _object(self._doc.get("replay")).get("source")
        return source if isinstance(source, str) else None

    @property
    def started_at(self) -> str:
        return _text(self._doc, "started_at")

    @property
    def complete(self) -> bool:
        return self._doc.get("complete") is True

    @property
    def interrupted(self) -> bool:
        return isinstance(self._doc.get("interrupted"), dict)

    @property
    def interrupted_by(self) -> str:
        """The signal that interrupted the run ("" when none is named)."""
        return _text(self._doc.get("interrupted"), "signal")

    @property
    def finished(self) -> tuple[bool, int]:
        """How far the file got: complete, then the number of runs it holds. Of two files of one
        measurement the one that finished more stands for it (a resumed file, store.md)."""
        runs = self._doc.get("runs")
        return (self.complete, len(runs) if isinstance(runs, list) else 0)

    @cached_property
    def measurement_id(self) -> str:
        return measurement_id(self._doc)

    @cached_property
    def environment(self) -> Environment:
        """The environment record, read once."""
        return Environment.from_json(self._doc.get("environment"))

    @cached_property
    def controls(self) -> Controls:
        return Controls.from_json(self._doc.get("controls"))

    @cached_property
    def scenarios(self) -> tuple[ScenarioRecord, ...]:
        """The scenario record's scenarios that have a name, in the file's order."""
        records = _object(self._doc.get("scenario")).get("scenarios")
        return tuple(
            ScenarioRecord.from_json(s)
            for s in (records if isinstance(records, list) else [])
            if isinstance(s, dict) and isinstance(s.get("name"), str)
        )

    @cached_property
    def compared_fields(self) -> Mapping[str, FieldValue]:
        """The environment record and the tool record, flattened to dotted paths (what the
        report's environment table shows and compare diffs, environment.flattened)."""
        return flattened(self._doc.get("environment"), self._doc.get("tool"))

    @cached_property
    def runs(self) -> tuple[Run, ...]:
        """The runs, read once into typed values (runs.py), in the file's order."""
        runs = self._doc.get("runs")
        return tuple(Run.from_json(r) for r in (runs if isinstance(runs, list) else []))

    @cached_property
    def _runs_by_id(self) -> dict[str, Run]:
        out: dict[str, Run] = {}
        for run in self.runs:
            out.setdefault(run.id, run)
        return out

    def run(self, run_id: str) -> Run | None:
        """The run with this id (the first, where a file breaks the rule of unique ids), or None:
        looked up in an index built once, not by a scan of the runs (compare asks it for every run
        of every baseline file)."""
        return self._runs_by_id.get(run_id)

    # --- copies of the file ----------------------------------------------------------------

    def without_repeat_data(self) -> "ResultsFile":
        """The file as `compare` keeps a baseline night: without what each repeat recorded
        (snapshots, timings, data, output: about 85% of a nightly file), which no verdict and no
        report reads of a stored night; each repeat keeps its index, status and nonce (a
        measurement_id derived from the nonces stays the same). A year of nights' comparison then
        holds about 1 MB of Python objects a night instead of 7."""
        doc = dict(self._doc)
        runs = doc.get("runs")
        if isinstance(runs, list):
            doc["runs"] = [_run_without_repeat_data(run) for run in runs]
        return ResultsFile(self.path, doc)

    def with_shifted_metrics(self, shifts: Mapping[tuple[str, str], float], path: str) -> "ResultsFile":
        """A copy (in memory, never a file, never a measurement: the A/A check's injected
        shifts) in which each (run id, metric) of `shifts` moved by its shift: every sample, and
        its summary (median, min, max) with them."""
        doc = copy.deepcopy(self._doc)
        for run in _object(doc).get("runs") or []:
            metrics = _object(_object(run).get("metrics"))
            for (run_id, name), shift in shifts.items():
                if run_id == run.get("id") and isinstance(metrics.get(name), dict):
                    m = metrics[name]
                    if isinstance(m.get("samples"), list):
                        m["samples"] = [float(v) + shift for v in m["samples"]]
                    for k in ("median", "min", "max"):
                        if _number(m.get(k)) is not None:
                            m[k] = float(m[k]) + shift
        return ResultsFile(path, doc)

    def night_summary(self) -> dict[str, object]:
        """What the history index keeps of this night (store/history_index.py): its ok runs of the
        rule kinds, each with its plan and its held-cost byte metrics (unit, median, granule,
        disturbed), and its start, backend, identity, progress and driver release. A document in
        the results format, read back by summary_of(). ValueError where the document is not of the
        results format's shape (a file no writer checked: the caller then checks it in full)."""
        raw = self._doc.get("runs")
        if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
            raise ValueError("runs is not a list of runs")
        runs = []
        for run in self.runs:
            if run.status != "ok" or run.plan.kind not in RULE_KINDS:
                continue
            metrics = {}
            for name, m in _object(run._raw.get("metrics")).items():
                parts = split_metric(name)
                if parts is None or parts[0] not in HELD_STAGES or not isinstance(m, dict) or m.get("unit") != "bytes":
                    continue
                metrics[name] = {k: m[k] for k in _SUMMARY_FIELDS if k in m}
            if metrics:
                runs.append(
                    {"id": run._raw.get("id"), "status": "ok", "plan": run._raw.get("plan") or {}, "metrics": metrics}
                )
        return {
            "started_at": self._doc.get("started_at", ""),
            "backend": self._doc.get("backend", "cuda"),
            "measurement_id": self.measurement_id,
            "complete": self._doc.get("complete"),
            "environment": {"driver": {"release": self.environment.release}},
            "runs": runs,
        }

    @classmethod
    def summary_of(cls, path: str, summary: object) -> "ResultsFile":
        """A night as the history index kept it (night_summary)."""
        return cls(path, _object(summary))


def _run_without_repeat_data(run: Any) -> Any:
    repeats = run.get("repeats") if isinstance(run, dict) else None
    if not isinstance(repeats, list):
        return run
    kept = [{k: r[k] for k in _REPEAT_IDENTITY if k in r} if isinstance(r, dict) else r for r in repeats]
    return {**run, "repeats": kept}


def parse_results(doc: Any, path: str, *, checked_by_writer: bool = False) -> ResultsFile:
    """Checks an already-parsed document; raises BadInputError naming `path` (OlderResultsError
    for an older version). checked_by_writer: these bytes passed the harness's reader when they
    were stored (docs/store.md, "What a stored file's name vouches for"): the schema name and
    version are checked, but the JSON Schema and the rules beyond it are not run again."""
    if not isinstance(doc, dict):
        raise BadInputError(path, "not a pinbench results file (the document is not a JSON object)")
    schema = doc.get("schema")
    if schema != RESULTS_SCHEMA_NAME:
        found = json.dumps(schema) if schema is not None else "missing"
        raise BadInputError(
            path, f"not a pinbench results file (schema is {found}, expected {json.dumps(RESULTS_SCHEMA_NAME)})"
        )
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and 1 <= version < RESULTS_SCHEMA_VERSION:
        raise OlderResultsError(path, version, RESULTS_SCHEMA_VERSION)
    if version != RESULTS_SCHEMA_VERSION or isinstance(version, bool):
        raise BadInputError(
            path,
            f"results schema version {json.dumps(version)} is not supported "
            f"(this pinreport reads version {RESULTS_SCHEMA_VERSION})",
        )
    if not checked_by_writer:
        check_results(doc, path)
    return ResultsFile(path, doc)


def results_from_bytes(data: bytes, path: str) -> ResultsFile:
    """A results file from bytes already read (the store hashes the same bytes): strict JSON,
    the results schema and rules."""
    return parse_results(parse_json(data, path), path)


def load_results(path: str | Path) -> ResultsFile:
    """Reads and validates a results file; BadInputError naming the file on any problem (a file
    that is not a regular file or is larger than input_file.RESULTS_LIMIT is refused unread)."""
    name = str(path)
    try:
        data = read_bounded(path, RESULTS_LIMIT)
    except OSError as e:
        raise BadInputError(name, f"cannot read: {e.strerror or e}") from e
    return results_from_bytes(data, name)
