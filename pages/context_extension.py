"""Context extension: one model, every scaling method on the same axes."""

import math
import re

import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import ui
from rope_core import compare

CUSTOM = "sidebar settings"
MODEL_OPTIONS = [CUSTOM] + list(rc.PRESETS)
CONTEXT_OPTIONS = [2**e for e in range(8, 19)]  # 256 ... 262,144 tokens
FACTOR_OPTIONS = [2, 4, 8, 16, 32]  # s * L stays within 10^7 tokens
AXES = list(compare.AXES)
REGIME_CODES = {"kept": 0, "blended": 1, "interpolated": 2}
REGIME_COLORS = ["#2ca02c", "#ff7f0e", "#d62728"]


@ui.table
def extension(key: tuple, factor: float, axis: str) -> dict:
    """Every table of the comparison (rope_core.compare.extension_tables)."""
    return compare.extension_tables(compare.config_from_key(key), factor, axis)


def method_styles(cfg_key: tuple, factor: float, axis: str) -> tuple[dict, dict, dict]:
    """The tables, and a colour and a dash per method: solid for no scaling and the
    model's own method, dashed for the others."""
    tables = extension(cfg_key, factor, axis)
    own = compare.config_from_key(cfg_key).method
    methods = list(tables["attention"]["method"])
    colors = {m: ui.COLORS[n % len(ui.COLORS)] for n, m in enumerate(methods)}
    dashes = {m: "solid" if m in ("none", own) else "dash" for m in methods}
    return tables, colors, dashes


def spectrum_lines(cfg_key: tuple, factor: float, axis: str, column: str,
                   hover: str) -> go.Figure:
    """One line per method of the spectra column ``column`` against the pair index."""
    tables, colors, dashes = method_styles(cfg_key, factor, axis)
    fig = go.Figure()
    for m, block in tables["spectra"].groupby("method", sort=False):
        label = rc.SCALING_LABELS[m]
        fig.add_scatter(x=block["pair"], y=block[column], name=label,
                        mode="lines+markers", line=dict(color=colors[m], dash=dashes[m]),
                        marker=dict(size=4), legendgroup=m,
                        hovertemplate="i=%{x}<br>" + hover + "<extra>" + label + "</extra>")
    fig.update_yaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def ratio_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """θ′ᵢ/θᵢ per pair under each method."""
    fig = spectrum_lines(cfg_key, factor, axis, "ratio theta/theta plain", "θ′/θ=%{y:.4f}")
    ui.style(fig, title="θ′ᵢ / θᵢ per pair (log scale)", x="pair index i",
             y="ratio θ′ᵢ/θᵢ", height=420)
    return fig


@ui.figure
def wavelength_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """Wavelengths under each method, L and s·L dotted."""
    L = compare.config_from_key(cfg_key).original_context
    fig = spectrum_lines(cfg_key, factor, axis, "wavelength [tokens]", "λ=%{y:,.1f} tokens")
    ui.style(fig, title="Wavelength 2π/θ′ᵢ against L and s·L (log scale)",
             x="pair index i", y="wavelength [tokens]", height=420)
    for tokens, text, color in ((L, "L", "black"), (int(round(factor * L)), "s·L", "gray")):
        fig.add_hline(y=tokens, line=dict(color=color, dash="dot"))
        fig.add_annotation(x=0, xref="paper", xanchor="left", y=math.log10(tokens),
                           yanchor="bottom", text=f"{text} = {tokens:,} tokens",
                           showarrow=False, font=dict(size=13, color=color))
    return fig


def regimes(tables: dict) -> tuple[list, list]:
    """The scaled methods, and each one's regime per pair (kept, blended, interpolated)."""
    spectra = tables["spectra"]
    order = [m for m in tables["attention"]["method"] if m != "none"]
    return order, [list(spectra.loc[spectra["method"] == m, "regime"]) for m in order]


