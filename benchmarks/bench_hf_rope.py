"""rope_core's scalings and presets against Hugging Face transformers' ROPE_INIT_FUNCTIONS.

transformers is a reference only, not a dependency: without it this script says
so and exits 0. With it, it prints, per method configuration and per preset,
the largest relative difference of theta (rope_core in float64 vs transformers,
which computes in float32, so ~1e-7 is agreement) and of the attention factor.

    python benchmarks/bench_hf_rope.py

Methods: each is built as a LlamaConfig with ``rope_parameters`` (``none`` as
transformers' ``linear`` with factor 1; ``ntk``, which transformers has no
static form of, as ``linear`` factor 1 at the raised base base * s^(d/(d-2))).
Presets: the preset's config.json dict is loaded with the model's own config
class (AutoConfig.for_model), so transformers' own parsing is compared too;
ChatGLM (remote code, not in transformers) and GPT-J (no rotary class) are
compared with the formula they run, written out here.
"""

from __future__ import annotations

import copy
import importlib
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

import rope_core as rc
from rope_core.models.presets import HF_CONFIGS

try:
    import transformers
    from transformers import AutoConfig, LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
except ImportError:  # pragma: no cover
    print("transformers is not installed: nothing to compare against.")
    sys.exit(0)

transformers.logging.set_verbosity_error()


def rel(ours: torch.Tensor, theirs: torch.Tensor) -> float:
    ours, theirs = ours.double().cpu(), theirs.double().cpu()
    if ours.shape != theirs.shape:
        return math.inf
    return float(((ours - theirs).abs() / theirs.abs()).max())


