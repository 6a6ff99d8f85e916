"""Serving a model longer (rope_core.models.serving) against the engines' own code and documents.

Expected values come from outside rope_core.models.serving:

* transformers 5.24 itself: its config class reads the preset's config.json with the
  transformers entry merged in, and ROPE_INIT_FUNCTIONS (or base^(-2i/d) for the default
  type) give the inv_freq and attention factor, compared with extended_config(...).theta;
* the documented recipes, written out here as their documents print them:
  Qwen/Qwen3-8B's model card (README.md, "Processing Long Texts": the config.json
  rope_scaling, the vLLM, SGLang and llama-server lines for YaRN x4 from 32,768),
  Qwen/Qwen2.5-7B-Instruct's model card (its config.json rope_scaling, legacy "type"),
  Qwen's llama.cpp guide (qwen.readthedocs.io, run_locally/llama.cpp: "-c 131072
  --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768") and vLLM's Context Extension
  page (docs.vllm.ai, features/context_extension: the --hf-overrides rope_parameters);
* closed forms: s = T / L, static NTK's base' = base s^(d/(d-2)), linear theta / s.
"""

import copy
import json
import logging
import math
import re
import shlex
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core.models import serving
from rope_core.models.presets import HF_CONFIGS

transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt, "
                                                          "test-only) is not installed")
from test_core_transformers import hf_rope  # noqa: E402
from transformers import AutoConfig, PreTrainedConfig  # noqa: E402
from transformers.models.deepseek_v3.modeling_deepseek_v3 import (  # noqa: E402
    yarn_apply_mscale,
)
from transformers_reference import tiny_text_model  # noqa: E402

# Qwen/Qwen3-8B README.md, "Processing Long Texts" (the lines as the card prints them)
QWEN3_CONFIG = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
QWEN3_VLLM = ("vllm serve ... --rope-scaling '{\"rope_type\":\"yarn\",\"factor\":4.0,"
              "\"original_max_position_embeddings\":32768}' --max-model-len 131072")
QWEN3_SGLANG = ("python -m sglang.launch_server ... --json-model-override-args "
                "'{\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":4.0,"
                "\"original_max_position_embeddings\":32768}}'")
QWEN3_LLAMA_SERVER = "llama-server ... --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"
# Qwen/Qwen2.5-7B-Instruct README.md, "Processing Long Texts" (config.json snippet)
QWEN25_CONFIG = {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}
# Qwen's llama.cpp guide (qwen.readthedocs.io/en/latest/run_locally/llama.cpp.html)
QWEN_LLAMA_CPP = "-c 131072 --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"
# docs.vllm.ai/en/stable/features/context_extension/ (Qwen3-0.6B, base 1000000)
VLLM_DOCS = ("vllm serve Qwen/Qwen3-0.6B --hf-overrides '{\"rope_parameters\": {\"factor\": "
             "4.0, \"original_max_position_embeddings\": 32768, \"rope_theta\": 1000000, "
             "\"rope_type\": \"yarn\"}}' --max-model-len 131072")

logging.getLogger("transformers").setLevel(logging.ERROR)


def flags(command: str) -> dict:
    """{flag: value} of a command line as a shell splits it (a flag followed by a value)."""
    words = shlex.split(command)
    return {w: words[i + 1] for i, w in enumerate(words[:-1])
            if w.startswith("-") and not words[i + 1].startswith("--")}


def merge_entry(config_json: dict, settings_: dict) -> dict:
    """``settings_`` merged into a config.json as the page says: each key set, and the keys
    under "text_config" set inside the config's own text_config (key by key)."""
    d = copy.deepcopy(config_json)
    for key, value in copy.deepcopy(settings_).items():
        if key == "text_config":
            d.setdefault("text_config", {}).update(value)
        else:
            d[key] = value
    return d


def outer_config(config_json: dict):
    """transformers' OWN config class for a config.json (the outer, multimodal one where
    there is one), as from_pretrained builds it."""
    d = copy.deepcopy(config_json)
    model_type = d.pop("model_type")
    return AutoConfig.for_model(model_type, **d)


def merged_config(name: str, settings_: dict):
    """transformers' language-model config (``get_text_config()`` of the OUTER config class)
    for the preset's config.json with ``settings_`` merged in, and the merged dict."""
    merged = merge_entry(HF_CONFIGS[name], settings_)
    return outer_config(merged).get_text_config(), merged


def vllm_apply(config, overrides: dict):
    """vLLM 0.33.0's --hf-overrides on transformers' config object, as written in its
    vllm/config/model.py (CHECKED["vllm_overrides"]): flat values go to config.update() when
    the config is loaded (transformers_utils/config.py:989-991); dict values afterwards,
    a sub-config merged key by key (_update_nested, 527-553), anything else set with
    setattr (_apply_dict_overrides, 555-570); the model then reads get_text_config()
    (691-693)."""
    config.update({k: v for k, v in overrides.items() if not isinstance(v, dict)})

    def update_nested(target, updates):
        for key, value in updates.items():
            if isinstance(value, dict):
                inner = target.get(key) if isinstance(target, dict) else getattr(target, key,
                                                                                  None)
                if inner is not None and (isinstance(inner, dict) or hasattr(inner, "__dict__")):
                    update_nested(inner, value)
                    continue
            if isinstance(target, dict):
                target[key] = value
            else:
                setattr(target, key, value)

    for key, value in overrides.items():
        if not isinstance(value, dict):
            continue
        attr = getattr(config, key, None)
        if attr is not None and isinstance(attr, PreTrainedConfig):
            update_nested(attr, value)
        else:
            setattr(config, key, value)
    return config.get_text_config()


def sglang_apply(config, overrides: dict):
    """SGLang 0.5.23's --json-model-override-args on transformers' config object, as written
    in python/sglang/srt/utils/hf_transformers/config.py:405-422 (CHECKED["sglang_overrides"]):
    a dict for a sub-config goes to its update(); rope_scaling / rope_parameters dicts are
    merged into the current ones; anything else is set. SGLang then reads hf_text_config
    (configs/model_config.py:636)."""
    for key, value in overrides.items():
        current = getattr(config, key, None)
        if isinstance(value, dict) and isinstance(current, PreTrainedConfig):
            with warnings.catch_warnings():  # transformers: rope_scaling is deprecated
                warnings.simplefilter("ignore", FutureWarning)
                current.update(value)
        elif key in ("rope_scaling", "rope_parameters") and isinstance(value, dict) and \
                isinstance(current, dict):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                setattr(config, key, {**current, **value})
        else:
            setattr(config, key, value)
    return config.get_text_config()


class SGLangOlmo3Config(PreTrainedConfig):
    """SGLang 0.5.23's own Olmo3Config, the part that holds RoPE
    (python/sglang/srt/configs/olmo3.py:30-100): a flat config whose __init__ sets
    rope_theta and rope_scaling (the PreTrainedConfig property, so rope_parameters) AFTER
    PretrainedConfig.__init__ (olmo3.py:66-90); SGLang loads OLMo 3 with it (its
    _CONFIG_REGISTRY, utils/hf_transformers/common.py:117-139). Written here because SGLang
    is not installed; the reviewer's replay loaded the class itself (review43 sg_olmo.py)."""

    model_type = "olmo3"

    def __init__(self, max_position_embeddings=2048, rope_theta=10000.0, rope_scaling=None,
                 sliding_window=4096, layer_types=None, num_hidden_layers=32, **kwargs):
        super().__init__(**kwargs)
        self.max_position_embeddings = max_position_embeddings
        self.num_hidden_layers = num_hidden_layers
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            self.rope_theta = rope_theta
            self.rope_scaling = rope_scaling
        self.sliding_window = sliding_window
        self.layer_types = layer_types


class EngineChatGLMConfig(PreTrainedConfig):
    """The ChatGLMConfig of vLLM 0.33.0 and SGLang 0.5.23 (vllm/transformers_utils/configs/
    chatglm.py:52-54, python/sglang/srt/configs/chatglm.py:55-57): seq_length, copied to
    max_position_embeddings at load."""

    model_type = "chatglm"

    def __init__(self, seq_length=2048, **kwargs):
        super().__init__(**kwargs)
        self.seq_length = seq_length
        self.max_position_embeddings = seq_length


# model types whose SGLang 0.5.23 language model is built from the OUTER config
# (models/qwen2_vl.py:478-480, qwen2_5_vl.py:720-724, qwen3_vl.py:1343-1360, Qwen3LLMModel)
SGLANG_OUTER_LM = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl_text")


def engine_config(name: str, engine: str):
    """The config object ``engine`` builds from the preset's config.json: the ChatGLMConfig
    of vLLM and SGLang for ChatGLM, SGLang's own flat Olmo3Config for OLMo 3; else
    transformers' own class, onto whose outer config SGLang copies every text_config
    attribute it lacks (python/sglang/srt/utils/hf_transformers/config.py:258-268)."""
    d = copy.deepcopy(HF_CONFIGS[name])
    model_type = d.pop("model_type")
    if model_type == "chatglm":
        return EngineChatGLMConfig(**d)
    if engine == "SGLang" and model_type == "olmo3":
        return SGLangOlmo3Config(**d)
    config = AutoConfig.for_model(model_type, **d)
    text = config.get_text_config()
    if engine == "SGLang" and text is not config:
        for key, value in vars(text).items():
            if not hasattr(config, key) and value is not None:
                setattr(config, key, value)
    return config


def sglang_rope_config(config) -> tuple:
    """SGLang 0.5.23's get_rope_config (utils/hf_transformers/common.py:501-517): (base,
    rope dict) of the config a model reads."""
    params = getattr(config, "rope_parameters", None)
    if params is not None:
        return params.get("rope_theta", getattr(config, "rope_theta", 10000)), params
    return getattr(config, "rope_theta", 10000), getattr(config, "rope_scaling", None)


def sglang_attention(params: dict) -> float:
    """SGLang 0.5.23's YaRN attention factor (layers/rotary_embedding/yarn.py:27-40, 122-131,
    mrope.py:442-466): mscale(s, mscale) / mscale(s, mscale_all_dim) with both keys, else
    0.1 ln s + 1 (always for M-RoPE), times attn_factor; attention_factor is not read; 1 for
    every other rope type."""
    if params.get("rope_type", params.get("type")) != "yarn":
        return 1.0
    s = params["factor"]

    def m(k):
        return 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1.0
    if "mrope_section" not in params and "mscale" in params and "mscale_all_dim" in params:
        return m(params["mscale"]) / m(params["mscale_all_dim"]) * params.get("attn_factor", 1)
    return m(1.0) * params.get("attn_factor", 1)


def probe_rope(params: dict, base: float, head_dim: int, seq_len: int):
    """transformers' inv_freq for a flat rope dict at ``base`` (a LlamaConfig of that head
    dim), attention_factor left out: what SGLang's get_rope builds from the dict a layer of
    SGLang's OLMo 3 reads (its YaRN inv_freq is transformers'; its attention factor is
    sglang_attention's)."""
    keys = {k: v for k, v in params.items() if k not in ("attention_factor", "type")}
    config = transformers.LlamaConfig(
        hidden_size=2 * head_dim, num_attention_heads=2, head_dim=head_dim,
        max_position_embeddings=seq_len, rope_parameters={**keys, "rope_theta": base})
    return hf_rope(config, None, seq_len)[0]


def layer_of(config) -> str | None:
    params = config.rope_parameters
    return "full_attention" if isinstance(params, dict) and "full_attention" in params else None


def hf_main_rope(preset: rc.RopeConfig, config, seq_len=None):
    """hf_rope of the preset's main spectrum (its full-attention layers' entry); for Gemma 4's
    proportional RoPE with the head dim of its first global layer (per_layer_config), the
    zeros transformers appends for the pairs that do not rotate checked and cut off."""
    layer = layer_of(config)
    if (preset.theta_dim or preset.rotary_dim) == preset.rotary_dim:
        return hf_rope(config, layer, seq_len)
    first = next(i for i, t in enumerate(config.layer_types) if t == "full_attention")
    inv, a = hf_rope(config, layer, seq_len, config.per_layer_config[first].head_dim)
    half = preset.rotary_dim // 2
    assert not bool(inv[half:].any())
    return inv[:half], a


class Warnings(logging.Handler):
    """Collects transformers' log records (its config classes warn through logging)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())

    def __enter__(self):
        logging.Logger.warning_once.cache_clear()  # transformers' warning_once: each time
        logger = logging.getLogger("transformers")
        self._level = logger.level
        logger.setLevel(logging.WARNING)
        logger.addHandler(self)
        return self

    def __exit__(self, *exc):
        logger = logging.getLogger("transformers")
        logger.removeHandler(self)
        logger.setLevel(self._level)


def target_for(preset: rc.RopeConfig) -> int | None:
    """4 x the context the preset already reaches, within rope_core's 10^7 tokens."""
    target = 4 * serving.reach(preset)
    return target if target <= 10_000_000 else None


CASES = [(name, method) for name in HF_CONFIGS for method in serving.METHODS
         if method != "longrope" or rc.PRESETS[name].method == "longrope"]
# transformers refuses these (its own code says so): GPT-J's code reads no rope_parameters,
# ChatGLM's remote code only rope_ratio (a base: ntk); Phi3Config accepts only "default"
# and "longrope". No line is written for DeepSeek-V4 (named rope_parameters entries main /
# compress), for Gemma 4's proportional global layers with any method but linear and ntk
# (transformers' proportional type takes a factor and a base), nor for Granite 4.0-H,
# none of whose layers rotates (serving._layer_refusal).
HF_REFUSED = {"GPT-J 6B": set(serving.METHODS),
              "ChatGLM3 6B": set(serving.METHODS) - {"ntk"},
              "Phi-3.5 mini": {"yarn", "linear", "dynamic", "llama3"},
              "Phi-4-mini": {"yarn", "linear", "dynamic", "llama3"},
              "DeepSeek-V4-Flash": set(serving.METHODS),
              "Gemma 4 31B": set(serving.METHODS) - {"linear", "ntk"},
              "Granite 4.0-H 350M": set(serving.METHODS)}


