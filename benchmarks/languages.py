#!/usr/bin/env python
"""What the second language costs the server: the same class in English and in Chinese.

Runs ../shared/tools/ws_load.py (browserless, Streamlit's websocket protocol)
against a fresh single Streamlit process per run: --students (30) students
visit every page with a chart, 3 s think time, once with ``?lang=en`` and once
with ``?lang=zh`` in their first link, --runs (2) times each, alternating. Prints
ws_load's table per language: p95, steps/s, server CPU per step, RSS, bytes per
step. Translations are gettext lookups and figures are cached per language, so
the two should match within noise; Chinese text is a little larger on the wire
(UTF-8: 3 bytes per character). Nothing is asserted. On a quiet machine:

    .venv/bin/python benchmarks/languages.py     # about 4 minutes
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from capacity import ROOT, WS_LOAD, free_port, table, ws_load


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=14)
    args = ap.parse_args()
    if not WS_LOAD.exists():
        print(f"{WS_LOAD} not found (it lives in the shared folder beside the repository)")
        return 1
    out = Path(tempfile.mkdtemp(prefix="rope-languages-"))
    results: dict[str, list[Path]] = {"en": [], "zh": []}
    for n in range(args.runs):
        for lang in results:
            port = free_port()
            results[lang].append(ws_load(
                out, f"{lang}-{n}", "--url", f"http://127.0.0.1:{port}", "--start", str(ROOT),
                "--python", sys.executable, "--sessions", str(args.students),
                "--steps", str(args.steps), "--think", "3", "--ramp", "3",
                "--seed", str(n), "--query", f"lang={lang}"))
    for lang, paths in results.items():
        table(f"{args.students} students, one process, ?lang={lang}", paths)
    return 0


if __name__ == "__main__":
    sys.exit(main())
