"""Argument validation shared by every rope_core module.

Each check raises :class:`RopeError` (a ``ValueError``) whose message names the
parameter, the value that was given and what is allowed, so that the dashboard
can show it as is. Its templates are literals (messages of the app's gettext
catalog): ``fail(name, value, "an integer from {low} to {high}", low=1, high=8)``
with the values as named parameters, never formatted into the template.
Prose in rope_core's constants that a page shows is marked with :func:`N_`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real
from typing import NoReturn

import torch

MAX_DIM = 4096  # head dims beyond this are not a teaching use case


def N_(message: str) -> str:  # noqa: N802 (the gettext convention)
    """Mark ``message`` for the app's catalog without translating it: text kept
    in rope_core's constants that a page shows (and translates where it shows it)."""
    return message


def _fmt(value):
    """The value as the error shows it: its ``repr``, or for a tensor a
    :class:`Message` (its values, or its shape when it is large)."""
    if isinstance(value, Message):
        return value  # already a sentence, e.g. "<12 bytes>"
    if isinstance(value, torch.Tensor):
        if value.numel() <= 6:
            return Message("tensor({values})", values=str(value.tolist()))
        return Message("tensor of shape {shape}", shape=str(tuple(value.shape)))
    return repr(value)


class Message:
    """An English sentence with named placeholders and its values.

    ``str(message)`` is the English text. The template is a message of the
    app's gettext catalog (extracted from the calls of :func:`fail` and
    :class:`RopeError`), so a user interface can show the sentence in another
    language: translate the template, then fill in the values (a value that is
    itself a Message is translated the same way).
    """

    __slots__ = ("template", "params")

    def __init__(self, template: str, **params) -> None:
        self.template = template
        self.params = params

    def render(self, translate=lambda template: template) -> str:
        """The sentence, each template passed through ``translate`` first."""
        values = {k: v.render(translate) if isinstance(v, Message) else v
                  for k, v in self.params.items()}
        return translate(self.template).format(**values)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Message({self.template!r}, **{self.params!r})"


class Code(str):
    """A value of a :class:`Message` that is code, not prose (a file and its lines, a
    flag): its text unchanged, which a user interface shows as a code span."""

    __slots__ = ()


class RopeError(ValueError):
    """rope_core's ValueError: ``str(err)`` is the English message and
    ``err.message`` the :class:`Message` to translate."""

    def __init__(self, template: str, **params) -> None:
        self.message = Message(template, **params)
        super().__init__(str(self.message))


def fail(name: str, value, allowed: str, **params) -> NoReturn:
    """Raise the error for argument ``name``: ``allowed`` says what is allowed, as
    a literal template whose ``{placeholders}`` are filled from ``params``."""
    reject(name, value, Message(allowed, **params))


def reject(name: str, value, allowed: Message) -> NoReturn:
    """:func:`fail` with the allowed text already a :class:`Message` (built from
    literal templates elsewhere, e.g. ``Param.allowed()``)."""
    raise RopeError("{name}={value} is not allowed: {name} must be {allowed}.",
                    name=name, value=_fmt(value), allowed=allowed)


def check_dim(dim, name: str = "dim") -> int:
    """An even integer in [2, MAX_DIM]."""
    if isinstance(dim, bool) or not isinstance(dim, Integral):
        fail(name, dim, "an even integer from 2 to {high}", high=MAX_DIM)
    dim = int(dim)
    if dim < 2 or dim > MAX_DIM or dim % 2:
        fail(name, dim, "an even integer from 2 to {high}", high=MAX_DIM)
    return dim


def check_base(base, name: str = "base") -> float:
    """A finite real number greater than 1."""
    if isinstance(base, bool) or not isinstance(base, Real):
        fail(name, base, "a finite number greater than 1")
    base = float(base)
    if not math.isfinite(base) or base <= 1.0:
        fail(name, base, "a finite number greater than 1")
    return base


