"""The shared UI package: hardening, the legacy-pages guard, CSV caching and caps,
and escaping of visitor text."""

import pathlib

import numpy as np
import pandas as pd
import pytest

import ui
from ui import hardening, tables
from ui.navigation import PAGES, sections

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_clear_cache_request_from_a_client_is_refused(monkeypatch):
    import streamlit as st
    from streamlit.runtime.app_session import AppSession

    monkeypatch.delenv("ROPE_ALLOW_CLEAR_CACHE", raising=False)
    assert hardening.refuse_clear_cache()
    calls = {"n": 0}

    @st.cache_resource
    def counted():
        calls["n"] += 1
        return calls["n"]

    counted()

    class FakeSession:
        id = "fake"

    AppSession._handle_clear_cache_request(FakeSession())
    counted()
    assert calls["n"] == 1  # the cache survived the request


def test_allocator_cap_is_accepted_on_glibc():
    import platform

    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert hardening.limit_malloc_arenas()


def test_torch_runs_one_thread_per_script_run():
    import threading

    import torch

    assert hardening.limit_torch_threads()
    assert torch.get_num_threads() == 1
    assert hardening.limit_torch_threads()  # again (every run of app.py): still accepted
    seen = []
    # a new thread (Streamlit's script thread) keeps the process-wide setting
    worker = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
    worker.start()
    worker.join()
    assert seen == [1]


@pytest.mark.parametrize(("version", "affected"), [
    ((3, 11, 2), True), ((3, 11, 7), True), ((3, 11, 8), False), ((3, 12, 1), True),
    ((3, 12, 2), False), ((3, 10, 13), False), ((3, 13, 0), False)])
def test_ast_parse_is_serialized_exactly_on_pythons_with_gh_106905(version, affected):
    # CPython's fix (gh-113035) landed in 3.11.8 and 3.12.2; 3.10 counts no depth there
    assert hardening.serialize_ast_parse(version) is affected


