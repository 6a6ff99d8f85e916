"""Context extension: one model, every scaling method on the same axes."""

import re

import streamlit as st

import rope_core as rc
import ui
from rope_core.limits import compare
from ui import i18n
from ui.i18n import N_, _
from views.context_extension import (
    CUSTOM,
    attention_factor_figure,
    attention_notes,
    bound_figure,
    dynamic,
    dynamic_figure,
    dynamic_notes,
    extension,
    extension_decay,
    far_bounds,
    in_use,
    largest_ramp_gap,
    listed,
    methods,
    methods_list,
    model_label,
    model_note,
    ramp_figure,
    ratio_figure,
    regime_figure,
    regime_note,
    score_figure,
    softmax_figure,
    spectrum_notes,
    wavelength_figure,
    where_it_applies,
    yarn_ramp,
    yarn_ramps,
)

MODEL_OPTIONS = [CUSTOM] + list(rc.PRESETS)
CONTEXT_OPTIONS = [2**e for e in range(8, 19)]  # 256 ... 262,144 tokens
FACTOR_OPTIONS = [2, 4, 8, 16, 32]  # s * L stays within 10^7 tokens
AXES = list(compare.AXES)
DEFAULT_AXIS = AXES[0]  # "linear", a link value
# transformers' `factor` of dynamic NTK: its own knob (1 = YaRN's definition, alpha = n / L)
DYNAMIC_FACTORS = [1, 2, 4, 8, 16, 32]


s = ui.settings()
ui.intro(
    _("Context extension"),
    _("A model trained on L tokens meets angles mθᵢ it never saw once the input is longer. "
      "Context-extension methods change θᵢ (and sometimes the attention temperature) to "
      "carry it to s·L tokens; not all of them keep every angle s·L·θ′ᵢ inside what "
      "training covered (see below)."),
    _("Below, one base model under every method, on the same axes, every method evaluated at "
      "one length, n = s·L (dynamic NTK with transformers' `factor` = 1, so that its "
      "α = n/L is s there too: YaRN's definition)."))
ui.terms("l_train", "factor", "interpolation", "ntk", "yarn", "attention_factor", "llama3",
         "longrope", "decay")

c1, c2, c3 = st.columns([2, 1, 1])
model = ui.choice(_("Base model"), MODEL_OPTIONS, "Llama 3.1 8B", "ce_model", container=c1,
                  fmt=model_label,
                  help=_("A preset, or the sidebar's base, head dim and layout with L and s "
                         "chosen here."))
own_factor = 1.0 if model == CUSTOM else compare.scaling_factor(rc.PRESETS[model])
L_LABEL, S_LABEL = _("Original context L [tokens]"), _("Factor s (new context = s·L)")
if model == CUSTOM:
    context = ui.select_slider(L_LABEL, CONTEXT_OPTIONS, 4096, "ce_L", container=c2, fmt=str)
else:
    context = in_use(L_LABEL, CONTEXT_OPTIONS, rc.PRESETS[model].original_context, c2)
if own_factor > 1:
    factor = in_use(S_LABEL, FACTOR_OPTIONS, own_factor, c2)
else:
    factor = ui.select_slider(S_LABEL, FACTOR_OPTIONS, 8, "ce_s", container=c2, fmt=str)
if model == CUSTOM:
    base_cfg = rc.RopeConfig(name=CUSTOM, head_dim=s.dim, rotary_dim=s.dim, base=s.base,
                             layout=s.layout, original_context=context, max_context=context)
    c3.caption(_("Base, head dim and layout from the sidebar."))
else:
    base_cfg = rc.PRESETS[model]
    c3.caption(model_note(base_cfg, own_factor))
s_used = own_factor if own_factor > 1 else float(factor)
L = base_cfg.original_context

cfg_key = compare.config_key(base_cfg)
with ui.friendly_errors():
    extension(cfg_key, s_used)
compared = methods(cfg_key, s_used)
extended = compare.extended_context(base_cfg, s_used)  # n = s·L, for every method
if model != CUSTOM and extended > base_cfg.max_context:
    c3.caption(_("n = s·L = {n} tokens is beyond the {configured} tokens {model} is "
                 "configured for: the comparison runs to the length its factor s aims "
                 "at.").format(n=i18n.integer(extended), model=ui.plain(model),
                               configured=i18n.integer(base_cfg.max_context)))

