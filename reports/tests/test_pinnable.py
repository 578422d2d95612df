"""Max pinnable against free VRAM (beyond the brief, pinnable_fit.py): the points, the slope fitted on the
uncapped points only, the claim per file, the Windows cap beside it, the report's chart.

Every document here is SYNTHETIC TEST DATA made by builders.pinnable_run. The WDDM document's
three points are the public user table (RTX 3090 on Windows, cudaMemGetInfo as the probe):
free 7972 MiB -> max pinnable 8192 MiB (capped at the 8 GiB cap), 1828 MiB -> 2816 MiB,
804 MiB -> 1536 MiB; its free targets, host RAM and stop errors are made up.
"""

import pytest
from builders import GiB, MiB, kind_run, pinnable_run, results_doc, run_doc, write_json
from pinreport.analysis import kind_results, pinnable_fit
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import further_rows
from pinreport.pipeline.report import run_pipeline
from pinreport.readers.bench_rows import BenchRows
from pinreport.readers.results import ResultsFile, load_results
from pinreport.readers.runs import Run
from pinreport.render.context import page_context
from pinreport.render.page import render_html
from pinreport.store.reading import read_store


def _runs(doc):
    return ResultsFile.of("results.json", doc).runs


def _collect(doc):
    return pinnable_fit.collect_runs(_runs(doc))


def _judge(doc):
    return pinnable_fit.judge(_runs(doc))


# The public table (MiB): (free before the search, max pinnable, capped).
PUBLIC_TABLE = ((7972, 8192, True), (1828, 2816, False), (804, 1536, False))


def wddm_doc(**kw):
    """Synthetic: the public table as three runs on a WDDM machine with 64 GiB of host RAM."""
    runs = [
        pinnable_run("all" if capped else free * MiB, free * MiB, pinned * MiB, capped, **kw)
        for free, pinned, capped in PUBLIC_TABLE
    ]
    return results_doc(runs, platform="windows", driver_model="WDDM", gpu="NVIDIA GeForce RTX 3090")


def linux_doc():
    """Synthetic: every search pins its 16 GiB cap at once, at 1, 2, 8 GiB and all (~139 GiB) free."""
    runs = [
        pinnable_run(target, free, 16 * GiB, True, cap=16 * GiB, host_ram=256 * GiB, vram_total=141 * GiB)
        for target, free in ((1 * GiB, 1 * GiB), (2 * GiB, 2 * GiB), (8 * GiB, 8 * GiB), ("all", 139 * GiB))
    ]
    return results_doc(runs)


def _row(doc):
    (row,) = further_rows(ClaimData(ResultsFile("results.json", doc), (), BenchRows()))
    return row


# --- points and the fit -------------------------------------------------------------------------


def test_points_of_the_public_table():
    (api,) = _collect(wddm_doc())
    points = _collect(wddm_doc())[api]
    assert api == "cudaMallocHost"
    assert [(p.free_before / MiB, p.max_pinnable / MiB, p.capped) for p in points] == [
        (804, 1536, False),
        (1828, 2816, False),
        (7972, 8192, True),
    ]
    assert [p.free_target for p in points] == [804 * MiB, 1828 * MiB, "all"]
    assert points[-1].over_host_ram == pytest.approx(8 / 64)
    assert points[0].stopped_by == ("cudaErrorMemoryAllocation: out of memory",)
    assert points[0].small_after_failure == (True,) * 7 and points[-1].small_after_failure == ()


def test_slope_from_the_two_uncapped_points_of_the_public_table():
    fit = pinnable_fit.fit_slope(_collect(wddm_doc())["cudaMallocHost"])
    # (2816 - 1536) / (1828 - 804) = 1280 / 1024; intercept 1536 - 1.25 x 804 = 531 MiB.
    assert fit.uncapped == 2
    assert fit.slope == pytest.approx(1.25)
    assert fit.intercept == pytest.approx(531 * MiB)
    assert fit.bound == pytest.approx((1.25, 1.25))
    assert pinnable_fit.NEAR_ONE[0] <= fit.bound[0] and fit.bound[1] <= pinnable_fit.NEAR_ONE[1]


