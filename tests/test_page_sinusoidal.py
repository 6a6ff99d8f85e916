"""Page "Sinusoidal" (pages/sinusoidal.py) through AppTest.

Expected numbers are derived here with math.sin / math.cos and Python floats:
PE[p, j] = sin(p / base^(2*(j//2)/d)) for even j and cos(...) for odd j, and
PE_m . PE_n = sum_i cos((m - n) / base^(2i/d)), which is d/2 at m = n.
"""

import math

import pandas as pd
import pytest
from apptest_helpers import (
    array,
    bad_link,
    csv_frame,
    downloads,
    figure,
    no_exceptions,
    run_page,
    widened,
)

PAGE = "sinusoidal"
TABLES = ("sinusoidal_pe_", "sinusoidal_similarity_", "sinusoidal_dot_", "frequency_forms_")


def by_name(at) -> dict:
    """{file-name prefix: (file name, parsed CSV)} for the four downloads."""
    out = {}
    for i, d in enumerate(downloads(at)):
        prefix = next(p for p in TABLES if d["file_name"].startswith(p))
        out[prefix] = csv_frame(at, i)
    return out


def pe_by_hand(p: int, j: int, d: int, base: float) -> float:
    angle = p / base ** (2 * (j // 2) / d)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


@pytest.fixture(scope="module")
def default():
    return run_page(PAGE)


@pytest.fixture(scope="module")
def changed():
    return run_page(PAGE, {"base": "500000", "dim": "64"})


def test_renders_with_charts_and_named_csvs(default):
    assert len(default.get("plotly_chart")) == 4
    assert not default.error and not default.warning
    names = {prefix: name for prefix, (name, _) in by_name(default).items()}
    assert names == {"sinusoidal_pe_": "sinusoidal_pe_P512_d128_base10000.csv",
                     "sinusoidal_similarity_": "sinusoidal_similarity_P128_d128_base10000.csv",
                     "sinusoidal_dot_": "sinusoidal_dot_K511_d128_base10000.csv",
                     "frequency_forms_": "frequency_forms_d128_base10000.csv"}


def test_every_csv_parses_back_to_the_table_shown(default):
    csvs = [csv_frame(default, i) for i in range(4)]
    for t in default.toggle:
        if t.key and t.key.startswith("show_"):
            t.set_value(True)
    default.run()
    no_exceptions(default)
    assert len(default.dataframe) == 4
    for (name, parsed), shown in zip(csvs, default.dataframe):
        pd.testing.assert_frame_equal(parsed, widened(shown.value), obj=name)


def test_table_values_by_hand(changed):
    name, pe = by_name(changed)["sinusoidal_pe_"]
    assert name == "sinusoidal_pe_P512_d128_base500000.csv"  # d_model keeps its own default
    # tidy (long) form: one row per (position, dimension), settings first
    assert list(pe.columns) == ["base", "d_model", "position p [tokens]", "dimension j",
                                "function", "pair i", "PE value"]
    assert pe.shape == (512 * 128, 7)
    assert set(pe["base"]) == {500000} and set(pe["d_model"]) == {128}
    assert pe["position p [tokens]"].dtype.kind == "i" and pe["dimension j"].dtype.kind == "i"
    cells = pe.set_index(["position p [tokens]", "dimension j"])
    for p, j in [(0, 0), (0, 1), (1, 0), (7, 5), (100, 64), (511, 126), (511, 127), (300, 3)]:
        row = cells.loc[(p, j)]
        assert row["PE value"] == pytest.approx(pe_by_hand(p, j, 128, 500000.0), rel=1e-12,
                                                abs=1e-13)
        assert row["function"] == ("sin" if j % 2 == 0 else "cos") and row["pair i"] == j // 2
    assert sorted(set(pe["position p [tokens]"])) == list(range(512))


def test_dot_profile_symmetric_and_half_d_at_zero(changed):
    _, dots = by_name(changed)["sinusoidal_dot_"]
    offsets = dots["m - n [tokens]"].tolist()
    values = dots["PE_m . PE_n"].tolist()
    assert offsets == list(range(-511, 512))
    assert values[511] == pytest.approx(128 / 2, abs=1e-12)  # every pair adds cos 0 = 1
    assert values == pytest.approx(values[::-1], abs=1e-12)  # f(r) = f(-r)
    for r in (1, 17, 300):
        expected = sum(math.cos(r / 500000.0 ** (2 * i / 128)) for i in range(64))
        assert values[511 + r] == pytest.approx(expected, abs=1e-10)
    # the similarity heatmap's table holds the same numbers at m - n = r
    _, sim = by_name(changed)["sinusoidal_similarity_"]
    row = sim[(sim["m [tokens]"] == 40) & (sim["n [tokens]"] == 23)]
    assert float(row["PE_m . PE_n"].iloc[0]) == pytest.approx(values[511 + 17], abs=1e-10)


def test_frequency_forms_measured(changed):
    name, forms = by_name(changed)["frequency_forms_"]
    assert name == "frequency_forms_d64_base500000.csv"  # the sidebar's head dim
    assert sorted(set(forms["dtype"])) == ["float32", "float64"]
    eps = {"float32": 2.0**-23, "float64": 2.0**-52}
    for dtype, block in forms.groupby("dtype"):
        assert block["pair i"].tolist() == list(range(32))
        ref = [500000.0 ** (-2 * i / 64) for i in range(32)]
        assert block["reference omega_i [rad/token]"].tolist() == pytest.approx(ref, rel=1e-14)
        for col in ("relative error pow", "relative error exp"):
            err = block[col]
            assert err.iloc[0] == 0.0  # i = 0: both forms are exactly 1
            # rounding only: a few tens of epsilons at most, nowhere near overflow
            assert err.max() < 32 * eps[dtype]
        formed = block["pow form base^(-2i/d) [rad/token]"]
        assert ((formed - block["reference omega_i [rad/token]"]).abs()
                <= 4 * eps[dtype] * block["reference omega_i [rad/token]"]).all()


def test_base_and_dim_change_figures_and_tables(default, changed):
    old, new = by_name(default), by_name(changed)
    for prefix in TABLES:
        assert not old[prefix][1].equals(new[prefix][1]), prefix
    for index in range(4):  # table, similarity, profile (base); forms (base and dim)
        assert figure(default, index)["data"] != figure(changed, index)["data"], index


def test_every_position_is_a_row_of_the_heatmap_and_the_table_is_capped():
    at = run_page(PAGE, {"sin_positions": "4096", "sin_dmodel": "512"})
    # 4096 x 512 numbers exceed the 2^17-number cap: 2^17 / 512 = 256 positions remain
    assert any("256" in i.value for i in at.info)
    name, pe = csv_frame(at, 0)
    assert name == "sinusoidal_pe_P256_d512_base10000.csv"
    assert pe.shape == (256 * 512, 7)  # long form, 7 columns
    at = run_page(PAGE, {"sin_positions": "4096", "sin_dmodel": "32"})  # 2^12 x 2^5 = 2^17
    assert not at.info
    heat = figure(at, 0)["data"][0]
    # no row is skipped (a skipped row would alias the fast columns): all 4096 are sent
    assert array(heat["y"]).tolist() == list(range(4096))
    z = array(heat["z"])
    assert z.dtype == "int8" and z.shape == (4096, 32)
    # 100·PE rounded: PE[4095, 0] = sin(4095), by hand
    assert z[4095, 0] == round(100 * math.sin(4095))
    assert any("Every one of the 4,096 positions" in c.value for c in at.caption)


def csvs_of(at):
    return list(by_name(at).values())


def test_malformed_url_warns():
    at = bad_link(PAGE, {"base": "abc", "dim": "-3", "sin_dmodel": "7", "sin_positions": "x"})
    name, _ = csv_frame(at, 0)
    assert name == "sinusoidal_pe_P512_d128_base10000.csv"  # defaults used


def test_every_csv_has_settings_and_ascii_names(changed):
    for name, frame in csvs_of(changed):
        assert frame.columns[0] == "base", name
        assert set(frame["base"]) == {500000}
        for column in frame.columns:
            assert column.isascii() and "[1]" not in column, (name, column)


def test_text_does_not_credit_rope_with_telling_before_from_after(default):
    text = " ".join(md.value for md in default.markdown)
    assert "so it can." not in text
    assert "with q = k its score" in text and "just as symmetric" in text
    assert "q ≠ k" in text and "W_Q W_Kᵀ" in text


def test_capped_table_and_other_base_read_in_chinese():
    """The cap notice and the forms' text for another base and head dim, in Chinese."""
    from i18n_helpers import untranslated

    at = run_page(PAGE, {"lang": "zh", "sin_positions": "4096", "sin_dmodel": "512",
                         "base": "10", "dim": "8"})
    assert untranslated(at) == {}
    assert any("**256**" in i.value and "4,096" in i.value for i in at.info)
    text = " ".join(md.value for md in at.markdown)
    assert "幂形式更精确。" in text and "舍入误差" in text
    assert any(r"\text{底数}" in e.value for e in [*at.latex, *at.markdown])
