"""The tables behind the lesson's plots (rotation, sinusoidal, decay, attention), made
with :func:`rope_core.support.frames.to_frame`; they become the CSVs."""

from __future__ import annotations

import math

import pandas as pd
import torch

from ..rotary.attention import attention, toy_qk
from ..rotary.decay import (
    distance_grid,
    random_score_stats,
    relative_upper_bound,
    score_vs_distance,
)
from ..rotary.frequencies import theta as theta_of
from ..rotary.frequencies import turns_within, wavelength
from ..rotary.rotation import apply_rope
from ..rotary.sinusoidal import (
    frequency_forms,
    reference_frequencies,
    relative_errors,
    sinusoidal_dot,
    sinusoidal_pe,
)
from ..rotary.steps import pair_trajectory, rope_steps
from ..support._checks import check_int, fail
from ..support.frames import labels, to_frame


def theta_table(theta: torch.Tensor, context_length: float, **labels) -> pd.DataFrame:
    """pair i, theta_i, wavelength 2 pi/theta_i and turns L theta_i/(2 pi) within L.

    ``labels`` (e.g. base=10000) become constant leading columns, followed by
    the head dim d = 2 len(theta) and the context length L.
    """
    turns = turns_within(theta, context_length)
    return to_frame({"pair i": torch.arange(theta.numel()),
                     "theta_i [rad/token]": theta,
                     "wavelength [tokens]": wavelength(theta),
                     "turns within L": turns,
                     "full turn within L": (turns >= 1).cpu().numpy()},
                    **labels, dim=2 * theta.numel(), **{"L [tokens]": context_length})


def matrix_table(matrix: torch.Tensor, row: str, col: str, value: str,
                 **settings) -> pd.DataFrame:
    """A 2-D array in long form: one row per (row index, column index, value)."""
    rows, cols = matrix.shape
    r = torch.arange(rows).repeat_interleave(cols)
    c = torch.arange(cols).repeat(rows)
    return to_frame({row: r, col: c, value: matrix.reshape(-1)}, **settings)


def degrees(radians: torch.Tensor) -> torch.Tensor:
    return radians * (180.0 / math.pi)


# ---------------------------------------------------------------- Overview ----
def identity_table(dim: int, base: float, layout: str, *, size: int = 48, seed: int = 7,
                   device=None) -> pd.DataFrame:
    """<R_m q, R_n k> for one q and one k (seed ``seed``) at every (m, n), m, n < size,
    next to q^T R_(n-m) k computed from the offset alone. Long form, size^2 rows."""
    size = check_int(size, "size", 1, 512)
    theta = theta_of(dim, base, device=device)
    q, k = toy_qk(size, dim, seed, shared=True, device=device)  # (size, dim): one q, one k
    positions = range(size)
    rotated = apply_rope(q, positions, theta, layout=layout) @ \
        apply_rope(k, positions, theta, layout=layout).T  # (size, size)
    offsets = torch.arange(-(size - 1), size)  # n - m
    by_offset = score_vs_distance(q[0], k[0], offsets, theta, layout=layout)  # (2 size - 1,)
    m = torch.arange(size).repeat_interleave(size)
    n = torch.arange(size).repeat(size)
    return to_frame({"m [tokens]": m, "n [tokens]": n, "n - m [tokens]": n - m,
                     "<R_m q, R_n k>": rotated.reshape(-1),
                     "q^T R_(n-m) k": by_offset[(n - m + size - 1).to(by_offset.device)]},
                    base=base, dim=dim, layout=layout, seed=seed)


# ---------------------------------------------------------------- Rotation ----
MODES = ("advance", "shift")


