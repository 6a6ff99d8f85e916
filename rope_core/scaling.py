"""Context-extension scalings of the frequency spectrum, one function each.

Each entry of :data:`SCALINGS` maps ``(dim, base, factor, original_context)``
to the ``(dim/2,)`` frequencies a model uses after extending its context by
``factor`` (registry in the spirit of Hugging Face's ``ROPE_INIT_FUNCTIONS``).
"""

from __future__ import annotations

import math

import torch

from ._checks import check_choice, check_float_dtype, check_int, check_positive_float, fail
from .frequencies import theta as default_theta

MAX_FACTOR = 1000.0


def _none(dim, base, factor, original_context):
    """theta_i = base^(-2i/d) unchanged."""
    return default_theta(dim, base)


def _linear(dim, base, factor, original_context):
    """Position interpolation (Chen et al. 2023): theta_i / s for every pair."""
    return default_theta(dim, base) / factor


def _ntk(dim, base, factor, original_context):
    """NTK-aware: base' = base * s^(d/(d-2)); the slowest pair is divided by s,
    the fastest (i = 0) is unchanged."""
    if dim == 2:
        return default_theta(dim, base)  # a single pair has i = 0: theta_0 = 1
    return default_theta(dim, base * factor ** (dim / (dim - 2)))


def _yarn(dim, base, factor, original_context, beta_fast=32.0, beta_slow=1.0):
    """YaRN "by parts" (Peng et al. 2023): pairs that turn more than beta_fast
    times within the original context keep theta_i, pairs that turn fewer than
    beta_slow times are divided by s, and a linear ramp in i blends between.
    (YaRN also scales logits by 0.1 ln s + 1; that is not a frequency.)"""
    theta = default_theta(dim, base)  # (d/2,)

    def pair_index_for_turns(turns):  # i at which L * theta_i / (2 pi) = turns
        return dim * math.log(original_context / (turns * 2 * math.pi)) / (2 * math.log(base))

    # Not clamped to [0, dim-1] as in Hugging Face's find_correction_range: a
    # clamp inverts the ramp when every pair turns >= beta_fast times (tiny base,
    # long context) or none turns once (L < 2 pi); unclamped, the rule above holds.
    low = math.floor(pair_index_for_turns(beta_fast))
    high = math.ceil(pair_index_for_turns(beta_slow))
    if low == high:
        high += 0.001
    i = torch.arange(dim // 2, dtype=torch.float64)
    ramp = ((i - low) / (high - low)).clamp(0.0, 1.0)  # 0 keeps theta, 1 divides by s
    return theta * (1 - ramp) + (theta / factor) * ramp


def _llama3(dim, base, factor, original_context, low_freq_factor=1.0, high_freq_factor=4.0):
    """Llama 3.1: wavelengths shorter than L/4 keep theta_i, longer than L are
    divided by s, and in between theta is blended smoothly in L/wavelength."""
    theta = default_theta(dim, base)
    wavelen = 2 * math.pi / theta
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * theta / factor + smooth * theta
    out = torch.where(wavelen > original_context / low_freq_factor, theta / factor, theta)
    medium = (wavelen >= original_context / high_freq_factor) & \
             (wavelen <= original_context / low_freq_factor)
    return torch.where(medium, blended, out)


SCALINGS = {"none": _none, "linear": _linear, "ntk": _ntk, "yarn": _yarn, "llama3": _llama3}

SCALING_LABELS = {
    "none": "none (original RoPE)",
    "linear": "linear (position interpolation)",
    "ntk": "NTK-aware base change",
    "yarn": "YaRN (by parts)",
    "llama3": "Llama 3.1",
}


def scaled_theta(dim: int, base: float, method: str = "none", factor: float = 1.0,
                 original_context: int = 4096, *, device=None,
                 dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Frequencies after a context-extension scaling.

    Args:
        method: one of :data:`SCALINGS`.
        factor: s >= 1, new context / original context.
        original_context: L, the training context length in tokens.
    Returns:
        ``(dim/2,)`` tensor (computed in float64, then cast to ``dtype``).
    """
    method = check_choice(method, "method", tuple(SCALINGS))
    factor = check_positive_float(factor, "factor", upper=MAX_FACTOR)
    if factor < 1:
        fail("factor", factor, f"a number from 1 to {MAX_FACTOR:g}")
    original_context = check_int(original_context, "original_context", 1, 10_000_000)
    dtype = check_float_dtype(dtype)
    default_theta(dim, base)  # validates dim and base with their own messages
    return SCALINGS[method](dim, base, factor, original_context).to(device=device, dtype=dtype)
