"""Frequencies: theta_i and wavelength per pair, a context-length marker, scalings."""

import math

import pandas as pd
import streamlit as st

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import N_, _

CONTEXT_OPTIONS = [2**e for e in range(7, 21)]  # 128 ... 1,048,576 tokens
FACTOR_OPTIONS = [1, 2, 4, 8, 16, 32, 64]
# the scalings that need only s and L (LongRoPE needs per-pair factor lists), each with
# its short name in the legend ("base 10⁴, linear x4")
PAGE_SCALINGS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
# Translators: short names of scaling methods in a plot's legend ("base 10⁴, linear x4").
LEGEND_NAMES = {"linear": N_("linear"), "ntk": N_("ntk"), "dynamic": N_("dynamic"),
                "yarn": N_("yarn"), "llama3": N_("llama3")}


@ui.table
def theta_tables(dim: int, bases: tuple, context: int, method: str, factor: int,
                 device: str) -> pd.DataFrame:
    """One tidy table: a block of rows per base (and the scaled spectrum)."""
    blocks = []
    for base in bases:
        theta = rc.theta(dim, base, device=device)
        blocks.append(rc.theta_table(theta, context, base=base, scaling="none"))
        if method != "none":
            # dynamic NTK with transformers' factor 1: alpha = s at s L (YaRN's definition)
            params = rc.comparison_params(method, float(factor), context)
            scaled = rc.scaled_theta(dim, base, method, seq_len=context * factor, **params)[0]
            # a scaled model runs at factor * context tokens
            blocks.append(rc.theta_table(scaled, context * factor, base=base,
                                         scaling=f"{method} x{factor}"))
    return pd.concat(blocks, ignore_index=True)


def spectrum_lines(dim: int, bases: tuple, context: int, method: str, factor: int,
                   device: str, column: str, hover: str) -> list[dict]:
    """One line per base (and scaled spectrum) of ``column`` against the pair index:
    solid plain, dashed scaled, a colour per base."""
    df = theta_tables(dim, bases, context, method, factor, device)
    # theta_tables' blocks of d/2 rows, in its order: per base, plain, then scaled
    x, y, half = df["pair i"].to_numpy(), df[column].to_numpy(), dim // 2
    blocks = [(base, scaled) for base in bases
              for scaled in ((False,) if method == "none" else (False, True))]
    traces = []
    for k, (base, scaled) in enumerate(blocks):
        color = ui.COLORS[bases.index(base) % len(ui.COLORS)]
        name = (_("base {base}, {method} x{factor}").format(
                    base=ui.fmt_base(base), method=_(LEGEND_NAMES[method]), factor=factor)
                if scaled else _("base {base}").format(base=ui.fmt_base(base)))
        line = dict(color=color, dash="dash" if scaled else "solid")
        rows = slice(k * half, (k + 1) * half)
        traces.append(dict(type="scatter", x=x[rows], y=y[rows], name=name,
                           mode="lines+markers", line=line, marker=dict(size=4),
                           hovertemplate="i=%{x}<br>" + hover + "<extra>" + name + "</extra>"))
    return traces


def context_line(tokens: int, label: str, color: str) -> tuple[dict, dict]:
    """A dotted horizontal line at ``tokens`` on the log wavelength axis and its label
    (annotations on a log axis take log10 of the value): (shape, annotation)."""
    return ui.hline(tokens, color), dict(
        x=0, xref="paper", xanchor="left", y=math.log10(tokens), yanchor="bottom",
        showarrow=False, font=dict(size=13, color=color),
        text=_("{label} = {tokens} tokens").format(label=label, tokens=i18n.integer(tokens)))


def log_spectrum(settings: tuple, column: str, hover: str, title: str, y: str,
                 height: int, lines: tuple = ()) -> ui.Frozen:
    """One line per base of the spectrum column ``column`` against the pair index, on a
    log y axis; ``settings`` = (dim, bases, context, method, factor, device); ``lines``:
    :func:`context_line`'s, drawn over them. Built as the kept form (ui.kept_figure):
    as Plotly objects the traces, lines and labels were most of the page's CPU."""
    return ui.kept_figure(spectrum_lines(*settings, column, hover), title=title,
                          x=_("pair index i"), y=y, height=height, yaxes=dict(ui.LOG_AXIS),
                          shapes=tuple(shape for shape, _note in lines),
                          annotations=tuple(note for _shape, note in lines))


