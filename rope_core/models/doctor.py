"""A config doctor: the RoPE mistakes engineers report most, found in a ``config.json``.

:func:`diagnose` reads a parsed ``config.json`` (or its text, parsed safely by
:func:`rope_core.models.config.parse_json`) and returns one :class:`Finding` per mistake:
the key, what goes wrong (in transformers 5.24, vLLM 0.33.0, SGLang 0.5.23 or llama.cpp
0c1e57098, the versions :mod:`rope_core.models.serving` was checked against), the fix and
its source: a report in an engine's issue tracker and the engine code that does it (paths
as in :data:`rope_core.models.serving.CHECKED`). The checks (:data:`CHECKS`):

* ``type_vs_rope_type``: a rope dict whose legacy ``type`` and ``rope_type`` disagree
  (transformers uses ``rope_type``, vLLM refuses the config); ``type`` alone is no mistake
  (transformers 5.24, vLLM 0.33.0, SGLang 0.5.23 and llama.cpp's converter all read it);
* ``scaling_vs_parameters``: ``rope_scaling`` and ``rope_parameters`` both given and
  meaning different scalings: transformers' config classes (which vLLM and SGLang load)
  take ``rope_scaling``, llama.cpp's converter ``rope_parameters``;
* ``factor``: a YaRN ``factor`` that disagrees with ``max_position_embeddings`` /
  ``original_max_position_embeddings`` (transformers warns and uses the factor; vLLM and
  SGLang serve at most ``max_position_embeddings``);
* ``dynamic_over_own``: rope type ``dynamic`` holding keys of another scaling (llama3's
  bands, YaRN's betas): it replaced the model's own scaling, it does not stack on it;
* ``global_only``: a model whose scaling belongs to its global layers only (Gemma 3,
  OLMo 3): a flat ``rope_parameters`` (transformers 5.24 ignores it there) or a scaled
  ``sliding_attention`` entry;
* ``outside_text_config``: a vision-language model's RoPE keys at the top level, where
  transformers' language model (``text_config``) does not read them, and SGLang's, for
  Qwen2-VL, Qwen2.5-VL and dense Qwen3-VL, reads them instead of text_config's;
* ``rope_theta``: ``rope_parameters`` without ``rope_theta`` and no base anywhere (the
  class default, 10,000 in vLLM's ``get_rope``, takes its place), or two different bases;
* ``static_yarn``: YaRN added at inference, which transformers, vLLM, SGLang and llama.cpp
  apply to every input, the shortest too. Told apart by model type only: Qwen's (whose
  cards add it at inference) get the finding, the model types whose own config.json ships
  YaRN (DeepSeek-V2/V3/V4, gpt-oss, OLMo 3, Ministral 3) none, any other a finding that says
  it cannot tell.

Bounded: only the known keys of the top level and of ``text_config`` are read, no
recursion; the text is at most :data:`rope_core.models.config.MAX_JSON_BYTES`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from numbers import Real

import pandas as pd

from ..support._checks import Message, fail
from . import families
from .config import parse_json

CHECKS = ("type_vs_rope_type", "scaling_vs_parameters", "factor", "dynamic_over_own",
          "global_only", "outside_text_config", "rope_theta", "static_yarn")

_ROPE_KEYS = ("rope_scaling", "rope_parameters")
# legacy type and rope_type pairs that mean the same (vLLM's patch_legacy_rope_type)
_SAME = {("su", "longrope"), ("longrope", "su"), ("mrope", "default"), ("default", "mrope")}
# keys that belong to a scaling other than dynamic NTK, and the scaling they belong to
_OTHER_KEYS = {"low_freq_factor": "llama3", "high_freq_factor": "llama3", "beta_fast": "yarn",
               "beta_slow": "yarn", "mscale": "yarn", "mscale_all_dim": "yarn",
               "attention_factor": "yarn", "short_factor": "longrope",
               "long_factor": "longrope"}
# model types whose own (published) config.json ships YaRN as the model's long-context
# setting: DeepSeek-V3 was extended with it in training (DeepSeek-AI 2024, DeepSeek-V3
# Technical Report, arXiv:2412.19437, section 4.3); the static-YaRN finding's advice (drop
# it for short inputs) would run them with a spectrum they were never run with
_YARN_SHIPPED = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_v4", "gpt_oss",
                 "olmo3", "ministral3")
# model types whose model cards add YaRN at inference only, for long inputs (Qwen2.5's and
# Qwen3's "Processing Long Texts"; Qwen2.5-VL's likewise)
_YARN_ADDED = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl",
               "qwen2_5_vl_text", "qwen2_vl_text")
# model types whose SGLang 0.5.23 language model reads the OUTER config (serving.CHECKED
# sglang_outer_lm), where a top-level key of config.json stays the one it reads
_OUTER_LM = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")
# the top-level keys of a language model's RoPE
_TEXT_KEYS = ("rope_scaling", "rope_parameters", "rope_theta", "max_position_embeddings",
              "original_max_position_embeddings")

# Where each finding comes from: reports in the engines' trackers and the code that does it.
SOURCES = {
    "type_conflict": "github.com/vllm-project/vllm/pull/10471; transformers 5.24 "
                     "src/transformers/modeling_rope_utils.py:825; vLLM 0.33.0 "
                     "vllm/transformers_utils/config.py:617-628",
    "scaling_vs_parameters": "github.com/vllm-project/vllm/pull/28542; transformers 5.24 "
                             "src/transformers/modeling_rope_utils.py:775-777; llama.cpp "
                             "0c1e57098 conversion/base.py:1359",
    "factor": "github.com/huggingface/transformers/issues/38224; transformers 5.24 "
              "src/transformers/modeling_rope_utils.py:1001-1014; vLLM 0.33.0 "
              "vllm/config/model.py:2598-2627, 2656-2676",
    "factor_unscaled": "github.com/ggml-org/llama.cpp/pull/10698; vLLM 0.33.0 "
                       "vllm/config/model.py:2598-2627, 2656-2676; SGLang 0.5.23 "
                       "python/sglang/srt/utils/hf_transformers/common.py:677-694, "
                       "python/sglang/srt/configs/model_config.py:1291-1318",
    "dynamic_over_own": "github.com/vllm-project/vllm/issues/10537; transformers 5.24 "
                        "src/transformers/modeling_rope_utils.py:947-958, 1130-1157; vLLM "
                        "0.33.0 vllm/model_executor/layers/rotary_embedding/"
                        "dynamic_ntk_scaling_rope.py:53-63",
    "global_flat": "transformers 5.24 src/transformers/models/gemma3/"
                   "configuration_gemma3.py:132-159, models/olmo3/"
                   "configuration_olmo3.py:100-125; SGLang 0.5.23 "
                   "python/sglang/srt/configs/olmo3.py:30-100",
    "global_sliding": "transformers 5.24 src/transformers/models/gemma3/"
                      "configuration_gemma3.py:132-159; Gemma Team 2025, Gemma 3 Technical "
                      "Report (arXiv:2503.19786)",
    "outside_text_config": "github.com/sgl-project/sglang/issues/27974; transformers 5.24 "
                           "src/transformers/configuration_utils.py:1519 (get_text_config)",
    "outside_outer_lm": "github.com/sgl-project/sglang/issues/27974; SGLang 0.5.23 "
                        "python/sglang/srt/utils/hf_transformers/config.py:258-268, "
                        "python/sglang/srt/models/qwen2_vl.py:478-480; transformers 5.24 "
                        "src/transformers/configuration_utils.py:1519 (get_text_config)",
    "rope_theta_missing": "github.com/vllm-project/vllm/pull/28542; vLLM 0.33.0 "
                          "vllm/model_executor/layers/rotary_embedding/__init__.py:63-64, "
                          "vllm/config/model.py:555-570; transformers 5.24 "
                          "src/transformers/modeling_rope_utils.py:775-803",
    "rope_theta_twice": "github.com/deepspeedai/DeepSpeed/pull/8345; transformers 5.24 "
                        "src/transformers/modeling_rope_utils.py:775-803",
    "static_yarn": "github.com/sgl-project/sglang/issues/6030; "
                   "github.com/QwenLM/Qwen3/issues/1567; Hub Qwen/Qwen3-8B README.md "
                   "(Processing Long Texts)",
}


@dataclasses.dataclass(frozen=True)
class Finding:
    """One mistake in a config.json.

    Attributes:
        check: which check found it (one of :data:`CHECKS`).
        key: the key it concerns, a dotted path (``text_config.rope_scaling.type``).
        problem: what goes wrong, and in which engine (a :class:`Message`).
        fix: what to write instead (a :class:`Message`).
        source: where that is reported and done: an issue or pull request in an engine's
            tracker and the engine code, file and lines (names and paths, not translated).
    """

    check: str
    key: str
    problem: Message
    fix: Message
    source: str


_SHOWN = 60  # characters of a visitor's key or value a finding quotes


def _shown(value) -> str:
    """A visitor's value as a finding quotes it: its repr, cut to :data:`_SHOWN` characters."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _key(name) -> str:
    """A key of the visitor's config in a finding's path, cut likewise."""
    text = str(name)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _type(d: Mapping) -> str:
    """A rope dict's rope type as transformers 5.24 reads it (rope_type, else type)."""
    kind = d.get("rope_type", d.get("type", "default"))
    return kind if isinstance(kind, str) else "default"


