"""The checks that the browser tests run on a page they have opened: layout (nothing
sticks out of the window, tick labels' contrast, what a hovered chart's mode bar covers),
accessibility (axe-core, the charts' text alternatives, the navigation's mark of the
current page) and the Chinese glyphs (every Chinese character drawn by a CJK font).

Used by tests/test_e2e_pages.py (every page, each language and width, opened once) and by
tests/test_e2e_layout.py (pages at their largest values, presentation mode).
"""

from __future__ import annotations

import re

from axe_playwright_python.base import AXE_SCRIPT
from e2e_server import (
    CHART_PAGES,
    LOAD_MS,
    PAGES,
    RUNS_DONE_JS,
    StreamlitServer,
    open_path,
    wait_settled,
)
from playwright.sync_api import Page

MIN_CONTRAST = 4.5
HEIGHT = 900  # px: the window's height in every check


# ------------------------------------------------------- opening a page ----
def narrow(page: Page, width: int) -> None:
    """Narrow the window to ``width``; wait until the page has reflowed (NARROWED_JS: the
    sidebar tucked away on a phone, every chart redrawn within the window, the DOM quiet
    for 300 ms). The page is then laid out as a fresh load at that width lays it out
    (tests/test_e2e_pages.py says how that was checked)."""
    page.set_viewport_size({"width": width, "height": HEIGHT})
    page.wait_for_function(NARROWED_JS, arg=[width, 300], timeout=LOAD_MS, polling=100)


def open_at(page: Page, server: StreamlitServer, path: str, width: int) -> None:
    """Show ``path`` at ``width``: when the tab shows it already at a wider window, narrow
    the window; else open it afresh at that width."""
    if (page.evaluate("() => window.__ropeShown || null") == path
            and page.viewport_size["width"] > width):
        narrow(page, width)
        return
    page.goto("about:blank")  # the old page is not reflowed to the new width
    page.set_viewport_size({"width": width, "height": HEIGHT})
    open_path(page, server, path)
    page.evaluate("(path) => { window.__ropeShown = path; }", path)

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


# True once chart i's mode bar has faded in (Plotly fades it in over 0.3 s).
MODE_BAR_SHOWN_JS = """
(i) => {
  const gd = document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')[i];
  const bar = gd && gd.querySelector('.modebar');
  return !!bar && parseFloat(getComputedStyle(bar).opacity) > 0.9;
}
"""

# Streamlit's scrolling containers and the window back at the top (hovering a chart
# scrolls it into view), as a freshly opened page is.
SCROLL_TOP_JS = """
() => { window.scrollTo(0, 0);
        for (const e of document.querySelectorAll('[data-testid="stMain"],'
                                                  + ' [data-testid="stAppViewContainer"]'))
          e.scrollTop = 0; }
"""


def mode_bar_report(page: Page) -> list[str]:
    """Hover every chart in turn; what its mode bar covers (nothing, on every page).
    Each is read once its mode bar has faded in (or after 2 s, when it never does: then
    reported as not shown); the page is scrolled back to the top afterwards."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    problems = []
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    for i in range(charts.count()):
        charts.nth(i).hover()
        try:
            page.wait_for_function(MODE_BAR_SHOWN_JS, arg=i, timeout=2_000, polling=50)
        except PlaywrightTimeout:
            pass  # found["shown"] below is False: reported
        found = page.evaluate(MODE_BAR_JS, i)
        if not found["shown"] or found["covered"]:
            problems.append(f"chart {i}: mode bar {found.get('bar')} shown {found['shown']}, "
                            f"covers {found['covered']}")
    page.mouse.move(0, 0)
    page.evaluate(SCROLL_TOP_JS)
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

# ------------------------------------------------------------ axe-core ----
FAILING = {"serious", "critical"}
# Moderate in axe, failed here too: a screen reader's list of headings must not skip a
# level (each page: st.title, then st.header, then st.subheader).
FAILING_RULES = {"heading-order"}

# Violations in Streamlit's own markup, each with the axe rule, a selector that only
# Streamlit's element matches, a phrase of axe's message, and why (an app element never
# matches these selectors). None today: the two that Streamlit 1.67's sectioned sidebar
# navigation had (`list`, `listitem`: each section's <li> links in a <div> inside the
# <ul>, 760 serious nodes over the pages, widths and languages) went with it, since the
# app draws its own navigation (ui.navigation.draw).
STREAMLIT_OWNED: tuple[dict, ...] = ()

# axe on the whole document; each node is tagged with the Streamlit-owned entry it
# matches (the index in STREAMLIT_OWNED) or -1.
AXE_RUN_JS = """
async (owned) => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => {
      let el = null;
      try { el = document.querySelector(n.target[0]); } catch (e) { el = null; }
      const summary = n.failureSummary || '';
      const owner = owned.findIndex(o => o.rule === v.id && el !== null
                                         && el.matches(o.selector)
                                         && summary.includes(o.message));
      return {target: n.target, html: n.html.slice(0, 240), summary: summary.slice(0, 400),
              owner: owner};
    }),
  }));
}
"""

# Every chart is a figure with a name (Streamlit 1.67 writes st.plotly_chart's alt
# as role="figure" and aria-label on the chart's element).
CHART_NAMES_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).map(c => ({
  role: c.getAttribute('role'), name: (c.getAttribute('aria-label') || '').trim(),
  title: ((c.querySelector('.js-plotly-plot') || {})._fullLayout || {title: {}}).title.text || '',
}))
"""

