"""Context extension: one model, every scaling method on the same axes."""

import re

import numpy as np
import streamlit as st

import rope_core as rc
import ui
from rope_core.limits import compare
from ui import i18n
from ui.i18n import N_, _, ngettext
from views.context_extension import (
    attention_factor_figure,
    bound_figure,
    dynamic,
    dynamic_figure,
    extension,
    extension_decay,
    far_bounds,
    methods,
    ramp_figure,
    ratio_figure,
    regime_figure,
    regimes,
    score_figure,
    softmax_figure,
    spectrum_counts,
    wavelength_figure,
    yarn_ramps,
)

CUSTOM = N_("sidebar settings")  # the option, the link value in English, the CSV's model
MODEL_OPTIONS = [CUSTOM] + list(rc.PRESETS)
CONTEXT_OPTIONS = [2**e for e in range(8, 19)]  # 256 ... 262,144 tokens
FACTOR_OPTIONS = [2, 4, 8, 16, 32]  # s * L stays within 10^7 tokens
AXES = list(compare.AXES)
DEFAULT_AXIS = AXES[0]  # "linear", a link value
REGIME_RUNS = {"kept": N_("kept {pairs}"), "blended": N_("blended {pairs}"),
               "interpolated": N_("interpolated {pairs}")}
# transformers' `factor` of dynamic NTK: its own knob (1 = YaRN's definition, alpha = n / L)
DYNAMIC_FACTORS = [1, 2, 4, 8, 16, 32]


def model_label(option: str) -> str:
    """A model option as shown (and carried by the link): the sidebar option in the
    run's language, a preset by its name."""
    return _(option) if option == CUSTOM else option


def listed(items) -> str:
    return _(", ").join(items)


s = ui.settings()
st.title(_("Context extension"))
st.markdown(_(
    "A model trained on L tokens meets angles mθᵢ it never saw once the input is longer. "
    "Context-extension methods change θᵢ (and sometimes the attention temperature) to "
    "carry it to s·L tokens; not all of them keep every angle s·L·θ′ᵢ inside what "
    "training covered (see below). Below, one base model under every method, on the same "
    "axes; every method is evaluated at one length, n = s·L, dynamic NTK with "
    "transformers' `factor` = 1, so that its α = n/L is s there too (YaRN's definition)."))

def in_use(label: str, options: list, value: float, container):
    """A disabled slider that shows the value a preset sets (its L, its own factor s).
    It is not bound to the link: the visitor's own value stays with the bound control,
    which is not drawn meanwhile (Streamlit keeps its value for the session and takes
    it out of the address), and comes back with the sidebar settings."""
    return container.select_slider(label, options=sorted({*options, value}), value=value,
                                   format_func=lambda v: f"{v:g}", disabled=True)


c1, c2, c3 = st.columns([2, 1, 1])
model = ui.choice(_("Base model"), MODEL_OPTIONS, "Llama 3.1 8B", "ce_model", container=c1,
                  fmt=model_label,
                  help=_("A preset, or the sidebar's base, head dim and layout with L and s "
                         "chosen here."))
own_factor = 1.0 if model == CUSTOM else compare.scaling_factor(rc.PRESETS[model])
L_LABEL, S_LABEL = _("Original context L [tokens]"), _("Factor s (new context = s·L)")
if model == CUSTOM:
    context = ui.select_slider(L_LABEL, CONTEXT_OPTIONS, 4096, "ce_L", container=c2, fmt=str)
else:
    context = in_use(L_LABEL, CONTEXT_OPTIONS, rc.PRESETS[model].original_context, c2)
if own_factor > 1:
    factor = in_use(S_LABEL, FACTOR_OPTIONS, own_factor, c2)
else:
    factor = ui.select_slider(S_LABEL, FACTOR_OPTIONS, 8, "ce_s", container=c2, fmt=str)
if model == CUSTOM:
    base_cfg = rc.RopeConfig(name=CUSTOM, head_dim=s.dim, rotary_dim=s.dim, base=s.base,
                             layout=s.layout, original_context=context, max_context=context)
    c3.caption(_("Base, head dim and layout from the sidebar."))
