"""A model's RoPE settings, layer by layer, and reading them from a ``config.json``.

:class:`RopeConfig` holds the model's main spectrum (that of its full-attention RoPE
layers, or of its RoPE layers when none has full attention): head dim, rotary dim,
base, layout, scaling method and its parameters (Hugging Face names), training and
maximum context, the M-RoPE sections of Qwen2-VL; and one :class:`LayerSpec` per
layer: whether the layer rotates and, if not, why (a NoPE attention, a linear-attention,
state-space or convolution mixer); its attention span (full, sliding window, chunk) and
window; and wherever the layer differs from the main spectrum, its own head dim, rotary
dims (which coordinates), base, scaling and layout; any query scale applied outside the
rotation (Llama 4's NoPE temperature, Mistral's ``llama_4_scaling_beta``) and the softmax
scale's multiplier (DeepSeek's mscale^2). A field left None in a LayerSpec is the main
spectrum's, so replacing the main method (``dataclasses.replace(cfg, method=...)``)
changes every layer that uses it and no other (Gemma 3's local layers keep theirs).

``theta()`` is the main spectrum, ``theta(layer=i)`` layer i's; :meth:`RopeConfig.groups`
lists the distinct layer specs with the layers that share each.

:meth:`RopeConfig.from_hf` reads a config.json as transformers 5.24 does:

* head_dim: ``head_dim``, else ``kv_channels`` (ChatGLM), else hidden_size /
  num_attention_heads (aliases n_embd, n_head); DeepSeek's MLA: ``qk_nope_head_dim +
  qk_rope_head_dim``, its rotated dims after the nope dims; per layer, ``per_layer_config``
  overrides (transformers' heterogeneous configs) and Gemma 4's ``global_head_dim``;
* rotary_dim: ``rotary_dim`` (GPT-J), ``qk_rope_head_dim`` (MLA), int(head_dim *
  ``partial_rotary_factor`` or ``rotary_pct``), head_dim / 2 for ChatGLM, else head_dim;
  the ``proportional`` rope type (Gemma 4) rotates 2 int(f head_dim / 2) dims with
  theta_i = base^(-2i/head_dim) (the spectrum of the whole head, its fast end);
* base: ``rope_theta`` / ``rotary_emb_base`` (10000 if absent), or 10000 * ``rope_ratio``;
* scaling: ``rope_scaling`` or transformers 5's ``rope_parameters``: flat, or nested per
  layer type ({"full_attention": ..., "sliding_attention": ...}; a null entry: that layer
  type has no RoPE) or per label (DeepSeek-V4's "main" / "compress"); ``rope_type`` or
  legacy ``type`` ("su" -> longrope; "mrope" and "default" -> none; Hunyuan's dynamic
  with a fixed ``alpha`` -> static NTK with factor alpha);
* L (original_context): for llama3, yarn and longrope the top-level
  ``original_max_position_embeddings`` if present (it wins, as in transformers), else
  the one in the scaling dict, else max_position_embeddings; for dynamic,
  max_position_embeddings; otherwise the scaling dict's value or max_position_embeddings;
* layers: ``layer_types`` (or ``layers_block_type``) read through
  :data:`rope_core.models.families.LAYER_TYPES`, else the family's rule in
  :data:`rope_core.models.families.FAMILIES` (Gemma 3's sliding_window_pattern, Llama 4's
  chunks, Qwen2's max_window_layers, Jamba's period, ...); which attention layers
  rotate, the layout, the query and softmax scales: that table too;
* required keys per rope type, as transformers' ``validate_rope`` (a ``KeyError`` there, a
  ``ValueError`` naming the key here): linear, dynamic and yarn need ``factor``; llama3
  ``factor``, ``low_freq_factor`` and ``high_freq_factor``; longrope ``short_factor`` and
  ``long_factor``.

Unrelated top-level fields (vocab_size, ...) are ignored; an unknown layer type, an
unknown key inside a scaling dict, wrong JSON types, inconsistent or out-of-range values
raise ``ValueError`` naming the field.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from numbers import Integral, Real

import torch

from ..rotary.frequencies import DEFAULT_BASE
from ..support._checks import (
    MAX_DIM,
    N_,
    Message,
    RopeError,
    as_integer_positions,
    check_base,
    check_choice,
    check_dim,
    check_int,
    fail,
)
from . import families
from .scaling import MAX_SEQ_LEN, SCALINGS, resolve_params, scaled_theta

MAX_JSON_BYTES = 1_000_000

# Python's json error messages (JSONDecodeError.msg) as translatable phrases; the
# error names the line and column after them. Others fall back to a plain sentence.
_JSON_PROBLEMS = {
    "Expecting value": Message("Expecting value"),
    "Expecting property name enclosed in double quotes":
        Message("Expecting property name enclosed in double quotes"),
    "Expecting ':' delimiter": Message("Expecting ':' delimiter"),
    "Expecting ',' delimiter": Message("Expecting ',' delimiter"),
    "Unterminated string starting at": Message("Unterminated string starting"),
    "Invalid control character at": Message("Invalid control character"),
    "Invalid \\escape": Message("Invalid \\escape"),
    "Invalid \\uXXXX escape": Message("Invalid \\uXXXX escape"),
    "Extra data": Message("Extra data"),
}
# The key each rope type cannot do without (transformers' _validate_<type>_rope_parameters;
# original_max_position_embeddings and rope_theta are filled in from the config there).
REQUIRED_KEYS = {"linear": ("factor",), "dynamic": ("factor",), "yarn": ("factor",),
                 "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
                 "longrope": ("short_factor", "long_factor"), "su": ("short_factor", "long_factor")}
MAX_CONTEXT = 100_000_000  # tokens a config may name (Llama 4 Scout: 10,485,760)
MAX_LAYERS = 1000
LAYOUTS = ("half", "interleaved")
ATTENTION_KINDS = ("full", "sliding", "chunked", "compressed")
WINDOWED = ("sliding", "chunked")  # attention kinds that see only their window or chunk
MIXERS = families.MIXERS
HF_TYPES = {"default": "none", "mrope": "none", "linear": "linear", "dynamic": "dynamic",
            "yarn": "yarn", "llama3": "llama3", "longrope": "longrope", "su": "longrope",
            "proportional": "linear"}
_NEEDS_ORIGINAL = ("llama3", "yarn", "longrope")
# keys of a rope dict that are not the method's parameters
_SCALING_META_KEYS = ("rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section",
                      "mrope_interleaved", "llama_4_scaling_beta", "alpha")

# Query scales outside the rotation: rule -> what it multiplies the query at position p by.
# Translators: formulas of a query scale; L and beta are numbers from the model's config
QUERY_SCALES = {
    # Llama 4's NoPE layers (attn_temperature_tuning; i = the token's index in the sequence)
    "llama4": N_("1 + {beta} ln(1 + ⌊(p + 1) / {length}⌋)"),
    # Mistral's llama_4_scaling_beta (Ministral 3, Mistral 4), L = original context
    "llama_4_scaling_beta": N_("1 + {beta} ln(1 + ⌊p / {length}⌋)"),
    # Beam's NoPE layers: Scalable-Softmax as a power of the position
    "ssmax": N_("(1 + (p + 1) / {length})^{beta}"),
}


def query_scale(rule: str, length: float, beta: float, positions) -> torch.Tensor:
    """What a query scale multiplies the query at position p by (:data:`QUERY_SCALES`).

        llama4:               1 + beta ln(1 + floor((p + 1) / L))   (Llama 4, NoPE layers)
        llama_4_scaling_beta: 1 + beta ln(1 + floor(p / L))         (Ministral 3, Mistral 4)
        ssmax:                (1 + (p + 1) / L)^beta                (Beam, NoPE layers)

    The logits q.k grow by the same factor. (Llama 4 counts p as the token's index in the
    sequence, transformers' Llama4TextAttention; the others the position id.)

    Args:
        rule: a key of :data:`QUERY_SCALES`.
        length: L > 0; beta: > 0.
        positions: ``(P,)`` integer positions, 0 ... 10^9, at most 10^5 of them.
    Returns:
        ``(P,)`` float64 tensor.
    """
    check_choice(rule, "rule", tuple(QUERY_SCALES))
    p = as_integer_positions(positions, name="positions", max_abs=MAX_SEQ_LEN).to(torch.float64)
    if p.numel() == 0 or p.numel() > 100_000 or bool((p < 0).any()):
        fail("positions", positions, "1 to 100000 integers from 0 to {high}", high=MAX_SEQ_LEN)
    _check_scale((rule, length, beta))
    if rule == "llama4":
        return 1.0 + beta * torch.log1p(torch.floor((p + 1.0) / length))  # (P,)
    if rule == "llama_4_scaling_beta":
        return 1.0 + beta * torch.log1p(torch.floor(p / length))  # (P,)
    return torch.pow(1.0 + (p + 1.0) / length, beta)  # (P,)


def _check_scale(value):
    """A query scale (rule, length, beta), or () for none; as a tuple."""
    value = _freeze(value)
    if value == ():
        return value
    if not isinstance(value, tuple) or len(value) != 3 or value[0] not in QUERY_SCALES or any(
            isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v)
            or not 0 < v <= MAX_CONTEXT for v in value[1:]):
        fail("query_scale", value, "a triple (rule, length, beta) with rule one of {rules} and "
                                   "positive numbers", rules=", ".join(map(repr, QUERY_SCALES)))
    return value


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _params(value, name: str = "params"):
    items = value.items() if isinstance(value, Mapping) else value
    try:
        return tuple(sorted((str(k), _freeze(v)) for k, v in items))
    except (TypeError, ValueError):
        fail(name, value, "a mapping or a sequence of (name, value) pairs")


def _check_softmax(value, name: str = "softmax_scale") -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or \
            not 0 < value <= 1e4:
        fail(name, value, "a number greater than 0 and at most 1e4")
    return float(value)


# --- one layer ------------------------------------------------------------------------------

# fields a layer takes from the main spectrum when it leaves them None
INHERITED = ("head_dim", "rotary_dim", "rotary_start", "theta_dim", "base", "layout", "method",
             "params", "query_scale", "softmax_scale")


@dataclass(frozen=True)
class LayerSpec:
    """One layer's RoPE (hashable). Fields left None are the model's main spectrum's
    (:meth:`RopeConfig.layer` returns them filled in).

    Attributes:
        mixer: what mixes tokens: "attention", "linear_attention" (Gated DeltaNet,
            lightning attention), "mamba", "conv", "recurrent" (RG-LRU), "mlp" (none).
        rotates: whether the layer rotates its queries and keys (only attention does).
        attention: "full", "sliding", "chunked" or "compressed" (an attention layer's
            span; "compressed": DeepSeek-V4's compressed keys of the whole context, one per
            ``compress`` tokens, beside a raw window of the last ``window`` tokens).
        window: tokens a sliding window or attention chunk holds, or the raw window of a
            compressed layer (None: full attention).
        head_dim: coordinates per query head.
        rotary_dim: coordinates rotated (2 per pair).
        rotary_start: the first rotated coordinate (DeepSeek's MLA: after its nope dims).
        theta_dim: d of theta_i = base^(-2i/d), i < rotary_dim/2: rotary_dim, or the head
            dim for Gemma 4's proportional RoPE (the fast end of a whole head's spectrum).
        base, layout, method, params: as :class:`RopeConfig`'s.
        query_scale: (rule, length, beta) of :func:`query_scale`, or () for none.
        softmax_scale: what the attention multiplies its softmax scale 1/sqrt(d) by,
            outside the rotation (DeepSeek's mscale^2).
        compress: tokens per compressed key of a "compressed" layer (DeepSeek-V4: 4 for
            compressed sparse attention, 128 for heavily compressed); None otherwise.
    """

    mixer: str = "attention"
    rotates: bool = True
    attention: str | None = "full"
    window: int | None = None
    head_dim: int | None = None
    rotary_dim: int | None = None
    rotary_start: int | None = None
    theta_dim: int | None = None
    base: float | None = None
    layout: str | None = None
    method: str | None = None
    params: tuple | None = None
    query_scale: tuple | None = None
    softmax_scale: float | None = None
    compress: int | None = None

    def __post_init__(self):
        check_choice(self.mixer, "mixer", MIXERS)
        if not isinstance(self.rotates, bool):
            fail("rotates", self.rotates, "true or false")
        if self.mixer == "attention":
            check_choice(self.attention, "attention", ATTENTION_KINDS)
        else:
            if self.attention is not None:
                fail("attention", self.attention, "None for a {mixer} layer", mixer=self.mixer)
            if self.rotates:
                fail("rotates", self.rotates, "false for a {mixer} layer (only attention "
                                              "rotates)", mixer=self.mixer)
        if self.window is not None:
            check_int(self.window, "window", 1, MAX_CONTEXT)
            if self.attention not in WINDOWED + ("compressed",):
                fail("window", self.window, "None for {attention} attention",
                     attention=self.attention)
        if (self.compress is None) == (self.attention == "compressed"):
            fail("compress", self.compress, "tokens per compressed key (2 or more) for "
                 "compressed attention, else None")
        if self.compress is not None:
            check_int(self.compress, "compress", 2, MAX_CONTEXT)
        for name in ("head_dim", "rotary_dim", "theta_dim"):
            if getattr(self, name) is not None:
                check_dim(getattr(self, name), name)
        if self.rotary_start is not None:
            check_int(self.rotary_start, "rotary_start", 0, MAX_DIM)
        if self.base is not None:
            object.__setattr__(self, "base", check_base(self.base))
        if self.layout is not None:
            check_choice(self.layout, "layout", LAYOUTS)
        if self.method is not None:
            check_choice(self.method, "method", tuple(SCALINGS))
        if self.params is not None:
            object.__setattr__(self, "params", _params(self.params))
        if self.query_scale is not None:
            object.__setattr__(self, "query_scale", _check_scale(self.query_scale))
        if self.softmax_scale is not None:
            object.__setattr__(self, "softmax_scale", _check_softmax(self.softmax_scale))

    @property
    def windowed(self) -> bool:
        """Whether the layer sees only a window or chunk (a compressed layer's raw window
        does not count: its compressed keys cover the whole context)."""
        return self.attention in WINDOWED

    @property
    def kind(self) -> str:
        """"rope", or why the layer does not rotate: "nope" (an attention without
        positions) or its mixer ("linear_attention", "mamba", "conv", ...)."""
        if self.rotates:
            return "rope"
        return "nope" if self.mixer == "attention" else self.mixer

    def resolved(self, main: LayerSpec) -> LayerSpec:
        """This layer with every None field taken from ``main`` (a complete spec), checked
        as a whole: rotary dims inside the head, parameters valid for the method."""
        spec = LayerSpec(**{f.name: (getattr(main, f.name) if f.name in INHERITED and
                                     getattr(self, f.name) is None else getattr(self, f.name))
                            for f in fields(LayerSpec)})
        spec._check_complete()
        return spec

    def _check_complete(self):
        missing = [name for name in INHERITED if getattr(self, name) is None]
        if missing:
            fail(missing[0], None, "a value (the layer spec is not resolved)")
        if self.rotary_dim > self.theta_dim:
            fail("rotary_dim", self.rotary_dim, "at most theta_dim = {theta_dim}",
                 theta_dim=self.theta_dim)
        reach = (self.rotary_dim if self.layout == "interleaved"
                 else self.theta_dim // 2 + self.rotary_dim // 2)
        if self.rotary_start + reach > self.head_dim:
            fail("rotary_dim", self.rotary_dim, "rotated coordinates inside the head: "
                 "rotary_start + {reach} at most head_dim = {head_dim}", reach=reach,
                 head_dim=self.head_dim)
        resolve_params(self.method, self.theta_dim, self.params_dict)

    @property
    def params_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in (self.params or ())}

    # --- on a resolved spec ---------------------------------------------------------------

    def theta(self, seq_len: int | None = None, *, device=None,
              dtype: torch.dtype = torch.float64):
        """``(theta, attention_factor)`` of a resolved spec: the ``(rotary_dim/2,)``
        frequencies its pairs rotate with at length seq_len.

        theta = scaled_theta(theta_dim, base, method, seq_len, **params)[: rotary_dim/2].
        """
        theta, a = scaled_theta(self.theta_dim, self.base, self.method, seq_len=seq_len,
                                device=device, dtype=dtype, **self.params_dict)
        return theta[: self.rotary_dim // 2], a  # (rotary_dim/2,)

    def pairs(self) -> tuple:
        """The coordinates of each rotated pair, ((j, j'), ...), pair i rotating by
        i-th theta: half layout (s + i, s + i + theta_dim/2), interleaved (s + 2i,
        s + 2i + 1), s = rotary_start. Coordinates of the query as projected (the
        checkpoint's), before any reordering an implementation does."""
        s, n = self.rotary_start, self.rotary_dim // 2
        if self.layout == "interleaved":
            return tuple((s + 2 * i, s + 2 * i + 1) for i in range(n))
        return tuple((s + i, s + i + self.theta_dim // 2) for i in range(n))

    def reach(self, context: int) -> int:
        """Tokens a query of this layer sees, itself included: its window or chunk when
        it has one (:attr:`windowed`), at most ``context``; else ``context`` (a compressed
        layer reaches the whole context through its compressed keys)."""
        context = check_int(context, "context", 1, MAX_CONTEXT)
        return min(self.window, context) if self.windowed else context


@dataclass(frozen=True)
class LayerGroup:
    """Layers that share one (resolved) :class:`LayerSpec`."""

    spec: LayerSpec
    layers: tuple


# --- the model ------------------------------------------------------------------------------

@dataclass(frozen=True)
class RopeConfig:
    """One model's RoPE settings (hashable: params are a sorted tuple of items).

    Attributes:
        name: display name.
        head_dim, rotary_dim, base, layout, method, params: the main spectrum (its
            full-attention RoPE layers): coordinates per head; coordinates rotated (even,
            <= head_dim); theta_i = base^(-2i/theta_dim); "interleaved" or "half"; a key of
            :data:`rope_core.models.scaling.SCALINGS` and its parameters, Hugging Face names (a
            mapping is accepted and stored as a sorted tuple; lists become tuples).
        original_context: L, where the main spectrum's scaling starts (its
            original_max_position_embeddings), else the configured context.
        max_context: the longest context the model is configured for.
        mrope_section: M-RoPE pair counts per axis (temporal, height, width), Qwen2-VL.
        family: the config's model_type ("" when unknown).
        softmax_scale: what the main layers multiply their softmax scale 1/sqrt(d) by,
            outside the rotation (DeepSeek's mscale^2; 1 otherwise).
        training_context: the context the model was pre-trained at, where a source says
            it (a preset's paper or model card; None otherwise).
        mrope_interleaved: Qwen3-VL's interleaved M-RoPE sections.
        theta_dim: d of the main spectrum's theta_i = base^(-2i/d) (None: rotary_dim).
        query_scale: the main layers' query scale (rule, length, beta), or ().
        layer_specs: one :class:`LayerSpec` per layer (None when the config gives no
            layer count); their None fields are the main spectrum's.
        text_config: True when the config.json keeps the language model's fields under
            ``text_config`` (multimodal configs: Gemma 3 4B, Llama 4, Qwen3-VL), where a
            change to them has to be written.
    """

    name: str
    head_dim: int
    rotary_dim: int
    base: float
    layout: str = "half"
    method: str = "none"
    params: tuple = ()
    original_context: int = 4096
    max_context: int = 4096
    mrope_section: tuple | None = field(default=None)
    family: str = ""
    softmax_scale: float = 1.0
    training_context: int | None = None
    mrope_interleaved: bool = False
    theta_dim: int | None = None
    query_scale: tuple = ()
    layer_specs: tuple | None = None
    text_config: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not 0 < len(self.name) <= 200:
            fail("name", self.name, "a non-empty string of at most {n} characters", n=200)
        check_dim(self.head_dim, "head_dim")
        check_dim(self.rotary_dim, "rotary_dim")
        if self.rotary_dim > self.head_dim:
            fail("rotary_dim", self.rotary_dim, "at most head_dim = {head_dim}",
                 head_dim=self.head_dim)
        object.__setattr__(self, "base", check_base(self.base))
        check_choice(self.layout, "layout", LAYOUTS)
        check_choice(self.method, "method", tuple(SCALINGS))
        object.__setattr__(self, "params", _params(self.params))
        if self.theta_dim is not None:
            check_dim(self.theta_dim, "theta_dim")
            if not self.rotary_dim <= self.theta_dim <= self.head_dim:
                fail("theta_dim", self.theta_dim, "from rotary_dim = {rotary} to head_dim = "
                     "{head}", rotary=self.rotary_dim, head=self.head_dim)
        resolve_params(self.method, self.theta_dim or self.rotary_dim, dict(self.params))
        check_int(self.original_context, "original_context", 1, MAX_CONTEXT)
        check_int(self.max_context, "max_context", 1, MAX_CONTEXT)
        if self.mrope_section is not None:
            sec = _freeze(self.mrope_section)
            if not isinstance(sec, tuple) or not sec or any(
                    isinstance(v, bool) or not isinstance(v, Integral) or v < 0 for v in sec) \
                    or sum(sec) != self.rotary_dim // 2:
                fail("mrope_section", self.mrope_section,
                     "non-negative integers summing to rotary_dim/2 = {half}",
                     half=self.rotary_dim // 2)
            object.__setattr__(self, "mrope_section", sec)
        if not isinstance(self.family, str) or len(self.family) > 100:
            fail("family", self.family, "a string of at most {n} characters", n=100)
        object.__setattr__(self, "softmax_scale", _check_softmax(self.softmax_scale))
        if self.training_context is not None:
            check_int(self.training_context, "training_context", 1, MAX_CONTEXT)
        if not isinstance(self.mrope_interleaved, bool):
            fail("mrope_interleaved", self.mrope_interleaved, "true or false")
        object.__setattr__(self, "query_scale", _check_scale(self.query_scale))
        if self.layer_specs is not None:
            specs = self.layer_specs
            if isinstance(specs, (str, bytes)) or not hasattr(specs, "__len__") or \
                    not 1 <= len(specs) <= MAX_LAYERS or \
                    not all(isinstance(s, LayerSpec) for s in specs):
                fail("layer_specs", type(specs).__name__,
                     "1 to {n} LayerSpec objects, one per layer", n=MAX_LAYERS)
            object.__setattr__(self, "layer_specs", tuple(specs))
            main = self.main_spec()
            for spec in dict.fromkeys(self.layer_specs):  # each distinct layer once, in order
                spec.resolved(main)
        if not isinstance(self.text_config, bool):
            fail("text_config", self.text_config, "true or false")

    # --- layers -------------------------------------------------------------------------

    def main_spec(self) -> LayerSpec:
        """The main spectrum as a complete LayerSpec (a full-attention RoPE layer)."""
        return LayerSpec(head_dim=self.head_dim, rotary_dim=self.rotary_dim, rotary_start=0,
                         theta_dim=self.theta_dim or self.rotary_dim, base=self.base,
                         layout=self.layout, method=self.method, params=self.params,
                         query_scale=self.query_scale, softmax_scale=self.softmax_scale)

    @property
    def layers(self) -> int | None:
        """Number of layers, when the config gives them."""
        return None if self.layer_specs is None else len(self.layer_specs)

    def layer(self, layer: int) -> LayerSpec:
        """Layer ``layer``'s spec, complete (its None fields the main spectrum's)."""
        if self.layer_specs is None:
            fail("layer", layer, "no layer: {model} gives no layers", model=self.name)
        check_int(layer, "layer", 0, len(self.layer_specs) - 1)
        return self.layer_specs[layer].resolved(self.main_spec())

    def groups(self) -> tuple:
        """The distinct layer specs (complete) with the layers of each, in the order of
        their first layer: a tuple of :class:`LayerGroup`. Without layers, one group of
        the main spectrum with no layer numbers."""
        return _groups(self)

    @property
    def params_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params}

    def theta(self, seq_len: int | None = None, *, layer: int | None = None, device=None,
              dtype: torch.dtype = torch.float64):
        """``(theta, attention_factor)``: the ``(rotary_dim/2,)`` spectrum at length seq_len,
        of the main spectrum or, with ``layer``, of that layer (which must rotate).

        theta = scaled_theta(theta_dim, base, method, seq_len=seq_len, **params)
        [: rotary_dim/2], theta_dim = rotary_dim unless set.
        """
        spec = self.main_spec() if layer is None else self.layer(layer)
        if not spec.rotates:
            fail("layer", layer, "a layer that rotates: layer {layer} of {model} is {kind}",
                 layer=layer, model=self.name, kind=spec.kind)
        return spec.theta(seq_len, device=device, dtype=dtype)

    def longest_wavelength(self, seq_len: int | None = None) -> float:
        """2 pi / min_i theta'_i in tokens, for the main spectrum at ``seq_len``."""
        theta, _ = self.theta(seq_len)
        return float(2 * math.pi / theta.min())

    # --- reading config.json ---------------------------------------------------------------

    @classmethod
    def from_json(cls, text, name: str | None = None) -> RopeConfig:
        """Parse a config.json text (str or bytes, at most 1 MB; :func:`parse_json`), then
        :meth:`from_hf`."""
        return cls.from_hf(parse_json(text), name=name)

    @classmethod
    def from_hf(cls, config: Mapping, name: str | None = None) -> RopeConfig:
        """Build from a parsed Hugging Face config.json (see the module docstring)."""
        if not isinstance(config, Mapping):
            fail("config", type(config).__name__, "a JSON object (a dict of config.json fields)")
        cfg = dict(config)
        text_cfg = cfg.get("text_config")
        if text_cfg is not None:
            if not isinstance(text_cfg, Mapping):
                fail("text_config", text_cfg, "a JSON object")
            cfg = {**cfg, **text_cfg}  # multimodal configs: the language model's fields win
        model_type = _get(cfg, "model_type", str)
        outer_type = _get(dict(config), "model_type", str)
        types = [t for t in (model_type, outer_type) if t]
        if name is None:
            # Translators: the name of a model read from a config.json without model_type
            name = model_type or N_("custom model")
        _family_name, fam = families.family(types)
        if fam.sub_config is not None and isinstance(cfg.get(fam.sub_config), Mapping):
            cfg = {**cfg, **cfg[fam.sub_config]}  # DBRX: the attention's fields nested

        head_dim, rope_dims = _head_dim(cfg)
        max_context = _first(cfg, ("max_position_embeddings", "n_positions", "seq_length",
                                   "max_sequence_length", "model_max_length", "max_seq_len") +
                             ((fam.context_key,) if fam.context_key else ()), int)
        if max_context is None:
            raise RopeError("max_position_embeddings is missing: config needs "
                            "max_position_embeddings (or n_positions / seq_length).")
        max_context = check_int(max_context, "max_position_embeddings", 1, MAX_CONTEXT)
        entries, label = _rope_entries(cfg, fam)
        layer_types = _layer_types(cfg, fam)
        layout = fam.layout
        if fam.interleave_key is not None:
            interleave = _get(cfg, fam.interleave_key, bool)
            if interleave is not None:
                layout = "interleaved" if interleave else "half"
        else:
            interleave = _get(cfg, "rope_interleave", bool)
            if interleave is not None:
                layout = "interleaved" if interleave else "half"

        # every layer: (mixer, span, entry key, head dim, compress)
        if layer_types is None:
            plan = None
        else:
            per_layer = _per_layer_overrides(cfg, len(layer_types))
            plan = []
            cross = set(_int_list(cfg, fam.cross_attention_key) or ()
                        if fam.cross_attention_key else ())
            for i, kind in enumerate(layer_types):
                mixer, span = families.LAYER_TYPES[kind]
                if mixer == "linear_attention":
                    mixer = fam.mixer
                if i in cross:
                    mixer, span = "cross_attention", None
                key = label(kind) if mixer == "attention" else None
                over = per_layer.get(i, {})
                dim = _get(over, "head_dim", int)
                if dim is None and span == "full" and _get(cfg, "global_head_dim", int):
                    dim = _get(cfg, "global_head_dim", int)
                nope = _get(over, "qk_nope_head_dim", int)
                if nope is not None and rope_dims is not None:
                    dim = nope + rope_dims
                plan.append((mixer, span, key, dim or head_dim,
                             _compress_rate(cfg, kind) if span == "compressed" else None))

        # the main spectrum: the rotating full-attention layers', else the first rotating
        # layer's, else the config's first entry
        rotates = [] if plan is None else [
            _rotates(cfg, fam, i, mixer, span, entries.get(key, {}) if key is not None else None)
            for i, (mixer, span, key, _dim, _c) in enumerate(plan)]
        main_i = None
        if plan is not None:
            candidates = [i for i, r in enumerate(rotates) if r]
            # the layers that reach the whole context (full or compressed attention)
            full = [i for i in candidates if plan[i][1] in ("full", "compressed")]
            main_i = (full or candidates or [None])[0]
        main_key = plan[main_i][2] if main_i is not None else next(iter(entries))
        main_dim = plan[main_i][3] if main_i is not None else head_dim
        spectra = {}

        def spectrum(key, dim):
            if (key, dim) not in spectra:
                spectra[key, dim] = _spectrum(entries.get(key) or {}, cfg, types, dim, rope_dims,
                                              max_context, key, fam.rotary_dim_key,
                                              fam.default_base)
            return spectra[key, dim]

        main = spectrum(main_key, main_dim)
        softmax = _softmax(fam, entries.get(main_key) or {})
        top_scale = _top_query_scale(cfg, fam, entries.get(main_key) or {}, main)
        specs = None
        if plan is not None:
            specs = []
            window_of = _windows(cfg, fam)
            for i, (mixer, span, key, dim, compress) in enumerate(plan):
                window = window_of.get(span) if span in WINDOWED else None
                if span == "compressed":  # DeepSeek-V4: the raw window beside the keys
                    window = window_of.get("sliding")
                if span in WINDOWED and window is None:
                    raise RopeError("{kind} layers need a window: config needs {key}.",
                                    kind=layer_types[i], key=fam.window_key
                                    if span == "sliding" else "attention_chunk_size")
                if not rotates[i]:
                    scale = _nope_query_scale(cfg, fam, mixer)
                    specs.append(LayerSpec(mixer=mixer, rotates=False,
                                           attention=span if mixer == "attention" else None,
                                           window=window,
                                           head_dim=None if dim == main_dim else dim,
                                           query_scale=scale, compress=compress))
                    continue
                own = spectrum(key, dim)
                diff = {k: own[k] for k in ("rotary_dim", "theta_dim", "base", "method", "params")
                        if own[k] != main[k]}
                own_softmax = _softmax(fam, entries.get(key) or {})
                specs.append(LayerSpec(
                    attention=span, window=window, compress=compress,
                    head_dim=None if dim == main_dim else dim,
                    rotary_start=(dim - own["rotary_dim"]) if own["rope_dims"] or fam.rotary_at_end
                    else None,
                    layout=None, softmax_scale=None if own_softmax == softmax else own_softmax,
                    **diff))
        try:
            return cls(name=str(name)[:200] or N_("custom model"), head_dim=main_dim,
                       rotary_dim=main["rotary_dim"], base=main["base"], layout=layout,
                       method=main["method"], params=main["params"],
                       original_context=main["original"], max_context=max_context,
                       mrope_section=main["section"], family=(model_type or outer_type or "")[:100],
                       softmax_scale=softmax,
                       mrope_interleaved=main["mrope_interleaved"],
                       theta_dim=None if main["theta_dim"] == main["rotary_dim"]
                       else main["theta_dim"],
                       query_scale=top_scale, layer_specs=None if specs is None else tuple(specs),
                       text_config=text_cfg is not None)
        except ValueError as e:
            raise RopeError("config: {error}", error=_message(e)) from None


def parse_json(text) -> object:
    """A config.json text (str or bytes, at most :data:`MAX_JSON_BYTES`) parsed safely: UTF-8
    only, no NaN or Infinity constants, no number of more than 4300 digits, no nesting
    deeper than Python's recursion allows; every problem a :class:`RopeError` naming it
    (line and column for a syntax error). Returns the parsed JSON value."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_JSON_BYTES:
            size = Message("<{n} bytes>", n=len(text))
            fail("config", size, "at most {limit} bytes", limit=MAX_JSON_BYTES)
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise RopeError("config is not UTF-8 text: the byte at position {position} "
                            "cannot be decoded.", position=e.start) from None
    if not isinstance(text, str):
        fail("config", type(text).__name__, "JSON text (str or bytes)")
    if len(text.encode("utf-8")) > MAX_JSON_BYTES:
        size = Message("<{n} characters>", n=len(text))
        fail("config", size, "at most {limit} bytes", limit=MAX_JSON_BYTES)

    def no_constant(c):
        raise RopeError("config is not valid JSON: {constant} is not a JSON number",
                        constant=c)

    try:
        data = json.loads(text, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        problem = _JSON_PROBLEMS.get(e.msg)
        if problem is None:
            raise RopeError("config is not valid JSON: an error at line {line}, "
                            "column {column}.", line=e.lineno, column=e.colno) from None
        raise RopeError("config is not valid JSON: {problem} at line {line}, column {column}.",
                        problem=problem, line=e.lineno, column=e.colno) from None
    except RecursionError:
        raise RopeError("config is not valid JSON: nested too deeply.") from None
    except RopeError:  # from no_constant
        raise
    except ValueError:
        # json.loads: an integer of more than 4300 digits
        raise RopeError("config is not valid JSON: a number has too many digits.") from None
    return data


@functools.lru_cache(maxsize=256)
def _groups(cfg: RopeConfig) -> tuple:
    main = cfg.main_spec()
    if cfg.layer_specs is None:
        return (LayerGroup(main, ()),)
    order: dict = {}
    resolved: dict = {}  # each distinct layer resolved once
    for i, spec in enumerate(cfg.layer_specs):
        if spec not in resolved:
            resolved[spec] = spec.resolved(main)
        order.setdefault(resolved[spec], []).append(i)
    return tuple(LayerGroup(spec, tuple(layers)) for spec, layers in order.items())


# --- reading a config.json: helpers -----------------------------------------------------------

def _head_dim(cfg: Mapping) -> tuple[int, int | None]:
    """(head dim of the queries, MLA's rotated dims or None)."""
    head_dim = _get(cfg, "head_dim", int) or _get(cfg, "kv_channels", int)
    nope = _get(cfg, "qk_nope_head_dim", int)
    rope_dims = _get(cfg, "qk_rope_head_dim", int)
    if rope_dims is not None and nope is not None:
        head_dim = nope + rope_dims
    else:
        rope_dims = None
    if head_dim is None:
        hidden = _first(cfg, ("hidden_size", "n_embd", "d_model"), int)
        heads = _first(cfg, ("num_attention_heads", "n_head", "num_heads", "n_heads"), int)
        if hidden is None or heads is None:
            raise RopeError("head_dim is missing: config needs head_dim, or hidden_size "
                            "and num_attention_heads.")
        heads = check_int(heads, "num_attention_heads", 1, 100_000)
        hidden = check_int(hidden, "hidden_size", 1, 100_000_000)
        if hidden % heads:
            fail("hidden_size", hidden, "a multiple of num_attention_heads = {heads}",
                 heads=heads)
        head_dim = hidden // heads
    return check_int(head_dim, "head_dim", 2, MAX_DIM), rope_dims


def _per_layer_overrides(cfg: Mapping, n: int) -> dict[int, dict]:
    """transformers' heterogeneous configs: {layer: {field: value}} from per_layer_config."""
    raw = cfg.get("per_layer_config")
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        fail("per_layer_config", raw, "a JSON object keyed by layer index")
    out = {}
    for key, value in raw.items():
        try:
            layer = int(key)
        except (TypeError, ValueError):
            fail("per_layer_config", key, "keys that are layer indices")
        if not 0 <= layer < n or not isinstance(value, Mapping):
            fail(f"per_layer_config.{key}", value, "an object of fields for a layer from 0 to "
                                                    "{last}", last=n - 1)
        out[layer] = dict(value)
    return out


_FLAT_KEYS = set(_SCALING_META_KEYS) | {
    "factor", "original_max_position_embeddings", "max_position_embeddings", "low_freq_factor",
    "high_freq_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor",
    "truncate", "short_factor", "long_factor"}


def _rope_entries(cfg: Mapping, fam: families.Family):
    """({key: rope dict or None}, label(layer type) -> key) from rope_parameters or
    rope_scaling: one entry "*" when flat; else one per layer type (or per label)."""
    raw = cfg.get("rope_parameters")
    name = "rope_parameters"
    if raw is None:
        raw, name = cfg.get("rope_scaling"), "rope_scaling"
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        fail(name, raw, "a JSON object or null")
    labels = dict(fam.rope_labels or ())
    nested_keys = set(families.LAYER_TYPES) | set(labels.values())
    if labels and not any(k in nested_keys for k in raw):
        # DeepSeek-V4 (configuration_deepseek_v4.py): plain RoPE at rope_theta on its
        # sliding layers ("main"); the scaling, at compress_rope_theta, on the compressed
        # ones, its yarn attention factor forced to 1
        head = _get(cfg, "head_dim", int)
        fraction = _get(cfg, "partial_rotary_factor", float)
        rope_dims = _get(cfg, "qk_rope_head_dim", int)
        if fraction is None:
            fraction = rope_dims / head if rope_dims and head else 0.125
        main = {"rope_type": "default", "rope_theta": _get(cfg, "rope_theta", float) or
                fam.default_base, "partial_rotary_factor": fraction}
        compress = {**raw, "rope_theta": _get(cfg, "compress_rope_theta", float) or 160000.0,
                    "partial_rotary_factor": fraction}
        compress.setdefault("rope_type", compress.pop("type", "default"))
        compress.pop("type", None)
        if compress["rope_type"] == "yarn":
            compress.setdefault("attention_factor", 1.0)
        raw = {"main": main, "compress": compress}
    if not any(k in nested_keys for k in raw):
        if fam.split_scaling is None:
            return {"*": dict(raw)}, (lambda kind: "*")
        kind = raw.get("rope_type", raw.get("type", "default"))
        if name == "rope_parameters" and fam.split_scaling == "full_only" and \
                kind not in ("default", "mrope"):
            # transformers 5.24 (Gemma3TextConfig, Olmo3Config.convert_rope_params_to_dict)
            # puts only rope_scaling on the full-attention layers; a flat rope_parameters
            # stays beside the per-layer-type entries it creates, both default, unread
            raise RopeError("rope_parameters: a flat {kind} dict is not read for this model: "
                            "transformers 5.24 gives both layer types their default RoPE and "
                            "ignores it. Put it under rope_parameters.full_attention (or in "
                            "rope_scaling, which goes to the full-attention layers).",
                            kind=repr(kind))
        # the config class splits it between layer types (Gemma 3, OLMo 3, ModernBERT)
        full = dict(raw)
        base = _get(cfg, fam.global_base_key, float) if fam.global_base_key else None
        base = base if base is not None else _get(cfg, "rope_theta", float)
        full.setdefault("rope_theta", base if base is not None else fam.default_base)
        local_base = _get(cfg, fam.local_base_key, float) if fam.local_base_key else None
        if local_base is not None and not (math.isfinite(local_base) and local_base > 1):
            fail(fam.local_base_key, local_base, "a finite number greater than 1")
        if local_base is None:
            local_base = fam.local_base_default if fam.local_base_key else full["rope_theta"]
        local = dict(raw) if fam.split_scaling == "both" else {"rope_type": "default"}
        local["rope_theta"] = local_base
        raw = {"full_attention": full, "sliding_attention": local}
    for key, entry in raw.items():
        if key not in nested_keys:
            if key in _FLAT_KEYS:
                # top-level leftovers beside the per-type entries (transformers drops them)
                continue
            fail(f"{name}.{key}", entry, "absent: nested entries are keyed by layer type "
                                         "({types})", types=", ".join(sorted(
                                             k for k in raw if k in nested_keys)))
        if entry is not None and not isinstance(entry, Mapping):
            fail(f"{name}.{key}", entry, "a JSON object or null")
    entries = {k: (dict(v) if v is not None else None) for k, v in raw.items()
               if k in nested_keys}
    if fam.split_scaling is not None:
        # an entry without rope_theta: the config class fills it (Gemma 3's
        # convert_rope_params_to_dict: rope_theta or 1e6 for full_attention,
        # rope_local_base_freq or 1e4 for sliding_attention)
        full_base = _get(cfg, fam.global_base_key, float) if fam.global_base_key else None
        full_base = full_base if full_base is not None else _get(cfg, "rope_theta", float)
        full_base = full_base if full_base is not None else fam.default_base
        local_base = _get(cfg, fam.local_base_key, float) if fam.local_base_key else None
        if local_base is None:
            local_base = fam.local_base_default if fam.local_base_key else full_base
        for key, default in (("full_attention", full_base), ("sliding_attention", local_base)):
            if key not in entries:
                entries[key] = {"rope_type": "default"}
            if entries[key] is not None and default is not None:
                entries[key].setdefault("rope_theta", default)

    def label(kind: str) -> str:
        if labels:
            return labels.get(kind, labels.get("*", "*"))
        return kind if kind in entries else "*"

    entries.setdefault("*", {})  # a layer type the nested entries do not name: the config's
    return entries, label


def _layer_types(cfg: Mapping, fam: families.Family) -> list[str] | None:
    """Each layer's transformers layer type, or None when the config gives no layer count."""
    given = cfg.get("layer_types")
    key = "layer_types"
    if given is None and isinstance(cfg.get("layers_block_type"), list):
        given, key = cfg.get("layers_block_type"), "layers_block_type"
    n = _first(cfg, ((fam.layers_key,) if fam.layers_key else ()) +
               ("num_hidden_layers", "n_layer", "num_layers", "n_layers"), int)
    if given is not None:
        if not isinstance(given, list) or not given or len(given) > 2 * MAX_LAYERS or any(
                not isinstance(v, str) for v in given):
            fail(key, given, "a list of layer type names")
        if fam.layers == "dory" and "mlp" in given:
            given = given[::2]  # config.json alternates each layer with its MLP block
            n = None if n is None else n // 2
        for v in given:
            if v not in families.LAYER_TYPES:
                raise RopeError("{key}: unknown layer type {value}; known: {types}.", key=key,
                                value=repr(v), types=", ".join(families.LAYER_TYPES))
        return list(given)[:MAX_LAYERS] if n is None or len(given) >= n else \
            fail(key, given, "a list of {n} entries (num_hidden_layers)", n=n)
    if n is None:
        return None
    n = check_int(n, "num_hidden_layers", 1, MAX_LAYERS)
    rule = fam.layers
    period = fam.pattern
    text = cfg.get(fam.pattern_key) if fam.pattern_key else None
    if isinstance(text, str):  # EXAONE 4's "LLLG": L sliding, G global, repeated
        if not text or set(text) - {"L", "G"} or len(text) > MAX_LAYERS:
            fail(fam.pattern_key, text, "a string of L (sliding) and G (global)")
        if _get(cfg, fam.window_key, int) is None:
            return ["full_attention"] * n
        return ["sliding_attention" if text[i % len(text)] == "L" else "full_attention"
                for i in range(n)]
    if fam.pattern_key is not None and _get(cfg, fam.pattern_key, int) is not None:
        period = check_int(_get(cfg, fam.pattern_key, int), fam.pattern_key, 0, MAX_LAYERS)
    window = _get(cfg, fam.window_key, int)
    if rule == "window":
        return ["sliding_attention" if window else "full_attention"] * n
    if rule == "alternate":
        return ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n)]
    if rule in ("pattern", "dory"):
        if period == 0 or (fam.nope == "global_if_window" and window is None):
            return ["full_attention"] * n
        period = period or 4
        return ["sliding_attention" if (i + 1) % period else "full_attention" for i in range(n)]
    if rule == "interval":
        period = period or 4
        return ["linear_attention" if (i + 1) % period else "full_attention" for i in range(n)]
    if rule == "qwen2":
        start = _get(cfg, "max_window_layers", int) or 28
        on = bool(cfg.get("use_sliding_window")) and bool(_get(cfg, "sliding_window", int))
        return ["sliding_attention" if on and i >= start else "full_attention" for i in range(n)]
    if rule == "llama4":
        flags = _nope_flags(cfg, n)
        chunk = _get(cfg, "attention_chunk_size", int)
        return ["chunked_attention" if f and chunk else "full_attention" for f in flags]
    if rule == "indices":
        idx = _int_list(cfg, "attn_layer_indices") or []
        return ["full_attention" if i in idx else "linear_attention" for i in range(n)]
    if rule == "period":
        period = _get(cfg, "attn_layer_period", int) or 8
        offset = _get(cfg, "attn_layer_offset", int) or 4
        return ["full_attention" if i % period == offset else "linear_attention"
                for i in range(n)]
    if rule == "full_attn_idxs":
        idx = _int_list(cfg, "full_attn_idxs")
        idx = list(range(n)) if idx is None else idx
        return ["full_attention" if i in idx else "conv" for i in range(n)]
    if rule == "block_types":
        blocks = cfg.get("block_types") or ["recurrent", "recurrent", "attention"]
        if not isinstance(blocks, list) or not blocks or any(
                b not in ("recurrent", "attention") for b in blocks):
            fail("block_types", blocks, "a list of 'recurrent' and 'attention'")
        return ["linear_attention" if blocks[i % len(blocks)] == "recurrent"
                else "sliding_attention" for i in range(n)]
    if rule == "compress_ratios":  # DeepSeek-V4's configuration_deepseek_v4.py
        ratios = _int_list(cfg, "compress_ratios")
        names = {0: "sliding_attention", 4: "compressed_sparse_attention",
                 128: "heavily_compressed_attention"}
        if ratios is not None:
            if any(r not in names for r in ratios):
                fail("compress_ratios", ratios, "a list of 0, 4 and 128")
            return [names[r] for r in ratios[:n]]
        return (["heavily_compressed_attention"] * min(n, 2) +
                ["compressed_sparse_attention" if i % 2 == 0 else "heavily_compressed_attention"
                 for i in range(max(0, n - 2))])
    if rule == "attn_type_list":
        kinds = _int_list(cfg, "attn_type_list")
        if kinds is not None:
            return ["full_attention" if k else "linear_attention" for k in kinds[:n]]
        return ["full_attention" if (i + 1) % 2 else "linear_attention" for i in range(n)]
    return ["full_attention"] * n


def _int_list(cfg: Mapping, key: str):
    value = cfg.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int)
                                          for v in value):
        fail(key, value, "a list of integers")
    return value


def _nope_flags(cfg: Mapping, n: int) -> list[int]:
    """Llama 4 / SmolLM3: 1 where a layer uses RoPE (no_rope_layers, else every
    no_rope_layer_interval-th layer without)."""
    flags = cfg.get("no_rope_layers")
    if flags is not None and flags != []:
        if not isinstance(flags, list) or len(flags) != n or any(
                v not in (0, 1) or isinstance(v, float) for v in flags):
            fail("no_rope_layers", flags, "a list of {n} entries, each 0 or 1 (1: the layer "
                                          "uses RoPE)", n=n)
        return [int(v) for v in flags]
    interval = _get(cfg, "no_rope_layer_interval", int) or 4  # class default 4
    interval = check_int(interval, "no_rope_layer_interval", 1, MAX_LAYERS)
    return [1 if (i + 1) % interval else 0 for i in range(n)]


def _rotates(cfg: Mapping, fam: families.Family, i: int, mixer: str, span: str | None,
             entry) -> bool:
    """Whether layer i rotates (the family's rule; a null rope entry: no RoPE)."""
    if mixer != "attention" or entry is None:
        return False
    rule = fam.nope
    if rule == "sliding_only":
        if span == "sliding":
            return True
        dense = cfg.get("mlp_layer_types")  # cohere2_moe: dense prefix layers keep RoPE
        return (isinstance(dense, list) and i < len(dense) and dense[i] == "dense"
                and cfg.get("prefix_dense_sliding_window_pattern", 1) == 1
                and "prefix_dense_sliding_window_pattern" in cfg)
    if rule == "global_if_window":
        return span == "sliding" or _get(cfg, "sliding_window", int) is None
    if rule == "flags":
        n = _first(cfg, ("num_hidden_layers",), int)
        return bool(_nope_flags(cfg, n)[i])
    if rule == "never":
        return False
    if rule == "position_embedding_type":
        return cfg.get("position_embedding_type") == "rope"
    if rule == "use_mem_rope":
        return bool(cfg.get("use_mem_rope"))
    if rule == "theta_null":
        return not _theta_null(cfg)
    return True


def _theta_null(cfg: Mapping) -> bool:
    """Whether the config sets rope_theta to null, as OLMo hybrid's released checkpoints do
    (no RoPE): rope_parameters' rope_theta when that key is there, else the top-level one;
    a config that names neither gets the class default (10,000), which rotates."""
    raw = cfg.get("rope_parameters")
    if isinstance(raw, Mapping) and "rope_theta" in raw:
        return raw["rope_theta"] is None
    return "rope_theta" in cfg and cfg["rope_theta"] is None


def _compress_rate(cfg: Mapping, kind: str) -> int:
    """Tokens per compressed key of a compressed layer type (DeepSeek-V4's
    DeepseekV4Config: compress_rates, legacy compress_rate_csa / compress_rate_hca, else
    4 for compressed sparse and 128 for heavily compressed attention)."""
    rates = dict(families.COMPRESS_RATES)
    given = cfg.get("compress_rates")
    if given is not None:
        if not isinstance(given, Mapping):
            fail("compress_rates", given, "a JSON object of layer type: tokens per key")
        rates.update(given)
    for key, name in (("compress_rate_csa", "compressed_sparse_attention"),
                      ("compress_rate_hca", "heavily_compressed_attention")):
        if _get(cfg, key, int) is not None:
            rates[name] = _get(cfg, key, int)
    rate = rates.get(kind)
    if isinstance(rate, bool) or not isinstance(rate, int):
        fail("compress_rates", rate, "an integer number of tokens per compressed key")
    return check_int(rate, "compress_rates", 2, MAX_CONTEXT)


def _windows(cfg: Mapping, fam: families.Family) -> dict:
    """{"sliding": window of sliding layers, "chunked": attention chunk}."""
    window = _get(cfg, fam.window_key, int)
    if window is not None and fam.window_half:
        window //= 2
    if window is None or window <= 0:
        window = fam.default_window
    chunk = _get(cfg, "attention_chunk_size", int)
    out = {}
    if window is not None:
        out["sliding"] = check_int(window, fam.window_key, 1, MAX_CONTEXT)
    if chunk is not None:
        out["chunked"] = check_int(chunk, "attention_chunk_size", 1, MAX_CONTEXT)
    return out


def _softmax(fam: families.Family, entry: Mapping) -> float:
    """DeepSeek's MLA: mscale(s, mscale_all_dim)^2 when its RoPE is scaled
    (yarn_apply_mscale: mscale(s, k) = 0.1 k ln s + 1, 1 for s <= 1); else 1."""
    if fam.softmax != "mscale":
        return 1.0
    kind = entry.get("rope_type", entry.get("type", "default"))
    k = _get(entry, "mscale_all_dim", float)
    s = _get(entry, "factor", float)
    if kind in (None, "default") or not k or s is None or s <= 1:
        return 1.0
    return (0.1 * k * math.log(s) + 1.0) ** 2


def _top_query_scale(cfg: Mapping, fam: families.Family, entry: Mapping, main: dict) -> tuple:
    """The main layers' query scale: Mistral's llama_4_scaling_beta on every layer."""
    beta = _get(entry, "llama_4_scaling_beta", float)
    if beta is None:
        return ()
    if not 0 < beta <= 100:
        fail("llama_4_scaling_beta", beta, "a number greater than 0 and at most 100")
    length = _get(entry, "original_max_position_embeddings", int) or main["original"]
    return ("llama_4_scaling_beta", float(length), float(beta))


def _nope_query_scale(cfg: Mapping, fam: families.Family, mixer: str):
    """A NoPE attention layer's own query scale (Llama 4's temperature, Beam's
    Scalable-Softmax), or None."""
    if mixer != "attention":
        return None
    if fam.query_scale == "llama4":
        tuning = cfg.get("attn_temperature_tuning", True)  # class default True
        if not tuning:
            return ()
        floor = _get(cfg, "floor_scale", float) or 8192  # class defaults
        scale = _get(cfg, "attn_scale", float) or 0.1
        return ("llama4", float(floor), float(scale))
    if fam.query_scale == "ssmax":  # modeling_beam.compute_attention_scaling's constants
        return ("ssmax", 2048.0, 0.1)
    return None


def _spectrum(entry: Mapping, cfg: Mapping, types, head_dim: int, rope_dims, max_context: int,
              key, rotary_key: str | None = "rotary_dim",
              default_base: float = DEFAULT_BASE) -> dict:
    """One rope dict read against the config: rotary_dim, theta_dim, base, method, params,
    original (L), known (training context a config names), section, mrope_interleaved,
    rope_dims (MLA's rotated dims at the end of the head, else None)."""
    where = "rope_scaling" if key == "*" else f"rope_parameters.{key}"
    fraction = None
    for k in ("partial_rotary_factor", "rotary_pct"):
        for source in (entry, cfg):
            value = _get(source, k, float)
            if value is not None:
                if not 0 < value <= 1:
                    fail(k, value, "a number greater than 0 and at most 1")
                fraction = value if fraction is None else fraction
    rope_type = _get(entry, "rope_type", str)
    legacy = _get(entry, "type", str)
    if rope_type is not None and legacy is not None and rope_type != legacy \
            and HF_TYPES.get(rope_type) != HF_TYPES.get(legacy) and legacy != "mrope":
        fail(f"{where}.type", legacy, "the same as rope_type = {rope_type}",
             rope_type=repr(rope_type))
    hf_type = rope_type if rope_type not in (None, "default") or legacy is None else legacy
    hf_type = hf_type or "default"
    if hf_type not in HF_TYPES:
        fail(f"{where}.rope_type", hf_type, "one of {choices}",
             choices=", ".join(map(repr, HF_TYPES)))
    method = HF_TYPES[hf_type]

    rotary_dim = rope_dims  # MLA: qk_rope_head_dim
    if rotary_dim is None and fraction is None and rotary_key is not None:
        rotary_dim = _get(cfg, rotary_key, int)
    field_name = "rotary_dim" if rotary_dim is not None else "partial_rotary_factor"
    theta_dim = None
    if hf_type == "proportional":  # the fast end of the whole head's spectrum
        rotary_dim = 2 * int((fraction or 1.0) * head_dim // 2)
        theta_dim = head_dim
        field_name = "partial_rotary_factor"
        if _get(entry, "factor", float) in (None, 1.0):
            method = "none"
    if rotary_dim is None and fraction is not None:
        rotary_dim = int(head_dim * fraction)
    if rotary_dim is None and "chatglm" in types:
        rotary_dim = head_dim // 2
    if rotary_dim is None:
        rotary_dim = head_dim
    if rotary_dim < 2 or rotary_dim > head_dim or rotary_dim % 2:
        fail(field_name, rotary_dim, "a rotary dim that is even, at least 2 and at most "
                                     "head_dim = {head_dim}", head_dim=head_dim)
    theta_dim = theta_dim or rotary_dim

    base = _get(entry, "rope_theta", float)
    if base is None:
        base = _first(cfg, ("rope_theta", "rotary_emb_base"), float)
    ratio = _get(cfg, "rope_ratio", float)
    if ratio is not None:
        if base is not None:
            fail("rope_ratio", ratio, "absent when rope_theta is given (they conflict)")
        if not 0 < ratio <= 1e6:
            fail("rope_ratio", ratio, "a number greater than 0 and at most 1e6")
        base = DEFAULT_BASE * ratio
    base = check_base(default_base if base is None else base, "rope_theta")

    for k in REQUIRED_KEYS.get(hf_type, ()):
        if entry.get(k) is None:
            raise RopeError("rope_scaling.{key} is missing: rope_type {rope_type} needs "
                            "{keys} (transformers refuses it without).", key=k,
                            rope_type=repr(hf_type), keys=", ".join(REQUIRED_KEYS[hf_type]))
    alpha = _get(entry, "alpha", float)
    if alpha is not None:  # Hunyuan: "dynamic" with a fixed alpha is a static NTK base change
        if hf_type != "dynamic":
            fail(f"{where}.alpha", alpha, "absent for rope_type {rope_type} (only dynamic "
                                          "takes alpha)", rope_type=repr(hf_type))
        method = "ntk"
    accepted = SCALINGS[method].param_names
    params = {}
    for k, value in entry.items():
        if k in _SCALING_META_KEYS or (method == "ntk" and k == "factor"):
            continue
        if hf_type == "proportional" and k == "factor" and method == "none":
            continue
        if k not in accepted and k != "original_max_position_embeddings":
            if not accepted:
                fail(f"{where}.{k}", value,
                     "absent for rope_type {rope_type} (it accepts no parameters)",
                     rope_type=repr(hf_type))
            fail(f"{where}.{k}", value,
                 "absent for rope_type {rope_type} (it accepts {names})",
                 rope_type=repr(hf_type), names=", ".join(accepted))
        params[k] = value
    if method == "ntk":
        params = {"factor": alpha}
    top_original = _get(cfg, "original_max_position_embeddings", int)
    in_dict = params.pop("original_max_position_embeddings", None)
    if method == "dynamic":
        original = max_context
    elif method in _NEEDS_ORIGINAL:
        original = top_original or in_dict or max_context
    else:
        original = in_dict or max_context
    original = check_int(original, "original_max_position_embeddings", 1, MAX_CONTEXT)
    if "original_max_position_embeddings" in accepted:
        params["original_max_position_embeddings"] = original
    if method in ("yarn", "longrope") and "max_position_embeddings" not in params:
        params["max_position_embeddings"] = max(max_context, original)
    try:
        resolve_params(method, theta_dim, params)
    except ValueError as e:
        raise RopeError("rope_scaling: {error}", error=_message(e)) from None
    section = entry.get("mrope_section", cfg.get("mrope_section"))
    if section is not None and (not isinstance(section, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in section)):
        fail("mrope_section", section, "a list of integers")
    return {"rotary_dim": rotary_dim, "theta_dim": theta_dim, "base": base, "method": method,
            "params": _params(params), "original": original,
            "section": None if section is None else tuple(section),
            "mrope_interleaved": _get(entry, "mrope_interleaved", bool) or False,
            "rope_dims": rope_dims}


def _message(err: ValueError):
    """The error's Message (translatable), or its text for a foreign ValueError."""
    return getattr(err, "message", None) or str(err)


def _get(cfg: Mapping, key: str, kind):
    """cfg[key] checked against a JSON type (None when absent or null)."""
    value = cfg.get(key)
    if value is None:
        return None
    if kind is bool:
        ok = isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, Integral) and not isinstance(value, bool)
    elif kind is float:
        ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
    else:
        ok = isinstance(value, kind)
    if not ok:
        if kind is bool:
            fail(key, value, "true or false")
        if kind is int:
            fail(key, value, "an integer")
        if kind is float:
            fail(key, value, "a finite number")
        fail(key, value, "a string")
    return value


def _first(cfg: Mapping, keys, kind):
    for key in keys:
        value = _get(cfg, key, kind)
        if value is not None:
            return value
    return None
