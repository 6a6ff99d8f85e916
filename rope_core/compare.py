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
* :func:`layer_table`: per model and layer, RoPE or NoPE, attention span, base and reach.
* :func:`nope_query_scale`: Llama 4's log-position temperature of its NoPE layers.
* :func:`extended_context`: how far a context-extension comparison runs.

Spectra are taken at the model's maximum context (``seq_len = max_context``),
the length at which dynamic NTK and LongRoPE (long factors) are furthest from
the plain spectrum. d is the ROTARY dim throughout; partial rotary heads pass
the other head_dim - d coordinates through unrotated.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from numbers import Real

import numpy as np
import pandas as pd
import torch

from ._checks import (
    as_integer_positions,
    check_choice,
    check_int,
    check_positive_float,
    fail,
)
from .config import RopeConfig
from .decay import _chunks as _decay_chunks
from .frequencies import theta as plain_theta
from .scaling import (
    MAX_LENGTH,
    MAX_SEQ_LEN,
    SCALINGS,
    comparison_params,
    effective_base,
    pair_regime,
    resolve_params,
)
from .tables import to_frame

MAX_MODELS = 8  # configs in one comparison (a page shows at most 4)
MAX_POINTS = 2000  # sampled distances or lengths per curve
AXES = ("linear", "log")
DEFAULT_LOGITS = (2.0, 1.0, 0.5, 0.0, -1.0)  # a fixed row of logits for the softmax example
MAX_LOGITS = 64


# --- configs as plain cache keys ------------------------------------------------------

def config_key(cfg: RopeConfig) -> tuple:
    """A RopeConfig as a tuple of plain values (numbers, strings, tuples), its fields in
    order: a cache key that :func:`config_from_key` turns back into the same config."""
    if not isinstance(cfg, RopeConfig):
        fail("cfg", cfg, "a RopeConfig")
    return tuple(getattr(cfg, f.name) for f in dataclasses.fields(RopeConfig))


def config_from_key(key: tuple) -> RopeConfig:
    """The RopeConfig of :func:`config_key` (validated again by RopeConfig)."""
    n = len(dataclasses.fields(RopeConfig))
    if not isinstance(key, tuple) or len(key) != n:
        fail("key", key, "a tuple of {n} RopeConfig fields (from config_key)", n=n)
    return RopeConfig(*key)


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
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object))  # order of appearance
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
    """The method's parameters as one line; a per-pair factor list is summarised as
    'n values from min to max'."""
    parts = []
    for name, value in cfg.params:
        if isinstance(value, tuple):
            parts.append(f"{name}: {len(value)} values from {min(value):.4g} to {max(value):.4g}")
        elif isinstance(value, bool):
            parts.append(f"{name}: {str(value).lower()}")
        elif isinstance(value, Real):
            parts.append(f"{name}: {value:,.6g}")
        else:
            parts.append(f"{name}: {value}")
    return "; ".join(parts) or "none"


def models_table(configs) -> pd.DataFrame:
    """One row per model: what its card shows.

    At the maximum context n = max_context: longest wavelength 2 pi / min_i theta'_i(n)
    [tokens] and attention factor a(n); a multiplies cos and sin of both q and k, so the
    rotary part of every logit is multiplied by a^2 ("logit multiplier").
    """
    rows = []
    for cfg in _configs(configs):
        theta, a = cfg.theta(cfg.max_context)  # (d/2,)
        rows.append({
            "model": cfg.name, "head_dim": cfg.head_dim, "rotary_dim": cfg.rotary_dim,
            "base": cfg.base, "layout": cfg.layout, "method": cfg.method,
            "parameters": describe_params(cfg),
            "local_base": cfg.local_base if cfg.local_base is not None else math.nan,
            "original context [tokens]": cfg.original_context,
            "training context [tokens]": (cfg.training_context
                                          if cfg.training_context is not None else math.nan),
            "max context [tokens]": cfg.max_context,
            "scaling factor": scaling_factor(cfg),
            "longest wavelength [tokens]": float(2 * math.pi / theta.min()),
            "attention factor": a, "logit multiplier": a * a,
            "softmax scale multiplier": cfg.softmax_scale,
            "layers": cfg.layers if cfg.layers is not None else math.nan,
            "RoPE layers": (cfg.layer_kinds.count("rope") if cfg.layer_kinds is not None
                            else math.nan),
            "NoPE layers": (cfg.layer_kinds.count("nope") if cfg.layer_kinds is not None
                            else math.nan),
            "window [tokens]": cfg.window if cfg.window is not None else math.nan,
        })
    return pd.DataFrame(rows)


