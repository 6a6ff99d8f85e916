"""Page "Attention" (pages/attention.py) through AppTest.

Expected values are derived here independently: the RoPE logit from the dense
rotation matrices R_m (rope_core.rotation_matrix, a second formulation of the
rotation) with theta_i = base^(-2i/d) computed in Python, the softmax with
math.exp, and the structural facts (causal cells -inf / weight 0, rows summing
to 1, flat logits without RoPE and Toeplitz logits with RoPE for a shared q, k).
"""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from apptest_helpers import (
    array,
    assert_frozen_once,
    bad_link,
    csv_frame,
    figure,
    run_page,
    shown_table,
)
from i18n_helpers import untranslated

import rope_core as rc

PAGE = "attention"
M, N = "m [tokens]", "n [tokens]"
L0, W0 = "logit without RoPE", "weight without RoPE"
L1, W1 = "logit with RoPE", "weight with RoPE"
SETTINGS = ["base", "dim", "layout", "seed", "same_q_and_k", "causal"]


def matrix(df: pd.DataFrame, column: str) -> np.ndarray:
    seq = int(df[M].max()) + 1
    return df.pivot(index=M, columns=N, values=column).to_numpy().reshape(seq, seq)


@pytest.fixture(scope="module")
def default():
    # random q and k per token (the page opens on the shared case)
    return run_page(PAGE, {"att_same": "false"})


@pytest.fixture(scope="module")
def default_csv(default):
    return csv_frame(default, 0)


def test_renders_and_csv_round_trips(default, default_csv):
    assert len(default.get("plotly_chart")) == 2
    assert not default.error and not default.warning
    name, parsed = default_csv
    assert name == "attention_seq16_seed0_dim128_base10000_interleaved_causal.csv"
    assert list(parsed.columns) == SETTINGS + [M, N, L0, W0, L1, W1]
    assert parsed["base"].tolist() == [10000] * 256 and parsed["seed"].iloc[0] == 0
    assert not parsed["same_q_and_k"].iloc[0] and parsed["causal"].iloc[0]
    assert parsed[M].dtype.kind == "i" and parsed["dim"].dtype.kind == "i"
    for column in parsed.columns:
        assert column.isascii() and "[1]" not in column
    assert len(parsed) == 16 * 16
    pd.testing.assert_frame_equal(parsed, shown_table(default))


def test_causal_mask_is_minus_inf_and_weights_exactly_zero(default, default_csv):
    _, df = default_csv
    future = df[N] > df[M]
    assert future.sum() == 16 * 15 // 2
    for col in (L0, L1):
        assert np.isneginf(df.loc[future, col]).all()
        assert np.isfinite(df.loc[~future, col]).all()
    for col in (W0, W1):
        assert (df.loc[future, col] == 0.0).all()
        sums = df.groupby(M)[col].sum()
        assert sums.to_numpy() == pytest.approx(np.ones(16), abs=1e-12)
    assert df.loc[(df[M] == 0) & (df[N] == 0), W1].iloc[0] == pytest.approx(1.0, abs=1e-15)
    # masked cells are blank (NaN / null) in every heatmap, the others are drawn
    mask = np.triu(np.ones((16, 16), dtype=bool), 1)
    for index in (0, 1):
        for trace in figure(default, index)["data"]:
            z = array(trace["z"])
            assert np.isnan(z[mask]).all() and np.isfinite(z[~mask]).all()