else:
    base_cfg = rc.PRESETS[model]
    starts = ("original_max_position_embeddings" in dict(base_cfg.params)
              and base_cfg.method != "dynamic")
    if starts:
        where = _("{model}: L = {length} tokens, where its own scaling starts "
                  "(`original_max_position_embeddings`)").format(
            model=ui.plain(model), length=i18n.integer(base_cfg.original_context))
    elif base_cfg.training_context == base_cfg.original_context:
        where = _("{model}: L = {length} tokens, the context its source says it was "
                  "trained at").format(model=ui.plain(model),
                                       length=i18n.integer(base_cfg.original_context))
    else:
        where = _("{model}: L = {length} tokens, its configured context (its `config.json` "
                  "names no other)").format(model=ui.plain(model),
                                            length=i18n.integer(base_cfg.original_context))
    trained = (_("trained at {trained} tokens (its source: the Real models card)").format(
        trained=i18n.integer(base_cfg.training_context))
        if base_cfg.training_context not in (None, base_cfg.original_context) else "")
    how_far = (_("s = {factor} from its own scaling; configured for {configured} "
                 "tokens").format(factor=f"{own_factor:g}",
                                  configured=i18n.integer(base_cfg.max_context))
               if own_factor > 1 else _("s chosen here"))
    c3.caption(_("; ").join(t for t in (where, trained, how_far) if t) + ".")
s_used = own_factor if own_factor > 1 else float(factor)
L = base_cfg.original_context

cfg_key = compare.config_key(base_cfg)
with ui.friendly_errors():
    extension(cfg_key, s_used)
compared = methods(cfg_key, s_used)
extended = compare.extended_context(base_cfg, s_used)  # n = s·L, for every method
if model != CUSTOM and extended > base_cfg.max_context:
    c3.caption(_("n = s·L = {n} tokens is beyond the {configured} tokens {model} is "
                 "configured for: the comparison runs to the length its factor s aims "
                 "at.").format(n=i18n.integer(extended), model=ui.plain(model),
                               configured=i18n.integer(base_cfg.max_context)))

# --- what each method does ------------------------------------------------------------
with st.container(border=True):
    items = []  # one Markdown list: one element, not one per method
    for m in compared:
        spec = rc.SCALINGS[m]
        texts = dict(label=_(spec.label), description=_(spec.description),
                     citation=_(spec.citation))
        if m == base_cfg.method and m != "none":
            items.append(_("- **{label}** (this model's own setting): {description} "
                           "*{citation}.*").format(**texts))
        else:
            items.append(_("- **{label}**: {description} *{citation}.*").format(**texts))
    st.markdown(_("**The methods** (every one evaluated at n = s·L = {n} tokens)").format(
        n=i18n.integer(extended)) + "\n\n" + "\n".join(items))
    if "longrope" not in compared:
        st.caption(_("LongRoPE's per-pair factors come from a search done for each model, so "
                     "it is shown only for a model that publishes them ({models}).").format(
            models=listed(n for n, c in rc.PRESETS.items() if c.method == "longrope")))
    st.caption(_("Formulas and parameter names as in Hugging Face transformers {version} "
                 "(`modeling_rope_utils.py`).").format(version=rc.TRANSFORMERS_VERSION))

# --- where the scaling applies: the layers that use the main spectrum ------------------
def uses_main(cfg: rc.RopeConfig, spec) -> bool:
    """Whether a layer rotates with the main spectrum (so a scaling of it applies)."""
    main = cfg.main_spec()
    return spec.rotates and all(getattr(spec, f) == getattr(main, f) for f in (
        "base", "method", "params", "rotary_dim", "theta_dim"))


def main_reach(cfg: rc.RopeConfig) -> tuple[int, int, int | None]:
    """The layers that use the main spectrum: how many see only a window or chunk, how
    many reach the whole context (full or compressed attention), and the longest window
    or chunk of the first kind (None without)."""
    if cfg.layer_specs is None:
        return 0, cfg.layers, None
    windowed, reaching, window = 0, 0, None
    for g in cfg.groups():
        if not uses_main(cfg, g.spec):
            continue
        if g.spec.windowed:
            windowed += len(g.layers)
            window = max(window or 0, g.spec.window)
        else:
            reaching += len(g.layers)
    return windowed, reaching, window


