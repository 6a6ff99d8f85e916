"""Rotation: one 2-D pair of q and k turning as positions advance (a Plotly animation)."""

import math
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import torch

import rope_core as rc
import ui

MAX_PAIR = ui.DIM_OPTIONS[-1] // 2 - 1  # 511: the last pair of the largest head dim
MAX_START = 2048  # start positions m0, n0
STEP_OPTIONS = [1, 2, 4, 8, 16]  # positions per frame
MAX_FRAMES = 120  # so the last position is at most 2048 + 119 * 16 = 3952 < 4096
MAX_COORD = 1e6  # |x|, |y| of q and k
MIN_LENGTH = 1e-6  # |q|, |k| (a zero vector has no direction)
FRAME_MS = 120  # animation speed: one frame every 120 ms
# Option label (what the radio shows and the URL carries) -> short name in file names.
MODES = {"advance the query": "advance", "shift both together": "shift"}

COL_DOT = "dot product [1]"
COL_DEG = "angle between [deg]"
COL_RAD = "angle between [rad]"


@ui.table
def rotation_frames(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str, m0: int,
                    n0: int, step: int, frames: int, device: str) -> pd.DataFrame:
    """One row per frame t: q at m = m0 + t*step, k at n = n0 (advance) or n0 + t*step
    (shift), both rotated by rope_core with the single frequency theta_pair."""
    theta = rc.theta(dim, base, device=device)[pair:pair + 1]  # (1,)
    t = torch.arange(frames)
    m = m0 + t * step  # (frames,)
    n = n0 + t * step if mode == "shift" else torch.full((frames,), n0)
    q_vec = torch.tensor(q, dtype=torch.float64, device=device).expand(frames, 2)  # (frames, 2)
    k_vec = torch.tensor(k, dtype=torch.float64, device=device).expand(frames, 2)
    q_rot = rc.apply_rope(q_vec, m, theta)  # (frames, 2): R_m q
    k_rot = rc.apply_rope(k_vec, n, theta)  # (frames, 2): R_n k
    dot = (q_rot * k_rot).sum(-1)  # (frames,)
    cross = q_rot[:, 0] * k_rot[:, 1] - q_rot[:, 1] * k_rot[:, 0]
    between = torch.atan2(cross, dot)  # signed angle from q' to k', in (-pi, pi]
    return rc.to_frame({
        "frame": t, "m [position]": m, "n [position]": n,
        "angle of q, m·θ_i [rad]": rc.angles(m, theta)[:, 0],
        "angle of k, n·θ_i [rad]": rc.angles(n, theta)[:, 0],
        "q'_x [1]": q_rot[:, 0], "q'_y [1]": q_rot[:, 1],
        "k'_x [1]": k_rot[:, 0], "k'_y [1]": k_rot[:, 1],
        COL_DEG: between * (180.0 / math.pi), COL_RAD: between, COL_DOT: dot})


def parse_vector(text: str, name: str) -> tuple:
    """'x, y' (brackets optional) -> (x, y); ValueError naming what is wrong."""
    body = text.strip().strip("()[]").strip()
    parts = [p for p in re.split(r"[,;\s]+", body) if p]
    allowed = (f"two numbers written as “x, y” (e.g. “1, 0.5”), each between "
               f"−{MAX_COORD:,.0f} and {MAX_COORD:,.0f}, not both zero")
    if len(parts) != 2:
        raise ValueError(f"{name} = “{text}” is not allowed: {name} must be {allowed}; "
                         f"found {len(parts)} value(s).")
    try:
        x, y = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"{name} = “{text}” is not allowed: {name} must be {allowed}; "
                         "one of the values is not a number.") from None
    if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > MAX_COORD:
        raise ValueError(f"{name} = “{text}” is not allowed: {name} must be {allowed}.")
    if math.hypot(x, y) < MIN_LENGTH:
        raise ValueError(f"{name} = “{text}” is not allowed: {name} must not be the zero "
                         f"vector (length at least {MIN_LENGTH:g}): it has no direction "
                         "to rotate.")
    return x, y


