"""Long context: angles never seen in training, the critical dimension, and the base bound."""

import streamlit as st

import rope_core as rc
import rope_core.limits.breaks as br
import ui
from ui import i18n
from ui.i18n import _
from views.long_context import (
    METHODS,
    bm_figure,
    bm_table,
    bound,
    cos_sum_notes,
    first_negative,
    island_figure,
    island_notes,
    island_table,
    listing,
    liu_check,
    liu_summary,
    liu_table,
    men_table,
    method_label,
    ood_columns,
    ood_figure,
    ood_table,
    preset_bounds,
    preset_table,
    published_fit,
    source,
    tokens,
    unseen_notes,
    wavelength_figure,
    whole,
)

TRAIN_OPTIONS = [2**e for e in range(9, 18)]  # 512 ... 131,072 tokens
FACTOR_OPTIONS = [1, 2, 4, 8, 16, 32, 64]
BMAX_OPTIONS = [2**e for e in range(10, 21, 2)]  # 1,024 ... 1,048,576 tokens
SEARCH_DIMS = br.tabulated_dims()  # head dims whose base search is precomputed
MEN_DIM = 128  # Men et al.'s models


@st.fragment
def unseen_angles(s) -> None:
    """Section 1: its own sliders rerun only this section."""
    c1, c2, c3, c4 = st.columns(4)
    train = ui.select_slider(_("Training context L [tokens]"), TRAIN_OPTIONS, 4096, "lc_train",
                             container=c1, fmt=str)
    factor = ui.select_slider(_("Extension factor s"), FACTOR_OPTIONS, 8, "lc_factor",
                              container=c2, fmt=str)
    method = ui.choice(_("Scaling method"), METHODS, "yarn", "lc_method", container=c3,
                       fmt=lambda m: m, horizontal=False,
                       captions=[method_label(m) for m in METHODS],
                       help=_("From the app's scaling registry (LongRoPE needs per-pair "
                              "searched factors and is left out)."))
    new_base = ui.select_slider(
        _("Base after tuning (Liu et al.)"), ui.BASE_OPTIONS, 1_000_000, "lc_newbase",
        container=c4, fmt=str,
        help=_("Liu et al.'s T_extra = 2π·β^(d_extra/d) holds for a model fine-tuned with a "
               "base β larger than its training base; d_extra was set in pre-training."))

    with ui.friendly_errors():
        ood_columns(s.dim, s.base, train, factor, method)
        liu = liu_summary(s.dim, s.base, train, float(new_base))
        liu_table()

    left, right = st.columns(2)
    with left:
        ui.show(ood_figure(s.dim, s.base, train, factor, method), key="lc_ood_plot",
                alt=_("Line chart, log scale: the largest angle each pair reaches in training "
                      "(L·θᵢ) and at the longer context s·L, without scaling and with the chosen "
                      "method, against the pair index i; crosses mark the pairs whose angles at s·L"
                      " were never seen in training."), table=_("angle table"))
    with right:
        ui.show(wavelength_figure(s.dim, s.base, train, factor, method, new_base),
                key="lc_wl_plot",
                alt=_("Line chart, log scale: each pair's wavelength 2π/θᵢ against the pair index "
                      "i, with the training length as a horizontal line; the critical dimension is "
                      "where the wavelengths pass that length."), table=_("angle table"))

    limits = ui.row()
    limits.metric(_("Critical dimension d_extra"), f"{liu['critical_dimension']}",
                  help=_("2·⌈(d/2)·log_base(L/2π)⌉, clipped to [0, d]"))
    limits.metric(_("2π·base^(d_extra/d) at the training base {base}").format(
        base=ui.fmt_base(s.base)), tokens(liu["limit_at_base"]),
        help=_("The formula at the training base itself: the period of pair d_extra/2, the "
               "first pair that never completes a turn in training (2π·base when every pair "
               "does). Liu et al. state it as an extrapolation bound only after fine-tuning "
               "with a larger base."))
    if liu["limit_at_new_base"] is not None:
        limits.metric(_("Limit after fine-tuning with base {base}").format(
            base=ui.fmt_base(new_base)), tokens(liu["limit_at_new_base"]))
    else:
        limits.metric(_("Limit after fine-tuning with base {base}").format(
            base=ui.fmt_base(new_base)), _("not given"))
    notes, dynamic = unseen_notes(s.dim, s.base, train, factor, method, new_base)
    ui.paragraphs(*notes)
    with st.expander(_("Dynamic NTK with transformers' `factor` set to s")):
        st.markdown(dynamic)
    st.caption(_("Source: {citation}. They report the critical dimension {critical} for "
                 "{model} (d = 128, base 10⁴, L = 4096); the app computes it from the "
                 "formula:").format(
        citation=source(br.LIU_2023), critical=br.LIU_2023["critical_dimension"],
        model=br.LIU_2023["model"]))
    liu_shown, liu_verdict = liu_check()
    st.dataframe(liu_shown, hide_index=True)
    st.caption(liu_verdict)
    ui.download(ood_table, s.dim, s.base, train, factor, method,
                filename=f"long_context_angles_dim{s.dim}_base{ui.slug(s.base)}_L{train}_"
                         f"s{factor}_{method}.csv", label=_("angle table"), key="lc_ood")


