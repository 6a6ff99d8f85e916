"""Long context: angles never seen in training, the critical dimension, and the base bound."""

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import rope_core.breaks as br
import ui

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
    return f"{x:,.0f} tokens"


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
    fig.add_scatter(x=pairs, y=plain_rows["train max angle [rad]"], name=f"training: L·θᵢ, "
                    f"L = {train:,}", mode="lines", line=dict(color=ui.COLORS[0], width=2.5))
    fig.add_scatter(x=pairs, y=plain_rows["inference max angle [rad]"],
                    name=f"inference at s·L = {factor * train:,}, no scaling", mode="lines",
                    line=dict(color=ui.COLORS[1], width=1.8))
    fig.add_scatter(x=pairs, y=scaled_rows["inference max angle [rad]"],
                    name=f"inference at s·L, {method}", mode="lines",
                    line=dict(color=ui.COLORS[2], width=1.8, dash="dash"))
    for rows, color, label in ((plain_rows, ui.COLORS[1], "no scaling"),
                               (scaled_rows, ui.COLORS[2], method)):
        bad = rows[rows["unseen"]]
        if len(bad):
            fig.add_scatter(x=bad["pair i"], y=bad["inference max angle [rad]"],
                            mode="markers", marker=dict(color=color, size=7, symbol="x"),
                            name=f"unseen angles ({label}): {len(bad)} pairs")
    fig.add_hline(y=TWO_PI, line=dict(color="#888", dash="dot"),
                  annotation_text="2π: one turn")
    ui.style(fig, title="Largest angle per pair: training vs inference", x="pair i",
             y="largest angle [rad] (log scale)")
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
                    name="wavelength 2π/θᵢ", line=dict(color=ui.COLORS[0], width=2.5))
    fig.add_hline(y=train, line=dict(color=ui.COLORS[1], dash="dash"),
                  annotation_text=f"L = {train:,} tokens")
    fig.add_vline(x=critical_pair, line=dict(color=ui.COLORS[3], dash="dot"),
                  annotation_text=f"d_extra/2 = {critical_pair}")
    ui.style(fig, title=f"Wavelengths and the critical dimension (d = {dim}, "
                        f"base {ui.fmt_base(base)})", x="pair i",
             y="wavelength [tokens] (log scale)")
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
                      annotation_text=f"first B_m < 0: m = {neg:,}")
    if train <= max_distance:
        fig.add_vline(x=train, line=dict(color=ui.COLORS[2], dash="dot"),
                      annotation_text=f"L = {train:,}", annotation_position="bottom right")
    ui.style(fig, title=f"B_m against distance (d = {dim}, base {ui.fmt_base(base)})",
             x="distance m [tokens]", y="B_m = Σᵢ cos(m·θᵢ)")
    return fig


@ui.figure
def scan_figure(dim: int, context: int):
    """Which scanned bases pass for the context, the smallest passing one marked."""
    best = min_base(dim, context)
    scan = scan_table(dim, context, best)
    fig = go.Figure()
    for passes, color, name in ((True, ui.COLORS[2], "passes: B_m ≥ 0 for all m < L"),
                                (False, ui.COLORS[1], "fails: some B_m < 0")):
        part = scan[scan["passes"] == passes]
        fig.add_scatter(x=part["base"], y=[1 if passes else 0] * len(part), mode="markers",
                        name=name, marker=dict(color=color, size=9, symbol="line-ns-open"))
    fig.add_vline(x=best, line=dict(color="#444", dash="dot"),
                  annotation_text=f"smallest: {best:,.0f}")
    ui.style(fig, title=f"Which bases pass for L = {context:,} (d = {dim})",
             x="base (log scale)", y="passes (1) or fails (0)", height=300)
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(tickvals=[0, 1], range=[-0.5, 1.5])
    return fig


s = ui.settings()
st.title("Long context: where RoPE breaks")
st.markdown(
    "A model trained on L tokens has seen each pair's angle m·θᵢ only for m < L. Run it at "
    "s·L tokens and the slow pairs, the ones that never completed a turn in training, meet "
    "angles they never saw. Context-extension methods shrink θᵢ so that s·L·θ'ᵢ stays inside "
    "what training covered. A second, independent limit: B_m = Σᵢ cos(m·θᵢ), half the "
    "score of q = k = all ones, must stay ≥ 0, which needs a base large enough for the "
    "context.")

