"""Typical mistakes in the exercises notebooks, written as a student would write them.

``MISTAKES[exercise]`` lists (what the check must say, source): the source defines the
exercise's function (the name the notebook's stub has), wrong in one way; what the check
must say is a piece of its English report that names that mistake. The unit tests run
each through its check (tests/test_core_exercises.py); the notebook tests put three of them
into the notebooks' cells (tests/test_notebooks_exercises.py).
"""


def _pairs(name="apply_rope_interleaved", angle="positions.to(torch.float64)[:, None] * theta",
           pairs="a, b", first="a * cos - b * sin", second="a * sin + b * cos") -> str:
    """A student's rotation of the pairs (2i, 2i+1), one of its steps written wrong."""
    return f"""\
def {name}(x, positions, theta):
    angle = {angle}
    cos, sin = angle.cos(), angle.sin()
    out = torch.empty_like(x)
    {pairs} = x[..., 0::2], x[..., 1::2]
    out[..., 0::2] = {first}
    out[..., 1::2] = {second}
    return out"""


def _yarn(pairs="torch.arange(dim // 2, dtype=torch.float64)", exponent="-2 * i / dim",
          turns_fast="2 * math.pi * beta_fast", turns_slow="2 * math.pi * beta_slow",
          floor="math.floor", ceil="math.ceil",
          blend="theta * (1 - ramp) + theta / factor * ramp") -> str:
    """A student's yarn_theta, the solution's steps with one of them written wrong."""
    return f"""\
def yarn_theta(dim, base, factor, original_max_position_embeddings, beta_fast=32.0,
               beta_slow=1.0):
    i = {pairs}
    theta = base ** ({exponent})
    L = original_max_position_embeddings
    low = max({floor}(dim * math.log(L / ({turns_fast})) / (2 * math.log(base))), 0)
    high = min({ceil}(dim * math.log(L / ({turns_slow})) / (2 * math.log(base))), dim - 1)
    ramp = ((i - low) / (high - low)).clamp(0, 1)
    return {blend}"""


def _mrope(ids="start + f, start + r, start + c",
           loops="for f in range(t) for r in range(h) for c in range(w)",
           grid="t, h, w = size[0], size[1] // spatial_merge_size, size[2] // spatial_merge_size",
           resume="max(h, w)", result="torch.tensor(columns).T") -> str:
    """A student's mrope_position_ids, the solution's steps with one of them wrong."""
    return f"""\
def mrope_position_ids(segments, spatial_merge_size=2):
    columns, start = [], 0
    for kind, size in segments:
        if kind == "text":
            columns += [[start + j] * 3 for j in range(size)]
            start += size
        else:
            {grid}
            columns += [[{ids}] {loops}]
            start += {resume}
    return {result}"""


