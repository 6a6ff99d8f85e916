"""rope_core.limits.breaks against independent derivations (closed forms, hand arithmetic).

Nothing here is a pasted output of the module: each expected number is worked
out below from the definitions (math.cos sums, powers of two, the closed form
of Liu et al.'s critical dimension, the published constants of the papers).
"""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core.limits.breaks as br


def cos_sum_by_hand(m, dim, base):
    return sum(math.cos(m * base ** (-2 * i / dim)) for i in range(dim // 2))


def test_ood_angles_plain_and_linear_by_hand():
    t = br.ood_angle_table(8, 100.0, 100, 4.0, ("none", "linear"))
    assert list(t.columns[:5]) == ["dim", "base", "train context L [tokens]", "factor s",
                                   "method"]
    none = t[t["method"] == "none"].set_index("pair i")
    lin = t[t["method"] == "linear"].set_index("pair i")
    # theta_i = 100^(-i/4): 1, 100^-0.25, 0.1, 100^-0.75
    th = [1.0, 100 ** -0.25, 0.1, 100 ** -0.75]
    for i, ti in enumerate(th):
        assert none.loc[i, "train max angle [rad]"] == pytest.approx(100 * ti, rel=1e-12)
        assert none.loc[i, "inference max angle [rad]"] == pytest.approx(400 * ti, rel=1e-12)
        # linear: theta / 4, so inference at 4L reaches exactly the training angle
        assert lin.loc[i, "inference max angle [rad]"] == pytest.approx(100 * ti, rel=1e-12)
        assert lin.loc[i, "wavelength [tokens]"] == pytest.approx(2 * math.pi * 4 / ti)
    # L theta_i < 2 pi only for pair 3 (100 * 0.0316 = 3.16); pair 2: 100 * 0.1 = 10 > 2 pi
    assert none["unseen"].tolist() == [False, False, False, True]
    assert not lin["unseen"].any()


def test_liu_llama2_critical_dimension_closed_form():
    # 64 * ln(4096 / 2 pi) / ln(10^4) = 64 * 6.4797 / 9.2103 = 45.03 -> ceil 46 -> 92
    x = 64 * math.log(4096 / (2 * math.pi)) / math.log(1e4)
    assert 45 < x < 46
    row = br.liu_comparison_table().iloc[0]
    assert row["paper critical dimension"] == 92 == row["app critical dimension"]
    assert row["matches"] and row["difference"] == 0
    summary = br.liu_summary(128, 1e4, 4096, 1e6)
    assert summary["critical_pair"] == 46
    # 2 pi * (10^6)^(92/128) = 2 pi * 10^(4.3125)
    assert summary["limit_at_new_base"] == pytest.approx(2 * math.pi * 10 ** 4.3125, rel=1e-12)


def test_cos_sum_curve_d4_by_hand():
    t = br.cos_sum_curve(4, 100.0, 10)
    B = t.set_index("distance m [tokens]")["B_m"]
    assert B[0] == 2.0  # d/2
    for m in (1, 2, 7):  # d = 4: cos(m) + cos(m / 10)
        assert B[m] == pytest.approx(math.cos(m) + math.cos(m / 10), abs=1e-13)
    # a sampled curve that is no exact progression (round(t * 4096 / 999): steps 4 and 5),
    # each value against the direct sum
    rounded = br.cos_sum_curve(128, 1e4, 4096, points=1000)
    ms = rounded["distance m [tokens]"].tolist()
    assert ms[0] == 0 and ms[-1] == 4096 and len(ms) == 1000
    assert sorted({b - a for a, b in zip(ms, ms[1:])}) == [4, 5]
    for m, value in zip(ms[::37], rounded["B_m"].tolist()[::37]):
        assert value == pytest.approx(cos_sum_by_hand(m, 128, 1e4), abs=1e-11), m
    sampled = br.cos_sum_curve(128, 1e4, 100_000, points=101)
    assert sampled["distance m [tokens]"].tolist() == list(range(0, 100_001, 1000))
    row = sampled.iloc[37]
    assert row["B_m"] == pytest.approx(cos_sum_by_hand(37_000, 128, 1e4), abs=1e-9)


def test_liu_limit_only_for_a_larger_base_after_fine_tuning():
    """Issue 19 item 1: the bound is for fine-tuning with a LARGER base; the page once
    reported 547 tokens for base 500 (2 pi 500^(92/128) = 547)."""
    assert round(2 * math.pi * 500 ** (92 / 128)) == 547
    smaller = br.liu_summary(128, 1e4, 4096, 500)
    assert smaller["limit_at_new_base"] is None and smaller["new_base_case"] == "smaller"
    same = br.liu_summary(128, 1e4, 4096, 1e4)
    assert same["limit_at_new_base"] is None and same["new_base_case"] == "same"
    larger = br.liu_summary(128, 1e4, 4096, 1e5)
    assert larger["new_base_case"] == "larger"
    assert larger["limit_at_new_base"] == pytest.approx(2 * math.pi * 1e5 ** (92 / 128))


def test_island_table_and_bound_from_the_precomputed_table():
    r = br.base_bound(128, 2048)
    t = br.island_table(128, 2048)
    assert list(t.columns[:2]) == ["dim", "context L [tokens]"]
    assert t["first base"].iloc[0] == r["smallest"]
    assert (t["last base"] < r["threshold"]).all()
    # width bound of one island: (first / 1.001, last * 1.001), by hand
    row = t.iloc[0]
    assert row["width below [%]"] == pytest.approx(
        100 * (row["last base"] * 1.001 / (row["first base"] / 1.001) - 1))
    # the first island at d = 128, L = 2048 holds 11,588.4 (issue 18), by hand:
    assert all(cos_sum_by_hand(m, 128, 11588.4) >= 0 for m in range(0, 2048, 1))
    assert row["first base"] / 1.001 <= 11588.4 <= row["last base"] * 1.001
    with pytest.raises(ValueError, match="context=3000"):
        br.base_bound(128, 3000)  # not precomputed, live=False


def test_men_fit_published_constants():
    assert br.men_fit_base(1000) == pytest.approx(0.0424 * 1000 ** 1.628, rel=1e-15)
    t = br.base_bound_table(128, [1024])
    assert t.loc[0, "paper fit base"] == pytest.approx(0.0424 * 1024 ** 1.628, rel=1e-12)
    b = t.loc[0, "app min base"]
    assert t.loc[0, "ratio app/fit"] == pytest.approx(b / (0.0424 * 1024 ** 1.628))
    # the app's minimum passes at every m < 1024 (math.cos by hand), one grid step below fails
    assert all(cos_sum_by_hand(m, 128, b) >= -1e-12 for m in range(1024))
    assert any(cos_sum_by_hand(m, 128, b / 1.001) < 0 for m in range(1024))


def test_preset_table_llama2_first_negative():
    t = br.preset_bound_table(["Llama 2 7B"])
    assert list(t["group"]) == ["RoPE, full attention"] and list(t["layers"]) == [32]
    assert list(t["context L [tokens]"]) == [4096]
    neg = int(t["first negative distance [tokens]"].iloc[0])
    # independently: B_m >= 0 just before, < 0 at the first negative distance
    assert cos_sum_by_hand(neg, 128, 1e4) < 0
    assert all(cos_sum_by_hand(m, 128, 1e4) >= 0 for m in range(neg - 50, neg))
    assert not t["passes"].any()  # 4096 > neg
    assert (t["B_0"] == 64).all()


def test_preset_table_per_layer_group_by_hand():
    """Each rotating group over the distances it meets, with its own spectrum: Command R7B's
    RoPE layers over their window of 4,096 (its NoPE layers have no row); Gemma 3's local
    layers over 1,024 at base 10^4, its global ones over 131,072 with base 10^6 / 8; Llama
    3.1 8B's llama3 spectrum over 131,072."""
    t = br.preset_bound_table(["Command R7B", "Gemma 3 4B", "Llama 3.1 8B"])
    assert list(zip(t["preset"], t["context L [tokens]"], t["layers"])) == [
        ("Command R7B", 4096, 24), ("Gemma 3 4B", 1024, 29), ("Gemma 3 4B", 131072, 5),
        ("Llama 3.1 8B", 131072, 32)]
    assert t.iloc[0]["passes"] and t.iloc[0]["min B_m"] == pytest.approx(
        min(cos_sum_by_hand(m, 128, 5e4) for m in range(4096)), rel=1e-9)
    local = t.iloc[1]
    assert local["passes"] and local["min B_m"] == pytest.approx(
        min(cos_sum_by_hand(m, 256, 1e4) for m in range(1024)), rel=1e-9)
    llama = t.iloc[3]
    m = int(llama["first negative distance [tokens]"])
    # llama3 (factor 8, low 1, high 4, L 8192): wavelengths over 8192 divided by 8, under
    # 2048 kept, between them blended
    theta = []
    for i in range(64):
        w = 2 * math.pi * 5e5 ** (i / 64)
        if w < 2048:
            theta.append(5e5 ** (-i / 64))
        elif w > 8192:
            theta.append(5e5 ** (-i / 64) / 8)
        else:
            smooth = (8192 / w - 1) / (4 - 1)
            theta.append((1 - smooth) * 5e5 ** (-i / 64) / 8 + smooth * 5e5 ** (-i / 64))
    b = sum(math.cos(m * t_) for t_ in theta)
    assert b < 0 and b >= llama["min B_m"] - 1e-9
    assert not llama["passes"] and llama["negative distances"] > 0


def test_preset_table_qwen25_depth_and_count():
    """Issue 19 item 5: Qwen2.5 7B fails on 4 of 32,768 distances at -0.78 against B_0 = 64."""
    t = br.preset_bound_table(["Qwen2.5 7B"]).iloc[0]
    assert t["context L [tokens]"] == 32768 and t["B_0"] == 64
    assert t["negative distances"] == 4 and round(t["min B_m"], 2) == -0.78
    m = int(t["first negative distance [tokens]"])
    assert cos_sum_by_hand(m, 128, 1e6) < 0


def test_spacing_and_first_inexact_by_hand():
    t = br.spacing_table(1000, ("bfloat16", "float16"))
    bf = t[t["dtype"] == "bfloat16"].set_index("position m [tokens]")
    # bfloat16 has 8 significant bits: spacing 1 on [128, 256), 2 on [256, 512), 4 on [512, 1024)
    for lo, gap in ((128, 1), (256, 2), (512, 4)):
        rows = bf[(bf.index >= lo) & (bf.index < 2 * lo)]
        assert len(rows) > 10 and (rows["spacing [tokens]"] == gap).all()
    assert bf.loc[1000, "held position [tokens]"] == 1000  # multiple of 4
    first = br.first_inexact_table().set_index("dtype")
    assert first.loc["float16", "first inexact position [tokens]"] == 2**11 + 1 == 2049
    assert first.loc["bfloat16", "first inexact position [tokens]"] == 257
    # 257: a tie between 256 and 258, rounded to the even significand
    assert first.loc["bfloat16", "held as [tokens]"] == 256


def test_error_table_theta_recipe_by_hand():
    t = br.error_table(2, 10.0, 100, dtypes=("bfloat16",), recipes=("theta", "cache"),
                       points=50)
    theta = t[t["recipe"] == "theta"].set_index("position m [tokens]")
    # d = 2: theta_0 = 1 is exact in bfloat16, so every angle is exact
    assert (theta["max angle error [rad]"] == 0).all()
    cache = t[t["recipe"] == "cache"]
    assert (cache["max angle error [rad]"] == 0).all()
    # bfloat16 rounding of a value in [0.5, 1]: at most half of 2^-8, plus float32 double rounding
    assert (cache["max cos error"] <= 2**-9 + 2**-24).all()


def test_relative_table_float64_zero_low_precision_not():
    t = br.relative_table(64, 1e4, 0, 10, 5000, "positions", points=50)
    worst = t.groupby("dtype")["score difference"].max()
    assert worst["float64"] < 1e-9
    assert worst["bfloat16"] > 1e-3
    assert (t[t["shift D [tokens]"] == 0]["score difference"] == 0).all()


def test_neox_issue_numbers_recomputed():
    t = br.neox_issue_table()
    assert t["agrees"].all()
    # by hand: theta_1 = 10^4^(-1/16) = 0.562341; in float16 (spacing 2^-11 on [0.5, 1)):
    # round(0.562341 * 2048) / 2048 = 1152 / 2048 = 0.5625; 1857 * 0.5625 = 1044.5625,
    # float16 spacing 1 on [1024, 2048) -> 1045
    assert round(10_000 ** (-1 / 16) * 2048) == 1152
    assert t.loc[1, "app"] == round(1857 * 1152 / 2048) == 1045


@pytest.mark.parametrize("bad", [
    lambda: br.ood_angle_table(128, 1e4, 0, 2.0),
    lambda: br.ood_angle_table(128, 1e4, 4096, 0.5),
    lambda: br.ood_angle_table(128, 1e4, 4096, 2.0, ("longrope",)),
    lambda: br.spacing_table(10**8),
    lambda: br.spacing_table(100, ("float8",)),
    lambda: br.error_table(128, 1e4, 100, recipes=("fast",)),
    lambda: br.check_context_work(1024, 2**20),
    lambda: br.base_bound(128, 0),
])
def test_bad_input_names_parameter(bad):
    with pytest.raises(ValueError, match="is not allowed"):
        bad()


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 10**6))
def test_held_position_is_nearest_representable(m):
    t = br.spacing_table(m, ("bfloat16",), points=2)
    row = t.iloc[-1]
    gap = row["spacing [tokens]"]
    # the held value is a multiple of the spacing, within half a spacing of m
    assert row["held position [tokens]"] % gap == 0
    assert abs(row["held position [tokens]"] - m) <= gap / 2


