"""Serving a model longer: from a model, a target context and a method to the settings
four inference engines need.

:func:`engine_settings` answers "what do I write so that this model runs at T tokens?"
for Hugging Face transformers, vLLM, SGLang and llama.cpp, one entry per engine. Every
entry gives the model's RoPE layers the SAME spectrum, the one :func:`extended_config`
gives and rope_core shows (``extended_config(...).theta(n)``), with the same attention
factor and softmax-scale multiplier; an engine whose code would do anything else refuses
the choice by name (:data:`CHECKED` lists what was read in each engine, file and lines).
Which layers that spectrum reaches (NoPE layers, sliding windows, Gemma 3's local base)
is said by :func:`serving_notes`, built from :func:`layer_counts`, the one reader of a
config's layer fields here.

The extension. L is the context the new scaling starts from (``original_max_position_
embeddings``; by default the model's ``original_context``, where it was trained or where
its own scaling starts) and T the target; s = T / L. With theta_i = base^(-2i/d),
d the rotary dim (the formulas are :mod:`rope_core.models.scaling`'s):

* ``linear``: theta'_i = theta_i / s;
* ``ntk`` (static NTK-aware): base' = base s^(d/(d-2)), theta'_i = base'^(-2i/d); every
  entry writes base' as the base (``rope_theta``, ``--rope-freq-base``) with rope type
  ``default``. (vLLM's own ``ntk`` type is another formula: theta_i = (base s)^(-2i/d) /
  s^(2/d) = base^(-2i/d) s^(-(2i+2)/d), ``ntk_scaling_rope.py``; not used here.)
* ``dynamic`` (dynamic NTK, transformers' ``factor`` f, not s): base'(n) = base
  (f n / L - (f - 1))^(d/(d-2)) for the current length n > L, the plain spectrum for n <= L;
* ``yarn``: theta'_i = theta_i (1 - ramp_i) + (theta_i / s) ramp_i, attention factor
  0.1 ln s + 1 unless the parameters say otherwise;
* ``llama3``: pairs whose wavelength is longer than L / low_freq_factor get theta_i / s (so
  that wavelength is multiplied by s), those shorter than L / high_freq_factor keep
  theta_i, blended between;
* ``longrope``: theta'_i = theta_i / f_i with the model's searched per-pair factors (short
  up to L, long beyond), attention factor sqrt(1 + ln s / ln L).

One scaling per spectrum. A model whose own config already scales its RoPE (Llama 3.1's
llama3, Gemma 3's linear, DeepSeek-V3's YaRN, Phi-3.5's LongRoPE) keeps its own parameters
when the method is its own (only ``factor`` becomes T / L); another method REPLACES it and
starts again from the plain spectrum at L: none of the four engines holds two scalings of
one spectrum in its config (llama.cpp, whose GGUF carries Llama 3.1's and Phi-3's factors
as tensors, would stack them: refused there).

Where the settings go. A config.json that keeps the language model under
``text_config`` (Gemma 3 4B, Llama 4, Qwen3-VL) gets the keys there; vLLM and SGLang
apply their overrides to the OUTER config object, so for every model whose transformers
config class has a text sub-config (those, and Qwen2-VL / Qwen2.5-VL whose flat
config.json transformers 5 moves into ``text_config``) the overrides are nested under
``"text_config"`` too.

Versions read (:data:`ENGINE_VERSIONS`): transformers 5.24, vLLM 0.33.0, SGLang 0.5.23 and
llama.cpp at commit 0c1e57098 (the copy in llama-cpp-python 0.3.36). vLLM 0.33.0 requires
transformers >= 5.16.1, < 5.21 and SGLang 0.5.23 pins 5.19.0 (:data:`ENGINE_TRANSFORMERS`):
the transformers code their lines go through does the same in 5.19.0
(:data:`TRANSFORMERS_PINNED`) but for the ``rope_scaling`` setter, which there does not
standardize the dict (every SGLang line's dict names rope_type and rope_theta). Paths in
:data:`SOURCES` and :data:`CHECKED` are relative to each project (SGLang's under
``python/``).
"""

from __future__ import annotations

import dataclasses
import json
import math
from numbers import Integral, Real

import pandas as pd
import torch

from ..rotary.frequencies import theta as plain_theta
from ..support._checks import Code, Message, check_choice, check_int, fail
from .config import RopeConfig
from .families import family
from .scaling import (
    MAX_FACTOR,
    MAX_LENGTH,
    SCALINGS,
    TRANSFORMERS_VERSION,
    resolve_params,
    scaled_theta,
)

ENGINES = ("transformers", "vLLM", "SGLang", "llama.cpp")
METHODS = ("yarn", "linear", "ntk", "dynamic", "llama3", "longrope")
# the same spectrum at every length, short inputs included (dynamic NTK adapts to the
# length, LongRoPE switches from its short to its long factors past L)
STATIC = ("linear", "ntk", "yarn", "llama3")

# the releases whose code and documents every entry was checked against
ENGINE_VERSIONS = {"transformers": TRANSFORMERS_VERSION, "vLLM": "0.33.0", "SGLang": "0.5.23",
                   "llama.cpp": "0c1e57098"}
# where that llama.cpp commit was read: the copy vendored in this release (its CHANGELOG)
LLAMA_CPP_PYTHON = "0.3.36"
# the transformers each engine's wheel requires (its METADATA, Requires-Dist): vLLM 0.33.0
# transformers<5.21.0,>=5.16.1; SGLang 0.5.23 transformers==5.19.0. Neither runs with the
# TRANSFORMERS_VERSION the tests use. The code the vLLM and SGLang lines go through
# (modeling_rope_utils.py, configuration_utils.py) does the same in TRANSFORMERS_PINNED,
# except that 5.19.0's rope_scaling setter (configuration_utils.py:588-590) only assigns
# rope_parameters where 5.24's (:724-733) also standardizes it: every SGLang line writes
# rope_type and rope_theta into its rope_scaling itself (tests/test_core_serving.py)
ENGINE_TRANSFORMERS = {"vLLM": ">=5.16.1,<5.21", "SGLang": "==5.19.0"}
TRANSFORMERS_PINNED = "5.19.0"

SOURCES = {
    "transformers": "transformers 5.24: src/transformers/modeling_rope_utils.py "
                    "(RotaryEmbeddingConfigMixin, ROPE_INIT_FUNCTIONS), "
                    "src/transformers/configuration_utils.py (get_text_config)",
    "vLLM": "vLLM 0.33.0: docs.vllm.ai/en/stable/features/context_extension/; "
            "vllm/config/model.py (hf_overrides, max_model_len); "
            "vllm/model_executor/layers/rotary_embedding/__init__.py (get_rope)",
    "SGLang": "SGLang 0.5.23: python/sglang/srt/utils/hf_transformers/config.py (get_config), "
              "python/sglang/srt/utils/hf_transformers/common.py (get_context_length), "
              "python/sglang/srt/layers/rotary_embedding/factory.py (get_rope)",
    "llama.cpp": "llama.cpp 0c1e57098 (llama-cpp-python 0.3.36): common/arg.cpp "
                 "(--rope-scaling, --rope-scale, --rope-freq-base, --yarn-*), "
                 "src/llama-context.cpp, ggml/src/ggml-cpu/ops.cpp (rope_yarn), "
                 "convert_hf_to_gguf.py, conversion/",
}
COMMANDS = {"vLLM": "vllm serve MODEL", "SGLang": "python -m sglang.launch_server "
            "--model-path MODEL", "llama.cpp": "llama-server -m MODEL.gguf"}


@dataclasses.dataclass(frozen=True)
class Checked:
    """What one engine's code does that an entry depends on: the engine, the file and
    lines read (relative to the project, at :data:`ENGINE_VERSIONS`) and the behaviour."""

    engine: str
    where: str
    behaviour: str

    def __post_init__(self) -> None:  # shown as code in the messages that cite it
        object.__setattr__(self, "where", Code(self.where))


