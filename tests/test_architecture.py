"""Project-wide checks: layering contracts (import-linter), private modules, lint and types."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from tests.fixtures.early_jobs import EARLY_JOBS

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


@pytest.mark.early_job("mypy")
def test_mypy_strict_on_otpa_and_service() -> None:
    _tool("mypy")
    result = EARLY_JOBS.result("mypy")  # started right after collection
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


def _graph(*, external: bool) -> grimp.ImportGraph:
    return grimp.build_graph("otpa", "service", include_external_packages=external)


def _private_owner(module: str) -> str | None:
    """The package that owns ``module`` when it is private (``a.b._c.d`` -> ``a.b``)."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def test_no_package_imports_another_packages_private_modules() -> None:
    graph = _graph(external=False)
    crossing = set()
    for module in graph.modules:
        owner = _private_owner(module)
        if owner is None:
            continue
        for importer in graph.find_modules_that_directly_import(module):
            if importer != owner and not importer.startswith(owner + "."):
                crossing.add((importer, module))
    assert crossing == set()
    assert _private_owner("otpa.routing._access") == "otpa.routing"
    assert _private_owner("otpa.routing.engine") is None


def test_raptor_imports_only_numpy_numba_and_types() -> None:
    graph = _graph(external=True)
    allowed = {"numpy", "numba", "otpa.types"} | set(sys.stdlib_module_names)
    package = "otpa.transit.raptor"
    imported = {
        target
        for module in graph.find_descendants(package) | {package}
        for target in graph.find_modules_directly_imported_by(module)
        if not target.startswith(package)
    }
    assert imported, "the raptor package was not found"
    assert {m for m in imported if m.split(".")[0] not in allowed and m not in allowed} == set()


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_package_imports_another_packages_private_names() -> None:
    """``from otpa.x.mod import _name`` across packages is a private door too."""
    crossing = []
    for top in ("otpa", "service"):
        for path in sorted((ROOT / top).rglob("*.py")):
            importer = _module_name(path)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] not in ("otpa", "service"):
                    continue
                is_package = (ROOT / Path(*node.module.split(".")) / "__init__.py").exists()
                owner = node.module if is_package else node.module.rpartition(".")[0]
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    inside = importer == owner or importer.startswith(owner + ".")
                    if private and not inside:
                        crossing.append(f"{importer}: from {node.module} import {alias.name}")
    assert crossing == []


#: Builtin exceptions a deliberate ``raise X(...)`` may not use: it raises an OtpaError
#: subclass (otpa/errors.py; it may also derive from the builtin) so the service's one
#: table (service/otp1/errors.py EXCEPTION_STATUS) maps it by type.
_BUILTIN_ERRORS = frozenset(
    {"ValueError", "TypeError", "KeyError", "LookupError", "IndexError", "RuntimeError",
     "NotImplementedError", "Exception"}
)  # fmt: skip
#: Where a builtin may be raised: the sealed RAPTOR package imports nothing of otpa but
#: otpa.types (its callers check requests first), and a GraphQL invariant (a bug if hit).
_BUILTIN_RAISE_ALLOWED = ("otpa/transit/raptor/", "service/graphql/execute.py")


def test_deliberate_errors_are_otpa_errors() -> None:
    found = []
    for top in ("otpa", "service"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(_BUILTIN_RAISE_ALLOWED):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                exc = node.exc if isinstance(node, ast.Raise) else None
                if (
                    isinstance(exc, ast.Call)
                    and isinstance(exc.func, ast.Name)
                    and exc.func.id in _BUILTIN_ERRORS
                ):
                    found.append(f"{rel}:{node.lineno}: raise {exc.func.id}(...)")
    assert found == []
