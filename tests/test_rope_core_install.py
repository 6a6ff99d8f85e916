"""rope_core installs on its own: a plain PEP 517 build of the repository's root (what
``pip install <path>`` and ``pip install "git+…"`` do) makes a wheel of the ``rope_core``
package alone, with its data files and its runtime dependencies, and the installed package
works outside the checkout.

The build runs offline (``--no-build-isolation --no-index``, setuptools from this
environment) on a copy of the checkout's files (tracked and untracked, not ignored), so the
checkout gets no build/ or egg-info; the wheel goes into a fresh virtual environment that
sees this environment's site-packages through a .pth file (torch is not installed again)
and is run from a folder outside the checkout, with no PYTHONPATH.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

pytest.importorskip("setuptools", reason="the offline build uses this environment's setuptools")
if shutil.which("git") is None or not (ROOT / ".git").exists():
    pytest.skip("the copy of the checkout is made with git ls-files", allow_module_level=True)

# What the installed rope_core is asked to do, from a folder outside the checkout.
SCRIPT = r"""
import json, math, sys
import rope_core as rc
from rope_core.beyond import tiny_model as tm
from rope_core.limits import breaks
from rope_core.support.translation import render
from rope_core.teaching import exercises as ex

out = {"file": rc.__file__, "path": sys.path}
theta = rc.theta(8, 10000.0)  # (4,): theta_i = (10^4)^(-2i/8) = 10^(-i)
out["theta"] = theta.tolist()
out["theta_dtype"] = str(theta.dtype)
out["base_bounds"] = len(breaks.base_bounds_table())
out["presets"] = list(rc.PRESETS)
try:
    tm.load_models("local", "rope")
except ValueError as err:
    out["tiny_error"] = str(err)
    out["tiny_error_zh"] = render(err.message, "zh")
def theta_solution(dim, base):
    import torch
    return base ** (-2 * torch.arange(dim // 2, dtype=torch.float64) / dim)
out["check"] = ex.check_theta(theta_solution, lang="zh").text()
print(json.dumps(out))
"""


def _requirement_pins() -> dict[str, str]:
    """name -> the exact pin requirements.txt gives it."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name, _, version = line.partition("==")
            pins[name.lower()] = version
    return pins


def test_the_package_list_is_every_group():
    """pyproject.toml names rope_core's packages one by one (the root holds the app too):
    every folder of rope_core with an __init__.py, and the catalog's folder."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    groups = {"rope_core"} | {f"rope_core.{p.name}" for p in (ROOT / "rope_core").iterdir()
                              if (p / "__init__.py").is_file()}
    assert listed == groups | {"rope_core.locale.zh.LC_MESSAGES"}
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"rope_core.locale": "locale"}


def test_dependencies_are_requirements_pins():
    """Exactly torch, numpy and pandas, pinned as requirements.txt pins them (torch's pin
    and no other torch requirement), and each is imported by rope_core."""
    pins = _requirement_pins()
    deps = PYPROJECT["project"]["dependencies"]
    assert sorted(deps) == sorted(f"{name}=={pins[name]}" for name in ("torch", "numpy", "pandas"))
    assert [d for d in deps if d.startswith("torch")] == ["torch==2.13.0"]
    imported = set()
    for path in (ROOT / "rope_core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert {"torch", "numpy", "pandas"} <= imported
    # everything else rope_core imports is the standard library, itself, or optional
    # (pyarrow: only when pandas' strings are Arrow's, rope_core.support.frames)
    others = {m for m in imported - {"torch", "numpy", "pandas", "pyarrow", "rope_core"}
              if m not in sys.stdlib_module_names}
    assert others == set()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel pip builds from a copy of the checkout, offline."""
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "source"
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():  # a file deleted but not yet committed is skipped
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "--quiet", "-w", str(tmp / "dist"), str(source)],
                   check=True, capture_output=True)
    (found,) = (tmp / "dist").glob("rope_core-*.whl")
    return found


def test_the_wheel_holds_rope_core_alone(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    tops = {name.split("/")[0] for name in names}
    assert tops == {"rope_core", wheel.name.split("-py3")[0] + ".dist-info"}
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "rope_core").rglob("*.py")}
    assert sources <= set(names)
    assert "rope_core/limits/base_bounds_table.json" in names
    presets = {f"rope_core/{p.relative_to(ROOT / 'rope_core')}"
               for p in (ROOT / "rope_core" / "models" / "preset_configs").glob("*.json")}
    assert len(presets) > 30 and presets <= set(names)  # every preset file and order.json
    assert "rope_core/locale/zh/LC_MESSAGES/messages.mo" in names
    assert not [n for n in names if n.endswith((".po", ".pot", ".npz"))]
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata.decode(), re.M)
    assert sorted(requires) == sorted(PYPROJECT["project"]["dependencies"])


def test_installed_rope_core_works_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True, check=True
                               ).stdout.strip())
    # this environment's packages (torch, numpy, pandas, pip), after the venv's own
    (site / "shared.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                    str(wheel)], check=True, capture_output=True, env=env, cwd=tmp_path)
    run = subprocess.run([str(python), "-c", SCRIPT], capture_output=True, text=True, env=env,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert Path(out["file"]).is_relative_to(site), out["file"]
    assert not any(Path(p).resolve() == ROOT for p in out["path"] if p)
    # theta_i = 10^(-i) for base 10^4, d = 8 (closed form), to the last digit
    assert out["theta_dtype"] == "torch.float64"
    for got, want in zip(out["theta"], (1.0, 0.1, 0.01, 0.001), strict=True):
        assert abs(got - want) <= 2 * 2.0**-52 * want
    assert out["base_bounds"] > 0  # the package's data file, read from site-packages
    from rope_core import PRESETS  # the preset files, read from site-packages
    assert out["presets"] == list(PRESETS)
    # the tiny models' weights are not installed: the error says so and where they are
    assert out["tiny_error"].startswith("folder='") and "tiny/weights" in out["tiny_error"]
    assert "local_rope.npz" in out["tiny_error"] and "小模型" in out["tiny_error_zh"]
    # the installed catalog translates the exercises' checks
    assert out["check"].startswith("✓ `theta_solution` 在 6 个用例上")
