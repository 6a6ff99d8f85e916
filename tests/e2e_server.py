"""Shared pieces for the browser tests and the load check: start and stop the
Streamlit server, launch Debian's Chromium, and the JavaScript that tells when
a script run has finished and the Plotly charts are drawn.

Used by the browser tests, tests/test_e2e_*.py (sync Playwright: the tab,
waits and warm server below; their ``browser`` fixture is in tests/conftest.py),
and benchmarks/load_test.py (async Playwright). Nothing here downloads anything:
the browser is /usr/bin/chromium, never a Playwright-managed one.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from ui.navigation import PAGES as NAV_PAGES
from ui.navigation import by_path

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]

# The app's own list of pages (ui/navigation.py), name -> URL path.
PAGES = {spec.name: spec.url_path for spec in NAV_PAGES}
# The pages that draw at least one chart.
CHART_PAGES = {spec.name for spec in NAV_PAGES if spec.charts}

APP_RUN_DONE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CHART_SVG = '[data-testid="stPlotlyChart"] .main-svg'


def nginx_missing_reason() -> str | None:
    """Why the tests of several processes behind nginx cannot run here, or None
    (deploy/serve.py's own search for the nginx binary)."""
    sys.path.insert(0, str(ROOT / "deploy"))
    from serve import nginx_binary

    try:
        nginx_binary()
    except SystemExit as err:
        return str(err)
    return None


def chromium_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} not found: install Debian's chromium package"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed"
    return None


def browser_missing() -> bool:
    """For a benchmark script: print why Chromium cannot run here and return True (the
    script then exits with status 2: the check could not run), else return False."""
    missing = chromium_missing_reason()
    if missing:
        print(f"cannot run: {missing}")
    return missing is not None


