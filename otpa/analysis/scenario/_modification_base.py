"""The shared behaviour of scenario modifications: validation entry point, JSON form."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, ClassVar

from otpa.analysis.scenario import _json as js
from otpa.analysis.scenario._draft import Draft
from otpa.analysis.scenario.validate import check_ids
from otpa.errors import ArgumentTypeError

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["MAX_DWELL_S", "MAX_SCALE", "ModificationBase", "route_problems"]

#: Longest dwell or saved time accepted at one stop (seconds).
MAX_DWELL_S = 3600
#: Largest speed or dwell scale factor accepted.
MAX_SCALE = 100.0


class ModificationBase:
    """Shared behaviour: tuple coercion, validation entry point, JSON form."""

    type: ClassVar[str]
    _readers: ClassVar[dict[str, js.Reader]]
    _time_fields: ClassVar[frozenset[str]] = frozenset()
    _tuple_fields: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        for name in self._tuple_fields:
            value = getattr(self, name)
            if isinstance(value, str):
                msg = f"{type(self).__name__}.{name} must be a sequence of ids, not a string"
                raise ArgumentTypeError(msg)
            if value is not None and not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))

    def check(self) -> list[str]:
        """Problems visible without a network (bad values, missing choices)."""
        return []

    def _network_problems(self, draft: Draft) -> list[str]:
        return []

    def problems(self, draft: Draft) -> list[str]:
        """Every problem against a draft network (see :meth:`validate`)."""
        return [*self.check(), *self._network_problems(draft)]

    def validate(self, network: TransportNetwork) -> list[str]:
        """Every problem of this modification against ``network`` (empty when it applies).

        Parameters
        ----------
        network
            The network the modification would be applied to.

        Returns
        -------
        list of str
            One sentence per problem.
        """
        return self.problems(Draft(network))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this modification (``"type"`` first)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = js.to_json_value(value, time=f.name in self._time_fields)
        return out


def route_problems(draft: Draft, routes: tuple[str, ...], field: str) -> list[str]:
    """Unknown routes, and known routes with no trips left."""
    problems = check_ids(draft, "routes", routes, field)
    if problems:
        return problems
    with_trips = {b.route for b in draft.blocks if b.n_trips}
    return [
        f"{field}: route {r!r} has no trips"
        for r in routes
        if draft.route_index(r) not in with_trips
    ]
