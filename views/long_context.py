"""The Long context page's figures (pages/long_context.py) and the cached tables and
sentences that feed them: the largest angle per pair in training and at s·L, the wavelengths
with the critical dimension, B_m against distance, which bases pass for a context, and the
verdicts on Liu et al.'s and Men et al.'s bounds and on the presets."""

import math

import pandas as pd
import pyarrow as pa

import rope_core as rc
import rope_core.limits.breaks as br
import ui
from rope_core.limits import compare
from rope_core.limits.capacity import BASE_GRID_RATIO
from ui import constants, i18n
from ui.i18n import _, ngettext
from ui.layers import group_label

TWO_PI = 2 * math.pi
METHODS = [m for m in br.OOD_METHODS if m != "none"]


@ui.table
def ood_table(dim: int, base: float, train: int, factor: int, method: str) -> pd.DataFrame:
    return br.ood_angle_table(dim, base, train, float(factor), ("none", method))


OOD_COLUMNS = ("pair i", "wavelength [tokens]", "train max angle [rad]",
               "inference max angle [rad]", "unseen")


@ui.table
def ood_columns(dim: int, base: float, train: int, factor: int, method: str) -> tuple:
    """ood_table's rows without scaling and with ``method``, as numpy columns."""
    ood = ood_table(dim, base, train, factor, method)
    plain = ood["method"].to_numpy() == "none"
    columns = {c: ood[c].to_numpy() for c in OOD_COLUMNS}
    return ({c: v[plain] for c, v in columns.items()},
            {c: v[~plain] for c, v in columns.items()})


@ui.table
def liu_summary(dim: int, base: float, train: int, new_base: float) -> dict:
    """Liu et al.'s critical dimension and extrapolation limits (rope_core.limits.breaks)."""
    return br.liu_summary(dim, base, train, new_base)


@ui.table
def bm_table(dim: int, base: float, max_distance: int) -> pd.DataFrame:
    return br.cos_sum_curve(dim, base, max_distance)


@ui.table
def first_negative(dim: int, base: float, max_distance: int):
    return rc.first_negative_distance(dim, base, max_distance)


@ui.table
def bound(dim: int, context: int) -> dict:
    return br.base_bound(dim, context)


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


def method_label(method: str) -> str:
    """The method's name for people (rope_core's label, translated); dynamic NTK says which
    transformers `factor` it runs with here (f = 1: α = n/L, YaRN's definition)."""
    if method == "dynamic":
        return _("{label} with f = 1").format(label=_(rc.SCALING_LABELS[method]))
    return _(rc.SCALING_LABELS[method])


def whole(x: float) -> str:
    return i18n.number(x, "#,##0")


def hline(y: float, line: dict, text: str | None = None, log: bool = False) -> tuple:
    """The shape (and label) ``fig.add_hline(y, line=line, annotation_text=text)`` writes;
    ``log`` when the y axis is logarithmic (the label then sits at log10(y): ui.hline_note).
    The label goes at the left end, above the line: on this page's falling angles and
    rising wavelengths that corner is free of data."""
    shape = dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=y, y1=y, line=line)
    return shape, (ui.hline_note(y, text, log=log, end="left"),) if text is not None else ()


def vline(x: float, line: dict, text: str | None = None) -> tuple:
    """The shape (and label) ``fig.add_vline(x, line=line, annotation_text=text)`` writes."""
    shape = dict(type="line", xref="x", x0=x, x1=x, yref="y domain", y0=0, y1=1, line=line)
    note = dict(showarrow=False, text=text, x=x, xanchor="left", xref="x", y=1,
                yanchor="top", yref="y domain")
    return shape, (note,) if text is not None else ()


def line_trace(x, y, name: str, line: dict, mode: str = "lines") -> dict:
    return dict(type="scatter", x=x, y=y, mode=mode, name=name, line=line)


