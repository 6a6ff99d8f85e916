"""Sinusoidal: the original Transformer's additive table, its dot products, and
how accurately the two usual ways of writing its frequencies are computed."""

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import torch

import rope_core as rc
import ui

DMODEL_OPTIONS = list(range(2, 513, 2))
MAX_TABLE_CELLS = 2**17  # P x d_model numbers at most: 7 columns each stays in one CSV
MAX_SIMILARITY = 128  # positions 0 ... 127 at most in the PE_m . PE_n heatmap
PE_SCALE = 100  # the table heatmap sends 100·PE rounded to whole numbers (int8)
REFERENCE_DIGITS = rc.sinusoidal.REFERENCE_DIGITS
ROUNDING_EPS = 64  # errors up to this many machine epsilons count as rounding
DTYPES = {"float32": torch.float32, "float64": torch.float64}


@ui.table
def pe_table(positions: int, d_model: int, base: float, device: str) -> pd.DataFrame:
    """The table in long form: one row per (position p, dimension j)."""
    return rc.pe_table(positions, d_model, base, device=device)


@ui.table
def similarity_table(positions: int, d_model: int, base: float, device: str) -> pd.DataFrame:
    """PE_m . PE_n for every pair of positions 0 ... positions-1, in long form."""
    return rc.similarity_table(positions, d_model, base, device=device)


@ui.table
def dot_table(max_offset: int, d_model: int, base: float, device: str) -> pd.DataFrame:
    """PE_m . PE_n = sum_i cos((m - n) omega_i) for offsets -K ... K."""
    return rc.dot_table(max_offset, d_model, base, device=device)


@ui.table
def forms_table(dim: int, base: float) -> pd.DataFrame:
    """omega_i as a power and as an exponential against a 40-digit reference."""
    return rc.forms_table(dim, base)


@ui.figure
def pe_figure(positions: int, d_model: int, base: float, device: str):
    """Every row of the table: 100·PE as int8 (a quarter of float32's bytes)."""
    values = pe_table(positions, d_model, base, device)["PE value"].to_numpy()
    z = (PE_SCALE * values).round().astype("int8").reshape(positions, d_model)
    ticks = [-1, -0.5, 0, 0.5, 1]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(d_model)), y=list(range(positions)), colorscale="RdBu",
        zmin=-PE_SCALE, zmax=PE_SCALE,
        colorbar=dict(title="PE", tickvals=[PE_SCALE * t for t in ticks],
                      ticktext=[f"{t:g}" for t in ticks]),
        hovertemplate="position p=%{y}<br>dimension j=%{x}<br>100·PE=%{z}<extra></extra>"))
    ui.style(fig, title=f"Sinusoidal table PE: {positions:,} positions × d_model = "
                        f"{d_model} (base {ui.fmt_base(base)})",
             x="dimension j (even: sin, odd: cos)", y="position p [tokens]", height=560)
    fig.update_yaxes(autorange="reversed")
    return fig


@ui.figure
def similarity_figure(size: int, d_model: int, base: float, device: str):
    sim = similarity_table(size, d_model, base, device)
    fig = go.Figure(go.Heatmap(
        z=sim["PE_m . PE_n"].to_numpy().reshape(size, size),
        x=list(range(size)), y=list(range(size)), colorscale="Viridis",
        colorbar=dict(title="PE_m·PE_n"),
        hovertemplate="m=%{y}, n=%{x}<br>PE_m·PE_n=%{z:.4f}<extra></extra>"))
    ui.style(fig, title=f"PE_m · PE_n for positions 0 … {size - 1}",
             x="position n [tokens]", y="position m [tokens]", height=520)
    ui.square(fig)
    fig.update_yaxes(autorange="reversed")
    return fig


