"""The comparison rules on hand-computed cases (stats.py's docstring states the rules)."""

from math import comb

import pytest
from builders import MiB
from pinreport.analysis.stats import Verdict, compare_bytes, compare_times, extreme_chance, mann_whitney_p, median

G = 2 * MiB


def test_median_even_is_mean_of_middle():
    assert median([1, 2, 3, 4]) == 2.5
    assert median([5]) == 5
    with pytest.raises(ValueError):
        median([])


def test_bytes_separated_rise_is_regression():
    c = compare_bytes([2 * MiB] * 7, [10 * MiB] * 7, G)
    assert c.verdict == Verdict.REGRESSION
    assert c.delta == 8 * MiB
    assert (c.baseline_median, c.current_median, c.n_baseline, c.n_current) == (2 * MiB, 10 * MiB, 7, 7)


def test_bytes_separated_fall_is_improvement():
    assert compare_bytes([10 * MiB] * 7, [2 * MiB] * 7, G).verdict == Verdict.IMPROVEMENT


def test_bytes_direction_can_flip():
    assert compare_bytes([2 * MiB] * 7, [10 * MiB] * 7, G, higher_is_worse=False).verdict == Verdict.IMPROVEMENT


def test_bytes_change_under_one_granule_is_same():
    c = compare_bytes([2 * MiB] * 7, [3 * MiB] * 7, G)
    assert c.verdict == Verdict.SAME
    assert "less than one granule" in c.reason


def test_bytes_exactly_one_granule_counts():
    assert compare_bytes([0] * 7, [G] * 7, G).verdict == Verdict.REGRESSION


def test_bytes_occasional_granule_noise_is_same():
    assert compare_bytes([0] * 7, [0] * 6 + [G], G).verdict == Verdict.SAME


def test_bytes_overlap_is_ambiguous():
    base = [x * MiB for x in (0, 0, 0, 2, 2, 4, 8)]
    cur = [x * MiB for x in (4, 4, 6, 6, 6, 8, 8)]
    c = compare_bytes(base, cur, G)
    assert c.verdict == Verdict.AMBIGUOUS
    assert c.delta == 4 * MiB


def test_bytes_relative_floor():
    base, cur = [100 * MiB] * 7, [104 * MiB] * 7  # 4 MiB = 2 granules but 4% < 5%
    assert compare_bytes(base, cur, G, floor=0.05).verdict == Verdict.SAME
    assert compare_bytes(base, cur, G, floor=0.03).verdict == Verdict.REGRESSION
    # the default byte floor is 0: two granules with every sample separated is a change
    assert compare_bytes(base, cur, G).verdict == Verdict.REGRESSION


def test_one_granule_with_separated_samples_is_a_change_by_default():
    """An injected byte shift of one granule must be caught. On the H200 a 4 GiB
    cudaMallocHost costs 8 MiB on cuda.free with a 128 KiB granule: one granule is 1.6%, which
    the old 5% default floor hid."""
    g = 128 * 1024
    assert compare_bytes([8 * MiB] * 7, [8 * MiB + g] * 7, g).verdict == Verdict.REGRESSION
    assert compare_bytes([8 * MiB] * 7, [8 * MiB + g - 1] * 7, g).verdict == Verdict.SAME


def test_bytes_unknown_granule_means_one_byte():
    assert compare_bytes([1000] * 7, [1001] * 7, None, floor=0).verdict == Verdict.REGRESSION
    assert compare_bytes([1000] * 7, [1001] * 7, None, floor=0.05).verdict == Verdict.SAME


def test_too_few_repeats_is_ambiguous():
    c = compare_bytes([2 * MiB] * 6, [10 * MiB] * 7, G, min_repeats=7)
    assert c.verdict == Verdict.AMBIGUOUS
    assert "too few repeats: baseline 6, current 7, need 7" in c.reason
    assert compare_bytes([2 * MiB] * 6, [10 * MiB] * 7, G, min_repeats=6).verdict == Verdict.REGRESSION
    assert compare_bytes([2 * MiB] * 2, [10 * MiB] * 20, G).verdict == Verdict.AMBIGUOUS  # the default least is 3


