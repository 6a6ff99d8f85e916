"""Why positions (the opening page): attention without positions is permutation-equivariant."""

import math

import numpy as np
from apptest_helpers import array, assert_frozen_once, csv_frame, figure, run_page, shown
from hypothesis import given, settings
from hypothesis import strategies as st
from i18n_helpers import long_paragraphs, untranslated
from lesson_reference import head, thetas

import rope_core as rc
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
    assert len(at.get("plotly_chart")) == 3  # outputs, what the shuffle changes, two minutes
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
    assert f"change by up to {gaps['rope']:.2g}" in text


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
    assert_frozen_once(monkeypatch, None, {"why_seed": "5"},
                       {"why_outputs", "why_changes", "why_two_minutes"})


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
    # one token per English word for the shuffle, written as Chinese writes a sentence
    assert "“那只猫追那只老鼠”和“那只老鼠追那只猫”是同一袋词" in text
    assert at.radio(key="why_sentence").options == [
        "狗咬人", "那只猫追那只老鼠", "爱丽丝给了鲍勃一本书"]
    assert figure(at)["layout"]["annotations"][1]["text"] == "无位置信息：<br>“那只老鼠追那只猫”"
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



# ---------------------------------------------------- what the shuffle changes ----
def test_change_panels_are_the_numpy_differences_blank_without_positions():
    """Issue 46: the RoPE panels looked like the unrotated ones (0.24 on a ±2 scale). The
    second figure draws out(P x) − P out(x) per word, on a scale fitted to it: blank
    without positions, the RoPE change in colour."""
    at = run_page(None, {"why_seed": "3"})
    spec = figure(at, 1)
    none, rope = (array(trace["z"]) for trace in spec["data"])
    words, order = lesson.TOY_SENTENCES["dog bites man"]
    x = lesson.toy_embeddings(words, 128, 3).numpy()
    w = [t.numpy() for t in lesson.toy_projections(128, 3)]
    for drawn, th in ((none, None), (rope, thetas(128, 10_000.0))):
        out = head(x, *w, th, "interleaved")
        shuffled = head(x[list(order)], *w, th, "interleaved")
        change = np.empty_like(out)
        change[list(order)] = shuffled - out[list(order)]  # row t: word t of the sentence
        np.testing.assert_allclose(drawn, change[:, :16], rtol=1e-5, atol=1e-7)
    assert np.abs(none).max() < 1e-12 < 1e-2 < np.abs(rope).max()
    reach = float(np.abs(rope).max())
    bar = spec["layout"]["coloraxis"]
    assert math.isclose(bar["cmax"], reach, rel_tol=1e-6) and bar["cmin"] == -bar["cmax"]
    assert bar["colorscale"][5] == [0.5, "rgb(247,247,247)"]  # unchanged: (almost) white
    assert spec["data"][0]["y"] == ["dog", "bites", "man"]


# --------------------------------------------------------- RoPE in two minutes ----
def test_two_minutes_pair_turns_by_m_theta_and_keeps_the_dot_product():
    """Pair 0 turns by θ₀ = 1 rad per token: q = (1, 0) at m and k = (0.8, 0) at n are
    q′ = (cos m, sin m) and k′ = 0.8 (cos n, sin n), and q′·k′ = 0.8 cos(n − m), the same at
    (1, 2) and at (4, 5), and equal to the unrotated qᵀR((n − m)θ₀)k."""
    at = run_page()
    spec = figure(at, 2)
    dot = 0.8 * math.cos(1.0)  # 0.432242
    arrows = [t for t in spec["data"] if t.get("mode") == "lines+markers"]
    for (m, n), (q_arrow, k_arrow) in zip(((1, 2), (4, 5)), (arrows[:2], arrows[2:])):
        np.testing.assert_allclose(array(q_arrow["x"])[1:], [math.cos(m)], rtol=1e-6)
        np.testing.assert_allclose(array(q_arrow["y"])[1:], [math.sin(m)], rtol=1e-6)
        np.testing.assert_allclose(array(k_arrow["x"])[1:], [0.8 * math.cos(n)], rtol=1e-6)
        np.testing.assert_allclose(array(k_arrow["y"])[1:], [0.8 * math.sin(n)], rtol=1e-6)
        q2 = (math.cos(m), math.sin(m))
        k2 = (0.8 * math.cos(n), 0.8 * math.sin(n))
        assert math.isclose(q2[0] * k2[0] + q2[1] * k2[1], dot, rel_tol=1e-12)
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert f"m = 1, n = 2: q′·k′ = {dot:.3f}" in titles
    assert f"m = 4, n = 5: q′·k′ = {dot:.3f}" in titles
    text = " ".join(shown(md.value) for md in at.markdown)
    assert f"so does their dot product, {dot:.3f} in both pictures" in text


@settings(max_examples=40, deadline=None)
@given(m=st.integers(0, 2000), n=st.integers(0, 2000), shift=st.integers(0, 2000),
       angle_q=st.floats(-3.1, 3.1), angle_k=st.floats(-3.1, 3.1))
def test_a_turning_pair_scores_the_distance_alone(m, n, shift, angle_q, angle_k):
    """The identity behind the picture, for any positions and vectors: the pair's score at
    (m, n) and at (m + s, n + s) is |q||k| cos((n − m)θ + φ_k − φ_q)."""
    q = (math.cos(angle_q), math.sin(angle_q))
    k = (0.5 * math.cos(angle_k), 0.5 * math.sin(angle_k))
    frames = rc.rotation_frames_table(q, k, 0, 128, 10_000.0, "shift", m, n, max(shift, 1), 2)
    expected = 0.5 * math.cos((n - m) * 1.0 + angle_k - angle_q)
    np.testing.assert_allclose(frames["dot product q'.k'"].to_numpy(), [expected] * 2,
                               atol=1e-9)


def test_no_long_paragraph_on_first_view_in_either_language():
    """Issue 46: text a room can read, in both languages."""
    for lang in ("en", "zh"):
        assert long_paragraphs(run_page(None, {"lang": lang})) == {}, lang