@pytest.mark.parametrize(("name", "method"), CASES)
def test_transformers_entry_round_trips_to_rope_core(name, method):
    """The dict merged into the preset's config.json (into its text_config where it has
    one), read by transformers' OWN config class (the outer multimodal one for Gemma 3 4B,
    Llama 4 and Qwen3-VL) and run through ROPE_INIT_FUNCTIONS, gives extended_config's
    theta and attention factor at a short input, at T and with no length, and T as
    max_position_embeddings; DeepSeek's softmax multiplier is transformers'
    yarn_apply_mscale; RopeConfig.from_hf of the merged config.json gives them too."""
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name} already reaches {serving.reach(preset)} tokens")
    entry = serving.engine_settings(preset, target, method)["transformers"]
    if method in HF_REFUSED.get(name, ()):
        assert not entry["supported"] and entry["command"] == ""
        return
    assert entry["supported"]
    assert json.loads(entry["command"]) == entry["settings"]
    if preset.family == "chatglm":  # remote code: no class in transformers (test_r10_...)
        return
    config, merged = merged_config(name, entry["settings"])
    extended = serving.extended_config(preset, target, method)
    assert config.max_position_embeddings == (extended.original_context if method == "dynamic"
                                              else target)
    for seq_len in (None, 1000, target):
        theta, a = extended.theta(seq_len)
        inv, a_hf = hf_main_rope(preset, config, seq_len)
        assert theta.shape == inv.shape
        torch.testing.assert_close(theta, inv, rtol=2e-6, atol=0)  # transformers: float32
        assert a == pytest.approx(a_hf, rel=1e-6)
    if preset.family in ("deepseek_v2", "deepseek_v3"):  # the softmax scale, outside RoPE
        assert yarn_apply_mscale(config.rope_parameters, 1.0) == \
            pytest.approx(extended.softmax_scale, rel=1e-12)
    back = rc.RopeConfig.from_hf(merged)
    for seq_len in (None, target):
        theta, a = extended.theta(seq_len)
        theta_back, a_back = back.theta(seq_len)
        torch.testing.assert_close(theta_back, theta, rtol=1e-12, atol=0)
        assert a_back == pytest.approx(a, rel=1e-12)


def test_qwen3_card_transformers():
    """The card's rope_scaling is inside the entry's rope_parameters, and both, merged into
    Qwen3-8B's config.json, give transformers the same spectrum and attention factor."""
    qwen3 = rc.PRESETS["Qwen3 8B"]
    entry = serving.engine_settings(qwen3, 131072, "yarn",
                                    original_max_position_embeddings=32768)["transformers"]
    ours = entry["settings"]["rope_parameters"]
    assert {k: ours[k] for k in QWEN3_CONFIG} == QWEN3_CONFIG
    assert ours["rope_theta"] == 1_000_000.0 and entry["settings"]["max_position_embeddings"] \
        == 131072
    theirs, _ = merged_config("Qwen3 8B", {"rope_scaling": dict(QWEN3_CONFIG)})
    mine, _ = merged_config("Qwen3 8B", entry["settings"])
    for seq_len in (None, 131072):
        inv_theirs, a_theirs = hf_rope(theirs, None, seq_len)
        inv_mine, a_mine = hf_rope(mine, None, seq_len)
        torch.testing.assert_close(inv_mine, inv_theirs, rtol=0, atol=0)
        assert a_mine == a_theirs == pytest.approx(0.1 * math.log(4) + 1, rel=1e-12)


def test_qwen25_card_transformers():
    """Qwen2.5's card snippet (legacy "type") and the entry give transformers the same
    spectrum; the entry is exactly the card's YaRN x4 from 32,768."""
    qwen25 = rc.PRESETS["Qwen2.5 7B"]
    entry = serving.engine_settings(qwen25, 131072, "yarn")["transformers"]
    ours = entry["settings"]["rope_parameters"]
    assert ours == {"rope_type": "yarn", "rope_theta": 1_000_000.0, "factor": 4.0,
                    "original_max_position_embeddings": 32768}
    theirs, _ = merged_config("Qwen2.5 7B", {"rope_scaling": dict(QWEN25_CONFIG)})
    mine, _ = merged_config("Qwen2.5 7B", entry["settings"])
    inv_theirs, a_theirs = hf_rope(theirs, None, 131072)
    inv_mine, a_mine = hf_rope(mine, None, 131072)
    torch.testing.assert_close(inv_mine, inv_theirs, rtol=0, atol=0)
    assert a_mine == a_theirs


@pytest.mark.parametrize(("name", "params"), [("Qwen3 8B", {"original_max_position_embeddings":
                                                            32768}),
                                             ("Qwen2.5 7B", {})])
def test_qwen_llama_cpp_recipe(name, params):
    """The llama.cpp line is the card's and Qwen's guide's, flag for flag, and raises the
    GGUF's context_length (the guide's line alone is capped at it: test_r1_...)."""
    entry = serving.engine_settings(rc.PRESETS[name], 131072, "yarn", **params)["llama.cpp"]
    assert entry["supported"]
    assert QWEN_LLAMA_CPP in entry["command"]
    card = flags(QWEN3_LLAMA_SERVER)
    ours = flags(entry["command"])
    assert {k: ours[k] for k in card} == card
    assert ours["-c"] == "131072"
    arch = {"Qwen3 8B": "qwen3", "Qwen2.5 7B": "qwen2"}[name]
    assert entry["settings"] == {"-c": "131072", "--rope-scaling": "yarn", "--rope-scale": "4",
                                 "--yarn-orig-ctx": "32768",
                                 "--override-kv": f"{arch}.context_length=int:131072"}


def test_qwen3_vllm_and_sglang_recipes():
    """vLLM: the rope_parameters of vLLM's own Context Extension page (which replaced the
    card's --rope-scaling) and the card's --max-model-len; SGLang: the card's rope_scaling
    keys, plus rope_theta and the context length."""
    got = serving.engine_settings(rc.PRESETS["Qwen3 8B"], 131072, "yarn",
                                  original_max_position_embeddings=32768)
    vllm = flags(got["vLLM"]["command"])
    docs = flags(VLLM_DOCS)
    assert json.loads(vllm["--hf-overrides"])["rope_parameters"] == \
        json.loads(docs["--hf-overrides"])["rope_parameters"]
    assert vllm["--max-model-len"] == docs["--max-model-len"] == flags(QWEN3_VLLM)[
        "--max-model-len"]
    card = json.loads(flags(QWEN3_SGLANG)["--json-model-override-args"])["rope_scaling"]
    ours = json.loads(flags(got["SGLang"]["command"])["--json-model-override-args"])
    assert {k: ours["rope_scaling"][k] for k in card} == card
    assert ours["rope_scaling"]["rope_theta"] == ours["rope_theta"] == 1_000_000.0
    assert flags(got["SGLang"]["command"])["--context-length"] == "131072"
    assert got["vLLM"]["settings"]["--max-model-len"] == 131072


FORWARD = [name for name in HF_CONFIGS if name != "ChatGLM3 6B"]  # remote code, no class


@pytest.mark.parametrize("name", FORWARD)
def test_every_entry_runs_a_forward_pass(name):
    """Item 3: every transformers entry (each method it is given for), merged into the
    preset's config.json as the page says, builds a tiny model of that family from
    transformers' own config class (tests/transformers_reference.tiny_text_model: 2 heads of
    the model's head dim, 8 layers, CPU, no download) that runs a forward pass at positions
    just below T with a finite output. Ministral 3's entry without llama_4_scaling_beta
    raised TypeError in Ministral3Attention (checked here too)."""
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name} already reaches {serving.reach(preset)} tokens")
    ran = 0
    for method in serving.METHODS:
        if method == "longrope" and preset.method != "longrope":
            continue
        entry = serving.engine_settings(preset, target, method)["transformers"]
        if not entry["supported"]:
            continue
        model = tiny_text_model(merge_entry(HF_CONFIGS[name], entry["settings"]))
        ids = torch.arange(6).unsqueeze(0)  # (1, 6)
        positions = torch.arange(target - 6, target).unsqueeze(0)  # (1, 6)
        with torch.no_grad():
            out = model(input_ids=ids, position_ids=positions).last_hidden_state
        assert bool(torch.isfinite(out).all()), method
        ran += 1
    assert ran or all(not serving.engine_settings(preset, target, m)["transformers"]
                      ["supported"] for m in serving.METHODS if m != "longrope"), name
    if name == "Ministral 3 8B":  # the entry as it was: llama_4_scaling_beta dropped
        entry = serving.engine_settings(preset, target, "yarn")["transformers"]["settings"]
        broken = copy.deepcopy(entry)
        del broken["text_config"]["rope_parameters"]["llama_4_scaling_beta"]
        model = tiny_text_model(merge_entry(HF_CONFIGS[name], broken))
        with pytest.raises(TypeError):
            model(input_ids=torch.arange(6).unsqueeze(0))


@pytest.mark.parametrize(("name", "method"), CASES)
def test_every_refusal_names_its_engine_and_method(name, method):
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name} already reaches {serving.reach(preset)} tokens")
    got = serving.engine_settings(preset, target, method)
    assert list(got) == list(serving.ENGINES)
    for engine, entry in got.items():
        assert entry["engine"] == engine
        if entry["supported"]:
            assert entry["refusal"] is None and entry["command"]
            continue
        text = str(entry["refusal"])
        assert text.startswith(engine) and method in text, text
        assert entry["command"] == "" and entry["settings"] == {}


def test_what_each_engine_refuses():
    """dynamic NTK: only transformers; llama3 and longrope: not on llama.cpp's command line;
    a second method over Llama 3.1's llama3 factors: not in llama.cpp (it would stack);
    gpt-oss's YaRN without truncation: vLLM and SGLang pass truncate (SGLang 0.5.23's
    factory.py:332 and yarn.py:27-40), llama.cpp always truncates; M-RoPE: both engines'
    get_rope keep the sections for the rope types default and yarn (SGLang's
    YaRNScalingMRotaryEmbedding, factory.py:347-358)."""
    llama2, llama31 = rc.PRESETS["Llama 2 7B"], rc.PRESETS["Llama 3.1 8B"]

    def supported(cfg, target, method):
        return {e: v["supported"] for e, v in serving.engine_settings(cfg, target, method).items()}
    assert supported(llama2, 16384, "dynamic") == {"transformers": True, "vLLM": False,
                                                   "SGLang": False, "llama.cpp": False}
    assert supported(llama2, 16384, "llama3") == {"transformers": True, "vLLM": True,
                                                  "SGLang": True, "llama.cpp": False}
    assert supported(llama31, 262144, "yarn")["llama.cpp"] is False
    assert supported(rc.PRESETS["Phi-3.5 mini"], 262144, "longrope")["llama.cpp"] is False
    gpt_oss = serving.engine_settings(rc.PRESETS["gpt-oss-20b"], 262144, "yarn")
    assert gpt_oss["vLLM"]["supported"] and gpt_oss["SGLang"]["supported"]
    sglang = gpt_oss["SGLang"]["settings"]["--json-model-override-args"]["rope_scaling"]
    assert sglang["truncate"] is False
    assert not gpt_oss["llama.cpp"]["supported"]  # its sliding layers (test_r5_...)
    no_truncate = serving.engine_settings(rc.PRESETS["Qwen2.5 7B"], 131072, "yarn",
                                          truncate=False)["llama.cpp"]
    assert not no_truncate["supported"] and "truncate" in str(no_truncate["refusal"])
    vl = rc.PRESETS["Qwen2-VL 7B"]
    assert supported(vl, 131072, "yarn") == {"transformers": True, "vLLM": True,
                                             "SGLang": True, "llama.cpp": True}
    assert supported(vl, 131072, "ntk")["SGLang"] is True
    assert supported(vl, 131072, "linear")["vLLM"] is False
    assert supported(vl, 131072, "linear")["SGLang"] is False
    assert "mrope" in dict(serving.serving_notes(vl, 131072, "ntk"))


def test_static_ntk_base_and_linear_scale_by_hand():
    """Llama 2 (d = 128, base 10^4) from 4,096 to 16,384: s = 4, base' = 10^4 4^(128/126)."""
    got = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "ntk")
    base = 10_000 * 4 ** (128 / 126)
    assert got["transformers"]["settings"]["rope_parameters"] == {"rope_type": "default",
                                                                  "rope_theta": base}
    assert float(got["llama.cpp"]["settings"]["--rope-freq-base"]) == pytest.approx(base,
                                                                                  rel=1e-11)
    assert got["llama.cpp"]["settings"]["--rope-scaling"] == "none"
    linear = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "linear")
    assert linear["llama.cpp"]["settings"] == {
        "-c": "16384", "--rope-scaling": "linear", "--rope-scale": "4",
        "--override-kv": "llama.context_length=int:16384"}
    dyn = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "dynamic", factor=2.0)
    # transformers' dynamic NTK takes L from max_position_embeddings: it stays 4,096
    assert dyn["transformers"]["settings"]["max_position_embeddings"] == 4096
    assert dyn["transformers"]["settings"]["rope_parameters"]["factor"] == 2.0


def test_a_leftover_rope_scaling_would_win_so_the_entry_clears_it():
    """transformers 5.24: a config.json holding rope_scaling (the Qwen2.5 card's YaRN) and
    the entry's rope_parameters: rope_scaling wins unless it is null, as the entry sets."""
    entry = serving.engine_settings(rc.PRESETS["Qwen2.5 7B"], 65536, "linear")["transformers"]
    stale = {**entry["settings"], "rope_scaling": dict(QWEN25_CONFIG)}
    config, _ = merged_config("Qwen2.5 7B", stale)
    assert config.rope_parameters["rope_type"] == "yarn"  # the stale key won
    config, _ = merged_config("Qwen2.5 7B", {"rope_scaling": dict(QWEN25_CONFIG),
                                             **entry["settings"]})
    assert config.rope_parameters["rope_type"] == "linear"


