"""Tests for benchmarks/summarize.py: hand-computed cases, then the committed H200 run."""

from pathlib import Path

import pytest
import summarize as s

RUN = Path(__file__).resolve().parent.parent / "results" / "h200-bench"
MiB, GiB = s.MiB, s.GiB


def ring(size, k, c_mib, t, gbps, op="h2d"):
    return s.Ring(op, size, k, c_mib * MiB, t, gbps)


def test_sizes_round_trip():
    assert s.size_bytes("4KiB") == 4096
    assert s.size_label(s.size_bytes("32MiB")) == "32MiB"
    assert s.size_label(3 * MiB) == "3MiB"
    with pytest.raises(ValueError):
        s.size_bytes("1GB")


def test_knee_is_first_point_within_share_of_max():
    pts = [
        (2 * MiB, ring(GiB, 2, 1, 8, 10.0)),
        (4 * MiB, ring(GiB, 2, 2, 8, 19.0)),
        (8 * MiB, ring(GiB, 2, 4, 8, 20.0)),
    ]
    assert s.knee(pts).pinned == 4 * MiB  # 19 >= 0.95 * 20
    assert s.knee([]) is None


def test_target_needs_the_same_config_at_both_sizes():
    base = {GiB: 50.0, 4 * GiB: 50.0}
    rings = [
        ring(GiB, 2, 8, 8, 46.0),
        ring(4 * GiB, 2, 8, 8, 44.0),
        ring(GiB, 4, 16, 8, 47.0),
        ring(4 * GiB, 4, 16, 8, 46.0),
    ]
    met = s.smallest_meeting(rings, [GiB, 4 * GiB], base, 0.90)
    assert (met.k, met.c, met.t) == (4, 16 * MiB, 8)  # 2x8MiB fails at 4 GiB (0.88)
    assert s.smallest_meeting(rings, [GiB, 4 * GiB], base, 0.95) is None
    best, ratio = s.best_min_ratio(rings, [GiB, 4 * GiB], base, 32 * MiB)
    assert (best.k, best.c) == (2, 8 * MiB)  # 4x16MiB is over the limit
    assert ratio == pytest.approx(0.88)


@pytest.mark.skipif(not (RUN / "staging_bench.json").exists(), reason="committed H200 run not present")
def test_committed_h200_numbers():
    transfer = s.load_bench(RUN / "transfer_bench.json")
    link = transfer.link_bytes_per_second()
    assert link == pytest.approx(63.015e9, rel=1e-4)
    assert transfer.gbps("transfer/pinned/h2d/1GiB") * 1e9 / link == pytest.approx(0.880, abs=5e-4)
    staging = s.load_bench(RUN / "staging_bench.json")
    rings = s.ring_rows(staging)
    best = s.best_ring(rings, "h2d", GiB, 64 * MiB)
    assert (best.k, best.c, best.t) == (2, 32 * MiB, 8)
    assert best.gbps / staging.gbps("staging_baseline/pinned/h2d/1GiB") == pytest.approx(0.849, abs=5e-4)
    base = {z: staging.gbps(f"staging_baseline/pinned/h2d/{s.size_label(z)}") for z in (GiB, 4 * GiB)}
    assert s.smallest_meeting(rings, [GiB, 4 * GiB], base, 0.90) is None
