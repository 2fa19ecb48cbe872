"""JupyterLab in a real browser: notebook 03 runs, its ipyleaflet maps and the dashboard render.

``jupyter lab`` runs on loopback with a token; Debian's chromium opens a copy of the
project's ``notebooks/03-accessibility.ipynb`` (outputs cleared; ``OTPA_DATA`` points
nowhere, so the notebook takes its synthetic demo-city branch) with two cells appended
that display the scenario-comparison dashboard inline over the notebook's network.  The
test runs every cell (JupyterLab's ``notebook:run-all-cells`` command), then checks that
no cell failed, that the notebook's three ipyleaflet maps drew their layers, that the
dashboard's Bokeh map is in the page, and that no request left 127.0.0.1 (the widget
JavaScript comes from the server).
"""

from __future__ import annotations

import json
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
from _browser import assert_not_blank, python_env

pytestmark = pytest.mark.http

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03-accessibility.ipynb"
#: Cells appended to the copy: the dashboard inline, over the network the notebook built.
DASHBOARD_CELLS = (
    "from otpa.dashboards import ScenarioComparison, offline_extension\n\noffline_extension()",
    "ScenarioComparison(net)",
)
#: ipyleaflet maps drawn by notebook 03 (time surface, isochrones, choropleth).
MAPS = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``jupyter lab`` on loopback serving a copy of notebook 03; yields the notebook's URL."""
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.cells += [nbformat.v4.new_code_cell(src) for src in DASHBOARD_CELLS]
    nbformat.write(nb, root / NOTEBOOK.name)
    settings = root / ".settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # every cell in the DOM (no virtual scrolling), so every output is rendered
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port, token = _free_port(), secrets.token_hex(16)
    env = python_env(
        JUPYTER_PLATFORM_DIRS="1",
        JUPYTERLAB_SETTINGS_DIR=str(root / ".settings"),
        OTPA_DATA=str(root / "no-shared-data"),  # the notebook's demo-city branch
    )  # the kernel inherits it: this tree's otpa, cached bytecode
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=",
         "--LabApp.expose_app_in_browser=True", "--allow-root",
         "--LabApp.extension_manager=readonly", "--KernelManager.shutdown_wait_time=1"],
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
        yield f"{base}/lab/tree/{NOTEBOOK.name}?token={token}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_notebook_03_runs_in_jupyterlab_with_maps_and_the_dashboard_inline(
    browser: Any, lab: str, screenshot_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(lab, wait_until="domcontentloaded", timeout=120_000)
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            # every code cell numbered (none waiting, none running), the kernel idle again
            page.wait_for_function(
                """() => {
                    const prompts = Array.from(
                        document.querySelectorAll('.jp-CodeCell .jp-InputPrompt'));
                    return prompts.length > 0
                        && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
                }""",
                timeout=420_000,
            )
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
            page.wait_for_function(
                "() => window.Bokeh && Bokeh.documents.some("
                "d => d.get_model_by_name('single_map') != null)",
                timeout=60_000,
            )
        except Exception:  # keep what the page showed
            page.screenshot(path=str(screenshot_dir / "jupyterlab-failed.png"), full_page=True)
            raise
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        assert not [o for o in outputs if "Traceback" in o or "Error" in o.split("\n")[0]]
        assert any("using the synthetic demo city" in o for o in outputs)
        maps = page.locator(".jp-OutputArea .leaflet-container")
        assert maps.count() == MAPS
        for k in range(MAPS):  # each map drew vector layers (isochrones, cells, streets)
            assert maps.nth(k).locator("path.leaflet-interactive").count() > 0
        assert page.locator(".leaflet-control-layers").count() >= 1
        assert page.locator(".jp-OutputArea canvas").count() > 0  # the dashboard's Bokeh maps
        outside = [
            u for u in requests
            if not u.startswith(("http://127.0.0.1:", "blob:", "data:", "ws://127.0.0.1:"))
        ]  # fmt: skip
        assert outside == []
        assert any("jupyter-leaflet" in u for u in requests)  # the widget JS, from the server
        shot = screenshot_dir / "jupyterlab-notebook-03.png"
        maps.first.scroll_into_view_if_needed()
        page.screenshot(path=str(shot))
        assert_not_blank(shot)
        last = page.locator(".jp-CodeCell").last
        last.scroll_into_view_if_needed()
        shot = screenshot_dir / "jupyterlab-dashboard.png"
        last.screenshot(path=str(shot))
        assert_not_blank(shot)
    finally:
        context.close()
