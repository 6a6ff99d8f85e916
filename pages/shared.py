"""UI pieces every page shares: URL-bound controls, sidebar settings, figure
style, the table + CSV section and error display. Written once, used by all."""

from __future__ import annotations

import io
import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

# ---------------------------------------------------------------- bounds ----
BASE_OPTIONS = [m * 10**e for e in range(1, 8) for m in (1, 2, 5)] + [10**8]  # 10 ... 10^8
BASE_QUICK_PICKS = {"10⁴ (RoFormer, LLaMA 2)": 10_000, "5·10⁵ (Llama 3)": 500_000,
                    "10⁶ (Qwen 2.5)": 1_000_000}
DIM_OPTIONS = list(range(2, 1025, 2))
DEVICE_OPTIONS = ["auto", "cpu", "cuda"]
LAYOUT_OPTIONS = ["interleaved", "half"]
DEFAULTS = {"base": 10_000, "dim": 128, "device": "auto", "layout": "interleaved"}

# Cache bounds: each wrapper keeps at most this many results (LRU).
CACHE_ENTRIES = 32


def cache(fn=None, *, max_entries: int = CACHE_ENTRIES):
    """st.cache_data with a bound, so a long-running demo cannot grow forever."""
    deco = st.cache_data(max_entries=max_entries, show_spinner=False)
    return deco(fn) if fn is not None else deco


def fmt_base(base: float) -> str:
    """10000 -> '10⁴', 500000 -> '5·10⁵'."""
    exponent = math.floor(math.log10(base) + 1e-12)
    mantissa = base / 10**exponent
    sup = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    if abs(mantissa - round(mantissa)) < 1e-9:
        m = int(round(mantissa))
        return f"10{sup}" if m == 1 else f"{m}·10{sup}"
    return f"{base:g}"


# ------------------------------------------------------ URL-bound widgets ----
def _warn_bad_url(key: str, ok: Callable[[str], bool], allowed: str, default) -> None:
    """Warn (once per page load) when ?key=... in the URL is not an allowed value.

    Streamlit ignores such values itself and the widget shows its default; this
    says so instead of failing silently.
    """
    raw = st.query_params.get_all(key)
    if raw and not all(ok(v) for v in raw):
        shown = raw[0] if len(raw) == 1 else raw
        st.warning(f"The link sets **{key}={shown!r}**, which is not allowed "
                   f"({allowed}); using the default **{default}** instead.", icon="⚠️")


def _int_in(low: int, high: int, step: int = 1) -> Callable[[str], bool]:
    def ok(v: str) -> bool:
        try:
            n = int(v)
        except ValueError:
            return False
        return low <= n <= high and (n - low) % step == 0
    return ok


def select_slider(label: str, options: Sequence, default, key: str, *, container=None,
                  fmt: Callable = str, allowed: str | None = None, **kwargs):
    """A select slider bound to ?key=..., the URL carrying ``fmt(option)``."""
    labels = {fmt(o) for o in options}
    _warn_bad_url(key, labels.__contains__,
                  allowed or f"one of {fmt(options[0])} … {fmt(options[-1])}", fmt(default))
    return (container or st).select_slider(label, options=options, value=default, key=key,
                                           format_func=fmt, bind="query-params", **kwargs)


def slider(label: str, low: int, high: int, default: int, key: str, *, step: int = 1,
           container=None, **kwargs) -> int:
    """An integer slider bound to ?key=..."""
    _warn_bad_url(key, _int_in(low, high, step), f"an integer from {low} to {high}", default)
    return (container or st).slider(label, min_value=low, max_value=high, value=default,
                                    step=step, key=key, bind="query-params", **kwargs)


def number(label: str, low: int, high: int, default: int, key: str, *, container=None,
           **kwargs) -> int:
    """An integer number box bound to ?key=..."""
    _warn_bad_url(key, _int_in(low, high), f"an integer from {low} to {high}", default)
    return (container or st).number_input(label, min_value=low, max_value=high, value=default,
                                          step=1, key=key, bind="query-params", **kwargs)


def choice(label: str, options: Sequence[str], default: str, key: str, *, container=None,
           horizontal: bool = True, fmt: Callable = str, **kwargs) -> str:
    """A radio choice bound to ?key=... (the URL carries ``fmt(option)``)."""
    labels = [fmt(o) for o in options]
    _warn_bad_url(key, set(labels).__contains__, "one of " + ", ".join(labels), fmt(default))
    return (container or st).radio(label, options, index=list(options).index(default), key=key,
                                   horizontal=horizontal, format_func=fmt, bind="query-params",
                                   **kwargs)


def toggle(label: str, default: bool, key: str, *, container=None, **kwargs) -> bool:
    """A toggle bound to ?key=true/false."""
    _warn_bad_url(key, {"true", "false"}.__contains__, "true or false", str(default).lower())
    return (container or st).toggle(label, value=default, key=key, bind="query-params", **kwargs)


def text(label: str, default: str, key: str, *, container=None, max_chars: int = 400,
         **kwargs) -> str:
    """A text box bound to ?key=... (the page validates the content)."""
    return (container or st).text_input(label, value=default, key=key, max_chars=max_chars,
                                        bind="query-params", **kwargs)