@ui.figure
def regime_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """Which pairs each method keeps, blends or interpolates."""
    tables = extension(cfg_key, factor, axis)
    order, regime_rows = regimes(tables)
    pairs = int((tables["spectra"]["method"] == "none").sum())
    fig = go.Figure(go.Heatmap(
        z=[[REGIME_CODES[r] for r in row] for row in regime_rows],
        x=list(range(pairs)), y=[rc.SCALING_LABELS[m] for m in order],
        customdata=regime_rows, zmin=-0.5, zmax=2.5, xgap=1, ygap=2,
        colorscale=[[0, REGIME_COLORS[0]], [1 / 3, REGIME_COLORS[0]],
                    [1 / 3, REGIME_COLORS[1]], [2 / 3, REGIME_COLORS[1]],
                    [2 / 3, REGIME_COLORS[2]], [1, REGIME_COLORS[2]]],
        colorbar=dict(tickvals=[0, 1, 2], ticktext=list(REGIME_CODES), title="pair is"),
        hovertemplate="i=%{x}<br>%{y}: %{customdata}<extra></extra>"))
    ui.style(fig, title="Which pairs each method keeps, blends or interpolates (divides by s)",
             x="pair index i", y="", height=120 + 45 * len(order))
    return fig


@ui.figure
def attention_factor_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """The logit multiplier a² of each method."""
    tables, colors, _ = method_styles(cfg_key, factor, axis)
    attention = tables["attention"]
    methods = list(attention["method"])
    fig = go.Figure(go.Bar(x=[rc.SCALING_LABELS[m] for m in methods],
                           y=attention["logit multiplier"],
                           marker_color=[colors[m] for m in methods],
                           text=[f"a = {a:.4f}" for a in attention["attention factor"]],
                           hovertemplate="%{x}<br>a²=%{y:.4f}<extra></extra>"))
    ui.style(fig, title="Logit multiplier a² (a multiplies cos and sin of q and of k)",
             x="method", y="a² (logit multiplier)", height=380)
    return fig


@ui.figure
def softmax_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """A fixed row of logits through softmax, plain and with each attention factor."""
    softmax = extension(cfg_key, factor, axis)["softmax"]
    fig = go.Figure()
    for n, (label, block) in enumerate(softmax.groupby("method", sort=False)):
        if n == 0:
            fig.add_bar(x=block["key"], y=block["weight"], name="plain softmax (a = 1)",
                        marker_color="#999")
        if float(block["attention factor"].iloc[0]) != 1.0:
            fig.add_bar(x=block["key"], y=block["weight with factor"],
                        name=f"{label}: a = {block['attention factor'].iloc[0]:.4f}",
                        marker_color=ui.COLORS[(n + 1) % len(ui.COLORS)])
    logits = list(softmax.groupby("method", sort=False).get_group(
        softmax["method"].iloc[0])["logit"])
    ui.style(fig, title="Softmax of the logits " + ", ".join(f"{v:g}" for v in logits),
             x="key j", y="attention weight", height=380)
    return fig


@ui.figure
def dynamic_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """Dynamic NTK's effective base against the current length, L dotted."""
    tables, colors, _ = method_styles(cfg_key, factor, axis)
    dyn = tables["dynamic"]
    fig = go.Figure()
    fig.add_scatter(x=dyn["sequence length [tokens]"], y=dyn["effective base"], mode="lines",
                    name="effective base", line=dict(color=colors.get("dynamic", "#1f77b4")),
                    hovertemplate="n=%{x:,}<br>base′=%{y:.4g}<extra></extra>")
    fig.add_vline(x=compare.config_from_key(cfg_key).original_context,
                  line=dict(color="black", dash="dot"))
    ui.style(fig, title="Dynamic NTK: effective base against the current length n",
             x="current sequence length n [tokens]" + (" (log scale)" if axis == "log" else ""),
             y="effective base", height=380)
    fig.update_yaxes(type="log", exponentformat="power")
    if axis == "log":
        fig.update_xaxes(type="log", exponentformat="power")
    return fig


def decay_lines(cfg_key: tuple, factor: float, axis: str, column: str, hover: str, title: str,
                y: str) -> go.Figure:
    """One line per method of the decay column ``column`` against the distance, L dotted."""
    tables, colors, dashes = method_styles(cfg_key, factor, axis)
    fig = go.Figure()
    for m, block in tables["decay"].groupby("method", sort=False):
        label = rc.SCALING_LABELS[m]
        fig.add_scatter(x=block["distance [tokens]"], y=block[column], name=label,
                        mode="lines", line=dict(color=colors[m], dash=dashes[m]),
                        legendgroup=m,
                        hovertemplate="r=%{x:,}<br>" + hover + "<extra>" + label + "</extra>")
    ui.style(fig, title=title, x="relative distance r [tokens]"
             + (" (log scale)" if axis == "log" else ""), y=y, height=400)
    fig.add_vline(x=compare.config_from_key(cfg_key).original_context,
                  line=dict(color="black", dash="dot"))
    if axis == "log":
        fig.update_xaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def bound_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """RoFormer's decay bound under each method, up to s·L."""
    extended = int(round(factor * compare.config_from_key(cfg_key).original_context))
    return decay_lines(cfg_key, factor, axis, "upper bound", "bound=%{y:.3f}",
                       f"Long-term decay bound, up to s·L = {extended:,}",
                       "relative upper bound")


