"""The Guided tour in a real browser (issue 46): slide mode for the projector and the
printed handout. What AppTest cannot see: that the sidebar folds away, that the arrow keys
move the slides (and do not while a control has the focus), that a slide shows one figure,
and that the browser's Print gives a handout with every figure of the part.

The printed handouts land in artifacts/handout-part-<n>.pdf (and one PNG per sheet when
pypdfium2 is installed, for a person to look at). Skipped like the other browser tests
when Chromium or Playwright is missing (tests/e2e_server.py).

Run:  .venv/bin/python -m pytest tests/test_e2e_tour.py -v
"""

from __future__ import annotations

import re

import e2e_server as e2e
import pytest

e2e.skip_without_browser()

import pypdfium2 as pdfium  # noqa: E402

from views.tour import PARTS  # noqa: E402

SIDEBAR = '[data-testid="stSidebar"]'
CHART = '[data-testid="stPlotlyChart"]'
HEADER = '[data-testid="stMain"] h2'


@pytest.fixture(scope="module")
def server(browser):
    with e2e.warmed_server(browser, "e2e-tour.log") as srv:
        yield srv


def step_header(page) -> str:
    return page.locator(HEADER).first.inner_text()


def press(page, key: str) -> None:
    """Press ``key`` and wait for the run it starts to settle."""
    done = page.evaluate(e2e.RUNS_DONE_JS)
    page.keyboard.press(key)
    e2e.wait_settled(page, done + 1)


def sidebar_width(page) -> float:
    return page.evaluate(f"() => document.querySelector('{SIDEBAR}')"
                         ".getBoundingClientRect().width")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_slides_fold_the_sidebar_show_one_figure_and_move_with_the_arrow_keys(
        browser, server, lang):
    page = e2e.new_page(browser, viewport={"width": 1400, "height": 900},
                    locale="zh-CN" if lang == "zh" else "en-US")
    try:
        e2e.open_path(page, server, f"/tour?tour_step=2&slides=true&lang={lang}")
        page.wait_for_selector(f"{CHART} .main-svg")  # a busy machine draws late
        assert sidebar_width(page) < 5  # collapsed (Streamlit keeps it in the DOM)
        assert page.locator(CHART).count() == 1
        assert step_header(page).startswith("2. ")
        page.mouse.click(700, 880)  # the page has the focus, no control has
        press(page, "ArrowRight")
        assert step_header(page).startswith("3. ")
        page.wait_for_selector(f"{CHART} .main-svg")
        assert page.locator(CHART).count() == 1
        assert "tour_step=3" in page.url and "slides=true" in page.url
        press(page, "ArrowLeft")
        assert step_header(page).startswith("2. ")
        # every step is a link under "All steps", and slide mode stays on
        page.get_by_text("All steps" if lang == "en" else "所有步骤").click()
        done = page.evaluate(e2e.RUNS_DONE_JS)
        page.locator('[data-testid="stMain"] .rope-steps ol li:nth-child(3) a').click()
        e2e.wait_settled(page, done + 1)
        assert step_header(page).startswith("3. ")
        assert "tour_step=3" in page.url and "slides=true" in page.url
        # a control with the focus keeps its arrow keys: the prediction's radio moves to
        # its next option, the slide does not move
        page.locator('[data-testid="stMain"] [data-testid="stRadio"] input').first.focus()
        press(page, "ArrowRight")
        assert step_header(page).startswith("3. ")
        # leaving slide mode brings the sidebar back
        done = page.evaluate(e2e.RUNS_DONE_JS)
        page.locator('[data-testid="stMain"] label:has-text("'
                     + ("Slide mode" if lang == "en" else "幻灯片模式") + '")').click()
        e2e.wait_settled(page, done + 1)
        page.wait_for_timeout(500)
        assert sidebar_width(page) > 200
    finally:
        page.context.close()


@pytest.mark.parametrize("part", [0, 1])
def test_the_handout_prints_every_figure_of_its_part(browser, server, part):
    """page.pdf prints with the print style sheet, as the browser's Print does: only the
    handout (no sidebar, no controls), every figure of the part whole on its sheet."""
    first, last = PARTS[part].first, PARTS[part].last
    page = e2e.new_page(browser, viewport={"width": 1000, "height": 900}, locale="en-US")
    try:
        # eight figures drawn cold: a busy machine needs longer than one page's wait
        e2e.open_path(page, server, f"/tour?tour_step={first}&handout=true",
                      timeout=3 * e2e.LOAD_MS)
        # a busy machine draws late; a drawn chart holds several .main-svg layers, so count
        # the charts that hold one, not the layers
        page.wait_for_function(
            f"() => Array.from(document.querySelectorAll('{CHART}'))"
            f".filter(c => c.querySelector('.main-svg')).length >= {last - first + 1}",
            timeout=3 * e2e.LOAD_MS)
        titles = page.evaluate(
            "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
            ".map(gd => gd._fullLayout.title.text.replace(/<[^>]+>/g, ' ').trim())")
        assert len(titles) == last - first + 1
        path = e2e.ARTIFACTS / f"handout-part-{part + 1}.pdf"
        page.pdf(path=str(path), format="A4", print_background=True)
    finally:
        page.context.close()
    pdf = pdfium.PdfDocument(str(path))
    try:
        sheets = [pdf[n].get_textpage().get_text_range() for n in range(len(pdf))]
        for n in range(len(pdf)):  # for a person to look at
            pdf[n].render(scale=1).to_pil().save(path.with_name(f"{path.stem}-{n + 1}.png"))
    finally:
        pdf.close()
    text = re.sub(r"\s+", " ", " ".join(sheets))
    printed = [t for t in titles if re.sub(r"\s+", " ", t) in text]
    assert printed == titles  # every figure printed, its title readable
    assert "Answers" in text and "What we learned" in text
    for number in range(first, last + 1):
        assert f"{number}. " in text
    # only the handout: no sidebar, no controls
    for absent in ("Presentation mode", "Slide mode", "Printable handout", "Print this page"):
        assert absent not in text
    assert len(sheets) <= 2 * (last - first + 1)
