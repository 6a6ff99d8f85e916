"""The block machinery of rope_core.limits.precision gives, bit for bit, what the plain
one-recipe-at-a-time formulation (_recipe_angle_cos_sin) gives: shared computations,
row subsets, float16 overflow rows computed once, chunking and several dtypes at once
change how the numbers are computed, never a bit of them."""

import pytest
import torch

import rope_core as rc
from rope_core.limits import precision as pr

DTYPES = ("float64", "float32", "float16", "bfloat16")
# positions across float16's overflow (65520) and bfloat16's inexact range, unsorted
POSITIONS = torch.tensor([0, 1, 255, 257, 2049, 4097, 65519, 65520, 70_000, 99_999, 3, 10**6])


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.view(torch.int64), b.view(torch.int64))


@pytest.mark.parametrize("dim,base", [(2, 10.0), (6, 500.0), (64, 1e4), (128, 1e8)])
@pytest.mark.parametrize("recipe", rc.RECIPES)
def test_errors_match_plain_recipe(dim, base, recipe):
    th64 = pr._theta(dim, base)
    th32 = pr.transformers_inv_freq(dim, base)
    m64 = POSITIONS.to(torch.float64)
    ref = torch.outer(m64, th64)
    combos = [(d, recipe) for d in DTYPES]
    many = pr.max_angle_errors(POSITIONS, dim, base, combos)
    for d in DTYPES:
        angle, cos, sin = pr._recipe_angle_cos_sin(m64, th64, pr.DTYPES[d], recipe, th32)
        want = [(x - x_ref).abs() for x, x_ref in zip((angle, cos, sin),
                                                     (ref, torch.cos(ref), torch.sin(ref)))]
        full = rc.angle_error(POSITIONS, dim, base, d, recipe)
        for got, w in zip(full, want):
            assert same_bits(got, w)
        for got, w in zip(many[d, recipe], want):
            assert same_bits(got, w.amax(dim=-1))


@pytest.mark.parametrize("recipe", rc.RECIPES)
def test_relative_errors_match_one_dtype_at_a_time(recipe):
    # several dtypes at once (shared cos/sin and scores) against a score written out with
    # the plain recipe, q = k = ones: score = sum_i 2 (c_m c_n + s_m s_n) + 0 (c_m s_n - s_m c_n)
    dim, base, m, n = 16, 1e4, 3, 90
    shifts = torch.tensor([0, 1, 7, 300, 65_430, 70_000, 900_000])
    th64 = pr._theta(dim, base)
    th32 = pr.transformers_inv_freq(dim, base)
    along = torch.full((dim // 2,), 2.0, dtype=torch.float64)
    across = torch.zeros(dim // 2, dtype=torch.float64)
    many = pr.relative_property_errors(dim, base, DTYPES, recipe, m, n, shifts)
    for d in DTYPES:

        def score(pm, pn, dtype=pr.DTYPES[d]):
            _, cm, sm = pr._recipe_angle_cos_sin(pm, th64, dtype, recipe, th32)
            _, cn, sn = pr._recipe_angle_cos_sin(pn, th64, dtype, recipe, th32)
            return ((cm * cn + sm * sn) * along + (cm * sn - sm * cn) * across).sum(dim=1)

        base_score = score(torch.tensor([float(m)], dtype=torch.float64),
                           torch.tensor([float(n)], dtype=torch.float64))
        d64 = shifts.to(torch.float64)
        want = (base_score - score(m + d64, n + d64)).abs()
        assert same_bits(many[d], want)
        assert same_bits(rc.relative_property_error(dim, base, d, recipe, m, n, shifts), want)
