"""Uncached server CPU of one script run of the Precision, Context extension and
Frequencies pages, at their default and extreme settings (issue 18's speed gate).

Each setting: open the page once through AppTest (imports and first run), then
``--repeats`` times clear every Streamlit cache and rerun the page, timing the
rerun with ``time.process_time()`` (CPU of the whole process: the script thread,
pandas, torch and Plotly figure building and validation, and AppTest's own
protobuf handling, a little more than the server would spend). Prints the median
and the largest per setting, and the median and worst over all settings against
the gate (largest <= 0.25 s, median <= 0.05 s). Noisy on a shared machine: the
load average is printed.

torch's intra-op threads spin while they wait, and on a busy 2-core host that spinning
is counted as CPU: ``--threads 1`` shows the cost without it.

Run: .venv/bin/python benchmarks/claims_pages.py [--repeats 3] [--page precision ...]
[--threads 1]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import logging  # noqa: E402

import streamlit as st  # noqa: E402
from apptest_helpers import no_exceptions, run_page  # noqa: E402

EXTREMES = {"dim": ("2", "1024"), "base": ("10", "100000000")}
SETTINGS = {
    "precision": [
        {},
        {"pr_max": "1000000", "dim": "1024", "base": "100000000"},
        {"pr_max": "1000000", "dim": "1024", "base": "10"},
        {"pr_max": "1000000", "dim": "2", "base": "10", "pr_gap": "1000"},
        {"pr_max": "1000", "dim": "1024", "pr_recipe": "cache"},
        {"pr_max": "1000000", "dim": "1024", "pr_recipe": "positions", "pr_gap": "1"},
    ],
    "context_extension": [
        {},
        {"ce_model": "sidebar settings", "dim": "1024", "base": "100000000",
         "ce_L": "262144", "ce_s": "32"},
        {"ce_model": "sidebar settings", "dim": "1024", "base": "10", "ce_L": "262144",
         "ce_s": "32", "ce_axis": "log"},
        {"ce_model": "sidebar settings", "dim": "2", "base": "10", "ce_L": "256",
         "ce_s": "2"},
        {"ce_model": "Phi-3.5 mini", "ce_axis": "log"},
        {"ce_model": "DeepSeek-V3"},
    ],
    "frequencies": [
        {},
        {"dim": "1024", "base": "100000000", "L": "1048576", "scaling": "yarn",
         "factor": "64", "compare": ["10", "500000"]},
        {"dim": "1024", "base": "10", "L": "1048576", "scaling": "dynamic", "factor": "64"},
        {"dim": "2", "base": "10", "L": "128", "scaling": "llama3", "factor": "2"},
    ],
}


def uncached_runs(page: str, query: dict, repeats: int) -> list[float]:
    at = run_page(page, query)
    times = []
    for _ in range(repeats):
        st.cache_resource.clear()
        st.cache_data.clear()
        t0 = time.process_time()
        at.run()
        times.append(time.process_time() - t0)
        no_exceptions(at)
    return times


def main() -> int:
    logging.disable(logging.WARNING)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--page", action="append", choices=sorted(SETTINGS))
    ap.add_argument("--threads", type=int, default=0,
                    help="torch.set_num_threads(N) first (0: leave torch's default)")
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    import torch

    print(f"load average (1 min): {os.getloadavg()[0]:.2f}; torch threads: "
          f"{torch.get_num_threads()}")
    worst, medians = 0.0, []
    for page in args.page or list(SETTINGS):
        for query in SETTINGS[page]:
            times = uncached_runs(page, query, args.repeats)
            med = statistics.median(times)
            medians.append(med)
            worst = max(worst, max(times))
            shown = ", ".join(f"{k}={v}" for k, v in query.items()) or "defaults"
            print(f"{page:18s} median {med:.3f} s  max {max(times):.3f} s   {shown}")
    print(f"over all settings: median {statistics.median(medians):.3f} s, "
          f"largest {worst:.3f} s (gate: largest <= 0.25 s, median <= 0.05 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
