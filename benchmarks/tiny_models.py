"""Server CPU of the page "Trained tiny models", uncached, and the training check.

    python benchmarks/tiny_models.py             # page costs (seconds of CPU, one thread)
    python benchmarks/tiny_models.py --retrain   # also: retrain all six, compare (minutes)

The page's cached functions and figure builders (everything above ``ui.settings()``
in pages/trained_models.py) are timed with ``time.process_time()`` with every
cache cleared first:

* first open: load the six models, evaluate the nine curves, build the two accuracy
  figures, the default attention map and the pair-norm figure (what a cold script
  run computes);
* each attention-map setting (model x example length x layer), models loaded,
  its table and figure uncached: what a change of the fragment's controls costs.

Prints the median of ``--repeats`` runs and the 1-minute load average (timings on
a busy machine are high). ``--retrain`` runs ``tiny/train.py --check``: each model
retrained from its seed must give the accuracy at L_train recorded in
tiny/weights/models.json within tiny.train.TOLERANCE.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def page_functions() -> dict:
    """The page's definitions, without running its body (no Streamlit script run)."""
    source = (ROOT / "pages" / "trained_models.py").read_text()
    definitions = source[:source.index("\nui.settings()")]
    namespace = {"__name__": "trained_models_bench"}
    exec(compile(definitions, "pages/trained_models.py", "exec"), namespace)
    return namespace


def clear() -> None:
    import streamlit as st
    st.cache_resource.clear()


def first_open(page: dict) -> float:
    clear()
    start = time.process_time()
    for encoding in page["tm"].ENCODINGS:
        page["shipped"](encoding)
    page["accuracy_table"]()
    page["accuracy_figure"]()
    page["scaling_figure"]()
    page["attention_figure"]("rope", 32, 2)
    page["norms_figure"]("rope")
    return time.process_time() - start


def attention_costs(page: dict) -> dict:
    out = {}
    for encoding in page["tm"].ENCODINGS:
        page["shipped"](encoding)
    for encoding in page["tm"].ENCODINGS:
        for length in page["MAP_LENGTHS"]:
            for layer in (1, 2):
                page["attention_table"].clear()
                page["attention_figure"].clear()
                start = time.process_time()
                page["attention_figure"](encoding, length, layer)
                out[encoding, length, layer] = time.process_time() - start
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--retrain", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    import logging
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
    page = page_functions()
    first_open(page)  # imports and first-call costs out of the way
    opens = [first_open(page) for _ in range(args.repeats)]
    print(f"first open, uncached: median {statistics.median(opens):.3f} s CPU, "
          f"max {max(opens):.3f} s ({args.repeats} runs)")
    runs = [attention_costs(page) for _ in range(args.repeats)]
    medians = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    worst = max(medians, key=medians.get)
    print(f"attention map, uncached: median over settings {statistics.median(medians.values()):.3f}"
          f" s CPU, slowest {worst} {medians[worst]:.3f} s")
    if args.retrain:
        from tiny import train
        return train.main(["--check"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
