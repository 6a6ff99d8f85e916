"""Frequencies page: theta, wavelengths, context marker, comparisons, scalings."""

import math

import pandas.testing as pdt
import pytest
from apptest_helpers import assert_frozen_once, csv_frame, figure, run_page, shown_table
from i18n_helpers import untranslated

import rope_core as rc


def test_default_table_matches_hand_formulas():
    at = run_page("frequencies")
    assert len(at.get("plotly_chart")) == 2
    name, df = csv_frame(at)
    assert name == "theta_dim128_base10000_L4096.csv"
    assert len(df) == 64
    for i in (0, 1, 17, 63):
        theta = 10000 ** (-2 * i / 128)
        row = df.iloc[i]
        assert row["pair i"] == i
        assert math.isclose(row["theta_i [rad/token]"], theta, rel_tol=1e-15)
        assert math.isclose(row["wavelength [tokens]"], 2 * math.pi / theta, rel_tol=1e-15)
        assert math.isclose(row["turns within L"], 4096 * theta / (2 * math.pi),
                            rel_tol=1e-15)


def test_count_of_pairs_turning_within_context_is_the_closed_form():
    at = run_page("frequencies")
    _, df = csv_frame(at)
    # turns >= 1  <=>  base^(-2i/d) >= 2 pi / L  <=>  i <= (d/2) * log_base(L / 2 pi)
    limit = 64 * math.log(4096 / (2 * math.pi)) / math.log(10000)
    expected = math.floor(limit) + 1
    assert int(df["full turn within L"].sum()) == expected
    assert any(f"{expected} of 64 pairs" in m.value for m in at.markdown)


def test_csv_parses_back_to_the_table_shown():
    at = run_page("frequencies", {"compare": ["100", "1000000"], "scaling": "linear"})
    _, df = csv_frame(at)
    pdt.assert_frame_equal(df, shown_table(at).reset_index(drop=True), check_dtype=False)


def test_base_and_dim_change_figure_and_table():
    default = run_page("frequencies")
    changed = run_page("frequencies", {"base": "500000", "dim": "64"})
    assert figure(default)["data"][0]["y"] != figure(changed)["data"][0]["y"]
    _, a = csv_frame(default)
    _, b = csv_frame(changed)
    assert len(a) == 64 and len(b) == 32
    assert math.isclose(b["theta_i [rad/token]"][31], 500000 ** (-62 / 64), rel_tol=1e-15)


def test_compare_bases_overlays_up_to_three():
    at = run_page("frequencies", {"compare": ["100", "1000000"]})
    assert len(figure(at)["data"]) == 3
    name, df = csv_frame(at)
    assert name == "theta_dim128_base10000-100-1e06_L4096.csv"
    assert sorted(set(df["base"])) == [100.0, 10000.0, 1e6]


def test_linear_scaling_divides_every_theta_by_the_factor():
    at = run_page("frequencies", {"scaling": "linear", "factor": "8", "dim": "16"})
    name, df = csv_frame(at)
    assert name.endswith("_linearx8.csv")
    scaled = df[df["scaling"] == "linear x8"]
    for i in range(8):
        assert math.isclose(scaled["theta_i [rad/token]"].iloc[i],
                            10000 ** (-2 * i / 16) / 8, rel_tol=1e-15)
    # the scaled model is judged against the extended context 8 * 4096
    assert math.isclose(scaled["turns within L"].iloc[0],
                        8 * 4096 * (1 / 8) / (2 * math.pi), rel_tol=1e-15)
    assert len(figure(at)["data"]) == 2


def test_dynamic_is_compared_with_transformers_factor_one():
    """Issue 19 item 4: dynamic NTK at n = s L with transformers' factor 1 has alpha = n/L =
    s, so its slowest pair is divided by s (as static NTK's), not by s^2 - s + 1 = 57."""
    d, s = 16, 8  # L = 4096, the default
    at = run_page("frequencies", {"scaling": "dynamic", "factor": str(s), "dim": str(d)})
    _, df = csv_frame(at)
    scaled = df[df["scaling"] == f"dynamic x{s}"]
    base_prime = 10_000 * s ** (d / (d - 2))  # base * alpha^(d/(d-2)), alpha = s
    for i in range(d // 2):
        assert math.isclose(scaled["theta_i [rad/token]"].iloc[i],
                            base_prime ** (-2 * i / d), rel_tol=1e-13)
    assert math.isclose(scaled["theta_i [rad/token]"].iloc[-1],
                        10_000 ** (-(d - 2) / d) / s, rel_tol=1e-13)
    text = " ".join(c.value for c in at.caption)
    assert "α = s² − s + 1 at s·L (57 here)" in text and "not 1/8" in text


def test_slow_pairs_identify_not_order_positions():
    text = " ".join(md.value for md in run_page("frequencies").markdown)
    assert "identifies every position" in text and "orders every position" not in text


def test_base_raising_text_is_right_and_index_conventions_reconciled():
    at = run_page("frequencies")
    text = " ".join(md.value for md in at.markdown)
    assert "the reason long-context models raise the base" not in text
    assert "B_m = Σᵢ cos(m θᵢ)" in text and "Men et al. 2024" in text
    assert "i = 1 … d/2" in text and "i = 0 … d/2 − 1" in text


def test_csv_carries_dim_and_context_with_ascii_names():
    at = run_page("frequencies", {"dim": "64"})
    _, df = csv_frame(at)
    assert list(df.columns[:4]) == ["base", "scaling", "dim", "L [tokens]"]
    assert set(df["dim"]) == {64} and set(df["L [tokens]"]) == {4096}
    assert df["base"].dtype.kind == "i" and df["pair i"].dtype.kind == "i"
    for column in df.columns:
        assert column.isascii() and "[1]" not in column


@pytest.mark.parametrize("query", [{}, {"compare": ["100"], "scaling": "yarn", "factor": "8"}])
def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch, query):
    assert_frozen_once(monkeypatch, "frequencies", query, {"theta_plot", "wavelength_plot"})


def test_chinese_scaled_comparison_is_translated():
    at = run_page("frequencies", {"lang": "zh", "compare": ["100"], "scaling": "linear",
                                  "factor": "8"})
    text = " ".join(md.value for md in at.markdown)
    assert "s·L = 32,768" in text and "**64 个维度对中有 46 个**" in text
    names = {trace["name"] for i in range(2) for trace in figure(at, i)["data"]}
    assert "底数 10⁴，线性 x8" in names and "底数 100" in names
    at.toggle(key="show_frequencies").set_value(True).run()
    # the scaling help lists rope_core's SCALING_LABELS, translated by rope_core's catalog
    # entries; the default view's test (test_i18n_pages.py) checks that help text
    labels = [rc.SCALING_LABELS[k] for k in ("none", "linear")]
    found = {text: words for text, words in untranslated(at).items()
             if not all(label in text for label in labels)}
    assert found == {}
