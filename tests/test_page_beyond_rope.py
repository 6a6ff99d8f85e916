"""Beyond RoPE page: every encoding's logit against distance, the training length, the toy
head's maps; numbers checked against closed forms computed here from the documented draw
(q, k = torch.randn(1, d) twice from a generator seeded with the page's seed)."""

import math

import numpy as np
import pytest
import torch
from apptest_helpers import array, assert_frozen_once, csv_frames, figure, run_page, warnings

import rope_core as rc

SCORES = "beyond_scores_dim128_base10000_interleaved_max2048_p0p75_slope16_qk-same_seed0.csv"
MAP = "beyond_attention_dim128_base10000_interleaved_seq32_start0_p0p75_slope16_same_seed0.csv"


def draw(dim, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, dim, generator=g, dtype=torch.float64)[0]
    k = torch.randn(1, dim, generator=g, dtype=torch.float64)[0]
    return q, k


def rope_by_hand(q, k, r, base):
    """<R_m q, R_n k>/sqrt(d) as Re sum_i q_i conj(k_i) e^(i r theta_i), interleaved pairs;
    xPos weights pair i by zeta_i^(r/512) with zeta_i = (2i/d + 0.4)/1.4."""
    d = q.numel()
    i = np.arange(d // 2)
    th = base ** (-2 * i / d)
    qc = q[0::2].numpy() + 1j * q[1::2].numpy()
    kc = k[0::2].numpy() + 1j * k[1::2].numpy()
    terms = (qc * np.conj(kc) * np.exp(1j * r * th)).real
    zeta = (2 * i / d + 0.4) / 1.4
    return terms.sum() / math.sqrt(d), (zeta ** (r / 512) * terms).sum() / math.sqrt(d)


def test_default_scores_match_closed_forms():
    at = run_page("beyond_rope")
    assert len(at.get("plotly_chart")) == 3
    frames = csv_frames(at)
    assert set(frames) == {SCORES, MAP}
    df = frames[SCORES]
    assert len(df) == 6 * 600 and list(df.columns[:4]) == ["vectors", "dim", "base", "layout"]
    q, _ = draw(128, 0)  # q = k
    nope = float(q @ q) / math.sqrt(128)
    grid = df["distance r [tokens]"].unique()
    assert grid[0] == 0 and grid[-1] == 2048 and len(grid) == 600
    for r in grid[[0, 1, 2, 150, 151, 599]]:
        r = int(r)
        rows = df[df["distance r [tokens]"] == r].set_index("encoding")["logit"]
        rope, xpos = rope_by_hand(q, q, r, 1e4)
        assert math.isclose(rows["NoPE"], nope, rel_tol=1e-12)
        assert math.isclose(rows["ALiBi"], nope - r / 16, rel_tol=1e-12, abs_tol=1e-9)
        assert math.isclose(rows["RoPE"], rope, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(rows["xPos"], xpos, rel_tol=1e-9, abs_tol=1e-9)
        # p = 0.75 of 64 pairs: the 48 fastest rotate, 16 keep q_a^2 + q_b^2
        half = q.numel() // 2
        qc = q[0::2].numpy() + 1j * q[1::2].numpy()
        th = 1e4 ** (-2 * np.arange(half) / 128)
        th[48:] = 0
        p_rope = (np.abs(qc) ** 2 * np.cos(r * th)).sum() / math.sqrt(128)
        assert math.isclose(rows["p-RoPE"], p_rope, rel_tol=1e-9, abs_tol=1e-9)
        # sinusoidal: query at m = 2048, key at m - r, PE from the table
        pe = rc.sinusoidal_pe(2049, 128)
        sin = float((q + pe[2048]) @ (q + pe[2048 - r])) / math.sqrt(128)
        assert math.isclose(rows["sinusoidal"], sin, rel_tol=1e-9, abs_tol=1e-9)
    text = " ".join(md.value for md in at.markdown)
    assert "at r = L it is 32.0 lower" in text  # 512 / 16
    assert "rotates the 48 fastest of the 64 pairs" in text
    assert f"{0.4 / 1.4:.3g} for the fastest pair" in text  # zeta_0^(512/512)
    assert f"{(126 / 128 + 0.4) / 1.4:.3g} for the slowest" in text
    # blockwise causal attention at L = 512: blocks of 256, farthest key 2 * 256 - 1 back
    assert "no key is more than 511 tokens back" in text
    assert "Gemma 2B experiments, measured at the 8,192-token training length" in text


def test_markers_sit_on_each_curve_at_the_training_length():
    at = run_page("beyond_rope", {"beyond_vectors": "random q, k", "beyond_L": "256",
                                  "beyond_seed": "5"})
    fig = figure(at, 0)
    marks = fig["data"][-1]
    assert list(array(marks["x"])) == [256] * 6
    q, k = draw(128, 5)
    rope, xpos = rope_by_hand(q, k, 256, 1e4)
    nope = float(q @ k) / math.sqrt(128)
    y = array(marks["y"])  # sent as float32
    expected = [rope, None, xpos, nope - 256 / 16, nope, None]
    for got, want in zip(y, expected):
        if want is not None:
            assert math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-5)
    shapes = fig["layout"]["shapes"]
    assert any(s.get("x0") == 256 and s.get("x1") == 1024 for s in shapes)  # shaded past L


@pytest.mark.parametrize("p,same_as", [("1", "RoPE"), ("0", "NoPE")])
def test_p_one_is_rope_and_p_zero_is_nope_on_the_page(p, same_as):
    at = run_page("beyond_rope", {"beyond_p": p, "dim": "16"})
    df = next(iter(csv_frames(at).values()))
    p_rope = df[df["encoding"] == "p-RoPE"]["logit"].to_numpy()
    other = df[df["encoding"] == same_as]["logit"].to_numpy()
    np.testing.assert_allclose(p_rope, other, rtol=1e-12, atol=1e-12)
    text = " ".join(md.value for md in at.markdown)
    assert f"rotates {'every pair: it is RoPE' if p == '1' else 'nothing: it is NoPE'}" in text


def test_attention_map_closed_forms_for_shared_q_and_k():
    at = run_page("beyond_rope")
    att = csv_frames(at)[MAP]
    assert len(att) == 6 * 32 * 33 // 2
    last = att[att["m [tokens]"] == 31]
    nope = last[last["encoding"] == "NoPE"]["weight"].to_numpy()
    np.testing.assert_allclose(nope, np.full(32, 1 / 32), rtol=1e-12)  # all logits equal
    alibi = last[last["encoding"] == "ALiBi"].sort_values("n [tokens]")
    r = 31 - alibi["n [tokens]"].to_numpy()
    expected = np.exp(-r / 16) / np.exp(-np.arange(32) / 16).sum()  # e^(-s r), normalised
    np.testing.assert_allclose(alibi["weight"].to_numpy(), expected, rtol=1e-12)
    text = " ".join(md.value for md in at.markdown)
    assert "15.5 with NoPE" in text and "uniform weights give 15.5" in text


def test_moving_the_window_changes_only_the_sinusoidal_map():
    base = csv_frames(run_page("beyond_rope", {"beyond_same": "false", "dim": "32"}))
    moved = csv_frames(run_page("beyond_rope", {"beyond_same": "false", "dim": "32",
                                                "beyond_start": "4096"}))
    a = next(df for name, df in base.items() if "attention" in name)
    b = next(df for name, df in moved.items() if "attention" in name)
    assert b["m [tokens]"].min() == 4096
    for encoding in ("RoPE", "p-RoPE", "xPos", "ALiBi", "NoPE"):
        np.testing.assert_allclose(b[b["encoding"] == encoding]["weight"].to_numpy(),
                                   a[a["encoding"] == encoding]["weight"].to_numpy(),
                                   rtol=1e-7, atol=1e-9)
    assert not np.allclose(b[b["encoding"] == "sinusoidal"]["weight"].to_numpy(),
                           a[a["encoding"] == "sinusoidal"]["weight"].to_numpy())


@pytest.mark.parametrize("query", [
    {"dim": "2", "base": "10", "beyond_L": "8192", "beyond_reach": "8", "beyond_p": "0.25",
     "beyond_seq": "128", "beyond_start": "262144", "beyond_map": "xPos"},
    {"dim": "1024", "base": "100000000", "beyond_L": "8192", "beyond_reach": "8",
     "beyond_vectors": "random q, k", "beyond_seq": "128", "beyond_slope": "1/2",
     "layout": "half", "beyond_map": "sinusoidal", "beyond_same": "false"},
])
def test_extremes_render(query):
    at = run_page("beyond_rope", query)
    assert len(at.get("plotly_chart")) == 3 and not at.error and not warnings(at)


def test_bad_link_values_warn_and_the_page_still_draws():
    at = run_page("beyond_rope", {"beyond_p": "2", "beyond_seq": "1000", "beyond_map": "bogus"})
    shown = " ".join(at.first_warnings + warnings(at))
    assert "beyond_p" in shown or "p-RoPE" in shown
    assert len(at.get("plotly_chart")) == 3 and not at.error


def test_figures_are_built_once_per_setting(monkeypatch):
    assert_frozen_once(monkeypatch, "beyond_rope", None,
                       {"beyond_score_plot", "beyond_map_plot", "beyond_row_plot"})


def test_chinese_names_and_axis():
    at = run_page("beyond_rope", {"lang": "zh"})
    names = [trace["name"] for trace in figure(at, 0)["data"]]
    assert "正弦位置编码" in names and "RoPE" in names and "ALiBi" in names
    assert figure(at, 0)["layout"]["xaxis"]["title"]["text"] == "相对距离 r = m − n（词元）"


def test_every_encoding_has_its_own_colour_dash_and_marker():
    """Screenshot review: p-RoPE and NoPE, xPos and sinusoidal looked alike, and RoPE
    hid under p-RoPE and xPos. Each encoding differs from every other in colour and in
    dash (so also in greyscale), in the marker where there are markers; RoPE is drawn
    first and widest, so a curve on top of it leaves its band visible."""
    at = run_page("beyond_rope")
    last_row = next(f for f in (figure(at, i) for i in range(3))
                    if all(t.get("mode") == "lines+markers" for t in f["data"]))
    for fig in (figure(at, 0), last_row):
        lines = [t for t in fig["data"] if "lines" in t.get("mode", "")]
        assert len(lines) == 6
        for key in ("color", "dash"):
            assert len({t["line"][key] for t in lines}) == 6, key
        assert lines[0]["name"] == "RoPE"
        assert lines[0]["line"]["width"] > max(t["line"]["width"] for t in lines[1:])
    assert len({t["marker"]["symbol"] for t in last_row["data"]}) == 6
    marks = figure(at, 0)["data"][-1]["marker"]  # the values at r = L
    assert len(set(marks["symbol"])) == len(set(marks["color"])) == 6


def test_pairs_too_fast_for_the_samples_are_drawn_as_an_envelope():
    """Issue 44, item 8: samples 2048 / 599 = 3.42 tokens apart would alias the fastest pairs
    (theta_i = 10^(-i/16) > 2 pi / (4 x 3.42) = 0.459 for i <= 5: 6 pairs) into slower
    ripples. The lines leave them out; a band of +- the sum of their amplitudes, plus what
    a straight segment between samples can miss of the pairs drawn, around each rippling
    line (RoPE, p-RoPE, xPos, sinusoidal) holds the exact logit at every distance, as
    Plotly draws it (straight between samples; review of issue 44, finding 20): RoPE's by
    hand here at every integer 0 ... 2048. The caption says so."""
    at = run_page("beyond_rope")
    df = csv_frames(at)[SCORES]
    assert (df["pairs too fast to draw"] == 6).all()
    fig = figure(at, 0)
    bands = [t for t in fig["data"] if t.get("fill") == "toself"]
    lines = [t for t in fig["data"] if "lines" in t.get("mode", "")]
    assert len(bands) == 4 and len(lines) == 6
    rope = df[df["encoding"] == "RoPE"]
    np.testing.assert_allclose(array(lines[0]["y"]), rope["drawn logit"], rtol=1e-6)
    upper = array(bands[0]["y"])[:600]
    np.testing.assert_allclose(upper, rope["drawn logit"] + rope["envelope +- [logit]"],
                               rtol=1e-6, atol=1e-6)
    assert ((rope["logit"] - rope["drawn logit"]).abs()
            <= rope["envelope +- [logit]"] + 1e-12).all()
    x = array(lines[0]["x"])
    lower = array(bands[0]["y"])[600:][::-1]  # the band's lower edge, drawn back
    q, _k = draw(128, 0)  # q = k, the page's default
    every = np.arange(2049)
    exact = np.array([rope_by_hand(q, q, r, 1e4)[0] for r in every])
    assert (exact <= np.interp(every, x, upper) + 1e-9).all()
    assert (exact >= np.interp(every, x, lower) - 1e-9).all()
    text = " ".join(c.value for c in at.caption)
    assert "the fastest 6 pairs turn once in fewer than 4 samples" in text
    assert "holds the exact logit at every distance" in text
