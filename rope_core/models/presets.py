"""Real models' RoPE settings, built from their published config.json values.

Each preset is :meth:`RopeConfig.from_hf` applied to a dict literal holding
the RoPE-relevant fields of the model's ``config.json`` on the Hugging Face
Hub, so every preset also exercises the parser. :data:`SOURCES` names, for
each preset, where its values come from (the Hub repository's config.json,
the public copy the values were checked against, the model card); fields a
config.json omits and transformers fills from the model class's defaults are
written out and marked "(class default)".

:data:`TRAINING` holds the pre-training context of the presets whose
config.json does not say it (its max_position_embeddings is a configured
context, not the training length), with the paper or card that does. It sets
the preset's ``training_context``; it also sets ``original_context`` (the L of
context extension) unless the config's rope_scaling already names one
(``original_max_position_embeddings``, the L its scaling was built on, which
stays: Llama 4 Scout's llama3 scaling starts from 8,192 though the model was
trained at 262,144).
"""

from __future__ import annotations

import dataclasses

from ..support._checks import N_
from .config import RopeConfig

# microsoft/Phi-3.5-mini-instruct, config.json "rope_scaling" (type "longrope"): 48 = 96/2
# factors each. Cross-checked against two independent public copies of that config.json.
PHI35_LONG_FACTOR = [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601,
    1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661,
    3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432,
    7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945,
    24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992,
    50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305,
    58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203,
    62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094,
    63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938,
    64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062,
]
PHI35_SHORT_FACTOR = [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252,
    1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083,
    1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903,
    1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713,
    2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.8399994373321533,
]

# microsoft/Phi-4-mini-instruct, config.json "rope_scaling" (type "longrope"): 48 = 96/2
# long factors (its short factors are 48 ones).
PHI4_MINI_LONG_FACTOR = [
    1, 1.118320672, 1.250641126, 1.398617824, 1.564103225, 1.74916897, 1.956131817,
    2.187582649, 2.446418898, 2.735880826, 3.059592084, 3.421605075, 3.826451687,
    4.279200023, 4.785517845, 5.351743533, 5.984965424, 6.693110555, 7.485043894,
    8.370679318, 9.36110372, 10.4687158, 11.70738129, 13.09260651, 14.64173252,
    16.37415215, 18.31155283, 20.47818807, 22.90118105, 25.61086418, 28.64115884,
    32.03, 32.1, 32.13, 32.23, 32.6, 32.61, 32.64, 32.66, 32.7, 32.71, 32.93, 32.97, 33.28,
    33.49, 33.5, 44.16, 47.77,
]

# Qwen/Qwen2.5-7B-Instruct, config.json
QWEN25_7B = {
    "model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
    "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
    "rope_scaling": None,
}
# Qwen/Qwen3-8B, config.json (explicit head_dim 128 = 4096 / 32)
QWEN3_8B = {
    "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
    "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0,
    "rope_scaling": None,
}


def _readme_scaling(config: dict, rope_scaling: dict) -> dict:
    """A model card's long-context recipe applied to its config.json: ``rope_scaling``
    added, and max_position_embeddings set to the length it reaches,
    factor x original_max_position_embeddings."""
    reach = rope_scaling["factor"] * rope_scaling["original_max_position_embeddings"]
    return {**config, "max_position_embeddings": int(reach), "rope_scaling": rope_scaling}


