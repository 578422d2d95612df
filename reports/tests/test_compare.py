"""compare(): baseline selection, verdicts per metric, environment changes, infrastructure."""

import random

import pytest
from builders import MiB, add_to_store, make_store, results_doc, run_doc
from pinreport.analysis.compare import HISTORY, PREVIOUS, CompareOptions, compare, plan_change
from pinreport.analysis.environment_changes import environment_changes
from pinreport.analysis.stats import Verdict
from pinreport.base.exit_codes import EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE, EXIT_OK, EXIT_REGRESSION
from pinreport.readers.results import ResultsFile, parse_results
from pinreport.readers.runs import Plan
from pinreport.store.reading import read_store

METRIC = "cost.after_first_use.cuda.free"


def _current(doc, name="current.json"):
    return parse_results(doc, name)


def _verdicts(report, metric=METRIC, kind=PREVIOUS):
    return {v.run_id: v for v in report.verdicts if v.metric == metric and v.kind == kind}


def _store(tmp_path, *docs):
    root = make_store(tmp_path / "store")
    for d in docs:
        add_to_store(root, d)
    return read_store(root)


def _night(release, started_at, cost=2 * MiB, n=7, **kw):
    return results_doc(
        [
            run_doc(
                costs={"cuda.free": [cost] * n, "nvml.0.used": [cost] * n},
                timings={"alloc": [4.0 + 0.01 * i for i in range(n)]},
            )
        ],
        release=release,
        started_at=started_at,
        **kw,
    )


def test_injected_regression_against_previous_release(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z"))
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)), store)
    v = _verdicts(report)["quick-overhead/cudaMallocHost/64MiB/x1/g1"]
    assert v.verdict == Verdict.REGRESSION
    assert v.comparison.delta == 8 * MiB
    assert report.baselines[PREVIOUS].release == "572.16"
    assert _verdicts(report, kind=HISTORY)["quick-overhead/cudaMallocHost/64MiB/x1/g1"].verdict == Verdict.NO_BASELINE
    assert report.exit_code() == EXIT_REGRESSION


def test_previous_release_is_numeric_and_older(tmp_path):
    store = _store(
        tmp_path,
        _night("566.36", "2025-03-01T10:00:00Z", cost=10 * MiB),
        _night("572.16", "2025-04-01T10:00:00Z", cost=2 * MiB),
        _night("580.159.04", "2025-05-01T10:00:00Z", cost=10 * MiB),  # newer than the current
    )
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)), store)
    assert report.baselines[PREVIOUS].release == "572.16"
    assert all(v.verdict == Verdict.REGRESSION for v in _verdicts(report).values())


def test_other_machines_are_not_baselines(tmp_path):
    store = _store(
        tmp_path,
        _night("572.16", "2025-05-01T10:00:00Z", gpu="NVIDIA A100"),
        _night("572.16", "2025-05-02T10:00:00Z", driver_model="WDDM", platform="windows"),
    )
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z")), store)
    assert not report.baselines[PREVIOUS].found
    assert {v.verdict for v in report.verdicts} == {Verdict.NO_BASELINE}
    assert report.exit_code() == EXIT_OK


def test_history_of_same_release_excludes_the_current_file(tmp_path):
    earlier = _night("580.65.06", "2025-05-31T10:00:00Z")
    current = _night("580.65.06", "2025-06-01T10:00:00Z")
    store = _store(tmp_path, earlier, current)  # the harness stored tonight's file already
    report = compare(_current(current), store)
    assert len(report.baselines[HISTORY].entries) == 1
    assert report.baselines[HISTORY].entries[0].started_at == "2025-05-31T10:00:00Z"
    assert {v.verdict for v in report.verdicts if v.kind == HISTORY and v.unit == "bytes"} == {Verdict.SAME}
    times = [v for v in report.verdicts if v.kind == HISTORY and v.unit == "ms"]
    assert times and all("too few nights: 1 stored night(s)" in v.comparison.reason for v in times)


def test_history_pools_nights(tmp_path):
    nights = [_night("580.65.06", f"2025-05-2{i}T10:00:00Z", n=3) for i in range(3)]
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)), _store(tmp_path, *nights))
    v = _verdicts(report, kind=HISTORY)["quick-overhead/cudaMallocHost/64MiB/x1/g1"]
    assert v.comparison.n_baseline == 9
    assert v.verdict == Verdict.REGRESSION


