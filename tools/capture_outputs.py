#!/usr/bin/env python
"""Capture what every page sends: each st.plotly_chart spec, each CSV download and
each other element, at a few settings, to check that a change to shared code
(ui/, app.py, rope_core) keeps every figure and CSV identical.

    .venv/bin/python tools/capture_outputs.py capture before.json   # on the old code
    .venv/bin/python tools/capture_outputs.py capture after.json    # on the new code
    .venv/bin/python tools/capture_outputs.py compare before.json after.json

For every page in ui.navigation.PAGES and every setting in SETTINGS (defaults, a
sidebar corner, another language, presentation mode; ``--settings`` picks some),
AppTest opens the page as a deep link and records: the JSON spec of every chart
exactly as sent (``PlotlyChart.spec``), the bytes of every CSV download (made
through the button's own recipe, as a click would), the values of every metric and
every table shown, and the text of every markdown, caption, heading and alert.
``compare`` prints each difference (page, setting, which element, the first
differing position) and exits 1 if any figure or CSV differs; text differences are
listed apart (a change of wording is not a change of a figure). ``compare --decoded``
compares each chart by the numbers its typed arrays hold, whatever their dtype (the
check for a change of how arrays are encoded: float32 that hold whole numbers sent as
integers); charts that differ only in encoding are counted apart.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.chdir(ROOT)

SETTINGS = {
    "defaults": {},
    "corner": {"dim": "64", "base": "500000", "layout": "half"},
    "large": {"dim": "1024", "base": "10"},
    "zh": {"lang": "zh", "dim": "32"},
    "present": {"present": "true", "base": "1000000"},
}
TEXT_KINDS = ("markdown", "caption", "title", "header", "subheader", "latex", "code",
              "info", "warning", "error", "success")


def _digest(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()[:16]


def capture_page(page: str, query: dict) -> dict:
    from apptest_helpers import downloads, run_page

    at = run_page(page, query)
    for t in at.toggle:  # the tables behind the plots, as a visitor opens them
        if t.key and t.key.startswith("show_"):
            t.set_value(True)
    at.run()
    out: dict = {"charts": [], "csvs": [], "tables": [], "metrics": [], "text": []}
    for chart in at.get("plotly_chart"):
        out["charts"].append(chart.proto.spec)
    for d in downloads(at):
        out["csvs"].append({"file": d["file_name"], "sha": _digest(d["bytes"]),
                            "size": len(d["bytes"])})
    for df in at.dataframe:
        out["tables"].append(_digest(df.value.to_csv(index=False)))
    for m in at.metric:
        out["metrics"].append([m.label, m.value])
    for kind in TEXT_KINDS:
        for el in at.get(kind):
            out["text"].append([kind, str(getattr(el, "value", getattr(el, "body", "")))])
    out["exceptions"] = [str(e.value) for e in at.exception]
    return out


def capture(path: Path, pages: list[str] | None, settings: list[str]) -> int:
    import warnings

    from streamlit import logger

    logger.set_log_level("error")
    warnings.filterwarnings("ignore")
    import apptest_helpers  # noqa: F401

    from ui.navigation import PAGES

    result = {}
    for spec in PAGES:
        if pages and spec.name not in pages:
            continue
        for name in settings:
            key = f"{spec.name} {name}"
            try:
                result[key] = capture_page(spec.name, SETTINGS[name])
            except Exception as exc:  # noqa: BLE001 (a capture reports, never stops)
                result[key] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            r = result[key]
            print(f"{key:<40} {len(r.get('charts', []))} charts, {len(r.get('csvs', []))} CSVs"
                  + (f"  {r['error']}" if "error" in r else ""), flush=True)
    path.write_text(json.dumps(result))
    return 0


def _first_diff(a: str, b: str) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    around = slice(max(0, n - 60), n + 60)
    return f"at char {n} of {len(a)}/{len(b)}: …{a[around]}… vs …{b[around]}…"


def _decode(node):
    """A spec's typed arrays ({dtype, bdata, shape}) as the lists of numbers they hold."""
    import base64

    import numpy as np

    if isinstance(node, dict):
        if "dtype" in node and "bdata" in node:
            values = np.frombuffer(base64.b64decode(node["bdata"]), dtype=node["dtype"])
            return {"values": values.astype(float).tolist(), "shape": node.get("shape")}
        return {k: _decode(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_decode(v) for v in node]
    return node


def decoded(spec: str) -> str:
    """A chart's JSON with every typed array replaced by the numbers it holds."""
    return json.dumps(_decode(json.loads(spec)), sort_keys=True)


def compare(before: Path, after: Path, decode: bool = False) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    figures = text = encoding = 0
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x is None or y is None:
            print(f"{key}: only in {'after' if x is None else 'before'}")
            continue
        if "error" in x or "error" in y:
            print(f"{key}: error before {x.get('error')!r}, after {y.get('error')!r}")
            figures += 1
            continue
        if decode and x["charts"] != y["charts"] and len(x["charts"]) == len(y["charts"]):
            u, v = list(map(decoded, x["charts"])), list(map(decoded, y["charts"]))
            if u == v:
                encoding += 1
            x, y = dict(x, charts=u), dict(y, charts=v)
        for part in ("charts", "csvs", "tables", "metrics", "exceptions"):
            if x[part] != y[part]:
                figures += 1
                if len(x[part]) != len(y[part]):
                    print(f"{key}: {part}: {len(x[part])} before, {len(y[part])} after")
                    continue
                for i, (u, v) in enumerate(zip(x[part], y[part])):
                    if u != v:
                        detail = _first_diff(u, v) if isinstance(u, str) else f"{u} vs {v}"
                        print(f"{key}: {part}[{i}] differs {detail}")
        if x["text"] != y["text"]:
            text += 1
            print(f"{key}: text differs ({len(x['text'])} vs {len(y['text'])} elements)")
    print(f"{len(set(a) & set(b))} page settings compared: {figures} with a figure, CSV, "
          f"table or metric difference, {text} with a text difference"
          + (f", {encoding} whose charts differ only in how arrays are encoded" if decode else ""))
    return 1 if figures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("out", type=Path)
    c.add_argument("--pages", nargs="*")
    c.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    d = sub.add_parser("compare")
    d.add_argument("before", type=Path)
    d.add_argument("after", type=Path)
    d.add_argument("--decoded", action="store_true",
                   help="compare charts by the numbers their typed arrays hold")
    args = ap.parse_args()
    if args.cmd == "capture":
        return capture(args.out, args.pages, args.settings)
    return compare(args.before, args.after, args.decoded)


if __name__ == "__main__":
    sys.exit(main())
