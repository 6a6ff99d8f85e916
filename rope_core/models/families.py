"""How transformers (5.24) runs each model family's layers: the conventions a config.json
leaves implicit, in one table read by :meth:`rope_core.models.config.RopeConfig.from_hf`.

A config.json names a model's widths, base and scaling; what it leaves to the family's
modeling code is: how the rotation pairs coordinates (``layout``), which non-attention
token mixer its "linear_attention" layers are (``mixer``), which attention layers skip
the rotation (``nope``), how a config without ``layer_types`` lays out its layers
(``layers``), and what the attention multiplies its queries or logits by outside the
rotation (``query_scale``, ``softmax``). Each entry below says it for one family, with
the file of transformers' source that does it; a family not listed follows the
defaults of :class:`Family` (Llama's conventions).

Layer types transformers' configs use (``layer_types``) and what they are here:
:data:`LAYER_TYPES`. An unknown layer type is an error naming it, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

# layer type in config.json -> (mixer, attention span); the span of an attention layer is
# "full", "sliding", "chunked" or "compressed"; other mixers have none
LAYER_TYPES: dict[str, tuple[str, str | None]] = {
    "full_attention": ("attention", "full"),
    "sliding_attention": ("attention", "sliding"),
    "chunked_attention": ("attention", "chunked"),
    # DeepSeek-V3.2, GLM-5, Hunyuan: a lightning indexer picks the keys of a full attention
    "indexed_attention": ("attention", "full"),
    # DeepSeek-V4: attention over compressed keys of the whole context, beside a raw window
    # (modeling_deepseek_v4.py: every layer passes sliding_window; the compressor adds one
    # key per compress rate tokens, at positions i * rate)
    "compressed_sparse_attention": ("attention", "compressed"),
    "heavily_compressed_attention": ("attention", "compressed"),
    # ZAYA (models/zaya/modeling_zaya.py): its attention layers, global and windowed
    "hybrid": ("attention", "full"),
    "hybrid_sliding": ("attention", "sliding"),
    # transformers' one name for every recurrent or state-space mixer (Mamba, Gated
    # DeltaNet, lightning attention, RG-LRU); a family's entry names it
    "linear_attention": ("linear_attention", None),
    "conv": ("conv", None),  # LFM2's short convolutions
    # NemotronH's blocks without a token mixer (an MLP or a mixture of experts)
    "mlp": ("mlp", None),
    "moe": ("mlp", None),
    # granitemoehybrid's config.json spellings (configuration_granitemoehybrid.py)
    "mamba": ("mamba", None),
    "attention": ("attention", "full"),
}

# tokens per compressed key, DeepseekV4Config.default_compress_rates (configuration_deepseek_v4.py)
COMPRESS_RATES = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}

MIXERS = ("attention", "linear_attention", "mamba", "conv", "recurrent", "mlp",
          "cross_attention")


@dataclass(frozen=True)
class Family:
    """One family's conventions (see the module docstring).

    Attributes:
        layout: "half" (rotate_half: pair i is coordinates i and i + d/2) or "interleaved"
            (pair i is coordinates 2i and 2i + 1, as the checkpoint's weights lay them out).
        mixer: what the family's "linear_attention" layers are: "linear_attention"
            (Gated DeltaNet, lightning attention), "mamba", "recurrent" (RG-LRU).
        nope: which attention layers do not rotate: None (all rotate), "sliding_only"
            (only sliding-window layers rotate), "global_if_window" (the global layers
            skip the rotation when the config sets a sliding window), "flags"
            (``no_rope_layers``, 1 = RoPE, or every ``no_rope_layer_interval``-th
            layer), "never" (no attention layer rotates), "position_embedding_type"
            (rotates when ``position_embedding_type`` is "rope"), "use_mem_rope",
            "theta_null" (rotates unless the config sets ``rope_theta`` to null, OLMo
            hybrid's released checkpoints).
        layers: how a config without ``layer_types`` lays out its layers: "full" (every
            layer full attention), "window" (every layer sliding when ``sliding_window``
            is set), "alternate" (sliding, global, ...), "pattern" (every
            ``pattern``-th layer global, the others sliding; ``pattern_key`` overrides),
            "interval" (every ``pattern``-th layer full attention, the others linear;
            ``pattern_key``), "qwen2" (sliding from ``max_window_layers`` on when
            ``use_sliding_window``), "llama4" (chunked on RoPE layers, full on NoPE
            ones), "indices" (attention at ``attn_layer_indices``), "period" (Jamba:
            attention every ``attn_layer_period`` from ``attn_layer_offset``),
            "full_attn_idxs" (LFM2: attention at these indices, convolutions elsewhere),
            "block_types" (RecurrentGemma's repeating ``block_types``), "hybrid_ids"
            (Zamba2: shared attention at ``hybrid_layer_ids``), "attn_type_list"
            (MiniMax: 1 = full attention, 0 = lightning attention), "compress_ratios"
            (DeepSeek-V4: 0 sliding window only, 4 compressed sparse, 128 heavily compressed).
        pattern, pattern_key: the layer rule's period and the config key that may set it.
        window_key: where the window of sliding layers comes from, when not
            ``sliding_window``; window_half: the window is half that value.
        default_window: the config class's window when the config gives none.
        query_scale: a position-dependent factor on the queries outside the rotation:
            "llama4" (NoPE layers, 1 + attn_scale ln(1 + floor((i + 1) / floor_scale)),
            i the token's index), "llama_4_scaling_beta" (every layer, 1 + beta
            ln(1 + floor(p / original_max_position_embeddings))), "ssmax" (NoPE layers,
            (1 + (p + 1) / 2048)^0.1).
        softmax: "mscale": the attention multiplies its softmax scale by
            mscale(s, mscale_all_dim)^2 when its RoPE is scaled (DeepSeek's MLA,
            ``yarn_apply_mscale``).
        rope_labels: {layer type: key of rope_parameters} where the nested
            rope_parameters are keyed by something else than layer types
            (DeepSeek-V4: "main", "compress"); "*" for every other layer type.
        interleave_key: a config key that switches the layout (True: interleaved).
        rotary_dim_key: the config key giving the rotated dims when no
            partial_rotary_factor does (GPT-J's rotary_dim; None: the family ignores it).
        layers_key: the config key that counts the layers, when not num_hidden_layers.
        sub_config: a nested config whose fields are the attention's (DBRX's attn_config).
        split_scaling: how the config class splits a flat rope_scaling between layer
            types: "full_only" (the full-attention layers take it, the sliding ones keep
            plain RoPE: Gemma 3, OLMo 3), "both" (ModernBERT); None: every layer takes it.
        local_base_key, local_base_default: the sliding layers' base when split (Gemma 3's
            rope_local_base_freq, 10000; None: rope_theta).
        global_base_key: the full layers' base key when split (ModernBERT's
            global_rope_theta; None: rope_theta).
        default_base: the class's base when the config gives none (Gemma 3's 1,000,000).
        cross_attention_key: the config key listing layers that attend to another
            modality instead of the text (Mllama's cross_attention_layers).
        context_key: the config key of the context when the config has no
            max_position_embeddings (RecurrentGemma: its attention window).
        rotary_at_end: the rotated dims are the last of the head (DeepSeek's MLA says so
            with qk_nope_head_dim; DeepSeek-V4 gives only a partial_rotary_factor).
        source: the file of transformers that does it.
    """

    layout: str = "half"
    mixer: str = "linear_attention"
    nope: str | None = None
    layers: str = "full"
    pattern: int | None = None
    pattern_key: str | None = None
    window_key: str = "sliding_window"
    window_half: bool = False
    default_window: int | None = None
    query_scale: str | None = None
    softmax: str | None = None
    rope_labels: tuple | None = None
    interleave_key: str | None = None
    rotary_at_end: bool = False
    rotary_dim_key: str | None = "rotary_dim"
    sub_config: str | None = None
    split_scaling: str | None = None
    local_base_key: str | None = None
    local_base_default: float | None = None
    global_base_key: str | None = None
    default_base: float = 10000.0
    cross_attention_key: str | None = None
    layers_key: str | None = None
    context_key: str | None = None
    source: str = ""


DEFAULT = Family(source="models/llama/modeling_llama.py")

_MLA = dict(layout="interleaved", softmax="mscale")  # DeepSeek's multi-head latent attention

FAMILIES: dict[str, Family] = {
    # --- pair layout ------------------------------------------------------------------------
    "gptj": Family(layout="interleaved", source="models/gptj/modeling_gptj.py (rotate_every_two)"),
    "codegen": Family(layout="interleaved",
                      source="models/codegen/modeling_codegen.py (rotate_every_two)"),
    "chatglm": Family(layout="interleaved", source="THUDM's modeling_chatglm.py (remote code)"),
    "glm": Family(layout="interleaved",
                  source="models/glm/modeling_glm.py (rotate_half on x[..., 0::2])"),
    "glm4": Family(layout="interleaved", source="models/glm4/modeling_glm4.py"),
    "roformer": Family(layout="interleaved",
                       source="models/roformer/modeling_roformer.py "
                              "(apply_rotary_position_embeddings)"),
    "helium": Family(layout="interleaved", source="models/helium/modeling_helium.py"),
    "dbrx": Family(sub_config="attn_config", source="models/dbrx/modeling_dbrx.py "
                                                    "(attn_config.rope_theta)"),
    "mllama_text_model": Family(cross_attention_key="cross_attention_layers",
                                source="models/mllama/modeling_mllama.py"),
    "inkling2_text": Family(nope="never", window_key="sliding_window_size",
                            source="models/inkling2/modeling_inkling2.py (relative position "
                                   "bias over rel_extent, no rotation in its text layers)"),
    "cohere": Family(layout="interleaved",
                     source="models/cohere/modeling_cohere.py (repeat_interleave)"),
    "ernie4_5": Family(layout="interleaved",
                       source="models/ernie4_5/modeling_ernie4_5.py (repeat_interleave)"),
    "ernie4_5_moe": Family(layout="interleaved",
                           source="models/ernie4_5_moe/modeling_ernie4_5_moe.py"),
    # --- DeepSeek's MLA: rope dims after the nope dims, interleaved, softmax scale mscale^2 ---
    "deepseek_v2": Family(**_MLA, source="models/deepseek_v2/modeling_deepseek_v2.py"),
    "deepseek_v3": Family(**_MLA, interleave_key="rope_interleave",
                          source="models/deepseek_v3/modeling_deepseek_v3.py "
                                 "(apply_rotary_pos_emb_interleave, yarn_apply_mscale)"),
    "deepseek_v32": Family(**_MLA, source="models/deepseek_v32/modeling_deepseek_v32.py"),
    "youtu": Family(**_MLA, interleave_key="rope_interleave",
                    source="models/youtu/modeling_youtu.py"),
    "glm4_moe_lite": Family(**_MLA, interleave_key="rope_interleave",
                            source="models/glm4_moe_lite/modeling_glm4_moe_lite.py"),
    "glm_moe_dsa": Family(**_MLA, source="models/glm_moe_dsa/modeling_glm_moe_dsa.py"),
    "longcat_flash": Family(**_MLA, source="models/longcat_flash/modeling_longcat_flash.py"),
    "axk1": Family(**_MLA, interleave_key="rope_interleave", source="models/axk1/modeling_axk1.py"),
    "axk2": Family(**_MLA, source="models/axk2/modeling_axk2.py"),
    "dots3_note_text": Family(**_MLA, source="models/dots3_note/modeling_dots3_note.py"),
    "bailing_hybrid": Family(**_MLA, source="models/bailing_hybrid/modeling_bailing_hybrid.py"),
    "hy_v4": Family(softmax="mscale", source="models/hy_v4/modeling_hy_v4.py (rotate_half)"),
    "minicpm3": Family(softmax="mscale", source="models/minicpm3/modeling_minicpm3.py"),
    "deepseek_v4": Family(layout="interleaved", rotary_at_end=True, layers="compress_ratios",
                          rope_labels=(("sliding_attention", "main"), ("*", "compress")),
                          source="models/deepseek_v4/modeling_deepseek_v4.py (rope_layer_type: "
                                 "main on sliding layers, compress on CSA / HCA layers)"),
    # --- windows and global layers ----------------------------------------------------------
    "mistral": Family(layers="window", source="models/mistral/modeling_mistral.py"),
    "gemma2": Family(layers="alternate", default_window=4096,
                     source="models/gemma2/configuration_gemma2.py"),
    "vaultgemma": Family(layers="alternate", default_window=4096,
                         source="models/vaultgemma/configuration_vaultgemma.py"),
    "gemma3_text": Family(layers="pattern", pattern=6, pattern_key="sliding_window_pattern",
                          default_window=4096, split_scaling="full_only",
                          local_base_key="rope_local_base_freq", local_base_default=10000.0,
                          default_base=1_000_000.0,
                          source="models/gemma3/configuration_gemma3.py "
                                 "(convert_rope_params_to_dict)"),
    "gemma3n_text": Family(layers="pattern", pattern=5, default_window=512,
                           split_scaling="full_only", local_base_key="rope_local_base_freq",
                           local_base_default=10000.0, default_base=1_000_000.0,
                           source="models/gemma3n/configuration_gemma3n.py"),
    "olmo3": Family(layers="pattern", pattern=4, split_scaling="full_only",
                    source="models/olmo3/configuration_olmo3.py (convert_rope_params_to_dict: "
                           "rope_scaling on the full-attention layers only)"),
    "gemma4_text": Family(layers="pattern", pattern=6, default_window=512,
                          source="models/gemma4/configuration_gemma4.py"),
    "gemma4_unified_text": Family(layers="pattern", pattern=6, default_window=1024,
                                  source="models/gemma4_unified/configuration_gemma4_unified.py"),
    "cohere2": Family(layout="interleaved", nope="sliding_only", layers="pattern", pattern=4,
                      pattern_key="sliding_window_pattern", default_window=4096,
                      source="models/cohere2/modeling_cohere2.py (rotates when sliding_window "
                             "is set, i.e. on sliding layers only)"),
    "cohere2_moe": Family(layout="interleaved", nope="sliding_only", layers="pattern", pattern=4,
                          pattern_key="sliding_window_pattern", default_window=4096,
                          source="models/cohere2_moe/modeling_cohere2_moe.py"),
    "exaone4": Family(nope="global_if_window", layers="pattern", pattern=4,
                      pattern_key="sliding_window_pattern",
                      source="models/exaone4/modeling_exaone4.py (rotates when sliding_window is "
                             "None or the layer is sliding)"),
    "exaone_moe": Family(nope="global_if_window", layers="pattern", pattern=4,
                         pattern_key="sliding_window_pattern",
                         source="models/exaone_moe/modeling_exaone_moe.py"),
    "kolibri1": Family(nope="global_if_window", source="models/kolibri1/modeling_kolibri1.py"),
    "afmoe": Family(nope="sliding_only", layers="pattern", pattern=4,
                    pattern_key="global_attn_every_n_layers",
                    source="models/afmoe/modeling_afmoe.py (rotates on local layers only)"),
    "flint": Family(nope="sliding_only", source="models/flint/modeling_flint.py"),
    "lara_mini": Family(nope="sliding_only",
                        source="models/lara_mini/modeling_lara_mini.py (position_embeddings "
                               "only for sliding layers)"),
    "beam": Family(query_scale="ssmax", source="models/beam/modeling_beam.py "
                                               "(compute_attention_scaling on NoPE layers)"),
    "modernbert-decoder": Family(window_key="local_attention", window_half=True,
                                 split_scaling="both", local_base_key="local_rope_theta",
                                 local_base_default=10000.0, global_base_key="global_rope_theta",
                                 default_base=160000.0,
                                 source="models/modernbert_decoder/"
                                        "configuration_modernbert_decoder.py"),
    "minimax_m3_vl_text": Family(rotary_dim_key=None,
                                 source="models/minimax_m3_vl/modeling_minimax_m3_vl.py "
                                        "(rotary_dim is not read by its attention)"),
    "hrm_text": Family(layers_key="num_layers_per_stack",
                       source="models/hrm_text/configuration_hrm_text.py (num_hidden_layers "
                              "counts each block once per cycle)"),
    "dory": Family(layers="dory", source="models/dory/configuration_dory.py (config.json's "
                                          "layer_types alternate each layer with an "
                                          "\"mlp\" block)"),
    "recurrent_gemma": Family(mixer="recurrent", layers="block_types",
                              window_key="attention_window_size", default_window=2048,
                              context_key="attention_window_size",
                              source="models/recurrent_gemma/modeling_recurrent_gemma.py"),
    "qwen2": Family(layers="qwen2", source="models/qwen2/configuration_qwen2.py"),
    "qwen2_moe": Family(layers="qwen2", source="models/qwen2_moe/configuration_qwen2_moe.py"),
    "qwen3": Family(layers="qwen2", source="models/qwen3/configuration_qwen3.py"),
    "qwen3_moe": Family(layers="qwen2", source="models/qwen3_moe/configuration_qwen3_moe.py"),
    # --- NoPE layers among RoPE layers ------------------------------------------------------
    "llama4_text": Family(layout="interleaved", nope="flags", layers="llama4",
                          query_scale="llama4",
                          source="models/llama4/modeling_llama4.py (view_as_complex pairs, "
                                 "use_rope, attn_temperature_tuning)"),
    "smollm3": Family(nope="flags", source="models/smollm3/modeling_smollm3.py (use_rope)"),
    # --- query scales -----------------------------------------------------------------------
    "ministral3": Family(query_scale="llama_4_scaling_beta",
                         source="models/ministral3/modeling_ministral3.py "
                                "(get_llama_4_attn_scale)"),
    "mistral4": Family(**_MLA, query_scale="llama_4_scaling_beta",
                       source="models/mistral4/modeling_mistral4.py"),
    # --- linear-attention and state-space hybrids ---------------------------------------------
    "qwen3_next": Family(layers="interval", pattern=4, pattern_key="full_attention_interval",
                         source="models/qwen3_next/configuration_qwen3_next.py"),
    "qwen3_5_text": Family(layers="interval", pattern=4, pattern_key="full_attention_interval",
                           source="models/qwen3_5/configuration_qwen3_5.py"),
    "qwen3_5_moe_text": Family(layers="interval", pattern=4, pattern_key="full_attention_interval",
                               source="models/qwen3_5_moe/configuration_qwen3_5_moe.py"),
    "olmo_hybrid": Family(layers="interval", pattern=4, nope="theta_null",
                          source="models/olmo_hybrid/modeling_olmo_hybrid.py (\"Released ckpt "
                                 "don't use any ROPE and have it set to `None`\": no rotary "
                                 "embedding when rope_theta is null)"),
    "minimax": Family(layers="attn_type_list",
                      source="models/minimax/configuration_minimax.py (lightning attention)"),
    "lfm2": Family(layers="full_attn_idxs", source="models/lfm2/configuration_lfm2.py"),
    "lfm2_moe": Family(layers="full_attn_idxs", source="models/lfm2_moe/configuration_lfm2_moe.py"),
    "bamba": Family(mixer="mamba", layers="indices",
                    source="models/bamba/configuration_bamba.py (attn_layer_indices)"),
    "falcon_h1": Family(mixer="mamba", source="models/falcon_h1/modeling_falcon_h1.py "
                                              "(attention and Mamba side by side in each layer)"),
    "granitemoehybrid": Family(mixer="mamba", nope="position_embedding_type",
                               source="models/granitemoehybrid/modeling_granitemoehybrid.py"),
    "jamba": Family(mixer="mamba", nope="never", layers="period",
                    source="models/jamba/modeling_jamba.py (no positional encoding)"),
    "nemotron_h": Family(mixer="mamba", nope="never",
                         source="models/nemotron_h/modeling_nemotron_h.py"),
    "zamba2": Family(mixer="mamba", nope="use_mem_rope", layers="hybrid_ids",
                     source="models/zamba2/modeling_zamba2.py (use_mem_rope)"),
}


def family(model_types) -> tuple[str, Family]:
    """(name, Family) of the first of ``model_types`` listed, else ("", DEFAULT)."""
    for name in model_types:
        if name in FAMILIES:
            return name, FAMILIES[name]
    aliases = {"llama4": "llama4_text", "gemma3": "gemma3_text", "gemma3n": "gemma3n_text",
               "gemma4": "gemma4_text", "qwen3_5": "qwen3_5_text",
               "qwen3_5_moe": "qwen3_5_moe_text",
               "dots3_note": "dots3_note_text"}
    for name in model_types:
        if name in aliases:
            return aliases[name], FAMILIES[aliases[name]]
    return "", DEFAULT
