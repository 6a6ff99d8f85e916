"""The Attention page's figures (pages/attention.py) and the cached tables and sentences
that feed them: a toy head's logits and softmax weights without and with RoPE, and what
they show (the mask, the Toeplitz pattern, the rows' sums)."""

import numpy as np
import pandas as pd

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import N_, _, ngettext

VARIANTS = rc.teaching.tables.ATTENTION_VARIANTS  # ("without RoPE", "with RoPE")
# the panels' titles (the CSV's column names keep the English variant)
VARIANT_TITLES = dict(zip(VARIANTS, (N_("without RoPE"), N_("with RoPE"))))


def logit_col(variant: str) -> str:
    return f"logit {variant}"


def weight_col(variant: str) -> str:
    return f"weight {variant}"


@ui.table
def attention_table(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                    layout: str, device: str) -> pd.DataFrame:
    """One row per (query m, key n): logits and weights without and with RoPE."""
    return rc.attention_table(seq, seed, same, causal, dim, base, layout, device=device)


@ui.table
def attention_checks(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                     layout: str, device: str) -> dict:
    """Plain numbers the text quotes (rope_core.attention_checks)."""
    q, k = rc.toy_qk(seq, dim, seed, shared=same, device=device)
    return rc.attention_checks(q, k, rc.theta(dim, base, device=device), causal=causal,
                               layout=layout)


def grid(df: pd.DataFrame, column: str, seq: int, masked: np.ndarray) -> np.ndarray:
    """The column as a seq x seq matrix (rows m, columns n); masked cells become NaN,
    which plotly leaves blank (a figure cannot carry -inf)."""
    return np.where(masked, np.nan, df[column].to_numpy().reshape(seq, seq))


def masked_cells(df: pd.DataFrame, seq: int) -> np.ndarray:
    """The seq x seq cells a causal mask hides (logit -inf)."""
    return np.isneginf(df[logit_col(VARIANTS[0])].to_numpy()).reshape(seq, seq)


@ui.table
def lowest_weight(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                  layout: str, device: str) -> float:
    """log10 of the bottom of the weight colour scale: the smallest visible weight
    (at least 1e-6), and never above 1/L; once per setting."""
    df = attention_table(seq, seed, same, causal, dim, base, layout, device)
    visible = df[[weight_col(v) for v in VARIANTS]].to_numpy()[~masked_cells(df, seq).reshape(-1)]
    smallest = max(float(visible[visible > 0].min()), 1e-6)
    return min(np.log10(smallest), np.log10(1 / seq))  # the colour scale reaches 1/L at least


@ui.table
def first_weight(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                 layout: str, device: str) -> float:
    """The weight of query 0 on key 0 with RoPE (the table's first row), once per setting."""
    df = attention_table(seq, seed, same, causal, dim, base, layout, device)
    return float(df[weight_col(VARIANTS[1])].iloc[0])


