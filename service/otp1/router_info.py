"""RouterInfo and RouterList as OTP 1.x served them (``GET /otp/routers[/{id}]``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

__all__ = [
    "LONG_MAX",
    "RouterInfoSource",
    "polygon_geojson",
    "polygon_gml",
    "router_info",
    "router_info_xml",
    "router_list",
    "router_list_xml",
    "travel_options",
]

#: Java's ``Long.MAX_VALUE``: OTP's transitServiceStarts when a graph has no transit.
LONG_MAX = 9223372036854775807


class RouterInfoSource(Protocol):
    """The attributes of :class:`otpa.network.TransportNetwork` that RouterInfo reads."""

    @property
    def build_time_ms(self) -> int: ...
    @property
    def bounds(self) -> tuple[float, float, float, float]: ...
    @property
    def convex_hull(self) -> Sequence[tuple[float, float]]: ...
    @property
    def center(self) -> tuple[float, float]: ...
    @property
    def transit_service_range(self) -> tuple[int, int] | None: ...
    @property
    def transit_modes(self) -> Sequence[str]: ...
    @property
    def has_park_ride(self) -> bool: ...
    @property
    def has_bike_park(self) -> bool: ...
    @property
    def bike_rental_station_count(self) -> int: ...


def travel_options(
    transit_modes: Sequence[str],
    *,
    has_bike_sharing: bool,
    has_bike_ride: bool,
    has_park_ride: bool,
) -> list[dict[str, str]]:
    """Return the "travel by" options list exactly as OTP 1.x's ``TravelOptionsMaker`` built it.

    Parameters
    ----------
    transit_modes
        OTP TraverseMode names present in the graph (``"BUS"``, ``"RAIL"``...).
    has_bike_sharing
        More than one bike rental station.
    has_bike_ride
        Any bike park (bike & ride).
    has_park_ride
        Any park & ride lot.

    Returns
    -------
    list of dict
        ``[{"value": ..., "name": ...}, ...]`` in OTP's order.

    Examples
    --------
    >>> [o["name"] for o in travel_options(["BUS"], has_bike_sharing=False,
    ...                                    has_bike_ride=False, has_park_ride=True)]
    ['TRANSIT', 'BUS', 'WALK', 'BICYCLE', 'CAR', 'TRANSIT_BICYCLE', 'PARKRIDE', 'KISSRIDE']
    """

    def opt(value: str, name: str | None = None) -> dict[str, str]:
        return {"value": value, "name": value if name is None else name}

    has_transit = len(transit_modes) > 0
    options: list[dict[str, str]] = []
    if has_transit:
        options.append(opt("TRANSIT,WALK", "TRANSIT"))
        options.extend(opt(f"{mode},WALK", mode) for mode in transit_modes)
    options.extend([opt("WALK"), opt("BICYCLE"), opt("CAR")])
    if has_bike_sharing:
        options.append(opt("WALK,BICYCLE_RENT", "BICYCLERENT"))
    if has_transit:
        options.append(opt("TRANSIT,BICYCLE", "TRANSIT_BICYCLE"))
        if has_bike_sharing:
            options.append(opt("TRANSIT,WALK,BICYCLE_RENT", "TRANSIT_BICYCLERENT"))
        if has_park_ride:
            options.append(opt("CAR_PARK,WALK,TRANSIT", "PARKRIDE"))
        if has_bike_ride:
            options.append(opt("BICYCLE_PARK,WALK,TRANSIT", "BIKERIDE"))
        options.append(opt("CAR,WALK,TRANSIT", "KISSRIDE"))
    return options


def _points(ring: Iterable[tuple[float, float]]) -> list[list[float]]:
    return [[float(lon), float(lat)] for lon, lat in ring]


def polygon_geojson(ring: Sequence[tuple[float, float]]) -> dict[str, Any] | None:
    """Return a convex hull as a GeoJSON geometry (what OTP's GeometrySerializer wrote).

    A closed ring of at least four points is a ``Polygon``; degenerate hulls
    become a ``Point`` or ``LineString`` as JTS would return them; an empty hull
    is None (omitted from JSON).

    Parameters
    ----------
    ring
        ``(lon, lat)`` pairs, first equal to last for a polygon.

    Returns
    -------
    dict or None
        A GeoJSON geometry.

    Examples
    --------
    >>> polygon_geojson([(0, 0), (1, 0), (1, 1), (0, 0)])["type"]
    'Polygon'
    """
    points = _points(ring)
    if not points:
        return None
    if len(points) >= 4 and points[0] == points[-1]:
        return {"type": "Polygon", "coordinates": [points]}
    if len(points) == 1:
        return {"type": "Point", "coordinates": points[0]}
    return {"type": "LineString", "coordinates": points}


def polygon_gml(geometry: Mapping[str, Any] | None) -> str | None:
    """Return a GeoJSON hull as the GML2 text OTP's XML ``GeometryAdapter`` produced.

    Parameters
    ----------
    geometry
        A GeoJSON ``Polygon``, ``LineString`` or ``Point`` (from :func:`polygon_geojson`).

    Returns
    -------
    str or None
        e.g. ``<Polygon><outerBoundaryIs><LinearRing><coordinates>0.0,0.0 ...``.

    Examples
    --------
    >>> polygon_gml({"type": "Point", "coordinates": [1.0, 2.0]})
    '<Point><coordinates>1.0,2.0</coordinates></Point>'
    """
    if not geometry:
        return None
    kind, coords = geometry["type"], geometry["coordinates"]
    points = coords[0] if kind == "Polygon" else [coords] if kind == "Point" else coords
    text = f"<coordinates>{' '.join(f'{lon!r},{lat!r}' for lon, lat in points)}</coordinates>"
    if kind == "Polygon":
        return (
            f"<Polygon><outerBoundaryIs><LinearRing>{text}</LinearRing></outerBoundaryIs></Polygon>"
        )
    return f"<{kind}>{text}</{kind}>"


def router_info(
    router_id: str, network: RouterInfoSource, live_bike_stations: int = 0
) -> dict[str, Any]:
    """Return the RouterInfo of one router, every field of OTP 1.x in its order.

    Parameters
    ----------
    router_id
        The router's id.
    network
        The loaded transport network.
    live_bike_stations
        Docking stations of the router's live ``bike-rental`` feeds (bike sharing exists
        when there is one, or more than one OSM station).

    Returns
    -------
    dict
        The RouterInfo JSON object (``polygon`` is omitted for an empty hull).
    """
    min_lon, min_lat, max_lon, max_lat = (float(v) for v in network.bounds)
    center_lat, center_lon = (float(v) for v in network.center)
    service_range = network.transit_service_range
    starts, ends = (LONG_MAX, 0) if service_range is None else (int(v) for v in service_range)
    modes = [str(m) for m in network.transit_modes]
    # OSM stations (OTP 1.x: more than one), or live GBFS bike-rental stations
    has_bike_sharing = int(network.bike_rental_station_count) > 1 or live_bike_stations > 0
    has_bike_park = bool(network.has_bike_park)
    has_park_ride = bool(network.has_park_ride)
    return {
        "routerId": router_id,
        "polygon": polygon_geojson(network.convex_hull),
        "buildTime": int(network.build_time_ms),
        "transitServiceStarts": starts,
        "transitServiceEnds": ends,
        "transitModes": modes,
        "centerLatitude": center_lat,
        "centerLongitude": center_lon,
        "hasParkRide": has_park_ride,
        "travelOptions": travel_options(
            modes,
            has_bike_sharing=has_bike_sharing,
            has_bike_ride=has_bike_park,
            has_park_ride=has_park_ride,
        ),
        "lowerLeftLatitude": min_lat,
        "lowerLeftLongitude": min_lon,
        "upperRightLatitude": max_lat,
        "upperRightLongitude": max_lon,
        "hasBikeSharing": has_bike_sharing,
        "hasBikePark": has_bike_park,
    }


def router_list(routers: Iterable[tuple[str, RouterInfoSource]]) -> dict[str, Any]:
    """Return the RouterList object: ``{"routerInfo": [RouterInfo, ...]}``."""
    return {"routerInfo": [router_info(rid, net) for rid, net in routers]}


def _xml_datetime(epoch_ms: int) -> str:
    moment = dt.datetime.fromtimestamp(epoch_ms / 1000, tz=dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def router_info_xml(info: Mapping[str, Any]) -> dict[str, Any]:
    """Adapt a RouterInfo dict to OTP's XML form (GML2 polygon text, xsd:dateTime buildTime)."""
    adapted = dict(info)
    adapted["polygon"] = polygon_gml(info.get("polygon"))
    adapted["buildTime"] = _xml_datetime(int(info["buildTime"]))
    return adapted


def router_list_xml(router_list: Mapping[str, Any]) -> dict[str, Any]:
    """Adapt a RouterList dict to OTP's XML form (repeated ``routerInfo`` elements)."""
    return {"routerInfo": [router_info_xml(info) for info in router_list["routerInfo"]]}
