"""The Context extension page's figures (pages/context_extension.py) and the cached
tables and sentences that feed them: one model under every scaling method on the same axes
(θ′/θ, wavelengths, regimes per pair, attention factors, softmax, dynamic NTK's base,
YaRN's ramp, the decay bound and the all-ones score), which of its layers a scaling
touches, and what each chart shows at these settings."""


import numpy as np
import pandas as pd

import rope_core as rc
import ui
from rope_core.limits import compare
from ui import i18n
from ui.i18n import N_, _, ngettext

REGIME_CODES = {"kept": 0, "blended": 1, "interpolated": 2}
REGIME_NAMES = {"kept": N_("kept"), "blended": N_("blended"), "interpolated": N_("interpolated")}
REGIME_COLORS = [ui.COLORS[2], ui.COLORS[4], ui.COLORS[1]]
# a method's name on an axis, short enough for a phone (the full name is in the hover)
SHORT_LABELS = {"none": N_("none"), "linear": N_("linear"), "ntk": N_("static NTK"),
                "dynamic": N_("dynamic NTK"), "yarn": N_("YaRN"), "llama3": N_("Llama 3.1"),
                "longrope": N_("LongRoPE")}
DYNAMIC_POINTS = 400  # lengths n per dynamic-NTK curve: a smooth curve, a light figure

AXIS_FREE = ("spectra", "attention", "softmax")  # the same tables on either distance axis


@ui.table
def extension(key: tuple, factor: float) -> dict:
    """The comparison's tables that do not depend on the distance axis (spectra,
    attention factors, softmax; rope_core.limits.compare.extension_tables), once per setting."""
    return compare.extension_tables(compare.config_from_key(key), factor, parts=AXIS_FREE)


@ui.table
def spectrum_counts(key: tuple, factor: float) -> dict:
    """What the text under the spectra counts, once per setting: the unscaled pairs whose
    wavelength exceeds L (``beyond``, of ``pairs``), each method's θ′/θ for the slowest
    pair (``slowest``) and how many pairs each method leaves outside what training
    covered (``outside``). A pair leaves it when it never turned within L (L·θᵢ < 2π)
    and s·L·θ′ᵢ > L·θᵢ, s·L the length the comparison reaches (relative tolerance: NTK's
    slowest pair is divided by exactly s)."""
    cfg = compare.config_from_key(key)
    length, extended = cfg.original_context, compare.extended_context(cfg, factor)
    spectra = extension(key, factor)["spectra"]
    column = {c: spectra[c].to_numpy() for c in (
        "method", "wavelength [tokens]", "ratio theta/theta plain", "wavelength plain [tokens]",
        "theta [rad/token]", "theta plain [rad/token]")}  # each (methods · pairs,)
    by_method = compare.label_groups(column["method"])
    plain = column["method"] == "none"
    never = column["wavelength plain [tokens]"] > length
    outside = never & (extended / length * column["theta [rad/token]"] >
                       column["theta plain [rad/token]"] * (1 + 1e-9))
    return {"beyond": int((column["wavelength [tokens]"][plain] > length).sum()),
            "pairs": int(plain.sum()),
            "slowest": {m: float(column["ratio theta/theta plain"][rows][-1])
                        for m, rows in by_method},
            "outside": {m: int(outside[rows].sum()) for m, rows in by_method}}


@ui.table
def extension_decay(key: tuple, factor: float, axis: str) -> dict:
    """The comparison's decay table on ``axis`` (rope_core.limits.compare.extension_tables)."""
    return compare.extension_tables(compare.config_from_key(key), factor, axis,
                                    parts=("decay",))


@ui.table
def far_bounds(key: tuple, factor: float, axis: str) -> dict:
    """Each method's decay bound averaged over the distances from s·L/2 to s·L (the
    text under the decay charts), once per setting."""
    decay = extension_decay(key, factor, axis)["decay"]
    extended = compare.extended_context(compare.config_from_key(key), factor)
    far = decay[decay["distance [tokens]"] >= extended / 2]
    return far.groupby("method", sort=False)["upper bound"].mean().to_dict()


@ui.table
def dynamic(key: tuple, factor: float, axis: str, dynamic_factor: int) -> pd.DataFrame:
    """Dynamic NTK's effective base against n, with transformers' factor 1 (YaRN's
    definition) and, when different, ``dynamic_factor``."""
    cfg = compare.config_from_key(key)
    factors = dict.fromkeys([1, dynamic_factor])
    return pd.concat([compare.dynamic_base_table(cfg, factor, axis, DYNAMIC_POINTS, float(f))
                      for f in factors], ignore_index=True)


