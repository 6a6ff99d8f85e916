"""AppTest checks of the Long-term decay page (pages/decay.py).

Expected numbers come from independent derivations: the bound written out with
Python complex numbers (cmath), bound(0) = (d/2 + 1)/2 because every |S_j| = j,
the all-ones score 2 * sum_i cos(r theta_i) (= d at r = 0), and for random
Gaussian q, k: E[q^T R k] = 0 and Var = tr(R^T R) = d.
"""

import cmath
import math

import pytest
from apptest_helpers import (
    array,
    bad_link,
    csvs_by,
    figure,
    no_exceptions,
    run_page,
    shown_table,
    warnings,
)
from i18n_helpers import untranslated
from pandas.testing import assert_frame_equal

PAGE = "decay"
BOUND_COLUMNS = ["base", "dim", "axis", "distance r [tokens]", "upper bound",
                 "upper bound / bound(0)"]
SCORE_COLUMNS = ["base", "dim", "layout", "axis", "trials", "seed", "distance r [tokens]",
                 "score q=k=1", "mean random score", "std random score"]


def bound_by_hand(r: float, dim: int, base: float) -> float:
    """(1/(d/2)) sum_{j=1}^{d/2} |sum_{k=0}^{j-1} e^{i r theta_k}|, theta_k = base^(-2k/d)."""
    total, partial = 0.0, 0j
    for k in range(dim // 2):
        partial += cmath.exp(1j * r * base ** (-2 * k / dim))
        total += abs(partial)
    return total / (dim // 2)


def csvs(at) -> dict:
    """{'bound' | 'scores': (file name, frame)} of the page's two downloads."""
    return csvs_by(at, lambda name: "bound" if name.startswith("decay_bound_") else "scores",
                   ("bound", "scores"))


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_renders_two_charts(default_page):
    at = default_page
    assert len(at.get("plotly_chart")) == 2
    assert not at.error
    bound = figure(at, 0)
    assert len(bound["data"]) == 1  # no overlays by default
    assert bound["layout"]["xaxis"]["title"]["text"].endswith("[tokens]")


def test_default_is_roformer_figure_2(default_page):
    """d = 128, base 10^4, every integer distance 0 ... 256."""
    files = csvs(default_page)
    name, bound = files["bound"]
    assert list(bound.columns) == BOUND_COLUMNS
    assert set(bound["base"]) == {10_000.0} and set(bound["dim"]) == {128}
    assert bound["distance r [tokens]"].tolist() == list(range(257))
    assert "dim128" in name and "base10000" in name and "max256" in name and "linear" in name
    assert list(files["scores"][1].columns) == SCORE_COLUMNS


def test_bound_at_zero_and_independent_values(default_page):
    _, bound = csvs(default_page)["bound"]
    by_r = bound.set_index("distance r [tokens]")["upper bound"]
    assert by_r[0.0] == pytest.approx((128 / 2 + 1) / 2, abs=1e-12)  # 32.5
    for r in (1, 7, 100, 256):
        assert by_r[float(r)] == pytest.approx(bound_by_hand(r, 128, 10_000), rel=1e-11)
    # it does decay: the value at 256 is well under a third of the value at 0
    assert by_r[256.0] < by_r[0.0] / 3


def test_scores_aligned_and_random(default_page):
    _, scores = csvs(default_page)["scores"]
    first = scores.iloc[0]
    assert first["distance r [tokens]"] == 0
    assert first["score q=k=1"] == pytest.approx(128, abs=1e-9)
    for r in (3, 200):  # all ones: 2 * sum_i cos(r theta_i)
        row = scores[scores["distance r [tokens]"] == r].iloc[0]
        by_hand = 2 * sum(math.cos(r * 10_000 ** (-2 * i / 128)) for i in range(64))
        assert row["score q=k=1"] == pytest.approx(by_hand, abs=1e-9)


def test_random_scores_mean_zero_spread_sqrt_d():
    at = run_page(PAGE, {"decay_trials": "256", "decay_seed": "5"})
    _, scores = csvs(at)["scores"]
    d, trials = 128, 256
    # the mean of 256 draws has standard error sqrt(d / 256); 4 of those is generous
    assert scores["mean random score"].abs().mean() < 4 * math.sqrt(d / trials)
    assert scores["std random score"].mean() == pytest.approx(math.sqrt(d), rel=0.2)


def test_csv_equals_shown_tables(default_page):
    files = csvs(default_page)
    shown = [shown_table(default_page, i) for i in range(2)]
    shown = {"bound" if "upper bound" in t.columns else "scores": t for t in shown}
    for what in ("bound", "scores"):
        assert_frame_equal(files[what][1], shown[what].reset_index(drop=True))


def test_base_and_dim_change_figure_and_table(default_page):
    before_fig, before = figure(default_page, 0), csvs(default_page)
    at = run_page(PAGE, {"base": "500000", "dim": "64"})
    after_fig, after = figure(at, 0), csvs(at)
    assert after_fig["data"][0]["y"] != before_fig["data"][0]["y"]
    name, bound = after["bound"]
    assert "dim64" in name and "base500000" in name
    assert "dim64" in after["scores"][0] and "base500000" in after["scores"][0]
    assert not bound.equals(before["bound"][1])
    assert set(bound["base"]) == {500_000.0} and set(bound["dim"]) == {64}
    assert bound["upper bound"].iloc[0] == pytest.approx((64 / 2 + 1) / 2, abs=1e-12)
    assert after["scores"][1]["score q=k=1"].iloc[0] == pytest.approx(64, abs=1e-9)
    row = bound[bound["distance r [tokens]"] == 50].iloc[0]
    assert row["upper bound"] == pytest.approx(bound_by_hand(50, 64, 500_000), rel=1e-11)


def test_overlays_and_larger_base_decays_slower():
    at = run_page(PAGE, {"decay_bases": ["500000", "100"], "decay_dims": ["32"]})
    name, bound = csvs(at)["bound"]
    assert len(figure(at, 0)["data"]) == 4
    assert "bases500000-100" in name and "dims32" in name
    curves = {key: block.set_index("distance r [tokens]")["upper bound"]
              for key, block in bound.groupby(["base", "dim"])}
    assert set(curves) == {(10_000.0, 128), (500_000.0, 128), (100.0, 128), (10_000.0, 32)}
    assert curves[(10_000.0, 32)][0.0] == pytest.approx((32 / 2 + 1) / 2, abs=1e-12)
    assert curves[(100.0, 128)][30.0] == pytest.approx(bound_by_hand(30, 128, 100), rel=1e-11)
    # larger base, slower decay: averaged over 100 ... 256 tokens the order is 100 < 10^4 < 5*10^5
    tail = {key: float(c[c.index >= 100].mean()) for key, c in curves.items()}
    assert tail[(100.0, 128)] < tail[(10_000.0, 128)] < tail[(500_000.0, 128)]


def test_overlaid_head_dims_are_each_drawn_over_their_value_at_zero():
    """Head dims 128, 32 and 512 overlaid: each curve is drawn divided by its value at
    r = 0, bound(0) = (1/(d/2)) sum_j j, summed here by hand; it starts at 1 and equals
    the hand-computed bound over that everywhere; the CSV keeps both columns, and the
    y-axis title says so. Same-d overlays keep the bound itself."""
    at = run_page(PAGE, {"decay_dims": ["32", "512"], "decay_bases": ["500000"]})
    bound = csvs(at)["bound"][1]
    fig = figure(at, 0)
    assert "over its value at r = 0" in fig["layout"]["yaxis"]["title"]["text"]
    curves = [(10_000, 128), (500_000, 128), (10_000, 32), (10_000, 512)]
    assert [t["name"] for t in fig["data"]] == ["base 10⁴, d = 128", "base 5·10⁵, d = 128",
                                                "base 10⁴, d = 32", "base 10⁴, d = 512"]
    for trace, (base, dim) in zip(fig["data"], curves):
        at_zero = sum(range(1, dim // 2 + 1)) / (dim // 2)  # every |S_j| = j at r = 0
        ys, rs = array(trace["y"]).tolist(), array(trace["x"]).tolist()
        assert rs[0] == 0 and ys[0] == pytest.approx(1.0, abs=1e-6)
        for index in (1, 7, 100, 256):
            assert rs[index] == index
            assert ys[index] == pytest.approx(bound_by_hand(index, dim, base) / at_zero,
                                              rel=1e-6)  # float32 as sent
        rows = bound[(bound["base"] == base) & (bound["dim"] == dim)]
        assert rows["upper bound"].iloc[0] == pytest.approx(at_zero, abs=1e-12)
        assert (rows["upper bound / bound(0)"] * at_zero).to_numpy() == pytest.approx(
            rows["upper bound"].to_numpy(), rel=1e-14)
        assert rows["upper bound / bound(0)"].iloc[100] == pytest.approx(
            bound_by_hand(100, dim, base) / at_zero, rel=1e-11)
    text = " ".join(md.value for md in at.markdown)
    assert "divides each curve by its value at r = 0" in text
    same_d = run_page(PAGE, {"decay_bases": ["500000"]})  # one d: the bound itself
    assert figure(same_d, 0)["layout"]["yaxis"]["title"]["text"] == "relative upper bound"
    assert array(figure(same_d, 0)["data"][0]["y"])[0] == pytest.approx(32.5)
    assert "divides each curve" not in " ".join(md.value for md in same_d.markdown)


def test_log_axis_and_long_linear_range_are_bounded():
    at = run_page(PAGE, {"decay_max": "1000000", "decay_axis": "log"})
    fig = figure(at, 0)
    assert fig["layout"]["xaxis"]["type"] == "log"
    r = csvs(at)["bound"][1]["distance r [tokens]"]
    assert r.iloc[0] == 1 and r.iloc[-1] == 1_000_000 and r.is_monotonic_increasing
    assert 500 <= len(r) <= 1000 and (r == r.round()).all()

    at = run_page(PAGE, {"decay_max": "1000000", "decay_axis": "linear"})
    r = csvs(at)["scores"][1]["distance r [tokens]"]
    assert r.iloc[0] == 0 and r.iloc[-1] == 1_000_000 and len(r) <= 2000
    assert r.is_monotonic_increasing and (r == r.round()).all()


def test_malformed_url_warns_without_exception():
    at = bad_link(PAGE, {"base": "abc", "dim": "-3", "decay_max": "77", "decay_trials": "0",
                         "decay_axis": "sideways"})
    assert len(at.get("plotly_chart")) == 2  # defaults are used
    _, bound = csvs(at)["bound"]
    assert set(bound["dim"]) == {128} and bound["distance r [tokens]"].max() == 256


def test_text_names_the_prefactor_conjugate_and_plateau():
    at = run_page(PAGE)
    text = " ".join(md.value for md in at.markdown) + " ".join(c.value for c in at.caption)
    assert "size of q and k" not in text
    assert "maxᵢ|hᵢ₊₁ − hᵢ|" in text and "h_(d/2) = 0" in text
    assert "conjugated" in text
    assert "does not keep decaying" in text and "√j" in text
    # (1/64) sum_{j=1}^{64} sqrt(pi j)/2 for d = 128
    plateau = sum(math.sqrt(math.pi * j) / 2 for j in range(1, 65)) / 64
    assert f"{plateau:.2f}" in text


def test_bound_at_a_million_is_above_the_bound_at_256():
    at = run_page(PAGE, {"decay_max": "1000000", "decay_axis": "log"})
    bound = csvs(at)["bound"][1].set_index("distance r [tokens]")["upper bound"]
    # independent: the bound by hand, with cmath, for d = 128, base 10^4
    assert bound_by_hand(256, 128, 10_000) == pytest.approx(6.5431, abs=1e-4)
    assert bound_by_hand(1_000_000, 128, 10_000) == pytest.approx(8.3378, abs=1e-4)
    assert bound.loc[1_000_000] == pytest.approx(bound_by_hand(1_000_000, 128, 10_000),
                                                 rel=1e-9)
    assert bound.loc[1_000_000] > bound_by_hand(256, 128, 10_000)


@pytest.mark.parametrize("query", [
    # one random pair, log axis, the other layout
    {"decay_trials": "1", "decay_axis": "log", "layout": "half"},
    # sampled linear axis (its caption), overlays (sampled first distances)
    {"decay_max": "5000", "decay_bases": ["500000", "100"], "decay_dims": ["32"]},
])
def test_other_settings_in_chinese_show_no_english(query):
    at = run_page(PAGE, {"lang": "zh", **query})
    assert untranslated(at) == {}
    text = " ".join(md.value for md in at.markdown) + " ".join(c.value for c in at.caption)
    assert "远程衰减" in at.title[0].value and "上界" in text


def test_distance_axis_labels_are_translated_and_english_links_still_work():
    """Screenshot review: the axis radio showed "linear / log" on Chinese pages. Its labels
    come from ui.controls.AXIS_LABELS (shared by every page that offers the axis), and an
    English link (?decay_axis=log) still picks the log axis in Chinese."""
    at = run_page(PAGE, {"lang": "zh", "decay_axis": "log"})
    no_exceptions(at)
    radio = at.radio(key="decay_axis")
    assert list(radio.options) == ["线性", "对数"]
    assert radio.value == "log"  # the option itself stays the code name
    assert figure(at, 0)["layout"]["xaxis"]["type"] == "log"
    assert not warnings(at)
    english = run_page(PAGE, {"decay_axis": "log"})
    assert list(english.radio(key="decay_axis").options) == ["linear", "log"]
