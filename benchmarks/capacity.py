#!/usr/bin/env python
"""Server capacity: the browserless load tool against freshly started servers.

Runs ../shared/tools/ws_load.py (Streamlit's own websocket protocol, many
simulated students, no browsers) against

  (every page with a chart, in lesson order)

  1. one Streamlit process: a class of --students (30) following the same page
     sequence with 3 s think time, --runs times (3);
  2. throughput flat out (think 0, 10 students): one process, then two
     processes behind nginx (deploy/serve.py);
  3. two processes behind nginx with 2 x --students (60) students, think 3 s;

and prints ws_load's table for each group: p95, steps/s, server CPU per step
(for the nginx runs: of one of the two processes), RSS and bytes per step.
Nothing is asserted. Run it on a quiet machine:

    .venv/bin/python benchmarks/capacity.py            # about 6 minutes
    .venv/bin/python benchmarks/capacity.py --quick    # one run of each
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WS_LOAD = ROOT.parent / "shared" / "tools" / "ws_load.py"
sys.path[:0] = [str(ROOT / "deploy"), str(ROOT)]
from serve import Cluster, free_port  # noqa: E402

from ui.navigation import PAGES  # noqa: E402

# Every page with a chart, in lesson order.
VISITED = ",".join("" if spec.default else spec.name for spec in PAGES if spec.charts)


def ws_load(out: Path, name: str, *args: str) -> Path:
    path = out / f"{name}.json"
    cmd = [sys.executable, str(WS_LOAD), "--pages", VISITED, "--json", str(path), *args]
    print("$", " ".join(cmd[1:]), flush=True)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    tail = [line for line in done.stdout.splitlines()
            if line.startswith(("load phase", "server RSS", "bytes per step", "PASS", "FAIL"))]
    print("\n".join("   " + line for line in tail) or done.stderr[-2000:], flush=True)
    return path


def table(title: str, paths: list[Path]) -> None:
    print(f"\n== {title}")
    done = subprocess.run([sys.executable, str(WS_LOAD), "--table", *map(str, paths)],
                          cwd=ROOT, capture_output=True, text=True)
    print(done.stdout or done.stderr, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=14)
    ap.add_argument("--quick", action="store_true", help="one run of each group")
    args = ap.parse_args()
    if not WS_LOAD.exists():
        print(f"{WS_LOAD} not found (it lives in the shared folder beside the repository)")
        return 1
    runs = 1 if args.quick else args.runs
    out = Path(tempfile.mkdtemp(prefix="rope-capacity-"))
    py = sys.executable

    one = []
    for n in range(runs):
        port = free_port()
        one.append(ws_load(out, f"one-{args.students}-{n}", "--url", f"http://127.0.0.1:{port}",
                           "--start", str(ROOT), "--python", py, "--sessions",
                           str(args.students), "--steps", str(args.steps), "--think", "3",
                           "--ramp", "3", "--seed", str(n)))
    table(f"one process, {args.students} students, think 3 s", one)

    port = free_port()
    flat = [ws_load(out, "flat-one", "--url", f"http://127.0.0.1:{port}", "--start", str(ROOT),
                    "--python", py, "--sessions", "10", "--steps", str(args.steps),
                    "--think", "0", "--p95-limit", "100")]
    with Cluster(2, python=py) as cluster:
        pid = str(cluster.pids()[0])
        flat.append(ws_load(out, "flat-two", "--url", cluster.url, "--server-pid", pid,
                            "--sessions", "10", "--steps", str(args.steps), "--think", "0",
                            "--p95-limit", "100"))
        table("throughput flat out, 10 students, think 0: one process, then two behind nginx",
              flat)
        big = [ws_load(out, f"two-{2 * args.students}-{n}", "--url", cluster.url,
                       "--server-pid", pid, "--sessions", str(2 * args.students),
                       "--steps", str(args.steps), "--think", "3", "--ramp", "3",
                       "--seed", str(n)) for n in range(runs)]
        table(f"two processes behind nginx, {2 * args.students} students, think 3 s "
              "(CPU per step: one process of the two)", big)
    print(f"ws_load's JSON results are in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
