"""Frequencies: theta_i and wavelength per pair, a context-length marker, scalings."""


import streamlit as st

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _
from views.frequencies import theta_figure, theta_tables, turn_notes, wavelength_figure

CONTEXT_OPTIONS = [2**e for e in range(7, 21)]  # 128 ... 1,048,576 tokens
FACTOR_OPTIONS = [1, 2, 4, 8, 16, 32, 64]
# the scalings that need only s and L (LongRoPE needs per-pair factor lists); their short
# names in the legend ("base 10⁴, linear x4") are views.frequencies.LEGEND_NAMES
PAGE_SCALINGS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")


s = ui.settings()
st.title(_("Frequencies and wavelengths"))
# Translators: a LaTeX formula; translate only the words inside \text{…}.
st.latex(_(r"\theta_i = \text{base}^{-2i/d},\qquad \lambda_i = \frac{2\pi}{\theta_i}"
           r"\ \text{tokens},\qquad \text{turns within } L = \frac{L\,\theta_i}{2\pi}"))

c1, c2 = st.columns(2)
context = ui.select_slider(_("Context length L [tokens]"), CONTEXT_OPTIONS, 4096, "L",
                           container=c1, fmt=str)
others = ui.multiselect(_("Compare with bases (up to 2 more)"),
                        [b for b in ui.BASE_OPTIONS], [], key="compare", max_selections=2,
                        container=c2, fmt=str)
c3, c4 = st.columns(2)
method = ui.choice(_("Context-extension scaling"), list(PAGE_SCALINGS), default="none",
                   key="scaling", container=c3,
                   help="; ".join(f"`{k}`: {_(rc.SCALING_LABELS[k])}" for k in PAGE_SCALINGS))
factor = ui.select_slider(_("Scaling factor s (new context = s·L)"), FACTOR_OPTIONS, 4,
                          key="factor", container=c4, fmt=str, disabled=method == "none")

bases = tuple(dict.fromkeys([s.base] + [float(b) for b in others]))  # keep order, no repeats
with ui.friendly_errors():
    theta_tables(s.dim, bases, context, method, factor, s.device)

left, right = st.columns(2)
with left:
    ui.show(theta_figure(s.dim, bases, context, method, factor, s.device), key="theta_plot",
            alt=_("Line chart, log scale: the frequency θᵢ of each pair in radians per token "
                  "against the pair index i, one line per base; the frequencies fall geometrically "
                  "from 1 rad/token at i = 0."), table=_("frequency table"))
with right:
    ui.show(wavelength_figure(s.dim, bases, context, method, factor, s.device),
            key="wavelength_plot",
            alt=_("Line chart, log scale: the wavelength λᵢ = 2π/θᵢ, the tokens a pair needs for "
                  "one full turn, against the pair index i, one line per base, with the context "
                  "length L (and s·L when scaled) as dotted lines."), table=_("frequency table"))

ui.explain(
    *turn_notes(s.dim, bases, context, method, factor, s.device),
    _("Those slow pairs are also the ones that meet angles never seen in training once a model "
      "reads beyond L, so having more of them is no benefit in itself."),
    _("Long-context models raise the base for two other reasons: a larger base lifts every "
      "wavelength but the first, so when a trained model's base is raised (before fine-tuning "
      "on longer texts) its slow pairs rotate more slowly and their angles stay inside the range "
      "its training covered out to longer distances (trained from the start with the larger "
      "base, a pair that never turns still meets new angles right after L); and the score's "
      "cosine sum B_m = Σᵢ cos(m θᵢ) broadly stays positive out to a longer distance m before "
      "it first turns negative, so attention can still favour similar tokens that far back "
      "(Men et al. 2024, “Base of RoPE bounds context length”). Only broadly: a slightly larger "
      "base can turn negative sooner (the passing islands on the Long context page)."))
st.markdown(_("**Two ways to count pairs.** The RoFormer paper numbers pairs from 1: "
              "θᵢ = 10000^(−2(i−1)/d), i = 1 … d/2. This app numbers them from 0: "
              "θᵢ = base^(−2i/d), i = 0 … d/2 − 1. The same frequency has index i here and "
              "i + 1 in the paper (θ₀ here is the paper's θ₁ = 1 rad/token)."))
if method != "none":
    ui.explain(
        _("Dashed lines: the same base after the chosen scaling, judged against the extended "
          "context s·L = {extended}. Linear interpolation slows every pair by s; NTK, YaRN and "
          "Llama 3.1 keep the fast pairs (local order) and slow mainly the slow ones, which are "
          "the pairs that would otherwise see angles never met in training.").format(
              extended=i18n.integer(context * factor)))
    if method == "dynamic":
        st.caption(_(
            "Dynamic NTK is drawn at n = s·L with transformers' `factor` = 1: α = n/L = s, "
            "the dynamic scaling of YaRN's paper, so it is compared with the others at the same "
            "s. transformers computes α = f·n/L − (f − 1); setting its `factor` f to s instead "
            "gives α = s² − s + 1 at s·L ({alpha} here), and the slowest pair turns 1/{alpha} "
            "as fast, not 1/{factor}.").format(alpha=f"{factor * factor - factor + 1:g}",
                                               factor=factor))

tag = "" if method == "none" else f"_{method}x{factor}"
ui.download(
    theta_tables, s.dim, bases, context, method, factor, s.device,
    filename=f"theta_dim{s.dim}_base{'-'.join(ui.slug(b) for b in bases)}_L{context}{tag}.csv",
    label=_("frequency table"), key="frequencies")