@pytest.mark.parametrize(("args", "params", "names"), [
    (("Qwen2.5 7B", 131072, "none"), {}, ("method", "'yarn'")),
    (("Qwen2.5 7B", 131072, "rope"), {}, ("method",)),
    (("Qwen2.5 7B", 32768, "yarn"), {}, ("target_context", "32768")),
    (("Qwen2.5 7B", 20000, "yarn"), {}, ("target_context", "20000")),
    (("Qwen2.5 7B", 10**7 + 1, "yarn"), {}, ("target_context", "10000000")),
    (("Qwen2.5 7B", 131072.0, "yarn"), {}, ("target_context",)),
    (("Qwen2.5 7B", True, "yarn"), {}, ("target_context",)),
    (("Qwen2.5 7B (YaRN 128K)", 131072, "yarn"), {}, ("target_context", "131072")),
    (("Llama 4 Scout", 10**7, "llama3"), {}, ("target_context", "10485760")),
    (("Qwen2.5 7B", 131072, "yarn"), {"factor": 8.0}, ("factor", "131072 / 32768 = 4")),
    (("Qwen2.5 7B", 131072, "linear"), {"factor": 2}, ("factor", "= 4")),
    (("Qwen2.5 7B", 131072, "yarn"), {"max_position_embeddings": 65536},
     ("max_position_embeddings", "131072")),
    (("Qwen2.5 7B", 131072, "yarn"), {"original_max_position_embeddings": 65536},
     ("original_max_position_embeddings", "32768")),
    (("Qwen2.5 7B", 131072, "yarn"), {"original_max_position_embeddings": 0},
     ("original_max_position_embeddings",)),
    (("Llama 2 7B", 8_388_608, "yarn"), {}, ("target_context", "1000")),
    (("Qwen2.5 7B", 131072, "yarn"), {"beta_fast": -1.0}, ("beta_fast",)),
    (("Qwen2.5 7B", 131072, "ntk"), {"beta_fast": 16.0}, ("beta_fast", "'ntk'")),
    (("Qwen2.5 7B", 131072, "longrope"), {}, ("short_factor",)),
])
def test_bad_requests_are_refused_by_name(args, params, names):
    name, target, method = args
    with pytest.raises(ValueError) as err:
        serving.engine_settings(rc.PRESETS[name], target, method, **params)
    assert isinstance(err.value, rc.RopeError)
    for word in names:
        assert word in str(err.value)


def test_not_a_config():
    with pytest.raises(ValueError, match="config"):
        serving.engine_settings({"model_type": "llama"}, 131072, "yarn")


def test_own_parameters_kept_and_notes():
    """DeepSeek-V3's own YaRN keeps beta, mscale and mscale_all_dim; Llama 3.1 with YaRN
    says that it replaces llama3; Gemma 3 says its sliding layers keep base 10^4."""
    ds = serving.engine_settings(rc.PRESETS["DeepSeek-V3"], 262144, "yarn")
    params = ds["transformers"]["settings"]["rope_parameters"]
    assert params["mscale"] == params["mscale_all_dim"] == 1.0
    assert params["factor"] == 64.0 and params["original_max_position_embeddings"] == 4096
    assert ds["vLLM"]["supported"] and ds["llama.cpp"]["supported"]
    kinds = dict(serving.serving_notes(rc.PRESETS["Llama 3.1 8B"], 262144, "yarn"))
    assert set(kinds) == {"static", "transformers_warning", "built_in"}
    assert "replace llama3 with yarn" in str(kinds["built_in"])
    gemma = dict(serving.serving_notes(rc.PRESETS["Gemma 3 4B"], 262144, "linear"))
    assert "10000" in str(gemma["layers"])
    assert "static" not in dict(serving.serving_notes(rc.PRESETS["Llama 2 7B"], 16384,
                                                      "dynamic"))


def test_range_table_by_hand():
    """With L = R: linear divides theta by s = T / L, so T theta' = R theta and no pair is
    pushed; static NTK multiplies pair i's angle at T by s^(1 - 2i/(d-2)) > 1 for every
    pair but the last, so every pair that did not turn within R but the slowest is pushed."""
    qwen = rc.PRESETS["Qwen2.5 7B"]  # d = 128, base 10^6, R = L = 32,768
    never = sum(2 * math.pi * 1e6 ** (2 * i / 128) > 32768 for i in range(64))
    linear = serving.range_table(qwen, 131072, "linear")
    assert not linear["pushed out"].any()
    assert int((~linear["turned"]).sum()) == never
    ntk = serving.range_table(qwen, 131072, "ntk")
    assert int(ntk["pushed out"].sum()) == never - 1
    for i in (0, 30, 62):
        assert ntk.loc[i, "angle ratio"] == pytest.approx(4 ** (1 - 2 * i / 126), rel=1e-12)
    assert list(ntk.columns[:5]) == ["model", "method", "reach R [tokens]",
                                     "training context [tokens]", "target context T [tokens]"]


def test_settings_table_leads_with_the_choice():
    table = serving.settings_table(rc.PRESETS["Qwen2.5 7B"], 131072, "dynamic")
    assert list(table.columns[:8]) == ["model", "method", "original context L [tokens]",
                                       "target context T [tokens]", "scale s = T/L",
                                       "attention factor a", "softmax scale multiplier m",
                                       "rotated logit multiplier a^2 m"]
    assert all(c.isascii() for c in table.columns)
    refused = table[~table["supported"]]
    assert list(refused["engine"]) == ["vLLM", "SGLang", "llama.cpp"]
    assert (refused["setting"] == "refused").all()


lengths = st.sampled_from([1024, 2048, 4096, 8192, 32768])
scales = st.integers(min_value=2, max_value=64)


@settings(max_examples=30, deadline=None)
@given(L=lengths, k=scales, name=st.sampled_from(["Llama 2 7B", "Qwen2.5 7B", "GLM-4-9B-0414",
                                                  "GPT-NeoX-20B"]))
def test_factor_is_target_over_original(L, k, name):
    """For every method that scales by s, the factor written is T / L and extended_config
    reproduces the closed form: linear theta / s, NTK's slowest pair divided by s."""
    preset = rc.PRESETS[name]
    L = min(L, preset.original_context)
    target = max(k * L, serving.reach(preset) + 1)
    s = target / L
    if s > 1000:
        return
    for method in ("linear", "yarn", "llama3"):
        got = serving.engine_settings(preset, target, method,
                                      original_max_position_embeddings=L)
        factor = got["transformers"]["settings"]["rope_parameters"]["factor"]
        assert factor == s
    plain = rc.theta(preset.rotary_dim, preset.base)
    lin, _ = serving.extended_config(preset, target, "linear",
                                     original_max_position_embeddings=L).theta(target)
    torch.testing.assert_close(lin, plain / s, rtol=1e-13, atol=0)
    ntk, _ = serving.extended_config(preset, target, "ntk",
                                     original_max_position_embeddings=L).theta(target)
    assert float(ntk[-1]) == pytest.approx(float(plain[-1]) / s, rel=1e-12)


# --- the expert review of "Serve it longer" (notes/reviews/serving_review.md) ------------

SERVED = ("vLLM", "SGLang")


def overrides(entry: dict) -> dict:
    """The JSON of a vLLM or SGLang entry."""
    flag = "--hf-overrides" if entry["engine"] == "vLLM" else "--json-model-override-args"
    return entry["settings"][flag]


def flat(settings_: dict) -> dict:
    """The keys of an entry, out of its "text_config" when it has one."""
    return settings_.get("text_config", settings_)


@pytest.mark.parametrize("name", ["Gemma 3 4B", "Qwen3-VL 8B", "Llama 4 Scout"])
def test_a_nested_config_takes_the_entry_in_its_text_config(name):
    """Wrong 3. For a config.json whose language model sits under text_config, the keys
    set at the top level do nothing in transformers' own outer config class (Gemma3Config
    keeps linear x8 and 131,072; Qwen3VLConfig default and 262,144); under text_config they
    give the new spectrum and T."""
    preset = rc.PRESETS[name]
    assert preset.text_config
    target = 2 * serving.reach(preset) if name != "Llama 4 Scout" else None
    if target is None:  # Scout already reaches 10,485,760: the entry is nested all the same
        return
    entry = serving.engine_settings(preset, target, "yarn")["transformers"]["settings"]
    assert list(entry) == ["text_config"]
    before, _ = merged_config(name, {})
    top, _ = merged_config(name, entry["text_config"])  # the review's reproduction
    assert top.rope_parameters == before.rope_parameters
    assert top.max_position_embeddings == before.max_position_embeddings != target
    nested, _ = merged_config(name, entry)
    assert nested.max_position_embeddings == target
    theta, a = serving.extended_config(preset, target, "yarn").theta(target)
    inv, a_hf = hf_rope(nested, layer_of(nested), target)
    torch.testing.assert_close(theta, inv, rtol=2e-6, atol=0)
    assert a == pytest.approx(a_hf, rel=1e-6)


SERVED_CASES = [(name, method, engine) for name, method in CASES for engine in SERVED]


@pytest.mark.parametrize(("name", "method", "engine"), SERVED_CASES)
def test_served_overrides_reach_the_language_model(name, method, engine):
    """Wrong 4, Misleading 5; review43 2 and 3. vLLM's --hf-overrides and SGLang's
    --json-model-override-args, applied as each engine applies them (vllm_apply,
    sglang_apply) to the config object it builds (engine_config: SGLang's own Olmo3Config
    and the engines' ChatGLMConfig, transformers' classes otherwise, with SGLang's copy of
    text_config onto the outer config), give the config the language model is built from
    (the outer one for SGLang's Qwen2-VL, Qwen2.5-VL and Qwen3-VL) the extended spectrum and
    attention factor and T as max_position_embeddings: M-RoPE sections kept for the rope
    types default and yarn, Gemma 3 4B per layer type, OLMo 3's sliding layers at 500,000."""
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name} already reaches {serving.reach(preset)} tokens")
    entry = serving.engine_settings(preset, target, method)[engine]
    if not entry["supported"]:
        return
    apply = vllm_apply if engine == "vLLM" else sglang_apply
    config = engine_config(name, engine)
    text = apply(config, overrides(entry))
    assert text.max_position_embeddings == target
    lm = config if engine == "SGLang" and preset.family in SGLANG_OUTER_LM else text
    assert lm.max_position_embeddings == target
    theta, a = serving.extended_config(preset, target, method).theta(target)
    if preset.family == "chatglm":  # base 10000 rope_ratio (vLLM chatglm.py:98-102)
        assert text.seq_length == target
        torch.testing.assert_close(theta, rc.theta(64, 10000 * text.rope_ratio), rtol=1e-12,
                                   atol=0)
        return
    if preset.family == "gptj":
        return
    if isinstance(lm, SGLangOlmo3Config):  # olmo2.py:131-143: full layers get rope_scaling
        base, params = sglang_rope_config(lm)
        assert params is lm.rope_scaling
        inv = probe_rope(params, base, preset.head_dim, target)
        torch.testing.assert_close(theta, inv, rtol=2e-6, atol=0)
        assert a == pytest.approx(sglang_attention(params), rel=1e-12)
        assert base == serving.layer_counts(preset).local_base  # the sliding layers' base
        return
    inv, a_hf = hf_main_rope(preset, lm, target)
    torch.testing.assert_close(theta, inv, rtol=2e-6, atol=0)
    assert a == pytest.approx(a_hf, rel=1e-6)
    params = lm.rope_parameters
    params = params["full_attention"] if "full_attention" in params else params
    if preset.mrope_section is not None:
        assert list(params["mrope_section"]) == list(preset.mrope_section)
    local = serving.layer_counts(preset).local_base
    if local is not None:  # Gemma 3's sliding layers keep base 10^4
        assert local == preset.layer(0).base
        assert lm.rope_parameters["sliding_attention"]["rope_theta"] == local


@pytest.mark.parametrize("name", list(HF_CONFIGS))
def test_served_overrides_are_nested_where_transformers_has_a_text_subconfig(name):
    """The overrides go under "text_config" exactly where transformers' own config class
    for the config.json keeps the language model in a sub-config (get_text_config() is not
    the config itself)."""
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None or preset.family in ("chatglm",):
        pytest.skip(f"{name}: no served line to check")
    config = outer_config(HF_CONFIGS[name])
    has_sub = config.get_text_config() is not config
    got = serving.engine_settings(preset, target, "ntk")
    for engine in SERVED:
        if got[engine]["supported"]:
            assert ("text_config" in overrides(got[engine])) == has_sub, engine
    if got["transformers"]["supported"]:  # (no line for Gemma 4 and DeepSeek-V4)
        assert ("text_config" in got["transformers"]["settings"]) == \
            ("text_config" in HF_CONFIGS[name])


def vllm_deepseek_type(params: dict) -> str:
    """vLLM 0.33.0, vllm/model_executor/models/deepseek_v2.py:542-547."""
    if params["rope_type"] == "default":
        return "default"
    return "deepseek_llama_scaling" if params.get("attention_factor") == 1.0 else "deepseek_yarn"


def sglang_deepseek_type(params: dict) -> str | None:
    """SGLang 0.5.23, python/sglang/srt/models/deepseek_v2.py:2605-2612 (None for default)
    and 2063-2066 (anything else forced to deepseek_yarn)."""
    return None if params.get("rope_type") == "default" else "deepseek_yarn"


@pytest.mark.parametrize("method", ["yarn", "linear", "ntk", "dynamic", "llama3"])
def test_deepseek_served_only_where_its_rope_type_survives(method):
    """Wrong 1. vLLM's and SGLang's DeepSeek code turn every rope type but default into
    DeepSeek's YaRN, SGLang after merging the override into the model's own YaRN dict:
    a line is given exactly for yarn (which stays YaRN) and ntk (default, plain rotation
    with base')."""
    ds = rc.PRESETS["DeepSeek-V3"]
    got = serving.engine_settings(ds, 524288, method)
    written = got["transformers"]["settings"]["rope_parameters"]
    own = HF_CONFIGS["DeepSeek-V3"]["rope_scaling"]
    served = {"vLLM": vllm_deepseek_type(written),
              "SGLang": sglang_deepseek_type({**own, **written})}
    keeps = {("yarn", "deepseek_yarn"), ("ntk", "default"), ("ntk", None)}
    for engine in SERVED:
        assert got[engine]["supported"] == ((method, served[engine]) in keeps), engine
        if not got[engine]["supported"]:
            assert "deepseek_yarn" in str(got[engine]["refusal"])


