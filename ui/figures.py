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
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st
from plotly.basedatatypes import BaseFigure
from plotly.subplots import make_subplots

from . import cache, i18n, record
from .i18n import _

TEXT = "#1f2328"  # the app's text colour: 15.8:1 on white (the theme's grey ticks were 3.7:1)
AXIS_LINE = "#57606a"  # axis lines and ticks: 6.2:1 on white
# Latin faces first, then CJK faces for Chinese text (fonts-noto-cjk on Linux,
# PingFang on macOS, Microsoft YaHei on Windows): the browser takes each glyph
# from the first face in the list that has it.
FONT_FAMILY = ("Inter, Segoe UI, Helvetica, Arial, Noto Sans CJK SC, Noto Sans SC, "
               "Source Han Sans SC, PingFang SC, Microsoft YaHei, sans-serif")
FONT = dict(family=FONT_FAMILY, size=14, color=TEXT)
# Series colours, in order: Okabe and Ito's blue, vermillion, bluish green and reddish
# purple, then a dark brown and a slate. Each has at least 3:1 against white (WCAG
# 1.4.11; Okabe-Ito's orange and sky blue have 2.2:1 and 2.3:1, so they gave way to the
# last two), and any two differ by ΔE00 >= 12 with normal vision and under simulated
# protanopia and deuteranopia (tests/test_figure_colours.py). D3's category10, used
# before, put green and orange 1.3 apart for a protanope, red and green 4.6 for a
# deuteranope.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#7a3b00", "#4b6969"]
GREY = "#8c8c8c"  # a category of its own (e.g. NoPE layers): 3.4:1 on white
# Plotly's mode bar, over the top right corner of every chart while the pointer is on it
# (after a tap on a phone): the camera saves the chart as a PNG 1920 px wide, for a
# projector (laid out 960 px wide, at twice the pixels: the fonts a 960 px screen shows),
# named after the chart; zoom, pan, reset and Streamlit's full screen. Zoom in, zoom out
# and autoscale go: the box zoom and reset do the same, in a shorter bar.
EXPORT_WIDTH, EXPORT_SCALE = 960, 2
PLOT_CONFIG = {"displaylogo": False,
               "modeBarButtonsToRemove": ["zoomIn2d", "zoomOut2d", "autoScale2d"],
               "toImageButtonOptions": {"format": "png", "width": EXPORT_WIDTH,
                                        "scale": EXPORT_SCALE}}
# The mode bar's second export, SVG (a vector image for slides and print). Plotly's config
# has one camera, of one format, and a button of one's own needs a JavaScript click
# function, which a config sent as JSON cannot carry. So every page carries this script
# (ui.page_style sends it with the page's CSS; a browser runs it once per page load): it
# puts an "SVG" button beside the camera of every chart's mode bar (a MutationObserver
# finds each new one), which clicks the camera with the format swapped for SVG at scale 1
# (Plotly reads toImageButtonOptions when the camera is clicked, synchronously, so the
# chart's own options are back before anything else runs). TITLE is the button's tooltip,
# a JSON string.
EXPORT_SCRIPT = """(() => {
  window.__ropeSvgTitle = TITLE;
  if (window.__ropeSvgExport) return;
  window.__ropeSvgExport = true;
  const NS = 'http://www.w3.org/2000/svg';
  const add = bar => {
    const camera = bar.querySelector('.modebar-group .modebar-btn');
    if (!camera) return;
    let button = bar.querySelector('.rope-svg-export');
    if (!button) {
      const gd = bar.closest('.js-plotly-plot');
      const colours = (gd._fullLayout && gd._fullLayout.modebar) || {};
      button = document.createElement('button');  // as Plotly's own: inline, in one row
      button.type = 'button';
      button.className = 'modebar-btn rope-svg-export';
      button.setAttribute('rel', 'tooltip');
      button.setAttribute('data-gravity', 'n');
      const icon = document.createElementNS(NS, 'svg');
      for (const [k, v] of [['viewBox', '0 0 24 24'], ['width', '1em'], ['height', '1em'],
                            ['class', 'icon']]) icon.setAttribute(k, v);
      const text = document.createElementNS(NS, 'text');
      for (const [k, v] of [['x', '12'], ['y', '16'], ['text-anchor', 'middle'],
                            ['font-size', '10'], ['font-weight', '700']]) text.setAttribute(k, v);
      text.textContent = 'SVG';
      // the colours of Plotly's own icons, the darker one under the pointer
      const paint = active => {
        text.style.fill = (active ? colours.activecolor : colours.color) || '';
      };
      paint(false);
      button.addEventListener('mouseenter', () => paint(true));
      button.addEventListener('mouseleave', () => paint(false));
      icon.appendChild(text);
      button.appendChild(icon);
      button.addEventListener('click', () => {
        const options = gd._context.toImageButtonOptions;
        gd._context.toImageButtonOptions = Object.assign({}, options, {format: 'svg', scale: 1});
        try { camera.dispatchEvent(new MouseEvent('click', {bubbles: true})); }
        finally { gd._context.toImageButtonOptions = options; }
      });
      camera.after(button);
    }
    button.setAttribute('data-title', window.__ropeSvgTitle);
    button.setAttribute('aria-label', window.__ropeSvgTitle);
  };
  let queued = false;
  const scan = () => {
    queued = false;
    document.querySelectorAll('.js-plotly-plot .modebar').forEach(add);
  };
  new MutationObserver(() => { if (!queued) { queued = true; requestAnimationFrame(scan); } })
    .observe(document.body, {childList: true, subtree: true});
  scan();
})();"""


