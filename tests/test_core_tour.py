"""rope_core.teaching.tour: the guided tour's answers against closed forms written here."""

import math
import re

import numpy as np
import pytest

import rope_core.teaching.tour as tour


def test_wavelength_ratio_is_base_ratio_to_the_2i_over_d():
    got = tour.wavelength_ratio(128, 10_000, 500_000, 40)
    assert got["ratio"] == pytest.approx(50 ** (80 / 128), rel=1e-12)  # 11.53
    assert got["before"] == pytest.approx(2 * math.pi * 10_000 ** (80 / 128), rel=1e-12)
    assert got["after"] == pytest.approx(2 * math.pi * 500_000 ** (80 / 128), rel=1e-12)
    # pair 0 turns once every 2 pi tokens whatever the base
    assert tour.wavelength_ratio(64, 10, 10**8, 0)["ratio"] == pytest.approx(1.0)


def test_pair_wavelength():
    assert tour.pair_wavelength(128, 10_000, 8) == pytest.approx(2 * math.pi * math.sqrt(10),
                                                                 rel=1e-12)
    assert tour.pair_wavelength(2, 50, 0) == pytest.approx(2 * math.pi)


@pytest.mark.parametrize("dim, base, context", [(128, 10_000, 4096), (64, 500_000, 8192),
                                                (256, 1_000_000, 131072), (8, 100, 10)])
