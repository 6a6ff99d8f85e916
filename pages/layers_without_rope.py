"""Layers without RoPE: hybrids that rotate in some layers and not in others."""

import math

import numpy as np
import pandas as pd
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
CODES = {0: (ui.COLORS[0], N_("RoPE, full attention")),
         1: (ui.COLORS[5], N_("RoPE, sliding window or chunk")),
         2: (ui.COLORS[4], N_("RoPE, local base, sliding window")),
         3: (ui.GREY, N_("NoPE (no rotation)"))}
TEMPERATURE_POINTS = 300  # positions on the Llama 4 temperature curve


def code(kind: str, spectrum: str, attention: str) -> int:
    if kind == "nope":
        return 3
    if spectrum == "local":
        return 2
    return 1 if attention in ("sliding", "chunked") else 0


@ui.table
def layers(names: tuple) -> dict:
    """Per layer (compare.layer_table) and one summary row per model.

    Summary: RoPE reach = the shortest reach of a RoPE layer (the window of the windowed
    ones, else the context); longest wavelength and pairs turning within reach are those
    of the RoPE layers with that reach (Gemma 3: its local layers, not its global ones);
    windowed / full-attention RoPE layers count the RoPE layers with and without a window.
    """
    configs = [rc.PRESETS[n] for n in names]
    table = compare.layer_table(configs)
    rows = []
    for cfg in configs:
        block = table[table["model"] == cfg.name]
        rope = block[block["kind"] == "rope"]
        windowed = int(rope["window [tokens]"].notna().sum())
        shortest = rope[rope["reach [tokens]"] == rope["reach [tokens]"].min()]
        rows.append({
            "model": cfg.name, "layers": len(block), "RoPE layers": len(rope),
            "NoPE layers": len(block) - len(rope),
            "windowed RoPE layers": windowed, "full-attention RoPE layers": len(rope) - windowed,
            "window [tokens]": cfg.window if cfg.window is not None else math.nan,
            "context [tokens]": cfg.max_context,
            "RoPE reach [tokens]": int(shortest["reach [tokens]"].iloc[0]),
            "NoPE reach [tokens]": cfg.max_context if len(rope) < len(block) else math.nan,
            "longest wavelength [tokens]": float(shortest["longest wavelength [tokens]"].max()),
            "pairs turning within reach": int(shortest["pairs turning within reach"].min()),
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




LOG_AXIS = dict(type="log", exponentformat="power")




def legend_squares() -> list[dict]:
    """A legend of the layer codes instead of a colour bar (fits 390 px)."""
    return [dict(type="scatter", x=[None], y=[None], mode="markers", name=_(label),
                 hoverinfo="skip", marker=dict(symbol="square", size=12, color=color))
            for color, label in CODES.values()]


@ui.figure
def pattern_figure(names: tuple) -> ui.Frozen:
    """Each model's layers as a row of cells, coloured by what the layer does."""
    table = layers(names)["layers"]
    depth = int(table["layer"].max()) + 1
    line = _("layer {layer}: {what}; reaches {reach} tokens")
    whats = {c: _(label) for c, (_color, label) in CODES.items()}
    reaches: dict = {}  # a few distinct reaches per model, written once each
    z, text = [], []
    for name in names:
        block = table[table["model"] == name]
        cells = [code(k, s, a) for k, s, a in zip(block["kind"].tolist(),
                                                  block["spectrum"].tolist(),
                                                  block["attention"].tolist())]
        hover = []
        for layer, c, reach in zip(block["layer"].tolist(), cells,
                                   block["reach [tokens]"].tolist()):
            if reach not in reaches:
                reaches[reach] = i18n.integer(int(reach))
            hover.append(line.format(layer=int(layer), what=whats[c], reach=reaches[reach]))
        z.append(cells + [None] * (depth - len(cells)))
        text.append(hover + [""] * (depth - len(cells)))
    scale = []
    for c, (color, _label) in CODES.items():
        scale += [[c / 4, color], [(c + 1) / 4, color]]
    heatmap = dict(type="heatmap", z=z, x=list(range(depth)), y=list(names), customdata=text,
                   zmin=-0.5, zmax=3.5, colorscale=scale, xgap=1, ygap=3, showscale=False,
                   hovertemplate="%{y}<br>%{customdata}<extra></extra>")
    return ui.kept_figure([heatmap] + legend_squares(), title=_("Which layers rotate"),
                       x=_("layer (0 = first)"), y="", height=170 + 45 * len(names),
                       yaxes=dict(autorange="reversed"))


@ui.figure
def reach_figure(names: tuple) -> ui.Frozen:
    """Per model: how far a RoPE layer sees, its slowest pair's wavelength, the context."""
    summary = layers(names)["summary"]
    bars = (("RoPE reach [tokens]", _("shortest RoPE reach (window or context)"),
             ui.COLORS[5]),
            ("longest wavelength [tokens]", _("slowest pair's wavelength in those layers"),
             ui.COLORS[3]),
            ("context [tokens]", _("configured context (NoPE layers see all of it)"),
             ui.COLORS[0]))
    traces = [dict(type="bar", y=summary["model"].tolist(), x=ui.typed(summary[column]),
                   name=label, orientation="h", marker=dict(color=color),
                   hovertemplate="%{y}: %{x:,.0f}<extra>" + label + "</extra>")
              for column, label, color in bars]
    return ui.kept_figure(traces,
                       title=_("How far RoPE layers reach, against the context (log scale)"),
                       x=_("tokens (log scale)"), y="", height=160 + 70 * len(names),
                       xaxes=LOG_AXIS, yaxes=dict(autorange="reversed"),
                       layout=dict(barmode="group"))


@ui.figure
def temperature_figure(context: int, floor_scale: float, attn_scale: float) -> ui.Frozen:
    """Llama 4's query scale of its NoPE layers against the position."""
    t = temperature(context, floor_scale, attn_scale)
    trace = dict(type="scatter", x=ui.typed(t["position"].to_numpy() + 1),
                 y=ui.typed(t["query scale"].to_numpy()), mode="lines",
                 line=dict(color=ui.COLORS[1], shape="hv"), name=_("query scale"),
                 hovertemplate=_("p={position}<br>scale={scale}").format(
                     position="%{x:,}", scale="%{y:.4f}") + "<extra></extra>")
    return ui.kept_figure([trace],
                       title=_("Llama 4: NoPE layers scale their queries with log position"),
                       x=_("position p + 1 [tokens] (log scale)"), y=_("query scale"),
                       height=380, xaxes=LOG_AXIS)


ui.settings()
st.title(_("Layers without RoPE"))
st.markdown(_(
    "Several open models of 2024–2026 rotate queries and keys in only some of their layers. "
    "Llama 4 (iRoPE), SmolLM3 and Command R7B leave every fourth layer without any "
    "positional encoding (NoPE); Gemma 2 and gpt-oss alternate sliding-window and global "
    "layers one to one, Gemma 3 has five sliding-window layers per global one and gives "
    "them their own base. Everything here is read "
    "from each model's `config.json` the way transformers {version} builds the model; the "
    "sidebar settings do not apply.").format(version=rc.TRANSFORMERS_VERSION))
st.markdown(_(
    "**Why hybrids.** A RoPE layer sees word order directly, but its scores depend on the "
    "distance, and at distances beyond its training the angles are new. A NoPE layer adds "
    "no positional signal of its own: its scores q·k do not depend on the distance, only "
    "on what the hidden states carry (order learnt through the causal mask and from the "
    "RoPE layers below), so it meets no angle it has not seen when the input grows and can "
    "attend to a token anywhere in the context, but it is weak at local order. What does "
    "grow is the number of keys a far query spreads its attention over (Llama 4's "
    "temperature, below, answers that). Giving the RoPE "
    "layers a window keeps their distances, and in exact arithmetic their angles, inside "
    "what training covered. Yang et al. 2025 "
    "(*Rope to Nope and Back Again: A New Hybrid Attention Strategy*, arXiv:2501.18795) "
    "find this division of labour, NoPE layers retrieving over long range and RoPE layers "
    "with a recency bias for local order, and propose RoPE in sliding-window layers with "
    "NoPE in full-attention ones. Meta's Llama 4 post (*The Llama 4 herd*, 2025) names "
    "interleaved attention layers without positional embeddings, with inference-time "
    "temperature scaling of attention, as how Llama 4 generalises beyond its training "
    "length (iRoPE: Scout trained at 256K, configured for 10M)."))

names = tuple(ui.multiselect(_("Models (up to 4)"), HYBRIDS, DEFAULT_MODELS, "lw_models",
                             max_selections=MAX_MODELS))
if not names:
    st.info(_("Choose at least one model."), icon=":material/info:")
    st.stop()
with ui.friendly_errors():
    tables = layers(names)
summary = tables["summary"]

# --- pattern ---------------------------------------------------------------------------
ui.show(pattern_figure(names), key="lw_pattern_plot",
        alt=_("Strip chart: one row per model, one cell per layer, coloured by what the layer does:"
              " RoPE with full attention, RoPE with a sliding window or chunk, RoPE with a local "
              "base, or NoPE (no rotation)."), table=_("layer table"))
pattern_text = []
for _i, row in summary.iterrows():
    pattern_text.append(_("{model}: {rope} of {n} layers rotate, {nope} do not").format(
        model=row["model"], rope=int(row["RoPE layers"]), n=int(row["layers"]),
        nope=int(row["NoPE layers"])))
ui.explain(_("**What to notice.** Grey cells are NoPE layers: attention like the others, "
             "but q and k are not rotated. {models}.").format(
    models=_("; ").join(pattern_text)))

# --- reach -----------------------------------------------------------------------------
ui.show(reach_figure(names), key="lw_reach_plot",
        alt=_("Bar chart, log scale, one group per model: the shortest reach of its RoPE layers "
              "(window or context), the wavelength of the slowest pair in those layers, and the "
              "configured context."), table=_("summary table"))
reach_text = []
for _i, row in summary.iterrows():
    numbers = dict(model=row["model"], reach=i18n.integer(int(row["RoPE reach [tokens]"])),
                   turning=int(row["pairs turning within reach"]), pairs=int(row["pairs"]),
                   context=i18n.integer(int(row["context [tokens]"])),
                   windowed=int(row["windowed RoPE layers"]),
                   full=int(row["full-attention RoPE layers"]))
    if not numbers["windowed"]:
        reach_text.append(_("{model}: its RoPE layers see the whole context of {context} "
                            "tokens, where {turning} of {pairs} pairs turn at least "
                            "once").format(**numbers))
    elif numbers["full"]:
        reach_text.append(_("{model}: its {windowed} windowed RoPE layers see at most {reach} "
                            "tokens, where {turning} of {pairs} pairs turn at least once; its "
                            "{full} global RoPE layers see the whole context of {context} "
                            "tokens").format(**numbers))
    else:
        reach_text.append(_("{model}: every RoPE layer sees at most {reach} tokens, where "
                            "{turning} of {pairs} pairs turn at least once; only the NoPE "
                            "layers see the whole context of {context} tokens").format(
            **numbers))
# transformers and Meta's code form each angle m·θᵢ in float32 from the absolute position:
# its error at m = 10⁷ for Scout's head dim and base (before its llama3 scaling)
scout = rc.PRESETS["Llama 4 Scout"]
far = 10**7
offset, rounding = (v.numpy() for v in rc.float32_angle_parts(far, scout.rotary_dim,
                                                               scout.base))
ui.explain(_("**How far each RoPE layer reaches.** A windowed RoPE layer never meets a "
             "distance longer than its window (a sliding window of w tokens reaches w − 1 "
             "back; an attention chunk back to the chunk's start), so in exact arithmetic "
             "its angles stay those of training however long the input; its slow pairs, "
             "whose wavelength exceeds the window, turn less than once within it, and the "
             "slowest barely move. A RoPE layer with full attention (the global layers of "
             "Gemma and gpt-oss, SmolLM3's RoPE layers) sees the whole context. The bars show "
             "each model's shortest-reaching RoPE layers. {models}.").format(
    models=_("; ").join(reach_text)),
           _("In float32, though, as transformers and Meta's reference code form them, each "
             "angle is the product m·θᵢ of a token's absolute position, not of the distance, "
             "and the product is rounded: at m = {m} (d = {dim}, base {base}, Scout's head "
             "dim and base before its scaling) the rounding reaches {rounding} rad and "
             "differs from one position to the next, so a query and a key in one window no "
             "longer differ by exactly the angle of their distance. Far into a long input, "
             "then, even a windowed layer meets angle differences that training, at shorter "
             "positions, never produced; Llama 4 Scout is configured for {context} tokens. "
             "The rest of the float32 error, up to {offset} rad, is a fixed change of "
             "frequency (float32's θᵢ in place of the exact one), the same for q and k, so it "
             "leaves scores depending on the distance alone (Precision page).").format(
    m=i18n.integer(far), dim=scout.rotary_dim, base=ui.fmt_base(scout.base),
    offset=f"{float(np.abs(offset).max()):.2g}",
    rounding=f"{float(np.abs(rounding).max()):.2g}",
    context=i18n.integer(scout.max_context)))

# --- Llama 4's temperature -------------------------------------------------------------
floor_scale, attn_scale = scout.nope_temperature
ui.show(temperature_figure(scout.max_context, floor_scale, attn_scale),
        key="lw_temperature_plot",
        alt=_("Line chart, log scale: the factor by which Llama 4's NoPE layers scale their "
              "queries, against the position p + 1; it stays at 1 up to a floor and then grows with"
              " the log of the position."), table=_("temperature table"))
end = float(compare.nope_query_scale([scout.max_context - 1], floor_scale, attn_scale)[0])
st.latex(_(r"q'_p = q_p\left(1 + {attn_scale}\,\ln\!\left(1 + \left\lfloor "
           r"\frac{{p + 1}}{{{floor_scale}}} \right\rfloor\right)\right)").format(
    attn_scale=f"{attn_scale:g}", floor_scale=int(floor_scale)))
ui.explain(_("**Llama 4's NoPE layers also sharpen with length.** Without positions, a query "
             "far into a long input spreads its attention over ever more keys. Llama 4 "
             "multiplies the query of its NoPE layers (only those; keys and the RoPE layers "
             "are untouched) by the factor above (transformers' `Llama4TextAttention` and "
             "Meta's reference code, `attn_temperature_tuning`, `floor_scale` = {floor}, "
             "`attn_scale` = {scale}; p is the token's index in the sequence): the factor is "
             "1 up to position {first}, so short inputs are unchanged, then rises in steps of "
             "{floor} tokens to {end} at position {last}; far beyond {floor} it grows like "
             "ln p, and so do the logits. Both codes cite Scalable-Softmax (Nakanishi 2025, "
             "*Scalable-Softmax Is Superior for Attention*, arXiv:2501.19399), which "
             "multiplies the logits by s ln n for n keys. Scout's NoPE layers also skip the "
             "weight-free RMS norm of q and k (`use_qk_norm`) that its RoPE layers apply after "
             "rotating.").format(
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
