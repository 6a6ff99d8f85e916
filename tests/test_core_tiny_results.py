"""rope_core.beyond.tiny_results: accuracies per seed and group, their intervals, the family of
paired comparisons and what differs between the arms, from counts built here by hand and
from the stored evaluation."""

import math

import numpy as np
import pytest

from rope_core.beyond import intervals, paired
from rope_core.beyond import tiny_model as tm
from rope_core.beyond import tiny_results as tr

SEEDS = tm.TRAINING["seeds"]
PER = tm.EVAL["recall"]["per_cell"]
CELLS = len(tm.recall_cells())


def local_counts(rng, level: float) -> dict:
    width = np.array(tm.answers_per_bin("local"))
    hits = rng.binomial(width, level, (len(SEEDS), tm.EVAL["sequences"], len(width)))
    return {"hits": hits, "positions": np.zeros((len(SEEDS), tm.eval_length()), np.int64)}


def recall_counts(rng, level: float) -> dict:
    hits = rng.binomial(1, level, (len(SEEDS), PER * CELLS, 3))
    return {"hits": hits, "stored": np.maximum(hits, rng.binomial(1, 0.3, hits.shape))}


def test_a_curve_by_hand():
    """Accuracy = right answers / answers; each seed's mean; the interval is
    intervals.seed_interval of the per-sequence accuracies; the stored share likewise."""
    rng = np.random.default_rng(1)
    counts = recall_counts(rng, 0.7)
    c = tr.curve("recall", counts)
    for g in range(CELLS):
        block = counts["hits"][:, g * PER:(g + 1) * PER, :]  # (S, PER, 3)
        assert math.isclose(c.accuracy[g], block.sum() / block.size, rel_tol=1e-12)
        assert np.allclose(c.seed_means[:, g], block.sum((1, 2)) / (PER * 3))
        low, high = intervals.seed_interval(block.mean(-1), 3)
        assert (c.low[g], c.high[g]) == (low, high)
        assert math.isclose(c.stored[g], counts["stored"][:, g * PER:(g + 1) * PER].mean())
    local = tr.curve("local", local_counts(rng, 0.5))
    width = np.array(tm.answers_per_bin("local"))
    assert local.stored is None and len(local.accuracy) == len(width)


def test_tables_count_answers_and_never_mix_seeds_with_all():
    rng = np.random.default_rng(2)
    results = {("local", "rope", "none"): tr.curve("local", local_counts(rng, 0.9)),
               ("recall", "nope", "none"): tr.curve("recall", recall_counts(rng, 0.5))}
    seeds = tr.seed_table(results, SEEDS)
    assert seeds["seed"].dtype.kind == "i" and set(seeds["seed"]) == set(SEEDS)
    assert (seeds["accuracy"] == seeds["right"] / seeds["answers"]).all()
    first = seeds[(seeds["task"] == "recall") & (seeds["group"] == "train")
                  & (seeds["seed"] == 0)].iloc[0]
    assert first["answers"] == PER * 3 and first["sequences"] == PER
    pooled = tr.aggregate_table(results)
    assert "seed" not in pooled.columns and (pooled["seeds"] == len(SEEDS)).all()
    assert ((pooled["ci_low"] <= pooled["accuracy"])
            & (pooled["accuracy"] <= pooled["ci_high"])).all()
    row = pooled[(pooled["task"] == "local") & (pooled["group"] == "96-127")].iloc[0]
    assert row["position bin [tokens]"] == "96-127" and row["store depth [tokens]"] == ""
    row = pooled[pooled["group"] == "depth 96-118"].iloc[0]
    assert row["store depth [tokens]"] == "96-118"
    assert row["distance from the store [tokens]"] == "1-9"
    for df in (seeds, pooled):
        assert all(c.isascii() for c in df.columns)
        assert not any(df[c].astype(str).str.contains(r"\d,\d").any() for c in df.columns)


def test_the_family_of_comparisons():
    family = tr.comparisons()
    main = [(t, a, b) for t, a, b in family if a[0] in tm.ENCODINGS and b[0] in tm.ENCODINGS
            and a[1] == b[1] == "none"]
    assert len(main) == len(tm.TASKS) * 21  # every pair of the seven encodings
    assert ("local", ("alibi_unscaled", "none"), ("nope", "none")) in family
    assert ("recall", ("rope_base5", "none"), ("rope", "none")) in family
    assert ("local", ("rope_base5", "none"), ("rope", "none")) not in family  # recall only
    assert ("recall", ("rope", "yarn"), ("rope", "none")) in family
    assert tr.compared_groups("local") == ("96-127",)
    assert tr.compared_groups("recall") == ("distance 96-121", "depth 96-118")


def test_the_comparison_table_is_paired_and_holm_corrected():
    rng = np.random.default_rng(3)
    results = {("local", e, "none"): tr.curve("local", local_counts(rng, level))
               for e, level in zip(tm.ENCODINGS, np.linspace(0.1, 0.9, len(tm.ENCODINGS)))}
    df = tr.comparison_table(results)
    assert len(df) == 21 and set(df["group"]) == {"96-127"}
    assert list(df.columns) == ["task", "group", "position bin [tokens]",
                                "store depth [tokens]", "distance from the store [tokens]",
                                "a", "b", "difference", "ci_low", "ci_high", "t", "p",
                                "p_holm", "seeds_a_higher"]
    assert np.allclose(df["p_holm"], paired.holm(df["p"].to_numpy()))
    row = df[(df["a"] == "nope") & (df["b"] == "rope")].iloc[0]
    want = paired.paired_difference(results["local", "nope", "none"].per_sequence[-1],
                                    results["local", "rope", "none"].per_sequence[-1])
    assert row["difference"] == want["difference"] and row["p"] == want["p"]


def test_what_differs_between_the_arms():
    df = tr.arms_table()
    assert set(df["arm"]) == set(tm.ARMS) and (df["steps"] == tm.TRAINING["steps"]).all()
    irope = df[df["arm"] == "irope"]
    assert list(irope["attention"]) == ["chunked, 8 tokens"] * 3 + ["full causal"]
    assert list(irope["query temperature"] != "none") == [False, False, False, True]
    alibi = df[df["arm"] == "alibi"].iloc[0]
    assert alibi["alibi slopes [logits/token]"] == "2 0.125" and alibi["heads"] == 2
    assert df[df["arm"] == "alibi_8_heads"].iloc[0]["head dim [dims]"] == 8
    assert set(df[df["arm"] == "p_rope"]["rotated pairs"]) == {12}
    assert list(df[df["arm"] == "hybrid"]["rotated pairs"]) == [16, 0, 16, 0]
    assert set(df[df["arm"] == "rope_base5"]["base"]) == {5.0}
    assert all(c.isascii() for c in df.columns)


@pytest.mark.skipif(not (tm.WEIGHTS_DIR / tm.EVALUATION_FILE).exists(),
                    reason="no stored evaluation")
def test_every_stored_curve_and_comparison():
    stored = tm.read_evaluation()
    results = tr.curves(stored)
    assert list(results) == list(stored["curves"])
    df = tr.comparison_table(results)
    made = [(t, a, b) for t, a, b in tr.comparisons()
            if (t, *a) in results and (t, *b) in results]
    assert len(df) == sum(len(tr.compared_groups(t)) for t, _a, _b in made)
    assert ((df["ci_low"] <= df["difference"] + 1e-12)
            & (df["difference"] <= df["ci_high"] + 1e-12)).all()
