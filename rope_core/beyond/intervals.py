"""95% intervals for accuracies measured over sequences and training seeds.

An accuracy here is a mean of per-sequence accuracies: sequence j of a model's
evaluation set has m answered positions in a position bin, a_j of them right
(as a fraction). The answers of one sequence are not independent (one wrong
turn of the model spoils many of them), so the sequence, not the answer, is the
unit of sampling.

* Over the sequences of one model (:func:`sequence_interval`): Wilson's score
  interval of the mean p = mean_j a_j with n = J trials, one per sequence:
  (p + z^2 / 2n +- z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n),
  z = 1.95996, the normal 97.5% quantile. Conservative: a_j lies in [0, 1] with
  mean p, so its variance is at most p (1 - p), the variance of one trial; the
  interval is as wide as if all answers of a sequence were right or wrong
  together, whatever the clustering (and it does not collapse where every
  answer is right, as a standard error would).
* Over seeds (:func:`seed_interval`): S models trained alike from S seeds, each
  evaluated on its own fresh sequences, so the spread of their S accuracies
  holds both the seed's and the sequences' share. Student's interval
  mean +- t_{S-1} sd / sqrt(S), widened where needed to contain the Wilson
  interval of all S J sequences pooled (when the seeds agree, e.g. all at 100%,
  sd = 0 would claim a certainty the sequences do not give). The result is the
  wider of the two at each end (:func:`seed_interval_parts` gives both): where
  the seeds disagree, Student's part sets it; where they agree, Wilson's.

What the interval over seeds covers: the spread among the S seeds observed,
not a rare seed that fails. Where every one of S seeds gives the same result
(say each learns the task), a failure rate up to 1 - 0.05^(1/S) per seed is
still consistent with that at 95% (one-sided; :func:`unseen_failure_bound`,
45% for S = 5), and no interval of these S models can show it.

Student's t quantile for an integer number of degrees of freedom is computed
from the closed form of its distribution function (Abramowitz & Stegun 26.7.3
and 26.7.4), with no dependency beyond the standard library.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from ..support._checks import check_int, check_positive_float, fail

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)  # 1.959964


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


def wilson(p: float, n: float, z: float = Z) -> tuple[float, float]:
    """Wilson's score interval of a proportion ``p`` observed in ``n`` trials
    (``n`` may be an effective, non-integer count):

        (p + z^2/(2n) -+ z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n).
    """
    if not 0.0 <= p <= 1.0:
        fail("p", p, "a proportion from 0 to 1")
    n = check_positive_float(n, "n")
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)


def sequence_interval(per_sequence: np.ndarray) -> tuple[float, float]:
    """95% interval of one model's accuracy over its J sequences: Wilson with n = J
    (see the module). ``per_sequence``: ``(J,)`` accuracies in [0, 1]."""
    a = np.asarray(per_sequence, dtype=np.float64)
    if a.ndim != 1 or a.size < 1:
        fail("per_sequence", a.ndim, "a non-empty 1-D array")
    return wilson(float(a.mean()), a.size)


def seed_interval_parts(per_seed_sequence: np.ndarray) -> tuple[tuple[float, float],
                                                                   tuple[float, float]]:
    """The two intervals :func:`seed_interval` joins, unclipped: Student's
    mean +- t_{S-1} sd_S / sqrt(S) over the S seed means (how far the seeds
    disagree), and Wilson's over the S J sequences pooled (how far the sampled
    sequences alone could move the mean). ``per_seed_sequence``: ``(S, J)``."""
    a = np.asarray(per_seed_sequence, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] < 2:
        fail("per_seed_sequence", a.shape[0] if a.ndim == 2 else a.ndim, "at least 2 seeds")
    means = a.mean(axis=1)  # (S,)
    s = means.size
    centre = float(means.mean())
    half = t_quantile(s - 1) * float(means.std(ddof=1)) / math.sqrt(s)
    return (centre - half, centre + half), sequence_interval(a.ravel())


def seed_interval(per_seed_sequence: np.ndarray) -> tuple[float, float]:
    """95% interval over seeds and sequences. ``per_seed_sequence``: ``(S, J)``
    accuracies, row s the J fresh sequences of seed s's model.

    mean +- t_{S-1} sd_S / sqrt(S) over the S seed means, joined with the Wilson
    interval of the S J sequences pooled (:func:`seed_interval_parts`): the lower
    of the two lower ends and the higher of the two upper ends, clipped to [0, 1]."""
    return joined(*seed_interval_parts(per_seed_sequence))


def joined(student: tuple[float, float], wilson_: tuple[float, float]) -> tuple[float, float]:
    """The interval over seeds from its two parts (:func:`seed_interval_parts`): the
    lower of the lower ends and the higher of the upper ends, clipped to [0, 1]."""
    return max(0.0, min(student[0], wilson_[0])), min(1.0, max(student[1], wilson_[1]))


def unseen_failure_bound(seeds: int, level: float = LEVEL) -> float:
    """The largest per-seed failure rate q still consistent, at ``level`` one-sided,
    with ``seeds`` seeds that all succeeded: (1 - q)^S = 1 - level, so

        q = 1 - (1 - level)^(1/S)    (0.451 for S = 5 at 95%; "rule of three": ~3/S).
    """
    seeds = check_int(seeds, "seeds", 1, 10**6)
    level = check_positive_float(level, "level", 0.999999)
    return 1 - (1 - level) ** (1 / seeds)


def overlap_groups(low, high) -> list[list[int]]:
    """Runs of neighbours whose intervals all overlap one another, for items already
    sorted by their estimate (highest first): item j joins the current group when
    [low_j, high_j] shares a point with the interval of every member, else starts a new
    group. Within a group no order is resolved; two items of different groups may still
    overlap (a neighbour of the group may overlap only some of its members), which
    :func:`groups_apart` tells. ``low``, ``high``: ``(n,)``.

    Returns the groups as lists of indices, in order."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if low.ndim != 1 or low.shape != high.shape or low.size < 1:
        fail("low", low.shape, "two 1-D arrays of the same, non-zero length")
    groups = [[0]]
    for j in range(1, low.size):
        if all(low[j] <= high[i] and low[i] <= high[j] for i in groups[-1]):
            groups[-1].append(j)
        else:
            groups.append([j])
    return groups


def groups_apart(low, high, upper: list[int], lower: list[int]) -> bool:
    """Whether every interval of the group ``upper`` lies above every interval of the
    group ``lower``: min(low over upper) > max(high over lower)."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    return bool(low[upper].min() > high[lower].max())
