"""Side-by-side tables of real models' RoPE, and of context-extension methods.

Everything the "Real models" and "Context extension" pages plot comes from
here, as tidy (long-form) pandas DataFrames with the model name in every row:

* :func:`models_table`: one row per model (its "card").
* :func:`spectrum_table`: per model and pair i, theta'_i, the plain theta_i =
  base^(-2i/d), their ratio, the wavelength 2 pi / theta'_i and the regime.
* :func:`decay_table`: per model and distance r, RoFormer's bound and the
  score of q = k = all ones, up to the model's maximum context.
* :func:`extension_variants`: one base model under every scaling method.
* :func:`softmax_table`: what an attention factor a does to a softmax.
* :func:`dynamic_base_table`: dynamic NTK's base against the current length.
* :func:`layer_table`: per model and layer, what it is (RoPE, NoPE, linear attention,
  ...), its attention span, base and reach.
* :func:`group_table`: per model and layer group (layers sharing one spec): the same,
  once per group, with the layers listed.
* :func:`extended_context`: how far a context-extension comparison runs.

Every analysis is per rotating layer group, over that group's reach: its sliding window
or attention chunk, else the model's maximum context (a Gemma 3 local layer never meets
a distance past 1,024 tokens, a Llama 4 Scout RoPE layer none past 8,192). Spectra are
taken at the model's maximum context (``seq_len = max_context``), the length at which
dynamic NTK and LongRoPE (long factors) are furthest from the plain spectrum. d is the
ROTARY dim throughout; partial rotary heads pass the other head_dim - d coordinates
through unrotated.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from numbers import Real

import numpy as np
import pandas as pd
import torch

from ..models.config import LayerSpec, RopeConfig
from ..models.scaling import (
    MAX_LENGTH,
    SCALINGS,
    comparison_params,
    effective_base,
    pair_regime,
    resolve_params,
)
from ..rotary.decay import _bound_into
from ..rotary.frequencies import theta as plain_theta
from ..support._checks import (
    check_choice,
    check_int,
    fail,
)
from ..support.frames import to_frame

MAX_MODELS = 8  # configs in one comparison (a page shows at most 4)
MAX_POINTS = 2000  # sampled distances or lengths per curve
AXES = ("linear", "log")
DEFAULT_LOGITS = (2.0, 1.0, 0.5, 0.0, -1.0)  # a fixed row of logits for the softmax example
MAX_LOGITS = 64


# --- configs as plain cache keys ------------------------------------------------------

_LAYER_FIELDS = tuple(f.name for f in dataclasses.fields(LayerSpec))


def config_key(cfg: RopeConfig) -> tuple:
    """A RopeConfig as a tuple of plain values (numbers, strings, tuples), its fields in
    order, each layer spec a tuple of its fields: a cache key that
    :func:`config_from_key` turns back into the same config."""
    if not isinstance(cfg, RopeConfig):
        fail("cfg", cfg, "a RopeConfig")
    values = []
    for f in dataclasses.fields(RopeConfig):
        value = getattr(cfg, f.name)
        if f.name == "layer_specs" and value is not None:
            value = tuple(tuple(getattr(s, n) for n in _LAYER_FIELDS) for s in value)
        values.append(value)
    return tuple(values)


def config_from_key(key: tuple) -> RopeConfig:
    """The RopeConfig of :func:`config_key` (validated again by RopeConfig)."""
    names = [f.name for f in dataclasses.fields(RopeConfig)]
    if not isinstance(key, tuple) or len(key) != len(names):
        fail("key", key, "a tuple of {n} RopeConfig fields (from config_key)", n=len(names))
    values = dict(zip(names, key))
    specs = values.get("layer_specs")
    if specs is not None:
        if not isinstance(specs, tuple) or not all(
                isinstance(s, tuple) and len(s) == len(_LAYER_FIELDS) for s in specs):
            fail("key", "layer_specs", "tuples of {n} LayerSpec fields", n=len(_LAYER_FIELDS))
        made: dict[tuple, LayerSpec] = {}  # equal layers share one (immutable) spec
        values["layer_specs"] = tuple(made[s] if s in made else made.setdefault(s, LayerSpec(*s))
                                      for s in specs)
    return RopeConfig(**values)


def _configs(configs) -> list[RopeConfig]:
    if isinstance(configs, RopeConfig):
        configs = [configs]
    configs = list(configs)
    if not 1 <= len(configs) <= MAX_MODELS or \
            not all(isinstance(c, RopeConfig) for c in configs):
        fail("configs", configs, "1 to {n} RopeConfig objects", n=MAX_MODELS)
    return configs


def label_groups(labels) -> list[tuple[object, np.ndarray]]:
    """The row positions of each distinct label of a table column (a model, a method), in
    the order the labels first appear: the groups pandas' ``groupby(label, sort=False)``
    iterates over, as numpy index arrays for the columns' arrays (no DataFrame per group).
    """
    if isinstance(labels, pd.Series):  # factorized as stored (no Python object per row)
        codes, uniques = pd.factorize(labels)  # order of appearance
    else:
        codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
    return [(label, np.flatnonzero(codes == k)) for k, label in enumerate(uniques.tolist())]


# --- per-model summaries -------------------------------------------------------------

def scaling_factor(cfg: RopeConfig) -> float:
    """s of the config's method: ``factor``, else max_position_embeddings / L, else 1."""
    p = resolve_params(cfg.method, cfg.rotary_dim, cfg.params_dict)
    if p.get("factor") is not None:
        return float(p["factor"])
    if p.get("max_position_embeddings") is not None:
        return p["max_position_embeddings"] / p["original_max_position_embeddings"]
    return 1.0


