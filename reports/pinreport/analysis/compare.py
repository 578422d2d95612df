"""The morning verdict: every metric of the current results against the store.

Each metric of each ok run is compared twice:
  previous  the pooled samples of every stored run with the same id under the highest release
            older than the current one, for the same platform, driver model, GPU and GPU count
  history   the same, under the current release itself (earlier nights; the current file is
            left out when it is stored already)
on the per-repeat samples every results file carries (results schema 4; older files are
upgraded by the harness: `pinbench results upgrade`), the generic metrics and the scenario kinds' own alike
(docs/kinds.md): stats.compare_bytes for bytes, stats.compare_times_nights for ms and ratio (the
night rule, judged against the spread between the stored nights, with the time floor). A metric
of an older file that the upgrade could not rebuild per repeat is AMBIGUOUS, labelled "summary
only", never judged on its summary. Count metrics (capacity.pin_failed,
sweep.steps.*: tallies and shapes, not quantities) are shown in the report, never compared.
Bigger is worse except for the metrics in BETTER_WHEN_HIGHER. Each comparison also lists what
else changed between the environments, so a verdict is never blamed on the driver alone.

Baselines come from the store's real namespace only: replayed data is never a baseline.
A replayed current file may be compared (to test the pipeline) and is labelled REPLAYED.

Disturbed measurements (disturbance.py) are never judged: a run with status "disturbed" and
every metric of a disturbed probe get NOT JUDGED with the evidence, and the exit code is 3;
disturbed baseline samples are left out of every baseline.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from pinreport.analysis import disturbance
from pinreport.analysis.disturbance import Disturbance
from pinreport.analysis.environment_changes import EnvironmentChange, environment_changes
from pinreport.analysis.expect import ClaimResult, check_expectations
from pinreport.analysis.rule import Band, RuleResult, RuleVerdict, rule_results
from pinreport.analysis.stats import (
    DEFAULT_ALPHA,
    DEFAULT_FLOOR,
    DEFAULT_MIN_NIGHTS,
    DEFAULT_MIN_REPEATS,
    DEFAULT_TIME_FLOOR,
    Comparison,
    Verdict,
    compare_bytes,
    compare_times_nights,
)
from pinreport.base import catalog
from pinreport.base.errors import BadInputError
from pinreport.base.exit_codes import verdict_exit
from pinreport.base.probe_keys import split_metric
from pinreport.base.versions import is_release, previous_release
from pinreport.readers.results import ResultsFile, ScenarioRecord
from pinreport.readers.runs import Plan, Run, shown
from pinreport.readers.store_key import StoreKey
from pinreport.store.files import REAL, StoreEntry
from pinreport.store.reading import StoreContents

PREVIOUS = "previous"
HISTORY = "history"

# Which way is worse comes from the harness's metric catalog (catalog.py); bandwidths are the
# benchmark programs' (Google Benchmark JSON, not a results metric), better when higher.
BETTER_WHEN_HIGHER = ("bandwidth.",)
# Units compared at all; "count" metrics are shown, not compared (module docstring).
COMPARED_UNITS = ("bytes", "ms", "ratio")

# Kinds whose block searches quantise their byte metrics by a size parameter (their files'
# quantum_param: capacity's and fragmentation's resolution).
_QUANTISED_KINDS = {k.name: k for k in catalog.kind_entries() if k.quantum_param}
# Kinds whose probe metrics are the generic cost.* / residual.* (after_alloc, after_first_use).
_ALLOCATION_COST_KINDS = frozenset(k.name for k in catalog.kind_entries() if k.allocation_costs)


@dataclass(frozen=True)
class CompareOptions:
    alpha: float = DEFAULT_ALPHA
    floor: float = DEFAULT_FLOOR
    time_floor: float = DEFAULT_TIME_FLOOR  # times: the floor is max(floor, time_floor)
    min_repeats: int = DEFAULT_MIN_REPEATS
    min_nights: int = DEFAULT_MIN_NIGHTS  # time-like metrics: stored nights needed (stats.py, night rule)
    band: Band = field(default_factory=Band)
    scenario_floors: Mapping[str, float] = field(default_factory=dict)  # --scenario-floor NAME=F

    def floor_for(self, scenario: ScenarioRecord | None, name: str) -> float:
        """The relative floor of one scenario: the command line's, else the scenario record's
        options.relative_floor, else the default."""
        if name in self.scenario_floors:
            return self.scenario_floors[name]
        if scenario is not None and scenario.relative_floor is not None:
            return scenario.relative_floor
        return self.floor


@dataclass(frozen=True)
class Baseline:
    kind: str  # PREVIOUS or HISTORY
    release: str | None
    entries: tuple[StoreEntry, ...]
    changes: tuple[EnvironmentChange, ...]

    @property
    def found(self) -> bool:
        return bool(self.entries)

    def describe(self) -> str:
        if self.kind == PREVIOUS:
            return f"previous release {self.release}" if self.release else "previous release (none stored)"
        return f"history of {self.release}"


@dataclass(frozen=True)
class MetricVerdict:
    run_id: str
    scenario: str
    metric: str
    unit: str
    kind: str  # PREVIOUS or HISTORY
    comparison: Comparison
    current_median: float  # from the current run's metric summary

    @property
    def verdict(self) -> Verdict:
        return self.comparison.verdict


@dataclass
class CompareReport:
    current_path: str
    replayed: bool
    key: StoreKey
    options: CompareOptions
    baselines: dict[str, Baseline] = field(default_factory=dict)
    verdicts: list[MetricVerdict] = field(default_factory=list)
    rule: list[RuleResult] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    infrastructure: list[str] = field(default_factory=list)
    bad_input: list[BadInputError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    disturbed: list[Disturbance] = field(default_factory=list)  # runs of the current file not (fully) judged
    # (stored file, run id) -> the disturbed metrics of that baseline run (computed once)
    _baseline_disturbed: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    # _ok_baseline_runs per (baseline kind, run id): every metric of a run asks for the same runs.
    _ok_runs: dict[tuple[str, str], "OkBaselineRuns"] = field(default_factory=dict, repr=False)

    @property
    def regressions(self) -> list[MetricVerdict]:
        return [v for v in self.verdicts if v.verdict == Verdict.REGRESSION]

    @property
    def violations(self) -> list[RuleResult]:
        return [r for r in self.rule if r.verdict == RuleVerdict.VIOLATION]

    def disturbed_summary(self) -> str | None:
        """The one line the nightly summary repeats: "N runs disturbed: no verdict on them"."""
        if not self.disturbed:
            return None
        n = len(self.disturbed)
        whole = sum(d.whole_run for d in self.disturbed)
        return (
            f"{n} run{'s' if n != 1 else ''} disturbed: no verdict on them "
            f"({whole} ended disturbed, {n - whole} with disturbed probes; another process moved device memory)"
        )

    def exit_code(self) -> int:
        """The highest that applies: 3 infrastructure or a disturbance that stopped a verdict
        (then no verdict can be trusted), 2 bad input, 1 a regression or a VIOLATION, else 0."""
        return verdict_exit(
            infrastructure=bool(self.infrastructure or self.disturbed),
            bad_input=bool(self.bad_input),
            regressed=bool(self.regressions or self.violations),
        )


def higher_is_worse(metric: str) -> bool:
    spec = catalog.spec_of(metric)
    if spec is not None:
        return spec.direction != "higher_is_better"
    return not metric.startswith(BETTER_WHEN_HIGHER)


def compared(unit: str, metric: str = "") -> bool:
    """Counts are shown, never compared; so is what the catalog says is neither better nor worse
    (how a run was set up: the free VRAM a max_pinnable search began with, whether its cap bound it)."""
    spec = catalog.spec_of(metric) if metric else None
    return unit in COMPARED_UNITS and (spec is None or spec.direction != "neither")


def bisection_resolution(plan: Plan, metric: str = "") -> int | None:
    """The bisection step of a capacity or fragmentation run: its byte metrics' quantisation
    (capacity.loss_per_gib: scaled to per GiB pinned)."""
    kind = _QUANTISED_KINDS.get(plan.kind or "")
    if kind is None:
        return None
    value = plan.params.get(kind.quantum_param, kind.param(kind.quantum_param).fallback)
    if value.__class__ is not int or value <= 0:
        return None
    if metric == "capacity.loss_per_gib" and plan.size:
        return max(1, round(value * 1024**3 / plan.size))
    return value


def _baselines(current: ResultsFile, key: StoreKey, store: StoreContents) -> dict[str, Baseline]:
    me = current.measurement_id
    same_group = [
        e for e in store.entries if e.namespace == REAL and e.key.group == key.group and e.results.measurement_id != me
    ]
    release = current.environment.release
    previous = store.previous_release
    if previous is None and release and is_release(release):
        previous = previous_release(release, {e.key.release for e in same_group})
    out = {}
    for kind, rel in ((PREVIOUS, previous), (HISTORY, release)):
        entries = tuple(e for e in same_group if rel is not None and e.key.release == rel)
        changes = tuple(environment_changes(current, [e.results for e in entries])) if entries else ()
        out[kind] = Baseline(kind, rel, entries, changes)
    return out


# What a plan measures, besides its params: a stored run of the same id that differs in one of
# these (or in a param) measured something else (scenarios/nightly.yaml: a changed size or param
# starts a new history). Repeats, timeouts and driver models do not change what is measured.
_PLAN_MEASURES = ("kind", "api", "size_bytes", "count", "gpus")


def _measures(plan: Plan) -> tuple[tuple[str, str | int | None], ...]:
    """_PLAN_MEASURES of a plan, by the results format's names (None where it records none)."""
    return (
        ("kind", plan.kind),
        ("api", plan.api),
        ("size_bytes", plan.size),
        ("count", plan.count),
        ("gpus", plan.gpus),
    )