@functools.lru_cache(maxsize=4)
def export_script(lang: str) -> str:
    """:data:`EXPORT_SCRIPT` with its tooltip in ``lang`` (the run's language)."""
    with i18n.speaking(lang):
        title = json.dumps(_("Download plot as SVG"), ensure_ascii=False)
    return EXPORT_SCRIPT.replace("TITLE", title.replace("</", "<\\/"))


FIGURE_ENTRIES = 32  # figures kept per builder function (least recently used goes)


TITLE_CHARS = 42  # a title line that fits a phone (390 px) and a half-width plot at 800 px
_TAG = re.compile(r"<[^>]+>")
# A Chinese character is about as wide as two Latin letters, and a line may
# break before or after it: each is a word of its own, of width 2.
_WIDE = "⺀-鿿豈-﫿＀-￯"
_WORDS = re.compile(rf"<[^>]+>|[{_WIDE}]|[^\s{_WIDE}<]+|\s+")


# Punctuation that may not start a line (it stays with the word before it).
_NO_START = set("）)]}」』】》〉，,。.：:；;、！!？?%")


def text_width(text: str) -> int:
    """Width of visible text in Latin-letter units (a Chinese character counts 2)."""
    visible = _TAG.sub("", text)
    return len(visible) + len(re.findall(f"[{_WIDE}]", visible))


def wrap_title(text: str, width: int = TITLE_CHARS) -> str:
    """``text`` with ``<br>`` between words (or between Chinese characters) so that
    no line is wider than ``width`` Latin letters (Plotly never wraps a title and
    the SVG clips it)."""
    out = []
    for line in text.split("<br>"):
        current = ""
        for token in _WORDS.findall(line):
            if token.isspace():
                current += " " if current else ""
                continue
            candidate = current + token
            if current.strip() and text_width(candidate) > width and token[0] not in _NO_START:
                out.append(current.rstrip())
                current = token
            else:
                current = candidate
        out.append(current.rstrip())
    return "<br>".join(out)


def title_lines(text: str) -> int:
    return text.count("<br>") + 1


# The mode bar (above) is drawn 2 to 28 px under the top of the chart, across its right
# side: on a phone that is most of a title's width, and a title there was covered. Every
# figure keeps that strip free: its title starts under it, its top margin and its height
# grow by MODE_BAR_PX, and the plot keeps its size.
MODE_BAR_PX = 20
TITLE_TOP = 30  # px from the top of the chart to the top of its title: under the mode bar
TITLE_SIZE = 16  # px, the size Streamlit's theme gives a chart title, set here to place it


def title_pad(title: str, size: float = TITLE_SIZE) -> int:
    """The ``title.pad.t`` that puts the top of a title of ``size`` px at :data:`TITLE_TOP`:
    Plotly sets a title of one line by its cap height (its letters rise 0.3 em above
    the point it is given) and a title of several lines by its first line's baseline (1 em
    under its top), as measured in Chromium."""
    return TITLE_TOP + math.ceil(size * (1.0 if title_lines(title) > 1 else 0.3))


def top_margin(title: str) -> int:
    """Room above the plot for a title of this many lines, under the mode bar."""
    return max(60, 34 + 24 * title_lines(title)) + MODE_BAR_PX


LEGEND_MARGIN = 110  # px under the plot: tick labels, the x-axis title, one legend row


