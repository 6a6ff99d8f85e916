"""ALiBi, p-RoPE, xPos, NoPE and the additive sinusoidal encoding (rope_core.alternatives).

Every expected number is derived independently: slopes and biases by hand from
the ALiBi paper's rule, p-RoPE's pair count by hand, xPos' decay base from the
paper's formula and a dense second formulation (apply the encoding to whole
sequences with apply_rope / explicit 2x2 rotations and take dot products).
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core import RopeError

F64 = dict(dtype=torch.float64)


# ---------------------------------------------------------------- ALiBi slopes, by hand


def test_alibi_slopes_power_of_two_by_hand():
    # n = 8: start = ratio = 2^(-8/8) = 1/2 -> 1/2, 1/4, ..., 1/256 (the paper's example).
    assert rc.alibi_slopes(8).tolist() == [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64,
                                           1 / 128, 1 / 256]
    # n = 16: start = 2^(-1/2), ratio the same: 2^(-h/2), h = 1 ... 16.
    expected = [2 ** (-h / 2) for h in range(1, 17)]
    torch.testing.assert_close(rc.alibi_slopes(16), torch.tensor(expected, **F64),
                               rtol=1e-15, atol=0)
    assert rc.alibi_slopes(1).tolist() == [2 ** -8]
    assert rc.alibi_slopes(2).tolist() == [2 ** -4, 2 ** -8]


def test_alibi_slopes_not_a_power_of_two_by_hand():
    # n = 6: closest power of two 4 -> 2^-2, 2^-4, 2^-6, 2^-8; then of n = 8's slopes
    # 2^-1 ... 2^-8 every other one (2^-1, 2^-3, 2^-5, 2^-7), the first 6 - 4 = 2.
    assert rc.alibi_slopes(6).tolist() == [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]
    # n = 3: 2^-4, 2^-8 (n = 2), then 2^-2 (first of n = 4's 2^-2, 2^-4, 2^-6, 2^-8).
    assert rc.alibi_slopes(3).tolist() == [1 / 16, 1 / 256, 1 / 4]
    # n = 12: 8 slopes 2^-1 ... 2^-8, then 16's 2^(-h/2) at odd h: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
    expected = [2.0 ** -h for h in range(1, 9)] + [2 ** -0.5, 2 ** -1.5, 2 ** -2.5, 2 ** -3.5]
    torch.testing.assert_close(rc.alibi_slopes(12), torch.tensor(expected, **F64),
                               rtol=1e-15, atol=0)


def _reference_get_slopes(n):
    """The ALiBi repository's get_slopes, as its README prints it (a second
    formulation: start * ratio ** i and math.log2, not our exact powers)."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + _reference_get_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 12, 20, 24, 32, 40, 64, 96, 100, 1024])
def test_alibi_slopes_match_reference_code(n):
    torch.testing.assert_close(rc.alibi_slopes(n), torch.tensor(_reference_get_slopes(n), **F64),
                               rtol=1e-12, atol=0)


def test_alibi_bias_by_hand():
    bias = rc.alibi_bias(2, 3)  # slopes 1/16, 1/256
    s = 1 / 16
    expected0 = torch.tensor([[0, s, 2 * s], [-s, 0, s], [-2 * s, -s, 0]], **F64)
    torch.testing.assert_close(bias[0], expected0, rtol=0, atol=0)
    torch.testing.assert_close(bias[1], expected0 / 16, rtol=0, atol=0)
    assert bias.shape == (2, 3, 3)


@settings(max_examples=30, deadline=None)
@given(n_heads=st.integers(1, 12), seq=st.integers(1, 24), shift=st.integers(0, 10))
def test_alibi_bias_depends_only_on_m_minus_n(n_heads, seq, shift):
    bias = rc.alibi_bias(n_heads, seq + shift)
    # moving query and key by the same shift leaves every entry unchanged
    torch.testing.assert_close(bias[:, shift:, shift:], bias[:, :seq, :seq], rtol=0, atol=0)
    m = torch.arange(seq + shift)
    r = (m[:, None] - m[None, :]).to(torch.float64)
    torch.testing.assert_close(bias, -rc.alibi_slopes(n_heads)[:, None, None] * r, rtol=0,
                               atol=0)


