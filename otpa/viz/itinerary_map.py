"""Draw planned itineraries on an ipyleaflet map (legs coloured by mode)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from otpa.util.polyline import decode_polyline
from otpa.viz._widgets import leaflet

if TYPE_CHECKING:
    import ipyleaflet

    from otpa.network import TransportNetwork
    from otpa.routing.model import Itinerary

__all__ = ["MODE_COLORS", "itinerary_geojson", "itinerary_map"]

#: Line colour per leg mode.
MODE_COLORS = {
    "WALK": "#7f8c8d",
    "BICYCLE": "#27ae60",
    "CAR": "#8e44ad",
    "BUS": "#2980b9",
    "RAIL": "#c0392b",
    "SUBWAY": "#d35400",
    "TRAM": "#16a085",
    "FERRY": "#2c3e50",
}


def itinerary_geojson(itinerary: Itinerary) -> dict[str, Any]:
    """The legs of an itinerary as a GeoJSON FeatureCollection of LineStrings.

    Each feature carries ``mode``, ``route``, ``from``, ``to``, ``start``, ``end``
    (ISO times) and ``color`` properties.
    """
    features = []
    for i, leg in enumerate(itinerary.legs):
        lat, lon = decode_polyline(leg.leg_geometry.points)
        features.append(
            {
                "type": "Feature",
                "properties": {
                    "leg": i,
                    "mode": leg.mode,
                    "route": leg.route,
                    "from": leg.from_place.name,
                    "to": leg.to_place.name,
                    "start": leg.start_time.isoformat(),
                    "end": leg.end_time.isoformat(),
                    "color": MODE_COLORS.get(leg.mode, "#34495e"),
                },
                "geometry": {
                    "type": "LineString",
                    "coordinates": [[x, y] for y, x in zip(lat, lon, strict=True)],
                },
            }
        )
    return {"type": "FeatureCollection", "features": features}


def itinerary_map(
    network: TransportNetwork,
    itineraries: Itinerary | Sequence[Itinerary],
    *,
    zoom: int = 14,
    show_network: bool = True,
) -> ipyleaflet.Map:
    """An ipyleaflet map of one or more itineraries over the network.

    Legs are drawn in their mode's colour (:data:`MODE_COLORS`); each
    itinerary is its own layer, so the layer control can toggle them.
    """
    ipyleaflet = leaflet()

    from otpa.viz.network_map import network_map

    its = [itineraries] if not isinstance(itineraries, Sequence) else list(itineraries)
    if show_network:
        m = network_map(network, zoom=zoom)
    else:
        lat, lon = network.center
        m = ipyleaflet.Map(center=(lat, lon), zoom=zoom, layers=(), scroll_wheel_zoom=True)
    lats: list[float] = []
    lons: list[float] = []
    for k, it in enumerate(its):
        data = itinerary_geojson(it)
        for f in data["features"]:
            for x, y in f["geometry"]["coordinates"]:
                lons.append(x)
                lats.append(y)
        m.add(
            ipyleaflet.GeoJSON(
                data=data,
                name=f"itinerary {k + 1}",
                style={"weight": 5, "opacity": 0.8},
                style_callback=lambda feature: {"color": feature["properties"]["color"]},
            )
        )
    if lats:
        m.fit_bounds([[min(lats), min(lons)], [max(lats), max(lons)]])
    return m
