"""Fixtures for the dashboard tests: the demo network, a browser, screenshots."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _browser import CHROMIUM_ARGS, ensure_chromium

from otpa.network import TransportNetwork


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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Debian chromium driven by Playwright (one for the session's browser tests)."""
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
