"""Trained tiny models page: live accuracy per position bin with intervals, baselines,
the training record, attention maps and pair norms."""

import json
import math
import re

import numpy as np
import pytest
import torch
from apptest_helpers import csv_frames, figure, run_page

from rope_core import tiny_model as tm

L = tm.TRAINING["length"]
SEEDS = tm.TRAINING["seeds"]
CSV = f"tiny_accuracy_Ltrain{L}.csv"
T975_4 = 2.776445  # Student's t, 4 degrees of freedom, 97.5% (table)
Z = 1.959964


@pytest.fixture(scope="module")
def page():
    return run_page("trained_models")


@pytest.fixture(scope="module")
def table(page):
    return csv_frames(page)[CSV]


def test_four_figures_and_four_csvs(page):
    assert len(page.get("plotly_chart")) == 4
    assert set(csv_frames(page)) == {CSV, "tiny_training.csv",
                                     "tiny_attention_local_rope_L32_layer4.csv",
                                     "tiny_pair_norms_local_rope.csv"}


def test_accuracy_csv_has_exactly_the_named_columns_and_one_row_per_bin(table):
    assert list(table.columns) == ["task", "encoding", "method", "seed",
                                   "position bin [tokens]", "accuracy", "ci_low", "ci_high"]
    curves = len(tm.ENCODINGS) + len(tm.METHODS) - 1
    bins = len(tm.bin_edges("local")) - 1
    assert len(table) == len(tm.TASKS) * curves * (len(SEEDS) + 1) * bins
    assert set(table["seed"].astype(str)) == {*map(str, SEEDS), "all"}
    assert set(table.loc[table["method"] != "none", "encoding"]) == {"rope"}
    assert set(table["method"]) == set(tm.METHODS)
    assert list(table.loc[(table["task"] == "local") & (table["seed"] == "all")
                          & (table["encoding"] == "rope") & (table["method"] == "none"),
                          "position bin [tokens]"]) == \
        ["3-15", "16-23", "24-31", "32-47", "48-63", "64-95", "96-127"]
    assert ((table["ci_low"] <= table["accuracy"] + 1e-12)
            & (table["accuracy"] <= table["ci_high"] + 1e-12)).all()
    assert ((table["ci_low"] >= 0) & (table["ci_high"] <= 1)).all()


def bin_of(label: str) -> tuple[int, int]:
    a, b = map(int, label.split("-"))
    return a, b + 1


def independent_per_sequence(task, encoding, method, seed, label):
    """One model's per-sequence accuracy in one bin, evaluated here: argmax against the
    answers, with the method's settings written out by hand."""
    finetuned = method == "linear_finetuned"
    model = tm.load_models(task, encoding, finetuned=finetuned)[seed]
    tokens, answers = tm.eval_sequences(task, seed)
    kwargs = {}
    if method in ("linear", "linear_finetuned"):  # position interpolation for 8 L: theta / 8
        kwargs["theta"] = 100.0 ** (-torch.arange(16, dtype=torch.float64) / 16) / 8
    elif method == "window":
        kwargs["window"] = L
    with torch.no_grad():
        right = (model(tokens, **kwargs).argmax(-1) == answers).double()
    a, b = bin_of(label)
    return right[:, a:b].mean(1).numpy()


@pytest.mark.parametrize("task, encoding, method, seed, label", [
    ("recall", "alibi", "none", 2, "64-95"), ("local", "rope", "linear", 0, "16-23"),
    ("recall", "rope", "window", 1, "32-47"), ("recall", "rope", "linear_finetuned", 3,
                                                "96-127"),
    ("local", "irope", "none", 4, "3-15")])
def test_a_live_value_is_an_independent_evaluation(table, task, encoding, method, seed, label):
    row = table[(table["task"] == task) & (table["encoding"] == encoding)
                & (table["method"] == method) & (table["seed"] == str(seed))
                & (table["position bin [tokens]"] == label)]
    want = independent_per_sequence(task, encoding, method, seed, label).mean()
    assert math.isclose(row["accuracy"].iloc[0], want, abs_tol=1e-9)


def test_the_interval_over_seeds_is_students_t_or_the_pooled_wilson(table):
    """One "all" row recomputed here: mean +- t_4 sd / sqrt(5) over the five seed means
    (t_4 from the table), widened to Wilson's interval of the pooled sequences."""
    task, encoding, label = "recall", "rope", "24-31"
    per = np.stack([independent_per_sequence(task, encoding, "none", s, label) for s in SEEDS])
    means = per.mean(1)
    half = T975_4 * means.std(ddof=1) / math.sqrt(len(SEEDS))
    p, n = per.mean(), per.size  # Wilson over the pooled sequences, one trial each
    centre, spread = p + Z**2 / (2 * n), Z * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n * n))
    wilson = ((centre - spread) / (1 + Z**2 / n), (centre + spread) / (1 + Z**2 / n))
    row = table[(table["task"] == task) & (table["encoding"] == encoding)
                & (table["method"] == "none") & (table["seed"] == "all")
                & (table["position bin [tokens]"] == label)].iloc[0]
    assert math.isclose(row["accuracy"], means.mean(), abs_tol=1e-12)
    assert math.isclose(row["ci_low"], max(0, min(means.mean() - half, wilson[0])), abs_tol=1e-6)
    assert math.isclose(row["ci_high"], min(1, max(means.mean() + half, wilson[1])),
                        abs_tol=1e-6)


