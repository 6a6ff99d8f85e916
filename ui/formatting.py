"""Formatting numbers for people, and the 'what to notice' text under a plot."""

from __future__ import annotations

import math

import streamlit as st

from . import record

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_base(base: float) -> str:
    """A RoPE base as a teacher writes it: below 10⁴ the number itself (10, 500, 2000),
    from 10⁴ on a power of ten with a mantissa of up to three significant digits (10⁴,
    5·10⁵, 1.5·10⁵, 10⁶), any other value as its digits (123456, 1234.5)."""
    if not math.isfinite(base) or base <= 0:
        return f"{base:g}"
    exponent = math.floor(math.log10(base) + 1e-12)
    if exponent >= 4:
        mantissa = base / 10**exponent
        for digits in range(3):  # 5, 1.5, 1.25
            m = round(mantissa, digits)
            if abs(mantissa - m) < 1e-9:
                sup = str(exponent).translate(_SUPERSCRIPT)
                return f"10{sup}" if m == 1 else f"{m:g}·10{sup}"
    return f"{base:.15g}"


def slug(value: float) -> str:
    """A number as it appears in file names: 10000, 500000, 0.5 -> 0p5."""
    return f"{value:g}".replace(".", "p").replace("+", "")


def explain(*sentences: str) -> None:
    """The 'what to notice' text under a plot (app-written Markdown only).
    Sentences are joined with a space in English and without one in Chinese,
    whose full stop carries its own space."""
    from .i18n import lang

    text = ("" if lang() == "zh" else " ").join(sentences)
    record.note("text", None, text)
    st.markdown(text)


def paragraphs(*texts: str) -> None:
    """Short paragraphs one after another as one Markdown element (app-written Markdown
    only): one message to the browser, each paragraph still its own for the eye, where
    :func:`explain` runs sentences into one paragraph. Empty ones are left out."""
    text = "\n\n".join(text for text in texts if text)
    record.note("text", None, text)
    st.markdown(text)


def intro(title: str, *texts: str) -> None:
    """A page's opening: its title, then its introduction as :func:`paragraphs` (the
    lesson's first words, also the take-home notebook's)."""
    st.title(title)
    paragraphs(*texts)


def display_formula(tex: str) -> str:
    """A display formula inside Markdown, written as ``st.latex`` writes its own
    (``$$`` on lines of their own; the same KaTeX): for a paragraph and its formulas as
    one element."""
    return f"$$\n{tex}\n$$"


def formulas(*lines: str) -> None:
    """Display formulas that follow one another (the steps of a derivation) as one
    Markdown element, one message to the browser where an ``st.latex`` per formula sends
    one each. Each is still its own display formula (:func:`display_formula`), so that
    one too wide for a phone breaks at its own relations and ``\\allowbreak``
    (ui/css.py), which a single multi-line formula could not."""
    st.markdown("\n\n".join(map(display_formula, lines)))


def bullets(lines) -> None:
    """Points a reader can take one at a time, as one Markdown list (app-written
    Markdown only); empty lines are left out."""
    text = "\n".join("- " + line for line in lines if line)
    record.note("text", None, text)
    st.markdown(text)


def row(container=None, **options):
    """Elements side by side (a row of metrics, a button and its toggle): one horizontal
    container, one message to the browser, where ``st.columns(n)`` sends n + 1 (the row
    and each column) on every run. Elements of width "stretch" share the row equally
    and wrap onto a new line when it is too narrow for them. ``options`` go to
    ``st.container`` (``vertical_alignment``, ``gap``)."""
    return (container or st).container(horizontal=True, **options)


def slow_pairs_in_low_precision() -> str:
    """The sentence that a pair which never turns within the context identifies every
    position in exact arithmetic only: Llama 3.1 8B's count of distinct bfloat16 (cos, sin)
    values (ui.constants.slow_pair_values), translated."""
    from . import constants
    from .i18n import _, integer

    v = constants.slow_pair_values()
    return _("In a real cache it need not: with transformers' recipe (angles formed in "
             "float32, cos and sin cast to bfloat16), each of {model}'s pairs {first}–{last}, "
             "which never turn within its {context} tokens, takes only {low} to {high} "
             "distinct (cos, sin) values over those {context} positions, not "
             "{context}.").format(model=v["model"], first=v["first"], last=v["last"],
                              context=integer(v["context"]), low=integer(v["low"]),
                              high=integer(v["high"]))