def heatmap_pair(df: pd.DataFrame, kind: str, seq: int, title: str, coloraxis: dict,
                 log: bool = False) -> ui.Frozen:
    """Two heatmaps side by side (without | with RoPE) on one colour scale."""
    masked = masked_cells(df, seq)
    titles = [_(VARIANT_TITLES[v]) for v in VARIANTS]
    hover = (_("m={m}, n={n}<br>logit={value}") if kind == "logit" else
             _("m={m}, n={n}<br>weight={value}")).format(m="%{y}", n="%{x}",
                                                         value="%{customdata:.4f}")
    fig = ui.sketch(rows=1, cols=2, horizontal_spacing=0.1)
    traces = []
    for col, (variant, variant_title) in enumerate(zip(VARIANTS, titles), start=1):
        column = logit_col(variant) if kind == "logit" else weight_col(variant)
        values = grid(df, column, seq, masked)
        # log colour: log10 of the weight, so 1, 1/2, 1/3, ... 1/L stay apart
        z = np.log10(np.where(values > 0, values, np.nan)) if log else values
        traces.append(dict(type="heatmap", z=ui.typed(z), customdata=ui.typed(values),
                           x=list(range(seq)), y=list(range(seq)), coloraxis="coloraxis",
                           name=variant_title, xgap=1 if seq <= 32 else 0,
                           ygap=1 if seq <= 32 else 0,
                           hovertemplate=hover + "<extra>" + variant_title + "</extra>",
                           xaxis="x" if col == 1 else f"x{col}",
                           yaxis="y" if col == 1 else f"y{col}"))
    ui.style(fig, title=title, x="", y="", height=480)
    # Square cells in a shrunken domain (constrain="domain"), drawn at the top of the
    # plot area: without it a narrow screen stretched the y range to -20...40. One y
    # title on the left panel and one x title centred under both panels (per panel they
    # ran into each other at 390 px); the panel titles and the x title are placed on
    # the shrunken domains ("y domain"), so they stay next to the heatmaps.
    square = dict(scaleratio=1, constrain="domain", constraintoward="top")
    text = dict(showarrow=False, xanchor="center")
    notes = [dict(text, text=titles[0], x=0.5, xref="x domain", y=1, yref="y domain",
                  yanchor="bottom", yshift=6),
             dict(text, text=titles[1], x=0.5, xref="x2 domain", y=1, yref="y2 domain",
                  yanchor="bottom", yshift=6),
             dict(text, text=_("key position n [tokens]"), x=0.5, xref="paper", y=0,
                  yref="y domain", yanchor="top", yshift=-28)]
    ui.relayout(fig, dict(coloraxis=coloraxis, plot_bgcolor="#c8c8c8", annotations=notes,
                          xaxis=dict(constrain="domain"), xaxis2=dict(constrain="domain"),
                          yaxis=dict(square, scaleanchor="x",
                                     title=dict(text=_("query position m [tokens]"))),
                          yaxis2=dict(square, scaleanchor="x2")),
                xaxes=dict(showgrid=False, zeroline=False),
                yaxes=dict(autorange="reversed", showgrid=False, zeroline=False))
    return ui.kept(traces, fig)


@ui.figure
def logits_figure(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                  layout: str, device: str) -> ui.Frozen:
    """Logits without | with RoPE on one diverging colour scale, symmetric about 0."""
    df = attention_table(seq, seed, same, causal, dim, base, layout, device)
    finite_logits = df[[logit_col(v) for v in VARIANTS]].to_numpy()
    reach = float(np.abs(finite_logits[np.isfinite(finite_logits)]).max())
    titles = {"interleaved": _("Logits ℓ = q·k/√d (L = {seq}, d = {dim}, base {base}, "
                               "interleaved)"),
              "half": _("Logits ℓ = q·k/√d (L = {seq}, d = {dim}, base {base}, half)")}
    return heatmap_pair(
        df, "logit", seq, titles[layout].format(seq=seq, dim=dim, base=ui.fmt_base(base)),
        dict(colorscale="RdBu", cmin=-reach, cmax=reach,
             colorbar=dict(title=dict(text=_("logit")))))


@ui.figure
def weights_figure(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                   layout: str, device: str) -> ui.Frozen:
    """Softmax weights without | with RoPE on a log colour scale."""
    df = attention_table(seq, seed, same, causal, dim, base, layout, device)
    lowest = lowest_weight(seq, seed, same, causal, dim, base, layout, device)
    ticks = [t for t in (1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 1e-3, 1e-4, 1e-5, 1e-6)
             if np.log10(t) >= lowest - 1e-12]
    return heatmap_pair(
        df, "weight", seq, _("Softmax weights (each row sums to 1), log colour scale"),
        dict(colorscale="Viridis", cmin=lowest, cmax=0.0,
             colorbar=dict(title=dict(text=_("weight")),
                           tickvals=[float(np.log10(t)) for t in ticks],
                           ticktext=[f"{t:g}" for t in ticks])), log=True)


