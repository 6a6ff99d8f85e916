"""Exercises that check themselves: a student's function against rope_core.

The exercises notebooks (``notebooks/exercises_en.ipynb``, ``exercises_zh.ipynb``, made by
``tools/make_exercises.py``) ask a student to write seven functions; after each, a check
cell calls the matching ``check_*`` here. A check runs the student's function on a fixed
first case and seeded random ones, compares every result with rope_core's, and returns a
:class:`Report`: passed, or the first problem found, said as precisely as it can be:

1. the function is not written yet (it raises ``NotImplementedError``) or raises;
2. it returns no tensor, a tensor of the wrong shape (with the usual reason where a shape
   says it, e.g. one frequency per coordinate instead of per pair) or of a floating-point
   type that loses digits, or NaN;
3. its values differ: then the known mistakes of that exercise are tried, each computed
   from rope_core for the same inputs (the other layout, the rotation's sign, θ in reverse,
   i/d for 2i/d, a missing 2π, YaRN's ramp reversed, ...); the one the student's values
   match, to 1e-5 relative, names the mistake. Otherwise the report gives the first
   element that differs, its expected and returned value.

Every sentence is a :class:`~rope_core.support._checks.Message` of the app's catalog, so the
report reads in the student's language (``lang="en"`` or ``"zh"``,
:mod:`rope_core.support.translation`).

The exercises, by the function the student writes (the arguments the check passes, in
order, and what it compares with):

* ``theta(dim, base)``: ``(dim/2,)``, θ_i = base^(−2i/d) (:func:`rope_core.theta`).
* ``apply_rope_interleaved(x, positions, theta)``, ``apply_rope_half(x, positions,
  theta)``: x ``(heads, seq, dim)``, positions ``(seq,)`` int64, theta ``(dim/2,)``; each
  pair (a, b) turned by m θ_i, pairs (2i, 2i+1) or (i, i + d/2)
  (:func:`rope_core.apply_rope`).
* ``relative_score(q, k, distances, theta)``: q, k ``(dim,)``, distances ``(R,)``:
  q^T R_r k = Σ_i (q_a k_a + q_b k_b) cos(r θ_i) + (q_b k_a − q_a k_b) sin(r θ_i),
  interleaved pairs (:func:`rope_core.score_vs_distance`); the report adds how closely it
  equals (R_m q)^T (R_(m+r) k), the relative-position identity.
* ``decay_bound(distances, theta)``: ``(R,)``, RoFormer's long-term-decay bound
  (1/(d/2)) Σ_{j=1}^{d/2} |S_j|, S_j = Σ_{k=0}^{j−1} e^(i r θ_k)
  (:func:`rope_core.relative_upper_bound`).
* ``yarn_theta(dim, base, factor, original_max_position_embeddings, beta_fast,
  beta_slow)``: ``(dim/2,)``, YaRN's frequencies as Hugging Face computes them
  (:func:`rope_core.scaled_theta` with ``method="yarn"``).
* ``mrope_position_ids(segments, spatial_merge_size)``: ``(3, seq)`` int64, Qwen2-VL's
  M-RoPE ids (:func:`rope_core.mrope_position_ids`; videos have at most max(h', w')
  temporal patches, where transformers' rule and the original release's agree).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..models.mrope import mrope_blocks, mrope_position_ids
from ..models.scaling import scaled_theta, yarn_ramp, yarn_ramp_bounds
from ..rotary.decay import relative_upper_bound, score_vs_distance
from ..rotary.frequencies import theta as theta_of
from ..rotary.rotation import apply_rope, cos_sin
from ..support._checks import Message, check_choice, check_int, fail
from ..support.translation import LANGUAGES, render

MAX_SEED = 2**31 - 1
RANDOM_CASES = 5  # seeded random cases after each check's fixed first one
RTOL = 1e-7  # a float64 result passes within this (relative, elementwise)
MATCH_RTOL = 1e-5  # a mistake is named when the result is this close to its values
LOOSE_RTOL = 1e-3  # closer than this in a lower precision: a rounding problem
PAIRS = {"interleaved": "(2i, 2i+1)", "half": "(i, i + d/2)"}


@dataclass(frozen=True)
class Report:
    """What one check found: ``passed`` and the sentence that says so (``message``, shown
    in ``lang``). A notebook shows it as its text: ✓ or ✗, then the sentence."""

    exercise: str
    passed: bool
    message: Message
    lang: str = "en"

    def text(self) -> str:
        return ("✓ " if self.passed else "✗ ") + render(self.message, self.lang)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:  # the check cell's result as plain text
        return self.text()

    def _repr_html_(self) -> str:
        """The check cell's result in Jupyter: the text, escaped, its `code` spans as
        code, a green (passed) or red (failed) rule on its left."""
        text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(self.text()))
        colour = "#1a7f37" if self.passed else "#cf222e"
        return (f'<div style="white-space: pre-wrap; border-left: 4px solid {colour}; '
                f'padding-left: 0.6em">{text}</div>')

    def __bool__(self) -> bool:
        return self.passed


@dataclass(frozen=True)
class _Mistake:
    """A known mistake: its message and its values for the same inputs (None where the
    mistake cannot be formed for them)."""

    message: Message
    values: Callable[..., torch.Tensor | None]


# ------------------------------------------------------------------ the machinery ----
def _describe(value) -> str:
    """An argument as the report shows it: short and the same in every language."""
    if isinstance(value, torch.Tensor):
        kind = str(value.dtype).removeprefix("torch.")
        if value.numel() <= 8:
            return f"{kind}{[round(v, 6) if isinstance(v, float) else v for v in value.tolist()]}"
        return f"{kind}[{', '.join(str(n) for n in value.shape)}]"
    return repr(value)


def _case_text(names: tuple[str, ...], args: tuple) -> str:
    return ", ".join(f"{name}={_describe(arg)}" for name, arg in zip(names, args))


def _copy(value):
    """A fresh copy of an argument, so that a function that writes into its inputs
    cannot change the reference's."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _close(got: torch.Tensor, want: torch.Tensor, rtol: float) -> bool:
    """Elementwise |got - want| <= rtol |want| + rtol * 1e-2 * max|want| (float64)."""
    if got.shape != want.shape:
        return False
    got, want = got.detach().to("cpu", torch.float64), want.to(torch.float64)
    scale = float(want.abs().max()) if want.numel() else 0.0
    return bool(torch.isclose(got, want, rtol=rtol, atol=rtol * 1e-2 * max(scale, 1e-300)).all())


