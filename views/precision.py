"""The Precision page's figures (pages/precision.py) and the cached tables, metrics and
sentences that feed them: which positions float32, float16 and bfloat16 hold, the angle and
cos errors of five recipes, the relative-position check, and gpt-neox issue 1003."""

import numpy as np
import pandas as pd
import pyarrow as pa

import rope_core as rc
import rope_core.limits.breaks as br
import ui
from ui import i18n
from ui.i18n import N_, _, ngettext

RECIPE_TEXT = {
    "positions": N_("positions held in the dtype, the rest float64"),
    "theta": N_("θᵢ (inv_freq) held in the dtype"),
    "product": N_("the whole cache m·θᵢ built in the dtype, cos/sin stored in it"),
    "cache": N_("exact angles, cos/sin cache stored in the dtype"),
    "float32_angles": N_("angles m·θᵢ formed in float32, only cos/sin cast to the dtype "
                         "(what transformers does today)"),
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
    # Translators: the recipe that forms the angles in float32 and casts cos/sin to the
    # dtype, as transformers does (code name `float32_angles`).
    "float32_angles": N_("float32 angles"),
}
# Why each recipe keeps the relative property or not (section 3), whatever the numbers.
RELATIVE_WHY = {
    "positions": N_("Recipe {recipe} rounds the positions: once the dtype's spacing exceeds "
                    "one token, m + Δ and n + Δ are rounded by different amounts and the "
                    "distance the score sees changes; a dtype that holds every position "
                    "shown exactly changes nothing."),
    "theta": N_("Recipe {recipe} rounds θᵢ, and the rounded θᵢ is the same at both "
                "positions: the score still depends on n − m alone, in every dtype. What it "
                "changes is the angle itself, (n − m) times a rounded θᵢ instead of the θᵢ "
                "a model was trained with (section 2)."),
    "product": N_("Recipe {recipe} rounds each product m·θᵢ on its own, at q's position and "
                  "at k's: the two errors differ, so the score depends on more than n − m."),
    "cache": N_("Recipe {recipe} keeps the angles exact but rounds each position's cos and "
                "sin on its own: the score moves by a few of the dtype's roundings, however "
                "large Δ."),
    "float32_angles": N_("Recipe {recipe} forms every angle m·θᵢ as a float32 product, "
                         "rounded on its own, whatever the dtype: even float64 is off."),
}
DASH = {"positions": "solid", "theta": "dash", "product": "dot", "cache": "dashdot",
        "float32_angles": "longdash"}
# Log-spaced positions per error curve (about 280 distinct up to 10^6): every (position x
# pair) costs the same for each of up to 15 (dtype, recipe) lines, so this sets the page's
# cost at head dim 1024 (issue 18); the curves keep their shape at this density.
ERROR_POINTS = 300
RELATIVE_POINTS = 250  # shifts per dtype in the relative-position check (log-spaced)


@ui.table
def spacing(max_position: int, dtypes: tuple) -> pd.DataFrame:
    return br.spacing_table(max_position, dtypes)


@ui.table
def inexact() -> pd.DataFrame:
    return br.first_inexact_table()


@ui.table
def inexact_rows() -> dict:
    """inexact()'s rows as {dtype: {column: value}}, in its order (read once per process,
    not on every run)."""
    return {row["dtype"]: row for row in inexact().to_dict("records")}


@ui.table
def errors(dim: int, base: float, max_position: int, dtypes: tuple) -> pd.DataFrame:
    return br.error_table(dim, base, max_position, dtypes, points=ERROR_POINTS)


@ui.table
def relative(dim: int, base: float, gap: int, max_shift: int, recipe: str) -> pd.DataFrame:
    return br.relative_table(dim, base, 0, gap, max_shift, recipe, points=RELATIVE_POINTS)


@ui.table
def neox() -> pd.DataFrame:
    return br.neox_issue_table()


def parts_of(table: pd.DataFrame, keys: tuple, columns: tuple) -> dict:
    """A tidy table's rows split by its key columns, in the table's order, as numpy
    columns: {key value(s): {column: (rows,) array}} (one key: the value itself)."""
    codes, names = zip(*(pd.factorize(table[k]) for k in keys))  # in order of appearance
    combined = np.zeros(len(table), dtype=np.int64)  # one code per combination of keys
    for code, name in zip(codes, names):
        combined = combined * len(name) + code
    values = {c: table[c].to_numpy() for c in columns}
    out = {}
    for combo in pd.unique(combined):  # in order of appearance
        rows = combined == combo
        key, rest = [], int(combo)
        for name in reversed(names):
            rest, i = divmod(rest, len(name))
            key.insert(0, name[i])
        out[tuple(key) if len(keys) > 1 else key[0]] = {c: v[rows] for c, v in values.items()}
    return out


