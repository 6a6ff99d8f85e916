"""rope_core against Hugging Face transformers itself (a test-only dependency).

* every preset: transformers' own config class reads the same config.json dict, and
  its ROPE_INIT_FUNCTIONS (or, for unscaled RoPE, base^(-2i/d) from the base, head dim and
  partial rotary factor that config class resolves) give the same inv_freq and attention
  factor as RopeConfig.theta;
* each family's pair layout: rope_core.apply_rope against the rotation in that family's
  modeling code, on a random vector.

transformers is never imported by the app; without it these tests are skipped.
"""

import copy
import math

import pytest
import torch

import rope_core as rc
from rope_core.models import families
from rope_core.models.presets import HF_CONFIGS

transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt, "
                                                          "test-only) is not installed")
from transformers import AutoConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

NOT_IN_TRANSFORMERS = {"ChatGLM3 6B": "chatglm runs as remote code, not a transformers class"}


def hf_config(name):
    """transformers' config object for the preset's dict (the language model's config for
    multimodal models) and its model_type."""
    d = copy.deepcopy(HF_CONFIGS[name])
    text = d.pop("text_config", None)
    if text is not None:
        d = text
    model_type = d.pop("model_type")
    if "attn_temperature_tuning" in d:  # 4 in Llama 4's config.json; the class wants a bool
        d["attn_temperature_tuning"] = bool(d["attn_temperature_tuning"])
    config = AutoConfig.for_model(model_type, **d)
    return config.get_text_config(), model_type


def hf_rope(config, layer_type=None, seq_len=None, head_dim=None):
    """(inv_freq float64, attention factor) as transformers computes them for the config
    (``head_dim``: the layer's, where the config's varies per layer)."""
    params = getattr(config, "rope_parameters", None)
    if params is None:  # GPT-J: modeling_gptj.create_sinusoidal_positions, base 10000
        dim = config.rotary_dim
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.int64) / dim))
        return inv.double(), 1.0
    if layer_type is not None and layer_type in params:
        params = params[layer_type]
    else:
        layer_type = None
    rope_type = params.get("rope_type", "default")
    if rope_type == "default":
        base = params["rope_theta"]
        head_dim = head_dim or getattr(config, "head_dim", None) or \
            config.hidden_size // config.num_attention_heads
        dim = getattr(config, "rotary_dim", None) or \
            int(head_dim * params.get("partial_rotary_factor", 1.0))
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        return inv.double(), 1.0
    inv, a = ROPE_INIT_FUNCTIONS[rope_type](config, None, seq_len=seq_len, layer_type=layer_type)
    return inv.double(), float(a)


def rope_key(config, model_type: str, layer: int) -> str | None:
    """The rope_parameters entry transformers gives layer ``layer`` (None: a flat dict)."""
    params = getattr(config, "rope_parameters", None)
    types = getattr(config, "layer_types", None)
    if not isinstance(params, dict) or types is None:
        return None
    labels = dict(families.family([model_type])[1].rope_labels or ())
    key = labels.get(types[layer], labels.get("*", types[layer])) if labels else types[layer]
    return key if key in params else None


