"""Long context: angles never seen in training, the critical dimension, and the base bound."""

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import rope_core.breaks as br
import ui
from ui import i18n
from ui.i18n import _, ngettext

TRAIN_OPTIONS = [2**e for e in range(9, 18)]  # 512 ... 131,072 tokens
FACTOR_OPTIONS = [1, 2, 4, 8, 16, 32, 64]
METHODS = [m for m in br.OOD_METHODS if m != "none"]
BMAX_OPTIONS = [2**e for e in range(10, 21, 2)]  # 1,024 ... 1,048,576 tokens
TARGET_OPTIONS = [2**e for e in range(10, 21)]  # 1,024 ... 1,048,576 tokens
MEN_CONTEXTS = (1024, 4096, 16384, 65536, 262144, 1048576)
TWO_PI = 2 * math.pi


@ui.table
def ood_table(dim: int, base: float, train: int, factor: int, method: str) -> pd.DataFrame:
    return br.ood_angle_table(dim, base, train, float(factor), ("none", method))


@ui.table
def liu_table() -> pd.DataFrame:
    return br.liu_comparison_table()


@ui.table
def liu_summary(dim: int, base: float, train: int, new_base: float) -> dict:
    """Liu et al.'s critical dimension and extrapolation limits (rope_core.breaks)."""
    return br.liu_summary(dim, base, train, new_base)


@ui.table
def bm_table(dim: int, base: float, max_distance: int) -> pd.DataFrame:
    return br.cos_sum_curve(dim, base, max_distance)


@ui.table
def first_negative(dim: int, base: float, max_distance: int):
    return rc.first_negative_distance(dim, base, max_distance)


@ui.table
def min_base(dim: int, context: int):
    return rc.min_base_for_context(dim, context)


@ui.table
def scan_table(dim: int, context: int, center: float) -> pd.DataFrame:
    return br.base_scan(dim, context, center)


@ui.table
def men_table(dim: int, contexts: tuple) -> pd.DataFrame:
    return br.base_bound_table(dim, contexts)


@ui.table
def preset_table() -> pd.DataFrame:
    return br.preset_bound_table()


def tokens(x: float) -> str:
    n = round(x)
    return ngettext("{n} token", "{n} tokens", n).format(n=i18n.integer(n))


def method_label(method: str) -> str:
    """The method's name for people (rope_core's label, translated)."""
    return _(rc.SCALING_LABELS[method])


def listing(items) -> str:
    """Items joined for a sentence ("a, b" / "a、b")."""
    # Translators: the separator between the items of a list ("1,024, 4,096"); Chinese "、".
    return _(", ").join(items)


def source(paper: dict) -> str:
    """A paper's citation from rope_core.breaks, translated (marked there for the catalog)."""
    citation = paper["citation"]
    return _(citation)


def log_y(fig: go.Figure) -> go.Figure:
    fig.update_yaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def ood_figure(dim: int, base: float, train: int, factor: int, method: str):
    """Largest angle per pair in training and at s·L, plain and scaled; unseen ones marked."""
    ood = ood_table(dim, base, train, factor, method)
    plain_rows = ood[ood["method"] == "none"]
    scaled_rows = ood[ood["method"] == method]
    pairs = plain_rows["pair i"]
    fig = go.Figure()
    fig.add_scatter(x=pairs, y=plain_rows["train max angle [rad]"],
                    name=_("training: L·θᵢ, L = {length}").format(length=i18n.integer(train)),
                    mode="lines", line=dict(color=ui.COLORS[0], width=2.5))
    fig.add_scatter(x=pairs, y=plain_rows["inference max angle [rad]"],
                    name=_("inference at s·L = {length}, no scaling").format(
                        length=i18n.integer(factor * train)), mode="lines",
                    line=dict(color=ui.COLORS[1], width=1.8))
    fig.add_scatter(x=pairs, y=scaled_rows["inference max angle [rad]"],
                    name=_("inference at s·L, {method}").format(method=method_label(method)),
                    mode="lines", line=dict(color=ui.COLORS[2], width=1.8, dash="dash"))
    for rows, color, label in ((plain_rows, ui.COLORS[1], _("no scaling")),
                               (scaled_rows, ui.COLORS[2], method_label(method))):
        bad = rows[rows["unseen"]]
        if len(bad):
            fig.add_scatter(x=bad["pair i"], y=bad["inference max angle [rad]"],
                            mode="markers", marker=dict(color=color, size=7, symbol="x"),
                            name=ngettext("unseen angles, {method}: {n} pair",
                                          "unseen angles, {method}: {n} pairs",
                                          len(bad)).format(method=label, n=len(bad)))
    fig.add_hline(y=TWO_PI, line=dict(color="#888", dash="dot"),
                  annotation_text=_("2π: one turn"))
    ui.style(fig, title=_("Largest angle per pair: training vs inference"), x=_("pair i"),
             y=_("largest angle [rad] (log scale)"))
    return log_y(fig)


