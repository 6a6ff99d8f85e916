"""How attention scores behave with relative distance r = n - m.

Every function is chunked over distances so that 10^6 distances at large dim
run in bounded memory. Work done row by row (cos, sin, cumulative sums, a
matrix-vector product) goes in blocks of at most BLOCK_ELEMENTS, which stay in
the CPU's cache and reuse the same few hundred KiB; only the (trials x
distances) matrix products take whole CHUNK_ELEMENTS chunks, whose shapes fix
the float64 values they give.
"""

from __future__ import annotations

import math

import torch

from ..support._checks import as_distances, check_dim, check_int, check_layout, check_theta, fail
from .rotation import pair_views

# Largest (distances x pairs) block of a matrix product (random_score_stats, a batch of
# q in score_vs_distance): 2^19 float64 elements = 4 MiB per table. Keep it: the
# product's summation, hence the last bits of each score, depends on the chunk's shape.
CHUNK_ELEMENTS = 1 << 19
# Largest (distances x pairs) block of row-by-row work: 2^14 float64 elements = 128 KiB
# per work buffer. Each row's values do not depend on the block it is in, and the blocks
# split the chunks above (whole multiples of 64 rows), so the values are those of
# whole-chunk work. The few work buffers are made once per call and written with out=,
# so a call holds a few hundred KiB of temporaries (and one 4 MiB table for the matrix
# products) instead of five or six 4 MiB arrays per chunk: the same CPU with the app's
# malloc settings (ui/hardening.py), a lower peak of the server's memory (and with an
# mmap threshold fixed at 128 KiB, as the app had it, the page faults of those fresh
# arrays cost about as much as their cos and sin).
BLOCK_ELEMENTS = 1 << 14
BLOCK_ROWS = 64  # blocks are whole multiples of this many rows (but for a chunk's last)
# along of at least this size (|along_i| >= 2^-900) times a cos (|cos| >= 2^-62 for any
# float64 angle) cannot underflow to a zero product
_NONZERO = 2.0 ** -900


