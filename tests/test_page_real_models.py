"""AppTest checks of the Real models page (pages/real_models.py).

Expected numbers come from closed forms written out here: Llama 2's
theta_i = 10000^(-2i/128), its longest wavelength 2 pi 10000^(126/128),
bound(0) = (d/2 + 1)/2 and the all-ones score 2 sum_i cos(r theta_i).
"""

import math
import re

import pytest
from apptest_helpers import (
    app_links_removed,
    assert_frozen_once,
    csv_frame,
    csvs_by,
    figure,
    no_exceptions,
    run_page,
    shown,
)
from i18n_helpers import untranslated

import rope_core as rc

PAGE = "real_models"
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\(")


def csvs(at) -> dict:
    """{'cards' | 'spectra' | 'decay': frame} of the page's three downloads."""
    return {part: frame for part, (_name, frame) in csvs_by(
        at, lambda name: name.split("_")[2].split(".")[0], ("cards", "spectra", "decay")).items()}


def paste(text: str):
    at = run_page(PAGE)
    at.text_area(key="rm_config_text").set_value(text).run()
    no_exceptions(at)
    return at


def shown_markdown(at) -> list[str]:
    return [e.value for e in (*at.markdown, *at.error, *at.success, *at.warning, *at.info,
                              *at.caption)]


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_renders_cards_charts_csvs(default_page):
    at = default_page
    assert not at.error
    assert len(at.get("plotly_chart")) == 6
    names = [d["name"] for d in figure(at, 1)["data"]]
    assert names == ["Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B"]
    assert figure(at, 1)["layout"]["yaxis"]["title"]["text"].endswith("[rad/token]")
    frames = csvs(at)
    for frame in frames.values():
        assert frame["model"].notna().all()
        assert set(frame["model"]) == {"Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B"}
        assert all(c.isascii() for c in frame.columns) and not any("[1]" in c for c in
                                                                   frame.columns)


def test_llama2_against_closed_form(default_page):
    frames = csvs(default_page)
    spectra = frames["spectra"]
    l2 = spectra[spectra["model"] == "Llama 2 7B"].set_index("pair")
    assert list(l2.index) == list(range(64))
    for i in (0, 10, 40, 63):
        assert l2.loc[i, "theta [rad/token]"] == pytest.approx(10_000 ** (-2 * i / 128),
                                                               rel=1e-13)
    cards = frames["cards"].set_index("model")
    assert cards.loc["Llama 2 7B", "longest wavelength [tokens]"] == \
        pytest.approx(2 * math.pi * 10_000 ** (126 / 128), rel=1e-12)
    assert cards.loc["Llama 3.1 8B", "max context [tokens]"] == 131_072
    decay = frames["decay"]
    d2 = decay[decay["model"] == "Llama 2 7B"].set_index("distance [tokens]")
    assert d2["upper bound"].iloc[0] == pytest.approx(32.5, abs=1e-12)
    assert d2.index.max() == 4096 and len(d2) <= 2000
    r = float(d2.index[100])
    by_hand = 2 * sum(math.cos(r * 10_000 ** (-2 * i / 128)) for i in range(64))
    assert d2.loc[r, "score q=k=1"] == pytest.approx(by_hand, abs=1e-9)


@pytest.mark.parametrize("group", [list(rc.PRESETS)[i:i + 3]
                                   for i in range(0, len(rc.PRESETS), 3)],
                         ids=lambda g: "+".join(g))
def test_every_preset_renders(group):
    at = run_page(PAGE, {"rm_models": group, "rm_axis": "log"})
    assert not at.error and len(at.get("plotly_chart")) == 6
    frames = csvs(at)
    rotating = {n for n in group if any(g.spec.rotates for g in rc.PRESETS[n].groups())}
    for name, frame in frames.items():
        # spectra and decay: only models with a rotating layer (Granite 4.0-H has none)
        assert set(frame["model"]) == (rotating if "spectra" in name or "decay" in name
                                       else set(group)), name
    assert figure(at, 4)["layout"]["xaxis"]["type"] == "log"


def test_a_valid_pasted_config_is_added():
    cfg = ('{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, '
           '"max_position_embeddings": 2048, "rope_theta": 10000.0}')
    at = paste(cfg)
    assert not at.error
    frames = csvs(at)
    assert "config.json: llama" in set(frames["spectra"]["model"])
    mine = frames["spectra"][frames["spectra"]["model"] == "config.json: llama"]
    assert mine["theta [rad/token]"].iloc[5] == pytest.approx(10_000 ** (-10 / 128), rel=1e-13)
    assert len(figure(at, 1)["data"]) == 4


MALFORMED = {
    "bad JSON": '{"head_dim": 128,',
    "not an object": "[1, 2, 3]",
    "missing fields": "{}",
    "missing context": '{"head_dim": 128}',
    "wrong types": '{"hidden_size": "4096", "num_attention_heads": 32, '
                   '"max_position_embeddings": 4096}',
    "huge context": '{"head_dim": 128, "max_position_embeddings": 100000000000}',
    "infinite": '{"head_dim": 128, "max_position_embeddings": 1e400}',
    "huge integer": "1" + "0" * 5000,
    "huge dim": '{"head_dim": 100000, "max_position_embeddings": 4096}',
    "bad scaling": '{"head_dim": 128, "max_position_embeddings": 4096, '
                   '"rope_scaling": {"rope_type": "yarn", "factor": "big"}}',
    "unknown scaling key": '{"head_dim": 128, "max_position_embeddings": 4096, '
                           '"rope_scaling": {"rope_type": "linear", "factor": 2, "x": 1}}',
    "nested": "[" * 100_000,
    "2 MB": '{"pad": "' + "x" * 2_000_000 + '"}',
}


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_config_shows_escaped_error(text):
    at = paste(text)
    assert len(at.error) == 1
    assert "was not added" in at.error[0].value
    assert len(at.get("plotly_chart")) == 6  # the page keeps working with the presets
    assert set(csvs(at)["cards"]["model"]) == {"Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B"}


HOSTILE = "[Claim your prize](https://evil.example) <b>x</b> ![i](https://evil.example/i.png)"


def test_markdown_in_a_pasted_model_name_never_renders():
    text = ('{"model_type": "' + HOSTILE + '", "head_dim": 64, '
            '"max_position_embeddings": 4096}')
    at = paste(text)
    assert not at.error
    for body in shown_markdown(at):
        assert not UNESCAPED_LINK.search(app_links_removed(body)), body[:200]
        assert "<b>" not in body and not re.search(r"(?<!\\)!\[", body)
    names = [d["name"] for d in figure(at, 1)["data"]]
    assert any(n.startswith("config.json: ") for n in names)
    assert not any("<b>" in n for n in names)  # plotly would render it as HTML


def test_markdown_in_a_pasted_value_is_escaped_in_the_error():
    at = paste('{"head_dim": "' + HOSTILE + '", "max_position_embeddings": 4096}')
    assert len(at.error) == 1
    for body in shown_markdown(at):
        assert not UNESCAPED_LINK.search(app_links_removed(body)), body[:200]


def test_no_model_chosen_asks_for_one():
    at = run_page(PAGE)
    at.multiselect(key="rm_models").set_value([]).run()
    no_exceptions(at)
    assert at.info and "at least one model" in at.info[0].value
    assert not at.get("plotly_chart")


FIGURE_KEYS = {"rm_theta_plot", "rm_wave_plot", "rm_ratio_plot", "rm_bound_plot",
               "rm_score_plot", "rm_stack_plot"}


@pytest.mark.parametrize("query", [{}, {"rm_models": ["Llama 2 7B"], "rm_axis": "log"}])
def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch, query):
    assert_frozen_once(monkeypatch, PAGE, query, FIGURE_KEYS)