@ui.figure
def wavelength_figure(dim: int, base: float, train: int, factor: int, method: str,
                      new_base: int):
    """Wavelength per pair against the training length, the critical pair marked."""
    ood = ood_table(dim, base, train, factor, method)
    plain_rows = ood[ood["method"] == "none"]
    critical_pair = liu_summary(dim, base, train, float(new_base))["critical_pair"]
    fig = go.Figure()
    fig.add_scatter(x=plain_rows["pair i"], y=plain_rows["wavelength [tokens]"], mode="lines",
                    name=_("wavelength 2π/θᵢ"), line=dict(color=ui.COLORS[0], width=2.5))
    fig.add_hline(y=train, line=dict(color=ui.COLORS[1], dash="dash"),
                  annotation_text=_("L = {length} tokens").format(length=i18n.integer(train)))
    fig.add_vline(x=critical_pair, line=dict(color=ui.COLORS[3], dash="dot"),
                  annotation_text=f"d_extra/2 = {critical_pair}")
    ui.style(fig, title=_("Wavelengths and the critical dimension (d = {dim}, base {base})")
             .format(dim=dim, base=ui.fmt_base(base)), x=_("pair i"),
             y=_("wavelength [tokens] (log scale)"))
    return log_y(fig)


@ui.figure
def bm_figure(dim: int, base: float, max_distance: int, train: int):
    """B_m against distance, its first negative value and the training length marked."""
    bm = bm_table(dim, base, max_distance)
    neg = first_negative(dim, base, max_distance)
    fig = go.Figure()
    fig.add_scatter(x=bm["distance m [tokens]"], y=bm["B_m"], mode="lines", name="B_m",
                    line=dict(color=ui.COLORS[0], width=1.6))
    fig.add_hline(y=0, line=dict(color="#888"))
    if neg is not None:
        fig.add_vline(x=neg, line=dict(color=ui.COLORS[1], dash="dash"),
                      annotation_text=_("first B_m < 0: m = {m}").format(m=i18n.integer(neg)))
    if train <= max_distance:
        fig.add_vline(x=train, line=dict(color=ui.COLORS[2], dash="dot"),
                      annotation_text=f"L = {i18n.integer(train)}",
                      annotation_position="bottom right")
    ui.style(fig, title=_("B_m against distance (d = {dim}, base {base})").format(
                 dim=dim, base=ui.fmt_base(base)),
             x=_("distance m [tokens]"), y="B_m = Σᵢ cos(m·θᵢ)")
    return fig


@ui.figure
def scan_figure(dim: int, context: int):
    """Which scanned bases pass for the context, the smallest passing one marked."""
    best = min_base(dim, context)
    scan = scan_table(dim, context, best)
    fig = go.Figure()
    for passes, color, name in ((True, ui.COLORS[2], _("passes: B_m ≥ 0 for all m < L")),
                                (False, ui.COLORS[1], _("fails: some B_m < 0"))):
        part = scan[scan["passes"] == passes]
        fig.add_scatter(x=part["base"], y=[1 if passes else 0] * len(part), mode="markers",
                        name=name, marker=dict(color=color, size=9, symbol="line-ns-open"))
    fig.add_vline(x=best, line=dict(color="#444", dash="dot"),
                  annotation_text=_("smallest: {base}").format(
                      base=i18n.number(best, "#,##0")))
    ui.style(fig, title=_("Which bases pass for L = {length} (d = {dim})").format(
                 length=i18n.integer(context), dim=dim),
             x=_("base (log scale)"), y=_("passes (1) or fails (0)"), height=300)
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(tickvals=[0, 1], range=[-0.5, 1.5])
    return fig


s = ui.settings()
st.title(_("Long context: where RoPE breaks"))
st.markdown(_(
    "A model trained on L tokens has seen each pair's angle m·θᵢ only for m < L. Run it at "
    "s·L tokens and the slow pairs, the ones that never completed a turn in training, meet "
    "angles they never saw. Context-extension methods shrink θᵢ so that s·L·θ'ᵢ stays inside "
    "what training covered. A second, independent limit: B_m = Σᵢ cos(m·θᵢ), half the "
    "score of q = k = all ones, must stay ≥ 0, which needs a base large enough for the "
    "context."))

