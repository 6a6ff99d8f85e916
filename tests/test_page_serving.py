"""AppTest checks of the Serve it longer page (pages/serving.py).

The expected lines are the documented ones (Qwen's llama.cpp guide: "-c 131072
--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768" for YaRN x4 from 32,768); the
numbers are closed forms written here (s = T / L, YaRN's attention factor 0.1 ln s + 1).
"""

import json
import math

import pytest
from apptest_helpers import (
    csv_frames,
    figure,
    metrics,
    no_exceptions,
    run_page,
    shown,
    warnings,
)

PAGE = "serving"
QWEN_LLAMA_CPP = "-c 131072 --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"


def codes(at) -> list[str]:
    return [c.value for c in at.code]


def errors(at) -> list[str]:
    return [shown(e.value) for e in at.error]


def infos(at) -> list[str]:
    return [shown(e.value) for e in at.info]


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_is_qwen25_yarn_x4(default_page):
    at = default_page
    assert not errors(at)
    blocks = codes(at)
    assert len(blocks) == 4
    config = json.loads(blocks[0])
    assert config["rope_parameters"] == {"rope_type": "yarn", "rope_theta": 1_000_000.0,
                                         "factor": 4.0, "original_max_position_embeddings": 32768}
    assert config["max_position_embeddings"] == 131072 and config["rope_scaling"] is None
    assert blocks[1].startswith("vllm serve") and "--max-model-len 131072" in blocks[1]
    assert "--json-model-override-args" in blocks[2] and "--context-length 131072" in blocks[2]
    assert blocks[3].endswith(QWEN_LLAMA_CPP)
    assert len(at.get("plotly_chart")) == 2
    values = metrics(at)
    assert values["scale s = T / L"] == "4"
    assert values["attention factor a at T"] == f"{0.1 * math.log(4) + 1:.4f}"
    assert any(w.startswith("yarn is static") for w in infos(at))
    assert not warnings(at)


def test_default_figures(default_page):
    wave = figure(default_page, 0)
    assert [d["name"] for d in wave["data"]] == ["before (as the model is)",
                                                 "after (yarn, T = 131,072)"]
    assert wave["layout"]["yaxis"]["type"] == "log"
    angle = figure(default_page, 1)
    assert angle["layout"]["yaxis"]["title"]["text"] == "T·θ′ᵢ / largest angle seen"


def test_csvs_lead_with_the_choice(default_page):
    frames = csv_frames(default_page)
    assert set(frames) == {"serve_yarn_T131072_L32768.csv",
                           "serve_yarn_T131072_L32768_pairs.csv"}
    settings = frames["serve_yarn_T131072_L32768.csv"]
    assert list(settings.columns[:4]) == ["model", "method", "original context L [tokens]",
                                          "target context T [tokens]"]
    assert set(settings["model"]) == {"Qwen2.5 7B"}
    assert all(c.isascii() for c in settings.columns)
    llama = settings[settings["engine"] == "llama.cpp"].set_index("setting")["value"]
    assert llama.astype(str).to_dict() == {"-c": "131072", "--rope-scaling": "yarn",
                                           "--rope-scale": "4", "--yarn-orig-ctx": "32768"}
    pairs = frames["serve_yarn_T131072_L32768_pairs.csv"]
    assert len(pairs) == 64 and pairs["pair"].tolist() == list(range(64))
    assert pairs["theta before [rad/token]"].iloc[10] == pytest.approx(1e6 ** (-20 / 128),
                                                                      rel=1e-13)


def test_refusals_are_shown_with_their_engine():
    at = run_page(PAGE, {"sv_model": "Llama 3.1 8B", "sv_method": "dynamic",
                         "sv_target": "262144"})
    assert not errors(at)
    shown = warnings(at)
    for engine in ("vLLM", "SGLang", "llama.cpp"):
        assert any(w.startswith(f"{engine} has no dynamic NTK") for w in shown), shown
    assert len(codes(at)) == 1  # transformers only
    assert any(w.startswith("Llama 3.1 8B already scales its RoPE with llama3") for w in infos(at))


