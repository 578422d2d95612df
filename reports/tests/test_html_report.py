"""Unit tests of the HTML report: chart geometry, data preparation, rendering, the command."""

import json
import math

import pytest
from builders import GRANULE, GiB, MiB, add_to_store, make_store, results_doc, run_doc, write_json
from conftest import upgraded
from pinreport.base.labels import size_label
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import brief_rows
from pinreport.cli import main
from pinreport.pipeline.report import run_pipeline
from pinreport.readers.bench_rows import BenchRows
from pinreport.readers.results import ResultsFile, load_results
from pinreport.readers.runs import Run
from pinreport.render.banner import INFRASTRUCTURE, PASS, REGRESSION, RULE_VIOLATION
from pinreport.render.context import page_context
from pinreport.render.environment_table import environment_rows
from pinreport.render.page import render_html
from pinreport.render.svg_charts import (
    BOTTOM,
    HEIGHT,
    LEFT,
    RIGHT,
    TOP,
    WIDTH,
    Band,
    Mark,
    Series,
    line_chart,
    linear_ticks,
    log2_ticks,
    nice_step,
)
from pinreport.store.reading import read_store

# --- geometry ---------------------------------------------------------------------------------


def test_nice_steps_and_ticks():
    assert nice_step(10, 5) == 2
    assert nice_step(0.2, 5) == pytest.approx(0.05)
    assert nice_step(7, 5) == 2
    assert linear_ticks(0, 10) == [0, 2, 4, 6, 8, 10]
    assert linear_ticks(-0.003, 0.2) == pytest.approx([-0.05, 0, 0.05, 0.1, 0.15, 0.2])
    assert log2_ticks(64 * MiB, 4 * GiB) == [2.0**e for e in range(26, 33)]
    assert len(log2_ticks(1, 2**40, max_ticks=9)) <= 9


def test_line_chart_maps_corners_and_orders_points():
    c = line_chart("c", "t", "x", "y", [Series("a", [(4.0, 10.0), (1.0, 0.0)])], x_log=True)
    assert len(c.series) == 1
    pts = c.series[0]["points"]
    # sorted by x: (1, 0) at the bottom-left corner, (4, 10) at the right edge, top tick 10
    assert (pts[0][0], pts[0][1]) == (LEFT, HEIGHT - BOTTOM)
    assert (pts[1][0], pts[1][1]) == (WIDTH - RIGHT, TOP)
    assert c.series[0]["path"] == f"M{LEFT} {HEIGHT - BOTTOM} L{WIDTH - RIGHT} {TOP}"
    assert [label for _, label in c.x_ticks] == ["1", "2", "4"]
    assert c.x_ticks[1][0] == pytest.approx((LEFT + WIDTH - RIGHT) / 2)  # 2 is halfway on log2
    assert c.table == [("a", "1", "0"), ("a", "4", "10")]


def test_line_chart_band_marks_and_log_drops():
    c = line_chart(
        "c",
        "t",
        "x",
        "y",
        [Series("a", [(0.0, 0.05), (2.0, 0.05), (8.0, 0.15)]), Series("fit", [(2.0, 0.1)], dashed=True)],
        x_log=True,
        band=Band(0.1, 0.2, "band"),
        hlines=[Mark(0.12, "reserve")],
        vmarks=[Mark(4.0, "driver 2")],
    )
    assert "1 point(s) at x <= 0" in c.note
    assert len(c.series[0]["points"]) == 2
    assert c.series[1]["reference"] and c.series[1]["dash"]
    # y axis 0 .. 0.2: band from 0.2 (top) to 0.1 (middle)
    assert c.band["y_top"] == TOP
    assert c.band["y_bottom"] == pytest.approx((TOP + HEIGHT - BOTTOM) / 2)
    assert TOP < c.hlines[0]["y"] < c.band["y_bottom"]
    assert c.vmarks[0]["x"] == pytest.approx((LEFT + WIDTH - RIGHT) / 2)  # 4 between 2 and 8


