"""Rotation frequencies: theta spectrum, wavelengths and angles.

theta_i = base^(-2i/dim), i = 0 ... dim/2 - 1. Pair i turns by m * theta_i
radians at position m and completes a full turn every 2*pi/theta_i tokens.
"""

from __future__ import annotations

import math

import torch

from ..support._checks import (
    as_integer_positions,
    check_base,
    check_dim,
    check_float_dtype,
    check_positive_float,
    check_theta,
)

DEFAULT_BASE = 10000.0


def theta(dim: int, base: float = DEFAULT_BASE, *, device=None,
          dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Frequencies of the dim/2 rotation pairs.

    theta_i = base^(-2i/dim) for i = 0 ... dim/2 - 1; theta_0 = 1 rad/token.

    Args:
        dim: even head dimension, 2 ... 4096.
        base: finite number > 1 (10000 in RoFormer and LLaMA 1/2).
    Returns:
        ``(dim/2,)`` tensor, decreasing from 1 to base^(-(dim-2)/dim).
    """
    dim = check_dim(dim)
    base = check_base(base)
    dtype = check_float_dtype(dtype)
    i = torch.arange(dim // 2, dtype=torch.float64, device=device)  # (dim/2,)
    # exponent first, in float64, then one cast: exact to the last digit of dtype.
    return torch.pow(base, -2.0 * i / dim).to(dtype)  # (dim/2,)


def wavelength(theta: torch.Tensor) -> torch.Tensor:
    """Wavelength of each pair in tokens: lambda_i = 2*pi / theta_i.

    Args:
        theta: ``(dim/2,)`` positive frequencies.
    Returns:
        ``(dim/2,)`` tensor in theta's dtype and device.
    """
    theta = check_theta(theta)
    return (2.0 * math.pi) / theta  # (dim/2,)


def angles(positions, theta: torch.Tensor) -> torch.Tensor:
    """Rotation angle of every pair at every position: angle[m, i] = m * theta_i.

    The product is formed in float64 (a position like 10^6 keeps all its digits)
    and cast once to theta's dtype.

    Args:
        positions: ``(seq,)`` integers (tensor, range or list).
        theta: ``(dim/2,)`` frequencies.
    Returns:
        ``(seq, dim/2)`` tensor in radians, theta's dtype and device.
    """
    theta = check_theta(theta)
    m = as_integer_positions(positions).to(device=theta.device, dtype=torch.float64)  # (seq,)
    return torch.outer(m, theta.to(torch.float64)).to(theta.dtype)  # (seq, dim/2)


def turns_within(theta: torch.Tensor, context_length: float) -> torch.Tensor:
    """Number of full turns pair i makes over L tokens: L * theta_i / (2*pi).

    A pair with fewer than one turn never sees the same angle twice inside the
    context, so its angle alone identifies every position (identifies, not orders:
    cos is monotone only over half a turn).

    Returns:
        ``(dim/2,)`` tensor.
    """
    theta = check_theta(theta)
    context_length = check_positive_float(context_length, "context_length", upper=1e9)
    return theta * (context_length / (2.0 * math.pi))  # (dim/2,)
