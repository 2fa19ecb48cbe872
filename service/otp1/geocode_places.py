"""Geocoding of ``fromPlace``/``toPlace`` before planning (OTP 1.x's GEOCODE_* messages).

A place string that holds no coordinate and does not look like an id
(``feedId:stopId``, ``osm:node:123``: a colon and no spaces) is a name: it is
looked up in the router's geocoder index and replaced by ``name::lat,lon``
(the ``name::`` given by the client is kept).  When nothing matches the plan
answers ``GEOCODE_FROM_NOT_FOUND`` / ``GEOCODE_TO_NOT_FOUND`` /
``GEOCODE_FROM_TO_NOT_FOUND``; when the best matches are different places
far apart (``Hauptbahnhof`` in a region with several), it answers
``GEOCODE_FROM_AMBIGUOUS`` / ``..._TO_...`` / ``..._FROM_TO_...``.  Stops of
one name (platforms) are one place: their cluster is used.

Routing never imports the geocoder: this runs in the service, before the
query is parsed into a :class:`otpa.PlanRequest`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from otpa.geocode import GeocodeQueryError, GeocodeResult, fold
from otpa.routing.errors import InvalidRequestError
from otpa.util.geo import haversine_m

__all__ = ["AMBIGUOUS_DISTANCE_M", "geocode_places", "needs_geocoding"]

#: Equally good matches farther apart than this make a place ambiguous.
AMBIGUOUS_DISTANCE_M = 1000.0
_COORD = re.compile(r"-?\d+(?:\.\d+)?\s*[, ]\s*-?\d+(?:\.\d+)?")
_PARAMS = (("fromPlace", "FROM"), ("toPlace", "TO"))
#: Matches of the best tier within this many score points count as equally good.
_SCORE_MARGIN = 2.0


def needs_geocoding(place: str) -> bool:
    """Whether a place string (after ``name::``) names a place rather than locating it.

    Examples
    --------
    >>> needs_geocoding("Bismarckplatz"), needs_geocoding("49.41,8.69")
    (True, False)
    >>> needs_geocoding("rnv:114606"), needs_geocoding("osm:node:42")
    (False, False)
    """
    text = place.strip()
    if not text or _COORD.search(text):
        return False
    return not (":" in text and not any(c.isspace() for c in text))


def _pick(results: Sequence[GeocodeResult]) -> GeocodeResult | None:
    """The match to plan from, or None when the best matches are different, distant places."""
    first = results[0]
    top = [r for r in results if r.tier == first.tier and r.score >= first.score - _SCORE_MARGIN]
    names = {fold(r.name) for r in top}
    if len(names) > 1:
        far = any(
            float(haversine_m(first.lat, first.lng, r.lat, r.lng)) > AMBIGUOUS_DISTANCE_M
            for r in top[1:]
        )
        if far:
            return None
    clusters = [r for r in top if r.kind == "cluster"]
    return clusters[0] if clusters else top[0]


def geocode_places(network: Any, query: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Return the query with named ``fromPlace``/``toPlace`` replaced by coordinates.

    Parameters
    ----------
    network
        The router's network (its :meth:`~otpa.network.TransportNetwork.geocoder`).
    query
        The plan query arguments.

    Raises
    ------
    otpa.routing.errors.InvalidRequestError
        With a ``GEOCODE_*`` code (answered as a PlannerError) when a place is
        not found or ambiguous.
    """
    out = {k: list(v) for k, v in query.items()}
    missing: list[str] = []
    ambiguous: list[str] = []
    for param, side in _PARAMS:
        values = out.get(param)
        if not values:
            continue
        name, sep, place = values[0].partition("::")
        if not sep:
            name, place = "", values[0]
        if not needs_geocoding(place) or not hasattr(network, "geocoder"):
            continue
        try:
            found = network.geocoder().search(place, clusters=True, limit=10)
        except GeocodeQueryError:
            found = []
        if not found:
            missing.append(side)
            continue
        chosen = _pick(found)
        if chosen is None:
            ambiguous.append(side)
            continue
        out[param] = [f"{name or chosen.name}::{chosen.lat},{chosen.lng}", *values[1:]]
    for problems, kind in ((missing, "NOT_FOUND"), (ambiguous, "AMBIGUOUS")):
        if problems:
            code = f"GEOCODE_{'_'.join(problems)}_{kind}"
            param = "fromPlace" if problems[0] == "FROM" else "toPlace"
            msg = f"{param}: the place name is {'unknown' if kind == 'NOT_FOUND' else 'ambiguous'}"
            raise InvalidRequestError(msg, parameter=param, code=code)
    return out