@pytest.mark.parametrize("name", list(HF_CONFIGS))
def test_spectrum_matches_transformers(name):
    """Each rotating layer group's spectrum (RopeConfig.theta(layer=i)) against
    ROPE_INIT_FUNCTIONS run on that layer's rope_parameters entry; theta() is the main
    group's. Proportional RoPE (Gemma 4's global layers): transformers' inv_freq over the
    whole head, whose non-zero start is rope_core's θ."""
    if name in NOT_IN_TRANSFORMERS:
        pytest.skip(NOT_IN_TRANSFORMERS[name])
    preset = rc.PRESETS[name]
    config, model_type = hf_config(name)
    groups = preset.groups() if preset.layers is not None else ()
    firsts = [g.layers[0] for g in groups if g.spec.rotates] or [None]
    main = preset.main_spec()
    for first in firsts:
        key = None if first is None else rope_key(config, model_type, first)
        per_layer = getattr(config, "per_layer_config", None)  # Gemma 4: head dim per layer
        head_dim = getattr(per_layer[first], "head_dim", None) \
            if per_layer is not None and first is not None else None
        for seq_len in (None, preset.max_context):
            theta, a = preset.theta(seq_len, layer=first)
            inv, a_hf = hf_rope(config, key, seq_len, head_dim)
            if (preset.theta_dim or preset.rotary_dim) != preset.rotary_dim and \
                    (first is None or preset.layer(first) == main):
                assert not bool(inv[theta.numel():].any())  # proportional: zeros after
                inv = inv[:theta.numel()]
            assert theta.shape == inv.shape, (first, key)
            torch.testing.assert_close(theta, inv, rtol=2e-6, atol=0)  # transformers: float32
            assert a == pytest.approx(a_hf, rel=1e-6)
    assert preset.theta()[0].tolist() == preset.main_spec().theta(None)[0].tolist()


def test_gemma3_local_and_global_bases_as_transformers_reads_them():
    config, _ = hf_config("Gemma 3 4B")
    p = rc.PRESETS["Gemma 3 4B"]
    assert config.rope_parameters["full_attention"]["rope_theta"] == p.base == p.layer(5).base
    assert config.rope_parameters["sliding_attention"]["rope_theta"] == p.layer(0).base


LAYER_PRESETS = ["Llama 4 Scout", "SmolLM3 3B", "Command R7B", "Gemma 3 4B", "Gemma 2 9B",
                 "gpt-oss-20b", "Mistral 7B v0.1", "Llama 3.1 8B", "Gemma 4 31B",
                 "Qwen3-Next-80B-A3B", "Qwen3.5-27B", "EXAONE 4.0 32B", "OLMo 3 7B",
                 "Trinity Nano", "LFM2-350M", "Granite 4.0-H 350M"]
ATTENTION = {"full_attention": "full", "sliding_attention": "sliding",
             "chunked_attention": "chunked", "attention": "full"}


@pytest.mark.parametrize("name", LAYER_PRESETS)
def test_layers_match_transformers(name):
    """Which layers attend, rotate and see a window, against the config class: its
    layer_types (or layers_block_type), no_rope_layers (llama4, smollm3), and cohere2's,
    exaone4's and afmoe's rotation in sliding layers only."""
    config, model_type = hf_config(name)
    p = rc.PRESETS[name]
    types = getattr(config, "layer_types", None) or getattr(config, "layers_block_type", None)
    if types is None:  # Mistral: one window for every layer, Llama: none
        window = getattr(config, "sliding_window", None)
        types = ["sliding_attention" if window else "full_attention"] * config.num_hidden_layers
    if model_type == "lfm2":
        types = ["full_attention" if i in config.full_attn_idxs else "conv"
                 for i in range(config.num_hidden_layers)]
    assert types is not None and len(types) == p.layers
    flags = getattr(config, "no_rope_layers", None)
    for i, t in enumerate(types):
        spec = p.layer(i)
        if t not in ATTENTION:
            assert spec.mixer != "attention" and not spec.rotates, (i, t)
            continue
        assert spec.attention == ATTENTION[t], i
        rotates = True
        if flags is not None:
            rotates = bool(flags[i])
        elif model_type in ("cohere2", "exaone4", "afmoe"):
            rotates = t == "sliding_attention"
        elif model_type == "granitemoehybrid":
            rotates = config.position_embedding_type != "nope"
        assert spec.rotates == rotates, i
        window = {"sliding": getattr(config, "sliding_window", None),
                  "chunked": getattr(config, "attention_chunk_size", None)}.get(spec.attention)
        assert spec.window == window, i


