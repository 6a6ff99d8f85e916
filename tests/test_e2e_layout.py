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
    CHART_PAGES,
    PAGES,
    SHOTS,
    StreamlitServer,
    full_page_screenshot,
    new_page,
    open_path,
    skip_without_browser,
    warmed_server,
)

skip_without_browser()

from playwright.sync_api import Page  # noqa: E402

WIDTHS = (1400, 800, 390)
HEIGHT = 900
MIN_CONTRAST = 4.5
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
def tabs(browser, server):
    """One tab per width, created on first use and reused for every page."""
    opened: dict[int, Page] = {}

    def tab(width: int) -> Page:
        if width not in opened:
            opened[width] = new_page(browser, viewport={"width": width, "height": HEIGHT})
        return opened[width]

    yield tab
    for page in opened.values():
        page.context.close()


# -------------------------------------------------------------- helpers ----
def screenshot(page: Page, name: str) -> None:
    full_page_screenshot(page, SHOTS / f"{name}.png")


# Everything that sticks out past the right edge of the window, with what it
# is; an element inside a formula box or a table that scrolls sideways is
# allowed (that box itself is checked). Also: the document and Streamlit's
# scrolling containers must not be wider than the window.
OVERFLOW_JS = """
() => {
  const W = window.innerWidth;
  const out = [];
  const de = document.documentElement;
  if (de.scrollWidth > W) out.push(`document scrollWidth ${de.scrollWidth} > ${W}`);
  for (const id of ['stMain', 'stAppViewContainer', 'stMainBlockContainer']) {
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (el && el.scrollWidth > el.clientWidth + 1)
      out.push(`${id} scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
  }
  // a box of its own that scrolls sideways: a formula, a table, a wide figure on a phone
  const scrollBox = el => {
    for (let p = el; p && !['stMain', 'stAppViewContainer'].includes(p.dataset.testid);
         p = p.parentElement) {
      if (p.matches('.katex-display, [data-testid="stDataFrame"]')) return p;
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return p;
    }
    return null;
  };
  const selector = 'h1, h2, h3, h4, h5, h6, button, label, [data-testid="stWidgetLabel"],'
    + ' [data-testid="stPlotlyChart"], [data-testid="stCaptionContainer"],'
    + ' [data-testid="stAlert"], [data-testid="stMetric"], [data-testid="stExpander"],'
    + ' .katex-display, [data-testid="stDataFrame"], [data-testid="stMarkdownContainer"] p';
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= 0) continue;  // hidden, or off to the left
    const box = scrollBox(el.parentElement || el);
    if (box && box !== el) continue;
    if (r.right > W + 1) {
      const text = (el.innerText || el.getAttribute('aria-label') || '').trim().slice(0, 60);
      out.push(`${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') || ''}] `
               + `"${text}" right ${Math.round(r.right)} > ${W}`);
    }
  }
  // a slider's thumb and the value above it stay inside the slider, also at its largest
  // value (issue 18: "Base after tuning", "Largest position" at their maximum)
  const inMain = sel => document.querySelectorAll(`[data-testid="stMain"] ${sel}`);
  for (const slider of inMain('[data-testid="stSlider"]')) {
    const box = slider.getBoundingClientRect();
    const input = slider.querySelector('input[type=range]');
    if (!input || box.width === 0) continue;
    const parts = [input.parentElement.parentElement,
                   slider.querySelector('[data-testid="stSliderThumbValue"]')];
    for (const part of parts.filter(Boolean)) {
      const r = part.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.right > W + 1)
        out.push(`slider "${slider.innerText.split('\\n')[0].slice(0, 40)}": thumb or value `
                 + `[${Math.round(r.left)}, ${Math.round(r.right)}] outside its slider `
                 + `[${Math.round(box.left)}, ${Math.round(box.right)}]`);
    }
    // its value stands above its thumb, not on the track (presentation mode, issue 46)
    const value = parts[1] && parts[1].getBoundingClientRect();
    const thumb = parts[0].getBoundingClientRect();
    if (value && value.bottom > thumb.top + 1)
      out.push(`slider "${slider.innerText.split('\\n')[0].slice(0, 40)}": its value `
               + `(bottom ${Math.round(value.bottom)}) is drawn over its thumb (top `
               + `${Math.round(thumb.top)})`);
  }
  // no label is cut short with an ellipsis ("every token has the same …")
  for (const el of inMain('[data-testid="stMarkdownContainer"]')) {
    if (getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1)
      out.push(`label cut with an ellipsis: "${el.innerText.slice(0, 60)}"`);
  }
  // plot titles and axis titles are drawn inside their chart (an SVG clips them)
  for (const svg of document.querySelectorAll('[data-testid="stPlotlyChart"] .main-svg')) {
    const s = svg.getBoundingClientRect();
    const root = svg.closest('.js-plotly-plot');
    for (const t of root.querySelectorAll('.gtitle, .xtitle, .ytitle, .g-xtitle text,'
                                          + ' .g-ytitle text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < s.left - 1 || r.right > s.right + 1)
        out.push(`plot text "${t.textContent.slice(0, 60)}" [${Math.round(r.left)}, `
                 + `${Math.round(r.right)}] outside its chart [${Math.round(s.left)}, `
                 + `${Math.round(s.right)}]`);
    }
  }
  return out;
}
"""

