"""rope_core.limits.compare: side-by-side tables of models and context-extension methods.

Expected numbers are derived by hand here: theta_i = base^(-2i/d) written out
with math.pow, the Llama 3.1 bands from the wavelength thresholds L/4 and L,
bound(0) = (d/2 + 1)/2, the all-ones score 2 sum cos(r theta_i) plus the
pass-through coordinates, YaRN's 0.1 ln s + 1, dynamic NTK's base at n = s L,
and the softmax exp(a^2 z_j) / sum_k exp(a^2 z_k).
"""

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core.limits import compare

LLAMA2, LLAMA31, QWEN_YARN = (rc.PRESETS[n] for n in
                              ("Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B (YaRN 128K)"))
NEOX, PHI = rc.PRESETS["GPT-NeoX-20B"], rc.PRESETS["Phi-3.5 mini"]


def custom(dim=128, base=10_000.0, L=4096, head_dim=None):
    return rc.RopeConfig(name="custom", head_dim=head_dim or dim, rotary_dim=dim, base=base,
                         layout="interleaved", original_context=L, max_context=L)


@pytest.mark.parametrize("name", list(rc.PRESETS))
def test_config_key_round_trip(name):
    cfg = rc.PRESETS[name]
    key = compare.config_key(cfg)
    assert compare.config_from_key(key) == cfg
    hash(key)  # a plain, hashable cache key


def test_models_table_hand_values():
    t = compare.models_table([LLAMA2, QWEN_YARN, NEOX]).set_index("model")
    assert t.loc["Llama 2 7B", "longest wavelength [tokens]"] == \
        pytest.approx(2 * math.pi * 10_000 ** (126 / 128), rel=1e-12)
    a = 0.1 * math.log(4) + 1  # YaRN, s = 131072 / 32768 = 4
    assert t.loc["Qwen2.5 7B (YaRN 128K)", "attention factor"] == pytest.approx(a, rel=1e-12)
    assert t.loc["Qwen2.5 7B (YaRN 128K)", "logit multiplier"] == pytest.approx(a * a)
    assert t.loc["Qwen2.5 7B (YaRN 128K)", "scaling factor"] == 4.0
    assert (t.loc["GPT-NeoX-20B", "head dim"], t.loc["GPT-NeoX-20B", "rotary dims"]) == (96, 24)
    assert t.loc["Llama 2 7B", "parameters"] == "none"


def test_spectrum_llama2_and_llama31_bands():
    t = compare.spectrum_table([LLAMA2, LLAMA31])
    assert len(t) == 128 and set(t["model"]) == {"Llama 2 7B", "Llama 3.1 8B"}
    l2 = t[t["model"] == "Llama 2 7B"]
    for i in (0, 1, 17, 63):
        row = l2[l2["pair"] == i].iloc[0]
        assert row["theta [rad/token]"] == pytest.approx(math.pow(10_000, -2 * i / 128),
                                                         rel=1e-13)
        assert row["ratio theta/theta plain"] == pytest.approx(1.0, rel=1e-13)
    assert set(l2["regime"]) == {"kept"}
    l3 = t[t["model"] == "Llama 3.1 8B"].set_index("pair")
    # wavelength 2 pi 500000^(2i/128) below L/4 = 2048 kept, above L = 8192 divided by 8
    kept_below = 64 * math.log(2048 / (2 * math.pi)) / math.log(500_000)  # 28.2
    divided_above = 64 * math.log(8192 / (2 * math.pi)) / math.log(500_000)  # 34.99
    for i in range(64):
        plain = 500_000 ** (-2 * i / 128)
        if i < kept_below:
            assert l3.loc[i, "regime"] == "kept"
            assert l3.loc[i, "theta [rad/token]"] == pytest.approx(plain, rel=1e-13)
        elif i > divided_above:
            assert l3.loc[i, "regime"] == "interpolated"
            assert l3.loc[i, "ratio theta/theta plain"] == pytest.approx(1 / 8, rel=1e-12)
        else:
            assert l3.loc[i, "regime"] == "blended"
    assert compare.regime_runs(list(l3["regime"])) == [
        ("kept", 0, 28), ("blended", 29, 34), ("interpolated", 35, 63)]


