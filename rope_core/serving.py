"""Serving a model longer: from a model, a target context and a method to the settings
four inference engines need.

:func:`engine_settings` answers "what do I write so that this model runs at T tokens?"
for Hugging Face transformers, vLLM, SGLang and llama.cpp, one entry per engine. Every
entry describes the SAME spectrum, the one :func:`extended_config` gives and rope_core
shows: ``extended_config(...).theta(n)``.

The extension. L is the context the new scaling starts from (``original_max_position_
embeddings``; by default the model's ``original_context``, where it was trained or where
its own scaling starts) and T the target; s = T / L. With theta_i = base^(-2i/d),
d the rotary dim (the formulas are :mod:`rope_core.scaling`'s):

* ``linear``: theta'_i = theta_i / s;
* ``ntk`` (static NTK-aware): base' = base s^(d/(d-2)), theta'_i = base'^(-2i/d); engines
  have no "ntk" type, so every entry writes base' as the base (``rope_theta``,
  ``--rope-freq-base``);
* ``dynamic`` (dynamic NTK, transformers' ``factor`` f, not s): base'(n) = base
  (f n / L - (f - 1))^(d/(d-2)) for the current length n > L, the plain spectrum for n <= L;
* ``yarn``: theta'_i = theta_i (1 - ramp_i) + (theta_i / s) ramp_i, attention factor
  0.1 ln s + 1 unless the parameters say otherwise;
* ``llama3``: wavelengths longer than L / low_freq_factor divided by s, shorter than
  L / high_freq_factor kept, blended between;
* ``longrope``: theta'_i = theta_i / f_i with the model's searched per-pair factors (short
  up to L, long beyond), attention factor sqrt(1 + ln s / ln L).

One scaling per spectrum. A model whose own config already scales its RoPE (Llama 3.1's
llama3, Gemma 3's linear, DeepSeek-V3's YaRN, Phi-3.5's LongRoPE) keeps its own parameters
when the method is its own (only ``factor`` becomes T / L); another method REPLACES it and
starts again from the plain spectrum at L: none of the four engines holds two scalings of
one spectrum in its config (llama.cpp, whose GGUF carries Llama 3.1's and Phi-3's factors
as tensors, would stack them: refused there).

Where each engine's names come from (:data:`SOURCES`):

* transformers 5.24 (``src/transformers/modeling_rope_utils.py``): ``rope_parameters``
  with ``rope_type`` and ``rope_theta`` inside, as ``PreTrainedConfig.to_dict`` writes it;
  ``_compute_dynamic_ntk_parameters`` takes L from ``max_position_embeddings``;
  ``convert_rope_params_to_dict`` lets a leftover ``rope_scaling`` win over
  ``rope_parameters`` (``self.rope_parameters = rope_scaling or self.rope_parameters``), so
  the dict sets ``"rope_scaling": null``; ``standardize_rope_params`` lets a top-level
  ``original_max_position_embeddings`` win over the one inside (Phi-3), so the dict writes
  both; ``_validate_yarn_rope_parameters`` warns when factor differs from
  max_position_embeddings / original_max_position_embeddings.
* vLLM: docs.vllm.ai, Features, Context Extension ("The --rope-scaling parameter used in
  older versions of vLLM is no longer supported. Please use the --hf-overrides method with
  rope_parameters instead": ``--hf-overrides '{"rope_parameters": {...}}' --max-model-len``)
  and ``examples/features/context_extension/context_extension_offline.py``;
  ``vllm/model_executor/layers/rotary_embedding/__init__.py`` (``get_rope``: which keys
  reach which class).
* SGLang: ``--json-model-override-args`` (``config.update(...)`` in
  ``python/sglang/srt/utils/hf_transformers_utils.py`` ``get_config``) and
  ``--context-length`` (checked against ``get_context_length`` there);
  ``python/sglang/srt/layers/rotary_embedding.py`` (``get_rope``); the key ``rope_scaling``
  as the Qwen3 model card writes it, with ``rope_theta`` inside (transformers 5 turns
  ``rope_scaling`` into ``rope_parameters`` and fills a missing ``rope_theta`` with None).
* llama.cpp: ``common/arg.cpp`` (``-c``, ``--rope-scaling {none,linear,yarn}``,
  ``--rope-scale N`` = 1 / ``--rope-freq-scale``, ``--rope-freq-base``, ``--yarn-orig-ctx``,
  ``--yarn-beta-fast``, ``--yarn-beta-slow``), ``ggml/src/ggml-cpu/ops.cpp`` (``rope_yarn``:
  the ramp between floor and ceil of the correction dims, attention factor
  1 + 0.1 ln(1 / freq_scale)), ``src/llama-context.cpp`` and ``convert_hf_to_gguf.py``
  (llama3 "Handled in generate_extra_tensors": a ``rope_freqs`` tensor; LongRoPE's factors
  as tensors).
"""