HF_CONFIGS: dict[str, dict] = {
    # meta-llama/Llama-2-7b-hf, config.json (no rope_theta: transformers' default 10000)
    "Llama 2 7B": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 4096, "rope_scaling": None,
    },
    # meta-llama/Llama-3.1-8B, config.json
    "Llama 3.1 8B": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    # meta-llama/Llama-3.2-1B, config.json
    "Llama 3.2 1B": {
        "model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64,
        "num_hidden_layers": 16, "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    # mistralai/Mistral-7B-v0.1, config.json
    "Mistral 7B v0.1": {
        "model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0,
        "sliding_window": 4096,
    },
    # mistralai/Mistral-7B-v0.3, config.json
    "Mistral 7B v0.3": {
        "model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "sliding_window": None,
    },
    "Qwen2.5 7B": QWEN25_7B,
    # Qwen/Qwen2.5-7B-Instruct, README.md "Processing Long Texts": add this rope_scaling to
    # config.json for 131,072 tokens (config.json itself keeps max_position_embeddings 32768)
    "Qwen2.5 7B (YaRN 128K)": _readme_scaling(
        QWEN25_7B, {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}),
    # google/gemma-2-9b, config.json
    "Gemma 2 9B": {
        "model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16, "head_dim": 256,
        "num_hidden_layers": 42, "max_position_embeddings": 8192, "rope_theta": 10000.0,
        "sliding_window": 4096,
    },
    # google/gemma-3-4b-it, config.json "text_config" (hidden_size, num_hidden_layers,
    # sliding_window, rope_scaling); head_dim, num_attention_heads, rope_theta,
    # rope_local_base_freq, max_position_embeddings, sliding_window_pattern are
    # Gemma3TextConfig's (class default). Global layers: base 1e6, linear x8; local: 10000.
    "Gemma 3 4B": {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8,
            "head_dim": 256, "num_hidden_layers": 34, "sliding_window": 1024,
            "sliding_window_pattern": 6, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
            "rope_local_base_freq": 10000.0,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        },
    },
    # microsoft/Phi-3.5-mini-instruct, config.json (LongRoPE; s = 131072 / 4096 = 32)
    "Phi-3.5 mini": {
        "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": PHI35_LONG_FACTOR, "short_factor": PHI35_SHORT_FACTOR,
                         "type": "longrope"},
    },
    # deepseek-ai/DeepSeek-V3, config.json. (Its attention also multiplies the softmax
    # scale by (0.1 * mscale_all_dim * ln 40 + 1)^2, outside RoPE.)
    "DeepSeek-V3": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "max_position_embeddings": 163840,
        "num_hidden_layers": 61,
        "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
                         "type": "yarn"},
    },
    # EleutherAI/gpt-neox-20b, config.json (Pythia uses the same rotary_pct 0.25)
    "GPT-NeoX-20B": {
        "model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64,
        "rotary_pct": 0.25, "rotary_emb_base": 10000, "max_position_embeddings": 2048,
        "num_hidden_layers": 44,
    },
    # EleutherAI/gpt-j-6b, config.json (rotate_every_two: interleaved)
    "GPT-J 6B": {
        "model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64,
        "n_positions": 2048, "n_layer": 28,
    },
    # THUDM/chatglm3-6b, config.json (kv_channels 128; the model code rotates the first
    # kv_channels / 2 = 64 dims, interleaved; no rope_ratio, i.e. base 10000)
    "ChatGLM3 6B": {
        "model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32,
        "kv_channels": 128, "seq_length": 8192, "num_layers": 28,
    },
    # Qwen/Qwen2-VL-7B-Instruct, config.json (M-RoPE: 16 temporal, 24 height, 24 width pairs)
    "Qwen2-VL 7B": {
        "model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    },
    # meta-llama/Llama-4-Scout-17B-16E-Instruct, config.json "text_config" (iRoPE: RoPE with
    # chunked attention on 3 of 4 layers, every 4th layer NoPE with global attention and the
    # attention-temperature tuning of its queries; llama3 scaling with equal freq factors)
    "Llama 4 Scout": {
        "model_type": "llama4",
        "text_config": {
            "model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
            "head_dim": 128, "num_hidden_layers": 48, "max_position_embeddings": 10485760,
            "rope_theta": 500000.0, "attention_chunk_size": 8192,
            # attn_temperature_tuning: 4 in config.json; the modeling code only tests it for
            # truth, and transformers 5.23's Llama4TextConfig accepts only a bool
            "no_rope_layers": [1, 1, 1, 0] * 12, "attn_temperature_tuning": True,
            "floor_scale": 8192, "attn_scale": 0.1,
            "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                             "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        },
    },
    "Qwen3 8B": QWEN3_8B,
    # Qwen/Qwen3-8B, README.md "Processing Long Texts": natively 32,768 tokens; add this
    # rope_scaling for 131,072
    "Qwen3 8B (YaRN 128K)": _readme_scaling(
        QWEN3_8B, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}),
    # openai/gpt-oss-20b, config.json (YaRN without truncation; sliding window 128 on
    # every other layer, the first sliding)
    "gpt-oss-20b": {
        "model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64,
        "num_hidden_layers": 24, "max_position_embeddings": 131072, "rope_theta": 150000,
        "sliding_window": 128,
        "layer_types": ["sliding_attention", "full_attention"] * 12,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                         "original_max_position_embeddings": 4096, "rope_type": "yarn",
                         "truncate": False},
    },
    # zai-org/GLM-4-9B-0414 (formerly THUDM/GLM-4-9B-0414), config.json (model_type glm4:
    # half of each head rotates, interleaved pairs)
    "GLM-4-9B-0414": {
        "model_type": "glm4", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
        "num_hidden_layers": 40, "partial_rotary_factor": 0.5, "rope_theta": 10000.0,
        "max_position_embeddings": 32768,
    },
    # microsoft/Phi-4-mini-instruct, config.json (LongRoPE on 96 of 128 dims; short factors
    # all 1)
    "Phi-4-mini": {
        "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24,
        "num_hidden_layers": 32, "partial_rotary_factor": 0.75, "rope_theta": 10000.0,
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
        "rope_scaling": {"long_factor": PHI4_MINI_LONG_FACTOR, "short_factor": [1.0] * 48,
                         "type": "longrope"},
    },
    # CohereLabs/c4ai-command-r7b-12-2024, config.json (cohere2: RoPE on the three
    # sliding-window layers of every four, the fourth global without positions).
    # max_position_embeddings 132096 is the current Hub file; early copies said 8192.
    "Command R7B": {
        "model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32,
        "head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 132096,
        "rope_theta": 50000.0, "sliding_window": 4096, "sliding_window_pattern": 4,
    },
    # HuggingFaceTB/SmolLM3-3B, config.json (every 4th layer NoPE)
    "SmolLM3 3B": {
        "model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
        "num_hidden_layers": 36, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "rope_scaling": None, "no_rope_layer_interval": 4,
        "no_rope_layers": [1, 1, 1, 0] * 9, "use_sliding_window": False,
        "sliding_window": None,
    },
    # Qwen/Qwen2.5-VL-7B-Instruct, config.json (M-RoPE: 16 temporal, 24 height, 24 width
    # pairs)
    "Qwen2.5-VL 7B": {
        "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "num_hidden_layers": 28, "max_position_embeddings": 128000, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    },
    # Qwen/Qwen3-VL-8B-Instruct, config.json "text_config" (interleaved M-RoPE 24/20/20)
    "Qwen3-VL 8B": {
        "model_type": "qwen3_vl",
        "text_config": {
            "model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
            "head_dim": 128, "num_hidden_layers": 36, "max_position_embeddings": 262144,
            "rope_theta": 5000000,
            "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20],
                             "rope_type": "default"},
        },
    },
    # google/gemma-4-31B-it, config.json text_config: 60 layers, every sixth global (the
    # last global), sliding window 1,024; the sliding layers' heads of 256 rotate whole at
    # base 10,000, the global layers' heads of 512 rotate a quarter (proportional RoPE,
    # base 1,000,000); configured for 262,144 tokens (256K)
    "Gemma 4 31B": {
        "model_type": "gemma4",
        "text_config": {
            "model_type": "gemma4_text", "hidden_size": 5376, "num_attention_heads": 32,
            "head_dim": 256, "global_head_dim": 512, "num_hidden_layers": 60,
            "sliding_window": 1024, "max_position_embeddings": 262144,
            "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 10,
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                   "rope_theta": 1000000.0}},
        },
    },
    # deepseek-ai/DeepSeek-V4-Flash, config.json: 43 layers; compress_ratios 0 (a 128-token
    # sliding window only), 4 (compressed sparse attention) and 128 (heavily compressed),
    # 44 entries: the 44th (0) is the multi-token-prediction block, which transformers'
    # DeepseekV4Config cuts off (layer_types[:43]), so layer 42 is compressed (ratio 4);
    # RoPE on the last 64 of 512 dims, base 10,000 on the window-only layers, 160,000 with
    # YaRN x16 on the compressed ones
    "DeepSeek-V4-Flash": {
        "model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64,
        "head_dim": 512, "qk_rope_head_dim": 64, "num_hidden_layers": 43,
        "max_position_embeddings": 1048576, "rope_theta": 10000, "compress_rope_theta": 160000,
        "sliding_window": 128, "compress_ratios": [0, 0] + [4, 128] * 20 + [4, 0],
        "rope_scaling": {"rope_type": "yarn", "factor": 16, "beta_fast": 32, "beta_slow": 1,
                         "original_max_position_embeddings": 65536},
    },
    # Qwen/Qwen3-Next-80B-A3B-Instruct, config.json: one gated-attention layer in four (the
    # others Gated DeltaNet), a quarter of each 256-dim head rotated
    "Qwen3-Next-80B-A3B": {
        "model_type": "qwen3_next", "hidden_size": 2048, "num_attention_heads": 16,
        "head_dim": 256, "num_hidden_layers": 48, "full_attention_interval": 4,
        "partial_rotary_factor": 0.25, "rope_theta": 5000000, "rope_scaling": None,
        "max_position_embeddings": 262144,
    },
    # Qwen/Qwen3.5-27B, config.json text_config: 64 layers, one full-attention layer in
    # four, a quarter of each 256-dim head rotated, base 10,000,000; interleaved M-RoPE,
    # 11 temporal, 11 height, 10 width pairs (the 32 rotated pairs)
    "Qwen3.5-27B": {
        "model_type": "qwen3_5",
        "text_config": {
            "model_type": "qwen3_5_text", "hidden_size": 5120, "num_attention_heads": 24,
            "head_dim": 256, "num_hidden_layers": 64, "full_attention_interval": 4,
            "max_position_embeddings": 262144,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000000,
                                "partial_rotary_factor": 0.25, "mrope_interleaved": True,
                                "mrope_section": [11, 11, 10]},
        },
    },
    # LGAI-EXAONE/EXAONE-4.0-32B, config.json: three sliding-window layers (4,096) with RoPE,
    # then a global layer without (sliding_window_pattern "LLLG", written out in
    # layer_types); llama3 scaling x16 from 8,192
    "EXAONE 4.0 32B": {
        "model_type": "exaone4", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
        "num_hidden_layers": 64, "max_position_embeddings": 131072, "rope_theta": 1000000,
        "sliding_window": 4096, "sliding_window_pattern": "LLLG",
        "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 16,
        "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    # allenai/Olmo-3-1025-7B, config.json: three sliding-window layers (4,096), then a full
    # one; YaRN x8 from 8,192, which transformers applies to the full layers only
    "OLMo 3 7B": {
        "model_type": "olmo3", "hidden_size": 4096, "num_attention_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 65536, "rope_theta": 500000,
        "sliding_window": 4096,
        "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 8,
        "rope_scaling": {"attention_factor": 1.2079441541679836, "beta_fast": 32.0,
                         "beta_slow": 1.0, "factor": 8.0,
                         "original_max_position_embeddings": 8192, "rope_type": "yarn"},
    },
    # zai-org/GLM-4.5-Air, config.json: half of each 128-dim head rotated, in halves
    # (glm4_moe's rotate_half, unlike GLM-4's interleaved pairs)
    "GLM-4.5-Air": {
        "model_type": "glm4_moe", "hidden_size": 4096, "num_attention_heads": 96, "head_dim": 128,
        "num_hidden_layers": 46, "partial_rotary_factor": 0.5, "rope_theta": 1000000,
        "rope_scaling": None, "max_position_embeddings": 131072,
    },
    # MiniMaxAI/MiniMax-M2, config.json: full attention in every layer, 64 of 128 dims rotated
    # (its legacy rotary_dim)
    "MiniMax-M2": {
        "model_type": "minimax_m2", "hidden_size": 3072, "num_attention_heads": 48,
        "head_dim": 128, "num_hidden_layers": 62, "rotary_dim": 64, "rope_theta": 5000000,
        "max_position_embeddings": 196608,
    },
    # mistralai/Ministral-3-8B-Base-2512, config.json text_config (what transformers'
    # Ministral3Config also defaults to): YaRN x16 from 16,384 and llama_4_scaling_beta 0.1
    "Ministral 3 8B": {
        "model_type": "mistral3",
        "text_config": {
            "model_type": "ministral3", "hidden_size": 4096, "num_attention_heads": 32,
            "head_dim": 128, "num_hidden_layers": 34, "max_position_embeddings": 262144,
            "rope_parameters": {"type": "yarn", "rope_type": "yarn", "rope_theta": 1000000.0,
                                "factor": 16.0, "original_max_position_embeddings": 16384,
                                "max_position_embeddings": 262144, "beta_fast": 32.0,
                                "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                                "llama_4_scaling_beta": 0.1},
        },
    },
    # arcee-ai/Trinity-Nano-Preview, config.json (afmoe): a global layer every fourth
    # (global_attn_every_n_layers), without RoPE; the others slide over 2,048 tokens
    "Trinity Nano": {
        "model_type": "afmoe", "hidden_size": 1024, "num_attention_heads": 8, "head_dim": 128,
        "num_hidden_layers": 56, "global_attn_every_n_layers": 4, "sliding_window": 2048,
        "rope_theta": 10000, "rope_scaling": None, "max_position_embeddings": 131072,
    },
    # LiquidAI/LFM2-350M, config.json: short convolutions, attention at six of 16 layers
    "LFM2-350M": {
        "model_type": "lfm2", "hidden_size": 1024, "num_attention_heads": 16,
        "num_hidden_layers": 16, "full_attn_idxs": [2, 5, 8, 10, 12, 14],
        "rope_theta": 1000000.0, "max_position_embeddings": 128000,
    },
    # ibm-granite/granite-4.0-h-350m, config.json: Mamba-2 layers, attention at four of 32
    # layers, and those attend without RoPE (position_embedding_type "nope")
    "Granite 4.0-H 350M": {
        "model_type": "granitemoehybrid", "hidden_size": 768, "num_attention_heads": 12,
        "num_key_value_heads": 4, "num_hidden_layers": 32,
        "layer_types": ["mamba"] * 10 + ["attention"] + ["mamba"] * 2 + ["attention"]
        + ["mamba"] * 3 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 4,
        "position_embedding_type": "nope", "rope_theta": 10000,
        "max_position_embeddings": 32768,
    },
}

# Where each preset's values come from. "Hub" = huggingface.co/<repo>/blob/main/config.json.
SOURCES: dict[str, str] = {
    "Llama 2 7B": "Hub meta-llama/Llama-2-7b-hf, config.json",
    "Llama 3.1 8B": "Hub meta-llama/Llama-3.1-8B, config.json",
    "Llama 3.2 1B": "Hub meta-llama/Llama-3.2-1B, config.json",
    "Mistral 7B v0.1": "Hub mistralai/Mistral-7B-v0.1, config.json; context 8,192: "
                       "Jiang et al. 2023, Mistral 7B (arXiv:2310.06825), Table 1 "
                       "(model architecture, context_len 8192)",
    "Mistral 7B v0.3": "Hub mistralai/Mistral-7B-v0.3, config.json",
    "Qwen2.5 7B": "Hub Qwen/Qwen2.5-7B-Instruct, config.json; context 32,768: its README.md "
                  "(Processing Long Texts: the config is set for 32,768 tokens) and Qwen Team "
                  "2024, Qwen2.5 Technical Report (arXiv:2412.15115): the context extended "
                  "from 4,096 to 32,768 tokens in the final pre-training stage",
    "Qwen2.5 7B (YaRN 128K)": "Hub Qwen/Qwen2.5-7B-Instruct, README.md (Processing Long "
                              "Texts: config.json is set for 32,768 tokens; add this "
                              "rope_scaling to handle longer inputs)",
    "Gemma 2 9B": "Hub google/gemma-2-9b, config.json",
    "Gemma 3 4B": "Hub google/gemma-3-4b-it, config.json text_config, Gemma3TextConfig "
                  "defaults; training context 32K and RoPE rescaled x8 on the global layers "
                  "only: Gemma Team 2025, Gemma 3 Technical Report (arXiv:2503.19786), "
                  "its long-context paragraphs",
    "Phi-3.5 mini": "Hub microsoft/Phi-3.5-mini-instruct, config.json",
    "DeepSeek-V3": "Hub deepseek-ai/DeepSeek-V3, config.json",
    "GPT-NeoX-20B": "Hub EleutherAI/gpt-neox-20b, config.json",
    "GPT-J 6B": "Hub EleutherAI/gpt-j-6b, config.json",
    "ChatGLM3 6B": "Hub THUDM/chatglm3-6b, config.json",
    "Qwen2-VL 7B": "Hub Qwen/Qwen2-VL-7B-Instruct, config.json",
    "Llama 4 Scout": "Hub meta-llama/Llama-4-Scout-17B-16E-Instruct, config.json text_config "
                     "(gated; no_rope_layers [1, 1, 1, 0] x 12, what Llama4TextConfig also "
                     "derives from its default no_rope_layer_interval 4); llama3 scaling as in "
                     "github.com/meta-llama/llama-models, models/llama4/args.py (Scout only: "
                     "rope_scaling_factor 16, rope_high_freq_factor 1; floor_scale 8192, "
                     "attn_scale 0.1) and model.py (apply_scaling: low_freq_factor 1, "
                     "old_context_len 8192); training context 262,144: Meta 2025, The Llama 4 "
                     "herd (ai.meta.com blog, 5 April 2025): Scout pre- and post-trained "
                     "with a 256K context length",
    "Qwen3 8B": "Hub Qwen/Qwen3-8B, config.json; context 32,768: Hub Qwen/Qwen3-8B, "
                "README.md (Model Overview: \"Context Length: 32,768 natively and 131,072 "
                "tokens with YaRN\"; Processing Long Texts: YaRN with factor 4.0 from "
                "original_max_position_embeddings 32768)",
    "Qwen3 8B (YaRN 128K)": "Hub Qwen/Qwen3-8B, README.md (Model Overview: 32,768 tokens "
                            "natively; Processing Long Texts: rope_type yarn, factor 4.0, "
                            "original_max_position_embeddings 32768, added when long inputs "
                            "are expected)",
    "gpt-oss-20b": "Hub openai/gpt-oss-20b, config.json and model card",
    "GLM-4-9B-0414": "Hub zai-org/GLM-4-9B-0414 (formerly THUDM/GLM-4-9B-0414), "
                     "config.json",
    "Phi-4-mini": "Hub microsoft/Phi-4-mini-instruct, config.json (revision cfbefacb; "
                  "long_factor checked against several public copies of that file)",
    "Command R7B": "Hub CohereLabs/c4ai-command-r7b-12-2024, config.json "
                   "(max_position_embeddings 132096; early copies 8192); transformers' "
                   "docs/source/en/model_doc/cohere2.md (three sliding-window RoPE layers, "
                   "a fourth global layer without positional embeddings)",
    "SmolLM3 3B": "Hub HuggingFaceTB/SmolLM3-3B, config.json (copy: github.com/fetchwiki/"
                  "HuggingFaceTB-SmolLM3-3B, config.json)",
    "Qwen2.5-VL 7B": "Hub Qwen/Qwen2.5-VL-7B-Instruct, config.json; context 32,768: its "
                     "README.md (Processing Long Texts: the config is set for 32,768 tokens, "
                     "YaRN x4 from original_max_position_embeddings 32768 beyond, not advised "
                     "for temporal and spatial localization)",
    "Qwen3-VL 8B": "Hub Qwen/Qwen3-VL-8B-Instruct, config.json text_config",
    "Gemma 4 31B": "Hub google/gemma-4-31B-it, config.json text_config, values as "
                   "published in Google's Gemma 4 model card (ai.google.dev/gemma/docs/core: "
                   "the medium models' 256K context; model_card_4: hybrid attention with a "
                   "1,024-token sliding window, proportional RoPE on the global layers) and "
                   "restated from that config by S. Raschka's Gemma 4 notes "
                   "(sebastianraschka.com/blog/2026/gemma-4-release-notes.html: five sliding "
                   "layers per global one, 256K context); no verbatim copy of the config.json "
                   "was found to check 60 layers, hidden 5376, 32 heads and global_head_dim "
                   "512 against, which only third-party spec pages repeat (apxml.com, the "
                   "Core AI conversion card mlboydaisuke/Gemma-4-31B-CoreAI). RoPE per layer "
                   "type (sliding: default, base 10,000; full: proportional, "
                   "partial_rotary_factor 0.25, base 1,000,000): transformers 5.24 "
                   "Gemma4TextConfig (configuration_gemma4.py, default_rope_params) and "
                   "NVIDIA Megatron-Bridge's Gemma 4 docs (dual RoPE, sliding θ 10,000, "
                   "global θ 1,000,000 with partial rotation)",
    "DeepSeek-V4-Flash": "Hub deepseek-ai/DeepSeek-V4-Flash, config.json, checked against a "
                         "verbatim copy of the file fetched from huggingface.co/deepseek-ai/"
                         "DeepSeek-V4-Flash/resolve/main/config.json (a public mistral.rs port's "
                         "audit note, 'Wave 13 · Agent AH'): 43 layers, head_dim 512, "
                         "qk_rope_head_dim 64, sliding_window 128, rope_theta 10000, "
                         "compress_rope_theta 160000, rope_scaling yarn factor 16 from 65,536, "
                         "compress_ratios [0, 0, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, "
                         "128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, "
                         "4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 0] (44 entries; the same "
                         "note's reading of model.safetensors.index.json: layers 2 to 42 carry "
                         "attn.compressor, the 44th entry is the MTP block); transformers 5.24 "
                         "DeepseekV4Config keeps the first 43 (layer_types[:num_hidden_layers]); "
                         "main RoPE on window-only layers, compress RoPE with YaRN (attention "
                         "factor 1) on the others, and every layer's 128-token raw window beside "
                         "the compressed keys (positions i·4, i·128; the indexer's top "
                         "index_topk = 512 on CSA layers): configuration_deepseek_v4.py and "
                         "modeling_deepseek_v4.py; 1M tokens: the model card",
    "Qwen3-Next-80B-A3B": "Hub Qwen/Qwen3-Next-80B-A3B-Instruct, config.json (head_dim 256, "
                          "partial_rotary_factor 0.25, rope_theta 5000000, "
                          "full_attention_interval 4, 48 layers, 262,144 positions; checked "
                          "against two public copies of that file)",
    "Qwen3.5-27B": "Hub Qwen/Qwen3.5-27B, config.json text_config; no verbatim copy was "
                   "found here, so its values are as restated by THUDM/slime "
                   "scripts/models/qwen3.5-27B.sh (--num-layers 64, --kv-channels 256, "
                   "--rotary-percent 0.25, --rotary-base 10000000) and by NVIDIA "
                   "Megatron-Bridge's Qwen3.5-27B test config (64 layers, head_dim 256, "
                   "max_position_embeddings 262144, rope_theta 1e7, partial_rotary_factor 0.25, "
                   "mrope_section [11, 11, 10], full_attention_interval 4); interleaved M-RoPE "
                   "(mrope_interleaved true): transformers 5.24 modeling_qwen3_5.py, which "
                   "always interleaves (recomposition_frequencies) with that default section",
    "EXAONE 4.0 32B": "Hub LGAI-EXAONE/EXAONE-4.0-32B, config.json (as in NVIDIA/TensorRT-LLM's "
                      "EXAONE 4 test config: head_dim 128, 64 layers, llama3 factor 16 from "
                      "8,192, rope_theta 1,000,000, sliding_window 4096, "
                      "sliding_window_pattern \"LLLG\" with layer_types written out, three "
                      "sliding layers and a full one); global layers without RoPE: "
                      "transformers' model_doc/exaone4.md and modeling_exaone4.py",
    "OLMo 3 7B": "Hub allenai/Olmo-3-1025-7B, config.json (rope_theta 500,000, sliding_window "
                 "4096, three sliding layers then a full one, yarn factor 8 from 8,192 with "
                 "attention_factor 1.2079; as quoted by public loader tests); YaRN on the full "
                 "layers only: transformers 5.24 configuration_olmo3.py "
                 "(convert_rope_params_to_dict)",
    "GLM-4.5-Air": "Hub zai-org/GLM-4.5-Air, config.json, as read in llama.cpp PR #15026 "
                   "(github.com/ggml-org/llama.cpp/pull/15026, GLM-4.5 and GLM-4.5-Air: head "
                   "dim 128, partial rotary factor 0.5, RoPE θ 1,000,000, 96 heads, 46 layers, "
                   "131,072 positions) and as loaded by ms-swift from ZhipuAI/GLM-4.5-Air "
                   "(Glm4MoeConfig printed in laocheyujie/ms-swift note/megatron.md: "
                   "rope_theta 1000000); THUDM/slime scripts/models/glm4.5-106B-A12B.sh "
                   "(--rotary-base 1000000, --rotary-percent 0.5); halves, not interleaved: "
                   "transformers modeling_glm4_moe.py (rotate_half)",
    "MiniMax-M2": "Hub MiniMaxAI/MiniMax-M2, config.json (62 layers, 48 heads of 128, "
                  "rotary_dim 64, rope_theta 5,000,000, 196,608 positions; checked against "
                  "several public copies); rotary_dim read as a partial rotary factor: "
                  "transformers configuration_minimax_m2.py",
    "Ministral 3 8B": "Hub mistralai/Ministral-3-8B-Base-2512, config.json text_config; the same "
                      "values are transformers 5.24 Ministral3Config's defaults "
                      "(configuration_ministral3.py, documented for that checkpoint); "
                      "llama_4_scaling_beta applied to the queries: modeling_ministral3.py "
                      "(get_llama_4_attn_scale)",
    "Trinity Nano": "Hub arcee-ai/Trinity-Nano-Preview, config.json (56 layers, head_dim 128, "
                    "global_attn_every_n_layers 4, sliding_window 2048, rope_theta 10000, "
                    "131,072 positions; as copied in a public inference port); global layers "
                    "without RoPE: transformers modeling_afmoe.py",
    "LFM2-350M": "Hub LiquidAI/LFM2-350M, config.json (16 layers, hidden 1024, 16 heads, "
                 "full_attn_idxs [2, 5, 8, 10, 12, 14], rope_theta 1,000,000, 128,000 "
                 "positions; as copied in public loader tests); context 32,768: its model "
                 "card (README.md, 'Context length: 32,768 tokens', copied verbatim in "
                 "Donovan-Porter/CIS4914-Spring-2026-Los-Tamales-Picantes model/README.md) "
                 "and Liquid AI, LFM2 Technical Report (arXiv:2511.23404, abstract: 'all with "
                 "32K context length')",
    "Granite 4.0-H 350M": "Hub ibm-granite/granite-4.0-h-350m, config.json (32 layers, hidden "
                          "768, 12 heads, layer_types with attention at layers 10, 13, 17 and "
                          "27, the rest mamba; position_embedding_type nope; rope_theta "
                          "10,000 unused; 32,768 positions); no copy of IBM's file or card was "
                          "found here: the values rest on two third-party ports that agree, "
                          "a Rust unit test of Lablup's mlxcel ('Values mirror the real "
                          "checkpoint') and hashneo/nano-vllm-go GRANITE_GUIDE.md (4 attention "
                          "+ 28 Mamba2 layers, NoPE, 32K); NoPE read as transformers "
                          "modeling_granitemoehybrid.py does",
}

# Pre-training contexts that a config.json does not give (its max_position_embeddings is
# only a configured context), with their source in SOURCES.
TRAINING: dict[str, int] = {
    "Mistral 7B v0.1": 8192,  # the paper's context_len (Table 1); config.json says 32768
    "Gemma 3 4B": 32768,  # pre-trained at 32K, then RoPE x8 (linear) on the global layers
    # the card: 32,768 natively (YaRN x4 from 32,768 for 131,072); config.json's 40,960 is
    # only max_position_embeddings
    "Qwen3 8B": 32768,
    # Meta: pre- and post-trained at 256K. Its llama3 original_max_position_embeddings
    # 8192 is where its scaling starts (Meta's apply_scaling hard-codes old_context_len = 8192,
    # "original llama3 length"; equal to the chunk size, not derived from it), not the
    # training length; it stays L.
    "Llama 4 Scout": 262144,
    # its card and the LFM2 report: a context of 32,768; config.json's 128,000 is only
    # max_position_embeddings
    "LFM2-350M": 32768,
    # its card ("Processing Long Texts"): the config is set for 32,768 tokens, and YaRN x4
    # from 32,768 for longer inputs; config.json's 128,000 is only max_position_embeddings
    "Qwen2.5-VL 7B": 32768,
    # the cards: 32,768 natively, YaRN x4 added at inference for longer texts (the L of the
    # rope_scaling these presets add stays 32,768 either way); the Qwen2.5 report: the final
    # pre-training stage runs at 32,768
    "Qwen2.5 7B": 32768,
    "Qwen2.5 7B (YaRN 128K)": 32768,
    "Qwen3 8B (YaRN 128K)": 32768,
}

# Presets that are a model card's long-context recipe merged into the model's config.json,
# and the preset of that config.json as the Hub has it: a line that changes no RoPE setting
# runs the recipe only from a config.json (or GGUF) that already carries it.
CARD_RECIPES: dict[str, str] = {"Qwen2.5 7B (YaRN 128K)": "Qwen2.5 7B",
                                "Qwen3 8B (YaRN 128K)": "Qwen3 8B"}

# Notes shown with a preset (English; a page translates them).
NOTES: dict[str, str] = {
    "Gemma 3 4B": N_("Pre-trained at 32K tokens, then extended to 128K at the end of "
                     "pre-training by dividing the global layers' θᵢ by 8 (linear "
                     "interpolation, base 1,000,000); the local layers keep base 10,000 "
                     "unscaled. The factor 8 is not 131,072 / 32,768 = 4."),
    "Mistral 7B v0.1": N_("Its paper gives a context length of 8,192 tokens (Table 1, model "
                          "architecture); `config.json`'s 32,768 is the configured context."),
    "Qwen3 8B": N_("Its model card gives a context of 32,768 tokens natively (131,072 with "
                   "YaRN ×4 from 32,768); `config.json`'s 40,960 is the configured context."),
    "Llama 3.2 1B": N_("Its llama3 factor 32 would reach 32 × 8,192 = 262,144 tokens; the "
                       "model is configured for 131,072."),
    "Llama 4 Scout": N_("Pre-trained and post-trained at 262,144 tokens (256K, Meta's Llama 4 "
                        "post), configured for 10,485,760 (10M). Its llama3 scaling starts "
                        "from L = 8,192 (original_max_position_embeddings; Meta's "
                        "apply_scaling hard-codes old_context_len = 8192, the \"original llama3 "
                        "length\", equal to its attention chunk size but not derived from it) "
                        "and has low_freq_factor = high_freq_factor = 1: no blended band; "
                        "every pair whose wavelength is longer than 8,192 tokens has its θᵢ "
                        "divided by 16, so that wavelength is multiplied by 16."),
    "LFM2-350M": N_("Its model card and the LFM2 report give a context of 32,768 tokens; "
                    "`config.json`'s 128,000 is the configured context."),
    "Qwen2.5-VL 7B": N_("Its model card says its `config.json` is set for 32,768 tokens and "
                        "gives YaRN ×4 from 32,768 for longer inputs (while advising against "
                        "it for temporal and spatial localization); `config.json`'s 128,000 is "
                        "the configured context."),
    "Qwen2.5 7B (YaRN 128K)": N_("Trained at 32,768 tokens; its model card adds this YaRN ×4 "
                                 "at inference only, for inputs longer than 32,768."),
    "Qwen3 8B (YaRN 128K)": N_("Trained at 32,768 tokens; its model card adds this YaRN ×4 at "
                               "inference only, for inputs longer than 32,768."),
    "DeepSeek-V4-Flash": N_("Its compressed layers attend to a raw window of the last 128 "
                            "tokens and to compressed keys of the whole context, one per 4 "
                            "tokens (compressed sparse attention, of which the indexer keeps "
                            "the top 512 per query) or one per 128 tokens (heavily compressed "
                            "attention); its first two layers attend within the window "
                            "only."),
}


def _preset(name: str, cfg: dict) -> RopeConfig:
    preset = RopeConfig.from_hf(cfg, name=name)
    if name in TRAINING:
        # an original_max_position_embeddings the config names is its scaling's L: kept
        names_L = preset.original_context != preset.max_context
        original = preset.original_context if names_L else TRAINING[name]
        preset = dataclasses.replace(preset, original_context=original,
                                     training_context=TRAINING[name])
    return preset


PRESETS: dict[str, RopeConfig] = {name: _preset(name, cfg) for name, cfg in HF_CONFIGS.items()}
