"""The driver table (`pinreport drivers`, docs/drivers.md): every driver release a store holds, one
row per (machine group, release), newest first, built once into a DriverTable that the outputs
(formats/drivers_*.py, render/drivers_page.py) only read.

Per night, once, as the history index reads it (history_index.Derive DERIVE): the answer
`pinreport summary` gives for that night alone (build_answer over the night and no store: its
cost rows with the fit, the rule and the reserves, and the claims), and the night's VRAM cost
metrics as a small results document (cost_document) for the comparison with the next release.
A store of a year of nights is then read through the index, and no night is read twice.

Per release, its newest night stands for it, as the nightly's answer did that night: its cost
per pinned GiB, rule and reserve are what `pinreport summary` printed for it (the same
CostRow). Beside them: how many nights the release holds and their dates; its budget (the newest
that found the driver's limit, else the newest: release_budget);
the claims whose verdict changed since the previous release's newest night; and the verdict
against the previous real release of the group (analysis/driver_table.py): compare.compare of
the newest night's cost metrics (is_cost_metric) against every night of that release, pooled,
as `pinreport compare` judges a night, and budget_compare of the two releases' budgets. Replayed
nights (replay/) are shown only when asked, labelled, and are never a baseline.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, astuple, dataclass, field
from functools import cached_property
from typing import Any

from pinreport.analysis.budget_compare import BudgetVerdict, compare_budgets
from pinreport.analysis.compare import CompareOptions, compare
from pinreport.analysis.driver_table import (
    ClaimChange,
    Decider,
    ReleaseVerdict,
    baseline_release,
    changed_claims,
    newest_first,
    release_verdict,
)
from pinreport.analysis.fit import CostFit
from pinreport.base.errors import BadInputError, OlderResultsError
from pinreport.base.schema import RESULTS_SCHEMA_VERSION
from pinreport.pipeline.answer import CostRow, Reserve
from pinreport.pipeline.report import summary_report
from pinreport.readers.budget import FamilyBudget
from pinreport.readers.cost_document import is_cost_metric
from pinreport.readers.results import ResultsFile
from pinreport.readers.store_key import StoreKey
from pinreport.store.files import REAL, REPLAY, StoredBudget, StoreEntry
from pinreport.store.history_index import Derive
from pinreport.store.reading import GroupHistory, StoreContents

# --- per night: what the index keeps (DERIVE) ------------------------------------------------


def _row_json(row: CostRow) -> dict[str, Any]:
    return asdict(row)


def _row_from_json(d: dict[str, Any]) -> CostRow:
    return CostRow(
        api=d["api"],
        gpus=d["gpus"],
        family=d["family"],
        fit=CostFit(**d["fit"]),
        runs=d["runs"],
        reserves=tuple(Reserve(r["size"], r["per_gpu"], tuple(r["notes"])) for r in d["reserves"]),
        rule=d["rule"],
        rule_counts=tuple((v, n) for v, n in d["rule_counts"]),
        ratio_range=tuple(d["ratio_range"]) if d["ratio_range"] is not None else None,
    )


def night_values(entry: StoreEntry) -> dict[str, Any]:
    """What the driver table keeps of one night (module docstring): the answer of the night alone
    (`pinreport summary` without a store) and its cost document. Run by the history index in its
    worker processes, once per night."""
    answer = summary_report(entry.results, StoreContents(root=""), stored=False).answer
    return {
        "rows": [_row_json(r) for r in answer.rows],
        "claims": [[c.n, c.verdict] for c in answer.claims],
        "left_out": len(answer.left_out),
        "costs": entry.results.cost_document(),
    }


# The name under which the index keeps night_values(); a new version when they change.
DERIVE = Derive("drivers/1", night_values)


@dataclass(frozen=True)
class Night:
    """One stored night as the driver table reads it from the index."""

    path: str
    key: StoreKey
    replayed: bool
    started_at: str
    row_records: tuple[dict[str, Any], ...]  # the answer's cost rows as the index keeps them (rows)
    claims: tuple[tuple[str, str], ...]  # claim number -> verdict
    left_out: int  # disturbed runs kept out of the fit
    measurement_id: str  # its identity (store.md): the report links name it
    costs: ResultsFile  # cost_document(), compared with the next release
    # Per row, the slope's 95% upper bound (CostFit.slope_bound), where a kept row has it; else
    # computed when asked (bound_of): only the nights the table shows are asked.
    bounds: tuple[float | None, ...] | None = None

    @cached_property
    def rows(self) -> tuple[CostRow, ...]:
        """The answer's cost rows (pipeline/answer.py), read when asked: of a release's nights the
        table reads the newest night's only."""
        return tuple(_row_from_json(r) for r in self.row_records)

    def bound_of(self, row: CostRow) -> float | None:
        """The slope's 95% upper bound of one of its rows, bytes per pinned byte."""
        return self.bounds[self.rows.index(row)] if self.bounds is not None else row.fit.slope_bound()

    @staticmethod
    def from_entry(entry: StoreEntry) -> "Night":
        values = (entry.derived or {})[DERIVE.name]
        return Night(
            path=entry.path,
            key=entry.key,
            replayed=entry.namespace == REPLAY,
            started_at=entry.started_at,
            row_records=tuple(values["rows"]),
            claims=tuple((str(n), v) for n, v in values["claims"]),
            left_out=values["left_out"],
            measurement_id=values["costs"]["measurement_id"],
            costs=ResultsFile.summary_of(entry.path, values["costs"]),
        )


