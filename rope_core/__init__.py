"""rope_core: the numbers behind RoPE Explorer (pure PyTorch, CPU or CUDA).

One module per concept:

* :mod:`~rope_core.frequencies`: theta_i = base^(-2i/d), wavelengths, angles m*theta_i
* :mod:`~rope_core.scaling`: context-extension scalings of theta, Hugging Face's
  ROPE_INIT_FUNCTIONS (linear, NTK, dynamic NTK, YaRN, Llama 3.1, LongRoPE)
* :mod:`~rope_core.config`: RopeConfig, a model's RoPE settings layer by layer, read from
  config.json as transformers reads it
* :mod:`~rope_core.families`: transformers' conventions per model family, one table
* :mod:`~rope_core.presets`: PRESETS, real models' RopeConfigs
* :mod:`~rope_core.compare`: side-by-side tables of models and context-extension methods
* :mod:`~rope_core.serving`: the settings that serve a model longer in transformers, vLLM,
  SGLang and llama.cpp (``serving.engine_settings``)
* :mod:`~rope_core.rotation`: apply_rope (element-wise, partial rotary), dense R_m, complex form
* :mod:`~rope_core.steps`: one pair turning frame by frame; R_m q worked through by hand
* :mod:`~rope_core.sinusoidal`: the Transformer's sinusoidal table
* :mod:`~rope_core.decay`: long-term decay bound and scores against distance
* :mod:`~rope_core.attention`: a toy attention head with and without RoPE
* :mod:`~rope_core.capacity`: critical dimension, extrapolation limit, B_m and the base bound
* :mod:`~rope_core.precision`: positions, angles and cos/sin caches in low precision
* :mod:`~rope_core.mrope`: images and video: M-RoPE position ids (Qwen2-VL), the split of
  the pairs among t, h, w, 2D axial RoPE, scores between patches
* :mod:`~rope_core.tables`: tidy DataFrames for the CSV downloads
* :mod:`~rope_core.tour`: the guided tour's answers, one computation per question
* :mod:`~rope_core.device`: resolve_device
* :mod:`~rope_core.alternatives`: ALiBi, p-RoPE, xPos, NoPE and the additive
  sinusoidal encoding, scored against distance on RoPE's axes
* :mod:`~rope_core.tiny_model`: a tiny causal transformer with a pluggable position
  encoding, its two tasks (the symbol k back; associative recall) and the evaluation
  of the shipped models per position bin
* :mod:`~rope_core.intervals`: 95% intervals of accuracies over sequences and seeds

Every public function validates its arguments and raises ``ValueError`` that
names the parameter, the value and the allowed range (a :class:`RopeError`,
whose ``message`` a user interface can translate).
"""

from ._checks import Message, RopeError
from .alternatives import (
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
from .attention import (
    attention,
    attention_checks,
    causal_mask,
    diagonal_spread,
    row_sum_gap,
    toy_qk,
)
from .capacity import (
    base_search,
    cos_sum,
    cos_sum_profile,
    critical_dimension,
    extrapolation_limit,
    first_negative_distance,
    min_base_for_context,
    passing_bases,
)
from .config import LayerGroup, LayerSpec, RopeConfig, query_scale
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
from .mrope import (
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
from .precision import (
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
from .presets import PRESETS
from .rotation import (
    LAYOUTS,
    apply_rope,
    apply_rope_complex,
    cos_sin,
    layout_permutation,
    rotation_matrix,
)
from .scaling import (
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
from .tiny_model import TinyConfig, TinyTransformer

__all__ = [
    "DEFAULT_BASE", "DEVICES", "DTYPES", "LAYOUTS", "LayerGroup", "LayerSpec", "Message",
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
