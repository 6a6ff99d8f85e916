"""The Real models page's figures (pages/real_models.py) and the cached tables and text
that feed them: each model's card, its layer stack, its spectra, its scaling's ratios and
its decay, and the sentences written from them, for presets and a visitor's own
`config.json` (names shown escaped)."""

import html
from collections import Counter
from numbers import Real

import numpy as np

import rope_core as rc
import ui
from rope_core.limits import compare
from rope_core.models.presets import NOTES, SOURCES
from ui import i18n
from ui.configs import shown_name
from ui.i18n import N_, _, ngettext
from ui.layers import MIXER_NAMES, group_label, layer_codes, layer_strip, span_words

# what a scaling does to how many pairs ("its scaling keeps 29, blends 6, interpolates 29")
REGIME_COUNTS = {"kept": N_("keeps {n}"), "blended": N_("blends {n}"),
                 "interpolated": N_("interpolates {n}")}
DECAY_POINTS = 600  # distances per model and curve: smooth on either axis, a light figure


@ui.table
def comparison(keys: tuple) -> dict:
    """The cards, spectra and layer tables of the configs ``keys`` (compare.config_key),
    the same on either distance axis."""
    configs = [compare.config_from_key(k) for k in keys]
    return {"models": compare.models_table(configs),
            "spectra": compare.spectrum_table(configs),
            "layers": compare.layer_table(configs),
            "groups": compare.group_table(configs)}


@ui.table
def decay_table(keys: tuple, axis: str) -> dict:
    """The decay table of the configs ``keys`` on ``axis``, DECAY_POINTS distances each."""
    configs = [compare.config_from_key(k) for k in keys]
    return {"decay": compare.decay_table(configs, axis, DECAY_POINTS)}


def legend(name: str) -> str:
    """A model name for plotly, which renders a subset of HTML in trace names."""
    return html.escape(shown_name(name), quote=False)


def model_colors(models) -> dict:
    """A colour per model, in the order of the cards."""
    return {name: ui.COLORS[n % len(ui.COLORS)] for n, name in enumerate(models["model"])}


def distance_title(axis: str) -> str:
    return _("relative distance r [tokens] (log scale)") if axis == "log" else \
        _("relative distance r [tokens]")


def series_styles(table) -> dict:
    """{series: (legend label, colour, dash)}: a model's colour, one dash per layer group."""
    colors = model_colors(comparison_models(table))
    out, seen = {}, {}
    first = ~table["series"].duplicated()  # each series' first row, in order
    for series, model, group in zip(table["series"][first], table["model"][first],
                                    table["group"][first]):
        n = seen[model] = seen.get(model, -1) + 1
        label = legend(model) if series == model else \
            f"{legend(model)} · {html.escape(group_label(group), quote=False)}"
        out[series] = (label, colors[model], ("solid", "dot", "dash", "dashdot")[n % 4])
    return out


def comparison_models(table):
    """The models of a per-group table, in order (a stand-in for the cards' column)."""
    return {"model": table["model"][~table["model"].duplicated()].tolist()}


def spectrum_lines(keys: tuple, column: str, hover: str, title: str, y: str,
                   shapes: tuple = (), yaxes: dict | None = None) -> ui.Frozen:
    """One line per model and rotating layer group of the spectra column ``column``
    against the pair index, log y axis (``yaxes``, else ui.LOG_AXIS)."""
    spectra = comparison(keys)["spectra"]
    styles = series_styles(spectra)
    pairs, values = spectra["pair"].to_numpy(), spectra[column].to_numpy()
    traces = []
    for name, rows in compare.label_groups(spectra["series"]):
        label, color, dash = styles[name]
        traces.append(dict(type="scatter", x=pairs[rows],
                           y=values[rows], name=label, mode="lines+markers",
                           line=dict(color=color, dash=dash), marker=dict(size=4),
                           legendgroup=label, hovertemplate="i=%{x}<br>" + hover + "<extra>" +
                           label + "</extra>"))
    return ui.kept_figure(traces, title=title, x=_("pair index i"), y=y, height=400,
                       yaxes=yaxes or ui.LOG_AXIS, shapes=shapes)


@ui.figure
def theta_figure(keys: tuple) -> ui.Frozen:
    """θᵢ of each model at its maximum context."""
    return spectrum_lines(keys, "theta [rad/token]",
                          _("θ={theta} rad/token").format(theta="%{y:.3e}"),
                          _("θᵢ in use at the maximum context (log scale)"),
                          _("θᵢ [rad/token]"))