# Every engine behaviour the entries and refusals rely on, read in the engines' code (the
# tests check the entries against transformers' own config classes and the documented
# recipes; vLLM, SGLang and llama.cpp are not installed, so what was read is recorded here).
CHECKED = {
    "vllm_overrides": Checked(
        "vLLM", "vllm/config/model.py:527-570, 616-630, 691-693",
        "--hf-overrides: a dict value is applied after loading with setattr on the outer "
        "config, unless that attribute is a sub-config (text_config), which it merges into "
        "key by key (dicts inside merged too); then hf_text_config = "
        "config.get_text_config() is what the model and max_model_len read"),
    "vllm_max_len": Checked(
        "vLLM", "vllm/config/model.py:2598-2627, 2656-2676",
        "--max-model-len above max_position_embeddings (times factor for linear, ntk and "
        "dynamic, not for yarn, llama3, longrope; gemma3 never) is refused"),
    "vllm_get_rope": Checked(
        "vLLM", "vllm/model_executor/layers/rotary_embedding/__init__.py:112-125, "
                "188-290",
        "M-RoPE sections are kept for rope types default and yarn only; yarn passes "
        "beta_fast, beta_slow, mscale, mscale_all_dim, attention_factor and truncate"),
    "vllm_yarn_attention": Checked(
        "vLLM", "vllm/model_executor/layers/rotary_embedding/yarn_scaling_rope.py:38-46, "
                "mrope.py:333-345",
        "attention factor: attention_factor, else mscale(s, mscale) / mscale(s, "
        "mscale_all_dim) when both are non-zero, else 0.1 ln s + 1 (transformers' rule)"),
    "vllm_dynamic": Checked(
        "vLLM", "vllm/model_executor/layers/rotary_embedding/__init__.py:212-242, "
                "dynamic_ntk_scaling_rope.py:53-63",
        "dynamic: base (f P / P_trained - (f - 1))^(d/(d-2)) once, with P_trained = "
        "max_trained_positions, default P: base x 1, the plain spectrum"),
    "vllm_deepseek": Checked(
        "vLLM", "vllm/model_executor/models/deepseek_v2.py:542-563",
        "every rope type but default becomes deepseek_yarn (deepseek_llama_scaling when "
        "attention_factor is 1.0), which reads factor and original_max_position_embeddings; "
        "the softmax scale is multiplied by mscale(factor, mscale_all_dim)^2"),
    "vllm_deepseek_attention": Checked(
        "vLLM", "vllm/model_executor/layers/rotary_embedding/deepseek_scaling_rope.py:32-55",
        "attention factor mscale(s, mscale) / mscale(s, mscale_all_dim), defaults 1 and 0; "
        "no attention_factor, no truncate"),
    "vllm_gpt_oss": Checked(
        "vLLM", "vllm/model_executor/models/gpt_oss.py:111-126",
        "rope type fixed to yarn; reads factor, original_max_position_embeddings, beta_fast, "
        "beta_slow (KeyError without them) and truncate"),
    "vllm_gemma3": Checked(
        "vLLM", "vllm/model_executor/models/gemma3.py:152-163",
        "each layer reads config.rope_parameters[layer_type]"),
    "sglang_overrides": Checked(
        "SGLang", "python/sglang/srt/utils/hf_transformers/config.py:405-422",
        "--json-model-override-args: a dict for a sub-config is applied with its update() "
        "(setattr per key); rope_scaling / rope_parameters dicts are merged into the current "
        "ones ({**current, **value}); anything else is set"),
    "sglang_context": Checked(
        "SGLang", "python/sglang/srt/utils/hf_transformers/common.py:677-694, "
                  "python/sglang/srt/configs/model_config.py:1291-1318, "
                  "python/sglang/srt/environ.py:320",
        "the context length is read from hf_text_config (max_position_embeddings, times "
        "factor unless original_max_position_embeddings or llama3); a larger "
        "--context-length raises ValueError, unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 "
        "(default false) turns it into a warning"),
    "sglang_get_rope": Checked(
        "SGLang", "python/sglang/srt/layers/rotary_embedding/factory.py:227-290, 311-370",
        "no ntk type; M-RoPE sections kept for default and yarn "
        "(YaRNScalingMRotaryEmbedding); yarn passes truncate (default true), beta_fast, "
        "beta_slow, mscale, mscale_all_dim and attn_factor, not attention_factor"),
    "sglang_yarn_attention": Checked(
        "SGLang", "python/sglang/srt/layers/rotary_embedding/yarn.py:27-40, 98-131, "
                  "mrope.py:442-466",
        "attention factor mscale(s, mscale) / mscale(s, mscale_all_dim) when both are given, "
        "else 0.1 ln s + 1 (always for M-RoPE, which takes no mscale keys), times attn_factor; "
        "truncate honoured"),
    "sglang_dynamic": Checked(
        "SGLang", "python/sglang/srt/layers/rotary_embedding/rope_variant.py:880-892",
        "dynamic: one base (f^2 - f + 1)^(d/(d-2)) x base for f x max_position_embeddings "
        "tokens, used at every length (static NTK with alpha = f^2 - f + 1)"),
    "sglang_deepseek": Checked(
        "SGLang", "python/sglang/srt/models/deepseek_v2.py:2063-2066, 2160-2175, 2605-2612",
        "rope_scaling is None for rope type default, else forced to deepseek_yarn; the "
        "softmax scale is multiplied by mscale(factor, mscale_all_dim)^2 "
        "(configs/model_config.py:2623-2648)"),
    "sglang_base_only": Checked(
        "SGLang", "python/sglang/srt/models/gemma2.py:154-170, 223; "
                  "python/sglang/srt/models/gpt_j.py:87-95",
        "Gemma 2's and GPT-J's attention build get_rope from the base and rotary dim alone, "
        "with no rope_scaling: only the base (rope_theta) reaches them"),
    "sglang_gemma3": Checked(
        "SGLang", "python/sglang/srt/models/gemma3_causal.py:575-603",
        "the global rotary embedding is built from rope_parameters['full_attention'] with "
        "transformers' ROPE_INIT_FUNCTIONS, the local one from 'sliding_attention''s "
        "rope_theta, unscaled"),
    "llama_cpp_flags": Checked(
        "llama.cpp", "common/arg.cpp:2334-2398",
        "--rope-scaling {none,linear,yarn}, --rope-scale N = 1 / --rope-freq-scale, "
        "--rope-freq-base, --yarn-orig-ctx, --yarn-beta-fast, --yarn-beta-slow"),
    "llama_cpp_yarn": Checked(
        "llama.cpp", "src/llama-context.cpp:115, 172-214, ggml/src/ggml-cpu/ops.cpp:6187-6202",
        "YaRN's attention factor: mscale(s, m) / mscale(s, k) when the GGUF's "
        "yarn_log_multiplier k is non-zero (m = k on DeepSeek2 when k != 1, else 1), else "
        "0.1 ln s + 1, times the GGUF's rope attn_factor; the yarn_attn_factor a converter "
        "writes (conversion/base.py:1477-1478, OLMo 3's attention_factor) is never read (no "
        "get_key for it), and a --yarn-attn-factor is overwritten whenever YaRN is active; "
        "the ramp's bounds always floored and ceiled (truncate is not read)"),
    "llama_cpp_log_mul": Checked(
        "llama.cpp", "conversion/deepseek.py:382-386; conversion/mistral3.py:24-30; "
                     "src/models/deepseek2.cpp:34-38; src/models/mistral3.cpp:3-19",
        "the converters that write yarn_log_multiplier: DeepSeek's (0.1 mscale_all_dim, read "
        "back divided by 0.1), Ministral 3's from config.json (mscale_all_dim, with "
        "llama_4_scaling_beta as the attention temperature, its floor the GGUF's original "
        "context) and the Mistral-format one (conversion/mistral.py:96-110: 1 or 0 as "
        "params.json's yarn apply_scale is false or true, so a Ministral 3 GGUF converted "
        "from params.json can get another attention factor); no other converter writes one "
        "(base.py:1483 leaves it out)"),
    "llama_cpp_no_gptj": Checked(
        "llama.cpp", "conversion/__init__.py; src/llama-model.cpp:3023-3030",
        "no converter registers GPTJForCausalLM and no graph builds GPT-J (its arch name "
        "remains, listed among the architectures without RoPE)"),
    "llama_cpp_mistral_window": Checked(
        "llama.cpp", "conversion/llama.py:17-31",
        "MistralForCausalLM converts with the Llama converter, which writes no sliding "
        "window: every layer attends to the whole context"),
    "llama_cpp_gemma4": Checked(
        "llama.cpp", "conversion/gemma.py:736-762; src/models/gemma4.cpp:192-205, 228",
        "Gemma 4's global layers rotate head_dim / 2 pairs at the flags' base and scale, "
        "the pairs past the proportional quarter frozen by a rope_freqs tensor of 1e30; "
        "the sliding layers keep the GGUF's base and scale"),
    "vllm_window": Checked(
        "vLLM", "vllm/engine/arg_utils.py:2288-2294; "
                "vllm/model_executor/layers/attention/attention.py:266-271",
        "a config without layer_types (Mistral 7B v0.1) gets its sliding_window on every "
        "layer"),
    "vllm_rope_theta": Checked(
        "vLLM", "vllm/model_executor/layers/rotary_embedding/__init__.py:63-64; "
                "vllm/config/model.py:555-570",
        "get_rope takes the base from rope_parameters['rope_theta'], 10000 when absent; a "
        "--hf-overrides dict replaces rope_parameters whole (setattr)"),
    "vllm_legacy_type": Checked(
        "vLLM", "vllm/transformers_utils/config.py:609-633",
        "a rope dict with both rope_type and type that disagree raises ValueError (su / "
        "longrope and mrope / default excepted); type alone is copied to rope_type"),
    "vllm_gemma4": Checked(
        "vLLM", "vllm/model_executor/layers/rotary_embedding/__init__.py:156-165, "
                "gemma4_rope.py:30-56; vllm/model_executor/models/gemma4.py:455-497",
        "rope type proportional builds Gemma4RotaryEmbedding from the base of "
        "rope_parameters[layer_type] (rope_theta), which takes no factor"),
    "vllm_ministral3": Checked(
        "vLLM", "vllm/model_executor/models/mistral.py:106-137; "
                "vllm/model_executor/models/registry.py:178; "
                "vllm/model_executor/models/mistral3.py:497-502; "
                "vllm/transformers_utils/configs/mistral.py:58-67; "
                "vllm/transformers_utils/config.py:889-900; "
                "vllm/model_executor/model_loader/default_loader.py:168-197, 236-254",
        "Ministral3ForCausalLM runs as MistralForCausalLM, built from text_config, whose "
        "MistralAttention scales its queries only when the config has llama_4_scaling "
        "(original_max_position_embeddings, beta), which vLLM sets itself from a Mistral-format "
        "params.json only (config.json's rope_parameters.llama_4_scaling_beta is not read): "
        "--hf-overrides can add it to text_config; --config-format auto reads params.json "
        "where the repository has it and consolidated*.safetensors, --config-format hf "
        "--load-format hf keep config.json and its weights (the index filters out the "
        "consolidated file)"),
    "sglang_mistral_window": Checked(
        "SGLang", "python/sglang/srt/models/mistral.py:33-34; "
                  "python/sglang/srt/models/llama.py:233-241",
        "MistralForCausalLM is LlamaForCausalLM, whose RadixAttention is built without a "
        "sliding window: every layer attends to the whole context"),
    "sglang_gemma4": Checked(
        "SGLang", "python/sglang/srt/layers/rotary_embedding/factory.py:428-436, "
                  "rope_variant.py:895; python/sglang/srt/models/gemma4_causal.py:388-423; "
                  "python/sglang/srt/models/gemma4_mm.py:242-244",
        "rope type proportional builds Gemma4RotaryEmbedding from text_config's "
        "rope_parameters[layer_type] rope_theta, which takes no factor"),
    "sglang_ministral3": Checked(
        "SGLang", "python/sglang/srt/models/ministral3.py:60, 82-96, 117-128",
        "queries scaled by 1 + beta ln(1 + floor(p / L)), beta = rope_parameters["
        "'llama_4_scaling_beta'], L = the config's original_max_position_embeddings "
        "(16384 when absent)"),
    "transformers_ministral3": Checked(
        "transformers", "src/transformers/models/ministral3/modeling_ministral3.py:105-107, "
                        "147-151; configuration_ministral3.py:71",
        "queries scaled by 1 + beta ln(1 + floor(p / L)) with beta and L read from "
        "rope_parameters (llama_4_scaling_beta, original_max_position_embeddings): without "
        "them the attention raises TypeError"),
    "transformers_proportional": Checked(
        "transformers", "src/transformers/modeling_rope_utils.py:194-267",
        "proportional: theta_i = base^(-2i/head_dim) for the first partial_rotary_factor "
        "share of the pairs, 0 for the rest, all divided by factor (default 1)"),
    "transformers_rope_theta": Checked(
        "transformers", "src/transformers/modeling_rope_utils.py:775-852",
        "a config.json's rope_scaling wins over its rope_parameters; the top-level "
        "rope_theta (else the class default) is copied into rope_parameters where that "
        "has none; a rope dict's type is copied to rope_type only when rope_type is "
        "absent"),
    "transformers_window": Checked(
        "transformers", "src/transformers/models/mistral/modeling_mistral.py:173, 355",
        "Mistral's attention applies config.sliding_window"),
    "llama_cpp_rope_freqs": Checked(
        "llama.cpp", "conversion/llama.py:17-30, 298-326, 363-440; conversion/base.py:"
                     "1490-1492; conversion/exaone.py:17-60, 63-125; src/models/llama.cpp:"
                     "66, 140-153; src/models/smollm3.cpp:83-93",
        "llama3 scaling exists only as a rope_freqs tensor that the converters of the Llama "
        "family (Llama, Mistral, Mixtral, Llama 4, Arcee, Apertus) and EXAONE write and "
        "their graphs apply; SmolLM3's graph ignores it; every other converter writes none"),
    "llama_cpp_deepseek": Checked(
        "llama.cpp", "src/models/deepseek2.cpp:34-38, 436-443; conversion/deepseek.py:382-386",
        "kq_scale x (a_org (1 + 0.1 k ln(1/freq_scale)))^2 with a_org = attn_factor (1 + "
        "0.1 ln(1/freq_scale)), whatever the scaling type"),
    "llama_cpp_swa": Checked(
        "llama.cpp", "src/llama-model.cpp:2329-2335; src/models/gemma2.cpp:7-11, 78-101; "
                     "src/models/openai-moe.cpp:10-13, 77-97; src/models/afmoe.cpp:15-21, "
                     "129-130; src/models/llama4.cpp:13-23",
        "sliding-window (and Llama 4's chunked) layers of Gemma 2, Gemma 3, gpt-oss, Trinity "
        "(afmoe) and Llama 4 rotate with the base and scale of the GGUF, whatever the flags, "
        "while ext_factor and the attention factor are the flags' for every layer "
        "(src/llama-context.cpp:172-214): gpt-oss's with --rope-scaling linear or none run "
        "plain interpolation by its GGUF's 32 with a = 1"),
    "llama_cpp_swa_base": Checked(
        "llama.cpp", "src/models/olmo2.cpp:3-16, 115-131",
        "OLMo 3 (GGUF arch olmo2) rotates its sliding-window layers with the flags' "
        "freq_base at scale 1, ext_factor 0 and attention factor 1: --rope-freq-base reaches "
        "them too"),
    "llama_cpp_context": Checked(
        "llama.cpp", "tools/server/server-context.cpp:1190-1216, 4008-4016; "
                     "src/llama-model.cpp:1321, 1410-1411; conversion/base.py:1436-1439; "
                     "common/arg.cpp:2935-2945; src/llama-model-loader.cpp:225-234",
        "llama-server caps every slot at the GGUF's context_length (n_ctx_train, which the "
        "converters write from max_position_embeddings) whatever -c says, only warning "
        "\"capping\"; --override-kv <arch>.context_length=int:T raises it (an int override "
        "sets any integer key); the GGUF's rope.scaling.original_context_length, else "
        "context_length, is YaRN's default original context"),
    "llama_cpp_longrope": Checked(
        "llama.cpp", "src/llama-model.cpp:2337-2350",
        "LongRoPE's long factors are used when n_ctx_seq (the context of -c) exceeds the "
        "GGUF's original context, the short ones otherwise: chosen once per context, not per "
        "input"),
    "sglang_olmo3": Checked(
        "SGLang", "python/sglang/srt/configs/olmo3.py:30-100; "
                  "python/sglang/srt/utils/hf_transformers/common.py:117-139; "
                  "python/sglang/srt/models/olmo2.py:103-143",
        "SGLang reads OLMo 3 with its own flat Olmo3Config (rope_theta, rope_scaling): an "
        "override of rope_scaling is merged into that one dict ({**current, **value}), a "
        "nested one adds keys nothing reads; olmo2.py gives the full-attention layers that "
        "dict and the sliding ones rope type default, both at the base of get_rope_config"),
    "sglang_outer_lm": Checked(
        "SGLang", "python/sglang/srt/utils/hf_transformers/config.py:258-268; "
                  "python/sglang/srt/models/qwen2_vl.py:478-480; "
                  "python/sglang/srt/models/qwen2_5_vl.py:720-724; "
                  "python/sglang/srt/models/qwen3_vl.py:1343-1360; "
                  "python/sglang/srt/models/qwen2.py:273; "
                  "python/sglang/srt/models/qwen3.py:375-385",
        "at load SGLang copies every text_config attribute the outer config lacks onto it "
        "(the same rope dict); the language model of Qwen2-VL, Qwen2.5-VL and dense Qwen3-VL "
        "is built from the outer config, so an override of text_config alone leaves it the "
        "old rope dict (the context length is read from text_config)"),
    "sglang_gemma3_dynamic": Checked(
        "SGLang", "python/sglang/srt/models/gemma3_causal.py:415-502, 649-653",
        "Gemma 3's rotary embedding is transformers' ROPE_INIT_FUNCTIONS with a "
        "transformers-style dynamic update from torch.max(position_ids) + 1 over the whole "
        "batch's positions (one row), L = max_position_embeddings"),
    "vllm_chatglm": Checked(
        "vLLM", "vllm/model_executor/models/chatglm.py:97-115; "
                "vllm/transformers_utils/configs/chatglm.py:52-54; "
                "vllm/transformers_utils/model_arch_config_convertor.py:374-398",
        "ChatGLM rotates half of each head with base 10000 x rope_ratio, rope type default, "
        "for seq_length positions; its config copies seq_length to max_position_embeddings "
        "at load, and max_model_len is the smallest of those keys"),
    "sglang_chatglm": Checked(
        "SGLang", "python/sglang/srt/models/chatglm.py:101-110; "
                  "python/sglang/srt/configs/chatglm.py:55-57; "
                  "python/sglang/srt/utils/hf_transformers/common.py:660-694",
        "ChatGLM rotates half of each head with base 10000 x rope_ratio for seq_length "
        "positions; the context length is read from seq_length (before "
        "max_position_embeddings)"),
    "vllm_transformers_backend": Checked(
        "vLLM", "vllm/model_executor/models/registry.py:747-768",
        "GPTNeoXForCausalLM, Olmo3ForCausalLM and SmolLM3ForCausalLM are listed among the "
        "models vLLM runs with its Transformers backend (TransformersForCausalLM), whose "
        "rotation is transformers' own (the --hf-overrides reach transformers' config "
        "class), not vLLM's get_rope: the get_rope entries above (YaRN's attention factor, "
        "dynamic) do not apply to them, with the same result for these lines"),
}

