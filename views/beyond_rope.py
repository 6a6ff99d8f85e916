"""The Beyond RoPE page's figures (pages/beyond_rope.py) and the cached tables and
sentences that feed them: every encoding's logit against distance on RoPE's axes, a toy
head's attention map under each, and what the curves and maps show at these settings."""

import math

import numpy as np
import pandas as pd
import plotly.colors as pc

import rope_core as rc
import ui
from rope_core.beyond import alternatives as alt
from ui import i18n
from ui.i18n import _, ngettext

ENCODINGS = alt.ENCODINGS  # rope, p_rope, xpos, alibi, nope, sinusoidal
# One colour, dash and marker per encoding, so that no two lines look alike in colour,
# in greyscale or with a colour vision deficiency (tests/test_a11y.py): p-RoPE's
# vermillion and NoPE's dark brown, xPos's green and the sinusoidal slate looked alike.
# RoPE is drawn first, wide and solid: where another encoding's curve lies on it (p-RoPE
# and xPos near r = 0), its dashes run along RoPE's blue band instead of hiding it.
COLOR = dict(rope=ui.COLORS[0], p_rope=ui.COLORS[1], xpos=ui.COLORS[2], alibi=ui.COLORS[3],
             nope="#000000", sinusoidal=ui.COLORS[4])
DASH = dict(rope="solid", p_rope="dash", xpos="dot", alibi="dashdot", nope="longdash",
            sinusoidal="longdashdot")
SYMBOL = dict(rope="circle", p_rope="square", xpos="diamond", alibi="triangle-up", nope="x",
              sinusoidal="cross")
WIDTH = dict(rope=4.5, p_rope=2.0, xpos=2.4, alibi=2.0, nope=2.0, sinusoidal=2.0)
R_COL = "distance r [tokens]"
# colorscale="Viridis" as Plotly sends it
VIRIDIS = [[i / (len(pc.sequential.Viridis) - 1), color]
           for i, color in enumerate(pc.sequential.Viridis)]


def name(encoding: str) -> str:
    """The encoding's name as shown (RoPE, ALiBi ... stay; "sinusoidal" is translated)."""
    return _(alt.ENCODING_NAMES[encoding])


def slope_label(exponent: int) -> str:
    return f"1/{2**exponent}"


@ui.table
def score_table(vectors: str, dim: int, base: float, max_distance: int, p: float, slope: float,
                seed: int, layout: str, device: str) -> pd.DataFrame:
    """Every encoding's logit at 600 distances 0 ... max_distance (query at max_distance)."""
    return alt.distance_table(vectors, dim, base, max_distance, p=p, slope=slope, seed=seed,
                              layout=layout, device=device)


@ui.table
def at_training_length(vectors: str, dim: int, base: float, train: int, max_distance: int,
                       p: float, slope: float, seed: int, layout: str, device: str) -> dict:
    """Each encoding's logit at exactly r = L (the plot's markers), and the numbers the
    text quotes."""
    logits = alt.distance_logits(vectors, dim, base, [train], p=p, slope=slope, seed=seed,
                                 query_position=max_distance, layout=layout, device=device)
    zeta = alt.xpos_zeta(dim)
    kept = alt.p_rope_pairs(dim, p)
    turns = rc.turns_within(rc.theta(dim, base)[:kept], train) if kept else None
    return {"logit": {e: float(v[0]) for e, v in logits.items()},
            "kept": kept, "kept_full_turn": int((turns >= 1).sum()) if kept else 0,
            "xpos_fast": float(zeta[0] ** (train / alt.XPOS_SCALE_BASE)),
            "xpos_slow": float(zeta[-1] ** (train / alt.XPOS_SCALE_BASE))}


@ui.table
def attention_table(dim: int, base: float, seq: int, start: int, seed: int, same: bool,
                    p: float, slope: float, layout: str, device: str) -> pd.DataFrame:
    """One row per encoding and visible cell (n <= m) of the toy head's window."""
    return alt.attention_maps_table(dim, base, seq, start, seed, same, p=p, slope=slope,
                                    layout=layout, device=device)


def by_encoding(df: pd.DataFrame, column: str) -> np.ndarray:
    """A column of a tidy table as one row per encoding: the tables are blocks of equal
    length in ENCODINGS order, so this is a reshape, not six filters."""
    return df[column].to_numpy().reshape(len(ENCODINGS), -1)