def _number(value) -> float | None:
    return float(value) if isinstance(value, Real) and not isinstance(value, bool) and \
        math.isfinite(value) else None


def _rope_dicts(level: Mapping, prefix: str) -> list[tuple[str, str, Mapping]]:
    """(path, key it sits under, dict) of every rope dict of one config level: its
    rope_scaling and rope_parameters, and the entries of a rope_parameters nested by layer
    type or label."""
    out = []
    for key in _ROPE_KEYS:
        raw = level.get(key)
        if not isinstance(raw, Mapping):
            continue
        nested = [k for k in raw if isinstance(raw[k], Mapping)]
        if nested:
            out += [(f"{prefix}{key}.{_key(k)}", key, raw[k]) for k in nested]
        else:
            out.append((f"{prefix}{key}", key, raw))
    return out


def _levels(config: Mapping) -> list[tuple[str, Mapping]]:
    """The config levels that hold a language model's fields: the top level, and
    text_config when it is an object (read in that order)."""
    levels = [("", config)]
    if isinstance(config.get("text_config"), Mapping):
        levels.append(("text_config.", config["text_config"]))
    return levels


def _type_findings(path: str, d: Mapping) -> list[Finding]:
    legacy, modern = d.get("type"), d.get("rope_type")
    if not isinstance(legacy, str):
        return []
    if isinstance(modern, str):
        if modern == legacy or (legacy, modern) in _SAME:
            return []
        return [Finding("type_vs_rope_type", f"{path}.type", Message(
            "`type` = {legacy} and `rope_type` = {modern} disagree: transformers 5.24 uses "
            "`rope_type` and ignores `type` (it copies `type` only when `rope_type` is "
            "absent), while vLLM 0.33.0 refuses the config with a ValueError naming both.",
            legacy=_shown(legacy), modern=_shown(modern)), Message(
            "Keep one key, `rope_type`, with the scaling you mean, and delete `type`."),
            SOURCES["type_conflict"])]
    return []  # type alone: transformers, vLLM, SGLang and llama.cpp's converter all read it


