"""Real models: how published models configure RoPE, side by side on shared axes."""

import dataclasses
import html

import plotly.graph_objects as go
import streamlit as st

import rope_core as rc
import ui
from rope_core import compare
from rope_core.config import MAX_JSON_BYTES

PRESET_NAMES = list(rc.PRESETS)
DEFAULT_MODELS = ["Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B"]
AXES = list(compare.AXES)


@ui.table
def comparison(keys: tuple, axis: str) -> dict:
    """The cards, spectra and decay tables of the configs ``keys`` (compare.config_key)."""
    configs = [compare.config_from_key(k) for k in keys]
    return {"models": compare.models_table(configs),
            "spectra": compare.spectrum_table(configs),
            "decay": compare.decay_table(configs, axis)}


def pasted_config(text: str, upload) -> rc.RopeConfig | None:
    """The visitor's config.json (upload first, else the text box), or None.

    Untrusted: size-capped, parsed by RopeConfig.from_json, any problem shown as an
    escaped error while the rest of the page keeps working."""
    if upload is not None:
        if upload.size > MAX_JSON_BYTES:
            ui.error(f"The uploaded file is {upload.size:,} bytes; a config.json may be at "
                     f"most {MAX_JSON_BYTES:,} bytes. It was not added.")
            return None
        data, source = upload.getvalue(), "uploaded file"
    elif text.strip():
        data, source = text, "pasted config"
    else:
        return None
    try:
        cfg = rc.RopeConfig.from_json(data)
    except (ValueError, RecursionError) as err:
        ui.error(f"The {source} was not added: {err}")
        return None
    return dataclasses.replace(cfg, name=f"config.json: {ui.capped(cfg.name, 40)}")


def legend(name: str) -> str:
    """A model name for plotly, which renders a subset of HTML in trace names."""
    return html.escape(name, quote=False)


def model_colors(models) -> dict:
    """A colour per model, in the order of the cards."""
    return {name: ui.COLORS[n % len(ui.COLORS)] for n, name in enumerate(models["model"])}


def spectrum_lines(keys: tuple, axis: str, column: str, hover: str, title: str,
                   y: str) -> go.Figure:
    """One line per model of the spectra column ``column`` against the pair index,
    log y axis."""
    tables = comparison(keys, axis)
    colors = model_colors(tables["models"])
    fig = go.Figure()
    for name, block in tables["spectra"].groupby("model", sort=False):
        label = legend(name)
        fig.add_scatter(x=block["pair"], y=block[column], name=label, mode="lines+markers",
                        line=dict(color=colors[name]), marker=dict(size=4), legendgroup=label,
                        hovertemplate="i=%{x}<br>" + hover + "<extra>" + label + "</extra>")
    ui.style(fig, title=title, x="pair index i", y=y, height=400)
    fig.update_yaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def theta_figure(keys: tuple, axis: str) -> go.Figure:
    """θᵢ of each model at its maximum context."""
    return spectrum_lines(keys, axis, "theta [rad/token]", "θ=%{y:.3e} rad/token",
                          "θᵢ in use at the maximum context (log scale)", "θᵢ [rad/token]")


@ui.figure
def wavelength_figure(keys: tuple, axis: str) -> go.Figure:
    """Wavelengths of each model, its maximum context dotted."""
    fig = spectrum_lines(keys, axis, "wavelength [tokens]", "λ=%{y:,.1f} tokens",
                         "Wavelength 2π/θᵢ; dotted: each model's maximum context",
                         "wavelength [tokens]")
    models = comparison(keys, axis)["models"]
    colors = model_colors(models)
    for name, m in models.set_index("model").iterrows():
        fig.add_hline(y=m["max context [tokens]"], line=dict(color=colors[name], dash="dot"))
    return fig


@ui.figure
def ratio_figure(keys: tuple, axis: str) -> go.Figure:
    """Scaled θᵢ over the plain base^(−2i/d) of each model."""
    return spectrum_lines(keys, axis, "ratio theta/theta plain", "θ′/θ=%{y:.4f}",
                          "Scaled θᵢ / plain base^(−2i/d) (log scale)", "ratio θ′ᵢ/θᵢ")


