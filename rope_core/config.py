"""A model's RoPE settings, and reading them from a Hugging Face ``config.json``.

:class:`RopeConfig` holds what decides a model's rotary spectrum: head dim,
rotary dim (partial rotary), base, layout, scaling method and its parameters
(Hugging Face names), training and maximum context, plus the local-layer base
of Gemma 3 and the M-RoPE sections of Qwen2-VL. ``theta()`` delegates to
:func:`rope_core.scaling.scaled_theta` with d = rotary_dim.

:meth:`RopeConfig.from_hf` reads a config.json as published:

* head_dim: ``head_dim``, else ``kv_channels`` (ChatGLM), else
  hidden_size / num_attention_heads (aliases n_embd, n_head); DeepSeek's
  ``qk_nope_head_dim + qk_rope_head_dim``;
* rotary_dim: ``rotary_dim`` (GPT-J), ``qk_rope_head_dim`` (DeepSeek),
  int(head_dim * ``partial_rotary_factor`` or ``rotary_pct``) (GPT-NeoX),
  head_dim / 2 for ChatGLM; else head_dim;
* base: ``rope_theta`` / ``rotary_emb_base`` (10000 if absent), or
  10000 * ``rope_ratio`` (ChatGLM);
* scaling: ``rope_scaling`` or transformers 5's ``rope_parameters``, flat or per
  layer type ({"full_attention": ..., "sliding_attention": ...}), ``rope_type``
  or legacy ``type`` ("su" -> longrope, "mrope" and "default" -> none);
* L (original_context): for llama3, yarn and longrope the top-level
  ``original_max_position_embeddings`` if present (it wins, as in Hugging
  Face), else the one in the scaling dict, else max_position_embeddings; for
  dynamic, max_position_embeddings (Hugging Face's dynamic NTK uses that);
  otherwise the scaling dict's value or max_position_embeddings;
* layout: "interleaved" where transformers' modeling code rotates adjacent
  pairs: gptj (rotate_every_two), chatglm, deepseek_v2/v3 (or
  ``rope_interleave``), glm/glm4 (``rotate_half`` on ``x[..., 0::2]``),
  cohere/cohere2 (``repeat_interleave``), llama4 (``view_as_complex``);
  "half" otherwise;
* required keys per rope type, as transformers' ``validate_rope`` (a
  ``KeyError`` there, a ``ValueError`` naming the key here): linear, dynamic and
  yarn need ``factor``; llama3 ``factor``, ``low_freq_factor`` and
  ``high_freq_factor``; longrope ``short_factor`` and ``long_factor``;
* layers (when the config gives ``num_hidden_layers``): ``layer_kinds``
  "rope" or "nope" per layer from ``no_rope_layers`` (1 = RoPE) or
  ``no_rope_layer_interval`` (llama4, smollm3: every interval-th layer NoPE),
  cohere2's global layers (NoPE: it rotates only on sliding-window layers);
  ``layer_attention`` "full", "sliding" or "chunked" per layer from
  ``layer_types``, else the class defaults (gemma2 alternating, gemma3 every
  ``sliding_window_pattern``-th layer global (6), cohere2 likewise (4), llama4
  chunked on its RoPE layers, mistral windowed everywhere when
  ``sliding_window`` is set); ``window`` = ``sliding_window`` or
  ``attention_chunk_size``. Sliding layers of a model with a local base
  (Gemma 3) rotate with that base, unscaled; every other RoPE layer uses the
  global spectrum;
* DeepSeek-V2/V3: ``softmax_scale`` = mscale(s, mscale_all_dim)^2 with
  mscale(s, k) = 0.1 k ln s + 1, the factor transformers' DeepSeek attention
  multiplies its softmax scale 1/sqrt(d_qk) by (``yarn_get_mscale``), outside
  the rotary embedding; Llama 4's ``attn_temperature_tuning`` on its NoPE
  layers as ``nope_temperature`` = (floor_scale, attn_scale).

Unrelated top-level fields (vocab_size, ...) are ignored; unknown keys inside
the scaling dict, wrong JSON types, inconsistent or out-of-range values raise
``ValueError`` naming the field.

Note on DeepSeek: its rope dims come after the 128 "nope" dims of each head;
here they are counted as the first rotary_dim coordinates. A fixed permutation
of coordinates changes no dot product, so spectra and scores are the same.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real

import torch

from ._checks import (
    MAX_DIM,
    N_,
    Message,
    RopeError,
    check_base,
    check_choice,
    check_dim,
    check_int,
    fail,
)
from .frequencies import DEFAULT_BASE
from .frequencies import theta as plain_theta
from .scaling import SCALINGS, resolve_params, scaled_theta

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
INTERLEAVED_MODEL_TYPES = ("gptj", "chatglm", "deepseek_v2", "deepseek_v3", "glm", "glm4",
                           "cohere", "cohere2", "llama4", "llama4_text")
# The key each rope type cannot do without (transformers' _validate_<type>_rope_parameters;
# original_max_position_embeddings and rope_theta are filled in from the config there).
REQUIRED_KEYS = {"linear": ("factor",), "dynamic": ("factor",), "yarn": ("factor",),
                 "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
                 "longrope": ("short_factor", "long_factor"), "su": ("short_factor", "long_factor")}
MAX_CONTEXT = 100_000_000  # tokens a config may name (Llama 4 Scout: 10,485,760)
MAX_LAYERS = 1000
LAYER_KINDS = ("rope", "nope")
ATTENTION_KINDS = ("full", "sliding", "chunked")
_HF_ATTENTION = {"full_attention": "full", "sliding_attention": "sliding",
                 "chunked_attention": "chunked"}
HF_TYPES = {"default": "none", "mrope": "none", "linear": "linear", "dynamic": "dynamic",
            "yarn": "yarn", "llama3": "llama3", "longrope": "longrope", "su": "longrope"}
_NEEDS_ORIGINAL = ("llama3", "yarn", "longrope")
_SCALING_META_KEYS = ("rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section",
                      "mrope_interleaved")


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True)
class RopeConfig:
    """One model's RoPE settings (hashable: params are a sorted tuple of items).

    Attributes:
        name: display name.
        head_dim: coordinates per attention head.
        rotary_dim: coordinates that are rotated (even, <= head_dim); the rest pass through.
        base: theta_0 = 1, theta_i = base^(-2i/rotary_dim).
        layout: "interleaved" or "half".
        method: a key of :data:`rope_core.scaling.SCALINGS`.
        params: the method's parameters, Hugging Face names (a mapping is accepted
            and stored as a sorted tuple of (name, value); lists become tuples).
        original_context: L, the context the spectrum was trained for.
        max_context: the longest context the model is configured for.
        local_base: base of local (sliding-window) layers, if different (Gemma 3).
        mrope_section: M-RoPE pair counts per axis (temporal, height, width), Qwen2-VL.
        layer_kinds: per layer, "rope" or "nope" (None when the config gives no layers).
        layer_attention: per layer, "full", "sliding" or "chunked" (None likewise).
        window: tokens a sliding or chunked layer sees (None: none).
        family: the config's model_type ("" when unknown).
        softmax_scale: what the attention multiplies its softmax scale 1/sqrt(d) by,
            outside the rotary embedding (DeepSeek's mscale^2; 1 otherwise).
        nope_temperature: (floor_scale, attn_scale) of Llama 4's NoPE-layer query
            scaling 1 + attn_scale ln(1 + floor((p + 1) / floor_scale)), or None.
        training_context: the context the model was pre-trained at, when known (an
            explicit original_max_position_embeddings, or a paper / model card);
            None when the config only says how long it is configured for, and for
            Llama 4 (llama4, llama4_text), whose original_max_position_embeddings is
            its scaling's L (the chunk size), not its training length.
        mrope_interleaved: Qwen3-VL's interleaved M-RoPE sections.
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
    local_base: float | None = None
    mrope_section: tuple | None = field(default=None)
    layer_kinds: tuple | None = None
    layer_attention: tuple | None = None
    window: int | None = None
    family: str = ""
    softmax_scale: float = 1.0
    nope_temperature: tuple | None = None
    training_context: int | None = None
    mrope_interleaved: bool = False
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
        check_choice(self.layout, "layout", ("interleaved", "half"))
        check_choice(self.method, "method", tuple(SCALINGS))
        items = self.params.items() if isinstance(self.params, Mapping) else self.params
        try:
            items = tuple(sorted((str(k), _freeze(v)) for k, v in items))
        except (TypeError, ValueError):
            fail("params", self.params, "a mapping or a sequence of (name, value) pairs")
        object.__setattr__(self, "params", items)
        resolve_params(self.method, self.rotary_dim, dict(items))  # names, ranges
        check_int(self.original_context, "original_context", 1, MAX_CONTEXT)
        check_int(self.max_context, "max_context", 1, MAX_CONTEXT)
        if self.local_base is not None:
            object.__setattr__(self, "local_base", check_base(self.local_base, "local_base"))
        if self.mrope_section is not None:
            sec = _freeze(self.mrope_section)
            if not isinstance(sec, tuple) or not sec or any(
                    isinstance(v, bool) or not isinstance(v, Integral) or v < 0 for v in sec) \
                    or sum(sec) != self.rotary_dim // 2:
                fail("mrope_section", self.mrope_section,
                     "non-negative integers summing to rotary_dim/2 = {half}",
                     half=self.rotary_dim // 2)
            object.__setattr__(self, "mrope_section", sec)
        self._check_layers()

    def _check_layers(self):
        n = None
        for name, allowed in (("layer_kinds", LAYER_KINDS), ("layer_attention", ATTENTION_KINDS)):
            value = getattr(self, name)
            if value is None:
                continue
            value = _freeze(value)
            if not isinstance(value, tuple) or not 1 <= len(value) <= MAX_LAYERS or \
                    any(v not in allowed for v in value):
                fail(name, getattr(self, name), "1 to {n} entries, each one of {choices}",
                     n=MAX_LAYERS, choices=", ".join(map(repr, allowed)))
            if n is not None and len(value) != n:
                fail(name, getattr(self, name), "one entry per layer ({n}, as layer_kinds)", n=n)
            n = len(value)
            object.__setattr__(self, name, value)
        if self.window is not None:
            check_int(self.window, "window", 1, MAX_CONTEXT)
        if not isinstance(self.family, str) or len(self.family) > 100:
            fail("family", self.family, "a string of at most {n} characters", n=100)
        if isinstance(self.softmax_scale, bool) or not isinstance(self.softmax_scale, Real) or \
                not math.isfinite(self.softmax_scale) or not 0 < self.softmax_scale <= 1e4:
            fail("softmax_scale", self.softmax_scale, "a number greater than 0 and at most 1e4")
        if self.nope_temperature is not None:
            t = _freeze(self.nope_temperature)
            if not isinstance(t, tuple) or len(t) != 2 or any(
                    isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v)
                    or not 0 < v <= MAX_CONTEXT for v in t):
                fail("nope_temperature", self.nope_temperature,
                     "a pair (floor_scale, attn_scale) of positive numbers")
            object.__setattr__(self, "nope_temperature", t)
        if self.training_context is not None:
            check_int(self.training_context, "training_context", 1, MAX_CONTEXT)
        if not isinstance(self.mrope_interleaved, bool):
            fail("mrope_interleaved", self.mrope_interleaved, "true or false")
        if not isinstance(self.text_config, bool):
            fail("text_config", self.text_config, "true or false")

    @property
    def layers(self) -> int | None:
        """Number of layers, when the config gives them."""
        return None if self.layer_kinds is None else len(self.layer_kinds)

    def layer_spectrum(self, layer: int) -> str | None:
        """Which spectrum layer ``layer`` rotates with: "global" (base, method), "local"
        (local_base, unscaled: a Gemma 3 sliding layer) or None (a NoPE layer)."""
        if self.layer_kinds is None:
            fail("layer", layer, "no layer: {model} gives no layers", model=self.name)
        check_int(layer, "layer", 0, len(self.layer_kinds) - 1)
        if self.layer_kinds[layer] == "nope":
            return None
        if self.local_base is not None and self.layer_attention is not None and \
                self.layer_attention[layer] == "sliding":
            return "local"
        return "global"

    @property
    def params_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params}

    def theta(self, seq_len: int | None = None, *, local: bool = False, device=None,
              dtype: torch.dtype = torch.float64):
        """``(theta, attention_factor)``: the ``(rotary_dim/2,)`` spectrum at length seq_len.

        theta = scaled_theta(rotary_dim, base, method, seq_len=seq_len, **params);
        ``local=True`` gives the local layers' plain spectrum local_base^(-2i/rotary_dim)
        and attention factor 1.
        """
        if local:
            if self.local_base is None:
                fail("local", local, "False: {model} has no separate local-layer base",
                     model=self.name)
            return plain_theta(self.rotary_dim, self.local_base, device=device, dtype=dtype), 1.0
        return scaled_theta(self.rotary_dim, self.base, self.method, seq_len=seq_len,
                            device=device, dtype=dtype, **self.params_dict)

    def longest_wavelength(self, seq_len: int | None = None) -> float:
        """2 pi / min_i theta'_i in tokens, for the spectrum at ``seq_len``."""
        theta, _ = self.theta(seq_len)
        return float(2 * math.pi / theta.min())

    # --- reading config.json ---------------------------------------------------------

    @classmethod
    def from_json(cls, text, name: str | None = None) -> RopeConfig:
        """Parse a config.json text (str or bytes, at most 1 MB), then :meth:`from_hf`."""
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
        return cls.from_hf(data, name=name)

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
        types = {model_type, _get(dict(config), "model_type", str)} - {None}
        if name is None:
            # Translators: the name of a model read from a config.json without model_type
            name = model_type or N_("custom model")

        # head and rotary dims
        head_dim = _get(cfg, "head_dim", int) or _get(cfg, "kv_channels", int)
        nope = _get(cfg, "qk_nope_head_dim", int)
        rope_dims = _get(cfg, "qk_rope_head_dim", int)
        if rope_dims is not None and nope is not None:
            head_dim = nope + rope_dims
        if head_dim is None:
            hidden = _first(cfg, ("hidden_size", "n_embd", "d_model"), int)
            heads = _first(cfg, ("num_attention_heads", "n_head", "num_heads"), int)
            if hidden is None or heads is None:
                raise RopeError("head_dim is missing: config needs head_dim, or hidden_size "
                                "and num_attention_heads.")
            heads = check_int(heads, "num_attention_heads", 1, 100_000)
            hidden = check_int(hidden, "hidden_size", 1, 100_000_000)
            if hidden % heads:
                fail("hidden_size", hidden, "a multiple of num_attention_heads = {heads}",
                     heads=heads)
            head_dim = hidden // heads
        head_dim = check_int(head_dim, "head_dim", 2, MAX_DIM)

        scaling, local = _scaling_dict(cfg)
        fraction = None
        for key in ("partial_rotary_factor", "rotary_pct"):
            for source in (scaling, cfg):
                value = _get(source, key, float)
                if value is not None:
                    if not 0 < value <= 1:
                        fail(key, value, "a number greater than 0 and at most 1")
                    fraction = value if fraction is None else fraction
        rotary_dim = _get(cfg, "rotary_dim", int)
        if rotary_dim is None and rope_dims is not None:
            rotary_dim = rope_dims
        field_name = "rotary_dim" if rotary_dim is not None else "partial_rotary_factor"
        if rotary_dim is None and fraction is not None:
            rotary_dim = int(head_dim * fraction)
        if rotary_dim is None and "chatglm" in types:
            rotary_dim = head_dim // 2
        if rotary_dim is None:
            rotary_dim = head_dim
        if rotary_dim < 2 or rotary_dim > head_dim or rotary_dim % 2:
            fail(field_name, rotary_dim, "a rotary dim that is even, at least 2 and at most "
                                         "head_dim = {head_dim}", head_dim=head_dim)

        # base
        base = _get(scaling, "rope_theta", float)
        if base is None:
            base = _first(cfg, ("rope_theta", "rotary_emb_base"), float)
        ratio = _get(cfg, "rope_ratio", float)
        if ratio is not None:
            if base is not None:
                fail("rope_ratio", ratio, "absent when rope_theta is given (they conflict)")
            if not 0 < ratio <= 1e6:
                fail("rope_ratio", ratio, "a number greater than 0 and at most 1e6")
            base = DEFAULT_BASE * ratio
        base = check_base(DEFAULT_BASE if base is None else base, "rope_theta")

        # contexts
        max_context = _first(cfg, ("max_position_embeddings", "n_positions", "seq_length",
                                   "max_sequence_length"), int)
        if max_context is None:
            raise RopeError("max_position_embeddings is missing: config needs "
                            "max_position_embeddings (or n_positions / seq_length).")
        max_context = check_int(max_context, "max_position_embeddings", 1, MAX_CONTEXT)

        # method and its parameters
        rope_type = _get(scaling, "rope_type", str)
        legacy = _get(scaling, "type", str)
        if rope_type is not None and legacy is not None and rope_type != legacy \
                and HF_TYPES.get(rope_type) != HF_TYPES.get(legacy) and legacy != "mrope":
            fail("rope_scaling.type", legacy, "the same as rope_type = {rope_type}",
                 rope_type=repr(rope_type))
        hf_type = rope_type if rope_type not in (None, "default") or legacy is None else legacy
        hf_type = hf_type or "default"
        if hf_type not in HF_TYPES:
            fail("rope_scaling.rope_type", hf_type, "one of {choices}",
                 choices=", ".join(map(repr, HF_TYPES)))
        method = HF_TYPES[hf_type]
        for key in REQUIRED_KEYS.get(hf_type, ()):
            if scaling.get(key) is None:
                raise RopeError("rope_scaling.{key} is missing: rope_type {rope_type} needs "
                                "{keys} (transformers refuses it without).", key=key,
                                rope_type=repr(hf_type), keys=", ".join(REQUIRED_KEYS[hf_type]))
        accepted = SCALINGS[method].param_names
        params = {}
        for key, value in scaling.items():
            if key in _SCALING_META_KEYS:
                continue
            if key not in accepted and key != "original_max_position_embeddings":
                if not accepted:
                    fail(f"rope_scaling.{key}", value,
                         "absent for rope_type {rope_type} (it accepts no parameters)",
                         rope_type=repr(hf_type))
                fail(f"rope_scaling.{key}", value,
                     "absent for rope_type {rope_type} (it accepts {names})",
                     rope_type=repr(hf_type), names=", ".join(accepted))
            params[key] = value
        top_original = _get(cfg, "original_max_position_embeddings", int)
        in_dict = params.pop("original_max_position_embeddings", None)
        if method == "dynamic":
            original = max_context
        elif method in _NEEDS_ORIGINAL:
            original = top_original or in_dict or max_context
        else:
            original = in_dict or max_context
        original = check_int(original, "original_max_position_embeddings", 1, MAX_CONTEXT)
        known = top_original or in_dict if method in _NEEDS_ORIGINAL else None
        if types & {"llama4", "llama4_text"}:
            # Llama 4's original_max_position_embeddings (8,192) is the chunk size its llama3
            # scaling starts from, not its training length (256K, Meta): not known from config
            known = None
        if "original_max_position_embeddings" in accepted:
            params["original_max_position_embeddings"] = original
        if method in ("yarn", "longrope") and "max_position_embeddings" not in params:
            params["max_position_embeddings"] = max(max_context, original)
        try:
            resolve_params(method, rotary_dim, params)
        except ValueError as e:
            raise RopeError("rope_scaling: {error}", error=_message(e)) from None

        # layout, local layers, M-RoPE
        layout = "interleaved" if types & set(INTERLEAVED_MODEL_TYPES) else "half"
        interleave = _get(cfg, "rope_interleave", bool)
        if interleave is not None:
            layout = "interleaved" if interleave else "half"
        local_base = _get(cfg, "rope_local_base_freq", float)
        if local_base is None and local is not None:
            local_base = _get(local, "rope_theta", float)
        if local_base is not None:
            local_base = check_base(local_base, "rope_local_base_freq")
        section = scaling.get("mrope_section", cfg.get("mrope_section"))
        if section is not None and (not isinstance(section, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in section)):
            fail("mrope_section", section, "a list of integers")
        interleaved_sections = _get(scaling, "mrope_interleaved", bool) or False
        family = model_type or _get(dict(config), "model_type", str) or ""
        kinds, attention, window = _layers(cfg, types)
        temperature = None
        if types & {"llama4", "llama4_text"} and kinds is not None and "nope" in kinds:
            tuning = cfg.get("attn_temperature_tuning", True)  # class default True
            if tuning:
                temperature = (_get(cfg, "floor_scale", float) or 8192,
                               _get(cfg, "attn_scale", float) or 0.1)
        softmax = 1.0
        if types & {"deepseek_v2", "deepseek_v3"} and method != "none":
            k = _get(scaling, "mscale_all_dim", float)
            s = _get(scaling, "factor", float)
            if k and s is not None and s > 1:  # yarn_get_mscale, squared
                softmax = (0.1 * k * math.log(s) + 1.0) ** 2
        try:
            return cls(name=str(name)[:200] or N_("custom model"), head_dim=head_dim,
                       rotary_dim=rotary_dim, base=base, layout=layout, method=method,
                       params=params, original_context=original, max_context=max_context,
                       local_base=local_base, mrope_section=section, layer_kinds=kinds,
                       layer_attention=attention, window=window, family=family[:100],
                       softmax_scale=softmax, nope_temperature=temperature,
                       training_context=known, mrope_interleaved=interleaved_sections,
                       text_config=text_cfg is not None)
        except ValueError as e:
            raise RopeError("config: {error}", error=_message(e)) from None