_NOT_SCALING = ("type", "rope_type", "rope_theta", "partial_rotary_factor")


def _both_findings(level: Mapping, prefix: str) -> list[Finding]:
    """rope_scaling and rope_parameters at one level that mean different scalings."""
    scaling, params = level.get("rope_scaling"), level.get("rope_parameters")
    if not isinstance(scaling, Mapping) or not scaling or not isinstance(params, Mapping):
        return []
    if "full_attention" in params and isinstance(params["full_attention"], Mapping):
        params = params["full_attention"]  # where a config class puts rope_scaling
    if any(isinstance(v, Mapping) for v in params.values()):
        return []  # named entries (DeepSeek-V4's main / compress): not compared here

    def meaning(d: Mapping) -> tuple:
        return _type(d), {k: v for k, v in d.items() if k not in _NOT_SCALING}
    if meaning(scaling) == meaning(params):
        return []
    return [Finding("scaling_vs_parameters", f"{prefix}rope_scaling", Message(
        "`rope_scaling` ({scaling}) and `rope_parameters` ({params}) are both given and "
        "mean different scalings: transformers 5.24's config classes, which vLLM 0.33.0 and "
        "SGLang 0.5.23 load too, take `rope_scaling` and drop `rope_parameters`, while "
        "llama.cpp's converter takes `rope_parameters`: one `config.json`, two spectra.",
        scaling=_shown(_type(scaling)), params=_shown(_type(params))), Message(
        "Keep one: the scaling you mean in `rope_parameters` (transformers 5's key) and "
        "`rope_scaling` deleted or set to null."), SOURCES["scaling_vs_parameters"])]


