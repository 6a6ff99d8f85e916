"""Keeping Streamlit's legacy multipage mode out of the way.

Streamlit (1.67, ``streamlit/runtime/pages_manager.py``) looks for a folder
named ``pages/`` next to the main script when the server starts and sets
``PagesManager.uses_pages_directory``. Until a script calls
``st.navigation``, that flag makes the server resolve a request such as
``/rotation`` in the legacy ("v1") mode: it runs ``pages/rotation.py`` on its
own, without ``app.py``, its navigation and its sidebar. A fresh server whose
very first request is a deep link therefore runs the page alone once. This app
uses ``st.navigation``; :func:`leave_legacy_pages_mode` switches the flag off
for the whole process and reruns through ``app.py``.

Only pages live in ``pages/`` (the shared UI is the package ``ui``), so the
legacy mode can never serve a file that is not a page.
"""

from __future__ import annotations

import streamlit as st


def in_legacy_pages_mode() -> bool:
    """True while the server would run page files without app.py."""
    from streamlit.runtime.pages_manager import PagesManager

    return bool(PagesManager.uses_pages_directory)


def leave_legacy_pages_mode() -> None:
    """Switch the legacy mode off for the process and rerun through app.py."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    st.rerun()