# rope_core parameters that are not keys of transformers' rope_parameters
_NOT_HF = ("max_position_embeddings",)
# HF defaults of yarn: written only when they differ or the model's config names them
_YARN_DEFAULTS = {"beta_fast": 32.0, "beta_slow": 1.0, "truncate": True}
# families whose rope dims come from their own fields, not partial_rotary_factor
_OWN_ROTARY_FIELD = ("gptj", "deepseek_v2", "deepseek_v3", "chatglm")
# DeepSeek's families: the engines' deepseek_v2 code turns their rope type into deepseek_yarn
# and scales the softmax by mscale(factor, mscale_all_dim)^2 (CHECKED vllm_deepseek, ...)
_DEEPSEEK = ("deepseek_v2", "deepseek_v3")
# config classes of transformers 5.24 that accept only some rope types (their validate_rope,
# models/<family>/configuration_<family>.py); Phi3Config also turns "yarn" into "longrope"
_HF_TYPES_ONLY = {"phi3": ("default", "longrope"), "phi4_multimodal": ("default", "longrope"),
                  "hunyuan_v1_moe": ("default", "linear", "dynamic")}
# model types whose transformers 5.24 config class moves a FLAT config.json's text fields
# into a text_config sub-config (Qwen2VLConfig.__post_init__, models/qwen2_vl/
# configuration_qwen2_vl.py:169-177; Qwen2_5_VLConfig likewise): vLLM and SGLang read
# that sub-config, so their overrides go under "text_config" (CHECKED vllm_overrides)
_TEXT_SUBCONFIG = ("qwen2_vl", "qwen2_5_vl")
# model types whose llama.cpp converter writes llama3 as a rope_freqs tensor that their
# graph applies (CHECKED llama_cpp_rope_freqs)
_LLAMA_CPP_ROPE_FREQS = ("llama", "mistral", "mixtral", "llama4", "llama4_text", "arcee",
                         "apertus", "exaone", "exaone4")
# model types whose llama.cpp graph keeps the sliding layers' GGUF base and scale
# (CHECKED llama_cpp_swa; Gemma 4's: llama_cpp_gemma4); ext_factor and the attention factor
# are the flags' for every layer (llama-context.cpp:172-214), so windowed layers that the
# spectrum shown scales (Gemma 2, gpt-oss) get no line (_llama_cpp_window_refusal)
_LLAMA_CPP_SWA_KEPT = ("gemma2", "gemma3", "gemma3_text", "gpt_oss", "afmoe", "llama4",
                       "llama4_text", "gemma4", "gemma4_text")
# model types that llama.cpp has no converter (or graph) for (CHECKED llama_cpp_no_gptj)
_LLAMA_CPP_NONE = ("gptj",)
# model types whose llama.cpp converter writes yarn_log_multiplier from mscale_all_dim
# (CHECKED llama_cpp_log_mul); DeepSeek's also makes mscale equal to it when it is not 1
_LLAMA_CPP_LOG_MUL = _DEEPSEEK + ("ministral3",)
# model types that llama.cpp runs without the sliding window of their config.json
# (Mistral 7B v0.1: CHECKED llama_cpp_mistral_window), and likewise SGLang
# (CHECKED sglang_mistral_window)
_LLAMA_CPP_NO_WINDOW = ("llama", "mistral")
_SGLANG_NO_WINDOW = ("llama", "mistral")
# model types whose SGLang attention reads the base and nothing else of the rope dict
# (CHECKED sglang_base_only): static ntk (a base change) is the only method that reaches them
_SGLANG_BASE_ONLY = ("gemma2", "gptj")
# model types whose transformers 5.24 config class sets a config.json's leftover
# "rope_scaling" through the deprecated setter after building rope_parameters, so that
# "rope_scaling": null erases them (Gemma4TextConfig; tests/test_core_serving.py): their
# entry leaves rope_scaling out (their config.json has none: it keeps rope_parameters)
_NO_NULL_ROPE_SCALING = ("gemma4", "gemma4_text")
# the GGUF architecture (general.architecture, the prefix of its keys such as
# <arch>.context_length) that llama.cpp's converter writes for each model type: the class
# registered for the model's architecture in conversion/ and its model_arch, named in
# gguf-py/gguf/constants.py MODEL_ARCH_NAMES (CHECKED llama_cpp_context)
_GGUF_ARCH = {
    "llama": "llama", "mistral": "llama", "qwen2": "qwen2", "gemma2": "gemma2",
    "gemma3": "gemma3", "gemma3_text": "gemma3", "phi3": "phi3", "deepseek_v2": "deepseek2",
    "deepseek_v3": "deepseek2", "gpt_neox": "gptneox", "chatglm": "chatglm",
    "qwen2_vl": "qwen2vl", "qwen2_5_vl": "qwen2vl", "llama4": "llama4",
    "llama4_text": "llama4", "qwen3": "qwen3", "gpt_oss": "gpt-oss", "glm4": "glm4",
    "cohere2": "cohere2", "smollm3": "smollm3", "qwen3_vl": "qwen3vl",
    "qwen3_vl_text": "qwen3vl", "gemma4": "gemma4", "gemma4_text": "gemma4",
    "deepseek_v4": "deepseek4", "qwen3_next": "qwen3next", "qwen3_5": "qwen35",
    "qwen3_5_text": "qwen35", "exaone4": "exaone4", "olmo3": "olmo2", "glm4_moe": "glm4moe",
    "minimax_m2": "minimax-m2", "ministral3": "mistral3", "afmoe": "afmoe", "lfm2": "lfm2",
    "granitemoehybrid": "granitehybrid"}
# the context_length Granite's hybrid converter writes when its attention uses no RoPE
# (conversion/granite.py:515-521: 2**20), instead of max_position_embeddings
_GGUF_NO_ROPE_CONTEXT = {"granitemoehybrid": 2 ** 20}
# model types whose llama.cpp graph rotates the sliding layers with the flags' base but
# scale 1, no YaRN ramp and attention factor 1 (src/models/olmo2.cpp:115-131, OLMo 3):
# a new base reaches them too (CHECKED llama_cpp_swa_base)
_LLAMA_CPP_SWA_FLAG_BASE = ("olmo3",)
# model types that SGLang 0.5.23 reads with a flat config class of its own, whose
# rope_scaling (a single dict) the full-attention layers take and the sliding ones replace
# by the plain rotation at the same base (configs/olmo3.py, models/olmo2.py:104, 131-143;
# CHECKED sglang_olmo3)
_SGLANG_FLAT_ROPE = ("olmo3",)
# model types whose SGLang language model is built from the OUTER config, onto which SGLang
# copied text_config's attributes at load (utils/hf_transformers/config.py:258-268): an
# override must set the outer keys, and text_config's for the context length (CHECKED
# sglang_outer_lm)
_SGLANG_OUTER_LM = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl_text")
# model types whose SGLang Gemma 3 code recomputes dynamic NTK itself, per batch
# (CHECKED sglang_gemma3_dynamic)
_SGLANG_GEMMA3 = ("gemma3", "gemma3_text")
# the largest extension factor s among the published recipes read here: DeepSeek-V3's YaRN,
# factor 40 from 4,096 (its config.json; its model card's needle-in-a-haystack test runs
# to 128K tokens); a larger s is warned about (serving_notes, "extreme")
PUBLISHED_MAX_FACTOR = 40.0
_RELATIVE = 1e-9  # a factor "equals" T / L within this relative tolerance


def _mscale(s: float, k: float = 1.0) -> float:
    """YaRN's m(s, k) = 0.1 k ln s + 1 (1 for s <= 1), ``yarn_get_mscale`` in every engine."""
    return 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1.0


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
    dropped: tuple = ()  # (name, value) of the model's own parameters left out (stale)


def reach(config: RopeConfig) -> int:
    """The context ``config`` already reaches: ``max_context`` when its own scaling takes
    it there, else ``original_context`` (where it was trained)."""
    _check_config(config)
    return config.max_context if config.method != "none" else config.original_context


def _check_config(config) -> None:
    if not isinstance(config, RopeConfig):
        fail("config", type(config).__name__, "a RopeConfig")


@dataclasses.dataclass(frozen=True)
class LayerCounts:
    """How a model's layers meet its RoPE (:func:`layer_counts`).

    Attributes:
        layers: number of layers (None: the config gives none; then every count is 0).
        rope: layers that rotate q and k.
        nope: layers without positions (no RoPE): untouched by any setting here.
        windowed: RoPE layers with sliding-window or chunked attention.
        local: windowed RoPE layers that rotate with their own unscaled base (Gemma 3's
            sliding layers), which every entry keeps.
        window: the tokens a windowed layer sees (None when no layer is windowed).
        local_base: the base of those local layers (None: every RoPE layer rotates with the
            main spectrum); given also when the config gives no layers.
    """

    layers: int | None
    rope: int
    nope: int
    windowed: int
    local: int
    window: int | None
    local_base: float | None


def layer_counts(config: RopeConfig) -> LayerCounts:
    """The layers of ``config`` counted by what a RoPE setting does to them. The one place
    in this module that reads a config's layers (:meth:`RopeConfig.groups`): a local
    layer is a sliding-window RoPE layer whose RoPE is its own (another base, method or
    parameters than the main spectrum, its own entry of transformers' nested
    rope_parameters: Gemma 3, OLMo 3), which every entry keeps."""
    _check_config(config)
    local_base = _local_base(config)
    if config.layer_specs is None:
        return LayerCounts(None, 0, 0, 0, 0, None, local_base)
    groups = config.groups()
    rope = [g for g in groups if g.spec.rotates]
    n_rope = sum(len(g.layers) for g in rope)
    windowed = [g for g in rope if g.spec.windowed]
    local = sum(len(g.layers) for g in windowed if g.spec.attention == "sliding"
                and g.spec.base == local_base) if local_base is not None else 0
    window = min(g.spec.window for g in windowed) if windowed else None
    nope = sum(len(g.layers) for g in groups if g.spec.kind == "nope")
    return LayerCounts(config.layers, n_rope, nope, sum(len(g.layers) for g in windowed),
                       local, window, local_base)


def _local_base(cfg: RopeConfig) -> float | None:
    """The base of the sliding-window layers where they keep a RoPE of their own beside the
    main spectrum, under the layer-type names of transformers' nested rope_parameters
    (``sliding_attention``), else None."""
    if cfg.layer_specs is None or family([cfg.family])[1].rope_labels is not None:
        return None
    main = cfg.main_spec()
    for group in cfg.groups():
        spec = group.spec
        if spec.rotates and spec.attention == "sliding" and \
                (spec.base, spec.method, spec.params) != (main.base, main.method, main.params):
            return spec.base
    return None


def _own_factor(cfg: RopeConfig) -> float | None:
    """The factor of the model's own scaling: its ``factor``, else (LongRoPE)
    max_position_embeddings / original_max_position_embeddings; None without one."""
    if cfg.method == "none":
        return None
    own = resolve_params(cfg.method, cfg.rotary_dim, cfg.params_dict)
    factor = own.get("factor")
    if factor is None and own.get("max_position_embeddings") is not None:
        factor = own["max_position_embeddings"] / own["original_max_position_embeddings"]
    return factor


def built_context(config: RopeConfig) -> int | None:
    """The context the model's own scaling is built for, f L (its factor f times its L,
    ``original_context``): Llama 4 Scout's llama3 x16 from 8,192 is built for 131,072, not
    its configured 10,485,760; None for a model without scaling of its own."""
    _check_config(config)
    factor = _own_factor(config)
    return None if factor is None else int(round(factor * config.original_context))


def _proportional(cfg: RopeConfig) -> bool:
    """Whether the main spectrum is Gemma 4's proportional RoPE: theta_i over the whole head
    dim, of which only the first pairs rotate."""
    return cfg.theta_dim not in (None, cfg.rotary_dim)


def _query_scale_length(cfg: RopeConfig) -> int | None:
    """L of Mistral's query scale 1 + beta ln(1 + floor(p / L)) (llama_4_scaling_beta), or
    None for a model without it."""
    scale = cfg.query_scale
    return int(scale[1]) if scale and scale[0] == "llama_4_scaling_beta" else None


