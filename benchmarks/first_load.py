"""What a fresh page load costs the browser, and so what N co-located browsers can do.

The load check (load_test.py) runs its browsers on the same machine as the
server. A page load in a new browser context makes Chromium fetch, compile and
start Streamlit's frontend before the first chart appears, and that work does
not depend on the app. This script separates the two by timing the same cold
load for three apps, each served by its own ``streamlit run`` with this
repository's .streamlit/config.toml:

  bare text     st.title + st.write: Streamlit's frontend alone
  bare + chart  st.title + one 3-point Plotly chart: adds Plotly's 4.7 MB bundle
  RoPE Explorer this app's landing page "/" (sidebar, LaTeX, one chart)

For each app, after one warm-up load (server imports and caches), it measures
one cold load with nothing else running, then --sessions cold loads started at
once. Each load happens in a new browser context (empty cache), like a
student's first visit. Printed per app: the time from navigation to the last
DOM change once the run has finished and every chart is drawn (the same
settled state as load_test.py), and the CPU seconds the browsers (every
Chromium process and Playwright's driver) and the server used per load.

The last lines compare: what N cold loads of a bare page take is the floor
that co-located browsers set, whatever the app and the server do.

Usage (from the repository root):
    .venv/bin/python benchmarks/first_load.py [--sessions 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import shutil
import statistics
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import e2e_server as e2e  # noqa: E402
from load_test import QUIET_MS, _cpu_seconds, _descendants  # noqa: E402

BARE_TEXT = 'import streamlit as st\nst.title("Bare")\nst.write("hello")\n'
BARE_CHART = ('import plotly.graph_objects as go\nimport streamlit as st\nst.title("Bare")\n'
              'st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))\n')
GRACE_MS = 300  # a page without a chart counts as settled this long after its run


def bare_app(source: str) -> pathlib.Path:
    """A folder with app.py = source and this repository's .streamlit/."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="rope-first-load-"))
    (folder / "app.py").write_text(source)
    shutil.copytree(ROOT / ".streamlit", folder / ".streamlit")
    return folder


def browser_cpu(server: e2e.StreamlitServer) -> dict[int, float]:
    """CPU seconds of each of this script's descendants other than the server."""
    others = _descendants(os.getpid()) - ({server.proc.pid} | _descendants(server.proc.pid))
    return {pid: c for pid, c in zip(others, map(_cpu_seconds, others)) if c == c}


def cpu_since(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU used between two snapshots by the processes alive at the second
    (a process that exits in between, such as a closed context's renderer,
    must not subtract its earlier total)."""
    return sum(c - before.get(pid, 0.0) for pid, c in after.items())


async def cold_load(browser, url: str):
    """Seconds from navigation to the settled page, in a new browser context
    (returned open: closing it ends its renderer, and with it the CPU count)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    await context.add_init_script(e2e.RUN_COUNTER_JS)
    page = await context.new_page()
    await page.goto(url, timeout=180_000)
    await page.wait_for_function(e2e.SETTLED_JS, arg=[1, GRACE_MS, QUIET_MS],
                                 timeout=180_000, polling=50)
    return (await page.evaluate(e2e.PHASES_JS, 0.0))[3], context


async def measure(browser, server: e2e.StreamlitServer, n: int) -> tuple[list[float], float, float]:
    """n cold loads at once: their times, and browser and server CPU per load."""
    b0, s0 = browser_cpu(server), _cpu_seconds(server.proc.pid)
    loads = await asyncio.gather(*[cold_load(browser, server.url + "/") for _ in range(n)])
    b_cpu, s_cpu = cpu_since(b0, browser_cpu(server)), _cpu_seconds(server.proc.pid) - s0
    for _, context in loads:
        await context.close()
    return [seconds for seconds, _ in loads], b_cpu / n, s_cpu / n


async def main_async(sessions: int) -> None:

    apps = {"bare text": bare_app(BARE_TEXT), "bare + chart": bare_app(BARE_CHART),
            "RoPE Explorer": ROOT}
    cores = os.cpu_count()
    print(f"cold page loads (new browser context each) on {cores} CPUs; load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'app':<15}{'loads':>6}{'median s':>10}{'max s':>8}{'browser CPU s':>15}"
          f"{'server CPU s':>14}  (CPU per load)")
    medians = {}
    try:
        async with e2e.async_chromium() as browser:
            for name, folder in apps.items():
                with e2e.StreamlitServer(log_name="first-load-server.log", app_dir=folder) as server:
                    await measure(browser, server, 1)  # warm-up: server imports, caches
                    for n in (1, sessions):
                        times, b_cpu, s_cpu = await measure(browser, server, n)
                        print(f"{name:<15}{n:>6}{statistics.median(times):>10.2f}"
                              f"{max(times):>8.2f}{b_cpu:>15.2f}{s_cpu:>14.2f}", flush=True)
                        medians[name, n] = statistics.median(times)
    finally:
        for folder in apps.values():
            if folder != ROOT:
                shutil.rmtree(folder, ignore_errors=True)
    if len(medians) == 2 * len(apps):
        print(f"\n{sessions} cold loads at once take a median "
              f"{medians['bare text', sessions]:.1f} s for a page that only writes "
              f"text, {medians['bare + chart', sessions]:.1f} s with one Plotly chart and "
              f"{medians['RoPE Explorer', sessions]:.1f} s for this app's landing page "
              f"(alone: {medians['bare text', 1]:.1f}, {medians['bare + chart', 1]:.1f} and "
              f"{medians['RoPE Explorer', 1]:.1f} s). The difference between the last two is "
              "this app; the rest is Streamlit's frontend starting in browsers that share "
              f"these {cores} cores.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10,
                        help="cold loads started at once (10)")
    args = parser.parse_args()
    if e2e.browser_missing():
        return 2  # the check could not run
    asyncio.run(main_async(args.sessions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