@ui.figure
def wavelength_figure(keys: tuple) -> ui.Frozen:
    """Wavelengths of each model and layer group, each group's reach dotted."""
    spectra = comparison(keys)["spectra"]
    styles = series_styles(spectra)
    reaches = dict(zip(spectra["series"], spectra["reach [tokens]"]))
    return spectrum_lines(keys, "wavelength [tokens]",
                          _("λ={value} tokens").format(value="%{y:,.1f}"),
                          _("Wavelength 2π/θᵢ; dotted: how far each layer group sees"),
                          _("wavelength [tokens]"),
                          shapes=tuple(ui.hline(float(n), styles[name][1])
                                       for name, n in reaches.items()))


@ui.figure
def ratio_figure(keys: tuple) -> ui.Frozen:
    """Scaled θᵢ over the plain base^(−2i/d) of each model; a range under a decade gets
    its ticks as full numbers (ui.log_axis)."""
    ratios = comparison(keys)["spectra"]["ratio theta/theta plain"].to_numpy()
    return spectrum_lines(keys, "ratio theta/theta plain", "θ′/θ=%{y:.4f}",
                          _("Scaled θᵢ / plain base^(−2i/d) (log scale)"), _("ratio θ′ᵢ/θᵢ"),
                          yaxes=ui.log_axis(ratios))


def decay_lines(keys: tuple, axis: str, column: str, hover: str, title: str,
                y: str) -> ui.Frozen:
    """One line per model and rotating layer group of the decay column ``column`` against
    the distance, up to the group's reach."""
    traces = []
    distance = _("r={distance} tokens").format(distance="%{x:,}")
    decay = decay_table(keys, axis)["decay"]
    styles = series_styles(decay)
    distances, values = decay["distance [tokens]"].to_numpy(), decay[column].to_numpy()
    for name, rows in compare.label_groups(decay["series"]):
        label, color, dash = styles[name]
        traces.append(dict(type="scatter", x=distances[rows],
                           y=values[rows], name=label, mode="lines",
                           line=dict(color=color, dash=dash),
                           hovertemplate=distance + "<br>" + hover + "<extra>" + label +
                           "</extra>"))
    return ui.kept_figure(traces, title=title, x=distance_title(axis), y=y, height=400,
                       xaxes=ui.LOG_AXIS if axis == "log" else None)


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
    return decay_lines(keys, axis, "score q=k=1 / head dim",
                       _("score/head_dim={value}").format(value="%{y:.3f}"),
                       _("Score of q = k = all ones / head dim (pass-through dims included)"),
                       "qᵀR_r k / head_dim")


def layer_words(kind: str, base: float, attention: str, window, compress=None) -> str:
    """What one layer does, for a hover: "RoPE, base 10,000; sliding window of 1,024"."""
    if kind not in ("rope", "nope"):
        return _(MIXER_NAMES.get(kind, "linear_attention"))
    span = span_words(attention, window, compress)
    if kind == "nope":
        return _("NoPE: no rotation; {attention}").format(attention=span)
    return _("RoPE, base {base}; {attention}").format(base=ui.fmt_base(base), attention=span)


@ui.figure
def stack_figure(keys: tuple) -> ui.Frozen:
    """Each model's layers as one row of cells: which rotate, at which base, how far."""
    layers = comparison(keys)["layers"]
    columns = {c: layers[c].to_numpy() for c in ("layer", "kind", "base", "attention",
                                                 "reach [tokens]", "window [tokens]",
                                                 "compressed every [tokens]")}
    groups = compare.label_groups(layers["model"])
    models = [name for name, _rows in groups]
    depth = int(columns["layer"].max()) + 1
    line = _("layer {layer}: {what}; reaches {reach} tokens")
    whats: dict = {}  # (kind, base, attention, window) -> words: a few per model
    reaches: dict = {}
    z, text = [], []
    for _name, rows in groups:
        block = {c: values[rows] for c, values in columns.items()}
        codes = layer_codes(block["kind"], block["attention"]).tolist()
        hover = []
        for layer, kind, base, span, window, every, reach in zip(
                block["layer"].tolist(), block["kind"].tolist(), block["base"].tolist(),
                block["attention"].tolist(), block["window [tokens]"].tolist(),
                block["compressed every [tokens]"].tolist(), block["reach [tokens]"].tolist()):
            key = (kind, base, span, window, every)
            if key not in whats:
                whats[key] = layer_words(kind, base, span, window, every)
            if reach not in reaches:
                reaches[reach] = i18n.integer(int(reach))
            hover.append(line.format(layer=int(layer), what=whats[key], reach=reaches[reach]))
        pad = depth - len(codes)
        z.append(codes + [None] * pad)
        text.append(hover + [""] * pad)
    return layer_strip([legend(m) for m in models], z, text,
                       _("Layer stack: which layers rotate, how far they see"))


