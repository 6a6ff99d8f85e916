"""rope_core: the numbers behind RoPE Explorer (pure PyTorch, CPU or CUDA).

One module per concept:

* :mod:`~rope_core.frequencies`: theta_i = base^(-2i/d), wavelengths, angles m*theta_i
* :mod:`~rope_core.scaling`: context-extension scalings of theta (linear, NTK, YaRN, Llama 3.1)
* :mod:`~rope_core.rotation`: apply_rope (element-wise), dense R_m, complex form
* :mod:`~rope_core.sinusoidal`: the Transformer's sinusoidal table
* :mod:`~rope_core.decay`: long-term decay bound and scores against distance
* :mod:`~rope_core.attention`: a toy attention head with and without RoPE
* :mod:`~rope_core.steps`: one pair turning frame by frame; R_m q worked through by hand
* :mod:`~rope_core.tables`: tidy DataFrames for the CSV downloads
* :mod:`~rope_core.device`: resolve_device

Every public function validates its arguments and raises ``ValueError`` that
names the parameter, the value and the allowed range.
"""

from .attention import (
                    attention,
                    attention_checks,
                    causal_mask,
                    diagonal_spread,
                    row_sum_gap,
                    toy_qk,
)
from .decay import (
                    bound_plateau,
                    bound_prefactor,
                    distance_grid,
                    first_below,
                    random_score_stats,
                    relative_upper_bound,
                    score_vs_distance,
)
from .device import DEVICES, resolve_device
from .frequencies import DEFAULT_BASE, angles, theta, turns_within, wavelength
from .rotation import (
                    LAYOUTS,
                    apply_rope,
                    apply_rope_complex,
                    cos_sin,
                    layout_permutation,
                    rotation_matrix,
)
from .scaling import SCALING_LABELS, SCALINGS, scaled_theta
from .sinusoidal import (
                    frequency_forms,
                    reference_frequencies,
                    relative_errors,
                    sinusoidal_dot,
                    sinusoidal_pe,
)
from .steps import pair_trajectory, positions_per_frame, rope_steps
from .tables import (
                    attention_table,
                    bound_table,
                    dot_table,
                    forms_table,
                    identity_table,
                    matrix_table,
                    pe_table,
                    rotation_frames_table,
                    score_table,
                    similarity_table,
                    step_tables,
                    theta_table,
                    to_frame,
)

__all__ = [
    "DEFAULT_BASE", "DEVICES", "LAYOUTS", "SCALINGS", "SCALING_LABELS",
    "theta", "wavelength", "angles", "turns_within", "scaled_theta",
    "apply_rope", "apply_rope_complex", "rotation_matrix", "cos_sin", "layout_permutation",
    "sinusoidal_pe", "sinusoidal_dot", "frequency_forms",
    "relative_upper_bound", "score_vs_distance", "random_score_stats",
    "attention", "toy_qk", "resolve_device",
    "to_frame", "theta_table", "matrix_table",
    "attention_checks", "causal_mask", "diagonal_spread", "row_sum_gap",
    "distance_grid", "first_below", "bound_plateau", "bound_prefactor",
    "reference_frequencies", "relative_errors",
    "pair_trajectory", "positions_per_frame", "rope_steps",
    "identity_table", "rotation_frames_table", "step_tables", "pe_table", "similarity_table",
    "dot_table", "forms_table", "bound_table", "score_table", "attention_table",
]