def vllm_gpt_oss_rope(params: dict) -> dict:
    """vLLM 0.33.0, vllm/model_executor/models/gpt_oss.py:111-126: the dict it builds."""
    return {"rope_theta": params["rope_theta"], "rope_type": "yarn", "factor": params["factor"],
            "original_max_position_embeddings": params["original_max_position_embeddings"],
            "beta_fast": params["beta_fast"], "beta_slow": params["beta_slow"],
            "truncate": params.get("truncate", True)}


@pytest.mark.parametrize("method", ["yarn", "linear", "ntk", "dynamic", "llama3"])
def test_gpt_oss_on_vllm_only_yarn(method):
    """Wrong 2. vLLM's gpt-oss code builds YaRN from keys of rope_parameters whatever its
    rope type: linear, ntk, llama3 miss keys (KeyError) or would run as YaRN."""
    got = serving.engine_settings(rc.PRESETS["gpt-oss-20b"], 262144, method)
    written = got["transformers"]["settings"]["rope_parameters"]
    try:
        built = vllm_gpt_oss_rope(written)
        same = written["rope_type"] == built["rope_type"]
    except KeyError:
        same = False
    assert got["vLLM"]["supported"] == same
    if same:
        assert vllm_gpt_oss_rope(overrides(got["vLLM"])["rope_parameters"])["truncate"] is False


def test_yarn_attention_factor_per_engine():
    """Wrong 6. transformers and vLLM take attention_factor, else mscale(s, mscale) /
    mscale(s, mscale_all_dim) when both are non-zero (modeling_rope_utils.py:436-440;
    vLLM's yarn_scaling_rope.py:38-46); SGLang reads no attention_factor but both mscale keys
    (yarn.py:122-131); llama.cpp always 0.1 ln s + 1. s = 4: 0.1 ln 4 + 1 = 1.1386."""
    qwen = rc.PRESETS["Qwen2.5 7B"]

    def a_of(**params):
        return serving.extended_config(qwen, 131072, "yarn", **params).theta(131072)[1]
    got = serving.engine_settings(qwen, 131072, "yarn", attention_factor=1.5)
    assert a_of(attention_factor=1.5) == 1.5
    assert got["vLLM"]["supported"] and \
        overrides(got["vLLM"])["rope_parameters"]["attention_factor"] == 1.5
    assert not got["SGLang"]["supported"] and "1.1386" in str(got["SGLang"]["refusal"])
    assert not got["llama.cpp"]["supported"]
    got = serving.engine_settings(qwen, 131072, "yarn", mscale=2.0, mscale_all_dim=1.0)
    ratio = (0.2 * math.log(4) + 1) / (0.1 * math.log(4) + 1)
    assert a_of(mscale=2.0, mscale_all_dim=1.0) == pytest.approx(ratio, rel=1e-12)
    assert got["vLLM"]["supported"] and got["SGLang"]["supported"]
    assert not got["llama.cpp"]["supported"]
    got = serving.engine_settings(qwen, 131072, "yarn")
    assert all(e["supported"] for e in got.values())


def test_dynamic_refusals_say_what_each_engine_computes():
    """Wrong 7. vLLM's DynamicNTKScalingRotaryEmbedding: base (f P / P_trained - (f - 1))^
    (d/(d-2)) with P_trained defaulting to P (get_rope, __init__.py:224-238) = base x 1,
    the plain spectrum; SGLang's: base (f^2 - f + 1)^(d/(d-2)) once (rope_variant.py:880-
    885), static NTK."""
    f, P, d, base = 2.0, 8192, 128, 1e4
    vllm_base = base * (f * P / P - (f - 1)) ** (d / (d - 2))
    sglang_base = base * (f * (P * f) / P - (f - 1)) ** (d / (d - 2))
    assert vllm_base == base and sglang_base == pytest.approx(base * 3 ** (128 / 126))
    got = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "dynamic", factor=f)
    vllm, sglang = str(got["vLLM"]["refusal"]), str(got["SGLang"]["refusal"])
    assert "plain spectrum" in vllm and "static NTK" not in vllm
    assert "static NTK" in sglang and vllm != sglang.replace("SGLang", "vLLM")


@pytest.mark.parametrize("name", list(HF_CONFIGS))
def test_llama_cpp_llama3_advice_only_where_a_converter_writes_rope_freqs(name):
    """Wrong 8. llama.cpp runs llama3 only from a rope_freqs tensor, written by the Llama
    family's converter (conversion/llama.py: LlamaForCausalLM, MistralForCausalLM,
    MixtralForCausalLM, Llama 4; SmolLM3's graph ignores it): "convert again" is advice for
    those model types only."""
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name} already reaches {serving.reach(preset)} tokens")
    entry = serving.engine_settings(preset, target, "llama3")["llama.cpp"]
    assert not entry["supported"]
    # (EXAONE 4's converter derives from the Llama one: serving._LLAMA_CPP_ROPE_FREQS)
    llama_family = preset.family in ("llama", "mistral", "mixtral", "llama4", "llama4_text",
                                     "exaone4")
    if preset.family in ("deepseek_v4",) or (preset.theta_dim or preset.rotary_dim) != \
            preset.rotary_dim:
        llama_family = False  # no line at all (serving._layer_refusal)
    assert ("convert again" in str(entry["refusal"])) == llama_family, str(entry["refusal"])


@pytest.mark.parametrize(("target", "method"), [(524288, "yarn"), (327680, "yarn"),
                                                (524288, "ntk"), (524288, "linear"),
                                                (524288, "llama3"), (524288, "dynamic")])
def test_deepseek_softmax_multiplier_per_method(target, method):
    """Wrong 9. transformers multiplies DeepSeek's softmax scale by mscale(factor,
    mscale_all_dim)^2 for a rope type other than default (yarn_apply_mscale): s = 128,
    (0.1 ln 128 + 1)^2 = 2.206; s = 80, 2.068; ntk, linear, llama3, dynamic: 1. The table
    and extended_config carry it; llama.cpp's deepseek2.cpp would multiply the kq scale by
    (1 + 0.1 ln s)^2 (1 + 0.1 ln s)^2 for linear (a_org and the log multiplier), so it is
    refused there."""
    ds = rc.PRESETS["DeepSeek-V3"]
    s = target / 4096
    expected = (0.1 * math.log(s) + 1) ** 2 if method == "yarn" else 1.0
    assert serving.extended_config(ds, target, method).softmax_scale == \
        pytest.approx(expected, rel=1e-12)
    table = serving.settings_table(ds, target, method)
    assert table["softmax scale multiplier m"].iloc[0] == pytest.approx(expected, rel=1e-12)
    entry = serving.engine_settings(ds, target, method)
    config, _ = merged_config("DeepSeek-V3", entry["transformers"]["settings"])
    assert yarn_apply_mscale(config.rope_parameters, 1.0) == pytest.approx(expected, rel=1e-12)
    if method == "yarn":
        assert expected == pytest.approx({128: 2.206, 80: 2.068}[int(s)], abs=5e-4)
    assert entry["llama.cpp"]["supported"] == (method in ("yarn", "ntk"))
    notes = dict(serving.serving_notes(ds, target, method))
    assert f"× {expected:.4f} with these settings" in str(notes["softmax"])


def test_qwen3_auto_L_is_the_cards_32768():
    """Wrong 10. With L left to the model, Qwen3 8B gets its card's YaRN x4 from 32,768 for
    131,072 tokens, in transformers and llama-server alike."""
    got = serving.engine_settings(rc.PRESETS["Qwen3 8B"], 131072, "yarn")
    ours = got["transformers"]["settings"]["rope_parameters"]
    assert {k: ours[k] for k in QWEN3_CONFIG} == QWEN3_CONFIG
    card = flags(QWEN3_LLAMA_SERVER)
    assert {k: flags(got["llama.cpp"]["command"])[k] for k in card} == card


def test_gemma3_linear_x8_stays_within_its_pretraining_angles():
    """Wrong 11. Gemma 3 4B's global layers trained at 32,768 with the unscaled base 10^6,
    then theta / 8 to 131,072: linear x8 at 262,144 gives 262,144 theta_i / 8 = 32,768
    theta_i, exactly the angles of its pre-training: no pair pushed, largest ratio 1."""
    gemma = rc.PRESETS["Gemma 3 4B"]
    table = serving.range_table(gemma, 262144, "linear")
    plain = 1e6 ** (-torch.arange(0, 256, 2, dtype=torch.float64) / 256)
    seen = (32768 * plain).numpy()
    turned = seen >= 2 * math.pi
    assert not table["pushed out"].any()
    assert (table["turned"].to_numpy() == turned).all()
    assert table["angle ratio"].max() == pytest.approx(1.0, rel=1e-12)
    assert table["largest angle seen [rad]"][~turned].to_numpy() == \
        pytest.approx(seen[~turned], rel=1e-12)
    built_in = str(dict(serving.serving_notes(gemma, 262144, "linear"))["built_in"])
    assert "no pair goes past" in built_in and "never produced" not in built_in


def test_llama3_defaults_are_llama31s_published_values_not_transformers():
    """Wrong 12. transformers has no defaults for llama3's low_freq_factor and
    high_freq_factor (_validate_llama3_rope_parameters requires them); 1 and 4 are Llama
    3.1's published values, which the entry writes out."""
    with pytest.raises(KeyError, match="low_freq_factor"):
        AutoConfig.for_model("llama", rope_parameters={
            "rope_type": "llama3", "rope_theta": 5e5, "factor": 8.0,
            "original_max_position_embeddings": 8192})
    llama31 = rc.PRESETS["Llama 3.1 8B"].params_dict
    assert (llama31["low_freq_factor"], llama31["high_freq_factor"]) == (1.0, 4.0)
    written = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "llama3")
    params = written["transformers"]["settings"]["rope_parameters"]
    assert (params["low_freq_factor"], params["high_freq_factor"]) == (1.0, 4.0)


@pytest.mark.parametrize("name", [n for n in HF_CONFIGS if n not in ("GPT-J 6B", "ChatGLM3 6B")])
def test_dynamic_entry_draws_no_transformers_warning(name):
    """Wrong 13. transformers 5.24 warns "Unrecognized keys in rope_parameters" for a dynamic
    dict holding original_max_position_embeddings; the entry leaves it out."""
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name} already reaches {serving.reach(preset)} tokens")
    entry = serving.engine_settings(preset, target, "dynamic")["transformers"]
    if not entry["supported"]:
        return
    if preset.query_scale and preset.query_scale[0] == "llama_4_scaling_beta":
        # Ministral 3's attention reads the key for its query scale (without it: TypeError,
        # test_every_entry_runs_a_forward_pass); the entry keeps it and says so
        assert flat(entry["settings"])["rope_parameters"]["original_max_position_embeddings"] \
            == preset.query_scale[1]
        assert any("Unrecognized" in str(n) for n in entry["notes"])
        return
    assert "original_max_position_embeddings" not in json.dumps(
        flat(entry["settings"])["rope_parameters"])
    with Warnings() as caught:
        merged_config(name, entry["settings"])
    assert not [r for r in caught.records if "Unrecognized keys" in r], caught.records


def test_own_method_with_another_factor_changes_short_inputs():
    """Misleading 1. Llama 3.1's llama3 x32 instead of x8: transformers' theta at a
    1,000-token input differs from the model's own for the interpolated pairs; the note
    says so and names the factor it was trained with."""
    entry = serving.engine_settings(rc.PRESETS["Llama 3.1 8B"], 262144, "llama3")
    own, _ = merged_config("Llama 3.1 8B", {})
    new, _ = merged_config("Llama 3.1 8B", entry["transformers"]["settings"])
    changed = (hf_rope(own, None, 1000)[0] != hf_rope(new, None, 1000)[0]).sum()
    assert changed > 0
    note = str(dict(serving.serving_notes(rc.PRESETS["Llama 3.1 8B"], 262144,
                                          "llama3"))["built_in"])
    assert "at every length" in note and "from those of factor 8" in note
    assert "trained with" not in note  # Item 5: its source gives no training context
    assert "beyond" not in note


def test_dynamic_notes_say_which_spectrum_short_inputs_get():
    """Misleading 2. Dynamic NTK runs inputs up to L with the plain spectrum (transformers,
    a 1,000-token input): as trained for Qwen2.5 7B, not Llama 3.1's own llama3."""
    for name, target in (("Qwen2.5 7B", 131072), ("Llama 3.1 8B", 262144)):
        preset = rc.PRESETS[name]
        entry = serving.engine_settings(preset, target, "dynamic")["transformers"]
        config, _ = merged_config(name, entry["settings"])
        inv, _a = hf_rope(config, None, 1000)
        plain = 1.0 / (preset.base ** (torch.arange(0, 128, 2).double() / 128))
        torch.testing.assert_close(inv, plain, rtol=2e-6, atol=0)
        notes = dict(serving.serving_notes(preset, target, "dynamic"))
        if preset.method == "none":
            assert "as trained" in str(notes["dynamic"])
        else:
            assert "not Llama 3.1 8B's own llama3" in str(notes["dynamic"])
            assert "never saw" not in str(notes["built_in"])