def parameters(cfg: rc.RopeConfig) -> str:
    """The method's parameters as one line of Markdown (names as code); a per-pair
    factor list is summarised (rope_core.limits.compare.describe_params, for people)."""
    parts = []
    for name, value in cfg.params:
        if isinstance(value, tuple):
            shown = _("{n} values from {low} to {high}").format(
                n=len(value), low=f"{min(value):.4g}", high=f"{max(value):.4g}")
        elif isinstance(value, bool):
            shown = f"`{str(value).lower()}`"
        elif isinstance(value, Real) and float(value).is_integer():
            shown = i18n.integer(int(value))  # 1,048,576 rather than 1.04858e+06
        elif isinstance(value, Real):
            shown = f"{value:,.6g}"
        else:
            shown = ui.plain(value)
        parts.append(_("`{name}`: {value}").format(name=name, value=shown))
    return _("; ").join(parts) or _("none")


def context_line(cfg: rc.RopeConfig) -> str:
    """What L is for this model: where its scaling starts, else its context."""
    names = dict(cfg.params)
    if "original_max_position_embeddings" in names and cfg.method != "dynamic":
        return _("L, where its scaling starts (`original_max_position_embeddings`): {n} "
                 "tokens").format(n=i18n.integer(cfg.original_context))
    if cfg.training_context is not None and cfg.training_context == cfg.original_context:
        return _("L: {n} tokens, the context its source says it was trained at").format(
            n=i18n.integer(cfg.original_context))
    return _("L: its configured context, {n} tokens (its `config.json` names no "
             "other)").format(n=i18n.integer(cfg.original_context))


def group_lines(groups) -> list[str]:
    """One line per layer group (rope_core.limits.compare.group_table rows): which layers, what
    they do, how far a query sees."""
    lines = []
    for row in groups.to_dict("records"):
        layers = ngettext("layer {layers}", "layers {layers}", row["layers"]).format(
            layers=row["layer list"])
        reach = i18n.integer(int(row["reach [tokens]"]))
        span = span_words(row["attention"], row["window [tokens]"],
                          row["compressed every [tokens]"])
        if row["kind"] == "rope":
            what = _("RoPE, {span}, base {base}, {method}, {rotary} of {head} dims "
                     "rotated").format(span=span, base=ui.fmt_base(row["base"]),
                                       method=_(rc.SCALING_LABELS[row["method"]]),
                                       rotary=row["rotary dims"], head=row["head dim"])
            lines.append(_("{layers}: {what}; a query sees {reach} tokens, within which "
                           "{turning} of {pairs} pairs turn at least once").format(
                layers=layers, what=what, reach=reach, pairs=row["pairs"],
                turning=row["pairs turning within reach"]))
        elif row["kind"] == "nope":
            lines.append(_("{layers}: attention without rotation (NoPE), {span}; a query "
                           "sees {reach} tokens").format(layers=layers, span=span, reach=reach))
        else:
            lines.append(_("{layers}: {mixer}, no rotation").format(
                layers=layers, mixer=_(MIXER_NAMES.get(row["kind"], "linear_attention"))))
    return lines


def layer_counts(rope: int, nope: int, other: int) -> str:
    """"12 rotate, 36 mix tokens without attention": the kinds a model has, none left at 0."""
    parts = [_("{n} rotate").format(n=rope) if rope else _("none rotates")]
    if nope:
        parts.append(_("{n} attend without rotating (NoPE)").format(n=nope))
    if other:
        parts.append(_("{n} mix tokens without attention").format(n=other))
    return _(", ").join(parts)


