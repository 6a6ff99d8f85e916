"""Issue 19 item 10: sentences an expert reader found wrong, checked where they stand.

The wrong wordings must be gone from every message (the extracted catalog is the app's
every visible sentence); the corrected facts are checked on the pages that show them.
Qwen2-VL's sections follow transformers' apply_multimodal_rotary_pos_emb: the cos/sin
table (half layout) is split into chunks of mrope_section * 2 = [16, 24, 24, 16, 24, 24]
and chunk j takes the position row j % 3 (time, height, width), so frequency pairs 0-15
carry time, 16-39 height, 40-63 width.
"""

import math
import pathlib

import pytest
import torch
from apptest_helpers import run_page, shown
from transformers_reference import float32_angles, llama_rotary

import rope_core as rc

POT = pathlib.Path(__file__).resolve().parents[1] / "locale" / "messages.pot"

WRONG = (
    "orders every position",  # cos is monotone over half a turn only: identifies
    "(or a larger d) pushes",  # the share of pairs with wavelength > L does not depend on d
    "positions never mix into",  # attention outputs carry position into the residual stream
    "says nothing about how far",  # causal NoPE models learn positions (Attention page)
    "Llama 3 Herd of Models",  # Llama 3.1's scaling is apply_scaling in llama-models
    "s·L tokens look familiar",
)


def test_wrong_wordings_are_gone():
    text = POT.read_text(encoding="utf-8")
    for phrase in WRONG:
        assert phrase not in text, phrase
    assert "apply_scaling" in rc.SCALINGS["llama3"].citation
    assert "llama-models" in rc.SCALINGS["llama3"].citation


def test_qwen2_vl_sections_name_their_pairs():
    at = run_page("real_models", {"rm_models": ["Qwen2-VL 7B"]})
    assert not at.error
    text = " ".join(m.value for m in at.markdown)
    assert rc.PRESETS["Qwen2-VL 7B"].mrope_section == (16, 24, 24)
    assert ("M-RoPE sections 16, 24, 24: pairs 0–15 (the fastest) carry time, 16–39 height, "
            "40–63 width") in text


# ---------------------------------------------------------------- issue 27: a second reading

def page_text(at) -> str:
    """Every Markdown block of a page run, as shown."""
    assert not at.exception, at.exception
    return " ".join(shown(m.value) for m in at.markdown)


def test_precision_relative_sentence_follows_the_recipe():
    """Item 1. A rounded θ̃ᵢ is the same at both positions, so with q = k = ones
    score(m, n) = Σ 2 (cos mθ̃ cos nθ̃ + sin mθ̃ sin nθ̃) = Σ 2 cos((n − m) θ̃): the theta recipe
    keeps the relative property in every dtype, to float64's rounding. Recomputed here with
    bfloat16's θ̃ at the page's distance (100) and shifts up to 10⁶."""
    th = rc.theta(128, 10_000.0).to(torch.bfloat16).double()  # (64,)

    def score(m, n):  # (S,) positions -> (S,) scores
        a, b = m[:, None] * th, n[:, None] * th
        return 2 * (a.cos() * b.cos() + a.sin() * b.sin()).sum(dim=1)

    shifts = torch.tensor([0.0, 1, 10, 1000, 10**5, 10**6], dtype=torch.float64)
    assert float((score(shifts, shifts + 100) - score(shifts[:1], shifts[:1] + 100))
                 .abs().max()) < 1e-9
    text = page_text(run_page("precision", {"pr_recipe": "theta"}))
    assert "the low-precision recipes do not" not in text
    assert "Every dtype shown stays within float64's own rounding" in text
    assert "the rounded θᵢ is the same at both positions: the score still depends on n − m " \
           "alone, in every dtype" in text
    # each product m·θᵢ rounded on its own: every dtype but float64 leaves the bound
    text = page_text(run_page("precision", {"pr_recipe": "product"}))
    assert "float32, float16, bfloat16 go above it, so their scores depend on more than " \
           "n − m" in text


