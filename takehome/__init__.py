"""Take it home: every page with a computed view offers it as a Jupyter notebook that
recomputes it with rope_core at the visitor's settings (docs/notebooks.md).

app.py runs each page through :func:`run`: a record of what the page shows starts
(:mod:`ui.record`: ``ui.download``, ``ui.show``, ``ui.explain`` and ``ui.bullets`` note
what they draw), the page runs, and under it one download button offers the notebook. The
notebook is written only when the button is pressed (:func:`ipynb`, a deferred download:
nothing is computed during the page's run), from the record as it stands then (a section
that is a fragment and was rerun alone is there as the visitor sees it):
:mod:`takehome.notebook` turns the record into cells, with the page's recipe
(:mod:`takehome.recipes`) for its figures. A page without a CSV download (the tour) offers
none.

Imports: ui (and nbformat, on the first press); app.py imports this, nothing below does.
"""

from __future__ import annotations

import functools

import streamlit as st

from ui import record as records
from ui.i18n import _, lang, speaking
from ui.navigation import PAGES

NOTEBOOK_KEY = "take_home"  # the button's widget key


def page_name(page) -> str:
    """The file name (without .py) of the st.Page ``page``: its URL path, "" for the
    default page."""
    return page.url_path or next(spec.name for spec in PAGES if spec.default)


def run(page) -> None:
    """Run ``page`` (an st.Page) with a fresh record, then offer its notebook."""
    record = records.start(page_name(page), page.title, lang())
    page.run()
    offer(record)


def offer(record: records.Record) -> None:
    """The button that downloads ``record``'s page as a notebook, if it has a CSV."""
    if not any(kind == "csv" for kind, _key, _data in record.entries()):
        return
    st.divider()  # the page ends here: the button is the whole page's, not its last table's
    st.download_button(
        _("Take this page home: a notebook (.ipynb)"),
        data=functools.partial(ipynb, record), file_name=f"rope_explorer_{record.page}.ipynb",
        mime="application/x-ipynb+json", on_click="ignore", key=NOTEBOOK_KEY,
        icon=":material/code:",
        help=_("A Jupyter notebook of this page at your settings: it recomputes the page's "
               "tables with rope_core, writes the same CSV files, draws the figures with "
               "Plotly and gives the explanations. Its first cells say how to install "
               "rope_core."))


def ipynb(record: records.Record) -> bytes:
    """The notebook of ``record``'s page, as the file's bytes, in the record's language."""
    import nbformat

    from .notebook import notebook

    with speaking(record.lang):
        return nbformat.writes(notebook(record)).encode("utf-8")