def multiselect(label: str, options: Sequence, default: Sequence, key: str, *,
                max_selections: int, container=None, fmt: Callable = str, **kwargs) -> list:
    """A multiselect bound to ?key=a&key=b, at most ``max_selections`` items."""
    labels = {fmt(o) for o in options}
    raw = st.query_params.get_all(key)
    if len(raw) > max_selections:
        st.warning(f"The link selects {len(raw)} values for **{key}**; at most "
                   f"{max_selections} are allowed, so the default is used.", icon="⚠️")
    else:
        _warn_bad_url(key, labels.__contains__, f"values among {', '.join(sorted(labels))}",
                      ", ".join(fmt(d) for d in default) or "none")
    return (container or st).multiselect(label, options, default=list(default), key=key,
                                         max_selections=max_selections, format_func=fmt,
                                         bind="query-params", **kwargs)


# ------------------------------------------------------- shared settings ----
@dataclass(frozen=True)
class Settings:
    base: float
    dim: int
    device: str  # "cpu" or "cuda", already resolved
    layout: str


def _set_base(value: int) -> None:
    st.session_state["base"] = value


def sidebar_settings() -> Settings:
    """The sidebar every page shares; values live in the URL and session."""
    import torch

    bar = st.sidebar
    bar.header("Settings")
    base = select_slider("RoPE base", BASE_OPTIONS, DEFAULTS["base"], "base", container=bar,
                         allowed="one of 10, 20, 50, 100, … 10^8 written as an integer",
                         help="θᵢ = base^(−2i/dim). Larger bases slow every pair but the first.")
    picks = bar.columns(len(BASE_QUICK_PICKS))
    for col, (name, value) in zip(picks, BASE_QUICK_PICKS.items()):
        col.button(fmt_base(value), key=f"pick_{value}", help=name, on_click=_set_base,
                   args=(value,), width="stretch",
                   )
    bar.caption(f"base = {base:,} = {fmt_base(base)}")
    dim = select_slider("Head dim d", DIM_OPTIONS, DEFAULTS["dim"], "dim", container=bar,
                        allowed="an even integer from 2 to 1024",
                        help="Even, 2 to 1024: d/2 rotation pairs.")
    layout = choice("Pair layout", LAYOUT_OPTIONS, DEFAULTS["layout"], "layout", container=bar,
                    help="interleaved: pairs (2i, 2i+1) as in RoFormer and Meta's LLaMA. "
                         "half: pairs (i, i+d/2) as in GPT-NeoX and Hugging Face.")
    device = choice("Compute device", DEVICE_OPTIONS, DEFAULTS["device"], "device",
                    container=bar)
    resolved = "cuda" if device != "cpu" and torch.cuda.is_available() else "cpu"
    if device == "cuda" and resolved == "cpu":
        bar.warning("No CUDA GPU on this server: computing on the CPU.")
    bar.caption(f"Computing on **{resolved}**.")
    return Settings(base=float(base), dim=int(dim), device=resolved, layout=layout)


def settings() -> Settings:
    """The settings drawn by app.py this run. Every page calls this first."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory or "_settings" not in st.session_state:
        # A fresh server sees the folder pages/ and may serve its very first
        # request in the legacy multipage mode, which runs this page file alone,
        # without app.py. app.py uses st.navigation; switch the legacy mode off
        # for the process and run again through app.py.
        PagesManager.uses_pages_directory = False
        st.rerun()
    return st.session_state["_settings"]


# ---------------------------------------------------------------- figures ----
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=14)
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"]


def style(fig: go.Figure, *, title: str, x: str, y: str, height: int = 440) -> go.Figure:
    """Common look: titled axes with units, readable fonts, legend on top."""
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
    st.plotly_chart(fig, width="stretch", key=key,
                    config={"displaylogo": False, "toImageButtonOptions": {"scale": 2}})


# ------------------------------------------------------ tables and CSVs ----
def csv_bytes(df: pd.DataFrame) -> bytes:
    """UTF-8 CSV with a header row; floats written to full round-trip precision."""
    buffer = io.StringIO()
    df.to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


def read_csv(data: bytes) -> pd.DataFrame:
    """How a CSV from this app is read back exactly."""
    return pd.read_csv(io.BytesIO(data))


def table_section(df: pd.DataFrame, filename: str, *, label: str = "table", key: str) -> None:
    """CSV download of ``df`` (generated on click) and an optional view of it."""
    left, right = st.columns([1, 2], vertical_alignment="center")
    left.download_button(f"⬇ Download {label} (CSV)", data=lambda: csv_bytes(df),
                         file_name=filename, mime="text/csv", on_click="ignore",
                         key=f"csv_{key}", icon=None,
                         help=f"{len(df):,} rows × {df.shape[1]} columns: {filename}")
    if right.toggle(f"Show the {label} ({len(df):,} rows)", key=f"show_{key}"):
        st.dataframe(df, hide_index=True, width="stretch", height=320)


def slug(value: float) -> str:
    """A number as it appears in file names: 10000, 500000, 0.5 -> 0p5."""
    return f"{value:g}".replace(".", "p").replace("+", "")


# ----------------------------------------------------------------- errors ----
@contextmanager
def friendly_errors():
    """Show rope_core's ValueError as st.error and stop this page's run only."""
    try:
        yield
    except ValueError as err:
        st.error(str(err), icon="🚫")
        st.stop()


def explain(*sentences: str) -> None:
    """The 'what to notice' text under a plot."""
    st.markdown(" ".join(sentences))
