"""Layers without RoPE: hybrids that rotate in some layers and not in others."""


import streamlit as st

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _
from views.layers_without_rope import (
    HYBRIDS,
    KIND_NOTES,
    KINDS,
    layers,
    overview,
    pattern_figure,
    pattern_sentence,
    reach_figure,
    reach_notes,
    reach_sentences,
    temperature,
    temperature_figure,
)

DEFAULT_MODELS = ["Llama 4 Scout", "EXAONE 4.0 32B", "Qwen3-Next-80B-A3B", "Gemma 3 4B"]
MAX_MODELS = 4


ui.settings()
ui.intro(
    _("Layers without RoPE"),
    _("Many open models of 2024–2026 rotate queries and keys in only some of their layers. "
      "Some leave chosen attention layers without any positional encoding (NoPE), some rotate "
      "only in their sliding-window layers, and some attend in only a few layers while the "
      "others mix tokens without attention. Everything here is read from each model's "
      "`config.json` the way transformers {version} builds the model; the sidebar settings do "
      "not apply.").format(version=rc.TRANSFORMERS_VERSION))
ui.terms("nope", "hybrid", "window", "chunk", "l_train", "wavelength")
with st.expander(_("Which models do which")):
    st.markdown(_(
        "Llama 4 (iRoPE) and SmolLM3 leave chosen attention layers without positional "
        "encoding among RoPE layers. Command R7B, EXAONE 4 and Trinity rotate only in their "
        "sliding-window layers and leave their global layers without RoPE. In Qwen3-Next and "
        "Qwen3.5, LFM2 and the MiniMax hybrid a few attention layers rotate while the others "
        "mix tokens without attention (linear attention, state space, short convolutions); in "
        "Granite 4.0-H and the released OLMo hybrid checkpoints (`rope_theta: null`) those "
        "few attention layers do not rotate either. Gemma, gpt-oss and OLMo 3 rotate in every "
        "layer but give some a window."))
st.markdown(_(
    "**Why hybrids.** A RoPE layer sees word order directly, but at distances beyond its "
    "training its angles are new. A NoPE layer's scores do not depend on the distance, so "
    "it meets no new angle when the input grows and can attend to a token anywhere in the "
    "context, but it is weak at local order. Giving the RoPE layers a window keeps their "
    "distances, and in exact arithmetic their angles, inside what training covered."))
with st.expander(_("Why hybrids: what a NoPE layer sees, and the sources")):
    st.markdown(_(
        "A NoPE layer adds no positional signal of its own: its scores q·k depend only on what "
        "the hidden states carry (order learnt through the causal mask and from the RoPE "
        "layers below). What does grow with the input is the number of keys a far query "
        "spreads its attention over (Llama 4's temperature, below, answers that). Yang et al. "
        "2025 (*Rope to Nope and Back Again: A New Hybrid Attention Strategy*, "
        "arXiv:2501.18795) find this division of labour, NoPE layers retrieving over long "
        "range and RoPE layers with a recency bias for local order, and propose RoPE in "
        "sliding-window layers with NoPE in full-attention ones. Meta's Llama 4 post (*The "
        "Llama 4 herd*, 2025) names interleaved attention layers without positional "
        "embeddings, with inference-time temperature scaling of attention, as how Llama 4 "
        "generalises beyond its training length (iRoPE: Scout trained at 256K, configured "
        "for 10M)."))

# --- the three kinds side by side ------------------------------------------------------
st.header(_("Three kinds of hybrid"))
for column, kind in zip(st.columns(3), ("nope_layers", "global_nope", "other_mixers")):
    with column:
        st.markdown("**" + _(KINDS[kind]) + "**")
        st.caption(_(KIND_NOTES[kind]))
        ui.bullets(reach_sentences(kind))
st.markdown("**" + _(KINDS["windows"]) + "**")
st.caption(_(KIND_NOTES["windows"]))
ui.bullets(reach_sentences("windows"))
ui.download(overview, filename="layers_without_rope_overview.csv",
            label=_("table of every hybrid"), key="lw_overview_csv")

names = tuple(ui.multiselect(_("Models (up to 4)"), HYBRIDS, DEFAULT_MODELS, "lw_models",
                             max_selections=MAX_MODELS))