# ---------------------------------------------------------------- 1. OOD angles
st.header("1. Angles never seen in training")
c1, c2, c3, c4 = st.columns(4)
train = ui.select_slider("Training context L [tokens]", TRAIN_OPTIONS, 4096, "lc_train",
                         container=c1, fmt=str)
factor = ui.select_slider("Extension factor s", FACTOR_OPTIONS, 8, "lc_factor",
                          container=c2, fmt=str)
method = ui.choice("Scaling method", METHODS, "yarn", "lc_method", container=c3,
                   fmt=lambda m: m, horizontal=False,
                   help="From the app's scaling registry (LongRoPE needs per-pair searched "
                        "factors and is left out).")
new_base = ui.select_slider("Base after tuning (Liu et al.)", ui.BASE_OPTIONS, 1_000_000,
                            "lc_newbase", container=c4, fmt=str,
                            help="T_extra = 2π·base^(d_extra/d) for a model whose critical "
                                 "dimension d_extra was set in pre-training.")

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
m1.metric("Critical dimension d_extra", f"{liu['critical_dimension']}",
          help="2·⌈(d/2)·log_base(L/2π)⌉, clipped to [0, d]")
m2.metric(f"Extrapolation limit at base {ui.fmt_base(s.base)}", tokens(liu["limit_at_base"]))
m3.metric(f"Extrapolation limit at base {ui.fmt_base(new_base)}",
          tokens(liu["limit_at_new_base"]))
n_plain = int(plain_rows["unseen"].sum())
n_scaled = int(scaled_rows["unseen"].sum())
turned = int((plain_rows["train max angle [rad]"] >= TWO_PI).sum())
ui.explain(
    f"**What to notice.** With d = {s.dim}, base {ui.fmt_base(s.base)} and L = {train:,}, "
    f"{turned} of {s.dim // 2} pairs complete at least one turn in training (their angles "
    f"cover every value mod 2π); the critical dimension is d_extra = "
    f"{liu['critical_dimension']} (pair {liu['critical_pair']} is the boundary). Running "
    f"at s·L = {factor * train:,} tokens without scaling pushes {n_plain} pairs past "
    f"anything they saw (marked ×); with {method} the count is {n_scaled}. Liu et al.'s "
    f"bound: a model whose critical dimension was set in pre-training carries "
    f"2π·base^(d_extra/d) tokens, {tokens(liu['limit_at_base'])} at the training base and "
    f"{tokens(liu['limit_at_new_base'])} once the base is changed to {ui.fmt_base(new_base)}.")
st.caption(f"Source: {br.LIU_2023['citation']}. They report the critical dimension "
           f"{br.LIU_2023['critical_dimension']} for LLaMA 2 (d = 128, base 10⁴, "
           "L = 4096); the app computes it from the formula:")
row = liu_cmp.iloc[0]
flag = "agrees" if row["matches"] else f"DIFFERS by {row['difference']}"
st.dataframe(liu_cmp, hide_index=True)
st.caption(f"Paper {row['paper critical dimension']}, app {row['app critical dimension']}: "
           f"{flag}.")
ui.download(ood_table, s.dim, s.base, train, factor, method,
            filename=f"long_context_angles_dim{s.dim}_base{ui.slug(s.base)}_L{train}_"
                     f"s{factor}_{method}.csv", label="angle table", key="lc_ood")

# ---------------------------------------------------------------- 2. base bounds context
st.header("2. The base bounds the context")
st.latex(r"B_m = \sum_{i=0}^{d/2-1} \cos(m\,\theta_i),\qquad "
         r"\text{need } B_m \ge 0 \text{ for every } m < L")
c1, c2 = st.columns(2)
bmax = ui.select_slider("Largest distance m [tokens]", BMAX_OPTIONS, 16384, "lc_bmax",
                        container=c1, fmt=str)
target = ui.select_slider("Target context L [tokens]", TARGET_OPTIONS, 4096, "lc_target",
                          container=c2, fmt=str)
with ui.friendly_errors():
    bm = bm_table(s.dim, s.base, bmax)
    neg = first_negative(s.dim, s.base, bmax)

ui.show(bm_figure(s.dim, s.base, bmax, train), key="lc_bm_plot")
sampled = len(bm) < bmax + 1
where = (f"first turns negative at m = {neg:,}" if neg is not None
         else f"stays ≥ 0 for every m up to {bmax:,}")
verdict = ("" if neg is None else
           f" That is {'inside' if neg < train else 'beyond'} the training length "
           f"L = {train:,}.")
