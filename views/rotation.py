"""The Rotation page's animation (pages/rotation.py) and the cached tables and sentences
that feed it: one 2-D pair of q and k turning frame by frame, typed q and k read safely,
and what the frames show (how fast the pair turns, what the dot product does)."""

import math
import re

import numpy as np
import pandas as pd
import torch

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _, ngettext

MAX_COORD = 1e6  # |x|, |y| of q and k
MIN_LENGTH = 1e-6  # |q|, |k| (a zero vector has no direction)
FRAME_MS = 120  # animation speed: one frame every 120 ms
COL_DOT = "dot product q'.k'"
COL_DEG = "angle from q' to k' [deg]"
COL_RAD = "angle from q' to k' [rad]"
COL_M, COL_N = "m [tokens]", "n [tokens]"


@ui.table
def rotation_frames(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str, m0: int,
                    n0: int, step: int, frames: int) -> pd.DataFrame:
    """One row per frame t: q at m = m0 + t*step, k at n = n0 (advance) or n0 + t*step
    (shift), pair ``pair`` turned by rope_core (rope_core.rotation_frames_table)."""
    return rc.rotation_frames_table(q, k, pair, dim, base, mode, m0, n0, step, frames)


@ui.table
def frames_summary(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str, m0: int,
                   n0: int, step: int, frames: int) -> dict:
    """What the text quotes from rotation_frames, once per setting: the tokens the query
    travels, the lowest, highest and first dot product and the first angle between q'
    and k'."""
    df = rotation_frames(q, k, pair, dim, base, mode, m0, n0, step, frames)
    ms, dots = df[COL_M].to_numpy(), df[COL_DOT]
    return {"span": int(ms[-1] - ms[0]), "low": dots.min(), "high": dots.max(),
            "first": dots.iloc[0], "angle": df[COL_DEG].iloc[0]}


def parse_vector(text: str, name: str) -> tuple:
    """'x, y' (brackets optional) -> (x, y); ValueError naming what is wrong."""
    body = text.strip().strip("()[]").strip()
    parts = [p for p in re.split(r"[,;\s]+", body) if p]
    allowed = _("two numbers written as “x, y” (e.g. “1, 0.5”), each between −{most} and "
                "{most}, not both zero").format(most=i18n.integer(int(MAX_COORD)))
    fields = dict(name=name, text=text, allowed=allowed)
    if len(parts) != 2:
        raise ValueError(ngettext("{name} = “{text}” is not allowed: {name} must be {allowed}; "
                                  "found {n} value.",
                                  "{name} = “{text}” is not allowed: {name} must be {allowed}; "
                                  "found {n} values.", len(parts)).format(n=len(parts), **fields))
    try:
        x, y = (float(p) for p in parts)
    except ValueError:
        raise ValueError(_("{name} = “{text}” is not allowed: {name} must be {allowed}; one of "
                           "the values is not a number.").format(**fields)) from None
    if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > MAX_COORD:
        raise ValueError(_("{name} = “{text}” is not allowed: {name} must be {allowed}.").format(
            **fields))
    if math.hypot(x, y) < MIN_LENGTH:
        raise ValueError(_("{name} = “{text}” is not allowed: {name} must not be the zero vector "
                           "(length at least {least}): it has no direction to rotate.").format(
                               name=name, text=text, least=f"{MIN_LENGTH:g}"))
    return x, y


def arrow(x: float, y: float, name: str, color: str) -> dict:
    """A thick arrow from the origin to (x, y), in the pair's plane."""
    return dict(type="scatter", x=[0.0, x], y=[0.0, y], name=name, mode="lines+markers",
                line=dict(color=color, width=6),
                marker=dict(symbol=["circle", "arrow"], size=[8, 22], angleref="previous",
                            color=color),
                hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
                xaxis="x", yaxis="y")


def tips(xs, ys, name: str, color: str) -> dict:
    """Light rings where the arrow's tip is in every frame (its whole route at a glance):
    open, not faded, so that each ring keeps its colour's 3:1 against white."""
    return dict(type="scatter", x=xs, y=ys, name=name, mode="markers",
                marker=dict(color=color, size=6, symbol="circle-open", line=dict(width=1)),
                showlegend=False,
                hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
                xaxis="x", yaxis="y")