def _chunks(n: int, pairs: int):
    step = max(1, CHUNK_ELEMENTS // pairs)
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def _block_rows(pairs: int) -> int:
    return max(BLOCK_ROWS, BLOCK_ELEMENTS // pairs // BLOCK_ROWS * BLOCK_ROWS)


def _blocks(n: int, pairs: int):
    """Row blocks of :func:`_chunks`' chunks, at most :func:`_block_rows` rows each."""
    rows = _block_rows(pairs)
    for chunk in _chunks(n, pairs):
        for start in range(chunk.start, chunk.stop, rows):
            yield slice(start, min(chunk.stop, start + rows))


def _buffers(n: int, th: torch.Tensor, count: int) -> list[torch.Tensor]:
    """``count`` work buffers for :func:`_blocks` of n distances, each ``(b, d/2)`` float64."""
    rows = min(n, _block_rows(th.numel()))
    return [torch.empty(rows, th.numel(), dtype=torch.float64, device=th.device)
            for _ in range(count)]


def relative_upper_bound(distances, theta: torch.Tensor) -> torch.Tensor:
    """RoFormer's long-term-decay curve (section 3.4.3, figure 2).

    bound(r) = (1/(d/2)) * sum_{j=1}^{d/2} |S_j|,  S_j = sum_{k=0}^{j-1} e^{i r theta_k}.

    At r = 0 every |S_j| = j, so bound(0) = (d/2 + 1)/2.

    Args:
        distances: ``(R,)`` finite relative distances in tokens.
        theta: ``(dim/2,)`` frequencies.
    Returns:
        ``(R,)`` float64 tensor on theta's device.
    """
    theta = check_theta(theta)
    r = as_distances(distances, device=theta.device)  # (R,)
    th = theta.to(torch.float64)  # (d/2,)
    out = torch.empty(r.numel(), dtype=torch.float64, device=theta.device)  # (R,)
    _bound_into(out, r, th)
    return out


def _bound_into(out: torch.Tensor, r: torch.Tensor, th: torch.Tensor, with_cos=None) -> None:
    """out[j] = bound(r_j) (:func:`relative_upper_bound`) for float64 ``r`` ``(R,)`` and
    ``th`` ``(d/2,)``, block by block; ``with_cos(sl, cos)``, when given, is called with
    each block's cos(r theta) table ``(c, d/2)`` (valid during the call only), so that a
    score of the same angles needs no cos of its own."""
    work = _buffers(r.numel(), th, 3)  # (b, d/2) each
    for sl in _blocks(r.numel(), th.numel()):
        angle, sin, re = (w[:sl.stop - sl.start] for w in work)  # (c, d/2) each
        torch.outer(r[sl], th, out=angle)
        torch.sin(angle, out=sin)
        cos = torch.cos(angle, out=angle)
        if with_cos is not None:
            with_cos(sl, cos)
        torch.cumsum(cos, dim=-1, out=re)  # Re S_j
        im = torch.cumsum(sin, dim=-1, out=angle)  # Im S_j
        torch.mean(torch.hypot(re, im, out=sin), dim=-1, out=out[sl])  # mean_j |S_j|


def score_vs_distance(q: torch.Tensor, k: torch.Tensor, distances, theta: torch.Tensor, *,
                      layout: str = "interleaved") -> torch.Tensor:
    """Attention score <R_m q, R_(m+r) k> = q^T R_r k for each distance r.

    Independent of m. Per pair i with coordinates (a, b):
        q^T R_r k = sum_i (q_a k_a + q_b k_b) cos(r theta_i) + (q_b k_a - q_a k_b) sin(r theta_i)

    Args:
        q, k: ``(..., dim)`` with matching shapes (a batch of vectors is allowed).
        distances: ``(R,)`` finite distances r.
        theta: ``(dim/2,)`` frequencies.
    Returns:
        ``(..., R)`` tensor, float64 on theta's device.
    """
    theta = check_theta(theta)
    layout = check_layout(layout)
    for name, v in (("q", q), ("k", k)):
        if not isinstance(v, torch.Tensor) or not v.dtype.is_floating_point or v.ndim < 1:
            fail(name, v, "a floating-point tensor of shape (..., dim)")
        if v.shape[-1] != 2 * theta.numel():
            fail(f"{name}.shape[-1]", v.shape[-1], "2 * len(theta) = {width}",
                 width=2 * theta.numel())
    if q.shape != k.shape:
        fail("k.shape", tuple(k.shape), "equal to q.shape = {shape}", shape=str(tuple(q.shape)))
    r = as_distances(distances, device=theta.device)  # (R,)
    q64, k64 = q.to(theta.device, torch.float64), k.to(theta.device, torch.float64)
    q_a, q_b = pair_views(q64, layout)  # (..., d/2)
    k_a, k_b = pair_views(k64, layout)
    along = q_a * k_a + q_b * k_b  # (..., d/2): weight of cos
    across = q_b * k_a - q_a * k_b  # (..., d/2): weight of sin
    return _scores(along, across, r, theta.to(torch.float64))


def _scores(along: torch.Tensor, across: torch.Tensor, r: torch.Tensor, th: torch.Tensor,
            table: torch.Tensor | None = None) -> torch.Tensor:
    """along @ cos(r theta)^T + across @ sin(r theta)^T, chunked as described at the top.

    ``along``, ``across``: ``(..., d/2)`` float64; ``r``: ``(R,)``; ``th``: ``(d/2,)``;
    ``table``: room for the cos and sin tables of a batch of q, ``(c, d/2)`` float64 with
    c at least the largest chunk (made here when None). Returns ``(..., R)`` float64.

    When ``across`` is all zeros (q = k, e.g. all ones) and every |along_i| is at least
    2^-900, the sin term is left out: it is a sum of signed zeros, and adding it to the
    cos term, which is then a sum of non-zero products and so never -0, changes nothing
    (a NaN or an infinity stays one)."""
    out = torch.empty(*along.shape[:-1], r.numel(), dtype=torch.float64, device=th.device)
    with_sin = bool(across.any()) or not bool((along.abs() >= _NONZERO).all())
    if along.ndim == 1:  # a matrix-vector product: its values do not depend on the block
        work = _buffers(r.numel(), th, 2 if with_sin else 1)  # (b, d/2) each
        for sl in _blocks(r.numel(), th.numel()):
            angle = work[0][:sl.stop - sl.start]  # (c, d/2)
            torch.outer(r[sl], th, out=angle)
            if with_sin:
                sin = torch.sin(angle, out=work[1][:sl.stop - sl.start])
            score = along @ torch.cos(angle, out=angle).T  # (c,)
            out[sl] = score + across @ sin.T if with_sin else score
        return out
    # a matrix product on whole chunks, its cos and sin tables filled block by block
    # into one table reused by every chunk
    if table is None:
        table = _table(r.numel(), th)  # (c, d/2)
    angle = _buffers(r.numel(), th, 1)[0]  # (b, d/2)
    for sl in _chunks(r.numel(), th.numel()):
        out[..., sl] = _product(along, across, r[sl], th, with_sin, table, angle)
    return out


def _product(along: torch.Tensor, across: torch.Tensor, r: torch.Tensor, th: torch.Tensor,
             with_sin: bool, table: torch.Tensor, angle: torch.Tensor,
             score: torch.Tensor | None = None, extra: torch.Tensor | None = None
             ) -> torch.Tensor:
    """along @ cos(r theta)^T (+ across @ sin(r theta)^T when ``with_sin``) for the c
    distances ``r`` of one chunk, ``(..., c)``: the tables are filled into ``table``
    ``(>= c, d/2)`` through the work buffer ``angle``; ``score`` and ``extra``, when
    given, ``(N, c)`` contiguous, receive the two products (2-D ``along`` only)."""
    part = table[:r.numel()]  # (c, d/2)
    _fill(part, torch.cos, r, th, angle)
    score = torch.matmul(along, part.T, out=score)  # (..., c)
    if with_sin:
        _fill(part, torch.sin, r, th, angle)
        if extra is None:
            return score + across @ part.T
        torch.add(score, torch.matmul(across, part.T, out=extra), out=score)
    return score


def _table(n: int, th: torch.Tensor) -> torch.Tensor:
    """Room for the cos or sin table of the largest of :func:`_chunks`' chunks of n
    distances: ``(c, d/2)`` float64."""
    return torch.empty(min(n, max(1, CHUNK_ELEMENTS // th.numel())), th.numel(),
                       dtype=torch.float64, device=th.device)


def _fill(table: torch.Tensor, fn, r: torch.Tensor, th: torch.Tensor,
          angle: torch.Tensor) -> None:
    """table[j, i] = fn(r_j theta_i), block by block through the work buffer ``angle``;
    ``table``: ``(c, d/2)``, ``angle``: ``(b, d/2)``."""
    for sl in _blocks(r.numel(), th.numel()):
        fn(torch.outer(r[sl], th, out=angle[:sl.stop - sl.start]), out=table[sl])


MAX_TRIALS = 10_000


def random_score_stats(distances, theta: torch.Tensor, trials: int, seed: int, *,
                       layout: str = "interleaved") -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and standard deviation of q^T R_r k over ``trials`` Gaussian pairs.

    q, k ~ N(0, I) are drawn with a CPU generator seeded by ``seed`` (the same
    draw on every device). In expectation E[q^T R_r k] = 0 for every r (q, k
    independent), so the mean hovers around 0 and the spread is sqrt(d).

    Returns:
        ``(mean, std)``, each ``(R,)``; std uses the unbiased (n - 1) estimator
        and is 0 for a single trial.
    """
    theta = check_theta(theta)
    trials = check_int(trials, "trials", 1, MAX_TRIALS)
    seed = check_int(seed, "seed", 0, 2**31 - 1)
    r = as_distances(distances, device=theta.device)  # (R,)
    g = torch.Generator().manual_seed(seed)
    dim = 2 * theta.numel()
    q = torch.randn(trials, dim, generator=g, dtype=torch.float64).to(theta.device)  # (T, d)
    k = torch.randn(trials, dim, generator=g, dtype=torch.float64).to(theta.device)  # (T, d)
    q_a, q_b = pair_views(q, layout)  # (T, d/2)
    k_a, k_b = pair_views(k, layout)
    along = q_a * k_a + q_b * k_b  # (T, d/2): weight of cos
    across = q_b * k_a - q_a * k_b  # (T, d/2): weight of sin
    th = theta.to(torch.float64)  # (d/2,)
    mean = torch.empty(r.numel(), dtype=torch.float64, device=theta.device)  # (R,)
    std = torch.zeros_like(mean)
    with_sin = bool(across.any()) or not bool((along.abs() >= _NONZERO).all())
    table = _table(r.numel(), th)  # (c, d/2): the cos and sin tables of every chunk
    angle = _buffers(r.numel(), th, 1)[0]  # (b, d/2)
    # chunk distances so that the (T, c) score block stays within CHUNK_ELEMENTS; each
    # chunk is one chunk of _scores' too (its chunks are at least as long)
    step = max(1, CHUNK_ELEMENTS // max(theta.numel(), trials))
    products = torch.empty(2, trials * min(step, r.numel()), dtype=torch.float64,
                           device=theta.device)  # the (T, c) products, flat
    for sl in _chunks(r.numel(), max(theta.numel(), trials)):
        score, extra = products[:, :trials * (sl.stop - sl.start)].view(2, trials, -1)
        scores = _product(along, across, r[sl], th, with_sin, table, angle,
                          score, extra)  # (T, c)
        mean[sl] = scores.mean(dim=0)
        if trials > 1:
            std[sl] = scores.std(dim=0)
    return mean, std


MAX_GRID_DISTANCE = 10**9


def distance_grid(max_distance: int, axis: str = "linear", *, linear_points: int = 2_000,
                  log_points: int = 1_000) -> torch.Tensor:
    """Integer distances r [tokens] at which curves against distance are sampled.

    * ``"linear"``: every r = 0 ... max_distance when that is fewer than
      ``linear_points`` values, else ``linear_points`` evenly spaced values
      round(t * max_distance / (linear_points - 1)), t = 0 ... linear_points - 1;
    * ``"log"``: ``log_points`` values geometrically spaced from 1 to max_distance,
      rounded to integers, repeats dropped (so fewer near 1).

    Returns:
        ``(R,)`` int64 tensor, increasing, first 0 (linear) or 1 (log), last max_distance.
    """
    max_distance = check_int(max_distance, "max_distance", 1, MAX_GRID_DISTANCE)
    if axis not in ("linear", "log"):
        fail("axis", axis, "'linear' or 'log'")
    linear_points = check_int(linear_points, "linear_points", 2, 10**6)
    log_points = check_int(log_points, "log_points", 2, 10**6)
    if axis == "log":
        grid = torch.logspace(0.0, math.log10(max_distance), log_points, dtype=torch.float64)
    elif max_distance < linear_points:
        grid = torch.arange(max_distance + 1, dtype=torch.float64)
    else:
        grid = torch.linspace(0.0, float(max_distance), linear_points, dtype=torch.float64)
    grid = torch.unique(torch.round(grid)).to(torch.int64)
    grid[-1] = max_distance  # exact end point despite rounding of the log spacing
    return grid


def first_below(distances, values, threshold: float) -> tuple[int | None, int | None]:
    """Where a sampled curve first falls under ``threshold``.

    Returns:
        ``(before, at)``: the distance of the first sample with value < threshold
        (``at``) and that of the sample before it (``before``, None when the very
        first sample is already below); ``(None, None)`` when no sample is below.
        When ``at - before <= 1`` the crossing distance is exact.
    """
    r = as_distances(distances)
    v = torch.tensor(values, dtype=torch.float64).reshape(-1)
    if v.numel() != r.numel():
        fail("values", tuple(v.shape), "of length {length} (one value per distance)",
             length=r.numel())
    if isinstance(threshold, bool) or not math.isfinite(float(threshold)):
        fail("threshold", threshold, "a finite number")
    below = torch.nonzero(v < float(threshold)).flatten()
    if below.numel() == 0:
        return None, None
    k = int(below[0])
    at = int(r[k])
    return (None if k == 0 else int(r[k - 1])), at


def bound_plateau(dim: int) -> float:
    """The level RoFormer's bound hovers around at large distances:
    (1/(d/2)) sum_{j=1}^{d/2} sqrt(pi j)/2.

    For r much larger than the longest wavelength 2 pi/theta_(d/2-1), the phases
    r theta_k are effectively independent and uniform mod 2 pi, so S_j is a sum
    of j random unit vectors: E|S_j|^2 = j, |S_j| grows like sqrt(j) (its mean is
    close to the Rayleigh mean sqrt(pi j)/2), not like j as at r = 0. The bound,
    the mean of |S_j| over j, therefore stops decaying and scatters around this
    value (4.78 for d = 128) instead of going to 0.
    """
    dim = check_dim(dim)
    half = dim // 2
    return sum(math.sqrt(math.pi * j) / 2 for j in range(1, half + 1)) / half


def bound_prefactor(q: torch.Tensor, k: torch.Tensor, *, layout: str = "interleaved") -> float:
    """The prefactor max_i |h_(i+1) - h_i| of RoFormer's bound (eq. 35-37).

    Pair i of q and of k read as complex numbers, q_[i] = q_a + iota q_b, and
    h_i = q_[i] * conj(k_[i]) (the key's pair is conjugated), i = 0 ... d/2 - 1,
    with h_(d/2) = 0. Then q^T R_r k = Re sum_i h_i e^(-iota r theta_i) and, summing by
    parts, |q^T R_r k|
    <= (max_i |h_(i+1) - h_i|) sum_j |S_j|.

    Args:
        q, k: ``(dim,)`` vectors.
    Returns:
        the prefactor, a float.
    """
    layout = check_layout(layout)
    for name, v in (("q", q), ("k", k)):
        if not isinstance(v, torch.Tensor) or v.ndim != 1 or v.numel() < 2 or v.numel() % 2:
            fail(name, v, "a 1-D tensor of even length")
    if q.shape != k.shape:
        fail("k.shape", tuple(k.shape), "equal to q.shape = {shape}", shape=str(tuple(q.shape)))
    q_a, q_b = pair_views(q.to(torch.float64), layout)
    k_a, k_b = pair_views(k.to(torch.float64), layout)
    h = torch.complex(q_a, q_b) * torch.complex(k_a, -k_b)  # (d/2,)
    h = torch.cat([h, torch.zeros(1, dtype=h.dtype)])  # h_(d/2) = 0
    return float((h[1:] - h[:-1]).abs().max())
