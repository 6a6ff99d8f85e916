"""Load check: N concurrent browser sessions against one RoPE Explorer server.

Starts ``python -m streamlit run app.py`` itself on a free (or --port) local
port, warms it up with one visit to "/", then runs --sessions concurrent
headless sessions (one Debian Chromium, one browser context per session,
Playwright's async API). Each session opens every page in turn and, on each
page, changes one control: it focuses the sidebar "Head dim d" slider and
presses ArrowLeft (d: 128 -> 126), which reruns the page.

Measured, per page open and per control change, on the page's own clock: the
time from the navigation (or the key press) until the page is done: the script
run it started has finished (the script_finished message arrived on the
websocket; see RUN_COUNTER_JS in tests/e2e_server.py), stApp shows
"notRunning", every Plotly chart on the page has drawn its SVG, and the DOM has
been quiet for 150 ms; the time taken is that of the last DOM change. The
median split of each step is printed too: until the run started, the run
itself, and the rendering after it. A step fails when it takes longer than
--timeout, or the page shows an exception or st.error, or it drew no chart.

Printed: count, failures, median and 95th percentile (and max) per page and
step and overall, the server's peak resident memory (VmRSS of the server and
all its children from /proc, polled every 0.1 s), and one line
"PASS"/"FAIL" for "p95 < --p95-limit s (3 s) and no failure". Exit status 0
on PASS, 1 on FAIL, 2 when the run could not start.

Usage (from the repository root):
    .venv/bin/python benchmarks/load_test.py [--sessions 10] [--port N]
        [--nav goto|link] [--timeout 30] [--max-seconds 420] [--p95-limit 3]
        [--server-arg=--server.fileWatcherType=none ...]

--nav link (default): the first page is a fresh page load of "/"; every
other page is opened by clicking its sidebar link, as a student does (one
websocket session, Streamlit's frontend started once). --nav goto: every page
open is a fresh page load of its URL (a visitor following seven deep links):
the frontend starts seven times per session.

A fresh page load costs the browser far more than anything after it: in a new
browser context Chromium fetches, compiles and starts about 8 MB of Streamlit
JavaScript (Plotly alone is 4.7 MB), about 5 s of CPU on this machine against
0.3 to 1 s for a later step. The summary therefore reports first loads and
in-app steps (sidebar links and control changes) separately, besides the
overall figures the PASS line uses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from e2e_server import (  # noqa: E402
    CHART_PAGES,
    PHASES_JS,
    RUN_COUNTER_JS,
    RUNS_DONE_JS,
    SETTLED_JS,
    StreamlitServer,
    async_chromium,
    browser_missing,
)
from e2e_server import PAGES as ALL_PAGES  # noqa: E402

# Every page that draws a chart, in lesson order.
PAGES = {name: path for name, path in ALL_PAGES.items() if name in CHART_PAGES}
NAV_INDEX = {name: n for n, name in enumerate(ALL_PAGES)}  # its link's place in the sidebar
QUIET_MS = 150  # the DOM must not change for this long before a step counts as done
DIM_THUMB = '[data-testid="stSidebar"] input[aria-label="Head dim d"]'
PAINTED_JS = ("() => new Promise(r => requestAnimationFrame(() => "
              "requestAnimationFrame(() => r(true))))")
PROBLEMS_JS = """
() => ({
  exceptions: document.querySelectorAll('[data-testid="stException"]').length,
  errors: Array.from(document.querySelectorAll('[data-testid="stAlertContentError"]'))
            .map(e => e.innerText.slice(0, 120)),
  charts: document.querySelectorAll('[data-testid="stPlotlyChart"] .main-svg').length,
})
"""


@dataclass
class Step:
    session: int
    page: str
    step: str  # "open" or "control"
    seconds: float
    error: str | None = None
    # where the time went, on the browser's clock: until the run started
    # (new_session arrived), the run (until script_finished arrived), the
    # rendering after it (until the last DOM change)
    phases: tuple[float, float, float] | None = None
    ws_bytes: int = 0  # websocket payload received during the step
    fresh_load: bool = False  # a new document: Streamlit's frontend started for it


@dataclass
class Run:
    steps: list[Step] = field(default_factory=list)
    peak_rss: int = 0
    rss_samples: int = 0
    # CPU seconds last seen per browser process (descendants of this script
    # other than the server): where the client side spends the machine
    client_cpu: dict = field(default_factory=dict)
    client_cpu_start: float = 0.0
    page_errors: int = 0
    aborted: int = 0  # sessions cut short by --max-seconds


async def _settled(page, min_done: int, timeout_s: float) -> None:
    # Every page has a chart: wait for it as long as the step may take (the
    # grace for pages without any chart is the whole timeout).
    await page.wait_for_function(SETTLED_JS, arg=[min_done, timeout_s * 1000, QUIET_MS],
                                 timeout=timeout_s * 1000, polling=50)
    await page.evaluate(PAINTED_JS)


async def _problems(page) -> str | None:
    p = await page.evaluate(PROBLEMS_JS)
    if p["exceptions"]:
        return f"{p['exceptions']} exception(s) shown"
    if p["errors"]:
        return f"st.error: {p['errors'][0]}"
    if not p["charts"]:
        return "no Plotly chart drawn"
    return None


STATE_JS = """
() => ({runs: window.__stRuns, charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
        drawn: document.querySelectorAll('[data-testid="stPlotlyChart"] .main-svg').length,
        focused: document.activeElement && document.activeElement.getAttribute('aria-label'),
        url: location.pathname + location.search})