@ui.figure
def ood_figure(dim: int, base: float, train: int, factor: int, method: str):
    """Largest angle per pair in training and at s·L, plain and scaled; unseen ones marked."""
    plain, scaled = ood_columns(dim, base, train, factor, method)
    pairs = plain["pair i"]
    traces = [
        line_trace(pairs, plain["train max angle [rad]"],
                   _("training: L·θᵢ, L = {length}").format(length=i18n.integer(train)),
                   dict(color=ui.COLORS[0], width=2.5)),
        line_trace(pairs, plain["inference max angle [rad]"],
                   _("inference at s·L = {length}, no scaling").format(
                       length=i18n.integer(factor * train)),
                   dict(color=ui.COLORS[1], width=1.8)),
        line_trace(pairs, scaled["inference max angle [rad]"],
                   _("inference at s·L, {method}").format(method=method_label(method)),
                   dict(color=ui.COLORS[2], width=1.8, dash="dash"))]
    for rows, color, label in ((plain, ui.COLORS[1], _("no scaling")),
                               (scaled, ui.COLORS[2], method_label(method))):
        bad = rows["unseen"]
        n = int(bad.sum())
        if n:
            traces.append(dict(
                type="scatter", x=rows["pair i"][bad], y=rows["inference max angle [rad]"][bad],
                mode="markers", marker=dict(color=color, size=7, symbol="x"),
                name=ngettext("unseen angles, {method}: {n} pair",
                              "unseen angles, {method}: {n} pairs", n).format(
                    method=label, n=n)))
    shape, notes = hline(TWO_PI, dict(color="#888", dash="dot"), _("2π: one turn"), log=True)
    return ui.kept_figure(traces, title=_("Largest angle per pair: training vs inference"),
                          x=_("pair i"), y=_("largest angle [rad] (log scale)"), height=440,
                          yaxes=ui.LOG_AXIS, shapes=(shape,), annotations=notes)


@ui.figure
def wavelength_figure(dim: int, base: float, train: int, factor: int, method: str,
                      new_base: int):
    """Wavelength per pair against the training length, the critical pair marked."""
    plain, _scaled = ood_columns(dim, base, train, factor, method)
    critical_pair = liu_summary(dim, base, train, float(new_base))["critical_pair"]  # (d/2,)
    traces = [line_trace(plain["pair i"], plain["wavelength [tokens]"], _("wavelength 2π/θᵢ"),
                         dict(color=ui.COLORS[0], width=2.5))]
    h_shape, h_notes = hline(train, dict(color=ui.COLORS[1], dash="dash"),
                             _("L = {length} tokens").format(length=i18n.integer(train)),
                             log=True)
    v_shape, v_notes = vline(critical_pair, dict(color=ui.COLORS[3], dash="dot"),
                             f"d_extra/2 = {critical_pair}")
    return ui.kept_figure(
        traces, title=_("Wavelengths and the critical dimension (d = {dim}, base {base})")
        .format(dim=dim, base=ui.fmt_base(base)), x=_("pair i"),
        y=_("wavelength [tokens] (log scale)"), height=440, yaxes=ui.LOG_AXIS,
        shapes=(h_shape, v_shape), annotations=h_notes + v_notes)


@ui.figure
def bm_figure(dim: int, base: float, max_distance: int):
    """B_m against distance, its first negative value marked."""
    bm = bm_table(dim, base, max_distance)
    neg = first_negative(dim, base, max_distance)
    traces = [line_trace(bm["distance m [tokens]"].to_numpy(), bm["B_m"].to_numpy(), "B_m",
                         dict(color=ui.COLORS[0], width=1.6))]
    shapes, notes = [hline(0, dict(color="#888"))[0]], ()
    if neg is not None:
        shape, notes = vline(neg, dict(color=ui.COLORS[1], dash="dash"),
                             _("first B_m < 0: m = {m}").format(m=i18n.integer(neg)))
        shapes.append(shape)
    return ui.kept_figure(traces, title=_("B_m against distance (d = {dim}, base {base})").format(
                              dim=dim, base=ui.fmt_base(base)),
                          x=_("distance m [tokens]"), y="B_m = Σᵢ cos(m·θᵢ)", height=440,
                          shapes=tuple(shapes), annotations=notes)


