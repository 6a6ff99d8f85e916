"""Server-side limits for a public demo that a config file cannot express.

Any client can send Streamlit's ``clear_cache`` back-message over the websocket
(the viewer toolbar merely hides the menu entry): the server then empties
``st.cache_data`` and ``st.cache_resource`` for every visitor
(``AppSession._handle_clear_cache_request`` in streamlit 1.67). One visitor
could make the whole class recompute every page, over and over. This app
refuses the message unless ``ROPE_ALLOW_CLEAR_CACHE=1`` is set (for a
developer who wants the menu's "Clear cache" back); its caches are bounded
(``ui.tables``), so they never need clearing to save memory.
"""

from __future__ import annotations

import logging
import os

_LOG = logging.getLogger("rope_explorer")


def refuse_clear_cache() -> bool:
    """Make the server ignore clients' clear-cache requests. Returns True when
    the refusal is in force (idempotent)."""
    if os.environ.get("ROPE_ALLOW_CLEAR_CACHE") == "1":
        return False
    from streamlit.runtime.app_session import AppSession

    if getattr(AppSession._handle_clear_cache_request, "refused", False):
        return True

    def _refused(self) -> None:  # noqa: ANN001 (Streamlit's signature)
        _LOG.warning("Refused a client's clear_cache request (session %s).", self.id)

    _refused.refused = True
    AppSession._handle_clear_cache_request = _refused
    return True
