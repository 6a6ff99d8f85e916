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


def text_of(at):
    return " ".join(md.value for md in at.markdown)


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
    assert "after fine-tuning with a base β larger than the training base" in text_of(
        default_page)
    assert "once the base is changed" not in text_of(default_page)
    # at the training base the expression is the critical pair's period, not a limit
    assert metrics[1] == f"{2 * math.pi * base ** (by_hand / d):,.0f} tokens"
    assert "not a bound they state" in text_of(default_page)
    assert not any("Extrapolation limit" in m.label for m in default_page.metric)
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
    islands = next(f for n, f in files.items() if n.startswith("long_context_islands_"))
    assert list(islands.columns[:2]) == ["dim", "context L [tokens]"]
    assert len(islands) > 1 and (islands["width below [%]"] < 1).any()
    presets = next(f for n, f in files.items() if n.startswith("long_context_presets"))
    qwen = presets[presets["preset"] == "Qwen2.5 7B"].iloc[0]
    assert qwen["negative distances"] == 4 and round(qwen["min B_m"], 2) == -0.78


def test_first_negative_distance_marked(default_page):
    text = " ".join(md.value for md in default_page.markdown)
    neg = int(text.split("first turns negative at m = ")[1].split(" ")[0].replace(",", ""))
    assert cos_sum_by_hand(neg, 128, 1e4) < 0
    assert all(cos_sum_by_hand(m, 128, 1e4) >= 0 for m in range(neg))


def test_liu_limit_not_given_for_a_smaller_base():
    """Issue 19 item 1: base 500 after tuning used to report 547 tokens."""
    at = run_page(PAGE, {"lc_newbase": "500"})
    no_exceptions(at)
    assert [m.value for m in at.metric][2] == "not given"
    text = text_of(at)
    assert "547" not in text and "base 500, every pair completes a period" in text


def test_every_offered_search_setting_renders_without_error():
    """Issue 18 goal 4: every head dim / context the search section offers is computed
    (precomputed table): the extremes of each dim render with no error and no warning."""
    import rope_core.limits.breaks as br

    for dim in br.tabulated_dims():
        contexts = br.tabulated_contexts(dim)
        for L in (contexts[0], contexts[-1]):
            r = br.base_bound(dim, L)
            assert r["smallest"] is not None and r["threshold"] >= r["smallest"]
    at = run_page(PAGE, {"dim": "1024", "lc_sdim": "128",
                         "lc_target": str(br.tabulated_contexts(128)[-1])})
    no_exceptions(at)
    assert not at.error and not warnings(at) and not at.first_warnings
    at = run_page(PAGE, {"dim": "2", "base": "100000000", "lc_bmax": "1048576"})
    no_exceptions(at)
    assert not at.error and not warnings(at)


def test_methods_keeping_every_pair_inside_are_named():
    """Issue 19 item 7: static NTK leaves 17 pairs outside at d = 128, base 10^4, L = 4096,
    s = 8; the page says which methods keep every pair inside instead of claiming all do."""
    text = text_of(run_page(PAGE))
    assert "Context-extension methods shrink θᵢ so that" not in text
    assert "static NTK-aware scaling does not" in text
    assert "(17)" in text


def test_bad_link_values_keep_defaults():
    at = run_page(PAGE, {"lc_target": "0", "lc_method": "longrope", "lc_train": "77"})
    no_exceptions(at)
    page = " ".join(warnings(at))
    assert "lc_target = “0”" in page and "lc_method = “longrope”" in page
    assert "lc_train = “77”" in page
    assert [m.value for m in at.metric][0] == "92"


def test_men_fit_comparison_table(default_page):
    """Published fit 0.0424 L^1.628 beside the app's minimum (precomputed, d = 128)."""
    men = next(f for n, f in csv_frames(default_page).items() if "men_fit" in n)
    assert list(men.columns[:2]) == ["dim", "context L [tokens]"]
    assert men["context L [tokens]"].iloc[0] == 1024
    for _, row in men.iterrows():
        L = row["context L [tokens]"]
        assert row["paper fit base"] == pytest.approx(0.0424 * L ** 1.628, rel=1e-12)
        assert row["ratio app/fit"] == pytest.approx(row["app min base"] / row["paper fit base"])
    # the app's minimum at L = 1024 passes; one 0.1% grid step below fails (by hand, all m < L)
    b = men["app min base"].iloc[0]
    assert all(cos_sum_by_hand(m, 128, b) >= -1e-12 for m in range(0, 1024, 1))
    below = b / 1.001
    assert any(cos_sum_by_hand(m, 128, below) < 0 for m in range(1024))


