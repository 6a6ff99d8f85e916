"""The lesson's opening, the derivation and RoPE's place in a model, as tables.

Three pages of the lesson draw from here:

* *Why positions*: attention without positions is permutation-equivariant
  (:func:`toy_embeddings`, :func:`toy_projections`, :func:`attention_output`,
  :func:`shuffle_projections`, :func:`shuffle_tables`);
* *Derivation*: RoFormer section 3.4.1 (RoPE itself is stated in 3.2), each step
  checked on the app's own rotation (:func:`derivation_checks`);
* *Where RoPE sits*: the KV cache holds keys rotated once (:func:`kv_cache_tables`),
  and the interleaved and half layouts differ by a fixed permutation of the
  rows of W_q and W_k (:func:`half_permutation`, :func:`permute_for_half`,
  :func:`layout_tables`).

Everything is computed in float64 on the CPU (the tensors are tiny). Table
builders put their settings first, as constant columns (see rope_core.teaching.tables).
Notation: pair index i, coordinate index j, query position m, key position n,
imaginary unit iota (never i).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
import torch

from ..rotary.attention import attention
from ..rotary.frequencies import theta as theta_of
from ..rotary.rotation import apply_rope, apply_rope_complex, layout_permutation, rotation_matrix
from ..support._checks import check_base, check_dim, check_int, check_layout, fail
from ..support.frames import labels, to_frame

MAX_TOKENS = 16  # words in a toy sentence
MAX_POSITION = 10**6  # positions of the derivation's checks
MAX_SEQ = 64  # tokens of the KV-cache check
MAX_HEADS = 16
MAX_SEED = 2**31 - 1

# A sentence and the shuffle that swaps who does what: shuffled[t] = words[order[t]].
TOY_SENTENCES: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {
    "dog bites man": (("dog", "bites", "man"), (2, 1, 0)),
    "the cat chased the mouse": (("the", "cat", "chased", "the", "mouse"), (0, 4, 2, 3, 1)),
    "alice gave bob a book": (("alice", "gave", "bob", "a", "book"), (2, 1, 0, 3, 4)),
}
ENCODINGS = ("none", "rope")


# ------------------------------------------------------------ Why positions ----
def _check_words(words) -> tuple[str, ...]:
    if isinstance(words, str) or not isinstance(words, Sequence) or not words or \
            len(words) > MAX_TOKENS or not all(isinstance(w, str) and w for w in words):
        fail("words", words, "a sequence of 1 to {n} non-empty strings", n=MAX_TOKENS)
    return tuple(words)


def _check_order(order, length: int) -> tuple[int, ...]:
    """A permutation of 0 ... length-1."""
    if isinstance(order, str) or not isinstance(order, Sequence) or \
            sorted(order) != list(range(length)) or \
            not all(isinstance(t, int) and not isinstance(t, bool) for t in order):
        fail("order", order, "a permutation of 0 ... {last} (one index per word)",
             last=length - 1)
    return tuple(order)


def toy_embeddings(words: Sequence[str], dim: int, seed: int) -> torch.Tensor:
    """One N(0, 1) vector per distinct word; a repeated word gets the same vector.

    The vocabulary is the sorted set of ``words``, so any shuffle of the same
    words reuses the same vectors: x[t] = E[vocab.index(words[t])].

    Returns:
        ``(len(words), dim)`` float64 tensor.
    """
    words = _check_words(words)
    dim = check_dim(dim)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    vocab = sorted(set(words))
    g = torch.Generator().manual_seed(seed)
    table = torch.randn(len(vocab), dim, generator=g, dtype=torch.float64)  # (V, dim)
    return table[[vocab.index(w) for w in words]]  # (seq, dim)


def toy_projections(dim: int, seed: int, in_dim: int | None = None):
    """Random W_q, W_k, W_v with entries N(0, 1/in_dim) (seed ``seed`` + 1).

    The 3 dim in_dim normals are drawn in float32 (checkpoints store weights in
    float32 or narrower) and the head computes in float64: PyTorch draws float32
    normals about four times faster than float64 ones (3 d² at d = 1024: 14 ms
    against 55 ms on a 2-core server), and this draw was most of the landing
    page's run.

    Returns:
        ``(w_q, w_k, w_v)``, each ``(dim, in_dim)`` float64 (in_dim = dim by default):
        q = W_q x, so a batch of rows is ``x @ w_q.T``.
    """
    dim = check_dim(dim)
    seed = check_int(seed, "seed", 0, MAX_SEED - 1)
    in_dim = dim if in_dim is None else check_int(in_dim, "in_dim", 1, 4096)
    g = torch.Generator().manual_seed(seed + 1)
    w = torch.randn(3, dim, in_dim, generator=g, dtype=torch.float32).to(torch.float64)
    w.div_(math.sqrt(in_dim))  # in place: the same numbers without a second 3 d² buffer
    return w[0], w[1], w[2]


def attention_output(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor,
                     w_v: torch.Tensor, theta: torch.Tensor | None = None, *,
                     layout: str = "interleaved") -> torch.Tensor:
    """One attention head without a mask: softmax(q k^T / sqrt(d)) v.

    q = x W_q^T, k = x W_k^T, v = x W_v^T, token t at position t; with ``theta``
    q and k are rotated by RoPE (v never is), without it the head sees no
    position at all.

    Args:
        x: ``(seq, in_dim)``; w_q, w_k, w_v: ``(dim, in_dim)``.
    Returns:
        ``(seq, dim)`` float64: row t is what token t reads from the others.
    """
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or not x.dtype.is_floating_point:
        fail("x", x, "a floating-point tensor of shape (seq, in_dim)")
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        if not isinstance(w, torch.Tensor) or w.ndim != 2 or w.shape[1] != x.shape[1]:
            fail(name, w, "a tensor of shape (dim, {in_dim})", in_dim=x.shape[1])
    if w_q.shape != w_k.shape:
        fail("w_k.shape", tuple(w_k.shape), "equal to w_q.shape = {shape}",
             shape=str(tuple(w_q.shape)))
    return _head(*_projections(x, w_q, w_k, w_v), theta, layout=layout)


def _projections(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor,
                 w_v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """q = x W_q^T, k = x W_k^T, v = x W_v^T in float64, each ``(seq, dim)``."""
    x = x.to(torch.float64)
    return x @ w_q.T.double(), x @ w_k.T.double(), x @ w_v.T.double()


def _head(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, theta: torch.Tensor | None, *,
          layout: str) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v, q and k rotated when ``theta`` is given: ``(seq, dim)``."""
    _, weights = attention(q, k, theta, causal=False, layout=layout)  # (seq, seq)
    return weights @ v  # (seq, dim)