ERROR_COLUMNS = ("position m [tokens]", "max angle error [rad]", "max cos error",
                 "max sin error")


@ui.table
def spacing_parts(max_position: int, dtypes: tuple) -> dict:
    """The spacing table per dtype: {dtype: {column: array}}."""
    return parts_of(spacing(max_position, dtypes), ("dtype",),
                    ("position m [tokens]", "spacing [tokens]"))


@ui.table
def error_parts(dim: int, base: float, max_position: int, dtypes: tuple) -> dict:
    """The error table per (dtype, recipe), in the table's order: {(d, r): {column: array}}."""
    return parts_of(errors(dim, base, max_position, dtypes), ("dtype", "recipe"),
                    ERROR_COLUMNS)


@ui.table
def relative_parts(dim: int, base: float, gap: int, max_shift: int, recipe: str) -> dict:
    """The relative-position table per dtype: {dtype: {column: array}}."""
    return parts_of(relative(dim, base, gap, max_shift, recipe), ("dtype",),
                    ("shift D [tokens]", "score difference"))


def step_corners(y: np.ndarray) -> np.ndarray:
    """Rows a step line (shape "hv") needs: the first of each run of equal values and the
    last row. The rows in between add nothing to the line drawn."""
    keep = np.ones(len(y), dtype=bool)
    keep[1:-1] = y[1:-1] != y[:-2]
    return keep


def recipe_name(recipe: str) -> str:
    """A recipe's name in figures and sentences, translated."""
    return _(RECIPE_NAME[recipe])


def listing(items) -> str:
    """Items joined for a sentence ("a, b" / "a、b")."""
    # Translators: the separator between the items of a list ("1,024, 4,096"); Chinese "、".
    return _(", ").join(items)


@ui.figure
def spacing_figure(max_position: int, dtypes: tuple):
    """Spacing between neighbouring representable positions, one step line per dtype."""
    parts = spacing_parts(max_position, dtypes)
    traces = []
    for n, d in enumerate(dtypes):
        part = parts[d]
        keep = step_corners(part["spacing [tokens]"])
        traces.append(dict(type="scatter", x=part["position m [tokens]"][keep],
                           y=part["spacing [tokens]"][keep], name=d, mode="lines",
                           line=dict(color=ui.COLORS[n], width=2, shape="hv")))
    return ui.kept_figure(traces, title=_("Spacing between neighbouring representable positions"),
                          x=_("position m [tokens] (log scale)"),
                          y=_("spacing [tokens] (log scale)"), height=440, xaxes=ui.LOG_AXIS,
                          yaxes=ui.LOG_AXIS)


def error_lines(parts: dict, dtypes: tuple, column: str, recipes: tuple) -> list:
    """One line per (dtype, recipe), as trace dicts: colour by dtype, dash by recipe. The
    lines stay out of the legend (their hover names them); :func:`error_key` gives it one
    entry per dtype and one per recipe, so that it fits a phone whatever the choice."""
    traces = []
    for n, d in enumerate(dtypes):
        for r in recipes:
            part = parts[d, r]
            traces.append(dict(type="scatter", x=part["position m [tokens]"], y=part[column],
                               name=_("{dtype}, {recipe}").format(dtype=d,
                                                                  recipe=recipe_name(r)),
                               mode="lines", line=dict(color=ui.COLORS[n], width=1.8,
                                                       dash=DASH[r]),
                               legendgroup=d, showlegend=False))
    return traces


def error_key(dtypes: tuple, recipes: tuple) -> list:
    """The legend of :func:`error_lines` as empty traces: each dtype's colour (a click
    hides or shows that dtype's lines) and each recipe's dash, in grey."""
    key = [dict(type="scatter", x=[None], y=[None], name=d, mode="lines", legendgroup=d,
                line=dict(color=ui.COLORS[n], width=3)) for n, d in enumerate(dtypes)]
    key += [dict(type="scatter", x=[None], y=[None], name=recipe_name(r), mode="lines",
                 legendgroup=f"recipe {r}", line=dict(color="#444", width=2, dash=DASH[r]))
            for r in recipes]
    return key