def mask_note(checks: dict, causal: bool) -> str:
    """The caption under the weights: the masked cells and their weight, or no mask."""
    if causal:
        masked = int(checks["masked"])
        return ngettext(
            "Grey cells: the {count} masked cell with n > m (a key in the future). Its logit is "
            "−inf, not a large negative number, so its weight is exactly 0 (the weight there: "
            "{largest}). The CSV writes that logit as -inf; the figure leaves it blank because a "
            "plotly figure cannot hold −inf.",
            "Grey cells: the {count} masked cells with n > m (keys in the future). Their logit is "
            "−inf, not a large negative number, so their weight is exactly 0 (largest weight "
            "among them: {largest}). The CSV writes those logits as -inf; the figure leaves them "
            "blank because a plotly figure cannot hold −inf.", masked).format(
            count=i18n.integer(masked), largest=f"{checks['masked_weight']:g}")
    return _("No mask: every query attends to every key, including later ones.")


def pattern_notes(checks: dict, seq: int, same: bool, causal: bool) -> tuple[str, ...]:
    """What the heatmaps show (rope_core.attention_checks' numbers): with the same q and k
    at every position, the flat rows without RoPE and the Toeplitz pattern with it; with
    random ones, what RoPE changes on and off the diagonal."""
    if same:
        numbers = dict(first=f"{checks['first_without']:.4f}",
                       spread=f"{checks['spread_without']:.1e}", seq=seq)
        if causal:
            flat = _(
                "**Same q and k at every position.** Without RoPE every visible logit is the "
                "same, {first} (spread {spread}), so each query spreads its weight evenly over "
                "the keys it may see: row m gives 1/(m+1) to each of keys 0 … m (row 0: 1, row 1: "
                "1/2, row {last_row}: 1/{seq} = {last_weight}). These weights alone do not tell "
                "a later layer the position: a head outputs the weighted sum Σₙ aₙvₙ, not its "
                "weights, and when every token is the same that sum is the same at every "
                "position, in every layer. Once one token's value stands out, the first one's "
                "say, it enters row m's output with weight 1/(m+1), which falls with m and tells "
                "how many tokens came before; causal models trained without any position "
                "encoding (NoPE) do learn positions (Haviv et al. 2022; Kazemnejad et al. "
                "2023).").format(
                    last_row=seq - 1, last_weight=f"{1 / seq:.4f}", **numbers)
        else:
            flat = _(
                "**Same q and k at every position.** Without RoPE every visible logit is the "
                "same, {first} (spread {spread}), so each query spreads its weight evenly over "
                "the keys it may see (1/{seq} each): without a mask and without RoPE nothing in "
                "this head depends on position.").format(**numbers)
        return flat, _(
            "With RoPE the logit depends only on n − m: **each diagonal has one colour** "
            "(largest spread along any diagonal: {spread}), a Toeplitz matrix. The weights now "
            "depend on how far back each key is.").format(spread=f"{checks['toeplitz_with']:.1e}")
    return (_(
        "**Random q and k at every position.** On the main diagonal m = n both vectors are "
        "turned by the same angle, so RoPE leaves those logits unchanged (largest difference "
        "{diagonal}). Off the diagonal qₘ meets kₙ through the rotation Rₙ₋ₘ, which changes "
        "the logits by up to {largest} here. Switch on *every token has the same q and k* to "
        "see the pattern RoPE imposes on its own.").format(
        diagonal=f"{checks['diagonal_change']:.1e}", largest=f"{checks['largest_change']:.2f}"),)


def row_sum_note(checks: dict, args: tuple) -> str:
    """How far the rows of weights are from summing to 1; with a causal mask, row 0's weight
    on key 0 too (``args``: the page's settings, as :func:`attention_table` takes them)."""
    gap = f"{checks['row_sum_gap']:.1e}"
    if args[3]:  # causal
        return _("Every row of weights sums to 1 (largest deviation {gap}); row 0 can only see "
                 "key 0, so its weight there is {weight}.").format(
            gap=gap, weight=f"{first_weight(*args):g}")
    return _("Every row of weights sums to 1 (largest deviation {gap}).").format(gap=gap)
