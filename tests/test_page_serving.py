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
QWEN_LLAMA_CPP = ("-c 131072 --rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768 "
                  "--override-kv qwen2.context_length=int:131072")  # review 43 item 1


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
                                           "--rope-scale": "4", "--yarn-orig-ctx": "32768",
                                           "--override-kv": "qwen2.context_length=int:131072"}
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


def successes(at) -> list[str]:
    return [shown(e.value) for e in at.success]


def captions(at) -> str:
    return " ".join(shown(c.value) for c in at.caption)


@pytest.mark.parametrize(("query", "target", "reached"), [
    ({"sv_model": "Qwen2.5 7B (YaRN 128K)"}, 131072, "131,072"),
    ({"sv_target": "4096"}, 4096, "32,768"),
])
def test_a_target_already_reached_gets_the_context_flags(query, target, reached):
    """Item 12 (and 11: Scout's 8,388,608 is below its 10,485,760): no RoPE change, the
    plain context flags of each engine (vLLM --max-model-len, SGLang --context-length,
    llama.cpp -c), nothing to merge for transformers, one sentence that says so."""
    at = run_page(PAGE, query)
    no_exceptions(at)
    assert not errors(at) and not warnings(at)
    assert any(m.startswith("No RoPE change is needed") and reached in m
               for m in successes(at)), successes(at)
    assert codes(at) == [f"vllm serve MODEL --max-model-len {target}",
                         f"python -m sglang.launch_server --model-path MODEL --context-length "
                         f"{target}", f"llama-server -m MODEL.gguf -c {target}"]
    assert "Nothing to change" in captions(at)
    assert not at.get("plotly_chart")
    frames = csv_frames(at)
    table = frames[f"serve_context_T{target}.csv"]
    assert list(table.columns[:5]) == ["model", "reach R [tokens]", "configured context [tokens]",
                                       "target context T [tokens]", "no RoPE change because"]
    assert set(table["no RoPE change because"]) == {"reached"}


def test_a_factor_over_1000_is_said_not_raised():
    at = run_page(PAGE, {"sv_model": "Llama 2 7B", "sv_target": "8388608"})  # s = 2048
    no_exceptions(at)
    assert not errors(at)
    assert any("target_context=8388608 is not allowed" in w for w in warnings(at))
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
    assert "RoPE layers the θᵢ shown below for it" in text
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
    # review 43 item 16: past its configured 132,096, context flags with
    # max_position_embeddings raised, no RoPE line
    assert any("window of 4,096 tokens" in m and "No RoPE change is needed" in m
               for m in successes(at))
    assert codes(at)[1] == ("vllm serve MODEL --hf-overrides '{\"max_position_embeddings\": "
                            "262144}' --max-model-len 262144")
    at = run_page(PAGE, {"sv_model": "SmolLM3 3B", "sv_target": "262144"})
    assert any("9 layers without RoPE" in i for i in infos(at))


def test_qwen3_trained_for_32768():
    """Wrong 10 of the first review; item 7: the caption says what L is (its source's
    training context)."""
    at = run_page(PAGE, {"sv_model": "Qwen3 8B"})
    assert "L = 32,768 tokens, the context its source says it was trained at" in captions(at)
    assert json.loads(codes(at)[0])["rope_parameters"]["factor"] == 4.0


@pytest.mark.parametrize("model", ["Command R7B", "Trinity Nano", "MiniMax-M2", "GLM-4.5-Air"])
def test_a_configured_context_is_not_called_trained(model):
    """Item 7: where only max_position_embeddings gives the context, the caption says so
    (Real models' wording), not "trained (L) for"."""
    at = run_page(PAGE, {"sv_model": model, "sv_target": "8388608"})
    text = captions(at)
    assert "L = its configured context" in text and "(max_position_embeddings)" in text
    assert "trained (L)" not in text


def test_gemma4_caption_says_its_scaling_and_no_training_context():
    at = run_page(PAGE, {"sv_model": "Gemma 4 31B", "sv_target": "524288", "sv_method": "linear"})
    assert "L = its configured context, 262,144 tokens" in captions(at)