@settings(max_examples=20, deadline=None)
@given(dim=st.integers(1, 64).map(lambda h: 2 * h), L=st.integers(1, 10**5))
def test_critical_pair_is_half_the_even_critical_dimension(dim, L):
    s = br.liu_summary(dim, 1e4, L, 1e5)
    assert s["critical_dimension"] % 2 == 0 and 0 <= s["critical_dimension"] <= dim
    assert s["critical_pair"] * 2 == s["critical_dimension"]


def test_log_positions_bounds():
    m = br.log_positions(10**6)
    assert m[0] == 1 and m[-1] == 10**6 and len(m) <= 2000
    assert bool((m[1:] > m[:-1]).all()) and m.dtype == torch.int64


def test_ntk_slowest_pair_is_not_counted_unseen():
    # d = 128, base 1e4, L = 4096, s = 64. In training, pair i finishes no turn when
    # L theta_i < 2 pi, i.e. i >= 46 (64 * log(4096 / 2 pi) / log(1e4) = 45.03): 18 pairs.
    # NTK: theta'_i = theta_i * s^(-2i/(d-2)), so s L theta'_i > L theta_i exactly when
    # s^(1 - 2i/126) > 1, i.e. i < 63. The slowest pair i = 63 lands exactly on its
    # training range (equal, not beyond): unseen are i = 46 ... 62, 17 pairs.
    df = br.ood_angle_table(128, 10_000.0, 4096, 64, ("ntk",))
    unseen = df[df["method"] == "ntk"]["unseen"]
    assert int(unseen.sum()) == 17
    assert not bool(unseen.iloc[63])


