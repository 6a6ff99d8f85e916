"""Long-term decay: RoFormer's relative upper bound and actual scores against distance."""

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import ui

MAX_OPTIONS = [64, 128, 256, 512, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
               200_000, 500_000, 1_000_000]
AXES = ["linear", "log"]
DIM_CHOICES = [2**e for e in range(1, 11)]  # 2 ... 1024
LINEAR_POINTS = 2_000  # at most this many evenly spaced integer distances
LOG_POINTS = 1_000  # log-spaced samples from 1 to the maximum (fewer after rounding)
MAX_TRIALS = 256
R_COL, B_COL = "distance r [tokens]", "upper bound"


@ui.table
def bound_table(curves: tuple, max_distance: int, axis: str, device: str) -> pd.DataFrame:
    """Tidy table of the relative upper bound: a block of rows per (base, dim)."""
    return rc.bound_table(curves, max_distance, axis, device=device)


@ui.table
def score_table(dim: int, base: float, max_distance: int, axis: str, layout: str, trials: int,
                seed: int, device: str) -> pd.DataFrame:
    """q^T R_r k for q = k = all-ones, and mean/std over random Gaussian q, k."""
    return rc.score_table(dim, base, max_distance, axis, layout, trials, seed, device=device)


def first_below_half(block: pd.DataFrame, dim: int) -> str:
    """Where a bound curve first falls under half of bound(0) = (d/2 + 1)/2."""
    before, at = rc.first_below(block[R_COL].to_numpy(), block[B_COL].to_numpy(),
                                (dim / 2 + 1) / 4)
    if at is None:
        return "not within the range shown"
    if before is None or at - before <= 1:
        return f"{at:,} tokens"
    return f"between {before:,} and {at:,} tokens (samples)"


def x_title(axis: str) -> str:
    return "relative distance r [tokens]" + (" (log scale)" if axis == "log" else "")


@ui.figure
def bound_figure(curves: tuple, max_distance: int, axis: str, device: str):
    bound = bound_table(curves, max_distance, axis, device)
    fig = go.Figure()
    for n, ((base, dim), block) in enumerate(bound.groupby(["base", "dim"], sort=False)):
        name = f"base {ui.fmt_base(base)}, d = {dim}"
        fig.add_scatter(x=block[R_COL], y=block[B_COL], name=name, mode="lines",
                        line=dict(color=ui.COLORS[n % len(ui.COLORS)],
                                  width=2.5 if n == 0 else 1.6),
                        hovertemplate="r=%{x:,} tokens<br>bound=%{y:.3f}<extra>" + name +
                                      "</extra>")
    ui.style(fig, title="Relative upper bound (RoFormer fig. 2)", x=x_title(axis),
             y="relative upper bound")
    if axis == "log":
        fig.update_xaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def score_figure(dim: int, base: float, max_distance: int, axis: str, layout: str,
                 trials: int, seed: int, device: str):
    scores = score_table(dim, base, max_distance, axis, layout, trials, seed, device)
    fig = go.Figure()
    r = scores[R_COL]
    mean, std = scores["mean random score"], scores["std random score"]
    band = f"random q, k: mean ± 1 std ({trials} pair{'s' if trials > 1 else ''})"
    fig.add_scatter(x=r, y=mean + std, mode="lines", line=dict(width=0), showlegend=False,
                    legendgroup="random", hoverinfo="skip")
    fig.add_scatter(x=r, y=mean - std, mode="lines", line=dict(width=0), fill="tonexty",
                    fillcolor="rgba(214, 39, 40, 0.18)", name=band, legendgroup="random",
                    hoverinfo="skip")
    fig.add_scatter(x=r, y=mean, mode="lines", name="random q, k: mean",
                    line=dict(color=ui.COLORS[1], width=1.6), legendgroup="random",
                    hovertemplate="r=%{x:,} tokens<br>mean=%{y:.3f}<extra></extra>")
    fig.add_scatter(x=r, y=scores["score q=k=1"], mode="lines", name="q = k = all ones",
                    line=dict(color=ui.COLORS[0], width=2.5),
                    hovertemplate="r=%{x:,} tokens<br>score=%{y:.3f}<extra></extra>")
    ui.style(fig, title=f"Actual score qᵀR_r k (base {ui.fmt_base(base)}, d = {dim}, "
                        f"{layout})", x=x_title(axis), y="score qᵀR_r k")
    if axis == "log":
        fig.update_xaxes(type="log", exponentformat="power")
    return fig