def test_mistral_v01_to_32k_needs_no_rope_change():
    """Item 9: its window of 4,096 caps every distance and config.json allows 32,768: the
    page says so first and gives the context flags only where the window is applied;
    SGLang's and llama.cpp's Llama code run it without the window: refused, saying so."""
    at = run_page(PAGE, {"sv_model": "Mistral 7B v0.1", "sv_target": "32768"})
    no_exceptions(at)
    said = successes(at)
    assert any("window of 4,096 tokens" in m and "No RoPE change is needed" in m for m in said)
    assert codes(at) == ["vllm serve MODEL --max-model-len 32768"]
    refused = warnings(at)
    assert any(w.startswith("SGLang is not given a context line") and "without its 4,096-token "
               "window" in w for w in refused)
    assert any(w.startswith("llama.cpp is not given a context line") for w in refused)
    assert not at.get("plotly_chart")


def test_granite_without_rope_layers_gets_context_lines():
    """Item 4 and review 43 item 24: no layer of Granite 4.0-H rotates: no RoPE line and no
    spectrum, but the plain context flags, max_position_embeddings raised past its 32,768
    (vLLM's and SGLang's length checks read it); llama.cpp's converter writes
    context_length 2**20 for a hybrid without RoPE (conversion/granite.py:514-521), so -c
    alone is not capped."""
    at = run_page(PAGE, {"sv_model": "Granite 4.0-H 350M", "sv_target": "65536"})
    no_exceptions(at)
    assert any(m.startswith("No RoPE change is possible or needed: none of Granite 4.0-H "
                            "350M's 32 layers rotates") for m in successes(at)), successes(at)
    override = '{"max_position_embeddings": 65536}'
    assert codes(at) == [
        '{\n  "max_position_embeddings": 65536\n}',
        f"vllm serve MODEL --hf-overrides '{override}' --max-model-len 65536",
        f"python -m sglang.launch_server --model-path MODEL --json-model-override-args "
        f"'{override}' --context-length 65536",
        "llama-server -m MODEL.gguf -c 65536"]
    assert not at.get("plotly_chart")
    assert "none of its 32 layers rotates" in captions(at)


def test_static_note_quotes_qwen_only_for_yarn():
    """Item 11: Qwen's text about static YaRN is said for yarn, not for linear."""
    at = run_page(PAGE, {"sv_model": "Llama 2 7B", "sv_method": "linear", "sv_target": "16384"})
    static = [i for i in infos(at) if i.startswith("linear is static")]
    assert static and "Qwen" not in static[0]
    assert any(i.startswith("yarn is static") and "Qwen" in i
               for i in infos(run_page(PAGE)))


def test_an_extreme_factor_is_warned():
    """Item 14: Qwen2.5 7B to 8,388,608 tokens, s = 256, past DeepSeek-V3's 40."""
    at = run_page(PAGE, {"sv_target": "8388608"})
    assert any("s = 8,388,608 / 32,768 = 256 goes past every published recipe read here" in w
               and "factor 40" in w for w in warnings(at)), warnings(at)
    assert not any("published recipe" in w for w in warnings(run_page(PAGE)))


def test_gemma4_linear_is_proportional_with_a_factor():
    """Item 13: transformers' proportional type takes factor (inv_freq /= factor): the entry
    and llama.cpp's flags; vLLM's and SGLang's Gemma4RotaryEmbedding take no factor."""
    at = run_page(PAGE, {"sv_model": "Gemma 4 31B", "sv_target": "524288", "sv_method": "linear"})
    no_exceptions(at)
    blocks = codes(at)
    full = json.loads(blocks[0])["text_config"]["rope_parameters"]["full_attention"]
    assert full == {"rope_type": "proportional", "rope_theta": 1e6, "factor": 2.0,
                    "partial_rotary_factor": 0.25}
    assert blocks[1] == ("llama-server -m MODEL.gguf -c 524288 --rope-scaling linear "
                         "--rope-scale 2 --override-kv gemma4.context_length=int:524288")
    assert any(w.startswith("vLLM cannot run linear for this model's proportional RoPE")
               for w in warnings(at))
    assert any("proportional RoPE" in i and "`inv_freq /= factor`" not in i and
               "inv_freq /= factor" in i for i in infos(at))


