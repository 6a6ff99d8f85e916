"""Every page with a computed view as a notebook (takehome/, docs/notebooks.md): run top
to bottom in a clean folder, it writes the CSV files the page offers, with the same names,
columns and numbers.

For every page that draws a figure (all but the tour), at its defaults and at a corner
of the sidebar (d = 64, base 5·10⁵, half layout), and for two pages in Chinese too: the
page runs in AppTest (one session per setting, going from page to page as a visitor
does), its CSV downloads are read through the buttons' own data, and its notebook is
made as a press of its button makes it. Each notebook then runs in a kernel
(tests/kernel_helpers.py: this environment's Python, the checkout on its path), in a
folder of its own that starts empty, after ``%reset -f`` (nothing of the notebook before
it is left); one kernel runs them all, one after the other (a kernel's start and torch's
import cost more than most notebooks), and the first runs in a fresh kernel. After each,
the kernel has imported neither the app (ui, views, pages, takehome) nor Streamlit: the
notebook needs rope_core alone (and Plotly for its figures).
"""

from __future__ import annotations

import ast
import json
import os
import re
import time
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from apptest_helpers import csv_buttons, downloads, no_exceptions, notebook, run_page
from kernel_helpers import KERNEL

import rope_core as rc
from takehome import source
from ui.navigation import PAGES

PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"

# the pages that compute (the tour, a lesson over other pages, offers no notebook)
COMPUTED = [spec.name for spec in PAGES if spec.charts and spec.name != "tour"]
CORNER = {"dim": "64", "base": "500000", "layout": "half"}
CHINESE = ("frequencies", "context_extension")
CASES = ([(page, "defaults", {}) for page in COMPUTED]
         + [(page, "corner", CORNER) for page in COMPUTED]
         + [(page, "zh", {**CORNER, "lang": "zh"}) for page in CHINESE])
APP_MODULES = ("ui", "views", "pages", "takehome", "streamlit")
NOTEBOOK_IMPORTS = {*source.ALLOWED, "plotly"}  # rope_core, its libraries, Plotly
RTOL = 1e-9


