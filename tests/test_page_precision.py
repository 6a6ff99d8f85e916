"""AppTest checks of the Precision page (pages/precision.py).

Hand derivations: bfloat16 has 8 significant bits, so the spacing is 2 on
[256, 512) and the first integer it cannot hold is 2^8 + 1 = 257; float16 has
11 bits, first inexact 2^11 + 1 = 2049.
"""

import re

import numpy as np
import pytest
from apptest_helpers import (
    array,
    assert_frozen_once,
    csv_frames,
    figure,
    metrics,
    no_exceptions,
    run_page,
    warnings,
)

PAGE = "precision"


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_defaults_render(default_page):
    no_exceptions(default_page)
    assert not default_page.error
    assert len(default_page.get("plotly_chart")) == 4
    fig = figure(default_page, 0)
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["yaxis"]["type"] == "log"


def test_first_inexact_metrics_by_hand(default_page):
    shown_metrics = metrics(default_page)
    assert shown_metrics["float16: first position it cannot hold"] == f"{2**11 + 1:,}"
    assert shown_metrics["bfloat16: first position it cannot hold"] == f"{2**8 + 1:,}"


def test_csvs_ascii_settings_and_bfloat16_spacing(default_page):
    files = csv_frames(default_page)
    assert len(files) == 4
    for name, frame in files.items():
        assert all(c.isascii() for c in frame.columns), name
    spacing = next(f for n, f in files.items() if n.startswith("precision_spacing_"))
    assert spacing.columns[0] == "dtype"
    bf = spacing[(spacing["dtype"] == "bfloat16")
                 & spacing["position m [tokens]"].between(256, 511)]
    assert len(bf) > 5 and (bf["spacing [tokens]"] == 2).all()
    errors = next(f for n, f in files.items() if n.startswith("precision_errors_"))
    assert list(errors.columns[:5]) == ["dim", "base", "dtype", "recipe",
                                        "position m [tokens]"]
    assert errors["position m [tokens]"].max() == 1_000_000
    assert errors.groupby(["dtype", "recipe"]).size().max() <= 300
    assert set(errors["recipe"]) == {"positions", "theta", "product", "cache", "float32_angles"}
    rel = next(f for n, f in files.items() if n.startswith("precision_relative_"))
    assert list(rel.columns[:5]) == ["dim", "base", "recipe", "m [tokens]", "n [tokens]"]
    worst = rel.groupby("dtype")["score difference"].max()
    assert worst["float64"] < 1e-8 and worst["bfloat16"] > 1.0


def test_issue_reproduced(default_page):
    text = " ".join(c.value for c in default_page.caption)
    assert "EleutherAI/gpt-neox" in text and "1003" in text
    issue = next(f for n, f in csv_frames(default_page).items() if "neox" in n)
    assert issue["agrees"].all()
    # by hand: 1857 * 10^4^(-1/16) = 1044.2678...
    assert issue["app"].iloc[0] == pytest.approx(1857 * 10_000 ** (-1 / 16), abs=1e-3)


def test_neox_rounding_explained_by_hand(default_page):
    """Issue 19 item 8: float16 rounds theta_1 first, then the product. theta_1 = 10^(-1/4)
    = 0.562341; in [0.5, 1) float16's spacing is 2^-11, and 0.562341 * 2048 = 1151.67, so
    fl16(theta_1) = 1152 / 2048 = 0.5625; 1857 * 0.5625 = 1044.5625, which float16 (spacing
    1 on [1024, 2048)) rounds to 1045, not to 1044 (the nearest whole number to 1044.27)."""
    assert round(10 ** -0.25 * 2048) == 1152 and 1152 / 2048 == 0.5625
    assert 1857 * 0.5625 == 1044.5625 and round(1044.5625) == 1045
    text = " ".join(m.value for m in default_page.markdown)
    assert "θ₁ = 10⁴^(−1/16) = 0.56234 is 1044.27 rad" in text
    assert "rounded first, to 0.5625; 1857 × 0.5625 = 1044.5625" in text
    assert "rounds that product to 1045: 0.73 rad from the exact angle" in text
    assert "nearest whole number" not in text


def test_transformers_recipe_shown_at_a_million(default_page):
    """Issue 19 item 8: angles formed in float32, cos/sin cast (transformers). At m = 10^6
    float32's spacing is 2^(19 - 23) = 0.0625, so the product's rounding alone reaches
    1/32 rad; the page reports the largest error over pairs (a few hundredths)."""
    files = csv_frames(default_page)
    errors = next(f for n, f in files.items() if n.startswith("precision_errors_"))
    end = errors[(errors["position m [tokens]"] == 1_000_000)
                 & (errors["recipe"] == "float32_angles")]
    assert len(set(end["max angle error [rad]"])) == 1  # the same in every dtype
    assert 0.01 < end["max angle error [rad]"].iloc[0] < 1 / 32 + 0.07
    text = " ".join(m.value for m in default_page.markdown)
    assert "float32's spacing there is 0.0625" in text
    assert "`model.to(torch.bfloat16)`" in text and "recipe theta" in text


def test_bad_dtype_and_position_links():
    at = run_page(PAGE, {"pr_dtypes": ["float8"], "pr_max": "100000000", "pr_recipe": "x"})
    no_exceptions(at)
    page = " ".join(warnings(at))
    assert "pr_dtypes = “float8”" in page and "pr_max = “100000000”" in page
    assert "pr_recipe = “x”" in page
    assert len(at.get("plotly_chart")) == 4


