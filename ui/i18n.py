"""English and Simplified Chinese for pages: every name of :mod:`ui.translation`
(``_``, ``ngettext``, ``N_``, ``lang``, numbers per locale, rope_core messages), plus
rope_core messages as escaped Markdown (values escaped by :mod:`ui.safety`).

No widget lives here: the language switch, bound to ``?lang=``, is a control
(:func:`ui.controls.language_switch`). So the imports run one way, widgets above
words: controls -> safety -> translation, and i18n -> safety -> translation.
"""

from __future__ import annotations

from rope_core import Code, Message

from .safety import plain
from .translation import (
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
    sentence,
    speaking,
    words,
)

__all__ = [
    "BABEL_LOCALES", "DEFAULT_LANG", "DOMAIN", "LANG_KEY", "LANGUAGES", "LOCALE_DIR", "N_", "_",
    "decimal_sign", "error_text", "integer", "lang", "markdown_message", "message",
    "ngettext", "number", "sentence", "speaking", "words",
]


def markdown_message(msg: Message | str) -> str:
    """A rope_core message as Markdown in this run's language: its template (the app's own
    text, code names in backticks) translated, each value escaped to plain text (a value
    may come from a visitor's config.json), a :class:`rope_core.Code` value (the app's own
    file and line references) as a code span."""
    if not isinstance(msg, Message):
        return plain(str(msg))
    values = {k: markdown_message(v) if isinstance(v, Message) else
              "`" + v.replace("`", "") + "`" if isinstance(v, Code) else plain(str(v))
              for k, v in msg.params.items()}
    return _(msg.template).format(**values)