def _layers(cfg: Mapping, types: set):
    """(layer_kinds, layer_attention, window) as transformers' config classes derive them,
    or (None, None, None) when the config gives no number of layers."""
    n = _first(cfg, ("num_hidden_layers", "n_layer", "num_layers"), int)
    if n is None:
        return None, None, None
    n = check_int(n, "num_hidden_layers", 1, MAX_LAYERS)
    hybrid = types & {"llama4", "llama4_text", "smollm3"}
    flags = cfg.get("no_rope_layers")
    if flags is not None and flags != []:
        if not isinstance(flags, list) or len(flags) != n or any(
                v not in (0, 1) or isinstance(v, float) for v in flags):
            fail("no_rope_layers", flags, "a list of {n} entries, each 0 or 1 (1: the layer "
                                          "uses RoPE)", n=n)
        kinds = ["rope" if v else "nope" for v in flags]
    elif hybrid:
        interval = _get(cfg, "no_rope_layer_interval", int) or 4  # class default 4
        interval = check_int(interval, "no_rope_layer_interval", 1, MAX_LAYERS)
        kinds = ["rope" if (i + 1) % interval else "nope" for i in range(n)]
    else:
        kinds = ["rope"] * n

    sliding = _get(cfg, "sliding_window", int)
    chunk = _get(cfg, "attention_chunk_size", int)
    given = cfg.get("layer_types")
    if given is not None:
        if not isinstance(given, list) or len(given) != n or any(
                not isinstance(v, str) or v not in _HF_ATTENTION for v in given):
            fail("layer_types", given, "a list of {n} entries, each one of {choices}", n=n,
                 choices=", ".join(map(repr, _HF_ATTENTION)))
        attention = [_HF_ATTENTION[v] for v in given]
    elif types & {"llama4", "llama4_text"}:
        attention = ["chunked" if k == "rope" else "full" for k in kinds]
    elif types & {"gemma3", "gemma3_text", "cohere2"}:
        pattern = _get(cfg, "sliding_window_pattern", int) or \
            (4 if "cohere2" in types else 6)  # class defaults
        pattern = check_int(pattern, "sliding_window_pattern", 1, MAX_LAYERS)
        attention = ["sliding" if (i + 1) % pattern else "full" for i in range(n)]
    elif "gemma2" in types:
        attention = ["sliding" if (i + 1) % 2 else "full" for i in range(n)]
    elif types & {"mistral"} and sliding is not None:
        attention = ["sliding"] * n
    else:
        attention = ["full"] * n
    if "cohere2" in types:  # Cohere2Attention rotates only when sliding_window is set
        kinds = ["rope" if a == "sliding" else "nope" for a in attention]
    if "smollm3" in types and given is None and cfg.get("use_sliding_window") and sliding:
        attention = ["sliding" if k == "nope" else "full" for k in kinds]
    if "sliding" in attention and sliding is None:
        sliding = 4096  # gemma2, gemma3, cohere2 class default
    window = sliding if "sliding" in attention else chunk if "chunked" in attention else None
    if window is not None:
        window = check_int(window, "sliding_window", 1, MAX_CONTEXT)
    return tuple(kinds), tuple(attention), window


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


