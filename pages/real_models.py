"""Real models: how published models configure RoPE, side by side on shared axes."""

import html
from collections import Counter
from numbers import Real

import numpy as np
import streamlit as st

import rope_core as rc
import ui
from rope_core import compare
from rope_core.config import MAX_JSON_BYTES
from rope_core.presets import NOTES, SOURCES
from ui import i18n
from ui.configs import config_input, shown_name
from ui.i18n import N_, _, ngettext

PRESET_NAMES = list(rc.PRESETS)
DEFAULT_MODELS = ["Llama 2 7B", "Llama 3.1 8B", "Qwen2.5 7B"]
AXES = list(compare.AXES)
DEFAULT_AXIS = AXES[0]  # "linear", a link value
REGIME_COUNTS = {"kept": N_("{n} kept"), "blended": N_("{n} blended"),
                 "interpolated": N_("{n} interpolated")}
# the layer stack's colours: code, label
STACK = {0: (ui.COLORS[0], N_("RoPE, full attention")),
         1: (ui.COLORS[5], N_("RoPE, sliding window or chunk")),
         2: (ui.COLORS[4], N_("RoPE, local base, sliding window")),
         3: (ui.GREY, N_("NoPE (no rotation)"))}
ATTENTION_NAMES = {"full": N_("full attention"), "sliding": N_("sliding window"),
                   "chunked": N_("chunked attention")}


DECAY_POINTS = 600  # distances per model and curve: smooth on either axis, a light figure


@ui.table
def comparison(keys: tuple) -> dict:
    """The cards, spectra and layer tables of the configs ``keys`` (compare.config_key),
    the same on either distance axis."""
    configs = [compare.config_from_key(k) for k in keys]
    return {"models": compare.models_table(configs),
            "spectra": compare.spectrum_table(configs),
            "layers": compare.layer_table(configs)}


@ui.table
def decay_table(keys: tuple, axis: str) -> dict:
    """The decay table of the configs ``keys`` on ``axis``, DECAY_POINTS distances each."""
    configs = [compare.config_from_key(k) for k in keys]
    return {"decay": compare.decay_table(configs, axis, DECAY_POINTS)}






LOG_AXIS = dict(type="log", exponentformat="power")




def legend(name: str) -> str:
    """A model name for plotly, which renders a subset of HTML in trace names."""
    return html.escape(shown_name(name), quote=False)


def model_colors(models) -> dict:
    """A colour per model, in the order of the cards."""
    return {name: ui.COLORS[n % len(ui.COLORS)] for n, name in enumerate(models["model"])}


def distance_title(axis: str) -> str:
    return _("relative distance r [tokens] (log scale)") if axis == "log" else \
        _("relative distance r [tokens]")


def spectrum_lines(keys: tuple, column: str, hover: str, title: str, y: str,
                   shapes: tuple = ()) -> ui.Frozen:
    """One line per model of the spectra column ``column`` against the pair index,
    log y axis."""
    tables = comparison(keys)
    colors = model_colors(tables["models"])
    spectra = tables["spectra"]
    pairs, values = spectra["pair"].to_numpy(), spectra[column].to_numpy()
    traces = []
    for name, rows in compare.label_groups(spectra["model"]):
        label = legend(name)
        traces.append(dict(type="scatter", x=pairs[rows],
                           y=values[rows], name=label, mode="lines+markers",
                           line=dict(color=colors[name]), marker=dict(size=4),
                           legendgroup=label, hovertemplate="i=%{x}<br>" + hover + "<extra>" +
                           label + "</extra>"))
    return ui.kept_figure(traces, title=title, x=_("pair index i"), y=y, height=400,
                       yaxes=LOG_AXIS, shapes=shapes)


@ui.figure
def theta_figure(keys: tuple) -> ui.Frozen:
    """θᵢ of each model at its maximum context."""
    return spectrum_lines(keys, "theta [rad/token]",
                          _("θ={theta} rad/token").format(theta="%{y:.3e}"),
                          _("θᵢ in use at the maximum context (log scale)"),
                          _("θᵢ [rad/token]"))


