"""The common look of every figure, written once."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=14)
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"]
PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"scale": 2}}


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


def show(fig: go.Figure, key: str | None = None) -> None:
    """Draw a figure across the full width of its column."""
    st.plotly_chart(fig, width="stretch", key=key, config=PLOT_CONFIG)
