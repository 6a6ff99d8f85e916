"""Rotation page (pages/rotation.py): one 2-D pair of q and k, animated.

Expected numbers are derived here with math: theta_i = base^(-2i/d), the
angle of a 2-D vector atan2(y, x), and the closed form of the rotated dot
product |q||k| cos((n - m) theta_i + angle(k) - angle(q)).
"""

import json
import math

import pandas as pd
import pytest
from apptest_helpers import (
    array,
    bad_link,
    csv_frame,
    figure,
    no_exceptions,
    run_page,
    shown_table,
    warnings,
)
from i18n_helpers import untranslated

PAGE = "rotation"
DOT = "dot product q'.k'"
DEG, RAD = "angle from q' to k' [deg]", "angle from q' to k' [rad]"
M, N = "m [tokens]", "n [tokens]"
SETTINGS = ["base", "dim", "pair i", "mode", "q_x", "q_y", "k_x", "k_y",
            "positions per frame [tokens]"]


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def animation(at):
    """The figure spec that has animation frames."""
    return next(f for f in (figure(at, i) for i in range(len(at.get("plotly_chart"))))
                if f.get("frames"))


def closed_form_dot(q, k, m, n, theta):
    return math.hypot(*q) * math.hypot(*k) * math.cos(
        (n - m) * theta + math.atan2(k[1], k[0]) - math.atan2(q[1], q[0]))


# ------------------------------------------------------------ rendering ----
def test_default_renders_animation_with_controls(default_page):
    at = default_page
    no_exceptions(at)
    assert not at.error
    assert len(at.get("plotly_chart")) >= 1  # plane and dot product in one animated figure
    name, table = csv_frame(at)
    fig = animation(at)
    frames = fig["frames"]
    assert len(frames) == len(table) == table["frame"].nunique()
    # a Play button that animates all frames, smooth and redrawn
    buttons = [b for menu in fig["layout"]["updatemenus"] for b in menu["buttons"]]
    play = next(b for b in buttons if "Play" in b["label"])
    assert play["method"] == "animate"
    options = play["args"][1]
    assert 100 <= options["frame"]["duration"] <= 150
    assert options["frame"]["redraw"] is True
    assert options["transition"]["duration"] == 0
    assert any("Pause" in b["label"] for b in buttons)
    # a slider with one step per frame, each step jumping to its own frame
    steps = fig["layout"]["sliders"][0]["steps"]
    assert len(steps) == len(frames)
    assert [s["args"][0] for s in steps] == [[f["name"]] for f in frames]
    assert [s["label"] for s in steps] == [str(m) for m in table[M]]
    # equal axis scaling
    assert fig["layout"]["yaxis"]["scaleanchor"] == "x"
    assert fig["layout"]["xaxis"]["range"] == fig["layout"]["yaxis"]["range"]
    # the animated arrows end where the table says q' and k' are
    for frame, (_, row) in zip(frames, table.iterrows()):
        q_arrow, k_arrow, marker = frame["data"]
        assert q_arrow["x"][-1] == pytest.approx(row["q'_x"], abs=1e-12)
        assert k_arrow["y"][-1] == pytest.approx(row["k'_y"], abs=1e-12)
        # the current-frame marker sits at (m, q'.k') of this frame
        assert marker["x"] == [row[M]]
        assert marker["y"][0] == pytest.approx(row[DOT], abs=1e-12)


