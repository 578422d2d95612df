"""The one Google Benchmark JSON loader (gbench.py) that the report and benchmarks/summarize.py share."""

import json

import pytest
from conftest import REPO_ROOT
from pinreport.readers.bench_rows import read_bench
from pinreport.readers.gbench import NotBenchmarkJson, base_name, load_bench


def test_base_name_strips_google_benchmark_suffixes():
    assert base_name("staging/h2d/1GiB/K:2/C:32MiB/T:8/iterations:1/repeats:7/manual_time") == (
        "staging/h2d/1GiB/K:2/C:32MiB/T:8"
    )
    assert base_name("transfer/pinned/h2d/1GiB/manual_time") == "transfer/pinned/h2d/1GiB"


def test_only_median_rows_without_errors(tmp_path):
    rows = [
        {"run_name": "transfer/pinned/h2d/1GiB/repeats:3", "aggregate_name": "mean", "GBps": 1.0},
        {"run_name": "transfer/pinned/h2d/1GiB/repeats:3", "aggregate_name": "median", "GBps": 2.0, "bytes": 2**30},
        {"run_name": "transfer/pageable/h2d/1GiB/repeats:3", "aggregate_name": "median", "error_occurred": True},
    ]
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"context": {"pcie.link_bytes_per_second": "not computed"}, "benchmarks": rows}))
    bench = load_bench(path)
    assert list(bench.medians) == ["transfer/pinned/h2d/1GiB"]
    assert bench.gbps("transfer/pinned/h2d/1GiB") == 2.0
    assert bench.link_bytes_per_second() is None
    assert not bench.replayed


def test_not_a_benchmark_file_is_named(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{"runs": []}')
    with pytest.raises(NotBenchmarkJson, match="results.json: not a Google Benchmark JSON file"):
        load_bench(path)
    rows = read_bench([str(path), str(REPO_ROOT / "results/h200-bench/transfer_bench.json")])
    assert rows.problems == [f"{path}: not a Google Benchmark JSON file ('benchmarks')"]
    assert rows.files == [str(REPO_ROOT / "results/h200-bench/transfer_bench.json")]


def test_the_committed_h200_run_reads_alike_in_both_users():
    """The report's rows are the loader's medians: every transfer row of the committed run, at its
    fraction of the link."""
    path = REPO_ROOT / "results/h200-bench/transfer_bench.json"
    medians = load_bench(path).medians
    rows = read_bench([str(path)]).transfer
    assert len(rows) == sum(1 for n in medians if n.startswith("transfer/")) > 0
    for r in rows:
        name = f"transfer/{r.kind}/{r.op}/"
        (row,) = [m for n, m in medians.items() if n.startswith(name) and float(m["bytes"]) == r.bytes]
        assert r.fraction == row["fraction_of_link"]
