from builders import MiB, run_doc
from pinreport.samples import describe_key, metric_samples, run_samples, split_metric


def test_describe_key_mirrors_cpp():
    assert describe_key("cuda.free").direction == "available"
    assert describe_key("nvml.0.used").direction == "usage"
    assert describe_key("cuda.total").direction == "fixed"
    assert describe_key("dxgi.local.budget").direction == "fixed"
    assert describe_key("dxgi.nonlocal.usage").budget == "shared"
    assert describe_key("pdh.process.shared").budget == "shared"
    assert describe_key("pdh.process.dedicated").budget == "dedicated"


def test_split_metric():
    assert split_metric("cost.after_first_use.nvml.0.used") == ("cost.after_first_use", "nvml.0.used")
    assert split_metric("residual.after_free.cuda.free") == ("residual.after_free", "cuda.free")
    assert split_metric("time.alloc_ms") is None


def test_samples_rebuilt_from_snapshots():
    run = run_doc(
        costs={"cuda.free": [2 * MiB, 4 * MiB, 0], "nvml.0.used": [6 * MiB] * 3},
        residuals={"cuda.free": [0, 2 * MiB, 0]},
        timings={"alloc": [1.5, 2.5, 3.5]},
    )
    assert metric_samples(run, "cost.after_alloc.cuda.free") == [2 * MiB, 4 * MiB, 0]
    assert metric_samples(run, "cost.after_first_use.nvml.0.used") == [6 * MiB] * 3
    assert metric_samples(run, "residual.after_free.cuda.free") == [0, 2 * MiB, 0]
    assert metric_samples(run, "time.alloc_ms") == [1.5, 2.5, 3.5]
    assert set(run_samples(run)) == set(run["metrics"])


def test_unavailable_reading_gives_no_samples():
    run = run_doc(costs={"cuda.free": [2 * MiB] * 3})
    run["repeats"][1]["snapshots"][1]["readings"]["cuda.free"] = {"unavailable": "gone"}
    assert metric_samples(run, "cost.after_alloc.cuda.free") is None
    assert metric_samples(run, "cost.after_first_use.cuda.free") == [2 * MiB] * 3


def test_only_ok_repeats_count():
    run = run_doc(costs={"cuda.free": [2 * MiB, 8 * MiB, 2 * MiB]})
    run["repeats"][1]["status"] = "failed"
    assert metric_samples(run, "cost.after_alloc.cuda.free") == [2 * MiB, 2 * MiB]


def test_summary_matches_guards_the_mirror():
    from pinreport.samples import summary_matches

    run = run_doc(costs={"cuda.free": [2 * MiB, 4 * MiB, 0, 6 * MiB]})
    m = run["metrics"]["cost.after_alloc.cuda.free"]
    samples = metric_samples(run, "cost.after_alloc.cuda.free")
    assert m["median"] == 3 * MiB  # even n: mean of the middle two
    assert summary_matches(m, samples)
    assert not summary_matches(dict(m, median=m["median"] + 1), samples)
    assert not summary_matches(dict(m, n=3), samples)