def _executed(nb: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """``nb`` with a first cell that empties the kernel's namespace and moves into
    ``folder``, and a last one that lists the app's modules the kernel imported."""
    run = nbformat.from_dict(json.loads(json.dumps(nb)))
    run.cells.insert(0, nbformat.v4.new_code_cell(f"%reset -f\n%cd {folder}", id="test-start"))
    run.cells.append(nbformat.v4.new_code_cell(
        "import sys\nsorted({m.split('.')[0] for m in sys.modules} & "
        f"{set(APP_MODULES)!r})", id="test-end"))
    return run


@pytest.fixture(scope="module")
def runs(kernel, tmp_path_factory):
    """{(page, setting): the page's CSVs, its notebook, the notebook executed, the CSV
    files it wrote, the error it raised (None)}; the times are printed."""
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    root = tmp_path_factory.mktemp("notebooks")
    manager = KernelManager(kernel_name=KERNEL)
    manager.start_kernel(cwd=str(root))
    out, spent, sessions = {}, {"app": 0.0, "kernel": 0.0}, {}
    try:
        for page, setting, query in CASES:
            start = time.perf_counter()
            if setting in sessions:  # a visitor going from page to page at that setting
                at = sessions[setting]
                at.switch_page(f"pages/{page}.py")
                at.run()
                no_exceptions(at)
            else:
                at = sessions[setting] = run_page(page, query)
            made = notebook(at)
            page_csvs = {d["file_name"]: d["bytes"] for d in downloads(at)}
            spent["app"] += time.perf_counter() - start
            case = out[(page, setting)] = dict(page=page_csvs, markdown=[
                m.value for m in at.markdown], written={}, error=None, file=None, nb=None)
            if made is None:
                continue
            case["file"], data = made
            case["nb"] = nbformat.reads(data.decode("utf-8"), as_version=4)
            folder = root / f"{page}-{setting}"
            folder.mkdir()
            run = _executed(case["nb"], folder)
            start = time.perf_counter()
            try:
                NotebookClient(run, km=manager, timeout=600).execute()
            except CellExecutionError as err:
                case["error"] = str(err)[-3000:]
            case["seconds"] = time.perf_counter() - start
            spent["kernel"] += case["seconds"]
            case["run"] = run
            case["written"] = {p.name: p.read_bytes() for p in sorted(folder.glob("*.csv"))}
        slowest = sorted(out, key=lambda c: -out[c].get("seconds", 0))[:3]
        print(f"\n{len(CASES)} notebooks: pages {spent['app']:.0f} s, kernel "
              f"{spent['kernel']:.0f} s, {_cpu(manager):.0f} s of its CPU (slowest: " + ", ".join(
                  f"{p} {s} {out[p, s]['seconds']:.1f} s" for p, s in slowest) + ")")
        yield out
    finally:
        manager.shutdown_kernel(now=True)


def _cpu(manager) -> float:
    """CPU seconds the kernel's process has used (Linux; 0 elsewhere)."""
    try:
        pid = manager.provisioner.process.pid
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (AttributeError, OSError, ValueError, IndexError):
        return 0.0


def _same_numbers(name: str, page: bytes, written: bytes) -> None:
    a, b = rc.read_csv(page), rc.read_csv(written)
    assert list(a.columns) == list(b.columns), name
    assert len(a) == len(b), name
    for column in a.columns:
        x, y = a[column], b[column]
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            assert np.allclose(x.to_numpy(float), y.to_numpy(float), rtol=RTOL, atol=0,
                               equal_nan=True), (name, column)
        else:
            assert x.astype(str).tolist() == y.astype(str).tolist(), (name, column)


@pytest.mark.parametrize("page,setting", [(p, s) for p, s, _q in CASES])
def test_notebook_writes_the_csv_files_of_the_page(runs, page, setting):
    case = runs[(page, setting)]
    assert case["nb"] is not None, f"{page} offers no notebook"
    assert case["error"] is None, case["error"]
    assert case["page"], f"{page} offers no CSV"
    assert sorted(case["written"]) == sorted(case["page"])
    for name, data in case["page"].items():
        _same_numbers(name, data, case["written"][name])
    noisy = [c.id for c in case["run"].cells if c.cell_type == "code"
             and any(o.get("name") == "stderr" for o in c.outputs)]
    assert not noisy, f"cells that print to stderr (warnings): {noisy}"
    (end,) = [c for c in case["run"].cells if c.id == "test-end"]
    assert end.outputs[0]["data"]["text/plain"] == "[]", "the notebook imported the app"


@pytest.mark.parametrize("page,setting", [(p, s) for p, s, _q in CASES])
def test_notebook_reads_as_the_page_in_its_language(runs, page, setting):
    """nbformat 4; the page's title and how to install rope_core first, then the
    settings as Python; code that imports rope_core and its libraries only (and Plotly);
    each explanation as the page shows it, its introduction first; in Chinese, Markdown in
    Chinese."""
    case = runs[(page, setting)]
    nb = case["nb"]
    nbformat.validate(nb)
    assert nb.nbformat == 4
    about, settings = nb.cells[0], nb.cells[1]
    assert about.cell_type == "markdown" and about.source.startswith("# ")
    assert "pip install <" in about.source and "pyproject.toml" in about.source
    assert settings.cell_type == "code" and settings.id == "settings"
    for cell in nb.cells:
        if cell.cell_type == "code":
            for node in ast.walk(ast.parse(cell.source)):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) else [])
                assert {n.split(".")[0] for n in names} <= NOTEBOOK_IMPORTS, (cell.id, names)
    texts = [c.source for c in nb.cells if c.id.startswith("text-")]
    assert texts, "no explanation"
    for text in texts:  # as the page shows it (Markdown elements of the page's run)
        assert text in case["markdown"], text[:200]
    if "ui.intro(" in (PAGES_DIR / f"{page}.py").read_text(encoding="utf-8"):
        assert texts[0] == case["markdown"][0], "the page's introduction comes first"
    if setting == "zh":
        for cell in nb.cells:
            if cell.cell_type == "markdown" and cell.id != "files":
                assert re.search(r"[\u4e00-\u9fff]", cell.source), (cell.id, cell.source[:200])


def test_the_tour_offers_no_notebook():
    at = run_page("tour")
    assert notebook(at) is None and not csv_buttons(at)


