"""The data at hand for the claims: one results file, its CompareReport and the benchmark
rows, with the platform it was measured on and the look-ups several claims share."""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from pinreport.analysis import kind_results
from pinreport.analysis.disturbance import disturbed_keys, disturbed_metrics
from pinreport.analysis.rule import (
    CONTROL_API,
    RULE_KINDS,
    RuleResult,
    RuleVerdict,
    held_costs,
    is_judged_key,
    pinned_bytes,
)
from pinreport.base.probe_keys import CAPACITY_LOSS
from pinreport.readers.bench_rows import BenchRows
from pinreport.readers.environment import WSL2_MODEL, model_family
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Run

WINDOWS_MODELS = {"WDDM", "TCC", "MCDM"}


@dataclass(frozen=True)
class Observation:
    """A held cost on a dedicated key of an ok rule-kind run."""

    run_id: str
    key: str
    cost: float  # median held cost, bytes
    pinned: int  # pinned bytes of the run
    granule: float


def ok_runs(runs: Iterable[Run], kind: str, pinned_only: bool = True) -> list[Run]:
    """The ok runs of a kind that no other process disturbed (a run with a disturbed probe
    gives no evidence for a claim: disturbance.py)."""
    return [
        r
        for r in kind_results.runs_of(runs, kind)
        if r.status == "ok" and not (pinned_only and r.plan.api == CONTROL_API) and not disturbed_metrics(r)
    ]


def observations(current: ResultsFile, pageable: bool = False) -> list[Observation]:
    """The held costs on dedicated keys of ok rule-kind runs; pinned runs, or the pageable
    control with pageable=True. Disturbed keys are never judged (disturbance.py)."""
    out = []
    for run in current.runs:
        if run.status != "ok" or run.plan.kind not in RULE_KINDS:
            continue
        pinned = pinned_bytes(run.plan)
        if (run.plan.api == CONTROL_API) != pageable or pinned is None:
            continue
        disturbed = disturbed_keys(run)
        for key, cost in sorted(held_costs(run).items()):
            if is_judged_key(key) and key not in disturbed:
                out.append(Observation(run.id, key, cost.median, pinned, float(cost.granule or 0)))
    return out


@dataclass
class ClaimData:
    current: ResultsFile  # the current results file
    rule: tuple[RuleResult, ...]  # the reservation rule's results on it (compare's)
    bench: BenchRows

    @cached_property
    def models(self) -> set[str]:
        return set(self.current.environment.driver_models)

    @property
    def windows(self) -> bool:
        """A Windows driver measured these: natively, or under WSL2 (WDDM through /dev/dxg)."""
        return bool({model_family(m) for m in self.models} & WINDOWS_MODELS)

    @property
    def wddm(self) -> bool:
        return self.models in ({"WDDM"}, {WSL2_MODEL})

    @property
    def via(self) -> str:
        """What every claim's evidence starts with: how the driver was reached when not natively."""
        return "via WSL2 (the Windows WDDM driver through /dev/dxg): " if self.models == {WSL2_MODEL} else ""

    @property
    def platform(self) -> str:
        return ", ".join(sorted(self.models)) or "unknown"

    @property
    def not_windows(self) -> str:
        return f"a Windows claim; this data is {self.platform}"

    @cached_property
    def observations(self) -> list[Observation]:
        return observations(self.current)

    @cached_property
    def capacity_ratios(self) -> list[RuleResult]:
        """The rule's capacity.loss results that were judged (rule.capacity_result)."""
        return [r for r in self.rule if r.key == CAPACITY_LOSS and r.verdict != RuleVerdict.NOT_JUDGED]

    def ok_runs(self, kind: str) -> list[Run]:
        return ok_runs(self.current.runs, kind)
