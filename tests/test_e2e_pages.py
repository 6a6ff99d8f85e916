"""Every page in a real browser, opened once per language: each check that needs a page's
state at a width runs on that one load (tests/e2e_checks.py holds the checks).

Per page of ui/navigation.PAGES (a page added later is checked too):

* English (an en-US browser, no ``?lang=``), 1400 px: the page draws its Plotly charts
  without an exception, an st.error or a warning (``test_page_draws_charts_without_errors``);
  axe-core finds no serious or critical violation nor a skipped heading level, and every
  chart has its text alternative (``test_page_has_no_serious_axe_violation``); the
  navigation lists every page in lesson order and marks this one
  (``test_page_marks_itself_in_the_navigation``); the layout checks
  (``test_page_fits_the_window``: nothing wider than the window or sticking out past its
  right edge, sliders' thumbs and values inside their slider, no label cut with an
  ellipsis, plot and axis titles inside their chart, tick labels at 4.5:1 contrast, the
  hovered mode bar of every chart covering none of its text and no plot area).
* The window narrowed to 800 px: the layout checks again.
* Narrowed to 390 px (a phone; Streamlit tucks the sidebar away): the layout checks, the
  sidebar closed and every plot full width; axe again.
* Chinese (a zh-CN browser, no ``?lang=``: the browser's language decides), 1400 px: the
  page is in Chinese and the address says ``lang=zh``; no missing-glyph boxes
  (``test_page_in_chinese_draws_every_glyph``: Chromium reports, through the DevTools
  protocol, which platform fonts drew each element's glyphs, ``CSS.getPlatformFontsForNode``;
  every element with Chinese characters has at least as many glyphs drawn by a CJK font as
  it has Chinese characters); axe and the navigation's mark; narrowed to 390 px, axe again.

Narrowing the window gives the page a fresh load at that width would give (checked when
this module was written: the same sidebar, columns, chart boxes, overflow, tick and mode
bar findings at 800 and 390 px on five pages; only the scroll position differed, which
the mode bar's check now puts back). So a page is loaded twice, not seven times as when
each check had its own file. The first test that needs a page runs every check of it and
keeps each one's outcome (None, or the failure's message); each test then reports its own
(page, language, width, check), so a failure still says which.

Also here: an English browser gets English, a link's language wins over the browser's, and
the glyph check itself fails in a Chromium that has no CJK font. With ROPE_SCREENSHOTS=1:
artifacts/screenshots/<page>.png, <page>-<width>.png, zh-<page>.png. axe's results (with
the moderate and minor findings) go to artifacts/axe-results.json.

Run:  .venv/bin/python -m pytest tests/test_e2e_pages.py -v  (-k <page> for one page)
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import e2e_server as e2e
import pytest

e2e.skip_without_browser()

import e2e_checks as checks  # noqa: E402
from playwright.sync_api import Page  # noqa: E402

WIDTHS = (1400, 800, 390)
AXE_WIDTHS = (1400, 390)
LANGUAGES = ("en", "zh")
LOCALES = {"en": "en-US", "zh": "zh-CN"}


# ------------------------------------------------------------- fixtures ----
# browser: tests/conftest.py
@pytest.fixture(scope="module")
def server(browser):
    with e2e.warmed_server(browser, "e2e-pages-server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def visit(browser, server):
    """visit(name) -> {check: None or its failure's message} for every check of the page,
    run on its first call (one English and one Chinese load), kept for the others."""
    tabs = {lang: e2e.new_page(browser, viewport={"width": WIDTHS[0], "height": checks.HEIGHT},
                               locale=LOCALES[lang])
            for lang in LANGUAGES}
    done: dict[str, dict[str, str | None]] = {}

    def run(name: str) -> dict[str, str | None]:
        if name not in done:
            done[name] = {}
            for lang in LANGUAGES:
                _check_page(tabs[lang], server, name, lang, done[name])
        return done[name]

    yield run
    for page in tabs.values():
        page.context.close()
    if checks.RESULTS:
        e2e.ARTIFACTS.mkdir(exist_ok=True)
        (e2e.ARTIFACTS / "axe-results.json").write_text(json.dumps(checks.RESULTS, indent=1,
                                                               ensure_ascii=False))


# ---------------------------------------------------------------- the pass ----
def _key(check: str, lang: str, width: int | None = None) -> str:
    return f"{check} {lang}" + ("" if width is None else f" {width}px")


def _record(found: dict[str, str | None], key: str, check: Callable[..., None],
            *args) -> None:
    """Run one check, ``check(*args)``; keep None, or what failed (its assertion's
    message)."""
    try:
        check(*args)
        found[key] = None
    except Exception as err:  # noqa: BLE001 (an error is that check's failure)
        found[key] = f"{type(err).__name__}: {err}"


def _screenshot(page: Page, name: str) -> None:
    e2e.full_page_screenshot(page, e2e.SHOTS / f"{name}.png")


def _check_page(page: Page, server, name: str, lang: str,
                found: dict[str, str | None]) -> None:
    """Open ``name`` in ``lang`` at 1400 px, run its checks, narrow, run those of each
    narrower width. A step that cannot run (the page does not open) fails every check
    after it."""
    widths = WIDTHS if lang == "en" else AXE_WIDTHS
    try:
        for width in widths:  # no ?lang=: the browser's language decides
            checks.open_at(page, server, e2e.PAGES[name], width)
            where = f"{name} {lang} {width}px"
            if width == WIDTHS[0]:
                if lang == "en":
                    _record(found, _key("charts", lang), _charts_drawn, page, server, name)
                else:
                    _record(found, _key("glyphs", lang), _chinese_glyphs, page, name)
            if width in AXE_WIDTHS:
                _record(found, _key("axe", lang, width),
                        checks.assert_accessible, page, server, where, name)
            if width == WIDTHS[0]:
                _record(found, _key("nav", lang),
                        checks.assert_navigation_marks, page, where, name)
            if lang == "en":
                _record(found, _key("fits", lang, width),
                        _fits_the_window, page, server, name, width)
    except Exception as err:  # noqa: BLE001 (the page did not open or reflow)
        for width in widths:
            for check in ("charts", "glyphs", "nav", "axe", "fits"):
                for key in (_key(check, lang), _key(check, lang, width)):
                    found.setdefault(key, f"not checked: {type(err).__name__}: {err}")


def _charts_drawn(page: Page, server, name: str) -> None:
    _screenshot(page, name)
    checks.assert_no_errors(page, server)
    if name in e2e.CHART_PAGES:
        assert page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg').count() \
            >= 1, f"{e2e.PAGES[name]} drew no Plotly chart"
    warnings = page.locator('[data-testid="stAlertContentWarning"]')
    assert not warnings.count(), warnings.all_inner_texts()


def _chinese_glyphs(page: Page, name: str) -> None:
    assert page.locator('[data-testid="stSidebar"] h2').first.inner_text().strip() == "设置"
    assert "lang=zh" in page.url
    assert not page.locator('[data-testid="stException"]').count()
    if name in e2e.CHART_PAGES:
        assert page.locator('[data-testid="stPlotlyChart"] .main-svg').count() >= 1
    _screenshot(page, f"zh-{name}")
    checked, problems = checks.glyph_problems(page)
    assert checked >= 3, f"only {checked} elements with Chinese text on {name}"
    assert not problems, problems[:5]


def _fits_the_window(page: Page, server, name: str, width: int) -> None:
    _screenshot(page, f"{name}-{width}")
    checks.assert_no_errors(page, server)
    problems = page.evaluate(checks.OVERFLOW_JS)
    assert not problems, f"{e2e.PAGES[name]} at {width} px:\n" + "\n".join(problems)
    for chart in checks.tick_report(page, expect=name in e2e.CHART_PAGES):
        for tick in chart["ticks"]:
            ratio = checks.contrast(tick["fill"], chart["background"])
            assert ratio >= checks.MIN_CONTRAST, (chart["title"], tick)
    problems = checks.mode_bar_report(page)
    assert not problems, f"{e2e.PAGES[name]} at {width} px:\n" + "\n".join(problems)
    if width < 640:  # a phone: the sidebar is tucked away, every plot is full width
        box = page.locator('[data-testid="stSidebar"]').bounding_box()
        assert box is None or box["x"] + box["width"] <= 1, f"sidebar open: {box}"
        charts = page.evaluate(checks.CHARTS_JS)
        main = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
        content = main["width"] - 2 * 16  # its padding on a phone (1rem each side)
        assert all(c["width"] >= 0.9 * content for c in charts), (content, charts)


def _outcome(found: dict[str, str | None], key: str, name: str) -> None:
    assert key in found, f"{name}: {key} was not run"
    assert found[key] is None, f"{name}, {key}:\n{found[key]}"


# ---------------------------------------------------------------- tests ----
@pytest.mark.parametrize("name", list(e2e.PAGES))
def test_page_draws_charts_without_errors(visit, name):
    _outcome(visit(name), _key("charts", "en"), name)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(e2e.PAGES))
def test_page_fits_the_window(visit, name, width):
    _outcome(visit(name), _key("fits", "en", width), name)


@pytest.mark.parametrize("width", AXE_WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(e2e.PAGES))
def test_page_has_no_serious_axe_violation(visit, name, lang, width):
    _outcome(visit(name), _key("axe", lang, width), name)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(e2e.PAGES))
def test_page_marks_itself_in_the_navigation(visit, name, lang):
    _outcome(visit(name), _key("nav", lang), name)


@pytest.mark.parametrize("name", list(e2e.PAGES))
def test_page_in_chinese_draws_every_glyph(visit, name):
    _outcome(visit(name), _key("glyphs", "zh"), name)


def test_streamlit_owned_violations_are_still_there():
    """Each listed Streamlit violation is still found (on a full run): when an
    upgrade fixes one, its entry must go."""
    if len(checks.RESULTS) < len(AXE_WIDTHS) * len(e2e.PAGES) * len(LANGUAGES):
        pytest.skip("needs every page checked (run the whole module)")
    found = {n["owner"] for vs in checks.RESULTS.values() for v in vs for n in v["nodes"]}
    missing = [o["rule"] for i, o in enumerate(checks.STREAMLIT_OWNED) if i not in found]
    assert not missing, f"no longer found, remove from STREAMLIT_OWNED: {missing}"


# ------------------------------------------------------ the browser's language ----
def _sidebar_header(page: Page) -> str:
    return page.locator('[data-testid="stSidebar"] h2').first.inner_text().strip()


def test_english_browser_gets_english(browser, server):
    page = e2e.new_page(browser, viewport={"width": 1400, "height": checks.HEIGHT}, locale="en-US")
    try:
        e2e.open_path(page, server, "/frequencies")
        assert _sidebar_header(page) == "Settings"
        assert "lang=en" in page.url
    finally:
        page.context.close()


def test_link_language_wins_over_the_browser(browser, server):
    page = e2e.new_page(browser, viewport={"width": 1400, "height": checks.HEIGHT}, locale="zh-CN")
    try:
        e2e.open_path(page, server, "/frequencies?lang=en")
        assert _sidebar_header(page) == "Settings"
    finally:
        page.context.close()


def test_the_glyph_check_sees_missing_fonts(browser, server, tmp_path):
    """The same check in a Chromium whose fontconfig knows no CJK font (DejaVu
    only): Chinese is drawn as missing-glyph boxes, and the check reports it."""
    dejavu = "/usr/share/fonts/truetype/dejavu"
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                    f"<fontconfig><dir>{dejavu}</dir>"
                    f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>")
    if not os.path.isdir(dejavu):
        pytest.skip("no DejaVu fonts to build a font set without CJK")
    b = browser.browser_type.launch(executable_path=e2e.CHROMIUM, headless=True,
                                    args=e2e.CHROMIUM_ARGS,
                                    env={**os.environ, "FONTCONFIG_FILE": str(conf)})
    try:
        page = e2e.new_page(b, viewport={"width": 1400, "height": checks.HEIGHT}, locale="zh-CN")
        e2e.open_path(page, server, "/frequencies")
        checked, problems = checks.glyph_problems(page)
    finally:
        b.close()
    assert checked >= 3 and len(problems) == checked, (checked, problems[:3])
