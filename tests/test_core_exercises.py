"""rope_core.teaching.exercises: the checks of the exercises notebooks, and
rope_core.support.translation, which says their reports in the student's language.

* the solutions (notebooks/solutions/exercise_solutions.py, written from the formulas)
  pass every check, in both languages and for several seeds;
* every typical mistake of tests/exercise_mistakes.py (written as a student would) fails
  its check with the report that names it, in English and in Chinese (no English word
  left but code);
* the mistakes a check knows are told apart: on each case they differ from the answer
  and from each other, so a name is never ambiguous;
* hand values: θ for d = 8, base 10^4 is 10^-i; the bound at r = 0 is (d/2 + 1)/2; the
  M-RoPE example of the notebook, derived by hand;
* bad arguments raise RopeError naming the parameter; a student's exception or
  NotImplementedError is reported, not raised.
"""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import pytest
import torch
from exercise_mistakes import MISTAKES, define
from i18n_helpers import english_words

import rope_core as rc
from rope_core.beyond import tiny_model as tm
from rope_core.support import translation
from rope_core.teaching import exercises as ex

ROOT = Path(__file__).resolve().parents[1]


def _solutions():
    path = ROOT / "notebooks" / "solutions" / "exercise_solutions.py"
    spec = importlib.util.spec_from_file_location("exercise_solutions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOLUTIONS = _solutions()


def _code_free(text: str) -> str:
    """The report without its code spans (`...`), as a reader's words."""
    return re.sub(r"`[^`]*`", " ", text)


# ------------------------------------------------------------------- solutions pass ----
@pytest.mark.parametrize("name", list(ex.CHECKS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_solutions_pass(name, lang):
    for seed in (0, 1, 7):
        report = ex.CHECKS[name](getattr(SOLUTIONS, name), lang=lang, seed=seed)
        assert report.passed and bool(report), report
        assert report.text().startswith("✓ ") and repr(report) == str(report) == report.text()
        if lang == "zh":
            assert not english_words(_code_free(report.text())), report.text()


def test_every_exercise_has_a_check_and_a_solution():
    assert set(ex.CHECKS) == set(MISTAKES) == {
        name for name in vars(SOLUTIONS) if not name.startswith("_") and callable(
            getattr(SOLUTIONS, name)) and getattr(SOLUTIONS, name).__module__ ==
        "exercise_solutions"}


# ------------------------------------------------------------- mistakes are named ----
CASES = [(name, n) for name, items in MISTAKES.items() for n in range(len(items))]


@pytest.mark.parametrize(("name", "n"), CASES, ids=[f"{name}-{n}" for name, n in CASES])
def test_each_mistake_is_named(name, n):
    said, source = MISTAKES[name][n]
    fn = define(source)
    english = ex.CHECKS[name](fn, lang="en")
    assert not english.passed
    assert english.text().startswith("✗ ")
    assert said in english.text(), english.text()
    assert "Inputs: " in english.text()
    chinese = ex.CHECKS[name](fn, lang="zh")
    assert not chinese.passed and chinese.text() != english.text()
    assert "输入：" in chinese.text()
    assert not english_words(_code_free(chinese.text())), chinese.text()
    problem = english.message.params["problem"]
    assert translation.translator("zh")(problem.template) != problem.template


@pytest.mark.parametrize("name", list(ex.CHECKS))
def test_known_mistakes_are_told_apart(name):
    """On every case of the check, the known mistakes whose values differ from the answer
    (relative 1e-3) differ from each other too, so the one matched is the one made; and
    every mistake shows on some case (one that equals the answer on a case is harmless
    there: the student's result passes that case)."""
    module_cases = {"theta": ex._theta_cases, "apply_rope_interleaved": ex._rope_cases,
                    "apply_rope_half": ex._rope_cases, "relative_score": ex._score_cases,
                    "decay_bound": ex._bound_cases, "yarn_theta": ex._yarn_cases,
                    "mrope_position_ids": ex._mrope_cases}[name]
    mistakes = {"theta": ex._theta_mistakes,
                "apply_rope_interleaved": ex._rope_mistakes("interleaved"),
                "apply_rope_half": ex._rope_mistakes("half"),
                "relative_score": ex._score_mistakes, "decay_bound": ex._bound_mistakes,
                "yarn_theta": ex._yarn_mistakes, "mrope_position_ids": ex._mrope_mistakes}[name]
    answer = getattr(SOLUTIONS, name)
    shown = set()
    for seed in (0, 1):
        for args in module_cases(torch.Generator().manual_seed(seed)):
            right = answer(*args)
            values = {n: m.values() for n, m in enumerate(mistakes(*args))}
            wrong = {n: v for n, v in values.items() if not ex._close(v, right, 1e-3)}
            shown |= set(wrong)
            for a in wrong:
                for b in wrong:
                    assert a <= b or not ex._close(wrong[a], wrong[b], 1e-3), (name, args, a, b)
    assert shown == set(range(len(values)))


# ------------------------------------------------------------------ hand values ----
def test_hand_values():
    # theta_i = (10^4)^(-2i/8) = 10^(-i)
    expected = torch.tensor([1.0, 0.1, 0.01, 0.001], dtype=torch.float64)
    assert torch.allclose(SOLUTIONS.theta(8, 10000.0), expected, rtol=1e-15, atol=0)
    # r = 0: every |S_j| = j, the mean over j = 1 ... d/2 is (d/2 + 1)/2
    assert SOLUTIONS.decay_bound(torch.tensor([0]), rc.theta(8)).item() == pytest.approx(2.5)
    # the notebook's example, by hand: text 0, 1, 2; the 2 x 3 merged image from 3 (rows
    # 3, 4; columns 3, 4, 5); text resumes at 3 + max(2, 3) = 6
    ids = rc.mrope_position_ids([("text", 3), ("image", (1, 4, 6)), ("text", 2)])
    assert ids.tolist() == [[0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7],
                            [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7],
                            [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7]]
    assert SOLUTIONS.mrope_position_ids([("text", 3), ("image", (1, 4, 6)), ("text", 2)]
                                        ).tolist() == ids.tolist()


def test_yarn_solution_against_hugging_face_by_hand():
    """d = 128, base 10^4, L = 4096: i(32) = 128 ln(4096/(64 pi)) / (2 ln 10^4) = 20.94,
    i(1) = 128 ln(4096/(2 pi)) / (2 ln 10^4) = 45.03: low 20, high 46; pair 30 is
    (30 - 20)/26 = 38.5% interpolated (rope_core.yarn_paper_ramp's docstring: 38%)."""
    low = 128 * math.log(4096 / (64 * math.pi)) / (2 * math.log(1e4))
    high = 128 * math.log(4096 / (2 * math.pi)) / (2 * math.log(1e4))
    assert (round(low, 2), round(high, 2)) == (20.94, 45.03)
    theta = SOLUTIONS.yarn_theta(128, 10000.0, 8.0, 4096)
    base = 1e4 ** (-2 * 30 / 128)
    share = 10 / 26
    assert theta[30].item() == pytest.approx(base * (1 - share) + base / 8 * share, rel=1e-14)
    assert theta[20].item() == pytest.approx(1e4 ** (-40 / 128), rel=1e-14)  # kept
    assert theta[46].item() == pytest.approx(1e4 ** (-92 / 128) / 8, rel=1e-14)  # divided
    assert theta[21].item() < 1e4 ** (-42 / 128)  # blended from pair 21 on


def test_identity_gap_is_rounding_only():
    report = ex.check_relative_score(SOLUTIONS.relative_score)
    gap = float(report.message.params["more"].params["gap"])
    assert gap < 1e-9


# ---------------------------------------------------------- what else it reports ----
def test_not_written_and_raising():
    def theta(dim, base):
        raise NotImplementedError

    report = ex.check_theta(theta)
    assert not report.passed and "`raise NotImplementedError`" in report.text()
    assert "theta is not written yet" in report.text()

    def broken(dim, base):
        return torch.zeros(dim // 2) / None

    report = ex.check_theta(broken, lang="zh")
    assert not report.passed and "TypeError" in report.text() and "broken(dim=8" in report.text()


def test_jupyter_shows_the_report_escaped():
    def theta(dim, base):
        raise ValueError("<b>bold</b> & more")

    report = ex.check_theta(theta)
    shown = report._repr_html_()
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in shown and "<b>" not in shown
    assert "#cf222e" in shown and "#1a7f37" in ex.check_theta(SOLUTIONS.theta)._repr_html_()
    chinese = ex.check_theta(theta, lang="zh")._repr_html_()
    assert "<code>theta(dim=8, base=10000.0)</code>" in chinese


def test_nan_and_near_misses():
    def nan_theta(dim, base):
        out = SOLUTIONS.theta(dim, base)
        out[1] = math.nan
        return out

    assert "NaN" in ex.check_theta(nan_theta).text()

    def far_off(dim, base):
        out = SOLUTIONS.theta(dim, base)
        out[2] *= 3
        return out

    text = ex.check_theta(far_off).text()
    assert "differs from rope_core at index (2,): expected 0.01, got 0.03" in text


def test_the_check_cannot_be_fooled_by_writing_into_the_inputs():
    def writes(x, positions, theta):
        out = SOLUTIONS.apply_rope_interleaved(x, positions, theta)
        theta.zero_()
        positions.zero_()
        return out

    assert ex.check_apply_rope_interleaved(writes).passed


def test_bad_arguments_raise_rope_errors():
    with pytest.raises(rc.RopeError, match="^fn=None is not allowed"):
        ex.check_theta(None)
    with pytest.raises(rc.RopeError, match="^lang='fr' is not allowed"):
        ex.check_theta(SOLUTIONS.theta, lang="fr")
    with pytest.raises(rc.RopeError, match="^seed=-1 is not allowed"):
        ex.check_theta(SOLUTIONS.theta, seed=-1)
    with pytest.raises(rc.RopeError, match="^seed=True is not allowed"):
        ex.check_theta(SOLUTIONS.theta, seed=True)


# ------------------------------------------------------------------- translation ----
def test_translator():
    assert translation.translator("en")("Rotation") == "Rotation"
    assert translation.translator("zh")("Rotation") == "旋转"
    message = rc.Message("{result} {more}", result=rc.Message("Rotation"), more="x")
    assert translation.render(message, "zh") == "旋转x"
    assert translation.render("plain", "zh") == "plain"
    with pytest.raises(rc.RopeError, match="^lang='de' is not allowed"):
        translation.translator("de")


def test_catalog_found_where_an_installed_package_keeps_it(tmp_path, monkeypatch):
    """Installed alone, rope_core reads rope_core/locale/ (the checkout's locale/ is
    absent); with neither, the error names lang."""
    folder = tmp_path / "locale" / "zh" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "messages.mo").write_bytes((ROOT / "locale/zh/LC_MESSAGES/messages.mo").read_bytes())
    monkeypatch.setattr(translation, "LOCALE_DIRS", (tmp_path / "absent", tmp_path / "locale"))
    translation.translator.cache_clear()
    try:
        assert translation.locale_dir("zh") == tmp_path / "locale"
        assert translation.translator("zh")("Rotation") == "旋转"
        monkeypatch.setattr(translation, "LOCALE_DIRS", (tmp_path / "absent",))
        translation.translator.cache_clear()
        with pytest.raises(rc.RopeError, match="^lang='zh' is not allowed.*messages.mo"):
            translation.translator("zh")
    finally:
        translation.translator.cache_clear()


# ------------------------------------------------------------- the tiny models ----
def test_tiny_models_say_where_their_files_are(tmp_path):
    assert tm.stored_file(tm.WEIGHTS_DIR, "models.json") == tm.WEIGHTS_DIR / "models.json"
    for call in (lambda: tm.load_models("local", "rope", tmp_path),
                 lambda: tm.read_record(tmp_path), lambda: tm.read_evaluation(tmp_path)):
        with pytest.raises(rc.RopeError, match=r"^folder='.*' is not allowed: folder must be a "
                                               r"folder holding \S+: the tiny models' files"):
            call()
    with pytest.raises(rc.RopeError, match="^folder=3 is not allowed"):
        tm.read_record(3)