def test_change_under_one_granule_is_same(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z", cost=2 * MiB))
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=3 * MiB)), store)
    assert {v.verdict for v in _verdicts(report).values()} == {Verdict.SAME}
    assert report.exit_code() == EXIT_OK


def test_too_few_repeats_is_ambiguous(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z", n=7))
    report = compare(
        _current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB, n=5)), store, CompareOptions(min_repeats=7)
    )
    assert {v.verdict for v in report.verdicts if v.kind == PREVIOUS} == {Verdict.AMBIGUOUS}
    assert report.exit_code() == EXIT_OK
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB, n=5)), store)
    assert _verdicts(report)["quick-overhead/cudaMallocHost/64MiB/x1/g1"].verdict == Verdict.REGRESSION


def test_a_night_stopped_at_three_is_judged_against_the_pooled_nights(tmp_path):
    """The stopping rule's 3 repeats against one stored night of 7 could be chance (p 0.017);
    against two (14 pooled) they decide."""
    current = _current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB, n=3))
    one = _store(tmp_path / "one", _night("572.16", "2025-05-01T10:00:00Z", n=7))
    by_metric = {v.metric: v for v in compare(current, one).verdicts if v.kind == PREVIOUS}
    held = by_metric["cost.after_alloc.cuda.free"].comparison
    assert held.verdict == Verdict.AMBIGUOUS and "baseline 7, current 3" in held.reason
    two = _store(
        tmp_path / "two",
        _night("572.16", "2025-05-01T10:00:00Z", n=7),
        _night("572.16", "2025-05-02T10:00:00Z", n=7),
    )
    assert _verdicts(compare(current, two))["quick-overhead/cudaMallocHost/64MiB/x1/g1"].verdict == Verdict.REGRESSION


def test_a_a_identical_distributions_never_change(tmp_path):
    # Three nights drawn from one distribution: byte costs that jump between 0, 1 and 2
    # granules (the median itself flips), timings with a 2% spread (the relative floor is 5%).
    rng = random.Random(7)

    def night(started_at, release):
        runs = []
        for api in ("cudaMallocHost", "cudaHostRegister", "pageable"):
            for size in (64 * MiB, 256 * MiB, 1024 * MiB):
                costs = {
                    k: [rng.choice([0, 0, 2 * MiB, 2 * MiB, 4 * MiB]) for _ in range(7)]
                    for k in ("cuda.free", "nvml.0.used")
                }
                timings = {t: [rng.gauss(10.0, 0.2) for _ in range(7)] for t in ("alloc", "free", "context")}
                runs.append(run_doc(api=api, size=size, costs=costs, timings=timings))
        return results_doc(runs, release=release, started_at=started_at)

    for i in range(5):
        store = _store(
            tmp_path / str(i), night("2025-05-01T10:00:00Z", "572.16"), night("2025-05-02T10:00:00Z", "580.65.06")
        )
        report = compare(_current(night("2025-06-01T10:00:00Z", "580.65.06")), store)
        changed = [
            (v.run_id, v.metric, v.kind)
            for v in report.verdicts
            if v.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT)
        ]
        assert changed == []
        assert report.exit_code() == EXIT_OK


def test_changed_os_build_is_reported(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z", os_build="#1 SMP Debian 6.1.0-1"))
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", os_build="#2 SMP Debian 6.1.0-2")), store)
    changes = {c.field: c for c in report.baselines[PREVIOUS].changes}
    assert set(changes) == {"os.os_build"}
    assert changes["os.os_build"].baseline == ("#1 SMP Debian 6.1.0-1",)
    assert changes["os.os_build"].current == "#2 SMP Debian 6.1.0-2"


def _file(doc):
    return ResultsFile("r.json", doc)


def test_environment_changes_ignore_release_and_summarise_processes():
    a = _night("572.16", "2025-05-01T10:00:00Z")
    b = _night("580.65.06", "2025-06-01T10:00:00Z")
    assert environment_changes(_file(b), [_file(a)]) == []
    b["environment"]["other_compute_processes"] = [{"device": 0, "pid": 77, "used": 1}]
    b["environment"]["driver"]["cuda_runtime_version"] = 12090
    b["environment"]["devices"][0]["nvml"]["display_active"] = "enabled"
    b["environment"]["cuda_module_loading"] = "LAZY"
    fields = {c.field: c.describe() for c in environment_changes(_file(b), [_file(a)])}
    assert fields == {
        "cuda_module_loading": "cuda_module_loading: unavailable (not set (driver default)) -> LAZY",
        "devices[0].nvml.display_active": "devices[0].nvml.display_active: disabled -> enabled",
        "driver.cuda_runtime_version": "driver.cuda_runtime_version: 12080 -> 12090",
        "other_compute_processes": "other_compute_processes: 0 process(es) -> 1 process(es)",
    }


def test_environment_changes_list_every_baseline_value():
    a = _night("572.16", "2025-05-01T10:00:00Z", os_build="A")
    b = _night("572.16", "2025-05-02T10:00:00Z", os_build="B")
    c = _night("580.65.06", "2025-06-01T10:00:00Z", os_build="B")
    (change,) = environment_changes(_file(c), [_file(a), _file(b)])
    assert change.baseline == ("A", "B") and change.current == "B"


def test_corrupted_store_file_is_named_and_others_analysed(tmp_path):
    root = make_store(tmp_path / "store")
    good = add_to_store(root, _night("572.16", "2025-05-01T10:00:00Z"))
    bad = good.parent / "20250502T100000Z-0000000000aa.json"
    bad.write_text("{ not json")
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)), read_store(root))
    assert [e.path for e in report.bad_input] == [str(bad)]
    assert _verdicts(report)["quick-overhead/cudaMallocHost/64MiB/x1/g1"].verdict == Verdict.REGRESSION
    assert report.exit_code() == EXIT_BAD_INPUT