def where_it_applies(cfg: rc.RopeConfig) -> list[str]:
    """Which layers a scaling of the main spectrum changes, and what the others do (a
    model with layers of more than one kind)."""
    if cfg.layer_specs is None or len(cfg.groups()) == 1:
        return []
    own, others = [], []
    for g in cfg.groups():
        spec = g.spec
        n = len(g.layers)
        if uses_main(cfg, spec):
            own.append(n)
        elif spec.rotates:
            others.append(ngettext(
                "{n} layer keeps its own RoPE (base {base}, {method}) and sees {reach} tokens",
                "{n} layers keep their own RoPE (base {base}, {method}) and see {reach} tokens",
                n).format(n=n, base=ui.fmt_base(spec.base),
                          method=_(rc.SCALING_LABELS[spec.method]),
                          reach=i18n.integer(spec.reach(cfg.max_context))))
        elif spec.kind == "nope":
            others.append(ngettext("{n} layer attends without rotating, so no scaling "
                                   "touches it", "{n} layers attend without rotating, so no "
                                   "scaling touches them", n).format(n=n))
        else:
            others.append(ngettext("{n} layer does not attend", "{n} layers do not attend",
                                   n).format(n=n))
    if not sum(own) and not any(g.spec.rotates for g in cfg.groups()):
        return [_("No layer of {model} rotates ({others}): no scaling changes anything in it; "
                  "the curves below are those of the unused RoPE fields of its "
                  "`config.json`.").format(model=ui.plain(cfg.name), others=listed(others))]
    out = [ngettext("{model}'s scaling, and each method below, changes the layer that uses "
                    "its main spectrum ({n} of {layers}); {others}.",
                    "{model}'s scaling, and each method below, changes the layers that use "
                    "its main spectrum ({n} of {layers}); {others}.", sum(own)).format(
        model=ui.plain(cfg.name), n=sum(own), layers=cfg.layers,
        others=listed(others) if others else _("no other layer"))]
    windowed, reaching, window = main_reach(cfg)
    if windowed and not reaching:
        out.append(_("Those layers never meet a distance past {window} tokens (their window "
                     "or attention chunk), so however long the input, the angle differences "
                     "(n − m)·θᵢ their scores depend on stay within what {window} tokens give "
                     "(in exact arithmetic; the Precision page shows what float32 does to "
                     "angles at large positions); the comparison shows what each method "
                     "would do to their spectrum, not distances they meet.").format(
            window=i18n.integer(window)))
    elif windowed:
        out.append(ngettext(
            "{n} of them never meets a distance past {window} tokens (its window or "
            "attention chunk): however long the input, the angle differences (n − m)·θᵢ "
            "its scores depend on stay within what {window} tokens give, so the comparison "
            "shows what each method would do to its spectrum, not distances it meets.",
            "{n} of them never meet a distance past {window} tokens (their window or "
            "attention chunk): however long the input, the angle differences (n − m)·θᵢ "
            "their scores depend on stay within what {window} tokens give, so the "
            "comparison shows what each method would do to their spectrum, not distances "
            "they meet.", windowed).format(n=windowed, window=i18n.integer(window)))
        out.append(ngettext(
            "The other {n} reaches the whole context ({context} tokens), so the comparison "
            "describes distances it meets.",
            "The other {n} reach the whole context ({context} tokens), so the comparison "
            "describes distances they meet.", reaching).format(
                n=reaching, context=i18n.integer(cfg.max_context)))
    return out


if model != CUSTOM and where_it_applies(base_cfg):
    ui.explain(*where_it_applies(base_cfg))

# --- spectra ---------------------------------------------------------------------------
left, right = st.columns(2)
with left:
    ui.show(ratio_figure(cfg_key, s_used), key="ce_ratio_plot",
            alt=_("Line chart, log scale: the ratio θ′ᵢ/θᵢ of each pair's frequency after context "
                  "extension to the original one, against the pair index i, one line per method; 1 "
                  "means the pair is kept, 1/s that it is divided by the factor s."),
            table=_("spectra table"))
with right:
    ui.show(wavelength_figure(cfg_key, s_used), key="ce_wave_plot",
            alt=_("Line chart, log scale: each pair's wavelength 2π/θ′ᵢ against the pair index i, "
                  "one line per context-extension method, with the original context L and the "
                  "extended context s·L as dotted horizontal lines."), table=_("spectra table"))

