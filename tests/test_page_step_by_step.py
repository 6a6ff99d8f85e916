"""AppTest checks of the Step by step page (pages/step_by_step.py).

The reference numbers are worked out by hand with math: for d = 4, base 10^4,
theta = (10^4^0, 10^4^(-1/2)) = (1, 0.01), so at m = 2 the angles are 2 and 0.02
rad, and each pair (a, b) becomes (a cos - b sin, a sin + b cos).
"""

import math

import pytest
from apptest_helpers import (
    array,
    bad_link,
    csv_frame,
    figure,
    run_page,
    shown_table,
    widened,
)
from pandas.testing import assert_frame_equal

PAGE = "step_by_step"
SETTINGS = ["base", "layout", "d", "m [tokens]"]
COLUMNS = SETTINGS + ["j", "pair i", "theta_i [rad/token]", "angle m*theta_i [rad]",
                      "q_j", "cos", "sin", "rotate(q)_j", "elementwise",
                      "dense R_m q", "complex form"]
FORMS = ["elementwise", "dense R_m q", "complex form"]

# q = (1, 2, 3, 4), m = 2, base 10^4, interleaved pairs (q0, q1), (q2, q3)
C0, S0, C1, S1 = math.cos(2), math.sin(2), math.cos(0.02), math.sin(0.02)
EXPECTED = [1 * C0 - 2 * S0, 1 * S0 + 2 * C0, 3 * C1 - 4 * S1, 3 * S1 + 4 * C1]
ARTICLE = [2.99999194, 4.00000594]  # the seed article's (wrong) q'_2, q'_3


def step_csv(at):
    """(file name, frame) of the per-coordinate table download."""
    for index in range(2):
        name, frame = csv_frame(at, index)
        if "matrix" not in name:
            return name, frame
    raise AssertionError("no step table download")


def matrix_csv(at):
    for index in range(2):
        name, frame = csv_frame(at, index)
        if "matrix" in name:
            return name, frame
    raise AssertionError("no R_m download")


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_renders(default_page):
    at = default_page
    assert len(at.get("plotly_chart")) >= 1
    assert not at.error
    assert any("not" in c.value and "head dim" in c.value for c in at.caption)


def test_default_example_matches_hand_computation(default_page):
    name, table = step_csv(default_page)
    assert name == "step_by_step_d4_m2_base10000_interleaved.csv"
    assert list(table.columns) == COLUMNS
    assert table["theta_i [rad/token]"].tolist() == pytest.approx([1, 1, 0.01, 0.01], abs=1e-15)
    assert table["angle m*theta_i [rad]"].tolist() == pytest.approx([2, 2, 0.02, 0.02],
                                                                     abs=1e-15)
    assert table["cos"].tolist() == pytest.approx([C0, C0, C1, C1], abs=1e-15)
    assert table["sin"].tolist() == pytest.approx([S0, S0, S1, S1], abs=1e-15)
    assert table["rotate(q)_j"].tolist() == [-2.0, 1.0, -4.0, 3.0]
    for form in FORMS:
        assert table[form].tolist() == pytest.approx(EXPECTED, abs=1e-12), form
    # the rounded values quoted in the brief
    assert table["dense R_m q"].round(6).tolist() == [-2.234742, 0.077004, 2.919405,
                                                           4.059196]


def test_article_numbers_are_not_produced(default_page):
    _, table = step_csv(default_page)
    for form in FORMS:
        for wrong, got in zip(ARTICLE, table[form].iloc[2:]):
            assert abs(got - wrong) > 0.05
    # the shown rotated vector (LaTeX) carries the right values, not the article's
    shown = " ".join(x.value for x in default_page.latex)
    assert "2.919405" in shown and "4.059196" in shown
    assert "2.999991" not in shown and "4.000006" not in shown
    assert any("article" in i.value for i in default_page.info)


def test_three_forms_agree_and_metric(default_page):
    _, table = step_csv(default_page)
    gap = max(abs(table[u] - table[v]).max() for u in FORMS for v in FORMS)
    assert gap < 1e-12
    metric = default_page.metric[0]
    assert "difference" in metric.label and float(metric.value) < 1e-12


def test_dense_matrix_by_hand(default_page):
    name, matrix = matrix_csv(default_page)
    assert "d4_m2_base10000_interleaved" in name
    R = matrix.pivot(index="row", columns="column",
                     values="R_m entry").to_numpy()
    expected = [[C0, -S0, 0, 0], [S0, C0, 0, 0], [0, 0, C1, -S1], [0, 0, S1, C1]]
    assert R.tolist() == [pytest.approx(row, abs=1e-15) for row in expected]
    z = array(figure(default_page, 0)["data"][0]["z"])  # the figure carries float32
    assert z.tolist() == [pytest.approx(row, rel=1e-6, abs=1e-7) for row in expected]


def test_csv_equals_shown_table(default_page):
    _, table = step_csv(default_page)
    _, matrix = matrix_csv(default_page)
    shown_table(default_page)  # turns every "show table" toggle on
    frames = [widened(df.value) for df in default_page.dataframe]
    assert len(frames) == 3  # the per-pair table, the step table, R_m
    step = next(f for f in frames if "j" in f.columns)
    shown_matrix = next(f for f in frames if "R_m entry" in f.columns)
    assert_frame_equal(table, step.reset_index(drop=True))
    assert_frame_equal(matrix, shown_matrix.reset_index(drop=True))