def test_a_pasted_config_is_drawn_from_its_key_once(monkeypatch):
    text = ('{"model_type": "' + HOSTILE + '", "head_dim": 64, '
            '"max_position_embeddings": 4096}')

    def add_config(at):
        at.text_area(key="rm_config_text").set_value(text).run()

    assert_frozen_once(monkeypatch, PAGE, None, FIGURE_KEYS, then=add_config)


def test_chinese_with_other_models_and_a_pasted_config():
    """Cards the default view does not show (partial rotary, local layers, per-pair
    factors, YaRN, M-RoPE, a pasted model without model_type), the log axis, in Chinese."""
    at = run_page(PAGE, {"lang": "zh", "rm_models": ["Phi-3.5 mini", "Gemma 3 4B", "Qwen2-VL 7B"],
                         "rm_axis": "log"})
    at.text_area(key="rm_config_text").set_value(
        '{"head_dim": 64, "max_position_embeddings": 4096, "partial_rotary_factor": 0.5, '
        '"rope_scaling": {"rope_type": "yarn", "factor": 4, '
        '"original_max_position_embeddings": 1024}}').run()
    no_exceptions(at)
    assert not at.error and len(at.get("plotly_chart")) == 6
    assert at.success and at.success[0].value.startswith("已添加")
    assert untranslated(at) == {}