def _factor_findings(path: str, d: Mapping, level: Mapping, prefix: str) -> list[Finding]:
    if _type(d) != "yarn":
        return []
    factor = _number(d.get("factor"))
    original = _number(d.get("original_max_position_embeddings",
                             level.get("original_max_position_embeddings")))
    longest = _number(level.get("max_position_embeddings"))
    if factor is None or not original or not longest or factor <= 1:
        return []
    implicit = longest / original
    names = dict(factor=f"{factor:g}", original=f"{original:,.0f}", longest=f"{longest:,.0f}",
                 implicit=f"{implicit:.6g}", reach=f"{factor * original:,.0f}",
                 key=f"{prefix}max_position_embeddings")
    if implicit == 1:
        return [Finding("factor", f"{path}.factor", Message(
            "`factor` = {factor} from `original_max_position_embeddings` = {original}, but "
            "`max_position_embeddings` stays {longest}: for YaRN, vLLM 0.33.0 takes the "
            "longest context it serves from `max_position_embeddings` (not times the factor) "
            "and SGLang 0.5.23 likewise when `original_max_position_embeddings` is set, so "
            "`--max-model-len` or `--context-length` above {longest} is refused unless an "
            "environment variable overrides the check.", **names), Message(
            "Set {key} to `factor` × `original_max_position_embeddings` = {reach}, the "
            "context the scaling is built for.", **names), SOURCES["factor_unscaled"])]
    if abs(implicit - factor) <= 1e-9 * factor:
        return []
    return [Finding("factor", f"{path}.factor", Message(
        "`factor` = {factor}, but `max_position_embeddings` / "
        "`original_max_position_embeddings` = {longest} / {original} = {implicit}: "
        "transformers 5.24 warns and builds the spectrum with the factor, while vLLM 0.33.0 "
        "and SGLang 0.5.23 serve at most `max_position_embeddings` = {longest} tokens (unless "
        "an environment variable overrides their check), so the spectrum is made for one "
        "context and the engines allow another.", **names), Message(
        "Make them agree: {key} = `factor` × `original_max_position_embeddings` = {reach}, "
        "or `factor` = {implicit} if {longest} is the context you mean.", **names),
        SOURCES["factor"])]


