"""Reading a `pinbench trace` file (docs/trace.md) once into a typed TraceFile: the program's
calls, what it held pinned at its peak, the NVML samples, the device cost at the peak, its notes
and its environment. Read as results files are (readers/results.py): bounded (TRACE_LIMIT), strict JSON,
then docs/trace.schema.json; BadInputError "FILE: FIELD PATH: message" on any problem. Every
later stage (analysis/trace.py, advice/, the trace page) reads these values, never the document.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pinreport.base.input_file import TRACE_LIMIT
from pinreport.base.schema import schema_of
from pinreport.readers.documents import read_versioned_document
from pinreport.readers.environment import Environment
from pinreport.readers.store_key import StoreKey

TRACE_SCHEMA = "pinbench-trace"
TRACE_VERSIONS = (1,)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _bytes_by_name(value: Any) -> dict[str, int]:
    return {str(k): v for k, v in _object(value).items() if _int(v) is not None}


@dataclass(frozen=True)
class Call:
    """One traced driver call."""

    api: str
    pid: int
    bytes: int
    result: int  # the driver's result code: 0 succeeded
    t_ms: float  # from the program's start (0 where the tracer wrote none)
    stack: tuple[str, ...]
    device: int | None
    address: int

    @classmethod
    def from_json(cls, c: Any) -> "Call":
        c = _object(c)
        return cls(
            api=_text(c.get("api")) or "",
            pid=_int(c.get("pid")) or 0,
            bytes=_int(c.get("bytes")) or 0,
            result=_int(c.get("result")) if _int(c.get("result")) is not None else -1,
            t_ms=_number(c.get("t_ms")) or 0.0,
            stack=tuple(s for s in _list(c.get("stack")) if isinstance(s, str)),
            device=_int(c.get("device")),
            address=_int(c.get("address")) or 0,
        )


@dataclass(frozen=True)
class Holding:
    """One block held pinned at the peak."""

    site: str  # the call site ("unknown" where none was recorded)
    api: str
    bytes: int
    pid: int | None

    @classmethod
    def from_json(cls, h: Any) -> "Holding":
        h = _object(h)
        return cls(
            site=str(h.get("site") or "unknown"),
            api=str(h.get("api")),
            bytes=_int(h.get("bytes")) or 0,
            pid=_int(h.get("pid")),
        )


@dataclass(frozen=True)
class ApiCalls:
    calls: int
    failed: int
    bytes_asked: int


@dataclass(frozen=True)
class Pinned:
    """What the program held pinned: at its peak, and over time."""

    summary: str
    peak_bytes: int
    peak_t_ms: float | None
    at_peak: tuple[Holding, ...]
    peak_by_family: dict[str, int]
    peak_by_site: dict[str, int]
    by_api: dict[str, ApiCalls]
    timeline: tuple[tuple[float, int], ...]  # (ms from the start, bytes held)

    @classmethod
    def from_json(cls, p: Any) -> "Pinned":
        p = _object(p)
        by_api = {
            str(api): ApiCalls(_int(v.get("calls")) or 0, _int(v.get("failed")) or 0, _int(v.get("bytes_asked")) or 0)
            for api, v in _object(p.get("by_api")).items()
            if isinstance(v, dict)
        }
        timeline = tuple(
            (float(point[0]), int(point[1]))
            for point in _list(p.get("timeline"))
            if isinstance(point, list)
            and len(point) == 2
            and _number(point[0]) is not None
            and _int(point[1]) is not None
        )
        return cls(
            summary=_text(p.get("summary")) or "",
            peak_bytes=_int(p.get("peak_bytes")) or 0,
            peak_t_ms=_number(p.get("peak_t_ms")),
            at_peak=tuple(Holding.from_json(h) for h in _list(p.get("at_peak"))),
            peak_by_family=_bytes_by_name(p.get("peak_by_family")),
            peak_by_site=_bytes_by_name(p.get("peak_by_site")),
            by_api=by_api,
            timeline=timeline,
        )


@dataclass(frozen=True)
class DeviceReading:
    """One device in one NVML sample: its used memory and each process's, None where NVML had none."""

    nvml_index: int
    used: int | None
    processes: dict[int, int] | None  # pid -> bytes

    @classmethod
    def from_json(cls, d: Any) -> "DeviceReading":
        d = _object(d)
        processes = d.get("processes")
        return cls(
            nvml_index=_int(d.get("nvml_index")) or 0,
            used=_int(d.get("used")),
            processes=(
                {int(pid): b for pid, b in processes.items() if str(pid).isdecimal() and _int(b) is not None}
                if isinstance(processes, dict)
                else None
            ),
        )


@dataclass(frozen=True)
class Sample:
    t_ms: float
    consistent: bool  # False: the device and the process figures were read apart
    devices: tuple[DeviceReading, ...]

    @classmethod
    def from_json(cls, s: Any) -> "Sample":
        s = _object(s)
        return cls(
            t_ms=_number(s.get("t_ms")) or 0.0,
            consistent=s.get("consistent") is not False,
            devices=tuple(DeviceReading.from_json(d) for d in _list(s.get("devices"))),
        )