def test_olmo3_to_131072_drops_its_stale_attention_factor():
    """Item 10: s = 16; attention_factor 1.2079 = 0.1 ln 8 + 1 left out, so every engine
    derives 0.1 ln 16 + 1 = 1.2773; SGLang and llama.cpp get lines."""
    at = run_page(PAGE, {"sv_model": "OLMo 3 7B", "sv_target": "131072"})
    no_exceptions(at)
    blocks = codes(at)
    assert len(blocks) == 4
    assert "attention_factor" not in blocks[0]
    assert metrics(at)["attention factor a at T"] == f"{0.1 * math.log(16) + 1:.4f}"
    assert any("1.2079" in i and "1.2773" in i for i in infos(at))


def test_ministral3_yarn_lines():
    """Items 2 and 3: llama.cpp runs Ministral 3's YaRN (its GGUF's log multiplier makes the
    attention factor 1, as in transformers); the transformers entry keeps
    llama_4_scaling_beta; vLLM, which reads the query scale only from params.json, refuses."""
    at = run_page(PAGE, {"sv_model": "Ministral 3 8B", "sv_target": "524288"})
    no_exceptions(at)
    blocks = codes(at)
    params = json.loads(blocks[0])["text_config"]["rope_parameters"]
    assert params["llama_4_scaling_beta"] == 0.1 and params["mscale_all_dim"] == 1.0
    assert blocks[-1] == ("llama-server -m MODEL.gguf -c 524288 --rope-scaling yarn "
                          "--rope-scale 32 --yarn-orig-ctx 16384 --override-kv "
                          "mistral3.context_length=int:524288")
    # review 43 item 6: vLLM reads llama_4_scaling from the text config (mistral.py:106-115)
    assert len(blocks) == 4 and '"llama_4_scaling": {"original_max_position_embeddings": ' \
        '16384, "beta": 0.1}' in blocks[1]
    assert metrics(at)["attention factor a at T"] == "1.0000"


BAD_CONFIG = {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
              "max_position_embeddings": 32768, "rope_theta": 1000000.0,
              "rope_scaling": {"type": "yarn", "factor": 4.0,
                               "original_max_position_embeddings": 32768}}


def test_doctor_lists_findings_and_a_csv():
    """The config doctor: the Qwen2.5 card's recipe pasted as is (legacy type, factor 4 with
    max_position_embeddings left at 32,768, static YaRN): one warning per finding naming
    its key, the fix and the source; a CSV of them."""
    at = run_page(PAGE)
    at.text_area(key="sv_config_text").set_value(json.dumps(BAD_CONFIG))
    at.run()
    no_exceptions(at)
    found = [w for w in warnings(at) if "Fix:" in w]
    keys = [w.split(":")[0].strip("*") for w in found]
    # review 43 item 13: the legacy type alone is read by every engine: no finding
    assert keys == ["“rope_scaling.factor”", "“rope_scaling”"]
    assert "vllm/config/model.py:2598-2627" in found[0]
    frames = csv_frames(at)
    table = frames["config_doctor.csv"]
    assert list(table.columns) == ["check", "key", "problem", "fix", "source"]
    assert list(table["check"]) == ["factor", "static_yarn"]


def test_doctor_says_when_it_finds_nothing_and_survives_junk():
    at = run_page(PAGE)
    assert any("Paste or upload" in c.value for c in at.caption)
    clean = {**BAD_CONFIG, "rope_scaling": None}
    at.text_area(key="sv_config_text").set_value(json.dumps(clean))
    at.run()
    assert any("None of the mistakes below" in m for m in successes(at))
    at.text_area(key="sv_config_text").set_value('["not", "an object"')
    at.run()
    no_exceptions(at)
    assert codes(at)[-1].endswith(QWEN_LLAMA_CPP)  # the preset stays


def test_doctor_keys_are_escaped():
    """A visitor's layer-type key is shown as plain text, capped."""
    hostile = {"model_type": "gemma3_text", "max_position_embeddings": 8192,
               "rope_parameters": {"[x](https://evil.example)" + "y" * 100: {
                   "type": "linear", "rope_type": "yarn", "factor": 2.0}}}
    at = run_page(PAGE)
    at.text_area(key="sv_config_text").set_value(json.dumps(hostile))
    at.run()
    no_exceptions(at)
    raw = [w.value for w in at.warning if "Fix:" in w.value]
    assert raw and all("](" not in v.replace("\\]\\(", "") for v in raw)
    assert any("…" in w for w in warnings(at))