def test_decay_table_closed_forms():
    t = compare.decay_table([LLAMA2, NEOX, QWEN_YARN])
    for name, block in t.groupby("model"):
        first = block.iloc[0]
        assert first["distance [tokens]"] == 0
        assert first["upper bound / bound(0)"] == pytest.approx(1.0, abs=1e-12)
        assert block["distance [tokens]"].iloc[-1] == rc.PRESETS[name].max_context
        assert len(block) <= compare.MAX_POINTS
    neox = t[t["model"] == "GPT-NeoX-20B"].set_index("distance [tokens]")
    assert neox.loc[0.0, "upper bound"] == pytest.approx((12 + 1) / 2, abs=1e-12)
    for r in (1.0, 5.0, 1000.0):  # 24 of 96 dims rotate: 2 sum cos + 72 unrotated ones
        by_hand = 2 * sum(math.cos(r * 10_000 ** (-2 * i / 24)) for i in range(12)) + 72
        assert neox.loc[r, "score q=k=1"] == pytest.approx(by_hand, abs=1e-9)
        assert neox.loc[r, "score q=k=1 / head dim"] == pytest.approx(by_hand / 96, abs=1e-11)
    a = 0.1 * math.log(4) + 1
    yarn = t[t["model"] == "Qwen2.5 7B (YaRN 128K)"]
    assert yarn["score q=k=1"].iloc[0] == pytest.approx(a * a * 128, rel=1e-12)


def test_distance_samples():
    assert compare.distance_samples(10).tolist() == list(range(11))
    r = compare.distance_samples(131_072)
    assert len(r) <= 2000 and r[0] == 0 and r[-1] == 131_072
    assert bool((r[1:] > r[:-1]).all()) and bool((r == r.round()).all())
    r = compare.distance_samples(10**7, "log")
    assert r[0] == 1 and r[-1] == 10**7 and len(r) <= 2000
    for bad in ({"max_distance": 0}, {"max_distance": 2.5}, {"axis": "sideways"},
                {"points": 1}):
        args = {"max_distance": 100, **bad}
        with pytest.raises(ValueError, match=next(iter(bad))):
            compare.distance_samples(**args)


def test_extension_variants_parameters():
    v = compare.extension_variants(custom(), 8)
    assert list(v) == ["none", "linear", "ntk", "dynamic", "yarn", "llama3"]  # no longrope
    assert all(c.max_context == 8 * 4096 and c.original_context == 4096 for c in v.values())
    assert v["linear"].params_dict == {"factor": 8.0}
    assert v["yarn"].params_dict == {"factor": 8.0, "original_max_position_embeddings": 4096}
    phi = compare.extension_variants(PHI, 32)
    assert "longrope" in phi and phi["longrope"].params == PHI.params
    own = compare.extension_variants(LLAMA31, 8)["llama3"]
    assert own.params == LLAMA31.params
    with pytest.raises(ValueError, match="factor"):
        compare.extension_variants(custom(), 0.5)
    with pytest.raises(ValueError, match="factor"):
        compare.extension_variants(custom(L=2**20), 64)  # s L beyond 10^7 tokens
    with pytest.raises(ValueError, match="methods"):
        compare.extension_variants(custom(), 8, ("cubic",))