def frame_titles(df: pd.DataFrame, pair: int) -> list[str]:
    """Each frame's title: where q and k sit, then the angle between them and their dot
    product (three lines, each short enough for a phone). The templates are translated
    once for all frames (up to 120)."""
    where = _("Pair i = {pair}: q at m = {m}, k at n = {n}")
    angle = _("angle from q' to k' = {degrees}° ({radians} rad)")
    return [f"{where.format(pair=pair, m=int(m), n=int(n))}<br><span style='font-size:15px'>"
            f"{angle.format(degrees=f'{deg:+.1f}', radians=f'{rad:+.3f}')}<br>"
            f"q'·k' = {dot:+.4f}</span>"
            for m, n, deg, rad, dot in zip(df[COL_M].to_numpy(), df[COL_N].to_numpy(),
                                           df[COL_DEG].to_numpy(), df[COL_RAD].to_numpy(),
                                           df[COL_DOT].to_numpy())]


# The animated figure's vertical layout in pixels (its height is fixed, its width
# follows the page): above the plot the mode bar's strip and the three-line title (TOP),
# under it the x-axis title, Play/Pause, the slider (its current value above, its ticks
# below), then the legend, up to three rows at 390 px.
HEIGHT, TOP, VSPACE = 1000, 150, 0.22
BAND = 1.3  # the q'·k' axis spans ±1.3 |q||k|: a band of 0.3 |q||k| (26 px) beyond each bound
BUTTONS_PX, SLIDER_PX, LEGEND_PX = 62, 104, 75
BOTTOM = SLIDER_PX + 80 + LEGEND_PX


def below(pixels: int) -> float:
    """Paper y of a point ``pixels`` under the plot area (for menus and sliders,
    which Plotly places in paper units only)."""
    return -pixels / (HEIGHT - TOP - BOTTOM)


