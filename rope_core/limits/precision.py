"""What low precision does to RoPE at long positions.

A floating-point type with p significant bits (float16: 11, bfloat16: 8,
float32: 24, float64: 53) holds every integer up to 2^p and, in the binade
[2^e, 2^(e+1)), only multiples of the spacing 2^(e - p + 1). A position m held
in such a type is rounded to the nearest multiple (ties to the even one), so
for bfloat16 positions 256 and 257 are the same number and at m ~ 10^6 (below
2^20) the spacing is 4096 tokens. float16 also overflows: positions >= 65520 become inf.

The angle errors are measured against a float64 reference m * theta_i with
theta_i = base^(-2i/d) computed in float64 (its own rounding, ~ m * theta_i *
2^-53 rad, is negligible next to any lower-precision recipe). For a partial
rotary model pass the rotary dim as ``dim`` (theta_i = base^(-2i/rotary_dim));
unrotated coordinates have no angle and add the same term to every score.

Positions are limited to |m| <= 10^7 and work to a bounded number of
(position x pair) elements per call, so that no call runs for minutes.
"""

from __future__ import annotations

from numbers import Integral

import torch

from ..rotary.frequencies import theta as _theta
from ..rotary.rotation import pair_views
from ..support._buffers import Buffers as _Buffers
from ..support._checks import (
    as_integer_positions,
    check_base,
    check_dim,
    check_layout,
    check_theta,
    fail,
)

DTYPES = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}

RECIPES = ("positions", "theta", "product", "cache", "float32_angles")

MAX_POSITION = 10**7
CHUNK_ELEMENTS = 1 << 15  # (positions x pairs) per block: 256 KiB per float64 plane
MAX_FULL_ELEMENTS = 1 << 20  # angle_error: P * dim/2 (8 MiB per returned tensor)
MAX_WORK_ELEMENTS = 1 << 28  # max_angle_error / relative_property_error: P * dim/2
MAX_SHIFTS = 10**6


def resolve_dtype(dtype, name: str = "dtype") -> torch.dtype:
    """A name in :data:`DTYPES` or one of its torch dtypes -> the torch dtype."""
    if isinstance(dtype, str) and dtype in DTYPES:
        return DTYPES[dtype]
    if isinstance(dtype, torch.dtype) and dtype in DTYPES.values():
        return dtype
    fail(name, dtype, "one of {choices} (or the matching torch dtype)",
         choices=", ".join(repr(k) for k in DTYPES))


def _positions(positions, name: str = "positions") -> torch.Tensor:
    return as_integer_positions(positions, name=name, max_abs=MAX_POSITION).cpu()


def _held(m64: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """float64 values -> held in dtype (one round-to-nearest-even) -> float64."""
    return m64.to(dtype).to(torch.float64)


def as_dtype_position(m, dtype):
    """What integer position(s) m become when held in ``dtype``.

        held(m) = the representable value nearest to m, ties to the one with an
                  even last significand bit (IEEE round-to-nearest-even);
                  float16 overflows to inf for |m| >= 65520.

    Integers up to 10^7 are exact in float64 and float32, so converting from
    them rounds exactly once.

    Args:
        m: an integer, or ``(P,)`` integers (tensor, range or list), |m| <= 10^7.
        dtype: "float64", "float32", "float16", "bfloat16" or the torch dtype.
    Returns:
        a float for a single integer, else a ``(P,)`` float64 tensor.
    """
    dtype = resolve_dtype(dtype)
    scalar = isinstance(m, Integral) and not isinstance(m, bool)
    t = _positions([m] if scalar else m, name="m")  # (P,)
    held = _held(t.to(torch.float64), dtype)  # (P,)
    return held.item() if scalar else held


def _precision_bits(dtype: torch.dtype) -> int:
    """p, the significand bits including the implicit one: eps = 2^(1-p)."""
    eps = torch.finfo(dtype).eps
    return 1 - int(torch.tensor(eps, dtype=torch.float64).log2().round().item())


def grid_spacing(positions, dtype) -> torch.Tensor:
    """Spacing of ``dtype``'s representable numbers around each position.

        spacing(m) = 2^(floor(log2 |m|) - p + 1)  (the gap in m's binade [2^e, 2^(e+1)))

    e.g. bfloat16 (p = 8): 1 on [128, 256), 2 on [256, 512). At m = 0 it is the
    smallest subnormal step 2^(e_min - p + 1); where the held value overflows
    (float16, |m| >= 65520) it is inf.

    Args:
        positions: ``(P,)`` integers, |m| <= 10^7.
        dtype: a name in :data:`DTYPES` or the torch dtype.
    Returns:
        ``(P,)`` float64 tensor, in tokens.
    """
    dtype = resolve_dtype(dtype)
    m = _positions(positions).to(torch.float64).abs()  # (P,)
    fi = torch.finfo(dtype)
    _, e = torch.frexp(m)  # m = mant * 2^e, mant in [0.5, 1): floor(log2 m) = e - 1
    spacing = torch.ldexp(torch.full_like(m, fi.eps), (e - 1).to(torch.float64))  # (P,)
    spacing = torch.where(m == 0, torch.full_like(m, fi.tiny * fi.eps), spacing)
    return torch.where(torch.isinf(_held(m, dtype)), torch.full_like(m, float("inf")), spacing)


def first_inexact_position(dtype) -> int:
    """The first positive integer ``dtype`` cannot hold: 2^p + 1.

    float16 2049, bfloat16 257, float32 16,777,217, float64 2^53 + 1.
    """
    dtype = resolve_dtype(dtype)
    return 2 ** _precision_bits(dtype) + 1


# ---------------------------------------------------------------- angle errors per recipe

def transformers_inv_freq(dim: int, base: float) -> torch.Tensor:
    """theta_i as Hugging Face transformers computes its ``inv_freq`` buffer, in float32:

        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))

    (``_compute_default_rope_parameters``): float32 arithmetic throughout, so each
    theta_i may differ from the correctly rounded fl32(base^(-2i/d)) by an ulp or so.

    Returns:
        ``(dim/2,)`` float32 tensor.
    """
    dim = check_dim(dim)
    base = check_base(base)
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float32) / dim))