def test_extension_tables_custom_hand_values():
    s, L, d, base = 8.0, 4096, 128, 10_000.0
    t = compare.extension_tables(custom(), s)
    for table in t.values():  # settings lead, the model name in every row
        assert list(table.columns[:3]) == ["model", "L [tokens]", "s"]
        assert (table["model"] == "custom").all() and (table["L [tokens]"] == L).all()
    sp = t["spectra"].set_index(["method", "pair"])
    assert sp.loc[("linear", 5), "ratio theta/theta plain"] == pytest.approx(1 / s, rel=1e-12)
    # static NTK: base' = base s^(d/(d-2)), so the last pair i = d/2 - 1 is divided by s
    assert sp.loc[("ntk", 63), "ratio theta/theta plain"] == pytest.approx(1 / s, rel=1e-12)
    assert sp.loc[("ntk", 0), "regime"] == "kept"
    # dynamic at n = s L with transformers' factor 1 (YaRN's definition): alpha = n / L = s,
    # base' = base s^(d/(d-2)) as static NTK, so the slowest pair is divided by exactly s
    alpha = s
    assert sp.loc[("dynamic", 63), "ratio theta/theta plain"] == \
        pytest.approx(1 / s, rel=1e-12)
    att = t["attention"].set_index("method")
    assert att.loc["yarn", "attention factor"] == pytest.approx(0.1 * math.log(s) + 1)
    assert att.loc["linear", "attention factor"] == 1.0
    dyn = t["dynamic"].set_index("sequence length [tokens]")
    assert (dyn["dynamic factor f"] == 1.0).all() and dyn.loc[s * L, "alpha"] == s
    assert dyn.loc[float(L), "effective base"] == base
    assert dyn.loc[s * L, "effective base"] == pytest.approx(base * alpha ** (d / (d - 2)),
                                                             rel=1e-12)
    assert dyn.loc[s * L, "longest wavelength [tokens]"] == pytest.approx(
        2 * math.pi * (base * alpha ** (d / (d - 2))) ** ((d - 2) / d), rel=1e-12)
    assert t["decay"]["distance [tokens]"].max() == s * L


@pytest.mark.parametrize("parts", [("decay",), ("spectra", "attention", "softmax"),
                                   ("softmax", "dynamic")])
def test_extension_tables_parts_are_the_whole_tables(parts):
    """A page computes the axis-free tables once: each part equals the full call's."""
    whole = compare.extension_tables(custom(), 4.0, "log")
    some = compare.extension_tables(custom(), 4.0, "log", parts=parts)
    assert set(some) == set(parts)
    for name in parts:
        pd.testing.assert_frame_equal(some[name], whole[name])


@pytest.mark.parametrize("parts", [(), "decay", ("decay", "cubic")])
def test_extension_tables_parts_checked(parts):
    with pytest.raises(ValueError, match="parts"):
        compare.extension_tables(custom(), 4.0, parts=parts)


def test_dynamic_with_transformers_factor_s():
    """f = s (transformers' factor set to the extension) gives alpha = f s - f + 1 at s L:
    57 at s = 8, the slowest pair divided by 57, not by s."""
    s, L, d, base = 8.0, 4096, 128, 10_000.0
    t = compare.extension_tables(custom(), s, dynamic_factor=s)
    sp = t["spectra"].set_index(["method", "pair"])
    assert sp.loc[("dynamic", 63), "ratio theta/theta plain"] == pytest.approx(1 / 57,
                                                                               rel=1e-12)
    assert sp.loc[("ntk", 63), "ratio theta/theta plain"] == pytest.approx(1 / s, rel=1e-12)
    dyn = t["dynamic"].set_index("sequence length [tokens]")
    assert dyn.loc[s * L, "alpha"] == 57.0
    assert dyn.loc[s * L, "effective base"] == pytest.approx(base * 57 ** (d / (d - 2)),
                                                             rel=1e-12)
    assert compare.extension_variants(custom(), s)["dynamic"].params_dict == {
        "factor": 1.0, "original_max_position_embeddings": L}


