"""rope_core.beyond.paired: Student's paired t test across seeds, Holm's correction, and the
test's coverage on simulated pairs."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rope_core import RopeError
from rope_core.beyond import intervals, paired

T4 = 2.776445  # Student's t, 4 degrees of freedom, 97.5% (table)


def test_paired_difference_by_hand():
    """Five seeds whose differences are 0.10, 0.12, 0.08, 0.11, 0.09: mean 0.1, sd
    sqrt(0.001 / 4) = 0.015811, se 0.0070711, t = 14.142; p = P(|T_4| >= 14.142) from the
    closed form of df 4: 1 - sin u (1 + cos^2 u / 2), u = atan(t / 2)."""
    d = np.array([0.10, 0.12, 0.08, 0.11, 0.09])
    b = np.tile(np.array([[0.5], [0.4], [0.6], [0.3], [0.7]]), (1, 8))  # (5, 8)
    a = b + d[:, None]
    r = paired.paired_difference(a, b)
    se = math.sqrt(0.001 / 4) / math.sqrt(5)
    assert math.isclose(r["difference"], 0.1, rel_tol=1e-12)
    assert math.isclose(r["t"], 0.1 / se, rel_tol=1e-9)
    assert math.isclose(r["ci_low"], 0.1 - T4 * se, rel_tol=1e-5)
    assert math.isclose(r["ci_high"], 0.1 + T4 * se, rel_tol=1e-5)
    u = math.atan(r["t"] / 2)
    assert math.isclose(r["p"], 1 - math.sin(u) * (1 + math.cos(u) ** 2 / 2), rel_tol=1e-9)
    assert r["df"] == 4 and r["seeds_a_higher"] == 5


def test_the_difference_is_per_seed_then_across_seeds():
    """Sequences of one seed are averaged first: the t test sees five numbers."""
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0, 1, (5, 20)), rng.uniform(0, 1, (5, 20))
    d = (a - b).mean(1)
    r = paired.paired_difference(a, b)
    t = d.mean() / (d.std(ddof=1) / math.sqrt(5))
    assert math.isclose(r["t"], t, rel_tol=1e-12)
    assert math.isclose(r["p"], intervals.t_p_value(t, 4), rel_tol=1e-12)


def test_equal_differences_have_no_spread():
    same = np.full((5, 4), 0.5)
    r = paired.paired_difference(same, same)
    assert (r["difference"], r["ci_low"], r["ci_high"], r["p"]) == (0.0, 0.0, 0.0, 1.0)
    r = paired.paired_difference(same + 0.25, same)
    assert r["p"] == 0.0 and r["ci_low"] == r["ci_high"] == 0.25
    with pytest.raises(RopeError, match="a"):
        paired.paired_difference(np.ones((5, 3)), np.ones((4, 3)))


def test_holm_by_hand():
    """p = 0.01, 0.04, 0.03, 0.005 (m = 4): sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1
    = 0.02, 0.03, 0.06, 0.04, then running maxima 0.02, 0.03, 0.06, 0.06."""
    got = paired.holm([0.01, 0.04, 0.03, 0.005])
    assert got == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert paired.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    with pytest.raises(RopeError, match="p"):
        paired.holm([0.2, 1.5])


@settings(max_examples=40, deadline=None)
@given(p=st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_is_between_the_raw_p_and_bonferroni(p):
    got = paired.holm(p)
    raw = np.array(p)
    assert (got >= raw - 1e-15).all() and (got <= np.minimum(1, len(p) * raw) + 1e-15).all()
    order = np.argsort(raw, kind="stable")
    assert (np.diff(got[order]) >= -1e-15).all()  # monotone in the raw p


def test_simultaneous_intervals_from_the_closed_form():
    """Bonferroni's level for m = 102 comparisons, 1 - 0.05/102; with three seeds (df 2)
    Student's P(|T| <= t) = t / sqrt(2 + t^2) = L gives t = L sqrt(2 / (1 - L^2)), so the
    interval is mean d -+ that t times se. With five seeds (df 4), P(|T| <= t) =
    sin u (1 + cos^2 u / 2), u = atan(t / 2), is L at the interval's t: 10.359 (the
    review's 10.36)."""
    level = paired.simultaneous_level(102)
    assert level == 1 - 0.05 / 102
    d = np.array([0.10, 0.30, 0.20])  # mean 0.2, sd 0.1
    b = np.tile(np.array([[0.5], [0.4], [0.6]]), (1, 4))
    r = paired.paired_difference(b + d[:, None], b, level=level)
    t = level * math.sqrt(2 / (1 - level**2))
    se = 0.1 / math.sqrt(3)
    assert math.isclose(r["ci_low"], 0.2 - t * se, rel_tol=1e-9)
    assert math.isclose(r["ci_high"], 0.2 + t * se, rel_tol=1e-9)
    d5 = np.array([0.10, 0.12, 0.08, 0.11, 0.09])
    b5 = np.tile(np.array([[0.5], [0.4], [0.6], [0.3], [0.7]]), (1, 8))
    r5 = paired.paired_difference(b5 + d5[:, None], b5, level=level)
    t5 = (r5["ci_high"] - r5["difference"]) / (math.sqrt(0.001 / 4) / math.sqrt(5))
    u = math.atan(t5 / 2)
    assert math.isclose(math.sin(u) * (1 + math.cos(u) ** 2 / 2), level, rel_tol=1e-10)
    assert abs(t5 - 10.36) < 5e-3
    # the default is the 95% interval
    assert paired.paired_difference(b5 + d5[:, None], b5) == paired.paired_difference(
        b5 + d5[:, None], b5, level=0.95)
    with pytest.raises(RopeError, match="comparisons"):
        paired.simultaneous_level(0)
    with pytest.raises(RopeError, match="level"):
        paired.paired_difference(b5, b5, level=1.0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(2, 40))
