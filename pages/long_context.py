"""Long context: angles never seen in training, the critical dimension, and the base bound."""

import pandas as pd
import pyarrow as pa
import streamlit as st

import rope_core as rc
import rope_core.limits.breaks as br
import ui
from rope_core.limits import compare
from ui import constants, i18n
from ui.i18n import _, ngettext
from ui.layers import group_label
from views.long_context import (
    TWO_PI,
    bm_figure,
    bm_table,
    bound,
    first_negative,
    island_figure,
    liu_summary,
    method_label,
    ood_columns,
    ood_figure,
    ood_table,
    wavelength_figure,
    whole,
)

TRAIN_OPTIONS = [2**e for e in range(9, 18)]  # 512 ... 131,072 tokens
FACTOR_OPTIONS = [1, 2, 4, 8, 16, 32, 64]
METHODS = [m for m in br.OOD_METHODS if m != "none"]
BMAX_OPTIONS = [2**e for e in range(10, 21, 2)]  # 1,024 ... 1,048,576 tokens
SEARCH_DIMS = br.tabulated_dims()  # head dims whose base search is precomputed
MEN_DIM = 128  # Men et al.'s models


@ui.table
def unseen_counts(dim: int, base: float, train: int, factor: int) -> dict:
    """Pairs left outside what training covered, per method (every method at once; dynamic
    NTK with transformers' factor f = 1), and under key "dynamic f = s" dynamic NTK with
    f = s."""
    counts = br.ood_unseen_counts(dim, base, train, float(factor), br.OOD_METHODS)
    counts["dynamic f = s"] = br.ood_unseen_counts(dim, base, train, float(factor),
                                                   ("dynamic",), float(factor))["dynamic"]
    return counts


@ui.table
def liu_table() -> pd.DataFrame:
    return constants.liu_comparison()  # once per process (ui.constants)


@ui.table
def island_table(dim: int, context: int) -> pd.DataFrame:
    return br.island_table(dim, context)


@ui.table
def men_table(dim: int, contexts: tuple) -> pd.DataFrame:
    return br.base_bound_table(dim, contexts)


@ui.table
def preset_table() -> pd.DataFrame:
    return constants.preset_bounds()  # once per process (ui.constants)


@ui.table
def windowed_rows() -> pd.DataFrame:
    """The rows of :func:`preset_table` whose layers see only a sliding window or an
    attention chunk (LayerSpec.windowed: a compressed layer's raw window does not count,
    its compressed keys cover the whole context)."""
    presets = preset_table()
    windowed = {(name, group) for name in dict.fromkeys(presets["preset"])
                for group, g in compare.rotating_groups(rc.PRESETS[name]) if g.spec.windowed}
    return presets[[row in windowed for row in zip(presets["preset"], presets["group"])]]


def tokens(x: float) -> str:
    n = round(x)
    return ngettext("{n} token", "{n} tokens", n).format(n=i18n.integer(n))


def listing(items) -> str:
    """Items joined for a sentence ("a, b" / "a、b")."""
    # Translators: the separator between the items of a list ("1,024, 4,096"); Chinese "、".
    return _(", ").join(items)


def source(paper: dict) -> str:
    """A paper's citation from breaks, translated (marked there for the catalog)."""
    citation = paper["citation"]
    return _(citation)


