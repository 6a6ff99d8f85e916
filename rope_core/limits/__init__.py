"""Where RoPE breaks: critical dimension, B_m and the base bound (``capacity``), the
page's breaking points with their precomputed table ``base_bounds_table.json``
(``breaks``), low precision (``precision``) and side-by-side tables of models and
extension methods (``compare``).

May import :mod:`rope_core.support`, :mod:`rope_core.rotary` and :mod:`rope_core.models`."""