def test_llama4_nope_temperature_as_transformers():
    config, _ = hf_config("Llama 4 Scout")
    scout = rc.PRESETS["Llama 4 Scout"]
    assert scout.layer(3).query_scale == ("llama4", config.floor_scale, config.attn_scale)


def test_deepseek_softmax_scale_as_transformers():
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import yarn_apply_mscale
    config, _ = hf_config("DeepSeek-V3")
    scale = yarn_apply_mscale(config.rope_parameters, 1.0)
    assert rc.PRESETS["DeepSeek-V3"].softmax_scale == pytest.approx(scale, rel=1e-12)


# --- layouts: apply_rope against each family's modeling code ----------------------------

def _cos_sin_half(theta, positions, dtype=torch.float64):
    freqs = positions[:, None].to(dtype) * theta[None, :].to(dtype)  # (seq, d/2)
    emb = torch.cat((freqs, freqs), dim=-1)  # (seq, d): the Llama-style cache
    return emb.cos()[None], emb.sin()[None]  # (1, seq, d)


def _cos_sin_interleaved(theta, positions, dtype=torch.float64):
    freqs = positions[:, None].to(dtype) * theta[None, :].to(dtype)
    emb = torch.repeat_interleave(freqs, 2, dim=-1)  # cohere/cohere2's cache
    return emb.cos()[None], emb.sin()[None]


def _inputs(head_dim, rotary_dim, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 2, 5, head_dim, generator=g, dtype=torch.float64)  # (b, heads, seq, d)
    positions = torch.tensor([0, 1, 7, 100, 4095])
    theta = rc.theta(rotary_dim, 10000.0)
    return x, positions, theta


def _ours(x, positions, theta, layout):
    return rc.apply_rope(x, positions, theta, layout=layout, rotary_dim=2 * theta.numel())


@pytest.mark.parametrize("family", ["glm", "glm4"])
def test_glm_layout(family):
    """transformers.models.glm(4).modeling_glm(4).apply_rotary_pos_emb: cos[..., :d/2]
    repeat_interleave(2), rotate_half on x[..., 0::2] / 1::2 (interleaved pairs), partial."""
    module = __import__(f"transformers.models.{family}.modeling_{family}",
                        fromlist=["apply_rotary_pos_emb"])
    x, positions, theta = _inputs(64, 32)
    cos, sin = _cos_sin_half(theta, positions)
    q, _ = module.apply_rotary_pos_emb(x, x, cos, sin)
    assert rc.RopeConfig.from_hf({"model_type": family, "head_dim": 64,
                                  "max_position_embeddings": 8}).layout == "interleaved"
    torch.testing.assert_close(_ours(x, positions, theta, "interleaved"), q)
    assert not torch.allclose(_ours(x, positions, theta, "half"), q)


def test_cohere2_layout():
    """transformers.models.cohere2.modeling_cohere2: Cohere2RotaryEmbedding
    repeat_interleave(freqs, 2) and rotate_half stacking (-x[1::2], x[0::2])."""
    from transformers.models.cohere2.modeling_cohere2 import apply_rotary_pos_emb
    x, positions, theta = _inputs(64, 64)
    cos, sin = _cos_sin_interleaved(theta, positions)
    q, _ = apply_rotary_pos_emb(x.float(), x.float(), cos.float(), sin.float())
    torch.testing.assert_close(_ours(x, positions, theta, "interleaved").float(), q,
                               rtol=1e-5, atol=1e-5)


