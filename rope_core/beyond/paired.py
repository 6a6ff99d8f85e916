"""Paired comparisons of two arms across training seeds, corrected for how many are made.

Within a task and a seed, every arm of the tiny models starts from the same initial
weights, reads the same training batches and is evaluated on the same sequences
(rope_core.beyond.tiny_model): arm a and arm b of seed s differ only in what the arms
differ in. Their difference is measured seed by seed,

    d_s = mean_j (a_sj - b_sj),   s = 1 ... S,

and tested across the S seeds (the unit of replication: a new seed is a new pair of
models), by Student's paired t test:

    mean d = (1/S) sum_s d_s,   se = sd(d_s) / sqrt(S),   t = mean d / se,  df = S - 1,
    p = P(|T_{S-1}| >= |t|),   95% interval  mean d -+ t_{S-1} se,

t_{S-1} the two-sided 95% quantile (2.776 for five seeds).

Where all S differences are equal (se = 0) the interval is that point and p is 1 if they
are 0 and 0 otherwise. With five seeds the smallest p a sign-flip (permutation) test can
give is 2/32 = 0.0625, so the t test it is; it assumes the d_s roughly normal, which
:func:`coverage` checks on simulated pairs (:data:`COVERAGE_GRID`): the interval holds the
true difference in about 95 of 100 experiments where both arms are below 95% or the seeds
agree, in fewer where an arm is near 100% and the seeds spread (the differences are then
skewed, as the accuracies are: :mod:`.intervals`), and the test rejects a difference of 0
in at most about 5% (:data:`COVERAGE`, :data:`REJECTED_AT_ZERO`).

Many comparisons are made at once, so each p is corrected by Holm's step-down method
(:func:`holm`), which holds the chance of any false claim among the m comparisons at 5%:
with p_(1) <= ... <= p_(m), p_holm_(i) = max_{k <= i} min(1, (m - k + 1) p_(k)). A
difference is called resolved when its corrected p is below 0.05.

Intervals for such a family hold all m differences together, at 95%, when each is
Bonferroni's, at level 1 - 0.05/m (:func:`simultaneous_level`; ``level`` of
:func:`paired_difference`): t_{S-1} at 1 - 0.025/m (10.36 for five seeds and m = 102).
One excludes 0 exactly when m p < 0.05, and then Holm's corrected p, never above m p, is
below 0.05 too: every difference such an interval resolves, Holm's method resolves. Holm's step-down
method resolves a few more (those with 0.05/m <= p < 0.05/(m - k + 1) at the k-th smallest
p, every smaller one resolved), whose simultaneous interval still touches 0.
"""

from __future__ import annotations

import math

import numpy as np

from ..support._checks import N_, check_int, check_positive_float, fail
from .intervals import LEVEL, MAX_REPS, _logistic_array, t_p_value, t_quantile, true_mean

ALPHA = 0.05


def simultaneous_level(comparisons: int, alpha: float = ALPHA) -> float:
    """Bonferroni's level for each of ``comparisons`` intervals that hold together with
    probability at least 1 - ``alpha``: 1 - alpha / m (0.99951 for m = 102)."""
    m = check_int(comparisons, "comparisons", 1, 10**5)
    alpha = check_positive_float(alpha, "alpha", 0.5)
    return 1 - alpha / m


def paired_difference(a, b, level: float = LEVEL) -> dict[str, float]:
    """Student's paired t test of arm a against arm b across seeds (see the module).

    ``a``, ``b``: ``(S, J)`` per-sequence accuracies on the same sequences (row s: seed s);
    ``level``: the interval's, 0.95 unless a family's (:func:`simultaneous_level`).
    Returns ``difference`` (mean d), ``ci_low``, ``ci_high`` (mean d -+ t se, t the
    two-sided ``level`` quantile of T_{S-1}), ``t``, ``df``, ``p`` (two-sided,
    uncorrected) and ``seeds_a_higher`` (how many d_s > 0)."""
    level = check_positive_float(level, "level", 0.999999)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape or a.shape[0] < 2:
        fail("a", a.shape, "two arrays (seeds, sequences) of the same shape, 2 seeds or more")
    d = (a - b).mean(axis=1)  # (S,)
    s = d.size
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(s)
    if se == 0.0:
        t = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
        half = 0.0
    else:
        t = mean / se
        half = t_quantile(s - 1, level) * se
    return {"difference": mean, "ci_low": mean - half, "ci_high": mean + half, "t": t,
            "df": s - 1, "p": t_p_value(t, s - 1), "seeds_a_higher": int((d > 0).sum())}


