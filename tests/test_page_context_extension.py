"""AppTest checks of the Context extension page (pages/context_extension.py).

Expected numbers come from closed forms written out here: theta_i =
base^(-2i/d), linear's ratio 1/s, static NTK's slowest pair divided by s,
dynamic NTK at n = s L with transformers' factor 1 (alpha = s, YaRN's definition) and
with factor f (alpha = f s - f + 1: 57 at f = s = 8), YaRN's attention factor
0.1 ln s + 1 and the softmax exp(a^2 z) / sum exp(a^2 z), and Llama 3.1's
bands from the wavelength thresholds L/4 and L.
"""

import math
import re

import pytest
from apptest_helpers import assert_frozen_once, csvs_by, figure, run_page
from i18n_helpers import untranslated

import rope_core as rc

PAGE = "context_extension"
PARTS = ("spectra", "decay", "attention", "softmax", "dynamic", "ramps")


def csvs(at) -> dict:
    """{part: (file name, frame)} of the page's downloads (PARTS)."""
    return csvs_by(at, lambda name: name.split("_")[2], PARTS)


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_is_llama31_with_every_method(default_page):
    at = default_page
    assert not at.error and len(at.get("plotly_chart")) == 9
    files = csvs(at)
    for name, frame in files.values():
        assert "Llama-3-1-8B_L8192_s8" in name
        assert list(frame.columns[:3]) == ["model", "L [tokens]", "s"]
        assert (frame["model"] == "Llama 3.1 8B").all()
        assert all(c.isascii() for c in frame.columns)
        assert not any("[1]" in c for c in frame.columns)
    spectra = files["spectra"][1]
    assert list(dict.fromkeys(spectra["method"])) == ["none", "linear", "ntk", "dynamic",
                                                      "yarn", "llama3"]
    assert len(figure(at, 0)["data"]) == 6
    # Llama 3.1 (L = 8192, s = 8, base 500000, d = 128): pairs 0-28 kept, 29-34 blended,
    # 35-63 divided by 8, from 2 pi 500000^(2i/128) against 2048 and 8192
    ll = spectra[spectra["method"] == "llama3"].set_index("pair")
    for i in range(64):
        wavelength = 2 * math.pi * 500_000 ** (2 * i / 128)
        expected = "kept" if wavelength < 2048 else "interpolated" if wavelength > 8192 \
            else "blended"
        assert ll.loc[i, "regime"] == expected
    assert ll.loc[40, "theta [rad/token]"] == pytest.approx(500_000 ** (-80 / 128) / 8,
                                                            rel=1e-12)
    text = " ".join(m.value for m in at.markdown)
    assert "kept 0–28, blended 29–34, interpolated 35–63" in text
    for spec in rc.SCALINGS.values():  # every shown method is cited
        if spec.name != "longrope":
            assert spec.citation in text


def test_custom_settings_against_closed_forms():
    s, L, d, base = 4, 1024, 64, 10_000.0
    at = run_page(PAGE, {"ce_model": "sidebar settings", "ce_L": str(L), "ce_s": str(s),
                         "dim": str(d), "base": "10000"})
    assert not at.error
    files = csvs(at)
    sp = files["spectra"][1].set_index(["method", "pair"])
    assert (files["spectra"][1]["model"] == "sidebar settings").all()
    for i in (0, 7, 31):
        plain = base ** (-2 * i / d)
        assert sp.loc[("none", i), "theta [rad/token]"] == pytest.approx(plain, rel=1e-13)
        assert sp.loc[("linear", i), "theta [rad/token]"] == pytest.approx(plain / s, rel=1e-13)
    assert sp.loc[("ntk", 31), "ratio theta/theta plain"] == pytest.approx(1 / s, rel=1e-12)
    alpha = s  # transformers' factor 1: alpha = n / L = s at n = s L
    assert sp.loc[("dynamic", 31), "ratio theta/theta plain"] == pytest.approx(1 / alpha,
                                                                               rel=1e-12)
    att = files["attention"][1].set_index("method")
    a = 0.1 * math.log(s) + 1
    assert att.loc["yarn", "attention factor"] == pytest.approx(a, rel=1e-12)
    soft = files["softmax"][1]
    yarn = soft[soft["method"].str.contains("yarn")]
    z = list(yarn["logit"])
    total = sum(math.exp(a * a * v) for v in z)
    assert list(yarn["weight with factor"]) == pytest.approx(
        [math.exp(a * a * v) / total for v in z], rel=1e-12)
    dyn = files["dynamic"][1].set_index("sequence length [tokens]")
    assert dyn.loc[float(L), "effective base"] == base
    assert dyn.loc[float(s * L), "effective base"] == pytest.approx(
        base * alpha ** (d / (d - 2)), rel=1e-12)
    assert files["decay"][1]["distance [tokens]"].max() == s * L