def _scaling_dict(cfg: Mapping):
    """(the scaling dict of full-attention layers, the sliding layers' dict or None)."""
    raw = cfg.get("rope_parameters")
    name = "rope_parameters"
    if raw is None:
        raw, name = cfg.get("rope_scaling"), "rope_scaling"
    if raw is None:
        return {}, None
    if not isinstance(raw, Mapping):
        fail(name, raw, "a JSON object or null")
    if "full_attention" in raw or "sliding_attention" in raw:
        for key in raw:
            if key not in ("full_attention", "sliding_attention"):
                fail(f"{name}.{key}", raw[key], "absent: per-layer-type entries are "
                                                "full_attention and sliding_attention")
        full, local = raw.get("full_attention"), raw.get("sliding_attention")
        for key, entry in (("full_attention", full), ("sliding_attention", local)):
            if entry is not None and not isinstance(entry, Mapping):
                fail(f"{name}.{key}", entry, "a JSON object or null")
        if local is not None:
            local_type = local.get("rope_type", local.get("type", "default"))
            if local_type != "default":
                fail(f"{name}.sliding_attention.rope_type", local_type,
                     "'default' (scaled local layers are not supported)")
        if full is None:
            full = local or {}
            local = None
        return dict(full), local
    return dict(raw), None