@ui.figure
def dot_figure(max_offset: int, d_model: int, base: float, device: str):
    dots = dot_table(max_offset, d_model, base, device)
    fig = go.Figure(go.Scatter(
        x=dots["m - n [tokens]"], y=dots["PE_m . PE_n"],
        mode="lines+markers" if max_offset <= 64 else "lines",
        name="PE_m·PE_n", line=dict(color=ui.COLORS[0]), marker=dict(size=4),
        hovertemplate="m − n=%{x}<br>PE_m·PE_n=%{y:.4f}<extra></extra>"))
    fig.add_vline(x=0, line=dict(color="gray", dash="dot"))
    ui.style(fig, title=f"PE_m · PE_n against the offset m − n (±{max_offset:,})",
             x="offset m − n [tokens]", y="PE_m . PE_n", height=520)
    return fig


ERROR_COLUMNS = {"pow": "relative error pow", "exp": "relative error exp"}


@ui.figure
def forms_figure(dim: int, base: float):
    fig = go.Figure()
    for dname, block in forms_table(dim, base).groupby("dtype", sort=False):
        for form, column in ERROR_COLUMNS.items():
            err = block[column]
            name = f"{form} form, {dname}"
            fig.add_scatter(
                x=block["pair i"], y=err.where(err > 0), name=name, mode="lines+markers",
                line=dict(color=ui.COLORS[0 if form == "pow" else 1],
                          dash="solid" if dname == "float32" else "dash"),
                marker=dict(size=4),
                hovertemplate="i=%{x}<br>relative error=%{y:.2e}<extra>" + name + "</extra>")
    ui.style(fig, title="Relative error of ωᵢ in each form (log scale)",
             x="pair index i", y="|form − exact| / exact", height=420)
    fig.update_yaxes(type="log", exponentformat="power")
    return fig


s = ui.settings()
st.title("Sinusoidal position encoding")
st.markdown(
    "Before RoPE, the Transformer *added* a fixed table PE to the token embeddings. Row p "
    "of the table is a vector of d_model numbers: pairs of sines and cosines of p·ωᵢ, with "
    "the same geometric frequencies that RoPE uses to rotate q and k.")
st.latex(r"PE_{p,\,2i} = \sin(p\,\omega_i),\qquad PE_{p,\,2i+1} = \cos(p\,\omega_i)")
st.latex(r"\omega_i = \text{base}^{-2i/d_{\text{model}}},\quad i = 0,\dots,"
         r"\tfrac{d_{\text{model}}}{2}-1")
st.latex(r"PE_m \cdot PE_n = \sum_{i=0}^{d_{\text{model}}/2-1} \big(\sin m\omega_i \sin n\omega_i"
         r" + \cos m\omega_i \cos n\omega_i\big)"
         r" = \sum_{i=0}^{d_{\text{model}}/2-1} \cos\big((m-n)\,\omega_i\big)")

c1, c2 = st.columns(2)
positions = ui.slider("Positions P [tokens]", 16, 4096, 512, "sin_positions", step=16,
                          container=c1, help="Rows 0 … P−1 of the table.")
d_model = ui.select_slider("Model width d_model", DMODEL_OPTIONS, 128, "sin_dmodel",
                               container=c2, allowed="an even integer from 2 to 512",
                               help="Its own setting: the sidebar's head dim is for RoPE.")
base_txt = ui.slug(s.base)
if positions * d_model > MAX_TABLE_CELLS:
    requested, positions = positions, MAX_TABLE_CELLS // d_model
    st.info(f"P × d_model is limited to {MAX_TABLE_CELLS:,} numbers, so that the CSV of the "
            f"full table stays quick to write: with d_model = {d_model} this page uses the first "
            f"**{positions:,}** of the {requested:,} positions asked for.", icon="ℹ️")

# ------------------------------------------------------------ (a) table ----
st.subheader("The table")
with ui.friendly_errors():
    table = pe_table(positions, d_model, s.base, s.device)
ui.show(pe_figure(positions, d_model, s.base, s.device), key="sin_pe_heatmap")
st.caption(f"Every one of the {positions:,} positions is a row of the heatmap. The figure "
           "carries 100·PE rounded to a whole number (two decimals); the CSV holds all "
           f"{positions:,} rows × {d_model} dimensions at full float64 precision.")