def _layer_refusal(cfg: RopeConfig, engine: str, method: str) -> dict | None:
    """A refusal where no line can give the spectrum shown: a model with layers of which
    none rotates (Granite 4.0-H), DeepSeek-V4 (its layers read named rope_parameters
    entries, main and compress) and Gemma 4's global layers (proportional RoPE: theta over
    the whole head dim, of which a quarter rotates) with any method but linear, which
    transformers' proportional type runs as its factor (CHECKED transformers_proportional)."""
    counts = layer_counts(cfg)
    if counts.layers is not None and counts.rope == 0:
        return _refusal(engine, Message(
            "{engine} is not given a line for {method}: none of {model}'s {layers} layers "
            "rotates its queries and keys (its attention layers use no position embedding), "
            "so no RoPE setting changes it; what limits its context is not RoPE.",
            engine=engine, method=method, model=cfg.name, layers=counts.layers))
    labels = family([cfg.family])[1].rope_labels
    if cfg.layer_specs is not None and labels is not None:
        return _refusal(engine, Message(
            "{engine} is not given a line for {method} here: this model's layers read their "
            "RoPE from named entries of `rope_parameters` ({labels}), which these settings do "
            "not write.", engine=engine, method=method,
            labels=", ".join(dict.fromkeys(v for _k, v in labels))))
    if _proportional(cfg) and method not in ("linear", "ntk"):
        return _refusal(engine, Message(
            "{engine} is not given a line for {method} here: this model's global layers use "
            "proportional RoPE (θᵢ over the whole head dim {theta_dim}, of which {rotary} "
            "dims rotate). transformers' `proportional` type takes a `factor`, which "
            "divides every θᵢ (choose `linear`), and a base, `rope_theta` (choose `ntk`), "
            "and nothing else; {method} would compute θᵢ over the {rotary} rotated dims "
            "instead.", engine=engine, method=method,
            theta_dim=cfg.theta_dim, rotary=cfg.rotary_dim))
    return None


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
    query_length = _query_scale_length(config)
    if query_length is not None and original != query_length:
        fail("original_max_position_embeddings", original, "{length}: {model} multiplies its "
             "queries by 1 + β ln(1 + ⌊p / L⌋) with L read from the same key of "
             "`rope_parameters` (transformers' Ministral3Attention), so another L would change "
             "that scale too", length=query_length, model=config.name)
    scale = target / original
    if scale > MAX_FACTOR:
        fail("target_context", target, "at most {most} × L = {most} × {original} tokens",
             most=f"{MAX_FACTOR:g}", original=original)
    given_max = params.pop("max_position_embeddings", None)
    if given_max is not None and given_max != target:
        fail("max_position_embeddings", given_max, "target_context = {target} (it is the "
             "target)", target=target)

    own = config.params_dict if method == config.method else {}
    dropped = ()
    if method == "yarn" and own.get("attention_factor") is not None and \
            params.get("attention_factor") is None:
        # an attention_factor equal to YaRN's rule 0.1 ln f + 1 for the model's own factor f
        # is that rule's value, stale at another s: left out, every engine derives it from s
        own_factor = own.get("factor") or own.get("max_position_embeddings", 0) / \
            own["original_max_position_embeddings"]
        stale = own["attention_factor"]
        if abs(stale - _mscale(own_factor)) <= 1e-9 * stale and \
                abs(own_factor - scale) > _RELATIVE * scale:
            dropped = (("attention_factor", stale),)
    own = {k: v for k, v in own.items()
           if k not in ("factor", "original_max_position_embeddings", "max_position_embeddings")
           and k not in dict(dropped)}
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
    d = config.theta_dim or config.rotary_dim  # proportional RoPE: the whole head's spectrum
    if method == "ntk" and d > 2:
        base = config.base * scale ** (d / (d - 2))
    return _Plan(config, target, method, original, scale, merged, resolved, named, base,
                 dropped)


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
            if m == "dynamic" and name == "original_max_position_embeddings":
                continue  # transformers 5.24 takes dynamic NTK's L from max_position_embeddings
                # and warns about this key ("Unrecognized keys", _validate_dynamic_rope_parameters)
            value = p[name]
            if m == "yarn" and name in _YARN_DEFAULTS and name not in plan.named and \
                    value == _YARN_DEFAULTS[name] and plan.config.family != "gpt_oss":
                continue  # transformers' default, not named by the model or the caller
                # (vLLM's gpt_oss.py reads beta_fast and beta_slow without a default)
            if isinstance(value, tuple):
                out[name] = [_number(v) for v in value]
            elif isinstance(value, bool):
                out[name] = value
            else:
                out[name] = _number(value)
    cfg = plan.config
    if m in ("linear", "ntk") and _proportional(cfg):
        # Gemma 4: base^(-2i/head_dim) over the head's spectrum, inv_freq /= factor (linear)
        # or at base' (ntk: a change of rope_theta)
        out["rope_type"] = "proportional"
    if cfg.rotary_dim < cfg.head_dim and cfg.family not in _OWN_ROTARY_FIELD:
        out["partial_rotary_factor"] = cfg.rotary_dim / cfg.head_dim
    query_length = _query_scale_length(cfg)
    if query_length is not None:
        # Ministral 3: its attention reads both keys from rope_parameters for its query scale
        # (CHECKED transformers_ministral3), whatever the rope type
        out["llama_4_scaling_beta"] = _number(cfg.query_scale[2])
        out.setdefault("original_max_position_embeddings", query_length)
    section = getattr(cfg, "mrope_section", None)  # Qwen2-VL: kept with the new scaling
    if section is not None:
        out["mrope_section"] = list(section)
        if getattr(cfg, "mrope_interleaved", False):
            out["mrope_interleaved"] = True
    return out


def _per_layer_type(plan: _Plan, dims: dict) -> dict:
    """``dims``, or for a model whose local layers keep their own base (Gemma 3) one dict
    per layer type as transformers 5 writes it."""
    counts = layer_counts(plan.config)
    if counts.local_base is None:
        return dims
    return {"full_attention": dims,
            "sliding_attention": {"rope_type": "default", "rope_theta": counts.local_base}}


def _hf_softmax(plan: _Plan) -> float:
    """What transformers multiplies the softmax scale by after the change, outside RoPE:
    DeepSeek's ``yarn_apply_mscale`` (models/deepseek_v3/modeling_deepseek_v3.py:268-273),
    mscale(factor, mscale_all_dim)^2 for a rope type other than default with a non-zero
    mscale_all_dim in the dict; 1 for every other family."""
    if plan.config.family not in _DEEPSEEK:
        return 1.0
    dims = _rope_parameters(plan)
    k = dims.get("mscale_all_dim")
    if dims["rope_type"] == "default" or not k:
        return 1.0
    return _mscale(dims["factor"], k) ** 2


def _nested(plan: _Plan, engine: str) -> bool:
    """True when ``engine``'s settings go under "text_config": transformers when the
    config.json has one; vLLM and SGLang whenever transformers' config class has a text
    sub-config, since they apply overrides to the outer config object."""
    cfg = plan.config
    if engine == "transformers":
        return cfg.text_config
    return cfg.text_config or cfg.family in _TEXT_SUBCONFIG


def extended_config(config: RopeConfig, target_context: int, method: str,
                    **params) -> RopeConfig:
    """The model after the change: ``config`` with ``method`` and its parameters, L =
    ``original_context``, T = ``max_context`` and the softmax-scale multiplier transformers
    gives the new settings (DeepSeek's mscale(factor, mscale_all_dim)^2, or 1); its
    ``theta(n)`` is the ``(rotary_dim/2,)`` spectrum every entry of :func:`engine_settings`
    gives the engines (the other fields, local-layer base included, stay as they are).
    Same arguments as :func:`engine_settings`."""
    plan = _plan(config, target_context, method, params)
    return dataclasses.replace(config, method=plan.method, params=plan.params,
                               original_context=plan.original, max_context=plan.target,
                               softmax_scale=_hf_softmax(plan))


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


def _factors(plan: _Plan, engine: str) -> tuple[float, float]:
    """(a, m) as ``engine``'s code computes them for its entry: a multiplies cos and sin
    (for q and for k), m the softmax scale outside RoPE (CHECKED *_yarn_attention,
    *_deepseek, llama_cpp_yarn). transformers' are rope_core's a and :func:`_hf_softmax`.
    Only yarn, and for llama.cpp linear, have engine-specific rules; every other method
    gives a = 1 (LongRoPE: transformers' rule) and m = 1 outside DeepSeek."""
    cfg, m = plan.config, plan.method
    s, p = plan.scale, _rope_parameters(plan)
    deepseek = cfg.family in _DEEPSEEK
    if engine == "transformers" or m not in ("yarn", "linear"):
        _theta, a = scaled_theta(cfg.rotary_dim, plan.base, m if m != "ntk" else "none",
                                 **(plan.params if m != "ntk" else {}))
        return a, (_hf_softmax(plan) if engine == "transformers" or m == "ntk" else 1.0)
    mscale, k = p.get("mscale"), p.get("mscale_all_dim")
    if engine == "llama.cpp":
        # the GGUF keeps the yarn_log_multiplier k its converter wrote from the model's own
        # config: DeepSeek's and Ministral 3's (CHECKED llama_cpp_log_mul), else none
        log_mul = (cfg.params_dict.get("mscale_all_dim") or 0.0) \
            if cfg.family in _LLAMA_CPP_LOG_MUL else 0.0
        if m == "linear":  # ext_factor 0: cos and sin x 1; DeepSeek's kq_scale still grows
            return 1.0, ((_mscale(s) * _mscale(s, log_mul)) ** 2 if deepseek else 1.0)
        # yarn (llama-context.cpp): yarn_attn_factor = m(s, mscale) / m(s, k) when k != 0
        # (mscale = k on DeepSeek2 when k != 1, else 1), else m(s); then divided by m(s),
        # which rope_yarn multiplies back
        if log_mul:
            numerator = log_mul if deepseek and log_mul != 1.0 else 1.0
            a = _mscale(s, numerator) / _mscale(s, log_mul)
        else:
            a = _mscale(s)
        attn = a / _mscale(s)
        return a, ((attn * _mscale(s) * _mscale(s, log_mul)) ** 2 if deepseek else 1.0)
    if m == "linear":
        return 1.0, 1.0
    if deepseek:  # DeepseekScalingRotaryEmbedding (vLLM and SGLang alike), then the softmax
        a = _mscale(s, float(mscale if mscale is not None else 1.0)) / \
            _mscale(s, float(k if k is not None else 0.0))
        return a, _mscale(s, float(k or 0.0)) ** 2
    if engine == "vLLM":  # transformers' rule
        af = p.get("attention_factor")
        if af is not None:
            return float(af), 1.0
        return (_mscale(s, mscale) / _mscale(s, k) if mscale and k else _mscale(s)), 1.0
    # SGLang: attention_factor is not read; both mscale keys give the ratio, except M-RoPE
    if cfg.mrope_section is None and mscale is not None and k is not None:
        return _mscale(s, mscale) / _mscale(s, k), 1.0
    return _mscale(s), 1.0


def _factor_refusal(plan: _Plan, engine: str, where: str) -> dict | None:
    """A refusal when ``engine`` would scale cos and sin or the softmax otherwise than
    transformers (rope_core) does for the same settings."""
    a_ref, m_ref = _factors(plan, "transformers")
    a, m = _factors(plan, engine)
    if abs(a - a_ref) <= 1e-9 * a_ref and abs(m - m_ref) <= 1e-9 * m_ref:
        return None
    return _refusal(engine, Message(
        "{engine} cannot run {method} with these parameters: its code ({where}) multiplies "
        "cos and sin by a = {a} and the softmax scale by {m}, where transformers (and the "
        "spectrum shown) give a = {a_ref} and {m_ref}.",
        engine=engine, method=plan.method, where=where, a=f"{a:.4f}", m=f"{m:.4f}",
        a_ref=f"{a_ref:.4f}", m_ref=f"{m_ref:.4f}"))


def _transformers(plan: _Plan) -> dict:
    cfg, m = plan.config, plan.method
    refusal = _layer_refusal(cfg, "transformers", m)
    if refusal is not None:
        return refusal
    if cfg.family == "gptj":
        return _refusal("transformers", Message(
            "{engine} cannot run {method} for GPT-J: transformers' GPT-J code builds its rotation "
            "from base 10000 and `rotary_dim` alone (`modeling_gptj.create_sinusoidal_positions`) "
            "and reads no `rope_parameters`.",
            engine="transformers", method=m))
    if cfg.family == "chatglm":
        if m != "ntk":
            return _refusal("transformers", Message(
                "{engine} cannot run {method} for ChatGLM: ChatGLM runs as remote code "
                "(`modeling_chatglm.py`), whose base is 10000 · `rope_ratio` and which reads no "
                "rope scaling keys: only static `ntk`, a change of base, reaches it.",
                engine="transformers", method=m))
        settings = _chatglm_keys(plan)
        return _entry("transformers", settings, _pretty(settings), (Message(
            "ChatGLM runs as remote code, the `modeling_chatglm.py` shipped with the "
            "checkpoint: the one of chatglm3-6b-32k (which vLLM's and SGLang's `chatglm.py` "
            "cite) rotates with base 10000 · `rope_ratio` and builds its rotation for "
            "`seq_length` positions; a copy that hard-codes base 10000 (early chatglm3-6b "
            "files) ignores `rope_ratio`: use one that reads it."),))
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
    keys = {"rope_parameters": _per_layer_type(plan, dims),
            "max_position_embeddings": plan.original if m == "dynamic" else plan.target}
    if cfg.family not in _NO_NULL_ROPE_SCALING:
        keys["rope_scaling"] = None
    if m in ("yarn", "llama3", "longrope"):
        keys["original_max_position_embeddings"] = plan.original
    settings = {"text_config": keys} if _nested(plan, "transformers") else keys
    notes = []
    if m == "dynamic":
        notes.append(Message("transformers' dynamic NTK takes L from "
                             "`max_position_embeddings`, so it stays {original}; the spectrum "
                             "then follows each input's length.", original=plan.original))
    if _query_scale_length(cfg) is not None and m not in ("yarn", "llama3", "longrope"):
        notes.append(Message(
            "`original_max_position_embeddings` and `llama_4_scaling_beta` stay in "
            "`rope_parameters` for the query scale, which `Ministral3Attention` reads from "
            "there (without them it raises `TypeError`); transformers logs `Unrecognized "
            "keys` for the first with rope type `{rope_type}`.",
            rope_type=dims["rope_type"]))
    return _entry("transformers", settings, _pretty(settings), notes)


def _chatglm_keys(plan: _Plan, engine: str = "transformers") -> dict:
    """ChatGLM's keys for static NTK: its code rotates with base 10000 · ``rope_ratio`` (vLLM
    chatglm.py:98-102, SGLang chatglm.py:101-107, THUDM's modeling_chatglm.py), so
    rope_ratio = base' / 10000; its context is ``seq_length``, and vLLM and SGLang also
    read ``max_position_embeddings``, which their ChatGLMConfig copies from it at load
    (vLLM serves at most the smaller of the two: CHECKED chatglm_rope_ratio)."""
    keys = {"rope_ratio": plan.base / 10000.0, "seq_length": plan.target}
    if engine != "transformers":
        keys["max_position_embeddings"] = plan.target
    return keys