def test_precision_splits_the_float32_error_into_offset_and_rounding():
    """Item 7, from transformers' own LlamaRotaryEmbedding (d 128, base 10⁴, m = 10⁶): its
    float32 cos and sin give the float32 angle (atan2, ~1e-7); minus m times its own
    float32 inv_freq (exact in float64) is the product's rounding, and m times
    (inv_freq − base^(−2i/d)) is the fixed frequency offset."""
    d, base, m = 128, 10_000.0, 10**6
    rotary = llama_rotary(d, base)
    angle = float32_angles(rotary, m)  # (64,)
    inv = rotary.inv_freq.double()  # (64,)
    exact = torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=torch.float64)
    rounding = torch.remainder(angle - m * inv + math.pi, 2 * math.pi) - math.pi
    offset = m * (inv - exact)
    total = offset + rounding
    i = int(total.abs().argmax())
    assert abs(rounding[i]) <= 2.0 ** (19 - 23) / 2  # half float32's spacing on [2^19, 2^20)
    assert total[i] > 0 and offset[i] > 0 and rounding[i] > 0  # the signs the page writes
    text = page_text(run_page("precision"))
    assert (f"for pair {i}, the largest at m = 1,000,000: {total[i]:.3g} = {offset[i]:.3g} "
            f"+ {rounding[i]:.3g} rad") in text
    assert "so it keeps scores a function of n − m" in text
    assert "this part breaks the relative property" in text
    assert "That rounded θᵢ is the same for q and k, so scores still depend on n − m alone" in text
    assert "about 0.05 rad" not in text


def test_context_extension_evaluates_every_method_at_one_n():
    """Item 2: Gemma 3's own scaling is linear with s = 8 from L = 32,768 (its config and
    Google's report), so n = s·L = 262,144 (131,072 is 4L). Dynamic NTK at that n, from
    transformers' own _compute_dynamic_ntk_parameters with factor 1 and L in
    max_position_embeddings, divides the slowest pair by α = n/L = 8 = s, as static NTK."""
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    gemma = rc.PRESETS["Gemma 3 4B"]
    assert (gemma.method, gemma.params_dict["factor"], gemma.original_context) == \
        ("linear", 8.0, 32768)
    n = 8 * 32768
    d = gemma.rotary_dim
    cfg = transformers.LlamaConfig(hidden_size=4 * d, num_attention_heads=4, head_dim=d,
                                   max_position_embeddings=32768,
                                   rope_parameters={"rope_type": "dynamic", "factor": 1.0,
                                                    "rope_theta": gemma.base})
    dynamic, _ = ROPE_INIT_FUNCTIONS["dynamic"](cfg, "cpu", seq_len=n)
    plain = 1.0 / (gemma.base ** (torch.arange(0, d, 2).double() / d))
    ratio = float(dynamic[-1].double() / plain[-1])
    assert ratio == pytest.approx(1 / 8, rel=1e-5)
    text = page_text(run_page("context_extension", {"ce_model": "Gemma 3 4B"}))
    assert "every one evaluated at n = s·L = 262,144 tokens" in text
    assert "s·L = 131,072" not in text
    assert f"| dynamic | {ratio:.3g} |" in text and "(1/s = 0.125)" in text
    assert "at n = 262,144 α = n/L = 8" in text


def test_context_extension_names_deepseeks_softmax_scale():
    """Item 3: transformers' DeepSeek-V3 attention multiplies its softmax scale by
    yarn_get_mscale(s, mscale_all_dim)² = (0.1·ln 40 + 1)² ≈ 1.874 whenever the config
    has a scaling with mscale_all_dim (yarn_apply_mscale); RoPE's own factor is 1."""
    pytest.importorskip("transformers")
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import yarn_apply_mscale

    scale = yarn_apply_mscale({"rope_type": "yarn", "factor": 40, "mscale_all_dim": 1.0}, 1.0)
    assert scale == pytest.approx((0.1 * math.log(40) + 1) ** 2)
    logits = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0])  # the page's row of logits
    plain, sharp = torch.softmax(logits, 0)[0], torch.softmax(scale * logits, 0)[0]
    text = page_text(run_page("context_extension", {"ce_model": "DeepSeek-V3"}))
    assert "so the softmax is unchanged" not in text
    assert f"ln s + 1)² = {scale:.4g}" in text and f"multiplied by {scale:.4g}" in text
    assert f"the largest weight goes from {plain:.3f} to {sharp:.3f}" in text


SMALL_SEQUENCE = {"iv_text": "1", "iv_img_h": "2", "iv_img_w": "4", "iv_vid_t": "3",
                  "iv_vid_h": "2", "iv_vid_w": "2"}