longest = float(rc.wavelength(rc.theta(d_model, s.base))[-1])
ui.explain(
    "Each column pair (2i, 2i+1) is one frequency ωᵢ. On the left, pair 0 turns once every "
    f"2π ≈ {2 * math.pi:.2f} positions, so the stripes are narrow; towards the right the "
    f"waves slow down until the last pair needs {longest:,.0f} positions for one turn, "
    f"which is {positions / longest:.3g} of a turn within these {positions:,} positions. "
    "Read across a row, the fast columns tell neighbouring positions apart and the slow "
    "ones tell far-apart positions apart, like the digits of a clock.")
ui.download(pe_table, positions, d_model, s.base, s.device,
            filename=f"sinusoidal_pe_P{positions}_d{d_model}_base{base_txt}.csv",
            label="sinusoidal table", key="sin_pe")

# ----------------------------------------------- (b), (c) dot products ----
st.subheader("Dot products of two rows")
size = min(positions, MAX_SIMILARITY)
max_offset = positions - 1
with ui.friendly_errors():
    sim = similarity_table(size, d_model, s.base, s.device)
    dots = dot_table(max_offset, d_model, s.base, s.device)

profile = dots["PE_m . PE_n"]
offsets = dots["m - n [tokens]"]
left, right = st.columns(2)
with left:
    ui.show(similarity_figure(size, d_model, s.base, s.device), key="sin_similarity")
with right:
    ui.show(dot_figure(max_offset, d_model, s.base, s.device), key="sin_dot_profile")

by_offset = profile.to_numpy()
centre = max_offset  # row of offset 0
asymmetry = float(abs(by_offset - by_offset[::-1]).max())  # f(r) against f(-r)
diagonals = sim.groupby("m - n [tokens]")["PE_m . PE_n"]
diag_spread = float((diagonals.max() - diagonals.min()).max())
low = int(by_offset.argmin())
ui.explain(
    f"The dot product peaks at offset 0 with d_model/2 = {by_offset[centre]:g} (each pair "
    f"adds cos 0 = 1) and falls to {by_offset[centre + 1]:.2f} at offset ±1; its smallest "
    f"value, {by_offset[low]:.2f}, is at offsets ±{abs(int(offsets.iloc[low]))}. It "
    f"depends on m − n alone: along every diagonal of the heatmap it varies by at most "
    f"{diag_spread:.1e}. **It is symmetric in m − n** (largest |f(r) − f(−r)| = "
    f"{asymmetry:.1e}): a position 5 tokens before looks exactly like one 5 tokens after, "
    "so these dot products alone cannot tell before from after. That is no advantage of RoPE "
    "by itself: with q = k its score Σᵢ|q₍ᵢ₎|²cos((n − m)θᵢ) is just as symmetric. Sine "
    "terms, which change sign with n − m, appear in qᵀR₍ₙ₋ₘ₎k only when q ≠ k (different "
    "W_q and W_k projections), and sinusoidal PE gets the same kind of terms through "
    "W_Q W_Kᵀ, which mixes the sin and cos columns of PE_m and PE_n.")
ui.download(similarity_table, size, d_model, s.base, s.device,
            filename=f"sinusoidal_similarity_P{size}_d{d_model}_base{base_txt}.csv",
            label="similarity table", key="sin_similarity")
ui.download(dot_table, max_offset, d_model, s.base, s.device,
            filename=f"sinusoidal_dot_K{max_offset}_d{d_model}_base{base_txt}.csv",
            label="dot-product profile", key="sin_dot")

# ------------------------------------------------- (d) frequency forms ----
st.subheader("base^(−2i/d) or exp(−(2i/d)·ln base)?")
st.markdown(
    "Many implementations write the frequencies as an exponential (PyTorch's `div_term`), "
    "often with the claim that the power would overflow or underflow. Both are the same "
    f"number, so here they are simply **measured**: each form computed entirely in float32 "
    f"and in float64 for the sidebar's d = {s.dim} and base {ui.fmt_base(s.base)}, "
    f"against a {REFERENCE_DIGITS}-digit decimal value of base^(−2i/d).")