def _served_json(plan: _Plan, engine: str) -> dict:
    """The overrides vLLM (``rope_parameters``) or SGLang (``rope_scaling`` as Qwen's cards
    write it, plus ``rope_theta``) apply, under "text_config" where that is what the engine
    reads (:func:`_nested`); for SGLang's Qwen2-VL, Qwen2.5-VL and Qwen3-VL, whose language
    model reads the outer config, at the top level as well (CHECKED sglang_outer_lm); for
    SGLang's OLMo 3 flat (its own config class: CHECKED sglang_olmo3); for vLLM's Ministral 3
    with the ``llama_4_scaling`` its attention reads (CHECKED vllm_ministral3)."""
    cfg = plan.config
    if cfg.family == "chatglm":
        return _chatglm_keys(plan, engine)
    dims = _rope_parameters(plan)
    key = "rope_parameters" if engine == "vLLM" else "rope_scaling"
    flat = engine == "SGLang" and cfg.family in _SGLANG_FLAT_ROPE
    keys = {key: dims if flat else _per_layer_type(plan, dims),
            "max_position_embeddings": plan.target}
    counts = layer_counts(cfg)
    if engine == "SGLang" and (counts.local_base is None or flat):
        # transformers 4 (SGLang's models then read the top-level rope_theta) and 5 alike
        keys["rope_theta"] = plan.base
    if plan.method in ("yarn", "llama3", "longrope") or (
            engine == "SGLang" and _query_scale_length(cfg) is not None):
        # (SGLang's Ministral 3 takes its query scale's L from this key, 16384 when absent:
        # CHECKED sglang_ministral3)
        keys["original_max_position_embeddings"] = plan.original
    if engine == "vLLM":
        keys.update(_llama_4_scaling(cfg))
    if not _nested(plan, engine):
        return keys
    if engine == "SGLang" and cfg.family in _SGLANG_OUTER_LM:
        return {**keys, "text_config": dict(keys)}
    return {"text_config": keys}


def _llama_4_scaling(cfg: RopeConfig) -> dict:
    """The key vLLM's MistralAttention reads for Mistral's query scale 1 + beta ln(1 +
    floor(p / L)) (``getattr(config, "llama_4_scaling")``, mistral.py:106-115), which it sets
    itself only from a Mistral-format params.json: ``{"llama_4_scaling":
    {"original_max_position_embeddings": L, "beta": beta}}``, or {} for a model without
    that scale (CHECKED vllm_ministral3)."""
    length = _query_scale_length(cfg)
    if length is None:
        return {}
    return {"llama_4_scaling": {"original_max_position_embeddings": length,
                                "beta": _number(cfg.query_scale[2])}}


# vLLM flags that keep it on config.json (and its weights) where a repository also holds a
# Mistral-format params.json, which --config-format auto would read instead (vLLM 0.33.0
# transformers_utils/config.py:889-900, model_loader/default_loader.py:168-181)
_VLLM_HF_FORMAT = (("--config-format", "hf"), ("--load-format", "hf"))


def _vllm_format(cfg: RopeConfig) -> tuple:
    """The format flags of :data:`_VLLM_HF_FORMAT` for a model whose lines add
    ``llama_4_scaling`` to config.json's settings, else ()."""
    return _VLLM_HF_FORMAT if _query_scale_length(cfg) is not None else ()


def _vllm_format_note(cfg: RopeConfig) -> tuple:
    """Why a Ministral 3 line names its formats and adds ``llama_4_scaling``."""
    length = _query_scale_length(cfg)
    if length is None:
        return ()
    return (Message(
        "vLLM {version} applies {model}'s query scale 1 + β ln(1 + ⌊p / {length}⌋) when its "
        "config has `llama_4_scaling` (`MistralAttention`, {where}), which it sets itself "
        "only from a Mistral-format `params.json`: the line adds it to `config.json`'s "
        "settings, and `--config-format hf --load-format hf` keep vLLM on `config.json` "
        "where the repository also holds `params.json` and `consolidated*.safetensors` "
        "(which `auto` would read instead, as vLLM's own recipe for the Ministral 3 family "
        "does with `--tokenizer-mode mistral --config-format mistral --load-format "
        "mistral`).", version=ENGINE_VERSIONS["vLLM"], model=cfg.name, length=f"{length:,}",
        where=CHECKED["vllm_ministral3"].where),)


def _served_refusal(plan: _Plan, engine: str) -> dict | None:
    """The reason vLLM or SGLang cannot run the plan, or None."""
    cfg, m = plan.config, plan.method
    refusal = _layer_refusal(cfg, engine, m)
    if refusal is not None:
        return refusal
    if _proportional(cfg) and m == "linear":  # Gemma 4 (ntk: its base, read; the others:
        # _layer_refusal)
        where = CHECKED["vllm_gemma4" if engine == "vLLM" else "sglang_gemma4"].where
        return _refusal(engine, Message(
            "{engine} cannot run {method} for this model's proportional RoPE: its `get_rope` "
            "builds `Gemma4RotaryEmbedding` for the rope type `proportional` ({where}), which "
            "takes the base but no `factor`, so the global layers would keep their θᵢ. A "
            "change of base (`ntk`) reaches them.",
            engine=engine, method=m, where=where))
    if engine == "SGLang" and cfg.family in _SGLANG_FLAT_ROPE and m == "ntk":
        counts = layer_counts(cfg)
        return _refusal(engine, Message(
            "{engine} cannot run {method} for {model}: it runs OLMo 3 with its `olmo2.py`, "
            "which rotates the sliding-window layers with the same base as the full ones "
            "({where}), so a new base would reach its {local} sliding layers too, which every "
            "other line keeps at {base}.", engine=engine, method=m, model=cfg.name,
            local=counts.local, base=f"{counts.local_base:g}",
            where=CHECKED["sglang_olmo3"].where))
    if cfg.family == "chatglm" and m != "ntk":
        return _refusal(engine, Message(
            "{engine} cannot run {method} for ChatGLM: its `chatglm.py` builds the rotation from "
            "base 10000 · `rope_ratio` and reads no rope scaling keys: only static `ntk`, a "
            "change of base (`rope_ratio`), reaches it.",
            engine=engine, method=m))
    if cfg.family in _DEEPSEEK and m not in ("yarn", "ntk"):
        where = CHECKED["vllm_deepseek" if engine == "vLLM" else "sglang_deepseek"].where
        return _refusal(engine, Message(
            "{engine} cannot run {method} for DeepSeek: its `deepseek_v2.py` ({where}) turns "
            "every rope type other than `default` into DeepSeek's YaRN (`deepseek_yarn`), so "
            "{method} would run as YaRN or fail to load. Only `yarn` and static `ntk` (rope "
            "type `default`) keep their meaning.",
            engine=engine, method=m, where=where))
    if engine == "SGLang" and cfg.family in _SGLANG_BASE_ONLY and m != "ntk":
        return _refusal(engine, Message(
            "{engine} cannot run {method} for {family}: its attention builds the rotation from "
            "the base and rotary dim alone, without `rope_scaling` ({where}), so {method} would "
            "leave the spectrum as it is. Only static `ntk`, a change of base, reaches it.",
            engine=engine, method=m, family=cfg.family, where=CHECKED["sglang_base_only"].where))
    if engine == "vLLM" and cfg.family == "gpt_oss" and m != "yarn":
        return _refusal(engine, Message(
            "{engine} cannot run {method} for gpt-oss: its `gpt_oss.py` ({where}) always builds "
            "YaRN and reads `factor`, `original_max_position_embeddings`, `beta_fast` and "
            "`beta_slow` from `rope_parameters`, so {method} would run as YaRN or fail to load.",
            engine=engine, method=m, where=CHECKED["vllm_gpt_oss"].where))
    # M-RoPE (Qwen2-VL): get_rope builds the time, height and width sections only for the rope
    # types default (our ntk) and yarn, in both engines (CHECKED vllm_get_rope, sglang_get_rope)
    if cfg.mrope_section is not None and m not in ("ntk", "yarn"):
        where = CHECKED["vllm_get_rope" if engine == "vLLM" else "sglang_get_rope"].where
        return _refusal(engine, Message(
            "{engine} cannot run {method} for this M-RoPE model: its `get_rope` ({where}) "
            "builds the rotation of time, height and width sections only for the rope types "
            "`default` and `yarn`, and with {method} would rotate every pair by the text position "
            "alone.",
            engine=engine, method=m, where=where))
    if m == "dynamic" and engine == "vLLM":
        return _refusal(engine, Message(
            "{engine} has no dynamic NTK: its rope type `dynamic` "
            "(`DynamicNTKScalingRotaryEmbedding`, {where}) computes `base · (f · P / "
            "P_trained − (f − 1))^(d/(d−2))` once, with `P_trained` = `max_trained_positions`, "
            "which defaults to P, so the base stays as it is: the plain spectrum at every "
            "length, no NTK at all.",
            engine=engine, method=m, where=CHECKED["vllm_dynamic"].where))
    if m == "dynamic" and cfg.family in _SGLANG_GEMMA3:
        return _refusal(engine, Message(
            "{engine} cannot run {method} for Gemma 3 as transformers does: its Gemma 3 code "
            "({where}) recomputes the base the way transformers does, but from the largest "
            "position among all the requests of the batch it runs (one row of positions), so "
            "one request's spectrum depends on the others served beside it; and it takes L "
            "from `max_position_embeddings`, so its context check allows no `--context-length` "
            "above L without `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`.",
            engine=engine, method=m, where=CHECKED["sglang_gemma3_dynamic"].where))
    if m == "dynamic":
        return _refusal(engine, Message(
            "{engine} has no dynamic NTK: its rope type `dynamic` "
            "(`DynamicNTKScalingRotaryEmbedding`, {where}) computes one base for `factor` × "
            "`max_position_embeddings` tokens when the server starts and uses it at every length, "
            "which is static NTK. Static `ntk` gives at the target what dynamic NTK with f = 1 "
            "gives there.",
            engine=engine, method=m, where=CHECKED["sglang_dynamic"].where))
    if m != "yarn":
        return None
    p = _rope_parameters(plan)
    if cfg.family in _DEEPSEEK and p.get("truncate") is False:
        return _refusal(engine, Message(
            "{engine} cannot run {method} with `truncate` = `false` for DeepSeek: its "
            "`DeepseekScalingRotaryEmbedding` takes no `truncate` and always rounds the ramp's "
            "bounds down and up.",
            engine=engine, method=m))
    if engine == "SGLang" and cfg.mrope_section is not None and \
            ("mscale" in p or "mscale_all_dim" in p):
        return _refusal(engine, Message(
            "{engine} cannot run {method} with `mscale` or `mscale_all_dim` for this M-RoPE "
            "model: its `YaRNScalingMRotaryEmbedding` ({where}) takes neither.",
            engine=engine, method=m, where=CHECKED["sglang_yarn_attention"].where))
    key = {"vLLM": "vllm_deepseek_attention" if cfg.family in _DEEPSEEK else
           "vllm_yarn_attention",
           "SGLang": "sglang_deepseek" if cfg.family in _DEEPSEEK else "sglang_yarn_attention"}
    return _factor_refusal(plan, engine, CHECKED[key[engine]].where)


def _served(plan: _Plan, engine: str) -> dict:
    refused = _served_refusal(plan, engine)
    if refused is not None:
        return refused
    return _served_line(plan.config, engine, _served_json(plan, engine), plan.target)


def _served_line(cfg: RopeConfig, engine: str, overrides: dict | None, target: int,
                 notes=()) -> dict:
    """vLLM's or SGLang's entry: the overrides (None: none) and the context flag set to
    ``target``; vLLM's Ministral 3 lines also name their formats (:func:`_vllm_format`)."""
    if engine == "vLLM":
        flags = dict(_vllm_format(cfg))
        if overrides:
            flags["--hf-overrides"] = overrides
        flags["--max-model-len"] = target
        notes = tuple(notes) + _vllm_format_note(cfg)
    else:
        flags = {"--json-model-override-args": overrides} if overrides else {}
        flags["--context-length"] = target
    if cfg.family == "chatglm":
        # the engines read ChatGLM's config with a class of their own, but its tokenizer
        # exists only as the checkpoint's code (tokenization_chatglm.py, via auto_map)
        flags["--trust-remote-code"] = True
        notes = tuple(notes) + (Message(
            "`--trust-remote-code`: {engine} reads ChatGLM's config with a class of its own, "
            "but its tokenizer exists only as the checkpoint's code "
            "(`tokenization_chatglm.py`, named in `auto_map`).", engine=engine),)
    words = [COMMANDS[engine]] + [flag if value is True else
                                  f"{flag} '{_json(value)}'" if isinstance(value, dict)
                                  else f"{flag} {value}" for flag, value in flags.items()]
    return _entry(engine, flags, " ".join(words), notes)


def _llama_cpp_refusal(cfg: RopeConfig, what: Message, rope: bool = True) -> dict | None:
    """llama.cpp's refusal for a model it cannot run (no converter) or, with ``rope``, whose
    every RoPE layer keeps the GGUF's base and scale whatever the flags; ``what`` names what
    is refused."""
    engine = "llama.cpp"
    if cfg.family in _LLAMA_CPP_NONE:
        return _refusal(engine, Message(
            "{engine} is not given {what}: llama.cpp {version} has no converter for this "
            "model's architecture ({family}) and no graph that runs it ({where}).",
            engine=engine, what=what, version=ENGINE_VERSIONS[engine], family=cfg.family,
            where=CHECKED["llama_cpp_no_gptj"].where))
    counts = layer_counts(cfg)
    if rope and cfg.family in _LLAMA_CPP_SWA_KEPT and counts.rope and \
            counts.windowed == counts.rope:
        return _refusal(engine, Message(
            "{engine} is not given {what}: every RoPE layer of {model} is a sliding-window or "
            "chunked layer, and llama.cpp rotates those with the base and scale of the GGUF "
            "whatever the flags ({where}), so no flag changes its RoPE.",
            engine=engine, what=what, model=cfg.name, where=CHECKED["llama_cpp_swa"].where))
    return None