# --- per release -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetCell:
    """A release's newest budget document: its safe budget and the VRAM that budget costs."""

    path: str
    started_at: str
    safe_budget: int | None
    family: str | None
    limit_found: bool
    words: str | None  # what stopped the search when it was not the driver ("capped at ...")
    vram_cost: int | None  # the family's vram_cost_at_budget; None when not measured (or disturbed)
    vram_disturbed: bool

    @staticmethod
    def of(stored: StoredBudget) -> "BudgetCell":
        b = stored.budget
        family: FamilyBudget | None = next((f for f in b.families if f.family == b.safe_family), None)
        return BudgetCell(
            path=stored.path,
            started_at=stored.started_at,
            safe_budget=b.safe_budget,
            family=b.safe_family,
            limit_found=b.safe_limit_found,
            words=family.stopped_words if family is not None and not family.limit_found else None,
            vram_cost=family.vram_cost_at_budget if family is not None else None,
            vram_disturbed=bool(family.vram_disturbed) if family is not None else False,
        )


@dataclass(frozen=True)
class ReleaseRow:
    key: StoreKey  # the group and the release
    replayed: bool  # replayed nights (replay/): labelled, never a baseline
    nights: int
    first: str  # started_at of its first night
    last: str  # of its newest night
    newest: Night  # the night that stands for the release
    budget: BudgetCell | None
    budget_verdicts: tuple[BudgetVerdict, ...]
    claims_changed: tuple[ClaimChange, ...]
    verdict: ReleaseVerdict


@dataclass(frozen=True)
class DriverTable:
    """What `pinreport drivers` concludes about a store: read by every output, changed by none."""

    store: str
    rows: tuple[ReleaseRow, ...]  # by group, then newest release first
    problems: tuple[BadInputError, ...]
    replay_shown: bool
    options: CompareOptions = field(default_factory=CompareOptions)

    @property
    def groups(self) -> tuple[tuple[str, str, str, str], ...]:
        return tuple(dict.fromkeys(r.key.group for r in self.rows))

    def rows_of(self, group: tuple[str, str, str, str]) -> tuple[ReleaseRow, ...]:
        return tuple(r for r in self.rows if r.key.group == group)


@dataclass(frozen=True)
class GroupNights:
    """What the store holds of one group for the table (store/reading.read_for_drivers)."""

    group: tuple[str, str, str, str]
    nights: tuple[Night, ...]  # oldest first; real and, when asked, replayed
    budgets: tuple[StoredBudget, ...]  # oldest first