@ui.figure
def angle_figure(dim: int, base: float, max_position: int, dtypes: tuple):
    """Largest angle error over pairs per dtype and recipe (the cache recipe has none)."""
    parts = error_parts(dim, base, max_position, dtypes)
    # the cache recipe has exact angles: error 0, not drawable on a log axis; float32
    # angles do not depend on the dtype: one line, in the legend's grey of its recipe
    recipes = ("positions", "theta", "product")
    traces = error_lines(parts, dtypes, "max angle error [rad]", recipes)
    part = parts[dtypes[0], "float32_angles"]
    traces.append(dict(type="scatter", x=part["position m [tokens]"],
                       y=part["max angle error [rad]"],
                       name=_("any dtype, {recipe}").format(
                           recipe=recipe_name("float32_angles")),
                       mode="lines", line=dict(color="#444", width=2.2,
                                               dash=DASH["float32_angles"]),
                       legendgroup="recipe float32_angles", showlegend=False))
    return ui.kept_figure(
        traces + error_key(dtypes, recipes + ("float32_angles",)),
        title=_("Largest angle error over pairs (d = {dim}, base {base})").format(
            dim=dim, base=ui.fmt_base(base)),
        x=_("position m [tokens] (log scale)"), y=_("angle error [rad]"),
        height=480, xaxes=ui.LOG_AXIS, yaxes=ui.LOG_AXIS)


@ui.figure
def cos_figure(dim: int, base: float, max_position: int, dtypes: tuple):
    """Largest cos error over pairs per dtype and recipe."""
    parts = error_parts(dim, base, max_position, dtypes)
    recipes = tuple(rc.RECIPES)
    return ui.kept_figure(error_lines(parts, dtypes, "max cos error", recipes)
                          + error_key(dtypes, recipes),
                          title=_("Largest cos error over pairs"),
                          x=_("position m [tokens] (log scale)"),
                          y=_("cos error"), height=480, xaxes=ui.LOG_AXIS,
                          yaxes=ui.LOG_AXIS)


@ui.figure
def relative_figure(dim: int, base: float, gap: int, max_shift: int, recipe: str):
    """|score(0, gap) - score(D, gap + D)| against the shift D, one line per dtype."""
    traces = []
    for n, (d, part) in enumerate(relative_parts(dim, base, gap, max_shift, recipe).items()):
        shifted = part["shift D [tokens]"] > 0
        traces.append(dict(type="scatter", x=part["shift D [tokens]"][shifted],
                           y=part["score difference"][shifted], name=d, mode="lines",
                           line=dict(color=(["#444"] + ui.COLORS)[n], width=1.8)))
    return ui.kept_figure(
        traces, title=_("Shift both positions by Δ (m = 0, n = {gap}, recipe {recipe})").format(
            gap=gap, recipe=recipe_name(recipe)),
        x=_("shift Δ [tokens] (log scale)"), y=_("|score difference| (0 for exact RoPE)"),
        height=440, xaxes=ui.LOG_AXIS)


def nan_max(values: np.ndarray) -> float:
    """The largest value that is not NaN (NaN when all are), as pandas' max."""
    kept = values[~np.isnan(values)]
    return kept.max() if kept.size else np.nan


def signed(x: float) -> str:
    """A term of a sum: "+ 0.0219" or "− 0.0297" (three significant digits)."""
    return ("+ " if x >= 0 else "− ") + f"{abs(x):.3g}"


