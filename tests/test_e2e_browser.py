"""End-to-end tests in a real browser: the app served by `streamlit run`,
driven by Playwright through Debian's Chromium (/usr/bin/chromium).

What AppTest cannot see is checked here (that every page draws its Plotly charts in
the browser is checked in tests/test_e2e_pages.py): that the sidebar controls rewrite
the URL and the charts, that the Play button of an animation runs it, that a CSV download
arrives as a file, that a page's notebook follows a section's own rerun, and that deep
links work on a freshly started server.

Downloads land in artifacts/downloads/, the server logs in artifacts/e2e-*.log (artifacts/ is
git-ignored). The module is skipped when Chromium or Playwright is missing, unless
ROPE_REQUIRE_BROWSER is set (as .ci/run does), which turns that into an error.

Run:  .venv/bin/python -m pytest tests/test_e2e_browser.py -v
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from e2e_server import (
    ARTIFACTS,
    FIGURES_JS,
    FIRST_LOAD_MS,
    LOAD_MS,
    PAGES,
    RUNS_DONE_JS,
    VIEWPORT,
    StreamlitServer,
    new_page,
    open_path,
    skip_without_browser,
    wait_settled,
    warmed_server,
)

skip_without_browser()

from playwright.sync_api import Page  # noqa: E402

DOWNLOADS = ARTIFACTS / "downloads"

SIDEBAR = '[data-testid="stSidebar"]'
DIM_THUMB = f'{SIDEBAR} input[aria-label="Head dim d"]'
BASE_THUMB = f'{SIDEBAR} input[aria-label="RoPE base"]'


# ------------------------------------------------------------- fixtures ----
# browser: tests/conftest.py
@pytest.fixture(scope="module")
def server(browser):
    """One server for the module, warmed up by a first visit to "/"."""
    with warmed_server(browser, "e2e-server.log") as srv:
        yield srv


@pytest.fixture
def fresh_server():
    """A server no browser has visited yet."""
    with StreamlitServer(log_name="e2e-fresh-server.log") as srv:
        yield srv


@pytest.fixture
def page(browser):
    p = new_page(browser, viewport=VIEWPORT, accept_downloads=True)
    yield p
    p.context.close()


# -------------------------------------------------------------- helpers ----
def runs_done(page: Page) -> int:
    return page.evaluate(RUNS_DONE_JS)


def rerun_after(page: Page, action) -> None:
    """Do `action` (a click, a key press) and wait for the rerun it causes."""
    before = runs_done(page)
    action()
    wait_settled(page, before + 1)


def figures(page: Page) -> list[dict]:
    return page.evaluate(FIGURES_JS)


def wait_figures_change(page: Page, before: list[dict], timeout: float = 15_000) -> list[dict]:
    page.wait_for_function(f"(before) => JSON.stringify(({FIGURES_JS})()) !== before",
                           arg=json.dumps(before), timeout=timeout, polling=100)
    return figures(page)


def wait_url_param(page: Page, key: str, value: str, timeout: float = 15_000) -> None:
    page.wait_for_function(
        "([k, v]) => new URLSearchParams(location.search).getAll(k).includes(v)",
        arg=[key, value], timeout=timeout, polling=100)


def texts(page: Page, testid: str) -> list[str]:
    return page.locator(f'[data-testid="{testid}"]').all_inner_texts()


def assert_no_errors(page: Page, server: StreamlitServer) -> None:
    exceptions = texts(page, "stException")
    errors = texts(page, "stAlertContentError")
    assert not exceptions and not errors, (
        f"{page.url} shows exceptions {exceptions} / st.error {errors}; "
        f"server log tail:\n{server.log_tail(3000)}")


def chart_count(page: Page) -> int:
    return page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot .main-svg').count()


def thumb_value(page: Page, selector: str) -> str | None:
    return page.locator(selector).first.get_attribute("aria-valuetext")


def downloaded(page: Page, button, name: str):
    """Click the download ``button``: the file arrives, named ``name``, and is kept in
    artifacts/downloads/ (its path)."""
    with page.expect_download(timeout=30_000) as info:
        button.click()
    download = info.value
    assert download.failure() is None
    assert download.suggested_filename == name
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    path = DOWNLOADS / name
    download.save_as(path)
    return path


def quick_pick(page: Page, value: int):
    label = {10_000: "10⁴", 500_000: "5·10⁵", 1_000_000: "10⁶"}[value]
    return page.locator(f"{SIDEBAR} .st-key-pick_base button").filter(
        has_text=label, visible=True)


# ---------------------------------------------------------------- tests ----
def test_notebook_download_follows_a_section_rerun(page, server):
    """Long context's B_m section is an @st.fragment: its slider reruns that section alone
    (the button under the page is not drawn again). The notebook downloaded afterwards
    (takehome/) has the section's new setting and file name, and its link."""
    import nbformat

    open_path(page, server, PAGES["long_context"])
    section = page.locator('[data-testid="stSlider"]').filter(has_text="Largest distance m")
    thumb = section.locator("input").first
    assert thumb.get_attribute("aria-valuetext") == "16384"

    def left():
        thumb.focus()
        page.keyboard.press("ArrowLeft")

    rerun_after(page, left)
    wait_url_param(page, "lc_bmax", "4096")
    button = page.locator('[data-testid="stDownloadButton"] button').filter(
        has_text="Take this page home", visible=True)
    nb = nbformat.read(downloaded(page, button, "rope_explorer_long_context.ipynb"),
                       as_version=4)
    nbformat.validate(nb)
    settings = nb.cells[1].source
    assert "max_distance = 4096" in settings and "lc_bmax=4096" in settings
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "'long_context_bm_dim128_base10000_max4096.csv'" in code
    assert "max16384" not in code
    assert_no_errors(page, server)


