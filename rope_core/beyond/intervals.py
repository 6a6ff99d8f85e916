"""95% intervals for accuracies measured over training seeds and sequences.

The design: S models trained alike from S seeds; model s is evaluated on J fresh
sequences, the same J for every arm of that seed; sequence j has w answers in a group (a
position bin, a recall cell), a_sj of them right as a fraction. What an accuracy estimates
is the mean over seeds and sequences, mu = E_s E_j a_sj: what a model trained from a new
seed would score on new sequences. The answers of one sequence are not independent (one
wrong turn spoils many), and the models of one seed share their training, so neither the
answer nor the sequence is the unit of replication: the seed is.

:func:`seed_interval` joins two intervals, from the lower of their lower ends to the
higher of their upper ends:

* Student's t over the S seed means m_s = mean_j a_sj (:func:`student_interval`),
  mean_s m_s +- t_{S-1} sd_s(m_s) / sqrt(S). For this balanced design it is the REML
  interval of the mean in the random-intercept model a_sj = mu + u_s + e_sj (the
  between-seed mean square over S J is exactly sd_s(m_s)^2 / S), and exact when the seed
  means are normal; it holds both the seed's share of the spread and the sequences'.
* The same on the log-odds scale (:func:`logit_interval`): Student's t over
  logit((x_s + 1/2) / (n_s + 1)), x_s of the n_s = w J answers of seed s right, mapped
  back with the logistic function and widened to hold the pooled mean. Seed means that
  crowd against 0 or 100% are skewed, and a symmetric interval then misses on one side;
  on the log-odds scale they are nearly symmetric.

Where every answer of every seed is right (or every one wrong), no spread is left to
measure, and both intervals would shrink to a point: the interval is then Clopper and
Pearson's exact one with the S J sequences as the trials, each right as a whole,
[(alpha/2)^(1/SJ), 1] (:func:`all_right_lower`): as wide as if all answers of a sequence
were right or wrong together, the widest the sequences allow.

:func:`coverage` checks the interval on simulated data: seed s has log-odds
mu_logit + seed_sd z_s, sequence j of it log-odds + sequence_sd z_sj, and w answers drawn
binomially; the share of simulated experiments whose interval holds the true mean
E[logistic(...)] is its coverage (about 95% where the seeds agree or their accuracies are
symmetric; down to about 91% where five seeds spread widely near 100%: with five seeds no
interval can both keep its width and know the shape of their spread).

What an interval over seeds covers: the spread among the S seeds observed, not a rare seed
that fails. Where every one of S seeds gives the same result (say each learns the task), a
failure rate up to 1 - 0.05^(1/S) per seed is still consistent with that at 95%
(one-sided; :func:`unseen_failure_bound`, 45% for S = 5), and no interval of these S
models can show it.

Student's t distribution for an integer number of degrees of freedom is computed from the
closed form of its distribution function (Abramowitz & Stegun 26.7.3 and 26.7.4), with no
dependency beyond the standard library.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from ..support._checks import check_int, check_positive_float, fail

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)  # 1.959964
MAX_REPS = 100_000  # simulated experiments of one coverage check


def student_t_two_sided(t: float, df: int) -> float:
    """P(|T| <= t) for Student's T with ``df`` (integer) degrees of freedom:
    with u = atan(t / sqrt(df)),

        df = 1:    2u / pi,
        df odd:    (2 / pi) (u + sin u (cos u + (2/3) cos^3 u + (2·4)/(3·5) cos^5 u + ...
                   + (2·4···(df-3))/(1·3···(df-2)) cos^(df-2) u)),
        df even:   sin u (1 + (1/2) cos^2 u + (1·3)/(2·4) cos^4 u + ...
                   + (1·3···(df-3))/(2·4···(df-2)) cos^(df-2) u).
    """
    df = check_int(df, "df", 1, 10**6)
    if t <= 0:
        return 0.0
    if math.isinf(t):
        return 1.0
    u = math.atan(t / math.sqrt(df))
    c2 = math.cos(u) ** 2
    if df % 2:
        total, term = 0.0, math.cos(u)
        for j in range(1, (df - 1) // 2 + 1):  # cos u, (2/3) cos^3 u, ...
            total += term
            term *= c2 * (2 * j) / (2 * j + 1)
        return 2 / math.pi * (u + math.sin(u) * total) if df > 1 else 2 * u / math.pi
    total, term = 0.0, 1.0
    for j in range(1, df // 2 + 1):  # 1, (1/2) cos^2 u, (1·3)/(2·4) cos^4 u, ...
        total += term
        term *= c2 * (2 * j - 1) / (2 * j)
    return math.sin(u) * total


def t_p_value(t: float, df: int) -> float:
    """The two-sided p-value of Student's statistic ``t``: P(|T| >= |t|) =
    1 - :func:`student_t_two_sided`(|t|, df) (1 at t = 0, 0 at |t| infinite)."""
    if math.isnan(t):
        fail("t", t, "a number")
    return max(0.0, 1.0 - student_t_two_sided(abs(t), df))


@functools.lru_cache(maxsize=64)
def t_quantile(df: int, level: float = LEVEL) -> float:
    """The t with P(|T| <= t) = ``level`` for ``df`` degrees of freedom (the
    two-sided critical value: 12.706 for df 1, 4.303 for df 2, 1.960 as df grows),
    by bisection on :func:`student_t_two_sided` to 1e-12."""
    df = check_int(df, "df", 1, 10**6)
    level = check_positive_float(level, "level", 0.999999)
    low, high = 0.0, 1.0
    while student_t_two_sided(high, df) < level:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if student_t_two_sided(mid, df) < level:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2


def _per_seed_sequence(a) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] < 2 or a.shape[1] < 1:
        fail("per_seed_sequence", a.shape, "an array (seeds, sequences) with at least 2 seeds")
    if np.isnan(a).any() or (a < 0).any() or (a > 1).any():
        fail("per_seed_sequence", float(np.nanmin(a)) if (a < 0).any() else float(np.nanmax(a)),
             "accuracies from 0 to 1")
    return a


def student_interval(per_seed_sequence) -> tuple[float, float]:
    """Student's interval over the seed means, unclipped: with m_s the mean of row s,

        mean_s m_s -+ t_{S-1} sd(m_s) / sqrt(S)      (sd with S - 1 in the denominator).

    ``per_seed_sequence``: ``(S, J)`` accuracies, row s the sequences of seed s's model."""
    a = _per_seed_sequence(per_seed_sequence)
    means = a.mean(axis=1)  # (S,)
    s = means.size
    centre = float(means.mean())
    half = t_quantile(s - 1) * float(means.std(ddof=1)) / math.sqrt(s)
    return centre - half, centre + half


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def logit_interval(per_seed_sequence, answers: int) -> tuple[float, float]:
    """Student's interval on the log-odds scale, mapped back: with x_s = w sum_j a_sj right
    answers of n = w J (``answers`` = w per sequence),

        l_s = ln((x_s + 1/2) / (n - x_s + 1/2)),   logistic(mean l -+ t_{S-1} sd(l) / sqrt(S)),

    widened where needed to hold the pooled mean (the log-odds mean is nearer the median of
    skewed seeds than their mean)."""
    a = _per_seed_sequence(per_seed_sequence)
    w = check_int(answers, "answers", 1, 10**6)
    n = w * a.shape[1]
    right = np.rint(a.sum(axis=1) * w)  # (S,) right answers per seed (integers)
    logits = np.log((right + 0.5) / (n - right + 0.5))  # (S,)
    s = logits.size
    centre = float(logits.mean())
    half = t_quantile(s - 1) * float(logits.std(ddof=1)) / math.sqrt(s)
    pooled = float(a.mean())
    return min(_logistic(centre - half), pooled), max(_logistic(centre + half), pooled)