def describe_params(cfg: RopeConfig) -> str:
    """The method's parameters as one line of a CSV cell; a per-pair factor list is
    summarised as 'n values from min to max'. Numbers as a program reads them: whole
    numbers as their digits ("8192", no thousands separator), others to 6 significant
    digits."""
    parts = []
    for name, value in cfg.params:
        if isinstance(value, tuple):
            parts.append(f"{name}: {len(value)} values from {min(value):.4g} to {max(value):.4g}")
        elif isinstance(value, bool):
            parts.append(f"{name}: {str(value).lower()}")
        elif isinstance(value, Real) and float(value).is_integer():
            parts.append(f"{name}: {int(value)}")
        elif isinstance(value, Real):
            parts.append(f"{name}: {value:.6g}")
        else:
            parts.append(f"{name}: {value}")
    return "; ".join(parts) or "none"


def models_table(configs) -> pd.DataFrame:
    """One row per model: what its card shows.

    The main spectrum (its full-attention RoPE layers) at the maximum context
    n = max_context: longest wavelength 2 pi / min_i theta'_i(n) [tokens] and attention
    factor a(n); a multiplies cos and sin of both q and k, so the rotary part of every
    logit is multiplied by a^2 ("logit multiplier"). Layers: how many, how many rotate
    (RoPE), how many attend without rotating (NoPE), how many mix tokens otherwise
    (linear attention, state-space, convolution: "other layers"), and how far the
    shortest-reaching RoPE layers see ("RoPE reach [tokens]": a window or chunk, else the
    max context; NaN without layers).
    """
    rows = []
    for cfg in _configs(configs):
        theta, a = cfg.theta(cfg.max_context)  # (d/2,)
        kinds = [] if cfg.layer_specs is None else \
            [k for g in cfg.groups() for k in [g.spec.kind] * len(g.layers)]
        reaches = [g.spec.reach(cfg.max_context) for g in cfg.groups() if g.spec.rotates]
        rows.append({
            "model": cfg.name, "head dim": cfg.head_dim, "rotary dims": cfg.rotary_dim,
            "base": cfg.base, "layout": cfg.layout, "method": cfg.method,
            "parameters": describe_params(cfg),
            "original context [tokens]": cfg.original_context,
            # known for a few presets (their source in presets.SOURCES), blank otherwise
            "training context from source [tokens]": (
                cfg.training_context if cfg.training_context is not None else math.nan),
            "max context [tokens]": cfg.max_context,
            "scaling factor": scaling_factor(cfg),
            "longest wavelength [tokens]": float(2 * math.pi / theta.min()),
            "attention factor": a, "logit multiplier": a * a,
            "softmax scale multiplier": cfg.softmax_scale,
            "layers": cfg.layers if cfg.layers is not None else math.nan,
            "RoPE layers": kinds.count("rope") if kinds else math.nan,
            "NoPE layers": kinds.count("nope") if kinds else math.nan,
            "other layers": (len(kinds) - kinds.count("rope") - kinds.count("nope")
                             if kinds else math.nan),
            "RoPE reach [tokens]": min(reaches) if kinds and reaches else math.nan,
        })
    return pd.DataFrame(rows)


# --- layer groups ---------------------------------------------------------------------

def group_name(spec: LayerSpec) -> str:
    """A group's layers in words (English, ASCII: a CSV cell): "RoPE, sliding window 1024",
    "RoPE, full attention", "NoPE, full attention", "linear_attention", "RoPE, compressed
    every 4 + window 128" (DeepSeek-V4: one key per 4 tokens beside a raw window)."""
    if spec.mixer != "attention":
        return spec.mixer
    if spec.attention == "compressed":
        span = f"compressed every {spec.compress}" + (
            f" + window {spec.window}" if spec.window is not None else "")
    else:
        span = {"full": "full attention", "sliding": f"sliding window {spec.window}",
                "chunked": f"chunks of {spec.window}"}[spec.attention]
    return f"{'RoPE' if spec.rotates else 'NoPE'}, {span}"


