"""Independent numpy references for the lesson pages' tests (no rope_core maths)."""

import math

import numpy as np


def thetas(dim: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / dim) for i in range(dim // 2)])


def rotate(x: np.ndarray, position: float, th: np.ndarray, layout: str) -> np.ndarray:
    """R_position x, pair by pair, with explicit cos and sin."""
    x = np.asarray(x, dtype=float)
    out = x.copy()
    d = x.shape[-1]
    for i, t in enumerate(th):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        c, s = math.cos(position * t), math.sin(position * t)
        out[..., a] = x[..., a] * c - x[..., b] * s
        out[..., b] = x[..., a] * s + x[..., b] * c
    return out


def head(x, w_q, w_k, w_v, th=None, layout="interleaved"):
    """softmax(q k^T / sqrt d) v without a mask, token t at position t."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    if th is not None:
        q = np.stack([rotate(q[t], t, th, layout) for t in range(len(q))])
        k = np.stack([rotate(k[t], t, th, layout) for t in range(len(k))])
    logits = q @ k.T / math.sqrt(q.shape[1])
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return w @ v
