"""RoPE worked through by hand: one pair turning frame by frame, and every
intermediate of R_m q for a short vector.

Both functions only re-arrange what :mod:`rope_core.rotary.rotation` computes, so the
pages that show them (Rotation, Step by step) draw and explain, and compute
nothing themselves.
"""

from __future__ import annotations

import math

import torch

from ..support._checks import as_integer_positions, check_base, check_int, check_layout, fail
from .frequencies import angles, theta
from .rotation import apply_rope, apply_rope_complex, cos_sin, layout_permutation, rotation_matrix

MAX_STEP_LENGTH = 16  # coordinates of a vector worked through by hand
MAX_POSITIONS_PER_FRAME = 2**20  # positions an animation may advance per frame


def _pair(v, name: str) -> torch.Tensor:
    t = torch.as_tensor(v, dtype=torch.float64) if not isinstance(v, torch.Tensor) else v
    if t.shape != (2,) or not t.dtype.is_floating_point or not bool(torch.isfinite(t).all()):
        fail(name, v, "two finite numbers (x, y)")
    return t.to(torch.float64)


def pair_trajectory(q, k, theta_i: float, m, n) -> dict[str, torch.Tensor]:
    """One 2-D pair of q and k, turned to query positions m and key positions n.

    For every frame t (T frames):

        q'_t = R(m_t theta_i) q,   k'_t = R(n_t theta_i) k,
        R(a) = [[cos a, -sin a], [sin a, cos a]]
        dot_t   = q'_t . k'_t                     = |q||k| cos((n_t - m_t) theta_i + phi_k - phi_q)
        cross_t = q'_x k'_y - q'_y k'_x           = |q||k| sin(...)
        between_t = atan2(cross_t, dot_t)         in (-pi, pi]: the signed angle from q' to k'

    Args:
        q, k: two numbers each (x, y).
        theta_i: the pair's frequency [rad/token], finite and > 0.
        m, n: ``(T,)`` integer positions.
    Returns:
        dict of float64 tensors: ``"angle_q"``, ``"angle_k"`` (T,) = m theta_i, n theta_i [rad];
        ``"q_rot"``, ``"k_rot"`` (T, 2); ``"dot"``, ``"cross"``, ``"between"`` (T,).
    """
    q, k = _pair(q, "q"), _pair(k, "k")
    if isinstance(theta_i, bool) or not isinstance(theta_i, (int, float)) or \
            not math.isfinite(theta_i) or theta_i <= 0:
        fail("theta_i", theta_i, "a finite number greater than 0 [rad/token]")
    m = as_integer_positions(m, name="m")
    n = as_integer_positions(n, name="n", length=m.numel())
    th = torch.tensor([float(theta_i)], dtype=torch.float64)  # (1,)
    frames = m.numel()
    q_rot = apply_rope(q.expand(frames, 2), m, th)  # (T, 2): R(m theta) q
    k_rot = apply_rope(k.expand(frames, 2), n, th)  # (T, 2): R(n theta) k
    dot = (q_rot * k_rot).sum(-1)  # (T,)
    cross = q_rot[:, 0] * k_rot[:, 1] - q_rot[:, 1] * k_rot[:, 0]  # (T,)
    return {"angle_q": angles(m, th)[:, 0], "angle_k": angles(n, th)[:, 0],
            "q_rot": q_rot, "k_rot": k_rot, "dot": dot, "cross": cross,
            "between": torch.atan2(cross, dot)}


def positions_per_frame(theta_i: float, frames: int, *,
                        limit: int = MAX_POSITIONS_PER_FRAME) -> int:
    """The fewest positions per frame that let a pair finish one full turn within
    ``frames`` frames: ceil(2 pi / (theta_i * (frames - 1))), at least 1 and at
    most ``limit`` (a pair slower than that turns less than once).

    Example: theta_i = 1 rad/token, 60 frames: ceil(6.283 / 59) = 1.
    """
    frames = check_int(frames, "frames", 2, 100_000)
    limit = check_int(limit, "limit", 1, 2**40)
    if isinstance(theta_i, bool) or not isinstance(theta_i, (int, float)) or \
            not math.isfinite(theta_i) or theta_i <= 0:
        fail("theta_i", theta_i, "a finite number greater than 0 [rad/token]")
    need = 2.0 * math.pi / (float(theta_i) * (frames - 1))
    if need >= limit:
        return limit
    return max(1, math.ceil(need - 1e-12))


