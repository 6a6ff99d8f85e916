"""Precision: what float16 and bfloat16 do to positions, angles and the relative property."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import rope_core.breaks as br
import ui
from ui import i18n
from ui.i18n import N_, _, ngettext

MAX_OPTIONS = [1_000, 10_000, 100_000, 1_000_000]
LOW = ["float32", "float16", "bfloat16"]
GAP_OPTIONS = [1, 10, 100, 1000]
DEFAULT_RECIPE = "product"
RECIPE_TEXT = {
    "positions": N_("positions held in the dtype, the rest float64"),
    "theta": N_("θᵢ (inv_freq) held in the dtype"),
    "product": N_("the whole cache m·θᵢ built in the dtype, cos/sin stored in it"),
    "cache": N_("exact angles, cos/sin cache stored in the dtype"),
}
# Each recipe's name in figures (the radio and the link keep the code names).
RECIPE_NAME = {
    # Translators: the recipe that rounds the positions m (code name `positions`).
    "positions": N_("positions"),
    # Translators: the recipe that rounds θᵢ (code name `theta`).
    "theta": N_("theta"),
    # Translators: the recipe that rounds the products m·θᵢ (code name `product`).
    "product": N_("product"),
    # Translators: the recipe that rounds only the cos/sin cache (code name `cache`).
    "cache": N_("cache"),
}
DASH = {"positions": "solid", "theta": "dash", "product": "dot", "cache": "dashdot"}
# The error figures draw the tables' positions nearest a log grid of this many points
# (about 900 distinct positions up to 10^6; the tables and CSVs keep all ~1,400): 21
# lines of every position would make the page's first open about 430 KB, over the
# 300 KB budget of issue 11 (with this grid: about 260 KB).
FIGURE_POINTS = 1_200


@ui.table
def spacing(max_position: int, dtypes: tuple) -> pd.DataFrame:
    return br.spacing_table(max_position, dtypes)


@ui.table
def inexact() -> pd.DataFrame:
    return br.first_inexact_table()


@ui.table
def errors(dim: int, base: float, max_position: int, dtypes: tuple) -> pd.DataFrame:
    return br.error_table(dim, base, max_position, dtypes)


@ui.table
def relative(dim: int, base: float, gap: int, max_shift: int, recipe: str) -> pd.DataFrame:
    return br.relative_table(dim, base, 0, gap, max_shift, recipe)


@ui.table
def neox() -> pd.DataFrame:
    return br.neox_issue_table()


def step_corners(values: pd.Series) -> np.ndarray:
    """Rows a step line (shape "hv") needs: the first of each run of equal values and the
    last row. The rows in between add nothing to the line drawn."""
    y = values.to_numpy()
    keep = np.ones(len(y), dtype=bool)
    keep[1:-1] = y[1:-1] != y[:-2]
    return keep


def log_sample(positions: pd.Series, points: int = FIGURE_POINTS) -> np.ndarray:
    """Indices of at most ``points`` of the sorted ``positions``, log-spaced from the first
    to the last (both kept): the first position at or after each point of the grid."""
    m = positions.to_numpy()
    grid = np.logspace(np.log10(m[0]), np.log10(m[-1]), points)
    return np.unique(np.minimum(np.searchsorted(m, grid * (1 - 1e-12)), len(m) - 1))


def recipe_name(recipe: str) -> str:
    """A recipe's name in figures and sentences, translated."""
    return _(RECIPE_NAME[recipe])


def listing(items) -> str:
    """Items joined for a sentence ("a, b" / "a、b")."""
    # Translators: the separator between the items of a list ("1,024, 4,096"); Chinese "、".
    return _(", ").join(items)


def log_axes(fig: go.Figure) -> go.Figure:
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def spacing_figure(max_position: int, dtypes: tuple):
    """Spacing between neighbouring representable positions, one step line per dtype."""
    sp = spacing(max_position, dtypes)
    fig = go.Figure()
    for n, d in enumerate(dtypes):
        part = sp[sp["dtype"] == d]
        part = part[step_corners(part["spacing [tokens]"])]
        fig.add_scatter(x=part["position m [tokens]"], y=part["spacing [tokens]"], name=d,
                        mode="lines", line=dict(color=ui.COLORS[n], width=2, shape="hv"))
    ui.style(fig, title=_("Spacing between neighbouring representable positions"),
             x=_("position m [tokens] (log scale)"), y=_("spacing [tokens] (log scale)"))
    return log_axes(fig)


