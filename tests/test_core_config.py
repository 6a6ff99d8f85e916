"""RopeConfig and RopeConfig.from_hf / from_json: reading config.json as published."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc

LLAMA31 = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
           "max_position_embeddings": 131072, "rope_theta": 500000.0,
           "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                            "original_max_position_embeddings": 8192, "rope_type": "llama3"}}


def with_(base, **changes):
    out = json.loads(json.dumps(base))
    out.update(changes)
    return out


def test_llama31_fields():
    c = rc.RopeConfig.from_hf(LLAMA31, name="x")
    assert (c.head_dim, c.rotary_dim, c.base, c.layout, c.method) == \
        (128, 128, 500000.0, "half", "llama3")  # 4096 / 32 = 128
    assert (c.original_context, c.max_context) == (8192, 131072)
    assert c.params_dict == {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "original_max_position_embeddings": 8192}
    theta, att = c.theta()
    assert theta.shape == (64,) and att == 1.0
    # slowest pair: wavelength 2 pi 500000^(63/64) * 8 (divided by s)
    assert c.longest_wavelength() == pytest.approx(2 * math.pi * 5e5 ** (63 / 64) * 8, rel=1e-12)
    assert hash(c) == hash(rc.RopeConfig.from_hf(LLAMA31, name="x"))


def test_transformers5_rope_parameters_flat_and_per_layer_type():
    flat = {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 16,
            "max_position_embeddings": 4096,
            "rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 20000.0}}
    c = rc.RopeConfig.from_hf(flat)
    assert (c.method, c.base, c.params_dict, c.name) == ("linear", 20000.0, {"factor": 2.0},
                                                         "llama")
    nested = {"model_type": "gemma3_text", "head_dim": 256, "max_position_embeddings": 131072,
              "rope_parameters": {
                  "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                  "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}
    c = rc.RopeConfig.from_hf(nested)
    assert (c.method, c.base) == ("linear", 1e6) and c.layers is None  # no layer count
    c = rc.RopeConfig.from_hf(with_(nested, num_hidden_layers=6))  # Gemma 3: 5 local, 1 global
    assert (c.method, c.base) == ("linear", 1e6)
    assert [(g.spec.attention, g.spec.base, g.spec.method, g.layers) for g in c.groups()] == [
        ("sliding", 1e4, "none", (0, 1, 2, 3, 4)), ("full", 1e6, "linear", (5,))]
    local, _ = c.theta(layer=0)
    assert local.tolist() == pytest.approx([1e4 ** (-i / 128) for i in range(128)], rel=1e-14)
    main, _ = c.theta(layer=5)
    assert main.tolist() == pytest.approx([1e6 ** (-i / 128) / 8 for i in range(128)],
                                          rel=1e-14)
    # entries without rope_theta take Gemma3TextConfig's defaults, 1e6 global and 1e4 local;
    # a scaling on the sliding entry scales the sliding layers (as transformers runs it)
    c = rc.RopeConfig.from_hf(with_(nested, num_hidden_layers=6, rope_parameters={
        "full_attention": {"rope_type": "default"},
        "sliding_attention": {"rope_type": "linear", "factor": 2.0}}))
    assert [(g.spec.base, g.spec.method, g.spec.params_dict) for g in c.groups()] == [
        (1e4, "linear", {"factor": 2.0}), (1e6, "none", {})]
    c = rc.RopeConfig.from_hf(with_(nested, num_hidden_layers=6, rope_parameters={
        "full_attention": {"rope_type": "default"}}))  # the sliding entry filled in
    assert [g.spec.base for g in c.groups()] == [1e4, 1e6]
    with pytest.raises(ValueError, match="rope_parameters.global"):
        rc.RopeConfig.from_hf(with_(nested, rope_parameters={
            "full_attention": {"rope_type": "default"}, "global": {}}))


def test_legacy_type_names():
    yarn = with_(LLAMA31, rope_scaling={"type": "yarn", "factor": 4.0,
                                        "original_max_position_embeddings": 32768})
    c = rc.RopeConfig.from_hf(yarn)
    assert c.method == "yarn" and c.theta()[1] == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)
    su = with_(LLAMA31, hidden_size=256, num_attention_heads=2,
               original_max_position_embeddings=4096,
               rope_scaling={"type": "su", "short_factor": [1.0] * 64, "long_factor": [2.0] * 64})
    c = rc.RopeConfig.from_hf(su)
    assert c.method == "longrope" and c.original_context == 4096
    dyn = with_(LLAMA31, rope_scaling={"type": "dynamic", "factor": 2.0})
    c = rc.RopeConfig.from_hf(dyn)
    # Hugging Face's dynamic NTK counts from max_position_embeddings
    assert c.method == "dynamic" and c.params_dict["original_max_position_embeddings"] == 131072
    assert rc.RopeConfig.from_hf(with_(LLAMA31, rope_scaling={"type": "default"})).method == "none"
    assert rc.RopeConfig.from_hf(with_(LLAMA31, rope_scaling=None)).method == "none"


def test_partial_rotary_fields_and_bases():
    base = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 2048}
    assert rc.RopeConfig.from_hf(with_(base, partial_rotary_factor=0.5)).rotary_dim == 64
    assert rc.RopeConfig.from_hf(with_(base, rotary_pct=0.25, rotary_emb_base=20000)).base == 2e4
    assert rc.RopeConfig.from_hf(with_(base, rotary_dim=32)).rotary_dim == 32
    glm = rc.RopeConfig.from_hf(with_(base, model_type="chatglm", kv_channels=128, rope_ratio=50))
    assert (glm.rotary_dim, glm.base, glm.layout) == (64, 500000.0, "interleaved")
    ds = rc.RopeConfig.from_hf(with_(base, model_type="deepseek_v3", qk_nope_head_dim=128,
                                     qk_rope_head_dim=64))
    assert (ds.head_dim, ds.rotary_dim, ds.layout) == (192, 64, "interleaved")
    plain = with_(base, model_type="deepseek_v3", qk_rope_head_dim=64, qk_nope_head_dim=128,
                  rope_interleave=False)
    assert rc.RopeConfig.from_hf(plain).layout == "half"


def test_direct_construction_normalises_params():
    c = rc.RopeConfig("m", 96, 96, 1e4, "half", "longrope",
                      {"short_factor": [1.0] * 48, "long_factor": [2.0] * 48,
                       "original_max_position_embeddings": 4096},
                      4096, 131072)
    assert isinstance(c.params, tuple) and c.params[0][0] == "long_factor"
    assert c.theta(seq_len=5000)[0].tolist() == pytest.approx(
        [1e4 ** (-i / 48) / 2 for i in range(48)], rel=1e-14)
    hash(c)


@pytest.mark.parametrize("change,field", [
    ({"rotary_dim": 33}, "rotary_dim"),
    ({"rotary_dim": 256}, "rotary_dim"),
    ({"partial_rotary_factor": 1.5}, "partial_rotary_factor"),
    ({"rope_theta": -5.0}, "rope_theta"),
    ({"rope_theta": "10000"}, "rope_theta"),
    ({"rope_theta": True}, "rope_theta"),
    ({"hidden_size": 4097}, "hidden_size"),
    ({"hidden_size": 10**12}, "hidden_size"),
    ({"head_dim": 8192}, "head_dim"),
    ({"max_position_embeddings": 10**9}, "max_position_embeddings"),
    ({"max_position_embeddings": "long"}, "max_position_embeddings"),
    ({"rope_scaling": [1, 2]}, "rope_scaling"),
    ({"rope_scaling": {"rope_type": "llama3", "factor": 0.5, "original_max_position_embeddings":
                       8192}}, "factor"),
    ({"rope_scaling": {"rope_type": "linear", "factor": 2.0, "beta_fast": 3}}, "beta_fast"),
    ({"rope_scaling": {"rope_type": "magic", "factor": 2.0}}, "rope_type"),
    ({"rope_scaling": {"rope_type": "linear", "type": "yarn", "factor": 2.0}}, "type"),
    ({"rope_scaling": {"rope_type": "linear", "factor": 5000.0}}, "factor"),
    ({"rope_ratio": 2.0}, "rope_ratio"),
    ({"mrope_section": [16, 24]}, "mrope_section"),
    ({"text_config": 3}, "text_config"),
])
def test_malformed_configs_name_the_field(change, field):
    with pytest.raises(ValueError) as info:
        rc.RopeConfig.from_hf(with_(LLAMA31, **change))
    assert field in str(info.value), str(info.value)


def test_missing_fields():
    with pytest.raises(ValueError, match="head_dim"):
        rc.RopeConfig.from_hf({"max_position_embeddings": 10})
    with pytest.raises(ValueError, match="max_position_embeddings"):
        rc.RopeConfig.from_hf({"head_dim": 64})
    with pytest.raises(ValueError, match="config"):
        rc.RopeConfig.from_hf([1, 2])


def test_from_json():
    c = rc.RopeConfig.from_json(json.dumps(LLAMA31), name="Llama 3.1 8B")
    assert c == rc.RopeConfig.from_hf(LLAMA31, name="Llama 3.1 8B")
    assert rc.RopeConfig.from_json(json.dumps(LLAMA31).encode()).method == "llama3"
    for bad, text in [("{", "not valid JSON"), ('{"head_dim": NaN}', "NaN"),
                      ("[" * 100000, "JSON"), (b"\xff\xfe", "UTF-8"),
                      (" " * 1_000_001, "1000000 bytes"), (3, "config")]:
        with pytest.raises(ValueError, match=text):
            rc.RopeConfig.from_json(bad)


# --- validation as strict as transformers (issue 20) -----------------------------------

@pytest.mark.parametrize("rope_type, given, missing", [
    ("linear", {}, "factor"), ("dynamic", {}, "factor"),
    ("yarn", {"original_max_position_embeddings": 4096}, "factor"),
    ("llama3", {"factor": 8.0, "high_freq_factor": 4.0}, "low_freq_factor"),
    ("longrope", {"short_factor": [1.0] * 64}, "long_factor"),
])
def test_required_keys_named(rope_type, given, missing):
    cfg = with_(LLAMA31, rope_scaling={"rope_type": rope_type, **given})
    with pytest.raises(ValueError, match=f"rope_scaling.{missing} is missing"):
        rc.RopeConfig.from_hf(cfg)


def test_llama3_equal_freq_factors_accepted_with_an_empty_band():
    cfg = with_(LLAMA31, rope_scaling={**LLAMA31["rope_scaling"], "high_freq_factor": 1.0})
    theta, _ = rc.RopeConfig.from_hf(cfg).theta()
    plain = [5e5 ** (-i / 64) for i in range(64)]
    # wavelengths above L / 1 = 8192 divided by 8, every other one kept
    assert theta.tolist() == pytest.approx(
        [t / 8 if 2 * math.pi / t > 8192 else t for t in plain], rel=1e-13)
    bad = with_(LLAMA31, rope_scaling={**LLAMA31["rope_scaling"], "high_freq_factor": 0.5})
    with pytest.raises(ValueError, match="high_freq_factor"):
        rc.RopeConfig.from_hf(bad)


def test_gemma3_local_base_checked():
    gemma3 = {"model_type": "gemma3_text", "head_dim": 256, "max_position_embeddings": 8192,
              "num_hidden_layers": 6, "rope_local_base_freq": 0.5}
    with pytest.raises(ValueError, match="rope_local_base_freq"):
        rc.RopeConfig.from_hf(gemma3)
    # a llama config's stray key is not read (LlamaConfig does not know it)
    assert rc.RopeConfig.from_hf(with_(LLAMA31, rope_local_base_freq=0.5)).base == 5e5


def test_ten_million_token_context_accepted():
    c = rc.RopeConfig.from_hf(with_(LLAMA31, max_position_embeddings=10_485_760))
    assert c.max_context == 10_485_760 and c.original_context == 8192
    assert c.training_context is None  # a config names where its scaling starts, not training
    with pytest.raises(ValueError, match="max_position_embeddings"):
        rc.RopeConfig.from_hf(with_(LLAMA31, max_position_embeddings=10**9))


@pytest.mark.parametrize("model_type", ["llama4", "llama4_text"])
def test_llama4_original_max_position_embeddings_is_not_its_training_context(model_type):
    # Llama 4 Scout's config.json: llama3 scaling from original_max_position_embeddings 8192
    # (the chunk size); Meta trained it at 256K, which the config does not say
    cfg = with_(LLAMA31, model_type=model_type, max_position_embeddings=10_485_760,
                rope_scaling={"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                              "high_freq_factor": 1.0,
                              "original_max_position_embeddings": 8192})
    c = rc.RopeConfig.from_hf(cfg)
    assert c.training_context is None
    assert (c.original_context, c.max_context) == (8192, 10_485_760)
    # nor does any other config: L is where the scaling starts; a training context comes
    # only from a source (presets.TRAINING)
    assert rc.RopeConfig.from_hf(with_(cfg, model_type="llama")).training_context is None


def test_mrope_interleaved_accepted():
    cfg = {"model_type": "qwen3_vl_text", "head_dim": 128, "max_position_embeddings": 1024,
           "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20],
                            "mrope_interleaved": True}}
    c = rc.RopeConfig.from_hf(cfg)
    assert c.mrope_interleaved and c.mrope_section == (24, 20, 20) and c.method == "none"


def kinds(c) -> list[str]:
    return [c.layer(i).kind for i in range(c.layers)]


def attentions(c) -> list[str]:
    return [c.layer(i).attention for i in range(c.layers)]


def test_layers_from_interval_and_flags():
    base = {"head_dim": 64, "max_position_embeddings": 4096, "num_hidden_layers": 6}
    c = rc.RopeConfig.from_hf({**base, "model_type": "smollm3", "no_rope_layer_interval": 3})
    assert kinds(c) == ["rope", "rope", "nope", "rope", "rope", "nope"]
    c = rc.RopeConfig.from_hf({**base, "model_type": "smollm3",
                               "no_rope_layers": [0, 1, 1, 1, 1, 1]})
    assert kinds(c)[0] == "nope" and kinds(c).count("nope") == 1
    c = rc.RopeConfig.from_hf({**base, "model_type": "llama"})
    assert kinds(c) == ["rope"] * 6 and attentions(c) == ["full"] * 6
    assert len(c.groups()) == 1 and c.groups()[0].layers == tuple(range(6))
    with pytest.raises(ValueError, match="no_rope_layers"):
        rc.RopeConfig.from_hf({**base, "model_type": "smollm3", "no_rope_layers": [1, 0]})
    with pytest.raises(ValueError, match="layer_types"):
        rc.RopeConfig.from_hf({**base, "layer_types": ["sliding_attention"] * 5})
    assert rc.RopeConfig.from_hf({"head_dim": 64, "max_position_embeddings": 8}).layers is None


def test_cohere2_rotates_only_sliding_layers():
    c = rc.RopeConfig.from_hf({"model_type": "cohere2", "head_dim": 64,
                               "max_position_embeddings": 8192, "num_hidden_layers": 8,
                               "sliding_window": 512})
    assert kinds(c) == ["rope", "rope", "rope", "nope"] * 2
    assert attentions(c) == ["sliding", "sliding", "sliding", "full"] * 2
    assert c.layer(0).window == 512 and c.layer(3).window is None and c.layout == "interleaved"
    with pytest.raises(ValueError, match="layer"):
        c.theta(layer=3)  # a NoPE layer has no spectrum


@pytest.mark.parametrize("family, layout", [
    ("glm", "interleaved"), ("glm4", "interleaved"), ("cohere2", "interleaved"),
    ("llama4_text", "interleaved"), ("gpt_oss", "half"), ("qwen3", "half"), ("phi3", "half")])
def test_layout_per_family(family, layout):
    c = rc.RopeConfig.from_hf({"model_type": family, "head_dim": 64,
                               "max_position_embeddings": 8})
    assert c.layout == layout and c.family == family


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 64), base=st.floats(10.0, 1e7), L=st.integers(16, 10**6),
       s=st.floats(1.0, 64.0), f=st.floats(0.25, 8.0))
def test_llama3_equal_freq_factors_is_a_step(half, base, L, s, f):
    """low = high = f: pairs with wavelengths above L / f get theta / s (the wavelength times
    s), the others kept (no band)."""
    theta, _ = rc.scaled_theta(2 * half, base, "llama3", factor=s,
                               original_max_position_embeddings=L, low_freq_factor=f,
                               high_freq_factor=f)
    for i, t in enumerate(theta.tolist()):
        plain = base ** (-i / half)
        expected = plain / s if 2 * math.pi / plain > L / f else plain
        assert t == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("family", ["gemma3_text", "olmo3"])
def test_a_flat_rope_parameters_on_a_global_only_family_is_refused(family):
    """transformers 5.24 (Gemma3TextConfig, Olmo3Config) keeps both layer types default
    beside a flat rope_parameters: a scaling written so is never read. RopeConfig says so by
    name instead of scaling the global layers; rope_scaling, which those classes put on the
    full-attention layers, and a flat dict without scaling are read."""
    config = {"model_type": family, "head_dim": 64, "num_hidden_layers": 8,
              "max_position_embeddings": 65536, "sliding_window": 512,
              "rope_parameters": {"rope_type": "yarn", "factor": 8.0, "rope_theta": 5e5,
                                  "original_max_position_embeddings": 8192}}
    with pytest.raises(ValueError, match="rope_parameters.full_attention"):
        rc.RopeConfig.from_hf(config)
    as_scaling = {**config, "rope_theta": 5e5, "rope_scaling": config["rope_parameters"]}
    del as_scaling["rope_parameters"]
    assert rc.RopeConfig.from_hf(as_scaling).method == "yarn"
    plain = {**config, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}}
    assert rc.RopeConfig.from_hf(plain).method == "none"


def test_parse_json_is_the_one_safe_reader():
    """from_json and the config doctor read the text through parse_json: its errors name the
    problem (line and column, NaN, size)."""
    from rope_core.models.config import parse_json
    assert parse_json(b'{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    for text, said in (('{"a": 1,}', "line 1, column 9"), ('{"a": Infinity}', "Infinity"),
                       (b"\xc3", "not UTF-8")):
        with pytest.raises(ValueError, match=said):
            parse_json(text)
