"""Trained tiny models page: live accuracy per position bin with intervals, baselines,
the training record, attention maps and pair norms."""

import json
import math
import re

import numpy as np
import pytest
import torch
from apptest_helpers import array, csv_frames, figure, run_page

from rope_core.beyond import tiny_model as tm

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


def test_four_figures_and_five_csvs(page):
    assert len(page.get("plotly_chart")) == 4
    assert set(csv_frames(page)) == {CSV, "tiny_training.csv", "tiny_recorded_runs.csv",
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
    model = tm.load_models(task, encoding, method=method)[seed]
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
    ("local", "irope", "none", 4, "3-15"), ("recall", "rope", "finetuned", 2, "96-127")])
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
    assert len(df[df["stage"] == "direct_finetune"]) == len(tm.TASKS) * len(SEEDS)


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
    chance_l, chance_any, chance_stored = 1 / 16, 1 / 16, 1 / 4

    def apart(task, a, b, label=last, ma="none", mb="none"):  # a above b beyond intervals
        return acc(task, a, label, ma, "ci_low") > acc(task, b, label, mb, "ci_high")

    def overlap(task, a, b, label=last):
        return (acc(task, a, label, column="ci_low") <= acc(task, b, label, column="ci_high")
                and acc(task, b, label, column="ci_low") <= acc(task, a, label, column="ci_high"))
    # local: the window and RoPE, p-RoPE, the 1:1 hybrid keep it; NoPE, sinusoidal, ALiBi
    # drop in the first bin past L_train to about chance in the last
    assert acc("local", "rope", last, "window") >= 0.99
    assert all(acc("local", e, b) >= 0.99 for e in ("rope", "p_rope", "hybrid") for b in beyond)
    for e in ("nope", "sinusoidal", "alibi"):
        assert acc("local", e, first_beyond) < 0.25 and abs(acc("local", e, last) - chance_l) < 0.03
    # the three at chance on the local task tie: their intervals overlap
    assert overlap("local", "nope", "sinusoidal") and overlap("local", "sinusoidal", "alibi")
    # recall: the window and RoPE near a guess among all 16 values, below a guess among the
    # 4 stored ones beyond their intervals; hybrid and iRoPE-like above p-RoPE, p-RoPE above
    # RoPE, beyond the intervals (hybrid and iRoPE-like overlap: no order between them);
    # NoPE and ALiBi hold to 2 L_train, then fall, their intervals overlapping
    for method in ("none", "window"):
        assert abs(acc("recall", "rope", last, method) - chance_any) < 0.03
        assert acc("recall", "rope", last, method, "ci_high") < chance_stored
    assert overlap("recall", "hybrid", "irope")
    assert apart("recall", "irope", "p_rope") and apart("recall", "p_rope", "rope")
    for e in ("nope", "alibi"):
        assert acc("recall", e, up_to_2l) >= 0.97 and acc("recall", e, last) < 0.8
    assert overlap("recall", "nope", "alibi")
    # sinusoidal keeps recall, beyond the intervals of RoPE's
    assert acc("recall", "sinusoidal", last) > 0.8 and apart("recall", "sinusoidal", "rope")
    # position interpolation: fails the local task within L_train untrained, recovers after
    # the fine-tune; RoPE as trained keeps local, falls on recall
    assert acc("local", "rope", "3-15", "linear") < 0.2
    assert acc("recall", "rope", "9-15", "linear") < 0.9
    assert min(acc(t, "rope", last, "linear_finetuned") for t in tm.TASKS) >= 0.95
    # YaRN untrained keeps recall beyond the intervals of PI and NTK-aware
    assert apart("recall", "rope", "rope", ma="yarn", mb="linear")
    assert apart("recall", "rope", "rope", ma="yarn", mb="ntk")
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


# --- the review of issue 28's lab (notes/reviews/lab_review.md): each finding's test ------

LAST = "96-127"


