"""PRESETS: each real model's published config.json, read by RopeConfig.from_hf from its
file in rope_core/models/preset_configs."""

import dataclasses
import json
import math

import pytest
import torch

import rope_core as rc
from rope_core.models import presets
from rope_core.models.presets import HF_CONFIGS, SOURCES, TRAINING
from rope_core.support.translation import render

# (head_dim, rotary_dim, base, layout, method, L, max) from the config.json fields, by hand:
# head_dim = hidden_size / num_attention_heads unless given.
EXPECTED = {
    "Llama 2 7B": (128, 128, 10000.0, "half", "none", 4096, 4096),
    "Llama 3.1 8B": (128, 128, 500000.0, "half", "llama3", 8192, 131072),
    "Llama 3.2 1B": (64, 64, 500000.0, "half", "llama3", 8192, 131072),
    # trained at 8,192 (Mistral 7B paper, Table 1); config.json's 32,768 is configured
    "Mistral 7B v0.1": (128, 128, 10000.0, "half", "none", 8192, 32768),
    "Mistral 7B v0.3": (128, 128, 1e6, "half", "none", 32768, 32768),
    "Qwen2.5 7B": (128, 128, 1e6, "half", "none", 32768, 32768),  # 3584 / 28
    "Qwen2.5 7B (YaRN 128K)": (128, 128, 1e6, "half", "yarn", 32768, 131072),
    "Gemma 2 9B": (256, 256, 10000.0, "half", "none", 8192, 8192),
    # pre-trained at 32K (Gemma 3 report), configured for 128K
    "Gemma 3 4B": (256, 256, 1e6, "half", "linear", 32768, 131072),
    "Phi-3.5 mini": (96, 96, 10000.0, "half", "longrope", 4096, 131072),  # 3072 / 32
    "DeepSeek-V3": (192, 64, 10000.0, "interleaved", "yarn", 4096, 163840),  # 128 + 64
    "GPT-NeoX-20B": (96, 24, 10000.0, "half", "none", 2048, 2048),  # 6144 / 64, 25 %
    "GPT-J 6B": (256, 64, 10000.0, "interleaved", "none", 2048, 2048),  # 4096 / 16
    "ChatGLM3 6B": (128, 64, 10000.0, "interleaved", "none", 8192, 8192),
    "Qwen2-VL 7B": (128, 128, 1e6, "half", "none", 32768, 32768),
    "Llama 4 Scout": (128, 128, 5e5, "interleaved", "llama3", 8192, 10485760),
    # 32,768 natively (the card), configured for 40,960 (config.json)
    "Qwen3 8B": (128, 128, 1e6, "half", "none", 32768, 40960),
    "Qwen3 8B (YaRN 128K)": (128, 128, 1e6, "half", "yarn", 32768, 131072),
    "gpt-oss-20b": (64, 64, 150000.0, "half", "yarn", 4096, 131072),
    "GLM-4-9B-0414": (128, 64, 10000.0, "interleaved", "none", 32768, 32768),  # 128 * 0.5
    "Phi-4-mini": (128, 96, 10000.0, "half", "longrope", 4096, 131072),  # 3072/24, * 0.75
    "Command R7B": (128, 128, 50000.0, "interleaved", "none", 132096, 132096),
    "SmolLM3 3B": (128, 128, 5e6, "half", "none", 65536, 65536),  # 2048 / 16
    # 3584 / 28; L 32,768: its card sets the config for 32,768 (config.json says 128,000)
    "Qwen2.5-VL 7B": (128, 128, 1e6, "half", "none", 32768, 128000),
    "Qwen3-VL 8B": (128, 128, 5e6, "half", "none", 262144, 262144),
    # the main spectrum: the full-attention RoPE layers (global_head_dim 512, proportional
    # RoPE with partial_rotary_factor 0.25: 128 dims rotate)
    "Gemma 4 31B": (512, 128, 1e6, "half", "none", 262144, 262144),
    # the compressed layers: compress_rope_theta, YaRN from 65,536; qk_rope_head_dim 64
    "DeepSeek-V4-Flash": (512, 64, 160000.0, "interleaved", "yarn", 65536, 1048576),
    "Qwen3-Next-80B-A3B": (256, 64, 5e6, "half", "none", 262144, 262144),  # 256 * 0.25
    "Qwen3.5-27B": (256, 64, 1e7, "half", "none", 262144, 262144),
    # no full-attention layer rotates: the sliding ones are the main spectrum
    "EXAONE 4.0 32B": (128, 128, 1e6, "half", "llama3", 8192, 131072),
    "OLMo 3 7B": (128, 128, 5e5, "half", "yarn", 8192, 65536),  # 4096 / 32
    # rope_theta 1,000,000 (llama.cpp PR #15026 reading the Hub file; slime's --rotary-base)
    "GLM-4.5-Air": (128, 64, 1e6, "half", "none", 131072, 131072),  # 128 * 0.5
    "MiniMax-M2": (128, 64, 5e6, "half", "none", 196608, 196608),  # rotary_dim 64
    "Ministral 3 8B": (128, 128, 1e6, "half", "yarn", 16384, 262144),
    "Trinity Nano": (128, 128, 10000.0, "half", "none", 131072, 131072),
    # 32,768 (its card, the LFM2 report), configured for 128,000 (config.json)
    "LFM2-350M": (64, 64, 1e6, "half", "none", 32768, 128000),  # 1024 / 16
    # no layer rotates; the config's unused rope_theta
    "Granite 4.0-H 350M": (64, 64, 10000.0, "half", "none", 32768, 32768),  # 768 / 12
}


