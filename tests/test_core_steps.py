"""rope_core additions behind the thin pages; expected numbers derived by hand
(math/cmath/decimal), not pasted from code output."""

import cmath
import math
import random

import pytest
import torch

import rope_core as rc


def test_rope_steps_worked_example_by_hand():
    st = rc.rope_steps((1, 2, 3, 4), 2, 10_000.0, "interleaved")
    # pair 0: angle 2 rad; pair 1: theta_1 = 10^4^(-1/2) = 0.01, angle 0.02 rad
    c0, s0, c1, s1 = math.cos(2), math.sin(2), math.cos(0.02), math.sin(0.02)
    expected = [1 * c0 - 2 * s0, 1 * s0 + 2 * c0, 3 * c1 - 4 * s1, 3 * s1 + 4 * c1]
    for key in ("elementwise", "dense", "complex"):
        assert st[key].tolist() == pytest.approx(expected, abs=1e-12)
    assert round(expected[0], 6) == -2.234742 and round(expected[1], 6) == 0.077004
    assert st["rotate"].tolist() == [-2.0, 1.0, -4.0, 3.0]
    assert st["a"].tolist() == [0, 2] and st["b"].tolist() == [1, 3]
    assert float(st["norm_q"]) == pytest.approx(math.sqrt(30), rel=1e-14)
    assert float(st["norm_rotated"]) == pytest.approx(math.sqrt(30), rel=1e-12)


def test_rope_steps_half_layout_pairs_i_and_i_plus_half():
    st = rc.rope_steps((1, -2, 0.5, 3, 4, 5), -3, 10_000.0, "half")
    assert st["a"].tolist() == [0, 1, 2] and st["b"].tolist() == [3, 4, 5]
    assert st["pair_of"].tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize("bad", [dict(q=(1, 2, 3)), dict(q=()), dict(q=(1, float("nan"))),
                                 dict(m=2.5), dict(base=1.0), dict(layout="x")])
def test_rope_steps_rejects(bad):
    args = dict(q=(1, 2), m=1, base=10_000.0, layout="interleaved") | bad
    with pytest.raises(ValueError, match=next(iter(bad))):
        rc.rope_steps(**args)


def test_pair_trajectory_closed_form():
    q, k, theta = (3.0, 4.0), (-1.0, 2.0), 0.3
    m, n = [0, 5, 11], [7, 7, 2]
    path = rc.pair_trajectory(q, k, theta, m, n)
    for t in range(3):
        gap = (n[t] - m[t]) * theta + math.atan2(2, -1) - math.atan2(4, 3)
        assert float(path["dot"][t]) == pytest.approx(5 * math.sqrt(5) * math.cos(gap), abs=1e-12)
        assert float(path["cross"][t]) == pytest.approx(5 * math.sqrt(5) * math.sin(gap),
                                                        abs=1e-12)
        assert float(path["between"][t]) == pytest.approx(math.atan2(math.sin(gap),
                                                                     math.cos(gap)), abs=1e-12)
        assert float(path["angle_q"][t]) == pytest.approx(m[t] * theta, abs=1e-15)
    with pytest.raises(ValueError, match="theta_i"):
        rc.pair_trajectory(q, k, -1.0, m, n)
    with pytest.raises(ValueError, match="n"):
        rc.pair_trajectory(q, k, theta, m, [1, 2])


def test_positions_per_frame():
    assert rc.positions_per_frame(1.0, 60) == 1  # 2 pi / 59 < 1
    theta = 1e-3  # one turn every 6283.2 tokens: ceil(6283.19 / 59) = 107
    assert rc.positions_per_frame(theta, 60) == 107
    assert rc.positions_per_frame(1e-12, 60, limit=4096) == 4096


def test_distance_grid_and_first_below():
    assert rc.distance_grid(5).tolist() == [0, 1, 2, 3, 4, 5]
    g = rc.distance_grid(10_000, linear_points=5)
    assert g.tolist() == [0, 2500, 5000, 7500, 10_000]
    log = rc.distance_grid(1000, "log", log_points=4)
    assert log.tolist() == [1, 10, 100, 1000]
    assert rc.first_below([0, 1, 2, 3], [5, 4, 1, 0], 2.0) == (1, 2)
    assert rc.first_below([0, 10], [1, 9], 2.0) == (None, 0)
    assert rc.first_below([0, 1], [5, 4], 2.0) == (None, None)
    with pytest.raises(ValueError, match="axis"):
        rc.distance_grid(10, "cubic")


def bound_by_hand(r, dim, base):
    total, partial = 0.0, 0j
    for j in range(dim // 2):
        partial += cmath.exp(1j * r * base ** (-2 * j / dim))
        total += abs(partial)
    return total / (dim // 2)


def test_bound_levels_off_near_the_random_phase_mean():
    # d = 128, base 10^4: 6.54 at r = 256, but 8.34 at r = 10^6 (no monotone decay)
    assert bound_by_hand(256, 128, 1e4) == pytest.approx(6.5431, abs=1e-4)
    assert bound_by_hand(1e6, 128, 1e4) == pytest.approx(8.3378, abs=1e-4)
    # random phases: Monte Carlo of (1/64) sum_j |sum of j random unit vectors|
    rng = random.Random(0)
    trials = 2000
    mc = 0.0
    for _ in range(trials):
        partial, total = 0j, 0.0
        for _ in range(64):
            partial += cmath.exp(1j * rng.uniform(0, 2 * math.pi))
            total += abs(partial)
        mc += total / 64
    assert rc.bound_plateau(128) == pytest.approx(mc / trials, rel=0.02)
    # and the bound's average far beyond the longest wavelength sits there too
    r = torch.arange(1e6, 1e6 + 20_000, 7.0)
    level = float(rc.relative_upper_bound(r, rc.theta(128, 1e4)).mean())
    assert level == pytest.approx(rc.bound_plateau(128), rel=0.05)


def test_bound_prefactor_conjugates_the_key():
    # one pair: h_0 = (1 + 2 iota)(3 - 4 iota) = 11 + 2 iota, h_1 = 0: prefactor |h_0| = sqrt(125)
    q, k = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    assert rc.bound_prefactor(q, k) == pytest.approx(math.sqrt(125), rel=1e-14)
    # two pairs, interleaved: h_0 = (1+0i)(1-0i) = 1, h_1 = (0+1i)(0-1i) = 1, h_2 = 0
    q = k = torch.tensor([1.0, 0.0, 0.0, 1.0])
    assert rc.bound_prefactor(q, k) == pytest.approx(1.0)


def test_attention_checks_shared_vectors():
    q, k = rc.toy_qk(6, 8, 0, shared=True)
    c = rc.attention_checks(q, k, rc.theta(8), causal=True)
    assert c["masked"] == 15 and c["masked_weight"] == 0.0
    assert c["spread_without"] == 0.0 and c["toeplitz_with"] < 1e-12
    assert c["diagonal_change"] < 1e-12 and c["row_sum_gap"] < 1e-12
    assert rc.causal_mask(3).tolist() == [[False, True, True], [False, False, True],
                                          [False, False, False]]
    assert rc.diagonal_spread(torch.tensor([[1.0, 2.0], [3.0, 1.5]])) == 0.5


def test_reference_frequencies_and_relative_errors():
    ref = rc.reference_frequencies(4, 10_000.0)
    assert [float(v) for v in ref] == [1.0, 0.01]
    assert rc.relative_errors([1.0, 0.0101], ref) == pytest.approx([0.0, 0.01], rel=1e-12)