def card_lines(m, cfg: rc.RopeConfig, groups) -> list[str]:
    """The lines of a model's card (app-written Markdown; names shown as code)."""
    dims = dict(head_dim=m["head dim"], rotary_dim=m["rotary dims"])
    if m["rotary dims"] == m["head dim"]:
        dim_line = _("head dim {head_dim}, rotary dim {rotary_dim}").format(**dims)
    else:
        dim_line = _("head dim {head_dim}, rotary dim {rotary_dim} ({share} rotary; the rest "
                     "pass through)").format(share=f"{m['rotary dims'] / m['head dim']:.0%}",
                                             **dims)
    unused = cfg.layers is not None and not int(m["RoPE layers"])
    lines = [
        (_("no layer rotates; the RoPE fields of its `config.json`, unused: {dims}") if unused
         else _("main spectrum (its full-attention or compressed RoPE layers, else its "
                "RoPE layers): {dims}")).format(dims=dim_line),
        _("base {base}").format(base=ui.fmt_base(m["base"])),
        _("layout: {layout}").format(layout=f"`{m['layout']}`"),
        _("method: {method}").format(method=_(rc.SCALING_LABELS[m["method"]])),
        _("parameters: {parameters}").format(parameters=parameters(cfg)),
        context_line(cfg),
    ]
    if cfg.training_context is not None:
        lines.append(_("training context: {n} tokens (its source, below)").format(
            n=i18n.integer(cfg.training_context)))
    lines += [
        _("maximum (configured) context: {n} tokens").format(
            n=i18n.integer(int(m["max context [tokens]"]))),
        _("longest wavelength: {n} tokens").format(
            n=i18n.integer(round(m["longest wavelength [tokens]"]))),
        _("attention factor: {factor} (logits × {multiplier})").format(
            factor=f"{m['attention factor']:.4f}", multiplier=f"{m['logit multiplier']:.4f}"),
    ]
    theta_dim = cfg.theta_dim or cfg.rotary_dim
    if theta_dim != cfg.rotary_dim:  # Gemma 4's proportional RoPE
        lines.append(_("proportional RoPE: θᵢ = base^(−2i/{theta_dim}), the spectrum of the whole "
                       "head dim {theta_dim}, of which only the fastest {pairs} pairs rotate "
                       "(transformers' `proportional` rope type); a partial rotary model "
                       "would spread its {pairs} pairs over base^(−2i/{rotary})").format(
            theta_dim=theta_dim, pairs=cfg.rotary_dim // 2, rotary=cfg.rotary_dim))
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
        lines.append(_("{n} layers: {kinds}").format(n=cfg.layers, kinds=layer_counts(
            int(m["RoPE layers"]), int(m["NoPE layers"]), int(m["other layers"]))))
        lines += ["· " + line for line in group_lines(groups)]
    scales = {g.spec.query_scale: g for g in cfg.groups() if g.spec.query_scale}
    for (rule, length, beta), g in scales.items():
        formula = _(rc.models.config.QUERY_SCALES[rule]).format(
            beta=f"{beta:g}", length=i18n.integer(int(length)))
        lines.append(_("{kind} layers scale their queries by {formula} at position p, "
                       "outside the rotation").format(
            kind=_("NoPE") if g.spec.kind == "nope" else _("RoPE"), formula=formula))
    if m["model"] in NOTES:
        lines.append(_(NOTES[m["model"]]))
    if m["model"] in SOURCES:
        # citations stay as written (file paths, card titles, quoted values): English
        lines.append(_("source (cited as written, in English): {source}").format(
            source=f"`{SOURCES[m['model']]}`"))
    return lines


@ui.prose
def cards(keys: tuple) -> tuple[str, ...]:
    """Each model's card, one Markdown text per config of ``keys`` in their order,
    written once per set of models and language (not row by row on every run)."""
    tables = comparison(keys)
    models, groups = tables["models"], tables["groups"]
    return tuple("  \n".join(card_lines(m, compare.config_from_key(key),
                                         groups[groups["model"] == m["model"]]))
                 for (_row_index, m), key in zip(models.iterrows(), keys))


def series_text(styles: dict, name: str) -> str:
    """A model's layer group as the sentences name it (escaped); ``styles``: series_styles."""
    return ui.plain(html.unescape(styles[name][0]).replace(" · ", ": "))


def none_rotates() -> str:
    return _("None of the chosen models rotates in any layer: no spectrum to draw.")


@ui.prose
def written(keys: tuple) -> dict:
    """The sentences the page writes from the tables of the models ``keys``, once per set
    of models and language: the cards' titles (``titles``), the layer stack's
    (``stack``), the spectra's (``spectra``), the ratios' (``ratios``) and the layer groups
    whose window ends their curves (``windowed``); and the longest maximum context among
    the models (``longest``)."""
    tables = comparison(keys)
    models, spectra, layers = tables["models"], tables["spectra"], tables["layers"]
    styles = series_styles(spectra)
    stack_text = []
    if len(layers):
        kinds, reach_of = layers["kind"].to_numpy(), layers["reach [tokens]"].to_numpy()
        for name, rows in compare.label_groups(layers["model"]):
            rope = rows[kinds[rows] == "rope"]
            nope = int((kinds[rows] == "nope").sum())
            reaches = _(" or ").join(i18n.integer(int(v))
                                     for v in sorted(set(reach_of[rope].tolist())))
            counts = layer_counts(len(rope), nope, len(rows) - len(rope) - nope)
            if len(rope):
                stack_text.append(_("{model}, {n} layers: {counts}; a query of a rotating layer "
                                    "sees {reaches} tokens.").format(
                    model=ui.plain(shown_name(name)), n=len(rows), counts=counts,
                    reaches=reaches))
            else:
                stack_text.append(_("{model}, {n} layers: {counts}.").format(
                    model=ui.plain(shown_name(name)), n=len(rows), counts=counts))
    sentences = []
    wavelengths, regimes = spectra["wavelength [tokens]"].to_numpy(), spectra["regime"].to_numpy()
    reach_of = spectra["reach [tokens]"].to_numpy()
    spectrum_groups = compare.label_groups(spectra["series"])
    for name, rows in spectrum_groups:
        reach = int(reach_of[rows[0]])
        turns = int((wavelengths[rows] <= reach).sum())
        counts = Counter(regimes[rows].tolist())
        if set(counts) == {"kept"}:
            scaled = _("no pair is scaled")
        else:
            scaled = _("its scaling {actions}").format(actions=_(", ").join(
                _(REGIME_COUNTS[r]).format(n=counts[r]) for r in REGIME_COUNTS if counts.get(r)))
        sentences.append(ngettext(
            "{model}: {turns} of {n} pair turns at least once within the {context} tokens "
            "these layers see; {regimes}.",
            "{model}: {turns} of {n} pairs turn at least once within the {context} tokens "
            "these layers see; {regimes}.", len(rows)).format(
            model=series_text(styles, name), turns=turns, n=len(rows), context=i18n.integer(reach),
            regimes=scaled))
    ratio_text = []
    ratios = spectra["ratio theta/theta plain"].to_numpy()
    for name, rows in spectrum_groups:
        r = ratios[rows]
        if np.abs(r - 1).max() < 1e-12:
            ratio_text.append(_("{model} runs its plain spectrum (ratio 1).").format(
                model=series_text(styles, name)))
        else:
            ratio_text.append(_("{model} keeps pair 0 at ratio {first} and slows its slowest pair "
                                "to {last}.").format(model=series_text(styles, name),
                                                     first=f"{r[0]:.3g}",
                                                     last=f"{r[-1]:.3g}"))
    windowed = [series_text(styles, name) for name, rows in spectrum_groups
                if int(reach_of[rows[0]]) < int(dict(zip(models["model"], models[
                    "max context [tokens]"]))[spectra["model"].iloc[rows[0]]])]
    return {"titles": tuple(f"**{ui.plain(shown_name(name))}**" for name in models["model"]),
            "stack": tuple(stack_text), "spectra": tuple(sentences),
            "ratios": tuple(ratio_text), "windowed": tuple(windowed),
            "longest": int(models["max context [tokens]"].max())}


@ui.prose
def score_sentences(keys: tuple, axis: str) -> tuple[str, ...]:
    """Each decay curve's first, last and lowest score of q = k = all ones (the text under
    the score chart), once per setting and language."""
    styles = series_styles(comparison(keys)["spectra"])
    decay = decay_table(keys, axis)["decay"]
    score_text = []
    distances = decay["distance [tokens]"].to_numpy()
    scores = decay["score q=k=1 / head dim"].to_numpy()
    for name, rows in compare.label_groups(decay["series"]):
        score, r = scores[rows], distances[rows]
        score_text.append(_("{model} goes from {first} at r = {r_first} to {last} at "
                            "r = {r_last}, and is never below {lowest}.").format(
            model=series_text(styles, name), first=f"{score[0]:.3f}",
            r_first=i18n.integer(round(r[0])), last=f"{score[-1]:.3f}",
            r_last=i18n.integer(round(r[-1])), lowest=f"{score.min():.3f}"))
    return tuple(score_text)
