"""Accessibility in a real browser (WCAG 2.1 AA): the keyboard.

The keyboard test tabs through the Rotation page: Tab reaches the sidebar's
controls and the page's, every stop shows a visible focus (its pixels change when
it takes the focus), and the animation has not started by itself. A second one tabs
through the navigation: every page's link in lesson order, Enter opens it.

axe-core on every page, both languages, at 1400 and 390 px (no serious or critical
violation, no skipped heading level, every chart with its text alternative, the
navigation's mark of the current page) runs in tests/test_e2e_pages.py, on the same
load of each page as its other checks; the axe run and the list of violations in
Streamlit's own markup (STREAMLIT_OWNED) are in tests/e2e_checks.py.

Run:  .venv/bin/python -m pytest tests/test_e2e_a11y.py -v
"""

from __future__ import annotations

import pytest
from e2e_server import (
    FIRST_LOAD_MS,
    PAGES,
    StreamlitServer,
    new_page,
    open_path,
    skip_without_browser,
    wait_settled,
)

skip_without_browser()

from playwright.sync_api import Page  # noqa: E402

WIDE = 1400
HEIGHT = 900


# ------------------------------------------------------------- fixtures ----
# browser: tests/conftest.py
@pytest.fixture(scope="module")
def server():
    with StreamlitServer(log_name="e2e-a11y-server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def tab(browser, server):
    """One tab for the module, warmed up on the opening page."""
    page = new_page(browser, viewport={"width": WIDE, "height": HEIGHT})
    page.goto(server.url + "/?lang=en", timeout=FIRST_LOAD_MS)
    wait_settled(page, 1, FIRST_LOAD_MS)
    yield page
    page.context.close()


# -------------------------------------------------------------- helpers ----
def open_page(page: Page, server: StreamlitServer, path: str, width: int = WIDE) -> None:
    if page.viewport_size["width"] != width:
        page.set_viewport_size({"width": width, "height": HEIGHT})
    open_path(page, server, path)


# ------------------------------------------------------------ keyboard ----
# The element that has the focus: what it is, and its box in the window.
FOCUSED_JS = """
() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const r = e.getBoundingClientRect();
  const label = e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].innerText)
                || (e.innerText || '').trim() || e.getAttribute('data-testid') || e.tagName;
  return {tag: e.tagName.toLowerCase(), label: label.trim().slice(0, 80),
          box: {x: r.left, y: r.top, width: r.width, height: r.height},
          where: e.closest('[data-testid="stSidebar"]') ? 'sidebar'
                 : e.closest('[data-testid="stMain"]') ? 'main' : 'other'};
}
"""
# The animation has not run: Plotly's slider still on the first frame, no frame shown
# by the animation machinery, nothing queued.
ANIMATION_AT_REST_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot'))
  .filter(gd => gd._transitionData && gd._transitionData._frames
                && gd._transitionData._frames.length)
  .map(gd => ({active: gd.layout.sliders[0].active || 0,
               current: gd._fullLayout._currentFrame || null,
               queued: (gd._transitionData._frameQueue || []).length}))
"""
TAB_LIMIT = 150
FOCUS_MARGIN = 6  # px around the element: outlines and focus rings are drawn outside it

# Controls of the Rotation page and of the sidebar that Tab must reach (their labels).
MUST_REACH = ("Presentation mode", "RoPE base", "Head dim d", "Pair index i", "q = (x, y)",
              "k = (x, y)", "Query start position m₀", "Key position n₀",
              "Positions per frame [tokens]", "Frames", "Frame shown",
              "Download frame table (CSV)")


def _shot(page: Page, box: dict) -> bytes:
    m = FOCUS_MARGIN
    view = page.viewport_size
    x, y = max(0, box["x"] - m), max(0, box["y"] - m)
    w = min(view["width"] - x, box["width"] + 2 * m)
    h = min(view["height"] - y, box["height"] + 2 * m)
    return page.screenshot(clip={"x": x, "y": y, "width": w, "height": h}, animations="disabled")


def test_tab_reaches_every_control_with_a_visible_focus(tab, server):
    """Tab from the top of the Rotation page: every stop is drawn differently while it
    has the focus (its pixels, with a margin for the ring, change when the focus moves
    on), the sidebar's and the page's controls are all reached, and the animation has
    not moved by itself meanwhile."""
    open_page(tab, server, PAGES["rotation"] + "?lang=en")
    tab.locator("body").focus()
    reached, invisible = [], []
    for step in range(TAB_LIMIT):
        tab.keyboard.press("Tab")
        info = tab.evaluate(FOCUSED_JS)
        if info is None or (reached and info["where"] == "other" and step > 10
                            and reached[-1]["where"] == "main"):
            break  # left the page's content: the tour is complete
        box = info["box"]
        # (1 px of slack: a control that Chrome scrolled into view can end a fraction
        # of a pixel past the edge, 884.4 + 16 for a help icon at the sidebar's foot)
        if box["width"] == 0 or box["height"] == 0 or box["y"] < -1 \
                or box["y"] + box["height"] > HEIGHT + 1:
            invisible.append(f"{info['label']} (off screen: {box})")
            reached.append(info)
            continue
        tab.evaluate("() => document.activeElement.setAttribute('data-a11y-probe', '1')")
        focused = _shot(tab, box)
        tab.evaluate("() => document.activeElement.blur()")
        unfocused = _shot(tab, box)
        tab.evaluate("() => { const e = document.querySelector('[data-a11y-probe]'); "
                     "e.removeAttribute('data-a11y-probe'); e.focus({focusVisible: true}); }")
        if focused == unfocused:
            invisible.append(f"{info['where']}: {info['tag']} {info['label']!r}")
        reached.append(info)
    labels = [r["label"] for r in reached]
    missing = [name for name in MUST_REACH if not any(name in label for label in labels)]
    assert not missing, f"Tab never reached {missing}; it went through {labels}"
    assert not invisible, "focus not visible on:\n" + "\n".join(invisible)
    at_rest = tab.evaluate(ANIMATION_AT_REST_JS)
    assert at_rest and all(a["active"] == 0 and a["current"] is None and a["queued"] == 0
                           for a in at_rest), at_rest


def test_tab_reaches_every_page_link_and_enter_opens_it(tab, server):
    """The navigation by keyboard: from the top of a page, Tab reaches the language switch,
    then every page's link in lesson order (the current one marked); Enter on a link opens
    its page, as one new history entry."""
    open_page(tab, server, PAGES["decay"] + "?lang=en")
    tab.locator("body").focus()
    names = []
    for _ in range(40):
        tab.keyboard.press("Tab")
        info = tab.evaluate("() => { const e = document.activeElement; return e && "
                            "e.closest('nav.rope-nav') ? e.innerText.trim() : null; }")
        if info is not None:
            names.append(info.split("\n")[-1])
        elif names:
            break
    titles = [title for title in tab.evaluate(
        "() => Array.from(document.querySelectorAll('nav.rope-nav a span:last-child'))"
        ".map(s => s.innerText)")]
    assert names == titles and len(names) == len(PAGES), names
    link = tab.locator('nav.rope-nav a[href*="/frequencies"]')  # links.js writes full addresses
    link.focus()
    entries = tab.evaluate("() => history.length")
    done = tab.evaluate("() => window.__stRuns.done")
    tab.keyboard.press("Enter")
    wait_settled(tab, done + 1)
    assert tab.url.split("?")[0].endswith("/frequencies")
    assert tab.evaluate("() => history.length") == entries + 1
    assert tab.locator('nav.rope-nav a[aria-current="page"]').inner_text().endswith(
        "Frequencies")
