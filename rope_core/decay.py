"""How attention scores behave with relative distance r = n - m.

Both functions are chunked over distances so that 10^6 distances at large dim
run in bounded memory (a few tens of MB of temporaries at most).
"""

from __future__ import annotations

import torch

from ._checks import as_distances, check_int, check_layout, check_theta, fail
from .rotation import pair_views

# Largest (distances x pairs) block processed at once: 2^19 float64 elements
# = 4 MiB per temporary, about five temporaries alive at a time.
CHUNK_ELEMENTS = 1 << 19


def _chunks(n: int, pairs: int):
    step = max(1, CHUNK_ELEMENTS // pairs)
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


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
    for sl in _chunks(r.numel(), th.numel()):
        angle = torch.outer(r[sl], th)  # (c, d/2)
        re = torch.cumsum(torch.cos(angle), dim=-1)  # (c, d/2): Re S_j
        im = torch.cumsum(torch.sin(angle), dim=-1)  # (c, d/2): Im S_j
        out[sl] = torch.hypot(re, im).mean(dim=-1)
    return out


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
            fail(f"{name}.shape[-1]", v.shape[-1], f"2 * len(theta) = {2 * theta.numel()}")
    if q.shape != k.shape:
        fail("k.shape", tuple(k.shape), f"equal to q.shape = {tuple(q.shape)}")
    r = as_distances(distances, device=theta.device)  # (R,)
    q64, k64 = q.to(theta.device, torch.float64), k.to(theta.device, torch.float64)
    q_a, q_b = pair_views(q64, layout)  # (..., d/2)
    k_a, k_b = pair_views(k64, layout)
    along = q_a * k_a + q_b * k_b  # (..., d/2): weight of cos
    across = q_b * k_a - q_a * k_b  # (..., d/2): weight of sin
    th = theta.to(torch.float64)
    out = torch.empty(*q.shape[:-1], r.numel(), dtype=torch.float64, device=theta.device)
    for sl in _chunks(r.numel(), th.numel()):
        angle = torch.outer(r[sl], th)  # (c, d/2)
        out[..., sl] = along @ torch.cos(angle).T + across @ torch.sin(angle).T  # (..., c)
    return out


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
    mean = torch.empty(r.numel(), dtype=torch.float64, device=theta.device)  # (R,)
    std = torch.zeros_like(mean)
    # chunk distances so that the (T, c) score block stays within CHUNK_ELEMENTS
    for sl in _chunks(r.numel(), max(theta.numel(), trials)):
        scores = score_vs_distance(q, k, r[sl], theta, layout=layout)  # (T, c)
        mean[sl] = scores.mean(dim=0)
        if trials > 1:
            std[sl] = scores.std(dim=0)
    return mean, std
