"""The tiny models' results, from their stored evaluation: each curve's accuracy per seed
and group, the range of its seeds' accuracies (:func:`.intervals.seed_interval`), and the paired
comparisons (:mod:`.paired`) that every comparative sentence of the page comes from, in two
families (:data:`FAMILIES`), each corrected by Holm's method on its own.

A curve is ``(task, arm, method)`` (:func:`rope_core.beyond.tiny_model.evaluated_curves`);
a group is a local position bin or a recall cell (:func:`~rope_core.beyond.tiny_model
.groups`). Everything here is computed from the integer counts that
:func:`~rope_core.beyond.tiny_model.read_evaluation` returns, in a few milliseconds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..support._checks import check_choice
from . import paired
from . import tiny_model as tm
from .intervals import seed_interval

# the CSVs' columns that say which group a row is (English, units in brackets)
GROUP_COLUMNS = ("group", "position bin [tokens]", "store depth [tokens]",
                 "distance from the store [tokens]")


class Curve(NamedTuple):
    """One evaluated curve. G groups, S seeds."""

    per_sequence: list[np.ndarray]  # G arrays (S, J_g): each sequence's accuracy
    seed_means: np.ndarray  # (S, G): each seed's accuracy in each group
    accuracy: np.ndarray  # (G,): seeds and sequences pooled
    # (G,) each: the range of the seeds' accuracies, widened to Clopper-Pearson's bound for
    # one seed's answers all right (or all wrong) at 100% (or 0): intervals.seed_interval
    low: np.ndarray
    high: np.ndarray
    stored: np.ndarray | None  # recall (G,): the share of answers that are a stored value


def curve(task: str, counts: dict) -> Curve:
    """A curve from its stored counts (``{"hits": (S, J, ...), ...}`` of read_evaluation)."""
    groups = tm.groups(task)
    per = tm.group_accuracies(task, counts["hits"])  # G x (S, J_g)
    bounds = [seed_interval(a, g["answers"]) for a, g in zip(per, groups)]
    stored = None
    if "stored" in counts:
        stored = np.array([float(a.mean()) for a in tm.group_accuracies(task, counts["stored"])])
    return Curve(per, np.stack([a.mean(axis=1) for a in per], axis=1),
                 np.array([float(a.mean()) for a in per]),
                 np.array([lo for lo, _hi in bounds]), np.array([hi for _lo, hi in bounds]),
                 stored)


def curves(stored: dict) -> dict[tuple[str, str, str], Curve]:
    """Every curve of a stored evaluation (:func:`~rope_core.beyond.tiny_model
    .read_evaluation`), in its order."""
    return {key: curve(key[0], counts) for key, counts in stored["curves"].items()}


def _group_cells(group: dict) -> tuple:
    return (group["label"], group["position"], group["depth"], group["distance"])


def seed_table(results: dict, seeds: list[int]) -> pd.DataFrame:
    """One row per curve, seed and group: task, arm, method, seed, the group's columns,
    sequences, answers, right (answers right) and accuracy (right / answers)."""
    rows = []
    for (task, arm, method), c in results.items():
        for g, group in enumerate(tm.groups(task)):
            per = c.per_sequence[g]  # (S, J_g)
            for i, seed in enumerate(seeds):
                answers = per.shape[1] * group["answers"]
                right = int(round(float(per[i].sum()) * group["answers"]))
                rows.append((task, arm, method, seed, *_group_cells(group), per.shape[1],
                             answers, right, right / answers))
    return pd.DataFrame(rows, columns=["task", "arm", "method", "seed", *GROUP_COLUMNS,
                                       "sequences", "answers", "right", "accuracy"])


def aggregate_table(results: dict) -> pd.DataFrame:
    """One row per curve and group, seeds pooled: task, arm, method, the group's columns,
    seeds, sequences (all seeds), accuracy, and the range of the seeds' accuracies
    (seeds_low, seeds_high: :func:`.intervals.seed_interval`, widened to Clopper-Pearson's
    bound for one seed's answers all right, or all wrong)."""
    rows = []
    for (task, arm, method), c in results.items():
        for g, group in enumerate(tm.groups(task)):
            seeds, per_seed = c.per_sequence[g].shape
            rows.append((task, arm, method, *_group_cells(group), seeds, seeds * per_seed,
                         float(c.accuracy[g]), float(c.low[g]), float(c.high[g])))
    return pd.DataFrame(rows, columns=["task", "arm", "method", *GROUP_COLUMNS, "seeds",
                                       "sequences", "accuracy", "seeds_low", "seeds_high"])


# --- the comparisons --------------------------------------------------------------------

def compared_groups(task: str) -> tuple[str, ...]:
    """The groups where arms are compared: the farthest of each measure (local: the last
    position bin; recall: the deepest store, the farthest query)."""
    labels = tm.group_labels(check_choice(task, "task", tm.TASKS))
    if task == "local":
        return (labels[-1],)
    return tuple(next(lab for lab in reversed(labels) if lab.startswith(kind))
                 for kind in ("distance", "depth"))


# The families of comparisons, each corrected by Holm's method on its own: "main", the
# pre-specified comparisons of the models as trained (and run other ways); "criterion
# sensitivity", the sensitivity run (each seed stopped at the loss criterion, or at the end
# of the budget where no check reached it: rope_core.beyond.tiny_model.TRAINING) against
# the main runs and between arms. Apart, so that adding the sensitivity analysis moves no
# main conclusion.
FAMILIES = ("main", "criterion sensitivity")


def comparisons(family: str = "main") -> tuple[tuple[str, tuple[str, str], tuple[str, str]], ...]:
    """One family of paired comparisons (:data:`FAMILIES`), ``(task, (arm, method) a, (arm,
    method) b)``, each made in every group of :func:`compared_groups`.

    "main": every pair of main arms; the RoPE model run each other way against as
    trained; the sinusoidal model held against as trained; each control against its main
    arm (the unscaled ALiBi against NoPE too; the base-5 RoPE run each way against as
    trained). "criterion sensitivity": each main arm at the criterion against trained to
    the end; then every pair of main arms again, both at the criterion (in the main
    family's order)."""
    family = check_choice(family, "family", FAMILIES)
    out = []
    recorded = set(tm.recorded_curves())
    for task in tm.TASKS:
        if family == "criterion sensitivity":
            stopped = [(e, "at_criterion") for e in tm.ENCODINGS]
            out += [(task, (e, "at_criterion"), (e, "none")) for e in tm.ENCODINGS]
            out += [(task, stopped[i], stopped[j]) for i in range(len(stopped))
                    for j in range(i + 1, len(stopped))]
            continue
        main = [(e, "none") for e in tm.ENCODINGS]
        out += [(task, main[i], main[j]) for i in range(len(main))
                for j in range(i + 1, len(main))]
        out += [(task, ("rope", m), ("rope", "none")) for m in tm.ROPE_METHODS]
        out.append((task, ("sinusoidal", "held"), ("sinusoidal", "none")))
        for arm, (encoding, _changes, _tasks) in tm.CONTROLS.items():
            if (task, arm, "none") in recorded:
                out.append((task, (arm, "none"), (encoding, "none")))
        if (task, "alibi_unscaled", "none") in recorded:  # is it NoPE in disguise?
            out.append((task, ("alibi_unscaled", "none"), ("nope", "none")))
        if (task, "rope_base5", "none") in recorded:
            out += [(task, ("rope_base5", m), ("rope_base5", "none"))
                    for m in tm.CONTROL_METHODS]
    return tuple(out)


def curve_name(arm: str, method: str) -> str:
    """A curve's name in the CSVs: the arm, "/method" unless "none"."""
    return arm if method == "none" else f"{arm}/{method}"


def comparison_table(results: dict) -> pd.DataFrame:
    """Every comparison of each family of :func:`comparisons` whose two curves ``results``
    holds, in every compared group: family, task, the group's columns, a, b, the paired
    difference a - b across seeds with its own 95% interval (ci_low, ci_high), t, p,
    p_holm (Holm's correction over the rows of its family: :func:`paired.holm`),
    seeds_a_higher, and Bonferroni's simultaneous interval of its family (ci_low_family,
    ci_high_family: level :func:`paired.simultaneous_level`(m), m the family's rows, so
    that all m hold together at 95%; t_{S-1} at 1 - 0.025/m). The main family's rows come
    first; their p_holm and family intervals do not depend on the other family's rows.

    Holm's p decides "resolved"; a difference that Holm resolves may still have a family
    interval that touches 0, never the reverse (:mod:`.paired`)."""
    rows, pairs = [], []
    for family in FAMILIES:
        for task, a, b in comparisons(family):
            ka, kb = (task, *a), (task, *b)
            if ka not in results or kb not in results:
                continue
            labels = tm.group_labels(task)
            for label in compared_groups(task):
                g = labels.index(label)
                test = paired.paired_difference(results[ka].per_sequence[g],
                                                results[kb].per_sequence[g])
                pairs.append((results[ka].per_sequence[g], results[kb].per_sequence[g]))
                rows.append((family, task, *_group_cells(tm.groups(task)[g]), curve_name(*a),
                             curve_name(*b), test["difference"], test["ci_low"],
                             test["ci_high"], test["t"], test["p"], test["seeds_a_higher"]))
    df = pd.DataFrame(rows, columns=["family", "task", *GROUP_COLUMNS, "a", "b", "difference",
                                     "ci_low", "ci_high", "t", "p", "seeds_a_higher"])
    holm = np.empty(len(df))
    for family in FAMILIES:
        mask = (df["family"] == family).to_numpy()
        if mask.any():
            holm[mask] = paired.holm(df.loc[mask, "p"].to_numpy())
    df.insert(df.columns.get_loc("p") + 1, "p_holm", holm)
    sizes = df["family"].map(df["family"].value_counts()).to_numpy()  # (rows,) m of each
    family = [paired.paired_difference(a, b, level=paired.simultaneous_level(int(m)))
              for (a, b), m in zip(pairs, sizes)]
    df["ci_low_family"] = [f["ci_low"] for f in family]
    df["ci_high_family"] = [f["ci_high"] for f in family]
    return df


def criterion_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Each main-family comparison of two main arms as trained beside the same pair
    compared again with both stopped at the criterion (the "criterion sensitivity"
    family), from :func:`comparison_table`'s ``table``: task, the group's columns, a, b
    (the arms), difference and p_holm (main), difference_at_criterion and
    p_holm_at_criterion, and kept: resolved in the main family (p_holm < ALPHA) and, at
    the criterion, resolved in its own family with a difference of the same sign. Rows
    in the main family's order; a pair whose runs at the criterion ``table`` lacks is left
    out."""
    sens = table[table["family"] == FAMILIES[1]].set_index(["task", "group", "a", "b"])
    rows = []
    for r in table[table["family"] == FAMILIES[0]].itertuples(index=False):
        if r.a not in tm.ENCODINGS or r.b not in tm.ENCODINGS:
            continue
        key = (r.task, r.group, curve_name(r.a, "at_criterion"), curve_name(r.b, "at_criterion"))
        if key not in sens.index:
            continue
        at = sens.loc[key]
        kept = bool(r.p_holm < paired.ALPHA and at["p_holm"] < paired.ALPHA
                    and np.sign(at["difference"]) == np.sign(r.difference))
        rows.append((r.task, *r[2:6], r.a, r.b, r.difference, r.p_holm,
                     float(at["difference"]), float(at["p_holm"]), kept))
    return pd.DataFrame(rows, columns=["task", *GROUP_COLUMNS, "a", "b", "difference",
                                       "p_holm", "difference_at_criterion",
                                       "p_holm_at_criterion", "kept"])


# --- where a chunked model loses answers ----------------------------------------------------

def chunk_start_accuracy(positions: np.ndarray, sequences: int, chunk: int, k: int,
                         first: int, last: int) -> tuple[float, float]:
    """A local curve's accuracy at chunk starts and at the other positions m = first ...
    last, seeds and sequences pooled: ``(starts, others)``.

    A chunk start is a position whose answer, k tokens back, lies in the previous chunk:
    floor((m - k) / chunk) != floor(m / chunk), that is m mod chunk < k (a chunked RoPE
    layer cannot see it there). ``positions``: ``(S, seq)``, at each position the
    sequences answered right (read_evaluation's "positions"); ``sequences``: J per seed.
    """
    positions = np.asarray(positions)
    m = np.arange(first, last + 1)  # (n,)
    start = m % chunk < k  # (n,)
    right = positions[:, first:last + 1].sum(axis=0)  # (n,) over seeds
    total = positions.shape[0] * sequences
    return (float(right[start].sum() / (total * start.sum())),
            float(right[~start].sum() / (total * (~start).sum())))


# --- what differs between the arms --------------------------------------------------------

def arms_table() -> pd.DataFrame:
    """What each arm's model is, from its config (:func:`~rope_core.beyond.tiny_model
    .model_config`): one row per arm and layer where something differs between layers,
    English (a CSV): arm, control of (the main arm a control changes), tasks, layer,
    position in the layer (what encodes position there), attention (full, or chunked to
    c tokens), query temperature (Llama 4's, or none), heads, head dim, ALiBi slopes,
    base, rotated pairs, steps. Everything else (sizes, optimiser, data, initial weights
    of a seed, steps, schedule) is the same for every arm."""
    rows = []
    for arm, (encoding, _changes) in tm.ARMS.items():
        cfg = tm.model_config("local", arm)
        main = arm in tm.ENCODINGS
        tasks = tm.TASKS if main else tm.CONTROLS[arm][2]
        slopes = ""
        if encoding == "alibi":
            from .alternatives import alibi_slopes
            slopes = " ".join(f"{float(v):g}" for v in alibi_slopes(cfg.n_heads) * cfg.alibi_scale)
        for layer in range(cfg.n_layers):
            kind = cfg.layer_encoding(layer)
            where = {"rope": "q and k rotated (RoPE)", "p_rope": "q and k rotated (p-RoPE)",
                     "alibi": "bias -slope (m - n) on the logits", "none": "none"}[kind]
            if encoding == "sinusoidal":
                where = "PE added to the token embedding (below layer 1)" if layer == 0 \
                    else "none (PE from the embedding)"
            chunked = cfg.layer_attention(layer) == "chunked"
            rotated = int((tm.model_theta(cfg) > 0).sum()) if kind in ("rope", "p_rope") else 0
            rows.append((arm, "" if main else encoding, " ".join(tasks), layer + 1, where,
                         f"chunked, {cfg.chunk} tokens" if chunked else "full causal",
                         f"1 + {cfg.attn_scale:g} ln(1 + floor((m + 1) / {cfg.floor_scale:g}))"
                         if cfg.layer_temperature(layer) else "none",
                         cfg.n_heads, cfg.d_head, slopes if kind == "alibi" else "",
                         cfg.base if rotated else float("nan"), rotated,
                         tm.TRAINING["steps"]))
    return pd.DataFrame(rows, columns=["arm", "control of", "tasks", "layer",
                                       "position in the layer", "attention",
                                       "query temperature", "heads", "head dim [dims]",
                                       "alibi slopes [logits/token]", "base", "rotated pairs",
                                       "steps"])