@pytest.mark.parametrize("name", ["overview", "frequencies"])
def test_base_quick_pick_and_dim_keys_redraw_chart_and_rewrite_url(page, server, name):
    open_path(page, server, PAGES[name])
    start = figures(page)
    assert thumb_value(page, BASE_THUMB) == "10000"

    rerun_after(page, lambda: quick_pick(page, 500_000).click())
    wait_url_param(page, "base", "500000")
    assert "base=500000" in page.url
    after_base = wait_figures_change(page, start)
    assert thumb_value(page, BASE_THUMB) == "500000"
    assert any("base = 500,000" in t for t in texts(page, "stCaptionContainer"))

    def dim_down():
        page.locator(DIM_THUMB).focus()
        page.keyboard.press("ArrowLeft")

    rerun_after(page, dim_down)
    wait_url_param(page, "dim", "126")
    after_dim = wait_figures_change(page, after_base)
    assert thumb_value(page, DIM_THUMB) == "126"
    assert "base=500000" in page.url  # the base stays in the link
    if name == "frequencies":  # d/2 = 63 pairs in both charts
        assert [t["y"]["len"] for f in after_dim for t in f["traces"]] == [63, 63]
    assert_no_errors(page, server)


ANIMATION_JS = """
() => {
  const gd = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot'))
    .find(g => g._fullLayout && (g._fullLayout.sliders || []).length > 0);
  if (!gd) return null;
  const s = gd._fullLayout.sliders[0];
  const frames = (gd._transitionData && gd._transitionData._frames) || [];
  return {active: s.active, steps: s.steps.length, frames: frames.length,
          buttons: (gd._fullLayout.updatemenus || [])
                     .flatMap(m => (m.buttons || []).map(b => b.label))};
}
"""


def test_rotation_play_button_advances_the_animation(page, server):
    open_path(page, server, PAGES["rotation"])
    assert_no_errors(page, server)
    state = page.evaluate(ANIMATION_JS)
    assert state is not None, "no Plotly chart with an animation slider on /rotation"
    assert state["frames"] >= 2 and state["steps"] == state["frames"], state
    play = page.locator('[data-testid="stPlotlyChart"] .updatemenu-button').filter(
        has_text=re.compile("Play|▶"))
    assert play.count() >= 1, f"no Play button among {state['buttons']}"
    before = state["active"]
    runs = runs_done(page)
    play.first.click()
    page.wait_for_timeout(1_000)
    page.wait_for_function(f"(b) => ({ANIMATION_JS})().active > b", arg=before,
                           timeout=5_000, polling=100)
    assert page.evaluate(ANIMATION_JS)["active"] > before
    assert runs_done(page) == runs, "Play must animate in the browser, not rerun the script"
    assert_no_errors(page, server)


