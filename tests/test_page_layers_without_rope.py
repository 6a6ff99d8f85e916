"""AppTest checks of the Layers without RoPE page (pages/layers_without_rope.py).

Expected numbers come from the config.json fields written out here: Llama 4 Scout's
NoPE layer every fourth (no_rope_layer_interval 4), chunks of 8,192; Command R7B's
sliding_window_pattern 4 with RoPE only on the windowed layers; EXAONE 4's "LLLG" likewise
with a window of 4,096; SmolLM3's no_rope_layers; Qwen3-Next's full attention every
fourth layer (full_attention_interval 4), the rest linear attention; Gemma 3's
sliding_window_pattern 6 and window 1,024; the pairs that turn within a window from
2 pi base^(2i/d) <= window; Llama 4's query scale 1 + 0.1 ln(1 + floor((p + 1) / 8192)).
"""

import math

import pytest
from apptest_helpers import assert_frozen_once, csv_frames, figure, run_page
from i18n_helpers import untranslated

PAGE = "layers_without_rope"
FIGURE_KEYS = {"lw_pattern_plot", "lw_reach_plot", "lw_temperature_plot"}


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def frames(at) -> dict:
    return csv_frames(at)


def test_default_renders_three_figures_and_csvs(default_page):
    at = default_page
    assert not at.error and len(at.get("plotly_chart")) == 3
    files = frames(at)
    assert set(files) == {"layers_without_rope_overview.csv", "layers_without_rope_summary.csv",
                          "layers_without_rope_layers.csv",
                          "layers_without_rope_llama4_temperature.csv"}
    for frame in files.values():
        assert all(c.isascii() for c in frame.columns)
    pattern = figure(at, 0)["data"][0]
    assert list(pattern["y"]) == ["Llama 4 Scout", "EXAONE 4.0 32B", "Qwen3-Next-80B-A3B",
                                  "Gemma 3 4B"]


def test_three_kinds_side_by_side(default_page):
    """The overview sorts every hybrid preset by the family's rule: flags (no_rope_layers),
    RoPE on the sliding layers only, or layers that do not attend."""
    over = frames(default_page)["layers_without_rope_overview.csv"].set_index("model")
    kinds = over["hybrid"].to_dict()
    assert {m for m, k in kinds.items() if k == "nope_layers"} == {"Llama 4 Scout",
                                                                   "SmolLM3 3B"}
    assert {m for m, k in kinds.items() if k == "global_nope"} == {
        "Command R7B", "EXAONE 4.0 32B", "Trinity Nano"}
    assert {m for m, k in kinds.items() if k == "other_mixers"} == {
        "Qwen3-Next-80B-A3B", "Qwen3.5-27B", "LFM2-350M", "Granite 4.0-H 350M"}
    # Trinity: global_attn_every_n_layers 4 over 56 layers, window 2,048
    trinity = over.loc["Trinity Nano"]
    assert (trinity["RoPE layers"], trinity["NoPE layers"], trinity["RoPE reach [tokens]"]) \
        == (42, 14, 2048)
    # LFM2: full_attn_idxs [2, 5, 8, 10, 12, 14] attend and rotate, 10 short convolutions
    lfm = over.loc["LFM2-350M"]
    assert (lfm["RoPE layers"], lfm["other layers"], lfm["other mixers"]) == (6, 10, "conv")
    granite = over.loc["Granite 4.0-H 350M"]
    assert (granite["RoPE layers"], granite["NoPE layers"], granite["other layers"]) == \
        (0, 4, 28)
    assert math.isnan(granite["RoPE reach [tokens]"])
    text = " ".join(m.value for m in default_page.markdown)
    assert "Granite 4.0-H 350M: none of its 32 layers rotates" in text
    assert ("SmolLM3 3B: its 27 RoPE layers and its 9 NoPE layers all see the whole context "
            "of 65,536 tokens") in text
    assert "Llama 4 Scout: its 36 RoPE layers see at most 8,192 tokens" in text


def test_summary_by_hand(default_page):
    summary = frames(default_page)["layers_without_rope_overview.csv"].set_index("model")
    assert list(summary.columns[:2]) == ["hybrid", "layers"]
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
    # sliding_window_pattern 6 over 34 layers: 5, 11, 17, 23, 29 global, 29 local
    assert (gemma["windowed RoPE layers"], gemma["full-attention RoPE layers"]) == (29, 5)
    # the shortest-reaching layers are the local ones: base 10000 unscaled, d = 256, so
    # their slowest pair is i = 127, 2 pi 10000^(254/256) (not the global 1e6 x 8 one)
    assert gemma["longest wavelength [tokens]"] == pytest.approx(
        2 * math.pi * 1e4 ** (254 / 256), rel=1e-12)
    assert gemma["pairs turning within reach"] == \
        math.floor(128 * math.log(1024 / (2 * math.pi)) / math.log(1e4)) + 1
    assert (scout["windowed RoPE layers"], scout["full-attention RoPE layers"]) == (36, 0)
    assert (smol["windowed RoPE layers"], smol["full-attention RoPE layers"]) == (0, 27)
    # Qwen3-Next: 12 full-attention layers of 48, head dim 256 with partial 0.25: 32 pairs
    # at base 5e6 over 262,144 tokens: 2 pi 5e6^(2i/64) <= 262144
    qwen = summary.loc["Qwen3-Next-80B-A3B"]
    assert (qwen["RoPE layers"], qwen["other layers"], qwen["pairs"]) == (12, 36, 32)
    assert qwen["pairs turning within reach"] == \
        math.floor(32 * math.log(262144 / (2 * math.pi)) / math.log(5e6)) + 1
    # EXAONE 4: the sliding layers' llama3 spectrum (factor 16, low 1, high 4, L 8192) over
    # their window of 4,096: wavelengths under 2,048 kept, over 8,192 times 16, blended
    # between; count those <= 4,096
    count = 0
    for i in range(64):
        theta = 1e6 ** (-i / 64)
        w = 2 * math.pi / theta
        if 2048 <= w <= 8192:
            smooth = (8192 / w - 1) / 3
            theta = (1 - smooth) * theta / 16 + smooth * theta
        elif w > 8192:
            theta /= 16
        count += 2 * math.pi / theta <= 4096
    exaone = summary.loc["EXAONE 4.0 32B"]
    assert (exaone["RoPE layers"], exaone["NoPE layers"], exaone["RoPE reach [tokens]"]) == \
        (48, 16, 4096)
    assert exaone["pairs turning within reach"] == count
    shown = frames(default_page)["layers_without_rope_summary.csv"].set_index("model")
    assert list(shown.index) == ["Llama 4 Scout", "EXAONE 4.0 32B", "Qwen3-Next-80B-A3B",
                                 "Gemma 3 4B"]
    assert shown.loc["Gemma 3 4B"].equals(summary.loc["Gemma 3 4B"])