def float32_angle_parts(position: int, dim: int, base: float):
    """The angle error of transformers' recipe (``"float32_angles"``) at one position,
    split into its two parts:

        fl32(m th32_i) - m theta_i = m (th32_i - theta_i) + (fl32(m th32_i) - m th32_i)
                                     offset_i             rounding_i

    th32 = :func:`transformers_inv_freq` (``inv_freq`` in float32), theta_i =
    base^(-2i/d) in float64. The offset is a fixed change of frequency, th32_i instead
    of theta_i, the same at every position: q and k (and a model trained with the same
    ``inv_freq``) share it, so scores still depend on n - m alone. The rounding differs
    from position to position, at most half float32's spacing at m th32_i
    (<= spacing(m) / 2 when th32_i <= 1): it is what breaks the relative property.
    m th32_i is exact in float64 (24 + 24 significant bits), so both parts are
    float64-exact up to one rounding each.

    Args:
        position: m, an integer 0 ... 10^7.
        dim: rotary dim, even, 2 ... 4096.
        base: RoPE base, > 1.
    Returns:
        ``(offset, rounding)``, each ``(dim/2,)`` float64, in radians.
    """
    if isinstance(position, bool) or not isinstance(position, Integral) or \
            not 0 <= position <= MAX_POSITION:
        fail("position", position, "an integer from 0 to {high}", high=MAX_POSITION)
    th64 = _theta(dim, base)  # (h,)
    th32 = transformers_inv_freq(dim, base)  # (h,) float32
    m = float(position)
    exact32 = m * th32.to(torch.float64)  # (h,): m th32_i, exact in float64
    angle32 = (torch.tensor([m], dtype=torch.float32)[:, None] * th32)[0]  # (h,), as transformers
    offset = m * (th32.to(torch.float64) - th64)  # (h,)
    return offset, angle32.to(torch.float64) - exact32


def relative_rounding_bound(dim: int, base: float, largest_position: int) -> float:
    """How far float64 rounding alone can move :func:`relative_property_error` with
    q = k = ones (w_i = 2 for every pair), positions up to P = ``largest_position``:

        2 sum_i w_i [4 u (P theta_i + 2) + 3 u] + d u sum_i w_i,   u = 2^-53

    (the bound in :func:`relative_property_error`'s docstring). A recipe whose score
    difference stays below it keeps the relative property up to float64's rounding:
    every recipe in float64 but ``"float32_angles"``, and ``"theta"`` in every dtype
    (a rounded theta_i is the same at both positions).

    Args:
        dim: rotary dim, even, 2 ... 4096.
        base: RoPE base, > 1.
        largest_position: P, an integer 0 ... 10^7.
    Returns:
        the bound, a float.
    """
    if isinstance(largest_position, bool) or not isinstance(largest_position, Integral) or \
            not 0 <= largest_position <= MAX_POSITION:
        fail("largest_position", largest_position, "an integer from 0 to {high}",
             high=MAX_POSITION)
    th = _theta(dim, base)  # (h,)
    u = 2.0 ** -53
    w = 2.0  # |q_a k_a + q_b k_b| + |q_b k_a - q_a k_b| with q = k = ones
    per_pair = 2 * w * (4 * u * (largest_position * th + 2) + 3 * u)  # (h,)
    return float(per_pair.sum()) + dim * u * w * th.numel()


