"""Time and peak-memory growth of rope_core's functions on long inputs, one fresh process
per run.

Cases (CPU, float64):

* relative_upper_bound: 10^6 distances (torch.arange(10**6) as float64), dim 256, base 10000
* score_vs_distance:    10^6 distances, q = k = ones(128), dim 128, base 10000
* random_score_stats:   4096 distances, trials 32, seed 0, dim 128, base 10000
* cos_sum:              B_m over 10^6 distances (torch.arange(10**6) as float64), dim 1024, base 10000
* cos_sum_scattered:    the same 10^6 distances in a non-arithmetic order (direct path), dim 1024
* min_base_for_context: 8,192-token context, dim 128 (the search of Men et al.'s bound: a
  proof walk, then every base of the 0.1% grid up to the certificate; 10^6 tokens take
  minutes, which is why the page reads tools/make_base_bounds.py's table)

Each case runs in a fresh process (benchmarks/fresh_process.py).

Run from the repository root:
    .venv/bin/python benchmarks/bench_growth.py [--repeats 3] [--case NAME ...]
"""

from __future__ import annotations

import sys

from fresh_process import Case, main

CASES = {
    "relative_upper_bound": "relative_upper_bound(arange(10**6) f64, theta(256, 10000))",
    "score_vs_distance": "score_vs_distance(ones(128), ones(128), arange(10**6) f64, theta(128))",
    "random_score_stats": "random_score_stats(arange(4096) f64, theta(128), trials=32, seed=0)",
    "cos_sum": "cos_sum(1024, 10000, arange(10**6) f64)",
    "cos_sum_scattered": "cos_sum(1024, 10000, arange(10**6) f64 with pairs swapped)",
    "min_base_for_context": "min_base_for_context(128, 8192)",
}


def setup(case: str) -> Case:
    """The call, its argument, a tiny warm-up and a sanity check of one case. Every case
    but the last takes a tensor of distances and warms up on its first 16."""
    import torch

    import rope_core

    if case == "min_base_for_context":
        def search(context):
            return torch.tensor([rope_core.min_base_for_context(128, context)])

        def found(out):
            b = out.item()
            return {"min base": b, "first negative B_m before 8192":
                    rope_core.first_negative_distance(128, b, 8191) or -1}
        return Case(search, 8192, lambda: search(64), found)

    r = torch.arange(4096 if case == "random_score_stats" else 10**6).to(torch.float64)
    if case == "relative_upper_bound":
        th = rope_core.theta(256, 10000.0)

        def call(dist):
            return rope_core.relative_upper_bound(dist, th)

        def check(out):  # bound(0) = (d/2 + 1) / 2
            return {"bound(0)": out[0].item(), "expected bound(0)": (128 + 1) / 2}
    elif case == "score_vs_distance":
        th = rope_core.theta(128, 10000.0)
        q = torch.ones(128, dtype=torch.float64)
        k = torch.ones(128, dtype=torch.float64)

        def call(dist):
            return rope_core.score_vs_distance(q, k, dist, th)

        def check(out):  # score(0) = q . k = 128
            return {"score(0)": out[0].item(), "expected score(0)": 128.0}
    elif case == "random_score_stats":
        th = rope_core.theta(128, 10000.0)

        def call(dist):
            return rope_core.random_score_stats(dist, th, 32, 0)

        def check(out):
            mean, std = out
            return {"mean std over distances": std.mean().item(), "sqrt(dim)": 128 ** 0.5}
    else:  # cos_sum, cos_sum_scattered
        if case == "cos_sum_scattered":
            r = r.view(-1, 2).flip(1).reshape(-1)  # 1, 0, 3, 2, ...: not a progression

        def call(dist):
            return rope_core.cos_sum(1024, 10000.0, dist)

        def check(out):  # B_0 = d/2
            return {"B_0": out[int((r == 0).nonzero()[0, 0])].item(), "expected B_0": 512.0}
    return Case(call, r, lambda: call(r[:16]), check)


if __name__ == "__main__":
    sys.exit(main(__file__, CASES, setup))