@ui.figure
def wavelength_figure(keys: tuple) -> ui.Frozen:
    """Wavelengths of each model, its maximum context dotted."""
    models = comparison(keys)["models"]
    colors = model_colors(models)
    return spectrum_lines(keys, "wavelength [tokens]",
                          _("λ={value} tokens").format(value="%{y:,.1f}"),
                          _("Wavelength 2π/θᵢ; dotted: each model's maximum context"),
                          _("wavelength [tokens]"),
                          shapes=tuple(ui.hline(float(n), colors[name]) for name, n in zip(
                              models["model"], models["max context [tokens]"])))


@ui.figure
def ratio_figure(keys: tuple) -> ui.Frozen:
    """Scaled θᵢ over the plain base^(−2i/d) of each model."""
    return spectrum_lines(keys, "ratio theta/theta plain", "θ′/θ=%{y:.4f}",
                          _("Scaled θᵢ / plain base^(−2i/d) (log scale)"), _("ratio θ′ᵢ/θᵢ"))


def decay_lines(keys: tuple, axis: str, column: str, hover: str, title: str,
                y: str) -> ui.Frozen:
    """One line per model of the decay column ``column`` against the distance."""
    colors = model_colors(comparison(keys)["models"])
    traces = []
    distance = _("r={distance} tokens").format(distance="%{x:,}")
    decay = decay_table(keys, axis)["decay"]
    distances, values = decay["distance [tokens]"].to_numpy(), decay[column].to_numpy()
    for name, rows in compare.label_groups(decay["model"]):
        label = legend(name)
        traces.append(dict(type="scatter", x=distances[rows],
                           y=values[rows], name=label, mode="lines",
                           line=dict(color=colors[name]),
                           hovertemplate=distance + "<br>" + hover + "<extra>" + label +
                           "</extra>"))
    return ui.kept_figure(traces, title=title, x=distance_title(axis), y=y, height=400,
                       xaxes=LOG_AXIS if axis == "log" else None)


@ui.figure
def bound_figure(keys: tuple, axis: str) -> ui.Frozen:
    """RoFormer's decay bound of each model over its value at r = 0."""
    return decay_lines(keys, axis, "upper bound / bound(0)",
                       _("bound/bound(0)={value}").format(value="%{y:.3f}"),
                       _("Long-term decay bound / its value at r = 0"),
                       _("bound(r) / bound(0)"))


@ui.figure
def score_figure(keys: tuple, axis: str) -> ui.Frozen:
    """The all-ones score of each model over its head dim."""
    return decay_lines(keys, axis, "score q=k=1 / head_dim",
                       _("score/head_dim={value}").format(value="%{y:.3f}"),
                       _("Score of q = k = all ones / head dim (pass-through dims included)"),
                       "qᵀR_r k / head_dim")


def stack_codes(block) -> np.ndarray:
    """The layer stack's colour code of each layer_table row: 3 NoPE, 2 local base,
    1 sliding window or chunk, 0 full attention."""
    kind, spectrum, attention = (np.asarray(block[c]) for c in ("kind", "spectrum", "attention"))
    windowed = np.isin(attention, ("sliding", "chunked"))
    return np.where(kind == "nope", 3, np.where(spectrum == "local", 2,
                                                np.where(windowed, 1, 0)))