@ui.figure
def rotation_figure(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str, m0: int,
                    n0: int, step: int, frames: int):
    """The animation: the pair's plane and q'·k' against the query position m."""
    df = rotation_frames(q, k, pair, dim, base, mode, m0, n0, step, frames)
    q_len, k_len = math.hypot(*q), math.hypot(*k)
    radius = 1.15 * max(q_len, k_len, 1.0)
    bound = q_len * k_len
    circle = np.linspace(0.0, 2.0 * math.pi, 181)
    qx, qy = df["q'_x"].to_numpy(), df["q'_y"].to_numpy()
    kx, ky = df["k'_x"].to_numpy(), df["k'_y"].to_numpy()
    ms, dots = df[COL_M].to_numpy(), df[COL_DOT].to_numpy()
    titles = frame_titles(df, pair)
    Q, K, D = ui.COLORS[0], ui.COLORS[1], ui.COLORS[2]

    # One figure, two panels: the pair's plane (top) and q'·k' against the query position m
    # (below), so that one animation moves the arrows and the marker of the current frame.
    # One above the other: side by side the plane shrank to a stamp at 390 px. Built as
    # the kept form (ui.kept): as Plotly objects, validated property by property, the
    # traces and the layout cost more than everything else here.
    fig = ui.sketch(rows=2, cols=1, vertical_spacing=VSPACE,
                    subplot_titles=(_("the pair's plane"),
                                    _("q'·k' against<br>the query position m")))
    traces = [dict(type="scatter", x=r * np.cos(circle), y=r * np.sin(circle), mode="lines",
                   name=name, line=dict(color=color, width=1, dash=dash), opacity=0.35,
                   hoverinfo="skip", showlegend=False, xaxis="x", yaxis="y")
              for r, name, color, dash in [(1.0, _("unit circle"), "#bbbbbb", "solid"),
                                           (q_len, "|q|", Q, "dot"), (k_len, "|k|", K, "dot")]]
    traces += [tips(qx, qy, _("q' in every frame"), Q), tips(kx, ky, _("k' in every frame"), K),
               arrow(float(qx[0]), float(qy[0]), _("q' (position m)"), Q),  # 5
               arrow(float(kx[0]), float(ky[0]), _("k' (position n)"), K),  # 6
               dict(type="scatter", x=ms, y=dots, mode="lines+markers", name="q'·k'",
                    line=dict(color=D, width=3), marker=dict(size=4),
                    customdata=ui.typed(df[[COL_N, COL_DEG]].to_numpy()),
                    hovertemplate=_("m={m}, n={n}<br>angle {angle}°<br>q'·k' = {dot}").format(
                        m="%{x}", n="%{customdata[0]}", angle="%{customdata[1]:+.1f}",
                        dot="%{y:.4f}") + "<extra></extra>", xaxis="x2", yaxis="y2"),
               dict(type="scatter", x=[int(ms[0])], y=[float(dots[0])], mode="markers",
                    name=_("current frame"),
                    marker=dict(color="black", size=14, symbol="circle-open", line=dict(width=3)),
                    hovertemplate=_("current frame: m={m}, q'·k'={dot}").format(
                        m="%{x}", dot="%{y:.4f}") + "<extra></extra>",
                    xaxis="x2", yaxis="y2")]  # 8: moves with the frames
    ui.style(fig, title=titles[0], x=_("pair coordinate x"),
             y=_("pair coordinate y"), height=HEIGHT)
    dotted = dict(color="#888", dash="dot")
    # ±|q||k|, the dot product's bounds: each label in the band between its line and the
    # plot's edge (BAND of the bound: room for the label in presentation mode too), where
    # the curve never goes, however q'·k' starts at m = 0
    hlines = [(bound, "+|q||k|", "bottom", 2), (-bound, "−|q||k|", "top", -2)]
    labels = [dict(showarrow=False, text=text, x=0, xanchor="left", xref="x2 domain",
                   y=y_line, yanchor=anchor, yref="y2", yshift=shift)
              for y_line, text, anchor, shift in hlines]
    ui.relayout(fig, dict(
        xaxis=dict(range=[-radius, radius], zeroline=True, zerolinecolor="#ccc",
                   constrain="domain"),
        yaxis=dict(range=[-radius, radius], zeroline=True, zerolinecolor="#ccc",
                   scaleanchor="x", scaleratio=1, constrain="domain"),
        xaxis2=dict(title=dict(text=_("query position m [tokens]"))),
        yaxis2=dict(title=dict(text="q'·k'"), range=[-BAND * bound, BAND * bound]),
        shapes=[dict(line=dotted, type="line", x0=0, x1=1, xref="x2 domain", y0=y_line,
                     y1=y_line, yref="y2") for y_line, *_rest in hlines],
        height=HEIGHT, margin=dict(t=TOP, b=BOTTOM),  # axis titles, Play, slider, legend
        # Play/Pause on a row of their own above a full-width slider, each at a fixed
        # distance in pixels under the plot (the plot's height in pixels is fixed:
        # HEIGHT - TOP - BOTTOM); side by side the buttons covered the slider at 390 px
        updatemenus=[dict(
            type="buttons", direction="left", x=0.0, xanchor="left", y=below(BUTTONS_PX),
            yanchor="top", pad=dict(r=10, t=10), showactive=False,
            buttons=[dict(label=_("▶ Play"), method="animate",
                          args=[None, dict(frame=dict(duration=FRAME_MS, redraw=True),
                                           transition=dict(duration=0),
                                           fromcurrent=True, mode="immediate")]),
                     dict(label=_("Pause"), method="animate",
                          args=[[None], dict(frame=dict(duration=0, redraw=False),
                                             transition=dict(duration=0),
                                             mode="immediate")])])],
        sliders=[dict(
            active=0, x=0.0, len=1.0, y=below(SLIDER_PX), yanchor="top", pad=dict(t=10),
            currentvalue=dict(prefix=_("query position m = "), xanchor="right",
                              font=dict(size=14)),
            transition=dict(duration=0))]),
        annotations=dict(yshift=8))  # the panels' titles, clear of their plots
    fig._layout["annotations"] += labels
    # the legend (ui.style) sits at the bottom of the figure, under the slider, with
    # room for three rows (LEGEND_PX) on a phone

    # The frames and the slider's steps (one each per frame, up to 120 of each) go into
    # the kept form as plain dicts: built as Plotly objects they were validated one
    # property at a time, most of the page's CPU. Each frame carries only what changes:
    # the two arrow tips, the marker and the title.
    spec = ui.kept(traces, fig).spec
    qx_, qy_, kx_, ky_, dots_ = qx.tolist(), qy.tolist(), kx.tolist(), ky.tolist(), dots.tolist()
    ms_ = [int(m) for m in ms.tolist()]
    spec["frames"] = [
        {"name": str(t), "traces": [5, 6, 8],
         "data": [{"type": "scatter", "x": [0.0, qx_[t]], "y": [0.0, qy_[t]]},
                  {"type": "scatter", "x": [0.0, kx_[t]], "y": [0.0, ky_[t]]},
                  {"type": "scatter", "x": [ms_[t]], "y": [dots_[t]]}],
         "layout": {"title": {"text": title}}}
        for t, title in enumerate(titles)]
    spec["layout"]["sliders"][0]["steps"] = [
        {"label": str(m), "method": "animate",
         "args": [[str(t)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                             "transition": {"duration": 0}}]}
        for t, m in enumerate(ms_)]
    return ui.Frozen(spec)