# --- layers ---------------------------------------------------------------------------

def layer_table(configs) -> pd.DataFrame:
    """Per model and layer: which spectrum the layer rotates with, and how far it reaches.

    Columns: model, layer (0-based), kind ("rope" / "nope"), attention ("full",
    "sliding", "chunked"), window [tokens] (the sliding window or attention chunk;
    NaN for full attention), spectrum ("global": base and scaling; "local": Gemma 3's
    local base, unscaled; "none": NoPE), base (NaN for NoPE), method, reach [tokens]
    = how many tokens a query sees, itself included, min(window, max context): the
    farthest key is reach - 1 back (a sliding window of w keys; a chunked layer's
    query sees back to its chunk's start, at most w - 1), longest wavelength
    [tokens] 2 pi / min_i theta'_i(max context) of the layer's spectrum (NaN for NoPE),
    pairs turning within reach = #{i : 2 pi / theta'_i <= reach} of d/2 pairs.
    Models whose config gives no layers contribute no rows.
    """
    rows = []
    for cfg in _configs(configs):
        if cfg.layer_kinds is None:
            continue
        spectra = {}
        for name, local in (("global", False), ("local", True)):
            if local and cfg.local_base is None:
                continue
            theta, _ = cfg.theta(cfg.max_context, local=local)  # (d/2,)
            spectra[name] = (2 * math.pi / theta).tolist()  # wavelengths [tokens]
        attention = cfg.layer_attention or ("full",) * len(cfg.layer_kinds)
        for layer, kind in enumerate(cfg.layer_kinds):
            which = cfg.layer_spectrum(layer) or "none"
            windowed = attention[layer] in ("sliding", "chunked") and cfg.window is not None
            reach = min(cfg.window, cfg.max_context) if windowed else cfg.max_context
            waves = spectra.get(which)
            rows.append({
                "model": cfg.name, "layer": layer, "kind": kind,
                "attention": attention[layer],
                "window [tokens]": cfg.window if windowed else math.nan,
                "spectrum": which,
                "base": (cfg.local_base if which == "local" else cfg.base)
                if waves is not None else math.nan,
                "method": cfg.method if which == "global" else "none",
                "reach [tokens]": reach,
                "longest wavelength [tokens]": max(waves) if waves else math.nan,
                "pairs turning within reach": (sum(w <= reach for w in waves)
                                               if waves else 0),
                "pairs": cfg.rotary_dim // 2,
            })
    return pd.DataFrame(rows, columns=[
        "model", "layer", "kind", "attention", "window [tokens]", "spectrum", "base", "method",
        "reach [tokens]", "longest wavelength [tokens]", "pairs turning within reach",
        "pairs"])