def holm(p) -> np.ndarray:
    """Holm's step-down correction of the p-values ``p`` ``(m,)``: sorted ascending,
    p_holm_(i) = max_{k <= i} min(1, (m - k + 1) p_(k)), returned in the input's order."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        fail("p", p.shape if p.ndim != 1 else float(np.nanmax(p)), "p-values from 0 to 1 (1-D)")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])  # (m - k + 1) p_(k), k from 1
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


def coverage(difference_logit: float, seed_sd: float, sequence_sd: float, *,
             correlation: float = 0.5, seeds: int = 5, sequences: int = 52,
             answers: int = 13, mu_logit: float = 0.0, reps: int = 2000,
             seed: int = 0) -> tuple[float, float]:
    """The paired interval on simulated pairs: arm b has log-odds mu_logit + seed_sd u_s +
    sequence_sd e_sj, arm a that plus ``difference_logit`` with its own seed effect
    (correlated ``correlation`` with b's: shared initial weights and data) and its own
    sequence noise; ``answers`` binomial answers per sequence. Returns the share of
    experiments whose 95% interval holds the true difference of mean accuracies, and the
    share whose uncorrected p is below 0.05 (5% where difference_logit = 0)."""
    reps = check_int(reps, "reps", 1, MAX_REPS)
    rng = np.random.default_rng(seed)
    shared = rng.standard_normal((reps, seeds, 1))
    own = rng.standard_normal((reps, seeds, 1))
    seed_a = seed_sd * (correlation * shared + math.sqrt(1 - correlation**2) * own)
    logit_b = mu_logit + seed_sd * shared + sequence_sd * rng.standard_normal(
        (reps, seeds, sequences))
    logit_a = mu_logit + difference_logit + seed_a + sequence_sd * rng.standard_normal(
        (reps, seeds, sequences))
    acc_a = rng.binomial(answers, _logistic_array(logit_a)) / answers
    acc_b = rng.binomial(answers, _logistic_array(logit_b)) / answers
    truth = true_mean(mu_logit + difference_logit, seed_sd, sequence_sd) - \
        true_mean(mu_logit, seed_sd, sequence_sd)
    held = rejected = 0
    for x, y in zip(acc_a, acc_b):
        r = paired_difference(x, y)
        held += r["ci_low"] <= truth <= r["ci_high"]
        rejected += r["p"] < ALPHA
    return held / reps, rejected / reps


# The grid the paired interval's coverage is measured on (benchmarks/interval_coverage.py
# runs all of it): the two designs (intervals.COVERAGE_GRID), arm b's log-odds and the
# difference a - b (chance against chance, at 50%, 95% and 99.75%; differences of 1 to 7
# logits, one arm near 100% in several), seed spreads 0.5 to 1.5 logits, the two arms'
# seed effects independent or correlated 0.5, sequence spreads 0.5 and 1.
COVERAGE_GRID = {"designs": ((52, 32), (20, 3)),
                 "arms": ((-2.7, 0.0), (0.0, 0.0), (3.0, 0.0), (6.0, 0.0), (0.0, 1.0),
                          (-2.7, 2.7), (2.0, 2.0), (2.0, 4.0), (4.0, 2.0), (-2.7, 7.0),
                          (6.0, -3.0)),
                 "seed_sd": (0.5, 1.0, 1.5),
                 "correlation": (0.0, 0.5),
                 "sequence_sd": (0.5, 1.0)}
COVERAGE_REPS = 2000
AWAY = N_("both arms below 95%, or seeds spread by at most 0.5 logit")
NEAR = N_("an arm near 100% (95% to 99.75%), seeds spread by 1 to 1.5 logits")


def coverage_case(mu_logit: float, difference_logit: float, seed_sd: float) -> str:
    """Which :data:`COVERAGE` range a point of the grid belongs to."""
    near = max(mu_logit, mu_logit + difference_logit) >= 3 and seed_sd >= 1
    return NEAR if near else AWAY


def coverage_grid() -> list[dict]:
    """Every point of :data:`COVERAGE_GRID`, in order, with its case
    (:func:`coverage_case`) and the simulation's seed (its index)."""
    g = COVERAGE_GRID
    points = [dict(sequences=j, answers=w, mu_logit=mu, difference_logit=dl, seed_sd=ss,
                   correlation=corr, sequence_sd=qs)
              for j, w in g["designs"] for mu, dl in g["arms"] for ss in g["seed_sd"]
              for corr in g["correlation"] for qs in g["sequence_sd"]]
    return [dict(p, case=coverage_case(p["mu_logit"], p["difference_logit"], p["seed_sd"]),
                 seed=i) for i, p in enumerate(points)]


# Measured by benchmarks/interval_coverage.py: over the grid's points of each case, the
# lowest and highest share of COVERAGE_REPS experiments whose 95% interval holds the true
# difference, and over the points with no difference, the share whose uncorrected p is
# below 0.05.
COVERAGE = {AWAY: (0.913, 0.996), NEAR: (0.778, 0.9985)}
REJECTED_AT_ZERO = (0.0015, 0.06)


def ranked_groups(means, resolved) -> tuple[list[list[int]], list[bool]]:
    """Items ranked by their means (highest first) and grouped where the paired tests do
    not tell them apart: item j joins the current group when no test resolves it from any
    member, else starts a new one. ``means`` ``(n,)``; ``resolved`` ``(n, n)`` bool,
    symmetric: whether the corrected test of i against j resolves them.

    Returns the groups (lists of indices, in order) and, between each group and the
    next, whether every pair across the two is resolved (">") or only some are ("≳")."""
    means = np.asarray(means, dtype=np.float64)
    resolved = np.asarray(resolved, dtype=bool)
    if means.ndim != 1 or means.size < 1 or resolved.shape != (means.size, means.size):
        fail("resolved", resolved.shape, "an (n, n) matrix for n = {n} means", n=means.size)
    order = [int(i) for i in np.argsort(-means, kind="stable")]
    groups = [[order[0]]]
    for j in order[1:]:
        if any(resolved[i, j] for i in groups[-1]):
            groups.append([j])
        else:
            groups[-1].append(j)
    apart = [bool(all(resolved[i, j] for i in upper for j in lower))
             for upper, lower in zip(groups[:-1], groups[1:])]
    return groups, apart
