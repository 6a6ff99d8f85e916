"""AppTest checks of the Layers without RoPE page (pages/layers_without_rope.py).

Expected numbers come from the config.json fields written out here: Llama 4 Scout's
NoPE layer every fourth (no_rope_layer_interval 4), chunks of 8,192; Command R7B's
sliding_window_pattern 4 with RoPE only on the windowed layers; SmolLM3's
no_rope_layers; Gemma 3's sliding_window_pattern 6 and window 1,024; the pairs that
turn within a window from 2 pi base^(2i/d) <= window; Llama 4's query scale
1 + 0.1 ln(1 + floor((p + 1) / 8192)).
"""

import math

import pytest
from apptest_helpers import assert_frozen_once, csv_frame, figure, run_page
from i18n_helpers import untranslated

PAGE = "layers_without_rope"
FIGURE_KEYS = {"lw_pattern_plot", "lw_reach_plot", "lw_temperature_plot"}


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def frames(at) -> dict:
    out = {}
    for index in range(3):
        name, frame = csv_frame(at, index)
        out[name] = frame
    return out


def test_default_renders_three_figures_and_csvs(default_page):
    at = default_page
    assert not at.error and len(at.get("plotly_chart")) == 3
    files = frames(at)
    assert set(files) == {"layers_without_rope_summary.csv", "layers_without_rope_layers.csv",
                          "layers_without_rope_llama4_temperature.csv"}
    for frame in files.values():
        assert all(c.isascii() for c in frame.columns)
    pattern = figure(at, 0)["data"][0]
    assert list(pattern["y"]) == ["Llama 4 Scout", "Command R7B", "SmolLM3 3B", "Gemma 3 4B"]


def test_summary_by_hand(default_page):
    summary = frames(default_page)["layers_without_rope_summary.csv"].set_index("model")
    assert list(summary.columns[:1]) == ["layers"]
    scout = summary.loc["Llama 4 Scout"]
    assert (scout["layers"], scout["RoPE layers"], scout["NoPE layers"]) == (48, 36, 12)
    assert scout["RoPE reach [tokens]"] == 8192 and scout["NoPE reach [tokens]"] == 10_485_760
    # base 500000, d = 128, llama3 with L = 8192: the kept pairs are those with wavelength
    # <= 8192 (the scaled ones are longer still): 2 pi 500000^(2i/128) <= 8192
    kept = math.floor(64 * math.log(8192 / (2 * math.pi)) / math.log(5e5)) + 1
    assert scout["pairs turning within reach"] == kept
    cmd = summary.loc["Command R7B"]
    assert (cmd["RoPE layers"], cmd["NoPE layers"], cmd["RoPE reach [tokens]"]) == \
        (24, 8, 4096)
    # base 50000, d = 128: 2 pi 50000^(2i/128) <= 4096
    assert cmd["pairs turning within reach"] == \
        math.floor(64 * math.log(4096 / (2 * math.pi)) / math.log(5e4)) + 1
    smol = summary.loc["SmolLM3 3B"]
    assert (smol["RoPE layers"], smol["NoPE layers"], smol["RoPE reach [tokens]"]) == \
        (27, 9, 65536)
    gemma = summary.loc["Gemma 3 4B"]
    assert (gemma["NoPE layers"], gemma["RoPE reach [tokens]"]) == (0, 1024)
    assert math.isnan(gemma["NoPE reach [tokens]"])


def test_layer_table_patterns(default_page):
    layers = frames(default_page)["layers_without_rope_layers.csv"]
    assert list(layers.columns[:3]) == ["model", "layer", "kind"]
    scout = layers[layers["model"] == "Llama 4 Scout"]
    assert list(scout.loc[scout["kind"] == "nope", "layer"]) == list(range(3, 48, 4))
    assert set(scout.loc[scout["kind"] == "rope", "attention"]) == {"chunked"}
    gemma = layers[layers["model"] == "Gemma 3 4B"]
    assert list(gemma.loc[gemma["spectrum"] == "global", "layer"]) == [5, 11, 17, 23, 29]
    assert set(gemma.loc[gemma["spectrum"] == "local", "base"]) == {10000.0}


def test_llama4_temperature_by_hand(default_page):
    t = frames(default_page)["layers_without_rope_llama4_temperature.csv"]
    assert list(t.columns[:2]) == ["floor_scale", "attn_scale"]
    assert t["position"].iloc[0] == 0 and t["position"].iloc[-1] == 10_485_759
    for _i, row in t.iterrows():
        p = int(row["position"])
        assert row["query scale"] == pytest.approx(
            1 + 0.1 * math.log(1 + (p + 1) // 8192), rel=1e-12)
    assert len(t) <= 300
    text = " ".join(m.value for m in default_page.markdown)
    assert f"{1 + 0.1 * math.log(1281):.4f}" in text  # at p = 10,485,759: floor = 1280


def test_other_models_and_bad_links():
    at = run_page(PAGE, {"lw_models": ["gpt-oss-20b", "Gemma 2 9B"]})
    assert not at.error and len(at.get("plotly_chart")) == 3
    summary = frames(at)["layers_without_rope_summary.csv"].set_index("model")
    assert summary.loc["gpt-oss-20b", "RoPE reach [tokens]"] == 128
    assert summary.loc["Gemma 2 9B", "RoPE reach [tokens]"] == 4096
    at = run_page(PAGE, {"lw_models": ["Llama 2 7B"]})  # not a hybrid: the link is ignored
    assert not at.error and (at.first_warnings or at.warning)
    assert list(figure(at, 0)["data"][0]["y"]) == ["Llama 4 Scout", "Command R7B",
                                                   "SmolLM3 3B", "Gemma 3 4B"]


def test_no_model_chosen():
    at = run_page(PAGE)
    at.multiselect(key="lw_models").set_value([]).run()
    assert not at.exception and not at.get("plotly_chart") and at.info


def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, PAGE, None, FIGURE_KEYS)


def test_chinese_page_is_chinese():
    at = run_page(PAGE, {"lang": "zh"})
    assert not at.error
    assert untranslated(at) == {}