def test_images_video_defaults_to_the_trained_rule_and_shows_the_decode_jump():
    """Items 4 and 6, from transformers 5.24's own Qwen2-VL get_rope_index on the page's
    short sequence (text 1, image 1×2×4, text 1, video 3×2×2, text 1; merge 2): the text
    after the video resumes at start + max(h′, w′) = 4 + 1 = 5, inside the video's time ids
    4 … 6, and rope_deltas = largest id + 1 − length makes the first generated token (cache
    position = length) 7. The rule Qwen2-VL was released with (max + 1) puts that text at 7
    and generation at 8. The 5.3 change is PR #43972 ("Unify 3D position ids"); 5.2's
    get_rope_index still used llm_pos_ids_list[-1].max() + 1 (issue #45381 compares them)."""
    pytest.importorskip("transformers")
    import inspect
    from types import SimpleNamespace

    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

    assert "current_pos += max(grid_thw[1], grid_thw[2])" in inspect.getsource(
        Qwen2VLModel.get_rope_index)

    class StandIn:  # only what get_rope_index reads
        get_vision_position_ids = Qwen2VLModel.get_vision_position_ids
        config = SimpleNamespace(vision_config=SimpleNamespace(spatial_merge_size=2))

    types = [0] + [1] * 2 + [0] + [2] * 3 + [0]
    ids, deltas = Qwen2VLModel.get_rope_index(
        StandIn(), input_ids=torch.zeros(1, len(types), dtype=torch.long),
        mm_token_type_ids=torch.tensor([types], dtype=torch.int32),
        image_grid_thw=torch.tensor([[1, 2, 4]]), video_grid_thw=torch.tensor([[3, 2, 2]]))
    last_text, generated = int(ids[0, 0, -1]), len(types) + int(deltas[0, 0])
    assert (last_text, generated) == (5, 7)

    at = run_page("images_video", SMALL_SEQUENCE)
    assert at.radio(key="iv_resume").value == "original"  # the default: as trained
    text = page_text(at)
    assert "This is the rule Qwen2-VL and Qwen2.5-VL were trained with" in text
    assert "transformers 5.x" not in text and "transformers up to 5.2 did the same" in text
    assert "generation continues from the largest id + 1, here 8" in text
    assert "transformers 5.3 and later would resume at 5 instead of 7" in text
    at.radio(key="iv_resume").set_value("transformers").run()
    text = page_text(at)
    assert (f"the prompt's last text ids are {last_text} … {last_text}, and the first "
            f"generated token gets {generated} (×), 1 id further") in text


def test_slow_pairs_identify_positions_in_exact_arithmetic_only():
    """Item 8, from transformers' own LlamaRotaryEmbedding with Llama 3.1 8B's llama3 scaling
    (its config.json): bfloat16 cos and sin at positions 0 … 131,071; each pair whose
    wavelength 2π/inv_freq exceeds 131,072 never turns, yet takes far fewer than 131,072
    distinct (cos, sin) values. The pages say so, with these counts."""
    transformers = pytest.importorskip("transformers")
    import numpy as np
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    n = 131_072
    cfg = transformers.LlamaConfig(
        hidden_size=4096, num_attention_heads=32, max_position_embeddings=n,
        rope_parameters={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
                         "rope_theta": 500_000.0})
    rotary = LlamaRotaryEmbedding(cfg)
    slow = [i for i, t in enumerate(rotary.inv_freq.tolist()) if 2 * math.pi / t > n]
    cos, sin = rotary(torch.zeros(1, 1, 128, dtype=torch.bfloat16), torch.arange(n)[None])
    counts = []
    for i in slow:  # half layout: pair i at i and i + 64
        pairs = np.stack([cos[0, :, i].float().numpy(), sin[0, :, i].float().numpy()], axis=1)
        counts.append(len(np.unique(pairs, axis=0)))
    assert max(counts) < n / 10
    expected = (f"each of Llama 3.1 8B's pairs {slow[0]}–{slow[-1]}, which never turn within "
                f"its 131,072 tokens, takes only {min(counts):,} to {max(counts):,} distinct "
                "(cos, sin) values over those 131,072 positions")
    for page in ("frequencies", "real_models"):
        text = page_text(run_page(page))
        assert "so in exact arithmetic" in text and expected in text, page
        assert "alone identifies every position in the context (it does not order them: cos " \
               "is monotone only over half a turn). In a real cache it need not" in text or \
               page == "real_models"