ui.explain(
    f"**B_m starts at d/2 = {bm['B_m'].iloc[0]:.0f}** and, for base "
    f"{ui.fmt_base(s.base)}, {where} (found exactly, integer by integer).{verdict} "
    + (f"The curve is sampled at {len(bm):,} distances; the crossing is exact. "
       if sampled else ""))

ok_context = True
try:
    br.check_context_work(s.dim, target)
except ValueError as err:
    ok_context = False
    ui.error(f"The smallest base for L = {target:,} is not computed at d = {s.dim}: "
             f"{err} Choose a smaller target context or a smaller head dim.")
if ok_context:
    with ui.friendly_errors():
        best = min_base(s.dim, target)
    if best is None:
        ui.warning(f"No base up to 10^15 keeps B_m ≥ 0 for every m < {target:,} at "
                   f"d = {s.dim}.")
    else:
        with ui.friendly_errors():
            scan = scan_table(s.dim, target, best)
        fit = br.men_fit_base(target)
        k1, k2, k3 = st.columns(3)
        k1.metric(f"Smallest base for L = {target:,} (app, d = {s.dim})", f"{best:,.0f}")
        k2.metric("Men et al. fit 0.0424·L^1.628", f"{fit:,.0f}")
        k3.metric("Ratio app / fit", f"{best / fit:.2f}")
        ui.show(scan_figure(s.dim, target), key="lc_scan_plot")
        above = scan[scan["base"] > best]
        refail = above[~above["passes"]]
        ui.explain(
            f"**The passing set is not an interval.** The search walks the grid 1.01^k "
            f"upward and stops at the first base that passes, {best:,.0f} (so the answer is "
            f"exact to 1% on that grid). Of the {len(above)} scanned bases above it, "
            f"{len(refail)} fail again"
            + (f", the largest at {refail['base'].max():,.0f}" if len(refail) else "")
            + ": raising the base moves a negative dip of B_m inside [0, L), so a bigger "
              "base is not automatically safe.")
        ui.download(scan_table, s.dim, target, best,
                    filename=f"long_context_base_scan_dim{s.dim}_L{target}.csv",
                    label="base scan", key="lc_scan")

st.subheader("Published fit beside the app")
st.caption(f"Source: {br.MEN_2024['citation']}. Their Figure 1 fits the lower bound of the "
           "base as 0.0424·L^1.628. The paper's per-length table values could not be "
           "verified here, so only the published fit is compared. Their models have d = 128.")
if ui.toggle("Compute the app's minimum for 1K … 1M tokens at d = 128 (about 10–30 s the "
             "first time, then cached for every visitor)", False, "lc_men"):
    with ui.friendly_errors():
        men = men_table(128, MEN_CONTEXTS)
    far = men[(men["ratio app/fit"] < 0.5) | (men["ratio app/fit"] > 2)]
    st.dataframe(men, hide_index=True)
    ui.explain(
        f"App / fit ratios range from {men['ratio app/fit'].min():.2f} to "
        f"{men['ratio app/fit'].max():.2f}; "
        + (f"{len(far)} context(s) differ by more than a factor 2 (flagged: "
           + ", ".join(f"{int(L):,}" for L in far["context L [tokens]"]) + ")."
           if len(far) else "none differs by more than a factor 2.")
        + " A fit through a few points is not the exact bound; the app's values are exact "
          "to 1% on its grid.")
    ui.download(men_table, 128, MEN_CONTEXTS, filename="long_context_men_fit_dim128.csv",
                label="fit comparison", key="lc_men_csv")

st.subheader("Real models: does the base carry the context?")
presets = preset_table()
st.dataframe(presets, hide_index=True)
fails = presets[~presets["passes"]]
ui.explain(
    f"Each preset's own base at its rotary dim (plain θᵢ, before any scaling method), "
    f"checked for its original and its maximum context: {len(fails)} of {len(presets)} "
    "rows have some B_m < 0 inside the context"
    + (" (" + ", ".join(dict.fromkeys(fails["preset"])) + ")" if len(fails) else "")
    + ". A failing row is where Men et al.'s argument says the base alone cannot carry "
      "the context; scaling methods change θᵢ and are not counted here.")
ui.download(preset_table, filename="long_context_presets.csv", label="preset table",
            key="lc_presets")
ui.download(bm_table, s.dim, s.base, bmax,
            filename=f"long_context_bm_dim{s.dim}_base{ui.slug(s.base)}_max{bmax}.csv",
            label="B_m curve", key="lc_bm")
