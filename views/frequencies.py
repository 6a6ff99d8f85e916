"""The Frequencies page's figures (pages/frequencies.py) and the cached tables and
sentences that feed them: θᵢ and the wavelength of every pair for up to three bases and a
scaled spectrum, with the context length marked, and how many pairs turn within it."""

import math

import pandas as pd

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import N_, _

# Translators: short names of scaling methods in a plot's legend ("base 10⁴, linear x4").
LEGEND_NAMES = {"linear": N_("linear"), "ntk": N_("ntk"), "dynamic": N_("dynamic"),
                "yarn": N_("yarn"), "llama3": N_("llama3")}


@ui.table
def theta_tables(dim: int, bases: tuple, context: int, method: str, factor: int,
                 device: str) -> pd.DataFrame:
    """One tidy table: a block of rows per base (and the scaled spectrum)."""
    blocks = []
    for base in bases:
        theta = rc.theta(dim, base, device=device)
        blocks.append(rc.theta_table(theta, context, base=base, scaling="none"))
        if method != "none":
            # dynamic NTK with transformers' factor 1: alpha = s at s L (YaRN's definition)
            params = rc.comparison_params(method, float(factor), context)
            scaled = rc.scaled_theta(dim, base, method, seq_len=context * factor, **params)[0]
            # a scaled model runs at factor * context tokens
            blocks.append(rc.theta_table(scaled, context * factor, base=base,
                                         scaling=f"{method} x{factor}"))
    return pd.concat(blocks, ignore_index=True)


def spectrum_lines(dim: int, bases: tuple, context: int, method: str, factor: int,
                   device: str, column: str, hover: str) -> list[dict]:
    """One line per base (and scaled spectrum) of ``column`` against the pair index:
    solid plain, dashed scaled, a colour per base."""
    df = theta_tables(dim, bases, context, method, factor, device)
    # theta_tables' blocks of d/2 rows, in its order: per base, plain, then scaled
    x, y, half = df["pair i"].to_numpy(), df[column].to_numpy(), dim // 2
    blocks = [(base, scaled) for base in bases
              for scaled in ((False,) if method == "none" else (False, True))]
    traces = []
    for k, (base, scaled) in enumerate(blocks):
        color = ui.COLORS[bases.index(base) % len(ui.COLORS)]
        name = (_("base {base}, {method} x{factor}").format(
                    base=ui.fmt_base(base), method=_(LEGEND_NAMES[method]), factor=factor)
                if scaled else _("base {base}").format(base=ui.fmt_base(base)))
        line = dict(color=color, dash="dash" if scaled else "solid")
        rows = slice(k * half, (k + 1) * half)
        traces.append(dict(type="scatter", x=x[rows], y=y[rows], name=name,
                           mode="lines+markers", line=line, marker=dict(size=4),
                           hovertemplate="i=%{x}<br>" + hover + "<extra>" + name + "</extra>"))
    return traces


def context_line(tokens: int, label: str, color: str) -> tuple[dict, dict]:
    """A dotted horizontal line at ``tokens`` on the log wavelength axis and its label
    (annotations on a log axis take log10 of the value): (shape, annotation)."""
    return ui.hline(tokens, color), dict(
        x=0, xref="paper", xanchor="left", y=math.log10(tokens), yanchor="bottom",
        showarrow=False, font=dict(size=13, color=color),
        text=_("{label} = {tokens} tokens").format(label=label, tokens=i18n.integer(tokens)))


def log_spectrum(settings: tuple, column: str, hover: str, title: str, y: str,
                 height: int, lines: tuple = ()) -> ui.Frozen:
    """One line per base of the spectrum column ``column`` against the pair index, on a
    log y axis; ``settings`` = (dim, bases, context, method, factor, device); ``lines``:
    :func:`context_line`'s, drawn over them. Built as the kept form (ui.kept_figure):
    as Plotly objects the traces, lines and labels were most of the page's CPU."""
    return ui.kept_figure(spectrum_lines(*settings, column, hover), title=title,
                          x=_("pair index i"), y=y, height=height, yaxes=dict(ui.LOG_AXIS),
                          shapes=tuple(shape for shape, _note in lines),
                          annotations=tuple(note for _shape, note in lines))


@ui.figure
def theta_figure(dim: int, bases: tuple, context: int, method: str, factor: int,
                 device: str) -> ui.Frozen:
    """θᵢ per pair, log scale."""
    return log_spectrum((dim, bases, context, method, factor, device), "theta_i [rad/token]",
                        _("θ={theta} rad/token").format(theta="%{y:.3e}"),
                        _("Frequency θᵢ of each pair (log scale)"), _("θᵢ [rad/token]"), 380)


@ui.figure
def wavelength_figure(dim: int, bases: tuple, context: int, method: str, factor: int,
                      device: str) -> ui.Frozen:
    """λᵢ per pair, log scale, with L (and s·L when scaled) marked."""
    lines = [context_line(context, "L", "black")]
    if method != "none":
        lines.append(context_line(context * factor, "s·L", "gray"))
    return log_spectrum((dim, bases, context, method, factor, device), "wavelength [tokens]",
                        _("λ={value} tokens").format(value="%{y:,.1f}"),
                        _("Wavelength λᵢ = 2π/θᵢ: tokens for one full turn (log scale)"),
                        _("wavelength λᵢ [tokens]"), 420, tuple(lines))


@ui.table
def turns(dim: int, bases: tuple, context: int, method: str, factor: int,
          device: str) -> tuple[int, int | None, float]:
    """For the first base, unscaled: how many pairs turn at least once within the
    context, the first pair that does not (None: every pair does), and the last θᵢ."""
    df = theta_tables(dim, bases, context, method, factor, device)
    main = df[(df["base"] == bases[0]) & (df["scaling"] == "none")]
    slow = main.loc[~main["full turn within L"], "pair i"]
    return (int(main["full turn within L"].sum()), int(slow.iloc[0]) if len(slow) else None,
            float(main["theta_i [rad/token]"].iloc[-1]))


def turn_notes(dim: int, bases: tuple, context: int, method: str, factor: int,
               device: str) -> tuple[str, ...]:
    """The sentences on how the first base's pairs turn within the context (:func:`turns`):
    how far θᵢ falls, how many pairs complete a turn, and the low-precision note when some
    never do."""
    full, first_slow, last = turns(dim, bases, context, method, factor, device)
    counts = dict(full=full, half=dim // 2, context=i18n.integer(context))
    return (
        _("With base {base} and d = {dim}, θᵢ falls geometrically from 1 rad/token (a turn every "
          "2π ≈ 6.3 tokens) to {last}.").format(
              base=ui.fmt_base(bases[0]), dim=dim,
              last=f"{last:.2e}"),
        _("**{full} of {half} pairs** turn at least once within L = {context} tokens (below the "
          "dotted line); pairs i ≥ {first} never complete one turn within L: their angle never "
          "wraps around, so in exact arithmetic it alone identifies every position in the "
          "context (it does not order them: cos is monotone only over half a turn).").format(
              first=first_slow, **counts)
        if first_slow is not None else
        _("**{full} of {half} pairs** turn at least once within L = {context} tokens (below the "
          "dotted line); every pair completes at least one turn within L.").format(**counts),
        *([ui.slow_pairs_in_low_precision()] if first_slow is not None else []))