MAX_DISTINCT_WORK = 1 << 26  # distinct_cos_sin: pairs x positions


def distinct_cos_sin(theta, length: int, dtype="bfloat16") -> torch.Tensor:
    """How many distinct (cos, sin) values each pair takes over positions 0 ... length - 1
    when RoPE's cache is built as transformers builds it (recipe ``"float32_angles"``):

        a_m = fl32(fl32(m) fl32(theta_i)),  value_m = (fl(cos32 a_m), fl(sin32 a_m))

    fl = the cast to ``dtype``. In exact arithmetic a pair that never completes a turn
    within the length has a different angle, so a different (cos, sin), at every position
    (``length`` values); a low-precision cache has far fewer: bfloat16 holds 128 values
    per binade, so a slow pair's small angles share their cos and sin between many
    positions.

    Args:
        theta: ``(h,)`` frequencies in rad/token (a float tensor; rounded to float32 as
            transformers' ``inv_freq``), 1 <= h.
        length: positions 0 ... length - 1, 1 ... 2^24 (exact in float32), with
            length * h <= 2^26.
        dtype: "bfloat16", "float16" or "float32" (or the torch dtype): the cache's dtype.
    Returns:
        ``(h,)`` int64 tensor, each count between 1 and ``length``.
    """
    th = check_theta(theta).to(torch.float32).cpu()  # (h,)
    if isinstance(length, bool) or not isinstance(length, Integral) or \
            not 1 <= length <= 2**24 or length * th.numel() > MAX_DISTINCT_WORK:
        fail("length", length, "an integer from 1 to {high} with length * pairs <= 2^26",
             high=min(2**24, MAX_DISTINCT_WORK // max(th.numel(), 1)))
    dtype = resolve_dtype(dtype)
    if dtype == torch.float64:
        fail("dtype", dtype, "bfloat16, float16 or float32 (a cache's dtype)")
    bits = {torch.float32: torch.int32}.get(dtype, torch.int16)  # the value's bit pattern
    m = torch.arange(length, dtype=torch.float32)  # (L,), exact below 2^24
    out = torch.empty(th.numel(), dtype=torch.int64)
    for i, t in enumerate(th.tolist()):  # one pair at a time: (L,) temporaries
        a = m * t  # (L,) float32, as position_ids.float() * inv_freq
        c = torch.cos(a).to(dtype).view(bits).to(torch.int64)  # (L,)
        s = torch.sin(a).to(dtype).view(bits).to(torch.int64)
        out[i] = torch.unique(c * (1 << 32) + s).numel()  # one key per (cos, sin)
    return out


def _recipe_angle_cos_sin(m64: torch.Tensor, th64: torch.Tensor, dtype: torch.dtype,
                          recipe: str, th32: torch.Tensor | None = None):
    """Angle, cos and sin of one recipe, all returned in float64. m64 (c,), th64 (h,);
    ``th32`` (h,) is :func:`transformers_inv_freq` (needed by "float32_angles")."""
    if recipe == "positions":
        angle = torch.outer(_held(m64, dtype), th64)  # (c, h)
    elif recipe == "theta":
        angle = torch.outer(m64, _held(th64, dtype))  # (c, h)
    elif recipe == "product":
        angle = torch.outer(m64.to(dtype), th64.to(dtype)).to(torch.float64)  # (c, h)
    elif recipe == "float32_angles":
        angle32 = torch.outer(m64.to(torch.float32), th32)  # (c, h) float32, as transformers
        cos = torch.cos(angle32).to(dtype).to(torch.float64)  # (c, h): float32 cos, cast
        sin = torch.sin(angle32).to(dtype).to(torch.float64)
        return angle32.to(torch.float64), cos, sin
    else:  # "cache"
        angle = torch.outer(m64, th64)  # (c, h)
    cos, sin = torch.cos(angle), torch.sin(angle)  # (c, h)
    if recipe in ("product", "cache"):
        cos, sin = _held(cos, dtype), _held(sin, dtype)
    return angle, cos, sin


def _hold_into(src: torch.Tensor, dtype: torch.dtype, out: torch.Tensor,
               buf: _Buffers) -> torch.Tensor:
    """``out`` = src.to(dtype).to(float64) (the same conversions, through a reused buffer);
    src and out ``(k, r, h)``."""
    low = buf.get("low", src.shape[0] * src.shape[1], src.shape[2], dtype)  # (k r, h)
    low = low.view(src.shape)
    low.copy_(src)
    return out.copy_(low)


class _Block:
    """The angle, cos and sin of every recipe at one block of positions p ``(c,)``
    (float64), each as one ``(3, c, h)`` float64 stack [angle, cos, sin] in ``buf``'s
    buffers (one operation does all three where it can), with what several (dtype,
    recipe) pairs have in common computed once: the exact angles p theta_i and their
    cos and sin (every recipe but "float32_angles" in float64, recipe "cache" in every
    dtype before its rounding, recipe "positions" at each position a dtype holds
    exactly) and the float32 angles and their float32 cos and sin (recipe
    "float32_angles" differs between dtypes only in the final cast). Recipes
    "positions" and "product" depend on p only through fl(p): where float16 overflows
    (fl(p) = inf, whose cos and sin are slow to compute) the rows are the same, and one
    is computed. What depends on theta alone (fl(theta_i) per dtype) is kept in
    ``buf.kept`` for the next blocks. Each value is the one
    :func:`_recipe_angle_cos_sin` gives, by the same operations on the same numbers
    (torch's elementwise operations give each element the same bits whatever the
    tensor around it; a float32 value converts to a dtype the same from float64)."""

    def __init__(self, p64: torch.Tensor, th64: torch.Tensor, th32: torch.Tensor,
                 buf: _Buffers) -> None:
        self.p64, self.th64, self.th32, self.buf = p64, th64, th32, buf  # (c,), (h,), (h,)
        self.c, self.h = p64.numel(), th64.numel()
        self._exact = self._f32 = None

    def _get(self, name: str, rows: int | None = None) -> torch.Tensor:
        """A ``(3, rows, h)`` float64 buffer (rows: c by default)."""
        rows = self.c if rows is None else rows
        return self.buf.get(name, 3 * rows, self.h).view(3, rows, self.h)

    def _theta(self, dtype: torch.dtype, kind: str) -> torch.Tensor:
        """theta_i in ``dtype`` (kind "low") or held in it, as float64 ("held"): (h,)."""
        key = (kind, dtype)
        if key not in self.buf.kept:
            low = self.th64.to(dtype)
            self.buf.kept[key] = low if kind == "low" else low.to(torch.float64)
        return self.buf.kept[key]

    def exact(self) -> torch.Tensor:
        """The exact angles p theta_i and their cos and sin: (3, c, h)."""
        if self._exact is None:
            x = self._get("x")  # (3, c, h)
            torch.outer(self.p64, self.th64, out=x[0])
            torch.cos(x[0], out=x[1])
            torch.sin(x[0], out=x[2])
            self._exact = x
        return self._exact

    def f32(self) -> torch.Tensor:
        """transformers' float32 angles and their float32 cos and sin, each exact in
        float64: (3, c, h)."""
        if self._f32 is None:
            a32 = self.buf.get("f_angle32", 3 * self.c, self.h, torch.float32)
            a32 = a32.view(3, self.c, self.h)
            torch.outer(self.p64.to(torch.float32), self.th32, out=a32[0])
            torch.cos(a32[0], out=a32[1])
            torch.sin(a32[0], out=a32[2])
            self._f32 = self._get("f").copy_(a32)
        return self._f32

    def _by_position(self, held: torch.Tensor, dtype: torch.dtype, recipe: str,
                     name: str) -> torch.Tensor:
        """Recipe "positions" or "product" at held positions ``(r,)`` (= fl(p), float64):
        (3, r, h) in buffer ``name``; the rows of equal positions computed once when
        float16 overflowed (several inf)."""
        r, inverse = held.numel(), None
        if r > 1 and bool(torch.isinf(held).any()):
            held, inverse = torch.unique(held, return_inverse=True)  # (u,), (r,)
        x = self._get(name if inverse is None else "u", held.numel())  # (3, u, h)
        if recipe == "positions":  # fl(p) theta_i in float64
            torch.outer(held, self.th64, out=x[0])
        else:  # "product": fl(fl(p) fl(theta_i)), the product in the dtype
            low = self.buf.get("low_angle", held.numel(), self.h, dtype)
            x[0].copy_(torch.outer(held.to(dtype), self._theta(dtype, "low"), out=low))
        torch.cos(x[0], out=x[1])
        torch.sin(x[0], out=x[2])
        if recipe == "product":  # cos and sin stored in the dtype
            _hold_into(x[1:], dtype, x[1:], self.buf)
        if inverse is None:
            return x
        return torch.index_select(x, 1, inverse, out=self._get(name, r))

    def inexact_positions(self, dtype: torch.dtype):
        """Recipe "positions": the rows whose position ``dtype`` does not hold exactly
        (the others are the exact rows) and their angle, cos and sin: None when there is
        none, else (rows, x): rows None when every row is inexact, else ``(r,)`` int64;
        x ``(3, r, h)``."""
        held = _held(self.p64, dtype)  # (c,)
        inexact = held != self.p64  # (c,): inf (float16 overflow) included
        r = int(inexact.sum())
        if r == 0:
            return None
        rows = None if r == self.c else inexact.nonzero().view(-1)  # (r,)
        return rows, self._by_position(held if rows is None else held[rows], dtype,
                                       "positions", "s")

    def recipe(self, dtype: torch.dtype, recipe: str):
        """(key, x): x the (3, c, h) angle, cos and sin of one recipe in ``dtype``;
        equal keys, equal numbers. Valid until the next call, but the exact and float32
        ones (keys "exact", "float32": every call's)."""
        if recipe == "float32_angles":
            f = self.f32()
            if dtype in (torch.float32, torch.float64):  # the cast changes nothing
                return "float32", f
            s = self._get("s")
            s[0].copy_(f[0])
            _hold_into(f[1:], dtype, s[1:], self.buf)
            return (recipe, dtype), s
        if dtype == torch.float64:  # fl() changes nothing: the exact angles
            return "exact", self.exact()
        if recipe == "cache":
            x, s = self.exact(), self._get("s")
            s[0].copy_(x[0])
            _hold_into(x[1:], dtype, s[1:], self.buf)
            return (recipe, dtype), s
        if recipe == "positions":
            got = self.inexact_positions(dtype)
            if got is None:
                return "exact", self.exact()
            rows, s = got
            if rows is not None:  # the exact rows, and the others in their places
                s = self._get("p").copy_(self.exact()).index_copy_(1, rows, s)
            return (recipe, dtype), s
        if recipe == "product":
            return (recipe, dtype), self._by_position(self.p64.to(dtype).to(torch.float64),
                                                      dtype, recipe, "s")
        # "theta": p fl(theta_i) in float64
        s = self._get("s")
        torch.outer(self.p64, self._theta(dtype, "held"), out=s[0])
        torch.cos(s[0], out=s[1])
        torch.sin(s[0], out=s[2])
        return (recipe, dtype), s


def _error_blocks_many(m: torch.Tensor, dim: int, base: float, combos):
    """For each chunk of positions and each (dtype, recipe) in ``combos``: the slice, the
    combination's index and its absolute angle, cos and sin errors, one (3, c, h)
    float64 stack (in a buffer reused for the next one: use it before it comes). What
    the combinations share is computed once per chunk (:class:`_Block`); recipe
    "positions" computes only the rows of the positions its dtype rounds (error 0 at
    the others). Each value is the one :func:`_recipe_angle_cos_sin` gives, computed
    the same way."""
    th64 = _theta(dim, base)  # (h,)
    th32 = transformers_inv_freq(dim, base)  # (h,)
    h = th64.numel()
    step = max(1, CHUNK_ELEMENTS // h)
    buf = _Buffers()
    for start in range(0, m.numel(), step):
        sl = slice(start, min(m.numel(), start + step))
        blk = _Block(m[sl].to(torch.float64), th64, th32, buf)  # (c,) positions
        ref = blk.exact()  # (3, c, h)
        err = buf.get("e", 3 * blk.c, h).view(3, blk.c, h)
        for k, (dtype, recipe) in enumerate(combos):
            if recipe == "positions":
                got = blk.inexact_positions(dtype)
                if got is None:  # every position held exactly: the reference itself
                    err.zero_()
                elif got[0] is None:  # none held exactly
                    torch.sub(got[1], ref, out=err).abs_()
                else:  # only the rows it rounds; the others are the reference's
                    rows, x = got
                    x.sub_(torch.index_select(ref, 1, rows, out=err[:, :len(rows)])).abs_()
                    err.zero_().index_copy_(1, rows, x)
            else:
                torch.sub(blk.recipe(dtype, recipe)[1], ref, out=err).abs_()
            yield sl, k, err




def _check_common(positions, dim, base, dtype, recipe):
    dim = check_dim(dim)
    base = check_base(base)
    dtype = resolve_dtype(dtype)
    if recipe not in RECIPES:
        fail("recipe", recipe, "one of {choices}", choices=", ".join(repr(r) for r in RECIPES))
    return _positions(positions), dim, base, dtype


def angle_error(positions, dim: int, base: float, dtype, recipe: str):
    """Error of RoPE's angle, cos and sin at each position and pair, for one recipe.

    Reference: a_ref = m * theta_i in float64, theta_i = base^(-2i/d) in float64.
    Recipes (what real code holds in ``dtype``; fl() = round to dtype):

    * ``"positions"``: a = fl(m) * theta_i (positions tensor in the dtype, the
      rest float64); cos a, sin a in float64.
    * ``"theta"``: a = m * fl(theta_i) (inv_freq in the dtype); cos, sin float64.
    * ``"product"``: a = fl(fl(m) * fl(theta_i)) (the whole cache built in the
      dtype, e.g. ``torch.outer(t, inv_freq)`` in bfloat16); cos and sin of that
      angle are stored in the dtype too: fl(cos a), fl(sin a).
    * ``"cache"``: a = a_ref exact, but the cos/sin cache stored in the dtype:
      fl(cos a_ref), fl(sin a_ref); the angle error is 0.
    * ``"float32_angles"``: what Hugging Face transformers does today. ``inv_freq``
      is built in float32 (:func:`transformers_inv_freq`, th32), the angles are
      formed in float32, a = fl32(fl32(m) th32_i) (5.x: ``position_ids.float() *
      inv_freq``, elementwise; 4.x: a float32 matmul with autocast off), cos and sin are
      taken in float32 and only they are cast to the model's dtype:
      fl(cos32 a), fl(sin32 a). The angle error is float32's whatever ``dtype``
      (a few hundredths of a radian at m = 10^6, where float32's spacing is 1/16:
      0.05 at d = 128, base 10^4; it varies with d and the base); with
      dtype float64 or float32 the cache adds nothing more. A model whose
      ``inv_freq`` buffer was cast to bfloat16 (``model.to(torch.bfloat16)`` casts
      buffers too) runs the ``"theta"`` recipe instead.

    fl() is torch's own conversion (``.to(dtype)``), which takes float64 to
    float16/bfloat16 through float32: for cos/sin values that double rounding
    can add up to 2^-25 to the half-ulp error, as it does in real code. Integer
    positions <= 10^7 are exact in float32, so for them fl() rounds once.

    Errors: |a - a_ref| in radians (not wrapped: an error of 2 pi k shows as
    such), |cos - cos a_ref|, |sin - sin a_ref|. In float16 an overflowing
    position or product becomes inf: angle error inf, cos/sin error NaN.
    With dtype float64 every recipe but ``"float32_angles"`` reproduces the
    reference exactly (0).

    Args:
        positions: ``(P,)`` integers, |m| <= 10^7, P * dim/2 <= 2^20 (use
            :func:`max_angle_error` for long position ranges).
        dim: rotary dim, even, 2 ... 4096.
        base: RoPE base, > 1.
        dtype: a name in :data:`DTYPES` or the torch dtype.
        recipe: one of :data:`RECIPES`.
    Returns:
        ``(angle_err, cos_err, sin_err)``, each ``(P, dim/2)`` float64.
    """
    m, dim, base, dtype = _check_common(positions, dim, base, dtype, recipe)
    h = dim // 2
    if m.numel() * h > MAX_FULL_ELEMENTS:
        fail("positions", m, "at most {n} positions at dim = {dim} (positions * dim/2 <= 2^20; "
             "max_angle_error reduces over pairs without this limit)",
             n=MAX_FULL_ELEMENTS // h, dim=dim)
    out = torch.empty(3, m.numel(), h, dtype=torch.float64)  # (3, P, h)
    for sl, _k, err in _error_blocks_many(m, dim, base, [(dtype, recipe)]):
        out[:, sl] = err
    return tuple(out)


def max_angle_errors(positions, dim: int, base: float, combos) -> dict:
    """:func:`max_angle_error` for several (dtype, recipe) pairs at once, sharing the float64
    reference (its angles, cos and sin) between them.

    Args:
        positions, dim, base: as :func:`max_angle_error`.
        combos: 1 to 20 pairs (dtype, recipe), dtypes as names or torch dtypes.
    Returns:
        {(dtype, recipe): (angle_err, cos_err, sin_err)}, each ``(P,)`` float64, keyed by
        the pairs as given.
    """
    combos = list(combos)
    if not 1 <= len(combos) <= 20 or not all(isinstance(c, tuple) and len(c) == 2
                                             for c in combos):
        fail("combos", combos, "1 to 20 pairs (dtype, recipe)")
    m, dim, base, _ = _check_common(positions, dim, base, "float64", "cache")
    resolved = []
    for d, r in combos:
        if r not in RECIPES:
            fail("recipe", r, "one of {choices}", choices=", ".join(repr(x) for x in RECIPES))
        resolved.append((resolve_dtype(d), r))
    if m.numel() * (dim // 2) > MAX_WORK_ELEMENTS:
        fail("positions", m, "at most {n} positions at dim = {dim} (positions * dim/2 <= 2^28, "
             "to bound the work)", n=MAX_WORK_ELEMENTS // (dim // 2), dim=dim)
    outs = torch.empty(len(combos), 3, m.numel(), dtype=torch.float64)  # (combos, 3, P)
    for sl, k, err in _error_blocks_many(m, dim, base, resolved):
        torch.amax(err, dim=-1, out=outs[k, :, sl])  # (3, c)
    return {c: tuple(v) for c, v in zip(combos, outs)}


def max_angle_error(positions, dim: int, base: float, dtype, recipe: str):
    """:func:`angle_error` reduced over pairs: max_i of each error, for plotting vs m.

    NaN (float16 overflow) propagates: a position with any NaN pair gives NaN.

    Args:
        as :func:`angle_error`, but P <= 10^7 and P * dim/2 <= 2^28.
    Returns:
        ``(angle_err, cos_err, sin_err)``, each ``(P,)`` float64.
    """
    m, dim, base, dtype = _check_common(positions, dim, base, dtype, recipe)
    if m.numel() * (dim // 2) > MAX_WORK_ELEMENTS:
        fail("positions", m, "at most {n} positions at dim = {dim} (positions * dim/2 <= 2^28, "
             "to bound the work)", n=MAX_WORK_ELEMENTS // (dim // 2), dim=dim)
    (out,) = max_angle_errors(m, dim, base, [(dtype, recipe)]).values()
    return out


# ---------------------------------------------------------------- relative-position property

def _check_vector(v, name: str, dim: int) -> torch.Tensor:
    if not isinstance(v, torch.Tensor) or not v.dtype.is_floating_point or v.shape != (dim,):
        fail(name, v, "a floating-point tensor of shape ({dim},) "
             "(one entry per rotated coordinate)", dim=dim)
    if not bool(torch.isfinite(v).all()):
        fail(name, v, "finite everywhere")
    return v.to(torch.float64).cpu()


def relative_property_error(dim: int, base: float, dtype, recipe: str, m: int, n: int, shift,
                            *, q=None, k=None, layout: str = "interleaved"):
    """|score(m, n) - score(m + D, n + D)| when RoPE's cos/sin carry a recipe's rounding.

    score(m, n) = <R~_m q, R~_n k>, where R~_p rotates pair i by the cos/sin of
    :func:`angle_error`'s ``recipe`` at position p (c_p, s_p, held values):
        score = sum_i (q_a k_a + q_b k_b)(c_m c_n + s_m s_n)
                    + (q_b k_a - q_a k_b)(c_m s_n - s_m c_n)
    (the rotation and dot product themselves in float64, to isolate the
    position encoding). Exact RoPE depends on n - m only, so the difference is
    0; q = k = ones by default (score = sum_i 2 (c_m c_n + s_m s_n)).

    float64 keeps it at rounding level (every recipe but ``"float32_angles"``, whose
    angles are float32 whatever the dtype): each c_p, s_p is off by at most
    u (|p| theta_i + 2), u = 2^-53 (angle rounding times |derivative| <= 1, plus
    the cos/sin rounding), so with w_i = |q_a k_a + q_b k_b| + |q_b k_a - q_a k_b|
        |error| <= 2 sum_i w_i [4 u (P theta_i + 2) + 3 u] + (sum rounding ~ d u sum_i w_i),
    P = the largest position; e.g. d = 128, positions <= 10^4, q = k = ones:
    about 1e-10 at worst, 1e-12 typically. Low-precision recipes give errors of
    order one (bfloat16) at long positions.

    Args:
        dim: rotary dim, even, 2 ... 4096.
        base: RoPE base, > 1.
        dtype, recipe: as :func:`angle_error`.
        m, n: positions, integers 0 ... 10^7.
        shift: D, an integer or ``(S,)`` integers, with m + D and n + D in [0, 10^7];
            S <= 10^6 and S * dim/2 <= 2^28.
        q, k: optional ``(dim,)`` float tensors (default ones).
        layout: "interleaved" or "half" (which coordinates form pair i).
    Returns:
        a float for an integer shift, else an ``(S,)`` float64 tensor.
    """
    scalar = isinstance(shift, Integral) and not isinstance(shift, bool)
    (out,) = relative_property_errors(dim, base, [dtype], recipe, m, n, shift, q=q, k=k,
                                      layout=layout).values()
    return out.item() if scalar else out


def relative_property_errors(dim: int, base: float, dtypes, recipe: str, m: int, n: int,
                             shift, *, q=None, k=None, layout: str = "interleaved") -> dict:
    """:func:`relative_property_error` for several dtypes at once, sharing what their
    cos and sin have in common (:class:`_Block`: the exact angles' cos and sin, the
    float32 angles') and each score that two dtypes share (every recipe in float64
    and "positions" in float32 give the exact one). The numbers are those of one dtype
    at a time, bit for bit.

    Args:
        dim, base, recipe, m, n, shift, q, k, layout: as :func:`relative_property_error`.
        dtypes: 1 to 4 dtypes (names or torch dtypes).
    Returns:
        {dtype: ``(S,)`` float64 tensor}, keyed by the dtypes as given (S = 1 for an
        integer shift).
    """
    dim = check_dim(dim)
    base = check_base(base)
    dtypes = list(dtypes)
    if not 1 <= len(dtypes) <= len(DTYPES):
        fail("dtypes", dtypes, "1 to {n} dtypes", n=len(DTYPES))
    resolved = [resolve_dtype(d) for d in dtypes]
    if recipe not in RECIPES:
        fail("recipe", recipe, "one of {choices}", choices=", ".join(repr(r) for r in RECIPES))
    layout = check_layout(layout)
    for name, v in (("m", m), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, Integral) or not 0 <= v <= MAX_POSITION:
            fail(name, v, "an integer from 0 to {high}", high=MAX_POSITION)
    m, n = int(m), int(n)
    scalar = isinstance(shift, Integral) and not isinstance(shift, bool)
    D = _positions([shift] if scalar else shift, name="shift")  # (S,)
    if D.numel() == 0 or D.numel() > MAX_SHIFTS or D.numel() * (dim // 2) > MAX_WORK_ELEMENTS:
        fail("shift", D, "1 to {n} shifts at dim = {dim}",
             n=min(MAX_SHIFTS, MAX_WORK_ELEMENTS // (dim // 2)), dim=dim)
    lo, hi = -min(m, n), MAX_POSITION - max(m, n)
    if D.numel() and (int(D.min()) < lo or int(D.max()) > hi):
        fail("shift", D, "integers from {low} to {high} (m + shift and n + shift in [0, {last}])",
             low=lo, high=hi, last=MAX_POSITION)
    ones = torch.ones(dim, dtype=torch.float64)
    q64 = ones if q is None else _check_vector(q, "q", dim)
    k64 = ones if k is None else _check_vector(k, "k", dim)
    q_a, q_b = pair_views(q64, layout)  # (h,)
    k_a, k_b = pair_views(k64, layout)
    along = q_a * k_a + q_b * k_b  # (h,): weight of c_m c_n + s_m s_n
    across = q_b * k_a - q_a * k_b  # (h,): weight of c_m s_n - s_m c_n
    th64 = _theta(dim, base)  # (h,)
    th32 = transformers_inv_freq(dim, base)  # (h,)
    h = th64.numel()

    buf = _Buffers()  # the (rows, h) temporaries, reused from chunk to chunk and dtype to dtype

    def scores(pm: torch.Tensor, pn: torch.Tensor) -> list:  # (c,), (c,) -> per dtype (c,)
        c = pm.numel()
        blk = _Block(torch.cat([pm, pn]), th64, th32, buf)  # rows: the m's, then the n's
        x, y, z = (buf.get(name, c, h) for name in ("score_x", "score_y", "score_z"))
        done, out = {}, []
        for dtype in resolved:
            key, cs = blk.recipe(dtype, recipe)  # (3, 2c, h): angle, cos, sin
            if key not in done:
                cm, cn, sm, sn = cs[1, :c], cs[1, c:], cs[2, :c], cs[2, c:]  # (c, h)
                # sum_i (cm cn + sm sn) along_i + (cm sn - sm cn) across_i, one product at a
                # time; each row summed alone (not a matrix-vector product, whose order of
                # summation may depend on the number of rows): the same position pair gives
                # the same score in any batch, so the shift 0 gives exactly 0
                torch.add(torch.mul(cm, cn, out=x), torch.mul(sm, sn, out=y), out=x).mul_(along)
                torch.sub(torch.mul(cm, sn, out=y), torch.mul(sm, cn, out=z), out=y)
                done[key] = x.add_(y.mul_(across)).sum(dim=1)  # (c,)
            out.append(done[key])
        return out

    base_scores = scores(torch.tensor([float(m)], dtype=torch.float64),
                         torch.tensor([float(n)], dtype=torch.float64))  # each (1,)
    outs = [torch.empty(D.numel(), dtype=torch.float64) for _ in resolved]  # each (S,)
    step = max(1, CHUNK_ELEMENTS // (2 * h))  # a block of 2 x step rows
    for start in range(0, D.numel(), step):
        sl = slice(start, min(D.numel(), start + step))
        d64 = D[sl].to(torch.float64)  # (c,)
        for out, base_score, score in zip(outs, base_scores, scores(m + d64, n + d64)):
            out[sl] = (base_score - score).abs()
    return dict(zip(dtypes, outs))
