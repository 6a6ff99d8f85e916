"""Positions, angles and cos/sin caches in low precision (rope_core.limits.precision).

Expected values: hand rounding of binary significands (worked in comments),
an independent pure-Python round-to-nearest-even on integers, torch.nextafter
for neighbours, and scores recomputed with explicit 2x2 rotations.
"""

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from transformers_reference import float32_angles, llama_rotary

import rope_core as rc
from rope_core.limits.precision import MAX_FULL_ELEMENTS

# significand bits p (implicit bit included) and largest finite value, from the formats' definitions
BITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}
MAX_FINITE = {"float64": 1.7976931348623157e308, "float32": 3.4028234663852886e38,
              "float16": 65504.0, "bfloat16": 3.3895313892515355e38}
dtype_names = st.sampled_from(list(BITS))


def py_round_int(m: int, p: int, max_finite: float) -> float:
    """Nearest number with p significant bits to the integer m, ties to even; inf past max."""
    if m < 0:
        return -py_round_int(-m, p, max_finite)
    if m < 2**p:
        return float(m)  # every integer below 2^p has at most p bits
    e = m.bit_length() - 1  # 2^e <= m < 2^(e+1)
    s = 2 ** (e - p + 1)  # spacing in this binade
    lo, r = divmod(m, s)
    if 2 * r > s or (2 * r == s and lo % 2 == 1):
        lo += 1
    v = lo * s
    return math.inf if v > max_finite else float(v)


# ---------------------------------------------------------------- dtypes

def test_dtypes_and_names():
    assert rc.DTYPES == {"float64": torch.float64, "float32": torch.float32,
                         "float16": torch.float16, "bfloat16": torch.bfloat16}
    assert rc.resolve_dtype("bfloat16") is torch.bfloat16
    assert rc.resolve_dtype(torch.float16) is torch.float16
    for bad in ("fp8", "float", "half", torch.int32, None, 16):
        with pytest.raises(ValueError, match="dtype=.* must be one of 'float64'"):
            rc.resolve_dtype(bad)
    with pytest.raises(ValueError, match="dtype='fp16'"):
        rc.as_dtype_position(5, "fp16")


# ---------------------------------------------------------------- as_dtype_position

def test_as_dtype_position_by_hand():
    # bfloat16 has 8 significant bits: on [256, 512) the spacing is 2.
    # 257 lies halfway between 256 = 128*2 and 258 = 129*2: tie to the even multiple, 256.
    # 259 lies between 258 = 129*2 (odd) and 260 = 130*2 (even): 260.
    assert rc.as_dtype_position(257, "bfloat16") == 256.0
    assert rc.as_dtype_position(258, "bfloat16") == 258.0
    assert rc.as_dtype_position(259, "bfloat16") == 260.0
    # float16, 11 bits: spacing 2 on [2048, 4096); 2049 -> 2048 (1024 even), 2051 -> 2052
    assert rc.as_dtype_position([2049, 2051], "float16").tolist() == [2048.0, 2052.0]
    # float16 overflow: 65504 is the largest finite; 65519 rounds down, 65520 to inf
    assert rc.as_dtype_position([65504, 65519, 65520], torch.float16).tolist() == [
        65504.0, 65504.0, math.inf]
    # float32 holds every integer up to 2^24 > 10^7 (the position bound)
    assert rc.as_dtype_position(10**7, "float32") == 1e7


@given(name=dtype_names, ms=st.lists(st.integers(-10**7, 10**7), min_size=1, max_size=20))
def test_as_dtype_position_is_nearest_representable(name, ms):
    got = rc.as_dtype_position(ms, name)
    p = BITS[name]
    assert got.tolist() == [py_round_int(m, p, MAX_FINITE[name]) for m in ms]
    # and no neighbour of the held value (torch.nextafter in the dtype) is closer to m
    dt = rc.DTYPES[name]
    held = got.to(dt)
    finite = torch.isfinite(held)
    up = torch.nextafter(held, torch.full_like(held, math.inf)).double()
    down = torch.nextafter(held, torch.full_like(held, -math.inf)).double()
    m = torch.tensor(ms, dtype=torch.float64)
    err = (got - m).abs()
    assert bool((err[finite] <= (up - m).abs()[finite]).all())
    assert bool((err[finite] <= (down - m).abs()[finite]).all())