def _dynamic_findings(path: str, d: Mapping) -> list[Finding]:
    if _type(d) != "dynamic":
        return []
    left = [k for k in d if k in _OTHER_KEYS]
    if not left:
        return []
    own = _OTHER_KEYS[left[0]]
    return [Finding("dynamic_over_own", f"{path}.rope_type", Message(
        "The rope type is `dynamic`, but the dict keeps {keys}, keys of {own}: dynamic NTK "
        "replaced the model's own {own} scaling, it does not stack on it. Inputs up to L then "
        "run the unscaled spectrum instead of the {own} one the model was configured with; "
        "transformers 5.24 ignores those keys (`Unrecognized keys`) and vLLM 0.33.0's "
        "`dynamic` type keeps the plain spectrum at every length.",
        keys=", ".join(left), own=own), Message(
        "Keep the model's {own} scaling and raise its factor for a longer context (this "
        "page's lines for {own}); if dynamic NTK is really meant, delete the {own} keys.",
        own=own), SOURCES["dynamic_over_own"])]


def _global_only_findings(level: Mapping, prefix: str, types: list) -> list[Finding]:
    _name, fam = families.family(types)
    if fam.split_scaling != "full_only":
        return []
    raw = level.get("rope_parameters")
    if not isinstance(raw, Mapping):
        return []
    nested = [k for k in raw if k in families.LAYER_TYPES]
    if not nested:
        kind = _type(raw)
        if kind in ("default", "mrope"):
            return []
        olmo = "olmo3" in types
        return [Finding("global_only", f"{prefix}rope_parameters", Message(
            "A flat `rope_parameters` with rope type {kind} on a model whose scaling belongs "
            "to its global layers: transformers 5.24's config class creates `full_attention` "
            "and `sliding_attention` entries beside it, both without scaling, and the layers "
            "read only those, so the scaling is silently dropped.", kind=_shown(kind)),
            Message(
            "Give it as a flat `rope_scaling` instead, which transformers' Olmo3Config puts "
            "on the full-attention layers only and SGLang 0.5.23's own flat Olmo3Config and "
            "llama.cpp's converter read too. (Nested under `rope_parameters.full_attention` "
            "it works in transformers and vLLM, but SGLang's Olmo3Config drops a nested "
            "`rope_parameters`: no scaling, base 10,000.)") if olmo else Message(
            "Move it under `rope_parameters.full_attention` and keep `sliding_attention` "
            "unscaled at its own base, or give it as `rope_scaling`, which the config class "
            "puts on the full-attention layers only."), SOURCES["global_flat"])]
    local = raw.get("sliding_attention")
    if not isinstance(local, Mapping) or _type(local) in ("default", "mrope"):
        return []
    window = _number(level.get("sliding_window"))
    return [Finding("global_only", f"{prefix}rope_parameters.sliding_attention", Message(
        "The sliding-window layers are scaled ({kind}): they attend within {window} tokens, so "
        "they never meet the longer distances, and the scaling only changes the angles they "
        "were trained on. Gemma 3 rescales RoPE on its global layers only, which is where "
        "transformers' config class puts `rope_scaling`.", kind=_shown(_type(local)),
        window=f"{window:,.0f}" if window else Message("their window")), Message(
        "Set `rope_parameters.sliding_attention` back to rope type `default` at its own base "
        "(`rope_local_base_freq`, 10,000 for Gemma 3)."), SOURCES["global_sliding"])]


