"""The Long context page's figures (pages/long_context.py) and the cached tables and
helpers that feed them: the largest angle per pair in training and at s·L, the wavelengths
with the critical dimension, B_m against distance, and which bases pass for a context."""

import math

import pandas as pd

import rope_core as rc
import rope_core.limits.breaks as br
import ui
from rope_core.limits.capacity import BASE_GRID_RATIO
from ui import i18n
from ui.i18n import _, ngettext

TWO_PI = 2 * math.pi


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