def skip_without_browser() -> None:
    """Skip the calling test module when Chromium or Playwright is missing, unless
    ROPE_REQUIRE_BROWSER is set (as .ci/run does): then that is an error."""
    import pytest

    missing = chromium_missing_reason()
    if missing:
        if os.environ.get("ROPE_REQUIRE_BROWSER"):  # CI must not skip these
            raise RuntimeError(f"ROPE_REQUIRE_BROWSER is set but {missing}")
        pytest.skip(f"browser tests skipped: {missing}", allow_module_level=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StreamlitServer:
    """``python -m streamlit run app.py`` on a free local port, in its own
    process group; output goes to a log file under artifacts/. ``app_dir`` is
    the folder holding app.py (and .streamlit/): this repository by default."""

    def __init__(self, port: int | None = None, log_name: str = "e2e-server.log",
                 extra_args: tuple[str, ...] = (), app_dir: pathlib.Path = ROOT):
        self.app_dir = app_dir
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_path = ARTIFACTS / log_name
        self.proc: subprocess.Popen | None = None
        self.extra_args = extra_args

    def start(self, timeout: float = 60.0) -> StreamlitServer:
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py",
               "--server.headless", "true", "--server.port", str(self.port),
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               *self.extra_args]
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=self.app_dir, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float) -> None:
        """Poll /_stcore/health until it answers "ok", as Streamlit's e2e tests do."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}; "
                                   f"log:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    body = r.read().decode().strip()
                    if r.status == 200 and body == "ok":
                        return
                    last = f"{r.status} {body!r}"
            except (urllib.error.URLError, OSError) as err:
                last = repr(err)
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"streamlit not healthy after {timeout:.0f} s ({last}); "
                           f"log:\n{self.log_tail()}")

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM the server's own process group, SIGKILL after 10 s."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=10)
        self._log.close()
        self.proc = None

    def rss_bytes(self) -> int:
        """Resident memory of the server and all its descendants (/proc VmRSS)."""
        if self.proc is None:
            return 0
        return tree_rss_bytes(self.proc.pid)

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    out += [int(c) for c in f.read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def tree_rss_bytes(pid: int) -> int:
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            continue
        todo += _children(p)
    return total


# ------------------------------------------------------------ JavaScript ----
# Installed in every page before Streamlit's own scripts. It counts script runs
# from the websocket itself: the server sends one ForwardMsg per binary frame,
# and a top-level field 4 (new_session) starts a run while field 6
# (script_finished) ends one. (stApp's data-test-script-state is not enough:
# when a rerun is quick, React batches "running" and "notRunning" into one
# render and the attribute never changes.) Runs that end early because a rerun
# replaces them (script_finished = 2) are not counted as done. It also keeps
# the time of the last DOM change, so that a wait can end once the page is
# quiet, and the time of each event, on the page's clock (performance.now(),
# 0 = start of the navigation).
RUN_COUNTER_JS = """
(() => {
  const st = window.__stRuns = {started: 0, done: 0, startedAt: 0, doneAt: 0,
                                lastMutationAt: 0, bytes: 0};
  const FINISHED_EARLY_FOR_RERUN = 2;
  const scan = (buf) => {
    const b = new Uint8Array(buf);
    st.bytes += b.length;
    let i = 0;
    const varint = () => {
      let v = 0, mul = 1, byte;
      do { byte = b[i++]; v += (byte & 0x7f) * mul; mul *= 128; } while (byte & 0x80 && i < b.length);
      return v;
    };
    while (i < b.length) {
      const key = varint(), field = Math.floor(key / 8), type = key & 7;
      if (type === 0) {
        const v = varint();
        if (field === 6 && v !== FINISHED_EARLY_FOR_RERUN) {
          st.done++; st.doneAt = performance.now();
        }
      } else if (type === 2) {
        const len = varint();
        if (field === 4) { st.started++; st.startedAt = performance.now(); }
        i += len;
      } else if (type === 1) { i += 8; }
      else if (type === 5) { i += 4; }
      else { return; }  // not a ForwardMsg we understand
    }
  };
  const NativeWebSocket = window.WebSocket;
  class CountingWebSocket extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        try {
          if (ev.data instanceof ArrayBuffer) scan(ev.data);
          else if (ev.data instanceof Blob) ev.data.arrayBuffer().then(scan);
        } catch (e) { /* never break the app */ }
      });
    }
  }
  window.WebSocket = CountingWebSocket;
  new MutationObserver(() => { st.lastMutationAt = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true,
                        characterData: true});
})();
"""

# True once at least `minDone` script runs have finished, the app shows
# "notRunning", every Plotly chart on the page has drawn its SVG and the DOM
# has been quiet for `quietMs` (the last deltas and the Plotly drawing land
# after the script_finished message). A page that shows an exception, or that
# still has no chart `graceMs` after its run finished, counts as settled too
# (the caller then asserts on what is there), so a broken page fails fast.
SETTLED_JS = """
([minDone, graceMs, quietMs]) => {
  const st = window.__stRuns;
  if (!st || st.done < minDone) return false;
  if (!document.querySelector('[data-testid="stApp"][data-test-script-state="notRunning"]'))
    return false;
  const now = performance.now();
  if (now - st.lastMutationAt < (quietMs === undefined ? 150 : quietMs)) return false;
  const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
  for (const c of charts) if (!c.querySelector('.js-plotly-plot .main-svg')) return false;
  if (charts.length > 0) return true;
  if (document.querySelector('[data-testid="stException"]')) return true;
  return now - st.doneAt > graceMs;
}
"""

# Where the time of a step went, in seconds, from `t0` (performance.now() at
# the action; 0 for a navigation): until the run started (new_session
# arrived), the run (until script_finished arrived), and the rendering after
# it (until the last DOM change: last deltas, Plotly drawing).
PHASES_JS = """
(t0) => { const st = window.__stRuns;
          return [(st.startedAt - t0) / 1000, (st.doneAt - st.startedAt) / 1000,
                  (st.lastMutationAt - st.doneAt) / 1000,
                  (st.lastMutationAt - t0) / 1000]; }
"""

RUNS_DONE_JS = "() => (window.__stRuns ? window.__stRuns.done : 0)"

# A compact fingerprint of every Plotly figure on the page: per trace its
# type, name and, for x/y/z, the count and the sum of the finite numbers
# (Plotly's _fullData holds the decoded arrays; data may hold base64 blobs).
FIGURES_JS = """
() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot'))
  .map(gd => ({
    title: (gd._fullLayout && gd._fullLayout.title && gd._fullLayout.title.text) || '',
    annotations: ((gd._fullLayout && gd._fullLayout.annotations) || []).map(a => a.text),
    traces: (gd._fullData || []).map(t => {
      const stats = a => {
        if (a === undefined || a === null) return null;
        let n = 0, sum = 0;
        const walk = v => {
          if (typeof v === 'number') { if (isFinite(v)) { n++; sum += v; } }
          else if (v && typeof v === 'object' && typeof v.length === 'number') {
            for (let i = 0; i < v.length; i++) walk(v[i]);
          }
        };
        walk(a);
        return {len: a.length, n: n, sum: sum};
      };
      return {type: t.type, name: t.name || '', x: stats(t.x), y: stats(t.y), z: stats(t.z)};
    }),
  }))
"""


# ------------------------------------------------- shared by the browser tests ----
@contextlib.contextmanager
def chromium(**launch):
    """Debian's Chromium through Playwright (sync API), closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=CHROMIUM_ARGS, **launch)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.asynccontextmanager
