"""Critical dimension, extrapolation limit, B_m and the base bound (rope_core.capacity).

Expected values: hand calculations written out in comments, closed forms
(d = 4: B_m = cos m + cos(m / sqrt(base))), and brute force with numpy/math
(cosines summed directly, never through the code's chunked matrix product).
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_core as rc
from rope_core.capacity import BASE_GRID_RATIO, CHUNK_ELEMENTS


def np_B(dim, base, ms):
    """B_m = sum_i cos(m base^(-2i/d)), summed directly with numpy (float64)."""
    th = base ** (-2.0 * np.arange(dim // 2) / dim)
    return np.cos(np.outer(np.asarray(ms, dtype=np.float64), th)).sum(axis=1)


def np_passes(dim, base, L):
    return bool((np_B(dim, base, np.arange(L)) >= 0).all())


# ---------------------------------------------------------------- critical_dimension

def test_critical_dimension_small_by_hand():
    # d = 8, base 100, L = 100. Periods 2 pi 100^(2i/8) = 2 pi 10^(i/2):
    # i = 0: 6.28, i = 1: 19.87, i = 2: 62.83, i = 3: 198.7 -> three periods < 100.
    # Formula: 4 * ln(100 / 2pi) / ln(100) = 4 * 2.7674 / 4.6052 = 2.404, ceil 3, d_extra = 6.
    assert rc.critical_dimension(8, 100, 100) == 6


def test_critical_dimension_llama2():
    # d = 128, base 1e4, L = 4096: 64 * ln(651.9) / ln(1e4) = 64 * 6.4799 / 9.2103 = 45.03
    # -> ceil 46 -> 92, the value Liu et al. 2023 report for LLaMA 2.
    assert rc.critical_dimension(128, 10_000, 4096) == 92


def test_critical_dimension_clipping():
    # L < 2 pi: no pair turns once (log negative) -> 0
    assert rc.critical_dimension(128, 10_000, 6) == 0
    # d = 8, base 2: the longest period is 2 pi 2^(6/8) = 10.6 < 10^6: all pairs -> d
    assert rc.critical_dimension(8, 2, 10**6) == 8


@given(half=st.integers(1, 2048), base=st.floats(1.5, 1e9),
       L=st.floats(0.1, 1e9, allow_nan=False))
def test_critical_dimension_even_in_range_and_counts_periods(half, base, L):
    dim = 2 * half
    d_extra = rc.critical_dimension(dim, base, L)
    assert d_extra % 2 == 0 and 0 <= d_extra <= dim
    # second formulation: count the pairs whose period 2 pi base^(2i/d) is shorter than L
    x = half * math.log(L / (2 * math.pi)) / math.log(base)
    if abs(x - round(x)) > 1e-9:  # away from exact ties, the two must agree
        periods = [2 * math.pi * base ** (2 * i / dim) for i in range(half)]
        assert d_extra == 2 * sum(p < L for p in periods)


# ---------------------------------------------------------------- extrapolation_limit

def test_extrapolation_limit_by_hand():
    # d = 8, base 100, d_extra = 6: 2 pi 100^(6/8) = 2 pi 10^1.5 = 198.69
    assert rc.extrapolation_limit(8, 100, 6) == pytest.approx(2 * math.pi * 10**1.5, rel=1e-14)
    # LLaMA 2 with base 1e6 after pre-training at 1e4 (d_extra 92): 2 pi 10^(6 * 92/128)
    assert rc.extrapolation_limit(128, 1e6, 92) == pytest.approx(
        2 * math.pi * 10 ** 4.3125, rel=1e-13)
    assert rc.extrapolation_limit(128, 1e4, 0) == pytest.approx(2 * math.pi)


@given(half=st.integers(1, 512), base=st.floats(1.5, 1e9), L=st.floats(7.0, 1e8))
def test_extrapolation_limit_covers_training_length(half, base, L):
    # ceil(x) >= x with x = (d/2) log_base(L/2pi), so 2 pi base^(2 ceil(x)/d) >= L
    # whenever the critical dimension is not clipped at d.
    dim = 2 * half
    d_extra = rc.critical_dimension(dim, base, L)
    if 0 < d_extra < dim:
        assert rc.extrapolation_limit(dim, base, d_extra) >= L * (1 - 1e-12)


def test_extrapolation_limit_validation():
    with pytest.raises(ValueError, match="critical_dim=5"):
        rc.extrapolation_limit(8, 100, 5)
    with pytest.raises(ValueError, match="critical_dim=10"):
        rc.extrapolation_limit(8, 100, 10)
    with pytest.raises(ValueError, match="train_context=0"):
        rc.critical_dimension(8, 100, 0)
    with pytest.raises(ValueError, match="base=1.0"):
        rc.critical_dimension(8, 1.0, 100)


# ---------------------------------------------------------------- cos_sum

def test_cos_sum_dim4_closed_form():
    # d = 4: theta = [1, base^(-1/2)], so B_m = cos(m) + cos(m / sqrt(base)); base 100: m/10
    ms = [0, 1, 2, 3, 10, 1000]
    expected = [math.cos(m) + math.cos(m / 10) for m in ms]
    # a non-progression (direct path) and an arange (angle-addition path)
    assert rc.cos_sum(4, 100, ms).tolist() == pytest.approx(expected, rel=0, abs=1e-12)
    got = rc.cos_sum(4, 100, torch.arange(1001, dtype=torch.float64))
    assert [got[m].item() for m in ms] == pytest.approx(expected, rel=0, abs=1e-12)
    # the all-ones score is 2 B_m: check with the existing score function
    ones = torch.ones(4, dtype=torch.float64)
    score = rc.score_vs_distance(ones, ones, ms, rc.theta(4, 100))
    assert (score / 2).tolist() == pytest.approx(expected, rel=0, abs=1e-12)


@given(half=st.integers(1, 64), base=st.floats(1.5, 1e7))
def test_cos_sum_at_zero_is_half_dim(half, base):
    assert rc.cos_sum(2 * half, base, [0.0, 0.0]).tolist() == [half, half]
    assert rc.cos_sum(2 * half, base, torch.arange(5.0))[0].item() == pytest.approx(half)


def test_cos_sum_over_several_chunks_against_math():
    dim = 128
    n = 3 * (CHUNK_ELEMENTS // (dim // 2)) + 11  # several direct-path chunks
    r = torch.arange(n, dtype=torch.float64)
    fast = rc.cos_sum(dim, 10_000, r)  # arithmetic progression: matrix-product path
    direct = rc.cos_sum(dim, 10_000, r.flip(0)).flip(0)  # not increasing: direct path
    th = [10_000 ** (-2 * i / dim) for i in range(dim // 2)]
    for m in (0, 1, 8191, 8192, 8193, 16384, n - 1):
        expected = math.fsum(math.cos(m * t) for t in th)
        # angles up to 2.5e4 rad: ~1e-12 rad each, 64 terms
        assert fast[m].item() == pytest.approx(expected, abs=1e-9), m
        assert direct[m].item() == pytest.approx(expected, abs=1e-9), m
    torch.testing.assert_close(fast, direct, rtol=0, atol=1e-9)


@given(half=st.integers(1, 256), base=st.floats(1.5, 1e8),
       a=st.integers(-10**6, 10**6), s=st.integers(-1000, 1000).filter(bool),
       n=st.integers(3, 3000))
def test_cos_sum_progression_matches_numpy(half, base, a, s, n):
    r = a + s * torch.arange(n, dtype=torch.float64)
    got = rc.cos_sum(2 * half, base, r).numpy()
    expected = np_B(2 * half, base, r.numpy())
    # |m| <= 4e6: angle rounding ~1e-9 rad per term, d/2 terms
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * half + 1e-12)


def test_cos_sum_validation():
    with pytest.raises(ValueError, match="distances"):
        rc.cos_sum(8, 100, [])
    with pytest.raises(ValueError, match="distances"):
        rc.cos_sum(8, 100, [float("nan")])
    with pytest.raises(ValueError, match="dim=7"):
        rc.cos_sum(7, 100, [1])


# ---------------------------------------------------------------- first_negative_distance

def test_first_negative_by_hand():
    # d = 2: B_m = cos m; cos 1 = 0.54 > 0, cos 2 = -0.416 < 0
    assert rc.first_negative_distance(2, 10_000, 100) == 2
    assert rc.first_negative_distance(2, 10_000, 1) is None
    # d = 4, base 100: B_m = cos m + cos(m/10): m = 2: -0.416 + 0.980 > 0,
    # m = 3: -0.990 + 0.955 = -0.035 < 0
    assert rc.first_negative_distance(4, 100, 10) == 3
    # max_distance 0: only m = 0, B_0 = d/2
    assert rc.first_negative_distance(64, 10_000, 0) is None


@given(half=st.integers(1, 32), base=st.floats(1.5, 1e6), max_d=st.integers(0, 5000))
def test_first_negative_matches_brute_force(half, base, max_d):
    B = np_B(2 * half, base, np.arange(max_d + 1))
    neg = np.nonzero(B < -1e-9)[0]  # clearly negative
    got = rc.first_negative_distance(2 * half, base, max_d)
    if got is None:
        assert neg.size == 0
    else:
        assert B[got] < 1e-9  # negative (up to rounding) at the reported m
        assert (B[:got] > -1e-9).all()  # and not before it
        assert neg.size == 0 or got <= neg[0]


def test_first_negative_validation():
    with pytest.raises(ValueError, match="max_distance=-1"):
        rc.first_negative_distance(8, 100, -1)
    with pytest.raises(ValueError, match="max_distance=100000000"):
        rc.first_negative_distance(8, 100, 10**8)


# ---------------------------------------------------------------- min_base_for_context

def test_min_base_dim4_closed_form():
    # d = 4, L = 3: B_0 = 2, B_1 = cos 1 + cos(1/sqrt b) > 0 for every b > 1, and
    # B_2 = cos 2 + cos(2/sqrt b) >= 0  <=>  2/sqrt b <= arccos(-cos 2) = pi - 2
    # <=>  b >= 4 / (pi - 2)^2 = 3.0690... (monotone here). On the grid 1.01^k:
    b_star = 4 / (math.pi - 2) ** 2
    k = math.ceil(math.log(b_star) / math.log(1.01))
    assert rc.min_base_for_context(4, 3) == pytest.approx(1.01**k, rel=1e-12)


def test_min_base_trivial_and_impossible():
    # L <= 2: only m = 0, 1 and every cos(m theta_i) with theta_i <= 1 is > 0: first grid point
    assert rc.min_base_for_context(64, 1) == pytest.approx(1.01)
    assert rc.min_base_for_context(64, 2) == pytest.approx(1.01)
    # d = 2: B_2 = cos 2 < 0 whatever the base
    assert rc.min_base_for_context(2, 3) is None


@given(half=st.integers(2, 16), L=st.integers(3, 400))
def test_min_base_passes_and_no_grid_base_below_does(half, L):
    dim = 2 * half
    b = rc.min_base_for_context(dim, L)
    assert b is not None  # for d >= 4 a large enough base passes
    k = round(math.log(b) / math.log(BASE_GRID_RATIO))
    assert b == pytest.approx(BASE_GRID_RATIO**k, rel=1e-12)  # on the documented grid
    assert np_passes(dim, b, L)
    # every grid base below fails: brute force over all of them at once
    below = BASE_GRID_RATIO ** np.arange(1, k)  # (K,)
    th = below[:, None] ** (-2.0 * np.arange(half) / dim)  # (K, h)
    B = np.cos(np.arange(L)[None, :, None] * th[:, None, :]).sum(axis=-1)  # (K, L)
    assert (B.min(axis=1) < 0).all()


def test_min_base_not_monotone_llama_like():
    # d = 128, L = 4096: the smallest passing grid base passes, the next grid base
    # (1% higher) fails: the passing set is not an interval. Brute force confirms both.
    b = rc.min_base_for_context(128, 4096)
    assert np_passes(128, b, 4096)
    assert not np_passes(128, b * 1.01, 4096)
    assert rc.passing_bases(128, 4096, [b, b * 1.01]).tolist() == [True, False]
    # a base 10x larger passes again (far above the bound)
    assert np_passes(128, 10 * b, 4096)


@given(half=st.integers(2, 32), L=st.integers(1, 3000),
       bases=st.lists(st.floats(1.5, 1e8), min_size=1, max_size=8))
def test_passing_bases_matches_brute_force(half, L, bases):
    got = rc.passing_bases(2 * half, L, bases).tolist()
    for b, ok in zip(bases, got):
        B = np_B(2 * half, b, np.arange(L))
        if ok:
            assert B.min() >= -1e-9
        else:
            assert B.min() < 1e-9


def test_min_base_llama_context_fast():
    # 10^6-token context at d = 128 must stay interactive (a few seconds on 2 cores)
    import time
    t0 = time.perf_counter()
    b = rc.min_base_for_context(128, 10**6)
    assert time.perf_counter() - t0 < 30  # generous for a busy CI machine
    assert rc.passing_bases(128, 10**6, [b]).tolist() == [True]
    # spot check with numpy in slices (bounded memory): B_m >= 0 over all m < 10^6
    for start in range(0, 10**6, 2**17):
        assert np_B(128, b, np.arange(start, min(10**6, start + 2**17))).min() >= 0


def test_min_base_validation():
    with pytest.raises(ValueError, match="context=0"):
        rc.min_base_for_context(128, 0)
    with pytest.raises(ValueError, match="context=2000000"):
        rc.min_base_for_context(128, 2_000_000)
    with pytest.raises(ValueError, match="context=100000"):
        rc.min_base_for_context(4096, 100_000)  # context * dim/2 bound
    with pytest.raises(ValueError, match="bases"):
        rc.passing_bases(128, 100, [0.5])
    with pytest.raises(ValueError, match="bases"):
        rc.passing_bases(128, 100, [2.0] * 5000)
