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

import logging
import os

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


M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads created from now on.

    Streamlit runs each session's script in a thread of its own, and glibc gives
    busy threads their own arenas (up to 8 per core), each keeping memory that
    was freed: 200 students opening the Sinusoidal page left the server at
    +1.5 MiB per session, memory that stayed after they left. With two arenas
    the same run holds about half of that (benchmarks/sessions_memory.py).
    Same effect as starting the server with MALLOC_ARENA_MAX=2. Returns False
    where the C library is not glibc (then nothing changes).
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, int(arenas)))
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
    splitting a kernel over threads gains nothing there. Measured on the shared
    2-core machine (8 Python threads of small kernels, indicative): the same
    user CPU, system CPU 0.27–0.38 s against 0.42–0.52 s with PyTorch's default
    two threads; a single run on an idle machine may finish sooner with two.
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