s = ui.settings()
st.title("Long-term decay")
st.markdown(
    "RoFormer argues that RoPE makes attention fade with distance. It writes the score of a "
    "query and a key r tokens apart as a sum over pairs of complex numbers hᵢ, sums by parts, "
    "and bounds it by a prefactor, the largest step maxᵢ|hᵢ₊₁ − hᵢ| between neighbouring "
    "pairs' products (with h_(d/2) = 0), times a curve that depends only on r, d and the "
    "base. That curve is plotted on the left; on the right, actual scores qᵀR_r k for two "
    "kinds of vectors.")
st.latex(r"q^{\top} R_r k = \operatorname{Re}\sum_{i=0}^{d/2-1} h_i\, e^{-\iota r\theta_i},"
         r"\qquad h_i = q_{[i]}\,\overline{k_{[i]}},\qquad "
         r"q_{[i]} = q_{a_i} + \iota\, q_{b_i},\quad \iota = \sqrt{-1}")
st.latex(r"\big|q^{\top} R_r k\big| \;\le\; \Big(\max_i \lvert h_{i+1}-h_i\rvert\Big)"
         r"\sum_{j=1}^{d/2} \lvert S_j\rvert,\qquad "
         r"S_j = \sum_{l=0}^{j-1} e^{\iota\,r\,\theta_l},\qquad h_{d/2} = 0,\qquad "
         r"\text{bound}(r) = \frac{1}{d/2}\sum_{j=1}^{d/2}\lvert S_j\rvert")
st.caption("The key's pair is conjugated: hᵢ = q₍ᵢ₎·conj(k₍ᵢ₎), the product of pair i of q "
           "and pair i of k as complex numbers (RoFormer eq. 35). The prefactor depends on q "
           "and k, the curve bound(r) does not. At r = 0 every term is aligned, |S_j| = j, so "
           "bound(0) = (d/2 + 1)/2.")

c1, c2, c3 = st.columns(3)
max_distance = ui.select_slider("Largest distance r [tokens]", MAX_OPTIONS, 256,
                                    "decay_max", container=c1, fmt=str)
axis = ui.choice("Distance axis", AXES, "linear", "decay_axis", container=c1)
extra_bases = ui.multiselect("Overlay other bases (up to 3)", ui.BASE_OPTIONS, [],
                                 "decay_bases", max_selections=3, container=c2, fmt=str)
extra_dims = ui.multiselect("Overlay other head dims (up to 3)", DIM_CHOICES, [],
                                "decay_dims", max_selections=3, container=c2, fmt=str)
trials = ui.slider("Random (q, k) pairs", 1, MAX_TRIALS, 64, "decay_trials", container=c3)
seed = ui.number("Random seed", 0, 2**31 - 1, 0, "decay_seed", container=c3)

curves = [(s.base, s.dim)] + [(float(b), s.dim) for b in extra_bases] + \
         [(s.base, int(d)) for d in extra_dims]
curves = tuple(dict.fromkeys(curves))  # keep order, drop repeats
with ui.friendly_errors():
    bound = bound_table(curves, max_distance, axis, s.device)
    scores = score_table(s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device)

left, right = st.columns(2)
with left:
    ui.show(bound_figure(curves, max_distance, axis, s.device), key="decay_bound_plot")
with right:
    ui.show(score_figure(s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device),
            key="decay_score_plot")

