#!/usr/bin/env python
"""Long context page: server CPU of one uncached script run, at the extremes.

For each setting (the sidebar's head dim and base, the page's own controls at
their largest values) the page is opened once with AppTest (imports, first
run), every cache is cleared (``st.cache_resource.clear()``), and the run is
repeated: ``time.process_time()`` around that uncached run (all threads of the
process: torch's and Streamlit's) is the figure printed. A second number is the
CPU of the page's own computations alone (rope_core tables + figure builders,
caches cleared), without Streamlit's rendering. Nothing is asserted.

Timings are noisy on a shared machine; the load average is printed.

    .venv/bin/python benchmarks/long_context.py [--quick]
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

import streamlit as st  # noqa: E402
import torch  # noqa: E402
from apptest_helpers import run_page  # noqa: E402

EXTREMES = [
    {},
    {"dim": "2"},
    {"dim": "1024"},
    {"dim": "1024", "base": "10"},
    {"dim": "1024", "base": "100000000"},
    {"dim": "2", "base": "100000000"},
    {"dim": "328", "lc_bmax": "1048576"},
    {"dim": "1024", "base": "100000000", "lc_bmax": "1048576"},
    {"dim": "64", "base": "10", "lc_bmax": "1048576"},
    {"dim": "1024", "lc_train": "131072", "lc_factor": "64", "lc_newbase": "100000000"},
    {"dim": "2", "lc_train": "131072", "lc_factor": "64", "lc_newbase": "10"},
    {"dim": "1024", "lc_train": "512", "lc_factor": "1", "lc_newbase": "10"},
    {"lc_sdim": "256", "lc_target": "65536"},
    {"lc_sdim": "128", "lc_target": "1048576"},
]


def uncached_run(query: dict) -> float:
    at = run_page("long_context", query)
    st.cache_resource.clear()
    st.cache_data.clear()
    t0 = time.process_time()
    at.run()
    cpu = time.process_time() - t0
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]
    return cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the first three settings only")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1: as a Streamlit script thread on a 2-core host "
                             "should use; 0: leave torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch threads: {torch.get_num_threads()}")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
    cases = EXTREMES[:3] if args.quick else EXTREMES
    costs = []
    for query in cases:
        runs = [uncached_run(query) for _ in range(args.repeats)]
        cpu = min(runs)
        costs.append(cpu)
        print(f"{cpu:7.3f} s  {query or 'defaults'}", flush=True)
    print(f"median {statistics.median(costs):.3f} s, max {max(costs):.3f} s "
          f"over {len(costs)} settings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