def test_frequencies_csv_download(page, server):
    open_path(page, server, PAGES["frequencies"])
    button = page.locator('[data-testid="stDownloadButton"] button').filter(visible=True).first
    df = pd.read_csv(downloaded(page, button, "theta_dim128_base10000_L4096.csv"))
    assert len(df) == 64  # d/2 pairs, one base, no scaling
    assert {"pair i", "theta_i [rad/token]", "wavelength [tokens]", "turns within L",
            "full turn within L", "base", "scaling"} <= set(df.columns), list(df.columns)
    assert df["pair i"].tolist() == list(range(64))
    assert set(df["base"]) == {10_000}
    assert df["theta_i [rad/token]"].iloc[0] == pytest.approx(1.0)
    assert df["theta_i [rad/token]"].is_monotonic_decreasing
    assert_no_errors(page, server)


def test_frequencies_context_line_label_is_drawn(page, server):
    """The dotted line at L on the (log-scale) wavelength chart carries a
    visible label "L = 4,096 tokens". (Plotly places annotations on a log axis
    at 10**y, so a label given y=L in data units lands far off the chart and
    is drawn empty: check what the browser drew, not the figure spec.)"""
    open_path(page, server, PAGES["frequencies"])
    drawn = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=\"stPlotlyChart\"] "
        ".annotation')).map(a => { const r = a.getBoundingClientRect(); "
        "return {text: a.textContent, w: r.width, h: r.height}; })")
    labels = [a for a in drawn if "4,096" in a["text"] and a["w"] > 0 and a["h"] > 0]
    assert labels, f"no visible 'L = 4,096 tokens' label; annotations drawn: {drawn}"


DEEP_LINK = "/frequencies?base=500000&dim=64&L=8192"


def _check_deep_link(page: Page, srv: StreamlitServer, timeout: float) -> None:
    open_path(page, srv, DEEP_LINK, timeout=timeout)
    assert_no_errors(page, srv)
    assert any("base = 500,000" in t for t in texts(page, "stCaptionContainer"))
    assert thumb_value(page, BASE_THUMB) == "500000"
    assert thumb_value(page, DIM_THUMB) == "64"
    assert thumb_value(page, 'input[aria-label="Context length L [tokens]"]') == "8192"
    figs = figures(page)
    assert [t["y"]["len"] for f in figs for t in f["traces"]] == [32, 32]
    assert any("8,192" in a for f in figs for a in f["annotations"]), figs
    for key, value in {"base": "500000", "dim": "64", "L": "8192"}.items():
        assert f"{key}={value}" in page.url


def test_deep_link_applies_settings(page, server):
    _check_deep_link(page, server, LOAD_MS)


def test_deep_link_on_a_freshly_started_server(page, fresh_server):
    """The first visitor after a restart opens a shared link to a page."""
    _check_deep_link(page, fresh_server, FIRST_LOAD_MS)


def test_malformed_deep_link_warns_and_falls_back(page, server):
    open_path(page, server, "/?base=abc&dim=-3")
    assert_no_errors(page, server)
    warnings = texts(page, "stAlertContentWarning")
    assert len(warnings) >= 2, warnings
    assert any("base = “abc”" in w and "default, 10000" in w for w in warnings), warnings
    assert any("dim = “-3”" in w and "default, 128" in w for w in warnings), warnings
    assert thumb_value(page, BASE_THUMB) == "10000"
    assert thumb_value(page, DIM_THUMB) == "128"
    assert chart_count(page) >= 1


def test_visitors_get_the_viewer_menu_only(page, server):
    """.streamlit/config.toml: toolbarMode = "viewer" hides rerun/clear cache/deploy."""
    open_path(page, server, "/")
    page.locator('[data-testid="stMainMenuButton"]').click()
    page.locator('[data-testid="stMainMenuItemLabel"]').first.wait_for(timeout=10_000)
    items = texts(page, "stMainMenuItemLabel")
    assert items, "the main menu opened empty"
    for developer_item in ("Rerun", "Clear cache", "Deploy"):
        assert not any(developer_item in item for item in items), items
    assert not page.locator('[data-testid="stAppDeployButton"]').count()