def error_lines(fig: go.Figure, err: pd.DataFrame, dtypes: tuple, column: str,
                recipes: tuple) -> go.Figure:
    """One line per (dtype, recipe): colour by dtype, dash by recipe; at most
    FIGURE_POINTS positions each."""
    for n, d in enumerate(dtypes):
        for r in recipes:
            part = err[(err["dtype"] == d) & (err["recipe"] == r)]
            part = part.iloc[log_sample(part["position m [tokens]"])]
            fig.add_scatter(x=part["position m [tokens]"], y=part[column],
                            name=_("{dtype}, {recipe}").format(dtype=d,
                                                               recipe=recipe_name(r)),
                            mode="lines", line=dict(color=ui.COLORS[n], width=1.8,
                                                    dash=DASH[r]))
    return fig


@ui.figure
def angle_figure(dim: int, base: float, max_position: int, dtypes: tuple):
    """Largest angle error over pairs per dtype and recipe (the cache recipe has none)."""
    err = errors(dim, base, max_position, dtypes)
    # the cache recipe has exact angles: error 0, not drawable on a log axis
    fig = error_lines(go.Figure(), err, dtypes, "max angle error [rad]",
                      tuple(r for r in rc.RECIPES if r != "cache"))
    ui.style(fig, title=_("Largest angle error over pairs (d = {dim}, base {base})").format(
                 dim=dim, base=ui.fmt_base(base)),
             x=_("position m [tokens] (log scale)"), y=_("max |angle error| [rad] (log scale)"))
    return log_axes(fig)


@ui.figure
def cos_figure(dim: int, base: float, max_position: int, dtypes: tuple):
    """Largest cos error over pairs per dtype and recipe."""
    err = errors(dim, base, max_position, dtypes)
    fig = error_lines(go.Figure(), err, dtypes, "max cos error", tuple(rc.RECIPES))
    ui.style(fig, title=_("Largest cos error over pairs"),
             x=_("position m [tokens] (log scale)"), y=_("max |cos error| (log scale)"))
    return log_axes(fig)


@ui.figure
def relative_figure(dim: int, base: float, gap: int, max_shift: int, recipe: str):
    """|score(0, gap) - score(D, gap + D)| against the shift D, one line per dtype."""
    rel = relative(dim, base, gap, max_shift, recipe)
    fig = go.Figure()
    for n, d in enumerate(rel["dtype"].unique()):
        part = rel[(rel["dtype"] == d) & (rel["shift D [tokens]"] > 0)]
        fig.add_scatter(x=part["shift D [tokens]"], y=part["score difference"], name=d,
                        mode="lines", line=dict(color=(["#444"] + ui.COLORS)[n], width=1.8))
    ui.style(fig, title=_("Shift both positions by Δ (m = 0, n = {gap}, recipe {recipe})").format(
                 gap=gap, recipe=recipe_name(recipe)),
             x=_("shift Δ [tokens] (log scale)"), y=_("|score difference| (0 for exact RoPE)"))
    fig.update_xaxes(type="log", exponentformat="power")
    return fig


s = ui.settings()
st.title(_("Precision: RoPE in float16 and bfloat16"))
st.markdown(_(
    "A float with p significant bits holds every integer up to 2ᵖ and then only multiples of "
    "a growing spacing. Real code often builds RoPE's positions, θᵢ, the angles m·θᵢ or the "
    "cos/sin cache in the model's dtype: four recipes, each rounding a different quantity. "
    "Errors below are measured against float64."))
c1, c2, c3 = st.columns(3)
max_position = ui.select_slider(_("Largest position m [tokens]"), MAX_OPTIONS, 1_000_000,
                                "pr_max", container=c1, fmt=str)
dtypes = ui.multiselect(_("Dtypes"), LOW, LOW, "pr_dtypes", max_selections=3, container=c2)
recipe = ui.choice(_("Recipe for the relative-position check"), list(rc.RECIPES), DEFAULT_RECIPE,
                   "pr_recipe", container=c3, horizontal=False,
                   fmt=lambda r: r, captions=[_(RECIPE_TEXT[r]) for r in rc.RECIPES])
gap = ui.select_slider(_("Distance n − m [tokens]"), GAP_OPTIONS, 100, "pr_gap", container=c3,
                       fmt=str)
if not dtypes:
    ui.warning(_("Choose at least one dtype."))
    st.stop()
dtypes = tuple(d for d in LOW if d in dtypes)

with ui.friendly_errors():
    sp = spacing(max_position, dtypes)
    first = inexact()
    err = errors(s.dim, s.base, max_position, dtypes)
    rel = relative(s.dim, s.base, gap, max_position, recipe)
    issue = neox()