def test_llama3_keeps_its_own_bands():
    at = run_page(PAGE, {"sv_model": "Llama 3.1 8B", "sv_method": "llama3",
                         "sv_target": "262144"})
    config = json.loads(codes(at)[0])
    assert config["rope_parameters"]["factor"] == 32.0
    assert config["rope_parameters"]["low_freq_factor"] == 1.0
    assert config["rope_parameters"]["high_freq_factor"] == 4.0
    assert any(w.startswith("llama.cpp has no llama3 scaling") for w in warnings(at))


@pytest.mark.parametrize(("query", "said"), [
    ({"sv_model": "Qwen2.5 7B (YaRN 128K)"}, "already runs at 131,072 tokens"),
    ({"sv_target": "4096"}, "Qwen2.5 7B already runs at 32,768 tokens"),
    ({"sv_model": "Llama 4 Scout"}, "already runs at 10,485,760 tokens"),
    ({"sv_model": "Llama 2 7B", "sv_target": "8388608"},  # s = 2048 > 1000
     "target_context=8388608 is not allowed"),
])
def test_targets_out_of_range_are_said_not_raised(query, said):
    at = run_page(PAGE, query)
    no_exceptions(at)
    assert not errors(at)
    assert any(said in w for w in warnings(at)), warnings(at)
    assert not codes(at)


def test_extreme_parameters():
    at = run_page(PAGE, {"sv_model": "Llama 2 7B", "sv_target": "8388608", "sv_L": "524288"})
    no_exceptions(at)
    assert any(w.startswith("original_max_position_embeddings=524288 is not allowed")
               for w in warnings(at))
    at = run_page(PAGE, {"sv_model": "GPT-NeoX-20B", "sv_target": "1048576", "sv_method": "yarn",
                         "sv_beta_fast": "8", "sv_beta_slow": "2"})
    no_exceptions(at)
    assert not errors(at)
    assert "--yarn-beta-fast 8 --yarn-beta-slow 2" in codes(at)[-1]


def test_bad_link_values_keep_the_defaults():
    at = run_page(PAGE, {"sv_target": "131073", "sv_method": "YARN", "sv_L": "1e4"})
    no_exceptions(at)
    assert codes(at)[-1].endswith(QWEN_LLAMA_CPP)
    assert len([w for w in at.first_warnings + warnings(at) if "The link sets" in w]) >= 3


def test_longrope_only_for_a_model_with_factors():
    at = run_page(PAGE, {"sv_method": "longrope"})
    assert at.info and "LongRoPE" in at.info[0].value and not codes(at)
    at = run_page(PAGE, {"sv_model": "Phi-3.5 mini", "sv_method": "longrope",
                         "sv_target": "262144"})
    assert not errors(at)
    config = json.loads(codes(at)[0])
    assert len(config["rope_parameters"]["long_factor"]) == 48


def test_pasted_junk_is_an_error_and_the_preset_stays():
    at = run_page(PAGE)
    at.text_area(key="sv_config_text").set_value('{"model_type": "llama", "hidden_size": [1]}')
    at.run()
    no_exceptions(at)
    assert any("was not added" in e for e in errors(at))
    assert codes(at)[-1].endswith(QWEN_LLAMA_CPP)


def test_uploaded_junk_and_a_valid_upload():
    at = run_page(PAGE)
    at.file_uploader(key="sv_config_file").set_value(("config.json", b"\xff\xfe not json",
                                                       "application/json"))
    at.run()
    no_exceptions(at)
    assert any("The uploaded file was not added" in e for e in errors(at))
    config = {"model_type": "[click](https://evil.example)", "hidden_size": 4096,
              "num_attention_heads": 32, "max_position_embeddings": 8192,
              "rope_theta": 500000.0}
    at.file_uploader(key="sv_config_file").set_value(
        ("config.json", json.dumps(config).encode(), "application/json"))
    at.run()
    no_exceptions(at)
    assert not errors(at)
    assert at.success and "](" not in at.success[0].value.replace("\\]\\(", "")
    blocks = codes(at)
    assert json.loads(blocks[0])["rope_parameters"]["factor"] == 16.0  # 131,072 / 8,192
    assert json.loads(blocks[0])["rope_parameters"]["rope_theta"] == 500000.0