def shuffle_projections(words: tuple, order: tuple, dim: int, seed: int) -> tuple:
    """The toy head's projections of a sentence and of its shuffle: with
    x = toy_embeddings(words, dim, seed) and W_q, W_k, W_v = toy_projections(dim, seed),

        (q, k, v) = (x W_qᵀ, x W_kᵀ, x W_vᵀ),  and the same of P x, (P x)[t] = x[order[t]].

    They depend on neither the base nor the layout: a caller that keeps them
    (:func:`shuffle_tables`' ``projections``) draws the d × d projections once per
    sentence, head dim and seed.

    Returns:
        ``((q, k, v), (q′, k′, v′))``, each ``(len(words), dim)`` float64.
    """
    words = _check_words(words)
    order = _check_order(order, len(words))
    dim = check_dim(dim)
    x = toy_embeddings(words, dim, seed)  # (seq, dim)
    w_q, w_k, w_v = toy_projections(dim, seed)
    perm = torch.tensor(order)  # (seq,)
    return _projections(x, w_q, w_k, w_v), _projections(x[perm], w_q, w_k, w_v)


def _outline(value):
    """Tensors nested in tuples or lists as their dtype and shape ("float64[3, 4]"), for
    an error message (their values would run to pages)."""
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).removeprefix('torch.')}{list(value.shape)}"
    if isinstance(value, (tuple, list)):
        return type(value)(_outline(v) for v in value)
    return value


def _check_projections(projections, seq: int, dim: int) -> tuple:
    """A pair of (q, k, v) triples, each a (seq, dim) float64 tensor."""
    if not (isinstance(projections, tuple) and len(projections) == 2 and all(
            isinstance(p, tuple) and len(p) == 3 and all(
                isinstance(t, torch.Tensor) and t.dtype == torch.float64
                and tuple(t.shape) == (seq, dim) for t in p) for p in projections)):
        fail("projections", _outline(projections), "two triples (q, k, v) of float64 "
             "tensors of shape ({seq}, {dim}), as shuffle_projections returns them",
             seq=seq, dim=dim)
    return projections


