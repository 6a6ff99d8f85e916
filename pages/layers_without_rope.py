"""Layers without RoPE: hybrids that rotate in some layers and not in others."""

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import ui
from rope_core import compare
from ui import i18n
from ui.i18n import N_, _

# every preset whose layers are not all alike (NoPE layers, or local and global layers)
HYBRIDS = [name for name, p in rc.PRESETS.items() if p.layer_kinds is not None and (
    "nope" in p.layer_kinds or len(set(p.layer_attention)) > 1)]
DEFAULT_MODELS = ["Llama 4 Scout", "Command R7B", "SmolLM3 3B", "Gemma 3 4B"]
MAX_MODELS = 4
CODES = {0: ("#1f77b4", N_("RoPE, full attention")),
         1: ("#17becf", N_("RoPE, sliding window or chunk")),
         2: ("#2ca02c", N_("RoPE, local base, sliding window")),
         3: ("#bbbbbb", N_("NoPE (no rotation)"))}
TEMPERATURE_POINTS = 300  # positions on the Llama 4 temperature curve


def code(kind: str, spectrum: str, attention: str) -> int:
    if kind == "nope":
        return 3
    if spectrum == "local":
        return 2
    return 1 if attention in ("sliding", "chunked") else 0


@ui.table
def layers(names: tuple) -> dict:
    """Per layer (compare.layer_table) and one summary row per model."""
    configs = [rc.PRESETS[n] for n in names]
    table = compare.layer_table(configs)
    rows = []
    for cfg in configs:
        block = table[table["model"] == cfg.name]
        rope = block[block["kind"] == "rope"]
        rows.append({
            "model": cfg.name, "layers": len(block), "RoPE layers": len(rope),
            "NoPE layers": len(block) - len(rope),
            "window [tokens]": cfg.window if cfg.window is not None else math.nan,
            "context [tokens]": cfg.max_context,
            "RoPE reach [tokens]": int(rope["reach [tokens]"].min()),
            "NoPE reach [tokens]": cfg.max_context if len(rope) < len(block) else math.nan,
            "longest wavelength [tokens]": float(rope["longest wavelength [tokens]"].max()),
            "pairs turning within reach": int(rope["pairs turning within reach"].min()),
            "pairs": cfg.rotary_dim // 2,
        })
    return {"layers": table, "summary": pd.DataFrame(rows)}


@ui.table
def temperature(context: int, floor_scale: float, attn_scale: float) -> pd.DataFrame:
    """Llama 4's NoPE query scale at log-spaced positions up to the context."""
    p = np.unique(np.round(np.geomspace(1, context, TEMPERATURE_POINTS))).astype(np.int64) - 1
    scale = compare.nope_query_scale(p.tolist(), floor_scale, attn_scale)  # (P,)
    return pd.DataFrame({"floor_scale": floor_scale, "attn_scale": attn_scale,
                         "position": p, "query scale": scale.numpy()})


@ui.figure
def pattern_figure(names: tuple) -> go.Figure:
    """Each model's layers as a row of cells, coloured by what the layer does."""
    table = layers(names)["layers"]
    depth = int(table["layer"].max()) + 1
    z, text = [], []
    for name in names:
        block = table[table["model"] == name]
        cells = [code(k, s, a) for k, s, a in zip(block["kind"], block["spectrum"],
                                                  block["attention"])]
        hover = [_("layer {layer}: {what}; reaches {reach} tokens").format(
            layer=int(layer), what=_(CODES[c][1]), reach=i18n.integer(int(reach)))
            for layer, c, reach in zip(block["layer"], cells, block["reach [tokens]"])]
        z.append(cells + [None] * (depth - len(cells)))
        text.append(hover + [""] * (depth - len(cells)))
    scale = []
    for c, (color, _label) in CODES.items():
        scale += [[c / 4, color], [(c + 1) / 4, color]]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(range(depth)), y=list(names), customdata=text, zmin=-0.5, zmax=3.5,
        colorscale=scale, xgap=1, ygap=3, showscale=False,
        hovertemplate="%{y}<br>%{customdata}<extra></extra>"))
    for color, label in CODES.values():  # a legend instead of a colour bar: fits 390 px
        fig.add_scatter(x=[None], y=[None], mode="markers", name=_(label), hoverinfo="skip",
                        marker=dict(symbol="square", size=12, color=color))
    ui.style(fig, title=_("Which layers rotate"), x=_("layer (0 = first)"), y="",
             height=170 + 45 * len(names))
    fig.update_yaxes(autorange="reversed")
    return fig


@ui.figure
def reach_figure(names: tuple) -> go.Figure:
    """Per model: how far a RoPE layer sees, its slowest pair's wavelength, the context."""
    summary = layers(names)["summary"]
    fig = go.Figure()
    bars = (("RoPE reach [tokens]", _("RoPE layers see at most (window)"), ui.COLORS[5]),
            ("longest wavelength [tokens]", _("slowest pair's wavelength"), ui.COLORS[3]),
            ("context [tokens]", _("configured context (NoPE layers see all of it)"),
             ui.COLORS[0]))
    for column, label, color in bars:
        fig.add_bar(y=summary["model"], x=summary[column], name=label, orientation="h",
                    marker_color=color,
                    hovertemplate="%{y}: %{x:,.0f}<extra>" + label + "</extra>")
    ui.style(fig, title=_("How far RoPE layers reach, against the context (log scale)"),
             x=_("tokens (log scale)"), y="", height=160 + 70 * len(names))
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(barmode="group")
    return fig


