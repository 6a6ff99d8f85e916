"""The Transformer's sinusoidal table (rope_core.rotary.sinusoidal).

PE[p, 2i] = sin(p omega_i), PE[p, 2i+1] = cos(p omega_i), omega_i = base^(-2i/d).
Expected values are computed here with math.sin / math.cos and Python floats.
"""

import math
from decimal import Decimal

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_core as rc

dims = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)  # even 2 ... 64
bases = st.floats(min_value=2.0, max_value=1e6, allow_nan=False, allow_infinity=False)
small_positions = st.integers(min_value=0, max_value=2000)


def py_omega(dim, base):
    return [base ** (-2.0 * i / dim) for i in range(dim // 2)]


def test_table_by_hand_dim4():
    # omega = [1, 0.01]: row p = [sin p, cos p, sin(p/100), cos(p/100)]
    pe = rc.sinusoidal_pe(3, 4)
    assert pe.shape == (3, 4) and pe.dtype == torch.float64
    for p in range(3):
        expected = [math.sin(p), math.cos(p), math.sin(p * 0.01), math.cos(p * 0.01)]
        assert pe[p].tolist() == pytest.approx(expected, rel=1e-15, abs=1e-16)
    # row 0 is [0, 1, 0, 1] exactly (sin 0 = 0, cos 0 = 1)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]


@given(dim=dims, base=bases, p=st.integers(0, 5000))
def test_table_entries_closed_form(dim, base, p):
    pe = rc.sinusoidal_pe(p + 1, dim, base)
    row = pe[p].tolist()
    expected = []
    for w in py_omega(dim, base):
        expected += [math.sin(p * w), math.cos(p * w)]
    assert row == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_table_dtype_is_one_cast():
    pe64 = rc.sinusoidal_pe(50, 16)
    pe32 = rc.sinusoidal_pe(50, 16, dtype=torch.float32)
    assert pe32.dtype == torch.float32
    # same angles and sin/cos in float64, then one rounding to float32
    assert torch.equal(pe32, pe64.float())


@given(dim=dims, base=bases, m=small_positions, n=small_positions,
       s=st.integers(0, 2000))
def test_dot_depends_only_on_offset(dim, base, m, n, s):
    pe = rc.sinusoidal_pe(max(m, n) + s + 1, dim, base)
    d_mn = torch.dot(pe[m], pe[n]).item()
    d_shift = torch.dot(pe[m + s], pe[n + s]).item()
    # sin a sin b + cos a cos b = cos(a - b): both equal sum_i cos((m - n) omega_i)
    expected = sum(math.cos((m - n) * w) for w in py_omega(dim, base))
    # angles up to ~4000 rad carry ~1e-12 absolute error each; dim/2 terms
    tol = 1e-11 * dim
    assert d_mn == pytest.approx(expected, abs=tol, rel=0)
    assert d_shift == pytest.approx(d_mn, abs=tol, rel=0)


@given(dim=dims, base=bases, m=small_positions)
def test_self_dot_is_half_dim(dim, base, m):
    pe = rc.sinusoidal_pe(m + 1, dim, base)
    # each pair contributes sin^2 + cos^2 = 1, so PE_m . PE_m = dim/2
    assert torch.dot(pe[m], pe[m]).item() == pytest.approx(dim / 2, rel=1e-14)


@given(dim=dims, base=bases,
       offsets=st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=8))
def test_sinusoidal_dot_closed_form_and_even(dim, base, offsets):
    got = rc.sinusoidal_dot(offsets, dim, base)
    assert got.shape == (len(offsets),) and got.dtype == torch.float64
    expected = [sum(math.cos(o * w) for w in py_omega(dim, base)) for o in offsets]
    # |offset| <= 10^6: angle error ~1e-10 rad per term
    assert got.tolist() == pytest.approx(expected, abs=1e-9 * dim, rel=0)
    # even in the offset: it cannot tell before from after
    neg = rc.sinusoidal_dot([-o for o in offsets], dim, base)
    torch.testing.assert_close(neg, got, rtol=0, atol=1e-12 * dim)


def test_sinusoidal_dot_at_zero_and_by_hand():
    # offset 0: dim/2 (each cos 0 = 1); dim 4, offset 3: cos 3 + cos 0.03
    assert rc.sinusoidal_dot([0], 64).tolist() == [32.0]
    assert rc.sinusoidal_dot([3], 4).item() == pytest.approx(math.cos(3) + math.cos(0.03),
                                                              rel=1e-15)


def test_sinusoidal_dot_matches_table():
    # second formulation: dot products read off the table, offsets m - n for n = 0
    pe = rc.sinusoidal_pe(300, 32)
    offsets = list(range(0, 300, 7))
    from_table = torch.stack([torch.dot(pe[o], pe[0]) for o in offsets])
    torch.testing.assert_close(rc.sinusoidal_dot(offsets, 32), from_table, rtol=0, atol=1e-12)


def _reference_by_power(dim, base, digits):
    """The definition: Decimal(base) ** (-2i/dim), exponent and power to ``digits`` digits."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = digits
        b = Decimal(base)
        return [b ** (Decimal(-2 * i) / Decimal(dim)) for i in range(dim // 2)]


@pytest.mark.parametrize("dim, base", [(2, 10.0), (8, 10_000.0), (6, 10.0), (258, 500_000.0),
                                       (1024, 10_000.0), (1024, 1e8), (96, 1.0000001),
                                       (64, 1.7e308), (200, 123456.789)])
def test_reference_frequencies_are_the_decimal_power(dim, base):
    """Built as q^i with a correction (Ziv's test, ``**`` where undecided): every value
    and its digits are those of the power itself, the exact ones (10000^(-1/2) = 0.01
    at d = 8) included."""
    fast = rc.reference_frequencies(dim, base)
    slow = _reference_by_power(dim, base, rc.rotary.sinusoidal.REFERENCE_DIGITS)
    assert [str(v) for v in fast] == [str(v) for v in slow]
    if (dim, base) == (8, 10_000.0):
        assert fast[2] == Decimal("0.01")


@given(dim=st.integers(1, 300).map(lambda h: 2 * h), base=st.floats(1.001, 1e12),
       digits=st.sampled_from([20, 33, 40, 64]))
def test_reference_frequencies_match_the_power_at_any_precision(dim, base, digits):
    fast = rc.reference_frequencies(dim, base, digits=digits)
    assert [str(v) for v in fast] == [str(v) for v in _reference_by_power(dim, base, digits)]
