"""Draw a transport network's streets and stops on an ipyleaflet map.

Maps start with no web basemap: tiles from a CDN would break offline use,
so the street graph itself is the base layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from otpa.viz._widgets import leaflet

if TYPE_CHECKING:
    import ipyleaflet

    from otpa.network import TransportNetwork

__all__ = ["network_geojson", "network_map"]


def network_geojson(
    network: TransportNetwork, *, max_edges: int = 30_000, seed: int = 0
) -> dict[str, Any]:
    """Street segments and stops as two GeoJSON FeatureCollections.

    Parameters
    ----------
    network
        The network to draw.
    max_edges
        Draw at most this many street segments (a random sample beyond that).
    seed
        Seed of that sample, so the picture is reproducible.

    Returns
    -------
    dict
        ``{"streets": FeatureCollection, "stops": FeatureCollection}``.
    """
    streets: list[dict[str, Any]] = []
    street = network.street
    if street is not None:
        offs = np.asarray(street.seg_geom_offsets)
        lat = np.asarray(street.geom_lat)
        lon = np.asarray(street.geom_lon)
        n = len(offs) - 1
        pick = np.arange(n)
        if n > max_edges:
            pick = np.sort(np.random.default_rng(seed).choice(n, max_edges, replace=False))
        for s in pick.tolist():
            a, b = int(offs[s]), int(offs[s + 1])
            coords = np.column_stack([lon[a:b], lat[a:b]]).round(6).tolist()
            streets.append(
                {
                    "type": "Feature",
                    "properties": {},
                    "geometry": {"type": "LineString", "coordinates": coords},
                }
            )
    stops = network.transit.stops
    stop_features = [
        {
            "type": "Feature",
            "properties": {"id": str(sid), "name": None if name is None else str(name)},
            "geometry": {"type": "Point", "coordinates": [round(float(x), 6), round(float(y), 6)]},
        }
        for sid, name, x, y in zip(
            stops.stop_id.tolist(),
            stops.name.tolist(),
            stops.lon.tolist(),
            stops.lat.tolist(),
            strict=True,
        )
        if np.isfinite(x) and np.isfinite(y)
    ]
    return {
        "streets": {"type": "FeatureCollection", "features": streets},
        "stops": {"type": "FeatureCollection", "features": stop_features},
    }


def network_map(
    network: TransportNetwork, *, max_edges: int = 30_000, zoom: int = 13
) -> ipyleaflet.Map:
    """An ipyleaflet map of the street graph (grey) and the stops (dots).

    Examples
    --------
    >>> m = network_map(net)  # doctest: +SKIP
    >>> m  # in a notebook, displays the map  # doctest: +SKIP
    """
    ipyleaflet = leaflet()

    layers = network_geojson(network, max_edges=max_edges)
    lat, lon = network.center
    m = ipyleaflet.Map(center=(lat, lon), zoom=zoom, layers=(), scroll_wheel_zoom=True)
    m.add(
        ipyleaflet.GeoJSON(
            data=layers["streets"], name="streets", style={"color": "#888", "weight": 1.5}
        )
    )
    m.add(
        ipyleaflet.GeoJSON(
            data=layers["stops"],
            name="stops",
            point_style={"radius": 4, "color": "#c0392b", "fillOpacity": 0.9, "weight": 1},
        )
    )
    m.add(ipyleaflet.LayersControl(position="topright"))
    b = network.bounds
    m.fit_bounds([[b[1], b[0]], [b[3], b[2]]])
    return m
