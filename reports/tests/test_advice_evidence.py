"""advice/evidence.py over the committed H200 benchmark files, stored runs and the H100 budget:
the row or run each number is read from, at the nearest measured size, and what is missing (and
what to run) where the evidence is of another machine or absent."""

import json

import pytest
from advice_data import GIB, H100_BUDGET, MIB, STAGING, TRANSFER, h200_runs, trace
from builders import document
from pinreport.advice.evidence import (
    RUN_BUDGET,
    RUN_STAGING,
    RUN_TRANSFER,
    Benches,
    Machine,
    Missing,
    StoredRun,
    budget_for,
    load_benches,
    pageable_speed,
    register_window_speed,
    ring_speed,
)
from pinreport.readers.budget import load_budget
from pinreport.readers.results import ResultsFile

H200 = Machine("NVIDIA H200", "580.159.04")


def _median(path, name):
    doc = json.loads(path.read_text())
    return next(
        b for b in doc["benchmarks"] if b.get("aggregate_name") == "median" and b["run_name"].startswith(name + "/")
    )


def test_the_machine_of_a_trace_and_of_a_benchmark_file_agree():
    assert Machine.from_environment(trace("trace-dataloader-w4.json").environment) == H200
    assert all(Machine.from_bench(b) == H200 for b in load_benches([str(TRANSFER), str(STAGING)]).files)


def test_pageable_speed_is_the_transfer_rows_at_the_nearest_size():
    p = pageable_speed(load_benches([str(TRANSFER)]), H200, 300 * MIB)
    pinned = _median(TRANSFER, "transfer/pinned/h2d/256MiB")["GBps"]
    pageable = _median(TRANSFER, "transfer/pageable/h2d/256MiB")["GBps"]
    assert p.size == 256 * MIB, "300 MiB is nearer 256 MiB than 1 GiB on a log scale"
    assert p.ratio == pytest.approx(pageable / pinned)
    assert 0.10 < p.ratio < 0.15, "pageable copies ran at about 12% of pinned on the H200"
    assert "transfer/pageable/h2d/256MiB" in p.source.item and p.source.path == str(TRANSFER)
    d2h = pageable_speed(load_benches([str(TRANSFER)]), H200, 3 * GIB, "d2h")
    assert d2h.size == 4 * GIB and "d2h" in d2h.source.item


def test_ring_speed_is_the_nearest_ring_at_the_nearest_size_against_that_files_pinned_row():
    point, ring = ring_speed(load_benches([str(STAGING)]), H200, 300 * MIB, 64 * MIB)
    assert ring == 64 * MIB and point.size == GIB
    best = max(
        (
            b
            for b in json.loads(STAGING.read_text())["benchmarks"]
            if b.get("aggregate_name") == "median"
            and b["run_name"].startswith("staging/h2d/1GiB/")
            and b.get("pinned_bytes") == 64 * MIB
        ),
        key=lambda b: b["GBps"],
    )
    base = _median(STAGING, "staging_baseline/pinned/h2d/1GiB")
    assert point.ratio == pytest.approx(best["GBps"] / base["GBps"])
    assert best["run_name"].split("/iterations")[0] in point.source.item


def test_evidence_of_another_machine_is_missing_and_says_what_to_run(tmp_path):
    doc = json.loads(TRANSFER.read_text())
    doc["context"]["gpu.name"] = "NVIDIA H100 80GB HBM3"
    other = tmp_path / "transfer_bench.json"
    other.write_text(json.dumps(doc))
    got = pageable_speed(load_benches([str(other)]), H200, 300 * MIB)
    assert isinstance(got, Missing)
    assert "NVIDIA H100 80GB HBM3" in got.why and got.run == RUN_TRANSFER
    none = ring_speed(Benches(), H200, 300 * MIB, 64 * MIB)
    assert isinstance(none, Missing) and none.run == RUN_STAGING and "no staging rows" in none.why


def test_a_file_that_is_no_benchmark_is_a_problem_named_and_the_others_are_read(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    b = load_benches([str(bad), str(TRANSFER)])
    assert len(b.files) == 1 and len(b.problems) == 1 and str(bad) in b.problems[0]


def test_register_window_speed_is_kept_over_windowed_time_of_the_stored_run():
    p = register_window_speed(h200_runs(), H200, 300 * MIB)
    assert p.size == GIB
    assert p.ratio == pytest.approx(1 / 3.929985446664852), "nightly-free-vram's 1 GiB run: time ratio 3.93"
    assert p.source.item == "nightly-register-window/cudaHostRegister/1GiB/x1/g1"
    assert "nightly-free-vram" in p.source.path
    small = register_window_speed(h200_runs(), H200, 32 * MIB)
    assert small.size == 64 * MIB and small.ratio == pytest.approx(1 / 3.7245792323038547)


def test_register_window_speed_without_stored_runs_is_missing():
    runs = [StoredRun(r.path, ResultsFile.of(r.path, {**document(r), "runs": []})) for r in h200_runs()]
    got = register_window_speed(runs, H200, GIB)
    assert isinstance(got, Missing) and "register_window" in got.why
    assert isinstance(register_window_speed(h200_runs(), Machine("NVIDIA H100", "580.159.04"), GIB), Missing)


def test_a_budget_is_used_only_for_its_own_machine():
    budget = load_budget(H100_BUDGET)
    other = budget_for(budget, H200)
    assert isinstance(other, Missing) and "NVIDIA H100" in other.why and other.run == RUN_BUDGET
    h100 = Machine.from_environment(budget.environment)
    doc, source = budget_for(budget, h100)
    assert doc.safe_budget == budget.safe_budget and source.path == str(H100_BUDGET)
    assert isinstance(budget_for(None, H200), Missing)
