"""The metric catalog is the harness's (catalog.py): the committed copy is what `pinbench
metrics --json` prints, the Python patterns match every metric of the committed real results
as the C++ ones do (CTest MetricCatalog.*), and the report's headline columns are the
catalog's."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT, upgraded
from pinreport.analysis import kind_results
from pinreport.analysis.compare import higher_is_worse
from pinreport.base import catalog

PINBENCH = Path(os.environ.get("PINBENCH_EXE", REPO_ROOT / "build/ci-nogpu/harness/pinbench"))
REAL = (
    "results/h200-nightly-free-vram/results.json",
    "results/h200-pinnable/pinnable.json",
    "results/h200-apis/results.json",
    "results/h200x2-multi-gpu/results.json",
    "results/h200-quick/results.json",
)


@pytest.mark.skipif(not PINBENCH.exists(), reason=f"{PINBENCH} is not built (ci/test.sh builds it first)")
def test_the_committed_catalog_is_what_the_harness_prints():
    printed = subprocess.run([str(PINBENCH), "metrics", "--json"], capture_output=True, text=True, check=True).stdout
    committed = (REPO_ROOT / "reports/pinreport/data/metric_catalog.json").read_text()
    assert json.loads(printed) == json.loads(
        committed
    ), "regenerate: pinbench metrics --json > reports/pinreport/data/metric_catalog.json"


def test_every_metric_of_the_real_results_has_its_entry():
    checked = 0
    for f in REAL:
        for run in json.loads(upgraded(REPO_ROOT / f).read_text())["runs"]:
            kind = run["plan"].get("kind", "overhead")
            for name, m in run.get("metrics", {}).items():
                spec = catalog.spec_of(name, kind)
                assert spec is not None, f"{f}: {run['id']}: {name}"
                assert spec.unit == m["unit"], name
                checked += 1
    assert checked > 2000


def test_the_metric_names_python_holds_are_catalog_patterns():
    names = (
        kind_results.MAX_PINNABLE,
        kind_results.FREE_BEFORE,
        kind_results.CAPPED,
        kind_results.OVER_HOST_RAM,
    )
    assert all(any(s.pattern == n for s in catalog.specs()) for n in names)
    assert kind_results.HEADLINES["register_window"] == (
        "register_window.peak.<key>",
        "time.kept_per_transfer_ms",
        "time.windowed_per_transfer_ms",
        "register_window.time_ratio",
    )
    assert kind_results.HEADLINES["multi_gpu"][0] == "cost.after_first_use.<dev>"


def test_headline_columns_are_the_catalogs():
    for kind, heads in kind_results.HEADLINES.items():
        catalogued = [s.pattern for s in catalog.specs() if s.headline and s.written_by(kind) and "*" not in s.kinds]
        assert sorted(h.replace("<dev>", "<key>") for h in heads) == sorted(catalogued), kind


def test_directions_come_from_the_catalog():
    assert higher_is_worse("cost.after_first_use.cuda.free")
    assert not higher_is_worse("capacity.read_ratio")
    assert not higher_is_worse("sweep.max_pinnable_over_host_ram")
    assert higher_is_worse("register_window.time_ratio")
    assert catalog.spec_of("sweep.free_before").direction == "neither"
    assert not higher_is_worse("bandwidth.h2d")  # the benchmarks' (not a results metric)
    assert catalog.spec_of("sweep.invented") is None
    assert catalog.spec_of("cost.after_alloc.cuda.free", "workers") is None


def test_kinds_titles_and_chart_families_are_the_catalogs():
    """The report's kind list, titles and chart families come from the kinds' own definitions: a
    family a kind names must be drawn, and a family drawn must be some kind's."""
    from pinreport.render.kind_sections import CHART_FAMILIES

    entries = catalog.kind_entries()
    assert tuple(e.name for e in entries if e.report != "cost_and_rule") == kind_results.KINDS
    assert "overhead" not in kind_results.KINDS and {"command"} == kind_results.OPTIONAL_KINDS
    assert all(kind_results.TITLES[e.name] == e.title and e.title for e in entries)
    named = {f for e in entries for f in e.charts}
    assert named == set(CHART_FAMILIES), (named, set(CHART_FAMILIES))
    assert kind_results.CHARTS["sweep"] == ("sweep", "pinnable")


def test_probe_keys_follow_the_harness_rule():
    from pinreport.base.probe_keys import describe_key

    rule = catalog.key_rule()
    assert ".free" in rule.available_suffixes and "dxgi.nonlocal." in rule.shared_prefixes
    assert describe_key("dxgi.nonlocal.usage").budget == "shared"
    assert describe_key("pdh.adapter.shared").budget == "shared"
    assert describe_key("nvml.0.used") == describe_key("dxgi.local.usage")
    assert describe_key("cuda.free").direction == "available"
    assert describe_key("dxgi.local.budget").direction == "fixed"


def test_every_metric_says_its_budget():
    budgets = {s.pattern: s.budget for s in catalog.specs()}
    assert set(budgets.values()) <= {"dedicated", "host", "probe", "none"}
    assert budgets["capacity.loss"] == "dedicated" and budgets["command.peak_pinned_bytes"] == "host"
    assert all(b == "probe" for p, b in budgets.items() if "<key>" in p)


def test_the_trace_module_reads_the_traced_apis_from_the_catalog():
    from pinreport.analysis import trace

    families = {a.family for a in catalog.traced_apis()}
    assert set(trace.STORE_APIS) == families == {"host_alloc", "host_register", "vmm_host", "pool_host"}
    assert "cuMemHostAlloc" in trace.ACQUIRING and "cuMemFreeHost" not in trace.ACQUIRING
    assert trace.STORE_APIS["host_alloc"][0] == "cudaHostAlloc"
