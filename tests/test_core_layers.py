"""A RoPE spec per layer, by hand: each expectation from a closed form or from the
layer-pattern rule that the family's transformers config class documents."""

import math

import pytest

import rope_core as rc
from rope_core.models import families
from rope_core.models.presets import HF_CONFIGS


def plain(base: float, dim: int, n: int | None = None) -> list[float]:
    """θᵢ = base^(-2i/dim) for i < n (default dim / 2)."""
    return [base ** (-2 * i / dim) for i in range((dim // 2) if n is None else n)]


def spans(cfg: rc.RopeConfig) -> list[tuple]:
    return [(g.spec.kind, g.spec.attention, g.spec.window, g.layers) for g in cfg.groups()]


def test_gemma3_groups_and_spectra():
    """Gemma3TextConfig: layer i is full attention when (i + 1) % 6 == 0 (sliding_window_pattern
    6); the sliding layers rotate at rope_local_base_freq 10,000 unscaled, the global ones at
    1,000,000 with the linear ×8 of rope_scaling."""
    g = rc.PRESETS["Gemma 3 4B"]
    full = tuple(i for i in range(34) if (i + 1) % 6 == 0)
    assert full == (5, 11, 17, 23, 29)
    assert spans(g) == [("rope", "sliding", 1024, tuple(i for i in range(34) if i not in full)),
                        ("rope", "full", None, full)]
    local, a = g.theta(layer=0)
    assert local.tolist() == pytest.approx(plain(1e4, 256), rel=1e-13) and a == 1.0
    glob, _ = g.theta(layer=5)
    assert glob.tolist() == pytest.approx([t / 8 for t in plain(1e6, 256)], rel=1e-13)
    assert g.theta()[0].tolist() == glob.tolist()  # theta(): the main spectrum, the global one
    assert g.layer(0).reach(131072) == 1024 and g.layer(5).reach(131072) == 131072


def test_gemma4_proportional_global_layers():
    """Gemma 4's global layers: head dim global_head_dim 512, proportional RoPE with
    partial_rotary_factor 0.25: θᵢ = 1e6^(-2i/512) for i < 64, the pairs (i, i + 256) of
    rotate_half over the whole head; the sliding layers: head dim 256, base 10,000."""
    g = rc.PRESETS["Gemma 4 31B"]
    full = tuple(i for i in range(60) if (i + 1) % 6 == 0)
    assert [grp.layers for grp in g.groups() if grp.spec.attention == "full"] == [full]
    spec = g.layer(5)
    assert (spec.head_dim, spec.rotary_dim, spec.theta_dim, spec.base) == (512, 128, 512, 1e6)
    assert spec.pairs() == tuple((i, i + 256) for i in range(64))
    theta, a = g.theta(layer=5)
    assert theta.tolist() == pytest.approx(plain(1e6, 512, 64), rel=1e-13) and a == 1.0
    local = g.layer(0)
    assert (local.head_dim, local.rotary_dim, local.base, local.window) == (256, 256, 1e4, 1024)
    assert local.pairs() == tuple((i, i + 128) for i in range(128))


# deepseek-ai/DeepSeek-V4-Flash config.json "compress_ratios", 44 entries as published (a
# verbatim copy of the fetched file: 0 = window only, 4 = compressed sparse, 128 = heavily
# compressed; the 44th is the multi-token-prediction block)
V4_PUBLISHED_RATIOS = [0, 0, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128,
                       4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128, 4, 128,
                       4, 128, 4, 128, 4, 128, 4, 0]


def test_deepseek_v4_groups():
    """DeepSeek-V4: compress_ratios 0 = a sliding layer with the main RoPE (rope_theta
    10,000, plain); the others compressed, with compress_rope_theta 160,000 and YaRN whose
    attention factor the config class forces to 1. MLA: the last 64 of the 512 dims rotate,
    interleaved pairs (448, 449), ... The published list has 44 entries for 43 layers:
    DeepseekV4Config keeps the first 43, so layer 42 is compressed sparse (ratio 4); every
    layer keeps the 128-token raw window beside its compressed keys."""
    assert len(V4_PUBLISHED_RATIOS) == 44 and V4_PUBLISHED_RATIOS.count(0) == 3
    assert HF_CONFIGS["DeepSeek-V4-Flash"]["compress_ratios"] == V4_PUBLISHED_RATIOS
    v4 = rc.PRESETS["DeepSeek-V4-Flash"]
    assert v4.layers == 43
    ratios = V4_PUBLISHED_RATIOS[:43]
    assert ratios[42] == 4
    sliding = (0, 1)
    csa = tuple(range(2, 43, 2))
    hca = tuple(range(3, 42, 2))
    assert (len(csa), len(hca)) == (21, 20)
    groups = v4.groups()
    assert [(g.spec.attention, g.spec.window, g.spec.compress, g.layers) for g in groups] == [
        ("sliding", 128, None, sliding), ("compressed", 128, 4, csa),
        ("compressed", 128, 128, hca)]
    for grp in groups:
        assert (grp.spec.head_dim, grp.spec.rotary_dim, grp.spec.rotary_start) == (512, 64, 448)
        assert grp.spec.pairs() == tuple((448 + 2 * i, 449 + 2 * i) for i in range(32))
    # a compressed layer reaches the whole context through its compressed keys
    assert v4.layer(42).reach(1048576) == 1048576 and v4.layer(0).reach(1048576) == 128
    main, a = v4.theta(layer=0)
    assert main.tolist() == pytest.approx(plain(1e4, 64), rel=1e-13) and a == 1.0
    compressed = v4.layer(2)
    assert (compressed.base, compressed.method) == (160000.0, "yarn")
    assert compressed.theta(None)[1] == 1.0  # attention_factor forced to 1


def test_deepseek_v4_layers_as_transformers_truncates():
    """transformers 5.24's own DeepseekV4Config on the published 44-entry list: 43 layer
    types, layer 42 compressed sparse, two window-only layers."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.DeepseekV4Config(compress_ratios=V4_PUBLISHED_RATIOS,
                                        num_hidden_layers=43)
    types = list(cfg.layer_types)
    assert len(types) == 43 and types[42] == "compressed_sparse_attention"
    assert types.count("sliding_attention") == 2
    assert cfg.compress_rates == {"compressed_sparse_attention": 4,
                                  "heavily_compressed_attention": 128}
    mine = rc.PRESETS["DeepSeek-V4-Flash"]
    assert [mine.layer(i).compress for i in range(43)] == [
        cfg.compress_rates.get(t) for t in types]


def test_olmo3_yarn_on_full_layers_only():
    """Olmo3Config: layer i is full attention when (i + 1) % 4 == 0; its rope_scaling (YaRN)
    goes to the full-attention layers, the sliding ones keep the plain spectrum."""
    o = rc.PRESETS["OLMo 3 7B"]
    full = tuple(range(3, 32, 4))
    assert [grp.layers for grp in o.groups() if grp.spec.attention == "full"] == [full]
    assert (o.layer(0).method, o.layer(0).base) == ("none", 5e5)
    assert (o.layer(3).method, o.main_spec().method) == ("yarn", "yarn")
    assert o.theta(layer=0)[0].tolist() == pytest.approx(plain(5e5, 128), rel=1e-13)


def test_interval_and_window_patterns():
    """Qwen3-Next: full attention every full_attention_interval = 4th layer, the rest linear
    attention (no rotation); EXAONE 4: sliding_window_pattern "LLLG", the global layers
    without RoPE; Llama 4: no_rope_layers 0 = NoPE, the RoPE layers in chunks of 8,192."""
    q = rc.PRESETS["Qwen3-Next-80B-A3B"]
    full = tuple(range(3, 48, 4))
    assert spans(q) == [("linear_attention", None, None,
                         tuple(i for i in range(48) if i not in full)),
                        ("rope", "full", None, full)]
    assert q.layer(3).rotary_dim == 64 and q.layer(3).head_dim == 256  # partial 0.25
    e = rc.PRESETS["EXAONE 4.0 32B"]
    glob = tuple(range(3, 64, 4))
    assert spans(e) == [("rope", "sliding", 4096, tuple(i for i in range(64) if i not in glob)),
                        ("nope", "full", None, glob)]
    cfg = {"model_type": "exaone4", "head_dim": 64, "max_position_embeddings": 8192,
           "num_hidden_layers": 6, "sliding_window": 512, "sliding_window_pattern": "LLG"}
    assert [s[3] for s in spans(rc.RopeConfig.from_hf(cfg))] == [(0, 1, 3, 4), (2, 5)]
    scout = rc.PRESETS["Llama 4 Scout"]
    nope = tuple(range(3, 48, 4))
    assert spans(scout) == [("rope", "chunked", 8192, tuple(i for i in range(48)
                                                             if i not in nope)),
                            ("nope", "full", None, nope)]
    with pytest.raises(ValueError, match="layer 3"):
        scout.theta(layer=3)


def test_query_scales_by_hand():
    """Llama 4's NoPE layers: 1 + 0.1 ln(1 + floor((p + 1) / 8192)); Ministral 3's
    llama_4_scaling_beta 0.1 from original_max_position_embeddings 16,384:
    1 + 0.1 ln(1 + floor(p / 16384))."""
    scout = rc.PRESETS["Llama 4 Scout"]
    rule = scout.layer(3).query_scale
    assert rule == ("llama4", 8192.0, 0.1) and scout.layer(0).query_scale == ()
    p = [0, 8190, 8191, 10_485_759]
    assert rc.query_scale(*rule, p).tolist() == pytest.approx(
        [1 + 0.1 * math.log1p((x + 1) // 8192) for x in p], rel=1e-14)
    assert rc.query_scale(*rule, [8190, 8191]).tolist() == pytest.approx(
        [1.0, 1 + 0.1 * math.log(2)], rel=1e-14)
    m3 = rc.PRESETS["Ministral 3 8B"]
    assert m3.layer(0).query_scale == ("llama_4_scaling_beta", 16384.0, 0.1)
    p = [0, 16383, 16384, 262143]
    assert rc.query_scale(*m3.layer(0).query_scale, p).tolist() == pytest.approx(
        [1 + 0.1 * math.log1p(x // 16384) for x in p], rel=1e-14)


def test_hunyuan_alpha_is_ntk():
    """HunYuan's rope_scaling {"type": "dynamic", "alpha": a}: base · a^(d / (d − 2))
    (modeling_hunyuan_v1_dense: the NTK-aware base, every length alike)."""
    cfg = {"model_type": "hunyuan_v1_dense", "head_dim": 128, "max_position_embeddings": 32768,
           "rope_theta": 10000.0, "rope_scaling": {"type": "dynamic", "alpha": 1000.0,
                                                  "factor": 1.0}}
    c = rc.RopeConfig.from_hf(cfg)
    base = 1e4 * 1000.0 ** (128 / 126)
    assert c.theta()[0].tolist() == pytest.approx(plain(base, 128), rel=1e-12)


def test_unknown_layer_type_and_rope_key_are_named():
    base = {"model_type": "gemma3_text", "head_dim": 64, "max_position_embeddings": 4096}
    with pytest.raises(ValueError, match="mystery_attention"):
        rc.RopeConfig.from_hf({**base, "layer_types": ["sliding_attention",
                                                       "mystery_attention"]})
    with pytest.raises(ValueError, match="rope_parameters.sliding"):
        rc.RopeConfig.from_hf({**base, "num_hidden_layers": 2, "rope_parameters": {
            "full_attention": {"rope_type": "default"}, "sliding": {"rope_type": "default"}}})
    assert "mystery_attention" not in families.LAYER_TYPES


def test_granite_hybrid_rotates_nowhere():
    """GraniteMoeHybrid with position_embedding_type "nope": its attention layers build no
    rotary embedding; the Mamba layers have none either."""
    g = rc.PRESETS["Granite 4.0-H 350M"]
    assert spans(g) == [("mamba", None, None, tuple(i for i in range(32)
                                                     if i not in (10, 13, 17, 27))),
                        ("nope", "full", None, (10, 13, 17, 27))]
    assert not any(grp.spec.rotates for grp in g.groups())


def test_olmo_hybrid_null_theta_rotates_nowhere():
    """OLMo hybrid: transformers builds no rotary embedding when rope_theta is null
    (modeling_olmo_hybrid.py: "Released ckpt don't use any ROPE"), which the OLMo-core
    converter writes as a top-level "rope_theta": null; a config naming no rope_theta gets
    the class default 10,000 and rotates. Full attention every 4th layer (i % 4 == 3), the
    rest Gated DeltaNet."""
    base = {"model_type": "olmo_hybrid", "hidden_size": 256, "num_attention_heads": 4,
            "num_hidden_layers": 8, "max_position_embeddings": 65536}
    linear = (0, 1, 2, 4, 5, 6)
    for released in ({"rope_theta": None},
                     {"rope_parameters": {"rope_type": "default", "rope_theta": None}},
                     {"rope_theta": None, "rope_parameters": {"rope_type": "default"}}):
        assert spans(rc.RopeConfig.from_hf({**base, **released})) == [
            ("linear_attention", None, None, linear), ("nope", "full", None, (3, 7))]
    for rotating in ({}, {"rope_theta": 500000.0},
                     {"rope_parameters": {"rope_type": "default", "rope_theta": 5e5}}):
        assert spans(rc.RopeConfig.from_hf({**base, **rotating}))[1] == (
            "rope", "full", None, (3, 7))
    transformers = pytest.importorskip("transformers")
    for released, none in (({"rope_theta": None}, True), ({}, False)):
        cfg = transformers.OlmoHybridConfig(num_hidden_layers=8, **released)
        assert (cfg.rope_parameters.get("rope_theta") is None) is none
        mine = rc.RopeConfig.from_hf(cfg.to_dict())
        assert mine.layer(3).rotates is not none


def test_compressed_attention_spec_is_checked():
    """A compressed layer names its tokens per key; no other kind may."""
    rc.models.config.LayerSpec(attention="compressed", window=128, compress=4)
    with pytest.raises(ValueError, match="compress"):
        rc.models.config.LayerSpec(attention="compressed", window=128)
    with pytest.raises(ValueError, match="compress"):
        rc.models.config.LayerSpec(attention="full", compress=4)
    spec = rc.models.config.LayerSpec(attention="compressed", window=128, compress=128)
    assert not spec.windowed and spec.reach(1000) == 1000
    assert rc.models.config.LayerSpec(attention="sliding", window=128).reach(1000) == 128