def test_neox_rounding_steps_by_hand():
    """theta_1 = 10^4^(-2/32) = 10^(-1/4); fl16 (spacing 2^-11 on [0.5, 1)) gives 1152/2048
    = 0.5625; 1857 * 0.5625 = 1044.5625; fl16 (spacing 1 on [1024, 2048)) gives 1045."""
    steps = br.neox_rounding_steps()
    assert steps["theta"] == pytest.approx(10 ** -0.25, rel=1e-15)
    assert steps["theta float16"] == 1152 / 2048
    assert steps["product"] == 1044.5625
    assert steps["held"] == 1045.0
    assert steps["exact angle"] == pytest.approx(1857 * 10 ** -0.25, rel=1e-15)
    assert steps["error"] == pytest.approx(1045 - 1857 * 10 ** -0.25, rel=1e-12)


def test_ood_dynamic_is_compared_at_alpha_s():
    """Issue 19 item 4: the breaks table evaluates dynamic NTK at n = s L with transformers'
    factor 1 (alpha = s), so its angles equal static NTK's; item 7: at d = 128, base 10^4,
    L = 4096, s = 8, 18 pairs never turn in training (2 pi 10^4^(2i/128) > 4096 for
    i >= 46) and NTK brings back only the slowest one, linear, YaRN and Llama 3.1 all."""
    t = br.ood_angle_table(128, 1e4, 4096, 8.0)
    by = {m: b.reset_index(drop=True) for m, b in t.groupby("method", sort=False)}
    assert by["dynamic"]["inference max angle [rad]"].to_numpy() == pytest.approx(
        by["ntk"]["inference max angle [rad]"].to_numpy(), rel=1e-12)
    unseen = {m: int(b["unseen"].sum()) for m, b in by.items()}
    assert unseen == {"none": 18, "linear": 0, "ntk": 17, "dynamic": 17, "yarn": 0,
                      "llama3": 0}


