"""Serving a model longer (rope_core.serving) against the engines' own code and documents.

Expected values come from outside rope_core.serving:

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
import shlex

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core import serving
from rope_core.presets import HF_CONFIGS

transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt, "
                                                          "test-only) is not installed")
from test_core_transformers import hf_rope  # noqa: E402
from transformers import AutoConfig  # noqa: E402

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


def merged_config(name: str, settings_: dict):
    """transformers' config object for the preset's config.json with ``settings_`` merged
    in (into text_config for a multimodal config), and the merged dict."""
    d = copy.deepcopy(HF_CONFIGS[name])
    text = d.pop("text_config", None)
    if text is not None:
        d = text
    d.update(copy.deepcopy(settings_))
    model_type = d.pop("model_type")
    if "attn_temperature_tuning" in d:  # as tests/test_core_transformers.py
        d["attn_temperature_tuning"] = bool(d["attn_temperature_tuning"])
    return AutoConfig.for_model(model_type, **d).get_text_config(), {"model_type": model_type,
                                                                      **d}


def target_for(preset: rc.RopeConfig) -> int | None:
    """4 x the context the preset already reaches, within rope_core's 10^7 tokens."""
    target = 4 * serving.reach(preset)
    return target if target <= 10_000_000 else None


CASES = [(name, method) for name in HF_CONFIGS for method in serving.METHODS
         if method != "longrope" or rc.PRESETS[name].method == "longrope"]
# transformers refuses these (its own code says so): GPT-J's and ChatGLM's code read no
# rope_parameters; Phi3Config accepts only "default" and "longrope"
HF_REFUSED = {"GPT-J 6B": set(serving.METHODS), "ChatGLM3 6B": set(serving.METHODS),
              "Phi-3.5 mini": {"yarn", "linear", "dynamic", "llama3"},
              "Phi-4-mini": {"yarn", "linear", "dynamic", "llama3"}}


@pytest.mark.parametrize(("name", "method"), CASES)
def test_transformers_entry_round_trips_to_rope_core(name, method):
    """The dict merged into the preset's config.json, read by transformers' config class
    and run through ROPE_INIT_FUNCTIONS, gives extended_config's theta and attention
    factor at a short input, at T and with no length; RopeConfig.from_hf of the merged
    config.json gives them too."""
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
    config, merged = merged_config(name, entry["settings"])
    layer = "full_attention" if "full_attention" in config.rope_parameters else None
    extended = serving.extended_config(preset, target, method)
    for seq_len in (None, 1000, target):
        theta, a = extended.theta(seq_len)
        inv, a_hf = hf_rope(config, layer, seq_len)
        assert theta.shape == inv.shape
        torch.testing.assert_close(theta, inv, rtol=2e-6, atol=0)  # transformers: float32
        assert a == pytest.approx(a_hf, rel=1e-6)
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
    """The llama.cpp line is the card's and Qwen's guide's, flag for flag."""
    entry = serving.engine_settings(rc.PRESETS[name], 131072, "yarn", **params)["llama.cpp"]
    assert entry["supported"]
    assert entry["command"].endswith(QWEN_LLAMA_CPP)
    card = flags(QWEN3_LLAMA_SERVER)
    ours = flags(entry["command"])
    assert {k: ours[k] for k in card} == card
    assert ours["-c"] == "131072"
    assert entry["settings"] == {"-c": "131072", "--rope-scaling": "yarn", "--rope-scale": "4",
                                 "--yarn-orig-ctx": "32768"}


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
    a second method over Llama 3.1's llama3 factors: not in llama.cpp (it would stack)."""
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
    assert gpt_oss["vLLM"]["supported"]  # vLLM's get_rope passes truncate
    assert not gpt_oss["SGLang"]["supported"] and not gpt_oss["llama.cpp"]["supported"]
    assert "truncate" in str(gpt_oss["llama.cpp"]["refusal"])
    # M-RoPE: vLLM's get_rope keeps the sections for default and yarn, SGLang's for default
    vl = rc.PRESETS["Qwen2-VL 7B"]
    assert supported(vl, 131072, "yarn") == {"transformers": True, "vLLM": True,
                                             "SGLang": False, "llama.cpp": True}
    assert supported(vl, 131072, "ntk")["SGLang"] is True
    assert supported(vl, 131072, "linear")["vLLM"] is False
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
    assert linear["llama.cpp"]["settings"] == {"-c": "16384", "--rope-scaling": "linear",
                                               "--rope-scale": "4"}
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
    assert int((~linear["turned within R"]).sum()) == never
    ntk = serving.range_table(qwen, 131072, "ntk")
    assert int(ntk["pushed out"].sum()) == never - 1
    for i in (0, 30, 62):
        assert ntk.loc[i, "angle ratio"] == pytest.approx(4 ** (1 - 2 * i / 126), rel=1e-12)
    assert list(ntk.columns[:4]) == ["model", "method", "reach R [tokens]",
                                     "target context T [tokens]"]


def test_settings_table_leads_with_the_choice():
    table = serving.settings_table(rc.PRESETS["Qwen2.5 7B"], 131072, "dynamic")
    assert list(table.columns[:7]) == ["model", "method", "original context L [tokens]",
                                       "target context T [tokens]", "scale s = T/L",
                                       "attention factor a", "logit multiplier a^2"]
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
