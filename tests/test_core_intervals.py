"""rope_core.beyond.intervals: Student's t, the interval over seeds and sequences (the seeds'
range), its coverage on simulated experiments."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rope_core import RopeError
from rope_core.beyond import intervals

Z = 1.959963984540054  # the normal 97.5% quantile


def t_density_integral(t: float, df: int, steps: int = 20_000) -> float:
    """P(|T| <= t) by Simpson's rule on Student's density
    Gamma((df+1)/2) / (sqrt(df pi) Gamma(df/2)) (1 + x^2/df)^(-(df+1)/2): a second
    formulation, independent of the closed form under test."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    xs = np.linspace(-t, t, steps + 1)
    f = c * (1 + xs**2 / df) ** (-(df + 1) / 2)
    h = 2 * t / steps
    return float(h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum()))


def test_t_quantiles_match_their_closed_forms_and_the_table():
    # df 1 (Cauchy): P(|T| <= t) = 2 atan(t) / pi, so t = tan(0.475 pi)
    assert math.isclose(intervals.t_quantile(1), math.tan(0.475 * math.pi), rel_tol=1e-9)
    # df 2: P(|T| <= t) = t / sqrt(2 + t^2) = 0.95 -> t^2 = 2 * 0.9025 / 0.0975
    assert math.isclose(intervals.t_quantile(2), math.sqrt(2 * 0.9025 / 0.0975), rel_tol=1e-9)
    # df 4: Student's table, 2.776
    assert abs(intervals.t_quantile(4) - 2.776) < 5e-4
    # many degrees of freedom: the normal quantile
    assert abs(intervals.t_quantile(10**6) - Z) < 1e-5


@settings(max_examples=30, deadline=None)
@given(df=st.integers(1, 9), t=st.floats(0.05, 8.0))
def test_t_distribution_function_is_the_integral_of_the_density(df, t):
    assert abs(intervals.student_t_two_sided(t, df) - t_density_integral(t, df)) < 1e-8


def test_p_values_are_the_two_tails():
    # df 1: P(|T| >= 1) = 1 - 2 atan(1) / pi = 0.5; df 2: P(|T| >= t) = 1 - t / sqrt(2 + t^2)
    assert math.isclose(intervals.t_p_value(1.0, 1), 0.5, rel_tol=1e-12)
    assert math.isclose(intervals.t_p_value(-3.0, 2), 1 - 3 / math.sqrt(11), rel_tol=1e-12)
    assert intervals.t_p_value(0.0, 4) == 1.0 and intervals.t_p_value(math.inf, 4) == 0.0
    assert math.isclose(intervals.t_p_value(intervals.t_quantile(4), 4), 0.05, rel_tol=1e-9)
    with pytest.raises(RopeError, match="t"):
        intervals.t_p_value(math.nan, 4)


def test_the_interval_is_the_seeds_range_by_hand():
    """The local design, 52 sequences of 32 answers: seeds at 90, 95, 99, 100 and 100% give
    [0.90, 1] (b = 0.997785, below). Three seeds of two sequences of 4 answers (n = 8 a
    seed) at 75, 75 and 100%: one seed's 8 answers all right only place it above
    b = 0.025^(1/8) = exp(ln 0.025 / 8) = exp(-0.461110) = 0.630583, so the interval
    reaches that far: [0.630583, 1]."""
    per_seed = np.array([0.90, 0.95, 0.99, 1.0, 1.0])
    local = np.repeat(per_seed[:, None], 52, axis=1)  # (5, 52)
    low, high = intervals.seed_interval(local, 32)
    assert math.isclose(low, 0.90, rel_tol=1e-12) and high == 1.0
    a = np.array([[1.0, 0.5], [0.75, 0.75], [1.0, 1.0]])
    low, high = intervals.seed_interval(a, 4)
    assert abs(low - 0.630583) < 1e-6 and high == 1.0
    assert low == intervals.all_right_lower(8)
    # in the middle the range alone: seeds at 40, 50 and 60% of 10 sequences of 8 answers
    mid = np.repeat(np.array([0.4, 0.5, 0.6])[:, None], 10, axis=1)
    assert intervals.seed_interval(mid, 8) == pytest.approx((0.4, 0.6), rel=1e-12)


