"""Overview page: the relative-position identity, shown and downloadable."""

import math

import numpy as np
import pandas.testing as pdt
import torch
from apptest_helpers import csv_frame, figure, run_page, shown_table

import rope_core as rc
from ui.navigation import PAGES


def test_renders_with_chart_formula_and_links():
    at = run_page()
    assert len(at.get("plotly_chart")) == 1
    assert any("R_{n-m}" in latex.value for latex in at.latex)
    assert len(at.get("page_link")) == len(PAGES) - 1  # every page but the Overview


def test_csv_parses_back_to_the_table_shown():
    at = run_page()
    name, df = csv_frame(at)
    assert name == "identity_dim128_base10000_interleaved.csv"
    pdt.assert_frame_equal(df, shown_table(at).reset_index(drop=True), check_dtype=False)


def test_scores_depend_only_on_offset_and_match_a_dense_matrix():
    at = run_page(None, {"dim": "8", "base": "100"})
    _, df = csv_frame(at)
    size = int(math.isqrt(len(df)))
    score = df["<R_m q, R_n k>"].to_numpy().reshape(size, size)
    # Toeplitz: constant along every diagonal n - m
    for offset in range(-(size - 1), size):
        diagonal = np.diagonal(score, offset=offset)
        assert np.ptp(diagonal) < 1e-12
    # Second formulation: dense block-diagonal rotation built here with numpy.
    q, k = rc.toy_qk(1, 8, 7)  # the page's documented seed: same draws
    q, k = q[0].numpy(), k[0].numpy()
    theta = [100 ** (-2 * i / 8) for i in range(4)]

    def R(m):
        out = np.zeros((8, 8))
        for i, t in enumerate(theta):
            c, s = math.cos(m * t), math.sin(m * t)
            out[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
        return out

    for m, n in [(0, 0), (3, 10), (20, 5), (size - 1, 0)]:
        expected = (R(m) @ q) @ (R(n) @ k)
        assert math.isclose(score[m, n], expected, rel_tol=1e-12, abs_tol=1e-12)
    np.testing.assert_allclose(df["<R_m q, R_n k>"], df["q^T R_(n-m) k"], atol=1e-12)


def test_base_and_dim_change_the_figure_and_table():
    default = run_page()
    changed = run_page(None, {"base": "500000", "dim": "64"})
    assert figure(default)["data"][0]["z"] != figure(changed)["data"][0]["z"]
    _, a = csv_frame(default)
    _, b = csv_frame(changed)
    assert not np.allclose(a["<R_m q, R_n k>"], b["<R_m q, R_n k>"])


def test_half_layout_gives_the_same_identity():
    at = run_page(None, {"layout": "half"})
    _, df = csv_frame(at)
    assert csv_frame(at)[0].endswith("_half.csv")
    np.testing.assert_allclose(df["<R_m q, R_n k>"], df["q^T R_(n-m) k"], atol=1e-12)
    assert torch.isfinite(torch.tensor(df["<R_m q, R_n k>"].to_numpy())).all()


def test_csv_carries_its_settings_and_plain_names():
    at = run_page(None, {"dim": "8", "base": "100", "layout": "half"})
    _, df = csv_frame(at)
    assert list(df.columns[:4]) == ["base", "dim", "layout", "seed"]
    assert df["base"].tolist() == [100] * len(df) and df["dim"].iloc[0] == 8
    assert df["layout"].iloc[0] == "half" and df["seed"].iloc[0] == 7
    assert df["m [tokens]"].dtype.kind == "i" and df["base"].dtype.kind == "i"
    for name in df.columns:
        assert name.isascii() and "[1]" not in name


def test_fast_pair_turns_once_every_two_pi_tokens():
    at = run_page()
    text = " ".join(md.value for md in at.markdown)
    assert "about once per token" not in text and "spin about once" not in text
    # theta_0 = base^0 = 1 rad/token: one turn takes 2 pi = 6.283... tokens
    assert f"{2 * math.pi:.1f} tokens" in text
    # the slowest pair of d = 128, base 10^4: 2 pi / 10^4^(-126/128) tokens
    assert f"{2 * math.pi * 10_000 ** (126 / 128):,.0f} tokens" in text