def _llama_cpp_window_refusal(plan: _Plan) -> dict | None:
    """llama.cpp's refusal where its graph gives windowed layers another spectrum than the
    one shown: layers that keep the GGUF's base and scale (while ext_factor and the attention
    factor follow the flags for every layer) although the spectrum shown scales them (Gemma
    2, gpt-oss: CHECKED llama_cpp_swa), or sliding layers that take the flags' base although
    they keep their own (OLMo 3 with ntk: CHECKED llama_cpp_swa_base)."""
    cfg, m = plan.config, plan.method
    engine = "llama.cpp"
    counts = layer_counts(cfg)
    if cfg.family in _LLAMA_CPP_SWA_KEPT and counts.windowed > counts.local:
        own = _own_factor(cfg)
        return _refusal(engine, Message(
            "{engine} is not given a line for {method}: {windowed} of {model}'s {rope} RoPE "
            "layers attend within a window of {window} tokens, and llama.cpp rotates those "
            "with the GGUF's base and scale ({scale}) whatever the flags, while the YaRN ramp "
            "(ext_factor) and the attention factor follow the flags for every layer "
            "({where}): no flags give them the spectrum shown, which transformers gives every "
            "RoPE layer.", engine=engine, method=m, windowed=counts.windowed, model=cfg.name,
            rope=counts.rope, window=f"{counts.window:,}",
            scale=Message("1/{factor}, its own {own}", factor=f"{own:g}", own=cfg.method)
            if own else Message("1: unscaled"),
            where=CHECKED["llama_cpp_swa"].where))
    if cfg.family in _LLAMA_CPP_SWA_FLAG_BASE and counts.local and m == "ntk":
        return _refusal(engine, Message(
            "{engine} cannot run {method} for {model}: its graph rotates the {local} "
            "sliding-window layers with the flags' base (at scale 1, without YaRN: "
            "{where}), so `--rope-freq-base` would give them the new base too, which every "
            "other line keeps at {base}.", engine=engine, method=m, model=cfg.name,
            local=counts.local, base=f"{counts.local_base:g}",
            where=CHECKED["llama_cpp_swa_base"].where))
    return None


def _llama_cpp(plan: _Plan) -> dict:
    cfg, m = plan.config, plan.method
    engine = "llama.cpp"
    refusal = _layer_refusal(cfg, engine, m) or _llama_cpp_refusal(
        cfg, Message("a line for {method}", method=m)) or _llama_cpp_window_refusal(plan)
    if refusal is not None:
        return refusal
    if m == "dynamic":
        return _refusal(engine, Message(
            "{engine} has no dynamic NTK: `--rope-scaling` takes `none`, `linear` or `yarn`, and "
            "`--rope-freq-base` sets one base for every length (static NTK).",
            engine=engine, method=m))
    if m == "llama3" and cfg.family in _LLAMA_CPP_ROPE_FREQS:
        return _refusal(engine, Message(
            "{engine} has no {method} scaling on its command line (`--rope-scaling` takes `none`, "
            "`linear` or `yarn`): `convert_hf_to_gguf.py` writes Llama 3.1's band factors into "
            "the GGUF as a `rope_freqs` tensor for the `factor` in `config.json`. Merge the "
            "transformers entry into `config.json` and convert again.",
            engine=engine, method=m))
    if m == "llama3":
        return _refusal(engine, Message(
            "{engine} cannot run {method} for {family}: llama3 scaling exists in llama.cpp only "
            "as a `rope_freqs` tensor, which only the converters of the Llama family (Llama, "
            "Mistral, Mixtral, Llama 4, Arcee, Apertus) and EXAONE write and their graphs "
            "apply ({where}); converted again, this model would run with its plain spectrum.",
            engine=engine, method=m, family=cfg.family or cfg.name,
            where=CHECKED["llama_cpp_rope_freqs"].where))
    if m == "longrope":
        return _refusal(engine, Message(
            "{engine} has no {method} scaling on its command line (`--rope-scaling` takes `none`, "
            "`linear` or `yarn`): `convert_hf_to_gguf.py` writes the per-pair factors and the "
            "attention factor into the GGUF. Merge the transformers entry into `config.json` and "
            "convert again; llama.cpp then uses the long factors whenever `-c` exceeds L "
            "({where}), for every input, a short one too, where transformers chooses them by "
            "each input's length.",
            engine=engine, method=m, where=CHECKED["llama_cpp_longrope"].where))
    if cfg.method == "llama3" and m != cfg.method and cfg.family in _LLAMA_CPP_ROPE_FREQS:
        return _refusal(engine, Message(
            "{engine} would stack {method} on this model's own {own} factors: its GGUF carries "
            "them as a `rope_freqs` tensor, which llama.cpp applies before any "
            "`--rope-scaling`. Converting again from a `config.json` with the transformers "
            "entry merged in gives a GGUF without that tensor, which this line would then "
            "serve as shown.",
            engine=engine, method=m, own=cfg.method))
    if cfg.method in ("llama3", "longrope") and m != cfg.method:
        return _refusal(engine, Message(
            "{engine} would stack {method} on this model's own {own} factors: its GGUF carries "
            "them as tensors, which llama.cpp applies before any `--rope-scaling`.",
            engine=engine, method=m, own=cfg.method))
    context, notes = _llama_cpp_context(cfg, plan.target)
    args = context[:1]  # -c T, the RoPE flags, then --override-kv where the GGUF needs it
    if m == "linear":
        refused = _factor_refusal(plan, engine, CHECKED["llama_cpp_deepseek"].where)
        if refused is not None:
            return refused
        args += [("--rope-scaling", "linear"), ("--rope-scale", _flag_number(plan.scale))]
    elif m == "ntk":
        args += [("--rope-scaling", "none"), ("--rope-freq-base", _flag_number(plan.base))]
    else:  # yarn
        if plan.params.get("truncate") is False:
            return _refusal(engine, Message(
                "{engine} cannot run {method} with `truncate` = `false`: "
                "`ggml_rope_yarn_corr_dims` always rounds the ramp's bounds down and up.",
                engine=engine, method=m))
        where = CHECKED["llama_cpp_deepseek" if cfg.family in _DEEPSEEK
                        else "llama_cpp_yarn"].where
        refused = _factor_refusal(plan, engine, where)
        if refused is not None:
            return refused
        args += [("--rope-scaling", "yarn"), ("--rope-scale", _flag_number(plan.scale)),
                 ("--yarn-orig-ctx", str(plan.original))]
        for name, flag in (("beta_fast", "--yarn-beta-fast"), ("beta_slow", "--yarn-beta-slow")):
            value = plan.params.get(name)
            if value is not None and value != _YARN_DEFAULTS[name]:
                args.append((flag, _flag_number(value)))
    args += context[1:]
    command = " ".join([COMMANDS[engine]] + [f"{flag} {value}" for flag, value in args])
    return _entry(engine, dict(args), command, notes)


def _gguf_context(cfg: RopeConfig) -> int:
    """The context_length llama.cpp's converter writes into the model's GGUF: its
    ``max_position_embeddings`` (``seq_length`` for ChatGLM; conversion/base.py:1436-1439,
    chatglm.py:140, gemma.py:146), or 2**20 for Granite's hybrid without RoPE
    (conversion/granite.py:515-521)."""
    counts = layer_counts(cfg)
    if cfg.family in _GGUF_NO_ROPE_CONTEXT and counts.layers and \
            counts.layers > counts.rope + counts.nope:  # mamba layers beside attention
        return _GGUF_NO_ROPE_CONTEXT[cfg.family]
    return cfg.max_context


def _llama_cpp_context(cfg: RopeConfig, target: int) -> tuple[list, list]:
    """llama.cpp's context flags for ``target`` tokens, and their notes: ``-c T`` and,
    past the GGUF's context_length (:func:`_gguf_context`), which llama-server caps every
    slot at whatever ``-c`` says (CHECKED llama_cpp_context), ``--override-kv
    <arch>.context_length=int:T`` with the architecture its converter writes (ARCH, said
    in the note, for a model type not read here)."""
    args, notes = [("-c", str(target))], []
    gguf = _gguf_context(cfg)
    if target > gguf:
        arch = _GGUF_ARCH.get(cfg.family, "ARCH")
        args.append(("--override-kv", f"{arch}.context_length=int:{target}"))
        same = gguf == cfg.max_context
        notes.append(Message(
            "llama-server caps every slot at the GGUF's `context_length`, {gguf} for this "
            "model ({why}), whatever `-c` says ({where}); `--override-kv` raises it to "
            "{target}.{arch}{reconvert}", gguf=f"{gguf:,}", target=f"{target:,}",
            why=Message("its converter writes `seq_length`") if cfg.family == "chatglm" else
            Message("its converter writes `max_position_embeddings`") if same else
            Message("Granite's hybrid converter writes 2²⁰ when its attention has no RoPE"),
            where=CHECKED["llama_cpp_context"].where,
            arch="" if arch != "ARCH" else Message(
                " ARCH is the GGUF's `general.architecture`, which llama-server prints when "
                "it loads the model (its converter for {family} is not read here).",
                family=cfg.family or cfg.name),
            reconvert="" if not same else Message(
                " Converting again from the `config.json` with the transformers entry merged "
                "in gives a GGUF whose `context_length` is {target} already.",
                target=f"{target:,}")))
    return args, notes


def engine_settings(config: RopeConfig, target_context: int, method: str, **params) -> dict:
    """The settings that run ``config`` at ``target_context`` tokens with ``method``, per
    engine.

    Args:
        config: the model as it is (a preset or ``RopeConfig.from_hf`` of a config.json).
        target_context: T, more than the context the model already reaches
            (:func:`reach`) and at most 10^7 tokens.
        method: one of :data:`METHODS` (a key of :data:`rope_core.models.scaling.SCALINGS`).
        **params: the method's parameters by their Hugging Face names, checked by
            :func:`rope_core.models.scaling.resolve_params`. ``original_max_position_embeddings``
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
        for yarn, llama3 and longrope, ``original_max_position_embeddings`` = L, all under
        ``"text_config"`` when the config.json has one; vLLM and SGLang: {flag: value},
        the JSON nested likewise where the engine reads a text sub-config; llama.cpp:
        {flag: value}), ``command`` (the JSON text or command line to copy; "" when
        refused), ``refusal`` (None, or a :class:`Message` naming the engine and the
        method and saying why), ``notes`` (Messages) and ``source`` (where the names come
        from, with the version read).

    Raises:
        RopeError: for an unknown method, a target at or below the model's context, an
        L out of range, a factor that contradicts T / L, or a parameter out of its range.
    """
    plan = _plan(config, target_context, method, params)
    return {"transformers": _transformers(plan), "vLLM": _served(plan, "vLLM"),
            "SGLang": _served(plan, "SGLang"), "llama.cpp": _llama_cpp(plan)}


# --- a target that needs no RoPE change ----------------------------------------------

def _check_target(config, target_context) -> int:
    _check_config(config)
    if isinstance(target_context, bool) or not isinstance(target_context, Integral) or \
            not 1 <= target_context <= MAX_LENGTH:
        fail("target_context", target_context, "an integer from 1 to {high}", high=MAX_LENGTH)
    return int(target_context)


def _window_caps(config: RopeConfig) -> bool:
    """Whether every RoPE layer of ``config`` attends within a window (or chunk) no longer
    than L: then, where the window is applied, no RoPE layer meets a distance it was not
    trained on, at any target (Mistral 7B v0.1, Command R7B, EXAONE 4, Trinity, Llama 4
    Scout)."""
    counts = layer_counts(config)
    return bool(counts.rope) and counts.windowed == counts.rope and \
        counts.window is not None and counts.window <= config.original_context


def _no_rope(config: RopeConfig) -> bool:
    """Whether the config gives layers and none of them rotates (Granite 4.0-H)."""
    counts = layer_counts(config)
    return counts.layers is not None and counts.rope == 0


def no_change(config: RopeConfig, target_context: int) -> tuple[str, Message] | None:
    """Why ``config`` needs no RoPE change to run at ``target_context`` tokens, as
    ``(kind, Message)``, or None when it does.

    * "reached": T <= :func:`reach` (its trained context, or its configured context where
      its own scaling configures it);
    * "windows": every RoPE layer attends within a window no longer than L (at any T past
      the reach, or past what its own scaling is built for): where the window is applied no
      query-key distance reaches the window, so a scaling would only change the angles of
      distances it was trained on (Mistral 7B v0.1: window 4,096, L = 8,192; Llama 4
      Scout's chunks of 8,192 up to its configured 10,485,760);
    * "no_rope": none of its layers rotates (Granite 4.0-H): no RoPE setting changes it.

    Raises:
        RopeError: for a target that is not an integer from 1 to 10^7.
    """
    target = _check_target(config, target_context)
    already = reach(config)
    built = built_context(config)
    counts = layer_counts(config)
    names = dict(model=config.name, reach=f"{already:,}", target=f"{target:,}",
                 original=f"{config.original_context:,}", configured=f"{config.max_context:,}")
    if target <= already and (built is None or target <= built or not _window_caps(config)):
        if config.method == "none":
            what = Message("its L, where it was trained") if config.training_context is not \
                None else Message("its configured context, `max_position_embeddings`")
        else:
            what = Message("its configured context, `max_position_embeddings`; its own "
                           "{method} scaling, ×{factor} from L = {original}, is built for "
                           "{built} tokens", method=config.method,
                           factor=f"{_own_factor(config):g}", built=f"{built:,}", **names)
        return "reached", Message(
            "No RoPE change is needed: {model} already reaches {reach} tokens ({what}), so "
            "only the engines' context length goes up to {target}.", what=what, **names)
    if _no_rope(config):
        return "no_rope", Message(
            "No RoPE change is possible or needed: none of {model}'s {layers} layers rotates "
            "its queries and keys, so no RoPE setting changes it, and what limits its "
            "context is not RoPE. The lines below only raise the engines' context length to "
            "{target} (its configuration says {configured}); whether the model holds up "
            "that far is not a question of RoPE.", layers=counts.layers, **names)
    if _window_caps(config):
        own = "" if built is None else Message(
            " Its own {method} scaling, ×{factor} from L = {original}, is built for {built} "
            "tokens.", method=config.method, factor=f"{_own_factor(config):g}",
            built=f"{built:,}", **names)
        return "windows", Message(
            "No RoPE change is needed: every RoPE layer of {model} attends within a window of "
            "{window} tokens, no longer than L = {original}. Where the window is applied, no "
            "query–key distance reaches {window} at any length, so a scaling would only change "
            "the angles of distances it was trained on (YaRN would also multiply every rotated "
            "logit by a²); only the context length goes up to {target}, with "
            "`max_position_embeddings` raised where its `config.json` allows fewer "
            "({configured}).{own}", window=f"{counts.window:,}", own=own, **names)
    return None


