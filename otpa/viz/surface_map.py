"""Draw analysis results on ipyleaflet maps: time surfaces, isochrones, values per cell.

Every map is built from GeoJSON layers whose features carry their own style
(``properties.style``), a :class:`~otpa.viz.colors.ColorScale` that classes the values, and a
legend control. Like :func:`~otpa.viz.network_map`, the maps have **no web
basemap** (the street graph can be drawn underneath instead), and their view is
computed here rather than with ``Map.fit_bounds``, which needs a live frontend;
so the maps work offline and build the same way with or without a browser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from otpa.analysis import isochrones
from otpa.viz._widgets import leaflet
from otpa.viz.colors import ColorScale, travel_time_scale
from otpa.viz.result_geojson import (
    Shape,
    isochrone_geojson,
    selected_plane,
    surface_geojson,
    values_geojson,
)

if TYPE_CHECKING:
    import geopandas as gpd
    import ipyleaflet

    from otpa.analysis import PointSet
    from otpa.network import TransportNetwork

__all__ = ["choropleth_map", "difference_map", "isochrone_map", "surface_map"]

_MAP_PX = (800, 400)  # map size assumed when choosing the zoom
_STREET_STYLE = {"color": "#999", "weight": 1, "opacity": 0.6}
_STOP_STYLE = {"radius": 2, "color": "#555", "fillOpacity": 0.8, "weight": 0}


# -- maps ------------------------------------------------------------------------------------------
def _view(south: float, west: float, north: float, east: float) -> tuple[tuple[float, float], int]:
    """Centre and the largest zoom showing the box on an 800 x 400 pixel map."""
    width, height = _MAP_PX
    lon_span = max(east - west, 1e-9)

    def merc(lat: float) -> float:
        return math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))

    y_span = max(merc(north) - merc(south), 1e-9)
    zoom_x = math.log2(width * 360.0 / (256.0 * lon_span))
    zoom_y = math.log2(height * 2 * math.pi / (256.0 * y_span))
    zoom = int(min(max(math.floor(min(zoom_x, zoom_y)), 1), 18))
    return ((south + north) / 2.0, (west + east) / 2.0), zoom


def _bounds_of(features: list[dict[str, Any]]) -> tuple[float, float, float, float] | None:
    xs: list[float] = []
    ys: list[float] = []

    def walk(coords: Any) -> None:
        if coords and isinstance(coords[0], int | float):
            xs.append(float(coords[0]))
            ys.append(float(coords[1]))
        else:
            for c in coords:
                walk(c)

    for f in features:
        walk(f["geometry"]["coordinates"])
    if not xs:
        return None
    return min(ys), min(xs), max(ys), max(xs)


def _base_map(
    layers: list[dict[str, Any]],
    network: TransportNetwork | None,
    max_edges: int,
    fallback: tuple[float, float] | None,
) -> ipyleaflet.Map:
    ipyleaflet = leaflet()

    from otpa.viz.network_map import network_geojson

    box = _bounds_of([f for data in layers for f in data["features"]])
    if box is None and network is not None:
        w, s, e, n = network.bounds
        box = (s, w, n, e)
    if box is None:
        center, zoom = (fallback or (0.0, 0.0)), 12
    else:
        center, zoom = _view(*box)
    m = ipyleaflet.Map(center=center, zoom=zoom, layers=(), scroll_wheel_zoom=True)
    if network is not None:
        base = network_geojson(network, max_edges=max_edges)
        # styled feature by feature: a layer-wide style makes ipyleaflet deep-copy the data
        for feature in base["streets"]["features"]:
            feature["properties"]["style"] = _STREET_STYLE
        m.add(ipyleaflet.GeoJSON(data=base["streets"], name="streets"))
        m.add(ipyleaflet.GeoJSON(data=base["stops"], name="stops", point_style=_STOP_STYLE))
    return m


def _finish(m: ipyleaflet.Map, scale: ColorScale, origin: tuple[float, float] | None) -> None:
    ipyleaflet = leaflet()

    if origin is not None:
        m.add(
            ipyleaflet.CircleMarker(
                location=origin, radius=7, color="#000", weight=2, fill_color="#fff",
                fill_opacity=1.0, name="origin",
            )
        )  # fmt: skip
    m.add(ipyleaflet.LegendControl(scale.legend, title=scale.title, position="bottomright"))
    m.add(ipyleaflet.LayersControl(position="topright"))


def _origin(obj: xr.Dataset | xr.DataArray) -> tuple[float, float] | None:
    lat, lon = obj.attrs.get("origin_lat"), obj.attrs.get("origin_lon")
    return None if lat is None or lon is None else (float(lat), float(lon))


def surface_map(
    surface: xr.Dataset,
    *,
    percentile: int | None = None,
    cutoffs: Sequence[float] = (900, 1800, 2700, 3600),
    scale: ColorScale | None = None,
    network: TransportNetwork | None = None,
    max_edges: int = 10_000,
) -> ipyleaflet.Map:
    """A map of a time surface: cells (or points) coloured by travel-time class, the origin.

    Parameters
    ----------
    surface
        A grid or point-set time surface.
    percentile
        The percentile to draw (default: the middle one).
    cutoffs
        Class edges in seconds (classes ``0-15``, ``15-30``... minutes); longer times
        are left blank.
    scale
        Overrides ``cutoffs``.
    network
        Draw its streets and stops underneath.
    max_edges
        At most this many street segments (see :func:`~otpa.viz.network_geojson`).

    Examples
    --------
    >>> surface_map(ds, network=net)  # doctest: +SKIP
    """
    ipyleaflet = leaflet()

    scale = travel_time_scale(cutoffs) if scale is None else scale
    data = surface_geojson(surface, scale, percentile=percentile)
    m = _base_map([data], network, max_edges, _origin(surface))
    m.add(ipyleaflet.GeoJSON(data=data, name=scale.title or "travel time"))
    _finish(m, scale, _origin(surface))
    return m


def isochrone_map(
    surface_or_isochrones: xr.Dataset | gpd.GeoDataFrame,
    cutoffs: Sequence[float] = (900, 1800, 2700, 3600),
    *,
    percentile: int | None = None,
    origin: tuple[float, float] | None = None,
    scale: ColorScale | None = None,
    network: TransportNetwork | None = None,
    max_edges: int = 10_000,
) -> ipyleaflet.Map:
    """A map of isochrones as non-overlapping coloured bands, with a legend.

    Parameters
    ----------
    surface_or_isochrones
        A grid time surface (its isochrones are computed at ``cutoffs``) or the
        GeoDataFrame of :func:`otpa.analysis.isochrones`.
    cutoffs
        Isochrone times in seconds (for a surface).
    percentile
        Which percentile (default: the middle one).
    origin
        ``(lat, lon)`` marker (default: the surface's origin).
    scale
        Colours by time (default: :func:`travel_time_scale` over the times).
    network
        Draw its streets and stops underneath.
    max_edges
        At most this many street segments.
    """
    ipyleaflet = leaflet()

    if isinstance(surface_or_isochrones, xr.Dataset):
        origin = _origin(surface_or_isochrones) if origin is None else origin
        iso = isochrones(surface_or_isochrones, cutoffs, percentile=percentile)
    else:
        iso = surface_or_isochrones
    times = sorted({int(t) for t in iso["time"]}) or [int(c) for c in cutoffs]
    scale = travel_time_scale(times, title="isochrones") if scale is None else scale
    data = isochrone_geojson(iso, scale, percentile=percentile)
    m = _base_map([data], network, max_edges, origin)
    m.add(ipyleaflet.GeoJSON(data=data, name=scale.title or "isochrones"))
    _finish(m, scale, origin)
    return m


def choropleth_map(
    values: xr.DataArray | pd.Series[Any],
    *,
    points: PointSet | None = None,
    scale: ColorScale | None = None,
    shape: Shape = "hexagon",
    size_m: float | None = None,
    title: str | None = None,
    network: TransportNetwork | None = None,
    max_edges: int = 10_000,
) -> ipyleaflet.Map:
    """A map of one value per point or grid cell (accessibility per hexagon, population...).

    Parameters
    ----------
    values
        A 1-D array over ``point``/``origin``/``destination`` (select the percentile,
        cutoff, opportunity... first), a grid array over ``(y, x)``, or a Series indexed
        by point id (with ``points``).
    points
        Where the ids are (default: the array's coordinates).
    scale
        Colour classes (default: :meth:`~otpa.viz.colors.ColorScale.quantiles`, six classes).
    shape
        ``"hexagon"`` (cells rebuilt around the centres), ``"square"`` or ``"circle"``.
    size_m
        Distance between neighbouring centres (default: measured).
    title
        Legend title (default: the array's name).
    network
        Draw its streets and stops underneath.
    max_edges
        At most this many street segments.

    Examples
    --------
    >>> acc = accessibility(ttm, hexes, cutoffs=[3600])  # doctest: +SKIP
    >>> choropleth_map(acc.sel(percentile=50, cutoff=3600, opportunity="jobs"))  # doctest: +SKIP
    """
    ipyleaflet = leaflet()

    if title is None:
        title = str(getattr(values, "name", None) or "value")
    if scale is None:
        scale = ColorScale.quantiles(np.asarray(values.values, dtype=np.float64), title=title)
    data = values_geojson(values, scale, points=points, shape=shape, size_m=size_m)
    m = _base_map([data], network, max_edges, None)
    m.add(ipyleaflet.GeoJSON(data=data, name=scale.title or title))
    _finish(m, scale, None)
    return m


def difference_map(
    difference: xr.Dataset | xr.DataArray | pd.Series[Any],
    *,
    points: PointSet | None = None,
    percentile: int | None = None,
    limit: float | None = None,
    n_classes: int = 7,
    better: Literal["higher", "lower"] | None = None,
    title: str | None = None,
    unit: str = "",
    factor: float = 1.0,
    shape: Shape = "hexagon",
    network: TransportNetwork | None = None,
    max_edges: int = 10_000,
) -> ipyleaflet.Map:
    """A map of changes on a diverging scale centred on zero (blue: better, red: worse).

    Parameters
    ----------
    difference
        The Dataset of :func:`otpa.analysis.travel_time_difference` (its ``difference``
        in seconds, shown in minutes; lower is better), or any array/Series of changes as
        :func:`choropleth_map` takes (e.g. accessibility after minus before).
    points
        Where a Series' ids are.
    percentile
        Which percentile of a travel-time difference (default: the middle one).
    limit
        Largest absolute change on the scale (default: the largest finite change);
        larger changes take the end colours.
    n_classes
        Classes of the scale (odd: zero sits in a neutral middle class).
    better
        Whether an increase is an improvement (``"higher"``, the default for arrays)
        or a decrease is (``"lower"``, the default for travel-time differences).
    title, unit, factor
        Legend title, unit appended to labels, and labels' divisor.
    shape
        Point results: how a point is drawn.
    network
        Draw its streets and stops underneath.
    max_edges
        At most this many street segments.
    """
    ipyleaflet = leaflet()

    origin: tuple[float, float] | None = None
    if isinstance(difference, xr.Dataset):
        values: xr.DataArray | pd.Series[Any] = selected_plane(difference, "difference", percentile)
        better = "lower" if better is None else better
        if unit == "" and factor == 1.0:
            unit, factor = " min", 60.0
        title = "travel time change" if title is None else title
        origin = _origin(difference)
    elif isinstance(difference, xr.DataArray):
        values = selected_plane(difference, None, percentile)
    else:
        values = difference
    if title is None:
        title = str(getattr(difference, "name", None) or "change")
    changes = np.asarray(values.values, dtype=np.float64)
    changes = np.abs(changes[np.isfinite(changes)])
    if limit is None:
        limit = float(changes.max()) if changes.size and changes.max() > 0 else 1.0
    scale = ColorScale.diverging(
        limit, n_classes, reverse=better == "lower", title=title, unit=unit, factor=factor
    )
    data = values_geojson(values, scale, points=points, shape=shape)
    m = _base_map([data], network, max_edges, origin)
    m.add(ipyleaflet.GeoJSON(data=data, name=title))
    _finish(m, scale, None)
    return m