def test_at_the_boundary_the_interval_reaches_one_seeds_exact_bound():
    """All answers right: [b, 1], b = 0.025^(1/1664) (Clopper-Pearson for one seed's
    1,664 answers all right): exp(ln 0.025 / 1664) = exp(-0.00221688) = 0.997785.
    Seeds at 99.9% are closer to 100% than that: the interval still reaches b. All wrong:
    [0, 1 - b]. A recall cell, 20 sequences of 3: 0.025^(1/60) = exp(-0.0614813) = 0.940371."""
    low, high = intervals.seed_interval(np.ones((5, 52)), 32)
    assert high == 1.0 and abs(low - 0.997785) < 1e-6
    assert math.isclose(low ** 1664, 0.025, rel_tol=1e-12)
    assert intervals.seed_interval(np.full((5, 52), 0.999), 32)[0] == low
    low0, high0 = intervals.seed_interval(np.zeros((5, 52)), 32)
    assert low0 == 0.0 and math.isclose(high0, 1 - low, rel_tol=1e-12)
    assert abs(intervals.seed_interval(np.ones((5, 20)), 3)[0] - 0.940371) < 1e-6
    with pytest.raises(RopeError):
        intervals.seed_interval(np.ones((1, 52)), 13)
    with pytest.raises(RopeError):
        intervals.seed_interval(np.full((5, 3), 1.5), 13)
    with pytest.raises(RopeError, match="answers"):
        intervals.seed_interval(np.ones((5, 3)), 0)


def test_more_errors_never_give_a_narrower_interval_near_100_percent():
    """Review of issue 44, finding 2: local positions 96-127, 8,320 answers (5 seeds x 52
    x 32). No wrong answer, one, and nine in one seed: the lower ends never rise,
    0.997785, 0.997785 (its seed's 1,663/1,664 = 0.999399 is above b), 1 - 9/1,664 =
    0.994591."""
    table = np.ones((5, 52, 32))  # (seeds, sequences, answers) right or wrong
    lows = []
    for wrong in (0, 1, 9):
        t = table.copy()
        t[0, :wrong, 0] = 0  # in seed 0, one answer of each of the first `wrong` sequences
        lows.append(intervals.seed_interval(t.mean(-1), 32)[0])
    assert lows[0] == lows[1] and abs(lows[0] - 0.997785) < 1e-6
    assert math.isclose(lows[2], 1 - 9 / 1664, rel_tol=1e-12)


@st.composite
def count_tables(draw):
    """(S, J) counts of right answers out of w per sequence."""
    seeds, sequences, w = draw(st.integers(2, 7)), draw(st.integers(1, 12)), draw(
        st.integers(1, 16))
    cells = draw(st.lists(st.integers(0, w), min_size=seeds * sequences,
                          max_size=seeds * sequences))
    return np.array(cells, dtype=np.int64).reshape(seeds, sequences), w


@settings(max_examples=200, deadline=None)
@given(table=count_tables(), data=st.data())
def test_neither_end_rises_when_a_right_answer_becomes_wrong(table, data):
    """Monotone in the errors, over random count tables: take a right answer away from a
    random sequence (again and again); the lower end never rises, nor does the upper."""
    counts, w = table
    low, high = intervals.seed_interval(counts / w, w)
    for _ in range(data.draw(st.integers(1, 6))):
        right = np.argwhere(counts > 0)
        if not len(right):
            break
        s, j = right[data.draw(st.integers(0, len(right) - 1))]
        counts = counts.copy()
        counts[s, j] -= 1
        new_low, new_high = intervals.seed_interval(counts / w, w)
        assert new_low <= low and new_high <= high
        low, high = new_low, new_high