counted = spectrum_counts(cfg_key, s_used)
beyond, slowest, outside_counts = counted["beyond"], counted["slowest"], counted["outside"]
inside = [m for m in outside_counts if m != "none" and outside_counts[m] == 0]
# the layers that use the main spectrum all see only a window or chunk (Llama 4 Scout,
# Command R7B): no distance they meet reaches the angles s·L would give
windowed, reaching, window = main_reach(base_cfg) if model != CUSTOM else (0, 1, None)
bounded = windowed > 0 and reaching == 0
# L is a training length (a custom L, where the model's scaling starts, or the length its
# source says it was trained at), else only its configured context
trained_L = (model == CUSTOM or starts
             or base_cfg.training_context == base_cfg.original_context)
ratios = listed(f"`{m}` {v:.3g}" for m, v in slowest.items())
if beyond == 0:
    first = _(
        "**What to notice.** Unscaled, none of the {pairs} pairs has a wavelength longer "
        "than L = {length}: every pair completes a turn within L, so no angle at s·L is "
        "one that L tokens do not give. The methods differ in what they do to the fast "
        "pairs, which carry local word order. Ratio of the slowest pair: {ratios} "
        "(1/s = {inverse}).")
elif bounded:
    first = _(
        "**What to notice.** Unscaled, {beyond} of {pairs} pairs have wavelengths longer "
        "than L = {length}: they never complete a turn within L. The layers that use this "
        "spectrum see at most {window} tokens, so at no input length do they meet the "
        "larger angles s·L would give those pairs. Every method slows those pairs; they "
        "differ in what they do to the fast pairs, which carry local word order. Ratio of "
        "the slowest pair: {ratios} (1/s = {inverse}).")
elif trained_L:
    first = _(
        "**What to notice.** Unscaled, {beyond} of {pairs} pairs have wavelengths longer "
        "than L = {length}: within training they never completed a turn, so at s·L they "
        "would reach angles never seen. Every method slows those pairs; they differ in what "
        "they do to the fast pairs, which carry local word order. Ratio of the slowest "
        "pair: {ratios} (1/s = {inverse}).")
else:
    first = _(
        "**What to notice.** Unscaled, {beyond} of {pairs} pairs have wavelengths longer "
        "than L = {length}: they never complete a turn within L, so at s·L they would reach "
        "angles beyond any that L tokens give. Every method slows those pairs; they differ "
        "in what they do to the fast pairs, which carry local word order. Ratio of the "
        "slowest pair: {ratios} (1/s = {inverse}).")
counts = [] if beyond == 0 or bounded else [
    (_("Pairs whose largest angle s·L·θ′ᵢ at s·L exceeds anything seen in training (L·θᵢ, "
       "for pairs that never turned): {counts}.") if trained_L else
     _("Pairs whose largest angle s·L·θ′ᵢ at s·L exceeds the largest at L (L·θᵢ, for "
       "pairs that never turned): {counts}.")).format(
        counts=listed(f"`{m}` {int(n)}" for m, n in outside_counts.items())),
    *([_("Every pair stays inside with {methods}.").format(
        methods=listed(f"`{m}`" for m in inside))] if inside else []),
    *([_("NTK-aware scaling (static, and dynamic at s·L) divides only the slowest pair by "
         "exactly s, so the other slow pairs still leave what training covered, as YaRN's "
         "paper notes (§3.1).") if trained_L else
       _("NTK-aware scaling (static, and dynamic at s·L) divides only the slowest pair by "
         "exactly s, so the other slow pairs still reach angles beyond those at L, as YaRN's "
         "paper notes of training (§3.1).")] if outside_counts.get("ntk", 0) > 0 else [])]
ui.explain(first.format(
    beyond=beyond, pairs=counted["pairs"], length=i18n.integer(L), ratios=ratios,
    inverse=f"{1 / s_used:.3g}", window=i18n.integer(window or 0)), *counts)

# --- regimes ---------------------------------------------------------------------------
order, regime_rows = regimes(cfg_key, s_used)
ui.show(regime_figure(cfg_key, s_used), key="ce_regime_plot",
        alt=_("Strip chart: one row per scaled method, one cell per pair index i, coloured by what "
              "the method does to that pair: keeps it, blends it, or interpolates it (divides its "
              "frequency by s)."), table=_("spectra table"))
run_text = []
for m, row in zip(order, regime_rows):
    runs = compare.regime_runs(row)
    run_text.append(_("`{method}`: {runs}").format(method=m, runs=listed(
        _(REGIME_RUNS[label]).format(pairs=f"{a}–{b}" if b > a else str(a))
        for label, a, b in runs)))