def plan_change(current: Plan, stored: Plan) -> str | None:
    """How a stored plan of one run id differs from the current one, on what both record (a key
    one of them lacks is an older or newer writer's, not a change); None when they measure the
    same."""
    changes = [
        f"{k} {s} -> {c}"
        for (k, c), (_, s) in zip(_measures(current), _measures(stored), strict=True)
        if c is not None and s is not None and c != s
    ]
    cp, sp = current.params, stored.params
    changes += [f"params.{k} {shown(sp[k])} -> {shown(cp[k])}" for k in sorted(cp.keys() & sp.keys()) if cp[k] != sp[k]]
    return ", ".join(changes) or None


@dataclass(frozen=True)
class OkBaselineRuns:
    """The stored runs of one id a baseline may use: ok, and of the current run's plan."""

    runs: list[tuple[StoreEntry, Run]]
    other_plan: str | None  # how the left-out runs' plan differed (the first seen)


def _ok_baseline_runs(baseline: Baseline, run: Run) -> OkBaselineRuns:
    """(stored entry, its run) for every stored file in which this run ended ok with the same plan."""
    out, other_plan = [], None
    for entry in baseline.entries:
        brun = entry.results.run(run.id)
        if brun is None or brun.status != "ok":
            continue
        change = plan_change(run.plan, brun.plan)
        if change is None:
            out.append((entry, brun))
        elif other_plan is None:
            other_plan = change
    return OkBaselineRuns(out, other_plan)