@settings(max_examples=50, deadline=None)
@given(table=count_tables())
def test_the_interval_holds_every_seed_and_the_pooled_mean(table):
    counts, w = table
    a = counts / w
    low, high = intervals.seed_interval(a, w)
    means = a.mean(axis=1)
    assert 0.0 <= low <= means.min() and means.max() <= high <= 1.0
    assert low <= a.mean() <= high


def test_students_t_over_the_seeds_is_not_monotone():
    """Why the interval is not Student's t (the module): seeds at 100, 90, 90, 90, 90%:
    mean 0.92, sd sqrt((0.08^2 + 4 x 0.02^2) / 4) = 0.0447214, lower end 0.92 - 2.776445 x
    0.0447214 / sqrt 5 = 0.864471; seeds at 99, 90, 90, 90, 90% (one more error): mean
    0.918, sd sqrt((0.072^2 + 4 x 0.018^2) / 4) = 0.0402492, 0.868025, higher."""
    t4 = 2.776445  # Student's t, 4 degrees of freedom, 97.5% (table)

    def student_low(seeds):
        seeds = np.array(seeds)
        return seeds.mean() - t4 * seeds.std(ddof=1) / math.sqrt(seeds.size)
    assert abs(student_low([1.0, 0.9, 0.9, 0.9, 0.9]) - 0.864471) < 2e-6
    assert abs(student_low([0.99, 0.9, 0.9, 0.9, 0.9]) - 0.868025) < 2e-6
    # the seeds' range: 0.90 both times
    for top in (1.0, 0.99):
        a = np.repeat(np.array([top, 0.9, 0.9, 0.9, 0.9])[:, None], 52, axis=1)
        assert math.isclose(intervals.seed_interval(a, 32)[0], 0.9, rel_tol=1e-12)


def beta_median(a: int) -> float:
    """The median of Beta(a, 2), whose distribution function is x^a (a + 1 - a x), by
    bisection."""
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if mid**a * (a + 1 - a * mid) < 0.5 else (low, mid)
    return (low + high) / 2


def test_the_seeds_range_holds_their_median_in_15_of_16_experiments():
    """The order-statistic interval: five seeds from any continuous distribution straddle
    its median unless all five fall on one side, P = 1 - 2 / 2^5 = 0.9375. Seeds drawn from
    a skewed Beta(8, 2) (each seed's accuracy the same on every sequence, 1,000 answers,
    so b = 0.025^(1/1000) = 0.9963 stays above the median 0.8214): 20,000 experiments,
    binomial standard error 0.17 points."""
    rng = np.random.default_rng(4)
    median = beta_median(8)
    seeds = rng.beta(8, 2, (20_000, 5))
    held = 0
    for m in seeds:
        low, high = intervals.seed_interval(np.repeat(m[:, None], 1, axis=1), 1000)
        held += low <= median <= high
    assert abs(held / 20_000 - 0.9375) < 0.006, held / 20_000


def test_the_true_mean_of_the_simulated_design():
    # symmetric about 0: 1/2; no spread: logistic(mu); a Monte Carlo estimate elsewhere
    assert math.isclose(intervals.true_mean(0.0, 1.0, 2.0), 0.5, abs_tol=1e-12)
    assert math.isclose(intervals.true_mean(1.5, 0.0, 0.0), 1 / (1 + math.exp(-1.5)),
                        rel_tol=1e-12)
    z = np.random.default_rng(0).standard_normal((2, 2_000_000))
    mc = float((1 / (1 + np.exp(-(2.0 + 0.8 * z[0] + 0.6 * z[1])))).mean())
    assert abs(intervals.true_mean(2.0, 0.8, 0.6) - mc) < 1e-3


