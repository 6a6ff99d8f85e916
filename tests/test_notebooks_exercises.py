"""The exercises notebooks (notebooks/exercises_{en,zh}.ipynb): current, the same in both
languages, and run by a real kernel.

* the committed files are what tools/make_exercises.py writes (so they never drift from
  their one source), valid nbformat 4;
* the two languages have the same cells, the same code (the setup's LANG aside), and the
  Chinese Markdown has no English words but code and names;
* executed with the solutions filled in, every check cell says ✓; executed with three
  typical mistakes (interleaved pairs taken as halves, i/d for 2i/d, YaRN's ramp reversed)
  and one exercise left as its stub, those four say ✗ with their reports, in the
  notebook's language, and the others ✓. One kernel per notebook run (four runs), the
  venv's Python, found through a kernelspec in a temporary folder (nothing is written in
  the home folder).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
from exercise_mistakes import IN_NOTEBOOK, MISTAKES, define
from i18n_helpers import english_words
from kernel_helpers import KERNEL

from rope_core.teaching import exercises as ex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_exercises as make  # noqa: E402 (tools/make_exercises.py)

STUB_LEFT = "mrope_position_ids"  # left unwritten in the mistakes run


def test_committed_notebooks_are_current():
    for lang in make.LANGS:
        path = make.path(lang)
        assert path.read_text(encoding="utf-8") == make.text(make.notebook(lang)), (
            f"{path.name} is stale: run python tools/make_exercises.py")
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.nbformat == 4
    assert make.main(["--check"]) == 0


def test_both_languages_share_their_cells_and_code():
    en, zh = (make.notebook(lang) for lang in make.LANGS)
    assert [(c.id, c.cell_type) for c in en.cells] == [(c.id, c.cell_type) for c in zh.cells]
    for a, b in zip(en.cells, zh.cells, strict=True):
        if a.cell_type == "code":
            assert a.source.replace('LANG = "en"', 'LANG = "zh"') == b.source
        else:
            assert a.source != b.source  # written in each language
    assert 'LANG = "zh"' in zh.cells[2].source
    exercises = [c.id.removeprefix("exercise-") for c in en.cells if c.id.startswith("exercise-")]
    assert exercises == list(ex.CHECKS)
    for name in exercises:
        stub = next(c for c in en.cells if c.id == f"exercise-{name}").source
        assert stub.startswith(f"def {name}(") and stub.endswith("raise NotImplementedError")
        check = next(c for c in en.cells if c.id == f"check-{name}").source
        assert check == f"ex.check_{name}({name}, lang=LANG)"


def test_chinese_markdown_is_chinese():
    for cell in make.notebook("zh").cells:
        if cell.cell_type == "markdown":
            assert not english_words(cell.source), (cell.id, english_words(cell.source))


def test_solutions_fill_every_stub_with_the_same_signature():
    solutions = make.solution_sources()
    assert set(solutions) == set(make.STUBS)
    for name, stub in make.STUBS.items():
        head = re.sub(r"\s+", " ", stub.split(":\n")[0])
        assert re.sub(r"\s+", " ", solutions[name]).startswith(head), name


def test_notebook_examples_are_rope_core_values():
    """The Markdown's worked values: theta(8, 10^4) and the M-RoPE table."""
    import rope_core as rc

    en = {c.id: c.source for c in make.notebook("en").cells}
    assert "`theta(8, 10000.0)` is `[1, 0.1, 0.01, 0.001]`" in en["explain-theta"]
    assert rc.theta(8, 10000.0).tolist() == pytest.approx([1, 0.1, 0.01, 0.001], rel=1e-15)
    ids = rc.mrope_position_ids([("text", 3), ("image", (1, 4, 6)), ("text", 2)])
    for row, axis in zip(ids.tolist(), "thw", strict=True):
        assert f"| {axis} | " + " | ".join(map(str, row)) + " |" in en["explain-mrope_position_ids"]


# --------------------------------------------------------------- executed notebooks ----
def _run(nb, kernel, folder: Path) -> dict[str, str]:
    """Execute ``nb`` in ``folder`` with one kernel; the text each check cell shows."""
    from nbclient import NotebookClient

    folder.mkdir()
    NotebookClient(nb, kernel_name=KERNEL, timeout=120,
                   resources={"metadata": {"path": str(folder)}}).execute()
    out = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert not errors, (cell.id, errors)
        if cell.id.startswith("check-"):
            (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
            out[cell.id.removeprefix("check-")] = result.data["text/plain"]
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_solved_notebook_passes_every_check(lang, kernel, tmp_path):
    shown = _run(make.notebook(lang, make.solution_sources()), kernel, tmp_path / "run")
    assert list(shown) == list(ex.CHECKS)
    for name, text in shown.items():
        assert text.startswith("✓ "), (name, text)
        if lang == "zh":
            assert "一致" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mistakes_fail_with_their_reports(lang, kernel, tmp_path):
    solutions = make.solution_sources()
    cells = {**solutions, **{name: MISTAKES[name][n][1] for name, n in IN_NOTEBOOK.items()}}
    del cells[STUB_LEFT]  # this exercise keeps its stub
    shown = _run(make.notebook(lang, cells), kernel, tmp_path / "run")
    for name, text in shown.items():
        if name in IN_NOTEBOOK:
            said, source = MISTAKES[name][IN_NOTEBOOK[name]]
            # the notebook's text is the report the check gives in this process
            assert text == ex.CHECKS[name](define(source), lang=lang).text()
            assert text.startswith("✗ ")
            if lang == "en":
                assert said in text
            else:
                assert "输入：" in text and not english_words(re.sub(r"`[^`]*`", " ", text))
        elif name == STUB_LEFT:
            assert text.startswith("✗ ") and "`raise NotImplementedError`" in text
            assert ("not written yet" if lang == "en" else "还没有写") in text
        else:
            assert text.startswith("✓ "), (name, text)
