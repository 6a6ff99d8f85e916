"""Time and peak-memory growth of rope_core's decay functions, one fresh process per run.

Cases (CPU, float64):

* relative_upper_bound: 10^6 distances (torch.arange(10**6) as float64), dim 256, base 10000
* score_vs_distance:    10^6 distances, q = k = ones(128), dim 128, base 10000
* random_score_stats:   4096 distances, trials 32, seed 0, dim 128, base 10000

Each case runs in a fresh process (benchmarks/fresh_process.py).

Run from the repository root:
    .venv/bin/python benchmarks/bench_decay.py [--repeats 3] [--case NAME ...]
"""

from __future__ import annotations

import sys

from fresh_process import Case, main

CASES = {
    "relative_upper_bound": "relative_upper_bound(arange(10**6) f64, theta(256, 10000))",
    "score_vs_distance": "score_vs_distance(ones(128), ones(128), arange(10**6) f64, theta(128))",
    "random_score_stats": "random_score_stats(arange(4096) f64, theta(128), trials=32, seed=0)",
}


def setup(case: str) -> Case:
    """The call, its argument, a tiny warm-up and a sanity check of one case."""
    import torch

    import rope_core

    if case == "relative_upper_bound":
        th = rope_core.theta(256, 10000.0)
        r = torch.arange(10**6).to(torch.float64)

        def call(dist):
            return rope_core.relative_upper_bound(dist, th)

        def warm():
            return call(r[:16])

        def check(out):  # bound(0) = (d/2 + 1) / 2
            return {"bound(0)": out[0].item(), "expected bound(0)": (128 + 1) / 2}
    elif case == "score_vs_distance":
        th = rope_core.theta(128, 10000.0)
        q = torch.ones(128, dtype=torch.float64)
        k = torch.ones(128, dtype=torch.float64)
        r = torch.arange(10**6).to(torch.float64)

        def call(dist):
            return rope_core.score_vs_distance(q, k, dist, th)

        def warm():
            return call(r[:16])

        def check(out):  # score(0) = q . k = 128
            return {"score(0)": out[0].item(), "expected score(0)": 128.0}
    elif case == "random_score_stats":
        th = rope_core.theta(128, 10000.0)
        r = torch.arange(4096).to(torch.float64)

        def call(dist):
            return rope_core.random_score_stats(dist, th, 32, 0)

        def warm():
            return call(r[:16])

        def check(out):
            mean, std = out
            return {"mean std over distances": std.mean().item(), "sqrt(dim)": 128 ** 0.5}
    else:
        raise SystemExit(f"unknown case {case!r}; choose from {sorted(CASES)}")
    return Case(call, r, warm, check)


if __name__ == "__main__":
    sys.exit(main(__file__, CASES, setup))
