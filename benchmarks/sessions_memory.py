#!/usr/bin/env python
"""Server memory per visitor: 200 browserless sessions held open at once.

Starts a fresh server (`streamlit run app.py`), lets --sessions simulated
students (ws_load.py) open pages and change a setting, keeps them all
connected for --hold seconds and reports the server's RSS before, with all of
them connected, and at its peak: per session and in total. Targets from
issue 8: at most 1 MB per session and 700 MB in all at 200 sessions.

    .venv/bin/python benchmarks/sessions_memory.py                 # every page
    .venv/bin/python benchmarks/sessions_memory.py --pages sinusoidal
    .venv/bin/python benchmarks/sessions_memory.py --pages auto --values random   # issue 18

With ``--values random`` every visitor moves the head dim, the base or one of
the page's own widgets to a value of its own (cache misses: issue 18's goal 3).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared/tools/ws_load.py beside the repository, or beside the folder holding a git
# worktree of it
WS_LOAD = next((d / "shared" / "tools" / "ws_load.py" for d in ROOT.parents
                if (d / "shared" / "tools" / "ws_load.py").exists()),
               ROOT.parent / "shared" / "tools" / "ws_load.py")
sys.path[:0] = [str(ROOT / "deploy"), str(ROOT)]
from serve import free_port  # noqa: E402

from ui.navigation import PAGES  # noqa: E402

VISITED = ",".join("" if spec.default else spec.name for spec in PAGES if spec.charts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--pages", default=VISITED, help="ws_load --pages (default: every page "
                                                     "with a chart, in lesson order)")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--hold", type=float, default=20.0)
    ap.add_argument("--ws-load", type=Path, default=WS_LOAD, help="path of ws_load.py")
    ap.add_argument("--values", choices=["step", "random"], default="step",
                    help="ws_load --values: step (the class's values, cache hits) or random "
                         "(every visitor its own values)")
    ap.add_argument("--change", default=None,
                    help="ws_load --change (default: dim; with --values random: dim,base,any)")
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="rope-memory-")) / "memory.json"
    cmd = [sys.executable, str(args.ws_load), "--url", f"http://127.0.0.1:{free_port()}",
           "--start", str(ROOT), "--python", sys.executable, "--pages", args.pages,
           "--spread", "--sessions", str(args.sessions), "--steps", str(args.steps),
           "--values", args.values,
           "--change", args.change or ("dim,base,any" if args.values == "random" else "dim"),
           "--think", "1", "--ramp", "20",
           "--hold", str(args.hold), "--p95-limit", "1000",
           *(["--no-expect-chart"] if args.pages == "auto" else []),  # the tour draws none
           "--json", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if not out.exists():
        print(done.stdout[-3000:], done.stderr[-3000:])
        return 1
    m = json.loads(out.read_text())["metrics"]
    mib = 2**20
    per = (m["rss_all"] - m["rss_before"]) / mib / args.sessions
    print(f"{args.sessions} sessions over pages {args.pages or 'overview'!r}, "
          f"values {args.values}:")
    print(f"  server RSS before        {m['rss_before'] / mib:7.0f} MiB")
    print(f"  with all connected       {m['rss_all'] / mib:7.0f} MiB  "
          f"({per:+.2f} MiB per session; target <= 1)")
    print(f"  after they left          {m['rss_after'] / mib:7.0f} MiB")
    # The kernel's high-water mark of the server process (VmHWM): its true peak,
    # however short. (ws_load's sampled "peak" adds up the process tree.)
    print(f"  peak (VmHWM)             {m['hwm'] / mib:7.0f} MiB  "
          "(target <= 700 at 200 sessions)")
    print("  " + next((line for line in done.stdout.splitlines()
                       if line.startswith(("PASS", "FAIL"))), "").replace("PASS", "steps:")
          .replace("FAIL", "steps:"))
    print("  " + next((line for line in done.stdout.splitlines()
                       if line.startswith("steps:")), ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