# --- what each method does ------------------------------------------------------------
with st.container(border=True):
    st.markdown(methods_list(cfg_key, s_used))
    if "longrope" not in compared:
        st.caption(_("LongRoPE's per-pair factors come from a search done for each model, so "
                     "it is shown only for a model that publishes them ({models}).").format(
            models=listed(n for n, c in rc.PRESETS.items() if c.method == "longrope")))
    st.caption(_("Formulas and parameter names as in Hugging Face transformers {version} "
                 "(`modeling_rope_utils.py`).").format(version=rc.TRANSFORMERS_VERSION))

# --- where the scaling applies: the layers that use the main spectrum ------------------
if model != CUSTOM and where_it_applies(base_cfg):
    ui.paragraphs(*where_it_applies(base_cfg))

# --- spectra ---------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(ratio_figure(cfg_key, s_used), key="ce_ratio_plot",
            alt=_("Line chart, log scale: the ratio θ′ᵢ/θᵢ of each pair's frequency after context "
                  "extension to the original one, against the pair index i, one line per method; 1 "
                  "means the pair is kept, 1/s that it is divided by the factor s."),
            table=_("spectra table"))
with right:
    ui.show(wavelength_figure(cfg_key, s_used), key="ce_wave_plot",
            alt=_("Line chart, log scale: each pair's wavelength 2π/θ′ᵢ against the pair index i, "
                  "one line per context-extension method, with the original context L and the "
                  "extended context s·L as dotted horizontal lines."), table=_("spectra table"))

noticed, by_method, inside = spectrum_notes(base_cfg, s_used, custom=model == CUSTOM)
ui.paragraphs(noticed, by_method)
ui.explain(*inside)

# --- regimes ---------------------------------------------------------------------------
ui.show(regime_figure(cfg_key, s_used), key="ce_regime_plot",
        alt=_("Strip chart: one row per scaled method, one cell per pair index i, coloured by what "
              "the method does to that pair: keeps it, blends it, or interpolates it (divides its "
              "frequency by s)."), table=_("spectra table"))
runs, ramp_note = regime_note(cfg_key, s_used)
st.markdown(_("Which pairs each method keeps, blends or interpolates:"))
ui.bullets(runs)
if ramp_note:
    st.markdown(ramp_note)

# --- YaRN's ramp: in the pair index (code) or in the turn count (paper) -----------------
if "yarn" in compared:
    p, low, high = yarn_ramp(base_cfg, s_used)
    ramp_args = (base_cfg.name, s_used, base_cfg.rotary_dim, base_cfg.base, L,
                 p["beta_fast"], p["beta_slow"], p["truncate"])
    ui.show(ramp_figure(*ramp_args), key="ce_ramp_plot",
            alt=_("Line chart: the share of interpolation YaRN gives each pair, from 0 (kept) to 1 "
                  "(divided by s), against the pair index i: linear in i as this app draws it, and "
                  "linear in the turn count r = L/λ as in YaRN's paper."),
            table=_("YaRN ramps"))
    ui.paragraphs(_(
        "**Which ramp.** This app follows transformers and YaRN's official code: the share of "
        "a pair divided by s rises linearly in the pair index i from pair {low} to pair "
        "{high}. The paper writes its ramp γ(r) linearly in the turn count r = L/λᵢ instead, "
        "and r falls geometrically with i, so the paper's ramp interpolates most blended "
        "pairs more.").format(low=f"{low:g}", high=f"{high:g}"), largest_ramp_gap(*ramp_args))

# --- attention factor ------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(attention_factor_figure(cfg_key, s_used), key="ce_attention_plot",
            alt=_("Bar chart: the logit multiplier a² of each context-extension method (1 for the "
                  "methods without an attention factor)."), table=_("attention factors"))
with right:
    ui.show(softmax_figure(cfg_key, s_used), key="ce_softmax_plot",
            alt=_("Bar chart: the softmax weights of five fixed logits for each key j, plainly and "
                  "with each method's attention factor; a factor above 1 sharpens the weights."),
            table=_("softmax example"))
ui.explain(*attention_notes(cfg_key, s_used, model))

