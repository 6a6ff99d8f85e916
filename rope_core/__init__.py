"""rope_core: the numbers behind RoPE Explorer (pure PyTorch, CPU or CUDA).

Five groups, each built only on those listed before it (each group's ``__init__`` says
what it holds and what it may import):

* :mod:`rope_core.support`: argument checks and errors, the device, shared buffers, tidy
  tables (``to_frame``) and their CSV files (``csv_bytes``, ``write_csv``,
  ``read_csv``), messages in the reader's language outside the app
  (``translation``); imports nothing of rope_core.
* :mod:`rope_core.rotary`: the rotation itself: frequencies theta_i = base^(-2i/d),
  apply_rope and its dense and complex forms, the sinusoidal table, long-term decay, a toy
  attention head, one pair turning step by step.
* :mod:`rope_core.models`: real models: RopeConfig layer by layer (``config``, read from
  config.json as transformers reads it), transformers' conventions per family
  (``families``), context-extension scalings (``scaling``), presets, M-RoPE for images
  and video (``mrope``), the settings that serve a model longer (``serving``) and the
  config doctor (``doctor``).
* :mod:`rope_core.limits`: where RoPE breaks: critical dimension, B_m and the base bound
  (``capacity``, ``breaks`` with its precomputed table), low precision (``precision``),
  side-by-side tables of models and extension methods (``compare``).
* :mod:`rope_core.beyond`: beyond RoPE: ALiBi, p-RoPE, xPos, NoPE and the additive
  encoding (``alternatives``), the trained tiny models (``tiny_model``), the intervals
  of their accuracies (``intervals``), paired comparisons (``paired``) and their results
  (``tiny_results``).
* :mod:`rope_core.teaching`: the lesson's own data: worked checks (``lesson``), the
  guided tour's answers (``tour``), the tables behind the lesson's plots (``tables``),
  the checks of the exercises notebooks (``exercises``).

``import rope_core`` gives the functions the pages use (below); the rest is reached
through its module, e.g. ``from rope_core.models import presets``.

Every public function validates its arguments and raises ``ValueError`` that
names the parameter, the value and the allowed range (a :class:`RopeError`,
whose ``message`` a user interface can translate).
"""

from .beyond.alternatives import (
    alibi_bias,
    alibi_logits,
    alibi_slopes,
    apply_xpos,
    blockwise_causal_mask,
    blockwise_reach,
    causal_weights,
    encoding_logits,
    nope_logits,
    p_rope_pairs,
    p_rope_theta,
    pair_terms,
    rope_logits,
    sinusoidal_logits,
    sinusoidal_rows,
    xpos_logits,
    xpos_max_position,
    xpos_scale,
    xpos_zeta,
)
from .beyond.tiny_model import TinyConfig, TinyTransformer
from .limits.capacity import (
    base_search,
    cos_sum,
    cos_sum_profile,
    critical_dimension,
    extrapolation_limit,
    first_negative_distance,
    min_base_for_context,
    passing_bases,
)
from .limits.precision import (
    DTYPES,
    RECIPES,
    angle_error,
    as_dtype_position,
    distinct_cos_sin,
    first_inexact_position,
    float32_angle_parts,
    grid_spacing,
    max_angle_error,
    max_angle_errors,
    relative_property_error,
    relative_rounding_bound,
    resolve_dtype,
    transformers_inv_freq,
)
from .models.config import LayerGroup, LayerSpec, RopeConfig, query_scale
from .models.mrope import (
    AXES,
    MROPE_INTERLEAVED,
    MROPE_SECTIONS,
    RESUME_RULES,
    SCHEMES,
    apply_mrope,
    axial_pair_axes,
    axial_theta,
    axis_coverage_table,
    mrope_blocks,
    mrope_pair_axes,
    mrope_position_ids,
    mrope_score,
    pair_axes_table,
    patch_distances,
    patch_score_table,
    patch_scores,
    scaled_mrope_section,
    scheme_frequencies,
)
from .models.presets import PRESETS
from .models.scaling import (
    REGIMES,
    SCALING_LABELS,
    SCALINGS,
    TRANSFORMERS_VERSION,
    Param,
    Scaling,
    comparison_params,
    dynamic_alpha,
    effective_base,
    pair_regime,
    resolve_params,
    scaled_theta,
    yarn_paper_ramp,
    yarn_ramp,
    yarn_ramp_bounds,
)
from .rotary.attention import (
    attention,
    attention_checks,
    causal_mask,
    diagonal_spread,
    row_sum_gap,
    toy_qk,
)
from .rotary.decay import (
    bound_plateau,
    bound_prefactor,
    distance_grid,
    first_below,
    random_score_stats,
    relative_upper_bound,
    score_vs_distance,
)
from .rotary.frequencies import DEFAULT_BASE, angles, theta, turns_within, wavelength
from .rotary.rotation import (
    LAYOUTS,
    apply_rope,
    apply_rope_complex,
    cos_sin,
    layout_permutation,
    rotation_matrix,
)
from .rotary.sinusoidal import (
    frequency_forms,
    reference_frequencies,
    relative_errors,
    sinusoidal_dot,
    sinusoidal_pe,
)
from .rotary.steps import pair_trajectory, positions_per_frame, rope_steps
from .support._checks import Code, Message, RopeError
from .support.device import DEVICES, resolve_device
from .support.frames import csv_bytes, read_csv, to_frame, write_csv
from .teaching.tables import (
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
)