def rotating_groups(cfg: RopeConfig) -> list[tuple[str, object]]:
    """(name, LayerGroup) of each group of layers that rotate, in layer order; names
    unique within the model (base added where two groups share a span). A config
    without layers: one group of the main spectrum, "all layers"."""
    groups = [g for g in cfg.groups() if g.spec.rotates]
    if cfg.layer_specs is None:
        return [("all layers", groups[0])]
    names = [group_name(g.spec) for g in groups]
    out = []
    for name, g in zip(names, groups):
        if names.count(name) > 1:
            name = f"{name}, base {g.spec.base:g}"
        out.append((name, g))
    return out


def series_name(cfg: RopeConfig, group: str) -> str:
    """The label of one model's group in a table: the model alone when it has one rotating
    group, else "model | group"."""
    return cfg.name if len(rotating_groups(cfg)) == 1 else f"{cfg.name} | {group}"


def group_table(configs) -> pd.DataFrame:
    """One row per model and layer group (layers sharing one spec, :meth:`RopeConfig.groups`).

    Columns: model, group (:func:`group_name`), kind ("rope", "nope", or the mixer),
    layers (how many), layer list (their indices, "0-4, 6-10"), attention, window
    [tokens] (NaN without; a compressed layer's raw window), compressed every [tokens]
    (tokens per compressed key, NaN unless compressed), reach [tokens] (tokens a query
    reaches: the window or chunk, else the max context), head dim, rotary dims, rotary
    start, base, method, layout,
    longest wavelength [tokens] (2 pi / min_i theta'_i at the max context; NaN when the
    group does not rotate), pairs, pairs turning within reach (#{i : 2 pi / theta'_i <=
    reach}), attention factor, query scale (rule or ""), softmax scale multiplier.
    Models whose config gives no layers contribute one group, "all layers".
    """
    rows = []
    for cfg in _configs(configs):
        for g in cfg.groups():
            spec = g.spec
            reach = spec.reach(cfg.max_context)
            waves, a = [], math.nan
            if spec.rotates:
                theta, a = spec.theta(cfg.max_context)  # (d/2,)
                waves = (2 * math.pi / theta).tolist()
            rows.append({
                "model": cfg.name,
                "group": group_name(spec) if cfg.layer_specs is not None else "all layers",
                "kind": spec.kind, "layers": len(g.layers), "layer list": _runs(g.layers),
                "attention": spec.attention or "", "window [tokens]":
                    spec.window if spec.window is not None else math.nan,
                "compressed every [tokens]":
                    spec.compress if spec.compress is not None else math.nan,
                "reach [tokens]": reach, "head dim": spec.head_dim,
                "rotary dims": spec.rotary_dim if spec.rotates else 0,
                "rotary start": spec.rotary_start, "base": spec.base if spec.rotates else math.nan,
                "method": spec.method if spec.rotates else "", "layout": spec.layout,
                "longest wavelength [tokens]": max(waves) if waves else math.nan,
                "pairs": spec.rotary_dim // 2 if spec.rotates else 0,
                "pairs turning within reach": sum(w <= reach for w in waves),
                "attention factor": a,
                "query scale": spec.query_scale[0] if spec.query_scale else "",
                "softmax scale multiplier": spec.softmax_scale,
            })
    return pd.DataFrame(rows)


def _runs(layers) -> str:
    """Layer indices as runs: (0, 1, 2, 4) -> "0-2, 4"."""
    out, start, prev = [], None, None
    for i in list(layers) + [None]:
        if start is not None and (i is None or i != prev + 1):
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = None
        if i is not None and start is None:
            start = i
        prev = i
    return ", ".join(out)


# --- layers ---------------------------------------------------------------------------