from __future__ import annotations

import dataclasses
import json
import math
from numbers import Integral, Real

import pandas as pd

from ._checks import Message, check_choice, check_int, fail
from .config import RopeConfig
from .scaling import MAX_FACTOR, MAX_LENGTH, SCALINGS, resolve_params, scaled_theta

ENGINES = ("transformers", "vLLM", "SGLang", "llama.cpp")
METHODS = ("yarn", "linear", "ntk", "dynamic", "llama3", "longrope")
# the same spectrum at every length, short inputs included (dynamic NTK adapts to the
# length, LongRoPE switches from its short to its long factors past L)
STATIC = ("linear", "ntk", "yarn", "llama3")

SOURCES = {
    "transformers": "transformers 5.24, src/transformers/modeling_rope_utils.py "
                    "(RotaryEmbeddingConfigMixin, ROPE_INIT_FUNCTIONS)",
    "vLLM": "docs.vllm.ai/en/stable/features/context_extension/; "
            "vllm/model_executor/layers/rotary_embedding/__init__.py (get_rope)",
    "SGLang": "python/sglang/srt/utils/hf_transformers_utils.py (get_config, "
              "get_context_length); python/sglang/srt/layers/rotary_embedding.py (get_rope)",
    "llama.cpp": "common/arg.cpp (--rope-scaling, --rope-scale, --rope-freq-base, "
                 "--yarn-*); ggml/src/ggml-cpu/ops.cpp (rope_yarn); convert_hf_to_gguf.py",
}
COMMANDS = {"vLLM": "vllm serve MODEL", "SGLang": "python -m sglang.launch_server "
            "--model-path MODEL", "llama.cpp": "llama-server -m MODEL.gguf"}

# rope_core parameters that are not keys of transformers' rope_parameters
_NOT_HF = ("max_position_embeddings",)
# HF defaults of yarn: written only when they differ or the model's config names them
_YARN_DEFAULTS = {"beta_fast": 32.0, "beta_slow": 1.0, "truncate": True}
# families whose rope dims come from their own fields, not partial_rotary_factor
_OWN_ROTARY_FIELD = ("gptj", "deepseek_v2", "deepseek_v3", "chatglm")
# families whose serving code reads mscale / mscale_all_dim (vLLM's and SGLang's
# deepseek_v2.py switch rope_type to "deepseek_yarn"; llama.cpp reads yarn_log_mul)
_DEEPSEEK = ("deepseek_v2", "deepseek_v3")
# config classes of transformers 5.24 that accept only some rope types (their validate_rope,
# models/<family>/configuration_<family>.py); Phi3Config also turns "yarn" into "longrope"
_HF_TYPES_ONLY = {"phi3": ("default", "longrope"), "phi4_multimodal": ("default", "longrope"),
                  "hunyuan_v1_moe": ("default", "linear", "dynamic")}
_RELATIVE = 1e-9  # a factor "equals" T / L within this relative tolerance


@dataclasses.dataclass(frozen=True)
class _Plan:
    """A checked request: the model, the target T, the method, L, s = T / L, and the
    rope_core parameters of the extended spectrum (``params``) with those the caller or
    the model's config named (``named``, written out for the engines)."""

    config: RopeConfig
    target: int
    method: str
    original: int
    scale: float
    params: dict
    resolved: dict  # params with the method's defaults filled in (resolve_params)
    named: frozenset
    base: float  # the base the engines write (base' for static NTK)


def reach(config: RopeConfig) -> int:
    """The context ``config`` already reaches: ``max_context`` when its own scaling takes
    it there, else ``original_context`` (where it was trained)."""
    _check_config(config)
    return config.max_context if config.method != "none" else config.original_context


def _check_config(config) -> None:
    if not isinstance(config, RopeConfig):
        fail("config", type(config).__name__, "a RopeConfig")