# ---------------------------------------------------------------- spacing and first inexact
st.header(_("1. Which positions a dtype can hold"))
cols = st.columns(len(first))
for col, (_row_index, row) in zip(cols, first.iterrows()):
    first_m = int(row["first inexact position [tokens]"])
    exponent = (first_m - 1).bit_length() - 1  # first_m = 2^p + 1
    col.metric(_("{dtype}: first position it cannot hold").format(dtype=row["dtype"]),
               i18n.integer(first_m) if first_m < 10**8 else f"2^{exponent} + 1",
               help=_("{m} = 2^{exponent} + 1: above 2^{exponent} the dtype's spacing is 2, so "
                      "odd positions fall between two representable ones.").format(
                   m=i18n.integer(first_m), exponent=exponent))
ui.show(spacing_figure(max_position, dtypes), key="pr_spacing_plot")
last = sp[sp["position m [tokens]"] == max_position].set_index("dtype")
bits = []
for d in dtypes:
    value = last.loc[d, "spacing [tokens]"]
    bits.append(f"{d} {value:g}" if value != float("inf")
                else _("{dtype} ∞ (overflow)").format(dtype=d))
f_row = first.set_index("dtype")
ui.explain(
    _("**At m = {m} the spacing is** {values} tokens.").format(
        m=i18n.integer(max_position), values=listing(bits)),
    _("bfloat16 stops at {bf_first} (it becomes {bf_held}) and float16 at {f16_first}: past "
      "these, neighbouring tokens share one position. float16 also overflows at "
      "{overflow}.").format(
        bf_first=i18n.integer(int(f_row.loc["bfloat16", "first inexact position [tokens]"])),
        bf_held=f"{f_row.loc['bfloat16', 'held as [tokens]']:.0f}",
        f16_first=i18n.integer(int(f_row.loc["float16", "first inexact position [tokens]"])),
        overflow=i18n.integer(65_520)))

# ---------------------------------------------------------------- errors per recipe
st.header(_("2. Angle and cos/sin error per recipe"))
left, right = st.columns(2)
with left:
    ui.show(angle_figure(s.dim, s.base, max_position, dtypes), key="pr_angle_plot")
with right:
    ui.show(cos_figure(s.dim, s.base, max_position, dtypes), key="pr_cos_plot")
st.caption(_("Recipes: {recipes}. Zero errors do not appear on a log axis.").format(
    # Translators: the separator between the recipes' descriptions; Chinese "；".
    recipes=_("; ").join(_("`{code}` ({text})").format(code=r, text=_(RECIPE_TEXT[r]))
                         for r in rc.RECIPES)))
at_end = err[err["position m [tokens]"] == max_position]
finite = at_end[at_end["max angle error [rad]"] < float("inf")]
worst = finite.loc[finite["max angle error [rad]"].idxmax()]
overflow = "float16" in dtypes and max_position >= 65_520
cache = at_end[at_end["recipe"] == "cache"].set_index("dtype")["max cos error"]
worst_args = dict(m=i18n.integer(max_position), error=f"{worst['max angle error [rad]']:.3g}",
                  dtype=worst["dtype"], recipe=recipe_name(worst["recipe"]))
if overflow:
    worst_text = _("**At m = {m} the worst angle error** is {error} rad ({dtype}, recipe "
                   "{recipe}); float16 positions from {overflow} on overflow to ∞ (no angle "
                   "at all).").format(overflow=i18n.integer(65_520), **worst_args)
else:
    worst_text = _("**At m = {m} the worst angle error** is {error} rad ({dtype}, recipe "
                   "{recipe}).").format(**worst_args)
ui.explain(
    worst_text,
    _("An error near π or above turns the pair to an unrelated direction. Storing only the "
      "cos/sin cache in low precision keeps the angle exact and bounds the cos error by the "
      "dtype's rounding: {values}, whatever the position.").format(
        values=listing(f"{d} {cache[d]:.1e}" for d in dtypes)))

# ---------------------------------------------------------------- relative property
st.header(_("3. The relative-position property"))
score = _("score")  # the attention score, written as a function name in the formula
st.latex(r"\big|\,\text{" + score + r"}(m, n) - \text{" + score + r"}(m+\Delta, n+\Delta)\,"
         r"\big|,\qquad q = k = \text{" + _("all ones") + "}")
