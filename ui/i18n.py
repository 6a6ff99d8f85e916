"""English and Simplified Chinese for pages: every name of :mod:`ui.translation`
(``_``, ``ngettext``, ``N_``, ``lang``, numbers per locale, rope_core messages), plus
the sidebar's language switch and rope_core messages as escaped Markdown.

The switch is a widget bound to ``?lang=`` (:mod:`ui.controls`) and the Markdown
escapes visitor values (:mod:`ui.safety`); both of those import
:mod:`ui.translation`, not this module, so the imports run one way:
i18n -> controls, safety -> translation.

The language is the sidebar's switch, bound to ``?lang=en`` / ``?lang=zh``;
a visitor without one in the link gets the browser's preferred language when it
is Chinese, else English.
"""

from __future__ import annotations

import streamlit as st

from rope_core import Message

from . import controls
from .safety import plain
from .translation import (
    _RUN_LANG,
    BABEL_LOCALES,
    DEFAULT_LANG,
    DOMAIN,
    LANG_KEY,
    LANGUAGES,
    LOCALE_DIR,
    N_,
    _,
    decimal_sign,
    error_text,
    integer,
    lang,
    message,
    ngettext,
    number,
    speaking,
    words,
)

__all__ = [
    "BABEL_LOCALES", "DEFAULT_LANG", "DOMAIN", "LANG_KEY", "LANGUAGES", "LOCALE_DIR", "N_", "_",
    "browser_language", "decimal_sign", "error_text", "integer", "lang", "language_switch",
    "markdown_message", "message", "ngettext", "number", "speaking", "words",
]


def markdown_message(msg: Message | str) -> str:
    """A rope_core message as Markdown in this run's language: its template (the app's own
    text, code names in backticks) translated, each value escaped to plain text (a value
    may come from a visitor's config.json)."""
    if not isinstance(msg, Message):
        return plain(str(msg))
    values = {k: markdown_message(v) if isinstance(v, Message) else plain(str(v))
              for k, v in msg.params.items()}
    return _(msg.template).format(**values)


# --------------------------------------------------------------- the switch ----
def browser_language() -> str:
    """"zh" when the browser prefers Chinese (``st.context.locale``), else English."""
    try:
        locale = st.context.locale or ""
    except Exception:  # noqa: BLE001 (no browser, e.g. AppTest): the default
        locale = ""
    return "zh" if locale.lower().startswith("zh") else DEFAULT_LANG


def language_switch() -> str:
    """The sidebar's language switch, bound to ``?lang=``; returns the language.

    The first run of a session takes the link's value when it is exactly "en" or
    "zh" (anything else is dropped with a warning, under the app's rule for link
    values), else the browser's language. The address always carries the
    language, so a shared link opens in it.
    """
    _RUN_LANG.set(None)  # until this run's choice is known
    if LANG_KEY not in st.session_state:
        values = controls.link_value(LANG_KEY)
        valid = values is not None and len(values) == 1 and values[0] in LANGUAGES
        st.session_state[LANG_KEY] = values[0] if valid else browser_language()
        controls.check_link(LANG_KEY, _("Language"),
                            controls.one_of(list(LANGUAGES), _("en or zh")),
                            st.session_state[LANG_KEY])
    # the switch's label names itself in both languages, so anyone can find it
    label = "Language · 语言"  # i18n: the same in both languages
    chosen = st.sidebar.radio(label, list(LANGUAGES), key=LANG_KEY,
                              format_func=LANGUAGES.__getitem__, horizontal=True)
    controls.keep_in_link(LANG_KEY, chosen, None)
    _RUN_LANG.set(chosen if chosen in LANGUAGES else DEFAULT_LANG)
    return chosen
