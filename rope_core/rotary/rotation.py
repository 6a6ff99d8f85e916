"""Applying the rotation R_m to vectors: element-wise, dense and complex forms.

Pair i of a head vector is rotated by the angle m * theta_i:

    [x'_a]   [cos(m theta_i)  -sin(m theta_i)] [x_a]
    [x'_b] = [sin(m theta_i)   cos(m theta_i)] [x_b]

Which two coordinates form pair i depends on the layout:

* ``"interleaved"``: (a, b) = (2i, 2i+1), as in the RoFormer paper and Meta's
  LLaMA code;
* ``"half"``: (a, b) = (i, i + dim/2), as in GPT-NeoX and Hugging Face
  transformers ("rotate_half").

Both layouts are the same rotation up to a fixed permutation of coordinates
(see :func:`layout_permutation`).
"""

from __future__ import annotations

import torch

from ..support._checks import as_integer_positions, check_dim, check_layout, check_theta, fail

LAYOUTS = ("interleaved", "half")


def _check_x(x, theta: torch.Tensor, name: str = "x") -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point or x.ndim < 2:
        fail(name, x, "a floating-point tensor of shape (..., seq, dim)")
    if x.shape[-1] != 2 * theta.numel():
        fail(f"{name}.shape[-1]", x.shape[-1],
             "2 * len(theta) = {width} (one pair per frequency)", width=2 * theta.numel())
    if x.device != theta.device:
        fail("theta.device", str(theta.device), "the device of {tensor} ({device})", tensor=name,
             device=str(x.device))
    return x


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 stays float64; float32, bf16 and fp16 are computed in float32."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def cos_sin(positions, theta: torch.Tensor, dtype: torch.dtype = torch.float64):
    """cos and sin of m * theta_i, formed in float64, then cast once to ``dtype``.

    Returns:
        ``(cos, sin)``, each ``(seq, dim/2)``.
    """
    theta = check_theta(theta)
    m = as_integer_positions(positions).to(device=theta.device, dtype=torch.float64)  # (seq,)
    angle = torch.outer(m, theta.to(torch.float64))  # (seq, dim/2), float64
    return angle.cos().to(dtype), angle.sin().to(dtype)


def pair_views(t: torch.Tensor, layout: str):
    """The two coordinates of every pair, as views of ``t`` (no copy).

    Returns:
        ``(a, b)``, each ``(..., dim/2)``.
    """
    half = t.shape[-1] // 2
    if layout == "interleaved":
        pairs = t.unflatten(-1, (half, 2))  # (..., dim/2, 2)
        return pairs[..., 0], pairs[..., 1]
    return t[..., :half], t[..., half:]


def _rotary_width(x, theta: torch.Tensor, rotary_dim) -> int:
    """rotary_dim = 2 len(theta), checked against x's last dim (partial rotary)."""
    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point or x.ndim < 2:
        fail("x", x, "a floating-point tensor of shape (..., seq, dim)")
    width = 2 * theta.numel()
    if rotary_dim is not None and (isinstance(rotary_dim, bool) or rotary_dim != width):
        fail("rotary_dim", rotary_dim, "2 * len(theta) = {width} (or None)", width=width)
    if x.shape[-1] < width:
        fail("x.shape[-1]", x.shape[-1],
             "at least 2 * len(theta) = {width} (one pair per frequency)", width=width)
    return width


