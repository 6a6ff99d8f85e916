"""Presentation mode (?present=true): a transform of the shared cached figure in
ui.show, never a change to it, and the setting's place in the link."""

import copy
import json

import plotly.graph_objects as go
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
