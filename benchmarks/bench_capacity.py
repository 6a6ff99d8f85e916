"""Time and peak-memory growth of rope_core.capacity, one fresh process per run.

Cases (CPU, float64):

* cos_sum:              B_m over 10^6 distances (torch.arange(10**6) as float64), dim 1024, base 10000
* cos_sum_scattered:    the same 10^6 distances in a non-arithmetic order (direct path), dim 1024
* min_base_for_context: 10^6-token context, dim 128 (the grid search of Men et al.'s bound)

Every measurement runs in a FRESH subprocess (this script with --child CASE), so
allocations made by earlier measurements cannot hide growth. The child imports
torch and rope_core, builds the inputs, makes one tiny warm-up call, then reads
resource.getrusage(RUSAGE_SELF).ru_maxrss (peak RSS, KiB on Linux) before and
after the measured call, and its wall (perf_counter) and CPU (process_time) time.
Growth = peak after - peak before. Requirement checked: growth < 100 MB (10^8 bytes).

Run from the repository root:
    .venv/bin/python benchmarks/bench_capacity.py [--repeats 3] [--case NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT_BYTES = 100 * 10**6  # "100 MB"

CASES = {
    "cos_sum": "cos_sum(1024, 10000, arange(10**6) f64)",
    "cos_sum_scattered": "cos_sum(1024, 10000, arange(10**6) f64 with pairs swapped)",
    "min_base_for_context": "min_base_for_context(128, 10**6)",
}


def _rss_now_kib() -> int:
    """Current resident set size in KiB (Linux /proc; -1 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return -1


def child(case: str) -> None:
    """Run one measurement in this (fresh) process and print one JSON line."""
    import resource

    sys.path.insert(0, ROOT)
    import torch

    import rope_core

    if case in ("cos_sum", "cos_sum_scattered"):
        r = torch.arange(10**6).to(torch.float64)
        if case == "cos_sum_scattered":
            r = r.view(-1, 2).flip(1).reshape(-1)  # 1, 0, 3, 2, ...: not a progression

        def call(dist):
            return rope_core.cos_sum(1024, 10000.0, dist)

        def warm():
            return call(r[:16])

        def check(out):  # B_0 = d/2
            return {"B_0": out[int((r == 0).nonzero()[0, 0])].item(), "expected B_0": 512.0}
        arg = r
    elif case == "min_base_for_context":
        def call(context):
            return torch.tensor([rope_core.min_base_for_context(128, context)])

        def warm():
            return call(4096)

        def check(out):
            b = out.item()
            return {"min base": b, "first negative B_m before 10^6":
                    rope_core.first_negative_distance(128, b, 10**6 - 1) or -1}
        arg = 10**6
    else:
        raise SystemExit(f"unknown case {case!r}; choose from {sorted(CASES)}")

    warm()  # lazy initialisation only, small allocations
    rss_now = _rss_now_kib()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    t0, c0 = time.perf_counter(), time.process_time()
    out = call(arg)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "case": case, "wall_s": wall, "cpu_s": cpu, "rss_now_before_kib": rss_now,
        "peak_before_kib": peak_before, "peak_after_kib": peak_after,
        "growth_kib": peak_after - peak_before,
        "output_bytes": out.nbytes, "threads": torch.get_num_threads(),
        "torch": torch.__version__, "check": check(out),
    }))


def run_child(case: str) -> dict:
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", case],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"child {case!r} failed (rc {proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3,
                   help="fresh subprocesses per case (default 3)")
    p.add_argument("--case", nargs="+", choices=sorted(CASES), default=list(CASES),
                   help="cases to run (default: all)")
    p.add_argument("--child", choices=sorted(CASES), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    if args.repeats < 1:
        p.error("--repeats must be >= 1")

    load1 = os.getloadavg()[0]
    ncpu = os.cpu_count() or 1
    print(f"bench_capacity: {args.repeats} fresh subprocess(es) per case, python {sys.executable}")
    print(f"load average (1 min) before start: {load1:.2f} on {ncpu} CPUs"
          + ("  WARNING: other processes compete for the CPU; wall times are noisy"
             if load1 > 0.5 * ncpu else ""))
    print("growth = ru_maxrss after - before the call (peak RSS, KiB on Linux), "
          f"requirement: < {LIMIT_BYTES / 1e6:.0f} MB\n")
    failures = []
    summary = []
    for case in args.case:
        print(f"--- {case}: {CASES[case]}")
        runs = []
        for i in range(args.repeats):
            res = run_child(case)
            runs.append(res)
            hidden = res["peak_before_kib"] - res["rss_now_before_kib"]
            print(f"  run {i + 1}: wall {res['wall_s'] * 1e3:8.1f} ms  cpu {res['cpu_s'] * 1e3:8.1f} ms   RSS before {res['rss_now_before_kib'] / 1024:7.1f} MiB"
                  f"   peak before {res['peak_before_kib'] / 1024:7.1f} MiB   peak after {res['peak_after_kib'] / 1024:7.1f} MiB"
                  f"   growth {res['growth_kib'] / 1024:7.1f} MiB"
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

    print(f"\n{'case':<22} {'median ms':>10} {'min ms':>9} {'cpu ms':>9} {'max growth':>12}  growth < 100 MB")
    print("-" * 82)
    for case, med, best, cpu, growth, ok in summary:
        print(f"{case:<22} {med:>10.1f} {best:>9.1f} {cpu:>9.1f} {growth / 1e6:>9.1f} MB  {'MET' if ok else 'NOT MET'}")
    print("(wall = time.perf_counter, cpu = time.process_time of the child, all its threads; "
          "median over runs; growth is the worst run)")
    print("\nresult: " + ("all cases grow peak RSS by less than 100 MB" if not failures
                          else "NOT MET for " + ", ".join(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