def _outside_findings(config: Mapping) -> list[Finding]:
    text = config.get("text_config")
    if not isinstance(text, Mapping):
        return []
    out = []
    outer_lm = config.get("model_type") in _OUTER_LM
    for key in _TEXT_KEYS:
        if key in config and config[key] is not None and text.get(key) != config[key]:
            value = config[key]
            fails = key in _ROPE_KEYS and isinstance(value, Mapping) and \
                _type(value) in ("yarn", "llama3", "longrope")
            if outer_lm and not fails:
                out.append(Finding("outside_text_config", key, Message(
                    "{key} is at the top level and differs from `text_config`'s: transformers "
                    "5.24 and vLLM 0.33.0 give the language model `text_config`'s, but SGLang "
                    "0.5.23 builds this model's language model from the outer config, onto "
                    "which it copies only the `text_config` keys the top level lacks: there "
                    "the top-level {key} is what the model reads (and `text_config`'s what its "
                    "context check reads). One `config.json`, two models.", key=key), Message(
                    "Set {key} in `text_config` and delete it at the top level (SGLang then "
                    "copies `text_config`'s), or keep the two equal.", key=key),
                    SOURCES["outside_outer_lm"]))
                continue
            if fails:
                problem = Message(
                    "{key} is at the top level of a config whose language model sits under "
                    "`text_config`: transformers 5.24's outer config class fails to load it "
                    "(for rope type {kind} it looks for `max_position_embeddings`, which only "
                    "`text_config` has: `AttributeError`), and for models whose language "
                    "model is built from `text_config` an engine override written this way "
                    "does not reach it (SGLang's report for Qwen3.5-MoE and Qwen3-VL-MoE: a "
                    "silent no-op).",
                    key=key, kind=_shown(_type(value)))
            else:
                problem = Message(
                    "{key} is at the top level of a config whose language model sits under "
                    "`text_config`: transformers' outer config class keeps it apart and the "
                    "language model reads `text_config` only, so it changes nothing there "
                    "(SGLang's report for Qwen3.5-MoE and Qwen3-VL-MoE: such an override is a "
                    "silent no-op).", key=key)
            out.append(Finding("outside_text_config", key, problem, Message(
                "Move {key} into `text_config` (merge it key by key, keeping the other "
                "fields there).", key=key), SOURCES["outside_text_config"]))
    return out


def _theta_findings(level: Mapping, prefix: str) -> list[Finding]:
    raw = level.get("rope_parameters")
    if not isinstance(raw, Mapping):
        return []
    entries = [(f"{prefix}rope_parameters.{_key(k)}", v) for k, v in raw.items()
               if isinstance(v, Mapping)] or [(f"{prefix}rope_parameters", raw)]
    top = _number(level.get("rope_theta"))
    out = []
    for path, d in entries:
        inner = _number(d.get("rope_theta"))
        if inner is None and top is None and "rope_theta" not in d:
            out.append(Finding("rope_theta", f"{path}.rope_theta", Message(
                "`rope_parameters` names no `rope_theta`, and the config has no base "
                "elsewhere: transformers 5 keeps the base inside `rope_parameters`, so the "
                "config class's default takes its place, and vLLM 0.33.0's `get_rope` uses "
                "10,000 (an override of `rope_parameters` written without it replaces the whole "
                "dict there)."), Message(
                "Write the model's base into `rope_parameters.rope_theta`, in every override "
                "of `rope_parameters` too."), SOURCES["rope_theta_missing"]))
        elif inner is not None and top is not None and inner != top:
            out.append(Finding("rope_theta", f"{path}.rope_theta", Message(
                "Two bases: `rope_parameters.rope_theta` = {inner} and the top-level "
                "`rope_theta` = {top}. transformers 5.24 uses the first (the top-level one "
                "only fills a missing base); a tool that reads the top-level key, as "
                "written for transformers 4, takes the second.", inner=f"{inner:,.10g}",
                top=f"{top:,.10g}"), Message(
                "Keep one base: the model's, in `rope_parameters.rope_theta`."),
                SOURCES["rope_theta_twice"]))
    return out


