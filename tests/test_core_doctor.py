"""The config doctor (rope_core.models.doctor) against what the engines do.

Each check is run on a config.json written here with the mistake in it, and the claim its
finding makes about transformers 5.24 is checked against transformers' own config classes
(which rope dict wins, which keys it ignores, what it warns about, which base it falls back
to). What vLLM, SGLang and llama.cpp do is read in their code (the finding's source names
the file and lines; rope_core.models.serving.CHECKED lists them).
"""

import copy
import json
import logging

import pytest

import rope_core as rc
from rope_core.models import doctor
from rope_core.models.config import MAX_JSON_BYTES
from rope_core.models.presets import HF_CONFIGS

transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt, "
                                                          "test-only) is not installed")
from test_core_serving import Warnings  # noqa: E402
from transformers import AutoConfig  # noqa: E402

QWEN25 = {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
          "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
          "rope_scaling": None}


def hf(config_json: dict):
    """transformers' config class for a config.json dict (its language model's config)."""
    d = copy.deepcopy(config_json)
    return AutoConfig.for_model(d.pop("model_type"), **d).get_text_config()


def checks(config) -> list[tuple[str, str]]:
    return [(f.check, f.key) for f in doctor.diagnose(config)]


def test_a_clean_config_has_no_finding():
    assert doctor.diagnose(QWEN25) == ()
    assert doctor.diagnose(json.dumps(HF_CONFIGS["Llama 3.1 8B"])) == ()
    table = doctor.findings_table(())
    assert list(table.columns) == ["check", "key", "problem", "fix", "source"] and table.empty


def test_type_and_rope_type_that_disagree():
    """transformers 5.24 keeps rope_type (type is copied only when rope_type is absent)."""
    config = {**QWEN25, "rope_scaling": {"type": "linear", "rope_type": "yarn", "factor": 4.0,
                                         "original_max_position_embeddings": 32768},
              "max_position_embeddings": 131072}
    assert hf(config).rope_parameters["rope_type"] == "yarn"
    found = doctor.diagnose(config)
    assert [(f.check, f.key) for f in found][0] == ("type_vs_rope_type", "rope_scaling.type")
    assert "vllm/pull/10471" in found[0].source and "config.py:617-628" in found[0].source
    assert "'linear'" in str(found[0].problem) and "'yarn'" in str(found[0].problem)
    # the pairs vLLM treats as one: mrope / default (Qwen2-VL), su / longrope
    same = {**QWEN25, "rope_scaling": {"type": "mrope", "rope_type": "default",
                                       "mrope_section": [16, 24, 24]}}
    assert doctor.diagnose(same) == ()


def test_type_alone_is_no_mistake():
    """review43 13. `type` alone is read by every engine: transformers 5.24 copies it to
    rope_type (checked here), vLLM 0.33.0 too (transformers_utils/config.py:631-633),
    SGLang 0.5.23's get_rope reads it when rope_type is absent (layers/rotary_embedding/
    factory.py:191-195) and llama.cpp's converter copies it (conversion/base.py:1372-1373):
    no finding (the official DeepSeek-V3, Phi-3.5 and Qwen2.5 card configs use it)."""
    config = {**QWEN25, "max_position_embeddings": 131072,
              "rope_scaling": {"type": "yarn", "factor": 4.0,
                               "original_max_position_embeddings": 32768}}
    assert hf(config).rope_parameters["rope_type"] == "yarn"
    assert "type_vs_rope_type" not in [c for c, _k in checks(config)]
    for name in ("DeepSeek-V3", "Phi-3.5 mini", "Qwen2.5 7B (YaRN 128K)", "Qwen2-VL 7B"):
        assert "type_vs_rope_type" not in [c for c, _k in checks(HF_CONFIGS[name])]
    assert "type_legacy" not in doctor.SOURCES


