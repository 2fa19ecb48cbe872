"""Browser helpers of the dashboard tests: Debian's chromium, screenshot checks."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = Path("/usr/bin/chromium")
#: Debian's chromium, never a downloaded browser build; quiet and offline.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def ensure_chromium() -> Path:
    """Debian's chromium: installed with apt when absent (root, as on CI), else skip."""
    if not CHROMIUM.exists() and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=False, env=env)
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium (/usr/bin/chromium) is not installed")
    return CHROMIUM


def assert_not_blank(path: Path) -> float:
    """The screenshot's pixel standard deviation; fails for a blank (uniform) image."""
    from PIL import Image

    pixels = np.asarray(Image.open(path).convert("L"), dtype=np.float64)
    spread = float(pixels.std())
    assert spread > 5.0, f"{path} looks blank (pixel std {spread:.2f})"
    return spread


def python_env(**extra: str) -> dict[str, str]:
    """Environment of a Python subprocess of these tests (``otpa dashboard``, JupyterLab).

    This tree comes first on ``PYTHONPATH``.  Bytecode is cached: the suite may run
    with ``PYTHONDONTWRITEBYTECODE`` set, and a fresh interpreter would then compile
    every module it imports (Panel, Bokeh, Jupyter, xarray...) from source on every
    run, most of its start-up on a busy machine; the subprocesses keep theirs under
    the otpa cache folder (``PYTHONPYCACHEPREFIX``: ``$OTPA_CACHE``, else
    ``$XDG_CACHE_HOME/otpa``, else ``~/.cache/otpa``), never beside the sources.
    """
    cache = os.environ.get("OTPA_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "otpa"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(Path(cache) / "pycache"))
    env.update(extra)
    return env
