"""Long-term decay bound and scores against distance (rope_core.rotary.decay).

Expected values: RoFormer's bound recomputed with Python complex numbers
(cmath.exp), and scores recomputed with the dense rotation matrix R_m.
"""

import cmath
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_core as rc
from rope_core.rotary.decay import CHUNK_ELEMENTS


def py_bound(r, thetas):
    """(1/(d/2)) sum_j |S_j|, S_j = sum_{k<j} e^{i r theta_k}, with Python complex numbers."""
    total, s = 0.0, 0j
    for t in thetas:
        s += cmath.exp(1j * r * t)  # S_j for j = 1 ... d/2
        total += abs(s)
    return total / len(thetas)


# ---------------------------------------------------------------- relative_upper_bound

@pytest.mark.parametrize("dim", [2, 4, 8, 64, 128, 1024])
def test_bound_at_zero(dim):
    # r = 0: every term is 1, |S_j| = j, mean over j = 1 ... d/2 is (d/2 + 1)/2
    got = rc.relative_upper_bound([0], rc.theta(dim)).item()
    assert got == pytest.approx((dim / 2 + 1) / 2, rel=1e-15)


@pytest.mark.parametrize("dim", [8, 128])
def test_bound_against_python_complex(dim):
    th = rc.theta(dim)
    rs = [1, 7, 100, 2.5, -7]
    got = rc.relative_upper_bound(rs, th)
    assert got.shape == (len(rs),) and got.dtype == torch.float64
    expected = [py_bound(r, th.tolist()) for r in rs]
    assert got.tolist() == pytest.approx(expected, rel=1e-12)


def test_bound_dim2_closed_form():
    # one pair: S_1 = e^{i r}, |S_1| = 1 for every r
    got = rc.relative_upper_bound([0, 1, 3.7, 1e6], rc.theta(2))
    assert got.tolist() == pytest.approx([1.0] * 4, rel=1e-15)


def test_bound_dim4_closed_form():
    # two pairs theta = [1, 0.01]: |S_1| = 1, |S_2| = |e^{ir} + e^{0.01 ir}|
    #  = sqrt(2 + 2 cos(r - 0.01 r)) = 2 |cos(0.99 r / 2)|; bound = (1 + 2|cos(0.495 r)|)/2
    rs = [0.0, 1.0, 10.0, 123.0]
    expected = [(1 + 2 * abs(math.cos(0.495 * r))) / 2 for r in rs]
    got = rc.relative_upper_bound(rs, rc.theta(4))
    assert got.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-14)


def test_bound_over_several_chunks():
    dim = 128
    th = rc.theta(dim)
    per_chunk = CHUNK_ELEMENTS // (dim // 2)  # distances handled per chunk
    n = 10**5
    assert n > 3 * per_chunk  # really spans several chunks
    r = torch.arange(n, dtype=torch.float64)
    got = rc.relative_upper_bound(r, th)
    assert got.shape == (n,)
    # entries on both sides of chunk borders, and far ones
    idx = [0, 1, per_chunk - 1, per_chunk, per_chunk + 1, 2 * per_chunk, 50_000, n - 1]
    thetas = th.tolist()
    for i in idx:
        # angles up to 1e5 rad: ~1e-11 rad error each, well inside 1e-9 relative
        assert got[i].item() == pytest.approx(py_bound(float(i), thetas), rel=1e-9), i
    # chunking is invisible: computing a slice on its own gives the same values
    torch.testing.assert_close(rc.relative_upper_bound(r[per_chunk - 5:per_chunk + 5], th),
                               got[per_chunk - 5:per_chunk + 5], rtol=0, atol=0)


@given(dim=st.integers(1, 32).map(lambda h: 2 * h),
       base=st.floats(2.0, 1e6, allow_nan=False, allow_infinity=False),
       rs=st.lists(st.floats(0, 1e6, allow_nan=False, allow_infinity=False),
                   min_size=1, max_size=6))
