"""Sinusoidal: the original Transformer's additive table, its dot products, and
how accurately the two usual ways of writing its frequencies are computed."""

import math

import streamlit as st

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _
from views.sinusoidal import (
    dot_figure,
    dot_summary,
    dot_table,
    forms_figure,
    forms_metrics,
    forms_notes,
    forms_summary,
    forms_table,
    pe_figure,
    pe_table,
    similarity_figure,
    similarity_table,
)

DMODEL_OPTIONS = list(range(2, 513, 2))
MAX_TABLE_CELLS = 2**17  # P x d_model numbers at most: 7 columns each stays in one CSV
MAX_SIMILARITY = 128  # positions 0 ... 127 at most in the PE_m . PE_n heatmap
REFERENCE_DIGITS = rc.rotary.sinusoidal.REFERENCE_DIGITS


s = ui.settings()
ui.intro(
    _("Sinusoidal position encoding"),
    _("Before RoPE, the Transformer *added* a fixed table PE to the token embeddings. Row p "
      "of the table is a vector of d_model numbers: pairs of sines and cosines of p·ωᵢ, with "
      "the same geometric frequencies that RoPE uses to rotate q and k."))
ui.formulas(
    r"PE_{p,\,2i} = \sin(p\,\omega_i),\qquad PE_{p,\,2i+1} = \cos(p\,\omega_i)",
    # Translators: LaTeX formulas; translate only the words inside \text{…}.
    _(r"\omega_i = \text{base}^{-2i/d_{\text{model}}},\quad i = 0,\dots,"
      r"\tfrac{d_{\text{model}}}{2}-1"),
    _(r"PE_m \cdot PE_n = \sum_{i=0}^{d_{\text{model}}/2-1} "
      r"\big(\sin m\omega_i \sin n\omega_i + \cos m\omega_i \cos n\omega_i\big)"
      r" = \sum_{i=0}^{d_{\text{model}}/2-1} \cos\big((m-n)\,\omega_i\big)"))
ui.terms("sinusoidal", "token", "position", "wavelength", "rope")

c1, c2 = st.columns(2)
positions = ui.slider(_("Positions P [tokens]"), 16, 4096, 512, "sin_positions", step=16,
                      container=c1, help=_("Rows 0 … P−1 of the table."))
d_model = ui.select_slider(_("Model width d_model"), DMODEL_OPTIONS, 128, "sin_dmodel",
                           container=c2, allowed=_("an even integer from 2 to 512"),
                           help=_("Its own setting: the sidebar's head dim is for RoPE."))
base_txt = ui.slug(s.base)
if positions * d_model > MAX_TABLE_CELLS:
    requested, positions = positions, MAX_TABLE_CELLS // d_model
    st.info(_("P × d_model is limited to {cells} numbers, so that the CSV of the full table "
              "stays quick to write: with d_model = {d_model} this page uses the first "
              "**{positions}** of the {requested} positions asked for.").format(
                cells=i18n.integer(MAX_TABLE_CELLS), d_model=d_model,
                positions=i18n.integer(positions), requested=i18n.integer(requested)),
            icon=":material/info:")

# ------------------------------------------------------------ (a) table ----
st.header(_("The table"))
with ui.friendly_errors():
    table = pe_table(positions, d_model, s.base, s.device)
ui.show(pe_figure(positions, d_model, s.base, s.device), key="sin_pe_heatmap",
        alt=_("Heatmap of the sinusoidal table: one row per position p, one column per dimension j "
              "(even: sin, odd: cos), values from −1 to 1; the first columns change fast from row "
              "to row, the last ones slowly."), table=_("sinusoidal table"))
st.caption(_("Every one of the {positions} positions is a row of the heatmap. The figure "
             "carries 100·PE rounded to a whole number (two decimals); the CSV holds all "
             "{positions} rows × {d_model} dimensions at full float64 precision.").format(
    positions=i18n.integer(positions), d_model=d_model))
longest = float(rc.wavelength(rc.theta(d_model, s.base))[-1])
ui.explain(_(
    "Each pair of columns (2i, 2i+1) is one frequency ωᵢ. On the left, pair 0 turns once "
    "every 2π ≈ {two_pi} positions: narrow stripes. Towards the right the waves slow down; "
    "the last pair needs {longest} positions for one turn, so over these {positions} rows "
    "it gets through only {fraction} of a turn.").format(
        two_pi=f"{2 * math.pi:.2f}", longest=i18n.number(longest, "#,##0"),
        fraction=f"{positions / longest:.3g}", positions=i18n.integer(positions)),
    _("Read a row like the digits of a clock: the fast columns tell neighbours apart, the "
      "slow ones tell far-apart positions apart."))
ui.download(pe_table, positions, d_model, s.base, s.device,
            filename=f"sinusoidal_pe_P{positions}_d{d_model}_base{base_txt}.csv",
            label=_("sinusoidal table"), key="sin_pe")