def test_extreme_chance_is_the_least_p_of_a_rank_comparison():
    assert extreme_chance(7, 7) == pytest.approx(2 / comb(14, 7))
    assert extreme_chance(7, 3) == pytest.approx(2 / 120)
    assert extreme_chance(9, 3) == pytest.approx(2 / 220)
    # the exact Mann-Whitney test of samples wholly apart reaches it
    assert mann_whitney_p([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [20.0, 21.0, 22.0]) == pytest.approx(
        extreme_chance(9, 3)
    )


def test_three_repeats_decide_against_nine_pooled_and_not_against_seven():
    """A night stopped at 3 (the stopping rule) is judged against the pooled nights once wholly
    apart samples could not be chance at alpha: 3 against 9 (p 0.009), not 3 against 7 (0.017)."""
    c = compare_bytes([2 * MiB] * 7, [4 * MiB] * 3, G)
    assert c.verdict == Verdict.AMBIGUOUS
    assert "baseline 7, current 3, even samples wholly apart would be seen by chance with p=0.017" in c.reason
    assert compare_bytes([2 * MiB] * 9, [4 * MiB] * 3, G).verdict == Verdict.REGRESSION
    assert compare_bytes([2 * MiB] * 9, [2 * MiB] * 3, G).verdict == Verdict.SAME
    # alpha decides: at 0.02, 3 against 7 is enough
    assert compare_bytes([2 * MiB] * 7, [4 * MiB] * 3, G, alpha=0.02).verdict == Verdict.REGRESSION
    assert compare_times([1.0 + i / 100 for i in range(7)], [2.0, 2.1, 2.2]).verdict == Verdict.AMBIGUOUS
    assert compare_times([1.0 + i / 100 for i in range(9)], [2.0, 2.1, 2.2], floor=0.5).verdict == Verdict.REGRESSION


def test_no_baseline():
    assert compare_bytes([], [1.0] * 7, G).verdict == Verdict.NO_BASELINE
    assert compare_times([], [1.0] * 7).verdict == Verdict.NO_BASELINE


def test_time_separated_samples_exact_p():
    base = [10.0 + 0.1 * i for i in range(7)]
    cur = [12.0 + 0.1 * i for i in range(7)]
    c = compare_times(base, cur)
    # Complete separation of 7 vs 7: two of the C(14, 7) orderings are as extreme.
    assert c.p_value == pytest.approx(2 / comb(14, 7))
    assert c.verdict == Verdict.REGRESSION
    assert c.delta == pytest.approx(2.0)
    assert compare_times(cur, base).verdict == Verdict.IMPROVEMENT


def test_time_alpha_decides():
    base = [10.0 + 0.1 * i for i in range(7)]
    cur = [10.45 + 0.1 * i for i in range(7)]  # overlapping: p = 0.0041
    assert compare_times(base, cur).verdict == Verdict.REGRESSION
    assert compare_times(base, cur, alpha=0.001).verdict == Verdict.SAME
    # an alpha no comparison of these sizes can reach leaves it undecided, not SAME
    c = compare_times(base, [12.0 + 0.1 * i for i in range(7)], alpha=0.0005)
    assert c.verdict == Verdict.AMBIGUOUS and "p=0.00058, not below alpha 0.0005" in c.reason


def test_time_significant_but_under_floor_is_same():
    base = [10.00 + 0.01 * i for i in range(7)]
    cur = [10.10 + 0.01 * i for i in range(7)]  # +1%
    c = compare_times(base, cur, floor=0.05)
    assert c.p_value < 0.01
    assert c.verdict == Verdict.SAME
    assert "floor" in c.reason


def test_time_identical_samples():
    assert mann_whitney_p([3.0] * 7, [3.0] * 7) == 1.0
    assert compare_times([3.0] * 7, [3.0] * 7).verdict == Verdict.SAME


def test_time_interleaved_samples_are_same():
    base = [10.0, 10.2, 10.4, 10.6, 10.8, 11.0, 11.2]
    cur = [10.1, 10.3, 10.5, 10.7, 10.9, 11.1, 11.3]
    c = compare_times(base, cur)
    assert c.p_value > 0.5
    assert c.verdict == Verdict.SAME


def test_bandwidth_higher_is_better():
    base = [10.0 + 0.1 * i for i in range(7)]
    cur = [20.0 + 0.1 * i for i in range(7)]
    assert compare_times(base, cur, higher_is_worse=False, unit="GB/s").verdict == Verdict.IMPROVEMENT


# --- the night rule ------------------------------------------------------------------------------


def _night_samples(m: float, n: int = 7) -> list[float]:
    return [m - 1.5, m - 1, m - 0.5, m, m + 0.5, m + 1, m + 1.5][:n]


def test_night_rule_needs_two_nights():
    from pinreport.analysis.stats import compare_times_nights

    c = compare_times_nights([_night_samples(100)], _night_samples(200))
    assert c.verdict == Verdict.AMBIGUOUS
    assert c.reason.startswith("too few nights: 1 stored night(s) measured it, 2 needed")
    assert c.nights == 1 and c.p_value < 0.01  # the within-night test alone would have flagged it


def test_night_rule_judges_against_the_spread_between_nights():
    from pinreport.analysis.stats import compare_times_nights

    # nights at 100 and 104 ms: center 102, spread 4; a shift of 3 spreads (+12 ms) is detected
    nights = [_night_samples(100), _night_samples(104)]
    c = compare_times_nights(nights, _night_samples(114), floor=0.0)
    assert c.verdict == Verdict.REGRESSION
    assert (c.baseline_median, c.night_spread, c.nights) == (102.0, 4.0, 2)
    assert "beyond max(0% floor, 2 x spread) = 8 ms" in c.reason
    # 2 spreads exactly (+8 ms) is still noise
    assert compare_times_nights(nights, _night_samples(110), floor=0.0).verdict == Verdict.SAME
    # the time floor still applies: +12 ms is under 25% of 102 ms
    assert compare_times_nights(nights, _night_samples(114), floor=0.25).verdict == Verdict.SAME
    assert compare_times_nights(nights, _night_samples(80), floor=0.0).verdict == Verdict.IMPROVEMENT


def test_a_night_that_moved_by_49_percent_widens_the_margin():
    """The committed A/A pair: quick-overhead/cudaMallocHost/4GiB time.free_ms moved +49% between
    two machine starts. With that night in the history, the same move again is SAME; judged by
    the within-night repeats alone (the rule before) it was a REGRESSION."""
    from pinreport.analysis.stats import compare_times_nights

    nights = [_night_samples(100), _night_samples(149)]
    c = compare_times_nights(nights, _night_samples(150), floor=0.25)
    assert c.verdict == Verdict.SAME
    assert c.night_spread == 49.0 and "within max(25% floor, 2 x spread) = 98 ms" in c.reason
    assert compare_times(_night_samples(100), _night_samples(149), floor=0.25).verdict == Verdict.REGRESSION


def test_the_time_floor_is_a_factor_either_way():
    """With the default time floor (100%) a time must double or halve: +90% and -45% are SAME,
    +110% and -55% are changes. A linear floor of 100% could never see a time fall."""
    from pinreport.analysis.stats import DEFAULT_TIME_FLOOR, compare_times_nights, floor_distance

    assert DEFAULT_TIME_FLOOR == 1.0
    assert floor_distance(100.0, 1.0, rise=True) == 100.0
    assert floor_distance(100.0, 1.0, rise=False) == 50.0
    nights = [_night_samples(100), _night_samples(101)]
    judge = lambda m: compare_times_nights(nights, _night_samples(m), floor=DEFAULT_TIME_FLOOR)  # noqa: E731
    assert judge(190).verdict == Verdict.SAME
    assert judge(212).verdict == Verdict.REGRESSION
    assert judge(55.5).verdict == Verdict.SAME
    fell = judge(45)
    assert fell.verdict == Verdict.IMPROVEMENT
    assert "beyond max(100% floor (a fall to 1/2), 2 x spread)" in fell.reason
    assert "under the 100% floor (a fall to 1/2)" in compare_times([10.0] * 7, [6.0] * 7, floor=1.0).reason