def test_training_csv_is_the_record(page):
    df = csv_frames(page)["tiny_training.csv"]
    record = json.loads((tm.WEIGHTS_DIR / "models.json").read_text())
    trained = df[df["stage"] == "train"]
    assert len(trained) == len(tm.TASKS) * len(tm.ENCODINGS) * len(SEEDS)
    for r in trained.itertuples():
        info = record["models"][r.task][r.encoding][str(r.seed)]
        assert r.steps == info["steps"] and bool(r._6) == info["reached"]
    assert len(df[df["stage"] == "pi_finetune"]) == len(tm.TASKS) * len(SEEDS)


def test_the_cumulative_view_says_how_many_positions_lie_within_l_train():
    """Issue 27, item 5: at 8 L_train the share of answered positions within L_train,
    counted here from the task's own answers."""
    at = run_page("trained_models", {"cumulative": "true"})
    assert len(at.get("plotly_chart")) == 5
    text = " ".join(m.value for m in at.markdown)
    _, answers = tm.task_batch("local", 1, 8 * L, torch.Generator().manual_seed(0))
    answered = (answers[0] >= 0).nonzero().view(-1)
    inside = int((answered < L).sum())
    assert (inside, len(answered)) == (13, 125)  # positions 3 ... 15 of 3 ... 127
    assert (f"{inside} of the {len(answered)} answered positions "
            f"({int(answered[0])} … {int(answered[-1])}) lie within L_train, about one in "
            f"{round(len(answered) / inside)}") in text
    assert "one position in eight" not in text
    zh = run_page("trained_models", {"cumulative": "true", "lang": "zh"})
    text = " ".join(m.value for m in zh.markdown)
    assert (f"{len(answered)} 个有答案的位置（{int(answered[0])} … {int(answered[-1])}）中有 "
            f"{inside} 个在 L_train 以内，约每 {round(len(answered) / inside)} 个中有一个") in text


def test_attention_csv_rows_are_causal_distributions(page):
    df = csv_frames(page)["tiny_attention_local_rope_L32_layer4.csv"]
    assert len(df) == 2 * 32 * 32
    assert (df.loc[df["key n [tokens]"] > df["query m [tokens]"], "weight"] == 0).all()
    sums = df.groupby(["head", "query m [tokens]"])["weight"].sum()
    assert np.allclose(sums, 1.0, atol=1e-5)
    answered = df[df["answer source [tokens]"] >= 0]
    assert (answered["answer source [tokens]"] == answered["query m [tokens]"] - 2).all()


