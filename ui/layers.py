"""A model's layers as a strip of cells, shared by Real models and Layers without RoPE:
the four kinds of layer (their colour code, colour and label), the names of the token
mixers of layers that do not attend, the strip figure itself, and a layer group's name
for people (span_words, group_label: Real models, Long context)."""

from __future__ import annotations

import numpy as np

from .figures import COLORS, GREY, kept_figure
from .formatting import fmt_base
from .i18n import N_, _, integer

# code -> (colour, label): 0 RoPE with full attention, 1 RoPE in a sliding window or
# chunk, 2 NoPE, 3 no attention (another mixer)
LAYER_KINDS = {0: (COLORS[0], N_("RoPE, full or compressed attention")),
               1: (COLORS[5], N_("RoPE, sliding window or chunk")),
               2: (GREY, N_("NoPE: attention without rotation")),
               3: (COLORS[4], N_("no attention: linear attention, state space or convolution"))}
# what a layer that does not attend mixes tokens with (rope_core.models.families.MIXERS)
MIXER_NAMES = {"linear_attention": N_("linear attention"), "mamba": N_("Mamba (state space)"),
               "conv": N_("short convolution"), "recurrent": N_("recurrence (RG-LRU)"),
               "mlp": N_("no token mixer (an MLP block)"),
               "cross_attention": N_("cross-attention to the image")}

# a layer group's attention span (span_words, group_label)
ATTENTION_NAMES = {"full": N_("full attention"), "sliding": N_("sliding window"),
                   "chunked": N_("chunked attention")}


def layer_codes(kind, attention) -> np.ndarray:
    """The LAYER_KINDS code of each layer, from its kind ("rope", "nope", a mixer) and its
    attention ("full", "sliding", "chunked", "compressed", ...)."""
    kind, attention = np.asarray(kind), np.asarray(attention)
    windowed = np.isin(attention, ("sliding", "chunked"))
    return np.where(kind == "rope", np.where(windowed, 1, 0), np.where(kind == "nope", 2, 3))


def layer_strip(rows: list, z: list, text: list, title: str):
    """One row of cells per model (``rows`` its names, ``z`` its LAYER_KINDS codes padded
    with None to the deepest model, ``text`` each cell's hover line), with a legend of the
    kinds instead of a colour bar (fits 390 px), as a kept figure."""
    scale = []
    for c, (color, _label) in LAYER_KINDS.items():
        scale += [[c / 4, color], [(c + 1) / 4, color]]
    depth = len(z[0]) if z else 0
    traces = [dict(type="heatmap", z=z, x=list(range(depth)), y=rows, customdata=text,
                   zmin=-0.5, zmax=3.5, colorscale=scale, xgap=1, ygap=3, showscale=False,
                   hovertemplate="%{y}<br>%{customdata}<extra></extra>")]
    traces += [dict(type="scatter", x=[None], y=[None], mode="markers", name=_(label),
                    hoverinfo="skip", marker=dict(symbol="square", size=12, color=color))
               for color, label in LAYER_KINDS.values()]
    return kept_figure(traces, title=title, x=_("layer (0 = first)"), y="",
                       height=170 + 45 * len(rows), yaxes=dict(autorange="reversed"))


def span_words(attention: str, window, compress) -> str:
    """A layer's attention span in words: "full attention", "sliding window of 1,024",
    "chunks of 8,192", or a compressed layer's keys (DeepSeek-V4: "compressed keys, one per
    4 tokens, beside a raw window of 128")."""
    if attention == "compressed":
        return _("compressed keys, one per {every} tokens, beside a raw window of "
                 "{n}").format(every=integer(int(compress)), n=integer(int(window)))
    if attention in ("sliding", "chunked"):
        return (_("sliding window of {n}") if attention == "sliding"
                else _("chunks of {n}")).format(n=integer(int(window)))
    return _(ATTENTION_NAMES["full"])


def group_label(group: str) -> str:
    """A layer group's name (rope_core.limits.compare.group_name, English in the CSV) for people."""
    if group == "all layers":
        return _("all layers")
    rope, _sep, span = group.partition(", ")
    kind = _("RoPE") if rope == "RoPE" else _("NoPE")
    span, _sep2, base = span.partition(", base ")
    if span.startswith("sliding window "):
        span = _("sliding window of {n}").format(n=integer(int(span.split()[-1])))
    elif span.startswith("chunks of "):
        span = _("chunks of {n}").format(n=integer(int(span.split()[-1])))
    elif span.startswith("compressed every "):  # DeepSeek-V4: "compressed every 4 + window 128"
        every, _sep3, window = span.removeprefix("compressed every ").partition(" + window ")
        span = span_words("compressed", window, every) if window else \
            _("compressed keys, one per {every} tokens").format(every=integer(int(every)))
    else:
        span = _(ATTENTION_NAMES["full"])
    text = _("{kind}, {span}").format(kind=kind, span=span)
    return text + (_(", base {base}").format(base=fmt_base(float(base))) if base else "")
