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


class _Chromium:
    """One headless Debian chromium (Playwright) for all the dashboard tests.

    Started by the first test that needs it and closed after the last test of this
    folder (see ``pytest_runtest_teardown``): Playwright's synchronous API keeps an
    event loop in the main thread while it runs, which the other test folders must
    not inherit.
    """

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None

    def get(self) -> Any:
        if self._browser is None:
            sync_api = pytest.importorskip("playwright.sync_api")
            path = ensure_chromium()
            self._playwright = sync_api.sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=str(path), args=CHROMIUM_ARGS
            )
        return self._browser

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._playwright.stop()
        self._browser = self._playwright = None


_CHROMIUM = _Chromium()
_HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """The shared headless chromium (one start for every browser test of this folder)."""
    yield _CHROMIUM.get()
    _CHROMIUM.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After the last test of this folder (and its modules' pages): close the browser."""
    yield
    if nextitem is None or _HERE not in Path(nextitem.path).resolve().parents:
        _CHROMIUM.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``$OTPA_SCREENSHOTS`` or a pytest temporary folder."""
    folder = os.environ.get("OTPA_SCREENSHOTS")
    out = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out
