"""advice/verdict.py: the threshold (noise, small against the GPU's memory), the ranking by VRAM
saved per percent of copy speed lost, and the safe pin budget (a change by itself when exceeded),
on hand-made costs and options."""

import math

from pinreport.advice.cost import Cost, Observed
from pinreport.advice.evidence import RUN_STORE, Missing
from pinreport.advice.options import Option
from pinreport.advice.verdict import BY_BUDGET, BY_TRADE, CHANGE, NOTHING, UNKNOWN, PinBudget, judge, rank, score

MIB = 1024 * 1024
GIB = 1024 * MIB
STEP = 2 * MIB


def cost(bound=None, observed=None, gpus=1):
    return Cost(
        "program",
        4 * GIB,
        {"host_alloc": 4 * GIB},
        {GIB: 4},
        ("cuMemHostAlloc",),
        gpus,
        bound,
        bound,
        Observed(observed, ""),
        None,
        (),
    )


def option(name, saved, speed, missing=()):
    return Option(name, "program", f"do {name}", True, 0, GIB, saved, 0.0, 0.0, "store fit", speed, "", (), missing)


def test_score_is_vram_saved_per_percent_of_speed_lost():
    assert score(option("a", 100 * MIB, 0.5)) == 2 * MIB
    assert score(option("b", 10 * MIB, 1.0)) == math.inf
    assert score(option("c", 10 * MIB, 1.2)) == math.inf, "a faster option loses nothing"


def test_rank_puts_free_options_first_then_by_the_trade_and_leaves_out_the_incomplete():
    a = option("pageable", 400 * MIB, 0.12)  # 400 / 88 = 4.5 MiB per percent
    b = option("staging_ring", 390 * MIB, 0.85)  # 390 / 15 = 26 MiB per percent
    c = option("over_allocation", 100 * MIB, 1.0)
    d = option("register_window", 999 * MIB, None, (Missing("speed", "none", "run"),))
    assert [o.name for o in rank([a, b, c, d])] == ["over_allocation", "staging_ring", "pageable"]


def test_within_noise_is_nothing_worth_changing():
    v = judge(cost(bound=3 * MIB), [option("a", 3 * MIB, 1.0)], 80 * GIB, STEP)
    assert v.kind == NOTHING and "within noise" in v.words and v.best is None
    assert "under 2 cost steps (4.00 MiB) per GPU is noise" in v.threshold


def test_small_against_the_gpus_memory_is_nothing_worth_changing_and_says_the_threshold():
    v = judge(cost(bound=500 * MIB), [option("a", 400 * MIB, 1.0)], 80 * GIB, STEP)
    assert v.kind == NOTHING and "0.610% of the GPU's memory" in v.words
    assert "under 1% of the GPU's 80.00 GiB (819.20 MiB) per GPU is small" in v.threshold


def test_above_the_threshold_the_best_trade_is_the_verdict():
    options = [option("pageable", 1.9 * GIB, 0.12), option("staging_ring", 1.8 * GIB, 0.85)]
    v = judge(cost(bound=2 * GIB), options, 80 * GIB, STEP)
    assert v.kind == CHANGE and v.best.name == "staging_ring"
    assert v.words.startswith("do staging_ring: saves 1.80 GiB of VRAM") and "15% of copy speed" in v.words


def test_the_threshold_is_per_gpu():
    v = judge(cost(bound=1.2 * GIB, gpus=2), [option("a", GIB, 1.0)], 80 * GIB, STEP)
    assert v.kind == NOTHING, "600 MiB per GPU is under 1% of 80 GiB"


def test_worth_changing_without_a_complete_option_names_what_to_run():
    v = judge(cost(bound=2 * GIB), [option("pageable", None, None, (Missing("x", "y", "run this"),))], 80 * GIB, STEP)
    assert v.kind == CHANGE and v.best is None and "run this" in v.words


def test_no_figure_at_all_is_unknown_and_names_the_store_first():
    speed = Missing("pageable copy speed", "no rows", "a benchmark")
    v = judge(cost(), [option("p", None, None, (speed, Missing("VRAM saved", "no store", RUN_STORE)))], 80 * GIB, STEP)
    assert v.kind == UNKNOWN and v.words.endswith(f"to get one: {RUN_STORE}")


def test_the_observed_cost_is_weighed_where_there_is_no_fit():
    v = judge(cost(observed=10 * MIB), [], 140 * GIB, STEP)
    assert v.kind == NOTHING and "the trace's observed cost" in v.words


def held_cost(held):
    c = cost(bound=3 * MIB)  # within noise: VRAM alone says nothing is worth changing
    return Cost(c.scope, held, {"host_alloc": held}, c.blocks, c.apis, 1, c.predicted, c.bound, c.observed, None, ())


def saving(name, saved, speed, missing=()):
    return Option(name, "program", f"do {name}", True, 0, saved, MIB, 0.0, 0.0, "store fit", speed, "", (), missing)


def test_holding_more_than_the_safe_budget_is_a_change_by_itself_and_names_the_budget():
    options = [
        saving("over_allocation", 1 * GIB, 1.0),  # 4 GiB - 1 GiB: still above 2.5 GiB
        saving("pageable", 4 * GIB, 0.12),
        saving("staging_ring", 3 * GIB + 960 * MIB, 0.85),
    ]
    v = judge(held_cost(4 * GIB), options, 80 * GIB, STEP, budget=PinBudget(2 * GIB + 512 * MIB, "budget.json"))
    assert v.kind == CHANGE and v.best.name == "staging_ring"
    assert v.words == (
        "change: it holds 4.00 GiB pinned, 160% of the safe pin budget 2.50 GiB (budget.json);"
        " do staging_ring: 64.00 MiB pinned, under the budget, for 15% of copy speed"
    )
    assert [o.name for o in v.ranked] == ["staging_ring", "pageable"], "over_allocation leaves it above"
    assert v.ranked_by == BY_BUDGET


def test_under_the_budget_the_vram_decides_as_before():
    v = judge(held_cost(2 * GIB), [saving("pageable", 2 * GIB, 0.12)], 80 * GIB, STEP, budget=PinBudget(3 * GIB, "b"))
    assert v.kind == NOTHING and v.ranked_by == BY_TRADE


def test_over_the_budget_without_a_measured_option_names_what_to_run():
    speed = Missing("pageable copy speed", "no rows", "run the transfer benchmark")
    v = judge(held_cost(4 * GIB), [saving("pageable", 4 * GIB, None, (speed,))], None, STEP, budget=PinBudget(GIB, "b"))
    assert v.kind == CHANGE and v.best is None
    assert v.words.endswith("pageable would bring it under, without a measured speed: run the transfer benchmark")
    v = judge(held_cost(4 * GIB), [saving("over_allocation", GIB, 1.0)], None, STEP, budget=PinBudget(GIB, "b"))
    assert v.kind == CHANGE and v.words.endswith("no option brings it under the budget") and not v.ranked
