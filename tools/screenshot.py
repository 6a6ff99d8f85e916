#!/usr/bin/env python
"""Make the README's screenshot (docs/screenshot.png) again: start the app, open one page in
headless Chromium and save the first screen a visitor sees.

    .venv/bin/python tools/screenshot.py                       # docs/screenshot.png
    .venv/bin/python tools/screenshot.py --path "/long_context" --out /tmp/shot.png

It starts ``streamlit run app.py`` on a free local port (tests/e2e_server.StreamlitServer),
opens ``--path`` (a page and its link values) in Debian's Chromium through Playwright
(``/usr/bin/chromium``; never ``playwright install``), waits until the page's script run
has finished and every chart is drawn (tests/e2e_server.wait_settled), saves the window
(``--width`` × ``--height`` CSS pixels, ``--scale`` device pixels each) as a PNG and stops
the server. Exit status 2 when Chromium or Playwright is missing.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import e2e_server as e2e  # noqa: E402 (tests/e2e_server.py: the browser tests' server and tabs)

# Frequencies with a second base: the sidebar, the formula, both charts and their lines
DEFAULT_PATH = "/frequencies?compare=500000"
DEFAULT_OUT = ROOT / "docs" / "screenshot.png"


def shoot(path: str, out: pathlib.Path, width: int, height: int, scale: float,
          locale: str) -> None:
    with e2e.StreamlitServer(log_name="screenshot-server.log") as server:
        with e2e.chromium() as browser:
            page = e2e.new_page(browser, viewport={"width": width, "height": height},
                            device_scale_factor=scale, locale=locale)
            try:
                e2e.open_path(page, server, path, timeout=e2e.FIRST_LOAD_MS)
                page.wait_for_timeout(500)  # the last chart's transition
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out))
            finally:
                page.context.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", default=DEFAULT_PATH,
                    help=f"the page and its link values (default {DEFAULT_PATH})")
    ap.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT,
                    help="the PNG to write (default docs/screenshot.png)")
    ap.add_argument("--width", type=int, default=1400, help="window width [px] (1400)")
    ap.add_argument("--height", type=int, default=860, help="window height [px] (860)")
    ap.add_argument("--scale", type=float, default=1.0, help="device pixels per CSS pixel (1)")
    ap.add_argument("--locale", default="en-US", help="the browser's language (en-US)")
    args = ap.parse_args()
    if e2e.browser_missing():
        return 2
    shoot(args.path, args.out, args.width, args.height, args.scale, args.locale)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
