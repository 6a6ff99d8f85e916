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
