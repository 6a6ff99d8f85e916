"""The alternatives to RoPE, on RoPE's axes: ALiBi, p-RoPE, xPos, NoPE and the
additive sinusoidal encoding.

Notation used throughout: the query sits at position m, the key at position n,
and the relative distance is r = m - n (r >= 0: the key is r tokens back; a
causal head only ever sees r >= 0). Pair i of a head of dimension d has RoPE's
frequency theta_i = base^(-2i/d).

* **ALiBi** (Press et al. 2022): no rotation; head h adds the bias
  -slope_h * (m - n) to its logit q.k/sqrt(d). :func:`alibi_slopes` follows the
  reference code (ofirpress/attention_with_linear_biases, ``get_slopes``).
* **p-RoPE** (Barbero et al. 2024, "Round and Round We Go!"): keep RoPE's
  highest-frequency fraction p of the pairs and leave the rest unrotated
  (theta = 0). p = 1 is RoPE, p = 0 is NoPE.
* **xPos** (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE's
  rotation, with pair i of q scaled by zeta_i^(m/B) and of k by zeta_i^(-n/B),
  zeta_i = (2i/d + gamma)/(1 + gamma), gamma = 0.4, scale base B = 512, so the
  pair's term in q.k is multiplied by zeta_i^((m-n)/B): a decay with distance.
  Sun et al. report extrapolation with blockwise causal attention at inference
  (:func:`blockwise_causal_mask`), which keeps every key within l - 1 tokens.
* **NoPE**: no positional term at all. For given q_m, k_n the logit does not
  depend on r; a trained causal model still learns position, through the causal
  mask (a query at m averages over m + 1 keys, so a layer can count its
  predecessors: Haviv et al. 2022), and later layers' q and k can carry it
  (Kazemnejad et al. 2023 prove a first layer can recover absolute positions).
* **Sinusoidal** (Vaswani et al. 2017): PE_p added to the token vector before
  the projections; reused from :mod:`rope_core.rotary.sinusoidal`.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
import pandas as pd
import torch

from ..rotary.attention import toy_qk
from ..rotary.decay import distance_grid
from ..rotary.frequencies import DEFAULT_BASE, theta
from ..rotary.rotation import apply_rope, pair_views
from ..support._checks import (
    N_,
    as_integer_positions,
    check_base,
    check_choice,
    check_dim,
    check_float_dtype,
    check_int,
    check_layout,
    check_positive_float,
    check_theta,
    fail,
)
from ..support.frames import labels, to_frame

MAX_HEADS = 1024
MAX_BIAS_ELEMENTS = 1 << 25  # n_heads * seq^2 of an ALiBi bias: 256 MiB of float64 at most
XPOS_GAMMA = 0.4  # torchscale's XPOS: (2i + 0.4 d) / (1.4 d)
XPOS_SCALE_BASE = 512.0
MAX_POSITION = 1_000_000
# Values of one (rows, dim/2) temporary in distance_logits: 128 KiB of float64, under the
# app's malloc mmap threshold (ui.hardening), so each one reuses heap memory instead of
# mapping fresh pages (at d = 1024 the page faults of whole (600, 512) arrays cost more
# than their arithmetic).
_SCRATCH = 16384


# ---------------------------------------------------------------- ALiBi


def _slopes_power_of_2(n: int) -> list[float]:
    # 2^(-8/n), 2^(-16/n), ..., 2^(-8): a geometric sequence with start = ratio = 2^(-8/n).
    return [2.0 ** (-8.0 * (k + 1) / n) for k in range(n)]


def _slopes(n: int) -> list[float]:
    if n & (n - 1) == 0:
        return _slopes_power_of_2(n)
    closest = 1 << (n.bit_length() - 1)  # the largest power of two below n
    return _slopes_power_of_2(closest) + _slopes(2 * closest)[0::2][: n - closest]


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """ALiBi's per-head slopes, as the reference code's ``get_slopes(n)``.

    * n a power of two: slope_h = 2^(-8h/n), h = 1 ... n (a geometric sequence
      starting at 2^(-8/n) with that same ratio; n = 8 gives 1/2, 1/4, ..., 1/256);
    * otherwise, with c the largest power of two below n: the c slopes of c,
      then every other slope of 2c (its 1st, 3rd, 5th, ...) until there are n
      (n = 6: 1/4, 1/16, 1/64, 1/256, then 1/2, 1/8).

    The paper's sentence "for n heads, the geometric sequence that starts at
    2^(-8/n) and uses that same value as its ratio" matches the code for powers
    of two only; for other n (6: 2^(-4/3), 2^(-8/3), ...) this is the code's rule,
    not the paper's sentence.

    Args:
        n_heads: number of heads, 1 ... 1024.
    Returns:
        ``(n_heads,)`` float64 tensor, all in (0, 1).
    """
    n_heads = check_int(n_heads, "n_heads", 1, MAX_HEADS)
    return torch.tensor(_slopes(n_heads), dtype=torch.float64)  # (n_heads,)


def alibi_bias(n_heads: int, seq_len: int, *, device=None,
               dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """ALiBi's bias, added to the logits q_m.k_n/sqrt(d) of every head.

    bias[h, m, n] = -slope_h * (m - n) for query m and key n, m, n = 0 ... seq-1:
    0 on the diagonal, -slope_h * r for a key r tokens back. The same formula
    runs above the diagonal (positive there); masking future keys is the
    caller's job. (The reference code adds slope_h * n instead, which differs
    from this by -slope_h * m, a constant per row that softmax cancels.)

    Args:
        n_heads: 1 ... 1024; seq_len: 1 ... 32768; n_heads * seq_len^2 at most 2^25.
    Returns:
        ``(n_heads, seq, seq)`` tensor.
    """
    slopes = alibi_slopes(n_heads)  # (H,)
    seq_len = check_int(seq_len, "seq_len", 1, 32768)
    dtype = check_float_dtype(dtype)
    if n_heads * seq_len * seq_len > MAX_BIAS_ELEMENTS:
        fail("seq_len", seq_len, "at most {high} for {heads} heads (n_heads * seq_len^2 "
             "at most {limit})", high=math.isqrt(MAX_BIAS_ELEMENTS // n_heads), heads=n_heads,
             limit=MAX_BIAS_ELEMENTS)
    pos = torch.arange(seq_len, dtype=torch.float64, device=device)  # (seq,)
    back = pos[None, :] - pos[:, None]  # (seq, seq): n - m = -r
    return (slopes.to(device)[:, None, None] * back).to(dtype)  # (H, seq, seq)


# ---------------------------------------------------------------- p-RoPE


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, Real) or not math.isfinite(p) \
            or not 0.0 <= p <= 1.0:
        fail("p", p, "a number from {low} to {high}", low=0, high=1)
    return float(p)


def p_rope_pairs(dim: int, p: float) -> int:
    """How many pairs p-RoPE rotates: int(p * dim // 2) = floor(p * d / 2), the
    rounding of ``apply_rope(..., rope_proportion=p)`` in google-deepmind/gemma
    (gm/math/_positional_embeddings.py), an open implementation of the idea,
    evaluated in floating point as written there (so p * d just below an even
    number rounds down: 0.58 * 100 = 57.99... gives 28, not 29).

    Args:
        dim: even head dimension; p: fraction in [0, 1].
    Returns:
        an integer from 0 to dim/2.
    """
    dim = check_dim(dim)
    return int(_check_p(p) * dim // 2)


def p_rope_theta(dim: int, base: float = DEFAULT_BASE, p: float = 0.75, *, device=None,
                 dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """p-RoPE's frequencies: RoPE's own theta_i = base^(-2i/d) for the
    k = :func:`p_rope_pairs` highest-frequency pairs i = 0 ... k-1, and theta_i = 0
    (unrotated, a NoPE pair) for the lowest-frequency d/2 - k.

    The kept pairs keep their frequencies (they are not re-spread over k pairs).
    p = 1 gives RoPE's theta, p = 0 all zeros (NoPE). ``apply_rope(x, positions,
    p_rope_theta(...))`` is p-RoPE.

    Returns:
        ``(dim/2,)`` tensor.
    """
    kept = p_rope_pairs(dim, p)
    th = theta(dim, base, device=device, dtype=dtype)  # (dim/2,)
    th[kept:] = 0.0
    return th


# ---------------------------------------------------------------- xPos


def xpos_zeta(dim: int, gamma: float = XPOS_GAMMA, *, device=None) -> torch.Tensor:
    """xPos's per-pair decay base zeta_i = (2i/d + gamma)/(1 + gamma), i = 0 ... d/2-1.

    torchscale writes it (2i + 0.4 d)/(1.4 d). zeta_0 = gamma/(1 + gamma) (the
    fastest-turning pair decays most), rising towards 1 for the slow pairs.

    Args:
        dim: even head dimension; gamma: number in (0, 100].
    Returns:
        ``(dim/2,)`` float64 tensor in (0, 1).
    """
    dim = check_dim(dim)
    gamma = check_positive_float(gamma, "gamma", upper=100.0)
    i = torch.arange(dim // 2, dtype=torch.float64, device=device)  # (dim/2,)
    return (2.0 * i / dim + gamma) / (1.0 + gamma)  # (dim/2,)


def _check_scale_base(scale_base) -> float:
    return check_positive_float(scale_base, "scale_base", upper=1e9)


def xpos_max_position(dim: int, gamma: float = XPOS_GAMMA,
                      scale_base: float = XPOS_SCALE_BASE,
                      dtype: torch.dtype = torch.float64) -> int:
    """The largest |position| whose xPos scale zeta_i^(+-m/B) stays within the square
    root of ``dtype``'s range (|m| ln(1/zeta_0)/B <= ln(max)/2), so that a scaled
    q or k and their product stay finite. torchscale centres the positions of a
    sequence on 0 for this reason; only m - n matters to the score."""
    zeta0 = float(xpos_zeta(dim, gamma)[0])
    scale_base = _check_scale_base(scale_base)
    dtype = check_float_dtype(dtype)
    return int(0.5 * math.log(torch.finfo(dtype).max) * scale_base / -math.log(zeta0))


def xpos_scale(positions, dim: int, *, gamma: float = XPOS_GAMMA,
               scale_base: float = XPOS_SCALE_BASE, downscale: bool = False,
               device=None) -> torch.Tensor:
    """xPos's scale of every pair at every position: zeta_i^(m/B) for queries,
    zeta_i^(-m/B) for keys (``downscale=True``), B = scale_base.

    Args:
        positions: ``(seq,)`` integers with |m| <= :func:`xpos_max_position`.
    Returns:
        ``(seq, dim/2)`` float64 tensor.
    """
    zeta = xpos_zeta(dim, gamma, device=device)  # (dim/2,)
    scale_base = _check_scale_base(scale_base)
    limit = xpos_max_position(dim, gamma, scale_base)
    m = as_integer_positions(positions, max_abs=limit).to(device=zeta.device,
                                                           dtype=torch.float64)  # (seq,)
    power = (-m if downscale else m) / scale_base  # (seq,)
    return zeta[None, :] ** power[:, None]  # (seq, dim/2)


def apply_xpos(x: torch.Tensor, positions, theta: torch.Tensor, *, gamma: float = XPOS_GAMMA,
               scale_base: float = XPOS_SCALE_BASE, downscale: bool = False,
               layout: str = "interleaved") -> torch.Tensor:
    """xPos: rotate like RoPE, then scale pair i at position m by zeta_i^(m/B)
    (queries) or zeta_i^(-m/B) (keys, ``downscale=True``), as torchscale's
    ``XPOS.forward`` (q with downscale=False, k with downscale=True).

    Then <xpos(q, m), xpos(k, n, downscale)> = sum_i zeta_i^((m-n)/B) * (pair i's
    term of <R_m q, R_n k>): RoPE's relative property, times a per-pair decay.

    Args:
        x: ``(..., seq, dim)``; positions: ``(seq,)`` integers with
            |m| <= :func:`xpos_max_position` for x's dtype; theta: ``(dim/2,)``.
    Returns:
        Tensor of x's shape and dtype.
    """
    theta = check_theta(theta)
    layout = check_layout(layout)
    rotated = apply_rope(x, positions, theta, layout=layout)  # (..., seq, dim), checks x
    dim = x.shape[-1]
    limit = xpos_max_position(dim, gamma, scale_base, x.dtype)
    pos = as_integer_positions(positions, max_abs=limit)
    scale = xpos_scale(pos, dim, gamma=gamma, scale_base=scale_base, downscale=downscale,
                       device=x.device).to(x.dtype)  # (seq, dim/2)
    return rotated * _spread(scale, layout)


def blockwise_causal_mask(seq_len: int, train_len: int, *, device=None) -> torch.Tensor:
    """Which keys each query sees under xPos' blockwise causal attention, the mask Sun
    et al. (2022, section 3.3) use at inference only (training uses the plain causal
    mask): with pre-training length l the queries are cut into blocks of b = l // 2
    tokens, and each query attends to its own block (causally) and the block before.

    visible[m, n] = (n <= m) and (n // b >= m // b - 1)

    So no key is ever more than :func:`blockwise_reach` = 2b - 1 tokens back (l - 1
    for an even l): the relative distances stay inside the training range.

    Args:
        seq_len: 1 ... 8192; train_len: pre-training length l, 2 ... 10^6.
    Returns:
        ``(seq, seq)`` bool tensor, True where query m (row) sees key n (column).
    """
    seq_len = check_int(seq_len, "seq_len", 1, 8192)
    block = check_int(train_len, "train_len", 2, MAX_POSITION) // 2
    pos = torch.arange(seq_len, device=device)  # (seq,)
    m, n = pos[:, None], pos[None, :]
    return (n <= m) & (n // block >= m // block - 1)  # (seq, seq)


def blockwise_reach(train_len: int) -> int:
    """The farthest key a query sees under :func:`blockwise_causal_mask`: the last
    query of a block b = l // 2 tokens long, looking back to the first key of the
    block before, 2b - 1 tokens (l - 1 for an even training length l)."""
    return 2 * (check_int(train_len, "train_len", 2, MAX_POSITION) // 2) - 1


def _spread(per_pair: torch.Tensor, layout: str) -> torch.Tensor:
    """A value per pair onto both coordinates of the pair: ``(..., dim/2)`` -> ``(..., dim)``."""
    if layout == "interleaved":
        return per_pair.repeat_interleave(2, dim=-1)  # (s0, s0, s1, s1, ...)
    return torch.cat([per_pair, per_pair], dim=-1)  # (s0, s1, ..., s0, s1, ...)


# ---------------------------------------------------------------- scores against distance


def _check_qk(q, k) -> tuple[torch.Tensor, torch.Tensor]:
    for name, v in (("q", q), ("k", k)):
        if not isinstance(v, torch.Tensor) or v.ndim != 1 or not v.dtype.is_floating_point:
            fail(name, v, "a floating-point tensor of shape (dim,)")
    if q.shape != k.shape:
        fail("k.shape", tuple(k.shape), "equal to q.shape = {shape}", shape=str(tuple(q.shape)))
    check_dim(q.numel(), "q.shape[-1]")
    return q.to(torch.float64), k.to(torch.float64)


def _distances(distances, device) -> torch.Tensor:
    return as_integer_positions(distances, name="distances").to(device=device,
                                                                 dtype=torch.float64)  # (R,)


def pair_terms(q: torch.Tensor, k: torch.Tensor, distances, theta: torch.Tensor, *,
               layout: str = "interleaved") -> torch.Tensor:
    """Each pair's term of the RoPE score <R_m q, R_n k> at distance r = m - n.

    For pair i with coordinates (a, b):
        term_i(r) = (q_a k_a + q_b k_b) cos(r theta_i) + (q_a k_b - q_b k_a) sin(r theta_i)
    (q^T R_(n-m) k written out; theta_i = 0 leaves q_a k_a + q_b k_b.)

    Args:
        q, k: ``(dim,)``; distances: ``(R,)`` integers r; theta: ``(dim/2,)``.
    Returns:
        ``(R, dim/2)`` float64 tensor.
    """
    q, k = _check_qk(q, k)
    theta = check_theta(theta)
    layout = check_layout(layout)
    if q.numel() != 2 * theta.numel():
        fail("q.shape[-1]", q.numel(), "2 * len(theta) = {width} (one pair per frequency)",
             width=2 * theta.numel())
    q_a, q_b = pair_views(q, layout)  # (dim/2,) each
    k_a, k_b = pair_views(k.to(q.device), layout)
    r = _distances(distances, q.device)  # (R,)
    angle = torch.outer(r, theta.to(device=q.device, dtype=torch.float64))  # (R, dim/2)
    # in place, the same products and sum: large (R, dim/2) temporaries cost more than
    # the arithmetic (each one freshly mapped memory)
    sin = angle.sin().mul_(q_a * k_b - q_b * k_a)
    return angle.cos_().mul_(q_a * k_a + q_b * k_b).add_(sin)


def rope_logits(q: torch.Tensor, k: torch.Tensor, distances, theta: torch.Tensor, *,
                layout: str = "interleaved") -> torch.Tensor:
    """RoPE's (or p-RoPE's, with :func:`p_rope_theta`) logit against distance:
    <R_m q, R_n k>/sqrt(d) = sum_i term_i(r)/sqrt(d), r = m - n.

    Returns:
        ``(R,)`` float64 tensor.
    """
    terms = pair_terms(q, k, distances, theta, layout=layout)  # (R, dim/2)
    return terms.sum(dim=-1) / math.sqrt(q.numel())


def xpos_logits(q: torch.Tensor, k: torch.Tensor, distances, theta: torch.Tensor, *,
                gamma: float = XPOS_GAMMA, scale_base: float = XPOS_SCALE_BASE,
                layout: str = "interleaved") -> torch.Tensor:
    """xPos's logit against distance: sum_i zeta_i^(r/B) term_i(r)/sqrt(d), r = m - n.

    Returns:
        ``(R,)`` float64 tensor.
    """
    terms = pair_terms(q, k, distances, theta, layout=layout)  # (R, dim/2)
    zeta = xpos_zeta(q.numel(), gamma, device=terms.device)  # (dim/2,)
    scale_base = _check_scale_base(scale_base)
    r = _distances(distances, terms.device)  # (R,)
    decay = zeta[None, :] ** (r[:, None] / scale_base)  # (R, dim/2)
    return (decay * terms).sum(dim=-1) / math.sqrt(q.numel())


def nope_logits(q: torch.Tensor, k: torch.Tensor, distances) -> torch.Tensor:
    """NoPE's logit against distance: q.k/sqrt(d) at every r (no positional term).

    Returns:
        ``(R,)`` float64 tensor, constant.
    """
    q, k = _check_qk(q, k)
    r = _distances(distances, q.device)  # (R,)
    return torch.full_like(r, float(q @ k.to(q.device)) / math.sqrt(q.numel()))


def alibi_logits(q: torch.Tensor, k: torch.Tensor, distances, slope: float) -> torch.Tensor:
    """ALiBi's logit against distance: q.k/sqrt(d) - slope * r (no rotation).

    Args:
        slope: a head's slope, number in (0, 1] (see :func:`alibi_slopes`).
    Returns:
        ``(R,)`` float64 tensor.
    """
    slope = check_positive_float(slope, "slope", upper=1.0)
    return nope_logits(q, k, distances) - slope * _distances(distances, q.device)


def sinusoidal_rows(positions, dim: int, base: float = DEFAULT_BASE, *,
                    device=None) -> torch.Tensor:
    """Rows PE_p of :func:`rope_core.rotary.sinusoidal.sinusoidal_pe` at any integer positions.

    PE_p pairs (sin p omega_i, cos p omega_i) with omega_i = base^(-2i/d), which is
    the unit vector (0, 1) of each pair turned by the angle -p omega_i:
    R(-a) (0, 1) = (sin a, cos a), the rows :func:`apply_rope` (interleaved layout)
    makes of it. Written out as sin and cos of p omega_i (the same numbers, bit for
    bit, as that rotation, which the tests check; a third of its cost at d = 1024),
    one row per position asked for, not a table from position 0 up.

    Args:
        positions: ``(P,)`` integers, |p| <= 10^9; dim: even; base: > 1.
    Returns:
        ``(P, dim)`` float64 tensor, equal to ``sinusoidal_pe(max + 1, dim, base)[positions]``
        for non-negative positions.
    """
    omega = theta(dim, base, device=device)  # (dim/2,)
    p = as_integer_positions(positions).to(device=omega.device, dtype=torch.float64)  # (P,)
    angle = torch.outer(p, omega.to(torch.float64))  # (P, dim/2)
    rows = torch.empty(p.numel(), 2 * omega.numel(), dtype=torch.float64,
                       device=omega.device)  # (P, dim)
    torch.sin(angle, out=rows[:, 0::2])
    torch.cos(angle, out=rows[:, 1::2])
    return rows


def sinusoidal_logits(q: torch.Tensor, k: torch.Tensor, distances, query_position: int,
                      base: float = DEFAULT_BASE) -> torch.Tensor:
    """The additive sinusoidal encoding's logit: (q + PE_m).(k + PE_n)/sqrt(d) with
    the query at m = ``query_position`` and the key at n = m - r.

    = [q.k + q.PE_n + PE_m.k + PE_m.PE_n]/sqrt(d); PE_m.PE_n = sum_i cos(r omega_i)
    depends on r alone, the two cross terms on the absolute positions. (No
    projections: a trained model's W_q, W_k mix these terms.) PE rows from
    :func:`sinusoidal_rows`.

    Args:
        distances: ``(R,)`` integers from 0 to query_position.
        query_position: 0 ... 10^6.
    Returns:
        ``(R,)`` float64 tensor.
    """
    q, k = _check_qk(q, k)
    base = check_base(base)
    query_position = check_int(query_position, "query_position", 0, MAX_POSITION)
    r = as_integer_positions(distances, name="distances")  # (R,)
    if r.numel() and (int(r.min()) < 0 or int(r.max()) > query_position):
        fail("distances", r, "from 0 to query_position = {m} (keys at m - r >= 0)",
             m=query_position)
    pe = sinusoidal_rows(torch.cat([torch.tensor([query_position]), query_position - r]),
                         q.numel(), base, device=q.device)  # (1 + R, dim)
    keys = k.to(q.device)[None, :] + pe[1:]  # (R, dim)
    return keys @ (q + pe[0]) / math.sqrt(q.numel())


# ---------------------------------------------------------------- one head, every encoding

ENCODINGS = ("rope", "p_rope", "xpos", "alibi", "nope", "sinusoidal")
ENCODING_NAMES = {"rope": "RoPE", "p_rope": "p-RoPE", "xpos": "xPos", "alibi": "ALiBi",
                  "nope": "NoPE", "sinusoidal": N_("sinusoidal")}
ENCODING_NAMES_EN = {**ENCODING_NAMES, "sinusoidal": "sinusoidal"}  # the CSV's names


def check_encoding(encoding) -> str:
    return check_choice(encoding, "encoding", ENCODINGS)


def encoding_logits(encoding: str, q: torch.Tensor, k: torch.Tensor, positions, *,
                    base: float = DEFAULT_BASE, p: float = 0.75, slope: float = 1 / 16,
                    gamma: float = XPOS_GAMMA, scale_base: float = XPOS_SCALE_BASE,
                    layout: str = "interleaved") -> torch.Tensor:
    """One head's logits l[m, n] under ``encoding`` (no mask), query row m and key
    column n at the given positions:

    * rope: (R_m q_m).(R_n k_n)/sqrt(d); p_rope: the same with :func:`p_rope_theta`;
    * xpos: :func:`apply_xpos` on q_m and (downscaled) k_n, positions centred on the
      window's middle first for the scale (as torchscale does; only m - n matters);
    * alibi: q_m.k_n/sqrt(d) - slope (m - n); nope: q_m.k_n/sqrt(d);
    * sinusoidal: (q_m + PE_m).(k_n + PE_n)/sqrt(d).

    Pairs follow ``layout`` (torchscale's xPos is interleaved; the sinusoidal table
    pairs (sin, cos) as it always does).

    Args:
        q, k: ``(seq, dim)`` float tensors; positions: ``(seq,)`` integers, |p| <= 10^6.
    Returns:
        ``(seq, seq)`` float64 tensor.
    """
    encoding = check_encoding(encoding)
    layout = check_layout(layout)
    for name, v in (("q", q), ("k", k)):
        if not isinstance(v, torch.Tensor) or v.ndim != 2 or not v.dtype.is_floating_point:
            fail(name, v, "a floating-point tensor of shape (seq, dim)")
    if q.shape != k.shape:
        fail("k.shape", tuple(k.shape), "equal to q.shape = {shape}", shape=str(tuple(q.shape)))
    seq, dim = q.shape
    dim = check_dim(dim, "q.shape[-1]")
    pos = as_integer_positions(positions, length=seq, max_abs=MAX_POSITION)  # (seq,)
    q, k = q.to(torch.float64), k.to(torch.float64)
    scale = 1.0 / math.sqrt(dim)
    if encoding in ("rope", "p_rope"):
        th = theta(dim, base, device=q.device) if encoding == "rope" else \
            p_rope_theta(dim, base, _check_p(p), device=q.device)  # (dim/2,)
        return apply_rope(q, pos, th, layout=layout) @ apply_rope(k, pos, th, layout=layout).T \
            * scale
    if encoding == "xpos":
        th = theta(dim, base, device=q.device)  # (dim/2,)
        middle = (int(pos.min()) + int(pos.max())) // 2 if seq else 0
        centred = pos - middle  # (seq,): the scale's positions, centred as torchscale does
        sq = _spread(xpos_scale(centred, dim, gamma=gamma, scale_base=scale_base,
                                device=q.device), layout)  # (seq, dim)
        sk = _spread(xpos_scale(centred, dim, gamma=gamma, scale_base=scale_base,
                                downscale=True, device=q.device), layout)
        rq = apply_rope(q, pos, th, layout=layout) * sq  # (seq, dim)
        rk = apply_rope(k, pos, th, layout=layout) * sk
        return rq @ rk.T * scale
    if encoding == "sinusoidal":
        base = check_base(base)
        pe = sinusoidal_rows(pos, dim, base, device=q.device)  # (seq, dim)
        return (q + pe) @ (k + pe).T * scale
    logits = q @ k.T * scale  # (seq, seq)
    if encoding == "alibi":
        slope = check_positive_float(slope, "slope", upper=1.0)
        m = pos.to(device=q.device, dtype=torch.float64)
        logits = logits - slope * (m[:, None] - m[None, :])
    return logits


def causal_weights(logits: torch.Tensor) -> torch.Tensor:
    """Softmax over each row's visible keys n <= m (row m, column n); future cells get
    weight exactly 0.

    Args:
        logits: ``(seq, seq)``.
    Returns:
        ``(seq, seq)`` tensor, rows summing to 1.
    """
    if not isinstance(logits, torch.Tensor) or logits.ndim != 2 or \
            logits.shape[0] != logits.shape[1] or not logits.dtype.is_floating_point:
        fail("logits", logits, "a square floating-point tensor of shape (seq, seq)")
    seq = logits.shape[0]
    future = torch.ones(seq, seq, dtype=torch.bool, device=logits.device).triu(1)
    return torch.softmax(logits.masked_fill(future, float("-inf")), dim=-1)


# ---------------------------------------------------------------- tables for the page

VECTORS = (N_("q = k"), N_("random q, k"))  # shown translated, kept English in the CSV
SCORE_POINTS = 600  # distances sampled on the score plot (all of them up to 599)


def score_vectors(vectors: str, dim: int, seed: int, *, device=None) -> tuple[torch.Tensor,
                                                                               torch.Tensor]:
    """The q and k of the score plot: one Gaussian draw (rope_core.toy_qk with one
    token), k = q for ``"q = k"``, an independent k for ``"random q, k"``.

    Returns:
        ``(q, k)``, each ``(dim,)`` float64.
    """
    vectors = check_choice(vectors, "vectors", VECTORS)
    q, k = toy_qk(1, dim, seed, device=device)  # (1, dim) each
    return q[0], (q[0] if vectors == "q = k" else k[0])


def distance_logits(vectors: str, dim: int, base: float, distances, *, p: float, slope: float,
                    seed: int, query_position: int, gamma: float = XPOS_GAMMA,
                    scale_base: float = XPOS_SCALE_BASE, layout: str = "interleaved",
                    first_pair: int = 0, device=None) -> dict[str, torch.Tensor]:
    """Every encoding's logit against distance r = m - n for the vectors of
    :func:`score_vectors` (the sinusoidal one with the query at ``query_position``).

    Every curve is a sum over pairs of cos(r theta_i) and sin(r theta_i), formed once
    ((R, dim/2) each) and read by matrix-vector products:

    * RoPE: term_i(r) = along_i cos(r theta_i) + across_i sin(r theta_i)
      (:func:`pair_terms`), summed;
    * p-RoPE: the k rotated pairs' terms and each unrotated pair's term_i(0) = along_i;
    * xPos: the terms weighted by zeta_i^(r/B);
    * sinusoidal: with u = q + PE_m, the logit is (k.u + PE_n.u)/sqrt(d) and, n = m - r,
      sin(n w_i) = sin(m w_i) cos(r w_i) - cos(m w_i) sin(r w_i),
      cos(n w_i) = cos(m w_i) cos(r w_i) + sin(m w_i) sin(r w_i), with w_i = theta_i
      (the sinusoidal table's frequencies are RoPE's), so its angles are RoPE's too.

    The same numbers as :func:`rope_logits` with :func:`p_rope_theta`,
    :func:`xpos_logits` and :func:`sinusoidal_logits` up to rounding: the tests check
    1e-12 (relative) at d = 1024 with the query up to 65,536, the page's farthest, and
    1e-10 at 10^6, where rounding m w_i (here) or n w_i (there) alone moves an angle by
    about 1e-10. Formed a few rows at a time (:data:`_SCRATCH`): at d = 1024 and 600
    distances a quarter of the cost of whole (R, dim/2) arrays.

    ``first_pair`` > 0 leaves out the r-dependent terms of pairs 0 ... first_pair - 1 (each
    turns about 0 with mean 0 over a turn): what a plot sampled too sparsely for those
    pairs can draw (:func:`ripple_envelope` bounds what they add).

    Returns:
        dict encoding -> ``(R,)`` float64 tensor, in :data:`ENCODINGS` order.
    """
    q, k = score_vectors(vectors, dim, seed, device=device)
    base = check_base(base)
    kept = p_rope_pairs(dim, p)
    th = theta(dim, base, device=device).to(torch.float64)  # (dim/2,)
    query_position = check_int(query_position, "query_position", 0, MAX_POSITION)
    r = _distances(distances, q.device)  # (R,)
    if r.numel() and (int(r.min()) < 0 or int(r.max()) > query_position):
        fail("distances", r, "from 0 to query_position = {m} (keys at m - r >= 0)",
             m=query_position)
    zeta = xpos_zeta(dim, gamma, device=q.device)  # (dim/2,)
    scale_base = _check_scale_base(scale_base)
    first_pair = check_int(first_pair, "first_pair", 0, dim // 2)
    root = math.sqrt(dim)
    q_a, q_b = pair_views(q, layout)  # (dim/2,) each
    k_a, k_b = pair_views(k, layout)
    along, across = q_a * k_a + q_b * k_b, q_a * k_b - q_b * k_a  # (dim/2,)
    still = along[kept:].sum()  # the unrotated pairs of p-RoPE
    drop = torch.arange(th.numel(), device=q.device) < first_pair  # (dim/2,) left out
    along, across = along.masked_fill(drop, 0.0), across.masked_fill(drop, 0.0)
    log_zeta = zeta.log()
    # the sinusoidal logit, u = q + PE_m; PE rows pair (sin, cos), interleaved
    u = q + sinusoidal_rows([query_position], dim, base, device=q.device)[0]  # (dim,)
    u_a, u_b = u[0::2], u[1::2]
    m_angle = query_position * th  # (dim/2,)
    s_m, c_m = m_angle.sin(), m_angle.cos()
    u_cos, u_sin, k_u = u_a * s_m + u_b * c_m, u_b * s_m - u_a * c_m, k @ u
    u_cos, u_sin = u_cos.masked_fill(drop, 0.0), u_sin.masked_fill(drop, 0.0)
    curves = torch.empty(4, r.numel(), dtype=torch.float64, device=q.device)
    rows = max(1, _SCRATCH // th.numel())
    for start in range(0, r.numel(), rows):  # a few rows at a time: see _SCRATCH
        part = r[start:start + rows]
        angle = torch.outer(part, th)  # (rows, dim/2)
        sin = angle.sin()
        cos = angle.cos_()
        rope, p_rope, xpos, sinusoidal = curves[:, start:start + rows]
        torch.add(cos @ along, sin @ across, out=rope)
        torch.add(cos[:, :kept] @ along[:kept], sin[:, :kept] @ across[:kept], out=p_rope)
        torch.add(cos @ u_cos, sin @ u_sin, out=sinusoidal)
        decay = torch.outer(part / scale_base, log_zeta).exp_()  # zeta_i^(r/B)
        torch.add(cos.mul_(decay) @ along, sin.mul_(decay) @ across, out=xpos)
    rope, p_rope, xpos, sinusoidal = curves[0] / root, (curves[1] + still) / root, \
        curves[2] / root, (curves[3] + k_u) / root
    return {
        "rope": rope,
        "p_rope": p_rope,
        "xpos": xpos,
        "alibi": alibi_logits(q, k, r, slope),
        "nope": nope_logits(q, k, r),
        "sinusoidal": sinusoidal,
    }


def unresolved_pairs(dim: int, base: float, step: float, samples: int = 4) -> int:
    """How many of the fastest pairs turn once in fewer than ``samples`` samples ``step``
    tokens apart: theta_i > 2 pi / (samples step), i.e. a wavelength under ``samples``
    steps. Drawn through such samples a pair's cosine aliases into a slower ripple that
    is not there (below 2 samples a turn, Nyquist) or loses its shape."""
    step = check_positive_float(step, "step", float(MAX_POSITION))
    samples = check_int(samples, "samples", 2, 1000)
    th = theta(dim, check_base(base))  # (dim/2,) decreasing
    return int((th > 2 * math.pi / (samples * step)).sum())


def _amplitudes(vectors: str, dim: int, base: float, seed: int, query_position: int,
                layout: str, device) -> tuple[torch.Tensor, torch.Tensor]:
    """Each pair's amplitude in r, ``(dim/2,)`` twice: RoPE's
    sqrt(along_i^2 + across_i^2) (:func:`distance_logits`; a cos x + b sin x never exceeds
    sqrt(a^2 + b^2)) and the sinusoid's |(u_cos, u_sin)_i| = |(u_a, u_b)_i|, u = q + PE_m,
    the terms in r of PE_n.u."""
    q, k = score_vectors(vectors, dim, seed, device=device)
    base = check_base(base)
    q_a, q_b = pair_views(q, layout)  # (dim/2,) each
    k_a, k_b = pair_views(k, layout)
    u = q + sinusoidal_rows([check_int(query_position, "query_position", 0, MAX_POSITION)],
                            dim, base, device=q.device)[0]  # (dim,)
    return (torch.hypot(q_a * k_a + q_b * k_b, q_a * k_b - q_b * k_a),
            torch.hypot(u[0::2], u[1::2]))


def ripple_envelope(vectors: str, dim: int, base: float, distances, *, p: float, seed: int,
                    query_position: int, first_pair: int, gamma: float = XPOS_GAMMA,
                    scale_base: float = XPOS_SCALE_BASE, layout: str = "interleaved",
                    device=None) -> dict[str, torch.Tensor]:
    """How far pairs 0 ... first_pair - 1 can move each encoding's logit at distance r:
    the sum of their amplitudes (a cos(r theta) + b sin(r theta) lies within
    +- sqrt(a^2 + b^2)), so :func:`distance_logits` with ``first_pair`` +- this holds the
    exact logit at every r:

    * RoPE: sum_i sqrt(along_i^2 + across_i^2) / sqrt(d) (along, across of
      :func:`distance_logits`);
    * p-RoPE: the same over the rotated pairs among them;
    * xPos: each amplitude times zeta_i^(r/B);
    * sinusoidal: sum_i sqrt(u_cos_i^2 + u_sin_i^2) / sqrt(d), the terms in r of
      PE_n.(q + PE_m) (:func:`distance_logits`);
    * ALiBi, NoPE: 0 (no ripple).

    Returns:
        dict encoding -> ``(R,)`` float64 tensor, in :data:`ENCODINGS` order.
    """
    first_pair = check_int(first_pair, "first_pair", 0, dim // 2)
    kept = p_rope_pairs(dim, p)
    amplitude, sinusoidal = (a[:first_pair] for a in _amplitudes(
        vectors, dim, base, seed, query_position, layout, device))
    r = _distances(distances, amplitude.device).to(torch.float64)  # (R,)
    root = math.sqrt(dim)
    decay = torch.outer(r / _check_scale_base(scale_base),
                        xpos_zeta(dim, gamma, device=r.device)[:first_pair].log()).exp()
    ones = torch.ones_like(r)
    return {"rope": ones * amplitude.sum() / root,
            "p_rope": ones * amplitude[:kept].sum() / root,
            "xpos": decay @ amplitude / root,
            "alibi": torch.zeros_like(r), "nope": torch.zeros_like(r),
            "sinusoidal": ones * sinusoidal.sum() / root}


def chord_allowance(vectors: str, dim: int, base: float, distances, *, p: float, seed: int,
                    query_position: int, first_pair: int, gamma: float = XPOS_GAMMA,
                    scale_base: float = XPOS_SCALE_BASE, layout: str = "interleaved",
                    device=None) -> dict[str, torch.Tensor]:
    """How far a straight segment between two samples can miss the drawn curve
    (:func:`distance_logits` with ``first_pair``) at an integer distance between them.

    Between samples a < b (h = b - a tokens), a curve f and its chord differ at r by at
    most (r - a)(b - r)/2 max |f''| (the interpolation error of a straight line), so at
    the integers between them by at most floor(h/2) ceil(h/2)/2 max_[a,b] |f''| (0 for
    h = 1), with max |f''| over the pairs drawn, i >= first_pair:

    * RoPE: sum_i A_i theta_i^2 / sqrt(d), A_i = sqrt(along_i^2 + across_i^2)
      (:func:`ripple_envelope`); p-RoPE: the same over its rotated pairs among them;
    * xPos: each term A_i zeta_i^(r/B) cos(r theta_i + phi_i) has
      |f''| <= A_i zeta_i^(r/B) (kappa_i^2 + theta_i^2), kappa_i = |ln zeta_i| / B,
      largest at r = a (zeta_i < 1);
    * sinusoidal: sum_i |(u_a, u_b)_i| theta_i^2 / sqrt(d) (its terms in r, as in
      :func:`ripple_envelope`);
    * ALiBi, NoPE: 0 (straight lines).

    ``distances``: the samples, increasing. Returns, at each sample, the larger of the two
    gaps' allowances beside it, so a band drawn straight between samples at drawn logit
    +- (:func:`ripple_envelope` + this) holds the exact logit at every integer distance
    between them: the drawn curve is within this of its chord, and the left-out pairs
    within the ripple envelope, which is constant, or for xPos convex and so below its
    chord.

    Returns:
        dict encoding -> ``(R,)`` float64 tensor, in :data:`ENCODINGS` order.
    """
    first_pair = check_int(first_pair, "first_pair", 0, dim // 2)
    kept = p_rope_pairs(dim, p)
    amplitude, sinusoidal = (a[first_pair:] for a in _amplitudes(
        vectors, dim, base, seed, query_position, layout, device))  # (P,) the drawn pairs
    device = amplitude.device
    r = _distances(distances, device)  # (R,)
    if r.numel() > 1 and bool((r[1:] <= r[:-1]).any()):
        fail("distances", r, "increasing, each distance once")
    th = theta(dim, base, device=device).to(torch.float64)[first_pair:]  # (P,)
    root = math.sqrt(dim)
    log_zeta = xpos_zeta(dim, gamma, device=device)[first_pair:].log()  # (P,) <= 0
    scale_base = _check_scale_base(scale_base)
    kappa = log_zeta.abs() / scale_base
    rotated = torch.arange(first_pair, dim // 2, device=device) < kept  # (P,)
    left, h = r[:-1], r[1:] - r[:-1]  # (R - 1,) each gap's start and width
    half = torch.floor(h / 2)
    factor = half * (h - half) / 2  # max over the integers inside of (r - a)(b - r)/2
    xpos = torch.exp(torch.outer(left / scale_base, log_zeta)) @ (
        amplitude * (kappa**2 + th**2))  # (R - 1,) max |f''| on each gap
    per_gap = {"rope": factor * (amplitude * th**2).sum() / root,
               "p_rope": factor * (amplitude * th**2)[rotated].sum() / root,
               "xpos": factor * xpos / root,
               "alibi": torch.zeros_like(h), "nope": torch.zeros_like(h),
               "sinusoidal": factor * (sinusoidal * th**2).sum() / root}
    out = {}
    for e in ENCODINGS:
        gaps = per_gap[e]
        side = torch.zeros(r.numel() + 1, dtype=torch.float64, device=device)
        side[1:-1] = gaps  # (R + 1,): the gap before sample k is side[k], after it side[k+1]
        out[e] = torch.maximum(side[:-1], side[1:])
    return out


def distance_table(vectors: str, dim: int, base: float, max_distance: int, *, p: float,
                   slope: float, seed: int, gamma: float = XPOS_GAMMA,
                   scale_base: float = XPOS_SCALE_BASE, layout: str = "interleaved",
                   points: int = SCORE_POINTS, device=None) -> pd.DataFrame:
    """Tidy table of :func:`distance_logits` at ``points`` evenly spaced integer
    distances 0 ... max_distance (rope_core.distance_grid), the query at
    m = max_distance: settings first (with the pairs too fast for that spacing,
    :func:`unresolved_pairs`), then encoding, distance r [tokens], logit (exact), drawn
    logit (without those pairs' ripples) and envelope (:func:`ripple_envelope` plus
    :func:`chord_allowance`: with the drawn logit and the band drawn straight between the
    samples, the exact logit lies within drawn logit +- envelope at every integer
    distance, sampled or not).
    """
    max_distance = check_int(max_distance, "max_distance", 1, MAX_POSITION)
    r = distance_grid(max_distance, "linear", linear_points=points)  # (R,)
    step = max_distance / max(1, r.numel() - 1)
    fast = unresolved_pairs(dim, base, step) if r.numel() > 1 else 0
    common = dict(p=p, seed=seed, query_position=max_distance, gamma=gamma,
                  scale_base=scale_base, layout=layout, device=device)
    logits = distance_logits(vectors, dim, base, r, slope=slope, **common)
    drawn = distance_logits(vectors, dim, base, r, slope=slope, first_pair=fast, **common) \
        if fast else logits
    envelope = ripple_envelope(vectors, dim, base, r, first_pair=fast, **common)
    chord = chord_allowance(vectors, dim, base, r, first_pair=fast, **common)
    envelope = {e: envelope[e] + chord[e] for e in envelope}
    settings = {"vectors": vectors, "dim": dim, "base": base, "layout": layout, "p": p,
                "alibi slope": slope, "xpos gamma": gamma, "xpos scale base": scale_base,
                "seed": seed, "query position m [tokens]": max_distance,
                "pairs too fast to draw": fast}
    names = labels([ENCODING_NAMES_EN[e] for e in logits],
                   np.repeat(np.arange(len(logits)), r.numel()))  # (6 R,)
    return to_frame({"encoding": names, "distance r [tokens]": r.repeat(len(logits)),
                     "logit": torch.cat(list(logits.values())),
                     "drawn logit": torch.cat(list(drawn.values())),
                     "envelope +- [logit]": torch.cat(list(envelope.values()))}, **settings)


def _window_logits(q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor, *, base: float,
                   p: float, slope: float, gamma: float, scale_base: float,
                   layout: str) -> torch.Tensor:
    """:func:`encoding_logits` of every encoding, stacked ``(6, seq, seq)``, bit for bit,
    with the work they share done once: RoPE's rotated q and k serve xPos (which scales
    them) and p-RoPE (its kept pairs turn by RoPE's own theta_i, the rest by angle 0,
    which leaves them as they are), and q.k serves NoPE and ALiBi."""
    seq, dim = q.shape
    layout = check_layout(layout)
    scale = 1.0 / math.sqrt(check_dim(dim, "q.shape[-1]"))
    q, k = q.to(torch.float64), k.to(torch.float64)
    th = theta(dim, base, device=q.device)  # (dim/2,)
    rq, rk = apply_rope(q, pos, th, layout=layout), apply_rope(k, pos, th, layout=layout)
    kept = p_rope_pairs(dim, p)
    pq, pk = rq.clone(), rk.clone()  # p-RoPE: the unrotated pairs keep q's and k's values
    for rotated, plain in ((pq, q), (pk, k)):
        for part, value in zip(pair_views(rotated, layout), pair_views(plain, layout)):
            part[:, kept:] = value[:, kept:]
    middle = (int(pos.min()) + int(pos.max())) // 2 if seq else 0
    centred = pos - middle  # xPos's scale positions, centred as torchscale does
    sq = _spread(xpos_scale(centred, dim, gamma=gamma, scale_base=scale_base,
                            device=q.device), layout)  # (seq, dim)
    sk = _spread(xpos_scale(centred, dim, gamma=gamma, scale_base=scale_base,
                            downscale=True, device=q.device), layout)
    pe = sinusoidal_rows(pos, dim, check_base(base), device=q.device)  # (seq, dim)
    plain = q @ k.T * scale  # (seq, seq)
    m = pos.to(device=q.device, dtype=torch.float64)
    slope = check_positive_float(slope, "slope", upper=1.0)
    by_encoding = {"rope": rq @ rk.T * scale, "p_rope": pq @ pk.T * scale,
                   "xpos": (rq * sq) @ (rk * sk).T * scale,
                   "alibi": plain - slope * (m[:, None] - m[None, :]), "nope": plain,
                   "sinusoidal": (q + pe) @ (k + pe).T * scale}
    return torch.stack([by_encoding[e] for e in ENCODINGS])


def attention_maps_table(dim: int, base: float, seq: int, start: int, seed: int,
                         shared: bool, *, p: float, slope: float, gamma: float = XPOS_GAMMA,
                         scale_base: float = XPOS_SCALE_BASE, layout: str = "interleaved",
                         device=None) -> pd.DataFrame:
    """One toy head (rope_core.toy_qk: Gaussian q, k per token, or one shared draw)
    over the causal window of positions start ... start + seq - 1, under every
    encoding: one row per encoding and visible cell (key n <= query m), with its
    logit and softmax weight. Masked cells (n > m, weight exactly 0) are left out.
    """
    seq = check_int(seq, "seq", 1, 256)
    start = check_int(start, "start", 0, MAX_POSITION - 256)
    q, k = toy_qk(seq, dim, seed, shared=bool(shared), device=device)  # (seq, dim) each
    pos = torch.arange(start, start + seq)  # (seq,)
    m, n = torch.tril_indices(seq, seq)  # visible cells, row by row
    settings = {"dim": dim, "base": base, "layout": layout, "seed": seed,
                "same q k": bool(shared), "window start [tokens]": start, "p": p,
                "alibi slope": slope, "xpos gamma": gamma, "xpos scale base": scale_base}
    logits = _window_logits(q, k, pos, base=base, p=p, slope=slope, gamma=gamma,
                            scale_base=scale_base, layout=layout)  # (6, seq, seq)
    future = torch.ones(seq, seq, dtype=torch.bool, device=logits.device).triu(1)
    weights = torch.softmax(logits.masked_fill(future, float("-inf")), dim=-1)  # causal
    cells = m.numel()
    return to_frame({"encoding": labels([ENCODING_NAMES_EN[e] for e in ENCODINGS],
                                        np.repeat(np.arange(len(ENCODINGS)), cells)),
                     "m [tokens]": (start + m).repeat(len(ENCODINGS)),
                     "n [tokens]": (start + n).repeat(len(ENCODINGS)),
                     "logit": logits[:, m, n].reshape(-1),
                     "weight": weights[:, m, n].reshape(-1)}, **settings)
