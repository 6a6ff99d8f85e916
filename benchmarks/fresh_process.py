"""Time and peak-memory growth of a call, measured in a fresh process per run.

Used by bench_growth.py. A benchmark script defines ``CASES`` (name ->
description) and ``setup(case) -> Case`` (the call, its argument, a tiny warm-up
and a sanity check), and hands both to :func:`main`.

Every measurement runs in a FRESH subprocess (the script with ``--child
CASE``), so allocations made by earlier measurements cannot hide growth. The
child imports torch and rope_core, builds the inputs, makes the warm-up call
(loads lazily initialised code, allocates next to nothing), then reads
resource.getrusage(RUSAGE_SELF).ru_maxrss (peak RSS, KiB on Linux) before and
after the measured call, and its wall (perf_counter) and CPU (process_time)
time. Growth = peak after - peak before; checked against 100 MB (10^8 bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT_BYTES = 100 * 10**6  # "100 MB"


@dataclass
class Case:
    call: Callable[[Any], Any]
    arg: Any
    warm: Callable[[], Any]
    check: Callable[[Any], dict]


def _rss_now_kib() -> int:
    """Current resident set size in KiB (Linux /proc; -1 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return -1


def child(case_name: str, setup: Callable[[str], Case]) -> None:
    """Run one measurement in this (fresh) process and print one JSON line."""
    import resource

    import torch

    case = setup(case_name)
    case.warm()  # lazy initialisation only, small allocations
    rss_now = _rss_now_kib()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    t0, c0 = time.perf_counter(), time.process_time()
    out = case.call(case.arg)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outs = out if isinstance(out, tuple) else (out,)
    print(json.dumps({
        "case": case_name, "wall_s": wall, "cpu_s": cpu, "rss_now_before_kib": rss_now,
        "peak_before_kib": peak_before, "peak_after_kib": peak_after,
        "growth_kib": peak_after - peak_before,
        "output_bytes": sum(o.nbytes for o in outs), "threads": torch.get_num_threads(),
        "torch": torch.__version__, "check": case.check(out),
    }))


def run_child(script: str, case: str) -> dict:
    proc = subprocess.run([sys.executable, os.path.abspath(script), "--child", case],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"child {case!r} failed (rc {proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(script: str, cases: dict[str, str], setup: Callable[[str], Case],
         argv: list[str] | None = None) -> int:
    """Parse the command line; as a child measure one case, else run every case
    in fresh subprocesses and print the table."""
    name = os.path.splitext(os.path.basename(script))[0]
    p = argparse.ArgumentParser(description=f"{name}: time and peak-RSS growth per case")
    p.add_argument("--repeats", type=int, default=3,
                   help="fresh subprocesses per case (default 3)")
    p.add_argument("--case", nargs="+", choices=sorted(cases), default=list(cases),
                   help="cases to run (default: all)")
    p.add_argument("--child", choices=sorted(cases), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        sys.path.insert(0, ROOT)
        child(args.child, setup)
        return 0
    if args.repeats < 1:
        p.error("--repeats must be >= 1")

    load1 = os.getloadavg()[0]
    ncpu = os.cpu_count() or 1
    print(f"{name}: {args.repeats} fresh subprocess(es) per case, python {sys.executable}")
    print(f"load average (1 min) before start: {load1:.2f} on {ncpu} CPUs"
          + ("  WARNING: other processes compete for the CPU; wall times are noisy"
             if load1 > 0.5 * ncpu else ""))
    print("growth = ru_maxrss after - before the call (peak RSS, KiB on Linux), "
          f"requirement: < {LIMIT_BYTES / 1e6:.0f} MB\n")
    failures, summary = [], []
    for case in args.case:
        print(f"--- {case}: {cases[case]}")
        runs = []
        for i in range(args.repeats):
            res = run_child(script, case)
            runs.append(res)
            hidden = res["peak_before_kib"] - res["rss_now_before_kib"]
            print(f"  run {i + 1}: wall {res['wall_s'] * 1e3:8.1f} ms  "
                  f"cpu {res['cpu_s'] * 1e3:8.1f} ms   "
                  f"RSS before {res['rss_now_before_kib'] / 1024:7.1f} MiB   "
                  f"peak before {res['peak_before_kib'] / 1024:7.1f} MiB   "
                  f"peak after {res['peak_after_kib'] / 1024:7.1f} MiB   "
                  f"growth {res['growth_kib'] / 1024:7.1f} MiB"
                  + (f"   (peak was already {hidden / 1024:.0f} MiB above current RSS)"
                     if hidden > 10 * 1024 else ""))
        walls = [r["wall_s"] * 1e3 for r in runs]
        growth = max(r["growth_kib"] for r in runs) * 1024  # bytes, worst run
        ok = growth < LIMIT_BYTES
        if not ok:
            failures.append(case)
        chk = ", ".join(f"{k} {v:.6g}" for k, v in runs[0]["check"].items())
        print(f"  sanity: {chk}; output {runs[0]['output_bytes'] / 1e6:.1f} MB; "
              f"torch {runs[0]['torch']}, {runs[0]['threads']} threads")
        cpu = statistics.median(r["cpu_s"] * 1e3 for r in runs)
        summary.append((case, statistics.median(walls), min(walls), cpu, growth, ok))

    print(f"\n{'case':<22} {'median ms':>10} {'min ms':>9} {'cpu ms':>9} {'max growth':>12}"
          "  growth < 100 MB")
    print("-" * 82)
    for case, med, best, cpu, growth, ok in summary:
        print(f"{case:<22} {med:>10.1f} {best:>9.1f} {cpu:>9.1f} {growth / 1e6:>9.1f} MB  "
              f"{'MET' if ok else 'NOT MET'}")
    print("(wall = time.perf_counter, cpu = time.process_time of the child, all its threads; "
          "median over runs; growth is the worst run)")
    print("\nresult: " + ("all cases grow peak RSS by less than 100 MB" if not failures
                          else "NOT MET for " + ", ".join(failures)))
    return 0 if not failures else 1
