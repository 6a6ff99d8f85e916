"""Where RoPE breaks: tidy tables for the "Long context" and "Precision" pages.

Pure torch/pandas; every number comes from :mod:`rope_core.limits.capacity`,
:mod:`rope_core.limits.precision` and :mod:`rope_core.models.scaling`. Every table builder
puts its settings first (leading columns), then one row per sample (tidy long
form). Column names are ASCII, with a unit in [brackets] where there is one.

Long context
------------
* :func:`ood_angle_table`: per pair i, the largest angle seen in training
  L * theta_i against the largest at inference s * L * theta'_i (theta' the
  scaled spectrum of each method), and whether inference leaves what training
  covered: ``unseen`` when L * theta_i < 2 pi (pair never completed a turn in
  training) and s L theta'_i > L theta_i.
* :func:`cos_sum_curve`: B_m = sum_i cos(m theta_i) against m (Men et al. 2024).
* :func:`base_bound` and :func:`island_table`: the smallest base keeping B_m >= 0
  for every m < L, the threshold above which every grid base passes and the passing
  islands between (:func:`rope_core.limits.capacity.base_search`, precomputed in
  ``base_bounds_table.json`` beside this module for the settings the page offers,
  read once by :func:`base_bounds_table`).
* :func:`men_fit_base` and :func:`base_bound_table`: Men et al.'s published
  fit base ~ 0.0424 L^1.628 beside the smallest base.
* :func:`preset_bound_table`: each preset's rotating layer groups, their own spectrum over
  their own reach: how negative B_m gets and on how many distances.
* :func:`liu_comparison_table`: Liu et al. 2023's critical dimension for LLaMA 2.

Precision
---------
* :func:`spacing_table`, :func:`first_inexact_table`, :func:`error_table`,
  :func:`relative_table`, :func:`neox_issue_table`.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from ..models.presets import PRESETS
from ..models.scaling import comparison_params, scaled_theta
from ..rotary.frequencies import theta as plain_theta
from ..support._checks import N_, check_base, check_dim, check_int, check_positive_float, fail
from ..support.frames import labels
from .capacity import (
    BASE_GRID_RATIO,
    MAX_CONTEXT,
    MAX_CONTEXT_WORK,
    base_search,
    cos_sum_profile_of,
    critical_dimension,
    extrapolation_limit,
)
from .capacity import cos_sum as _cos_sum
from .precision import (
    DTYPES,
    MAX_POSITION,
    RECIPES,
    as_dtype_position,
    first_inexact_position,
    grid_spacing,
    max_angle_error,
    max_angle_errors,
    relative_property_errors,
    resolve_dtype,
)

TWO_PI = 2.0 * math.pi

# Methods whose parameters follow from (s, L) alone; LongRoPE needs searched per-pair factors.
OOD_METHODS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
MAX_TRAIN_CONTEXT = 10**6
MAX_CURVE_POINTS = 4000
MAX_SCAN_BASES = 200
MAX_PRECISION_POINTS = 2000

# ---------------------------------------------------------------- published numbers

LIU_2023 = {  # Liu et al. 2023, "Scaling Laws of RoPE-based Extrapolation" (arXiv:2310.05209)
    "citation": N_("Liu et al. 2023, Scaling Laws of RoPE-based Extrapolation "
                   "(arXiv:2310.05209)"),
    "model": "LLaMA 2", "dim": 128, "base": 10_000.0, "train_context": 4096,
    "critical_dimension": 92,
}
MEN_2024 = {  # Men et al. 2024, "Base of RoPE Bounds Context Length" (arXiv:2405.14591), Fig. 1
    "citation": N_("Men et al. 2024, Base of RoPE Bounds Context Length (arXiv:2405.14591)"),
    "coefficient": 0.0424, "exponent": 1.628,
}
NEOX_1003 = {  # the numbers printed in the issue's reproducer output (CUDA, fp16)
    "repository": "EleutherAI/gpt-neox", "number": 1003,
    # Translators: the title of a GitHub issue, quoted on the Precision page
    "title": N_("RotaryEmbedding computation is wrong for certain position/feature pairs in "
                "reduced precision (both fp16 and bfloat)"),
    "url": "https://github.com/EleutherAI/gpt-neox/issues/1003",
    "seq_len": 2048, "dim": 32, "base": 10_000.0, "dtype": "float16", "recipe": "product",
    "position": 1857, "pair": 1,
    "angle_float32": 1044.2678, "angle_float16": 1045.0, "max_cos_error": 0.7819,
}


# ---------------------------------------------------------------- long context

def _method_params(method: str, factor: float, train_context: int,
                   dynamic_factor: float = 1.0) -> dict:
    # dynamic NTK with transformers' factor f (default 1: alpha = s at s L, YaRN's definition)
    return comparison_params(method, factor, train_context, dynamic_factor)


def _tidy(blocks: list) -> pd.DataFrame:
    """``pd.concat([pd.DataFrame(b) for b in blocks], ignore_index=True)``, built as one
    frame (a frame per block and their concatenation cost about 1 ms each): each block
    a dict of the same columns, in the same order, of scalars (repeated down the block)
    and equally long 1-D arrays. The columns and their dtypes are the same."""
    lengths = [max(len(v) if np.ndim(v) else 1 for v in b.values()) for b in blocks]
    columns = {}
    for name in blocks[0]:
        values = [b[name] for b in blocks]
        if all(isinstance(v, str) for v in values):  # a label per block: one Arrow take
            names = list(dict.fromkeys(values))
            columns[name] = labels(names, np.repeat([names.index(v) for v in values], lengths))
        elif all(np.ndim(v) == 0 for v in values):
            columns[name] = np.repeat(np.asarray(values), lengths)  # (rows,)
        else:
            columns[name] = np.concatenate([np.broadcast_to(np.asarray(v), (n,))
                                            for v, n in zip(values, lengths)])
    return pd.DataFrame(columns)


def _ood_angles(dim: int, base: float, L: int, s: float, methods, dynamic_factor: float = 1.0):
    """Per method (repeats dropped): (method, theta' (h,), L theta (h,), s L theta' (h,),
    unseen (h,) bool), for :func:`ood_angle_table` and :func:`ood_unseen_counts`."""
    if s < 1:
        fail("factor", s, "a number from 1 to 1000")
    methods = tuple(methods)
    if not methods or any(m not in OOD_METHODS for m in methods):
        fail("methods", methods, "a non-empty list from {choices}", choices=", ".join(OOD_METHODS))
    th = plain_theta(dim, base)  # (h,)
    train = L * th  # (h,)
    n = max(1, round(s * L))
    for method in dict.fromkeys(methods):
        th2, _ = scaled_theta(dim, base, method, seq_len=n,
                              **_method_params(method, s, L, dynamic_factor))
        infer = s * L * th2  # (h,)
        # a relative tolerance: NTK divides the slowest pair by exactly s, so
        # s L theta' = L theta up to one rounding step, which is not "unseen"
        unseen = (train < TWO_PI) & (infer > train * (1 + 1e-9))  # (h,)
        yield method, th2, train, infer, unseen


def ood_angle_table(dim: int, base: float, train_context: int, factor: float,
                    methods=OOD_METHODS) -> pd.DataFrame:
    """Largest angle per pair in training (L theta_i) and at inference (s L theta'_i).

        train angle_i = L theta_i,  theta_i = base^(-2i/d)
        inference angle_i = s L theta'_i,  theta' = scaled_theta(method, factor=s,
            original_max_position_embeddings=L, seq_len=s L)
        unseen_i = (L theta_i < 2 pi) and (s L theta'_i > L theta_i)

    A pair that completed a turn in training (L theta_i >= 2 pi) has seen every
    angle mod 2 pi; one that did not meets angles it never saw once inference
    goes past L theta_i. The dynamic method is evaluated at the current length
    n = s L with transformers' factor 1 (alpha = n / L = s, YaRN's definition of
    dynamic scaling; :func:`rope_core.models.scaling.comparison_params`).

    Args:
        dim: rotary dim, even, 2 ... 4096.
        base: > 1.
        train_context: L, integer 1 ... 10^6.
        factor: s, 1 ... 1000.
        methods: names from :data:`OOD_METHODS` (LongRoPE needs per-pair factors).
    Returns:
        DataFrame, one row per (method, pair): dim, base, train context L [tokens],
        factor s, method, pair i, wavelength [tokens] (2 pi / theta'_i),
        train max angle [rad], inference max angle [rad], unseen.
    """
    dim, base = check_dim(dim), check_base(base)
    L = check_int(train_context, "train_context", 1, MAX_TRAIN_CONTEXT)
    s = check_positive_float(factor, "factor", upper=1000.0)
    blocks = []
    for method, th2, train, infer, unseen in _ood_angles(dim, base, L, s, methods):
        blocks.append({
            "dim": dim, "base": base, "train context L [tokens]": L, "factor s": s,
            "method": method, "pair i": range(dim // 2),
            "wavelength [tokens]": (TWO_PI / th2).numpy(),
            "train max angle [rad]": train.numpy(),
            "inference max angle [rad]": infer.numpy(),
            "unseen": unseen.numpy(),
        })
    return _tidy(blocks)


def ood_unseen_counts(dim: int, base: float, train_context: int, factor: float,
                      methods=OOD_METHODS, dynamic_factor: float = 1.0) -> dict:
    """How many pairs each method leaves outside what training covered: the sum of
    :func:`ood_angle_table`'s ``unseen`` per method, without building the table.
    ``dynamic_factor``: transformers' factor f of dynamic NTK (1 ... 1000; default 1,
    alpha = s at n = s L; f = s gives alpha = s^2 - s + 1 there).

    Returns:
        {method: int} for each method (repeats dropped), in the given order.
    """
    dim, base = check_dim(dim), check_base(base)
    L = check_int(train_context, "train_context", 1, MAX_TRAIN_CONTEXT)
    s = check_positive_float(factor, "factor", upper=1000.0)
    return {method: int(unseen.sum())
            for method, _, _, _, unseen in _ood_angles(dim, base, L, s, methods,
                                                       dynamic_factor)}


def liu_summary(dim: int, base: float, train_context: int, new_base: float) -> dict:
    """Critical dimension and extrapolation limits (Liu et al. 2023).

        d_extra = critical_dimension(d, base, L)
        T(b) = 2 pi b^(d_extra / d)  at b = base (as trained), and at b = new_base only
        when new_base > base: the paper's bound for a model FINE-TUNED with a larger
        base beta after pre-training with ``base``.

    For a smaller base the paper reports the opposite behaviour (base 500: every
    pair completes a period within the tuning length and extrapolation improves), so no limit
    is given there: ``limit_at_new_base`` is None and ``new_base_case`` says why.

    Returns:
        {"critical_dimension": int, "critical_pair": d_extra/2,
         "limit_at_base": tokens, "limit_at_new_base": tokens or None,
         "new_base_case": "larger" | "same" | "smaller"}
    """
    d_extra = critical_dimension(dim, base, train_context)
    new_base = check_base(new_base, "new_base")
    case = "larger" if new_base > base else ("same" if new_base == base else "smaller")
    return {"critical_dimension": d_extra, "critical_pair": d_extra // 2,
            "limit_at_base": extrapolation_limit(dim, base, d_extra),
            "limit_at_new_base": (extrapolation_limit(dim, new_base, d_extra)
                                  if case == "larger" else None),
            "new_base_case": case}


def liu_comparison_table() -> pd.DataFrame:
    """Liu et al.'s published critical dimension for LLaMA 2 beside the app's.

    Returns:
        one row: model, dim, base, train context L [tokens], paper critical dimension,
        app critical dimension, difference, matches.
    """
    p = LIU_2023
    app = critical_dimension(p["dim"], p["base"], p["train_context"])
    return pd.DataFrame([{
        "model": p["model"], "dim": p["dim"], "base": p["base"],
        "train context L [tokens]": p["train_context"],
        "paper critical dimension": p["critical_dimension"], "app critical dimension": app,
        "difference": app - p["critical_dimension"], "matches": app == p["critical_dimension"],
    }])


def cos_sum_curve(dim: int, base: float, max_distance: int,
                  points: int = MAX_CURVE_POINTS) -> pd.DataFrame:
    """B_m = sum_{i<d/2} cos(m theta_i) at integer m from 0 to max_distance.

    Every integer when max_distance < points, else ``points`` evenly spaced
    integers round(t max / (points - 1)) (repeats dropped): a sampled curve; the
    exact first crossing is :func:`rope_core.limits.capacity.first_negative_distance`.

    Args:
        dim: rotary dim, even, 2 ... 4096. base: > 1.
        max_distance: integer 1 ... 10^7. points: 2 ... 4000.
    Returns:
        DataFrame: dim, base, distance m [tokens], B_m; B_0 = d/2.
    """
    dim, base = check_dim(dim), check_base(base)
    max_distance = check_int(max_distance, "max_distance", 1, 10**7)
    points = check_int(points, "points", 2, MAX_CURVE_POINTS)
    if max_distance < points:
        m = torch.arange(max_distance + 1, dtype=torch.float64)
    else:
        m = torch.unique(torch.round(torch.linspace(0.0, max_distance, points,
                                                    dtype=torch.float64)))
    B = _cos_sum(dim, base, m)  # (R,)
    return pd.DataFrame({"dim": dim, "base": base, "distance m [tokens]": m.to(torch.int64),
                         "B_m": B.numpy()})


def check_context_work(dim: int, context: int) -> int:
    """The context if capacity's base search accepts it at this dim, else ValueError."""
    dim = check_dim(dim)
    context = check_int(context, "context", 1, MAX_CONTEXT)
    if context * (dim // 2) > MAX_CONTEXT_WORK:
        fail("context", context, "at most {n} tokens at dim = {dim} (context * dim/2 <= 2^26, "
             "to bound the work)", n=f"{MAX_CONTEXT_WORK // (dim // 2):,}", dim=dim)
    return context


BASE_BOUNDS_FILE = Path(__file__).with_name("base_bounds_table.json")


@functools.cache
def base_bounds_table() -> dict:
    """tools/make_base_bounds.py's precomputed :func:`rope_core.limits.capacity.base_search`
    results, read from ``base_bounds_table.json`` on the first call, then kept.

    Returns:
        dict {(dim, context L): {smallest, threshold, islands, proven_below,
        certified_above, checked}} as base_search gives them, islands a list of
        (first, last) tuples. Shared: callers must not modify it.
    """
    entries = json.loads(BASE_BOUNDS_FILE.read_text())["entries"]
    table = {}
    for e in entries:
        key = (e.pop("dim"), e.pop("context"))
        e["islands"] = [tuple(i) for i in e["islands"]]
        table[key] = dict(sorted(e.items()))  # the fields in the order base_search's were
    return table


def tabulated_contexts(dim: int) -> tuple:
    """The contexts L whose base search is precomputed at this dim (may be empty)."""
    return tuple(sorted(L for d, L in base_bounds_table() if d == dim))


def tabulated_dims() -> tuple:
    """The dims with a precomputed base search."""
    return tuple(sorted({d for d, _ in base_bounds_table()}))


def base_bound(dim: int, context: int, live: bool = False) -> dict:
    """:func:`rope_core.limits.capacity.base_search` for (dim, L): the precomputed entry of
    :func:`base_bounds_table` (tools/make_base_bounds.py), or with
    ``live=True`` the search itself when there is none (seconds to minutes).

    Returns:
        dict: dim, context, smallest, threshold, islands, proven_below,
        certified_above, checked (see base_search).
    """
    table = base_bounds_table()
    dim = check_dim(dim)
    context = check_context_work(dim, context)
    if (dim, context) in table:
        return {"dim": dim, "context": context, **table[(dim, context)]}
    if not live:
        fail("context", context, "one of the precomputed contexts {contexts} at dim = {dim}",
             contexts=", ".join(map(str, tabulated_contexts(dim))) or "-", dim=dim)
    return base_search(dim, context)


def island_table(dim: int, context: int) -> pd.DataFrame:
    """The passing islands between the smallest base and the threshold (:func:`base_bound`).

    Returns:
        DataFrame, one row per island: dim, context L [tokens], island, first base,
        last base (its first and last passing grid bases 1.001^k), grid bases (how many),
        width below [%] (the island lies inside (first/1.001, last*1.001), whose width
        is 100 ((last/first) 1.001^2 - 1)), smallest base, threshold base.
    """
    r = base_bound(dim, context)
    g = BASE_GRID_RATIO
    rows = [{"dim": dim, "context L [tokens]": context, "island": i + 1, "first base": lo,
             "last base": hi, "grid bases": round(math.log(hi / lo) / math.log(g)) + 1,
             "width below [%]": 100 * (hi / lo * g * g - 1),
             "smallest base": r["smallest"], "threshold base": r["threshold"]}
            for i, (lo, hi) in enumerate(r["islands"])]
    columns = ["dim", "context L [tokens]", "island", "first base", "last base", "grid bases",
               "width below [%]", "smallest base", "threshold base"]
    return pd.DataFrame(rows, columns=columns)


def men_fit_base(context) -> float:
    """Men et al. 2024's published fit (their Figure 1): base ~ 0.0424 * L^1.628."""
    L = check_positive_float(context, "context", upper=1e9)
    return MEN_2024["coefficient"] * L ** MEN_2024["exponent"]


def base_bound_table(dim: int, contexts) -> pd.DataFrame:
    """The app's smallest base and threshold (:func:`base_bound`) beside Men et al.'s fit.

    Returns:
        DataFrame: dim, context L [tokens], app min base, app threshold base,
        paper fit base, ratio app/fit (NaN when no base up to 10^15 passes).
    """
    dim = check_dim(dim)
    rows = []
    for L in contexts:
        r = base_bound(dim, L)
        app = math.nan if r["smallest"] is None else r["smallest"]
        top = math.nan if r["threshold"] is None else r["threshold"]
        fit = men_fit_base(L)
        rows.append({"dim": dim, "context L [tokens]": L, "app min base": app,
                     "app threshold base": top, "paper fit base": fit,
                     "ratio app/fit": app / fit})
    return pd.DataFrame(rows)


def preset_bound_table(names=None) -> pd.DataFrame:
    """Each preset's rotating layer groups: B_m of the group's own spectrum over the
    distances its layers meet.

    Per preset and rotating layer group (:func:`rope_core.limits.compare.rotating_groups`): the
    group's spectrum theta'_i at the preset's maximum context (its scaling included:
    Llama 3.1's llama3, Gemma 3's global layers' linear x8; a local layer's plain base)
    and L = the group's reach (its sliding window or attention chunk, else the maximum
    context); for every m < L (:func:`rope_core.limits.capacity.cos_sum_profile_of`): the lowest
    B_m = sum_i cos(m theta'_i), how many distances have B_m < 0, and the first such
    distance; B_0 = d/2 is the scale to read the dip against. passes = no negative B_m.
    Men et al.'s condition is on an expectation (their Theorem 1), so a shallow dip on a
    few distances is not a hard failure. Groups beyond capacity's limits (L * d/2 >
    2^26) are skipped.

    Those sums run over the rotated pairs. Theorem 1 treats every component of the head
    alike; a pass-through pair (partial rotary) has theta = 0 and adds cos 0 = 1 to every
    B_m, so over the whole head B_m(head) = B_m + (head_dim - rotary_dim)/2: whole-head
    B_0 = head_dim/2 and whole-head min B_m = min B_m + (head_dim - rotary_dim)/2.

    Returns:
        DataFrame: preset, group, layers, head dim, rotary dim, base, method, context L
        [tokens] (the reach), B_0, min B_m, negative distances, passes, first negative
        distance [tokens] (NaN: none below L), whole-head B_0, whole-head min B_m,
        whole-head passes.
    """
    from .compare import rotating_groups

    rows = []
    for name in (PRESETS if names is None else names):
        cfg = PRESETS[name]
        for group, g in rotating_groups(cfg):
            spec = g.spec
            L = spec.reach(cfg.max_context)
            if L > MAX_CONTEXT or L * (spec.rotary_dim // 2) > MAX_CONTEXT_WORK:
                continue
            theta, _ = spec.theta(cfg.max_context)  # (d/2,)
            p = cos_sum_profile_of(theta, L)
            neg = p["first_negative"]
            through = (spec.head_dim - spec.rotary_dim) // 2  # pass-through pairs, theta = 0
            rows.append({"preset": name, "group": group, "layers": len(g.layers),
                         "head dim": spec.head_dim,
                         "rotary dim": spec.rotary_dim, "base": spec.base,
                         "method": spec.method, "context L [tokens]": L, "B_0": p["B0"],
                         "min B_m": p["min"], "negative distances": p["negative"],
                         "passes": p["negative"] == 0,
                         "first negative distance [tokens]": math.nan if neg is None else neg,
                         "whole-head B_0": p["B0"] + through,
                         "whole-head min B_m": p["min"] + through,
                         "whole-head passes": p["negative"] == 0 or p["min"] + through >= 0})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- precision

def log_positions(max_position: int, points: int = MAX_PRECISION_POINTS) -> torch.Tensor:
    """Integer positions 1 ... max_position, log-spaced, repeats dropped.

    Returns:
        ``(P,)`` int64, P <= points, first 1, last max_position.
    """
    max_position = check_int(max_position, "max_position", 1, MAX_POSITION)
    points = check_int(points, "points", 2, MAX_PRECISION_POINTS)
    grid = torch.logspace(0.0, math.log10(max_position), points, dtype=torch.float64)
    grid = torch.unique(torch.round(grid)).to(torch.int64)
    grid[-1] = max_position
    return grid


def _dtypes(dtypes) -> tuple[str, ...]:
    dtypes = tuple(dtypes)
    if not dtypes:
        fail("dtypes", dtypes, "a non-empty list from {choices}", choices=", ".join(DTYPES))
    for d in dtypes:
        resolve_dtype(d, "dtypes")
        if not isinstance(d, str):
            fail("dtypes", d, "dtype names, one of {choices}", choices=", ".join(DTYPES))
    return tuple(dict.fromkeys(dtypes))


def spacing_table(max_position: int, dtypes=("float32", "float16", "bfloat16"),
                  points: int = MAX_PRECISION_POINTS) -> pd.DataFrame:
    """Grid spacing and held value of each dtype at log-spaced positions 1 ... max_position.

        spacing(m) = 2^(floor(log2 m) - p + 1) (p significand bits; inf where float16
        overflows, m >= 65520), held(m) = m rounded to the nearest representable value.

    Returns:
        DataFrame: dtype, position m [tokens], held position [tokens], spacing [tokens],
        position error [tokens] (|held - m|).
    """
    m = log_positions(max_position, points)
    blocks = []
    for d in _dtypes(dtypes):
        held = as_dtype_position(m, d)  # (P,)
        blocks.append({
            "dtype": d, "position m [tokens]": m.numpy(), "held position [tokens]": held.numpy(),
            "spacing [tokens]": grid_spacing(m, d).numpy(),
            "position error [tokens]": (held - m.to(torch.float64)).abs().numpy()})
    return _tidy(blocks)


def first_inexact_table(dtypes=tuple(DTYPES)) -> pd.DataFrame:
    """The first positive integer each dtype cannot hold (2^p + 1) and what it becomes."""
    rows = []
    for d in _dtypes(dtypes):
        first = first_inexact_position(d)
        held = as_dtype_position(first, d) if first <= MAX_POSITION else math.nan
        rows.append({"dtype": d, "first inexact position [tokens]": first,
                     "held as [tokens]": held})
    return pd.DataFrame(rows)


def error_table(dim: int, base: float, max_position: int,
                dtypes=("float32", "float16", "bfloat16"), recipes=RECIPES,
                points: int = MAX_PRECISION_POINTS) -> pd.DataFrame:
    """Largest error over pairs of the angle, cos and sin, per dtype and recipe.

    At log-spaced positions 1 ... max_position (:func:`log_positions`), for each
    dtype and recipe (see :func:`rope_core.limits.precision.angle_error`):
    max_i |a - m theta_i|, max_i |cos - cos(m theta_i)|, max_i |sin - sin(m theta_i)|.

    Returns:
        DataFrame: dim, base, dtype, recipe, position m [tokens], max angle error [rad],
        max cos error, max sin error.
    """
    dim, base = check_dim(dim), check_base(base)
    recipes = tuple(dict.fromkeys(recipes))
    if not recipes or any(r not in RECIPES for r in recipes):
        fail("recipes", recipes, "a non-empty list from {choices}", choices=", ".join(RECIPES))
    m = log_positions(max_position, points)
    combos = [(d, r) for d in _dtypes(dtypes) for r in recipes]
    errors = max_angle_errors(m, dim, base, combos)  # shares the float64 reference
    blocks = []
    for d in _dtypes(dtypes):
        for r in recipes:
            a, c, s = errors[d, r]  # 3 x (P,)
            blocks.append({
                "dim": dim, "base": base, "dtype": d, "recipe": r,
                "position m [tokens]": m.numpy(), "max angle error [rad]": a.numpy(),
                "max cos error": c.numpy(), "max sin error": s.numpy()})
    return _tidy(blocks)


def shift_grid(max_shift: int, points: int = 400) -> torch.Tensor:
    """Shifts 0 ... max_shift: every integer when fewer than ``points``, else log-spaced
    from 1 (with 0 first), repeats dropped. (S,) int64."""
    max_shift = check_int(max_shift, "max_shift", 1, MAX_POSITION)
    points = check_int(points, "points", 2, MAX_PRECISION_POINTS)
    if max_shift < points:
        return torch.arange(max_shift + 1)
    grid = torch.logspace(0.0, math.log10(max_shift), points - 1, dtype=torch.float64)
    grid = torch.unique(torch.round(grid)).to(torch.int64)
    grid[-1] = max_shift
    return torch.cat([torch.zeros(1, dtype=torch.int64), grid])


def relative_table(dim: int, base: float, m: int, n: int, max_shift: int, recipe: str,
                   dtypes=("float64", "float32", "float16", "bfloat16"),
                   points: int = 400) -> pd.DataFrame:
    """|score(m, n) - score(m + D, n + D)| per dtype (q = k = ones), D from 0 to max_shift.

    Exact RoPE depends on n - m only, so float64 keeps the difference at rounding
    level (~1e-12); low-precision recipes do not. See
    :func:`rope_core.limits.precision.relative_property_error`.

    Returns:
        DataFrame: dim, base, recipe, m [tokens], n [tokens], dtype, shift D [tokens],
        score difference.
    """
    dim, base = check_dim(dim), check_base(base)
    D = shift_grid(max_shift, points)
    dtypes = _dtypes(dtypes)
    errors = relative_property_errors(dim, base, dtypes, recipe, m, n, D)  # shares cos/sin
    blocks = []
    for d in dtypes:
        err = errors[d]  # (S,)
        blocks.append({
            "dim": dim, "base": base, "recipe": recipe, "m [tokens]": m, "n [tokens]": n,
            "dtype": d, "shift D [tokens]": D.numpy(), "score difference": err.numpy()})
    return _tidy(blocks)


def neox_rounding_steps() -> dict:
    """How float16 turns gpt-neox issue 1003's angle m theta_1 = 1044.27 into 1045: theta_1
    is rounded first, then the product.

        theta_1 = 10^4^(-2/32) = 10^(-1/4) = 0.562341...
        fl16(theta_1) = 0.5625 (spacing 2^-11 on [0.5, 1))
        m fl16(theta_1) = 1857 * 0.5625 = 1044.5625 (m = 1857 is exact in float16)
        fl16(1044.5625) = 1045 (spacing 1 on [1024, 2048))

    Returns:
        {"position", "theta", "theta float16", "product", "held", "exact angle", "error"}
        (the angles in rad; error = held - exact angle).
    """
    p = NEOX_1003
    th = float(plain_theta(p["dim"], p["base"])[p["pair"]])
    th16 = float(torch.tensor(th, dtype=torch.float64).to(torch.float16))
    product = p["position"] * th16  # exact in float64: 11 + 11 bits
    held = float(torch.tensor(product, dtype=torch.float64).to(torch.float16))
    exact = p["position"] * th
    return {"position": p["position"], "theta": th, "theta float16": th16,
            "product": product, "held": held, "exact angle": exact, "error": held - exact}


def neox_issue_table() -> pd.DataFrame:
    """EleutherAI/gpt-neox issue 1003's reported numbers beside the app's.

    The reproducer: seq_len 2048, dim 32, base 10^4, the cache emb = outer(t, inv_freq)
    built in float16 (recipe "product"). Reported: emb[1857, 1] = 1044.2678 in float32
    and 1045 in float16, and max |cos_half - cos_float| = 0.7819 over the table.
    App: m theta_1 in float64 and float32, fl16(fl16(m) fl16(theta_1)), and the
    largest cos error of recipe "product" in float16 over positions 0 ... 2047.

    Returns:
        DataFrame: quantity, reported, app, difference, agrees (to the reported digits).
    """
    p = NEOX_1003
    th = plain_theta(p["dim"], p["base"])  # (h,)
    m, i = p["position"], p["pair"]
    a32 = float(torch.tensor(float(m), dtype=torch.float32) * th[i].to(torch.float32))
    a16 = float(torch.tensor(float(m), dtype=torch.float16) * th[i].to(torch.float16))
    _, cos_err, _ = max_angle_error(torch.arange(p["seq_len"]), p["dim"], p["base"],
                                    p["dtype"], p["recipe"])
    # the quantities are CSV cells (English); N_ lets a page show them translated
    rows = [(N_("angle m*theta_1 at m = 1857, float32 [rad]"), p["angle_float32"], a32, 1e-4),
            (N_("angle m*theta_1 at m = 1857, float16 cache [rad]"), p["angle_float16"], a16,
             0.5),
            (N_("max |cos float16 - cos float32| over m < 2048, all pairs"),
             p["max_cos_error"], float(cos_err.max()), 1e-4)]
    return pd.DataFrame([{"quantity": q, "reported": rep, "app": app, "difference": app - rep,
                          "agrees": abs(app - rep) <= tol} for q, rep, app, tol in rows])