def rotation_frames_table(q: tuple, k: tuple, pair: int, dim: int, base: float, mode: str,
                          m0: int, n0: int, step: int, frames: int) -> pd.DataFrame:
    """One row per frame t: q at m = m0 + t step, k at n = n0 ("advance") or
    n0 + t step ("shift"), pair ``pair`` of a head of dim ``dim`` turned by
    :func:`rope_core.rotary.steps.pair_trajectory`."""
    if mode not in MODES:
        fail("mode", mode, "'advance' or 'shift'")
    frames = check_int(frames, "frames", 1, 10_000)
    pair = check_int(pair, "pair", 0, dim // 2 - 1)
    theta_i = float(theta_of(dim, base)[pair])
    t = torch.arange(frames)
    m = m0 + t * step  # (frames,)
    n = n0 + t * step if mode == "shift" else torch.full((frames,), n0)
    path = pair_trajectory(q, k, theta_i, m, n)
    return to_frame({
        "frame": t, "m [tokens]": m, "n [tokens]": n,
        "angle of q m*theta_i [rad]": path["angle_q"],
        "angle of k n*theta_i [rad]": path["angle_k"],
        "q'_x": path["q_rot"][:, 0], "q'_y": path["q_rot"][:, 1],
        "k'_x": path["k_rot"][:, 0], "k'_y": path["k_rot"][:, 1],
        "angle from q' to k' [deg]": degrees(path["between"]),
        "angle from q' to k' [rad]": path["between"], "dot product q'.k'": path["dot"]},
        base=base, dim=dim, **{"pair i": pair}, mode=mode, q_x=float(q[0]), q_y=float(q[1]),
        k_x=float(k[0]), k_y=float(k[1]), **{"positions per frame [tokens]": step})


# ------------------------------------------------------------ Step by step ----
def step_tables(q: tuple, m: int, base: float, layout: str) -> dict[str, pd.DataFrame]:
    """The tables of :func:`rope_core.rotary.steps.rope_steps`: ``"coordinates"`` (one row
    per coordinate j), ``"pairs"`` (one row per pair i), ``"matrix"`` (R_m in
    long form) and ``"summary"`` (one row: gap between the forms, |q|, |R_m q|),
    each led by the settings d, m, base, layout."""
    st = rope_steps(q, m, base, layout)
    d = st["q"].numel()
    settings = dict(base=base, layout=layout, d=d, **{"m [tokens]": m})
    coordinates = to_frame({
        "j": st["j"], "pair i": st["pair_of"], "theta_i [rad/token]": st["theta"][st["pair_of"]],
        "angle m*theta_i [rad]": st["angle"][st["pair_of"]], "q_j": st["q"], "cos": st["cos_j"],
        "sin": st["sin_j"], "rotate(q)_j": st["rotate"], "elementwise": st["elementwise"],
        "dense R_m q": st["dense"], "complex form": st["complex"]}, **settings)
    pairs = to_frame({"pair i": st["pair"], "coordinate a": st["a"], "coordinate b": st["b"],
                      "theta_i [rad/token]": st["theta"], "angle m*theta_i [rad]": st["angle"],
                      "angle mod 2pi [rad]": torch.remainder(st["angle"], 2 * math.pi),
                      "cos": st["cos"], "sin": st["sin"]}, **settings)
    matrix = matrix_table(st["R"], "row", "column", "R_m entry", **settings)
    summary = to_frame({"largest difference between forms": float(st["gap"]),
                        "norm of q": float(st["norm_q"]),
                        "norm of R_m q": float(st["norm_rotated"])}, **settings)
    return {"coordinates": coordinates, "pairs": pairs, "matrix": matrix, "summary": summary}


# -------------------------------------------------------------- Sinusoidal ----
def pe_table(positions: int, d_model: int, base: float, device=None) -> pd.DataFrame:
    """The sinusoidal table in long form: one row per (position p, dimension j),
    with the function (sin for even j, cos for odd j), the pair i = j // 2 and
    the value PE[p, j]. Rows ordered by p, then j (so values reshape to (P, d_model))."""
    pe = sinusoidal_pe(positions, d_model, base, device=device).cpu()  # (P, d_model)
    p = torch.arange(positions).repeat_interleave(d_model)
    j = torch.arange(d_model).repeat(positions)
    return to_frame({"position p [tokens]": p, "dimension j": j,
                     "function": labels(["sin", "cos"], j % 2),
                     "pair i": j // 2, "PE value": pe.reshape(-1)},
                    base=base, d_model=d_model)


def similarity_table(positions: int, d_model: int, base: float, device=None) -> pd.DataFrame:
    """PE_m . PE_n for every pair of positions 0 ... positions-1, in long form."""
    pe = sinusoidal_pe(positions, d_model, base, device=device)  # (Q, d_model)
    df = matrix_table(pe @ pe.T, "m [tokens]", "n [tokens]", "PE_m . PE_n",
                      base=base, d_model=d_model)
    df.insert(4, "m - n [tokens]", df["m [tokens]"] - df["n [tokens]"])
    return df


def dot_table(max_offset: int, d_model: int, base: float, device=None) -> pd.DataFrame:
    """PE_m . PE_n = sum_i cos((m - n) omega_i) for offsets -K ... K."""
    offsets = torch.arange(-max_offset, max_offset + 1)  # (2K + 1,)
    return to_frame({"m - n [tokens]": offsets,
                     "PE_m . PE_n": sinusoidal_dot(offsets, d_model, base, device=device)},
                    base=base, d_model=d_model)


FORM_DTYPES = {"float32": torch.float32, "float64": torch.float64}


def forms_table(dim: int, base: float) -> pd.DataFrame:
    """omega_i written as a power and as an exponential, each computed in float32
    and in float64, against a 40-digit decimal reference; a block of rows per dtype."""
    exact = reference_frequencies(dim, base)
    blocks = []
    for name, dtype in FORM_DTYPES.items():
        forms = frequency_forms(dim, base, dtype=dtype)  # dict of (dim/2,) tensors
        pow_form, exp_form = forms["pow"].tolist(), forms["exp"].tolist()  # exact as floats
        blocks.append(to_frame({
            "pair i": torch.arange(dim // 2),
            "reference omega_i [rad/token]": [float(e) for e in exact],
            "pow form base^(-2i/d) [rad/token]": pow_form,
            "exp form exp(-(2i/d) ln base) [rad/token]": exp_form,
            "relative error pow": relative_errors(pow_form, exact),
            "relative error exp": relative_errors(exp_form, exact)},
            base=base, dim=dim, dtype=name))
    return pd.concat(blocks, ignore_index=True)


# ------------------------------------------------------------------- Decay ----
def bound_table(curves: tuple, max_distance: int, axis: str, device=None) -> pd.DataFrame:
    """RoFormer's relative upper bound on one distance grid, a block of rows per
    (base, dim) in ``curves``: "upper bound" and "upper bound / bound(0)", the bound over
    its value at r = 0, bound(0) = (d/2 + 1)/2 (every |S_j| = j there; on a log grid,
    which starts at r = 1, too), so that curves of different d share one scale."""
    r = distance_grid(max_distance, axis).to(torch.float64)  # (R,)
    blocks = []
    for base, dim in curves:
        theta = theta_of(dim, base, device=device)
        bound = relative_upper_bound(r, theta)  # (R,)
        blocks.append(to_frame({"distance r [tokens]": r.to(torch.int64),
                                "upper bound": bound,
                                "upper bound / bound(0)": bound / ((dim / 2 + 1) / 2)},
                               base=base, dim=dim, axis=axis))
    return pd.concat(blocks, ignore_index=True)


def score_table(dim: int, base: float, max_distance: int, axis: str, layout: str, trials: int,
                seed: int, device=None) -> pd.DataFrame:
    """q^T R_r k for q = k = all ones, and mean / std over ``trials`` Gaussian (q, k)."""
    r = distance_grid(max_distance, axis).to(torch.float64)  # (R,)
    theta = theta_of(dim, base, device=device)
    ones = torch.ones(dim, dtype=torch.float64, device=theta.device)
    aligned = score_vs_distance(ones, ones, r, theta, layout=layout)  # (R,)
    mean, std = random_score_stats(r, theta, trials, seed, layout=layout)  # (R,) each
    return to_frame({"distance r [tokens]": r.to(torch.int64), "score q=k=1": aligned,
                     "mean random score": mean, "std random score": std},
                    base=base, dim=dim, layout=layout, axis=axis, trials=trials, seed=seed)


# --------------------------------------------------------------- Attention ----
ATTENTION_VARIANTS = ("without RoPE", "with RoPE")


def attention_table(seq: int, seed: int, same: bool, causal: bool, dim: int, base: float,
                    layout: str, device=None) -> pd.DataFrame:
    """One row per (query m, key n): logits and softmax weights without and with RoPE
    (masked logits are -inf, their weights exactly 0)."""
    q, k = toy_qk(seq, dim, seed, shared=same, device=device)  # (seq, dim) each, float64
    plain = attention(q, k, None, causal=causal, layout=layout)  # (seq, seq) twice
    rotated = attention(q, k, theta_of(dim, base, device=device), causal=causal, layout=layout)
    m = torch.arange(seq).repeat_interleave(seq)  # (seq * seq,)
    n = torch.arange(seq).repeat(seq)
    columns = {"m [tokens]": m, "n [tokens]": n}
    for variant, (logits, weights) in zip(ATTENTION_VARIANTS, (plain, rotated)):
        columns[f"logit {variant}"] = logits.reshape(-1)
        columns[f"weight {variant}"] = weights.reshape(-1)
    return to_frame(columns, base=base, dim=dim, layout=layout, seed=seed,
                    same_q_and_k=bool(same), causal=bool(causal))