def _values_problem(name: str, got, want: torch.Tensor, shape_hint, args: tuple
                    ) -> Message | None:
    """What is wrong with ``got`` before its values are compared: its type, shape (said by
    ``shape_hint(shape, *args)`` where it knows the reason), dtype or NaN; None when it can
    be compared."""
    if not isinstance(got, torch.Tensor):
        return Message("{function} returned {kind}; it should return a torch tensor.",
                       function=name, kind=type(got).__name__)
    if tuple(got.shape) != tuple(want.shape):
        hint = shape_hint(tuple(got.shape), *args) if shape_hint is not None else None
        return hint or Message("{function} returned shape {got}; expected {expected}.",
                               function=name, got=tuple(got.shape),
                               expected=tuple(want.shape))
    if got.is_complex() or got.dtype == torch.bool:
        return Message("{function} returned a tensor of {dtype}; expected {expected}.",
                       function=name, dtype=str(got.dtype), expected=str(want.dtype))
    if not want.dtype.is_floating_point:
        if got.dtype.is_floating_point:
            return Message("{function} returned {dtype} values; position ids are integers "
                           "(torch.int64).", function=name, dtype=str(got.dtype))
        return None
    if not bool(torch.isfinite(got).all()):
        index = tuple(torch.nonzero(~torch.isfinite(got))[0].tolist())
        return Message("{function} returned NaN or an infinity, first at index {index}.",
                       function=name, index=index)
    return None


def _difference(name: str, got: torch.Tensor, want: torch.Tensor) -> Message:
    """The first element that differs, its expected and returned values."""
    got64, want64 = got.detach().to("cpu", torch.float64), want.to(torch.float64)
    wrong = ~torch.isclose(got64, want64, rtol=RTOL, atol=RTOL * 1e-2 * max(
        float(want64.abs().max()), 1e-300))
    index = tuple(torch.nonzero(wrong)[0].tolist())
    return Message("{function} differs from rope_core at index {index}: expected {expected}, "
                   "got {got} (largest difference {error}).", function=name, index=index,
                   expected=f"{float(want64[index]):.10g}", got=f"{float(got64[index]):.10g}",
                   error=f"{float((got64 - want64).abs().max()):.3g}")


