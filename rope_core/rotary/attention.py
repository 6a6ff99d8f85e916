"""A toy single-head attention with and without RoPE, causal mask done right."""

from __future__ import annotations

import math

import torch

from ..support._checks import (
    check_dim,
    check_float_dtype,
    check_int,
    check_layout,
    check_theta,
    fail,
)
from .rotation import apply_rope

MAX_SEQ = 1024


def toy_qk(seq: int, dim: int, seed: int, *, shared: bool = False, device=None,
           dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    """Random q, k of shape ``(seq, dim)`` with entries ~ N(0, 1).

    With ``shared=True`` every token gets the same q and the same k (one draw
    repeated), so without RoPE every logit is equal and with RoPE the logits
    depend only on n - m: a Toeplitz matrix. The draw uses a CPU generator
    seeded by ``seed`` (the same numbers on every device), then moves to ``device``.
    """
    seq = check_int(seq, "seq", 1, MAX_SEQ)
    dim = check_dim(dim)
    seed = check_int(seed, "seed", 0, 2**31 - 1)
    dtype = check_float_dtype(dtype)
    g = torch.Generator().manual_seed(seed)
    rows = 1 if shared else seq
    q = torch.randn(rows, dim, generator=g, dtype=torch.float64)  # (rows, dim)
    k = torch.randn(rows, dim, generator=g, dtype=torch.float64)
    return (q.expand(seq, dim).to(device=device, dtype=dtype),
            k.expand(seq, dim).to(device=device, dtype=dtype))  # (seq, dim) each


def attention(q: torch.Tensor, k: torch.Tensor, theta: torch.Tensor | None, *,
              causal: bool = True, layout: str = "interleaved",
              positions=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product logits and softmax weights of one head.

    logits[m, n] = <R_m q_m, R_n k_n> / sqrt(dim)   (no rotation if theta is None)
    With ``causal``, logits[m, n] = -inf for n > m, so those weights are exactly 0.

    Args:
        q, k: ``(seq, dim)``.
        theta: ``(dim/2,)`` frequencies, or None for no position encoding.
        positions: ``(seq,)`` integers, default 0 ... seq-1.
    Returns:
        ``(logits, weights)``, each ``(seq, seq)``; rows of weights sum to 1.
    """
    for name, v in (("q", q), ("k", k)):
        if not isinstance(v, torch.Tensor) or v.ndim != 2 or not v.dtype.is_floating_point:
            fail(name, v, "a floating-point tensor of shape (seq, dim)")
    if q.shape != k.shape:
        fail("k.shape", tuple(k.shape), "equal to q.shape = {shape}", shape=str(tuple(q.shape)))
    layout = check_layout(layout)
    seq, dim = q.shape
    if theta is not None:
        theta = check_theta(theta)
        pos = range(seq) if positions is None else positions
        q = apply_rope(q, pos, theta.to(q.device), layout=layout)  # (seq, dim)
        k = apply_rope(k, pos, theta.to(k.device), layout=layout)
    logits = (q @ k.T) / math.sqrt(dim)  # (seq, seq)
    if causal:
        future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
        logits = logits.masked_fill(future, float("-inf"))
    return logits, torch.softmax(logits, dim=-1)


def causal_mask(seq: int) -> torch.Tensor:
    """The cells a causal head hides: mask[m, n] = (n > m), keys in the future.

    Returns:
        ``(seq, seq)`` bool tensor with seq (seq - 1) / 2 True cells.
    """
    seq = check_int(seq, "seq", 1, MAX_SEQ)
    return torch.ones(seq, seq, dtype=torch.bool).triu(1)


def diagonal_spread(matrix: torch.Tensor, visible: torch.Tensor | None = None) -> float:
    """How far ``matrix`` is from Toeplitz: the largest (max - min) along any
    diagonal n - m = const, over the ``visible`` cells only (all when None).

    0 means the entry depends on n - m alone. Returns 0.0 for no visible cell.
    """
    if not isinstance(matrix, torch.Tensor) or matrix.ndim != 2 or \
            matrix.shape[0] != matrix.shape[1]:
        fail("matrix", matrix, "a square 2-D tensor")
    seq = matrix.shape[0]
    if visible is None:
        visible = torch.ones(seq, seq, dtype=torch.bool)
    if not isinstance(visible, torch.Tensor) or visible.shape != matrix.shape or \
            visible.dtype != torch.bool:
        fail("visible", visible, "a bool tensor of shape {shape}", shape=str(tuple(matrix.shape)))
    worst = 0.0
    m = matrix.to(torch.float64).cpu()
    vis = visible.cpu()
    for offset in range(-(seq - 1), seq):
        values = torch.diagonal(m, offset)[torch.diagonal(vis, offset)]
        if values.numel():
            worst = max(worst, float(values.max() - values.min()))
    return worst


def row_sum_gap(weights: torch.Tensor) -> float:
    """max_m |sum_n weights[m, n] - 1|: how far rows of softmax weights are from summing to 1."""
    if not isinstance(weights, torch.Tensor) or weights.ndim != 2:
        fail("weights", weights, "a 2-D tensor")
    return float((weights.to(torch.float64).sum(-1) - 1.0).abs().max())


def attention_checks(q: torch.Tensor, k: torch.Tensor, theta: torch.Tensor, *,
                     causal: bool = True, layout: str = "interleaved") -> dict[str, float]:
    """The facts the Attention page states, measured on one head without and with RoPE.

    Returns a dict of floats:
      ``masked``: number of hidden cells, seq (seq - 1)/2 with the causal mask, else 0;
      ``masked_weight``: largest weight on a hidden cell (exactly 0);
      ``row_sum_gap``: largest |sum_n a_mn - 1| of either variant;
      ``spread_without``: max - min of the visible logits without RoPE (0 for a shared q, k);
      ``first_without``: the logit of cell (0, 0) without RoPE;
      ``toeplitz_with``: :func:`diagonal_spread` of the RoPE logits (0 for a shared q, k);
      ``diagonal_change``: largest |change| RoPE makes on the diagonal m = n (0: R_m^T R_m = I);
      ``largest_change``: largest |change| RoPE makes on any visible logit.
    """
    plain_logits, plain_weights = attention(q, k, None, causal=causal, layout=layout)
    rope_logits, rope_weights = attention(q, k, theta, causal=causal, layout=layout)
    seq = q.shape[0]
    mask = causal_mask(seq).to(q.device) if causal else torch.zeros(seq, seq, dtype=torch.bool,
                                                                     device=q.device)
    visible = ~mask
    change = (rope_logits - plain_logits)[visible].abs()
    shown = plain_logits[visible]
    return {"masked": float(mask.sum()),
            "masked_weight": float(torch.cat([plain_weights[mask], rope_weights[mask]]).abs()
                                   .max()) if causal and seq > 1 else 0.0,
            "row_sum_gap": max(row_sum_gap(plain_weights), row_sum_gap(rope_weights)),
            "spread_without": float(shown.max() - shown.min()),
            "first_without": float(plain_logits[0, 0]),
            "toeplitz_with": diagonal_spread(rope_logits, visible),
            "diagonal_change": float((rope_logits.diagonal() - plain_logits.diagonal()).abs()
                                     .max()),
            "largest_change": float(change.max())}
