"""advice/cost.py: the cost now from the committed H200 traces and the store's fit (the same fit
`pinreport trace` judges with), per GPU times the GPUs the program used, never from a disturbed
figure, and from the fit where no device sample saw the peak."""

import pytest
from advice_data import GIB, MIB, h200_runs, h200x2_environment, no_samples, relabelled, trace, two_gpus, variant
from pinreport.advice.cost import gpu_memory, gpus_used, held_at_peak, make_fits, observed_cost, scope_cost
from pinreport.analysis.trace import judge_trace
from pinreport.readers.results import ResultsFile


def _program(t, runs):
    gpus = gpus_used(t)
    fits = make_fits(t, runs, gpus)
    holdings = [h for hs in held_at_peak(t).values() for h in hs]
    return scope_cost("program", holdings, fits, gpus, observed_cost(t), None), fits


def test_the_dataloader_cost_is_the_fit_trace_uses():
    t = trace("trace-dataloader-w4.json")
    cost, _ = _program(t, h200_runs())
    j = judge_trace(t, [r.results for r in h200_runs()])
    assert cost.held == 5 * GIB and cost.blocks == {512 * MIB: 10}
    assert cost.by_family == {"host_alloc": 5 * GIB}
    assert cost.predicted == pytest.approx(j.devices[0].predicted)
    assert cost.bound == pytest.approx(j.devices[0].bound)
    assert cost.observed.bytes == 10 * MIB
    assert gpu_memory(t) == 150754820096


def test_two_gpus_pay_twice_from_1gpu_fits_and_say_so(tmp_path):
    t = variant(tmp_path, "trace-dataloader-w4.json", two_gpus)
    assert gpus_used(t) == 2
    one, _ = _program(trace("trace-dataloader-w4.json"), h200_runs())
    cost, fits = _program(t, relabelled(h200_runs(), h200x2_environment()))
    assert cost.gpus == 2
    assert cost.predicted == pytest.approx(2 * one.predicted)
    assert cost.bound == pytest.approx(2 * one.bound)
    assert any("assumes each of the 2 GPUs pays the same" in n for n in fits.notes)
    assert cost.observed.bytes == 20 * MIB, "the observed cost is summed over both GPUs"


def test_the_2gpu_store_without_rule_runs_gives_no_fit(tmp_path):
    from advice_data import H200X2, _doc
    from pinreport.advice.evidence import StoredRun

    t = variant(tmp_path, "trace-dataloader-w4.json", two_gpus)
    cost, fits = _program(t, [StoredRun(str(H200X2), ResultsFile.of(str(H200X2), _doc(H200X2)))])
    assert not fits.by_family and cost.predicted is None and cost.bound is None
    assert cost.figure == 20 * MIB, "the verdict falls back to the observed cost"


def test_a_disturbed_figure_is_not_used():
    cost, _ = _program(trace("trace-dataloader-burst.json"), h200_runs())
    assert cost.observed.bytes is None
    assert "DISTURBED" in cost.observed.why
    assert cost.figure == cost.bound and cost.bound < 20 * MIB, "the fit, not the burst's 166 MiB"


def test_a_peak_too_short_to_sample_is_costed_from_the_fit(tmp_path):
    t = variant(tmp_path, "trace-dataloader-w4.json", no_samples)
    cost, _ = _program(t, h200_runs())
    assert cost.observed.bytes is None
    assert cost.predicted == pytest.approx(_program(trace("trace-dataloader-w4.json"), h200_runs())[0].predicted)
    assert gpus_used(t) == 1, "no samples: the GPUs of the calls"


def test_without_a_store_there_is_no_fit_and_the_figure_is_the_observed_one():
    cost, fits = _program(trace("trace-dataloader-w4.json"), [])
    assert cost.predicted is None and cost.figure == 10 * MIB
    assert any("no usable store fit" in n for n in cost.notes)


def test_each_call_site_is_costed_by_its_own_families():
    t = trace("trace-pin-each-api.json")
    sites = held_at_peak(t)
    fits = make_fits(t, h200_runs(), 1)
    costs = [scope_cost(s, hs, fits, 1, None, None) for s, hs in sites.items()]
    assert sum(c.held for c in costs) == t.pinned.peak_bytes
    assert {f for c in costs for f in c.by_family} == {"host_alloc", "host_register", "vmm_host", "pool_host"}
    budgeted = scope_cost("program", [h for hs in sites.values() for h in hs], fits, 1, None, 10 * GIB)
    assert budgeted.budget_share == pytest.approx(t.pinned.peak_bytes / (10 * GIB))