def test_the_coverage_grid_and_its_cases():
    """Every point of COVERAGE_GRID once (2 x 9 x 4 x 2 = 144), seeded by its index, each
    case of COVERAGE present; the cases by hand."""
    grid = intervals.coverage_grid()
    assert len(grid) == 144 and [p["seed"] for p in grid] == list(range(144))
    assert {p["case"] for p in grid} == set(intervals.COVERAGE)
    assert intervals.coverage_case(6.0, 0.5) == intervals.AGREE
    assert intervals.coverage_case(0.0, 1.5) == intervals.MIDDLE
    assert intervals.coverage_case(6.0, 1.0) == intervals.EDGE
    assert intervals.coverage_case(-2.7, 1.0) == intervals.EDGE
    for low, high in (*intervals.COVERAGE.values(), intervals.MEDIAN_COVERAGE):
        assert 0.5 < low <= high <= 1.0


# the points of COVERAGE_GRID (their seeds) where benchmarks/interval_coverage.py found the
# lowest and highest coverage of each case, and of the median seed
ENDS = {intervals.AGREE: (58, 138), intervals.MIDDLE: (38, 92), intervals.EDGE: (70, 140)}
MEDIAN_ENDS = (113, 138)


def grid_point(seed: int, estimand: str = "mean") -> float:
    p = intervals.coverage_grid()[seed]
    return intervals.coverage(p["mu_logit"], p["seed_sd"], p["sequence_sd"],
                              sequences=p["sequences"], answers=p["answers"],
                              reps=intervals.COVERAGE_REPS, seed=p["seed"], estimand=estimand)


@pytest.mark.parametrize("case", list(intervals.COVERAGE))
def test_the_stated_coverage_is_what_the_simulations_give(case):
    """The ends of each stated range, recomputed: the grid's points where the benchmark
    found them give exactly those shares (same seeds, same experiments), and each lies in
    its case."""
    lowest, highest = ENDS[case]
    grid = intervals.coverage_grid()
    assert grid[lowest]["case"] == grid[highest]["case"] == case
    assert (grid_point(lowest), grid_point(highest)) == intervals.COVERAGE[case]


def test_the_stated_median_coverage_is_what_the_simulations_give():
    lowest, highest = MEDIAN_ENDS
    assert (grid_point(lowest, "median seed"), grid_point(highest, "median seed")) == \
        intervals.MEDIAN_COVERAGE


@pytest.mark.parametrize("mu, seed_sd, sequence_sd, sequences, answers", [
    (0.0, 1.0, 1.0, 52, 32),    # seeds and sequences both spread, at 50%
    (-1.0, 1.5, 1.0, 20, 3),    # a recall cell, seeds spread widely
    (5.0, 1.5, 0.5, 52, 32),    # review of issue 44, finding 1: near 100%, seeds spread
])
def test_other_points_fall_in_the_stated_ranges(mu, seed_sd, sequence_sd, sequences,
                                                answers):
    """Points off the grid's ends, with other simulated experiments (800, binomial
    standard error up to 1.5 points): within the stated range of their case, give or take
    three standard errors."""
    case = intervals.coverage_case(mu, seed_sd)
    low, high = intervals.COVERAGE[case]
    got = intervals.coverage(mu, seed_sd, sequence_sd, sequences=sequences, answers=answers,
                             reps=800, seed=11)
    se = math.sqrt(got * (1 - got) / 800) + 1 / 800
    assert low - 3 * se <= got <= high + 3 * se, (got, case)
    with pytest.raises(RopeError, match="estimand"):
        intervals.coverage(mu, seed_sd, sequence_sd, reps=10, estimand="mode")


def test_the_failure_rate_that_five_agreeing_seeds_cannot_rule_out():
    """(1 - q)^5 = 0.05: q = 1 - 0.05^(1/5) = 0.4507 (the binomial probability that five
    seeds all succeed is 5% at that failure rate)."""
    q = intervals.unseen_failure_bound(5)
    assert math.isclose((1 - q) ** 5, 0.05, rel_tol=1e-12)
    assert abs(q - 0.4507) < 1e-4
    assert abs(intervals.unseen_failure_bound(300) - 3 / 300) < 1e-3  # the rule of three