MISTAKES = {
    "theta": [
        ("not base^(−i/d)", """\
def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float64)
    return base ** (-i / dim)"""),
        ("sign is flipped", """\
def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float64)
    return base ** (2 * i / dim)"""),
        ("index starts at 1", """\
def theta(dim, base):
    i = torch.arange(1, dim // 2 + 1, dtype=torch.float64)
    return base ** (-2 * i / dim)"""),
        ("reverse order", """\
def theta(dim, base):
    i = torch.arange(dim // 2 - 1, -1, -1, dtype=torch.float64)
    return base ** (-2 * i / dim)"""),
        ("would be turns per token", """\
def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float64)
    return base ** (-2 * i / dim) / (2 * math.pi)"""),
        ("with no 2π", """\
def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float64)
    return 2 * math.pi * base ** (-2 * i / dim)"""),
        ("wavelengths", """\
def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float64)
    return 2 * math.pi * base ** (2 * i / dim)"""),
        ("One frequency per coordinate (8 values)", """\
def theta(dim, base):
    j = torch.arange(dim, dtype=torch.float64)
    return base ** (-j / dim)"""),
        ("computes in torch.float32", """\
def theta(dim, base):
    i = torch.arange(dim // 2, dtype=torch.float32)
    return base ** (-2 * i / dim)"""),
        ("returned list", """\
def theta(dim, base):
    return [base ** (-2 * i / dim) for i in range(dim // 2)]"""),
    ],
    "apply_rope_interleaved": [
        ("those of the half layout, (i, i + d/2)", """\
def apply_rope_interleaved(x, positions, theta):
    angle = positions.to(torch.float64)[:, None] * theta
    cos, sin = angle.cos(), angle.sin()
    a, b = x.chunk(2, dim=-1)
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)"""),
        ("turns the wrong way", _pairs(first="a * cos + b * sin", second="-a * sin + b * cos")),
        ("turns the wrong way", _pairs(pairs="b, a", first="a * sin + b * cos",
                                       second="a * cos - b * sin")),
        ("frequencies in reverse order",
         _pairs(angle="positions.to(torch.float64)[:, None] * theta.flip(0)")),
        ("laid out in the other layout's order", """\
def apply_rope_interleaved(x, positions, theta):
    angle = positions.to(torch.float64)[:, None] * theta
    angle = torch.cat([angle, angle], dim=-1)
    turned = torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)
    return x * angle.cos() + turned * angle.sin()"""),
        ("angle of position j",
         _pairs(angle="torch.arange(x.shape[-2], dtype=torch.float64)[:, None] * theta")),
        ("unrotated", """\
def apply_rope_interleaved(x, positions, theta):
    return x.clone()"""),
        ("returned shape (4, 8); expected (2, 4, 8)", """\
def apply_rope_interleaved(x, positions, theta):
    return x[0]"""),
    ],
    "apply_rope_half": [
        ("those of the interleaved layout, (2i, 2i+1)", _pairs(name="apply_rope_half")),
        ("laid out in the other layout's order", """\
def apply_rope_half(x, positions, theta):
    angle = (positions.to(torch.float64)[:, None] * theta).repeat_interleave(2, dim=-1)
    half = x.shape[-1] // 2
    turned = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * angle.cos() + turned * angle.sin()"""),
        ("turns the wrong way", """\
def apply_rope_half(x, positions, theta):
    angle = positions.to(torch.float64)[:, None] * theta
    cos, sin = angle.cos(), angle.sin()
    a, b = x.chunk(2, dim=-1)
    return torch.cat([a * cos + b * sin, b * cos - a * sin], dim=-1)"""),
    ],
    "relative_score": [
        ("This is q^T R_(−r) k", """\
def relative_score(q, k, distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta
    along = q[0::2] * k[0::2] + q[1::2] * k[1::2]
    across = q[0::2] * k[1::2] - q[1::2] * k[0::2]
    return (along * angle.cos() + across * angle.sin()).sum(-1)"""),
        ("Only the cos term", """\
def relative_score(q, k, distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta
    return ((q[0::2] * k[0::2] + q[1::2] * k[1::2]) * angle.cos()).sum(-1)"""),
        ("those of the half layout", """\
def relative_score(q, k, distances, theta):
    h = q.shape[0] // 2
    angle = distances.to(torch.float64)[:, None] * theta
    along = q[:h] * k[:h] + q[h:] * k[h:]
    across = q[h:] * k[:h] - q[:h] * k[h:]
    return (along * angle.cos() + across * angle.sin()).sum(-1)"""),
    ],
    "decay_bound": [
        ("Off by the factor d/2 = 4", """\
def decay_bound(distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta
    return torch.hypot(angle.cos().cumsum(-1), angle.sin().cumsum(-1)).sum(-1)"""),
        ("the length of the whole sum", """\
def decay_bound(distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta
    return torch.hypot(angle.cos().sum(-1), angle.sin().sum(-1))"""),
        ("off by one", """\
def decay_bound(distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta
    re = angle.cos().cumsum(-1) - angle.cos()
    im = angle.sin().cumsum(-1) - angle.sin()
    return torch.hypot(re, im).mean(-1)"""),
        ("Only the real part", """\
def decay_bound(distances, theta):
    angle = distances.to(torch.float64)[:, None] * theta
    return angle.cos().cumsum(-1).abs().mean(-1)"""),
        ("not the sum of the lengths", """\
def decay_bound(distances, theta):
    lengths = torch.ones(len(distances), len(theta), dtype=torch.float64)
    return lengths.cumsum(-1).mean(-1)"""),
    ],
    "yarn_theta": [
        ("your ramp runs the other way", _yarn(blend="theta * ramp + theta / factor * (1 - ramp)")),
        ("yours multiplies", _yarn(blend="theta * (1 - ramp) + theta * factor * ramp")),
        ("The 2π is missing", _yarn(turns_fast="beta_fast", turns_slow="beta_slow")),
        ("not rounded", _yarn(floor="", ceil="")),
        ("beta_fast and beta_slow are swapped",
         _yarn(turns_fast="2 * math.pi * beta_slow", turns_slow="2 * math.pi * beta_fast")),
        ("coordinate index 2i", _yarn(pairs="torch.arange(0, dim, 2, dtype=torch.float64)",
                                      exponent="-i / dim")),
        ("position interpolation", _yarn(blend="theta / factor")),
    ],
    "mrope_position_ids": [
        ("Rows and columns are swapped", _mrope(ids="start + f, start + c, start + r")),
        ("not in row-major order", _mrope(loops="for f in range(t) for c in range(w) "
                                                "for r in range(h)")),
        ("not at start + its number of tokens", _mrope(resume="t * h * w")),
        ("One too low", _mrope(resume="max(h, w) - 1")),
        ("advance with its temporal patches", _mrope(ids="start, start + r, start + c")),
        ("start from the id its segment starts at", _mrope(ids="f, r, c")),
        ("before merging (29 tokens)", _mrope(grid="t, h, w = size")),
        ("position ids are integers", _mrope(result="torch.tensor(columns, "
                                                    "dtype=torch.float64).T")),
        ("return them as (3, seq)", _mrope(result="torch.tensor(columns)")),
    ],
}

# The three the notebook tests put into the notebooks: the other layout's pairs, i/d for
# 2i/d, YaRN's ramp reversed (exercise -> index in MISTAKES[exercise]).
IN_NOTEBOOK = {"apply_rope_interleaved": 0, "theta": 0, "yarn_theta": 0}


def define(source: str):
    """The function a mistake's source defines, with math and torch in scope (as in the
    notebook)."""
    import math

    import torch

    scope = {"math": math, "torch": torch}
    exec(source, scope)  # noqa: S102 (the tests' own code)
    return scope[source.split("(")[0].removeprefix("def ")]
