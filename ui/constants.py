"""Process constants: results that are the same for every visitor and every setting.

The shipped tiny models, their live evaluation and a few reference tables depend
on no control at all. Computed inside a visitor's script run they would make the
first run of their page slow (Trained tiny models: about 0.15 s of CPU to load
six models and evaluate nine curves) for no setting of the visitor's own. Each
is computed once per server process instead: :func:`warm_up` (called by app.py
on every run; only the first call does anything) computes them all in one
background thread of low priority, and a page that asks for one before the
thread reached it computes it itself (once: a lock per constant; the thread
then finds it done).

A constant is a function of no arguments returning a read-only value, declared
here with :func:`constant` (pages are scripts, so the warm-up thread could not
find a constant declared in a page). They are never evicted and small (under
3 MB in all). Benchmarks measuring uncached runs keep them (they are computed
before any visitor's setting is known).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from . import cache
from .hardening import freeze_long_lived

_LOG = logging.getLogger("rope_explorer")
_CONSTANTS: dict[str, Callable[[], Any]] = {}
_VALUES: dict[str, Any] = {}
WARM_UP_THREAD = "rope-warm-up"  # the thread's name, as a debugger or py-spy shows it
WARM_UP_NICENESS = 10  # the warm-up thread yields to visitors' script runs


def constant(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Compute ``fn()`` once per process (under :func:`ui.cache.cold_gate`, like any
    cold result) and keep it; register it for :func:`warm_up`."""
    name = f"{fn.__module__}.{fn.__qualname__}"
    lock = threading.Lock()

    @functools.wraps(fn)
    def get() -> Any:
        if name not in _VALUES:
            with lock:
                if name not in _VALUES:
                    with cache.cold_gate():
                        _VALUES[name] = fn()
        return _VALUES[name]
    _CONSTANTS[name] = get
    return get


def names() -> list[str]:
    """Every registered constant, in the order of declaration."""
    return list(_CONSTANTS)


def computed() -> list[str]:
    return [name for name in _CONSTANTS if name in _VALUES]


_started = threading.Event()
_done = threading.Event()
_start_lock = threading.Lock()


def _warm() -> None:
    try:  # lower this thread's priority only (Linux: a thread is a schedulable task)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WARM_UP_NICENESS)
    except (AttributeError, OSError):
        pass
    try:
        for name, get in list(_CONSTANTS.items()):  # (a copy: one may be declared meanwhile)
            try:
                get()
            except Exception:  # noqa: BLE001 (a page asking for it again shows the error)
                _LOG.exception("Computing the process constant %s failed.", name)
    finally:
        freeze_long_lived()  # start-up's objects, constants included, out of the GC's passes
        _done.set()


def warm_up(wait: bool = False) -> None:
    """Start computing every constant in a background thread (the first call in the
    process; later calls return at once). ``wait``: block until all are done.

    Not a daemon thread (said explicitly: a thread started from a script thread
    would inherit its daemon flag): a process that exits within its first second
    waits for it (a fraction of a second), rather than ending while PyTorch runs
    in it, which aborts the process ("terminate called without an active
    exception")."""
    if not _started.is_set():
        with _start_lock:
            if not _started.is_set():
                threading.Thread(target=_warm, name=WARM_UP_THREAD, daemon=False).start()
                _started.set()
    if wait:
        _done.wait()


# ------------------------------------------------------------- the constants ----
# Trained tiny models (pages/trained_models.py)
TINY_SCALINGS = ("linear", "ntk", "yarn")  # context extension applied to the RoPE model


def tiny_curves() -> tuple[tuple[str, str], ...]:
    """The evaluated curves: each encoding as trained, then the RoPE model with each
    scaling, as ``(encoding, method)``."""
    from rope_core import tiny_model as tm

    return tuple((e, "none") for e in tm.ENCODINGS) + tuple(("rope", m) for m in TINY_SCALINGS)


@constant
def tiny_models() -> dict:
    """Every shipped model by encoding (read-only after loading)."""
    from rope_core import tiny_model as tm

    return {encoding: tm.load_model(encoding) for encoding in tm.ENCODINGS}


@constant
def tiny_record() -> dict:
    """tiny/weights/models.json: the training settings and recorded accuracies."""
    import json

    from rope_core import tiny_model as tm

    return json.loads((tm.WEIGHTS_DIR / "models.json").read_text())


@constant
def tiny_accuracy() -> np.ndarray:
    """Accuracy of each curve of :func:`tiny_curves` at each length of
    ``tm.eval_lengths(8)``, evaluated live on the shipped weights:
    ``(curves, lengths)`` float64."""
    from rope_core import tiny_model as tm

    models, lengths = tiny_models(), tm.eval_lengths(8)
    return np.array([tm.length_curve(models[e], lengths, m) for e, m in tiny_curves()])


# Long context (pages/long_context.py)
@constant
def preset_bounds() -> pd.DataFrame:
    """rope_core.breaks.preset_bound_table(): every preset's base against its contexts."""
    from rope_core import breaks

    return breaks.preset_bound_table()


@constant
def liu_comparison() -> pd.DataFrame:
    """rope_core.breaks.liu_comparison_table(): Liu et al.'s critical dimension."""
    from rope_core import breaks

    return breaks.liu_comparison_table()


# Frequencies and Real models: what a low-precision cache does to the slow pairs
@constant
def slow_pair_values() -> dict:
    """Llama 3.1 8B's pairs that never complete a turn within its configured context, and
    how many distinct (cos, sin) values each takes there under transformers' recipe
    (float32 angles, bfloat16 cos/sin; rope_core.distinct_cos_sin): {"model", "context",
    "first", "last" (pair indices), "low", "high" (counts)}. About 0.1 s of CPU."""
    import math

    import rope_core as rc

    name = "Llama 3.1 8B"
    cfg = rc.PRESETS[name]
    theta, _ = rc.scaled_theta(cfg.rotary_dim, cfg.base, cfg.method, seq_len=cfg.max_context,
                               **cfg.params_dict)  # (h,)
    slow = [i for i, t in enumerate(theta.tolist()) if 2 * math.pi / t > cfg.max_context]
    counts = rc.distinct_cos_sin(theta[slow], cfg.max_context, "bfloat16")  # (slow,)
    return {"model": name, "context": cfg.max_context, "first": slow[0], "last": slow[-1],
            "low": int(counts.min()), "high": int(counts.max())}