def test_a_simultaneous_interval_clear_of_0_is_a_holm_resolved_difference(seed, m):
    """A family of m paired comparisons: an interval at Bonferroni's level excludes 0
    exactly when m p < 0.05, and then Holm's corrected p is below 0.05."""
    rng = np.random.default_rng(seed)
    level = paired.simultaneous_level(m)
    rows = []
    for _ in range(m):
        b = rng.uniform(0.2, 0.8, (5, 6))
        a = np.clip(b + rng.normal(rng.uniform(-0.3, 0.3), rng.uniform(0.005, 0.1), (5, 1)),
                    0, 1)
        rows.append(paired.paired_difference(a, b, level=level))
    p = np.array([r["p"] for r in rows])
    corrected = paired.holm(p)
    for r, p_holm in zip(rows, corrected):
        clear = r["ci_low"] > 0 or r["ci_high"] < 0
        if abs(m * r["p"] - 0.05) > 1e-9:  # away from the tie, where rounding decides
            assert clear == (m * r["p"] < 0.05)
        if clear:
            assert p_holm < 0.05


def test_the_coverage_grid_and_its_cases():
    """2 designs x 11 pairs of arms x 3 seed spreads x 2 correlations x 2 sequence
    spreads = 264 points, seeded by their index; the cases by hand."""
    grid = paired.coverage_grid()
    assert len(grid) == 264 and [p["seed"] for p in grid] == list(range(264))
    assert {p["case"] for p in grid} == set(paired.COVERAGE)
    assert paired.coverage_case(4.0, 2.0, 1.0) == paired.NEAR  # arm a at 6: 99.75%
    assert paired.coverage_case(4.0, 2.0, 0.5) == paired.AWAY  # the seeds agree
    assert paired.coverage_case(0.0, 1.0, 1.5) == paired.AWAY  # 50% against 73%


# the grid's points (their seeds) where benchmarks/interval_coverage.py found the lowest and
# highest coverage of each case, and the lowest and highest rejection rate at no difference
ENDS = {paired.AWAY: (97, 170), paired.NEAR: (106, 172)}
REJECTED_ENDS = (172, 153)


def grid_point(seed: int) -> tuple[float, float]:
    p = paired.coverage_grid()[seed]
    return paired.coverage(p["difference_logit"], p["seed_sd"], p["sequence_sd"],
                           correlation=p["correlation"], sequences=p["sequences"],
                           answers=p["answers"], mu_logit=p["mu_logit"],
                           reps=paired.COVERAGE_REPS, seed=p["seed"])


@pytest.mark.parametrize("case", list(paired.COVERAGE))
def test_the_stated_coverage_is_what_the_simulations_give(case):
    """Review of issue 44, finding 16: the ends of each stated range, recomputed at the
    grid's points where the benchmark found them (same seeds, same experiments)."""
    lowest, highest = ENDS[case]
    grid = paired.coverage_grid()
    assert grid[lowest]["case"] == grid[highest]["case"] == case
    assert (grid_point(lowest)[0], grid_point(highest)[0]) == paired.COVERAGE[case]


def test_the_stated_rejection_rate_at_no_difference():
    lowest, highest = REJECTED_ENDS
    grid = paired.coverage_grid()
    assert grid[lowest]["difference_logit"] == grid[highest]["difference_logit"] == 0
    assert (grid_point(lowest)[1], grid_point(highest)[1]) == paired.REJECTED_AT_ZERO


@pytest.mark.parametrize("difference, mu, sequences, answers", [
    (0.0, 0.0, 52, 13),    # no difference: about 5% of the tests reject
    (1.0, 0.0, 52, 13),    # a difference at 50%
    (-3.0, 4.0, 20, 3),    # a recall cell: from about 98% down to about 73%
])
def test_the_paired_interval_holds_95_percent_on_simulated_pairs(difference, mu, sequences,
                                                                 answers):
    held, rejected = paired.coverage(difference, 1.0, 1.0, mu_logit=mu, sequences=sequences,
                                     answers=answers, reps=800, seed=5)
    assert 0.925 <= held <= 0.975, held
    if difference == 0.0:
        assert 0.025 <= rejected <= 0.075, rejected
