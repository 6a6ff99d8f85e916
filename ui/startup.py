"""What a server process does once, before it takes its first visitor.

``streamlit run app.py`` finds the ``st.App`` that app.py declares when it is imported
rather than run as a script (``app``), imports app.py once, and serves app.py through
that App: every visitor's run is app.py's frame, as before. The App's ``lifespan``
(:func:`lifespan`) runs once, after Streamlit's runtime has started and before the
server answers any request, so what it does no visitor waits for:

* importing PyTorch, pandas, Plotly and the app's modules (app.py's module import;
  2–3 s of CPU, which the first visitors of a fresh server used to share);
* the process-wide settings of :mod:`ui.hardening` (the refused clear-cache message,
  malloc's arenas, one PyTorch thread), which app.py's frame otherwise makes on its
  first run;
* every process constant (:mod:`ui.constants`), computed at the process's own
  priority, then start-up's objects frozen out of the garbage collector's passes.

This makes a fresh server answer later: the imports, then about 1 s of CPU for the
constants, 4–6 s of wall time on a busy 2-core machine, where it used to answer within
a second. A request that
arrives meanwhile waits in the listening socket's queue and is
answered once the server is ready (``/_stcore/health`` included: a process manager,
``deploy/serve.py`` or a benchmark that waits for it waits until then). Without this
(AppTest, or a server that imports app.py some other way) app.py's frame makes the
same settings on its first run and starts the constants in a background thread of low
priority (:func:`ui.constants.warm_up`), as it always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from typing import Any


def prepare_process() -> dict[str, float]:
    """The process-wide settings and every process constant, now, in the calling
    thread. Returns the wall and CPU seconds it took."""
    from . import constants
    from .hardening import limit_malloc_arenas, limit_torch_threads, refuse_clear_cache

    wall, cpu = time.perf_counter(), time.process_time()
    refuse_clear_cache()
    limit_malloc_arenas()
    limit_torch_threads()
    constants.compute_now()
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """st.App's lifespan: :func:`prepare_process` in a worker thread (the event loop
    stays free for Streamlit's runtime), then serve."""
    took = await asyncio.to_thread(prepare_process)
    print(f"  RoPE Explorer is ready for visitors (prepared in {took['wall']:.1f} s, "
          f"{took['cpu']:.1f} s of CPU).", file=sys.stderr, flush=True)
    yield