def test_bound_symmetric(dim, base, rs):
    # e^{-i r theta} is the conjugate of e^{i r theta}: |S_j(-r)| = |S_j(r)|
    th = rc.theta(dim, base)
    pos = rc.relative_upper_bound(rs, th)
    neg = rc.relative_upper_bound([-r for r in rs], th)
    torch.testing.assert_close(neg, pos, rtol=1e-14, atol=0)
    # and it never exceeds its value at 0: |S_j| <= j
    assert bool((pos <= (dim / 2 + 1) / 2 * (1 + 1e-12)).all())


# ---------------------------------------------------------------- score_vs_distance

@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_score_equals_dense_rotations_for_any_m(layout):
    dim = 16
    th = rc.theta(dim)
    g = torch.Generator().manual_seed(10)
    q = torch.randn(dim, generator=g, dtype=torch.float64)
    k = torch.randn(dim, generator=g, dtype=torch.float64)
    rs = [0, 1, 2, 7, 100, -4, 5000]
    got = rc.score_vs_distance(q, k, rs, th, layout=layout)
    assert got.shape == (len(rs),) and got.dtype == torch.float64
    for m in (0, 5, -3, 1000, 10**6):
        # <R_m q, R_(m+r) k> with the dense matrices: the same for every m
        Rm = rc.rotation_matrix(m, th, layout=layout)
        expected = torch.tensor([torch.dot(Rm @ q, rc.rotation_matrix(m + r, th, layout=layout)
                                           @ k).item() for r in rs], dtype=torch.float64)
        # angles up to ~1e6 rad: ~1e-10 rad error, times |q||k| ~ 16
        torch.testing.assert_close(got, expected, rtol=0, atol=1e-8)


def test_score_pair_formula_by_hand_dim2():
    # dim 2, theta = [1]: q^T R_r k = (q0 k0 + q1 k1) cos r + (q1 k0 - q0 k1) sin r
    q, k = [1.5, -2.0], [0.5, 3.0]
    rs = [0, 1, 2.5, -4]
    expected = [(q[0] * k[0] + q[1] * k[1]) * math.cos(r)
                + (q[1] * k[0] - q[0] * k[1]) * math.sin(r) for r in rs]
    got = rc.score_vs_distance(torch.tensor(q, dtype=torch.float64),
                               torch.tensor(k, dtype=torch.float64), rs, rc.theta(2))
    assert got.tolist() == pytest.approx(expected, rel=1e-14, abs=1e-14)


@pytest.mark.parametrize("dim", [2, 8, 128])
def test_score_ones_at_zero_is_dim(dim):
    # r = 0: R_0 = I, so q^T k = sum of dim ones = dim
    ones = torch.ones(dim, dtype=torch.float64)
    for layout in ("interleaved", "half"):
        assert rc.score_vs_distance(ones, ones, [0], rc.theta(dim), layout=layout).item() == dim


def test_score_batched():
    dim, T = 8, 5
    th = rc.theta(dim)
    g = torch.Generator().manual_seed(11)
    q = torch.randn(T, dim, generator=g, dtype=torch.float64)
    k = torch.randn(T, dim, generator=g, dtype=torch.float64)
    rs = [0, 3, 10, 100]
    got = rc.score_vs_distance(q, k, rs, th)
    assert got.shape == (T, len(rs))
    for t in range(T):
        expected = [(q[t] @ rc.rotation_matrix(r, th) @ k[t]).item() for r in rs]
        assert got[t].tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # a float32 input is promoted: output float64
    assert rc.score_vs_distance(q.float(), k.float(), rs, th).dtype == torch.float64


def test_score_over_several_chunks():
    dim = 128
    th = rc.theta(dim)
    g = torch.Generator().manual_seed(12)
    q = torch.randn(dim, generator=g, dtype=torch.float64)
    k = torch.randn(dim, generator=g, dtype=torch.float64)
    per_chunk = CHUNK_ELEMENTS // (dim // 2)
    n = 3 * per_chunk + 17
    got = rc.score_vs_distance(q, k, torch.arange(n, dtype=torch.float64), th)
    for r in (0, per_chunk - 1, per_chunk, 2 * per_chunk + 1, n - 1):
        expected = (q @ rc.rotation_matrix(r, th) @ k).item()
        assert got[r].item() == pytest.approx(expected, abs=1e-9, rel=0), r