def layer_facts(name):
    """(layers, RoPE layers, windowed RoPE layers, NoPE layers, window) from transformers' own
    config class: layer_types, no_rope_layers (1 = RoPE), Cohere2's RoPE only on sliding
    layers, Mistral's sliding_window on every layer."""
    config, _ = merged_config(name, {})
    n = config.num_hidden_layers
    types = getattr(config, "layer_types", None) or (
        ["sliding_attention"] * n if getattr(config, "sliding_window", None) else
        ["full_attention"] * n)
    rope = list(getattr(config, "no_rope_layers", None) or [1] * n)
    if config.model_type == "cohere2":
        rope = [int(t == "sliding_attention") for t in types]
    windowed = sum(r and t != "full_attention" for r, t in zip(rope, types))
    return n, sum(rope), windowed, n - sum(rope), getattr(config, "sliding_window", None)


@pytest.mark.parametrize("name", ["Command R7B", "Mistral 7B v0.1", "SmolLM3 3B", "gpt-oss-20b",
                                  "Gemma 2 9B", "Gemma 3 4B", "Qwen2.5 7B"])
def test_layer_counts_and_notes_from_the_layers(name):
    """Misleading 3. layer_counts against transformers' config classes; a model whose every
    RoPE layer is windowed within L (Command R7B: NoPE full layers; Mistral 7B v0.1: window
    4,096 < L = 8,192) is warned that no RoPE layer meets a longer distance, naming YaRN's
    a² there; NoPE layers (SmolLM3) are said to be untouched; windowed layers beside full
    ones (gpt-oss, Gemma 2) are counted."""
    preset = rc.PRESETS[name]
    n, rope, windowed, nope, window = layer_facts(name)
    counts = serving.layer_counts(preset)
    assert (counts.layers, counts.rope, counts.windowed, counts.nope) == \
        (n, rope, windowed, nope)
    if windowed:
        assert counts.window == window
    target = 4 * serving.reach(preset)
    notes = serving.serving_notes(preset, target, "yarn")
    kinds = [k for k, _m in notes]
    text = " ".join(str(m) for _k, m in notes)
    if windowed == rope and window <= preset.original_context:
        assert "windows" in kinds and set(serving.WARNING_KINDS) & set(kinds)
        a = 0.1 * math.log(4) + 1
        assert f"a² = {a * a:.4f}" in text
    else:
        assert "windows" not in kinds
    if nope:
        assert f"{nope} layers without RoPE" in text
    if windowed and windowed < rope:
        assert f"{windowed} of" in text or f"its {windowed} sliding-window" in text


def test_layer_fields_are_read_in_one_function():
    """Misleading 3's port: rope_core/models/serving.py reads a config's layers (its per-layer
    specs, RopeConfig.groups) only in layer_counts and the two helpers beside it."""
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(serving))
    fields = {"layer_specs", "groups", "layer", "window", "local_base"}
    readers = {"layer_counts", "_local_base", "_layer_refusal"}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name not in readers:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and sub.attr in fields:
                    assert isinstance(sub.value, ast.Name) and sub.value.id == "counts", \
                        (node.name, sub.attr)


def test_reconverting_llama31_drops_its_rope_freqs():
    """Misleading 6. llama.cpp's Llama converter writes rope_freqs only for rope_type llama3
    (conversion/llama.py:298-300): the transformers entry for yarn, merged into Llama 3.1's
    config.json, converts to a GGUF without it; the refusal says so."""
    got = serving.engine_settings(rc.PRESETS["Llama 3.1 8B"], 262144, "yarn")
    assert got["transformers"]["settings"]["rope_parameters"]["rope_type"] != "llama3"
    assert "Converting again" in str(got["llama.cpp"]["refusal"])
    phi = serving.engine_settings(rc.PRESETS["Phi-3.5 mini"], 262144, "ntk")["llama.cpp"]
    assert "Converting again" not in str(phi["refusal"])


def test_versions_and_paths_are_named():
    """Misleading 7. Every source names the engine's version; SGLang's paths are 0.5.23's
    (the rotary embedding in layers/rotary_embedding/factory.py, the config in
    utils/hf_transformers/), not the old hf_transformers_utils.py shim."""
    for engine in serving.ENGINES:
        assert serving.SOURCES[engine].startswith(
            f"{engine} {serving.ENGINE_VERSIONS[engine]}")
    assert serving.ENGINE_VERSIONS == {"transformers": rc.TRANSFORMERS_VERSION, "vLLM": "0.33.0",
                                       "SGLang": "0.5.23", "llama.cpp": "0c1e57098"}
    text = " ".join(serving.SOURCES.values()) + " ".join(
        c.where for c in serving.CHECKED.values())
    assert "hf_transformers_utils.py" not in text
    assert "layers/rotary_embedding/factory.py" in text
    assert all(c.engine in serving.ENGINES for c in serving.CHECKED.values())
    # the sources are shown untranslated (in a code span): names and paths, no English prose
    # (screenshot review: "convert_hf_to_gguf.py and conversion/" kept "and" on Chinese pages)
    for source in serving.SOURCES.values():
        assert not re.search(r"\b(and|or|the|of|in)\b", source), source


def test_qwen3s_own_recipe_draws_the_warning_the_entry_avoids():
    """Misleading 8. Qwen3's card adds only rope_scaling and leaves max_position_embeddings at
    40,960: transformers 5.24 warns (40,960 / 32,768 = 1.25, not 4); the entry's keys do not
    draw it. The static note gives the example as Qwen3's card's."""
    with Warnings() as caught:
        merged_config("Qwen3 8B", {"rope_scaling": dict(QWEN3_CONFIG)})
    assert any("factor" in r and "max_position_embeddings" in r for r in caught.records)
    entry = serving.engine_settings(rc.PRESETS["Qwen3 8B"], 131072, "yarn")["transformers"]
    with Warnings() as caught:
        merged_config("Qwen3 8B", entry["settings"])
    assert not [r for r in caught.records if "max_position_embeddings" in r]
    notes = dict(serving.serving_notes(rc.PRESETS["Qwen3 8B"], 131072, "yarn"))
    assert "40,960 / 32,768 = 1.25, not 4" in str(notes["transformers_warning"])
    assert "Qwen3's card" in str(notes["static"])


def test_static_ntk_is_written_as_a_base_not_vllms_ntk_type():
    """Misleading 9. vLLM's own "ntk" type (ntk_scaling_rope.py:31-36) gives (base s)^(-2i/d)
    / s^(2/d) = base^(-2i/d) s^(-(2i+2)/d), not (base s^(d/(d-2)))^(-2i/d): no entry writes
    it; every entry writes base' with rope type default."""
    d, base, s = 128, 1e4, 4.0
    i = torch.arange(64, dtype=torch.float64)
    vllm_ntk = (base * s) ** (-2 * i / d) / s ** (2 / d)
    ours = (base * s ** (d / (d - 2))) ** (-2 * i / d)
    assert not torch.allclose(vllm_ntk, ours, rtol=1e-6)
    got = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "ntk")
    for engine in SERVED:
        params = overrides(got[engine])
        params = params.get("rope_parameters") or params["rope_scaling"]
        assert params["rope_type"] == "default"
        assert params["rope_theta"] == pytest.approx(base * s ** (d / (d - 2)), rel=1e-12)


def test_windows_longer_than_L_are_said_without_the_warning():
    """Misleading 3, the other side: with L = 2,048 below Mistral 7B v0.1's window of 4,096
    the window no longer lies within L: an info note (no warning) says the RoPE layers meet
    distances below 4,096 only."""
    notes = serving.serving_notes(rc.PRESETS["Mistral 7B v0.1"], 32768, "linear",
                                  original_max_position_embeddings=2048)
    kinds = dict(notes)
    assert "windows" not in kinds
    assert "distances below 4,096 only" in str(kinds["layers"])


# --- issue 43: what an engineer pastes must run ---------------------------------------------

def llama_cpp_attention_factor(s: float, log_mul: float, deepseek: bool) -> float:
    """llama.cpp 0c1e57098's YaRN attention factor, as written in src/llama-context.cpp:
    172-214 (yarn_attn_factor = m(s, mscale) / m(s, k) when the GGUF's yarn_log_multiplier k
    is non-zero, mscale = k on DeepSeek2 when k != 1, else 1; m(s) otherwise; divided by
    1 + 0.1 ln s) times ggml's rope_yarn mscale 1 + 0.1 ln s (ops.cpp:6187-6202)."""
    def m(scale, k):
        return 1.0 if scale <= 1 else 0.1 * k * math.log(scale) + 1.0
    if log_mul:
        mscale = log_mul if deepseek and log_mul != 1.0 else 1.0
        factor = m(s, mscale) / m(s, log_mul)
    else:
        factor = m(s, 1.0)
    return factor / (1 + 0.1 * math.log(s)) * (1 + 0.1 * math.log(s))


def test_item1_llama3_multiplies_long_wavelengths_by_s():
    """transformers' _compute_llama3_parameters divides theta by the factor where the
    wavelength is longer than L / low_freq_factor: that wavelength is multiplied by s.
    Llama 4 Scout (s = 16, L = 8,192, low = high = 1) and Llama 3.1 (s = 8)."""
    for name, s in (("Llama 4 Scout", 16.0), ("Llama 3.1 8B", 8.0)):
        config, _ = merged_config(name, {})
        scaled, _a = hf_rope(config, None, None)
        plain = 1.0 / config.rope_parameters["rope_theta"] ** (
            torch.arange(0, 128, 2, dtype=torch.int64).float() / 128).double()
        long = 2 * math.pi / plain > 8192 / config.rope_parameters["low_freq_factor"]
        ratio = (2 * math.pi / scaled) / (2 * math.pi / plain)  # wavelength after / before
        torch.testing.assert_close(ratio[long], torch.full_like(ratio[long], s), rtol=1e-6,
                                   atol=0)
    text = " ".join((serving.__doc__, rc.SCALINGS["llama3"].description,
                     rc.models.presets.NOTES["Llama 4 Scout"]))
    assert "divides those longer" not in text and "is divided by 16" not in text
    assert "multiplied by 16" in rc.models.presets.NOTES["Llama 4 Scout"]
    assert "multiplies the wavelength by s" in rc.SCALINGS["llama3"].description


def test_item2_ministral3_yarn_runs_in_llama_cpp():
    """Ministral 3's converter writes yarn_log_multiplier = mscale_all_dim = 1
    (conversion/mistral3.py:24-30), so llama.cpp's attention factor is m(s, 1) / m(s, 1) = 1,
    transformers' (mscale = mscale_all_dim = 1) too; Qwen2.5's GGUF has none: 0.1 ln 4 + 1."""
    preset = rc.PRESETS["Ministral 3 8B"]
    own = HF_CONFIGS["Ministral 3 8B"]["text_config"]["rope_parameters"]
    got = serving.engine_settings(preset, 524288, "yarn")
    assert got["llama.cpp"]["supported"]
    assert flags(got["llama.cpp"]["command"]) == {
        "-m": "MODEL.gguf", "-c": "524288", "--rope-scaling": "yarn", "--rope-scale": "32",
        "--yarn-orig-ctx": "16384", "--override-kv": "mistral3.context_length=int:524288"}
    a_cpp = llama_cpp_attention_factor(32.0, own["mscale_all_dim"], deepseek=False)
    config, _ = merged_config("Ministral 3 8B", got["transformers"]["settings"])
    _inv, a_hf = hf_rope(config, None, 524288)
    assert a_cpp == pytest.approx(a_hf, rel=1e-6) and a_hf == pytest.approx(1.0, abs=1e-7)
    qwen = serving.engine_settings(rc.PRESETS["Qwen2.5 7B"], 131072, "yarn")["llama.cpp"]
    assert qwen["supported"]
    assert llama_cpp_attention_factor(4.0, 0.0, False) == pytest.approx(0.1 * math.log(4) + 1)


def test_item3_ministral3_keeps_its_query_scale_keys_and_own_L():
    """transformers' Ministral3Attention reads llama_4_scaling_beta and
    original_max_position_embeddings from rope_parameters; another L is refused by name."""
    preset = rc.PRESETS["Ministral 3 8B"]
    for method in ("yarn", "linear", "ntk", "dynamic"):
        params = serving.engine_settings(preset, 524288, method)["transformers"]["settings"][
            "text_config"]["rope_parameters"]
        assert params["llama_4_scaling_beta"] == 0.1
        assert params["original_max_position_embeddings"] == 16384
    with pytest.raises(ValueError, match="original_max_position_embeddings=8192"):
        serving.engine_settings(preset, 524288, "yarn", original_max_position_embeddings=8192)


def test_item4_a_model_without_rope_layers_is_refused():
    """Granite 4.0-H: transformers' config class says position_embedding_type nope, and no
    layer of RopeConfig rotates: every engine refuses every method, saying so."""
    config, _ = merged_config("Granite 4.0-H 350M", {})
    assert config.position_embedding_type == "nope"
    preset = rc.PRESETS["Granite 4.0-H 350M"]
    assert serving.layer_counts(preset).rope == 0
    for method in ("yarn", "linear", "ntk", "dynamic", "llama3"):
        for entry in serving.engine_settings(preset, 131072, method).values():
            assert not entry["supported"]
            assert "none of Granite 4.0-H 350M's 32 layers rotates" in str(entry["refusal"])
    assert serving.engine_settings(rc.PRESETS["Command R7B"], 262144, "yarn")[
        "transformers"]["supported"]  # its sliding layers rotate


@pytest.mark.parametrize("name", ["Qwen2.5 7B (YaRN 128K)", "Qwen3 8B (YaRN 128K)"])
def test_item5_qwen_yarn_presets_were_trained_at_32768(name):
    """Their cards add YaRN x4 at inference; both trained at 32,768: the note says what the
    config sets and where the model was trained, never "trained with factor 4"."""
    preset = rc.PRESETS[name]
    assert preset.training_context == 32768 == preset.original_context
    built_in = str(dict(serving.serving_notes(preset, 262144, "yarn"))["built_in"])
    assert "factor 4 in its `config.json`" in built_in
    assert "trained at 32,768 tokens" in built_in and "trained with factor" not in built_in
    assert "at inference only" in rc.models.presets.NOTES[name]


