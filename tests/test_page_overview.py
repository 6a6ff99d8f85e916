"""Why positions (the opening page): attention without positions is permutation-equivariant."""

import numpy as np
from apptest_helpers import array, assert_frozen_once, csv_frame, figure, run_page, shown
from i18n_helpers import untranslated
from lesson_reference import head, thetas

import rope_core.teaching.lesson as lesson
from ui.navigation import PAGES


def reference_gaps(sentence="dog bites man", dim=128, base=10_000.0, layout="interleaved",
                   seed=0):
    """max |out(P x) - P out(x)| without and with RoPE, from numpy (inputs from rope_core)."""
    words, order = lesson.TOY_SENTENCES[sentence]
    x = lesson.toy_embeddings(words, dim, seed).numpy()
    w = [t.numpy() for t in lesson.toy_projections(dim, seed)]
    gaps = {}
    for name, th in (("none", None), ("rope", thetas(dim, base))):
        out = head(x, *w, th, layout)
        shuffled = head(x[list(order)], *w, th, layout)
        gaps[name] = float(np.abs(shuffled - out[list(order)]).max())
    return gaps, out


def metric(at, start):
    return next(m.value for m in at.metric if m.label.startswith(start))


def test_default_is_dog_bites_man_with_links_to_the_lesson():
    at = run_page()
    assert at.title[0].value == "Why attention needs positions"
    assert len(at.get("plotly_chart")) == 1
    assert at.radio(key="why_sentence").value == "dog bites man"
    assert any(r"\operatorname{out}(Px) = P" in latex.value for latex in at.latex)
    # every page but this one in the course list, plus three in "Two answers"
    assert len(at.get("page_link")) == len(PAGES) - 1 + 3
    text = " ".join(shown(md.value) for md in at.markdown)
    assert "“dog bites man” and “man bites dog”" in text


def test_live_gaps_match_a_numpy_head():
    at = run_page()
    gaps, _ = reference_gaps()
    assert gaps["none"] < 1e-14 and gaps["rope"] > 1e-2
    assert float(metric(at, "No positions")) < 1e-14
    assert metric(at, "RoPE") == f"{gaps['rope']:.2g}"
    text = " ".join(shown(md.value) for md in at.markdown)
    assert f"differs by up to {gaps['rope']:.2g}" in text


def test_figure_rows_move_with_their_tokens():
    at = run_page()
    data = figure(at)["data"]
    assert len(data) == 4
    sentence, shuffled = array(data[0]["z"]), array(data[1]["z"])
    # no positions: "dog" is row 0 of the sentence and row 2 of "man bites dog" (the
    # figure carries float32)
    np.testing.assert_allclose(shuffled[2], sentence[0], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(shuffled[0], sentence[2], rtol=1e-6, atol=1e-12)
    assert data[1]["y"] == ["man @0", "bites @1", "dog @2"]
    rope_sentence, rope_shuffled = array(data[2]["z"]), array(data[3]["z"])
    assert np.abs(rope_shuffled[2] - rope_sentence[0]).max() > 1e-3
    _, out = reference_gaps()  # the RoPE head's outputs for the sentence, numpy
    np.testing.assert_allclose(rope_sentence, out[:, :16], rtol=1e-6, atol=1e-12)


def test_csv_parses_back_with_settings_first():
    at = run_page(None, {"dim": "8", "base": "100", "layout": "half"})
    name, df = csv_frame(at)
    assert name == "why_positions_dog_bites_man_dim8_base100_half_seed0.csv"
    assert list(df.columns[:7]) == ["sentence", "shuffled", "base", "dim", "layout", "seed",
                                    "encoding"]
    assert (df["base"] == 100).all() and (df["layout"] == "half").all()
    for column in df.columns:
        assert column.isascii() and "[1]" not in column
    assert len(df) == 2 * 3 * 8
    gaps, _ = reference_gaps(dim=8, base=100.0, layout="half")
    rope = df[df["encoding"] == "rope"]
    measured = (rope["out(shuffled x)"] - rope["shuffled out(x)"]).abs().max()
    assert np.isclose(measured, gaps["rope"], rtol=1e-10)


def test_other_sentence_and_base_change_only_the_rope_panels():
    default = figure(run_page())["data"]
    changed = figure(run_page(None, {"base": "500000"}))["data"]
    np.testing.assert_array_equal(array(default[0]["z"]), array(changed[0]["z"]))
    assert not np.allclose(array(default[2]["z"]), array(changed[2]["z"]))
    at = run_page(None, {"why_sentence": "alice gave bob a book", "why_seed": "3"})
    gaps, _ = reference_gaps("alice gave bob a book", seed=3)
    assert metric(at, "RoPE") == f"{gaps['rope']:.2g}"
    assert figure(at)["data"][1]["y"][0] == "bob @0"


def test_figure_is_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, None, {"why_seed": "5"}, {"why_outputs"})