def test_the_table_holds_the_data_not_the_reference_lines():
    data = Series("pinned", [(1.0, 8.0), (139.0, 8.0)])
    ref = Series("y = x", [(0.0, 0.0), (139.0, 139.0)], dashed=True)
    c = line_chart("c", "t", "x", "y", [data, ref])
    assert c.table == [("pinned", "1", "8"), ("pinned", "139", "8")]
    assert [s["reference"] for s in c.series] == [False, True]  # the line is still drawn


def test_line_chart_empty_and_single_point_do_not_divide_by_zero():
    c = line_chart("c", "t", "x", "y", [])
    assert c.series == [] and c.y_ticks
    c = line_chart("c", "t", "x", "y", [Series("a", [(5.0, 3.0)])])
    x, y, _ = c.series[0]["points"][0]
    assert math.isfinite(x) and LEFT <= x <= WIDTH - RIGHT and TOP <= y <= HEIGHT - BOTTOM


def test_size_label():
    assert size_label(64 * MiB) == "64MiB"
    assert size_label(4 * GiB) == "4GiB"
    assert size_label(3 * MiB + 1) == "3.00 MiB"


# --- fixtures ---------------------------------------------------------------------------------

SIZES = (256 * MiB, 1 * GiB)


def _runs(extra: int, pageable: bool = True, scenario: str = "quick-overhead") -> list[dict]:
    runs = []
    for size in SIZES:
        cost = size * 11 // 100 + extra  # 11% of the pinned bytes: inside the band by more than a granule
        costs = {"cuda.free": [cost] * 7, "nvml.0.used": [cost] * 7}
        runs.append(run_doc(scenario=scenario, size=size, costs=costs, timings={"alloc": [10.0] * 7}))
    if pageable:
        runs.append(run_doc(scenario=scenario, api="pageable", size=64 * MiB, costs={"cuda.free": [0] * 7}))
    return runs


def regression_store(tmp_path, extra=16 * MiB, **current_kw):
    """Two nights of 572.16, then a 580.65.06 file whose cost is `extra` higher."""
    store = make_store(tmp_path / "store")
    for day in (1, 2):
        add_to_store(store, results_doc(_runs(0), release="572.16", started_at=f"2025-06-0{day}T02:00:00Z"))
    doc = results_doc(_runs(extra), release="580.65.06", started_at="2025-06-03T02:00:00Z", **current_kw)
    return store, write_json(tmp_path / "current.json", doc)


def report_of(store, current, bench=None):
    return page_context(run_pipeline(load_results(current), read_store(store), bench))


# --- data preparation -------------------------------------------------------------------------


def test_pass_when_nothing_changed(tmp_path):
    store, current = regression_store(tmp_path, extra=0)
    ctx = report_of(store, current)
    assert ctx["verdict"] == PASS and ctx["flagged"] == 0 and not ctx["replayed"]


def test_regression_flags_rows_first_and_links_to_charts(tmp_path):
    store, current = regression_store(tmp_path)
    ctx = report_of(store, current)
    assert ctx["verdict"] == REGRESSION and ctx["exit_code"] == 1
    rows = ctx["rows"]
    flagged = [r for r in rows if r["flag"]]
    # 2 sizes x 2 probes x 2 held stages against the previous release
    assert len(flagged) == 8
    assert rows[: len(flagged)] == flagged
    assert all(r["status"] == "REGRESSION" and r["against"] == "previous" for r in flagged)
    assert flagged[0]["delta"] == "16.00 MiB" and flagged[0]["test"] == f"granule {GRANULE // MiB}.00 MiB"
    chart_ids = {c.id for c in ctx["cost_charts"]}
    assert {r["link"][1:] for r in flagged} <= chart_ids