def _copied(node: Any) -> Any:
    """A copy of a layout's nested dicts and lists (what :func:`relayout` merges may be
    shared by the caller, or merged into several axes); anything else, immutable or
    never changed after it is written (strings, numbers, tuples, arrays), is shared.
    ``copy.deepcopy`` made the same copies at five times the cost (its memo and
    dispatch), about 0.7 ms a run."""
    if isinstance(node, dict):
        return {k: _copied(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copied(v) for v in node]
    return node


def _merge(into: dict, update: dict) -> None:
    """Deep-merge ``update`` into ``into`` (nested dicts merged, other values replaced),
    as Plotly's ``update`` does."""
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


_AXIS_KEY = re.compile(r"[xy]axis[0-9]*")


def relayout(fig: go.Figure, layout: dict | None = None, *, xaxes: dict | None = None,
             yaxes: dict | None = None, annotations: dict | None = None) -> go.Figure:
    """``fig.update_layout(layout)``, then ``fig.update_xaxes(xaxes)``,
    ``fig.update_yaxes(yaxes)`` (every x or y axis of the figure, all its subplots)
    and ``fig.update_annotations(annotations)`` (every annotation), without
    Plotly's per-property path parsing, validation and relayout machinery: that
    cost about 15 ms per figure in :func:`style` (4 to 8 ms per ``update_*``
    call), more than the rest of a typical figure. Nothing is validated, so
    ``layout`` and the dicts must be written as Plotly writes them in
    ``fig.to_dict()``: nested dicts (``title=dict(text=...)``, never the
    ``title_text`` shorthand), valid property names and values. tests/test_ui.py
    checks it against the validated path. Later ``fig.update_*`` calls work as
    usual (Plotly keeps the figure's layout as this very dict and reads it back on
    every access)."""
    props = fig._layout  # Plotly's own store of the figure's layout (plotly 7.1, pinned)
    _merge(props, _copied(layout or {}))
    for letter, update in (("x", xaxes), ("y", yaxes)):
        if update is None:
            continue
        keys = [k for k in props if _AXIS_KEY.fullmatch(k) and k[0] == letter] or \
            [f"{letter}axis"]
        for key in keys:
            props.setdefault(key, {})
            _merge(props[key], _copied(update))
    for note in props.get("annotations", ()) if annotations else ():
        _merge(note, _copied(annotations))
    return fig


class _Captured:
    """Stands in for the figure make_subplots fills: keeps the layout it computes (a
    go.Figure would validate it again, about 9 ms a figure)."""

    def update_layout(self, layout) -> None:
        self.layout = layout


def style(fig: go.Figure, *, title: str, x: str, y: str, height: int = 440) -> go.Figure:
    """Titled axes with units, readable high-contrast fonts, legend below the plot.
    A long title is wrapped onto lines that fit a phone, under the strip the mode bar
    takes: the figure is ``height`` plus :data:`MODE_BAR_PX` tall."""
    title = wrap_title(title)
    layout = dict(title=dict(text=title, x=0, xanchor="left", y=1, yref="container",
                             yanchor="top", pad=dict(t=title_pad(title)),
                             font=dict(size=TITLE_SIZE)),
                  font=dict(FONT), height=height + MODE_BAR_PX,
                  margin=dict(l=70, r=20, t=top_margin(title), b=LEGEND_MARGIN),
                  # at the bottom of the figure, under the x-axis title, never on it
                  legend=dict(orientation="h", yref="container", yanchor="bottom", y=0,
                              xanchor="left", x=0),
                  hoverlabel=dict(font=dict(size=13)))
    axis = dict(showline=True, linecolor=AXIS_LINE, tickcolor=AXIS_LINE, mirror=False,
                automargin=True, tickfont=dict(color=TEXT))
    return relayout(fig, layout,
                              xaxes=dict(axis, title=dict(text=x, font=dict(color=TEXT))),
                              yaxes=dict(axis, title=dict(text=y, font=dict(color=TEXT))))


def style_validated(fig: go.Figure, *, title: str, x: str, y: str,
                    height: int = 440) -> go.Figure:
    """:func:`style` through Plotly's validated ``update_*`` calls: the reference
    that tests/test_ui.py compares :func:`style` with."""
    title = wrap_title(title)
    fig.update_layout(title=dict(text=title, x=0, xanchor="left", y=1, yref="container",
                                 yanchor="top", pad=dict(t=title_pad(title)),
                                 font=dict(size=TITLE_SIZE)),
                      font=FONT, height=height + MODE_BAR_PX,
                      margin=dict(l=70, r=20, t=top_margin(title), b=LEGEND_MARGIN),
                      legend=dict(orientation="h", yref="container", yanchor="bottom", y=0,
                                  xanchor="left", x=0),
                      hoverlabel=dict(font_size=13))
    axis = dict(showline=True, linecolor=AXIS_LINE, tickcolor=AXIS_LINE, mirror=False,
                automargin=True, tickfont=dict(color=TEXT), title_font=dict(color=TEXT))
    fig.update_xaxes(title_text=x, **axis)
    fig.update_yaxes(title_text=y, **axis)
    return fig


def square(fig: go.Figure, **axis) -> go.Figure:
    """Equal x and y scale (heatmaps of matrices, rotation planes), no padding."""
    if any("_" in key or isinstance(value, dict) for key, value in axis.items()):
        fig.update_xaxes(constrain="domain", **axis)  # shorthands: Plotly's own path
        fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain", **axis)
        return fig
    return relayout(fig, xaxes=dict(axis, constrain="domain"),
                    yaxes=dict(axis, scaleanchor="x", scaleratio=1, constrain="domain"))


# ------------------------------------------------------ built once, sent as is ----
_INTS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32)


def _narrowest(a: np.ndarray) -> np.ndarray | None:
    """A numeric array as the browser receives it: float64 as float32, then any float
    array whose values are all whole numbers (after that rounding; no NaN, no -0.0) and
    any integer array in the narrowest integer type that holds them (int8 before uint8,
    up to uint32), or None for integers beyond 32 bits. A whole float32 is exactly that
    integer, so the browser gets the very same numbers in a half to a quarter of the
    bytes (positions, distances, indices); a screen, hover label or axis cannot tell
    them apart."""
    if a.dtype == np.float64:
        a = a.astype(np.float32)
    if a.dtype.kind == "f":
        if not (np.isfinite(a).all() and (a == np.rint(a)).all()
                and not (np.signbit(a) & (a == 0)).any()):
            return a
    elif a.dtype.kind not in "iu":
        return a
    low, high = int(a.min()), int(a.max())  # exact: float32 would round int32's bounds
    return next((a.astype(t) for t in _INTS
                 if np.iinfo(t).min <= low and high <= np.iinfo(t).max),
                None if a.dtype.kind in "iu" and a.dtype.itemsize > 4 else a)