def test_failed_run_and_failed_control_are_infrastructure(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z"))
    doc = _night("580.65.06", "2025-06-01T10:00:00Z")
    doc["runs"].append(run_doc(api="cudaHostRegister", status="failed", reason="cudaErrorIllegalAddress"))
    report = compare(_current(doc), store)
    assert report.infrastructure == ["run quick-overhead/cudaHostRegister/64MiB/x1/g1 failed: cudaErrorIllegalAddress"]
    assert report.exit_code() == EXIT_INFRASTRUCTURE

    doc = _night("580.65.06", "2025-06-01T10:00:00Z", controls={"positive": {"verdict": "FAIL", "error": "blind"}})
    report = compare(_current(doc), store)
    assert report.infrastructure == ["control positive FAILED: blind"]
    assert report.exit_code() == EXIT_INFRASTRUCTURE


def test_missing_probe_is_infrastructure(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z"))
    doc = results_doc([run_doc(costs={"cuda.free": [2 * MiB] * 7}, timings={"alloc": [4.0] * 7})])
    report = compare(_current(doc), store)
    assert any("nvml.0.used was measured in" in p and "missing now" in p for p in report.infrastructure)
    assert report.exit_code() == EXIT_INFRASTRUCTURE


def test_interrupted_run_is_infrastructure():
    doc = _night("580.65.06", "2025-06-01T10:00:00Z", complete=False)
    doc["interrupted"] = {"signal": "SIGTERM", "at": "2025-06-01T10:05:00Z", "run_id": None, "repeat": None}
    report = compare(_current(doc), read_store("/nonexistent-store"))
    assert "interrupted by SIGTERM" in report.infrastructure[0]
    assert report.exit_code() == EXIT_INFRASTRUCTURE  # (without `interrupted`: test_incomplete.py)


def test_waived_run_is_noted_not_failed(tmp_path):
    doc = _night("580.65.06", "2025-06-01T10:00:00Z")
    waived = run_doc(api="cudaHostRegister", gpus=8)
    waived.update(status="waived", reason="needs 8 GPUs, 1 present", repeats=[], metrics={})
    doc["runs"].append(waived)
    report = compare(_current(doc), _store(tmp_path))
    assert report.infrastructure == []
    assert any("waived: needs 8 GPUs" in n for n in report.notes)


def test_replayed_baselines_are_never_used(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z", replay_of="x.json"))
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)), store)
    assert not report.baselines[PREVIOUS].found


def test_replayed_current_is_labelled(tmp_path):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z"))
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB, replay_of="x.json")), store)
    assert report.replayed
    assert report.exit_code() == EXIT_REGRESSION


@pytest.mark.parametrize("how", ["option", "scenario-record"])
def test_floor_per_scenario(tmp_path, how):
    store = _store(tmp_path, _night("572.16", "2025-05-01T10:00:00Z", cost=100 * MiB))
    doc = _night("580.65.06", "2025-06-01T10:00:00Z", cost=104 * MiB)  # +4%
    five = CompareOptions(floor=0.05)
    assert {v.verdict for v in _verdicts(compare(_current(doc), store, five)).values()} == {Verdict.SAME}
    if how == "option":
        options = CompareOptions(floor=0.05, scenario_floors={"quick-overhead": 0.03})
    else:
        doc["scenario"]["scenarios"] = [{"name": "quick-overhead", "options": {"relative_floor": 0.03}}]
        options = five
    report = compare(_current(doc), store, options)
    assert {v.verdict for v in _verdicts(report).values()} == {Verdict.REGRESSION}