def y_range(logits: np.ndarray) -> list[float]:
    """The logit axis: every curve but ALiBi's, padded (ALiBi's falling line may leave
    the plot at the bottom rather than flatten all the others)."""
    values = np.delete(logits, ENCODINGS.index("alibi"), axis=0)
    low, high = float(values.min()), float(values.max())
    pad = 0.08 * max(high - low, 1e-9)
    return [low - pad, high + pad]


@ui.table
def score_summary(vectors: str, dim: int, base: float, max_distance: int, p: float,
                  slope: float, seed: int, layout: str, device: str) -> dict:
    """What the text quotes from the score table, once per setting: how many distances it
    samples, the first distance where ALiBi's line leaves the plot at the bottom
    (y_range; None: it stays inside), and how many pairs are too fast for the samples
    and how far they reach (the envelope's widest half-width)."""
    df = score_table(vectors, dim, base, max_distance, p, slope, seed, layout, device)
    logits = by_encoding(df, "logit")  # (6, R)
    r = df[R_COL].to_numpy()[:logits.shape[1]]
    below = r[logits[ENCODINGS.index("alibi")] < y_range(logits)[0]]
    return {"points": len(r), "alibi_exit": int(below[0]) if len(below) else None,
            "fast": int(df["pairs too fast to draw"].iloc[0]),
            "widest": float(df["envelope +- [logit]"].max())}


@ui.figure
def score_figure(vectors: str, dim: int, base: float, train: int, reach: int, p: float,
                 slope: float, seed: int, layout: str, device: str) -> ui.Frozen:
    """One line per encoding against r, the training length L marked, the region past L
    shaded, each curve's value at r = L as a marker. Built as the form Plotly sends
    (``ui.kept_figure``): validating the traces was most of the figure's cost."""
    max_distance = train * reach
    df = score_table(vectors, dim, base, max_distance, p, slope, seed, layout, device)
    logits = by_encoding(df, "drawn logit")  # (6, R): the pairs the samples resolve
    spread = by_encoding(df, "envelope +- [logit]")  # (6, R): the faster pairs' reach
    r = df[R_COL].to_numpy()[:logits.shape[1]]  # (R,)
    marks = at_training_length(vectors, dim, base, train, max_distance, p, slope, seed, layout,
                               device)["logit"]
    exact = by_encoding(df, "logit")  # (6, R): what the hover reads
    hover = _("r={r} tokens<br>logit={value}").format(r="%{x:,}", value="%{customdata:.3f}")
    # the envelope of the pairs too fast for the samples: a band (upper edge, then the
    # lower edge filled up to it) around each line that has one
    traces = [dict(type="scatter", x=np.concatenate([r, r[::-1]]),
                   y=np.concatenate([logits[j] + spread[j], (logits[j] - spread[j])[::-1]]),
                   fill="toself", fillcolor=COLOR[e], opacity=0.15, line=dict(width=0),
                   name=name(e), hoverinfo="skip", showlegend=False, mode="none")
              for j, e in enumerate(ENCODINGS) if spread[j].max() > 0]
    traces += [dict(type="scatter", x=r, y=logits[j], mode="lines", name=name(e),
                    line=dict(color=COLOR[e], width=WIDTH[e], dash=DASH[e]),
                    customdata=exact[j], hovertemplate=hover + "<extra>" + name(e) + "</extra>")
               for j, e in enumerate(ENCODINGS)]
    traces.append(dict(
        type="scatter",
        x=[train] * len(ENCODINGS), y=[marks[e] for e in ENCODINGS], mode="markers",
        name=_("value at r = L"), customdata=[name(e) for e in ENCODINGS],
        marker=dict(color=[COLOR[e] for e in ENCODINGS], size=11,
                    symbol=[SYMBOL[e] for e in ENCODINGS],
                    line=dict(color="black", width=1)),
        hovertemplate=_("{encoding} at r = L: logit={value}").format(
            encoding="%{customdata}", value="%{y:.3f}") + "<extra></extra>"))
    past = dict(type="rect", xref="x", yref="paper", x0=train, x1=max_distance, y0=0, y1=1,
                fillcolor="#8c959f", opacity=0.12, line=dict(width=0), layer="below")
    line = dict(type="line", xref="x", yref="paper", x0=train, x1=train, y0=0, y1=1,
                line=dict(color="black", dash="dot"))
    note = dict(x=train, y=1, yref="paper", yanchor="bottom", xanchor="left", showarrow=False,
                font=dict(size=13),
                text=_("L = {train}: past it, shaded").format(train=i18n.integer(train)))
    titles = {"q = k": _("Logit against distance, q = k (d = {dim}, base {base})"),
              "random q, k": _("Logit against distance, random q, k (d = {dim}, base {base})")}
    return ui.kept_figure(traces, title=titles[vectors].format(dim=dim, base=ui.fmt_base(base)),
                          x=_("relative distance r = m − n [tokens]"),
                          y=_("logit ℓ (before softmax)"), height=500,
                          layout=dict(yaxis=dict(range=y_range(logits))), shapes=[past, line],
                          annotations=[note])