@ui.figure
def score_figure(cfg_key: tuple, factor: float, axis: str) -> go.Figure:
    """The all-ones score under each method (attention factor included)."""
    return decay_lines(cfg_key, factor, axis, "score q=k=1", "score=%{y:.3f}",
                       "Score of q = k = all ones (× a², pass-through dims included)", "qᵀR_r k")


s = ui.settings()
st.title("Context extension")
st.markdown(
    "A model trained on L tokens meets angles mθᵢ it never saw once the input is longer. "
    "Context-extension methods change θᵢ (and sometimes the attention temperature) so that "
    "s·L tokens look familiar. Below, one base model under every method, on the same axes; "
    "each method is evaluated at the extended length s·L.")

c1, c2, c3 = st.columns([2, 1, 1])
model = ui.choice("Base model", MODEL_OPTIONS, "Llama 3.1 8B", "ce_model", container=c1,
                  help="A preset, or the sidebar's base, head dim and layout with L and s "
                       "chosen here.")
own_factor = 1.0 if model == CUSTOM else compare.scaling_factor(rc.PRESETS[model])
context = ui.select_slider("Original context L [tokens]", CONTEXT_OPTIONS, 4096, "ce_L",
                           container=c2, fmt=str, disabled=model != CUSTOM)
factor = ui.select_slider("Factor s (new context = s·L)", FACTOR_OPTIONS, 8, "ce_s",
                          container=c2, fmt=str, disabled=own_factor > 1)
axis = ui.choice("Distance axis", AXES, "linear", "ce_axis", container=c3)
if model == CUSTOM:
    base_cfg = rc.RopeConfig(name=CUSTOM, head_dim=s.dim, rotary_dim=s.dim, base=s.base,
                             layout=s.layout, original_context=context, max_context=context)
    c3.caption("Base, head dim and layout from the sidebar.")
else:
    base_cfg = rc.PRESETS[model]
    c3.caption(f"{ui.plain(model)}: L = {base_cfg.original_context:,} tokens from its "
               "config.json" + (f", s = {own_factor:g} from its own scaling" if own_factor > 1
                                else "; s chosen here") + ".")
s_used = own_factor if own_factor > 1 else float(factor)
L = base_cfg.original_context

cfg_key = compare.config_key(base_cfg)
with ui.friendly_errors():
    tables = extension(cfg_key, s_used, axis)
spectra, decay, attention = tables["spectra"], tables["decay"], tables["attention"]
methods = list(attention["method"])
extended = int(round(s_used * L))

# --- what each method does ------------------------------------------------------------
with st.container(border=True):
    st.markdown("**The methods** (evaluated at s·L = " f"{extended:,} tokens)")
    for m in methods:
        spec = rc.SCALINGS[m]
        own = " (this model's own setting)" if m == base_cfg.method and m != "none" else ""
        st.markdown(f"- **{spec.label}**{own}: {spec.description} *{spec.citation}.*")
    if "longrope" not in methods:
        st.caption("LongRoPE's per-pair factors come from a search done for each model, so "
                   "it is shown only for a model that publishes them (Phi-3.5 mini).")

# --- spectra ---------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(ratio_figure(cfg_key, s_used, axis), key="ce_ratio_plot")
with right:
    ui.show(wavelength_figure(cfg_key, s_used, axis), key="ce_wave_plot")

plain = spectra[spectra["method"] == "none"]
beyond = int((plain["wavelength [tokens]"] > L).sum())
slowest = {m: float(b["ratio theta/theta plain"].iloc[-1])
           for m, b in spectra.groupby("method", sort=False)}
ui.explain(
    f"**What to notice.** Unscaled, {beyond} of {len(plain)} pairs have wavelengths longer "
    f"than L = {L:,}: within training they never completed a turn, so at s·L they would "
    "reach angles never seen. Every method slows those pairs; they differ in what they do "
    "to the fast pairs, which carry local word order. Ratio of the slowest pair: "
    + ", ".join(f"{m} {v:.3g}" for m, v in slowest.items()) + f" (1/s = {1 / s_used:.3g}).")