# True once the window has been narrowed: the sidebar is tucked away, every chart
# is redrawn within the window and the DOM has been quiet for `quietMs`.
NARROWED_JS = """
([width, quietMs]) => {
  if (window.innerWidth !== width) return false;
  const bar = document.querySelector('[data-testid="stSidebar"]');
  if (bar && bar.getAttribute('aria-expanded') === 'true') return false;
  for (const svg of document.querySelectorAll('[data-testid="stPlotlyChart"] .main-svg'))
    if (svg.getBoundingClientRect().width > width) return false;
  return performance.now() - window.__stRuns.lastMutationAt >= quietMs;
}
"""

RESULTS: dict[str, list[dict]] = {}


def axe_violations(page: Page) -> list[dict]:
    """axe-core's violations on the page, each node tagged with its Streamlit-owned
    entry (-1: the app's)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)  # once per document
    return page.evaluate(AXE_RUN_JS, [{k: o[k] for k in ("rule", "selector", "message")}
                                      for o in STREAMLIT_OWNED])


def app_failures(violations: list[dict]) -> list[str]:
    """The serious and critical nodes that are the app's own."""
    return [f"{v['id']} ({v['impact']}): {v['help']}\n    {n['target']} {n['html'][:160]}\n"
            f"    {n['summary'][:300]}"
            for v in violations if v["impact"] in FAILING or v["id"] in FAILING_RULES
            for n in v["nodes"] if n["owner"] < 0]


# The sidebar's navigation (ui.navigation.draw): its links in order, which one is the
# current page, and how each is drawn.
NAVIGATION_JS = """
() => Array.from(document.querySelectorAll('nav.rope-nav a')).map(a => {
  const style = getComputedStyle(a);
  return {href: a.getAttribute('href'), current: a.getAttribute('aria-current'),
          text: a.innerText.trim(), weight: style.fontWeight, background: style.backgroundColor};
})
"""


def assert_navigation_marks(page: Page, where: str, name: str) -> None:
    """Every page is in the navigation, in lesson order; exactly one link is the current
    page (aria-current), this one, drawn bold on a shaded row unlike the others."""
    links = page.evaluate(NAVIGATION_JS)
    assert [link["href"].split("?")[0] for link in links] == [
        "./" if path == "/" else path.lstrip("/") for path in PAGES.values()], where
    current = [i for i, link in enumerate(links) if link["current"] == "page"]
    assert current == [list(PAGES).index(name)], (where, current)
    mark, others = links[current[0]], [link for link in links if not link["current"]]
    assert int(mark["weight"]) >= 600 and mark["background"] != "rgba(0, 0, 0, 0)", mark
    assert all(int(o["weight"]) < 600 and o["background"] != mark["background"]
               for o in others), where


def assert_accessible(page: Page, server: StreamlitServer, where: str, name: str) -> None:
    bad = page.locator('[data-testid="stException"]')
    assert not bad.count(), f"{where}: {bad.all_inner_texts()}\n{server.log_tail(2000)}"
    violations = axe_violations(page)
    RESULTS[where] = violations
    failures = app_failures(violations)
    assert not failures, f"{where}: {len(failures)} serious or critical:\n" + "\n".join(failures)
    charts = page.evaluate(CHART_NAMES_JS)
    if name in CHART_PAGES:
        assert charts, f"{where}: no chart drawn"
    unnamed = [c["title"] for c in charts if c["role"] != "figure" or len(c["name"]) < 20]
    assert not unnamed, f"{where}: charts without a text alternative: {unnamed}"



# ------------------------------------------------------- Chinese glyphs ----
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


def glyph_problems(page: Page) -> tuple[int, list[str]]:
    """(elements with Chinese checked, those whose Chinese was not drawn by a CJK font).
    Should the page redraw part of itself during the walk (a node it found is gone), the
    walk starts again once the page is quiet, up to three times."""
    from playwright.sync_api import Error as PlaywrightError

    for attempt in range(3):
        try:
            return _glyph_walk(page)
        except PlaywrightError as err:
            if "Could not find node" not in str(err) or attempt == 2:
                raise
            wait_settled(page, page.evaluate(RUNS_DONE_JS))
    raise AssertionError("unreachable")


def _glyph_walk(page: Page) -> tuple[int, list[str]]:
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        ids = cdp.send("DOM.querySelectorAll",
                       {"nodeId": root, "selector": TEXT_SELECTOR})["nodeIds"]
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
    finally:
        cdp.detach()
    return checked, problems
