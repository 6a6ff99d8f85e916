"""Time and peak-memory growth of rope_core.limits.capacity, one fresh process per run.

Cases (CPU, float64):

* cos_sum:              B_m over 10^6 distances (torch.arange(10**6) as float64), dim 1024, base 10000
* cos_sum_scattered:    the same 10^6 distances in a non-arithmetic order (direct path), dim 1024
* min_base_for_context: 8,192-token context, dim 128 (the search of Men et al.'s bound: a
  proof walk, then every base of the 0.1% grid up to the certificate; 10^6 tokens take
  minutes, which is why the page reads tools/make_base_bounds.py's table)

Each case runs in a fresh process (benchmarks/fresh_process.py).

Run from the repository root:
    .venv/bin/python benchmarks/bench_capacity.py [--repeats 3] [--case NAME ...]
"""

from __future__ import annotations

import sys

from fresh_process import Case, main

CASES = {
    "cos_sum": "cos_sum(1024, 10000, arange(10**6) f64)",
    "cos_sum_scattered": "cos_sum(1024, 10000, arange(10**6) f64 with pairs swapped)",
    "min_base_for_context": "min_base_for_context(128, 8192)",
}


def setup(case: str) -> Case:
    """The call, its argument, a tiny warm-up and a sanity check of one case."""
    import torch

    import rope_core

    if case in ("cos_sum", "cos_sum_scattered"):
        r = torch.arange(10**6).to(torch.float64)
        if case == "cos_sum_scattered":
            r = r.view(-1, 2).flip(1).reshape(-1)  # 1, 0, 3, 2, ...: not a progression

        def call(dist):
            return rope_core.cos_sum(1024, 10000.0, dist)

        def warm():
            return call(r[:16])

        def check(out):  # B_0 = d/2
            return {"B_0": out[int((r == 0).nonzero()[0, 0])].item(), "expected B_0": 512.0}
        arg = r
    elif case == "min_base_for_context":
        def call(context):
            return torch.tensor([rope_core.min_base_for_context(128, context)])

        def warm():
            return call(64)

        def check(out):
            b = out.item()
            return {"min base": b, "first negative B_m before 8192":
                    rope_core.first_negative_distance(128, b, 8191) or -1}
        arg = 8192
    else:
        raise SystemExit(f"unknown case {case!r}; choose from {sorted(CASES)}")
    return Case(call, arg, warm, check)


if __name__ == "__main__":
    sys.exit(main(__file__, CASES, setup))
