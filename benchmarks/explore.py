#!/usr/bin/env python
"""A class that explores (issue 18): the server CPU of every uncached script run.

**Sweep** (default). For every page in ``ui.navigation.PAGES`` (so pages added
later are swept too) and every control on it, at its extremes, run the page
once with nothing cached and report the CPU of that one script run:

* the sidebar on every page: head dim 2 and 1024, base 10 and 10⁸ (and the
  four corners of the two);
* every URL-bound control of the page (found by running the page at its
  defaults): a select slider or a choice at its first, middle and last option,
  a slider or number box at its minimum, middle and maximum, a toggle at the
  value it is not, a multiselect with as many options as it allows from the
  start and from the end of its list; each at the default head dim and again
  at d = 1024 (``--dims``);
* the page's "Show the table" toggles (the tables behind its plots).

Each setting is a deep link (``?dim=1024&rot_step=4096``), the way a student's
change reaches the server: AppTest runs app.py (the landing page), then
``st.cache_resource`` and ``st.cache_data`` are cleared and the page is run
with that link, timed. (Caches emptied: ui.cache's stores, st.cache_resource,
st.cache_data. Kept: ui.constants' process constants, which depend on no
setting and are computed once per server process in a background thread from
its first run; the sweep computes them before its first run and prints their
CPU.) Two figures per run:

* ``script``: CPU of the script thread (``RUSAGE_THREAD``): the work the
  server's script runner does for that run;
* ``process``: ``time.process_time`` around the whole run: every thread of this
  process, so also PyTorch's own thread pools, and AppTest's parsing of the
  messages (a small overhead a real server does not have, measured on an empty
  page and printed as ``floor``).

The gate (issue 18) is on ``process``: every run ≤ 0.25 s, median ≤ 0.05 s.
Runs over 0.25 s are flagged. A few minutes in all once every page is fast (a
slow page's runs dominate: at the time of writing Long context's took 1–18 s
each, about 10 minutes of the sweep; ``--dims 128`` halves the page runs).

    .venv/bin/python benchmarks/explore.py                     # every page
    .venv/bin/python benchmarks/explore.py --pages rotation decay
    .venv/bin/python benchmarks/explore.py --dims 128          # page controls at d = 128 only
    .venv/bin/python benchmarks/explore.py --profile rotation dim=1024   # cProfile one run
    .venv/bin/python benchmarks/explore.py --csv out.csv       # every run, for a spreadsheet

**Class loads** (``--load``): the loads of issue 18's goals 2 and 3 with
``../shared/tools/ws_load.py`` against a fresh server: 30 exploring students
on one process (``--pages auto --sessions 30 --steps 28 --think 3 --values
random --change dim,base,any --spread``), then 200 visitors spread over the
pages with random values held open (benchmarks/sessions_memory.py). Prints p95,
failures, server CPU per step, VmHWM and memory per session.

    .venv/bin/python benchmarks/explore.py --load              # about 5 minutes

Timings are only meaningful on an otherwise idle machine (the 1-minute load
average is printed); the figures are CPU time, less sensitive to other
processes than wall time, but a busy machine still inflates them (caches,
frequency).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.chdir(ROOT)

GATE_RUN = 0.25  # s of server CPU, any one uncached run
GATE_MEDIAN = 0.05  # s, the median uncached run
SIDEBAR = [{"dim": "2"}, {"dim": "1024"}, {"base": "10"}, {"base": "100000000"},
           {"dim": "2", "base": "10"}, {"dim": "2", "base": "100000000"},
           {"dim": "1024", "base": "10"}, {"dim": "1024", "base": "100000000"}]
SIDEBAR_KEYS = {"dim", "base", "layout", "device", "present", "lang"}


@dataclass
class Run:
    page: str
    setting: str
    script: float
    process: float
    wall: float
    error: str = ""


@dataclass
class Thread:
    """CPU of the script thread of the latest AppTest run."""
    times: list = field(default_factory=list)


THREAD = Thread()
PROFILER = None  # a cProfile.Profile to run inside the script thread (--profile)


def _patch_script_thread() -> None:
    """Record RUSAGE_THREAD around each AppTest script thread."""
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    original = LocalScriptRunner._run_script_thread

    def timed(self) -> None:
        start = resource.getrusage(resource.RUSAGE_THREAD)
        if PROFILER is not None:
            PROFILER.enable()  # profiles this thread only
        try:
            original(self)
        finally:
            if PROFILER is not None:
                PROFILER.disable()
            end = resource.getrusage(resource.RUSAGE_THREAD)
            THREAD.times.append(end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime)

    LocalScriptRunner._run_script_thread = timed


def _patch_script_cache() -> None:
    """AppTest compiles app.py and the page afresh on every run (a new ScriptCache
    per run); a server compiles each script once. Keep the bytecode for the process,
    so that the runs measure what a server does."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    kept: dict = {}
    original = ScriptCache.get_bytecode

    def get_bytecode(self, script_path: str):
        path = os.path.abspath(script_path)
        if path not in kept:
            kept[path] = original(self, script_path)
        return kept[path]

    ScriptCache.get_bytecode = get_bytecode