def page_text(at) -> str:
    return " ".join(m.value for m in at.markdown)


@pytest.fixture(scope="module")
def recall_page():
    return run_page("trained_models", {"task": "Recall"})


def pooled_row(table, task, encoding, label=LAST, method="none"):
    return table[(table["task"] == task) & (table["encoding"] == encoding)
                 & (table["method"] == method) & (table["seed"] == "all")
                 & (table["position bin [tokens]"] == label)].iloc[0]


def shown_pct(value: float) -> str:
    """The page's percentage: one decimal at most, 100.0 -> 100."""
    text = f"{round(100 * value + 1e-9, 1):.1f}".rstrip("0").rstrip(".")
    return text + "%"


def test_both_chance_levels_are_drawn_on_recall(page, recall_page):
    """Finding 2: recall has two chance levels, 1/16 (a value guessed among the 16 value
    symbols) and 1/4 (one of the 4 stored values); local one, 1/16."""
    for at, levels in ((page, {1 / 16}), (recall_page, {1 / 16, 1 / 4})):
        for index in (0, 1):
            spec = figure(at, index)
            lines = {round(shape["y0"], 9) for shape in spec["layout"]["shapes"]
                     if shape["y0"] == shape["y1"]}
            assert lines == {round(v, 9) for v in levels}
            notes = {note["text"] for note in spec["layout"]["annotations"]
                     if note["text"].startswith("1/")}
            assert notes == {f"1/{round(1 / v)}" for v in levels}
    text = page_text(recall_page)
    assert "6.25% (1/16: one of the 16 value symbols guessed)" in text
    assert "25% (1/4: one of the 4 values stored in the sequence guessed" in text


def test_recall_past_l_train_rope_answers_values_outside_the_store(table, recall_page):
    """Finding 2: past position 96 RoPE (and the window) mostly answer a value that is not
    one of the sequence's stored values (computed here from the argmax), so they sit near
    1/16, not 1/4; the text quotes the shares."""
    text = page_text(recall_page)
    for method, kwargs in (("none", {}), ("window", {"window": L})):
        outside = []
        for seed, model in tm.load_models("recall", "rope").items():
            tokens, _answers = tm.eval_sequences("recall", seed)
            with torch.no_grad():
                guess = model(tokens, **kwargs).argmax(-1)[:, 96:]  # (J, 32)
            store = tokens[:, [2, 4, 6, 8]]  # the values
            outside.append(float((guess[..., None] != store[:, None, :]).all(-1).double()
                                 .mean()))
        share = float(np.mean(outside))
        assert share > 0.5
        assert f"{'RoPE answers' if method == 'none' else 'the window'}" in text
        assert shown_pct(share) in text
    assert "below the 25% of a stored value" not in text


def test_orderings_in_the_last_bin_are_grouped_by_their_intervals(table, page, recall_page):
    """Finding 5: the ranking in the text brackets runs of models whose intervals all
    overlap, with > between brackets apart beyond every interval and ≳ otherwise;
    recomputed here from the CSV's ci_low and ci_high."""
    names = {"nope": "NoPE", "sinusoidal": "sinusoidal", "rope": "RoPE", "alibi": "ALiBi",
             "p_rope": "p-RoPE", "hybrid": "hybrid 1:1", "irope": "iRoPE-like"}

    def meet(a, b):
        return a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"]
    for task, at in (("local", page), ("recall", recall_page)):
        rows = sorted((pooled_row(table, task, e) for e in tm.ENCODINGS),
                      key=lambda r: -r["accuracy"])
        groups = [[rows[0]]]
        for row in rows[1:]:
            if all(meet(row, other) for other in groups[-1]):
                groups[-1].append(row)
            else:
                groups.append([row])
        want = ""
        for g, group in enumerate(groups):
            if g:
                apart = min(r["ci_low"] for r in groups[g - 1]) > max(r["ci_high"] for r in group)
                want += " > " if apart else " ≳ "
            items = ", ".join(f"{names[r['encoding']]} {shown_pct(r['accuracy'])}" for r in group)
            want += f"[{items}]" if len(group) > 1 else items
        assert f"overlap across: {want}." in page_text(at), want
        members = [{r["encoding"] for r in g} for g in groups]
        if task == "recall":  # the review's reading: hybrid ... NoPE tie, p-RoPE and ALiBi tie
            assert members == [{"hybrid", "sinusoidal", "irope", "nope"}, {"p_rope", "alibi"},
                               {"rope"}]
        else:  # the three at chance tie
            assert {"nope", "sinusoidal", "alibi"} in members