__all__ = [
    "Code", "DEFAULT_BASE", "DEVICES", "DTYPES", "LAYOUTS", "LayerGroup", "LayerSpec", "Message",
    "PRESETS", "Param", "RECIPES", "REGIMES", "RopeConfig", "RopeError", "SCALINGS",
    "SCALING_LABELS", "Scaling", "TRANSFORMERS_VERSION", "angle_error", "angles",
    "query_scale",
    "base_search", "cos_sum_profile",
    "apply_rope", "apply_rope_complex", "as_dtype_position", "attention", "attention_checks",
    "attention_table", "bound_plateau", "bound_prefactor", "bound_table", "causal_mask",
    "cos_sin", "cos_sum", "critical_dimension", "diagonal_spread", "distance_grid",
    "comparison_params", "dot_table", "dynamic_alpha", "effective_base",
    "extrapolation_limit", "first_below",
    "first_inexact_position", "first_negative_distance", "forms_table", "frequency_forms",
    "grid_spacing", "identity_table", "layout_permutation", "matrix_table", "max_angle_error",
    "max_angle_errors", "transformers_inv_freq", "float32_angle_parts", "distinct_cos_sin",
    "relative_rounding_bound",
    "min_base_for_context", "pair_regime", "pair_trajectory", "passing_bases", "pe_table",
    "positions_per_frame", "random_score_stats", "reference_frequencies", "relative_errors",
    "relative_property_error", "relative_upper_bound", "resolve_device", "resolve_dtype",
    "resolve_params", "rope_steps", "rotation_frames_table", "rotation_matrix", "row_sum_gap",
    "scaled_theta", "score_table", "score_vs_distance", "similarity_table", "sinusoidal_dot",
    "sinusoidal_pe", "step_tables", "theta", "theta_table", "to_frame", "toy_qk",
    "csv_bytes", "read_csv", "write_csv",
    "turns_within", "wavelength", "yarn_paper_ramp", "yarn_ramp", "yarn_ramp_bounds",
    # alternatives to RoPE
    "alibi_bias", "alibi_logits", "alibi_slopes", "blockwise_causal_mask",
    "blockwise_reach", "apply_xpos", "causal_weights",
    "encoding_logits", "nope_logits", "p_rope_pairs", "p_rope_theta", "pair_terms",
    "rope_logits", "sinusoidal_logits", "sinusoidal_rows", "xpos_logits", "xpos_max_position",
    "xpos_scale", "xpos_zeta",
    # mrope
    "AXES", "MROPE_INTERLEAVED", "MROPE_SECTIONS", "RESUME_RULES", "SCHEMES", "apply_mrope",
    "axial_pair_axes", "axial_theta", "axis_coverage_table", "mrope_blocks", "mrope_pair_axes",
    "mrope_position_ids", "mrope_score", "pair_axes_table", "patch_distances",
    "patch_score_table", "patch_scores", "scaled_mrope_section", "scheme_frequencies",
    "TinyConfig", "TinyTransformer",
]