def window_weights(df: pd.DataFrame, seq: int) -> np.ndarray:
    """The toy head's weights as (encoding, m, n) matrices, NaN above the diagonal
    (masked: plotly leaves it blank). The table lists each encoding's visible cells
    row by row (torch.tril_indices order)."""
    grids = np.full((len(ENCODINGS), seq, seq), np.nan)
    m, n = np.tril_indices(seq)
    grids[:, m, n] = by_encoding(df, "weight")
    return grids


@ui.figure
def map_figure(encoding: str, dim: int, base: float, seq: int, start: int, seed: int,
               same: bool, p: float, slope: float, layout: str, device: str) -> ui.Frozen:
    """The chosen encoding's softmax weights, log colour scale (built as the sent form)."""
    df = attention_table(dim, base, seq, start, seed, same, p, slope, layout, device)
    weights = window_weights(df, seq)[ENCODINGS.index(encoding)]  # (seq, seq)
    lowest = max(float(np.nanmin(weights[weights > 0])), 1e-6)
    lowest = min(math.log10(lowest), math.log10(1 / seq))
    ticks = [t for t in (1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 1e-3, 1e-4, 1e-5, 1e-6)
             if math.log10(t) >= lowest - 1e-12]
    positions = np.arange(start, start + seq)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.log10(np.where(weights > 0, weights, np.nan))
    gap = 1 if seq <= 32 else 0
    heatmap = dict(
        type="heatmap", z=ui.typed(z),
        customdata=ui.typed(weights), x=positions, y=positions,
        coloraxis="coloraxis", xgap=gap, ygap=gap,
        hovertemplate=_("m={m}, n={n}<br>weight={value}").format(
            m="%{y}", n="%{x}", value="%{customdata:.4f}") + "<extra></extra>")
    colors = dict(colorscale=VIRIDIS, cmin=lowest, cmax=0.0,
                  colorbar=dict(title=dict(text=_("weight")),
                                tickvals=[math.log10(t) for t in ticks],
                                ticktext=[f"{t:g}" for t in ticks]))
    # square cells without padding (what ui.square sets), rows downwards, in one layout
    return ui.kept_figure(
        [heatmap], title=_("Softmax weights under {encoding} (log colour scale)").format(
            encoding=name(encoding)), x=_("key position n [tokens]"),
        y=_("query position m [tokens]"), height=480, layout=dict(
            coloraxis=colors, plot_bgcolor="#c8c8c8",
            xaxis=dict(constrain="domain", showgrid=False, zeroline=False),
            yaxis=dict(scaleanchor="x", scaleratio=1, constrain="domain", autorange="reversed",
                       showgrid=False, zeroline=False)))


@ui.figure
def last_row_figure(dim: int, base: float, seq: int, start: int, seed: int, same: bool,
                    p: float, slope: float, layout: str, device: str) -> ui.Frozen:
    """The last query's weights over its keys, one line per encoding (the sent form)."""
    df = attention_table(dim, base, seq, start, seed, same, p, slope, layout, device)
    last_row = by_encoding(df, "weight")[:, -seq:]  # (6, seq): the last query, keys n = start ...
    r = np.arange(seq - 1, -1, -1)  # distance m - n of those keys
    hover = _("r={r} tokens<br>weight={value}").format(r="%{x}", value="%{y:.4f}")
    traces = [dict(type="scatter", x=r, y=last_row[j], mode="lines+markers", name=name(e),
                   line=dict(color=COLOR[e], width=WIDTH[e], dash=DASH[e]),
                   marker=dict(size=8 if e == "rope" else 6, symbol=SYMBOL[e]),
                   hovertemplate=hover + "<extra>" + name(e) + "</extra>")
              for j, e in enumerate(ENCODINGS)]
    return ui.kept_figure(
        traces, title=_("The last query (m = {m}): weight on the key r tokens back").format(
            m=i18n.integer(start + seq - 1)), x=_("distance r = m − n [tokens]"),
        y=_("softmax weight"), height=480)