def test_one_logit_and_weight_by_hand(default_csv):
    _, df = default_csv
    dim, base, seq, m, n = 128, 10000.0, 16, 9, 4
    q, k = rc.toy_qk(seq, dim, 0)  # the page's draws: seed 0, not shared
    theta = torch.tensor([base ** (-2 * i / dim) for i in range(dim // 2)], dtype=torch.float64)
    rotated_q = rc.rotation_matrix(m, theta) @ q[m]
    rotated_k = rc.rotation_matrix(n, theta) @ k[n]
    by_matrix = float(rotated_q @ rotated_k) / math.sqrt(dim)
    plain = sum(a * b for a, b in zip(q[m].tolist(), k[n].tolist())) / math.sqrt(dim)
    row = df[(df[M] == m) & (df[N] == n)].iloc[0]
    assert row[L1] == pytest.approx(by_matrix, rel=1e-12, abs=1e-12)
    assert row[L0] == pytest.approx(plain, rel=1e-12, abs=1e-12)
    # softmax over the visible keys 0 ... m of row m
    logits = [float(rc.rotation_matrix(m, theta) @ q[m] @ (rc.rotation_matrix(j, theta) @ k[j]))
              / math.sqrt(dim) for j in range(m + 1)]
    expected = math.exp(logits[n]) / sum(math.exp(v) for v in logits)
    assert row[W1] == pytest.approx(expected, rel=1e-10)


def test_base_and_dim_change_figures_and_table(default, default_csv):
    at = run_page(PAGE, {"base": "500000", "dim": "64", "att_same": "false"})
    name, df = csv_frame(at, 0)
    assert name == "attention_seq16_seed0_dim64_base500000_interleaved_causal.csv"
    assert not df.equals(default_csv[1])
    for index in (0, 1):
        assert figure(at, index)["data"] != figure(default, index)["data"]


def test_same_q_and_k_flat_without_rope_toeplitz_with():
    at = run_page(PAGE, {"att_seq": "12"})  # the default: the same q and k everywhere
    name, df = csv_frame(at, 0)
    assert name == "attention_seq12_seed0_dim128_base10000_interleaved_sameqk_causal.csv"
    plain, rotated = matrix(df, L0), matrix(df, L1)
    visible = np.tril(np.ones((12, 12), dtype=bool))
    # without RoPE: one value q.k / sqrt(d) everywhere it is visible
    q, k = rc.toy_qk(1, 128, 0)
    value = sum(a * b for a, b in zip(q[0].tolist(), k[0].tolist())) / math.sqrt(128)
    assert plain[visible] == pytest.approx(np.full(visible.sum(), value), rel=1e-12)
    # so row m spreads its weight evenly over keys 0 ... m
    weights = matrix(df, W0)
    for m in range(12):
        assert weights[m, : m + 1] == pytest.approx(np.full(m + 1, 1 / (m + 1)), rel=1e-12)
    # with RoPE: constant along each diagonal (depends on m - n only), not constant overall
    for offset in range(12):
        diagonal = np.diagonal(rotated, offset=-offset)  # cells (m, m - offset)
        assert diagonal == pytest.approx(np.full(diagonal.size, diagonal[0]), abs=1e-12)
    assert np.ptp(rotated[visible]) > 1e-3
    assert np.diagonal(rotated) == pytest.approx(np.full(12, value), rel=1e-12)  # R_m^T R_m = I


def test_without_mask_every_logit_is_finite():
    at = run_page(PAGE, {"att_causal": "false", "att_seq": "5", "att_seed": "3",
                         "att_same": "false"})
    name, df = csv_frame(at, 0)
    assert name == "attention_seq5_seed3_dim128_base10000_interleaved_full.csv"
    assert np.isfinite(df[[L0, L1]].to_numpy()).all()
    assert (df[[W0, W1]].to_numpy() > 0).all()
    for col in (W0, W1):
        assert df.groupby(M)[col].sum().to_numpy() == pytest.approx(np.ones(5), abs=1e-12)


def test_malformed_url_warns():
    at = bad_link(PAGE, {"base": "abc", "dim": "-3", "att_seq": "999", "att_same": "maybe"})
    name, _ = csv_frame(at, 0)
    assert name == "attention_seq16_seed0_dim128_base10000_interleaved_sameqk_causal.csv"


def test_default_is_the_shared_case_and_text_does_not_claim_blindness():
    at = run_page(PAGE)
    assert at.toggle(key="att_same").value is True
    text = " ".join(md.value for md in at.markdown)
    assert "cannot see positions at all" not in text
    # row m of a causal head with equal logits gives 1/(m+1) to each visible key
    assert "1/(m+1)" in text and f"1/16 = {1 / 16:.4f}" in text
    assert "NoPE" in text and "Kazemnejad" in text and "Haviv" in text


def test_weight_colour_scale_shows_every_row_of_equal_weights():
    at = run_page(PAGE)  # shared q, k: without RoPE row m holds 1/(m+1)
    fig = figure(at, 1)
    axis = fig["layout"]["coloraxis"]
    # log10 of the weights: the scale reaches 1/16 and 1, so no row is cut off
    assert axis["cmax"] == pytest.approx(0.0)
    assert axis["cmin"] <= math.log10(1 / 16) + 1e-12
    without = array(fig["data"][0]["z"])
    for m in range(16):  # figure arrays are float32
        assert without[m, : m + 1] == pytest.approx(np.full(m + 1, math.log10(1 / (m + 1))),
                                                   rel=1e-6)
    # the rows have distinct colours: each row's value is inside the scale, distinct
    row_values = [without[m, 0] for m in range(16)]
    assert len(set(np.round(row_values, 9))) == 16
    assert all(axis["cmin"] <= v <= axis["cmax"] for v in row_values)
    assert "log" in fig["layout"]["title"]["text"]


@pytest.mark.parametrize("query", [{}, {"att_same": "false", "att_causal": "false"}])
def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch, query):
    assert_frozen_once(monkeypatch, PAGE, query, {"att_logits", "att_weights"})


@pytest.mark.parametrize("query", [
    {"att_same": "false", "att_causal": "false"},  # random q, k; no mask
    {"att_causal": "false"},                       # shared q, k; no mask
    {"att_seq": "2", "att_same": "false"},          # one masked cell (singular)
    {"layout": "half"},                            # the other layout's title
])
def test_other_settings_in_chinese_show_no_english(query):
    at = run_page(PAGE, {"lang": "zh", **query})
    assert untranslated(at) == {}
    assert at.title[0].value == "有无 RoPE 时的注意力"


def test_heatmaps_have_titled_colour_bars_square_cells_and_one_title_per_axis(default):
    """Screenshot review: colour bars without titles; on a phone the y range grew to
    -20...40 and the second y title and both x titles ran into the first panel."""
    for index, bar_title in ((0, "logit"), (1, "weight")):
        layout = figure(default, index)["layout"]
        assert layout["coloraxis"]["colorbar"]["title"]["text"] == bar_title
        for axis in ("xaxis", "xaxis2", "yaxis", "yaxis2"):
            assert layout[axis]["constrain"] == "domain", axis
        assert (layout["yaxis"]["scaleanchor"], layout["yaxis2"]["scaleanchor"]) == ("x", "x2")
        # one y title (left panel), one x title centred under both panels
        assert layout["yaxis"]["title"]["text"] == "query position m [tokens]"
        assert not (layout["yaxis2"].get("title") or {}).get("text")
        assert not any((layout[a].get("title") or {}).get("text") for a in ("xaxis", "xaxis2"))
        notes = [a for a in layout["annotations"] if a["text"] == "key position n [tokens]"]
        assert len(notes) == 1 and notes[0]["x"] == 0.5 and notes[0]["xref"] == "paper"
        # the panel titles and the x title sit on the shrunken domains, not the paper
        assert [a["yref"] for a in layout["annotations"]] == ["y domain", "y2 domain",
                                                             "y domain"]
        assert [a["text"] for a in layout["annotations"][:2]] == ["without RoPE", "with RoPE"]