def layer_table(configs) -> pd.DataFrame:
    """Per model and layer: what the layer is and how far it reaches.

    Columns: model, layer (0-based), kind ("rope", "nope", "linear_attention", "mamba",
    "conv", ...), attention ("full", "sliding", "chunked", "compressed", "" for other
    mixers), window [tokens] (NaN without; a compressed layer's raw window), compressed
    every [tokens] (NaN unless compressed), group (:func:`group_name`), base (NaN when
    the layer does not rotate), method, reach [tokens] (tokens a query sees, itself
    included: the window or chunk, at most the max context; else the max context: a
    sliding window's farthest key is reach - 1 back, a chunked layer's query sees back
    to its chunk's start, a compressed layer reaches the whole context through its
    compressed keys), longest wavelength [tokens] 2 pi / min_i theta'_i(max context) of
    the layer's spectrum (NaN when it does not rotate), pairs turning within reach =
    #{i : 2 pi / theta'_i <= reach}, pairs (rotary_dim/2; 0 when it does not rotate).
    Models whose config gives no layers contribute no rows.
    """
    rows = []
    for cfg in _configs(configs):
        if cfg.layer_specs is None:
            continue
        for g in cfg.groups():
            spec = g.spec
            waves = []
            if spec.rotates:
                theta, _ = spec.theta(cfg.max_context)  # (d/2,)
                waves = (2 * math.pi / theta).tolist()  # wavelengths [tokens]
            reach = spec.reach(cfg.max_context)
            row = {
                "model": cfg.name, "kind": spec.kind, "attention": spec.attention or "",
                "window [tokens]": spec.window if spec.window is not None else math.nan,
                "compressed every [tokens]":
                    spec.compress if spec.compress is not None else math.nan,
                "group": group_name(spec),
                "base": spec.base if spec.rotates else math.nan,
                "method": spec.method if spec.rotates else "none", "reach [tokens]": reach,
                "longest wavelength [tokens]": max(waves) if waves else math.nan,
                "pairs turning within reach": sum(w <= reach for w in waves),
                "pairs": spec.rotary_dim // 2 if spec.rotates else 0,
            }
            rows += [dict(row, layer=layer) for layer in g.layers]
    columns = ["model", "layer", "kind", "attention", "window [tokens]",
               "compressed every [tokens]", "group", "base",
               "method", "reach [tokens]", "longest wavelength [tokens]",
               "pairs turning within reach", "pairs"]
    table = pd.DataFrame(rows, columns=columns)
    if len(table):
        table = table.sort_values(["model", "layer"], kind="stable",
                                  key=lambda c: c.map({cfg.name: i for i, cfg in
                                                       enumerate(_configs(configs))})
                                  if c.name == "model" else c).reset_index(drop=True)
    return table


def _frame(columns: dict[str, list], text: tuple[str, ...]) -> pd.DataFrame:
    """One DataFrame from per-model pieces: the ``text`` columns as lists of labels,
    the others as lists of numpy arrays, concatenated (the frame that concatenating one
    frame per model would give, built once)."""
    return pd.DataFrame({name: v if name in text else
                         (np.concatenate(v) if v else np.zeros(0))  # no rotating layer
                         for name, v in columns.items()})


# --- spectra --------------------------------------------------------------------------

def spectrum_table(configs) -> pd.DataFrame:
    """Per model, rotating layer group and pair, the spectrum in use at the maximum context
    n = max_context.

    Columns: model, group (:func:`rotating_groups`), series (:func:`series_name`), method,
    pair i (0 ... d/2 - 1), theta_i plain = base^(-2i/theta_dim), theta_i = theta'_i(n)
    [rad/token], ratio = theta'_i / theta_i, wavelength 2 pi / theta'_i and plain
    wavelength 2 pi / theta_i [tokens], regime ("kept", "interpolated" = divided by s,
    "blended", from :func:`pair_regime`), reach [tokens] (the group's window or chunk,
    else n). Returns sum over models and groups of d/2 rows.
    """
    return _frame(_spectrum_columns(configs), SPECTRUM_TEXT + GROUP_TEXT)


def _groups_of(cfg: RopeConfig, per_group: bool):
    """(group name, series, spec) of each rotating group (per_group), or of the main
    spectrum alone ("main", the model)."""
    if per_group:
        return [(name, series_name(cfg, name), g.spec) for name, g in rotating_groups(cfg)]
    return [("main", cfg.name, cfg.main_spec())]


def _spectrum_columns(configs, per_group: bool = True) -> dict[str, list]:
    """:func:`spectrum_table`'s columns, in pieces per model and group (see :func:`_frame`);
    without ``per_group`` the main spectrum only and no group columns (the context
    extension's variants)."""
    names = (("model",) + (GROUP_TEXT if per_group else ()) +
             ("method", "pair", "theta plain [rad/token]", "theta [rad/token]",
              "ratio theta/theta plain", "wavelength plain [tokens]", "wavelength [tokens]",
              "regime") + (("reach [tokens]",) if per_group else ()))
    columns: dict[str, list] = {name: [] for name in names}
    for cfg in _configs(configs):
        n = cfg.max_context
        for group, series, spec in _groups_of(cfg, per_group):
            scaled, _ = spec.theta(n)  # (d/2,)
            pairs = scaled.numel()
            plain = plain_theta(spec.theta_dim, spec.base)[:pairs]  # (d/2,)
            regime = pair_regime(spec.theta_dim, spec.base, spec.method, seq_len=n,
                                 **spec.params_dict)[:pairs]
            columns["model"] += [cfg.name] * pairs
            if per_group:
                columns["group"] += [group] * pairs
                columns["series"] += [series] * pairs
                columns["reach [tokens]"].append(np.full(pairs, spec.reach(n)))
            columns["method"] += [spec.method] * pairs
            columns["regime"] += regime
            for name, values in (("pair", torch.arange(pairs)),
                                 ("theta plain [rad/token]", plain),
                                 ("theta [rad/token]", scaled),
                                 ("ratio theta/theta plain", scaled / plain),
                                 ("wavelength plain [tokens]", 2 * math.pi / plain),
                                 ("wavelength [tokens]", 2 * math.pi / scaled)):
                columns[name].append(values.numpy())
    return columns


