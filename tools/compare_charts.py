#!/usr/bin/env python
"""Draw every chart of two versions of the app in Chromium and compare the pixels:
the check for a change that alters what a figure sends but must not alter what
is drawn (a leaner template, x0/dx instead of an x array, ...).

    .venv/bin/python tools/compare_charts.py /path/to/old/checkout      # against this one
    .venv/bin/python tools/compare_charts.py OLD NEW --pages rotation decay --settings zh

Both versions run side by side (``streamlit run app.py`` in each folder, as the
README starts the app). For every page with a chart (``ui.navigation``) and every
setting (``tools/capture_outputs.py``'s settings: defaults, a sidebar corner, d = 1024
with base 10, Chinese, presentation mode), each version's page is opened as a deep
link in a new tab of the same size; once every chart is drawn and the page has been
quiet for a while, each chart (``[data-testid="stPlotlyChart"]``) is photographed
and the two versions' pictures are compared pixel by pixel. Differences are
listed with the number of differing pixels and saved under ``artifacts/charts/``
(old, new and a difference mask); exit status 1 when any chart differs or a page
has a different number of charts. ``--tables`` photographs the table views instead:
every "Show the ... table" toggle of the page switched on, each ``st.dataframe``
(``[data-testid="stDataFrame"]``) as drawn (the check for a change of how a table is
sent, e.g. narrower integer columns).
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from capture_outputs import SETTINGS  # noqa: E402  (the same five settings)

OUT = ROOT / "artifacts" / "charts"


def settled(page, timeout_ms: int = 90_000) -> None:
    from e2e_server import SETTLED_JS

    page.wait_for_function(SETTLED_JS, arg=[1, 3000, 600], timeout=timeout_ms, polling=100)
    page.wait_for_timeout(400)  # fonts and the last relayout


def shots(page, url: str) -> list[bytes]:
    page.goto(url)
    settled(page)
    charts = page.locator('[data-testid="stPlotlyChart"]')
    out = []
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        page.mouse.move(0, 0)  # no hover label, no mode bar
        page.wait_for_timeout(150)
        out.append(chart.screenshot(animations="disabled"))
    return out


def table_shots(page, url: str) -> list[bytes]:
    """Every table view of the page: each "Show the ..." toggle (key ``show_...``)
    switched on in turn, then each st.dataframe photographed."""
    from e2e_server import RUNS_DONE_JS, SETTLED_JS

    page.goto(url)
    settled(page)
    toggles = page.locator('[class*="st-key-show_"] label')
    for i in range(toggles.count()):
        done = page.evaluate(RUNS_DONE_JS)
        toggles.nth(i).scroll_into_view_if_needed()
        toggles.nth(i).click()
        page.wait_for_function(SETTLED_JS, arg=[done + 1, 3000, 600], timeout=90_000,
                               polling=100)
    page.wait_for_timeout(800)  # the grids draw on a canvas after the DOM settles
    tables = page.locator('[data-testid="stDataFrame"]')
    out = []
    for i in range(tables.count()):
        table = tables.nth(i)
        table.scroll_into_view_if_needed()
        page.mouse.move(0, 0)
        page.wait_for_timeout(300)
        out.append(table.screenshot(animations="disabled"))
    return out


def differ(a: bytes, b: bytes) -> tuple[int, object]:
    from PIL import Image, ImageChops

    ia = Image.open(io.BytesIO(a)).convert("RGB")
    ib = Image.open(io.BytesIO(b)).convert("RGB")
    if ia.size != ib.size:
        return -1, None
    diff = ImageChops.difference(ia, ib)
    if diff.getbbox() is None:
        return 0, None
    mask = diff.convert("L").point(lambda v: 255 if v else 0)
    return sum(1 for v in mask.getdata() if v), mask


def main() -> int:
    from e2e_server import (
        CHART_PAGES,
        PAGES,
        RUN_COUNTER_JS,
        StreamlitServer,
        chromium,
    )

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path, help="checkout of the version to compare with")
    ap.add_argument("new", type=Path, nargs="?", default=ROOT, help="(this checkout)")
    ap.add_argument("--pages", nargs="*", help="only these pages (ui.navigation names)")
    ap.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--tables", action="store_true",
                    help="compare the table views (every Show-the-table toggle on) instead")
    args = ap.parse_args()
    pages = [(n, p) for n, p in PAGES.items()
             if (args.tables or n in CHART_PAGES) and (not args.pages or n in args.pages)]
    take = table_shots if args.tables else shots
    what = "tables" if args.tables else "charts"
    OUT.mkdir(parents=True, exist_ok=True)
    bad = same = 0
    with StreamlitServer(log_name="compare-old.log", app_dir=args.old.resolve()) as old, \
            StreamlitServer(log_name="compare-new.log", app_dir=args.new.resolve()) as new, \
            chromium() as browser:
        for name, path in pages:
            for setting in args.settings:
                query = urlencode(SETTINGS[setting])
                got = {}
                for which, server in (("old", old), ("new", new)):
                    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
                    ctx.add_init_script(RUN_COUNTER_JS)  # what settled() reads
                    page = ctx.new_page()
                    got[which] = take(page, f"{server.url}{path}" + (f"?{query}" if query else ""))
                    ctx.close()
                label = f"{name} {setting}"
                if len(got["old"]) != len(got["new"]):
                    print(f"{label}: {len(got['old'])} {what} before, {len(got['new'])} after")
                    bad += 1
                    continue
                for i, (a, b) in enumerate(zip(got["old"], got["new"])):
                    n, mask = differ(a, b)
                    if n == 0:
                        same += 1
                        continue
                    bad += 1
                    stem = OUT / f"{name}-{setting}-{what}-{i}"
                    Path(f"{stem}-old.png").write_bytes(a)
                    Path(f"{stem}-new.png").write_bytes(b)
                    if mask is not None:
                        mask.save(f"{stem}-diff.png")
                    print(f"{label} {what[:-1]} {i}: "
                          + ("a different size" if n < 0 else f"{n} pixels differ")
                          + f" ({stem}-*.png)", flush=True)
                print(f"{label}: {len(got['new'])} {what} compared", flush=True)
    print(f"{same} {what} identical, {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