ui.show(relative_figure(s.dim, s.base, gap, max_position, recipe), key="pr_rel_plot")
rmax = rel.groupby("dtype", sort=False)["score difference"].max()
n_nan = int(rel["score difference"].isna().sum())
rel_args = dict(most=i18n.integer(max_position), dim=s.dim,
                values=listing(f"{d} {v:.2g}" for d, v in rmax.items()))
if n_nan:
    largest = ngettext(
        "Largest difference up to Δ = {most}: {values} (the all-ones score lies between −d "
        "and d, d = {dim}); {n} shift gives no score at all (float16 overflow, not drawn).",
        "Largest difference up to Δ = {most}: {values} (the all-ones score lies between −d "
        "and d, d = {dim}); {n} shifts give no score at all (float16 overflow, not drawn).",
        n_nan).format(n=i18n.integer(n_nan), **rel_args)
else:
    largest = _("Largest difference up to Δ = {most}: {values} (the all-ones score lies "
                "between −d and d, d = {dim}).").format(**rel_args)
ui.explain(
    _("**Exact RoPE depends on n − m only**, so the difference should be 0 for every Δ."),
    largest,
    _("float64 keeps it at rounding level; the low-precision recipes do not."))

# ---------------------------------------------------------------- real-world issue
st.header(_("4. A real bug: gpt-neox issue 1003"))
p = br.NEOX_1003
issue_title = p["title"]
issue_title = _(issue_title)  # the issue's title in words (marked in rope_core.breaks)
st.caption(_("{repository} issue #{number}: “{title}”, {url} (link as plain text). Its "
             "reproducer builds the cache in float16 (recipe {recipe}): seq_len {seq_len}, "
             "dim {dim}, base 10⁴; it printed the numbers in the '{reported}' column (on "
             "CUDA; float32 as its reference). The app recomputes them on the CPU, against "
             "float32 for the angle and float64 for the cos error.").format(
    repository=p["repository"], number=p["number"], title=issue_title, url=p["url"],
    recipe=recipe_name(p["recipe"]), seq_len=p["seq_len"], dim=p["dim"],
    reported=_("reported")))
# The table's quantities in words (rope_core.breaks.neox_issue_table's rows, in order).
QUANTITIES = [
    _("angle m*theta_1 at m = {m}, float32 [rad]").format(m=p["position"]),
    _("angle m*theta_1 at m = {m}, float16 cache [rad]").format(m=p["position"]),
    _("max |cos float16 - cos float32| over m < {length}, all pairs").format(
        length=p["seq_len"]),
]
quantities = QUANTITIES if len(issue) == len(QUANTITIES) else list(issue["quantity"])
st.dataframe(issue.assign(quantity=quantities).rename(columns={
    "quantity": _("quantity"), "reported": _("reported"), "app": _("app"),
    "difference": _("difference"), "agrees": _("agrees")}), hide_index=True)
bad = ~issue["agrees"].to_numpy(dtype=bool)
n_bad = int(bad.sum())
if n_bad:
    agreement = _("**{agree} of {total} reported numbers agree** with the app; differing: "
                  "{quantities}.").format(
        agree=len(issue) - n_bad, total=len(issue),
        quantities=listing(q for q, b in zip(quantities, bad) if b))
else:
    agreement = _("**{agree} of {total} reported numbers agree** with the app to the digits "
                  "the issue printed.").format(agree=len(issue), total=len(issue))
ui.explain(
    agreement,
    _("Position {m} times θ₁ = 10⁴^(−1/16) is about {angle} rad; float16 holds it only to "
      "the nearest whole number, so the angle jumps by a large fraction of a radian and the "
      "cached cos is off by up to {error}.").format(
        m=p["position"], angle=f"{issue['app'].iloc[0]:.2f}",
        error=f"{issue['app'].iloc[2]:.2f}"))

ui.download(spacing, max_position, dtypes,
            filename=f"precision_spacing_max{max_position}.csv", label=_("spacing table"),
            key="pr_spacing")
ui.download(errors, s.dim, s.base, max_position, dtypes,
            filename=f"precision_errors_dim{s.dim}_base{ui.slug(s.base)}_max{max_position}.csv",
            label=_("error table"), key="pr_errors")
ui.download(relative, s.dim, s.base, gap, max_position, recipe,
            filename=f"precision_relative_dim{s.dim}_base{ui.slug(s.base)}_gap{gap}_"
                     f"{recipe}.csv", label=_("relative-position table"), key="pr_relative")
ui.download(neox, filename="precision_gpt_neox_1003.csv", label=_("issue comparison"),
            key="pr_issue")