GROUP_TEXT = ("group", "series")  # the per-group tables' text columns
SPECTRUM_TEXT = ("model", "method", "regime")  # the spectra table's text columns


# --- distances, decay -----------------------------------------------------------------

EXTENSION_PARTS = ("spectra", "decay", "attention", "softmax", "dynamic")
EXTENSION_POINTS = 500  # distances per method on the Context extension page


def distance_samples(max_distance: int, axis: str = "linear",
                     points: int = MAX_POINTS) -> torch.Tensor:
    """Integer distances [tokens] up to ``max_distance`` (included), at most ``points``.

    linear: every integer 0 ... max when that is at most ``points`` values, else
    ``points`` evenly spaced values rounded to integers; log: ``points`` log-spaced
    values from 1 to max, rounded (repeats dropped, so fewer at short ranges).

    Returns:
        ``(R,)`` float64 tensor, increasing, first 0 (linear) or 1 (log), last max_distance.
    """
    max_distance = check_int(max_distance, "max_distance", 1, 100 * MAX_LENGTH)
    axis = check_choice(axis, "axis", AXES)
    points = check_int(points, "points", 2, 100_000)
    if axis == "log":
        grid = np.geomspace(1, max_distance, points)
    elif max_distance < points:
        grid = np.arange(max_distance + 1)
    else:
        grid = np.linspace(0, max_distance, points)
    grid = np.unique(np.round(grid))
    grid[-1] = max_distance
    return torch.from_numpy(grid.astype(np.float64))


def _bound_and_ones_score(r: torch.Tensor, theta: torch.Tensor) -> tuple[torch.Tensor,
                                                                          torch.Tensor]:
    """``(relative_upper_bound(r, theta), score_vs_distance(ones, ones, r, theta))`` in
    one pass: the same operations on the same blocks as rope_core.rotary.decay (so the
    same float64 values), each cos and sin computed once. With q = k = all ones every
    pair weighs cos by 1·1 + 1·1 = 2 and sin by 1·1 − 1·1 = 0 in either layout, so the
    score is that weight times cos (the sin term adds zeros)."""
    th = theta.to(torch.float64)  # (d/2,)
    along = torch.full((th.numel(),), 2.0, dtype=torch.float64)  # (d/2,): weight of cos
    bound = torch.empty(r.numel(), dtype=torch.float64)  # (R,)
    score = torch.empty(r.numel(), dtype=torch.float64)  # (R,)

    def ones_score(sl: slice, cos: torch.Tensor) -> None:  # cos: (c, d/2)
        score[sl] = along @ cos.T  # (c,)

    _bound_into(bound, r, th, ones_score)
    return bound, score


def decay_table(configs, axis: str = "linear", points: int = MAX_POINTS) -> pd.DataFrame:
    """Per model and rotating layer group, RoFormer's bound and the q = k = all-ones score
    against distance r, for r up to the group's reach (its window or chunk, else the
    model's maximum context n = max_context; :func:`distance_samples`).

    With theta' = theta'(n) and attention factor a = a(n) of the group:

    * upper bound(r) = (1/(d/2)) sum_{j=1}^{d/2} |sum_{k<j} e^{i r theta'_k}| (relative
      bound, no a; rope_core.rotary.decay.relative_upper_bound), and "upper bound / bound(0)"
      with bound(0) = (d/2 + 1)/2;
    * score(r) = a^2 sum_i 2 cos(r theta'_i) + (head_dim - d): cos and sin carry a for
      q and for k, the head_dim - d pass-through coordinates add 1 each, unrotated;
      "score q=k=1 / head dim" is that divided by |q||k| = head_dim (1 at r = 0 when
      a = 1)
      (rope_core.rotary.decay.score_vs_distance).

    Groups whose spectra and distances coincide share one evaluation.

    Returns:
        rows (model, group, series, method, distance [tokens], upper bound, upper bound /
        bound(0), score q=k=1, score q=k=1 / head dim).
    """
    return _frame(_decay_columns(configs, axis, points), ("model",) + GROUP_TEXT + ("method",))