def test_base_changes_figure_and_table_dim_does_not(default_page):
    _, before = step_csv(default_page)
    before_z = figure(default_page, 0)["data"][0]["z"]
    at = run_page(PAGE, {"base": "500000", "dim": "64"})
    name, after = step_csv(at)
    assert name == "step_by_step_d4_m2_base500000_interleaved.csv"
    assert figure(at, 0)["data"][0]["z"] != before_z
    assert not after.equals(before)
    t1 = 500_000 ** -0.5  # theta_1 = base^(-2/4)
    c, s = math.cos(2 * t1), math.sin(2 * t1)
    assert after["dense R_m q"].iloc[2:].tolist() == pytest.approx(
        [3 * c - 4 * s, 3 * s + 4 * c], abs=1e-12)
    # the sidebar's head dim alone changes nothing: d is len(q)
    at = run_page(PAGE, {"dim": "64"})
    assert_frame_equal(step_csv(at)[1], before)


def test_half_layout_and_other_input():
    at = run_page(PAGE, {"layout": "half", "step_q": "1, -2, 0.5, 3, 4, 5", "step_m": "-3"})
    assert not at.error
    name, table = step_csv(at)
    assert name == "step_by_step_d6_m-3_base10000_half.csv"
    q = [1, -2, 0.5, 3, 4, 5]
    theta = [10_000 ** (-2 * i / 6) for i in range(3)]
    expected = [0.0] * 6
    for i in range(3):  # half layout: pair i is (i, i + 3)
        a, b = q[i], q[i + 3]
        c, s = math.cos(-3 * theta[i]), math.sin(-3 * theta[i])
        expected[i], expected[i + 3] = a * c - b * s, a * s + b * c
    assert table["rotate(q)_j"].tolist() == [-3.0, -4.0, -5.0, 1.0, -2.0, 0.5]
    for form in FORMS:
        assert table[form].tolist() == pytest.approx(expected, abs=1e-12), form


@pytest.mark.parametrize("text", ["1, two", "1,2,3", "", "1, nan", "1, inf", "1,,2",
                                  ",".join(["1"] * 18)])
def test_invalid_vector_shows_error(text):
    at = run_page(PAGE, {"step_q": text})
    assert len(at.error) == 1
    message = at.error[0].value
    assert "q" in message and "Traceback" not in message
    assert not at.get("plotly_chart") and not at.get("download_button")


def test_malformed_url_warns_without_exception():
    at = bad_link(PAGE, {"base": "abc", "dim": "-3", "step_m": "two"})
    # defaults are used: the worked example again
    _, table = step_csv(at)
    assert table["dense R_m q"].tolist() == pytest.approx(EXPECTED, abs=1e-12)


def test_csvs_carry_settings_ascii_names_and_integers(default_page):
    for index in range(2):
        name, frame = csv_frame(default_page, index)
        assert list(frame.columns[:4]) == SETTINGS, name
        assert frame["base"].tolist() == [10000] * len(frame)
        assert set(frame["layout"]) == {"interleaved"} and set(frame["d"]) == {4}
        assert set(frame["m [tokens]"]) == {2}
        assert frame["base"].dtype.kind == "i" and frame["m [tokens]"].dtype.kind == "i"
        for column in frame.columns:
            assert column.isascii() and "[1]" not in column, column


def test_info_corrects_the_articles_first_pair(default_page):
    text = " ".join(i.value for i in default_page.info)
    # by hand: angle 2 rad, 1*cos 2 - 2*sin 2 and 1*sin 2 + 2*cos 2
    assert f"{1 * C0 - 2 * S0:.6f}" == "-2.234742" and "−2.234742" in text
    assert f"{1 * S0 + 2 * C0:.6f}" == "0.077004" and "0.077004" in text
    # the article's 0.0771 is named as a rounding artefact, not called right
    assert "rounding's artefact" in text
    assert "is right." not in text and "0.0771), is right" not in text
    # the article is named by its title
    assert "RoPE 旋转位置编码详解与计算示例" in text


def test_imaginary_unit_is_not_the_pair_index(default_page):
    shown = " ".join(x.value for x in default_page.latex)
    assert r"\iota" in shown and r"\mathrm{i}" not in shown


def test_half_layout_and_bad_vector_in_chinese():
    """Texts the default view does not show (the half layout's captions, the
    article box's hint, the error for a bad vector) are translated too."""
    from i18n_helpers import untranslated

    at = run_page(PAGE, {"lang": "zh", "layout": "half", "step_q": "0.1, -2.7, 3.3, 4e5, 1, 2",
                         "step_m": "12345"})
    assert not at.error and untranslated(at) == {}
    for text in ["1, two", "1,2,3", "", "1, nan", "1,,2", "1, 1e13", ",".join(["1"] * 18)]:
        at = run_page(PAGE, {"lang": "zh", "step_q": text})
        assert len(at.error) == 1 and "q" in at.error[0].value, text
        assert untranslated(at) == {}, (text, at.error[0].value)