def test_no_dtype_chosen_is_explained():
    at = run_page(PAGE)
    at.multiselect(key="pr_dtypes").set_value([])
    at.run()
    no_exceptions(at)
    assert any("at least one dtype" in w for w in warnings(at))


def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, PAGE, {"pr_max": "10000", "pr_recipe": "theta"},
                       {"pr_spacing_plot", "pr_angle_plot", "pr_cos_plot", "pr_rel_plot"})


def test_first_open_fits_the_payload_budget_and_draws_table_points(default_page):
    charts = default_page.get("plotly_chart")
    assert sum(len(c.proto.spec) for c in charts) <= 300_000  # issue 11
    files = csv_frames(default_page)
    spacing = next(f for n, f in files.items() if n.startswith("precision_spacing_"))
    for trace in figure(default_page, 0)["data"]:  # step lines: only the corners are sent
        rows = spacing[spacing["dtype"] == trace["name"]]
        x, y = array(trace["x"]), array(trace["y"])
        assert len(x) < 40 and x[0] == 1 and x[-1] == 1_000_000
        m = rows["position m [tokens]"].to_numpy()
        held = y[np.searchsorted(x, m, side="right") - 1]  # the step line at every position
        np.testing.assert_array_equal(held, rows["spacing [tokens]"].to_numpy())
    errors = next(f for n, f in files.items() if n.startswith("precision_errors_"))
    for trace in figure(default_page, 2)["data"]:  # sampled error lines: table points
        if trace["x"] == [None]:
            continue  # the legend's key (test_error_legends_are_a_key_that_fits_a_phone)
        dtype, recipe = trace["name"].split(", ")
        recipe = recipe.replace(" ", "_")  # "float32 angles" is recipe float32_angles
        rows = errors[(errors["dtype"] == dtype) & (errors["recipe"] == recipe)]
        x, y = array(trace["x"]), array(trace["y"])
        assert 200 <= len(x) <= 300 and x[0] == 1 and x[-1] == 1_000_000
        by_position = rows.set_index("position m [tokens]")["max cos error"]
        np.testing.assert_allclose(y, by_position.loc[x.astype(np.int64)].to_numpy(), rtol=1e-6,
                                   atol=1e-30)


def test_chinese_without_overflow_shows_no_english():
    """float32 alone up to 1,000, recipe cache: the sentences without float16's overflow."""
    from i18n_helpers import untranslated

    at = run_page(PAGE, {"lang": "zh", "pr_dtypes": ["float32"], "pr_max": "1000",
                         "pr_recipe": "cache", "pr_gap": "1"})
    no_exceptions(at)
    text = " ".join(md.value for md in at.markdown)
    assert "根本没有角度" not in text and "m = 1,000" in text  # no float16 overflow
    assert untranslated(at) == {}


@pytest.mark.parametrize("index", [1, 2])
def test_error_legends_are_a_key_that_fits_a_phone(default_page, index):
    """Screenshot review: fifteen (dtype, recipe) entries made the cos legend a scrolling box
    on a phone. The lines stay out of the legend; a key gives each dtype its colour and
    each recipe its dash, at most 3 + 5 entries, and the y titles are short."""
    fig = figure(default_page, index)
    shown_entries = [t for t in fig["data"] if t.get("showlegend", True)]
    assert len(shown_entries) <= 3 + 5
    assert all(t["x"] == [None] for t in shown_entries)  # key entries draw nothing
    dtypes = {"float32", "float16", "bfloat16"}
    colours = {t["name"]: t["line"]["color"] for t in shown_entries if t["name"] in dtypes}
    assert set(colours) == dtypes and len(set(colours.values())) == 3
    dashes = [t["line"]["dash"] for t in shown_entries if t["name"] not in dtypes]
    assert len(dashes) == len(set(dashes)) == (5 if index == 2 else 4)
    lines = [t for t in fig["data"] if t["x"] != [None]]
    for line in lines:  # each line has its dtype's colour or the dtype-free grey
        dtype = line["name"].split(", ")[0]
        assert line["line"]["color"] == colours.get(dtype, "#444")
    assert len(fig["layout"]["yaxis"]["title"]["text"]) <= 20


def test_chinese_error_axes_are_short():
    at = run_page(PAGE, {"lang": "zh"})
    for index in (1, 2):
        fig = figure(at, index)
        assert len(fig["layout"]["yaxis"]["title"]["text"]) <= 10
        assert sum(t.get("showlegend", True) for t in fig["data"]) <= 8


@pytest.mark.parametrize("lang, after", [("en", "Its reproducer"), ("zh", "其复现代码")])
def test_issue_link_ends_before_the_next_sentence(lang, after):
    """Screenshot review: a bare URL followed by Chinese text became one link that swallowed
    the text after it. The caption writes a Markdown link around the fixed URL, and no
    longer claims that the link is plain text."""
    at = run_page(PAGE, {"lang": lang, "pr_dtypes": ["float16"], "pr_max": "1000"})
    caption = next(c.value for c in at.caption if "issues/1003" in c.value)
    link = re.search(r"\[([^\]]*)\]\((https://[^)\s]*)\)", caption)
    assert link and link.group(2) == "https://github.com/EleutherAI/gpt-neox/issues/1003"
    assert "1003" in link.group(1) and after not in link.group(1)
    assert after in caption[link.end():]
    assert caption.count("https://") == 1  # no second, bare copy for the autolinker
    assert "plain text" not in caption and "纯文本" not in caption