def shuffle_tables(words: tuple, order: tuple, dim: int, base: float, layout: str,
                   seed: int, projections: tuple | None = None) -> dict[str, pd.DataFrame]:
    """Attention outputs of a sentence and of its shuffle, without and with RoPE.

    The shuffle puts word ``order[t]`` at position t: x' = P x with
    (P y)[t] = y[order[t]]. Without positions the head is permutation-equivariant,

        out(P x) = P out(x),

    so every output row moves with its token and nothing else changes; with
    RoPE on q and k the rows change too.

    ``projections``: :func:`shuffle_projections` of the same words, order, dim and
    seed, kept by the caller (None: computed here); the tables are the same.

    Returns a dict of two tables:
      ``"outputs"``: one row per (encoding, token t of the shuffle, coordinate j):
      out(P x)[t, j] next to (P out(x))[t, j];
      ``"summary"``: one row per encoding: max |out(P x) - P out(x)|.
    """
    words = _check_words(words)
    order = _check_order(order, len(words))
    dim = check_dim(dim)
    base = check_base(base)
    layout = check_layout(layout)
    theta = theta_of(dim, base)
    perm = torch.tensor(order)  # (seq,)
    settings = dict(sentence=" ".join(words), shuffled=" ".join(words[t] for t in order),
                    base=base, dim=dim, layout=layout, seed=seed)
    seq = len(words)
    frames, gaps = [], []
    # the projections of the sentence and of its shuffle, shared by both encodings
    # (attention_output's own steps, each computed once)
    if projections is None:
        plain, shuffled = shuffle_projections(words, order, dim, seed)
    else:  # the seed they were drawn with, checked as toy_projections checks it
        check_int(seed, "seed", 0, MAX_SEED - 1)
        plain, shuffled = _check_projections(projections, seq, dim)
    for encoding in ENCODINGS:
        th = theta if encoding == "rope" else None
        out = _head(*plain, th, layout=layout)  # (seq, dim): attention_output(x, ...)
        out_shuffled = _head(*shuffled, th, layout=layout)  # attention_output(P x, ...)
        moved = out[perm]  # (seq, dim): P out(x)
        gaps.append(float((out_shuffled - moved).abs().max()))
        t = torch.arange(seq).repeat_interleave(dim)
        frames.append(to_frame({
            "word": labels(list(words), perm[t]),  # word order[t] of the sentence
            "position after shuffle [tokens]": t,
            "position in sentence [tokens]": perm[t],
            "coordinate j": torch.arange(dim).repeat(seq),
            "out(shuffled x)": out_shuffled.reshape(-1),
            "shuffled out(x)": moved.reshape(-1)}, **settings, encoding=encoding))
    summary = to_frame({"encoding": list(ENCODINGS),
                        "max |out(P x) - P out(x)|": gaps}, **settings)
    return {"outputs": pd.concat(frames, ignore_index=True), "summary": summary}


