"""Showing untrusted text safely, and errors without tracebacks.

Anything a visitor supplies (a URL value, a typed vector, a pasted config) may
be crafted: ``[prize](https://evil.example)`` would be a live link,
``![x](https://…)`` an image the browser fetches, a newline followed by
``# Session expired`` a heading. Streamlit renders the body of ``st.warning``,
``st.error`` and ``st.markdown`` as Markdown (and ``$…$`` as LaTeX), so such
text is escaped here before it is shown: every ASCII punctuation character gets
a backslash (CommonMark treats a backslash-escaped punctuation character as
the literal character, so no link, image, emphasis, heading, HTML or formula
can start), control characters and line breaks become spaces, and visitor
values are cut to :data:`MAX_SHOWN` characters.
"""

from __future__ import annotations

import re
import string
from contextlib import contextmanager

import streamlit as st

from .translation import error_text

MAX_SHOWN = 60  # characters of a visitor's value shown in a message
# GitHub-flavoured Markdown also turns bare addresses into links (https://…, www.…,
# name@host), after escapes are resolved, so a backslash does not stop it. An
# invisible zero-width space inside the trigger does: "https\u200b://".
_AUTOLINK = re.compile(r"(?i)(https?|ftp)(:)|(www)(\.)|([-.\w+])(@)")
ZWSP = "\u200b"
_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _no_autolink(match: re.Match) -> str:
    head = match.group(1) or match.group(3) or match.group(5)
    tail = match.group(2) or match.group(4) or match.group(6)
    return head + ZWSP + tail


def plain(text: str) -> str:
    """``text`` as Markdown that renders as these characters, on one line, with no
    link, image, heading, emphasis, HTML or formula (an address gets an invisible
    zero-width space so that it is not turned into a link)."""
    text = _AUTOLINK.sub(_no_autolink, _CONTROL.sub(" ", str(text)))
    return _PUNCTUATION.sub(r"\\\1", text)


def capped(value, limit: int = MAX_SHOWN) -> str:
    """A visitor's value cut to ``limit`` characters (then an ellipsis), not escaped."""
    text = _CONTROL.sub(" ", str(value))
    return text if len(text) <= limit else text[:limit] + "…"


def quoted(value, limit: int = MAX_SHOWN) -> str:
    """A visitor's value for a message: capped, in quotes, escaped."""
    return "“" + plain(capped(value, limit)) + "”"


def error(message: str) -> None:
    """An error box whose text is shown literally (it may quote visitor input)."""
    st.error(plain(message), icon=":material/block:")


def warning(message: str) -> None:
    """A warning whose text is shown literally."""
    st.warning(plain(message), icon=":material/warning:")


@contextmanager
def friendly_errors():
    """Show rope_core's ValueError as an error box and stop this page's run only.

    The message names the parameter, the value and what is allowed, in the
    run's language; it can contain what a visitor typed, so it is shown as
    plain text.
    """
    try:
        yield
    except ValueError as err:
        error(error_text(err))
        st.stop()