# --- regimes ---------------------------------------------------------------------------
order, regime_rows = regimes(tables)
ui.show(regime_figure(cfg_key, s_used, axis), key="ce_regime_plot")
run_text = []
for m, row in zip(order, regime_rows):
    runs = compare.regime_runs(row)
    run_text.append(f"{m}: " + ", ".join(
        f"{label} {a}" + (f"–{b}" if b > a else "") for label, a, b in runs))
if "yarn" in methods:
    p = rc.resolve_params("yarn", base_cfg.rotary_dim,
                          dict(base_cfg.params_dict if base_cfg.method == "yarn" else
                               {"factor": s_used, "original_max_position_embeddings": L}))
    low, high = rc.yarn_ramp_bounds(base_cfg.rotary_dim, base_cfg.base, L, p["beta_fast"],
                                    p["beta_slow"], p["truncate"])
    run_text.append(f"YaRN's ramp runs from pair {low:g} (turns {p['beta_fast']:g} times "
                    f"within L) to pair {high:g} (turns {p['beta_slow']:g} time)")
ui.explain("Pairs, by method: " + "; ".join(run_text) + ".")

# --- attention factor ------------------------------------------------------------------
softmax = tables["softmax"]
left, right = st.columns(2)
with left:
    ui.show(attention_factor_figure(cfg_key, s_used, axis), key="ce_attention_plot")
with right:
    ui.show(softmax_figure(cfg_key, s_used, axis), key="ce_softmax_plot")
sharp = softmax[softmax["attention factor"] != 1.0]
if len(sharp):
    top = sharp.groupby("method", sort=False).first()
    ui.explain(
        "**Attention factor.** Slowing θᵢ blurs nearby positions and, over a longer "
        "context, spreads attention over more keys; a factor a > 1 sharpens it back. On "
        f"the logits above, the largest weight goes from {top['weight'].iloc[0]:.3f} to "
        + ", ".join(f"{w:.3f} ({m})" for m, w in top["weight with factor"].items()) + ".")
else:
    ui.explain("**Attention factor.** None of these methods changes the attention "
               "temperature for this model (a = 1), so the softmax is unchanged.")

# --- dynamic NTK -----------------------------------------------------------------------
dyn = tables["dynamic"]
ui.show(dynamic_figure(cfg_key, s_used, axis), key="ce_dynamic_plot")
end = dyn.iloc[-1]
ui.explain(
    f"**Dynamic NTK** runs the trained base {ui.fmt_base(base_cfg.base)} up to n = L = {L:,} "
    f"(dotted), then raises it with every token: at n = {end['sequence length [tokens]']:,.0f} "
    f"it is {end['effective base']:.4g}, and the slowest pair's wavelength has grown to "
    f"{end['longest wavelength [tokens]']:,.0f} tokens. Short inputs run exactly as trained; "
    "the price is that cached keys were rotated with an older base.")

# --- decay -----------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(bound_figure(cfg_key, s_used, axis), key="ce_bound_plot")
with right:
    ui.show(score_figure(cfg_key, s_used, axis), key="ce_score_plot")
far = decay[decay["distance [tokens]"] >= extended / 2]
at_end = far.groupby("method", sort=False)["upper bound"].mean()
ui.explain(
    "**Decay.** Slowing the pairs keeps phases aligned for longer, so the bound decays more "
    "slowly: averaged over distances from s·L/2 to s·L it is "
    + ", ".join(f"{v:.2f} ({m})" for m, v in at_end.items())
    + ". The dotted line marks L: interpolating methods stretch the curve of the first L "
    "tokens over s·L.")
if axis == "linear" and extended >= compare.MAX_POINTS:
    st.caption(f"At most {compare.MAX_POINTS:,} distances per method, evenly spaced: ripples "
               "between samples are not drawn. Use the log axis for short distances.")

name = (f"custom_dim{s.dim}_base{ui.slug(s.base)}" if model == CUSTOM
        else re.sub(r"[^A-Za-z0-9]+", "-", model).strip("-"))  # a preset's name: app text
tag = f"{name}_L{L}_s{ui.slug(s_used)}"
for part, label in (("spectra", "spectra table"), ("decay", "decay table"),
                    ("attention", "attention factors"), ("softmax", "softmax example"),
                    ("dynamic", "dynamic NTK table")):
    ui.download(extension, cfg_key, s_used, axis,
                filename=f"context_extension_{part}_{tag}_{axis}.csv", label=label,
                key=f"ce_{part}_csv", part=part)
