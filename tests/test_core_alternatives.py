"""ALiBi, p-RoPE, xPos, NoPE and the additive sinusoidal encoding (rope_core.beyond.alternatives).

Every expected number is derived independently: slopes and biases by hand from
the ALiBi paper's rule, p-RoPE's pair count by hand, xPos' decay base from the
paper's formula and a dense second formulation (apply the encoding to whole
sequences with apply_rope / explicit 2x2 rotations and take dot products).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core import RopeError
from rope_core.beyond import alternatives

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
    # Gemma's int(p * d // 2) in floating point: 0.58 * 100 = 57.999..., so 28, not 29
    assert rc.p_rope_pairs(100, 0.58) == 28 and rc.p_rope_pairs(100, 0.6) == 30


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


def _torchscale_xpos(x, head_dim, downscale, scale_base=512.0):
    """torchscale's XPOS.forward (microsoft/torchscale, xpos_relative_position.py), offset 0,
    written again here in float64 as a second formulation: the scale's positions run
    from -(L)//2, the rotation's from 0, rotate_every_two pairs (2i, 2i+1)."""
    length = x.shape[0]
    scale_vec = (torch.arange(0, head_dim, 2, **F64) + 0.4 * head_dim) / (1.4 * head_dim)
    min_pos = -length // 2
    scale = scale_vec ** (torch.arange(min_pos, min_pos + length, **F64) / scale_base)[:, None]
    seq_len, half = scale.shape
    inv_freq = 1.0 / (10000 ** (torch.arange(0, half, **F64) / half))
    angle = torch.einsum("i , j -> i j", torch.arange(0, seq_len, **F64), inv_freq)
    sin, cos = angle.sin(), angle.cos()
    if downscale:
        scale = 1 / scale
    sin, cos = (t.repeat_interleave(2, dim=-1) for t in (sin * scale, cos * scale))
    rotated = torch.stack((-x[:, 1::2], x[:, ::2]), dim=-1).flatten(-2)
    return x * cos + rotated * sin


@pytest.mark.parametrize("length,dim", [(5, 8), (16, 64), (33, 16)])
def test_xpos_scores_match_torchscale(length, dim):
    g = torch.Generator().manual_seed(length)
    q = torch.randn(length, dim, generator=g, **F64)
    k = torch.randn(length, dim, generator=g, **F64)
    expected = _torchscale_xpos(q, dim, False) @ _torchscale_xpos(k, dim, True).T
    th = rc.theta(dim)
    ours = rc.apply_xpos(q, range(length), th) @ rc.apply_xpos(k, range(length), th,
                                                                downscale=True).T
    torch.testing.assert_close(ours, expected, rtol=1e-12, atol=1e-12)
    window = rc.encoding_logits("xpos", q, k, range(length))
    torch.testing.assert_close(window, expected / math.sqrt(dim), rtol=1e-12, atol=1e-12)


def test_blockwise_causal_mask_by_hand():
    # Sun et al. 3.3: pre-training length l = 8 -> query blocks of 4 tokens (0-3, 4-7, 8-11,
    # ...); a query sees, causally, its own block and the whole block before it.
    visible = alternatives.blockwise_causal_mask(14, 8)
    seen = {m: [n for n in range(14) if visible[m, n]] for m in range(14)}
    assert seen[0] == [0] and seen[3] == [0, 1, 2, 3]
    assert seen[4] == [0, 1, 2, 3, 4]  # block 1: block 0 and itself
    assert seen[7] == list(range(8))
    assert seen[8] == [4, 5, 6, 7, 8]  # block 2: block 0 is dropped
    assert seen[11] == list(range(4, 12))  # the farthest key: 11 - 4 = 7 = l - 1 back
    assert seen[13] == list(range(8, 14))


@pytest.mark.parametrize("train", [2, 3, 8, 9, 64])
def test_blockwise_reach_is_the_masks_farthest_key(train):
    visible = alternatives.blockwise_causal_mask(4 * train + 3, train)
    m, n = torch.nonzero(visible, as_tuple=True)
    farthest = int((m - n).max())
    assert alternatives.blockwise_reach(train) == farthest
    assert farthest == (train - 1 if train % 2 == 0 else train - 2)  # 2 * (l // 2) - 1
    assert farthest < train  # every distance stays inside the training range


def test_xpos_logit_by_hand():
    # d = 2, theta_0 = 1, q = k = (1, 0): term_0(r) = cos r, zeta_0 = 0.4/1.4 = 2/7
    q = torch.tensor([1.0, 0.0], **F64)
    r = [0, 1, 512, 1024]
    expected = [(2 / 7) ** (x / 512) * math.cos(x) / math.sqrt(2) for x in r]
    torch.testing.assert_close(rc.xpos_logits(q, q, r, rc.theta(2)),
                               torch.tensor(expected, **F64), rtol=1e-13, atol=1e-15)