@pytest.mark.parametrize("text", [MALFORMED["bad JSON"], MALFORMED["bad scaling"]],
                         ids=["bad JSON", "bad scaling"])
def test_chinese_error_for_a_malformed_config(text):
    at = run_page(PAGE, {"lang": "zh"})
    at.text_area(key="rm_config_text").set_value(text).run()
    no_exceptions(at)
    assert len(at.error) == 1 and at.error[0].value.startswith("粘贴的 `config.json` 未添加：")
    assert untranslated(at) == {}


def test_layer_stack_and_hybrid_cards():
    """Issue 20: the layer stack and per-layer table; issue 19.2 and 19.3 on the cards."""
    at = run_page(PAGE, {"rm_models": ["Llama 4 Scout", "Gemma 3 4B", "DeepSeek-V3"]})
    assert not at.error and len(at.get("plotly_chart")) == 6
    stack = figure(at, 0)["data"][0]
    assert list(stack["y"]) == ["Llama 4 Scout", "Gemma 3 4B", "DeepSeek-V3"]
    z = stack["z"]
    # codes: 0 RoPE over the whole context, 1 RoPE in a window or chunk, 2 NoPE
    assert [i for i, c in enumerate(z[0]) if c == 2] == list(range(3, 48, 4))  # NoPE
    assert set(z[0][:48]) == {1, 2}  # Scout's RoPE layers: chunks of 8,192
    assert [i for i, c in enumerate(z[1][:34]) if c == 0] == [5, 11, 17, 23, 29]  # global
    assert set(z[1][:34]) == {0, 1} and set(z[2][:61]) == {0}
    _name, layers = csv_frame(at, 3)
    assert list(layers.columns[:3]) == ["model", "layer", "kind"]
    assert len(layers) == 48 + 34 + 61
    text = " ".join(shown_markdown(at))
    assert "softmax scale × 1.8739" in text  # (0.1 ln 40 + 1)^2
    # Gemma 3: L = its training context, from its report (linear scaling names no L)
    assert "L: 32,768 tokens, the context its source says it was trained at" in text
    assert "training context: 32,768 tokens (its source, below)" in text
    assert "48 layers: 36 rotate, 12 attend without rotating (NoPE)" in text
    assert "NoPE layers scale their queries by 1 + 0.1 ln(1 + ⌊(p + 1) / 8,192⌋)" in text
    assert ("layers 5, 11, 17, 23, 29: RoPE, full attention, base 10⁶, linear (position "
            "interpolation), 256 of 256 dims rotated; a query sees 131,072 tokens") in text
    assert "a query of a rotating layer sees 1,024 or 131,072 tokens" in text
    groups = csv_frame(at, 4)[1]
    gemma = groups[groups["model"] == "Gemma 3 4B"]
    assert list(gemma["layer list"]) == ["0-4, 6-10, 12-16, 18-22, 24-28, 30-33",
                                         "5, 11, 17, 23, 29"]


def test_configured_context_is_not_called_training():
    # Mistral 7B v0.3: no source gives a training context (presets.TRAINING)
    assert rc.PRESETS["Mistral 7B v0.3"].training_context is None
    at = run_page(PAGE, {"rm_models": ["Mistral 7B v0.3"]})
    text = " ".join(shown_markdown(at))
    assert "L: its configured context, 32,768 tokens (its `config.json` names no other)" \
        in text
    assert "training context" not in text