def test_dynamic_factor_knob_and_pairs_outside():
    """Issue 19 items 4 and 7 at d = 128, base 10^4, L = 4096, s = 8. Item 7: 18 pairs
    never turn within L (2 pi 10^4^(2i/128) > 4096 for i >= 46); static NTK divides only
    the slowest by s, so 17 leave what training covered; linear, YaRN, Llama 3.1 keep all.
    Item 4: transformers' factor f = 8 gives alpha = 8 * 8 - 7 = 57 at s L."""
    d, base, L, s = 128, 10_000.0, 4096, 8
    assert sum(2 * math.pi * base ** (2 * i / d) > L for i in range(d // 2)) == 18
    at = run_page(PAGE, {"ce_model": "sidebar settings", "ce_L": str(L), "ce_s": str(s),
                         "dim": str(d), "base": "10000", "ce_dyn_f": "8"})
    assert not at.error
    text = " ".join(m.value for m in at.markdown)
    # the table of methods: the slowest pair's ratio and the pairs past training, per method
    past = dict(re.findall(r"^\| `(\w+)` \| [^|]+ \| (\d+) \|", text, re.M))
    assert past == {"none": "18", "linear": "0", "ntk": "17", "dynamic": "17", "yarn": "0",
                    "llama3": "0"}
    assert "Every pair stays inside with `linear`, `yarn`, `llama3`." in text
    # dynamic at s L (factor 1) is static NTK: the slowest pair divided by alpha = s
    assert "`ntk`: kept 0, blended 1–62, interpolated 63" in text
    assert "`dynamic`: kept 0, blended 1–62, interpolated 63" in text
    assert "α = f·n/L − (f − 1) = 57 at n = 32,768" in text
    assert "1/57 as fast instead of 1/8" in text
    dyn = csvs(at)["dynamic"][1]
    assert list(dyn.columns[:4]) == ["model", "L [tokens]", "s", "dynamic factor f"]
    end = dyn[dyn["sequence length [tokens]"] == s * L].set_index("dynamic factor f")
    assert end.loc[1.0, "alpha"] == s and end.loc[8.0, "alpha"] == 57
    assert end.loc[8.0, "effective base"] == pytest.approx(base * 57 ** (d / (d - 2)),
                                                           rel=1e-12)
    # YaRN's two ramps, from i(r) = d ln(L / (2 pi r)) / (2 ln base): low 20, high 46
    ramps = csvs(at)["ramps"][1].set_index("pair")
    for i in (19, 25, 30, 47):
        code = min(max((i - 20) / 26, 0.0), 1.0)
        r = L * base ** (-2 * i / d) / (2 * math.pi)
        paper = 1 - min(max((r - 1) / 31, 0.0), 1.0)
        assert ramps.loc[i, "ramp linear in i (app, transformers)"] == pytest.approx(code)
        assert ramps.loc[i, "ramp linear in r (paper)"] == pytest.approx(paper, rel=1e-9)
    assert "largest difference is at pair 30" in text and "38% divided by s here, 75%" in text


def test_distance_section_controls_rerun_it():
    """The distance axis and transformers' factor live in their own section (a fragment):
    changing them redraws the decay and dynamic figures, the spectra stay the same."""
    at = run_page(PAGE, {"ce_model": "sidebar settings"})
    before = figure(at, 0)
    at.radio(key="ce_axis").set_value("log")
    at.select_slider(key="ce_dyn_f").set_value(4)
    at.run()
    assert not at.error and not at.exception
    files = csvs(at)
    assert files["decay"][1]["distance [tokens]"].min() == 1  # log axis starts at 1
    end = files["dynamic"][1]
    end = end[end["sequence length [tokens]"] == 8 * 4096].set_index("dynamic factor f")
    assert end.loc[4.0, "alpha"] == 4 * 8 - 3  # f s - f + 1 = 29
    assert figure(at, 0) == before


@pytest.mark.parametrize("name", list(rc.PRESETS))
def test_every_preset_renders(name):
    at = run_page(PAGE, {"ce_model": name, "ce_axis": "log"})
    assert not at.error and len(at.get("plotly_chart")) == 9
    files = csvs(at)
    for _, frame in files.values():
        assert (frame["model"] == name).all()
    methods = set(files["spectra"][1]["method"])
    assert ("longrope" in methods) == (rc.PRESETS[name].method == "longrope")
    assert files["decay"][1]["distance [tokens]"].min() == 1  # log axis starts at 1


def test_preset_with_own_scaling_uses_its_factor():
    at = run_page(PAGE, {"ce_model": "DeepSeek-V3", "ce_s": "2"})
    files = csvs(at)
    _, spectra = files["spectra"]
    assert (spectra["s"] == 40).all() and (spectra["L [tokens]"] == 4096).all()
    assert files["decay"][1]["distance [tokens]"].max() == 40 * 4096


FIGURE_KEYS = {"ce_ratio_plot", "ce_wave_plot", "ce_regime_plot", "ce_ramp_plot",
               "ce_attention_plot",
               "ce_softmax_plot", "ce_dynamic_plot", "ce_bound_plot", "ce_score_plot"}


@pytest.mark.parametrize("query", [{}, {"ce_model": "sidebar settings", "ce_axis": "log",
                                        "dim": "64", "ce_s": "4"}])
def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch, query):
    assert_frozen_once(monkeypatch, PAGE, query, FIGURE_KEYS)


@pytest.mark.parametrize("query", [
    {"ce_model": "侧边栏设置", "ce_axis": "log", "ce_s": "4", "dim": "64"},
    {"ce_model": "Phi-3.5 mini"},
], ids=["sidebar settings, log axis", "Phi-3.5 mini"])
def test_chinese_other_settings(query):
    """The sidebar option (its link value is its Chinese label under ?lang=zh), the log
    axis and a model with its own LongRoPE scaling, in Chinese."""
    at = run_page(PAGE, {"lang": "zh", **query})
    assert not at.error and not at.first_warnings and len(at.get("plotly_chart")) == 9
    assert at.radio(key="ce_model").value == query["ce_model"].replace("侧边栏设置",
                                                                       "sidebar settings")
    assert untranslated(at) == {}


def test_llama32_extension_runs_to_s_l_past_its_configured_context():
    """Issue 27 item 2 (reverses issue 19.2): one n = s·L for every method, 32 × 8,192 =
    262,144, although the model is configured for 131,072; the caption says so."""
    at = run_page(PAGE, {"ce_model": "Llama 3.2 1B"})
    assert not at.error
    decay = csvs(at)["decay"][1]
    assert decay["distance [tokens]"].max() == 32 * 8192
    text = " ".join(m.value for m in at.caption)
    # L is where its llama3 scaling starts (original_max_position_embeddings), not a
    # training length: no source names Llama 3.2's
    assert ("Llama 3.2 1B: L = 8,192 tokens, where its own scaling starts "
            "(`original_max_position_embeddings`)") in text.replace("\\", "")
    assert "trained" not in text
    assert "n = s·L = 262,144 tokens is beyond the 131,072 tokens" in text


def test_configured_context_is_not_called_training():
    # Mistral 7B v0.3: no source gives a training context (presets.TRAINING)
    assert rc.PRESETS["Mistral 7B v0.3"].training_context is None
    at = run_page(PAGE, {"ce_model": "Mistral 7B v0.3"})
    assert not at.error
    text = " ".join(m.value for m in at.caption)
    assert ("L = 32,768 tokens, its configured context (its `config.json` names no "
            "other)") in text
    assert "trained" not in text


def test_scout_caption_tells_its_scalings_L_from_its_training_context():
    """Llama 4 Scout: L = 8,192 is where its llama3 scaling starts, not its training length
    (256K, Meta); configured for 10M = 10,485,760."""
    at = run_page(PAGE, {"ce_model": "Llama 4 Scout"})
    assert not at.error
    text = " ".join(m.value for m in at.caption)
    assert ("Llama 4 Scout: L = 8,192 tokens, where its own scaling starts "
            "(`original_max_position_embeddings`); trained at 262,144 tokens (its source: "
            "the Real models card); s = 16 from its own scaling; configured for 10,485,760 "
            "tokens.") in text
    assert "trained at L = 8,192" not in text
    at = run_page(PAGE, {"lang": "zh", "ce_model": "Llama 4 Scout"})
    assert not at.error and untranslated(at) == {}
    text = " ".join(m.value for m in at.caption)
    assert "L = 8,192 词元" in text and "训练上下文为 262,144 词元" in text
    assert "10,485,760 词元" in text


def test_scaling_applies_only_where_the_model_applies_it():
    """Gemma 3 scales only its 5 global layers (sliding_window_pattern 6 over 34 layers);
    its 29 local ones keep base 10^4 unscaled and see 1,024 tokens. Llama 4 Scout's 36 RoPE
    layers see chunks of 8,192; its 12 NoPE layers are untouched."""
    at = run_page(PAGE, {"ce_model": "Gemma 3 4B"})
    assert not at.error
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert ("Gemma 3 4B's scaling, and each method below, changes the layers that use its "
            "main spectrum (5 of 34); 29 layers keep their own RoPE (base 10⁴, none (original "
            "RoPE)) and see 1,024 tokens.") in text
    at = run_page(PAGE, {"ce_model": "Llama 4 Scout"})
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "main spectrum (36 of 48); 12 layers attend without rotating" in text
    assert "Those layers never meet a distance past 8,192 tokens" in text
    at = run_page(PAGE, {"ce_model": "Llama 3.1 8B"})  # one kind of layer: nothing to say
    assert "main spectrum (" not in " ".join(m.value for m in at.markdown)


def page_text(at) -> str:
    return " ".join(m.value for m in at.markdown).replace("\\", "")


def test_window_sentence_counts_windowed_and_whole_context_layers():
    """Review of issue 26, item 4: gpt-oss-20b's config.json alternates 24 layers between
    sliding_attention (window 128) and full_attention (layer_types), configured for
    131,072 tokens: 12 layers meet no distance past 128, the other 12 the whole context.
    Gemma 2 9B: 42 layers, every other one sliding (window 4,096), context 8,192."""
    text = page_text(run_page(PAGE, {"ce_model": "gpt-oss-20b"}))
    assert "12 of them never meet a distance past 128 tokens" in text
    assert "The other 12 reach the whole context (131,072 tokens)" in text
    assert "Those layers never meet" not in text
    text = page_text(run_page(PAGE, {"ce_model": "Gemma 2 9B"}))
    assert "21 of them never meet a distance past 4,096 tokens" in text
    assert "The other 21 reach the whole context (8,192 tokens)" in text


def test_no_unseen_angles_where_every_rope_layer_is_chunked_or_windowed():
    """Review item 5: Llama 4 Scout rotates only in its chunked layers (chunks of 8,192,
    attention_chunk_size) and Command R7B only in its sliding ones (window 4,096): no
    distance those layers meet reaches the angles s·L would give, so no 'angles never seen'
    and no counts of them. Command R7B's L (132,096) is its configured context, not a
    training length: no 'within training'."""
    for name, window in (("Llama 4 Scout", "8,192"), ("Command R7B", "4,096")):
        text = page_text(run_page(PAGE, {"ce_model": name}))
        assert "angles never seen" not in text and "Pairs whose largest angle" not in text
        assert "within training" not in text
        assert f"see at most {window} tokens, so at no input length" in text


def test_zero_pairs_beyond_L_has_its_own_sentence():
    """Review item 10: Gemma 4 31B's global layers rotate 64 pairs (proportional RoPE,
    partial_rotary_factor 0.25 of head dim 512, base 10^6): the slowest wavelength is
    2π·10^6^(126/512) ≈ 188 tokens, far below L = 262,144, so no pair is beyond L."""
    assert 2 * math.pi * 1e6 ** (126 / 512) < 262144
    text = page_text(run_page(PAGE, {"ce_model": "Gemma 4 31B"}))
    assert "none of the 64 pairs has a wavelength longer than L = 262,144" in text
    assert "Every method slows those pairs" not in text


def chart(at, title: str) -> dict:
    """The figure whose title contains ``title``."""
    charts = [figure(at, i) for i in range(len(at.get("plotly_chart")))]
    return next(f for f in charts if title in f["layout"]["title"]["text"].replace("<br>", " "))


def as_number(text: str) -> float:
    """A tick label read back: a full decimal number ("0.125", "1,000,000"), nothing else."""
    assert re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})*(\.[0-9]+)?", text), text
    return float(text.replace(",", ""))