def _baseline_disturbed(report: CompareReport, entry: StoreEntry, brun: Run) -> frozenset[str]:
    """The metrics of a stored run that are disturbed (left out of every baseline)."""
    key = (entry.path, brun.id)
    if key not in report._baseline_disturbed:
        report._baseline_disturbed[key] = frozenset(disturbance.disturbed_metrics(brun))
    return report._baseline_disturbed[key]


# What a metric of an older file that the harness could not rebuild per repeat gets (its upgrade
# wrote samples: null): its summary is shown, never judged, and the verdict says why.
SUMMARY_ONLY = (
    "summary only: no per-repeat samples in {what} "
    "(an older results file; pinbench results upgrade could not rebuild them)"
)


def _own_metric(metric: str) -> bool:
    """A kind's own metric (capacity.*, fragmentation.*), not a probe key's cost or residual: a
    byte metric of it is quantised by its run's bisection step too (bisection_resolution)."""
    return split_metric(metric) is None


def _compare_metric(
    run: Run, metric: str, baseline: Baseline, floor: float, options: CompareOptions, report: CompareReport
) -> Comparison:
    """One metric against one baseline, on the per-repeat samples the files carry: the byte
    rule for bytes, the night rule for ms and ratio (module docstring)."""
    info = run.metrics[metric]
    unit = info.unit
    if not baseline.found:
        return Comparison(Verdict.NO_BASELINE, f"no stored results for the {baseline.describe()}")
    if info.samples is None:
        return Comparison(Verdict.AMBIGUOUS, SUMMARY_ONLY.format(what="the current file"))
    current = list(info.samples)
    nights: list[list[float]] = []  # one list per stored file (night), for the night rule
    summary_only = 0
    own = _own_metric(metric)
    steps = [info.granule, bisection_resolution(run.plan, metric) if own else None]
    ok = report._ok_runs.get((baseline.kind, run.id))
    if ok is None:
        ok = report._ok_runs[(baseline.kind, run.id)] = _ok_baseline_runs(baseline, run)
    ok_runs = ok.runs
    for entry, brun in ok_runs:
        m = brun.metrics.get(metric)
        if m is None or m.unit != unit or metric in _baseline_disturbed(report, entry, brun):
            continue
        if m.samples is None:
            summary_only += 1
            continue
        nights.append(list(m.samples))
        steps.extend([m.granule, bisection_resolution(brun.plan, metric) if own else None])
    if not nights:
        if summary_only:
            return Comparison(Verdict.AMBIGUOUS, SUMMARY_ONLY.format(what=f"the {baseline.describe()}"))
        if not ok_runs and ok.other_plan:
            return Comparison(
                Verdict.NO_BASELINE,
                f"the {baseline.describe()} measured this run with another plan ({ok.other_plan}): a new history",
            )
        what = "this metric" if ok_runs else "this run"
        return Comparison(Verdict.NO_BASELINE, f"the {baseline.describe()} has no ok measurement of {what}")
    worse = higher_is_worse(metric)
    if unit == "bytes":
        known = [g for g in steps if isinstance(g, int) and not isinstance(g, bool)]
        return compare_bytes(
            [x for n in nights for x in n],
            current,
            max(known) if known else None,
            floor=floor,
            alpha=options.alpha,
            min_repeats=options.min_repeats,
            higher_is_worse=worse,
        )
    return compare_times_nights(
        nights,
        current,
        alpha=options.alpha,
        floor=max(floor, options.time_floor),
        min_repeats=options.min_repeats,
        min_nights=options.min_nights,
        higher_is_worse=worse,
        unit=unit,
    )