def _plan(config, target_context, method, params: dict) -> _Plan:
    _check_config(config)
    method = check_choice(method, "method", METHODS)
    already = reach(config)
    if already >= MAX_LENGTH:
        fail("target_context", target_context, "more than the {context} tokens {model} "
             "already reaches, which leaves nothing up to {high}",
             context=already, model=config.name, high=MAX_LENGTH)
    if isinstance(target_context, bool) or not isinstance(target_context, Integral) or \
            not already < target_context <= MAX_LENGTH:
        fail("target_context", target_context, "an integer greater than the {context} "
             "tokens {model} already reaches and at most {high}",
             context=already, model=config.name, high=MAX_LENGTH)
    target = int(target_context)
    params = dict(params)
    original = params.pop("original_max_position_embeddings", None)
    if original is None:
        original = config.original_context
    original = check_int(original, "original_max_position_embeddings", 1,
                         config.original_context)
    scale = target / original
    if scale > MAX_FACTOR:
        fail("target_context", target, "at most {most} × L = {most} × {original} tokens",
             most=f"{MAX_FACTOR:g}", original=original)
    given_max = params.pop("max_position_embeddings", None)
    if given_max is not None and given_max != target:
        fail("max_position_embeddings", given_max, "target_context = {target} (it is the "
             "target)", target=target)

    own = config.params_dict if method == config.method else {}
    own = {k: v for k, v in own.items()
           if k not in ("factor", "original_max_position_embeddings", "max_position_embeddings")}
    if method != "dynamic" and "factor" in params and params["factor"] is not None:
        factor = params.pop("factor")
        if isinstance(factor, bool) or not isinstance(factor, Real) or \
                not math.isfinite(factor) or abs(factor - scale) > _RELATIVE * scale:
            fail("factor", factor, "target_context / original_max_position_embeddings = "
                 "{target} / {original} = {scale}: a factor that contradicts the target "
                 "would leave the model at another length",
                 target=target, original=original, scale=f"{scale:.12g}")
    merged = {**own, **{k: v for k, v in params.items() if v is not None}}
    named = frozenset(merged)
    if method in ("linear", "ntk", "llama3"):
        merged["factor"] = scale
    elif method == "dynamic":
        merged.setdefault("factor", 1.0)
    elif method == "yarn":
        merged.update(factor=scale, max_position_embeddings=target)
    elif method == "longrope":
        merged["max_position_embeddings"] = target
        if "factor" in named or "factor" in config.params_dict and method == config.method:
            merged["factor"] = scale
    if method != "linear" and method != "ntk":
        merged["original_max_position_embeddings"] = original
    resolved = resolve_params(method, config.rotary_dim, merged)  # names, ranges, cross rules
    base = config.base
    if method == "ntk" and config.rotary_dim > 2:
        base = config.base * scale ** (config.rotary_dim / (config.rotary_dim - 2))
    return _Plan(config, target, method, original, scale, merged, resolved, named, base)


def extended_config(config: RopeConfig, target_context: int, method: str,
                    **params) -> RopeConfig:
    """The model after the change: ``config`` with ``method`` and its parameters, L =
    ``original_context`` and T = ``max_context``; its ``theta(n)`` is the ``(rotary_dim/2,)``
    spectrum every entry of :func:`engine_settings` gives the engines (the other fields,
    local-layer base included, stay as they are). Same arguments as
    :func:`engine_settings`."""
    plan = _plan(config, target_context, method, params)
    return dataclasses.replace(config, method=plan.method, params=plan.params,
                               original_context=plan.original, max_context=plan.target)


def _number(value: float):
    """A JSON number as a config writes it: an int stays an int, a float a float."""
    return int(value) if isinstance(value, Integral) and not isinstance(value, bool) \
        else float(value)


def _rope_parameters(plan: _Plan) -> dict:
    """The flat rope_parameters dict of the extended spectrum, transformers 5's names."""
    m, p = plan.method, plan.resolved
    if m == "ntk":
        out = {"rope_type": "default", "rope_theta": plan.base}
    else:
        out = {"rope_type": m, "rope_theta": plan.config.base}
        for name in SCALINGS[m].param_names:
            if name in _NOT_HF or p.get(name) is None:
                continue
            value = p[name]
            if m == "yarn" and name in _YARN_DEFAULTS and name not in plan.named and \
                    value == _YARN_DEFAULTS[name]:
                continue  # transformers' default, not named by the model or the caller
            if isinstance(value, tuple):
                out[name] = [_number(v) for v in value]
            elif isinstance(value, bool):
                out[name] = value
            else:
                out[name] = _number(value)
    cfg = plan.config
    if cfg.rotary_dim < cfg.head_dim and cfg.family not in _OWN_ROTARY_FIELD:
        out["partial_rotary_factor"] = cfg.rotary_dim / cfg.head_dim
    section = getattr(cfg, "mrope_section", None)  # Qwen2-VL: kept with the new scaling
    if section is not None:
        out["mrope_section"] = list(section)
        if getattr(cfg, "mrope_interleaved", False):
            out["mrope_interleaved"] = True
    return out


def _refusal(engine: str, reason: Message) -> dict:
    """An entry that refuses; ``reason`` names the engine and the method."""
    return {"engine": engine, "supported": False, "settings": {}, "command": "",
            "refusal": reason, "notes": (), "source": SOURCES[engine]}