# ---------------------------------------------------------------- random_score_stats

@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_random_score_stats_reproduced(layout):
    dim, trials, seed = 8, 50, 1234
    th = rc.theta(dim)
    rs = [0, 1, 5, 40, 333]
    mean, std = rc.random_score_stats(rs, th, trials, seed, layout=layout)
    assert mean.shape == std.shape == (len(rs),)
    # documented draws: CPU generator seeded with seed, q (trials, dim) then k
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(trials, dim, generator=g, dtype=torch.float64)
    k = torch.randn(trials, dim, generator=g, dtype=torch.float64)
    for j, r in enumerate(rs):
        R = rc.rotation_matrix(r, th, layout=layout).numpy()
        scores = np.einsum("td,de,te->t", q.numpy(), R, k.numpy())  # q_t^T R_r k_t
        assert mean[j].item() == pytest.approx(np.mean(scores), rel=1e-10, abs=1e-12)
        assert std[j].item() == pytest.approx(np.std(scores, ddof=1), rel=1e-10, abs=1e-12)


def test_random_score_stats_single_trial():
    th = rc.theta(16)
    rs = [0, 2, 9]
    mean, std = rc.random_score_stats(rs, th, 1, 7)
    assert std.tolist() == [0.0, 0.0, 0.0]  # one sample has no spread
    g = torch.Generator().manual_seed(7)
    q = torch.randn(1, 16, generator=g, dtype=torch.float64)[0]
    k = torch.randn(1, 16, generator=g, dtype=torch.float64)[0]
    expected = [(q @ rc.rotation_matrix(r, th) @ k).item() for r in rs]
    assert mean.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_random_score_stats_deterministic_and_spread():
    th = rc.theta(64)
    a = rc.random_score_stats(range(0, 200, 10), th, 2000, 3)
    b = rc.random_score_stats(range(0, 200, 10), th, 2000, 3)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    # at r = 0 the score is q.k, a sum of 64 products of independent N(0,1): variance 64,
    # std 8; with 2000 trials the sample std is within a few percent of sqrt(d) = 8.
    assert a[1][0].item() == pytest.approx(math.sqrt(64), rel=0.1)
    # mean ~ 0 within a few standard errors 8/sqrt(2000) ~ 0.18
    assert abs(a[0][0].item()) < 5 * 8 / math.sqrt(2000)


# ---------------------------------------------------------------- properties against references

dims = st.integers(1, 32).map(lambda h: 2 * h)
bases = st.floats(2.0, 1e6, allow_nan=False, allow_infinity=False)


@given(dim=dims, base=bases,
       rs=st.lists(st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False),
                   min_size=1, max_size=5))
def test_bound_property_against_python_complex(dim, base, rs):
    th = rc.theta(dim, base)
    got = rc.relative_upper_bound(rs, th).tolist()
    expected = [py_bound(r, th.tolist()) for r in rs]
    # |r| <= 1e4: angle error ~1e-12 rad; the mean of |S_j| moves by at most ~d/2 * that
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-10)


@given(dim=dims, base=bases, layout=st.sampled_from(["interleaved", "half"]),
       seed=st.integers(0, 2**31 - 1),
       rs=st.lists(st.integers(-10**5, 10**5), min_size=1, max_size=5))
def test_score_property_against_dense_matrix(dim, base, layout, seed, rs):
    th = rc.theta(dim, base)
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(dim, generator=g, dtype=torch.float64)
    k = torch.randn(dim, generator=g, dtype=torch.float64)
    got = rc.score_vs_distance(q, k, rs, th, layout=layout).tolist()
    expected = [(q @ rc.rotation_matrix(r, th, layout=layout) @ k).item() for r in rs]
    # |r| <= 1e5: angle error ~1e-11 rad, times |q||k|
    tol = 1e-10 * (q.norm() * k.norm()).item() + 1e-12
    assert got == pytest.approx(expected, abs=tol, rel=0)