def t_interval(table, task, encoding, label, method="none"):
    """Student's interval over the five seed means of one cell, from the CSV's seed rows
    (t_4 from the table)."""
    seeds = table[(table["task"] == task) & (table["encoding"] == encoding)
                  & (table["method"] == method) & (table["seed"] != "all")
                  & (table["position bin [tokens]"] == label)]["accuracy"].to_numpy()
    assert len(seeds) == len(SEEDS)
    half = T975_4 * seeds.std(ddof=1) / math.sqrt(len(seeds))
    return max(0.0, seeds.mean() - half), min(1.0, seeds.mean() + half)


def test_what_the_text_says_of_the_intervals_holds_for_the_csv(table, page):
    """Findings 3, 6, 15: how many pooled intervals the sequences widen by more than half a
    point beyond Student's interval over the seed means (counted here from the CSV), the
    examples, the failure rate five agreeing seeds cannot rule out, and one seed's
    interval at 100%."""
    pooled = table[table["seed"] == "all"]
    widened = 0
    for r in pooled.itertuples():
        low, high = t_interval(table, r.task, r.encoding, r._5, r.method)
        widened += (r.ci_high - r.ci_low) - (high - low) > 0.005
    text = page_text(page)
    assert f"The sequences widen {widened} of the {len(pooled)} intervals over seeds" in text
    low, high = t_interval(table, "local", "alibi", LAST)
    shown = pooled_row(table, "local", "alibi")
    assert (f"its seed means give {shown_pct(low)} to {shown_pct(high)}, the interval shown "
            f"is {shown_pct(shown['ci_low'])} to {shown_pct(shown['ci_high'])}") in text
    assert shown["ci_high"] - shown["ci_low"] > high - low + 0.005  # the sequences widen it
    nope = pooled_row(table, "recall", "nope")
    low, high = t_interval(table, "recall", "nope", LAST)
    assert (nope["ci_low"], nope["ci_high"]) == pytest.approx((low, high), abs=1e-6)  # seeds
    assert f"{shown_pct(nope['ci_low'])} to {shown_pct(nope['ci_high'])}" in text
    q = 1 - 0.05 ** (1 / 5)  # (1 - q)^5 = 0.05
    assert f"up to {shown_pct(q)} per seed" in text
    one = 52 / (52 + Z**2)  # Wilson's lower end, 52 of 52 right
    assert f"for a model right on every answer, {shown_pct(one)} to 100%." in text
    assert "A wide interval means the seeds disagree" not in text


