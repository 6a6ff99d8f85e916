"""Attention: logits and softmax weights of a toy head, without and with RoPE."""

import numpy as np
import pandas as pd
import streamlit as st
import torch
from plotly.subplots import make_subplots

import rope_core as rc
import ui

M_COL, N_COL = "m [query position]", "n [key position]"
VARIANTS = ("without RoPE", "with RoPE")
WEIGHT_QUANTILE = 0.95  # the weight colour scale ends at this quantile of the visible weights


def logit_col(variant: str) -> str:
    return f"logit {variant} [1]"


def weight_col(variant: str) -> str:
    return f"weight {variant} [1]"


@ui.table
def attention_table(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                    layout: str, device: str) -> pd.DataFrame:
    """One row per (query m, key n): logits and weights without and with RoPE."""
    q, k = rc.toy_qk(seq, dim, seed, shared=same, device=device)  # (seq, dim) each, float64
    plain = rc.attention(q, k, None, causal=causal, layout=layout)  # (seq, seq) twice
    rotated = rc.attention(q, k, rc.theta(dim, base, device=device), causal=causal,
                           layout=layout)
    m = torch.arange(seq).repeat_interleave(seq)  # (seq * seq,)
    n = torch.arange(seq).repeat(seq)
    columns = {M_COL: m, N_COL: n}
    for variant, (logits, weights) in zip(VARIANTS, (plain, rotated)):
        columns[logit_col(variant)] = logits.reshape(-1)
        columns[weight_col(variant)] = weights.reshape(-1)
    return rc.to_frame(columns)


def grid(df: pd.DataFrame, column: str, seq: int, masked: np.ndarray) -> np.ndarray:
    """The column as a seq x seq matrix (rows m, columns n); masked cells become NaN,
    which plotly leaves blank (a figure cannot carry -inf)."""
    return np.where(masked, np.nan, df[column].to_numpy().reshape(seq, seq))


