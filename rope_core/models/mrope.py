"""RoPE for images and video: 2D axial RoPE and M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL).

A token of a multimodal sequence carries three position ids, (t, h, w): time,
height and width. Pair i of a head vector turns by

    angle_i = id[axis(i)] * theta_i,        theta_i = base^(-2i/d),

where ``axis(i)`` in {0: t, 1: h, 2: w} says which id pair i reads. A text token
has t = h = w (plain 1D RoPE); an image or video patch has its own row and
column. The score between a query with ids a and a key with ids b is

    q^T R(b - a) k = sum_i along_i cos(r_i theta_i) + across_i sin(r_i theta_i),
    r_i = b[axis(i)] - a[axis(i)],

so it depends only on the id differences, one per axis: RoPE's relative property,
axis by axis.

* :func:`mrope_position_ids`: the (3, seq) ids of a mixed sequence, as
  transformers' Qwen2-VL ``get_rope_index`` (or Qwen2-VL's original release,
  or Qwen2.5-VL's absolute time) computes them;
* :func:`mrope_pair_axes`: which pairs read which id, Qwen2-VL's contiguous
  ``mrope_section`` or Qwen3-VL's interleaved allocation;
* :func:`axial_theta`, :func:`axial_pair_axes`: 2D axial RoPE of a ViT (half
  the pairs for the row, half for the column, as Qwen2-VL's vision encoder);
* :func:`apply_mrope`, :func:`mrope_score`, :func:`patch_scores`: rotated vectors
  and the score between two patches under 1D flattening, 2D axial and M-RoPE.
"""

from __future__ import annotations

import math

import pandas as pd
import torch

from ..rotary.frequencies import theta as theta_of
from ..rotary.rotation import pair_views
from ..support._checks import (
    MAX_DIM,
    check_base,
    check_choice,
    check_dim,
    check_int,
    check_layout,
    check_positive_float,
    check_theta,
    fail,
)
from ..support.frames import to_frame

AXES = ("t", "h", "w")  # axis 0, 1, 2 of the position ids
SEGMENT_KINDS = ("text", "image", "video")
# transformers' Qwen2VLConfig / Qwen3VLConfig defaults (head dim 128: 64 pairs)
MROPE_SECTIONS = {"qwen2_vl": (16, 24, 24), "qwen3_vl": (24, 20, 20)}
MROPE_INTERLEAVED = {"qwen2_vl": False, "qwen3_vl": True}
RESUME_RULES = ("transformers", "original")
SCHEMES = ("flat", "axial", "mrope")
MAX_GRID = 4096  # patches along one axis of one grid
MAX_TOKENS = 1_000_000  # tokens in one sequence
MAX_MERGE = 8
MAX_TIME_STEP = 10_000.0  # ids per temporal patch (tokens_per_second x seconds)
# Angles formed at once in mrope_score (bounded memory for long inputs; at most
# torch's grain size, so that a page's small tables never wake intra-op threads).
_GRAIN = 32768


