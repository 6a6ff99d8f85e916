"""AppTest checks of the Long context page (pages/long_context.py).

Expected numbers are derived here independently: Liu et al.'s critical
dimension from its closed form, B_m as a math.cos sum, the extrapolation limit
2 pi base^(d_extra/d).
"""

import math

import pytest
from apptest_helpers import (
    assert_frozen_once,
    csv_frames,
    figure,
    no_exceptions,
    run_page,
    warnings,
)

PAGE = "long_context"


def cos_sum_by_hand(m, dim, base):
    return sum(math.cos(m * base ** (-2 * i / dim)) for i in range(dim // 2))


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_defaults_render(default_page):
    at = default_page
    no_exceptions(at)
    assert not at.error
    assert len(at.get("plotly_chart")) == 4
    assert figure(at, 0)["layout"]["yaxis"]["type"] == "log"


def test_critical_dimension_llama2_by_closed_form(default_page):
    d, base, L = 128, 1e4, 4096
    by_hand = 2 * math.ceil((d / 2) * math.log(L / (2 * math.pi)) / math.log(base))
    assert by_hand == 92
    metrics = [m.value for m in default_page.metric]
    assert metrics[0] == str(by_hand)
    limit = 2 * math.pi * 1e6 ** (by_hand / d)
    assert metrics[2] == f"{limit:,.0f} tokens"
    text = " ".join(md.value for md in default_page.markdown)
    assert "d_extra = 92" in text
    comparison = default_page.dataframe[0].value
    assert comparison["paper critical dimension"].iloc[0] == 92
    assert bool(comparison["matches"].iloc[0])


def test_csvs_ascii_and_settings_columns(default_page):
    files = csv_frames(default_page)
    for name, frame in files.items():
        assert all(c.isascii() for c in frame.columns), name
        assert "[1]" not in " ".join(frame.columns)
    angles = next(f for n, f in files.items() if n.startswith("long_context_angles_"))
    assert list(angles.columns[:5]) == ["dim", "base", "train context L [tokens]", "factor s",
                                        "method"]
    assert set(angles["method"]) == {"none", "yarn"}
    bm = next(f for n, f in files.items() if n.startswith("long_context_bm_"))
    assert list(bm.columns[:2]) == ["dim", "base"]
    row = bm.iloc[100]
    assert row["B_m"] == pytest.approx(
        cos_sum_by_hand(row["distance m [tokens]"], 128, 1e4), abs=1e-9)
    scan = next(f for n, f in files.items() if n.startswith("long_context_base_scan_"))
    assert list(scan.columns[:2]) == ["dim", "context L [tokens]"]
    assert scan["passes"].any() and not scan["passes"].all()


def test_first_negative_distance_marked(default_page):
    text = " ".join(md.value for md in default_page.markdown)
    neg = int(text.split("first turns negative at m = ")[1].split(" ")[0].replace(",", ""))
    assert cos_sum_by_hand(neg, 128, 1e4) < 0
    assert all(cos_sum_by_hand(m, 128, 1e4) >= 0 for m in range(neg))


def test_context_too_large_for_dim_says_so():
    at = run_page(PAGE, {"dim": "1024", "lc_target": "1048576"})
    no_exceptions(at)
    msg = " ".join(e.value for e in at.error)
    assert "not computed at d" in msg and "1048576" in msg.replace(",", "").replace("\\", "")


def test_bad_link_values_keep_defaults():
    at = run_page(PAGE, {"lc_target": "0", "lc_method": "longrope", "lc_train": "77"})
    no_exceptions(at)
    page = " ".join(warnings(at))
    assert "lc_target = “0”" in page and "lc_method = “longrope”" in page
    assert "lc_train = “77”" in page
    assert [m.value for m in at.metric][0] == "92"


def test_men_fit_comparison_table():
    """Published fit 0.0424 L^1.628 beside the app's minimum (heavier: 6 contexts to 2^20)."""
    at = run_page(PAGE, {"lc_men": "true"})
    men = next(f for n, f in csv_frames(at).items() if "men_fit" in n)
    assert list(men.columns[:2]) == ["dim", "context L [tokens]"]
    assert men["context L [tokens]"].tolist() == [1024, 4096, 16384, 65536, 262144, 1048576]
    for _, row in men.iterrows():
        L = row["context L [tokens]"]
        assert row["paper fit base"] == pytest.approx(0.0424 * L ** 1.628, rel=1e-12)
        assert row["ratio app/fit"] == pytest.approx(row["app min base"] / row["paper fit base"])
    # the app's minimum at L = 1024 passes; one 1% grid step below fails (by hand, all m < L)
    b = men["app min base"].iloc[0]
    assert all(cos_sum_by_hand(m, 128, b) >= -1e-12 for m in range(0, 1024, 1))
    below = b / 1.01
    assert any(cos_sum_by_hand(m, 128, below) < 0 for m in range(1024))


def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, PAGE, {"lc_factor": "4", "lc_target": "1024"},
                       {"lc_ood_plot", "lc_wl_plot", "lc_bm_plot", "lc_scan_plot"})


def test_chinese_fit_table_and_other_branches_show_no_english():
    """Non-default settings in Chinese: the fit table and its sentences, B_m's first
    negative distance inside the training length, another method (labels from rope_core)."""
    from i18n_helpers import untranslated

    at = run_page(PAGE, {"lang": "zh", "lc_men": "true", "lc_train": "131072",
                         "lc_method": "linear", "lc_factor": "1"})
    no_exceptions(at)
    assert len(at.dataframe) == 3  # Liu et al., the fit comparison, the presets
    headers = " ".join(str(c) for df in at.dataframe for c in df.value.columns)
    assert "论文拟合的底数" in headers and "临界维度" in headers
    assert untranslated(at) == {}
