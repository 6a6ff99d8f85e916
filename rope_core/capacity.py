"""How far a base carries a context: critical dimension and the cos-sum bound.

Two results from the literature, both computed exactly here:

* Liu et al. 2023, "Scaling Laws of RoPE-based Extrapolation": pairs whose
  period 2*pi/theta_i fits inside the training length L see every angle in
  training; the others do not. Their count sets the *critical dimension*
  d_extra = 2 * ceil((d/2) * log_base(L / 2 pi)) and, once the base is changed,
  the extrapolation limit 2 pi * base^(d_extra / d).
* Men et al. 2024, "Base of RoPE Bounds Context Length": a model can tell a
  similar token from a random one at distance m only while
  B_m = sum_i cos(m theta_i) >= 0; the smallest base keeping B_m >= 0 for every
  m < L is a lower bound on the base for a context of L tokens.

Partial rotary models (only the first ``rotary_dim`` coordinates of a head are
rotated, theta_i = base^(-2i/rotary_dim), as Hugging Face does with
``dim = head_dim * partial_rotary_factor``): every function here takes ``dim``
to be the number of ROTATED coordinates; pass the rotary dim, not the head dim.
The unrotated coordinates contribute nothing to the angles, and to the
q = k = ones score only a constant that is not part of Men et al.'s B_m.

All loops over distances are chunked (as in :mod:`rope_core.decay`), so 10^6
distances at dim 1024 use a few tens of MB at most.
"""

from __future__ import annotations

import math

import torch

from ._checks import as_distances, check_base, check_dim, check_int, check_positive_float, fail
from .frequencies import theta as _theta

# Largest (distances x pairs) block of float64 temporaries: 2^19 elements = 4 MiB each.
CHUNK_ELEMENTS = 1 << 19

MAX_DISTANCE = 10**7  # first_negative_distance scans at most this far
MAX_CONTEXT = 2**20  # min_base_for_context / passing_bases: 1,048,576 tokens
MAX_CONTEXT_WORK = 2**20 * 64  # context * dim/2: dim 128 at 2^20 tokens, dim 4096 at 32768
MAX_BASES = 4096  # passing_bases: bases per call
BASE_GRID_RATIO = 1.01  # min_base_for_context: grid b_k = 1.01^k (1% relative)
MAX_SEARCH_BASE = 1e15  # min_base_for_context gives up (returns None) above this base


# ---------------------------------------------------------------- Liu et al. 2023

def critical_dimension(dim: int, base: float, train_context: float) -> int:
    """Liu et al. 2023's critical dimension for extrapolation.

        d_extra = 2 * ceil((d/2) * log_base(L / (2 pi))),  clipped to [0, d]

    Pair i has period 2 pi base^(2i/d); ceil((d/2) log_base(L/2pi)) counts the
    pairs i = 0, 1, ... whose period is shorter than L (i < (d/2) log_base(L/2pi)),
    i.e. that complete a full turn inside training. d_extra is twice that count
    (two coordinates per pair). Clipping: for L < 2 pi the logarithm is negative
    and no pair completes a turn, so d_extra = 0; once every pair's period fits,
    the count cannot exceed the d/2 pairs there are, so d_extra = d (the raw
    formula would exceed d when (d/2) log_base(L/2pi) > d/2).

    Example: LLaMA 2, d = 128, base 10^4, L = 4096:
    64 * ln(4096/2pi)/ln(10^4) = 45.03, ceil 46, d_extra = 92 (as the paper reports).

    Args:
        dim: rotary dim d, even, 2 ... 4096.
        base: RoPE base (> 1).
        train_context: training length L in tokens, 0 < L <= 10^9.
    Returns:
        even int in [0, dim].
    """
    dim = check_dim(dim)
    base = check_base(base)
    L = check_positive_float(train_context, "train_context", upper=1e9)
    x = (dim / 2) * math.log(L / (2.0 * math.pi)) / math.log(base)  # pairs, real-valued
    return int(min(dim, max(0, 2 * math.ceil(x))))


