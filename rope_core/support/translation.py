"""rope_core's messages in the reader's language, outside the app.

A :class:`~rope_core.support._checks.Message` is an English template and its values; its
template is a message of the app's gettext catalog (``locale/``, managed by
``tools/i18n.py``). The app translates messages with its own switch (``ui.translation``);
this module gives the same translation to code that runs without the app: a notebook
(:mod:`rope_core.teaching.exercises`), a script.

The catalog is read from the checkout's ``locale/`` folder when rope_core runs from a
checkout, and from ``rope_core/locale/`` when rope_core was installed on its own (the
package carries the compiled catalog: pyproject.toml, ``rope_core.locale.zh.LC_MESSAGES``).
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Callable
from pathlib import Path

from ._checks import Message, check_choice, fail

LANGUAGES = ("en", "zh")  # English (the messages themselves) and Simplified Chinese
DOMAIN = "messages"
_PACKAGE = Path(__file__).resolve().parents[1]  # rope_core/
# where the compiled catalogs are: the checkout's locale/, else the installed package's
LOCALE_DIRS = (_PACKAGE.parent / "locale", _PACKAGE / "locale")


def locale_dir(lang: str) -> Path:
    """The folder holding ``<lang>/LC_MESSAGES/messages.mo`` (:data:`LOCALE_DIRS`, first
    found). Raises a RopeError when neither holds it."""
    lang = check_choice(lang, "lang", LANGUAGES[1:])
    for folder in LOCALE_DIRS:
        if (folder / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file():
            return folder
    fail("lang", lang, "a language whose compiled catalog ({file}) is present",
         file=f"locale/{lang}/LC_MESSAGES/{DOMAIN}.mo")


@functools.cache
def translator(lang: str = "en") -> Callable[[str], str]:
    """The function that translates one template into ``lang`` ("en" or "zh"): the
    identity for English, the compiled catalog's ``gettext`` otherwise (a template the
    catalog lacks stays English)."""
    lang = check_choice(lang, "lang", LANGUAGES)
    if lang == LANGUAGES[0]:
        return str
    with open(locale_dir(lang) / lang / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as f:
        return gettext.GNUTranslations(f).gettext


def render(message: Message | str, lang: str = "en") -> str:
    """``message`` as a sentence in ``lang`` (its template and every nested Message's
    translated, then filled in); a plain string is returned as it is."""
    translate = translator(lang)
    return message.render(translate) if isinstance(message, Message) else str(message)