def test_item6_qwen25_vl_from_its_cards_32768():
    """Qwen2.5-VL's card: the config is set for 32,768 and YaRN x4 from 32,768: auto L is
    32,768, so 131,072 is the card's factor 4 (config.json's 128,000 stays configured)."""
    preset = rc.PRESETS["Qwen2.5-VL 7B"]
    assert (preset.original_context, preset.max_context) == (32768, 128000)
    params = serving.engine_settings(preset, 131072, "yarn")["vLLM"]["settings"][
        "--hf-overrides"]["text_config"]["rope_parameters"]
    assert params["factor"] == 4.0 and params["original_max_position_embeddings"] == 32768


def test_item8_scout_L_is_metas_old_context_len():
    note = rc.models.presets.NOTES["Llama 4 Scout"]
    assert "old_context_len = 8192" in note and "not derived from it" in note
    assert rc.PRESETS["Llama 4 Scout"].original_context == 8192


def test_item9_mistral_v01_needs_no_rope_change_to_32k():
    """Its config.json says 32,768 and its window 4,096 (transformers' MistralConfig, no
    layer_types: vLLM applies the window on every layer, arg_utils.py:2288-2294) is within
    L = 8,192: no change where the window is applied; SGLang's and llama.cpp's Llama code
    run it without the window: refused there."""
    config, _ = merged_config("Mistral 7B v0.1", {})
    assert config.sliding_window == 4096 and getattr(config, "layer_types", None) is None
    preset = rc.PRESETS["Mistral 7B v0.1"]
    kind, message = serving.no_change(preset, 32768)
    assert kind == "windows" and "window of 4,096 tokens" in str(message)
    # past its configured context too (review43 16: test_r16_...)
    assert serving.no_change(preset, 65536)[0] == "windows"
    got = serving.context_settings(preset, 32768)
    assert got["transformers"]["supported"] and got["transformers"]["settings"] == {}
    assert got["vLLM"]["settings"] == {"--max-model-len": 32768}
    for engine, checked in (("SGLang", "sglang_mistral_window"),
                            ("llama.cpp", "llama_cpp_mistral_window")):
        assert not got[engine]["supported"]
        assert serving.CHECKED[checked].where in str(got[engine]["refusal"])


def test_item10_olmo3_s16_drops_the_stale_attention_factor():
    """OLMo 3's attention_factor 1.2079441541679836 = 0.1 ln 8 + 1 (its factor 8): at s =
    16 the lines leave it out, transformers derives 0.1 ln 16 + 1 = 1.2773, and SGLang and
    llama.cpp (which do not read it) agree, so all four give lines."""
    own = HF_CONFIGS["OLMo 3 7B"]["rope_scaling"]["attention_factor"]
    assert own == pytest.approx(0.1 * math.log(8) + 1, rel=1e-15)
    got = serving.engine_settings(rc.PRESETS["OLMo 3 7B"], 131072, "yarn")
    assert all(entry["supported"] for entry in got.values())
    full = got["transformers"]["settings"]["rope_parameters"]["full_attention"]
    assert "attention_factor" not in full
    config, _ = merged_config("OLMo 3 7B", got["transformers"]["settings"])
    _inv, a = hf_rope(config, "full_attention", 131072)
    assert a == pytest.approx(0.1 * math.log(16) + 1, rel=1e-6)
    note = str(dict(serving.serving_notes(rc.PRESETS["OLMo 3 7B"], 131072,
                                          "yarn"))["attention_factor"])
    assert "1.2079" in note and "1.2773" in note
    # its own factor 8 keeps the value (it is not stale there): 65,536 is reached already
    assert serving.no_change(rc.PRESETS["OLMo 3 7B"], 65536)[0] == "reached"


def test_item11_static_note_quotes_qwen_for_yarn_only():
    notes = {m: str(dict(serving.serving_notes(rc.PRESETS["Llama 2 7B"], 16384, m))["static"])
             for m in ("yarn", "linear", "ntk", "llama3")}
    assert "Qwen" in notes["yarn"]
    assert all("Qwen" not in notes[m] and "YaRN" not in notes[m]
               for m in ("linear", "ntk", "llama3"))


@pytest.mark.parametrize("name", list(HF_CONFIGS))
def test_item12_a_target_reached_gets_the_context_flags(name):
    """T <= the context a model reaches: no RoPE change, each engine's context flag set to T
    (llama.cpp's refusal for GPT-J; SGLang's and llama.cpp's for Mistral 7B v0.1, whose
    window they drop, past 4,096: review43 16). Llama 4 Scout past the 131,072 tokens its
    llama3 x16 is built for: no RoPE layer meets a longer distance (its 8,192-token chunks:
    review43 15)."""
    preset = rc.PRESETS[name]
    target = min(serving.reach(preset), 8_388_608)
    kind, _message = serving.no_change(preset, target)
    assert kind == ("windows" if name == "Llama 4 Scout" else "reached")
    got = serving.context_settings(preset, target)
    assert got["transformers"]["supported"] and got["transformers"]["command"] == ""
    assert flags(got["vLLM"]["command"])["--max-model-len"] == str(target)
    dropped = name == "Mistral 7B v0.1"
    if dropped:
        assert not got["SGLang"]["supported"] and not got["llama.cpp"]["supported"]
    else:
        assert flags(got["SGLang"]["command"])["--context-length"] == str(target)
    if got["llama.cpp"]["supported"]:
        assert got["llama.cpp"]["settings"] == {"-c": str(target)}
    else:
        assert preset.family == "gptj" or dropped
    with pytest.raises(ValueError, match="target_context=0"):
        serving.context_settings(preset, 0)
    beyond = serving.reach(preset) + 1
    if beyond <= 10_000_000 and serving.no_change(preset, beyond) is None:
        with pytest.raises(ValueError, match="without a RoPE change"):
            serving.context_settings(preset, beyond)


def test_item13_gemma4_linear_is_proportional_with_a_factor():
    """transformers' proportional type divides inv_freq by factor (modeling_rope_utils.py:
    266): the entry, read by Gemma4TextConfig, gives base^(-2i/512) / s on the 64 rotated
    pairs (test_transformers_entry_round_trips_to_rope_core runs it); vLLM's and SGLang's
    Gemma4RotaryEmbedding take no factor; llama.cpp's global layers take the flags' scale."""
    preset = rc.PRESETS["Gemma 4 31B"]
    got = serving.engine_settings(preset, 524288, "linear")
    config, _ = merged_config("Gemma 4 31B", got["transformers"]["settings"])
    inv, _a = hf_main_rope(preset, config)
    i = torch.arange(64, dtype=torch.float64)
    torch.testing.assert_close(inv, 1e6 ** (-2 * i / 512) / 2, rtol=2e-6, atol=0)
    assert not got["vLLM"]["supported"] and not got["SGLang"]["supported"]
    assert flags(got["llama.cpp"]["command"])["--rope-scale"] == "2"
    assert "proportional" in dict(serving.serving_notes(preset, 524288, "linear"))
    for method in ("yarn", "dynamic", "llama3"):  # ntk, a base change: test_r9_...
        assert not serving.engine_settings(preset, 524288, method)["transformers"]["supported"]


def test_item14_extreme_factors_are_warned():
    """The largest published factor read here is DeepSeek-V3's YaRN 40 (its config.json):
    s = 40 is not warned, s > 40 is (Qwen2.5 7B to 10^7: s = 305)."""
    assert serving.PUBLISHED_MAX_FACTOR == HF_CONFIGS["DeepSeek-V3"]["rope_scaling"]["factor"]
    qwen = rc.PRESETS["Qwen2.5 7B"]
    assert "extreme" not in dict(serving.serving_notes(qwen, 40 * 32768, "yarn"))
    notes = dict(serving.serving_notes(qwen, 10_000_000, "yarn"))
    assert "extreme" in serving.WARNING_KINDS and "305.2" in str(notes["extreme"])


def sglang_context_length(text_config) -> int:
    """SGLang 0.5.23's get_context_length (utils/hf_transformers/common.py:677-694)."""
    scaling = getattr(text_config, "rope_scaling", None)
    factor = 1
    if scaling:
        factor = scaling.get("factor", 1)
        if "original_max_position_embeddings" in scaling or scaling.get("rope_type") == "llama3":
            factor = 1
    for key in ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                "max_position_embeddings"):  # CONTEXT_LENGTH_KEYS, in SGLang's order
        if getattr(text_config, key, None) is not None:
            return int(factor * getattr(text_config, key))
    return 2048


@pytest.mark.parametrize(("name", "method"), CASES)
def test_item15_sglang_lines_need_no_environment_variable(name, method):
    """SGLang refuses a --context-length above its derived context unless
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (model_config.py:1291-1318): every SGLang
    line's override makes that derived context at least T."""
    behaviour = serving.CHECKED["sglang_context"].behaviour
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN" in behaviour and "raises" in behaviour
    preset = rc.PRESETS[name]
    target = target_for(preset)
    if target is None:
        pytest.skip(f"{name}: no SGLang line to check")
    entry = serving.engine_settings(preset, target, method)["SGLang"]
    if not entry["supported"]:
        return
    text = sglang_apply(engine_config(name, "SGLang"), overrides(entry))
    assert sglang_context_length(text) >= entry["settings"]["--context-length"] == target


def test_sglang_gemma2_and_gptj_get_only_static_ntk():
    """SGLang's gemma2.py and gpt_j.py build get_rope from the base alone (no rope_scaling):
    only ntk, a base change, reaches them."""
    for name in ("Gemma 2 9B", "GPT-J 6B"):
        preset = rc.PRESETS[name]
        for method in ("yarn", "linear", "ntk", "dynamic", "llama3"):
            entry = serving.engine_settings(preset, 4 * serving.reach(preset), method)["SGLang"]
            assert entry["supported"] == (method == "ntk"), (name, method)


def test_llama_cpp_refuses_gptj_and_rope_layers_it_keeps():
    """No converter for GPT-J; Trinity's RoPE layers are all sliding and keep the GGUF's
    base and scale (afmoe.cpp:15-21, 129-130)."""
    gptj = serving.engine_settings(rc.PRESETS["GPT-J 6B"], 8192, "ntk")["llama.cpp"]
    assert not gptj["supported"] and "no converter" in str(gptj["refusal"])
    trinity = serving.engine_settings(rc.PRESETS["Trinity Nano"], 262144, "yarn")["llama.cpp"]
    assert not trinity["supported"] and "no flag changes its RoPE" in str(trinity["refusal"])


# --- the expert review of issue 43's first pass (review43: 26 findings) ---------------------