def test_windowed_rope_angles_drift_in_float32():
    """Item 9, from transformers' own LlamaRotaryEmbedding (d 128, base 5·10⁵, Scout's): at
    m = 10⁷ its float32 angles (atan2 of its float32 cos and sin) are off the exact m·θᵢ by
    up to 0.62 rad; minus m times its own float32 inv_freq, the rounding alone reaches
    0.24 rad (float32's spacing on [2^22, 2^23) is 0.5). The rest, m (inv_freq32 − θᵢ), up
    to 0.42 rad, is a change of frequency q and k share (serving review, Misleading 10: the
    page leads with the rounding, which alone breaks relativity). Scout's config sets
    max_position_embeddings = 10,485,760."""
    d, base, m = 128, 500_000.0, 10**7
    rotary = llama_rotary(d, base)
    angle = float32_angles(rotary, m)

    def wrapped(x):
        return torch.remainder(x + math.pi, 2 * math.pi) - math.pi

    exact = m * torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=torch.float64)
    error = float(wrapped(angle - exact).abs().max())
    rounding = float(wrapped(angle - m * rotary.inv_freq.double()).abs().max())
    offset = float((m * (rotary.inv_freq.double() - exact / m)).abs().max())
    assert 0.6 < error < 0.65 and 0.2 < rounding <= 0.25 and 0.4 < offset < 0.43
    assert rc.PRESETS["Llama 4 Scout"].max_context == 10_485_760
    text = page_text(run_page("layers_without_rope"))
    assert "so its angles stay those of training however long the input" not in text
    assert "so in exact arithmetic its angles stay those of training" in text
    assert (f"at m = 10,000,000 (d = 128, base 5·10⁵, Scout's head dim and base before its "
            f"scaling) the rounding reaches {rounding:.2g} rad and differs from one position "
            f"to the next") in text
    assert f"The rest of the float32 error, up to {offset:.2g} rad, is a fixed change" in text
    assert "the same for q and k" in text
    assert f"off by up to {error:.2g} rad" not in text  # the sum is not what breaks relativity
    assert "Llama 4 Scout is configured for 10,485,760 tokens" in text


def _nope_stack(tokens: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """Two causal attention layers (single head, residual, ReLU MLP) with no position
    encoding at all, random weights: (seq, d) inputs -> (seq, d) outputs."""
    g = torch.Generator().manual_seed(seed)
    d = tokens.shape[1]
    x = tokens.double()
    mask = torch.ones(len(x), len(x)).tril().bool()
    for _ in range(2):
        wq, wk, wv, w1, w2 = (torch.randn(d, d, generator=g, dtype=torch.float64) / d**0.5
                              for _ in range(5))
        logits = (x @ wq) @ (x @ wk).T / d**0.5
        weights = torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)
        x = x + weights @ (x @ wv)  # Σₙ aₙ vₙ: the head's output, not its weights
        x = x + torch.relu(x @ w1) @ w2
    return x


def test_nope_reads_position_only_from_tokens_that_differ():
    """Item 10. Fed 40 copies of one token, a causal NoPE stack computes the same vector at
    every position (by induction: equal inputs, uniform weights over equal values); with a
    first token that stands out, the outputs differ from position to position."""
    g = torch.Generator().manual_seed(1)
    symbol, first = torch.randn(16, generator=g), torch.randn(16, generator=g)
    same = _nope_stack(symbol.expand(40, 16))
    assert float((same - same[0]).abs().max()) < 1e-12
    marked = _nope_stack(torch.cat([first[None], symbol.expand(39, 16)]))
    assert float((marked[1:] - marked[1]).abs().max(dim=1).values[1:].min()) > 1e-6
    attention = page_text(run_page("attention"))
    assert "the spread of the weights itself tells" not in attention
    assert "a head outputs the weighted sum Σₙ aₙvₙ, not its weights" in attention
    beyond = page_text(run_page("beyond_rope"))
    assert "a token can count the tokens before it" not in beyond
    assert "a run of identical tokens gives no such signal" in beyond
    layers = page_text(run_page("layers_without_rope"))
    assert "meets nothing new when the input grows" not in layers
    assert ("What does grow with the input is the number of keys a far query spreads its "
            "attention") in layers
    assert "a query far into a long input spreads its attention over ever more keys" in layers
    models = page_text(run_page("real_models", {"rm_models": ["Llama 4 Scout"]}))
    assert "carry retrieval across the whole context" not in models
    assert "an empirical finding, not a property of NoPE" in models