def decay_lines(keys: tuple, axis: str, column: str, hover: str, title: str,
                y: str) -> go.Figure:
    """One line per model of the decay column ``column`` against the distance."""
    tables = comparison(keys, axis)
    colors = model_colors(tables["models"])
    fig = go.Figure()
    for name, block in tables["decay"].groupby("model", sort=False):
        label = legend(name)
        fig.add_scatter(x=block["distance [tokens]"], y=block[column], name=label,
                        mode="lines", line=dict(color=colors[name]),
                        hovertemplate="r=%{x:,} tokens<br>" + hover + "<extra>" + label
                                      + "</extra>")
    ui.style(fig, title=title, x="relative distance r [tokens]"
             + (" (log scale)" if axis == "log" else ""), y=y, height=400)
    if axis == "log":
        fig.update_xaxes(type="log", exponentformat="power")
    return fig


@ui.figure
def bound_figure(keys: tuple, axis: str) -> go.Figure:
    """RoFormer's decay bound of each model over its value at r = 0."""
    return decay_lines(keys, axis, "upper bound / bound(0)", "bound/bound(0)=%{y:.3f}",
                       "Long-term decay bound / its value at r = 0", "bound(r) / bound(0)")


@ui.figure
def score_figure(keys: tuple, axis: str) -> go.Figure:
    """The all-ones score of each model over its head dim."""
    return decay_lines(keys, axis, "score q=k=1 / head_dim", "score/head_dim=%{y:.3f}",
                       "Score of q = k = all ones / head dim (pass-through dims included)",
                       "qᵀR_r k / head_dim")


s = ui.settings()
st.title("Real models")
st.markdown(
    "How published models configure RoPE, from their `config.json`: how many coordinates of "
    "a head rotate, the base, the pair layout, and the context-extension method with its "
    "parameters. Everything is computed from those fields with the formulas of Hugging Face "
    "transformers; the sidebar settings do not apply here.")

c1, c2 = st.columns([2, 1])
names = ui.multiselect("Models (up to 3)", PRESET_NAMES, DEFAULT_MODELS, "rm_models",
                       max_selections=3, container=c1)
axis = ui.choice("Distance axis", AXES, "linear", "rm_axis", container=c2)
with st.expander("Add your own config.json"):
    st.caption(f"Paste or upload a model's config.json (at most {MAX_JSON_BYTES:,} bytes); "
               "it is added as one more model. An uploaded file is used before pasted text.")
    text = st.text_area("config.json text", key="rm_config_text", height=160,
                        max_chars=MAX_JSON_BYTES,
                        placeholder='{"model_type": "llama", "hidden_size": 4096, ...}')
    upload = st.file_uploader("config.json file", type=["json"], key="rm_config_file")
    mine = pasted_config(text, upload)
    if mine is not None:
        st.success(f"Added {ui.plain(mine.name)}.", icon=":material/check:")

configs = [rc.PRESETS[n] for n in names] + ([mine] if mine is not None else [])
if not configs:
    st.info("Choose at least one model, or add a config.json.", icon=":material/info:")
    st.stop()
keys = tuple(compare.config_key(c) for c in configs)
with ui.friendly_errors():
    tables = comparison(keys, axis)
models, spectra, decay = tables["models"], tables["spectra"], tables["decay"]

# --- cards -----------------------------------------------------------------------------
for col, (_, m), cfg in zip(st.columns(len(configs)), models.iterrows(), configs):
    with col.container(border=True):
        st.markdown(f"**{ui.plain(m['model'])}**")
        partial = "" if m["rotary_dim"] == m["head_dim"] else \
            f" ({m['rotary_dim'] / m['head_dim']:.0%} rotary; the rest pass through)"
        lines = [
            f"head dim {m['head_dim']}, rotary dim {m['rotary_dim']}{partial}",
            f"base {ui.fmt_base(m['base'])}" + ("" if cfg.local_base is None else
                                                f", local layers {ui.fmt_base(cfg.local_base)}"),
            f"layout: {m['layout']}",
            f"method: {rc.SCALING_LABELS[m['method']]}",
            f"parameters: {m['parameters']}",
            f"training context L: {m['original context [tokens]']:,} tokens",
            f"maximum context: {m['max context [tokens]']:,} tokens",
            f"longest wavelength: {m['longest wavelength [tokens]']:,.0f} tokens",
            f"attention factor: {m['attention factor']:.4f} (logits × "
            f"{m['logit multiplier']:.4f})",
        ]
        if cfg.mrope_section is not None:
            lines.append("M-RoPE pairs (time, height, width): "
                         + ", ".join(str(v) for v in cfg.mrope_section))
        st.markdown("  \n".join(ui.plain(line) for line in lines))