def test_links_choose_task_model_length_and_layer():
    at = run_page("trained_models", {"task": "Recall", "model": "iRoPE-like", "length": "64",
                                     "layer": "1"})
    frames = csv_frames(at)
    assert "tiny_attention_recall_irope_L64_layer1.csv" in frames
    assert "tiny_pair_norms_recall_rope.csv" in frames
    df = frames["tiny_attention_recall_irope_L64_layer1.csv"]
    m, n = df["query m [tokens]"], df["key n [tokens]"]
    assert (df.loc[m // 8 != n // 8, "weight"] == 0).all()  # a chunked RoPE layer
    spec = figure(at, 2)
    assert len(spec["data"]) == 2  # one heatmap per head


def test_bad_link_values_are_ignored_with_a_warning():
    at = run_page("trained_models", {"model": "xpos", "length": "1000", "task": "copy"})
    assert "tiny_attention_local_rope_L32_layer4.csv" in csv_frames(at)
    assert len(at.warning) >= 1


def test_pair_norms_csv(page):
    df = csv_frames(page)["tiny_pair_norms_local_rope.csv"]
    assert len(df) == 4 * 2 * 16
    for i in range(16):
        theta = df.loc[df["pair i"] == i, "theta_i [rad/token]"]
        assert np.allclose(theta, 100.0 ** (-2 * i / 32), rtol=1e-12)
    assert (df[["mean |q_i|", "mean |k_i|"]] > 0).all().all()


def test_every_model_and_miss_is_reported(page):
    text = " ".join(m.value for m in page.markdown)
    record = json.loads((tm.WEIGHTS_DIR / "models.json").read_text())["models"]
    missed = [(t, e, s) for t, by_e in record.items() for e, by_s in by_e.items()
              for s, info in by_s.items() if not info["reached"]]
    if missed:
        assert re.search(rf"{len(missed)} of 70 models missed the criterion", text)
    else:
        assert "All 70 models reached the criterion." in text


def test_what_the_text_claims_holds_for_the_shipped_models(table):
    """The two lists under the figures are written from these curves: check each claim."""
    pooled = table[table["seed"] == "all"]

    def acc(task, encoding, label, method="none", column="accuracy"):
        row = pooled[(pooled["task"] == task) & (pooled["encoding"] == encoding)
                     & (pooled["method"] == method) & (pooled["position bin [tokens]"] == label)]
        return row[column].iloc[0]
    last, first_beyond, up_to_2l = "96-127", "16-23", "24-31"
    beyond = ["16-23", "24-31", "32-47", "48-63", "64-95", "96-127"]
    chance_l, chance_r = 1 / 16, 1 / 4
    # local: the window and RoPE, p-RoPE, the 1:1 hybrid keep it; NoPE, sinusoidal, ALiBi
    # drop in the first bin past L_train to about chance in the last
    assert acc("local", "rope", last, "window") >= 0.99
    assert all(acc("local", e, b) >= 0.99 for e in ("rope", "p_rope", "hybrid") for b in beyond)
    for e in ("nope", "sinusoidal", "alibi"):
        assert acc("local", e, first_beyond) < 0.25 and abs(acc("local", e, last) - chance_l) < 0.03
    # recall: the window below chance; RoPE falls; hybrid > iRoPE-like > p-RoPE > RoPE;
    # NoPE and ALiBi hold to 2 L_train, then fall
    assert acc("recall", "rope", last, "window") < chance_r
    assert acc("recall", "rope", last) < 0.1
    assert acc("recall", "hybrid", last) > acc("recall", "irope", last) \
        > acc("recall", "p_rope", last) > acc("recall", "rope", last)
    for e in ("nope", "alibi"):
        assert acc("recall", e, up_to_2l) >= 0.97 and acc("recall", e, last) < 0.8
    # ALiBi: the order reversed on the local task; sinusoidal far from failing on recall
    assert acc("local", "rope", last) > max(acc("local", "alibi", last),
                                            acc("local", "sinusoidal", last))
    assert acc("recall", "sinusoidal", last) > 0.8
    # position interpolation: fails the local task within L_train untrained, recovers after
    # the fine-tune; RoPE as trained keeps local, falls on recall
    assert acc("local", "rope", "3-15", "linear") < 0.2
    assert acc("recall", "rope", "9-15", "linear") < 0.9
    assert min(acc(t, "rope", last, "linear_finetuned") for t in tm.TASKS) >= 0.95
    # p-RoPE above RoPE on recall beyond the intervals, below the hybrid; alike on local
    assert acc("recall", "p_rope", last, column="ci_low") > acc("recall", "rope", last,
                                                               column="ci_high")
    assert acc("recall", "p_rope", last, column="ci_high") < acc("recall", "hybrid", last,
                                                                column="ci_low")
    # iRoPE-like: above RoPE on recall; the 1:1 hybrid keeps the local task, it does not
    assert acc("recall", "irope", last, column="ci_low") > acc("recall", "rope", last,
                                                              column="ci_high")
    assert acc("local", "hybrid", last, column="ci_low") > acc("local", "irope", last,
                                                              column="ci_high")
    assert acc("local", "hybrid", last) >= 0.99


def test_the_irope_chunk_starts_are_what_it_misses():
    """Local task past L_train: the first k positions of each chunk of 8 against the rest,
    evaluated here on seed 0's model."""
    model = tm.load_models("local", "irope")[0]
    tokens, answers = tm.eval_sequences("local", 0)
    with torch.no_grad():
        right = (model(tokens).argmax(-1) == answers).double()
    m = torch.arange(8 * L)
    start = (m % 8 < 2) & (m >= L)
    rest = (m % 8 >= 2) & (m >= L)
    assert right[:, start].mean() < 0.3 and right[:, rest].mean() > 0.9


def test_the_pair_norms_text_reads_the_models():
    """Local: the fast pairs carry more; recall: the slow ones (all seeds, computed here)."""
    bands = {}
    for task in tm.TASKS:
        norms = torch.stack([tm.pair_norms(m, task).mean(dim=(0, 1, 2))
                             for m in tm.load_models(task, "rope").values()]).mean(0)
        bands[task] = (float(norms[:4].mean()), float(norms[-4:].mean()))
    assert bands["local"][0] > 2 * bands["local"][1]
    assert bands["recall"][1] > bands["recall"][0]
