"""The reservation rule at the band's edges, with and without straddling uncertainty."""

import math
from fractions import Fraction

import pytest
from builders import MiB, run_doc
from pinreport.analysis.rule import NVML_SUM_KEY, Band, RuleVerdict, judge_ratio, rule_results
from pinreport.base.errors import UsageError
from pinreport.readers.runs import Run

BAND = Band()  # 10%-20%
PINNED = 1000 * MiB
G = 2 * MiB  # uncertainty = 2/1000 of the ratio


def _verdict(cost_mib, granule=G, band=BAND):
    run = run_doc(size=PINNED, costs={"cuda.free": [cost_mib * MiB] * 7}, granules={"cuda.free": granule})
    (r,) = [r for r in rule_results(Run.from_json(run), band) if r.key == "cuda.free"]
    return r


@pytest.mark.parametrize(
    "cost_mib, expected",
    [
        (150, RuleVerdict.OK),
        (198, RuleVerdict.OK),  # 0.198 + 0.002 = 0.200: the upper edge is inside
        (199, RuleVerdict.AMBIGUOUS),  # 0.197 .. 0.201 straddles 0.20
        (202, RuleVerdict.AMBIGUOUS),  # 0.200 .. 0.204 touches the edge
        (203, RuleVerdict.VIOLATION),  # 0.201 .. 0.205 wholly above
        (102, RuleVerdict.OK),  # 0.100 .. 0.104: the lower edge is inside
        (101, RuleVerdict.AMBIGUOUS),  # 0.099 .. 0.103 straddles 0.10
        (98, RuleVerdict.AMBIGUOUS),  # 0.096 .. 0.100 touches the edge
        (97, RuleVerdict.OVER_RESERVED),  # 0.095 .. 0.099 wholly below
    ],
)
def test_band_edges_with_uncertainty(cost_mib, expected):
    r = _verdict(cost_mib)
    assert r.verdict == expected
    assert r.ratio == pytest.approx(cost_mib / 1000)
    assert r.uncertainty == pytest.approx(0.002)


def test_over_reserved_factor():
    r = _verdict(50)
    assert r.verdict == RuleVerdict.OVER_RESERVED
    assert r.factor == pytest.approx(2.0)  # reserving 10% is twice the 5% used
    assert "2x" in r.reason


def test_exact_edges_without_uncertainty():
    assert judge_ratio(0.2, 0, BAND) == (RuleVerdict.OK, None)
    assert judge_ratio(0.1, 0, BAND) == (RuleVerdict.OK, None)
    assert judge_ratio(Fraction(200001, 1000000), 0, BAND)[0] == RuleVerdict.VIOLATION
    verdict, factor = judge_ratio(0.05, 0, BAND)
    assert verdict == RuleVerdict.OVER_RESERVED and factor == pytest.approx(2.0)
    assert judge_ratio(0.15, 0.05, BAND)[0] == RuleVerdict.OK  # exactly 0.10 .. 0.20
    assert judge_ratio(0, 0, BAND) == (RuleVerdict.OVER_RESERVED, math.inf)


def test_unknown_granule_judges_the_point_value():
    r = _verdict(199, granule=None)
    assert r.verdict == RuleVerdict.OK
    assert r.uncertainty is None
    assert "granule unknown" in r.reason


def test_band_setting():
    assert Band.parse("0.05, 0.5") == Band(Fraction(1, 20), Fraction(1, 2))
    assert _verdict(250, band=Band.parse("0.10,0.30")).verdict == RuleVerdict.OK
    for bad in ("0.2", "a,b", "0.3,0.1", "-0.1,0.2"):
        with pytest.raises(UsageError):
            Band.parse(bad)


def test_pinned_bytes_is_size_times_count():
    run = run_doc(size=64 * MiB, count=64, costs={"cuda.free": [512 * MiB] * 7})
    (r,) = rule_results(Run.from_json(run), BAND)
    assert r.pinned == 4096 * MiB
    assert r.ratio == pytest.approx(0.125)
    assert r.verdict == RuleVerdict.OK


def test_only_dedicated_keys_are_judged_and_pageable_is_the_control():
    costs = {
        "cuda.free": [150 * MiB] * 7,
        "nvml.0.used": [150 * MiB] * 7,
        "dxgi.local.usage": [150 * MiB] * 7,
        "pdh.process.dedicated": [150 * MiB] * 7,
        "dxgi.nonlocal.usage": [1000 * MiB] * 7,
        "pdh.process.shared": [1000 * MiB] * 7,
        "nvml.0.reserved": [8 * MiB] * 7,
    }
    results = {r.key: r for r in rule_results(Run.from_json(run_doc(size=PINNED, costs=costs)), BAND)}
    for key in ("cuda.free", "nvml.0.used", "dxgi.local.usage", "pdh.process.dedicated"):
        assert results[key].verdict == RuleVerdict.OK
    for key in ("dxgi.nonlocal.usage", "pdh.process.shared"):
        assert results[key].verdict == RuleVerdict.NOT_JUDGED
        assert results[key].ratio == pytest.approx(1.0)
    assert "nvml.0.reserved" not in results
    control = rule_results(
        Run.from_json(run_doc(api="pageable", size=PINNED, costs={"cuda.free": [500 * MiB] * 7})), BAND
    )
    assert [r.verdict for r in control] == [RuleVerdict.NOT_JUDGED]


def test_multi_gpu_per_device_and_sum():
    costs = {f"nvml.{i}.used": [300 * MiB] * 7 for i in range(4)}
    results = {r.key: r for r in rule_results(Run.from_json(run_doc(size=2000 * MiB, gpus=4, costs=costs)), BAND)}
    for i in range(4):
        assert results[f"nvml.{i}.used"].verdict == RuleVerdict.OK  # 15% on each GPU
    total = results[NVML_SUM_KEY]
    assert total.ratio == pytest.approx(0.6)
    assert total.uncertainty == pytest.approx(4 * 2 / 2000)
    assert total.verdict == RuleVerdict.NOT_JUDGED


def test_held_cost_is_the_larger_stage():
    run = run_doc(size=PINNED, costs={"cuda.free": [100 * MiB] * 7})
    run["metrics"]["cost.after_first_use.cuda.free"]["median"] = 250 * MiB
    (r,) = rule_results(Run.from_json(run), BAND)
    assert r.stage == "cost.after_first_use"
    assert r.verdict == RuleVerdict.VIOLATION


def test_failed_and_other_kind_runs_are_not_judged():
    assert rule_results(Run.from_json(run_doc(status="failed")), BAND) == []
    assert rule_results(Run.from_json(run_doc(kind="transfer")), BAND) == []
