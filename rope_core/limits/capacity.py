"""How far a base carries a context: critical dimension and the cos-sum bound.

Two results from the literature, both computed exactly here:

* Liu et al. 2023, "Scaling Laws of RoPE-based Extrapolation": pairs whose
  period 2*pi/theta_i fits inside the training length L see every angle in
  training; the others do not. Their count sets the *critical dimension*
  d_extra = 2 * ceil((d/2) * log_base(L / 2 pi)) and, for a model fine-tuned
  with a base beta LARGER than its training base, the extrapolation limit
  2 pi * beta^(d_extra / d) (for a smaller base the paper reports the opposite).
* Men et al. 2024, "Base of RoPE Bounds Context Length", Theorem 1: with iid
  components, a similar key k* = q + eps scores at least as high as a random key at distance m
  in expectation exactly when B_m = sum_i cos(m theta_i) >= 0 (a condition on an
  expectation, not a hard limit); the smallest base keeping B_m >= 0 for every
  m < L is a lower bound on the base for a context of L tokens.

Partial rotary models (only the first ``rotary_dim`` coordinates of a head are
rotated, theta_i = base^(-2i/rotary_dim), as Hugging Face does with
``dim = head_dim * partial_rotary_factor``): every function here takes ``dim``
to be the number of ROTATED coordinates; pass the rotary dim, not the head dim.
The unrotated coordinates contribute nothing to the angles, and to the
q = k = ones score only a constant that is not part of Men et al.'s B_m.

All loops over distances are chunked (as in :mod:`rope_core.rotary.decay`), so 10^6
distances at dim 1024 use a few tens of MB at most.
"""

from __future__ import annotations

import math

import torch

from ..rotary.frequencies import theta as _theta
from ..support._buffers import Buffers
from ..support._checks import (
    MAX_DIM,
    as_distances,
    check_base,
    check_dim,
    check_int,
    check_positive_float,
    fail,
)

# Largest (distances x pairs) block of float64 temporaries: 2^19 elements = 4 MiB each.
CHUNK_ELEMENTS = 1 << 19

MAX_DISTANCE = 10**7  # first_negative_distance scans at most this far
MAX_CONTEXT = 2**20  # min_base_for_context / passing_bases: 1,048,576 tokens
MAX_CONTEXT_WORK = 2**20 * 64  # context * dim/2: dim 128 at 2^20 tokens, dim 4096 at 32768
MAX_BASES = 4096  # passing_bases: bases per call
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
    dims. After fine-tuning with a base ``base`` larger than its training base,
    the longest of those periods is 2 pi base^(d_extra/d) (pair d_extra/2 taken as
    the boundary), the longest context whose angles stay inside what training
    covered. Liu et al. give it only for a larger base: for a smaller one (base
    500) every pair completes a period within the tuning length and the model extrapolates
    better (see rope_core.limits.breaks.liu_summary, which returns None there).

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


def _cos_sin_table(t: torch.Tensor, th: torch.Tensor, sign: float, buf: Buffers,
                   name: str) -> torch.Tensor:
    """[cos(t theta) | sign * sin(t theta)] (k, 2h) for t (k,), theta (h,), in ``buf``'s
    block ``name`` (each half computed whole, then copied in: the values of
    ``torch.cat([torch.cos(x), sign * torch.sin(x)], dim=1)``)."""
    k, h = t.numel(), th.numel()
    angle = torch.outer(t, th, out=buf.get("angle", k, h))  # (k, h)
    trig = buf.get("trig", k, h)
    table = buf.get(name, k, 2 * h)  # (k, 2h)
    table[:, :h].copy_(torch.cos(angle, out=trig))
    table[:, h:].copy_(torch.sin(angle, out=trig))
    if sign < 0:
        table[:, h:].neg_()
    return table