# --------------------------------------------------------------- Derivation ----
def _wrap(angle: float) -> float:
    """An angle in radians mapped to [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def derivation_checks(dim: int, base: float, layout: str, pair: int, m: int, n: int,
                      shift: int, seed: int) -> pd.DataFrame:
    """Every step of RoFormer's derivation (section 3.4.1), measured on RoPE itself.

    2-D part, pair ``pair`` of a random q, k (seed ``seed``, :func:`rope_core.toy_qk`
    draws) read as complex numbers q = |q| e^(iota phi_q), rotated by
    f(q, m) = q e^(iota m theta) with theta = theta_pair (``apply_rope_complex``):

      1. norm:  |f(q, m)| = |q|, and |f(q, m)| |f(k, n)| = |q| |k|;
      2. angle: Theta_f(q, m) - phi_q = psi(m) is the same for q and k;
      3. step:  psi(m) - psi(m - 1) = theta, hence psi(m) = m theta;
      4. score: Re[f(q, m) conj f(k, n)] = |q| |k| cos(phi_q - phi_k + (m - n) theta),
         a function of m - n only (the same at m + shift, n + shift).

    d-dim part, all d/2 pairs in layout ``layout`` (dense R_m of
    :func:`rope_core.rotation_matrix` against ``apply_rope``):

      5. (R_m q)^T (R_n k) = q^T R_(n-m) k at (m, n) and (m + shift, n + shift);
      6. max |R_m^T R_m - I| = 0 and |R_m q| = |q|.

    Angles are compared modulo 2 pi: ``difference`` is |wrap(value - expected)|
    for angle rows, |value - expected| otherwise.

    Returns:
        One row per check: settings, ``step``, ``check``, ``value``,
        ``expected``, ``difference``.
    """
    from ..rotary.attention import toy_qk

    dim = check_dim(dim)
    base = check_base(base)
    layout = check_layout(layout)
    pair = check_int(pair, "pair", 0, dim // 2 - 1)
    m = check_int(m, "m", -MAX_POSITION, MAX_POSITION)
    n = check_int(n, "n", -MAX_POSITION, MAX_POSITION)
    shift = check_int(shift, "shift", -MAX_POSITION, MAX_POSITION)
    q, k = toy_qk(1, dim, seed)  # (1, dim) each
    theta = theta_of(dim, base)  # (dim/2,)
    th = float(theta[pair])

    # 2-D: pair `pair` in the interleaved reading (coordinates 2i, 2i+1) as a complex number
    q2, k2 = q[:, 2 * pair:2 * pair + 2], k[:, 2 * pair:2 * pair + 2]  # (1, 2)
    one = theta[pair:pair + 1]  # (1,)

    def f(v: torch.Tensor, position: int) -> complex:
        out = apply_rope_complex(v, [position], one)[0]  # (2,)
        return complex(float(out[0]), float(out[1]))

    zq, zk = complex(*q2[0].tolist()), complex(*k2[0].tolist())
    phi_q, phi_k = math.atan2(zq.imag, zq.real), math.atan2(zk.imag, zk.real)

    def arg(z: complex) -> float:
        return math.atan2(z.imag, z.real)

    rows = []

    def add(step: int, check: str, value: float, expected: float, angle: bool = False):
        diff = abs(_wrap(value - expected)) if angle else abs(value - expected)
        rows.append((step, check, value, expected, diff))

    add(1, "|f(q, m)| vs |q|", abs(f(q2, m)), abs(zq))
    add(1, "|f(q, m)| |f(k, n)| vs |q| |k|", abs(f(q2, m)) * abs(f(k2, n)), abs(zq) * abs(zk))
    psi_q, psi_k = _wrap(arg(f(q2, m)) - phi_q), _wrap(arg(f(k2, m)) - phi_k)
    add(2, "psi(m) from q vs psi(m) from k [rad]", psi_q, psi_k, angle=True)
    add(2, "Theta_f(q, m) - Theta_f(k, n) vs phi_q - phi_k + (m - n) theta [rad]",
        _wrap(arg(f(q2, m)) - arg(f(k2, n))), _wrap(phi_q - phi_k + (m - n) * th), angle=True)
    add(3, "psi(m) - psi(m - 1) vs theta [rad]",
        _wrap(arg(f(q2, m)) - arg(f(q2, m - 1))), _wrap(th), angle=True)
    add(3, "psi(m) vs m theta [rad]", psi_q, _wrap(m * th), angle=True)
    score = (f(q2, m) * f(k2, n).conjugate()).real
    add(4, "Re[f(q, m) conj f(k, n)] vs |q| |k| cos(phi_q - phi_k + (m - n) theta)", score,
        abs(zq) * abs(zk) * math.cos(phi_q - phi_k + (m - n) * th))
    add(4, "Re[f(q, m) conj f(k, n)] vs the same at m + shift, n + shift", score,
        (f(q2, m + shift) * f(k2, n + shift).conjugate()).real)

    # d-dim: block-diagonal R_m, dense and element-wise
    relative = float(q[0] @ rotation_matrix(n - m, theta, layout=layout) @ k[0])

    def rotated_score(a: int, b: int) -> float:
        return float(apply_rope(q, [a], theta, layout=layout)[0] @
                     apply_rope(k, [b], theta, layout=layout)[0])

    add(5, "(R_m q)^T (R_n k) vs q^T R_(n-m) k", rotated_score(m, n), relative)
    add(5, "(R_(m+shift) q)^T (R_(n+shift) k) vs q^T R_(n-m) k",
        rotated_score(m + shift, n + shift), relative)
    r_m = rotation_matrix(m, theta, layout=layout)  # (dim, dim)
    add(6, "max |R_m^T R_m - I|", _orthogonality_error(r_m, layout), 0.0)
    add(6, "|R_m q| vs |q|", float(torch.linalg.vector_norm(apply_rope(q, [m], theta,
                                                                         layout=layout))),
        float(torch.linalg.vector_norm(q)))
    step, check, value, expected, diff = zip(*rows)
    return to_frame({"step": list(step), "check": list(check), "value": list(value),
                     "expected": list(expected), "difference": list(diff)},
                    base=base, dim=dim, layout=layout, **{"pair i": pair,
                    "theta_i [rad/token]": th, "m [tokens]": m, "n [tokens]": n,
                    "shift [tokens]": shift}, seed=seed)


def _orthogonality_error(r_m: torch.Tensor, layout: str) -> float:
    """max |R_m^T R_m - I| of a dense block-diagonal R_m, from its 2 x 2 blocks.

    Pair i occupies rows and columns (a, b) of the layout, and every other entry of
    its columns is an exact zero, so (R^T R)[u, v] for columns of different pairs is
    a sum of exact zeros, and for columns a, b of one pair it is the product of the
    pair's block [[R_aa, R_ab], [R_ba, R_bb]] with its transpose:

        (R^T R)_aa = R_aa^2 + R_ba^2,   (R^T R)_bb = R_ab^2 + R_bb^2,
        (R^T R)_ab = (R^T R)_ba = R_aa R_ab + R_ba R_bb,

    d/2 blocks instead of the dense product's d^3 multiplications (d = 1024: 0.3 ms
    against 40-60 ms). The dense product's value depended on the BLAS kernel's use of
    fused multiply-adds (in about 1 setting in 100 it differed from this one by one
    rounding, 1.1e-16 against 2.2e-16); both are rounding errors of float64.
    """
    half = r_m.shape[0] // 2
    i = torch.arange(half, device=r_m.device)
    a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)  # (dim/2,)
    raa, rab, rba, rbb = r_m[a, a], r_m[a, b], r_m[b, a], r_m[b, b]  # (dim/2,) each
    errors = torch.stack([(raa * raa + rba * rba - 1).abs(), (rab * rab + rbb * rbb - 1).abs(),
                          (raa * rab + rba * rbb).abs()])  # (3, dim/2)
    return float(errors.max())


def sign_check(dim: int, base: float, pair: int, m: int, n: int, seed: int) -> pd.DataFrame:
    """Which relative rotation the 2-D score equals: R((n - m) theta), not R((m - n) theta).

    For pair ``pair`` of the :func:`derivation_checks` vectors (theta = theta_pair):

        (R(m theta) q)^T (R(n theta) k) = q^T R(m theta)^T R(n theta) k = q^T R((n - m) theta) k

    while q^T R((m - n) theta) k, the matrix some write for the product, differs
    unless sin((m - n) theta) (q_0 k_1 - q_1 k_0) = 0.

    Returns:
        Three rows (settings, ``form``, ``value``): the rotated score and both
        candidate right-hand sides, each from an explicit 2 x 2 matrix.
    """
    from ..rotary.attention import toy_qk

    dim = check_dim(dim)
    base = check_base(base)
    pair = check_int(pair, "pair", 0, dim // 2 - 1)
    m = check_int(m, "m", -MAX_POSITION, MAX_POSITION)
    n = check_int(n, "n", -MAX_POSITION, MAX_POSITION)
    q, k = toy_qk(1, dim, seed)  # (1, dim) each
    th = float(theta_of(dim, base)[pair])
    q2, k2 = q[0, 2 * pair:2 * pair + 2], k[0, 2 * pair:2 * pair + 2]  # (2,) each

    def r(angle: float) -> torch.Tensor:
        c, s = math.cos(angle), math.sin(angle)
        return torch.tensor([[c, -s], [s, c]], dtype=torch.float64)  # (2, 2)

    forms = {"(R(m theta) q)^T (R(n theta) k)": float((r(m * th) @ q2) @ (r(n * th) @ k2)),
             "q^T R((n - m) theta) k": float(q2 @ r((n - m) * th) @ k2),
             "q^T R((m - n) theta) k": float(q2 @ r((m - n) * th) @ k2)}
    return to_frame({"form": list(forms), "value": list(forms.values())}, base=base, dim=dim,
                    **{"pair i": pair, "m [tokens]": m, "n [tokens]": n}, seed=seed)


# ----------------------------------------------------------- Where RoPE sits ----
def kv_cache_tables(dim: int, base: float, layout: str, seq: int,
                    seed: int) -> dict[str, pd.DataFrame]:
    """Decoding token by token with a KV cache that stores rotated keys.

    At step t the new token's key is rotated once, at its own position, and
    appended: the cache holds R_n k_n for n = 0 ... t. The query R_t q_t is
    scored against the cache as it is. Three ways to get the scores of row t:

      * ``recomputed``: the whole causal score matrix (R_m q_m)^T (R_n k_n) at once;
      * ``from cache``: (R_t q_t)^T cache[n] with cache[n] = R_n k_n;
      * ``cache rotated again``: a bug for contrast, rotating the cached keys by
        the current position t once more, (R_t q_t)^T R_t (R_n k_n) =
        q_t^T R_n k_n, which forgets the query's position.

    q = (seq, dim) and k from :func:`rope_core.toy_qk` (seed ``seed``).

    Returns a dict: ``"scores"`` (one row per (t, n), n <= t) and ``"summary"``
    (one row per way: max |score - recomputed|).
    """
    from ..rotary.attention import toy_qk

    dim = check_dim(dim)
    base = check_base(base)
    layout = check_layout(layout)
    seq = check_int(seq, "seq", 1, MAX_SEQ)
    q, k = toy_qk(seq, dim, seed)  # (seq, dim) each
    theta = theta_of(dim, base)
    positions = range(seq)
    rotated_q = apply_rope(q, positions, theta, layout=layout)  # (seq, dim): R_t q_t
    rotated_k = apply_rope(k, positions, theta, layout=layout)  # (seq, dim): R_n k_n
    full = rotated_q @ rotated_k.T  # (seq, seq)
    t_col, n_col, rec, cached, again = [], [], [], [], []
    for t in range(seq):
        # Rotation is element-wise, so row t of the batch is the key rotated once at
        # its own position, as a decoder appends it: the cache is rotated_k[:t + 1].
        cache = rotated_k[:t + 1]  # (t + 1, dim)
        query = rotated_q[t:t + 1]  # (1, dim)
        # the bug: every cached key rotated by t once more (one position, broadcast)
        twice = apply_rope(cache.unsqueeze(-2), [t], theta, layout=layout)[:, 0]  # (t + 1, dim)
        t_col += [t] * (t + 1)
        n_col += list(range(t + 1))
        rec.append(full[t, :t + 1])
        cached.append((query @ cache.T)[0])
        again.append((query @ twice.T)[0])
    rec, cached, again = torch.cat(rec), torch.cat(cached), torch.cat(again)
    settings = dict(base=base, dim=dim, layout=layout, seed=seed, **{"L [tokens]": seq})
    scores = to_frame({"t [tokens]": t_col, "n [tokens]": n_col, "recomputed": rec,
                       "from cache": cached, "cache rotated again": again}, **settings)
    summary = to_frame({"way": ["from cache", "cache rotated again"],
                        "max |score - recomputed|": [float((cached - rec).abs().max()),
                                                     float((again - rec).abs().max())]},
                       **settings)
    return {"scores": scores, "summary": summary}


def half_permutation(dim: int) -> torch.Tensor:
    """p with x_half = x_interleaved[p]: coordinate j of the half layout is
    coordinate p[j] of the interleaved one.

    p[c dim/2 + i] = 2 i + c for pair i and c in {0, 1}: (0, 2, 4, ..., 1, 3, 5, ...),
    the inverse of ``layout_permutation(dim, "half")``. Hence
    ``apply_rope(x[..., p], layout="half") == apply_rope(x, layout="interleaved")[..., p]``.

    Returns:
        ``(dim,)`` int64 tensor.
    """
    return torch.argsort(layout_permutation(check_dim(dim), "half"))


def permute_for_half(w: torch.Tensor, n_heads: int) -> torch.Tensor:
    """The rows of W_q or W_k reordered from Meta's interleaved layout to the half
    layout, per head, as Hugging Face's ``convert_llama_weights_to_hf.py`` does:

        w.view(n_heads, head_dim / 2, 2, in_dim).transpose(1, 2).reshape(out_dim, in_dim)

    Row c head_dim/2 + i of each head takes row 2 i + c: the rows of
    :func:`half_permutation` within every head.

    Args:
        w: ``(n_heads * head_dim, in_dim)`` with head_dim even.
    Returns:
        Tensor of w's shape, dtype and device.
    """
    n_heads = check_int(n_heads, "n_heads", 1, MAX_HEADS)
    if not isinstance(w, torch.Tensor) or w.ndim != 2 or w.shape[0] % (2 * n_heads):
        fail("w", w, "a 2-D tensor whose row count is a multiple of 2 * n_heads = {n}",
             n=2 * n_heads)
    out_dim, in_dim = w.shape
    return w.view(n_heads, out_dim // n_heads // 2, 2, in_dim).transpose(1, 2) \
        .reshape(out_dim, in_dim)


def layout_tables(dim: int, base: float, n_heads: int, in_dim: int, seq: int,
                  seed: int) -> dict[str, pd.DataFrame]:
    """The two layouts as one rotation up to a permutation, checked on a toy model.

    W_q, W_k: ``(n_heads * dim, in_dim)`` random (seed ``seed``), x: ``(seq, in_dim)``.
    Meta's checkpoint is used with the interleaved layout; the converted one,
    :func:`permute_for_half` of it, with the half layout. Per head h:

        q_half = (W_q x)[p],  scores_half = (R q_half)(R k_half)^T = scores_interleaved,

    because the same permutation of q and k leaves every dot product unchanged.

    Returns a dict:
      ``"pairs"``: one row per coordinate j of a head: its pair in each layout and
      p[j], the interleaved coordinate that the half layout puts at j;
      ``"checks"``: one row per check: ``check``, ``value`` (0 up to rounding,
      except the last, a contrast: the half layout on unconverted weights).
    """
    dim = check_dim(dim)
    base = check_base(base)
    n_heads = check_int(n_heads, "n_heads", 1, MAX_HEADS)
    in_dim = check_int(in_dim, "in_dim", 1, 256)
    seq = check_int(seq, "seq", 1, MAX_SEQ)
    seed = check_int(seed, "seed", 0, MAX_SEED - 1)
    p = half_permutation(dim)  # (dim,)
    j = torch.arange(dim)
    pairs = to_frame({"coordinate j": j, "pair i interleaved": j // 2,
                      "pair i half": j % (dim // 2), "p_j": p}, dim=dim)

    g = torch.Generator().manual_seed(seed)
    x = torch.randn(seq, in_dim, generator=g, dtype=torch.float64)
    w_q, w_k = torch.randn(2, n_heads * dim, in_dim, generator=g, dtype=torch.float64)
    theta = theta_of(dim, base)
    positions = range(seq)

    def heads(w: torch.Tensor) -> torch.Tensor:
        return (x @ w.T).unflatten(-1, (n_heads, dim)).transpose(0, 1)  # (heads, seq, dim)

    def scores(wq, wk, layout):
        q = apply_rope(heads(wq), positions, theta, layout=layout)
        k = apply_rope(heads(wk), positions, theta, layout=layout)
        return q @ k.transpose(-1, -2)  # (heads, seq, seq)

    meta = scores(w_q, w_k, "interleaved")
    hf_q, hf_k = permute_for_half(w_q, n_heads), permute_for_half(w_k, n_heads)
    hf = scores(hf_q, hf_k, "half")
    q_meta = heads(w_q)  # (heads, seq, dim)
    rope_inter = apply_rope(q_meta, positions, theta, layout="interleaved")
    rope_half = apply_rope(q_meta[..., p], positions, theta, layout="half")
    checks = {
        "max |W_q,half x - (W_q x)[p]| per head": float((heads(hf_q) - q_meta[..., p])
                                                         .abs().max()),
        "max |RoPE_half(q[p]) - RoPE_interleaved(q)[p]|": float(
            (rope_half - rope_inter[..., p]).abs().max()),
        "max |scores half (converted) - scores interleaved (Meta)|": float(
            (hf - meta).abs().max()),
        "max |scores half (not converted) - scores interleaved (Meta)|": float(
            (scores(w_q, w_k, "half") - meta).abs().max()),
    }
    table = to_frame({"check": list(checks), "value": list(checks.values())}, base=base,
                     dim=dim, n_heads=n_heads, in_dim=in_dim, **{"L [tokens]": seq},
                     seed=seed)
    return {"pairs": pairs, "checks": table}
