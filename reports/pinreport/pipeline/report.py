"""The report pipeline: one results file and its store in, one Report value out.

Every command that judges a results file (`compare`, `summary`, `html`) calls run_pipeline()
once; what it computes (analysis/, claims/, answer.py) it computes here and nowhere else, and the
outputs (formats/: console, JUnit, Markdown; render/: HTML) only read the Report. As
google/benchmark's reporters read one `Run`:

    load (result/) -> store (store/) -> run_pipeline -> Report -> formats/, render/

The verdicts (compare) are computed at once: every command needs them and its exit code. The
rest is computed the first time an output asks for it, once (functools.cached_property), so
`compare` pays for no fit and no claim: the page's cost fits, the brief's claims, the answer of
the first screen, the store's nights for the history charts and the benchmark rows.

Two pairs look alike and differ on purpose, as they always have: the page's fits take every
run (the rule's charts, the reserve table), the answer's take only the runs no other process
disturbed (answer.py); the page's claims see the `--bench` rows, the answer's claims do not (the
answer is the same with or without benchmark files), so with no benchmark file they are one.
"""

from dataclasses import dataclass
from functools import cached_property

from pinreport.analysis.compare import HISTORY, PREVIOUS, Baseline, CompareOptions, CompareReport, compare
from pinreport.analysis.fit import CostFit, FitKey, fit_all
from pinreport.analysis.history import Night, latest_per_release, nights
from pinreport.claims.claim import ClaimRow
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import brief_rows, further_rows
from pinreport.pipeline.answer import Answer, build_answer
from pinreport.readers.bench_rows import BenchRows, read_bench
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.results import ResultsFile
from pinreport.readers.store_key import StoreKey
from pinreport.store.files import no_cyclic_gc
from pinreport.store.reading import StoreContents


@dataclass(frozen=True)
class Report:
    """What pinreport concludes about one results file: read by every output, changed by none."""

    current: ResultsFile
    store: StoreContents
    compared: CompareReport  # the verdicts, the rule, the expectations, what went wrong
    stored: bool  # a store was given (`summary` without --store: nothing to compare with)
    bench_paths: tuple[str, ...] = ()
    budget: BudgetDocument | None = None

    @property
    def key(self) -> StoreKey:
        """Where the current file is filed: its machine, GPU and driver release."""
        return self.current.environment.key

    @property
    def exit_code(self) -> int:
        return self.compared.exit_code()

    @property
    def baseline(self) -> Baseline | None:
        """The baseline the page describes: the previous release's, else the history's."""
        baseline = self.compared.baselines.get(PREVIOUS)
        if baseline is None or not baseline.found:
            baseline = self.compared.baselines.get(HISTORY)
        return baseline

    @cached_property
    def bench(self) -> BenchRows:
        return read_bench(list(self.bench_paths))

    @cached_property
    def fits(self) -> dict[FitKey, CostFit]:
        """The cost fits of every run of the current file (the rule's charts, the reserve table)."""
        return fit_all([(self.key, self.current.runs)])

    @cached_property
    def _claim_data(self) -> ClaimData:
        return ClaimData(self.current, tuple(self.compared.rule), self.bench)

    @cached_property
    def claims(self) -> tuple[ClaimRow, ...]:
        """The brief's claims (claims/register.py rows)."""
        return tuple(brief_rows(self._claim_data))

    @cached_property
    def further_claims(self) -> tuple[ClaimRow, ...]:
        """The claims beyond the brief."""
        return tuple(further_rows(self._claim_data))

    @cached_property
    def answer(self) -> Answer:
        """The answer of the first screen (answer.py); its claims without the benchmark rows."""
        if self.bench == BenchRows():
            claims = self.claims
        else:
            claims = tuple(brief_rows(ClaimData(self.current, tuple(self.compared.rule), BenchRows())))
        return build_answer(self.current, self.compared, self.stored, claims, budget=self.budget)

    @cached_property
    def nights(self) -> list[Night]:
        """The store's nights of the current file's group, oldest first, then the current file."""
        return nights(self.current, self.store)

    @cached_property
    def per_release(self) -> list[Night]:
        """The latest night of each driver release."""
        return latest_per_release(self.nights, self.current)


def run_pipeline(
    current: ResultsFile,
    store: StoreContents,
    bench_paths: list[str] | tuple[str, ...] | None = None,
    options: CompareOptions | None = None,
    budget: BudgetDocument | None = None,
    stored: bool = True,
) -> Report:
    """The one Report of `current` against `store` (module docstring)."""
    # The comparison reads the typed values of every night's runs it judges (about 10^5 small
    # objects for a release of nights, no cycle among them): the cycle collector's passes over
    # them cost more than the comparison itself, as they did over the parse (no_cyclic_gc).
    with no_cyclic_gc():
        compared = compare(current, store, options)
    return Report(
        current=current,
        store=store,
        compared=compared,
        stored=stored,
        bench_paths=tuple(bench_paths or ()),
        budget=budget,
    )
