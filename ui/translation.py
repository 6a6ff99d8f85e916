"""The app in English and Simplified Chinese: gettext catalogs, the language of
this run, and numbers written for it (the lowest UI module: it imports no other).

Pages and most of ui read these names from :mod:`ui.i18n`, which adds the
language switch (a widget, so above :mod:`ui.controls`) and Markdown-escaped
messages (above :mod:`ui.safety`); controls and safety import from here, so
every import in ui runs one way.

Every sentence a visitor reads goes through :func:`_` (or :func:`ngettext`
where English needs a plural): a whole sentence with named placeholders,
filled in *after* translation, so a translator may reorder it::

    st.caption(_("{n} pairs turn within {length} tokens.").format(n=..., length=...))

Text kept in module-level constants is marked with :func:`N_` (no translation
at import time) and translated where it is shown: ``_(spec.title)``. Errors from
rope_core carry their template (:class:`rope_core.Message`); :func:`message`
translates them (:func:`ui.i18n.markdown_message` also escapes their values). The
catalogs live in ``locale/`` and are managed with Babel (``python tools/i18n.py all``;
docs/translating.md). CSV column names stay
English on purpose: programs read them.

The language is the sidebar's switch (:func:`ui.controls.language_switch`), which sets
it at the start of every run.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
from pathlib import Path

import streamlit as st
from babel import Locale
from babel.numbers import NumberPattern, parse_pattern
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from rope_core import Message

LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
DOMAIN = "messages"
LANGUAGES = {"en": "English", "zh": "中文"}  # each language named in itself
DEFAULT_LANG = "en"
BABEL_LOCALES = {"en": "en_US", "zh": "zh_Hans_CN"}  # number formats
LANG_KEY = "lang"  # the widget key and the link's ?lang=


@functools.cache
def _catalog(lang: str) -> gettext.NullTranslations:
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()  # the messages are English
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])


_SPEAKING: contextvars.ContextVar[str | None] = contextvars.ContextVar("speaking", default=None)


@contextlib.contextmanager
def speaking(lang_: str):
    """Translate into ``lang_`` inside the block (e.g. to know an option's label
    in the other language)."""
    token = _SPEAKING.set(lang_)
    try:
        yield
    finally:
        _SPEAKING.reset(token)


# The language of the run in this script thread, set by language_switch at the start
# of every run of app.py (a thread runs one session's script, run after run, so the
# value is always that of the current run once the switch is drawn). A page reads
# the language for every message it shows, and st.session_state's lookup goes
# through three proxies and a lock: about 4 µs a call, 0.3-1 ms a run.
_RUN_LANG: contextvars.ContextVar[str | None] = contextvars.ContextVar("run_lang", default=None)


def lang() -> str:
    """The language of this run ("en" or "zh"); English outside a run. The run's
    language is read first: only a script thread sets it (a new thread starts without
    it), and Streamlit's lookup of the run's context costs more than the rest of a
    ``_()`` call (about 180 calls a run)."""
    speaking = _SPEAKING.get()
    if speaking is not None:
        return speaking
    run_lang = _RUN_LANG.get()
    if run_lang is not None:
        return run_lang
    if get_script_run_ctx() is None:
        return DEFAULT_LANG
    value = st.session_state.get(LANG_KEY, DEFAULT_LANG)
    return value if value in LANGUAGES else DEFAULT_LANG


def _(message: str) -> str:
    """``message`` in this run's language."""
    return _catalog(lang()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for count ``n`` in this run's language (Chinese has one)."""
    return _catalog(lang()).ngettext(singular, plural, n)


def N_(message: str) -> str:  # noqa: N802 (the gettext convention)
    """Mark ``message`` for the catalog without translating it yet (constants)."""
    return message


def words(sentence: str) -> list[str]:
    """A message of space-separated words (a toy sentence whose words are data),
    word for word in the run's language. Its translation lists the same number
    of words in the same roles; one that does not is not used."""
    english = sentence.split(" ")
    translated = _(sentence).split(" ")
    return translated if len(translated) == len(english) else english


def message(msg: Message | str) -> str:
    """A rope_core message (an error's ``.message``) in this run's language."""
    return msg.render(_) if isinstance(msg, Message) else str(msg)


def error_text(err: Exception) -> str:
    """The sentence to show for an error: translated when it carries a Message."""
    msg = getattr(err, "message", None)
    return message(msg) if isinstance(msg, Message) else str(err)


# ---------------------------------------------------------------- numbers ----
@functools.cache
def _number_format(pattern: str, locale: str) -> tuple[NumberPattern, Locale]:
    """A pattern parsed and a locale loaded once (the app's patterns are constants)."""
    return parse_pattern(pattern), Locale.parse(locale)


def number(value: float, pattern: str = "#,##0.###", lang_: str | None = None) -> str:
    """``value`` written for the language (Babel's CLDR data: digit grouping and
    decimal sign), with a Babel/CLDR ``pattern``: "#,##0" for whole numbers,
    "0.000" for three decimals, "0.0##E0" for scientific. Babel's ``format_decimal``
    with the parsed pattern and locale kept (it parses both on every call: 64 µs
    a number against 26)."""
    lang_ = lang_ or lang()
    if isinstance(value, int | float) and value:  # 0.0 == -0.0: those are not kept
        return _number_kept(value, pattern, lang_)
    return _number_written(value, pattern, lang_)


def _number_written(value: float, pattern: str, lang_: str) -> str:
    fmt, locale = _number_format(pattern, BABEL_LOCALES[lang_])
    return fmt.apply(value, locale, decimal_quantization=True, group_separator=True,
                     numbering_system="latn")


# the same numbers are written on every run (the sidebar's base, a page's lengths and
# counts): each written once (25 µs) while it is among the last 4096
_number_kept = functools.lru_cache(maxsize=4096, typed=True)(_number_written)


def integer(value: int, lang_: str | None = None) -> str:
    """A whole number with the language's digit grouping: 131072 -> "131,072"."""
    return number(value, "#,##0", lang_)


def decimal_sign(lang_: str | None = None) -> str:
    return Locale.parse(BABEL_LOCALES[lang_ or lang()]).number_symbols["latn"]["decimal"]