@ui.figure
def theta_figure(dim: int, bases: tuple, context: int, method: str, factor: int,
                 device: str) -> ui.Frozen:
    """θᵢ per pair, log scale."""
    return log_spectrum((dim, bases, context, method, factor, device), "theta_i [rad/token]",
                        _("θ={theta} rad/token").format(theta="%{y:.3e}"),
                        _("Frequency θᵢ of each pair (log scale)"), _("θᵢ [rad/token]"), 380)


@ui.figure
def wavelength_figure(dim: int, bases: tuple, context: int, method: str, factor: int,
                      device: str) -> ui.Frozen:
    """λᵢ per pair, log scale, with L (and s·L when scaled) marked."""
    lines = [context_line(context, "L", "black")]
    if method != "none":
        lines.append(context_line(context * factor, "s·L", "gray"))
    return log_spectrum((dim, bases, context, method, factor, device), "wavelength [tokens]",
                        _("λ={value} tokens").format(value="%{y:,.1f}"),
                        _("Wavelength λᵢ = 2π/θᵢ: tokens for one full turn (log scale)"),
                        _("wavelength λᵢ [tokens]"), 420, tuple(lines))



@ui.table
def turns(dim: int, bases: tuple, context: int, method: str, factor: int,
          device: str) -> tuple[int, int | None, float]:
    """For the first base, unscaled: how many pairs turn at least once within the
    context, the first pair that does not (None: every pair does), and the last θᵢ."""
    df = theta_tables(dim, bases, context, method, factor, device)
    main = df[(df["base"] == bases[0]) & (df["scaling"] == "none")]
    slow = main.loc[~main["full turn within L"], "pair i"]
    return (int(main["full turn within L"].sum()), int(slow.iloc[0]) if len(slow) else None,
            float(main["theta_i [rad/token]"].iloc[-1]))

s = ui.settings()
st.title(_("Frequencies and wavelengths"))
# Translators: a LaTeX formula; translate only the words inside \text{…}.
st.latex(_(r"\theta_i = \text{base}^{-2i/d},\qquad \lambda_i = \frac{2\pi}{\theta_i}"
           r"\ \text{tokens},\qquad \text{turns within } L = \frac{L\,\theta_i}{2\pi}"))

c1, c2 = st.columns(2)
context = ui.select_slider(_("Context length L [tokens]"), CONTEXT_OPTIONS, 4096, "L",
                           container=c1, fmt=str)
others = ui.multiselect(_("Compare with bases (up to 2 more)"),
                        [b for b in ui.BASE_OPTIONS], [], key="compare", max_selections=2,
                        container=c2, fmt=str)
c3, c4 = st.columns(2)
method = ui.choice(_("Context-extension scaling"), list(PAGE_SCALINGS), default="none",
                   key="scaling", container=c3,
                   help="; ".join(f"`{k}`: {_(rc.SCALING_LABELS[k])}" for k in PAGE_SCALINGS))
factor = ui.select_slider(_("Scaling factor s (new context = s·L)"), FACTOR_OPTIONS, 4,
                          key="factor", container=c4, fmt=str, disabled=method == "none")

bases = tuple(dict.fromkeys([s.base] + [float(b) for b in others]))  # keep order, no repeats
with ui.friendly_errors():
    theta_tables(s.dim, bases, context, method, factor, s.device)

left, right = st.columns(2)
with left:
    ui.show(theta_figure(s.dim, bases, context, method, factor, s.device), key="theta_plot",
            alt=_("Line chart, log scale: the frequency θᵢ of each pair in radians per token "
                  "against the pair index i, one line per base; the frequencies fall geometrically "
                  "from 1 rad/token at i = 0."), table=_("frequency table"))
