"""The sinusoidal positional encoding of "Attention Is All You Need".

PE[p, 2i] = sin(p * omega_i), PE[p, 2i+1] = cos(p * omega_i),
omega_i = base^(-2i/d_model). It is *added* to token embeddings; RoPE instead
*rotates* q and k with the same frequencies.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal, localcontext

import torch

from ..support._checks import (
    Message,
    as_integer_positions,
    check_base,
    check_dim,
    check_float_dtype,
    check_int,
    fail,
)
from .frequencies import DEFAULT_BASE, theta

MAX_POSITIONS = 1_000_000


def sinusoidal_pe(num_positions: int, dim: int, base: float = DEFAULT_BASE, *, device=None,
                  dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The table PE for positions 0 ... num_positions - 1.

    PE[p, 2i] = sin(p * base^(-2i/dim)), PE[p, 2i+1] = cos(p * base^(-2i/dim)).

    Returns:
        ``(num_positions, dim)`` tensor; angles and sin/cos in float64, then cast.
    """
    num_positions = check_int(num_positions, "num_positions", 1, MAX_POSITIONS)
    dtype = check_float_dtype(dtype)
    omega = theta(dim, base, device=device)  # (dim/2,) float64
    p = torch.arange(num_positions, dtype=torch.float64, device=device)  # (P,)
    angle = torch.outer(p, omega)  # (P, dim/2)
    pe = torch.stack([angle.sin(), angle.cos()], dim=-1)  # (P, dim/2, 2)
    return pe.flatten(-2).to(dtype)  # (P, dim)


def sinusoidal_dot(offsets, dim: int, base: float = DEFAULT_BASE, *, device=None) -> torch.Tensor:
    """PE_m . PE_n as a function of the offset m - n alone.

    sin(a)sin(b) + cos(a)cos(b) = cos(a - b), so
    PE_m . PE_n = sum_i cos((m - n) * omega_i): even in m - n (it cannot tell
    before from after), equal to dim/2 at offset 0.

    Args:
        offsets: ``(K,)`` integers m - n.
    Returns:
        ``(K,)`` float64 tensor.
    """
    omega = theta(dim, base, device=device)  # (dim/2,)
    delta = as_integer_positions(offsets, name="offsets").to(device=omega.device,
                                                            dtype=torch.float64)  # (K,)
    return torch.cos(torch.outer(delta, omega)).sum(dim=-1)  # (K,)


def frequency_forms(dim: int, base: float = DEFAULT_BASE, *,
                    dtype: torch.dtype = torch.float32) -> dict[str, torch.Tensor]:
    """The two ways of writing omega_i, each evaluated entirely in ``dtype``.

    * ``"pow"``: base ** (-(2i)/dim)
    * ``"exp"``: exp((2i) * (-ln(base)/dim))   (the "div_term" of many codes)
    * ``"exact"``: float64 reference base^(-2i/dim) (also returned in float64)

    Mathematically identical (a^x = e^(x ln a)); any difference is rounding.

    Returns:
        dict of ``(dim/2,)`` tensors.
    """
    dim = check_dim(dim)
    base = check_base(base)
    dtype = check_float_dtype(dtype)
    if base > torch.finfo(dtype).max:
        fail("base", base, "at most {largest}, the largest {dtype} number, "
                           "to be written in that dtype",
             largest=f"{torch.finfo(dtype).max:g}", dtype=str(dtype))
    two_i = torch.arange(0, dim, 2, dtype=dtype)  # (dim/2,)
    pow_form = torch.pow(torch.tensor(base, dtype=dtype), -two_i / dim)
    exp_form = torch.exp(two_i * torch.tensor(-math.log(base) / dim, dtype=dtype))
    exact = torch.pow(base, -torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    return {"pow": pow_form, "exp": exp_form, "exact": exact}


REFERENCE_DIGITS = 40


def reference_frequencies(dim: int, base: float = DEFAULT_BASE, *,
                          digits: int = REFERENCE_DIGITS) -> list[Decimal]:
    """omega_i = base^(-2i/dim), i = 0 ... dim/2 - 1, to ``digits`` decimal digits.

    Computed with Python's decimal module (base is read exactly as the float it
    is), a yardstick independent of torch's float32/float64 arithmetic. Each
    value is ``Decimal(base) ** y_i`` with y_i = -2i/dim rounded to ``digits``
    digits, rounded to ``digits`` digits, found without one ``**`` per pair:
    a product of powers q^i, q = exp(-(2/dim) ln base), carried with 20 more
    digits (relative error below 10^-(digits+8)) and corrected by
    exp((y_i + 2i/dim) ln base) ~ 1 + (y_i + 2i/dim) ln base for the rounding
    of y_i; a value whose interval of that width does not round to one
    ``digits``-digit number (near a rounding boundary) is taken from ``**``
    itself, so every value is the one ``**`` gives (Ziv's test).

    Returns:
        list of dim/2 Decimals.
    """
    dim = check_dim(dim)
    base = check_base(base)
    digits = check_int(digits, "digits", 20, 200)
    with localcontext() as ctx:
        ctx.prec = digits
        b = Decimal(base)
        wide = Context(prec=digits + 20, rounding=ROUND_HALF_EVEN, Emax=MAX_EMAX, Emin=MIN_EMIN)
        log_b = wide.ln(b)  # ln base, digits + 20 digits
        step = wide.exp(wide.divide(wide.multiply(log_b, -2), dim))  # q = base^(-2/dim)
        low = wide.subtract(1, Decimal(10) ** -(digits + 8))  # 1 -/+ the error bound
        high = wide.add(1, Decimal(10) ** -(digits + 8))
        out = [b ** (Decimal(0) / Decimal(dim))]  # i = 0: exactly 1, as ** writes it
        power = Decimal(1)  # q^i
        for i in range(1, dim // 2):
            y = Decimal(-2 * i) / Decimal(dim)  # the exponent, rounded to digits digits
            power = wide.multiply(power, step)
            shift = wide.subtract(y, wide.divide(-2 * i, dim))  # y_i + 2i/dim
            value = wide.fma(power, wide.multiply(shift, log_b), power)  # q^i (1 + shift ln b)
            lo, hi = ctx.plus(wide.multiply(value, low)), ctx.plus(wide.multiply(value, high))
            out.append(lo if lo == hi else b ** y)
        return out


def relative_errors(values, exact, *, digits: int = REFERENCE_DIGITS) -> list[float]:
    """|value - exact| / exact for each pair, formed in ``digits``-digit decimal
    arithmetic (each float value is read exactly), returned as floats."""
    values, exact = list(values), list(exact)
    if len(values) != len(exact):
        count = Message("{n} values", n=len(values))  # not inside fail(): Babel's extractor
        fail("values", count, "as many as exact ({n})", n=len(exact))
    out = []
    with localcontext() as ctx:
        ctx.prec = digits
        for v, e in zip(values, exact):
            e = Decimal(e)
            if e <= 0:
                fail("exact", e, "greater than 0")
            out.append(float(abs(Decimal(float(v)) - e) / e))
    return out