if "yarn" in compared:
    p = rc.resolve_params("yarn", base_cfg.rotary_dim,
                          dict(base_cfg.params_dict if base_cfg.method == "yarn" else
                               {"factor": s_used, "original_max_position_embeddings": L}))
    low, high = rc.yarn_ramp_bounds(base_cfg.rotary_dim, base_cfg.base, L, p["beta_fast"],
                                    p["beta_slow"], p["truncate"])
    run_text.append(_("YaRN's ramp runs from pair {low} to pair {high}, the pairs that "
                      "turn between `beta_slow` = {slow} and `beta_fast` = {fast} times "
                      "within L").format(
        low=f"{low:g}", fast=f"{p['beta_fast']:g}", high=f"{high:g}",
        slow=f"{p['beta_slow']:g}"))
ui.explain(_("Pairs, by method: {methods}.").format(methods=_("; ").join(run_text)))

# --- YaRN's ramp: in the pair index (code) or in the turn count (paper) -----------------
@ui.prose
def largest_ramp_gap(model: str, factor: float, dim: int, base: float, L: int,
                     beta_fast: float, beta_slow: float, truncate: bool) -> str:
    """Where the paper's ramp and the app's (yarn_ramps) differ most, once per setting and
    language."""
    ramps = yarn_ramps(model, factor, dim, base, L, beta_fast, beta_slow, truncate)
    gap = int(np.nanargmax(np.abs(ramps["difference paper - app"].to_numpy())))
    gap_row = {c: ramps[c].to_numpy()[gap] for c in (
        "pair", "turns within L", "ramp linear in i (app, transformers)",
        "ramp linear in r (paper)", "difference paper - app")}
    return _(
        "The largest difference is at pair {pair} (r = {turns} turns within L): {code} "
        "divided by s here, {paper} in the paper.").format(
        pair=int(gap_row["pair"]), turns=f"{gap_row['turns within L']:.3g}",
        code=f"{gap_row['ramp linear in i (app, transformers)']:.0%}",
        paper=f"{gap_row['ramp linear in r (paper)']:.0%}") \
        if abs(gap_row["difference paper - app"]) >= 0.005 else \
        _("With these settings the two ramps agree on every pair.")


if "yarn" in compared:
    ramp_args = (base_cfg.name, s_used, base_cfg.rotary_dim, base_cfg.base, L,
                 p["beta_fast"], p["beta_slow"], p["truncate"])
    ui.show(ramp_figure(*ramp_args), key="ce_ramp_plot",
            alt=_("Line chart: the share of interpolation YaRN gives each pair, from 0 (kept) to 1 "
                  "(divided by s), against the pair index i: linear in i as this app draws it, and "
                  "linear in the turn count r = L/λ as in YaRN's paper."),
            table=_("YaRN ramps"))
    ui.explain(_(
        "**Which ramp.** This app follows transformers and YaRN's official code: the share of "
        "a pair divided by s rises linearly in the pair index i from pair {low} to pair "
        "{high}. The paper writes its ramp γ(r) linearly in the turn count r = L/λᵢ instead, "
        "and r falls geometrically with i, so the paper's ramp interpolates most blended "
        "pairs more.").format(low=f"{low:g}", high=f"{high:g}"), largest_ramp_gap(*ramp_args))

