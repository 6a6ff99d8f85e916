"""Trained tiny models page: live accuracy curves, an attention map, pair norms."""

import json
import math

import numpy as np
import pytest
import torch
from apptest_helpers import csv_frames, figure, run_page

from rope_core import tiny_model as tm

L = tm.TRAINING["length"]


@pytest.fixture(scope="module")
def page():
    return run_page("trained_models")


def test_four_figures_and_three_csvs(page):
    assert len(page.get("plotly_chart")) == 4
    frames = csv_frames(page)
    assert set(frames) == {f"tiny_accuracy_Ltrain{L}.csv", "tiny_attention_rope_L32_layer2.csv",
                           "tiny_pair_norms_rope.csv"}


def test_accuracy_csv_has_one_row_per_encoding_method_and_length(page):
    df = csv_frames(page)[f"tiny_accuracy_Ltrain{L}.csv"]
    assert list(df.columns[:4]) == ["L_train [tokens]", "k [tokens]", "eval sequences",
                                    "scaling factor s"]
    assert {"encoding", "method", "length [tokens]", "accuracy"} <= set(df.columns)
    lengths = tm.eval_lengths(8)
    assert len(df) == (len(tm.ENCODINGS) + 3) * len(lengths)
    assert df["length [tokens]"].min() == L and df["length [tokens]"].max() == 8 * L
    assert set(df.loc[df["method"] != "none", "encoding"]) == {"rope"}
    assert set(df["method"]) == {"none", "linear", "ntk", "yarn"}
    assert set(df.loc[df["method"] != "none", "scaling factor s"]) == {8}


@pytest.mark.parametrize("encoding, method, n", [("rope", "linear", 64), ("alibi", "none", 128),
                                                 ("nope", "none", 16)])
def test_a_live_value_is_an_independent_evaluation(page, encoding, method, n):
    """One point re-evaluated here on the first n tokens alone: argmax against x[m - k]."""
    df = csv_frames(page)[f"tiny_accuracy_Ltrain{L}.csv"]
    model = tm.load_model(encoding)
    tokens, _ = tm.eval_set(8 * L)
    tokens = tokens[:, :n]
    if method == "linear":  # position interpolation for 8 L_train: theta / 8
        theta = tm.model_theta(model.cfg) / 8
    else:
        theta = None
    with torch.no_grad():
        logits = model(tokens, theta=theta)
    k = tm.TRAINING["k"]
    hits = (logits[:, k:].argmax(-1) == tokens[:, :-k]).float().mean().item()
    row = df[(df["encoding"] == encoding) & (df["method"] == method)
             & (df["length [tokens]"] == n)]
    assert math.isclose(row["accuracy"].iloc[0], hits, abs_tol=1e-6)


def test_attention_csv_rows_are_causal_distributions(page):
    df = csv_frames(page)["tiny_attention_rope_L32_layer2.csv"]
    assert len(df) == 4 * 32 * 32
    assert (df.loc[df["key n [tokens]"] > df["query m [tokens]"], "weight"] == 0).all()
    sums = df.groupby(["head", "query m [tokens]"])["weight"].sum()
    assert np.allclose(sums, 1.0, atol=1e-5)


def test_pair_norms_csv(page):
    df = csv_frames(page)["tiny_pair_norms_rope.csv"]
    assert len(df) == 2 * 4 * 8
    for i in range(8):
        theta = df.loc[df["pair i"] == i, "theta_i [rad/token]"]
        assert np.allclose(theta, 10000 ** (-2 * i / 16), rtol=1e-12)
    assert (df[["mean |q_i|", "mean |k_i|"]] > 0).all().all()


def test_links_choose_model_length_and_layer():
    at = run_page("trained_models", {"model": "ALiBi", "length": "64", "layer": "1"})
    assert "tiny_attention_alibi_L64_layer1.csv" in csv_frames(at)
    spec = figure(at, 2)
    assert len(spec["data"]) == 4  # one heatmap per head


def test_bad_link_values_are_ignored_with_a_warning():
    at = run_page("trained_models", {"model": "xpos", "length": "1000"})
    assert "tiny_attention_rope_L32_layer2.csv" in csv_frames(at)
    assert len(at.warning) >= 1


def test_what_the_text_claims_holds_for_the_shipped_models(page):
    """The comparison with the literature is written from these curves: check it."""
    df = csv_frames(page)[f"tiny_accuracy_Ltrain{L}.csv"]

    def acc(encoding, n, method="none"):
        row = df[(df["encoding"] == encoding) & (df["method"] == method)
                 & (df["length [tokens]"] == n)]
        return row["accuracy"].iloc[0]
    end = 8 * L
    # ALiBi > RoPE > sinusoidal at 8 L_train; sinusoidal the lowest of all
    assert acc("alibi", end) > acc("rope", end) > acc("sinusoidal", end)
    assert acc("sinusoidal", end) == min(acc(e, end) for e in tm.ENCODINGS)
    # NoPE beats sinusoidal, not RoPE or ALiBi, and learned least well
    assert acc("sinusoidal", end) < acc("nope", end) < min(acc("rope", end), acc("alibi", end))
    record = json.loads((tm.WEIGHTS_DIR / "models.json").read_text())["models"]
    heldout = {e: record[e]["accuracy_at_L_train"] for e in tm.ENCODINGS}
    assert min(heldout, key=heldout.get) == "nope"
    # position interpolation without fine-tuning fails at every length, L_train included
    assert all(acc("rope", n, "linear") < 0.3 for n in tm.eval_lengths(8))
    assert acc("rope", end, "ntk") > acc("rope", end)
    # p-RoPE follows RoPE; the hybrid falls off sooner
    assert all(abs(acc("p_rope", n) - acc("rope", n)) < 0.03 for n in tm.eval_lengths(8))
    assert acc("hybrid", end) < acc("rope", end)
    text = " ".join(m.value for m in page.markdown)
    assert "In layer 2 the largest norms sit in pairs 0 and 1" in text


def test_what_the_attention_text_claims_holds():
    """Weight on the diagonal n = m - k within L_train, per layer and head."""
    k = tm.TRAINING["k"]

    def diagonal(encoding):
        w = tm.attention_example(tm.load_model(encoding), 2 * L)  # (layers, heads, m, n)
        return torch.diagonal(w, offset=-k, dim1=-2, dim2=-1)[..., :L - k].mean(-1)
    for encoding in ("rope", "p_rope", "sinusoidal"):
        assert (diagonal(encoding)[1] > 0.9).all(), encoding
    assert (diagonal("hybrid")[0] > 0.7).all()
    for encoding in ("alibi", "nope"):
        assert (diagonal(encoding) < 0.3).all(), encoding


def test_attention_summary_reads_the_csv(page):
    """The sentence under the map: the weight on m - n = k within and beyond L_train."""
    df = csv_frames(page)["tiny_attention_rope_L32_layer2.csv"]
    k = tm.TRAINING["k"]
    on_diagonal = df[df["query m [tokens]"] - df["key n [tokens]"] == k]
    inside = on_diagonal[on_diagonal["query m [tokens]"] < L]["weight"].mean()
    beyond = on_diagonal[on_diagonal["query m [tokens]"] >= L]["weight"].mean()
    text = " ".join(m.value for m in page.markdown)
    pct = lambda v: f"{100 * v:.1f}".rstrip("0").rstrip(".") + "%"  # noqa: E731
    assert f"weight {pct(inside)} on n = m − {k} in rows within L_train, {pct(beyond)}" in text
