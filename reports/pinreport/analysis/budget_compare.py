"""Two `pinbench budget` documents compared, per API family (docs/budget.md, "Between releases").

A family's safe budget is judged only where both searches reached the driver's limit
(`limit_found`): one stopped by the cap, the time limit or the host's available memory is a lower
bound, so a smaller number there says nothing about the driver ("not comparable: capped", never a
REGRESSION). Between two limits, a move of more than one chunk (the search's step, the larger of
the two documents' chunks) is a change: smaller is a REGRESSION, larger an IMPROVEMENT; anything
within one chunk is SAME (the search cannot tell it apart)."""

from dataclasses import dataclass

from pinreport.readers.budget import BudgetDocument, FamilyBudget

REGRESSION = "REGRESSION"
IMPROVEMENT = "IMPROVEMENT"
SAME = "SAME"
NOT_COMPARABLE = "NOT COMPARABLE"


@dataclass(frozen=True)
class BudgetVerdict:
    family: str
    verdict: str
    old: int | None  # the safe budgets, bytes (None: no answer on that side)
    new: int | None
    why: str  # one phrase: the change, or why there is no verdict


def _why_capped(side: str, f: FamilyBudget) -> str:
    return f"{side} {f.stopped_words or f.stopped_by or 'stopped before the limit'}"


def _judge(family: str, old: FamilyBudget | None, new: FamilyBudget | None) -> BudgetVerdict:
    o = old.safe_budget if old else None
    n = new.safe_budget if new else None
    for side, f in (("old", old), ("new", new)):
        if f is None:
            return BudgetVerdict(family, NOT_COMPARABLE, o, n, f"not comparable: not in the {side} document")
        if f.status != "ok" or f.safe_budget is None:
            return BudgetVerdict(family, NOT_COMPARABLE, o, n, f"not comparable: no answer in the {side} ({f.status})")
    assert old is not None and new is not None and o is not None and n is not None
    capped = [_why_capped(side, f) for side, f in (("old", old), ("new", new)) if not f.limit_found]
    if capped:
        return BudgetVerdict(family, NOT_COMPARABLE, o, n, "not comparable: capped (" + "; ".join(capped) + ")")
    step = max(old.chunk or 0, new.chunk or 0)
    delta = n - o
    if delta < -step:
        return BudgetVerdict(family, REGRESSION, o, n, f"shrank by more than one chunk ({step} bytes)")
    if delta > step:
        return BudgetVerdict(family, IMPROVEMENT, o, n, f"grew by more than one chunk ({step} bytes)")
    return BudgetVerdict(family, SAME, o, n, f"within one chunk ({step} bytes)")


def compare_budgets(old: BudgetDocument, new: BudgetDocument) -> tuple[BudgetVerdict, ...]:
    """One verdict per family of either document, the new document's order first."""
    olds = {f.family: f for f in old.families}
    news = {f.family: f for f in new.families}
    names = [f.family for f in new.families] + [f.family for f in old.families if f.family not in news]
    return tuple(_judge(name, olds.get(name), news.get(name)) for name in names)