def test_animation_waits_for_play_and_the_keyboard_slider_picks_the_frame():
    """Nothing moves by itself (no autoplay: the figure opens on its first frame, the
    animation slider at 0); the Streamlit slider "Frame shown" (reachable with Tab,
    unlike Plotly's SVG controls) shows frame t: the arrows where the table puts q'
    and k' at row t, the marker at (m, q'.k') of that row, the slider on t. The chart
    says so to a screen reader (its alt)."""
    at = run_page(PAGE)
    first = animation(at)
    assert first["layout"]["sliders"][0]["active"] == 0
    assert "autoplay" not in json.dumps(first["layout"]).lower()
    assert "Play" in at.get("plotly_chart")[0].proto.alt
    _name, table = csv_frame(at)
    t = 23
    at.slider(key="rot_t").set_value(t).run()
    no_exceptions(at)
    fig = animation(at)
    row = table.iloc[t]
    q_arrow, k_arrow, marker = (fig["data"][i] for i in fig["frames"][t]["traces"])
    assert q_arrow["x"][-1] == pytest.approx(row["q'_x"], abs=1e-12)
    assert k_arrow["y"][-1] == pytest.approx(row["k'_y"], abs=1e-12)
    assert marker["x"] == [row[M]] and marker["y"][0] == pytest.approx(row[DOT], abs=1e-12)
    assert fig["layout"]["sliders"][0]["active"] == t
    assert f"q at m = {int(row[M])}," in fig["layout"]["title"]["text"]
    assert len(fig["frames"]) == len(table)  # Play still has every frame
    at.slider(key="rot_frames").set_value(10).run()  # fewer frames: back to the first
    no_exceptions(at)
    assert animation(at)["layout"]["sliders"][0]["active"] == 0


def test_csv_is_the_shown_table_and_named_by_settings(default_page):
    name, from_csv = csv_frame(default_page)
    shown = shown_table(default_page)
    pd.testing.assert_frame_equal(from_csv, shown, check_dtype=False)
    assert name.startswith("rotation_pair8_dim128_base10000_advance")
    assert name.endswith(".csv")
    assert list(from_csv.columns) == SETTINGS + [
        "frame", M, N, "angle of q m*theta_i [rad]", "angle of k n*theta_i [rad]",
        "q'_x", "q'_y", "k'_x", "k'_y", DEG, RAD, DOT]
    assert from_csv["base"].tolist() == [10000] * len(from_csv)
    assert from_csv["pair i"].iloc[0] == 8 and from_csv["mode"].iloc[0] == "advance"
    assert (from_csv["q_x"].iloc[0], from_csv["q_y"].iloc[0]) == (1.0, 0.3)
    for column in from_csv.columns:
        assert column.isascii() and "[1]" not in column, column
    assert from_csv[M].dtype.kind == "i" and from_csv["dim"].dtype.kind == "i"


def test_base_and_dim_change_figure_and_table(default_page):
    at = run_page(PAGE, {"base": "500000", "dim": "64"})
    name, table = csv_frame(at)
    _, default_table = csv_frame(default_page)
    assert "dim64" in name and "base500000" in name
    assert not table[DOT].equals(default_table[DOT])
    assert figure(at, 0)["frames"] != figure(default_page, 0)["frames"]
    # pair 8 of d=64, base 5e5 turns by 500000^(-16/64) rad per token
    theta = 500000 ** (-16 / 64)
    angle, m = table["angle of q m*theta_i [rad]"].iloc[1], table[M].iloc[1]
    assert angle / m == pytest.approx(theta, rel=1e-12)


# ------------------------------------------------------------ the maths ----
def test_dot_product_is_the_closed_form():
    q, k, i, dim, base, n0 = (3.0, 4.0), (-1.0, 2.0), 5, 64, 500000.0, 7
    at = run_page(PAGE, {"base": "500000", "dim": "64", "rot_i": str(i), "rot_q": "3, 4",
                         "rot_k": "(-1, 2)", "rot_n0": str(n0), "rot_step": "4"})
    no_exceptions(at)
    assert not at.error
    _, table = csv_frame(at)
    theta = base ** (-2 * i / dim)
    assert list(table[M]) == [4 * t for t in range(len(table))]
    assert set(table[N]) == {n0}
    for _, row in table.iterrows():
        m, n = row[M], row[N]
        assert row[DOT] == pytest.approx(closed_form_dot(q, k, m, n, theta), abs=1e-9)
        # q' is q turned by m*theta: length 5, direction atan2(4, 3) + m*theta
        assert row["q'_x"] == pytest.approx(5 * math.cos(math.atan2(4, 3) + m * theta),
                                                abs=1e-9)
        assert row["q'_y"] == pytest.approx(5 * math.sin(math.atan2(4, 3) + m * theta),
                                                abs=1e-9)
        # the signed angle from q' to k', wrapped to (-180, 180]
        gap = (n - m) * theta + math.atan2(2, -1) - math.atan2(4, 3)
        wrapped = math.degrees(math.atan2(math.sin(gap), math.cos(gap)))
        assert row[DEG] == pytest.approx(wrapped, abs=1e-7)
        assert row[RAD] == pytest.approx(math.radians(wrapped), abs=1e-9)


