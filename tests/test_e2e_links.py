"""In a real browser: crafted links render as plain text, the Back button walks
page visits with their settings, and the app works served by several
Streamlit processes behind nginx (deploy/serve.py), CSV downloads included.

Skipped like tests/test_e2e_browser.py when Chromium or Playwright is missing
(an error instead when ROPE_REQUIRE_BROWSER is set, as in .ci/run).
"""

from __future__ import annotations

import http.cookiejar
import shutil
import sys
import urllib.parse
import urllib.request

import pandas as pd
import pytest
from e2e_server import FIRST_LOAD_MS, LOAD_MS, ROOT, nginx_missing_reason, open_path, wait_settled
from test_e2e_browser import (  # noqa: F401 (fixtures: server, page; browser: conftest.py)
    DOWNLOADS,
    assert_no_errors,
    chart_count,
    page,
    rerun_after,
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
    rerun_after(page, lambda: _arrow_left(page, "Head dim d"))  # dim 64 -> 62 on this page
    assert "dim=62" in page.url
    page.locator('[data-testid="stSidebarNavLink"][href$="/rotation"]').click()
    wait_settled(page, 1)
    page.wait_for_url("**/rotation?*", timeout=LOAD_MS)
    assert "base=500000" in page.url and "dim=62" in page.url  # the link keeps the settings
    rerun_after(page, lambda: _arrow_left(page, "Head dim d"))  # 62 -> 60 on Rotation
    page.go_back()
    page.wait_for_url("**/frequencies?*", timeout=LOAD_MS)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('h1')).some(h => "
        "h.innerText.includes('Frequencies'))", timeout=LOAD_MS)
    # the previous page, with the settings it had when the student left it
    assert "dim=62" in page.url and "base=500000" in page.url
    # the slider is redrawn from the URL by the rerun that Back starts: wait for it, since a
    # loaded machine can read the thumb before that rerun's delta lands
    selector = '[data-testid="stSidebar"] input[aria-label="Head dim d"]'
    page.wait_for_function(
        "s => document.querySelector(s)?.getAttribute('aria-valuetext') === '62'",
        arg=selector, timeout=LOAD_MS)
    assert page.locator(selector).first.get_attribute("aria-valuetext") == "62"


def _arrow_left(page, label: str) -> None:
    page.locator(f'[data-testid="stSidebar"] input[aria-label="{label}"]').first.focus()
    page.keyboard.press("ArrowLeft")


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
    wait_settled(page, 1, FIRST_LOAD_MS)
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
