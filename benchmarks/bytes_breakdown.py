#!/usr/bin/env python
"""Where the bytes per step go: ws_load's exploring class with every websocket message
the server sends during a measured step recorded and broken down.

Runs ``../shared/tools/ws_load.py`` (by default the class of ``benchmarks/floor.py``,
smaller: 6 students, think 1 s; ws_load's own arguments after ``--`` are added, the
last of a repeated one wins) against a fresh
server of this checkout, with a hook on each message it receives, and prints per
step: bytes per message type (element type for deltas), the parts of the chart specs
(template, rest of the layout, traces, animation frames), the typed arrays by trace
key and dtype (with those of whole numbers sent as floats, and those repeated within
a chart), the bytes that stay whatever is changed as long as the figures and tables
are the same, and each page's bytes. Bytes per step do not depend on the machine's
speed: the same arguments and seed give the same figures on a busy machine.

    .venv/bin/python benchmarks/bytes_breakdown.py
    .venv/bin/python benchmarks/bytes_breakdown.py -- --sessions 30 --think 3 --seed 2
"""

from __future__ import annotations

import base64
import collections
import json
import os
import socket
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from floor import WS_LOAD  # noqa: E402  (../shared/tools/ws_load.py, found as floor.py finds it)

DEFAULT = ["--pages", "auto", "--sessions", "6", "--steps", "28", "--think", "1",
           "--values", "random", "--spread", "--change", "dim,base,any", "--no-expect-chart",
           "--seed", "1"]


def arrays(node, path: str, out: list) -> None:
    """Every typed array of a chart spec: (trace key, dtype, base64 text)."""
    if isinstance(node, dict):
        if "bdata" in node and "dtype" in node:
            out.append((path.rsplit(".", 1)[-1], node["dtype"], node["bdata"]))
            return
        for k, v in node.items():
            arrays(v, f"{path}.{k}", out)
    elif isinstance(node, list):
        for v in node:
            arrays(v, path, out)


def whole(dtype: str, bdata: str) -> bool:
    a = np.frombuffer(base64.b64decode(bdata), dtype=dtype)
    return a.dtype.kind == "f" and bool(np.isfinite(a).all() and (a == np.rint(a)).all())


def record(records: list):
    """A ws_load Session.on_frame that records each message of a measured step."""
    import ws_load
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    original = ws_load.Session.on_frame

    def on_frame(self, data: bytes, now: float):
        step = self.cur
        if step is not None and self.sid >= 0:  # (sid -1: the warm-up)
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            rec = {"step": (self.sid, step.index), "page": step.page, "n": len(data),
                   "kind": kind}
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                rec["kind"] = el.WhichOneof("type")
                if rec["kind"] == "plotly_chart":
                    rec["spec"] = el.plotly_chart.spec
            elif kind == "delta":
                rec["kind"] = msg.delta.WhichOneof("type")
            records.append(rec)
        return original(self, data, now)

    ws_load.Session.on_frame = on_frame


def report(records: list) -> None:
    steps = len({r["step"] for r in records})
    per = 1024 * max(steps, 1)
    total = sum(r["n"] for r in records)
    print(f"\n{steps} steps, {total / per:.1f} KiB per step from the server")
    by, count = collections.Counter(), collections.Counter()
    for r in records:
        by[r["kind"]] += r["n"]
        count[r["kind"]] += 1
    print("\nper message (element) type        KiB/step  count/step  bytes each")
    for k, v in by.most_common():
        print(f"  {k:<30} {v / per:9.2f} {count[k] / steps:11.1f} {v / count[k]:11.0f}")
    parts, keys, whole_chars, repeated = (collections.Counter(), collections.Counter(),
                                          collections.Counter(), 0)
    for r in records:
        if "spec" not in r:
            continue
        spec = json.loads(r["spec"])
        layout = spec.get("layout", {})
        dump = lambda v: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False))  # noqa: E731
        parts["template"] += dump(layout.get("template", {}))
        parts["layout (rest)"] += dump({k: v for k, v in layout.items() if k != "template"})
        parts["traces"] += dump(spec.get("data", []))
        parts["frames"] += dump(spec.get("frames", []))
        found: list = []
        arrays(spec, "", found)
        seen = set()
        for key, dtype, bdata in found:
            keys[(key, dtype)] += len(bdata)
            if whole(dtype, bdata):
                whole_chars[(key, dtype)] += len(bdata)
            if bdata in seen:
                repeated += len(bdata)
            seen.add(bdata)
    print("\nchart specs (JSON characters)     KiB/step")
    for k, v in parts.items():
        print(f"  {k:<30} {v / per:9.2f}")
    print("\ntyped arrays (base64)             KiB/step  of which whole numbers as floats")
    for (key, dtype), v in keys.most_common():
        print(f"  {key + ' ' + dtype:<30} {v / per:9.2f} {whole_chars[(key, dtype)] / per:9.2f}")
    print(f"  {'all':<30} {sum(keys.values()) / per:9.2f}; an array repeated within its "
          f"chart {repeated / per:.2f}")
    # What no change can take off while every figure and table stays the same: each
    # chart's arrays once (base64 of the dtypes Plotly reads; none is a float array of
    # whole numbers, column above), the Arrow tables the students opened, and the two
    # messages Streamlit sends on every run (the page list and the session's config).
    fixed = {"arrays, each once": sum(keys.values()) - repeated,
             "tables (dataframe)": by["dataframe"],
             "navigation and new_session": by["navigation"] + by["new_session"]}
    print("\nbytes that stay with the same figures and tables   KiB/step")
    for k, v in fixed.items():
        print(f"  {k:<30} {v / per:9.2f}")
    print(f"  {'together':<30} {sum(fixed.values()) / per:9.2f}  (compare 3x the floor app's "
          "bytes per step, benchmarks/floor.py)")
    pages, charts = collections.Counter(), collections.Counter()
    for r in records:
        pages[r["page"]] += r["n"]
        charts[r["page"]] += r["n"] if "spec" in r else 0
    print("\nper page (whole run)               KiB   of which charts")
    for p, v in pages.most_common():
        print(f"  {p:<30} {v / 1024:7.1f} {charts[p] / 1024:9.1f}")


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    sys.path.insert(0, str(WS_LOAD.parent))
    records: list = []
    record(records)
    import ws_load

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sys.argv = [str(WS_LOAD), "--url", f"http://127.0.0.1:{port}", "--start", str(ROOT),
                "--python", sys.executable, *DEFAULT, *args]
    os.chdir(ROOT)
    rc = ws_load.main()
    report(records)
    return rc


if __name__ == "__main__":
    sys.exit(main())
