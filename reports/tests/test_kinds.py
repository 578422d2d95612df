"""The scenario kinds of results schema 2 (docs/kinds.md) through pinreport: comparisons of the
new units, the reservation rule on capacity runs, the report's kind sections and the claims."""

import json
import re
import subprocess

import pytest
from builders import (
    GiB,
    MiB,
    add_to_store,
    churn_run,
    kind_run,
    kinds_doc,
    make_store,
    results_doc,
    run_doc,
    write_json,
)
from conftest import PINBENCH
from pinreport.analysis import kind_results
from pinreport.analysis.compare import compare, higher_is_worse
from pinreport.analysis.rule import Band, RuleVerdict, rule_results
from pinreport.analysis.stats import Verdict
from pinreport.base.probe_keys import CAPACITY_LOSS
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import brief_rows
from pinreport.pipeline.report import run_pipeline
from pinreport.readers.bench_rows import BenchRows
from pinreport.readers.results import ResultsFile, load_results
from pinreport.readers.runs import Run
from pinreport.render.context import page_context
from pinreport.render.page import render_html
from pinreport.store.reading import read_store


def test_directions_of_kind_metrics():
    assert higher_is_worse("capacity.loss") and higher_is_worse("churn.creep.cuda.free")
    assert not higher_is_worse("capacity.largest_with") and not higher_is_worse("capacity.read_ratio")
    assert not higher_is_worse("fragmentation.largest_after") and not higher_is_worse("sweep.max_pinnable")
    assert higher_is_worse("fragmentation.largest_loss") and higher_is_worse("register_window.time_ratio")


# --- compare with a store -----------------------------------------------------------------------


def _capacity(loss_mib, read_ratio=0.98, resolution=None, failed=0, size=1 * GiB, api="cudaMallocHost"):
    params = {"free_target": 12 * GiB}
    if resolution:
        params["resolution"] = resolution
    return kind_run(
        "capacity",
        {
            "capacity.loss": [m * MiB for m in loss_mib],
            "capacity.read_ratio": read_ratio if isinstance(read_ratio, list) else [read_ratio] * 7,
            "capacity.pin_failed": [failed],
        },
        params,
        api=api,
        size=size,
        granules={"capacity.loss": None},
    )


def _compare(tmp_path, old_runs, new_runs, nights=1):
    store = make_store(tmp_path / "store")
    for i in range(nights):
        add_to_store(store, results_doc(old_runs, release="572.16", started_at=f"2025-06-01T0{i}:00:00Z"))
    current = write_json(tmp_path / "c.json", results_doc(new_runs, started_at="2025-06-02T02:00:00Z"))
    report = compare(load_results(current), read_store(store))
    return report, {(v.metric, v.kind): v for v in report.verdicts}


def test_capacity_loss_regresses_by_the_byte_rule_on_its_samples(tmp_path):
    old = _capacity([100, 101, 102, 100, 101, 100, 102])
    new = _capacity([150, 151, 152, 150, 151, 150, 152])
    report, v = _compare(tmp_path, [old], [new])
    c = v[("capacity.loss", "previous")]
    assert c.verdict == Verdict.REGRESSION and c.unit == "bytes"
    assert c.comparison.baseline_median == 101 * MiB and c.comparison.current_median == 151 * MiB
    assert "every sample beyond the baseline's range" in c.comparison.reason
    assert report.exit_code() == 1
    assert not report.bad_input and not report.infrastructure


def test_capacity_loss_under_one_bisection_step_is_same(tmp_path):
    # +3 MiB is beyond the 5% floor and the ranges are separated, but less than the 4 MiB step
    old = _capacity([50] * 7, resolution=4 * MiB)
    new = _capacity([53] * 7, resolution=4 * MiB)
    _, v = _compare(tmp_path, [old], [new])
    c = v[("capacity.loss", "previous")].comparison
    assert c.verdict == Verdict.SAME and "less than one granule 4.00 MiB" in c.reason


