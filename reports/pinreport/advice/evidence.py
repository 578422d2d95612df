"""The measured numbers an option rests on, each with its source (file, row or run, machine and
driver), or a Missing that says what is not there for this machine and the command that measures
it. Nothing here estimates: a number is a benchmark median or a stored run's median, read as
written, at the nearest measured size.

Machine match: evidence counts for a trace only when it was measured on the same GPU model and
driver release (the store already files by both; benchmark files and budget documents carry them
in their context or environment)."""

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pinreport.base.units import format_bytes
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.environment import Environment
from pinreport.readers.gbench import BenchFile, NotBenchmarkJson, load_bench
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Run

# What to run to get each piece of evidence (benchmarks/README.md, docs/store.md, docs/budget.md).
# The benchmark programs come with a build of pinbench's source with nvcc, not with a package:
# named by program, with the page that says where they come from (docs/advise.md).
RUN_TRANSFER = (
    "transfer_bench --benchmark_out=transfer_bench.json --benchmark_out_format=json on this machine"
    " (a benchmark program of a pinbench source build: docs/advise.md), then --bench transfer_bench.json"
)
RUN_STAGING = (
    "staging_bench --benchmark_out=staging_bench.json --benchmark_out_format=json on this machine"
    " (a benchmark program of a pinbench source build: docs/advise.md), then --bench staging_bench.json"
)
RUN_STORE = "pinbench run nightly --store STORE on this machine, then --store STORE"
RUN_BUDGET = "pinbench budget -o budget.json on this machine, then --budget budget.json"


@dataclass(frozen=True)
class Machine:
    gpu: str
    release: str

    @staticmethod
    def from_environment(env: Environment) -> "Machine":
        """A results, trace or budget environment: the first device's name, the driver."""
        return Machine(env.gpu or "unknown GPU", env.release or "unknown")

    @staticmethod
    def from_bench(bench: BenchFile) -> "Machine":
        return Machine(bench.gpu_name or "unknown GPU", bench.driver_release or "unknown")

    def words(self) -> str:
        return f"{self.gpu}, driver {self.release}"


@dataclass(frozen=True)
class Source:
    """Where a number came from."""

    what: str  # "transfer benchmark", "staging benchmark", "register-window run", "store fit", "trace"
    path: str
    item: str  # the row, run or fit
    machine: str
    replayed: bool = False

    def words(self) -> str:
        tag = ", REPLAYED" if self.replayed else ""
        return f"{self.what} {self.path}: {self.item} ({self.machine}{tag})"

    def as_json(self) -> dict[str, str | bool]:
        return {
            "what": self.what,
            "path": self.path,
            "item": self.item,
            "machine": self.machine,
            "replayed": self.replayed,
        }


@dataclass(frozen=True)
class Missing:
    """Evidence that is not there for this machine: what, why, and the command that measures it."""

    what: str
    why: str
    run: str

    def words(self) -> str:
        return f"{self.what} missing: {self.why}; to measure it: {self.run}"

    def as_json(self) -> dict[str, str]:
        return {"what": self.what, "why": self.why, "run": self.run}


@dataclass(frozen=True)
class SpeedPoint:
    """A copy speed relative to pinned copies (1.0: as fast) at a measured transfer size."""

    ratio: float
    size: int  # the measured transfer size the ratio is read at
    detail: str
    source: Source


@dataclass(frozen=True)
class Benches:
    files: tuple[BenchFile, ...] = ()
    problems: tuple[str, ...] = ()


def load_benches(paths: Iterable[str]) -> Benches:
    """Google Benchmark files (gbench.load_bench); one that is not one is a problem, named."""
    files, problems = [], []
    for p in paths:
        try:
            files.append(load_bench(p))
        except NotBenchmarkJson as e:
            problems.append(str(e))
    return Benches(tuple(files), tuple(problems))


def _nearest(sizes: Iterable[float], size: float) -> float | None:
    """The measured size nearest `size` on a log scale (a copy's speed moves with its order of
    magnitude); the smaller of two at the same distance."""
    sizes = sorted({s for s in sizes if s > 0})
    if not sizes:
        return None
    target = math.log(max(size, 1.0))
    return min(sizes, key=lambda s: (abs(math.log(s) - target), s))


def _for_machine(benches: Benches, machine: Machine, prefix: str) -> tuple[list[BenchFile], list[str]]:
    """The files of this machine holding rows of `prefix`, and the machines of the others."""
    ours, others = [], []
    for b in benches.files:
        if not any(r.parts[0] == prefix and len(r.parts) > 1 for r in b.rows):
            continue
        m = Machine.from_bench(b)
        (ours if m == machine else others).append(b if m == machine else m.words())
    return ours, others


def _not_here(what: str, prefix: str, others: list[str], run: str) -> Missing:
    why = f"no {prefix} rows of this machine were given"
    if others:
        why = f"the {prefix} rows given are of {', '.join(sorted(set(others)))}, not this machine"
    return Missing(what, why, run)


def _source(what: str, bench: BenchFile, item: str) -> Source:
    return Source(what, str(bench.path), item, Machine.from_bench(bench).words(), bench.replayed)


