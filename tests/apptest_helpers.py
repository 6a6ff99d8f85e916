"""Helpers for AppTest-based page tests: run a page, read its CSV downloads."""

from __future__ import annotations

import base64
import pathlib
import re
import string

import numpy as np
import pandas as pd
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import ElementTree

from ui import read_csv

APP = str(pathlib.Path(__file__).resolve().parents[1] / "app.py")
TIMEOUT = 120

# Download buttons generate their CSV on click (a deferred callable). AppTest
# cannot click through to the file, so remember every callable registered and
# look it up by the button's deferred_file_id.
_DEFERRED: dict[str, tuple] = {}
_original_add_deferred = MediaFileManager.add_deferred


def _recording_add_deferred(self, data_callable, mimetype, coordinates, file_name=None,
                            **kwargs):
    file_id = _original_add_deferred(self, data_callable, mimetype, coordinates,
                                     file_name=file_name, **kwargs)
    _DEFERRED[file_id] = (data_callable, file_name, mimetype)
    return file_id


MediaFileManager.add_deferred = _recording_add_deferred

# AppTest resets PagesManager.uses_pages_directory before every run, and a
# folder named pages/ then switches reruns to the legacy (v1) multipage mode,
# which runs the page file alone, without app.py and its sidebar. A real server
# sets the flag once and st.navigation turns it off for good; do the same here.
_original_pages_init = PagesManager.__init__


def _navigation_pages_init(self, *args, **kwargs):
    _original_pages_init(self, *args, **kwargs)
    PagesManager.uses_pages_directory = False


PagesManager.__init__ = _navigation_pages_init


# AppTest reads each widget's value back through its format_func on the test's
# own thread, outside any script run, where ui.i18n falls back to English; a
# widget whose labels are translated (fmt=_) then fails to find its Chinese label.
# Read the widget states in the session's language, as the browser does.
_original_widget_states = ElementTree.get_widget_states


def _widget_states_in_language(self):
    from ui import i18n

    try:
        lang = self._runner.session_state[i18n.LANG_KEY]
    except (KeyError, AttributeError):
        lang = i18n.DEFAULT_LANG
    with i18n.speaking(lang if lang in i18n.LANGUAGES else i18n.DEFAULT_LANG):
        return _original_widget_states(self)


ElementTree.get_widget_states = _widget_states_in_language


def run_page(page: str | None = None, query: dict | None = None) -> AppTest:
    """Open app.py with ``query`` as URL parameters (a deep link), then switch
    to ``pages/<page>.py`` (None or "overview": stay on the default page).

    AppTest can only switch pages after a first run through app.py, so the
    shared settings read the URL on that first run: their warnings are kept in
    ``at.first_warnings``. No run may end in an uncaught exception. Returns
    the finished AppTest.
    """
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    no_exceptions(at)
    at.first_warnings = [shown(w.value) for w in at.warning]
    if page is not None and page != "overview":
        at.switch_page(f"pages/{page}.py")
        at.run()
        no_exceptions(at)
    return at


def open_link(page: str | None, query: dict) -> AppTest:
    """Open a visitor's link, ``query`` on the address of ``pages/<page>.py`` (None or
    "overview": the opening page): one run, on that page (run_page runs the opening page
    first, then switches). Every page's url_path is its file's name, which is how AppTest
    finds a page before the first run. No run may end in an uncaught exception."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    if page is not None and page != "overview":
        at.switch_page(f"pages/{page}.py")
    at.run()
    no_exceptions(at)
    return at


_ESCAPED = re.compile(r"\\([" + re.escape(string.punctuation) + "])")


_CODE_TICK = re.compile(r"(?<!\\)`")


def shown(markdown: str) -> str:
    """The text a visitor reads for app-escaped Markdown: code-span backticks and
    backslash escapes removed (an escaped backtick stays)."""
    return _ESCAPED.sub(r"\1", _CODE_TICK.sub("", markdown)).replace("\u200b", "")


# The app's own relative Markdown links (ui.glossary, views/glossary.py): a page of the app in
# the run's language, or a heading of the page, e.g. glossary?lang=en#theta, ./?lang=zh, #theta.
APP_LINK_ADDRESS = r"(?:[a-z_]+|\./)\?lang=[a-z]+(?:#[a-z0-9_]+)?|#[a-z0-9_]+"
_APP_LINK = re.compile(r"\]\((?:" + APP_LINK_ADDRESS + r")\)")


def app_links_removed(markdown: str) -> str:
    """``markdown`` without the app's own relative links (``](glossary?lang=en#theta)``),
    which the app writes itself: what is left must hold no link from a visitor."""
    return _APP_LINK.sub("]", markdown)


def warnings(at: AppTest) -> list[str]:
    """The visible text of every warning on the page."""
    return [shown(w.value) for w in at.warning]


SIDEBAR_KEYS = ("base", "dim", "layout", "lang", "present", "device")


def bad_link(page: str, query: dict) -> AppTest:
    """``page`` opened with a link whose every value in ``query`` is malformed (docs/links.md,
    "Shareable links"): it runs without an exception, and each parameter is named in a
    warning that quotes its value: the sidebar's in the first run, the page's own on the
    page. Returns the AppTest, for the page's own checks that its defaults were kept."""
    at = run_page(page, query)
    no_exceptions(at)
    first, on_page = " ".join(at.first_warnings), " ".join(warnings(at))
    for key in query:
        assert f"{key} = “" in (first if key in SIDEBAR_KEYS else on_page), key
    return at


def csv_buttons(at: AppTest) -> list:
    """The page's CSV download buttons (not the notebook's, takehome/), in page order."""
    return [b for b in at.get("download_button")
            if _DEFERRED[b.proto.deferred_file_id][2] == "text/csv"]


