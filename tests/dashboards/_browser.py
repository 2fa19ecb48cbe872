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

    This tree comes first on ``PYTHONPATH``.  No ``PYTHONPYCACHEPREFIX``: the packages'
    bytecode is written at install time (``uv pip install --compile-bytecode``, the
    README's command) and a prefix would make the interpreter look for it elsewhere and
    compile Panel, Bokeh, Jupyter, xarray... from source again.
    """
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT))
    env.update(extra)
    return env