def test_chinese_page_with_another_sentence_and_its_table():
    """Everything in Chinese, the toy sentence translated word for word."""
    at = run_page(None, {"lang": "zh", "why_sentence": "the cat chased the mouse",
                         "why_seed": "3"})
    for t in at.toggle:
        if t.key and t.key.startswith("show_"):
            t.set_value(True)
    at.run()
    assert at.title[0].value == "注意力为什么需要位置"
    assert at.session_state["why_sentence"] == "the cat chased the mouse"
    labels = [link.proto.label for link in at.get("page_link")]
    assert "正弦位置编码：原始 Transformer 的加性位置编码" in labels
    assert "导览：按编号的步骤：打开页面，先预测，再揭晓实时计算的答案" in labels
    gaps, _out = reference_gaps("the cat chased the mouse", seed=3)
    assert metric(at, "RoPE：") == f"{gaps['rope']:.2g}"
    text = " ".join(shown(md.value) for md in at.markdown)
    assert "“那只 猫 追 那只 老鼠” 和 “那只 老鼠 追 那只 猫”" in text  # word for word
    spec = figure(at)
    assert spec["layout"]["xaxis3"]["title"]["text"] == "输出坐标 j"
    assert untranslated(at) == {}


def test_figure_right_labels_outside_and_colour_bar_below():
    """Screenshot review (390 px): the right column's word labels ran over the left
    heatmaps and the lower panel titles ran together."""
    layout = figure(run_page())["layout"]
    # the right column's rows are the shuffled words: labelled on the right, outside
    assert layout["yaxis2"]["side"] == layout["yaxis4"]["side"] == "right"
    assert layout.get("yaxis", {}).get("side", "left") == "left"
    bar = layout["coloraxis"]["colorbar"]
    assert bar["orientation"] == "h" and bar["yref"] == "container" and bar["y"] == 0
    assert layout["margin"]["b"] >= 120
    # panel titles: no line longer than the narrowest panel holds at 390 px
    titles = [a["text"] for a in layout["annotations"]]
    assert titles[2] == "RoPE:<br>“dog bites man”"
    assert max(len(line) for t in titles for line in t.split("<br>")) <= 16


def test_projections_are_drawn_once_per_sentence_dim_and_seed(monkeypatch):
    """A change of base or layout reuses the kept projections: the d × d draws are not
    made again, and the gaps are those of a numpy head at the new setting."""
    draws = []
    draw = lesson.toy_projections
    monkeypatch.setattr(lesson, "toy_projections",
                        lambda *args, **kwargs: draws.append(args) or draw(*args, **kwargs))
    run_page(None, {"why_seed": "437"})  # a seed no other test opens: nothing kept yet
    at = run_page(None, {"why_seed": "437", "base": "500", "layout": "half"})
    assert draws == [(128, 437)]
    gaps, _ = reference_gaps(base=500.0, layout="half", seed=437)
    assert metric(at, "RoPE") == f"{gaps['rope']:.2g}"