def test_ratio_metrics_take_the_time_floor_and_counts_are_not_compared(tmp_path):
    old = _capacity([100] * 7, read_ratio=[0.95, 0.96, 0.97, 0.95, 0.96, 0.97, 0.96])
    dropped_20 = _capacity([100] * 7, read_ratio=[0.76, 0.77, 0.78, 0.76, 0.77, 0.78, 0.77])  # -20%: < 50%
    _, v = _compare(tmp_path / "one", [old], [dropped_20])
    # a ratio is as noisy as a time: one stored night does not tell the night-to-night spread
    assert v[("capacity.read_ratio", "previous")].verdict == Verdict.AMBIGUOUS
    assert (
        "too few nights: 1 stored night(s) measured it, 2 needed"
        in v[("capacity.read_ratio", "previous")].comparison.reason
    )
    _, v = _compare(tmp_path, [old], [dropped_20], nights=2)
    assert v[("capacity.read_ratio", "previous")].verdict == Verdict.SAME
    assert "within max(100% floor (a fall to 1/2)" in v[("capacity.read_ratio", "previous")].comparison.reason
    assert not any(m == "capacity.pin_failed" for m, _ in v)

    dropped_50 = _capacity([100] * 7, read_ratio=[0.37, 0.38, 0.39, 0.37, 0.38, 0.39, 0.38], failed=2)  # -60%
    report, v = _compare(tmp_path / "b", [old], [dropped_50], nights=2)
    assert v[("capacity.read_ratio", "previous")].verdict == Verdict.REGRESSION  # lower is worse
    assert any("capacity.pin_failed reaches 2" in n for n in report.notes)


def test_kind_runs_without_probe_costs_are_not_infrastructure_failures(tmp_path):
    doc = kinds_doc()
    report = compare(load_results(write_json(tmp_path / "k.json", doc)), read_store(tmp_path / "none"))
    assert report.infrastructure == []
    empty = results_doc([kind_run("churn", {}, {"settle": "settled"})])
    report = compare(load_results(write_json(tmp_path / "e.json", empty)), read_store(tmp_path / "none"))
    assert len(report.infrastructure) == 1 and "probes missing" in report.infrastructure[0]