def test_scout_card_tells_training_context_from_its_scalings_L():
    """Llama 4 Scout: trained at 256K (Meta), its llama3 scaling starts from 8,192."""
    cfg = rc.PRESETS["Llama 4 Scout"]
    assert (cfg.training_context, cfg.original_context) == (256 * 1024, 8192)
    at = run_page(PAGE, {"rm_models": ["Llama 4 Scout"]})
    assert not at.error
    text = " ".join(shown_markdown(at))
    assert "L, where its scaling starts (`original_max_position_embeddings`): 8,192 tokens" \
        in text
    assert "training context: 262,144 tokens (its source, below)" in text
    at = run_page(PAGE, {"lang": "zh", "rm_models": ["Llama 4 Scout"]})
    assert not at.error and untranslated(at) == {}
    text = " ".join(shown_markdown(at))
    assert "L，即其缩放的起点（`original_max_position_embeddings`）：8,192 词元" in text
    assert "训练上下文：262,144 词元（来源见下）" in text


def test_deepseek_v4_compressed_layers_named_by_their_keys():
    """Review of issue 26, item 7: DeepSeek-V4-Flash's published compress_ratios
    [0, 0, (4, 128) x 20, 4, 0] over its 43 layers (the 44th entry is the MTP block) and
    sliding_window 128: layers 2, 4, ..., 42 keep one compressed key per 4 tokens, layers
    3, 5, ..., 41 one per 128, each beside the raw window of the last 128 tokens
    (modeling_deepseek_v4.py); they are not full attention."""
    at = run_page(PAGE, {"rm_models": ["DeepSeek-V4-Flash"]})
    text = " ".join(m.value for m in at.markdown)
    even = ", ".join(str(i) for i in range(2, 43, 2))
    odd = ", ".join(str(i) for i in range(3, 42, 2))
    assert f"layers {even}: RoPE, compressed keys, one per 4 tokens, beside a raw window " \
           "of 128," in text
    assert f"layers {odd}: RoPE, compressed keys, one per 128 tokens, beside a raw " \
           "window of 128," in text
    assert "RoPE, full attention" not in text


def test_deepseek_v4_compressed_groups_are_labelled_by_their_keys_in_charts_and_sentences():
    """Final review, item 1: group_label named both of DeepSeek-V4-Flash's compressed
    groups "RoPE, full attention" in the legends and the sentences under the charts. The
    labels expected here are written from the preset's layer specs: one compressed key per
    ``compress`` tokens beside the raw window of ``window`` tokens."""
    models = ["gpt-oss-20b", "Gemma 4 31B", "DeepSeek-V4-Flash"]
    specs = {s for s in rc.PRESETS["DeepSeek-V4-Flash"].layer_specs
             if s.attention == "compressed"}
    assert {(s.compress, s.window) for s in specs} == {(4, 128), (128, 128)}
    want = {f"RoPE, compressed keys, one per {s.compress:,} tokens, beside a raw window of "
            f"{s.window:,}" for s in specs}
    at = run_page(PAGE, {"rm_models": models})
    no_exceptions(at)
    names = {d["name"] for i in range(len(at.get("plotly_chart")))
             for d in figure(at, i)["data"] if d.get("name", "").startswith("DeepSeek")}
    labels = {n.split(" · ", 1)[1] for n in names if " · " in n}
    assert want <= labels  # both compressed groups, told apart
    assert not any("full attention" in label for label in labels)
    text = " ".join(shown(m) for m in shown_markdown(at))
    for label in want:
        assert f"DeepSeek-V4-Flash: {label}: " in text  # What to notice, per group
        assert f"DeepSeek-V4-Flash: {label} keeps pair 0" in text
    assert "DeepSeek-V4-Flash: RoPE, full attention" not in text


def test_scaled_over_plain_axis_labels_its_ticks_with_full_numbers(default_page):
    """Screenshot review, item 3: Llama 2 7B and Qwen2.5 7B run unscaled (ratio 1), Llama
    3.1 8B's llama3 scaling divides the slow pairs by 8: the ratios span 1/8 … 1, under a
    decade, where Plotly's log ticks read "1, 9, 8 … 2". The ticks are the octaves."""
    charts = [figure(default_page, i) for i in range(len(default_page.get("plotly_chart")))]
    ratio = next(f for f in charts if "Scaled θᵢ / plain" in
                 f["layout"]["title"]["text"].replace("<br>", " "))["layout"]["yaxis"]
    assert ratio["type"] == "log"
    assert ratio["tickvals"] == [0.125, 0.25, 0.5, 1.0]
    assert ratio["ticktext"] == ["0.125", "0.25", "0.5", "1"]