@ui.figure
def stack_figure(keys: tuple) -> ui.Frozen:
    """Each model's layers as one row of cells: which rotate, at which base, how far."""
    layers = comparison(keys)["layers"]
    columns = {c: layers[c].to_numpy() for c in ("layer", "kind", "base", "attention",
                                                 "reach [tokens]", "spectrum")}
    groups = compare.label_groups(layers["model"])
    models = [name for name, _rows in groups]
    depth = int(columns["layer"].max()) + 1
    nope, rope = _("NoPE: no rotation; {attention}"), _("RoPE, base {base}; {attention}")
    line = _("layer {layer}: {what}; reaches {reach} tokens")
    spans = {k: _(v) for k, v in ATTENTION_NAMES.items()}
    whats: dict = {}  # (kind, base, attention) -> words: a few per model, not one per layer
    reaches: dict = {}
    z, text = [], []
    for _name, rows in groups:
        block = {c: values[rows] for c, values in columns.items()}
        codes = stack_codes(block).tolist()
        hover = []
        for layer, kind, base, span, reach in zip(
                block["layer"].tolist(), block["kind"].tolist(), block["base"].tolist(),
                block["attention"].tolist(), block["reach [tokens]"].tolist()):
            key = (kind, base, span)
            if key not in whats:
                whats[key] = (nope.format(attention=spans[span]) if kind == "nope" else
                              rope.format(base=ui.fmt_base(base), attention=spans[span]))
            if reach not in reaches:
                reaches[reach] = i18n.integer(int(reach))
            hover.append(line.format(layer=int(layer), what=whats[key], reach=reaches[reach]))
        pad = depth - len(codes)
        z.append(codes + [None] * pad)
        text.append(hover + [""] * pad)
    scale = []
    for code, (color, _label) in STACK.items():
        scale += [[code / 4, color], [(code + 1) / 4, color]]
    traces = [dict(type="heatmap", z=z, x=list(range(depth)), y=[legend(m) for m in models],
                   customdata=text, zmin=-0.5, zmax=3.5, colorscale=scale, xgap=1, ygap=3,
                   showscale=False, hovertemplate="%{y}<br>%{customdata}<extra></extra>")]
    for color, label in STACK.values():  # a legend instead of a colour bar: fits 390 px
        traces.append(dict(type="scatter", x=[None], y=[None], mode="markers", name=_(label),
                           hoverinfo="skip", marker=dict(symbol="square", size=12,
                                                         color=color)))
    return ui.kept_figure(
        traces, title=_("Layer stack: which layers rotate, with which base, how far they see"),
        x=_("layer (0 = first)"), y="", height=170 + 45 * len(models),
        yaxes=dict(autorange="reversed"))


def parameters(cfg: rc.RopeConfig) -> str:
    """The method's parameters as one line of Markdown (names as code); a per-pair
    factor list is summarised (rope_core.compare.describe_params, for people)."""
    parts = []
    for name, value in cfg.params:
        if isinstance(value, tuple):
            shown = _("{n} values from {low} to {high}").format(
                n=len(value), low=f"{min(value):.4g}", high=f"{max(value):.4g}")
        elif isinstance(value, bool):
            shown = f"`{str(value).lower()}`"
        elif isinstance(value, Real):
            shown = f"{value:,.6g}"
        else:
            shown = ui.plain(value)
        parts.append(_("`{name}`: {value}").format(name=name, value=shown))
    return _("; ").join(parts) or _("none")