def test_metric_without_samples_is_summary_only_never_judged(tmp_path):
    # What an older file's metric that `pinbench results upgrade` could not rebuild looks like.
    base = _night("572.16", "2025-05-01T10:00:00Z")
    base["runs"][0]["metrics"][METRIC]["samples"] = None
    store = _store(tmp_path, base)
    report = compare(_current(_night("580.65.06", "2025-06-01T10:00:00Z", cost=200 * MiB)), store)
    v = _verdicts(report)["quick-overhead/cudaMallocHost/64MiB/x1/g1"]
    assert v.verdict == Verdict.AMBIGUOUS
    assert v.comparison.reason.startswith("summary only: no per-repeat samples in the previous release 572.16")
    assert not report.bad_input  # 200 MiB more, but nothing to judge it on: not an error either
    current = _night("580.65.06", "2025-06-01T10:00:00Z")
    current["runs"][0]["metrics"][METRIC]["samples"] = None
    v = _verdicts(compare(_current(current), _store(tmp_path / "b", _night("572.16", "2025-05-01T10:00:00Z"))))
    assert v["quick-overhead/cudaMallocHost/64MiB/x1/g1"].comparison.reason.startswith(
        "summary only: no per-repeat samples in the current file"
    )


def test_replayed_file_does_not_report_the_replaying_binary_as_a_change():
    """Before: a replay made by a pinbench built with another compiler listed tool.compiler
    (the replaying binary's) among the environment changes."""
    base = results_doc([run_doc()])
    base["tool"]["compiler"] = "13.3.0"
    replayed = results_doc([run_doc()], replay_of="results/h200-quick/results.json")
    replayed["tool"] = {"name": "pinbench", "version": "0.2.0", "compiler": "14.2.0"}
    assert [c.field for c in environment_changes(_file(replayed), [_file(base)])] == []
    measured = results_doc([run_doc()])
    measured["tool"] = dict(replayed["tool"])
    assert [c.field for c in environment_changes(_file(measured), [_file(base)])] == ["tool.compiler", "tool.version"]


def test_a_stored_run_of_another_plan_is_no_baseline(tmp_path):
    """A run id whose params or size changed in the scenario (nightly.yaml's churn cycles) starts
    a new history: the stored runs of the old plan are not pooled with it."""
    old = _night("572.16", "2025-05-01T10:00:00Z", cost=2 * MiB)
    old["runs"][0]["plan"]["params"] = {"cycles": 8, "settle": "immediate"}
    store = _store(tmp_path, old)
    new = _night("580.65.06", "2025-06-01T10:00:00Z", cost=10 * MiB)
    new["runs"][0]["plan"]["params"] = {"cycles": 4, "settle": "immediate", "final_wait_s": 1.0}
    v = _verdicts(compare(_current(new), store))["quick-overhead/cudaMallocHost/64MiB/x1/g1"]
    assert v.comparison.verdict == Verdict.NO_BASELINE
    assert "another plan (params.cycles 8 -> 4): a new history" in v.comparison.reason
    # a param only one side records (an older writer's plan) is not a change
    new["runs"][0]["plan"]["params"]["cycles"] = 8
    assert _verdicts(compare(_current(new), store))["quick-overhead/cudaMallocHost/64MiB/x1/g1"].verdict == (
        Verdict.REGRESSION
    )


def test_plan_change_names_what_differs():
    base = {"kind": "churn", "api": "cudaMallocHost", "size_bytes": 1 << 30, "repeats": 3, "params": {"cycles": 8}}

    def change(current, stored):
        return plan_change(Plan.from_json(current), Plan.from_json(stored))

    assert change(dict(base, repeats=7, timeout_s=60), base) is None
    assert change(dict(base, size_bytes=1 << 28), base) == "size_bytes 1073741824 -> 268435456"
    assert change(dict(base, params={"cycles": 4}), base) == "params.cycles 8 -> 4"
    assert change(dict(base, params={"cycles": 8, "command": ["a", "b"]}), dict(base, params={"command": ["a"]})) == (
        "params.command ['a'] -> ['a', 'b']"
    )
    assert change({"api": "cudaMallocHost"}, base) is None
