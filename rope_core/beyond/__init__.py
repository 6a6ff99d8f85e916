"""Beyond RoPE: other position encodings scored on RoPE's axes (``alternatives``), the
trained tiny models and their evaluation (``tiny_model``), intervals of accuracies over
seeds and sequences (``intervals``), paired comparisons across seeds (``paired``), and the
tiny models' results from their stored evaluation (``tiny_results``).

May import :mod:`rope_core.support`, :mod:`rope_core.rotary` and :mod:`rope_core.models`
(not :mod:`rope_core.limits`)."""