@dataclass(frozen=True)
class PeakDevice:
    """The device cost observed at the peak on one GPU, or why there is none."""

    nvml_index: int
    cost_bytes: int | None
    why: str | None
    disturbances: tuple[str, ...]

    @classmethod
    def from_json(cls, d: Any) -> "PeakDevice":
        d = _object(d)
        return cls(
            nvml_index=_int(d.get("nvml_index")) or 0,
            cost_bytes=_int(d.get("cost_bytes")),
            why=_text(d.get("why")),
            disturbances=tuple(x for x in _list(d.get("disturbances")) if isinstance(x, str)),
        )


@dataclass(frozen=True)
class CostAtPeak:
    baseline_t_ms: float | None
    baseline_before_context: bool  # no sample saw the context before the first pin: the figure would hold it
    devices: tuple[PeakDevice, ...]


@dataclass(frozen=True)
class ProgramStatus:
    kind: str | None  # "exited", "signalled" ...; None where the tracer wrote none
    exit_code: int | None
    message: str | None


@dataclass(frozen=True)
class Tracing:
    state: str | None  # "on" where every process was traced; None where the tracer wrote none
    message: str | None
    pids: tuple[int, ...]  # the processes that loaded the injection, in the file's order


@dataclass(frozen=True)
class ProgramNotes:
    """What the traced program noted about itself (docs/trace.md, "Notes"): the few the analysis
    reads, typed, and every note as text for the outputs."""

    main_pid: int | None
    batch_bytes: int | None
    needed_bytes: int | None
    transfer_bytes: int | None
    asked: frozenset[int]  # sizes the program says it asked for (notes.asked's integer values)
    shown: tuple[tuple[str, str], ...]  # every note, sorted by name, its value as text

    @classmethod
    def from_json(cls, n: Any) -> "ProgramNotes":
        n = _object(n)
        asked = n.get("asked")
        return cls(
            main_pid=_int(n.get("main_pid")),
            batch_bytes=_int(n.get("batch_bytes")),
            needed_bytes=_int(n.get("needed_bytes")),
            transfer_bytes=_int(n.get("transfer_bytes")),
            asked=frozenset(v for v in _object(asked).values() if _int(v) is not None),
            shown=tuple(sorted((str(k), str(v)) for k, v in n.items())),
        )


@dataclass(frozen=True)
class TraceFile:
    path: str
    command: tuple[str, ...]
    wall_ms: float
    root_pid: int | None
    status: ProgramStatus
    tracing: Tracing
    calls: tuple[Call, ...]
    pinned: Pinned
    samples: tuple[Sample, ...]  # empty without NVML
    cost_at_peak: CostAtPeak
    notes: ProgramNotes
    environment: Environment  # the environment record the tracer wrote (as a results file's)

    @property
    def key(self) -> StoreKey:
        return self.environment.key

    @classmethod
    def from_json(cls, path: str, doc: Any) -> "TraceFile":
        """A trace document already checked against the schema (load_trace), read into values."""
        doc = _object(doc)
        status, tracing, cap = _object(doc.get("status")), _object(doc.get("tracing")), _object(doc.get("cost_at_peak"))
        return cls(
            path=path,
            command=tuple(str(a) for a in _list(doc.get("command"))),
            wall_ms=_number(doc.get("wall_ms")) or 0.0,
            root_pid=_int(doc.get("root_pid")),
            status=ProgramStatus(
                kind=_text(status.get("kind")),
                exit_code=_int(status.get("exit_code")),
                message=_text(status.get("message")),
            ),
            tracing=Tracing(
                state=_text(tracing.get("state")),
                message=_text(tracing.get("message")),
                pids=tuple(
                    p for p in (_int(_object(x).get("pid")) for x in _list(tracing.get("processes"))) if p is not None
                ),
            ),
            calls=tuple(Call.from_json(c) for c in _list(doc.get("calls"))),
            pinned=Pinned.from_json(doc.get("pinned")),
            samples=tuple(Sample.from_json(s) for s in _list(_object(doc.get("device")).get("samples"))),
            cost_at_peak=CostAtPeak(
                baseline_t_ms=_number(cap.get("baseline_t_ms")),
                baseline_before_context=cap.get("baseline_before_context") is True,
                devices=tuple(PeakDevice.from_json(d) for d in _list(cap.get("devices"))),
            ),
            notes=ProgramNotes.from_json(doc.get("notes")),
            environment=Environment.from_json(doc.get("environment")),
        )


def load_trace(path: str | Path) -> TraceFile:
    """Reads and validates a trace as results files are (readers/results.py): bounded (TRACE_LIMIT), strict
    JSON, then the trace schema; BadInputError "FILE: FIELD PATH: message" on any problem."""
    doc = read_versioned_document(
        path, TRACE_LIMIT, TRACE_SCHEMA, TRACE_VERSIONS, TRACE_VERSIONS, "trace", schema_of("trace")
    )
    return TraceFile.from_json(str(path), doc)