def test_as_dtype_position_validation():
    with pytest.raises(ValueError, match="m=.*absolute value at most 1e\\+07"):
        rc.as_dtype_position(10**8, "bfloat16")
    with pytest.raises(ValueError, match="m=.*absolute value at most 1e\\+07"):
        rc.as_dtype_position(2**24 + 1, "float32")
    with pytest.raises(ValueError, match="m=.*integer-valued"):
        rc.as_dtype_position([1.5], "bfloat16")


# ---------------------------------------------------------------- grid_spacing, first_inexact

def test_grid_spacing_by_hand():
    # bfloat16, p = 8: spacing 2^(e - 7) on [2^e, 2^(e+1)): 1 below 256, 2 from 256,
    # 4 from 512; at 2^20: 2^13 = 8192
    got = rc.grid_spacing([255, 256, 511, 512, 2**20], "bfloat16").tolist()
    assert got == [1.0, 2.0, 2.0, 4.0, 8192.0]
    # float16, p = 11: 2 from 2048, 32 on [32768, 65504]; inf where the value overflows
    assert rc.grid_spacing([2047, 2048, 65504, 65520], "float16").tolist() == [
        1.0, 2.0, 32.0, math.inf]
    # float32, p = 24: 2^(e - 23): 0.5 on [2^22, 2^23), 1 on [2^23, 2^24) (2 only past 10^7)
    assert rc.grid_spacing([2**23 - 1, 2**23], "float32").tolist() == [0.5, 1.0]
    # position 0: the smallest subnormal step, 2^-149 in float32
    assert rc.grid_spacing([0], "float32").item() == 2.0**-149


@given(name=dtype_names, ms=st.lists(st.integers(1, 10**7), min_size=1, max_size=20))
def test_grid_spacing_is_gap_above_binade_start(name, ms):
    got = rc.grid_spacing(ms, name).tolist()
    dt = rc.DTYPES[name]
    for m, s in zip(ms, got):
        e = m.bit_length() - 1
        if math.isinf(py_round_int(m, BITS[name], MAX_FINITE[name])):
            assert s == math.inf
            continue
        assert s == 2.0 ** (e - BITS[name] + 1)
        lo = torch.tensor(2.0**e, dtype=dt)  # the binade's first value, exact in dt
        assert (torch.nextafter(lo, torch.tensor(math.inf, dtype=dt)) - lo).item() == s


def test_first_inexact_position():
    assert rc.first_inexact_position("float16") == 2049
    assert rc.first_inexact_position("bfloat16") == 257
    assert rc.first_inexact_position(torch.float32) == 2**24 + 1
    assert rc.first_inexact_position("float64") == 2**53 + 1
    for name in ("float16", "bfloat16"):
        n = rc.first_inexact_position(name)
        # every integer below it is held exactly, n itself is not
        below = torch.arange(1, n, dtype=torch.float64)
        assert torch.equal(below.to(rc.DTYPES[name]).double(), below)
        assert rc.as_dtype_position(n, name) != n


# ---------------------------------------------------------------- angle_error

# every recipe that rounds only what the dtype holds ("float32_angles" forms its angles in
# float32 whatever the dtype: tested below)
EXACT_IN_FLOAT64 = [r for r in rc.RECIPES if r != "float32_angles"]


@given(recipe=st.sampled_from(EXACT_IN_FLOAT64), half=st.integers(1, 64),
       base=st.floats(1.5, 1e7), ms=st.lists(st.integers(0, 10**7), min_size=1, max_size=10))
def test_float64_reproduces_reference(recipe, half, base, ms):
    for err in rc.angle_error(ms, 2 * half, base, "float64", recipe):
        assert err.shape == (len(ms), half) and err.dtype == torch.float64
        assert bool((err == 0).all())