def clear_caches() -> None:
    import streamlit as st

    from ui import cache

    cache.clear_all()  # ui.table, ui.figure
    from ui.tables import CSVS

    CSVS.clear()
    st.cache_resource.clear()  # anything a page caches itself
    st.cache_data.clear()


def _quiet():
    """Streamlit warns about AppTest's missing runtime on every run: keep stdout clean."""
    from streamlit import logger

    logger.set_log_level("error")
    warnings.filterwarnings("ignore")


def open_page(page: str, query: dict) -> tuple:
    """AppTest on ``page`` with ``query`` as the link: the landing page first (not
    timed), then the page, timed, with every cache empty."""
    from apptest_helpers import APP
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page != "overview":
        at.switch_page(f"pages/{page}.py")
    return at


def timed_run(at, clear: bool = True) -> tuple[float, float, float]:
    """(script CPU, process CPU, wall) of one run of ``at``, every cache emptied first
    (``clear``). The run starts from a collected heap: the sweep opens a new AppTest for
    every setting, and the garbage the earlier ones left fell into whichever run came
    next (a full collection of up to 15 ms in one run of a few dozen, and younger
    collections in every run: a sweep of Precision and Context extension took a median
    of 0.032 s a run without this and 0.029 s with it, its slowest 0.061 and 0.043 s)."""
    if clear:
        clear_caches()
    gc.collect()
    THREAD.times.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return (sum(THREAD.times), cpu, wall)


def errors_of(at) -> str:
    shown = [e.value for e in at.exception] + [e.value for e in at.error]
    return " | ".join(str(s)[:80] for s in shown)


def controls(at) -> list[tuple[str, list]]:
    """Every URL-bound control on the page (not the sidebar's) and the link values to
    try: [(key, [value or list of values, ...])]."""
    out = []
    seen = set()
    for kind in ("select_slider", "slider", "number_input", "radio", "selectbox", "toggle",
                 "checkbox", "multiselect", "text_input"):
        for w in at.main.get(kind):
            key = w.key
            if not key or key in SIDEBAR_KEYS or key in seen or key.startswith(("show_", "csv_")):
                continue
            seen.add(key)
            values = _extremes(kind, w)
            if values:
                out.append((key, values))
    return out


