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
    assert ((pooled["seeds_low"] <= pooled["accuracy"])
            & (pooled["accuracy"] <= pooled["seeds_high"])).all()
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
    assert not any("at_criterion" in (a[1], b[1]) for _t, a, b in family)


def test_the_family_of_the_sensitivity_run():
    """Per task: each main arm at the criterion against trained to the end (7), then every
    pair of main arms with both at the criterion (21), in the main family's order."""
    family = tr.comparisons("criterion sensitivity")
    assert len(family) == len(tm.TASKS) * (7 + 21) and len(set(family)) == len(family)
    assert family[0] == ("local", ("nope", "at_criterion"), ("nope", "none"))
    stopped = [(t, a[0], b[0]) for t, a, b in family if a[1] == b[1] == "at_criterion"]
    main = [(t, a[0], b[0]) for t, a, b in tr.comparisons()
            if a[0] in tm.ENCODINGS and b[0] in tm.ENCODINGS and a[1] == b[1] == "none"]
    assert stopped == main
    assert all(a[1] == "at_criterion" for _t, a, _b in family)
    with pytest.raises(ValueError, match="family"):
        tr.comparisons("all")


def test_the_comparison_table_is_paired_and_holm_corrected():
    rng = np.random.default_rng(3)
    results = {("local", e, "none"): tr.curve("local", local_counts(rng, level))
               for e, level in zip(tm.ENCODINGS, np.linspace(0.1, 0.9, len(tm.ENCODINGS)))}
    df = tr.comparison_table(results)
    assert len(df) == 21 and set(df["group"]) == {"96-127"} and set(df["family"]) == {"main"}
    assert list(df.columns) == ["family", "task", "group", "position bin [tokens]",
                                "store depth [tokens]", "distance from the store [tokens]",
                                "a", "b", "difference", "ci_low", "ci_high", "t", "p",
                                "p_holm", "seeds_a_higher", "ci_low_family",
                                "ci_high_family"]
    assert np.allclose(df["p_holm"], paired.holm(df["p"].to_numpy()))
    row = df[(df["a"] == "nope") & (df["b"] == "rope")].iloc[0]
    want = paired.paired_difference(results["local", "nope", "none"].per_sequence[-1],
                                    results["local", "rope", "none"].per_sequence[-1])
    assert row["difference"] == want["difference"] and row["p"] == want["p"]


T_4 = 2.776445  # Student's t, 4 degrees of freedom, 97.5% (table)


def t4_p(t: float) -> float:
    """Two-sided p of Student's t with 4 degrees of freedom, closed form: with
    u = atan(|t| / 2), P(|T_4| >= |t|) = 1 - sin u (1 + cos^2 u / 2)."""
    u = math.atan(abs(t) / 2)
    return 1 - math.sin(u) * (1 + math.cos(u) ** 2 / 2)


def holm_by_rejection(p) -> list[float]:
    """Holm's adjusted p of each hypothesis as the smallest level at which Holm's
    procedure rejects it: at level alpha, go through the p-values from the smallest,
    rejecting the k-th (from 1) while p_(k) <= alpha / (m - k + 1), and stop at the first
    that is not. The candidate levels are the values min(1, (m - k + 1) p_(k))."""
    m = len(p)
    ranked = sorted(range(m), key=lambda i: (p[i], i))

    def rejected(alpha):
        out = set()
        for k, i in enumerate(ranked, start=1):
            if p[i] > alpha / (m - k + 1):
                break
            out.add(i)
        return out
    levels = sorted({min(1.0, (m - k + 1) * p[i]) for k, i in enumerate(ranked, start=1)})
    return [next((a for a in levels if i in rejected(a)), 1.0) for i in range(m)]


def both_families(rng) -> dict:
    """Local curves of every main arm, as trained and at the criterion."""
    results = {}
    for e, level in zip(tm.ENCODINGS, np.linspace(0.2, 0.8, len(tm.ENCODINGS))):
        results["local", e, "none"] = tr.curve("local", local_counts(rng, level))
        results["local", e, "at_criterion"] = tr.curve("local", local_counts(
            rng, level + rng.uniform(-0.05, 0.05)))
    return results


def test_each_family_is_holm_corrected_on_its_own():
    """p from the seed means by the closed form of T_4; p_holm by Holm's procedure run
    at each level (a second formulation), within each family; the main family's p_holm
    the same, to the bit, as in a table without the sensitivity run's curves."""
    results = both_families(np.random.default_rng(5))
    df = tr.comparison_table(results)
    assert list(df["family"]) == ["main"] * 21 + ["criterion sensitivity"] * (7 + 21)
    g = len(tm.answers_per_bin("local")) - 1  # the compared group, 96-127

    def seeds(name):
        arm, _slash, method = name.partition("/")
        return results["local", arm, method or "none"].seed_means[:, g]
    for row in df.itertuples(index=False):
        d = seeds(row.a) - seeds(row.b)
        t = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
        assert row.p == pytest.approx(t4_p(t), abs=1e-9)
        assert row.ci_high == pytest.approx(d.mean() + T_4 * d.std(ddof=1) / math.sqrt(5),
                                            abs=1e-5)
    for family in tr.FAMILIES:
        rows = df[df["family"] == family]
        assert rows["p_holm"].to_numpy() == pytest.approx(
            holm_by_rejection(list(rows["p"])), abs=1e-12)
    alone = tr.comparison_table({k: v for k, v in results.items() if k[2] == "none"})
    assert set(alone["family"]) == {"main"}
    main = df[df["family"] == "main"].reset_index(drop=True)
    assert main["p_holm"].tolist() == alone["p_holm"].tolist()
    assert main.drop(columns="family").equals(alone.drop(columns="family"))