def pair_figure(df: pd.DataFrame, kind: str, seq: int, masked: np.ndarray, title: str,
                coloraxis: dict):
    """Two heatmaps side by side (without | with RoPE) on one colour scale."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=VARIANTS, horizontal_spacing=0.1)
    for col, variant in enumerate(VARIANTS, start=1):
        column = logit_col(variant) if kind == "logit" else weight_col(variant)
        fig.add_heatmap(z=grid(df, column, seq, masked), x=list(range(seq)),
                        y=list(range(seq)), coloraxis="coloraxis", row=1, col=col,
                        name=variant, xgap=1 if seq <= 32 else 0, ygap=1 if seq <= 32 else 0,
                        hovertemplate="m=%{y}, n=%{x}<br>" + kind + "=%{z:.4f}<extra>" +
                                      variant + "</extra>")
    ui.style(fig, title=title, x="key position n [tokens]", y="query position m [tokens]",
                 height=480)
    fig.update_layout(coloraxis=coloraxis, plot_bgcolor="#c8c8c8")
    fig.update_annotations(yshift=10)  # subplot titles clear of the top row
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False)
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(scaleanchor="x", row=1, col=1)
    fig.update_yaxes(scaleanchor="x2", row=1, col=2)
    return fig


s = ui.settings()
st.title("Attention with and without RoPE")
st.markdown(
    "One attention head on a toy sequence: every token has a random query qₘ and key kₙ "
    "(entries drawn from N(0, 1)). The logit of query m for key n is their scaled dot "
    "product; softmax along each row turns the logits into weights. RoPE rotates qₘ by Rₘ "
    "and kₙ by Rₙ before the dot product, and nothing else changes.")
st.latex(r"\ell_{mn} = \frac{(R_m q_m)^{\top}(R_n k_n)}{\sqrt{d}} = "
         r"\frac{q_m^{\top} R_{n-m}\, k_n}{\sqrt{d}},\qquad "
         r"a_{mn} = \frac{e^{\ell_{mn}}}{\sum_{n'} e^{\ell_{mn'}}}")
st.latex(r"\text{causal mask: } \ell_{mn} = -\infty \ \text{ for } n > m "
         r"\quad\Rightarrow\quad a_{mn} = \frac{e^{-\infty}}{\sum_{n'} e^{\ell_{mn'}}} = 0"
         r"\ \text{ exactly}")

c1, c2, c3, c4 = st.columns([3, 2, 3, 2], vertical_alignment="bottom")
seq = ui.slider("Sequence length L [tokens]", 2, 64, 16, "att_seq", container=c1)
seed = ui.number("Random seed", 0, 1_000_000, 0, "att_seed", container=c2)
same = ui.toggle("every token has the same q and k", False, "att_same", container=c3,
                     help="One draw of q and of k repeated at every position.")
causal = ui.toggle("causal mask", True, "att_causal", container=c4,
                       help="Query m may only attend to keys n ≤ m.")

with ui.friendly_errors():
    df = attention_table(seq, seed, same, causal, s.dim, s.base, s.layout, s.device)

masked = np.isneginf(df[logit_col(VARIANTS[0])].to_numpy()).reshape(seq, seq)
finite_logits = df[[logit_col(v) for v in VARIANTS]].to_numpy()
finite_logits = finite_logits[np.isfinite(finite_logits)]
reach = float(np.abs(finite_logits).max())
fig_logits = pair_figure(
    df, "logit", seq, masked,
    f"Logits ℓ = q·k/√d (L = {seq}, d = {s.dim}, base {ui.fmt_base(s.base)}, {s.layout})",
    dict(colorscale="RdBu", cmin=-reach, cmax=reach, colorbar=dict(title="logit [1]")))
visible_weights = df[[weight_col(v) for v in VARIANTS]].to_numpy()[~masked.reshape(-1)]
top = float(np.quantile(visible_weights, WEIGHT_QUANTILE))  # colour scale ends here
fig_weights = pair_figure(
    df, "weight", seq, masked, "Softmax weights (each row sums to 1)",
    dict(colorscale="Viridis", cmin=0, cmax=top, colorbar=dict(title="weight [1]")))
ui.show(fig_logits, key="att_logits")
ui.show(fig_weights, key="att_weights")
above = int((visible_weights > top).sum())
if above:
    st.caption(f"The weight colour scale ends at {top:.3f} ({WEIGHT_QUANTILE:.0%} of visible "
               f"weights lie below) so that the long rows stay readable; the {above} larger "
               f"weights, up to {float(visible_weights.max()):.3f}, share its top colour.")

n_masked = int(masked.sum())
row_sum_gap = max(float((df.groupby(M_COL)[weight_col(v)].sum() - 1).abs().max())
                  for v in VARIANTS)
if causal:
    masked_weight = max(float(df.loc[masked.reshape(-1), weight_col(v)].abs().max())
                        for v in VARIANTS)
    st.caption(
        f"Grey cells: the {n_masked} masked pairs with n > m (keys in the future). Their logit "
        f"is −inf, not a large negative number, so their weight is exactly 0 (largest weight "
        f"among them: {masked_weight:g}). The CSV writes those logits as -inf; the figure "
        "leaves them blank because a plotly figure cannot hold −inf.")
else:
    st.caption("No mask: every query attends to every key, including later ones.")

logit_without, logit_with = (df[logit_col(v)].to_numpy() for v in VARIANTS)
visible = ~masked.reshape(-1)
if same:
    offset = (df[N_COL] - df[M_COL])[visible]
    by_diagonal = pd.Series(logit_with[visible]).groupby(offset.to_numpy())
    toeplitz_gap = float((by_diagonal.max() - by_diagonal.min()).max())
    flat_gap = float(np.ptp(logit_without[visible]))
    ui.explain(
        "**Same q and k at every position.** Without RoPE the model cannot see positions at "
        f"all: every visible logit is {logit_without[visible][0]:.4f} (spread "
        f"{flat_gap:.1e}), so each query spreads its weight evenly over the keys it may see"
        + (" (row m: 1/(m+1) each)." if causal else f" (1/{seq} each).") +
        " With RoPE the logit depends only on n − m: **each diagonal has one colour** "
        f"(largest spread along any of the {by_diagonal.ngroups} diagonals: "
        f"{toeplitz_gap:.1e}), a Toeplitz matrix. The weights now depend on how far back "
        "each key is, not on where the pair sits.")
else:
    diagonal = np.arange(seq) * (seq + 1)  # rows with m = n
    same_diag = float(np.abs(logit_with[diagonal] - logit_without[diagonal]).max())
    changed = float(np.abs(logit_with[visible] - logit_without[visible]).max())
    ui.explain(
        "**Random q and k at every position.** On the main diagonal m = n both vectors are "
        f"turned by the same angle, so RoPE leaves those logits unchanged (largest difference "
        f"{same_diag:.1e}). Off the diagonal qₘ meets kₙ through the rotation Rₙ₋ₘ, which "
        f"changes the logits by up to {changed:.2f} here. Switch on *every token has the "
        "same q and k* to see the pattern RoPE imposes on its own.")
ui.explain(
    f"Every row of weights sums to 1 (largest deviation {row_sum_gap:.1e})"
    + (f"; row 0 can only see key 0, so its weight there is "
       f"{float(df[weight_col(VARIANTS[1])].iloc[0]):g}." if causal else "."))

tag = "sameqk_" if same else ""
ui.download(
    attention_table, seq, seed, same, causal, s.dim, s.base, s.layout, s.device,
    filename=f"attention_seq{seq}_seed{seed}_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}_"
        f"{tag}{'causal' if causal else 'full'}.csv",
    label="attention table", key="attention")
