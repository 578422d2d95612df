"""The driver table's rules (analysis/driver_table.py): the release a release is judged against,
one verdict from many comparisons and the metric that decided it, the claims that changed."""

from hypothesis import given
from hypothesis import strategies as st
from pinreport.analysis.budget_compare import BudgetVerdict
from pinreport.analysis.compare import HISTORY, PREVIOUS, MetricVerdict
from pinreport.analysis.driver_table import (
    NO_BASELINE,
    ORDER,
    ClaimChange,
    baseline_release,
    changed_claims,
    newest_first,
    release_verdict,
)
from pinreport.analysis.stats import Comparison, Verdict

MiB = 1024**2


def _metric(verdict, base, now, kind=PREVIOUS, metric="cost.after_first_use.cuda.free", run="q/cudaMallocHost/4GiB"):
    c = Comparison(verdict, "why", baseline_median=base, current_median=now, n_baseline=9, n_current=3)
    return MetricVerdict(run, "q", metric, "bytes", kind, c, now)


def test_baseline_is_the_highest_older_release():
    real = ["570.10", "580.159.04", "580.65.06", "590.10"]
    assert baseline_release("590.10", real) == "580.159.04"  # numbers, not text: 159 > 65
    assert baseline_release("585.05", real) == "580.159.04"  # a replayed release between real ones
    assert baseline_release("570.10", real) is None
    assert baseline_release("unknown-release", real) is None
    assert newest_first(["570.10", "unknown-release", "580.9", "580.10"]) == [
        "580.10",
        "580.9",
        "570.10",
        "unknown-release",
    ]


def test_a_cost_that_rose_is_a_regression_named_by_the_largest_change():
    metrics = [
        _metric(Verdict.REGRESSION, 8 * MiB, 8 * MiB + 128 * 1024, run="q/cudaMallocHost/4GiB"),
        _metric(Verdict.REGRESSION, 2 * MiB, 2 * MiB + 64 * 1024, run="q/cudaMallocHost/1GiB"),
        _metric(Verdict.IMPROVEMENT, 2 * MiB, 1 * MiB),
        _metric(Verdict.REGRESSION, 1 * MiB, 9 * MiB, kind=HISTORY),  # another night of the same release
        _metric(Verdict.NOT_JUDGED, 1 * MiB, 9 * MiB),
    ]
    v = release_verdict("580.159.04", metrics, ())
    assert v.verdict == "REGRESSION" and v.against == "580.159.04"
    assert v.decided_by.what == "cost.after_first_use.cuda.free of q/cudaMallocHost/1GiB"  # 3.1% against 1.6%
    assert v.decided_by.change == "+64.00 KiB (2.00 MiB -> 2.06 MiB)"
    assert v.counts == (("REGRESSION", 2), ("IMPROVEMENT", 1))
    assert v.describe().startswith("REGRESSION vs 580.159.04: cost.after_first_use.cuda.free of q/cudaMallocHost/1GiB")


def test_a_budget_that_shrank_is_a_regression_even_when_the_costs_are_the_same():
    budgets = [
        BudgetVerdict("cudaMallocHost", "REGRESSION", 6979321856, 4831838208, "shrank by more than one chunk"),
        BudgetVerdict("cudaHostRegister", "NOT COMPARABLE", None, None, "not comparable: capped"),
    ]
    v = release_verdict("580.159.04", [_metric(Verdict.SAME, 2 * MiB, 2 * MiB)], budgets)
    assert v.verdict == "REGRESSION"
    assert v.decided_by.what == "safe budget cudaMallocHost"
    assert v.decided_by.change.startswith("6.50 GiB -> 4.50 GiB")


def test_same_ambiguous_and_no_baseline():
    same = release_verdict("580.159.04", [_metric(Verdict.SAME, 2 * MiB, 2 * MiB)], ())
    assert (same.verdict, same.decided_by) == ("SAME", None)
    amb = release_verdict("580.159.04", [_metric(Verdict.SAME, 1, 1), _metric(Verdict.AMBIGUOUS, 2 * MiB, 3 * MiB)], ())
    assert amb.decided_by.change == "(why)"  # the comparison's own words: why it could not tell
    assert amb.verdict == "AMBIGUOUS" and amb.decided_by is not None
    assert release_verdict(None, [], ()).verdict == NO_BASELINE
    only_new = release_verdict("580.159.04", [_metric(Verdict.NO_BASELINE, 0, 2 * MiB)], ())
    assert only_new.verdict == NO_BASELINE and only_new.counts == ()


@given(st.lists(st.sampled_from(ORDER[:4]), max_size=8), st.lists(st.sampled_from(ORDER[:4]), max_size=4))
def test_the_verdict_is_the_most_severe_of_its_comparisons(metric_verdicts, budget_verdicts):
    metrics = [_metric(Verdict(v), 2 * MiB, 2 * MiB + i + 1) for i, v in enumerate(metric_verdicts)]
    budgets = [BudgetVerdict(f"f{i}", v, 100, 50 + i, "why") for i, v in enumerate(budget_verdicts)]
    v = release_verdict("1.0", metrics, budgets)
    seen = metric_verdicts + budget_verdicts
    assert v.verdict == (min(seen, key=ORDER.index) if seen else NO_BASELINE)
    assert sum(n for _, n in v.counts) == len(seen)


def test_changed_claims_in_the_register_order():
    old = [("1", "CONFIRMED"), ("8", "REFUTED"), ("11", "CONFIRMED")]
    new = [("1", "CONFIRMED"), ("8", "CONFIRMED"), ("11", "REFUTED"), ("12", "CONFIRMED")]
    assert changed_claims(old, new) == (
        ClaimChange("8", "REFUTED", "CONFIRMED"),
        ClaimChange("11", "CONFIRMED", "REFUTED"),
    )