def test_liu_expression_at_the_training_base_is_the_critical_pairs_period():
    """The page shows 2 pi base^(d_extra/d) at the training base as the period of pair
    d_extra/2 (the first that never completes a turn in training), not as a limit: for
    LLaMA 2 it is 2 pi 10^(4 * 92/128) = 2 pi 10^2.875 = 4,711.7 (pair 45's period,
    2 pi 10^2.8125 = 4,083.6, is under L = 4,096); for base 500 every pair turns
    (d_extra = d) and the expression is 2 pi 500 = 3,141.6, shorter than L itself."""
    s = br.liu_summary(128, 1e4, 4096, 1e4)
    assert s["limit_at_base"] == pytest.approx(2 * math.pi * 10**2.875, rel=1e-12)
    assert 2 * math.pi * 10**2.8125 < 4096 < s["limit_at_base"]
    t = br.ood_angle_table(128, 1e4, 4096, 1.0, ("none",))
    wavelength = t.set_index("pair i")["wavelength [tokens]"]
    assert wavelength[s["critical_pair"]] == pytest.approx(s["limit_at_base"], rel=1e-12)
    small = br.liu_summary(128, 500.0, 4096, 1e4)
    assert small["critical_dimension"] == 128
    assert small["limit_at_base"] == pytest.approx(2 * math.pi * 500, rel=1e-12)
    assert small["limit_at_base"] < 4096