def arrow(x: float, y: float, name: str, color: str) -> go.Scatter:
    """A thick arrow from the origin to (x, y)."""
    return go.Scatter(x=[0.0, x], y=[0.0, y], name=name, mode="lines+markers",
                      line=dict(color=color, width=6),
                      marker=dict(symbol=["circle", "arrow"], size=[8, 22], angleref="previous",
                                  color=color),
                      hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>")


def tips(xs, ys, name: str, color: str) -> go.Scatter:
    """Faint dots where the arrow's tip is in every frame (its whole route at a glance)."""
    return go.Scatter(x=xs, y=ys, name=name, mode="markers", opacity=0.45,
                      marker=dict(color=color, size=6), showlegend=False,
                      hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>")


def frame_title(row, pair: int) -> str:
    """Two lines: where q and k sit, then the angle between them and their dot product."""
    return (f"Pair i = {pair}: q at m = {int(row['m [position]'])}, "
            f"k at n = {int(row['n [position]'])}<br><span style='font-size:15px'>"
            f"angle from q' to k' = {row[COL_DEG]:+.1f}° ({row[COL_RAD]:+.3f} rad) · "
            f"q'·k' = {row[COL_DOT]:+.4f}</span>")


s = ui.settings()
st.title("Rotation of one pair")
st.markdown(
    "RoPE splits q and k into d/2 two-dimensional pairs and turns pair i of a vector at "
    "position m by the angle m·θᵢ. Here you watch **one pair**: the query's pair is turned by "
    "m·θᵢ, the key's by n·θᵢ, and their dot product is the contribution of this pair to the "
    "attention score.")
st.latex(r"q' = R(m\theta_i)\,q,\qquad k' = R(n\theta_i)\,k,\qquad "
         r"R(\alpha) = \begin{bmatrix}\cos\alpha & -\sin\alpha\\ "
         r"\sin\alpha & \cos\alpha\end{bmatrix}")
st.latex(r"q'\cdot k' = q^{\top}R\big((n-m)\theta_i\big)\,k = "
         r"\lVert q\rVert\,\lVert k\rVert\cos\!\big((n-m)\theta_i + \varphi_k - "
         r"\varphi_q\big),\qquad \varphi = \text{angle of the vector}")

c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
mode_label = ui.choice("Animation", list(MODES), "advance the query", "rot_mode",
                           container=c1, horizontal=False,
                           help="advance the query: k stays at n₀ while m = m₀, m₀+step, … "
                                "shift both together: m and n both move by the step.")
mode = MODES[mode_label]
pair_asked = ui.number("Pair index i", 0, MAX_PAIR, 8, "rot_i", container=c2,
                           help=f"0 … d/2 − 1 = {s.dim // 2 - 1} for d = {s.dim}. "
                                "Small i turns fast, large i slowly.")
q_text = ui.text("q = (x, y)", "1, 0.3", "rot_q", container=c3, max_chars=60,
                     help="The query's two coordinates of pair i, e.g. 1, 0.3")
k_text = ui.text("k = (x, y)", "0.6, 0.9", "rot_k", container=c4, max_chars=60,
                     help="The key's two coordinates of pair i, e.g. 0.6, 0.9")
c5, c6, c7, c8 = st.columns(4)
m0 = ui.number("Query start position m₀", 0, MAX_START, 0, "rot_m0", container=c5)
n0 = ui.number("Key position n₀", 0, MAX_START, 10, "rot_n0", container=c6)
step = ui.select_slider("Positions per frame", STEP_OPTIONS, 1, "rot_step", container=c7,
                            help="Use larger steps for slow pairs (large i).")
frames = ui.slider("Frames", 10, MAX_FRAMES, 60, "rot_frames", container=c8)

pair = min(pair_asked, s.dim // 2 - 1)
if pair != pair_asked:
    st.info(f"Pair i = {pair_asked} does not exist for d = {s.dim} (pairs 0 … {s.dim // 2 - 1}): "
            f"showing the last pair, i = {pair}.", icon="ℹ️")
with ui.friendly_errors():
    q = parse_vector(q_text, "q")
    k = parse_vector(k_text, "k")
    df = rotation_frames(q, k, pair, s.dim, s.base, mode, m0, n0, step, frames, s.device)

# ------------------------------------------------------------ animation ----
q_len, k_len = math.hypot(*q), math.hypot(*k)
radius = 1.15 * max(q_len, k_len, 1.0)
circle = np.linspace(0.0, 2.0 * math.pi, 181)
qx, qy = df["q'_x [1]"].to_numpy(), df["q'_y [1]"].to_numpy()
kx, ky = df["k'_x [1]"].to_numpy(), df["k'_y [1]"].to_numpy()
rows = df.to_dict("records")

fig = go.Figure()
for r, name, color, dash in [(1.0, "unit circle", "#bbbbbb", "solid"),
                             (q_len, "|q|", ui.COLORS[0], "dot"),
                             (k_len, "|k|", ui.COLORS[1], "dot")]:
    fig.add_scatter(x=r * np.cos(circle), y=r * np.sin(circle), mode="lines", name=name,
                    line=dict(color=color, width=1, dash=dash), opacity=0.35, hoverinfo="skip",
                    showlegend=False)
Q, K = ui.COLORS[0], ui.COLORS[1]
fig.add_trace(tips(qx, qy, "q' in every frame", Q))
fig.add_trace(tips(kx, ky, "k' in every frame", K))
fig.add_trace(arrow(float(qx[0]), float(qy[0]), "q' (position m)", Q))
fig.add_trace(arrow(float(kx[0]), float(ky[0]), "k' (position n)", K))
# Each frame only moves the two arrow tips and retitles the plot: a frame carries just
# what changes (x, y, title), which keeps building 120 frames fast.
fig.frames = [go.Frame(name=str(t), traces=[5, 6],
                       data=[dict(type="scatter", x=[0.0, float(qx[t])], y=[0.0, float(qy[t])]),
                             dict(type="scatter", x=[0.0, float(kx[t])], y=[0.0, float(ky[t])])],
                       layout=dict(title_text=frame_title(row, pair)))
              for t, row in enumerate(rows)]
ui.style(fig, title=frame_title(rows[0], pair), x="pair coordinate x [1]",
             y="pair coordinate y [1]", height=700)
fig.update_layout(margin=dict(t=90, b=150),
                  updatemenus=[dict(
                      type="buttons", direction="left", x=0.0, xanchor="left", y=-0.13,
                      yanchor="top", pad=dict(r=10, t=10), showactive=False,
                      buttons=[dict(label="▶ Play", method="animate",
                                    args=[None, dict(frame=dict(duration=FRAME_MS, redraw=True),
                                                     transition=dict(duration=0),
                                                     fromcurrent=True, mode="immediate")]),
                               dict(label="Pause", method="animate",
                                    args=[[None], dict(frame=dict(duration=0, redraw=False),
                                                       transition=dict(duration=0),
                                                       mode="immediate")])])],
                  sliders=[dict(
                      active=0, x=0.3, len=0.7, y=-0.1, yanchor="top", pad=dict(t=10),
                      currentvalue=dict(prefix="query position m = ", xanchor="right",
                                        font=dict(size=14)),
                      transition=dict(duration=0),
                      steps=[dict(label=str(int(row["m [position]"])), method="animate",
                                  args=[[str(t)], dict(mode="immediate",
                                                       frame=dict(duration=0, redraw=True),
                                                       transition=dict(duration=0))])
                             for t, row in enumerate(rows)])])
ui.square(fig, range=[-radius, radius], zeroline=True, zerolinecolor="#ccc")
# legend above the plane: Play/Pause and the position slider sit below it
fig.update_layout(legend=dict(yanchor="bottom", y=1.0, xanchor="right", x=1.0))

# ------------------------------------------------------ dot vs frame ----
dots = df[COL_DOT]
line = go.Figure()
line.add_scatter(x=df["frame"], y=dots, mode="lines+markers", name="q'·k'",
                 line=dict(color=ui.COLORS[2], width=3), marker=dict(size=5),
                 customdata=df[["m [position]", "n [position]", COL_DEG]].to_numpy(),
                 hovertemplate="frame %{x}: m=%{customdata[0]}, n=%{customdata[1]}<br>"
                               "angle %{customdata[2]:+.1f}°<br>q'·k' = %{y:.4f}<extra></extra>")
bound = q_len * k_len
for y_line, text in [(bound, "+|q||k|"), (-bound, "−|q||k|")]:
    line.add_hline(y=y_line, line=dict(color="#888", dash="dot"), annotation_text=text,
                   annotation_position="top left" if y_line > 0 else "bottom left")
ui.style(line, title="Dot product q'·k' in every frame", x="frame t [1]",
             y="q'·k' [1]", height=520)
line.update_yaxes(range=[-1.15 * bound, 1.15 * bound])

plot_col, line_col = st.columns([3, 2])
with plot_col:
    ui.show(fig, key="rot_animation")
with line_col:
    ui.show(line, key="rot_dot")

# ------------------------------------------------------------ explain ----
theta_i = float(rc.theta(s.dim, s.base)[pair])
per_frame = math.degrees(step * theta_i)
wavelength = 2.0 * math.pi / theta_i
common = (f"Pair i = {pair} of d = {s.dim} (base {ui.fmt_base(s.base)}) turns by "
          f"θᵢ = {theta_i:.4g} rad = {math.degrees(theta_i):.3g}° per token, one full turn "
          f"every {wavelength:,.1f} tokens; with {step} position(s) per frame each moving "
          f"arrow turns {per_frame:.3g}° per frame.")
if mode == "advance":
    ui.explain(
        common,
        f"Only q moves: the angle between q' and k' changes by {per_frame:.3g}° per frame, so "
        f"the dot product swings between {dots.min():+.3f} and {dots.max():+.3f} in these "
        f"{frames} frames, inside the bounds ±|q||k| = ±{bound:.3f}. Its value depends on "
        "n − m alone, which here changes every frame.")
else:
    spread = float(dots.max() - dots.min())
    ui.explain(
        common,
        f"Both arrows turn by the same angle each frame, so the angle between them stays at "
        f"{df[COL_DEG].iloc[0]:+.2f}° and **the dot product stays constant** at "
        f"{dots.iloc[0]:+.4f} (largest change over {frames} frames: {spread:.1e}, rounding "
        f"error): n − m = {n0 - m0} never changes. This is RoPE's relative-position property: "
        "shifting a query and a key together leaves their score unchanged.")
if per_frame > 180:
    seen = (per_frame + 180.0) % 360.0 - 180.0  # what the eye sees: the turn modulo 360°
    st.warning(f"Each frame turns the arrows by {per_frame:.0f}°, more than half a turn: on "
               f"screen that looks like a turn of {seen:+.0f}° per frame, so the arrows can "
               "seem to turn backwards or jump. Choose a larger pair index i or fewer "
               "positions per frame.", icon="⚠️")

ui.download(
    rotation_frames, q, k, pair, s.dim, s.base, mode, m0, n0, step, frames, s.device,
    filename=f"rotation_pair{pair}_dim{s.dim}_base{ui.slug(s.base)}_{mode}"
        f"_m{m0}_n{n0}_step{step}.csv",
    label="frame table", key="rotation")