def test_fit_and_bound_by_hand_over_three_uncapped_points():
    pts = [
        pinnable_fit.Point(f"r{i}", "a", x, x, y, False, None)
        for i, (x, y) in enumerate(((1 * GiB, 2 * GiB), (2 * GiB, 3 * GiB), (4 * GiB, 4 * GiB)))
    ]
    fit = pinnable_fit.fit_slope(pts)
    # In GiB: mean x 7/3, mean y 3; Sxy = 4/3 + 0 + 5/3 = 3, Sxx = 42/9 = 14/3: slope 9/14,
    # intercept 3 - 9/14 x 7/3 = 1.5 GiB.
    assert fit.slope == pytest.approx(9 / 14)
    assert fit.intercept == pytest.approx(1.5 * GiB)
    assert fit.bound == pytest.approx((0.5, 1.0))  # pairwise 1, 2/3, 1/2


def test_fit_needs_two_distinct_uncapped_free_values():
    same_x = [pinnable_fit.Point(f"r{i}", "a", 1, 1 * GiB, y, False, None) for i, y in enumerate((2 * GiB, 3 * GiB))]
    fit = pinnable_fit.fit_slope(same_x)
    assert fit.slope is None and fit.bound is None and fit.uncapped == 2
    assert fit.problem == "2 uncapped point(s) with distinct free VRAM, need 2"


def test_points_fall_back_to_the_repeats_data():
    omit = ("sweep.free_before", "sweep.max_pinnable", "sweep.capped", "sweep.max_pinnable_over_host_ram")
    by_metric = _collect(wddm_doc())["cudaMallocHost"]
    by_data = _collect(wddm_doc(omit=omit))["cudaMallocHost"]
    assert "sweep.free_before" not in by_data and by_data == by_metric


def test_runs_without_free_target_not_ok_or_disturbed_give_no_point():
    old = kind_run("sweep", {"sweep.max_pinnable": [8 * GiB] * 7}, {"mode": "max_pinnable", "cap": 8 * GiB})
    failed = pinnable_run(1 * GiB, 1 * GiB, 2 * GiB, False)
    failed["status"] = "failed"
    disturbed = pinnable_run(2 * GiB, 2 * GiB, 3 * GiB, False)
    disturbed["metrics"]["sweep.free_before"]["disturbed"] = True
    doc = results_doc([old, failed, disturbed, run_doc()])
    assert _collect(doc) == {}
    j = _judge(doc)
    assert j.outcome == pinnable_fit.Outcome.NOT_TESTED


# --- the claim ----------------------------------------------------------------------------------


def test_public_table_confirms_on_wddm():
    j = _judge(wddm_doc())
    assert j.outcome == pinnable_fit.Outcome.CONFIRMED
    assert "free 7.79 GiB -> at least 8.00 GiB (capped)" in j.evidence
    assert "free 1.79 GiB -> 2.75 GiB" in j.evidence and "free 804.00 MiB -> 1.50 GiB" in j.evidence
    assert "slope 1.25 over 2 uncapped points (pairwise 1.25 to 1.25)" in j.evidence
    assert "stopped by cudaErrorMemoryAllocation: out of memory" in j.evidence
    assert "the small pin after a failure succeeded in 14 of 14 repeat(s)" in j.evidence
    row = _row(wddm_doc())
    assert row.n == "beyond the brief: largest pinnable size" and row.claim.startswith("Max pinnable tracks free VRAM")
    assert row.verdict == "CONFIRMED" and row.evidence.startswith("on windows, WDDM: cudaMallocHost: CONFIRMED")
    assert row.beside == (
        "Windows cap (reported, not judged): cudaMallocHost: at least 0.125 of host RAM at the most free VRAM "
        "(7.79 GiB free)"
    )


def test_every_point_capped_far_above_free_vram_refutes_on_linux():
    j = _judge(linux_doc())
    assert j.outcome == pinnable_fit.Outcome.REFUTED
    assert "with 1.00 GiB free it pinned at least 16.00 GiB, beyond 2 x free + 1.00 GiB = 3.00 GiB" in j.evidence
    assert "0 uncapped point(s) with distinct free VRAM, need 2" in j.evidence
    row = _row(linux_doc())
    assert row.verdict == "REFUTED" and row.evidence.startswith("on linux: ")
    assert row.beside.startswith("Windows cap: not judged on linux; here cudaMallocHost: at least 0.0625 of")


