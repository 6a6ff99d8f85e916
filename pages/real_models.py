"""Real models: how published models configure RoPE, side by side on shared axes."""


import streamlit as st

import rope_core as rc
import ui
from rope_core.limits import compare
from rope_core.models.config import MAX_JSON_BYTES
from ui import i18n
from ui.configs import config_input, shown_name
from ui.i18n import _
from views.real_models import (
    DECAY_POINTS,
    bound_figure,
    cards,
    comparison,
    decay_table,
    none_rotates,
    ratio_figure,
    score_figure,
    score_sentences,
    stack_figure,
    theta_figure,
    wavelength_figure,
    written,
)

PRESET_NAMES = list(rc.PRESETS)
DEFAULT_MODELS = ["Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B"]
AXES = list(compare.AXES)
DEFAULT_AXIS = AXES[0]  # "linear", a link value


s = ui.settings()
ui.intro(
    _("Real models"),
    _("How published models configure RoPE, from their `config.json`: how many coordinates of "
      "a head rotate, the base, the pair layout, and the context-extension method with its "
      "parameters. Everything is computed from those fields with the formulas of Hugging Face "
      "transformers {version}; the sidebar settings do not apply here."
      ).format(version=rc.TRANSFORMERS_VERSION))
ui.terms("partial", "base", "layout", "l_train", "factor", "attention_factor", "window", "chunk",
         "hybrid", "nope")

c1, c2 = st.columns([2, 1])
names = ui.multiselect(_("Models (up to 3)"), PRESET_NAMES, DEFAULT_MODELS, "rm_models",
                       max_selections=3, container=c1)
axis = ui.choice(_("Distance axis"), AXES, DEFAULT_AXIS, "rm_axis", container=c2,
                 help=_("`linear`: distances evenly spaced up to each model's maximum "
                        "context; `log`: a logarithmic axis that shows short distances in "
                        "detail."))
mine = config_input(
    "rm", _("Add your own `config.json`"),
    _("Paste or upload a model's `config.json` (at most {most} bytes); it is added as one more "
      "model. An uploaded file is used before pasted text.").format(
        most=i18n.integer(MAX_JSON_BYTES)),
    _("Added {name}."))

configs = [rc.PRESETS[n] for n in names] + ([mine] if mine is not None else [])
if not configs:
    st.info(_("Choose at least one model, or add a `config.json`."), icon=":material/info:")
    st.stop()
keys = tuple(compare.config_key(c) for c in configs)
with ui.friendly_errors():
    tables = comparison(keys)
    decay_table(keys, axis)
text = written(keys)

# --- cards -----------------------------------------------------------------------------
for col, title, card in zip(st.columns(len(configs)), text["titles"], cards(keys)):
    with col.container(border=True):
        st.markdown(title)
        st.markdown(card)

# --- layer stack -----------------------------------------------------------------------
layers = tables["layers"]
if len(layers):
    ui.show(stack_figure(keys), key="rm_stack_plot",
            alt=_("Strip chart: one row per model, one cell per layer, coloured by what the layer "
                  "does: RoPE with full attention, RoPE with a sliding window or chunk, NoPE "
                  "(attention without rotation), or no attention at all (linear attention, state "
                  "space or convolution)."), table=_("layer table"))
    st.markdown(_("**Layers.** Each row is one model, each cell one layer: blue layers rotate "
                  "over the whole context, dark teal ones inside a sliding window or an "
                  "attention chunk. Grey layers have no positional encoding at all (NoPE). Brown "
                  "layers do not attend (linear attention, state-space or convolution "
                  "layers)."))
    ui.bullets(text["stack"])
    with st.expander(_("How layers without rotation still see order")):
        st.markdown(_("NoPE layers see word order only through the causal mask and what the "
                      "layers below pass up. In Yang et al.'s experiments (2025) such layers do "
                      "the long-range retrieval, an empirical finding, not a property of NoPE. "
                      "Layers that do not attend need no position encoding: their recurrence "
                      "or kernel is ordered by itself."))