def test_what_the_final_review_corrected_holds(table, page, recall_page):
    """Final review, items 2-8 (trained_models.py), each against a derivation here."""
    text = page_text(page)
    pooled = table[table["seed"] == "all"]
    labels = list(dict.fromkeys(pooled[pooled["task"] == "local"]["position bin [tokens]"]))
    within = next(b for b in labels if bin_of(b)[1] == L)
    first = next(b for b in labels if bin_of(b)[0] == L)
    chance = 1 / 16  # a value guessed among the 16 symbols
    # 2: NoPE on the local task: well above chance in the first bin past L_train (its
    # interval excludes chance), about chance only in the last
    nope1, nope = pooled_row(table, "local", "nope", first), pooled_row(table, "local", "nope")
    assert nope1["ci_low"] > chance
    assert nope["ci_low"] <= chance + 0.01
    assert (f"NoPE drops to {shown_pct(nope1['accuracy'])} in the first bin past L_train "
            f"({first.replace('-', '–')}) and to about chance (6.25%) in the last "
            f"({shown_pct(nope['accuracy'])})") in text
    assert "falls to chance right past L_train" not in text
    # 3: YaRN's split is transformers' clipping, not the paper's ramp. d = 32, base 100,
    # L = 16: the fastest pair (theta_0 = 1) turns L / 2 pi times within L; the paper keeps a
    # pair from beta = 32 turns on; its gamma(r) = (r - 1) / (32 - 1) interpolates pair 0
    # by 1 - gamma; transformers' lower bound d ln(L / (2 pi 32)) / (2 ln base) < 0 is
    # clipped to pair 0
    turns = L / (2 * math.pi)
    assert turns < 32
    assert 32 * math.log(L / (2 * math.pi * 32)) / (2 * math.log(100.0)) < 0
    assert (f"the fastest pair turns only {turns:.1f} times, short of the 32 turns from which "
            "the paper keeps a pair") in text
    assert f"even pair 0 ({shown_pct(1 - (turns - 1) / 31)})" in text
    assert "YaRN as transformers (and YaRN's reference code) computes it leaves pair 0" in text
    assert "is clipped to pair 0" in text
    # 4: the interval shown spans both (the hull: test_the_interval_over_seeds_is_...)
    assert "wider of two intervals" not in text
    assert ("Each spans two intervals (95%), from the lower of their lower ends to the "
            "higher of their upper ends") in text
    # 5: the 8-head ALiBi arm keeps d_model (tiny/train.py changes only n_heads)
    from tiny import train as tiny_train
    record = tm.read_record()
    settings = record["training"]
    wide = tiny_train.alibi_settings(settings)
    changed = {k for k in wide["model"] if wide["model"][k] != settings["model"][k]}
    assert changed == {"n_heads"}
    heads, d_model = wide["model"]["n_heads"], settings["model"]["d_model"]
    assert (f"With {heads} heads of {d_model // heads} dimensions (d_model kept at {d_model}; "
            in text)
    assert "otherwise trained alike, recorded, not shipped" in text
    # 6: interpolation within L_train: a partial loss on recall, a failure on local
    recall_labels = dict.fromkeys(pooled[pooled["task"] == "recall"]["position bin [tokens]"])
    within_r = next(b for b in recall_labels if bin_of(b)[1] == L)
    pi_r = pooled_row(table, "recall", "rope", within_r, "linear")["accuracy"]
    pi_l = pooled_row(table, "local", "rope", within, "linear")["accuracy"]
    assert pi_r > 4 * chance and pi_l < 2 * chance
    assert (f"so the models lose much even within L_train (recall {shown_pct(pi_r)}; local "
            f"{shown_pct(pi_l)})") in text
    assert "fail even within L_train" not in text
    # 7: sequences per curve: those tiny_model draws per seed, times the seeds
    per_seed = len(tm.eval_sequences("local", SEEDS[0])[0])
    assert (f"Each curve rests on {per_seed * len(SEEDS)} fresh sequences ({per_seed} per "
            "seed)") in text
    assert "At least 256" not in text
    # 8: the count covers both tasks, every curve and bin: the same on either task's page
    curves = pooled.groupby(["task", "encoding", "method"]).size()
    assert set(pooled["task"]) == set(tm.TASKS)
    assert int(curves.sum()) == len(pooled)
    claim = f"of the {len(pooled)} intervals over seeds (both tasks, every curve and bin)"
    assert claim in text and claim in page_text(recall_page)