def _check(exercise: str, fn, lang: str, seed: int, names: tuple[str, ...],
           cases: Callable[[torch.Generator], Iterator[tuple]],
           reference: Callable[..., torch.Tensor], mistakes: Callable[..., list[_Mistake]],
           reference_name: str, shape_hint: Callable | None = None,
           extra: Callable | None = None) -> Report:
    """Run ``fn`` on every case (its arguments in the order of ``names``), compare with
    ``reference``, and say what is wrong at the first case that fails."""
    lang = check_choice(lang, "lang", LANGUAGES)
    if not callable(fn):
        fail("fn", fn, "the function you wrote for this exercise")
    seed = check_int(seed, "seed", 0, MAX_SEED)
    name = getattr(fn, "__name__", exercise)
    count = 0
    for args in cases(torch.Generator().manual_seed(seed)):
        want = reference(*args)
        try:
            got = fn(*(_copy(a) for a in args))
        except NotImplementedError:
            return Report(exercise, False, Message(
                "{function} is not written yet: replace `raise NotImplementedError` with your "
                "code, run its cell, then this check again.", function=name), lang)
        except Exception as err:  # the student's code: any error is reported, not raised
            return Report(exercise, False, Message(
                "{function}({case}) raised {error}: {text}", function=name,
                case=_case_text(names, args), error=type(err).__name__,
                text=str(err)[:300]), lang)
        case = _case_text(names, args)
        problem = _values_problem(name, got, want, shape_hint, args)
        if problem is None and not _close(got, want, RTOL):
            problem = next((m.message for m in mistakes(*args)
                            if (v := m.values()) is not None and _close(got, v, MATCH_RTOL)),
                           None)
            if problem is None and got.dtype != want.dtype and _close(got, want, LOOSE_RTOL):
                problem = Message("{function} is close but not exact: it computes in {dtype}. "
                                  "Work in torch.float64, as the inputs are, to match rope_core "
                                  "to the last digits.", function=name, dtype=str(got.dtype))
            problem = problem or _difference(name, got, want)
        if problem is not None:
            return Report(exercise, False, Message("{problem}\nInputs: {case}",
                                                   problem=problem, case=case), lang)
        count += 1
    message = Message("{function} matches {reference} on {count} cases (seed {seed}).",
                      function=name, reference=reference_name, count=count, seed=seed)
    if extra is not None:
        try:
            more = extra(fn, seed)
        except Exception:  # the student's code again: the cases passed, say what they showed
            more = None
        if more is not None:
            message = Message("{result} {more}", result=message, more=more)
    return Report(exercise, True, message, lang)


def _uniform(g: torch.Generator, low: float, high: float) -> float:
    return low + (high - low) * float(torch.rand((), generator=g, dtype=torch.float64))


def _integer(g: torch.Generator, low: int, high: int) -> int:
    """An integer in [low, high]."""
    return int(torch.randint(low, high + 1, (), generator=g))


def _base(g: torch.Generator, low: float = 2.0, high: float = 6.3) -> float:
    """A base 10^u, u uniform in [low, high], to four significant digits."""
    return float(f"{10 ** _uniform(g, low, high):.4g}")


# ------------------------------------------------------------------------- theta ----
def _theta_cases(g: torch.Generator):
    yield 8, 10000.0
    for _ in range(RANDOM_CASES):
        yield 2 * _integer(g, 4, 64), _base(g)