def card_lines(m, cfg: rc.RopeConfig) -> list[str]:
    """The lines of a model's card (app-written Markdown; names shown as code)."""
    dims = dict(head_dim=m["head_dim"], rotary_dim=m["rotary_dim"])
    if m["rotary_dim"] == m["head_dim"]:
        dim_line = _("head dim {head_dim}, rotary dim {rotary_dim}").format(**dims)
    else:
        dim_line = _("head dim {head_dim}, rotary dim {rotary_dim} ({share} rotary; the rest "
                     "pass through)").format(share=f"{m['rotary_dim'] / m['head_dim']:.0%}",
                                             **dims)
    base_line = (_("base {base}").format(base=ui.fmt_base(m["base"])) if cfg.local_base is None
                 else _("base {base}, local layers {local_base}").format(
                     base=ui.fmt_base(m["base"]), local_base=ui.fmt_base(cfg.local_base)))
    lines = [
        dim_line, base_line,
        _("layout: {layout}").format(layout=f"`{m['layout']}`"),
        _("method: {method}").format(method=_(rc.SCALING_LABELS[m["method"]])),
        _("parameters: {parameters}").format(parameters=parameters(cfg)),
        (_("training context: not given by `config.json`; L is taken as its configured "
           "context") if cfg.training_context is None else
         _("training context L: {n} tokens").format(n=i18n.integer(cfg.training_context))
         if cfg.training_context == cfg.original_context else
         _("training context: {n} tokens; its scaling's L (original_max_position_embeddings): "
           "{length} tokens").format(n=i18n.integer(cfg.training_context),
                                     length=i18n.integer(cfg.original_context))),
        _("maximum (configured) context: {n} tokens").format(
            n=i18n.integer(int(m["max context [tokens]"]))),
        _("longest wavelength: {n} tokens").format(
            n=i18n.integer(round(m["longest wavelength [tokens]"]))),
        _("attention factor: {factor} (logits × {multiplier})").format(
            factor=f"{m['attention factor']:.4f}", multiplier=f"{m['logit multiplier']:.4f}"),
    ]
    if cfg.softmax_scale != 1.0:
        lines.append(_("softmax scale × {scale}: the attention multiplies 1/√d by `mscale`² = "
                       "(0.1 · `mscale_all_dim` · ln s + 1)², outside the rotary embedding "
                       "(transformers' DeepSeek-V3 attention, `yarn_get_mscale`); the logits "
                       "are multiplied by {scale} whatever the position").format(
            scale=f"{cfg.softmax_scale:.4f}"))
    if cfg.mrope_section is not None:
        if cfg.mrope_interleaved:
            lines.append(_("M-RoPE pairs (time, height, width): {sections}").format(
                sections=", ".join(str(v) for v in cfg.mrope_section)))
            lines.append(_("M-RoPE sections interleaved across the pairs (time, height, width "
                           "in turn) rather than in three blocks"))
        else:  # three blocks, fastest pairs first (transformers' apply_multimodal_rotary_pos_emb)
            t_, h_, w_ = cfg.mrope_section
            lines.append(_("M-RoPE sections {sections}: pairs 0–{t_last} (the fastest) carry "
                           "time, {h_first}–{h_last} height, {w_first}–{w_last} width").format(
                sections=", ".join(str(v) for v in cfg.mrope_section), t_last=t_ - 1,
                h_first=t_, h_last=t_ + h_ - 1, w_first=t_ + h_, w_last=t_ + h_ + w_ - 1))
    if cfg.layers is not None:
        nope = cfg.layer_kinds.count("nope")
        window = "" if cfg.window is None else _("; window {n} tokens on the sliding or "
                                                 "chunked layers").format(
            n=i18n.integer(cfg.window))
        lines.append(_("{n} layers: {rope} with RoPE, {nope} without (NoPE){window}").format(
            n=cfg.layers, rope=cfg.layers - nope, nope=nope, window=window))
    if cfg.nope_temperature is not None:
        floor, scale = cfg.nope_temperature
        lines.append(_("NoPE layers scale their queries by 1 + {scale} · ln(1 + ⌊(p + 1) / "
                       "{floor}⌋) at position p").format(
            scale=f"{scale:g}", floor=i18n.integer(int(floor))))
    if m["model"] in NOTES:
        lines.append(_(NOTES[m["model"]]))
    if m["model"] in SOURCES:
        lines.append(_("source: {source}").format(source=f"`{SOURCES[m['model']]}`"))
    return lines


s = ui.settings()
st.title(_("Real models"))
st.markdown(_(
    "How published models configure RoPE, from their `config.json`: how many coordinates of "
    "a head rotate, the base, the pair layout, and the context-extension method with its "
    "parameters. Everything is computed from those fields with the formulas of Hugging Face "
    "transformers {version}; the sidebar settings do not apply here.").format(
    version=rc.TRANSFORMERS_VERSION))

c1, c2 = st.columns([2, 1])
names = ui.multiselect(_("Models (up to 3)"), PRESET_NAMES, DEFAULT_MODELS, "rm_models",
                       max_selections=3, container=c1)
axis = ui.choice(_("Distance axis"), AXES, DEFAULT_AXIS, "rm_axis", container=c2,
                 help=_("`linear`: distances evenly spaced up to each model's maximum "
                        "context; `log`: a logarithmic axis that shows short distances in "
                        "detail."))
