"""``ScenarioStore``: scenarios kept as JSON documents in a folder, per router.

Layout: ``<folder>/<router_id>/<scenario_id>.json``.  Router and scenario ids
must be safe file names (letters, digits, ``_`` and ``-``), so no id can
reach outside the folder.  Writes are atomic (a temporary file in the same
folder, flushed, then renamed over the target), so a reader never sees a
half-written document.
"""

from __future__ import annotations

import builtins
import uuid
from dataclasses import replace
from pathlib import Path

from otpa.analysis.scenario.errors import ScenarioError
from otpa.analysis.scenario.scenario import Scenario
from otpa.analysis.scenario.validate import check_safe_id
from otpa.errors import UnknownIdError
from otpa.types import PathLike
from otpa.util.files import write_text_atomic

__all__ = ["ScenarioStore"]


class ScenarioStore:
    """Scenarios of each router, stored as JSON documents.

    Parameters
    ----------
    folder
        Root folder (created on the first save).

    Examples
    --------
    >>> import tempfile
    >>> from otpa.analysis.scenario import RemoveRoutes, Scenario, ScenarioStore
    >>> store = ScenarioStore(tempfile.mkdtemp())
    >>> sid = store.save("default", Scenario("no blue", (RemoveRoutes(("f:BLUE",)),)))
    >>> store.get("default", sid).name
    'no blue'
    >>> [s.id for s in store.list("default")] == [sid]
    True
    """

    def __init__(self, folder: PathLike) -> None:
        self.folder = Path(folder)

    def _router_dir(self, router_id: str) -> Path:
        problems = check_safe_id(router_id, "router id")
        if problems:
            raise ScenarioError(problems[0])
        return self.folder / router_id

    def _path(self, router_id: str, scenario_id: str) -> Path:
        problems = check_safe_id(scenario_id, "scenario id")
        if problems:
            raise ScenarioError(problems[0])
        return self._router_dir(router_id) / f"{scenario_id}.json"

    def save(self, router_id: str, scenario: Scenario) -> str:
        """Store ``scenario`` (replacing one with the same id) and return its id.

        A scenario without an id gets a new random one.

        Raises
        ------
        ScenarioError
            If an id is not a safe file name or the scenario is malformed.
        """
        if scenario.id is None:
            scenario = replace(scenario, id=uuid.uuid4().hex[:16])
        problems = scenario.check()
        if problems:
            msg = f"cannot save scenario {scenario.name!r}"
            raise ScenarioError(msg, problems)
        assert scenario.id is not None
        path = self._path(router_id, scenario.id)
        write_text_atomic(path, scenario.to_json(), prefix=".scenario-")
        return scenario.id

    def get(self, router_id: str, scenario_id: str) -> Scenario:
        """The stored scenario.

        Raises
        ------
        otpa.errors.UnknownIdError
            If there is no such scenario.
        ScenarioError
            If an id is unsafe or the stored document is malformed.
        """
        path = self._path(router_id, scenario_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            msg = f"router {router_id!r} has no scenario {scenario_id!r}"
            raise UnknownIdError(msg) from None
        scenario = Scenario.from_json(text)
        return scenario if scenario.id == scenario_id else replace(scenario, id=scenario_id)

    def list(self, router_id: str) -> builtins.list[Scenario]:
        """Every stored scenario of a router, by id."""
        folder = self._router_dir(router_id)
        if not folder.is_dir():
            return []
        ids = sorted(p.stem for p in folder.glob("*.json") if not check_safe_id(p.stem, "id"))
        return [self.get(router_id, i) for i in ids]

    def delete(self, router_id: str, scenario_id: str) -> None:
        """Remove a stored scenario.

        Raises
        ------
        otpa.errors.UnknownIdError
            If there is no such scenario.
        """
        path = self._path(router_id, scenario_id)
        try:
            path.unlink()
        except FileNotFoundError:
            msg = f"router {router_id!r} has no scenario {scenario_id!r}"
            raise UnknownIdError(msg) from None

