"""The app's own links, and one browser history entry per deliberate move.

Streamlit 1.67 adds a history entry (``history.pushState``) for every change of the
query that the server sends during a run (``page_info_changed``: a value a link
brought that the app corrects, the language written into the address, a control
whose value a callback set) and for every page change, and fills the address of a
page change from the previous page's values; Back after one link then walked
through several entries of the same page, one with the previous page's path and the
new page's values (issue 46). So the app moves itself (``links.js``, installed once
per document with the sidebar's navigation, :func:`script`):

* a click on one of the app's links (the sidebar's navigation, every ``st.page_link``)
  pushes one entry with the link's address and lets Streamlit open it as it opens an
  entry on Back or Forward: every control the address names takes that value, every
  bound control it does not name its default (Streamlit's history navigation). A link
  therefore says "these values, everything else default"; the viewer's own settings
  (:data:`CARRIED`) go along unless the link names them;
* a ``pushState`` that keeps the page (the server's corrections of a run) replaces the
  current entry instead.

So Back returns to the previous entry as the visitor left it, and Forward comes back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlencode

from .sidebar import DEFAULTS
from .translation import LANG_KEY

# The viewer's own settings: kept by every link that does not name them.
CARRIED: tuple[str, ...] = (LANG_KEY, *DEFAULTS)
# The lesson's settings of the sidebar: a link that sets up a view (a tour step) names
# them, so that the view does not depend on what the visitor had chosen before.
LESSON = {key: str(DEFAULTS[key]) for key in ("base", "dim", "layout")}

_SCRIPT = (Path(__file__).with_name("links.js").read_text(encoding="utf-8")
           .replace("__CARRIED__", json.dumps(CARRIED)))


def script() -> str:
    """The ``<script>`` that makes the app's links one history entry each (``links.js``);
    it installs itself once per document."""
    return f"<script>{_SCRIPT}</script>"


def href(path: str, query: Mapping[str, str | list[str]] | None = None) -> str:
    """A page's address relative to the app: ``path`` is the page's URL path without
    its slash ("" for the default page), the query as the app writes it."""
    return (path or "./") + ("?" + urlencode(query, doseq=True) if query else "")
