"""What the driver table keeps of a night (readers/cost_document.py): its VRAM cost metrics with
their samples, the metrics the disturbance check reads, its environment and identity; nothing
else (times, the control's own metrics, the kinds the rule does not judge)."""

from builders import GiB, MiB, results_doc, run_doc
from pinreport.analysis.disturbance import disturbed_metrics
from pinreport.readers.cost_document import cost_document, is_cost_metric
from pinreport.readers.results import ResultsFile


def test_keeps_the_cost_metrics_and_what_the_disturbance_check_reads():
    doc = results_doc(
        [run_doc("q", "cudaMallocHost", GiB, costs={"cuda.free": [2 * MiB] * 5, "nvml.0.used": [2 * MiB] * 5})]
    )
    metrics = doc["runs"][0]["metrics"]
    metrics["time.alloc_ms"] = {"unit": "ms", "median": 1.0}
    metrics["residual.after_free.nvml.0.used"] = {"unit": "bytes", "median": 0, "min": -9 * MiB, "granule": 2 * MiB}
    kept = cost_document(doc, "m-1")
    names = set(kept["runs"][0]["metrics"])
    assert {"cost.after_first_use.cuda.free", "cost.after_alloc.nvml.0.used"} <= names
    assert "time.alloc_ms" not in names and "residual.after_free.cuda.free" not in names
    assert "residual.after_free.nvml.0.used" in names  # below zero: the disturbance check reads it
    assert kept["runs"][0]["metrics"]["cost.after_first_use.cuda.free"]["samples"] == [2 * MiB] * 5
    assert kept["environment"] == doc["environment"] and kept["measurement_id"] == "m-1"
    # The run reads as disturbed in the kept document as in the night's file.
    full = ResultsFile("n.json", doc).runs[0]
    small = ResultsFile("n.json", kept).runs[0]
    assert set(disturbed_metrics(small)) == set(disturbed_metrics(full)) & names != set()


def test_only_ok_runs_of_the_rule_kinds_and_only_cost_metrics_are_judged():
    ok = run_doc("q", "cudaMallocHost", GiB)
    failed = run_doc("q", "cudaHostRegister", GiB, status="failed")
    churn = run_doc("c", "cudaMallocHost", GiB, kind="churn")
    kept = cost_document(results_doc([ok, failed, churn]), "m")
    assert [r["id"] for r in kept["runs"]] == [ok["id"]]
    assert is_cost_metric("capacity.loss") and is_cost_metric("cost.after_alloc.nvml.3.used")
    assert not is_cost_metric("cost.after_alloc.nvml.0.process_used") and not is_cost_metric("sweep.base.cuda.free")
