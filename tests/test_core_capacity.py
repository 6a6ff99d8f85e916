"""Critical dimension, extrapolation limit, B_m and the base bound (rope_core.limits.capacity).

Expected values: hand calculations written out in comments, closed forms
(d = 4: B_m = cos m + cos(m / sqrt(base))), and brute force with numpy/math
(cosines summed directly, never through the code's chunked matrix product).
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core.limits.capacity import BASE_GRID_RATIO, CHUNK_ELEMENTS


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


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 512), base=st.floats(1.5, 1e8),
       top=st.integers(3, 2 * 10**6), points=st.integers(3, 4000))
def test_cos_sum_sampled_curve_matches_numpy(half, base, top, points):
    """Increasing distances close to a progression (a curve sampled at rounded points):
    the blocked angle-addition path against the direct numpy sum."""
    r = torch.unique(torch.round(torch.linspace(0.0, top, points, dtype=torch.float64)))
    got = rc.cos_sum(2 * half, base, r).numpy()
    expected = np_B(2 * half, base, r.numpy())
    # |m| <= 2e6: angle rounding ~1e-10 rad per term, d/2 terms
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * half + 1e-12)


def test_cos_sum_scattered_increasing_distances():
    """Increasing distances far from any progression take the direct path (too many
    offsets for the blocked one): still exact to rounding."""
    r = torch.tensor(sorted({int(x) for x in np.random.default_rng(0).integers(0, 10**6, 500)}),
                     dtype=torch.float64)
    from rope_core.limits.capacity import _anchored_cos_sum, _theta

    assert _anchored_cos_sum(r, _theta(64, 1e4)) is None
    np.testing.assert_allclose(rc.cos_sum(64, 1e4, r).numpy(), np_B(64, 1e4, r.numpy()),
                               rtol=0, atol=1e-9 * 32)


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


@settings(max_examples=30, deadline=None)
@given(half=st.integers(1, 512), base=st.floats(1.5, 1e8), a=st.integers(0, 10**6),
       n=st.integers(1, 300_000))
def test_float32_screen_within_its_bound(half, base, a, n):
    """The float32 screen of first_negative_distance: its minimum is within
    _progression_f32_bound of the float64 values' minimum (same tables, same blocks)."""
    from rope_core.limits.capacity import (
        _progression_cos_sum,
        _progression_f32_bound,
        _progression_min32,
        _theta,
    )
    from rope_core.support._buffers import Buffers

    th = _theta(2 * half, base)
    low64 = float(_progression_cos_sum(float(a), 1.0, n, th).min())
    low32 = _progression_min32(float(a), 1.0, n, th, Buffers())
    assert abs(low32 - low64) <= _progression_f32_bound(half)


@settings(max_examples=25, deadline=None)
@given(half=st.integers(1, 512), base=st.floats(1.5, 1e8),
       stop=st.integers(1, 2**20 + 1))
def test_first_negative_screened_as_unscreened(half, base, stop):
    """Screening large chunks in float32 never changes the answer of the float64 scan."""
    from rope_core.limits.capacity import _first_negative_in, _theta

    th = _theta(2 * half, base)
    assert _first_negative_in(th, 0, stop) == _first_negative_in(th, 0, stop, screen=False)


def test_first_negative_screened_cases():
    """Crossings inside screened chunks and none at all, at d = 128 ... 1024 (by the
    unscreened float64 scan; d = 128, base 1e8: 482,075, inside the 2^18-wide chunks)."""
    from rope_core.limits.capacity import _first_negative_in, _theta

    for dim, base in ((128, 1e8), (1024, 5e6), (1024, 1e8), (512, 1e8)):
        th = _theta(dim, base)
        got = rc.first_negative_distance(dim, base, 2**20)
        assert got == _first_negative_in(th, 0, 2**20 + 1, screen=False)
    assert rc.first_negative_distance(128, 1e8, 2**20) == 482_075


def test_first_negative_validation():
    with pytest.raises(ValueError, match="max_distance=-1"):
        rc.first_negative_distance(8, 100, -1)
    with pytest.raises(ValueError, match="max_distance=100000000"):
        rc.first_negative_distance(8, 100, 10**8)


# ---------------------------------------------------------------- min_base_for_context

