"""``Scenario``: a named, ordered list of modifications applied to a copy of a network."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from otpa.analysis.scenario.apply import apply_modifications, check_modifications
from otpa.analysis.scenario.errors import ScenarioError
from otpa.analysis.scenario.modifications import Modification, parse_modification
from otpa.analysis.scenario.validate import MAX_MODIFICATIONS, check_safe_id, check_text
from otpa.network import TransportNetwork

__all__ = ["FORMAT_VERSION", "MAX_DOCUMENT_BYTES", "Scenario"]

#: Version of the JSON document written by :meth:`Scenario.to_json`.
FORMAT_VERSION = 1
#: Largest JSON document :meth:`Scenario.from_json` reads.
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
_FIELDS = ("name", "modifications", "id", "description")


@dataclass(frozen=True)
class Scenario:
    """An ordered list of modifications, in the manner of Conveyal R5 scenarios.

    Parameters
    ----------
    name
        Display name.
    modifications
        Applied in order; each sees the network as the earlier ones left it.
    id
        Identifier (letters, digits, ``_``, ``-``); :class:`ScenarioStore`
        assigns one when saving a scenario without.
    description
        Free text.

    Examples
    --------
    >>> from otpa.analysis.scenario import AdjustSpeed, RemoveRoutes, Scenario
    >>> s = Scenario("faster green", (RemoveRoutes(("f:BLUE",)), AdjustSpeed(("f:GREEN",), 1.25)))
    >>> Scenario.from_json(s.to_json()) == s
    True
    >>> new_network = s.apply(network)  # doctest: +SKIP
    """

    name: str
    modifications: tuple[Modification, ...] = ()
    id: str | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.modifications, tuple):
            object.__setattr__(self, "modifications", tuple(self.modifications))

    # -- checks ---------------------------------------------------------------------------
    def check(self) -> list[str]:
        """Problems visible without a network: name, id, size, and each modification's values."""
        problems = check_text(self.name, "name")
        if self.id is not None:
            problems += check_safe_id(self.id, "id")
        if not isinstance(self.description, str):
            problems.append("description must be a string")
        if len(self.modifications) > MAX_MODIFICATIONS:
            problems.append(
                f"a scenario holds at most {MAX_MODIFICATIONS} modifications, "
                f"got {len(self.modifications)}"
            )
        return problems

    def validate(self, network: TransportNetwork) -> list[str]:
        """Every problem of the scenario against ``network`` (empty when it applies).

        Each modification is checked against the network as the earlier
        modifications leave it; problems are prefixed with the modification's
        position and type.  A modification with problems is skipped, so later
        ones may report ids it would have created.

        Parameters
        ----------
        network
            The base network.

        Returns
        -------
        list of str
            One sentence per problem.
        """
        problems = self.check()
        if len(self.modifications) > MAX_MODIFICATIONS:
            return problems
        return problems + check_modifications(network, self.modifications)[1]

    def apply(self, network: TransportNetwork) -> TransportNetwork:
        """A new network: ``network`` with the modifications applied (it is never changed).

        Parameters
        ----------
        network
            The base network.

        Returns
        -------
        TransportNetwork
            The modified copy; ``meta["scenario"]`` holds the scenario's id and
            name, ``meta["scenario_warnings"]`` any warnings (new stops far
            from streets).  RAPTOR timetables are cached per transit model,
            so the copy gets its own.

        Raises
        ------
        ScenarioError
            If the scenario is invalid; ``.problems`` lists every problem.
        """
        problems = self.check()
        if problems:
            msg = f"scenario {self.name!r} is invalid"
            raise ScenarioError(msg, problems)
        meta = {"scenario": {"id": self.id, "name": self.name, "description": self.description}}
        try:
            return apply_modifications(network, self.modifications, meta=meta)
        except ScenarioError as exc:
            msg = f"scenario {self.name!r} does not fit the network"
            raise ScenarioError(msg, exc.problems) from None

    # -- JSON -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The scenario as a JSON-ready dict."""
        return {
            "version": FORMAT_VERSION,
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "modifications": [m.to_dict() for m in self.modifications],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The scenario as a JSON document (see :meth:`from_json`)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, document: str | bytes | Mapping[str, Any]) -> Scenario:
        """Read a scenario from its JSON document (text, bytes or a decoded object).

        Parameters
        ----------
        document
            ``{"name": ..., "modifications": [{"type": ..., ...}, ...], "id": ...,
            "description": ..., "version": 1}``; ``name`` and ``modifications``
            are required.

        Raises
        ------
        ScenarioError
            If the document is not JSON, too large, or has unknown
            modification types, missing or unknown fields, badly typed or
            out-of-range values; ``.problems`` lists them all.
        """
        data = _decode(document)
        problems = [f"unknown field {k!r}" for k in data if k not in (*_FIELDS, "version")]
        problems += [f"missing field {k!r}" for k in ("name", "modifications") if k not in data]
        version = data.get("version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            problems.append(f"unsupported version {version!r} (this otpa reads {FORMAT_VERSION})")
        raw = data.get("modifications", [])
        mods: list[Modification] = []
        if not isinstance(raw, list):
            problems.append("modifications must be a list")
        elif len(raw) > MAX_MODIFICATIONS:
            problems.append(
                f"a scenario holds at most {MAX_MODIFICATIONS} modifications, got {len(raw)}"
            )
        else:
            for k, item in enumerate(raw):
                mod, found = parse_modification(item)
                where = f"modification {k}" + (f" ({mod.type})" if mod is not None else "")
                if mod is not None:
                    found = mod.check()
                    mods.append(mod)
                problems += [f"{where}: {p}" for p in found]
        scenario = cls(
            name=data.get("name", ""),
            modifications=tuple(mods),
            id=data.get("id"),
            description=data.get("description", ""),
        )
        if "name" in data:
            problems += scenario.check()
        if problems:
            msg = "invalid scenario document"
            raise ScenarioError(msg, problems)
        return scenario


def _decode(document: str | bytes | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(document, Mapping):
        return document
    if len(document) > MAX_DOCUMENT_BYTES:
        msg = f"scenario document larger than {MAX_DOCUMENT_BYTES} bytes"
        raise ScenarioError(msg)
    try:
        data = json.loads(document)
    except ValueError as exc:
        msg = f"scenario document is not valid JSON ({exc})"
        raise ScenarioError(msg) from None
    if not isinstance(data, dict):
        msg = "scenario document must be a JSON object"
        raise ScenarioError(msg)
    return data
