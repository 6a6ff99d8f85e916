"""PRESETS: each real model's published config.json, read by RopeConfig.from_hf."""

import math

import pytest
import torch

import rope_core as rc
from rope_core.presets import HF_CONFIGS

# (head_dim, rotary_dim, base, layout, method, L, max) from the config.json fields, by hand:
# head_dim = hidden_size / num_attention_heads unless given.
EXPECTED = {
    "Llama 2 7B": (128, 128, 10000.0, "half", "none", 4096, 4096),
    "Llama 3.1 8B": (128, 128, 500000.0, "half", "llama3", 8192, 131072),
    "Llama 3.2 1B": (64, 64, 500000.0, "half", "llama3", 8192, 131072),
    "Mistral 7B v0.1": (128, 128, 10000.0, "half", "none", 32768, 32768),
    "Mistral 7B v0.3": (128, 128, 1e6, "half", "none", 32768, 32768),
    "Qwen2.5 7B": (128, 128, 1e6, "half", "none", 32768, 32768),  # 3584 / 28
    "Qwen2.5 7B (YaRN 128K)": (128, 128, 1e6, "half", "yarn", 32768, 131072),
    "Gemma 2 9B": (256, 256, 10000.0, "half", "none", 8192, 8192),
    "Gemma 3 4B": (256, 256, 1e6, "half", "linear", 131072, 131072),
    "Phi-3.5 mini": (96, 96, 10000.0, "half", "longrope", 4096, 131072),  # 3072 / 32
    "DeepSeek-V3": (192, 64, 10000.0, "interleaved", "yarn", 4096, 163840),  # 128 + 64
    "GPT-NeoX-20B": (96, 24, 10000.0, "half", "none", 2048, 2048),  # 6144 / 64, 25 %
    "GPT-J 6B": (256, 64, 10000.0, "interleaved", "none", 2048, 2048),  # 4096 / 16
    "ChatGLM3 6B": (128, 64, 10000.0, "interleaved", "none", 8192, 8192),
    "Qwen2-VL 7B": (128, 128, 1e6, "half", "none", 32768, 32768),
}


def test_at_least_the_required_presets():
    assert set(rc.PRESETS) == set(EXPECTED) == set(HF_CONFIGS)
    assert len(rc.PRESETS) >= 12


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_fields(name):
    p = rc.PRESETS[name]
    assert (p.head_dim, p.rotary_dim, p.base, p.layout, p.method, p.original_context,
            p.max_context) == EXPECTED[name]
    assert p == rc.RopeConfig.from_hf(HF_CONFIGS[name], name=name)  # parser round trip
    theta, att = p.theta(seq_len=p.max_context)
    assert theta.shape == (p.rotary_dim // 2,)
    assert bool(torch.isfinite(theta).all()) and bool((theta > 0).all()) and att > 0


def test_special_fields():
    assert rc.PRESETS["Gemma 3 4B"].local_base == 10000.0
    assert rc.PRESETS["Gemma 3 4B"].params_dict == {"factor": 8.0}
    assert rc.PRESETS["Qwen2-VL 7B"].mrope_section == (16, 24, 24)  # sums to 128 / 2
    ds = rc.PRESETS["DeepSeek-V3"].params_dict
    assert (ds["factor"], ds["mscale"], ds["mscale_all_dim"], ds["beta_fast"], ds["beta_slow"]) \
        == (40, 1.0, 1.0, 32, 1)
    phi = rc.PRESETS["Phi-3.5 mini"].params_dict
    assert len(phi["short_factor"]) == len(phi["long_factor"]) == 48  # 96 / 2


def test_attention_factors_by_hand():
    assert rc.PRESETS["Qwen2.5 7B (YaRN 128K)"].theta()[1] == \
        pytest.approx(1 + 0.1 * math.log(4), rel=1e-15)
    assert rc.PRESETS["DeepSeek-V3"].theta()[1] == pytest.approx(1.0, rel=1e-15)
    assert rc.PRESETS["Phi-3.5 mini"].theta()[1] == pytest.approx(math.sqrt(17 / 12), rel=1e-15)


def test_phi35_switches_factor_lists_after_4096():
    p = rc.PRESETS["Phi-3.5 mini"]
    plain = [1e4 ** (-i / 48) for i in range(48)]
    short, long = p.params_dict["short_factor"], p.params_dict["long_factor"]
    assert p.theta(4096)[0].tolist() == pytest.approx([t / f for t, f in zip(plain, short)],
                                                      rel=1e-14)
    assert p.theta(4097)[0].tolist() == pytest.approx([t / f for t, f in zip(plain, long)],
                                                      rel=1e-14)