def _missing_probes(run: Run, baselines: dict[str, Baseline]) -> list[str]:
    """Metrics a baseline measured for this run that the current run lacks: a probe went missing."""
    missing: dict[str, str] = {}
    for b in baselines.values():
        for entry in b.entries:
            brun = entry.results.run(run.id)
            if brun is None or brun.status != "ok":
                continue
            for metric in brun.metrics:
                if metric not in run.metrics and split_metric(metric) is not None:
                    missing.setdefault(metric, entry.path)
    return [
        f"run {run.id}: {m} was measured in {p} but is missing now (a probe stopped reporting)"
        for m, p in sorted(missing.items())
    ]


def _infrastructure(current: ResultsFile) -> list[str]:
    out = []
    if not current.complete:
        out.append(f"{current.path}: {_why_incomplete(current)} (complete is false)")
    for control in current.controls.controls:
        if control.verdict == "FAIL":
            error = control.error if control.error is not None else "no reason given"
            out.append(f"control {control.name} FAILED: {error}")
    for run in current.runs:
        status = run.status
        if status in ("failed", "timeout"):
            out.append(f"run {run.id} {status}: {run.reason or 'no reason given'}")
        elif status == "ok" and not _measured_something(run):
            out.append(f"run {run.id}: no probe reported a reading in every repeat (probes missing)")
    return out