def context_settings(config: RopeConfig, target_context: int) -> dict:
    """The settings that run ``config`` at ``target_context`` tokens without a RoPE change
    (where :func:`no_change` says none is needed), per engine, entries as
    :func:`engine_settings` gives them: transformers nothing, or
    ``max_position_embeddings`` = T where the config allows fewer; vLLM ``--max-model-len``
    (and ``--hf-overrides`` for ``max_position_embeddings`` where the config allows fewer;
    Ministral 3's ``llama_4_scaling``), SGLang ``--context-length`` likewise, llama.cpp
    ``-c`` (and ``--override-kv`` past the GGUF's context_length). Where every RoPE layer
    is windowed, an engine that runs the model without its window (SGLang's and llama.cpp's
    Llama / Mistral code) refuses any target past the window, since there every distance
    up to T is met."""
    target = _check_target(config, target_context)
    reason = no_change(config, target)
    if reason is None:
        fail("target_context", target, "a target {model} runs at without a RoPE change "
             "(at most the {reach} tokens it reaches)", model=config.name,
             reach=reach(config))
    raise_max = target > config.max_context
    keys = {"max_position_embeddings": target}
    nested = config.text_config or config.family in _TEXT_SUBCONFIG
    out = {}
    if raise_max:
        settings = {"text_config": keys} if config.text_config else dict(keys)
        out["transformers"] = _entry("transformers", settings, _pretty(settings))
    else:
        out["transformers"] = _entry("transformers", {}, "", (Message(
            "Nothing to change: its `max_position_embeddings` is {configured}, at least "
            "{target}.", configured=f"{config.max_context:,}", target=f"{target:,}"),))
    counts = layer_counts(config)
    dropped = _window_caps(config) and target > counts.window
    vllm = dict(keys) if raise_max else {}
    vllm.update(_llama_4_scaling(config))
    out["vLLM"] = _served_line(config, "vLLM", (({"text_config": vllm} if nested else vllm)
                                                if vllm else None), target)
    if dropped and config.family in _SGLANG_NO_WINDOW:
        out["SGLang"] = _no_window_refusal(config, "SGLang", target, "sglang_mistral_window")
    else:
        sglang = ({"text_config": keys} if nested else dict(keys)) if raise_max else None
        if sglang and config.family in _SGLANG_OUTER_LM:
            sglang = {**keys, **sglang}
        out["SGLang"] = _served_line(config, "SGLang", sglang, target)
    refused = _llama_cpp_refusal(config, Message("a context line"), rope=False)
    if refused is not None:
        out["llama.cpp"] = refused
    elif dropped and config.family in _LLAMA_CPP_NO_WINDOW:
        out["llama.cpp"] = _no_window_refusal(config, "llama.cpp", target,
                                              "llama_cpp_mistral_window")
    else:
        args, notes = _llama_cpp_context(config, target)
        out["llama.cpp"] = _entry("llama.cpp", dict(args), " ".join(
            [COMMANDS["llama.cpp"]] + [f"{flag} {value}" for flag, value in args]),
            notes + _llama_cpp_context_notes(config, target))
    return out


def _llama_cpp_context_notes(config: RopeConfig, target: int) -> list:
    """What llama.cpp's plain context line does otherwise than transformers at the model's
    own spectrum: LongRoPE's factor set chosen by ``-c``, not by each input's length
    (CHECKED llama_cpp_longrope); YaRN's ramp bounds rounded although the model's
    ``truncate`` is false (CHECKED llama_cpp_yarn)."""
    notes = []
    if config.method == "longrope" and target > config.original_context:
        notes.append(Message(
            "llama.cpp chooses LongRoPE's long or short factors once, from the context of "
            "`-c` ({where}: the long ones when it exceeds L = {original}), not from each "
            "input's length as transformers does: with `-c {target}` every input, a short "
            "one too, runs with the long factors.", where=CHECKED["llama_cpp_longrope"].where,
            original=f"{config.original_context:,}", target=target))
    if config.method == "yarn" and config.params_dict.get("truncate") is False:
        notes.append(Message(
            "{model}'s YaRN has `truncate` = `false`, which llama.cpp does not read: it "
            "always rounds the ramp's bounds down and up (`ggml_rope_yarn_corr_dims`), so "
            "the pairs at the two ends of the ramp rotate "
            "slightly otherwise than in transformers, vLLM and SGLang, at every length; "
            "that is how any GGUF of it runs, not something these lines change.",
            model=config.name))
    return notes


def _no_window_refusal(config: RopeConfig, engine: str, target: int, checked: str) -> dict:
    counts = layer_counts(config)
    return _refusal(engine, Message(
        "{engine} is not given a context line: it runs {model} without its {window}-token "
        "window ({where}), so every layer attends to the whole context and meets query–key "
        "distances up to {target}, longer than any window it was trained with; no line here "
        "makes that what it was trained on. Serve it where the window is applied "
        "(transformers, vLLM).", engine=engine, model=config.name,
        window=f"{counts.window:,}", where=CHECKED[checked].where, target=f"{target:,}"))


# --- what the page says beside the settings -------------------------------------------

NOTE_KINDS = ("windows", "extreme", "static", "transformers_warning", "built_in",
              "attention_factor", "softmax", "query_scale", "proportional", "layers", "mrope",
              "dynamic", "longrope")
# the notes that say the choice gains nothing or goes past every published recipe (the page
# shows them as warnings)
WARNING_KINDS = ("windows", "extreme")


def _angles(plan: _Plan):
    """Per pair (each ``(d/2,)`` float64): theta before (at R = :func:`reach`), theta after
    (at T), the largest angle seen and the largest angle at T. Seen: R theta_i, or for a
    model trained at L with the plain spectrum (its ``training_context`` is L, or it has
    no scaling) the larger of that and L_train base^(-2i/d): Gemma 3's global layers saw
    32,768 theta_i in pre-training, more than 131,072 theta_i / 8 after it."""
    cfg = plan.config
    already = reach(cfg)
    before, _a = cfg.theta(already)  # (d/2,)
    after, _b = dataclasses.replace(
        cfg, method=plan.method, params=plan.params, original_context=plan.original,
        max_context=plan.target).theta(plan.target)  # (d/2,)
    seen = already * before  # (d/2,) rad
    trained = cfg.training_context
    if trained is not None and (cfg.method == "none" or trained == cfg.original_context):
        plain = plain_theta(cfg.rotary_dim, cfg.base, dtype=before.dtype)  # (d/2,)
        seen = torch.maximum(seen, trained * plain)
    return before, after, seen, plan.target * after


def _pushed(plan: _Plan) -> tuple[int, int]:
    """(pairs pushed past the largest angle they have seen, pairs that never turned)."""
    _before, _after, seen, at_target = _angles(plan)
    turned = seen >= 2 * math.pi
    pushed = ~turned & (at_target / seen > 1 + _RELATIVE)
    return int(pushed.sum()), int((~turned).sum())


def _layer_notes(plan: _Plan) -> list:
    """The notes on which layers the settings reach, from :func:`layer_counts`."""
    cfg, counts = plan.config, layer_counts(plan.config)
    notes = []
    if counts.layers is None or counts.rope == 0:
        return notes
    names = dict(model=cfg.name, layers=counts.layers, rope=counts.rope, nope=counts.nope,
                 windowed=counts.windowed, window=f"{counts.window:,}" if counts.window else "",
                 full=counts.rope - counts.windowed, original=f"{plan.original:,}")
    all_windowed = counts.windowed == counts.rope and counts.window is not None
    if all_windowed and counts.window <= plan.original:
        a, m = _factors(plan, "transformers")
        sharper = "" if abs(a * a * m - 1) < 1e-12 else Message(
            " The attention factor a = {a} multiplies their logits by a² = {square} at "
            "every length.", a=f"{a:.4f}", square=f"{a * a * m:.4f}")
        if counts.nope:
            notes.append(("windows", Message(
                "Every RoPE layer of {model} ({rope} of {layers}) attends within a window of "
                "{window} tokens, so no RoPE layer meets a distance of {window} or more at any "
                "target: these settings only change the angles of distances its RoPE layers "
                "were trained on, for no gain."
                "{sharper} What limits its context are its {nope} layers without RoPE, which no "
                "line changes.", sharper=sharper, **names)))
        elif cfg.family in ("llama", "mistral"):  # llama.cpp's LlamaModel converter
            notes.append(("windows", Message(
                "Every layer of {model} attends within a window of {window} tokens where the "
                "window is applied (transformers, vLLM): no query–key distance reaches "
                "{window}, less than L = {original}, so these settings only change the angles "
                "of distances it was trained on, for no gain.{sharper} llama.cpp runs it "
                "with full attention (its Llama converter writes no window), where the scaling "
                "does reach longer distances.", sharper=sharper, **names)))
        else:
            notes.append(("windows", Message(
                "Every layer of {model} attends within a window of {window} tokens: no "
                "query–key distance reaches {window}, less than L = {original}, so these "
                "settings only change the angles of distances it was trained on, for no "
                "gain.{sharper}", sharper=sharper, **names)))
    elif all_windowed:
        notes.append(("layers", Message(
            "Every RoPE layer of {model} attends within a window of {window} tokens: at any "
            "target its RoPE layers meet distances below {window} only, so a target beyond "
            "{window} tokens gives them no longer distances.", **names)))
    elif counts.local:
        notes.append(("layers", Message(
            "{model} scales only its {full} global layers: its {windowed} sliding-window "
            "layers (window {window} tokens) rotate with their own base {local}, unscaled, "
            "and every line keeps it.", local=f"{counts.local_base:g}", **names)))
    elif counts.windowed:
        notes.append(("layers", Message(
            "{windowed} of {model}'s {rope} RoPE layers attend within a window of {window} "
            "tokens: their query–key distances stay below {window} at any target, so the new "
            "spectrum changes their angles without giving them longer distances; the longer "
            "context reaches only its {full} full-attention RoPE layers.", **names)))
    if counts.nope and not any(kind == "windows" for kind, _m in notes):
        notes.append(("layers", Message(
            "{model}'s {nope} layers without RoPE (of {layers}) are untouched by every line: "
            "they have no rotation to scale.", **names)))
    return notes