mine = config_input(
    "rm", _("Add your own `config.json`"),
    _("Paste or upload a model's `config.json` (at most {most} bytes); it is added as one more "
      "model. An uploaded file is used before pasted text.").format(
        most=i18n.integer(MAX_JSON_BYTES)),
    _("Added {name}."))

configs = [rc.PRESETS[n] for n in names] + ([mine] if mine is not None else [])
if not configs:
    st.info(_("Choose at least one model, or add a `config.json`."), icon=":material/info:")
    st.stop()
keys = tuple(compare.config_key(c) for c in configs)
with ui.friendly_errors():
    tables = comparison(keys)
    decay = decay_table(keys, axis)["decay"]
models, spectra = tables["models"], tables["spectra"]

# --- cards -----------------------------------------------------------------------------
for col, (_row_index, m), cfg in zip(st.columns(len(configs)), models.iterrows(), configs):
    with col.container(border=True):
        st.markdown(f"**{ui.plain(shown_name(m['model']))}**")
        st.markdown("  \n".join(card_lines(m, cfg)))

# --- layer stack -----------------------------------------------------------------------
layers = tables["layers"]
if len(layers):
    ui.show(stack_figure(keys), key="rm_stack_plot",
            alt=_("Strip chart: one row per model, one cell per layer, coloured by what the layer "
                  "does: RoPE with full attention, RoPE with a sliding window or chunk, RoPE with a"
                  " local base, or NoPE (no rotation)."), table=_("layer table"))
    stack_text = []
    kinds, reach_of = layers["kind"].to_numpy(), layers["reach [tokens]"].to_numpy()
    for name, rows in compare.label_groups(layers["model"]):
        rope = rows[kinds[rows] == "rope"]
        reaches = ", ".join(i18n.integer(int(v)) for v in sorted(set(reach_of[rope].tolist())))
        stack_text.append(_("{model}: {rope} of {n} layers rotate, reaching {reaches} "
                            "tokens").format(model=ui.plain(shown_name(name)), rope=len(rope),
                                             n=len(rows), reaches=reaches or "0"))
    ui.explain(_("**Layers.** Each row is one model, each cell one layer. Grey layers have no "
                 "positional encoding at all (NoPE): they see word order only through the "
                 "causal mask and what the layers below pass up. In Yang et al.'s experiments "
                 "(2025) such layers do the long-range retrieval, an empirical finding, not a "
                 "property of NoPE. {models}.")
               .format(models=_("; ").join(stack_text)))
missing = [shown_name(c.name) for c in configs if c.layers is None]
if missing:
    st.caption(_("No layer count in the `config.json` of {models}: no layer stack for "
                 "them.").format(models=ui.plain(_(", ").join(missing))))

# --- spectra ---------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(theta_figure(keys), key="rm_theta_plot",
            alt=_("Line chart, log scale: the frequency θᵢ each model uses at its maximum context "
                  "against the pair index i, one line per model."), table=_("spectra table"))
with right:
    ui.show(wavelength_figure(keys), key="rm_wave_plot",
            alt=_("Line chart, log scale: each model's wavelengths 2π/θᵢ against the pair index i, "
                  "one line per model, with each model's maximum context dotted."),
            table=_("spectra table"))

sentences = []
max_context = dict(zip(models["model"].tolist(), models["max context [tokens]"].tolist()))
wavelengths, regimes = spectra["wavelength [tokens]"].to_numpy(), spectra["regime"].to_numpy()
spectrum_groups = compare.label_groups(spectra["model"])
for name, rows in spectrum_groups:
    turns = int((wavelengths[rows] <= max_context[name]).sum())
    counts = Counter(regimes[rows].tolist())
    scaled = _(", ").join(_(REGIME_COUNTS[r]).format(n=counts.get(r, 0))
                          for r in REGIME_COUNTS if counts.get(r, 0))
    sentences.append(ngettext(
        "{model}: {turns} of {n} pair turns at least once within {context} tokens; "
        "pairs {regimes}",
        "{model}: {turns} of {n} pairs turn at least once within {context} tokens; "
        "pairs {regimes}", len(rows)).format(
        model=ui.plain(shown_name(name)), turns=turns, n=len(rows),
        context=i18n.integer(int(max_context[name])), regimes=scaled))
