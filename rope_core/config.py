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
* layout: "interleaved" for model types gptj, chatglm, deepseek_v2/v3 (or
  ``rope_interleave``), "half" otherwise, as in Hugging Face.

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
from .scaling import MAX_LENGTH, SCALINGS, resolve_params, scaled_theta

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
INTERLEAVED_MODEL_TYPES = ("gptj", "chatglm", "deepseek_v2", "deepseek_v3")
HF_TYPES = {"default": "none", "mrope": "none", "linear": "linear", "dynamic": "dynamic",
            "yarn": "yarn", "llama3": "llama3", "longrope": "longrope", "su": "longrope"}
_NEEDS_ORIGINAL = ("llama3", "yarn", "longrope")
_SCALING_META_KEYS = ("rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section")


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
        check_int(self.original_context, "original_context", 1, MAX_LENGTH)
        check_int(self.max_context, "max_context", 1, MAX_LENGTH)
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
        max_context = check_int(max_context, "max_position_embeddings", 1, MAX_LENGTH)

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
        original = check_int(original, "original_max_position_embeddings", 1, MAX_LENGTH)
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
        try:
            return cls(name=str(name)[:200] or N_("custom model"), head_dim=head_dim,
                       rotary_dim=rotary_dim, base=base, layout=layout, method=method,
                       params=params, original_context=original, max_context=max_context,
                       local_base=local_base, mrope_section=section)
        except ValueError as e:
            raise RopeError("config: {error}", error=_message(e)) from None


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