def test_reach_text_names_global_rope_layers(default_page):
    text = " ".join(m.value for m in default_page.markdown)
    assert "Gemma 3 4B: its 29 windowed RoPE layers see at most 1,024 tokens" in text
    assert "its 5 global RoPE layers see the whole context of 131,072 tokens" in text
    assert ("Qwen3-Next-80B-A3B: 12 of 48 layers attend and rotate, over the whole context "
            "of 262,144 tokens") in text
    assert "the other 36, linear attention layers, mix tokens without positions" in text


def test_layer_table_patterns(default_page):
    layers = frames(default_page)["layers_without_rope_layers.csv"]
    assert list(layers.columns[:3]) == ["model", "layer", "kind"]
    scout = layers[layers["model"] == "Llama 4 Scout"]
    assert list(scout.loc[scout["kind"] == "nope", "layer"]) == list(range(3, 48, 4))
    assert set(scout.loc[scout["kind"] == "rope", "attention"]) == {"chunked"}
    gemma = layers[layers["model"] == "Gemma 3 4B"]
    assert list(gemma.loc[gemma["attention"] == "full", "layer"]) == [5, 11, 17, 23, 29]
    assert set(gemma.loc[gemma["attention"] == "sliding", "base"]) == {10000.0}
    assert set(gemma.loc[gemma["attention"] == "full", "base"]) == {1e6}
    qwen = layers[layers["model"] == "Qwen3-Next-80B-A3B"]
    assert list(qwen.loc[qwen["kind"] == "rope", "layer"]) == list(range(3, 48, 4))
    assert set(qwen.loc[qwen["kind"] != "rope", "kind"]) == {"linear_attention"}


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
    # floor((p + 1) / 8192) = 0 up to p = 8190; p = 8191 gives floor(8192 / 8192) = 1
    assert "the factor is 1 up to position 8,190" in text


def test_other_models_and_bad_links():
    at = run_page(PAGE, {"lw_models": ["gpt-oss-20b", "Gemma 2 9B"]})
    assert not at.error and len(at.get("plotly_chart")) == 3
    summary = frames(at)["layers_without_rope_summary.csv"].set_index("model")
    assert summary.loc["gpt-oss-20b", "RoPE reach [tokens]"] == 128
    assert summary.loc["Gemma 2 9B", "RoPE reach [tokens]"] == 4096
    # 24 layers alternating sliding / full: 12 and 12; 42 layers: 21 and 21
    assert tuple(summary.loc["gpt-oss-20b", ["windowed RoPE layers",
                                             "full-attention RoPE layers"]]) == (12, 12)
    assert tuple(summary.loc["Gemma 2 9B", ["windowed RoPE layers",
                                            "full-attention RoPE layers"]]) == (21, 21)
    at = run_page(PAGE, {"lw_models": ["Llama 2 7B"]})  # not a hybrid: the link is ignored
    assert not at.error and (at.first_warnings or at.warning)
    assert list(figure(at, 0)["data"][0]["y"]) == ["Llama 4 Scout", "EXAONE 4.0 32B",
                                                   "Qwen3-Next-80B-A3B", "Gemma 3 4B"]


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


def test_deepseek_v4_compressed_layers_are_not_global_ones():
    """Review of issue 26, item 7: DeepSeek-V4-Flash's 43 layers (compress_ratios
    [0, 0, (4, 128) x 20, 4, 0], the last entry the MTP block): layers 0-1 a sliding window
    of 128 only, the other 41 compressed keys (one per 4 or 128 tokens) beside that raw
    window, reaching the configured 1,048,576 tokens; none is a global full-attention
    layer."""
    at = run_page(PAGE, {"lw_models": ["DeepSeek-V4-Flash"]})
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert ("DeepSeek-V4-Flash: its 2 windowed RoPE layers see at most 128 tokens") in text
    assert ("its 41 compressed RoPE layers reach the whole context of 1,048,576 tokens "
            "through compressed keys, one per 4 or 128 tokens, beside a raw window of the "
            "last 128") in text
    assert "DeepSeek-V4-Flash: its 43 windowed" not in text