def _narrow(node: Any) -> Any:
    """Every typed array of a spec as :func:`_narrowest` sends it (a 64-bit integer
    array beyond 32 bits stays as it is)."""
    if isinstance(node, dict):
        if set(node) >= {"dtype", "bdata"}:
            values = np.frombuffer(base64.b64decode(node["bdata"]), dtype=node["dtype"])
            a = _narrowest(values) if values.size else None
            if a is None or a.dtype == values.dtype:
                return node
            return dict(node, dtype=a.dtype.str[1:],
                        bdata=base64.b64encode(a.astype(a.dtype.newbyteorder("<"),
                                                        copy=False).tobytes()).decode())
        return {k: _narrow(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_narrow(v) for v in node]
    return node


# Trace types that draw only with the colours they are given or the template's colour
# way; any other type (heatmap, contour, ...) may take a template's colour scale.
_PLAIN_TYPES = frozenset({"scatter", "scattergl", "bar"})
_SCALE_KEYS = ("colorscale", "coloraxis")


def _takes_colour_scale(trace: dict) -> bool:
    """Whether a trace may draw with the template's colour scales: any type but plain
    lines, markers and bars, or one of those coloured by numbers (a marker or line
    colour that is an array) or bound to a colour axis."""
    if trace.get("type", "scatter") not in _PLAIN_TYPES or "coloraxis" in trace:
        return True
    for part in ("marker", "line"):
        style = trace.get(part)
        if isinstance(style, dict) and (
                any(k in style for k in _SCALE_KEYS)
                or not isinstance(style.get("color", ""), str)
                or isinstance(style.get("line"), dict)
                and not isinstance(style["line"].get("color", ""), str)):
            return True
    return False


def lean_template(spec: dict) -> dict:
    """``spec`` with its template cut to what its traces can use, as Plotly.js applies
    it: ``template.data`` holds per trace type the defaults of traces of that type
    only, so the entries of types the figure has no trace of (in ``data`` or in any
    animation frame) go; and the template's colour scales (``layout.colorscale``,
    ``layout.coloraxis``) go when no trace can draw with one (:func:`_takes_colour_scale`)
    and the layout has no colour axis. The colour way and every entry in use stay, so
    the figure is drawn as before (Streamlit's frontend swaps the template's placeholder
    colours for its theme's and merges its own layout into ``template.layout``,
    whatever that holds); it saves about 3 kB on a line chart, a fifth of a typical
    figure's bytes. A spec without a template, or one already cut, is returned as it is."""
    layout = spec.get("layout")
    template = layout.get("template") if isinstance(layout, dict) else None
    if not isinstance(template, dict):
        return spec
    traces = [t for t in spec.get("data") or () if isinstance(t, dict)]
    for frame in spec.get("frames") or ():
        if isinstance(frame, dict):
            traces += [t for t in frame.get("data") or () if isinstance(t, dict)]
    types = {t.get("type", "scatter") for t in traces}
    lean = dict(template)
    if isinstance(template.get("data"), dict):
        lean["data"] = {k: v for k, v in template["data"].items() if k in types}
    scales = any(map(_takes_colour_scale, traces)) or any(
        k.startswith("coloraxis") for k in layout)
    if isinstance(template.get("layout"), dict) and not scales:
        lean["layout"] = {k: v for k, v in template["layout"].items()
                          if k not in _SCALE_KEYS}
    if lean == template:
        return spec
    return {**spec, "layout": {**layout, "template": lean}}


class _Spec(dict):
    """A Frozen figure's spec, carrying the figure's JSON once it is written.
    ``st.plotly_chart`` hands ``plotly.io.to_json`` the dict that ``to_dict()``
    returned, not the figure, so the JSON has to travel with the dict for
    :func:`_to_json` to find it."""

    __slots__ = ("json",)


class Frozen(BaseFigure):
    """A figure in the JSON-ready form Streamlit sends: ``st.plotly_chart`` asks
    a Plotly figure only for ``to_dict()``, which here returns the kept spec
    (no copy, no validation), and then encodes that dict (``plotly.io.to_json``),
    which for a Frozen figure's spec is the JSON written once and kept
    (:func:`_to_json`). Read-only; build a new one to change it."""

    def __init__(self, spec: dict) -> None:  # noqa: D107
        self._spec = _Spec(lean_template(spec))  # (BaseFigure's init is skipped)
        self._spec.json = None

    @property
    def json(self) -> str:
        """The JSON Streamlit sends, exactly as ``plotly.io.to_json(fig,
        validate=False)`` writes it, computed on first use."""
        return _kept_json(self._spec)

    @property
    def nbytes(self) -> int:
        """About the memory the figure holds: its spec and its JSON, each about
        as long as the JSON."""
        return 2 * len(self.json)

    def to_dict(self) -> dict:
        return self._spec

    @property
    def spec(self) -> dict:
        return self._spec

    def __reduce__(self):  # pickled by value, e.g. by st.cache_data
        return (Frozen, (dict(self._spec),))


# Plotly encodes with orjson (requirements.txt) instead of its standard-library encoder:
# about a quarter of the CPU per figure (0.05 ms against 0.22 for the rotation
# animation), the same JSON values (every figure of every page compared), and text
# sent as UTF-8 rather than as \u escapes. Set, not left to "auto", so that a host
# without orjson fails at start-up instead of running slower.
pio.json.config.default_engine = "orjson"
_plotly_to_json = pio.to_json


def _to_json(fig, *args, **kwargs) -> str:
    """``plotly.io.to_json``, which ``st.plotly_chart`` calls on every run with
    the dict the figure's ``to_dict()`` gave: for a Frozen figure (or its spec)
    the JSON written once and kept, so a cached figure costs no encoding on later
    runs (about 0.1 ms a page, 0.3 ms on Sinusoidal). Any other call goes to
    Plotly's own function."""
    if isinstance(fig, Frozen):
        fig = fig.spec
    if isinstance(fig, _Spec) and not args and set(kwargs) <= {"validate"}:
        return _kept_json(fig)
    return _plotly_to_json(fig, *args, **kwargs)


def _kept_json(spec: _Spec) -> str:
    """A Frozen figure's JSON, written by Plotly's encoder on first use and kept."""
    if spec.json is None:
        spec.json = _plotly_to_json(spec, validate=False)  # a race only writes it twice
    return spec.json


pio.to_json = _to_json  # st.plotly_chart looks it up as plotly.io.to_json on each call


def freeze(fig: go.Figure | Frozen) -> Frozen:
    """The figure as Streamlit will send it, computed once. A builder may return a
    Frozen figure itself (a spec it completed with plain dicts, e.g. animation
    frames, which Plotly would otherwise validate one property at a time)."""
    if isinstance(fig, Frozen):
        return fig
    return Frozen(_narrow(json.loads(_plotly_to_json(fig, validate=False))))


def typed(values) -> dict | list:
    """A numeric array as Plotly.js's typed array, exactly as :func:`freeze` writes
    it for a validated figure (Plotly's ``to_typed_array_spec``, then
    :func:`_narrowest`), without Plotly's checks (about 50 µs a call): float64 as
    float32, whole numbers and integers in the narrowest integer type that holds them
    (64-bit integers as a list beyond 32 bits), base64 little-endian, a matrix with its
    ``shape`` (e.g. a heatmap's z); an empty or non-numeric array as a list."""
    a = np.asarray(values)
    if a.size == 0 or a.dtype.kind not in "iuf":
        return a.tolist()
    a = _narrowest(a)
    if a is None:
        return np.asarray(values).tolist()
    a = a.astype(a.dtype.newbyteorder("<"), copy=False)
    out = {"dtype": a.dtype.str[1:], "bdata": base64.b64encode(a.tobytes()).decode("ascii")}
    if a.ndim > 1:
        out["shape"] = ", ".join(map(str, a.shape))
    return out


def hline(y: float, color: str) -> dict:
    """A dotted line across the plot at height y (the shape fig.add_hline writes)."""
    return dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=y, y1=y,
                line=dict(color=color, dash="dot"))


