"""Context-extension scalings of theta (rope_core.models.scaling), part 1: the closed forms.

Expected values: the closed forms of each method written out here (theta / s,
NTK's base change, YaRN's turn counts L theta_i / (2 pi), Llama 3.1 wavelength
bands), with theta_i = base^(-2i/d) computed in Python floats.
"""

import math

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

import rope_core as rc


def th(dim, base, method, factor=1.0, L=None, **kw):
    """theta alone, old-style arguments mapped to Hugging Face names."""
    if L is not None and "original_max_position_embeddings" in rc.SCALINGS[method].param_names:
        kw["original_max_position_embeddings"] = L
    if method != "none":
        kw["factor"] = factor
    return rc.scaled_theta(dim, base, method, **kw)[0]

dims = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)  # even 2 ... 64
bases = st.floats(min_value=2.0, max_value=1e6, allow_nan=False, allow_infinity=False)
factors = st.floats(min_value=1.0, max_value=64.0, allow_nan=False, allow_infinity=False)


def py_theta(dim, base):
    return [base ** (-2.0 * i / dim) for i in range(dim // 2)]


def test_registry_and_labels():
    assert set(rc.SCALINGS) == {"none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"}
    assert set(rc.SCALING_LABELS) == set(rc.SCALINGS)


@given(dim=dims, base=bases, s=factors)
def test_none_is_theta(dim, base, s):
    got = th(dim, base, "none", s)
    assert got.dtype == torch.float64
    assert got.tolist() == pytest.approx(py_theta(dim, base), rel=1e-14)


@given(dim=dims, base=bases, s=factors)
def test_linear_divides_by_s(dim, base, s):
    # position interpolation: m -> m/s, i.e. theta_i -> theta_i / s
    got = th(dim, base, "linear", s)
    assert got.tolist() == pytest.approx([t / s for t in py_theta(dim, base)], rel=1e-14)


@given(dim=dims.filter(lambda d: d >= 4), base=bases, s=factors)
def test_ntk_endpoints(dim, base, s):
    got = th(dim, base, "ntk", s).tolist()
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
    assert th(2, 10000.0, "ntk", 8.0).tolist() == [1.0]


def test_ntk_by_hand_dim4():
    # d=4, base 10^4, s=4: base' = 10^4 * 4^(4/2) = 1.6e5; theta'_1 = (1.6e5)^(-1/2)
    #  = 1/400 = 0.0025 = theta_1 / s = 0.01 / 4
    got = th(4, 10000.0, "ntk", 4.0).tolist()
    assert got == pytest.approx([1.0, 0.0025], rel=1e-14)


@pytest.mark.parametrize("dim,base,s,L", [(128, 10000.0, 4.0, 4096), (64, 10000.0, 16.0, 2048),
                                          (128, 500000.0, 8.0, 8192), (32, 1e6, 2.0, 512)])
def test_yarn_by_parts(dim, base, s, L):
    got = th(dim, base, "yarn", s, L).tolist()
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


@given(dim=dims, base=bases, s=factors, L=st.integers(min_value=202, max_value=10**7))
def test_yarn_by_parts_property(dim, base, s, L):
    """The turn-count reading wherever Hugging Face's clamp is inactive.

    It holds when L >= 2 pi beta_fast (~201, so i(beta_fast) >= 0) and
    i(beta_fast) = d ln(L / (64 pi)) / (2 ln base) <= d - 1; the other regimes
    are worked by hand below.
    """
    i_fast = dim * math.log(L / (32 * 2 * math.pi)) / (2 * math.log(base))
    assume(0 <= i_fast <= dim - 1)
    got = th(dim, base, "yarn", s, L).tolist()
    for i, t in enumerate(py_theta(dim, base)):
        turns = L * t / (2 * math.pi)
        if turns >= 32:  # beta_fast: keeps theta_i
            assert got[i] == pytest.approx(t, rel=1e-13), (i, turns)
        elif turns < 1:  # beta_slow: divided by s
            assert got[i] == pytest.approx(t / s, rel=1e-13), (i, turns)
        else:
            assert t / s * (1 - 1e-13) <= got[i] <= t * (1 + 1e-13), (i, turns)


def test_yarn_every_pair_fast_inverts_the_ramp_as_hugging_face():
    # base 10, d=128, L=32768: turns_i = 32768 * 10^(-2i/128) / (2 pi) >= turns_63 ~ 541 > 32.
    # i(32) = 128 ln(32768 / (64 pi)) / (2 ln 10) ~ 128 * 5.094 / 4.605 ~ 141.6 -> low = 141,
    # high = min(ceil(i(1)) = 238, 127) = 127: ramp_i = (i - 141) / (127 - 141) >= 64/14 > 1
    # for i <= 63, clamped to 1: every pair divided by s (Hugging Face's clamp; documented).
    dim, base, s, L = 128, 10.0, 4.0, 32768
    thetas = py_theta(dim, base)
    assert min(L * t / (2 * math.pi) for t in thetas) > 32
    i_fast = dim * math.log(L / (64 * math.pi)) / (2 * math.log(base))
    assert 141 < i_fast < 142
    got = th(dim, base, "yarn", s, L).tolist()
    assert got == pytest.approx([t / s for t in thetas], rel=1e-13)
    assert rc.yarn_ramp_bounds(dim, base, L) == (141.0, 127.0)


def test_yarn_context_shorter_than_2pi_keeps_pair_0_and_divides_the_rest():
    # d=8, base 10^4, L=4: i(1) = 8 ln(4 / (2 pi)) / (2 ln 10^4) = 8 (-0.4516) / 18.42 ~ -0.196,
    # ceil -> 0 = high; i(32) < 0 -> low = 0 = high -> high = 0.001: ramp = [0, 1, 1, 1].
    # theta = [1, 0.1, 0.01, 0.001] -> [1, 0.1/4, 0.01/4, 0.001/4].
    got = th(8, 10000.0, "yarn", 4.0, 4).tolist()
    assert got == pytest.approx([1.0, 0.025, 0.0025, 0.00025], rel=1e-13)


def test_yarn_context_far_below_2pi_keeps_every_pair():
    # d=8, base 10, L=1: i(1) = 8 ln(1 / (2 pi)) / (2 ln 10) = 8 (-1.8379) / 4.6052 ~ -3.19,
    # ceil -> -3 = high < low = 0: ramp_i = (i - 0) / (-3) <= 0 -> 0, theta kept.
    assert math.ceil(8 * math.log(1 / (2 * math.pi)) / (2 * math.log(10.0))) == -3
    got = th(8, 10.0, "yarn", 4.0, 1).tolist()
    assert got == pytest.approx(py_theta(8, 10.0), rel=1e-13)


def test_yarn_short_original_length_by_hand():
    # d=8, base 10^4, s=4, L=100 < 2 pi 32 ~ 201: theta = [1, 0.1, 0.01, 0.001].
    # i(32) = 8 ln(100 / 201.06) / 18.42 ~ -0.303 -> floor -1 -> clamped low = 0;
    # i(1) = 8 ln(100 / 6.2832) / 18.42 ~ 1.202 -> ceil 2 = high. ramp = [0, 1/2, 1, 1]:
    # theta'_1 = 0.1 (1/2 + 1/2 / 4) = 0.0625; theta'_2 = 0.01/4; theta'_3 = 0.001/4.
    got = th(8, 10000.0, "yarn", 4.0, 100).tolist()
    assert got == pytest.approx([1.0, 0.0625, 0.0025, 0.00025], rel=1e-13)
    # truncate off: low = max(-0.303, 0) = 0, high = i(1) unrounded
    high = 8 * math.log(100 / (2 * math.pi)) / (2 * math.log(10000.0))
    ramp = [min(max(i / high, 0.0), 1.0) for i in range(4)]
    want = [t * (1 - r) + t / 4 * r for t, r in zip([1.0, 0.1, 0.01, 0.001], ramp)]
    got = th(8, 10000.0, "yarn", 4.0, 100, truncate=False).tolist()
    assert got == pytest.approx(want, rel=1e-13)
    assert 0 < ramp[1] < 1 and ramp[2] == 1.0


def test_yarn_has_all_three_bands_for_llama2_like_setting():
    # d=128, base 10^4, L=4096: turns_i = 4096 * 10^4^(-i/64) / (2 pi)
    # turns >= 32 while 10^(-i/16) >= 32 * 2 pi / 4096 ~ 0.0491 -> i <= 16 * 1.309 ~ 20.9
    # turns < 1 once 10^(-i/16) < 2 pi / 4096 ~ 0.001534 -> i > 16 * 2.814 ~ 45.0
    dim, base, s, L = 128, 10000.0, 4.0, 4096
    got = th(dim, base, "yarn", s, L).tolist()
    thetas = py_theta(dim, base)
    i_fast = dim * math.log(L / (32 * 2 * math.pi)) / (2 * math.log(base))  # ~20.94
    i_slow = dim * math.log(L / (1 * 2 * math.pi)) / (2 * math.log(base))  # ~45.03
    assert 20 < i_fast < 21 and 45 < i_slow < 46
    assert all(got[i] == pytest.approx(thetas[i], rel=1e-14) for i in range(0, 21))
    assert all(got[i] == pytest.approx(thetas[i] / s, rel=1e-14) for i in range(46, 64))
    assert all(thetas[i] / s < got[i] < thetas[i] for i in range(21, 46))
    # low = floor(20.94) = 20, high = ceil(45.03) = 46: pair 33 sits half way up the ramp,
    # theta'_33 = theta_33 (1/2 + 1/2 / 4) = 0.625 theta_33
    assert got[33] == pytest.approx(0.625 * thetas[33], rel=1e-13)


def test_llama3_bands():
    dim, base, s, L = 128, 500000.0, 8.0, 8192
    got = th(dim, base, "llama3", s, L).tolist()
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


@pytest.mark.parametrize("method", ["none", "linear", "ntk", "dynamic", "yarn", "llama3"])
def test_factor_one_is_identity(method):
    # s = 1: no extension, every method gives back theta (up to rounding)
    got = th(64, 10000.0, method, 1.0, 2048)
    assert got.tolist() == pytest.approx(py_theta(64, 10000.0), rel=1e-13)


@pytest.mark.parametrize("method", ["linear", "ntk", "yarn", "llama3"])
def test_scaled_never_faster_never_slower_than_s(method):
    # every method slows each pair by a ratio in [1/s, 1]
    s = 8.0
    got = th(128, 10000.0, method, s, 4096).tolist()
    for g, t in zip(got, py_theta(128, 10000.0)):
        assert t / s * (1 - 1e-12) <= g <= t * (1 + 1e-12)


def test_scaled_theta_follows_dtype_and_device_arguments():
    # the float32 result is the float64 one rounded once (linear: theta_i / 2 by hand)
    got = th(8, 10000.0, "linear", 2.0, dtype=torch.float32, device="cpu")
    assert got.dtype == torch.float32 and got.device.type == "cpu"
    expected = torch.tensor([10000.0 ** (-2 * i / 8) / 2 for i in range(4)], dtype=torch.float32)
    assert torch.equal(got, expected)


# --- registry ----------------------------------------------------------------------------

def test_registry_entries_follow_one_schema():
    for name, spec in rc.SCALINGS.items():
        assert isinstance(spec, rc.Scaling) and spec.name == name and callable(spec.function)
        assert spec.label and spec.description.endswith(".") and "20" in spec.citation
        names = spec.param_names
        assert len(set(names)) == len(names)
        assert all(isinstance(p, rc.Param) for p in spec.params)
        assert rc.SCALING_LABELS[name] == spec.label
    assert rc.SCALING_LABELS["ntk"] == "static NTK-aware base change"


@pytest.mark.parametrize("method", list(rc.SCALINGS))
def test_unknown_parameter_is_named(method):
    with pytest.raises(ValueError, match="low_freq_factr"):
        rc.scaled_theta(8, 10000.0, method, low_freq_factr=2.0)


# --- every method: s = 1 is the plain spectrum; theta positive and finite -----------------

def identity_params(method, half, L):
    """Parameters with s = 1 for each method (a new method must be added here)."""
    return {"none": {}, "linear": {"factor": 1.0}, "ntk": {"factor": 1.0},
            "dynamic": {"factor": 1.0, "original_max_position_embeddings": L},
            "yarn": {"factor": 1.0, "original_max_position_embeddings": L},
            "llama3": {"factor": 1.0, "original_max_position_embeddings": L},
            "longrope": {"short_factor": [1.0] * half, "long_factor": [1.0] * half,
                         "factor": 1.0, "original_max_position_embeddings": L}}[method]


def test_longrope_needs_ln_l_for_its_default_attention_factor():
    """sqrt(1 + ln s / ln L) is undefined for L = 1: an error naming L, not a ZeroDivisionError."""
    ones = [1.0, 1.0]
    with pytest.raises(rc.RopeError, match="original_max_position_embeddings=1 .*ln L"):
        rc.scaled_theta(4, 10000.0, "longrope", short_factor=ones, long_factor=ones,
                        original_max_position_embeddings=1, factor=2.0)
    _, att = rc.scaled_theta(4, 10000.0, "longrope", short_factor=ones, long_factor=ones,
                             original_max_position_embeddings=1, factor=2.0,
                             attention_factor=1.5)
    assert att == 1.5
    _, att = rc.scaled_theta(4, 10000.0, "longrope", short_factor=ones, long_factor=ones,
                             original_max_position_embeddings=1)  # s = 1: factor 1
    assert att == 1.0


def test_identity_params_cover_the_registry():
    assert {m for m in rc.SCALINGS if identity_params(m, 1, 1) is not None} == set(rc.SCALINGS)


@pytest.mark.parametrize("method", list(rc.SCALINGS))
@given(dim=dims, base=bases, L=st.integers(1, 10**7), n=st.one_of(st.none(),
                                                                  st.integers(1, 10**7)))
def test_factor_one_gives_the_plain_spectrum(method, dim, base, L, n):
    # dynamic NTK at s = 1 still changes the base once n > L (alpha = n / L): within L only
    if method == "dynamic" and n is not None:
        n = min(n, L)
    got, att = rc.scaled_theta(dim, base, method, seq_len=n, **identity_params(method, dim // 2, L))
    assert got.tolist() == pytest.approx(py_theta(dim, base), rel=1e-13)
    assert att == 1.0


def random_params(method, half):
    s = st.floats(1.0, 1000.0)
    L = st.integers(1, 10**7)
    per_pair = st.lists(st.floats(0.01, 1000.0), min_size=half, max_size=half)
    return {"none": st.just({}), "linear": st.fixed_dictionaries({"factor": s}),
            "ntk": st.fixed_dictionaries({"factor": s}),
            "dynamic": st.fixed_dictionaries({"factor": s,
                                              "original_max_position_embeddings": L}),
            "yarn": st.fixed_dictionaries(
                {"factor": s, "original_max_position_embeddings": L},
                optional={"mscale": st.floats(0.0, 100.0), "mscale_all_dim": st.floats(0.0, 100.0),
                          "attention_factor": st.floats(0.01, 100.0),
                          "truncate": st.booleans()}),
            "llama3": st.fixed_dictionaries(
                {"factor": s, "original_max_position_embeddings": L,
                 "low_freq_factor": st.floats(0.01, 10.0), "high_freq_factor": st.floats(20, 999)}),
            "longrope": st.fixed_dictionaries(  # L = 1: see test_longrope_needs_ln_l
                {"short_factor": per_pair, "long_factor": per_pair,
                 "original_max_position_embeddings": st.integers(2, 10**7)},
                optional={"factor": s, "attention_factor": st.floats(0.01, 100.0)}),
            }[method]


@pytest.mark.parametrize("method", list(rc.SCALINGS))
@given(data=st.data(), dim=dims, base=bases, n=st.one_of(st.none(), st.integers(1, 10**7)))
def test_theta_and_attention_factor_positive_and_finite(method, data, dim, base, n):
    params = data.draw(random_params(method, dim // 2))
    got, att = rc.scaled_theta(dim, base, method, seq_len=n, **params)
    assert got.shape == (dim // 2,)
    assert bool(torch.isfinite(got).all()) and bool((got > 0).all())
    assert math.isfinite(att) and att > 0


# --- attention factors ---------------------------------------------------------------------

def yarn_att(**kw):
    return rc.scaled_theta(64, 10000.0, "yarn", original_max_position_embeddings=4096, **kw)[1]


def test_yarn_attention_factor_forms():
    assert yarn_att(factor=4.0) == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)  # 1.1386
    assert yarn_att(factor=1.0) == 1.0
    # DeepSeek-V3: mscale = mscale_all_dim = 1 -> (0.1 ln 40 + 1) / (0.1 ln 40 + 1) = 1
    assert yarn_att(factor=40.0, mscale=1.0, mscale_all_dim=1.0) == pytest.approx(1.0, rel=1e-15)
    want = (0.1 * 0.707 * math.log(16) + 1) / (0.1 * math.log(16) + 1)
    assert yarn_att(factor=16.0, mscale=0.707, mscale_all_dim=1.0) == pytest.approx(want, 1e-15)
    # only one of the two given (or a zero): the plain 0.1 ln s + 1, as Hugging Face
    assert yarn_att(factor=16.0, mscale=0.707) == pytest.approx(0.1 * math.log(16) + 1, 1e-15)
    assert yarn_att(factor=8.0, attention_factor=1.25) == 1.25
    # no factor: s = max_position_embeddings / L = 16384 / 4096 = 4
    assert yarn_att(max_position_embeddings=16384) == pytest.approx(0.1 * math.log(4) + 1, 1e-15)


def test_longrope_by_hand():
    # d=4, base 10^4: theta = [1, 0.01]; short factors [1, 2], long [4, 8], L = 1000
    p = {"short_factor": [1.0, 2.0], "long_factor": [4.0, 8.0],
         "original_max_position_embeddings": 1000}
    for n in (None, 1, 1000):
        assert rc.scaled_theta(4, 1e4, "longrope", seq_len=n, **p)[0].tolist() == \
            pytest.approx([1.0, 0.005], rel=1e-15)
    assert rc.scaled_theta(4, 1e4, "longrope", seq_len=1001, **p)[0].tolist() == \
        pytest.approx([0.25, 0.00125], rel=1e-15)
    # attention: sqrt(1 + ln 16 / ln 1000) = sqrt(1 + 4 ln 2 / (3 ln 10))
    att = rc.scaled_theta(4, 1e4, "longrope", factor=16.0, **p)[1]
    assert att == pytest.approx(math.sqrt(1 + 4 * math.log(2) / (3 * math.log(10))), rel=1e-15)
    # Phi-3.5 mini: s = 131072 / 4096 = 2^5, L = 2^12 -> sqrt(1 + 5/12) = sqrt(17/12)
    phi = rc.PRESETS["Phi-3.5 mini"]
    assert phi.theta()[1] == pytest.approx(math.sqrt(17 / 12), rel=1e-15)
    assert rc.scaled_theta(4, 1e4, "longrope", attention_factor=1.5, **p)[1] == 1.5
    assert rc.scaled_theta(4, 1e4, "longrope", **p)[1] == 1.0  # no factor, no max: s = 1


# --- dynamic NTK ----------------------------------------------------------------------------

def test_dynamic_by_hand():
    p = {"factor": 2.0, "original_max_position_embeddings": 1000}
    # n <= L (or None): the plain spectrum [1, 0.01]
    for n in (None, 1, 1000):
        assert rc.scaled_theta(4, 1e4, "dynamic", seq_len=n, **p)[0].tolist() == \
            pytest.approx([1.0, 0.01], rel=1e-15)
    # n = 2000: alpha = 2 * 2 - 1 = 3, base' = 10^4 * 3^(4/2) = 9 * 10^4, theta_1 = 1/300
    assert rc.scaled_theta(4, 1e4, "dynamic", seq_len=2000, **p)[0].tolist() == \
        pytest.approx([1.0, 1 / 300], rel=1e-14)
    # d=8, s=4, L=100, n=150: alpha = 4 * 1.5 - 3 = 3, base' = 10^4 3^(4/3),
    # theta_i = base'^(-i/4) = 10^(-i) 3^(-i/3); the slowest, theta_3 = 1/3000
    got = rc.scaled_theta(8, 1e4, "dynamic", seq_len=150, factor=4.0,
                          original_max_position_embeddings=100)[0].tolist()
    assert got == pytest.approx([10.0 ** -i * 3 ** (-i / 3) for i in range(4)], rel=1e-14)
    assert got[3] == pytest.approx(1 / 3000, rel=1e-14)


def test_effective_base():
    # d=4: base' = 10^4 * max(1, 2 n / 1000 - 1)^2
    got = rc.effective_base(4, 1e4, 2.0, 1000, [1, 500, 1000, 2000, 3000])
    assert got.tolist() == pytest.approx([1e4, 1e4, 1e4, 9e4, 25e4], rel=1e-14)
    assert float(rc.effective_base(4, 1e4, 2.0, 1000, 2000)) == pytest.approx(9e4, rel=1e-14)
    assert rc.effective_base(4, 1e4, 2.0, 1000, 2000).ndim == 0
    assert rc.effective_base(2, 1e4, 2.0, 1000, [5000]).tolist() == [1e4]


# --- Llama 3.1 by hand ------------------------------------------------------------------------

@pytest.mark.parametrize("dim,s,kept,blended", [
    # Llama 3.1 8B: lambda_i = 2 pi 500000^(i/64). Kept while lambda_i < 8192/4 = 2048:
    # i < 64 ln(2048 / 2 pi) / ln 500000 = 64 * 5.7868 / 13.1224 ~ 28.2 -> 0..28.
    # Divided by s once lambda_i > 8192: i > 64 ln(8192 / 2 pi) / ln 500000 ~ 34.98 -> 35..63.
    (128, 8.0, range(0, 29), range(29, 35)),
    # Llama 3.2 1B: d=64, lambda_i = 2 pi 500000^(i/32): kept i < 14.1, divided i > 17.5
    (64, 32.0, range(0, 15), range(15, 18)),
])
def test_llama3_by_hand(dim, s, kept, blended):
    L = 8192
    assert 64 * math.log(2048 / (2 * math.pi)) / math.log(5e5) == pytest.approx(28.22, abs=0.01)
    assert 64 * math.log(8192 / (2 * math.pi)) / math.log(5e5) == pytest.approx(34.98, abs=0.01)
    got = th(dim, 5e5, "llama3", s, L, low_freq_factor=1.0, high_freq_factor=4.0).tolist()
    thetas = py_theta(dim, 5e5)
    for i in range(dim // 2):
        if i in kept:
            assert got[i] == pytest.approx(thetas[i], rel=1e-15), i
        elif i in blended:
            g = (L * thetas[i] / (2 * math.pi) - 1) / 3  # (L / lambda_i - 1) / (4 - 1)
            assert 0 < g < 1
            assert got[i] == pytest.approx((1 - g) * thetas[i] / s + g * thetas[i], rel=1e-13)
        else:
            assert got[i] == pytest.approx(thetas[i] / s, rel=1e-15), i
    regimes = rc.pair_regime(dim, 5e5, "llama3", factor=s, original_max_position_embeddings=L)
    assert regimes == tuple("kept" if i in kept else "blended" if i in blended
                            else "interpolated" for i in range(dim // 2))


def test_pair_regime_simple_methods():
    assert set(rc.pair_regime(16, 1e4)) == {"kept"}
    assert set(rc.pair_regime(16, 1e4, "linear", factor=4.0)) == {"interpolated"}
    # static NTK: theta'_i = theta_i s^(-2i/(d-2)): pair 0 kept, the last divided by s
    r = rc.pair_regime(16, 1e4, "ntk", factor=4.0)
    assert r[0] == "kept" and r[-1] == "interpolated" and set(r[1:-1]) == {"blended"}


# --- comparing dynamic NTK with the other methods (issue 19, item 4) ------------------------

def test_dynamic_alpha_closed_form():
    # alpha = f n / L - (f - 1): at n = s L, f s - f + 1; s = 8: 57 with f = s, 8 with f = 1
    assert rc.dynamic_alpha(8.0, 4096, 8 * 4096) == 57.0
    assert rc.dynamic_alpha(1.0, 4096, 8 * 4096) == 8.0
    assert rc.dynamic_alpha(4.0, 1000, 500) == 1.0  # n <= L: alpha = 1
    assert rc.dynamic_alpha(2.0, 1000, 3000) == 5.0


def test_comparison_params():
    assert rc.comparison_params("linear", 8, 4096) == {"factor": 8.0}
    assert rc.comparison_params("yarn", 8, 4096) == {"factor": 8.0,
                                                     "original_max_position_embeddings": 4096}
    assert rc.comparison_params("none", 8, 4096) == {}
    # dynamic gets transformers' factor 1 (alpha = n / L), not s
    assert rc.comparison_params("dynamic", 8, 4096) == {"factor": 1.0,
                                                        "original_max_position_embeddings": 4096}
    assert rc.comparison_params("dynamic", 8, 4096, 8)["factor"] == 8.0
    with pytest.raises(ValueError, match="method"):
        rc.comparison_params("longrope", 8, 4096)
    with pytest.raises(ValueError, match="factor"):
        rc.comparison_params("linear", 0.5, 4096)


@given(dim=dims.filter(lambda d: d >= 4), base=bases, s=factors,
       L=st.integers(min_value=1, max_value=10**5))
def test_dynamic_at_s_L_equals_static_ntk(dim, base, s, L):
    """With transformers' factor 1, dynamic NTK at n = s L is static NTK with alpha = s:
    the same base' = base s^(d/(d-2)), the slowest pair divided by exactly s."""
    n = max(L, round(s * L))
    s_eff = n / L
    dyn = rc.scaled_theta(dim, base, "dynamic", seq_len=n,
                          **rc.comparison_params("dynamic", s_eff, L))[0]
    ntk = rc.scaled_theta(dim, base, "ntk", factor=s_eff)[0]
    assert dyn.tolist() == pytest.approx(ntk.tolist(), rel=1e-12)
    assert float(dyn[-1]) == pytest.approx(base ** (-(dim - 2) / dim) / s_eff, rel=1e-12)


@pytest.mark.parametrize("f", [1.0, 8.0])
def test_dynamic_matches_transformers(f):
    """transformers' own _compute_dynamic_ntk_parameters (through ROPE_INIT_FUNCTIONS) at
    n = s L = 8 x 4096, d = 128, base 10^4: factor 1 divides the slowest pair by 8 and
    factor 8 by 57, and scaled_theta gives the same frequencies."""
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    s, L, d, base = 8, 4096, 128, 10_000.0
    cfg = transformers.LlamaConfig(hidden_size=8 * d, num_attention_heads=8,
                                   max_position_embeddings=L,
                                   rope_parameters={"rope_type": "dynamic", "factor": f,
                                                    "rope_theta": base})
    inv_freq, attention = ROPE_INIT_FUNCTIONS["dynamic"](cfg, "cpu", seq_len=s * L)
    ours, a = rc.scaled_theta(d, base, "dynamic", seq_len=s * L, factor=f,
                              original_max_position_embeddings=L)
    assert a == attention == 1.0
    assert inv_freq.double().tolist() == pytest.approx(ours.tolist(), rel=2e-6)  # float32
    alpha = f * s - (f - 1)  # 8 or 57
    assert alpha == rc.dynamic_alpha(f, L, s * L)
    assert float(inv_freq[-1]) / base ** (-(d - 2) / d) == pytest.approx(1 / alpha, rel=2e-6)


# --- YaRN's two ramps (issue 19, item 9) ----------------------------------------------------

def test_yarn_ramps_by_hand():
    """d = 128, base 10^4, L = 4096, beta 32 / 1. Index bounds from i(r) = d ln(L/(2 pi r)) /
    (2 ln base): i(32) = 20.94 -> low 20, i(1) = 45.03 -> high 46; the code's ramp is
    (i - 20) / 26. The paper's: 1 - clamp((r_i - 1) / 31, 0, 1), r_i = L base^(-2i/d) / 2 pi."""
    d, base, L = 128, 1e4, 4096
    i32 = d * math.log(L / (2 * math.pi * 32)) / (2 * math.log(base))
    i1 = d * math.log(L / (2 * math.pi)) / (2 * math.log(base))
    assert (math.floor(i32), math.ceil(i1)) == (20, 46)
    code = rc.yarn_ramp(d, base, L).tolist()
    paper = rc.yarn_paper_ramp(d, base, L).tolist()
    for i in range(64):
        assert code[i] == pytest.approx(min(max((i - 20) / 26, 0.0), 1.0), abs=1e-15)
        r = L * base ** (-2 * i / d) / (2 * math.pi)
        assert paper[i] == pytest.approx(1 - min(max((r - 1) / 31, 0.0), 1.0), abs=1e-12)
    # pair 30: 10/26 = 38% interpolated in the code; r_30 = 8.70, 1 - 7.70/31 = 75%
    assert code[30] == pytest.approx(10 / 26)
    r30 = 4096 * 10 ** (-4 * 60 / 128) / (2 * math.pi)
    assert paper[30] == pytest.approx(1 - (r30 - 1) / 31, rel=1e-12)
    # the scaled spectrum uses the code's ramp (as transformers does)
    s = 8.0
    got = rc.scaled_theta(d, base, "yarn", factor=s, original_max_position_embeddings=L)[0]
    plain = py_theta(d, base)
    assert got.tolist() == pytest.approx(
        [t * (1 - c) + t / s * c for t, c in zip(plain, code)], rel=1e-13)


def test_dynamic_regime_uses_alpha():
    """Dynamic NTK divides its slowest pair by alpha(n) (= s at n = s L with factor 1, and
    57 with factor 8 at s = 8): that pair is "interpolated", the fastest "kept", as static
    NTK's."""
    L = 4096
    for f, alpha in ((1.0, 8.0), (8.0, 57.0)):
        regime = rc.pair_regime(16, 1e4, "dynamic", seq_len=8 * L, factor=f,
                                original_max_position_embeddings=L)
        assert regime[0] == "kept" and regime[-1] == "interpolated"
        assert set(regime[1:-1]) == {"blended"}
        theta = rc.scaled_theta(16, 1e4, "dynamic", seq_len=8 * L, factor=f,
                                original_max_position_embeddings=L)[0]
        assert float(theta[-1]) == pytest.approx(1e4 ** (-14 / 16) / alpha, rel=1e-12)
    assert rc.pair_regime(16, 1e4, "dynamic", seq_len=L, factor=8.0,
                          original_max_position_embeddings=L) == ("kept",) * 8
    assert rc.pair_regime(16, 1e4, "ntk", factor=8.0)[-1] == "interpolated"