@pytest.fixture(autouse=True)
def one_torch_thread():
    """The searches run on one torch thread, as a Streamlit script thread on a 2-core host
    should (two threads on a busy machine make the small batched products many times
    slower); restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def table_entry(dim, L):
    from rope_core.limits.breaks import base_bounds_table

    return base_bounds_table()[(dim, L)]


def grid(k):
    return BASE_GRID_RATIO ** np.asarray(k, dtype=np.float64)


def np_min_B(dim, bases, L):
    """min over 0 <= m < L of B_m for each base, numpy float64, in slices of m."""
    out = []
    for b in np.atleast_1d(bases):
        th = b ** (-2.0 * np.arange(dim // 2) / dim)
        out.append(min(np.cos(np.outer(np.arange(s, min(L, s + 8192), dtype=np.float64),
                                       th)).sum(axis=1).min() for s in range(0, L, 8192)))
    return np.array(out)


def test_grid_is_a_tenth_of_a_percent():
    assert BASE_GRID_RATIO == 1.001


def test_min_base_dim4_closed_form():
    # d = 4, L = 3: B_0 = 2, B_1 = cos 1 + cos(1/sqrt b) > 0 for every b > 1, and
    # B_2 = cos 2 + cos(2/sqrt b) >= 0  <=>  2/sqrt b <= arccos(-cos 2) = pi - 2
    # <=>  b >= 4 / (pi - 2)^2 = 3.0690... (monotone here). On the grid 1.001^k:
    b_star = 4 / (math.pi - 2) ** 2
    k = math.ceil(math.log(b_star) / math.log(1.001))
    r = rc.base_search(4, 3)
    assert r["smallest"] == pytest.approx(1.001**k, rel=1e-12)
    assert r["threshold"] == r["smallest"] and r["islands"] == []  # one interval
    assert rc.min_base_for_context(4, 3) == r["smallest"]


def test_min_base_trivial_and_impossible():
    # L <= 2: only m = 0, 1 and every cos(m theta_i) with theta_i <= 1 is > 0: first grid point
    assert rc.min_base_for_context(64, 1) == pytest.approx(1.001)
    assert rc.min_base_for_context(64, 2) == pytest.approx(1.001)
    # d = 2: B_2 = cos 2 < 0 whatever the base
    r = rc.base_search(2, 3)
    assert r["smallest"] is None and r["threshold"] is None and r["proven_below"] == math.inf


@settings(max_examples=8)
@given(half=st.integers(2, 12), L=st.integers(3, 200))
def test_search_against_brute_force(half, L):
    """The smallest passes; every grid base from the proof walk's end up to it fails and
    random real bases below the walk's end fail (numpy, float64, all m < L); the grid
    base below the threshold fails and the threshold passes."""
    dim = 2 * half
    r = rc.base_search(dim, L)
    b = r["smallest"]
    assert b is not None  # for d >= 4 a large enough base passes
    k = round(math.log(b) / math.log(BASE_GRID_RATIO))
    assert b == pytest.approx(BASE_GRID_RATIO**k, rel=1e-12)
    assert np_min_B(dim, b, L)[0] >= -1e-9
    k0 = max(1, math.floor(math.log(r["proven_below"]) / math.log(BASE_GRID_RATIO)))
    below = grid(np.arange(k0, k))[-400:]  # (K,) the last 400 grid bases below
    if below.size:
        th = below[:, None] ** (-2.0 * np.arange(half) / dim)  # (K, h)
        B = np.cos(np.arange(L)[None, :, None] * th[:, None, :]).sum(axis=-1)  # (K, L)
        assert (B.min(axis=1) < 0).all()
    rng = np.random.default_rng(L * 1000 + half)
    proven = rng.uniform(0, math.log(r["proven_below"]), 20)
    assert (np_min_B(dim, np.exp(proven[proven > 0.002]), L) < 0).all()
    t = r["threshold"]
    assert np_min_B(dim, t, L)[0] >= -1e-9
    if t > b:
        assert np_min_B(dim, t / BASE_GRID_RATIO, L)[0] < 1e-9


def test_narrow_islands_d128_L2048():
    """Issue 18: at d = 128, L = 2048 the old 1% grid returned 13,800 while 11,588 passes.
    Brute force (numpy, every m < L) on a grid 0.02% apart: the first passing island
    starts at 11,588.4 and is 0.5% wide; the last failing base is 22,763. Checked on the
    precomputed entry (the table test ties it to base_search)."""
    dim, L = 128, 2048
    assert np_min_B(dim, 11588.4, L)[0] >= 0
    r = table_entry(dim, L)
    assert 11588.4 / 1.001 <= r["smallest"] <= 11588.4 * 1.001
    assert 22763.0 < r["threshold"] <= 22763.0 * 1.002
    assert np_min_B(dim, r["threshold"] / 1.001, L)[0] < 0
    # a finer brute-force scan just below the smallest: everything fails
    fine = 11400 * 1.0005 ** np.arange(int(math.log(r["smallest"] / 1.001 / 11400) / 5e-4))
    assert (np_min_B(dim, fine, L) < 0).all()
    first = r["islands"][0]
    assert first[0] == r["smallest"] and first[1] / first[0] < 1.01
    assert len(r["islands"]) >= 5  # a string of narrow islands


@given(half=st.integers(1, 512), base=st.floats(1.5, 1e8), a=st.integers(0, 2**20),
       n=st.integers(1, 9000))
def test_float32_block_within_its_error_bound(half, base, a, n):
    from rope_core.limits.capacity import _block_B32, _grid_thetas, f32_error_bound

    th = _grid_thetas(2 * half, torch.tensor([base], dtype=torch.float64))
    got = _block_B32(th, a, n)[0].double().numpy()
    expected = np_B(2 * half, base, np.arange(a, a + n))
    assert np.abs(got - expected).max() <= f32_error_bound(half)


def test_cos_sum_profile_qwen25_7b():
    """Issue 19: Qwen2.5 7B (d = 128, base 10^6, L = 32,768) fails on 4 distances at -0.78."""
    B = np.concatenate([np_B(128, 1e6, np.arange(s, s + 8192)) for s in range(0, 32768, 8192)])
    p = rc.cos_sum_profile(128, 1e6, 32768)
    assert p["negative"] == int((B < 0).sum()) == 4
    assert p["min"] == pytest.approx(B.min(), abs=1e-9) and round(p["min"], 2) == -0.78
    assert p["first_negative"] == int(np.nonzero(B < 0)[0][0]) and p["B0"] == 64


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


def test_precomputed_table_against_rope_core():
    """tools/make_base_bounds.py's table: two entries recomputed, every entry spot-checked
    by brute force (numpy up to L = 65,536; cos_sum's float64 path beyond)."""
    from rope_core.limits.breaks import base_bounds_table

    TABLE = base_bounds_table()
    for key in ((64, 1024),):
        r = rc.base_search(*key)
        assert {k: r[k] for k in TABLE[key]} == TABLE[key]
    for (dim, L), r in TABLE.items():
        b, t = r["smallest"], r["threshold"]
        bases = [b, b / BASE_GRID_RATIO, t / BASE_GRID_RATIO] if t > b else [b, b / 1.001]
        if L <= 65536 and dim * L <= 2**22:
            mins = np_min_B(dim, bases, L)
        else:
            mins = [float(rc.cos_sum(dim, x, torch.arange(L, dtype=torch.float64)).min())
                    for x in bases]
        assert mins[0] >= -1e-9 and all(v < 1e-9 for v in mins[1:]), (dim, L)


def test_passing_set_not_monotone_llama_like():
    # d = 128, L = 4096: a base above the smallest fails again (brute force)
    r = table_entry(128, 4096)
    (a, b), (c, _) = r["islands"][:2]
    gap = b * BASE_GRID_RATIO
    assert gap < c and np_min_B(128, gap, 4096)[0] < 0
    assert rc.passing_bases(128, 4096, [a, gap]).tolist() == [True, False]


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


def test_a_larger_base_can_turn_negative_sooner():
    """The Frequencies page says B_m stays positive longer for a larger base only broadly:
    the grid base just above the first island at d = 128, L = 2,048 fails inside 2,048
    while the island's last base does not. Checked by a direct float64 sum of cosines."""
    from rope_core.limits.breaks import base_bound

    lo, hi = base_bound(128, 2048)["islands"][0]
    above = hi * 1.001  # the next grid base, outside the island
    i = np.arange(64)
    m = np.arange(2048)[:, None]
    assert (np.cos(m * hi ** (-2 * i / 128)).sum(axis=1) >= 0).all()  # hi passes
    first = rc.first_negative_distance(128, above, 2047)
    assert first is not None and first < 2048
    assert np.cos(first * above ** (-2 * i / 128)).sum() < 0


@pytest.mark.parametrize("m", [0, 3, 17, 250])
def test_men_theorem_1_difference_is_two_sigma_squared_B(m):
    """The Long context page: with iid components (mean mu, variance sigma^2) and
    k* = q + eps, eps of mean 0 independent of q, E[q^T R_m k*] - E[q^T R_m k] = 2 sigma^2 B_m.
    Derived with the explicit d x d block rotation R_m and second moments:
    E[q q^T] = sigma^2 I + mu^2 1 1^T, E[q^T R k] = mu^2 1^T R 1 for independent q, k."""
    d, base, mu, sigma2 = 8, 10.0, 0.7, 1.3
    th = [base ** (-2 * i / d) for i in range(d // 2)]
    R = np.zeros((d, d))
    for i, t in enumerate(th):
        c, s = math.cos(m * t), math.sin(m * t)
        R[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
    ones = np.ones(d)
    second = sigma2 * np.eye(d) + mu**2 * np.outer(ones, ones)  # E[q q^T]
    similar = np.trace(R @ second)  # E[q^T R (q + eps)] = E[q^T R q]
    random_key = mu**2 * ones @ R @ ones
    B = float(rc.cos_sum(d, base, [m])[0])
    assert similar - random_key == pytest.approx(2 * sigma2 * B, abs=1e-12)