def _theta_mistakes(dim: int, base: float) -> list[_Mistake]:
    i = torch.arange(dim // 2, dtype=torch.float64)  # (dim/2,)
    right = theta_of(dim, base)  # (dim/2,)
    return [
        _Mistake(Message("The exponent is half what it should be: θ_i = base^(−2i/d) = "
                         "base^(−i/(d/2)), not base^(−i/d)."),
                 lambda: base ** (-i / dim)),
        _Mistake(Message("The exponent's sign is flipped: θ_i = base^(−2i/d) falls from 1 "
                         "towards 1/base; base^(+2i/d) grows."), lambda: base ** (2 * i / dim)),
        _Mistake(Message("The pair index starts at 1: in code i = 0 … d/2 − 1 and θ_0 = 1 "
                         "(RoFormer counts from 1 and writes base^(−2(i−1)/d))."),
                 lambda: base ** (-2 * (i + 1) / dim)),
        _Mistake(Message("The frequencies are in reverse order: pair 0 turns fastest, "
                         "θ_0 = 1, and θ_i falls as i grows."), lambda: right.flip(0)),
        _Mistake(Message("Off by a factor 2π: θ_i = base^(−2i/d) is in radians per token; "
                         "θ_i/(2π) would be turns per token."),
                 lambda: right / (2 * math.pi)),
        _Mistake(Message("Off by a factor 2π: θ_i = base^(−2i/d) radians per token, with no "
                         "2π."), lambda: right * (2 * math.pi)),
        _Mistake(Message("These are wavelengths 2π/θ_i (tokens per turn), not frequencies "
                         "θ_i."), lambda: 2 * math.pi / right),
    ]


def _theta_shape(shape: tuple, dim: int, base: float) -> Message | None:
    if shape == (dim,):
        return Message("One frequency per coordinate ({count} values): RoPE has one per pair "
                       "of coordinates, d/2 = {pairs} of them (i = 0 … d/2 − 1).",
                       count=dim, pairs=dim // 2)
    return None


def check_theta(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(dim, base)`` -> ``(dim/2,)`` against θ_i = base^(−2i/d)
    (:func:`rope_core.theta`), on d = 8, base = 10^4, then d in 8 ... 128 and bases
    from 100 to about 2 x 10^6.

    Args:
        fn: the student's function. lang: "en" or "zh". seed: 0 ... 2^31 − 1.
    Returns:
        a :class:`Report`.
    """
    return _check("theta", fn, lang, seed, ("dim", "base"), _theta_cases, theta_of,
                  _theta_mistakes, "rope_core.theta", _theta_shape)


# -------------------------------------------------------------------- apply_rope ----
def _rope_cases(g: torch.Generator):
    for n in range(RANDOM_CASES + 1):
        heads, seq, dim = (2, 4, 8) if n == 0 else (
            _integer(g, 1, 3), _integer(g, 3, 8), 2 * _integer(g, 2, 16))
        x = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)  # (heads, seq, dim)
        positions = torch.randint(1, 10_000, (seq,), generator=g)  # (seq,) int64
        yield x, positions, theta_of(dim, 10000.0 if n == 0 else _base(g, 3.0, 6.0))


def _mixed(x: torch.Tensor, positions, theta: torch.Tensor, layout: str) -> torch.Tensor:
    """``layout``'s rotation of coordinates with cos and sin laid out in the other
    layout's order (cos and sin repeated pair by pair for the half layout's rotate_half,
    or as two copies of the half for the interleaved pairs)."""
    cos, sin = cos_sin(positions, theta)  # (seq, dim/2) each
    if layout == "half":
        cos, sin = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)  # (seq, dim)
        a, b = x.chunk(2, -1)
        turned = torch.cat([-b, a], -1)  # rotate_half(x)
    else:
        cos, sin = torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)  # (seq, dim)
        pairs = x.unflatten(-1, (-1, 2))  # (..., seq, dim/2, 2)
        turned = torch.stack([-pairs[..., 1], pairs[..., 0]], -1).flatten(-2)
    return x * cos + turned * sin


def _rope_mistakes(layout: str):
    other = "half" if layout == "interleaved" else "interleaved"

    def mistakes(x, positions, theta) -> list[_Mistake]:
        return [
            _Mistake(Message("The pairs are those of the {other} layout, {other_pairs}; this "
                             "exercise's pairs are {pairs}.", other=other,
                             other_pairs=PAIRS[other], pairs=PAIRS[layout]),
                     lambda: apply_rope(x, positions, theta, layout=other)),
            _Mistake(Message("Each pair turns the wrong way, by −m θ_i: out_a = x_a cos − x_b "
                             "sin, out_b = x_a sin + x_b cos. Check the signs of the sin terms, "
                             "and that the two coordinates of a pair are not swapped."),
                     lambda: apply_rope(x, -positions, theta, layout=layout)),
            _Mistake(Message("The pairs get their frequencies in reverse order: pair i turns by "
                             "m θ_i, and pair 0 is the fastest (θ_0 = 1)."),
                     lambda: apply_rope(x, positions, theta.flip(0), layout=layout)),
            _Mistake(Message("cos and sin are laid out in the other layout's order: repeat "
                             "each pair's cos and sin on the coordinates of that pair, "
                             "{pairs}.", pairs=PAIRS[layout]),
                     lambda: _mixed(x, positions, theta, layout)),
            _Mistake(Message("Row j is turned by the angle of position j: use the positions "
                             "given, m = positions[j]."),
                     lambda: apply_rope(x, torch.arange(x.shape[-2]), theta, layout=layout)),
            _Mistake(Message("The vectors come back unrotated."), lambda: x),
        ]
    return mistakes


def _rope_reference(layout: str):
    def reference(x, positions, theta):
        return apply_rope(x, positions, theta, layout=layout)
    return reference


def _check_rope(fn, layout: str, lang: str, seed: int) -> Report:
    return _check(f"apply_rope_{layout}", fn, lang, seed, ("x", "positions", "theta"),
                  _rope_cases, _rope_reference(layout), _rope_mistakes(layout),
                  f"rope_core.apply_rope(layout={layout!r})")


def check_apply_rope_interleaved(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(x, positions, theta)`` -> x's shape: pair (2i, 2i+1) of row j turned by
    m θ_i, m = positions[j] (:func:`rope_core.apply_rope`, ``layout="interleaved"``).
    x ``(heads, seq, dim)`` float64, positions ``(seq,)`` int64 in 1 ... 9999, theta
    ``(dim/2,)``."""
    return _check_rope(fn, "interleaved", lang, seed)


def check_apply_rope_half(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(x, positions, theta)`` -> x's shape: pair (i, i + d/2) of row j turned
    by m θ_i (:func:`rope_core.apply_rope`, ``layout="half"``, transformers' rotate_half).
    Arguments as :func:`check_apply_rope_interleaved`."""
    return _check_rope(fn, "half", lang, seed)


# -------------------------------------------------------------- relative score ----
def _score_cases(g: torch.Generator):
    for n in range(RANDOM_CASES + 1):
        dim = 8 if n == 0 else 2 * _integer(g, 2, 32)
        q = torch.randn(dim, generator=g, dtype=torch.float64)  # (dim,)
        k = torch.randn(dim, generator=g, dtype=torch.float64)  # (dim,)
        distances = torch.tensor([0, 1, 2, 5, 10, 100]) if n == 0 else \
            torch.randint(-100, 5_000, (_integer(g, 3, 12),), generator=g)  # (R,)
        yield q, k, distances, theta_of(dim, 10000.0 if n == 0 else _base(g, 3.0, 6.0))


def _score_reference(q, k, distances, theta):
    return score_vs_distance(q, k, distances, theta)


def _score_mistakes(q, k, distances, theta) -> list[_Mistake]:
    return [
        _Mistake(Message("This is q^T R_(−r) k: the key sits r tokens after the query "
                         "(n = m + r), so k turns by +r θ_i relative to q. Check the sign of "
                         "the sin term, or whether you turned q instead of k."),
                 lambda: score_vs_distance(q, k, -distances, theta)),
        _Mistake(Message("The pairs are those of the half layout, (i, i + d/2); this "
                         "exercise's pairs are (2i, 2i+1)."),
                 lambda: score_vs_distance(q, k, distances, theta, layout="half")),
        _Mistake(Message("Only the cos term: each pair also adds (q_b k_a − q_a k_b) "
                         "sin(r θ_i)."),
                 lambda: _cos_only(q, k, distances, theta)),
    ]


def _cos_only(q, k, distances, theta) -> torch.Tensor:
    """Σ_i (q_a k_a + q_b k_b) cos(r θ_i): the mean of the scores at +r and −r."""
    return (score_vs_distance(q, k, distances, theta)
            + score_vs_distance(q, k, -distances, theta)) / 2


def _identity_gap(fn, seed: int) -> Message:
    """How closely ``fn`` equals (R_m q)^T (R_(m+r) k) at a random m: the identity."""
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 16, generator=g, dtype=torch.float64)  # (16,) each
    theta = theta_of(16, 10000.0)
    m = _integer(g, 0, 100_000)
    distances = torch.tensor([0, 1, 7, 50, 1000])  # (R,)
    turned_q = apply_rope(q.expand(len(distances), 16), torch.full((5,), m), theta)  # (R, d)
    turned_k = apply_rope(k.expand(len(distances), 16), m + distances, theta)  # (R, d)
    absolute = (turned_q * turned_k).sum(-1)  # (R,)
    gap = float((fn(q.clone(), k.clone(), distances.clone(), theta.clone()).to(torch.float64)
                 - absolute).abs().max())
    return Message("Rotating q at position m = {position} and k at m + r gives the same "
                   "scores to within {gap}: the score depends on r = n − m alone.",
                   position=m, gap=f"{gap:.1e}")


def check_relative_score(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(q, k, distances, theta)`` -> ``(R,)``: q^T R_r k for each distance r,
    interleaved pairs (:func:`rope_core.score_vs_distance`); q, k ``(dim,)`` float64,
    distances ``(R,)`` int64 from −100 to 4999. A passing report adds how closely the
    result equals (R_m q)^T (R_(m+r) k) at a random position m (the relative-position
    identity, computed with :func:`rope_core.apply_rope`)."""
    return _check("relative_score", fn, lang, seed, ("q", "k", "distances", "theta"),
                  _score_cases, _score_reference, _score_mistakes,
                  "rope_core.score_vs_distance", extra=_identity_gap)


# ----------------------------------------------------------------- decay bound ----
def _bound_cases(g: torch.Generator):
    yield torch.tensor([0, 1, 10, 100, 1000]), theta_of(8, 10000.0)
    for _ in range(RANDOM_CASES):
        distances = torch.randint(0, 100_000, (_integer(g, 3, 12),), generator=g)  # (R,)
        yield distances, theta_of(2 * _integer(g, 2, 64), _base(g, 3.0, 6.0))


def _partial_sums(distances, theta) -> torch.Tensor:
    """S_j = Σ_{k<j} e^(i r θ_k), j = 1 ... d/2: ``(R, d/2)`` complex128."""
    angle = torch.outer(distances.to(torch.float64), theta.to(torch.float64))  # (R, d/2)
    return torch.polar(torch.ones_like(angle), angle).cumsum(-1)


def _bound_mistakes(distances, theta) -> list[_Mistake]:
    half = theta.numel()
    right = relative_upper_bound(distances, theta)  # (R,)
    sums = _partial_sums(distances, theta)  # (R, d/2)
    return [
        _Mistake(Message("Off by the factor d/2 = {pairs}: the bound is the mean "
                         "(1/(d/2)) Σ_j |S_j|, not the sum.", pairs=half),
                 lambda: right * half),
        _Mistake(Message("This is |S_(d/2)|, the length of the whole sum; the bound is the "
                         "mean of the lengths of every partial sum S_1 … S_(d/2)."),
                 lambda: sums[:, -1].abs()),
        _Mistake(Message("The partial sums are off by one: S_j = Σ_(k=0)^(j−1) e^(i r θ_k) "
                         "for j = 1 … d/2, so S_1 = e^(i r θ_0); S_0 = 0 is not one of them."),
                 lambda: torch.cat([torch.zeros_like(sums[:, :1]), sums[:, :-1]], -1)
                 .abs().mean(-1)),
        _Mistake(Message("Only the real part: |S_j| is the length of a complex sum, "
                         "√((Σ cos)² + (Σ sin)²)."), lambda: sums.real.abs().mean(-1)),
        _Mistake(Message("The mean of Σ_k |e^(i r θ_k)| is (d/2 + 1)/2 at every distance: take "
                         "the length of the sum, |S_j|, not the sum of the lengths."),
                 lambda: torch.full_like(right, (half + 1) / 2)),
    ]


def check_decay_bound(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(distances, theta)`` -> ``(R,)``: RoFormer's long-term-decay bound
    (1/(d/2)) Σ_{j=1}^{d/2} |S_j|, S_j = Σ_{k=0}^{j−1} e^(i r θ_k)
    (:func:`rope_core.relative_upper_bound`); distances ``(R,)`` int64 in 0 ... 99,999."""
    return _check("decay_bound", fn, lang, seed, ("distances", "theta"), _bound_cases,
                  relative_upper_bound, _bound_mistakes, "rope_core.relative_upper_bound")


# ------------------------------------------------------------------------- YaRN ----
def _yarn_cases(g: torch.Generator):
    yield 128, 10000.0, 8.0, 4096, 32.0, 1.0
    made = 0
    while made < RANDOM_CASES:
        dim = (64, 96, 128, 256)[_integer(g, 0, 3)]
        base = _base(g, 4.0, 6.5)
        original = (2048, 4096, 8192, 32768)[_integer(g, 0, 3)]
        factor = round(_uniform(g, 2.0, 40.0), 2)
        beta_fast, beta_slow = (16.0, 32.0, 64.0)[_integer(g, 0, 2)], (0.5, 1.0, 2.0)[
            _integer(g, 0, 2)]
        low, high = yarn_ramp_bounds(dim, base, original, beta_fast, beta_slow)
        if 1 <= low and high <= dim // 2 - 2:  # some pairs kept, some blended, some divided
            made += 1
            yield dim, base, factor, original, beta_fast, beta_slow


def _yarn_reference(dim, base, factor, original, beta_fast, beta_slow):
    return scaled_theta(dim, base, "yarn", factor=factor, original_max_position_embeddings=original,
                        beta_fast=beta_fast, beta_slow=beta_slow)[0]


def _yarn_mistakes(dim, base, factor, original, beta_fast, beta_slow) -> list[_Mistake]:
    theta = theta_of(dim, base)  # (dim/2,)
    ramp = yarn_ramp(dim, base, original, beta_fast, beta_slow)  # (dim/2,): 1 divides by s

    def blend(share: torch.Tensor, scaled: torch.Tensor) -> torch.Tensor:
        return theta * (1 - share) + scaled * share

    def coordinate_ramp() -> torch.Tensor:
        low, high = yarn_ramp_bounds(dim, base, original, beta_fast, beta_slow)
        i = torch.arange(dim // 2, dtype=torch.float64)
        return blend(((2 * i - low) / (high - low)).clamp(0, 1), theta / factor)

    return [
        _Mistake(Message("The scaling hits the wrong pairs: YaRN keeps the fast pairs (small i, "
                         "many turns within L) and divides the slow ones by s; your ramp runs "
                         "the other way."), lambda: blend(1 - ramp, theta / factor)),
        _Mistake(Message("The interpolated pairs must turn s times slower: divide θ_i by s "
                         "(yours multiplies)."), lambda: blend(ramp, theta * factor)),
        _Mistake(Message("The 2π is missing: the pair that turns ρ times within L has index "
                         "i(ρ) = d ln(L / (2π ρ)) / (2 ln base)."),
                 lambda: blend(yarn_ramp(dim, base, original * 2 * math.pi, beta_fast,
                                         beta_slow), theta / factor)),
        _Mistake(Message("The ramp's ends are not rounded: Hugging Face takes low = "
                         "floor(i(beta_fast)) and high = ceil(i(beta_slow))."),
                 lambda: scaled_theta(dim, base, "yarn", factor=factor,
                                      original_max_position_embeddings=original,
                                      beta_fast=beta_fast, beta_slow=beta_slow,
                                      truncate=False)[0]),
        _Mistake(Message("beta_fast and beta_slow are swapped: beta_fast (many turns) gives the "
                         "low end of the ramp, beta_slow the high end."),
                 lambda: blend(yarn_ramp(dim, base, original, beta_slow, beta_fast),
                               theta / factor)),
        _Mistake(Message("The ramp runs over the coordinate index 2i; it is linear in the pair "
                         "index i = 0 … d/2 − 1."), coordinate_ramp),
        _Mistake(Message("Every pair is divided by s: that is position interpolation. YaRN "
                         "keeps the fast pairs and blends those in between."),
                 lambda: theta / factor),
    ]


def check_yarn_theta(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(dim, base, factor, original_max_position_embeddings, beta_fast,
    beta_slow)`` -> ``(dim/2,)``: YaRN's θ'_i = θ_i (1 − ramp_i) + (θ_i / s) ramp_i as
    Hugging Face computes it (:func:`rope_core.scaled_theta`, ``method="yarn"``), on cases
    whose ramp starts after pair 0 and ends before the last pair."""
    return _check("yarn_theta", fn, lang, seed,
                  ("dim", "base", "factor", "original_max_position_embeddings", "beta_fast",
                   "beta_slow"), _yarn_cases, _yarn_reference, _yarn_mistakes,
                  "rope_core.scaled_theta(method='yarn')")


# ----------------------------------------------------------------------- M-RoPE ----
def _mrope_cases(g: torch.Generator):
    yield [("text", 3), ("image", (1, 4, 6)), ("text", 2)], 2
    for _ in range(RANDOM_CASES):
        merge = _integer(g, 1, 2)
        segments = [("text", _integer(g, 1, 4))] if _integer(g, 0, 1) else []
        for _block in range(_integer(g, 1, 2)):
            rows, cols = _integer(g, 1, 4), _integer(g, 2, 4)
            if _integer(g, 0, 1):
                frames = _integer(g, 2, max(rows, cols))  # t' <= max(h', w')
                segments.append(("video", (frames, rows * merge, cols * merge)))
            else:
                segments.append(("image", (1, rows * merge, cols * merge)))
            segments.append(("text", _integer(g, 1, 4)))
        yield segments, merge


def _mrope_reference(segments, merge):
    return mrope_position_ids(segments, spatial_merge_size=merge)


def _mrope_mistakes(segments, merge) -> list[_Mistake]:
    right = mrope_position_ids(segments, spatial_merge_size=merge)  # (3, seq)
    blocks = mrope_blocks(segments, spatial_merge_size=merge).to_dict("records")

    def vision(block) -> bool:
        return block["kind"] != "text"

    def shifted(after_vision) -> torch.Tensor:
        """Every segment after a vision block moved by ``after_vision(block)`` ids."""
        out, shift = right.clone(), 0
        for block in blocks:
            first, tokens = block["first token"], block["tokens"]
            out[:, first:first + tokens] += shift
            if vision(block):
                shift += after_vision(block)
        return out

    def per_block(change) -> torch.Tensor:
        """Each vision block's ids ``(3, t' h' w')`` replaced by ``change(ids, block)``."""
        out = right.clone()
        for block in filter(vision, blocks):
            part = slice(block["first token"], block["first token"] + block["tokens"])
            out[:, part] = change(out[:, part], block)
        return out

    def column_major(ids, block):
        t, h, w = (int(block[f"merged {axis}"]) for axis in "thw")
        return ids.reshape(3, t, h, w).transpose(2, 3).reshape(3, -1)

    def frozen_time(ids, block):
        ids = ids.clone()
        ids[0] = block["start id"]
        return ids

    def no_offset(ids, block):
        return ids - block["start id"]

    return [
        _Mistake(Message("Rows and columns are swapped: the patch in row r, column c has "
                         "h id start + r and w id start + c."), lambda: right[[0, 2, 1]]),
        _Mistake(Message("The patches are not in row-major order: tokens go temporal patch by "
                         "temporal patch, row by row, the column changing fastest."),
                 lambda: per_block(column_major)),
        _Mistake(Message("After an image or video the ids resume at start + max(h', w'), one "
                         "past the block's largest id, not at start + its number of tokens."),
                 lambda: shifted(lambda b: b["tokens"] - (b["next start id"] - b["start id"]))),
        _Mistake(Message("One too low after an image or video: the next segment starts one "
                         "past the block's largest id, at start + max(h', w')."),
                 lambda: shifted(lambda b: -1)),
        _Mistake(Message("A video's t id must advance with its temporal patches: patch "
                         "(f, r, c) has t id start + f."), lambda: per_block(frozen_time)),
        _Mistake(Message("A block's ids start from the id its segment starts at: patch "
                         "(f, r, c) has ids (start + f, start + r, start + c)."),
                 lambda: per_block(no_offset)),
    ]


def _mrope_shape(shape: tuple, segments, merge) -> Message | None:
    right = mrope_position_ids(segments, spatial_merge_size=merge)
    unmerged = sum(n if kind == "text" else n[0] * n[1] * n[2] for kind, n in segments)
    if len(shape) == 2 and shape[0] == 3 and shape[1] == unmerged != right.shape[1]:
        return Message("One token per patch of the grid before merging ({count} tokens): the "
                       "language model sees the merged grid, one token per "
                       "spatial_merge_size × spatial_merge_size patches, {expected} tokens.",
                       count=unmerged, expected=right.shape[1])
    if shape == (right.shape[1], 3):
        return Message("The ids are (seq, 3); return them as (3, seq): rows t, h, w.")
    return None


def check_mrope_position_ids(fn, *, lang: str = "en", seed: int = 0) -> Report:
    """Check ``fn(segments, spatial_merge_size)`` -> ``(3, seq)`` integer ids: Qwen2-VL's
    M-RoPE position ids (:func:`rope_core.mrope_position_ids`). ``segments`` holds
    ("text", n), ("image", (1, h, w)) and ("video", (t, h, w)) with t <= max(h', w')."""
    return _check("mrope_position_ids", fn, lang, seed, ("segments", "spatial_merge_size"),
                  _mrope_cases, _mrope_reference, _mrope_mistakes,
                  "rope_core.mrope_position_ids", _mrope_shape)


CHECKS = {
    "theta": check_theta,
    "apply_rope_interleaved": check_apply_rope_interleaved,
    "apply_rope_half": check_apply_rope_half,
    "relative_score": check_relative_score,
    "decay_bound": check_decay_bound,
    "yarn_theta": check_yarn_theta,
    "mrope_position_ids": check_mrope_position_ids,
}
