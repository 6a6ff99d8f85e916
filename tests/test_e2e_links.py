"""In a real browser: crafted links render as plain text; the app's links and the Back
button (one history entry per deliberate move: a page opened from a link, a step of the
tour; none per rerun); a tour step's link sets every control of its page; the language
switch keeps every choice and every link value; the multiselects' limits; and the app
served by several Streamlit processes behind nginx (deploy/serve.py), CSV downloads
included.

Skipped like tests/test_e2e_browser.py when Chromium or Playwright is missing
(an error instead when ROPE_REQUIRE_BROWSER is set, as in .ci/run).
"""

from __future__ import annotations

import http.cookiejar
import re
import shutil
import sys
import urllib.parse
import urllib.request

import pandas as pd
import pytest
from e2e_server import (
    CHART_PAGE_GRACE_MS,
    FIRST_LOAD_MS,
    LOAD_MS,
    PAGES,
    ROOT,
    nginx_missing_reason,
    open_path,
    wait_settled,
)
from test_e2e_browser import (  # noqa: F401 (fixtures: server, page; browser: conftest.py)
    DOWNLOADS,
    assert_no_errors,
    chart_count,
    page,
    rerun_after,
    runs_done,
    server,
    texts,
)

sys.path.insert(0, str(ROOT / "deploy"))
from serve import Cluster  # noqa: E402

INJECTIONS = {
    "base": "[Claim your prize](https://evil.example)",
    "dim": "![x](https://evil.example/x.png)",
    "layout": "<img src=https://evil.example/y.png>",
    "rot_q": "1, 2\n# Session expired",
    "rot_k": "[k](https://evil.example/k)",
}


def test_crafted_link_renders_no_link_image_or_heading(page, server):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    open_path(page, server, "/rotation?" + urllib.parse.urlencode(INJECTIONS))
    assert_no_errors_but_expected(page)
    assert page.locator('a[href*="evil"]').count() == 0
    assert page.locator('img[src*="evil"]').count() == 0
    headings = " ".join(page.locator("h1, h2, h3").all_inner_texts())
    assert "Session expired" not in headings
    fetched = [u for u in requests
               if (urllib.parse.urlparse(u).hostname or "").endswith("evil.example")]
    assert not fetched  # the browser fetched nothing from that host
    shown = " ".join(texts(page, "stAlertContentWarning") + texts(page, "stAlertContentError"))
    shown = shown.replace("\u200b", "")  # the invisible space that stops autolinks
    assert "[Claim your prize](https://evil.example)" in shown  # shown, as plain text


def assert_no_errors_but_expected(page) -> None:
    assert not texts(page, "stException"), texts(page, "stException")


def test_back_button_returns_to_the_previous_page_with_its_settings(page, server):
    open_path(page, server, "/frequencies?base=500000&dim=64")
    rerun_after(page, lambda: _arrow(page, "Head dim d", "ArrowLeft"))  # 64 -> 62 here
    assert "dim=62" in page.url
    follow(page, nav_link(page, "rotation"))
    page.wait_for_url("**/rotation?*", timeout=LOAD_MS)
    assert "base=500000" in page.url and "dim=62" in page.url  # the link keeps the settings
    rerun_after(page, lambda: _arrow(page, "Head dim d", "ArrowLeft"))  # 62 -> 60 on Rotation
    back(page)
    assert where(page).startswith("/frequencies?") and h1(page) == "Frequencies and wavelengths"
    # the previous page, with the settings it had when the student left it
    assert "dim=62" in page.url and "base=500000" in page.url
    # the slider is redrawn from the URL by the rerun that Back starts: wait for it, since a
    # loaded machine can read the thumb before that rerun's delta lands
    selector = '[data-testid="stSidebar"] input[aria-label="Head dim d"]'
    page.wait_for_function(
        "s => document.querySelector(s)?.getAttribute('aria-valuetext') === '62'",
        arg=selector, timeout=LOAD_MS)
    assert page.locator(selector).first.get_attribute("aria-valuetext") == "62"


def _arrow(page, label: str, key: str, where: str = '[data-testid="stSidebar"]') -> None:
    page.locator(f'{where} input[aria-label="{label}"]').first.focus()
    page.keyboard.press(key)


# ----------------------------------------------------- history: one entry per move ----
def where(page) -> str:
    """The address without the server: path and query."""
    url = urllib.parse.urlsplit(page.url)
    return url.path + ("?" + url.query if url.query else "")


def query(page) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)


