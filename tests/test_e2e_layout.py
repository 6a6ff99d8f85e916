"""Layout in a real browser: every page at a desktop (1400 px), a projector or
small laptop (800 px) and a phone (390 px) width, and the presentation setting.

For every page in the navigation and each width it checks that nothing makes
the page wider than the window (the document and Streamlit's own scrolling
containers), that no heading, button, label, caption, alert, formula box or
chart sticks out past the right edge (a formula may scroll inside its own box),
that a slider's thumb and value stay inside the slider (at its largest value too),
that no label is cut short with an ellipsis,
that plot titles and axis titles are drawn inside their chart, that the mode bar of every
chart, hovered, covers none of its text and no plot area, that tick labels
have a contrast of at least 4.5:1 against the chart's background, and at 390 px
that the sidebar is collapsed and plots take the full width (columns stacked).
``?present=true`` must draw tick labels of at least 18 px, still at 4.5:1.

With ROPE_SCREENSHOTS=1, full-page screenshots for a person to look at:
artifacts/screenshots/<page>-<width>.png and <page>-present-<width>.png.
One server and one browser for the module, one
browser tab per width reused for every page. Skipped when Chromium or
Playwright is missing, unless ROPE_REQUIRE_BROWSER is set (then an error).

Run:  .venv/bin/python -m pytest tests/test_e2e_layout.py -v
"""

from __future__ import annotations

import pytest
from e2e_server import (
    PAGES,
    SHOTS,
    full_page_screenshot,
    new_page,
    open_path,
    skip_without_browser,
    warmed_server,
)

skip_without_browser()

from e2e_checks import (  # noqa: E402
    CHARTS_JS,
    HEIGHT,
    MIN_CONTRAST,
    OVERFLOW_JS,
    assert_no_errors,
    contrast,
    mode_bar_report,
    open_at,
    tick_report,
)
from playwright.sync_api import Page  # noqa: E402

PRESENT_TICK_PX = 18
PRESENT_PAGES = ("overview", "frequencies", "decay", "real_models")
PRESENT_WIDTHS = (1400, 800)


# ------------------------------------------------------------- fixtures ----
# browser: tests/conftest.py
@pytest.fixture(scope="module")
def server(browser):
    with warmed_server(browser, "e2e-layout-server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def tab(browser, server):
    """One tab for the module: each page is opened at its widest window, then narrowed
    (e2e_checks.open_at)."""
    page = new_page(browser, viewport={"width": 1400, "height": HEIGHT})
    yield page
    page.context.close()


# -------------------------------------------------------------- helpers ----
def screenshot(page: Page, name: str) -> None:
    full_page_screenshot(page, SHOTS / f"{name}.png")


def test_contrast_helper():
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("rgb(31, 35, 40)", "#fff") > 15
    assert contrast("#808495", "#ffffff") < 4.5  # Streamlit's grey axis text


# ---------------------------------------------------------------- tests ----
# Controls at their largest values (issue 18): sliders whose thumb sits at the right end.
EXTREMES = {"decay": "?decay_max=1000000&decay_trials=256",
            "rotation": "?rot_step=4096&rot_frames=120&rot_i=511",
            "sinusoidal": "?sin_positions=4096&sin_dmodel=512"}


@pytest.mark.parametrize("width", (800, 390))
@pytest.mark.parametrize("name", list(EXTREMES))
def test_controls_at_their_largest_values_fit(tab, server, name, width):
    page = tab
    open_at(page, server, PAGES[name] + EXTREMES[name] + "&dim=1024&base=100000000", width)
    screenshot(page, f"{name}-largest-{width}")
    assert_no_errors(page, server)
    problems = page.evaluate(OVERFLOW_JS)
    assert not problems, f"{PAGES[name]} at its largest values, {width} px:\n" + \
        "\n".join(problems)


@pytest.mark.parametrize("width", PRESENT_WIDTHS)
@pytest.mark.parametrize("name", PRESENT_PAGES)
def test_presentation_mode_has_large_high_contrast_axis_text(tab, server, name, width):
    page = tab
    open_at(page, server, PAGES[name] + "?present=true", width)
    screenshot(page, f"{name}-present-{width}")
    assert_no_errors(page, server)
    assert not page.locator('[data-testid="stAlertContentWarning"]').count()
    assert "present=true" in page.url
    for chart in tick_report(page):
        # the labels of a log axis between powers of ten ("2", "5") are drawn at
        # 3/4 of the tick font by Plotly: the main labels must reach 18 px
        assert max(t["size"] for t in chart["ticks"]) >= PRESENT_TICK_PX, chart
        for tick in chart["ticks"]:
            assert tick["size"] >= 0.75 * PRESENT_TICK_PX, (chart["title"], tick)
            assert contrast(tick["fill"], chart["background"]) >= MIN_CONTRAST, (chart["title"],
                                                                                 tick)
    problems = page.evaluate(OVERFLOW_JS) + mode_bar_report(page)
    assert not problems, f"{PAGES[name]}?present=true at {width} px:\n" + "\n".join(problems)
    if width >= 800:  # plots fill the width: columns of plots are stacked
        charts = page.evaluate(CHARTS_JS)
        widest = max(c["width"] for c in charts)
        assert all(c["width"] >= 0.95 * widest for c in charts), charts


def test_a_chart_saves_a_projector_png_and_an_svg_from_its_mode_bar(tab, server):
    """Issue 46: the camera saves the chart as a PNG 1920 px wide (laid out 960 px wide at
    twice the pixels, the chart's own height), and the SVG button beside it (ui.figures.
    EXPORT_SCRIPT, on every chart's mode bar) the same chart as a vector image, 960 px
    wide; both named after the chart. The SVG button stands in the camera's row (a second
    row would reach down onto the title) and its tooltip and name are in the page's
    language."""
    import pathlib
    import re

    from PIL import Image

    page = tab
    open_at(page, server, PAGES["frequencies"], 1400)
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    for i in range(charts.count()):
        charts.nth(i).hover()
        assert charts.nth(i).locator(".modebar .rope-svg-export").count() == 1
    chart = charts.first
    height = page.evaluate("() => document.querySelector('.js-plotly-plot')._fullLayout.height")
    buttons = chart.locator(".modebar-btn")
    assert buttons.nth(1).get_attribute("data-title") == "Download plot as SVG"
    assert buttons.nth(1).get_attribute("aria-label") == "Download plot as SVG"
    chart.hover()
    camera, svg_button = buttons.nth(0).bounding_box(), buttons.nth(1).bounding_box()
    assert svg_button["y"] == camera["y"] and svg_button["x"] >= camera["x"] + camera["width"]
    chart.hover()
    with page.expect_download() as png:
        buttons.first.click()
    assert png.value.suggested_filename == "rope-explorer-theta_plot.png"
    assert Image.open(png.value.path()).size == (1920, 2 * height)
    chart.hover()
    with page.expect_download() as svg:
        chart.locator(".rope-svg-export").click()
    assert svg.value.suggested_filename == "rope-explorer-theta_plot.svg"
    text = pathlib.Path(svg.value.path()).read_text()
    assert text.startswith("<svg") and re.search(r'width="960" height="(\d+)"', text)
    open_path(page, server, PAGES["frequencies"] + "?lang=zh")
    charts.first.hover()
    assert charts.first.locator(".rope-svg-export").get_attribute("data-title") == "下载 SVG 矢量图"