# Per chart: the computed size and fill of its tick labels, and its background.
TICKS_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot'))
  .map(gd => {
    const ticks = Array.from(gd.querySelectorAll('.xtick text, .ytick text'));
    return {title: (gd._fullLayout.title && gd._fullLayout.title.text) || '',
            background: gd._fullLayout.paper_bgcolor,
            ticks: ticks.map(t => { const s = getComputedStyle(t);
                                    return {size: parseFloat(s.fontSize), fill: s.fill}; })};
  })
"""

CHARTS_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).map(c => {
  const r = c.getBoundingClientRect(); return {left: r.left, width: r.width}; })
"""


# One chart, hovered: the box of Plotly's mode bar (drawn over the chart's top right corner
# while the pointer is on it), whether it is shown, and every text (title, subplot titles
# and other annotations, legend, axis titles, tick labels, colour bar) and plot area it
# overlaps.
MODE_BAR_JS = """
(i) => {
  const gd = document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')[i];
  const bar = gd.querySelector('.modebar');
  if (!bar) return {shown: false, covered: []};
  const m = bar.getBoundingClientRect();
  const covered = [];
  const parts = '.gtitle, .annotation-text-g, .legendtext, .g-xtitle, .g-ytitle, .xtick text,'
    + ' .ytick text, .cbtitle, .colorbar text, .draglayer .nsewdrag';
  for (const el of gd.querySelectorAll(parts)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.left < m.right && r.right > m.left && r.top < m.bottom && r.bottom > m.top)
      covered.push(`${el.classList.contains('nsewdrag') ? 'the plot area' : '"'
                    + el.textContent.slice(0, 50) + '"'} [${Math.round(r.left)}, `
                   + `${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`);
  }
  return {shown: parseFloat(getComputedStyle(bar).opacity) > 0.9 && m.width > 0,
          bar: [m.left, m.top, m.right, m.bottom].map(Math.round), covered};
}
"""


def mode_bar_report(page: Page) -> list[str]:
    """Hover every chart in turn; what its mode bar covers (nothing, on every page)."""
    problems = []
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    for i in range(charts.count()):
        charts.nth(i).hover()
        page.wait_for_timeout(350)  # Plotly fades the mode bar in over 0.3 s
        found = page.evaluate(MODE_BAR_JS, i)
        if not found["shown"] or found["covered"]:
            problems.append(f"chart {i}: mode bar {found.get('bar')} shown {found['shown']}, "
                            f"covers {found['covered']}")
    page.mouse.move(0, 0)
    return problems