@ui.prose
def neox_issue() -> tuple[str, pa.Table, tuple[str, ...]]:
    """Section 4, which no setting changes: the issue's caption, its table as shown
    (quantities and columns in the run's language) and the sentences under it, written
    once per language."""
    issue, p = neox(), br.NEOX_1003
    issue_title = p["title"]
    issue_title = _(issue_title)  # the issue's title in words (marked in rope_core.limits.breaks)
    # a Markdown link written by the app around a fixed URL of ours: the link ends at its ")",
    # where a bare URL made Streamlit's autolink swallow the Chinese text after it
    caption = _("[{repository} issue #{number}]({url}): “{title}”. Its "
                "reproducer builds the cache in float16 (recipe {recipe}): seq_len {seq_len}, "
                "dim {dim}, base 10⁴; it printed the numbers in the '{reported}' column (on "
                "CUDA; float32 as its reference). The app recomputes them on the CPU, against "
                "float32 for the angle and float64 for the cos error.").format(
        repository=p["repository"], number=p["number"], title=issue_title, url=p["url"],
        recipe=recipe_name(p["recipe"]), seq_len=p["seq_len"], dim=p["dim"],
        reported=_("reported"))
    # The table's quantities in words (rope_core.limits.breaks.neox_issue_table's rows, in order).
    in_words = [
        _("angle m*theta_1 at m = {m}, float32 [rad]").format(m=p["position"]),
        _("angle m*theta_1 at m = {m}, float16 cache [rad]").format(m=p["position"]),
        _("max |cos float16 - cos float32| over m < {length}, all pairs").format(
            length=p["seq_len"]),
    ]
    quantities = in_words if len(issue) == len(in_words) else list(issue["quantity"])
    shown = issue.assign(quantity=quantities).rename(columns={
        "quantity": _("quantity"), "reported": _("reported"), "app": _("app"),
        "difference": _("difference"), "agrees": _("agrees")})
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
    steps = br.neox_rounding_steps()
    notes = (
        agreement,
        _("Position {m} times θ₁ = 10⁴^(−1/16) = {theta} is {angle} rad. In float16, θ₁ is "
          "rounded first, to {theta16}; {m} × {theta16} = {product}, and float16, whose spacing "
          "between 1,024 and 2,048 is 1, rounds that product to {held}: {error} rad from the "
          "exact angle. Over the whole table the cached cos is off by up to {cos_error}.").format(
            m=steps["position"], theta=f"{steps['theta']:.5f}", angle=f"{steps['exact angle']:.2f}",
            theta16=f"{steps['theta float16']:g}", product=f"{steps['product']:.10g}",
            held=f"{steps['held']:g}", error=f"{steps['error']:.2f}",
            cos_error=f"{issue['app'].iloc[2]:.2f}"))
    return caption, ui.arrow(shown), notes


def inexact_metrics() -> list[tuple[str, str, str]]:
    """Each dtype's first position it cannot hold (:func:`inexact_rows`) as a metric:
    (label, value, help)."""
    out = []
    for row in inexact_rows().values():
        first_m = int(row["first inexact position [tokens]"])
        exponent = (first_m - 1).bit_length() - 1  # first_m = 2^p + 1
        out.append((_("{dtype}: first position it cannot hold").format(dtype=row["dtype"]),
                    i18n.integer(first_m) if first_m < 10**8 else f"2^{exponent} + 1",
                    _("{m} = 2^{exponent} + 1: above 2^{exponent} the dtype's spacing is 2, "
                      "so odd positions fall between two representable ones.").format(
                        m=i18n.integer(first_m), exponent=exponent)))
    return out


def spacing_notes(max_position: int, dtypes: tuple) -> tuple[str, str]:
    """The sentences under the spacing: each dtype's spacing at the largest position, and
    where bfloat16 and float16 stop holding every position (:func:`inexact_rows`)."""
    sp = spacing_parts(max_position, dtypes)
    first_rows = inexact_rows()
    bits = []
    for d in dtypes:
        # the last position of the log-spaced grid is max_position
        value = sp[d]["spacing [tokens]"][-1]
        bits.append(f"{d} {value:g}" if value != float("inf")
                    else _("{dtype} ∞ (overflow)").format(dtype=d))
    return (
        _("**At m = {m} the spacing is** {values} tokens.").format(
            m=i18n.integer(max_position), values=listing(bits)),
        _("bfloat16 stops at {bf_first} (it becomes {bf_held}) and float16 at {f16_first}: past "
          "these, neighbouring tokens share one position. float16 also overflows at "
          "{overflow}.").format(
            bf_first=i18n.integer(int(first_rows["bfloat16"]["first inexact position [tokens]"])),
            bf_held=f"{first_rows['bfloat16']['held as [tokens]']:.0f}",
            f16_first=i18n.integer(int(first_rows["float16"]["first inexact position [tokens]"])),
            overflow=i18n.integer(65_520)))