def kept_inside(dim: int, base: float, train: int, factor: int) -> str:
    """Which methods keep every pair inside what training covered, at these settings."""
    counts = unseen_counts(dim, base, train, factor)
    inside = [method_label(m) for m in METHODS if counts[m] == 0]
    outside = [f"{method_label(m)} ({counts[m]})" for m in METHODS if counts[m] > 0]
    if not outside:
        verdict = _("At these settings every method keeps every pair inside.")
    elif not inside:
        verdict = _("At these settings no method keeps every pair inside; pairs left outside: "
                    "{outside}.").format(outside=listing(outside))
    else:
        verdict = _("At these settings {inside} keep every pair inside; {outside} leave pairs "
                    "outside (count in brackets).").format(inside=listing(inside),
                                                           outside=listing(outside))
    # dynamic NTK with transformers' factor set to s: α = s² − s + 1 at s·L
    dynamic = ngettext(
        "Dynamic NTK runs here with transformers' `factor` f = 1 (α = n/L, YaRN's "
        "definition); with f = s = {s}, α reaches s² − s + 1 = {alpha} at s·L and {n} pair "
        "stays outside.",
        "Dynamic NTK runs here with transformers' `factor` f = 1 (α = n/L, YaRN's "
        "definition); with f = s = {s}, α reaches s² − s + 1 = {alpha} at s·L and {n} pairs "
        "stay outside.", counts["dynamic f = s"]).format(
        s=factor, alpha=factor * factor - factor + 1, n=counts["dynamic f = s"])
    return verdict + (" " if i18n.lang() != "zh" else "") + dynamic


