#!/usr/bin/env python
"""Precompute rope_core.limits.capacity.base_search for the Long context page's table.

The search (smallest base keeping B_m >= 0 for every m < L, the threshold above
which every base passes, the islands between) checks thousands of bases over
every m < L: seconds to minutes per (dim, L), too slow for a page run. This
script runs it for the dims and contexts the page offers from the table and
writes ``rope_core/limits/base_bounds_table.json`` (read once by
``rope_core.limits.breaks.base_bounds_table``); ``tests/test_core_capacity.py`` recomputes the
cheap entries and spot-checks the others against rope_core.

    .venv/bin/python tools/make_base_bounds.py            # all entries (long)
    .venv/bin/python tools/make_base_bounds.py --limit 8  # the 8 cheapest entries
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from rope_core.limits.capacity import base_search  # noqa: E402

OUT = ROOT / "rope_core" / "limits" / "base_bounds_table.json"
DIMS = (64, 96, 128, 256)
CONTEXTS = tuple(2**e for e in range(10, 17))  # 1,024 ... 65,536 tokens
EXTRA = ((128, 2**18), (128, 2**20))  # Men et al.'s comparison at d = 128 up to 1M
ABOUT = ("rope_core.limits.capacity.base_search results, precomputed by tools/make_base_bounds.py. "
         "Do not edit: rerun the script. One entry per (dim, context L); values as base_search "
         "returns them, islands as [first, last] passing grid bases. "
         "tests/test_core_capacity.py checks the entries against rope_core.")
FIELDS = ("smallest", "threshold", "proven_below", "certified_above", "checked")


def entries():
    out = [(d, L) for d in DIMS for L in CONTEXTS] + list(EXTRA)
    return sorted(out, key=lambda e: e[0] * e[1])


def dumps(table: dict) -> str:
    """The table {(dim, L): base_search fields} as JSON, one entry per line and one island per
    line (diffs stay readable); floats are written as repr, so they load back exactly."""
    lines = []
    for (dim, L), r in sorted(table.items()):
        head = json.dumps({"dim": dim, "context": L, **{k: r[k] for k in FIELDS}})[:-1]
        islands = ",\n   ".join(json.dumps(list(i)) for i in r["islands"])
        lines.append(f' {head}, "islands": [' + (f"\n   {islands}]}}" if islands else "]}"))
    return '{"about": ' + json.dumps(ABOUT) + ',\n"entries": [\n' + ",\n".join(lines) + "\n]}\n"


def write(table: dict) -> None:
    OUT.write_text(dumps(table))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N entries")
    args = parser.parse_args()
    torch.set_num_threads(1)
    table = {}
    todo = entries()[: args.limit or None]
    for dim, L in todo:
        t0 = time.process_time()
        r = base_search(dim, L)
        table[(dim, L)] = {k: r[k] for k in ("smallest", "threshold", "islands", "proven_below",
                                              "certified_above", "checked")}
        print(f"d={dim} L={L}: smallest {r['smallest']}, threshold {r['threshold']}, "
              f"{len(r['islands'])} islands, {r['checked']} bases, "
              f"{time.process_time() - t0:.1f} s CPU", flush=True)
        write(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