def entries(page) -> int:
    return page.evaluate("() => history.length")


def h1(page) -> str:
    return page.locator('[data-testid="stMain"] h1').first.inner_text()


def step_heading(page) -> str:
    return page.locator('[data-testid="stMain"] h2').first.inner_text()


def follow(page, link) -> None:
    """Click a link of the app and wait for the run that opens its address."""
    before = runs_done(page)
    link.click()
    wait_settled(page, before + 1)


def back(page) -> None:
    before = runs_done(page)
    page.go_back()
    wait_settled(page, before + 1)


def forward(page) -> None:
    before = runs_done(page)
    page.go_forward()
    wait_settled(page, before + 1)


def nav_link(page, name: str):
    """The sidebar navigation's link to pages/<name>.py."""
    return page.locator(f'[data-testid="stSidebar"] nav a[data-rope-link][href^="{name}"]')


def step_link(page):
    """The tour step's link to its page ("Open … with this step's settings")."""
    return page.locator('[data-testid="stMain"] [data-testid="stPageLink"] a').filter(
        has_text="with this step's settings")


def tour_move(page, text: str):
    return page.locator('[data-testid="stMain"] nav.rope-steps a').filter(has_text=text)


def test_back_after_a_tour_link_returns_to_the_step_it_left(page, server):
    """Issue 46: at step 4, the step's link, then Back twice: history grew from 2 to 7
    entries, and both Backs stayed on Rotation (or landed on step 1). Now the link is
    one entry, reruns add none, Back returns to step 4 and Forward to Rotation as left."""
    open_path(page, server, "/tour?tour_step=4&lang=en")
    start = entries(page)
    follow(page, step_link(page))
    assert where(page).startswith("/rotation?") and h1(page) == "Rotation of one pair"
    assert query(page)["tour"] == ["4"]
    assert entries(page) == start + 1
    rerun_after(page, lambda: _arrow(page, "Frames", "ArrowRight", '[data-testid="stMain"]'))
    rerun_after(page, lambda: _arrow(page, "Head dim d", "ArrowLeft"))  # 128 -> 126
    assert entries(page) == start + 1  # a rerun adds no entry
    rotation = where(page)
    assert "dim=126" in rotation
    back(page)
    assert where(page) == "/tour?tour_step=4&lang=en"
    assert step_heading(page) == "4. One pair turning"
    forward(page)
    assert where(page) == rotation and h1(page) == "Rotation of one pair"
    back(page)
    assert step_heading(page) == "4. One pair turning"
    assert entries(page) == start + 1


def test_each_step_of_the_tour_is_one_entry(page, server):
    """Next, Previous and a step's number are links: one entry each; Back walks them."""
    open_path(page, server, "/tour?lang=en")
    start = entries(page)
    follow(page, tour_move(page, "Next"))
    follow(page, tour_move(page, "Next"))
    assert step_heading(page).startswith("3. ")
    follow(page, page.locator('nav.rope-steps a[aria-label="Step 7 of 12"]'))
    assert step_heading(page).startswith("7. ") and entries(page) == start + 3
    assert page.locator('nav.rope-steps a[aria-current="step"]').inner_text() == "7"
    follow(page, tour_move(page, "Previous"))
    assert step_heading(page).startswith("6. ")
    back(page)
    assert step_heading(page).startswith("7. ")
    back(page)
    back(page)
    assert step_heading(page).startswith("2. ")
    # Streamlit warned once that the step's slider "was created with a default value but
    # also had its value set via the Session State API" (its Next button set the step)
    assert "created with a default value" not in server.log_tail(200_000)


def test_back_keeps_a_pages_own_settings(page, server):
    """Issue 46: Frequencies with L = 32,768, the sidebar's navigation to Long-term decay,
    Back: L was 4,096 again. Now Back opens the entry as it was left; the sidebar's base
    survives too, and the navigation's link back to Frequencies keeps L as well."""
    open_path(page, server, "/frequencies?base=500000&lang=en")
    for _ in range(3):  # 4,096 -> 8,192 -> 16,384 -> 32,768 tokens
        rerun_after(page, lambda: _arrow(page, "Context length L [tokens]", "ArrowRight",
                                         '[data-testid="stMain"]'))
    assert query(page)["L"] == ["32768"]
    follow(page, nav_link(page, "decay"))
    assert h1(page) == "Long-term decay" and query(page)["base"] == ["500000"]
    back(page)
    assert h1(page) == "Frequencies and wavelengths"
    assert query(page)["L"] == ["32768"] and query(page)["base"] == ["500000"]
    thumb = '[data-testid="stMain"] input[aria-label="Context length L [tokens]"]'
    assert page.locator(thumb).get_attribute("aria-valuetext") == "32768"
    assert page.locator('[data-testid="stSidebar"] input[aria-label="RoPE base"]').get_attribute(
        "aria-valuetext") == "500000"
    forward(page)
    follow(page, nav_link(page, "frequencies"))
    assert query(page)["L"] == ["32768"]
    assert page.locator(thumb).get_attribute("aria-valuetext") == "32768"