def test_long_context_says_which_dynamic_ntk():
    """Item 11, from transformers' own _compute_dynamic_ntk_parameters: at the page's
    defaults (d 128, base 10⁴, L 4,096, s 8) and n = s·L, with L in max_position_embeddings,
    count the pairs that never turned in training (L·θᵢ < 2π) and go past L·θᵢ at s·L,
    for factor f = 1 and f = s. transformers reads L from max_position_embeddings, which a
    Llama 3.1 config sets to 131,072 (its scaling's L is 8,192)."""
    transformers = pytest.importorskip("transformers")
    import inspect

    from transformers.modeling_rope_utils import _compute_dynamic_ntk_parameters

    assert "config.max_position_embeddings" in inspect.getsource(_compute_dynamic_ntk_parameters)
    d, base, L, s = 128, 10_000.0, 4096, 8
    plain = 1.0 / (base ** (torch.arange(0, d, 2).double() / d))

    def outside(f):
        cfg = transformers.LlamaConfig(hidden_size=4 * d, num_attention_heads=4,
                                       max_position_embeddings=L,
                                       rope_parameters={"rope_type": "dynamic", "factor": f,
                                                        "rope_theta": base})
        inv, _ = _compute_dynamic_ntk_parameters(cfg, "cpu", seq_len=s * L)
        train, far = L * plain, s * L * inv.double()
        return int(((train < 2 * math.pi) & (far > train * (1 + 1e-6))).sum())

    one, ess = outside(1.0), outside(float(s))
    assert one > 0
    text = page_text(run_page("long_context"))
    assert f"dynamic NTK with f = 1 ({one})" in text
    assert (f"with f = s = {s}, α reaches s² − s + 1 = {s * s - s + 1} at s·L and {ess} "
            f"pair{'s stay' if ess != 1 else ' stays'} outside") in text
    llama = rc.PRESETS["Llama 3.1 8B"]
    assert (llama.max_context, llama.original_context) == (131_072, 8192)
    assert ("transformers' dynamic NTK takes its L from max_position_embeddings, the length "
            "a config is set for (Llama 3.1 8B: 131,072 tokens, its scaling's L 8,192)") in text


def test_small_ones_longrope_models_transformers_version_and_the_flat_m_rope_panel():
    """Item 12. (a) Every preset whose config.json sets rope_scaling type longrope is named
    in the LongRoPE caption (Phi-4-mini as well as Phi-3.5 mini). (b) The version the
    formulas follow is the one requirements-dev.txt pins and the tests run against, and the
    pages say it. (c) Qwen2-VL's contiguous split gives height and width only pairs 16 … 63
    (mrope_section 16, 24, 24: rows 16 … 39, columns 40 … 63); on the default 6 × 8 grid
    from (2, 3) with q = k = ones, d 128, base 10⁴ their largest angles, 3·θ₁₆ = 0.3 rad and
    4·θ₄₀ = 0.013 rad, leave Σ 2cos spread over under a fiftieth of 2D's, so the panel is
    almost one colour; Qwen3-VL interleaves."""
    import re

    from rope_core.models.presets import HF_CONFIGS

    transformers = pytest.importorskip("transformers")

    longrope = [name for name, cfg in HF_CONFIGS.items()
                if (cfg.get("rope_scaling") or {}).get("type",
                    (cfg.get("rope_scaling") or {}).get("rope_type")) == "longrope"]
    assert {"Phi-3.5 mini", "Phi-4-mini"} <= set(longrope)
    at = run_page("context_extension")
    captions = " ".join(c.value for c in at.caption)
    assert f"a model that publishes them ({', '.join(longrope)})" in captions

    pin = re.search(r"^transformers==(\d+\.\d+)", (POT.parents[1] / "requirements-dev.txt")
                    .read_text(), re.M).group(1)
    assert rc.TRANSFORMERS_VERSION == pin == ".".join(transformers.__version__.split(".")[:2])
    assert f"Hugging Face transformers {pin} (`modeling_rope_utils.py`)" in captions
    for page in ("real_models", "layers_without_rope", "images_video", "precision"):
        assert f"transformers {pin}" in page_text(run_page(page)), page

    theta = [10_000 ** (-2 * i / 128) for i in range(64)]
    # row and column distances on a 6 x 8 grid from (2, 3): up to 3 rows, 4 columns
    mrope = [sum(2 * math.cos(dr * t) for t in theta[16:40]) +
             sum(2 * math.cos(dc * t) for t in theta[40:]) + 2 * 16
             for dr in range(-2, 4) for dc in range(-3, 5)]
    axial = [sum(2 * math.cos(dr * t) + 2 * math.cos(dc * t) for t in
                 [10_000 ** (-4 * i / 128) for i in range(32)])
             for dr in range(-2, 4) for dc in range(-3, 5)]
    assert (max(mrope) - min(mrope)) < (max(axial) - min(axial)) / 50
    text = page_text(run_page("images_video"))
    assert "so the M-RoPE panel is almost one colour" in text
    assert "That is what Qwen3-VL's interleaving changes" in text
