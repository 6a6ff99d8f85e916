"""Paired comparisons of two arms across training seeds, corrected for how many are made.

Within a task and a seed, every arm of the tiny models starts from the same initial
weights, reads the same training batches and is evaluated on the same sequences
(rope_core.beyond.tiny_model): arm a and arm b of seed s differ only in what the arms
differ in. Their difference is measured seed by seed,

    d_s = mean_j (a_sj - b_sj),   s = 1 ... S,

and tested across the S seeds (the unit of replication: a new seed is a new pair of
models), by Student's paired t test:

    mean d = (1/S) sum_s d_s,   se = sd(d_s) / sqrt(S),   t = mean d / se,  df = S - 1,
    p = P(|T_{S-1}| >= |t|),   95% interval  mean d -+ t_{S-1} se.

Where all S differences are equal (se = 0) the interval is that point and p is 1 if they
are 0 and 0 otherwise. With five seeds the smallest p a sign-flip (permutation) test can
give is 2/32 = 0.0625, so the t test it is; it assumes the d_s roughly normal, which
:func:`coverage` checks on simulated pairs.

Many comparisons are made at once, so each p is corrected by Holm's step-down method
(:func:`holm`), which holds the chance of any false claim among the m comparisons at 5%:
with p_(1) <= ... <= p_(m), p_holm_(i) = max_{k <= i} min(1, (m - k + 1) p_(k)). A
difference is called resolved when its corrected p is below 0.05.
"""

from __future__ import annotations

import math

import numpy as np

from ..support._checks import check_int, fail
from .intervals import MAX_REPS, _logistic_array, t_p_value, t_quantile, true_mean

ALPHA = 0.05


def paired_difference(a, b) -> dict[str, float]:
    """Student's paired t test of arm a against arm b across seeds (see the module).

    ``a``, ``b``: ``(S, J)`` per-sequence accuracies on the same sequences (row s: seed s).
    Returns ``difference`` (mean d), ``ci_low``, ``ci_high`` (95%), ``t``, ``df``, ``p``
    (two-sided, uncorrected) and ``seeds_a_higher`` (how many d_s > 0)."""
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
        half = t_quantile(s - 1) * se
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