def test_softmax_table_closed_form():
    z = (2.0, 1.0, 0.5, 0.0, -1.0)
    a = 0.1 * math.log(8) + 1
    t = compare.softmax_table({"none": 1.0, "yarn": a}, z)
    assert len(t) == 10
    total = sum(math.exp(v) for v in z)
    sharp = sum(math.exp(a * a * v) for v in z)
    for j, v in enumerate(z):
        row = t[(t["method"] == "yarn") & (t["key"] == j)].iloc[0]
        assert row["weight"] == pytest.approx(math.exp(v) / total, rel=1e-12)
        assert row["weight with factor"] == pytest.approx(math.exp(a * a * v) / sharp,
                                                          rel=1e-12)
    plain = t[t["method"] == "none"]
    assert (plain["weight"] == plain["weight with factor"]).all()
    for bad in ({"x": 0.0}, {"x": math.inf}, {}):
        with pytest.raises(ValueError, match="factors"):
            compare.softmax_table(bad, z)
    with pytest.raises(ValueError, match="logits"):
        compare.softmax_table({"x": 1.0}, [math.nan])


def test_regime_runs_and_bad_inputs():
    assert compare.regime_runs([]) == []
    assert compare.regime_runs(["kept"]) == [("kept", 0, 0)]
    with pytest.raises(ValueError, match="regimes"):
        compare.regime_runs("kept")
    with pytest.raises(ValueError, match="configs"):
        compare.models_table([])
    with pytest.raises(ValueError, match="configs"):
        compare.spectrum_table(["Llama 2 7B"])
    with pytest.raises(ValueError, match="key"):
        compare.config_from_key(("x",))


def test_every_preset_tables_are_finite():
    for cfg in rc.PRESETS.values():
        s = compare.scaling_factor(cfg)
        tables = compare.extension_tables(cfg, s if s > 1 else 4.0, "log")
        for table in tables.values():
            numbers = table.select_dtypes("number")
            assert not numbers.isna().any().any() and (numbers.abs() < math.inf).all().all()
        assert isinstance(tables["spectra"], pd.DataFrame)


# --- layers, Llama 4's temperature, how far an extension runs (issue 20, issue 19.2) ------

def test_layer_table_by_hand():
    t = compare.layer_table([rc.PRESETS["Gemma 3 4B"], rc.PRESETS["Command R7B"]])
    g = t[t["model"] == "Gemma 3 4B"].set_index("layer")
    assert len(g) == 34 and list(g.loc[[0, 5], "group"]) == ["RoPE, sliding window 1024",
                                                             "RoPE, full attention"]
    assert g.loc[0, "base"] == 1e4 and g.loc[5, "base"] == 1e6
    assert g.loc[0, "reach [tokens]"] == 1024 and g.loc[5, "reach [tokens]"] == 131072
    # local layer: base 10^4, d = 256: wavelength 2 pi 10^4^(2i/256) <= 1024 for
    # i <= floor(128 ln(1024 / 2 pi) / ln 10^4) = 70, so 71 pairs turn within the window
    assert g.loc[0, "pairs turning within reach"] == \
        math.floor(128 * math.log(1024 / (2 * math.pi)) / math.log(1e4)) + 1 == 71
    # global layer: base 10^6 divided by 8: 2 pi 8 10^6^(2i/256) <= 131072 for
    # i <= floor(128 ln(131072 / (16 pi)) / ln 10^6) = 72
    assert g.loc[5, "pairs turning within reach"] == \
        math.floor(128 * math.log(131072 / (16 * math.pi)) / math.log(1e6)) + 1
    c = t[t["model"] == "Command R7B"].set_index("layer")
    assert list(c["kind"][:4]) == ["rope", "rope", "rope", "nope"]
    assert math.isnan(c.loc[3, "base"]) and c.loc[3, "pairs turning within reach"] == 0
    assert c.loc[3, "group"] == "NoPE, full attention"
    assert c.loc[3, "reach [tokens]"] == 132096 and c.loc[0, "reach [tokens]"] == 4096
    assert len(compare.layer_table([rc.RopeConfig("x", 8, 8, 1e4)])) == 0  # no layers given