@st.fragment
def cos_sum_section(s) -> None:
    """Section 2, B_m against distance: its own slider reruns only this part."""
    bmax = ui.select_slider(_("Largest distance m [tokens]"), BMAX_OPTIONS, 16384, "lc_bmax",
                            fmt=str)
    with ui.friendly_errors():
        bm_table(s.dim, s.base, bmax)
        first_negative(s.dim, s.base, bmax)
    ui.show(bm_figure(s.dim, s.base, bmax), key="lc_bm_plot",
            alt=_("Line chart: B_m, the sum of cos(m·θᵢ) over the pairs, against the distance m, "
                  "with its first negative value marked."), table=_("B_m curve"))
    ui.explain(*cos_sum_notes(s.dim, s.base, bmax))
    ui.download(bm_table, s.dim, s.base, bmax,
                filename=f"long_context_bm_dim{s.dim}_base{ui.slug(s.base)}_max{bmax}.csv",
                label=_("B_m curve"), key="lc_bm")


@st.fragment
def smallest_base_section(s) -> None:
    """Section 2, the smallest base for a context: its own controls rerun only this part."""
    st.subheader(_("The smallest base for a context"))
    dims = list(SEARCH_DIMS)
    c1, c2 = st.columns(2)
    dim = ui.choice(_("Head dim d for the search"), dims, s.dim if s.dim in dims else MEN_DIM,
                    "lc_sdim", container=c1, fmt=str)
    contexts = list(br.tabulated_contexts(dim))
    target = ui.select_slider(_("Target context L [tokens]"), contexts,
                              4096 if 4096 in contexts else contexts[0], "lc_target",
                              container=c2, fmt=str)
    st.caption(_("The search checks thousands of bases at every m < L, seconds to minutes per "
                 "setting, so it is computed ahead, by a script in the repository, for d = {dims} "
                 "and the contexts offered; the sidebar's d = {dim} is {status}.").format(
        dims=listing(str(d) for d in dims), dim=s.dim,
        status=_("among them") if s.dim in dims else _("not among them")))
    with ui.friendly_errors():
        r = bound(dim, target)
    if r["smallest"] is None:
        ui.warning(_("No base up to 10^15 keeps B_m ≥ 0 for every m < {length} at "
                     "d = {dim}.").format(length=i18n.integer(target), dim=dim))
        return
    fit = br.men_fit_base(target)
    bases = ui.row()
    bases.metric(_("Smallest base for L = {length} (app, d = {dim})").format(
        length=i18n.integer(target), dim=dim), whole(r["smallest"]))
    bases.metric(_("Every grid base passes from"), whole(r["threshold"]),
                 help=_("Every base of the grid 1.001^k from here on passes; every base at all "
                        "from {certified} on.").format(certified=whole(r["certified_above"])))
    bases.metric(_("Men et al. fit 0.0424·L^1.628"), whole(fit),
                 help=_("Ratio app / fit: {ratio}").format(ratio=f"{r['smallest'] / fit:.2f}"))
    ui.show(island_figure(dim, target), key="lc_scan_plot",
            alt=_("Step chart against the base (log scale): 1 where the base keeps B_m ≥ 0 for "
                  "every distance below the context L, 0 where it fails; the passing bases form "
                  "islands, and the smallest passing base and the threshold are marked."),
            table=_("island table"))
    narrow, how = island_notes(dim, target)
    st.markdown(narrow)
    with st.expander(_("How the smallest base is found")):
        st.markdown(how)
    ui.download(island_table, dim, target,
                filename=f"long_context_islands_dim{dim}_L{target}.csv",
                label=_("island table"), key="lc_scan")