"""


async def _ws_bytes(page) -> int:
    try:
        return await page.evaluate("() => window.__stRuns ? window.__stRuns.bytes : 0")
    except Exception:
        return 0


async def _timed(run: Run, session: int, page_name: str, step: str, coro, page=None,
                 new_document: bool = False) -> bool:
    bytes0 = 0 if new_document else await _ws_bytes(page)
    t0 = time.perf_counter()
    error, phases = None, None
    try:
        error, phases = await coro
    except Exception as err:  # a Playwright timeout or a closed page
        error = f"{type(err).__name__}: {str(err).splitlines()[0][:100]}"
        if page is not None:
            try:
                error += f" [state {json.dumps(await page.evaluate(STATE_JS))}]"
            except Exception:
                pass
    seconds = time.perf_counter() - t0
    if error is None and phases:
        # from the action to the last DOM change, on the page's own clock
        # (without the quiet window and the polling delay of the wait)
        seconds, phases = phases[3], tuple(phases[:3])
    ws = await _ws_bytes(page) - bytes0 if page is not None else 0
    run.steps.append(Step(session, page_name, step, seconds, error, phases, ws, new_document))
    return error is None


async def one_session(i: int, browser, url: str, args, run: Run, deadline: float) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    await context.add_init_script(RUN_COUNTER_JS)
    page = await context.new_page()
    page.on("pageerror", lambda _err: setattr(run, "page_errors", run.page_errors + 1))
    rng = random.Random(i)  # the same reading pauses on every run

    async def think():  # a student reads the page before the next action
        if args.think > 0:
            await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))

    await asyncio.sleep(i * args.stagger)  # students do not all press Enter at once
    try:
        for n, (name, path) in enumerate(PAGES.items()):
            if time.monotonic() > deadline:
                run.aborted += 1
                return

            async def open_page():
                if args.nav == "goto" or n == 0:
                    t_action = 0.0  # performance.now() counts from the navigation
                    await page.goto(url + path, timeout=args.timeout * 1000)
                    await _settled(page, 1, args.timeout)
                else:
                    before = await page.evaluate(RUNS_DONE_JS)
                    # the sidebar's navigation (ui.navigation.draw) lists every page in
                    # order, the ones without a chart (skipped here) too
                    link = page.locator("nav.rope-nav a[data-rope-link]").nth(NAV_INDEX[name])
                    t_action = await page.evaluate("performance.now()")
                    await link.click(timeout=args.timeout * 1000)
                    await _settled(page, before + 1, args.timeout)
                phases = await page.evaluate(PHASES_JS, t_action)
                return await _problems(page), phases

            if not await _timed(run, i, name, "open", open_page(), page,
                                new_document=args.nav == "goto" or n == 0):
                continue  # the page is broken; go on with the next one
            await think()

            async def change_control():
                before = await page.evaluate(RUNS_DONE_JS)
                await page.locator(DIM_THUMB).first.focus(timeout=args.timeout * 1000)
                t_action = await page.evaluate("performance.now()")
                await page.keyboard.press("ArrowLeft")
                await _settled(page, before + 1, args.timeout)
                phases = await page.evaluate(PHASES_JS, t_action)
                return await _problems(page), phases

            await _timed(run, i, name, "control", change_control(), page)
            await think()
    finally:
        await context.close()


def _descendants(pid: int) -> set[int]:
    from e2e_server import _children

    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for c in _children(p):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def sample_client_cpu(server: StreamlitServer, run: Run) -> None:
    server_tree = {server.proc.pid} | _descendants(server.proc.pid)
    for pid in _descendants(os.getpid()) - server_tree:
        cpu = _cpu_seconds(pid)
        if cpu == cpu:  # not NaN: still alive
            run.client_cpu[pid] = cpu


async def poll_rss(server: StreamlitServer, run: Run, stop: asyncio.Event) -> None:
    ticks = 0
    while not stop.is_set():
        rss = server.rss_bytes()
        run.peak_rss = max(run.peak_rss, rss)
        run.rss_samples += 1
        if ticks % 5 == 0:
            sample_client_cpu(server, run)
        ticks += 1
        try:
            await asyncio.wait_for(stop.wait(), 0.1)
        except TimeoutError:
            pass


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def p95(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[94]


def report(run: Run, args, wall: float, warmup: float, baseline_rss: int,
           cpu: float) -> bool:
    mib = 1024 * 1024
    print(f"\n{'page':<14}{'step':<9}{'count':>6}{'fail':>6}{'median s':>10}{'p95 s':>9}"
          f"{'max s':>9}   median phases s: to run start / run / draw; ws KiB")
    ok_all = [s.seconds for s in run.steps if s.error is None]
    for name in PAGES:
        for step in ("open", "control"):
            steps = [s for s in run.steps if s.page == name and s.step == step]
            if not steps:
                continue
            ok = [s.seconds for s in steps if s.error is None]
            fails = len(steps) - len(ok)
            if ok:
                ph = [s.phases for s in steps if s.error is None and s.phases]
                ph_text = (" / ".join(f"{statistics.median(p[k] for p in ph):.2f}"
                                      for k in range(3)) if ph else "")
                kib = statistics.median(s.ws_bytes for s in steps) / 1024
                print(f"{name:<14}{step:<9}{len(steps):>6}{fails:>6}"
                      f"{statistics.median(ok):>10.2f}{p95(ok):>9.2f}{max(ok):>9.2f}   "
                      f"{ph_text}; {kib:.0f}")
            else:
                print(f"{name:<14}{step:<9}{len(steps):>6}{fails:>6}{'-':>10}{'-':>9}{'-':>9}")
    for step in ("open", "control"):
        ok = [s.seconds for s in run.steps if s.step == step and s.error is None]
        n = sum(1 for s in run.steps if s.step == step)
        if ok:
            print(f"{'all pages':<14}{step:<9}{n:>6}{n - len(ok):>6}"
                  f"{statistics.median(ok):>10.2f}{p95(ok):>9.2f}{max(ok):>9.2f}")
    for label, fresh in (("first loads", True), ("in-app steps", False)):
        ok = [s.seconds for s in run.steps if s.fresh_load == fresh and s.error is None]
        n = sum(1 for s in run.steps if s.fresh_load == fresh)
        if ok:
            print(f"{label:<23}{n:>6}{n - len(ok):>6}"
                  f"{statistics.median(ok):>10.2f}{p95(ok):>9.2f}{max(ok):>9.2f}")
    failures = [s for s in run.steps if s.error is not None]
    expected = args.sessions * len(PAGES) * 2
    print(f"{'overall':<23}{len(run.steps):>6}{len(failures):>6}"
          + (f"{statistics.median(ok_all):>10.2f}{p95(ok_all):>9.2f}{max(ok_all):>9.2f}"
             if ok_all else ""))
    if failures:
        print("\nfailures:")
        for s in failures[:30]:
            print(f"  session {s.session} {s.page} {s.step} after {s.seconds:.1f} s: "
                  f"{s.error[:400]}")
        if len(failures) > 30:
            print(f"  ... and {len(failures) - 30} more")
    print(f"\nsteps run {len(run.steps)} of {expected} planned (a failed open skips that "
          f"page's control change); sessions cut short by --max-seconds: {run.aborted}; "
          f"browser page errors (JS): {run.page_errors}")
    print(f"warm-up (first load of / on the fresh server): {warmup:.2f} s")
    client = sum(run.client_cpu.values()) - run.client_cpu_start
    print(f"load phase wall time: {wall:.1f} s; CPU time during it: server {cpu:.1f} s "
          f"({cpu / wall * 100:.0f}% of one core), browser ~{client:.1f} s "
          f"({client / wall * 100:.0f}% of one core; processes alive at the samples); "
          f"per step: server {cpu / max(len(run.steps), 1):.2f} s, "
          f"browser {client / max(len(run.steps), 1):.2f} s")
    print(f"server peak RSS (server + children, {run.rss_samples} samples): "
          f"{run.peak_rss / mib:.0f} MiB (after warm-up: {baseline_rss / mib:.0f} MiB)")
    server = [s.phases[0] + s.phases[1] for s in run.steps if s.error is None and s.phases]
    if server:
        print(f"server latency (action until the script run's end reached the browser; "
              f"drawing excluded), all steps: median {statistics.median(server):.2f} s, "
              f"p95 {p95(server):.2f} s, max {max(server):.2f} s")
    overall_p95 = p95(ok_all) if ok_all else float("inf")
    missing = expected - len(run.steps)
    passed = not failures and not missing and overall_p95 < args.p95_limit
    why = [f"p95 {overall_p95:.2f} s {'<' if overall_p95 < args.p95_limit else '>='} "
           f"{args.p95_limit:g} s", f"{len(failures)} failure(s)"]
    if missing:
        why.append(f"{missing} step(s) not run")
    print(f"{'PASS' if passed else 'FAIL'}: {args.sessions} sessions, " + ", ".join(why))
    return passed


async def main_async(args) -> int:
    server = StreamlitServer(port=args.port, log_name="load-test-server.log",
                             extra_args=tuple(args.server_arg))
    print(f"starting streamlit on port {server.port} (log: {server.log_path})")
    server.start(timeout=60)
    run = Run()
    try:
        # The browsers share this machine with the server; in a classroom each student's
        # browser runs on the student's own laptop. A lower priority (--browser-nice)
        # keeps them from starving the server (they still use every idle cycle).
        async with async_chromium(nice=args.browser_nice) as browser:
            # Warm-up: the first run imports torch and builds the page caches.
            context = await browser.new_context()
            await context.add_init_script(RUN_COUNTER_JS)
            page = await context.new_page()
            t0 = time.perf_counter()
            await page.goto(server.url + "/", timeout=120_000)
            await _settled(page, 1, 120)
            warmup = time.perf_counter() - t0
            await context.close()
            baseline_rss = server.rss_bytes()
            print(f"warm-up done in {warmup:.1f} s; running {args.sessions} sessions "
                  f"x {len(PAGES)} pages (--nav {args.nav}, think {args.think:g} s, "
                  f"stagger {args.stagger:g} s)")

            stop = asyncio.Event()
            poller = asyncio.create_task(poll_rss(server, run, stop))
            cpu0 = _cpu_seconds(server.proc.pid)
            sample_client_cpu(server, run)
            run.client_cpu_start = sum(run.client_cpu.values())
            load0 = os.getloadavg()[0]
            t0 = time.perf_counter()
            deadline = time.monotonic() + args.max_seconds
            sessions = [one_session(i, browser, server.url, args, run, deadline)
                        for i in range(args.sessions)]
            # Hard stop a little after the deadline, whatever hangs.
            try:
                await asyncio.wait_for(asyncio.gather(*sessions),
                                       args.max_seconds + args.timeout + 30)
            except TimeoutError:
                print("the load phase hit its hard time limit")
            wall = time.perf_counter() - t0
            cpu = _cpu_seconds(server.proc.pid) - cpu0
            stop.set()
            await poller
            sample_client_cpu(server, run)
            print(f"load average (1 min) at start {load0:.1f}, at end {os.getloadavg()[0]:.1f} "
                  f"on {os.cpu_count()} CPUs")
    finally:
        server.stop()
    return 0 if report(run, args, wall, warmup, baseline_rss, cpu) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10, help="concurrent sessions (10)")
    parser.add_argument("--port", type=int, default=None, help="server port (a free one)")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean seconds a student reads before the next action, drawn "
                             "uniformly from 0.5x to 1.5x (3; 0 = lockstep worst case)")
    parser.add_argument("--browser-nice", type=int, default=0, metavar="N",
                        help="run the browsers under `nice -n N` so that they do not starve "
                             "the server they share 2 cores with (0: same priority)")
    parser.add_argument("--stagger", type=float, default=0.5,
                        help="seconds between the starts of two sessions (0.5; 0 = all at once)")
    parser.add_argument("--nav", choices=["goto", "link"], default="link",
                        help="open pages by the sidebar links (link, default) or each by a "
                             "fresh load of its URL (goto)")
    parser.add_argument("--timeout", type=float, default=30,
                        help="seconds one page open or control change may take (30)")
    parser.add_argument("--max-seconds", type=float, default=420,
                        help="no new page is opened after this many seconds (420)")
    parser.add_argument("--p95-limit", type=float, default=3.0,
                        help="PASS needs the overall p95 below this many seconds (3)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="extra argument for `streamlit run`, repeatable, e.g. "
                             "--server-arg=--server.fileWatcherType=none")
    args = parser.parse_args()
    if browser_missing():
        return 2  # the check could not run
    try:
        return asyncio.run(main_async(args))
    except RuntimeError as err:  # the server did not start
        print(f"cannot run: {err}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
