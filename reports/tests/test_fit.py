"""The cost fit recovers known base and slope; the reserve it recommends."""

import pytest
from builders import GiB, MiB, results_doc, run_doc
from pinreport.analysis.fit import FitKey, fit_all, fit_cost, probe_family, recommend
from pinreport.readers.environment import store_key
from pinreport.readers.runs import Run


def _runs(doc):
    """A document's runs as the fits take them (readers/runs.py)."""
    return [Run.from_json(r) for r in doc["runs"]]


G = 2 * MiB


def test_exact_line_is_recovered():
    xs = [64 * MiB, 256 * MiB, 1 * GiB, 4 * GiB] * 3
    ys = [8 * MiB + 0.1 * x for x in xs]
    f = fit_cost(xs, ys, G)
    assert f.base == pytest.approx(8 * MiB, rel=1e-9)
    assert f.slope == pytest.approx(0.1, rel=1e-9)
    assert f.residual_sd == pytest.approx(0, abs=1e-3)
    # No scatter: the bound is the prediction plus one granule (the readings' resolution).
    assert f.upper_bound(2 * GiB) == pytest.approx(8 * MiB + 0.1 * 2 * GiB + G)
    assert not f.below_resolution and f.usable


def test_noisy_line_and_its_prediction_bound():
    import random

    rng = random.Random(3)
    xs = [s * MiB for s in (64, 256, 1024, 4096) for _ in range(7)]
    ys = [16 * MiB + 0.05 * x + rng.gauss(0, 2 * MiB) for x in xs]
    f = fit_cost(xs, ys, G)
    assert f.base == pytest.approx(16 * MiB, abs=2 * MiB)
    assert f.slope == pytest.approx(0.05, abs=0.002)
    assert f.upper_bound(2 * GiB) > f.predict(2 * GiB) + G
    # About 95% of fresh draws fall under the bound.
    fresh = [16 * MiB + 0.05 * 2 * GiB + rng.gauss(0, 2 * MiB) for _ in range(400)]
    covered = sum(y <= f.upper_bound(2 * GiB) for y in fresh) / len(fresh)
    assert 0.93 <= covered <= 1.0


def test_below_resolution():
    xs = [64 * MiB, 256 * MiB, 1 * GiB] * 7
    ys = [0, G, -G] * 7
    f = fit_cost(xs, ys, G)
    assert f.below_resolution
    assert f.predict(4 * GiB) == 0
    assert f.upper_bound(4 * GiB) == G


def test_not_enough_to_fit():
    assert "2 sizes" in fit_cost([64 * MiB] * 7, [10 * MiB] * 7, G).problem
    assert fit_cost([1, 2], [10 * MiB, 20 * MiB], G).problem
    assert fit_cost([], [], G).problem == "no samples"


def test_probe_family():
    assert probe_family("nvml.3.used") == "nvml.*.used"
    assert probe_family("cuda.free") == "cuda.free"


def _replayed_sweep(base, slope, gpus=1):
    """Replayed data with known values: cost = base + slope x (size x count) on every repeat."""
    runs = []
    for size in (64 * MiB, 256 * MiB, 1 * GiB):
        for count in (1, 4):
            c = int(base + slope * size * count)
            costs = {f"nvml.{i}.used": [c] * 7 for i in range(gpus)}
            costs["cuda.free"] = [c] * 7
            runs.append(run_doc(size=size, count=count, gpus=gpus, costs=costs))
    return results_doc(runs, gpu_count=max(gpus, 1), release="999.01-replayed", replay_of="h200.json")


def test_fit_from_replayed_documents_recovers_base_and_slope():
    doc = _replayed_sweep(base=24 * MiB, slope=0.125)
    fits = fit_all([(store_key(doc["environment"]), _runs(doc))])
    key = store_key(doc["environment"])
    f = fits[FitKey(key.group, "999.01-replayed", "cudaMallocHost", 1, "cuda.free")]
    assert f.base == pytest.approx(24 * MiB, abs=1)
    assert f.slope == pytest.approx(0.125, rel=1e-6)
    assert f.n == 42


def test_recommendation_for_several_gpus():
    doc = _replayed_sweep(base=24 * MiB, slope=0.125)
    key = store_key(doc["environment"])
    fits = fit_all([(key, _runs(doc))])
    (rec,) = recommend(fits, 2 * GiB, 4, {key.group: key.release})
    expected = 24 * MiB + 0.125 * 2 * GiB + G  # exact fit: prediction + one granule
    assert rec.per_gpu == pytest.approx(expected, rel=1e-6)
    assert rec.total == pytest.approx(4 * expected, rel=1e-6)
    assert rec.fit_gpus == 1
    assert any("assumes each of the 4 GPUs" in n for n in rec.notes)


def test_recommendation_prefers_runs_on_that_many_gpus():
    one = _replayed_sweep(base=24 * MiB, slope=0.125)
    four = _replayed_sweep(base=24 * MiB, slope=0.25, gpus=4)
    four["environment"] = one["environment"]  # same machine key
    key = store_key(one["environment"])
    fits = fit_all([(key, _runs(one)), (key, _runs(four))])
    (rec,) = recommend(fits, 1 * GiB, 4, {key.group: key.release})
    assert rec.fit_gpus == 4
    assert rec.per_gpu == pytest.approx(24 * MiB + 0.25 * GiB + G, rel=1e-6)
    assert rec.family in ("nvml.*.used", "cuda.free")
