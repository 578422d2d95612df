"""pipeline/commands.py: the reports of `reserve`, `trace`, `budget-compare` and `aa`, each computed
at once by one function, and what the outputs read of them."""

from advice_data import TRACES, h200_runs
from builders import GiB, MiB, add_to_store, make_store, results_doc, run_doc
from conftest import REPO_ROOT
from pinreport.analysis.compare import CompareOptions
from pinreport.analysis.trace import TraceVerdict
from pinreport.base.exit_codes import EXIT_INFRASTRUCTURE, EXIT_OK
from pinreport.pipeline.commands import aa_report, budget_report, reserve_report, trace_report
from pinreport.readers.budget import load_budget
from pinreport.readers.results import ResultsFile
from pinreport.readers.trace import load_trace
from pinreport.store.reading import read_newest_releases


def test_reserve_recommends_from_the_newest_release_fitted():
    runs = [run_doc(size=s * GiB, costs={"cuda.free": [16 * MiB + s * GiB // 8] * 7}) for s in (1, 2, 4)]
    store = read_newest_releases(add_store(results_doc(runs, release="572.16")), "real")
    report = reserve_report(store, 2 * GiB, 4, 0.95, replayed=False)
    (rec,) = report.recommendations
    assert (rec.api, rec.release, rec.fit_gpus, report.gpus) == ("cudaMallocHost", "572.16", 1, 4)
    assert rec.per_gpu == 274 * MiB  # 16 MiB + 0.125 x 2 GiB + one 2 MiB granule


def add_store(doc):
    import tempfile
    from pathlib import Path

    root = make_store(Path(tempfile.mkdtemp()) / "store")
    add_to_store(root, doc)
    return root


def test_a_trace_without_a_store_is_no_failure_with_one():
    t = load_trace(TRACES / "trace-dataloader-w4.json")
    alone = trace_report(t, [], store_given=False)
    assert alone.judgement.verdict == TraceVerdict.NO_FIT and alone.exit_code == EXIT_OK
    assert trace_report(t, [], store_given=True).exit_code == EXIT_INFRASTRUCTURE
    judged = trace_report(t, [r.results for r in h200_runs()])
    assert judged.judgement.verdict == TraceVerdict.AGREES and judged.exit_code == EXIT_OK
    # What the outputs show of it, computed here: the rounding, the processes, the sizes asked.
    assert judged.rounding.startswith("batches of 300.00 MiB were pinned as")
    assert judged.sizes[0][0] == 512 * MiB and set(judged.processes) == {"main process"}
    assert set(judged.device_costs) == {d.nvml_index for d in judged.judgement.devices}
    assert judged.advice is None and judged.advice_section is None


def test_a_shrunk_budget_is_a_regression_and_the_same_is_ok():
    old = load_budget(REPO_ROOT / "results/h100-budget/budget-default.json")
    same = budget_report(old, old)
    assert same.exit_code == EXIT_OK and {v.verdict for v in same.verdicts} <= {"SAME", "NOT COMPARABLE"}
    assert (same.old, same.new) == (old, old)


def test_aa_judges_every_night_against_the_others():
    nights = [
        ResultsFile(f"n{i}.json", results_doc([run_doc(nonce=f"n{i}")], started_at=f"2025-06-0{i + 1}T10:00:00Z"))
        for i in range(3)
    ]
    results = aa_report(nights, CompareOptions())
    assert [r.path for r in results] == ["n0.json", "n1.json", "n2.json"]
    assert all(not r.false_alarms for r in results)
