"""On the committed real H200 results, when present: A/A between two device calls, and a
replayed variant with an injected regression. Skipped (with the reason) until they exist."""

import copy
import fnmatch
import statistics

import pytest
from builders import MiB, add_to_store, document, make_store
from conftest import REPO_ROOT, upgraded
from pinreport.analysis.compare import PREVIOUS, compare
from pinreport.analysis.stats import Verdict
from pinreport.base.exit_codes import EXIT_REGRESSION
from pinreport.base.schema import REPLAY_NOTE
from pinreport.readers.results import load_results, parse_results
from pinreport.store.reading import read_store

RUN_A = REPO_ROOT / "results/h200-quick/results.json"
# The smoke run (12 of quick's 28 runs) was made in an earlier, separate device call.
RUN_B = REPO_ROOT / "results/h200-smoke/results.json"

needs_a = pytest.mark.skipif(not RUN_A.exists(), reason=f"{RUN_A.relative_to(REPO_ROOT)} is not committed yet")
needs_both = pytest.mark.skipif(
    not (RUN_A.exists() and RUN_B.exists()),
    reason="the two real H200 results (results/h200-quick, results/h200-smoke) are not committed yet",
)


def _changed(report):
    return [
        (v.run_id, v.metric, v.kind, v.comparison.reason)
        for v in report.verdicts
        if v.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT)
    ]


@needs_both
@pytest.mark.parametrize("baseline, current", [(RUN_A, RUN_B), (RUN_B, RUN_A)])
def test_a_a_between_two_device_calls(tmp_path, baseline, current):
    root = make_store(tmp_path / "store")
    add_to_store(root, document(load_results(upgraded(baseline))))
    report = compare(load_results(upgraded(current)), read_store(root))
    assert report.bad_input == []
    compared = [v for v in report.verdicts if v.verdict != Verdict.NO_BASELINE]
    assert compared, "no metric had a baseline: the two files are not of the same machine key"
    assert _changed(report) == []


def _inject(doc, runs_glob, key, amount):
    """As a replay script's `offset` on a probe key (docs/replay.md): every snapshot after
    after_context except after_free moves so that the key's cost grows by `amount`."""
    out = copy.deepcopy(doc)
    sign = -1 if key.endswith(".free") else 1
    touched = []
    for run in out["runs"]:
        if not fnmatch.fnmatchcase(run["id"], runs_glob) or run["status"] != "ok":
            continue
        for r in run["repeats"]:
            for s in r["snapshots"]:
                if s["label"] not in ("after_context", "after_free") and isinstance(s["readings"].get(key), int):
                    s["readings"][key] += sign * amount
        for stage in ("cost.after_alloc", "cost.after_first_use"):
            name = f"{stage}.{key}"
            if name in run["metrics"]:
                m = run["metrics"][name]
                samples = [v + amount for v in m["samples"]]  # the cost grew by `amount` in every repeat
                m.update(samples=samples, median=statistics.median(samples), min=min(samples), max=max(samples))
                touched.append((run["id"], name))
    out["backend"] = "replay"
    out["replay"] = {"source": str(RUN_A), "source_backend": "cuda", "script": "", "note": REPLAY_NOTE}
    out["environment"]["replayed"] = True
    out["environment"]["driver"]["release"] = "999.01-replayed"
    return out, touched


@needs_a
def test_injected_regression_on_real_data(tmp_path):
    real = load_results(upgraded(RUN_A))
    root = make_store(tmp_path / "store")
    add_to_store(root, document(real))
    amount = 64 * MiB
    doc, touched = _inject(document(real), "*/cudaMallocHost/*", "cuda.free", amount)
    assert touched, "no cudaMallocHost run with a cuda.free cost in the real results"
    report = compare(parse_results(doc, "replayed.json"), read_store(root))
    assert report.replayed
    verdicts = {(v.run_id, v.metric): v for v in report.verdicts if v.kind == PREVIOUS}
    for run_id, metric in touched:
        v = verdicts[(run_id, metric)]
        if v.comparison.n_baseline >= 7 and v.comparison.n_current >= 7:
            assert v.verdict == Verdict.REGRESSION, (run_id, metric, v.comparison.reason)
            assert v.comparison.delta == pytest.approx(amount, abs=1)
    untouched = [
        v
        for v in report.verdicts
        if v.kind == PREVIOUS
        and (v.run_id, v.metric) not in set(touched)
        and v.metric.startswith(("cost.", "residual."))
    ]
    assert all(v.verdict != Verdict.REGRESSION for v in untouched)
    assert report.exit_code() in (EXIT_REGRESSION, 3)  # 3 only if the real file had an infra problem
