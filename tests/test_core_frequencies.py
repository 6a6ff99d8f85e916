"""theta_i = base^(-2i/d), wavelengths, angles and turns (rope_core.rotary.frequencies).

Every expected number is computed here from the closed form with Python floats
(``base ** (-2 * i / dim)``, ``2 * math.pi / theta``) or written out by hand.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rope_core as rc

dims = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)  # even 2 ... 64
bases = st.floats(min_value=2.0, max_value=1e6, allow_nan=False, allow_infinity=False)


def py_theta(dim, base):
    """theta_i = base^(-2i/dim) in Python floats (the definition, RoFormer eq. 15)."""
    return [base ** (-2.0 * i / dim) for i in range(dim // 2)]


def test_theta_dim4_by_hand():
    # theta_0 = 10000^0 = 1; theta_1 = 10000^(-2/4) = 1/sqrt(10000) = 1/100 = 0.01
    t = rc.theta(4)
    assert t.dtype == torch.float64
    assert t.shape == (2,)
    assert t[0].item() == 1.0
    # 0.01 itself is not a binary fraction: allow a couple of ulps of the pow rounding
    assert t[1].item() == pytest.approx(0.01, rel=1e-15, abs=0)


def test_theta_dim2_is_one():
    # a single pair, i = 0: theta_0 = base^0 = 1 for any base
    for base in (2.0, 10000.0, 5e5):
        assert rc.theta(2, base).tolist() == [1.0]


def test_theta_default_base_is_10000():
    # RoFormer / LLaMA 1-2 base: theta(8) = [1, 10^-1, 10^-2, 10^-3] (10^4^(-2i/8) = 10^(-i))
    assert rc.DEFAULT_BASE == 10000.0
    assert rc.theta(8).tolist() == pytest.approx([1.0, 0.1, 0.01, 0.001], rel=1e-15)


@given(dim=dims, base=bases)
def test_theta_matches_python_closed_form(dim, base):
    got = rc.theta(dim, base)
    expected = py_theta(dim, base)  # Python float pow, element by element
    assert got.shape == (dim // 2,)
    assert got.tolist() == pytest.approx(expected, rel=1e-14, abs=0)


@given(dim=dims, base=bases)
def test_theta_decreases_from_one_to_last(dim, base):
    t = rc.theta(dim, base).tolist()
    assert t[0] == 1.0  # base^0
    # last pair i = d/2 - 1: base^(-(d-2)/d)
    assert t[-1] == pytest.approx(base ** (-(dim - 2) / dim), rel=1e-14)
    assert all(a > b for a, b in zip(t, t[1:]))  # base > 1 so strictly decreasing


def test_theta_float32_is_one_cast_of_the_float64_value():
    # documented: exponent in float64, then a single cast, so each float32 entry is the
    # float32 nearest to the Python-float value (numpy does the one rounding here).
    for dim, base in ((64, 10000.0), (128, 500000.0), (6, 3.0)):
        got = rc.theta(dim, base, dtype=torch.float32)
        assert got.dtype == torch.float32
        expected = np.array(py_theta(dim, base), dtype=np.float64).astype(np.float32)
        np.testing.assert_array_max_ulp(got.numpy(), expected, maxulp=1)


def test_wavelength_of_theta_2_is_two_pi():
    # theta(2) = [1] rad/token, so one full turn takes 2*pi / 1 = 2*pi tokens
    assert rc.wavelength(rc.theta(2)).tolist() == [2 * math.pi]


def test_wavelength_by_hand_dim4():
    # theta(4) = [1, 0.01]: wavelengths 2*pi and 2*pi/0.01 = 200*pi tokens
    assert rc.wavelength(rc.theta(4)).tolist() == pytest.approx([2 * math.pi, 200 * math.pi],
                                                                 rel=1e-15)


@given(dim=dims, base=bases)
def test_wavelength_closed_form(dim, base):
    # lambda_i = 2 pi / theta_i = 2 pi * base^(2i/d)
    expected = [2 * math.pi * base ** (2.0 * i / dim) for i in range(dim // 2)]
    assert rc.wavelength(rc.theta(dim, base)).tolist() == pytest.approx(expected, rel=1e-13)


def test_angles_by_hand():
    # angle[m, i] = m * theta_i with theta(4) = [1, 0.01]
    got = rc.angles([0, 1, 2, -3], rc.theta(4))
    expected = [[0.0, 0.0], [1.0, 0.01], [2.0, 0.02], [-3.0, -0.03]]
    assert got.shape == (4, 2)
    for row, exp_row in zip(got.tolist(), expected):
        assert row == pytest.approx(exp_row, rel=1e-15, abs=0)


def test_angles_large_position_float64_is_one_rounded_product():
    # A float64 product m * theta_i is one correctly rounded multiplication, which Python
    # floats reproduce bit for bit.
    th = rc.theta(64, 10000.0)
    m = 10**6
    got = rc.angles([m], th)[0].tolist()
    assert got == [float(m) * t for t in th.tolist()]


def test_angles_float32_formed_in_float64_then_cast_once():
    # documented: the product is formed in float64 and cast once to theta's dtype.
    th32 = rc.theta(64, 10000.0, dtype=torch.float32)
    m = 10**6 + 7
    got = rc.angles([m], th32)[0].numpy()
    expected = (np.float64(m) * th32.numpy().astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.float32


def test_angles_accepts_range_list_and_tensor():
    th = rc.theta(8)
    a = rc.angles(range(5), th)
    b = rc.angles([0, 1, 2, 3, 4], th)
    c = rc.angles(torch.arange(5), th)
    d = rc.angles(torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0]), th)  # whole-number floats allowed
    for other in (b, c, d):
        assert torch.equal(a, other)


def test_turns_within_by_hand():
    # turns = L * theta_i / (2 pi); theta(4) = [1, 0.01], L = 200 pi tokens:
    # pair 0: 200 pi / (2 pi) = 100 turns; pair 1: 200 pi * 0.01 / (2 pi) = 1 turn
    got = rc.turns_within(rc.theta(4), 200 * math.pi)
    assert got.tolist() == pytest.approx([100.0, 1.0], rel=1e-14)


@given(dim=dims, base=bases, L=st.integers(min_value=1, max_value=10**7))
def test_turns_within_closed_form(dim, base, L):
    expected = [L * t / (2 * math.pi) for t in py_theta(dim, base)]
    assert rc.turns_within(rc.theta(dim, base), L).tolist() == pytest.approx(expected, rel=1e-13)


def test_frequency_forms_agree_with_exact_up_to_float32_rounding():
    # pow and exp are the same number (a^x = e^(x ln a)); in float32 each may be off by
    # float32 rounding of the exponent: |x ln a| <= ln(10000) ~ 9.2, so the relative error
    # is about 9.2 * 2^-24 ~ 5.5e-7 plus a few ulps; 5e-6 is a safe bound.
    forms = rc.frequency_forms(128, 10000.0, dtype=torch.float32)
    exact_py = py_theta(128, 10000.0)
    assert forms["exact"].dtype == torch.float64
    assert forms["exact"].tolist() == pytest.approx(exact_py, rel=1e-14)
    for key in ("pow", "exp"):
        assert forms[key].dtype == torch.float32
        assert forms[key].double().tolist() == pytest.approx(exact_py, rel=5e-6)