def test_angle_error_by_hand_bfloat16():
    # d = 2, theta = [1], "positions": 257 is held as 256, angle off by exactly 1 rad
    a, c, s = rc.angle_error([257], 2, 10_000, "bfloat16", "positions")
    assert a.item() == 1.0
    assert c.item() == pytest.approx(abs(math.cos(256) - math.cos(257)), abs=1e-15)
    # d = 4, base 100: theta = [1, 0.1]. 0.1 = 1.6 * 2^-4; 1.6 * 2^7 = 204.8 -> 205, so
    # bfloat16 holds 0.1 as 205 * 2^-11 = 0.10009765625.
    # "theta" at m = 1000: errors [0, 1000 * 0.00009765625 = 0.09765625]
    a, _, _ = rc.angle_error([1000], 4, 100, "bfloat16", "theta")
    assert a[0].tolist() == pytest.approx([0.0, 0.09765625], rel=1e-12, abs=1e-12)
    # "product" at m = 333: 333 -> 332 (tie between 332 = 166*2 and 334 = 167*2: even 166);
    # pair 0: 332 * 1 = 332 exact, error 1; pair 1: 332 * 0.10009765625 = 33.232421875,
    # on [32, 64) the spacing is 0.25 -> 33.25; reference 33.3 -> error 0.05
    a, _, _ = rc.angle_error([333], 4, 100, "bfloat16", "product")
    assert a[0].tolist() == pytest.approx([1.0, 0.05], rel=1e-12)
    # "cache": the angle is exact
    a, _, _ = rc.angle_error([333], 4, 100, "bfloat16", "cache")
    assert a[0].tolist() == [0.0, 0.0]


@given(name=dtype_names, half=st.integers(1, 64), base=st.floats(1.5, 1e7),
       ms=st.lists(st.integers(0, 10**7), min_size=1, max_size=10))
def test_cache_error_is_half_an_ulp(name, half, base, ms):
    # |cos| <= 1: rounding to p bits moves a value in [0.5, 1) by at most 2^-p / 2 = 2^-(p+1),
    # smaller values by less; 1 itself is exact. torch converts float64 to float16/bfloat16
    # through float32 (double rounding), which can add up to float32's half-ulp 2^-25.
    _, c, s = rc.angle_error(ms, 2 * half, base, name, "cache")
    bound = 2.0 ** -(BITS[name] + 1) + (2.0**-25 if BITS[name] < 24 else 0.0)
    assert float(c.max()) <= bound and float(s.max()) <= bound


@given(name=dtype_names, half=st.integers(1, 64), base=st.floats(1.5, 1e7),
       ms=st.lists(st.integers(0, 10**7), min_size=1, max_size=10))
def test_positions_recipe_is_position_error_times_theta(name, half, base, ms):
    a, _, _ = rc.angle_error(ms, 2 * half, base, name, "positions")
    dm = [abs(py_round_int(m, BITS[name], MAX_FINITE[name]) - m) for m in ms]
    th = [base ** (-2 * i / (2 * half)) for i in range(half)]
    for row, d, m in zip(a.tolist(), dm, ms):
        if math.isinf(d):
            assert all(math.isinf(x) for x in row)
        else:
            # both sides are differences of float64 products ~ m theta_i: ~2^-52 m apart
            assert row == pytest.approx([d * t for t in th], rel=1e-12, abs=2.0**-50 * m)


def test_max_angle_error_reduces_over_pairs_and_float16_overflow():
    ms = list(range(0, 10**6, 997))[:500]
    full = rc.angle_error(ms, 64, 10_000, "bfloat16", "product")
    red = rc.max_angle_error(ms, 64, 10_000, "bfloat16", "product")
    for f, r in zip(full, red):
        assert torch.equal(f.amax(dim=1), r)
    # float16 positions overflow past 65504: angle error inf, cos/sin error NaN
    a, c, s = rc.max_angle_error([100, 70_000], 8, 10_000, "float16", "positions")
    assert a[0].item() == 0.0 and a[1].item() == math.inf
    assert math.isnan(c[1].item()) and math.isnan(s[1].item())


def test_angle_error_validation():
    with pytest.raises(ValueError, match="recipe='bf16'"):
        rc.angle_error([1], 8, 100, "bfloat16", "bf16")
    with pytest.raises(ValueError, match="positions=.*absolute value at most 1e\\+07"):
        rc.angle_error([10**8], 8, 100, "bfloat16", "positions")
    too_many = MAX_FULL_ELEMENTS // 4 + 1  # dim 8: 4 pairs
    with pytest.raises(ValueError, match="positions=.*at most 262144 positions at dim = 8"):
        rc.angle_error(range(too_many), 8, 100, "bfloat16", "positions")
    with pytest.raises(ValueError, match="positions=.*at most"):
        rc.max_angle_error(range(10**6), 4096, 100, "bfloat16", "positions")
    with pytest.raises(ValueError, match="dtype="):
        rc.max_angle_error([1], 8, 100, "int8", "positions")