def release_budget(budgets: Sequence[StoredBudget]) -> StoredBudget | None:
    """The budget that stands for a release (oldest first in `budgets`): its newest document whose
    search reached the driver's limit, else its newest. A capped search is a lower bound only
    (docs/budget.md), so a later capped night does not hide the limit an earlier one found."""
    found = [b for b in budgets if b.budget.safe_limit_found]
    return (found or list(budgets) or [None])[-1]


def _by_release(items: Sequence[Any], replayed: Callable[[Any], bool]) -> dict[tuple[bool, str], list[Any]]:
    out: dict[tuple[bool, str], list[Any]] = {}
    for item in items:
        out.setdefault((replayed(item), item.key.release), []).append(item)
    return out


def group_rows(g: GroupNights, options: CompareOptions) -> list[ReleaseRow]:
    """One group's rows (module docstring): its releases newest first, a replayed release after the
    real one of the same name."""
    nights = _by_release(g.nights, lambda n: n.replayed)
    budgets = _by_release(g.budgets, lambda b: b.namespace == REPLAY)
    real = sorted({r for replayed, r in nights if not replayed})
    real_budgets = {r for replayed, r in budgets if not replayed}
    rows = []
    releases = {(replayed, r) for replayed, r in nights}
    order = newest_first({r for _, r in releases})
    for release in order:
        for replayed in (False, True):
            mine = nights.get((replayed, release))
            if not mine:
                continue
            newest = mine[-1]
            against = baseline_release(release, real)
            compared = []
            if against is not None:
                base = [StoreEntry(n.path, REAL, n.costs, n.key) for n in nights[(False, against)]]
                report = compare(newest.costs, StoreContents(root="", entries=base), options)
                compared = [v for v in report.verdicts if is_cost_metric(v.metric)]
            budget = release_budget(budgets.get((replayed, release), []))
            budget_against = baseline_release(release, real_budgets)
            verdicts: tuple[BudgetVerdict, ...] = ()
            if budget is not None and budget_against is not None:
                old = release_budget(budgets[(False, budget_against)])
                verdicts = compare_budgets(old.budget, budget.budget)
            previous = nights[(False, against)][-1] if against is not None else None
            rows.append(
                ReleaseRow(
                    key=newest.key,
                    replayed=replayed,
                    nights=len(mine),
                    first=mine[0].started_at,
                    last=newest.started_at,
                    newest=newest,
                    budget=BudgetCell.of(budget) if budget is not None else None,
                    budget_verdicts=verdicts,
                    claims_changed=changed_claims(previous.claims, newest.claims) if previous else (),
                    verdict=release_verdict(against, compared, verdicts),
                )
            )
    return rows


def build_driver_table(
    store: str,
    rows: Sequence[Sequence[ReleaseRow]],
    problems: Sequence[BadInputError] = (),
    options: CompareOptions | None = None,
    replay_shown: bool = False,
) -> DriverTable:
    """The one DriverTable of a store: each group's rows (group_rows), groups in their order
    (platform, driver model, GPU, GPU count)."""
    ordered = sorted((r for r in rows if r), key=lambda rs: rs[0].key.group)
    return DriverTable(
        store, tuple(r for rs in ordered for r in rs), tuple(problems), replay_shown, options or CompareOptions()
    )


# --- a group's rows as JSON: what the group's memo keeps (store/reading.read_for_drivers) ------

# The table's own version, in the memo's key: a new one when a row is computed otherwise.
TABLE_VERSION = 3


def memo_of(options: CompareOptions, replay: bool) -> list[Any]:
    """What a group's rows are a function of besides its files (store/reading.read_for_drivers)."""
    return [TABLE_VERSION, repr(options), replay]


def _night_json(n: Night) -> dict[str, Any]:
    return {
        "path": n.path,
        "key": list(astuple(n.key)),
        "replayed": n.replayed,
        "started_at": n.started_at,
        "rows": list(n.row_records),
        "bounds": [n.bound_of(r) for r in n.rows],
        "claims": [list(c) for c in n.claims],
        "left_out": n.left_out,
        "measurement_id": n.measurement_id,
    }