@ui.prose
def liu_check() -> tuple[pa.Table, str]:
    """Liu et al.'s critical dimension beside the app's (liu_table) as shown, its columns
    named in the run's language, and the verdict under it: written once per language, not
    on every run."""
    liu_cmp = liu_table()
    row = liu_cmp.iloc[0]
    shown = liu_cmp.rename(columns={
        "model": _("model"), "base": _("base"),
        "train context L [tokens]": _("train context L [tokens]"),
        "paper critical dimension": _("paper critical dimension"),
        "app critical dimension": _("app critical dimension"), "difference": _("difference"),
        "matches": _("matches")})
    if row["matches"]:
        verdict = _("Paper {paper}, app {app}: agrees.").format(
            paper=row["paper critical dimension"], app=row["app critical dimension"])
    else:
        verdict = _("Paper {paper}, app {app}: DIFFERS by {difference}.").format(
            paper=row["paper critical dimension"], app=row["app critical dimension"],
            difference=row["difference"])
    return ui.arrow(shown), verdict


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
        plain_rows, scaled_rows = ood_columns(s.dim, s.base, train, factor, method)
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
    n_plain = int(plain_rows["unseen"].sum())
    n_scaled = int(scaled_rows["unseen"].sum())
    turned = int((plain_rows["train max angle [rad]"] >= TWO_PI).sum())
    if liu["new_base_case"] == "larger":
        liu_text = _("Liu et al.'s bound: after fine-tuning with a base β larger than the "
                     "training base, a model whose critical dimension d_extra was set in "
                     "pre-training extrapolates to 2π·β^(d_extra/d): {at_new_base} with "
                     "β = {new_base}. At the training base the same expression is {at_base}, "
                     "the period of the critical pair, not a bound they state.").format(
            at_base=tokens(liu["limit_at_base"]), at_new_base=tokens(liu["limit_at_new_base"]),
            new_base=ui.fmt_base(new_base))
    elif liu["new_base_case"] == "same":
        liu_text = _("Liu et al.'s bound 2π·β^(d_extra/d) is for fine-tuning with a base β "
                     "larger than the training base; at the training base the expression is "
                     "{at_base}, the period of the critical pair, not a bound they state. "
                     "Choose a larger base after tuning to see their bound.").format(
            at_base=tokens(liu["limit_at_base"]))
    else:
        liu_text = _("Liu et al.'s bound 2π·β^(d_extra/d) is for fine-tuning with a base β "
                     "larger than the training base. For a smaller base, such as {new_base}, "
                     "they report the opposite: fine-tuned with base 500, every pair completes "
                     "a period within the tuning length and the model extrapolates better, so no "
                     "limit is given.").format(
            new_base=ui.fmt_base(new_base))
    ui.explain(
        ngettext("**What to notice.** With d = {dim}, base {base} and L = {length}, {n} of "
                 "{pairs} pairs completes at least one turn in training (its angles cover "
                 "every value mod 2π); the critical dimension is d_extra = {critical} (pair "
                 "{pair} is the boundary).",
                 "**What to notice.** With d = {dim}, base {base} and L = {length}, {n} of "
                 "{pairs} pairs complete at least one turn in training (their angles cover "
                 "every value mod 2π); the critical dimension is d_extra = {critical} (pair "
                 "{pair} is the boundary).", turned).format(
            dim=s.dim, base=ui.fmt_base(s.base), length=i18n.integer(train), n=turned,
            pairs=s.dim // 2, critical=liu["critical_dimension"], pair=liu["critical_pair"]),
        ngettext("Running at s·L = {length} tokens without scaling pushes {n} pair past "
                 "anything it saw (marked ×); with {method} the count is {scaled}.",
                 "Running at s·L = {length} tokens without scaling pushes {n} pairs past "
                 "anything they saw (marked ×); with {method} the count is {scaled}.",
                 n_plain).format(
            length=i18n.integer(factor * train), n=n_plain, method=method_label(method),
            scaled=n_scaled),
        kept_inside(s.dim, s.base, train, factor),
        liu_text)
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


@ui.prose
def cos_sum_notes(dim: int, base: float, bmax: int) -> tuple[str, ...]:
    """The sentences under B_m: where it starts, where it first turns negative and how
    densely the curve is sampled, once per setting and language."""
    bm = bm_table(dim, base, bmax)
    neg = first_negative(dim, base, bmax)
    start = f"{bm['B_m'].iloc[0]:.0f}"
    if neg is not None:
        where = _("**B_m starts at d/2 = {start}** and, for base {base}, first turns negative "
                  "at m = {m} (found exactly, integer by integer).").format(
            start=start, base=ui.fmt_base(base), m=i18n.integer(neg))
    else:
        where = _("**B_m starts at d/2 = {start}** and, for base {base}, stays ≥ 0 for every "
                  "m up to {most} (found exactly, integer by integer).").format(
            start=start, base=ui.fmt_base(base), most=i18n.integer(bmax))
    sampled = ""
    if len(bm) < bmax + 1:
        sampled = _("The curve is sampled at {n} distances; the crossing is exact.").format(
            n=i18n.integer(len(bm)))
    return tuple(t for t in (where, sampled) if t)


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


@ui.prose
def island_notes(dim: int, target: int) -> tuple[str, str]:
    """The sentences under the islands: how many there are and the narrowest, and how the
    search finds them, once per setting and language (a base was found: bound's
    "smallest" is not None)."""
    r = bound(dim, target)
    isl = island_table(dim, target)
    n = len(isl)
    if n:
        narrowest = isl.loc[isl["width below [%]"].idxmin()]
        k = int(narrowest["grid bases"])
        narrow = ngettext(
            "**The passing set is not an interval.** Between the smallest base {small} and the "
            "threshold {top} lie {n} passing islands with failing bases between them, the "
            "narrowest under {width}% wide ({k} grid base): a bigger base is not "
            "automatically safe.",
            "**The passing set is not an interval.** Between the smallest base {small} and the "
            "threshold {top} lie {n} passing islands with failing bases between them, the "
            "narrowest under {width}% wide ({k} grid bases): a bigger base is not "
            "automatically safe.", k).format(
            small=whole(r["smallest"]), top=whole(r["threshold"]), n=n,
            width=f"{narrowest['width below [%]']:.1f}", k=k)
    else:
        narrow = _("Here the passing set is one interval: every base from {small} on "
                   "passes.").format(small=whole(r["smallest"]))
    how = _("How it is found: every base below {proven} fails, proven by a bound on how fast "
            "B_m can change with the base; from there every base of the grid 1.001^k is "
            "checked at every m < L, so the smallest base shown is the smallest passing base "
            "of that grid, 0.1% apart; an island narrower than that, between two grid bases, "
            "could be missed, and the true smallest base would then be lower. Above the "
            "threshold every grid base passes, and from {certified} on a simple sufficient "
            "condition proves that every base does.").format(
        proven=whole(r["proven_below"]), certified=whole(r["certified_above"]))
    return narrow, how


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
    ui.explain(*island_notes(dim, target))
    ui.download(island_table, dim, target,
                filename=f"long_context_islands_dim{dim}_L{target}.csv",
                label=_("island table"), key="lc_scan")


@ui.prose
def published_fit(dim: int, contexts: tuple) -> tuple[pa.Table, tuple[str, ...]]:
    """The fit comparison (men_table) as shown, its columns named in the run's language,
    and the sentences under it: written once per language, not on every run."""
    men = men_table(dim, contexts)
    far = men[(men["ratio app/fit"] < 0.5) | (men["ratio app/fit"] > 2)]
    shown = men.rename(columns={
        "dim": _("head dim"), "context L [tokens]": _("context L [tokens]"),
        "app min base": _("app min base"),
        "app threshold base": _("app threshold base"),
        "paper fit base": _("paper fit base"), "ratio app/fit": _("ratio app/fit")})
    ratios = _("App / fit ratios range from {low} to {high}.").format(
        low=f"{men['ratio app/fit'].min():.2f}", high=f"{men['ratio app/fit'].max():.2f}")
    if len(far):
        differ = ngettext(
            "{n} context differs by more than a factor 2 (flagged: {contexts}).",
            "{n} contexts differ by more than a factor 2 (flagged: {contexts}).",
            len(far)).format(n=len(far), contexts=listing(
                i18n.integer(int(L)) for L in far["context L [tokens]"]))
    else:
        differ = _("None differs by more than a factor 2.")
    return ui.arrow(shown), (ratios, differ,
                   _("A fit through a few points is not the exact bound; the app's smallest "
                     "bases are the smallest passing bases of the grid 1.001^k (0.1% apart; an "
                     "island narrower than that could be missed)."))


@ui.prose
def preset_bounds() -> tuple[pa.Table, tuple[str, ...], tuple[str, ...]]:
    """The preset table as shown (layer groups named for people, columns in the run's
    language), the verdict under it and the notes after it: written once per language,
    not on every run."""
    presets = preset_table()
    # the layer groups named for people (English in the CSV, as rope_core names them)
    shown = presets.assign(group=[group_label(g) for g in presets["group"]]).rename(columns={
        "preset": _("preset"), "group": _("layers"), "layers": _("how many"),
        "rotary dim": _("rotary dim"), "base": _("base"), "method": _("method"),
        "context L [tokens]": _("distances they meet [tokens]"),
        "B_0": _("B₀ = d/2"), "min B_m": _("lowest B_m"),
        "negative distances": _("distances with B_m < 0"),
        "passes": _("passes"), "first negative distance [tokens]":
            _("first negative distance [tokens]"), "head dim": _("head dim"),
        "whole-head B_0": _("whole head: B₀"), "whole-head min B_m": _("whole head: lowest B_m"),
        "whole-head passes": _("whole head: passes")})
    fails = presets[~presets["passes"]]
    scope = _("Each preset's rotating layers, group by group, with the spectrum they use (their "
              "scaling included) over the distances they meet: their sliding window or attention "
              "chunk, else the maximum context.")
    if len(fails):
        preset_verdict = ngettext(
            "{scope} {n} of {rows} rows has some B_m < 0 inside that range ({presets}).",
            "{scope} {n} of {rows} rows have some B_m < 0 inside that range ({presets}).",
            len(fails)).format(scope=scope, n=len(fails), rows=len(presets),
                               presets=listing(dict.fromkeys(fails["preset"])))
        mild = fails.loc[fails["negative distances"].idxmin()]
        depth = _("How deep and how often matters: {preset}'s B_m dips to {low} against "
                  "B₀ = {b0} on {n} of {length} distances.").format(
            preset=mild["preset"], low=f"{mild['min B_m']:.2f}", b0=f"{mild['B_0']:.0f}",
            n=i18n.integer(int(mild["negative distances"])),
            length=i18n.integer(int(mild["context L [tokens]"])))
    else:
        preset_verdict = _("{scope} 0 of {rows} rows have some B_m < 0 inside that range.").format(
            scope=scope, rows=len(presets))
        depth = ""
    rescued = presets[~presets["passes"] & presets["whole-head passes"]]
    windowed = windowed_rows()
    windows = listing(_("{preset} ({n})").format(preset=row["preset"],
                                                  n=i18n.integer(int(row["context L [tokens]"])))
                      for _i, row in windowed.drop_duplicates("preset").iterrows())
    notes = (
        _("Layers with a window are checked over their window only, since no longer distance "
          "reaches them: {windows}. A model's other layers are checked over the whole context "
          "with their own spectrum: Gemma 3's global layers with their linear ×8 scaling, "
          "Llama 3.1 8B's with its llama3 spectrum at its maximum context.").format(
            windows=windows) if len(windowed) else "",
        _("A row with a shallow dip on a few distances is where Men et al.'s expectation "
          "argument says a similar token is, on average, barely worse placed than a random "
          "one, not a hard failure."),
        _("The B_m columns sum over the rotated pairs only. Men et al.'s theorem treats every "
          "component of the head alike, and a pass-through pair of a partial rotation (θ = 0) "
          "adds cos 0 = 1 at every distance, so the whole head's B_m is the rotated pairs' "
          "plus (head dim − rotary dim)/2: the last three columns. Fail over the rotated pairs "
          "but pass over the whole head: {presets}.").format(
            presets=listing(dict.fromkeys(rescued["preset"]))) if len(rescued) else "")
    return ui.arrow(shown), tuple(t for t in (preset_verdict, depth) if t), notes


s = ui.settings()
st.title(_("Long context: where RoPE breaks"))
st.markdown(_(
    "A model trained on L tokens has seen each pair's angle m·θᵢ only for m < L. Run it at "
    "s·L tokens and the slow pairs, the ones that never completed a turn in training, meet "
    "angles they never saw. Context-extension methods shrink θᵢ; some bring s·L·θ'ᵢ back "
    "inside what training covered for every pair, static NTK-aware scaling does not (YaRN's "
    "paper, §3.1), nor does dynamic NTK with transformers' `factor` f = 1, whose spectrum "
    "at s·L is the static one (with f = s it reaches further), and section 1 counts the "
    "pairs left outside by each. Here L is the training length; transformers' dynamic NTK "
    "takes its L from `max_position_embeddings`, the length a config is set for ({llama}: "
    "{configured} tokens, its scaling's L {original}), so on such a config it changes "
    "nothing before that length. A second, independent criterion: Men "
    "et al. ask that B_m = Σᵢ cos(m·θᵢ) stay ≥ 0 over the context (a condition on an "
    "expectation, not a hard limit), which needs a base large enough for the context.").format(
    llama="Llama 3.1 8B", configured=i18n.integer(rc.PRESETS["Llama 3.1 8B"].max_context),
    original=i18n.integer(rc.PRESETS["Llama 3.1 8B"].original_context)))

st.header(_("1. Angles never seen in training"))
unseen_angles(s)

st.header(_("2. The base bounds the context"))
# The condition is one phrase (math inside it between $): no LaTeX braces in the message.
st.latex(r"B_m = \sum_{i=0}^{d/2-1} \cos(m\,\theta_i),\qquad \allowbreak \text{"
         + _(r"need $B_m \ge 0$ for every $m < L$") + "}")
st.markdown(_(
    "Men et al.'s Theorem 1: if the components of q and k are independent and identically "
    "distributed with variance σ², a key similar to the query, k* = q + ε (ε random with mean "
    "0), scores at least as high as a random key at distance m, in expectation, exactly when "
    "B_m ≥ 0: the two expected scores differ by 2σ²·B_m (B_m is also half the score of "
    "q = k = all ones). It is a condition on an expectation, not a hard limit: the paper notes "
    "that the boundary is not strict, since layers stack."))
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
ui.bullets(preset_notes)
ui.download(preset_table, filename="long_context_presets.csv", label=_("preset table"),
            key="lc_presets")
