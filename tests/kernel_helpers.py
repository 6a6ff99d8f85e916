"""A Jupyter kernel for the tests that execute notebooks (tests/test_notebooks_exercises.py,
tests/test_notebooks_pages.py): this environment's Python, found through a kernelspec in a
temporary Jupyter path, with Jupyter's and IPython's folders there too, so that nothing is
written in the home folder. The kernel imports rope_core from the checkout (PYTHONPATH)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "rope-explorer-test"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernelspec for this Python in a temporary Jupyter path, and Jupyter's and
    IPython's folders there too; the kernel imports rope_core from the checkout."""
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    home = tmp_path_factory.mktemp("jupyter")
    spec = home / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "RoPE Explorer tests", "language": "python"}))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(home))
        mp.setenv("JUPYTER_DATA_DIR", str(home / "data"))
        mp.setenv("JUPYTER_CONFIG_DIR", str(home / "config"))
        mp.setenv("JUPYTER_RUNTIME_DIR", str(home / "runtime"))
        mp.setenv("IPYTHONDIR", str(home / "ipython"))
        mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
        mp.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                              os.environ.get("PYTHONPATH")])))
        yield home