@ui.table
def mean_distances(dim: int, base: float, seq: int, start: int, seed: int, same: bool,
                   p: float, slope: float, layout: str, device: str) -> np.ndarray:
    """Σₙ a_(last, n) (last − n) per encoding: how far back the last query looks, once per
    setting."""
    df = attention_table(dim, base, seq, start, seed, same, p, slope, layout, device)
    last_row = by_encoding(df, "weight")[:, -seq:]  # (6, seq), keys n = start ... last
    return last_row @ np.arange(seq - 1, -1, -1, dtype=float)


def p_past_text(kept: int, half: int, full: int, train: int) -> str:
    """p-RoPE past L: what its unrotated and rotated pairs meet (what the paper reports is in
    :func:`past_papers`)."""
    if kept == 0:
        first = _("**p-RoPE** with p = 0 rotates nothing: it is NoPE (below), with no angle "
                  "that could leave its range.")
    elif kept == half:
        first = _("**p-RoPE** with p = 1 rotates every pair: it is RoPE, with RoPE's unseen "
                  "angles past L.")
    else:
        first = ngettext(
            "**p-RoPE**: the {rest} unrotated pair does not turn with position, so it meets no "
            "new angle past L. Of the {kept} rotated pairs, {full} turn fully within L = {train} "
            "tokens (past L their angles repeat); the rest still meet new angles.",
            "**p-RoPE**: the {rest} unrotated pairs do not turn with position, so they meet no "
            "new angle past L. Of the {kept} rotated pairs, {full} turn fully within L = {train} "
            "tokens (past L their angles repeat); the rest still meet new angles.",
            half - kept).format(rest=half - kept, kept=kept, full=full,
                                train=i18n.integer(train))
    return first


def past_papers(train: int) -> tuple[str, ...]:
    """What the papers measured past the training length, one line per encoding (the
    Beyond RoPE page's expander; ``train``: the page's L, for xPos's blockwise reach)."""
    return (
        _("**RoPE**: Press et al. (2022) found a rotary model's WikiText-103 perplexity "
          "improving only up to 200 tokens past L = 512 (100 past L = 1,024); Chen et al. "
          "(2023) report LLaMA 7B (L = 2,048) above 10³ perplexity at 8,192 tokens, and below "
          "20 with interpolated positions even before fine-tuning (see Context extension)."),
        _("**p-RoPE**: Barbero et al. (2024) argue that the slowest pairs serve as "
          "meaning-carrying channels that drift over long contexts, and report that leaving "
          "them unrotated slightly improved perplexity in their Gemma 2B experiments, measured "
          "at the 8,192-token training length, not past it."),
        _("**xPos**: Sun et al. (2022) train at 1,024 tokens and report perplexity that does "
          "not rise up to 4,096 with blockwise causal attention at inference: blocks of L/2 "
          "tokens, each query seeing its own block and the one before, so no key is more than "
          "{reach} tokens back here. Their result is about distances below L; the curve past L "
          "is what full attention would meet, which their model never uses.").format(
            reach=i18n.integer(alt.blockwise_reach(train))),
        _("**ALiBi**: Press et al. (2022) train a 1.3B model on 1,024 tokens that matches, in "
          "perplexity at 2,048, a sinusoidal model trained on 2,048."),
        _("**NoPE**: Kazemnejad et al. (2023) found it generalised to longer inputs better "
          "than explicit encodings on small models trained on reasoning and arithmetic tasks; "
          "in their 1B-scale code models trained on 1,024 tokens, NoPE's perplexity, like "
          "ALiBi's, held up to about twice L, and was less stable than ALiBi's beyond."),
        _("**Sinusoidal**: Press et al. (2022) found a sinusoidal model's WikiText-103 "
          "perplexity no longer improving 20 to 50 tokens past L, and rising after that."))