missing = [shown_name(c.name) for c in configs if c.layers is None]
if missing:
    st.caption(_("No layer count in the `config.json` of {models}: no layer stack for "
                 "them.").format(models=ui.plain(_(", ").join(missing))))

# --- spectra ---------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(theta_figure(keys), key="rm_theta_plot",
            alt=_("Line chart, log scale: the frequency θᵢ each model uses at its maximum context "
                  "against the pair index i, one line per model and rotating layer group."),
            table=_("spectra table"))
with right:
    ui.show(wavelength_figure(keys), key="rm_wave_plot",
            alt=_("Line chart, log scale: each model's wavelengths 2π/θᵢ against the pair index i, "
                  "one line per model and rotating layer group, with how far each group sees "
                  "dotted."),
            table=_("spectra table"))

st.markdown(_("**What to notice.** A larger base pushes the slow pairs' wavelengths far "
              "beyond the context (a larger d alone does not: the share of pairs longer than "
              "the context depends on the base, not on d), so in exact arithmetic their angle "
              "alone identifies every position."))
ui.bullets(text["spectra"] or (none_rotates(),))
with st.expander(_("In a real cache: how many positions a slow pair tells apart")):
    st.markdown(ui.slow_pairs_in_low_precision())

left, right = st.columns(2)
with left:
    ui.show(ratio_figure(keys), key="rm_ratio_plot",
            alt=_("Line chart, log scale: each model's scaled θᵢ divided by the plain base^(−2i/d) "
                  "against the pair index i; 1 where its scaling keeps a pair."),
            table=_("spectra table"))
with right:
    ui.show(bound_figure(keys, axis), key="rm_bound_plot",
            alt=_("Line chart: each model's long-term decay bound divided by its value at r = 0, "
                  "against the relative distance r, one line per model."), table=_("decay table"))

st.markdown(_("**Left:** how each model's scaling changes θᵢ at its maximum context, in the "
              "layers that apply it."))
ui.bullets(text["ratios"] or (none_rotates(),))
st.markdown(_("**Right:** RoFormer's bound, each curve divided by its value (d/2 + 1)/2 at "
              "r = 0 so that different rotary dims share one axis; each curve runs as far as "
              "its layers see: a window or chunk, else the maximum context."))

ui.show(score_figure(keys, axis), key="rm_score_plot",
        alt=_("Line chart: the score of q = k = all ones divided by the head dim against the "
              "relative distance r, one line per model."), table=_("decay table"))
st.markdown(_("**Aligned vectors fade with distance, and partial rotary models fade less:** "
              "their pass-through coordinates add a constant that no rotation reduces, and an "
              "attention factor a > 1 multiplies the rotary part by a². The score of "
              "q = k = all ones, divided by the head dim:"))
ui.bullets(score_sentences(keys, axis) or (none_rotates(),))
if axis == "linear" and text["longest"] >= DECAY_POINTS:
    st.caption(_("At most {n} distances per model, evenly spaced: the ripples of the fast "
                 "pairs between samples are not drawn. Use the log axis to see short distances "
                 "in detail.").format(n=i18n.integer(DECAY_POINTS)))
if text["windowed"]:
    st.caption(_("Layers with a sliding window or attention chunk never meet a longer "
                 "distance, whatever the context: their curves stop at their window "
                 "({models}).").format(models=_("; ").join(text["windowed"])))

# file names carry no visitor text
ui.download(comparison, keys,
            filename="real_models_cards.csv", label=_("model cards"), key="rm_models_csv",
            part="models")
ui.download(comparison, keys, filename="real_models_spectra.csv",
            label=_("spectra table"), key="rm_spectra_csv", part="spectra")
ui.download(decay_table, keys, axis, filename=f"real_models_decay_{axis}.csv",
            label=_("decay table"), key="rm_decay_csv", part="decay")
if len(layers):
    ui.download(comparison, keys, filename="real_models_layers.csv",
                label=_("layer table"), key="rm_layers_csv", part="layers")
ui.download(comparison, keys, filename="real_models_groups.csv",
            label=_("layer groups"), key="rm_groups_csv", part="groups")
