"""The rotation itself: frequencies (``frequencies``), apply_rope and its dense and
complex forms (``rotation``), the sinusoidal table (``sinusoidal``), long-term decay
(``decay``), a toy attention head (``attention``) and one pair turning step by step
(``steps``).

May import :mod:`rope_core.support` only."""
