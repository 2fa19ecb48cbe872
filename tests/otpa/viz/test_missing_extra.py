"""Without the notebook extra, otpa.viz says which extra to install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

_SCRIPT = """
import sys
sys.modules["ipyleaflet"] = None  # as if the package were not installed
import otpa.viz  # importing the package itself works: maps import ipyleaflet when drawn
from otpa.testing.demo import demo_network
try:
    otpa.viz.network_map(demo_network())
except ImportError as exc:
    print("IMPORT-ERROR:", exc)
"""


def test_a_map_without_ipyleaflet_names_the_extra() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip().splitlines()[-1]
    assert line.startswith("IMPORT-ERROR: otpa.viz draws maps with ipyleaflet")
    assert 'pip install "otpa[notebook]"' in line