def test_which_methods_keep_every_pair_inside_by_hand():
    """d = 128, base 10^4, L = 4,096, s = 8 (issue 19 item 7). Pair i never turns in
    training when 2 pi 10^(4 i/64) > 4096, i.e. i > 64 log10(4096/2pi)/4 = 45.03: pairs
    46 ... 63, 18 of them (no scaling: all unseen). Static NTK (transformers: base
    s^(d/(d-2))) gives s theta'_i = theta_i s^(1 - 2i/126) > theta_i for i < 63: 17 pairs;
    dynamic NTK at n = s L with factor 1 has alpha = s, the same base, so 17 too. Linear
    (theta/s), YaRN and Llama 3.1 (pairs with wavelength > L divided by exactly s) bring
    every never-turning pair back to s L theta_i / s = L theta_i: 0."""
    t = br.ood_angle_table(128, 1e4, 4096, 8.0, br.OOD_METHODS)
    counts = t.groupby("method")["unseen"].sum().to_dict()
    assert counts == {"none": 18, "ntk": 17, "dynamic": 17, "linear": 0, "yarn": 0,
                      "llama3": 0}
    # the counts alone (the page's sentence), without the table: the same numbers
    assert br.ood_unseen_counts(128, 1e4, 4096, 8.0) == counts
    assert list(br.ood_unseen_counts(128, 1e4, 4096, 8.0, ("yarn", "none", "yarn"))) == \
        ["yarn", "none"]


@settings(max_examples=25, deadline=None)
@given(half=st.integers(1, 512), base=st.sampled_from([10.0, 1e4, 5e5, 1e8]),
       L=st.sampled_from([512, 4096, 131072]), s=st.sampled_from([1.0, 2.0, 8.0, 64.0]))
def test_unseen_counts_are_the_tables_sums(half, base, L, s):
    t = br.ood_angle_table(2 * half, base, L, s, br.OOD_METHODS)
    sums = {m: int(t.loc[t["method"] == m, "unseen"].sum()) for m in br.OOD_METHODS}
    assert br.ood_unseen_counts(2 * half, base, L, s) == sums


def test_unseen_counts_validation():
    with pytest.raises(ValueError):
        br.ood_unseen_counts(128, 1e4, 4096, 0.5)
    with pytest.raises(ValueError):
        br.ood_unseen_counts(128, 1e4, 4096, 2.0, ("longrope",))