def vline(x: float, color: str) -> dict:
    """A dotted line up the plot at x (the shape fig.add_vline writes)."""
    return dict(type="line", xref="x", x0=x, x1=x, yref="y domain", y0=0, y1=1,
                line=dict(color=color, dash="dot"))


def at(value: float, log: bool) -> float:
    """Where an annotation at data value ``value`` goes: Plotly places annotations on a
    log axis in log10 units (shapes take data units), so 2π is 0.798 there, not 6.28."""
    return math.log10(value) if log else value


def hline_note(y: float, text: str, *, log: bool = False, above: bool = True,
               end: str = "right", **extra) -> dict:
    """The label of :func:`hline` (or any line across the plot at height y), at one
    ``end`` of the plot ("right" or "left": where the data leave room), just above the
    line (``above``) or just below; ``log`` when the y axis is logarithmic (see :func:`at`)."""
    return dict(dict(showarrow=False, text=text, x=1 if end == "right" else 0, xanchor=end,
                     xref="x domain", y=at(y, log), yanchor="bottom" if above else "top",
                     yref="y", bgcolor="rgba(255,255,255,0.85)"), **extra)


LOG_AXIS = dict(type="log", exponentformat="power")
OCTAVES = (1 / 64, 16)  # ratios near 1 (θ′/θ, 1/s ... 1) get powers of 2 as ticks


def log_axis(values=None) -> dict:
    """A log axis. Over less than a decade Plotly labels its ticks with bare digits
    ("1, 9, 8 … 2" meaning 0.9 … 0.2); there the ticks are given explicitly, written as
    full decimal numbers: powers of 2 (1, 0.5, 0.25, 0.125) for ratios near 1, else
    1-2-5 steps (1, 2, 5 × 10^k), finer ones (1 … 9 × 10^k) where those give fewer
    than three. ``values``: the data on the axis (any array-like; non-positive ignored)."""
    if values is None:
        return dict(LOG_AXIS)
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return dict(LOG_AXIS)
    lo, hi = float(v.min()), float(v.max())
    if hi >= 10 * lo:
        return dict(LOG_AXIS)
    # the plot pads the data a little: ticks a bit past either end may show
    low, high = lo / 1.05, hi * 1.05
    decades = range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
    candidates = [[m * 10.0 ** e for e in decades for m in mantissas]
                  for mantissas in ((1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9))]
    if OCTAVES[0] <= lo and hi <= OCTAVES[1]:
        candidates.insert(0, [2.0 ** e for e in range(math.floor(math.log2(low)),
                                                      math.ceil(math.log2(high)) + 1)])
    # a range narrower than 1 … 9 × 10^k steps: four ticks, two significant digits
    candidates.append([float(f"{t:.2g}") for t in np.geomspace(lo, hi, 4)])
    ticks = []
    for ticks in candidates:
        ticks = sorted({float(f"{t:.6g}") for t in ticks if low <= t <= high})
        if len(ticks) >= 3:
            break
    return dict(type="log", tickvals=ticks, ticktext=[tick_text(t) for t in ticks])


def tick_text(value: float) -> str:
    """A tick's label as a full decimal number in the run's language: 0.125, 2,000,000."""
    digits = max(0, -math.floor(math.log10(value)) + 3)  # 2^-6 = 0.015625
    return i18n.number(float(f"{value:.6g}"), "#,##0." + "#" * digits if digits else "#,##0")


class _LayoutOnly:
    """Stands in for an empty ``go.Figure`` in :func:`relayout` and :func:`style`,
    which write only its layout dict (building a go.Figure copies Plotly's default
    template, and freezing it encodes that template again: about 1.5 ms a figure)."""

    def __init__(self, layout: dict | None = None) -> None:
        self._layout: dict = layout if layout is not None else {}


