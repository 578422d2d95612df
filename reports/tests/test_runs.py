"""readers/runs.py: a run and its metrics read once into typed values, as the document holds them."""

from builders import MiB, results_doc, run_doc
from pinreport.readers.runs import Metric, Plan, Run


def test_a_run_and_its_metrics_typed():
    raw = results_doc([run_doc(api="cudaHostAlloc", size=64 * MiB, costs={"cuda.free": [2 * MiB] * 3})])["runs"][0]
    run = Run.from_json(raw)
    assert (run.id, run.status, run.reason) == (raw["id"], "ok", raw["reason"])
    assert (run.plan.id, run.plan.scenario, run.plan.kind) == (raw["plan"]["id"], raw["plan"]["scenario"], "overhead")
    assert list(run.metrics) == list(raw["metrics"])  # the file's order
    m = run.metrics["cost.after_first_use.cuda.free"]
    assert (m.unit, m.median, m.samples) == ("bytes", 2.0 * MiB, (2.0 * MiB,) * 3)
    assert m.granule == raw["metrics"]["cost.after_first_use.cuda.free"]["granule"]
    raw_metric = raw["metrics"]["cost.after_first_use.cuda.free"]
    assert (m.low, m.high, m.mad, m.disturbed) == (raw_metric["min"], raw_metric["max"], raw_metric["mad"], False)
    plan = raw["plan"]
    assert (run.plan.api, run.plan.size, run.plan.count, run.plan.gpus) == (
        plan["api"],
        plan["size_bytes"],
        plan["count"],
        plan["gpus"],
    )
    assert [r.nonce for r in run.repeats] == [r["nonce"] for r in raw["repeats"]]


def test_what_a_record_lacks_is_none_not_an_error():
    m = Metric.from_json("x", {"unit": "ms", "median": True, "granule": 1.5, "samples": None})
    assert (m.unit, m.median, m.granule, m.samples) == ("ms", None, None, None)
    assert Metric.from_json("x", None).unit == ""
    run = Run.from_json({})
    assert (run.id, run.status, run.reason, run.metrics) == ("?", None, "", {})
    assert Plan.from_json(None) == Plan("", "", None, None, None, None, None)
    assert Plan.from_json(None).pinned is None  # never 0: the rule divides by it