def test_chinese():
    at = run_page(PAGE, {"lang": "zh", "sv_model": "Llama 3.1 8B", "sv_method": "dynamic",
                         "sv_target": "262144"})
    assert not errors(at)
    assert at.title[0].value == "部署更长的上下文"
    assert any("vLLM" in w for w in warnings(at))


def test_intro_names_the_versions_and_the_layers(default_page):
    """Misleading 4 and 7: the lines give the RoPE layers the same θᵢ; the versions read."""
    text = " ".join(m.value for m in default_page.markdown)
    assert "RoPE layers the same θᵢ" in text
    for version in ("transformers 5.24", "vLLM 0.33.0", "SGLang 0.5.23",
                    "llama.cpp 0c1e57098", "llama-cpp-python 0.3.36"):
        assert version in text, version
    captions = " ".join(c.value for c in default_page.caption)
    assert "Names from: `vLLM 0.33.0:" in captions


def test_llama3_auto_caption_names_llama31s_values():
    """Wrong 12: transformers has no defaults for low_freq_factor and high_freq_factor."""
    at = run_page(PAGE, {"sv_model": "Llama 2 7B", "sv_method": "llama3", "sv_target": "16384"})
    captions = " ".join(c.value for c in at.caption)
    assert "Llama 3.1's published values (`low_freq_factor` 1, `high_freq_factor` 4)" in captions
    assert "transformers' default (`beta_fast` 32, `beta_slow` 1, `low_freq_factor`" not in \
        captions


def test_gemma3_lines_nested_and_within_its_pretraining_angles():
    """Wrong 3, 11, Misleading 5: Gemma 3 4B's settings go into text_config, vLLM and SGLang
    get lines, and linear x8 to 262,144 pushes no pair (262,144 θ/8 = 32,768 θ)."""
    at = run_page(PAGE, {"sv_model": "Gemma 3 4B", "sv_method": "linear", "sv_target": "262144"})
    assert not errors(at)
    blocks = codes(at)
    assert len(blocks) == 4
    config = json.loads(blocks[0])
    assert list(config) == ["text_config"]
    assert config["text_config"]["rope_parameters"]["full_attention"]["factor"] == 8.0
    assert '"text_config"' in blocks[1] and '"text_config"' in blocks[2]
    captions = " ".join(c.value for c in at.caption)
    assert "the keys under `text_config` go into its `text_config`" in captions
    values = metrics(at)
    assert values["pairs pushed past the angles seen"] == "0 / 128"


def test_deepseek_shows_its_softmax_multiplier():
    """Wrong 9: s = 524,288 / 4,096 = 128: the softmax scale × (0.1 ln 128 + 1)² = 2.2058,
    a = 1."""
    at = run_page(PAGE, {"sv_model": "DeepSeek-V3", "sv_target": "524288"})
    assert not errors(at)
    values = metrics(at)
    assert values["attention factor a at T"] == "1.0000"
    assert values["softmax scale × m"] == f"{(0.1 * math.log(128) + 1) ** 2:.4f}"


def test_windowed_rope_layers_are_warned():
    """Misleading 3: Command R7B rotates only in its sliding layers (window 4,096)."""
    at = run_page(PAGE, {"sv_model": "Command R7B", "sv_target": "262144"})
    assert not errors(at)
    assert any(w.startswith("Every RoPE layer of Command R7B") for w in warnings(at))
    at = run_page(PAGE, {"sv_model": "SmolLM3 3B", "sv_target": "262144"})
    assert any("9 layers without RoPE" in i for i in infos(at))


def test_qwen3_trained_for_32768():
    """Wrong 10: Qwen3 8B's card: 32,768 natively."""
    at = run_page(PAGE, {"sv_model": "Qwen3 8B"})
    captions = " ".join(c.value for c in at.caption)
    assert "trained (L) for 32,768 tokens." in captions
    assert json.loads(codes(at)[0])["rope_parameters"]["factor"] == 4.0