def test_shift_both_together_keeps_the_dot_product():
    q, k, m0, n0 = (1.0, 0.3), (0.6, 0.9), 100, 40
    at = run_page(PAGE, {"rot_mode": "shift both together", "rot_m0": str(m0), "rot_n0": str(n0),
                         "rot_i": "0", "rot_frames": "120", "rot_step": "16"})
    no_exceptions(at)
    name, table = csv_frame(at)
    assert "_shift" in name
    assert len(table) == 120
    assert list(table[N] - table[M]) == [n0 - m0] * 120
    assert table[M].iloc[-1] == m0 + 119 * 16
    dots = table[DOT]
    assert dots.max() - dots.min() <= 1e-9
    # the constant is q^T R_((n-m) theta_0) k with theta_0 = 1 rad/token
    assert dots.iloc[0] == pytest.approx(closed_form_dot(q, k, m0, n0, 1.0), abs=1e-12)
    assert "constant" in " ".join(md.value for md in at.markdown)
    # the right panel shows that flat line against m without playing the animation
    line = next(t for t in figure(at, 0)["data"] if t.get("name") == "q'·k'")
    assert line["y"] is not None


# ------------------------------------------------------- bad input ----
@pytest.mark.parametrize("text", ["1, abc", "0, 0", "nan, 1", "1, 2, 3"])
def test_invalid_q_text_shows_error_not_traceback(text):
    at = run_page(PAGE, {"rot_q": text})
    assert at.error and "q" in at.error[0].value
    assert not at.get("plotly_chart")


def test_typing_invalid_k_shows_error():
    at = run_page(PAGE)
    at.text_input(key="rot_k").input("1e400, 2").run()
    no_exceptions(at)
    assert at.error and "k" in at.error[0].value


def test_malformed_url_warns():
    at = bad_link(PAGE, {"base": "abc", "dim": "-3", "rot_frames": "999",
                         "rot_mode": "sideways"})
    assert at.get("plotly_chart")  # falls back to defaults and still draws


def test_pair_index_beyond_dim_is_clamped_with_info():
    at = run_page(PAGE, {"dim": "8", "rot_i": "10"})
    assert at.info and "i = 3" in at.info[0].value
    name, table = csv_frame(at)
    assert name.startswith("rotation_pair3_dim8_")
    # last pair of d=8: theta_3 = 10000^(-6/8) = 10^-3
    angle, m = table["angle of q m*theta_i [rad]"].iloc[1], table[M].iloc[1]
    assert angle / m == pytest.approx(1e-3, rel=1e-12)


def test_dot_plot_x_axis_is_the_query_position_and_marks_the_frame(default_page):
    fig = animation(default_page)
    _, table = csv_frame(default_page)
    assert fig["layout"]["xaxis2"]["title"]["text"] == "query position m [tokens]"
    line = next(t for t in fig["data"] if t.get("name") == "q'·k'")
    assert list(array(line["x"])) == list(table[M])
    marker = next(t for t in fig["data"] if t.get("name") == "current frame")
    assert marker["x"] == [0]  # frame 0: m = m0 = 0
    for axis in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert "[1]" not in fig["layout"][axis]["title"]["text"]