def _rgb(colour: str) -> tuple[float, float, float]:
    colour = colour.strip()
    if colour.startswith("#"):
        h = colour[1:]
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))
    parts = colour[colour.index("(") + 1:colour.index(")")].split(",")
    return tuple(float(p) for p in parts[:3])


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two CSS colours."""
    def luminance(colour: str) -> float:
        channels = [c / 255 for c in _rgb(colour)]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def tick_report(page: Page, expect: bool = True) -> list[dict]:
    """Charts with tick labels (a diagram drawn without axes has none)."""
    charts = page.evaluate(TICKS_JS)
    if expect:
        assert any(c["ticks"] for c in charts), charts
    return [c for c in charts if c["ticks"]]


def assert_no_errors(page: Page, server: StreamlitServer) -> None:
    bad = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
    assert not bad.count(), (f"{page.url}: {bad.all_inner_texts()}; "
                             f"server log tail:\n{server.log_tail(2000)}")


def test_contrast_helper():
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("rgb(31, 35, 40)", "#fff") > 15
    assert contrast("#808495", "#ffffff") < 4.5  # Streamlit's grey axis text


# ---------------------------------------------------------------- tests ----
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(PAGES))
def test_page_fits_the_window(tabs, server, name, width):
    page = tabs(width)
    open_path(page, server, PAGES[name])
    screenshot(page, f"{name}-{width}")
    assert_no_errors(page, server)
    problems = page.evaluate(OVERFLOW_JS)
    assert not problems, f"{PAGES[name]} at {width} px:\n" + "\n".join(problems)
    for chart in tick_report(page, expect=name in CHART_PAGES):
        for tick in chart["ticks"]:
            assert contrast(tick["fill"], chart["background"]) >= MIN_CONTRAST, (chart["title"],
                                                                                 tick)
    problems = mode_bar_report(page)
    assert not problems, f"{PAGES[name]} at {width} px:\n" + "\n".join(problems)
    if width < 640:  # a phone: the sidebar is tucked away, every plot is full width
        box = page.locator('[data-testid="stSidebar"]').bounding_box()
        assert box is None or box["x"] + box["width"] <= 1, f"sidebar open: {box}"
        charts = page.evaluate(CHARTS_JS)
        main = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
        content = main["width"] - 2 * 16  # its padding on a phone (1rem each side)
        assert all(c["width"] >= 0.9 * content for c in charts), (content, charts)


# Controls at their largest values (issue 18): sliders whose thumb sits at the right end.
EXTREMES = {"decay": "?decay_max=1000000&decay_trials=256",
            "rotation": "?rot_step=4096&rot_frames=120&rot_i=511",
            "sinusoidal": "?sin_positions=4096&sin_dmodel=512"}


@pytest.mark.parametrize("width", (800, 390))
@pytest.mark.parametrize("name", list(EXTREMES))
def test_controls_at_their_largest_values_fit(tabs, server, name, width):
    page = tabs(width)
    open_path(page, server, PAGES[name] + EXTREMES[name] + "&dim=1024&base=100000000")
    screenshot(page, f"{name}-largest-{width}")
    assert_no_errors(page, server)
    problems = page.evaluate(OVERFLOW_JS)
    assert not problems, f"{PAGES[name]} at its largest values, {width} px:\n" + \
        "\n".join(problems)


@pytest.mark.parametrize("width", PRESENT_WIDTHS)
@pytest.mark.parametrize("name", PRESENT_PAGES)
def test_presentation_mode_has_large_high_contrast_axis_text(tabs, server, name, width):
    page = tabs(width)
    open_path(page, server, PAGES[name] + "?present=true")
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


def test_a_chart_saves_a_projector_png_and_an_svg_from_its_mode_bar(tabs, server):
    """Issue 46: the camera saves the chart as a PNG 1920 px wide (laid out 960 px wide at
    twice the pixels, the chart's own height), and the SVG button beside it (ui.figures.
    EXPORT_SCRIPT, on every chart's mode bar) the same chart as a vector image, 960 px
    wide; both named after the chart. The SVG button stands in the camera's row (a second
    row would reach down onto the title) and its tooltip and name are in the page's
    language."""
    import pathlib
    import re

    from PIL import Image

    page = tabs(1400)
    open_path(page, server, PAGES["frequencies"])
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