# ---------------------------------------------------------------- 1. OOD angles
st.header(_("1. Angles never seen in training"))
c1, c2, c3, c4 = st.columns(4)
train = ui.select_slider(_("Training context L [tokens]"), TRAIN_OPTIONS, 4096, "lc_train",
                         container=c1, fmt=str)
factor = ui.select_slider(_("Extension factor s"), FACTOR_OPTIONS, 8, "lc_factor",
                          container=c2, fmt=str)
method = ui.choice(_("Scaling method"), METHODS, "yarn", "lc_method", container=c3,
                   fmt=lambda m: m, horizontal=False,
                   captions=[method_label(m) for m in METHODS],
                   help=_("From the app's scaling registry (LongRoPE needs per-pair searched "
                          "factors and is left out)."))
new_base = ui.select_slider(_("Base after tuning (Liu et al.)"), ui.BASE_OPTIONS, 1_000_000,
                            "lc_newbase", container=c4, fmt=str,
                            help=_("T_extra = 2π·base^(d_extra/d) for a model whose critical "
                                   "dimension d_extra was set in pre-training."))

with ui.friendly_errors():
    ood = ood_table(s.dim, s.base, train, factor, method)
    liu = liu_summary(s.dim, s.base, train, float(new_base))
    liu_cmp = liu_table()

plain_rows = ood[ood["method"] == "none"]
scaled_rows = ood[ood["method"] == method]

left, right = st.columns(2)
with left:
    ui.show(ood_figure(s.dim, s.base, train, factor, method), key="lc_ood_plot")
with right:
    ui.show(wavelength_figure(s.dim, s.base, train, factor, method, new_base),
            key="lc_wl_plot")

m1, m2, m3 = st.columns(3)
m1.metric(_("Critical dimension d_extra"), f"{liu['critical_dimension']}",
          help=_("2·⌈(d/2)·log_base(L/2π)⌉, clipped to [0, d]"))
m2.metric(_("Extrapolation limit at base {base}").format(base=ui.fmt_base(s.base)),
          tokens(liu["limit_at_base"]))
m3.metric(_("Extrapolation limit at base {base}").format(base=ui.fmt_base(new_base)),
          tokens(liu["limit_at_new_base"]))