def at_end(dim: int, base: float, max_position: int, dtypes: tuple) -> dict:
    """Each error line's values at ``max_position``, the last of its log-spaced grid, in
    the table's order: {(dtype, recipe): {column: value}}."""
    err = error_parts(dim, base, max_position, dtypes)
    return {key: {c: v[-1] for c, v in part.items()} for key, part in err.items()}


def error_notes(dim: int, base: float, max_position: int, dtypes: tuple) -> tuple[str, str]:
    """The sentences under the errors: the worst angle error at the largest position (and
    float16's overflow), and the cos error of a cache stored in each dtype."""
    last = at_end(dim, base, max_position, dtypes)
    # the first largest finite angle error (NaN and inf left out), as pandas' idxmax
    (worst_dtype, worst_recipe), worst = max(
        ((key, row) for key, row in last.items() if row["max angle error [rad]"] < float("inf")),
        key=lambda item: item[1]["max angle error [rad]"])
    overflow = "float16" in dtypes and max_position >= 65_520
    cache = {d: last[d, "cache"]["max cos error"] for d in dtypes}
    worst_args = dict(m=i18n.integer(max_position), error=f"{worst['max angle error [rad]']:.3g}",
                      dtype=worst_dtype, recipe=recipe_name(worst_recipe))
    if overflow:
        worst_text = _("**At m = {m} the worst angle error** is {error} rad ({dtype}, recipe "
                       "{recipe}); float16 positions from {overflow} on overflow to ∞ (no angle "
                       "at all).").format(overflow=i18n.integer(65_520), **worst_args)
    else:
        worst_text = _("**At m = {m} the worst angle error** is {error} rad ({dtype}, recipe "
                       "{recipe}).").format(**worst_args)
    return (
        worst_text,
        _("An error near π or above turns the pair to an unrelated direction. Storing only the "
          "cos/sin cache in low precision keeps the angle exact and bounds the cos error by the "
          "dtype's rounding: {values}, whatever the position.").format(
            values=listing(f"{d} {cache[d]:.1e}" for d in dtypes)))


def current_notes(dim: int, base: float, max_position: int, dtypes: tuple) -> tuple[str, ...]:
    """What current code (transformers) does: its angle error, split into a fixed change of
    frequency and the product's rounding (rope_core.float32_angle_parts), and what a cast
    `inv_freq` brings back (only with bfloat16 shown: else an empty sentence)."""
    last = at_end(dim, base, max_position, dtypes)
    f32 = {d: last[d, "float32_angles"] for d in dtypes}
    theta_at_end = {d: last[d, "theta"]["max angle error [rad]"] for d in dtypes}
    # transformers' angle error at m = max_position, split: m·(θ₃₂ − θ) + the product's rounding
    offset, rounding = (v.numpy() for v in rc.float32_angle_parts(max_position, dim, base))
    pair = int(np.argmax(np.abs(offset + rounding)))  # the pair with the largest error
    half = float(rc.grid_spacing([max_position], "float32")[0]) / 2
    reference = float(sum(rc.float32_angle_parts(10**6, 128, 1e4)).abs().max())  # d 128, base 10⁴
    current = dict(recipe=recipe_name("float32_angles"), version=rc.TRANSFORMERS_VERSION,
                   error=f"{f32[dtypes[0]]['max angle error [rad]']:.3g}",
                   m=i18n.integer(max_position), spacing=f"{2 * half:.3g}",
                   reference=f"{reference:.3g}",
                   values=listing(f"{d} {f32[d]['max cos error']:.1e}" for d in dtypes))
    if (dim, base, max_position) == (128, 1e4, 10**6):
        current_text = _(
            "**What current code does.** transformers builds `inv_freq` in float32, forms the "
            "angles m·θᵢ as a float32 product (`position_ids.float() * inv_freq` in transformers "
            "{version}; "
            "4.x used a float32 matrix product with `autocast` off) and casts only cos and sin to "
            "the model's dtype (recipe {recipe}, drawn in grey): its angle error is float32's, the "
            "same in every dtype, {error} rad at m = {m} (float32's spacing there is {spacing}). "
            "Cos errors with the cast cache at m = {m}: {values}.").format(**current)
    else:
        current_text = _(
            "**What current code does.** transformers builds `inv_freq` in float32, forms the "
            "angles m·θᵢ as a float32 product (`position_ids.float() * inv_freq` in transformers "
            "{version}; "
            "4.x used a float32 matrix product with `autocast` off) and casts only cos and sin to "
            "the model's dtype (recipe {recipe}, drawn in grey): its angle error is float32's, the "
            "same in every dtype, {error} rad at m = {m} (float32's spacing there is {spacing}); "
            "{reference} rad at m = 10⁶ for d = 128, base 10⁴. Cos errors with the cast cache at "
            "m = {m}: {values}.").format(**current)
    return (
        current_text,
        _("That error has two parts; for pair {pair}, the largest at m = {m}: {total} = {offset} "
          "{rounding} rad. The first, m·(θᵢ in float32 − θᵢ), is there because float32's "
          "`inv_freq` is not exactly base^(−2i/d): a fixed change of frequency that q and k "
          "share, and training too if it built θᵢ the same way, so it keeps scores a function "
          "of n − m. The second is the rounding of the product m·θᵢ to float32, at most half "
          "float32's spacing ({half} rad here) and different at every position: this part "
          "breaks the relative property (section 3), and it grows with m as the spacing "
          "doubles at every power of two.").format(
            pair=pair, m=i18n.integer(max_position), total=f"{offset[pair] + rounding[pair]:.3g}",
            offset=f"{offset[pair]:.3g}", rounding=signed(rounding[pair]), half=f"{half:.3g}"),
        _("A model whose `inv_freq` buffer was cast with it (`model.to(torch.bfloat16)` casts "
          "buffers too) brings back recipe {theta}: θᵢ held in bfloat16, {theta_error} rad from "
          "the exact angle at m = {m}. That rounded θᵢ is the same for q and k, so scores still "
          "depend on n − m alone (section 3); the harm is a mismatch with training: each pair "
          "turns at a speed the model never learned, by an angle error that grows with the "
          "distance n − m ({theta_error} rad at n − m = {m}).").format(
            theta=recipe_name("theta"), m=i18n.integer(max_position),
            theta_error=f"{theta_at_end['bfloat16']:.2g}") if "bfloat16" in dtypes else "")