def test_the_base_statement_counts_pairs_longer_than_the_training_length(page):
    """Finding 8: wavelength 2 pi b^(2i/d) > L. Base 100, d 32, L 16: 100^(i/16) > 16/(2 pi)
    from i = 4 (100^(4/16) = 3.16 > 2.55 > 100^(3/16) = 2.37): 12 of 16. LLaMA, base 10^4,
    d 128, L 2048: 10^(4i/64) > 2048/(2 pi) = 325.9 from i = 41 (10^(164/64) = 362.2 >
    325.9 > 10^(160/64) = 316.2): 23 of 64."""
    assert 100 ** (4 / 16) > 16 / (2 * math.pi) > 100 ** (3 / 16)
    assert 10 ** (164 / 64) > 2048 / (2 * math.pi) > 10 ** (160 / 64)
    text = page_text(page)
    assert "12 of them (75%) have a wavelength longer than L_train" in text
    assert "23 of 64 do (35.9%)" in text
    assert "sinusoidal (base 100, like RoPE)" in text
    assert "so 8 such pairs still turn in it" in text


def test_the_charts_draw_no_line_across_l_train(page, recall_page):
    """Finding 13: in both bin charts every curve has a break (NaN) between its bin within
    L_train and the first bin beyond, so no segment crosses L_train."""
    for at in (page, recall_page):
        for index in (0, 1):
            for trace in figure(at, index)["data"]:
                x, y = array(trace["x"]), array(trace["y"])
                assert np.isnan(x[1]) and np.isnan(y[1])
                assert x[0] < L - 0.5 < x[2] and not np.isnan(y[[0, *range(2, len(y))]]).any()
                assert np.isnan(array(trace["error_y"]["array"])[1])


def test_recorded_runs_are_models_json_and_the_text_quotes_them(page, recall_page, table):
    """Findings 7, 11, 12: the sensitivity run, ALiBi with more heads and the analyses are
    recorded by tiny/train.py; the CSV holds them as recorded, the text quotes them."""
    record = tm.read_record()
    df = csv_frames(page)["tiny_recorded_runs.csv"]
    for task in tm.TASKS:
        for encoding, info in record["sensitivity"][task].items():
            rows = df[(df["run"] == "cap (sensitivity)") & (df["task"] == task)
                      & (df["encoding"] == encoding)]
            assert rows["accuracy"].tolist() == pytest.approx(info["accuracy"])
            assert info["steps"] == tm.TRAINING["max_steps"]
            shipped = df[(df["run"] == "criterion (shipped)") & (df["task"] == task)
                         & (df["encoding"] == encoding)]["accuracy"].iloc[-1]
            live = table[(table["task"] == task) & (table["encoding"] == encoding)
                         & (table["method"] == "none") & (table["seed"] == "0")
                         & (table["position bin [tokens]"] == LAST)]["accuracy"].iloc[0]
            assert shipped == pytest.approx(live)
        arm = record["alibi_heads"][task]
        rows = df[(df["run"] == f"alibi {arm['n_heads']} heads") & (df["task"] == task)
                  & (df["seed"] == "all")]
        assert rows["accuracy"].tolist() == pytest.approx(arm["all"]["accuracy"])
        for name, row in record["analyses"][task].items():
            rows = df[(df["run"] == f"analysis: {name}") & (df["task"] == task)]
            assert rows["ci_high"].tolist() == pytest.approx(row["ci_high"])
    text = page_text(page)
    names = {"nope": "NoPE", "sinusoidal": "sinusoidal", "rope": "RoPE", "alibi": "ALiBi",
             "p_rope": "p-RoPE", "hybrid": "hybrid 1:1", "irope": "iRoPE-like"}
    for encoding, info in record["sensitivity"]["local"].items():
        live = table[(table["task"] == "local") & (table["encoding"] == encoding)
                     & (table["method"] == "none") & (table["seed"] == "0")
                     & (table["position bin [tokens]"] == LAST)]["accuracy"].iloc[0]
        assert (f"{names[encoding]} {shown_pct(live)} → {shown_pct(info['accuracy'][-1])}"
                in text)
    assert "python tiny/train.py --check sensitivity" in text
    arm = record["alibi_heads"]["local"]["all"]
    assert (f"keeps {shown_pct(arm['accuracy'][-1])} of the local task in the last bin "
            f"({shown_pct(arm['ci_low'][-1])} to {shown_pct(arm['ci_high'][-1])})") in text
    analyses = record["analyses"]["recall"]
    assert f"gives {shown_pct(analyses['sinusoidal_held']['accuracy'][-1])} of recall" in text
    assert (f"YaRN without its attention factor keeps "
            f"{shown_pct(analyses['yarn_without_factor']['accuracy'][-1])}") in text


