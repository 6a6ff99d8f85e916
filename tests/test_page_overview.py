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
    assert len(at.get("page_link")) == len(PAGES) - 1  # every page but the Overview itself


def test_csv_parses_back_to_the_table_shown():
    at = run_page()
    name, df = csv_frame(at)
    assert name == "identity_dim128_base10000_interleaved.csv"
    pdt.assert_frame_equal(df, shown_table(at).reset_index(drop=True), check_dtype=False)


def test_scores_depend_only_on_offset_and_match_a_dense_matrix():
    at = run_page(None, {"dim": "8", "base": "100"})
    _, df = csv_frame(at)
    size = int(math.isqrt(len(df)))
    score = df["<R_m q, R_n k> [1]"].to_numpy().reshape(size, size)
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
    np.testing.assert_allclose(df["<R_m q, R_n k> [1]"], df["q^T R_(n-m) k [1]"], atol=1e-12)


def test_base_and_dim_change_the_figure_and_table():
    default = run_page()
    changed = run_page(None, {"base": "500000", "dim": "64"})
    assert figure(default)["data"][0]["z"] != figure(changed)["data"][0]["z"]
    _, a = csv_frame(default)
    _, b = csv_frame(changed)
    assert not np.allclose(a["<R_m q, R_n k> [1]"], b["<R_m q, R_n k> [1]"])


def test_half_layout_gives_the_same_identity():
    at = run_page(None, {"layout": "half"})
    _, df = csv_frame(at)
    assert csv_frame(at)[0].endswith("_half.csv")
    np.testing.assert_allclose(df["<R_m q, R_n k> [1]"], df["q^T R_(n-m) k [1]"], atol=1e-12)
    assert torch.isfinite(torch.tensor(df["<R_m q, R_n k> [1]"].to_numpy())).all()
