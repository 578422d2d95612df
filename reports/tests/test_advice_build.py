"""advice/build.py: the one pipeline over committed traces and stores: the program and each call
site, a disturbed trace (no advice on the disturbed figure), replayed stores (labelled), no store
(the trace's own figures, what a store adds), a peak too short to sample (costed from the fit),
two GPUs, and the exit codes."""

import json

import pytest
from advice_data import (
    GIB,
    H100_BUDGET,
    MIB,
    STAGING,
    TRACES,
    TRANSFER,
    h200_runs,
    h200x2_environment,
    no_samples,
    relabelled,
    trace,
    two_gpus,
    variant,
)
from pinreport.advice.build import build_advice
from pinreport.advice.evidence import RUN_STORE, load_benches
from pinreport.advice.options import OVER_ALLOCATION, STAGING_RING
from pinreport.advice.verdict import BY_BUDGET, CHANGE, NOTHING, UNKNOWN
from pinreport.readers.budget import load_budget

BENCHES = load_benches([str(TRANSFER), str(STAGING)])


def test_the_pinned_dataloader_on_the_h200_is_nothing_worth_changing_with_every_option_measured():
    a = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, store_given=True)
    assert a.program.verdict.kind == NOTHING and a.exit_code == 0
    assert "0.007% of the GPU's memory" in a.program.verdict.words
    assert all(o.complete for o in a.program.options)
    assert [o.name for o in a.program.verdict.ranked][:2] == [OVER_ALLOCATION, STAGING_RING]
    assert len(a.sites) == 1 and a.sites[0].cost.held == a.program.cost.held


def test_a_lower_threshold_makes_the_same_cost_worth_changing_and_the_free_option_wins():
    a = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, store_given=True, small=0.00001)
    assert a.program.verdict.kind == CHANGE and a.exit_code == 1
    assert a.program.verdict.best.name == OVER_ALLOCATION
    assert "for 0% of copy speed" in a.program.verdict.words


def test_a_disturbed_trace_gives_no_advice_on_the_disturbed_figure():
    a = build_advice(trace("trace-dataloader-burst.json"), h200_runs(), BENCHES, store_given=True)
    c = a.program.cost
    assert c.observed.bytes is None and "DISTURBED" in c.observed.why
    assert any("observed cost not used" in n and "DISTURBED" in n for n in a.notes)
    assert c.figure == c.bound < 20 * MIB, "the fit's bound, not the 166 MiB the neighbour moved"
    assert "166" not in a.program.verdict.words
    bare = build_advice(trace("trace-dataloader-burst.json"), [], BENCHES)
    assert bare.program.verdict.kind == UNKNOWN and bare.exit_code == 3
    assert all(o.vram_saved is None for o in bare.program.options)


def test_replayed_store_data_is_labelled():
    a = build_advice(
        trace("trace-dataloader-w4.json"), h200_runs(replayed=True), BENCHES, store_given=True, replayed=True
    )
    assert a.replayed and any(n.startswith("REPLAYED DATA") for n in a.notes)
    assert all(s.replayed for s in a.program.cost.fit_sources)
    window = next(o for o in a.program.options if o.name == "register_window")
    assert window.evidence[0].replayed and "REPLAYED" in window.evidence[0].words()


def test_without_a_store_the_advice_rests_on_the_traces_own_figures_and_says_what_a_store_adds():
    a = build_advice(trace("trace-dataloader-w4.json"), [], BENCHES)
    assert not a.store_given and a.missing[0].what == "store" and a.missing[0].run == RUN_STORE
    assert "peak too short to sample" in a.missing[0].why
    assert a.program.cost.predicted is None and a.program.cost.figure == 10 * MIB
    assert a.program.verdict.kind == NOTHING and a.exit_code == 0


def test_a_peak_too_short_to_sample_is_costed_from_the_fit_never_left_blank(tmp_path):
    t = variant(tmp_path, "trace-dataloader-w4.json", no_samples)
    a = build_advice(t, h200_runs(), BENCHES, store_given=True)
    assert a.program.cost.observed.bytes is None
    assert a.program.cost.predicted == pytest.approx(9.97 * MIB, rel=0.01)
    assert a.program.verdict.kind == NOTHING and a.exit_code == 0