def test_an_analysis_recomputed_here_is_the_record():
    """One recorded analysis evaluated here by hand: YaRN's frequencies without its
    attention factor, RoPE on recall, seeds pooled, last bin."""
    from rope_core.models.scaling import scaled_theta

    theta, factor = scaled_theta(32, 100.0, "yarn", factor=8.0,
                                 original_max_position_embeddings=16)
    assert factor > 1  # what the analysis leaves out
    got = []
    for seed, model in tm.load_models("recall", "rope").items():
        tokens, answers = tm.eval_sequences("recall", seed)
        with torch.no_grad():
            right = (model(tokens, theta=theta).argmax(-1) == answers)[:, 96:]
        got.append(float(right.double().mean()))
    want = tm.read_record()["analyses"]["recall"]["yarn_without_factor"]["accuracy"][-1]
    assert np.mean(got) == pytest.approx(want, abs=1e-6)


def test_alibi_text_claims_no_cause_it_cannot_show_and_names_the_configuration(page):
    """Findings 1, 7: no 'must'; ALiBi and NoPE fall alike on recall; the two-head models
    cannot test Press et al.'s claim."""
    text = page_text(page)
    assert "must once the answer lies far back" not in text
    assert "reverses the order" not in text
    assert "cannot test that claim on the local task" in text
    assert "then fall like NoPE" in text


def test_the_position_interpolation_text_says_in_distribution_and_has_its_control(page,
                                                                                  table):
    """Finding 10: the fine-tuned models are measured at their own length; the control (no
    interpolation, the same fine-tune) is shown and quoted."""
    text = page_text(page)
    assert "measured at the length it was fine-tuned at, in distribution" in text
    for task in tm.TASKS:
        row = pooled_row(table, task, "rope", method="finetuned")
        assert shown_pct(row["accuracy"]) in text
    assert "from 2,048 to 2,560 tokens in more than 10,000 steps" in text


def test_the_irope_text_states_what_differs_from_llama4(page):
    """Finding 9: a quarter of the local answers at a chunk's start (k = 2 of every 8),
    the NoPE layer the last of 4, QK norm left out, temperature in training too; the
    source of the chunked layers is a Meta researcher's post."""
    cfg = tm.model_config("local", "irope")
    nope_layers = [j for j in range(cfg.n_layers) if cfg.layer_encoding(j) == "none"]
    assert nope_layers == [cfg.n_layers - 1]
    text = page_text(page)
    assert "here 25% of the answers sit at a chunk's start" in text
    assert "the one NoPE layer is the last" in text
    assert "normalises q and k (L2) in its RoPE layers" in text
    assert "the query temperature acts in training too" in text
    assert "Aston Zhang" in text


def test_the_training_text_states_how_unequal_training_is(page):
    """Findings 4, 11: the criterion and at most 50 steps more, the misses, the steps."""
    text = page_text(page)
    assert "and no more" not in text
    assert "trained at most 50 steps more" in text
    assert "the 3 iRoPE-like models that missed it at the cap" in text
    # the schedule by hand: step 100 of a cap of 3000 after a warm-up of 100:
    # (1 + cos(pi 99 / 3000)) / 2 = 0.9973; step 3000: (1 + cos(pi 2999 / 3000)) / 2 = 2.7e-7
    assert (1 + math.cos(math.pi * 99 / 3000)) / 2 == pytest.approx(0.99731, abs=1e-5)
    assert tm.learning_rate(100, 3000) == pytest.approx(3e-3 * 0.99731, rel=1e-5)
    assert "a model stopped after 100 steps (RoPE) stops at 99.7% of the peak rate, one " \
        "stopped after 3,000 (iRoPE-like) at 0%." in text