def test_cost_chart_one_line_per_release_and_probe(tmp_path):
    store, current = regression_store(tmp_path)
    ctx = report_of(store, current)
    chart = next(c for c in ctx["cost_charts"] if c.id == "cost-quick-overhead-cudaMallocHost")
    names = [s["name"] for s in chart.series]
    assert names == [
        "572.16 · cudaMemGetInfo",
        "572.16 · NVML used (GPU 0)",
        "580.65.06 · cudaMemGetInfo",
        "580.65.06 · NVML used (GPU 0)",
    ]
    assert [len(s["points"]) for s in chart.series] == [2, 2, 2, 2]
    # the 580.65.06 line lies above (smaller pixel y) the 572.16 line at every size
    assert all(a[1] < b[1] for a, b in zip(chart.series[2]["points"], chart.series[0]["points"], strict=True))


def test_rule_violation_and_the_reserve(tmp_path):
    store, current = regression_store(tmp_path, extra=64 * MiB)  # 28 MiB + 64 MiB on 256 MiB: ratio 0.36
    ctx = report_of(store, current)
    assert ctx["verdict"] == RULE_VIOLATION and REGRESSION in ctx["verdict_also"]
    assert any(r["status"] == "VIOLATION" and r["flag"] and r["link"] == "#rule-quick-overhead" for r in ctx["rows"])
    (rule,) = ctx["rule_charts"]
    names = [s["name"] for s in rule.series]
    assert names[0] == "cudaMallocHost · cudaMemGetInfo"
    assert names[1].startswith("fit (") and names[2].startswith("95% prediction bound (")
    assert rule.band is not None and len(rule.hlines) == 1
    assert [r["api"] for r in ctx["reserve_rows"]] == ["cudaMallocHost"]


def test_infrastructure_failure_wins(tmp_path):
    store, current = regression_store(tmp_path, controls={"null": {"verdict": "FAIL", "error": "noisy probe"}})
    ctx = report_of(store, current)
    assert ctx["verdict"] == INFRASTRUCTURE and ctx["verdict_also"] == [REGRESSION]
    assert any("noisy probe" in p for p in ctx["infrastructure"])


def test_environment_differences_besides_the_driver_are_highlighted():
    a = results_doc(_runs(0), release="572.16", os_build="build 1")
    b = results_doc(_runs(0), release="580.65.06", os_build="build 2")
    rows = environment_rows(ResultsFile("b.json", b), [ResultsFile("a.json", a)])
    changed = [r for r in rows if r["changed"]]
    assert [r["field"] for r in changed] == ["os.os_build"]
    assert changed[0]["current"] == "build 2" and changed[0]["baseline"] == "build 1"
    assert rows[0] is changed[0]
    assert not any(r["field"].startswith("driver.release") for r in rows)


def test_history_marks_driver_changes(tmp_path):
    store, current = regression_store(tmp_path)
    ctx = report_of(store, current)
    assert ctx["nights"] == 3
    hist = {c.id: c for c in ctx["history_charts"]}
    chart = hist["history-quick-overhead-cudaMallocHost"]
    assert len(chart.series) == 2  # one per size
    assert [v["label"] for v in chart.vmarks] == ["driver 580.65.06"]


def test_not_measured_sections_are_named_not_faked(tmp_path):
    store, current = regression_store(tmp_path)
    ctx = report_of(store, current)
    charts = [m["chart"] for m in ctx["not_measured"]]
    assert len(charts) == 8 and charts[2] == "multi-GPU per-device cost (claim 3)"
    assert ctx["not_measured"][3]["why"] == "no 'workers' runs in this results file"
    assert ctx["bandwidth_charts"] == [] and ctx["kind_sections"] == []
    html = render_html(ctx)
    assert html.count("not measured in this run") == 8


# --- the brief's claims -----------------------------------------------------------------------


