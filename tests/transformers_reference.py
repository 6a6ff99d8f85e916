"""transformers' own Llama rotary embedding as an independent reference (test-only).

Used by tests/test_core_precision.py and tests/test_claims_wording.py, which read
the float32 angles that transformers' code produces off its cos and sin. Skips the
calling test when transformers is not installed.
"""

from __future__ import annotations

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