def notebook(at: AppTest) -> tuple[str, bytes] | None:
    """(file name, bytes) of the page's notebook (takehome/), made as a click makes it;
    None when the page offers none."""
    for button in at.get("download_button"):
        data_callable, file_name, mimetype = _DEFERRED[button.proto.deferred_file_id]
        if mimetype == "application/x-ipynb+json":
            return file_name, data_callable()
    return None


def downloads(at: AppTest) -> list[dict]:
    """Every CSV download button on the page: label, file name, bytes."""
    out = []
    for button in csv_buttons(at):
        data_callable, file_name, mimetype = _DEFERRED[button.proto.deferred_file_id]
        data = data_callable()
        out.append({"label": button.proto.label, "file_name": file_name, "mimetype": mimetype,
                    "bytes": data if isinstance(data, bytes) else data.encode()})
    return out


def csv_frame(at: AppTest, index: int = 0) -> tuple[str, pd.DataFrame]:
    """(file name, parsed table) of the index-th download on the page."""
    d = downloads(at)[index]
    return d["file_name"], read_csv(d["bytes"])


def csvs_by(at: AppTest, key, expected) -> dict[str, tuple[str, pd.DataFrame]]:
    """{key(file name): (file name, parsed table)} of the page's first len(expected) CSV
    downloads, whose keys must be exactly ``expected``."""
    out = {}
    for index in range(len(expected)):
        name, frame = csv_frame(at, index)
        out[key(name)] = (name, frame)
    assert set(out) == set(expected)
    return out


def csv_frames(at: AppTest) -> dict[str, pd.DataFrame]:
    """{file name: parsed table} of every download on the page."""
    return dict(csv_frame(at, i) for i in range(len(csv_buttons(at))))


def widened(df: pd.DataFrame) -> pd.DataFrame:
    """A table as st.dataframe sends it (``ui.tables.view``: integers in 8 to 32 bits, text
    as Arrow's ``string``) with pandas' own column types again (int64, str): the same
    cells, to compare with the CSV read back. Other columns stay as they are."""
    types = {name: np.int64 if col.dtype.kind in "iu" else "str"
             for name, col in df.items()
             if (isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu")
             or (not isinstance(col.dtype, np.dtype) and pd.api.types.is_string_dtype(col.dtype))}
    return df.astype(types) if types else df


def shown_table(at: AppTest, index: int = 0) -> pd.DataFrame:
    """Turn on the 'Show the table' toggles and return the index-th table shown
    (:func:`widened`)."""
    for t in at.toggle:
        if t.key and t.key.startswith("show_"):
            t.set_value(True)
    at.run()
    return widened(at.dataframe[index].value)


def metrics(at: AppTest) -> dict[str, str]:
    """Each st.metric's value by its label."""
    return {m.label: m.value for m in at.metric}


def no_exceptions(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def figure(at: AppTest, index: int = 0) -> dict:
    import json

    return json.loads(at.get("plotly_chart")[index].proto.spec)


def array(values) -> np.ndarray:
    """A figure's data array as numpy: plotly sends numpy arrays as base64 typed
    arrays ({"dtype", "bdata", "shape"}), plain lists as JSON lists (None = gap)."""
    if isinstance(values, dict):
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        if "shape" in values:
            return flat.reshape(tuple(int(v) for v in str(values["shape"]).split(",")))
        return flat
    return np.array(values, dtype=float)


def record_shows(monkeypatch) -> dict:
    """Record what each ``ui.show`` call draws: {key: figure object}, the latest per key.
    Clear it between runs to compare two runs."""
    import ui

    seen: dict = {}
    original = ui.show

    def recording(fig, key=None, **kwargs):
        seen[key] = fig
        original(fig, key=key, **kwargs)

    monkeypatch.setattr(ui, "show", recording)
    return seen


def typed_dtypes(node) -> set[str]:
    """The dtypes of every typed array ({"dtype", "bdata"}) in a figure's JSON."""
    if isinstance(node, dict):
        if "dtype" in node and "bdata" in node:
            return {node["dtype"]}
        return set().union(*(typed_dtypes(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(typed_dtypes(v) for v in node))
    return set()


def assert_frozen_once(monkeypatch, page: str, query: dict | None, keys: set[str],
                       then=None) -> None:
    """Every figure of the page reaches ui.show as a ui.Frozen, a second run with the
    same settings shows the very same objects (nothing rebuilt) and sends their kept
    JSON (Plotly's encoder is not called), and the JSON sent
    carries float32 typed arrays, never float64 ones. ``then(at)``, if given, changes
    widgets and reruns after the page opens."""
    import ui

    shows = record_shows(monkeypatch)
    at = run_page(page, query)
    if then is not None:
        then(at)
        no_exceptions(at)
    first = {k: shows[k] for k in keys}
    assert all(isinstance(fig, ui.Frozen) for fig in first.values()), first
    shows.clear()
    encoded = []
    encode = ui.figures._plotly_to_json
    monkeypatch.setattr(ui.figures, "_plotly_to_json",
                        lambda *a, **k: encoded.append(a[0]) or encode(*a, **k))
    at.run()
    no_exceptions(at)
    assert all(shows[k] is fig for k, fig in first.items())
    assert not encoded, f"{len(encoded)} kept figure(s) encoded again"
    charts = at.get("plotly_chart")
    assert len(charts) == len(keys)
    dtypes = [typed_dtypes(figure(at, index)) for index in range(len(charts))]
    assert not any("f8" in d for d in dtypes) and any("f4" in d for d in dtypes), dtypes