def test_holm_by_rejection_by_hand():
    """The helper above on test_core_paired's hand example: 0.03, 0.06, 0.06, 0.02."""
    assert holm_by_rejection([0.01, 0.04, 0.03, 0.005]) == pytest.approx(
        [0.03, 0.06, 0.06, 0.02], abs=1e-15)


def test_criterion_pairs_by_hand():
    """Kept: resolved in the main family and, at the criterion, resolved with the same
    sign; a sign flip or a p_holm at 0.05 or above is a change."""
    import pandas as pd

    def row(family, a, b, diff, p_holm):
        return dict(family=family, task="local", group="96-127",
                    **{"position bin [tokens]": "96-127", "store depth [tokens]": "",
                       "distance from the store [tokens]": ""}, a=a, b=b, difference=diff,
                    ci_low=diff - 0.1, ci_high=diff + 0.1, t=1.0, p=p_holm / 2,
                    p_holm=p_holm, seeds_a_higher=3)
    s = "criterion sensitivity"
    table = pd.DataFrame([
        row("main", "nope", "rope", -0.5, 0.001), row("main", "nope", "alibi", -0.4, 0.01),
        row("main", "rope", "alibi", 0.2, 0.04), row("main", "rope", "p_rope", 0.1, 0.3),
        row("main", "rope/window", "rope", 0.1, 0.001),  # not two main arms
        row(s, "nope/at_criterion", "nope", 0.0, 1.0),
        row(s, "nope/at_criterion", "rope/at_criterion", -0.45, 0.002),  # kept
        row(s, "nope/at_criterion", "alibi/at_criterion", -0.3, 0.05),  # open at 0.05
        row(s, "rope/at_criterion", "alibi/at_criterion", -0.2, 0.01),  # flipped
        row(s, "rope/at_criterion", "p_rope/at_criterion", 0.3, 0.01)])  # newly resolved
    got = tr.criterion_pairs(table)
    assert list(zip(got["a"], got["b"])) == [("nope", "rope"), ("nope", "alibi"),
                                             ("rope", "alibi"), ("rope", "p_rope")]
    assert got["kept"].tolist() == [True, False, False, False]
    assert got["difference_at_criterion"].tolist() == [-0.45, -0.3, -0.2, 0.3]
    assert got["p_holm_at_criterion"].tolist() == [0.002, 0.05, 0.01, 0.01]
    assert got.columns[1:5].tolist() == list(tr.GROUP_COLUMNS)


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
    for family in tr.FAMILIES:
        made = [(t, a, b) for t, a, b in tr.comparisons(family)
                if (t, *a) in results and (t, *b) in results]
        assert len(made) == len(tr.comparisons(family))  # every curve is stored
        assert (df["family"] == family).sum() == sum(len(tr.compared_groups(t))
                                                     for t, _a, _b in made)
    assert ((df["ci_low"] <= df["difference"] + 1e-12)
            & (df["difference"] <= df["ci_high"] + 1e-12)).all()


def t4_quantile(p: float) -> float:
    """Student's T_4 quantile in closed form (Shaw 2006, "Sampling Student's T
    distribution", nu = 4): a = 4p(1 - p), q = cos(arccos(sqrt(a)) / 3) / sqrt(a),
    t = sign(p - 1/2) 2 sqrt(q - 1)."""
    a = 4 * p * (1 - p)
    q = math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a)
    return math.copysign(2 * math.sqrt(q - 1), p - 0.5)


def test_the_family_interval_is_bonferronis_from_the_closed_form():
    """Each row's family interval: mean d -+ t_4(1 - 0.025/m) sd(d)/sqrt(5), m its family's
    rows (21 here), t_4 from Shaw's closed form; it holds the per-comparison 95% interval
    (t_4(0.975) = 2.776445, the table's), and where it clears 0 Holm resolves the row."""
    assert t4_quantile(0.975) == pytest.approx(2.776445, abs=1e-6)
    rng = np.random.default_rng(4)
    results = {("local", e, "none"): tr.curve("local", local_counts(rng, level))
               for e, level in zip(tm.ENCODINGS, np.linspace(0.3, 0.7, len(tm.ENCODINGS)))}
    df = tr.comparison_table(results)
    m = len(df)
    t_family = t4_quantile(1 - 0.025 / m)
    for r in df.itertuples(index=False):
        d = (results["local", r.a, "none"].per_sequence[-1]
             - results["local", r.b, "none"].per_sequence[-1]).mean(axis=1)  # (5,)
        half = t_family * d.std(ddof=1) / math.sqrt(5)
        assert r.ci_low_family == pytest.approx(d.mean() - half, abs=1e-9)
        assert r.ci_high_family == pytest.approx(d.mean() + half, abs=1e-9)
        assert r.ci_low_family <= r.ci_low <= r.ci_high <= r.ci_high_family
        if r.ci_low_family > 0 or r.ci_high_family < 0:
            assert r.p_holm < paired.ALPHA