def test_flat_slope_refutes():
    runs = [pinnable_run(f * GiB, f * GiB, p * MiB, False) for f, p in ((4, 2048), (8, 2560))]
    j = _judge(results_doc(runs, driver_model="WDDM", platform="windows"))
    # slope 512 MiB / 4 GiB = 0.125: within [-0.25, 0.25]; 2 GiB < 2 x 4 GiB + 1 GiB at the least free.
    assert j.outcome == pinnable_fit.Outcome.REFUTED
    assert "flat: the slope bound lies within [-0.25, 0.25]" in j.evidence and "slope 0.125" in j.evidence


def test_one_uncapped_point_is_inconclusive():
    runs = [pinnable_run(1 * GiB, 1 * GiB, 1536 * MiB, False), pinnable_run("all", 20 * GiB, 8 * GiB, True)]
    doc = results_doc(runs, driver_model="WDDM", platform="windows")
    assert _judge(doc).outcome == pinnable_fit.Outcome.AMBIGUOUS
    row = _row(doc)
    assert row.verdict == "NOT TESTED HERE"
    assert row.evidence.startswith("inconclusive: on windows, WDDM: cudaMallocHost: AMBIGUOUS, 1 uncapped")


def test_a_slope_outside_both_ranges_is_inconclusive():
    runs = [pinnable_run(f * GiB, f * GiB, p * GiB, False) for f, p in ((2, 2), (4, 8))]  # slope 3
    j = _judge(results_doc(runs))
    assert j.outcome == pinnable_fit.Outcome.AMBIGUOUS
    assert "the slope bound is not within [0.5, 1.5] nor [-0.25, 0.25]" in j.evidence


def test_a_capped_point_is_never_fitted():
    # Uncapped: 2 GiB free -> 3 GiB, 4 GiB -> 5 GiB (slope 1). Capped at 4 GiB with 8 GiB free:
    # fitted as if uncapped, the pairwise slopes would be 1, 1/6 and -1/4: inconclusive.
    def doc(capped):
        runs = [pinnable_run(f * GiB, f * GiB, p * GiB, False, cap=8 * GiB) for f, p in ((2, 3), (4, 5))]
        runs.append(pinnable_run(8 * GiB, 8 * GiB, 4 * GiB, capped, cap=4 * GiB))
        return results_doc(runs, driver_model="WDDM", platform="windows")

    fit = pinnable_fit.fit_slope(_collect(doc(True))["cudaMallocHost"])
    assert fit.uncapped == 2 and fit.slope == pytest.approx(1.0) and fit.bound == pytest.approx((1.0, 1.0))
    assert _judge(doc(True)).outcome == pinnable_fit.Outcome.CONFIRMED
    as_uncapped = pinnable_fit.fit_slope(_collect(doc(False))["cudaMallocHost"])
    assert as_uncapped.bound == pytest.approx((-0.25, 1.0))
    assert _judge(doc(False)).outcome == pinnable_fit.Outcome.AMBIGUOUS


def test_capped_from_the_repeats_when_the_metric_is_missing():
    run = pinnable_run(8 * GiB, 8 * GiB, 4 * GiB, True, cap=4 * GiB, omit=("sweep.capped",))
    (point,) = _collect(results_doc([run]))["cudaMallocHost"]
    assert point.capped
    run["repeats"][0]["data"]["capped"] = False  # not every ok repeat capped: not a lower bound
    (point,) = _collect(results_doc([run]))["cudaMallocHost"]
    assert not point.capped


def test_a_timed_out_point_is_a_lower_bound():
    # Uncapped 2 -> 3 and 4 -> 5 GiB (slope 1); 8 GiB free timed out at 4 GiB: left out of the fit.
    runs = [pinnable_run(f * GiB, f * GiB, p * GiB, False) for f, p in ((2, 3), (4, 5), (8, 4))]
    runs[-1]["repeats"][3]["data"]["timed_out"] = True
    (point,) = [p for p in _collect(results_doc(runs))["cudaMallocHost"] if p.timed_out]
    assert point.lower_bound and not point.capped
    assert point.describe() == "free 8.00 GiB -> at least 4.00 GiB (timed out)"
    fit = pinnable_fit.fit_slope(_collect(results_doc(runs))["cudaMallocHost"])
    assert fit.uncapped == 2 and fit.slope == pytest.approx(1.0)