def _decay_columns(configs, axis: str, points: int, per_group: bool = True,
                   reach: int | None = None) -> dict[str, list]:
    """:func:`decay_table`'s columns, in pieces per model and group (see :func:`_frame`);
    without ``per_group`` the main spectrum only, up to the max context (or ``reach``),
    and no group columns (the context extension's variants)."""
    columns: dict[str, list] = {name: [] for name in (
        ("model",) + (GROUP_TEXT if per_group else ()) +
        ("method", "distance [tokens]", "upper bound", "upper bound / bound(0)",
         "score q=k=1", "score q=k=1 / head dim"))}
    done: dict[tuple, tuple] = {}  # (spectrum, distances) -> (bound, rotary score)
    for cfg in _configs(configs):
        for group, series, spec in _groups_of(cfg, per_group):
            far = spec.reach(cfg.max_context) if per_group else (reach or cfg.max_context)
            r = distance_samples(far, axis, points)  # (R,)
            theta, a = spec.theta(cfg.max_context)  # (d/2,)
            d = spec.rotary_dim
            key = (theta.numpy().tobytes(), r.numpy().tobytes())
            if key not in done:
                done[key] = _bound_and_ones_score(r, theta)
            bound, rotary = done[key]  # (R,) each
            score = a * a * rotary + (spec.head_dim - d)  # (R,)
            columns["model"] += [cfg.name] * r.numel()
            if per_group:
                columns["group"] += [group] * r.numel()
                columns["series"] += [series] * r.numel()
            columns["method"] += [spec.method] * r.numel()
            for name, values in (("distance [tokens]", r), ("upper bound", bound),
                                 ("upper bound / bound(0)", bound / ((d / 2 + 1) / 2)),
                                 ("score q=k=1", score),
                                 ("score q=k=1 / head dim", score / spec.head_dim)):
                columns[name].append(values.numpy())
    return columns


# --- one model under every method -----------------------------------------------------

def extended_context(cfg: RopeConfig, factor: float) -> int:
    """How far a context-extension comparison of ``cfg`` by s = ``factor`` runs, in tokens:
    n = s L, the one length where every method is evaluated, the length each method's
    factor s aims at (static NTK and YaRN divide their slowest pair by s, dynamic NTK
    with transformers' factor 1 reaches alpha = n / L = s there).

    It may exceed the context the model is configured for: Gemma 3 (s = 8, L = 32,768)
    gives n = 262,144, configured for 131,072; Llama 3.2 1B (s = 32, L = 8,192) likewise.
    """
    if not isinstance(cfg, RopeConfig):
        fail("cfg", cfg, "a RopeConfig")
    if isinstance(factor, bool) or not isinstance(factor, Real) or not math.isfinite(factor):
        fail("factor", factor, "a finite number from 1 to 1000")
    return int(round(factor * cfg.original_context))


def extension_variants(cfg: RopeConfig, factor: float,
                       methods: Sequence[str] | None = None,
                       dynamic_factor: float = 1.0) -> dict[str, RopeConfig]:
    """The base model ``cfg`` extended from L = cfg.original_context to s L by each method.

    Each variant keeps head and rotary dims, base and layout, has max_context =
    :func:`extended_context` (n = s L) and the method's parameters from
    :func:`rope_core.models.scaling.comparison_params`: ``factor`` = s and
    ``original_max_position_embeddings`` = L where the method takes them, Hugging Face
    defaults otherwise, and dynamic NTK with transformers' factor f = ``dynamic_factor``
    (default 1: alpha = n / L, so alpha = s at n = s L, YaRN's definition; f = s would
    give alpha = s^2 - s + 1). The model's own method keeps all its own parameters
    (beta_fast, mscale, low_freq_factor, ...).
    LongRoPE's per-pair factors come from a search for each model, so ``longrope``
    is included only when cfg's own method is longrope.

    Args:
        factor: s, 1 ... 1000, with s L <= 10^7 tokens.
        methods: keys of SCALINGS (default: all), in the order wanted.
        dynamic_factor: f, 1 ... 1000.
    Returns:
        {method: RopeConfig}, for the methods that apply.
    """
    if not isinstance(cfg, RopeConfig):
        fail("cfg", cfg, "a RopeConfig")
    if isinstance(factor, bool) or not isinstance(factor, Real) or \
            not math.isfinite(factor) or not 1 <= factor <= 1000:
        fail("factor", factor, "a finite number from 1 to 1000")
    L = cfg.original_context
    extended = extended_context(cfg, factor)
    if extended > MAX_LENGTH:
        fail("factor", factor, "at most {length} / L = {ratio} for L = {context}",
             length=MAX_LENGTH, ratio=f"{MAX_LENGTH / L:g}", context=L)
    methods = tuple(SCALINGS) if methods is None else tuple(methods)
    for m in methods:
        check_choice(m, "methods", tuple(SCALINGS))
    out = {}
    for m in methods:
        if m == cfg.method:
            params = cfg.params_dict
        elif m == "longrope":
            continue
        else:
            params = comparison_params(m, float(factor), L, dynamic_factor)
        # the method replaces the main spectrum's, so every layer that uses it and no
        # other (Gemma 3's local layers keep their plain base 10,000)
        out[m] = dataclasses.replace(cfg, method=m, params=params, max_context=extended,
                                     mrope_section=None)
    return out


