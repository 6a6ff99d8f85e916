"""Intervals for accuracies measured over training seeds and sequences.

The design: S models trained alike from S seeds; model s is evaluated on J fresh
sequences, the same J for every arm of that seed; sequence j has w answers in a group (a
position bin, a recall cell), a_sj of them right as a fraction. What an accuracy estimates
is the mean over seeds and sequences, mu = E_s E_j a_sj: what a model trained from a new
seed would score on new sequences. The answers of one sequence are not independent (one
wrong turn spoils many), and the models of one seed share their training, so neither the
answer nor the sequence is the unit of replication: the seed is.

:func:`seed_interval` is the range of the seeds, one method at every count: with m_s the
accuracy of seed s (x_s of its n = w J answers right),

    [min(min_s m_s, b), max(max_s m_s, 1 - b)],   b = (alpha/2)^(1/n),

b being Clopper and Pearson's lower bound for one seed whose n answers are all right
(:func:`all_right_lower`: 0.99778 for n = 1,664 answers, 0.9404 for n = 60): where the
seeds crowd closer to 100% (or 0) than one seed's answers can tell, the interval reaches
that far. It is monotone in the errors: when a right answer becomes wrong, no seed's
accuracy rises, so neither end rises.

What it holds:

* The median seed's accuracy, distribution-free: the S seeds fall on both sides of their
  median unless all S fall on one side, each with probability at most (1/2)^S, so
  P(min_s m_s <= median <= max_s m_s) >= 1 - 2 (1/2)^S, 93.75% for S = 5 (the
  order-statistic interval for a median, the sign test's), whatever the seeds'
  distribution. Each seed's accuracy is measured on
  finitely many sequences, which moves it a little: on the simulated design below
  :data:`MEDIAN_COVERAGE`.
* The mean, as often where the seeds agree, less where they spread near 0 or 100%
  (:data:`COVERAGE`, measured by :func:`coverage` over :data:`COVERAGE_GRID`). There the
  seeds' distribution is skewed (a normal spread on the log-odds scale has a long tail
  towards the middle), its mean lies beyond its median, and in up to about a quarter of
  experiments beyond all five seeds; the interval then misses it.

No interval that is monotone, and narrow where the seeds agree, does better there. If the
lower end never rises when a right answer becomes wrong, the lower end of any table is at
least that of the table in which every seed scores what the worst seed scores; if that
one's interval is narrow, the lower end cannot reach far below the worst seed, and misses
the mean whenever it lies further below all five. An interval that reaches below the
worst seed by the seeds' spread (Student's t over the seeds, on any scale) widens as one
seed moves up away from the others, and then more right answers can raise its lower end:
seeds at 100, 90, 90, 90 and 90% get 86.4% from Student's t over the seed means, seeds at
99, 90, 90, 90 and 90% get 86.8%.

:func:`coverage` checks the interval on simulated data: seed s has log-odds
mu_logit + seed_sd z_s, sequence j of it log-odds + sequence_sd z_sj, and w answers drawn
binomially; the share of simulated experiments whose interval holds the true mean
E[logistic(...)] (or the median seed's accuracy) is its coverage.

What an interval over seeds covers: the spread among the S seeds observed, not a rare seed
that fails. Where every one of S seeds gives the same result (say each learns the task), a
failure rate up to 1 - 0.05^(1/S) per seed is still consistent with that at 95%
(one-sided; :func:`unseen_failure_bound`, 45% for S = 5), and no interval of these S
models can show it.

Student's t distribution for an integer number of degrees of freedom (for the paired
comparisons, :mod:`.paired`) is computed from the closed form of its distribution function
(Abramowitz & Stegun 26.7.3 and 26.7.4), with no dependency beyond the standard library.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from ..support._checks import N_, check_choice, check_int, check_positive_float, fail

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


def all_right_lower(sequences: int, level: float = LEVEL) -> float:
    """Clopper and Pearson's lower bound where all ``sequences`` trials succeed:
    P(all right | p) = p^n = (1 - level) / 2, so p = ((1 - level) / 2)^(1/n)
    (0.9859 for n = 260 at 95%)."""
    n = check_int(sequences, "sequences", 1, 10**9)
    level = check_positive_float(level, "level", 0.999999)
    return ((1 - level) / 2) ** (1 / n)


def seed_interval(per_seed_sequence, answers: int) -> tuple[float, float]:
    """The interval of the mean accuracy over seeds and sequences (its coverage: the
    module): the range of the seeds' accuracies m_s = mean_j a_sj, reaching at least to
    b = :func:`all_right_lower`(n) from 100% and to 1 - b from 0, n = w J the answers of
    one seed,

        [min(min_s m_s, b), max(max_s m_s, 1 - b)].

    (The pooled mean lies between min_s m_s and max_s m_s; it is taken into the minimum
    and maximum too, against rounding.) Monotone in the errors: a right answer that
    becomes wrong lowers one m_s and the pooled mean, so neither end rises.

    ``per_seed_sequence``: ``(S, J)`` accuracies in [0, 1]; ``answers``: w, the answers
    of each sequence in the group."""
    a = _per_seed_sequence(per_seed_sequence)
    w = check_int(answers, "answers", 1, 10**6)
    means = a.mean(axis=1)  # (S,) each seed's accuracy
    pooled = float(a.mean())
    b = all_right_lower(w * a.shape[1])
    return (min(float(means.min()), pooled, b),
            max(float(means.max()), pooled, 1.0 - b))


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


ESTIMANDS = ("mean", "median seed")


def coverage(mu_logit: float, seed_sd: float, sequence_sd: float, *, seeds: int = 5,
             sequences: int = 52, answers: int = 13, reps: int = 2000,
             seed: int = 0, estimand: str = "mean") -> float:
    """The share of ``reps`` simulated experiments (:func:`simulate`) whose
    :func:`seed_interval` holds the true mean (:func:`true_mean`), or with ``estimand``
    "median seed" the median seed's accuracy: seed s's accuracy over all sequences is
    E logistic(l_s + sequence_sd Z), increasing in its log-odds l_s, so the median seed's
    is that at l_s = mu_logit, true_mean(mu_logit, 0, sequence_sd)."""
    estimand = check_choice(estimand, "estimand", ESTIMANDS)
    rng = np.random.default_rng(seed)
    truth = true_mean(mu_logit, seed_sd if estimand == "mean" else 0.0, sequence_sd)
    data = simulate(mu_logit, seed_sd, sequence_sd, seeds, sequences, answers, reps, rng)
    held = 0
    for experiment in data:  # (S, J)
        low, high = seed_interval(experiment, answers)
        held += low <= truth <= high
    return held / reps


# The grid the coverage is measured on (benchmarks/interval_coverage.py runs all of it):
# the two designs of the tiny models (local: 52 sequences of 32 answers in a position bin
# 96-127; recall: 20 sequences of 3 answers in a cell), seeds whose log-odds mean mu_logit
# runs from chance on the local task (-2.7, 6.3%) to 99.75% (6), seed spreads 0 to 1.5
# logits (the stored seeds near 100% spread up to about 1.7), sequence spreads 0.5 and 1.
COVERAGE_GRID = {"designs": ((52, 32), (20, 3)),
                 "mu_logit": (-2.7, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0),
                 "seed_sd": (0.0, 0.5, 1.0, 1.5),
                 "sequence_sd": (0.5, 1.0)}
COVERAGE_REPS = 2000  # simulated experiments per point (binomial standard error 0.5 points)
AGREE = N_("seeds agree (spread up to 0.5 logit)")
MIDDLE = N_("seeds spread by 1 to 1.5 logits, between 27% and 88%")
EDGE = N_("seeds spread by 1 to 1.5 logits, near 0 or 100% (6%, chance on the local task; "
          "95% to 99.75%)")


def coverage_case(mu_logit: float, seed_sd: float) -> str:
    """Which :data:`COVERAGE` range a point of the grid belongs to."""
    if seed_sd <= 0.5:
        return AGREE
    return MIDDLE if -1 <= mu_logit <= 2 else EDGE


def coverage_grid() -> list[dict]:
    """Every point of :data:`COVERAGE_GRID`, in order, with its case
    (:func:`coverage_case`) and the simulation's seed (its index)."""
    g = COVERAGE_GRID
    points = [dict(sequences=j, answers=w, mu_logit=mu, seed_sd=ss, sequence_sd=qs)
              for j, w in g["designs"] for mu in g["mu_logit"] for ss in g["seed_sd"]
              for qs in g["sequence_sd"]]
    return [dict(p, case=coverage_case(p["mu_logit"], p["seed_sd"]), seed=i)
            for i, p in enumerate(points)]


# Measured by benchmarks/interval_coverage.py: over the grid's points of each case, the
# lowest and highest share of COVERAGE_REPS experiments whose interval holds the mean
# (what the page can print: "about {low}-{high} in 100").
COVERAGE = {AGREE: (0.9035, 1.0), MIDDLE: (0.8935, 0.941), EDGE: (0.75, 1.0)}
# ... and that holds the median seed's accuracy, over the whole grid
MEDIAN_COVERAGE = (0.912, 1.0)