def test_a_factor_that_disagrees_with_max_over_original():
    """Qwen3's card recipe left at max_position_embeddings 40,960: transformers 5.24 warns
    (40,960 / 32,768 = 1.25, not 4) and uses the factor; the fix is 4 x 32,768 = 131,072."""
    config = {**HF_CONFIGS["Qwen3 8B"], "rope_scaling": {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}
    with Warnings() as caught:
        hf(config)
    assert any("does not match the ratio" in r for r in caught.records)
    finding = [f for f in doctor.diagnose(config) if f.check == "factor"]
    assert [f.key for f in finding] == ["rope_scaling.factor"]
    assert "40,960 / 32,768 = 1.25" in str(finding[0].problem)
    assert "131,072" in str(finding[0].fix)
    fixed = {**config, "max_position_embeddings": 131072}
    assert "factor" not in [c for c, _k in checks(fixed)]
    with Warnings() as caught:
        hf(fixed)
    assert not any("does not match the ratio" in r for r in caught.records)


def test_a_factor_with_max_left_at_original():
    """Qwen2.5's card recipe as pasted (max_position_embeddings = original): no transformers
    warning (ratio 1), but vLLM and SGLang serve at most 32,768 tokens for YaRN."""
    config = {**QWEN25, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                         "original_max_position_embeddings": 32768}}
    with Warnings() as caught:
        hf(config)
    assert not any("does not match the ratio" in r for r in caught.records)
    finding = [f for f in doctor.diagnose(config) if f.check == "factor"][0]
    assert "stays 32,768" in str(finding.problem) and "= 131,072" in str(finding.fix)
    assert "llama.cpp/pull/10698" in finding.source