def pageable_speed(benches: Benches, machine: Machine, size: int, op: str = "h2d") -> SpeedPoint | Missing:
    """Pageable against pinned copies at the transfer benchmark's size nearest `size`, one file."""
    ours, others = _for_machine(benches, machine, "transfer")
    for b in ours:
        of = {r.parts[1:]: r for r in b.rows if len(r.parts) == 4 and r.parts[0] == "transfer" and r.gbps is not None}
        rows = {size: r for (kind, o, size), r in of.items() if kind == "pinned" and o == op}
        pageable = {size: r for (kind, o, size), r in of.items() if kind == "pageable" and o == op}
        both = {k: rows[k].bytes for k in rows.keys() & pageable.keys()}
        at = _nearest(both.values(), size)
        if at is None:
            continue
        label = next(k for k, v in both.items() if v == at)
        pinned_gbps, pageable_gbps = rows[label].gbps, pageable[label].gbps
        return SpeedPoint(
            pageable_gbps / pinned_gbps,
            int(at),
            f"{op} {label}: pageable {pageable_gbps:.1f} GB/s, pinned {pinned_gbps:.1f} GB/s",
            _source("transfer benchmark", b, f"transfer/pageable/{op}/{label} against transfer/pinned/{op}/{label}"),
        )
    return _not_here("pageable copy speed", "transfer", others, RUN_TRANSFER)


def ring_speed(
    benches: Benches, machine: Machine, size: int, ring_bytes: int, op: str = "h2d"
) -> tuple[SpeedPoint, int] | Missing:
    """A staging ring against pinned copies from the staging benchmark: at the transfer size
    nearest `size`, the ring (slots x slot bytes) nearest `ring_bytes`, its fastest copy-thread
    count; against the same file's staging_baseline/pinned row of that size. Also the measured
    ring's bytes (what it pins)."""
    ours, others = _for_machine(benches, machine, "staging")
    for b in ours:
        rings = [
            r
            for r in b.rows
            if len(r.parts) == 6 and r.parts[0] == "staging" and r.parts[1] == op and r.gbps is not None
        ]
        baselines = {
            r.parts[3]: r
            for r in b.rows
            if len(r.parts) == 4 and r.parts[:3] == ("staging_baseline", "pinned", op) and r.gbps is not None
        }
        rings = [r for r in rings if r.parts[2] in baselines]
        at = _nearest((r.bytes for r in rings), size)
        if at is None:
            continue
        rings = [r for r in rings if r.bytes == at]
        ring_at = _nearest((r.pinned_bytes for r in rings), ring_bytes)
        if ring_at is None:
            continue
        rings = [r for r in rings if r.pinned_bytes == ring_at]
        row = max(rings, key=lambda r: (r.gbps, r.name))
        parts, base = row.parts, baselines[row.parts[2]]
        detail = (
            f"{op} {parts[2]} through a ring of {parts[3]} x {parts[4]} ({format_bytes(ring_at)}), {parts[5]}:"
            f" {row.gbps:.1f} GB/s, pinned {base.gbps:.1f} GB/s"
        )
        point = SpeedPoint(
            row.gbps / base.gbps,
            int(at),
            detail,
            _source("staging benchmark", b, f"{row.name} against staging_baseline/pinned/{op}/{parts[2]}"),
        )
        return point, int(ring_at)
    return _not_here("staging-ring copy speed", "staging", others, RUN_STAGING)


@dataclass(frozen=True)
class StoredRun:
    """A results file the store gave, with its path; replayed also where the store's replay
    namespace held it."""

    path: str
    results: ResultsFile
    in_replay_namespace: bool = False

    @property
    def replayed(self) -> bool:
        return self.in_replay_namespace or self.results.replayed

    @property
    def environment(self) -> Environment:
        return self.results.environment

    @property
    def runs(self) -> tuple[Run, ...]:
        return self.results.runs


def _median(run: Run, metric: str) -> float | None:
    m = run.metrics.get(metric)
    return m.median if m is not None else None


def register_window_speed(runs: Iterable[StoredRun], machine: Machine, size: int) -> SpeedPoint | Missing:
    """Registering around each transfer against registering once (the register_window kind,
    docs/kinds.md): kept / windowed time per transfer = 1 / register_window.time_ratio, at the
    stored run's size nearest `size`, of the newest file that has one."""
    found = []
    for r in runs:
        if Machine.from_environment(r.environment) != machine:
            continue
        for run in r.runs:
            ratio = _median(run, "register_window.time_ratio")
            if run.plan.kind == "register_window" and run.status == "ok" and ratio and ratio > 0:
                found.append((r, run, ratio, float(run.plan.size or 0) * float(run.plan.count or 1)))
    at = _nearest((f[3] for f in found), size)
    if at is None:
        return Missing(
            "register-window copy speed",
            "the store holds no register_window run of this machine and driver",
            RUN_STORE + " (nightly.yaml has the register_window runs)",
        )
    r, run, ratio, _ = max((f for f in found if f[3] == at), key=lambda f: f[0].results.started_at)
    kept, windowed = _median(run, "time.kept_per_transfer_ms"), _median(run, "time.windowed_per_transfer_ms")
    times = f": {windowed:.2f} ms per transfer windowed, {kept:.2f} ms kept" if kept and windowed else ""
    return SpeedPoint(
        1.0 / ratio,
        int(at),
        f"register, copy, unregister per transfer of {format_bytes(at)}{times} (time ratio {ratio:.2f})",
        Source("register-window run", r.path, run.plan.id, machine.words(), r.replayed),
    )


def budget_for(budget: BudgetDocument | None, machine: Machine) -> tuple[BudgetDocument, Source] | Missing:
    """The pin budget of this machine, or what is missing."""
    if budget is None:
        return Missing("pin budget", "no budget document was given", RUN_BUDGET)
    theirs = Machine.from_environment(budget.environment)
    if theirs != machine:
        return Missing("pin budget", f"{budget.path} is of {theirs.words()}, not this machine", RUN_BUDGET)
    if budget.safe_budget is None:
        return Missing("pin budget", f"{budget.path} has no safe budget (no family answered)", RUN_BUDGET)
    return budget, Source("pin budget", budget.path, "safe_budget", theirs.words())