n_plain = int(plain_rows["unseen"].sum())
n_scaled = int(scaled_rows["unseen"].sum())
turned = int((plain_rows["train max angle [rad]"] >= TWO_PI).sum())
ui.explain(
    ngettext("**What to notice.** With d = {dim}, base {base} and L = {length}, {n} of "
             "{pairs} pairs completes at least one turn in training (its angles cover every "
             "value mod 2π); the critical dimension is d_extra = {critical} (pair {pair} is "
             "the boundary).",
             "**What to notice.** With d = {dim}, base {base} and L = {length}, {n} of "
             "{pairs} pairs complete at least one turn in training (their angles cover every "
             "value mod 2π); the critical dimension is d_extra = {critical} (pair {pair} is "
             "the boundary).", turned).format(
        dim=s.dim, base=ui.fmt_base(s.base), length=i18n.integer(train), n=turned,
        pairs=s.dim // 2, critical=liu["critical_dimension"], pair=liu["critical_pair"]),
    ngettext("Running at s·L = {length} tokens without scaling pushes {n} pair past anything "
             "it saw (marked ×); with {method} the count is {scaled}.",
             "Running at s·L = {length} tokens without scaling pushes {n} pairs past anything "
             "they saw (marked ×); with {method} the count is {scaled}.", n_plain).format(
        length=i18n.integer(factor * train), n=n_plain, method=method_label(method),
        scaled=n_scaled),
    _("Liu et al.'s bound: a model whose critical dimension was set in pre-training carries "
      "2π·base^(d_extra/d) tokens, {at_base} at the training base and {at_new_base} once the "
      "base is changed to {new_base}.").format(
        at_base=tokens(liu["limit_at_base"]), at_new_base=tokens(liu["limit_at_new_base"]),
        new_base=ui.fmt_base(new_base)))
st.caption(_("Source: {citation}. They report the critical dimension {critical} for {model} "
             "(d = 128, base 10⁴, L = 4096); the app computes it from the formula:").format(
    citation=source(br.LIU_2023), critical=br.LIU_2023["critical_dimension"],
    model=br.LIU_2023["model"]))
row = liu_cmp.iloc[0]
st.dataframe(liu_cmp.rename(columns={
    "model": _("model"), "base": _("base"),
    "train context L [tokens]": _("train context L [tokens]"),
    "paper critical dimension": _("paper critical dimension"),
    "app critical dimension": _("app critical dimension"), "difference": _("difference"),
    "matches": _("matches")}), hide_index=True)
if row["matches"]:
    st.caption(_("Paper {paper}, app {app}: agrees.").format(
        paper=row["paper critical dimension"], app=row["app critical dimension"]))
else:
    st.caption(_("Paper {paper}, app {app}: DIFFERS by {difference}.").format(
        paper=row["paper critical dimension"], app=row["app critical dimension"],
        difference=row["difference"]))
ui.download(ood_table, s.dim, s.base, train, factor, method,
            filename=f"long_context_angles_dim{s.dim}_base{ui.slug(s.base)}_L{train}_"
                     f"s{factor}_{method}.csv", label=_("angle table"), key="lc_ood")

# ---------------------------------------------------------------- 2. base bounds context
st.header(_("2. The base bounds the context"))
# The condition is one phrase (math inside it between $): no LaTeX braces in the message.
st.latex(r"B_m = \sum_{i=0}^{d/2-1} \cos(m\,\theta_i),\qquad \text{"
         + _(r"need $B_m \ge 0$ for every $m < L$") + "}")
c1, c2 = st.columns(2)
bmax = ui.select_slider(_("Largest distance m [tokens]"), BMAX_OPTIONS, 16384, "lc_bmax",
                        container=c1, fmt=str)
target = ui.select_slider(_("Target context L [tokens]"), TARGET_OPTIONS, 4096, "lc_target",
                          container=c2, fmt=str)
with ui.friendly_errors():
    bm = bm_table(s.dim, s.base, bmax)
    neg = first_negative(s.dim, s.base, bmax)

ui.show(bm_figure(s.dim, s.base, bmax, train), key="lc_bm_plot")
start = f"{bm['B_m'].iloc[0]:.0f}"
if neg is not None:
    where = _("**B_m starts at d/2 = {start}** and, for base {base}, first turns negative at "
              "m = {m} (found exactly, integer by integer).").format(
        start=start, base=ui.fmt_base(s.base), m=i18n.integer(neg))
    if neg < train:
        verdict = _("That is inside the training length L = {length}.")
    else:
        verdict = _("That is beyond the training length L = {length}.")
    verdict = verdict.format(length=i18n.integer(train))
else:
    where = _("**B_m starts at d/2 = {start}** and, for base {base}, stays ≥ 0 for every m up "
              "to {most} (found exactly, integer by integer).").format(
        start=start, base=ui.fmt_base(s.base), most=i18n.integer(bmax))
    verdict = ""
sampled = ""
if len(bm) < bmax + 1:
    sampled = _("The curve is sampled at {n} distances; the crossing is exact.").format(
        n=i18n.integer(len(bm)))
ui.explain(*(t for t in (where, verdict, sampled) if t))

ok_context = True
try:
    br.check_context_work(s.dim, target)
except ValueError as err:
    ok_context = False
    ui.error(_("The smallest base for L = {length} is not computed at d = {dim}: {reason} "
               "Choose a smaller target context or a smaller head dim.").format(
        length=i18n.integer(target), dim=s.dim, reason=i18n.error_text(err)))
if ok_context:
    with ui.friendly_errors():
        best = min_base(s.dim, target)
    if best is None:
        ui.warning(_("No base up to 10^15 keeps B_m ≥ 0 for every m < {length} at "
                     "d = {dim}.").format(length=i18n.integer(target), dim=s.dim))
    else:
        with ui.friendly_errors():
            scan = scan_table(s.dim, target, best)
        fit = br.men_fit_base(target)
        k1, k2, k3 = st.columns(3)
        k1.metric(_("Smallest base for L = {length} (app, d = {dim})").format(
            length=i18n.integer(target), dim=s.dim), i18n.number(best, "#,##0"))
        k2.metric(_("Men et al. fit 0.0424·L^1.628"), i18n.number(fit, "#,##0"))
        k3.metric(_("Ratio app / fit"), f"{best / fit:.2f}")
        ui.show(scan_figure(s.dim, target), key="lc_scan_plot")
        above = scan[scan["base"] > best]
        refail = above[~above["passes"]]
        first_pass = _("**The passing set is not an interval.** The search walks the grid "
                       "1.01^k upward and stops at the first base that passes, {base} (so the "
                       "answer, on that grid, is exact to 1%).").format(
            base=i18n.number(best, "#,##0"))
        if len(refail):
            again = ngettext(
                "Of the {n} scanned bases above it, {failing} fails again, the largest at "
                "{largest}: raising the base moves a negative dip of B_m inside [0, L), so a "
                "bigger base is not automatically safe.",
                "Of the {n} scanned bases above it, {failing} fail again, the largest at "
                "{largest}: raising the base moves a negative dip of B_m inside [0, L), so a "
                "bigger base is not automatically safe.", len(refail)).format(
                n=len(above), failing=len(refail),
                largest=i18n.number(refail["base"].max(), "#,##0"))
        else:
            again = _("Of the {n} scanned bases above it, 0 fail again: raising the base "
                      "moves a negative dip of B_m inside [0, L), so a bigger base is not "
                      "automatically safe.").format(n=len(above))
        ui.explain(first_pass, again)
        ui.download(scan_table, s.dim, target, best,
                    filename=f"long_context_base_scan_dim{s.dim}_L{target}.csv",
                    label=_("base scan"), key="lc_scan")

st.subheader(_("Published fit beside the app"))
st.caption(_("Source: {citation}. Their Figure 1 fits the lower bound of the base as "
             "0.0424·L^1.628. The paper's per-length table values could not be verified "
             "here, so only the published fit is compared. Their models have d = 128.").format(
    citation=source(br.MEN_2024)))
if ui.toggle(_("Compute the app's minimum base for 1K … 1M tokens at d = 128 (about 10–30 s the "
               "first time, then cached for every visitor)"), False, "lc_men"):
    with ui.friendly_errors():
        men = men_table(128, MEN_CONTEXTS)
    far = men[(men["ratio app/fit"] < 0.5) | (men["ratio app/fit"] > 2)]
    st.dataframe(men.rename(columns={
        "context L [tokens]": _("context L [tokens]"), "app min base": _("app min base"),
        "paper fit base": _("paper fit base"), "ratio app/fit": _("ratio app/fit")}),
        hide_index=True)
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
    ui.explain(ratios, differ,
               _("A fit through a few points is not the exact bound; the app's values, on "
                 "its grid, are exact to 1%."))
    ui.download(men_table, 128, MEN_CONTEXTS, filename="long_context_men_fit_dim128.csv",
                label=_("fit comparison"), key="lc_men_csv")

st.subheader(_("Real models: does the base carry the context?"))
presets = preset_table()
KINDS = {"original": _("original"), "max": _("maximum")}
shown_presets = presets.assign(**{"context kind": presets["context kind"].map(
    lambda k: KINDS.get(k, k))})
st.dataframe(shown_presets.rename(columns={
    "preset": _("preset"), "rotary dim": _("rotary dim"), "base": _("base"),
    "context kind": _("context kind"), "context L [tokens]": _("context L [tokens]"),
    "passes": _("passes"), "first negative distance [tokens]":
        _("first negative distance [tokens]")}), hide_index=True)
fails = presets[~presets["passes"]]
if len(fails):
    preset_verdict = ngettext(
        "Each preset's own base at its rotary dim (plain θᵢ, before any scaling method), "
        "checked for its original and its maximum context: {n} of {rows} rows has some B_m < 0 "
        "inside the context ({presets}).",
        "Each preset's own base at its rotary dim (plain θᵢ, before any scaling method), "
        "checked for its original and its maximum context: {n} of {rows} rows have some "
        "B_m < 0 inside the context ({presets}).", len(fails)).format(
        n=len(fails), rows=len(presets),
        presets=listing(dict.fromkeys(fails["preset"])))
else:
    preset_verdict = _(
        "Each preset's own base at its rotary dim (plain θᵢ, before any scaling method), "
        "checked for its original and its maximum context: 0 of {rows} rows have some "
        "B_m < 0 inside the context.").format(rows=len(presets))
ui.explain(preset_verdict,
           _("A failing row is where Men et al.'s argument says the base alone cannot carry "
             "the context; scaling methods change θᵢ and are not counted here."))
ui.download(preset_table, filename="long_context_presets.csv", label=_("preset table"),
            key="lc_presets")
ui.download(bm_table, s.dim, s.base, bmax,
            filename=f"long_context_bm_dim{s.dim}_base{ui.slug(s.base)}_max{bmax}.csv",
            label=_("B_m curve"), key="lc_bm")
