"""Resolve request locations (coordinates, stop ids, vertex labels) against a network."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from otpa.network import TransportNetwork
from otpa.routing._tables import row as table_row
from otpa.routing.errors import OutsideBoundsError
from otpa.routing.request import Location

__all__ = ["Endpoint", "resolve_location"]

#: Points farther than this outside the network's bounds are out of bounds.
_BOUNDS_MARGIN_DEG = 0.05


@dataclass(frozen=True)
class Endpoint:
    """A resolved origin, destination or via point.

    Attributes
    ----------
    lat, lon
        Coordinate of the point.
    name
        Display name.
    orig
        The name given in the request (``""`` if none).
    stop
        Transit stop index when the location is a stop id.
    vertex
        Street vertex when the location is a vertex label or a linked stop.
    """

    lat: float
    lon: float
    name: str
    orig: str
    stop: int | None = None
    vertex: int | None = None


def _find_stop(network: TransportNetwork, label: str) -> int | None:
    stops = network.transit.stops
    if not len(stops):
        return None
    ids = stops["stop_id"].astype(str).to_numpy()
    hit = np.flatnonzero(ids == label)
    if hit.size == 0 and "_" in label and ":" not in label:
        # OTP's underscore form feed_stop
        feed, _, raw = label.partition("_")
        hit = np.flatnonzero(ids == f"{feed}:{raw}")
    return int(hit[0]) if hit.size else None


def _find_vertex(network: TransportNetwork, label: str) -> int | None:
    street = network.street
    if street is None:
        return None
    prefix = "osm:node:"
    if not label.startswith(prefix):
        return None
    try:
        osm_id = int(label[len(prefix) :])
    except ValueError:
        return None
    hit = np.flatnonzero(np.asarray(street.vertex_osm_id) == osm_id)
    return int(hit[0]) if hit.size else None


def _inside(network: TransportNetwork, lat: float, lon: float) -> bool:
    min_lon, min_lat, max_lon, max_lat = network.bounds
    m = _BOUNDS_MARGIN_DEG
    return (min_lat - m) <= lat <= (max_lat + m) and (min_lon - m) <= lon <= (max_lon + m)


def resolve_location(
    network: TransportNetwork, location: Location, role: str, default_name: str
) -> Endpoint:
    """Resolve a location; raise :class:`OutsideBoundsError` when it cannot be used.

    Parameters
    ----------
    network
        The network.
    location
        The requested location.
    role
        ``"from"`` or ``"to"`` (named in the error's ``missing`` list).
    default_name
        Name used for a coordinate without a name ("Origin", "Destination").
    """
    orig = location.name
    if location.has_coordinate:
        assert location.lat is not None
        assert location.lon is not None
        if not _inside(network, location.lat, location.lon):
            msg = f"{role} place {location.lat},{location.lon} is outside the network"
            raise OutsideBoundsError(msg, missing=(role,))
        return Endpoint(location.lat, location.lon, orig or default_name, orig)
    label = location.label or ""
    stop = _find_stop(network, label)
    if stop is not None:
        row = table_row(network.transit, "stops", stop)
        vertex = int(network.stop_vertex[stop]) if network.stop_vertex.size else -1
        return Endpoint(
            float(row["lat"]),
            float(row["lon"]),
            orig or str(row["name"]),
            orig,
            stop=stop,
            vertex=vertex if vertex >= 0 else None,
        )
    label_vertex = _find_vertex(network, label)
    if label_vertex is not None and network.street is not None:
        return Endpoint(
            float(network.street.vertex_lat[label_vertex]),
            float(network.street.vertex_lon[label_vertex]),
            orig or label,
            orig,
            vertex=label_vertex,
        )
    msg = f"{role} place {label!r} is neither a coordinate, a stop id nor a vertex label"
    raise OutsideBoundsError(msg, missing=(role,))