async def async_chromium(nice: int = 0):
    """Debian's Chromium through Playwright's async API (the benchmarks' many tabs at
    once), closed afterwards. ``nice`` > 0 starts it at that lower priority (through a
    wrapper script in artifacts/), so that, sharing the machine with the server, the
    browsers do not starve it."""
    from playwright.async_api import async_playwright

    executable = CHROMIUM
    if nice:
        wrapper = ARTIFACTS / "chromium-niced.sh"
        ARTIFACTS.mkdir(exist_ok=True)
        wrapper.write_text(f'#!/bin/sh\nexec nice -n {nice} {CHROMIUM} "$@"\n')
        wrapper.chmod(0o755)
        executable = str(wrapper)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=executable, headless=True,
                                           args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


SCREENSHOTS = os.environ.get("ROPE_SCREENSHOTS", "") not in ("", "0")


def full_page_screenshot(page, path: pathlib.Path) -> None:
    """The whole page: the window is made as tall as the content for the shot
    (Streamlit scrolls inside its own containers, which a full-page shot would
    cut), then given back its size. Only with ROPE_SCREENSHOTS=1 (docs/testing.md):
    the shots are for a person to look at, nothing asserts on them, and making the
    window tall and back redraws every chart twice (a quarter of the layout tests'
    time: 254 s with the shots, 185 s without, for nine of them on one machine)."""
    if not SCREENSHOTS:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    viewport = page.viewport_size
    height = page.evaluate(
        "() => Math.max(document.documentElement.scrollHeight, ...Array.from("
        "document.querySelectorAll('[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"],"
        " [data-testid=\"stSidebarContent\"]')).map(e => e.scrollHeight))")
    if height > viewport["height"]:
        page.set_viewport_size({"width": viewport["width"], "height": min(int(height), 12_000)})
        page.wait_for_timeout(300)  # let Plotly re-layout to the new size
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(viewport)


FIRST_LOAD_MS = 120_000    # a cold server imports torch and fills its caches
LOAD_MS = 60_000           # any later page open or rerun
NO_CHART_GRACE_MS = 5_000  # a page without a chart counts as settled this long after its run
CHART_PAGE_GRACE_MS = 20_000  # the same, on a page that draws charts (see open_path)
SHOTS = ARTIFACTS / "screenshots"
VIEWPORT = {"width": 1400, "height": 900}


def new_page(browser, **context):
    """A tab in a new browser context (``context``: Playwright's ``new_context``
    options, e.g. viewport, locale) that counts script runs (RUN_COUNTER_JS) and
    waits LOAD_MS by default. Close it with ``page.context.close()``."""
    ctx = browser.new_context(**context)
    ctx.add_init_script(RUN_COUNTER_JS)
    ctx.set_default_timeout(LOAD_MS)
    return ctx.new_page()


def wait_settled(page, min_done: int = 1, timeout: float = LOAD_MS,
                 grace: float = NO_CHART_GRACE_MS) -> None:
    """Script run number ``min_done`` finished, every chart drew its SVG and the
    page has been quiet for 150 ms (see SETTLED_JS); a page without a chart counts as
    settled ``grace`` ms after its run."""
    page.wait_for_function(SETTLED_JS, arg=[min_done, grace, 150],
                           timeout=timeout, polling=100)


def open_path(page, server: StreamlitServer, path: str, timeout: float = LOAD_MS) -> None:
    """Open ``path`` (with its query) on the server and wait for its first run to settle.
    A page that draws charts gets CHART_PAGE_GRACE_MS before none counts as settled: on a
    loaded machine a rerun the first run asks for (the address's values bound, the
    language) may start seconds later, and its charts with it."""
    page.goto(server.url + path, timeout=timeout)
    name = path.lstrip("/").split("?")[0].split("#")[0]
    charts = name in CHART_PAGES or (name == "" and by_path("").name in CHART_PAGES)
    wait_settled(page, 1, timeout, CHART_PAGE_GRACE_MS if charts else NO_CHART_GRACE_MS)


@contextlib.contextmanager
def warmed_server(browser, log_name: str):
    """A server started and warmed up by a first visit to "/" in an English tab of its
    own (closed again), so the tests' own waits are those of a warm server; stopped
    afterwards."""
    with StreamlitServer(log_name=log_name) as srv:
        page = new_page(browser, viewport=VIEWPORT, locale="en-US")
        try:
            open_path(page, srv, "/", timeout=FIRST_LOAD_MS)
        finally:
            page.context.close()
        yield srv