@ui.figure
def temperature_figure(context: int, floor_scale: float, attn_scale: float) -> go.Figure:
    """Llama 4's query scale of its NoPE layers against the position."""
    t = temperature(context, floor_scale, attn_scale)
    fig = go.Figure()
    fig.add_scatter(x=t["position"] + 1, y=t["query scale"], mode="lines",
                    line=dict(color=ui.COLORS[1], shape="hv"), name=_("query scale"),
                    hovertemplate=_("p={position}<br>scale={scale}").format(
                        position="%{x:,}", scale="%{y:.4f}") + "<extra></extra>")
    ui.style(fig, title=_("Llama 4: NoPE layers scale their queries with log position"),
             x=_("position p + 1 [tokens] (log scale)"), y=_("query scale"), height=380)
    fig.update_xaxes(type="log", exponentformat="power")
    return fig


ui.settings()
st.title(_("Layers without RoPE"))
st.markdown(_(
    "Several open models of 2024–2026 rotate queries and keys in only some of their layers. "
    "Llama 4 (iRoPE), SmolLM3 and Command R7B leave every fourth layer without any "
    "positional encoding (NoPE); Gemma 2 and 3 and gpt-oss alternate windowed layers with "
    "global ones, and Gemma 3 gives its local layers their own base. Everything here is read "
    "from each model's `config.json` the way transformers builds the model; the sidebar "
    "settings do not apply."))
st.markdown(_(
    "**Why hybrids.** A RoPE layer knows word order directly, but its scores depend on the "
    "distance, and at distances beyond its training the angles are new. A NoPE layer has no "
    "positional signal at all except the causal mask, so nothing in it changes with "
    "distance: it can retrieve a token from anywhere in the context, but it cannot tell "
    "nearby order well. Giving the RoPE layers a window keeps their angles inside what "
    "training covered; the NoPE layers carry long-range retrieval (Yang et al. 2025, "
    "*Rope to Nope and Back Again*, arXiv:2501.18795)."))

names = tuple(ui.multiselect(_("Models (up to 4)"), HYBRIDS, DEFAULT_MODELS, "lw_models",
                             max_selections=MAX_MODELS))
if not names:
    st.info(_("Choose at least one model."), icon=":material/info:")
    st.stop()
with ui.friendly_errors():
    tables = layers(names)
summary = tables["summary"]

# --- pattern ---------------------------------------------------------------------------
ui.show(pattern_figure(names), key="lw_pattern_plot")
pattern_text = []
for _i, row in summary.iterrows():
    pattern_text.append(_("{model}: {rope} of {n} layers rotate, {nope} do not").format(
        model=row["model"], rope=int(row["RoPE layers"]), n=int(row["layers"]),
        nope=int(row["NoPE layers"])))
ui.explain(_("**What to notice.** Grey cells are NoPE layers: the same weights, no rotation. "
             "{models}.").format(models=_("; ").join(pattern_text)))

# --- reach -----------------------------------------------------------------------------
ui.show(reach_figure(names), key="lw_reach_plot")
reach_text = []
for _i, row in summary.iterrows():
    reach_text.append(_("{model}: a RoPE layer sees {reach} tokens, where {turning} of "
                        "{pairs} pairs turn at least once; the context is {context}").format(
        model=row["model"], reach=i18n.integer(int(row["RoPE reach [tokens]"])),
        turning=int(row["pairs turning within reach"]), pairs=int(row["pairs"]),
        context=i18n.integer(int(row["context [tokens]"]))))
ui.explain(_("**How far each RoPE layer reaches.** A windowed RoPE layer never meets a "
             "distance longer than its window, so its angles stay those of training however "
             "long the input; its slow pairs, whose wavelength exceeds the window, barely turn "
             "and act almost as a constant. A layer with full attention (Gemma's global "
             "layers, SmolLM3's RoPE layers) sees the whole context. {models}.").format(
    models=_("; ").join(reach_text)))

# --- Llama 4's temperature -------------------------------------------------------------
scout = rc.PRESETS["Llama 4 Scout"]
floor_scale, attn_scale = scout.nope_temperature
ui.show(temperature_figure(scout.max_context, floor_scale, attn_scale),
        key="lw_temperature_plot")
end = float(compare.nope_query_scale([scout.max_context - 1], floor_scale, attn_scale)[0])
st.latex(_(r"q'_p = q_p\left(1 + {attn_scale}\,\ln\!\left(1 + \left\lfloor "
           r"\frac{{p + 1}}{{{floor_scale}}} \right\rfloor\right)\right)").format(
    attn_scale=f"{attn_scale:g}", floor_scale=int(floor_scale)))
ui.explain(_("**Llama 4's NoPE layers also sharpen with length.** Without positions, a query "
             "far into a long input spreads its attention over ever more keys. Llama 4 "
             "multiplies the query of its NoPE layers (only those) by the factor above "
             "(transformers' `Llama4TextAttention`, `attn_temperature_tuning`, `floor_scale` "
             "= {floor}, `attn_scale` = {scale}), so the logits grow like ln p: the factor is "
             "1 up to position {first}, then rises in steps of {floor} tokens to {end} at "
             "position {last}. The idea is Scalable-Softmax (Nakanishi 2025, "
             "arXiv:2501.19399).").format(
    floor=i18n.integer(int(floor_scale)), scale=f"{attn_scale:g}",
    first=i18n.integer(int(floor_scale) - 2), end=f"{end:.4f}",
    last=i18n.integer(scout.max_context - 1)))

# file names carry no visitor text: the models are listed inside the CSV
ui.download(layers, names, filename="layers_without_rope_summary.csv",
            label=_("summary table"), key="lw_summary_csv", part="summary")
ui.download(layers, names, filename="layers_without_rope_layers.csv",
            label=_("layer table"), key="lw_layers_csv", part="layers")
ui.download(temperature, scout.max_context, floor_scale, attn_scale,
            filename="layers_without_rope_llama4_temperature.csv",
            label=_("temperature table"), key="lw_temperature_csv")