def test_turning_pairs_counts_i_up_to_the_log_bound(dim, base, context):
    # lambda_i <= L  <=>  i <= (d/2) ln(L / 2 pi) / ln(base)
    bound = (dim / 2) * math.log(context / (2 * math.pi)) / math.log(base)
    expected = min(dim // 2, max(0, math.floor(bound) + 1))
    assert tour.turning_pairs(dim, base, context) == expected
    assert tour.turning_pairs(128, 10_000, 4096) == 46


def test_self_similarity_is_half_the_width():
    for d_model, m in [(128, 0), (128, 300), (6, 4095), (512, 17)]:
        assert tour.self_similarity(d_model, 10_000, m) == pytest.approx(d_model / 2, rel=1e-12)


def test_shift_scores_match_the_per_pair_closed_form():
    # interleaved pairs (q0, q1): score = sum_i (a_i cos + b_i sin)((n - m) theta_i),
    # a_i = q0 k0 + q1 k1, b_i = q1 k0 - q0 k1 (R_m q . R_n k = q . R_(n-m) k)
    import torch

    dim, base, m, n, s, seed = 16, 10_000.0, 5, 2, 100, 3
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(dim, generator=g, dtype=torch.float64).numpy()
    k = torch.randn(dim, generator=g, dtype=torch.float64).numpy()
    th = base ** (-2 * np.arange(dim // 2) / dim)
    a = q[0::2] * k[0::2] + q[1::2] * k[1::2]
    b = q[1::2] * k[0::2] - q[0::2] * k[1::2]
    expected = float(np.sum(a * np.cos((n - m) * th) + b * np.sin((n - m) * th)))
    got = tour.shift_scores(dim, base, "interleaved", m, n, s, seed)
    assert got["score"] == pytest.approx(expected, abs=1e-12)
    assert got["shifted"] == pytest.approx(expected, abs=1e-11)
    assert got["gap"] < 1e-11
    half = tour.shift_scores(dim, base, "half", m, n, s, seed)
    assert half["gap"] < 1e-11


def test_norm_after_rotation_is_unchanged():
    got = tour.norm_after_rotation([1, 2, 3, 4], 1000, 10_000, "interleaved")
    assert got["before"] == pytest.approx(math.sqrt(30), rel=1e-15)
    assert got["after"] == pytest.approx(math.sqrt(30), rel=1e-13)


@pytest.mark.parametrize("row", [0, 1, 7, 15])
def test_uniform_weight_is_one_over_m_plus_one(row):
    got = tour.uniform_weight(16, 128, 10_000, 0, row)
    assert got["without"] == pytest.approx(1 / (row + 1), rel=1e-12)
    assert got["with_min"] <= 1 / (row + 1) <= got["with_max"]
    if row > 0:
        assert got["with_max"] - got["with_min"] > 1e-3


def test_far_bound_against_a_numpy_sum():
    dim, base, r = 128, 10_000.0, 1e6
    th = base ** (-2 * np.arange(dim // 2) / dim)
    partial = np.cumsum(np.exp(1j * r * th))
    far = float(np.mean(np.abs(partial)))
    got = tour.far_bound(dim, base, r)
    assert got["at_zero"] == (dim / 2 + 1) / 2  # |S_j| = j at r = 0
    assert got["far"] == pytest.approx(far, rel=1e-9)
    assert got["ratio"] == pytest.approx(far / 32.5, rel=1e-9)
    plateau = sum(math.sqrt(math.pi * j) / 2 for j in range(1, 65)) / 64
    assert got["plateau"] == pytest.approx(plateau, rel=1e-12)


@pytest.mark.parametrize("dtype, p", [("bfloat16", 8), ("float16", 11), ("float32", 24)])
def test_exact_integers_is_two_to_the_significand_bits(dtype, p):
    got = tour.exact_integers(dtype, 1001)
    assert got["largest"] == 2**p
    # 1001 lies in [2^9, 2^10): spacing 2^(9 - p + 1); round to nearest (ties to even)
    spacing = 2 ** max(0, 9 - p + 1)
    assert got["held"] == (1000 if spacing == 4 else 1001)


def test_ntk_slowdown_is_s_to_the_minus_2i_over_d_minus_2():
    for dim, s in [(128, 8), (64, 4), (4, 2)]:
        got = tour.ntk_slowdown(dim, 10_000, s)
        i = dim // 2 - 1
        assert got["first"] == pytest.approx(1.0, rel=1e-12)
        assert got["last"] == pytest.approx(s ** (-2 * i / (dim - 2)), rel=1e-12)  # 1/s


def test_shuffle_gaps_zero_without_positions():
    got = tour.shuffle_gaps("dog bites man", 128, 10_000, "interleaved", 0)
    assert got["none"] < 1e-13 and got["rope"] > 1e-2


@pytest.mark.parametrize("call, name", [
    (lambda: tour.wavelength_ratio(128, 10_000, 1, 4), "new_base"),
    (lambda: tour.wavelength_ratio(128, 10_000, 500_000, 64), "pair"),
    (lambda: tour.pair_wavelength(7, 10_000, 0), "dim"),
    (lambda: tour.turning_pairs(128, 10_000, 0), "context"),
    (lambda: tour.self_similarity(128, 10_000, -1), "position"),
    (lambda: tour.shift_scores(128, 10_000, "interleaved", 5, 2, -1, 0), "shift"),
    (lambda: tour.shift_scores(128, 10_000, "diagonal", 5, 2, 1, 0), "layout"),
    (lambda: tour.norm_after_rotation([1, 2, 3], 1, 10_000, "half"), "len(q)"),
    (lambda: tour.norm_after_rotation([1, float("nan")], 1, 10_000, "half"), "q"),
    (lambda: tour.uniform_weight(16, 128, 10_000, 0, 16), "row"),
    (lambda: tour.far_bound(128, 10_000, float("inf")), "distance"),
    (lambda: tour.exact_integers("int8", 3), "dtype"),
    (lambda: tour.ntk_slowdown(128, 10_000, 0.5), "factor"),
    (lambda: tour.ntk_slowdown(2, 10_000, 2), "dim"),
    (lambda: tour.shuffle_gaps("cat", 128, 10_000, "half", 0), "sentence"),
])
def test_errors_name_the_parameter(call, name):
    with pytest.raises(ValueError, match="^" + re.escape(name) + "="):
        call()


def test_first_negative_sum_against_a_numpy_scan():
    dim, base = 128, 10_000.0
    th = base ** (-2 * np.arange(dim // 2) / dim)
    m = np.arange(0, 5000)
    b = np.cos(np.outer(m, th)).sum(axis=1)
    first = int(np.argmax(b < 0))
    assert b[first] < 0 and (b[:first] >= 0).all()
    got = tour.first_negative_sum(dim, base, 2**20)
    assert got["first"] == first  # 1707 for Llama 2's base: inside its 4,096 tokens
    assert got["value"] == pytest.approx(b[first], rel=1e-9)
    assert tour.first_negative_sum(dim, base, first - 1) == {"first": None, "value": None}
