"""apply_rope, rotation_matrix, apply_rope_complex and layouts (rope_core.rotary.rotation).

Expected numbers come from hand calculations with math.cos / math.sin, a pure
Python reference rotation written here, the dense matrix R_m, or a complex-number
form built here the way LLaMA builds it (torch.polar + torch.view_as_complex).
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rope_core as rc

# ---------------------------------------------------------------- strategies

dims = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)  # even 2 ... 64
bases = st.floats(min_value=2.0, max_value=1e6, allow_nan=False, allow_infinity=False)
positions = st.integers(min_value=-10**6, max_value=10**6)
layouts = st.sampled_from(["interleaved", "half"])
elements = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False)


def vectors(shape):
    return hnp.arrays(np.float64, shape, elements=elements).map(torch.from_numpy)


def sequence(data, dim: int, most: int) -> tuple[torch.Tensor, list[int]]:
    """1 … ``most`` drawn vectors of size ``dim`` (seq, dim) and a position for each."""
    seq = data.draw(st.integers(1, most))
    return (data.draw(vectors((seq, dim))),
            data.draw(st.lists(positions, min_size=seq, max_size=seq)))


@st.composite
def dim_base_vec(draw, n_vectors=1):
    dim = draw(dims)
    base = draw(bases)
    vs = [draw(vectors((dim,))) for _ in range(n_vectors)]
    return dim, base, vs


def py_pairs(dim, layout):
    """Coordinates (a, b) of pair i, written from the layout definitions."""
    if layout == "interleaved":
        return [(2 * i, 2 * i + 1) for i in range(dim // 2)]
    return [(i, i + dim // 2) for i in range(dim // 2)]


def py_rope(x, m, thetas, layout="interleaved"):
    """Pure-Python reference: rotate pair i of the list x by angle m * theta_i."""
    out = list(x)
    for (a, b), t in zip(py_pairs(len(x), layout), thetas):
        c, s = math.cos(m * t), math.sin(m * t)
        out[a] = x[a] * c - x[b] * s
        out[b] = x[a] * s + x[b] * c
    return out


# ---------------------------------------------------------------- hand cases

def test_dim2_rotation_by_m_radians():
    # dim=2: theta_0 = 1, so position m rotates [x0, x1] by m radians:
    # [x0 cos m - x1 sin m, x0 sin m + x1 cos m]
    th = rc.theta(2)
    x = torch.tensor([[3.0, 4.0], [1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    pos = [5, 1, -2]
    got = rc.apply_rope(x, pos, th)
    expected = [
        [3 * math.cos(5) - 4 * math.sin(5), 3 * math.sin(5) + 4 * math.cos(5)],
        [math.cos(1), math.sin(1)],
        [-math.sin(-2), math.cos(-2)],
    ]
    for row, exp_row in zip(got.tolist(), expected):
        assert row == pytest.approx(exp_row, rel=1e-15, abs=1e-15)


def test_quarter_turns_with_theta_pi_over_2():
    # theta = [pi/2]: position m turns [1, 0] by m quarter turns.
    # 2 * fl(pi/2) = fl(pi) exactly (doubling is exact), so positions 1, 2, 3, 4 give
    # [0, 1], [-1, 0], [0, -1], [1, 0] up to cos(fl(pi/2)) ~ 6e-17 style residues.
    th = torch.tensor([math.pi / 2], dtype=torch.float64)
    x = torch.tensor([[1.0, 0.0]] * 5, dtype=torch.float64)
    got = rc.apply_rope(x, [0, 1, 2, 3, 4], th)
    expected = [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 0]]
    torch.testing.assert_close(got, torch.tensor(expected, dtype=torch.float64),
                               rtol=0, atol=1e-15)
    # and [0, 1] turned by a quarter turn is [-1, 0]
    got2 = rc.apply_rope(torch.tensor([[0.0, 1.0]], dtype=torch.float64), [1], th)
    torch.testing.assert_close(got2, torch.tensor([[-1.0, 0.0]], dtype=torch.float64),
                               rtol=0, atol=1e-15)


def test_position_zero_is_identity():
    # angle 0: cos 0 = 1 and sin 0 = 0 exactly, so R_0 x = x bit for bit
    x = torch.randn(5, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for layout in ("interleaved", "half"):
        assert torch.equal(rc.apply_rope(x, [0] * 5, rc.theta(16), layout=layout), x)


# ---------------------------------------------------------------- seed article example

ARTICLE_Q = [1.0, 2.0, 3.0, 4.0]
# d = 4, m = 2, base 10000: theta_0 = 1, theta_1 = 10000^(-2/4) = 0.01.
# pair 0 turns by 2 * 1 = 2 rad, pair 1 by 2 * 0.01 = 0.02 rad.
ARTICLE_EXPECTED = [
    1 * math.cos(2) - 2 * math.sin(2),        # ~ -2.2347
    1 * math.sin(2) + 2 * math.cos(2),        # ~  0.0770
    3 * math.cos(0.02) - 4 * math.sin(0.02),  # ~  2.91940535
    3 * math.sin(0.02) + 4 * math.cos(0.02),  # ~  4.0591960
]


def test_article_example_expected_values_by_hand():
    # sanity of the hand-derived numbers themselves (4-digit rounding of the above)
    assert ARTICLE_EXPECTED == pytest.approx([-2.2347, 0.0770, 2.91940535, 4.0591960],
                                             abs=1e-4)


def test_article_example_three_formulations():
    th = rc.theta(4, 10000.0)
    q = torch.tensor([ARTICLE_Q], dtype=torch.float64)  # (seq=1, dim=4)
    exp = torch.tensor([ARTICLE_EXPECTED], dtype=torch.float64)
    via_rope = rc.apply_rope(q, [2], th)
    via_matrix = rc.rotation_matrix(2, th) @ q[0]
    via_complex = rc.apply_rope_complex(q, [2], th)
    torch.testing.assert_close(via_rope, exp, rtol=0, atol=1e-12)
    torch.testing.assert_close(via_matrix, exp[0], rtol=0, atol=1e-12)
    torch.testing.assert_close(via_complex, exp, rtol=0, atol=1e-12)


def test_article_example_is_not_the_articles_wrong_value():
    # The article used theta_1 = 0.0002 and mis-multiplied, printing 2.99999194 for
    # coordinate 2. With theta_1 = 0.01 the value is 3 cos(0.02) - 4 sin(0.02) ~ 2.9194.
    got = rc.apply_rope(torch.tensor([ARTICLE_Q], dtype=torch.float64), [2], rc.theta(4))[0]
    assert abs(got[2].item() - 2.99999194) > 0.05
    assert all(abs(v - 2.99999194) > 0.05 for v in got.tolist())


# ---------------------------------------------------------------- layouts / permutation

def test_layout_permutation_dim4_by_hand():
    # half layout: pair 0 = (0, 2), pair 1 = (1, 3). Interleaved slot j holds:
    # j=0 -> pair0.a = 0, j=1 -> pair0.b = 2, j=2 -> pair1.a = 1, j=3 -> pair1.b = 3
    assert rc.layout_permutation(4, "half").tolist() == [0, 2, 1, 3]
    assert rc.layout_permutation(4, "interleaved").tolist() == [0, 1, 2, 3]


def test_layout_permutation_dim8_by_hand():
    # half pairs (0,4), (1,5), (2,6), (3,7) laid out pair by pair
    assert rc.layout_permutation(8, "half").tolist() == [0, 4, 1, 5, 2, 6, 3, 7]


@given(dim=dims)
def test_layout_permutation_from_pair_definition(dim):
    # perm[2i] = a_i, perm[2i+1] = b_i with (a_i, b_i) = (i, i + d/2)
    expected = [c for pair in py_pairs(dim, "half") for c in pair]
    perm = rc.layout_permutation(dim, "half")
    assert perm.dtype == torch.int64
    assert perm.tolist() == expected
    assert sorted(expected) == list(range(dim))  # it is a permutation


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@given(case=dim_base_vec(), m=positions)
def test_layout_against_python_reference(layout, case, m):
    dim, base, (x,) = case
    th = rc.theta(dim, base)
    got = rc.apply_rope(x[None], [m], th, layout=layout)[0]
    expected = py_rope(x.tolist(), m, th.tolist(), layout)
    tolerance = 1e-12 * (1 + float(x.abs().max()))
    assert got.tolist() == pytest.approx(expected, rel=1e-12, abs=tolerance)


@given(dim=dims, base=bases, data=st.data())
def test_layouts_equivalent_under_permutation(dim, base, data):
    x, pos = sequence(data, dim, 4)
    th = rc.theta(dim, base)
    perm = rc.layout_permutation(dim, "half")
    lhs = rc.apply_rope(x, pos, th, layout="half")[..., perm]
    rhs = rc.apply_rope(x[..., perm], pos, th, layout="interleaved")
    # same products on the same numbers, only stored elsewhere
    torch.testing.assert_close(lhs, rhs, rtol=1e-14, atol=1e-14)


# ---------------------------------------------------------------- properties

@given(case=dim_base_vec(), m=positions, layout=layouts)
def test_norm_preserved(case, m, layout):
    dim, base, (x,) = case
    out = rc.apply_rope(x[None], [m], rc.theta(dim, base), layout=layout)[0]
    # math.hypot is scale-safe; each pair's norm is kept up to a few ulps
    assert math.hypot(*out.tolist()) == pytest.approx(math.hypot(*x.tolist()), rel=1e-12,
                                                      abs=1e-300)


@given(case=dim_base_vec(n_vectors=2), m=positions, n=positions, layout=layouts)
def test_relative_position_identity(case, m, n, layout):
    # <R_m q, R_n k> = q^T R_m^T R_n k = q^T R_(n-m) k
    dim, base, (q, k) = case
    th = rc.theta(dim, base)
    lhs = torch.dot(rc.apply_rope(q[None], [m], th, layout=layout)[0],
                    rc.apply_rope(k[None], [n], th, layout=layout)[0]).item()
    rhs = (q @ rc.rotation_matrix(n - m, th, layout=layout) @ k).item()
    # angle error: m theta, n theta and (n-m) theta each carry ~eps * 10^6 ~ 1e-10 rad,
    # so the dot products may differ by ~|q||k| * 4e-10.
    tol = 1e-9 * (q.norm().item() * k.norm().item()) + 1e-12
    assert lhs == pytest.approx(rhs, abs=tol, rel=0)


@given(dim=dims, base=bases, layout=layouts, data=st.data())
def test_apply_rope_equals_dense_matrix(dim, base, layout, data):
    x, pos = sequence(data, dim, 5)
    th = rc.theta(dim, base)
    got = rc.apply_rope(x, pos, th, layout=layout)
    expected = torch.stack([rc.rotation_matrix(p, th, layout=layout) @ x[s]
                            for s, p in enumerate(pos)])
    scale = 1 + float(x.abs().max())
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12 * scale)


@given(dim=dims, base=bases, data=st.data())
def test_complex_form_built_like_llama(dim, base, data):
    x, pos = sequence(data, dim, 5)
    th = rc.theta(dim, base)
    # LLaMA's precompute_freqs_cis + apply_rotary_emb, written here:
    freqs = torch.outer(torch.tensor(pos, dtype=torch.float64), th)  # (seq, d/2)
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # e^{i m theta_i}
    x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    expected = torch.view_as_real(x_ * freqs_cis).flatten(-2)
    scale = 1 + float(x.abs().max())
    torch.testing.assert_close(rc.apply_rope(x, pos, th, layout="interleaved"), expected,
                               rtol=1e-12, atol=1e-12 * scale)
    torch.testing.assert_close(rc.apply_rope_complex(x, pos, th), expected,
                               rtol=1e-12, atol=1e-12 * scale)


def test_complex_form_with_python_complex_numbers():
    # z_i = x_(2i) + i x_(2i+1), multiplied by cmath-free e^{i a} = cos a + i sin a
    th = rc.theta(6, 100.0)
    x = [0.5, -1.5, 2.0, 0.25, -3.0, 1.0]
    m = 37
    expected = []
    for i, t in enumerate(th.tolist()):
        z = complex(x[2 * i], x[2 * i + 1]) * complex(math.cos(m * t), math.sin(m * t))
        expected += [z.real, z.imag]
    got = rc.apply_rope_complex(torch.tensor([x], dtype=torch.float64), [m], th)[0]
    assert got.tolist() == pytest.approx(expected, rel=1e-13, abs=1e-13)


@given(dim=dims, base=bases, m=positions, n=positions, layout=layouts)
def test_rotation_matrix_orthogonal_and_composes(dim, base, m, n, layout):
    th = rc.theta(dim, base)
    Rm = rc.rotation_matrix(m, th, layout=layout)
    Rn = rc.rotation_matrix(n, th, layout=layout)
    eye = torch.eye(dim, dtype=torch.float64)
    # cos^2 + sin^2 = 1 up to a few ulps
    torch.testing.assert_close(Rm.T @ Rm, eye, rtol=0, atol=1e-14)
    torch.testing.assert_close(Rm @ Rm.T, eye, rtol=0, atol=1e-14)
    # R_m^T R_n = R_(n-m); entries are cos/sin of angles that differ by ~4e-10 rad at most
    torch.testing.assert_close(Rm.T @ Rn, rc.rotation_matrix(n - m, th, layout=layout),
                               rtol=0, atol=1e-9)


def test_rotation_matrix_blocks_by_hand():
    # interleaved, theta(4) = [1, 0.01], m = 3: blocks of angle 3 and 0.03 on the diagonal
    c0, s0, c1, s1 = math.cos(3), math.sin(3), math.cos(0.03), math.sin(0.03)
    expected = [[c0, -s0, 0, 0], [s0, c0, 0, 0], [0, 0, c1, -s1], [0, 0, s1, c1]]
    got = rc.rotation_matrix(3, rc.theta(4))
    torch.testing.assert_close(got, torch.tensor(expected, dtype=torch.float64),
                               rtol=0, atol=1e-15)
    # half layout: pair 0 at rows/cols (0, 2), pair 1 at (1, 3)
    expected_half = [[c0, 0, -s0, 0], [0, c1, 0, -s1], [s0, 0, c0, 0], [0, s1, 0, c1]]
    got_half = rc.rotation_matrix(3, rc.theta(4), layout="half")
    torch.testing.assert_close(got_half, torch.tensor(expected_half, dtype=torch.float64),
                               rtol=0, atol=1e-15)


def test_cos_sin_by_hand():
    cos, sin = rc.cos_sin([0, 2], rc.theta(4))
    assert cos.shape == sin.shape == (2, 2)
    # angles [[0, 0], [2, 2 * 0.01]]; cos 0 = 1 and sin 0 = 0 exactly
    exp_cos = torch.tensor([[1.0, 1.0], [math.cos(2), math.cos(0.02)]], dtype=torch.float64)
    exp_sin = torch.tensor([[0.0, 0.0], [math.sin(2), math.sin(0.02)]], dtype=torch.float64)
    torch.testing.assert_close(cos, exp_cos, rtol=1e-15, atol=0)
    torch.testing.assert_close(sin, exp_sin, rtol=1e-15, atol=0)
    # dtype argument: one cast of the float64 values
    c32, s32 = rc.cos_sin([0, 2], rc.theta(4), torch.float32)
    assert c32.dtype == s32.dtype == torch.float32
    torch.testing.assert_close(c32, exp_cos.float(), rtol=2**-23, atol=0)
    torch.testing.assert_close(s32, exp_sin.float(), rtol=2**-23, atol=0)


# ---------------------------------------------------------------- dtypes and shapes

@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_low_precision_keeps_dtype_and_value(dtype, layout):
    g = torch.Generator().manual_seed(1)
    x64 = torch.randn(2, 6, 32, generator=g, dtype=torch.float64)
    pos = list(range(100, 106))
    th = rc.theta(32)
    x = x64.to(dtype)
    out = rc.apply_rope(x, pos, th, layout=layout)
    assert out.dtype == dtype and out.shape == x.shape
    out_c = rc.apply_rope_complex(x, pos, th)
    assert out_c.dtype == dtype and out_c.shape == x.shape
    # reference: rotate the already-rounded input in float64 with the dense matrix; the
    # result may then only differ by the rounding of the output to dtype (bf16: 2^-8).
    ref = torch.stack([(rc.rotation_matrix(p, th, layout=layout) @ x.double()[:, s].T).T
                       for s, p in enumerate(pos)], dim=1)
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(out.double(), ref, rtol=2 * eps, atol=4 * eps)


def test_float32_at_position_1e6_matches_float64():
    # angles are formed in float64, so float32 only rounds cos/sin and the products:
    # relative error ~ a few * 2^-24 ~ 1e-7, far inside 1e-5. (Forming 10^6 * theta_i in
    # float32 would instead give angle errors up to 10^6 * 2^-24 ~ 0.06 rad.)
    g = torch.Generator().manual_seed(2)
    x64 = torch.randn(4, 128, generator=g, dtype=torch.float64)
    pos = [10**6, 10**6 + 1, 10**6 + 17, -10**6]
    for layout in ("interleaved", "half"):
        out64 = rc.apply_rope(x64, pos, rc.theta(128), layout=layout)
        out32 = rc.apply_rope(x64.float(), pos, rc.theta(128), layout=layout)
        assert out32.dtype == torch.float32
        torch.testing.assert_close(out32.double(), out64, rtol=1e-5,
                                   atol=1e-5 * float(x64.abs().max()))
        # whole-vector relative error, a scale-free statement of the same
        assert ((out32.double() - out64).norm() / out64.norm()).item() < 1e-5


def test_float32_theta_also_accepted():
    # theta in float32 is widened to float64 before forming angles; compare with the
    # reference built from the same float32 theta values read as Python floats
    th32 = rc.theta(16, dtype=torch.float32)
    x = torch.tensor([[float(i) - 7.5 for i in range(16)]], dtype=torch.float64)
    got = rc.apply_rope(x, [12345], th32)[0]
    expected = py_rope(x[0].tolist(), 12345, th32.tolist())
    assert got.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_huge_base_and_position_are_finite():
    # base 1e8, position 10^6, dim 1024: every output entry stays finite
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 1024, generator=g, dtype=torch.float64)
    th = rc.theta(1024, 1e8)
    for dtype in (torch.float64, torch.float32, torch.bfloat16, torch.float16):
        for layout in ("interleaved", "half"):
            out = rc.apply_rope(x.to(dtype), [10**6, 10**6 + 1, 10**6 + 2], th, layout=layout)
            assert bool(torch.isfinite(out).all())
    out = rc.apply_rope_complex(x, [10**6] * 3, th)
    assert bool(torch.isfinite(out).all())
    # and the float64 norm is preserved per row
    out = rc.apply_rope(x, [10**6] * 3, th)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1), rtol=1e-12, atol=0)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_batch_shape_and_no_in_place_change(layout):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(2, 3, 5, 8, generator=g, dtype=torch.float64)  # (batch, heads, seq, dim)
    before = x.clone()
    pos = [0, 1, 7, 1000, -3]
    th = rc.theta(8)
    out = rc.apply_rope(x, pos, th, layout=layout)
    assert out.shape == (2, 3, 5, 8)
    assert torch.equal(x, before)  # input untouched
    assert out.data_ptr() != x.data_ptr()
    for b in range(2):
        for h in range(3):
            for s, p in enumerate(pos):
                expected = py_rope(x[b, h, s].tolist(), p, th.tolist(), layout)
                assert out[b, h, s].tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)
    if layout == "interleaved":
        out_c = rc.apply_rope_complex(x, pos, th)
        assert torch.equal(x, before)
        torch.testing.assert_close(out_c, out, rtol=1e-12, atol=1e-12)


def test_positions_forms_agree():
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    th = rc.theta(8)
    a = rc.apply_rope(x, range(10, 14), th)
    for pos in ([10, 11, 12, 13], torch.arange(10, 14), torch.tensor([10.0, 11.0, 12.0, 13.0])):
        assert torch.equal(rc.apply_rope(x, pos, th), a)


def test_non_contiguous_input():
    # a transposed (non-contiguous) input gives the same result as its contiguous copy
    base = torch.randn(8, 3, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    x = base.T  # (3, 8), non-contiguous
    assert not x.is_contiguous()
    th = rc.theta(8)
    for layout in ("interleaved", "half"):
        torch.testing.assert_close(rc.apply_rope(x, [1, 2, 3], th, layout=layout),
                                   rc.apply_rope(x.contiguous(), [1, 2, 3], th, layout=layout),
                                   rtol=0, atol=0)