def test_the_sensitivity_summary_holds_for_the_csv(table, page):
    """Finding 11: how many of the runs trained to the cap land within the shipped seed's
    interval over its sequences (the CSV's seed row, Wilson), and the largest change."""
    record = tm.read_record()
    seed = str(record["training"]["sensitivity_seed"])
    inside, largest = 0, (0.0, None)
    for task in tm.TASKS:
        for encoding, info in record["sensitivity"][task].items():
            row = table[(table["task"] == task) & (table["encoding"] == encoding)
                        & (table["method"] == "none") & (table["seed"] == seed)
                        & (table["position bin [tokens]"] == LAST)].iloc[0]
            capped = info["accuracy"][-1]
            inside += row["ci_low"] <= capped <= row["ci_high"]
            if abs(capped - row["accuracy"]) > largest[0]:
                largest = (abs(capped - row["accuracy"]), (task, encoding))
    runs = 2 * len(tm.ENCODINGS)
    names = {"nope": "NoPE", "sinusoidal": "sinusoidal", "rope": "RoPE", "alibi": "ALiBi",
             "p_rope": "p-RoPE", "hybrid": "hybrid 1:1", "irope": "iRoPE-like"}
    task, encoding = largest[1]
    assert (f"Over both tasks, {inside} of the {runs} land within the shipped model's interval "
            f"over its 52 sequences; the largest change is "
            f"{round(100 * largest[0] + 1e-9, 1):.1f}".rstrip("0").rstrip(".")
            + f" points ({names[encoding]} on the {task} task)") in page_text(page)


def test_the_chinese_page_says_what_the_english_says():
    """Finding 4 (the Chinese said 恰好…不多不少, stronger than the English) and the new
    statements, in Chinese: at most 50 steps more, the misses, both chance levels, no
    'must' for ALiBi."""
    zh = page_text(run_page("trained_models", {"task": "Recall", "lang": "zh"}))
    assert "不多不少" not in zh and "恰好如标准所要求" not in zh
    assert "至多多训练 50 步" in zh and "3 个类 iRoPE 模型" in zh
    assert "6.25%（1/16：在 16 个值符号中随机猜一个）" in zh
    assert "25%（1/4：在序列存储的 4 个值中随机猜一个" in zh
    assert "随距离增长的惩罚必然如此" not in zh
    assert "像 NoPE 一样下降" in zh and "Aston Zhang" in zh


def test_the_pair_norms_figure_draws_the_heads_mean_of_the_csv(page, recall_page):
    """The figure averages the heads with numpy; pandas' groupby mean of the CSV, the
    independent formulation, must give the very same numbers (bit for bit, as sent)."""
    for at, task in ((page, "local"), (recall_page, "recall")):
        df = csv_frames(at)[f"tiny_pair_norms_{task}_rope.csv"]
        mean = df.groupby(["layer", "pair i"])[["mean |q_i|", "mean |k_i|"]].mean()
        spec = next(figure(at, i) for i in range(len(at.get("plotly_chart")))
                    if "mean norm" in json.dumps(figure(at, i)["layout"]["yaxis"]))
        traces = iter(spec["data"])
        for layer in sorted(set(df["layer"])):
            for column in ("mean |q_i|", "mean |k_i|"):
                trace = next(traces)
                assert array(trace["x"]).tolist() == list(mean.loc[layer].index)
                sent = array(trace["y"])  # as the figure sends it (float32)
                assert sent.tobytes() == mean.loc[layer][column].to_numpy().astype(
                    sent.dtype).tobytes()
        assert next(traces, None) is None