def turn_note(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str, m0: int, n0: int,
              step: int, frames: int, auto: bool) -> str:
    """How fast the pair turns (θᵢ, its wavelength) and what the frames cover: the
    positions per frame (chosen by `auto` or not), the tokens and turns of all frames, and
    the degrees each moving arrow turns per frame."""
    theta_i = float(rc.theta(dim, base)[pair])
    per_frame = math.degrees(step * theta_i)
    wavelength = float(rc.wavelength(torch.tensor([theta_i]))[0])
    span = frames_summary(q, k, pair, dim, base, mode, m0, n0, step, frames)["span"]
    turns = float(rc.turns_within(torch.tensor([theta_i]), max(span, 1)))
    numbers = dict(pair=pair, dim=dim, base=ui.fmt_base(base), theta=f"{theta_i:.4g}",
                   degrees=f"{math.degrees(theta_i):.3g}",
                   wavelength=i18n.number(wavelength, "#,##0.0"), step=i18n.integer(step),
                   frames=frames, span=i18n.integer(span), turns=f"{turns:.2f}",
                   per_frame=f"{per_frame:.3g}")
    if auto:
        return ngettext(
            "Pair i = {pair} of d = {dim} (base {base}) turns {degrees}° per token "
            "(θᵢ = {theta} rad), a full turn every {wavelength} tokens. `auto` chose {step} "
            "position per frame, so the {frames} frames cover {span} tokens, {turns} turns of "
            "the pair: each moving arrow turns {per_frame}° from one frame to the next.",
            "Pair i = {pair} of d = {dim} (base {base}) turns {degrees}° per token "
            "(θᵢ = {theta} rad), a full turn every {wavelength} tokens. `auto` chose {step} "
            "positions per frame, so the {frames} frames cover {span} tokens, {turns} turns of "
            "the pair: each moving arrow turns {per_frame}° from one frame to the next.",
            step).format(**numbers)
    return ngettext(
        "Pair i = {pair} of d = {dim} (base {base}) turns {degrees}° per token "
        "(θᵢ = {theta} rad), a full turn every {wavelength} tokens. At {step} position per "
        "frame the {frames} frames cover {span} tokens, {turns} turns of the pair: each moving "
        "arrow turns {per_frame}° from one frame to the next.",
        "Pair i = {pair} of d = {dim} (base {base}) turns {degrees}° per token "
        "(θᵢ = {theta} rad), a full turn every {wavelength} tokens. At {step} positions per "
        "frame the {frames} frames cover {span} tokens, {turns} turns of the pair: each moving "
        "arrow turns {per_frame}° from one frame to the next.", step).format(**numbers)


def motion_note(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str, m0: int,
                n0: int, step: int, frames: int) -> str:
    """What the dot product does (:func:`frames_summary`): it swings when only the query
    advances, and stays constant when both move together."""
    quoted = frames_summary(q, k, pair, dim, base, mode, m0, n0, step, frames)
    if mode == "advance":
        per_frame = math.degrees(step * float(rc.theta(dim, base)[pair]))
        return _("Only q moves: the angle between q' and k' changes by {per_frame}° per frame, "
                 "so the dot product swings between {low} and {high} in these {frames} frames, "
                 "inside the bounds ±|q||k| = ±{bound}. Its value depends on n − m alone, which "
                 "here changes every frame.").format(
            per_frame=f"{per_frame:.3g}", low=f"{quoted['low']:+.3f}",
            high=f"{quoted['high']:+.3f}", frames=frames,
            bound=f"{math.hypot(*q) * math.hypot(*k):.3f}")
    spread = float(quoted["high"] - quoted["low"])
    return _("Both arrows turn by the same angle each frame, so the angle between them stays at "
             "{angle}° and **the dot product stays constant** at {dot} (largest change over "
             "{frames} frames: {spread}, rounding error): n − m = {gap} never changes. This is "
             "RoPE's relative-position property: shifting a query and a key together leaves "
             "their score unchanged.").format(
        angle=f"{quoted['angle']:+.2f}", dot=f"{quoted['first']:+.4f}", frames=frames,
        spread=f"{spread:.1e}", gap=n0 - m0)


def too_fast_note(dim: int, base: float, pair: int, step: int) -> str | None:
    """A warning when each frame turns the arrows by more than half a turn (what the eye
    then sees is the turn modulo 360°), else None."""
    per_frame = math.degrees(step * float(rc.theta(dim, base)[pair]))
    if per_frame <= 180:
        return None
    seen = (per_frame + 180.0) % 360.0 - 180.0  # what the eye sees: the turn modulo 360°
    return _("Each frame turns the arrows by {per_frame}°, more than half a turn: on screen "
             "that looks like a turn of {seen}° per frame, so the arrows can seem to turn "
             "backwards or jump. Choose a larger pair index i or fewer positions per "
             "frame.").format(per_frame=f"{per_frame:.0f}", seen=f"{seen:+.0f}")