def check_positive_float(value, name: str, upper: float = math.inf) -> float:
    """A finite real number in (0, upper]."""
    if isinstance(value, bool) or not isinstance(value, Real):
        fail(name, value, "a finite number greater than 0 and at most {upper}", upper=f"{upper:g}")
    value = float(value)
    if not math.isfinite(value) or value <= 0 or value > upper:
        fail(name, value, "a finite number greater than 0 and at most {upper}", upper=f"{upper:g}")
    return value


def check_int(value, name: str, low: int, high: int) -> int:
    """An integer in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        fail(name, value, "an integer from {low} to {high}", low=low, high=high)
    value = int(value)
    if value < low or value > high:
        fail(name, value, "an integer from {low} to {high}", low=low, high=high)
    return value


def check_choice(value, name: str, choices: Sequence[str]) -> str:
    if value not in choices:
        fail(name, value, "one of {choices}", choices=", ".join(repr(c) for c in choices))
    return value


def check_float_dtype(dtype, name: str = "dtype") -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        fail(name, dtype, "a floating-point torch dtype such as torch.float64")
    return dtype


def check_theta(theta, name: str = "theta") -> torch.Tensor:
    """A 1-D, non-empty, finite floating-point tensor with every entry >= 0
    (theta_i = 0 is an unrotated pair, as in p-RoPE)."""
    if not isinstance(theta, torch.Tensor):
        fail(name, theta, "a 1-D torch tensor of frequencies (use rope_core.theta)")
    if theta.ndim != 1 or theta.numel() == 0 or not theta.dtype.is_floating_point:
        fail(name, theta, "a non-empty 1-D floating-point tensor")
    if not bool(torch.isfinite(theta).all()) or not bool((theta >= 0).all()):
        fail(name, theta, "finite and at least 0 everywhere (0 leaves a pair unrotated)")
    return theta


def as_integer_positions(positions, name: str = "positions", length: int | None = None,
                         max_abs: float = 1e9) -> torch.Tensor:
    """Integer-valued 1-D positions as an int64 tensor (on the input's device).

    Accepts a tensor, a range, or a sequence of numbers. Floats are allowed only
    when every value is a whole number.
    """
    if isinstance(positions, torch.Tensor):
        t = positions
    else:
        try:
            t = torch.as_tensor(list(positions) if not isinstance(positions, range) else positions)
        except (TypeError, ValueError, RuntimeError):
            fail(name, positions, "a 1-D sequence of integers")
    if t.ndim != 1:
        fail(name, t, "a 1-D sequence of integers")
    if t.dtype == torch.bool or t.is_complex():
        fail(name, t, "a 1-D sequence of integers")
    if t.dtype.is_floating_point:
        if not bool(torch.isfinite(t).all()) or not bool((t == torch.round(t)).all()):
            fail(name, t, "integer-valued (whole numbers, no NaN or inf)")
    if t.numel() and float(t.abs().max()) > max_abs:
        fail(name, t, "integers with absolute value at most {max_abs}", max_abs=f"{max_abs:g}")
    if length is not None and t.numel() != length:
        fail(name, t, "of length {length} (one position per row of x), got length {n}",
             length=length, n=t.numel())
    return t.to(torch.int64)


def as_distances(distances, name: str = "distances", max_abs: float = 1e9,
                 device=None) -> torch.Tensor:
    """Non-empty, finite, 1-D distances as a float64 tensor."""
    if isinstance(distances, torch.Tensor):
        t = distances
    else:
        try:
            t = torch.as_tensor(distances if isinstance(distances, range) else list(distances),
                                dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError):
            fail(name, distances, "a non-empty 1-D sequence of finite numbers")
    if t.ndim != 1 or t.numel() == 0 or t.dtype == torch.bool or t.is_complex():
        fail(name, t, "a non-empty 1-D sequence of finite numbers")
    t = t.to(torch.float64)
    if not bool(torch.isfinite(t).all()):
        fail(name, t, "finite (no NaN or inf)")
    if float(t.abs().max()) > max_abs:
        fail(name, t, "numbers with absolute value at most {max_abs}", max_abs=f"{max_abs:g}")
    return t if device is None else t.to(device)


def check_layout(layout) -> str:
    return check_choice(layout, "layout", ("interleaved", "half"))