# ----------------------------------------------- (b), (c) dot products ----
st.header(_("Dot products of two rows"))
size = min(positions, MAX_SIMILARITY)
max_offset = positions - 1
with ui.friendly_errors():
    dot = dot_summary(size, max_offset, d_model, s.base, s.device)

left, right = st.columns(2)
with left:
    ui.show(similarity_figure(size, d_model, s.base, s.device), key="sin_similarity",
            alt=_("Heatmap: the dot product PE_m · PE_n of every pair of positions m (rows) and n "
                  "(columns); it is largest on the diagonal and depends on m − n only."),
            table=_("similarity table"))
with right:
    ui.show(dot_figure(max_offset, d_model, s.base, s.device), key="sin_dot_profile",
            alt=_("Line chart: the dot product PE_m · PE_n against the offset m − n; it is "
                  "symmetric about 0, where it is largest, and falls off with ripples."),
            table=_("dot-product profile"))

ui.explain(_(
    "A row is most like itself: at offset 0 every pair adds cos 0 = 1, so the dot product is "
    "d_model/2 = {peak}. One position away it is already down to {next}, and its lowest "
    "value, {smallest}, comes at offsets ±{offset}. It depends only on m − n (each diagonal "
    "of the heatmap is constant to within {spread}), and **it is symmetric**: a position 5 "
    "tokens before looks exactly like one 5 tokens after.").format(
        peak=f"{dot['peak']:g}", next=f"{dot['next']:.2f}",
        smallest=f"{dot['smallest']:.2f}", offset=dot["offset"], spread=f"{dot['spread']:.1e}"))
with st.expander(_("Before or after: does RoPE tell them apart?")):
    ui.explain(_(
        "Measured here: the largest |f(r) − f(−r)| is {asymmetry}, so these dot products "
        "alone cannot tell before from after.").format(asymmetry=f"{dot['asymmetry']:.1e}"),
        _("That is no advantage of RoPE by itself: with q = k its score "
          "Σᵢ|q₍ᵢ₎|²cos((n − m)θᵢ) is just as symmetric. Sine terms, which change sign with "
          "n − m, appear in qᵀR₍ₙ₋ₘ₎k only when q ≠ k (different W_q and W_k projections), "
          "and sinusoidal PE gets the same kind of terms through W_Q W_Kᵀ, which mixes the "
          "sin and cos columns of PE_m and PE_n."))
ui.download(similarity_table, size, d_model, s.base, s.device,
            filename=f"sinusoidal_similarity_P{size}_d{d_model}_base{base_txt}.csv",
            label=_("similarity table"), key="sin_similarity")
ui.download(dot_table, max_offset, d_model, s.base, s.device,
            filename=f"sinusoidal_dot_K{max_offset}_d{d_model}_base{base_txt}.csv",
            label=_("dot-product profile"), key="sin_dot")

# ------------------------------------------------- (d) frequency forms ----
st.header(_("base^(−2i/d) or exp(−(2i/d)·ln base)?"))
st.markdown(_(
    "Many implementations write the frequencies as an exponential (PyTorch's `div_term`), "
    "often with the claim that the power would overflow or underflow. Both are the same "
    "number, so here they are simply **measured**: each form computed entirely in float32 "
    "and in float64 for the sidebar's d = {dim} and base {base}, against a {digits}-digit "
    "decimal value of base^(−2i/d).").format(dim=s.dim, base=ui.fmt_base(s.base),
                                            digits=REFERENCE_DIGITS))
# Translators: a LaTeX formula; translate only the words inside \text{…}.
st.latex(_(r"\omega_i = \text{base}^{-2i/d} = "
           r"\exp\!\Big(-\tfrac{2i}{d}\,\ln\text{base}\Big)"))
with ui.friendly_errors():
    forms = forms_summary(s.dim, s.base)
ui.show(forms_figure(s.dim, s.base), key="sin_forms",
        alt=_("Line chart, log scale: the relative error of ωᵢ computed as a power and as an "
              "exponential, in float32 and in float64, against the pair index i."),
        table=_("frequency-form table"))
st.caption(_("{zeros} of {total} errors are exactly 0 (e.g. i = 0, where both forms give 1) "
             "and cannot be drawn on a log axis; the CSV lists them.").format(
    zeros=forms["zeros"], total=forms["errors"]))

st.markdown(_("**Largest relative error of each form**"))
metrics = ui.row()
for label, value, help_text in forms_metrics(s.dim, s.base):
    metrics.metric(label, value, help=help_text)
measured, verdict, ranges = forms_notes(s.dim, s.base)
ui.explain(*measured)
ui.explain(*verdict)
with st.expander(_("Could either form overflow or underflow?")):
    ui.explain(*ranges)
ui.download(forms_table, s.dim, s.base,
            filename=f"frequency_forms_d{s.dim}_base{base_txt}.csv",
            label=_("frequency-form table"), key="sin_forms")
