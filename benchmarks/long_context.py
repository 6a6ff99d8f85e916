#!/usr/bin/env python
"""Long context page: server CPU of one uncached script run, at the extremes.

For each setting (the sidebar's head dim and base, the page's own controls at
their largest values) three AppTest runs of the page are timed with
``time.process_time()`` (all threads of the process: torch's and Streamlit's):
"cold", every cache cleared (a fresh process: it also builds the preset and fit
tables once); "new", caches warm from a visit at the defaults, then this
setting (what a visitor moving to it costs: only what depends on it is
computed); "cached", the same run again (Streamlit's own floor). The page's own
widgets rerun only their fragment in a browser, which AppTest does not
distinguish, so these are whole-page runs. Nothing is asserted.

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
from apptest_helpers import APP, TIMEOUT  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

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


def page_run(query: dict) -> tuple[float, object]:
    """CPU of the Long context run itself (after app.py's first run), for ``query``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/long_context.py")
    t0 = time.process_time()
    at.run()
    cpu = time.process_time() - t0
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]
    return cpu, at


def costs(query: dict) -> tuple[float, float, float]:
    """(cold, new setting, cached): every cache cleared; caches warm from a visit at the
    defaults, then this setting (what a visitor moving to it costs); the same run again."""
    st.cache_resource.clear()
    st.cache_data.clear()
    cold, _ = page_run(query)
    st.cache_resource.clear()
    st.cache_data.clear()
    page_run({})
    new, _ = page_run(query)
    cached, _ = page_run(query)
    return cold, new, cached


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
    rows = []
    print("   cold    new  cached  (s of CPU per page run)")
    for query in cases:
        runs = [costs(query) for _ in range(args.repeats)]
        row = tuple(min(r[i] for r in runs) for i in range(3))
        rows.append(row)
        print(f"{row[0]:7.3f} {row[1]:6.3f} {row[2]:7.3f}  {query or 'defaults'}", flush=True)
    for i, name in enumerate(("cold", "new setting", "cached")):
        column = [r[i] for r in rows]
        print(f"{name}: median {statistics.median(column):.3f} s, max {max(column):.3f} s "
              f"over {len(column)} settings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
