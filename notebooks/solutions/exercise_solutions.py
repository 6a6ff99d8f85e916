"""Solutions to the exercises notebooks (notebooks/exercises_en.ipynb, exercises_zh.ipynb).

For teachers: one function per exercise, under the name and with the signature of the
notebook's stub; each uses only ``math`` and ``torch``, as the notebook does, and none
calls another, so that each exercise stands alone. ``python tools/make_exercises.py
--solutions DIR`` writes the notebooks with these filled in; the tests run them
(tests/test_notebooks_exercises.py). Written from the formulas, not from rope_core.
"""

import math

import torch


def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float64)  # (dim/2,) pair index
    return base ** (-2 * i / dim)  # (dim/2,)


def apply_rope_interleaved(x, positions, theta):
    angle = positions.to(torch.float64)[:, None] * theta  # (seq, dim/2)
    cos, sin = angle.cos(), angle.sin()
    a, b = x[..., 0::2], x[..., 1::2]  # (..., seq, dim/2) each: pairs (2i, 2i+1)
    out = torch.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def apply_rope_half(x, positions, theta):
    angle = positions.to(torch.float64)[:, None] * theta  # (seq, dim/2)
    cos, sin = angle.cos(), angle.sin()
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]  # (..., seq, dim/2) each: pairs (i, i + d/2)
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


def relative_score(q, k, distances, theta):
    q_a, q_b = q[0::2], q[1::2]  # (dim/2,) each
    k_a, k_b = k[0::2], k[1::2]
    angle = distances.to(torch.float64)[:, None] * theta  # (R, dim/2)
    along = q_a * k_a + q_b * k_b  # (dim/2,)
    across = q_b * k_a - q_a * k_b  # (dim/2,)
    return (along * angle.cos() + across * angle.sin()).sum(-1)  # (R,)


def decay_bound(distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta  # (R, dim/2)
    re = angle.cos().cumsum(-1)  # (R, dim/2): Re S_1 ... Re S_(d/2)
    im = angle.sin().cumsum(-1)  # Im S_j
    return torch.sqrt(re**2 + im**2).mean(-1)  # (R,)


def yarn_theta(dim, base, factor, original_max_position_embeddings, beta_fast=32.0,
               beta_slow=1.0):
    i = torch.arange(dim // 2, dtype=torch.float64)  # (dim/2,)
    theta = base ** (-2 * i / dim)

    def index_turning(turns):  # the pair index that turns `turns` times within L
        L = original_max_position_embeddings
        return dim * math.log(L / (2 * math.pi * turns)) / (2 * math.log(base))

    low = max(math.floor(index_turning(beta_fast)), 0)
    high = min(math.ceil(index_turning(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    ramp = ((i - low) / (high - low)).clamp(0, 1)  # (dim/2,): 0 keeps, 1 divides by s
    return theta * (1 - ramp) + theta / factor * ramp


def mrope_position_ids(segments, spatial_merge_size=2):
    columns = []  # one (3,) id triple per token
    start = 0
    for kind, size in segments:
        if kind == "text":
            columns += [[start + j] * 3 for j in range(size)]
            start += size
        else:
            t, h, w = size[0], size[1] // spatial_merge_size, size[2] // spatial_merge_size
            columns += [[start + f, start + r, start + c]
                        for f in range(t) for r in range(h) for c in range(w)]
            start += max(h, w)
    return torch.tensor(columns, dtype=torch.int64).T  # (3, seq)