def sketch(**grid) -> _LayoutOnly:
    """An empty figure's layout for :func:`style`, :func:`relayout` and :func:`kept`.
    With ``grid`` (``rows``, ``cols`` and the other arguments of
    ``plotly.subplots.make_subplots``), the layout make_subplots writes: axis domains
    and anchors, subplot titles as annotations. A trace then names its cell's axes
    itself, as ``add_trace(row=, col=)`` writes them: ``"xaxis": "x2", "yaxis": "y2"``
    for the second cell (numbered row by row), ``"x"``/``"y"`` for the first.
    make_subplots (1-3 ms) runs once per grid: where a title goes does not depend on
    its text, so the titles are written into a copy of the grid's layout."""
    if not grid:
        return _LayoutOnly()
    titles = grid.pop("subplot_titles", None)
    key = tuple(sorted(grid.items()))
    try:
        hash(key)
    except TypeError:  # a list among the arguments (specs, row_heights): no cache
        key = None
    # an empty title has no annotation in make_subplots' layout: titles and annotations
    # would no longer pair up in order, so such a grid is laid out afresh too
    if key is None or titles is not None and not all(isinstance(t, str) and t
                                                     for t in titles):
        captured = _Captured()
        make_subplots(figure=captured, subplot_titles=titles, **grid)
        return _LayoutOnly(captured.layout.to_plotly_json())  # (a deep copy)
    layout = _copied(_grid_layout(key, None if titles is None else len(titles)))
    for note, title in zip(layout.get("annotations", ()), titles or ()):
        note["text"] = title
    return _LayoutOnly(layout)


@functools.lru_cache(maxsize=32)
def _grid_layout(grid: tuple, titles: int | None) -> dict:
    """make_subplots' layout for the arguments ``grid`` (sorted (name, value) pairs),
    with ``titles`` placeholder subplot titles (in order: their annotations follow
    them). Read-only: :func:`sketch` copies it."""
    captured = _Captured()
    make_subplots(figure=captured, **dict(grid),
                  **({} if titles is None else {"subplot_titles": [f"{i}" for i in
                                                               range(1, titles + 1)]}))
    return captured.layout.to_plotly_json()


def kept(traces: list[dict], fig: _LayoutOnly, *, shapes: tuple = (),
         annotations: tuple = ()) -> Frozen:
    """The kept form of ``traces`` on the layout of ``fig`` (:func:`sketch`, styled),
    built directly: Plotly validating each trace property by property is most of a
    line chart's CPU. Traces are dicts as ``fig.to_dict()`` writes them; their x and
    y may be numpy arrays or pandas columns (sent as :func:`typed` arrays) or lists
    (sent as they are); any other array goes through :func:`typed` in the builder.
    ``shapes`` (:func:`hline`, :func:`vline`) and ``annotations`` are added to the
    layout."""
    spec = {"data": [{k: typed(v) if k in ("x", "y") and not isinstance(v, list | dict) else v
                      for k, v in t.items()} for t in traces],
            "layout": {**fig._layout, "template": default_template()}}
    if shapes:
        spec["layout"]["shapes"] = list(shapes)
    if annotations:
        spec["layout"]["annotations"] = list(annotations)
    return Frozen(spec)


@functools.cache
def colorscale(name: str) -> list:
    """A named Plotly colour scale ("Cividis") as Plotly writes it in a validated
    figure, ``[[0.0, "#00224e"], ..., [1.0, "#fee838"]]``, for a kept figure's trace
    (read-only: shared by every figure that uses it)."""
    return json.loads(_plotly_to_json(go.Figure(go.Heatmap(colorscale=name)),
                                      validate=False))["data"][0]["colorscale"]


@functools.cache
def default_template() -> dict:
    """Plotly's default template as a kept figure carries it: written once per
    process and shared, read-only, by every kept figure (:func:`present_spec`
    and :func:`lean_template` build new dicts and never change it)."""
    return _narrow(json.loads(_plotly_to_json(go.Figure(), validate=False)))["layout"]["template"]


def kept_figure(traces: list[dict], *, title: str, x: str, y: str, height: int,
                xaxes: dict | None = None, yaxes: dict | None = None,
                layout: dict | None = None, shapes: tuple = (),
                annotations: tuple = ()) -> Frozen:
    """A styled figure of ``traces`` in the kept form (:func:`kept`). ``layout``,
    ``xaxes`` and ``yaxes`` as in :func:`relayout`, applied before :func:`style`
    (which wins where both set a property); ``shapes`` and ``annotations`` as in
    :func:`kept`."""
    fig = style(relayout(sketch(), layout, xaxes=xaxes, yaxes=yaxes),
                title=title, x=x, y=y, height=height)
    return kept(traces, fig, shapes=shapes, annotations=annotations)


def figure(fn: Callable | None = None, *, max_entries: int = FIGURE_ENTRIES):
    """Cache a figure builder (a function of plain numbers, strings and tuples
    returning a ``go.Figure``) for every visitor, as a :class:`Frozen` figure,
    at most ``max_entries`` per builder and :data:`ui.cache.FIGURE_BYTES` in all.

    The figure's words are in the run's language (the builder calls ``_``), so
    the language is part of the cache key: one figure per setting and language."""
    def wrap(f: Callable) -> Callable:
        # pages all run as __main__: the builder's file tells builders apart
        name = f"{f.__module__}:{f.__code__.co_filename}.{f.__qualname__}"

        @functools.wraps(f)
        def in_language(*args, **kwargs) -> Frozen:
            return cache.FIGURES.get(name, (i18n.lang(), cache.key_of(args, kwargs)),
                                     lambda: freeze(f(*args, **kwargs)), max_entries)
        in_language.clear = lambda: cache.FIGURES.clear(name)
        return in_language
    return wrap(fn) if fn is not None else wrap