def test_a_version_1_baseline_is_the_baseline_once_pinbench_store_upgrade_rewrote_it(tmp_path):
    """A night an older pinbench stored as version 1: refused, in one line with the command that
    upgrades it; after `pinbench store upgrade` (the harness, never pinreport) it is judged."""
    if not PINBENCH.is_file():
        pytest.skip("needs a built pinbench (PINBENCH_EXE): pinbench store upgrade")
    store = make_store(tmp_path / "store")
    old = [run_doc(costs={"cuda.free": [2 * MiB] * 7})]
    add_to_store(store, results_doc(old, release="572.16", started_at="2025-06-01T02:00:00Z", schema_version=1))
    new = [run_doc(costs={"cuda.free": [40 * MiB] * 7})]
    current = load_results(write_json(tmp_path / "c.json", results_doc(new, started_at="2025-06-02T02:00:00Z")))
    report = compare(current, read_store(store))
    assert [str(p) for p in report.bad_input] == [
        f"{store}: 1 stored night(s) of results schema version 1, older than version 5, which this pinreport "
        f"reads: upgrade them with `pinbench store upgrade --store {store}`"
    ]
    done = subprocess.run([str(PINBENCH), "store", "upgrade", "--store", str(store)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("1 stored file(s) rewritten in results schema version 5; 0 were in it already\n")
    report = compare(current, read_store(store))
    assert report.bad_input == []
    v = {(v.metric, v.kind): v for v in report.verdicts}
    assert v[("cost.after_alloc.cuda.free", "previous")].verdict == Verdict.REGRESSION


# --- the rule on capacity runs ------------------------------------------------------------------


@pytest.mark.parametrize(
    "loss_mib, expected",
    [
        (150, RuleVerdict.OK),  # 0.146 +- 0.002
        (203, RuleVerdict.AMBIGUOUS),  # 0.1982 .. 0.2002 straddles 0.20
        (210, RuleVerdict.VIOLATION),  # 0.2031 .. 0.2051
        (50, RuleVerdict.OVER_RESERVED),
    ],
)
def test_rule_judges_capacity_loss_against_the_pinned_bytes(loss_mib, expected):
    (r,) = rule_results(Run.from_json(_capacity([loss_mib] * 7)), Band())
    assert r.key == CAPACITY_LOSS and r.verdict == expected
    assert r.pinned == 1 * GiB
    assert r.ratio == pytest.approx(loss_mib / 1024)
    assert r.uncertainty == pytest.approx(2 / 1024)  # one 2 MiB bisection step over 1 GiB
    assert "largest cudaMalloc block" in r.reason


def test_capacity_rule_uses_the_runs_resolution_and_skips_the_control():
    (r,) = rule_results(Run.from_json(_capacity([150] * 7, resolution=8 * MiB)), Band())
    assert r.uncertainty == pytest.approx(8 / 1024)
    (c,) = rule_results(Run.from_json(_capacity([0] * 7, api="pageable")), Band())
    assert c.verdict == RuleVerdict.NOT_JUDGED


def test_capacity_probe_costs_are_beside_not_judged():
    run = _capacity([150] * 7)
    extra = run_doc(costs={"cuda.free": [900 * MiB] * 7, "dxgi.nonlocal.usage": [1 * GiB] * 7})
    run["metrics"].update(extra["metrics"])
    results = {r.key: r for r in rule_results(Run.from_json(run), Band())}
    assert results[CAPACITY_LOSS].verdict == RuleVerdict.OK
    assert results["cuda.free"].verdict == RuleVerdict.NOT_JUDGED
    assert results["cuda.free"].reason == "capacity run: judged on capacity.loss"
    assert results["dxgi.nonlocal.usage"].verdict == RuleVerdict.NOT_JUDGED  # shared memory, beside


def test_capacity_violation_fails_compare(tmp_path):
    report, _ = _compare(tmp_path, [_capacity([100] * 7)], [_capacity([300] * 7)])
    assert [r.key for r in report.violations] == [CAPACITY_LOSS]


# --- the HTML report's kind sections ------------------------------------------------------------


@pytest.fixture
def kinds_ctx(tmp_path):
    current = write_json(tmp_path / "k.json", kinds_doc())
    return page_context(run_pipeline(load_results(current), read_store(tmp_path / "none")))


def _section(ctx, kind):
    return next(s for s in ctx["kind_sections"] if s["kind"] == kind)


def _cells(section):
    return {r["id"]: dict(zip(section["columns"], r["cells"], strict=True)) for r in section["rows"]}


def test_every_kind_has_a_table_with_its_numbers(kinds_ctx):
    assert [s["kind"] for s in kinds_ctx["kind_sections"]] == [
        "capacity",
        "sweep",
        "multi_gpu",
        "workers",
        "churn",
        "fragmentation",
        "shared",
        "register_window",
    ]
    assert kinds_ctx["not_measured"] == []
    cap = _cells(_section(kinds_ctx, "capacity"))["capacity/cudaMallocHost/1GiB/x1/g1/free_target=12884901888"]
    assert cap["capacity.loss"] == "150.00 MiB" and cap["capacity.largest_with"] == "9.85 GiB"
    assert cap["capacity.read_ratio"] == "0.98" and cap["capacity.pin_failed"] == "0"
    multi = _cells(_section(kinds_ctx, "multi_gpu"))
    (row,) = multi.values()
    assert row["cost.after_first_use.nvml.1.used"] == "300.00 MiB"
    assert row["multi_gpu.cost_sum.nvml.used"] == "600.00 MiB"
    reg = next(iter(_cells(_section(kinds_ctx, "register_window")).values()))
    assert reg["time.kept_per_transfer_ms"] == "2 ms" and reg["register_window.time_ratio"] == "2.5"
    frag = next(iter(_cells(_section(kinds_ctx, "fragmentation")).values()))
    assert frag["fragmentation.largest_loss"] == "1.00 GiB" and frag["fragmentation.free_loss"] == "0 B"


def test_table_shows_spread_not_measured_and_waived(tmp_path):
    spread = kind_run("churn", {"churn.creep.cuda.free": [m * MiB for m in (2, 4, 6, 4, 4, 4, 4)]}, {"settle": "a"})
    partial = kind_run("churn", {"churn.max.cuda.free": [8 * MiB] * 7}, {"settle": "b"})
    waived = kind_run("churn", {}, {"settle": "c"}, status="waived", reason="cudaHostRegister unsupported")
    doc = results_doc([spread, partial, waived])
    ctx = page_context(run_pipeline(load_results(write_json(tmp_path / "c.json", doc)), read_store(tmp_path / "none")))
    section = _section(ctx, "churn")
    assert section["columns"] == ["churn.creep.cuda.free", "churn.max.cuda.free"]
    cells = _cells(section)
    assert cells[spread["id"]]["churn.creep.cuda.free"] == "4.00 MiB [2.00 MiB - 6.00 MiB]"
    assert cells[spread["id"]]["churn.max.cuda.free"] == "not measured"
    assert cells[partial["id"]]["churn.max.cuda.free"] == "8.00 MiB"
    row = next(r for r in section["rows"] if r["id"] == waived["id"])
    assert row["status"] == "waived" and row["reason"] == "cudaHostRegister unsupported"
    html = render_html(ctx)
    assert "waived: cudaHostRegister unsupported" in html
    assert len(ctx["not_measured"]) == 7  # the kinds other than churn


def test_churn_trace_from_cycle_snapshots(kinds_ctx):
    (chart,) = _section(kinds_ctx, "churn")["charts"]
    assert chart.id == "churn-churn"
    trace, final = chart.series
    assert trace["name"] == "cudaMallocHost settle=settled · cudaMemGetInfo"
    table = [(x, y) for name, x, y in chart.table if name == trace["name"]]
    assert table == [("1", "2"), ("2", "4"), ("3", "6"), ("4", "8")]  # MiB after each cycle
    assert [(x, y) for name, x, y in chart.table if name == final["name"]] == [("5", "2")]


def test_sweep_curve_and_workers_chart(kinds_ctx):
    (sweep,) = _section(kinds_ctx, "sweep")["charts"]
    assert sweep.table == [
        ("cudaMemGetInfo", "64MiB", "4"),
        ("cudaMemGetInfo", "128MiB", "8"),
        ("cudaMemGetInfo", "256MiB", "16"),
    ]
    (workers,) = _section(kinds_ctx, "workers")["charts"]
    assert [s["name"] for s in workers.series] == [
        "context per worker · cudaMemGetInfo",
        "pinned per worker · cudaMemGetInfo",
    ]
    assert workers.table == [
        ("context per worker · cudaMemGetInfo", "1", "500"),
        ("context per worker · cudaMemGetInfo", "4", "500"),
        ("pinned per worker · cudaMemGetInfo", "1", "20"),
        ("pinned per worker · cudaMemGetInfo", "4", "20"),
    ]


def test_rendered_page_has_the_kind_tables_and_the_capacity_rule(kinds_ctx):
    html = render_html(kinds_ctx)
    for kind in ("capacity", "multi_gpu", "workers", "churn", "fragmentation", "shared", "register_window", "sweep"):
        assert f'id="kind-table-{kind}"' in html
    table = re.search(r'id="kind-table-capacity".*?</table>', html, re.S).group(0)
    assert "<td>150.00 MiB</td>" in table and "<td>free_target=12884901888</td>" in table
    assert "rule on capacity.loss" in html
    assert any(c.id == "rule-capacity" for c in kinds_ctx["rule_charts"])
    assert "everything the report charts was measured" in html


def test_kind_sections_say_replayed(tmp_path):
    doc = kinds_doc(replay_of="results/h200-quick/results.json")
    html = render_html(
        page_context(run_pipeline(load_results(write_json(tmp_path / "r.json", doc)), read_store(tmp_path / "n")))
    )
    assert "capacity: the largest cudaMalloc block with and without pinning (claims 10, 14) (REPLAYED)" in html


# --- the brief's claims on the kinds ------------------------------------------------------------


class _Report:
    def __init__(self, doc):
        self.rule = [x for run in doc["runs"] for x in rule_results(Run.from_json(run), Band())]


def _claims(doc):
    return {
        int(c.n): c
        for c in brief_rows(ClaimData(ResultsFile("results.json", doc), tuple(_Report(doc).rule), BenchRows()))
    }


def test_claims_on_every_kind_linux():
    claims = _claims(kinds_doc())
    assert claims[3].verdict == "CONFIRMED" and "GPU 1 300.00 MiB, sum 600.00 MiB" in claims[3].evidence
    assert claims[8].verdict == "CONFIRMED" and "largest creep 6.00 MiB" in claims[8].evidence
    assert claims[11].verdict == "CONFIRMED" and "N=4: 500.00 MiB" in claims[11].evidence
    assert claims[12].verdict == "NOT TESTED HERE" and "shared 60.00 MiB vs private 40.00 MiB" in claims[12].evidence
    assert claims[10].verdict == "NOT TESTED HERE" and "capacity.loss: 1 OK" in claims[10].evidence
    assert claims[14].verdict == "NOT TESTED HERE" and "0.146" in claims[14].evidence


def test_claims_on_every_kind_wddm():
    claims = _claims(kinds_doc(driver_model="WDDM", platform="windows"))
    assert claims[10].verdict == "CONFIRMED" and "largest loss 0.146" in claims[10].evidence
    assert claims[12].verdict == "CONFIRMED"
    assert claims[14].verdict == "CONFIRMED" and "within the 20% headroom" in claims[14].evidence


def test_claims_refuted_by_the_kinds():
    one_gpu_pays = kind_run(
        "multi_gpu",
        {"cost.after_first_use.nvml.0.used": [300 * MiB] * 7, "cost.after_first_use.nvml.1.used": [0] * 7},
        {"order": "before"},
        gpus=2,
    )
    no_creep = churn_run([2, 2, 2, 2], 0)
    not_linear = [
        kind_run(
            "workers",
            {"workers.context_per_worker.cuda.free": [c * MiB] * 7, "workers.pinned_per_worker.cuda.free": [0] * 7},
            {"workers": w},
        )
        for w, c in ((1, 500), (4, 300))
    ]
    shared_cheaper = [
        kind_run("shared", {"shared.device_cost.cuda.free": [c * MiB] * 7}, {"processes": 4, "variant": v})
        for v, c in (("shared", 10), ("private", 80))
    ]
    big_loss = _capacity([300] * 7)
    doc = results_doc([one_gpu_pays, no_creep, *not_linear, *shared_cheaper, big_loss], driver_model="WDDM")
    claims = _claims(doc)
    assert claims[3].verdict == "REFUTED" and "GPU 1 0 B" in claims[3].evidence
    assert claims[8].verdict == "REFUTED" and "creep: not seen" in claims[8].evidence
    assert claims[11].verdict == "REFUTED"
    assert "context per worker changes with N" in claims[11].evidence
    assert "pinned per worker within one granule of 0" in claims[11].evidence
    assert claims[12].verdict == "REFUTED"
    assert claims[10].verdict == "REFUTED"
    assert claims[14].verdict == "REFUTED" and "beyond the 20% headroom" in claims[14].evidence


def test_claims_not_tested_without_the_kinds():
    claims = _claims(results_doc([run_doc()]))
    for n in (3, 8, 11, 12, 14):
        assert claims[n].verdict == "NOT TESTED HERE"


def test_every_headline_metric_is_written_by_the_harness():
    """Each kind's headline columns name metrics that real committed results hold (the
    register-window timings were once asked for under names the harness never wrote, and the
    report dropped them silently). sweep.small_after_failure_ok exists only where a pin failed:
    the failure path of results/h200-pinnable."""
    from conftest import REPO_ROOT

    docs = [
        json.loads((REPO_ROOT / f).read_text())
        for f in (
            "results/h200-nightly-free-vram/results.json",
            "results/h200-pinnable/pinnable.json",
            "results/h200-gpu-tests-dataloader/pytorch-dataloader.json",
        )
    ]
    missing = []
    for kind, heads in kind_results.HEADLINES.items():
        names = {m for d in docs for r in kind_results.runs_of(map(Run.from_json, d["runs"]), kind) for m in r.metrics}
        assert names, kind
        missing += [(kind, h) for h in heads if not (kind_results.keys_for(h, names) if "<" in h else {h} & names)]
    assert missing == []


def test_claim_11_reads_an_older_files_context_with_the_workspace():
    """A workers run of results version 2 read each worker's context with its workspace (the
    harness names that workers.context_and_workspace_per_worker): claim 11 is judged on it, by
    that name, never as the context alone."""
    runs = [
        kind_run(
            "workers",
            {
                "workers.context_and_workspace_per_worker.cuda.free": [590 * MiB] * 3,
                "workers.pinned_per_worker.cuda.free": [100 * MiB] * 3,
            },
            {"workers": w},
        )
        for w in (1, 2, 4)
    ]
    claim = _claims(results_doc(runs, driver_model="WDDM"))[11]
    assert claim.verdict == "CONFIRMED"
    assert "context and workspace per worker N=1: 590.00 MiB" in claim.evidence
