"""Process constants: results that are the same for every visitor and every setting.

The shipped tiny models, their stored evaluation and a few reference tables depend
on no control at all. Computed inside a visitor's script run they would make the
first run of their page slow (Trained tiny models: a fraction of a second to load
its models) for no setting of the visitor's own. Each
is computed once per server process instead: :func:`warm_up` (called by app.py
on every run; only the first call does anything) computes them all in one
background thread of low priority, and a page that asks for one before the
thread reached it computes it itself (once: a lock per constant; the thread
then finds it done).

A server started with ``streamlit run app.py`` computes them all before it takes its
first visitor (:func:`compute_now`, from :mod:`ui.startup`), so that no visitor's run
shares the process with the computation; :func:`warm_up` is then a no-op.

A constant is a function of no arguments returning a read-only value, declared
here with :func:`constant` (pages are scripts, so the warm-up thread could not
find a constant declared in a page). They are never evicted and small (about
10 MB in all, most of it the tiny models shown on their page). Benchmarks
measuring uncached runs keep them (they are computed before any visitor's
setting is known).
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


def _warm(niceness: int = WARM_UP_NICENESS) -> None:
    try:  # lower this thread's priority only (Linux: a thread is a schedulable task)
        if niceness:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
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


def compute_now() -> None:
    """Compute every constant in the calling thread, at the process's own priority, and
    return when all are done: what a server does at start-up, before it takes its first
    visitor (:mod:`ui.startup`). Later :func:`warm_up` calls return at once; if the
    warm-up thread has started already, this waits for it instead."""
    with _start_lock:
        mine = not _started.is_set()
        _started.set()
    if mine:
        _warm(niceness=0)
    _done.wait()


# ------------------------------------------------------------- the constants ----
# Trained tiny models (pages/trained_models.py). The evaluation of the models is not run
# here: tiny/train.py ran it once and stored its integer counts and the RoPE models' pair
# norms in tiny/weights/evaluation.npz (rope_core.beyond.tiny_model.read_evaluation), which
# one constant reads (about 60 KB); the page's accuracies, intervals and paired comparisons
# are computed from them (rope_core.beyond.tiny_results) once per process.
def tiny_curves() -> tuple[tuple[str, str, str], ...]:
    """The evaluated curves as ``(task, arm, method)``: the shipped models', then the
    recorded ones' (rope_core.beyond.tiny_model.evaluated_curves)."""
    from rope_core.beyond import tiny_model as tm

    return tm.evaluated_curves()


@constant
def tiny_models() -> dict:
    """The shipped models of seed 0, whose attention the page shows:
    ``{(task, encoding): model}`` (read-only after loading; about 8 MB in all)."""
    from rope_core.beyond import tiny_model as tm

    return {(t, e): tm.load_models(t, e, seeds=(0,))[0] for t in tm.TASKS for e in tm.ENCODINGS}


@constant
def tiny_record() -> dict:
    """tiny/weights/models.json: the training settings and what each training did."""
    from rope_core.beyond import tiny_model as tm

    return tm.read_record()


@constant
def tiny_stored() -> dict:
    """tiny/weights/evaluation.npz: rope_core.beyond.tiny_model.read_evaluation()."""
    from rope_core.beyond import tiny_model as tm

    return tm.read_evaluation()


def tiny_pair_norms() -> dict:
    """Seed 0's RoPE model per task: rope_core.beyond.tiny_model.pair_norms,
    ``{task: (layers, heads, 2, pairs)}`` (the page's figure of pair norms; stored)."""
    import torch

    stored = tiny_stored()
    row = stored["seeds"].index(0)
    return {task: torch.from_numpy(norms[row]) for task, norms in stored["pair_norms"].items()}


@constant
def tiny_pair_bands() -> dict:
    """Per task, the mean norm of q and k in the fastest and in the slowest four RoPE
    pairs of the RoPE models, over seeds, layers, heads and positions
    (rope_core.beyond.tiny_model.pair_norms, stored): ``{task: (fast, slow)}``."""
    import torch

    out = {}
    for task, norms in tiny_stored()["pair_norms"].items():  # (seeds, layers, heads, 2, pairs)
        per_pair = np.mean([torch.from_numpy(n).mean(dim=(0, 1, 2)).numpy() for n in norms],
                           axis=0)  # (pairs,)
        out[task] = (float(per_pair[:4].mean()), float(per_pair[-4:].mean()))
    return out


@constant
def tiny_evaluation() -> dict:
    """Every curve's :class:`rope_core.beyond.tiny_results.Curve` (accuracy per seed and
    group, its interval), in the order of :func:`tiny_curves`, from the stored evaluation
    (:func:`tiny_stored`)."""
    from rope_core.beyond import tiny_results

    return tiny_results.curves(tiny_stored())


@constant
def tiny_comparisons() -> pd.DataFrame:
    """The paired comparisons across seeds, Holm-corrected together
    (rope_core.beyond.tiny_results.comparison_table of :func:`tiny_evaluation`)."""
    from rope_core.beyond import tiny_results

    return tiny_results.comparison_table(tiny_evaluation())


# Long context (pages/long_context.py)
@constant
def preset_bounds() -> pd.DataFrame:
    """rope_core.limits.breaks.preset_bound_table(): every preset's base against its contexts."""
    from rope_core.limits import breaks

    return breaks.preset_bound_table()


@constant
def liu_comparison() -> pd.DataFrame:
    """rope_core.limits.breaks.liu_comparison_table(): Liu et al.'s critical dimension."""
    from rope_core.limits import breaks

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