ui.explain(_("**What to notice.** A larger base pushes the slow pairs' wavelengths far "
             "beyond the context (a larger d alone does not: the share of pairs longer than "
             "the context depends on the base, not on d), so in exact arithmetic their angle "
             "alone identifies every position."), ui.slow_pairs_in_low_precision(),
           _("{models}.").format(models=_("; ").join(sentences)))

left, right = st.columns(2)
with left:
    ui.show(ratio_figure(keys), key="rm_ratio_plot",
            alt=_("Line chart, log scale: each model's scaled θᵢ divided by the plain base^(−2i/d) "
                  "against the pair index i; 1 where its scaling keeps a pair."),
            table=_("spectra table"))
with right:
    ui.show(bound_figure(keys, axis), key="rm_bound_plot",
            alt=_("Line chart: each model's long-term decay bound divided by its value at r = 0, "
                  "against the relative distance r, one line per model."), table=_("decay table"))

ratio_text = []
ratios = spectra["ratio theta/theta plain"].to_numpy()
for name, rows in spectrum_groups:
    r = ratios[rows]
    if np.abs(r - 1).max() < 1e-12:
        ratio_text.append(_("{model} runs its plain spectrum (ratio 1)").format(
            model=ui.plain(shown_name(name))))
    else:
        ratio_text.append(_("{model} keeps pair 0 at ratio {first} and slows its slowest pair "
                            "to {last}").format(model=ui.plain(shown_name(name)),
                                                first=f"{r[0]:.3g}",
                                                last=f"{r[-1]:.3g}"))
ui.explain(_("**Left:** how each model's scaling changes θᵢ at its maximum context: {models}. "
             "**Right:** RoFormer's bound, each curve divided by its value (d/2 + 1)/2 at "
             "r = 0 so that different rotary dims share one axis; it runs up to each model's "
             "maximum context.").format(models=_("; ").join(ratio_text)))

ui.show(score_figure(keys, axis), key="rm_score_plot",
        alt=_("Line chart: the score of q = k = all ones divided by the head dim against the "
              "relative distance r, one line per model."), table=_("decay table"))
score_text = []
distances = decay["distance [tokens]"].to_numpy()
scores = decay["score q=k=1 / head_dim"].to_numpy()
for name, rows in compare.label_groups(decay["model"]):
    score, r = scores[rows], distances[rows]
    score_text.append(_("{model}: {first} at r = {r_first}, {last} at r = {r_last}, lowest "
                        "{lowest}").format(
        model=ui.plain(shown_name(name)), first=f"{score[0]:.3f}",
        r_first=i18n.integer(round(r[0])), last=f"{score[-1]:.3f}",
        r_last=i18n.integer(round(r[-1])), lowest=f"{score.min():.3f}"))
ui.explain(_("**Aligned vectors fade with distance, and partial rotary models fade less:** "
             "their pass-through coordinates add a constant that no rotation reduces, and an "
             "attention factor a > 1 multiplies the rotary part by a². {models}.").format(
    models=_("; ").join(score_text)))
if axis == "linear" and int(models["max context [tokens]"].max()) >= DECAY_POINTS:
    st.caption(_("At most {n} distances per model, evenly spaced: the ripples of the fast "
                 "pairs between samples are not drawn. Use the log axis to see short distances "
                 "in detail.").format(n=i18n.integer(DECAY_POINTS)))

# file names carry no visitor text
ui.download(comparison, keys,
            filename="real_models_cards.csv", label=_("model cards"), key="rm_models_csv",
            part="models")
ui.download(comparison, keys, filename="real_models_spectra.csv",
            label=_("spectra table"), key="rm_spectra_csv", part="spectra")
ui.download(decay_table, keys, axis, filename=f"real_models_decay_{axis}.csv",
            label=_("decay table"), key="rm_decay_csv", part="decay")
if len(layers):
    ui.download(comparison, keys, filename="real_models_layers.csv",
                label=_("layer table"), key="rm_layers_csv", part="layers")