def test_a_tour_step_sets_every_control_of_its_page(page, server):
    """Issue 46: step 6's compare=500000 was still drawn at step 7, which asks students to
    count pairs. A step's link names its values; every other control of the page takes its
    default, and the sidebar's lesson settings are the step's whatever was chosen before."""
    open_path(page, server, "/tour?tour_step=6&lang=en&base=100&dim=64&layout=half")
    follow(page, step_link(page))
    assert h1(page) == "Frequencies and wavelengths"
    assert query(page)["compare"] == ["500000"] and "base" not in query(page)
    chosen = page.locator('[data-testid="stMain"] [data-testid="stMultiSelect"]').first
    assert "500000" in chosen.inner_text()
    rerun_after(page, lambda: _arrow(page, "Context length L [tokens]", "ArrowRight",
                                     '[data-testid="stMain"]'))
    back(page)
    follow(page, tour_move(page, "Next"))
    assert step_heading(page).startswith("7. ")
    follow(page, step_link(page))
    assert where(page) == "/frequencies?tour=7&lang=en"  # every value at its default
    assert "500000" not in chosen.inner_text()
    thumb = '[data-testid="stMain"] input[aria-label="Context length L [tokens]"]'
    assert page.locator(thumb).get_attribute("aria-valuetext") == "4096"
    assert page.locator('[data-testid="stSidebar"] input[aria-label="Head dim d"]').get_attribute(
        "aria-valuetext") == "128"
    assert not texts(page, "stAlertContentWarning")


def test_a_page_opened_by_the_tour_leads_back_to_its_step(page, server):
    """Issue 46: "Back to step N of the tour" at the top of every page the tour opens, in
    both languages, only when a step opened it; the browser's Back does the same."""
    for number, lang, label in ((9, "en", "Back to step 9 of the tour"),
                                (1, "zh", "返回导览第 1 步")):
        open_path(page, server, f"/tour?tour_step={number}&lang={lang}")
        tour = where(page)
        follow(page, step_link(page) if lang == "en" else
               page.locator('[data-testid="stMain"] [data-testid="stPageLink"] a').first)
        way_back = page.locator('[data-testid="stMain"] [data-testid="stPageLink"] a').first
        assert way_back.inner_text().endswith(label)
        start = entries(page)
        follow(page, way_back)
        assert where(page) == tour and entries(page) == start + 1
        assert step_heading(page).startswith(f"{number}. ")
        back(page)
        back(page)
        assert where(page) == tour
    # reached otherwise (the navigation), the page has no way back to the tour
    open_path(page, server, "/tour?tour_step=9&lang=en")
    follow(page, nav_link(page, "decay"))
    assert not page.locator('[data-testid="stMain"] [data-testid="stPageLink"]').count()


# ------------------------------------------------ the language switch and the links ----
# A choice of each kind whose labels are translated, on the pages of issue 46: the page,
# the link's value (not the default), the label shown in English and in Chinese.
TRANSLATED_CHOICES = (
    ("decay", "decay_axis", "log", "log", "对数"),
    ("overview", "why_sentence", "alice gave bob a book", "alice gave bob a book",
     "爱丽丝给了鲍勃一本书"),
    ("rotation", "rot_mode", "shift both together", "shift both together", "两者一起平移"),
    ("trained_models", "task", "recall", "Recall", "召回"),
)


@pytest.mark.parametrize("name, key, value, english, chinese", TRANSLATED_CHOICES,
                         ids=[c[0] for c in TRANSLATED_CHOICES])
