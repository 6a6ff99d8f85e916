"""rope_core.beyond.intervals: Student's t, the interval over seeds and sequences, its coverage
on simulated experiments."""

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


def test_student_interval_over_seed_means_by_hand():
    # three seeds, each right on the same fraction of every sequence: 0.9, 0.8, 0.7
    a = np.array([[0.9] * 10, [0.8] * 10, [0.7] * 10])
    low, high = intervals.student_interval(a)
    # 0.8 +- t_2 0.1 / sqrt(3), t_2 = sqrt(2 * 0.9025 / 0.0975) = 4.30265
    half = math.sqrt(2 * 0.9025 / 0.0975) * 0.1 / math.sqrt(3)
    assert math.isclose(low, 0.8 - half, rel_tol=1e-9)
    assert math.isclose(high, 0.8 + half, rel_tol=1e-9)


def test_student_interval_is_the_balanced_random_intercept_interval():
    """For a balanced design the REML (ANOVA) interval of the mean in
    a_sj = mu + u_s + e_sj is mean +- t_{S-1} sqrt(MS_between / (S J)), MS_between =
    J sum_s (m_s - m)^2 / (S - 1): a second formulation of the same number."""
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 1, (5, 20))
    s, j = a.shape
    means = a.mean(1)
    ms_between = j * ((means - means.mean()) ** 2).sum() / (s - 1)
    half = intervals.t_quantile(s - 1) * math.sqrt(ms_between / (s * j))
    assert intervals.student_interval(a) == pytest.approx((a.mean() - half, a.mean() + half),
                                                          rel=1e-12)


def test_logit_interval_by_hand():
    """Two seeds of one sequence with 4 answers each: 3 and 1 right. l = ln(3.5/1.5) and
    ln(1.5/3.5) = +-0.8473; mean 0, sd 1.1983, t_1 = 12.706: logistic(+-12.706 * 1.1983 /
    sqrt 2), which holds the pooled 0.5."""
    a = np.array([[0.75], [0.25]])
    ell = math.log(3.5 / 1.5)
    half = intervals.t_quantile(1) * math.sqrt(2 * ell**2) / math.sqrt(2)
    low, high = intervals.logit_interval(a, 4)
    assert math.isclose(low, 1 / (1 + math.exp(half)), rel_tol=1e-12)
    assert math.isclose(high, 1 / (1 + math.exp(-half)), rel_tol=1e-12)


def test_seed_interval_is_the_wider_of_its_two_parts_and_clipped():
    rng = np.random.default_rng(7)
    a = rng.binomial(13, rng.uniform(0.6, 0.99, (5, 1)), (5, 52)) / 13  # skewed seeds
    student, logit = intervals.student_interval(a), intervals.logit_interval(a, 13)
    low, high = intervals.seed_interval(a, 13)
    assert low == max(0.0, min(student[0], logit[0]))
    assert high == min(1.0, max(student[1], logit[1]))
    assert low <= a.mean() <= high


def test_every_answer_right_gives_the_exact_interval_of_the_sequences():
    """All 260 sequences right: Clopper-Pearson's lower bound p^260 = 0.025, p = 0.98591
    (0.025 ** (1/260) by hand: exp(ln 0.025 / 260) = exp(-0.014188) = 0.985912)."""
    low, high = intervals.seed_interval(np.ones((5, 52)), 13)
    assert high == 1.0 and abs(low - 0.985912) < 1e-6
    assert math.isclose(low ** 260, 0.025, rel_tol=1e-12)
    low, high = intervals.seed_interval(np.zeros((5, 52)), 13)
    assert low == 0.0 and abs(high - (1 - 0.985912)) < 1e-6
    with pytest.raises(RopeError):
        intervals.seed_interval(np.ones((1, 52)), 13)
    with pytest.raises(RopeError):
        intervals.seed_interval(np.full((5, 3), 1.5), 13)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), seeds=st.integers(2, 8), answers=st.integers(1, 16))
def test_the_interval_holds_the_pooled_mean_and_lies_in_0_1(seed, seeds, answers):
    rng = np.random.default_rng(seed)
    a = rng.binomial(answers, rng.uniform(0, 1, (seeds, 1)), (seeds, 9)) / answers
    low, high = intervals.seed_interval(a, answers)
    assert 0.0 <= low <= a.mean() + 1e-12 and a.mean() - 1e-12 <= high <= 1.0


def test_the_true_mean_of_the_simulated_design():
    # symmetric about 0: 1/2; no spread: logistic(mu); a Monte Carlo estimate elsewhere
    assert math.isclose(intervals.true_mean(0.0, 1.0, 2.0), 0.5, abs_tol=1e-12)
    assert math.isclose(intervals.true_mean(1.5, 0.0, 0.0), 1 / (1 + math.exp(-1.5)),
                        rel_tol=1e-12)
    z = np.random.default_rng(0).standard_normal((2, 2_000_000))
    mc = float((1 / (1 + np.exp(-(2.0 + 0.8 * z[0] + 0.6 * z[1])))).mean())
    assert abs(intervals.true_mean(2.0, 0.8, 0.6) - mc) < 1e-3


@pytest.mark.parametrize("mu, seed_sd, sequence_sd, sequences, answers", [
    (0.0, 0.0, 0.0, 52, 32),    # no spread: only the answers' binomial noise
    (0.0, 1.0, 1.0, 52, 32),    # seeds and sequences both spread, at 50%
    (-2.7, 0.1, 0.2, 52, 32),   # near chance (1/16), seeds agreeing
    (3.0, 0.5, 1.0, 52, 13),    # about 92%
    (-1.0, 1.5, 1.0, 20, 3),    # a recall cell, seeds spread widely
])
def test_the_interval_holds_95_percent_on_simulated_experiments(mu, seed_sd, sequence_sd,
                                                                sequences, answers):
    """Coverage of 800 simulated experiments (binomial standard error 0.8 points): within
    92.5% ... 97.5%, i.e. about 95% (the module's grid reaches down to about 91% only where
    five seeds spread widely near 100%)."""
    got = intervals.coverage(mu, seed_sd, sequence_sd, sequences=sequences, answers=answers,
                             reps=800, seed=11)
    assert 0.925 <= got <= 0.975, got


def test_the_failure_rate_that_five_agreeing_seeds_cannot_rule_out():
    """(1 - q)^5 = 0.05: q = 1 - 0.05^(1/5) = 0.4507 (the binomial probability that five
    seeds all succeed is 5% at that failure rate)."""
    q = intervals.unseen_failure_bound(5)
    assert math.isclose((1 - q) ** 5, 0.05, rel_tol=1e-12)
    assert abs(q - 0.4507) < 1e-4
    assert abs(intervals.unseen_failure_bound(300) - 3 / 300) < 1e-3  # the rule of three