def test_two_gpus_double_the_cost_and_the_verdict_is_per_gpu(tmp_path):
    t = variant(tmp_path, "trace-dataloader-w4.json", two_gpus)
    a = build_advice(t, relabelled(h200_runs(), h200x2_environment()), BENCHES, store_given=True)
    one = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, store_given=True)
    assert a.gpus == 2 and a.program.cost.bound == pytest.approx(2 * one.program.cost.bound)
    page = next(o for o in a.program.options if o.name == "pageable")
    assert page.vram_saved == pytest.approx(2 * next(o for o in one.program.options if o.name == "pageable").vram_saved)
    assert any("2 GPUs pays the same" in n for n in a.notes)


def test_a_store_of_another_group_gives_no_fit_and_says_so():
    other = relabelled(h200_runs(), h200x2_environment())
    a = build_advice(trace("trace-dataloader-w4.json"), other, BENCHES, store_given=True)
    assert a.program.cost.predicted is None
    assert any(m.what == "store fit" and "1gpu" in m.why for m in a.missing)


def test_a_budget_of_another_machine_is_named_not_used():
    a = build_advice(
        trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, load_budget(H100_BUDGET), store_given=True
    )
    assert a.budget is None and a.program.cost.budget_share is None
    assert any(m.what == "pin budget" and "H100" in m.why for m in a.missing)


def test_a_traced_program_that_pinned_nothing_has_nothing_to_change(tmp_path):
    def empty(doc):
        doc["pinned"].update(at_peak=[], peak_bytes=0, peak_by_family={}, peak_by_site={})

    a = build_advice(variant(tmp_path, "trace-dataloader-w4.json", empty), h200_runs(), BENCHES, store_given=True)
    assert a.program.cost.held == 0 and a.program.verdict.kind == NOTHING and not a.sites


def test_a_replayed_benchmark_file_labels_the_advice_and_its_option(tmp_path):
    import json

    doc = json.loads(TRANSFER.read_text())
    doc["context"]["cuda.backend"] = "replay"
    replayed = tmp_path / "transfer_bench.json"
    replayed.write_text(json.dumps(doc))
    a = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), load_benches([str(replayed)]), store_given=True)
    assert a.replayed and any(str(replayed) in n and "replay backend" in n for n in a.notes)
    page = next(o for o in a.program.options if o.name == "pageable")
    assert page.evidence[0].replayed


def scaled_budget(tmp_path, trace_name: str, safe: int):
    """The committed H100 budget document as this trace's machine's (its environment record), its
    safe budget scaled to `safe` bytes, written and read back through the strict reader."""
    doc = json.loads(H100_BUDGET.read_text())
    doc["environment"] = json.loads((TRACES / trace_name).read_text())["environment"]
    doc["safe_budget"]["bytes"] = safe
    for f in doc["families"]:
        f["safe_budget"] = safe
    path = tmp_path / "budget-scaled.json"
    path.write_text(json.dumps(doc))
    return load_budget(path)


# The pinned DataLoader on the H200 holds 5 GiB at its peak: its VRAM says nothing is worth
# changing (0.007% of the GPU), yet above a safe pin budget of 3.125 GiB (160%) it must change; the
# options that bring it under are ranked, the free one first (pinning only what the batches need
# leaves 2.93 GiB).
def test_a_program_above_the_safe_pin_budget_must_change_whatever_its_vram(tmp_path):
    budget = scaled_budget(tmp_path, "trace-dataloader-w4.json", 3 * GIB + 128 * MIB)
    a = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, budget, store_given=True)
    v = a.program.verdict
    assert v.kind == CHANGE and a.exit_code == 1
    assert v.words.startswith(
        "change: it holds 5.00 GiB pinned, 160% of the safe pin budget 3.12 GiB ("
        + str(tmp_path / "budget-scaled.json")
    ), v.words
    assert v.best.name == OVER_ALLOCATION and "2.93 GiB pinned, under the budget, for 0% of copy speed" in v.words
    assert [o.name for o in v.ranked] == [OVER_ALLOCATION, STAGING_RING, "register_window", "pageable"]
    assert v.ranked_by == BY_BUDGET
    # Below what pinning only the needed bytes leaves, the ring is the cheapest way under it.
    tight = scaled_budget(tmp_path, "trace-dataloader-w4.json", 2 * GIB)
    b = build_advice(trace("trace-dataloader-w4.json"), h200_runs(), BENCHES, tight, store_given=True)
    assert b.program.verdict.best.name == STAGING_RING
    assert [o.name for o in b.program.verdict.ranked] == [STAGING_RING, "register_window", "pageable"]