@ui.figure
def island_figure(dim: int, context: int):
    """Which bases pass for the context: the islands, the smallest base and the threshold."""
    r = bound(dim, context)
    lo, hi = r["smallest"] / 1.3, r["threshold"] * 1.3
    ratio = BASE_GRID_RATIO
    # passing: every island (at least one grid cell wide, so that it shows) and all
    # bases from the threshold on; failing: the gaps. One trace each, None between.
    passing = [(a, b * ratio) for a, b in r["islands"]] + [(r["threshold"], hi)]
    failing, left = [], lo
    for a, b in passing:
        if a > left:
            failing.append((left, a))
        left = b
    traces = []
    for spans, y, color, name in (
            (passing, 1, ui.COLORS[2], _("passes: B_m ≥ 0 for every m < L")),
            (failing, 0, ui.COLORS[1], _("fails: some B_m < 0"))):
        xs, ys = [], []
        for a, b in spans:
            xs += [a, b, None]
            ys += [y, y, None]
        # a tick at each end, so that an island a pixel wide still shows
        traces.append(dict(type="scatter", x=xs, y=ys,
                           mode="lines+markers" if y else "lines", name=name,
                           line=dict(color=color, width=14),
                           marker=dict(symbol="line-ns-open", size=22, color=color,
                                       line=dict(width=2, color=color))))
    # vertical lines; their labels are placed by hand: on a log axis Plotly puts a
    # vline's own annotation at x instead of log10(x), off the plot
    shapes, notes = [], []
    for x, dash, label, anchor in (
            (r["smallest"], "dot",
             _("smallest: {base}").format(base=whole(r["smallest"])), "left"),
            (r["threshold"], "dash",
             _("all grid bases pass from {base}").format(base=whole(r["threshold"])), "right")):
        # inside the plot: the smallest's label to its right (above the bars), the
        # threshold's to its left (below them), so that neither runs past an edge
        shapes.append(vline(x, dict(color="#444", dash=dash))[0])
        notes.append(dict(x=ui.at(x, log=True), y=1.45 if anchor == "left" else -0.45, text=label,
                          showarrow=False, xanchor=anchor, xshift=4 if anchor == "left" else -4,
                          bgcolor="rgba(255,255,255,0.8)"))
    return ui.kept_figure(
        traces, title=_("Which bases pass for L = {length} (d = {dim})").format(
            length=i18n.integer(context), dim=dim),
        x=_("base (log scale)"), y=_("passes (1) or fails (0)"), height=320,
        xaxes=dict(ui.LOG_AXIS, range=[math.log10(lo), math.log10(hi)]),
        yaxes=dict(tickvals=[0, 1], range=[-0.6, 1.6]), shapes=tuple(shapes),
        annotations=tuple(notes))



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


def unseen_notes(dim: int, base: float, train: int, factor: int, method: str,
                 new_base: int) -> tuple[str, ...]:
    """The sentences under section 1: how many pairs turn within L and the critical
    dimension, how many pairs meet unseen angles at s·L with and without the method,
    which methods keep every pair inside (:func:`kept_inside`), and what Liu et al.'s
    bound says for the base after tuning."""
    plain_rows, scaled_rows = ood_columns(dim, base, train, factor, method)
    liu = liu_summary(dim, base, train, float(new_base))
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
    return (
        ngettext("**What to notice.** With d = {dim}, base {base} and L = {length}, {n} of "
                 "{pairs} pairs completes at least one turn in training (its angles cover "
                 "every value mod 2π); the critical dimension is d_extra = {critical} (pair "
                 "{pair} is the boundary).",
                 "**What to notice.** With d = {dim}, base {base} and L = {length}, {n} of "
                 "{pairs} pairs complete at least one turn in training (their angles cover "
                 "every value mod 2π); the critical dimension is d_extra = {critical} (pair "
                 "{pair} is the boundary).", turned).format(
            dim=dim, base=ui.fmt_base(base), length=i18n.integer(train), n=turned,
            pairs=dim // 2, critical=liu["critical_dimension"], pair=liu["critical_pair"]),
        ngettext("Running at s·L = {length} tokens without scaling pushes {n} pair past "
                 "anything it saw (marked ×); with {method} the count is {scaled}.",
                 "Running at s·L = {length} tokens without scaling pushes {n} pairs past "
                 "anything they saw (marked ×); with {method} the count is {scaled}.",
                 n_plain).format(
            length=i18n.integer(factor * train), n=n_plain, method=method_label(method),
            scaled=n_scaled),
        kept_inside(dim, base, train, factor),
        liu_text)


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