def _night_from_json(d: dict[str, Any]) -> Night:
    return Night(
        path=d["path"],
        key=StoreKey(*d["key"]),
        replayed=d["replayed"],
        started_at=d["started_at"],
        row_records=tuple(d["rows"]),
        bounds=tuple(d["bounds"]),
        claims=tuple((n, v) for n, v in d["claims"]),
        left_out=d["left_out"],
        measurement_id=d["measurement_id"],
        costs=ResultsFile.summary_of(d["path"], {}),  # what a kept row needs of its night is above
    )


def row_json(r: ReleaseRow) -> dict[str, Any]:
    v = r.verdict
    return {
        "key": list(astuple(r.key)),
        "replayed": r.replayed,
        "nights": r.nights,
        "first": r.first,
        "last": r.last,
        "newest": _night_json(r.newest),
        "budget": asdict(r.budget) if r.budget is not None else None,
        "budget_verdicts": [asdict(b) for b in r.budget_verdicts],
        "claims_changed": [asdict(c) for c in r.claims_changed],
        "verdict": {
            "verdict": v.verdict,
            "against": v.against,
            "decided_by": asdict(v.decided_by) if v.decided_by is not None else None,
            "counts": [list(c) for c in v.counts],
        },
    }


def row_from_json(d: dict[str, Any]) -> ReleaseRow:
    v = d["verdict"]
    return ReleaseRow(
        key=StoreKey(*d["key"]),
        replayed=d["replayed"],
        nights=d["nights"],
        first=d["first"],
        last=d["last"],
        newest=_night_from_json(d["newest"]),
        budget=BudgetCell(**d["budget"]) if d["budget"] is not None else None,
        budget_verdicts=tuple(BudgetVerdict(**b) for b in d["budget_verdicts"]),
        claims_changed=tuple(ClaimChange(**c) for c in d["claims_changed"]),
        verdict=ReleaseVerdict(
            v["verdict"],
            v["against"],
            Decider(**v["decided_by"]) if v["decided_by"] is not None else None,
            tuple((name, n) for name, n in v["counts"]),
        ),
    )


def group_value(histories: Sequence[GroupHistory], options: CompareOptions) -> dict[str, Any]:
    """A group's rows and the problems of its files, as JSON (what its memo keeps)."""
    nights = tuple(Night.from_entry(e) for h in histories for e in h.nights)
    budgets = tuple(b for h in histories for b in h.budgets)
    group = GroupNights(histories[0].group, nights, budgets)
    return {
        "rows": [row_json(r) for r in group_rows(group, options)],
        "problems": [_problem_json(p) for h in histories for p in h.problems],
    }


def _problem_json(p: BadInputError) -> list[Any]:
    """A problem as the memo keeps it: a night of an older results version by its number, so the
    store's older nights are said in one line with the command that upgrades them."""
    return [p.path, p.detail, p.version if isinstance(p, OlderResultsError) else None]


def _problem_from_json(p: list[Any]) -> BadInputError:
    path, detail, older = p
    return OlderResultsError(path, older, RESULTS_SCHEMA_VERSION) if older is not None else BadInputError(path, detail)


def rows_of_value(value: dict[str, Any]) -> tuple[list[ReleaseRow], list[BadInputError]]:
    return [row_from_json(r) for r in value["rows"]], [_problem_from_json(p) for p in value["problems"]]


def group_label(group: tuple[str, str, str, str]) -> str:
    """ "nvidia-h200, 1gpu, linux, driver model linux": how the outputs name a group."""
    platform, model, gpu, count = group
    return f"{gpu}, {count}, {platform}, driver model {model}"


def groups_by_gpu(table: DriverTable) -> Mapping[tuple[str, str], tuple[tuple[str, str, str, str], ...]]:
    """The groups of one GPU model and count, side by side under their driver models (WDDM, TCC,
    MCDM, WSL2, Linux): (gpu, count) -> groups."""
    out: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
    for group in table.groups:
        out.setdefault((group[2], group[3]), []).append(group)
    return {k: tuple(v) for k, v in out.items()}