# --- attention factor ------------------------------------------------------------------
@ui.prose
def attention_notes(cfg_key: tuple, factor: float, model: str) -> tuple[str, ...]:
    """The sentences under the attention factors: the largest softmax weight with each
    method's factor a (and with the model's own softmax scale), once per setting and
    language."""
    cfg = compare.config_from_key(cfg_key)
    softmax = extension(cfg_key, factor)["softmax"]
    sharp = np.flatnonzero(softmax["attention factor"].to_numpy() != 1.0)
    weight, sharpened = softmax["weight"].to_numpy(), softmax["weight with factor"].to_numpy()
    # the model's own attention may scale its logits outside RoPE (DeepSeek-V3: mscale²)
    model_scale = []
    if cfg.softmax_scale != 1.0:
        # the same softmax with a² = that multiplier: the largest logit's weight
        model_weight = float(compare.softmax_table({model: cfg.softmax_scale ** 0.5})[
            "weight with factor"].iloc[0])
        model_scale.append(_(
            "{model}'s attention multiplies its softmax scale 1/√d by `mscale`² = (0.1 · "
            "`mscale_all_dim` · ln s + 1)² = {scale}, outside the rotary embedding "
            "(transformers' `yarn_apply_mscale`), so its logits are multiplied by {scale} and "
            "the softmax is sharper: on the logits above the largest weight goes from {plain} to "
            "{scaled}. The plots show RoPE's factor a only.").format(
            model=ui.plain(model), scale=f"{cfg.softmax_scale:.4g}",
            plain=f"{weight[0]:.3f}", scaled=f"{model_weight:.3f}"))
    if len(sharp):
        # the first row of each method with a factor (the softmax's largest logit)
        firsts = [(m, sharp[rows[0]]) for m, rows in
                  compare.label_groups(softmax["method"].to_numpy()[sharp])]
        return (_(
            "**Attention factor.** Slowing θᵢ blurs nearby positions and, over a longer "
            "context, spreads attention over more keys; a factor a > 1 sharpens it back. On "
            "the logits above, the largest weight goes from {plain} to {weights}.").format(
            plain=f"{weight[firsts[0][1]]:.3f}",
            weights=listed(f"{sharpened[row]:.3f} (`{m}`)" for m, row in firsts)), *model_scale)
    if model_scale:
        return (_("**Attention factor.** RoPE's attention factor is a = 1 for every method "
                  "here."), *model_scale)
    return (_("**Attention factor.** None of these methods changes the attention "
              "temperature for this model (a = 1), so the softmax is unchanged."),)


left, right = st.columns(2)
with left:
    ui.show(attention_factor_figure(cfg_key, s_used), key="ce_attention_plot",
            alt=_("Bar chart: the logit multiplier a² of each context-extension method (1 for the "
                  "methods without an attention factor)."), table=_("attention factors"))
with right:
    ui.show(softmax_figure(cfg_key, s_used), key="ce_softmax_plot",
            alt=_("Bar chart: the softmax weights of five fixed logits for each key j, plainly and "
                  "with each method's attention factor; a factor above 1 sharpens the weights."),
            table=_("softmax example"))
ui.explain(*attention_notes(cfg_key, s_used, model))

# --- decay and dynamic NTK: against a distance or a length, on the axis chosen here -----
@ui.prose
def dynamic_notes(cfg_key: tuple, factor: float, axis: str, f: int) -> tuple[str, ...]:
    """The sentences under dynamic NTK's base: α, the base and the slowest wavelength at
    n = s·L with f = 1 and with the chosen f, once per setting and language."""
    base_cfg = compare.config_from_key(cfg_key)
    dyn = dynamic(cfg_key, factor, axis, f)
    # the last row (n = s·L) of each transformers factor f
    ends = {f: {c: dyn[c].to_numpy()[rows[-1]] for c in (
                "sequence length [tokens]", "alpha", "effective base",
                "longest wavelength [tokens]")}
            for f, rows in compare.label_groups(dyn["dynamic factor f"].to_numpy())}
    one = ends[1.0]
    sentences = [_(
        "**Dynamic NTK** runs the trained base {base} up to n = L = {length} (dotted), then "
        "raises it with every token. With f = 1, at n = {n} α = n/L = {alpha} (α = s at "
        "s·L, as static NTK's): the base is {effective}, and the slowest pair's wavelength "
        "has grown to {wavelength} tokens. Short inputs run exactly as trained; the price is "
        "that cached keys were rotated with an older base.").format(
        base=ui.fmt_base(base_cfg.base), length=i18n.integer(base_cfg.original_context),
        n=i18n.integer(round(one["sequence length [tokens]"])), alpha=f"{one['alpha']:.4g}",
        effective=f"{one['effective base']:.4g}",
        wavelength=i18n.integer(round(one["longest wavelength [tokens]"])))]
    if f != 1:
        other = ends[float(f)]
        sentences.append(_(
            "With transformers' `factor` f = {f}, α = f·n/L − (f − 1) = {alpha} at n = {n}: "
            "the slowest pair turns 1/{alpha} as fast instead of 1/{one}, as if the context "
            "were extended {alpha}-fold. Setting `factor` to s, as for the other methods, "
            "overshoots (α = s² − s + 1 at s·L).").format(
            f=f, alpha=f"{other['alpha']:.4g}", one=f"{one['alpha']:.4g}",
            n=i18n.integer(round(other["sequence length [tokens]"]))))
    return tuple(sentences)