def at_frame(fig: Frozen, index: int) -> Frozen:
    """An animated kept figure as it stands at frame ``index``: the traces and the
    layout that the frame changes, merged in as Plotly's animation would, and the
    animation slider set to it (▶ Play then runs on from the first frame, as before).
    Frame 0 is the figure as built (a builder draws its first frame), returned as it
    is; any other is a new spec that shares the unchanged parts. This gives keyboard
    users the frames: Plotly's own Play button and slider are drawn in SVG, out of
    reach of the Tab key, while a Streamlit slider that picks ``index`` is not."""
    frames = fig.spec.get("frames") or []
    if not 0 <= index < len(frames):
        raise ValueError(f"frame index {index} is not allowed: the figure has frames 0 to "
                         f"{len(frames) - 1}")
    if index == 0:
        return fig
    frame = frames[index]
    data = list(fig.spec["data"])
    for position, update in zip(frame.get("traces", range(len(frame["data"]))), frame["data"]):
        data[position] = {**data[position], **update}
    layout = dict(fig.spec["layout"])
    for key, value in (frame.get("layout") or {}).items():
        layout[key] = ({**layout[key], **value} if isinstance(value, dict)
                       and isinstance(layout.get(key), dict) else value)
    if layout.get("sliders"):
        layout["sliders"] = [{**layout["sliders"][0], "active": index}, *layout["sliders"][1:]]
    return Frozen({**fig.spec, "data": data, "layout": layout})


# ------------------------------------------------------------ presentation ----
# Presentation mode (?present=true) is a transform of the kept form, never a
# setting of the builders: a Frozen figure is shared by every visitor, so the
# projector's copy is a new spec, made once per Frozen and kept on it.
FONT_SCALE = 1.5    # every font size
LINE_SCALE = 1.6    # line widths and marker sizes of scatter traces
HEIGHT_SCALE = 1.25
PRESENT_AXIS_LINE = "#24292f"  # axis lines and ticks, 14.7:1 on white
PRESENT_GRID = "#c9d1d9"
_PLOTLY_FONT = 12   # Plotly's default font size, for specs that set none
_SCATTER = {"scatter", "scattergl", "scatterpolar", "scatter3d"}


def _scaled(value, factor: float):
    return round(value * factor, 2) if isinstance(value, (int, float)) and \
        not isinstance(value, bool) else value


def _font(font: dict | None, factor: float = FONT_SCALE, **extra) -> dict:
    out = dict(font or {})
    if "size" in out:
        out["size"] = _scaled(out["size"], factor)
    out.update(extra)
    return out


def _sized(font: dict | None, default: float, **extra) -> dict:
    """A font scaled when it has a size, else given ``default`` (Streamlit's theme
    sets tick, legend and title sizes of its own, which a bigger layout font
    would not change)."""
    out = _font(font, **extra)
    out.setdefault("size", round(default, 2))
    return out


def _present_axis(axis: dict, base: float) -> dict:
    out = dict(axis)
    out["tickfont"] = _sized(axis.get("tickfont"), 0.9 * base, color=TEXT)
    title = axis.get("title")
    if isinstance(title, dict):
        out["title"] = dict(title, font=_sized(title.get("font"), base, color=TEXT))
    out.update(linecolor=PRESENT_AXIS_LINE, tickcolor=PRESENT_AXIS_LINE,
               linewidth=_scaled(axis.get("linewidth", 1), 2), automargin=True)
    if axis.get("showgrid", True):
        out["gridcolor"] = PRESENT_GRID
    return out


def _base_size(layout: dict) -> float:
    """The presentation layout font size for a figure's layout."""
    return _scaled((layout.get("font") or {}).get("size", _PLOTLY_FONT), FONT_SCALE)


_INLINE_SIZE = re.compile(r"font-size:\s*([0-9.]+)px")


def _present_text(text):
    """A title's text with its inline font sizes (``<span style='font-size:15px'>``, the
    smaller lines of Rotation's title) scaled as every font."""
    if not isinstance(text, str) or "font-size" not in text:
        return text
    return _INLINE_SIZE.sub(lambda m: f"font-size:{_scaled(float(m.group(1)), FONT_SCALE):g}px",
                            text)


def _present_layout(layout: dict, *, whole: bool, base: float | None = None,
                    title_size: float | None = None) -> dict:
    """Bigger fonts and darker axes; ``whole`` is False for a frame's partial layout
    (only what it sets is changed there, with the figure's ``base`` font size and its
    title's ``title_size``)."""
    out = dict(layout)
    font = dict(layout.get("font") or {})
    base = base or _base_size(layout)
    if whole or "font" in layout:
        out["font"] = dict(font, size=base)
    if whole or isinstance(layout.get("title"), dict):
        title = layout.get("title") or {}
        out["title"] = dict(title, font=_sized(title.get("font"), title_size or 1.15 * base))
        if "text" in title:
            out["title"]["text"] = _present_text(title["text"])
        if isinstance(title.get("pad"), dict) and "t" in title["pad"]:  # still under the mode bar
            out["title"]["pad"] = dict(title["pad"], t=title_pad(
                title.get("text") or "", out["title"]["font"]["size"]))
    if whole or isinstance(layout.get("legend"), dict):
        legend = layout.get("legend") or {}
        out["legend"] = dict(legend, font=_sized(legend.get("font"), 0.9 * base))
    if isinstance(layout.get("hoverlabel"), dict):
        out["hoverlabel"] = dict(layout["hoverlabel"], font=_font(layout["hoverlabel"].get("font")))
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(value, dict):
            out[key] = _present_axis(value, base)
        elif key.startswith("coloraxis") and isinstance(value, dict) and "colorbar" in value:
            out[key] = dict(value, colorbar=_present_colorbar(value["colorbar"], base))
    for key in ("annotations", "sliders", "updatemenus"):
        if isinstance(layout.get(key), list):
            out[key] = [_present_item(item) for item in layout[key]]
    if whole and isinstance(layout.get("height"), (int, float)):
        out["height"] = int(layout["height"] * HEIGHT_SCALE)
    if whole and isinstance(layout.get("margin"), dict):
        out["margin"] = {k: _scaled(v, 1.3) if k in ("l", "t", "b") else v
                         for k, v in layout["margin"].items()}
    return out