def test_short_log_axes_label_their_ticks_with_full_numbers(default_page):
    """Screenshot review, item 3: θ′/θ for Llama 3.1 8B spans 1/8 … 1 (its llama3 scaling
    divides the slow pairs by factor 8 and keeps the fast ones), under a decade, where
    Plotly wrote the ticks as bare digits "1, 9, 8 … 2". The ticks are the octaves."""
    ratio = chart(default_page, "θ′ᵢ / θᵢ per pair")["layout"]["yaxis"]
    assert ratio["type"] == "log"
    assert ratio["tickvals"] == [0.125, 0.25, 0.5, 1.0]
    assert [as_number(t) for t in ratio["ticktext"]] == ratio["tickvals"]
    # dynamic NTK's base from 500,000 to 500,000 · 8^(128/126) (alpha = s = 8, d = 128)
    base = chart(default_page, "Dynamic NTK: effective base")["layout"]["yaxis"]
    top = 5e5 * 8 ** (128 / 126)
    assert 1 < top / 5e5 < 10
    values = [as_number(t) for t in base["ticktext"]]
    assert values == base["tickvals"] and len(values) >= 3
    assert all(5e5 / 1.05 <= v <= top * 1.05 for v in values)


def test_wavelength_labels_sit_on_their_lines_apart():
    """Screenshot review, item 2: the labels of L and s·L stacked at the left edge. Each is
    at log10 of its line (a log axis), s·L's above its line at the left end, L's below
    its own at the right end (wavelengths grow with i: those corners are free)."""
    at = run_page(PAGE, {"ce_model": "sidebar settings", "ce_L": "8192", "ce_s": "8"})
    layout = chart(at, "Wavelength 2π/θ′ᵢ")["layout"]
    notes = {a["text"]: a for a in layout["annotations"]}
    low, high = notes["L = 8,192 tokens"], notes["s·L = 65,536 tokens"]
    assert low["y"] == pytest.approx(13 * math.log10(2))  # 8192 = 2^13
    assert high["y"] == pytest.approx(16 * math.log10(2))  # 65536 = 2^16
    assert (low["yanchor"], high["yanchor"]) == ("top", "bottom")
    assert (low["x"], low["xanchor"], high["x"], high["xanchor"]) == (1, "right", 0, "left")
    assert sorted(s["y0"] for s in layout["shapes"]) == [8192, 65536]