def serving_notes(config: RopeConfig, target_context: int, method: str,
                  **params) -> tuple[tuple[str, Message], ...]:
    """The cautions that apply to a choice, as ``(kind, Message)`` pairs (kinds in
    :data:`NOTE_KINDS`; those in :data:`WARNING_KINDS` say the choice gains nothing).
    Same arguments as :func:`engine_settings`.

    * windows: every RoPE layer attends within a window no longer than L, so no RoPE layer
      meets a longer distance (Command R7B, whose full layers have no RoPE; Mistral 7B v0.1
      where the window is applied);
    * static: linear, ntk, yarn and llama3 change theta for every input, the shortest too;
    * transformers_warning: transformers 5.24 warns when a YaRN config's factor differs
      from max_position_embeddings / original_max_position_embeddings (and that ratio is
      not 1), then uses the factor; said for yarn, and when the model's own config does so;
    * built_in: the model already scales its RoPE; the new setting replaces that scaling
      (its own method: same parameters, factor T / L);
    * softmax: DeepSeek's attention multiplies its softmax scale by mscale(factor,
      mscale_all_dim)^2 outside RoPE: as configured, and with the new settings;
    * layers: windowed RoPE layers, local layers that keep their own base (Gemma 3) and
      layers without RoPE, from :func:`layer_counts`;
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

    notes = _layer_notes(plan)
    if s > PUBLISHED_MAX_FACTOR * (1 + _RELATIVE):
        notes.append(("extreme", Message(
            "s = {target} / {original} = {scale} goes past every published recipe read here: "
            "the largest factor among them is DeepSeek-V3's YaRN factor 40 (4,096 to "
            "163,840 tokens in its `config.json`; its model card's needle-in-a-haystack test "
            "runs to 128K tokens), and Llama 3.2's llama3 and gpt-oss's YaRN stop at 32 "
            "(Llama 4 Scout's 10M tokens come from its layers without RoPE: its RoPE layers "
            "attend within chunks of 8,192). The lines below are what the engines would run; "
            "none of these recipes was evaluated with a factor this large.",
            target=n(plan.target), original=n(plan.original),
            scale=f"{s:.4g}")))
    if m == "yarn":
        notes.append(("static", Message(
            "yarn is static: it changes θᵢ for every input, a 500-token prompt included, not "
            "only for inputs longer than L = {original}. Qwen's model cards (Qwen2.5, Qwen3) "
            "warn that static YaRN (the same factor whatever the input length) may impair "
            "performance on shorter texts and advise adding the scaling only when long inputs "
            "are expected; Qwen3's card also advises a factor for the typical length (its "
            "example: 2 for 65,536 tokens from 32,768).", original=n(plan.original))))
    elif m in STATIC:
        notes.append(("static", Message(
            "{method} is static: it changes θᵢ for every input, a 500-token prompt included, "
            "not only for inputs longer than L = {original}; short inputs then run with "
            "angles the model was not trained with.", method=m, original=n(plan.original))))
    own_mismatch = False
    if cfg.method == "yarn":
        own = resolve_params("yarn", cfg.rotary_dim, cfg.params_dict)
        implicit = cfg.max_context / own["original_max_position_embeddings"]
        own_mismatch = own["factor"] is not None and implicit != 1 and \
            abs(implicit - own["factor"]) > _RELATIVE * implicit
    if m == "yarn" or own_mismatch:
        names = dict(target=n(plan.target), original=n(plan.original), scale=f"{s:.6g}",
                     configured=n(cfg.max_context))
        ratio = cfg.max_context / plan.original
        if m == "yarn" and cfg.method == "none" and ratio != 1 and \
                abs(ratio - s) > _RELATIVE * s:
            text = Message(
                "transformers 5.24 warns when a YaRN config's `factor` differs from "
                "`max_position_embeddings` / `original_max_position_embeddings` (unless that "
                "ratio is 1) and then uses the `factor` (`_validate_yarn_rope_parameters` in "
                "`modeling_rope_utils.py`). The settings here set `max_position_embeddings` = "
                "{target} and `factor` = {target} / {original} = {scale}, so they agree. "
                "Adding only the scaling dict, as Qwen3's model card does, and leaving "
                "`max_position_embeddings` at its {configured} would make transformers warn: "
                "{configured} / {original} = {ratio}, not {scale}.",
                ratio=f"{ratio:.6g}", **names)
        else:
            text = Message(
                "transformers 5.24 warns when a YaRN config's `factor` differs from "
                "`max_position_embeddings` / `original_max_position_embeddings` (unless that "
                "ratio is 1) and then uses the `factor` (`_validate_yarn_rope_parameters` in "
                "`modeling_rope_utils.py`). The settings here set `max_position_embeddings` = "
                "{target} and `factor` = {target} / {original} = {scale}, so they agree.",
                **names)
        notes.append(("transformers_warning", text))
    if cfg.method != "none":
        names = dict(model=cfg.name, own=cfg.method, original=n(cfg.original_context),
                     configured=n(cfg.max_context), target=n(plan.target), method=m,
                     new_original=n(plan.original), scale=f"{s:.6g}")
        own_factor = _own_factor(cfg)
        if m == cfg.method and own_factor is not None and plan.original == \
                cfg.original_context and abs(own_factor - s) <= _RELATIVE * s:
            pushed, _never = _pushed(plan)
            if pushed:
                text = Message("{model} already scales its RoPE with {own} from L = {original}, "
                               "by the factor {target} / {original} itself, but is configured "
                               "for {configured} tokens. The settings here keep its spectrum "
                               "and raise only the configured context: between {configured} "
                               "and {target} tokens {pushed} of its pairs reach angles larger "
                               "than any it has seen.", pushed=pushed, **names)
            else:
                text = Message("{model} already scales its RoPE with {own} from L = {original}, "
                               "by the factor {target} / {original} itself, but is configured "
                               "for {configured} tokens. The settings here keep its spectrum "
                               "and raise only the configured context; up to {target} tokens "
                               "no pair goes past the largest angle it has seen (in training "
                               "at L with the unscaled spectrum, or within {configured} "
                               "tokens).", **names)
        elif m == cfg.method == "longrope":
            text = Message("{model} already scales its RoPE with longrope from L = {original}: "
                           "its per-pair factors (short up to L, long beyond) were searched "
                           "for its configured {configured} tokens, and its `config.json` "
                           "names no `factor` (transformers takes {configured} / {original} "
                           "= {own_factor}). The settings here keep those per-pair factors; "
                           "the target {target} changes only LongRoPE's attention factor "
                           "√(1 + ln s / ln L), now with s = {target} / {original} = {scale}, "
                           "which multiplies cos and sin at every length, short inputs "
                           "included.", own_factor=f"{own_factor:g}", **names)
        elif m == cfg.method:
            trained = Message(
                " Its source says it was trained at {trained} tokens.",
                trained=n(cfg.training_context)) if cfg.training_context is not None else ""
            text = Message("{model} already scales its RoPE with {own} from L = {original}, "
                           "with factor {own_factor} in its `config.json`. The settings here "
                           "keep its other parameters with "
                           "factor s = {target} / {new_original} = {scale}: that changes its "
                           "interpolated pairs at every length, short inputs included, from "
                           "those of factor {own_factor}.{trained}",
                           own_factor=f"{own_factor:g}" if own_factor is not None else "?",
                           trained=trained, **names)
        else:
            text = Message("{model} already scales its RoPE with {own} (×{own_factor} from "
                           "L = {original}). A config holds one scaling per "
                           "spectrum: these settings replace {own} with {method}, applied to "
                           "the plain spectrum from L = {new_original}; they do not stack "
                           "{method} on top of {own}. Stacking (scaling the already-scaled "
                           "spectrum again) is what llama.cpp would do with a GGUF whose "
                           "factors are tensors, and none of these configs can write it.",
                           own_factor=f"{own_factor:g}" if own_factor is not None else "?",
                           **names)
        notes.append(("built_in", text))
    for _name, value in plan.dropped:  # attention_factor: YaRN's rule for the old factor
        notes.append(("attention_factor", Message(
            "{model}'s `config.json` gives `attention_factor` {value}, which is YaRN's rule "
            "0.1 ln f + 1 for its own factor f = {own}; for s = {scale} the rule gives {new}. "
            "The lines leave `attention_factor` out, so every engine derives {new} from the "
            "factor; kept, "
            "it would sharpen the new factor's attention as for the old one (and SGLang and "
            "llama.cpp, which do not read it, would disagree with transformers and vLLM).",
            model=cfg.name, value=f"{value:.4f}",
            own=f"{cfg.params_dict.get('factor'):g}", scale=f"{s:.6g}",
            new=f"{_mscale(s):.4f}")))
    if cfg.family in _DEEPSEEK:
        new = _hf_softmax(plan)
        notes.append(("softmax", Message(
            "{model}'s attention multiplies its softmax scale 1/√d by `mscale(factor, "
            "mscale_all_dim)²` = `(0.1 · mscale_all_dim · ln factor + 1)²` outside RoPE, "
            "for any rope type but `default` (transformers' `yarn_apply_mscale`, the "
            "`deepseek_v2.py` of vLLM and SGLang, llama.cpp's `deepseek2.cpp`): × {own} as "
            "configured, × {new} with these settings. The whole logit, not only its rotated "
            "part, is multiplied by it.", model=cfg.name, own=f"{cfg.softmax_scale:.4f}",
            new=f"{new:.4f}")))
    length = _query_scale_length(cfg)
    if length is not None:
        notes.append(("query_scale", Message(
            "Outside RoPE, {model} multiplies its queries at position p by 1 + {beta} ln(1 + "
            "⌊p / {length}⌋) (`llama_4_scaling_beta`): transformers and SGLang read it from "
            "`config.json` (the lines keep both keys), llama.cpp from the GGUF its converter "
            "wrote; vLLM {version} from a Mistral-format `params.json` or from the "
            "`llama_4_scaling` its line adds.",
            model=cfg.name, beta=f"{cfg.query_scale[2]:g}", length=n(length),
            version=ENGINE_VERSIONS["vLLM"])))
    if _proportional(cfg):
        counts = layer_counts(cfg)
        notes.append(("proportional", Message(
            "{model}'s global layers use proportional RoPE: θᵢ = base^(−2i/{theta_dim}) over "
            "the whole head, of which the first {pairs} pairs rotate. transformers' "
            "`proportional` type divides those θᵢ by its `factor` (`inv_freq /= factor`), "
            "which is linear scaling of the rotated pairs: transformers and llama.cpp (whose "
            "global layers take the flags' scale) run it; vLLM's and SGLang's "
            "`Gemma4RotaryEmbedding` takes no factor. Its sliding layers keep base {local}.",
            model=cfg.name, theta_dim=cfg.theta_dim, pairs=cfg.rotary_dim // 2,
            local=f"{counts.local_base or cfg.base:g}")))
    if cfg.mrope_section is not None:
        notes.append(("mrope", Message(
            "{model} rotates its pairs by time, height and width positions (M-RoPE). "
            "Qwen2.5-VL's model card says that adding YaRN this way has a significant impact "
            "on temporal and spatial localization and does not recommend it; for long videos "
            "it suggests raising `max_position_embeddings` instead, since M-RoPE spends "
            "fewer position ids.", model=cfg.name)))
    if m == "dynamic" and cfg.method == "none":
        notes.append(("dynamic", Message(
            "Dynamic NTK recomputes the base for each input length past L = {original}: "
            "inputs up to L run the model's plain spectrum, as trained, but during generation "
            "the keys already cached were rotated with the base of an earlier length.",
            original=n(plan.original))))
    elif m == "dynamic":
        notes.append(("dynamic", Message(
            "Dynamic NTK recomputes the base for each input length past L = {original}, and "
            "inputs up to L run the plain spectrum, not {model}'s own {own} scaling, which its "
            "config applies at every length; during generation the keys already cached were "
            "rotated with the base of an earlier length.",
            original=n(plan.original), model=cfg.name, own=cfg.method)))
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
    ``extended_config(...).theta(T)`` at the target T. The largest angle a pair has seen
    is R theta_i or, for a model trained at L_train with the plain spectrum (its
    ``training_context`` equals its L, or it has no scaling), the larger of that and
    L_train base^(-2i/d). A pair whose largest angle seen reaches 2 pi has seen every
    angle; any other is pushed out when T theta'_i exceeds its largest angle seen
    (relative tolerance 1e-9: NTK divides the slowest pair by exactly s).

    Returns:
        ``rotary_dim/2`` rows: leading model, method, reach R [tokens], training context
        [tokens] (NaN when unknown), target context T [tokens]; then pair, theta before
        [rad/token], theta after [rad/token], wavelength before [tokens], wavelength after
        [tokens], largest angle seen [rad] (NaN when the pair turned), largest angle at T
        [rad], angle ratio (largest angle at T / largest angle seen), turned (bool),
        pushed out (bool).
    """
    plan = _plan(config, target_context, method, params)
    before, after, seen, at_target = _angles(plan)  # (d/2,) each
    wave_before, wave_after = 2 * math.pi / before, 2 * math.pi / after  # (d/2,)
    turned = seen >= 2 * math.pi
    ratio = at_target / seen
    pushed = ~turned & (ratio > 1 + _RELATIVE)
    trained = config.training_context
    return pd.DataFrame({
        "model": config.name, "method": plan.method, "reach R [tokens]": reach(config),
        "training context [tokens]": math.nan if trained is None else trained,
        "target context T [tokens]": plan.target,
        "pair": range(before.numel()), "theta before [rad/token]": before.numpy(),
        "theta after [rad/token]": after.numpy(), "wavelength before [tokens]":
            wave_before.numpy(), "wavelength after [tokens]": wave_after.numpy(),
        "largest angle seen [rad]": seen.where(~turned, math.nan).numpy(),
        "largest angle at T [rad]": at_target.numpy(), "angle ratio": ratio.numpy(),
        "turned": turned.numpy(), "pushed out": pushed.numpy()})


def settings_table(config: RopeConfig, target_context: int, method: str,
                   **params) -> pd.DataFrame:
    """The settings of :func:`engine_settings` as a table, one row per engine and setting.

    Leading columns (the choice that produced it): model, method, original context L
    [tokens], target context T [tokens], scale s = T/L, attention factor a (at T, on cos
    and sin), softmax scale multiplier m (outside RoPE: DeepSeek's mscale^2, else 1),
    rotated logit multiplier a^2 m; then engine, supported, setting (a flag or a
    config.json key; "refused" for a refusal), value (the JSON or flag value as written;
    the refusal's English text).
    """
    plan = _plan(config, target_context, method, params)
    settings = engine_settings(config, target_context, method, **params)
    extended = extended_config(config, target_context, method, **params)
    _theta, a = extended.theta(plan.target)
    lead = {"model": config.name, "method": plan.method,
            "original context L [tokens]": plan.original,
            "target context T [tokens]": plan.target, "scale s = T/L": plan.scale,
            "attention factor a": a, "softmax scale multiplier m": extended.softmax_scale,
            "rotated logit multiplier a^2 m": a * a * extended.softmax_scale}
    return _settings_frame(settings, lead)


def _settings_frame(settings: dict, lead: dict) -> pd.DataFrame:
    """One row per engine and setting ("refused" and the English reason for a refusal; "none"
    and an empty value for an entry with nothing to set), after the ``lead`` columns."""
    rows = []
    for engine in ENGINES:
        entry = settings[engine]
        if not entry["supported"]:
            rows.append((engine, False, "refused", str(entry["refusal"])))
            continue
        if not entry["settings"]:
            rows.append((engine, True, "none", ""))
        for key, value in entry["settings"].items():
            rows.append((engine, True, key, value if isinstance(value, str) else _json(value)))
    frame = pd.DataFrame(rows, columns=["engine", "supported", "setting", "value"])
    for n, (name, value) in enumerate(lead.items()):
        frame.insert(n, name, value)
    return frame


def context_table(config: RopeConfig, target_context: int) -> pd.DataFrame:
    """The settings of :func:`context_settings` as a table, one row per engine and setting.

    Leading columns: model, reach R [tokens], configured context [tokens], target context
    T [tokens], why no RoPE change is needed (:func:`no_change`'s kind: "reached" or
    "windows"); then engine, supported, setting ("none" where nothing is set, "refused"),
    value.
    """
    settings = context_settings(config, target_context)
    kind, _message = no_change(config, target_context)
    lead = {"model": config.name, "reach R [tokens]": reach(config),
            "configured context [tokens]": config.max_context,
            "target context T [tokens]": int(target_context), "no RoPE change because": kind}
    return _settings_frame(settings, lead)


__all__ = ["CHECKED", "ENGINES", "ENGINE_TRANSFORMERS", "ENGINE_VERSIONS", "LLAMA_CPP_PYTHON",
           "METHODS", "NOTE_KINDS", "PUBLISHED_MAX_FACTOR", "SOURCES", "STATIC",
           "TRANSFORMERS_PINNED", "WARNING_KINDS", "Checked", "LayerCounts", "built_context",
           "context_settings", "context_table", "engine_settings", "extended_config",
           "layer_counts", "no_change", "range_table", "reach", "serving_notes",
           "settings_table"]