@ui.table
def yarn_ramps(model: str, factor: float, dim: int, base: float, L: int, beta_fast: float,
               beta_slow: float, truncate: bool) -> pd.DataFrame:
    """YaRN's ramp per pair, linear in the pair index (the app, transformers, YaRN's code)
    and linear in the turn count r = L/λ (the paper)."""
    code = rc.yarn_ramp(dim, base, L, beta_fast, beta_slow, truncate)
    paper = rc.yarn_paper_ramp(dim, base, L, beta_fast, beta_slow)
    turns = rc.turns_within(rc.theta(dim, base), L)
    return pd.DataFrame({"model": model, "L [tokens]": L, "s": float(factor),
                         "rotary dim": dim, "base": base,
                         "beta_fast": beta_fast, "beta_slow": beta_slow,
                         "pair": range(dim // 2), "turns within L": turns.numpy(),
                         "ramp linear in i (app, transformers)": code.numpy(),
                         "ramp linear in r (paper)": paper.numpy(),
                         "difference paper - app": (paper - code).numpy()})


def method_styles(cfg_key: tuple, factor: float, axis: str | None = None
                  ) -> tuple[dict, dict, dict]:
    """The tables, and a colour and a dash per method: solid for no scaling and the
    model's own method, dashed for the others. Spectra, attention factors and the softmax
    do not depend on the distance axis; the decay table is the one on ``axis``."""
    tables = dict(extension(cfg_key, factor))
    if axis is not None:
        tables["decay"] = extension_decay(cfg_key, factor, axis)["decay"]
    own = compare.config_from_key(cfg_key).method
    methods = list(tables["attention"]["method"])
    colors = {m: ui.COLORS[n % len(ui.COLORS)] for n, m in enumerate(methods)}
    dashes = {m: "solid" if m in ("none", own) else "dash" for m in methods}
    return tables, colors, dashes


def spectrum_lines(cfg_key: tuple, factor: float, column: str, hover: str) -> list[dict]:
    """One line per method of the spectra column ``column`` against the pair index, as
    trace dicts."""
    tables, colors, dashes = method_styles(cfg_key, factor)
    return method_lines(tables["spectra"], "pair", column, colors, dashes,
                        "i=%{x}<br>" + hover, "lines+markers", dict(size=4))


def method_lines(table: pd.DataFrame, x: str, column: str, colors: dict, dashes: dict,
                 hover: str, mode: str, marker: dict | None = None) -> list[dict]:
    """One trace dict per method of ``table``: ``column`` against ``x``, in the method's
    colour and dash, named by its label (translated)."""
    xs, values = table[x].to_numpy(), table[column].to_numpy()
    traces = []
    for m, rows in compare.label_groups(table["method"]):
        label = _(rc.SCALING_LABELS[m])
        trace = dict(type="scatter", x=xs[rows], y=values[rows], name=label, mode=mode,
                     line=dict(color=colors[m], dash=dashes[m]))
        if marker is not None:
            trace["marker"] = dict(marker)
        traces.append(dict(trace, legendgroup=m,
                           hovertemplate=hover + "<extra>" + label + "</extra>"))
    return traces


@ui.figure
def ratio_figure(cfg_key: tuple, factor: float) -> ui.Frozen:
    """θ′ᵢ/θᵢ per pair under each method; ticks as full numbers (ui.log_axis)."""
    ratios = extension(cfg_key, factor)["spectra"]["ratio theta/theta plain"]
    return ui.kept_figure(
        spectrum_lines(cfg_key, factor, "ratio theta/theta plain", "θ′/θ=%{y:.4f}"),
        title=_("θ′ᵢ / θᵢ per pair (log scale)"), x=_("pair index i"), y=_("ratio θ′ᵢ/θᵢ"),
        height=420, yaxes=ui.log_axis(ratios.to_numpy()))


@ui.figure
def wavelength_figure(cfg_key: tuple, factor: float) -> ui.Frozen:
    """Wavelengths under each method, L and s·L dotted. Wavelengths grow with i, so the
    top left and the bottom right of the plot are free of data: s·L's label sits above
    its line at the left end, L's below its own at the right end; they never meet."""
    cfg = compare.config_from_key(cfg_key)
    L = cfg.original_context
    marks = ((L, "L", "black", "right", False),
             (compare.extended_context(cfg, factor), "s·L", "#666666", "left", True))  # 5.7:1
    return ui.kept_figure(
        spectrum_lines(cfg_key, factor, "wavelength [tokens]",
                       _("λ={value} tokens").format(value="%{y:,.1f}")),
        title=_("Wavelength 2π/θ′ᵢ against L and s·L (log scale)"), x=_("pair index i"),
        y=_("wavelength [tokens]"), height=420, yaxes=ui.LOG_AXIS,
        shapes=tuple(ui.hline(mark[0], mark[2]) for mark in marks),
        annotations=tuple(
            ui.hline_note(tokens, _("{length} = {n} tokens").format(
                length=text, n=i18n.integer(tokens)), log=True, above=above, end=end,
                font=dict(size=13, color=color))
            for tokens, text, color, end, above in marks))


@ui.table
def methods(key: tuple, factor: float) -> tuple[str, ...]:
    """The methods compared, in the tables' order (the attention table's rows), once per
    setting."""
    return tuple(extension(key, factor)["attention"]["method"].tolist())


@ui.table
def regimes(key: tuple, factor: float) -> tuple[tuple, tuple]:
    """The scaled methods, and each one's regime per pair (kept, blended, interpolated),
    once per setting."""
    spectra = extension(key, factor)["spectra"]
    regime = spectra["regime"].to_numpy()
    by_method = {m: tuple(regime[rows].tolist())
                 for m, rows in compare.label_groups(spectra["method"])}
    order = tuple(m for m in methods(key, factor) if m != "none")
    return order, tuple(by_method[m] for m in order)


@ui.figure
def regime_figure(cfg_key: tuple, factor: float) -> ui.Frozen:
    """Which pairs each method keeps, blends or interpolates."""
    tables = extension(cfg_key, factor)
    order, regime_rows = regimes(cfg_key, factor)
    pairs = int((tables["spectra"]["method"] == "none").sum())
    codes = [[REGIME_CODES[r] for r in row] for row in regime_rows]  # (methods, pairs)
    names = {r: _(REGIME_NAMES[r]) for r in REGIME_CODES}
    full = [_(rc.SCALING_LABELS[m]) for m in order]
    # short names on the axis, so that the cells keep the width of a phone; the full
    # name and the regime in the hover; the colour key under the plot, inside the figure
    heatmap = dict(
        type="heatmap", z=codes, x=np.arange(pairs), y=[short_label(m) for m in order],
        customdata=[[[name, names[r]] for r in row] for name, row in zip(full, regime_rows)],
        zmin=-0.5, zmax=2.5, xgap=1, ygap=2,
        colorscale=[[0, REGIME_COLORS[0]], [1 / 3, REGIME_COLORS[0]],
                    [1 / 3, REGIME_COLORS[1]], [2 / 3, REGIME_COLORS[1]],
                    [2 / 3, REGIME_COLORS[2]], [1, REGIME_COLORS[2]]],
        colorbar=dict(tickvals=[0, 1, 2], ticktext=[names[r] for r in REGIME_CODES],
                      title=dict(text=_("pair is"), side="left"), orientation="h",
                      x=0, xanchor="left", y=0, yanchor="bottom", yref="container",
                      len=1, lenmode="fraction", thickness=14),
        hovertemplate="i=%{x}<br>%{customdata[0]}: %{customdata[1]}<extra></extra>")
    return ui.kept_figure(
        [heatmap], title=_("Which pairs each method keeps, blends or interpolates (divides by s)"),
        x=_("pair index i"), y="", height=170 + 45 * len(order))


def short_label(method: str) -> str:
    """A method's short name (SHORT_LABELS, translated), for an axis."""
    return _(SHORT_LABELS[method])


@ui.figure
def attention_factor_figure(cfg_key: tuple, factor: float) -> ui.Frozen:
    """The logit multiplier a² of each method."""
    tables, colors, _dashes = method_styles(cfg_key, factor)
    attention = tables["attention"]
    methods = list(attention["method"])
    bar = dict(type="bar", x=[short_label(m) for m in methods],
               y=attention["logit multiplier"].to_numpy(),
               customdata=[_(rc.SCALING_LABELS[m]) for m in methods],
               marker=dict(color=[colors[m] for m in methods]),
               text=[f"a = {a:.4f}" for a in attention["attention factor"]],
               hovertemplate="%{customdata}<br>a²=%{y:.4f}<extra></extra>")
    return ui.kept_figure(
        [bar], title=_("Logit multiplier a² (a multiplies cos and sin of q and of k)"),
        x=_("method"), y=_("a² (logit multiplier)"), height=380)


@ui.figure
def softmax_figure(cfg_key: tuple, factor: float) -> ui.Frozen:
    """A fixed row of logits through softmax, plain and with each attention factor."""
    softmax = extension(cfg_key, factor)["softmax"]
    column = {c: softmax[c].to_numpy() for c in (
        "key", "weight", "weight with factor", "attention factor", "logit")}
    groups = compare.label_groups(softmax["method"])
    bars = []
    for n, (label, rows) in enumerate(groups):
        if n == 0:
            bars.append(dict(type="bar", x=column["key"][rows],
                             y=column["weight"][rows], name=_("plain softmax (a = 1)"),
                             marker=dict(color="#666666")))
        if float(column["attention factor"][rows[0]]) != 1.0:
            bars.append(dict(type="bar", x=column["key"][rows],
                             y=column["weight with factor"][rows],
                             name=f"{label}: a = {column['attention factor'][rows[0]]:.4f}",
                             marker=dict(color=ui.COLORS[(n + 1) % len(ui.COLORS)])))
    logits = column["logit"][groups[0][1]].tolist()  # the first method's row of logits
    return ui.kept_figure(
        bars, title=_("Softmax of the logits {logits}").format(
            logits=", ".join(f"{v:g}" for v in logits)), x=_("key j"),
        y=_("attention weight"), height=380)


@ui.figure
def dynamic_figure(cfg_key: tuple, factor: float, axis: str, dynamic_factor: int
                   ) -> ui.Frozen:
    """Dynamic NTK's effective base against the current length, one line per transformers
    factor f, L and s·L dotted."""
    dyn = dynamic(cfg_key, factor, axis, dynamic_factor)
    lengths = dyn["sequence length [tokens]"].to_numpy()
    bases = dyn["effective base"].to_numpy()
    traces = []
    for n, (f, rows) in enumerate(compare.label_groups(dyn["dynamic factor f"])):
        name = (_("f = 1 (YaRN's definition: α = n/L)") if f == 1 else
                _("f = {f}: α = f·n/L − (f − 1)").format(f=f"{f:g}"))
        traces.append(dict(type="scatter", x=lengths[rows],
                           y=bases[rows], mode="lines", name=name,
                           line=dict(color=ui.COLORS[n], dash="solid" if f == 1 else "dash"),
                           hovertemplate=_("n={length}<br>base′={base}").format(
                               length="%{x:,}", base="%{y:.4g}") + "<extra></extra>"))
    L = compare.config_from_key(cfg_key).original_context
    return ui.kept_figure(
        traces, title=_("Dynamic NTK: effective base against the current length n"),
        x=_("current sequence length n [tokens] (log scale)") if axis == "log"
        else _("current sequence length n [tokens]"),
        y=_("effective base (log scale)"), height=380, yaxes=ui.log_axis(bases),
        xaxes=ui.LOG_AXIS if axis == "log" else None,
        shapes=(ui.vline(L, "black"), ui.vline(int(round(factor * L)), "gray")))


@ui.figure
def ramp_figure(model: str, factor: float, dim: int, base: float, L: int, beta_fast: float,
                beta_slow: float, truncate: bool) -> ui.Frozen:
    """YaRN's share of interpolation per pair: linear in i (app) and linear in r (paper)."""
    ramps = yarn_ramps(model, factor, dim, base, L, beta_fast, beta_slow, truncate)
    hover = _("share divided by s: {share} (0: kept, 1: divided by s)").format(
        share="%{y:.3f}")
    traces = [dict(type="scatter", x=ramps["pair"].to_numpy(), y=ramps[column].to_numpy(),
                   name=name, mode="lines+markers", marker=dict(size=4),
                   line=dict(color=ui.COLORS[n], dash="solid" if n == 0 else "dash"),
                   hovertemplate="i=%{x}<br>" + hover + "<extra></extra>")
              for n, (column, name) in enumerate((
                  ("ramp linear in i (app, transformers)",
                   _("linear in i (app, transformers, YaRN's code)")),
                  ("ramp linear in r (paper)", _("linear in r = L/λ (YaRN's paper)"))))]
    return ui.kept_figure(traces, title=_("YaRN's ramp: the code against the paper"),
                          x=_("pair index i"), y=_("share divided by s"), height=380)


def decay_lines(cfg_key: tuple, factor: float, axis: str, column: str, hover: str, title: str,
                y: str) -> ui.Frozen:
    """One line per method of the decay column ``column`` against the distance, L dotted."""
    tables, colors, dashes = method_styles(cfg_key, factor, axis)
    traces = method_lines(tables["decay"], "distance [tokens]", column, colors, dashes,
                          "r=%{x:,}<br>" + hover, "lines")
    return ui.kept_figure(
        traces, title=title, x=_("relative distance r [tokens] (log scale)") if axis == "log"
        else _("relative distance r [tokens]"), y=y, height=400,
        xaxes=ui.LOG_AXIS if axis == "log" else None,
        shapes=(ui.vline(compare.config_from_key(cfg_key).original_context, "black"),))


@ui.figure
def bound_figure(cfg_key: tuple, factor: float, axis: str) -> ui.Frozen:
    """RoFormer's decay bound under each method, up to s·L."""
    extended = compare.extended_context(compare.config_from_key(cfg_key), factor)
    return decay_lines(cfg_key, factor, axis, "upper bound",
                       _("bound={value}").format(value="%{y:.3f}"),
                       _("Long-term decay bound, up to s·L = {n}").format(
                           n=i18n.integer(extended)),
                       _("relative upper bound"))


@ui.figure
def score_figure(cfg_key: tuple, factor: float, axis: str) -> ui.Frozen:
    """The all-ones score under each method (attention factor included)."""
    return decay_lines(cfg_key, factor, axis, "score q=k=1",
                       _("score={value}").format(value="%{y:.3f}"),
                       _("Score of q = k = all ones (× a², pass-through dims included)"),
                       "qᵀR_r k")


CUSTOM = N_("sidebar settings")  # the option, the link value in English, the CSV's model
REGIME_RUNS = {"kept": N_("kept {pairs}"), "blended": N_("blended {pairs}"),
               "interpolated": N_("interpolated {pairs}")}


def model_label(option: str) -> str:
    """A model option as shown (and carried by the link): the sidebar option in the
    run's language, a preset by its name."""
    return _(option) if option == CUSTOM else option


def listed(items) -> str:
    return _(", ").join(items)


def in_use(label: str, options: list, value: float, container):
    """A disabled slider that shows the value a preset sets (its L, its own factor s).
    It is not bound to the link: the visitor's own value stays with the bound control,
    which is not drawn meanwhile (Streamlit keeps its value for the session and takes
    it out of the address), and comes back with the sidebar settings."""
    return container.select_slider(label, options=sorted({*options, value}), value=value,
                                   format_func=lambda v: f"{v:g}", disabled=True)


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


def scaling_starts(cfg: rc.RopeConfig) -> bool:
    """Whether L is where the model's own scaling starts (`original_max_position_embeddings`
    in its parameters; dynamic NTK's L is its configured context instead)."""
    return "original_max_position_embeddings" in dict(cfg.params) and cfg.method != "dynamic"


def model_note(cfg: rc.RopeConfig, own_factor: float) -> str:
    """The caption beside a preset: what its L is (where its scaling starts, the context it
    was trained at, or only its configured one), what it was trained at if that differs,
    and where s comes from."""
    model = cfg.name
    if scaling_starts(cfg):
        where = _("{model}: L = {length} tokens, where its own scaling starts "
                  "(`original_max_position_embeddings`)").format(
            model=ui.plain(model), length=i18n.integer(cfg.original_context))
    elif cfg.training_context == cfg.original_context:
        where = _("{model}: L = {length} tokens, the context its source says it was "
                  "trained at").format(model=ui.plain(model),
                                       length=i18n.integer(cfg.original_context))
    else:
        where = _("{model}: L = {length} tokens, its configured context (its `config.json` "
                  "names no other)").format(model=ui.plain(model),
                                            length=i18n.integer(cfg.original_context))
    trained = (_("trained at {trained} tokens (its source: the Real models card)").format(
        trained=i18n.integer(cfg.training_context))
        if cfg.training_context not in (None, cfg.original_context) else "")
    how_far = (_("s = {factor} from its own scaling; configured for {configured} "
                 "tokens").format(factor=f"{own_factor:g}",
                                  configured=i18n.integer(cfg.max_context))
               if own_factor > 1 else _("s chosen here"))
    return _("; ").join(t for t in (where, trained, how_far) if t) + "."


def methods_list(cfg_key: tuple, factor: float) -> str:
    """The methods compared, each with its description and citation (rope_core's scaling
    registry), as one Markdown list under its heading: one element, not one per method."""
    cfg = compare.config_from_key(cfg_key)
    extended = compare.extended_context(cfg, factor)
    items = []
    for m in methods(cfg_key, factor):
        spec = rc.SCALINGS[m]
        texts = dict(label=_(spec.label), description=_(spec.description),
                     citation=_(spec.citation))
        if m == cfg.method and m != "none":
            items.append(_("- **{label}** (this model's own setting): {description} "
                           "*{citation}.*").format(**texts))
        else:
            items.append(_("- **{label}**: {description} *{citation}.*").format(**texts))
    return _("**The methods** (every one evaluated at n = s·L = {n} tokens)").format(
        n=i18n.integer(extended)) + "\n\n" + "\n".join(items)


def spectrum_notes(cfg: rc.RopeConfig, factor: float, custom: bool) -> tuple[str, ...]:
    """The sentences under the spectra (:func:`spectrum_counts`): how many pairs never turn
    within L, whether the layers that use this spectrum ever meet s·L (a window or chunk
    bounds them), and how many pairs each method leaves outside what training covered (or,
    when L is only a configured context, beyond the angles at L); ``custom``: the sidebar's
    settings, whose L is a training length."""
    cfg_key = compare.config_key(cfg)
    counted = spectrum_counts(cfg_key, factor)
    beyond, slowest, outside_counts = counted["beyond"], counted["slowest"], counted["outside"]
    inside = [m for m in outside_counts if m != "none" and outside_counts[m] == 0]
    # the layers that use the main spectrum all see only a window or chunk (Llama 4 Scout,
    # Command R7B): no distance they meet reaches the angles s·L would give
    windowed, reaching, window = main_reach(cfg) if not custom else (0, 1, None)
    bounded = windowed > 0 and reaching == 0
    # L is a training length (a custom L, where the model's scaling starts, or the length its
    # source says it was trained at), else only its configured context
    trained_L = (custom or scaling_starts(cfg)
                 or cfg.training_context == cfg.original_context)
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
    return (first.format(
        beyond=beyond, pairs=counted["pairs"], length=i18n.integer(cfg.original_context),
        ratios=ratios, inverse=f"{1 / factor:.3g}", window=i18n.integer(window or 0)), *counts)


def yarn_ramp(cfg: rc.RopeConfig, factor: float) -> tuple[dict, float, float]:
    """YaRN's parameters for this model at ``factor`` (its own when it uses YaRN) and the
    pairs where its ramp starts and ends (rope_core.yarn_ramp_bounds)."""
    length = cfg.original_context
    p = rc.resolve_params("yarn", cfg.rotary_dim,
                          dict(cfg.params_dict if cfg.method == "yarn" else
                               {"factor": factor, "original_max_position_embeddings": length}))
    low, high = rc.yarn_ramp_bounds(cfg.rotary_dim, cfg.base, length, p["beta_fast"],
                                    p["beta_slow"], p["truncate"])
    return p, low, high


def regime_note(cfg_key: tuple, factor: float) -> str:
    """The sentence under the regimes: each method's runs of kept, blended and
    interpolated pairs (rope_core.limits.compare.regime_runs), and YaRN's ramp."""
    order, regime_rows = regimes(cfg_key, factor)
    run_text = []
    for m, row in zip(order, regime_rows):
        runs = compare.regime_runs(row)
        run_text.append(_("`{method}`: {runs}").format(method=m, runs=listed(
            _(REGIME_RUNS[label]).format(pairs=f"{a}–{b}" if b > a else str(a))
            for label, a, b in runs)))
    if "yarn" in methods(cfg_key, factor):
        p, low, high = yarn_ramp(compare.config_from_key(cfg_key), factor)
        run_text.append(_("YaRN's ramp runs from pair {low} to pair {high}, the pairs that "
                          "turn between `beta_slow` = {slow} and `beta_fast` = {fast} times "
                          "within L").format(
            low=f"{low:g}", fast=f"{p['beta_fast']:g}", high=f"{high:g}",
            slow=f"{p['beta_slow']:g}"))
    return _("Pairs, by method: {methods}.").format(methods=_("; ").join(run_text))