def _entry(engine: str, settings: dict, command: str, notes=()) -> dict:
    return {"engine": engine, "supported": True, "settings": settings, "command": command,
            "refusal": None, "notes": tuple(notes), "source": SOURCES[engine]}


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=True)


def _pretty(value, indent: int = 0) -> str:
    """JSON with one key per line and each list on one line (LongRoPE's 48 factors)."""
    if not isinstance(value, dict) or not value:
        return _json(value)
    pad = " " * (indent + 2)
    items = [f"{pad}{_json(k)}: {_pretty(v, indent + 2)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def _flag_number(value: float) -> str:
    """A number on a command line: 4, 2.5, 1e+06 -> 1000000."""
    text = format(float(value), ".12g")
    if "e" in text:
        text = format(float(value), ".12f").rstrip("0").rstrip(".")
    return text


def _default_attention(plan: _Plan) -> bool:
    """True when YaRN's attention factor is 0.1 ln s + 1, what the serving engines compute
    from the factor alone."""
    _theta, a = scaled_theta(plan.config.rotary_dim, plan.config.base, "yarn", **plan.params)
    s = plan.scale
    default = 1.0 if s <= 1 else 0.1 * math.log(s) + 1.0
    return abs(a - default) <= 1e-12 * default


def _transformers(plan: _Plan) -> dict:
    cfg, m = plan.config, plan.method
    if cfg.family == "gptj":
        return _refusal("transformers", Message(
            "{engine} cannot run {method} for GPT-J: transformers' GPT-J code builds its rotation "
            "from base 10000 and `rotary_dim` alone (`modeling_gptj.create_sinusoidal_positions`) "
            "and reads no `rope_parameters`.",
            engine="transformers", method=m))
    if cfg.family == "chatglm":
        return _refusal("transformers", Message(
            "{engine} cannot run {method} for ChatGLM: ChatGLM runs as remote code "
            "(`modeling_chatglm.py`), whose base is 10000 · `rope_ratio`, and reads no rope "
            "scaling keys.",
            engine="transformers", method=m))
    dims = _rope_parameters(plan)
    allowed = _HF_TYPES_ONLY.get(cfg.family)
    if allowed is not None and dims["rope_type"] not in allowed:
        return _refusal("transformers", Message(
            "{engine} cannot run {method} for {family}: its config class accepts only the rope "
            "types {types} (`validate_rope` in its `configuration_*.py`).",
            engine="transformers", method=m, family=cfg.family, types=", ".join(allowed)))
    if "partial_rotary_factor" in dims and \
            int(cfg.head_dim * dims["partial_rotary_factor"]) != cfg.rotary_dim:
        return _refusal("transformers", Message(
            "{engine} cannot run {method} for this model: its rotary dim {rotary} is not "
            "`int(head_dim · partial_rotary_factor)` for head dim {head} in floating point.",
            engine="transformers", method=m, rotary=cfg.rotary_dim, head=cfg.head_dim))
    local = getattr(cfg, "local_base", None)  # Gemma 3: one dict per layer type
    parameters = dims if local is None else {
        "full_attention": dims,
        "sliding_attention": {"rope_type": "default", "rope_theta": local}}
    settings = {"rope_parameters": parameters,
                "max_position_embeddings": plan.original if m == "dynamic" else plan.target,
                "rope_scaling": None}
    if m in ("yarn", "llama3", "longrope"):
        settings["original_max_position_embeddings"] = plan.original
    notes = []
    if m == "dynamic":
        notes.append(Message("transformers' dynamic NTK takes L from "
                             "`max_position_embeddings`, so it stays {original}; the spectrum "
                             "then follows each input's length.", original=plan.original))
    return _entry("transformers", settings, _pretty(settings), notes)


def _served_json(plan: _Plan, key: str) -> dict:
    dims = _rope_parameters(plan)
    overrides = {key: dims, "max_position_embeddings": plan.target}
    if plan.method in ("yarn", "llama3", "longrope"):
        overrides["original_max_position_embeddings"] = plan.original
    return overrides


def _served_refusal(plan: _Plan, engine: str) -> dict | None:
    """The reason vLLM or SGLang cannot run the plan, or None."""
    cfg, m = plan.config, plan.method
    if cfg.family == "chatglm":
        return _refusal(engine, Message(
            "{engine} cannot run {method} for ChatGLM: its `chatglm.py` builds the rotation from "
            "base 10000 · `rope_ratio` and reads no rope scaling keys.",
            engine=engine, method=m))
    if getattr(cfg, "local_base", None) is not None:
        return _refusal(engine, Message(
            "{engine} is not given a line for {method} here: this model's global and sliding "
            "layers have separate RoPE settings, which {engine} reads per model family. Save the "
            "transformers entry into a copy of `config.json` and serve that copy.",
            engine=engine, method=m))
    # M-RoPE (Qwen2-VL): get_rope builds the multimodal rotation only for the rope types
    # default (vLLM and SGLang) and yarn (vLLM); any other type would drop the sections
    mrope_types = ("ntk", "yarn") if engine == "vLLM" else ("ntk",)
    if getattr(cfg, "mrope_section", None) is not None and m not in mrope_types:
        return _refusal(engine, Message(
            "{engine} cannot run {method} for this M-RoPE model: its `get_rope` builds the "
            "rotation of time, height and width sections only for the rope types {types}, "
            "and with {method} would rotate every pair by the text position alone.",
            engine=engine, method=m,
            types=", ".join("default" if t == "ntk" else t for t in mrope_types)))
    if m == "dynamic":
        return _refusal(engine, Message(
            "{engine} has no dynamic NTK: its rope type `dynamic` "
            "(`DynamicNTKScalingRotaryEmbedding`) computes one base for `factor` × "
            "`max_position_embeddings` tokens when the server starts and uses it at every length, "
            "which is static NTK. Static `ntk` gives at the target what dynamic NTK with f = 1 "
            "gives there.",
            engine=engine, method=m))
    if m == "yarn" and cfg.family not in _DEEPSEEK and not _default_attention(plan):
        return _refusal(engine, Message(
            "{engine} cannot run {method} with this attention factor: its YaRN multiplies cos and "
            "sin by 0.1 ln s + 1 computed from `factor` alone (`YaRNScalingRotaryEmbedding`) and "
            "is not passed `attention_factor`, `mscale` or `mscale_all_dim`.",
            engine=engine, method=m))
    if m == "yarn" and engine == "SGLang" and plan.params.get("truncate") is False:
        return _refusal(engine, Message(
            "{engine} cannot run {method} with `truncate` = `false`: its YaRN always rounds the "
            "ramp's bounds down and up (`_yarn_find_correction_range`).",
            engine=engine, method=m))
    return None


def _vllm(plan: _Plan) -> dict:
    refused = _served_refusal(plan, "vLLM")
    if refused is not None:
        return refused
    overrides = _served_json(plan, "rope_parameters")
    settings = {"--hf-overrides": overrides, "--max-model-len": plan.target}
    command = (f"{COMMANDS['vLLM']} --hf-overrides '{_json(overrides)}' "
               f"--max-model-len {plan.target}")
    return _entry("vLLM", settings, command)


def _sglang(plan: _Plan) -> dict:
    refused = _served_refusal(plan, "SGLang")
    if refused is not None:
        return refused
    overrides = _served_json(plan, "rope_scaling")
    # transformers 4 (SGLang's models then read the top-level rope_theta) and 5 alike
    overrides["rope_theta"] = plan.base
    settings = {"--json-model-override-args": overrides, "--context-length": plan.target}
    command = (f"{COMMANDS['SGLang']} --json-model-override-args '{_json(overrides)}' "
               f"--context-length {plan.target}")
    return _entry("SGLang", settings, command)


def _llama_cpp(plan: _Plan) -> dict:
    cfg, m = plan.config, plan.method
    engine = "llama.cpp"
    if m == "dynamic":
        return _refusal(engine, Message(
            "{engine} has no dynamic NTK: `--rope-scaling` takes `none`, `linear` or `yarn`, and "
            "`--rope-freq-base` sets one base for every length (static NTK).",
            engine=engine, method=m))
    if m == "llama3":
        return _refusal(engine, Message(
            "{engine} has no {method} scaling on its command line (`--rope-scaling` takes `none`, "
            "`linear` or `yarn`): `convert_hf_to_gguf.py` writes Llama 3.1's band factors into "
            "the GGUF as a `rope_freqs` tensor for the `factor` in `config.json`. Merge the "
            "transformers entry into `config.json` and convert again.",
            engine=engine, method=m))
    if m == "longrope":
        return _refusal(engine, Message(
            "{engine} has no {method} scaling on its command line (`--rope-scaling` takes `none`, "
            "`linear` or `yarn`): `convert_hf_to_gguf.py` writes the per-pair factors and the "
            "attention factor into the GGUF. Merge the transformers entry into `config.json` and "
            "convert again.",
            engine=engine, method=m))
    if cfg.method in ("llama3", "longrope") and m != cfg.method:
        return _refusal(engine, Message(
            "{engine} would stack {method} on this model's own {own} factors: its GGUF carries "
            "them as tensors, which llama.cpp applies before any `--rope-scaling`.",
            engine=engine, method=m, own=cfg.method))
    args = [("-c", str(plan.target))]
    if m == "linear":
        args += [("--rope-scaling", "linear"), ("--rope-scale", _flag_number(plan.scale))]
    elif m == "ntk":
        args += [("--rope-scaling", "none"), ("--rope-freq-base", _flag_number(plan.base))]
    else:  # yarn
        if plan.params.get("truncate") is False:
            return _refusal(engine, Message(
                "{engine} cannot run {method} with `truncate` = `false`: "
                "`ggml_rope_yarn_corr_dims` always rounds the ramp's bounds down and up.",
                engine=engine, method=m))
        if cfg.family not in _DEEPSEEK and not _default_attention(plan):
            return _refusal(engine, Message(
                "{engine} cannot run {method} with this attention factor: its YaRN multiplies cos "
                "and sin by 0.1 ln s + 1 computed from the scale (`src/llama-context.cpp`, "
                "`rope_yarn`), and how it treats `--yarn-attn-factor` has changed between "
                "versions.",
                engine=engine, method=m))
        args += [("--rope-scaling", "yarn"), ("--rope-scale", _flag_number(plan.scale)),
                 ("--yarn-orig-ctx", str(plan.original))]
        for name, flag in (("beta_fast", "--yarn-beta-fast"), ("beta_slow", "--yarn-beta-slow")):
            value = plan.params.get(name)
            if value is not None and value != _YARN_DEFAULTS[name]:
                args.append((flag, _flag_number(value)))
    command = " ".join([COMMANDS[engine]] + [f"{flag} {value}" for flag, value in args])
    return _entry(engine, dict(args), command)


def engine_settings(config: RopeConfig, target_context: int, method: str, **params) -> dict:
    """The settings that run ``config`` at ``target_context`` tokens with ``method``, per
    engine.

    Args:
        config: the model as it is (a preset or ``RopeConfig.from_hf`` of a config.json).
        target_context: T, more than the context the model already reaches
            (:func:`reach`) and at most 10^7 tokens.
        method: one of :data:`METHODS` (a key of :data:`rope_core.scaling.SCALINGS`).
        **params: the method's parameters by their Hugging Face names, checked by
            :func:`rope_core.scaling.resolve_params`. ``original_max_position_embeddings``
            is L (1 ... the model's ``original_context``; default that context);
            ``factor``, where the method scales by T / L, may be given only as
            s = T / L (a factor that contradicts the target is refused); for dynamic NTK
            it is transformers' own f (default 1: alpha = n / L). The model's own
            parameters are kept when ``method`` is its own.

    Returns:
        ``{"transformers": entry, "vLLM": entry, "SGLang": entry, "llama.cpp": entry}``,
        each entry a dict with ``engine``, ``supported`` (bool), ``settings`` (transformers:
        the dict to merge into config.json, ``rope_parameters`` as transformers 5 writes it,
        ``max_position_embeddings`` (T; L for dynamic NTK), ``"rope_scaling": None`` and,
        for yarn, llama3 and longrope, ``original_max_position_embeddings`` = L; the
        others: {flag: value}), ``command`` (the JSON text or command line to copy; ""
        when refused), ``refusal`` (None, or a :class:`Message` naming the engine and the
        method and saying why), ``notes`` (Messages) and ``source`` (where the names come
        from).

    Raises:
        RopeError: for an unknown method, a target at or below the model's context, an
        L out of range, a factor that contradicts T / L, or a parameter out of its range.
    """
    plan = _plan(config, target_context, method, params)
    return {"transformers": _transformers(plan), "vLLM": _vllm(plan),
            "SGLang": _sglang(plan), "llama.cpp": _llama_cpp(plan)}


# --- what the page says beside the settings -------------------------------------------

NOTE_KINDS = ("static", "transformers_warning", "built_in", "layers", "mrope", "dynamic",
              "longrope")


def serving_notes(config: RopeConfig, target_context: int, method: str,
                  **params) -> tuple[tuple[str, Message], ...]:
    """The warnings that apply to a choice, as ``(kind, Message)`` pairs (kinds in
    :data:`NOTE_KINDS`). Same arguments as :func:`engine_settings`.

    * static: linear, ntk, yarn and llama3 change theta for every input, the shortest too;
    * transformers_warning: transformers 5.24 warns when a YaRN config's factor differs
      from max_position_embeddings / original_max_position_embeddings (and that ratio is
      not 1), then uses the factor; said for yarn, and when the model's own config does so;
    * built_in: the model already scales its RoPE; the new setting replaces that scaling
      (its own method: same parameters, factor T / L);
    * layers: the model has layers with a separate, unscaled base (Gemma 3's sliding
      layers), which keep it;
    * mrope: an M-RoPE model (Qwen2-VL): Qwen2.5-VL's model card advises against YaRN
      (temporal and spatial localization suffer) and, for long videos, suggests raising
      max_position_embeddings instead;
    * dynamic: dynamic NTK recomputes the base per input; cached keys keep older angles;
    * longrope: the model's per-pair factors were searched for its own configured context.
    """
    plan = _plan(config, target_context, method, params)
    cfg, m, s = plan.config, plan.method, plan.scale

    def n(tokens: int) -> str:  # a count of tokens with its digits grouped: 131,072
        return f"{tokens:,}"

    notes = []
    if m in STATIC:
        notes.append(("static", Message(
            "{method} is static: it changes θᵢ for every input, a 500-token prompt "
            "included, not only for inputs longer than L = {original}. Qwen's model cards "
            "warn that static YaRN (the same factor whatever the input length) may impair "
            "performance on shorter texts, and advise adding the scaling only when long "
            "inputs are expected, with a factor for the typical length (their example: 2 "
            "for 65,536 tokens from 32,768).", method=m, original=n(plan.original))))
    own_mismatch = False
    if cfg.method == "yarn":
        own = resolve_params("yarn", cfg.rotary_dim, cfg.params_dict)
        implicit = cfg.max_context / own["original_max_position_embeddings"]
        own_mismatch = own["factor"] is not None and implicit != 1 and \
            abs(implicit - own["factor"]) > _RELATIVE * implicit
    if m == "yarn" or own_mismatch:
        notes.append(("transformers_warning", Message(
            "transformers 5.24 warns when a YaRN config's `factor` differs from "
            "`max_position_embeddings` / `original_max_position_embeddings` (unless that "
            "ratio is 1) and then uses the `factor` (`_validate_yarn_rope_parameters` in "
            "`modeling_rope_utils.py`). The settings here set `max_position_embeddings` = "
            "{target} and `factor` = {target} / {original} = {scale}, so they agree.",
            target=n(plan.target), original=n(plan.original), scale=f"{s:.6g}")))
    if cfg.method != "none":
        names = dict(model=cfg.name, own=cfg.method, original=n(cfg.original_context),
                     configured=n(cfg.max_context), target=n(plan.target), method=m,
                     new_original=n(plan.original))
        own = resolve_params(cfg.method, cfg.rotary_dim, cfg.params_dict)
        own_factor = own.get("factor")
        if own_factor is None and own.get("max_position_embeddings") is not None:
            own_factor = own["max_position_embeddings"] / own["original_max_position_embeddings"]
        if m == cfg.method and own_factor is not None and plan.original == \
                cfg.original_context and abs(own_factor - s) <= _RELATIVE * s:
            text = Message("{model} already scales its RoPE with {own} from L = {original}, "
                           "by the factor {target} / {original} itself, but is configured "
                           "for {configured} tokens. The settings here keep its spectrum "
                           "and raise only the configured context: between {configured} "
                           "and {target} tokens its slowest pairs reach angles its training "
                           "never produced.", **names)
        elif m == cfg.method:
            text = Message("{model} already scales its RoPE with {own} from L = {original} "
                           "to {configured} tokens. The settings here keep its own "
                           "parameters with s = {target} / {new_original}: they replace "
                           "its scaling with a longer one of the same kind, which "
                           "the model was not trained with beyond {configured} tokens.",
                           **names)
        else:
            text = Message("{model} already scales its RoPE with {own} (from L = {original} "
                           "to {configured} tokens). A config holds one scaling per "
                           "spectrum: these settings replace {own} with {method} from the "
                           "plain spectrum at L = {new_original}, a spectrum the model never "
                           "saw at any length; they do not stack {method} on top of {own}. "
                           "Stacking (scaling the already-scaled spectrum again, from "
                           "{configured}) is what llama.cpp would do with a GGUF whose "
                           "factors are tensors, and none of these configs can write it.",
                           **names)
        notes.append(("built_in", text))
    local = getattr(cfg, "local_base", None)
    if local is not None:
        notes.append(("layers", Message(
            "{model} scales only its global layers: its sliding-window layers rotate with "
            "their own base {local}, unscaled, and keep it.", model=cfg.name,
            local=f"{local:g}")))
    if getattr(cfg, "mrope_section", None) is not None:
        notes.append(("mrope", Message(
            "{model} rotates its pairs by time, height and width positions (M-RoPE). "
            "Qwen2.5-VL's model card says that adding YaRN this way has a significant impact "
            "on temporal and spatial localization and does not recommend it; for long videos "
            "it suggests raising `max_position_embeddings` instead, since M-RoPE spends "
            "fewer position ids.", model=cfg.name)))
    if m == "dynamic":
        notes.append(("dynamic", Message(
            "Dynamic NTK recomputes the base for each input length past L = {original}: "
            "short inputs run exactly as trained, but during generation the keys already "
            "cached were rotated with the base of an earlier length.",
            original=n(plan.original))))
    if m == "longrope":
        notes.append(("longrope", Message(
            "LongRoPE's per-pair factors were searched for the model's own configured "
            "context ({configured} tokens); a longer target changes only its attention "
            "factor √(1 + ln s / ln L), s = {target} / {original}.",
            configured=n(cfg.max_context), target=n(plan.target), original=n(plan.original))))
    return tuple(notes)


def range_table(config: RopeConfig, target_context: int, method: str,
                **params) -> pd.DataFrame:
    """Per pair, the spectrum before and after, and whether the target pushes the pair past
    the angles the model has seen.

    Before: the model as it is, theta_i = ``config.theta(R)`` at R = :func:`reach` (its
    trained context, or where its own scaling takes it); after: theta'_i =
    ``extended_config(...).theta(T)`` at the target T. A pair has seen every angle when it
    completed a turn within R (2 pi / theta_i <= R); otherwise the largest angle it has
    seen is R theta_i, and it is pushed out when T theta'_i > R theta_i (relative
    tolerance 1e-9: NTK divides the slowest pair by exactly s).

    Returns:
        ``rotary_dim/2`` rows: leading model, method, reach R [tokens], target context T
        [tokens]; then pair, theta before [rad/token], theta after [rad/token], wavelength
        before [tokens], wavelength after [tokens], largest angle seen [rad] (R theta_i,
        NaN when the pair turned), largest angle at T [rad], angle ratio (T theta'_i /
        (R theta_i)), turned within R (bool), pushed out (bool).
    """
    plan = _plan(config, target_context, method, params)
    already = reach(config)
    before, _a = config.theta(already)  # (d/2,)
    after, _b = extended_config(config, target_context, method, **params).theta(plan.target)
    wave_before, wave_after = 2 * math.pi / before, 2 * math.pi / after  # (d/2,)
    seen, at_target = already * before, plan.target * after  # (d/2,) rad
    turned = wave_before <= already
    ratio = at_target / seen
    pushed = ~turned & (ratio > 1 + _RELATIVE)
    return pd.DataFrame({
        "model": config.name, "method": plan.method, "reach R [tokens]": already,
        "target context T [tokens]": plan.target,
        "pair": range(before.numel()), "theta before [rad/token]": before.numpy(),
        "theta after [rad/token]": after.numpy(), "wavelength before [tokens]":
            wave_before.numpy(), "wavelength after [tokens]": wave_after.numpy(),
        "largest angle seen [rad]": seen.where(~turned, math.nan).numpy(),
        "largest angle at T [rad]": at_target.numpy(), "angle ratio": ratio.numpy(),
        "turned within R": turned.numpy(), "pushed out": pushed.numpy()})


def settings_table(config: RopeConfig, target_context: int, method: str,
                   **params) -> pd.DataFrame:
    """The settings of :func:`engine_settings` as a table, one row per engine and setting.

    Leading columns (the choice that produced it): model, method, original context L
    [tokens], target context T [tokens], scale s = T/L, attention factor a (at T), logit
    multiplier a^2; then engine, supported, setting (a flag or a config.json key; "refused"
    for a refusal), value (the JSON or flag value as written; the refusal's English text).
    """
    plan = _plan(config, target_context, method, params)
    settings = engine_settings(config, target_context, method, **params)
    _theta, a = extended_config(config, target_context, method, **params).theta(plan.target)
    rows = []
    for engine in ENGINES:
        entry = settings[engine]
        if not entry["supported"]:
            rows.append((engine, False, "refused", str(entry["refusal"])))
            continue
        for key, value in entry["settings"].items():
            rows.append((engine, True, key, value if isinstance(value, str) else _json(value)))
    lead = {"model": config.name, "method": plan.method,
            "original context L [tokens]": plan.original,
            "target context T [tokens]": plan.target, "scale s = T/L": plan.scale,
            "attention factor a": a, "logit multiplier a^2": a * a}
    frame = pd.DataFrame(rows, columns=["engine", "supported", "setting", "value"])
    for n, (name, value) in enumerate(lead.items()):
        frame.insert(n, name, value)
    return frame


__all__ = ["ENGINES", "METHODS", "NOTE_KINDS", "SOURCES", "STATIC", "engine_settings",
           "extended_config", "range_table", "reach", "serving_notes", "settings_table"]