def test_llama4_layout():
    """transformers.models.llama4.modeling_llama4.apply_rotary_emb: view_as_complex on
    adjacent pairs times freqs_cis (Llama4TextRotaryEmbedding's torch.polar)."""
    from transformers.models.llama4.modeling_llama4 import apply_rotary_emb
    x, positions, theta = _inputs(64, 64)
    xt = x.transpose(1, 2).float()  # (b, seq, heads, d), as Llama4TextAttention calls it
    freqs = positions[:, None].double() * theta[None, :]  # angles in float64, as ours
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs).to(torch.complex64)[None]
    q, _ = apply_rotary_emb(xt, xt, freqs_cis)
    ours = _ours(x, positions, theta, "interleaved").transpose(1, 2).float()
    torch.testing.assert_close(ours, q, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("family", ["llama", "qwen3", "smollm3", "gemma3", "phi3"])
def test_half_layout_families(family):
    """transformers.models.<family>.modeling_<family>.apply_rotary_pos_emb with rotate_half
    on the two halves (phi3: the first rotary_dim coordinates, the rest pass through)."""
    module = __import__(f"transformers.models.{family}.modeling_{family}",
                        fromlist=["apply_rotary_pos_emb"])
    rotary = 48 if family == "phi3" else 64
    x, positions, theta = _inputs(64, rotary)
    cos, sin = _cos_sin_half(theta, positions)
    q, _ = module.apply_rotary_pos_emb(x, x, cos, sin)
    torch.testing.assert_close(_ours(x, positions, theta, "half"), q)


def test_gpt_oss_layout():
    """transformers.models.gpt_oss.modeling_gpt_oss._apply_rotary_emb: torch.chunk halves,
    cos and sin of size d/2."""
    from transformers.models.gpt_oss.modeling_gpt_oss import _apply_rotary_emb
    x, positions, theta = _inputs(64, 64)
    freqs = positions[:, None].double() * theta[None, :]
    out = _apply_rotary_emb(x, freqs.cos()[None, None], freqs.sin()[None, None])
    torch.testing.assert_close(_ours(x, positions, theta, "half"), out)


def test_deepseek_v3_layout():
    """transformers.models.deepseek_v3.modeling_deepseek_v3.apply_rotary_pos_emb_interleave:
    de-interleaves, rotates halves, so pairs are adjacent coordinates."""
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import (
        apply_rotary_pos_emb_interleave,
    )
    x, positions, theta = _inputs(64, 64)
    cos, sin = _cos_sin_half(theta, positions)
    q, _ = apply_rotary_pos_emb_interleave(x, x, cos, sin)
    # it returns the pairs de-interleaved (x[0::2] rotated, then x[1::2]); a fixed
    # permutation, so compare after undoing it
    ours = _ours(x, positions, theta, "interleaved")
    torch.testing.assert_close(torch.cat((ours[..., 0::2], ours[..., 1::2]), dim=-1), q)
    assert math.isfinite(float(q.abs().max()))


# --- validation: what transformers refuses, RopeConfig refuses, naming the key ------------

LLAMA = {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 32768,
         "rope_theta": 500000.0}


@pytest.mark.parametrize("scaling, key", [
    ({"rope_type": "linear"}, "factor"),
    ({"rope_type": "dynamic"}, "factor"),
    ({"rope_type": "yarn", "original_max_position_embeddings": 4096}, "factor"),
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0}, "high_freq_factor"),
])
def test_missing_keys_refused_like_transformers(scaling, key):
    with pytest.raises(KeyError, match=key):
        AutoConfig.for_model("llama", **LLAMA, rope_scaling=dict(scaling))
    with pytest.raises(ValueError, match=f"rope_scaling.{key} is missing"):
        rc.RopeConfig.from_hf({"model_type": "llama", **LLAMA, "rope_scaling": dict(scaling)})


def test_llama3_equal_freq_factors_like_transformers():
    scaling = {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
               "high_freq_factor": 1.0, "original_max_position_embeddings": 8192}
    config = AutoConfig.for_model("llama", **LLAMA, rope_scaling=dict(scaling))
    inv, _ = ROPE_INIT_FUNCTIONS["llama3"](config, None)
    theta, _ = rc.RopeConfig.from_hf({"model_type": "llama", **LLAMA,
                                      "rope_scaling": dict(scaling)}).theta()
    assert bool(torch.isfinite(inv).all())
    torch.testing.assert_close(theta, inv.double(), rtol=2e-6, atol=0)
