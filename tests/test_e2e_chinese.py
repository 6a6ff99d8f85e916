"""The Chinese app in a real browser (Chromium with a zh-CN locale, 1400 px).

* A browser that prefers Chinese opens the app in Chinese without ``?lang=``,
  and the address then carries ``lang=zh``; an English browser gets English.
* Every page is screenshotted in Chinese (artifacts/screenshots/zh-<page>.png).
* No missing-glyph boxes: for the page's text (Markdown, headings, widget labels,
  buttons, the navigation, and the plots' SVG titles, axis titles and legends)
  Chromium reports, through the DevTools protocol, which platform fonts drew
  each element's glyphs (``CSS.getPlatformFontsForNode``): every element with
  Chinese characters has at least as many glyphs drawn by a CJK font as it has
  Chinese characters. Without a CJK font (fonts-noto-cjk) this fails.
"""

from __future__ import annotations

import os
import re

import pytest
from e2e_server import (
    CHART_PAGES,
    CHROMIUM,
    CHROMIUM_ARGS,
    PAGES,
    SHOTS,
    VIEWPORT,
    full_page_screenshot,
    new_page,
    open_path,
    skip_without_browser,
    warmed_server,
)

skip_without_browser()

from playwright.sync_api import Page  # noqa: E402

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
CJK_FONT = re.compile(r"CJK|Han Sans|Hei|PingFang|Noto Sans SC|WenQuanYi|Droid Sans Fallback",
                      re.I)
TEXT_SELECTOR = ", ".join([
    '[data-testid="stMarkdownContainer"] p', '[data-testid="stMarkdownContainer"] li',
    "h1", "h2", "h3", '[data-testid="stWidgetLabel"] p', 'nav.rope-nav span',
    '[data-testid="stMetricLabel"] p', "button p",
    "svg .gtitle", "svg .xtitle", "svg .ytitle", "svg .legendtext",
])
MAX_NODES = 80  # elements checked per page (the first ones in document order)


# browser: tests/conftest.py
def _page(browser, locale: str) -> Page:
    return new_page(browser, viewport=VIEWPORT, locale=locale)


@pytest.fixture(scope="module")
def server(browser):
    with warmed_server(browser, "e2e-chinese-server.log") as srv:
        yield srv


@pytest.fixture
def zh_page(browser):
    p = _page(browser, "zh-CN")
    yield p
    p.context.close()


def _sidebar_header(page: Page) -> str:
    return page.locator('[data-testid="stSidebar"] h2').first.inner_text().strip()


def glyph_problems(page: Page) -> tuple[int, list[str]]:
    """(elements with Chinese checked, those whose Chinese was not drawn by a CJK font)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": TEXT_SELECTOR})["nodeIds"]
    checked, problems = 0, []
    for node_id in ids:
        html = cdp.send("DOM.getOuterHTML", {"nodeId": node_id})["outerHTML"]
        text = re.sub(r"<[^>]+>", "", html)
        wanted = len(CJK.findall(text))
        if not wanted:
            continue
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node_id})["fonts"]
        if not fonts:
            continue  # not drawn (a collapsed section or expander): nothing to see
        cjk_glyphs = sum(f["glyphCount"] for f in fonts if CJK_FONT.search(f["familyName"]))
        checked += 1
        if cjk_glyphs < wanted:
            problems.append(f"{text[:50]!r}: {wanted} Chinese characters, fonts "
                            f"{[(f['familyName'], f['glyphCount']) for f in fonts]}")
        if checked >= MAX_NODES:
            break
    cdp.detach()
    return checked, problems


def _screenshot(page: Page, name: str) -> None:
    full_page_screenshot(page, SHOTS / f"zh-{name}.png")


@pytest.mark.parametrize("name", list(PAGES))
def test_page_in_chinese_draws_every_glyph(zh_page, server, name):
    open_path(zh_page, server, PAGES[name])  # no ?lang=: the browser's zh-CN decides
    assert _sidebar_header(zh_page) == "设置"
    assert "lang=zh" in zh_page.url
    assert not zh_page.locator('[data-testid="stException"]').count()
    if name in CHART_PAGES:
        assert zh_page.locator('[data-testid="stPlotlyChart"] .main-svg').count() >= 1
    _screenshot(zh_page, name)
    checked, problems = glyph_problems(zh_page)
    assert checked >= 3, f"only {checked} elements with Chinese text on {name}"
    assert not problems, problems[:5]


def test_english_browser_gets_english(browser, server):
    page = _page(browser, "en-US")
    try:
        open_path(page, server, "/frequencies")
        assert _sidebar_header(page) == "Settings"
        assert "lang=en" in page.url
    finally:
        page.context.close()


def test_link_language_wins_over_the_browser(zh_page, server):
    open_path(zh_page, server, "/frequencies?lang=en")
    assert _sidebar_header(zh_page) == "Settings"


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
    b = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                                    env={**os.environ, "FONTCONFIG_FILE": str(conf)})
    try:
        page = _page(b, "zh-CN")
        open_path(page, server, "/frequencies")
        checked, problems = glyph_problems(page)
    finally:
        b.close()
    assert checked >= 3 and len(problems) == checked, (checked, problems[:3])