# --- spectra ---------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(theta_figure(keys, axis), key="rm_theta_plot")
with right:
    ui.show(wavelength_figure(keys, axis), key="rm_wave_plot")

sentences = []
for name, block in spectra.groupby("model", sort=False):
    m = models.set_index("model").loc[name]
    turns = int((block["wavelength [tokens]"] <= m["max context [tokens]"]).sum())
    counts = block["regime"].value_counts()
    scaled = ", ".join(f"{counts.get(r, 0)} {r}" for r in ("kept", "blended", "interpolated")
                       if counts.get(r, 0))
    sentences.append(f"{ui.plain(name)}: {turns} of {len(block)} pairs turn at least once "
                     f"within {m['max context [tokens]']:,} tokens; pairs {scaled}")
ui.explain("**What to notice.** A larger base (or a larger d) pushes the slow pairs' "
           "wavelengths far beyond the context, so their angle alone orders every position. "
           + "; ".join(sentences) + ".")

left, right = st.columns(2)
with left:
    ui.show(ratio_figure(keys, axis), key="rm_ratio_plot")
with right:
    ui.show(bound_figure(keys, axis), key="rm_bound_plot")

ratio_text = []
for name, block in spectra.groupby("model", sort=False):
    r = block["ratio theta/theta plain"]
    if (r - 1).abs().max() < 1e-12:
        ratio_text.append(f"{ui.plain(name)} runs its plain spectrum (ratio 1)")
    else:
        ratio_text.append(f"{ui.plain(name)} keeps pair 0 at ratio {r.iloc[0]:.3g} and slows "
                          f"its slowest pair to {r.iloc[-1]:.3g}")
ui.explain("**Left:** how each model's scaling changes θᵢ at its maximum context: "
           + "; ".join(ratio_text) + ". **Right:** RoFormer's bound, each curve divided by "
           "its value (d/2 + 1)/2 at r = 0 so that different rotary dims share one axis; it "
           "runs up to each model's maximum context.")

ui.show(score_figure(keys, axis), key="rm_score_plot")
score_text = []
for name, block in decay.groupby("model", sort=False):
    first, last = block.iloc[0], block.iloc[-1]
    score_text.append(f"{ui.plain(name)}: {first['score q=k=1 / head_dim']:.3f} at "
                      f"r = {first['distance [tokens]']:,.0f}, "
                      f"{last['score q=k=1 / head_dim']:.3f} at r = "
                      f"{last['distance [tokens]']:,.0f}, lowest "
                      f"{block['score q=k=1 / head_dim'].min():.3f}")
ui.explain("**Aligned vectors fade with distance, and partial rotary models fade less:** "
           "their pass-through coordinates add a constant that no rotation reduces, and an "
           "attention factor a > 1 multiplies the rotary part by a². " + "; ".join(score_text)
           + ".")
if axis == "linear" and int(models["max context [tokens]"].max()) >= compare.MAX_POINTS:
    st.caption(f"At most {compare.MAX_POINTS:,} distances per model, evenly spaced: the "
               "ripples of the fast pairs between samples are not drawn. Use the log axis "
               "to see short distances in detail.")

# file names carry no visitor text
ui.download(comparison, keys, axis,
            filename="real_models_cards.csv", label="model cards", key="rm_models_csv",
            part="models")
ui.download(comparison, keys, axis, filename="real_models_spectra.csv",
            label="spectra table", key="rm_spectra_csv", part="spectra")
ui.download(comparison, keys, axis, filename=f"real_models_decay_{axis}.csv",
            label="decay table", key="rm_decay_csv", part="decay")