def rel_scalar(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def hf_method(dim, base, rope_parameters, seq_len=None, max_pos=None, top_original=None):
    """transformers' inv_freq and attention factor for a Llama config with head_dim = dim."""
    params = dict(rope_parameters)
    kind = params["rope_type"]
    kwargs = dict(hidden_size=dim * 4, num_attention_heads=4, head_dim=dim,
                  max_position_embeddings=max_pos or params.get("original_max_position_embeddings",
                                                                4096),
                  rope_parameters={**params, "rope_theta": base})
    config = LlamaConfig(**kwargs)
    if top_original is not None:
        config.original_max_position_embeddings = top_original
    return ROPE_INIT_FUNCTIONS[kind](config, "cpu", seq_len=seq_len)


CASES = [  # (label, method, dim, base, our params, seq_len, HF rope_parameters, HF max_pos)
    ("none d128", "none", 128, 1e4, {}, None, {"rope_type": "linear", "factor": 1.0}, None),
    ("linear s4", "linear", 128, 1e4, {"factor": 4.0}, None,
     {"rope_type": "linear", "factor": 4.0}, None),
    ("linear Gemma3 global", "linear", 256, 1e6, {"factor": 8.0}, None,
     {"rope_type": "linear", "factor": 8.0}, None),
    ("dynamic n<=L", "dynamic", 128, 1e4, {"factor": 2.0, "original_max_position_embeddings": 4096},
     2048, {"rope_type": "dynamic", "factor": 2.0}, 4096),
    ("dynamic n=3L", "dynamic", 128, 1e4, {"factor": 2.0, "original_max_position_embeddings": 4096},
     3 * 4096, {"rope_type": "dynamic", "factor": 2.0}, 4096),
    ("dynamic d64 s8 n=20000", "dynamic", 64, 5e5,
     {"factor": 8.0, "original_max_position_embeddings": 2048}, 20000,
     {"rope_type": "dynamic", "factor": 8.0}, 2048),
]
YARN = [
    ("yarn s4 L4096", 128, 1e4, {"factor": 4.0, "original_max_position_embeddings": 4096}),
    ("yarn Qwen2.5 s4 L32768", 128, 1e6, {"factor": 4.0, "original_max_position_embeddings": 32768}),
    ("yarn DeepSeek mscale", 64, 1e4, {"factor": 40.0, "original_max_position_embeddings": 4096,
                                       "mscale": 1.0, "mscale_all_dim": 1.0}),
    ("yarn mscale 0.707/1", 64, 1e4, {"factor": 16.0, "original_max_position_embeddings": 4096,
                                      "mscale": 0.707, "mscale_all_dim": 1.0}),
    ("yarn attention_factor", 128, 1e4, {"factor": 8.0, "original_max_position_embeddings": 2048,
                                         "attention_factor": 1.25}),
    ("yarn truncate off", 64, 150000.0, {"factor": 32.0, "original_max_position_embeddings": 4096,
                                         "beta_fast": 32.0, "beta_slow": 1.0, "truncate": False}),
    ("yarn short L=100", 8, 1e4, {"factor": 4.0, "original_max_position_embeddings": 100}),
    ("yarn L=4 (< 2 pi)", 8, 1e4, {"factor": 4.0, "original_max_position_embeddings": 4}),
    ("yarn tiny base (inverted)", 128, 10.0, {"factor": 4.0,
                                              "original_max_position_embeddings": 32768}),
]
LLAMA3 = [
    ("llama3 Llama 3.1 8B", 128, 5e5, {"factor": 8.0, "low_freq_factor": 1.0,
                                        "high_freq_factor": 4.0,
                                        "original_max_position_embeddings": 8192}),
    ("llama3 Llama 3.2 1B", 64, 5e5, {"factor": 32.0, "low_freq_factor": 1.0,
                                       "high_freq_factor": 4.0,
                                       "original_max_position_embeddings": 8192}),
]


def method_rows():
    rows = []
    for label, method, dim, base, ours, seq_len, theirs, max_pos in CASES:
        rows.append((label, rc.scaled_theta(dim, base, method, seq_len=seq_len, **ours),
                     hf_method(dim, base, theirs, seq_len=seq_len, max_pos=max_pos)))
    for s in (2.0, 8.0):  # static NTK = transformers' plain spectrum at base * s^(d/(d-2))
        rows.append((f"ntk s{s:g} (as default at raised base)",
                     rc.scaled_theta(128, 1e4, "ntk", factor=s),
                     hf_method(128, 1e4 * s ** (128 / 126), {"rope_type": "linear",
                                                              "factor": 1.0})))
    for label, dim, base, p in YARN:
        rows.append((label, rc.scaled_theta(dim, base, "yarn", **p),
                     hf_method(dim, base, {"rope_type": "yarn", **p})))
    for label, dim, base, p in LLAMA3:
        rows.append((label, rc.scaled_theta(dim, base, "llama3", **p),
                     hf_method(dim, base, {"rope_type": "llama3", **p},
                               max_pos=16 * p["original_max_position_embeddings"])))
    short = [1.0 + 0.05 * i for i in range(32)]
    long = [1.0 + 1.5 * i for i in range(32)]
    lr = {"short_factor": short, "long_factor": long, "original_max_position_embeddings": 4096}
    for n in (None, 4096, 4097, 65536):
        rows.append((f"longrope seq_len={n}",
                     rc.scaled_theta(64, 1e4, "longrope", seq_len=n, max_position_embeddings=131072,
                                     **lr),
                     hf_method(64, 1e4, {"rope_type": "longrope", **lr}, seq_len=n,
                               max_pos=131072)))
    rows.append(("longrope factor given", rc.scaled_theta(64, 1e4, "longrope", factor=16.0, **lr),
                 hf_method(64, 1e4, {"rope_type": "longrope", "factor": 16.0, **lr},
                           max_pos=131072)))
    return rows


def _rotary_class(model_type):
    model_type = model_type.removesuffix("_text")  # gemma3_text lives in models/gemma3
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    for name in dir(module):
        obj = getattr(module, name)
        if name.endswith("RotaryEmbedding") and hasattr(obj, "compute_default_rope_parameters"):
            return obj
    raise LookupError(f"no rotary embedding class in {model_type}")


def hf_preset(name, seq_len=None, layer="full_attention"):
    """transformers' (inv_freq, attention factor) for a preset, via the model's config class."""
    cfg = copy.deepcopy(HF_CONFIGS[name])
    model_type = cfg["model_type"]
    if model_type == "chatglm":  # THUDM remote code: base 10000 * rope_ratio, dim kv_channels/2
        dim = cfg["kv_channels"] // 2
        base = 10000.0 * cfg.get("rope_ratio", 1)
        return 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim), 1.0, "remote-code formula"
    if model_type == "gptj":  # transformers' create_sinusoidal_positions: theta = asin(sin(1*theta))
        from transformers.models.gptj.modeling_gptj import create_sinusoidal_positions
        table = create_sinusoidal_positions(2, cfg["rotary_dim"])  # (2, rotary_dim)
        return torch.asin(table[1, : cfg["rotary_dim"] // 2]), 1.0, "create_sinusoidal_positions"
    if "text_config" in cfg:
        cfg = cfg["text_config"]
        model_type = cfg["model_type"]
    config = AutoConfig.for_model(model_type, **{k: v for k, v in cfg.items() if k != "model_type"})
    if getattr(config, "rope_parameters", None) is None and hasattr(config, "text_config"):
        config = config.text_config  # Qwen2-VL: the language model's config
    params = config.rope_parameters
    layer_type = None
    if "full_attention" in params:
        layer_type = layer
        params = params[layer_type]
    kind = params.get("rope_type", "default")
    via = f"{type(config).__name__} {kind}"
    kwargs = {"layer_type": layer_type} if layer_type else {}
    if kind == "default" or kind == "mrope":
        cls = _rotary_class(model_type)
        out = cls.compute_default_rope_parameters(config, device="cpu", **kwargs)
    else:
        out = ROPE_INIT_FUNCTIONS[kind](config, "cpu", seq_len=seq_len, **kwargs)
    return out[0], out[1], via


def preset_rows():
    rows = []
    for name, preset in rc.PRESETS.items():
        for n in ((None, preset.original_context + 1) if preset.method == "longrope" else (None,)):
            label = name if n is None else f"{name} seq_len={n}"
            try:
                inv, att, via = hf_preset(name, n)
            except Exception as e:  # report, keep going
                rows.append((label, preset.theta(n), None, f"{type(e).__name__}: {e}"[:60]))
                continue
            rows.append((label, preset.theta(n), (inv, att), via))
        # sliding layers with a RoPE of their own (Gemma 3: rope_local_base_freq)
        local = next((g.layers[0] for g in preset.groups() if g.spec.rotates
                      and g.spec.attention == "sliding" and g.spec.base != preset.base), None)
        if local is not None:
            try:
                inv, att, via = hf_preset(name, layer="sliding_attention")
            except Exception as e:  # report, keep going
                rows.append((f"{name} local layers", preset.theta(layer=local), None,
                             f"{type(e).__name__}: {e}"[:60]))
                continue
            rows.append((f"{name} local layers", preset.theta(layer=local), (inv, att), via))
    return rows


def main():
    print(f"transformers {transformers.__version__}, torch {torch.__version__}\n")
    print(f"{'method configuration':42s} {'max rel diff theta':>19s} {'rel diff attention':>19s}")
    worst = 0.0
    for label, (theta, att), (inv, hf_att) in method_rows():
        d_theta, d_att = rel(theta, inv), rel_scalar(att, float(hf_att))
        worst = max(worst, d_theta)
        print(f"{label:42s} {d_theta:19.2e} {d_att:19.2e}")
    print(f"\n{'preset':34s} {'max rel diff theta':>19s} {'rel diff attention':>19s}  "
          f"transformers path")
    for label, (theta, att), ref, via in preset_rows():
        if ref is None:
            print(f"{label:34s} {'n/a':>19s} {'n/a':>19s}  {via}")
            continue
        inv = ref[0]
        if inv.numel() > theta.numel() and not bool(inv[theta.numel():].any()):
            inv = inv[:theta.numel()]  # proportional RoPE (Gemma 4): zeros past the rotary pairs
        d_theta, d_att = rel(theta, inv), rel_scalar(att, float(ref[1]))
        worst = max(worst, d_theta)
        print(f"{label:34s} {d_theta:19.2e} {d_att:19.2e}  {via}")
    print(f"\nlargest relative difference of theta overall: {worst:.2e} "
          f"(float32 reference: about 1e-7 is agreement)")


if __name__ == "__main__":
    main()
