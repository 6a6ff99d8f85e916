"""What a page showed in a visitor's latest run, in the page's order, for its notebook
(``takehome/``: the page as a Jupyter notebook that recomputes it with rope_core).

Some of ui's own elements note what they draw as they draw it, so that no page does
anything for its notebook: :func:`ui.download` a CSV (its cached function, arguments,
part, file name and label), :func:`ui.show` a figure (the figure and its text
alternative), :func:`ui.paragraphs` (and so :func:`ui.intro`), :func:`ui.explain` and
:func:`ui.bullets` the text (as shown, in the run's language). A note costs a few
microseconds; nothing is computed.

app.py starts a :class:`Record` before each full run of a page (:func:`start`). A
section that is an ``@st.fragment`` reruns alone when its own controls change: its
notes then replace those of its previous run, in its place on the page, so the record
always holds what the visitor sees.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any

from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

try:  # Streamlit 1.67: which fragment is running (None: the page's main script)
    from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState
except ImportError:  # pragma: no cover (another Streamlit: notes are kept page-wide)
    ThreadState = None

RECORD_KEY = "_page_record"  # the session's latest record (st.session_state)
_CURRENT: contextvars.ContextVar[Record | None] = contextvars.ContextVar("record",
                                                                          default=None)


def _fragment_id() -> str | None:
    if ThreadState is None:  # pragma: no cover
        return None
    try:
        return ThreadState.get().fragment_id
    except RuntimeError:  # outside a script run
        return None


class Record:
    """The notes of one page for one visitor: (kind, key, data) in the page's order,
    kind "csv", "figure" or "text". ``page`` is the page's name (its file's stem),
    ``title`` its title and ``lang`` the language of the run that started it; ``link``
    the session's query parameters (Streamlit's, which every control keeps current), read
    only when the notebook is made (:meth:`query`)."""

    def __init__(self, page: str, title: str, lang: str) -> None:
        self.page, self.title, self.lang = page, title, lang
        self.link: Any = None
        self._lock = threading.Lock()
        self._run: object = None  # the run that wrote last (its context's cursors)
        self._fresh: set[str | None] = set()  # the scopes this run has written
        # None: the main script; a fragment's id: that fragment's notes, its place
        # in the main script marked by ("scope", id, None)
        self._scopes: dict[str | None, list[tuple]] = {None: []}

    def note(self, kind: str, key: str | None, data: Any) -> None:
        ctx = get_script_run_ctx()
        if ctx is None:
            return
        scope = _fragment_id()
        with self._lock:
            if self._run is not ctx.cursors:  # a new run (a fragment's, or the first)
                self._run, self._fresh = ctx.cursors, set()
            if scope not in self._fresh:
                self._fresh.add(scope)
                if scope is not None:
                    if not ctx.fragment_ids_this_run:  # a full run draws it in its place
                        self._scopes[None].append(("scope", scope, None))
                    self._scopes[scope] = []
            self._scopes[scope].append((kind, key, data))

    def query(self) -> dict[str, str | list[str]]:
        """The page's link now: ``{key: value or values}``."""
        return dict(getattr(self.link, "_query_params", None) or {})

    def entries(self) -> list[tuple[str, str | None, Any]]:
        """Every note, in the page's order (each fragment's latest run in its place)."""
        with self._lock:
            scopes = {k: list(v) for k, v in self._scopes.items()}
        return [entry for kind, key, data in scopes[None]
                for entry in (scopes.get(key, []) if kind == "scope" else [(kind, key, data)])]


def start(page: str, title: str, lang: str) -> Record:
    """A fresh record for this run of ``page`` (app.py, before the page runs)."""
    import streamlit as st
    from streamlit.runtime.state.session_state_proxy import get_session_state

    record = Record(page, title, lang)
    with get_session_state().query_params() as link:
        record.link = link
    _CURRENT.set(record)
    st.session_state[RECORD_KEY] = record
    return record


def current() -> Record | None:
    """The record of this session's page (this thread's, or the session's for a
    fragment run in a new thread); None outside the app's runs."""
    record = _CURRENT.get()
    if record is not None:
        return record
    if get_script_run_ctx() is None:
        return None
    import streamlit as st

    return st.session_state.get(RECORD_KEY)


def note(kind: str, key: str | None, data: Any) -> None:
    """Note what this run draws (ui.download, ui.show, ui.paragraphs, ui.explain,
    ui.bullets)."""
    record = current()
    if record is not None:
        record.note(kind, key, data)