# Per preset: the architecture its config.json names, the GGUF architecture llama.cpp
# 0c1e57098's converter writes for it (the class registered for that architecture and its
# model_arch, named in gguf-py/gguf/constants.py MODEL_ARCH_NAMES) and the context_length it
# writes. Read in the converters, cited line by line; test_r1_arch_names_match_the_converters
# checks the names against a llama.cpp checkout where LLAMA_CPP_DIR names one.
GGUF = {
    # conversion/llama.py:15-34 LlamaModel (LlamaForCausalLM, MistralForCausalLM):
    # MODEL_ARCH.LLAMA, constants.py:1260 "llama"
    "Llama 2 7B": ("LlamaForCausalLM", "llama", 4096),
    "Llama 3.1 8B": ("LlamaForCausalLM", "llama", 131072),
    "Llama 3.2 1B": ("LlamaForCausalLM", "llama", 131072),
    "Mistral 7B v0.1": ("MistralForCausalLM", "llama", 32768),
    "Mistral 7B v0.3": ("MistralForCausalLM", "llama", 32768),
    # conversion/qwen.py:48-58 Qwen2Model: QWEN2, constants.py:1283 "qwen2"
    "Qwen2.5 7B": ("Qwen2ForCausalLM", "qwen2", 32768),
    "Qwen2.5 7B (YaRN 128K)": ("Qwen2ForCausalLM", "qwen2", 131072),
    # conversion/gemma.py:76-77, 87 Gemma2Model: GEMMA2, constants.py:1307 "gemma2"
    "Gemma 2 9B": ("Gemma2ForCausalLM", "gemma2", 8192),
    # conversion/gemma.py:128-129, 146 Gemma3Model: GEMMA3, constants.py:1308 "gemma3"
    "Gemma 3 4B": ("Gemma3ForConditionalGeneration", "gemma3", 131072),
    # conversion/phi.py:41-42, 153-158 Phi3MiniModel: PHI3, constants.py:1296 "phi3"
    "Phi-3.5 mini": ("Phi3ForCausalLM", "phi3", 131072),
    "Phi-4-mini": ("Phi3ForCausalLM", "phi3", 131072),
    # conversion/deepseek.py:225-237 DeepseekV2Model: DEEPSEEK2, constants.py:1334
    "DeepSeek-V3": ("DeepseekV3ForCausalLM", "deepseek2", 163840),
    # conversion/gptneox.py:17-21 GPTNeoXModel: GPTNEOX, constants.py:1268 "gptneox"
    "GPT-NeoX-20B": ("GPTNeoXForCausalLM", "gptneox", 2048),
    # no converter registers GPTJForCausalLM (conversion/__init__.py TEXT_MODEL_MAP)
    "GPT-J 6B": ("GPTJForCausalLM", None, None),
    # conversion/chatglm.py:11-14, 140 ChatGLMModel: CHATGLM, constants.py:1338; seq_length
    "ChatGLM3 6B": ("ChatGLMModel", "chatglm", 8192),
    # conversion/qwenvl.py:21-22 Qwen2VLModel: QWEN2VL, constants.py:1285 "qwen2vl"
    "Qwen2-VL 7B": ("Qwen2VLForConditionalGeneration", "qwen2vl", 32768),
    "Qwen2.5-VL 7B": ("Qwen2_5_VLForConditionalGeneration", "qwen2vl", 128000),
    # conversion/llama.py:373-380 Llama4Model: LLAMA4, constants.py:1261 "llama4"
    "Llama 4 Scout": ("Llama4ForConditionalGeneration", "llama4", 10485760),
    # conversion/qwen.py:159-162 Qwen3Model: QWEN3, constants.py:1286 "qwen3"
    "Qwen3 8B": ("Qwen3ForCausalLM", "qwen3", 40960),
    "Qwen3 8B (YaRN 128K)": ("Qwen3ForCausalLM", "qwen3", 131072),
    # conversion/gpt_oss.py:13-16 GptOssModel: GPT_OSS, constants.py:1379 "gpt-oss"
    "gpt-oss-20b": ("GptOssForCausalLM", "gpt-oss", 131072),
    # conversion/glm.py:17-20 Glm4Model: GLM4, constants.py:1339 "glm4"
    "GLM-4-9B-0414": ("Glm4ForCausalLM", "glm4", 32768),
    # conversion/command_r.py:34-38 Cohere2Model: COHERE2, constants.py:1324 "cohere2"
    "Command R7B": ("Cohere2ForCausalLM", "cohere2", 132096),
    # conversion/llama.py:424-428 SmolLM3Model: SMOLLM3, constants.py:1378 "smollm3"
    "SmolLM3 3B": ("SmolLM3ForCausalLM", "smollm3", 65536),
    # conversion/qwen3vl.py:279-283 Qwen3VLTextModel: QWEN3VL, constants.py:1290 "qwen3vl"
    "Qwen3-VL 8B": ("Qwen3VLForConditionalGeneration", "qwen3vl", 262144),
    # conversion/gemma.py:634-635 Gemma4Model: GEMMA4, constants.py:1310 "gemma4"
    "Gemma 4 31B": ("Gemma4ForConditionalGeneration", "gemma4", 262144),
    # conversion/deepseek.py:525-528 DeepseekV4Model: DEEPSEEK4, constants.py:1337
    "DeepSeek-V4-Flash": ("DeepseekV4ForCausalLM", "deepseek4", 1048576),
    # conversion/qwen.py:370-373 Qwen3NextModel: QWEN3NEXT, constants.py:1288 "qwen3next"
    "Qwen3-Next-80B-A3B": ("Qwen3NextForCausalLM", "qwen3next", 262144),
    # conversion/qwen.py:652-655 Qwen3_5TextModel: QWEN35, constants.py:1292 "qwen35"
    "Qwen3.5-27B": ("Qwen3_5ForConditionalGeneration", "qwen35", 262144),
    # conversion/exaone.py:63-66 Exaone4Model: EXAONE4, constants.py:1352 "exaone4"
    "EXAONE 4.0 32B": ("Exaone4ForCausalLM", "exaone4", 131072),
    # conversion/olmo.py:49-52 Olmo2Model (Olmo3ForCausalLM): OLMO2, constants.py:1328
    "OLMo 3 7B": ("Olmo3ForCausalLM", "olmo2", 65536),
    # conversion/glm.py:111-114 Glm4MoeModel: GLM4_MOE, constants.py:1340 "glm4moe"
    "GLM-4.5-Air": ("Glm4MoeForCausalLM", "glm4moe", 131072),
    # conversion/minimax.py:122-124 MiniMaxM2Model: MINIMAXM2, constants.py:1390
    "MiniMax-M2": ("MiniMaxM2ForCausalLM", "minimax-m2", 196608),
    # conversion/mistral3.py:14-21 Ministral3Model: MISTRAL3, constants.py:1395 "mistral3"
    "Ministral 3 8B": ("Mistral3ForConditionalGeneration", "mistral3", 262144),
    # conversion/afmoe.py:15-18 AfmoeModel: AFMOE, constants.py:1368 "afmoe"
    "Trinity Nano": ("AfmoeForCausalLM", "afmoe", 131072),
    # conversion/lfm2.py:15-18 LFM2Model: LFM2, constants.py:1380 "lfm2"
    "LFM2-350M": ("Lfm2ForCausalLM", "lfm2", 128000),
    # conversion/granite.py:391-396 GraniteHybridModel: GRANITE_HYBRID, constants.py:1356;
    # its attention without RoPE beside Mamba layers: context_length 2**20 (granite.py:515-521)
    "Granite 4.0-H 350M": ("GraniteMoeHybridForCausalLM", "granitehybrid", 2 ** 20),
}


def llama_cpp_override(entry: dict):
    """(arch, T) of a llama.cpp line's --override-kv <arch>.context_length=int:T, or None."""
    value = entry["settings"].get("--override-kv")
    if value is None:
        return None
    key, typed = value.split("=")
    kind, number = typed.split(":")
    arch, suffix = key.rsplit(".", 1)
    assert suffix == "context_length" and kind == "int"
    return arch, int(number)


@pytest.mark.parametrize("name", list(HF_CONFIGS))
def test_r1_llama_cpp_lines_raise_the_ggufs_context(name):
    """review43 1. llama-server caps every slot at min(-c, the GGUF's context_length)
    (tools/server/server-context.cpp:4008-4016), which the converter writes from
    max_position_embeddings (conversion/base.py:1436-1439; GGUF above): every llama.cpp
    line whose T exceeds it raises it with --override-kv <arch>.context_length=int:T (an
    int override sets the uint32 key: src/llama-model-loader.cpp:225-234), the arch the
    model's converter writes; a line within it needs none."""
    preset = rc.PRESETS[name]
    _hf_arch, arch, gguf = GGUF[name]
    for target in (serving.reach(preset), 4 * serving.reach(preset)):
        if target > 10_000_000:
            continue
        if serving.no_change(preset, target) is not None:
            entries = [serving.context_settings(preset, target)["llama.cpp"]]
        else:
            entries = [serving.engine_settings(preset, target, m)["llama.cpp"]
                       for m in serving.METHODS
                       if m != "longrope" or preset.method == "longrope"]
        for entry in entries:
            if not entry["supported"]:
                continue
            assert arch is not None
            assert flags(entry["command"])["-c"] == str(target)
            expected = (arch, target) if target > gguf else None
            assert llama_cpp_override(entry) == expected, (name, target)
            if expected:
                assert any("--override-kv" in str(n) and "capped" not in str(n)
                           and f"{gguf:,}" in str(n) for n in entry["notes"])


def test_r1_the_cap_and_the_fix_cited():
    checked = serving.CHECKED["llama_cpp_context"]
    assert "server-context.cpp:1190-1216, 4008-4016" in checked.where
    assert "common/arg.cpp:2935-2945" in checked.where
    entry = serving.engine_settings(rc.PRESETS["Llama 2 7B"], 16384, "yarn")["llama.cpp"]
    assert llama_cpp_override(entry) == ("llama", 16384)
    note = str(entry["notes"][0])
    assert "4,096" in note and "Converting again" in note


@pytest.mark.skipif(not __import__("os").environ.get("LLAMA_CPP_DIR"),
                    reason="LLAMA_CPP_DIR (a llama.cpp checkout at 0c1e57098) not set")
def test_r1_arch_names_match_the_converters():
    """The GGUF table against the converters themselves: llama.cpp's conversion package's
    class for each architecture and its model_arch's name."""
    import os
    import sys
    root = os.environ["LLAMA_CPP_DIR"]
    sys.path[:0] = [os.path.join(root, "gguf-py"), root]
    try:
        import gguf
        from conversion import get_model_class
        for name, (hf_arch, arch, _gguf) in GGUF.items():
            if arch is None:
                with pytest.raises(NotImplementedError):
                    get_model_class(hf_arch)
                continue
            assert gguf.MODEL_ARCH_NAMES[get_model_class(hf_arch).model_arch] == arch, name
            assert serving._GGUF_ARCH[rc.PRESETS[name].family] == arch, name
    finally:
        del sys.path[:2]


def test_r2_sglang_olmo3_reads_a_flat_override():
    """review43 2. SGLang 0.5.23 reads OLMo 3 with its own flat Olmo3Config
    (SGLangOlmo3Config above): the first pass's nested override, merged into that flat dict
    ({**current, **value}, utils/hf_transformers/config.py:405-422), left factor 8 for
    olmo2.py's full layers (models/olmo2.py:131-143); the flat override gives factor 16
    from 8,192, and the sliding layers keep base 500,000 (their base is get_rope_config's,
    the same dict's: static NTK, a new base, is refused)."""
    preset = rc.PRESETS["OLMo 3 7B"]
    got = serving.engine_settings(preset, 131072, "yarn")
    nested = copy.deepcopy(got["vLLM"]["settings"]["--hf-overrides"])  # the nested form
    nested["rope_scaling"] = nested.pop("rope_parameters")
    old = engine_config("OLMo 3 7B", "SGLang")
    sglang_apply(old, nested)
    assert old.rope_scaling["factor"] == 8.0  # the first pass's line: no effect
    config = engine_config("OLMo 3 7B", "SGLang")
    sglang_apply(config, overrides(got["SGLang"]))
    base, params = sglang_rope_config(config)
    assert (params["rope_type"], params["factor"], params["original_max_position_embeddings"],
            base) == ("yarn", 16.0, 8192, 500000)
    assert sglang_attention(params) == pytest.approx(0.1 * math.log(16) + 1, rel=1e-12)
    ntk = serving.engine_settings(preset, 131072, "ntk")["SGLang"]
    assert not ntk["supported"] and "olmo2.py" in str(ntk["refusal"])
    assert "500000" in str(ntk["refusal"])


@pytest.mark.parametrize("name", ["Qwen2-VL 7B", "Qwen2.5-VL 7B", "Qwen3-VL 8B"])
def test_r3_sglang_vl_overrides_reach_the_outer_config(name):
    """review43 3. SGLang copies text_config's attributes onto the outer config at load
    (utils/hf_transformers/config.py:258-268: the same rope dict) and builds these models'
    language model from the outer one (models/qwen2_vl.py:478-480, qwen2_5_vl.py:720-724,
    qwen3_vl.py:1343-1360): an override of text_config alone replaced text_config's dict and
    left the outer one as it was; the lines now set both, and the outer config holds the new
    scaling, base and sections."""
    preset = rc.PRESETS[name]
    target = 4 * serving.reach(preset)
    for method in ("yarn", "ntk"):
        ov = overrides(serving.engine_settings(preset, target, method)["SGLang"])
        assert ov["text_config"]["rope_scaling"] == ov["rope_scaling"]
        old = engine_config(name, "SGLang")
        before = dict(sglang_rope_config(old)[1])
        sglang_apply(old, {"text_config": ov["text_config"]})
        assert dict(sglang_rope_config(old)[1]) == before  # text_config alone: no effect
        config = engine_config(name, "SGLang")
        text = sglang_apply(config, ov)
        base, outer = sglang_rope_config(config)
        inner = text.rope_parameters
        assert base == inner["rope_theta"]
        for key in ("rope_type", "factor", "original_max_position_embeddings",
                    "mrope_section", "mrope_interleaved"):
            assert outer.get(key) == inner.get(key), (method, key)
        assert config.max_position_embeddings == text.max_position_embeddings == target


def test_r4_llama_cpp_refuses_olmo3_ntk():
    """review43 4. llama.cpp's olmo2.cpp rotates the sliding layers with the flags' base at
    scale 1 (src/models/olmo2.cpp:115-131): --rope-freq-base would reach its 24 sliding
    layers; yarn and linear leave them unscaled at the GGUF's base."""
    preset = rc.PRESETS["OLMo 3 7B"]
    assert serving.layer_counts(preset).local == 24
    ntk = serving.engine_settings(preset, 131072, "ntk")["llama.cpp"]
    assert not ntk["supported"] and "olmo2.cpp" in str(ntk["refusal"])
    for method in ("yarn", "linear"):
        assert serving.engine_settings(preset, 131072, method)["llama.cpp"]["supported"]


def test_r5_llama_cpp_refuses_windowed_layers_it_would_mis_scale():
    """review43 5 (and 19, Gemma 2). gpt-oss's and Gemma 2's sliding layers keep the GGUF's
    base and scale while ext_factor and the attention factor follow the flags
    (src/models/openai-moe.cpp:11-12, 78-103; gemma2.cpp:8-9, 79-101; llama-context.cpp:
    172-174): gpt-oss with --rope-scaling linear or none runs them as plain interpolation
    by 32 with a = 1; Gemma 2's stay unscaled where the spectrum shown scales them. No line
    for either; Gemma 3's local layers, which every line keeps unscaled, are served; the
    layers note no longer says llama.cpp keeps the angles they were trained with."""
    for name, target in (("gpt-oss-20b", 262144), ("Gemma 2 9B", 16384)):
        preset = rc.PRESETS[name]
        for method in serving.METHODS:
            if method == "longrope":
                continue
            entry = serving.engine_settings(preset, target, method)["llama.cpp"]
            assert not entry["supported"], (name, method)
        refusal = str(serving.engine_settings(preset, target, "linear")["llama.cpp"]["refusal"])
        assert serving.CHECKED["llama_cpp_swa"].where in refusal
        notes = " ".join(str(m) for _k, m in serving.serving_notes(preset, target, "linear"))
        assert "angles they were trained with" not in notes
    assert "1/32, its own yarn" in str(serving.engine_settings(
        rc.PRESETS["gpt-oss-20b"], 262144, "ntk")["llama.cpp"]["refusal"])
    gemma3 = rc.PRESETS["Gemma 3 4B"]
    for method in ("linear", "ntk", "yarn"):
        assert serving.engine_settings(gemma3, 262144, method)["llama.cpp"]["supported"]