def test_auto_positions_per_frame_lets_a_slow_pair_turn():
    # pair 60 of d = 128, base 10^4: theta = 10^4^(-120/128), one turn every
    # 2 pi / theta = 34,400 tokens; auto spreads one turn over the 60 frames:
    # ceil(2 pi / (theta * 59)) positions per frame
    theta = 10_000 ** (-120 / 128)
    expected = math.ceil(2 * math.pi / (theta * 59))
    assert 500 < expected < 700
    at = run_page(PAGE, {"rot_i": "60"})
    _, table = csv_frame(at)
    assert table["positions per frame [tokens]"].iloc[0] == expected
    assert table[M].tolist() == [expected * t for t in range(60)]
    total = table["angle of q m*theta_i [rad]"].iloc[-1]
    assert 2 * math.pi <= total < 2 * math.pi * 1.02
    assert not warnings(at)


def test_large_explicit_step_is_allowed():
    at = run_page(PAGE, {"rot_step": "4096", "rot_i": "63"})
    _, table = csv_frame(at)
    assert table[M].iloc[-1] == 59 * 4096


# ------------------------------------------------------------ in Chinese ----
def test_chinese_shift_clamp_warning_and_bad_vector_are_translated():
    # shift mode (its label in Chinese, as the Chinese app writes the link), a pair index
    # clamped to d = 8 and a step that turns more than half a turn per frame
    at = run_page(PAGE, {"lang": "zh", "rot_mode": "两者一起平移", "dim": "8", "rot_i": "10",
                         "rot_step": "4096"})
    no_exceptions(at)
    assert at.session_state["rot_mode"] == "shift both together"
    assert at.info and "i = 3" in at.info[0].value
    assert at.warning and "235°" in at.warning[0].value  # 4.096 rad
    assert "点积保持不变" in " ".join(md.value for md in at.markdown)
    at.toggle(key="show_rotation").set_value(True).run()  # the table and its caption
    assert untranslated(at) == {}
    # a vector with three values, then one typed in that is too large
    at = run_page(PAGE, {"lang": "zh", "rot_q": "1, 2, 3"})
    assert at.error and "3 个值" in at.error[0].value
    assert untranslated(at) == {}
    at.text_input(key="rot_q").input("1, 0.3").run()
    at.text_input(key="rot_k").input("1e400, 2").run()
    no_exceptions(at)
    assert at.error and "1e400" in at.error[0].value
    assert untranslated(at) == {}


def test_controls_and_legend_have_rows_of_their_own(default_page):
    """Screenshot review (390 px): Play/Pause covered the slider's label and ticks, the
    legend sat on the slider, and the plane beside the dot-product plot was a stamp."""
    layout = animation(default_page)["layout"]
    menu, slider = layout["updatemenus"][0], layout["sliders"][0]
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    # buttons on their own row above a full-width slider, both under the plot (paper y < 0)
    assert (slider["x"], slider["len"]) == (0.0, 1.0)
    assert menu["yanchor"] == slider["yanchor"] == "top"
    buttons_top, slider_top = -menu["y"] * plot_px, -slider["y"] * plot_px  # px under the plot
    assert 50 <= buttons_top and slider_top - buttons_top >= 40  # a button row is ~30 px
    # the legend at the figure's bottom edge, under the slider (~80 px with its ticks),
    # with room for three legend rows
    legend = layout["legend"]
    assert (legend["yref"], legend["y"], legend["yanchor"]) == ("container", 0, "bottom")
    assert layout["margin"]["b"] - slider_top >= 80 + 3 * 20
    # the plane above the dot-product plot, each the full width
    assert layout["xaxis"]["domain"] == layout["xaxis2"]["domain"] == [0.0, 1.0]
    assert min(layout["yaxis"]["domain"]) > max(layout["yaxis2"]["domain"])
