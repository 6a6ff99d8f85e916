"""Context-extension scalings of theta (rope_core.scaling).

Expected values: the closed forms of each method written out here (theta / s,
NTK's base change, YaRN's turn counts L theta_i / (2 pi), Llama 3.1 wavelength
bands), with theta_i = base^(-2i/d) computed in Python floats.
"""

import math

import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st

import rope_core as rc

dims = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)  # even 2 ... 64
bases = st.floats(min_value=2.0, max_value=1e6, allow_nan=False, allow_infinity=False)
factors = st.floats(min_value=1.0, max_value=64.0, allow_nan=False, allow_infinity=False)


def py_theta(dim, base):
    return [base ** (-2.0 * i / dim) for i in range(dim // 2)]


def test_registry_and_labels():
    assert set(rc.SCALINGS) == {"none", "linear", "ntk", "yarn", "llama3"}
    assert set(rc.SCALING_LABELS) == set(rc.SCALINGS)


@given(dim=dims, base=bases, s=factors)
def test_none_is_theta(dim, base, s):
    got = rc.scaled_theta(dim, base, "none", s)
    assert got.dtype == torch.float64
    assert got.tolist() == pytest.approx(py_theta(dim, base), rel=1e-14)


@given(dim=dims, base=bases, s=factors)
def test_linear_divides_by_s(dim, base, s):
    # position interpolation: m -> m/s, i.e. theta_i -> theta_i / s
    got = rc.scaled_theta(dim, base, "linear", s)
    assert got.tolist() == pytest.approx([t / s for t in py_theta(dim, base)], rel=1e-14)


@given(dim=dims.filter(lambda d: d >= 4), base=bases, s=factors)
def test_ntk_endpoints(dim, base, s):
    got = rc.scaled_theta(dim, base, "ntk", s).tolist()
    # base' = base * s^(d/(d-2)); theta'_0 = base'^0 = 1
    assert got[0] == 1.0
    # theta'_last = base'^(-(d-2)/d) = base^(-(d-2)/d) * s^(-1) = theta_last / s
    theta_last = base ** (-(dim - 2) / dim)
    assert got[-1] == pytest.approx(theta_last / s, rel=1e-12)
    # in between: theta_i * s^(-2i/(d-2)), between theta_i / s and theta_i
    for i, (g, t) in enumerate(zip(got, py_theta(dim, base))):
        assert g == pytest.approx(t * s ** (-2.0 * i / (dim - 2)), rel=1e-12)
        assert t / s * (1 - 1e-12) <= g <= t * (1 + 1e-12)


def test_ntk_dim2_single_pair():
    # one pair, i = 0: theta_0 = 1 whatever the base
    assert rc.scaled_theta(2, 10000.0, "ntk", 8.0).tolist() == [1.0]


def test_ntk_by_hand_dim4():
    # d=4, base 10^4, s=4: base' = 10^4 * 4^(4/2) = 1.6e5; theta'_1 = (1.6e5)^(-1/2)
    #  = 1/400 = 0.0025 = theta_1 / s = 0.01 / 4
    got = rc.scaled_theta(4, 10000.0, "ntk", 4.0).tolist()
    assert got == pytest.approx([1.0, 0.0025], rel=1e-14)


@pytest.mark.parametrize("dim,base,s,L", [(128, 10000.0, 4.0, 4096), (64, 10000.0, 16.0, 2048),
                                          (128, 500000.0, 8.0, 8192), (32, 1e6, 2.0, 512)])
def test_yarn_by_parts(dim, base, s, L):
    got = rc.scaled_theta(dim, base, "yarn", s, L).tolist()
    thetas = py_theta(dim, base)
    turns = [L * t / (2 * math.pi) for t in thetas]  # full turns of pair i within L
    fast = [i for i, n in enumerate(turns) if n >= 32]  # beta_fast = 32
    slow = [i for i, n in enumerate(turns) if n < 1]  # beta_slow = 1
    middle = [i for i in range(dim // 2) if i not in fast and i not in slow]
    assert fast  # pair 0 turns L / (2 pi) >= 81 times for every case here
    for i in fast:
        assert got[i] == pytest.approx(thetas[i], rel=1e-14), i  # kept
    for i in slow:
        assert got[i] == pytest.approx(thetas[i] / s, rel=1e-14), i  # interpolated
    for i in middle:
        assert thetas[i] / s * (1 - 1e-14) <= got[i] <= thetas[i] * (1 + 1e-14), i
    # the blend is monotone in i: the ratio theta'/theta falls from 1 towards 1/s
    ratio = [g / t for g, t in zip(got, thetas)]
    assert all(a >= b - 1e-14 for a, b in zip(ratio, ratio[1:]))


@given(dim=dims, base=bases, s=factors, L=st.integers(min_value=1, max_value=10**7))
# regime where every pair turns >= 32 times within L (small base, long context):
# slowest pair theta_63 = 10^(-126/128) ~ 0.1037 turns 32768 * 0.1037 / (2 pi) ~ 541 times
@example(dim=128, base=10.0, s=4.0, L=32768)
# context shorter than 2 pi tokens: even pair 0 turns only 4 / (2 pi) ~ 0.64 times
@example(dim=8, base=10000.0, s=4.0, L=4)
def test_yarn_by_parts_property(dim, base, s, L):
    """The documented contract over the whole accepted range of arguments."""
    got = rc.scaled_theta(dim, base, "yarn", s, L).tolist()
    for i, t in enumerate(py_theta(dim, base)):
        turns = L * t / (2 * math.pi)
        if turns >= 32:  # beta_fast: keeps theta_i
            assert got[i] == pytest.approx(t, rel=1e-13), (i, turns)
        elif turns < 1:  # beta_slow: divided by s
            assert got[i] == pytest.approx(t / s, rel=1e-13), (i, turns)
        else:
            assert t / s * (1 - 1e-13) <= got[i] <= t * (1 + 1e-13), (i, turns)


def test_yarn_all_pairs_fast_keeps_theta():
    # base 10, d=128, L=32768: turns_i = 32768 * 10^(-2i/128) / (2 pi) >= turns_63 ~ 541,
    # so every pair turns more than beta_fast = 32 times and YaRN must leave theta as is.
    dim, base, s, L = 128, 10.0, 4.0, 32768
    thetas = py_theta(dim, base)
    assert min(L * t / (2 * math.pi) for t in thetas) > 32
    got = rc.scaled_theta(dim, base, "yarn", s, L).tolist()
    assert got == pytest.approx(thetas, rel=1e-13)


def test_yarn_context_shorter_than_one_turn_divides_everything():
    # L=4 < 2 pi: pair 0 (theta_0 = 1) turns 4 / (2 pi) ~ 0.64 < 1 times and every slower
    # pair fewer still, so every pair is below beta_slow = 1 and must be divided by s.
    dim, base, s, L = 8, 10000.0, 4.0, 4
    thetas = py_theta(dim, base)
    assert max(L * t / (2 * math.pi) for t in thetas) < 1
    got = rc.scaled_theta(dim, base, "yarn", s, L).tolist()
    assert got == pytest.approx([t / s for t in thetas], rel=1e-13)


def test_yarn_has_all_three_bands_for_llama2_like_setting():
    # d=128, base 10^4, L=4096: turns_i = 4096 * 10^4^(-i/64) / (2 pi)
    # turns >= 32 while 10^(-i/16) >= 32 * 2 pi / 4096 ~ 0.0491 -> i <= 16 * 1.309 ~ 20.9
    # turns < 1 once 10^(-i/16) < 2 pi / 4096 ~ 0.001534 -> i > 16 * 2.814 ~ 45.0
    dim, base, s, L = 128, 10000.0, 4.0, 4096
    got = rc.scaled_theta(dim, base, "yarn", s, L).tolist()
    thetas = py_theta(dim, base)
    i_fast = dim * math.log(L / (32 * 2 * math.pi)) / (2 * math.log(base))  # ~20.94
    i_slow = dim * math.log(L / (1 * 2 * math.pi)) / (2 * math.log(base))  # ~45.03
    assert 20 < i_fast < 21 and 45 < i_slow < 46
    assert all(got[i] == pytest.approx(thetas[i], rel=1e-14) for i in range(0, 21))
    assert all(got[i] == pytest.approx(thetas[i] / s, rel=1e-14) for i in range(46, 64))
    assert all(thetas[i] / s < got[i] < thetas[i] for i in range(21, 46))


def test_llama3_bands():
    dim, base, s, L = 128, 500000.0, 8.0, 8192
    got = rc.scaled_theta(dim, base, "llama3", s, L).tolist()
    thetas = py_theta(dim, base)
    wl = [2 * math.pi / t for t in thetas]
    high = [i for i, w in enumerate(wl) if w < L / 4]  # high_freq_factor 4
    low = [i for i, w in enumerate(wl) if w > L]  # low_freq_factor 1
    mid = [i for i, w in enumerate(wl) if L / 4 <= w <= L]
    assert high and low and mid
    for i in high:
        assert got[i] == pytest.approx(thetas[i], rel=1e-14)
    for i in low:
        assert got[i] == pytest.approx(thetas[i] / s, rel=1e-14)
    for i in mid:
        assert thetas[i] / s <= got[i] <= thetas[i]
        # Meta's reference: smooth = (L / wavelen - 1) / (4 - 1),
        # theta' = (1 - smooth) * theta / s + smooth * theta
        smooth = (L / wl[i] - 1) / 3
        assert got[i] == pytest.approx((1 - smooth) * thetas[i] / s + smooth * thetas[i],
                                       rel=1e-12)


@pytest.mark.parametrize("method", ["none", "linear", "ntk", "yarn", "llama3"])
def test_factor_one_is_identity(method):
    # s = 1: no extension, every method gives back theta (up to rounding)
    got = rc.scaled_theta(64, 10000.0, method, 1.0, 2048)
    assert got.tolist() == pytest.approx(py_theta(64, 10000.0), rel=1e-13)


@pytest.mark.parametrize("method", ["linear", "ntk", "yarn", "llama3"])
def test_scaled_never_faster_never_slower_than_s(method):
    # every method slows each pair by a ratio in [1/s, 1]
    s = 8.0
    got = rc.scaled_theta(128, 10000.0, method, s, 4096).tolist()
    for g, t in zip(got, py_theta(128, 10000.0)):
        assert t / s * (1 - 1e-12) <= g <= t * (1 + 1e-12)


def test_scaled_theta_follows_dtype_and_device_arguments():
    # the float32 result is the float64 one rounded once (linear: theta_i / 2 by hand)
    got = rc.scaled_theta(8, 10000.0, "linear", 2.0, dtype=torch.float32, device="cpu")
    assert got.dtype == torch.float32 and got.device.type == "cpu"
    expected = torch.tensor([10000.0 ** (-2 * i / 8) / 2 for i in range(4)], dtype=torch.float32)
    assert torch.equal(got, expected)
