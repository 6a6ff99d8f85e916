"""The glossary: one short definition per term a student meets, in the order of the
lesson, and the box that explains a page's own terms where the page uses them.

The terms are data, ui/glossary.toml, read and checked here once per process
(:data:`TERMS`, :data:`BY_KEY`). Every term has a key, which is its anchor on the Glossary
page (``glossary#theta``) and the name a page gives :func:`terms`. The names and the
definitions are catalog messages, translated when shown. The Glossary page
(pages/glossary.py) draws them all; a page calls ``ui.terms("theta", "wavelength", ...)``
under its introduction, which draws a closed expander "Terms on this page" with those
terms' definitions, each term's name a link to its entry in the glossary (opened in a new
tab, so that the lesson keeps its place).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from . import data_files
from .i18n import _, lang, ngettext
from .navigation import by_name


@dataclass(frozen=True)
class Term:
    key: str  # the anchor on the Glossary page and the name pages use: ASCII, no spaces
    name: str  # how the term is written (a catalog message)
    text: str  # its definition, app-written Markdown (a catalog message)
    page: str  # the page where it matters most: its navigation name (pages/<page>.py)
    section: str  # the glossary's section (a catalog message)
    short: str = ""  # a shorter name for the box's title, when ``name`` has several parts
    # (a catalog message)
    symbol: str = ""  # instead of ``short``: one shown as it is in both languages (θᵢ, Bₘ)


def _read() -> tuple[Term, ...]:
    """The terms of ui/glossary.toml, checked (:mod:`ui.data_files`): every key once, every
    page one of the navigation's, a short name or a symbol but not both."""
    terms = []
    for title, entries in data_files.sections("glossary.toml", "term"):
        for where, table in entries:
            term = data_files.record(Term, table, where, section=title)
            if term.short and term.symbol:
                raise data_files.DataFileError(f"{where}: short or symbol, not both")
            try:
                by_name(term.page)
            except KeyError:
                raise data_files.DataFileError(
                    f"{where}: page = {term.page!r} is no page of ui/pages.toml") from None
            terms.append(term)
    data_files.unique([term.key for term in terms], "key", "glossary.toml")
    return tuple(terms)


TERMS: tuple[Term, ...] = _read()  # in the order a student meets them; edit ui/glossary.toml
BY_KEY = {term.key: term for term in TERMS}


def link(key: str, label: str | None = None) -> str:
    """A Markdown link to the term's entry on the Glossary page, in this run's language.
    A relative address (``glossary?lang=en#theta``), so that it works under any path the
    app is served at; Streamlit opens it in a new tab, and the Glossary page scrolls to the
    term's heading, whose anchor is the key."""
    term = BY_KEY[key]
    return f"[{label or _(term.name)}](glossary?lang={lang()}#{term.key})"


SHOWN_NAMES = 6  # names in the box's title; more are counted
_BOXES: dict[tuple, tuple[str, str]] = {}  # (language, keys) -> (label, Markdown)


def _box(keys: tuple[str, ...]) -> tuple[str, str]:
    """The expander's label and its text for ``keys``, once per language."""
    found = _BOXES.get((lang(), keys))
    if found is None:
        unknown = [k for k in keys if k not in BY_KEY]
        if unknown:
            raise KeyError(f"no glossary term {unknown}")
        names = [BY_KEY[k].symbol or _(BY_KEY[k].short or BY_KEY[k].name) for k in keys]
        if len(names) > SHOWN_NAMES:  # a title a phone shows on two lines at most
            more = len(names) - SHOWN_NAMES + 1
            names = names[:SHOWN_NAMES - 1] + [
                ngettext("{n} more", "{n} more", more).format(n=more)]
        label = _("Terms on this page: {names}").format(names=" · ".join(names))
        text = "\n".join("- " + _("**{term}**: {definition}").format(
            term=link(k), definition=_(BY_KEY[k].text)) for k in keys)
        found = _BOXES[(lang(), keys)] = (label, text)
    return found


def terms(*keys: str) -> None:
    """A closed expander listing this page's terms with their definitions, each name a
    link to the glossary (placed where the page first uses them, under its
    introduction)."""
    label, text = _box(tuple(keys))
    with st.expander(label, icon=":material/menu_book:"):
        st.markdown(text)
