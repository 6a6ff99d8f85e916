"""The common look of every figure, and figures built once per setting.

Building a Plotly figure (``go.Figure``, ``update_layout``, validation) is the
server's main cost per step, far above the maths. So a page builds each figure
in a function of plain settings decorated with :func:`figure`: the first call
for a setting builds the figure, converts it once to the JSON-ready form the
browser receives (numbers as base64 typed arrays, float64 sent as float32,
which a screen cannot tell apart), and keeps that for every visitor;
:func:`show` hands the kept form to Streamlit without building anything again.
The CSV downloads keep the full float64 values.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st
from plotly.basedatatypes import BaseFigure

FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=14)
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"]
PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"scale": 2}}
FIGURE_ENTRIES = 32  # figures kept per builder function (least recently used goes)


def style(fig: go.Figure, *, title: str, x: str, y: str, height: int = 440) -> go.Figure:
    """Titled axes with units, readable fonts, legend below the plot."""
    fig.update_layout(title=dict(text=title, x=0, xanchor="left"), font=FONT, height=height,
                      margin=dict(l=70, r=20, t=60, b=60),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0),
                      hoverlabel=dict(font_size=13))
    fig.update_xaxes(title_text=x, showline=True, linecolor="#888", mirror=False)
    fig.update_yaxes(title_text=y, showline=True, linecolor="#888", mirror=False)
    return fig


def square(fig: go.Figure, **axis) -> go.Figure:
    """Equal x and y scale (heatmaps of matrices, rotation planes), no padding."""
    fig.update_xaxes(constrain="domain", **axis)
    fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain", **axis)
    return fig


# ------------------------------------------------------ built once, sent as is ----
_NARROW = {"f8": "f4", "i8": "i4", "u8": "u4"}


def _narrow(node: Any) -> Any:
    """Send float64 as float32 and 64-bit integers as 32-bit (typed arrays only,
    and only integers that fit)."""
    if isinstance(node, dict):
        if set(node) >= {"dtype", "bdata"} and node["dtype"] in _NARROW:
            values = np.frombuffer(base64.b64decode(node["bdata"]), dtype=node["dtype"])
            target = _NARROW[node["dtype"]]
            if target.startswith(("i", "u")) and values.size and \
                    np.abs(values).max() > np.iinfo(target).max:
                return node
            narrowed = dict(node, dtype=target,
                            bdata=base64.b64encode(values.astype(target).tobytes()).decode())
            return narrowed
        return {k: _narrow(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_narrow(v) for v in node]
    return node


class Frozen(BaseFigure):
    """A figure in the JSON-ready form Streamlit sends: ``st.plotly_chart`` asks
    a Plotly figure only for ``to_dict()``, which here returns the kept form
    (no copy, no validation). Read-only; build a new one to change it."""

    def __init__(self, spec: dict) -> None:  # noqa: D107 (BaseFigure's init is skipped)
        self._spec = spec

    def to_dict(self) -> dict:
        return self._spec

    @property
    def spec(self) -> dict:
        return self._spec

    def __reduce__(self):  # pickled by value, e.g. by st.cache_data
        return (Frozen, (self._spec,))


def freeze(fig: go.Figure) -> Frozen:
    """The figure as Streamlit will send it, computed once."""
    return Frozen(_narrow(json.loads(pio.to_json(fig, validate=False))))


def figure(fn: Callable | None = None, *, max_entries: int = FIGURE_ENTRIES):
    """Cache a figure builder (a function of plain numbers, strings and tuples
    returning a ``go.Figure``) for every visitor, as a :class:`Frozen` figure."""
    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def build(*args, **kwargs) -> Frozen:
            return freeze(f(*args, **kwargs))
        return st.cache_resource(max_entries=max_entries, show_spinner=False)(build)
    return wrap(fn) if fn is not None else wrap


def show(fig: go.Figure | Frozen, key: str | None = None) -> None:
    """Draw a figure across the full width of its column."""
    st.plotly_chart(fig, width="stretch", key=key, config=PLOT_CONFIG)