def softmax_table(factors: dict, logits: Sequence[float] = DEFAULT_LOGITS) -> pd.DataFrame:
    """Softmax of a fixed row of logits z, plain and with the attention factor a.

    a multiplies cos and sin for q and for k, so every logit is multiplied by a^2:
    w_j = exp(z_j) / sum_k exp(z_k), w'_j = exp(a^2 z_j) / sum_k exp(a^2 z_k)
    (a softmax at temperature 1/a^2: sharper when a > 1).

    Args:
        factors: {label: a}, at most 8 labels, each a in (0, 100].
        logits: 1 to 64 finite numbers with |z| <= 100.
    Returns:
        rows (method, attention factor, logit multiplier, key, logit, weight,
        weight with factor), len(factors) * len(logits) rows.
    """
    if not isinstance(factors, dict) or not 1 <= len(factors) <= MAX_MODELS:
        fail("factors", factors, "a dict of 1 to {n} labels to attention factors",
             n=MAX_MODELS)
    z = list(logits) if not isinstance(logits, str) else None
    if z is None or not 1 <= len(z) <= MAX_LOGITS or any(
            isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v)
            or abs(v) > 100 for v in z):
        fail("logits", logits, "1 to {n} finite numbers with absolute value <= 100",
             n=MAX_LOGITS)
    zt = torch.tensor(z, dtype=torch.float64)  # (K,)
    plain = torch.softmax(zt, dim=0)  # (K,)
    blocks = []
    for label, a in factors.items():
        if isinstance(a, bool) or not isinstance(a, Real) or not 0 < a <= 100:
            fail(f"factors[{label!r}]", a, "a number greater than 0 and at most 100")
        blocks.append(to_frame({
            "method": str(label), "attention factor": float(a), "logit multiplier": a * a,
            "key": torch.arange(len(z)), "logit": zt, "weight": plain,
            "weight with factor": torch.softmax(a * a * zt, dim=0)}))
    return pd.concat(blocks, ignore_index=True)


def dynamic_base_table(cfg: RopeConfig, factor: float, axis: str = "linear",
                       points: int = MAX_POINTS, dynamic_factor: float = 1.0) -> pd.DataFrame:
    """Dynamic NTK at every current length n from 1 to s L (sampled; L always included).

    With transformers' factor f (``dynamic_factor``; the model's own when cfg's method
    is dynamic): alpha(n) = max(1, f n / L - (f - 1)), effective base(n) = base
    alpha^(d/(d-2)) (base for d = 2), and the longest wavelength 2 pi
    base'(n)^((d-2)/d) [tokens] of its slowest pair.

    Returns:
        rows (model, L [tokens], s, dynamic factor f, sequence length [tokens], alpha,
        effective base, longest wavelength [tokens]).
    """
    variants = extension_variants(cfg, factor, ("dynamic",), dynamic_factor)
    v = variants["dynamic"]
    p = resolve_params("dynamic", v.rotary_dim, v.params_dict)
    f, L = p["factor"], p["original_max_position_embeddings"]
    n = distance_samples(v.max_context, axis, points)  # (N,)
    n = torch.unique(torch.cat([n.clamp(min=1), torch.tensor([float(L)])]))  # (N',)
    eff = effective_base(v.rotary_dim, v.base, f, L, [int(x) for x in n.tolist()])  # (N',)
    d = v.rotary_dim
    longest = 2 * math.pi * eff ** ((d - 2) / d) if d > 2 else torch.full_like(eff, 2 * math.pi)
    alpha = (f * n / L - (f - 1)).clamp(min=1.0)  # (N',)
    return to_frame({"model": cfg.name, "L [tokens]": L, "s": float(factor),
                     "dynamic factor f": f, "sequence length [tokens]": n, "alpha": alpha,
                     "effective base": eff, "longest wavelength [tokens]": longest})


