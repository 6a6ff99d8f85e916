"""Formatting numbers for people, and the 'what to notice' text under a plot."""

from __future__ import annotations

import math

import streamlit as st

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_base(base: float) -> str:
    """10000 -> '10⁴', 500000 -> '5·10⁵', 1234.5 -> '1234.5'."""
    exponent = math.floor(math.log10(base) + 1e-12)
    mantissa = base / 10**exponent
    sup = str(exponent).translate(_SUPERSCRIPT)
    if abs(mantissa - round(mantissa)) < 1e-9:
        m = int(round(mantissa))
        return f"10{sup}" if m == 1 else f"{m}·10{sup}"
    return f"{base:g}"


def slug(value: float) -> str:
    """A number as it appears in file names: 10000, 500000, 0.5 -> 0p5."""
    return f"{value:g}".replace(".", "p").replace("+", "")


def explain(*sentences: str) -> None:
    """The 'what to notice' text under a plot (app-written Markdown only).
    Sentences are joined with a space in English and without one in Chinese,
    whose full stop carries its own space."""
    from .i18n import lang

    st.markdown(("" if lang() == "zh" else " ").join(sentences))
