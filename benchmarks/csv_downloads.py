#!/usr/bin/env python
"""CPU for repeated CSV downloads of the largest table, and what it does to
another visitor.

A fresh server; headless Chromium opens the Sinusoidal page with its largest
table (P x d_model = 2^17 values, long form) and clicks its CSV download
--downloads times (30), a second visitor rerunning a cached page after each. Prints
the server's CPU seconds for the downloads, the size of one file, and the
second visitor's rerun times before and during the downloads. Since issue 8
the bytes are written on the first click and cached per setting
(ui/tables.py), so 30 downloads cost about one.

    .venv/bin/python benchmarks/csv_downloads.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from e2e_server import (  # noqa: E402
    APP_RUN_DONE,
    RUN_COUNTER_JS,
    RUNS_DONE_JS,
    SETTLED_JS,
    StreamlitServer,
    chromium,
)

BIG = "/sinusoidal?sin_positions=1024&sin_dmodel=128"  # 2^17 values


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(page, done: int) -> None:
    page.wait_for_function(SETTLED_JS, arg=[done, 5000, 150], timeout=120_000, polling=100)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--downloads", type=int, default=30)
    args = ap.parse_args()

    with StreamlitServer(log_name="bench-csv.log") as srv, chromium() as browser:
        ctx = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 900})
        ctx.add_init_script(RUN_COUNTER_JS)
        page = ctx.new_page()
        page.goto(srv.url + BIG, timeout=120_000)
        page.wait_for_selector(APP_RUN_DONE, timeout=120_000)
        settle(page, 1)
        button = page.locator('[data-testid="stDownloadButton"] button').first

        other = browser.new_context(viewport={"width": 1400, "height": 900})
        other.add_init_script(RUN_COUNTER_JS)
        other_page = other.new_page()
        other_page.goto(srv.url + "/decay", timeout=120_000)
        settle(other_page, 1)

        def rerun_times(n: int) -> list[float]:
            times = []
            for _ in range(n):
                done = other_page.evaluate(RUNS_DONE_JS)
                t = time.perf_counter()
                other_page.locator('[data-testid="stSidebar"] input[aria-label="Head dim d"]') \
                    .first.focus()
                other_page.keyboard.press("ArrowLeft" if len(times) % 2 == 0 else "ArrowRight")
                settle(other_page, done + 1)
                times.append(time.perf_counter() - t)
            return times

        cpu_b = cpu_seconds(srv.proc.pid)
        before = rerun_times(10)
        per_rerun = (cpu_seconds(srv.proc.pid) - cpu_b) / len(before)
        sizes: list[int] = []
        cpu0, t0 = cpu_seconds(srv.proc.pid), time.perf_counter()

        during = []
        for _ in range(args.downloads):  # Playwright's sync API: one thread, so interleave
            with page.expect_download(timeout=120_000) as info:
                button.click()
            sizes.append(os.path.getsize(info.value.path()))
            during += rerun_times(1)  # the other visitor keeps working meanwhile
        cpu = cpu_seconds(srv.proc.pid) - cpu0
        wall = time.perf_counter() - t0
    downloads_cpu = cpu - per_rerun * len(during)
    print(f"{args.downloads} downloads of {BIG}: one file {sizes[0] / 2**20:.1f} MiB, "
          f"{wall:.1f} s wall; server CPU {cpu:.2f} s in all, of which the other visitor's "
          f"{len(during)} reruns about {per_rerun * len(during):.2f} s ({per_rerun * 1000:.0f} ms "
          f"each, measured before), so the downloads about {downloads_cpu:.2f} s "
          f"({downloads_cpu / args.downloads * 1000:.0f} ms per download)")
    print(f"other visitor's rerun of a cached page: median {statistics.median(before):.2f} s "
          f"before, {statistics.median(during):.2f} s during the downloads "
          f"(max {max(during):.2f} s, {len(during)} reruns)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