def _pick(options: list) -> list:
    if len(options) <= 3:
        return list(options)
    return [options[0], options[len(options) // 2], options[-1]]


def _num(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _extremes(kind: str, w) -> list:
    proto = w.proto
    if kind == "select_slider":
        return _pick(list(w.options))
    if kind in ("radio", "selectbox"):
        return list(w.options) if len(w.options) <= 4 else _pick(list(w.options))
    if kind == "slider":
        low, high, step = proto.min, proto.max, proto.step or 1
        mid = low + round((high - low) / 2 / step) * step
        return [_num(v) for v in dict.fromkeys([low, mid, high])]
    if kind == "number_input":
        low = proto.min if proto.has_min else 0
        high = proto.max if proto.has_max else low + 100
        return [_num(v) for v in dict.fromkeys([low, (low + high) // 2, high])]
    if kind in ("toggle", "checkbox"):
        return ["false" if w.value else "true"]
    if kind == "multiselect":
        most = proto.max_selections or len(w.options)
        options = list(w.options)
        return [options[:most], options[-most:]]
    return []  # text boxes: the page checks their text; their default is swept


def label(query: dict) -> str:
    return "&".join(f"{k}={v if not isinstance(v, list) else '+'.join(v)}"
                    for k, v in query.items()) or "(defaults)"


def sweep_page(spec, dims: list[str], log) -> list[Run]:
    """Every setting of one page, each timed once with nothing cached."""
    page = spec.name
    runs: list[Run] = []

    def measure(query: dict, toggle: str | None = None) -> None:
        try:
            at = open_page(page, query)
            if toggle is not None:
                at.run()
                at.toggle(key=toggle).set_value(True)
            script, process, wall = timed_run(at)
            err = errors_of(at)
        except Exception as exc:  # noqa: BLE001 (a benchmark reports, never stops)
            script = process = wall = float("nan")
            err = f"{type(exc).__name__}: {exc}"[:160]
        name = label(query) + (f" +{toggle}" if toggle else "")
        runs.append(Run(page, name, script, process, wall, err))
        log(runs[-1])

    at = open_page(page, {})
    at.run()  # warm: imports, the page's module-level work
    found = controls(at)
    toggles = [t.key for t in at.main.get("toggle") if t.key and t.key.startswith("show_")]
    measure({})
    for query in SIDEBAR:
        measure(dict(query))
    for dim in dims:
        for key, values in found:
            for value in values:
                measure({**({} if dim == "128" else {"dim": dim}), key: value})
    for key in toggles:
        measure({}, toggle=key)
        measure({"dim": "1024"}, toggle=key)
    return runs


def floor() -> float:
    """process_time of an AppTest run of a script that only writes a line: what
    AppTest itself adds to every measured run."""
    import tempfile

    from streamlit.testing.v1 import AppTest

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write("import streamlit as st\nst.write('x')\n")
    at = AppTest.from_file(f.name)
    at.run()
    times = []
    for _ in range(5):
        times.append(timed_run(at, clear=False)[1])
    os.unlink(f.name)
    return statistics.median(times)


def warm_constants() -> float:
    """Compute ui.constants' process constants as a server does from its first run
    (in their background thread), and return their CPU. The sweep keeps them: no
    visitor's setting changes them."""
    from ui import constants

    cpu = time.process_time()
    constants.warm_up(wait=True)
    return time.process_time() - cpu


def report(runs: list[Run]) -> int:
    ok = [r for r in runs if r.process == r.process]
    print()
    width = max(len(r.setting) for r in runs)
    print(f"{'page':<18} {'setting':<{width}}  script  process   wall")
    for r in runs:
        flag = "  OVER 0.25 s" if r.process > GATE_RUN else ""
        flag += f"  ERROR {r.error}" if r.error else ""
        print(f"{r.page:<18} {r.setting:<{width}}  {r.script:6.3f}  {r.process:7.3f} "
              f"{r.wall:6.2f}{flag}")
    print("\nper page (process CPU, s):   runs  median     max  over 0.25 s")
    pages = dict.fromkeys(r.page for r in runs)
    for page in pages:
        times = [r.process for r in ok if r.page == page]
        if times:
            print(f"  {page:<26} {len(times):5d}  {statistics.median(times):6.3f}  "
                  f"{max(times):6.3f}  {sum(t > GATE_RUN for t in times):3d}")
    over = [r for r in ok if r.process > GATE_RUN]
    errors = [r for r in runs if r.error]
    med = statistics.median(r.process for r in ok) if ok else float("nan")
    top = max(ok, key=lambda r: r.process) if ok else None
    print(f"\nall runs: {len(runs)}; median {med:.3f} s (gate {GATE_MEDIAN}), "
          f"max {top.process:.3f} s ({top.page} {top.setting}; gate {GATE_RUN}); "
          f"{len(over)} over {GATE_RUN} s; {len(errors)} with an error or exception")
    passed = not over and not errors and med <= GATE_MEDIAN
    print("PASS" if passed else "FAIL")
    return 0 if passed else 1


def profile(page: str, setting: list[str]) -> int:
    import cProfile
    import pstats

    query = dict(s.split("=", 1) for s in setting)
    at = open_page(page, {})
    at.run()
    at = open_page(page, query)
    global PROFILER
    warm_constants()
    clear_caches()
    PROFILER = prof = cProfile.Profile()
    at.run()
    PROFILER = None
    print(errors_of(at) or "no error")
    stats = pstats.Stats(prof)
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(25)
    return 0


# ------------------------------------------------------------ class loads ----
# ../shared/tools/ws_load.py beside the repository (or beside the folder holding a
# git worktree of it); ROPE_WS_LOAD names it elsewhere
WS_LOAD = next((p for p in [Path(os.environ.get("ROPE_WS_LOAD", "/nonexistent")),
                            *(d / "shared" / "tools" / "ws_load.py" for d in ROOT.parents)]
                if p.exists()), ROOT.parent / "shared" / "tools" / "ws_load.py")


def class_loads(students: int, visitors: int) -> int:
    """Goals 2 and 3 of issue 18 against fresh servers."""
    import json
    import tempfile

    sys.path.insert(0, str(ROOT / "deploy"))
    from serve import free_port

    if not WS_LOAD.exists():
        print(f"{WS_LOAD} not found (it lives in the shared folder beside the repository)")
        return 1
    out = Path(tempfile.mkdtemp(prefix="rope-explore-"))
    path = out / "class.json"
    cmd = [sys.executable, str(WS_LOAD), "--url", f"http://127.0.0.1:{free_port()}",
           "--start", str(ROOT), "--python", sys.executable, "--pages", "auto",
           "--sessions", str(students), "--steps", "28", "--think", "3",
           "--values", "random", "--change", "dim,base,any", "--spread",
           "--no-expect-chart",  # the guided tour draws none
           "--p95-limit", "1", "--json", str(path)]
    print(f"== goal 2: {students} exploring students, one process")
    print("$", " ".join(cmd[1:]), flush=True)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    keep = ("load phase", "server", "bytes per step", "PASS", "FAIL", "failures", "p95",
            "slowest", "per page")
    print("\n".join("   " + line for line in done.stdout.splitlines()
                    if line.strip().startswith(keep)) or done.stdout[-3000:] + done.stderr[-2000:])
    if path.exists():
        m = json.loads(path.read_text()).get("metrics", {})
        if "hwm" in m:
            print(f"   server peak (VmHWM) {m['hwm'] / 2**20:.0f} MiB (goal < 1024)")
    print(f"\n== goal 3: {visitors} visitors spread over the pages, random values, held open")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "sessions_memory.py"),
           "--sessions", str(visitors), "--pages", "auto", "--values", "random",
           "--ws-load", str(WS_LOAD)]
    print("$", " ".join(cmd[1:]), flush=True)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    print(done.stdout[-4000:] + done.stderr[-2000:])
    print(f"ws_load's JSON results are in {out}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", nargs="*", help="page names (default: every page in PAGES)")
    ap.add_argument("--dims", nargs="*", default=["128", "1024"],
                    help="head dims at which the page's own controls are swept")
    ap.add_argument("--csv", type=Path, help="write every run to this CSV file")
    ap.add_argument("--profile", nargs="+", metavar=("PAGE", "KEY=VALUE"),
                    help="cProfile one uncached run of PAGE with these link values")
    ap.add_argument("--load", action="store_true", help="run the class loads instead")
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--visitors", type=int, default=200)
    args = ap.parse_args()
    if args.load:
        return class_loads(args.students, args.visitors)

    _quiet()
    _patch_script_thread()
    _patch_script_cache()
    import apptest_helpers  # noqa: F401 (AppTest fixes: navigation mode, widget language)

    from ui.navigation import PAGES

    if args.profile:
        return profile(args.profile[0], args.profile[1:])
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    names = args.pages or [spec.name for spec in PAGES]
    specs = [spec for spec in PAGES if spec.name in names]
    started = time.perf_counter()
    print(f"floor (AppTest's own cost for a one-line script): {floor():.3f} s")
    print(f"process constants (ui.constants: computed once per process in the background "
          f"from the first run, then start-up's objects frozen out of the garbage "
          f"collector's passes; kept by the sweep): {warm_constants():.3f} s")
    runs: list[Run] = []

    def log(r: Run) -> None:
        print(f"  {r.page:<18} {r.setting:<48} {r.process:6.3f}"
              + ("  OVER" if r.process > GATE_RUN else "") + (f"  {r.error}" if r.error else ""),
              flush=True)

    for spec in specs:
        runs += sweep_page(spec, args.dims, log)
    print(f"\n{len(runs)} runs in {time.perf_counter() - started:.0f} s; "
          f"load average now {os.getloadavg()[0]:.2f}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["page", "setting", "script_cpu_s", "process_cpu_s", "wall_s", "error"])
            for r in runs:
                w.writerow([r.page, r.setting, f"{r.script:.4f}", f"{r.process:.4f}",
                            f"{r.wall:.3f}", r.error])
    return report(runs)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