# ---------------------------------------------------------------- p-RoPE


def test_p_rope_pair_count_by_hand():
    assert rc.p_rope_pairs(64, 0.75) == 24  # 0.75 * 32
    assert rc.p_rope_pairs(64, 0.25) == 8
    assert rc.p_rope_pairs(10, 0.5) == 2  # floor(2.5)
    assert rc.p_rope_pairs(8, 0.0) == 0
    assert rc.p_rope_pairs(8, 1.0) == 4
    assert rc.p_rope_pairs(2, 0.99) == 0  # floor(0.99)


def test_p_rope_theta_by_hand():
    # d = 8, base 10000, p = 0.5: pairs 0, 1 keep 10000^0 = 1 and 10000^(-1/4) = 0.1.
    torch.testing.assert_close(rc.p_rope_theta(8, 10000.0, 0.5),
                               torch.tensor([1.0, 0.1, 0.0, 0.0], **F64), rtol=1e-15, atol=0)


def test_p_one_is_rope_and_p_zero_is_nope():
    torch.testing.assert_close(rc.p_rope_theta(64, 500000.0, 1.0), rc.theta(64, 500000.0),
                               rtol=0, atol=0)
    assert not rc.p_rope_theta(64, 500000.0, 0.0).any()
    x = torch.randn(7, 16, generator=torch.Generator().manual_seed(0), **F64)
    torch.testing.assert_close(rc.apply_rope(x, range(7), rc.p_rope_theta(16, 1e4, 0.0)), x,
                               rtol=0, atol=0)


def test_apply_rope_with_zero_theta_leaves_those_pairs():
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(1), **F64)
    th = rc.p_rope_theta(8, 10000.0, 0.5)  # pairs 2, 3 unrotated
    for layout, still in (("interleaved", [4, 5, 6, 7]), ("half", [2, 3, 6, 7])):
        out = rc.apply_rope(x, range(5), th, layout=layout)
        torch.testing.assert_close(out[:, still], x[:, still], rtol=0, atol=0)
        full = rc.apply_rope(x, range(5), rc.theta(8), layout=layout)
        moved = [c for c in range(8) if c not in still]
        torch.testing.assert_close(out[:, moved], full[:, moved], rtol=0, atol=0)


def test_check_theta_allows_zero_rejects_negative():
    assert math.isinf(float(rc.wavelength(torch.tensor([1.0, 0.0], **F64))[1]))
    with pytest.raises(RopeError, match="at least 0"):
        rc.apply_rope(torch.zeros(1, 2, **F64), [0], torch.tensor([-1e-9], **F64))


# ---------------------------------------------------------------- xPos


def test_xpos_zeta_by_hand():
    # d = 8, gamma = 0.4: (2i/8 + 0.4)/1.4 = 0.4/1.4, 0.65/1.4, 0.9/1.4, 1.15/1.4
    torch.testing.assert_close(rc.xpos_zeta(8),
                               torch.tensor([0.4, 0.65, 0.9, 1.15], **F64) / 1.4,
                               rtol=1e-15, atol=0)


def test_xpos_scale_by_hand():
    s = rc.xpos_scale([0, 512, -1024], 2)  # zeta_0 = 2/7, B = 512
    torch.testing.assert_close(s[:, 0], torch.tensor([1.0, 2 / 7, (2 / 7) ** -2], **F64),
                               rtol=1e-14, atol=0)
    k = rc.xpos_scale([512], 2, downscale=True)
    torch.testing.assert_close(k[:, 0], torch.tensor([3.5], **F64), rtol=1e-14, atol=0)