def test_no_exact_to_one_percent_claim():
    """Issue 19 item 6: the old 1% grid skipped narrow islands; no page says "exact to 1%"."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    for path in [*root.glob("pages/*.py"), *root.glob("views/*.py"), root / "README.md",
                 *root.glob("docs/*.md"),
                 root / "locale" / "zh" / "LC_MESSAGES" / "messages.po"]:
        text = path.read_text(encoding="utf-8")
        assert "exact to 1%" not in text and "精确到 1%" not in text, path


def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, PAGE, {"lc_factor": "4", "lc_target": "1024"},
                       {"lc_ood_plot", "lc_wl_plot", "lc_bm_plot", "lc_scan_plot"})


def test_chinese_fit_table_and_other_branches_show_no_english():
    """Non-default settings in Chinese: the fit table and its sentences, B_m's first
    negative distance inside the training length, another method (labels from rope_core)."""
    from i18n_helpers import untranslated

    at = run_page(PAGE, {"lang": "zh", "lc_train": "131072", "lc_newbase": "500",
                         "lc_method": "linear", "lc_factor": "1", "dim": "100"})
    no_exceptions(at)
    assert len(at.dataframe) == 3  # Liu et al., the fit comparison, the presets
    headers = " ".join(str(c) for df in at.dataframe for c in df.value.columns)
    assert "论文拟合的底数" in headers and "临界维度" in headers
    assert untranslated(at) == {}


def test_the_windowed_listing_names_each_presets_first_window_or_chunk(default_page):
    """Final review, latent issue: the listing of layers checked over their window only
    was picked by the word "window" in the group's name, which DeepSeek-V4's compressed
    groups also carry. Derived here from the presets' layer specs: per preset, in order,
    the window of its first rotating layer with a sliding window or attention chunk (a
    compressed layer's raw window does not count: its keys cover the whole context)."""
    from apptest_helpers import shown

    import rope_core as rc

    want = []
    for name, cfg in rc.PRESETS.items():
        windows = [s.window for s in cfg.layer_specs or ()
                   if s.rotates and s.attention in ("sliding", "chunked")]
        if windows:
            want.append(f"{name} ({windows[0]:,})")
    text = " ".join(shown(md.value) for md in default_page.markdown)
    start = "Layers with a window are checked over their window only, since no longer " \
            "distance reaches them: "
    assert f"{start}{', '.join(want)}. A model's other layers" in text
    assert any(s.attention == "compressed" for s in rc.PRESETS["DeepSeek-V4-Flash"].layer_specs)


def test_line_labels_sit_at_log10_of_their_lines_on_log_axes(default_page):
    """Screenshot review: on a log axis Plotly places an annotation at log10(y) (a shape
    at y), so the label "2π: one turn" drawn at y = 2π floated near 10^6.28 and the
    training length's label sat off the chart. Each label must be at log10 of its line."""
    at = default_page
    charts = [figure(at, i) for i in range(len(at.get("plotly_chart")))]
    titled = [(f["layout"]["title"]["text"].replace("<br>", " "), f) for f in charts]
    ood = next(f for t, f in titled if "training vs inference" in t)
    wave = next(f for t, f in titled if "critical dimension" in t)
    (turn,) = [a for a in ood["layout"]["annotations"] if a["text"] == "2π: one turn"]
    assert ood["layout"]["yaxis"]["type"] == "log"
    assert turn["y"] == pytest.approx(0.798179868, abs=1e-9)  # log10(6.283185307) by hand
    assert ood["layout"]["shapes"][0]["y0"] == pytest.approx(2 * math.pi)
    (length,) = [a for a in wave["layout"]["annotations"] if a["text"] == "L = 4,096 tokens"]
    assert wave["layout"]["yaxis"]["type"] == "log"
    assert length["y"] == pytest.approx(12 * math.log10(2))  # 4096 = 2^12
    assert length["xref"] == "x domain" and length["x"] == 0  # at the left end, inside


def test_chinese_preset_table_names_layer_groups_and_headers_in_chinese():
    """Screenshot review: the preset table's layers column showed rope_core's English group
    names and the fit table an English "dim" header; the CSVs keep English ASCII."""
    at = run_page(PAGE, {"lang": "zh"})
    no_exceptions(at)
    presets = next(df.value for df in at.dataframe if "层" in df.value.columns)
    groups = set(presets["层"])
    assert {"RoPE，全局注意力", "RoPE，4,096 的滑动窗口"} <= groups, groups
    assert not any(c.isascii() and c.isalpha() for g in groups for c in g.replace("RoPE", "")
                   .replace("NoPE", "")), groups
    men = next(df.value for df in at.dataframe if "论文拟合的底数" in df.value.columns)
    assert "dim" not in men.columns and "头维度" in men.columns
    frames = csv_frames(at)
    csv = next(f for n, f in frames.items() if n.startswith("long_context_presets"))
    assert "RoPE, full attention" in set(csv["group"])
    men_csv = next(f for n, f in frames.items() if "men_fit" in n)
    assert men_csv.columns[0] == "dim"