if not names:
    st.info(_("Choose at least one model."), icon=":material/info:")
    st.stop()
with ui.friendly_errors():
    layers(names)

# --- pattern ---------------------------------------------------------------------------
ui.show(pattern_figure(names), key="lw_pattern_plot",
        alt=_("Strip chart: one row per model, one cell per layer, coloured by what the layer does:"
              " RoPE with full attention, RoPE with a sliding window or chunk, NoPE (attention "
              "without rotation), or no attention at all (linear attention, state space or "
              "convolution)."), table=_("layer table"))
colours, per_model = pattern_sentence(names)
st.markdown(colours)
ui.bullets(per_model)

# --- reach -----------------------------------------------------------------------------
ui.show(reach_figure(names), key="lw_reach_plot",
        alt=_("Bar chart, log scale, one group per model: the shortest reach of its RoPE layers "
              "(window or context), the wavelength of the slowest pair in those layers, and the "
              "configured context."), table=_("summary table"))
reach, bars, per_model, float32 = reach_notes(names)
ui.paragraphs(reach, bars)
ui.bullets(per_model)
with st.expander(_("Windows in float32: angles far into a long input")):
    st.markdown(float32)

# --- Llama 4's temperature -------------------------------------------------------------
scout = rc.PRESETS["Llama 4 Scout"]
_rule, floor_scale, attn_scale = next(g.spec.query_scale for g in scout.groups()
                                      if g.spec.query_scale)
ui.show(temperature_figure(scout.max_context, floor_scale, attn_scale),
        key="lw_temperature_plot",
        alt=_("Line chart, log scale: the factor by which Llama 4's NoPE layers scale their "
              "queries, against the position p + 1; it stays at 1 up to a floor and then grows with"
              " the log of the position."), table=_("temperature table"))
end = float(rc.query_scale("llama4", floor_scale, attn_scale, [scout.max_context - 1])[0])
st.latex(_(r"q'_p = q_p\left(1 + {attn_scale}\,\ln\!\left(1 + \left\lfloor "
           r"\frac{{p + 1}}{{{floor_scale}}} \right\rfloor\right)\right)").format(
    attn_scale=f"{attn_scale:g}", floor_scale=int(floor_scale)))
temperature_numbers = dict(
    floor=i18n.integer(int(floor_scale)), scale=f"{attn_scale:g}",
    first=i18n.integer(int(floor_scale) - 2), end=f"{end:.4f}",
    last=i18n.integer(scout.max_context - 1))
st.markdown(_("**Llama 4's NoPE layers also sharpen with length.** Without positions, a query "
              "far into a long input spreads its attention over ever more keys. Llama 4 "
              "multiplies the query of its NoPE layers by the factor above: the factor is 1 up "
              "to position {first}, so short inputs are unchanged, then rises in steps of "
              "{floor} tokens to {end} at position {last}; far beyond {floor} it grows like "
              "ln p, and so do the logits.").format(**temperature_numbers))
with st.expander(_("Where Llama 4's factor comes from")):
    st.markdown(_("Only the queries of the NoPE layers are scaled; keys and the RoPE layers are "
                  "untouched (transformers' `Llama4TextAttention` and Meta's reference code, "
                  "`attn_temperature_tuning`, `floor_scale` = {floor}, `attn_scale` = {scale}; "
                  "p is the token's index in the sequence). Both codes cite Scalable-Softmax "
                  "(Nakanishi 2025, *Scalable-Softmax Is Superior for Attention*, "
                  "arXiv:2501.19399), which multiplies the logits by s ln n for n keys. Scout's "
                  "NoPE layers also skip the weight-free RMS norm of q and k (`use_qk_norm`) "
                  "that its RoPE layers apply after rotating.").format(**temperature_numbers))

# file names carry no visitor text: the models are listed inside the CSV
ui.download(layers, names, filename="layers_without_rope_summary.csv",
            label=_("summary table"), key="lw_summary_csv", part="summary")
ui.download(layers, names, filename="layers_without_rope_layers.csv",
            label=_("layer table"), key="lw_layers_csv", part="layers")
ui.download(temperature, scout.max_context, floor_scale, attn_scale,
            filename="layers_without_rope_llama4_temperature.csv",
            label=_("temperature table"), key="lw_temperature_csv")
