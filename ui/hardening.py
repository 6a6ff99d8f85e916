"""Server-side limits for a public demo that a config file cannot express.

Any client can send Streamlit's ``clear_cache`` back-message over the websocket
(the viewer toolbar merely hides the menu entry): the server then empties
``st.cache_data`` and ``st.cache_resource`` for every visitor
(``AppSession._handle_clear_cache_request`` in streamlit 1.67). One visitor
could make the whole class recompute every page, over and over. This app
refuses the message unless ``ROPE_ALLOW_CLEAR_CACHE=1`` is set (for a
developer who wants the menu's "Clear cache" back); its caches are bounded
(``ui.tables``), so they never need clearing to save memory.
"""

from __future__ import annotations

import functools
import logging
import os
import threading

_LOG = logging.getLogger("rope_explorer")


def refuse_clear_cache() -> bool:
    """Make the server ignore clients' clear-cache requests. Returns True when
    the refusal is in force (idempotent)."""
    if os.environ.get("ROPE_ALLOW_CLEAR_CACHE") == "1":
        return False
    from streamlit.runtime.app_session import AppSession

    if getattr(AppSession._handle_clear_cache_request, "refused", False):
        return True

    def _refused(self) -> None:  # noqa: ANN001 (Streamlit's signature)
        _LOG.warning("Refused a client's clear_cache request (session %s).", self.id)

    _refused.refused = True
    AppSession._handle_clear_cache_request = _refused
    return True


