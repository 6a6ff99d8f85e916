"""Context-extension scalings of the frequency spectrum, one function each.

Every method maps the plain spectrum theta_i = base^(-2i/d), i = 0 ... d/2 - 1
(d = ``dim``, the ROTARY dimension: the number of rotated coordinates of a
head) to the ``(d/2,)`` frequencies a model uses after extending its context
by s = ``factor``, plus an attention factor that multiplies cos and sin. The
formulas and parameter names are those of Hugging Face transformers'
``ROPE_INIT_FUNCTIONS`` (``modeling_rope_utils.py``); L is
``original_max_position_embeddings``, the training context.

* ``none``: theta_i.
* ``linear`` (position interpolation, Chen et al. 2023): theta_i / s.
* ``ntk`` (static NTK-aware base change, bloc97 2023): base' = base * s^(d/(d-2)),
  so theta_0 stays 1 and the slowest pair is divided by exactly s.
* ``dynamic`` (dynamic NTK, emozilla 2023): the plain spectrum while the
  current length n = ``seq_len`` <= L, then the NTK base
  base * alpha^(d/(d-2)) with alpha = f n / L - (f - 1) for that n, f =
  ``factor`` (see :func:`effective_base`). Note what f means here: it is NOT the
  extension s. At n = s L, alpha = f s - f + 1, so f = s gives alpha = s^2 - s + 1
  (57 at s = 8); YaRN's paper (Peng et al. 2023, section 3.3) defines dynamic
  scaling as alpha = max(1, n / L), i.e. f = 1, which reaches alpha = s at s L.
  :func:`comparison_params` compares methods that way.
* ``yarn`` (Peng et al. 2023, "YaRN"): NTK-by-parts. With
  i(r) = d ln(L / (2 pi r)) / (2 ln base), the pair index that turns r times
  within L, low = max(floor(i(beta_fast)), 0), high = min(ceil(i(beta_slow)), d - 1)
  (floor/ceil only when ``truncate``; if low == high, high += 0.001) and
  ramp_i = clamp((i - low) / (high - low), 0, 1):
  theta'_i = theta_i (1 - ramp_i) + (theta_i / s) ramp_i.
  Attention factor: ``attention_factor`` if given; else, when ``mscale`` and
  ``mscale_all_dim`` are both non-zero, m(s, mscale) / m(s, mscale_all_dim)
  with m(s, k) = 0.1 k ln s + 1 (1 when s <= 1); else 0.1 ln s + 1.
  The factor multiplies cos and sin, so both q and k: the logits q.k are
  multiplied by its SQUARE.
* ``llama3`` (Meta, Llama 3.1; ``apply_scaling`` in meta-llama/llama-models, not
  the Llama 3 paper): pairs whose wavelength lambda_i = 2 pi / theta_i is shorter
  than L / high_freq_factor keep theta_i; pairs whose wavelength is longer than
  L / low_freq_factor get theta_i / s, so that wavelength is MULTIPLIED by s; in
  between theta'_i = (1 - g) theta_i / s + g theta_i with
  g = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor)
  (transformers' ``_compute_llama3_parameters``: ``torch.where(wavelen >
  low_freq_wavelen, inv_freq / factor, inv_freq)``).
* ``longrope`` (Ding et al. 2024, "LongRoPE"; Phi-3): theta'_i = theta_i / f_i
  with f = ``short_factor`` while n <= L and f = ``long_factor`` once n > L.
  Attention factor: ``attention_factor`` if given, else sqrt(1 + ln s / ln L)
  (1 when s <= 1), with s = ``factor`` or max_position_embeddings / L.

YaRN's ramp follows Hugging Face exactly, clamp to [0, d - 1] included. What
that clamp does where the plain "turn count" reading of the paper breaks down:

* L < 2 pi beta_fast (~201 tokens for beta_fast = 32): no pair turns beta_fast
  times, i(beta_fast) < 0 and low is clamped to 0. Pair 0 is then kept
  (ramp 0) and the ramp starts there, so pairs 1 ... high are blended rather
  than partly interpolated from a negative start.
* L < 2 pi beta_slow (~6.3 tokens): i(beta_slow) < 0 as well. If high = 0
  (i(beta_slow) in (-1, 0] with truncate), the ramp becomes a step: pair 0
  kept, every other pair divided by s. If high < 0, the ramp's slope is
  negative, every ramp_i clamps to 0 and every pair is kept.
* i(beta_fast) > d - 1 (every pair turns more than beta_fast times, which
  needs L > 2 pi beta_fast base^2, i.e. a tiny base): low > high = d - 1, the
  ramp is inverted and every pair is divided by s.

Every parameter is bounded (factor <= 1000, lengths <= 10^7, ...) so that no
argument can make a hosted demo compute for long.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from numbers import Integral, Real

import torch

from ..rotary.frequencies import theta as plain_theta
from ..support._checks import (
    N_,
    Message,
    RopeError,
    _fmt,
    as_integer_positions,
    check_base,
    check_choice,
    check_dim,
    check_float_dtype,
    check_int,
    check_positive_float,
    fail,
    reject,
)

MAX_FACTOR = 1000.0
MAX_LENGTH = 10_000_000  # tokens, for every configured length
# The Hugging Face transformers release whose formulas, parameter names and config handling
# rope_core follows (modeling_rope_utils.py, the models' get_rope_index and attention); the
# tests check it against the pin in requirements-dev.txt and the installed package.
TRANSFORMERS_VERSION = "5.24"
MAX_SEQ_LEN = 1_000_000_000  # the current length n: a scalar, so no cost, but still bounded
MAX_BETA = 10_000.0
MAX_MSCALE = 100.0
MAX_ATTENTION_FACTOR = 100.0


# --- parameter schema -------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One named parameter of a scaling method (Hugging Face config name).

    kind: "float" (finite, in [low, high], or (low, high] when ``open_low``),
    "int" (in [low, high]), "bool", or "factors" (d/2 numbers, each in (low, high]).
    A default of None means "absent" (the method derives a value itself).
    """

    name: str
    kind: str
    default: object
    low: float = 0.0
    high: float = math.inf
    open_low: bool = False
    required: bool = False
    doc: str = ""

    def allowed(self) -> Message:
        """What the parameter accepts, as a :class:`Message` (``str()`` is English)."""
        low, high = f"{self.low:g}", f"{self.high:g}"
        if self.kind == "bool":
            return Message("True or False")
        if self.kind == "int":
            return Message("an integer from {low} to {high}", low=low, high=high)
        if self.kind == "factors":
            return Message("a list of dim/2 finite numbers, each greater than {low} "
                           "and at most {high}", low=low, high=high)
        if self.open_low:
            return Message("a finite number greater than {low} and at most {high}",
                           low=low, high=high)
        return Message("a finite number at least {low} and at most {high}", low=low, high=high)

    def check(self, value, half: int):
        """The validated value (float, int, bool or tuple of floats)."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                reject(self.name, value, self.allowed())
            return value
        if self.kind == "int":
            return check_int(value, self.name, int(self.low), int(self.high))
        if self.kind == "factors":
            if isinstance(value, torch.Tensor):
                value = value.tolist()
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                reject(self.name, value, self.allowed())
            if len(value) != half:
                fail(self.name, value, "a list of exactly dim/2 = {half} numbers, got {n}",
                     half=half, n=len(value))
            out = []
            for j, v in enumerate(value):
                if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)) \
                        or not self.low < float(v) <= self.high:
                    fail(f"{self.name}[{j}]", v, "a finite number greater than {low} "
                                                 "and at most {high}",
                         low=f"{self.low:g}", high=f"{self.high:g}")
                out.append(float(v))
            return tuple(out)
        # a float is a Real and no bool (the abstract-class check costs more than the rest)
        if type(value) is not float and (isinstance(value, bool) or not isinstance(value, Real)):
            reject(self.name, value, self.allowed())
        value = float(value)
        if not math.isfinite(value) or value > self.high or value < self.low \
                or (self.open_low and value <= self.low):
            reject(self.name, value, self.allowed())
        return value


@dataclass(frozen=True)
class Scaling:
    """A registry entry: everything needed to run, label and cite one method.

    ``function(dim, base, seq_len, **params)`` returns ``(theta (dim/2,) float64,
    attention_factor float)``; it receives every name of ``params``, defaults
    filled in.
    """

    name: str
    function: Callable[..., tuple]
    label: str
    description: str
    citation: str
    params: tuple[Param, ...]
    uses_seq_len: bool = False

    @cached_property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)


FACTOR = Param("factor", "float", 1.0, 1.0, MAX_FACTOR, doc="s, new context / original context")
FACTOR_OPTIONAL = Param("factor", "float", None, 1.0, MAX_FACTOR,
                        doc="s; if absent, max_position_embeddings / L (or 1)")
ORIGINAL = Param("original_max_position_embeddings", "int", None, 1, MAX_LENGTH, required=True,
                 doc="L, the training context in tokens")
MAX_POSITIONS = Param("max_position_embeddings", "int", None, 1, MAX_LENGTH,
                      doc="the extended context; gives s = max / L when factor is absent")
ATTENTION = Param("attention_factor", "float", None, 0.0, MAX_ATTENTION_FACTOR, open_low=True,
                  doc="multiplies cos and sin; derived from s when absent")


# --- the methods: f(dim, base, seq_len, **params) -> (theta (dim/2,), attention_factor) ---

def _none(dim, base, seq_len):
    return plain_theta(dim, base), 1.0  # (dim/2,)


def _linear(dim, base, seq_len, factor):
    return plain_theta(dim, base) / factor, 1.0  # (dim/2,)


def _ntk_base(dim, base, alpha):
    """base * alpha^(d/(d-2)); d = 2 has the single pair i = 0 whatever the base."""
    if dim == 2:
        return base
    return base * alpha ** (dim / (dim - 2))


def _ntk(dim, base, seq_len, factor):
    return plain_theta(dim, _ntk_base(dim, base, factor)), 1.0  # (dim/2,)


def _dynamic(dim, base, seq_len, factor, original_max_position_embeddings):
    L = original_max_position_embeddings
    n = L if seq_len is None else max(seq_len, L)  # plain spectrum up to L
    alpha = factor * n / L - (factor - 1)
    return plain_theta(dim, _ntk_base(dim, base, alpha)), 1.0  # (dim/2,)


def _mscale(s: float, k: float = 1.0) -> float:
    return 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1.0


def _resolve_factor(factor, original, max_positions):
    if factor is not None:
        return factor
    if max_positions is not None:
        return max_positions / original
    return 1.0


def yarn_ramp_bounds(dim, base, original, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """YaRN's (low, high) pair indices as Hugging Face computes them.

    i(r) = dim ln(L / (2 pi r)) / (2 ln base); low = max(floor(i(beta_fast)), 0),
    high = min(ceil(i(beta_slow)), dim - 1) (no floor/ceil without truncate);
    high += 0.001 when low == high.

    Returns:
        ``(low, high)`` as floats.
    """
    dim = check_dim(dim)
    base = check_base(base)

    def turns_index(r):  # pair index that turns r times within L
        return dim * math.log(original / (r * 2 * math.pi)) / (2 * math.log(base))

    low, high = turns_index(beta_fast), turns_index(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # as Hugging Face: avoid 0/0
    return float(low), float(high)


def yarn_ramp(dim: int, base: float, original: int, beta_fast: float = 32.0,
              beta_slow: float = 1.0, truncate: bool = True) -> torch.Tensor:
    """YaRN's ramp as the app, Hugging Face transformers and YaRN's official code compute it:
    LINEAR IN THE PAIR INDEX i.

        ramp_i = clamp((i - low) / (high - low), 0, 1),  (low, high) = :func:`yarn_ramp_bounds`

    ramp_i is the share of interpolation: theta'_i = theta_i (1 - ramp_i) + (theta_i / s) ramp_i
    (0 keeps the pair, 1 divides it by s).

    Returns:
        ``(dim/2,)`` float64 tensor.
    """
    low, high = yarn_ramp_bounds(dim, base, original, beta_fast, beta_slow, truncate)
    i = torch.arange(dim // 2, dtype=torch.float64)  # (dim/2,)
    return ((i - low) / (high - low)).clamp(0.0, 1.0)  # (dim/2,)


def yarn_paper_ramp(dim: int, base: float, original: int, beta_fast: float = 32.0,
                    beta_slow: float = 1.0) -> torch.Tensor:
    """YaRN's ramp as its paper writes it (Peng et al. 2023, section 3.2): LINEAR IN THE TURN
    COUNT r_i = L / lambda_i = L theta_i / (2 pi).

        gamma(r) = 0 for r < beta_slow, 1 for r > beta_fast, else
                   (r - beta_slow) / (beta_fast - beta_slow)   (the paper's alpha, beta)
        theta'_i = (1 - gamma(r_i)) theta_i / s + gamma(r_i) theta_i

    so the share of interpolation, comparable with :func:`yarn_ramp`, is 1 - gamma(r_i).
    The two ramps span the same pairs (up to the floor/ceil of the index bounds) but r_i
    falls geometrically with i, so 1 - gamma(r_i) rises steeply at the fast end of the
    ramp: the paper's ramp interpolates the blended pairs more, by up to about 0.37 (d =
    128, base 10^4, L = 4,096: pair 30 is 38% interpolated in the code, 75% in the paper).

    Returns:
        ``(dim/2,)`` float64 tensor, 1 - gamma(r_i).
    """
    dim = check_dim(dim)
    base = check_base(base)
    L = check_int(original, "original_max_position_embeddings", 1, MAX_LENGTH)
    fast = check_positive_float(beta_fast, "beta_fast", upper=MAX_BETA)
    slow = check_positive_float(beta_slow, "beta_slow", upper=MAX_BETA)
    if fast <= slow:
        fail("beta_fast", fast, "greater than beta_slow = {beta_slow}", beta_slow=f"{slow:g}")
    r = L * plain_theta(dim, base) / (2 * math.pi)  # (dim/2,) turns within L
    gamma = ((r - slow) / (fast - slow)).clamp(0.0, 1.0)  # (dim/2,)
    return 1.0 - gamma  # (dim/2,)


def _yarn(dim, base, seq_len, factor, original_max_position_embeddings, max_position_embeddings,
          beta_fast, beta_slow, mscale, mscale_all_dim, attention_factor, truncate):
    L = original_max_position_embeddings
    s = _resolve_factor(factor, L, max_position_embeddings)
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = _mscale(s, mscale) / _mscale(s, mscale_all_dim)
        else:
            attention_factor = _mscale(s)
    theta = plain_theta(dim, base)  # (dim/2,)
    ramp = yarn_ramp(dim, base, L, beta_fast, beta_slow, truncate)  # (dim/2,): 0 keeps
    return theta * (1 - ramp) + (theta / s) * ramp, float(attention_factor)


def _llama3(dim, base, seq_len, factor, original_max_position_embeddings, low_freq_factor,
            high_freq_factor):
    L = original_max_position_embeddings
    theta = plain_theta(dim, base)  # (dim/2,)
    wavelen = 2 * math.pi / theta  # (dim/2,)
    out = torch.where(wavelen > L / low_freq_factor, theta / factor, theta)
    if high_freq_factor == low_freq_factor:  # empty middle band (Llama 4 Scout), as transformers
        return out, 1.0
    g = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)  # (dim/2,)
    medium = (wavelen >= L / high_freq_factor) & (wavelen <= L / low_freq_factor)
    return torch.where(medium, (1 - g) * theta / factor + g * theta, out), 1.0


def _longrope(dim, base, seq_len, short_factor, long_factor, original_max_position_embeddings,
              factor, max_position_embeddings, attention_factor):
    L = original_max_position_embeddings
    s = _resolve_factor(factor, L, max_position_embeddings)
    if attention_factor is None:
        attention_factor = 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(L))
    use_long = seq_len is not None and seq_len > L
    f = torch.tensor(long_factor if use_long else short_factor, dtype=torch.float64)  # (dim/2,)
    return plain_theta(dim, base) / f, float(attention_factor)


SCALINGS: dict[str, Scaling] = {s.name: s for s in (
    Scaling("none", _none, N_("none (original RoPE)"),
            N_("theta_i = base^(-2i/d) unchanged: the model as trained."),
            N_("Su et al. 2021, RoFormer (arXiv:2104.09864)"), ()),
    Scaling("linear", _linear, N_("linear (position interpolation)"),
            N_("Divides every theta_i by s, squeezing s L positions into the angles the model saw "
               "in training; cheap, but blurs the fast pairs that encode nearby order."),
            N_("Chen et al. 2023, Position Interpolation (arXiv:2306.15595)"), (FACTOR,)),
    Scaling("ntk", _ntk, N_("static NTK-aware base change"),
            N_("Raises the base to base s^(d/(d-2)): the fastest pair is untouched and the slowest "
               "is divided by s, so local order stays sharp while long wavelengths stretch."),
            N_("bloc97 2023, NTK-aware scaled RoPE (reddit r/LocalLLaMA)"), (FACTOR,)),
    Scaling("dynamic", _dynamic, N_("dynamic NTK"),
            N_("Keeps the trained spectrum up to L and grows the NTK base with the current "
               "length, so short inputs run exactly as trained."),
            N_("emozilla 2023, Dynamically scaled RoPE (reddit r/LocalLLaMA)"),
            (FACTOR, ORIGINAL), uses_seq_len=True),
    Scaling("yarn", _yarn, N_("YaRN (NTK-by-parts + attention factor)"),
            N_("Keeps pairs that turn often within L, interpolates pairs that turn less than once, "
               "blends in between, and multiplies cos and sin by 0.1 ln s + 1 (the logits by its "
               "square) to sharpen attention against the blur."),
            N_("Peng et al. 2023, YaRN (arXiv:2309.00071)"),
            (FACTOR_OPTIONAL, ORIGINAL, MAX_POSITIONS,
             Param("beta_fast", "float", 32.0, 0.0, MAX_BETA, open_low=True,
                   doc="pairs turning more often than this within L are kept"),
             Param("beta_slow", "float", 1.0, 0.0, MAX_BETA, open_low=True,
                   doc="pairs turning less often than this within L are divided by s"),
             Param("mscale", "float", None, 0.0, MAX_MSCALE, doc="numerator k of 0.1 k ln s + 1"),
             Param("mscale_all_dim", "float", None, 0.0, MAX_MSCALE,
                   doc="denominator k of 0.1 k ln s + 1"),
             ATTENTION,
             Param("truncate", "bool", True, doc="floor/ceil the ramp bounds"))),
    Scaling("llama3", _llama3, N_("Llama 3.1 (wavelength bands)"),
            N_("Keeps θᵢ of the pairs whose wavelength is shorter than L / high_freq_factor, "
               "divides θᵢ by s (multiplies the wavelength by s) where the wavelength is longer "
               "than L / low_freq_factor, and blends in between, smoothly in L / wavelength."),
            N_("Meta 2024, Llama 3.1 reference code: `apply_scaling` in "
               "`meta-llama/llama-models` (`models/llama3/reference_impl/model.py`)"),
            (FACTOR, ORIGINAL,
             Param("low_freq_factor", "float", 1.0, 0.0, MAX_FACTOR, open_low=True,
                   doc="pairs with wavelengths above L / low_freq_factor get theta / s"),
             Param("high_freq_factor", "float", 4.0, 0.0, MAX_FACTOR, open_low=True,
                   doc="pairs with wavelengths below L / high_freq_factor keep theta"))),
    Scaling("longrope", _longrope, N_("LongRoPE (searched per-pair factors)"),
            N_("Divides each theta_i by its own searched factor, a short set up to L and a long "
               "set beyond, and multiplies cos and sin by sqrt(1 + ln s / ln L) (the logits by "
               "1 + ln s / ln L)."),
            N_("Ding et al. 2024, LongRoPE (arXiv:2402.13753)"),
            (Param("short_factor", "factors", None, 0.0, MAX_FACTOR, required=True,
                   doc="per-pair divisors while seq_len <= L"),
             Param("long_factor", "factors", None, 0.0, MAX_FACTOR, required=True,
                   doc="per-pair divisors once seq_len > L"),
             ORIGINAL, FACTOR_OPTIONAL, MAX_POSITIONS, ATTENTION), uses_seq_len=True),
)}

_METHODS = tuple(SCALINGS)  # every method's name, in the registry's order

# Labels, descriptions and citations are English (N_-marked): a page shows them
# through its translation function, e.g. ``_(SCALING_LABELS[name])``.
SCALING_LABELS = {name: s.label for name, s in SCALINGS.items()}


def resolve_params(method: str, dim: int, params: dict) -> dict:
    """Validate ``params`` for ``method`` and fill in defaults.

    Raises ValueError naming an unknown parameter, a missing required one, or a
    value out of its range (and cross-parameter rules: beta_fast > beta_slow,
    high_freq_factor >= low_freq_factor, max_position_embeddings >= L).
    """
    method = check_choice(method, "method", _METHODS)
    spec = SCALINGS[method]
    dim = check_dim(dim)
    names = spec.param_names
    for name, value in params.items():
        if name not in names:
            if not names:
                raise RopeError("{name}={value} is not allowed: method {method} accepts "
                                "no parameters.", name=name, value=_fmt(value),
                                method=repr(method))
            raise RopeError("{name}={value} is not allowed: method {method} accepts {names}.",
                            name=name, value=_fmt(value), method=repr(method),
                            names=", ".join(spec.param_names))
    out = {}
    for p in spec.params:
        value = params.get(p.name)
        if value is None:
            if p.required:
                raise RopeError("{name} is missing: method {method} needs {name} ({allowed}).",
                                name=p.name, method=repr(method), allowed=p.allowed())
            out[p.name] = p.default
        else:
            out[p.name] = p.check(value, dim // 2)
    if method == "yarn" and out["beta_fast"] <= out["beta_slow"]:
        fail("beta_fast", out["beta_fast"], "greater than beta_slow = {beta_slow}",
             beta_slow=f"{out['beta_slow']:g}")
    if method == "llama3" and out["high_freq_factor"] < out["low_freq_factor"]:
        fail("high_freq_factor", out["high_freq_factor"],
             "at least low_freq_factor = {low_freq_factor}",
             low_freq_factor=f"{out['low_freq_factor']:g}")
    if method == "longrope" and out["attention_factor"] is None and \
            out["original_max_position_embeddings"] < 2 and _resolve_factor(
                out["factor"], 1, out["max_position_embeddings"]) > 1:
        # its default attention factor sqrt(1 + ln s / ln L) divides by ln L = 0
        fail("original_max_position_embeddings", out["original_max_position_embeddings"],
             "at least 2 when longrope derives its attention factor from s (it divides by ln L)")
    if out.get("max_position_embeddings") is not None and \
            out["max_position_embeddings"] < out["original_max_position_embeddings"]:
        fail("max_position_embeddings", out["max_position_embeddings"],
             "at least original_max_position_embeddings = {original}",
             original=out["original_max_position_embeddings"])
    return out


def scaled_theta(dim: int, base: float, method: str = "none", *, seq_len: int | None = None,
                 device=None, dtype: torch.dtype = torch.float64, **params):
    """Frequencies and attention factor after a context-extension scaling.

    theta'_i per the method's formula (module docstring), theta_i = base^(-2i/dim).

    Args:
        dim: the rotary dimension d (even, 2 ... 4096): number of rotated coordinates.
        base: finite number > 1.
        method: a key of :data:`SCALINGS`.
        seq_len: current sequence length n (1 ... 10^9), used by ``dynamic`` and
            ``longrope``; None means "within the original context".
        **params: the method's parameters, by their Hugging Face names (see
            ``SCALINGS[method].params``).
    Returns:
        ``(theta, attention_factor)``: a ``(dim/2,)`` tensor (computed in float64,
        then cast once to ``dtype``) and a float multiplying cos and sin.
    """
    method = check_choice(method, "method", _METHODS)
    dim = check_dim(dim)
    base = check_base(base)
    dtype = check_float_dtype(dtype)
    if seq_len is not None:
        seq_len = check_int(seq_len, "seq_len", 1, MAX_SEQ_LEN)
    resolved = resolve_params(method, dim, params)
    theta, attention_factor = SCALINGS[method].function(dim, base, seq_len, **resolved)
    return theta.to(device=device, dtype=dtype), float(attention_factor)  # (dim/2,)


def effective_base(dim: int, base: float, factor: float, original_max_position_embeddings: int,
                   seq_len) -> torch.Tensor:
    """Dynamic NTK's base at each current length n.

    base'(n) = base * max(1, s n / L - (s - 1))^(d/(d-2)) (base itself for d = 2);
    base'(n) = base for n <= L.

    Args:
        seq_len: an integer n or a 1-D sequence of at most 10^5 of them, each in 1 ... 10^9.
    Returns:
        float64 tensor: 0-d for an integer, ``(len(seq_len),)`` for a sequence.
    """
    dim = check_dim(dim)
    base = check_base(base)
    r = resolve_params("dynamic", dim, {"factor": factor,
                                        "original_max_position_embeddings":
                                            original_max_position_embeddings})
    s, L = r["factor"], r["original_max_position_embeddings"]
    scalar = isinstance(seq_len, Integral) and not isinstance(seq_len, bool)
    if scalar:
        n = torch.tensor([check_int(seq_len, "seq_len", 1, MAX_SEQ_LEN)], dtype=torch.float64)
    else:
        n = as_integer_positions(seq_len, name="seq_len", max_abs=MAX_SEQ_LEN).to(torch.float64)
        if n.numel() == 0 or bool((n < 1).any()) or n.numel() > 100_000:
            fail("seq_len", seq_len, "a non-empty sequence of at most 100000 integers from 1 "
                                     "to {high}", high=MAX_SEQ_LEN)
    alpha = (s * n / L - (s - 1)).clamp(min=1.0)  # (n,)
    out = base * alpha ** (dim / (dim - 2)) if dim > 2 else torch.full_like(n, base)  # (n,)
    return out[0] if scalar else out


def dynamic_alpha(factor: float, original_max_position_embeddings: int, seq_len: int) -> float:
    """Dynamic NTK's alpha at the current length n, as transformers computes it.

        alpha(n) = f n / L - (f - 1) for n > L, 1 for n <= L,

    with f = ``factor`` (transformers' ``rope_scaling["factor"]``) and L =
    ``original_max_position_embeddings``; the base in use is base * alpha^(d/(d-2)).
    At n = s L: alpha = f s - f + 1, which is s only for f = 1 (YaRN's definition,
    alpha = n / L) and s^2 - s + 1 for f = s.
    """
    r = resolve_params("dynamic", 2, {"factor": factor,
                                      "original_max_position_embeddings":
                                          original_max_position_embeddings})
    n = check_int(seq_len, "seq_len", 1, MAX_SEQ_LEN)
    f, L = r["factor"], r["original_max_position_embeddings"]
    return f * max(n, L) / L - (f - 1)


def comparison_params(method: str, factor: float, original_max_position_embeddings: int,
                      dynamic_factor: float = 1.0) -> dict:
    """The parameters with which ``method`` extends a context of L tokens to s L, so that
    every method is compared at the same extension s.

    ``factor`` = s and ``original_max_position_embeddings`` = L where the method takes
    them, Hugging Face defaults otherwise; except dynamic NTK, whose ``factor`` is not the
    extension (see :func:`dynamic_alpha`): it gets ``dynamic_factor`` f (default 1, YaRN's
    paper's dynamic scaling alpha = n / L, so alpha = s at n = s L, as for static NTK).
    Evaluate ``dynamic`` at ``seq_len`` = s L. LongRoPE needs per-pair factors and is
    refused.

    Returns:
        {parameter name: value}, ready for :func:`scaled_theta`.
    """
    method = check_choice(method, "method", tuple(m for m in SCALINGS if m != "longrope"))
    names = SCALINGS[method].param_names
    params = {}
    if "factor" in names:
        params["factor"] = float(dynamic_factor if method == "dynamic" else factor)
    if "original_max_position_embeddings" in names:
        params["original_max_position_embeddings"] = original_max_position_embeddings
    resolve_params(method, 2, params)  # validates f, s and L
    return params


# Translators: what a context-extension method does to one pair of dimensions:
# keeps its frequency, divides it by s (interpolated), or something in between (blended).
REGIMES = (N_("kept"), N_("interpolated"), N_("blended"))


def pair_regime(dim: int, base: float, method: str = "none", *, seq_len: int | None = None,
                rtol: float = 1e-9, **params) -> tuple[str, ...]:
    """What the method does to each pair, from the ratio r_i = theta'_i / theta_i.

    "kept" when r_i = 1, "interpolated" when r_i = 1/s (s the method's factor,
    max_position_embeddings / L when absent; for dynamic NTK, alpha at the current
    length, :func:`dynamic_alpha`, since its slowest pair is divided by alpha), "blended"
    otherwise, each within a relative tolerance ``rtol``.

    Returns:
        ``dim/2`` labels, one per pair i.
    """
    rtol = check_positive_float(rtol, "rtol", upper=0.1)
    scaled, _ = scaled_theta(dim, base, method, seq_len=seq_len, **params)
    ratio = (scaled / plain_theta(dim, base)).tolist()  # (dim/2,)
    resolved = resolve_params(method, dim, params)
    if method == "dynamic":  # its factor is not the scale: alpha at the current length is
        L = resolved["original_max_position_embeddings"]
        s = dynamic_alpha(resolved["factor"], L, L if seq_len is None else seq_len)
    elif "original_max_position_embeddings" in resolved:
        s = _resolve_factor(resolved.get("factor"), resolved["original_max_position_embeddings"],
                            resolved.get("max_position_embeddings"))
    else:
        s = resolved.get("factor") or 1.0
    out = []
    for r in ratio:
        if abs(r - 1.0) <= rtol:
            out.append("kept")
        elif abs(r * s - 1.0) <= rtol:
            out.append("interpolated")
        else:
            out.append("blended")
    return tuple(out)