def all_right_lower(sequences: int, level: float = LEVEL) -> float:
    """Clopper and Pearson's lower bound where all ``sequences`` trials succeed:
    P(all right | p) = p^n = (1 - level) / 2, so p = ((1 - level) / 2)^(1/n)
    (0.9859 for n = 260 at 95%)."""
    n = check_int(sequences, "sequences", 1, 10**9)
    level = check_positive_float(level, "level", 0.999999)
    return ((1 - level) / 2) ** (1 / n)


def seed_interval(per_seed_sequence, answers: int) -> tuple[float, float]:
    """95% interval of the mean accuracy over seeds and sequences (see the module):
    the lower of the lower ends and the higher of the upper ends of
    :func:`student_interval` and :func:`logit_interval`, clipped to [0, 1]; where every
    answer is right (wrong), [:func:`all_right_lower`(S J), 1] ([0, 1 - that]).

    ``per_seed_sequence``: ``(S, J)`` accuracies in [0, 1]; ``answers``: w, the answers
    of each sequence in the group."""
    a = _per_seed_sequence(per_seed_sequence)
    if (a == 1).all():
        return all_right_lower(a.size), 1.0
    if (a == 0).all():
        return 0.0, 1.0 - all_right_lower(a.size)
    student, logit = student_interval(a), logit_interval(a, answers)
    return max(0.0, min(student[0], logit[0])), min(1.0, max(student[1], logit[1]))