with right:
    ui.show(wavelength_figure(s.dim, bases, context, method, factor, s.device),
            key="wavelength_plot",
            alt=_("Line chart, log scale: the wavelength λᵢ = 2π/θᵢ, the tokens a pair needs for "
                  "one full turn, against the pair index i, one line per base, with the context "
                  "length L (and s·L when scaled) as dotted lines."), table=_("frequency table"))

full, first_slow, last = turns(s.dim, bases, context, method, factor, s.device)
counts = dict(full=full, half=s.dim // 2, context=i18n.integer(context))
ui.explain(
    _("With base {base} and d = {dim}, θᵢ falls geometrically from 1 rad/token (a turn every "
      "2π ≈ 6.3 tokens) to {last}.").format(
          base=ui.fmt_base(s.base), dim=s.dim,
          last=f"{last:.2e}"),
    _("**{full} of {half} pairs** turn at least once within L = {context} tokens (below the "
      "dotted line); pairs i ≥ {first} never complete one turn within L: their angle never "
      "wraps around, so in exact arithmetic it alone identifies every position in the "
      "context (it does not order them: cos is monotone only over half a turn).").format(
          first=first_slow, **counts)
    if first_slow is not None else
    _("**{full} of {half} pairs** turn at least once within L = {context} tokens (below the "
      "dotted line); every pair completes at least one turn within L.").format(**counts),
    *([ui.slow_pairs_in_low_precision()] if first_slow is not None else []),
    _("Those slow pairs are also the ones that meet angles never seen in training once a model "
      "reads beyond L, so having more of them is no benefit in itself."),
    _("Long-context models raise the base for two other reasons: a larger base lifts every "
      "wavelength but the first, so when a trained model's base is raised (before fine-tuning "
      "on longer texts) its slow pairs rotate more slowly and their angles stay inside the range "
      "its training covered out to longer distances (trained from the start with the larger "
      "base, a pair that never turns still meets new angles right after L); and the score's "
      "cosine sum B_m = Σᵢ cos(m θᵢ) broadly stays positive out to a longer distance m before "
      "it first turns negative, so attention can still favour similar tokens that far back "
      "(Men et al. 2024, “Base of RoPE bounds context length”). Only broadly: a slightly larger "
      "base can turn negative sooner (the passing islands on the Long context page)."))
st.markdown(_("**Two ways to count pairs.** The RoFormer paper numbers pairs from 1: "
              "θᵢ = 10000^(−2(i−1)/d), i = 1 … d/2. This app numbers them from 0: "
              "θᵢ = base^(−2i/d), i = 0 … d/2 − 1. The same frequency has index i here and "
              "i + 1 in the paper (θ₀ here is the paper's θ₁ = 1 rad/token)."))
if method != "none":
    ui.explain(
        _("Dashed lines: the same base after the chosen scaling, judged against the extended "
          "context s·L = {extended}. Linear interpolation slows every pair by s; NTK, YaRN and "
          "Llama 3.1 keep the fast pairs (local order) and slow mainly the slow ones, which are "
          "the pairs that would otherwise see angles never met in training.").format(
              extended=i18n.integer(context * factor)))
    if method == "dynamic":
        st.caption(_(
            "Dynamic NTK is drawn at n = s·L with transformers' `factor` = 1: α = n/L = s, "
            "the dynamic scaling of YaRN's paper, so it is compared with the others at the same "
            "s. transformers computes α = f·n/L − (f − 1); setting its `factor` f to s instead "
            "gives α = s² − s + 1 at s·L ({alpha} here), and the slowest pair turns 1/{alpha} "
            "as fast, not 1/{factor}.").format(alpha=f"{factor * factor - factor + 1:g}",
                                               factor=factor))

tag = "" if method == "none" else f"_{method}x{factor}"
ui.download(
    theta_tables, s.dim, bases, context, method, factor, s.device,
    filename=f"theta_dim{s.dim}_base{'-'.join(ui.slug(b) for b in bases)}_L{context}{tag}.csv",
    label=_("frequency table"), key="frequencies")