def test_r6_vllm_ministral3_gets_its_query_scale_from_the_overrides():
    """review43 6. vLLM runs Ministral3ForCausalLM as MistralForCausalLM from text_config
    (registry.py:178, mistral3.py:497-502), whose attention scales its queries when the
    config has llama_4_scaling (getattr, mistral.py:106-115: original_max_position_embeddings
    and beta). The lines add it under text_config with config.json's values (L = 16,384,
    beta = 0.1) and keep vLLM on config.json (--config-format hf --load-format hf); applied
    as vLLM applies --hf-overrides, the text config carries it."""
    preset = rc.PRESETS["Ministral 3 8B"]
    own = HF_CONFIGS["Ministral 3 8B"]["text_config"]["rope_parameters"]
    expected = {"original_max_position_embeddings": own["original_max_position_embeddings"],
                "beta": own["llama_4_scaling_beta"]}
    lines = [serving.engine_settings(preset, 524288, m)["vLLM"] for m in ("yarn", "ntk")]
    lines.append(serving.context_settings(preset, 262144)["vLLM"])
    for entry in lines:
        assert entry["supported"]
        ours = flags(entry["command"])
        assert (ours["--config-format"], ours["--load-format"]) == ("hf", "hf")
        text = vllm_apply(outer_config(HF_CONFIGS["Ministral 3 8B"]),
                          entry["settings"]["--hf-overrides"])
        assert text.llama_4_scaling == expected
        assert any("params.json" in str(n) for n in entry["notes"])
    assert "vllm/model_executor/models/registry.py:178" in serving.CHECKED[
        "vllm_ministral3"].where


def test_r9_gemma4_base_change_reaches_its_global_layers():
    """review43 9. Every engine reads the base of Gemma 4's proportional RoPE (transformers'
    _compute_proportional_rope_parameters, modeling_rope_utils.py:240-267; vLLM's and
    SGLang's Gemma4RotaryEmbedding from rope_parameters[layer_type]['rope_theta'];
    llama.cpp's --rope-freq-base on the global layers only): static NTK is base' =
    10^6 s^(512/510) over the head's 512-dim spectrum, the 64 rotated pairs
    base'^(-2i/512), rope type still proportional; the sliding layers keep 10,000."""
    preset = rc.PRESETS["Gemma 4 31B"]
    s = 524288 / 262144
    base = 1e6 * s ** (512 / 510)
    got = serving.engine_settings(preset, 524288, "ntk")
    assert all(entry["supported"] for entry in got.values())
    config, _ = merged_config("Gemma 4 31B", got["transformers"]["settings"])
    inv, a = hf_main_rope(preset, config)
    i = torch.arange(64, dtype=torch.float64)
    torch.testing.assert_close(inv, base ** (-2 * i / 512), rtol=2e-6, atol=0)
    assert a == 1.0
    for engine in SERVED:
        full = overrides(got[engine])["text_config"]
        full = full.get("rope_parameters", full.get("rope_scaling"))
        assert full["full_attention"]["rope_type"] == "proportional"
        assert full["full_attention"]["rope_theta"] == pytest.approx(base, rel=1e-12)
        assert full["sliding_attention"]["rope_theta"] == 10000.0
    assert float(got["llama.cpp"]["settings"]["--rope-freq-base"]) == pytest.approx(base,
                                                                                  rel=1e-11)


def test_r10_chatglm_base_change_through_rope_ratio():
    """review43 10. ChatGLM's code rotates half of each head (64 dims) at base 10000 x
    rope_ratio (vLLM chatglm.py:97-115, SGLang chatglm.py:101-110, THUDM's
    modeling_chatglm.py): static NTK to 32,768 from 8,192 is rope_ratio = 4^(64/62), with
    seq_length (and, for vLLM's and SGLang's ChatGLMConfig, max_position_embeddings) set to
    T; no other method reaches it."""
    preset = rc.PRESETS["ChatGLM3 6B"]
    got = serving.engine_settings(preset, 32768, "ntk")
    ratio = 4 ** (64 / 62)
    assert got["transformers"]["settings"]["rope_ratio"] == pytest.approx(ratio, rel=1e-12)
    assert got["transformers"]["settings"]["seq_length"] == 32768
    assert any("rope_ratio" in str(n) for n in got["transformers"]["notes"])
    for engine in SERVED:
        ov = overrides(got[engine])
        assert ov["rope_ratio"] == pytest.approx(ratio, rel=1e-12)
        assert ov["seq_length"] == ov["max_position_embeddings"] == 32768
    assert float(got["llama.cpp"]["settings"]["--rope-freq-base"]) == pytest.approx(
        1e4 * ratio, rel=1e-11)
    for method in ("yarn", "linear", "dynamic", "llama3"):
        entries = serving.engine_settings(preset, 32768, method)
        assert not any(entries[e]["supported"] for e in ("transformers", "vLLM", "SGLang"))


def test_chatglm_lines_trust_the_checkpoints_code():
    """ChatGLM's tokenizer exists only as the checkpoint's code (THUDM/chatglm3-6b's
    tokenizer_config.json: auto_map -> tokenization_chatglm.ChatGLMTokenizer), which vLLM and
    SGLang load only with --trust-remote-code: every line they are given for ChatGLM carries
    the flag (as a bare flag), and says why; no other model's does."""
    for target, method in ((16384, "ntk"), (32768, "ntk"), (8192, None)):
        preset = rc.PRESETS["ChatGLM3 6B"]
        got = (serving.engine_settings(preset, target, method) if method else
               serving.context_settings(preset, target))
        for engine in SERVED:
            entry = got[engine]
            assert entry["supported"], (engine, target)
            assert shlex.split(entry["command"]).count("--trust-remote-code") == 1
            assert any("tokenization_chatglm.py" in str(n) for n in entry["notes"])
    other = serving.engine_settings(rc.PRESETS["Qwen2.5 7B"], 131072, "yarn")
    assert not any("--trust-remote-code" in other[e]["command"] for e in SERVED)


def test_r14_longrope_note_keeps_the_per_pair_factors():
    """review43 14. Phi-3.5's and Phi-4-mini's config.json name no factor (LongRoPE's is
    max / original = 32); the per-pair factors stay, only the attention factor changes."""
    for name in ("Phi-3.5 mini", "Phi-4-mini"):
        assert "factor" not in HF_CONFIGS[name]["rope_scaling"]
        note = str(dict(serving.serving_notes(rc.PRESETS[name], 262144,
                                              "longrope"))["built_in"])
        assert "factor 32 in its" not in note and "names no `factor`" in note
        assert "keep those per-pair factors" in note and "short inputs" in note


def test_r15_scout_llama3_is_built_for_131072():
    """review43 15. Llama 4 Scout's llama3 x16 from 8,192 is built for 131,072 tokens (Meta's
    apply_scaling; HF_CONFIGS factor and original); its configured 10,485,760 is reached
    because its RoPE layers attend within 8,192-token chunks (the NoPE layers see the
    whole context): no_change says so past 131,072, and nothing says llama3 takes it to
    10,485,760."""
    preset = rc.PRESETS["Llama 4 Scout"]
    scaling = HF_CONFIGS["Llama 4 Scout"]["text_config"]["rope_scaling"]
    assert serving.built_context(preset) == scaling["factor"] * scaling[
        "original_max_position_embeddings"] == 131072
    kind, message = serving.no_change(preset, 1048576)
    assert kind == "windows" and "8,192" in str(message) and "131,072" in str(message)
    kind, message = serving.no_change(preset, 65536)
    assert kind == "reached" and "built for 131,072" in str(message)
    assert "where its own scaling takes it" not in str(message)


@pytest.mark.parametrize(("name", "target", "arch"), [("Mistral 7B v0.1", 65536, "llama"),
                                                      ("Command R7B", 262144, "cohere2"),
                                                      ("EXAONE 4.0 32B", 262144, "exaone4"),
                                                      ("Trinity Nano", 262144, "afmoe")])
def test_r16_window_capped_models_get_context_lines_at_every_target(name, target, arch):
    """review43 16. Every RoPE layer of these models attends within a window no longer than
    L (layer_counts against transformers' classes: test_layer_counts_and_notes_...): past
    their configured context too, only the context flags and max_position_embeddings = T
    (vLLM refuses --max-model-len above it, config/model.py:2656-2676; llama-server caps at
    the GGUF's context_length). SGLang and llama.cpp, which run Mistral 7B v0.1 without its
    window, get no line past the 4,096-token window, at 8,192 as at 65,536."""
    preset = rc.PRESETS[name]
    kind, _message = serving.no_change(preset, target)
    assert kind == "windows"
    got = serving.context_settings(preset, target)
    assert got["transformers"]["settings"] == {"max_position_embeddings": target}
    assert got["vLLM"]["settings"] == {"--hf-overrides": {"max_position_embeddings": target},
                                       "--max-model-len": target}
    if name == "Mistral 7B v0.1":
        for at in (8192, target):
            context = serving.context_settings(preset, at)
            assert not context["SGLang"]["supported"] and not context["llama.cpp"]["supported"]
        context = serving.context_settings(preset, 4096)
        assert context["SGLang"]["supported"] and context["llama.cpp"]["supported"]
        return
    assert got["SGLang"]["settings"]["--json-model-override-args"] == {
        "max_position_embeddings": target}
    assert llama_cpp_override(got["llama.cpp"]) == (arch, target)


def test_r17_engine_transformers_pins():
    """review43 17. vLLM 0.33.0's wheel requires transformers<5.21.0,>=5.16.1 and SGLang
    0.5.23's pins transformers==5.19.0 (their METADATA, Requires-Dist)."""
    assert serving.ENGINE_TRANSFORMERS == {"vLLM": ">=5.16.1,<5.21", "SGLang": "==5.19.0"}
    assert serving.TRANSFORMERS_PINNED == "5.19.0"


def test_r17_every_sglang_rope_dict_is_complete_without_the_setter():
    """review43 17. transformers 5.19.0's rope_scaling setter (configuration_utils.py:
    588-590) only assigns rope_parameters; 5.24's also standardizes (:724-733), filling
    rope_theta. SGLang's override sets config.rope_scaling to the merged dict
    (utils/hf_transformers/config.py:405-422), so on 5.19.0 a dict without rope_type or
    rope_theta would stay so: every SGLang line's rope dict (each entry of a nested one)
    names both."""
    seen = 0
    for name, cfg in rc.PRESETS.items():
        for method in serving.METHODS:
            for target in (2 * cfg.max_context, 1048576):
                try:
                    entry = serving.engine_settings(cfg, target, method)["SGLang"]
                except ValueError:
                    continue
                if not entry["supported"]:
                    continue
                override = entry["settings"].get("--json-model-override-args") or {}
                for level in (override, override.get("text_config") or {}):
                    scaling = level.get("rope_scaling")
                    if scaling is None:
                        continue
                    seen += 1
                    for d in [v for v in scaling.values() if isinstance(v, dict)] or [scaling]:
                        assert "rope_type" in d and "rope_theta" in d, (name, method, target)
    assert seen > 100


def test_r20_sglang_gemma3_dynamic_refused_for_what_its_code_does():
    """review43 20. SGLang's Gemma 3 computes dynamic NTK itself, transformers-style, from
    the largest position of the whole batch (gemma3_causal.py:445-502, 649-653), with L =
    max_position_embeddings: not the rope_variant.py class the generic refusal cites."""
    entry = serving.engine_settings(rc.PRESETS["Gemma 3 4B"], 262144, "dynamic")["SGLang"]
    refusal = str(entry["refusal"])
    assert not entry["supported"] and "gemma3_causal.py" in refusal
    assert "rope_variant.py" not in refusal and "batch" in refusal


def test_r21_checked_says_what_the_code_does():
    """review43 21."""
    log_mul = serving.CHECKED["llama_cpp_log_mul"].behaviour
    assert "conversion/mistral.py:96-110" in log_mul and "apply_scale" in log_mul
    yarn = serving.CHECKED["llama_cpp_yarn"].behaviour
    assert "never read" in yarn and "--yarn-attn-factor is overwritten" in yarn
    backend = serving.CHECKED["vllm_transformers_backend"].behaviour
    assert all(arch in backend for arch in ("Olmo3ForCausalLM", "SmolLM3ForCausalLM",
                                            "GPTNeoXForCausalLM"))


@pytest.mark.parametrize("name", ["Phi-3.5 mini", "Phi-4-mini"])
def test_r22_llama_cpp_chooses_longrope_factors_by_its_context(name):
    """review43 22. llama.cpp picks the long factors when n_ctx_seq (-c) exceeds the GGUF's
    original context (src/llama-model.cpp:2337-2350): said on its context line past 4,096
    and in its LongRoPE refusal; not at 4,096."""
    preset = rc.PRESETS[name]
    line = serving.context_settings(preset, 131072)["llama.cpp"]
    assert any("long factors" in str(n) for n in line["notes"])
    assert not any("long factors" in str(n)
                   for n in serving.context_settings(preset, 4096)["llama.cpp"]["notes"])
    refusal = serving.engine_settings(preset, 262144, "longrope")["llama.cpp"]["refusal"]
    assert "src/llama-model.cpp:2337-2350" in str(refusal)


def test_r23_gpt_oss_context_line_says_llama_cpp_truncates():
    """review43 23. No converter writes gpt-oss's truncate: false and ggml rounds the ramp's
    bounds (ggml.c ggml_rope_yarn_corr_dims: floorf, ceilf): said on its context line."""
    line = serving.context_settings(rc.PRESETS["gpt-oss-20b"], 131072)["llama.cpp"]
    assert line["supported"] and any("truncate" in str(n) for n in line["notes"])
    plain = serving.context_settings(rc.PRESETS["Qwen2.5 7B"], 32768)["llama.cpp"]
    assert not plain["notes"]


def test_r24_granite_gets_plain_context_lines():
    """review43 24. Granite 4.0-H's attention has no RoPE (position_embedding_type nope,
    test_item4_...): any target gets the context flags, max_position_embeddings raised;
    its GGUF's context_length is 2**20 (conversion/granite.py:515-521), so llama.cpp needs
    an override only past 1,048,576."""
    preset = rc.PRESETS["Granite 4.0-H 350M"]
    kind, message = serving.no_change(preset, 131072)
    assert kind == "no_rope" and "none of Granite 4.0-H 350M's 32 layers" in str(message)
    got = serving.context_settings(preset, 131072)
    assert all(entry["supported"] for entry in got.values())
    assert got["transformers"]["settings"] == {"max_position_embeddings": 131072}
    assert got["llama.cpp"]["settings"] == {"-c": "131072"}
    far = serving.context_settings(preset, 2 ** 21)["llama.cpp"]
    assert llama_cpp_override(far) == ("granitehybrid", 2 ** 21)