def _progression_cos_sum(a: float, s: float, n: int, th: torch.Tensor,
                         buf: Buffers | None = None) -> torch.Tensor:
    """B at the n distances a + s*t, t = 0 ... n-1, by the angle-addition formula.

    Write t = w*u + j (j < w): with x_u = (a + s w u) theta_i and y_j = s j theta_i,
        B = sum_i cos(x_u + y_j) = [cos x | -sin x] (U, 2h) @ [cos y | sin y]^T (2h, w)
    so only (U + w) * h cosines are evaluated (w ~ sqrt n) and the rest is one
    matrix product. Each factor's angle is rounded once in float64, as in the
    direct form, so the accuracy is that of summing d/2 directly computed cosines.
    ``buf``: blocks reused across calls (the right-hand table [cos y | sin y] depends
    only on s, w and theta, and is kept there too).
    """
    out = torch.empty(n, dtype=torch.float64)  # (n,)
    h = th.numel()
    buf = Buffers() if buf is None else buf
    block = _progression_block_limit(h)
    for start in range(0, n, block):
        c = min(block, n - start)
        w = max(1, math.isqrt(c - 1) + 1)  # ceil(sqrt(c))
        U = -(-c // w)  # ceil(c / w)
        right = buf.kept.get((s, w))
        if right is None:
            right = _cos_sin_table(s * torch.arange(w, dtype=torch.float64), th, 1.0, buf,
                                   f"right{w}")  # (w, 2h)
            buf.kept[s, w] = right
        left = _cos_sin_table(a + s * (start + w * torch.arange(U, dtype=torch.float64)), th,
                              -1.0, buf, "left")  # (U, 2h)
        product = torch.mm(left, right.t(), out=buf.get("product", U, w))  # (U, w)
        out[start:start + c] = product.reshape(-1)[:c]  # (U*w,) -> (c,)
    return out


def _arithmetic_step(r: torch.Tensor):
    """The step s if r[t] == r[0] + s*t exactly for every t (and n >= 3), else None."""
    n = r.numel()
    if n < 3:
        return None
    s = float(r[1] - r[0])
    t = torch.arange(n, dtype=torch.float64)
    return s if bool((r == r[0] + s * t).all()) else None


def _anchored_cos_sum(r: torch.Tensor, th: torch.Tensor) -> torch.Tensor | None:
    """B at increasing distances close to a progression, by angle addition; None if
    that would not be cheaper than the direct form.

    A sampled curve such as m_t = round(t max / (P - 1)) is no exact progression,
    but in blocks of w ~ sqrt(R) consecutive distances, m = a_u + o with a_u the
    block's first distance takes few distinct offsets o (at most three per
    position in the block for a rounded progression). With
    x_u = a_u theta_i and y_o = o theta_i,
        B = [cos x | -sin x] (U, 2h) @ [cos y | sin y]^T (2h, K),
    read at each distance's (block, offset): (U + K) * h cosines and sines instead
    of R * h. Each factor's angle is rounded once in float64, as in
    :func:`_progression_cos_sum`.
    """
    R = r.numel()
    block = _progression_block_limit(th.numel())
    out = torch.empty(R, dtype=torch.float64)  # (R,)
    buf = Buffers()
    for start in range(0, R, block):
        part = r[start:start + block]  # (c,)
        c = part.numel()
        w = max(1, math.isqrt(c - 1) + 1)  # ceil(sqrt(c))
        which = torch.arange(c) // w  # (c,) block of each distance
        anchors = part[::w]  # (U,)
        offsets, at = torch.unique(part - anchors[which], return_inverse=True)  # (K,), (c,)
        if offsets.numel() > 4 * w:
            return None
        left = _cos_sin_table(anchors, th, -1.0, buf, "left")  # (U, 2h)
        right = _cos_sin_table(offsets, th, 1.0, buf, "right")  # (K, 2h)
        product = torch.mm(left, right.t(), out=buf.get("product", left.shape[0],
                                                         right.shape[0]))  # (U, K)
        out[start:start + c] = product[which, at]  # (c,)
    return out


MAX_COS_SUM_DISTANCE = 1e9


def cos_sum(dim: int, base: float, distances) -> torch.Tensor:
    """Men et al. 2024's B_m = sum_{i=0}^{d/2-1} cos(m theta_i), theta_i = base^(-2i/d).

    For q = k = ones the RoPE score is q^T R_m k = sum_i 2 cos(m theta_i) = 2 B_m,
    so B_m is half the all-ones score; B_0 = d/2.

    When the distances are an exact arithmetic progression (e.g. ``arange``),
    B is evaluated by the angle-addition formula as a matrix product (about
    sqrt(R) * d/2 cosines instead of R * d/2); increasing distances close to one
    (a sampled curve, rounded to integers) likewise, by blocks
    (:func:`_anchored_cos_sum`); otherwise directly. Both are
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
    if step is not None:
        return _progression_cos_sum(float(r[0]), step, r.numel(), th)
    if r.numel() >= 3 and bool((r[1:] > r[:-1]).all()):
        out = _anchored_cos_sum(r, th)
        if out is not None:
            return out
    return _direct_cos_sum(r, th)


F64_UNIT = 2.0**-53  # float64 unit roundoff
SCREEN_ELEMENTS = 1 << 18  # chunks of at least this many (distance x pair) terms are screened


def _progression_f32_bound(h: int) -> float:
    """Largest |B32 - B64| between :func:`_progression_min32`'s float32 values and
    :func:`_progression_cos_sum`'s (the same decomposition, the same float64 tables).

    Each table entry t (a cos or sin of a float64 angle, |t| <= 1) is rounded to
    float32: |t32 - t| <= e = u32 (u32 = 2^-24). A product of two: off by at most
    2e + e^2. The float32 matrix product sums n = 2h products of magnitude <= (1 + e)^2
    in some order (blocked, with or without FMA): off by at most
    gamma_n n (1 + e)^2, gamma_n = n u32 / (1 - n u32) (Higham, Accuracy and Stability
    of Numerical Algorithms, 2nd ed., eq. 3.5). The float64 product is off from the exact
    sum of the same products by at most gamma_n(u64) n, u64 = 2^-53.

        bound = n (2e + e^2) + gamma_n(u32) n (1 + e)^2 + gamma_n(u64) n

    h = 64: 1e-3; h = 512: 0.063.
    """
    n = 2 * h
    e = F32_UNIT
    gamma32 = n * F32_UNIT / (1 - n * F32_UNIT)
    gamma64 = n * F64_UNIT / (1 - n * F64_UNIT)
    return n * (2 * e + e * e) + gamma32 * n * (1 + e) ** 2 + gamma64 * n


def _cos_sin_table32(t: torch.Tensor, th: torch.Tensor, sign: float, buf: Buffers,
                     name: str) -> torch.Tensor:
    """:func:`_cos_sin_table`'s float64 values rounded to float32: (k, 2h) float32."""
    k, h = t.numel(), th.numel()
    angle = torch.outer(t, th, out=buf.get("angle", k, h))  # (k, h)
    trig = buf.get("trig", k, h)
    table = buf.get(name, k, 2 * h, torch.float32)  # (k, 2h)
    table[:, :h].copy_(torch.cos(angle, out=trig))
    table[:, h:].copy_(torch.sin(angle, out=trig))
    if sign < 0:
        table[:, h:].neg_()
    return table


def _progression_min32(a: float, s: float, n: int, th: torch.Tensor, buf: Buffers) -> float:
    """The smallest of :func:`_progression_cos_sum`'s n values computed with its float64
    tables rounded to float32 and float32 matrix products (about twice as fast):
    within :func:`_progression_f32_bound` of the float64 minimum."""
    h = th.numel()
    block = _progression_block_limit(h)
    low = math.inf
    for start in range(0, n, block):
        c = min(block, n - start)
        w = max(1, math.isqrt(c - 1) + 1)  # ceil(sqrt(c))
        U = -(-c // w)  # ceil(c / w)
        right = buf.kept.get(("float32", s, w))
        if right is None:
            right = buf.kept["float32", s, w] = _cos_sin_table32(
                s * torch.arange(w, dtype=torch.float64), th, 1.0, buf, f"right32_{w}")
        left = _cos_sin_table32(a + s * (start + w * torch.arange(U, dtype=torch.float64)),
                                th, -1.0, buf, "left32")  # (U, 2h)
        product = torch.mm(left, right.t(), out=buf.get("product32", U, w, torch.float32))
        low = min(low, float(product.reshape(-1)[:c].min()))
    return low


def _first_negative_in(th: torch.Tensor, start: int, stop: int, first_chunk: int = 64,
                       screen: bool = True):
    """First integer m in [start, stop) with B_m < 0, else None.

    Chunks grow geometrically (x4 from ``first_chunk``) so that an early crossing
    costs little, and are capped by the progression block size. A large chunk is
    first screened in float32 (``screen``): when every B32 is at least
    :func:`_progression_f32_bound` the float64 values are all >= 0 and the chunk is
    passed; otherwise it is evaluated in float64 as it would be unscreened, so the
    answer is the same either way (the float64 sign of :func:`_progression_cos_sum`).
    """
    h = th.numel()
    cap = _progression_block_limit(h)
    tol = _progression_f32_bound(h)
    size = max(1, min(first_chunk, cap))
    m = start
    buf = Buffers()  # blocks and right-hand tables shared by the chunks
    while m < stop:
        n = min(size, stop - m)
        if screen and n * h >= SCREEN_ELEMENTS and \
                _progression_min32(float(m), 1.0, n, th, buf) >= tol:
            m += n  # every float64 B_m of the chunk is >= 0
            size = min(cap, size * 4)
            continue
        B = _progression_cos_sum(float(m), 1.0, n, th, buf)  # (n,)
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


# ---------------------------------------------------------------- the base search

BASE_GRID_RATIO = 1.001  # the search grid b_k = 1.001^k (0.1% relative)
LN_GRID = math.log(BASE_GRID_RATIO)
F32_UNIT = 2.0**-24  # float32 unit roundoff
SCAN_ELEMENTS = 1 << 21  # largest (bases x distances) or (bases x factors x 2h) block of a scan
GRID_BLOCK = 64  # grid bases checked together
PROOF_STEP = 4  # the proven walk hands over to the grid once its steps are < 4 grid steps


F32_TRIG_ERROR = 1e-6  # |cos32(fl32(x mod 2pi)) - cos x|: 3.8e-7 from the cast, <= 2 ulp kernel


def f32_error_bound(h: int) -> float:
    """Largest |B32 - B| of the float32 evaluation of B_m with h pairs (:func:`_block_B32`).

    B_m = sum over n = 2h products l_k r_k of float32 factors (torch.bmm), u = 2^-24:

    * r = cos or sin of j theta_i and the cos/sin of the two other levels: the angle in
      float64 (|angle| < 2^21 rad, error < 1e-9), reduced mod 2 pi in float64, cast to
      float32 (|error| <= 2 pi u = 3.8e-7) and evaluated in float32 (SLEEF's 1-ulp
      kernels, 1.2e-7): |r~ - r| <= e_r = F32_TRIG_ERROR = 1e-6;
    * l = Re or Im of z(a + 4096 t) z(64 u), one float32 complex product of two such
      factors: |l~ - l| <= 2 (2 e_r + e_r^2) + 3u <= e_l = 4.5e-6;
    * per product |l~ r~ - l r| <= e_l + e_r + e_l e_r, and the float32 sum of n terms,
      in any order or blocking, with or without FMA, is off by at most
      gamma_n sum |l~ r~| <= gamma_n n (1 + e_l)(1 + e_r), gamma_n = n u / (1 - n u)
      (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5).

        bound = n (e_l + e_r + e_l e_r) + gamma_n n (1 + e_l)(1 + e_r),   n = 2h

    h = 64: 1.7e-3; h = 512: 0.068. Values of B32 within the bound of 0 are
    recomputed directly in float64, so every sign the search uses is that of the
    float64 sum (as :func:`cos_sum`); a test checks the bound on random cases.
    """
    u, n = F32_UNIT, 2 * h
    e_r = F32_TRIG_ERROR
    e_l = 2 * (2 * e_r + e_r * e_r) + 3 * u
    gamma = n * u / (1 - n * u)
    return n * (e_l + e_r + e_l * e_r) + gamma * n * (1 + e_l) * (1 + e_r)


def _grid_thetas(dim: int, bases: torch.Tensor) -> torch.Tensor:
    """theta_i = b^(-2i/d) per base, as :func:`~rope_core.rotary.frequencies.theta`.
    (nb,) -> (nb, h)."""
    i = torch.arange(dim // 2, dtype=torch.float64)  # (h,)
    return torch.pow(bases[:, None], -2.0 * i / dim)  # (nb, h)


BLOCK = 64  # distances m = a + 4096 t + 64 u + j, u, j < 64


def _cos_sin32(angle: torch.Tensor):
    """float32 cos and sin of float64 angles, reduced mod 2 pi in float64 first."""
    r = torch.remainder(angle, 2 * math.pi).to(torch.float32)
    return torch.cos(r), torch.sin(r)


def _powers(c: torch.Tensor, s: torch.Tensor, count: int):
    """cos and sin of k * angle for k = 0 ... count-1 (count a power of 2), from
    c = cos(angle), s = sin(angle) (nb, h) by doubling in float64: the table holds
    z^0 ... z^(2^r - 1), and z^(2^r) times it gives the next half. -> 2 x (nb, count, h)."""
    C, S = torch.ones_like(c)[:, None], torch.zeros_like(s)[:, None]  # (nb, 1, h)
    pc, ps = c[:, None], s[:, None]  # z^(2^r)
    while C.shape[1] < count:
        C, S = torch.cat([C, C * pc - S * ps], dim=1), torch.cat([S, C * ps + S * pc], dim=1)
        pc, ps = pc * pc - ps * ps, 2 * pc * ps
    return C, S


def _tables(th: torch.Tensor):
    """Per base: right (nb, 2h, 64) = [cos | sin](j theta)^T, and cos, sin of 64 u theta
    (nb, 64, h), all float32 (float64 powers of z(1) and z(64), rounded once)."""
    c1, s1 = torch.cos(th), torch.sin(th)  # (nb, h)
    C, S = _powers(c1, s1, BLOCK)  # (nb, 64, h)
    right = torch.cat([C, S], dim=2).transpose(1, 2).to(torch.float32)  # (nb, 2h, 64)
    C64, S64 = _powers(torch.cos(BLOCK * th), torch.sin(BLOCK * th), BLOCK)  # (nb, 64, h)
    return right, (C64.to(torch.float32), S64.to(torch.float32))


def _block_B32(th: torch.Tensor, a: int, n: int, tables=None) -> torch.Tensor:
    """B at distances a ... a+n-1 for each row of th (nb, h), float32, by angle addition.

    Write m = a + 4096 t + 64 u + j (t < T, u < 64, j < 64). With z(m) = exp(i m theta)
    per pair, z(m) = z(a + 4096 t) z(64 u) z(j), so
        B[t, u, j] = Re sum_i Z[t, u, i] z_i(j),  Z = z(a + 4096 t) z(64 u),
    one batched matrix product [Re Z | -Im Z] (64T, 2h) @ [cos | sin](j theta)^T (2h, 64).
    Only (128 + T) h sines and cosines per base, in float32 after a float64 reduction
    mod 2 pi; the error is bounded by :func:`f32_error_bound`. ``tables``: the
    :func:`_tables` of ``th``, reused across chunks. -> (nb, n) float32.
    """
    nb, h = th.shape
    T = -(-n // (BLOCK * BLOCK))  # ceil(n / 4096)
    right, (mc, ms) = tables if tables is not None else _tables(th)
    t = a + BLOCK * BLOCK * torch.arange(T, dtype=torch.float64)  # (T,)
    oc, os_ = _cos_sin32(t[None, :, None] * th[:, None, :])  # (nb, T, h)
    oc, os_ = oc[:, :, None, :], os_[:, :, None, :]  # (nb, T, 1, h)
    mc, ms = mc[:, None], ms[:, None]  # (nb, 1, 64, h)
    left = torch.cat([oc * mc - os_ * ms, -(oc * ms + os_ * mc)], dim=3)  # (nb, T, 64, 2h)
    out = torch.bmm(left.reshape(nb, T * BLOCK, 2 * h), right)  # (nb, 64T, 64)
    return out.reshape(nb, -1)[:, :n]  # (nb, n)


def _block_B(th: torch.Tensor, a: int, n: int, tol: float, tables=None):
    """B at a ... a+n-1 for each row of th: (value (nb, n) float64, error (nb, n) float64).

    float32 values whose |B32| < tol (:func:`f32_error_bound`) are recomputed directly in
    float64 (error 2h * 1e-9); the others keep error tol, and their sign is certain.
    """
    est = _block_B32(th, a, n, tables).to(torch.float64)  # (nb, n)
    err = torch.full_like(est, tol)
    rows, cols = torch.nonzero(est.abs() < tol, as_tuple=True)
    step = max(1, CHUNK_ELEMENTS // th.shape[1])
    for s0 in range(0, rows.numel(), step):
        r, c = rows[s0:s0 + step], cols[s0:s0 + step]
        m = (a + c).to(torch.float64)  # (k,)
        est[r, c] = torch.cos(m[:, None] * th[r]).sum(dim=1)  # (k, h) -> (k,)
        err[r, c] = 2 * th.shape[1] * 1e-9
    return est, err


def _scan(th: torch.Tensor, stop: int, first_chunk: int = BLOCK * BLOCK):
    """For each row of th (nb, h): does B_m >= 0 hold for every integer m in [0, stop)?

    Distances are scanned upward in chunks growing x4, every base of the batch at once;
    a base leaves the batch at its first negative B_m (early exit).

    Returns three (nb,) tensors:
        first: the first m with B_m < 0, -1 when none (the base passes);
        fall: for a failing base, the largest -(B_m + err_m) / m over the negative m of
              the chunk holding the first one (how far B_m is below 0 per unit of m; > 0);
        rise: for a passing base, min over 0 < m < stop of (B_m - err_m) / m (inf if stop <= 1).
    """
    nb, h = th.shape
    tol = f32_error_bound(h)
    first = torch.full((nb,), -1, dtype=torch.int64)
    fall = torch.zeros(nb, dtype=torch.float64)
    rise = torch.full((nb,), math.inf, dtype=torch.float64)
    active = torch.arange(nb)
    right, (mc, ms) = _tables(th)
    m, size = 0, first_chunk
    while m < stop and active.numel():
        n = min(size, stop - m)
        rows = max(1, SCAN_ELEMENTS // max(n, 2 * h * (n // BLOCK + BLOCK)))
        dist = m + torch.arange(n, dtype=torch.float64)  # (n,)
        inv = torch.where(dist > 0, 1.0 / dist.clamp(min=1.0), torch.zeros(()))  # (n,)
        for s0 in range(0, active.numel(), rows):
            ids = active[s0:s0 + rows]
            est, err = _block_B(th[ids], m, n, tol, (right[ids], (mc[ids], ms[ids])))
            neg = est < 0
            has = neg.any(dim=1)  # (k,)
            if bool(has.any()):
                first[ids[has]] = m + neg[has].to(torch.int8).argmax(dim=1)
                upper = (est + err)[has]
                ratio = torch.where(neg[has] & (upper < 0), -upper * inv, torch.zeros(()))
                fall[ids[has]] = ratio.max(dim=1).values
            ok = ~has
            if bool(ok.any()):
                low = torch.where(inv > 0, (est - err)[ok] * inv, torch.full((), math.inf))
                rise[ids[ok]] = torch.minimum(rise[ids[ok]], low.min(dim=1).values)
        active = active[first[active] < 0]
        m += n
        size = min(size * 4, 1 << 20)
    return first, fall, rise


def _slope(th: torch.Tensor) -> torch.Tensor:
    """S = sum_i theta_i * 2i/d per row: |dB_m / d ln b| <= m S for every base >= this one."""
    h = th.shape[1]
    return (th * (torch.arange(h, dtype=torch.float64) / h)).sum(dim=1)  # (nb,)


def _certified_pass(th: torch.Tensor, context: int) -> bool:
    """A sufficient condition for B_m >= 0 at every m in [0, context), monotone in the base.

    A pair with (L-1) theta_i <= pi has cos(m theta_i) >= cos((L-1) theta_i) for
    all m <= L-1 (cos decreases on [0, pi]); any other pair contributes >= -1.
    If the sum of these lower bounds is >= 0, so is every B_m. O(d), no scan. Each
    pair's bound can only rise when theta_i falls, so once a base passes this test
    every larger base does too.
    """
    span = (context - 1) * th  # (h,)
    slow = span <= math.pi
    return float(torch.cos(span[slow]).sum()) - int((~slow).sum()) >= 0.0


def _certified_base(dim: int, context: int) -> float:
    """The smallest base (to 1e-12 relative) that passes :func:`_certified_pass`."""
    lo, hi = 1.0, MAX_SEARCH_BASE
    if not _certified_pass(_theta(dim, hi), context):
        return math.inf
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if _certified_pass(_theta(dim, mid), context):
            hi = mid
        else:
            lo = mid
        if hi / lo < 1 + 1e-12:
            break
    return hi


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

    Every base is checked over all m = 0 ... L-1 (float32 matrix products, values
    within :func:`f32_error_bound` of 0 recomputed in float64), the batch at once,
    each base leaving at its first negative B_m.

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
    first, _, _ = _scan(_grid_thetas(dim, b.cpu()), context)
    return first < 0


def _runs(ks: list, ok: list) -> list:
    """Passing runs of the grid: [(k_first, k_last), ...]. Grid bases skipped between two
    checked ones were certified passing, so a run ends just below the next failing one."""
    out, start = [], None
    for k, good in zip(ks, ok):
        if good and start is None:
            start = k
        elif not good and start is not None:
            out.append((start, k - 1))
            start = None
    if start is not None:
        out.append((start, ks[-1]))
    return out


def base_search(dim: int, context: int) -> dict:
    """Men et al. 2024's bound: which bases keep B_m = sum_i cos(m theta_i) >= 0 for all m < L.

    The passing set is not an interval: near its lower end it is a string of narrow
    islands (at d = 128, L = 2048: 11,588-11,649, 12,419-12,451, ... each well
    under 1% wide). The search returns the smallest passing base, the threshold
    above which every base passes, and the islands between them, in three stages:

    1. **A proof walk from b = 1.001 up.** At a failing base b with B_m(b) < 0,
       every base b' in [b, b e^t) fails too, t = -B_m(b) / (m S(b)),
       S(b) = sum_i theta_i(b) 2i/d: |dB_m / d ln b| = |sum_i sin(m theta_i) m theta_i 2i/d|
       <= m S(b') <= m S(b) for b' >= b (theta_i falls as the base grows). The walk
       jumps by t (chosen over the negative m of the first failing chunk, float32
       error included) and so proves that every base it passes over fails, not only
       grid bases, until its jumps are shorter than 4 grid steps.
    2. **The grid b_k = 1.001^k (0.1% apart) from there up** to the first passing
       base, ``smallest``: every grid base below it fails, every base below the
       walk's end fails (proven), so the true smallest passing base lies in
       (smallest / 1.001, smallest] unless an island narrower than 0.1% lies
       between two failing grid bases (then the true smallest base is lower). Such
       islands are plausible: at d = 128 and L >= 4,096 some islands found are a
       single grid base wide.
    3. **Up the grid to the threshold.** A passing base b with
       rho = min_{0<m<L} B_m(b) / m certifies every base in [b, b e^(rho/S(b))]
       (same slope bound), so the grid is skipped there; the scan ends at the first
       base passing the O(d) sufficient condition of :func:`_certified_pass`, which
       is monotone in the base (every larger base passes). ``threshold`` is the grid
       base after the last failing grid base.

    Each check scans m = 0 ... L-1 in float32 matrix products (angle addition,
    batched over 16 bases, early exit at the first negative B_m); values within
    :func:`f32_error_bound` (0.001 at d = 128) of 0 are recomputed in float64.

    d = 2 has B_m = cos(m) < 0 at m = 2 for every base (S = 0: the walk proves it
    at once): no base passes for L >= 3. For L <= 2 every base > 1 passes.

    Args:
        dim: rotary dim, even, 2 ... 4096.
        context: L, integer 1 ... 2^20, with L * dim/2 <= 2^26.
    Returns:
        dict: ``smallest`` (grid base or None when none up to 10^15 passes),
        ``threshold`` (grid base; every GRID base >= it passes, and every base from
        ``certified_above`` on; None with smallest),
        ``islands`` (list of (first, last) passing grid bases from smallest up to
        the last one below the threshold's failing neighbour), ``proven_below``
        (every base in (1.001, proven_below) fails, by stage 1), ``certified_above``
        (the base from which the O(d) condition holds), ``grid_ratio`` (1.001),
        ``checked`` (bases scanned).
    """
    dim = check_dim(dim)
    context = _check_context(dim, context)
    cert = _certified_base(dim, context)
    out = {"dim": dim, "context": context, "smallest": None, "threshold": None, "islands": [],
           "proven_below": BASE_GRID_RATIO, "certified_above": cert,
           "grid_ratio": BASE_GRID_RATIO, "checked": 0}
    x_max = math.log(min(MAX_SEARCH_BASE, cert * BASE_GRID_RATIO))
    # -------- 1. the proof walk
    x = LN_GRID
    while x <= x_max:
        th = _grid_thetas(dim, torch.tensor([math.exp(x)], dtype=torch.float64))  # (1, h)
        first, fall, _ = _scan(th, context)
        out["checked"] += 1
        if first[0] < 0:
            break
        slope = float(_slope(th)[0])
        step = math.inf if slope == 0 else float(fall[0]) / slope
        if step == math.inf:  # d = 2: B_m does not depend on the base
            out["proven_below"] = math.inf
            return out
        if step < PROOF_STEP * LN_GRID:
            break
        x += step
        out["proven_below"] = math.exp(x)
    if x > x_max:
        out["proven_below"] = math.exp(x_max)
        return out
    # -------- 2. and 3. the grid from the walk's end to the certificate
    out["proven_below"] = math.exp(x)
    k = max(1, math.floor(x / LN_GRID))
    k_end = math.ceil(x_max / LN_GRID)
    ks, ok = [], []
    k_small = last_fail = None
    while k <= k_end:
        block = torch.arange(k, min(k + GRID_BLOCK, k_end + 1), dtype=torch.float64)  # (G,)
        th = _grid_thetas(dim, torch.exp(block * LN_GRID))  # (G, h)
        first, _, rise = _scan(th, context)
        out["checked"] += block.numel()
        passes = (first < 0).tolist()
        for kj, good in zip(block.long().tolist(), passes):
            ks.append(kj)
            ok.append(good)
            if k_small is None and good:
                k_small = kj
            elif k_small is not None and not good:
                last_fail = kj
        k = int(block[-1]) + 1
        if k_small is not None and passes[-1]:
            # a passing base b certifies every base in [b, b e^(rise / S)]: skip those
            j = len(passes) - 1
            while j > 0 and passes[j - 1] and int(block[j - 1]) >= k_small:
                j -= 1
            reach = block[j:] * LN_GRID + rise[j:].clamp(min=0) / _slope(th[j:])  # (r,)
            far = float(reach.max())  # inf for L <= 2 (no m > 0 to check)
            k = k_end + 1 if not math.isfinite(far) else max(k, math.floor(far / LN_GRID) + 1)
            if _certified_pass(th[-1], context):
                break
    if k_small is None:
        return out
    k_t = k_small if last_fail is None else last_fail + 1
    out["smallest"] = math.exp(k_small * LN_GRID)
    out["threshold"] = math.exp(k_t * LN_GRID)
    out["islands"] = [(math.exp(a * LN_GRID), math.exp(b * LN_GRID))
                      for a, b in _runs(ks, ok) if k_small <= a < k_t]
    return out


def min_base_for_context(dim: int, context: int) -> float | None:
    """Men et al. 2024: the smallest base with B_m = sum_i cos(m theta_i) >= 0 for all m < L.

    ``base_search(dim, context)["smallest"]``: the first grid base 1.001^k that
    passes; every base below the search's proof walk fails (proven) and every grid
    base between fails (see :func:`base_search` for how far that goes).

    Args:
        dim: rotary dim, even, 2 ... 4096.
        context: L, integer 1 ... 2^20 (1,048,576), with L * dim/2 <= 2^26.
    Returns:
        the smallest passing grid base (a float), or ``None`` if no base up to 10^15 passes.
    """
    return base_search(dim, context)["smallest"]


def cos_sum_profile(dim: int, base: float, context: int) -> dict:
    """How negative B_m = sum_i cos(m theta_i) gets over every integer 0 <= m < L, and how often.

    All L values are evaluated (float32 matrix products, values within
    :func:`f32_error_bound` of 0 recomputed in float64, so every sign is that of the
    float64 sum); the minimum is refined in float64.

    Args:
        dim: rotary dim, even, 2 ... 4096. base: > 1.
        context: L, integer 1 ... 2^20, with L * dim/2 <= 2^26.
    Returns:
        dict: ``min`` (min_m B_m, float64), ``argmin`` (its m), ``negative`` (how many
        m < L have B_m < 0), ``first_negative`` (the first such m, or None),
        ``B0`` (= d/2).
    """
    dim = check_dim(dim)
    base = check_base(base)
    context = _check_context(dim, context)
    return _profile(_grid_thetas(dim, torch.tensor([base], dtype=torch.float64)), context)


def cos_sum_profile_of(theta, context: int) -> dict:
    """:func:`cos_sum_profile` for any spectrum: B_m = sum_i cos(m theta_i) with the given
    theta_i (a scaled spectrum, Llama 3.1's llama3 one, or a partial one) over m < L.

    Args:
        theta: ``(h,)`` positive finite frequencies, 1 ... 2048 of them.
        context: L, integer 1 ... 2^20, with L * h <= 2^26.
    Returns:
        the dict of :func:`cos_sum_profile` (``B0`` = h).
    """
    th = torch.as_tensor(theta, dtype=torch.float64).flatten()  # (h,)
    if not 1 <= th.numel() <= MAX_DIM // 2 or not bool(torch.isfinite(th).all()) or \
            bool((th <= 0).any()):
        fail("theta", theta, "1 to {n} positive finite frequencies", n=MAX_DIM // 2)
    context = _check_context(2 * th.numel(), context)
    return _profile(th[None, :], context)


def _profile(th: torch.Tensor, context: int) -> dict:
    """:func:`cos_sum_profile`'s scan of the spectrum th (1, h) over m < context."""
    h = th.shape[1]
    tol = f32_error_bound(h)
    tables = _tables(th)
    lowest, where, count, first = math.inf, 0, 0, None
    chunk = BLOCK * BLOCK * max(1, SCAN_ELEMENTS // (2 * h * BLOCK))  # left (64 T, 2h) bounded
    for a in range(0, context, chunk):
        n = min(chunk, context - a)
        est, _ = _block_B(th, a, n, tol, tables)  # (1, n)
        neg = est[0] < 0
        k = int(neg.sum())
        if k and first is None:
            first = a + int(torch.nonzero(neg)[0, 0])
        count += k
        v, i = est[0].min(dim=0)
        if float(v) < lowest:
            lowest, where = float(v), a + int(i)
    exact = float(torch.cos(where * th[0]).sum())  # float64, direct
    return {"min": exact, "argmin": where, "negative": count, "first_negative": first,
            "B0": float(h)}