def nope_query_scale(positions, floor_scale: float = 8192, attn_scale: float = 0.1):
    """Llama 4's attention-temperature tuning of its NoPE layers (transformers'
    Llama4TextAttention, ``attn_temperature_tuning``): the query at position p is
    multiplied by

        1 + attn_scale * ln(1 + floor((p + 1) / floor_scale)),

    so the logits of a far query grow like ln p and its softmax stays sharp over
    millions of keys (Nakanishi 2025, Scalable-Softmax, arXiv:2501.19399).

    Args:
        positions: ``(P,)`` integer positions, 0 ... 10^9.
        floor_scale, attn_scale: positive numbers (8192 and 0.1 in Llama 4).
    Returns:
        ``(P,)`` float64 tensor.
    """
    p = as_integer_positions(positions, name="positions", max_abs=MAX_SEQ_LEN).to(torch.float64)
    if p.numel() == 0 or p.numel() > 100_000 or bool((p < 0).any()):
        fail("positions", positions, "1 to 100000 integers from 0 to {high}", high=MAX_SEQ_LEN)
    floor_scale = check_positive_float(floor_scale, "floor_scale", upper=1e9)
    attn_scale = check_positive_float(attn_scale, "attn_scale", upper=100.0)
    return 1.0 + attn_scale * torch.log1p(torch.floor((p + 1.0) / floor_scale))  # (P,)


def _frame(columns: dict[str, list], text: tuple[str, ...]) -> pd.DataFrame:
    """One DataFrame from per-model pieces: the ``text`` columns as lists of labels,
    the others as lists of numpy arrays, concatenated (the frame that concatenating one
    frame per model would give, built once)."""
    return pd.DataFrame({name: v if name in text else np.concatenate(v)
                         for name, v in columns.items()})


# --- spectra --------------------------------------------------------------------------

def spectrum_table(configs) -> pd.DataFrame:
    """Per model and pair, the spectrum in use at the maximum context n = max_context.

    Columns: model, method, pair i (0 ... d/2 - 1), theta_i plain = base^(-2i/d),
    theta_i = theta'_i(n) [rad/token], ratio = theta'_i / theta_i, wavelength
    2 pi / theta'_i and plain wavelength 2 pi / theta_i [tokens], regime ("kept",
    "interpolated" = divided by s, "blended", from :func:`pair_regime`).
    Returns sum over models of d/2 rows.
    """
    return _frame(_spectrum_columns(configs), SPECTRUM_TEXT)