def extrapolation_limit(dim: int, base: float, critical_dim: int) -> float:
    """Liu et al. 2023's extrapolation bound: T_extra = 2 pi * base^(d_extra / d).

    A model pre-trained with critical dimension d_extra (see
    :func:`critical_dimension`) has seen full periods only in its first d_extra
    dims. After its base is changed to ``base``, the longest of those periods is
    2 pi base^(d_extra/d) (pair d_extra/2 taken as the boundary), the longest
    context whose angles stay inside what training covered.

    Args:
        dim: rotary dim d, even, 2 ... 4096.
        base: the (new) base, > 1.
        critical_dim: d_extra, an even integer in [0, dim].
    Returns:
        tokens, a float >= 2 pi.
    """
    dim = check_dim(dim)
    base = check_base(base)
    d_extra = check_int(critical_dim, "critical_dim", 0, dim)
    if d_extra % 2:
        fail("critical_dim", d_extra, "an even integer from 0 to dim = {dim}", dim=dim)
    return 2.0 * math.pi * base ** (d_extra / dim)


# ---------------------------------------------------------------- B_m, Men et al. 2024

def _direct_cos_sum(r: torch.Tensor, th: torch.Tensor) -> torch.Tensor:
    """sum_i cos(r theta_i) for arbitrary distances, chunked. r (R,), th (h,) -> (R,)."""
    out = torch.empty(r.numel(), dtype=torch.float64)  # (R,)
    step = max(1, CHUNK_ELEMENTS // th.numel())
    for start in range(0, r.numel(), step):
        sl = slice(start, min(r.numel(), start + step))
        out[sl] = torch.cos(torch.outer(r[sl], th)).sum(dim=-1)  # (c, h) -> (c,)
    return out


def _progression_block_limit(h: int) -> int:
    """Largest count n of one progression block so that the (sqrt n x h) tables stay
    within CHUNK_ELEMENTS / 2 and the (n,) result within CHUNK_ELEMENTS."""
    w = max(1, (CHUNK_ELEMENTS // 2) // h)
    return max(1, min(CHUNK_ELEMENTS, w * w))


def _progression_cos_sum(a: float, s: float, n: int, th: torch.Tensor) -> torch.Tensor:
    """B at the n distances a + s*t, t = 0 ... n-1, by the angle-addition formula.

    Write t = w*u + j (j < w): with x_u = (a + s w u) theta_i and y_j = s j theta_i,
        B = sum_i cos(x_u + y_j) = [cos x | -sin x] (U, 2h) @ [cos y | sin y]^T (2h, w)
    so only (U + w) * h cosines are evaluated (w ~ sqrt n) and the rest is one
    matrix product. Each factor's angle is rounded once in float64, as in the
    direct form, so the accuracy is that of summing d/2 directly computed cosines.
    """
    out = torch.empty(n, dtype=torch.float64)  # (n,)
    h = th.numel()
    block = _progression_block_limit(h)
    for start in range(0, n, block):
        c = min(block, n - start)
        w = max(1, math.isqrt(c - 1) + 1)  # ceil(sqrt(c))
        U = -(-c // w)  # ceil(c / w)
        y = torch.outer(s * torch.arange(w, dtype=torch.float64), th)  # (w, h)
        x = torch.outer(a + s * (start + w * torch.arange(U, dtype=torch.float64)), th)  # (U, h)
        left = torch.cat([torch.cos(x), -torch.sin(x)], dim=1)  # (U, 2h)
        right = torch.cat([torch.cos(y), torch.sin(y)], dim=1)  # (w, 2h)
        out[start:start + c] = torch.mm(left, right.t()).reshape(-1)[:c]  # (U*w,) -> (c,)
    return out


def _arithmetic_step(r: torch.Tensor):
    """The step s if r[t] == r[0] + s*t exactly for every t (and n >= 3), else None."""
    n = r.numel()
    if n < 3:
        return None
    s = float(r[1] - r[0])
    t = torch.arange(n, dtype=torch.float64)
    return s if bool((r == r[0] + s * t).all()) else None


MAX_COS_SUM_DISTANCE = 1e9


def cos_sum(dim: int, base: float, distances) -> torch.Tensor:
    """Men et al. 2024's B_m = sum_{i=0}^{d/2-1} cos(m theta_i), theta_i = base^(-2i/d).

    For q = k = ones the RoPE score is q^T R_m k = sum_i 2 cos(m theta_i) = 2 B_m,
    so B_m is half the all-ones score; B_0 = d/2.

    When the distances are an exact arithmetic progression (e.g. ``arange``),
    B is evaluated by the angle-addition formula as a matrix product (about
    sqrt(R) * d/2 cosines instead of R * d/2); otherwise directly. Both are
    chunked: temporaries stay within a few tens of MB for any R.

    Args:
        dim: rotary dim d (the number of rotated coordinates), even, 2 ... 4096.
        base: RoPE base, > 1.
        distances: ``(R,)`` finite distances m, |m| <= 10^9.
    Returns:
        ``(R,)`` float64 tensor (CPU).
    """
    dim = check_dim(dim)
    base = check_base(base)
    r = as_distances(distances, max_abs=MAX_COS_SUM_DISTANCE).cpu()  # (R,)
    th = _theta(dim, base)  # (h,)
    step = _arithmetic_step(r)
    if step is None:
        return _direct_cos_sum(r, th)
    return _progression_cos_sum(float(r[0]), step, r.numel(), th)


def _first_negative_in(th: torch.Tensor, start: int, stop: int, first_chunk: int = 64):
    """First integer m in [start, stop) with B_m < 0, else None.

    Chunks grow geometrically (x4 from ``first_chunk``) so that an early crossing
    costs little, and are capped by the progression block size.
    """
    cap = _progression_block_limit(th.numel())
    size = max(1, min(first_chunk, cap))
    m = start
    while m < stop:
        n = min(size, stop - m)
        B = _progression_cos_sum(float(m), 1.0, n, th)  # (n,)
        neg = torch.nonzero(B < 0)
        if neg.numel():
            return m + int(neg[0, 0])
        m += n
        size = min(cap, size * 4)
    return None


def first_negative_distance(dim: int, base: float, max_distance: int) -> int | None:
    """First integer m in [0, max_distance] with B_m = sum_i cos(m theta_i) < 0.

    Scans m = 0, 1, ... in growing chunks and stops at the first negative value,
    so an early crossing is cheap; ``None`` when B_m >= 0 throughout.

    Args:
        dim: rotary dim, even, 2 ... 4096.
        base: RoPE base, > 1.
        max_distance: integer, 0 ... 10^7.
    Returns:
        int or None.
    """
    dim = check_dim(dim)
    base = check_base(base)
    max_distance = check_int(max_distance, "max_distance", 0, MAX_DISTANCE)
    return _first_negative_in(_theta(dim, base), 0, max_distance + 1)


def _certified_pass(th: torch.Tensor, context: int) -> bool:
    """A sufficient condition for B_m >= 0 at every m in [0, context).

    A pair with (L-1) theta_i <= pi has cos(m theta_i) >= cos((L-1) theta_i) for
    all m <= L-1 (cos decreases on [0, pi]); any other pair contributes >= -1.
    If the sum of these lower bounds is >= 0, so is every B_m. O(d), no scan.
    """
    span = (context - 1) * th  # (h,)
    slow = span <= math.pi
    return float(torch.cos(span[slow]).sum()) - int((~slow).sum()) >= 0.0


class _BaseChecker:
    """Does B_m >= 0 hold for every m in [0, context)? Remembers the last negative m.

    Order of the checks for one base: (1) the O(d) certificate; (2) a window of
    2048 distances around the negative m found for the previous base checked,
    where neighbouring bases tend to fail too; (3) the rest of [0, L), the part
    after the window first (the first crossing moves outward as the base grows),
    each part scanned upward in growing chunks with early exit. A base passes
    when (1) holds or (2) and (3) find no negative B_m.
    """

    WINDOW = 2048

    def __init__(self, dim: int, context: int):
        self.dim, self.context = dim, context
        self.hint = None

    def passes(self, base: float) -> bool:
        th = _theta(self.dim, base)  # (h,)
        if _certified_pass(th, self.context):
            return True
        if self.hint is None:
            spans = [(0, self.context)]
        else:
            lo = max(0, self.hint - self.WINDOW // 2)
            hi = min(self.context, lo + self.WINDOW)
            spans = [(lo, hi), (hi, self.context), (0, lo)]
        for start, stop in spans:
            neg = _first_negative_in(th, start, stop)
            if neg is not None:
                self.hint = neg
                return False
        return True


def _check_context(dim: int, context) -> int:
    context = check_int(context, "context", 1, MAX_CONTEXT)
    if context * (dim // 2) > MAX_CONTEXT_WORK:
        fail("context", context,
             "at most {n} at dim = {dim} (context * dim/2 <= {work}, to bound the work)",
             n=MAX_CONTEXT_WORK // (dim // 2), dim=dim, work=MAX_CONTEXT_WORK)
    return context


def passing_bases(dim: int, context: int, bases) -> torch.Tensor:
    """Whether each base keeps B_m = sum_i cos(m theta_i) >= 0 for every integer m < L.

    The passing set is NOT an interval: above the smallest passing base some
    bases fail again (a negative dip of B_m moves inside [0, L) as the
    frequencies shift), so plot it rather than assume monotonicity.

    Each base is checked exactly (up to float64 rounding of B_m near 0) by an
    O(d) sufficient condition first, then a scan of m = 0 ... L-1 with early exit
    (see :func:`min_base_for_context`).

    Args:
        dim: rotary dim, even, 2 ... 4096.
        context: L, integer 1 ... 2^20, with L * dim/2 <= 2^26.
        bases: ``(N,)`` finite numbers > 1, N <= 4096.
    Returns:
        ``(N,)`` bool tensor.
    """
    dim = check_dim(dim)
    context = _check_context(dim, context)
    b = as_distances(bases, name="bases", max_abs=math.inf)  # (N,)
    if b.numel() > MAX_BASES:
        fail("bases", b, "at most {n} bases", n=MAX_BASES)
    if not bool((b > 1).all()):
        fail("bases", b, "numbers greater than 1")
    checker = _BaseChecker(dim, context)
    return torch.tensor([checker.passes(float(x)) for x in b.tolist()], dtype=torch.bool)


def min_base_for_context(dim: int, context: int) -> float | None:
    """Men et al. 2024: the smallest base with B_m = sum_i cos(m theta_i) >= 0 for all m < L.

    The condition is not monotone in the base (a base above a passing one can
    fail again; see :func:`passing_bases`), so no bisection: the search scans
    the geometric grid b_k = 1.01^k, k = 1, 2, ... upward from its first point
    above 1 (every base > 1 is a candidate; the grid starts below any answer)
    and returns the first b_k that passes. So the result is exact to 1%
    relative on that grid: b_(k-1) = result / 1.01 and every grid base below
    fails. A passing island narrower than 1% lying strictly between two grid
    points could be missed (such islands were not seen in testing).

    Each candidate is checked exactly over all integers 0 <= m < L, pruned:
    (1) an O(d) sufficient condition for passing (pairs with (L-1) theta_i <= pi
    contribute at least cos((L-1) theta_i), the others at least -1);
    (2) a 2048-distance window around the negative m found for the previous
    grid base (the first crossing moves slowly with the base, so most failing
    bases fail there); (3) the rest of [0, L), beyond the window first, in
    chunks growing x4 from 64 distances with early exit, B evaluated by the
    angle-addition matrix product of :func:`cos_sum`. Small bases fail within
    the first 64 distances.

    d = 2 has B_m = cos(m) < 0 at m = 2 for every base: no base passes for L >= 3.

    Args:
        dim: rotary dim, even, 2 ... 4096.
        context: L, integer 1 ... 2^20 (1,048,576), with L * dim/2 <= 2^26.
    Returns:
        the smallest passing grid base (a float), or ``None`` if no grid base
        up to 10^15 passes.
    """
    dim = check_dim(dim)
    context = _check_context(dim, context)
    checker = _BaseChecker(dim, context)
    k_max = int(math.log(MAX_SEARCH_BASE) / math.log(BASE_GRID_RATIO))
    for k in range(1, k_max + 1):
        base = BASE_GRID_RATIO ** k
        if checker.passes(base):
            return base
    return None