def rope_steps(q, m: int, base: float, layout: str = "interleaved") -> dict[str, torch.Tensor]:
    """Every intermediate of R_m q for a short vector q (d = len(q) coordinates).

    theta_i = base^(-2i/d), i = 0 ... d/2 - 1; pair i is coordinates (a_i, b_i) =
    (2i, 2i+1) (interleaved) or (i, i + d/2) (half). Three formulations of R_m q:

    * element-wise: q * cos(m theta) + rotate(q) * sin(m theta), rotate(q)_(a, b) = (-q_b, q_a)
    * dense: the block-diagonal matrix R_m times q
    * complex: z_i = q_a + iota q_b, z'_i = z_i e^(iota m theta_i) (iota = sqrt(-1))

    Args:
        q: 2 ... 16 finite numbers, even count.
        m: integer position, |m| <= 10^9.
        base: finite number > 1.
        layout: ``"interleaved"`` or ``"half"``.
    Returns:
        dict of float64 tensors (int64 for indices):
        per pair (d/2,): ``"pair"``, ``"a"``, ``"b"``, ``"theta"``, ``"angle"`` = m theta_i,
        ``"cos"``, ``"sin"``;
        per coordinate (d,): ``"j"``, ``"pair_of"`` (the pair of coordinate j),
        ``"q"``, ``"cos_j"``, ``"sin_j"``, ``"rotate"``, ``"elementwise"``, ``"dense"``,
        ``"complex"``;
        ``"R"``: (d, d) the dense R_m;
        scalars: ``"gap"`` (largest difference between the three forms), ``"norm_q"`` = |q|,
        ``"norm_rotated"`` = |R_m q| (equal: R_m is orthogonal).
    """
    if isinstance(q, torch.Tensor):
        x = q.detach().to("cpu", torch.float64).reshape(-1)
    else:
        try:
            x = torch.tensor([float(v) for v in q], dtype=torch.float64)
        except (TypeError, ValueError):
            fail("q", q, "2 to {n} finite numbers, an even count", n=MAX_STEP_LENGTH)
    d = x.numel()
    if d < 2 or d > MAX_STEP_LENGTH or d % 2 or not bool(torch.isfinite(x).all()):
        fail("q", tuple(x.tolist()), "2 to {n} finite numbers, an even count",
             n=MAX_STEP_LENGTH)
    m = check_int(m, "m", -10**9, 10**9)
    base = check_base(base)
    layout = check_layout(layout)
    th = theta(d, base)  # (d/2,)
    angle = angles([m], th)[0]  # (d/2,)
    cos, sin = (t[0] for t in cos_sin([m], th))  # (d/2,) each
    perm = layout_permutation(d, layout)  # interleaved slot -> coordinate of this layout
    pair_of = torch.empty(d, dtype=torch.int64)  # (d,): coordinate j -> pair i
    pair_of[perm] = torch.arange(d) // 2
    a, b = perm[0::2], perm[1::2]  # (d/2,) the two coordinates of pair i
    rotate = torch.empty_like(x)  # (d,)
    rotate[a], rotate[b] = -x[b], x[a]
    cos_j, sin_j = cos[pair_of], sin[pair_of]  # (d,)
    R = rotation_matrix(m, th, layout=layout)  # (d, d)
    complex_form = torch.empty_like(x)
    complex_form[perm] = apply_rope_complex(x[perm][None], [m], th)[0]
    elementwise, dense = x * cos_j + rotate * sin_j, R @ x
    forms = torch.stack([elementwise, dense, complex_form])  # (3, d)
    gap = (forms[:, None, :] - forms[None, :, :]).abs().max()  # largest pairwise difference
    return {"pair": torch.arange(d // 2), "a": a, "b": b, "theta": th, "angle": angle,
            "cos": cos, "sin": sin,
            "j": torch.arange(d), "pair_of": pair_of, "q": x, "cos_j": cos_j, "sin_j": sin_j,
            "rotate": rotate, "elementwise": elementwise, "dense": dense,
            "complex": complex_form, "R": R,
            "gap": gap, "norm_q": torch.linalg.vector_norm(x),
            "norm_rotated": torch.linalg.vector_norm(dense)}
