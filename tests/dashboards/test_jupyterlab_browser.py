"""JupyterLab in a real browser: a notebook's ipyleaflet map renders, widget JS served locally.

``jupyter lab`` runs on loopback with a token; Debian's chromium opens a notebook that
draws the demo city with :func:`otpa.viz.network_map` (no web tiles), runs its cell
(Shift+Enter), and the test counts the Leaflet vector layers drawn and checks that no
request left 127.0.0.1.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from _browser import assert_not_blank

from otpa.network import TransportNetwork

pytestmark = pytest.mark.http

NOTEBOOK = """\
from otpa.network import TransportNetwork
from otpa.testing.demo import demo_city_dir
from otpa.viz import network_map

net = TransportNetwork.load(demo_city_dir() / "graph")
network_map(net)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, demo_network: TransportNetwork) -> Iterator[str]:
    """``jupyter lab`` on loopback serving a folder with ``map.ipynb``; yields its base URL."""
    del demo_network  # the demo graph is built and cached for the notebook to load
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NOTEBOOK)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, root / "map.ipynb")
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "JUPYTER_PLATFORM_DIRS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=",
         "--allow-root", "--LabApp.extension_manager=readonly"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=root,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
                break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail("jupyter lab did not start")
        yield f"{base}/lab/tree/map.ipynb?token={token}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_notebook_map_renders_with_local_widget_js(
    browser: Any, lab: str, screenshot_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(lab, wait_until="domcontentloaded", timeout=120_000)
        page.locator(".jp-Notebook").wait_for(timeout=120_000)
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
        page.locator(".jp-Notebook .jp-Cell").first.click()
        page.keyboard.press("Shift+Enter")
        try:
            page.locator(".leaflet-container").first.wait_for(timeout=180_000)
        except Exception:  # keep what the page showed
            page.screenshot(path=str(screenshot_dir / "jupyterlab-failed.png"))
            raise
        page.wait_for_function(
            "() => document.querySelectorAll('.leaflet-container path.leaflet-interactive')"
            ".length > 10",
            timeout=60_000,
        )
        paths = page.locator(".leaflet-container path.leaflet-interactive").count()
        assert paths > 10  # streets and stops drawn as Leaflet vector layers
        assert page.locator(".leaflet-control-layers").count() == 1
        outside = [
            u for u in requests
            if not u.startswith(("http://127.0.0.1:", "blob:", "data:", "ws://127.0.0.1:"))
        ]  # fmt: skip
        assert outside == []
        assert any("jupyter-leaflet" in u for u in requests)  # the widget JS, from the server
        shot = screenshot_dir / "jupyterlab-map.png"
        page.screenshot(path=str(shot))
        assert_not_blank(shot)
    finally:
        context.close()
