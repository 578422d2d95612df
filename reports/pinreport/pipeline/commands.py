"""The reports of the commands that judge other inputs than one results file: `reserve` (the
store's fits), `trace` (a traced program against them, with its advice), `budget-compare` (two
`pinbench budget` documents) and `aa` (a set of nights). As report.py's: each computed at once,
by one function, and only read by the outputs (formats/, render/)."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pinreport.advice.build import Advice
from pinreport.advice.page import AdviceSection, advice_context
from pinreport.analysis import false_alarms, trace
from pinreport.analysis.budget_compare import REGRESSION, BudgetVerdict, compare_budgets
from pinreport.analysis.compare import CompareOptions
from pinreport.analysis.false_alarms import NightResult
from pinreport.analysis.fit import Recommendation, fit_all, recommend
from pinreport.analysis.trace import TraceJudgement
from pinreport.base.exit_codes import EXIT_OK, EXIT_REGRESSION
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.results import ResultsFile
from pinreport.readers.trace import ApiCalls, TraceFile
from pinreport.store.reading import StoreContents


@dataclass(frozen=True)
class ReserveReport:
    """`reserve`: per group and api, the reserve the store's newest fits recommend."""

    recommendations: tuple[Recommendation, ...]
    size: int
    gpus: int
    replayed: bool


def reserve_report(store: StoreContents, size: int, gpus: int, confidence: float, replayed: bool) -> ReserveReport:
    chosen = {e.key.group: e.key.release for e in store.entries}
    fits = fit_all(((e.key, e.results.runs) for e in store.entries), confidence)
    return ReserveReport(tuple(recommend(fits, size, gpus, chosen)), size, gpus, replayed)


@dataclass(frozen=True)
class TraceReport:
    """`trace`: a traced program against the store's fit, with what its outputs show of it."""

    judgement: TraceJudgement
    advice: Advice | None
    advice_section: AdviceSection | None  # the advice's values for the page (advice/page.py)
    rounding: str  # the allocator's rounding against the program's batch bytes ("" where unknown)
    processes: dict[str, int]  # held bytes at the peak by where the pinning happened
    calls: dict[str, ApiCalls]  # by entry point
    sizes: tuple[tuple[int, int], ...]  # (bytes, successful calls asking for exactly that), most first
    device_costs: dict[int, tuple[tuple[float, int], ...]]  # per judged GPU: (t_ms, device cost)
    exit_code: int

    @property
    def trace(self) -> TraceFile:
        return self.judgement.trace


def trace_report(
    t: TraceFile, stored: Iterable[ResultsFile], advice: Advice | None = None, store_given: bool = True
) -> TraceReport:
    """Without a store nothing is judged against a fit: NO_FIT is not a failure then."""
    judgement = trace.judge_trace(t, stored)
    code = trace.exit_code(judgement) if store_given or judgement.verdict != trace.TraceVerdict.NO_FIT else EXIT_OK
    return TraceReport(
        judgement=judgement,
        advice=advice,
        advice_section=advice_context(advice) if advice is not None else None,
        rounding=trace.rounding_note(t),
        processes=trace.pinning_processes(t),
        calls=trace.calls_by_api(t),
        sizes=tuple(trace.asked_sizes(t)),
        device_costs={d.nvml_index: tuple(trace.sample_costs(t, d.nvml_index)) for d in judgement.devices},
        exit_code=code,
    )


@dataclass(frozen=True)
class BudgetReport:
    """`budget-compare`: per API family, the verdict of the newer budget against the older."""

    old: BudgetDocument
    new: BudgetDocument
    verdicts: tuple[BudgetVerdict, ...]

    @property
    def exit_code(self) -> int:
        return EXIT_REGRESSION if any(v.verdict == REGRESSION for v in self.verdicts) else EXIT_OK


def budget_report(old: BudgetDocument, new: BudgetDocument) -> BudgetReport:
    return BudgetReport(old, new, compare_budgets(old, new))


def aa_report(nights: Sequence[ResultsFile], options: CompareOptions) -> tuple[NightResult, ...]:
    """`aa`: every night against the others (false_alarms.py); BadInputError when they are not of
    one machine and release."""
    return tuple(false_alarms.check(nights, options))