def apply_rope(x: torch.Tensor, positions, theta: torch.Tensor, *,
               layout: str = "interleaved", rotary_dim: int | None = None) -> torch.Tensor:
    """Rotate every pair of ``x`` by its position's angle (RoPE).

    For each pair (a, b) of layout ``layout`` and position m:

        out_a = x_a cos(m theta_i) - x_b sin(m theta_i)
        out_b = x_a sin(m theta_i) + x_b cos(m theta_i)

    i.e. ``x * cos + rotate(x) * sin`` without materialising ``rotate(x)``. In
    the interleaved layout each pair is one complex multiply written straight
    into the output (one pass over memory); in the half layout, four fused
    multiply(-add) passes over views of the two halves, also into the output.

    Partial rotary (GPT-NeoX 25%, GPT-J 64 of 256, ChatGLM half, DeepSeek's 64
    rope dims): when theta has r/2 < dim/2 entries, only x[..., :r] is rotated
    (pairs laid out within those r coordinates: (i, i + r/2) for "half") and
    x[..., r:] passes through unchanged.

    Args:
        x: ``(..., seq, dim)`` floating-point tensor.
        positions: ``(seq,)`` integers, any offset (e.g. 10^6).
        theta: ``(r/2,)`` frequencies on x's device, r <= dim.
        layout: ``"interleaved"`` or ``"half"``.
        rotary_dim: r, optional; must equal 2 * len(theta) when given.
    Returns:
        Tensor of x's shape, dtype and device. Angles, cos and sin are formed in
        float64; the products run in float64 for float64 x, else in float32.
    """
    theta = check_theta(theta)
    layout = check_layout(layout)
    rotary = _rotary_width(x, theta, rotary_dim)
    if rotary < x.shape[-1]:
        out = x.clone()  # (..., seq, dim): coordinates r ... dim-1 pass through
        out[..., :rotary] = apply_rope(x[..., :rotary], positions, theta, layout=layout)
        return out
    x = _check_x(x, theta)
    work = _compute_dtype(x.dtype)
    cos, sin = cos_sin(as_integer_positions(positions, length=x.shape[-2]), theta, work)
    src = x if x.dtype == work else x.to(work)
    out = torch.empty(src.shape, dtype=work, device=src.device)  # (..., seq, dim)
    if layout == "interleaved":
        # (x_a + i x_b)(cos + i sin) = (x_a cos - x_b sin) + i (x_a sin + x_b cos):
        # one pass over memory instead of four (view_as_complex needs contiguity).
        z = torch.view_as_complex(src.contiguous().unflatten(-1, (-1, 2)))  # (..., seq, dim/2)
        torch.mul(z, torch.complex(cos, sin), out=torch.view_as_complex(out.unflatten(-1, (-1, 2))))
    else:
        x_a, x_b = pair_views(src, layout)  # (..., seq, dim/2) each
        out_a, out_b = pair_views(out, layout)
        torch.mul(x_a, cos, out=out_a)
        out_a.addcmul_(x_b, sin, value=-1.0)
        torch.mul(x_a, sin, out=out_b)
        out_b.addcmul_(x_b, cos)
    return out if out.dtype == x.dtype else out.to(x.dtype)


def layout_permutation(dim: int, layout: str) -> torch.Tensor:
    """Index map from a layout to the interleaved one.

    ``perm[j]`` is the coordinate of the ``layout`` vector that sits at
    interleaved coordinate j: pair i occupies (2i, 2i+1) interleaved and
    (i, i + dim/2) in the half layout. Hence, for any x,
    ``apply_rope(x, ..., layout)[..., perm] == apply_rope(x[..., perm], ...)``.

    Returns:
        ``(dim,)`` int64 tensor.
    """
    dim = check_dim(dim)
    layout = check_layout(layout)
    if layout == "interleaved":
        return torch.arange(dim)
    i = torch.arange(dim // 2)
    return torch.stack([i, i + dim // 2], dim=-1).flatten()  # (dim,)


def rotation_matrix(position: int, theta: torch.Tensor, *,
                    layout: str = "interleaved") -> torch.Tensor:
    """The dense block-diagonal rotation R_m (for display and as a reference).

    Pair i contributes the block [[cos, -sin], [sin, cos]] of angle m * theta_i
    at rows/columns (a, b) of the layout. R_m is orthogonal and
    R_m^T R_n = R_(n-m).

    Args:
        position: integer m.
        theta: ``(dim/2,)`` frequencies.
    Returns:
        ``(dim, dim)`` tensor in theta's dtype and device.
    """
    theta = check_theta(theta)
    layout = check_layout(layout)
    m = as_integer_positions([position], name="position")
    cos, sin = cos_sin(m, theta, theta.dtype)  # (1, dim/2) each
    cos, sin = cos[0], sin[0]
    dim = 2 * theta.numel()
    half = dim // 2
    i = torch.arange(half, device=theta.device)
    a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
    R = torch.zeros(dim, dim, dtype=theta.dtype, device=theta.device)  # (dim, dim)
    R[a, a] = cos
    R[a, b] = -sin
    R[b, a] = sin
    R[b, b] = cos
    return R


def apply_rope_complex(x: torch.Tensor, positions, theta: torch.Tensor) -> torch.Tensor:
    """The complex-number form (LLaMA's ``apply_rotary_emb``), interleaved layout.

    Pair i is read as z_i = x_(2i) + i x_(2i+1) and multiplied by the unit
    complex number e^(i m theta_i) = torch.polar(1, m theta_i).

    Args:
        x: ``(..., seq, dim)`` floating-point tensor.
        positions: ``(seq,)`` integers.
        theta: ``(dim/2,)`` frequencies.
    Returns:
        Tensor of x's shape and dtype.
    """
    theta = check_theta(theta)
    x = _check_x(x, theta)
    work = _compute_dtype(x.dtype)
    m = as_integer_positions(positions, length=x.shape[-2]).to(theta.device, torch.float64)
    angle = torch.outer(m, theta.to(torch.float64))  # (seq, dim/2)
    rot = torch.polar(torch.ones_like(angle), angle)  # (seq, dim/2), complex128
    rot = rot.to(torch.complex128 if work == torch.float64 else torch.complex64)
    z = torch.view_as_complex(x.to(work).unflatten(-1, (-1, 2)).contiguous())  # (..., seq, dim/2)
    return torch.view_as_real(z * rot).flatten(-2).to(x.dtype)  # (..., seq, dim)
