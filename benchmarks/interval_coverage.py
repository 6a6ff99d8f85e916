"""Coverage of the tiny models' intervals on simulated experiments, over the whole grid.

rope_core.beyond.intervals.seed_interval (an accuracy's interval over seeds) on
intervals.COVERAGE_GRID, and rope_core.beyond.paired.paired_difference (a paired
difference's) on paired.COVERAGE_GRID, each point with intervals.COVERAGE_REPS (or
paired.COVERAGE_REPS) experiments seeded by its index in the grid. Prints every point and,
per case, the lowest and highest coverage: the ranges the modules state as COVERAGE,
MEDIAN_COVERAGE and REJECTED_AT_ZERO (tests/test_core_intervals.py and
tests/test_core_paired.py recompute a few points, the ends of each range among them).

Run: `.venv/bin/python benchmarks/interval_coverage.py [--only seeds|paired] [--reps N]`
(about 1 and 1.5 CPU-minutes for the accuracies and the paired differences).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rope_core.beyond import intervals, paired  # noqa: E402


def ranges(rows: list[dict], key: str) -> dict[str, tuple[float, float, dict, dict]]:
    """Per case: (lowest, highest, the point of the lowest, the point of the highest)."""
    out = {}
    for row in rows:
        low, high, at_low, at_high = out.get(row["case"], (2.0, -1.0, None, None))
        if row[key] < low:
            low, at_low = row[key], row
        if row[key] > high:
            high, at_high = row[key], row
        out[row["case"]] = (low, high, at_low, at_high)
    return out


def seeds(reps: int) -> None:
    rows = []
    print("J  w   mu    seed_sd seq_sd  mean   median seed  case")
    for point in intervals.coverage_grid():
        args = (point["mu_logit"], point["seed_sd"], point["sequence_sd"])
        common = dict(sequences=point["sequences"], answers=point["answers"], reps=reps,
                      seed=point["seed"])
        mean = intervals.coverage(*args, **common)
        median = intervals.coverage(*args, estimand="median seed", **common)
        rows.append(dict(point, mean=mean, median=median))
        print(f"{point['sequences']:<3}{point['answers']:<3}{point['mu_logit']:>5} "
              f"{point['seed_sd']:>7} {point['sequence_sd']:>6}  {mean:.4f} {median:.4f}"
              f"       {point['case']}", flush=True)
    print("\nCOVERAGE (the mean):")
    for case, (low, high, at_low, at_high) in ranges(rows, "mean").items():
        print(f"  {case!r}: ({low}, {high}),  lowest at seed {at_low['seed']}, "
              f"highest at seed {at_high['seed']}")
    everything = [dict(row, case="all") for row in rows]
    low, high, at_low, at_high = ranges(everything, "median")["all"]
    print(f"MEDIAN_COVERAGE: ({low}, {high}),  lowest at seed {at_low['seed']}, "
          f"highest at seed {at_high['seed']}")


def pairs(reps: int) -> None:
    rows = []
    print("J  w   mu   diff  seed_sd corr seq_sd  held   rejected  case")
    for point in paired.coverage_grid():
        held, rejected = paired.coverage(
            point["difference_logit"], point["seed_sd"], point["sequence_sd"],
            correlation=point["correlation"], sequences=point["sequences"],
            answers=point["answers"], mu_logit=point["mu_logit"], reps=reps,
            seed=point["seed"])
        rows.append(dict(point, held=held, rejected=rejected))
        print(f"{point['sequences']:<3}{point['answers']:<3}{point['mu_logit']:>5}"
              f"{point['difference_logit']:>5} {point['seed_sd']:>7} {point['correlation']:>4}"
              f" {point['sequence_sd']:>6}  {held:.4f} {rejected:.4f}    {point['case']}",
              flush=True)
    print("\npaired COVERAGE:")
    for case, (low, high, at_low, at_high) in ranges(rows, "held").items():
        print(f"  {case!r}: ({low}, {high}),  lowest at seed {at_low['seed']}, "
              f"highest at seed {at_high['seed']}")
    zero = [dict(row, case="zero") for row in rows if row["difference_logit"] == 0]
    low, high, at_low, at_high = ranges(zero, "rejected")["zero"]
    print(f"REJECTED_AT_ZERO: ({low}, {high}),  lowest at seed {at_low['seed']}, "
          f"highest at seed {at_high['seed']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["seeds", "paired"])
    parser.add_argument("--reps", type=int)
    args = parser.parse_args()
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
    start = time.process_time()
    if args.only != "paired":
        seeds(args.reps or intervals.COVERAGE_REPS)
    if args.only != "seeds":
        pairs(args.reps or paired.COVERAGE_REPS)
    print(f"CPU time: {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()
