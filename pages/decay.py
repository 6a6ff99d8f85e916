"""Long-term decay: RoFormer's relative upper bound and actual scores against distance."""


import streamlit as st

import ui
from ui.i18n import _
from views.decay import (
    LINEAR_POINTS,
    bound_figure,
    bound_notes,
    bound_table,
    normalised_note,
    sampling_note,
    score_figure,
    score_notes,
    score_table,
)

MAX_OPTIONS = [64, 128, 256, 512, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
               200_000, 500_000, 1_000_000]
AXES = ["linear", "log"]
DIM_CHOICES = [2**e for e in range(1, 11)]  # 2 ... 1024
MAX_TRIALS = 256


s = ui.settings()
ui.intro(
    _("Long-term decay"),
    _("RoFormer argues that RoPE makes attention fade with distance. It writes the score of a "
      "query and a key r tokens apart as a sum over pairs of complex numbers hᵢ and, summing "
      "by parts, bounds it by two factors: a prefactor, the largest step maxᵢ|hᵢ₊₁ − hᵢ| "
      "between neighbouring pairs' products (with h_(d/2) = 0), and a curve that depends "
      "only on r, d and the base."),
    _("On the left, that curve; on the right, actual scores qᵀR_r k for two kinds of "
      "vectors."))
st.latex(r"q^{\top} R_r k = \operatorname{Re}\sum_{i=0}^{d/2-1} h_i\, e^{-\iota r\theta_i},"
         r"\qquad h_i = q_{[i]}\,\overline{k_{[i]}},\qquad "
         r"q_{[i]} = q_{a_i} + \iota\, q_{b_i},\quad \iota = \sqrt{-1}")
# Translators: a LaTeX formula; translate only the words inside \text{…}.
st.latex(_(r"\big|q^{\top} R_r k\big| \;\le\; \Big(\max_i \lvert h_{i+1}-h_i\rvert\Big)"
           r"\sum_{j=1}^{d/2} \lvert S_j\rvert,\qquad "
           r"S_j = \sum_{l=0}^{j-1} e^{\iota\,r\,\theta_l},\qquad h_{d/2} = 0,\qquad "
           r"\text{bound}(r) = \frac{1}{d/2}\sum_{j=1}^{d/2}\lvert S_j\rvert"))
st.caption(_("The key's pair is conjugated: hᵢ = q₍ᵢ₎·conj(k₍ᵢ₎), the product of pair i of q "
             "and pair i of k as complex numbers (RoFormer eq. 35). The prefactor depends on q "
             "and k, the curve bound(r) does not. At r = 0 every term is aligned, |S_j| = j, so "
             "bound(0) = (d/2 + 1)/2."))
ui.terms("decay", "bound", "score", "pair", "base", "head_dim", "wavelength")

c1, c2, c3 = st.columns(3)
max_distance = ui.select_slider(_("Largest distance r [tokens]"), MAX_OPTIONS, 256,
                                "decay_max", container=c1, fmt=str)
axis = ui.choice(_("Distance axis"), AXES, AXES[0], "decay_axis", container=c1,
                 captions=[_("evenly spaced distances from 0"),
                           _("log-spaced distances from 1")])
extra_bases = ui.multiselect(_("Overlay other bases (up to 3)"), ui.BASE_OPTIONS, [],
                             "decay_bases", max_selections=3, container=c2)
extra_dims = ui.multiselect(_("Overlay other head dims (up to 3)"), DIM_CHOICES, [],
                            "decay_dims", max_selections=3, container=c2)
trials = ui.slider(_("Random (q, k) pairs"), 1, MAX_TRIALS, 64, "decay_trials", container=c3)
seed = ui.number(_("Random seed"), 0, 2**31 - 1, 0, "decay_seed", container=c3)

curves = [(s.base, s.dim)] + [(float(b), s.dim) for b in extra_bases] + \
         [(s.base, int(d)) for d in extra_dims]
curves = tuple(dict.fromkeys(curves))  # keep order, drop repeats
with ui.friendly_errors():
    bound_table(curves, max_distance, axis, s.device)
    score_table(s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device)

left, right = st.columns(2)
with left:
    ui.show(bound_figure(curves, max_distance, axis, s.device), key="decay_bound_plot",
            alt=_("Line chart: RoFormer's relative upper bound of the score against the relative "
                  "distance r, one line per base and head dim chosen; it falls, with ripples, as r "
                  "grows."), table=_("bound table"))
with right:
    ui.show(score_figure(s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device),
            key="decay_score_plot",
            alt=_("Line chart: the actual score qᵀR_r k against the relative distance r, for q = k "
                  "= all ones and for random q and k (their mean, with a shaded band of ± one "
                  "standard deviation)."), table=_("score table"))

bound_said, other_curves, plateau = bound_notes(curves, max_distance, axis, s.device)
ui.explain(*bound_said, *normalised_note(curves))
ui.bullets(other_curves)
st.markdown(_("A larger base slows every pair but the first, so the phases stay aligned longer "
              "and the early decay is slower (compare bases at the same d; a larger d raises "
              "the whole curve)."))
with st.expander(_("Why the bound levels off instead of going to 0")):
    st.markdown(plateau)
score_args = (s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device)
ui.explain(*score_notes(*score_args))
st.markdown(_("The decay belongs to an upper bound and to vectors whose pairs point the same "
              "way; it is not a promise for every q and k."))
if axis == "linear" and max_distance >= LINEAR_POINTS:
    st.caption(sampling_note(*score_args))

extras = "".join([f"_bases{'-'.join(ui.slug(b) for b in extra_bases)}" if extra_bases else "",
                  f"_dims{'-'.join(str(d) for d in extra_dims)}" if extra_dims else ""])
tag = f"dim{s.dim}_base{ui.slug(s.base)}_max{max_distance}_{axis}"
ui.download(bound_table, curves, max_distance, axis, s.device,
            filename=f"decay_bound_{tag}{extras}.csv", label=_("bound table"),
            key="decay_bound")
ui.download(score_table, s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device,
            filename=f"decay_scores_{tag}_{s.layout}_trials{trials}_seed{seed}.csv",
            label=_("score table"), key="decay_scores")