# --- decay and dynamic NTK: against a distance or a length, on the axis chosen here -----
@st.fragment
def distance_sections(cfg_key: tuple, s_used: float, tag: str) -> None:
    """The decay curves and dynamic NTK's base against the current length, with the
    distance axis and transformers' `factor` as this section's own controls (a fragment:
    moving them reruns only this section)."""
    base_cfg = compare.config_from_key(cfg_key)
    extended = compare.extended_context(base_cfg, s_used)
    st.header(_("Against distance"))
    c1, c2 = st.columns(2)
    axis = ui.choice(_("Distance axis"), AXES, DEFAULT_AXIS, "ce_axis", container=c1,
                     help=_("`linear`: distances evenly spaced up to s·L; `log`: a "
                            "logarithmic axis that shows short distances in detail."))
    f = ui.select_slider(_("transformers' `factor` f for dynamic NTK"), DYNAMIC_FACTORS, 1,
                         "ce_dyn_f", container=c2, fmt=str,
                         help=_("transformers' dynamic NTK uses α = f·n/L − (f − 1) once the "
                                "current length n exceeds L. f = 1 is YaRN's definition "
                                "(α = n/L, so α = s at s·L). transformers takes that L from "
                                "`max_position_embeddings`, the length a config is set for; "
                                "the comparison here uses the model's L above."))
    with ui.friendly_errors():
        extension_decay(cfg_key, s_used, axis)
        dynamic(cfg_key, s_used, axis, f)
    left, right = st.columns(2)
    with left:
        ui.show(bound_figure(cfg_key, s_used, axis), key="ce_bound_plot",
                alt=_("Line chart: RoFormer's long-term decay bound against the relative distance r"
                      " up to s·L, one line per context-extension method."), table=_("decay table"))
    with right:
        ui.show(score_figure(cfg_key, s_used, axis), key="ce_score_plot",
                alt=_("Line chart: the attention score of q = k = all ones against the relative "
                      "distance r up to s·L, one line per context-extension method, attention "
                      "factor included."), table=_("decay table"))
    at_end = far_bounds(cfg_key, s_used, axis)
    ui.explain(_(
        "**Decay.** Slowing the pairs keeps phases aligned for longer, so the bound decays "
        "more slowly: averaged over distances from s·L/2 to s·L it is {values}. The dotted "
        "line marks L: interpolating methods stretch the curve of the first L tokens over "
        "s·L.").format(values=listed(f"{v:.2f} (`{m}`)" for m, v in at_end.items())))
    if axis == "linear" and extended >= compare.EXTENSION_POINTS:
        st.caption(_("At most {n} distances per method, evenly spaced: ripples between "
                     "samples are not drawn. Use the log axis for short distances.").format(
            n=i18n.integer(compare.EXTENSION_POINTS)))

    ui.show(dynamic_figure(cfg_key, s_used, axis, f), key="ce_dynamic_plot",
            alt=_("Line chart, log scale: the effective base that dynamic NTK uses against the "
                  "current sequence length n, one line per factor f, with L and s·L marked."),
            table=_("dynamic NTK table"))
    ui.explain(*dynamic_notes(cfg_key, s_used, axis, f))
    ui.download(extension_decay, cfg_key, s_used, axis,
                filename=f"context_extension_decay_{tag}_{axis}.csv", label=_("decay table"),
                key="ce_decay_csv", part="decay")
    ui.download(dynamic, cfg_key, s_used, axis, f,
                filename=f"context_extension_dynamic_{tag}_{axis}_f{f}.csv",
                label=_("dynamic NTK table"), key="ce_dynamic_csv")


name = (f"custom_dim{s.dim}_base{ui.slug(s.base)}" if model == CUSTOM
        else re.sub(r"[^A-Za-z0-9]+", "-", model).strip("-"))  # a preset's name: app text
tag = f"{name}_L{L}_s{ui.slug(s_used)}"
distance_sections(cfg_key, s_used, tag)

for part, label in (("spectra", N_("spectra table")), ("attention", N_("attention factors")),
                    ("softmax", N_("softmax example"))):
    ui.download(extension, cfg_key, s_used,
                filename=f"context_extension_{part}_{tag}.csv", label=_(label),
                key=f"ce_{part}_csv", part=part)
if "yarn" in compared:
    ui.download(yarn_ramps, *ramp_args, filename=f"context_extension_ramps_{tag}.csv",
                label=_("YaRN ramps"), key="ce_ramps_csv")