def test_at_least_the_required_presets():
    assert set(rc.PRESETS) == set(EXPECTED) == set(HF_CONFIGS)
    assert len(rc.PRESETS) >= 32
    assert set(SOURCES) == set(rc.PRESETS) and all(SOURCES.values())
    # issue 26's models: each family named there has a preset
    families = {p.family for p in rc.PRESETS.values()}
    assert {"gemma4_text", "deepseek_v4", "qwen3_next", "qwen3_5_text", "exaone4", "olmo3",
            "glm4_moe", "minimax_m2", "ministral3"} <= families


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_fields(name):
    p = rc.PRESETS[name]
    assert (p.head_dim, p.rotary_dim, p.base, p.layout, p.method, p.original_context,
            p.max_context) == EXPECTED[name]
    parsed = rc.RopeConfig.from_hf(HF_CONFIGS[name], name=name)  # parser round trip
    assert parsed.training_context is None  # only a source gives one (TRAINING)
    names_L = parsed.original_context != parsed.max_context
    if name in TRAINING and names_L:  # its scaling's L stays (Scout's 8,192; the Qwen
        # YaRN presets' 32,768, also their training context)
        assert p.original_context == parsed.original_context
        assert p.training_context == TRAINING[name]
        assert p == dataclasses.replace(parsed, training_context=TRAINING[name])
    elif name in TRAINING:  # the paper's training context replaces the configured one
        assert parsed.original_context == parsed.max_context
        assert (p.original_context, p.training_context) == (TRAINING[name], TRAINING[name])
    else:
        assert p == parsed
    theta, att = p.theta(seq_len=p.max_context)
    assert theta.shape == (p.rotary_dim // 2,)
    if p.layers is not None:  # the groups partition the layers; layer(i) is its group's spec
        assert sorted(i for g in p.groups() for i in g.layers) == list(range(p.layers))
        assert all(p.layer(i) == g.spec for g in p.groups() for i in g.layers)
    assert bool(torch.isfinite(theta).all()) and bool((theta > 0).all()) and att > 0


def test_special_fields():
    assert rc.PRESETS["Gemma 3 4B"].layer(0).base == 10000.0
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


# layers: (number, NoPE layers, attention kinds per layer, window), by hand from the configs
LAYERS = {
    "Llama 4 Scout": (48, [3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47], "chunked/full", 8192),
    "SmolLM3 3B": (36, [3, 7, 11, 15, 19, 23, 27, 31, 35], "full", None),
    "Command R7B": (32, [3, 7, 11, 15, 19, 23, 27, 31], "sliding/full", 4096),
    "Gemma 3 4B": (34, [], "sliding x5, full", 1024),
    "Gemma 2 9B": (42, [], "sliding/full", 4096),
    "gpt-oss-20b": (24, [], "sliding/full", 128),
    "Llama 3.1 8B": (32, [], "full", None),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_patterns(name):
    p = rc.PRESETS[name]
    n, nope, pattern, window = LAYERS[name]
    assert p.layers == n
    assert [i for i in range(n) if p.layer(i).kind == "nope"] == nope
    a = [p.layer(i).attention for i in range(n)]
    assert {p.layer(i).window for i in range(n) if a[i] != "full"} == ({window} - {None} or set())
    if pattern == "full":
        assert set(a) == {"full"}
    elif pattern == "sliding x5, full":  # sliding_window_pattern 6: layers 5, 11, ... global
        assert [i for i, k in enumerate(a) if k == "full"] == [5, 11, 17, 23, 29]
    else:
        local, glob = pattern.split("/")
        every = 4 if name in ("Llama 4 Scout", "Command R7B") else 2
        assert all(a[i] == (glob if (i + 1) % every == 0 else local) for i in range(n))
    # the groups partition the layers, in order of their first layer
    groups = p.groups()
    assert sorted(i for g in groups for i in g.layers) == list(range(n))
    assert [g.layers[0] for g in groups] == sorted(g.layers[0] for g in groups)


def test_gemma3_local_layers_rotate_with_their_own_base():
    p = rc.PRESETS["Gemma 3 4B"]
    assert (p.layer(0).base, p.layer(0).method) == (1e4, "none")
    assert (p.layer(5).base, p.layer(5).method) == (1e6, "linear")
    assert not rc.PRESETS["Command R7B"].layer(3).rotates  # a global NoPE layer
    g2 = rc.PRESETS["Gemma 2 9B"]
    assert g2.layer(0).base == g2.layer(1).base == 1e4  # one base for all


def test_llama4_scout_spectrum_by_hand():
    """llama3 with low = high = 1: wavelengths above 8192 / 1 are divided by 16, the rest
    kept; no blended band."""
    p = rc.PRESETS["Llama 4 Scout"]
    theta, a = p.theta()
    plain = [5e5 ** (-i / 64) for i in range(64)]
    expected = [t / 16 if 2 * math.pi / t > 8192 else t for t in plain]
    assert a == 1.0 and theta.tolist() == pytest.approx(expected, rel=1e-13)
    assert p.layer(3).query_scale == ("llama4", 8192.0, 0.1)  # floor_scale, attn_scale


def test_deepseek_softmax_scale_by_hand():
    # (0.1 * 1.0 * ln 40 + 1)^2; ln 40 = 3.6888794541139363
    assert rc.PRESETS["DeepSeek-V3"].softmax_scale == pytest.approx(
        (0.1 * 3.6888794541139363 + 1) ** 2, rel=1e-15)
    assert rc.PRESETS["DeepSeek-V3"].softmax_scale == pytest.approx(1.8739, abs=1e-4)
    assert all(p.softmax_scale == 1.0 for n, p in rc.PRESETS.items() if n != "DeepSeek-V3")
    # Ministral 3: mscale = mscale_all_dim = 1, so (get_mscale(s, 1) / get_mscale(s, 1))² = 1


def test_qwen3_vl_interleaved_sections():
    p = rc.PRESETS["Qwen3-VL 8B"]
    assert p.mrope_section == (24, 20, 20) and p.mrope_interleaved  # 64 = 128 / 2 pairs


def test_llama4_scout_training_context_is_meta_256k():
    """Meta: Scout pre- and post-trained at 256K = 262,144 tokens; its llama3 scaling's
    original_max_position_embeddings 8,192 (the chunk size) stays the L of the spectrum."""
    p = rc.PRESETS["Llama 4 Scout"]
    assert p.training_context == 256 * 1024 == 262144
    assert p.original_context == 8192 == p.params_dict["original_max_position_embeddings"]
    assert p.max_context == 10 * 1024 * 1024  # configured: 10,485,760


def test_qwen35_interleaved_mrope_on_its_rotated_pairs():
    """Qwen3.5-27B's text_config: interleaved M-RoPE with sections 11, 11, 10, which cover
    the 256 * 0.25 / 2 = 32 rotated pairs (transformers' Qwen3_5 rotary embedding always
    interleaves, default section [11, 11, 10])."""
    p = rc.PRESETS["Qwen3.5-27B"]
    assert p.mrope_section == (11, 11, 10) and p.mrope_interleaved
    assert sum(p.mrope_section) == 256 * 25 // 100 // 2 == 32


def test_exaone4_written_as_published_reads_like_the_period():
    """EXAONE 4's config.json writes sliding_window_pattern "LLLG" with layer_types written
    out; the same layers as the integer period 4 (three sliding layers, then a global
    layer without RoPE), and as the "LLLG" string alone."""
    published = HF_CONFIGS["EXAONE 4.0 32B"]
    assert published["sliding_window_pattern"] == "LLLG"
    expected = (["sliding_attention"] * 3 + ["full_attention"]) * 16
    assert published["layer_types"] == expected
    as_period = {k: v for k, v in published.items() if k != "layer_types"}
    as_period["sliding_window_pattern"] = 4
    as_string = {k: v for k, v in published.items() if k != "layer_types"}
    layers = [rc.PRESETS["EXAONE 4.0 32B"].layer(i) for i in range(64)]
    for cfg in (as_period, as_string):
        other = rc.RopeConfig.from_hf(cfg)
        assert [other.layer(i) for i in range(64)] == layers
    assert [i for i, s in enumerate(layers) if not s.rotates] == list(range(3, 64, 4))


def test_lfm2_context_is_its_card_not_max_position_embeddings():
    """LFM2-350M: its card and the LFM2 report say 32,768 tokens; config.json's
    max_position_embeddings 128,000 stays the configured context."""
    p = rc.PRESETS["LFM2-350M"]
    assert HF_CONFIGS["LFM2-350M"]["max_position_embeddings"] == 128000
    assert (p.training_context, p.original_context, p.max_context) == (32768, 32768, 128000)
    assert "32,768" in SOURCES["LFM2-350M"] and "2511.23404" in SOURCES["LFM2-350M"]


def test_glm45_air_base_is_one_million():
    """zai-org/GLM-4.5-Air config.json rope_theta 1000000 (llama.cpp PR #15026: 'RoPE θ:
    1000000.0 (1M)'): θᵢ = 1e6^(-2i/64) on the 64 rotated dims of 128."""
    p = rc.PRESETS["GLM-4.5-Air"]
    theta, _ = p.theta()
    assert theta.tolist() == pytest.approx([1e6 ** (-2 * i / 64) for i in range(32)],
                                           rel=1e-13)
    assert "15026" in SOURCES["GLM-4.5-Air"]


# ------------------------------------------ the preset files (rope_core/models/preset_configs)

def test_the_files_are_the_presets_in_order():
    """order.json lists one file per preset, in PRESETS' order (the pages' selectboxes),
    each named for its preset; a card's recipe is its base's config.json with the card's
    rope_scaling and max_position_embeddings = factor x original (4 x 32,768 = 131,072)."""
    order = json.loads((presets.PRESET_DIR / presets.ORDER_FILE).read_text(encoding="utf-8"))
    names = [json.loads((presets.PRESET_DIR / f"{stem}.json").read_text(encoding="utf-8"))
             ["name"] for stem in order]
    assert names == list(rc.PRESETS) == list(HF_CONFIGS) == list(SOURCES)
    assert presets.slug("Qwen2.5 7B (YaRN 128K)") == "qwen2.5-7b-yarn-128k"
    assert set(presets.NOTES) <= set(rc.PRESETS) and set(TRAINING) <= set(rc.PRESETS)
    assert presets.CARD_RECIPES == {"Qwen2.5 7B (YaRN 128K)": "Qwen2.5 7B",
                                    "Qwen3 8B (YaRN 128K)": "Qwen3 8B"}
    for recipe, base in presets.CARD_RECIPES.items():
        merged, plain = HF_CONFIGS[recipe], HF_CONFIGS[base]
        assert merged["max_position_embeddings"] == 131072 != plain["max_position_embeddings"]
        assert merged["rope_scaling"]["factor"] == 4.0 and plain["rope_scaling"] is None
        assert {k: v for k, v in merged.items() if k not in ("max_position_embeddings",
                                                             "rope_scaling")} == \
            {k: v for k, v in plain.items() if k not in ("max_position_embeddings",
                                                         "rope_scaling")}
    # JSON keeps Python's numbers: an int stays an int, a float a float
    assert HF_CONFIGS["DeepSeek-V3"]["rope_theta"] == 10000
    assert isinstance(HF_CONFIGS["DeepSeek-V3"]["rope_theta"], int)
    assert isinstance(HF_CONFIGS["Llama 3.1 8B"]["rope_theta"], float)


def _write(folder, stem, entry):
    (folder / f"{stem}.json").write_text(json.dumps(entry), encoding="utf-8")


@pytest.fixture
def folder(tmp_path):
    """Two good presets, a config and a card's recipe on it, and their order.json."""
    _write(tmp_path, "m-1b", {"name": "M 1B", "source": "Hub x/m-1b, config.json",
                              "comment": "x/m-1b, config.json",
                              "config": {"model_type": "llama", "head_dim": 8,
                                         "num_attention_heads": 2,
                                         "max_position_embeddings": 64}})
    _write(tmp_path, "m-1b-yarn", {"name": "M 1B (YaRN)", "source": "Hub x/m-1b, README.md",
                                   "comment": "its card", "base": "M 1B",
                                   "card_rope_scaling": {"rope_type": "yarn", "factor": 2.0,
                                                         "original_max_position_embeddings": 64},
                                   "training_context": 64, "training_comment": "its card"})
    (tmp_path / "order.json").write_text('["m-1b", "m-1b-yarn"]', encoding="utf-8")
    return tmp_path


def test_read_preset_files(folder):
    entries = presets.read_preset_files(folder)
    assert list(entries) == ["M 1B", "M 1B (YaRN)"]
    recipe = entries["M 1B (YaRN)"]
    assert recipe["file"] == "m-1b-yarn.json"
    assert recipe["config"]["max_position_embeddings"] == 128  # 2 x 64
    assert recipe["config"]["rope_scaling"]["rope_type"] == "yarn"
    assert presets._preset(recipe).training_context == 64


def _edit(folder, stem, changes):
    """Change fields of a preset file (None: remove the field)."""
    entry = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
    entry.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del entry[key]
    _write(folder, stem, entry)


# (the file, the fields changed, what the error says after the file's name)
BAD_FIELDS = {
    "missing field": ("m-1b", {"source": None}, r"missing: \['source'\], unknown: \[\]"),
    "unknown field": ("m-1b", {"sources": "x"}, r"unknown: \['sources'\]"),
    "empty source": ("m-1b", {"source": " "}, "source must be a non-empty string"),
    "config and base": ("m-1b-yarn", {"config": {}}, "has either config, or base"),
    "neither": ("m-1b", {"config": None}, "has either config, or base"),
    "duplicate name": ("m-1b-yarn", {"name": "M 1B"}, r"'M 1B' is also that of m-1b\.json"),
    "file name": ("m-1b", {"name": "M 2B"}, r"the preset 'M 2B' is m-2b\.json"),
    "unknown base": ("m-1b-yarn", {"base": "M 2B"}, "base 'M 2B' is not a preset"),
    "training alone": ("m-1b-yarn", {"training_comment": None}, "go together"),
    "training type": ("m-1b-yarn", {"training_context": True}, "an integer from 1 to"),
    "scaling": ("m-1b-yarn", {"card_rope_scaling": {"factor": 2}}, "card_rope_scaling must"),
}


@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_a_bad_preset_field_names_its_file(folder, case):
    stem, changes, message = BAD_FIELDS[case]
    _edit(folder, stem, changes)
    with pytest.raises(rc.RopeError, match=rf"^{stem}\.json: .*{message}") as info:
        presets.read_preset_files(folder)
    # a message of the catalog, in Chinese too (the file's name first, as a code span)
    chinese = render(info.value.message, "zh")
    assert chinese.startswith(f"`{stem}.json`：") and chinese != str(info.value)


def test_a_bad_file_or_order_is_named(folder):
    (folder / "m-1b.json").write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^m-1b\.json: config is not valid JSON: .* line 1"):
        presets.read_preset_files(folder)
    (folder / "m-1b.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^m-1b\.json: preset='list' .* a JSON object"):
        presets.read_preset_files(folder)
    _write(folder, "m-3b", {})
    with pytest.raises(ValueError, match=r"^order\.json lists .*and not \['m-3b'\]"):
        presets.read_preset_files(folder)
    (folder / "m-3b.json").unlink()
    (folder / "order.json").write_text('["m-1b", "m-1b", "m-1b-yarn", "m-2b"]')
    with pytest.raises(ValueError, match=r"^order\.json .* it lists \['m-1b'\] more than "
                                         r"once, \['m-2b'\] without a file"):
        presets.read_preset_files(folder)


def test_a_config_that_does_not_parse_names_its_file(folder):
    _edit(folder, "m-1b", {"config": {"model_type": "llama", "head_dim": 8}})
    entries = presets.read_preset_files(folder)
    with pytest.raises(ValueError, match=r"m-1b\.json: max_position_embeddings is missing"):
        presets._preset(entries["M 1B"])