def test_regime_and_multiplier_axes_use_short_names_with_full_names_in_the_hover(
        default_page):
    """Screenshot review, item 2: on a phone the long method names took the regime
    strip's whole width and stood taller than the a² bar chart."""
    regime = chart(default_page, "Which pairs each method keeps")["data"][0]
    assert max(len(name) for name in regime["y"]) <= 12
    full = {row[0][0] for row in regime["customdata"]}
    assert _label("yarn") in full and "YaRN" in regime["y"]
    assert regime["colorbar"]["orientation"] == "h"  # under the plot, not past its right
    bars = chart(default_page, "Logit multiplier")["data"][0]
    assert max(len(name) for name in bars["x"]) <= 12
    assert _label("llama3") in bars["customdata"]
    ramp = chart(default_page, "YaRN's ramp")["layout"]
    assert len(ramp["yaxis"]["title"]["text"]) <= 20
    assert all(len(d["name"]) <= 45 for d in chart(default_page, "YaRN's ramp")["data"])


def _label(method: str) -> str:
    return rc.SCALING_LABELS[method]


def test_a_preset_shows_its_own_L_and_s_and_custom_values_come_back():
    """Screenshot review, item 4: with Llama 3.1 8B the disabled L slider showed its
    default 4,096 and the factor slider 8 whatever the model. Llama 3.1 8B's config has
    original_max_position_embeddings 8,192 and rope_scaling factor 8; the visitor's own
    values (from a link) stay out of the way and return with the sidebar settings."""
    at = run_page(PAGE, {"ce_model": "sidebar settings", "ce_L": "16384", "ce_s": "4"})
    assert [(w.value, w.disabled) for w in at.select_slider][:2] == [(16384, False),
                                                                     (4, False)]
    at.radio(key="ce_model").set_value("Llama 3.1 8B").run()
    shown = at.select_slider[:2]
    assert [(w.value, w.disabled) for w in shown] == [(8192, True), (8, True)]
    assert "ce_L" not in at.query_params  # the preset's L is not written into the link
    at.radio(key="ce_model").set_value("Llama 2 7B").run()  # no own scaling: s is free
    assert [(w.value, w.disabled) for w in at.select_slider][:2] == [(4096, True), (4, False)]
    at.radio(key="ce_model").set_value("sidebar settings").run()
    assert [(w.value, w.disabled) for w in at.select_slider][:2] == [(16384, False),
                                                                     (4, False)]
    assert at.query_params["ce_L"] == "16384"


def test_deepseek_shows_its_own_factor_outside_the_offered_ones():
    """DeepSeek-V3's YaRN factor is 40 (its config), not one of the offered s; the
    disabled slider shows 40, and L = 4,096 (original_max_position_embeddings)."""
    at = run_page(PAGE, {"ce_model": "DeepSeek-V3"})
    assert [(w.value, w.disabled) for w in at.select_slider][:2] == [(4096, True), (40, True)]


@pytest.mark.parametrize("value", ["10.9", "inf", "[x](https://evil.example)"])
def test_bad_L_and_s_in_a_link_keep_their_defaults_with_the_sidebar_settings(value):
    """Under a preset L and s are not bound controls (test_links finds them unbound on the
    default page), so the link rule is held here, where they are: bad values are dropped
    with a warning and the controls keep 4,096 and 8."""
    at = run_page(PAGE, {"ce_model": "sidebar settings", "ce_L": value, "ce_s": value})
    assert [(w.key, w.value) for w in at.select_slider][:2] == [("ce_L", 4096), ("ce_s", 8)]
    assert sum("keeps its default" in w.value for w in at.warning) == 2