@st.fragment
def distance_sections(cfg_key: tuple, s_used: float, tag: str) -> None:
    """The decay curves and dynamic NTK's base against the current length, with the
    distance axis and transformers' `factor` as this section's own controls (a fragment:
    moving them reruns only this section)."""
    base_cfg = compare.config_from_key(cfg_key)
    extended = compare.extended_context(base_cfg, s_used)
    st.header(_("Against distance"))
    c1, c2 = st.columns(2)
    axis = ui.choice(_("Distance axis"), AXES, DEFAULT_AXIS, "ce_axis", container=c1,
                     help=_("`linear`: distances evenly spaced up to s·L; `log`: a "
                            "logarithmic axis that shows short distances in detail."))
    f = ui.select_slider(_("transformers' `factor` f for dynamic NTK"), DYNAMIC_FACTORS, 1,
                         "ce_dyn_f", container=c2, fmt=str,
                         help=_("transformers' dynamic NTK uses α = f·n/L − (f − 1) once the "
                                "current length n exceeds L. f = 1 is YaRN's definition "
                                "(α = n/L, so α = s at s·L). transformers takes that L from "
                                "`max_position_embeddings`, the length a config is set for; "
                                "the comparison here uses the model's L above."))
    with ui.friendly_errors():
        extension_decay(cfg_key, s_used, axis)
        dynamic(cfg_key, s_used, axis, f)
    left, right = st.columns(2)
    with left:
        ui.show(bound_figure(cfg_key, s_used, axis), key="ce_bound_plot",
                alt=_("Line chart: RoFormer's long-term decay bound against the relative distance r"
                      " up to s·L, one line per context-extension method."), table=_("decay table"))
    with right:
        ui.show(score_figure(cfg_key, s_used, axis), key="ce_score_plot",
                alt=_("Line chart: the attention score of q = k = all ones against the relative "
                      "distance r up to s·L, one line per context-extension method, attention "
                      "factor included."), table=_("decay table"))
    at_end = far_bounds(cfg_key, s_used, axis)
    ui.explain(_(
        "**Decay.** Slowing the pairs keeps phases aligned for longer, so the bound decays "
        "more slowly: averaged over distances from s·L/2 to s·L it is {values}. The dotted "
        "line marks L: interpolating methods stretch the curve of the first L tokens over "
        "s·L.").format(values=listed(f"{v:.2f} (`{m}`)" for m, v in at_end.items())))
    if axis == "linear" and extended >= compare.EXTENSION_POINTS:
        st.caption(_("At most {n} distances per method, evenly spaced: ripples between "
                     "samples are not drawn. Use the log axis for short distances.").format(
            n=i18n.integer(compare.EXTENSION_POINTS)))

    ui.show(dynamic_figure(cfg_key, s_used, axis, f), key="ce_dynamic_plot",
            alt=_("Line chart, log scale: the effective base that dynamic NTK uses against the "
                  "current sequence length n, one line per factor f, with L and s·L marked."),
            table=_("dynamic NTK table"))
    ui.explain(*dynamic_notes(cfg_key, s_used, axis, f))
    ui.download(extension_decay, cfg_key, s_used, axis,
                filename=f"context_extension_decay_{tag}_{axis}.csv", label=_("decay table"),
                key="ce_decay_csv", part="decay")
    ui.download(dynamic, cfg_key, s_used, axis, f,
                filename=f"context_extension_dynamic_{tag}_{axis}_f{f}.csv",
                label=_("dynamic NTK table"), key="ce_dynamic_csv")


name = (f"custom_dim{s.dim}_base{ui.slug(s.base)}" if model == CUSTOM
        else re.sub(r"[^A-Za-z0-9]+", "-", model).strip("-"))  # a preset's name: app text
tag = f"{name}_L{L}_s{ui.slug(s_used)}"
distance_sections(cfg_key, s_used, tag)

for part, label in (("spectra", N_("spectra table")), ("attention", N_("attention factors")),
                    ("softmax", N_("softmax example"))):
    ui.download(extension, cfg_key, s_used,
                filename=f"context_extension_{part}_{tag}.csv", label=_(label),
                key=f"ce_{part}_csv", part=part)
if "yarn" in compared:
    ui.download(yarn_ramps, *ramp_args, filename=f"context_extension_ramps_{tag}.csv",
                label=_("YaRN ramps"), key="ce_ramps_csv")