s = ui.settings()
ui.intro(
    _("Long context: where RoPE breaks"),
    _("A model trained on L tokens has seen each pair's angle m·θᵢ only for m < L. Run it at "
      "s·L tokens and the slow pairs, the ones that never completed a turn in training, meet "
      "angles they never saw. Context-extension methods shrink θᵢ to bring those angles back; "
      "section 1 counts the pairs each method still leaves outside."),
    _("Section 2 adds a second, independent criterion: Men et al. ask that "
      "B_m = Σᵢ cos(m·θᵢ) stay ≥ 0 over the context (a condition on an expectation, not a "
      "hard limit), which needs a base large enough for the context."))
with st.expander(_("Which methods bring every angle back, and which L dynamic NTK reads")):
    st.markdown(_(
        "Some methods bring s·L·θ'ᵢ back inside what training covered for every pair; static "
        "NTK-aware scaling does not (YaRN's paper, §3.1), nor does dynamic NTK with "
        "transformers' `factor` f = 1, whose spectrum at s·L is the static one (with f = s it "
        "reaches further). Here L is the training length; transformers' dynamic NTK takes its "
        "L from `max_position_embeddings`, the length a config is set for ({llama}: "
        "{configured} tokens, its scaling's L {original}), so on such a config it changes "
        "nothing before that length.").format(
            llama="Llama 3.1 8B", configured=i18n.integer(rc.PRESETS["Llama 3.1 8B"].max_context),
            original=i18n.integer(rc.PRESETS["Llama 3.1 8B"].original_context)))
ui.terms("l_train", "extrapolation", "critical", "b_m", "base_bound", "factor", "ntk", "yarn",
         "window")

st.header(_("1. Angles never seen in training"))
unseen_angles(s)

st.header(_("2. The base bounds the context"))
# The condition is one phrase (math inside it between $): no LaTeX braces in the message.
st.latex(r"B_m = \sum_{i=0}^{d/2-1} \cos(m\,\theta_i),\qquad \allowbreak \text{"
         + _(r"need $B_m \ge 0$ for every $m < L$") + "}")
ui.paragraphs(
    _("Men et al.'s Theorem 1: if the components of q and k are independent and identically "
      "distributed with variance σ², a key similar to the query, k* = q + ε (ε random with "
      "mean 0), scores at least as high as a random key at distance m, in expectation, exactly "
      "when B_m ≥ 0."),
    _("The two expected scores differ by 2σ²·B_m (B_m is also half the score of q = k = all "
      "ones). It is a condition on an expectation, not a hard limit: the paper notes that the "
      "boundary is not strict, since layers stack."))
cos_sum_section(s)
smallest_base_section(s)

st.subheader(_("Published fit beside the app"))
st.caption(_("Source: {citation}. Their Figure 1 fits the lower bound of the base as "
             "0.0424·L^1.628. The paper's per-length table values could not be verified "
             "here, so only the published fit is compared. Their models have d = 128.").format(
    citation=source(br.MEN_2024)))
men_contexts = br.tabulated_contexts(MEN_DIM)
with ui.friendly_errors():
    men_shown, men_notes = published_fit(MEN_DIM, men_contexts)
st.dataframe(men_shown, hide_index=True)
ui.explain(*men_notes)
ui.download(men_table, MEN_DIM, men_contexts, filename="long_context_men_fit_dim128.csv",
            label=_("fit comparison"), key="lc_men_csv")

st.subheader(_("Real models: does the base carry the context?"))
presets_shown, preset_verdicts, preset_notes = preset_bounds()
st.dataframe(presets_shown, hide_index=True)
ui.explain(*preset_verdicts)
with st.expander(_("Which rows fail, and how the rows are checked")):
    ui.bullets(preset_notes)
ui.download(preset_table, filename="long_context_presets.csv", label=_("preset table"),
            key="lc_presets")
