"""rope_core.beyond.intervals: Student's t, Wilson's, intervals over sequences and seeds."""

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


def test_wilson_interval_by_hand():
    # all 256 right: lower bound n / (n + z^2), upper bound 1
    low, high = intervals.wilson(1.0, 256)
    assert math.isclose(low, 256 / (256 + Z**2), rel_tol=1e-12) and high == 1.0
    # 50 of 100: the textbook interval 0.4038 ... 0.5962
    low, high = intervals.wilson(0.5, 100)
    assert abs(low - 0.4038) < 1e-4 and abs(high - 0.5962) < 1e-4
    with pytest.raises(RopeError, match="p"):
        intervals.wilson(1.5, 10)


def test_sequence_interval_is_wilson_with_one_trial_per_sequence():
    a = np.array([1.0, 0, 1, 0.5])
    assert intervals.sequence_interval(a) == intervals.wilson(0.625, 4)
    # every answer right in 52 sequences: lower bound 52 / (52 + z^2)
    low, high = intervals.sequence_interval(np.ones(52))
    assert math.isclose(low, 52 / (52 + Z**2), rel_tol=1e-12) and high == 1.0


def test_seed_interval_by_hand():
    # three seeds, each right on the same fraction of every sequence: 0.9, 0.8, 0.7
    a = np.array([[0.9] * 10, [0.8] * 10, [0.7] * 10])
    low, high = intervals.seed_interval(a)
    # Student: 0.8 +- t_2 0.1 / sqrt(3), t_2 = sqrt(18.5128...) = 4.30265
    half = math.sqrt(2 * 0.9025 / 0.0975) * 0.1 / math.sqrt(3)
    assert math.isclose(low, 0.8 - half, rel_tol=1e-9)
    assert high == 1.0  # 0.8 + 0.248 clipped


def test_seeds_that_agree_keep_the_interval_of_their_sequences():
    a = np.ones((5, 52))  # five seeds, every answer right
    low, high = intervals.seed_interval(a)
    assert high == 1.0 and math.isclose(low, 260 / (260 + Z**2), rel_tol=1e-12)
    with pytest.raises(RopeError):
        intervals.seed_interval(np.ones((1, 52)))


def test_seed_interval_is_the_wider_of_its_two_parts():
    """Seeds that disagree: Student's part is wider and sets the interval; seeds that
    agree: the pooled Wilson part does (each part computed here by hand)."""
    disagree = np.array([[0.9] * 10, [0.8] * 10, [0.7] * 10])
    (t_low, t_high), (w_low, w_high) = intervals.seed_interval_parts(disagree)
    half = math.sqrt(2 * 0.9025 / 0.0975) * 0.1 / math.sqrt(3)  # t_2 = 4.30265
    assert math.isclose(t_low, 0.8 - half) and math.isclose(t_high, 0.8 + half)
    assert (w_low, w_high) == pytest.approx(intervals.wilson(0.8, 30))
    assert intervals.seed_interval(disagree) == pytest.approx((max(0, t_low), min(1, t_high)))
    agree = np.full((5, 52), 0.5)
    (t_low, t_high), wilson = intervals.seed_interval_parts(agree)
    assert t_low == t_high == 0.5
    assert intervals.seed_interval(agree) == wilson == intervals.wilson(0.5, 260)


def test_the_failure_rate_that_five_agreeing_seeds_cannot_rule_out():
    """(1 - q)^5 = 0.05: q = 1 - 0.05^(1/5) = 0.4507 (the binomial probability that five
    seeds all succeed is 5% at that failure rate)."""
    q = intervals.unseen_failure_bound(5)
    assert math.isclose((1 - q) ** 5, 0.05, rel_tol=1e-12)
    assert abs(q - 0.4507) < 1e-4
    assert abs(intervals.unseen_failure_bound(300) - 3 / 300) < 1e-3  # the rule of three


def test_overlap_groups_hold_intervals_that_all_meet():
    # 0.9 [0.8, 1], 0.85 [0.7, 0.95] overlap; 0.5 [0.4, 0.6] apart; 0.45 [0.3, 0.55]
    # overlaps it; 0.1 [0, 0.2] apart: three groups, each apart from the next
    low = [0.8, 0.7, 0.4, 0.3, 0.0]
    high = [1.0, 0.95, 0.6, 0.55, 0.2]
    assert intervals.overlap_groups(low, high) == [[0, 1], [2, 3], [4]]
    assert intervals.groups_apart(low, high, [0, 1], [2, 3])
    assert intervals.groups_apart(low, high, [2, 3], [4])
    # a chain: a meets b, b meets c, a does not meet c: two groups, not apart (b meets c)
    low, high = [0.7, 0.5, 0.3], [0.9, 0.75, 0.55]
    assert intervals.overlap_groups(low, high) == [[0, 1], [2]]
    assert not intervals.groups_apart(low, high, [0, 1], [2])
    assert intervals.overlap_groups([0.5], [0.6]) == [[0]]
    with pytest.raises(RopeError):
        intervals.overlap_groups([], [])
