"""Toy attention head with and without RoPE (rope_core.rotary.attention).

Expected logits are rebuilt here as (R_m q_m) . (R_n k_n) / sqrt(d) from the dense
rotation matrices; the causal mask is checked entry by entry.
"""

import math

import pytest
import torch

import rope_core as rc


def test_toy_qk_draws_and_shapes():
    q, k = rc.toy_qk(6, 8, 42)
    assert q.shape == k.shape == (6, 8) and q.dtype == torch.float64
    # documented: CPU generator seeded with seed, q then k, N(0, 1)
    g = torch.Generator().manual_seed(42)
    assert torch.equal(q, torch.randn(6, 8, generator=g, dtype=torch.float64))
    assert torch.equal(k, torch.randn(6, 8, generator=g, dtype=torch.float64))


def test_toy_qk_shared_repeats_one_draw():
    q, k = rc.toy_qk(5, 4, 9, shared=True)
    g = torch.Generator().manual_seed(9)
    q0 = torch.randn(1, 4, generator=g, dtype=torch.float64)
    k0 = torch.randn(1, 4, generator=g, dtype=torch.float64)
    assert torch.equal(q, q0.expand(5, 4)) and torch.equal(k, k0.expand(5, 4))
    q32, _ = rc.toy_qk(5, 4, 9, shared=True, dtype=torch.float32)
    assert q32.dtype == torch.float32 and torch.equal(q32, q.float())


@pytest.mark.parametrize("use_rope", [True, False])
def test_causal_mask_exact(use_rope):
    seq, dim = 7, 8
    q, k = rc.toy_qk(seq, dim, 1)
    logits, weights = rc.attention(q, k, rc.theta(dim) if use_rope else None, causal=True)
    assert logits.shape == weights.shape == (seq, seq)
    for m in range(seq):
        for n in range(seq):
            if n > m:  # future: exactly -inf and exactly zero weight
                assert logits[m, n].item() == float("-inf")
                assert weights[m, n].item() == 0.0
            else:
                assert math.isfinite(logits[m, n].item())
                assert weights[m, n].item() > 0.0
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(seq, dtype=torch.float64),
                               rtol=0, atol=1e-14)
    # the first token sees only itself
    assert weights[0].tolist() == [1.0] + [0.0] * (seq - 1)


def test_non_causal_has_no_mask():
    q, k = rc.toy_qk(5, 8, 2)
    logits, weights = rc.attention(q, k, rc.theta(8), causal=False)
    assert bool(torch.isfinite(logits).all()) and bool((weights > 0).all())
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(5, dtype=torch.float64),
                               rtol=0, atol=1e-14)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_shared_qk_with_rope_is_toeplitz(layout):
    seq, dim = 12, 16
    q, k = rc.toy_qk(seq, dim, 3, shared=True)
    th = rc.theta(dim)
    logits, _ = rc.attention(q, k, th, causal=True, layout=layout)
    # logits[m, n] = q^T R_(n-m) k / sqrt(d): constant along every diagonal n - m = -j
    for j in range(seq):
        diag = torch.diagonal(logits, offset=-j)  # entries (m, m - j)
        expected = (q[0] @ rc.rotation_matrix(-j, th, layout=layout) @ k[0]).item() / math.sqrt(dim)
        torch.testing.assert_close(diag, torch.full_like(diag, expected), rtol=1e-12, atol=1e-12)
    # and not all diagonals are equal (RoPE does see the distance)
    assert torch.diagonal(logits, 0)[0].item() != pytest.approx(
        torch.diagonal(logits, -1)[0].item(), abs=1e-6)


def test_shared_qk_without_rope_all_equal():
    seq, dim = 10, 16
    q, k = rc.toy_qk(seq, dim, 4, shared=True)
    logits, weights = rc.attention(q, k, None, causal=True)
    # every token has the same q and k: each unmasked logit is q0 . k0 / sqrt(d)
    expected = sum(a * b for a, b in zip(q[0].tolist(), k[0].tolist())) / math.sqrt(dim)
    lower = logits[torch.ones(seq, seq, dtype=torch.bool).tril()]
    torch.testing.assert_close(lower, torch.full_like(lower, expected), rtol=1e-13, atol=1e-14)
    # so row m spreads its weight evenly over its m + 1 visible tokens
    for m in range(seq):
        torch.testing.assert_close(weights[m, :m + 1],
                                   torch.full((m + 1,), 1 / (m + 1), dtype=torch.float64),
                                   rtol=1e-13, atol=0)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("positions", [None, [1000, 1001, 1002, 1003, 1004, 1005],
                                       [5, 3, 0, -2, 40, 7]])
def test_logits_equal_dense_rotations(layout, positions):
    seq, dim = 6, 8
    q, k = rc.toy_qk(seq, dim, 5)
    th = rc.theta(dim)
    logits, weights = rc.attention(q, k, th, causal=False, layout=layout, positions=positions)
    pos = list(range(seq)) if positions is None else positions
    expected = torch.empty(seq, seq, dtype=torch.float64)
    for m in range(seq):
        for n in range(seq):
            qm = rc.rotation_matrix(pos[m], th, layout=layout) @ q[m]
            kn = rc.rotation_matrix(pos[n], th, layout=layout) @ k[n]
            expected[m, n] = torch.dot(qm, kn) / math.sqrt(dim)
    torch.testing.assert_close(logits, expected, rtol=1e-12, atol=1e-12)
    # softmax written out: exp(l - max) / sum
    e = torch.exp(expected - expected.max(dim=-1, keepdim=True).values)
    torch.testing.assert_close(weights, e / e.sum(dim=-1, keepdim=True), rtol=1e-12, atol=1e-14)


def test_no_rope_logits_are_plain_dot_products():
    q, k = rc.toy_qk(4, 6, 8)
    logits, _ = rc.attention(q, k, None, causal=False)
    for m in range(4):
        for n in range(4):
            expected = sum(a * b for a, b in zip(q[m].tolist(), k[n].tolist())) / math.sqrt(6)
            assert logits[m, n].item() == pytest.approx(expected, rel=1e-13, abs=1e-14)


def test_attention_float32():
    q, k = rc.toy_qk(5, 8, 6, dtype=torch.float32)
    logits, weights = rc.attention(q, k, rc.theta(8))
    assert logits.dtype == weights.dtype == torch.float32
    logits64, _ = rc.attention(q.double(), k.double(), rc.theta(8))
    lower = torch.ones(5, 5, dtype=torch.bool).tril()
    torch.testing.assert_close(logits[lower].double(), logits64[lower], rtol=1e-5, atol=1e-5)


def test_toy_qk_dtype_and_device_arguments():
    q64, k64 = rc.toy_qk(3, 4, 5)
    q32, k32 = rc.toy_qk(3, 4, 5, dtype=torch.float32, device="cpu")
    assert q32.dtype == torch.float32 and k32.device.type == "cpu"
    # same draw, rounded once to float32
    assert torch.equal(q32, q64.to(torch.float32)) and torch.equal(k32, k64.to(torch.float32))
