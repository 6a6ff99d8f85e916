#!/usr/bin/env python
"""Where the browser's main thread goes before a page's first chart, beside the floor app.

``benchmarks/floor.py --parts browser`` times the first chart of each page in a fresh
tab against the floor app (goal 4 of issue 30). This script says why a page takes
longer: for each page it opens a fresh tab of headless Chromium with Chrome's
JavaScript sampling profiler on (the DevTools protocol's ``Profiler`` domain, one
sample every 200 µs), waits for the first chart's SVG, and prints

* when things happened, in ms after the navigation: the websocket opened, its first
  and last message, the sidebar and the page title drawn, the first formula (KaTeX),
  the first chart's box and its drawn SVG;
* the main thread's sampled time until then, by script (Streamlit's chunks:
  ``PlotlyChart`` for Plotly, ``StreamlitMarkdown`` for Markdown and KaTeX,
  ``react-dom``, ``Slider``, ...; ``(program)`` is the browser's own work: layout,
  style, paint; ``(garbage collector)``) and by function within them.

The floor app (``../shared/tools/floor-app``, with this app's config) is profiled the
same way, last, so that each page reads against it. Both servers are warmed first
(every page once: server caches, the browser's HTTP cache), as in ``floor.py``. One
tab per page is one sample: run it twice before trusting a difference of tens of ms.

    .venv/bin/python benchmarks/browser_profile.py precision frequencies
    .venv/bin/python benchmarks/browser_profile.py --top 20 context_extension
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from floor import floor_app, loadavg  # noqa: E402

# Set in every new document before Streamlit's scripts: performance.now() of each mark.
MARKS_JS = """
(() => {
  window.__marks = {};
  const mark = (k) => { if (!(k in window.__marks)) window.__marks[k] = performance.now(); };
  const seen = (s) => document.querySelector(s);
  new MutationObserver(() => {
    if (seen('[data-testid="stSidebar"]')) mark('sidebar');
    if (seen('[data-testid="stMain"] h1')) mark('title');
    if (seen('.katex')) mark('formula');
    if (seen('[data-testid="stPlotlyChart"]')) mark('chart box');
    if (seen('[data-testid="stPlotlyChart"] .main-svg')) mark('chart drawn');
  }).observe(document, {subtree: true, childList: true});
  const Socket = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Socket(...args);
    ws.addEventListener('open', () => mark('ws open'));
    ws.addEventListener('message', () => { mark('ws first'); window.__marks['ws last'] = performance.now(); });
    return ws;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, Socket);
})();
"""
MARK_ORDER = ("ws open", "ws first", "ws last", "sidebar", "title", "formula", "chart box",
              "chart drawn")


def by_script(profile: dict) -> tuple[collections.Counter, collections.Counter]:
    """Sampled µs of a CPU profile by script (the file name of the sample's own frame,
    or the V8 pseudo-frame: "(program)", "(idle)", "(garbage collector)") and by
    (script, function)."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    scripts, functions = collections.Counter(), collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"]):
        frame = nodes[sample]
        script = frame["url"].rsplit("/", 1)[-1] or f"({frame['functionName'].strip('()')})"
        scripts[script] += delta
        functions[script, frame["functionName"] or "(top level)"] += delta
    return scripts, functions


async def profile_tab(context, url: str) -> tuple[dict, dict]:
    """The marks and the CPU profile of one fresh tab, up to its first drawn chart."""
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Profiler.enable")
    await cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    await cdp.send("Profiler.start")
    try:
        await page.goto(url, timeout=90_000)
        await page.wait_for_function("() => window.__marks && window.__marks['chart drawn'] > 0",
                                     timeout=90_000, polling=20)
        marks = await page.evaluate("() => window.__marks")
        profile = (await cdp.send("Profiler.stop"))["profile"]
    finally:
        await page.close()
    return marks, profile


def report(name: str, marks: dict, profile: dict, top: int) -> None:
    scripts, functions = by_script(profile)
    busy = sum(v for k, v in scripts.items() if k != "(idle)")
    print(f"\n{name}: main thread busy {busy / 1000:.0f} ms until the first chart")
    print("   " + ", ".join(f"{k} {marks[k]:.0f}" for k in MARK_ORDER if k in marks) + " (ms)")
    print("   by script:")
    for script, us in scripts.most_common(top):
        print(f"   {us / 1000:8.1f} ms  {script}")
    print("   by function:")
    for (script, fn), us in functions.most_common(top):
        print(f"   {us / 1000:8.1f} ms  {script[:32]:<32} {fn[:40]}")


async def main_async(names: list[str], top: int) -> None:
    from e2e_server import PAGES, StreamlitServer, async_chromium

    with StreamlitServer(log_name="browser-profile-app.log") as app, \
            StreamlitServer(log_name="browser-profile-floor.log", app_dir=floor_app()) as low:
        async with async_chromium() as browser:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            await context.add_init_script(MARKS_JS)
            targets = [(name, app.url + PAGES[name]) for name in names]
            targets.append(("floor app", low.url + "/"))
            for _, url in targets:  # warm: server caches, the browser's HTTP cache
                await profile_tab(context, url)
            for name, url in targets:
                report(name, *await profile_tab(context, url), top)


def main() -> int:
    from e2e_server import CHART_PAGES, browser_missing

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", choices=sorted(CHART_PAGES), metavar="PAGE",
                        help="pages to profile (file names in pages/ that draw a chart)")
    parser.add_argument("--top", type=int, default=12,
                        help="rows of each breakdown (default 12)")
    args = parser.parse_args()
    if browser_missing():
        return 2  # the check could not run
    print(f"first chart in a fresh tab, headless Chromium, JS sampling profiler ({loadavg()})")
    asyncio.run(main_async(args.pages, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
