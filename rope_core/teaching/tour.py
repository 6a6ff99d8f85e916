"""The guided tour's answers: one small computation per question, computed live.

Each function answers one prediction question of the tour page with the
step's settings, from the same maths the other pages use:

* :func:`shuffle_gaps`: max |out(P x) - P out(x)| without and with RoPE
* :func:`self_similarity`: PE_m . PE_m = d_model / 2 for the sinusoidal table
* :func:`shift_scores`: <R_m q, R_n k> before and after shifting both by s
* :func:`pair_wavelength`: lambda_i = 2 pi base^(2i/d)
* :func:`norm_after_rotation`: |q| and |R_m q|
* :func:`wavelength_ratio`: lambda_i(base') / lambda_i(base) = (base'/base)^(2i/d)
* :func:`turning_pairs`: pairs with lambda_i <= L
* :func:`uniform_weight`: causal weights of identical tokens without RoPE, 1/(m+1)
* :func:`first_negative_sum`: the first m with B_m = sum_i cos(m theta_i) < 0
* :func:`far_bound`: RoFormer's decay bound at r against r = 0 and its plateau
* :func:`exact_integers`: the largest position a dtype holds with every integer below it
* :func:`ntk_slowdown`: theta'_i / theta_i of NTK-aware scaling = s^(-2i/(d-2))

Every function validates its arguments and raises ``ValueError`` (a RopeError) naming the
parameter, the value and the allowed range.
"""

from __future__ import annotations

import torch

from ..limits.capacity import cos_sum, first_negative_distance
from ..limits.precision import as_dtype_position, first_inexact_position, resolve_dtype
from ..models.scaling import scaled_theta
from ..rotary.attention import attention, toy_qk
from ..rotary.decay import bound_plateau, relative_upper_bound
from ..rotary.frequencies import theta as theta_of
from ..rotary.frequencies import wavelength
from ..rotary.rotation import apply_rope
from ..rotary.sinusoidal import sinusoidal_pe
from ..support._checks import (
    check_base,
    check_dim,
    check_int,
    check_layout,
    check_positive_float,
    fail,
)
from .lesson import TOY_SENTENCES, shuffle_tables

MAX_POSITION = 10**6
MAX_SEED = 2**31 - 1


def _check_pair(pair, dim: int) -> int:
    return check_int(pair, "pair", 0, dim // 2 - 1)


def shuffle_gaps(sentence: str, dim: int, base: float, layout: str, seed: int) -> dict:
    """How much shuffling a sentence changes one attention head's outputs.

    gap = max |out(P x) - P out(x)| over tokens and coordinates: 0 (up to
    rounding) without positions, since attention is permutation-equivariant;
    clearly positive with RoPE on q and k.

    Returns:
        {"none": gap without positions, "rope": gap with RoPE}.
    """
    if sentence not in TOY_SENTENCES:
        fail("sentence", sentence, "one of {choices}",
             choices=", ".join(repr(s) for s in TOY_SENTENCES))
    words, order = TOY_SENTENCES[sentence]
    summary = shuffle_tables(words, order, dim, base, layout, seed)["summary"]
    gaps = dict(zip(summary["encoding"], summary["max |out(P x) - P out(x)|"]))
    return {"none": float(gaps["none"]), "rope": float(gaps["rope"])}


def self_similarity(d_model: int, base: float, position: int) -> float:
    """PE_m . PE_m of the sinusoidal table at position m.

    Each pair contributes sin^2(m w_i) + cos^2(m w_i) = 1, so the result is
    d_model / 2 at every position.
    """
    d_model = check_dim(d_model, "d_model")
    position = check_int(position, "position", 0, 4095)
    row = sinusoidal_pe(position + 1, d_model, base)[position]  # (d_model,)
    return float(row @ row)


def shift_scores(dim: int, base: float, layout: str, m: int, n: int, shift: int,
                 seed: int) -> dict:
    """<R_m q, R_n k> and <R_(m+s) q, R_(n+s) k> for one seeded random q, k.

    RoPE's scores depend on n - m alone, so the two agree up to rounding.

    Returns:
        {"score": at (m, n), "shifted": at (m + s, n + s), "gap": |difference|}.
    """
    dim = check_dim(dim)
    base = check_base(base)
    layout = check_layout(layout)
    m = check_int(m, "m", 0, MAX_POSITION)
    n = check_int(n, "n", 0, MAX_POSITION)
    shift = check_int(shift, "shift", 0, MAX_POSITION)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, dim, generator=g, dtype=torch.float64)  # (1, dim)
    k = torch.randn(1, dim, generator=g, dtype=torch.float64)
    th = theta_of(dim, base)

    def score(a: int, b: int) -> float:
        qa = apply_rope(q, [a], th, layout=layout)
        kb = apply_rope(k, [b], th, layout=layout)
        return float((qa * kb).sum())

    before, after = score(m, n), score(m + shift, n + shift)
    return {"score": before, "shifted": after, "gap": abs(after - before)}


def pair_wavelength(dim: int, base: float, pair: int) -> float:
    """Tokens for one full turn of pair i: lambda_i = 2 pi / theta_i = 2 pi base^(2i/d)."""
    dim = check_dim(dim)
    pair = _check_pair(pair, dim)
    return float(wavelength(theta_of(dim, base))[pair])


