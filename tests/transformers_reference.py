"""transformers' own code as an independent reference (test-only).

Its Llama rotary embedding, used by tests/test_core_precision.py and
tests/test_claims_wording.py, which read the float32 angles that transformers' code
produces off its cos and sin; and a tiny model of any family built from its own config
class (:func:`tiny_text_model`), used by tests/test_core_serving.py to run every
transformers entry's forward pass. Skips the calling test when transformers is not
installed.
"""

from __future__ import annotations

import copy

import pytest
import torch


def llama_rotary(dim: int, base: float):
    """transformers' ``LlamaRotaryEmbedding`` with the default RoPE, head dim ``dim``
    (4 heads of hidden size 4 dim) and ``rope_theta`` = base; its inv_freq is
    float32, (dim/2,)."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = transformers.LlamaConfig(hidden_size=4 * dim, num_attention_heads=4,
                                   max_position_embeddings=4096,
                                   rope_parameters={"rope_type": "default", "rope_theta": base})
    return LlamaRotaryEmbedding(cfg)


def float32_angles(rotary, m: int) -> torch.Tensor:
    """atan2(sin, cos) of ``rotary``'s float32 cos and sin at position ``m``: its float32
    angle of each pair (to ~1e-7), wrapped to (-pi, pi]; (dim/2,) float64 (half layout:
    pair i at i and i + dim/2)."""
    d = 2 * rotary.inv_freq.numel()
    cos, sin = rotary(torch.zeros(1, 1, d), torch.tensor([[m]]))  # (1, 1, d) float32
    return torch.atan2(sin[0, 0, : d // 2].double(), cos[0, 0, : d // 2].double())  # (d/2,)


# Widths a tiny model of any family gets (only the keys its config class has are set): the
# test runs the family's own modeling code, not a trained model, so only the rotary dims
# (head_dim, partial_rotary_factor, rope_parameters) and the layer pattern are kept.
_TINY = {"intermediate_size": 32, "intermediate_size_mlp": 32, "moe_intermediate_size": 16,
         "shared_expert_intermediate_size": 16, "vocab_size": 128, "num_experts": 4,
         "num_local_experts": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "n_group": 1, "topk_group": 1, "q_lora_rank": 16,
         "kv_lora_rank": 16, "v_head_dim": 16, "linear_num_value_heads": 2,
         "linear_num_key_heads": 2, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
         "block_ff_dim": 32, "first_k_dense_replace": 1, "pad_token_id": 0,
         "vocab_size_per_layer_input": 128, "hidden_size_per_layer_input": 8}
# config keys that list one entry per layer, cut to the tiny model's layers
_PER_LAYER = ("layer_types", "no_rope_layers", "mlp_layer_types", "layers_block_type")


def tiny_text_model(config_json: dict, layers: int = 8):
    """transformers' own language model (``AutoModel`` of ``get_text_config()``) for a
    ``config.json`` dict, made tiny on CPU: 2 heads of the config's head dim (so the rotary
    dims are the model's; hidden size 64 where the config names its head dim, else twice
    the head dim), the first ``layers`` layers (their types cut likewise; layer
    indices past them dropped), small feed-forward, expert and vocabulary sizes. Returns the
    model in eval mode (random weights, seed 0)."""
    transformers = pytest.importorskip("transformers")
    d = copy.deepcopy(config_json)
    outer = transformers.AutoConfig.for_model(d.pop("model_type"), **d)
    text = outer.get_text_config()
    fields = text.to_dict()
    head = fields.get("head_dim") or fields["hidden_size"] // fields["num_attention_heads"]
    n = min(layers, fields.get("num_hidden_layers") or layers)
    for key, value in _TINY.items():
        if fields.get(key) is not None:
            fields[key] = value
    for key in _PER_LAYER:
        if isinstance(fields.get(key), list):
            fields[key] = fields[key][:n]
    if isinstance(fields.get("full_attn_idxs"), list):
        fields["full_attn_idxs"] = [i for i in fields["full_attn_idxs"] if i < n]
    fields.pop("per_layer_config", None)  # Gemma 4: rebuilt from layer_types and head dims
    fields.pop("transformers_version", None)
    # an explicit head_dim keeps the heads' width whatever the hidden size (64: small
    # projections); else the head dim is hidden_size / heads
    fields.update(num_hidden_layers=n, num_attention_heads=2, num_key_value_heads=2,
                  hidden_size=64 if fields.get("head_dim") else 2 * head)
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(type(text)(**fields))
    return model.eval()