def test_trained_with_a_larger_base_more_pairs_meet_new_angles_past_L():
    """Frequencies page: trained from the start with a larger base, a pair that never turns
    still meets new angles right after L. d = 128, L = 4,096, s = 2, no scaling: pair i never
    turns when i > 64 ln(4096/2pi)/ln(base): 45.03 at 10^4 (pairs 46 ... 63, 18 of them),
    30.02 at 10^6 (pairs 31 ... 63, 33): every one of them is unseen at 2L."""
    for base, first, count in ((1e4, 46, 18), (1e6, 31, 33)):
        x = 64 * math.log(4096 / (2 * math.pi)) / math.log(base)
        assert math.ceil(x) == first and 64 - first == count
        t = br.ood_angle_table(128, base, 4096, 2.0, ("none",))
        assert t.loc[t["unseen"], "pair i"].tolist() == list(range(first, 64))


@pytest.mark.parametrize("dim,base,L,s", [(128, 1e4, 4096, 8), (128, 1e4, 512, 64),
                                          (64, 5e5, 8192, 4)])
def test_ood_unseen_counts_dynamic_factor_closed_form(dim, base, L, s):
    """Issue 27 item 11: dynamic NTK with transformers' factor f at n = s L has
    alpha = f s - f + 1 and theta'_i = theta_i alpha^(-2i/(d-2)) (the NTK base
    base alpha^(d/(d-2))); unseen_i = L theta_i < 2 pi and s L theta'_i > L theta_i."""
    for f in (1.0, float(s)):
        alpha = f * s - f + 1
        expected = 0
        for i in range(dim // 2):
            th = base ** (-2 * i / dim)
            th2 = th * alpha ** (-2 * i / (dim - 2))
            expected += L * th < 2 * math.pi and s * L * th2 > L * th * (1 + 1e-9)
        got = br.ood_unseen_counts(dim, base, L, float(s), ("dynamic",), dynamic_factor=f)
        assert got == {"dynamic": expected}


def test_preset_table_whole_head_counts_pass_through_pairs():
    """Review of issue 26, item 6: Men et al.'s Theorem 1 treats every head component
    alike; a pass-through pair has theta = 0 and adds cos 0 = 1 to B_m. Gemma 4 31B's
    global layers rotate 128 of 512 dims (proportional RoPE, partial_rotary_factor 0.25,
    theta_i = 10^6^(-2i/512) for i < 64): the rotated pairs' sum dips below 0, the whole
    head's (192 pass-through + 64 rotated pairs) never below 192 - 64 = 128."""
    t = br.preset_bound_table(["Gemma 4 31B", "Llama 2 7B"])
    glob = t[(t["preset"] == "Gemma 4 31B") & (t["head dim"] == 512)].iloc[0]
    assert glob["rotary dim"] == 128 and glob["whole-head B_0"] == 256
    m = int(glob["first negative distance [tokens]"])
    rotated = sum(math.cos(m * 1e6 ** (-2 * i / 512)) for i in range(64))
    assert rotated < 0 and rotated + 192 >= 128
    assert glob["whole-head min B_m"] >= 128 and glob["whole-head passes"]
    assert not glob["passes"]
    # a whole-head rotation: the two columns agree
    llama = t[t["preset"] == "Llama 2 7B"].iloc[0]
    assert llama["whole-head B_0"] == llama["B_0"] == 64
    assert llama["whole-head min B_m"] == llama["min B_m"]
    assert not llama["whole-head passes"]


def test_tidy_is_the_concatenation_of_its_blocks():
    """breaks._tidy builds one frame from blocks of scalars and arrays: the very frame
    ``pd.concat`` of a frame per block makes (dtypes included; labels as Arrow takes)."""
    import numpy as np
    import pandas as pd

    from rope_core.limits.breaks import _tidy

    blocks = [{"method": name, "dtype": dtype, "factor": factor, "seen": seen,
               "position": np.arange(start, start + rows), "error": np.linspace(0, 1, rows)}
              for name, dtype, factor, seen, start, rows in [
                  ("none", "float16", 1.0, True, 0, 3), ("yarn", "bfloat16", 4.0, False, 7, 1),
                  ("none", "float32", 2.5, True, 2, 4)]]
    expected = pd.concat([pd.DataFrame(b) for b in blocks], ignore_index=True)
    pd.testing.assert_frame_equal(_tidy(blocks), expected, check_exact=True)
