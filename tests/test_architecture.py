"""Project-wide checks: layering contracts (import-linter), lint (ruff) and types (mypy)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def _tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (it is in requirements.txt)")
    return found


def test_import_contracts_hold() -> None:
    result = _run(_tool("lint-imports"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean() -> None:
    result = _run(_tool("ruff"), "check", "otpa", "service", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_otpa() -> None:
    result = _run(_tool("mypy"), "otpa")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


def test_dashboards_import_only_public_otpa_modules() -> None:
    """``otpa.dashboards`` uses the library's public modules, never a ``_private`` one."""
    import ast

    bad = []
    for path in sorted((ROOT / "otpa" / "dashboards").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                private = any(p.startswith("_") for p in parts[1:])
                if parts[0] == "otpa" and parts[1] != "dashboards" and private:
                    bad.append(f"{path.name}: {name}")
    assert bad == []