def test_threads_parsing_at_once_with_a_gc_callback_all_succeed():
    """CPython issue 106905's reproduction, smaller: threads parse a large module while
    a gc callback runs Python code mid-parse. On 3.11.7, without the lock of
    ui.hardening.serialize_ast_parse (in force from tests/conftest.py), most threads
    raised "SystemError: AST constructor recursion depth mismatch" within a second."""
    import ast
    import gc
    import threading

    source = pathlib.Path(ast.__file__).read_text(encoding="utf-8")
    errors = []

    def callback(phase, info):
        [str(n) for n in range(200)]  # Python code between two of the tree's objects

    def parse_often():
        try:
            for _ in range(10):
                ast.parse(source)
            ast.literal_eval("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}")
        except SystemError as error:
            errors.append(error)

    hardening.serialize_ast_parse()
    gc.callbacks.append(callback)
    try:
        threads = [threading.Thread(target=parse_often) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.callbacks.remove(callback)
    assert errors == []


def test_legacy_guard_switches_the_mode_off(monkeypatch):
    from streamlit.runtime.pages_manager import PagesManager

    from ui import legacy

    reruns = []
    monkeypatch.setattr(legacy.st, "rerun", lambda: reruns.append(True))
    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    assert legacy.in_legacy_pages_mode()
    legacy.leave_legacy_pages_mode()
    assert not legacy.in_legacy_pages_mode() and reruns == [True]


def test_pages_folder_holds_only_registered_pages():
    # a fresh server may serve any pages/*.py in the legacy mode: only pages live there
    files = {p.name for p in (ROOT / "pages").iterdir() if p.is_file()}
    assert files == {pathlib.PurePosixPath(spec.file).name for spec in PAGES}


PAGE_LINES = 350  # a page read top to bottom


def tour_views() -> set[str]:
    """The views of the pages the Guided tour's steps open: the only other views
    views/tour.py may import (it draws those pages' pictures with their own builders)."""
    from views.tour import STEPS

    return {f"views.{step.page}" for step in STEPS}


TOUR_VIEWS = tour_views()


def test_every_page_is_a_lesson_with_its_view():
    """One pattern for every page (docs/architecture.md): pages/<page>.py reads top to
    bottom in at most PAGE_LINES lines and defines no function but its @st.fragment
    sections and its widgets' callbacks (on_click, on_change); its figure builders, cached
    tables and the sentences written from numbers live in views/<page>.py, the one view it
    imports. A view serves its own page: what pages share lives in ui/. One exception,
    documented in views/tour.py: the Guided tour shows the picture of each page its steps
    open, so views/tour.py imports exactly those pages' views (their figure builders, not
    copies of them)."""
    import ast

    def view_imports(tree: ast.AST) -> set[str]:
        found = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not node.module or \
                    node.module.split(".")[0] != "views":
                continue
            if node.module == "views":  # from views import trained_models as v
                found |= {f"views.{alias.name}" for alias in node.names}
            else:
                found.add(node.module)
        return found

    problems = []
    for spec in PAGES:
        source = (ROOT / spec.file).read_text(encoding="utf-8")
        tree = ast.parse(source)
        if len(source.splitlines()) > PAGE_LINES:
            problems.append(f"{spec.file}: {len(source.splitlines())} lines")
        if not (ROOT / "views" / f"{spec.name}.py").is_file():
            problems.append(f"{spec.file}: no views/{spec.name}.py")
        if view_imports(tree) != {f"views.{spec.name}"}:
            problems.append(f"{spec.file} imports {sorted(view_imports(tree))}")
        callbacks = {kw.value.id for node in ast.walk(tree) if isinstance(node, ast.Call)
                     for kw in node.keywords
                     if kw.arg in ("on_click", "on_change") and isinstance(kw.value, ast.Name)}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                problems.append(f"{spec.file}: class {node.name}")
            elif isinstance(node, ast.FunctionDef):
                fragment = any(ast.unparse(d) in ("st.fragment", "st.fragment()")
                               for d in node.decorator_list)
                if not fragment and node.name not in callbacks:
                    problems.append(f"{spec.file}: def {node.name} (belongs in its view)")
    pages = {spec.name for spec in PAGES}
    for view in sorted((ROOT / "views").glob("*.py")):
        if view.stem == "__init__":
            continue
        if view.stem not in pages:
            problems.append(f"views/{view.name}: no page of that name")
        others = view_imports(ast.parse(view.read_text(encoding="utf-8")))
        if view.stem == "tour":
            others -= TOUR_VIEWS
        if others:
            problems.append(f"views/{view.name} imports {sorted(others)} (share through ui/)")
    assert not problems, problems


def test_views_sit_between_pages_and_ui():
    """views/ holds the figure builders of long pages: a view imports rope_core and ui,
    never a page; nothing in ui/ or rope_core/ imports a view (imports run one way)."""
    import ast

    def imported(path: pathlib.Path) -> set[str]:
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        return names

    views = sorted((ROOT / "views").glob("*.py"))
    assert len(views) >= 3
    assert not [p.name for p in views if "pages" in imported(p)]
    below = [*(ROOT / "ui").glob("*.py"), *(ROOT / "rope_core").rglob("*.py")]
    assert not [str(p.relative_to(ROOT)) for p in below if "views" in imported(p)]


def test_pages_and_views_build_no_plotly_objects():
    """Figures in pages/ and views/ are written as the kept form (ui.kept_figure,
    ui.sketch and ui.kept): no page or view imports Plotly's figure objects, which
    validate every property (three to five times a figure's CPU, docs/architecture.md,
    "Keeping it fast"); its colour helpers (plotly.colors) are plain functions."""
    import ast

    found = []
    for path in sorted([*(ROOT / "pages").glob("*.py"), *(ROOT / "views").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}: {n}" for n in names
                      if n.split(".")[0] == "plotly" and n != "plotly.colors"]
    assert not found


def test_navigation_sections_keep_lesson_order():
    flat = [spec for specs in sections().values() for spec in specs]
    assert flat == list(PAGES)
    assert sum(spec.default for spec in PAGES) == 1


def test_csv_bytes_are_cached_per_setting(monkeypatch):
    written = {"n": 0}
    original = tables.csv_bytes

    def counting(df):
        written["n"] += 1
        return original(df)

    monkeypatch.setattr(tables, "csv_bytes", counting)

    @ui.table
    def squares(n: int) -> pd.DataFrame:
        return pd.DataFrame({"n": range(n), "n squared": [k * k for k in range(n)]})

    first = tables._cached_csv(squares.table_name, (5,), None)
    for _ in range(29):
        assert tables._cached_csv(squares.table_name, (5,), None) is first
    assert written["n"] == 1  # 30 downloads, one CSV written
    assert ui.read_csv(first)["n squared"].tolist() == [0, 1, 4, 9, 16]


def test_tables_are_shared_not_copied():
    @ui.table
    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame({"x": range(n)})

    assert frame(3) is frame(3)


def test_download_refuses_functions_that_are_not_tables():
    with pytest.raises(TypeError):
        ui.download(lambda: pd.DataFrame(), filename="x.csv", label="x", key="x")


@pytest.mark.parametrize("value, expected", [
    ("[a](https://evil.example)", "\\[a\\]\\(https\u200b\\:\\/\\/evil\\.example\\)"),
    ("www.evil.example", "www\u200b\\.evil\\.example"),
    ("me@evil.example", "me\u200b\\@evil\\.example"),
    ("x\n# h", r"x \# h"),
    ("$x$", r"\$x\$"),
])
def test_plain_escapes_every_markdown_character(value, expected):
    assert ui.plain(value) == expected


def test_quoted_caps_visitor_text():
    assert ui.capped("a" * 100) == "a" * 60 + "…"
    assert ui.quoted("a" * 100) == "“" + "a" * 60 + "…”"


def test_readme_lists_the_pages_in_navigation_order():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| section | pages |"):]
    positions = [table.index(spec.title) for spec in PAGES]
    assert positions == sorted(positions)


def test_each_figure_builder_has_a_cache_of_its_own():
    """Two builders called with the same arguments give their own figures (one
    cache per builder, keyed by language too)."""
    import plotly.graph_objects as go

    import ui

    @ui.figure
    def first(n: int) -> go.Figure:
        return go.Figure(go.Scatter(x=[0, n], y=[1, 1], name="first"))

    @ui.figure
    def second(n: int) -> go.Figure:
        return go.Figure(go.Scatter(x=[0, n], y=[2, 2], name="second"))

    assert first(3).spec["data"][0]["name"] == "first"
    assert second(3).spec["data"][0]["name"] == "second"


def _figure_json(fig) -> dict:
    import json

    import plotly.io as pio

    return json.loads(pio.to_json(fig, validate=False))


@pytest.mark.parametrize("kind", ["plain", "subplots", "heatmap"])
def test_fast_style_is_plotlys_own_update(kind):
    """ui.style writes the layout without Plotly's validated update_* path (10x the
    cost): the figure it makes is the one the validated path makes, and later
    update_* calls still apply on top."""
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from ui import figures

    def build(styler):
        if kind == "subplots":
            fig = make_subplots(rows=1, cols=2, subplot_titles=("a", "b"))
            fig.add_scatter(x=[1, 2], y=[3, 4], row=1, col=2)
        elif kind == "heatmap":
            fig = go.Figure(go.Heatmap(z=np.eye(3)))
        else:
            fig = go.Figure()
            fig.add_scatter(x=np.arange(3.0), y=np.arange(3.0))
            fig.update_xaxes(type="log")
        styler(fig, title="A title long enough to be wrapped onto a second line, 中文也行",
               x="x [tokens]", y="y [rad]", height=500)
        if kind == "heatmap":
            ui.square(fig) if styler is figures.style else (
                fig.update_xaxes(constrain="domain"),
                fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain"))
        if kind == "subplots":
            fig.update_xaxes(title_text="changed", row=1, col=1)
        else:
            fig.update_yaxes(type="log")
        fig.update_layout(margin_t=fig.layout.margin.t + 40)
        return fig

    fast, validated = build(figures.style), build(figures.style_validated)
    assert _figure_json(fast) == _figure_json(validated)
    assert _figure_json(fast)["layout"]["margin"]["t"] == figures.top_margin(
        figures.wrap_title("A title long enough to be wrapped onto a second line, 中文也行")) + 40


def test_kept_figures_are_plotlys_own():
    """ui.sketch is make_subplots' layout; ui.relayout is update_layout, update_*axes and
    update_annotations; a trace dict naming its cell's axes is add_trace(row=, col=);
    ui.colorscale is a named scale as validated: ui.kept makes the very figure that the
    validated path freezes, at a fraction of the cost."""
    import json

    from plotly.subplots import make_subplots

    args = dict(rows=1, cols=2, subplot_titles=("a", "b"), horizontal_spacing=0.1)
    z = np.arange(6.0).reshape(2, 3) / 7

    fig = ui.sketch(**args)
    traces = [dict(type="scatter", x=np.arange(3.0), y=[3, 4, 5], xaxis="x2", yaxis="y2"),
              dict(type="heatmap", z=ui.typed(z), colorscale=ui.colorscale("RdBu"),
                   colorbar=dict(title=dict(text="t")), xaxis="x", yaxis="y")]
    ui.relayout(fig, dict(plot_bgcolor="#c8c8c8", yaxis=dict(scaleanchor="x"),
                          yaxis2=dict(scaleanchor="x2")),
                xaxes=dict(showgrid=False), yaxes=dict(autorange="reversed"),
                annotations=dict(yshift=10))
    fast = ui.kept(traces, fig)

    ref = make_subplots(**args)
    ref.add_scatter(x=np.arange(3.0), y=[3, 4, 5], row=1, col=2)
    ref.add_heatmap(z=z, colorscale="RdBu", colorbar=dict(title="t"), row=1, col=1)
    ref.update_layout(plot_bgcolor="#c8c8c8")
    ref.update_yaxes(scaleanchor="x", row=1, col=1)
    ref.update_yaxes(scaleanchor="x2", row=1, col=2)
    ref.update_xaxes(showgrid=False)
    ref.update_yaxes(autorange="reversed")
    ref.update_annotations(yshift=10)
    assert json.loads(fast.json) == json.loads(ui.freeze(ref).json)
    assert ui.sketch()._layout == {}


@pytest.mark.parametrize("grid", [
    dict(rows=2, cols=1, vertical_spacing=0.22, subplot_titles=("plane", "q'·k'<br>against m")),
    dict(rows=1, cols=2, horizontal_spacing=0.1),
    dict(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.24, subplot_titles=("a", "b c",
                                                                                   "d", "e")),
    dict(rows=2, cols=2, subplot_titles=("a", "", "c")),  # an empty title is left out
    dict(rows=1, cols=3, subplot_titles=("x", "y")),      # fewer titles than cells
    dict(rows=2, cols=1, row_heights=[0.7, 0.3], subplot_titles=("a", "b")),  # a list
])
def test_sketch_is_make_subplots_layout(grid):
    """ui.sketch writes make_subplots' layout, the first time (make_subplots runs) and
    again (the grid's layout copied, this call's titles written in): each call its own
    copy, whatever the titles."""
    from plotly.subplots import make_subplots

    from ui import figures

    def reference(titles):
        captured = figures._Captured()
        make_subplots(figure=captured, **dict(grid, subplot_titles=titles))
        return captured.layout.to_plotly_json()

    titles = grid.get("subplot_titles")
    first = ui.sketch(**grid)._layout
    assert first == reference(titles)
    first.setdefault("annotations", []).append({"text": "changed"})
    other = None if titles is None else tuple(t and t + " 中文" for t in titles)
    assert ui.sketch(**dict(grid, subplot_titles=other))._layout == reference(other)


def test_shared_store_is_bounded_by_bytes_and_entries():
    """ui.cache.Shared: least recently used first, per-function entry caps, a byte
    budget over all functions, one computation per key, nothing kept that is
    larger than half of the budget."""
    import numpy as np

    from ui import cache

    store = cache.Shared("test", max_bytes=10_000)
    made = []

    def make(n):
        def build():
            made.append(n)
            return np.zeros(n, dtype=np.uint8)  # n bytes
        return build

    a = store.get("f", 1, make(2000), max_entries=3)
    assert store.get("f", 1, make(2000), max_entries=3) is a and made == [2000]
    store.get("f", 2, make(2000), max_entries=3)
    store.get("f", 3, make(2000), max_entries=3)
    store.get("f", 4, make(2000), max_entries=3)  # a 4th entry of f: its oldest (1) goes
    assert len(store) == 3 and store.nbytes == 6000
    store.get("f", 2, make(2000), max_entries=3)  # 2 is now the most recent of f
    store.get("g", 1, make(2400), max_entries=3)
    store.get("g", 2, make(2400), max_entries=3)  # 10,800 bytes: the oldest (f 3) goes
    assert store.nbytes == 8800 and len(store) == 4
    store.get("f", 3, make(2000), max_entries=3)  # recomputed
    assert made.count(2000) == 5
    store.get("h", 1, make(5001), max_entries=3)  # over half of the budget: not kept
    assert store.nbytes <= 10_000 and all(k[0] != "h" for k in store._entries)
    store.clear("g")
    assert all(k[0] == "f" for k in store._entries)
    store.clear()
    assert len(store) == 0 and store.nbytes == 0


def test_size_of_counts_the_buffers():
    import numpy as np
    import torch

    from ui import cache

    frame = pd.DataFrame({"x": np.arange(1000, dtype=np.float64)})
    assert 8000 <= cache.size_of(frame) <= 8000 + 1000  # 8 bytes a value, plus the index
    assert cache.size_of(torch.zeros(100, dtype=torch.float32)) == 400
    assert cache.size_of({"a": frame, "b": np.zeros(10)}) >= 8080
    fig = ui.freeze(__import__("plotly.graph_objects").graph_objects.Figure())
    assert cache.size_of(fig) == fig.nbytes > 0


def test_size_of_a_frame_is_pandas_memory_usage_plus_object_cells():
    """Read from the frame's blocks, the size is pandas' own memory_usage (deep=False)
    plus 64 bytes for each Python-object cell; a slice counts only its rows."""
    import numpy as np

    from ui import cache

    rows = 50
    frame = pd.DataFrame({"a": np.arange(rows), "b": np.linspace(0, 1, rows),
                          "c": np.arange(rows, dtype=np.float32), "s": ["x", "yy"] * (rows // 2),
                          "o": np.array([1, "z"] * (rows // 2), dtype=object),
                          "flag": np.arange(rows) % 3 == 0})
    frame["d"] = frame["b"] * 2  # a second float64 block
    for df in (frame, frame.iloc[:7], frame[["o", "a"]], pd.DataFrame()):
        objects = sum(df[c].dtype == object for c in df.columns)
        expected = int(df.memory_usage(index=True, deep=False).sum()) + 64 * len(df) * objects
        assert cache.size_of(df) == expected


def test_cold_computations_run_at_most_two_at_once_and_nested_ones_pass():
    """Eight sessions miss eight keys at once: never more than COLD_RUNS compute
    together, a computation that asks for another result (a figure and its table)
    does not wait for a second place, and every session gets its value."""
    import threading
    import time

    from ui import cache

    store = cache.Shared("test-cold", 64 * cache.MIB)
    running, most = [0], [0]
    lock = threading.Lock()

    def table(n):
        return store.get("table", n, lambda: n * 10, max_entries=32)

    def figure(n):
        def make():
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.02)
            value = table(n) + 1  # nested: passes through the place this call holds
            with lock:
                running[0] -= 1
            return value
        return store.get("figure", n, make, max_entries=32)

    results = {}
    threads = [threading.Thread(target=lambda n=n: results.__setitem__(n, figure(n)))
               for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert results == {n: n * 10 + 1 for n in range(8)}
    assert most[0] <= cache.COLD_RUNS == 2


def test_a_frozen_figure_is_encoded_once_as_plotly_encodes_it():
    import pickle

    import numpy as np
    import plotly.graph_objects as go
    import plotly.io as pio
    import plotly.tools

    from ui import figures

    fig = figures.freeze(go.Figure(go.Scatter(x=np.arange(5), y=np.arange(5.0) / 3)))
    # the calls st.plotly_chart makes: the figure's dict, then that dict encoded
    spec = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
    text = pio.to_json(spec, validate=False)
    assert text == figures._plotly_to_json(dict(fig.spec), validate=False)  # Plotly's own
    assert pio.to_json(spec, validate=False) is text  # written once, then kept
    assert pio.to_json(fig, validate=False) is text and fig.json is text
    assert fig.nbytes == 2 * len(text)
    plain = go.Figure(go.Bar(y=[1, 2]))  # anything else: Plotly's own function
    assert pio.to_json(plain) == figures._plotly_to_json(plain)
    assert pio.to_json(fig, pretty=True) == figures._plotly_to_json(dict(fig.spec), pretty=True)
    assert pickle.loads(pickle.dumps(fig)).json == text


def test_typed_sends_a_matrix_with_its_shape():
    import base64

    import numpy as np

    from ui import typed

    z = np.array([[0.0, np.nan, 2.5], [1.0, 2.0, 3.0]])
    out = typed(z)
    assert out["dtype"] == "f4" and out["shape"] == "2, 3"
    back = np.frombuffer(base64.b64decode(out["bdata"]), dtype="<f4").reshape(2, 3)
    np.testing.assert_array_equal(back, z.astype(np.float32))
    assert "shape" not in typed(np.arange(3.0))


def test_typed_writes_what_plotly_writes_for_a_validated_figure():
    import numpy as np
    import plotly.graph_objects as go

    from ui import freeze, typed

    cases = [np.arange(-300, 300), np.arange(5), np.arange(2**40, 2**40 + 3),
             np.linspace(0, 1, 7), np.arange(6.0).reshape(2, 3), np.array([], dtype=float),
             np.arange(4, dtype=np.float32), np.arange(3, dtype=np.int32)]
    for values in cases:
        plotly = freeze(go.Figure(go.Scatter(y=values))).spec["data"][0]["y"]
        assert typed(values) == plotly, values.dtype


@pytest.mark.parametrize("low, high", [(1 / 8, 1.0), (0.2, 0.9), (5e5, 4.2e6), (0.9, 1.0),
                                       (1.0, 1.5), (3e-4, 2e-3)])
def test_short_log_axes_get_full_number_ticks(low, high):
    """Under a decade: at least three ticks inside the data (padded 5 %), each labelled
    with its own value as a plain decimal number (Plotly would write bare digits)."""
    from ui.i18n import speaking

    with speaking("en"):
        axis = ui.log_axis([low, (low * high) ** 0.5, high])
    assert axis["type"] == "log" and "exponentformat" not in axis
    ticks = axis["tickvals"]
    assert len(ticks) >= 3 and ticks == sorted(ticks)
    assert all(low / 1.05 <= t <= high * 1.05 for t in ticks)
    for value, text in zip(ticks, axis["ticktext"]):
        assert "e" not in text.lower() and "×" not in text
        assert float(text.replace(",", "")) == pytest.approx(value, rel=1e-12)


def test_log_axes_over_a_decade_keep_plotly_ticks():
    assert ui.log_axis([0.01, 1.0]) == {"type": "log", "exponentformat": "power"}
    assert ui.log_axis(None) == ui.LOG_AXIS and ui.log_axis([0, -1]) == ui.LOG_AXIS


def test_line_labels_on_a_log_axis_sit_at_log10():
    """Plotly places an annotation on a log axis in log10 units (shapes in data units)."""
    assert ui.at(1000.0, log=True) == pytest.approx(3.0)
    assert ui.at(1000.0, log=False) == 1000.0
    note = ui.hline_note(100.0, "x", log=True, above=False)
    assert (note["y"], note["yanchor"], note["x"], note["xanchor"]) == (
        pytest.approx(2.0), "top", 1, "right")


def _decode_typed(spec) -> np.ndarray:
    import base64


    return np.frombuffer(base64.b64decode(spec["bdata"]), dtype=spec["dtype"])


@pytest.mark.parametrize("values, dtype", [
    (np.arange(0.0, 100.0), "i1"),                 # positions 0 ... 99
    (np.arange(0.0, 200.0), "u1"),                 # 128 ... 199 do not fit int8
    (np.array([-1.0, 0.0, 300.0]), "i2"),
    (np.arange(0.0, 65_000.0, 7.0), "u2"),
    (np.arange(0.0, 70_000.0, 7.0), "i4"),
    (np.array([-70_000.0, 1e6]), "i4"),
    (np.array([3.0, 2.0 ** 31]), "u4"),            # 2^31 rounds float32 bounds up
    (np.array([-3.0, 2.0 ** 31 - 128]), "i4"),
    (np.array([2.0 ** 24 + 1, 5.0]), "i4"),        # float32 rounds 2^24 + 1 to 2^24
])
def test_whole_numbers_go_as_the_narrowest_integers(values, dtype):
    """A float array of whole numbers reaches the browser as integers, each equal to the
    float32 that was sent before (the numbers drawn and hovered stay the same), in the
    narrowest type of Plotly.js's typed arrays that holds them; the freeze path (a
    validated figure) writes the very same."""
    import plotly.graph_objects as go

    out = ui.typed(values)
    assert out["dtype"] == dtype
    got = _decode_typed(out)
    assert got.tolist() == values.astype(np.float32).astype(float).tolist()
    lo, hi = values.astype(np.float32).min(), values.astype(np.float32).max()
    assert np.iinfo(got.dtype).min <= lo and hi <= np.iinfo(got.dtype).max
    assert ui.freeze(go.Figure(go.Scatter(x=values))).spec["data"][0]["x"] == out


@pytest.mark.parametrize("values", [
    np.array([0.0, 0.5, 1.0]),            # not whole
    np.array([1.0, np.nan, 3.0]),         # a gap
    np.array([-0.0, 1.0]),                # -0 would be shown as 0 by an integer
    np.array([1.0, np.inf]),
    np.array([0.0, 2.0 ** 33]),           # whole, beyond 32 bits
    np.linspace(-1.0, 1.0, 9) / 3,
])
def test_other_floats_go_as_float32(values):
    """Anything but whole numbers in 32 bits stays float32: each value within float32's
    rounding (half a unit in the last place) of the float64 one; NaN, inf and -0.0 kept."""
    out = ui.typed(values)
    assert out["dtype"] == "f4"
    got = _decode_typed(out).astype(float)
    finite = np.isfinite(values)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(values))
    np.testing.assert_array_equal(got[~finite & ~np.isnan(values)],
                                  values[~finite & ~np.isnan(values)])
    half_ulp = np.spacing(np.abs(values[finite]).astype(np.float32)).astype(float) / 2
    assert np.all(np.abs(got[finite] - values[finite]) <= half_ulp)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(values))


def test_integer_arrays_go_as_the_narrowest_integers():
    """Integers of any width: the narrowest of int8, uint8, int16, uint16, int32, uint32
    that holds them, the same integers; beyond 32 bits a plain list (Plotly.js has no
    64-bit typed array)."""
    for values, dtype in [(np.arange(-5, 5, dtype=np.int32), "i1"),
                          (np.array([0, 255], dtype=np.int64), "u1"),
                          (np.array([-129, 0], dtype=np.int16), "i2"),
                          (np.array([0, 40_000], dtype=np.uint64), "u2")]:
        out = ui.typed(values)
        assert out["dtype"] == dtype
        assert _decode_typed(out).tolist() == values.tolist()
    assert ui.typed(np.array([0, 2**40])) == [0, 2**40]


def test_kept_figures_keep_their_hover_formats_and_text():
    """Narrowing touches typed arrays only: every hover template, hover format and label
    of a kept figure is the one the builder wrote."""
    import plotly.graph_objects as go

    hover = "m=%{x}, n=%{customdata[0]}<br>angle %{customdata[1]:+.1f}°<extra></extra>"
    fig = go.Figure(go.Scatter(x=np.arange(4.0), y=np.arange(4.0) / 3, hovertemplate=hover,
                               customdata=np.array([[1.0, 0.25]] * 4), name="q'·k'"))
    fig.update_layout(yaxis=dict(hoverformat=".4f"))
    spec = ui.freeze(fig).spec
    trace = spec["data"][0]
    assert trace["hovertemplate"] == hover and trace["name"] == "q'·k'"
    assert spec["layout"]["yaxis"]["hoverformat"] == ".4f"
    assert trace["x"]["dtype"] == "i1" and trace["y"]["dtype"] == "f4"
    assert trace["customdata"]["dtype"] == "f4" and trace["customdata"]["shape"] == "4, 2"
    np.testing.assert_array_equal(_decode_typed(trace["customdata"]).reshape(4, 2),
                                  np.array([[1.0, 0.25]] * 4))


def test_prose_is_written_once_per_setting_and_language():
    """ui.prose keeps one result per (language, arguments): a second call in the same
    language gets the very same object, another language or argument its own."""
    from ui.i18n import _
    from ui.translation import speaking

    calls = []

    @tables.prose
    def said(n: int) -> tuple[str, ...]:
        calls.append(n)
        return (_("Language"), str(n))

    said.clear()
    with speaking("en"):
        first = said(1)
        assert said(1) is first and first == ("Language", "1")
    with speaking("zh"):
        chinese = said(1)
    assert chinese == ("语言", "1")
    with speaking("en"):
        assert said(1) is first and said(2) == ("Language", "2")
    assert calls == [1, 1, 2]
    said.clear()


def test_an_open_table_view_is_made_once_per_setting(monkeypatch):
    """A table shown in a view (the toggle under its chart) is narrowed on the first
    run that shows it; the runs after it send the kept view, the same cells."""
    from apptest_helpers import run_page, shown_table

    made = []
    narrow = tables.view
    monkeypatch.setattr(tables, "view", lambda df: made.append(len(df)) or narrow(df))
    at = run_page("frequencies", {"dim": "8"})
    at.toggle(key="show_frequencies").set_value(True).run()
    first = shown_table(at)
    assert len(made) == 1
    at.run()
    assert len(made) == 1 and shown_table(at).equals(first)
    at.slider(key="dim").set_value(10).run()  # another setting: its own view
    assert len(made) == 2 and len(shown_table(at)) == 5


def test_table_view_sends_narrow_columns_and_the_same_cells():
    """The table view (st.dataframe) gets each 64-bit integer column in the narrowest
    integer type holding it and text as Arrow's 32-bit-offset ``string``; every cell,
    and the CSV written from it, is the same; floats, and integers beyond int32, stay
    as they are; the cached table itself is not changed."""
    import pyarrow as pa
    from streamlit.dataframe_util import convert_pandas_df_to_arrow_table

    df = pd.DataFrame({"base": [10_000] * 4, "position p [tokens]": [0, 1, 2, 3],
                       "offset": [-200, 0, 5, 200], "big": [0, 1, 2, 2**40],
                       "function": ["sin", "cos", "sin", "cos"],
                       "PE value": [0.0, 1.0, 0.8414709848078965, 0.5403023058681398]})
    before = df.copy()
    view = tables.view(df)
    schema = convert_pandas_df_to_arrow_table(view).schema  # what Streamlit sends
    assert [schema.field(c).type for c in df.columns] == [
        pa.int16(), pa.int8(), pa.int16(), pa.int64(), pa.string(), pa.float64()]
    assert convert_pandas_df_to_arrow_table(df).schema.field("function").type == \
        pa.large_string()  # (what pandas' own text columns give)
    assert view.to_csv(index=False) == df.to_csv(index=False)
    assert view.astype(df.dtypes.to_dict()).equals(df)
    assert tables.view(view) is view  # nothing left to narrow
    pd.testing.assert_frame_equal(df, before)


def test_a_table_shown_as_arrow_sends_the_bytes_streamlit_makes_of_the_dataframe():
    """st.dataframe converts a DataFrame to Arrow on every run; ui.arrow makes that
    table once. The bytes on the wire are the same, for the narrowed views and for a
    table with a text index column, floats, NaN and translated headers."""
    from streamlit import dataframe_util as du

    frames = [
        tables.view(pd.DataFrame({"pair i": [0, 1, 2], "θ": [1.0, 0.01, float("nan")],
                                  "layout": pd.array(["a", "b", "c"], dtype="string")})),
        pd.DataFrame({"维度 i": [3, 4], "base": [10_000.0, 500_000.0]}),
        pd.DataFrame({"x": [1.5]}, index=pd.Index(["row"], name="name")),
    ]
    for df in frames:
        assert du.convert_arrow_table_to_arrow_bytes(tables.arrow(df)) == \
            du.convert_pandas_df_to_arrow_bytes(df)


def test_formulas_are_one_markdown_element_of_display_formulas():
    """ui.formulas sends one element for consecutive formulas, each its own display
    formula ($$ … $$, as st.latex writes it), in order."""
    from streamlit.testing.v1 import AppTest

    def page():
        import ui
        ui.formulas(r"a = b", r"= c \\ d", r"e")

    at = AppTest.from_function(page).run()
    assert not at.latex and len(at.markdown) == 1
    assert at.markdown[0].value == "$$\na = b\n$$\n\n$$\n= c \\\\ d\n$$\n\n$$\ne\n$$"


def test_pair_index_keeps_a_pair_the_head_dim_has(monkeypatch):
    """A pair control offers the pairs of the largest head dim; for a smaller one the page
    uses its last pair and says so (Derivation, Rotation)."""
    from ui import controls

    shown = []
    monkeypatch.setattr(controls.st, "info", lambda text, **kwargs: shown.append(text))
    note = "{asked} {dim} {last} {pair}"
    assert ui.pair_index(8, 64, note) == 8 and ui.pair_index(31, 64, note) == 31
    assert not shown
    assert ui.pair_index(40, 64, note) == 31  # d = 64: pairs 0 … 31
    assert ui.pair_index(0, 2, note) == 0
    assert shown == ["40 64 31 31"]


@pytest.mark.parametrize("base, written", [
    # below 10⁴ the number itself, as a teacher writes it (never "10¹" for ten)
    (10, "10"), (20, "20"), (500, "500"), (1000, "1000"), (5000, "5000"),
    (1234.5, "1234.5"),
    # from 10⁴ on, m·10ᵉ: 10000 = 1 × 10^4, 500000 = 5 × 10^5, 150000 = 1.5 × 10^5
    (10_000, "10⁴"), (20_000, "2·10⁴"), (50_000, "5·10⁴"), (150_000, "1.5·10⁵"),
    (500_000, "5·10⁵"), (1_000_000.0, "10⁶"), (5_000_000, "5·10⁶"), (10**8, "10⁸"),
    (125_000, "1.25·10⁵"),
    # a mantissa of more than three significant digits: the digits
    (123_456, "123456"), (1_234_567.5, "1234567.5"),
])
def test_bases_are_written_as_a_teacher_writes_them(base, written):
    assert ui.fmt_base(base) == written


def test_every_base_of_the_sidebar_and_the_presets_is_written_plainly_or_as_a_power():
    """Each base the sidebar offers and each preset's base, written by ui.fmt_base, reads
    back as that base: the digits below 10⁴, m·10ᵉ (m of up to three significant digits)
    from 10⁴ on."""
    import re

    import rope_core as rc
    from ui.sidebar import BASE_OPTIONS

    powers = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
    for base in [*BASE_OPTIONS, *(c.base for c in rc.PRESETS.values())]:
        written = ui.fmt_base(base)
        if base < 10_000:
            assert written == str(int(base))
            continue
        m, e = re.fullmatch(r"(?:([0-9.]+)·)?10([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", written).groups()
        assert float(m or 1) * 10 ** int(e.translate(powers)) == pytest.approx(base, rel=1e-12)
        assert 1 <= float(m or 1) < 10 and len((m or "1").replace(".", "")) <= 3
