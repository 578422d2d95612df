"""History aggregation: the store's nights of the current file's group, oldest first, and the
latest night per driver release, for the history and cost charts (render/charts/)."""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pinreport.analysis.rule import RULE_KINDS, HeldCost, held_costs
from pinreport.base.versions import is_release, release_key
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Run
from pinreport.store.files import REAL
from pinreport.store.reading import StoreContents


@dataclass(frozen=True)
class Night:
    label: str  # started_at date
    release: str
    results: ResultsFile  # a stored night: its summary (the history index's)
    replayed: bool

    @property
    def runs(self) -> tuple[Run, ...]:
        """The night's runs, read once (ResultsFile.runs)."""
        return self.results.runs

    @property
    def release_name(self) -> str:
        """The release as a chart's legend names it: "(REPLAYED)" when it is not a measurement."""
        return self.release + (" (REPLAYED)" if self.replayed else "")


def _when(started_at: object) -> str:
    """ "2026-11-30T02:04:23Z" -> "2026-11-30 02:04" (nightly runs share dates in tests)."""
    return started_at[:16].replace("T", " ") if isinstance(started_at, str) and started_at else "?"


def nights(current: ResultsFile, store: StoreContents) -> list[Night]:
    """The store's real files of the current file's group, oldest first, then the current file
    (unless the store holds it already)."""
    key = current.environment.key
    me = current.measurement_id
    out = []
    seen_current = False
    for e in store.history:
        if e.namespace != REAL or e.key.group != key.group:
            continue
        seen_current = seen_current or e.results.measurement_id == me
        out.append(Night(_when(e.started_at), e.key.release, e.results, False))
    if not seen_current:
        out.append(
            Night(_when(current.started_at), current.environment.release or "unknown", current, current.replayed)
        )
    return out


def latest_per_release(all_nights: list[Night], current: ResultsFile) -> list[Night]:
    """One document per release (its latest night); the current file stands for its own."""
    by: dict[str, Night] = {}
    for n in all_nights:
        by[n.release] = n
    cur_rel = current.environment.release or "unknown"
    by[cur_rel] = Night(cur_rel, cur_rel, current, current.replayed)
    return sorted(by.values(), key=lambda n: (0, release_key(n.release)) if is_release(n.release) else (1, n.release))


def rule_kind_groups(runs: Iterable[Run]) -> dict[tuple[str, str], list[tuple[Run, dict[str, HeldCost]]]]:
    """Ok rule-kind runs with held costs per (scenario, api), each with its held costs (worked
    out once: the charts read them of every night); capacity runs have none: their rule result
    is capacity.loss."""
    out: dict[tuple[str, str], list[tuple[Run, dict[str, HeldCost]]]] = defaultdict(list)
    for run in runs:
        if run.status == "ok" and run.plan.kind in RULE_KINDS:
            costs = held_costs(run)
            if costs:
                out[(run.plan.scenario, run.plan.api or "")].append((run, costs))
    return out