main = bound[(bound["base"] == s.base) & (bound["dim"] == s.dim)]
start, end = main.iloc[0], main.iloc[-1]
per_curve = "; ".join(
    f"base {ui.fmt_base(b)}, d = {d}: {first_below_half(block, d)}, average "
    f"{block[B_COL].mean():.2f}"
    for (b, d), block in bound.groupby(["base", "dim"], sort=False))
plateau = rc.bound_plateau(s.dim)
longest = float(rc.wavelength(rc.theta(s.dim, s.base))[-1])
ui.explain(
    f"**The bound first decays, then levels off.** For base {ui.fmt_base(s.base)} and "
    f"d = {s.dim} it is {start[B_COL]:.2f} at r = {start[R_COL]:,} and {end[B_COL]:.2f} at "
    f"r = {end[R_COL]:,}, never below {main[B_COL].min():.2f} in between. First distance "
    f"under half of bound(0), and the average of the plotted samples: {per_curve}. "
    f"It does not keep decaying: once r is well past the longest wavelength "
    f"({longest:,.0f} tokens here) the phases rθₗ are effectively random mod 2π, so each "
    "|S_j| grows only like √j (a random walk of j unit steps) instead of shrinking, and the "
    f"bound scatters around (1/(d/2))·Σⱼ √(πj)/2 ≈ {plateau:.2f} instead of going to 0 "
    "(try the largest distance 10⁶ on the log axis). A larger base slows every pair but the "
    "first, so the phases stay aligned longer and the early decay is slower (compare bases "
    "at the same d; a larger d raises the whole curve).")
r0, r1 = scores[R_COL].iloc[0], scores[R_COL].iloc[-1]
aligned = scores["score q=k=1"]
mean_abs = float(scores["mean random score"].abs().mean())
std_avg = float(scores["std random score"].mean())
if trials > 1:
    random_text = (
        f"**Random vectors do not:** over {trials} Gaussian pairs the mean score is about 0 "
        f"at every distance (average |mean| {mean_abs:.2f}, while a mean of {trials} draws "
        f"scatters by about √(d/{trials}) = {math.sqrt(s.dim / trials):.2f}), and the spread "
        f"stays near √d = {math.sqrt(s.dim):.2f} (average std {std_avg:.2f}) however far "
        "apart the tokens are.")
else:
    random_text = (
        "**Random vectors do not:** a single Gaussian pair has no spread to measure (std 0); "
        f"its score wanders up and down with average size {mean_abs:.2f}, on the scale of "
        f"√d = {math.sqrt(s.dim):.2f}, at near and far distances alike. Add pairs to see the "
        "band.")
ui.explain(
    f"**Aligned vectors decay too:** q = k = all ones scores {aligned.iloc[0]:.1f} at "
    f"r = {r0:,.0f} and {aligned.iloc[-1]:.2f} at r = {r1:,.0f}. {random_text} The decay "
    "belongs to an upper bound and to vectors whose pairs point the same way; it is not a "
    "promise for every q and k.")
if axis == "linear" and max_distance >= LINEAR_POINTS:
    step = max_distance / (LINEAR_POINTS - 1)
    st.caption(f"Sampled every ≈{step:,.0f} tokens ({len(scores):,} distances): the fastest "
               "pair turns once every 2π ≈ 6.3 tokens, so the ripples between samples are not "
               "drawn. Use the log axis to see short distances in detail.")

extras = "".join([f"_bases{'-'.join(ui.slug(b) for b in extra_bases)}" if extra_bases else "",
                  f"_dims{'-'.join(str(d) for d in extra_dims)}" if extra_dims else ""])
tag = f"dim{s.dim}_base{ui.slug(s.base)}_max{max_distance}_{axis}"
ui.download(bound_table, curves, max_distance, axis, s.device,
            filename=f"decay_bound_{tag}{extras}.csv", label="bound table", key="decay_bound")
ui.download(score_table, s.dim, s.base, max_distance, axis, s.layout, trials, seed, s.device,
            filename=f"decay_scores_{tag}_{s.layout}_trials{trials}_seed{seed}.csv",
            label="score table", key="decay_scores")