def _spectrum_columns(configs) -> dict[str, list]:
    """:func:`spectrum_table`'s columns, in pieces per model (see :func:`_frame`)."""
    names = ("model", "method", "pair", "theta plain [rad/token]", "theta [rad/token]",
             "ratio theta/theta plain", "wavelength plain [tokens]", "wavelength [tokens]",
             "regime")
    columns: dict[str, list] = {name: [] for name in names}
    for cfg in _configs(configs):
        n = cfg.max_context
        scaled, _ = cfg.theta(n)  # (d/2,)
        plain = plain_theta(cfg.rotary_dim, cfg.base)  # (d/2,)
        regime = pair_regime(cfg.rotary_dim, cfg.base, cfg.method, seq_len=n, **cfg.params_dict)
        pairs = plain.numel()
        columns["model"] += [cfg.name] * pairs
        columns["method"] += [cfg.method] * pairs
        columns["regime"] += regime
        for name, values in (("pair", torch.arange(pairs)), ("theta plain [rad/token]", plain),
                             ("theta [rad/token]", scaled),
                             ("ratio theta/theta plain", scaled / plain),
                             ("wavelength plain [tokens]", 2 * math.pi / plain),
                             ("wavelength [tokens]", 2 * math.pi / scaled)):
            columns[name].append(values.numpy())
    return columns


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
    one pass: the same operations on the same chunks as rope_core.decay (so the same
    float64 values), each cos and sin computed once. With q = k = all ones every pair
    weighs cos by 1·1 + 1·1 = 2 and sin by 1·1 − 1·1 = 0 in either layout, so the score
    is that weight times cos (the sin term adds zeros)."""
    th = theta.to(torch.float64)  # (d/2,)
    along = torch.full((th.numel(),), 2.0, dtype=torch.float64)  # (d/2,): weight of cos
    bound = torch.empty(r.numel(), dtype=torch.float64)  # (R,)
    score = torch.empty(r.numel(), dtype=torch.float64)  # (R,)
    for sl in _decay_chunks(r.numel(), th.numel()):
        angle = torch.outer(r[sl], th)  # (c, d/2)
        cos, sin = torch.cos(angle), torch.sin(angle)
        bound[sl] = torch.hypot(torch.cumsum(cos, dim=-1), torch.cumsum(sin, dim=-1)).mean(dim=-1)
        score[sl] = along @ cos.T  # (c,)
    return bound, score


def decay_table(configs, axis: str = "linear", points: int = MAX_POINTS) -> pd.DataFrame:
    """Per model, RoFormer's bound and the q = k = all-ones score against distance r,
    for r up to the model's maximum context n = max_context (:func:`distance_samples`).

    With theta' = theta'(n) and attention factor a = a(n):

    * upper bound(r) = (1/(d/2)) sum_{j=1}^{d/2} |sum_{k<j} e^{i r theta'_k}| (relative
      bound, no a; rope_core.decay.relative_upper_bound), and "upper bound / bound(0)"
      with bound(0) = (d/2 + 1)/2;
    * score(r) = a^2 sum_i 2 cos(r theta'_i) + (head_dim - d): cos and sin carry a for
      q and for k, the head_dim - d pass-through coordinates add 1 each, unrotated;
      "score / head_dim" is that divided by |q||k| = head_dim (1 at r = 0 when a = 1)
      (rope_core.decay.score_vs_distance).

    Models whose spectra and distances coincide (methods that leave a model's spectrum
    as it is) share one evaluation.

    Returns:
        rows (model, method, distance [tokens], upper bound, upper bound / bound(0),
        score q=k=1, score q=k=1 / head_dim).
    """
    return _frame(_decay_columns(configs, axis, points), ("model", "method"))


def _decay_columns(configs, axis: str, points: int) -> dict[str, list]:
    """:func:`decay_table`'s columns, in pieces per model (see :func:`_frame`)."""
    columns: dict[str, list] = {name: [] for name in (
        "model", "method", "distance [tokens]", "upper bound", "upper bound / bound(0)",
        "score q=k=1", "score q=k=1 / head_dim")}
    done: dict[tuple, tuple] = {}  # (spectrum, distances) -> (bound, rotary score)
    for cfg in _configs(configs):
        r = distance_samples(cfg.max_context, axis, points)  # (R,)
        theta, a = cfg.theta(cfg.max_context)  # (d/2,)
        d = cfg.rotary_dim
        key = (theta.numpy().tobytes(), r.numpy().tobytes())
        if key not in done:
            done[key] = _bound_and_ones_score(r, theta)
        bound, rotary = done[key]  # (R,) each
        score = a * a * rotary + (cfg.head_dim - d)  # (R,)
        columns["model"] += [cfg.name] * r.numel()
        columns["method"] += [cfg.method] * r.numel()
        for name, values in (("distance [tokens]", r), ("upper bound", bound),
                             ("upper bound / bound(0)", bound / ((d / 2 + 1) / 2)),
                             ("score q=k=1", score),
                             ("score q=k=1 / head_dim", score / cfg.head_dim)):
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
    :func:`rope_core.scaling.comparison_params`: ``factor`` = s and
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
        out[m] = dataclasses.replace(cfg, method=m, params=params, max_context=extended,
                                     local_base=None, mrope_section=None, layer_kinds=None,
                                     layer_attention=None, window=None)
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
        columns = _spectrum_columns(configs)
        tables["spectra"] = _frame(_leading(columns, cfg, L, factor), SPECTRUM_TEXT)
    if "decay" in parts:
        # every method's curves on one chart: 500 distances each keeps the page's first
        # open under 300 KB (the ripples of fast pairs are finer than either grid anyway)
        columns = _decay_columns(configs, axis, EXTENSION_POINTS)
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