# ------------------------------------------------------------------ position ids ----
def _check_segments(segments, merge: int) -> list[tuple[str, int | tuple[int, int, int]]]:
    """Each segment well formed: ("text", n) or ("image"/"video", (t, h, w)), h and w
    divisible by the merge size, an image one temporal patch."""
    if isinstance(segments, (str, bytes)) or not hasattr(segments, "__iter__"):
        fail("segments", segments, "a list of (kind, size) segments")
    segments = list(segments)
    if not segments:
        fail("segments", segments, "a non-empty list of (kind, size) segments")
    out = []
    total = 0
    for n, segment in enumerate(segments):
        name = f"segments[{n}]"
        if not isinstance(segment, (tuple, list)) or len(segment) != 2:
            fail(name, segment, "a pair (kind, size): (\"text\", n), (\"image\", (t, h, w)) "
                 "or (\"video\", (t, h, w))")
        kind = check_choice(segment[0], f"{name}[0]", SEGMENT_KINDS)
        if kind == "text":
            count = check_int(segment[1], f"{name}[1]", 1, MAX_TOKENS)
            out.append((kind, count))
            total += count
        else:
            grid = segment[1]
            if not isinstance(grid, (tuple, list)) or len(grid) != 3:
                fail(f"{name}[1]", grid, "a patch grid (t, h, w) of three integers")
            t, h, w = (check_int(v, f"{name}.{axis}", 1, MAX_GRID)
                       for v, axis in zip(grid, AXES))
            if kind == "image" and t != 1:
                fail(f"{name}.t", t, "1 for an image (one temporal patch, as transformers' "
                     "image_grid_thw)")
            for v, axis in ((h, "h"), (w, "w")):
                if v % merge:
                    fail(f"{name}.{axis}", v, "a multiple of spatial_merge_size = {merge}",
                         merge=merge)
            out.append((kind, (t, h, w)))
            total += t * (h // merge) * (w // merge)
        if total > MAX_TOKENS:
            fail("segments", f"<{total} tokens>", "at most {most} tokens in all",
                 most=MAX_TOKENS)
    return out


def _time_step(tokens_per_second, second_per_grid_t) -> float | None:
    """Ids per temporal patch of a video: None for Qwen2-VL (one id per patch)."""
    if tokens_per_second is None:
        return None
    tps = check_positive_float(tokens_per_second, "tokens_per_second", MAX_TIME_STEP)
    seconds = check_positive_float(second_per_grid_t, "second_per_grid_t", MAX_TIME_STEP)
    step = tps * seconds
    if step > MAX_TIME_STEP:
        fail("second_per_grid_t", seconds,
             "at most {most} / tokens_per_second (ids per temporal patch)",
             most=f"{MAX_TIME_STEP:g}")
    return step


def _layout(segments, spatial_merge_size, resume, tokens_per_second, second_per_grid_t):
    """The ids (3, seq) and one record per segment (where it starts and ends)."""
    merge = check_int(spatial_merge_size, "spatial_merge_size", 1, MAX_MERGE)
    resume = check_choice(resume, "resume", RESUME_RULES)
    step = _time_step(tokens_per_second, second_per_grid_t)
    segments = _check_segments(segments, merge)
    blocks, records = [], []
    start = 0  # id the next segment starts from
    token = 0  # index of the next token
    for kind, size in segments:
        if kind == "text":
            ids = torch.arange(size, dtype=torch.int64).expand(3, size) + start  # (3, n)
            end = start + size
            grid = (None, None, None)
        else:
            t, h, w = size
            th, hh, wh = t, h // merge, w // merge  # the merged grid (LLM tokens)
            frames = torch.arange(th)  # (t',)
            if step is not None and kind == "video":
                # f * dt truncated toward zero, as transformers' .long()
                frames = (frames.to(torch.float64) * step).to(torch.int64)
            tt, rr, cc = torch.meshgrid(frames, torch.arange(hh), torch.arange(wh),
                                        indexing="ij")  # (t', h', w') each
            ids = torch.stack([tt, rr, cc]).reshape(3, -1) + start  # (3, t' h' w')
            if resume == "transformers":
                end = start + max(hh, wh)
            else:
                end = int(ids.max()) + 1
            grid = size
        blocks.append(ids)
        records.append(dict(kind=kind, grid=grid, tokens=ids.shape[1], first_token=token,
                            start=start, largest=int(ids.max()), next_id=end))
        token += ids.shape[1]
        start = end
    return torch.cat(blocks, dim=1), records


def mrope_position_ids(segments, *, spatial_merge_size: int = 2, resume: str = "transformers",
                       tokens_per_second: float | None = None,
                       second_per_grid_t: float = 1.0) -> torch.Tensor:
    """The temporal, height and width position ids of a mixed sequence.

    ``segments`` is a list of ``("text", n)``, ``("image", (t, h, w))`` and
    ``("video", (t, h, w))``; ``(t, h, w)`` is the patch grid before merging
    (transformers' ``image_grid_thw`` / ``video_grid_thw``; an image has t = 1).
    The language model sees the merged grid t' = t, h' = h/s, w' = w/s
    (s = ``spatial_merge_size``), one token per merged patch, in (t, h, w)
    row-major order. With ``start`` the id the segment starts from:

        text token j:           (start + j, start + j, start + j),   next start = start + n
        patch (f, r, c):        (start + f*dt, start + r, start + c)

    dt = 1 (Qwen2-VL), or dt = ``tokens_per_second`` x ``second_per_grid_t`` for a
    video in Qwen2.5-VL's absolute time (f*dt truncated to an integer, as
    transformers' ``.long()``; an image keeps dt = 1). After a vision block the
    next segment starts at

        ``resume="transformers"``:  start + max(h', w')          (transformers 5.3 and
                                   later: PR #43972, "Unify 3D position ids")
        ``resume="original"``:     1 + the block's largest id    (Qwen2-VL's release,
                                   transformers 4.45: ``llm_pos_ids_list[-1].max() + 1``;
                                   Qwen2.5-VL's release, transformers 4.49, the same;
                                   transformers up to 5.2: the rule the models were
                                   trained with)

    They differ when the block's largest id is its time id: a video with
    (t' - 1) dt + 1 > max(h', w'), e.g. more temporal patches than the merged
    grid's side. transformers' rule then gives the following text ids inside the
    range of the video's time ids (with dt > 1 not always ids a patch has, but ids
    that say "during the video"); the original rule never reuses an id. Generation
    continues from the prompt's largest id + 1 under either rule (``rope_deltas`` =
    largest id + 1 - prompt length), so with transformers' rule the first generated
    token jumps past the last text id.

    Two vision blocks with no text between them are laid out one after the other,
    as the original release does. transformers 5.3+ groups consecutive tokens of
    one modality, so two adjacent images fail there (a shape error); real prompts
    put <|vision_start|> and <|vision_end|> text tokens around every block.

    Args:
        segments: the sequence, in order (at most 1,000,000 tokens).
        spatial_merge_size: s, 1 ... 8 (2 in every Qwen-VL), dividing every h and w.
        resume: "transformers" (default) or "original".
        tokens_per_second: None for Qwen2-VL; Qwen2.5-VL's configs use 2.
        second_per_grid_t: seconds per temporal patch (temporal_patch_size / fps).
    Returns:
        ``(3, seq)`` int64 tensor: rows t, h, w.
    """
    ids, _ = _layout(segments, spatial_merge_size, resume, tokens_per_second, second_per_grid_t)
    return ids


def mrope_blocks(segments, *, spatial_merge_size: int = 2, resume: str = "transformers",
                 tokens_per_second: float | None = None,
                 second_per_grid_t: float = 1.0) -> pd.DataFrame:
    """One row per segment of :func:`mrope_position_ids`: its kind, grid before and after
    merging, first token index, the id it starts from, its largest id and the id the
    next segment starts from (where the text resumes)."""
    _, records = _layout(segments, spatial_merge_size, resume, tokens_per_second,
                         second_per_grid_t)
    merge = int(spatial_merge_size)
    grids = [r["grid"] for r in records]  # (None, None, None) for text

    def whole(values: list) -> pd.api.extensions.ExtensionArray:  # empty for text
        return pd.array(values, dtype="Int64")

    def merged(axis: int) -> list:
        return [None if g[axis] is None else g[axis] // merge for g in grids]

    # built column by column: a frame from row dicts plus six astype calls cost 3x more
    return pd.DataFrame({
        "segment": list(range(len(records))), "kind": [r["kind"] for r in records],
        "grid t": whole([g[0] for g in grids]), "grid h": whole([g[1] for g in grids]),
        "grid w": whole([g[2] for g in grids]),
        "merged t": whole([g[0] for g in grids]), "merged h": whole(merged(1)),
        "merged w": whole(merged(2)),
        "tokens": [r["tokens"] for r in records],
        "first token": [r["first_token"] for r in records],
        "start id": [r["start"] for r in records],
        "largest id": [r["largest"] for r in records],
        "next start id": [r["next_id"] for r in records]})


# ------------------------------------------------------- which pairs read which id ----
def _check_section(section, pairs: int | None = None) -> tuple[int, int, int]:
    if isinstance(section, (str, bytes)) or not hasattr(section, "__len__") or len(section) != 3:
        fail("mrope_section", section, "three pair counts (t, h, w)")
    out = tuple(check_int(v, f"mrope_section[{n}]", 0, MAX_DIM // 2)
                for n, v in enumerate(section))
    if sum(out) < 1:
        fail("mrope_section", section, "three pair counts (t, h, w) with a positive sum")
    if pairs is not None and sum(out) != pairs:
        fail("mrope_section", section, "three pair counts summing to dim/2 = {pairs}",
             pairs=pairs)
    return out


def mrope_pair_axes(mrope_section, *, interleaved: bool = False) -> torch.Tensor:
    """The axis (0 = t, 1 = h, 2 = w) whose id pair i reads, i = 0 ... P - 1,
    P = sum(mrope_section) = dim/2.

    Contiguous (Qwen2-VL, Qwen2.5-VL; ``mrope_section`` = (s_t, s_h, s_w)):
        axis(i) = t for i < s_t,  h for s_t <= i < s_t + s_h,  w after.
    Interleaved (Qwen3-VL, ``mrope_interleaved``):
        axis(i) = h for i = 1, 4, 7, ... < 3 s_h;   w for i = 2, 5, 8, ... < 3 s_w;
        t for every other pair (0, 3, 6, ... and the pairs past 3 max(s_h, s_w)),
    as transformers' ``Qwen3VLTextRotaryEmbedding.recomposition_frequencies``. So
    each axis gets pairs from the fastest to the slowest, not one band of them.

    Args:
        mrope_section: (s_t, s_h, s_w) pair counts, e.g. (16, 24, 24) or (24, 20, 20).
        interleaved: Qwen3-VL's allocation (needs 3 s_h <= P and 3 s_w <= P).
    Returns:
        ``(P,)`` int64 tensor of 0, 1, 2.
    """
    s_t, s_h, s_w = _check_section(mrope_section)
    pairs = s_t + s_h + s_w
    if not isinstance(interleaved, bool):
        fail("interleaved", interleaved, "True or False")
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3), torch.tensor([s_t, s_h, s_w]))  # (P,)
    for n, s in ((1, s_h), (2, s_w)):
        if 3 * s > pairs:
            fail(f"mrope_section[{n}]", s,
                 "at most P/3 = {most} for the interleaved allocation (P = {pairs} pairs)",
                 most=pairs // 3, pairs=pairs)
    axes = torch.zeros(pairs, dtype=torch.int64)  # (P,)
    axes[1:3 * s_h:3] = 1
    axes[2:3 * s_w:3] = 2
    return axes


def scaled_mrope_section(model: str, dim: int) -> tuple[int, int, int]:
    """A model's ``mrope_section`` (given for d = 128) carried to head dim ``dim``:

        s_h = floor(P S_h / 64),  s_w = floor(P S_w / 64),  s_t = P - s_h - s_w,
        P = dim/2,

    which is the model's own section at d = 128 and keeps its shares elsewhere
    (a small d may leave an axis no pair).

    Args:
        model: "qwen2_vl" (16, 24, 24) or "qwen3_vl" (24, 20, 20).
        dim: even head dim.
    """
    model = check_choice(model, "model", tuple(MROPE_SECTIONS))
    pairs = check_dim(dim) // 2
    base_t, base_h, base_w = MROPE_SECTIONS[model]
    total = base_t + base_h + base_w
    s_h, s_w = pairs * base_h // total, pairs * base_w // total
    return (pairs - s_h - s_w, s_h, s_w)


def axial_pair_axes(dim: int) -> torch.Tensor:
    """2D axial RoPE: pairs 0 ... P/2 - 1 read the row (h, axis 1), pairs
    P/2 ... P - 1 the column (w, axis 2), P = dim/2, as Qwen2-VL's vision encoder
    (``Qwen2VLVisionRotaryEmbedding``: h frequencies, then w frequencies).

    Returns:
        ``(dim/2,)`` int64 tensor of 1 and 2.
    """
    pairs = _check_axial_dim(dim) // 2
    return torch.repeat_interleave(torch.tensor([1, 2]), pairs // 2)  # (P,)


def _check_axial_dim(dim) -> int:
    dim = check_dim(dim)
    if dim % 4:
        fail("dim", dim, "a multiple of 4 from 4 to {high} (half the pairs for each axis)",
             high=MAX_DIM)
    return dim


def axial_theta(dim: int, base: float, *, device=None,
                dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Frequencies of 2D axial RoPE: each axis is a 1D RoPE over half the head,

        theta_j = base^(-2j/(d/2)) = base^(-4j/d),   j = 0 ... d/4 - 1,

    once for the row pairs and once for the column pairs (see :func:`axial_pair_axes`).

    Returns:
        ``(dim/2,)`` tensor: (theta_0 ... theta_{d/4-1}, theta_0 ... theta_{d/4-1}).
    """
    dim = _check_axial_dim(dim)
    half = theta_of(dim // 2, base, device=device, dtype=dtype)  # (d/4,)
    return torch.cat([half, half])  # (d/2,)


# ----------------------------------------------------------------------- scores ----
def _check_axes(axes, theta: torch.Tensor) -> torch.Tensor:
    if not isinstance(axes, torch.Tensor) or axes.dtype != torch.int64 or axes.ndim != 1 \
            or axes.numel() != theta.numel():
        fail("axes", axes, "an int64 tensor of one axis (0, 1 or 2) per pair, length {pairs}",
             pairs=theta.numel())
    if axes.numel() and (int(axes.min()) < 0 or int(axes.max()) > 2):
        fail("axes", axes, "0, 1 or 2 (t, h, w) for every pair")
    return axes.to(theta.device)


def _check_ids(ids, name: str, last: int | None = None) -> torch.Tensor:
    """Integer ids, float64, on the CPU; ``last`` = the size of the last dim."""
    if not isinstance(ids, torch.Tensor):
        try:
            ids = torch.as_tensor(ids)
        except (TypeError, ValueError, RuntimeError):
            fail(name, ids, "integer position ids")
    if ids.dtype == torch.bool or ids.is_complex() or ids.ndim < 1:
        fail(name, ids, "integer position ids")
    if ids.dtype.is_floating_point and (not bool(torch.isfinite(ids).all())
                                        or not bool((ids == torch.round(ids)).all())):
        fail(name, ids, "integer position ids (whole numbers, no NaN or inf)")
    if ids.numel() and float(ids.abs().max()) > 1e9:
        fail(name, ids, "ids with absolute value at most {most}", most="1e+09")
    if last is not None and ids.shape[-1] != last:
        fail(f"{name}.shape[-1]", ids.shape[-1], "{last} (one id per axis t, h, w)", last=last)
    return ids.to(torch.float64)


def _check_vectors(q, k, theta: torch.Tensor):
    for name, v in (("q", q), ("k", k)):
        if not isinstance(v, torch.Tensor) or not v.dtype.is_floating_point or v.ndim != 1:
            fail(name, v, "a 1-D floating-point tensor of length dim")
        if v.shape[-1] != 2 * theta.numel():
            fail(f"{name}.shape[-1]", v.shape[-1], "2 * len(theta) = {width}",
                 width=2 * theta.numel())


def apply_mrope(x: torch.Tensor, position_ids, theta: torch.Tensor, axes: torch.Tensor, *,
                layout: str = "half") -> torch.Tensor:
    """Rotate each token's vector by its own ids: pair i of token s turns by

        angle[s, i] = position_ids[axis(i), s] * theta_i.

    With every axis equal (a text token) this is plain RoPE at that position.

    Args:
        x: ``(seq, dim)`` floating-point vectors.
        position_ids: ``(3, seq)`` integer ids (rows t, h, w).
        theta: ``(dim/2,)`` frequencies; ``axes``: ``(dim/2,)`` from
            :func:`mrope_pair_axes` or :func:`axial_pair_axes`.
        layout: "half" (pairs (i, i + d/2), as transformers' Qwen-VL) or "interleaved".
    Returns:
        ``(seq, dim)`` float64.
    """
    theta = check_theta(theta)
    axes = _check_axes(axes, theta)
    layout = check_layout(layout)
    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point or x.ndim != 2 \
            or x.shape[-1] != 2 * theta.numel():
        fail("x", x, "a floating-point tensor of shape (seq, {width})", width=2 * theta.numel())
    ids = _check_ids(position_ids, "position_ids")
    if ids.ndim != 2 or ids.shape != (3, x.shape[0]):
        fail("position_ids.shape", tuple(ids.shape), "(3, seq) = (3, {seq})", seq=x.shape[0])
    ids = ids.to(theta.device)
    angle = ids[axes].T * theta.to(torch.float64)  # (seq, d/2): id of pair i's axis * theta_i
    cos, sin = angle.cos(), angle.sin()
    x64 = x.to(theta.device, torch.float64)
    a, b = pair_views(x64, layout)  # (seq, d/2) each
    out = torch.empty_like(x64)
    out_a, out_b = pair_views(out, layout)
    out_a.copy_(a * cos - b * sin)
    out_b.copy_(a * sin + b * cos)
    return out


def mrope_score(q: torch.Tensor, k: torch.Tensor, distance, theta: torch.Tensor,
                axes: torch.Tensor, *, layout: str = "half") -> torch.Tensor:
    """Score between a query with ids a and a key with ids b, for each ``distance``
    r = b - a (one difference per axis):

        <R(a) q, R(b) k> = sum_i along_i cos(r[axis(i)] theta_i)
                                 + across_i sin(r[axis(i)] theta_i),
        along_i = q_a k_a + q_b k_b,   across_i = q_b k_a - q_a k_b

    for pair i's coordinates (a, b). It depends on the differences only.

    Args:
        q, k: ``(dim,)`` vectors.
        distance: ``(..., 3)`` integer id differences (t, h, w), key minus query.
        theta, axes: ``(dim/2,)`` each.
    Returns:
        ``(...)`` float64 scores.
    """
    theta = check_theta(theta)
    axes = _check_axes(axes, theta)
    layout = check_layout(layout)
    _check_vectors(q, k, theta)
    r = _check_ids(distance, "distance", last=3).to(theta.device)  # (..., 3)
    q_a, q_b = pair_views(q.to(theta.device, torch.float64), layout)  # (d/2,)
    k_a, k_b = pair_views(k.to(theta.device, torch.float64), layout)
    along = q_a * k_a + q_b * k_b  # (d/2,)
    across = q_b * k_a - q_a * k_b
    th = theta.to(torch.float64)
    out = torch.zeros(r.shape[:-1], dtype=torch.float64, device=theta.device)  # (...)
    # The sum splits by axis: score = sum_a f_a(r[..., a]), each f_a over its own pairs.
    # So each f_a is evaluated once per distinct difference (a grid has few), not per cell.
    for a in range(3):
        mine = axes == a  # (d/2,)
        if not bool(mine.any()):
            continue
        values, where = torch.unique(r[..., a], return_inverse=True)  # (U,), (...)
        th_a, along_a, across_a = th[mine], along[mine], across[mine]  # (P_a,)
        f = torch.empty_like(values)  # (U,)
        rows = max(1, _GRAIN // th_a.numel())
        for start in range(0, values.numel(), rows):
            angle = torch.outer(values[start:start + rows], th_a)  # (rows, P_a)
            f[start:start + rows] = angle.cos() @ along_a + angle.sin() @ across_a
        out += f[where]
    return out


def patch_distances(height: int, width: int, row: int, col: int, scheme: str) -> torch.Tensor:
    """Id differences (key minus query) from the query patch (row, col) to every patch
    (r, c) of a height x width grid:

        "flat"  (1D, row-major p = r*width + c):  (p - p0, p - p0, p - p0)
        "axial", "mrope" (one image, t = 0):      (0, r - row, c - col)

    Returns:
        ``(height, width, 3)`` int64.
    """
    height = check_int(height, "height", 1, MAX_GRID)
    width = check_int(width, "width", 1, MAX_GRID)
    row = check_int(row, "row", 0, height - 1)
    col = check_int(col, "col", 0, width - 1)
    scheme = check_choice(scheme, "scheme", SCHEMES)
    r = torch.arange(height).view(-1, 1).expand(height, width) - row  # (h, w)
    c = torch.arange(width).view(1, -1).expand(height, width) - col  # (h, w)
    if scheme == "flat":
        p = r * width + c  # (h, w): flattened distance
        return torch.stack([p, p, p], dim=-1)
    return torch.stack([torch.zeros_like(r), r, c], dim=-1)  # (h, w, 3)


def scheme_frequencies(scheme: str, dim: int, base: float, *, model: str = "qwen2_vl"):
    """(theta, axes) of a scheme at head dim ``dim``: "flat" plain RoPE (every pair on
    axis t), "axial" :func:`axial_theta` / :func:`axial_pair_axes`, "mrope" theta_i =
    base^(-2i/d) with ``model``'s allocation (:func:`scaled_mrope_section`).

    Returns:
        ``(theta, axes)``, each ``(dim/2,)``.
    """
    scheme = check_choice(scheme, "scheme", SCHEMES)
    if scheme == "axial":
        return axial_theta(dim, base), axial_pair_axes(dim)
    theta = theta_of(dim, base)
    if scheme == "flat":
        return theta, torch.zeros(theta.numel(), dtype=torch.int64)
    section = scaled_mrope_section(model, dim)
    return theta, mrope_pair_axes(section, interleaved=MROPE_INTERLEAVED[model])


def patch_scores(q: torch.Tensor, k: torch.Tensor, height: int, width: int, row: int, col: int,
                 *, scheme: str, base: float, model: str = "qwen2_vl",
                 layout: str = "half") -> torch.Tensor:
    """The score of the query patch (row, col) with every patch of the grid:
    :func:`mrope_score` over :func:`patch_distances` with the frequencies of
    :func:`scheme_frequencies` (dim = len(q)).

    Returns:
        ``(height, width)`` float64.
    """
    if not isinstance(q, torch.Tensor) or q.ndim != 1:
        fail("q", q, "a 1-D floating-point tensor of length dim")
    dim = check_dim(q.shape[0], "q.shape[0]")
    theta, axes = scheme_frequencies(scheme, dim, check_base(base), model=model)
    distance = patch_distances(height, width, row, col, scheme)  # (h, w, 3)
    return mrope_score(q, k, distance, theta, axes, layout=layout)


# ----------------------------------------------------------------------- tables ----
def pair_axes_table(dim: int, base: float) -> pd.DataFrame:
    """One row per pair: theta_i, wavelength 2 pi/theta_i and the axis it reads under
    Qwen2-VL's contiguous and Qwen3-VL's interleaved allocation (scaled to ``dim``)."""
    theta = theta_of(dim, base)  # (d/2,)
    columns = {"pair i": torch.arange(theta.numel()), "theta_i [rad/token]": theta,
               "wavelength [ids]": 2 * math.pi / theta}
    for model in MROPE_SECTIONS:
        axes = mrope_pair_axes(scaled_mrope_section(model, dim),
                               interleaved=MROPE_INTERLEAVED[model])
        columns[f"axis {model}"] = [AXES[a] for a in axes.tolist()]
    return to_frame(columns, base=base, dim=dim)


def axis_coverage_table(dim: int, base: float, spans: tuple) -> pd.DataFrame:
    """Per model and axis: the pairs it gets, its fastest and slowest wavelength, the
    span of ids it must cover (``spans`` = (t, h, w) id ranges, largest minus smallest
    id + 1), the largest id distance D = span - 1 between two of its tokens, and how many
    of its pairs turn at least once over that distance (D theta_i >= 2 pi: wavelength
    <= D) or less than a quarter turn (D theta_i < pi/2: wavelength > 4 D; every pair
    when D = 0). Two ids ``span`` apart do not occur: the farthest are D apart."""
    theta = theta_of(dim, base)
    wave = 2 * math.pi / theta  # (d/2,)
    if not isinstance(spans, (tuple, list)) or len(spans) != 3:
        fail("spans", spans, "three id spans (t, h, w)")
    spans = tuple(check_int(s, f"spans[{n}]", 1, 10**9) for n, s in enumerate(spans))
    columns: dict[str, list] = {name: [] for name in (
        "model", "axis", "pairs", "fastest wavelength [ids]", "slowest wavelength [ids]",
        "span [ids]", "largest distance [ids]", "pairs turning at least once",
        "pairs under a quarter turn")}
    for model in MROPE_SECTIONS:
        section = scaled_mrope_section(model, dim)
        axes = mrope_pair_axes(section, interleaved=MROPE_INTERLEAVED[model])
        for a, axis in enumerate(AXES):
            mine = wave[axes == a]
            for name, value in (
                    ("model", model), ("axis", axis), ("pairs", int(mine.numel())),
                    ("fastest wavelength [ids]", float(mine.min()) if mine.numel()
                     else math.nan),
                    ("slowest wavelength [ids]", float(mine.max()) if mine.numel()
                     else math.nan),
                    ("span [ids]", spans[a]), ("largest distance [ids]", spans[a] - 1),
                    ("pairs turning at least once", int((mine <= spans[a] - 1).sum())),
                    ("pairs under a quarter turn", int((mine > 4 * (spans[a] - 1)).sum()))):
                columns[name].append(value)
    rows = len(columns["model"])
    # one frame from columns: from row dicts plus two inserts it cost twice as much
    return pd.DataFrame({"base": [int(base) if float(base).is_integer() else base] * rows,
                         "dim": [dim] * rows, **columns})


def patch_score_table(q: torch.Tensor, k: torch.Tensor, height: int, width: int, row: int,
                      col: int, *, base: float, model: str = "qwen2_vl",
                      layout: str = "half", **labels) -> pd.DataFrame:
    """One row per patch: its row and column, the 1D (row-major) distance and the
    row/column differences from the query, and its score under the three schemes
    (the axial column is empty when dim is not a multiple of 4)."""
    if not isinstance(q, torch.Tensor) or q.ndim != 1:
        fail("q", q, "a 1-D floating-point tensor of length dim")
    dim = check_dim(q.shape[0], "q.shape[0]")
    flat = patch_distances(height, width, row, col, "flat")[..., 0]  # (h, w)
    grid = patch_distances(height, width, row, col, "mrope")  # (h, w, 3)
    scores = {}
    for scheme in SCHEMES:
        if scheme == "axial" and dim % 4:
            scores[scheme] = torch.full((height, width), math.nan, dtype=torch.float64)
            continue
        scores[scheme] = patch_scores(q, k, height, width, row, col, scheme=scheme, base=base,
                                      model=model, layout=layout)
    rr, cc = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    return to_frame({"row": rr.flatten(), "col": cc.flatten(),
                     "distance 1D [tokens]": flat.flatten(),
                     "row difference": grid[..., 1].flatten(),
                     "col difference": grid[..., 2].flatten(),
                     "score flat": scores["flat"].flatten(),
                     "score axial 2D": scores["axial"].flatten(),
                     "score M-RoPE": scores["mrope"].flatten()},
                    **labels, base=base, dim=dim, layout=layout, model=model,
                    height=height, width=width, **{"query row": row, "query col": col})