def test_dynamic_put_over_llama3():
    """Llama 3.1's dict with its rope_type changed to dynamic (vLLM issue 10537's recipe):
    transformers 5.24 ignores the llama3 keys, with "Unrecognized keys"."""
    scaling = {**HF_CONFIGS["Llama 3.1 8B"]["rope_scaling"], "rope_type": "dynamic"}
    config = {**HF_CONFIGS["Llama 3.1 8B"], "rope_scaling": scaling}
    with Warnings() as caught:
        hf(config)
    assert any("Unrecognized keys" in r and "low_freq_factor" in r for r in caught.records)
    found = [f for f in doctor.diagnose(config) if f.check == "dynamic_over_own"]
    assert [f.key for f in found] == ["rope_scaling.rope_type"]
    assert "keys of llama3" in str(found[0].problem)
    assert "vllm/issues/10537" in found[0].source
    plain = {**HF_CONFIGS["Llama 2 7B"], "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    assert checks(plain) == []


def test_a_flat_rope_parameters_on_gemma3_is_dropped():
    """transformers 5.24's Gemma3TextConfig keeps both layer types default beside a flat
    rope_parameters; RopeConfig refuses it the same way."""
    text = copy.deepcopy(HF_CONFIGS["Gemma 3 4B"]["text_config"])
    text.pop("rope_scaling")
    text["rope_parameters"] = {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6}
    config = {"model_type": "gemma3", "text_config": text}
    params = hf(config).rope_parameters
    assert params["full_attention"]["rope_type"] == params["sliding_attention"]["rope_type"] \
        == "default"
    assert ("global_only", "text_config.rope_parameters") in checks(config)
    with pytest.raises(ValueError, match="flat 'linear' dict is not read"):
        rc.RopeConfig.from_hf(config)


def test_scaled_sliding_layers_of_gemma3():
    """transformers' rope_scaling goes to the full-attention layers only; a nested
    rope_parameters that scales sliding_attention too is found, with the window."""
    text = copy.deepcopy(HF_CONFIGS["Gemma 3 4B"]["text_config"])
    scaling = text.pop("rope_scaling")
    assert hf({"model_type": "gemma3", "text_config": {**text, "rope_scaling": scaling}}) \
        .rope_parameters["sliding_attention"]["rope_type"] == "default"
    text["rope_parameters"] = {"full_attention": {**scaling, "rope_theta": 1e6},
                               "sliding_attention": {**scaling, "rope_theta": 1e4}}
    config = {"model_type": "gemma3", "text_config": text}
    found = [f for f in doctor.diagnose(config) if f.check == "global_only"]
    assert [f.key for f in found] == ["text_config.rope_parameters.sliding_attention"]
    assert "1,024 tokens" in str(found[0].problem)


@pytest.mark.parametrize("name", ["Qwen3-VL 8B", "Gemma 3 4B", "Llama 4 Scout"])
def test_rope_keys_outside_text_config(name):
    """RoPE keys at the top level of a config with text_config: transformers 5.24's outer
    class leaves its text_config's rope_parameters as they were (linear), and fails to load
    with YaRN (AttributeError: the outer config has no max_position_embeddings); SGLang's
    issue 27974 reports the override as a silent no-op."""
    before = hf(HF_CONFIGS[name]).rope_parameters
    linear = {**HF_CONFIGS[name], "rope_scaling": {"rope_type": "linear", "factor": 4.0}}
    assert hf(linear).rope_parameters == before
    yarn = {**HF_CONFIGS[name], "rope_scaling": {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 262144}}
    with pytest.raises(AttributeError, match="max_position_embeddings"):
        hf(yarn)
    # SGLang 0.5.23 builds Qwen3-VL's dense language model from the outer config
    # (qwen3_vl.py:1343-1360), where the top-level key is the one read (review item 11)
    plain = "two models" if name == "Qwen3-VL 8B" else "changes nothing there"
    for config, said in ((linear, plain), (yarn, "AttributeError")):
        found = [f for f in doctor.diagnose(config) if f.check == "outside_text_config"]
        assert [f.key for f in found] == ["rope_scaling"]
        assert said in str(found[0].problem)
        assert "sglang/issues/27974" in found[0].source


def test_rope_parameters_without_a_base():
    """transformers 5.24 falls back to the class default (Qwen2Config: 10,000, not Qwen2.5's
    1,000,000) when neither rope_parameters nor the top level names rope_theta."""
    config = {**QWEN25, "max_position_embeddings": 131072}
    del config["rope_theta"], config["rope_scaling"]
    config["rope_parameters"] = {"rope_type": "yarn", "factor": 4.0,
                                 "original_max_position_embeddings": 32768}
    assert hf(config).rope_parameters["rope_theta"] == 10000.0
    found = [f for f in doctor.diagnose(config) if f.check == "rope_theta"]
    assert [f.key for f in found] == ["rope_parameters.rope_theta"]
    assert "vllm/pull/28542" in found[0].source
    with_base = {**config, "rope_theta": 1e6}  # transformers copies the top-level base in
    assert hf(with_base).rope_parameters["rope_theta"] == 1e6
    assert "rope_theta" not in [c for c, _k in checks(with_base)]


def test_two_bases():
    """transformers 5.24 uses rope_parameters' base; the top-level one only fills a gap."""
    config = {**QWEN25, "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}}
    del config["rope_scaling"]
    assert hf(config).rope_parameters["rope_theta"] == 1e4
    found = [f for f in doctor.diagnose(config) if f.check == "rope_theta"]
    assert "10,000" in str(found[0].problem) and "1,000,000" in str(found[0].problem)


def test_static_yarn_only_where_it_was_added_at_inference():
    """review43 7. The static-YaRN finding is for YaRN added at inference: the Qwen YaRN
    presets (their cards add it for long inputs; trained at 32,768) get it; the model
    types whose own config.json ships YaRN (DeepSeek-V3, extended with YaRN in training:
    its report, arXiv:2412.19437, section 4.3; gpt-oss, DeepSeek-V4, OLMo 3, Ministral 3)
    get none; a model type the doctor does not know gets a finding that says it cannot
    tell. No preset has another mistake."""
    expected = {"Qwen2.5 7B (YaRN 128K)": [("static_yarn", "rope_scaling")],
                "Qwen3 8B (YaRN 128K)": [("static_yarn", "rope_scaling")]}
    for name, config in HF_CONFIGS.items():
        assert checks(config) == expected.get(name, []), name
    finding = doctor.diagnose(HF_CONFIGS["Qwen3 8B (YaRN 128K)"])[0]
    assert "sglang/issues/6030" in finding.source and "Qwen3/issues/1567" in finding.source
    assert "adds it at inference" in str(finding.problem)
    unknown = {**HF_CONFIGS["Llama 2 7B"], "max_position_embeddings": 16384,
               "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                "original_max_position_embeddings": 4096}}
    found = [f for f in doctor.diagnose(unknown) if f.check == "static_yarn"]
    assert len(found) == 1 and "does not know this one" in str(found[0].problem)
    assert "keep it" in str(found[0].fix)


def test_every_finding_has_key_problem_fix_and_source():
    config = {"model_type": "qwen3_vl", "rope_scaling": {"type": "linear", "rope_type": "yarn",
                                                          "factor": 4.0},
              "text_config": {"model_type": "qwen3_vl_text", "max_position_embeddings": 40960,
                              "rope_parameters": {"rope_type": "dynamic", "factor": 2.0,
                                                  "beta_fast": 32.0}}}
    found = doctor.diagnose(config)
    assert {f.check for f in found} == {"type_vs_rope_type", "dynamic_over_own",
                                        "outside_text_config", "rope_theta", "static_yarn"}
    assert [f.check for f in found] == sorted((f.check for f in found),
                                              key=doctor.CHECKS.index)
    table = doctor.findings_table(found)
    assert len(table) == len(found) and all(c.isascii() for c in table.columns)
    for f in found:
        assert f.key and str(f.problem) and str(f.fix)
        assert "github.com/" in f.source  # a report in an engine's (or the model's) tracker
        assert f.source.count(";") >= 1  # and the code or card that says it


@pytest.mark.parametrize(("text", "named"), [
    ('{"model_type": ', "not valid JSON"),
    ("[1, 2]", "a JSON object"),
    ('{"a": NaN}', "NaN"),
    (b"\xff\xfe", "not UTF-8"),
    ("x" * (MAX_JSON_BYTES + 1), str(MAX_JSON_BYTES)),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_bad_input_is_named(text, named):
    with pytest.raises(ValueError, match=named):
        doctor.diagnose(text)
    with pytest.raises(ValueError, match="findings"):
        doctor.findings_table(["not a finding"])


def test_visitor_keys_and_values_are_capped():
    long = "k" * 500
    config = {"model_type": "gemma3_text", "max_position_embeddings": 8192,
              "rope_parameters": {long: {"type": "x" * 500, "rope_type": "yarn",
                                         "factor": 2.0}}}
    found = doctor.diagnose(config)
    assert found and all(len(f.key) < 100 for f in found)
    assert all(len(str(f.problem)) < 1200 for f in found)


def test_doctor_logs_nothing_itself(caplog):
    """The doctor reads the JSON; it builds no transformers config (no warning of its own)."""
    with caplog.at_level(logging.WARNING):
        doctor.diagnose(HF_CONFIGS["OLMo 3 7B"])
    assert not caplog.records


def test_docs_name_every_check_and_every_engine_behaviour():
    """docs/serving.md lists every CHECKED entry (key, file and lines) and every check of
    the config doctor with its sources."""
    import pathlib

    from rope_core.models import serving
    text = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "serving.md").read_text(
        encoding="utf-8")
    for key, checked in serving.CHECKED.items():
        assert f"`{key}`" in text and checked.where in text, key
    for check in doctor.CHECKS:
        assert f"`{check}`" in text, check
    for source in doctor.SOURCES.values():
        assert source in text, source


def test_rope_scaling_and_rope_parameters_that_disagree():
    """review43 8. transformers 5.24 keeps rope_scaling and drops rope_parameters when a
    config.json gives both (modeling_rope_utils.py:775-777: rope_scaling wins), checked
    here on LlamaConfig; the doctor says so; the same scaling twice is no finding."""
    llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
              "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    yarn = {"rope_type": "yarn", "rope_theta": 500000.0, "factor": 4.0,
            "original_max_position_embeddings": 8192}
    config = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
              "max_position_embeddings": 32768, "rope_theta": 500000.0,
              "rope_scaling": llama3, "rope_parameters": yarn}
    with Warnings():
        kept = hf(config).rope_parameters
    assert kept["rope_type"] == "llama3" and kept["factor"] == 8.0
    found = [f for f in doctor.diagnose(config) if f.check == "scaling_vs_parameters"]
    assert [f.key for f in found] == ["rope_scaling"]
    assert "llama3" in str(found[0].problem) and "yarn" in str(found[0].problem)
    assert "modeling_rope_utils.py:775-777" in found[0].source
    same = {**config, "rope_scaling": {k: v for k, v in yarn.items() if k != "rope_theta"}}
    assert "scaling_vs_parameters" not in [c for c, _k in checks(same)]


def test_qwen2_vl_top_level_key_is_what_sglang_reads():
    """review43 11. SGLang 0.5.23 copies onto the outer config only the text_config
    attributes it lacks (utils/hf_transformers/config.py:258-268) and builds Qwen2-VL's
    language model from the outer config (models/qwen2_vl.py:478-480): a top-level
    rope_theta that differs from text_config's is the one SGLang's model reads, while
    transformers' language model reads text_config's (checked here)."""
    text = {"model_type": "qwen2_vl_text", "hidden_size": 3584, "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0,
                                "mrope_section": [16, 24, 24]}}
    config = {"model_type": "qwen2_vl", "rope_theta": 10000.0, "text_config": text}
    assert hf(config).rope_parameters["rope_theta"] == 1000000.0
    found = [f for f in doctor.diagnose(config) if f.check == "outside_text_config"]
    assert [f.key for f in found] == ["rope_theta"]
    assert "builds this model's language model from the outer config" in str(found[0].problem)
    assert "qwen2_vl.py:478-480" in found[0].source
    # a model built from text_config (Gemma 3) keeps the transformers-side finding
    gemma = {**HF_CONFIGS["Gemma 3 4B"], "rope_theta": 10000.0}
    found = [f for f in doctor.diagnose(gemma) if f.check == "outside_text_config"]
    assert found and "changes nothing there" in str(found[0].problem)


def test_olmo3_flat_rope_parameters_fix_is_rope_scaling():
    """review43 12. For OLMo 3 the fix is a flat rope_scaling: transformers' Olmo3Config
    puts it on the full-attention layers only (checked here); SGLang 0.5.23's own flat
    Olmo3Config reads rope_scaling (configs/olmo3.py:30-100), not a nested
    rope_parameters, so nesting is not the main fix there."""
    olmo = copy.deepcopy(HF_CONFIGS["OLMo 3 7B"])
    scaling = olmo.pop("rope_scaling")
    flat = {**olmo, "rope_parameters": {**scaling, "rope_theta": 500000}}
    found = [f for f in doctor.diagnose(flat) if f.check == "global_only"]
    assert [f.key for f in found] == ["rope_parameters"]
    fix = str(found[0].fix)
    assert fix.startswith("Give it as a flat `rope_scaling` instead") and "SGLang" in fix
    assert "configs/olmo3.py:30-100" in found[0].source
    with Warnings():
        params = hf({**olmo, "rope_scaling": scaling}).rope_parameters
    assert params["full_attention"]["rope_type"] == "yarn"
    assert params["sliding_attention"]["rope_type"] == "default"