def _present_colorbar(bar: dict, base: float = FONT["size"] * FONT_SCALE) -> dict:
    out = dict(bar, tickfont=_sized(bar.get("tickfont"), 0.9 * base, color=TEXT))
    if isinstance(bar.get("title"), dict) and "font" in bar["title"]:
        out["title"] = dict(bar["title"], font=_font(bar["title"]["font"]))
    return out


def _present_item(item):
    """An annotation, slider or menu: its fonts scaled."""
    if not isinstance(item, dict):
        return item
    out = dict(item)
    for key in ("font", "textfont"):
        if isinstance(item.get(key), dict):
            out[key] = _font(item[key])
    if isinstance(item.get("currentvalue"), dict) and "font" in item["currentvalue"]:
        out["currentvalue"] = dict(item["currentvalue"], font=_font(item["currentvalue"]["font"]))
    return out


def _present_trace(trace: dict) -> dict:
    out = dict(trace)
    if trace.get("type", "scatter") in _SCATTER:
        line = dict(trace.get("line") or {})
        line["width"] = _scaled(line.get("width", 2), LINE_SCALE)
        out["line"] = line
        marker = dict(trace.get("marker") or {})
        size = marker.get("size", 6)
        if isinstance(size, list):
            marker["size"] = [_scaled(v, LINE_SCALE) for v in size]
        elif not isinstance(size, dict):  # a typed array of sizes stays as it is
            marker["size"] = _scaled(size, LINE_SCALE)
        if isinstance(marker.get("line"), dict) and "width" in marker["line"]:
            marker["line"] = dict(marker["line"], width=_scaled(marker["line"]["width"],
                                                                LINE_SCALE))
        out["marker"] = marker
    if isinstance(trace.get("textfont"), dict):
        out["textfont"] = _font(trace["textfont"])
    if isinstance(trace.get("colorbar"), dict):
        out["colorbar"] = _present_colorbar(trace["colorbar"])
    return out


def present_spec(spec: dict) -> dict:
    """The projector's form of a figure's spec: a new dict (the data arrays are
    shared, never copied or changed); ``spec`` itself is left untouched."""
    out = dict(spec)
    out["data"] = [_present_trace(t) for t in spec.get("data", [])]
    layout = spec.get("layout") or {}
    out["layout"] = _present_layout(layout, whole=True)
    if isinstance(spec.get("frames"), list):
        out["frames"] = [
            dict(frame, **({"data": [_present_trace(t) for t in frame["data"]]}
                           if isinstance(frame.get("data"), list) else {}),
                 **({"layout": _present_layout(
                     frame["layout"], whole=False, base=_base_size(layout),
                     title_size=out["layout"]["title"]["font"]["size"])}
                    if isinstance(frame.get("layout"), dict) else {}))
            for frame in spec["frames"]]
    return out


def presented(fig: go.Figure | Frozen) -> Frozen:
    """``fig`` for a projector. For a Frozen figure, made once and kept on it, so
    later runs pay nothing; a figure built per run is converted each time."""
    if not isinstance(fig, Frozen):
        return Frozen(present_spec(freeze(fig).spec))
    kept = getattr(fig, "_presented", None)
    if kept is None:
        kept = Frozen(present_spec(fig.spec))
        object.__setattr__(fig, "_presented", kept)  # a race only makes it twice
    return kept


def presenting() -> bool:
    """True when this run's settings ask for presentation mode."""
    from .sidebar import current

    settings_ = current()
    return bool(settings_ is not None and settings_.present)


def alt_text(alt: str, table: str | None = None) -> str:
    """The text alternative of a chart: ``alt`` (what it shows), then, when the page
    offers the table of its values (``table``: the label given to :func:`ui.download`),
    where to find them. ``alt`` must say something: a chart without a text
    alternative is a blank to a screen reader."""
    text = alt.strip() if isinstance(alt, str) else ""
    if not text:
        raise ValueError(f"ui.show: alt = {alt!r} is not allowed: a sentence saying what the "
                         "chart shows is required")
    if table:
        values = _("Its values: the {table} below (“Show the {table}”, or download it as "
                   "CSV).").format(table=table)
        text += ("" if i18n.lang() == "zh" else " ") + values
    return text


def show(fig: go.Figure | Frozen, key: str | None = None, *, alt: str,
         table: str | None = None) -> None:
    """Draw a figure across the full width of its column (for a projector in
    presentation mode), with its text alternative (:func:`alt_text`): Streamlit
    writes it as the chart's accessible name (role "figure", aria-label), which a
    screen reader announces with the chart. ``alt`` is required, and says what the
    chart shows; ``table`` names the table of its values shown below it."""
    text = alt_text(alt, table)
    record.note("figure", key, dict(figure=fig, alt=alt))
    if presenting():
        fig = presented(fig)
    st.plotly_chart(fig, width="stretch", key=key, config=plot_config(key), alt=text)


@functools.cache
def plot_config(key: str | None) -> dict:
    """:data:`PLOT_CONFIG`, the saved image named after the chart's key (read-only)."""
    name = "rope-explorer" + (f"-{key}" if key else "")
    return {**PLOT_CONFIG, "toImageButtonOptions": {**PLOT_CONFIG["toImageButtonOptions"],
                                                    "filename": name}}