def _static_findings(path: str, d: Mapping, types: list) -> list[Finding]:
    """YaRN added at inference: said for Qwen's model types, whose cards add it so; not for
    a model type whose own config.json ships it; conditionally for any other (the doctor
    tells them apart by model type only)."""
    if _type(d) != "yarn" or any(t in _YARN_SHIPPED for t in types):
        return []
    known = any(t in _YARN_ADDED for t in types)
    reports = Message(
        "Users report worse results with YaRN added so: looping on short prompts (SGLang's "
        "tracker) and a lower `Arena-Hard` score for Qwen3-8B in vLLM (Qwen3's tracker); "
        "Qwen's model cards advise adding it only when long inputs are expected.")
    fix = Message(
        "Serve long inputs with this scaling and short ones without it, or choose the factor "
        "for the typical length (Qwen3's card: 2.0 for 65,536 tokens from 32,768).")
    static = Message(
        "YaRN here is static: transformers, vLLM, SGLang and llama.cpp build one spectrum and "
        "one attention factor for every input, so a 500-token prompt runs with the scaled θᵢ "
        "too.")
    if known:
        return [Finding("static_yarn", path, Message(
            "{static} This model's card adds it at inference, for long inputs; it was "
            "trained without it. {reports}", static=static, reports=reports), fix,
            SOURCES["static_yarn"])]
    return [Finding("static_yarn", path, Message(
        "{static} If YaRN was added at inference, as Qwen's model cards add it: {reports} If "
        "the model was trained or released with it, as DeepSeek-V3, gpt-oss, OLMo 3 and "
        "Ministral 3 ship it in their own `config.json`, it is the spectrum the model runs "
        "at every length and belongs there. The doctor tells the two apart only by "
        "`model_type`, and does not know this one.", static=static, reports=reports), Message(
        "If it was added at inference: {fix} If the model ships with it: keep it.", fix=fix),
        SOURCES["static_yarn"])]


def diagnose(config) -> tuple[Finding, ...]:
    """The mistakes of :data:`CHECKS` found in a config.json.

    Args:
        config: the parsed config.json (a JSON object), or its text (str or bytes, at most
            1 MB, parsed by :func:`rope_core.models.config.parse_json`).

    Returns:
        The findings in the order of :data:`CHECKS`, each check's in the order of the keys
        (the top level before ``text_config``); ``()`` when none of the mistakes is there.

    Raises:
        RopeError: for text that is not JSON, or JSON that is not an object.
    """
    if isinstance(config, (str, bytes, bytearray)):
        config = parse_json(config)
    if not isinstance(config, Mapping):
        fail("config", type(config).__name__, "a JSON object (a dict of config.json fields)")
    types = [t for t in (config.get("model_type"),
                         (config.get("text_config") or {}).get("model_type")
                         if isinstance(config.get("text_config"), Mapping) else None)
             if isinstance(t, str)]
    found = {check: [] for check in CHECKS}
    for prefix, level in _levels(config):
        level_types = ([level.get("model_type")] if isinstance(level.get("model_type"), str)
                       else []) + types
        found["scaling_vs_parameters"] += _both_findings(level, prefix)
        for path, _key, d in _rope_dicts(level, prefix):
            found["type_vs_rope_type"] += _type_findings(path, d)
            found["factor"] += _factor_findings(path, d, level, prefix)
            found["dynamic_over_own"] += _dynamic_findings(path, d)
            found["static_yarn"] += _static_findings(path, d, level_types)
        found["global_only"] += _global_only_findings(level, prefix, level_types)
        found["rope_theta"] += _theta_findings(level, prefix)
    found["outside_text_config"] += _outside_findings(config)
    return tuple(f for check in CHECKS for f in found[check])


def findings_table(findings) -> pd.DataFrame:
    """The findings as a table, one row each: check, key, problem, fix, source (English,
    as every CSV of the app)."""
    findings = tuple(findings)
    if not all(isinstance(f, Finding) for f in findings):
        fail("findings", type(findings).__name__, "`Finding` objects from `diagnose`")
    return pd.DataFrame({"check": [f.check for f in findings], "key": [f.key for f in findings],
                         "problem": [str(f.problem) for f in findings],
                         "fix": [str(f.fix) for f in findings],
                         "source": [f.source for f in findings]},
                        columns=["check", "key", "problem", "fix", "source"])


__all__ = ["CHECKS", "SOURCES", "Finding", "diagnose", "findings_table"]
