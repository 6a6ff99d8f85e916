"""Server CPU of the Images and video page's uncached work at the controls' extremes.

Loads the page's own cached tables and figure builders (the file up to its first
Streamlit call), then for each setting clears every cache and times, with
time.process_time(), what a run that changes that setting computes: the grid
fragment (score table + three heatmaps), the sequence fragment (id tables, the
id figure, the pair tables, the allocation strip and two wavelength plots), and
both together (a change of the sidebar's base or head dim). Prints the median
of --repeats runs per setting and the largest; the gate (issue 18) is 0.25 s
per run at every value, 0.05 s median.
PyTorch runs on one intra-op thread, as the server does (ui.hardening on the perf
branch; OMP_NUM_THREADS=1): with the default team, idle OpenMP workers spinning
after any parallel kernel are charged to the run and swamp the page's own work.
--threads 0 keeps PyTorch's default.
Run: .venv/bin/python benchmarks/bench_images_video.py [--repeats 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import itertools
import os
import pathlib
import statistics
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load_page() -> dict:
    import sys

    sys.path.insert(0, str(ROOT))
    source = (ROOT / "pages" / "images_video.py").read_text()
    head = source.split("\ns = ui.settings()")[0]
    namespace = {"__name__": "images_video_bench", "__file__": str(ROOT / "pages" /
                                                                   "images_video.py")}
    exec(compile(head, "pages/images_video.py", "exec"), namespace)
    return namespace


def grid_work(p: dict, dim, base, layout, h, w, row, col, qk, model) -> None:
    p["grid_table"](dim, base, layout, h, w, row, col, qk, model)
    for scheme in ("flat", "axial", "mrope"):
        if scheme == "axial" and dim % 4:
            continue
        p["grid_figure"](dim, base, layout, h, w, row, col, qk, model, scheme)


def sequence_work(p: dict, dim, base, args) -> None:
    tables = p["sequence_tables"](*args)
    p["ids_figure"](*args)
    tokens, blocks = tables["tokens"], tables["blocks"]
    video = tokens[tokens["kind"] == "video"]["t id"]
    spans = (int(video.max() - video.min()) + 1,
             int(max(blocks.iloc[1]["merged h"], blocks.iloc[3]["merged h"])),
             int(max(blocks.iloc[1]["merged w"], blocks.iloc[3]["merged w"])))
    p["coverage_table"](dim, base, spans)
    p["pair_table"](dim, base)
    p["allocation_figure"](dim)
    for model in ("qwen2_vl", "qwen3_vl"):
        p["wavelength_figure"](dim, base, model, spans)


CACHED = ("grid_table", "grid_figure", "sequence_tables", "ids_figure", "pair_table",
          "coverage_table", "allocation_figure", "wavelength_figure")


def clear(p: dict) -> None:
    """Empty every cache of the page (Streamlit's, and each builder's own)."""
    import streamlit as st

    st.cache_resource.clear()
    for name in CACHED:
        getattr(p[name], "clear", lambda: None)()


def timed(p: dict, fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        clear(p)
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    options = parser.parse_args()
    repeats = options.repeats
    import torch

    if options.threads:
        torch.set_num_threads(options.threads)
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    p = load_page()
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}; "
          f"PyTorch threads: {torch.get_num_threads()}")
    rows = []
    for dim, base in itertools.product((2, 4, 128, 1024), (10.0, 1e8)):
        for qk, model in itertools.product(("ones", "random"), ("qwen2_vl", "qwen3_vl")):
            rows.append((f"grid d={dim} base={base:g} 16x16 {qk} {model}",
                         lambda d=dim, b=base, q=qk, m=model:
                         grid_work(p, d, b, "half", 16, 16, 15, 15, q, m)))
        for resume, time_mode in itertools.product(("transformers", "original"),
                                                   ("qwen2_vl", "qwen2_5_vl")):
            args = (8, 32, 32, 16, 16, 16, resume, time_mode, 8, 4.0)
            rows.append((f"sequence d={dim} base={base:g} largest {resume} {time_mode}",
                         lambda d=dim, b=base, a=args: sequence_work(p, d, b, a)))
        args = (8, 32, 32, 16, 16, 16, "transformers", "qwen2_5_vl", 8, 4.0)
        rows.append((f"whole page d={dim} base={base:g} largest",
                     lambda d=dim, b=base, a=args: (
                         grid_work(p, d, b, "interleaved", 16, 16, 15, 15, "random",
                                   "qwen3_vl"), sequence_work(p, d, b, a))))
    rows.append(("default page", lambda: (
        grid_work(p, 128, 10000.0, "interleaved", 6, 8, 2, 3, "ones", "qwen2_vl"),
        sequence_work(p, 128, 10000.0, (3, 8, 12, 6, 4, 6, "transformers", "qwen2_vl", 2,
                                        1.0)))))
    timed(p, rows[0][1], 2)  # warm-up: imports, first Plotly figure
    medians = []
    worst = 0.0
    for name, fn in rows:
        times = timed(p, fn, repeats)
        med = statistics.median(times)
        medians.append(med)
        worst = max(worst, max(times))
        print(f"{name:62s} median {med * 1000:7.1f} ms  max {max(times) * 1000:7.1f} ms")
    print(f"largest single run {worst * 1000:.1f} ms (gate 250 ms); median over settings "
          f"{statistics.median(medians) * 1000:.1f} ms (gate 50 ms)")


if __name__ == "__main__":
    main()