def test_group_table_by_hand():
    t = compare.group_table([rc.PRESETS["Gemma 3 4B"], rc.PRESETS["Qwen3-Next-80B-A3B"]])
    g = t[t["model"] == "Gemma 3 4B"].set_index("group")
    assert g.loc["RoPE, sliding window 1024", "layer list"] == \
        "0-4, 6-10, 12-16, 18-22, 24-28, 30-33"
    assert list(g["layers"]) == [29, 5] and list(g["reach [tokens]"]) == [1024, 131072]
    q = t[t["model"] == "Qwen3-Next-80B-A3B"].set_index("group")
    assert list(q.index) == ["linear_attention", "RoPE, full attention"]
    assert (q.loc["linear_attention", "pairs"], q.loc["RoPE, full attention", "pairs"]) == (0, 32)
    # series: one model, one rotating group -> the model's name; two -> "model | group"
    assert compare.series_name(rc.PRESETS["Qwen3-Next-80B-A3B"], "RoPE, full attention") == \
        "Qwen3-Next-80B-A3B"
    assert compare.series_name(rc.PRESETS["Gemma 3 4B"], "RoPE, full attention") == \
        "Gemma 3 4B | RoPE, full attention"


def test_query_scale_refuses_bad_input():
    # floor((p + 1) / 8192) = 0, 0, 1, 1280
    s = rc.query_scale("llama4", 8192, 0.1, [0, 8190, 8191, 10_485_759]).tolist()
    assert s == pytest.approx([1.0, 1.0, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(1281)],
                              rel=1e-15)
    with pytest.raises(ValueError, match="positions"):
        rc.query_scale("llama4", 8192, 0.1, [-1])
    with pytest.raises(ValueError, match="query_scale"):
        rc.query_scale("llama4", 8192, 0.0, [1])
    with pytest.raises(ValueError, match="rule"):
        rc.query_scale("temperature", 8192, 0.1, [1])


def test_extended_context_is_s_times_l_for_every_model():
    """Issue 27 item 2: one n = s L for every method, even past the configured context
    (the length each method's factor s aims at)."""
    llama32 = rc.PRESETS["Llama 3.2 1B"]  # s = 32, L = 8192, configured for 131072
    assert compare.extended_context(llama32, 32.0) == 32 * 8192
    variants = compare.extension_variants(llama32, 32.0)
    assert {v.max_context for v in variants.values()} == {32 * 8192}
    assert compare.extended_context(rc.PRESETS["Gemma 3 4B"], 8.0) == 8 * 32768  # not 131072
    assert compare.extended_context(rc.PRESETS["Llama 3.1 8B"], 8.0) == 8 * 8192
    assert compare.extended_context(rc.PRESETS["Llama 2 7B"], 8.0) == 8 * 4096  # chosen s
    assert compare.extended_context(rc.PRESETS["Llama 4 Scout"], 16.0) == 16 * 8192


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 64), base=st.floats(10.0, 1e7), window=st.integers(8, 10**6),
       every=st.integers(2, 6))
def test_layer_reach_is_the_closed_form(half, base, window, every):
    """A windowed RoPE layer of an unscaled model: the pairs that turn within its window
    are those with 2 pi base^(2i/d) <= window, i <= (d/2) ln(window / 2 pi) / ln base."""
    specs = tuple(rc.LayerSpec(rotates=False) if (i + 1) % every == 0 else
                  rc.LayerSpec(attention="sliding", window=window) for i in range(2 * every))
    cfg = rc.RopeConfig("h", 2 * half, 2 * half, base, original_context=10**7,
                        max_context=10**7, layer_specs=specs)
    t = compare.layer_table([cfg])
    rope = t[t["kind"] == "rope"]
    limit = half * math.log(window / (2 * math.pi)) / math.log(base)
    wavelengths = [2 * math.pi * base ** (i / half) for i in range(half)]
    if all(abs(w - window) > 1e-9 * window for w in wavelengths):  # not on a boundary
        expected = 0 if limit < 0 else min(half, math.floor(limit) + 1)
        assert set(rope["pairs turning within reach"]) == {expected}
    assert set(rope["reach [tokens]"]) == {window}
    assert set(t.loc[t["kind"] == "nope", "reach [tokens]"]) == {10**7}