# ---------------------------------------------------------------- relative_property_error

def test_relative_property_by_hand():
    # d = 2, q = k = ones: score(m, n) = 2 cos(n~ - m~) with held positions.
    # bfloat16 "positions": score(0, 1) = 2 cos 1; at shift 256: 256 and 257 -> 256, 256:
    # score = 2 cos 0 = 2. Error 2 - 2 cos 1 = 0.9194.
    got = rc.relative_property_error(2, 10_000, "bfloat16", "positions", 0, 1, 256)
    assert got == pytest.approx(2 - 2 * math.cos(1), rel=1e-13)
    # shift 0 compares a score with itself
    assert rc.relative_property_error(2, 10_000, "bfloat16", "positions", 0, 1, 0) == 0.0


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_relative_property_against_explicit_rotations(layout):
    # bfloat16 "cache": c_p = bf16(cos p theta_i), s_p = bf16(sin p theta_i); rotate q and k
    # pair by pair with these numbers and take the dot product in Python.
    dim, base, m, n = 6, 50.0, 1234, 1300
    g = torch.Generator().manual_seed(3)
    q = torch.randn(dim, generator=g, dtype=torch.float64)
    k = torch.randn(dim, generator=g, dtype=torch.float64)
    th = [base ** (-2 * i / dim) for i in range(dim // 2)]
    pairs = ([(2 * i, 2 * i + 1) for i in range(dim // 2)] if layout == "interleaved"
             else [(i, i + dim // 2) for i in range(dim // 2)])

    def bf(x):
        return torch.tensor(x, dtype=torch.float64).to(torch.bfloat16).item()

    def score(pm, pn):
        total = 0.0
        for (a, b), t in zip(pairs, th):
            cm, sm = bf(math.cos(pm * t)), bf(math.sin(pm * t))
            cn, sn = bf(math.cos(pn * t)), bf(math.sin(pn * t))
            qa, qb = cm * q[a].item() - sm * q[b].item(), sm * q[a].item() + cm * q[b].item()
            ka, kb = cn * k[a].item() - sn * k[b].item(), sn * k[a].item() + cn * k[b].item()
            total += qa * ka + qb * kb
        return total

    shifts = [0, 1, 77, 5000]
    got = rc.relative_property_error(dim, base, "bfloat16", "cache", m, n, shifts, q=q, k=k,
                                     layout=layout)
    expected = [abs(score(m, n) - score(m + s, n + s)) for s in shifts]
    assert got.tolist() == pytest.approx(expected, rel=1e-9, abs=1e-12)


@given(recipe=st.sampled_from(EXACT_IN_FLOAT64), half=st.integers(1, 64),
       base=st.floats(1.5, 1e7), m=st.integers(0, 10**4), n=st.integers(0, 10**4),
       shifts=st.lists(st.integers(0, 10**4), min_size=1, max_size=5),
       seed=st.integers(0, 2**31 - 1), ones=st.booleans())
def test_float64_keeps_relative_property(recipe, half, base, m, n, shifts, seed, ones):
    dim = 2 * half
    g = torch.Generator().manual_seed(seed)
    q = None if ones else torch.randn(dim, generator=g, dtype=torch.float64)
    k = None if ones else torch.randn(dim, generator=g, dtype=torch.float64)
    got = rc.relative_property_error(dim, base, "float64", recipe, m, n, shifts, q=q, k=k)
    # bound derived in the docstring: c_p, s_p off by u (P theta_i + 2) each, u = 2^-53;
    # per score sum_i w_i [4u (P theta_i + 2) + 3u] plus summation rounding; two scores.
    u = 2.0**-53
    P = max(m, n) + max(shifts)
    qv = torch.ones(dim, dtype=torch.float64) if q is None else q
    kv = torch.ones(dim, dtype=torch.float64) if k is None else k
    th = [base ** (-2 * i / dim) for i in range(half)]
    w = [abs(qv[2 * i] * kv[2 * i] + qv[2 * i + 1] * kv[2 * i + 1]).item()
         + abs(qv[2 * i + 1] * kv[2 * i] - qv[2 * i] * kv[2 * i + 1]).item() for i in range(half)]
    per_score = sum(wi * (4 * u * (P * t + 2) + 3 * u) for wi, t in zip(w, th)) + dim * u * sum(w)
    assert float(got.max()) <= 2 * per_score


def test_low_precision_breaks_relative_property():
    # q = k = ones, d = 128, m = 1000, n = 1010, bfloat16 positions:
    # 1000 is exact (250 * 4); 1010 on [512, 1024) (spacing 4) is a tie 252.5 * 4 -> 1008,
    # so score(m, n) = 2 B_8. At shift 10^6 the spacing is 2^(19 - 7) = 4096:
    # 1001000 and 1001010 both round to 244 * 4096 = 999424, so the score is 2 B_0 = 128.
    def B(r):
        return sum(math.cos(r * 10_000 ** (-2 * i / 128)) for i in range(64))

    assert rc.as_dtype_position([1000, 1010, 1_001_000, 1_001_010], "bfloat16").tolist() == [
        1000.0, 1008.0, 999424.0, 999424.0]
    got = rc.relative_property_error(128, 10_000, "bfloat16", "positions", 1000, 1010, [10**6])
    assert got.item() == pytest.approx(abs(2 * B(8) - 128), rel=1e-12)
    # float32 holds all these positions exactly (< 2^24): the property survives
    assert rc.relative_property_error(128, 10_000, "float32", "positions", 1000, 1010, 10**6) \
        == pytest.approx(0, abs=1e-9)


def test_relative_property_validation():
    with pytest.raises(ValueError, match="m=-1"):
        rc.relative_property_error(8, 100, "bfloat16", "positions", -1, 0, 1)
    with pytest.raises(ValueError, match="n=20000000"):
        rc.relative_property_error(8, 100, "bfloat16", "positions", 0, 2 * 10**7, 1)
    with pytest.raises(ValueError, match="shift=.*from -3 to 9999995"):
        rc.relative_property_error(8, 100, "bfloat16", "positions", 5, 3, 10**7)
    with pytest.raises(ValueError, match="q=.*shape \\(8,\\)"):
        rc.relative_property_error(8, 100, "bfloat16", "positions", 0, 1, 1, q=torch.ones(4))
    with pytest.raises(ValueError, match="recipe="):
        rc.relative_property_error(8, 100, "bfloat16", "all", 0, 1, 1)


# ---------------------------------------------------------------- float32 angles (transformers)

def test_transformers_inv_freq_is_float32_pow():
    th = rc.transformers_inv_freq(8, 10_000.0)
    assert th.dtype == torch.float32
    # 1 / 10^4^(j/8) for j = 0, 2, 4, 6: 1, 0.1, 0.01, 0.001, each within a float32 ulp
    for got, want in zip(th.tolist(), (1.0, 0.1, 0.01, 0.001)):
        assert got == pytest.approx(want, rel=2**-23)


@given(half=st.integers(1, 64), base=st.floats(1.5, 1e7),
       ms=st.lists(st.integers(0, 10**7), min_size=1, max_size=10), name=dtype_names)
def test_float32_angles_recipe_by_hand(half, base, ms, name):
    """a = fl32(fl32(m) th32_i) for every dtype (float32 arithmetic: the product of two
    float32 numbers rounded once); cos = fl_dtype(cos32 a)."""
    dim = 2 * half
    th32 = rc.transformers_inv_freq(dim, base)
    angle_err, cos_err, _ = rc.angle_error(ms, dim, base, name, "float32_angles")
    ref_theta = [base ** (-2 * i / dim) for i in range(half)]
    for row, m in enumerate(ms):
        m32 = torch.tensor(float(m), dtype=torch.float32)
        a32 = (m32 * th32).double()  # (h,) float32 products
        for i in range(half):
            want = abs(a32[i].item() - m * ref_theta[i])
            assert angle_err[row, i].item() == pytest.approx(want, rel=1e-9, abs=1e-9 * m)
    # the angle error does not depend on the dtype; float32 and float64 caches add nothing
    # measurable to cos beyond float32's own cos
    a64, _, _ = rc.angle_error(ms, dim, base, "float64", "float32_angles")
    assert torch.equal(angle_err, a64)


def test_float32_angles_at_a_million_is_the_float32_product():
    """At m = 10^6, float32's spacing is 2^(19 - 23) = 1/16, so rounding the product alone
    costs up to 1/32 rad, and th32's own rounding (|th32 - theta| <= theta 2^-24 or so) adds
    up to 10^6 theta 2^-24 ~ 0.06 theta: the largest error over pairs, d = 128, base 10^4,
    is a few hundredths of a radian; the cache in bfloat16 bounds cos by 2^-9 more."""
    m = torch.tensor([10**6])
    ang, cos, _ = rc.max_angle_error(m, 128, 1e4, "bfloat16", "float32_angles")
    assert 0.01 < ang.item() < 1 / 32 + 0.07
    ang_cache, cos_cache, _ = rc.max_angle_error(m, 128, 1e4, "bfloat16", "cache")
    assert ang_cache.item() == 0 and cos_cache.item() <= 2**-9
    assert cos.item() > cos_cache.item()


def test_max_angle_errors_equals_one_at_a_time():
    m = torch.tensor([1, 7, 300, 65_519, 65_520, 10**6])
    combos = [(d, r) for d in ("float32", "float16", "bfloat16") for r in rc.RECIPES]
    many = rc.max_angle_errors(m, 64, 5e5, combos)
    for d, r in combos:
        one = rc.max_angle_error(m, 64, 5e5, d, r)
        for a, b in zip(many[d, r], one):
            assert torch.equal(a.isnan(), b.isnan())
            assert torch.equal(a.nan_to_num(), b.nan_to_num())
    with pytest.raises(ValueError, match="combos"):
        rc.max_angle_errors(m, 64, 5e5, [])
    with pytest.raises(ValueError, match="recipe"):
        rc.max_angle_errors(m, 64, 5e5, [("float16", "fast")])


def test_float32_angles_match_transformers_rotary_embedding():
    """transformers' own LlamaRotaryEmbedding (float32, float16, bfloat16 inputs): its
    inv_freq is ours bit for bit, and its cos at positions up to 7.8 10^6 is this recipe's
    cache exactly."""
    d, base = 64, 10_000.0
    rotary = llama_rotary(d, base)
    assert torch.equal(rotary.inv_freq, rc.transformers_inv_freq(d, base))
    positions = [0, 1, 1857, 65_521, 123_457, 999_999, 10**6, 7_777_777]
    pos = torch.tensor([positions])
    th64 = rc.theta(d, base)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        x = torch.zeros(1, len(positions), d, dtype=dtype)
        cos, _sin = rotary(x, pos)  # (1, P, d): half layout, pair i at i and i + d/2
        cos_hf = cos[0, :, : d // 2].double()  # (P, h)
        ref = torch.cos(torch.outer(torch.tensor(positions, dtype=torch.float64), th64))
        _, cos_err, _ = rc.angle_error(positions, d, base, dtype, "float32_angles")
        # ours = |cache - ref|: the same cache as transformers', to the last bit
        assert torch.equal((cos_hf - ref).abs(), cos_err)


def test_float32_angle_error_at_a_million_read_from_transformers():
    """Issue 19 item 8's figure, "about 0.05 rad at m = 10^6" (d = 128, base 10^4), read off
    transformers' own LlamaRotaryEmbedding: in float32 its cos and sin are those of its
    float32 angle (to ~1e-7), so atan2(sin, cos) minus the float64 angle, wrapped to
    (-pi, pi], is its angle error; the largest over pairs is this recipe's."""
    d, base, m = 128, 10_000.0, 10**6
    hf = float32_angles(llama_rotary(d, base), m)  # (h,)
    ref = m * rc.theta(d, base)  # (h,) float64
    wrapped = torch.remainder(hf - ref + math.pi, 2 * math.pi) - math.pi
    hf_err = float(wrapped.abs().max())
    assert 0.045 < hf_err < 0.055
    ours, _, _ = rc.max_angle_error(torch.tensor([m]), d, base, "float32", "float32_angles")
    assert ours.item() == pytest.approx(hf_err, abs=1e-5)


# ---------------------------------------------------------------- issue 27: the error's parts

@given(half=st.integers(1, 64), base=st.floats(1.5, 1e7), m=st.integers(0, 10**7))
def test_float32_angle_parts_add_up_to_the_recipe_error(half, base, m):
    """offset + rounding is the float32_angles error (a second formulation: the recipe's own
    angle_error); the rounding is at most half float32's spacing at m th32_i, and pair 0
    (theta_0 = 1, m < 2^24 exact in float32) has neither."""
    dim = 2 * half
    offset, rounding = rc.float32_angle_parts(m, dim, base)
    err, _, _ = rc.angle_error([m], dim, base, "float32", "float32_angles")
    # the two sides differ by float64 roundings of angles up to m rad
    assert torch.allclose((offset + rounding).abs(), err[0], rtol=0, atol=8 * 2.0**-53 * max(m, 1))
    th32 = rc.transformers_inv_freq(dim, base).double()
    for x, r in zip((m * th32).tolist(), rounding.tolist()):  # m th32_i, exact in float64
        if x > 0:  # float32's spacing on x's binade [2^e, 2^(e+1)) is 2^(e - 23)
            assert abs(r) <= 2.0 ** (math.frexp(x)[1] - 1 - 23) / 2
    assert offset[0].item() == 0.0 and rounding[0].item() == 0.0


def test_float32_angle_parts_validation():
    with pytest.raises(ValueError, match="^position"):
        rc.float32_angle_parts(-1, 8, 100)
    with pytest.raises(ValueError, match="^position"):
        rc.float32_angle_parts(10**7 + 1, 8, 100)
    with pytest.raises(ValueError, match="^largest_position"):
        rc.relative_rounding_bound(8, 100, 1.5)


@given(recipe=st.sampled_from(["positions", "theta", "product", "cache"]),
       half=st.integers(1, 64), base=st.floats(1.5, 1e7), m=st.integers(0, 10**4),
       gap=st.integers(0, 10**3), shifts=st.lists(st.integers(0, 10**6), min_size=1, max_size=4))
def test_relative_rounding_bound_holds_in_float64_and_for_a_rounded_theta(
        recipe, half, base, m, gap, shifts):
    """The bound is what the docstring derives; float64 stays inside it with every recipe
    but float32_angles, and recipe theta in every dtype (the rounded theta_i is the same at
    both positions: sum_i 2 cos((n - m) fl(theta_i)) in exact arithmetic)."""
    dim = 2 * half
    P = m + gap + max(shifts)
    bound = rc.relative_rounding_bound(dim, base, P)
    u = 2.0**-53
    th = [base ** (-2 * i / dim) for i in range(half)]
    by_hand = 2 * sum(2 * (4 * u * (P * t + 2) + 3 * u) for t in th) + dim * u * 2 * half
    assert bound == pytest.approx(by_hand, rel=1e-9)
    got = rc.relative_property_error(dim, base, "float64", recipe, m, m + gap, shifts)
    assert float(got.max()) <= bound
    for dtype in ("float32", "float16", "bfloat16"):
        got = rc.relative_property_error(dim, base, dtype, "theta", m, m + gap, shifts)
        assert float(got.max()) <= bound


@given(theta=st.lists(st.floats(1e-7, 4.0), min_size=1, max_size=4),
       length=st.integers(1, 3000), name=st.sampled_from(["bfloat16", "float16", "float32"]))
def test_distinct_cos_sin_counts_what_a_set_holds(theta, length, name):
    """A second formulation: the set of (cos, sin) tuples of the cast values."""
    th = torch.tensor(theta, dtype=torch.float64)
    got = rc.distinct_cos_sin(th, length, name)
    dtype = rc.resolve_dtype(name)
    m = torch.arange(length, dtype=torch.float32)
    for i, t in enumerate(th.to(torch.float32).tolist()):
        a = m * t
        values = set(zip(torch.cos(a).to(dtype).tolist(), torch.sin(a).to(dtype).tolist()))
        assert got[i].item() == len(values)


def test_distinct_cos_sin_by_hand_and_validation():
    # pair 0 of base 10^4 turns every 2π tokens: over 3 positions, three distinct values;
    # theta = 0 (an unrotated pair) has the single value (1, 0)
    assert rc.distinct_cos_sin(torch.tensor([1.0, 0.0]), 3).tolist() == [3, 1]
    with pytest.raises(ValueError, match="^length"):
        rc.distinct_cos_sin(torch.tensor([1.0]), 0)
    with pytest.raises(ValueError, match="^length"):
        rc.distinct_cos_sin(torch.ones(64), 2**24)
    with pytest.raises(ValueError, match="^dtype"):
        rc.distinct_cos_sin(torch.tensor([1.0]), 3, "float64")
    with pytest.raises(ValueError, match="^theta"):
        rc.distinct_cos_sin([1.0], 3)