def test_switching_language_keeps_every_choice_and_link_value(page, server, name, key,
                                                              value, english, chinese):
    """Issue 46: switching the language left radios with nothing chosen and wrote
    translated values into links (decay_axis=对数). The choice stays chosen, shown in the
    new language, and the link value stays the option's English code, both ways."""
    open_path(page, server, f"{PAGES[name]}?{key}={urllib.parse.quote(value)}&lang=en")
    radio = f'[data-testid="stMain"] .st-key-{key} input:checked'
    for lang, label in (("zh", chinese), ("en", english), ("zh", chinese)):
        switch = page.locator('[data-testid="stSidebar"] button').filter(
            has_text={"zh": "中文", "en": "English"}[lang])
        rerun_after(page, switch.click)
        page.wait_for_function("s => document.querySelectorAll(s).length === 1", arg=radio)
        shown = page.locator(radio).evaluate("e => e.closest('label').innerText")
        assert shown.strip() == label, (lang, shown)
        assert query(page)[key] == [value] and query(page)["lang"] == [lang]
        assert not texts(page, "stAlertContentWarning")


# -------------------------------------------------------------- multiselect limits ----
def test_typing_a_base_and_enter_adds_that_base_only(page, server):
    """Issue 46: on Frequencies, typing 5000 and Enter added 5000 and 50000: Streamlit's
    "Select 5 matches" row came first and Enter chose it, keeping the first two."""
    open_path(page, server, "/frequencies?lang=en")
    box = page.locator('[data-testid="stMultiSelect"]').filter(
        has_text="Compare with bases").locator("input")
    box.click()
    page.keyboard.type("5000")
    options = page.locator('[role="option"]')
    options.first.wait_for()
    assert not re.search(r"(?i)select", " ".join(options.all_inner_texts()))
    rerun_after(page, lambda: page.keyboard.press("Enter"))
    assert query(page)["compare"] == ["5000"]


def test_a_limited_multiselect_offers_no_select_all(page, server):
    """Issue 46: on Long-term decay, "Select all" silently kept 3 of the 22 bases. The limit
    is in the label ("up to 3") and there is no such row; a fourth stays out, said so."""
    open_path(page, server, "/decay?decay_bases=10&decay_bases=20&lang=en")
    widget = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Overlay other bases")
    widget.locator("input").click()
    options = page.locator('[role="option"]')
    options.first.wait_for()
    assert not re.search(r"(?i)select", " ".join(options.all_inner_texts()))
    rerun_after(page, lambda: options.filter(has_text=re.compile(r"^50$")).click())
    assert query(page)["decay_bases"] == ["10", "20", "50"]
    widget.locator("input").click()
    assert re.search(r"(?i)only select up to 3", widget.page.locator("body").inner_text())


# ------------------------------------------------- several processes behind nginx ----
@pytest.fixture(scope="module")
def cluster():
    missing = nginx_missing_reason()
    if missing:
        import os

        if os.environ.get("ROPE_REQUIRE_BROWSER"):
            raise RuntimeError(f"ROPE_REQUIRE_BROWSER is set but {missing}")
        pytest.skip(missing)
    with Cluster(2, python=sys.executable) as c:
        yield c


def test_affinity_keeps_a_visitor_on_one_process_and_spreads_visitors(cluster):
    first_backends = set()
    for _ in range(16):
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        seen = set()
        for _ in range(3):
            with opener.open(cluster.url + "/_stcore/health", timeout=10) as r:
                assert r.read().strip() == b"ok"
                seen.add(r.headers["X-Rope-Backend"])
        assert len(seen) == 1, seen  # one visitor, one process
        assert "rope_sid" in {c.name for c in jar}
        first_backends |= seen
    assert first_backends == {f"127.0.0.1:{p}" for p in cluster.backend_ports}


def test_page_and_csv_download_through_nginx(page, cluster):  # noqa: F811
    page.goto(cluster.url + "/frequencies?dim=64", timeout=FIRST_LOAD_MS)
    # a chart page: its charts may come with a later rerun on a loaded machine (open_path)
    wait_settled(page, 1, FIRST_LOAD_MS, CHART_PAGE_GRACE_MS)
    assert not texts(page, "stException")
    assert chart_count(page) >= 1
    button = page.locator('[data-testid="stDownloadButton"] button').filter(visible=True).first
    with page.expect_download(timeout=30_000) as info:
        button.click()  # the file lives in the process that holds this session
    download = info.value
    assert download.failure() is None
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    path = DOWNLOADS / f"nginx-{download.suggested_filename}"
    download.save_as(path)
    assert len(pd.read_csv(path)) == 32  # d/2 pairs


def test_serve_script_needs_nothing_outside_a_temporary_folder():
    assert shutil.which("nginx") or nginx_missing_reason() is None
