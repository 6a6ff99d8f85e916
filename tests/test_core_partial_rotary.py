"""Partial rotary: apply_rope rotates only the first rotary_dim = 2 len(theta) coordinates.

Reference: the dense form, block-diag(R_m on the first rotary_dim coordinates,
identity on the rest), built from rotation_matrix and torch.eye.
"""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_core as rc


def dense(position, theta, head_dim, layout):
    rot = rc.rotation_matrix(position, theta, layout=layout)  # (r, r)
    return torch.block_diag(rot, torch.eye(head_dim - rot.shape[0], dtype=torch.float64))


@pytest.mark.parametrize("head_dim,rotary_dim,layout", [
    (96, 24, "half"),  # GPT-NeoX-20B / Pythia: 25 %
    (256, 64, "interleaved"),  # GPT-J 6B
    (128, 64, "interleaved"),  # ChatGLM: half the head
    (192, 64, "interleaved"),  # DeepSeek-V3's 64 rope dims (counted first here)
    (16, 16, "half"),  # full rotary is the same call
])
def test_partial_matches_dense_block_form(head_dim, rotary_dim, layout):
    g = torch.Generator().manual_seed(0)
    theta = rc.theta(rotary_dim, 10000.0)
    positions = [0, 1, 7, 1000]
    x = torch.randn(3, len(positions), head_dim, generator=g, dtype=torch.float64)
    got = rc.apply_rope(x, positions, theta, layout=layout)
    for j, m in enumerate(positions):
        want = x[:, j] @ dense(m, theta, head_dim, layout).T
        assert torch.allclose(got[:, j], want, rtol=0, atol=1e-12)
    # the pass-through coordinates are bit-for-bit the input
    assert torch.equal(got[..., rotary_dim:], x[..., rotary_dim:])
    assert torch.equal(rc.apply_rope(x, positions, theta, layout=layout, rotary_dim=rotary_dim),
                       got)


def test_partial_keeps_dtype_and_shape():
    x = torch.randn(2, 5, 12, dtype=torch.float32)
    got = rc.apply_rope(x, range(5), rc.theta(4), layout="half")
    assert got.shape == x.shape and got.dtype == torch.float32
    assert torch.equal(got[..., 4:], x[..., 4:])


pairs = st.integers(1, 8)


@given(r2=pairs, extra=st.integers(0, 8), layout=st.sampled_from(["interleaved", "half"]),
       m=st.integers(-10**4, 10**4), n=st.integers(-10**4, 10**4), seed=st.integers(0, 2**16))
def test_norm_and_relative_position(r2, extra, layout, m, n, seed):
    g = torch.Generator().manual_seed(seed)
    head_dim = 2 * r2 + 2 * extra
    theta = rc.theta(2 * r2, 10000.0)
    q = torch.randn(1, head_dim, generator=g, dtype=torch.float64)
    k = torch.randn(1, head_dim, generator=g, dtype=torch.float64)
    qm = rc.apply_rope(q, [m], theta, layout=layout)
    kn = rc.apply_rope(k, [n], theta, layout=layout)
    # rotations keep norms
    assert float(qm.norm()) == pytest.approx(float(q.norm()), rel=1e-12)
    # <R_m q, R_n k> depends on n - m only: equal to <q, R_(n-m) k>
    shifted = rc.apply_rope(k, [n - m], theta, layout=layout)
    assert float(qm @ kn.T) == pytest.approx(float(q @ shifted.T), rel=1e-9, abs=1e-9)
