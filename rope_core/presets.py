"""Real models' RoPE settings, built from their published config.json values.

Each preset is :meth:`RopeConfig.from_hf` applied to a dict literal holding
the RoPE-relevant fields of the model's ``config.json`` on the Hugging Face
Hub (repo id and file named in a comment above each), so every preset also
exercises the parser. Fields a config.json omits and transformers fills from
the model class's defaults are written out and marked "(class default)".
"""

from __future__ import annotations

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

HF_CONFIGS: dict[str, dict] = {
    # meta-llama/Llama-2-7b-hf, config.json (no rope_theta: transformers' default 10000)
    "Llama 2 7B": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "max_position_embeddings": 4096, "rope_scaling": None,
    },
    # meta-llama/Llama-3.1-8B, config.json
    "Llama 3.1 8B": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    # meta-llama/Llama-3.2-1B, config.json
    "Llama 3.2 1B": {
        "model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64,
        "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    # mistralai/Mistral-7B-v0.1, config.json
    "Mistral 7B v0.1": {
        "model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
        "max_position_embeddings": 32768, "rope_theta": 10000.0,
    },
    # mistralai/Mistral-7B-v0.3, config.json
    "Mistral 7B v0.3": {
        "model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0,
    },
    # Qwen/Qwen2.5-7B-Instruct, config.json
    "Qwen2.5 7B": {
        "model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rope_scaling": None,
    },
    # Qwen/Qwen2.5-7B-Instruct, README.md "Processing Long Texts": add this rope_scaling to
    # config.json for 131,072 tokens; max_position_embeddings set to that 4 x 32,768 here
    # (config.json itself keeps 32768).
    "Qwen2.5 7B (YaRN 128K)": {
        "model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
        "max_position_embeddings": 131072, "rope_theta": 1000000.0,
        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768,
                         "type": "yarn"},
    },
    # google/gemma-2-9b, config.json
    "Gemma 2 9B": {
        "model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16, "head_dim": 256,
        "max_position_embeddings": 8192, "rope_theta": 10000.0,
    },
    # google/gemma-3-4b-it, config.json "text_config" (hidden_size, rope_scaling); head_dim,
    # num_attention_heads, rope_theta, rope_local_base_freq, max_position_embeddings are
    # Gemma3TextConfig's (class default). Global layers: base 1e6, linear x8; local: 10000.
    "Gemma 3 4B": {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8,
            "head_dim": 256, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
            "rope_local_base_freq": 10000.0,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        },
    },
    # microsoft/Phi-3.5-mini-instruct, config.json (LongRoPE; s = 131072 / 4096 = 32)
    "Phi-3.5 mini": {
        "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": PHI35_LONG_FACTOR, "short_factor": PHI35_SHORT_FACTOR,
                         "type": "longrope"},
    },
    # deepseek-ai/DeepSeek-V3, config.json. (Its attention also multiplies the softmax
    # scale by (0.1 * mscale_all_dim * ln 40 + 1)^2, outside RoPE.)
    "DeepSeek-V3": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "max_position_embeddings": 163840,
        "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
                         "type": "yarn"},
    },
    # EleutherAI/gpt-neox-20b, config.json (Pythia uses the same rotary_pct 0.25)
    "GPT-NeoX-20B": {
        "model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64,
        "rotary_pct": 0.25, "rotary_emb_base": 10000, "max_position_embeddings": 2048,
    },
    # EleutherAI/gpt-j-6b, config.json (rotate_every_two: interleaved)
    "GPT-J 6B": {
        "model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64,
        "n_positions": 2048,
    },
    # THUDM/chatglm3-6b, config.json (kv_channels 128; the model code rotates the first
    # kv_channels / 2 = 64 dims, interleaved; no rope_ratio, i.e. base 10000)
    "ChatGLM3 6B": {
        "model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32,
        "kv_channels": 128, "seq_length": 8192,
    },
    # Qwen/Qwen2-VL-7B-Instruct, config.json (M-RoPE: 16 temporal, 24 height, 24 width pairs)
    "Qwen2-VL 7B": {
        "model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    },
}

PRESETS: dict[str, RopeConfig] = {name: RopeConfig.from_hf(cfg, name=name)
                                  for name, cfg in HF_CONFIGS.items()}