def score_notes(vectors: str, dim: int, base: float, train: int, reach: int, p: float,
                exponent: int, seed: int, layout: str, device: str) -> tuple[str, ...]:
    """The sentences under the logits: each encoding's curve at these settings, with its
    value at r = L (:func:`at_training_length`) and where ALiBi's line leaves the plot
    (:func:`score_summary`)."""
    max_distance, slope, half = train * reach, 2.0 ** -exponent, dim // 2
    facts = at_training_length(vectors, dim, base, train, max_distance, p, slope, seed, layout,
                               device)
    logit = facts["logit"]
    sampled = score_summary(vectors, dim, base, max_distance, p, slope, seed, layout, device)
    kept = facts["kept"]
    if kept == half:
        p_text = _("**p-RoPE** with p = {p} rotates all {half} pairs: its curve is RoPE's.")
    elif kept == 0:
        p_text = _("**p-RoPE** with p = {p} rotates none of the {half} pairs: its curve is "
                   "NoPE's.")
    else:
        p_text = _("**p-RoPE** with p = {p} rotates the {kept} fastest of the {half} pairs; the "
                   "other {rest} add a constant, so its curve keeps RoPE's quick ripples but "
                   "not its slow drift.")
    return (
        _("**NoPE** is a flat line at q·k/√d = {nope}: with no positional term the logit is "
          "the same at every distance.").format(nope=f"{logit['nope']:.2f}"),
        _("**ALiBi** is that line tilted down by {slope} per token: at r = L it is {drop} "
          "lower, and it keeps falling at the same rate past L{exit}.").format(
            slope=slope_label(exponent), drop=f"{slope * train:.1f}",
            exit=_(" (it leaves the plot at r ≈ {r})").format(
                r=i18n.integer(sampled["alibi_exit"]))
            if sampled["alibi_exit"] is not None else ""),
        p_text.format(p=f"{p:g}", half=half, kept=kept, rest=half - kept),
        _("**xPos** is RoPE with pair i's term multiplied by ζᵢ^(r/512): at r = L that factor "
          "is {fast} for the fastest pair and {slow} for the slowest, so the curve is pulled "
          "towards 0 as r grows.").format(fast=f"{facts['xpos_fast']:.3g}",
                                         slow=f"{facts['xpos_slow']:.3g}"),
        _("**Sinusoidal** adds PEₘ and PEₙ before the dot product: only PEₘ·PEₙ = Σᵢ cos(r ωᵢ) "
          "depends on r alone; the cross terms q·PEₙ and PEₘ·k depend on where the tokens are "
          "(here the query sits at m = {m}), so a trained model has to learn to use it.").format(
            m=i18n.integer(max_distance)))


def sampling_note(vectors: str, dim: int, base: float, train: int, reach: int, p: float,
                  exponent: int, seed: int, layout: str, device: str) -> str:
    """The caption under logits sampled too sparsely for the fastest pairs ("": none is)."""
    max_distance = train * reach
    sampled = score_summary(vectors, dim, base, max_distance, p, 2.0 ** -exponent, seed, layout,
                            device)
    if not sampled["fast"]:
        return ""
    fast = sampled["fast"]
    sampling = ngettext(
        "Sampled at {count} distances (every ≈{step} tokens): the fastest pair turns once "
        "in fewer than 4 samples, and a line through the samples would alias it into a "
        "slower ripple that is not there, so the lines leave it out.",
        "Sampled at {count} distances (every ≈{step} tokens): the fastest {fast} pairs "
        "turn once in fewer than 4 samples, and a line through the samples would alias "
        "them into slower ripples that are not there, so the lines leave those pairs out.",
        fast).format(count=i18n.integer(sampled["points"]),
                     step=i18n.integer(round(max_distance / (alt.SCORE_POINTS - 1))), fast=fast)
    band = ngettext(
        "The shaded band around each line, ± the left-out pair's amplitude plus the most a "
        "straight segment between two samples can miss of the pairs drawn (at most {widest} "
        "here), holds the exact logit at every distance, sampled or not (the hover reads the "
        "exact logit).",
        "The shaded band around each line, ± the sum of the left-out pairs' amplitudes plus "
        "the most a straight segment between two samples can miss of the pairs drawn (at "
        "most {widest} here), holds the exact logit at every distance, sampled or not (the "
        "hover reads the exact logit).", fast).format(widest=f"{sampled['widest']:.2f}")
    return sampling + "\n\n" + band


def look_back_note(dim: int, base: float, seq: int, start: int, seed: int, same: bool, p: float,
                   slope: float, layout: str, device: str) -> str:
    """How far back the last query looks on average under each encoding
    (:func:`mean_distances`), against uniform weights."""
    distances = _(", ").join(
        _("{value} with {encoding}").format(encoding=name(e), value=f"{value:.1f}")
        for e, value in zip(ENCODINGS, mean_distances(dim, base, seq, start, seed, same, p,
                                                      slope, layout, device)))
    return _("On average the last query looks this many tokens back: {distances} "
             "(Σₙ aₘₙ (m − n); uniform weights give {uniform}).").format(
        uniform=f"{(seq - 1) / 2:.1f}", distances=distances)
