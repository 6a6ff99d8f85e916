"""The Context extension page's figures (pages/context_extension.py) and the cached
tables and helpers that feed them: one model under every scaling method on the same axes
(θ′/θ, wavelengths, regimes per pair, attention factors, softmax, dynamic NTK's base,
YaRN's ramp, the decay bound and the all-ones score)."""

import numpy as np
import pandas as pd

import rope_core as rc
import ui
from rope_core.limits import compare
from ui import i18n
from ui.i18n import N_, _

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