def test_a_fragment_rerun_replaces_its_notes_in_place(monkeypatch):
    """A section that is an @st.fragment reruns alone when its own controls change (a run
    whose context names it in fragment_ids_this_run): its new notes replace its old ones,
    in its place among the page's (AppTest reruns the whole page, so the contexts are
    stood in for here)."""
    from ui import record as records

    class Run:  # a script run's context: what Record reads of it
        def __init__(self, fragments=None):
            self.cursors, self.fragment_ids_this_run = {}, fragments

    now = {"run": None, "fragment": None}
    monkeypatch.setattr(records, "get_script_run_ctx", lambda: now["run"])
    monkeypatch.setattr(records, "_fragment_id", lambda: now["fragment"])
    record = records.Record("page", "Page", "en")
    record.note("text", None, "outside any run")  # no context: nothing noted

    def draw(fragment, *notes):
        now["fragment"] = fragment
        for note in notes:
            record.note(*note)

    now["run"] = Run()  # a full run: main, fragment F, main, fragment G
    draw(None, ("text", None, "intro"))
    draw("F", ("figure", "f", 1), ("csv", "f_csv", 1))
    draw(None, ("text", None, "middle"))
    draw("G", ("csv", "g_csv", 1))
    assert record.entries() == [("text", None, "intro"), ("figure", "f", 1),
                                ("csv", "f_csv", 1), ("text", None, "middle"),
                                ("csv", "g_csv", 1)]
    now["run"] = Run(["F"])  # F alone, at a new setting, which draws one thing more
    draw("F", ("figure", "f", 2), ("text", None, "new"), ("csv", "f_csv", 2))
    assert record.entries() == [("text", None, "intro"), ("figure", "f", 2),
                                ("text", None, "new"), ("csv", "f_csv", 2),
                                ("text", None, "middle"), ("csv", "g_csv", 1)]
    now["run"] = Run(["G"])
    draw("G", ("csv", "g_csv", 3))
    assert record.entries()[-1] == ("csv", "g_csv", 3) and len(record.entries()) == 6


def test_a_page_with_fragments_is_recorded_by_section():
    """In a real run of Long context, whose three sections are fragments, each section's
    notes are kept apart (by the fragment's id) and in the page's order."""
    from ui.record import RECORD_KEY

    at = run_page("long_context")
    record = at.session_state[RECORD_KEY]
    assert len(record._scopes) == 4  # the main script and three fragments
    csvs = [key for kind, key, _data in record.entries() if kind == "csv"]
    assert csvs == ["lc_ood", "lc_bm", "lc_scan", "lc_men_csv", "lc_presets"]
    at.select_slider(key="lc_bmax").set_value(4096).run()
    _name, data = notebook(at)
    code = "\n".join(c.source for c in nbformat.reads(data.decode(), as_version=4).cells
                     if c.cell_type == "code")
    assert "max_distance = 4096" in code
    written = set(re.findall(r"rc\.write_csv\([^,]+, '([^']+)'\)", code))
    assert written == {d["file_name"] for d in downloads(at)}


@pytest.mark.parametrize("value", [0, 3, -2.5, 1e-300, "a'b\n", None, True, (1.0,),
                                   ((1, 2), (3.5, "x")), [1, 2], {"a": (1, 2)},
                                   np.float64(0.1), np.int64(7), (np.float32(0.5),)])
def test_literals_are_python_that_gives_the_value_back(value):
    text = source.literal(value)
    assert eval(text) == source.plain(value)  # noqa: S307


@pytest.mark.parametrize("value", [object(), float("nan"), range(3), pd.DataFrame()])
def test_values_that_are_no_literal_are_refused(value):
    with pytest.raises(TypeError):
        source.literal(value)


def test_free_names_are_the_globals_a_function_reads():
    node = ast.parse("def f(a, *b, c=1, **d):\n    x = [i for i in a]\n"
                     "    import math as m\n    return g(x, m, len(b), K, f)").body[0]
    assert source.free_names(node) == ["g", "K"]


def test_code_that_reads_the_app_is_refused():
    import views.long_context as view

    with pytest.raises(TypeError, match="ui.constants"):
        source.Code().define(view.liu_table)
