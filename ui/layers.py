"""A model's layers as a strip of cells, shared by Real models and Layers without RoPE:
the four kinds of layer (their colour code, colour and label), the names of the token
mixers of layers that do not attend, and the strip figure itself."""

from __future__ import annotations

import numpy as np

from .figures import COLORS, GREY, kept_figure
from .i18n import N_, _

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