def _complex_score(q, k, r, th):
    """<R_m q, R_n k> with r = m - n in the complex form (interleaved pairs):
    Re sum_i q_i conj(k_i) e^(i r theta_i), q_i = q_2i + i q_2i+1."""
    qc = torch.complex(q[0::2], q[1::2])
    kc = torch.complex(k[0::2], k[1::2])
    phase = torch.polar(torch.ones_like(th), r * th)
    return float((qc * kc.conj() * phase).real.sum())


@settings(max_examples=25, deadline=None)
@given(half=st.integers(1, 12), seed=st.integers(0, 10_000), base=st.sampled_from([10.0, 1e4, 1e6]),
       r=st.lists(st.integers(-3000, 3000), min_size=1, max_size=6))
def test_rope_logits_match_complex_form(half, seed, base, r):
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2 * half, generator=g, **F64), torch.randn(2 * half, generator=g, **F64)
    th = rc.theta(2 * half, base)
    expected = [_complex_score(q, k, x, th) / math.sqrt(2 * half) for x in r]
    torch.testing.assert_close(rc.rope_logits(q, k, r, th), torch.tensor(expected, **F64),
                               rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_rope_and_xpos_logits_match_dense_rotation(layout):
    # second formulation: rotate whole sequences with apply_rope / apply_xpos, read row m
    dim, m = 16, 40
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(dim, generator=g, **F64), torch.randn(dim, generator=g, **F64)
    th = rc.theta(dim, 100.0)
    pos = range(m + 1)
    Q = rc.apply_rope(q.expand(m + 1, dim).contiguous(), pos, th, layout=layout)
    K = rc.apply_rope(k.expand(m + 1, dim).contiguous(), pos, th, layout=layout)
    Qx = rc.apply_xpos(q.expand(m + 1, dim).contiguous(), pos, th, layout=layout)
    Kx = rc.apply_xpos(k.expand(m + 1, dim).contiguous(), pos, th, layout=layout, downscale=True)
    r = list(range(m + 1))
    dense = torch.stack([Q[m] @ K[m - x] for x in r]) / math.sqrt(dim)
    dense_x = torch.stack([Qx[m] @ Kx[m - x] for x in r]) / math.sqrt(dim)
    torch.testing.assert_close(rc.rope_logits(q, k, r, th, layout=layout), dense,
                               rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(rc.xpos_logits(q, k, r, th, layout=layout), dense_x,
                               rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(half=st.integers(1, 8), seed=st.integers(0, 10_000), m=st.integers(-300, 300),
       n=st.integers(-300, 300), shift=st.integers(-2000, 2000))
def test_xpos_keeps_ropes_relative_property_up_to_its_scale(half, seed, m, n, shift):
    dim = 2 * half
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(1, dim, generator=g, **F64), torch.randn(1, dim, generator=g, **F64)
    th = rc.theta(dim, 1e4)

    def score(a, b):
        return float(rc.apply_xpos(q, [a], th) @ rc.apply_xpos(k, [b], th, downscale=True).T)

    # depends on m - n only ...
    assert math.isclose(score(m + shift, n + shift), score(m, n), rel_tol=1e-9, abs_tol=1e-9)
    # ... and pair by pair it is RoPE's term times zeta_i^((m - n)/512)
    terms = rc.pair_terms(q[0], k[0], [m - n], th)[0]
    zeta = rc.xpos_zeta(dim)
    assert math.isclose(score(m, n), float((zeta ** ((m - n) / 512) * terms).sum()),
                        rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=20, deadline=None)
@given(half=st.integers(1, 16), seed=st.integers(0, 10_000), base=st.sampled_from([10.0, 1e4, 1e8]))
def test_p_one_is_rope_and_p_zero_is_nope_for_scores(half, seed, base):
    dim = 2 * half
    q, k = rc.toy_qk(6, dim, seed)
    kw = dict(base=base)
    torch.testing.assert_close(rc.encoding_logits("p_rope", q, k, range(6), p=1.0, **kw),
                               rc.encoding_logits("rope", q, k, range(6), **kw),
                               rtol=0, atol=0)
    torch.testing.assert_close(rc.encoding_logits("p_rope", q, k, range(6), p=0.0, **kw),
                               rc.encoding_logits("nope", q, k, range(6), **kw),
                               rtol=1e-15, atol=1e-15)
    r = [0, 3, 50]
    torch.testing.assert_close(rc.rope_logits(q[0], k[0], r, rc.p_rope_theta(dim, base, 0.0)),
                               rc.nope_logits(q[0], k[0], r), rtol=1e-15, atol=1e-15)


def test_nope_and_alibi_logits_by_hand():
    q = torch.tensor([1.0, 2.0, 0.0, -1.0], **F64)
    k = torch.tensor([0.5, 0.5, 3.0, 1.0], **F64)  # q.k = 0.5 + 1 + 0 - 1 = 0.5, sqrt(4) = 2
    r = [0, 1, 10]
    assert rc.nope_logits(q, k, r).tolist() == [0.25, 0.25, 0.25]
    torch.testing.assert_close(rc.alibi_logits(q, k, r, 0.125),
                               torch.tensor([0.25, 0.125, 0.25 - 1.25], **F64), rtol=0, atol=0)


def test_alibi_window_is_nope_plus_the_bias():
    q, k = rc.toy_qk(9, 8, 4)
    slopes = rc.alibi_slopes(4)
    nope = rc.encoding_logits("nope", q, k, range(9))
    for h in range(4):
        alibi = rc.encoding_logits("alibi", q, k, range(9), slope=float(slopes[h]))
        torch.testing.assert_close(alibi, nope + rc.alibi_bias(4, 9)[h], rtol=0, atol=1e-15)


@settings(max_examples=20, deadline=None)
@given(dim=st.sampled_from([2, 6, 16, 64]), base=st.sampled_from([10.0, 1e4, 5e5]),
       positions=st.lists(st.integers(0, 5000), min_size=1, max_size=8))
def test_sinusoidal_rows_are_the_tables_rows(dim, base, positions):
    table = rc.sinusoidal_pe(max(positions) + 1, dim, base)
    torch.testing.assert_close(rc.sinusoidal_rows(positions, dim, base),
                               table[positions], rtol=1e-12, atol=1e-12)


def test_sinusoidal_logits_from_the_table():
    dim, m = 8, 30
    q, k = rc.toy_qk(2, dim, 7)
    q, k = q[0], k[1]
    pe = rc.sinusoidal_pe(m + 1, dim, 100.0)
    r = [0, 1, 7, 30]
    expected = torch.stack([(q + pe[m]) @ (k + pe[m - x]) for x in r]) / math.sqrt(dim)
    torch.testing.assert_close(rc.sinusoidal_logits(q, k, r, m, 100.0), expected,
                               rtol=1e-12, atol=1e-12)
    # with q = k = 0 only PE_m.PE_n = sum_i cos(r omega_i) is left
    zero = torch.zeros(dim, **F64)
    torch.testing.assert_close(rc.sinusoidal_logits(zero, zero, r, m, 100.0),
                               rc.sinusoidal_dot(r, dim, 100.0) / math.sqrt(dim),
                               rtol=1e-12, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(seq=st.integers(2, 12), start=st.integers(0, 50_000), seed=st.integers(0, 1000),
       shared=st.booleans())
def test_relative_encodings_draw_the_same_map_anywhere_sinusoidal_does_not(seq, start, seed,
                                                                           shared):
    q, k = rc.toy_qk(seq, 8, seed, shared=shared)
    for e in ("rope", "p_rope", "xpos", "alibi", "nope"):
        at0 = rc.encoding_logits(e, q, k, range(seq), base=100.0)
        moved = rc.encoding_logits(e, q, k, range(start, start + seq), base=100.0)
        torch.testing.assert_close(moved, at0, rtol=1e-8, atol=1e-8)
    if start >= 1:
        at0 = rc.encoding_logits("sinusoidal", q, k, range(seq), base=100.0)
        moved = rc.encoding_logits("sinusoidal", q, k, range(start, start + seq),
                                                base=100.0)
        assert not torch.allclose(moved, at0)


def test_causal_weights():
    logits = torch.tensor([[0.0, 5.0, 5.0], [1.0, 1.0, 9.0], [0.0, math.log(2), math.log(3)]],
                          **F64)
    w = rc.causal_weights(logits)
    expected = torch.tensor([[1, 0, 0], [0.5, 0.5, 0], [1 / 6, 2 / 6, 3 / 6]], **F64)
    torch.testing.assert_close(w, expected, rtol=1e-15, atol=1e-15)
    assert w[0, 1] == 0 and w[1, 2] == 0


def test_tables_settings_first_and_complete():
    df = alternatives.distance_table("random q, k", 16, 1e4, 1000, p=0.5, slope=1 / 8, seed=3)
    assert list(df.columns[:4]) == ["vectors", "dim", "base", "layout"]
    assert list(df.columns[-5:]) == ["encoding", "distance r [tokens]", "logit", "drawn logit",
                                     "envelope +- [logit]"]
    assert df["pairs too fast to draw"].iloc[0] == alternatives.unresolved_pairs(16, 1e4,
                                                                                  1000 / 599)
    assert list(df["encoding"].unique()) == ["RoPE", "p-RoPE", "xPos", "ALiBi", "NoPE",
                                             "sinusoidal"]
    assert len(df) == 6 * 600 and df["distance r [tokens]"].max() == 1000
    assert df["base"].dtype.kind == "i"
    for column in df.columns:
        assert column.isascii()
    seq = 10
    att = alternatives.attention_maps_table(8, 1e4, seq, 100, 0, False, p=0.5, slope=0.25)
    assert len(att) == 6 * seq * (seq + 1) // 2
    assert (att["n [tokens]"] <= att["m [tokens]"]).all()
    sums = att.groupby(["encoding", "m [tokens]"])["weight"].sum()
    assert ((sums - 1).abs() < 1e-12).all()


def test_pairs_too_fast_for_the_samples_by_hand():
    """theta_i = base^(-2i/d) > 2 pi / (4 step): d = 64, base 10^4, step 2048 / 599 =
    3.419 tokens: 2 pi / 13.68 = 0.4593; theta_1 = 10^(-1/8) = 0.750, theta_2 = 10^(-1/4)
    = 0.562, theta_3 = 10^(-3/8) = 0.422: pairs 0, 1, 2 (3 of them)."""
    assert alternatives.unresolved_pairs(64, 1e4, 2048 / 599) == 3
    # one token apart, even pair 0 (theta 1, a turn every 6.28 tokens) is drawn
    assert alternatives.unresolved_pairs(64, 1e4, 1.0) == 0
    with pytest.raises(RopeError, match="samples"):
        alternatives.unresolved_pairs(64, 1e4, 2.0, samples=1)


@pytest.mark.parametrize("vectors, dim, base, max_distance", [
    ("q = k", 64, 1e4, 2048), ("random q, k", 128, 500.0, 20_000), ("random q, k", 16, 1e4, 599)])
def test_the_envelope_holds_the_exact_logit_at_every_distance(vectors, dim, base,
                                                              max_distance):
    """Every integer distance, sampled or not: |logit - drawn logit| <= envelope, the sum
    of the left-out pairs' amplitudes (a cos x + b sin x never exceeds sqrt(a^2 + b^2)); a
    bound, reached only where their phases align (a single pair: at every crest)."""
    df = alternatives.distance_table(vectors, dim, base, max_distance, p=0.5, slope=0.1,
                                     seed=3)
    fast = int(df["pairs too fast to draw"].iloc[0])
    r = torch.arange(0, max_distance + 1)
    common = dict(p=0.5, seed=3, query_position=max_distance)
    exact = alternatives.distance_logits(vectors, dim, base, r, slope=0.1, **common)
    drawn = alternatives.distance_logits(vectors, dim, base, r, slope=0.1, first_pair=fast,
                                         **common)
    envelope = alternatives.ripple_envelope(vectors, dim, base, r, first_pair=fast, **common)
    for e in exact:
        assert ((exact[e] - drawn[e]).abs() <= envelope[e] + 1e-12).all(), e
    if fast:
        assert float((exact["rope"] - drawn["rope"]).abs().max()) > 0  # ripples left out
        assert float(envelope["alibi"].abs().max()) == float(envelope["nope"].abs().max()) == 0
    else:  # every distance sampled: nothing left out, no chord to miss anything
        assert float(df["envelope +- [logit]"].abs().max()) == 0.0
        assert (df["drawn logit"] == df["logit"]).all()
    # the table's columns are these, at its samples (the envelope with the chords' allowance)
    sampled = df[df["encoding"] == "RoPE"]
    at = torch.tensor(sampled["distance r [tokens]"].to_numpy())
    assert torch.allclose(torch.tensor(sampled["drawn logit"].to_numpy()), drawn["rope"][at])
    chord = alternatives.chord_allowance(vectors, dim, base, at, first_pair=fast, **common)
    assert torch.allclose(torch.tensor(sampled["envelope +- [logit]"].to_numpy()),
                          envelope["rope"][at] + chord["rope"])


def test_the_chords_allowance_by_hand():
    """d = 2 (one pair, theta_0 = 1), q = k: the pair's term is |q|^2 cos r, A = |q|^2,
    |f''| <= A / sqrt(2). Samples 0, 3, 5, 6: gaps of 3, 2, 1 tokens, whose integers
    inside lie at most floor(h/2) ceil(h/2) / 2 = 1, 1/2, 0 from the chord's error bound
    (r - a)(b - r)/2: at the samples the larger gap beside each, 1, 1, 1/2, 0 times
    A / sqrt(2). xPos: A zeta^(a/B) (kappa^2 + 1) on the gap from a, zeta = 0.4 / 1.4,
    kappa = ln(3.5) / 512. ALiBi and NoPE are straight: 0."""
    q, _k = alternatives.score_vectors("q = k", 2, 7)
    amp = float(q @ q)
    r = torch.tensor([0, 3, 5, 6])
    got = alternatives.chord_allowance("q = k", 2, 1e4, r, p=1.0, seed=7, query_position=6,
                                       first_pair=0)
    want = torch.tensor([1.0, 1.0, 0.5, 0.0], dtype=torch.float64) * amp / math.sqrt(2)
    torch.testing.assert_close(got["rope"], want, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(got["p_rope"], want, rtol=1e-12, atol=1e-15)
    kappa = math.log(3.5) / 512
    gap = [amp * (2 / 7) ** (a / 512) * (kappa**2 + 1) * f / math.sqrt(2)
           for a, f in ((0, 1.0), (3, 0.5), (5, 0.0))]
    xpos = torch.tensor([gap[0], max(gap[0], gap[1]), max(gap[1], gap[2]), gap[2]],
                        dtype=torch.float64)
    torch.testing.assert_close(got["xpos"], xpos, rtol=1e-12, atol=1e-15)
    assert float(got["alibi"].abs().max()) == float(got["nope"].abs().max()) == 0.0
    # p = 0: no pair rotates, p-RoPE is flat; every pair left out: nothing drawn to miss
    flat = alternatives.chord_allowance("q = k", 2, 1e4, r, p=0.0, seed=7, query_position=6,
                                        first_pair=0)
    assert float(flat["p_rope"].abs().max()) == 0.0
    none = alternatives.chord_allowance("q = k", 2, 1e4, r, p=1.0, seed=7, query_position=6,
                                        first_pair=1)
    assert all(float(v.abs().max()) == 0.0 for v in none.values())
    with pytest.raises(RopeError, match="distances"):
        alternatives.chord_allowance("q = k", 2, 1e4, [0, 3, 3], p=1.0, seed=7,
                                     query_position=6, first_pair=0)


def exact_rope_logits(q: np.ndarray, k: np.ndarray, base: float, m: int) -> np.ndarray:
    """RoPE's logit with the query at m and the key at every n = m ... 0 (r = 0 ... m), by
    rotating each (interleaved) pair of q by m theta_i and of k by n theta_i and taking the
    dot product: the dense formulation, in numpy, apart from rope_core."""
    d = q.size
    th = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
    n = m - np.arange(m + 1)  # (R,)
    qa, qb, ka, kb = q[0::2], q[1::2], k[0::2], k[1::2]
    cq, sq = np.cos(m * th), np.sin(m * th)
    rqa, rqb = qa * cq - qb * sq, qa * sq + qb * cq  # (d/2,)
    ang = np.outer(n, th)  # (R, d/2)
    ck, sk = np.cos(ang), np.sin(ang)
    return ((rqa * (ka * ck - kb * sk) + rqb * (ka * sk + kb * ck)).sum(1)) / math.sqrt(d)


CORNERS = [(dim, base, train, reach) for dim in (32, 64, 128) for base in (1e4, 5e5)
           for train, reach in ((64, 2), (512, 4), (1024, 8))] + [
    (32, 1e4, 8192, 8), (32, 5e5, 8192, 8)]  # the farthest reach, 65,536 tokens


@pytest.mark.parametrize("dim, base, train, reach", CORNERS)
def test_the_drawn_band_holds_the_exact_logit_at_every_distance(dim, base, train, reach):
    """Review of issue 44, finding 20: the page draws each line and its band straight
    between the samples (Plotly's linear segments). At the sidebar's corners (d 32, 64,
    128; base 10^4 and 5 10^5) and the page's training lengths and reaches, every integer
    distance's exact logit lies inside that band: RoPE's by the dense formulation above,
    p-RoPE's, xPos's and the sinusoid's by their own functions (rope_logits with
    p_rope_theta, xpos_logits, sinusoidal_logits), ALiBi's and NoPE's straight lines."""
    md = train * reach
    p, slope, seed = 0.75, 1 / 16, 0
    df = alternatives.distance_table("random q, k", dim, base, md, p=p, slope=slope,
                                     seed=seed)
    q, k = alternatives.score_vectors("random q, k", dim, seed)
    r = torch.arange(md + 1)
    exact = {"rope": exact_rope_logits(q.numpy(), k.numpy(), base, md),
             "p_rope": rc.rope_logits(q, k, r, rc.p_rope_theta(dim, base, p)).numpy(),
             "xpos": rc.xpos_logits(q, k, r, rc.theta(dim, base)).numpy(),
             "alibi": rc.alibi_logits(q, k, r, slope).numpy(),
             "nope": rc.nope_logits(q, k, r).numpy(),
             "sinusoidal": alternatives.sinusoidal_logits(q, k, r, md, base).numpy()}
    np.testing.assert_allclose(exact["rope"], rc.rope_logits(q, k, r, rc.theta(dim, base)),
                               rtol=1e-9, atol=1e-9)
    for e, label in zip(alternatives.ENCODINGS, df["encoding"].unique()):
        rows = df[df["encoding"] == label]
        x = rows["distance r [tokens]"].to_numpy()
        drawn, band = rows["drawn logit"].to_numpy(), rows["envelope +- [logit]"].to_numpy()
        upper = np.interp(r.numpy(), x, drawn + band)  # the band as drawn, at every r
        lower = np.interp(r.numpy(), x, drawn - band)
        assert (exact[e] <= upper + 1e-9).all() and (exact[e] >= lower - 1e-9).all(), e


def test_without_the_chords_allowance_the_band_would_miss():
    """The review's setting d 32, base 5 10^5, L 512 x 4: drawn straight between samples 3.42
    tokens apart, the resolved pairs' line strays from the exact logit between samples by
    more than the left-out pairs' amplitudes (the band before finding 20's fix)."""
    md = 2048
    df = alternatives.distance_table("random q, k", 32, 5e5, md, p=0.75, slope=1 / 16, seed=0)
    rows = df[df["encoding"] == "RoPE"]
    x = rows["distance r [tokens]"].to_numpy()
    fast = int(df["pairs too fast to draw"].iloc[0])
    q, k = alternatives.score_vectors("random q, k", 32, 0)
    exact = exact_rope_logits(q.numpy(), k.numpy(), 5e5, md)
    ripple = alternatives.ripple_envelope("random q, k", 32, 5e5, torch.tensor(x), p=0.75,
                                          seed=0, query_position=md, first_pair=fast)["rope"]
    r = np.arange(md + 1)
    upper = np.interp(r, x, rows["drawn logit"].to_numpy() + ripple.numpy())
    lower = np.interp(r, x, rows["drawn logit"].to_numpy() - ripple.numpy())
    assert ((exact > upper + 1e-9) | (exact < lower - 1e-9)).any()


def test_at_the_pages_lengths_a_band_always_comes_with_its_caption():
    """The page captions the band when a pair is too fast for the samples
    (views.beyond_rope.sampling_note). At every reach of the page (L 64 ... 8192 times
    2, 4, 8: pages/beyond_rope.py) either every distance is sampled (no band) or the
    samples are more than pi/2 tokens apart, so pair 0 (theta 1, a turn in 2 pi tokens) is
    too fast: the chords' allowance never draws a band alone."""
    for max_distance in sorted({t * m for t in (64, 128, 256, 512, 1024, 2048, 4096, 8192)
                                for m in (2, 4, 8)}):
        df = alternatives.distance_table("q = k", 16, 1e4, max_distance, p=0.5, slope=0.1,
                                         seed=0)
        band = float(df["envelope +- [logit]"].max()) > 0
        assert band == (int(df["pairs too fast to draw"].iloc[0]) > 0), max_distance
        assert band == (max_distance >= alternatives.SCORE_POINTS)


def test_leaving_out_pairs_removes_exactly_their_terms():
    """first_pair = k: RoPE's drawn logit is the sum over pairs k ... d/2 - 1 of the pair
    terms (pair_terms), by a second formulation."""
    q, k = alternatives.score_vectors("random q, k", 16, 4)
    r = torch.arange(0, 50)
    th = rc.theta(16, 1e4)
    terms = alternatives.pair_terms(q, k, r, th)  # (R, 8)
    want = terms[:, 3:].sum(-1) / math.sqrt(16)
    got = alternatives.distance_logits("random q, k", 16, 1e4, r, p=1.0, slope=0.1, seed=4,
                                       query_position=49, first_pair=3)["rope"]
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize("call,name,value", [
    (lambda: rc.alibi_slopes(0), "n_heads", "0"),
    (lambda: alternatives.blockwise_causal_mask(4, 1), "train_len", "1"),
    (lambda: alternatives.blockwise_causal_mask(0, 8), "seq_len", "0"),
    (lambda: alternatives.blockwise_reach(True), "train_len", "True"),
    (lambda: rc.alibi_slopes(1025), "n_heads", "1025"),
    (lambda: rc.alibi_slopes(4.0), "n_heads", "4.0"),
    (lambda: rc.alibi_bias(8, 0), "seq_len", "0"),
    (lambda: rc.alibi_bias(64, 4096), "seq_len", "4096"),
    (lambda: rc.p_rope_theta(8, 1e4, 1.5), "p", "1.5"),
    (lambda: rc.p_rope_theta(8, 1e4, math.nan), "p", "nan"),
    (lambda: rc.p_rope_theta(8, 1e4, True), "p", "True"),
    (lambda: rc.p_rope_theta(7, 1e4, 0.5), "dim", "7"),
    (lambda: rc.xpos_zeta(8, 0.0), "gamma", "0.0"),
    (lambda: rc.xpos_scale([10**7], 8), "positions", "10000000"),
    (lambda: rc.apply_xpos(torch.zeros(1, 8, dtype=torch.float32), [30_000],
                           rc.theta(8, dtype=torch.float32)), "positions", "30000"),
    (lambda: rc.alibi_logits(torch.ones(4, **F64), torch.ones(4, **F64), [1], 0.0), "slope", "0.0"),
    (lambda: rc.nope_logits(torch.ones(4, **F64), torch.ones(6, **F64), [1]), "k.shape", "6"),
    (lambda: rc.nope_logits(torch.ones(3, **F64), torch.ones(3, **F64), [1]), "q.shape[-1]", "3"),
    (lambda: rc.rope_logits(torch.ones(4, **F64), torch.ones(4, **F64), [1.5], rc.theta(4)),
     "distances", "1.5"),
    (lambda: rc.rope_logits(torch.ones(4, **F64), torch.ones(4, **F64), [1], rc.theta(8)),
     "q.shape[-1]", "4"),
    (lambda: rc.sinusoidal_logits(torch.ones(4, **F64), torch.ones(4, **F64), [11], 10),
     "distances", "11"),
    (lambda: rc.encoding_logits("rotary", torch.ones(2, 4, **F64),
                                             torch.ones(2, 4, **F64), [0, 1]), "encoding",
     "rotary"),
    (lambda: rc.encoding_logits("rope", torch.ones(2, 4, **F64),
                                             torch.ones(2, 4, **F64), [0]), "positions", "0"),
    (lambda: alternatives.distance_table("q=k", 8, 1e4, 10, p=0.5, slope=0.5, seed=0),
     "vectors", "q=k"),
])
def test_bad_arguments_name_parameter_value_and_range(call, name, value):
    with pytest.raises(RopeError) as info:
        call()
    text = str(info.value)
    assert text.startswith(f"{name}=") and value in text and "must be" in text


@pytest.mark.parametrize("vectors,dim,p,layout", [("q = k", 16, 0.75, "interleaved"),
                                                  ("random q, k", 10, 0.5, "half"),
                                                  ("random q, k", 8, 0.0, "interleaved"),
                                                  ("q = k", 8, 1.0, "half")])
def test_distance_logits_share_terms_but_equal_each_encodings_own_function(vectors, dim, p,
                                                                           layout):
    r = torch.tensor([0, 1, 5, 100, 999])
    got = alternatives.distance_logits(vectors, dim, 500.0, r, p=p, slope=0.25, seed=2,
                                          query_position=1000, layout=layout)
    q, k = alternatives.score_vectors(vectors, dim, 2)
    th = rc.theta(dim, 500.0)
    want = {"rope": rc.rope_logits(q, k, r, th, layout=layout),
            "p_rope": rc.rope_logits(q, k, r, rc.p_rope_theta(dim, 500.0, p), layout=layout),
            "xpos": rc.xpos_logits(q, k, r, th, layout=layout),
            "alibi": rc.alibi_logits(q, k, r, 0.25), "nope": rc.nope_logits(q, k, r),
            "sinusoidal": rc.sinusoidal_logits(q, k, r, 1000, 500.0)}
    assert list(got) == list(alternatives.ENCODINGS)
    for e in got:
        torch.testing.assert_close(got[e], want[e], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dim,query,tolerance", [(1024, 65536, 1e-12), (1024, 10**6, 1e-10),
                                                 (6, 777, 1e-12)])
def test_distance_logits_at_large_dims_and_far_queries(dim, query, tolerance):
    # distance_logits forms the sinusoidal terms from RoPE's angles (the angle-difference
    # identity) and its curves a few rows at a time: the same numbers up to rounding
    r = torch.tensor([0, 1, 7, 600, query // 3, query - 1, query])
    for layout in ("interleaved", "half"):
        got = alternatives.distance_logits("random q, k", dim, 1e4, r, p=0.75,
                                              slope=1 / 16, seed=5, query_position=query,
                                              layout=layout)
        q, k = alternatives.score_vectors("random q, k", dim, 5)
        th = rc.theta(dim, 1e4)
        want = {"rope": rc.rope_logits(q, k, r, th, layout=layout),
                "p_rope": rc.rope_logits(q, k, r, rc.p_rope_theta(dim, 1e4, 0.75),
                                         layout=layout),
                "xpos": rc.xpos_logits(q, k, r, th, layout=layout),
                "alibi": rc.alibi_logits(q, k, r, 1 / 16), "nope": rc.nope_logits(q, k, r),
                "sinusoidal": rc.sinusoidal_logits(q, k, r, query, 1e4)}
        for e in got:
            torch.testing.assert_close(got[e], want[e], rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dim,p,layout,start", [(8, 0.5, "interleaved", 0),
                                                (64, 0.75, "half", 4096),
                                                (1024, 0.25, "interleaved", 262144),
                                                (6, 1.0, "half", 3), (10, 0.0, "interleaved", 7)])
def test_attention_maps_share_work_but_equal_encoding_logits_bit_for_bit(dim, p, layout, start):
    q, k = rc.toy_qk(12, dim, 4)
    pos = torch.arange(start, start + 12)
    kw = dict(base=500.0, p=p, slope=0.125, layout=layout)
    got = alternatives._window_logits(q, k, pos, gamma=alternatives.XPOS_GAMMA,
                                         scale_base=alternatives.XPOS_SCALE_BASE, **kw)
    for e, logits in zip(alternatives.ENCODINGS, got):
        assert torch.equal(logits, rc.encoding_logits(e, q, k, pos, **kw)), e
    table = alternatives.attention_maps_table(dim, 500.0, 12, start, 4, False, p=p,
                                                 slope=0.125, layout=layout)
    m, n = torch.tril_indices(12, 12)
    weights = torch.stack([rc.causal_weights(x) for x in got])[:, m, n].reshape(-1)
    assert torch.equal(torch.tensor(table["weight"].to_numpy()), weights)


def test_sinusoidal_rows_are_the_rotated_unit_vectors_bit_for_bit():
    # PE_p = R(-p w) (0, 1) in every pair: sinusoidal_rows writes out sin and cos
    positions = torch.tensor([0, 1, 5, 4095, 65536, 999_999, -3])
    for dim, base in ((2, 10.0), (6, 1e4), (1024, 1e4), (128, 5e5)):
        unit = torch.zeros(len(positions), dim, dtype=torch.float64)
        unit[:, 1::2] = 1.0
        rotated = rc.apply_rope(unit, -positions, rc.theta(dim, base), layout="interleaved")
        assert torch.equal(rc.sinusoidal_rows(positions, dim, base), rotated)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU on this machine")
def test_tables_on_cuda_match_cpu():
    for layout in ("interleaved", "half"):
        cpu = alternatives.distance_table("random q, k", 64, 1e4, 5000, p=0.5, slope=0.125,
                                             seed=1, layout=layout)
        gpu = alternatives.distance_table("random q, k", 64, 1e4, 5000, p=0.5, slope=0.125,
                                             seed=1, layout=layout, device="cuda")
        np.testing.assert_allclose(gpu["logit"], cpu["logit"], rtol=1e-10, atol=1e-10)
        cpu = alternatives.attention_maps_table(64, 1e4, 16, 4096, 2, False, p=0.5,
                                                   slope=0.125, layout=layout)
        gpu = alternatives.attention_maps_table(64, 1e4, 16, 4096, 2, False, p=0.5,
                                                   slope=0.125, layout=layout, device="cuda")
        np.testing.assert_allclose(gpu["weight"], cpu["weight"], rtol=1e-10, atol=1e-12)
    x = torch.randn(3, 8, 32, dtype=torch.float64)
    th = rc.p_rope_theta(32, 1e4, 0.5)
    torch.testing.assert_close(rc.apply_xpos(x.cuda(), range(8), th.cuda()).cpu(),
                               rc.apply_xpos(x, range(8), th), rtol=1e-12, atol=1e-12)
    assert rc.alibi_bias(4, 8, device="cuda").device.type == "cuda"
