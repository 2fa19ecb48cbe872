"""Shared pytest fixtures: where the real test data lives, and small helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# street searches check that the label arrays they reuse are clean (otpa.street._label_pool);
# set before otpa is imported, and inherited by the servers tests start
os.environ.setdefault("OTPA_CHECK_LABEL_POOL", "1")

from tests.fixtures.early_jobs import EARLY_JOBS

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the long subprocess checks the selected tests wait for (``early_job``)."""
    names = {m.args[0] for item in session.items for m in item.iter_markers("early_job")}
    EARLY_JOBS.start(names)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Kill early jobs no test waited for (an interrupted or failed-fast run)."""
    EARLY_JOBS.stop()


def _data_root() -> Path:
    env = os.environ.get("OTPA_DATA")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "data"


DATA_ROOT = _data_root()


def require_data(*parts: str) -> Path:
    """Return a path inside the shared data folder, or skip (fail under CI) if absent."""
    path = DATA_ROOT.joinpath(*parts)
    if not path.exists():
        msg = f"test data not found: {path} (set OTPA_DATA or put shared/data beside the repo)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The shared data folder (``../shared/data`` or ``$OTPA_DATA``)."""
    return require_data()
