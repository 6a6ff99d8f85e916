"""Presentation mode (?present=true): a transform of the shared cached figure in
ui.show, never a change to it, and the setting's place in the link."""

import copy
import json

import plotly.graph_objects as go
import pytest
from apptest_helpers import figure, no_exceptions, record_shows, run_page

import ui
from ui.figures import present_spec


def _sample() -> ui.Frozen:
    fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 0], mode="lines+markers"))
    fig.frames = [go.Frame(name="0", data=[dict(type="scatter", x=[0], y=[1])],
                           layout=dict(title_text="frame 0"))]
    return ui.freeze(ui.style(fig, title="t", x="x [tokens]", y="y", height=400))


def test_present_spec_scales_a_copy_and_leaves_the_original():
    frozen = _sample()
    before = copy.deepcopy(frozen.spec)
    shown = ui.presented(frozen)
    assert frozen.spec == before  # the shared object is untouched
    assert ui.presented(frozen) is shown  # made once, kept on the Frozen
    layout = shown.spec["layout"]
    assert layout["font"]["size"] == 1.5 * ui.FONT["size"]
    assert layout["height"] == (400 + ui.figures.MODE_BAR_PX) * 1.25  # the mode bar strip too
    assert layout["xaxis"]["tickfont"]["size"] >= 18
    assert layout["xaxis"]["tickfont"]["color"] == ui.figures.TEXT
    assert shown.spec["data"][0]["line"]["width"] > 2
    assert shown.spec["data"][0]["marker"]["size"] > 6
    assert shown.spec["frames"][0]["data"][0]["line"]["width"] > 2
    assert shown.spec["frames"][0]["layout"]["title"]["font"]["size"] == \
        layout["title"]["font"]["size"]
    assert shown.spec["data"][0]["x"] is frozen.spec["data"][0]["x"]  # data shared, not copied


def test_present_spec_of_a_built_figure():
    spec = present_spec(json.loads(ui.style(go.Figure(), title="t", x="x", y="y").to_json()))
    assert spec["layout"]["font"]["size"] == 21


def test_long_titles_are_wrapped_for_a_phone():
    title = ui.figures.wrap_title("Wavelength λᵢ = 2π/θᵢ: tokens for one full turn (log scale)")
    assert title.count("<br>") == 1
    assert all(len(line) <= ui.figures.TITLE_CHARS for line in title.split("<br>"))
    assert ui.figures.wrap_title("short") == "short"


def test_present_link_is_accepted_and_enlarges_the_figure_sent(monkeypatch):
    shows = record_shows(monkeypatch)
    at = run_page("frequencies", {"present": "true"})
    assert not at.first_warnings and not at.warning
    assert at.toggle(key="present").value is True
    cached = shows["theta_plot"]
    assert isinstance(cached, ui.Frozen)
    kept = json.dumps(cached.spec)
    sent = figure(at, 0)
    assert sent["layout"]["font"]["size"] == 21
    assert sent["layout"]["xaxis"]["tickfont"]["size"] >= 18
    assert json.dumps(cached.spec) == kept  # the shared figure is not changed
    assert cached.spec["layout"]["font"]["size"] == ui.FONT["size"]

    shows.clear()
    normal = run_page("frequencies")
    no_exceptions(normal)
    assert shows["theta_plot"] is cached  # the same cached figure for every visitor
    assert figure(normal, 0)["layout"]["font"]["size"] == ui.FONT["size"]
    assert normal.toggle(key="present").value is False


def test_present_link_with_a_bad_value_warns():
    at = run_page(None, {"present": "yes"})
    assert any("present = “yes”" in w for w in at.first_warnings), at.first_warnings
    assert at.toggle(key="present").value is False


def test_rotation_in_presentation_mode_enlarges_every_title_line_and_keeps_its_bounds_clear():
    """Issue 46: in presentation mode Rotation's "angle from q′ to k′" and "q′·k′" lines
    (a smaller span of the title, in every frame) grow with every other font, and the
    ±|q||k| labels sit in the bands between their dotted lines and the plot's edges, where
    the curve never goes (|q′·k′| ≤ |q||k|), each band taller than a label's line."""
    import re

    at = run_page("rotation", {"present": "true"})
    no_exceptions(at)
    spec = next(f for f in (figure(at, i) for i in range(len(at.get("plotly_chart"))))
                if f.get("frames"))
    layout = spec["layout"]
    title_size = layout["title"]["font"]["size"]
    assert title_size == 1.5 * ui.figures.TITLE_SIZE
    for text in [layout["title"]["text"]] + [f["layout"]["title"]["text"] for f in spec["frames"]]:
        assert re.findall(r"font-size:([0-9.]+)px", text) == ["22.5"]  # 15 px × 1.5
        assert "angle from q' to k'" in text and "q'·k' = " in text
    notes = {n["text"]: n for n in layout["annotations"] if "|q||k|" in n["text"]}
    low, high = layout["yaxis2"]["range"]
    bound = high / 1.3
    assert low == -high
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    panel_px = plot_px * (layout["yaxis2"]["domain"][1] - layout["yaxis2"]["domain"][0])
    band_px = panel_px * (high - bound) / (high - low)
    line_px = 1.25 * layout["font"]["size"]  # a label's line
    assert band_px > line_px, (band_px, line_px)
    for text, side, anchor in (("+|q||k|", 1, "bottom"), ("−|q||k|", -1, "top")):
        note = notes[text]
        assert note["y"] == pytest.approx(side * bound) and note["yanchor"] == anchor
        assert side * note.get("yshift", 0) >= 0  # away from the curve, towards the edge