def _lead(df: pd.DataFrame, cfg: RopeConfig, L: int, s: float) -> pd.DataFrame:
    """``df`` with leading setting columns model, L [tokens], s (model replaced)."""
    n = len(df)
    data = {"model": pd.array([cfg.name] * n, dtype="str"),
            "L [tokens]": np.full(n, L), "s": np.full(n, float(s))}
    data.update({c: df[c].array for c in df.columns if c not in data})
    return pd.DataFrame(data)


def _leading(columns: dict[str, list], cfg: RopeConfig, L: int, s: float) -> dict[str, list]:
    """Per-model column pieces (:func:`_frame`) with the leading setting columns of
    :func:`_lead` (model, L [tokens], s) in front, model replaced."""
    n = sum(len(piece) for piece in columns["distance [tokens]" if "distance [tokens]" in
                                           columns else "pair"])
    lead = {"model": [cfg.name] * n, "L [tokens]": [np.full(n, L)], "s": [np.full(n, float(s))]}
    return {**lead, **{c: v for c, v in columns.items() if c not in lead}}


def extension_tables(cfg: RopeConfig, factor: float, axis: str = "linear",
                     logits: Sequence[float] = DEFAULT_LOGITS,
                     dynamic_factor: float = 1.0,
                     parts: Sequence[str] = EXTENSION_PARTS) -> dict[str, pd.DataFrame]:
    """Every table of the context-extension comparison of ``cfg`` extended by s = factor
    (those named in ``parts``: a page computes the axis-free ones once for every axis).

    Keys: "spectra" (:func:`spectrum_table` of every :func:`extension_variants`, at
    n = s L), "decay" (:func:`decay_table`, r up to s L), "attention" (one row per
    method: attention factor a(s L), logit multiplier a^2, longest wavelength),
    "softmax" (:func:`softmax_table` for each distinct attention factor, methods
    sharing one are named together), "dynamic" (:func:`dynamic_base_table`). Every
    table leads with the settings: model, L [tokens], s. Dynamic NTK is compared with
    transformers' factor f = ``dynamic_factor`` (default 1, alpha = s at s L; see
    :func:`extension_variants`).
    """
    if isinstance(parts, str) or not set(parts) <= set(EXTENSION_PARTS) or not parts:
        fail("parts", parts, "some of {names}", names=", ".join(EXTENSION_PARTS))
    variants = extension_variants(cfg, factor, dynamic_factor=dynamic_factor)
    configs = list(variants.values())
    L = cfg.original_context
    tables: dict[str, pd.DataFrame] = {}
    if "spectra" in parts:
        columns = _spectrum_columns(configs, per_group=False)
        tables["spectra"] = _frame(_leading(columns, cfg, L, factor), SPECTRUM_TEXT)
    if "decay" in parts:
        # every method's curves on one chart: 500 distances each keeps the page's first
        # open under 300 KB (the ripples of fast pairs are finer than either grid anyway)
        columns = _decay_columns(configs, axis, EXTENSION_POINTS, per_group=False)
        tables["decay"] = _frame(_leading(columns, cfg, L, factor), ("model", "method"))
    if {"attention", "softmax"} & set(parts):
        models = models_table(configs)
        attention = models[["method", "attention factor", "logit multiplier",
                            "longest wavelength [tokens]"]]
        if "attention" in parts:
            tables["attention"] = attention
        if "softmax" in parts:
            by_factor: dict[float, list[str]] = {}
            for method, a in zip(attention["method"], attention["attention factor"]):
                by_factor.setdefault(float(a), []).append(method)
            tables["softmax"] = softmax_table(
                {" = ".join(ms): a for a, ms in by_factor.items()}, logits)
    if "dynamic" in parts:
        tables["dynamic"] = dynamic_base_table(cfg, factor, axis, dynamic_factor=dynamic_factor)
    led = ("spectra", "decay")  # built with their leading columns
    return {k: tables[k] if k in led else _lead(tables[k], cfg, L, factor)
            for k in EXTENSION_PARTS if k in tables}


def regime_runs(regimes: Sequence[str]) -> list[tuple[str, int, int]]:
    """Consecutive runs of equal labels: ("kept", "kept", "blended") ->
    [("kept", 0, 1), ("blended", 2, 2)], each (label, first pair, last pair)."""
    if isinstance(regimes, str):
        fail("regimes", regimes, "a sequence of labels, one per pair")
    runs: list[tuple[str, int, int]] = []
    for i, label in enumerate(regimes):
        if runs and runs[-1][0] == label:
            runs[-1] = (label, runs[-1][1], i)
        else:
            runs.append((str(label), i, i))
    return runs