def test_the_failure_path_gives_no_point_but_its_errors():
    # enforce_host_limit on: the OS refuses more than 2 GiB, so it stops near 2 GiB whatever is free.
    fail = pinnable_run(1 * GiB, 1 * GiB, 1984 * MiB, False, stopped_by="cudaErrorMemoryAllocation", small_ok=False)
    fail["plan"]["params"].update(host_limit=2 * GiB, enforce_host_limit="on")
    doc = results_doc([*linux_doc()["runs"], fail])
    assert [p.run_id for p in _collect(doc)["cudaMallocHost"]] == [r["id"] for r in linux_doc()["runs"]]
    j = _judge(doc)
    assert j.outcome == pinnable_fit.Outcome.REFUTED
    assert j.evidence.endswith(
        "failure path (enforce_host_limit on: bounded by host_limit, not a point): cudaMallocHost "
        "(host_limit 2.00 GiB): stopped by cudaErrorMemoryAllocation; "
        "the small pin after a failure succeeded in 0 of 7 repeat(s)"
    )


def test_apis_are_judged_apart_and_a_refutation_wins():
    tracks = [pinnable_run(f * MiB, f * MiB, p * MiB, False) for f, p, _ in PUBLIC_TABLE[1:]]
    flat = [pinnable_run(f * GiB, f * GiB, 2 * GiB, False, api="cudaHostRegister") for f in (4, 8)]
    j = _judge(results_doc(tracks + flat))
    assert j.outcome == pinnable_fit.Outcome.REFUTED
    assert "cudaHostRegister: REFUTED, flat" in j.evidence and "cudaMallocHost: CONFIRMED" in j.evidence


def test_no_free_target_runs_is_not_tested():
    old = kind_run("sweep", {"sweep.max_pinnable": [8 * GiB] * 7}, {"mode": "max_pinnable", "cap": 8 * GiB})
    row = _row(results_doc([run_doc(), old]))
    assert row.verdict == "NOT TESTED HERE"
    assert row.evidence == "no ok max_pinnable run with free_target here (older files search without a fill)"
    assert row.beside == ""


# --- the report -----------------------------------------------------------------------------------


def test_sweep_headlines_carry_the_new_metrics():
    assert kind_results.metric_columns("sweep", [Run.from_json(r) for r in wddm_doc()["runs"]]) == [
        "sweep.max_pinnable",
        "sweep.free_before",
        "sweep.capped",
        "sweep.max_pinnable_over_host_ram",
        "sweep.small_after_failure_ok",
    ]


def test_chart_and_claim_row_in_the_rendered_report(tmp_path):
    current = write_json(tmp_path / "wddm.json", wddm_doc())
    ctx = page_context(run_pipeline(load_results(current), read_store(tmp_path / "none")))
    (section,) = [s for s in ctx["kind_sections"] if s["kind"] == "sweep"]
    (chart,) = section["charts"]
    assert chart.title == "max pinnable against free VRAM"
    assert [s["name"] for s in chart.series] == [
        "cudaMallocHost",
        "cudaMallocHost · capped or timed out",
        "fit (cudaMallocHost): slope 1.25",
        "y = x",
    ]
    assert chart.table[:3] == [
        ("cudaMallocHost", "0.785", "1.5"),
        ("cudaMallocHost", "1.79", "2.75"),
        ("cudaMallocHost · capped or timed out", "7.79", "8"),
    ]
    capped = chart.series[1]
    assert capped["lower_bound"] and capped["path"] == "" and capped["color"] == chart.series[0]["color"]
    html = render_html(ctx)
    assert 'id="sweep-max-pinnable-free-vram"' in html and "max pinnable against free VRAM</a>" in html
    assert "<title>cudaMallocHost: 1.79, 2.75</title>" in html
    assert html.count('class="lower-bound"') == 1
    assert "<title>cudaMallocHost · capped or timed out: 7.79, 8 (a lower bound)</title>" in html
    assert (
        "<td>beyond the brief: largest pinnable size</td>" in html
        and "Windows cap (reported, not judged): cudaMallocHost: at least 0.125" in html
    )
    assert len(ctx["claims"]) == 14 and ctx["further_claims"][0].verdict == "CONFIRMED"


def test_no_chart_without_free_target_runs(tmp_path):
    old = kind_run("sweep", {"sweep.max_pinnable": [8 * GiB] * 7}, {"mode": "max_pinnable", "cap": 8 * GiB})
    current = write_json(tmp_path / "old.json", results_doc([old]))
    ctx = page_context(run_pipeline(load_results(current), read_store(tmp_path / "none")))
    (section,) = [s for s in ctx["kind_sections"] if s["kind"] == "sweep"]
    assert section["charts"] == []