def norm_after_rotation(q, m: int, base: float, layout: str) -> dict:
    """|q| and |R_m q| for a vector q of even length (R_m is a rotation: they agree).

    Returns:
        {"before": |q|, "after": |R_m q|}.
    """
    try:
        v = torch.as_tensor(list(q), dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        fail("q", q, "a sequence of an even number (2 to 4096) of finite numbers")
    if v.ndim != 1 or not bool(torch.isfinite(v).all()):
        fail("q", q, "a sequence of an even number (2 to 4096) of finite numbers")
    dim = check_dim(v.numel(), "len(q)")
    m = check_int(m, "m", -MAX_POSITION, MAX_POSITION)
    rotated = apply_rope(v[None, :], [m], theta_of(dim, base), layout=check_layout(layout))
    return {"before": float(v.norm()), "after": float(rotated.norm())}


def wavelength_ratio(dim: int, base: float, new_base: float, pair: int) -> dict:
    """How pair i's wavelength changes when the base changes.

    lambda_i = 2 pi base^(2i/d), so lambda_i(base') / lambda_i(base) = (base'/base)^(2i/d).

    Returns:
        {"before": lambda_i(base), "after": lambda_i(base'), "ratio": after / before}.
    """
    dim = check_dim(dim)
    pair = _check_pair(pair, dim)
    new_base = check_base(new_base, "new_base")
    before = pair_wavelength(dim, base, pair)
    after = pair_wavelength(dim, new_base, pair)
    return {"before": before, "after": after, "ratio": after / before}


def turning_pairs(dim: int, base: float, context: float) -> int:
    """How many pairs complete at least one full turn within L tokens: #{i : lambda_i <= L}.

    lambda_i <= L  <=>  i <= (d/2) log(L / 2 pi) / log(base).
    """
    dim = check_dim(dim)
    context = check_positive_float(context, "context", upper=1e9)
    return int((wavelength(theta_of(dim, base)) <= context).sum())


def uniform_weight(seq: int, dim: int, base: float, seed: int, row: int) -> dict:
    """Causal softmax weights of query ``row`` when every token has the same q and k.

    Without RoPE every visible logit is equal, so row m gives 1/(m + 1) to each of
    keys 0 ... m; with RoPE the weights depend on the distance m - n.

    Returns:
        {"without": weight of key 0 without RoPE, "with_min": smallest and
        "with_max": largest weight of the row with RoPE}.
    """
    row = check_int(row, "row", 0, check_int(seq, "seq", 1, 64) - 1)
    q, k = toy_qk(seq, dim, seed, shared=True)
    _, plain = attention(q, k, None, causal=True)
    _, rotated = attention(q, k, theta_of(dim, base), causal=True)
    visible = rotated[row, : row + 1]
    return {"without": float(plain[row, 0]), "with_min": float(visible.min()),
            "with_max": float(visible.max())}


def far_bound(dim: int, base: float, distance: float) -> dict:
    """RoFormer's long-term-decay bound far away, against r = 0 and its plateau.

    bound(r) = (1/(d/2)) sum_{j=1}^{d/2} |sum_{l<j} e^{iota r theta_l}|; bound(0) = (d/2 + 1)/2;
    for r far beyond the longest wavelength it scatters around
    (1/(d/2)) sum_j sqrt(pi j)/2 instead of reaching 0.

    Returns:
        {"at_zero", "far", "ratio": far / at_zero, "plateau"}.
    """
    dim = check_dim(dim)
    distance = check_positive_float(distance, "distance", upper=1e9)
    b0, far = relative_upper_bound([0.0, distance], theta_of(dim, base)).tolist()
    return {"at_zero": b0, "far": far, "ratio": far / b0, "plateau": bound_plateau(dim)}


def exact_integers(dtype, position: int) -> dict:
    """The largest position N such that ``dtype`` holds every integer 0 ... N exactly
    (2^p for p significand bits), and what ``position`` becomes in ``dtype``.

    Returns:
        {"largest": 2^p, "position": position, "held": position rounded to dtype}.
    """
    dtype = resolve_dtype(dtype)
    position = check_int(position, "position", 0, MAX_POSITION)
    return {"largest": first_inexact_position(dtype) - 1, "position": position,
            "held": int(as_dtype_position(position, dtype))}


def ntk_slowdown(dim: int, base: float, factor: float) -> dict:
    """NTK-aware scaling's ratio theta'_i / theta_i for the first and the last pair.

    The new base is base s^(d/(d-2)), so theta'_i / theta_i = s^(-2i/(d-2)):
    1 for pair 0 (untouched) and 1/s for pair d/2 - 1 (slowed down the most).

    Returns:
        {"first": ratio of pair 0, "last": ratio of pair d/2 - 1}.
    """
    dim = check_dim(dim)
    if dim < 4:
        fail("dim", dim, "an even integer from 4 to 4096 (two pairs at least)")
    factor = check_positive_float(factor, "factor", upper=1000.0)
    if factor < 1:
        fail("factor", factor, "a finite number from 1 to 1000")
    scaled, _ = scaled_theta(dim, base, "ntk", factor=factor)
    ratio = scaled / theta_of(dim, base)
    return {"first": float(ratio[0]), "last": float(ratio[-1])}


def first_negative_sum(dim: int, base: float, max_distance: int) -> dict:
    """Where Men et al.'s B_m = sum_i cos(m theta_i) first turns negative, m <= max_distance.

    B_0 = d/2; a negative B_m means a query attends less to a similar key m tokens
    away than to an unrelated one, on average.

    Returns:
        {"first": the first integer m with B_m < 0, or None, "value": B_m there (or None)}.
    """
    first = first_negative_distance(dim, base, max_distance)
    value = None if first is None else float(cos_sum(dim, base, [first])[0])
    return {"first": first, "value": value}


__all__ = ["exact_integers", "far_bound", "first_negative_sum", "norm_after_rotation",
           "ntk_slowdown", "pair_wavelength", "self_similarity", "shift_scores", "shuffle_gaps",
           "turning_pairs", "uniform_weight", "wavelength_ratio"]