def unseen_failure_bound(seeds: int, level: float = LEVEL) -> float:
    """The largest per-seed failure rate q still consistent, at ``level`` one-sided,
    with ``seeds`` seeds that all succeeded: (1 - q)^S = 1 - level, so

        q = 1 - (1 - level)^(1/S)    (0.451 for S = 5 at 95%; "rule of three": ~3/S).
    """
    seeds = check_int(seeds, "seeds", 1, 10**6)
    level = check_positive_float(level, "level", 0.999999)
    return 1 - (1 - level) ** (1 / seeds)


# --- the coverage check ------------------------------------------------------------------

def _logistic_array(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(x / 2))  # logistic(x) without overflow


def true_mean(mu_logit: float, seed_sd: float, sequence_sd: float, nodes: int = 64) -> float:
    """E[logistic(mu + seed_sd Z_1 + sequence_sd Z_2)], Z_i standard normal: the mean
    accuracy of the simulated design, by Gauss-Hermite quadrature in the one normal
    variable sqrt(seed_sd^2 + sequence_sd^2) Z (a sum of two normals is normal)."""
    nodes = check_int(nodes, "nodes", 8, 512)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)  # weight exp(-x^2/2)
    sd = math.hypot(seed_sd, sequence_sd)
    return float((w * _logistic_array(mu_logit + sd * x)).sum() / math.sqrt(2 * math.pi))


def simulate(mu_logit: float, seed_sd: float, sequence_sd: float, seeds: int, sequences: int,
             answers: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``reps`` simulated experiments, ``(reps, S, J)`` accuracies: seed s has log-odds
    mu_logit + seed_sd z_s, its sequence j that plus sequence_sd z_sj, and ``answers``
    answers drawn binomially with the resulting probability."""
    seeds = check_int(seeds, "seeds", 2, 1000)
    sequences = check_int(sequences, "sequences", 1, 10_000)
    answers = check_int(answers, "answers", 1, 10_000)
    reps = check_int(reps, "reps", 1, MAX_REPS)
    logit = (mu_logit + seed_sd * rng.standard_normal((reps, seeds, 1))
             + sequence_sd * rng.standard_normal((reps, seeds, sequences)))
    return rng.binomial(answers, _logistic_array(logit)) / answers


def coverage(mu_logit: float, seed_sd: float, sequence_sd: float, *, seeds: int = 5,
             sequences: int = 52, answers: int = 13, reps: int = 2000,
             seed: int = 0) -> float:
    """The share of ``reps`` simulated experiments (:func:`simulate`) whose
    :func:`seed_interval` holds the true mean (:func:`true_mean`)."""
    rng = np.random.default_rng(seed)
    truth = true_mean(mu_logit, seed_sd, sequence_sd)
    data = simulate(mu_logit, seed_sd, sequence_sd, seeds, sequences, answers, reps, rng)
    held = 0
    for experiment in data:  # (S, J)
        low, high = seed_interval(experiment, answers)
        held += low <= truth <= high
    return held / reps
