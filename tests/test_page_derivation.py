"""Derivation page: every live check against hand calculations; the identity heatmap."""

import cmath
import math

import numpy as np
from apptest_helpers import (
    array,
    assert_frozen_once,
    csv_frame,
    figure,
    metrics,
    run_page,
    shown,
)
from lesson_reference import rotate, thetas

import rope_core as rc


def test_defaults_render_every_step_with_small_differences():
    at = run_page("derivation")
    assert at.title[0].value == "Derivation: why a rotation"
    # two CSVs and the page's notebook
    assert len(at.get("plotly_chart")) == 1 and len(at.get("download_button")) == 3
    formulas = [e.value for e in [*at.latex, *at.markdown]]  # ui.formulas: one Markdown
    assert any(r"q\, e^{\iota m\theta}" in f for f in formulas)
    assert not any(r"\mathrm{i}" in f or "e^{i" in f for f in formulas)
    assert len(at.metric) == 12
    for m in at.metric:
        gap = float(m.delta.replace("difference", ""))
        assert gap < 1e-12, (m.label, m.delta)
        # a difference, not a change: grey, no arrow
        assert m.proto.direction == m.proto.MetricDirection.Value("NONE")
        assert m.proto.color == m.proto.MetricColor.Value("GRAY")
    # display labels with Greek letters; the ASCII ids stay in the CSV only
    labels = [m.label for m in at.metric]
    assert "ψ(m) from q vs ψ(m) from k [rad]" in labels
    assert "Θ_f(q, m) − Θ_f(k, n) vs φ_q − φ_k + (m − n)θ [rad]" in labels
    assert not any(word in label for label in labels for word in ("psi", "phi", "theta"))


def test_metric_values_by_hand():
    at = run_page("derivation")  # d = 128, base 10^4, pair 8, m = 5, n = 2, shift 100
    got = metrics(at)
    q, k = (t[0].numpy() for t in rc.toy_qk(1, 128, 7))
    theta8 = 10_000 ** (-16 / 128)
    zq, zk = complex(q[16], q[17]), complex(k[16], k[17])
    assert got["|f(q, m)| vs |q|"] == f"{abs(zq):.6g}"
    assert got["ψ(m) vs mθ [rad]"] == f"{5 * theta8:.6g}"  # 1.58 < pi: no wrap
    assert got["ψ(m) − ψ(m − 1) vs θ [rad]"] == f"{theta8:.6g}"
    score = (zq * cmath.exp(5j * theta8) * (zk * cmath.exp(2j * theta8)).conjugate()).real
    assert got["Re[f(q, m) f(k, n)*] vs |q| |k| cos(φ_q − φ_k + (m − n)θ)"] == \
        f"{score:.6g}"
    th = thetas(128, 10_000.0)
    dense = rotate(q, 5, th, "interleaved") @ rotate(k, 2, th, "interleaved")
    assert got["(R_m q)ᵀ (R_n k) vs qᵀ R_(n−m) k"] == f"{dense:.6g}"
    assert got["|R_m q| vs |q|"] == f"{np.linalg.norm(q):.6g}"


def test_article_sign_note_with_live_numbers():
    at = run_page("derivation", {"dim": "8", "base": "100", "der_i": "1", "der_m": "7",
                                 "der_n": "3"})
    q, k = (t[0].numpy() for t in rc.toy_qk(1, 8, 7))
    t = 100 ** (-2 / 8)
    q2, k2 = q[2:4], k[2:4]

    def r(a):
        return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    score = (r(7 * t) @ q2) @ (r(3 * t) @ k2)
    wrong = q2 @ r(4 * t) @ k2  # R((m - n) theta), the articles' matrix
    info = " ".join(shown(i.value) for i in at.info)
    assert "一文通透位置编码:从标准位置编码到旋转位置编码RoPE" in info
    assert "RoFormer: Enhanced Transformer with Rotary Position Embedding" in info
    assert f"the score is {score:.6f}" in info and f"qᵀR((n − m)θ)k = {score:.6f}" in info
    assert f"qᵀR((m − n)θ)k = {wrong:.6f}" in info and abs(score - wrong) > 1e-3


def test_checks_csv_parses_back_with_settings_first():
    at = run_page("derivation", {"layout": "half", "der_m": "40", "der_shift": "1000"})
    name, df = csv_frame(at)
    assert name == "derivation_checks_dim128_base10000_half_i8_m40_n2_s1000.csv"
    assert list(df.columns[:9]) == ["base", "dim", "layout", "pair i", "theta_i [rad/token]",
                                    "m [tokens]", "n [tokens]", "shift [tokens]", "seed"]
    assert df["m [tokens]"].iloc[0] == 40 and df["layout"].iloc[0] == "half"
    assert df["difference"].max() < 1e-11 and len(df) == 12
    for column in df.columns:
        assert column.isascii() and "[1]" not in column
    # the check ids stay ASCII in the CSV (the metrics show ψ, Θ, φ, θ instead)
    assert all(check.isascii() for check in df["check"])
    assert "psi(m) vs m theta [rad]" in set(df["check"])


def test_pair_beyond_the_head_uses_the_last_pair():
    at = run_page("derivation", {"dim": "8", "der_i": "20"})
    assert any("Pair i = 20 does not exist" in shown(i.value) for i in at.info)
    _, df = csv_frame(at)
    assert df["pair i"].iloc[0] == 3
    assert math.isclose(df["theta_i [rad/token]"].iloc[0], 10_000 ** (-6 / 8), rel_tol=1e-14)


def test_identity_heatmap_is_toeplitz_and_matches_a_dense_matrix():
    at = run_page("derivation", {"dim": "8", "base": "100"})
    name, df = csv_frame(at, 1)
    assert name == "identity_dim8_base100_interleaved.csv"
    size = 48
    score = df["<R_m q, R_n k>"].to_numpy().reshape(size, size)
    for offset in range(-(size - 1), size):
        assert np.ptp(np.diagonal(score, offset=offset)) < 1e-12
    q, k = (t[0].numpy() for t in rc.toy_qk(1, 8, 7))
    th = thetas(8, 100.0)
    for m, n in [(0, 0), (3, 10), (20, 5), (47, 0)]:
        expected = rotate(q, m, th, "interleaved") @ rotate(k, n, th, "interleaved")
        assert math.isclose(score[m, n], expected, rel_tol=1e-12, abs_tol=1e-12)
    # the figure carries float32
    np.testing.assert_allclose(array(figure(at)["data"][0]["z"]), score, rtol=1e-6,
                               atol=1e-12)


def test_figure_is_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, "derivation", {"dim": "16"}, {"derivation_heatmap"})


def test_last_pair_and_equal_positions_read_in_chinese():
    """The pair notice, the m = n variant of the sign note and the metrics, in Chinese."""
    from i18n_helpers import untranslated

    at = run_page("derivation", {"lang": "zh", "dim": "8", "der_i": "20", "der_m": "3",
                                 "der_n": "3"})
    assert untranslated(at) == {}
    info = " ".join(shown(i.value) for i in at.info)
    assert "不存在第 i = 20 对" in info and "只是因为 m = n" in info
    assert "《RoFormer：用旋转位置编码增强的 Transformer》" in info
    assert all(m.delta.startswith("差值 ") for m in at.metric)
    assert "ψ(m) 对比 mθ（弧度）" in metrics(at)
    assert any(r"\text{底数}" in e.value for e in [*at.latex, *at.markdown])

