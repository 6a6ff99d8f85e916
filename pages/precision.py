"""Precision: what float16 and bfloat16 do to positions, angles and the relative property."""

import streamlit as st

import rope_core as rc
import ui
from ui.i18n import _
from views.precision import (
    RECIPE_TEXT,
    angle_figure,
    cos_figure,
    current_notes,
    error_notes,
    error_parts,
    errors,
    inexact,
    inexact_metrics,
    neox,
    neox_issue,
    relative,
    relative_figure,
    relative_notes,
    relative_parts,
    spacing,
    spacing_figure,
    spacing_notes,
    spacing_parts,
)

MAX_OPTIONS = [1_000, 10_000, 100_000, 1_000_000]
LOW = ["float32", "float16", "bfloat16"]
GAP_OPTIONS = [1, 10, 100, 1000]
DEFAULT_RECIPE = "product"


s = ui.settings()
ui.intro(
    _("Precision: RoPE in float16 and bfloat16"),
    _("A float with p significant bits holds every integer up to 2ᵖ and then only multiples of "
      "a growing spacing. Real code builds RoPE's positions, θᵢ, the angles m·θᵢ or the "
      "cos/sin cache in the model's dtype, or forms the angles in float32 and casts only "
      "cos/sin to it: five recipes, each rounding a different quantity. Errors below are "
      "measured against float64."))
ui.terms("bfloat16", "theta", "score", "position")
c1, c2 = st.columns(2)
max_position = ui.select_slider(_("Largest position m [tokens]"), MAX_OPTIONS, 1_000_000,
                                "pr_max", container=c1, fmt=str)
dtypes = ui.multiselect(_("Dtypes"), LOW, LOW, "pr_dtypes", max_selections=3, container=c2)
if not dtypes:
    ui.warning(_("Choose at least one dtype."))
    st.stop()
dtypes = tuple(d for d in LOW if d in dtypes)

with ui.friendly_errors():
    spacing_parts(max_position, dtypes)
    inexact()
    error_parts(s.dim, s.base, max_position, dtypes)

# ---------------------------------------------------------------- spacing and first inexact
st.header(_("1. Which positions a dtype can hold"))
metrics = ui.row()
for label, value, help_text in inexact_metrics():
    metrics.metric(label, value, help=help_text)
ui.show(spacing_figure(max_position, dtypes), key="pr_spacing_plot",
        alt=_("Step chart, both axes log scale: the spacing between neighbouring positions that "
              "float32, float16 and bfloat16 can represent, against the position m; it doubles at "
              "every power of two."), table=_("spacing table"))
ui.explain(*spacing_notes(max_position, dtypes))

# ---------------------------------------------------------------- errors per recipe
st.header(_("2. Angle and cos/sin error per recipe"))
# one above the other, each across the page: side by side, their legends took more height
# than the plots (now a key of up to eight entries: dtypes by colour, recipes by dash)
ui.show(angle_figure(s.dim, s.base, max_position, dtypes), key="pr_angle_plot",
        alt=_("Line chart, both axes log scale: the largest angle error over all pairs against the "
              "position m, one colour per dtype and one dash style per recipe."),
        table=_("error table"))
ui.show(cos_figure(s.dim, s.base, max_position, dtypes), key="pr_cos_plot",
        alt=_("Line chart, both axes log scale: the largest error of cos over all pairs against the"
              " position m, one colour per dtype and one dash style per recipe."),
        table=_("error table"))
st.caption(_("Both plots show the largest |error| over all pairs, with both axes on a log "
             "scale; the colour is the dtype, the dash the recipe."))
with st.expander(_("The five recipes, and why some lines are missing")):
    st.markdown(_("Recipes: {recipes}. A log axis has no place for a zero error: the `cache` "
                  "recipe's angles are exact, so its angle line is left out, and the "
                  "`positions` recipe's lines drop to the bottom of the plot at the positions "
                  "the dtype holds exactly.").format(
        # Translators: the separator between the recipes' descriptions; Chinese "；".
        recipes=_("; ").join(_("`{code}` ({text})").format(code=r, text=_(RECIPE_TEXT[r]))
                             for r in rc.RECIPES)))
ui.paragraphs(*error_notes(s.dim, s.base, max_position, dtypes))
current, parts = current_notes(s.dim, s.base, max_position, dtypes)
st.markdown(current)
with st.expander(_("Where that error comes from, and what a cast `inv_freq` does")):
    ui.paragraphs(*parts)

# ---------------------------------------------------------------- relative property
@st.fragment
def relative_section(dim: int, base: float, max_position: int) -> None:
    """The relative-position check with its own recipe and distance (a fragment: moving
    them reruns only this section)."""
    st.header(_("3. The relative-position property"))
    c1, c2 = st.columns([3, 2])
    recipe = ui.choice(_("Recipe for the relative-position check"), list(rc.RECIPES),
                       DEFAULT_RECIPE, "pr_recipe", container=c1, horizontal=False,
                       fmt=lambda r: r, captions=[_(RECIPE_TEXT[r]) for r in rc.RECIPES])
    gap = ui.select_slider(_("Distance n − m [tokens]"), GAP_OPTIONS, 100, "pr_gap",
                           container=c2, fmt=str)
    with ui.friendly_errors():
        relative_parts(dim, base, gap, max_position, recipe)
    score = _("score")  # the attention score, written as a function name in the formula
    st.latex(r"\big|\,\text{" + score + r"}(m, n) - \text{" + score + r"}(m+\Delta, n+\Delta)\,"
             r"\big|,\qquad q = k = \text{" + _("all ones") + "}")
    ui.show(relative_figure(dim, base, gap, max_position, recipe), key="pr_rel_plot",
            alt=_("Line chart, log scale: how much the score changes when both positions shift by "
                  "Δ, against Δ, one line per dtype; exact RoPE would give 0 everywhere."),
            table=_("relative-position table"))
    largest, verdict, why = relative_notes(dim, base, gap, max_position, recipe)
    ui.explain(
        _("**Exact RoPE depends on n − m only**, so the difference should be 0 for every Δ."),
        largest)
    ui.explain(verdict, why)
    ui.download(relative, dim, base, gap, max_position, recipe,
                filename=f"precision_relative_dim{dim}_base{ui.slug(base)}_gap{gap}_"
                         f"{recipe}.csv", label=_("relative-position table"),
                key="pr_relative")


relative_section(s.dim, s.base, max_position)

# ---------------------------------------------------------------- real-world issue
st.header(_("4. A real bug: gpt-neox issue 1003"))
with ui.friendly_errors():
    neox_caption, neox_shown, neox_notes = neox_issue()
st.caption(neox_caption)
st.dataframe(neox_shown, hide_index=True)
ui.explain(*neox_notes)

ui.download(spacing, max_position, dtypes,
            filename=f"precision_spacing_max{max_position}.csv", label=_("spacing table"),
            key="pr_spacing")
ui.download(errors, s.dim, s.base, max_position, dtypes,
            filename=f"precision_errors_dim{s.dim}_base{ui.slug(s.base)}_max{max_position}.csv",
            label=_("error table"), key="pr_errors")
ui.download(neox, filename="precision_gpt_neox_1003.csv", label=_("issue comparison"),
            key="pr_issue")