def test_doctor_in_chinese():
    at = run_page(PAGE, {"lang": "zh"})
    at.text_area(key="sv_config_text").set_value(json.dumps(BAD_CONFIG))
    at.run()
    no_exceptions(at)
    assert "配置诊断" in [h.value for h in at.header]
    assert any("“rope\\_scaling\\.factor”" in w.value and "修正" in w.value for w in at.warning)


@pytest.mark.parametrize(("preset", "base", "hub"), [
    ("Qwen2.5 7B (YaRN 128K)", "Qwen2.5 7B", "32,768"),
    ("Qwen3 8B (YaRN 128K)", "Qwen3 8B", "40,960"),
])
def test_card_recipe_context_lines_say_what_they_need(preset, base, hub):
    """review43 18. The card-recipe presets' plain context lines change no RoPE setting:
    they run 131,072 tokens only from a config.json (or GGUF) carrying the card's
    rope_scaling; the Hub's config.json says max_position_embeddings 32,768 (Qwen2.5) and
    40,960 (Qwen3), which vLLM and SGLang refuse to exceed (vllm/config/model.py:
    2598-2627; SGLang common.py:677-694) and llama-server caps at (review43 1)."""
    at = run_page(PAGE, {"sv_model": preset, "sv_target": "131072"})
    no_exceptions(at)
    said = [shown(i.value) for i in at.info]
    assert any(f"This preset is {base}'s config.json" in i and f"max_position_embeddings {hub}"
               in i for i in said), said
    at = run_page(PAGE, {"sv_model": base, "sv_target": "131072"})
    assert not any("This preset is" in shown(i.value) for i in at.info)


def test_qwen25_caption_gives_its_training_context():
    """review43 25. Qwen2.5 7B was trained at 32,768 (its card: the config is set for
    32,768; the Qwen2.5 report, arXiv:2412.15115: the final pre-training stage at 32,768),
    as the YaRN preset built from the same card says."""
    at = run_page(PAGE, {"sv_model": "Qwen2.5 7B", "sv_target": "65536"})
    assert "the context its source says it was trained at" in captions(at)
    assert "no source here gives its training context" not in captions(at)


def test_angle_explainer_uses_the_trained_spectrum_only_where_a_source_gives_it():
    """review43 26. Llama 3.1 8B has no training context here, so its largest angle seen
    is R·θᵢ alone (R = its reach); Qwen2.5 7B's, trained at 32,768 with the plain
    spectrum, is the larger of that and 32,768·base^(-2i/d)."""
    import numpy as np

    from rope_core.models import serving
    from rope_core.models.presets import PRESETS
    llama = PRESETS["Llama 3.1 8B"]
    assert llama.training_context is None
    table = serving.range_table(llama, 262144, "yarn")
    theta = llama.theta(serving.reach(llama))[0].double().numpy()
    seen = table["largest angle seen [rad]"].to_numpy()
    kept = ~table["turned"].to_numpy()
    assert np.allclose(seen[kept], serving.reach(llama) * theta[kept], rtol=1e-12)
    qwen = PRESETS["Qwen2.5 7B"]
    table = serving.range_table(qwen, 131072, "yarn")
    i = np.arange(qwen.rotary_dim // 2)
    plain = 32768 * qwen.base ** (-2.0 * i / qwen.rotary_dim)
    kept = ~table["turned"].to_numpy()
    assert np.allclose(table["largest angle seen [rad]"].to_numpy()[kept], plain[kept],
                       rtol=1e-6)


def test_source_references_show_as_code():
    """The file and lines a note cites (serving.CHECKED, a rope_core.Code value) are shown
    as a code span, not as escaped prose, in both languages."""
    for lang in ("en", "zh"):
        at = run_page(PAGE, {"lang": lang})
        raw = [c.value for c in at.caption if "server-context.cpp" in c.value]
        assert raw and all("`tools/server/server-context.cpp:1190-1216, 4008-4016;" in r
                           for r in raw), raw
