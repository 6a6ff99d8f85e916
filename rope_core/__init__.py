"""rope_core: the numbers behind RoPE Explorer (pure PyTorch, CPU or CUDA).

One module per concept:

* :mod:`~rope_core.frequencies`: theta_i = base^(-2i/d), wavelengths, angles m*theta_i
* :mod:`~rope_core.scaling`: context-extension scalings of theta, Hugging Face's
  ROPE_INIT_FUNCTIONS (linear, NTK, dynamic NTK, YaRN, Llama 3.1, LongRoPE)
* :mod:`~rope_core.config`: RopeConfig, a model's RoPE settings, read from config.json
* :mod:`~rope_core.presets`: PRESETS, real models' RopeConfigs
* :mod:`~rope_core.compare`: side-by-side tables of models and context-extension methods
* :mod:`~rope_core.rotation`: apply_rope (element-wise, partial rotary), dense R_m, complex form
* :mod:`~rope_core.sinusoidal`: the Transformer's sinusoidal table
* :mod:`~rope_core.decay`: long-term decay bound and scores against distance
* :mod:`~rope_core.attention`: a toy attention head with and without RoPE
* :mod:`~rope_core.tables`: tidy DataFrames for the CSV downloads
* :mod:`~rope_core.device`: resolve_device

Every public function validates its arguments and raises ``ValueError`` that
names the parameter, the value and the allowed range.
"""

from .attention import attention, toy_qk
from .decay import random_score_stats, relative_upper_bound, score_vs_distance
from .device import DEVICES, resolve_device
from .frequencies import DEFAULT_BASE, angles, theta, turns_within, wavelength
from .rotation import (LAYOUTS, apply_rope, apply_rope_complex, cos_sin, layout_permutation,
                       rotation_matrix)
from .config import RopeConfig
from .presets import PRESETS
from .scaling import (REGIMES, SCALING_LABELS, SCALINGS, Param, Scaling, effective_base,
                      pair_regime, resolve_params, scaled_theta, yarn_ramp_bounds)
from .sinusoidal import frequency_forms, sinusoidal_dot, sinusoidal_pe
from .tables import matrix_table, theta_table, to_frame

__all__ = [
    "DEFAULT_BASE", "DEVICES", "LAYOUTS", "SCALINGS", "SCALING_LABELS",
    "theta", "wavelength", "angles", "turns_within", "scaled_theta",
    "Scaling", "Param", "REGIMES", "resolve_params", "effective_base", "pair_regime",
    "yarn_ramp_bounds", "RopeConfig", "PRESETS",
    "apply_rope", "apply_rope_complex", "rotation_matrix", "cos_sin", "layout_permutation",
    "sinusoidal_pe", "sinusoidal_dot", "frequency_forms",
    "relative_upper_bound", "score_vs_distance", "random_score_stats",
    "attention", "toy_qk", "resolve_device",
    "to_frame", "theta_table", "matrix_table",
]