M_ARENA_MAX = -8  # glibc's mallopt parameter numbers (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
ARENAS = 2
MMAP_BYTES = 32 * 1024 * 1024  # glibc's largest mmap threshold (64-bit)
TRIM_BYTES = 2 * MMAP_BYTES  # what glibc's own adjustment sets it to


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads created from now on.

    Streamlit runs each session's script in a thread of its own, and glibc gives
    busy threads their own arenas (up to 8 per core), each keeping memory that
    was freed: 200 students opening the Sinusoidal page left the server at
    +1.5 MiB per session, memory that stayed after they left. With two arenas
    the same run holds about half of that (benchmarks/sessions_memory.py).

    It also fixes the mmap threshold at 32 MiB (glibc's largest) and the trim
    threshold at 64 MiB, what glibc's own adjustment ends at (it raises both each
    time a large block is freed). A temporary array of a new setting, such as the
    decay table's cos and sin at d = 1024, then comes from heap that earlier runs
    already touched; mapped afresh, every 4 KiB page of it faulted in on first
    write (about 1 µs a page: 9 ms of a 24 MB array's 10 ms copy). The slowest
    uncached runs took a third less CPU (Long-term decay at d = 1024 and 10⁶
    tokens: 0.10 → 0.06 s), for about 40 MiB of freed heap the process keeps
    (200 random visitors: peak 586 → 628 MiB, +0.71 → +0.75 MiB per session). A
    round before fixed both thresholds at 128 KiB for 6 % less memory per
    session; that paid the faults on every array over 128 KiB. Same effect as
    MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=33554432
    MALLOC_TRIM_THRESHOLD_=67108864. Returns False where the C library is not glibc
    (then nothing changes).
    """
    if _MALLOC_SET.get(arenas) is None:  # once per process: app.py calls it every run
        _MALLOC_SET[arenas] = _mallopt(arenas)
    return _MALLOC_SET[arenas]


_MALLOC_SET: dict[int, bool] = {}


def _mallopt(arenas: int) -> bool:
    import ctypes

    try:  # glibc's soname (ctypes.util.find_library would run ldconfig in a subprocess)
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, int(arenas))
                    and libc.mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)
                    and libc.mallopt(M_TRIM_THRESHOLD, TRIM_BYTES))
    except (OSError, AttributeError):
        return False


TORCH_THREADS = 1


def limit_torch_threads(threads: int = TORCH_THREADS) -> bool:
    """One PyTorch thread per script run: no intra-op or inter-op pools.

    Streamlit runs every session's script in a thread of its own, and each
    Python thread that calls a parallel PyTorch kernel becomes the master of an
    OpenMP team of its own, sized by default to the machine's cores: thirty
    students on a 2-core host could mean dozens of worker threads for two cores
    (issue 18 saw the server burn almost as much system CPU as user CPU under
    load). The app's tensors are small (at most a few million values), and a
    loaded server's cores are already kept busy by the sessions themselves, so
    splitting a kernel over threads gains nothing there: the team's workers
    and its master spin while they wait for each other. Measured on the shared
    2-core machine (indicative, load average 4–9 from other work; one uncached
    run each, ``benchmarks/explore.py``): Long context at its defaults took
    1.68 s of process CPU with PyTorch's default two threads (0.89 s of it in
    the script thread) and 0.39 s with one; at d = 1024, 3.20 s against 0.57 s;
    Precision 0.26 s against 0.18 s; pages with little PyTorch work, such as
    Sinusoidal, the same.
    ``torch.set_num_threads`` is process-wide (PyTorch applies it to each new
    thread's first parallel region); ``set_num_interop_threads`` may only be
    called before the first inter-op work, so a second call (a rerun of app.py)
    leaves it as it is. Same effect as starting the server with
    OMP_NUM_THREADS=1. Returns True when PyTorch now uses ``threads`` intra-op
    threads.
    """
    import torch

    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    try:
        if torch.get_num_interop_threads() != threads:
            torch.set_num_interop_threads(threads)
    except RuntimeError:  # inter-op work already started: the pool stays as it is
        pass
    return torch.get_num_threads() == threads


def freeze_long_lived() -> int:
    """Exclude the objects alive now from the cyclic garbage collector's passes.

    After start-up the process holds about 265,000 objects that live as long as it
    does (the modules of PyTorch, pandas, Plotly and Streamlit, the app's process
    constants). Python's full collection walks every one of them: 120–170 ms,
    landing on whichever visitor's run happens to trigger it (the benchmark of
    uncached runs saw it as one run in a few dozen at 0.2–0.3 s, whatever the
    setting). Frozen, a full pass walks only what was made since: 2–20 ms.
    Frozen objects are still freed when nothing refers to them (reference
    counting); only a reference cycle among them would stay. Called once, by
    :func:`ui.constants.warm_up`'s thread after the constants. Returns the number
    of objects frozen.
    """
    import gc

    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


# CPython 3.11.0-3.11.7 and 3.12.0-3.12.1 count the depth of ast.parse's tree
# building in one counter per interpreter, not per call (gh-106905, fixed in 3.11.8 and
# 3.12.2). Two threads parsing at once, one of them paused mid-tree by Python code that
# a garbage collection runs (a finalizer, a gc callback), leave it unbalanced, and one
# of them raises "SystemError: AST constructor recursion depth mismatch".
AST_PARSE_FIXED = {(3, 11): (3, 11, 8), (3, 12): (3, 12, 2)}


def serialize_ast_parse(version: tuple[int, ...] | None = None) -> bool:
    """Let one thread at a time run :func:`ast.parse` on a Python with gh-106905.

    Who parses: Streamlit compiles each page with ``ast.parse`` on its first run in
    a process (its "magic"), ``numpy.load`` reads every array's header with
    ``ast.literal_eval`` (the warm-up thread loads the tiny models), and pytest parses
    each test module to rewrite its asserts. On an affected Python, a first visitor's
    page could fail while the warm-up thread loads the models; in CI, a test module
    failed to import. A re-entrant lock around ``ast.parse`` (``literal_eval`` calls
    it too) makes the counter balance: a parse nested in the same thread (a gc
    callback that parses) counts its own depth and restores it, as in one thread
    without the lock. Idempotent. Returns True when the lock is in force, False on a
    Python without the bug."""
    import ast
    import sys

    version = tuple(sys.version_info[:3]) if version is None else version
    fixed = AST_PARSE_FIXED.get(version[:2])
    if fixed is None or version >= fixed:
        return False
    if getattr(ast.parse, "serialized", False):
        return True
    parse = ast.parse
    lock = threading.RLock()

    @functools.wraps(parse)
    def serialized_parse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 (ast.parse's)
        with lock:
            return parse(*args, **kwargs)

    serialized_parse.serialized = True
    ast.parse = serialized_parse
    return True
