"""Real models: a model's RoPE layer by layer (``config``), transformers' conventions
per family (``families``), context-extension scalings (``scaling``), the presets
(``presets``), M-RoPE for images and video (``mrope``), the engine settings that serve
a model longer (``serving``) and the config doctor (``doctor``: the RoPE mistakes of a
``config.json``).

May import :mod:`rope_core.support` and :mod:`rope_core.rotary`."""
