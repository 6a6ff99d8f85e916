"""Every chart of every page can be saved for a projector (issue 46): it is sent with the
mode bar's export settings (ui.figures.PLOT_CONFIG: the camera saves a PNG laid out
960 px wide at twice the pixels, 1920 px, named after the chart; zoom in, zoom out and
autoscale removed), and every page carries the script that adds the SVG button beside
the camera (ui.figures.EXPORT_SCRIPT, sent with the page's CSS). The downloads
themselves are checked in a browser (tests/test_e2e_layout.py)."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import no_exceptions, run_page

from ui import figures
from ui.navigation import PAGES


def test_the_camera_saves_a_png_1920_pixels_wide():
    options = figures.PLOT_CONFIG["toImageButtonOptions"]
    assert options["format"] == "png" and options["width"] * options["scale"] == 1920
    assert "height" not in options  # the chart's own height, at the same scale


def test_the_svg_script_names_its_button_in_the_run_language():
    assert '"Download plot as SVG"' in figures.export_script("en")
    assert '"下载 SVG 矢量图"' in figures.export_script("zh")
    assert "TITLE" not in figures.export_script("en")


@pytest.mark.parametrize("page", [spec.name for spec in PAGES if spec.charts])
def test_every_chart_is_sent_with_the_export_settings(page):
    at = run_page(page)
    no_exceptions(at)
    charts = at.get("plotly_chart")
    assert charts
    for chart in charts:
        config = json.loads(chart.proto.config)
        key = chart.key
        assert config["displaylogo"] is False
        assert config["modeBarButtonsToRemove"] == ["zoomIn2d", "zoomOut2d", "autoScale2d"]
        assert config["toImageButtonOptions"] == {
            "format": "png", "width": 960, "scale": 2,
            "filename": "rope-explorer" + (f"-{key}" if key else "")}
    scripts = [h.proto.body for h in at.get("html") if h.proto.unsafe_allow_javascript]
    # one export script a page (the navigation's links have a script of their own)
    assert sum("rope-svg-export" in body for body in scripts) == 1