def relative_notes(dim: int, base: float, gap: int, max_position: int,
                   recipe: str) -> tuple[str, str, str]:
    """The sentences under the relative-position check (:func:`relative_parts`): the largest
    score difference per dtype (and the shifts float16 cannot score), which dtypes stay
    within float64's own rounding, and why the recipe keeps the property or not."""
    rel = relative_parts(dim, base, gap, max_position, recipe)
    rmax = {d: nan_max(part["score difference"]) for d, part in rel.items()}
    n_nan = sum(int(np.isnan(part["score difference"]).sum()) for part in rel.values())
    rel_args = dict(most=i18n.integer(max_position), dim=dim,
                    values=listing(f"{d} {v:.2g}" for d, v in rmax.items()))
    if n_nan:
        largest = ngettext(
            "Largest difference up to Δ = {most}: {values} (the all-ones score lies between "
            "−d and d, d = {dim}); {n} shift gives no score at all (float16 overflow, not "
            "drawn).",
            "Largest difference up to Δ = {most}: {values} (the all-ones score lies between "
            "−d and d, d = {dim}); {n} shifts give no score at all (float16 overflow, not "
            "drawn).",
            n_nan).format(n=i18n.integer(n_nan), **rel_args)
    else:
        largest = _("Largest difference up to Δ = {most}: {values} (the all-ones score lies "
                    "between −d and d, d = {dim}).").format(**rel_args)
    # float64's own rounding can move the score by at most this much (q = k = ones, every
    # position up to Δ + n): a dtype below it keeps the relative property
    bound = rc.relative_rounding_bound(dim, base, max_position + gap)
    kept = [d for d, v in rmax.items() if v <= bound]  # NaN (no score at all) is not kept
    broken = [d for d in rmax if d not in kept]
    bound_args = dict(bound=f"{bound:.1e}", kept=listing(kept), broken=listing(broken))
    if not broken:
        verdict = _("Every dtype shown stays within float64's own rounding ({bound} "
                    "here).").format(**bound_args)
    elif not kept:
        verdict = _("No dtype shown stays within float64's own rounding ({bound} here): the "
                    "score depends on more than n − m.").format(**bound_args)
    else:
        verdict = _("Within float64's own rounding ({bound} here): {kept}; above it, so "
                    "depending on more than n − m: {broken}.").format(**bound_args)
    return largest, verdict, _(RELATIVE_WHY[recipe]).format(recipe=recipe_name(recipe))