st.latex(r"\omega_i = \text{base}^{-2i/d} = \exp\!\Big(-\tfrac{2i}{d}\,\ln\text{base}\Big)")
with ui.friendly_errors():
    forms = forms_table(s.dim, s.base)

stats = {(dname, form): float(block[column].max())
         for dname, block in forms.groupby("dtype", sort=False)
         for form, column in ERROR_COLUMNS.items()}
ui.show(forms_figure(s.dim, s.base), key="sin_forms")
zeros = int((forms[list(ERROR_COLUMNS.values())] == 0).to_numpy().sum())
st.caption(f"{zeros} of {2 * len(forms)} errors are exactly 0 (e.g. i = 0, where both forms "
           "give 1) and cannot be drawn on a log axis; the CSV lists them.")

eps = {dname: torch.finfo(dtype).eps for dname, dtype in DTYPES.items()}
st.markdown("**Largest relative error of each form**")
metric_cols = st.columns(4)
for col, ((dname, form), worst) in zip(metric_cols, stats.items()):
    col.metric(f"{form} form, {dname}", f"{worst:.2e}",
               help=f"{worst / eps[dname]:.2f} × machine epsilon of {dname} "
                    f"({eps[dname]:.2e})")

finite = bool(torch.isfinite(torch.tensor(
    forms[["pow form base^(-2i/d) [rad/token]",
           "exp form exp(-(2i/d) ln base) [rad/token]"]].to_numpy())).all())
smallest = float(forms["reference omega_i [rad/token]"].min())
worst_base, worst_dim = float(max(ui.BASE_OPTIONS)), max(ui.DIM_OPTIONS)
worst_omega = worst_base ** (-(worst_dim - 2) / worst_dim)
f32 = torch.finfo(torch.float32)
better32 = "power" if stats[("float32", "pow")] <= stats[("float32", "exp")] else "exponential"
rounding = all(worst <= ROUNDING_EPS * eps[dname] for (dname, _), worst in stats.items())
why = (" (the exponential multiplies the rounding error of ln(base)/d by 2i, so its error "
       "grows with i)" if stats[("float32", "exp")] >= 2 * stats[("float32", "pow")] else "")
ui.explain(
    f"In float32 the largest relative errors are {stats[('float32', 'pow')]:.1e} (power) "
    f"and {stats[('float32', 'exp')]:.1e} (exponential), i.e. "
    f"{stats[('float32', 'pow')] / eps['float32']:.1f} and "
    f"{stats[('float32', 'exp')] / eps['float32']:.1f} machine epsilons; in float64 "
    f"{stats[('float64', 'pow')]:.1e} and {stats[('float64', 'exp')]:.1e} "
    f"({stats[('float64', 'pow')] / eps['float64']:.1f} and "
    f"{stats[('float64', 'exp')] / eps['float64']:.1f} epsilons). "
    + ("Both are plain rounding error" if rounding else
       f"Some exceed {ROUNDING_EPS} epsilons, more than rounding alone")
    + f"; here the {better32} form is the more accurate one in float32{why}. "
    + ("Nothing overflows or underflows: every value is finite and the smallest is "
       if finite else "**Some values are not finite**; the smallest reference value is ")
    + f"{smallest:.2e}. Even for base {ui.fmt_base(worst_base)} and "
    f"d = {worst_dim}, the largest intermediate (the base itself, "
    f"{ui.fmt_base(worst_base)}) and the smallest frequency ({worst_omega:.1e}) sit far "
    f"inside float32's range "
    f"{f32.tiny:.1e} … {f32.max:.1e}. Choose either form; the exponential is a habit, "
    "not a fix.")
ui.download(forms_table, s.dim, s.base,
            filename=f"frequency_forms_d{s.dim}_base{base_txt}.csv",
            label="frequency-form table", key="sin_forms")