def test_claims_on_the_real_h200_data(repo_root):
    current = load_results(upgraded(repo_root / "results/h200-quick/results.json"))
    bench = [str(repo_root / f"results/h200-bench/{n}.json") for n in ("transfer_bench", "staging_bench")]
    ctx = page_context(run_pipeline(current, read_store(repo_root / "no-such-store"), bench))
    claims = {int(c.n): c for c in ctx["claims"]}
    assert len(claims) == 14
    assert claims[1].verdict == "CONFIRMED" and "not exactly 0" in claims[1].evidence
    assert claims[6].verdict == "REFUTED" and "h2d 7.8x" in claims[6].evidence
    assert claims[7].verdict == "CONFIRMED"
    assert claims[10].verdict == "NOT TESTED HERE" and "48 OVER-RESERVED" in claims[10].evidence
    assert {claims[n].verdict for n in (2, 3, 4, 5, 8, 9, 11, 12, 13, 14)} == {"NOT TESTED HERE"}
    assert "NOT Windows" in ctx["platform_note"] and "580.159.04" in ctx["platform_note"]
    assert ctx["bandwidth_charts"][0].id == "bandwidth-link"
    assert len(ctx["bandwidth_charts"]) == 5  # the link chart and 4 staging charts (h2d/d2h x 1/4 GiB)


def test_claims_on_wddm_data(tmp_path):
    viol = results_doc(_runs(64 * MiB), driver_model="WDDM", platform="windows")
    ok = results_doc(_runs(0), driver_model="WDDM", platform="windows")

    class R:  # only the rule results are read
        def __init__(self, doc):
            from pinreport.analysis.rule import Band, rule_results

            self.rule = [x for run in doc["runs"] for x in rule_results(Run.from_json(run), Band())]

    by = {
        c.n: c.verdict for c in brief_rows(ClaimData(ResultsFile("viol.json", viol), tuple(R(viol).rule), BenchRows()))
    }
    assert by["1"] == "CONFIRMED" and by["10"] == "REFUTED"
    by = {c.n: c.verdict for c in brief_rows(ClaimData(ResultsFile("ok.json", ok), tuple(R(ok).rule), BenchRows()))}
    assert by["10"] == "CONFIRMED" and by["6"] == "NOT TESTED HERE"


# --- rendering and the command ----------------------------------------------------------------


def test_replayed_current_carries_the_banner(tmp_path):
    store, current = regression_store(tmp_path, replay_of="results/h200-quick/results.json")
    ctx = report_of(store, current)
    assert ctx["replayed"]
    html = render_html(ctx)
    assert 'id="replayed"' in html and "REPLAYED DATA" in html


def test_page_is_self_contained_and_escaped(tmp_path):
    store, current = regression_store(tmp_path)
    doc = json.loads(current.read_text())
    doc["environment"]["os"]["os_build"] = "<script>alert(1)</script>"
    write_json(current, doc)
    html = render_html(report_of(store, current))
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<link" not in html and " src=" not in html
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_cli_writes_the_page_and_exits_like_compare(tmp_path, capsys):
    store, current = regression_store(tmp_path)
    out = tmp_path / "r.html"
    assert main(["html", "--store", str(store), "--current", str(current), "-o", str(out)]) == 1
    assert "REGRESSION" in capsys.readouterr().out
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert main(["html", "--store", str(store), "--current", str(tmp_path / "missing.json"), "-o", str(out)]) == 2


def test_cost_chart_of_an_api_only_an_older_release_measured(tmp_path):
    store = make_store(tmp_path / "store")
    old = _runs(0) + [run_doc(api="cudaHostRegister", size=256 * MiB, costs={"cuda.free": [28 * MiB] * 7})]
    add_to_store(store, results_doc(old, release="572.16", started_at="2025-06-01T02:00:00Z"))
    current = write_json(tmp_path / "c.json", results_doc(_runs(0), release="580.65.06"))
    ctx = report_of(store, current)
    chart = next(c for c in ctx["cost_charts"] if c.id == "cost-quick-overhead-cudaHostRegister")
    assert [s["name"] for s in chart.series] == ["572.16 · cudaMemGetInfo"]


def test_replayed_platform_note_does_not_claim_a_measurement(tmp_path):
    store, current = regression_store(tmp_path, replay_of="results/h200-quick/results.json")
    ctx = report_of(store, current)
    assert ctx["platform_note"].startswith("REPLAYED from results/h200-quick/results.json")
    assert "Judged on REPLAYED data" in render_html(ctx)
