"""Fixtures for the dashboard tests: the demo network, a browser, screenshots."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.network import TransportNetwork

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


@pytest.fixture(scope="session")
def demo_network() -> TransportNetwork:
    """The demo city's network (built once into the demo cache folder, then loaded)."""
    from otpa.network import build_network
    from otpa.testing.demo import demo_city_dir

    directory = demo_city_dir()
    graph = directory / "graph"
    if graph.exists():
        try:
            return TransportNetwork.load(graph)
        except Exception:
            graph.unlink()
    network = build_network(directory)
    network.save(graph)
    return network


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Debian chromium driven by Playwright (one per test module)."""
    playwright = pytest.importorskip("playwright.sync_api")
    path = ensure_chromium()
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(path), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``$OTPA_SCREENSHOTS`` or a pytest temporary folder."""
    folder = os.environ.get("OTPA_SCREENSHOTS")
    out = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def assert_not_blank(path: Path) -> float:
    """The screenshot's pixel standard deviation; fails for a blank (uniform) image."""
    from PIL import Image

    pixels = np.asarray(Image.open(path).convert("L"), dtype=np.float64)
    spread = float(pixels.std())
    assert spread > 5.0, f"{path} looks blank (pixel std {spread:.2f})"
    return spread