def _why_incomplete(current: ResultsFile) -> str:
    """What pinbench wrote about a file that is not complete: stopped by a signal (`interrupted`
    names it, schema 3 on), nothing measured (`controls.skipped`: no CUDA device, every run
    failed with the reason), or neither recorded (an older file, a crash)."""
    if current.interrupted:
        by = f" by {current.interrupted_by}" if current.interrupted_by else ""
        return f"the run was interrupted{by}; pinbench run --resume continues it"
    if current.controls.skipped:
        return f"nothing was measured: {current.controls.skipped}"
    return "the run did not finish (no interruption recorded)"


def _measured_something(run: Run) -> bool:
    """An ok run has a probe metric: cost.* / residual.* for overhead-like kinds; any metric
    but a timing for the other kinds (capacity.*, churn.*, ...). A workers run with 0 workers
    has no per-worker metric by definition (docs/kinds.md)."""
    plan = run.plan
    metrics = run.metrics
    if (plan.kind or "overhead") in _ALLOCATION_COST_KINDS:
        return any(split_metric(m) for m in metrics)
    if plan.kind == "workers" and plan.params.get("workers") == 0:
        return True
    return any(not m.startswith("time.") for m in metrics)


def _count_notes(run: Run) -> list[str]:
    """Count metrics are not compared; one that says something went wrong is noted."""
    pin_failed = run.metrics.get("capacity.pin_failed")
    if pin_failed is not None and pin_failed.high is not None and pin_failed.high > 0:
        return [
            f"run {run.id}: capacity.pin_failed reaches {pin_failed.high:g}: the pin failed in some repeat "
            "(largest_with not measured there)"
        ]
    return []


def compare(current: ResultsFile, store: StoreContents, options: CompareOptions | None = None) -> CompareReport:
    """Compares `current` with the store; never raises for bad store files (they are listed)."""
    options = options or CompareOptions()
    key = current.environment.key
    report = CompareReport(current.path, current.replayed, key, options, bad_input=list(store.problems))
    report.infrastructure.extend(_infrastructure(current))
    if current.environment.release is None:
        report.notes.append(
            "the driver release is unavailable in the current environment: no previous release can be chosen"
        )
    report.baselines = _baselines(current, key, store)
    scenarios = {s.name: s for s in current.scenarios}
    for run in current.runs:
        status = run.status
        if status == "waived":
            report.notes.append(f"run {run.id} waived: {run.reason}")
        # metric -> why, of an ok run: computed once, for its verdicts, its disturbance and the rule
        not_judged = disturbance.disturbed_metrics(run) if status == "ok" else {}
        disturbed = disturbance.of_run(run, not_judged if status == "ok" else None)
        if disturbed is not None:
            report.disturbed.append(disturbed)
        if status not in ("ok", disturbance.DISTURBED):
            continue
        scenario = run.plan.scenario
        floor = options.floor_for(scenarios.get(scenario), scenario)
        if status == "ok":
            report.infrastructure.extend(_missing_probes(run, report.baselines))
            report.notes.extend(_count_notes(run))
        for metric in sorted(run.metrics):
            info = run.metrics[metric]
            if not compared(info.unit, metric):
                continue
            shown = info.median if info.median is not None else float("nan")
            for kind in (PREVIOUS, HISTORY):
                if status != "ok" or metric in not_judged:
                    why = "; ".join(disturbed.evidence) if status != "ok" else not_judged[metric]
                    c = Comparison(Verdict.NOT_JUDGED, f"disturbed: {why}")
                else:
                    c = _compare_metric(run, metric, report.baselines[kind], floor, options, report)
                report.verdicts.append(MetricVerdict(run.id, scenario, metric, info.unit, kind, c, shown))
        if status == "ok":
            report.rule.extend(rule_results(run, options.band, not_judged))
    report.claims = check_expectations(current)
    return report
